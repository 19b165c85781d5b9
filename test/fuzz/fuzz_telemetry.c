/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Fuzz target: the parameters of the /mcfan/... telemetry commands (telemetry/telemetry.c),
 * on one request as a client writes it to the socket: "/mcfan/groups,239.9.9.1:3999". The
 * request is split at its first comma as DPDK 22.11's telemetry does; the parameter then goes
 * through the check every command's parameter passes (mcfan_tel_param_check()) and, if it
 * passes, through the parser of the command named: an lcore id 0..RTE_MAX_LCORE-1 for
 * /mcfan/msacc and /mcfan/latency (mcfan_tel_param_uint()), a page or one group for
 * /mcfan/groups (mcfan_tel_param_page_or_group()), none for every other command
 * (mcfan_tel_param_none()). The handlers' reads of a running app are not reached.
 *
 * Checks: the parameter check refuses exactly what is longer than MCFAN_TEL_PARAM_MAX (-E2BIG) or
 * holds a byte outside 0x20..0x7e; a number is accepted exactly when the parameter is decimal
 * digits of a value within the bound, and it is that value (0 on a refusal); a group is a
 * multicast group of its family with pad 0 that formats to text parsing back to it; a
 * refusal of /mcfan/groups has a terminated, non-empty reason; a command of no parameter
 * takes exactly the empty one.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>

#include "mcfan.h"
#include "telemetry/telemetry.h"
#include "fuzz.h"

#define REQ_MAX 1024 /* the 22.11 socket reads at most 1 KiB a request */

enum param_kind { P_NONE, P_LCORE, P_PAGE_OR_GROUP, P_PORT, P_GROUP };

/* Every /mcfan/ command (docs/telemetry.md) and the parameter it takes. */
static const struct {
	const char *name;
	enum param_kind kind;
} cmds[] = {
	{"/mcfan/info", P_NONE}, {"/mcfan/lcores", P_NONE}, {"/mcfan/msacc", P_LCORE},
	{"/mcfan/msacc/types", P_NONE}, {"/mcfan/groups", P_PAGE_OR_GROUP},
	{"/mcfan/rings", P_NONE}, {"/mcfan/counters", P_NONE}, {"/mcfan/latency", P_LCORE},
	{"/mcfan/ports", P_NONE}, {"/mcfan/idle", P_NONE}, {"/mcfan/topology", P_NONE},
	{"/mcfan/mempool", P_NONE}, {"/mcfan/igmp", P_PORT}, {"/mcfan/feed", P_GROUP},
	{"/mcfan/feed_pairs", P_NONE}, {"/mcfan/engines", P_NONE},
};

/* /mcfan/feed,GROUP: the parameter goes through the group-list parser, which must give
 * one group or a reason (control/feed.c refuses more than one). */
static void
check_group(const char *param)
{
	struct mcfan_flow_key k[2];
	char err[128];
	int n;

	memset(err, 'x', sizeof(err));
	n = mcfan_group_parse_list(param, k, RTE_DIM(k), err, sizeof(err));
	FUZZ_CHECK(n < 0 ? memchr(err, '\0', sizeof(err)) != NULL && err[0] != '\0' :
		   n >= 1 && n <= 2, "feed '%s': %d", param, n);
	if (n >= 1)
		FUZZ_CHECK(k[0].pad == 0 && (k[0].family == MCFAN_FAMILY_IPV4 ||
					     k[0].family == MCFAN_FAMILY_IPV6),
			   "feed '%s': bad key", param);
}

/* The decimal value of s if it is 1..20 digits and fits 64 bits; false otherwise. */
static bool
ref_decimal(const char *s, uint64_t *v)
{
	const char *p;

	*v = 0;
	if (*s == '\0')
		return false;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return false;
		if (*v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	return true;
}

static void
check_uint(const char *param, uint64_t max, const char *cmd)
{
	uint64_t v, ref;
	bool ok;
	int ret;

	ret = mcfan_tel_param_uint(param, max, &v);
	ok = ref_decimal(param, &ref) && ref <= max;
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ERANGE, "%s '%s': %d", cmd, param,
		   ret);
	FUZZ_CHECK((ret == 0) == ok, "%s '%s': %d, but it is %sa number 0..%" PRIu64, cmd, param,
		   ret, ok ? "" : "not ", max);
	FUZZ_CHECK(ret == 0 ? v == ref : v == 0, "%s '%s': value %" PRIu64, cmd, param, v);
}

