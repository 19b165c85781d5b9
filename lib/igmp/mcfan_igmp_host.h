/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_IGMP_HOST_H
#define MCFAN_IGMP_HOST_H

/**
 * @file
 * The host side of IGMP (RFC 1112, 2236, 3376) or MLD (RFC 2710, 3810) on one port, as a
 * pure state machine: time is passed in (ms of any monotonic clock), frames are neither
 * read nor written here (mcfan_igmp.h parses and builds them).
 *
 * What it does:
 *  - join: an unsolicited report at once, then [Robustness Variable] - 1 more, each a
 *    random delay in (0, [Unsolicited Report Interval]] after the one before (RFC 3376
 *    section 5.1, RFC 2236 section 3, RFC 3810 section 6.1, RFC 2710 section 4); v3 / MLDv2
 *    send TO_EX {} (any source) or ALLOW {S} (INCLUDE mode, the given sources);
 *  - leave: v3 / MLDv2 state-change reports TO_IN {} or BLOCK {S}, [Robustness Variable]
 *    times; IGMPv2 one Leave Group to 224.0.0.2; MLDv1 one Done to ff02::2; IGMPv1 nothing;
 *  - queries: the answer after a random delay in [0, Max Resp Time]: v3 / MLDv2 one report
 *    of every group's current state for a general query (one pending at a time, RFC 3376
 *    section 5.2), IS_EX {} / IS_IN {S} for a group-specific query, IS_IN of the queried
 *    sources the host wants for a group-and-source-specific one; IGMPv1/v2 and MLDv1 a
 *    report per group, each on its own timer;
 *  - report suppression (RFC 2236 section 3, RFC 2710 section 4, RFC 1112 appendix I):
 *    while the host speaks IGMPv1/v2 or MLDv1, another member's v1/v2 (MLDv1) report for a
 *    group whose answer is pending cancels that answer; the repeats of a join are kept (a
 *    snooping switch needs a report from each of its ports, and does not pass reports on
 *    to the other members); IGMPv3 and MLDv2 have no suppression (RFC 3376 section 5.2);
 *  - older-version querier compatibility (RFC 3376 section 7.2.1, RFC 3810 section 8.2.1):
 *    a v1 (or v2) query starts that version's Older Version Querier Present timer of
 *    [Robustness Variable] x [Query Interval] + [Query Response Interval] (RFC 3376 8.12,
 *    RFC 3810 9.12), learned from v3 / MLDv2 queries (QRV, QQIC) or the defaults 2 x 125 s +
 *    10 s; while it runs, the host speaks that version. A pinned mode (v2, v3, MLD v1, v2)
 *    speaks its version whatever the querier, except IGMP v2 in front of a v1 querier
 *    (RFC 2236 section 4).
 *
 * Single-threaded: one caller (the control lcore) owns a host; nothing here locks.
 */

#include <stdbool.h>
#include <stdint.h>

#include "mcfan_igmp.h"

/** The version a port speaks: off, pinned (1..3), or the querier's (auto). */
enum mcfan_igmp_mode {
	MCFAN_IGMP_MODE_OFF = 0,   /**< Send nothing (queries are still counted). */
	MCFAN_IGMP_MODE_V1 = 1,    /**< MLDv1 (IGMP: not offered, v2 falls back to it). */
	MCFAN_IGMP_MODE_V2 = 2,    /**< IGMPv2 or MLDv2. */
	MCFAN_IGMP_MODE_V3 = 3,    /**< IGMPv3. */
	MCFAN_IGMP_MODE_AUTO = 4,  /**< The querier's version; the newest without one. */
};

/** Why a message is sent (for the log and the counters). */
enum mcfan_igmp_why {
	MCFAN_IGMP_WHY_JOIN = 1,   /**< Unsolicited report / state change of a join. */
	MCFAN_IGMP_WHY_LEAVE,      /**< Leave, Done or state change of a leave. */
	MCFAN_IGMP_WHY_GENERAL,    /**< Answer to a general query. */
	MCFAN_IGMP_WHY_GROUP,      /**< Answer to a group-specific query. */
	MCFAN_IGMP_WHY_SOURCE,     /**< Answer to a group-and-source-specific query. */
};

/** Defaults of RFC 3376 section 8 and RFC 3810 section 9. */
#define MCFAN_IGMP_ROBUSTNESS 2            /**< [Robustness Variable] */
#define MCFAN_IGMP_QUERY_INTERVAL_MS 125000 /**< [Query Interval], 125 s */
#define MCFAN_IGMP_QRI_MS 10000            /**< [Query Response Interval], 10 s */
#define MCFAN_IGMP_URI_V3_MS 1000          /**< IGMPv3 / MLDv2 [Unsolicited Report Interval] */
#define MCFAN_IGMP_URI_V2_MS 10000         /**< IGMPv1/v2 (RFC 2236 8.10), MLDv1 (RFC 2710 7.10) */

