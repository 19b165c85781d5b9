/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Unit tests of group parsing and formatting (no EAL), and of the group
 * table and fan-out assignment (EAL without hugepages or devices).
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_hash_crc.h>
#include <rte_errno.h>
#include <rte_hash.h>

#include "mcfan_group.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

#define ERR_LEN 256
#define KEYS_MAX 1100
#define GROUP_PORT 3999
#define N_SEED_GROUPS 10
#define BULK_KEYS RTE_HASH_LOOKUP_BULK_MAX
#define RANDOM_SEED 20260101u
#define LONG_ITEM_LEN 200

static struct mcfan_flow_key keys[KEYS_MAX];

static void
v4_key(struct mcfan_flow_key *k, uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port)
{
	memset(k, 0, sizeof(*k));
	k->family = MCFAN_FAMILY_IPV4;
	k->udp_port = port;
	k->addr[0] = a;
	k->addr[1] = b;
	k->addr[2] = c;
	k->addr[3] = d;
}

static void
v6_key(struct mcfan_flow_key *k, uint16_t w0, uint16_t w7, uint16_t port)
{
	memset(k, 0, sizeof(*k));
	k->family = MCFAN_FAMILY_IPV6;
	k->udp_port = port;
	k->addr[0] = (uint8_t)(w0 >> 8);
	k->addr[1] = (uint8_t)w0;
	k->addr[14] = (uint8_t)(w7 >> 8);
	k->addr[15] = (uint8_t)w7;
}

static void
check_key(const char *what, const struct mcfan_flow_key *got, const struct mcfan_flow_key *exp)
{
	char g[MCFAN_GROUP_STR_MAX], e[MCFAN_GROUP_STR_MAX];

	if (memcmp(got, exp, sizeof(*got)) == 0) {
		CHECK(1, "%s", what);
		return;
	}
	if (mcfan_group_format(got, g, sizeof(g)) < 0)
		snprintf(g, sizeof(g), "(family %u)", got->family);
	if (mcfan_group_format(exp, e, sizeof(e)) < 0)
		snprintf(e, sizeof(e), "(family %u)", exp->family);
	CHECK(0, "%s: key %s, expected %s", what, g, e);
}

/* ---- parsing: good input ---- */

