/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * lib/igmp: IGMP/MLD frames byte by byte against the RFCs' layouts (RFC 1112, 2236, 3376,
 * 2710, 3810, 2113, 2711), checksums (RFC 1071 and its worked example), parsing and the
 * named reasons of invalid frames, and the host state machine with time passed in. Pure:
 * no EAL.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mcfan_igmp.h"
#include "mcfan_igmp_host.h"
#include "mcfan_igmp_ssm.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

static const uint8_t mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t src4[16] = { 198, 18, 0, 2 };
static const uint8_t grp4[16] = { 239, 1, 2, 3 };
static const uint8_t grp4b[16] = { 232, 1, 1, 1 };
static const uint8_t s1[16] = { 198, 18, 0, 1 };
static const uint8_t s2[16] = { 198, 18, 0, 9 };
static const uint8_t grp6[16] = { 0xff, 0x3e, [15] = 0x01 };

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
test_checksum(void)
{
	/* RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2; checksum 220d */
	const uint8_t ex[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	CHECK_EQ_INT(mcfan_igmp_cksum(ex, 8, 0), 0x220d);
	CHECK_EQ_INT(mcfan_igmp_v3_code(100), 100);
	CHECK_EQ_INT(mcfan_igmp_v3_code(0x80), 128);     /* mant 0, exp 0: 0x10 << 3 */
	CHECK_EQ_INT(mcfan_igmp_v3_code(0xff), 31744);   /* 0x1f << 10 */
	CHECK_EQ_INT(mcfan_mld_v2_code(10000), 10000);
	CHECK_EQ_INT(mcfan_mld_v2_code(0x8000), 32768);  /* 0x1000 << 3 */
	CHECK_EQ_INT(mcfan_mld_v2_code(0xffff), 8387584); /* 0x1fff << 10 */
}

static void
test_build_v2(void)
{
	struct mcfan_igmp_send s = { .kind = MCFAN_IGMP_SEND_V2_REPORT };
	static const uint8_t want[46] = {
		0x01, 0x00, 0x5e, 0x01, 0x02, 0x03, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
		/* IPv4: IHL 6, TOS c0, length 32, id 0, flags 0, TTL 1, proto 2, checksum */
		0x46, 0xc0, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00,
		198, 18, 0, 2, 239, 1, 2, 3,
		0x94, 0x04, 0x00, 0x00,                     /* RFC 2113 Router Alert */
		/* IGMPv2 report: 0x16, max resp 0, checksum ~(1600 + ef01 + 0203) = f8fa */
		0x16, 0x00, 0xf8, 0xfa, 239, 1, 2, 3,
	};
	uint8_t buf[MCFAN_IGMP_FRAME_MAX], w[sizeof(want)];
	struct mcfan_igmp_msg msg;
	int n;

	memcpy(s.group, grp4, 16);
	n = mcfan_igmp_build(&s, mac, src4, buf, sizeof(buf), NULL);
	CHECK_EQ_INT(n, 46);
	memcpy(w, want, sizeof(w));
	wr16(w + 24, mcfan_igmp_cksum(w + 14, 24, 0));
	CHECK(n == 46 && memcmp(buf, w, sizeof(w)) == 0, "IGMPv2 report bytes");
	CHECK_EQ_INT(mcfan_igmp_cksum(buf + 14, 24, 0), 0);
	/* our own report parses as another host's: valid checksums, not for us */
	CHECK_EQ_INT(mcfan_igmp_parse(buf, (uint32_t)n, &msg), MCFAN_IGMP_NOT_FOR_US);
	CHECK_EQ_INT(msg.type, MCFAN_IGMP_MSG_REPORT);
	CHECK_EQ_INT(msg.version, 2);

	s.kind = MCFAN_IGMP_SEND_V2_LEAVE;
	n = mcfan_igmp_build(&s, mac, src4, buf, sizeof(buf), NULL);
	CHECK_EQ_INT(n, 46);
	CHECK(buf[3] == 0 && buf[4] == 0 && buf[5] == 2, "leave to 01:00:5e:00:00:02");
	CHECK(buf[30] == 224 && buf[31] == 0 && buf[32] == 0 && buf[33] == 2, "leave to 224.0.0.2");
	CHECK_EQ_INT(buf[38], 0x17);
	CHECK(memcmp(buf + 42, grp4, 4) == 0, "leave names the group");
	CHECK_EQ_INT(mcfan_igmp_cksum(buf + 38, 8, 0), 0);

	s.kind = MCFAN_IGMP_SEND_V1_REPORT;
	n = mcfan_igmp_build(&s, mac, src4, buf, sizeof(buf), NULL);
	CHECK_EQ_INT(n, 42); /* no Router Alert in IGMPv1 */
	CHECK_EQ_INT(buf[14], 0x45);
	CHECK_EQ_INT(buf[22], 1);
	CHECK_EQ_INT(buf[34], 0x12);
	CHECK_EQ_INT(mcfan_igmp_cksum(buf + 14, 20, 0), 0);
	CHECK_EQ_INT(mcfan_igmp_cksum(buf + 34, 8, 0), 0);
	s.kind = 99;
	CHECK_EQ_INT(mcfan_igmp_build(&s, mac, src4, buf, sizeof(buf), NULL), -EINVAL);
	s.kind = MCFAN_IGMP_SEND_V2_REPORT;
	CHECK_EQ_INT(mcfan_igmp_build(&s, mac, src4, buf, 45, NULL), -ENOSPC);
}

static void
test_build_v3(void)
{
	struct mcfan_igmp_send s = { .kind = MCFAN_IGMP_SEND_V3_REPORT, .n_recs = 2 };
	uint8_t buf[MCFAN_IGMP_FRAME_MAX];
	unsigned int done, i;
	const uint8_t *g;
	int n;

	s.recs[0].type = MCFAN_IGMP_REC_TO_EX;
	memcpy(s.recs[0].group, grp4, 16);
	s.recs[1].type = MCFAN_IGMP_REC_ALLOW;
	memcpy(s.recs[1].group, grp4b, 16);
	s.recs[1].n_src = 1;
	memcpy(s.recs[1].sources[0], s1, 16);
	n = mcfan_igmp_build(&s, mac, src4, buf, sizeof(buf), &done);
	/* 14 + 24 + 8 + (8) + (8 + 4) */
	CHECK_EQ_INT(n, 66);
	CHECK_EQ_INT(done, 2);
	CHECK(buf[0] == 0x01 && buf[3] == 0 && buf[4] == 0 && buf[5] == 22, "to 01:00:5e:00:00:16");
	CHECK(buf[30] == 224 && buf[33] == 22, "to 224.0.0.22 (RFC 3376 4.2.14)");
	CHECK_EQ_INT(rd16(buf + 16), 52);
	CHECK_EQ_INT(buf[22], 1);
	CHECK_EQ_INT(mcfan_igmp_cksum(buf + 14, 24, 0), 0);
	g = buf + 38;
	CHECK_EQ_INT(g[0], 0x22);
	CHECK_EQ_INT(mcfan_igmp_cksum(g, 28, 0), 0);
	CHECK_EQ_INT(rd16(g + 6), 2); /* Number of Group Records */
	CHECK(g[8] == 4 && g[9] == 0 && rd16(g + 10) == 0 && memcmp(g + 12, grp4, 4) == 0,
	      "record 1: CHANGE_TO_EXCLUDE, no sources, the group");
	CHECK(g[16] == 5 && rd16(g + 18) == 1 && memcmp(g + 20, grp4b, 4) == 0 &&
	      memcmp(g + 24, s1, 4) == 0, "record 2: ALLOW_NEW_SOURCES {198.18.0.1}");

	/* records beyond one 1500-byte packet wait for the next frame */
	s.n_recs = MCFAN_IGMP_SEND_RECS;
	for (i = 0; i < MCFAN_IGMP_SEND_RECS; i++) {
		s.recs[i].type = MCFAN_IGMP_REC_IS_IN;
		s.recs[i].n_src = MCFAN_IGMP_MAX_SOURCES;
	}
	n = mcfan_igmp_build(&s, mac, src4, buf, sizeof(buf), &done);
	CHECK_EQ_INT(done, MCFAN_IGMP_SEND_RECS); /* 8 x 40 bytes fit */
	s.recs[0].n_src = MCFAN_IGMP_MAX_SOURCES + 1;
	CHECK_EQ_INT(mcfan_igmp_build(&s, mac, src4, buf, sizeof(buf), &done), -EINVAL);
	s.n_recs = 0;
	CHECK_EQ_INT(mcfan_igmp_build(&s, mac, src4, buf, sizeof(buf), &done), -EINVAL);
}

static void
test_build_mld(void)
{
	struct mcfan_igmp_send s = { .kind = MCFAN_IGMP_SEND_MLD1_REPORT };
	static const uint8_t hbh[8] = { 58, 0, 5, 2, 0, 0, 1, 0 };
	uint8_t buf[MCFAN_IGMP_FRAME_MAX], ll[16];
	struct mcfan_igmp_msg msg;
	unsigned int done;
	int n;

	mcfan_igmp_link_local(mac, ll);
	CHECK(ll[0] == 0xfe && ll[1] == 0x80 && ll[8] == 0x00 && ll[11] == 0xff && ll[12] == 0xfe &&
	      ll[15] == 0x01, "fe80::ff:fe00:1 from 02:00:00:00:00:01 (modified EUI-64)");
	memcpy(s.group, grp6, 16);
	n = mcfan_igmp_build(&s, mac, ll, buf, sizeof(buf), NULL);
	CHECK_EQ_INT(n, 14 + 40 + 8 + 24);
	CHECK(buf[0] == 0x33 && buf[1] == 0x33 && buf[5] == 0x01, "to 33:33:00:00:00:01");
	CHECK_EQ_INT(rd16(buf + 12), 0x86dd);
	CHECK_EQ_INT(buf[14], 0x60);
	CHECK_EQ_INT(rd16(buf + 18), 32);   /* payload: hop-by-hop 8 + MLD 24 */
	CHECK_EQ_INT(buf[20], 0);           /* next header: hop-by-hop */
	CHECK_EQ_INT(buf[21], 1);           /* hop limit 1 */
	CHECK(memcmp(buf + 54, hbh, 8) == 0, "hop-by-hop: ICMPv6 next, RA 5/2/0, PadN");
	CHECK_EQ_INT(buf[62], 131);
	CHECK(memcmp(buf + 70, grp6, 16) == 0, "the group at offset 8 of the message");
	CHECK_EQ_INT(mcfan_igmp_parse(buf, (uint32_t)n, &msg), MCFAN_IGMP_NOT_FOR_US);
	CHECK_EQ_INT(msg.type, MCFAN_IGMP_MSG_REPORT);
	buf[70] ^= 1;
	CHECK_EQ_INT(mcfan_igmp_parse(buf, (uint32_t)n, &msg), MCFAN_IGMP_BAD_CHECKSUM);

	s.kind = MCFAN_IGMP_SEND_MLD1_DONE;
	n = mcfan_igmp_build(&s, mac, ll, buf, sizeof(buf), NULL);
	CHECK(buf[53] == 2 && buf[38] == 0xff && buf[39] == 0x02, "done to ff02::2");
	CHECK_EQ_INT(buf[62], 132);
	CHECK_EQ_INT(mcfan_igmp_parse(buf, (uint32_t)n, &msg), MCFAN_IGMP_NOT_FOR_US);
	CHECK_EQ_INT(msg.type, MCFAN_IGMP_MSG_LEAVE);

	s.kind = MCFAN_IGMP_SEND_MLD2_REPORT;
	s.n_recs = 1;
	s.recs[0].type = MCFAN_IGMP_REC_ALLOW;
	memcpy(s.recs[0].group, grp6, 16);
	s.recs[0].n_src = 1;
	memcpy(s.recs[0].sources[0], ll, 16);
	n = mcfan_igmp_build(&s, mac, ll, buf, sizeof(buf), &done);
	CHECK_EQ_INT(n, 14 + 40 + 8 + 8 + 20 + 16);
	CHECK_EQ_INT(done, 1);
	CHECK(buf[53] == 0x16 && buf[5] == 0x16, "to ff02::16, 33:33:00:00:00:16");
	CHECK(buf[62] == 143 && rd16(buf + 68) == 1, "type 143, one record");
	CHECK(buf[70] == 5 && rd16(buf + 72) == 1 && memcmp(buf + 74, grp6, 16) == 0 &&
	      memcmp(buf + 90, ll, 16) == 0, "record: ALLOW, 1 source, group, source");
	CHECK_EQ_INT(mcfan_igmp_parse(buf, (uint32_t)n, &msg), MCFAN_IGMP_NOT_FOR_US);
	CHECK_EQ_INT(msg.version, 2);
}

/* An IGMP query frame: IPv4 with RA, the message given; checksums right. Returns length. */
static uint32_t
igmp_query(uint8_t *f, const uint8_t *dst, const uint8_t *msg, uint32_t mlen, uint8_t ttl)
{
	memset(f, 0, 14 + 24);
	f[0] = 0x01;
	f[2] = 0x5e;
	f[5] = dst[3];
	f[12] = 0x08;
	f[14] = 0x46;
	wr16(f + 16, (uint16_t)(24 + mlen));
	f[22] = ttl;
	f[23] = 2;
	f[26] = 198;
	f[27] = 18;
	f[28] = 0;
	f[29] = 254;
	memcpy(f + 30, dst, 4);
	f[34] = 0x94;
	f[35] = 4;
	wr16(f + 24, mcfan_igmp_cksum(f + 14, 24, 0));
	memcpy(f + 38, msg, mlen);
	wr16(f + 40, 0);
	wr16(f + 40, mcfan_igmp_cksum(f + 38, mlen, 0));
	return 38 + mlen;
}

static void
test_parse_igmp(void)
{
	static const uint8_t all_hosts[4] = { 224, 0, 0, 1 };
	const uint8_t v1[8] = { 0x11, 0, 0, 0, 0, 0, 0, 0 };
	const uint8_t v2[8] = { 0x11, 100, 0, 0, 0, 0, 0, 0 };
	const uint8_t v2g[8] = { 0x11, 10, 0, 0, 239, 1, 2, 3 };
	/* v3 group-and-source: max resp 0x8c = (0xc|0x10) << 3 = 224 tenths; S, QRV 3; QQIC 5 */
	const uint8_t v3s[20] = { 0x11, 0x8c, 0, 0, 232, 1, 1, 1, 0x0b, 5, 0, 2,
				  198, 18, 0, 1, 198, 18, 0, 9 };
	uint8_t f[256];
	struct mcfan_igmp_msg m;
	uint32_t n;

	n = igmp_query(f, all_hosts, v1, 8, 1);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_VALID);
	CHECK(m.type == MCFAN_IGMP_MSG_QUERY && m.version == 1 && m.max_resp_ms == 10000,
	      "v1 query: version 1, 10 s (type %u version %u %u ms)", m.type, m.version,
	      m.max_resp_ms);
	n = igmp_query(f, all_hosts, v2, 8, 1);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_VALID);
	CHECK(m.version == 2 && m.max_resp_ms == 10000, "v2 general query, 100 tenths");
	CHECK(m.src[0] == 198 && m.src[3] == 254, "the querier's address");
	n = igmp_query(f, grp4, v2g, 8, 1);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_VALID);
	CHECK(m.version == 2 && memcmp(m.group, grp4, 4) == 0 && m.max_resp_ms == 1000,
	      "v2 group-specific query");
	n = igmp_query(f, grp4b, v3s, 20, 1);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_VALID);
	CHECK(m.version == 3 && m.max_resp_ms == 22400 && m.s_flag && m.qrv == 3 &&
	      m.qqi_s == 5 && m.n_src == 2 && m.n_src_kept == 2 &&
	      memcmp(m.sources[1], s2, 4) == 0, "v3 group-and-source query fields");

	/* the named reasons */
	n = igmp_query(f, all_hosts, v2, 8, 2);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_WRONG_TTL);
	n = igmp_query(f, all_hosts, v2, 8, 1);
	f[43] ^= 0x10;
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_BAD_CHECKSUM);
	n = igmp_query(f, all_hosts, v2, 8, 1);
	f[18] ^= 0x01; /* id: the IPv4 header checksum no longer holds */
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_BAD_CHECKSUM);
	n = igmp_query(f, all_hosts, v2, 8, 1);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n - 1, &m), MCFAN_IGMP_MALFORMED);
	CHECK_EQ_INT(mcfan_igmp_parse(f, 20, &m), MCFAN_IGMP_MALFORMED);
	n = igmp_query(f, all_hosts, v3s, 10, 1); /* 10 bytes: neither v2 nor v3 */
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_MALFORMED);
	n = igmp_query(f, grp4b, v3s, 16, 1); /* says 2 sources, holds 1 */
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_MALFORMED);
	n = igmp_query(f, grp4, v2, 8, 1); /* general query to a group address */
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_NOT_FOR_US);
	n = igmp_query(f, grp4b, v2g, 8, 1); /* 239.1.2.3's query sent to 232.1.1.1 */
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_NOT_FOR_US);
	CHECK_EQ_STR(mcfan_igmp_invalid_name(MCFAN_IGMP_BAD_CHECKSUM), "bad_checksum");
	CHECK_EQ_STR(mcfan_igmp_invalid_name(MCFAN_IGMP_NOT_FOR_US), "not_for_us");
	CHECK_EQ_STR(mcfan_igmp_invalid_name(MCFAN_IGMP_INVALID_MAX), "invalid");
}

