/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "mcfan_group.h"
#include "mcfan_igmp.h"
#include "mcfan_igmp_host.h"
#include "mcfan_igmp_ssm.h"

#define ITEM_MAX 256 /* longest item quoted or parsed, bytes */

static int
fail(char *err, size_t err_len, int ret, const char *fmt, const char *what)
{
	if (err != NULL && err_len > 0)
		snprintf(err, err_len, fmt, what);
	return ret;
}

/* Parse one source of the given family into out[16]; 0 or -EINVAL. */
static int
parse_source(const char *s, size_t n, uint8_t family, uint8_t *out)
{
	char buf[ITEM_MAX];

	memset(out, 0, 16);
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	if (family == MCFAN_FAMILY_IPV6) {
		if (n < 3 || s[0] != '[' || s[n - 1] != ']')
			return -EINVAL;
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = '\0';
		if (inet_pton(AF_INET6, buf, out) != 1 || out[0] == 0xff)
			return -EINVAL;
		/* ::1 (loopback) and ::ffff:0:0/96 (IPv4-mapped): no network sends from them */
		if (memcmp(out, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16) == 0 ||
		    memcmp(out, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0)
			return -EINVAL;
		for (n = 0; n < 16; n++)
			if (out[n] != 0)
				return 0;
		return -EINVAL;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, out) != 1 || (out[0] & 0xf0) == 0xe0 || out[0] >= 240 ||
	    out[0] == 127 || /* loopback: no network sends from it */
	    (out[0] | out[1] | out[2] | out[3]) == 0)
		return -EINVAL;
	return 0;
}

/* A source refused only for its brackets (an IPv6 one without them, an IPv4 one in them):
 * -EINVAL with err saying what to write; 0 when that is not why. */
static int
source_brackets(const char *item, uint8_t family, char *err, size_t err_len)
{
	char buf[ITEM_MAX + 2];
	size_t n = strlen(item);
	uint8_t tmp[16];

	if (family == MCFAN_FAMILY_IPV6 && n > 0 && item[0] != '[' && n + 2 < sizeof(buf)) {
		snprintf(buf, sizeof(buf), "[%s]", item);
		if (parse_source(buf, n + 2, family, tmp) != 0)
			return 0;
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "'%s' is an IPv6 source without its brackets: write "
				 "%s (e.g. [ff3e::1]@[fe80::1])", item, buf);
		return -EINVAL;
	}
	if (family == MCFAN_FAMILY_IPV4 && n > 2 && item[0] == '[' && item[n - 1] == ']' &&
	    parse_source(item + 1, n - 2, family, tmp) == 0) {
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "'%s' is an IPv4 source in brackets: write %.*s "
				 "(e.g. 232.1.1.1@198.18.0.1)", item, (int)(n - 2), item + 1);
		return -EINVAL;
	}
	return 0;
}

/* A source parse_source() refuses because no network sends from it (an address of the
 * host itself: loopback; IPv6 also an IPv4-mapped one, which is never on a wire, RFC 4291
 * 2.5.5.2): -EINVAL with err saying so; 0 when that is not why. */
static int
source_no_network(const char *item, uint8_t family, char *err, size_t err_len)
{
	static const uint8_t loop6[16] = {[15] = 1};
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
	char buf[ITEM_MAX];
	const char *why = NULL, *whose = "";
	size_t n = strlen(item);
	uint8_t a[16];

	if (family == MCFAN_FAMILY_IPV6) {
		if (n < 3 || item[0] != '[' || item[n - 1] != ']' || n - 2 >= sizeof(buf))
			return 0;
		memcpy(buf, item + 1, n - 2);
		buf[n - 2] = '\0';
		if (inet_pton(AF_INET6, buf, a) != 1)
			return 0;
		if (memcmp(a, loop6, 16) == 0)
			why = "::1 is loopback";
		else if (memcmp(a, mapped, 12) == 0) {
			why = "::ffff:0:0/96 is IPv4-mapped, never on a wire";
			whose = "IPv6 ";
		}
	} else if (inet_pton(AF_INET, item, a) == 1 && a[0] == 127) {
		why = "127.0.0.0/8 is loopback";
	}
	if (why == NULL)
		return 0;
	if (err != NULL && err_len > 0)
		snprintf(err, err_len, "'%s' is not a unicast source address of a network (%s): "
			 "give the sender's %saddress (e.g. %s)", item, why, whose,
			 family == MCFAN_FAMILY_IPV6 ? "[ff3e::1]@[fe80::1]" :
			 "232.1.1.1@198.18.0.1");
	return -EINVAL;
}

