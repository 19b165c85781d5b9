/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The unit tests' one frame builder: Ethernet II with VLAN tags, IPv4 (with options),
 * IPv6 and its extension headers, UDP and TCP, written byte by byte into a struct frame
 * (lengths and the IPv4 checksum filled in by the *_end() functions), and a few whole frames.
 * Used by test_classify.c and test_fanout.c; header-only, no EAL.
 */

#ifndef MCFAN_TEST_FRAME_H
#define MCFAN_TEST_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#define FRAME_MAX 4096 /* room for a 2,218-byte frame with long IPv6 headers (test_fanout) */

/* EtherTypes and TPIDs, IEEE 802 numbers registry. */
#define ET_IPV4 0x0800
#define ET_ARP 0x0806
#define ET_IPV6 0x86dd
#define ET_LLDP 0x88cc
#define TPID_8021Q 0x8100
#define TPID_8021AD 0x88a8
#define TPID_QINQ_OLD 0x9100
#define ETH_HDR_LEN 14
#define VLAN_TAG_LEN 4

/* IANA protocol numbers. */
#define PROTO_HOPOPTS 0
#define PROTO_ICMP 1
#define PROTO_IGMP 2
#define PROTO_TCP 6
#define PROTO_UDP 17
#define PROTO_ROUTING 43
#define PROTO_FRAGMENT 44
#define PROTO_AH 51
#define PROTO_ICMPV6 58
#define PROTO_NONE 59
#define PROTO_DSTOPTS 60

#define IPV4_HDR_LEN 20
#define IPV4_IHL_MIN 5
#define IPV4_IHL_MAX 15
#define IPV4_DF 0x4000
#define IPV4_MF 0x2000
#define IPV6_HDR_LEN 40
#define UDP_HDR_LEN 8
#define TCP_HDR_LEN 20
#define ETH_MIN_FRAME 60 /* without FCS */
#define FCS_LEN 4

#define ICMPV6_ECHO_REQUEST 128
#define ICMPV6_MLD_QUERY 130
#define ICMPV6_MLD_REPORT 131
#define ICMPV6_MLD_DONE 132
#define ICMPV6_MLDV2_REPORT 143
#define IGMPV2_REPORT 0x16

#define GROUP_PORT 3999
#define SRC_PORT 40000

struct frame {
	uint8_t b[FRAME_MAX];
	uint32_t len;
};

/* Layer 2 encapsulation: the TPIDs of the tags on the wire, outermost first. */
struct l2 {
	unsigned int n_tags;
	uint16_t tpid[3];
};

static const struct l2 L2_UNTAGGED = { 0, { 0 } };
static const struct l2 L2_DOT1Q = { 1, { TPID_8021Q } };
static const struct l2 L2_QINQ = { 2, { TPID_8021AD, TPID_8021Q } };

/* The usual encapsulation with n_tags tags: none, 802.1Q, or 802.1ad outside 802.1Q. */
static inline const struct l2 *
l2_tags(unsigned int n_tags)
{
	return n_tags == 0 ? &L2_UNTAGGED : n_tags == 1 ? &L2_DOT1Q : &L2_QINQ;
}

static const uint8_t V4_GROUP[4] = { 239, 9, 9, 1 };
static const uint8_t V4_UNICAST[4] = { 198, 18, 0, 2 };
static const uint8_t V4_BROADCAST[4] = { 255, 255, 255, 255 };
static const uint8_t V4_SRC[4] = { 198, 18, 0, 1 };
static const uint8_t V6_GROUP[16] = { 0xff, 0x3e, [15] = 0x01 };
static const uint8_t V6_MDNS[16] = { 0xff, 0x02, [15] = 0xfb };
static const uint8_t V6_ALL_NODES[16] = { 0xff, 0x02, [15] = 0x01 };
static const uint8_t V6_ALL_ROUTERS[16] = { 0xff, 0x02, [15] = 0x02 };
static const uint8_t V6_MLDV2_ROUTERS[16] = { 0xff, 0x02, [15] = 0x16 };
static const uint8_t V6_UNICAST[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 };
static const uint8_t V6_SRC[16] = { 0xfe, 0x80, [15] = 0x01 };

static inline void
put_u8(struct frame *f, uint8_t v)
{
	if (f->len < FRAME_MAX)
		f->b[f->len++] = v;
}

static inline void
put_be16(struct frame *f, uint16_t v)
{
	put_u8(f, (uint8_t)(v >> 8));
	put_u8(f, (uint8_t)v);
}

static inline void
put_be32(struct frame *f, uint32_t v)
{
	put_be16(f, (uint16_t)(v >> 16));
	put_be16(f, (uint16_t)v);
}

static inline void
put_bytes(struct frame *f, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		put_u8(f, p[i]);
}