/* An MLD query frame (hop-by-hop RA, ICMPv6 checksum right). Returns its length. */
static uint32_t
mld_query(uint8_t *f, const uint8_t *src, const uint8_t *dst, const uint8_t *msg, uint32_t mlen,
	  uint8_t hlim)
{
	static const uint8_t hbh[8] = { 58, 0, 5, 2, 0, 0, 1, 0 };
	uint8_t pseudo[40];

	memset(f, 0, 62);
	f[0] = 0x33;
	f[1] = 0x33;
	f[5] = dst[15];
	wr16(f + 12, 0x86dd);
	f[14] = 0x60;
	wr16(f + 18, (uint16_t)(8 + mlen));
	f[20] = 0;
	f[21] = hlim;
	memcpy(f + 22, src, 16);
	memcpy(f + 38, dst, 16);
	memcpy(f + 54, hbh, 8);
	memcpy(f + 62, msg, mlen);
	wr16(f + 64, 0);
	memset(pseudo, 0, sizeof(pseudo));
	pseudo[2] = (uint8_t)(mlen >> 8);
	pseudo[3] = (uint8_t)mlen;
	pseudo[7] = 58;
	wr16(f + 64, mcfan_igmp_cksum(f + 62, mlen, 0xffff & ~mcfan_igmp_cksum(pseudo, 8,
		     0xffff & ~mcfan_igmp_cksum(f + 22, 32, 0))));
	return 62 + mlen;
}

