/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "mcfan_igmp.h"

/* EtherTypes (IEEE 802 numbers registry). */
#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_IPV6 0x86dd
#define ETH_TYPE_VLAN 0x8100
#define ETH_TYPE_QINQ 0x88a8
#define ETH_TYPE_QINQ_OLD 0x9100
#define ETH_HDR_LEN 14
#define VLAN_TAG_LEN 4
#define MAX_VLAN_TAGS 2

#define IGMP_IP_MTU 1500            /* RFC 894: the largest IP packet on Ethernet */
#define IPV4_HDR_LEN 20        /* RFC 791, IHL 5 */
#define IPV4_RA_LEN 4          /* RFC 2113: type 148, length 4, value 0 */
#define IPV4_OPT_RA 148
#define IPV4_TOS_CONTROL 0xc0  /* precedence 6, internetwork control (as Linux sends) */
#define IPV4_MF_OFFSET 0x3fff  /* RFC 791: MF flag and fragment offset */
#define IPPROTO_NUM_IGMP 2

#define IPV6_HDR_LEN 40
#define IPV6_HBH_LEN 8         /* next header, length 0, RA (4 bytes), PadN (2 bytes) */
#define IPV6_OPT_RA 5          /* RFC 2711 */
#define IPV6_OPT_PADN 1        /* RFC 8200 section 4.2 */
#define IPPROTO_NUM_HOPOPTS 0
#define IPPROTO_NUM_ICMPV6 58
#define IPPROTO_NUM_DSTOPTS 60
#define MAX_EXT_HDRS 8

/* IGMP message types (RFC 1112, 2236, 3376). */
#define IGMP_QUERY 0x11
#define IGMP_V1_REPORT 0x12
#define IGMP_V2_REPORT 0x16
#define IGMP_V2_LEAVE 0x17
#define IGMP_V3_REPORT 0x22
#define IGMP_HDR_LEN 8          /* v1/v2 message, v3 report header */
#define IGMP_V3_QUERY_LEN 12    /* v3 query without sources */
#define IGMP_V3_REC_LEN 8       /* record header: type, aux len, n sources, group */
#define IGMP_V1_MAX_RESP_MS 10000 /* RFC 2236 section 4: a v1 query means 10 s */
#define IGMP_TENTH_MS 100

/* MLD ICMPv6 types (RFC 2710, 3810). */
#define MLD_QUERY 130
#define MLD_V1_REPORT 131
#define MLD_V1_DONE 132
#define MLD_V2_REPORT 143
#define MLD_V1_LEN 24
#define MLD_V2_QUERY_LEN 28
#define MLD_V2_HDR_LEN 8
#define MLD_V2_REC_LEN 20

#define QRV_MASK 0x07
#define S_FLAG 0x08

static const char *const invalid_names[MCFAN_IGMP_INVALID_MAX] = {
	[MCFAN_IGMP_VALID] = "valid",
	[MCFAN_IGMP_MALFORMED] = "malformed",
	[MCFAN_IGMP_BAD_CHECKSUM] = "bad_checksum",
	[MCFAN_IGMP_WRONG_TTL] = "wrong_ttl",
	[MCFAN_IGMP_NOT_FOR_US] = "not_for_us",
};

const char *
mcfan_igmp_invalid_name(enum mcfan_igmp_invalid r)
{
	if ((unsigned int)r >= MCFAN_IGMP_INVALID_MAX)
		return "invalid";
	return invalid_names[r];
}