/* Payload bytes that look like nothing in particular (never 0x08 0x00 pairs by accident). */
static inline void
put_payload(struct frame *f, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		put_u8(f, (uint8_t)(0x41 + i % 26));
}

static inline void
set_be16(struct frame *f, uint32_t off, uint16_t v)
{
	f->b[off] = (uint8_t)(v >> 8);
	f->b[off + 1] = (uint8_t)v;
}

static inline uint16_t
get_be16(const struct frame *f, uint32_t off)
{
	return (uint16_t)((f->b[off] << 8) | f->b[off + 1]);
}

/* Ethernet II header (multicast destination MAC) and VLAN tags; l3_type ends the chain. */
static inline void
l2_hdr(struct frame *f, const struct l2 *l2, uint16_t l3_type)
{
	static const uint8_t dst[6] = { 0x01, 0x00, 0x5e, 0x09, 0x09, 0x01 };
	static const uint8_t src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	unsigned int i;

	f->len = 0;
	put_bytes(f, dst, sizeof(dst));
	put_bytes(f, src, sizeof(src));
	put_be16(f, l2->n_tags > 0 ? l2->tpid[0] : l3_type);
	for (i = 0; i < l2->n_tags; i++) {
		put_be16(f, (uint16_t)(100 * (i + 1))); /* PCP 0, DEI 0, VID 100, 200, ... */
		put_be16(f, i + 1 < l2->n_tags ? l2->tpid[i + 1] : l3_type);
	}
}

