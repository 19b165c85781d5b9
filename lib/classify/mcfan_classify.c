/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "mcfan_classify.h"

/* EtherType values, IEEE 802 numbers registry. */
#define ETHER_TYPE_IPV4 0x0800
#define ETHER_TYPE_IPV6 0x86dd
#define ETHER_TYPE_VLAN 0x8100     /* IEEE 802.1Q customer tag */
#define ETHER_TYPE_QINQ 0x88a8     /* IEEE 802.1ad service tag */
#define ETHER_TYPE_QINQ_OLD 0x9100 /* pre-standard service tag, still sent by switches */

#define ETHER_HDR_LEN 14  /* destination, source, EtherType */
#define VLAN_TAG_LEN 4    /* TCI + inner EtherType */

#define IPV4_MIN_HDR_LEN 20     /* RFC 791: IHL of 5 words */
#define IPV4_MIN_IHL 5
#define IPV4_VERSION 4
#define IPV4_MF 0x2000          /* RFC 791: more fragments flag */
#define IPV4_OFFSET_MASK 0x1fff /* RFC 791: fragment offset, 8-byte units */
#define IPV4_MCAST_MASK 0xf0    /* RFC 5771: 224.0.0.0/4 */
#define IPV4_MCAST_PREFIX 0xe0

#define IPV6_HDR_LEN 40         /* RFC 8200 fixed header */
#define IPV6_VERSION 6
#define IPV6_MCAST_PREFIX 0xff  /* RFC 4291: ff00::/8 */
#define IPV6_FRAG_HDR_LEN 8     /* RFC 8200 section 4.5 */
#define IPV6_FRAG_OFFSET_SHIFT 3
#define IPV6_FRAG_M 0x0001

/* IANA protocol numbers. */
#define IPPROTO_NUM_HOPOPTS 0
#define IPPROTO_NUM_IGMP 2
#define IPPROTO_NUM_UDP 17
#define IPPROTO_NUM_ROUTING 43
#define IPPROTO_NUM_FRAGMENT 44
#define IPPROTO_NUM_AH 51
#define IPPROTO_NUM_ICMPV6 58
#define IPPROTO_NUM_DSTOPTS 60

/* ICMPv6 types of MLD: RFC 2710 (130 query, 131 report, 132 done), RFC 3810 (143 v2 report). */
#define ICMPV6_MLD_QUERY 130
#define ICMPV6_MLD_REPORT 131
#define ICMPV6_MLD_DONE 132
#define ICMPV6_MLDV2_REPORT 143

#define UDP_HDR_LEN 8 /* RFC 768 */

static const char *const drop_names[MCFAN_DROP_MAX] = {
	[MCFAN_DROP_NONE] = "delivered",
	[MCFAN_DROP_NOT_MULTICAST] = "not_multicast",
	[MCFAN_DROP_NOT_UDP] = "not_udp",
	[MCFAN_DROP_MALFORMED] = "malformed",
	[MCFAN_DROP_FRAGMENT] = "fragment",
	[MCFAN_DROP_UNKNOWN_GROUP] = "unknown_group",
	[MCFAN_DROP_RING_FULL] = "ring_full",
	[MCFAN_DROP_CONTROL] = "control",
	[MCFAN_DROP_TRUNCATED] = "truncated",
	[MCFAN_DROP_CTL_RING_FULL] = "ctl_ring_full",
	[MCFAN_DROP_QUIT_DRAINED] = "quit_drained",
};

const char *
mcfan_drop_name(enum mcfan_drop reason)
{
	if ((unsigned int)reason >= MCFAN_DROP_MAX)
		return "invalid";
	return drop_names[reason];
}

static inline uint16_t
read_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* Largest header read in one piece: the IPv6 fixed header. */
#define VIEW_READ_MAX IPV6_HDR_LEN

/*
 * The bytes of one frame. A contiguous frame is data[0 .. frame_len) with m NULL; a
 * multi-segment mbuf has its first segment at data[0 .. data_len) and the rest is read
 * through rte_pktmbuf_read(), so a header anywhere in the frame is found the same way.
 */
struct frame_view {
	const uint8_t *data;       /* first byte of the frame */
	uint32_t data_len;         /* bytes readable at data */
	uint32_t frame_len;        /* bytes in the whole frame */
	const struct rte_mbuf *m;  /* the chain for bytes past data_len, or NULL */
};

