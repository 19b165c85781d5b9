/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_FEED_H
#define MCFAN_FEED_H

/**
 * @file
 * Feed quality of a multicast group: the sequence extractors (what number a datagram
 * carries) and the sequence tracker (what was expected, received, lost, reordered,
 * duplicated; jitter; a bounded gap-event log). Pure logic: no application state, no
 * allocation after mcfan_feed_group_create(), nothing that blocks.
 *
 * Extractors (docs/feed.md gives each format with its source):
 *  - iperf2: iperf 2.1's UDP datagram header (struct UDP_datagram in iperf2's
 *    include/payloads.h, as Debian 12's iperf 2.1.8 sends it): a 32-bit big-endian id at
 *    offset 0, tv_sec at 4, tv_usec at 8, the upper 32 bits of the id (id2) at 12; the
 *    64-bit id (id2 << 32 | id) is negative in the datagrams that end a test, which carry
 *    -(the next sequence number).
 *  - rtp: RFC 3550 section 5.1 (version 2, 16-bit sequence number at offset 2, timestamp
 *    at 4, SSRC at 8); the sequence is extended to 64 bits as in appendix A.1; a new SSRC
 *    starts a new session.
 *  - mpegts: ISO/IEC 13818-1 section 2.4.3.2: 188-byte transport packets (sync byte 0x47,
 *    13-bit PID, 4-bit continuity_counter that counts packets with a payload per PID, the
 *    adaptation field's discontinuity_indicator); every packet of a datagram is checked.
 *  - moldudp64: NASDAQ MoldUDP64 1.00: a 10-byte session, a 64-bit big-endian sequence
 *    number of the first message, a 16-bit message count; the next expected sequence is
 *    sequence + count; count 0 is a heartbeat, 0xFFFF the end of the session.
 *  - generic "offset:width:be|le": an unsigned 1, 2, 4 or 8-byte sequence number at a byte
 *    offset of the UDP payload, big- or little-endian; 1, 2 and 4-byte numbers are
 *    extended to 64 bits as RTP's are.
 *
 * Writer/reader protocol: a struct mcfan_feed_group has one writer, the worker lcore that
 * owns it (mcfan_feed_group_owner()), which wraps each update in rte_seqcount_write_begin()
 * and rte_seqcount_write_end(); any other thread reads it with mcfan_feed_group_read(),
 * which retries while the sequence is odd or changed (a bounded number of times).
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_seqcount.h>

#include "mcfan_group.h"

/** What a group's datagrams are parsed as. */
enum mcfan_feed_kind {
	MCFAN_FEED_OFF = 0,   /**< No extractor. */
	MCFAN_FEED_IPERF2,    /**< iperf 2 UDP datagram header. */
	MCFAN_FEED_RTP,       /**< RFC 3550. */
	MCFAN_FEED_MPEGTS,    /**< ISO/IEC 13818-1 transport packets. */
	MCFAN_FEED_MOLDUDP64, /**< NASDAQ MoldUDP64. */
	MCFAN_FEED_GENERIC,   /**< offset:width:be|le. */
	MCFAN_FEED_KINDS      /**< Number of kinds; not a kind. */
};

/** Longest text of a kind ("offset:width:be|le", "rtp:CLOCK"), bytes without the NUL. */
#define MCFAN_FEED_SPEC_STR_MAX 31
/** Largest generic offset, bytes into the UDP payload. */
#define MCFAN_FEED_GENERIC_OFFSET_MAX 1472
/** RTP clock rate when none is given: 90 kHz, RFC 3551 section 5 (video). */
#define MCFAN_FEED_RTP_CLOCK_DEFAULT 90000
/** Largest RTP clock rate accepted, Hz. */
#define MCFAN_FEED_RTP_CLOCK_MAX 10000000

/** A kind and its parameters. */
struct mcfan_feed_spec {
	enum mcfan_feed_kind kind;
	uint16_t offset;    /**< generic: byte offset in the UDP payload. */
	uint8_t width;      /**< generic: 1, 2, 4 or 8 bytes. */
	bool little_endian; /**< generic: le. */
	uint32_t clock_hz;  /**< rtp: RTP timestamp clock, Hz. */
};