static void
test_parse_mld(void)
{
	static const uint8_t ll[16] = { 0xfe, 0x80, [15] = 0x01 };
	static const uint8_t global[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x01 };
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	uint8_t v1[24] = { 130, 0, 0, 0, 0x03, 0xe8 };      /* 1000 ms, general */
	uint8_t v2[44] = { 130, 0, 0, 0, 0x27, 0x10 };      /* 10000 ms */
	uint8_t f[256];
	struct mcfan_igmp_msg m;
	uint32_t n;

	n = mld_query(f, ll, all_nodes, v1, 24, 1);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_VALID);
	CHECK(m.proto == MCFAN_IGMP_PROTO_MLD && m.version == 1 && m.max_resp_ms == 1000,
	      "MLDv1 general query (version %u, %u ms)", m.version, m.max_resp_ms);
	memcpy(v2 + 8, grp6, 16);
	v2[24] = 2;  /* QRV 2 */
	v2[25] = 5;  /* QQIC 5 s */
	v2[27] = 1;  /* one source */
	memcpy(v2 + 28, ll, 16);
	n = mld_query(f, ll, grp6, v2, 44, 1);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_VALID);
	CHECK(m.version == 2 && m.max_resp_ms == 10000 && m.qrv == 2 && m.qqi_s == 5 &&
	      m.n_src == 1 && memcmp(m.group, grp6, 16) == 0, "MLDv2 group-and-source query");
	n = mld_query(f, ll, grp6, v2, 44, 255);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_WRONG_TTL);
	n = mld_query(f, global, grp6, v2, 44, 1);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_NOT_FOR_US);
	n = mld_query(f, ll, grp6, v2, 26, 1);
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_MALFORMED);
	n = mld_query(f, ll, grp6, v2, 44, 1);
	f[n - 1] ^= 0xff;
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_BAD_CHECKSUM);
	n = mld_query(f, ll, grp6, v2, 44, 1);
	f[19] += 4; /* payload length past the frame */
	CHECK_EQ_INT(mcfan_igmp_parse(f, n, &m), MCFAN_IGMP_MALFORMED);
}

/* A query message as mcfan_igmp_parse() would hand it. */
static struct mcfan_igmp_msg
query(uint8_t proto, uint8_t version, const uint8_t *group, uint32_t max_resp_ms)
{
	struct mcfan_igmp_msg m;

	memset(&m, 0, sizeof(m));
	m.proto = proto;
	m.type = MCFAN_IGMP_MSG_QUERY;
	m.version = version;
	m.max_resp_ms = max_resp_ms;
	m.src[0] = 198;
	m.src[1] = 18;
	m.src[3] = 254;
	if (group != NULL)
		memcpy(m.group, group, 16);
	return m;
}