/* len bytes at frame offset off (len <= VIEW_READ_MAX), or NULL if the frame ends first. */
static inline const uint8_t *
view_read(const struct frame_view *v, uint32_t off, uint32_t len, uint8_t *buf)
{
	if (off <= v->data_len && len <= v->data_len - off)
		return v->data + off;
	if (v->m == NULL || off > v->frame_len || len > v->frame_len - off)
		return NULL;
	return rte_pktmbuf_read(v->m, off, len, buf);
}

/* True if the frame holds the bytes [off, off + len). */
static inline bool
view_has(const struct frame_view *v, uint32_t off, uint32_t len)
{
	return off <= v->frame_len && len <= v->frame_len - off;
}

/* Check a UDP header at frame offset off, inside an L3 payload that ends at l3_end. */
static enum mcfan_drop
classify_udp(const struct frame_view *v, uint32_t off, uint32_t l3_end,
	     struct mcfan_flow_key *key)
{
	uint8_t buf[UDP_HDR_LEN];
	const uint8_t *udp;
	uint16_t udp_len;

	if (off > l3_end || UDP_HDR_LEN > l3_end - off)
		return MCFAN_DROP_MALFORMED;
	udp = view_read(v, off, UDP_HDR_LEN, buf);
	if (udp == NULL)
		return MCFAN_DROP_MALFORMED;
	udp_len = read_be16(udp + 4);
	if (udp_len < UDP_HDR_LEN || udp_len > l3_end - off)
		return MCFAN_DROP_MALFORMED;
	key->udp_port = read_be16(udp + 2);
	return MCFAN_DROP_NONE;
}

static enum mcfan_drop
classify_ipv4(const struct frame_view *v, uint32_t off, struct mcfan_flow_key *key)
{
	uint8_t buf[IPV4_MIN_HDR_LEN];
	const uint8_t *ip;
	uint32_t ihl_bytes, tot_len;
	uint16_t frag;

	ip = view_read(v, off, IPV4_MIN_HDR_LEN, buf);
	if (ip == NULL)
		return MCFAN_DROP_MALFORMED;
	if ((ip[0] >> 4) != IPV4_VERSION || (ip[0] & 0x0f) < IPV4_MIN_IHL)
		return MCFAN_DROP_MALFORMED;
	ihl_bytes = (uint32_t)(ip[0] & 0x0f) * 4;
	if (!view_has(v, off, ihl_bytes))
		return MCFAN_DROP_MALFORMED;
	tot_len = read_be16(ip + 2);
	if (tot_len < ihl_bytes)
		return MCFAN_DROP_MALFORMED;
	/* A total length beyond the frame: the frame was cut (af_packet cuts what does not fit
	 * its frame size). Never read past the data. */
	if (tot_len > v->frame_len - off)
		return MCFAN_DROP_TRUNCATED;
	if ((ip[16] & IPV4_MCAST_MASK) != IPV4_MCAST_PREFIX)
		return MCFAN_DROP_NOT_MULTICAST;
	if (ip[9] == IPPROTO_NUM_IGMP)
		return MCFAN_DROP_CONTROL;
	frag = read_be16(ip + 6);
	if ((frag & (IPV4_MF | IPV4_OFFSET_MASK)) != 0)
		return MCFAN_DROP_FRAGMENT;
	if (ip[9] != IPPROTO_NUM_UDP)
		return MCFAN_DROP_NOT_UDP;

	memset(key, 0, sizeof(*key));
	key->family = MCFAN_FAMILY_IPV4;
	memcpy(key->addr, ip + 16, 4);
	return classify_udp(v, off + ihl_bytes, off + tot_len, key);
}