static void
test_parse_good(void)
{
	struct mcfan_flow_key exp;
	char err[ERR_LEN];
	int n, i;

	n = mcfan_group_parse("239.9.9.1", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 1);
	v4_key(&exp, 239, 9, 9, 1, 0);
	check_key("239.9.9.1", &keys[0], &exp);

	n = mcfan_group_parse("239.9.9.1:3999", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 1);
	v4_key(&exp, 239, 9, 9, 1, GROUP_PORT);
	check_key("239.9.9.1:3999", &keys[0], &exp);

	n = mcfan_group_parse("239.9.9.1-10:3999", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, N_SEED_GROUPS);
	for (i = 0; i < N_SEED_GROUPS && i < n; i++) {
		v4_key(&exp, 239, 9, 9, (uint8_t)(1 + i), GROUP_PORT);
		check_key("239.9.9.1-10:3999", &keys[i], &exp);
	}

	n = mcfan_group_parse("239.9.9.1-10", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, N_SEED_GROUPS);
	v4_key(&exp, 239, 9, 9, 10, 0);
	if (n == N_SEED_GROUPS)
		check_key("239.9.9.1-10, last", &keys[9], &exp);

	/* A range of whole addresses across an octet boundary: .250-.255, then .0-.5. */
	n = mcfan_group_parse("239.9.9.250-239.9.10.5", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 12);
	for (i = 0; i < 12 && i < n; i++) {
		if (i < 6)
			v4_key(&exp, 239, 9, 9, (uint8_t)(250 + i), 0);
		else
			v4_key(&exp, 239, 9, 10, (uint8_t)(i - 6), 0);
		check_key("239.9.9.250-239.9.10.5", &keys[i], &exp);
	}

	n = mcfan_group_parse("239.9.9.5-5", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 1);
	n = mcfan_group_parse("239.9.9.0-255:1", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 256);
	v4_key(&exp, 239, 9, 9, 255, 1);
	if (n == 256)
		check_key("239.9.9.0-255:1, last", &keys[255], &exp);
	n = mcfan_group_parse("224.0.0.0", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 1);
	n = mcfan_group_parse("239.255.255.255:65535", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 1);
	v4_key(&exp, 239, 255, 255, 255, 65535);
	check_key("239.255.255.255:65535", &keys[0], &exp);
	/* Leading zeros in the port are decimal, not octal. */
	n = mcfan_group_parse("239.9.9.1:0010", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_INT(keys[0].udp_port, 10);
	/* Range exactly as large as the room. */
	n = mcfan_group_parse("239.9.9.1-10", keys, N_SEED_GROUPS, err, sizeof(err));
	CHECK_EQ_INT(n, N_SEED_GROUPS);

	n = mcfan_group_parse("[ff3e::1]:5000", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 1);
	v6_key(&exp, 0xff3e, 1, 5000);
	check_key("[ff3e::1]:5000", &keys[0], &exp);

	n = mcfan_group_parse("[ff02::fb]", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 1);
	v6_key(&exp, 0xff02, 0xfb, 0);
	check_key("[ff02::fb]", &keys[0], &exp);

	/* err may be NULL on success and on failure. */
	CHECK_EQ_INT(mcfan_group_parse("[ff05::2]:1", keys, 1, NULL, 0), 1);
	CHECK_EQ_INT(mcfan_group_parse("10.0.0.1", keys, 1, NULL, 0), -EINVAL);
	CHECK_EQ_INT(mcfan_group_parse_list("239.9.9.1,239.9.9.1", keys, 4, NULL, 0), -EEXIST);

	/* Lists, in list order. */
	n = mcfan_group_parse_list("239.9.9.1-10:3999,[ff3e::1]:5000,239.9.9.1,[ff02::fb]", keys,
				   KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 13);
	if (n == 13) {
		v4_key(&exp, 239, 9, 9, 1, GROUP_PORT);
		check_key("list[0]", &keys[0], &exp);
		v4_key(&exp, 239, 9, 9, 10, GROUP_PORT);
		check_key("list[9]", &keys[9], &exp);
		v6_key(&exp, 0xff3e, 1, 5000);
		check_key("list[10]", &keys[10], &exp);
		v4_key(&exp, 239, 9, 9, 1, 0);
		check_key("list[11]", &keys[11], &exp);
		v6_key(&exp, 0xff02, 0xfb, 0);
		check_key("list[12]", &keys[12], &exp);
	}
	n = mcfan_group_parse_list("239.9.9.1", keys, KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 1);
	/* The same address with and without a port, or on two ports, is two groups. */
	n = mcfan_group_parse_list("239.9.9.1,239.9.9.1:1,239.9.9.1:2,[ff3e::1],[ff3e::1]:1", keys,
				   KEYS_MAX, err, sizeof(err));
	CHECK_EQ_INT(n, 5);
	/* A list of exactly MCFAN_MAX_GROUPS groups. */
	n = mcfan_group_parse_list("239.1.0.0-239.1.1.255,239.2.0.0-239.2.1.255", keys,
				   MCFAN_MAX_GROUPS, err, sizeof(err));
	CHECK_EQ_INT(n, MCFAN_MAX_GROUPS);
	/* The text is not modified. */
	{
		char text[] = "239.9.9.1-3:3999,[ff3e::1]:5000";

		n = mcfan_group_parse_list(text, keys, KEYS_MAX, err, sizeof(err));
		CHECK_EQ_INT(n, 4);
		CHECK_EQ_STR(text, "239.9.9.1-3:3999,[ff3e::1]:5000");
	}
}

/* ---- parsing: bad input ---- */

/* Expect text to fail with errno_exp and a message quoting mention (if not NULL). */
static void
expect_bad(bool list, const char *text, unsigned int max, int errno_exp, const char *mention)
{
	char err[ERR_LEN];
	int n;

	memset(err, 0, sizeof(err));
	if (list)
		n = mcfan_group_parse_list(text, keys, max, err, sizeof(err));
	else
		n = mcfan_group_parse(text, keys, max, err, sizeof(err));
	CHECK(n == errno_exp, "%s('%s', max %u) = %d, expected %d (message: %s)",
	      list ? "parse_list" : "parse", text, max, n, errno_exp, err);
	CHECK(err[0] != '\0', "%s('%s'): empty error message", list ? "parse_list" : "parse",
	      text);
	if (mention != NULL)
		CHECK(strstr(err, mention) != NULL, "%s('%s'): message '%s' does not mention '%s'",
		      list ? "parse_list" : "parse", text, err, mention);
}

static void
expect_bad_both(const char *text, int errno_exp)
{
	expect_bad(false, text, KEYS_MAX, errno_exp, text);
	expect_bad(true, text, KEYS_MAX, errno_exp, text);
}

static void
test_parse_bad(void)
{
	static const char *const invalid[] = {
		"10.0.0.1",                  /* not multicast */
		"223.255.255.255",
		"240.0.0.1",
		"255.255.255.255",
		"239.9.9.300",
		"239.9.9.01",                /* glibc inet_pton: leading zero in an octet refused */
		"0239.9.9.1",
		"239.9.9",
		"239.9.9.1.1",
		"239.9.9.1 ",
		" 239.9.9.1",
		"239.9.9.10-1",              /* decreasing */
		"239.9.10.1-239.9.9.1",
		"239.9.9.1-",
		"239.9.9.1-256",
		"239.9.9.1-x",
		"239.9.9.1-239.9.9",
		"239.255.255.250-240.0.0.1", /* end not multicast */
		"223.255.255.255-224.0.0.1", /* start not multicast */
		"239.9.9.1:0",               /* port range 1..65535 */
		"239.9.9.1:65536",
		"239.9.9.1:70000",
		"239.9.9.1:99999999999999999999999",
		"239.9.9.1:",
		"239.9.9.1:abc",
		"239.9.9.1:-1",
		"239.9.9.1:+1",
		"239.9.9.1: 1",
		"239.9.9.1:1x",
		"239.9.9.1:3999:1",
		":70000",
		":abc",
		":3999",
		"[ff3e::1",
		"[fe80::1]",                 /* not multicast */
		"[2001:db8::1]:5000",
		"[ff3e::1]x",
		"[ff3e::1]:",
		"[ff3e::1]:0",
		"[ff3e::1]:65536",
		"[ff3e::1]:x",
		"[ff3e::g]",
		"[239.9.9.1]",
		"[]",
		"[",
		"ff3e::1",                   /* IPv6 needs brackets */
		"x",
		"-",
	};
	char long_item[LONG_ITEM_LEN + 1], long_list[LONG_ITEM_LEN + 32], mention[41];
	unsigned int i;

	for (i = 0; i < RTE_DIM(invalid); i++)
		expect_bad_both(invalid[i], -EINVAL);

	/* Empty input and empty list items. */
	expect_bad(false, "", KEYS_MAX, -EINVAL, NULL);
	expect_bad(true, "", KEYS_MAX, -EINVAL, NULL);
	expect_bad(true, ",", KEYS_MAX, -EINVAL, ",");
	expect_bad(true, "239.9.9.1,", KEYS_MAX, -EINVAL, "239.9.9.1,");
	expect_bad(true, ",239.9.9.1", KEYS_MAX, -EINVAL, ",239.9.9.1");
	expect_bad(true, "239.9.9.1,,239.9.9.2", KEYS_MAX, -EINVAL, "239.9.9.1,,239.9.9.2");
	/* A source-specific item where only groups are taken (--seq, set pair, show feed gaps):
	 * the source is named, not the port (before: "UDP port must be a decimal number"). */
	expect_bad(false, "239.9.9.1:5000@198.18.0.1", KEYS_MAX, -EINVAL,
		   "group '239.9.9.1:5000@198.18.0.1': a source (@SOURCE) is not taken here: "
		   "give the group without it (239.9.9.1:5000)");
	expect_bad(true, "239.9.9.2:5000,239.9.9.1:5000@198.18.0.1+198.18.0.3", KEYS_MAX,
		   -EINVAL, "a source (@SOURCE) is not taken here: give the group without it "
		   "(239.9.9.1:5000)");
	expect_bad(false, "239.9.9.1@198.18.0.1", KEYS_MAX, -EINVAL,
		   "give the group without it (239.9.9.1)");
	expect_bad(false, "[ff3e::1]:5000@[2001:db8::1]", KEYS_MAX, -EINVAL,
		   "give the group without it ([ff3e::1]:5000)");
	/* IPv6 scope 0 (reserved) and 1 (interface-local), flags set or not (RFC 4291 2.7):
	 * refused with the scope named; scope 2 (link-local) and wider parse. */
	expect_bad(false, "[ff00::1]", KEYS_MAX, -EINVAL,
		   "group '[ff00::1]': IPv6 multicast scope 0 (reserved) does not reach a port: "
		   "mcfan receives groups of link-local scope (2) and wider");
	expect_bad(false, "[ff01::1]:5000", KEYS_MAX, -EINVAL,
		   "group '[ff01::1]:5000': IPv6 multicast scope 1 (interface-local) does not "
		   "reach a port: mcfan receives groups of link-local scope (2) and wider");
	expect_bad(true, "[ff3e::1],[ff11::2]", KEYS_MAX, -EINVAL,
		   "group '[ff11::2]': IPv6 multicast scope 1 (interface-local)");
	expect_bad(false, "[ff31::1]", KEYS_MAX, -EINVAL, "scope 1 (interface-local)");
	expect_bad(false, "[ff70::1]", KEYS_MAX, -EINVAL, "scope 0 (reserved)");
	CHECK(mcfan_group_parse("[ff02::9]", keys, KEYS_MAX, NULL, 0) == 1 &&
	      keys[0].addr[1] == 0x02, "[ff02::9] (scope 2, link-local) parses");
	CHECK(mcfan_group_parse("[ff12::1]:5000", keys, KEYS_MAX, NULL, 0) == 1,
	      "[ff12::1]:5000 (scope 2, transient) parses");
	CHECK(mcfan_group_parse("[ff0f::1]", keys, KEYS_MAX, NULL, 0) == 1,
	      "[ff0f::1] (scope 15) parses");
	/* A bad item in the middle of a list is named. */
	expect_bad(true, "239.9.9.1,10.0.0.1,239.9.9.2", KEYS_MAX, -EINVAL, "10.0.0.1");
	expect_bad(true, "[ff3e::1]:5000,[fe80::1]", KEYS_MAX, -EINVAL, "[fe80::1]");

	/* Duplicates. */
	expect_bad(true, "239.9.9.1,239.9.9.1", KEYS_MAX, -EEXIST, "239.9.9.1");
	expect_bad(true, "239.9.9.1:3999,239.9.9.1:3999", KEYS_MAX, -EEXIST, "239.9.9.1:3999");
	expect_bad(true, "239.9.9.1-5,239.9.9.5", KEYS_MAX, -EEXIST, "239.9.9.5");
	expect_bad(true, "239.9.9.1-10:3999,239.9.9.250-239.9.10.5,239.9.9.7:3999", KEYS_MAX,
		   -EEXIST, "239.9.9.7:3999");
	expect_bad(true, "[ff3e::1]:5000,[ff3e:0:0::1]:5000", KEYS_MAX, -EEXIST, "[ff3e::1]:5000");

	/* Too many. */
	expect_bad(false, "239.9.9.1-10", 9, -E2BIG, "239.9.9.1-10");
	expect_bad(false, "239.9.9.1", 0, -E2BIG, "239.9.9.1");
	expect_bad(false, "[ff3e::1]", 0, -E2BIG, "[ff3e::1]");
	expect_bad(false, "224.0.0.0-239.255.255.255", MCFAN_MAX_GROUPS, -E2BIG,
		   "224.0.0.0-239.255.255.255");
	expect_bad(true, "239.9.9.1,239.9.9.2,239.9.9.3", 2, -E2BIG, "239.9.9.3");
	expect_bad(true, "239.9.9.1-3,[ff3e::1]", 3, -E2BIG, "[ff3e::1]");
	expect_bad(true, "239.1.0.0-239.1.3.255,239.2.0.0", MCFAN_MAX_GROUPS, -E2BIG,
		   "239.2.0.0");

	/* A 200-character item: refused, and the message quotes its start. */
	for (i = 0; i < LONG_ITEM_LEN; i++)
		long_item[i] = (char)('0' + i % 10);
	long_item[LONG_ITEM_LEN] = '\0';
	memcpy(mention, long_item, 40);
	mention[40] = '\0';
	expect_bad(false, long_item, KEYS_MAX, -EINVAL, mention);
	expect_bad(true, long_item, KEYS_MAX, -EINVAL, mention);
	snprintf(long_list, sizeof(long_list), "239.9.9.1,%s", long_item);
	expect_bad(true, long_list, KEYS_MAX, -EINVAL, mention);
	/* A long item that is a plausible address with junk. */
	memset(long_item, '9', LONG_ITEM_LEN);
	memcpy(long_item, "239.9.9.1:", 10);
	expect_bad(false, long_item, KEYS_MAX, -EINVAL, "239.9.9.1:999");

	/* A small error buffer is filled safely and NUL-terminated. */
	{
		char small[8];

		memset(small, 'x', sizeof(small));
		CHECK_EQ_INT(mcfan_group_parse("10.0.0.1", keys, 1, small, sizeof(small)), -EINVAL);
		CHECK(memchr(small, '\0', sizeof(small)) != NULL,
		      "small error buffer not terminated");
		CHECK_EQ_INT(mcfan_group_parse("10.0.0.1", keys, 1, small, 0), -EINVAL);
	}
	/* one group asked for (telemetry's /mcfan/groups,GROUP), a range given: says so */
	expect_bad(false, "239.1.0.1-3", 1, -E2BIG, "names 3 groups: give one group");

	/* two ports after an IPv4 group: not the IPv6 bracket hint (before: "an IPv6 group
	 * goes in brackets"); a bare IPv6 group keeps it */
	expect_bad(false, "239.9.9.1:3999:4000", KEYS_MAX, -EINVAL,
		   "one ':PORT' after an IPv4 group");
	expect_bad(true, "239.9.9.1-10:3999:4000", KEYS_MAX, -EINVAL,
		   "one ':PORT' after an IPv4 group");
	expect_bad(false, "239.9.9.1::3999", KEYS_MAX, -EINVAL, "one ':PORT' after an IPv4 group");
	expect_bad(false, "ff3e::1:5000", KEYS_MAX, -EINVAL, "an IPv6 group goes in brackets");
	expect_bad(false, "::ffff:239.9.9.1", KEYS_MAX, -EINVAL, "an IPv6 group goes in brackets");
	/* an IPv6 range: said so (before: "not a valid IPv6 address") */
	expect_bad(false, "[ff3e::41:1-2]:5000", KEYS_MAX, -EINVAL,
		   "an IPv6 group is one address (ranges are IPv4 only)");
	expect_bad(true, "[ff3e::1]:5000,[ff3e::1-ff3e::9]", KEYS_MAX, -EINVAL,
		   "an IPv6 group is one address (ranges are IPv4 only)");
	expect_bad(false, "[ff3e::g1]:5000", KEYS_MAX, -EINVAL, "not a valid IPv6 address");
}

/* ---- formatting ---- */

static void
round_trip(const char *text)
{
	char buf[MCFAN_GROUP_STR_MAX];
	int n, len;

	n = mcfan_group_parse(text, keys, KEYS_MAX, NULL, 0);
	CHECK(n == 1, "parse('%s') = %d, expected 1", text, n);
	if (n != 1)
		return;
	len = mcfan_group_format(&keys[0], buf, sizeof(buf));
	CHECK(len == (int)strlen(text), "format(parse('%s')) returned %d", text, len);
	CHECK(strcmp(buf, text) == 0, "format(parse('%s')) = '%s'", text, buf);
}

static void
test_format(void)
{
	static const char *const texts[] = {
		"239.9.9.1", "239.9.9.1:3999", "224.0.0.251:5353", "239.255.255.255:65535",
		"224.0.0.0", "[ff3e::1]:5000", "[ff02::fb]", "[ff3e:1234::abcd]:65535",
		"[ff0e::101]:1", "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535",
	};
	struct mcfan_flow_key k;
	char buf[MCFAN_GROUP_STR_MAX];
	const char *longest = "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535";
	unsigned int i;
	int n;

	for (i = 0; i < RTE_DIM(texts); i++)
		round_trip(texts[i]);

	/* A range formats as its members. */
	n = mcfan_group_parse("239.9.9.1-3:3999", keys, KEYS_MAX, NULL, 0);
	CHECK_EQ_INT(n, 3);
	mcfan_group_format(&keys[2], buf, sizeof(buf));
	CHECK_EQ_STR(buf, "239.9.9.3:3999");
	/* Non-canonical IPv6 text formats canonically (RFC 5952). */
	n = mcfan_group_parse("[FF3E:0:0:0:0:0:0:1]:5000", keys, KEYS_MAX, NULL, 0);
	CHECK_EQ_INT(n, 1);
	mcfan_group_format(&keys[0], buf, sizeof(buf));
	CHECK_EQ_STR(buf, "[ff3e::1]:5000");

	/* Buffer sizes: exact fit, one short, tiny. */
	CHECK_EQ_INT(mcfan_group_parse(longest, keys, 1, NULL, 0), 1);
	CHECK((int)strlen(longest) < MCFAN_GROUP_STR_MAX, "longest text does not fit the max");
	CHECK_EQ_INT(mcfan_group_format(&keys[0], buf, strlen(longest) + 1), (int)strlen(longest));
	CHECK_EQ_INT(mcfan_group_format(&keys[0], buf, strlen(longest)), -ENOSPC);
	v4_key(&k, 239, 9, 9, 1, GROUP_PORT);
	CHECK_EQ_INT(mcfan_group_format(&k, buf, 15), 14);
	CHECK_EQ_STR(buf, "239.9.9.1:3999");
	CHECK_EQ_INT(mcfan_group_format(&k, buf, 14), -ENOSPC);
	CHECK_EQ_INT(mcfan_group_format(&k, buf, 1), -ENOSPC);
	/* Unknown family. */
	memset(&k, 0, sizeof(k));
	CHECK_EQ_INT(mcfan_group_format(&k, buf, sizeof(buf)), -EINVAL);
	k.family = 5;
	CHECK_EQ_INT(mcfan_group_format(&k, buf, sizeof(buf)), -EINVAL);
}

static void
test_fanout_names(void)
{
	CHECK_EQ_INT(mcfan_fanout_parse("partition"), MCFAN_FANOUT_PARTITION);
	CHECK_EQ_INT(mcfan_fanout_parse("replicate"), MCFAN_FANOUT_REPLICATE);
	CHECK_EQ_INT(mcfan_fanout_parse("Partition"), -EINVAL);
	CHECK_EQ_INT(mcfan_fanout_parse("replicate "), -EINVAL);
	CHECK_EQ_INT(mcfan_fanout_parse("rep"), -EINVAL);
	CHECK_EQ_INT(mcfan_fanout_parse(""), -EINVAL);
	CHECK_EQ_STR(mcfan_fanout_name(MCFAN_FANOUT_PARTITION), "partition");
	CHECK_EQ_STR(mcfan_fanout_name(MCFAN_FANOUT_REPLICATE), "replicate");
	CHECK_EQ_STR(mcfan_fanout_name((enum mcfan_fanout)7), "invalid");
}

/* ---- hashing and assignment (no EAL needed) ---- */

/*
 * The hash reads a key wherever it lies: at every 2-byte step of an 8-byte aligned buffer
 * (struct mcfan_flow_key has 2-byte alignment, so this is where mcfan_group_entry arrays
 * and burst key arrays put it). Before the fix rte_hash_crc() loaded 8-byte words from the
 * key in place: under -fsanitize=alignment (the sanitizer pass of test/run-tests.sh) that
 * is "load of misaligned address ... for type 'const uint64_t'" and the test aborts. The
 * value is that of rte_hash_crc() on the same bytes, so partition placement is unchanged.
 */
static void
test_hash_alignment(void)
{
	union {
		uint64_t words[8];
		uint8_t bytes[64];
	} buf;
	struct mcfan_flow_key k, *moved;
	uint64_t aligned[(sizeof(k) + 7) / 8];
	uint32_t want, crc;
	unsigned int off;

	v4_key(&k, 239, 9, 9, 1, GROUP_PORT);
	want = mcfan_group_hash(&k);
	memset(aligned, 0, sizeof(aligned));
	memcpy(aligned, &k, sizeof(k));
	crc = rte_hash_crc(aligned, sizeof(k), 0x6d636661 /* HASH_SEED, "mcfa" */);
	CHECK(want == crc, "hash %08x is not CRC32-C of the key bytes %08x", want, crc);
	for (off = 0; off + sizeof(k) <= sizeof(buf); off += 2) {
		moved = (struct mcfan_flow_key *)(void *)(buf.bytes + off);
		memcpy(moved, &k, sizeof(k));
		CHECK(mcfan_group_hash(moved) == want, "hash of a key at byte %u differs", off);
	}
}

static void
test_assign(void)
{
	static const uint16_t eligible[] = { 3, 5, 9 };
	static const uint16_t two[] = { 0, 1 };
	struct mcfan_group_entry e, again;
	struct mcfan_flow_key k2;
	unsigned int i, per_worker[2] = { 0, 0 };
	uint32_t h;

	memset(&e, 0, sizeof(e));
	v4_key(&e.key, 239, 9, 9, 1, GROUP_PORT);
	k2 = e.key;
	h = mcfan_group_hash(&e.key);
	CHECK_EQ_INT(mcfan_group_hash(&k2), h);
	k2.udp_port = GROUP_PORT + 1;
	CHECK(mcfan_group_hash(&k2) != h, "hash ignores the port");

	CHECK_EQ_INT(mcfan_group_assign(&e, MCFAN_FANOUT_PARTITION, eligible, 3), 0);
	CHECK_EQ_INT(e.fanout, MCFAN_FANOUT_PARTITION);
	CHECK_EQ_INT(e.n_targets, 1);
	CHECK_EQ_INT(e.targets[0], eligible[h % 3]);
	for (i = 0; i < 3; i++) {
		again = e;
		again.targets[0] = UINT16_MAX;
		CHECK_EQ_INT(mcfan_group_assign(&again, MCFAN_FANOUT_PARTITION, eligible, 3), 0);
		CHECK_EQ_INT(again.targets[0], e.targets[0]);
	}
	CHECK_EQ_INT(mcfan_group_assign(&e, MCFAN_FANOUT_PARTITION, eligible, 1), 0);
	CHECK_EQ_INT(e.targets[0], 3);

	CHECK_EQ_INT(mcfan_group_assign(&e, MCFAN_FANOUT_REPLICATE, eligible, 3), 0);
	CHECK_EQ_INT(e.fanout, MCFAN_FANOUT_REPLICATE);
	CHECK_EQ_INT(e.n_targets, 3);
	for (i = 0; i < 3; i++)
		CHECK_EQ_INT(e.targets[i], eligible[i]);

	CHECK_EQ_INT(mcfan_group_assign(&e, MCFAN_FANOUT_PARTITION, eligible, 0), -EINVAL);
	CHECK_EQ_INT(mcfan_group_assign(&e, MCFAN_FANOUT_REPLICATE, eligible, 0), -EINVAL);
	CHECK_EQ_INT(mcfan_group_assign(&e, MCFAN_FANOUT_PARTITION, eligible,
					MCFAN_MAX_WORKERS + 1), -EINVAL);
	CHECK_EQ_INT(mcfan_group_assign(&e, (enum mcfan_fanout)7, eligible, 3), -EINVAL);

	/* The seed workload (239.9.9.1-10:3999 on two workers) uses both workers. */
	for (i = 0; i < N_SEED_GROUPS; i++) {
		memset(&e, 0, sizeof(e));
		v4_key(&e.key, 239, 9, 9, (uint8_t)(1 + i), GROUP_PORT);
		CHECK_EQ_INT(mcfan_group_assign(&e, MCFAN_FANOUT_PARTITION, two, 2), 0);
		if (e.targets[0] < 2)
			per_worker[e.targets[0]]++;
	}
	printf("group: seed groups per worker in partition mode: %u + %u\n", per_worker[0],
	       per_worker[1]);
	CHECK(per_worker[0] > 0 && per_worker[1] > 0,
	      "seed groups all on one worker: %u + %u", per_worker[0], per_worker[1]);
}

/* ---- tables (EAL) ---- */

static int
eal_up(void)
{
	return unit_eal_init("group");
}

static void
eal_down(void)
{
	CHECK_EQ_INT(rte_eal_cleanup(), 0);
}

static void
seed_entries(struct mcfan_group_entry *e, unsigned int n, enum mcfan_fanout mode,
	     const uint16_t *eligible, unsigned int n_eligible)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		v4_key(&e[i].key, 239, 9, (uint8_t)(9 + i / 256), (uint8_t)(1 + i % 256),
		       GROUP_PORT);
		e[i].id = (uint16_t)i;
		mcfan_group_assign(&e[i], mode, eligible, n_eligible);
	}
}

