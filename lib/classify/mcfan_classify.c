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

/* Check a UDP header at data[off], inside an L3 payload that ends at l3_end (frame offset). */
static enum mcfan_drop
classify_udp(const uint8_t *data, uint32_t hdr_len, uint32_t off, uint32_t l3_end,
	     struct mcfan_flow_key *key)
{
	uint16_t udp_len;

	if (off + UDP_HDR_LEN > hdr_len || off + UDP_HDR_LEN > l3_end)
		return MCFAN_DROP_MALFORMED;
	udp_len = read_be16(data + off + 4);
	if (udp_len < UDP_HDR_LEN || udp_len > l3_end - off)
		return MCFAN_DROP_MALFORMED;
	key->udp_port = read_be16(data + off + 2);
	return MCFAN_DROP_NONE;
}

static enum mcfan_drop
classify_ipv4(const uint8_t *data, uint32_t hdr_len, uint32_t frame_len, uint32_t off,
	      struct mcfan_flow_key *key)
{
	const uint8_t *ip = data + off;
	uint32_t ihl_bytes, tot_len;
	uint16_t frag;

	if (off + IPV4_MIN_HDR_LEN > hdr_len)
		return MCFAN_DROP_MALFORMED;
	if ((ip[0] >> 4) != IPV4_VERSION || (ip[0] & 0x0f) < IPV4_MIN_IHL)
		return MCFAN_DROP_MALFORMED;
	ihl_bytes = (uint32_t)(ip[0] & 0x0f) * 4;
	if (off + ihl_bytes > hdr_len)
		return MCFAN_DROP_MALFORMED;
	tot_len = read_be16(ip + 2);
	/* A total length beyond the frame: truncated (e.g. reassembled by the kernel, cut at the
	 * frame size). Never read past the data. */
	if (tot_len < ihl_bytes || tot_len > frame_len - off)
		return MCFAN_DROP_MALFORMED;
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
	return classify_udp(data, hdr_len, off + ihl_bytes, off + tot_len, key);
}

static enum mcfan_drop
classify_ipv6(const uint8_t *data, uint32_t hdr_len, uint32_t frame_len, uint32_t off,
	      struct mcfan_flow_key *key)
{
	const uint8_t *ip = data + off;
	uint32_t l3_end, p, ext_len;
	uint16_t frag;
	uint8_t nh;
	unsigned int n_ext;

	if (off + IPV6_HDR_LEN > hdr_len)
		return MCFAN_DROP_MALFORMED;
	if ((ip[0] >> 4) != IPV6_VERSION)
		return MCFAN_DROP_MALFORMED;
	l3_end = off + IPV6_HDR_LEN + read_be16(ip + 4);
	if (l3_end > frame_len)
		return MCFAN_DROP_MALFORMED;
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
			return classify_udp(data, hdr_len, p, l3_end, key);
		case IPPROTO_NUM_ICMPV6:
			if (p + 1 > hdr_len || p + 1 > l3_end)
				return MCFAN_DROP_MALFORMED;
			switch (data[p]) {
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
			if (p + 2 > hdr_len || p + 2 > l3_end)
				return MCFAN_DROP_MALFORMED;
			/* RFC 8200 4.3: length in 8-octet units not counting the first 8;
			 * RFC 4302 2.2: AH length in 4-octet units minus 2. */
			if (nh == IPPROTO_NUM_AH)
				ext_len = ((uint32_t)data[p + 1] + 2) * 4;
			else
				ext_len = ((uint32_t)data[p + 1] + 1) * 8;
			if (p + ext_len > hdr_len || p + ext_len > l3_end)
				return MCFAN_DROP_MALFORMED;
			nh = data[p];
			p += ext_len;
			break;
		case IPPROTO_NUM_FRAGMENT:
			if (p + IPV6_FRAG_HDR_LEN > hdr_len || p + IPV6_FRAG_HDR_LEN > l3_end)
				return MCFAN_DROP_MALFORMED;
			frag = read_be16(data + p + 2);
			/* RFC 6946: offset 0 and M clear is an atomic fragment, a whole datagram. */
			if ((frag >> IPV6_FRAG_OFFSET_SHIFT) != 0 || (frag & IPV6_FRAG_M) != 0)
				return MCFAN_DROP_FRAGMENT;
			nh = data[p];
			p += IPV6_FRAG_HDR_LEN;
			break;
		default:
			return MCFAN_DROP_NOT_UDP;
		}
	}
	return MCFAN_DROP_MALFORMED;
}

static enum mcfan_drop
classify_hdr(const uint8_t *data, uint32_t hdr_len, uint32_t frame_len, bool vlan_stripped,
	     struct mcfan_flow_key *key)
{
	uint32_t off = ETHER_HDR_LEN;
	unsigned int tags = vlan_stripped ? 1 : 0;
	uint16_t type;

	if (hdr_len < ETHER_HDR_LEN)
		return MCFAN_DROP_MALFORMED;
	type = read_be16(data + 12);
	while (type == ETHER_TYPE_VLAN || type == ETHER_TYPE_QINQ || type == ETHER_TYPE_QINQ_OLD) {
		if (tags == MCFAN_MAX_VLAN_TAGS || off + VLAN_TAG_LEN > hdr_len)
			return MCFAN_DROP_MALFORMED;
		type = read_be16(data + off + 2);
		off += VLAN_TAG_LEN;
		tags++;
	}
	switch (type) {
	case ETHER_TYPE_IPV4:
		return classify_ipv4(data, hdr_len, frame_len, off, key);
	case ETHER_TYPE_IPV6:
		return classify_ipv6(data, hdr_len, frame_len, off, key);
	default:
		return MCFAN_DROP_NOT_MULTICAST;
	}
}

enum mcfan_drop
mcfan_classify(const uint8_t *data, uint32_t len, bool vlan_stripped, struct mcfan_flow_key *key)
{
	return classify_hdr(data, len, len, vlan_stripped, key);
}

enum mcfan_drop
mcfan_classify_multiseg(const struct rte_mbuf *m, bool vlan_stripped, struct mcfan_flow_key *key)
{
	uint8_t buf[MCFAN_CLASSIFY_HDR_MAX];
	uint32_t hdr_len = RTE_MIN(m->pkt_len, (uint32_t)MCFAN_CLASSIFY_HDR_MAX);
	const uint8_t *hdr;

	hdr = rte_pktmbuf_read(m, 0, hdr_len, buf);
	if (hdr == NULL)
		return MCFAN_DROP_MALFORMED;
	return classify_hdr(hdr, hdr_len, m->pkt_len, vlan_stripped, key);
}