const char *
mcfan_igmp_send_name(enum mcfan_igmp_send_kind kind)
{
	switch (kind) {
	case MCFAN_IGMP_SEND_V1_REPORT: return "v1_report";
	case MCFAN_IGMP_SEND_V2_REPORT: return "v2_report";
	case MCFAN_IGMP_SEND_V2_LEAVE: return "v2_leave";
	case MCFAN_IGMP_SEND_V3_REPORT: return "v3_report";
	case MCFAN_IGMP_SEND_MLD1_REPORT: return "mld1_report";
	case MCFAN_IGMP_SEND_MLD1_DONE: return "mld1_done";
	case MCFAN_IGMP_SEND_MLD2_REPORT: return "mld2_report";
	}
	return "invalid";
}

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t
sum_add(const uint8_t *data, uint32_t len, uint32_t sum)
{
	uint64_t s = sum;
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += rd16(data + i);
	if (len & 1)
		s += (uint32_t)data[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

uint16_t
mcfan_igmp_cksum(const uint8_t *data, uint32_t len, uint32_t sum)
{
	return (uint16_t)~sum_add(data, len, sum);
}

/* The ICMPv6 pseudo-header's sum (RFC 8200 section 8.1). */
static uint32_t
pseudo6_sum(const uint8_t *src, const uint8_t *dst, uint32_t len)
{
	uint8_t tail[8] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
			    (uint8_t)len, 0, 0, 0, IPPROTO_NUM_ICMPV6 };
	uint32_t s;

	s = sum_add(src, 16, 0);
	s = sum_add(dst, 16, s);
	return sum_add(tail, sizeof(tail), s);
}

uint32_t
mcfan_igmp_v3_code(uint8_t code)
{
	if (code < 128)
		return code;
	return (uint32_t)((code & 0x0f) | 0x10) << (((code >> 4) & 0x07) + 3);
}

uint32_t
mcfan_mld_v2_code(uint16_t code)
{
	if (code < 32768)
		return code;
	return (uint32_t)((code & 0x0fff) | 0x1000) << (((code >> 12) & 0x07) + 3);
}

static const uint8_t all_hosts4[4] = { 224, 0, 0, 1 };      /* RFC 1112 */
static const uint8_t all_routers4[4] = { 224, 0, 0, 2 };    /* RFC 2236 leave */
static const uint8_t igmp3_routers[4] = { 224, 0, 0, 22 };  /* RFC 3376 4.2.14 */
static const uint8_t all_nodes6[16] = { 0xff, 0x02, [15] = 1 };     /* RFC 4291 */
static const uint8_t all_routers6[16] = { 0xff, 0x02, [15] = 2 };   /* RFC 2710 done */
static const uint8_t mld2_routers[16] = { 0xff, 0x02, [15] = 0x16 }; /* RFC 3810 5.2.14 */

static bool
is_zero(const uint8_t *a, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (a[i] != 0)
			return false;
	return true;
}

static enum mcfan_igmp_invalid
parse_igmp(const uint8_t *ip, uint32_t l3_len, struct mcfan_igmp_msg *msg)
{
	uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4, len, i;
	const uint8_t *g;

	if (ip[9] != IPPROTO_NUM_IGMP || (rd16(ip + 6) & IPV4_MF_OFFSET) != 0)
		return MCFAN_IGMP_MALFORMED;
	if (mcfan_igmp_cksum(ip, ihl, 0) != 0)
		return MCFAN_IGMP_BAD_CHECKSUM;
	if (ip[8] != 1)
		return MCFAN_IGMP_WRONG_TTL;
	g = ip + ihl;
	len = l3_len - ihl;
	if (len < IGMP_HDR_LEN)
		return MCFAN_IGMP_MALFORMED;
	if (mcfan_igmp_cksum(g, len, 0) != 0)
		return MCFAN_IGMP_BAD_CHECKSUM;
	msg->proto = MCFAN_IGMP_PROTO_IGMP;
	memcpy(msg->src, ip + 12, 4);
	memcpy(msg->dst, ip + 16, 4);
	memcpy(msg->group, g + 4, 4);
	switch (g[0]) {
	case IGMP_QUERY:
		break;
	case IGMP_V1_REPORT:
	case IGMP_V2_REPORT:
	case IGMP_V3_REPORT:
		msg->type = MCFAN_IGMP_MSG_REPORT;
		msg->version = g[0] == IGMP_V1_REPORT ? 1 : g[0] == IGMP_V2_REPORT ? 2 : 3;
		return MCFAN_IGMP_NOT_FOR_US;
	case IGMP_V2_LEAVE:
		msg->type = MCFAN_IGMP_MSG_LEAVE;
		msg->version = 2;
		return MCFAN_IGMP_NOT_FOR_US;
	default:
		return MCFAN_IGMP_MALFORMED;
	}
	msg->type = MCFAN_IGMP_MSG_QUERY;
	if (len == IGMP_HDR_LEN) {
		/* RFC 3376 7.1: an 8-byte query with Max Resp Code 0 is IGMPv1 */
		msg->version = g[1] == 0 ? 1 : 2;
		msg->max_resp_ms = g[1] == 0 ? IGMP_V1_MAX_RESP_MS : g[1] * IGMP_TENTH_MS;
	} else if (len >= IGMP_V3_QUERY_LEN) {
		msg->version = 3;
		msg->max_resp_ms = mcfan_igmp_v3_code(g[1]) * IGMP_TENTH_MS;
		msg->s_flag = (g[8] & S_FLAG) != 0;
		msg->qrv = g[8] & QRV_MASK;
		msg->qqi_s = mcfan_igmp_v3_code(g[9]);
		msg->n_src = rd16(g + 10);
		if (IGMP_V3_QUERY_LEN + 4u * msg->n_src > len)
			return MCFAN_IGMP_MALFORMED;
		for (i = 0; i < msg->n_src && i < MCFAN_IGMP_MAX_SOURCES; i++)
			memcpy(msg->sources[i], g + IGMP_V3_QUERY_LEN + 4 * i, 4);
		msg->n_src_kept = (uint16_t)i;
	} else {
		return MCFAN_IGMP_MALFORMED; /* RFC 3376 7.1: 9..11 bytes are ignored */
	}
	if (is_zero(msg->group, 4)) {
		if (msg->n_src != 0)
			return MCFAN_IGMP_MALFORMED;
		if (memcmp(msg->dst, all_hosts4, 4) != 0)
			return MCFAN_IGMP_NOT_FOR_US;
	} else {
		if ((msg->group[0] & 0xf0) != 0xe0)
			return MCFAN_IGMP_MALFORMED;
		if (memcmp(msg->dst, msg->group, 4) != 0 && memcmp(msg->dst, all_hosts4, 4) != 0)
			return MCFAN_IGMP_NOT_FOR_US;
	}
	return MCFAN_IGMP_VALID;
}

static enum mcfan_igmp_invalid
parse_mld(const uint8_t *ip, uint32_t l3_len, struct mcfan_igmp_msg *msg)
{
	uint32_t p = IPV6_HDR_LEN, len, i, n_ext;
	const uint8_t *m;
	uint8_t nh = ip[6];

	for (n_ext = 0; nh != IPPROTO_NUM_ICMPV6; n_ext++) {
		if (n_ext == MAX_EXT_HDRS ||
		    (nh != IPPROTO_NUM_HOPOPTS && nh != IPPROTO_NUM_DSTOPTS) || p + 2 > l3_len)
			return MCFAN_IGMP_MALFORMED;
		nh = ip[p];
		p += ((uint32_t)ip[p + 1] + 1) * 8;
		if (p > l3_len)
			return MCFAN_IGMP_MALFORMED;
	}
	if (ip[7] != 1)
		return MCFAN_IGMP_WRONG_TTL;
	m = ip + p;
	len = l3_len - p;
	if (len < 4)
		return MCFAN_IGMP_MALFORMED;
	if (mcfan_igmp_cksum(m, len, pseudo6_sum(ip + 8, ip + 24, len)) != 0)
		return MCFAN_IGMP_BAD_CHECKSUM;
	msg->proto = MCFAN_IGMP_PROTO_MLD;
	memcpy(msg->src, ip + 8, 16);
	memcpy(msg->dst, ip + 24, 16);
	switch (m[0]) {
	case MLD_QUERY:
		break;
	case MLD_V1_REPORT:
	case MLD_V2_REPORT:
	case MLD_V1_DONE:
		msg->type = m[0] == MLD_V1_DONE ? MCFAN_IGMP_MSG_LEAVE : MCFAN_IGMP_MSG_REPORT;
		msg->version = m[0] == MLD_V2_REPORT ? 2 : 1;
		if (m[0] != MLD_V2_REPORT && len >= MLD_V1_LEN)
			memcpy(msg->group, m + 8, 16);
		return MCFAN_IGMP_NOT_FOR_US;
	default:
		return MCFAN_IGMP_MALFORMED;
	}
	msg->type = MCFAN_IGMP_MSG_QUERY;
	if (len < MLD_V1_LEN)
		return MCFAN_IGMP_MALFORMED;
	memcpy(msg->group, m + 8, 16);
	if (len == MLD_V1_LEN) {
		msg->version = 1;
		msg->max_resp_ms = rd16(m + 4);
	} else if (len >= MLD_V2_QUERY_LEN) {
		msg->version = 2;
		msg->max_resp_ms = mcfan_mld_v2_code(rd16(m + 4));
		msg->s_flag = (m[24] & S_FLAG) != 0;
		msg->qrv = m[24] & QRV_MASK;
		msg->qqi_s = mcfan_igmp_v3_code(m[25]);
		msg->n_src = rd16(m + 26);
		if (MLD_V2_QUERY_LEN + 16u * msg->n_src > len)
			return MCFAN_IGMP_MALFORMED;
		for (i = 0; i < msg->n_src && i < MCFAN_IGMP_MAX_SOURCES; i++)
			memcpy(msg->sources[i], m + MLD_V2_QUERY_LEN + 16 * i, 16);
		msg->n_src_kept = (uint16_t)i;
	} else {
		return MCFAN_IGMP_MALFORMED; /* RFC 3810 8.1: 25..27 bytes are ignored */
	}
	if (is_zero(msg->group, 16)) {
		if (msg->n_src != 0)
			return MCFAN_IGMP_MALFORMED;
		if (memcmp(msg->dst, all_nodes6, 16) != 0)
			return MCFAN_IGMP_NOT_FOR_US;
	} else {
		if (msg->group[0] != 0xff)
			return MCFAN_IGMP_MALFORMED;
		if (memcmp(msg->dst, msg->group, 16) != 0 && memcmp(msg->dst, all_nodes6, 16) != 0)
			return MCFAN_IGMP_NOT_FOR_US;
	}
	/* RFC 3810 5.1.14: a query from a source that is not link-local is discarded */
	if (msg->src[0] != 0xfe || (msg->src[1] & 0xc0) != 0x80)
		return MCFAN_IGMP_NOT_FOR_US;
	return MCFAN_IGMP_VALID;
}

enum mcfan_igmp_invalid
mcfan_igmp_parse(const uint8_t *frame, uint32_t len, struct mcfan_igmp_msg *msg)
{
	uint32_t off = ETH_HDR_LEN, l3_len, ihl;
	unsigned int tags = 0;
	const uint8_t *ip;
	uint16_t type;

	memset(msg, 0, sizeof(*msg));
	msg->proto = MCFAN_IGMP_PROTO_IGMP;
	if (len < ETH_HDR_LEN)
		return MCFAN_IGMP_MALFORMED;
	type = rd16(frame + 12);
	while (type == ETH_TYPE_VLAN || type == ETH_TYPE_QINQ || type == ETH_TYPE_QINQ_OLD) {
		if (tags++ == MAX_VLAN_TAGS || off + VLAN_TAG_LEN > len)
			return MCFAN_IGMP_MALFORMED;
		type = rd16(frame + off + 2);
		off += VLAN_TAG_LEN;
	}
	ip = frame + off;
	len -= off;
	/* the protocol is known from here on, so that an invalid frame counts under it */
	msg->proto = type == ETH_TYPE_IPV6 ? MCFAN_IGMP_PROTO_MLD : MCFAN_IGMP_PROTO_IGMP;
	if (type == ETH_TYPE_IPV4) {
		if (len < IPV4_HDR_LEN || (ip[0] >> 4) != 4 || (ip[0] & 0x0f) < 5)
			return MCFAN_IGMP_MALFORMED;
		ihl = (uint32_t)(ip[0] & 0x0f) * 4;
		l3_len = rd16(ip + 2);
		if (l3_len < ihl || l3_len > len)
			return MCFAN_IGMP_MALFORMED;
		return parse_igmp(ip, l3_len, msg);
	}
	if (type == ETH_TYPE_IPV6) {
		if (len < IPV6_HDR_LEN || (ip[0] >> 4) != 6)
			return MCFAN_IGMP_MALFORMED;
		l3_len = IPV6_HDR_LEN + rd16(ip + 4);
		if (l3_len > len)
			return MCFAN_IGMP_MALFORMED;
		return parse_mld(ip, l3_len, msg);
	}
	return MCFAN_IGMP_MALFORMED;
}

/* Ethernet header to the multicast MAC of dst (RFC 1112 6.4, RFC 2464 7). */
static void
build_eth(uint8_t *buf, const uint8_t *src_mac, const uint8_t *dst, bool v6)
{
	if (v6) {
		buf[0] = 0x33;
		buf[1] = 0x33;
		memcpy(buf + 2, dst + 12, 4);
	} else {
		buf[0] = 0x01;
		buf[1] = 0x00;
		buf[2] = 0x5e;
		buf[3] = dst[1] & 0x7f;
		buf[4] = dst[2];
		buf[5] = dst[3];
	}
	memcpy(buf + 6, src_mac, 6);
	wr16(buf + 12, v6 ? ETH_TYPE_IPV6 : ETH_TYPE_IPV4);
}

/* IPv4 header with (ra) the Router Alert option; returns its length. */
static uint32_t
build_ipv4(uint8_t *ip, const uint8_t *src, const uint8_t *dst, uint32_t payload, bool ra)
{
	uint32_t hl = IPV4_HDR_LEN + (ra ? IPV4_RA_LEN : 0);

	memset(ip, 0, hl);
	ip[0] = (uint8_t)(0x40 | (hl / 4));
	ip[1] = IPV4_TOS_CONTROL;
	wr16(ip + 2, (uint16_t)(hl + payload));
	ip[8] = 1; /* TTL 1: RFC 1112 appendix I, RFC 2236 section 2, RFC 3376 section 4 */
	ip[9] = IPPROTO_NUM_IGMP;
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	if (ra) {
		ip[20] = IPV4_OPT_RA; /* RFC 2113: copied, class 0, number 20; length 4; value 0 */
		ip[21] = IPV4_RA_LEN;
	}
	wr16(ip + 10, mcfan_igmp_cksum(ip, hl, 0));
	return hl;
}

/* IPv6 header and the hop-by-hop header with Router Alert (MLD); returns their length. */
static uint32_t
build_ipv6(uint8_t *ip, const uint8_t *src, const uint8_t *dst, uint32_t payload)
{
	memset(ip, 0, IPV6_HDR_LEN + IPV6_HBH_LEN);
	ip[0] = 0x60;
	wr16(ip + 4, (uint16_t)(IPV6_HBH_LEN + payload));
	ip[6] = IPPROTO_NUM_HOPOPTS;
	ip[7] = 1; /* hop limit 1: RFC 2710 section 3, RFC 3810 section 5 */
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	ip[40] = IPPROTO_NUM_ICMPV6;
	ip[41] = 0;                /* 8 bytes in all */
	ip[42] = IPV6_OPT_RA;      /* RFC 2711: type 5, length 2, value 0 = MLD */
	ip[43] = 2;
	ip[46] = IPV6_OPT_PADN;    /* PadN of 2 bytes (no data) to the 8-byte boundary */
	ip[47] = 0;
	return IPV6_HDR_LEN + IPV6_HBH_LEN;
}

/* Records of send that fit in `avail` bytes (each rec_len + src_len per source). */
static unsigned int
records_fit(const struct mcfan_igmp_send *send, uint32_t avail, uint32_t rec_len,
	    uint32_t src_len, uint32_t *bytes)
{
	unsigned int i;
	uint32_t b = 0, r;

	for (i = 0; i < send->n_recs; i++) {
		r = rec_len + src_len * send->recs[i].n_src;
		if (b + r > avail)
			break;
		b += r;
	}
	*bytes = b;
	return i;
}

static void
write_records(uint8_t *p, const struct mcfan_igmp_send *send, unsigned int n, uint32_t alen)
{
	const struct mcfan_igmp_record *rec;
	unsigned int i, s;

	for (i = 0; i < n; i++) {
		rec = &send->recs[i];
		p[0] = rec->type;
		p[1] = 0; /* aux data length */
		wr16(p + 2, rec->n_src);
		memcpy(p + 4, rec->group, alen);
		p += 4 + alen;
		for (s = 0; s < rec->n_src; s++, p += alen)
			memcpy(p, rec->sources[s], alen);
	}
}

int
mcfan_igmp_build(const struct mcfan_igmp_send *send, const uint8_t *src_mac,
		 const uint8_t *src_ip, uint8_t *buf, uint32_t room, unsigned int *n_done)
{
	uint32_t hl, plen, rbytes = 0, need;
	const uint8_t *dst;
	unsigned int i, n = 0;
	bool v6, ra = true;
	uint8_t *m;
	uint8_t type;

	if (n_done != NULL)
		*n_done = 0;
	switch (send->kind) {
	case MCFAN_IGMP_SEND_V1_REPORT:
		type = IGMP_V1_REPORT;
		ra = false; /* RFC 1112 predates the option */
		break;
	case MCFAN_IGMP_SEND_V2_REPORT:
		type = IGMP_V2_REPORT;
		break;
	case MCFAN_IGMP_SEND_V2_LEAVE:
		type = IGMP_V2_LEAVE;
		break;
	case MCFAN_IGMP_SEND_V3_REPORT:
		type = IGMP_V3_REPORT;
		break;
	case MCFAN_IGMP_SEND_MLD1_REPORT:
		type = MLD_V1_REPORT;
		break;
	case MCFAN_IGMP_SEND_MLD1_DONE:
		type = MLD_V1_DONE;
		break;
	case MCFAN_IGMP_SEND_MLD2_REPORT:
		type = MLD_V2_REPORT;
		break;
	default:
		return -EINVAL;
	}
	v6 = send->kind >= MCFAN_IGMP_SEND_MLD1_REPORT;
	if (type == IGMP_V3_REPORT || type == MLD_V2_REPORT) {
		if (send->n_recs == 0 || send->n_recs > MCFAN_IGMP_SEND_RECS)
			return -EINVAL;
		for (i = 0; i < send->n_recs; i++)
			if (send->recs[i].n_src > MCFAN_IGMP_MAX_SOURCES)
				return -EINVAL;
		if (v6) {
			n = records_fit(send, IGMP_IP_MTU - IPV6_HDR_LEN - IPV6_HBH_LEN - MLD_V2_HDR_LEN,
					MLD_V2_REC_LEN, 16, &rbytes);
			plen = MLD_V2_HDR_LEN + rbytes;
			dst = mld2_routers;
		} else {
			n = records_fit(send, IGMP_IP_MTU - IPV4_HDR_LEN - IPV4_RA_LEN - IGMP_HDR_LEN,
					IGMP_V3_REC_LEN, 4, &rbytes);
			plen = IGMP_HDR_LEN + rbytes;
			dst = igmp3_routers;
		}
		if (n == 0)
			return -ENOSPC;
	} else if (v6) {
		plen = MLD_V1_LEN;
		dst = type == MLD_V1_DONE ? all_routers6 : send->group;
	} else {
		plen = IGMP_HDR_LEN;
		dst = type == IGMP_V2_LEAVE ? all_routers4 : send->group;
	}
	hl = v6 ? IPV6_HDR_LEN + IPV6_HBH_LEN : IPV4_HDR_LEN + (ra ? IPV4_RA_LEN : 0);
	need = ETH_HDR_LEN + hl + plen;
	if (need > room)
		return -ENOSPC;
	build_eth(buf, src_mac, dst, v6);
	if (v6)
		build_ipv6(buf + ETH_HDR_LEN, src_ip, dst, plen);
	else
		build_ipv4(buf + ETH_HDR_LEN, src_ip, dst, plen, ra);
	m = buf + ETH_HDR_LEN + hl;
	memset(m, 0, plen);
	m[0] = type;
	if (type == IGMP_V3_REPORT || type == MLD_V2_REPORT) {
		wr16(m + 6, (uint16_t)n);
		write_records(m + 8, send, n, v6 ? 16 : 4);
	} else if (v6) {
		memcpy(m + 8, send->group, 16);
	} else {
		memcpy(m + 4, send->group, 4);
	}
	if (v6)
		wr16(m + 2, mcfan_igmp_cksum(m, plen, pseudo6_sum(src_ip, dst, plen)));
	else
		wr16(m + 2, mcfan_igmp_cksum(m, plen, 0));
	if (n_done != NULL)
		*n_done = n;
	return (int)need;
}

char *
mcfan_igmp_addr_format(uint8_t proto, const uint8_t *addr, char *buf)
{
	if (inet_ntop(proto == MCFAN_IGMP_PROTO_MLD ? AF_INET6 : AF_INET, addr, buf,
		      MCFAN_IGMP_ADDR_STR) == NULL)
		snprintf(buf, MCFAN_IGMP_ADDR_STR, "?");
	return buf;
}

void
mcfan_igmp_link_local(const uint8_t *mac, uint8_t *out)
{
	memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	out[8] = mac[0] ^ 0x02; /* the universal/local bit inverted (RFC 4291 appendix A) */
	out[9] = mac[1];
	out[10] = mac[2];
	out[11] = 0xff;
	out[12] = 0xfe;
	out[13] = mac[3];
	out[14] = mac[4];
	out[15] = mac[5];
}

bool
mcfan_igmp_ssm_range(uint8_t proto, const uint8_t *group)
{
	static const uint8_t zero[10];

	if (group == NULL)
		return false;
	if (proto == MCFAN_IGMP_PROTO_IGMP)
		return group[0] == 232;
	/* ff3X:0:0:0:0:0::/96 (RFC 4607): flags 3 (P and T), 64-bit prefix 0, plen 0 */
	return group[0] == 0xff && (group[1] & 0xf0) == 0x30 &&
	       memcmp(group + 2, zero, sizeof(zero)) == 0;
}

bool
mcfan_igmp_never_reported(uint8_t proto, const uint8_t *group)
{
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 0x01};
	unsigned int scope;

	if (group == NULL)
		return false;
	if (proto == MCFAN_IGMP_PROTO_IGMP)
		return group[0] == 224 && group[1] == 0 && group[2] == 0 && group[3] == 1;
	if (group[0] != 0xff)
		return false;
	scope = group[1] & 0x0f;
	return scope == 0 || scope == 1 || memcmp(group, all_nodes, sizeof(all_nodes)) == 0;
}
