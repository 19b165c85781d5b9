/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CLASSIFY_H
#define MCFAN_CLASSIFY_H

/**
 * @file
 * Frame classifier: decides whether a received frame is a UDP datagram sent
 * to an IP multicast group, and if not, under which drop reason it counts.
 *
 * Formats: Ethernet II (IEEE 802.3 clause 3.2.6), VLAN tags IEEE 802.1Q
 * (TPID 0x8100) and 802.1ad (TPID 0x88a8, and the pre-standard 0x9100),
 * IPv4 (RFC 791), IPv4 multicast 224.0.0.0/4 (RFC 5771), IGMP (RFC 3376,
 * IP protocol 2), IPv6 (RFC 8200) and its extension headers, IPv6 multicast
 * ff00::/8 (RFC 4291), MLD (RFC 2710, RFC 3810: ICMPv6 types 130, 131, 132,
 * 143), UDP (RFC 768).
 *
 * The classifier reads only the bytes it is given and never past them.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

/** Why a frame was not delivered. Every frame ends in exactly one place. */
enum mcfan_drop {
	MCFAN_DROP_NONE = 0,        /**< UDP to a multicast group: deliverable. */
	MCFAN_DROP_NOT_MULTICAST,   /**< Not IP, or IP to a non-multicast address. */
	MCFAN_DROP_NOT_UDP,         /**< IP multicast carrying neither UDP nor IGMP/MLD. */
	MCFAN_DROP_MALFORMED,       /**< Header cut or inconsistent, bad version, IHL < 5. */
	MCFAN_DROP_FRAGMENT,        /**< IPv4 or IPv6 fragment (mcfan does not reassemble). */
	MCFAN_DROP_UNKNOWN_GROUP,   /**< Multicast UDP to a group that is not joined. */
	MCFAN_DROP_RING_FULL,       /**< No worker ring had room for any copy. */
	MCFAN_DROP_CONTROL,         /**< IGMP or MLD control frame. */
	MCFAN_DROP_TRUNCATED,       /**< IP length beyond the frame: the frame was cut short. */
	/** An IGMP or MLD frame the RX lcore's control ring (to the control lcore) had no room
	 * for; decided by lib/fanout, never by the classifier (such frames are `control`). */
	MCFAN_DROP_CTL_RING_FULL,
	/** A frame still in a port's RX queue when mcfan quit: received by the control side
	 * after the data lcores stopped, freed, counted by no engine (app/mcfan/control/quitdrain.c);
	 * never decided by the classifier or lib/fanout. */
	MCFAN_DROP_QUIT_DRAINED,
	MCFAN_DROP_MAX
};

/** Address family of a flow key. */
enum mcfan_family {
	MCFAN_FAMILY_IPV4 = 4,
	MCFAN_FAMILY_IPV6 = 6,
};

/** Destination of a multicast UDP datagram: the key groups are looked up by. */
struct mcfan_flow_key {
	uint8_t family;        /**< MCFAN_FAMILY_IPV4 or MCFAN_FAMILY_IPV6. */
	uint8_t pad;           /**< Always 0, so keys compare and hash as bytes. */
	uint16_t udp_port;     /**< UDP destination port, host byte order; 0 = any port. */
	uint8_t addr[16];      /**< Group address, network byte order; IPv4 in addr[0..3]. */
};

/** Bytes of an Ethernet MAC address (IEEE 802). */
#define MCFAN_ETHER_ADDR_LEN 6

/** Largest number of VLAN tags the classifier walks (outer 802.1ad + inner 802.1Q). */
#define MCFAN_MAX_VLAN_TAGS 2

/** Largest number of IPv6 extension headers walked before giving up (as malformed). */
#define MCFAN_MAX_IPV6_EXT_HDRS 8

/**
 * Return the name of a drop reason as used in reports and telemetry.
 *
 * @param reason
 *   A drop reason, MCFAN_DROP_NONE .. MCFAN_DROP_MAX - 1.
 * @return
 *   A static snake_case string ("not_multicast", "ring_full", ...), "delivered"
 *   for MCFAN_DROP_NONE, or "invalid" for a value out of range.
 */
const char *mcfan_drop_name(enum mcfan_drop reason);

