/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Unit tests of the frame classifier, mcfan_classify(). No EAL: frames are
 * built byte by byte in plain buffers. Each classification is run on a copy
 * of the frame that ends exactly at an inaccessible page, so a read past the
 * bytes given crashes the test instead of passing silently.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mcfan_classify.h"
#include "frame.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

/* ---- classification helpers ---- */

static uint8_t *guard_end; /* first byte of an inaccessible page, or NULL */
static uint8_t plain_buf[FRAME_MAX];

static void
guard_init(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *p;

	if (page < FRAME_MAX)
		return;
	p = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	if (p == MAP_FAILED)
		return;
	if (mprotect(p + page, (size_t)page, PROT_NONE) != 0)
		return;
	guard_end = p + page;
}

/* Classify the first len bytes of a frame, placed so that byte len is unreadable. */
static enum mcfan_drop
classify_n(const struct frame *f, uint32_t len, bool stripped, struct mcfan_flow_key *key)
{
	uint8_t *data = guard_end != NULL ? guard_end - len : plain_buf;

	memcpy(data, f->b, len);
	memset(key, 0xa5, sizeof(*key)); /* poison: the classifier must set every byte it reports */
	return mcfan_classify(data, len, stripped, key);
}

static void
expect_drop_n(const char *what, const struct frame *f, uint32_t len, bool stripped,
	      enum mcfan_drop exp)
{
	struct mcfan_flow_key key;
	enum mcfan_drop r = classify_n(f, len, stripped, &key);

	CHECK(r == exp, "%s (len %u%s): got %s, expected %s", what, len,
	      stripped ? ", vlan stripped" : "", mcfan_drop_name(r), mcfan_drop_name(exp));
}

static void
expect_drop(const char *what, const struct frame *f, enum mcfan_drop exp)
{
	expect_drop_n(what, f, f->len, false, exp);
}

static void
make_key(struct mcfan_flow_key *k, uint8_t family, const uint8_t *addr, uint16_t port)
{
	memset(k, 0, sizeof(*k));
	k->family = family;
	k->udp_port = port;
	memcpy(k->addr, addr, family == MCFAN_FAMILY_IPV4 ? 4 : 16);
}

static void
expect_key_n(const char *what, const struct frame *f, uint32_t len, bool stripped,
	     uint8_t family, const uint8_t *addr, uint16_t port)
{
	struct mcfan_flow_key key, exp;
	enum mcfan_drop r = classify_n(f, len, stripped, &key);

	make_key(&exp, family, addr, port);
	CHECK(r == MCFAN_DROP_NONE, "%s (len %u%s): got %s, expected delivered", what, len,
	      stripped ? ", vlan stripped" : "", mcfan_drop_name(r));
	if (r != MCFAN_DROP_NONE)
		return;
	CHECK(key.family == family, "%s: family %u, expected %u", what, key.family, family);
	CHECK(key.pad == 0, "%s: pad %u, expected 0", what, key.pad);
	CHECK(key.udp_port == port, "%s: udp_port %u, expected %u", what, key.udp_port, port);
	CHECK(memcmp(key.addr, exp.addr, sizeof(key.addr)) == 0, "%s: address bytes differ",
	      what);
	CHECK(memcmp(&key, &exp, sizeof(key)) == 0, "%s: key differs as bytes", what);
}

static void
expect_v4(const char *what, const struct frame *f, const uint8_t addr[4], uint16_t port)
{
	expect_key_n(what, f, f->len, false, MCFAN_FAMILY_IPV4, addr, port);
}

static void
expect_v6(const char *what, const struct frame *f, const uint8_t addr[16], uint16_t port)
{
	expect_key_n(what, f, f->len, false, MCFAN_FAMILY_IPV6, addr, port);
}

/*
 * Where the IP header of f ends (the IPv4 IHL or the IPv6 fixed header after the Ethernet
 * header and any VLAN tags), or UINT32_MAX for a frame that is not IP.
 */
static uint32_t
ip_hdr_end(const struct frame *f)
{
	uint32_t off = ETH_HDR_LEN;
	uint16_t type = get_be16(f, 12);

	while ((type == TPID_8021Q || type == TPID_8021AD || type == TPID_QINQ_OLD) &&
	       off + VLAN_TAG_LEN <= f->len) {
		type = get_be16(f, off + 2);
		off += VLAN_TAG_LEN;
	}
	if (type == ET_IPV4 && off < f->len)
		return off + (uint32_t)(f->b[off] & 0x0f) * 4;
	if (type == ET_IPV6)
		return off + IPV6_HDR_LEN;
	return UINT32_MAX;
}

/*
 * Classify every prefix of f, lengths 0 .. f->len - 1. A prefix shorter than min_ok must be
 * malformed if it cuts the Ethernet, VLAN or IP header, and truncated if the IP header is
 * whole (its length then says more than the frame holds); a prefix of at least min_ok bytes
 * must get the same answer (and key) as the whole frame. For an IP frame min_ok is the end
 * of the IP datagram: the classifier requires the IPv4 total length / IPv6 payload length
 * to lie inside the bytes it is given, so a cut anywhere before that end (inside the MACs,
 * the EtherType, a VLAN tag, the IP header, an extension header, the UDP header or the
 * payload) is dropped, and only bytes after the datagram (Ethernet padding, a kept FCS) can
 * go without changing the answer.
 */
static void
truncation_sweep(const char *what, const struct frame *f, uint32_t min_ok, bool stripped)
{
	struct mcfan_flow_key full_key, key;
	enum mcfan_drop full, r, cut;
	uint32_t len, hdr_end = ip_hdr_end(f);

	full = classify_n(f, f->len, stripped, &full_key);
	for (len = 0; len < f->len; len++) {
		r = classify_n(f, len, stripped, &key);
		if (len < min_ok) {
			cut = len >= hdr_end ? MCFAN_DROP_TRUNCATED : MCFAN_DROP_MALFORMED;
			CHECK(r == cut, "%s cut to %u of %u bytes: got %s, expected %s", what, len,
			      f->len, mcfan_drop_name(r), mcfan_drop_name(cut));
		} else {
			CHECK(r == full, "%s cut to %u of %u bytes: got %s, expected %s", what, len,
			      f->len, mcfan_drop_name(r), mcfan_drop_name(full));
			if (r == MCFAN_DROP_NONE && full == MCFAN_DROP_NONE)
				CHECK(memcmp(&key, &full_key, sizeof(key)) == 0,
				      "%s cut to %u bytes: key differs", what, len);
		}
	}
}

/* ---- cases ---- */

static void
test_drop_names(void)
{
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_NONE), "delivered");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_NOT_MULTICAST), "not_multicast");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_NOT_UDP), "not_udp");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_MALFORMED), "malformed");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_FRAGMENT), "fragment");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_UNKNOWN_GROUP), "unknown_group");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_RING_FULL), "ring_full");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_CONTROL), "control");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_TRUNCATED), "truncated");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_CTL_RING_FULL), "ctl_ring_full");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_MAX), "invalid");
	CHECK_EQ_STR(mcfan_drop_name((enum mcfan_drop)(MCFAN_DROP_MAX + 1)), "invalid");
	CHECK_EQ_STR(mcfan_drop_name((enum mcfan_drop)-1), "invalid");
	CHECK_EQ_STR(mcfan_drop_name(MCFAN_DROP_QUIT_DRAINED), "quit_drained");
	CHECK_EQ_INT(MCFAN_DROP_MAX, 11);
}