int
mcfan_igmp_ssm_split(const char *text, char *groups_out, size_t out_len,
		     struct mcfan_igmp_ssm *ssm, unsigned int max, unsigned int *n_ssm,
		     char *err, size_t err_len)
{
	struct mcfan_flow_key *keys;
	const char *p = text, *end, *at, *s, *e;
	char item[ITEM_MAX];
	size_t used = 0, glen;
	uint8_t src[16];
	int n, k, j, ret = 0;

	*n_ssm = 0;
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	if (keys == NULL)
		return -ENOMEM;
	for (;;) {
		end = p + strcspn(p, ",");
		at = memchr(p, '@', (size_t)(end - p));
		glen = at != NULL ? (size_t)(at - p) : (size_t)(end - p);
		if (used + glen + 1 > out_len) {
			ret = fail(err, err_len, -ENOSPC, "%s: list too long", "groups");
			goto out;
		}
		memcpy(groups_out + used, p, glen);
		used += glen;
		if (at != NULL) {
			if (glen >= sizeof(item) || (size_t)(end - p) >= sizeof(item)) {
				ret = fail(err, err_len, -EINVAL, "item too long: '%.40s'", p);
				goto out;
			}
			memcpy(item, p, glen);
			item[glen] = '\0';
			n = mcfan_group_parse(item, keys, MCFAN_MAX_GROUPS, err, err_len);
			if (n < 0) {
				ret = n;
				goto out;
			}
			/* "G@S1,G@S2": the sources of one group in two items (as if items were
			 * sources); the group list would only say "listed twice" */
			for (k = 0; k < (int)*n_ssm; k++)
				for (j = 0; j < n; j++)
					if (mcfan_flow_key_equal(&ssm[k].key, &keys[j]))
						goto twice;
			for (s = at + 1; ; s = e + 1) {
				e = s + strcspn(s, "+,");
				if (e > end)
					e = end;
				memcpy(item, s, (size_t)(e - s));
				item[e - s] = '\0';
				if (parse_source(s, (size_t)(e - s), keys[0].family, src) != 0) {
					ret = source_brackets(item, keys[0].family, err, err_len);
					if (ret < 0)
						goto out;
					ret = source_no_network(item, keys[0].family, err,
								err_len);
					if (ret < 0)
						goto out;
					ret = fail(err, err_len, -EINVAL, "'%s' is not a unicast source "
						   "address of the group's family (e.g. "
						   "232.1.1.1@198.18.0.1 or [ff3e::1]@[fe80::1])", item);
					goto out;
				}
				/* "G@S+S": the same source twice is a typing error, not one more
				 * filter (the pairs of keys[0] stand for the whole item) */
				for (k = 0; k < (int)*n_ssm; k++)
					if (mcfan_flow_key_equal(&ssm[k].key, &keys[0]) &&
					    memcmp(ssm[k].source, src, 16) == 0)
						break;
				if (k < (int)*n_ssm) {
					if (err != NULL && err_len > 0)
						snprintf(err, err_len, "duplicate source %s in "
							 "group %.*s: name each source once "
							 "(e.g. 232.1.1.1@198.18.0.1+198.18.0.3)",
							 item, (int)glen, p);
					ret = -EINVAL;
					goto out;
				}
				for (k = 0; k < n; k++) {
					if (*n_ssm == max) {
						if (err != NULL && err_len > 0)
							snprintf(err, err_len, "more than %u (group, "
								 "source) pairs", max);
						ret = -E2BIG;
						goto out;
					}
					ssm[*n_ssm].key = keys[k];
					memcpy(ssm[*n_ssm].source, src, 16);
					(*n_ssm)++;
				}
				if (e == end)
					break;
			}
		}
		if (*end == '\0')
			break;
		groups_out[used++] = ',';
		p = end + 1;
	}
	groups_out[used] = '\0';
	goto out;
twice:
	mcfan_group_format(&keys[j], item, sizeof(item));
	if (err != NULL && err_len > 0)
		snprintf(err, err_len, "group %s is given sources in two items ('%.*s' again): join "
			 "its sources with '+' (e.g. 232.1.1.1@198.18.0.1+198.18.0.3)", item,
			 (int)(end - p), p);
	ret = -EINVAL;
out:
	free(keys);
	return ret;
}