static inline uint16_t
csum16(const uint8_t *p, uint32_t n)
{
	uint32_t sum = 0, i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)((p[i] << 8) | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)(p[n - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * IPv4 header with ihl 32-bit words (options: a router alert, then NOPs, RFC 791 / RFC 2113).
 * An ihl below 5 still writes the 20 fixed bytes. Returns the header's offset.
 */
static inline uint32_t
ipv4_begin(struct frame *f, uint8_t ihl, uint8_t proto, uint16_t frag, const uint8_t dst[4])
{
	uint32_t off = f->len, opt_len, i;

	put_u8(f, (uint8_t)(0x40 | (ihl & 0x0f)));
	put_u8(f, 0);          /* DSCP, ECN */
	put_be16(f, 0);        /* total length, set by ipv4_end() */
	put_be16(f, 0x1234);   /* identification */
	put_be16(f, frag);
	put_u8(f, 1);          /* TTL */
	put_u8(f, proto);
	put_be16(f, 0);        /* checksum, set by ipv4_end() */
	put_bytes(f, V4_SRC, 4);
	put_bytes(f, dst, 4);
	opt_len = ihl > IPV4_IHL_MIN ? (uint32_t)(ihl - IPV4_IHL_MIN) * 4 : 0;
	for (i = 0; i < opt_len; i++) {
		/* Router alert option 0x94 0x04 0x00 0x00 first; then 0x11 bytes, chosen so that
		 * a UDP header wrongly read at offset 20 would show port 0x1111, not GROUP_PORT. */
		static const uint8_t ra[4] = { 0x94, 0x04, 0x00, 0x00 };

		put_u8(f, i < sizeof(ra) ? ra[i] : 0x11);
	}
	return off;
}

static inline void
ipv4_end(struct frame *f, uint32_t off)
{
	uint32_t hlen = (uint32_t)(f->b[off] & 0x0f) * 4;

	if (hlen < IPV4_HDR_LEN)
		hlen = IPV4_HDR_LEN;
	set_be16(f, off + 2, (uint16_t)(f->len - off));
	set_be16(f, off + 10, 0);
	set_be16(f, off + 10, csum16(f->b + off, hlen));
}

static inline uint32_t
ipv6_begin(struct frame *f, uint8_t next, const uint8_t dst[16])
{
	uint32_t off = f->len;

	put_u8(f, 0x60);       /* version 6, traffic class 0 */
	put_u8(f, 0);
	put_be16(f, 0);        /* flow label */
	put_be16(f, 0);        /* payload length, set by ipv6_end() */
	put_u8(f, next);
	put_u8(f, 1);          /* hop limit */
	put_bytes(f, V6_SRC, 16);
	put_bytes(f, dst, 16);
	return off;
}

static inline void
ipv6_end(struct frame *f, uint32_t off)
{
	set_be16(f, off + 4, (uint16_t)(f->len - off - IPV6_HDR_LEN));
}

/* Hop-by-hop or destination options header of (units + 1) * 8 bytes, filled with PadN. */
static inline void
ipv6_opts(struct frame *f, uint8_t next, uint8_t units)
{
	uint32_t pad = (uint32_t)(units + 1) * 8 - 2, i;

	put_u8(f, next);
	put_u8(f, units);
	/* PadN option: type 1, length pad - 2 (fits in a byte for pad <= 257) */
	put_u8(f, 1);
	put_u8(f, (uint8_t)(pad - 2));
	for (i = 2; i < pad; i++)
		put_u8(f, 0);
}

/* Hop-by-hop header with a router alert option (RFC 2711), as MLD sends it: 8 bytes. */
static inline void
ipv6_hbh_router_alert(struct frame *f, uint8_t next)
{
	put_u8(f, next);
	put_u8(f, 0);
	put_u8(f, 0x05); /* router alert */
	put_u8(f, 0x02);
	put_be16(f, 0);  /* MLD */
	put_u8(f, 0x01); /* PadN, length 0 */
	put_u8(f, 0x00);
}

/* Routing header, RFC 8200 4.4, experimental type 253 with segments left 0: 8 bytes. */
static inline void
ipv6_routing(struct frame *f, uint8_t next)
{
	put_u8(f, next);
	put_u8(f, 0);
	put_u8(f, 253);
	put_u8(f, 0);
	put_be16(f, 0);
	put_be16(f, 0);
}

/* Fragment header, RFC 8200 4.5: offset in 8-byte units, M flag. */
static inline void
ipv6_frag(struct frame *f, uint8_t next, uint16_t offset_units, bool more)
{
	put_u8(f, next);
	put_u8(f, 0);
	put_be16(f, (uint16_t)((offset_units << 3) | (more ? 1 : 0)));
	put_be16(f, 0xbeef);
	put_be16(f, 0xcafe);
}

/* Authentication header, RFC 4302: 12-byte ICV, so payload length (3 + 3) - 2 = 4 -> 24 bytes. */
static inline void
ipv6_ah(struct frame *f, uint8_t next)
{
	uint32_t i;

	put_u8(f, next);
	put_u8(f, 4);
	put_be16(f, 0);
	put_be16(f, 0x0000);
	put_be16(f, 0x0100); /* SPI 256 */
	put_be16(f, 0);
	put_be16(f, 1);      /* sequence 1 */
	for (i = 0; i < 12; i++)
		put_u8(f, 0x5a);
}

static inline uint32_t
udp_begin(struct frame *f, uint16_t dport)
{
	uint32_t off = f->len;

	put_be16(f, SRC_PORT);
	put_be16(f, dport);
	put_be16(f, 0); /* length, set by udp_end() */
	put_be16(f, 0); /* checksum: not checked by the classifier */
	return off;
}

static inline void
udp_end(struct frame *f, uint32_t off)
{
	set_be16(f, off + 4, (uint16_t)(f->len - off));
}

static inline void
tcp_hdr(struct frame *f, uint16_t dport)
{
	put_be16(f, SRC_PORT);
	put_be16(f, dport);
	put_be16(f, 0);
	put_be16(f, 1);    /* sequence */
	put_be16(f, 0);
	put_be16(f, 0);    /* ack */
	put_u8(f, 0x50);   /* data offset 5 */
	put_u8(f, 0x02);   /* SYN */
	put_be16(f, 1024); /* window */
	put_be16(f, 0);
	put_be16(f, 0);
}

/* Whole frames. Each returns nothing; f holds the frame. */

static inline void
build_ipv4_udp(struct frame *f, const struct l2 *l2, const uint8_t dst[4], uint16_t dport,
	       uint32_t payload)
{
	uint32_t ip, udp;

	l2_hdr(f, l2, ET_IPV4);
	ip = ipv4_begin(f, IPV4_IHL_MIN, PROTO_UDP, 0, dst);
	udp = udp_begin(f, dport);
	put_payload(f, payload);
	udp_end(f, udp);
	ipv4_end(f, ip);
}

static inline void
build_ipv4_udp_ihl(struct frame *f, uint8_t ihl, uint16_t frag, uint32_t payload)
{
	uint32_t ip, udp;

	l2_hdr(f, &L2_UNTAGGED, ET_IPV4);
	ip = ipv4_begin(f, ihl, PROTO_UDP, frag, V4_GROUP);
	udp = udp_begin(f, GROUP_PORT);
	put_payload(f, payload);
	udp_end(f, udp);
	ipv4_end(f, ip);
}

static inline void
build_ipv6_udp(struct frame *f, const struct l2 *l2, const uint8_t dst[16], uint16_t dport,
	       uint32_t payload)
{
	uint32_t ip, udp;

	l2_hdr(f, l2, ET_IPV6);
	ip = ipv6_begin(f, PROTO_UDP, dst);
	udp = udp_begin(f, dport);
	put_payload(f, payload);
	udp_end(f, udp);
	ipv6_end(f, ip);
}

#endif /* MCFAN_TEST_FRAME_H */