/**
 * Classify one frame held in contiguous memory.
 *
 * @param data
 *   First byte of the Ethernet header. Must not be NULL when len > 0.
 * @param len
 *   Bytes readable at data, 0..UINT32_MAX. Nothing past data + len is read.
 * @param vlan_stripped
 *   True if the driver removed one VLAN tag from the wire frame (mbuf flag
 *   RTE_MBUF_F_RX_VLAN_STRIPPED). The removed tag counts against the limit of
 *   MCFAN_MAX_VLAN_TAGS, so a frame gets the same answer whether the driver
 *   stripped its outer tag or not.
 * @param key
 *   Filled with the group address and UDP destination port when the return
 *   value is MCFAN_DROP_NONE; left unspecified otherwise. Must not be NULL.
 * @return
 *   MCFAN_DROP_NONE for a UDP datagram to a multicast group, otherwise the
 *   drop reason: MCFAN_DROP_MALFORMED (cut inside the Ethernet, VLAN or IP
 *   header, IPv4 version or IHL < 5 or total length below the header, more
 *   than MCFAN_MAX_VLAN_TAGS tags, UDP length inconsistent with the IP length,
 *   an extension or UDP header beyond the IP payload), MCFAN_DROP_TRUNCATED
 *   (the IP header is whole but the IPv4 total length or the IPv6 payload
 *   length runs past the end of the frame: what af_packet does to a frame
 *   larger than its frame size), MCFAN_DROP_NOT_MULTICAST (not IPv4/IPv6, or a
 *   unicast/broadcast destination), MCFAN_DROP_CONTROL (IGMP, MLD),
 *   MCFAN_DROP_FRAGMENT (an IPv4 fragment, first or not, or an IPv6 fragment
 *   header other than an atomic fragment), MCFAN_DROP_NOT_UDP (any other
 *   upper-layer protocol). Never MCFAN_DROP_UNKNOWN_GROUP or
 *   MCFAN_DROP_RING_FULL: those are decided
 *   after the lookup and the enqueue.
 */
enum mcfan_drop mcfan_classify(const uint8_t *data, uint32_t len, bool vlan_stripped,
			       struct mcfan_flow_key *key);

/**
 * Classify a multi-segment mbuf (slow path of mcfan_classify_mbuf()).
 *
 * Headers are read wherever they lie in the chain (rte_pktmbuf_read() copies one
 * header at a time when it spans segments), so a frame gets the same answer
 * however it is segmented.
 *
 * @param m
 *   The received mbuf, nb_segs > 1. Only read.
 * @param vlan_stripped
 *   As for mcfan_classify().
 * @param key
 *   As for mcfan_classify().
 * @return
 *   As for mcfan_classify() on the same bytes in one segment.
 */
enum mcfan_drop mcfan_classify_multiseg(const struct rte_mbuf *m, bool vlan_stripped,
					struct mcfan_flow_key *key);

/**
 * Tell whether a frame's destination MAC is not the multicast MAC of its group.
 *
 * The group's MAC is 01:00:5e plus the low 23 bits of an IPv4 group (RFC 1112
 * section 6.4) or 33:33 plus the low 32 bits of an IPv6 group (RFC 2464
 * section 7). A frame that fails this is still delivered (the IP header is what
 * mcfan routes on); the caller counts it (mcfan_rx_stats.mac_mismatch).
 *
 * @param data
 *   First byte of the Ethernet header (the destination MAC). Must not be NULL
 *   when len > 0.
 * @param len
 *   Bytes readable at data; fewer than 6 counts as a mismatch.
 * @param key
 *   The key mcfan_classify() filled for this frame (family IPv4 or IPv6).
 *   Must not be NULL.
 * @return
 *   True if the destination MAC differs from the group's multicast MAC
 *   (a unicast MAC, another group's MAC, broadcast), false if it matches.
 */
