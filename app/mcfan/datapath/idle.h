/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_DATAPATH_IDLE_H
#define MCFAN_DATAPATH_IDLE_H

/* Idle policies, the data lcore's side: waiting, rate windows and the wake protocol
 * (datapath/idle.c; lib/idle/mcfan_idle.h has the policies, docs/idle.md the numbers). */

#include <stdbool.h>
#include <stdint.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>

#include "mcfan.h"


/** Start of the lcore's loop: timer slack, rate windows. */
void mcfan_idle_lcore_start(struct mcfan_app *app, struct mcfan_lcore *lc, uint64_t now);

/**
 * Start of a hosted lcore's step in its host's thread (docs/idle.md "Hosted workers"): its
 * rate windows. Its host's thread, before the loop.
 */
void mcfan_idle_hosted_start(struct mcfan_app *app, struct mcfan_lcore *lc, uint64_t now);

/**
 * A hosted lcore's own thread: wait, without spinning, until its host has run its last step
 * and stopped its engines (mcfan_idle_hosted_end()); at most 1 s between two looks at
 * the end flag, so that a lost wake-up delays the end only. Blocks: never on a data path.
 */
void mcfan_idle_hosted_wait(struct mcfan_app *app, struct mcfan_lcore *lc);

/**
 * The host is done with hosted lcore lc: release its thread from mcfan_idle_hosted_wait()
 * (a flag, release, then one eventfd write). Its host's thread, after the loop.
 */
void mcfan_idle_hosted_end(struct mcfan_lcore *lc);

/** Close the rate window (when now - win_start >= win_cycles) and update the bound. */
void mcfan_idle_window(struct mcfan_app *app, struct mcfan_lcore *lc, uint64_t now);

/**
 * One loop iteration found no work: count it and, past the policy's
 * threshold, pause or sleep. Never longer than mcfan_idle_sleep_cap_ns().
 * Sleeps are charged to MCFAN_MS_SLEEP and counted (sleeps, wake-ups) when
 * ms_on. An RX lcore (rx_online) goes RCU-offline while it sleeps (app->qsbr), and so does
 * a thread that runs worker steps (wk_online: app->wqsbr, thread id lc->lcore_id).
 */
void mcfan_idle_wait(struct mcfan_app *app, struct mcfan_lcore *lc, uint32_t policy,
		     bool rx_online, bool wk_online, bool ms_on);

/** Slow path of the wake protocol: some worker sleeps; wake those this RX lcore fed. */
void mcfan_idle_kick_slow(struct mcfan_app *app, struct mcfan_lcore *lc);

/**
 * Wake protocol, RX side: a wake-up round now. Orders this lcore's enqueues before its load
 * of the sleepers' count (datapath/idle.c), and wakes the sleeping workers it fed only if
 * some worker sleeps. Clears the pending count of wake amortisation.
 */
static inline void
mcfan_idle_kick(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	lc->idle.kick_frames = 0;
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (unlikely(mcfan_atomic_u32_load(&app->idle_sleepers, memory_order_relaxed) != 0))
		mcfan_idle_kick_slow(app, lc);
}

/**
 * Wake amortisation, RX side (docs/idle.md "Wake-ups, amortised"): a flush delivered n
 * frames at TSC now. Starts a wake-up round at once only when the frames pending since the
 * last round reach kick_fill (a quarter of a worker ring), or, for an RX lcore alone on its
 * CPU, when the oldest of them waited kick_budget; otherwise mcfan_idle_wait() does it at
 * the next iteration that finds no work. O(1) per burst; the round is O(workers).
 */
static inline void
mcfan_idle_kick_note(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int n,
		     uint64_t now)
{
	struct mcfan_idle *id = &lc->idle;

	if (id->kick_frames == 0)
		id->kick_first_tsc = now;
	id->kick_frames += n;
	if (id->kick_frames >= id->kick_fill ||
	    (!id->kick_defer && now - id->kick_first_tsc >= id->kick_budget))
		mcfan_idle_kick(app, lc);
}

/** The iteration found work: the next empty one starts from the beginning. */
static inline void
mcfan_idle_busy(struct mcfan_idle *id)
{
	id->empty = 0;
	id->step_ns = 0;
}

/**
 * Are all of a worker lcore's input rings empty? (Any thread; a snapshot.)
 *
 * @return
 *   true if every ring from an RX lcore to lc held nothing when read.
 */
static inline bool
mcfan_lcore_rings_empty(const struct mcfan_app *app, const struct mcfan_lcore *lc)
{
	unsigned int r;

	for (r = 0; r < app->n_rx; r++)
		if (!rte_ring_empty(lc->in_rings[r]))
			return false;
	return true;
}

#endif /* MCFAN_DATAPATH_IDLE_H */