static void
check_page_or_group(const char *param)
{
	struct mcfan_flow_key key, back;
	char err[128], text[MCFAN_GROUP_STR_MAX];
	uint64_t page, ref;
	int ret, len;

	memset(err, 'x', sizeof(err));
	ret = mcfan_tel_param_page_or_group(param, &page, &key, err, sizeof(err));
	FUZZ_CHECK(ret == 0 || ret == 1 || ret == -EINVAL, "groups '%s': %d", param, ret);
	if (ret == 0) {
		FUZZ_CHECK(param[0] == '\0' ? page == 0 :
			   ref_decimal(param, &ref) && ref <= UINT32_MAX && ref == page,
			   "groups '%s': page %" PRIu64, param, page);
		return;
	}
	if (ret < 0) {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL && err[0] != '\0',
			   "groups '%s': no reason", param);
		FUZZ_CHECK(!(ref_decimal(param, &ref) && ref <= UINT32_MAX),
			   "groups '%s': a page refused", param);
		return;
	}
	FUZZ_CHECK(page == 0 && key.pad == 0, "groups '%s': page %" PRIu64 " pad %u", param, page,
		   key.pad);
	FUZZ_CHECK(key.family == MCFAN_FAMILY_IPV4 ? (key.addr[0] & 0xf0) == 0xe0 :
		   key.family == MCFAN_FAMILY_IPV6 && key.addr[0] == 0xff,
		   "groups '%s': not a group", param);
	len = mcfan_group_format(&key, text, sizeof(text));
	FUZZ_CHECK(len > 0 && len < (int)sizeof(text), "groups '%s': format %d", param, len);
	FUZZ_CHECK(mcfan_group_parse(text, &back, 1, NULL, 0) == 1 &&
		   mcfan_flow_key_equal(&back, &key),
		   "groups '%s' formats as '%s', which parses to another key", param, text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	char req[REQ_MAX + 1], *comma;
	const char *param;
	unsigned int i;
	size_t k, at;
	int ret, want;

	if (devnull == NULL) {
		/* mcfan_tel_param_none() logs each refusal: not millions of lines */
		devnull = fopen("/dev/null", "w");
		FUZZ_CHECK(devnull != NULL && rte_openlog_stream(devnull) == 0, "log stream");
	}
	if (size > REQ_MAX)
		return 0;
	memcpy(req, data, size);
	req[size] = '\0';
	comma = strchr(req, ',');
	param = NULL;
	if (comma != NULL) {
		*comma = '\0';
		param = comma[1] != '\0' ? comma + 1 : NULL;
	}
	for (i = 0; i < RTE_DIM(cmds); i++)
		if (strcmp(req, cmds[i].name) == 0)
			break;
	if (i == RTE_DIM(cmds))
		return 0; /* not an mcfan command: DPDK answers it */

	ret = mcfan_tel_param_check(param, &at);
	want = 0;
	for (k = 0; param != NULL && param[k] != '\0' && want == 0; k++) {
		if (k >= MCFAN_TEL_PARAM_MAX)
			want = -E2BIG;   /* at: the whole length */
		else if ((unsigned char)param[k] < 0x20 || (unsigned char)param[k] > 0x7e)
			want = -EINVAL;  /* at: this byte */
	}
	FUZZ_CHECK(ret == want && at == (want == -E2BIG ? strlen(param) :
					 want == -EINVAL ? k - 1 : 0),
		   "%s: check %d at %zu, expected %d", req, ret, at, want);
	if (ret < 0)
		return 0;
	switch (cmds[i].kind) {
	case P_NONE:
		ret = mcfan_tel_param_none(req, param);
		FUZZ_CHECK(ret == (param == NULL || param[0] == '\0' ? 0 : -EINVAL),
			   "%s '%s': %d", req, param != NULL ? param : "", ret);
		break;
	case P_LCORE:
		if (param != NULL)
			check_uint(param, RTE_MAX_LCORE - 1, req);
		break;
	case P_PAGE_OR_GROUP:
		check_page_or_group(param != NULL ? param : "");
		break;
	case P_PORT:
		if (param != NULL)
			check_uint(param, RTE_MAX_ETHPORTS - 1, req);
		break;
	case P_GROUP:
		if (param != NULL)
			check_group(param);
		break;
	}
	return 0;
}
