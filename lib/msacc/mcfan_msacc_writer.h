/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_MSACC_WRITER_H
#define MCFAN_MSACC_WRITER_H

/**
 * @file
 * Microstate accounting, the owner lcore's side: the layout of the per-lcore
 * block and the fast-path inlines that charge states and count polls
 * (mcfan_msacc_add(), mcfan_msacc_poll(), mcfan_msacc_add_poll(),
 * mcfan_msacc_note_sleep(), mcfan_msacc_note_wakeup()).
 *
 * Writer protocol: only the owner lcore writes a block (except req, which
 * readers bump). Each write section makes seq odd, stores the counters with
 * relaxed atomic stores and makes seq even again with a release store; no
 * atomic read-modify-write, lock or system call. seq is 64 bits and never
 * wraps, so a snapshot's seq also orders snapshots of one epoch. When a
 * reader asks (req != req_done), the owner publishes a copy into pub under
 * pub_seq (an rte_seqcount) at its next mcfan_msacc_add().
 */

#include <stdint.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_seqcount.h>

#include "mcfan_atomic.h"
#include "mcfan_msacc.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Per-lcore accounting block. One per lcore, written only by that lcore.
 * Initialise with mcfan_msacc_init(); read from elsewhere only through
 * mcfan_msacc_snapshot().
 */
struct mcfan_msacc {
	uint64_t seq;                   /**< Sequence counter: odd while the owner writes. */
	uint64_t last_tsc;              /**< TSC of the last state change. */
	uint64_t cycles[MCFAN_MS_MAX];  /**< Cycles charged to each state up to last_tsc. */
	uint64_t polls;                 /**< Polls (rx_burst or ring dequeue calls). */
	uint64_t polls_work;            /**< Polls that returned at least one frame. */
	uint64_t frames;                /**< Frames returned by all polls. */
	uint64_t hist[MCFAN_MSACC_HIST_BUCKETS]; /**< Non-empty polls by frames per poll. */
	uint64_t sleeps;                /**< Sleep periods started. */
	uint64_t wakeups;               /**< Sleep periods ended by another lcore's wake-up. */
	uint32_t role;                  /**< enum mcfan_role bits. */
	uint32_t state;                 /**< State charged by the last mcfan_msacc_add(). */
	uint32_t paused;                /**< 1 while accounting is off (mcfan_msacc_pause()). */
	uint64_t init_tsc;              /**< TSC at init or restart: start of the counters. */
	/**
	 * Last snapshot request the owner published. W: the owner, release store after it
	 * published. R: the owner (relaxed), readers waiting for their ticket (acquire).
	 */
	struct mcfan_atomic_u64 req_done;
	/**
	 * Snapshot requests: the only field readers write (never the owner), in
	 * its own cache line so the owner's check of it stays an L1 hit. W: readers,
	 * acq_rel add (their ticket). R: the owner, one relaxed load each
	 * mcfan_msacc_add(), acquire before it publishes.
	 */
	struct mcfan_atomic_u64 req __rte_cache_aligned;
	/** Sequence counter of pub (single writer: the owner); odd while it writes pub. */
	rte_seqcount_t pub_seq __rte_cache_aligned;
	/**
	 * Copy the owner publishes, in answer to a request, for readers that
	 * could not find a quiet moment between its writes (a busy-polling lcore
	 * writes every few tens of nanoseconds).
	 */
	struct mcfan_msacc_snap pub;
	/** Per state, its cycles since init that were waiting for a CPU: written by the
	 * control side only (mcfan_msacc_set_wait()), in its own cache lines; never by the
	 * owner. */
	uint64_t wait_adj[MCFAN_MS_MAX] __rte_cache_aligned;
} __rte_cache_aligned;

/** @internal Open a write section (sequence counter becomes odd). Owner only. */
static __rte_always_inline void
mcfan_msacc_write_begin_(struct mcfan_msacc *ms)
{
	/* Only the owner writes seq, so a plain read of it is exact. */
	__atomic_store_n(&ms->seq, ms->seq + 1, __ATOMIC_RELAXED);
	/* Orders the odd seq before the data stores that follow. */
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
}

/** @internal Close a write section (sequence counter becomes even). Owner only. */
static __rte_always_inline void
mcfan_msacc_write_end_(struct mcfan_msacc *ms)
{
	__atomic_store_n(&ms->seq, ms->seq + 1, __ATOMIC_RELEASE);
}