unsigned int
mcfan_igmp_ssm_format(const struct mcfan_igmp_ssm *ssm, unsigned int n,
		      const struct mcfan_flow_key *key, char *buf, size_t len)
{
	char a[MCFAN_IGMP_ADDR_STR];
	bool v6 = key->family == MCFAN_FAMILY_IPV6;
	unsigned int i, found = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!mcfan_flow_key_equal(&ssm[i].key, key))
			continue;
		mcfan_igmp_addr_format(v6 ? MCFAN_IGMP_PROTO_MLD : MCFAN_IGMP_PROTO_IGMP,
				       ssm[i].source, a);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s%s%s",
						found == 0 ? "" : "+", v6 ? "[" : "", a,
						v6 ? "]" : "");
		found++;
	}
	return found;
}

int
mcfan_igmp_ssm_check(const struct mcfan_igmp_ssm *ssm, unsigned int n, int igmp_mode,
		     int mld_mode, char *err, size_t err_len)
{
	char a[MCFAN_IGMP_ADDR_STR];
	unsigned int i, j, k, n_src;
	bool v6, seen;
	uint8_t proto;
	int mode;

	for (i = 0; i < n; i++) {
		v6 = ssm[i].key.family == MCFAN_FAMILY_IPV6;
		proto = v6 ? MCFAN_IGMP_PROTO_MLD : MCFAN_IGMP_PROTO_IGMP;
		mode = v6 ? mld_mode : igmp_mode;
		if (mode == MCFAN_IGMP_MODE_OFF || mode == MCFAN_IGMP_MODE_V1 ||
		    (mode == MCFAN_IGMP_MODE_V2 && !v6)) {
			if (err != NULL && err_len > 0)
				snprintf(err, err_len, "%s from a source needs %s (--%s auto or %s), "
					 "not --%s %s: %s", mcfan_igmp_addr_format(proto,
					 ssm[i].key.addr, a), v6 ? "MLDv2" : "IGMPv3",
					 v6 ? "mld" : "igmp", v6 ? "v2" : "v3", v6 ? "mld" : "igmp",
					 mcfan_igmp_mode_name(mode), mode == MCFAN_IGMP_MODE_OFF ?
					 "it sends no report" : "that version has no sources");
			return -ENOTSUP;
		}
		/* the first pair of its address counts the address's distinct sources */
		for (j = 0, seen = false; j < i && !seen; j++)
			seen = memcmp(ssm[j].key.addr, ssm[i].key.addr, 16) == 0;
		if (seen)
			continue;
		for (j = i, n_src = 0; j < n; j++) {
			if (memcmp(ssm[j].key.addr, ssm[i].key.addr, 16) != 0)
				continue;
			for (k = i; k < j; k++)
				if (memcmp(ssm[k].key.addr, ssm[i].key.addr, 16) == 0 &&
				    memcmp(ssm[k].source, ssm[j].source, 16) == 0)
					break;
			if (k == j)
				n_src++;
		}
		if (n_src > MCFAN_IGMP_MAX_SOURCES) {
			if (err != NULL && err_len > 0)
				snprintf(err, err_len, "group %s: %u sources, more than the %d a "
					 "group can be joined from", mcfan_igmp_addr_format(proto,
					 ssm[i].key.addr, a), n_src, MCFAN_IGMP_MAX_SOURCES);
			return -E2BIG;
		}
	}
	return 0;
}