/** One group of a host. */
struct mcfan_igmp_group {
	uint8_t addr[16];      /**< The group. */
	uint8_t n_src;         /**< 0: EXCLUDE {} (any source); else INCLUDE these sources. */
	bool leaving;          /**< Left: its leave messages are still being sent. */
	uint8_t change_left;   /**< Join/leave messages still to send. */
	uint8_t query_why;     /**< Pending answer: MCFAN_IGMP_WHY_GENERAL/GROUP/SOURCE, 0 none. */
	uint8_t n_qsrc;        /**< Sources of a pending group-and-source answer. */
	bool reported;         /**< A report of it was sent at least once. */
	/** v3 / MLDv2: records of a pending source change (mcfan_igmp_host_set_sources()),
	 * sent instead of the join's record while change_left > 0; 0: none. */
	uint8_t n_chg;
	uint8_t sources[MCFAN_IGMP_MAX_SOURCES][16];
	struct mcfan_igmp_record chg[2]; /**< TO_EX {}, TO_IN {S}, or ALLOW {new} + BLOCK {old}. */
	uint8_t qsrc[MCFAN_IGMP_MAX_SOURCES][16];
	uint64_t change_due_ms; /**< When the next join/leave message is due. */
	uint64_t query_due_ms;  /**< When the pending answer is due. */
	uint64_t last_report_ms; /**< When a report of it was last sent. */
};

/** Counters of one host; versions index 1..3 (0 unused). */
struct mcfan_igmp_counters {
	uint64_t queries_general[4];   /**< General queries seen, per version of the query. */
	uint64_t queries_group[4];     /**< Group-specific queries seen. */
	uint64_t queries_source[4];    /**< Group-and-source-specific queries seen. */
	uint64_t reports_sent[4];      /**< Reports sent, per version sent. */
	uint64_t leaves_sent[4];       /**< Leaves / Dones / leave state changes sent. */
	/** Answers to a query not sent because another member's report for the group was
	 * heard first (report suppression, IGMPv1/v2 and MLDv1 only), per version heard. */
	uint64_t reports_suppressed[4];
	uint64_t invalid[MCFAN_IGMP_INVALID_MAX]; /**< Frames not taken (index 0: taken). */
};

/** The IGMP or MLD host of one port. */
struct mcfan_igmp_host {
	uint8_t proto;              /**< enum mcfan_igmp_proto. */
	uint8_t mode;               /**< enum mcfan_igmp_mode. */
	uint8_t robustness;         /**< [Robustness Variable] in use (learned QRV, else 2). */
	bool have_querier;          /**< A query has been seen. */
	uint8_t querier_version;    /**< Version of the last query. */
	uint8_t querier[16];        /**< Source of the last query. */
	bool general_pending;       /**< A v3 / MLDv2 general answer is scheduled. */
	uint32_t qi_ms;             /**< [Query Interval] in use, ms. */
	uint32_t general_cursor;    /**< Next group of a general answer that spans frames. */
	uint64_t querier_seen_ms;   /**< When the last query arrived. */
	uint64_t older1_until_ms;   /**< IGMPv1 / MLDv1 querier present until then. */
	uint64_t older2_until_ms;   /**< IGMPv2 querier present until then. */
	uint64_t general_due_ms;    /**< When the general answer is due. */
	uint64_t rng;               /**< xorshift64 state of the random delays. */
	unsigned int n_groups;
	unsigned int max_groups;
	struct mcfan_igmp_group *groups; /**< n_groups of max_groups (calloc). */
	struct mcfan_igmp_counters c;
};

/**
 * Parse a mode name.
 *
 * @param proto
 *   MCFAN_IGMP_PROTO_IGMP (auto, v2, v3, off) or MCFAN_IGMP_PROTO_MLD (auto, v1, v2, off).
 * @param text
 *   The name. Must not be NULL.
 * @return
 *   The enum mcfan_igmp_mode value (>= 0), or -EINVAL.
 */
int mcfan_igmp_mode_parse(uint8_t proto, const char *text);

/**
 * Name of a mode: "off", "v1", "v2", "v3", "auto"; "invalid" otherwise.
 *
 * @param mode
 *   An enum mcfan_igmp_mode value.
 * @return
 *   A static string.
 */
const char *mcfan_igmp_mode_name(enum mcfan_igmp_mode mode);

/**
 * Name of a reason to send: "join", "leave", "general_query", "group_query",
 * "source_query"; "invalid" otherwise.
 *
 * @param why
 *   An enum mcfan_igmp_why value.
 * @return
 *   A static string.
 */