/** Default reorder window in packets (sequence numbers): feed handlers' out-of-order max. */
#define MCFAN_FEED_WINDOW_PKTS_DEFAULT 1024
/** Largest reorder window in packets. */
#define MCFAN_FEED_WINDOW_PKTS_MAX 65536
/** Default reorder window in time, ns (feed handlers' lost-packet wait time): 100 ms. */
#define MCFAN_FEED_WINDOW_NS_DEFAULT 100000000ULL
/** Largest reorder window in time, ns: 60 s. */
#define MCFAN_FEED_WINDOW_NS_MAX 60000000000ULL
/** A forward or backward jump of more than this many sequence numbers is a reset. */
#define MCFAN_FEED_RESET_JUMP (1ULL << 24)
/** Gap-size histogram buckets: bucket b counts gaps of 2^b .. 2^(b+1) - 1 numbers. */
#define MCFAN_FEED_GAP_BUCKETS 16
/** Gap events kept per group (the newest; older ones are overwritten). */
#define MCFAN_FEED_GAP_LOG 64
/** Gaps waiting for their reorder window at once; a new gap beyond this settles the oldest. */
#define MCFAN_FEED_OPEN_GAPS 32
/** MPEG-TS PIDs (13 bits). */
#define MCFAN_FEED_TS_PIDS 8192
/** Skew histogram buckets per sign (A/B pairs): bucket b counts |skew| of 2^b .. 2^(b+1) - 1
 * ns (bucket 0 also 0 ns), the last from 2^(MCFAN_FEED_SKEW_BUCKETS - 1) ns on. */
#define MCFAN_FEED_SKEW_BUCKETS 32

/** Reorder window and the like, fixed at mcfan_feed_group_create(). */
struct mcfan_feed_params {
	uint32_t window_pkts; /**< A missing number is lost once this many later ones came. */
	uint64_t window_ns;   /**< ... or once this long passed since its gap was seen, ns. */
};

/** One gap event: a run of missing sequence numbers. */
struct mcfan_feed_gap {
	uint64_t first;   /**< First missing sequence number (mpegts: continuity counter). */
	uint64_t last;    /**< Last missing one. */
	uint64_t t_ns;    /**< When the gap was seen (the caller's clock, ns). */
	uint64_t lost;    /**< Of first..last, how many never came in the window. */
	uint32_t stream;  /**< mpegts: the PID; otherwise 0. */
	uint32_t pad;
};

/** The counters of one group (units: sequence numbers; mpegts: transport packets;
 * moldudp64: messages). */
struct mcfan_feed_counters {
	uint64_t datagrams;   /**< Datagrams looked at. */
	uint64_t expected;    /**< Numbers from each session's first to its highest. */
	uint64_t received;    /**< Numbers received (once each; late ones too). */
	uint64_t lost;        /**< Missing numbers whose window ran out. */
	uint64_t pending;     /**< Missing numbers still inside the window (may come). */
	uint64_t reordered;   /**< Numbers that came late but inside the window: filled a gap. */
	uint64_t late;        /**< Numbers that came after they were counted lost. */
	uint64_t duplicates;  /**< Numbers received again. */
	uint64_t gaps;        /**< Gap events (runs of missing numbers). */
	uint64_t resets;      /**< Sequence restarts: a jump ahead beyond MCFAN_FEED_RESET_JUMP
			       *   or back beyond the bitmap (twice the window), an RTP resync
			       *   (RFC 3550 A.1), an MPEG-TS discontinuity_indicator. */
	uint64_t sessions;    /**< Session changes (RTP SSRC, MoldUDP64 session, a new iperf2
			       *   test after its end). */
	uint64_t ends;        /**< End-of-stream datagrams (iperf2 negative ids, MoldUDP64
			       *   end of session). */
	uint64_t heartbeats;  /**< MoldUDP64 heartbeats. */
	uint64_t malformed;   /**< Datagrams too short or not of the kind: not counted above. */
	uint64_t jitter_ns;   /**< RFC 3550 6.4.1 interarrival jitter, ns; from 0 again at a
			       *   new session (a source's own, RFC 3550 A.8). */
	uint64_t gap_hist[MCFAN_FEED_GAP_BUCKETS]; /**< Gaps by size (log2 buckets). */
	uint64_t gap_log_total; /**< Gap events ever logged (the log keeps the newest). */
};

