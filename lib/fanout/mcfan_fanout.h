/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_FANOUT_H
#define MCFAN_FANOUT_H

/**
 * @file
 * The fast path between an RX burst and the worker rings, and the worker's
 * side of the rings.
 *
 * Counting rules (exact, at every burst boundary):
 *  - frames: rx_frames = delivered_frames + sum(drops[reason]);
 *    a frame is delivered if at least one copy reached a worker ring,
 *    otherwise it counts once under its drop reason (ring_full if every copy
 *    found its ring full);
 *  - copies: copies_offered = delivered_copies + sum over workers of
 *    ring_drops; in partition mode every frame is one copy.
 *
 * Every mbuf that is not enqueued is freed at once; a replicated frame is
 * shared by reference count (rte_pktmbuf_refcnt_update, every segment), never copied.
 *
 * Writer/reader protocol: each stats block has exactly one writer, the lcore
 * that owns it (an RX lcore's block, once that lcore has stopped, the thread that
 * drains its queues: mcfan_rx_stats_add_drops()), which wraps each update in
 * rte_seqcount_write_begin() and
 * rte_seqcount_write_end() on the block's seq (odd while writing); readers on
 * other threads copy the block with mcfan_rx_stats_read() / mcfan_rx_ctx_read()
 * / mcfan_worker_stats_read() and retry while the sequence is odd or changed
 * (the worker reader a bounded number of times).
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_seqcount.h>
#include <rte_ring.h>

#include "mcfan_classify.h"
#include "mcfan_group.h"

/** Largest burst, in frames (the --burst range is 1..MCFAN_MAX_BURST). */
#define MCFAN_MAX_BURST 512

/** Per-frame metadata kept in an mbuf dynamic field, written by the RX lcore. */
struct mcfan_mbuf_meta {
	uint64_t rx_tsc;   /**< TSC when the burst was received, cycles. */
	uint16_t group_id; /**< Counter slot of the group, 0..MCFAN_MAX_GROUPS-1. */
	uint8_t inst;      /**< The group's worker engine instance (mcfan_group_entry inst). */
	/**
	 * Local shares (see "Local references" below): 0, or the number of the frame's copies
	 * not yet released that went to workers run by the RX lcore's own thread (itself, or
	 * lcores it hosts), which share one mbuf reference between them. Only that thread
	 * reads or writes it while it is not 0.
	 */
	uint8_t local_refs;
	/**
	 * The group's membership number (mcfan_group_entry join_seq): tells a left group's
	 * copies from those of a later group in the same counter slot, for a consumer that
	 * lags behind the slot drain (the pcap engine's writer).
	 */
	uint32_t join_seq;
};

/*
 * Local references. A replicated frame is one mbuf with one reference per copy (its
 * refcnt), and each copy's free is an atomic decrement: about 25 cycles a copy on this
 * kind of host, the larger part of a worker's cost per copy. When two or more of a frame's
 * copies go to workers whose steps run in the RX lcore's own thread (a run-to-completion
 * lcore, or worker lcores it hosts: docs/idle.md "Hosted workers"), mcfan_fanout_stage()
 * gives those copies one reference between them and counts them in the frame's
 * local_refs, which only that thread touches, so it needs no atomic operation. A copy that
 * came through such a ring (a local copy) is given up with mcfan_copy_release_bulk(), never
 * with rte_pktmbuf_free(); before it is handed to anything that keeps it or frees it as
 * an mbuf (a PMD, another ring), mcfan_copy_own_bulk() turns it into a reference of its own.
 * Copies to workers of other threads keep one reference each, as before.
 */

/** Most (port, RX queue) pairs whose frames and drops one RX lcore's stats count apart. */
#define MCFAN_RX_STATS_PAIRS RTE_MAX_ETHPORTS

/** One (port, RX queue) pair's part of an RX lcore's counters (struct mcfan_rx_stats). */
struct mcfan_rx_pair_stats {
	uint64_t rx_frames;             /**< Frames rx_burst returned from the pair. */
	uint64_t drops[MCFAN_DROP_MAX]; /**< Its frames per drop reason (index 0 unused). */
};

/** Counters of one RX lcore. Single writer: that lcore; after it stopped, the quit drain
 * (mcfan_rx_stats_add_drops()). */