static void
test_host_v3(void)
{
	struct mcfan_igmp_host h;
	struct mcfan_igmp_send out;
	struct mcfan_igmp_msg q;
	const struct mcfan_igmp_group *g;
	uint64_t t, first = 0;
	unsigned int sent = 0;

	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_V1, 8, 1),
		     -EINVAL);
	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_AUTO, 8, 1), 0);
	CHECK_EQ_INT(mcfan_igmp_host_version(&h, 0), 3);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 1000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 1000), -EEXIST);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 999, &out), 0);
	/* Robustness (2) unsolicited TO_EX {} reports, the second within (0, 1 s] */
	for (t = 1000; t <= 5000; t++) {
		while (mcfan_igmp_host_poll(&h, t, &out) == 1) {
			CHECK(out.kind == MCFAN_IGMP_SEND_V3_REPORT && out.n_recs == 1 &&
			      out.recs[0].type == MCFAN_IGMP_REC_TO_EX && out.why == MCFAN_IGMP_WHY_JOIN,
			      "join: v3 TO_EX");
			if (sent++ == 0)
				first = t;
			else
				CHECK(t > first && t <= first + 1000, "second report at %" PRIu64, t);
		}
	}
	CHECK_EQ_INT(first, 1000);
	CHECK_EQ_INT(sent, 2);
	CHECK_EQ_INT(h.c.reports_sent[3], 2);
	g = mcfan_igmp_host_find(&h, grp4);
	CHECK(g != NULL && strcmp(mcfan_igmp_group_state(g), "idle") == 0, "joined, idle");

	/* source-specific join: ALLOW {S1} */
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4b, (const uint8_t (*)[16])s1, 1, 6000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 6000, &out), 1);
	CHECK(out.recs[0].type == MCFAN_IGMP_REC_ALLOW && out.recs[0].n_src == 1 &&
	      memcmp(out.recs[0].sources[0], s1, 4) == 0, "INCLUDE join: ALLOW {198.18.0.1}");
	for (t = 6001; t <= 8000; t++)
		while (mcfan_igmp_host_poll(&h, t, &out) == 1)
			;

	/* a general query: one report of every group's state within Max Resp Time */
	q = query(MCFAN_IGMP_PROTO_IGMP, 3, NULL, 2000);
	q.qrv = 3;
	q.qqi_s = 5;
	mcfan_igmp_host_query(&h, &q, 10000);
	CHECK_EQ_INT(h.c.queries_general[3], 1);
	CHECK_EQ_INT(h.robustness, 3);
	CHECK_EQ_INT(h.qi_ms, 5000);
	CHECK(h.have_querier && h.querier[3] == 254 && h.querier_version == 3, "querier noted");
	sent = 0;
	for (t = 10000; t <= 12000; t++) {
		while (mcfan_igmp_host_poll(&h, t, &out) == 1) {
			sent++;
			CHECK(out.why == MCFAN_IGMP_WHY_GENERAL && out.n_recs == 2 &&
			      out.recs[0].type == MCFAN_IGMP_REC_IS_EX &&
			      out.recs[1].type == MCFAN_IGMP_REC_IS_IN && out.recs[1].n_src == 1,
			      "general answer: IS_EX {} and IS_IN {S}");
		}
	}
	CHECK_EQ_INT(sent, 1);
	g = mcfan_igmp_host_find(&h, grp4);
	CHECK(g != NULL && g->last_report_ms >= 10000 && g->last_report_ms <= 12000,
	      "time of the last report");

	/* group-and-source query: only the sources the host wants */
	q = query(MCFAN_IGMP_PROTO_IGMP, 3, grp4b, 0);
	q.n_src = q.n_src_kept = 2;
	memcpy(q.sources[0], s2, 16);
	memcpy(q.sources[1], s1, 16);
	mcfan_igmp_host_query(&h, &q, 13000);
	CHECK_EQ_INT(h.c.queries_source[3], 1);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 13000, &out), 1);
	CHECK(out.why == MCFAN_IGMP_WHY_SOURCE && out.recs[0].type == MCFAN_IGMP_REC_IS_IN &&
	      out.recs[0].n_src == 1 && memcmp(out.recs[0].sources[0], s1, 4) == 0,
	      "source answer: IS_IN {198.18.0.1}");
	q.n_src = q.n_src_kept = 1;
	memcpy(q.sources[0], s1, 16);
	mcfan_igmp_host_query(&h, &q, 14000);
	memcpy(q.sources[0], s2, 16);
	mcfan_igmp_host_query(&h, &q, 14000);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 14000, &out), 1); /* the union {S1, S2} ∩ {S1} */
	CHECK_EQ_INT(out.recs[0].n_src, 1);
	q = query(MCFAN_IGMP_PROTO_IGMP, 3, grp4b, 0);
	q.n_src = q.n_src_kept = 1;
	memcpy(q.sources[0], s2, 16);
	mcfan_igmp_host_query(&h, &q, 15000);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 15000, &out), 0); /* not a source it wants */

	/* group-specific query */
	q = query(MCFAN_IGMP_PROTO_IGMP, 3, grp4, 1000);
	mcfan_igmp_host_query(&h, &q, 16000);
	CHECK_EQ_INT(h.c.queries_group[3], 1);
	g = mcfan_igmp_host_find(&h, grp4);
	CHECK(g != NULL && strcmp(mcfan_igmp_group_state(g), "delaying") == 0, "delaying");
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 17000, &out), 1);
	CHECK(out.why == MCFAN_IGMP_WHY_GROUP && out.recs[0].type == MCFAN_IGMP_REC_IS_EX &&
	      memcmp(out.recs[0].group, grp4, 4) == 0, "group answer IS_EX {}");

	/* leave: TO_IN {} and BLOCK {S}, Robustness (now 3) times, then the group is gone */
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp4, 20000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp4, 20000), -ENOENT);
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp4b, 20000), 0);
	sent = 0;
	for (t = 20000; t <= 30000; t++) {
		while (mcfan_igmp_host_poll(&h, t, &out) == 1) {
			sent++;
			CHECK(out.why == MCFAN_IGMP_WHY_LEAVE &&
			      (out.recs[0].type == MCFAN_IGMP_REC_TO_IN ||
			       (out.recs[0].type == MCFAN_IGMP_REC_BLOCK && out.recs[0].n_src == 1)),
			      "leave: TO_IN {} / BLOCK {S} (%u)", out.recs[0].type);
		}
	}
	CHECK_EQ_INT(sent, 6);
	CHECK_EQ_INT(h.c.leaves_sent[3], 6);
	CHECK_EQ_INT(h.n_groups, 0);
	mcfan_igmp_host_free(&h);
}

static void
test_host_compat(void)
{
	struct mcfan_igmp_host h;
	struct mcfan_igmp_send out;
	struct mcfan_igmp_msg q;
	unsigned int sent;
	uint64_t t;

	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_AUTO, 8, 7), 0);
	q = query(MCFAN_IGMP_PROTO_IGMP, 2, NULL, 1000);
	mcfan_igmp_host_query(&h, &q, 1000);
	CHECK_EQ_INT(mcfan_igmp_host_version(&h, 1000), 2);
	/* RFC 3376 8.12: 2 x 125 s + 10 s */
	CHECK_EQ_INT(mcfan_igmp_host_version(&h, 1000 + 260000 - 1), 2);
	CHECK_EQ_INT(mcfan_igmp_host_version(&h, 1000 + 260000), 3);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 2000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 2000, &out), 1);
	CHECK(out.kind == MCFAN_IGMP_SEND_V2_REPORT && memcmp(out.group, grp4, 4) == 0,
	      "join behind a v2 querier: v2 report");
	/* the second unsolicited v2 report within 10 s */
	sent = 0;
	for (t = 2001; t <= 12000; t += 1)
		while (mcfan_igmp_host_poll(&h, t, &out) == 1)
			sent++;
	CHECK_EQ_INT(sent, 1);
	CHECK_EQ_INT(h.c.reports_sent[2], 2);
	mcfan_igmp_host_query(&h, &q, 20000);
	sent = 0;
	for (t = 20000; t <= 21000; t++)
		while (mcfan_igmp_host_poll(&h, t, &out) == 1)
			sent += out.kind == MCFAN_IGMP_SEND_V2_REPORT && out.why ==
				MCFAN_IGMP_WHY_GENERAL;
	CHECK_EQ_INT(sent, 1);
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp4, 22000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 22000, &out), 1);
	CHECK_EQ_INT(out.kind, MCFAN_IGMP_SEND_V2_LEAVE);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 40000, &out), 0); /* one leave only */
	CHECK_EQ_INT(h.n_groups, 0);
	CHECK_EQ_INT(h.c.leaves_sent[2], 1);

	/* a v1 querier: v1 reports, no leave */
	q = query(MCFAN_IGMP_PROTO_IGMP, 1, NULL, 10000);
	mcfan_igmp_host_query(&h, &q, 50000);
	CHECK_EQ_INT(mcfan_igmp_host_version(&h, 50000), 1);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 50000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 50000, &out), 1);
	CHECK_EQ_INT(out.kind, MCFAN_IGMP_SEND_V1_REPORT);
	for (t = 50001; t <= 61000; t++)
		while (mcfan_igmp_host_poll(&h, t, &out) == 1)
			;
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp4, 62000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 62000, &out), 0);
	CHECK_EQ_INT(h.n_groups, 0);
	mcfan_igmp_host_free(&h);

	/* pinned v3 stays v3 behind a v2 querier; pinned v2 speaks v2 to a v3 querier */
	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_V3, 8, 7), 0);
	q = query(MCFAN_IGMP_PROTO_IGMP, 2, NULL, 1000);
	mcfan_igmp_host_query(&h, &q, 1000);
	CHECK_EQ_INT(mcfan_igmp_host_version(&h, 1000), 3);
	mcfan_igmp_host_free(&h);
	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_V2, 8, 7), 0);
	CHECK_EQ_INT(mcfan_igmp_host_version(&h, 0), 2);
	mcfan_igmp_host_free(&h);

	/* off: nothing is sent, queries still counted */
	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_OFF, 8, 7), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 0), 0);
	mcfan_igmp_host_query(&h, &q, 1);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 100000, &out), 0);
	CHECK_EQ_INT(h.c.queries_general[2], 1);
	mcfan_igmp_host_free(&h);
}

