/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The /mcfan/... telemetry framework (telemetry.h), answered on the standard v2 socket
 * (dpdk-telemetry.py -f PREFIX). The commands live by family beside their handlers:
 * info.c (/mcfan/info, /mcfan/lcores), msacc.c, traffic.c (groups, rings, counters,
 * latency), idle.c and topology.c. Reply shapes are documented in docs/telemetry.md.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "log.h"
#include "telemetry/telemetry.h"

#define BASIS_POINTS 100.0 /* basis points per percent */

/*
 * Registration: constructors append to tel_cmds before main() (single threaded); after
 * that the list is only read. Lifetime: callbacks run in the telemetry thread and may
 * arrive before setup is complete or while the main lcore tears down. tel_lock (control
 * side only, never taken by a data lcore) guards tel_app and tel_ready: callbacks run
 * only while tel_ready is set, and mcfan_telemetry_stop() clears it, waiting for a
 * running callback to finish.
 */
static struct mcfan_tel_cmd *tel_cmds;
static struct mcfan_tel_cmd **tel_cmds_tail = &tel_cmds;
static struct mcfan_app *tel_app;
static rte_spinlock_t tel_lock = RTE_SPINLOCK_INITIALIZER;
static bool tel_ready;

void
mcfan_tel_register(struct mcfan_tel_cmd *cmd)
{
	cmd->next = NULL;
	*tel_cmds_tail = cmd;
	tel_cmds_tail = &cmd->next;
}

int
mcfan_tel_param_none(const char *cmd, const char *params)
{
	if (params != NULL && params[0] != '\0') {
		MCFAN_LOG(WARNING, "telemetry %s: takes no parameter, got '%.64s'\n", cmd, params);
		return -EINVAL;
	}
	return 0;
}

int
mcfan_tel_param_uint(const char *s, uint64_t max, uint64_t *out)
{
	*out = 0;
	return mcfan_parse_u64(s, 0, max, out);
}

int
mcfan_tel_param_check(const char *params, size_t *at)
{
	size_t n;

	*at = 0;
	if (params == NULL)
		return 0;
	for (n = 0; params[n] != '\0'; n++) {
		if (n >= MCFAN_TEL_PARAM_MAX) {
			*at = n + strlen(params + n);
			return -E2BIG;
		}
		if ((unsigned char)params[n] < 0x20 || (unsigned char)params[n] > 0x7e) {
			*at = n;
			return -EINVAL;
		}
	}
	return 0;
}

int
mcfan_tel_param_page_or_group(const char *params, uint64_t *page,
			      struct mcfan_flow_key *group, char *err, size_t len)
{
	*page = 0;
	if (len > 0)
		err[0] = '\0';
	if (params == NULL || params[0] == '\0')
		return 0;
	struct mcfan_flow_key k[2];
	int n;

	if (mcfan_tel_param_uint(params, UINT32_MAX, page) == 0)
		return 0;
	if (params[strspn(params, "0123456789")] == '\0') {
		/* digits only: a page, too large (not "not a valid IPv4 address") */
		if (len > 0)
			snprintf(err, len, "page %s is not 0..%" PRIu32, params, UINT32_MAX);
		return -EINVAL;
	}
	n = mcfan_group_parse_list(params, k, RTE_DIM(k), err, len);
	/* the parser's own reason; a list or a range: one group is asked for (before, a list
	 * was parsed as one group: "one ':PORT' after an IPv4 group") */
	if (n < 0 && n != -E2BIG)
		return -EINVAL;
	if (n != 1) {
		if (len > 0)
			snprintf(err, len, "'%s' names more than one group: give one", params);
		return -EINVAL;
	}
	*group = k[0];
	return 1;
}

uint64_t
mcfan_tel_bp(double pct)
{
	return pct <= 0 ? 0 : (uint64_t)(pct * BASIS_POINTS + 0.5);
}

size_t
mcfan_tel_u64_bytes(uint64_t v)
{
	size_t n = 2; /* one digit and the comma */

	for (; v >= 10; v /= 10)
		n++;
	return n;
}

size_t
mcfan_tel_str_bytes(const char *s)
{
	return strlen(s) + 3;
}

struct rte_tel_data *
mcfan_tel_array(enum rte_tel_value_type type)
{
	struct rte_tel_data *a = rte_tel_data_alloc();

	if (a != NULL)
		rte_tel_data_start_array(a, type);
	return a;
}

int
mcfan_tel_cols_alloc(struct rte_tel_data **c, const struct mcfan_tel_col *cols, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		c[i] = mcfan_tel_array(cols[i].type);
		if (c[i] == NULL) {
			while (i-- > 0)
				rte_tel_data_free(c[i]);
			return -ENOMEM;
		}
	}
	return 0;
}

int
mcfan_tel_cols_attach(struct rte_tel_data *d, struct rte_tel_data **c,
		      const struct mcfan_tel_col *cols, unsigned int n)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		if (rte_tel_data_add_dict_container(d, cols[i].name, c[i], 0) != 0) {
			rte_tel_data_free(c[i]);
			ret = -ENOMEM;
		}
	}
	return ret;
}

/* Every command goes through here: find it, and run it only while mcfan is set up. */
static int
tel_dispatch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mcfan_tel_cmd *c;
	size_t at;
	int ret;

	rte_tel_data_start_dict(d);
	for (c = tel_cmds; c != NULL; c = c->next)
		if (strcmp(cmd, c->name) == 0)
			break;
	if (c == NULL)
		return -ENOENT;
	ret = mcfan_tel_param_check(params, &at);
	if (ret == -E2BIG) {
		/* refused whole: no handler acts on the first MCFAN_TEL_PARAM_MAX characters */
		MCFAN_LOG(WARNING, "telemetry %s: parameter of %zu characters refused: too long "
			  "(at most %d)\n", cmd, at, MCFAN_TEL_PARAM_MAX);
		return -EINVAL;
	}
	if (ret < 0) {
		/* never copy control or non-ASCII bytes into the log: its value in hex */
		MCFAN_LOG(WARNING, "telemetry %s: parameter refused: character %zu (byte 0x%02x) "
			  "is not printable ASCII (0x20..0x7e)\n", cmd, at + 1,
			  (unsigned int)(unsigned char)params[at]);
		return -EINVAL;
	}
	rte_spinlock_lock(&tel_lock);
	if (tel_ready)
		ret = c->fn(tel_app, cmd, params, d);
	else
		ret = -EAGAIN;
	rte_spinlock_unlock(&tel_lock);
	return ret;
}

void
mcfan_telemetry_stop(void)
{
	rte_spinlock_lock(&tel_lock);
	tel_ready = false;
	rte_spinlock_unlock(&tel_lock);
}

int
mcfan_telemetry_init(struct mcfan_app *app)
{
	const struct mcfan_tel_cmd *c;
	int ret;

	rte_spinlock_lock(&tel_lock);
	tel_app = app;
	tel_ready = true;
	rte_spinlock_unlock(&tel_lock);
	for (c = tel_cmds; c != NULL; c = c->next) {
		ret = rte_telemetry_register_cmd(c->name, tel_dispatch, c->help);
		if (ret != 0) {
			MCFAN_LOG(ERR, "cannot register telemetry command %s: %s\n", c->name,
				  strerror(-ret));
			return ret;
		}
	}
	return 0;
}