struct mcfan_rx_stats {
	rte_seqcount_t seq;             /**< Odd while the owner writes the block. */
	uint32_t seq_pad;               /**< Keeps the counters 64-bit aligned. */
	uint64_t rx_frames;             /**< Frames returned by rx_burst. */
	uint64_t rx_bytes;              /**< Their pkt_len, bytes. */
	uint64_t delivered_frames;      /**< Frames with at least one copy enqueued. */
	uint64_t copies_offered;        /**< Copies classified for enqueue (1 per target). */
	uint64_t delivered_copies;      /**< Copies enqueued to worker rings. */
	uint64_t drops[MCFAN_DROP_MAX]; /**< Frames per drop reason (index 0 unused). */
	/** Frames delivered to a group whose destination MAC is not the group's multicast MAC
	 * (mcfan_classify_mac_mismatch()); counted, not dropped. */
	uint64_t mac_mismatch;
	/** Entries of pair[] counted (0..MCFAN_RX_STATS_PAIRS): the pairs the lcore polls, set
	 * before launch, constant after. 0: none (the totals above only). Readers copy only
	 * pair[0..n_pairs-1] (mcfan_rx_stats_read(), mcfan_rx_ctx_read()). */
	uint32_t n_pairs;
	uint32_t n_pairs_pad;           /**< Keeps pair[] 64-bit aligned. */
	/** Per pair (index: struct mcfan_rx_ctx pair): its frames and drops, added at each
	 * flush with the totals; summed over the pairs they are rx_frames and drops[]. */
	struct mcfan_rx_pair_stats pair[MCFAN_RX_STATS_PAIRS];
} __rte_cache_aligned;

/** Per-(RX lcore, worker) ring counters. Single writer: the RX lcore. */
struct mcfan_ring_stats {
	uint64_t enqueued;   /**< Copies enqueued, frames. */
	uint64_t ring_drops; /**< Copies that found the ring full, frames. */
};

/** Work staged by mcfan_fanout_stage() and not yet flushed. */
struct mcfan_rx_pending {
	uint64_t drops[MCFAN_DROP_MAX]; /**< Frames dropped so far, per reason. */
	uint64_t mac_mismatch;          /**< Frames found in a group with a foreign MAC. */
	uint64_t bytes;                 /**< Bytes of the staged frames. */
	uint64_t offered;               /**< Copies staged. */
	uint16_t frames;                /**< Frames taken since the last flush. */
	uint16_t delivered;             /**< Frames with at least one copy staged. */
	uint16_t n_grouped;             /**< Entries of grouped[]. */
	uint16_t copies_left[MCFAN_MAX_BURST]; /**< Per frame: copies not yet refused. */
	uint16_t group[MCFAN_MAX_BURST];       /**< Per grouped frame: its counter slot. */
	uint16_t grouped[MCFAN_MAX_BURST];     /**< Frames that matched a group, in order. */
};

/**
 * Per-group counters of one RX lcore, indexed by counter slot (0..MCFAN_MAX_GROUPS-1).
 * Single writer: that lcore, inside the write section of its mcfan_rx_stats.seq; read with
 * mcfan_rx_group_read().
 */
struct mcfan_rx_group_stats {
	uint64_t frames[MCFAN_MAX_GROUPS];     /**< Frames of the group received. */
	uint64_t copy_drops[MCFAN_MAX_GROUPS]; /**< Copies refused by full worker rings. */
};

/** State of one RX lcore's fan-out. Owned by that lcore. */
struct mcfan_rx_ctx {
	struct mcfan_rx_stats stats;
	unsigned int n_workers;                     /**< Rings, one per worker. */
	struct rte_ring **rings;                    /**< rings[w]: this lcore -> worker w. */
	struct mcfan_ring_stats *ring_stats;        /**< ring_stats[w], n_workers entries. */
	struct mcfan_rx_group_stats *group_stats;   /**< Per group, under stats.seq. */
	struct rte_mbuf **stage;                    /**< n_workers x MCFAN_MAX_BURST staging. */
	uint16_t *stage_frame;                      /**< Frame index of each staged mbuf. */
	uint16_t *stage_count;                      /**< Staged mbufs per worker. */
	int meta_offset;                            /**< Offset of struct mcfan_mbuf_meta. */
	struct mcfan_rx_pending pend;               /**< Staged, not yet enqueued. */
	/** Where control frames (MCFAN_DROP_CONTROL: IGMP, MLD) go, single producer (this
	 * lcore), single consumer (the control lcore, control/igmp.c); NULL: they are freed.
	 * Set before the lcore is launched. Either way they count under drops[CONTROL],
	 * except those the full ring refuses: drops[CTL_RING_FULL]. */
	struct rte_ring *ctl_ring;
	/** local[w] 1: worker w's step runs in this lcore's thread (itself, or an lcore it
	 * hosts), so its copies may share one reference (mcfan_rx_ctx_set_local()); 0: not. */
	uint8_t *local;
	/** The (port, RX queue) pair the staged burst came from (stats.pair[] index), set by
	 * the RX engine before mcfan_fanout_stage(); 0 by default. Not counted per pair when
	 * >= stats.n_pairs. */
	uint16_t pair;
};