static void
test_ipv4_udp(void)
{
	static const uint8_t lo[4] = { 224, 0, 0, 0 };
	static const uint8_t hi[4] = { 239, 255, 255, 255 };
	static const uint8_t mdns[4] = { 224, 0, 0, 251 };
	struct frame f;

	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 18);
	CHECK_EQ_INT(f.len, ETH_MIN_FRAME);
	expect_v4("ipv4 udp", &f, V4_GROUP, GROUP_PORT);

	build_ipv4_udp(&f, &L2_UNTAGGED, lo, 1, 100);
	expect_v4("ipv4 udp to 224.0.0.0 port 1", &f, lo, 1);
	build_ipv4_udp(&f, &L2_UNTAGGED, hi, 65535, 100);
	expect_v4("ipv4 udp to 239.255.255.255 port 65535", &f, hi, 65535);
	build_ipv4_udp(&f, &L2_UNTAGGED, mdns, 5353, 100);
	expect_v4("ipv4 udp to 224.0.0.251", &f, mdns, 5353);
	/* Port 0 is a legal destination port on the wire; the key reports it as is. */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, 0, 10);
	expect_v4("ipv4 udp to port 0", &f, V4_GROUP, 0);
	/* Empty UDP payload: length 8. */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 0);
	expect_v4("ipv4 udp empty payload", &f, V4_GROUP, GROUP_PORT);
	/* Largest Ethernet frame and a jumbo frame. */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 1500 - 28);
	CHECK_EQ_INT(f.len, 1514);
	expect_v4("ipv4 udp 1514 bytes", &f, V4_GROUP, GROUP_PORT);
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, FRAME_MAX - 42);
	CHECK_EQ_INT(f.len, FRAME_MAX);
	expect_v4("ipv4 udp 2048 bytes", &f, V4_GROUP, GROUP_PORT);
	/* DF set, no fragmentation: deliverable. */
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, IPV4_DF, 30);
	expect_v4("ipv4 udp DF", &f, V4_GROUP, GROUP_PORT);
}

static void
test_ipv4_not_multicast(void)
{
	static const uint8_t below[4] = { 223, 255, 255, 255 };
	static const uint8_t class_e[4] = { 240, 0, 0, 1 };
	struct frame f;

	build_ipv4_udp(&f, &L2_UNTAGGED, V4_UNICAST, GROUP_PORT, 18);
	expect_drop("ipv4 unicast udp", &f, MCFAN_DROP_NOT_MULTICAST);
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_BROADCAST, GROUP_PORT, 18);
	expect_drop("ipv4 broadcast udp", &f, MCFAN_DROP_NOT_MULTICAST);
	build_ipv4_udp(&f, &L2_UNTAGGED, below, GROUP_PORT, 18);
	expect_drop("ipv4 udp to 223.255.255.255", &f, MCFAN_DROP_NOT_MULTICAST);
	build_ipv4_udp(&f, &L2_UNTAGGED, class_e, GROUP_PORT, 18);
	expect_drop("ipv4 udp to 240.0.0.1", &f, MCFAN_DROP_NOT_MULTICAST);
	build_ipv4_udp(&f, &L2_DOT1Q, V4_UNICAST, GROUP_PORT, 18);
	expect_drop("ipv4 unicast udp, 802.1Q", &f, MCFAN_DROP_NOT_MULTICAST);
}

static void
test_ipv4_not_udp(void)
{
	struct frame f;
	uint32_t ip;

	l2_hdr(&f, &L2_UNTAGGED, ET_IPV4);
	ip = ipv4_begin(&f, IPV4_IHL_MIN, PROTO_TCP, 0, V4_GROUP);
	tcp_hdr(&f, GROUP_PORT);
	put_payload(&f, 6);
	ipv4_end(&f, ip);
	expect_drop("ipv4 multicast tcp", &f, MCFAN_DROP_NOT_UDP);

	l2_hdr(&f, &L2_UNTAGGED, ET_IPV4);
	ip = ipv4_begin(&f, IPV4_IHL_MIN, PROTO_ICMP, 0, V4_GROUP);
	put_u8(&f, 8); /* echo request */
	put_u8(&f, 0);
	put_be16(&f, 0);
	put_payload(&f, 22);
	ipv4_end(&f, ip);
	expect_drop("ipv4 multicast icmp echo", &f, MCFAN_DROP_NOT_UDP);

	/* Unicast TCP: the destination decides first. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV4);
	ip = ipv4_begin(&f, IPV4_IHL_MIN, PROTO_TCP, 0, V4_UNICAST);
	tcp_hdr(&f, 80);
	put_payload(&f, 6);
	ipv4_end(&f, ip);
	expect_drop("ipv4 unicast tcp", &f, MCFAN_DROP_NOT_MULTICAST);
}

static void
build_igmp(struct frame *f, const struct l2 *l2, uint8_t ihl, const uint8_t dst[4])
{
	uint32_t ip;

	l2_hdr(f, l2, ET_IPV4);
	ip = ipv4_begin(f, ihl, PROTO_IGMP, 0, dst);
	put_u8(f, IGMPV2_REPORT);
	put_u8(f, 0);
	put_be16(f, 0);
	put_bytes(f, dst, 4);
	ipv4_end(f, ip);
}

static void
test_igmp(void)
{
	struct frame f;

	/* IGMPv2 report, RFC 2236, with the router alert option (IHL 6), padded to 60 bytes. */
	build_igmp(&f, &L2_UNTAGGED, IPV4_IHL_MIN + 1, V4_GROUP);
	while (f.len < ETH_MIN_FRAME)
		put_u8(&f, 0);
	expect_drop("igmp report with router alert", &f, MCFAN_DROP_CONTROL);
	build_igmp(&f, &L2_UNTAGGED, IPV4_IHL_MIN, V4_GROUP);
	expect_drop("igmp report, ihl 5", &f, MCFAN_DROP_CONTROL);
	build_igmp(&f, &L2_QINQ, IPV4_IHL_MIN + 1, V4_GROUP);
	expect_drop("igmp report, qinq", &f, MCFAN_DROP_CONTROL);
	/* A unicast IGMP query is not multicast: the destination is checked first. */
	build_igmp(&f, &L2_UNTAGGED, IPV4_IHL_MIN + 1, V4_UNICAST);
	expect_drop("igmp to a unicast address", &f, MCFAN_DROP_NOT_MULTICAST);
	/* Truncated IGMP (IP total length beyond the frame) is truncated, not control. */
	build_igmp(&f, &L2_UNTAGGED, IPV4_IHL_MIN + 1, V4_GROUP);
	expect_drop_n("igmp cut by one byte", &f, f.len - 1, false, MCFAN_DROP_TRUNCATED);
}