static void
test_host_mld(void)
{
	struct mcfan_igmp_host h;
	struct mcfan_igmp_send out;
	struct mcfan_igmp_msg q;
	uint64_t t;

	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_MLD, MCFAN_IGMP_MODE_V3, 8, 3), -EINVAL);
	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_MLD, MCFAN_IGMP_MODE_AUTO, 8, 3), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp6, NULL, 0, 0), 0);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 0, &out), 1);
	CHECK(out.kind == MCFAN_IGMP_SEND_MLD2_REPORT && out.recs[0].type == MCFAN_IGMP_REC_TO_EX,
	      "MLDv2 join: TO_EX {}");
	for (t = 1; t <= 1000; t++)
		while (mcfan_igmp_host_poll(&h, t, &out) == 1)
			CHECK(out.kind == MCFAN_IGMP_SEND_MLD2_REPORT, "second unsolicited MLDv2");
	CHECK_EQ_INT(h.c.reports_sent[2], 2);
	q = query(MCFAN_IGMP_PROTO_MLD, 1, NULL, 1000);
	mcfan_igmp_host_query(&h, &q, 5000);
	CHECK_EQ_INT(mcfan_igmp_host_version(&h, 5000), 1);
	for (t = 5000; t <= 6000; t++)
		while (mcfan_igmp_host_poll(&h, t, &out) == 1)
			CHECK(out.kind == MCFAN_IGMP_SEND_MLD1_REPORT, "v1 answer (%u)", out.kind);
	CHECK_EQ_INT(h.c.reports_sent[1], 1);
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp6, 7000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 7000, &out), 1);
	CHECK_EQ_INT(out.kind, MCFAN_IGMP_SEND_MLD1_DONE);
	CHECK_EQ_INT(h.n_groups, 0);
	CHECK_EQ_INT(mcfan_igmp_mode_parse(MCFAN_IGMP_PROTO_MLD, "v1"), MCFAN_IGMP_MODE_V1);
	CHECK_EQ_INT(mcfan_igmp_mode_parse(MCFAN_IGMP_PROTO_MLD, "v3"), -EINVAL);
	CHECK_EQ_INT(mcfan_igmp_mode_parse(MCFAN_IGMP_PROTO_IGMP, "v3"), MCFAN_IGMP_MODE_V3);
	CHECK_EQ_INT(mcfan_igmp_mode_parse(MCFAN_IGMP_PROTO_IGMP, "v1"), -EINVAL);
	CHECK_EQ_STR(mcfan_igmp_mode_name(MCFAN_IGMP_MODE_AUTO), "auto");
	mcfan_igmp_host_free(&h);
}

/* Another member's report as mcfan_igmp_parse() hands it over (MCFAN_IGMP_NOT_FOR_US). */
static struct mcfan_igmp_msg
report(uint8_t proto, uint8_t version, const uint8_t *group)
{
	struct mcfan_igmp_msg m;

	memset(&m, 0, sizeof(m));
	m.proto = proto;
	m.type = MCFAN_IGMP_MSG_REPORT;
	m.version = version;
	memcpy(m.group, group, 16);
	return m;
}

/* Drain what is due from..to (ms, 1 ms steps); count the answers to queries sent. */
static unsigned int
answers(struct mcfan_igmp_host *h, uint64_t from, uint64_t to)
{
	struct mcfan_igmp_send out;
	unsigned int n = 0;
	uint64_t t;

	for (t = from; t <= to; t++)
		while (mcfan_igmp_host_poll(h, t, &out) == 1)
			n += out.why == MCFAN_IGMP_WHY_GENERAL || out.why == MCFAN_IGMP_WHY_GROUP;
	return n;
}

/* RFC 2236 section 3, RFC 2710 section 4: a v1/v2 (MLDv1) host that hears another member's
 * report for a group whose answer is pending does not send its own; v3 / MLDv2 do. */
static void
test_host_suppress(void)
{
	struct mcfan_igmp_host h;
	struct mcfan_igmp_msg q, r;

	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_AUTO, 8, 5), 0);
	q = query(MCFAN_IGMP_PROTO_IGMP, 2, NULL, 10000);
	mcfan_igmp_host_query(&h, &q, 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 0), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4b, NULL, 0, 0), 0);
	answers(&h, 0, 25000); /* the joins' unsolicited reports */
	CHECK_EQ_INT(h.c.reports_sent[2], 4);
	/* nothing pending: a report heard changes nothing */
	r = report(MCFAN_IGMP_PROTO_IGMP, 2, grp4);
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 26000), 0);
	/* a general query: both answers pending; another member answers for grp4 only */
	mcfan_igmp_host_query(&h, &q, 30000);
	CHECK_EQ_STR(mcfan_igmp_group_state(mcfan_igmp_host_find(&h, grp4)), "delaying");
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 30000), 1);
	CHECK_EQ_STR(mcfan_igmp_group_state(mcfan_igmp_host_find(&h, grp4)), "idle");
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 30000), 0); /* once */
	CHECK_EQ_INT(answers(&h, 30000, 41000), 1); /* grp4b's answer only */
	CHECK_EQ_INT(h.c.reports_sent[2], 5);
	CHECK_EQ_INT(h.c.reports_suppressed[2], 1);
	/* a v1 report suppresses too (RFC 2236 section 5), counted under v1 */
	mcfan_igmp_host_query(&h, &q, 50000);
	r = report(MCFAN_IGMP_PROTO_IGMP, 1, grp4b);
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 50000), 1);
	CHECK_EQ_INT(answers(&h, 50000, 61000), 1);
	CHECK_EQ_INT(h.c.reports_suppressed[1], 1);
	/* a v3 report does not; a group not joined, or MLD for an IGMP host, neither */
	mcfan_igmp_host_query(&h, &q, 70000);
	r = report(MCFAN_IGMP_PROTO_IGMP, 3, grp4);
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 70000), 0);
	r = report(MCFAN_IGMP_PROTO_IGMP, 2, grp6);
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 70000), 0);
	r = report(MCFAN_IGMP_PROTO_MLD, 1, grp4);
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 70000), 0);
	CHECK_EQ_INT(answers(&h, 70000, 81000), 2);
	/* a leave after a suppressed answer is still sent (RFC 2236 section 3 allows it) */
	mcfan_igmp_host_query(&h, &q, 90000);
	r = report(MCFAN_IGMP_PROTO_IGMP, 2, grp4);
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 90000), 1);
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp4, 90001), 0);
	answers(&h, 90001, 101000);
	CHECK_EQ_INT(h.c.leaves_sent[2], 1);
	mcfan_igmp_host_free(&h);

	/* IGMPv3 (no older querier): no suppression, the answer goes out */
	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_AUTO, 8, 5), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 0), 0);
	answers(&h, 0, 2000);
	q = query(MCFAN_IGMP_PROTO_IGMP, 3, grp4, 1000);
	mcfan_igmp_host_query(&h, &q, 3000);
	r = report(MCFAN_IGMP_PROTO_IGMP, 2, grp4);
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 3000), 0);
	CHECK_EQ_INT(answers(&h, 3000, 4000), 1);
	CHECK_EQ_INT(h.c.reports_suppressed[2], 0);
	mcfan_igmp_host_free(&h);

	/* MLDv1: a group-specific query's answer suppressed by another member's MLDv1 report */
	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_MLD, MCFAN_IGMP_MODE_V1, 8, 5), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp6, NULL, 0, 0), 0);
	answers(&h, 0, 21000);
	q = query(MCFAN_IGMP_PROTO_MLD, 1, grp6, 1000);
	q.src[0] = 0xfe;
	q.src[1] = 0x80;
	mcfan_igmp_host_query(&h, &q, 30000);
	r = report(MCFAN_IGMP_PROTO_MLD, 1, grp6);
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 30000), 1);
	CHECK_EQ_INT(answers(&h, 30000, 31000), 0);
	CHECK_EQ_INT(h.c.reports_suppressed[1], 1);
	/* an MLDv2 report does not suppress */
	mcfan_igmp_host_query(&h, &q, 40000);
	r = report(MCFAN_IGMP_PROTO_MLD, 2, grp6);
	CHECK_EQ_INT(mcfan_igmp_host_report_heard(&h, &r, 40000), 0);
	CHECK_EQ_INT(answers(&h, 40000, 41000), 1);
	mcfan_igmp_host_free(&h);
}

