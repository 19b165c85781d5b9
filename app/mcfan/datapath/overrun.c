/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Sleep overrun, ring side (datapath/overrun.h, lib/overrun/mcfan_overrun.h): an RX lcore
 * whose flush found a worker ring full charges the refused copies to the worker's sleep when
 * the worker's sleep window is open (it slept, or is still working off what arrived while it
 * slept), else to its own sleep when its own window is open (the backlog it took on waking
 * overflowed the ring), else to nobody (load). Runs only after a flush that refused copies.
 */

#include <stdint.h>

#include "mcfan.h"
#include "datapath/overrun.h"

void
mcfan_overrun_ring_slow(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	const struct mcfan_rx_ctx *rx = &lc->rx;
	struct mcfan_overrun *o = &lc->ovr;
	const struct mcfan_lcore *wl;
	uint64_t d, v;
	unsigned int w;

	o->refused_seen = rx->stats.copies_offered - rx->stats.delivered_copies;
	for (w = 0; w < rx->n_workers; w++) {
		d = rx->ring_stats[w].ring_drops - o->ring_seen[w];
		if (d == 0)
			continue;
		o->ring_seen[w] += d;
		wl = &app->lcores[app->worker_lcore_ids[w]];
		if (mcfan_atomic_u32_load(&wl->ovr.gen, memory_order_relaxed) & 1) {
			v = mcfan_atomic_u64_load(&o->ring_worker[w], memory_order_relaxed);
			mcfan_atomic_u64_store(&o->ring_worker[w], v + d, memory_order_relaxed);
		} else if (o->open) {
			v = mcfan_atomic_u64_load(&o->ring_own, memory_order_relaxed);
			mcfan_atomic_u64_store(&o->ring_own, v + d, memory_order_relaxed);
		}
	}
}