static struct mcfan_group_entry entries[MCFAN_MAX_GROUPS + 1];

static void
test_table_basic(void)
{
	static const uint16_t two[] = { 0, 1 };
	struct mcfan_group_table *t;
	const struct mcfan_group_entry *e;
	struct mcfan_flow_key k;
	unsigned int i;

	seed_entries(entries, N_SEED_GROUPS, MCFAN_FANOUT_PARTITION, two, 2);
	t = mcfan_group_table_create(entries, N_SEED_GROUPS, SOCKET_ID_ANY);
	CHECK(t != NULL, "table of 10: %s", rte_strerror(rte_errno));
	if (t == NULL)
		return;
	CHECK_EQ_INT(mcfan_group_table_count(t), N_SEED_GROUPS);
	/* The table holds copies: scribbling on the source changes nothing. */
	for (i = 0; i < N_SEED_GROUPS; i++)
		entries[i].targets[0] = 77;
	for (i = 0; i < N_SEED_GROUPS; i++) {
		e = mcfan_group_table_entry(t, i);
		CHECK(e != NULL, "entry %u missing", i);
		if (e == NULL)
			continue;
		v4_key(&k, 239, 9, 9, (uint8_t)(1 + i), GROUP_PORT);
		check_key("table entry", &e->key, &k);
		CHECK_EQ_INT(e->id, i);
		CHECK_EQ_INT(e->n_targets, 1);
		CHECK_EQ_INT(e->targets[0], two[mcfan_group_hash(&k) % 2]);
		CHECK(mcfan_group_table_lookup(t, &k) == e, "lookup of entry %u", i);
	}
	CHECK(mcfan_group_table_entry(t, N_SEED_GROUPS) == NULL, "entry past the end");
	CHECK(mcfan_group_table_entry(t, UINT32_MAX) == NULL, "entry at UINT32_MAX");

	/* Unknown groups. */
	v4_key(&k, 239, 9, 9, 11, GROUP_PORT);
	CHECK(mcfan_group_table_lookup(t, &k) == NULL, "239.9.9.11:3999 found");
	v4_key(&k, 239, 9, 9, 1, GROUP_PORT + 1);
	CHECK(mcfan_group_table_lookup(t, &k) == NULL, "239.9.9.1:4000 found (port-specific)");
	v4_key(&k, 239, 9, 9, 1, 0);
	CHECK(mcfan_group_table_lookup(t, &k) == NULL, "239.9.9.1 any-port key found");
	/* Same address bytes, other family. */
	v4_key(&k, 239, 9, 9, 1, GROUP_PORT);
	k.family = MCFAN_FAMILY_IPV6;
	CHECK(mcfan_group_table_lookup(t, &k) == NULL, "family ignored by lookup");
	mcfan_group_table_free(t);
	mcfan_group_table_free(NULL);
}