/** An A/B pair's view of one line. */
struct mcfan_feed_line {
	uint64_t first_arrivals; /**< Numbers this line delivered first. */
	uint64_t arb_duplicates; /**< Numbers this line delivered after the other line. */
	uint64_t missed;         /**< Numbers settled that this line never delivered. */
};

/** The arbitrated stream of an A/B pair and each line's share. */
struct mcfan_feed_arb_counters {
	struct mcfan_feed_counters merged;        /**< The arbitrated stream (union). */
	struct mcfan_feed_line line[2];           /**< A, B. */
	/** B minus A arrival of the same number: [0] B later or equal, [1] B earlier; log2 ns
	 * buckets (MCFAN_FEED_SKEW_BUCKETS). */
	uint64_t skew_hist[2][MCFAN_FEED_SKEW_BUCKETS];
	uint64_t skew_max_ns[2];                  /**< Largest |skew| per sign, ns. */
};

struct mcfan_feed_group;
struct mcfan_feed_arb;

/**
 * Parse a kind: "iperf2", "rtp" or "rtp:CLOCK_HZ", "mpegts", "moldudp64",
 * "OFFSET:WIDTH:be|le" (width 1, 2, 4 or 8; offset 0..MCFAN_FEED_GENERIC_OFFSET_MAX), or
 * "off".
 *
 * @param text
 *   NUL-terminated text; may be NULL (-EINVAL).
 * @param spec
 *   Receives the kind; untouched on error. Must not be NULL.
 * @param err
 *   Receives a message naming the offending text on error (may be NULL).
 * @param len
 *   Size of err, bytes.
 * @return
 *   0, or -EINVAL.
 */
int mcfan_feed_spec_parse(const char *text, struct mcfan_feed_spec *spec, char *err,
			  size_t len);

/**
 * Format a kind as mcfan_feed_spec_parse() reads it.
 *
 * @return
 *   buf (cut to len - 1 characters; len must be >= 1).
 */
const char *mcfan_feed_spec_format(const struct mcfan_feed_spec *spec, char *buf, size_t len);

/**
 * Create a group's feed state, sized for its window; the only allocation (libc). Control
 * side.
 *
 * @param spec
 *   The kind; not MCFAN_FEED_OFF.
 * @param params
 *   window_pkts 1..MCFAN_FEED_WINDOW_PKTS_MAX, window_ns 1..MCFAN_FEED_WINDOW_NS_MAX.
 * @param owner
 *   The worker index that will write it (kept for the caller; see mcfan_feed_group_owner()).
 * @return
 *   The state, or NULL with rte_errno EINVAL (bad spec or params) or ENOMEM.
 */
struct mcfan_feed_group *mcfan_feed_group_create(const struct mcfan_feed_spec *spec,
						 const struct mcfan_feed_params *params,
						 uint16_t owner);

/** Free a group's feed state (NULL: no-op). Only once its writer can no longer use it. */
void mcfan_feed_group_free(struct mcfan_feed_group *g);

/**
 * The worker index given at create.
 *
 * @return
 *   The worker index, 0..RTE_MAX_LCORE-1.
 */
uint16_t mcfan_feed_group_owner(const struct mcfan_feed_group *g);

/**
 * The kind given at create.
 *
 * @return
 *   The spec (owned by g, valid until mcfan_feed_group_free()).
 */
const struct mcfan_feed_spec *mcfan_feed_group_spec(const struct mcfan_feed_group *g);