/**
 * Buckets of the RX-to-dequeue latency histogram: bucket b counts copies that
 * waited 2^b .. 2^(b+1) - 1 ns (bucket 0 also 0 ns); the last bucket counts
 * everything from 2^(MCFAN_LAT_BUCKETS - 1) ns (about 2.1 s) on.
 */
#define MCFAN_LAT_BUCKETS 32

/** Fixed-point shift of mcfan_worker_stats.lat_ns_mult: ns = (cycles * mult) >> shift. */
#define MCFAN_LAT_MULT_SHIFT 32

/**
 * Bytes between the per-group arrays of struct mcfan_worker_stats. Each array is 8 KiB, so
 * without it group g's four counters would lie exactly 8 KiB apart: the same low 12 address
 * bits, and each of the worker's per-copy loads would wait on the store just made to the
 * previous array (4K aliasing); perf annotate put 58 % of mcfan_worker_burst() there.
 */
#define MCFAN_WS_ALIAS_PAD 1024

/** Counters of one worker lcore. Single writer: that worker. */
struct mcfan_worker_stats {
	rte_seqcount_t seq;            /**< Odd while the owner writes the block. */
	uint32_t seq_pad;              /**< Keeps the counters 64-bit aligned (per-word copy). */
	uint64_t frames;               /**< Copies dequeued and processed. */
	uint64_t bytes;                /**< Their pkt_len, bytes. */
	uint64_t ring_high_water;      /**< Most copies seen waiting in one ring, frames. */
	/** TSC cycles to ns, from mcfan_lat_ns_mult(); set before the worker starts. 0 counts
	 * every copy in bucket 0. */
	uint64_t lat_ns_mult;
	uint64_t lat_max_ns;           /**< Longest RX-to-dequeue time seen, ns. */
	/** Sum of every copy's RX-to-dequeue time, ns (the histogram's sum: one add a burst). */
	uint64_t lat_sum_ns;
	uint64_t lat_hist[MCFAN_LAT_BUCKETS]; /**< Copies per log2(ns) bucket (see above). */
	uint64_t group_frames[MCFAN_MAX_GROUPS];
	uint8_t alias_pad1[MCFAN_WS_ALIAS_PAD]; /**< Unused: see MCFAN_WS_ALIAS_PAD. */
	uint64_t group_bytes[MCFAN_MAX_GROUPS];
	uint8_t alias_pad2[MCFAN_WS_ALIAS_PAD]; /**< Unused. */
	uint64_t group_first_tsc[MCFAN_MAX_GROUPS]; /**< TSC of the first frame, 0 = none. */
	uint8_t alias_pad3[MCFAN_WS_ALIAS_PAD]; /**< Unused. */
	uint64_t group_last_tsc[MCFAN_MAX_GROUPS];  /**< TSC of the last frame. */
} __rte_cache_aligned;

/**
 * Register (or find) the mbuf dynamic field that carries struct mcfan_mbuf_meta.
 *
 * @return
 *   The field's byte offset in the mbuf (>= 0), or a negative errno
 *   (-ENOMEM, -EEXIST with another size, as rte_mbuf_dynfield_register()).
 */
int mcfan_meta_register(void);

/**
 * Access the metadata of an mbuf.
 *
 * @param m
 *   The mbuf.
 * @param offset
 *   The offset returned by mcfan_meta_register().
 * @return
 *   Pointer into the mbuf.
 */
static inline struct mcfan_mbuf_meta *
mcfan_meta(struct rte_mbuf *m, int offset)
{
	return RTE_MBUF_DYNFIELD(m, offset, struct mcfan_mbuf_meta *);
}

/**
 * Initialise an RX lcore's fan-out state.
 *
 * @param ctx
 *   The state to fill. Must not be NULL.
 * @param rings
 *   n_workers rings (single producer, single consumer), copied by pointer;
 *   the caller keeps ownership of the rings.
 * @param n_workers
 *   1..MCFAN_MAX_WORKERS.
 * @param meta_offset
 *   From mcfan_meta_register().
 * @param socket_id
 *   NUMA socket for the staging arrays.
 * @return
 *   0, -EINVAL for a bad count, -ENOMEM.
 */