static inline bool
mcfan_classify_mac_mismatch(const uint8_t *data, uint32_t len, const struct mcfan_flow_key *key)
{
	/* Inline, the 48-bit MACs compared as integers: it runs once per delivered frame. As a
	 * call to memcmp() it cost about 13 % of the RX lcore's samples, and an expected MAC
	 * built byte by byte in memory then read as words stalls on store forwarding
	 * (docs/performance.md). */
	uint64_t got, want;
	uint32_t hi, grp;
	uint16_t lo;

	if (len < MCFAN_ETHER_ADDR_LEN)
		return true;
	memcpy(&hi, data, sizeof(hi));
	memcpy(&lo, data + sizeof(hi), sizeof(lo));
	got = (uint64_t)rte_be_to_cpu_32(hi) << 16 | rte_be_to_cpu_16(lo);
	if (key->family == MCFAN_FAMILY_IPV4) {
		/* RFC 1112 6.4: 01:00:5e, then the low 23 bits of the group. */
		memcpy(&grp, key->addr, sizeof(grp));
		want = UINT64_C(0x01005e000000) | (rte_be_to_cpu_32(grp) & UINT32_C(0x7fffff));
	} else {
		/* RFC 2464 7: 33:33, then the low 32 bits of the group. */
		memcpy(&grp, key->addr + 12, sizeof(grp));
		want = UINT64_C(0x333300000000) | rte_be_to_cpu_32(grp);
	}
	return got != want;
}

/**
 * The common case of mcfan_classify(), inline: an untagged Ethernet II frame carrying an
 * IPv4 header without options (RFC 791: version 4, IHL 5), not a fragment, to a multicast
 * group (224.0.0.0/4), protocol UDP, with total and UDP lengths consistent with the frame
 * (RFC 768). Such a frame is exactly one for which mcfan_classify() returns
 * MCFAN_DROP_NONE by its IPv4 path without options, whether or not a VLAN tag was stripped
 * (no tag follows), so the answer and the key are the same; any other frame returns false
 * and must go through mcfan_classify(), which then gives its drop reason.
 *
 * @param data
 *   First byte of the Ethernet header. Must not be NULL when len > 0.
 * @param len
 *   Bytes readable at data; nothing past data + len is read.
 * @param key
 *   Filled (family IPv4, the group, the UDP destination port) when true is returned;
 *   untouched otherwise. Must not be NULL.
 * @return
 *   True if the frame is such a datagram (deliverable: MCFAN_DROP_NONE), false if the full
 *   classifier must decide.
 */
static inline bool
mcfan_classify_fast_ipv4(const uint8_t *data, uint32_t len, struct mcfan_flow_key *key)
{
	/* Ethernet (14) + IPv4 without options (20) + UDP (8), RFC 791 and RFC 768. */
	enum { ETH = 14, IP = 20, UDP = 8 };
	const uint8_t *ip = data + ETH, *udp = data + ETH + IP;
	uint32_t tot_len, udp_len;

	if (unlikely(len < ETH + IP + UDP))
		return false;
	if (data[12] != 0x08 || data[13] != 0x00 || ip[0] != 0x45 || ip[9] != 17 ||
	    (ip[16] & 0xf0) != 0xe0)
		return false;
	if ((ip[6] & 0x3f) != 0 || ip[7] != 0) /* MF or a fragment offset (RFC 791) */
		return false;
	tot_len = (uint32_t)ip[2] << 8 | ip[3];
	udp_len = (uint32_t)udp[4] << 8 | udp[5];
	if (tot_len < IP + UDP || tot_len > len - ETH || udp_len < UDP || udp_len > tot_len - IP)
		return false;
	memset(key, 0, sizeof(*key));
	key->family = MCFAN_FAMILY_IPV4;
	memcpy(key->addr, ip + 16, 4);
	key->udp_port = (uint16_t)(udp[2] << 8 | udp[3]);
	return true;
}

/**
 * Classify one received mbuf, single- or multi-segment.
 *
 * The mbuf is only read; its ownership does not change. For a
 * multi-segment mbuf the headers are read across segments and the IP and UDP
 * lengths are checked against the whole packet length.
 *
 * @param m
 *   The received mbuf. Must not be NULL.
 * @param key
 *   As for mcfan_classify().
 * @return
 *   As for mcfan_classify().
 */
static inline enum mcfan_drop
mcfan_classify_mbuf(const struct rte_mbuf *m, struct mcfan_flow_key *key)
{
	bool stripped = (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) != 0;

	if (likely(m->nb_segs == 1)) {
		const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);

		if (likely(mcfan_classify_fast_ipv4(data, m->data_len, key)))
			return MCFAN_DROP_NONE;
		return mcfan_classify(data, m->data_len, stripped, key);
	}
	return mcfan_classify_multiseg(m, stripped, key);
}

#endif /* MCFAN_CLASSIFY_H */