static void
test_table_any_port(void)
{
	static const uint16_t one[] = { 0 };
	struct mcfan_group_entry e[4];
	struct mcfan_group_table *t;
	const struct mcfan_group_entry *found;
	struct mcfan_flow_key k;
	unsigned int port, wrong = 0;

	memset(e, 0, sizeof(e));
	v4_key(&e[0].key, 239, 9, 9, 1, GROUP_PORT);   /* port-specific */
	v4_key(&e[1].key, 239, 9, 9, 1, 0);            /* same address, any port */
	v4_key(&e[2].key, 239, 9, 9, 20, 0);           /* any port only */
	v6_key(&e[3].key, 0xff3e, 1, 0);               /* IPv6 any port */
	for (port = 0; port < RTE_DIM(e); port++) {
		e[port].id = (uint16_t)(100 + port);
		mcfan_group_assign(&e[port], MCFAN_FANOUT_PARTITION, one, 1);
	}
	t = mcfan_group_table_create(e, RTE_DIM(e), SOCKET_ID_ANY);
	CHECK(t != NULL, "any-port table: %s", rte_strerror(rte_errno));
	if (t == NULL)
		return;

	v4_key(&k, 239, 9, 9, 1, GROUP_PORT);
	found = mcfan_group_table_lookup(t, &k);
	CHECK(found != NULL && found->id == 100, "port-specific group does not win");
	v4_key(&k, 239, 9, 9, 1, GROUP_PORT + 1);
	found = mcfan_group_table_lookup(t, &k);
	CHECK(found != NULL && found->id == 101, "any-port group misses another port");
	v4_key(&k, 239, 9, 9, 1, 0);
	found = mcfan_group_table_lookup(t, &k);
	CHECK(found != NULL && found->id == 101, "port 0 datagram misses the any-port group");
	/* Every port matches the any-port groups. */
	for (port = 0; port <= UINT16_MAX; port++) {
		v4_key(&k, 239, 9, 9, 20, (uint16_t)port);
		found = mcfan_group_table_lookup(t, &k);
		wrong += found == NULL || found->id != 102;
		v6_key(&k, 0xff3e, 1, (uint16_t)port);
		found = mcfan_group_table_lookup(t, &k);
		wrong += found == NULL || found->id != 103;
	}
	CHECK(wrong == 0, "%u of 131072 any-port lookups wrong", wrong);
	v6_key(&k, 0xff3e, 2, GROUP_PORT);
	CHECK(mcfan_group_table_lookup(t, &k) == NULL, "unknown ipv6 group found");
	v4_key(&k, 239, 9, 9, 2, GROUP_PORT);
	CHECK(mcfan_group_table_lookup(t, &k) == NULL, "unknown ipv4 group found");
	mcfan_group_table_free(t);
}