static void
test_ipv4_ihl(void)
{
	struct frame f;
	uint8_t ihl;
	char what[64];

	for (ihl = 0; ihl < IPV4_IHL_MIN; ihl++) {
		build_ipv4_udp_ihl(&f, ihl, 0, 30);
		/*
		 * Make the bytes a parser without the IHL check would take as the UDP length
		 * (at IP offset 4 * ihl + 4) a plausible 8 or 17, so such a parser would deliver:
		 * identification (IHL 0), TTL + protocol (IHL 1), source address (IHL 2), UDP
		 * source port (IHL 4). IHL 3 would read the group address: nothing to tune.
		 */
		set_be16(&f, ETH_HDR_LEN + 4, UDP_HDR_LEN);
		f.b[ETH_HDR_LEN + 8] = 0;
		set_be16(&f, ETH_HDR_LEN + 12, UDP_HDR_LEN);
		set_be16(&f, ETH_HDR_LEN + IPV4_HDR_LEN, UDP_HDR_LEN);
		ipv4_end(&f, ETH_HDR_LEN);
		snprintf(what, sizeof(what), "ipv4 ihl %u", ihl);
		expect_drop(what, &f, MCFAN_DROP_MALFORMED);
	}
	for (ihl = IPV4_IHL_MIN; ihl <= IPV4_IHL_MAX; ihl++) {
		/* Options are 0x11 bytes: reading UDP at offset 20 would give port 0x1111. */
		build_ipv4_udp_ihl(&f, ihl, 0, 30);
		snprintf(what, sizeof(what), "ipv4 ihl %u with options", ihl);
		expect_v4(what, &f, V4_GROUP, GROUP_PORT);
	}
	/* IHL 15 (60-byte header) whose options run past the end of the frame. */
	build_ipv4_udp_ihl(&f, IPV4_IHL_MAX, 0, 0);
	expect_drop_n("ipv4 ihl 15, frame ends inside the options", &f, ETH_HDR_LEN + 40, false,
		      MCFAN_DROP_MALFORMED);
	/* IHL 15 with a total length of exactly 60: no room for the UDP header. */
	build_ipv4_udp_ihl(&f, IPV4_IHL_MAX, 0, 0);
	set_be16(&f, ETH_HDR_LEN + 2, 60);
	expect_drop("ipv4 ihl 15, total length 60, no udp header", &f, MCFAN_DROP_MALFORMED);
}

static void
test_ipv4_version(void)
{
	struct frame f;

	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 18);
	f.b[ETH_HDR_LEN] = 0x65; /* version 6, IHL 5, under EtherType IPv4 */
	expect_drop("ipv4 ethertype, version 6", &f, MCFAN_DROP_MALFORMED);
	f.b[ETH_HDR_LEN] = 0x05; /* version 0 */
	expect_drop("ipv4 ethertype, version 0", &f, MCFAN_DROP_MALFORMED);
	f.b[ETH_HDR_LEN] = 0xf5;
	expect_drop("ipv4 ethertype, version 15", &f, MCFAN_DROP_MALFORMED);
}

static void
test_ipv4_total_length(void)
{
	struct frame f;
	uint32_t ip = ETH_HDR_LEN;
	uint16_t tot;

	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 100);
	tot = get_be16(&f, ip + 2);
	CHECK_EQ_INT(tot, 128);
	/* Total length beyond the frame by one byte, and by a lot (af_packet's reassembled
	 * datagram cut at the frame size: 65535 claimed). */
	set_be16(&f, ip + 2, (uint16_t)(tot + 1));
	expect_drop("ipv4 total length one beyond the frame", &f, MCFAN_DROP_TRUNCATED);
	set_be16(&f, ip + 2, 65535);
	expect_drop("ipv4 total length 65535 in a short frame", &f, MCFAN_DROP_TRUNCATED);
	/* Total length below the header length. */
	set_be16(&f, ip + 2, 19);
	expect_drop("ipv4 total length 19", &f, MCFAN_DROP_MALFORMED);
	set_be16(&f, ip + 2, 0);
	expect_drop("ipv4 total length 0", &f, MCFAN_DROP_MALFORMED);
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN + 1, 0, 10);
	set_be16(&f, ip + 2, 20); /* IHL 6 = 24 bytes of header */
	expect_drop("ipv4 ihl 6, total length 20", &f, MCFAN_DROP_MALFORMED);
	/* Total length covers the IP header but not a whole UDP header. */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 100);
	set_be16(&f, ip + 2, IPV4_HDR_LEN + UDP_HDR_LEN - 1);
	expect_drop("ipv4 total length 27 (udp header cut)", &f, MCFAN_DROP_MALFORMED);
	set_be16(&f, ip + 2, IPV4_HDR_LEN);
	expect_drop("ipv4 total length 20 (no udp header)", &f, MCFAN_DROP_MALFORMED);
	/* Total length shorter than the frame, UDP length consistent with it: the rest is
	 * trailer, the datagram is deliverable. */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 100);
	set_be16(&f, ip + 2, IPV4_HDR_LEN + UDP_HDR_LEN + 50);
	set_be16(&f, ip + IPV4_HDR_LEN + 4, UDP_HDR_LEN + 50);
	expect_v4("ipv4 shorter than the frame", &f, V4_GROUP, GROUP_PORT);
}

static void
test_udp_length(void)
{
	struct frame f;
	uint32_t udp = ETH_HDR_LEN + IPV4_HDR_LEN;
	uint32_t udp6 = ETH_HDR_LEN + IPV6_HDR_LEN;
	uint16_t ulen;

	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 100);
	ulen = get_be16(&f, udp + 4);
	CHECK_EQ_INT(ulen, 108);
	set_be16(&f, udp + 4, (uint16_t)(ulen + 1));
	expect_drop("udp length one beyond the ip payload", &f, MCFAN_DROP_MALFORMED);
	set_be16(&f, udp + 4, 65535);
	expect_drop("udp length 65535", &f, MCFAN_DROP_MALFORMED);
	set_be16(&f, udp + 4, UDP_HDR_LEN - 1);
	expect_drop("udp length 7", &f, MCFAN_DROP_MALFORMED);
	set_be16(&f, udp + 4, 0);
	expect_drop("udp length 0", &f, MCFAN_DROP_MALFORMED);
	/*
	 * A UDP length shorter than the IP payload is accepted: the contract's "UDP length
	 * inconsistent" is a length below 8 or beyond the IP payload; bytes after the UDP
	 * datagram inside the IP payload are ignored, as Linux's UDP input does (it trims).
	 */
	set_be16(&f, udp + 4, UDP_HDR_LEN);
	expect_v4("udp length 8 inside a longer ip payload", &f, V4_GROUP, GROUP_PORT);

	build_ipv6_udp(&f, &L2_UNTAGGED, V6_GROUP, 5000, 100);
	ulen = get_be16(&f, udp6 + 4);
	set_be16(&f, udp6 + 4, (uint16_t)(ulen + 1));
	expect_drop("ipv6 udp length one beyond the payload", &f, MCFAN_DROP_MALFORMED);
	set_be16(&f, udp6 + 4, 0); /* 0 is only valid in a jumbogram (RFC 2675) */
	expect_drop("ipv6 udp length 0", &f, MCFAN_DROP_MALFORMED);
	set_be16(&f, udp6 + 4, 4);
	expect_drop("ipv6 udp length 4", &f, MCFAN_DROP_MALFORMED);
}

