/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The worker step (datapath/deliver.h): rings polled, feed quality, per-group counts, then
 * each run of copies to its engine instance's deliver hook.
 */

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "mcfan.h"
#include "datapath/deliver.h"
#include "datapath/engine.h"
#include "datapath/feed.h"

/* deliver_burst() reads start[0..n_inst] of mcfan_worker_split(), which splits at most
 * MCFAN_SPLIT_INST_MAX instances (more: all as instance 0, start[] past 1 left unset) */
static_assert(MCFAN_ENGINE_INST_MAX <= MCFAN_SPLIT_INST_MAX,
	      "mcfan_worker_split() splits every engine instance");

/* Count n more copies handed to a counter of lc (single writer: the lcore). */
static inline void
frames_add(struct mcfan_atomic_u64 *c, uint64_t n)
{
	mcfan_atomic_u64_store(c, mcfan_atomic_u64_load(c, memory_order_relaxed) + n,
			       memory_order_relaxed);
}

/* Hand a run of copies to engine e (instance state priv). local: they came from a ring
 * whose RX lcore runs in this thread, so some may share references (lib/fanout
 * "Local references"): an engine that keeps or frees them gets references of their own
 * first; after one that borrows them, the step gives them up. */
static inline void
deliver_run(struct mcfan_app *app, struct mcfan_lcore *lc, const struct mcfan_engine *e,
	    void *priv, struct rte_mbuf **pkts, uint16_t n, bool local)
{
	if (local && !e->borrows)
		mcfan_copy_own_bulk(pkts, n, app->meta_offset);
	e->deliver(app, lc, priv, pkts, n);
	if (!e->borrows)
		return;
	if (local)
		mcfan_copy_release_bulk(pkts, n, app->meta_offset);
	else
		rte_pktmbuf_free_bulk(pkts, n);
}

/* Hand one ring's burst to the instances of its copies. */
static inline void
deliver_burst(struct mcfan_app *app, struct mcfan_lcore *lc, struct rte_mbuf **pkts,
	      uint16_t n, bool local)
{
	struct rte_mbuf *out[MCFAN_MAX_BURST];
	uint16_t start[MCFAN_ENGINE_INST_MAX + 1], i;
	unsigned int k, n_inst = app->n_inst;
	uint8_t first;

	if (likely(n_inst <= 1)) {
		frames_add(&lc->inst_frames[0], n);
		deliver_run(app, lc, app->inst_engine[0], lc->inst_priv[0], pkts, n, local);
		return;
	}
	/* one compare per copy when the burst is all one instance (the common case) */
	first = mcfan_meta(pkts[0], app->meta_offset)->inst;
	for (i = 1; i < n; i++)
		if (mcfan_meta(pkts[i], app->meta_offset)->inst != first)
			break;
	if (i == n) {
		k = first < n_inst ? first : 0;
		frames_add(&lc->inst_frames[k], n);
		deliver_run(app, lc, app->inst_engine[k], lc->inst_priv[k], pkts, n, local);
		return;
	}
	mcfan_worker_split(pkts, n, app->meta_offset, n_inst, out, start);
	for (k = 0; k < n_inst; k++) {
		uint16_t m = (uint16_t)(start[k + 1] - start[k]);

		if (m == 0)
			continue;
		frames_add(&lc->inst_frames[k], m);
		deliver_run(app, lc, app->inst_engine[k], lc->inst_priv[k], &out[start[k]], m,
			    local);
	}
}

unsigned int
mcfan_worker_step(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int burst,
		  bool ms_on, const struct mcfan_engine *sel, int sel_inst)
{
	struct rte_mbuf *pkts[MCFAN_MAX_BURST];
	unsigned int r, avail, total = 0;
	uint64_t now = 0;
	bool local;
	uint16_t n;

	for (r = 0; r < app->n_rx; r++) {
		n = mcfan_engine_ring_poll(lc, r, pkts, burst, ms_on, &avail, &now);
		if (n == 0)
			continue;
		mcfan_feed_worker_burst(app, lc, pkts, n); /* feed quality: reads, before the free */
		mcfan_worker_account(lc->ws, pkts, n, n + avail, now, app->meta_offset);
		local = lc->in_local[r] != 0;
		if (unlikely(sel != NULL)) {
			frames_add(&lc->sel_frames, n);
			deliver_run(app, lc, sel, NULL, pkts, n, local);
		} else if (unlikely(sel_inst >= 0)) {
			frames_add(&lc->inst_frames[sel_inst], n);
			deliver_run(app, lc, app->inst_engine[sel_inst], lc->inst_priv[sel_inst],
				    pkts, n, local);
		} else {
			deliver_burst(app, lc, pkts, n, local);
		}
		mcfan_engine_charge(&lc->ms, ms_on, MCFAN_MS_PROCESS);
		total += n;
	}
	if (total == 0) {
		mcfan_feed_worker_idle(app, lc);
	} else {
		/* after the deliver() calls: the slot drain waits for this count, not for
		 * ws->frames (counted before them), so a drained slot has every copy in its engine
		 * (the pcap writer's ring included: control/pcap.c closes files by it) */
		mcfan_atomic_u64_store(&lc->handed, mcfan_atomic_u64_load(&lc->handed,
				       memory_order_relaxed) + total, memory_order_release);
	}
	/* engines' deferred work, every pass (a NULL check an instance when they have none) */
	for (r = 0; r < app->n_inst; r++)
		if (app->inst_engine[r]->pass != NULL)
			app->inst_engine[r]->pass(app, lc, lc->inst_priv[r]);
	return total;
}
