/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_IGMP_H
#define MCFAN_IGMP_H

/**
 * @file
 * IGMP and MLD on the wire, host side: build the frames a host sends and parse (and
 * validate) the frames it receives. Pure functions on byte buffers: no EAL, no state.
 *
 * Formats:
 *  - IGMPv1 (RFC 1112 appendix I), IGMPv2 (RFC 2236 section 2), IGMPv3 (RFC 3376 section
 *    4): IPv4 (RFC 791) with TTL 1 and, from v2 on, the Router Alert option (RFC 2113,
 *    option 148, 4 bytes, value 0), the IPv4 header checksum (RFC 791) and the IGMP
 *    checksum (the Internet checksum of the IGMP message, RFC 1071);
 *  - MLDv1 (RFC 2710 section 3), MLDv2 (RFC 3810 section 5): IPv6 (RFC 8200) with hop
 *    limit 1, a hop-by-hop header holding the Router Alert option (RFC 2711, option 5,
 *    value 0 = MLD) and PadN, ICMPv6 (RFC 4443) with its checksum over the pseudo-header
 *    (RFC 8200 section 8.1);
 *  - Ethernet II with the group's MAC (RFC 1112 section 6.4, RFC 2464 section 7); up to two
 *    VLAN tags on receive (802.1Q, 802.1ad), none on send.
 *
 * Addresses are 16-byte arrays in network byte order; an IPv4 address is in bytes 0..3
 * and the rest is zero.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The two protocols: IGMP (IPv4) and MLD (IPv6). Values are the IP versions. */
enum mcfan_igmp_proto {
	MCFAN_IGMP_PROTO_IGMP = 4, /**< IGMP over IPv4. */
	MCFAN_IGMP_PROTO_MLD = 6,  /**< MLD over IPv6 (ICMPv6). */
};

/** Why a received control frame was not taken (each counted under its name). */
enum mcfan_igmp_invalid {
	MCFAN_IGMP_VALID = 0,       /**< A message for this host: taken. */
	MCFAN_IGMP_MALFORMED,       /**< Cut, wrong length, unknown type, bad IP header. */
	MCFAN_IGMP_BAD_CHECKSUM,    /**< IPv4 header, IGMP or ICMPv6 checksum wrong. */
	MCFAN_IGMP_WRONG_TTL,       /**< IPv4 TTL or IPv6 hop limit other than 1. */
	/** A report or leave of another host, a query to an address that is neither the
	 * all-hosts/all-nodes address nor the queried group, an MLD message whose source is
	 * not link-local (RFC 3810 section 5.1.14, RFC 2710 section 3). */
	MCFAN_IGMP_NOT_FOR_US,
	MCFAN_IGMP_INVALID_MAX
};

/** Kind of a received message. */
enum mcfan_igmp_msg_type {
	MCFAN_IGMP_MSG_QUERY = 1, /**< Membership query (general, group or group-and-source). */
	MCFAN_IGMP_MSG_REPORT,    /**< A report of another host (any version). */
	MCFAN_IGMP_MSG_LEAVE,     /**< IGMPv2 Leave Group or MLDv1 Done of another host. */
};

/** Most sources kept per group, in a query and in an INCLUDE-mode join. */
#define MCFAN_IGMP_MAX_SOURCES 8

/** Largest frame built, bytes: Ethernet header plus a 1500-byte IP packet (RFC 894). */
#define MCFAN_IGMP_FRAME_MAX 1514

/** Longest text of an address from mcfan_igmp_addr_format(), with NUL (INET6_ADDRSTRLEN). */
#define MCFAN_IGMP_ADDR_STR 46