int mcfan_rx_ctx_init(struct mcfan_rx_ctx *ctx, struct rte_ring **rings, unsigned int n_workers,
		      int meta_offset, int socket_id);

/**
 * Say whether worker w's step runs in this RX lcore's own thread (it is the lcore itself,
 * or an lcore it hosts), so that copies to it may share references ("Local references").
 * Before the lcores are launched.
 *
 * @param ctx
 *   The state from mcfan_rx_ctx_init().
 * @param w
 *   Worker index, 0..n_workers-1.
 * @param local
 *   True: run by this lcore's thread.
 * @return
 *   0, or -EINVAL for a worker index out of range.
 */
int mcfan_rx_ctx_set_local(struct mcfan_rx_ctx *ctx, unsigned int w, bool local);

/**
 * Give up local copies ("Local references"): each copy that holds a local share gives
 * its share back, and the last share of a frame frees the reference the shares held
 * (rte_pktmbuf_free_bulk(), which returns the mbuf to its pool when no reference is left);
 * a copy without shares (local_refs 0) is freed as it is. Only for copies taken from a
 * ring whose RX lcore runs in the calling thread. The fast path: never blocks.
 *
 * @param pkts
 *   The copies; all of them are given up (mbuf ownership ends here).
 * @param n
 *   0..MCFAN_MAX_BURST.
 * @param meta_offset
 *   From mcfan_meta_register().
 */
void mcfan_copy_release_bulk(struct rte_mbuf **pkts, uint16_t n, int meta_offset);

/**
 * Make every local copy in pkts a reference of its own ("Local references"), before the
 * copies are handed to code that frees them or keeps them as mbufs (a PMD's transmit, an
 * engine without the borrow contract): for a frame whose shares are still out, every local
 * copy of it not yet given up, this one and the others, gets a reference of its own in one
 * rte_mbuf_refcnt_update() (local_refs - 1 more), and local_refs becomes 0, so the others
 * are given up as plain references later. Afterwards each copy is owned as any mbuf
 * reference is. Same thread rule as mcfan_copy_release_bulk().
 *
 * @param pkts
 *   The copies; still owned by the caller, now one reference each.
 * @param n
 *   0..MCFAN_MAX_BURST.
 * @param meta_offset
 *   From mcfan_meta_register().
 */
void mcfan_copy_own_bulk(struct rte_mbuf **pkts, uint16_t n, int meta_offset);

/**
 * Release what mcfan_rx_ctx_init() allocated (not the rings).
 *
 * @param ctx
 *   The state, or NULL.
 */
void mcfan_rx_ctx_free(struct mcfan_rx_ctx *ctx);

/**
 * Classify a burst, look up groups and enqueue to worker rings.
 *
 * Takes ownership of all n mbufs: each is enqueued to one or more rings or
 * freed, and counted (see the counting rules above). Never blocks.
 *
 * @param ctx
 *   The calling RX lcore's state.
 * @param table
 *   The group table, read only (the caller holds its RCU read side).
 * @param pkts
 *   The burst.
 * @param n
 *   0..MCFAN_MAX_BURST frames.
 * @param rx_tsc
 *   TSC of the rx_burst, cycles, stored in each frame's metadata.
 * @return
 *   Frames delivered (at least one copy enqueued), 0..n.
 */
uint16_t mcfan_fanout_burst(struct mcfan_rx_ctx *ctx, const struct mcfan_group_table *table,
			    struct rte_mbuf **pkts, uint16_t n, uint64_t rx_tsc);

/**
 * First half of mcfan_fanout_burst(): classify, look up and stage a burst for
 * the worker rings, without enqueueing. Lets the caller account classify and
 * fan-out time apart. Must be followed by mcfan_fanout_flush() before the next
 * rx_burst; up to MCFAN_MAX_BURST frames may be staged in total (frames beyond
 * that are left to the caller, which must not happen with bursts of at most
 * MCFAN_MAX_BURST).
 *
 * Takes ownership of the n mbufs: dropped ones are freed and counted at once,
 * the others are staged; control frames go to ctx->ctl_ring when there is one, counted
 * under drops[MCFAN_DROP_CONTROL] (one the full ring refuses is freed and counted under
 * drops[MCFAN_DROP_CTL_RING_FULL] instead).
 *
 * @param ctx
 *   The calling RX lcore's state.
 * @param table
 *   The group table, read only (the caller holds its RCU read side).
 * @param pkts
 *   The burst.
 * @param n
 *   0..MCFAN_MAX_BURST frames.
 * @param rx_tsc
 *   TSC of the rx_burst, cycles, stored in each frame's metadata.
 * @return
 *   Frames taken, 0..n: less than n only if more than MCFAN_MAX_BURST frames
 *   were staged since the last flush; the caller keeps the rest.
 */