static void
random_key(struct mcfan_flow_key *k)
{
	static const uint16_t ports[] = { 0, 1, GROUP_PORT, GROUP_PORT + 1, 5000, 65535 };
	uint16_t port = ports[(unsigned int)rand() % RTE_DIM(ports)];

	switch (rand() % 4) {
	case 0: /* table groups 239.9.9.1..10:3999 plus misses 239.9.9.11..12 */
		v4_key(k, 239, 9, 9, (uint8_t)(1 + rand() % 12), rand() % 2 ? GROUP_PORT : port);
		break;
	case 1: /* any-port groups 239.9.10.1..4 plus misses */
		v4_key(k, 239, 9, 10, (uint8_t)(1 + rand() % 6), port);
		break;
	case 2: /* ipv6 ff3e::1 (any port) and ff3e::2:5000, plus misses */
		v6_key(k, 0xff3e, (uint16_t)(1 + rand() % 3), port);
		break;
	default: /* never in the table */
		v4_key(k, 239, (uint8_t)rand(), (uint8_t)rand(), (uint8_t)rand(), port);
		break;
	}
}

static void
test_table_bulk(void)
{
	static const uint16_t two[] = { 0, 1 };
	const struct mcfan_flow_key *ptrs[BULK_KEYS];
	const struct mcfan_group_entry *out[BULK_KEYS];
	struct mcfan_flow_key k[BULK_KEYS];
	struct mcfan_group_entry *e = entries;
	struct mcfan_group_table *t;
	unsigned int i, round, n, n_ent = 0, hits = 0, mismatches = 0;
	static const unsigned int sizes[] = { 1, 2, 7, 8, 33, 63, BULK_KEYS };

	seed_entries(e, N_SEED_GROUPS, MCFAN_FANOUT_PARTITION, two, 2);
	n_ent = N_SEED_GROUPS;
	for (i = 1; i <= 4; i++) {
		memset(&e[n_ent], 0, sizeof(e[n_ent]));
		v4_key(&e[n_ent].key, 239, 9, 10, (uint8_t)i, 0);
		e[n_ent].id = (uint16_t)n_ent;
		mcfan_group_assign(&e[n_ent], MCFAN_FANOUT_REPLICATE, two, 2);
		n_ent++;
	}
	/* 239.9.9.1 also as any-port: a miss on the port falls back to it. */
	memset(&e[n_ent], 0, sizeof(e[n_ent]));
	v4_key(&e[n_ent].key, 239, 9, 9, 1, 0);
	e[n_ent].id = (uint16_t)n_ent;
	mcfan_group_assign(&e[n_ent], MCFAN_FANOUT_PARTITION, two, 2);
	n_ent++;
	memset(&e[n_ent], 0, sizeof(e[n_ent]));
	v6_key(&e[n_ent].key, 0xff3e, 1, 0);
	e[n_ent].id = (uint16_t)n_ent;
	mcfan_group_assign(&e[n_ent], MCFAN_FANOUT_PARTITION, two, 2);
	n_ent++;
	memset(&e[n_ent], 0, sizeof(e[n_ent]));
	v6_key(&e[n_ent].key, 0xff3e, 2, 5000);
	e[n_ent].id = (uint16_t)n_ent;
	mcfan_group_assign(&e[n_ent], MCFAN_FANOUT_PARTITION, two, 2);
	n_ent++;

	t = mcfan_group_table_create(e, n_ent, SOCKET_ID_ANY);
	CHECK(t != NULL, "bulk table: %s", rte_strerror(rte_errno));
	if (t == NULL)
		return;
	srand(RANDOM_SEED);
	for (round = 0; round < 200; round++) {
		n = sizes[round % RTE_DIM(sizes)];
		for (i = 0; i < n; i++) {
			random_key(&k[i]);
			ptrs[i] = &k[i];
			out[i] = (const void *)&round; /* must be overwritten */
		}
		mcfan_group_table_lookup_bulk(t, ptrs, n, out);
		for (i = 0; i < n; i++) {
			const struct mcfan_group_entry *single = mcfan_group_table_lookup(t, &k[i]);

			if (out[i] != single)
				mismatches++;
			hits += single != NULL;
		}
	}
	CHECK(mismatches == 0, "lookup_bulk differs from lookup in %u of the keys", mismatches);
	/* The random mix really mixed hits (exact and any-port) and misses. */
	CHECK(hits > 1000 && hits < 4000, "random mix: %u hits", hits);
	mcfan_group_table_free(t);
}