/** A parsed query, report or leave. */
struct mcfan_igmp_msg {
	uint8_t proto;          /**< enum mcfan_igmp_proto. */
	uint8_t type;           /**< enum mcfan_igmp_msg_type. */
	/** Version of the message: IGMP 1..3 (RFC 3376 section 7.1 for queries: 8 bytes with
	 * Max Resp Code 0 is v1, 8 bytes otherwise v2, 12 or more v3), MLD 1..2 (RFC 3810
	 * section 8.1: 24 bytes v1, 28 or more v2). */
	uint8_t version;
	uint8_t qrv;            /**< v3/MLDv2 query: Querier's Robustness Variable, 0 = none. */
	bool s_flag;            /**< v3/MLDv2 query: Suppress Router-Side Processing. */
	uint32_t max_resp_ms;   /**< Query: Max Resp Time decoded, ms (v1: 10000). */
	uint32_t qqi_s;         /**< v3/MLDv2 query: Querier's Query Interval, s; 0 = none. */
	uint8_t src[16];        /**< IP source address. */
	uint8_t dst[16];        /**< IP destination address. */
	uint8_t group[16];      /**< Group address; all zero for a general query. */
	uint16_t n_src;         /**< Sources the query lists. */
	uint16_t n_src_kept;    /**< Of which the first ones copied to sources[]. */
	uint8_t sources[MCFAN_IGMP_MAX_SOURCES][16]; /**< Queried sources. */
};

/** What a host sends. */
enum mcfan_igmp_send_kind {
	MCFAN_IGMP_SEND_V1_REPORT = 1, /**< IGMPv1 report (type 0x12) to the group. */
	MCFAN_IGMP_SEND_V2_REPORT,     /**< IGMPv2 report (0x16) to the group. */
	MCFAN_IGMP_SEND_V2_LEAVE,      /**< IGMPv2 leave (0x17) to 224.0.0.2. */
	MCFAN_IGMP_SEND_V3_REPORT,     /**< IGMPv3 report (0x22) to 224.0.0.22, records. */
	MCFAN_IGMP_SEND_MLD1_REPORT,   /**< MLDv1 report (ICMPv6 131) to the group. */
	MCFAN_IGMP_SEND_MLD1_DONE,     /**< MLDv1 done (132) to ff02::2. */
	MCFAN_IGMP_SEND_MLD2_REPORT,   /**< MLDv2 report (143) to ff02::16, records. */
};

/** Group record types of IGMPv3 (RFC 3376 section 4.2.12) and MLDv2 (RFC 3810 5.2.12). */
enum mcfan_igmp_rec_type {
	MCFAN_IGMP_REC_IS_IN = 1,   /**< MODE_IS_INCLUDE: current state, these sources. */
	MCFAN_IGMP_REC_IS_EX = 2,   /**< MODE_IS_EXCLUDE: current state, all but these. */
	MCFAN_IGMP_REC_TO_IN = 3,   /**< CHANGE_TO_INCLUDE_MODE (a leave: TO_IN {}). */
	MCFAN_IGMP_REC_TO_EX = 4,   /**< CHANGE_TO_EXCLUDE_MODE (a join: TO_EX {}). */
	MCFAN_IGMP_REC_ALLOW = 5,   /**< ALLOW_NEW_SOURCES (a source-specific join). */
	MCFAN_IGMP_REC_BLOCK = 6,   /**< BLOCK_OLD_SOURCES (a source-specific leave). */
};

/** One group record of a v3 / MLDv2 report. */
struct mcfan_igmp_record {
	uint8_t type;        /**< enum mcfan_igmp_rec_type. */
	uint8_t n_src;       /**< Sources, 0..MCFAN_IGMP_MAX_SOURCES. */
	uint8_t group[16];   /**< Multicast address. */
	uint8_t sources[MCFAN_IGMP_MAX_SOURCES][16];
};

/** Most records in one mcfan_igmp_send (one frame at most; see mcfan_igmp_build()). */
#define MCFAN_IGMP_SEND_RECS 8

/** A message to send: what the host state machine asks for (mcfan_igmp_host.h). */
struct mcfan_igmp_send {
	uint8_t kind;        /**< enum mcfan_igmp_send_kind. */
	uint8_t why;         /**< enum mcfan_igmp_why (mcfan_igmp_host.h). */
	uint16_t n_recs;     /**< v3 / MLDv2: records used, 1..MCFAN_IGMP_SEND_RECS. */
	uint8_t group[16];   /**< v1/v2/MLDv1: the group. */
	struct mcfan_igmp_record recs[MCFAN_IGMP_SEND_RECS];
};

