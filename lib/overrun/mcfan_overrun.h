/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_OVERRUN_H
#define MCFAN_OVERRUN_H

/**
 * @file
 * Sleep overrun (docs/idle.md "Drops caused by sleeping"): drops that happened because an
 * idle policy slept, kept apart from drops caused by load.
 *
 * A data lcore's sleep window opens when its idle policy starts a sleep and closes when the
 * lcore has got back to what arrived meanwhile: at its first loop iteration that finds no
 * work, or once it has taken as many frames as its inputs hold (the RX descriptors of its
 * (port, queue) pairs and its worker rings: the most that can have waited for it when it
 * woke; what it takes after that arrived after the wake). Drops in a window:
 *  - ring side, exact, counted by the RX lcore that saw the ring full (copies): a copy
 *    refused by worker W's full ring while W's window is open is W's sleep overrun; else,
 *    while the RX lcore's own window is open (the backlog it took on waking overflowed the
 *    ring), the RX lcore's;
 *  - port side (imissed, kernel_drops), counted by the control side from the counters'
 *    deltas over each control tick (app control/overrun.c): a tick's drops of a (port,
 *    queue) whose RX lcore's window was open at some time in that tick are held for that
 *    lcore, and become its sleep overrun when the window closes having taken at least its
 *    smallest RX ring's worth of frames (full_closes: the ring may have been full at the
 *    wake); a window that took less found no full ring, so the held drops were load.
 *
 * Writer/reader protocol of struct mcfan_overrun (one per lcore, in struct mcfan_lcore):
 *  - gen (struct mcfan_atomic_u32): odd while the window is open. W: the lcore (release
 *    store, +1 at the open and +1 at the close). R: the control side (acquire) and the RX
 *    lcores that find the lcore's ring full (relaxed: a hint, read on the slow path only);
 *  - ring_own, ring_worker[] (struct mcfan_atomic_u64): W: the lcore, as an RX lcore
 *    (relaxed store, after the drops they explain were published in its stats block).
 *    R: the control side (relaxed; read before the drops, so never above them);
 *  - full_closes: W: the lcore (relaxed add, published by the release of gen's close).
 *    R: the control side (after its acquire load of gen);
 *  - backlog, rx_count, rx_capacity: set by the main lcore before launch, read only
 *    afterwards (*rx_count is the lcore's own stats counter);
 *  - open, left, rx_at_open, refused_seen, ring_seen[]: private to the lcore.
 * The fast path costs one predictable branch per loop iteration (open) and, after each
 * fan-out flush, one compare of two counters already in cache (refused_seen).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "mcfan_atomic.h"
#include "mcfan_group.h"

/** Sleep overrun state of one data lcore. See the protocol above. */
struct mcfan_overrun {
	struct mcfan_atomic_u32 gen;   /**< Odd while the sleep window is open. */
	/** Windows closed in which the lcore took at least rx_capacity frames from its ports:
	 * its smallest RX ring may have been full when it woke (else no port drop happened
	 * during the sleep: a ring that is not full drops nothing). */
	struct mcfan_atomic_u32 full_closes;
	bool open;                     /**< Private copy of (gen & 1). */
	const uint64_t *rx_count;      /**< Its frames received (set before launch; NULL: none). */
	uint64_t rx_capacity;          /**< Its smallest RX ring, frames (set before launch). */
	unsigned int rx_pairs;         /**< Its (port, queue) pairs (set before launch). */
	uint64_t rx_at_open;           /**< *rx_count when the window opened (private). */
	uint64_t rx_last;              /**< *rx_count at the last iteration (private). */
	bool counting;                 /**< Still taking the backlog found at the wake (private). */
	bool full;                     /**< That backlog filled its smallest ring (private). */
	uint64_t left;                 /**< Frames the lcore may still take in the window. */
	uint64_t backlog;              /**< Frames its inputs hold (set before launch). */
	uint64_t refused_seen;         /**< RX: copies refused by full rings, last checked. */
	/** RX: copies refused by full rings in this lcore's own window. */
	struct mcfan_atomic_u64 ring_own;
	/** RX: per worker index, copies refused by that worker's full ring in its window. */
	struct mcfan_atomic_u64 ring_worker[MCFAN_MAX_WORKERS];
	uint64_t ring_seen[MCFAN_MAX_WORKERS]; /**< RX: ring_drops per worker, last checked. */
};

/**
 * A sleep starts: open the window (if it is not open already). The lcore itself, on its
 * idle path, right before the sleep.
 *
 * @param o
 *   The lcore's state; not NULL.
 */
static inline void
mcfan_overrun_sleep(struct mcfan_overrun *o)
{
	o->left = o->backlog;
	if (o->open)
		return;
	o->open = true;
	o->rx_at_open = o->rx_count != NULL ? *o->rx_count : 0;
	o->rx_last = o->rx_at_open;
	o->counting = o->rx_count != NULL;
	o->full = false;
	mcfan_atomic_u32_add(&o->gen, 1, memory_order_release);
}

/**
 * Close the window (the lcore got back to its inputs, or stops). The lcore itself.
 *
 * @param o
 *   The lcore's state; not NULL.
 */
static inline void
mcfan_overrun_close(struct mcfan_overrun *o)
{
	if (!o->open)
		return;
	o->open = false;
	if (o->full)
		mcfan_atomic_u32_add(&o->full_closes, 1, memory_order_relaxed);
	mcfan_atomic_u32_add(&o->gen, 1, memory_order_release); /* publishes full_closes */
}

/**
 * One loop iteration of an lcore whose window is open (call only when o->open): it took
 * work frames (0: it found none, and has caught up). The backlog found at the wake is
 * what its RX polls took until the first iteration whose polls did not all return full
 * bursts (the rings were then drained); if that reached its smallest RX ring
 * (rx_capacity), the ring may have been full at the wake, and the close counts in
 * full_closes.
 *
 * @param o
 *   The lcore's state; not NULL.
 * @param work
 *   Frames and copies the iteration took, 0..(any).
 * @param burst
 *   Frames asked of each RX poll, 1..MCFAN_MAX_BURST.
 */
static inline void
mcfan_overrun_progress(struct mcfan_overrun *o, unsigned int work, unsigned int burst)
{
	if (o->counting) {
		uint64_t now = *o->rx_count;

		if (now - o->rx_last < (uint64_t)burst * o->rx_pairs) {
			o->counting = false; /* a poll came back short: the backlog is taken */
			o->full = now - o->rx_at_open >= o->rx_capacity;
		}
		o->rx_last = now;
	}
	if (work == 0 || work >= o->left) {
		mcfan_overrun_close(o);
		return;
	}
	o->left -= work;
}

#endif /* MCFAN_OVERRUN_H */