static void
test_table_errors(void)
{
	static const uint16_t two[] = { 0, 1 };
	struct mcfan_group_table *t, *t2, *t3;
	struct mcfan_flow_key k;
	const struct mcfan_group_entry *found;

	/* Duplicate key. */
	seed_entries(entries, N_SEED_GROUPS, MCFAN_FANOUT_PARTITION, two, 2);
	entries[7].key = entries[2].key;
	rte_errno = 0;
	t = mcfan_group_table_create(entries, N_SEED_GROUPS, SOCKET_ID_ANY);
	CHECK(t == NULL, "duplicate keys accepted");
	CHECK_EQ_INT(rte_errno, EINVAL);
	mcfan_group_table_free(t);

	/* Too many. */
	seed_entries(entries, MCFAN_MAX_GROUPS + 1, MCFAN_FANOUT_PARTITION, two, 2);
	entries[MCFAN_MAX_GROUPS].id = 0; /* a valid id: only the count is wrong */
	rte_errno = 0;
	t = mcfan_group_table_create(entries, MCFAN_MAX_GROUPS + 1, SOCKET_ID_ANY);
	CHECK(t == NULL, "MCFAN_MAX_GROUPS + 1 entries accepted");
	CHECK_EQ_INT(rte_errno, EINVAL);
	mcfan_group_table_free(t);

	/* Id out of range. */
	seed_entries(entries, N_SEED_GROUPS, MCFAN_FANOUT_PARTITION, two, 2);
	entries[3].id = MCFAN_MAX_GROUPS;
	rte_errno = 0;
	t = mcfan_group_table_create(entries, N_SEED_GROUPS, SOCKET_ID_ANY);
	CHECK(t == NULL, "id MCFAN_MAX_GROUPS accepted");
	CHECK_EQ_INT(rte_errno, EINVAL);
	mcfan_group_table_free(t);

	/* Exactly MCFAN_MAX_GROUPS, and empty, and several tables alive at once. */
	seed_entries(entries, MCFAN_MAX_GROUPS, MCFAN_FANOUT_REPLICATE, two, 2);
	t = mcfan_group_table_create(entries, MCFAN_MAX_GROUPS, SOCKET_ID_ANY);
	CHECK(t != NULL, "MCFAN_MAX_GROUPS entries: %s", rte_strerror(rte_errno));
	t2 = mcfan_group_table_create(NULL, 0, SOCKET_ID_ANY);
	CHECK(t2 != NULL, "empty table: %s", rte_strerror(rte_errno));
	t3 = mcfan_group_table_create(entries, N_SEED_GROUPS, 0);
	CHECK(t3 != NULL, "third table, socket 0: %s", rte_strerror(rte_errno));
	if (t != NULL) {
		CHECK_EQ_INT(mcfan_group_table_count(t), MCFAN_MAX_GROUPS);
		k = entries[MCFAN_MAX_GROUPS - 1].key;
		found = mcfan_group_table_lookup(t, &k);
		CHECK(found != NULL && found->id == MCFAN_MAX_GROUPS - 1 && found->n_targets == 2,
		      "last of MCFAN_MAX_GROUPS not found");
	}
	if (t2 != NULL) {
		CHECK_EQ_INT(mcfan_group_table_count(t2), 0);
		CHECK(mcfan_group_table_entry(t2, 0) == NULL, "entry 0 of an empty table");
		v4_key(&k, 239, 9, 9, 1, GROUP_PORT);
		CHECK(mcfan_group_table_lookup(t2, &k) == NULL, "lookup in an empty table");
	}
	mcfan_group_table_free(t);
	mcfan_group_table_free(t2);
	mcfan_group_table_free(t3);
	/* Create and free many times: names and memory are not leaked. */
	{
		unsigned int i, failed = 0;

		for (i = 0; i < 200; i++) {
			t = mcfan_group_table_create(entries, N_SEED_GROUPS, SOCKET_ID_ANY);
			failed += t == NULL;
			mcfan_group_table_free(t);
		}
		CHECK(failed == 0, "%u of 200 create/free cycles failed", failed);
	}
}