/**
 * Account one datagram: the writer only. Never blocks or allocates.
 *
 * @param g
 *   The group's state.
 * @param payload
 *   The UDP payload; only read. May be NULL when len is 0.
 * @param len
 *   Bytes at payload.
 * @param now_ns
 *   Arrival time on the caller's monotonic clock, ns.
 * @return
 *   0 if the datagram was accounted, -EINVAL if it was counted as malformed.
 */
int mcfan_feed_group_datagram(struct mcfan_feed_group *g, const uint8_t *payload,
			      uint32_t len, uint64_t now_ns);

/**
 * Settle the gaps whose time window ran out without a datagram, and, once the stream has
 * been silent for the time window, every number still missing (so the tail of a stream that
 * stopped, and an A/B line's misses, are counted). An idle writer calls this now and then;
 * the writer only.
 *
 * @param now_ns
 *   The caller's clock, ns.
 */
void mcfan_feed_group_tick(struct mcfan_feed_group *g, uint64_t now_ns);

/**
 * Copy a group's counters and gap log consistently; any thread.
 *
 * @param g
 *   The live state.
 * @param c
 *   Receives the counters. Must not be NULL.
 * @param log
 *   Receives up to max gap events, oldest first; may be NULL when max is 0.
 * @param max
 *   Room in log, events.
 * @return
 *   Gap events written to log (0..min(max, MCFAN_FEED_GAP_LOG)), or -EAGAIN when no
 *   consistent copy could be made in 64 tries (c then holds a per-word copy).
 */
int mcfan_feed_group_read(const struct mcfan_feed_group *g, struct mcfan_feed_counters *c,
			  struct mcfan_feed_gap *log, unsigned int max);

/**
 * Create the arbitration of an A/B pair: both lines' datagrams of one number are merged,
 * the first goes on. Both groups must use the same kind (not mpegts) and the same writer.
 *
 * @return
 *   The state, or NULL with rte_errno EINVAL or ENOMEM.
 */
struct mcfan_feed_arb *mcfan_feed_arb_create(const struct mcfan_feed_spec *spec,
					     const struct mcfan_feed_params *params,
					     uint16_t owner);

/** Free an arbitration (NULL: no-op). */
void mcfan_feed_arb_free(struct mcfan_feed_arb *a);

/**
 * Account one datagram of line 0 (A) or 1 (B) in the arbitration: the writer only.
 *
 * @return
 *   0, or -EINVAL (malformed, or a bad line).
 */
int mcfan_feed_arb_datagram(struct mcfan_feed_arb *a, unsigned int line, const uint8_t *payload,
			    uint32_t len, uint64_t now_ns);

/** mcfan_feed_group_tick() for an arbitration. */
void mcfan_feed_arb_tick(struct mcfan_feed_arb *a, uint64_t now_ns);

/**
 * Copy an arbitration's counters consistently; any thread.
 *
 * @return
 *   0, or -EAGAIN (per-word copy, as mcfan_feed_group_read()).
 */
int mcfan_feed_arb_read(const struct mcfan_feed_arb *a, struct mcfan_feed_arb_counters *c);

/**
 * A quantile of a skew histogram (log2 ns buckets, linear inside a bucket, capped at the
 * maximum).
 *
 * @param hist
 *   MCFAN_FEED_SKEW_BUCKETS counts.
 * @param max_ns
 *   Largest value seen.
 * @param permille
 *   0..1000.
 * @return
 *   ns; 0 for an empty histogram.
 */
uint64_t mcfan_feed_skew_quantile_ns(const uint64_t *hist, uint64_t max_ns,
				     unsigned int permille);

