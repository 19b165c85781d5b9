/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * lib/util/mcfan_listen.h: the --metrics-listen address forms, loopback by default, and the
 * refusals that name the offending token. Pure functions: no EAL.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "mcfan_listen.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

#define ERR_LEN 160

static void
check_ok(const char *text, int family, const char *addr, uint16_t port, const char *shown)
{
	struct mcfan_listen l;
	char err[ERR_LEN] = "", buf[INET6_ADDRSTRLEN] = "";
	int ret = mcfan_listen_parse(text, &l, err, sizeof(err));

	CHECK(ret == 0, "'%s': %d (%s)", text, ret, err);
	if (ret != 0)
		return;
	CHECK_EQ_INT(l.addr.ss_family, family);
	CHECK_EQ_INT(l.port, port);
	CHECK_EQ_STR(l.text, shown);
	if (family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&l.addr;

		CHECK_EQ_INT(l.addr_len, sizeof(*a));
		CHECK_EQ_INT(ntohs(a->sin_port), port);
		inet_ntop(AF_INET, &a->sin_addr, buf, sizeof(buf));
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&l.addr;

		CHECK_EQ_INT(l.addr_len, sizeof(*a));
		CHECK_EQ_INT(ntohs(a->sin6_port), port);
		inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof(buf));
	}
	CHECK_EQ_STR(buf, addr);
}

static void
check_bad(const char *text, int expect, const char *token)
{
	struct mcfan_listen l;
	char err[ERR_LEN] = "";
	int ret;

	memset(&l, 0xff, sizeof(l));
	ret = mcfan_listen_parse(text, &l, err, sizeof(err));
	CHECK(ret == expect, "'%s': %d, expected %d", text, ret, expect);
	CHECK(strstr(err, token) != NULL, "'%s': message '%s' does not name '%s'", text, err,
	      token);
	CHECK_EQ_INT(l.port, 0);
	CHECK_EQ_INT(l.addr_len, 0);
}

int
main(void)
{
	check_ok("9100", AF_INET, "127.0.0.1", 9100, "127.0.0.1:9100");
	check_ok(":9100", AF_INET, "127.0.0.1", 9100, "127.0.0.1:9100");
	check_ok("0.0.0.0:80", AF_INET, "0.0.0.0", 80, "0.0.0.0:80");
	check_ok("198.18.0.1:65535", AF_INET, "198.18.0.1", 65535, "198.18.0.1:65535");
	check_ok("[::1]:9100", AF_INET6, "::1", 9100, "[::1]:9100");
	check_ok("[::]:1", AF_INET6, "::", 1, "[::]:1");

	check_bad("", -EINVAL, "listen address");
	check_bad("0", -ERANGE, "'0'");
	check_bad("65536", -ERANGE, "'65536'");
	check_bad("127.0.0.1:99999", -ERANGE, "'99999'");
	check_bad("127.0.0.1:", -EINVAL, "port ''");
	check_bad("127.0.0.1:+80", -EINVAL, "'+80'");
	check_bad("localhost:9100", -EINVAL, "'localhost'");
	check_bad("1.2.3:9100", -EINVAL, "'1.2.3'");
	check_bad("::1:9100", -EINVAL, "brackets");
	check_bad("[::1]9100", -EINVAL, "[ADDR6]:PORT");
	check_bad("[::1", -EINVAL, "[ADDR6]:PORT");
	check_bad("[]:9100", -EINVAL, "IPv6");
	check_bad("[zz::1]:9100", -EINVAL, "'zz::1'");
	check_bad("[::1]:x", -EINVAL, "'x'");
	check_bad("9100 ", -EINVAL, "'9100 '");
	check_bad("1111111111111111111111111111111111111111111111111111111111111111111", -EINVAL,
		  "...");
	/* no address to listen on: refused here, before EAL, not by bind() after it */
	check_bad("224.0.0.1:9100", -EINVAL, "'224.0.0.1' is a multicast");
	check_bad("239.9.9.1:9100", -EINVAL, "multicast");
	check_bad("255.255.255.255:9100", -EINVAL, "'255.255.255.255' is a broadcast");
	check_bad("[ff02::1]:9100", -EINVAL, "'ff02::1' is a multicast");
	check_bad("[fe80::1]:9100", -EINVAL, "'fe80::1' is a link-local");
	/* the listener is IPv6 only (IPV6_V6ONLY): bind() refuses a mapped IPv4 address with
	 * EINVAL after EAL, so it is refused here, before EAL, and the IPv4 form named */
	check_bad("[::ffff:127.0.0.1]:9100", -EINVAL, "'::ffff:127.0.0.1' is an IPv4-mapped");
	check_bad("[::ffff:0.0.0.0]:9100", -EINVAL, "write 0.0.0.0:9100");
	check_ok("223.255.255.255:9", AF_INET, "223.255.255.255", 9, "223.255.255.255:9");
	check_ok("240.0.0.1:9", AF_INET, "240.0.0.1", 9, "240.0.0.1:9");
	/* what inet_pton() refuses among digits and dots: said so, not "no host names" */
	check_bad("127.0.0.01:9100", -EINVAL, "'127.0.0.01' is not a numeric IPv4 address: four");
	check_bad("256.0.0.1:9100", -EINVAL, "no leading zeros");
	check_bad("1.2.3:9100", -EINVAL, "A.B.C.D");
	check_bad("localhost:9100", -EINVAL, "no host names");
	return unit_summary("listen");
}