/*
 * The open-addressed index at its largest: MCFAN_MAX_GROUPS entries, half IPv4 and half IPv6,
 * every one found at its own key and none at a key that differs in one field (address,
 * port, family), so that a tag or probe mistake shows.
 */
static void
test_table_full_index(void)
{
	static const uint16_t two[] = { 0, 1 };
	struct mcfan_group_table *t;
	const struct mcfan_group_entry *found;
	struct mcfan_flow_key k;
	unsigned int i, wrong_hit = 0, false_hit = 0;

	for (i = 0; i < MCFAN_MAX_GROUPS; i++) {
		memset(&entries[i], 0, sizeof(entries[i]));
		if (i % 2 == 0)
			v4_key(&entries[i].key, 239, (uint8_t)(i >> 8), (uint8_t)i, 1,
			       (uint16_t)(GROUP_PORT + i % 3));
		else
			v6_key(&entries[i].key, 0xff3e, (uint16_t)i, (uint16_t)(GROUP_PORT + i % 3));
		entries[i].id = (uint16_t)(MCFAN_MAX_GROUPS - 1 - i);
		mcfan_group_assign(&entries[i], MCFAN_FANOUT_PARTITION, two, 2);
	}
	t = mcfan_group_table_create(entries, MCFAN_MAX_GROUPS, SOCKET_ID_ANY);
	CHECK(t != NULL, "full table: %s", rte_strerror(rte_errno));
	if (t == NULL)
		return;
	for (i = 0; i < MCFAN_MAX_GROUPS; i++) {
		k = entries[i].key;
		found = mcfan_group_table_lookup(t, &k);
		wrong_hit += found != mcfan_group_table_entry(t, i) ||
			     found->id != MCFAN_MAX_GROUPS - 1 - i;
		k.udp_port = (uint16_t)(k.udp_port + 3); /* no entry has this port */
		false_hit += mcfan_group_table_lookup(t, &k) != NULL;
		k = entries[i].key;
		k.addr[15] ^= 0x80;                      /* another address */
		false_hit += mcfan_group_table_lookup(t, &k) != NULL;
		k = entries[i].key;
		k.family = k.family == MCFAN_FAMILY_IPV4 ? MCFAN_FAMILY_IPV6 : MCFAN_FAMILY_IPV4;
		false_hit += mcfan_group_table_lookup(t, &k) != NULL;
	}
	/* A million misses at the entries' own addresses: some share a slot and a 16-bit tag
	 * with an entry, so only the comparison of the whole key can turn them away. */
	for (i = 0; i < MCFAN_MAX_GROUPS * 1024u; i++) {
		k = entries[i % MCFAN_MAX_GROUPS].key;
		k.udp_port = (uint16_t)(GROUP_PORT + 3 + i / MCFAN_MAX_GROUPS);
		false_hit += mcfan_group_table_lookup(t, &k) != NULL;
	}
	CHECK(wrong_hit == 0, "%u of %u entries not found at their key", wrong_hit,
	      MCFAN_MAX_GROUPS);
	CHECK(false_hit == 0, "%u keys found that are in no entry", false_hit);
	mcfan_group_table_free(t);
}