/**
 * Return the name of an invalid-frame reason as used in reports and telemetry.
 *
 * @param r
 *   MCFAN_IGMP_VALID .. MCFAN_IGMP_INVALID_MAX - 1.
 * @return
 *   "valid", "malformed", "bad_checksum", "wrong_ttl", "not_for_us"; "invalid" out of range.
 */
const char *mcfan_igmp_invalid_name(enum mcfan_igmp_invalid r);

/**
 * Return the name of a message kind to send ("v2_report", "mld1_done", ...).
 *
 * @param kind
 *   An enum mcfan_igmp_send_kind value.
 * @return
 *   A static string; "invalid" for any other value.
 */
const char *mcfan_igmp_send_name(enum mcfan_igmp_send_kind kind);

/**
 * The Internet checksum (RFC 1071) of a buffer, folded, one's complement taken.
 *
 * @param data
 *   The bytes; may be NULL when len is 0.
 * @param len
 *   Bytes, 0..UINT32_MAX; an odd last byte is padded with zero.
 * @param sum
 *   A partial sum to start from (0, or a pseudo-header's sum).
 * @return
 *   The checksum in host byte order; store it big-endian. A buffer that already holds its
 *   correct checksum gives 0.
 */
uint16_t mcfan_igmp_cksum(const uint8_t *data, uint32_t len, uint32_t sum);

/**
 * Decode an IGMPv3 Max Resp Code (RFC 3376 section 4.1.1) or QQIC (4.1.7).
 *
 * @param code
 *   The 8-bit code: below 128 the value itself, else 1 | exp(3) | mant(4) as
 *   (mant | 0x10) << (exp + 3).
 * @return
 *   The value in the code's unit (tenths of a second for Max Resp, seconds for QQIC),
 *   0..31744.
 */
uint32_t mcfan_igmp_v3_code(uint8_t code);

/**
 * Decode an MLDv2 Maximum Response Code (RFC 3810 section 5.1.3).
 *
 * @param code
 *   The 16-bit code: below 32768 the value itself, else (mant | 0x1000) << (exp + 3).
 * @return
 *   The Maximum Response Delay, ms, 0..8387584.
 */
uint32_t mcfan_mld_v2_code(uint16_t code);

/**
 * Parse and validate a received IGMP or MLD frame.
 *
 * Checks, in order: Ethernet and VLAN headers, IP header (version, length, the IPv4 header
 * checksum, IHL), the TTL / hop limit (must be 1: RFC 2236 section 2, RFC 3376 section 4,
 * RFC 2710 section 3, RFC 3810 section 5), the IGMP or ICMPv6 checksum, the message type
 * and length, then whether it is for a host (queries to 224.0.0.1 / ff02::1 or to the
 * queried group; MLD from a link-local source).
 *
 * @param frame
 *   First byte of the Ethernet header. Must not be NULL when len > 0.
 * @param len
 *   Bytes readable at frame; nothing past frame + len is read.
 * @param msg
 *   Filled when the return value is MCFAN_IGMP_VALID (and for MCFAN_IGMP_NOT_FOR_US);
 *   otherwise only msg->proto is set (from the EtherType: IPv6 is MLD, anything else
 *   IGMP), so that the frame can be counted under its protocol. Must not be NULL.
 * @return
 *   MCFAN_IGMP_VALID for a query (msg->type MCFAN_IGMP_MSG_QUERY), MCFAN_IGMP_NOT_FOR_US
 *   for a report or leave of another host and the cases above, else the reason the frame
 *   is invalid (MCFAN_IGMP_MALFORMED, MCFAN_IGMP_BAD_CHECKSUM, MCFAN_IGMP_WRONG_TTL).
 */
enum mcfan_igmp_invalid mcfan_igmp_parse(const uint8_t *frame, uint32_t len,
					 struct mcfan_igmp_msg *msg);