uint16_t mcfan_fanout_stage(struct mcfan_rx_ctx *ctx, const struct mcfan_group_table *table,
			struct rte_mbuf **pkts, uint16_t n, uint64_t rx_tsc);

/**
 * Second half of mcfan_fanout_burst(): enqueue what mcfan_fanout_stage()
 * staged, free and count copies refused by full rings, and publish the
 * counters (one rte_seqcount write section).
 *
 * @param ctx
 *   The calling RX lcore's state.
 * @return
 *   Frames delivered (at least one copy enqueued) since the last flush.
 */
uint16_t mcfan_fanout_flush(struct mcfan_rx_ctx *ctx);

/**
 * Count frames that another thread took from one of an RX lcore's (port, RX queue) pairs
 * and dropped, exactly where the lcore counts the frames it drops itself: the block's
 * rx_frames, rx_bytes and drops[reason], and the pair's rx_frames and drops[reason], so
 * that the lcore's, the pair's (the port's) and the summed totals all include them. For the
 * quit drain (app/mcfan/control/quitdrain.c: MCFAN_DROP_QUIT_DRAINED), which receives what
 * is left in a queue once the lcore has stopped. One rte_seqcount write section, the same
 * publication as mcfan_fanout_flush(), so readers see the counters change together.
 * Only while the owning lcore does not run (joined, or not launched): the block keeps one
 * writer at a time. Not a fast-path function.
 *
 * @param st
 *   The RX lcore's stats block (struct mcfan_rx_ctx stats). Must not be NULL.
 * @param pair
 *   The pair's index in st->pair[] (the lcore's pairs in poll order); st->n_pairs or more:
 *   counted in the lcore's counters only, under no pair.
 * @param reason
 *   The drop reason, MCFAN_DROP_NONE + 1 .. MCFAN_DROP_MAX - 1.
 * @param frames
 *   Frames to count.
 * @param bytes
 *   Their pkt_len summed, bytes.
 * @return
 *   0, or -EINVAL for a reason out of range (nothing counted).
 */
int mcfan_rx_stats_add_drops(struct mcfan_rx_stats *st, unsigned int pair,
			     enum mcfan_drop reason, uint64_t frames, uint64_t bytes);

/**
 * Process and free a burst of mbufs dequeued by a worker.
 *
 * Counts frames and bytes per group in ws and each copy's RX-to-dequeue time
 * (now_tsc - its rx_tsc) in ws->lat_hist and ws->lat_sum_ns, then frees every mbuf (which
 * returns it to its pool once the last reference is dropped).
 *
 * @param ws
 *   The calling worker's stats.
 * @param pkts
 *   The burst; ownership passes to this function.
 * @param n
 *   0..MCFAN_MAX_BURST.
 * @param waiting
 *   Copies that were in the ring before this dequeue (n + what
 *   rte_ring_dequeue_burst reported as still available); feeds the
 *   high-water mark.
 * @param now_tsc
 *   TSC of the dequeue, cycles: the end of each copy's RX-to-dequeue time.
 * @param meta_offset
 *   From mcfan_meta_register().
 */
void mcfan_worker_burst(struct mcfan_worker_stats *ws, struct rte_mbuf **pkts, uint16_t n,
			unsigned int waiting, uint64_t now_tsc, int meta_offset);

/**
 * Count a burst of copies dequeued by a worker exactly as mcfan_worker_burst() does, but
 * keep them: for worker engines that hand the copies on (tx, pcap) and free them later.
 *
 * @param pkts
 *   The burst; ownership stays with the caller (only their metadata and pkt_len are read).
 * @param n, waiting, now_tsc, meta_offset
 *   As for mcfan_worker_burst().
 */
void mcfan_worker_account(struct mcfan_worker_stats *ws, struct rte_mbuf *const *pkts,
			  uint16_t n, unsigned int waiting, uint64_t now_tsc, int meta_offset);

/** Most worker engine instances mcfan_worker_split() sorts into. */
#define MCFAN_SPLIT_INST_MAX 16