/* The one report due at now (fails the check if there is none). */
static struct mcfan_igmp_send
due(struct mcfan_igmp_host *h, uint64_t now)
{
	struct mcfan_igmp_send out;

	memset(&out, 0, sizeof(out));
	CHECK_EQ_INT(mcfan_igmp_host_poll(h, now, &out), 1);
	return out;
}

/* A joined group's sources replaced: RFC 3376 section 5.1 state-change records. */
static void
test_host_sources(void)
{
	const uint8_t s12[2][16] = { { 198, 18, 0, 1 }, { 198, 18, 0, 9 } };
	const uint8_t s3[1][16] = { { 198, 18, 0, 3 } };
	struct mcfan_igmp_host h;
	struct mcfan_igmp_send out;
	const struct mcfan_igmp_group *g;

	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_AUTO, 8, 9), 0);
	CHECK_EQ_INT(mcfan_igmp_host_set_sources(&h, grp4b, NULL, 0, 0), -ENOENT);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4b, s12, 1, 0), 0);
	answers(&h, 0, 3000);
	CHECK_EQ_INT(h.c.reports_sent[3], 2);
	/* the same set, in any order: nothing to send */
	CHECK_EQ_INT(mcfan_igmp_host_set_sources(&h, grp4b, s12, 1, 4000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 4000, &out), 0);
	/* {s1} -> {s1, s2}: ALLOW {s2}, twice (Robustness 2) */
	CHECK_EQ_INT(mcfan_igmp_host_set_sources(&h, grp4b, s12, 2, 5000), 1);
	out = due(&h, 5000);
	CHECK(out.kind == MCFAN_IGMP_SEND_V3_REPORT && out.n_recs == 1 &&
	      out.recs[0].type == MCFAN_IGMP_REC_ALLOW && out.recs[0].n_src == 1 &&
	      memcmp(out.recs[0].sources[0], s2, 4) == 0, "a source added: ALLOW {new}");
	g = mcfan_igmp_host_find(&h, grp4b);
	CHECK(g != NULL && g->n_src == 2, "the group holds both sources");
	out = due(&h, 6000);
	CHECK(out.n_recs == 1 && out.recs[0].type == MCFAN_IGMP_REC_ALLOW, "ALLOW repeated");
	CHECK_EQ_INT(mcfan_igmp_host_poll(&h, 9000, &out), 0);
	/* {s1, s2} -> {s3}: ALLOW {s3} and BLOCK {s1, s2} in one report */
	CHECK_EQ_INT(mcfan_igmp_host_set_sources(&h, grp4b, s3, 1, 10000), 1);
	out = due(&h, 10000);
	CHECK(out.n_recs == 2 && out.recs[0].type == MCFAN_IGMP_REC_ALLOW &&
	      out.recs[0].n_src == 1 && out.recs[0].sources[0][3] == 3 &&
	      out.recs[1].type == MCFAN_IGMP_REC_BLOCK && out.recs[1].n_src == 2,
	      "sources replaced: ALLOW {new} + BLOCK {old} (%u records)", out.n_recs);
	answers(&h, 10001, 12000);
	/* INCLUDE {s3} -> any source: TO_EX {}; and back: TO_IN {s3} */
	CHECK_EQ_INT(mcfan_igmp_host_set_sources(&h, grp4b, NULL, 0, 13000), 1);
	out = due(&h, 13000);
	CHECK(out.n_recs == 1 && out.recs[0].type == MCFAN_IGMP_REC_TO_EX &&
	      out.recs[0].n_src == 0, "to any source: TO_EX {}");
	answers(&h, 13001, 15000);
	CHECK_EQ_INT(mcfan_igmp_host_set_sources(&h, grp4b, s3, 1, 16000), 1);
	out = due(&h, 16000);
	CHECK(out.n_recs == 1 && out.recs[0].type == MCFAN_IGMP_REC_TO_IN &&
	      out.recs[0].n_src == 1, "from any source to {s3}: TO_IN {s3}");
	answers(&h, 16001, 18000);
	/* the change done, a general query's answer is the current state IS_IN {s3} */
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp4b, 20000), 0);
	out = due(&h, 20000);
	CHECK(out.n_recs == 1 && out.recs[0].type == MCFAN_IGMP_REC_BLOCK &&
	      out.recs[0].n_src == 1 && out.recs[0].sources[0][3] == 3, "leave: BLOCK {s3}");
	CHECK_EQ_INT(mcfan_igmp_host_set_sources(&h, grp4b, NULL, 0, 20001), -ENOENT);
	CHECK_EQ_INT(mcfan_igmp_host_set_sources(&h, grp4b, s12, MCFAN_IGMP_MAX_SOURCES + 1,
						 20001), -EINVAL);
	mcfan_igmp_host_free(&h);
}

/* mcfan stops: every group left, the repeats made due at once. */
static void
test_host_leave_all(void)
{
	struct mcfan_igmp_host h;
	struct mcfan_igmp_send out;
	struct mcfan_igmp_msg q;
	unsigned int n;

	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_V3, 8, 11), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 0), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4b, (const uint8_t (*)[16])s1, 1, 0), 0);
	answers(&h, 0, 3000);
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp4, 4000), 0); /* already leaving: not counted */
	CHECK_EQ_INT(mcfan_igmp_host_leave_all(&h, 4000), 1);
	for (n = 0; mcfan_igmp_host_poll(&h, 4000, &out) == 1; n++)
		CHECK(out.recs[0].type == (out.recs[0].n_src == 0 ? MCFAN_IGMP_REC_TO_IN :
		      MCFAN_IGMP_REC_BLOCK), "leave records");
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_INT(mcfan_igmp_host_hurry(&h, 4000), 2); /* the repeats: due now */
	for (n = 0; mcfan_igmp_host_poll(&h, 4000, &out) == 1; n++)
		;
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_INT(mcfan_igmp_host_hurry(&h, 4000), 0);
	CHECK_EQ_INT(h.n_groups, 0);
	CHECK_EQ_INT(h.c.leaves_sent[3], 4);
	CHECK_EQ_INT(mcfan_igmp_host_leave_all(&h, 4001), 0);
	mcfan_igmp_host_free(&h);
	/* IGMPv2 (a v2 querier): one Leave each, nothing to hurry */
	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_AUTO, 8, 11), 0);
	q = query(MCFAN_IGMP_PROTO_IGMP, 2, NULL, 1000);
	mcfan_igmp_host_query(&h, &q, 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 0), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4b, NULL, 0, 0), 0);
	answers(&h, 0, 25000);
	CHECK_EQ_INT(mcfan_igmp_host_leave_all(&h, 30000), 2);
	for (n = 0; mcfan_igmp_host_poll(&h, 30000, &out) == 1; n++)
		CHECK_EQ_INT(out.kind, MCFAN_IGMP_SEND_V2_LEAVE);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_INT(mcfan_igmp_host_hurry(&h, 30000), 0);
	CHECK_EQ_INT(h.n_groups, 0);
	mcfan_igmp_host_free(&h);
}