static void
test_ipv4_fragments(void)
{
	struct frame f;

	/* First fragment: offset 0, MF set (it does carry the UDP header). */
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, IPV4_MF, 48);
	expect_drop("ipv4 first fragment (MF)", &f, MCFAN_DROP_FRAGMENT);
	/* Middle fragment: offset 7 (56 bytes), MF set; its payload is no UDP header. */
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, IPV4_MF | 7, 48);
	expect_drop("ipv4 middle fragment", &f, MCFAN_DROP_FRAGMENT);
	/* Last fragment: offset != 0, MF clear. */
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, 7, 48);
	expect_drop("ipv4 last fragment", &f, MCFAN_DROP_FRAGMENT);
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, IPV4_DF | 1, 48);
	expect_drop("ipv4 fragment offset 1 with DF", &f, MCFAN_DROP_FRAGMENT);
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, 0x1fff, 48);
	expect_drop("ipv4 fragment, largest offset", &f, MCFAN_DROP_FRAGMENT);
	/* A non-first fragment whose "UDP length" bytes are nonsense: still a fragment, the
	 * classifier must not read its payload as a UDP header. */
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, 185, 48);
	set_be16(&f, ETH_HDR_LEN + IPV4_HDR_LEN + 4, 3);
	expect_drop("ipv4 non-first fragment with garbage payload", &f, MCFAN_DROP_FRAGMENT);
	/* Reserved flag bit alone is not a fragment. */
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, 0x8000, 48);
	expect_v4("ipv4 reserved flag bit", &f, V4_GROUP, GROUP_PORT);
	/* A fragment of a TCP datagram to a group: fragment (checked before the protocol). */
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, 7, 48);
	f.b[ETH_HDR_LEN + 9] = PROTO_TCP;
	expect_drop("ipv4 tcp fragment", &f, MCFAN_DROP_FRAGMENT);
	/* A fragment to a unicast address: not multicast (checked first). */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_UNICAST, GROUP_PORT, 48);
	set_be16(&f, ETH_HDR_LEN + 6, IPV4_MF);
	expect_drop("ipv4 unicast fragment", &f, MCFAN_DROP_NOT_MULTICAST);
}

static void
test_ipv4_padding(void)
{
	struct frame f;
	uint32_t end;

	/* A 2-byte UDP payload: IPv4 datagram of 30 bytes, frame padded to the 60-byte minimum. */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 2);
	end = f.len;
	CHECK_EQ_INT(end, ETH_HDR_LEN + 30);
	while (f.len < ETH_MIN_FRAME)
		put_u8(&f, 0);
	expect_v4("ipv4 udp with ethernet padding", &f, V4_GROUP, GROUP_PORT);
	/* And with a 4-byte FCS kept by the driver after the padding. */
	put_be16(&f, 0xdead);
	put_be16(&f, 0xbeef);
	expect_v4("ipv4 udp with padding and fcs", &f, V4_GROUP, GROUP_PORT);
	truncation_sweep("padded ipv4 udp", &f, end, false);

	/* Same on an 802.1Q frame (minimum 64 with the tag, padded accordingly). */
	build_ipv4_udp(&f, &L2_DOT1Q, V4_GROUP, GROUP_PORT, 0);
	end = f.len;
	while (f.len < ETH_MIN_FRAME + VLAN_TAG_LEN)
		put_u8(&f, 0);
	expect_v4("802.1Q ipv4 udp with padding", &f, V4_GROUP, GROUP_PORT);
	truncation_sweep("padded 802.1Q ipv4 udp", &f, end, false);
}

static void
test_vlan(void)
{
	static const uint16_t tpids[] = { TPID_8021Q, TPID_8021AD, TPID_QINQ_OLD };
	struct frame f, stripped;
	struct l2 l2;
	struct mcfan_flow_key k_full, k_stripped;
	enum mcfan_drop r_full, r_stripped;
	unsigned int i, j;
	char what[96];

	for (i = 0; i < RTE_DIM(tpids); i++) {
		l2 = (struct l2){ 1, { tpids[i] } };
		build_ipv4_udp(&f, &l2, V4_GROUP, GROUP_PORT, 40);
		snprintf(what, sizeof(what), "ipv4 udp, one tag 0x%04x", tpids[i]);
		expect_v4(what, &f, V4_GROUP, GROUP_PORT);
		build_ipv6_udp(&f, &l2, V6_GROUP, 5000, 40);
		snprintf(what, sizeof(what), "ipv6 udp, one tag 0x%04x", tpids[i]);
		expect_v6(what, &f, V6_GROUP, 5000);
		for (j = 0; j < RTE_DIM(tpids); j++) {
			l2 = (struct l2){ 2, { tpids[i], tpids[j] } };
			build_ipv4_udp(&f, &l2, V4_GROUP, GROUP_PORT, 40);
			snprintf(what, sizeof(what), "ipv4 udp, tags 0x%04x 0x%04x", tpids[i],
				 tpids[j]);
			expect_v4(what, &f, V4_GROUP, GROUP_PORT);
			/* A third tag of any kind is one too many. */
			l2 = (struct l2){ 3, { tpids[i], tpids[j], TPID_8021Q } };
			build_ipv4_udp(&f, &l2, V4_GROUP, GROUP_PORT, 40);
			snprintf(what, sizeof(what), "ipv4 udp, three tags 0x%04x 0x%04x 0x8100",
				 tpids[i], tpids[j]);
			expect_drop(what, &f, MCFAN_DROP_MALFORMED);
		}
	}

	/* QinQ IPv6, and QinQ with non-multicast and non-IP inner EtherTypes. */
	build_ipv6_udp(&f, &L2_QINQ, V6_GROUP, 5000, 40);
	expect_v6("qinq ipv6 udp", &f, V6_GROUP, 5000);
	build_ipv4_udp(&f, &L2_QINQ, V4_UNICAST, GROUP_PORT, 40);
	expect_drop("qinq ipv4 unicast", &f, MCFAN_DROP_NOT_MULTICAST);
	l2_hdr(&f, &L2_QINQ, ET_ARP);
	put_payload(&f, 28);
	expect_drop("qinq arp", &f, MCFAN_DROP_NOT_MULTICAST);

	/*
	 * vlan_stripped: the driver removed the outer tag of a QinQ frame. The frame that is
	 * left has one tag; it must classify exactly as the two-tag wire frame does. And a
	 * stripped frame with two tags left had three on the wire: malformed.
	 */
	for (i = 0; i < RTE_DIM(tpids); i++) {
		l2 = (struct l2){ 2, { TPID_8021AD, tpids[i] } };
		build_ipv4_udp(&f, &l2, V4_GROUP, GROUP_PORT, 40);
		l2 = (struct l2){ 1, { tpids[i] } };
		build_ipv4_udp(&stripped, &l2, V4_GROUP, GROUP_PORT, 40);
		r_full = classify_n(&f, f.len, false, &k_full);
		r_stripped = classify_n(&stripped, stripped.len, true, &k_stripped);
		CHECK(r_full == MCFAN_DROP_NONE && r_stripped == MCFAN_DROP_NONE,
		      "qinq inner 0x%04x: full %s, stripped %s", tpids[i], mcfan_drop_name(r_full),
		      mcfan_drop_name(r_stripped));
		CHECK(memcmp(&k_full, &k_stripped, sizeof(k_full)) == 0,
		      "qinq inner 0x%04x: stripped key differs from the full frame's", tpids[i]);
		expect_key_n("stripped qinq, one tag left", &stripped, stripped.len, true,
			     MCFAN_FAMILY_IPV4, V4_GROUP, GROUP_PORT);

		l2 = (struct l2){ 2, { TPID_8021AD, tpids[i] } };
		build_ipv4_udp(&stripped, &l2, V4_GROUP, GROUP_PORT, 40);
		expect_drop_n("stripped, two tags left (three on the wire)", &stripped,
			      stripped.len, true, MCFAN_DROP_MALFORMED);
		l2 = (struct l2){ 3, { TPID_8021AD, tpids[i], TPID_8021Q } };
		build_ipv4_udp(&f, &l2, V4_GROUP, GROUP_PORT, 40);
		expect_drop_n("three tags, not stripped", &f, f.len, false, MCFAN_DROP_MALFORMED);
	}
	/* The same comparison for IPv6 and for a drop reason. */
	build_ipv6_udp(&f, &L2_QINQ, V6_GROUP, 5000, 40);
	build_ipv6_udp(&stripped, &L2_DOT1Q, V6_GROUP, 5000, 40);
	r_full = classify_n(&f, f.len, false, &k_full);
	r_stripped = classify_n(&stripped, stripped.len, true, &k_stripped);
	CHECK(r_full == MCFAN_DROP_NONE && r_stripped == MCFAN_DROP_NONE &&
	      memcmp(&k_full, &k_stripped, sizeof(k_full)) == 0,
	      "qinq ipv6: stripped and full frames differ");
	build_ipv4_udp(&f, &L2_QINQ, V4_UNICAST, GROUP_PORT, 40);
	build_ipv4_udp(&stripped, &L2_DOT1Q, V4_UNICAST, GROUP_PORT, 40);
	expect_drop_n("qinq unicast, full", &f, f.len, false, MCFAN_DROP_NOT_MULTICAST);
	expect_drop_n("qinq unicast, stripped", &stripped, stripped.len, true,
		      MCFAN_DROP_NOT_MULTICAST);
	/* One tag on the wire, stripped by the driver: an untagged frame with the flag. */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 40);
	expect_key_n("802.1Q stripped, untagged in memory", &f, f.len, true, MCFAN_FAMILY_IPV4,
		     V4_GROUP, GROUP_PORT);
	build_ipv6_udp(&f, &L2_UNTAGGED, V6_GROUP, 5000, 40);
	expect_key_n("802.1Q stripped ipv6, untagged in memory", &f, f.len, true,
		     MCFAN_FAMILY_IPV6, V6_GROUP, 5000);
	/* A frame cut inside the single remaining tag. */
	build_ipv4_udp(&f, &L2_DOT1Q, V4_GROUP, GROUP_PORT, 40);
	expect_drop_n("802.1Q cut inside the tag", &f, ETH_HDR_LEN + 2, false,
		      MCFAN_DROP_MALFORMED);
}