/* The text of a parsed list in messages (mcfan_group_format_list). */
static void
test_format_list(void)
{
	struct mcfan_flow_key k[10];
	char buf[128], small[12];
	int n;

	n = mcfan_group_parse_list("239.9.9.1-10:3999", k, RTE_DIM(k), NULL, 0);
	CHECK(n == 10, "parse 239.9.9.1-10:3999: %d", n);
	mcfan_group_format_list(k, 1, buf, sizeof(buf));
	CHECK(strcmp(buf, "239.9.9.1:3999") == 0, "one group: '%s'", buf);
	mcfan_group_format_list(k, 10, buf, sizeof(buf));
	CHECK(strcmp(buf, "239.9.9.1:3999 .. 239.9.9.10:3999 (10 groups)") == 0,
	      "ten groups: '%s'", buf);
	mcfan_group_format_list(k, 10, small, sizeof(small));
	CHECK(strlen(small) == sizeof(small) - 1 && strncmp(small, "239.9.9.1:3", 11) == 0,
	      "cut to fit: '%s'", small);
}

int
main(void)
{
	test_parse_good();
	test_format_list();
	test_parse_bad();
	test_format();
	test_fanout_names();
	test_assign();
	test_hash_alignment();
	if (eal_up() < 0) {
		CHECK(0, "EAL did not start; table tests not run");
		return unit_summary("group");
	}
	test_table_basic();
	test_table_any_port();
	test_table_bulk();
	test_table_errors();
	test_table_full_index();
	eal_down();
	return unit_summary("group");
}