static void
test_ssm_check(void)
{
	struct mcfan_igmp_ssm ssm[MCFAN_IGMP_MAX_SOURCES + 2];
	char err[200];
	unsigned int i;

	memset(ssm, 0, sizeof(ssm));
	for (i = 0; i < sizeof(ssm) / sizeof(ssm[0]); i++) {
		ssm[i].key.family = MCFAN_FAMILY_IPV4;
		memcpy(ssm[i].key.addr, grp4b, 16);
		ssm[i].key.udp_port = (uint16_t)(5000 + i % 2); /* two UDP ports of one group */
		ssm[i].source[0] = 198;
		ssm[i].source[1] = 18;
		ssm[i].source[3] = (uint8_t)(1 + i);
	}
	ssm[1].source[3] = 1; /* a duplicate: counted once */
	CHECK_EQ_INT(mcfan_igmp_ssm_check(ssm, MCFAN_IGMP_MAX_SOURCES + 1, MCFAN_IGMP_MODE_AUTO,
					  MCFAN_IGMP_MODE_AUTO, err, sizeof(err)), 0);
	CHECK_EQ_INT(mcfan_igmp_ssm_check(ssm, MCFAN_IGMP_MAX_SOURCES + 2, MCFAN_IGMP_MODE_V3,
					  MCFAN_IGMP_MODE_AUTO, err, sizeof(err)), -E2BIG);
	CHECK_EQ_STR(err, "group 232.1.1.1: 9 sources, more than the 8 a group can be joined from");
	CHECK_EQ_INT(mcfan_igmp_ssm_check(ssm, 1, MCFAN_IGMP_MODE_V2, MCFAN_IGMP_MODE_AUTO, err,
					  sizeof(err)), -ENOTSUP);
	CHECK(strstr(err, "232.1.1.1 from a source needs IGMPv3") != NULL &&
	      strstr(err, "not --igmp v2") != NULL, "names the group and the mode: %s", err);
	CHECK_EQ_INT(mcfan_igmp_ssm_check(ssm, 1, MCFAN_IGMP_MODE_OFF, MCFAN_IGMP_MODE_AUTO, err,
					  sizeof(err)), -ENOTSUP);
	CHECK(strstr(err, "not --igmp off") != NULL, "off: %s", err);
	/* MLD v1 / off refuse an IPv6 group from a source; IGMP v2 does not care about it */
	ssm[0].key.family = MCFAN_FAMILY_IPV6;
	memcpy(ssm[0].key.addr, grp6, 16);
	CHECK_EQ_INT(mcfan_igmp_ssm_check(ssm, 1, MCFAN_IGMP_MODE_V2, MCFAN_IGMP_MODE_V2, err,
					  sizeof(err)), 0);
	CHECK_EQ_INT(mcfan_igmp_ssm_check(ssm, 1, MCFAN_IGMP_MODE_V3, MCFAN_IGMP_MODE_V1, err,
					  sizeof(err)), -ENOTSUP);
	CHECK(strstr(err, "ff3e::1 from a source needs MLDv2") != NULL, "MLD: %s", err);
	CHECK_EQ_INT(mcfan_igmp_ssm_check(NULL, 0, MCFAN_IGMP_MODE_OFF, MCFAN_IGMP_MODE_OFF, err,
					  sizeof(err)), 0);
}

static void
test_ssm(void)
{
	struct mcfan_igmp_ssm ssm[8];
	char out[128], err[160];
	unsigned int n;

	CHECK_EQ_INT(mcfan_igmp_ssm_split("239.9.9.1-2:3999,[ff3e::1]", out, sizeof(out), ssm, 8, &n,
					  err, sizeof(err)), 0);
	CHECK_EQ_STR(out, "239.9.9.1-2:3999,[ff3e::1]");
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_INT(mcfan_igmp_ssm_split("232.1.1.1-2:5000@198.18.0.1+198.18.0.3,239.1.1.1", out,
					  sizeof(out), ssm, 8, &n, err, sizeof(err)), 0);
	CHECK_EQ_STR(out, "232.1.1.1-2:5000,239.1.1.1");
	CHECK_EQ_INT(n, 4);
	CHECK(ssm[0].key.addr[3] == 1 && ssm[0].key.udp_port == 5000 && ssm[0].source[3] == 1 &&
	      ssm[1].key.addr[3] == 2 && ssm[2].source[3] == 3, "every group with every source");
	/* the sources of one group written back as the list names them; none for another */
	CHECK_EQ_INT(mcfan_igmp_ssm_format(ssm, n, &ssm[1].key, out, sizeof(out)), 2);
	CHECK_EQ_STR(out, "198.18.0.1+198.18.0.3");
	CHECK_EQ_INT(mcfan_igmp_ssm_format(ssm, n, &ssm[0].key, out, 12), 2);
	CHECK_EQ_STR(out, "198.18.0.1+"); /* cut to the room */
	ssm[4] = ssm[0];
	ssm[4].key.udp_port = 5001;
	CHECK_EQ_INT(mcfan_igmp_ssm_format(ssm, n, &ssm[4].key, out, sizeof(out)), 0);
	CHECK_EQ_STR(out, "");
	CHECK_EQ_INT(mcfan_igmp_ssm_format(NULL, 0, &ssm[0].key, out, sizeof(out)), 0);
	CHECK_EQ_INT(mcfan_igmp_ssm_split("[ff3e::1]:5000@[fe80::1]", out, sizeof(out), ssm, 8, &n,
					  err, sizeof(err)), 0);
	CHECK(n == 1 && ssm[0].source[0] == 0xfe && ssm[0].source[15] == 1, "IPv6 source");
	CHECK_EQ_INT(mcfan_igmp_ssm_format(ssm, n, &ssm[0].key, out, sizeof(out)), 1);
	CHECK_EQ_STR(out, "[fe80::1]");
	CHECK_EQ_INT(mcfan_igmp_ssm_split("232.1.1.1@239.1.1.1", out, sizeof(out), ssm, 8, &n,
					  err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "'239.1.1.1'") != NULL, "names the bad source: %s", err);
	CHECK_EQ_INT(mcfan_igmp_ssm_split("232.1.1.1@", out, sizeof(out), ssm, 8, &n,
					  err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(mcfan_igmp_ssm_split("[ff3e::1]@198.18.0.1", out, sizeof(out), ssm, 8, &n,
					  err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(mcfan_igmp_ssm_split("232.1.1.1-9@198.18.0.1", out, sizeof(out), ssm, 8, &n,
					  err, sizeof(err)), -E2BIG);
	CHECK_EQ_STR(err, "more than 8 (group, source) pairs");
	/* the same source twice for one group: refused, naming both (not merged) */
	CHECK_EQ_INT(mcfan_igmp_ssm_split("232.1.1.1@198.18.0.1+198.18.0.1", out, sizeof(out),
					  ssm, 8, &n, err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "duplicate source 198.18.0.1 in group 232.1.1.1: name each source once "
		     "(e.g. 232.1.1.1@198.18.0.1+198.18.0.3)");
	CHECK_EQ_INT(mcfan_igmp_ssm_split("232.1.1.1-2:5000@198.18.0.1+198.18.0.3+198.18.0.1",
					  out, sizeof(out), ssm, 8, &n, err, sizeof(err)),
		     -EINVAL);
	CHECK_EQ_STR(err, "duplicate source 198.18.0.1 in group 232.1.1.1-2:5000: name each "
		     "source once (e.g. 232.1.1.1@198.18.0.1+198.18.0.3)");
	CHECK_EQ_INT(mcfan_igmp_ssm_split("[ff3e::1]@[fe80::1]+[fe80::1]", out, sizeof(out), ssm,
					  8, &n, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "duplicate source [fe80::1] in group [ff3e::1]") != NULL,
	      "IPv6 duplicate source: %s", err);
	/* one group's sources in two items, as if items were sources: refused naming the '+'
	 * (before: "group 232.1.1.1 is listed twice" from the group list) */
	CHECK_EQ_INT(mcfan_igmp_ssm_split("232.1.1.1@198.18.0.1,232.1.1.1@198.18.0.2", out,
					  sizeof(out), ssm, 8, &n, err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "group 232.1.1.1 is given sources in two items ('232.1.1.1@198.18.0.2' "
		     "again): join its sources with '+' (e.g. 232.1.1.1@198.18.0.1+198.18.0.3)");
	CHECK_EQ_INT(mcfan_igmp_ssm_split("232.1.1.1-2:5000@198.18.0.1,232.1.1.2:5000@198.18.0.2",
					  out, sizeof(out), ssm, 8, &n, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "group 232.1.1.2:5000 is given sources in two items") != NULL,
	      "a range's group again: %s", err);
	/* the same source for two groups is no duplicate */
	CHECK_EQ_INT(mcfan_igmp_ssm_split("232.1.1.1@198.18.0.1,232.1.1.2@198.18.0.1", out,
					  sizeof(out), ssm, 8, &n, err, sizeof(err)), 0);
	CHECK_EQ_INT(n, 2);
}

/* 224.0.0.1, ff02::1 and the ff00::/ff01:: scopes are never reported; their neighbours are. */
static void
test_never_reported(void)
{
	static const struct {
		uint8_t proto;
		uint8_t addr[16];
		bool never;
	} cases[] = {
		{MCFAN_IGMP_PROTO_IGMP, {224, 0, 0, 1}, true},
		{MCFAN_IGMP_PROTO_IGMP, {224, 0, 0, 2}, false},
		{MCFAN_IGMP_PROTO_IGMP, {224, 0, 0, 22}, false},
		{MCFAN_IGMP_PROTO_IGMP, {239, 9, 9, 1}, false},
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x02, [15] = 0x01}, true},   /* all nodes */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x02, [15] = 0x02}, false},  /* all routers */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x01, [15] = 0x02}, true},   /* interface-local */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x10, [15] = 0x02}, true},   /* scope 0 */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x3e, [15] = 0x02}, false},  /* global SSM */
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(mcfan_igmp_never_reported(cases[i].proto, cases[i].addr) == cases[i].never,
		      "case %u: never reported should be %d", i, cases[i].never);
	CHECK(!mcfan_igmp_never_reported(MCFAN_IGMP_PROTO_MLD, NULL), "NULL is reported");
}