/**
 * Sort a burst of copies by the engine instance in their metadata (struct mcfan_mbuf_meta
 * inst), keeping the order of the copies within an instance (a stable counting sort:
 * O(n + n_inst), no allocation). A copy whose instance is n_inst or more counts as
 * instance 0. The caller then hands out[start[i] .. start[i + 1] - 1] to instance i.
 * The fast path of a worker: never blocks, allocates or prints.
 *
 * @param pkts
 *   The burst, n copies; ownership stays with the caller (only the metadata is read).
 * @param n
 *   0..MCFAN_MAX_BURST.
 * @param meta_offset
 *   From mcfan_meta_register().
 * @param n_inst
 *   Instances, 1..MCFAN_SPLIT_INST_MAX.
 * @param out
 *   Receives the n copies, grouped by instance in instance order (room for n).
 * @param start
 *   Receives n_inst + 1 offsets into out: instance i's run is start[i] .. start[i + 1] - 1,
 *   start[n_inst] = n.
 * @return
 *   The number of instances with at least one copy (0 when n is 0).
 */
unsigned int mcfan_worker_split(struct rte_mbuf *const *pkts, uint16_t n, int meta_offset,
				unsigned int n_inst, struct rte_mbuf **out, uint16_t *start);

/**
 * Multiplier that turns TSC cycles into nanoseconds for the latency histogram.
 *
 * @param tsc_hz
 *   TSC rate, Hz (rte_get_tsc_hz()); not 0.
 * @return
 *   (10^9 << MCFAN_LAT_MULT_SHIFT) / tsc_hz, for mcfan_worker_stats.lat_ns_mult.
 */
uint64_t mcfan_lat_ns_mult(uint64_t tsc_hz);

/**
 * A quantile of a latency histogram, interpolated linearly inside its log2
 * bucket and never above the maximum seen.
 *
 * @param hist
 *   MCFAN_LAT_BUCKETS counts, as in mcfan_worker_stats.lat_hist.
 * @param max_ns
 *   The longest time seen, ns (caps the answer).
 * @param permille
 *   The quantile in 1/1000: 500 for the median, 990 for p99; 0..1000.
 * @return
 *   The quantile, ns; 0 for an empty histogram.
 */
uint64_t mcfan_lat_quantile_ns(const uint64_t *hist, uint64_t max_ns, unsigned int permille);

/**
 * Copy an RX lcore's stats consistently (rte_seqcount read); any thread. Only the used
 * part is copied: the counters and pair[0..src->n_pairs-1]; the rest of dst's pair[] is
 * zeroed.
 *
 * @param src
 *   The live stats.
 * @param dst
 *   The copy.
 */
void mcfan_rx_stats_read(const struct mcfan_rx_stats *src, struct mcfan_rx_stats *dst);

/**
 * Copy an RX lcore's stats and its per-worker ring counters consistently
 * (both in one rte_seqcount read); any thread. Of ctx->stats.pair[] only the first
 * n_pairs entries are copied, the rest of stats->pair[] is zeroed.
 *
 * @param ctx
 *   The live RX state.
 * @param stats
 *   The copy of ctx->stats.
 * @param ring_stats
 *   Receives ctx->n_workers entries, or NULL to skip them.
 */
void mcfan_rx_ctx_read(const struct mcfan_rx_ctx *ctx, struct mcfan_rx_stats *stats,
		       struct mcfan_ring_stats *ring_stats);

/**
 * Copy an RX lcore's per-group counters consistently (in one rte_seqcount read of its
 * stats block); any thread.
 *
 * @param ctx
 *   The live RX state (set up by mcfan_rx_ctx_init()).
 * @param out
 *   The copy (16 KiB: do not put many on a small stack).
 */
void mcfan_rx_group_read(const struct mcfan_rx_ctx *ctx, struct mcfan_rx_group_stats *out);

/**
 * Copy a worker's stats; any thread. Tries a consistent (rte_seqcount) copy; a
 * worker that rewrites its block faster than it can be copied (64 tries)
 * gets a copy made word by word, in which every counter is a value the
 * worker stored but two counters may come from different bursts. Never
 * spins for ever.
 *
 * @param src
 *   The live stats.
 * @param dst
 *   The copy (large: about 33 KiB; do not put many on a small stack).
 * @return
 *   0 for a consistent copy, -EAGAIN for a per-word copy.
 */
int mcfan_worker_stats_read(const struct mcfan_worker_stats *src,
			    struct mcfan_worker_stats *dst);

#endif /* MCFAN_FANOUT_H */