/**
 * Build one Ethernet frame for a message to send.
 *
 * For v3 and MLDv2 reports, the records of send that fit in one 1500-byte IP packet are
 * written; *n_done says how many (the caller sends the rest in another frame).
 *
 * @param send
 *   What to send (kind, group or records). Must not be NULL.
 * @param src_mac
 *   The port's MAC address, 6 bytes.
 * @param src_ip
 *   Source address: IPv4 in bytes 0..3 (0.0.0.0 is allowed, RFC 3376 section 4.2.13), IPv6
 *   link-local for MLD (RFC 3810 section 5.2.13).
 * @param buf
 *   Where the frame is written.
 * @param room
 *   Bytes at buf; MCFAN_IGMP_FRAME_MAX always suffices.
 * @param n_done
 *   Receives the records written (0 for v1/v2/MLDv1); may be NULL.
 * @return
 *   The frame's length in bytes (> 0), -EINVAL for an unknown kind, a v3 / MLDv2 report
 *   without records or a record with more than MCFAN_IGMP_MAX_SOURCES sources, -ENOSPC if
 *   room is too small for the frame (or its first record).
 */
int mcfan_igmp_build(const struct mcfan_igmp_send *send, const uint8_t *src_mac,
		     const uint8_t *src_ip, uint8_t *buf, uint32_t room, unsigned int *n_done);

/**
 * Format an address as text (inet_ntop()).
 *
 * @param proto
 *   MCFAN_IGMP_PROTO_IGMP (bytes 0..3) or MCFAN_IGMP_PROTO_MLD (16 bytes).
 * @param addr
 *   The address.
 * @param buf
 *   At least MCFAN_IGMP_ADDR_STR bytes.
 * @return
 *   buf.
 */
char *mcfan_igmp_addr_format(uint8_t proto, const uint8_t *addr, char *buf);

/**
 * The IPv6 link-local address of a MAC (fe80::/64 + modified EUI-64, RFC 4291 appendix A,
 * RFC 2464 section 4): the MLD source a port uses without --port-ip.
 *
 * @param mac
 *   6 bytes.
 * @param out
 *   16 bytes.
 */
void mcfan_igmp_link_local(const uint8_t *mac, uint8_t *out);

/**
 * Whether a host never sends reports (nor leaves) for a group address: the all-systems
 * group 224.0.0.1 (RFC 2236 section 6, RFC 3376 section 5: "never reported"), the
 * link-scope all-nodes address ff02::1 and addresses of scope 0 (reserved) or 1
 * (interface-local) (RFC 2710 section 5, RFC 3810 section 6). Frames of such a group are
 * still received; a snooping switch floods them (RFC 4541 section 2.1.2).
 *
 * @param proto
 *   MCFAN_IGMP_PROTO_IGMP (bytes 0..3) or MCFAN_IGMP_PROTO_MLD (16 bytes).
 * @param group
 *   The group address.
 * @return
 *   true: never reported; false: reported as any other group.
 */
bool mcfan_igmp_never_reported(uint8_t proto, const uint8_t *group);

/**
 * Whether a group address is in a source-specific multicast range: 232.0.0.0/8 (IPv4) or
 * ff3x::/96, i.e. ff3X:0:0:0:0:0:: with any scope X (IPv6) (RFC 4607 section 1). A router
 * ignores an any-source join of such a group (IGMPv3 TO_EX {}, MLDv2 EXCLUDE {}; RFC 4604
 * section 2.2.2), so it forwards nothing without GROUP@SOURCE; a LAN without routers (a
 * snooping switch only) still forwards it.
 *
 * @param proto
 *   MCFAN_IGMP_PROTO_IGMP (bytes 0..3) or MCFAN_IGMP_PROTO_MLD (16 bytes).
 * @param group
 *   The group address; NULL is not in the range.
 * @return
 *   true: in an SSM range.
 */
bool mcfan_igmp_ssm_range(uint8_t proto, const uint8_t *group);

#endif /* MCFAN_IGMP_H */