static void
test_non_ip(void)
{
	struct frame f;
	uint32_t len;

	/* ARP request: EtherType 0x0806, 28-byte body, padded to 60. */
	l2_hdr(&f, &L2_UNTAGGED, ET_ARP);
	put_be16(&f, 1);      /* Ethernet */
	put_be16(&f, ET_IPV4);
	put_u8(&f, 6);
	put_u8(&f, 4);
	put_be16(&f, 1);      /* request */
	put_payload(&f, 20);
	while (f.len < ETH_MIN_FRAME)
		put_u8(&f, 0);
	expect_drop("arp", &f, MCFAN_DROP_NOT_MULTICAST);
	/* Any prefix that still holds the EtherType is not IP: not_multicast; shorter is
	 * malformed. */
	truncation_sweep("arp", &f, ETH_HDR_LEN, false);
	for (len = 0; len < ETH_HDR_LEN; len++)
		expect_drop_n("arp cut before the end of the ethertype", &f, len, false,
			      MCFAN_DROP_MALFORMED);

	l2_hdr(&f, &L2_DOT1Q, ET_LLDP);
	put_payload(&f, 46);
	expect_drop("802.1Q lldp", &f, MCFAN_DROP_NOT_MULTICAST);
	/* IEEE 802.3 frame: a length, not an EtherType. */
	l2_hdr(&f, &L2_UNTAGGED, 46);
	put_payload(&f, 46);
	expect_drop("802.3 length field", &f, MCFAN_DROP_NOT_MULTICAST);

	/* Nothing at all. */
	{
		struct mcfan_flow_key key;

		CHECK(mcfan_classify(NULL, 0, false, &key) == MCFAN_DROP_MALFORMED,
		      "empty frame (NULL, 0) is not malformed");
		CHECK(mcfan_classify(NULL, 0, true, &key) == MCFAN_DROP_MALFORMED,
		      "empty stripped frame (NULL, 0) is not malformed");
	}
}

static void
test_ipv6_udp(void)
{
	struct frame f;

	build_ipv6_udp(&f, &L2_UNTAGGED, V6_GROUP, 5000, 40);
	expect_v6("ipv6 udp ff3e::1", &f, V6_GROUP, 5000);
	build_ipv6_udp(&f, &L2_UNTAGGED, V6_MDNS, 5353, 40);
	expect_v6("ipv6 udp ff02::fb", &f, V6_MDNS, 5353);
	build_ipv6_udp(&f, &L2_UNTAGGED, V6_GROUP, GROUP_PORT, 0);
	expect_v6("ipv6 udp empty payload", &f, V6_GROUP, GROUP_PORT);
	build_ipv6_udp(&f, &L2_UNTAGGED, V6_UNICAST, 5000, 40);
	expect_drop("ipv6 unicast udp", &f, MCFAN_DROP_NOT_MULTICAST);
	/* fe.. is not multicast even though it starts with 0xf. */
	{
		static const uint8_t ula[16] = { 0xfe, 0xff, [15] = 1 };

		build_ipv6_udp(&f, &L2_UNTAGGED, ula, 5000, 40);
		expect_drop("ipv6 udp to fe ff::1", &f, MCFAN_DROP_NOT_MULTICAST);
	}
	/* Payload length shorter than the frame (trailing bytes): deliverable. */
	build_ipv6_udp(&f, &L2_UNTAGGED, V6_GROUP, 5000, 40);
	put_be16(&f, 0xdead);
	put_be16(&f, 0xbeef);
	expect_v6("ipv6 udp with a 4-byte trailer", &f, V6_GROUP, 5000);
}

static void
test_ipv6_malformed(void)
{
	struct frame f;
	uint32_t ip = ETH_HDR_LEN;
	uint16_t plen;

	build_ipv6_udp(&f, &L2_UNTAGGED, V6_GROUP, 5000, 40);
	plen = get_be16(&f, ip + 4);
	set_be16(&f, ip + 4, (uint16_t)(plen + 1));
	expect_drop("ipv6 payload length one beyond the frame", &f, MCFAN_DROP_TRUNCATED);
	set_be16(&f, ip + 4, 65535);
	expect_drop("ipv6 payload length 65535", &f, MCFAN_DROP_TRUNCATED);
	set_be16(&f, ip + 4, UDP_HDR_LEN - 1);
	expect_drop("ipv6 payload length 7 (udp header cut)", &f, MCFAN_DROP_MALFORMED);
	set_be16(&f, ip + 4, 0);
	expect_drop("ipv6 payload length 0", &f, MCFAN_DROP_MALFORMED);
	build_ipv6_udp(&f, &L2_UNTAGGED, V6_GROUP, 5000, 40);
	f.b[ip] = 0x40; /* version 4 under EtherType IPv6 */
	expect_drop("ipv6 ethertype, version 4", &f, MCFAN_DROP_MALFORMED);
	f.b[ip] = 0x00;
	expect_drop("ipv6 ethertype, version 0", &f, MCFAN_DROP_MALFORMED);
}