/* The SSM ranges (RFC 4607): 232.0.0.0/8 and ff3x::/96; their neighbours are not. */
static void
test_ssm_range(void)
{
	static const struct {
		uint8_t proto;
		uint8_t addr[16];
		bool ssm;
	} cases[] = {
		{MCFAN_IGMP_PROTO_IGMP, {232, 0, 0, 0}, true},
		{MCFAN_IGMP_PROTO_IGMP, {232, 255, 255, 255}, true},
		{MCFAN_IGMP_PROTO_IGMP, {231, 255, 255, 255}, false},
		{MCFAN_IGMP_PROTO_IGMP, {233, 0, 0, 1}, false},
		{MCFAN_IGMP_PROTO_IGMP, {239, 9, 9, 1}, false},
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x3e, [15] = 0x01}, true},   /* ff3e::1 */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x35, [12] = 0x80, [15] = 0x01}, true}, /* ff35::8000:1 */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x32, [15] = 0x01}, true},   /* ff32::1 */
		/* ff3e:0:0:0:0:1:: is outside the /96: unicast-prefix-based, not SSM */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x3e, [11] = 0x01, [15] = 0x01}, false},
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x3e, 0x00, 0x40, [15] = 0x01}, false},
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x1e, [15] = 0x01}, false},  /* ff1e::1 */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x15, [15] = 0x01}, false},  /* ff15::1 */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x05, [15] = 0x01}, false},  /* ff05::1 */
		{MCFAN_IGMP_PROTO_MLD, {0xff, 0x7e, [15] = 0x01}, false},  /* embedded RP */
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(mcfan_igmp_ssm_range(cases[i].proto, cases[i].addr) == cases[i].ssm,
		      "case %u: SSM range should be %d", i, cases[i].ssm);
	CHECK(!mcfan_igmp_ssm_range(MCFAN_IGMP_PROTO_IGMP, NULL), "NULL is not SSM");
}

/* Groups without a querier (RFC 3376 8.5 Other Querier Present Interval): none heard since
 * the groups came, or the querier gone quiet; its QRV and QQIC shorten the interval. */
static void
test_querier_silent(void)
{
	struct mcfan_igmp_host h;
	struct mcfan_igmp_msg q;

	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_IGMP, MCFAN_IGMP_MODE_AUTO, 8, 3), 0);
	CHECK_EQ_INT(mcfan_igmp_host_querier_silent_ms(&h, 0, 900000), 0); /* no group */
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp4, NULL, 0, 1000), 0);
	/* never a query: 2 x 125 s + 10 s / 2 from since_ms */
	CHECK_EQ_INT(mcfan_igmp_host_querier_silent_ms(&h, 1000, 1000 + 255000 - 1), 0);
	CHECK_EQ_INT(mcfan_igmp_host_querier_silent_ms(&h, 1000, 1000 + 255000), 255000);
	/* a v3 querier with QRV 2 and QQIC 1 s: 2 x 1 s + 5 s */
	q = query(MCFAN_IGMP_PROTO_IGMP, 3, NULL, 500);
	q.qrv = 2;
	q.qqi_s = 1;
	mcfan_igmp_host_query(&h, &q, 300000);
	CHECK_EQ_INT(mcfan_igmp_host_querier_silent_ms(&h, 1000, 300000 + 7000 - 1), 0);
	CHECK_EQ_INT(mcfan_igmp_host_querier_silent_ms(&h, 1000, 300000 + 7500), 7500);
	/* a query again: not silent; left: nothing to keep */
	mcfan_igmp_host_query(&h, &q, 310000);
	CHECK_EQ_INT(mcfan_igmp_host_querier_silent_ms(&h, 1000, 311000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_leave(&h, grp4, 312000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_querier_silent_ms(&h, 1000, 900000), 0);
	mcfan_igmp_host_free(&h);
	/* off sends nothing, so it warns of nothing */
	CHECK_EQ_INT(mcfan_igmp_host_init(&h, MCFAN_IGMP_PROTO_MLD, MCFAN_IGMP_MODE_OFF, 8, 3), 0);
	CHECK_EQ_INT(mcfan_igmp_host_join(&h, grp6, NULL, 0, 1000), 0);
	CHECK_EQ_INT(mcfan_igmp_host_querier_silent_ms(&h, 0, 900000), 0);
	mcfan_igmp_host_free(&h);
}

int
main(void)
{
	test_checksum();
	test_build_v2();
	test_build_v3();
	test_build_mld();
	test_parse_igmp();
	test_parse_mld();
	test_host_v3();
	test_host_compat();
	test_host_mld();
	test_host_suppress();
	test_host_sources();
	test_host_leave_all();
	test_ssm();
	test_ssm_check();
	test_never_reported();
	test_ssm_range();
	test_querier_silent();
	return unit_summary("igmp");
}