static enum mcfan_drop
classify_ipv6(const struct frame_view *v, uint32_t off, struct mcfan_flow_key *key)
{
	uint8_t buf[IPV6_HDR_LEN];
	const uint8_t *ip, *h;
	uint32_t l3_end, p, ext_len;
	uint16_t frag;
	uint8_t nh;
	unsigned int n_ext;

	ip = view_read(v, off, IPV6_HDR_LEN, buf);
	if (ip == NULL)
		return MCFAN_DROP_MALFORMED;
	if ((ip[0] >> 4) != IPV6_VERSION)
		return MCFAN_DROP_MALFORMED;
	l3_end = off + IPV6_HDR_LEN + read_be16(ip + 4);
	if (l3_end > v->frame_len)
		return MCFAN_DROP_TRUNCATED;
	if (ip[24] != IPV6_MCAST_PREFIX)
		return MCFAN_DROP_NOT_MULTICAST;

	memset(key, 0, sizeof(*key));
	key->family = MCFAN_FAMILY_IPV6;
	memcpy(key->addr, ip + 24, 16);

	nh = ip[6];
	p = off + IPV6_HDR_LEN;
	for (n_ext = 0; n_ext <= MCFAN_MAX_IPV6_EXT_HDRS; n_ext++) {
		switch (nh) {
		case IPPROTO_NUM_UDP:
			return classify_udp(v, p, l3_end, key);
		case IPPROTO_NUM_ICMPV6:
			if (p + 1 > l3_end || (h = view_read(v, p, 1, buf)) == NULL)
				return MCFAN_DROP_MALFORMED;
			switch (h[0]) {
			case ICMPV6_MLD_QUERY:
			case ICMPV6_MLD_REPORT:
			case ICMPV6_MLD_DONE:
			case ICMPV6_MLDV2_REPORT:
				return MCFAN_DROP_CONTROL;
			default:
				return MCFAN_DROP_NOT_UDP;
			}
		case IPPROTO_NUM_HOPOPTS:
		case IPPROTO_NUM_ROUTING:
		case IPPROTO_NUM_DSTOPTS:
		case IPPROTO_NUM_AH:
			if (p + 2 > l3_end || (h = view_read(v, p, 2, buf)) == NULL)
				return MCFAN_DROP_MALFORMED;
			/* RFC 8200 4.3: length in 8-octet units not counting the first 8;
			 * RFC 4302 2.2: AH length in 4-octet units minus 2. */
			if (nh == IPPROTO_NUM_AH)
				ext_len = ((uint32_t)h[1] + 2) * 4;
			else
				ext_len = ((uint32_t)h[1] + 1) * 8;
			if (p + ext_len > l3_end)
				return MCFAN_DROP_MALFORMED;
			nh = h[0];
			p += ext_len;
			break;
		case IPPROTO_NUM_FRAGMENT:
			if (p + IPV6_FRAG_HDR_LEN > l3_end ||
			    (h = view_read(v, p, IPV6_FRAG_HDR_LEN, buf)) == NULL)
				return MCFAN_DROP_MALFORMED;
			frag = read_be16(h + 2);
			/* RFC 6946: offset 0 and M clear is an atomic fragment, a whole datagram. */
			if ((frag >> IPV6_FRAG_OFFSET_SHIFT) != 0 || (frag & IPV6_FRAG_M) != 0)
				return MCFAN_DROP_FRAGMENT;
			nh = h[0];
			p += IPV6_FRAG_HDR_LEN;
			break;
		default:
			return MCFAN_DROP_NOT_UDP;
		}
	}
	return MCFAN_DROP_MALFORMED;
}

static enum mcfan_drop
classify_view(const struct frame_view *v, bool vlan_stripped, struct mcfan_flow_key *key)
{
	uint32_t off = ETHER_HDR_LEN;
	unsigned int tags = vlan_stripped ? 1 : 0;
	uint8_t buf[VLAN_TAG_LEN];
	const uint8_t *h;
	uint16_t type;

	/* The Ethernet header is in the first segment of any chain the PMDs build; read it
	 * through the view all the same. */
	h = view_read(v, 12, 2, buf);
	if (h == NULL)
		return MCFAN_DROP_MALFORMED;
	type = read_be16(h);
	while (type == ETHER_TYPE_VLAN || type == ETHER_TYPE_QINQ || type == ETHER_TYPE_QINQ_OLD) {
		if (tags == MCFAN_MAX_VLAN_TAGS)
			return MCFAN_DROP_MALFORMED;
		h = view_read(v, off, VLAN_TAG_LEN, buf);
		if (h == NULL)
			return MCFAN_DROP_MALFORMED;
		type = read_be16(h + 2);
		off += VLAN_TAG_LEN;
		tags++;
	}
	switch (type) {
	case ETHER_TYPE_IPV4:
		return classify_ipv4(v, off, key);
	case ETHER_TYPE_IPV6:
		return classify_ipv6(v, off, key);
	default:
		return MCFAN_DROP_NOT_MULTICAST;
	}
}

enum mcfan_drop
mcfan_classify(const uint8_t *data, uint32_t len, bool vlan_stripped, struct mcfan_flow_key *key)
{
	const struct frame_view v = { .data = data, .data_len = len, .frame_len = len };

	return classify_view(&v, vlan_stripped, key);
}

enum mcfan_drop
mcfan_classify_multiseg(const struct rte_mbuf *m, bool vlan_stripped, struct mcfan_flow_key *key)
{
	const struct frame_view v = {
		.data = rte_pktmbuf_mtod(m, const uint8_t *),
		.data_len = RTE_MIN((uint32_t)m->data_len, m->pkt_len),
		.frame_len = m->pkt_len,
		.m = m,
	};

	return classify_view(&v, vlan_stripped, key);
}