static void
test_ipv6_ext(void)
{
	struct frame f;
	uint32_t ip, udp;
	unsigned int n, i;
	char what[64];

	/* Hop-by-hop options. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_HOPOPTS, V6_GROUP);
	ipv6_opts(&f, PROTO_UDP, 0);
	udp = udp_begin(&f, 5000);
	put_payload(&f, 20);
	udp_end(&f, udp);
	ipv6_end(&f, ip);
	expect_v6("ipv6 hop-by-hop + udp", &f, V6_GROUP, 5000);
	truncation_sweep("ipv6 hop-by-hop udp", &f, f.len, false);

	/* Destination options, 24 bytes (units 2). */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_DSTOPTS, V6_GROUP);
	ipv6_opts(&f, PROTO_UDP, 2);
	udp = udp_begin(&f, 5000);
	put_payload(&f, 20);
	udp_end(&f, udp);
	ipv6_end(&f, ip);
	expect_v6("ipv6 destination options (24 bytes) + udp", &f, V6_GROUP, 5000);

	/* Routing header. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_ROUTING, V6_GROUP);
	ipv6_routing(&f, PROTO_UDP);
	udp = udp_begin(&f, 5000);
	put_payload(&f, 20);
	udp_end(&f, udp);
	ipv6_end(&f, ip);
	expect_v6("ipv6 routing + udp", &f, V6_GROUP, 5000);

	/* Authentication header (length in 4-octet units). */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_AH, V6_GROUP);
	ipv6_ah(&f, PROTO_UDP);
	udp = udp_begin(&f, 5000);
	put_payload(&f, 20);
	udp_end(&f, udp);
	ipv6_end(&f, ip);
	expect_v6("ipv6 ah + udp", &f, V6_GROUP, 5000);

	/* Atomic fragment (RFC 6946): offset 0, M clear, a whole datagram. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_FRAGMENT, V6_GROUP);
	ipv6_frag(&f, PROTO_UDP, 0, false);
	udp = udp_begin(&f, 5000);
	put_payload(&f, 20);
	udp_end(&f, udp);
	ipv6_end(&f, ip);
	expect_v6("ipv6 atomic fragment + udp", &f, V6_GROUP, 5000);
	truncation_sweep("ipv6 atomic fragment udp", &f, f.len, false);

	/* First fragment: offset 0, M set. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_FRAGMENT, V6_GROUP);
	ipv6_frag(&f, PROTO_UDP, 0, true);
	udp = udp_begin(&f, 5000);
	put_payload(&f, 40);
	udp_end(&f, udp);
	ipv6_end(&f, ip);
	expect_drop("ipv6 first fragment", &f, MCFAN_DROP_FRAGMENT);

	/* Non-first fragments: offset != 0, M set or clear; payload is no UDP header. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_FRAGMENT, V6_GROUP);
	ipv6_frag(&f, PROTO_UDP, 6, true);
	put_payload(&f, 48);
	ipv6_end(&f, ip);
	expect_drop("ipv6 middle fragment", &f, MCFAN_DROP_FRAGMENT);
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_FRAGMENT, V6_GROUP);
	ipv6_frag(&f, PROTO_UDP, 6, false);
	put_payload(&f, 3);
	ipv6_end(&f, ip);
	expect_drop("ipv6 last fragment (3 bytes, no udp header)", &f, MCFAN_DROP_FRAGMENT);

	/* Fragment header cut by the payload length. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_FRAGMENT, V6_GROUP);
	ipv6_frag(&f, PROTO_UDP, 0, false);
	ipv6_end(&f, ip);
	set_be16(&f, ip + 4, 4);
	expect_drop("ipv6 fragment header cut by payload length", &f, MCFAN_DROP_MALFORMED);

	/* A chain: hop-by-hop, destination options, routing, atomic fragment, dest opts, udp. */
	l2_hdr(&f, &L2_QINQ, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_HOPOPTS, V6_GROUP);
	ipv6_opts(&f, PROTO_DSTOPTS, 1);
	ipv6_opts(&f, PROTO_ROUTING, 0);
	ipv6_routing(&f, PROTO_FRAGMENT);
	ipv6_frag(&f, PROTO_DSTOPTS, 0, false);
	ipv6_opts(&f, PROTO_UDP, 0);
	udp = udp_begin(&f, 6000);
	put_payload(&f, 20);
	udp_end(&f, udp);
	ipv6_end(&f, ip);
	expect_v6("qinq ipv6 with five extension headers", &f, V6_GROUP, 6000);
	truncation_sweep("qinq ipv6 ext chain udp", &f, f.len, false);

	/* MCFAN_MAX_IPV6_EXT_HDRS extension headers are walked; one more is malformed. */
	for (n = MCFAN_MAX_IPV6_EXT_HDRS; n <= MCFAN_MAX_IPV6_EXT_HDRS + 1; n++) {
		l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
		ip = ipv6_begin(&f, PROTO_DSTOPTS, V6_GROUP);
		for (i = 0; i < n; i++)
			ipv6_opts(&f, i + 1 < n ? PROTO_DSTOPTS : PROTO_UDP, 0);
		udp = udp_begin(&f, 5000);
		put_payload(&f, 8);
		udp_end(&f, udp);
		ipv6_end(&f, ip);
		snprintf(what, sizeof(what), "ipv6 with %u extension headers", n);
		if (n <= MCFAN_MAX_IPV6_EXT_HDRS)
			expect_v6(what, &f, V6_GROUP, 5000);
		else
			expect_drop(what, &f, MCFAN_DROP_MALFORMED);
	}

	/* An extension header whose length runs past the payload length. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_HOPOPTS, V6_GROUP);
	ipv6_opts(&f, PROTO_UDP, 0);
	udp = udp_begin(&f, 5000);
	put_payload(&f, 20);
	udp_end(&f, udp);
	ipv6_end(&f, ip);
	f.b[ip + IPV6_HDR_LEN + 1] = 200; /* 1608 bytes */
	expect_drop("ipv6 hop-by-hop length beyond the payload", &f, MCFAN_DROP_MALFORMED);

	/* Upper layers other than UDP, ICMPv6. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_TCP, V6_GROUP);
	tcp_hdr(&f, 5000);
	ipv6_end(&f, ip);
	expect_drop("ipv6 multicast tcp", &f, MCFAN_DROP_NOT_UDP);
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_HOPOPTS, V6_GROUP);
	ipv6_opts(&f, PROTO_TCP, 0);
	tcp_hdr(&f, 5000);
	ipv6_end(&f, ip);
	expect_drop("ipv6 hop-by-hop + tcp", &f, MCFAN_DROP_NOT_UDP);
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_NONE, V6_GROUP);
	ipv6_end(&f, ip);
	expect_drop("ipv6 no next header", &f, MCFAN_DROP_NOT_UDP);
	/* Extension headers on a unicast packet: not multicast. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	ip = ipv6_begin(&f, PROTO_FRAGMENT, V6_UNICAST);
	ipv6_frag(&f, PROTO_UDP, 6, false);
	put_payload(&f, 16);
	ipv6_end(&f, ip);
	expect_drop("ipv6 unicast fragment", &f, MCFAN_DROP_NOT_MULTICAST);
}

/* ICMPv6 message of 24 bytes (MLDv1 layout) behind an optional hop-by-hop router alert. */
static void
build_icmpv6(struct frame *f, const struct l2 *l2, bool hbh, const uint8_t dst[16],
	     uint8_t type)
{
	uint32_t ip;

	l2_hdr(f, l2, ET_IPV6);
	ip = ipv6_begin(f, hbh ? PROTO_HOPOPTS : PROTO_ICMPV6, dst);
	if (hbh)
		ipv6_hbh_router_alert(f, PROTO_ICMPV6);
	put_u8(f, type);
	put_u8(f, 0);
	put_be16(f, 0);   /* checksum */
	put_be16(f, 0);   /* maximum response delay */
	put_be16(f, 0);   /* reserved */
	put_bytes(f, V6_GROUP, 16);
	ipv6_end(f, ip);
}