const char *mcfan_igmp_why_name(enum mcfan_igmp_why why);

/**
 * Set up a host.
 *
 * @param h
 *   The host to fill. Must not be NULL.
 * @param proto
 *   MCFAN_IGMP_PROTO_IGMP or MCFAN_IGMP_PROTO_MLD.
 * @param mode
 *   An enum mcfan_igmp_mode value valid for proto (not MCFAN_IGMP_MODE_V1 for IGMP, not
 *   MCFAN_IGMP_MODE_V3 for MLD).
 * @param max_groups
 *   Most groups at once, 1..65536.
 * @param seed
 *   Seed of the random delays (any value; 0 is replaced).
 * @return
 *   0, -EINVAL for a bad argument, -ENOMEM.
 */
int mcfan_igmp_host_init(struct mcfan_igmp_host *h, uint8_t proto, uint8_t mode,
			 unsigned int max_groups, uint64_t seed);

/**
 * Free what mcfan_igmp_host_init() allocated.
 *
 * @param h
 *   The host, or NULL.
 */
void mcfan_igmp_host_free(struct mcfan_igmp_host *h);

/**
 * The version the host speaks now.
 *
 * @param h
 *   The host.
 * @param now_ms
 *   Now, ms.
 * @return
 *   0 when the mode is off, else 1..3 (IGMP) or 1..2 (MLD).
 */
unsigned int mcfan_igmp_host_version(const struct mcfan_igmp_host *h, uint64_t now_ms);

/**
 * Join a group: its unsolicited reports are due at once (mcfan_igmp_host_poll()).
 *
 * @param h
 *   The host.
 * @param group
 *   The group address (16 bytes; IPv4 in 0..3).
 * @param sources
 *   n_src source addresses (INCLUDE mode), or NULL when n_src is 0 (any source).
 * @param n_src
 *   0..MCFAN_IGMP_MAX_SOURCES.
 * @param now_ms
 *   Now, ms.
 * @return
 *   0; -EEXIST if the group is joined (and not leaving); -ENOSPC if max_groups are
 *   joined; -EINVAL for too many sources.
 */
int mcfan_igmp_host_join(struct mcfan_igmp_host *h, const uint8_t *group,
			 const uint8_t (*sources)[16], unsigned int n_src, uint64_t now_ms);

/**
 * Change the sources of a joined group (the union of its joins changed, docs/igmp.md):
 * v3 / MLDv2 send the state-change records of RFC 3376 section 5.1 / RFC 3810 section 6.1,
 * [Robustness Variable] times as for a join: EXCLUDE {} to INCLUDE {S}: TO_IN {S};
 * INCLUDE {A} to EXCLUDE {}: TO_EX {}; INCLUDE {A} to INCLUDE {B}: ALLOW {B - A} and BLOCK
 * {A - B} (the non-empty ones, in one report). IGMPv1/v2 and MLDv1 send reports as for a
 * join (they carry no sources).
 *
 * @param h
 *   The host.
 * @param group
 *   The group address.
 * @param sources
 *   n_src source addresses (INCLUDE mode), or NULL when n_src is 0 (any source).
 * @param n_src
 *   0..MCFAN_IGMP_MAX_SOURCES.
 * @param now_ms
 *   Now, ms.
 * @return
 *   1 if the sources changed (the reports are due at once), 0 if they are the same set;
 *   -ENOENT if the group is not joined (or leaving); -EINVAL for too many sources.
 */
int mcfan_igmp_host_set_sources(struct mcfan_igmp_host *h, const uint8_t *group,
				const uint8_t (*sources)[16], unsigned int n_src, uint64_t now_ms);

/**
 * Leave a group: its leave messages are due at once; the group goes once they are sent.
 *
 * @param h
 *   The host.
 * @param group
 *   The group address.
 * @param now_ms
 *   Now, ms.
 * @return
 *   0, or -ENOENT if the group is not joined (or already leaving).
 */
int mcfan_igmp_host_leave(struct mcfan_igmp_host *h, const uint8_t *group, uint64_t now_ms);

/**
 * Leave every group (mcfan stops): as mcfan_igmp_host_leave() for each joined group.
 *
 * @param h
 *   The host.
 * @param now_ms
 *   Now, ms.
 * @return
 *   Groups left (those already leaving are not counted).
 */
unsigned int mcfan_igmp_host_leave_all(struct mcfan_igmp_host *h, uint64_t now_ms);

/**
 * Make every join, change or leave message still to send due now, instead of after its
 * random delay: for the last moments before the port closes, when there is no time to
 * wait (the repeats then follow each other at once).
 *
 * @param h
 *   The host.
 * @param now_ms
 *   Now, ms.
 * @return
 *   Groups with such a message pending.
 */