/**
 * Find the UDP payload of a frame that lib/classify accepted (Ethernet, up to
 * MCFAN_MAX_VLAN_TAGS IEEE 802.1Q/802.1ad tags, IPv4 (RFC 791) or IPv6 (RFC 8200, hop-by-hop,
 * routing, destination options and atomic fragment headers), UDP (RFC 768)).
 *
 * @param f
 *   First byte of the Ethernet header; only read.
 * @param len
 *   Bytes at f.
 * @param off
 *   Receives the payload's offset in f.
 * @param plen
 *   Receives the payload's length from the UDP length, bytes (cut to what f holds).
 * @return
 *   0, or -EINVAL if the frame is not such a datagram or is cut short.
 */
int mcfan_feed_udp_payload(const uint8_t *f, uint32_t len, uint32_t *off, uint32_t *plen);

/**
 * What a worker does with the frames of one counter slot: an immutable binding that the
 * control side creates and publishes (struct mcfan_feed_table), and retires by replacing it.
 */
struct mcfan_feed_bind {
	struct mcfan_feed_group *group; /**< The group's tracker, or NULL. */
	struct mcfan_feed_arb *arb;     /**< Its A/B pair's arbitration, or NULL. */
	uint8_t line;                   /**< In arb: 0 = line A, 1 = line B. */
	uint16_t owner;                 /**< The worker index that tracks (the only writer). */
};

/**
 * The published bindings, one per counter slot. Writer/reader protocol: the control side
 * (under the action lock) stores a slot's binding with release and frees a replaced binding
 * and the state it alone pointed to only after a grace period of the worker-step threads'
 * RCU (app->wqsbr: they report a quiescent state between loop passes, never while they hold
 * a binding; control/feed.c); a worker loads the binding of each frame's slot with acquire
 * and tracks the frame only if it is the binding's owner. bound counts the slots with a
 * binding (relaxed both ways: a hint that lets workers skip the lookups). worker[w]
 * belongs to worker w alone.
 */
struct mcfan_feed_table {
	_Atomic(const struct mcfan_feed_bind *) slot[MCFAN_MAX_GROUPS];
	_Atomic uint32_t bound;
	/** Per worker index: TSC of its next idle tick (mcfan_feed_group_tick()). */
	struct {
		uint64_t next_tick_tsc;
	} __rte_cache_aligned worker[MCFAN_MAX_WORKERS];
};

/**
 * Load slot id's binding (acquire); NULL when the slot has none.
 *
 * @return
 *   The binding (owned by the control side, which frees it only after the worker-step
 *   threads' next quiescent state: hold it within one loop pass), or NULL.
 */
static inline const struct mcfan_feed_bind *
mcfan_feed_table_load(const struct mcfan_feed_table *t, uint16_t id)
{
	return atomic_load_explicit(&t->slot[id], memory_order_acquire);
}

/**
 * Are any slots bound (relaxed)?
 *
 * @return
 *   true if at least one slot is bound.
 */
static inline bool
mcfan_feed_table_any(const struct mcfan_feed_table *t)
{
	return atomic_load_explicit(&t->bound, memory_order_relaxed) != 0;
}

/** Fewest datagrams looked at before a kind is judged (mcfan_feed_kind_suspect()). */
#define MCFAN_FEED_SUSPECT_MIN 16

/**
 * Does the kind look wrong for the stream (rtp given for an iperf2 stream, an offset beyond
 * the payload): at least MCFAN_FEED_SUSPECT_MIN datagrams looked at, and more than half of
 * them did not parse as the kind (malformed)? What the console, the report, telemetry and
 * the control side's warning call a kind that does not match.
 *
 * @param c
 *   A group's counters. Must not be NULL.
 * @return
 *   true if most datagrams did not parse.
 */
static inline bool
mcfan_feed_kind_suspect(const struct mcfan_feed_counters *c)
{
	return c->datagrams >= MCFAN_FEED_SUSPECT_MIN && c->malformed > c->datagrams / 2;
}

/**
 * The name of a kind ("iperf2", "rtp", "mpegts", "moldudp64", "generic", "off").
 *
 * @return
 *   A constant string ("invalid" for a value that is no kind).
 */
const char *mcfan_feed_kind_name(enum mcfan_feed_kind kind);

#endif /* MCFAN_FEED_H */