static void
test_mld(void)
{
	static const struct {
		uint8_t type;
		const uint8_t *dst;
		const char *name;
	} mld[] = {
		{ ICMPV6_MLD_QUERY, V6_ALL_NODES, "mld query (130)" },
		{ ICMPV6_MLD_REPORT, V6_GROUP, "mld report (131)" },
		{ ICMPV6_MLD_DONE, V6_ALL_ROUTERS, "mld done (132)" },
		{ ICMPV6_MLDV2_REPORT, V6_MLDV2_ROUTERS, "mldv2 report (143)" },
	};
	struct frame f;
	unsigned int i;
	char what[96];

	for (i = 0; i < RTE_DIM(mld); i++) {
		build_icmpv6(&f, &L2_UNTAGGED, true, mld[i].dst, mld[i].type);
		snprintf(what, sizeof(what), "%s behind hop-by-hop router alert", mld[i].name);
		expect_drop(what, &f, MCFAN_DROP_CONTROL);
		truncation_sweep(what, &f, f.len, false);
		build_icmpv6(&f, &L2_UNTAGGED, false, mld[i].dst, mld[i].type);
		snprintf(what, sizeof(what), "%s without hop-by-hop", mld[i].name);
		expect_drop(what, &f, MCFAN_DROP_CONTROL);
		build_icmpv6(&f, &L2_QINQ, true, mld[i].dst, mld[i].type);
		snprintf(what, sizeof(what), "%s, qinq", mld[i].name);
		expect_drop(what, &f, MCFAN_DROP_CONTROL);
	}
	build_icmpv6(&f, &L2_UNTAGGED, false, V6_ALL_NODES, ICMPV6_ECHO_REQUEST);
	expect_drop("icmpv6 echo to ff02::1", &f, MCFAN_DROP_NOT_UDP);
	build_icmpv6(&f, &L2_UNTAGGED, true, V6_ALL_NODES, ICMPV6_ECHO_REQUEST);
	expect_drop("icmpv6 echo behind hop-by-hop", &f, MCFAN_DROP_NOT_UDP);
	build_icmpv6(&f, &L2_UNTAGGED, true, V6_UNICAST, ICMPV6_MLD_REPORT);
	expect_drop("mld report to a unicast address", &f, MCFAN_DROP_NOT_MULTICAST);
	/* ICMPv6 with an empty body: the type byte is missing. */
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV6);
	{
		uint32_t ip = ipv6_begin(&f, PROTO_ICMPV6, V6_ALL_NODES);

		ipv6_end(&f, ip);
	}
	expect_drop("icmpv6 without a type byte", &f, MCFAN_DROP_MALFORMED);
}

static void
test_truncation(void)
{
	struct frame f;
	uint32_t ip;

	/* Unpadded frames: every prefix is malformed (see truncation_sweep()). */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 18);
	truncation_sweep("ipv4 udp", &f, f.len, false);
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN + 3, 0, 18);
	truncation_sweep("ipv4 udp ihl 8", &f, f.len, false);
	build_ipv6_udp(&f, &L2_UNTAGGED, V6_GROUP, 5000, 18);
	truncation_sweep("ipv6 udp", &f, f.len, false);
	build_ipv4_udp(&f, &L2_QINQ, V4_GROUP, GROUP_PORT, 18);
	truncation_sweep("qinq ipv4 udp", &f, f.len, false);
	build_ipv6_udp(&f, &L2_QINQ, V6_GROUP, 5000, 18);
	truncation_sweep("qinq ipv6 udp", &f, f.len, false);
	/* The QinQ frame with its outer tag stripped by the driver: same contract. */
	build_ipv4_udp(&f, &L2_DOT1Q, V4_GROUP, GROUP_PORT, 18);
	truncation_sweep("stripped qinq ipv4 udp", &f, f.len, true);
	/* Drop reasons other than malformed also need the whole datagram. */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_UNICAST, GROUP_PORT, 18);
	truncation_sweep("ipv4 unicast udp", &f, f.len, false);
	build_ipv4_udp_ihl(&f, IPV4_IHL_MIN, IPV4_MF, 18);
	truncation_sweep("ipv4 first fragment", &f, f.len, false);
	l2_hdr(&f, &L2_UNTAGGED, ET_IPV4);
	ip = ipv4_begin(&f, IPV4_IHL_MIN, PROTO_TCP, 0, V4_GROUP);
	tcp_hdr(&f, 80);
	ipv4_end(&f, ip);
	truncation_sweep("ipv4 multicast tcp", &f, f.len, false);
	build_igmp(&f, &L2_DOT1Q, IPV4_IHL_MIN + 1, V4_GROUP);
	truncation_sweep("802.1Q igmp", &f, f.len, false);
}

/*
 * Frames cut by the receiver (af_packet copies at most framesz - 66 bytes of a frame into
 * its ring: 1,982 with the default 2048) have whole headers and an IP length that says more
 * than the frame holds: truncated, not malformed, whatever the protocol after the header.
 * An IP header that is itself cut stays malformed.
 */