/** @internal Owner-side relaxed increment of a counter that readers may load. */
static __rte_always_inline void
mcfan_msacc_bump_(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

/**
 * Histogram bucket of a non-empty poll.
 *
 * @param nb_frames
 *   Frames returned by the poll, 1 or more.
 * @return
 *   floor(log2(nb_frames)) capped at MCFAN_MSACC_HIST_BUCKETS - 1: 0 for 1
 *   frame, 1 for 2-3, 2 for 4-7, ..., 8 for 256-511, 9 for 512 or more.
 *   0 if nb_frames is 0.
 */
static __rte_always_inline unsigned int
mcfan_msacc_hist_bucket(uint16_t nb_frames)
{
	unsigned int b = rte_fls_u32(nb_frames);

	b = b == 0 ? 0 : b - 1;
	return b < MCFAN_MSACC_HIST_BUCKETS ? b : MCFAN_MSACC_HIST_BUCKETS - 1;
}

/** @internal The body of mcfan_msacc_add() inside a write section. */
static __rte_always_inline void
mcfan_msacc_charge_(struct mcfan_msacc *ms, enum mcfan_ms_state s, uint64_t now_tsc)
{
	uint64_t last = ms->last_tsc;

	if (unlikely((unsigned int)s >= MCFAN_MS_MAX))
		s = MCFAN_MS_OTHER;
	/* A TSC older than the last change charges nothing and never moves time back. */
	if (likely(now_tsc > last)) {
		mcfan_msacc_bump_(&ms->cycles[s], now_tsc - last);
		__atomic_store_n(&ms->last_tsc, now_tsc, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&ms->state, (uint32_t)s, __ATOMIC_RELAXED);
}

/** @internal The body of mcfan_msacc_poll() inside a write section. */
static __rte_always_inline void
mcfan_msacc_count_(struct mcfan_msacc *ms, uint16_t nb_frames)
{
	mcfan_msacc_bump_(&ms->polls, 1);
	if (nb_frames > 0) {
		mcfan_msacc_bump_(&ms->polls_work, 1);
		mcfan_msacc_bump_(&ms->frames, nb_frames);
		mcfan_msacc_bump_(&ms->hist[mcfan_msacc_hist_bucket(nb_frames)], 1);
	}
}

/**
 * Internal, called by the owner from mcfan_msacc_add() when a reader has asked
 * for a copy: publish the block into ms->pub and acknowledge the request. Not
 * for direct use.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 */
void
mcfan_msacc_publish_(struct mcfan_msacc *ms);

/** @internal Answer a pending snapshot request. Owner only; one L1 load when none. */
static __rte_always_inline void
mcfan_msacc_serve_(struct mcfan_msacc *ms)
{
	if (unlikely(mcfan_atomic_u64_load(&ms->req, memory_order_relaxed) !=
		     mcfan_atomic_u64_load(&ms->req_done, memory_order_relaxed)))
		mcfan_msacc_publish_(ms);
}

/**
 * Charge the cycles since the last state change to state s: "the time since
 * the last change was spent in s". Sets last_tsc to now_tsc and the current
 * state to s. Owner lcore only; no atomic read-modify-write, no lock, no
 * system call. A now_tsc not after last_tsc charges nothing.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 * @param s
 *   State the elapsed time was spent in; out-of-range values count as
 *   MCFAN_MS_OTHER.
 * @param now_tsc
 *   Current TSC (cycles), normally rte_rdtsc() right after the work.
 */
static inline void
mcfan_msacc_add(struct mcfan_msacc *ms, enum mcfan_ms_state s, uint64_t now_tsc)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_charge_(ms, s, now_tsc);
	mcfan_msacc_write_end_(ms);
	mcfan_msacc_serve_(ms);
}

/**
 * As mcfan_msacc_add(), then name the state of the time until the owner's next change:
 * a snapshot taken meanwhile charges those pending cycles to next instead of s. For an
 * owner about to wait a long time in a known state (the control lcore's sleep between
 * ticks), so that snapshots during the wait do not guess it as the work before it. Owner
 * lcore only; no atomic read-modify-write, no lock, no system call.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 * @param s
 *   State the elapsed time was spent in (as mcfan_msacc_add()).
 * @param next
 *   State of the time from now_tsc to the next change; out-of-range values count as
 *   MCFAN_MS_OTHER.
 * @param now_tsc
 *   Current TSC (cycles).
 */
static inline void
mcfan_msacc_add_then(struct mcfan_msacc *ms, enum mcfan_ms_state s, enum mcfan_ms_state next,
		     uint64_t now_tsc)
{
	if (unlikely((unsigned int)next >= MCFAN_MS_MAX))
		next = MCFAN_MS_OTHER;
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_charge_(ms, s, now_tsc);
	__atomic_store_n(&ms->state, (uint32_t)next, __ATOMIC_RELAXED);
	mcfan_msacc_write_end_(ms);
	mcfan_msacc_serve_(ms);
}

/**
 * Count one poll (rx_burst or ring dequeue): polls += 1 and, if nb_frames > 0,
 * polls_work += 1, frames += nb_frames and one histogram bucket += 1. Owner
 * lcore only; no atomic read-modify-write, no lock, no system call.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 * @param nb_frames
 *   Frames the poll returned (0 .. 65535).
 */
static inline void
mcfan_msacc_poll(struct mcfan_msacc *ms, uint16_t nb_frames)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_count_(ms, nb_frames);
	mcfan_msacc_write_end_(ms);
}

/**
 * mcfan_msacc_add() and mcfan_msacc_poll() in one write section: same result
 * as calling both, a little cheaper. Owner lcore only.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 * @param s
 *   State the elapsed time was spent in.
 * @param now_tsc
 *   Current TSC (cycles).
 * @param nb_frames
 *   Frames the poll returned (0 .. 65535).
 */
static inline void
mcfan_msacc_add_poll(struct mcfan_msacc *ms, enum mcfan_ms_state s, uint64_t now_tsc,
		uint16_t nb_frames)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_charge_(ms, s, now_tsc);
	mcfan_msacc_count_(ms, nb_frames);
	mcfan_msacc_write_end_(ms);
	mcfan_msacc_serve_(ms);
}

/**
 * Count the start of one sleep period (sleeps += 1). Owner lcore only. The
 * cycles of the sleep itself are charged with mcfan_msacc_add(MCFAN_MS_SLEEP)
 * when it ends.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 */
static inline void
mcfan_msacc_note_sleep(struct mcfan_msacc *ms)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_bump_(&ms->sleeps, 1);
	mcfan_msacc_write_end_(ms);
}

/**
 * Count one wake-up by another lcore (wakeups += 1), as seen by the lcore that
 * was woken. Owner lcore only.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 */
static inline void
mcfan_msacc_note_wakeup(struct mcfan_msacc *ms)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_bump_(&ms->wakeups, 1);
	mcfan_msacc_write_end_(ms);
}

#ifdef __cplusplus
}
#endif

#endif /* MCFAN_MSACC_WRITER_H */