unsigned int mcfan_igmp_host_hurry(struct mcfan_igmp_host *h, uint64_t now_ms);

/**
 * Take a valid query (mcfan_igmp_parse() returned MCFAN_IGMP_VALID, type query): count it,
 * note the querier, run the compatibility timers and schedule the answer.
 *
 * @param h
 *   The host.
 * @param msg
 *   The query (its proto must be the host's; otherwise it is ignored).
 * @param now_ms
 *   Now, ms.
 */
void mcfan_igmp_host_query(struct mcfan_igmp_host *h, const struct mcfan_igmp_msg *msg,
			   uint64_t now_ms);

/**
 * Take another member's report (mcfan_igmp_parse() returned MCFAN_IGMP_NOT_FOR_US with
 * msg->type MCFAN_IGMP_MSG_REPORT): report suppression. If the host speaks IGMPv1/v2 or
 * MLDv1 now, the report is a v1/v2 (MLDv1) one, and the host's answer to a query for that
 * group is pending, the answer is cancelled and counted in reports_suppressed[version of
 * the report heard] (RFC 2236 section 3, RFC 2710 section 4). Anything else is ignored:
 * a v3 / MLDv2 report, a report heard while the host speaks v3 / MLDv2, a group not
 * joined or leaving, nothing pending.
 *
 * @param h
 *   The host.
 * @param msg
 *   The report (its proto must be the host's).
 * @param now_ms
 *   Now, ms.
 * @return
 *   1 if a pending answer was cancelled, else 0.
 */
int mcfan_igmp_host_report_heard(struct mcfan_igmp_host *h, const struct mcfan_igmp_msg *msg,
				 uint64_t now_ms);

/**
 * Hand out the next message that is due, and advance the state (counters, retransmissions,
 * groups whose leave is complete are removed). Call until it returns 0.
 *
 * @param h
 *   The host.
 * @param now_ms
 *   Now, ms.
 * @param out
 *   Receives the message (for mcfan_igmp_build()) when 1 is returned.
 * @return
 *   1 if out holds a message to send, 0 if nothing is due.
 */
int mcfan_igmp_host_poll(struct mcfan_igmp_host *h, uint64_t now_ms, struct mcfan_igmp_send *out);

/**
 * How long the host's groups have gone without a querier: a snooping switch keeps a port's
 * membership only as long as queries are answered (it prunes the group after its membership
 * interval, or floods it), and a host reports only when asked. Silent means: the host has a
 * group it is not leaving, its mode is not off, and no query has come for the Other Querier
 * Present Interval (RFC 3376 8.5, RFC 3810 9.5: [Robustness Variable] x [Query Interval] +
 * [Query Response Interval] / 2, 255 s with the defaults; the querier's QRV and QQIC when it
 * sent them) since the later of the last query and since_ms.
 *
 * @param h
 *   The host.
 * @param since_ms
 *   From when to count when no query came since: the last time the host had no group (or
 *   its start), ms on the clock of now_ms.
 * @param now_ms
 *   Now, ms.
 * @return
 *   ms without a query (at least the interval) while silent; 0 otherwise.
 */
uint64_t mcfan_igmp_host_querier_silent_ms(const struct mcfan_igmp_host *h, uint64_t since_ms,
					   uint64_t now_ms);

/**
 * When the host next has something to send or to remove, without changing it: the earliest
 * of its groups' pending join, leave or change messages, its pending answers to queries
 * (general, group-specific, group-and-source-specific) and its left groups whose leave is
 * complete (due at once). For the caller's sleep: mcfan_igmp_host_poll() at that time hands
 * out the message.
 *
 * @param h
 *   The host.
 * @return
 *   The time, ms on the clock mcfan_igmp_host_poll() is given (may be in the past: due now);
 *   UINT64_MAX if nothing is pending.
 */
uint64_t mcfan_igmp_host_next_due(const struct mcfan_igmp_host *h);

/**
 * Find a group.
 *
 * @param h
 *   The host.
 * @param group
 *   The address.
 * @return
 *   The group (valid until the next join, leave or poll), or NULL.
 */
const struct mcfan_igmp_group *mcfan_igmp_host_find(const struct mcfan_igmp_host *h,
						    const uint8_t *group);

/**
 * The group's state as text: "joining" (unsolicited reports still to send), "delaying" (an
 * answer to a query is pending), "idle" (a member, nothing pending), "leaving".
 *
 * @param g
 *   The group.
 * @return
 *   A static string.
 */
const char *mcfan_igmp_group_state(const struct mcfan_igmp_group *g);

#endif /* MCFAN_IGMP_HOST_H */