static void
test_truncated(void)
{
	struct frame f;

	/* A 1,990-byte UDP datagram (2,032-byte frame), cut at 1,982 bytes. */
	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 1990 - IPV4_HDR_LEN - UDP_HDR_LEN);
	CHECK_EQ_INT(f.len, ETH_HDR_LEN + 1990);
	expect_v4("1,990-byte datagram, whole", &f, V4_GROUP, GROUP_PORT);
	expect_drop_n("1,990-byte datagram cut to 1,982", &f, 1982, false, MCFAN_DROP_TRUNCATED);
	expect_drop_n("cut right after the ipv4 header", &f, ETH_HDR_LEN + IPV4_HDR_LEN, false,
		      MCFAN_DROP_TRUNCATED);
	expect_drop_n("cut inside the ipv4 header", &f, ETH_HDR_LEN + IPV4_HDR_LEN - 1, false,
		      MCFAN_DROP_MALFORMED);
	/* Before the multicast check: a cut unicast frame is truncated too. */
	build_ipv4_udp(&f, &L2_QINQ, V4_UNICAST, GROUP_PORT, 1500);
	expect_drop_n("qinq unicast cut", &f, 1000, false, MCFAN_DROP_TRUNCATED);
	build_ipv6_udp(&f, &L2_DOT1Q, V6_GROUP, 5000, 1990);
	expect_drop_n("802.1Q ipv6 cut to 1,982", &f, 1982, false, MCFAN_DROP_TRUNCATED);
	expect_drop_n("802.1Q ipv6 cut right after the ipv6 header", &f,
		      ETH_HDR_LEN + VLAN_TAG_LEN + IPV6_HDR_LEN, false, MCFAN_DROP_TRUNCATED);
	expect_drop_n("802.1Q ipv6 cut inside the ipv6 header", &f,
		      ETH_HDR_LEN + VLAN_TAG_LEN + IPV6_HDR_LEN - 1, false, MCFAN_DROP_MALFORMED);
}

/* The group MAC check: 01:00:5e + low 23 bits (IPv4), 33:33 + low 32 bits (IPv6). */
static void
test_mac_mismatch(void)
{
	static const uint8_t v4_hi[4] = { 239, 137, 9, 1 };  /* bit 23 set: same MAC as .9.9.1 */
	static const uint8_t mac_v4[6] = { 0x01, 0x00, 0x5e, 0x09, 0x09, 0x01 };
	static const uint8_t mac_v6[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t ucast[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	struct mcfan_flow_key k;
	uint8_t mac[6];

	make_key(&k, MCFAN_FAMILY_IPV4, V4_GROUP, GROUP_PORT);
	CHECK(!mcfan_classify_mac_mismatch(mac_v4, 6, &k), "239.9.9.1 with its MAC");
	CHECK(mcfan_classify_mac_mismatch(mac_v4, 5, &k), "a 5-byte frame matches");
	CHECK(mcfan_classify_mac_mismatch(ucast, 6, &k), "unicast MAC matches 239.9.9.1");
	CHECK(mcfan_classify_mac_mismatch(bcast, 6, &k), "broadcast MAC matches 239.9.9.1");
	CHECK(mcfan_classify_mac_mismatch(mac_v6, 6, &k), "IPv6 MAC matches 239.9.9.1");
	memcpy(mac, mac_v4, 6);
	mac[5] = 2;
	CHECK(mcfan_classify_mac_mismatch(mac, 6, &k), "239.9.9.2's MAC matches 239.9.9.1");
	mac[5] = 1;
	mac[3] = 0x89; /* the 24th bit is not part of the mapping: 01:00:5e:89 is not a group MAC */
	CHECK(mcfan_classify_mac_mismatch(mac, 6, &k), "01:00:5e:89:09:01 matches 239.9.9.1");
	make_key(&k, MCFAN_FAMILY_IPV4, v4_hi, GROUP_PORT);
	CHECK(!mcfan_classify_mac_mismatch(mac_v4, 6, &k), "239.137.9.1 maps to 01:00:5e:09:09:01");
	make_key(&k, MCFAN_FAMILY_IPV6, V6_GROUP, 5000);
	CHECK(!mcfan_classify_mac_mismatch(mac_v6, 6, &k), "ff3e::1 with 33:33:00:00:00:01");
	CHECK(mcfan_classify_mac_mismatch(mac_v4, 6, &k), "IPv4 MAC matches ff3e::1");
	make_key(&k, MCFAN_FAMILY_IPV6, V6_MDNS, 5353);
	memcpy(mac, mac_v6, 6);
	mac[5] = 0xfb;
	CHECK(!mcfan_classify_mac_mismatch(mac, 6, &k), "ff02::fb with 33:33:00:00:00:fb");
}

/*
 * The inline fast path (mcfan_classify_fast_ipv4(), used by mcfan_classify_mbuf()) against
 * the full classifier, on 400,000 random variants of a seed frame (bytes of the Ethernet,
 * IPv4 and UDP headers changed, the frame cut short): wherever the fast path answers, the
 * full classifier delivers with the same key; wherever the full classifier delivers an
 * untagged IPv4 frame without options, the fast path answers too.
 */
static void
test_fast_ipv4(void)
{
	/* bytes a variant changes: EtherType, version/IHL, lengths, flags, protocol, group,
	 * UDP ports and length; with a small chance each becomes a value that matters */
	static const uint8_t spots[] = { 12, 13, 14, 16, 17, 20, 21, 23, 30, 36, 37, 38, 39 };
	static const uint8_t values[] = { 0x00, 0x08, 0x45, 0x46, 0x20, 0x40, 0x01, 0x11, 0x02,
					  0xe0, 0xef, 0x1c, 0x1d, 0x14, 0x24, 0xff };
	struct mcfan_flow_key kf, kc;
	struct frame f, v;
	unsigned int i, j, fast = 0, full = 0, disagree = 0;
	uint32_t seed = 12345, len;
	uint8_t *data;
	enum mcfan_drop r;

	build_ipv4_udp(&f, &L2_UNTAGGED, V4_GROUP, GROUP_PORT, 18);
	for (i = 0; i < 400000; i++) {
		v = f;
		for (j = 0; j < RTE_DIM(spots); j++) {
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) % 8 == 0)
				v.b[spots[j]] = values[(seed >> 20) % RTE_DIM(values)];
		}
		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % 4 == 0 ? (seed >> 18) % (f.len + 1) : f.len;
		r = classify_n(&v, len, false, &kc);
		data = guard_end != NULL ? guard_end - len : plain_buf;
		memset(&kf, 0x5a, sizeof(kf));
		if (mcfan_classify_fast_ipv4(data, len, &kf)) {
			fast++;
			disagree += r != MCFAN_DROP_NONE || memcmp(&kf, &kc, sizeof(kf)) != 0;
		} else if (r == MCFAN_DROP_NONE && len >= 15 && v.b[12] == 0x08 && v.b[13] == 0 &&
			   v.b[14] == 0x45) {
			disagree++;
		}
		full += r == MCFAN_DROP_NONE;
	}
	CHECK(disagree == 0, "fast path and full classifier disagree on %u frames", disagree);
	/* the variants really mixed deliverable and refused frames */
	CHECK(fast > 10000 && fast < 390000, "fast path delivered %u of 400000", fast);
	CHECK(full >= fast, "full classifier delivered %u, fast path %u", full, fast);
}

int
main(void)
{
	guard_init();
	CHECK(guard_end != NULL, "guard page not set up: over-reads would go unnoticed");
	test_drop_names();
	test_fast_ipv4();
	test_ipv4_udp();
	test_ipv4_not_multicast();
	test_ipv4_not_udp();
	test_igmp();
	test_ipv4_ihl();
	test_ipv4_version();
	test_ipv4_total_length();
	test_udp_length();
	test_ipv4_fragments();
	test_ipv4_padding();
	test_vlan();
	test_non_ip();
	test_ipv6_udp();
	test_ipv6_malformed();
	test_ipv6_ext();
	test_mld();
	test_truncation();
	test_truncated();
	test_mac_mismatch();
	return unit_summary("classify");
}
