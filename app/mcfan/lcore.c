/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The data lcores' loop. An lcore is RX, worker, or both (run-to-completion).
 * Never blocks, allocates, prints or locks. Stop order: the main lcore moves
 * the phase to STOP_RX; RX lcores finish their burst, go offline and count
 * themselves done; workers drain their rings once every RX lcore is done,
 * then return. While the console's `stop` holds (app->rx_paused), RX lcores
 * skip rx_burst (frames wait in the PMD, or count as its imissed) and go on
 * reporting RCU quiescent states, so group table updates still complete.
 */

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "mcfan.h"

static inline void
ms_add(struct mcfan_msacc *ms, bool on, enum mcfan_ms_state s, uint64_t now)
{
	if (on)
		mcfan_msacc_add(ms, s, now);
}

/* One pass over the lcore's ports. */
static void
rx_pass(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int burst, bool ms_on)
{
	struct rte_mbuf *pkts[MCFAN_MAX_BURST];
	const struct mcfan_group_table *table;
	unsigned int i;
	uint16_t port, n;
	uint64_t now;

	for (i = 0; i < lc->n_ports; i++) {
		port = lc->ports[i];
		n = rte_eth_rx_burst(port, 0, pkts, (uint16_t)burst);
		now = rte_rdtsc();
		if (ms_on)
			mcfan_msacc_poll(&lc->ms, n);
		if (n == 0) {
			ms_add(&lc->ms, ms_on, MCFAN_MS_POLL_EMPTY, now);
			continue;
		}
		ms_add(&lc->ms, ms_on, MCFAN_MS_RX, now);
		table = __atomic_load_n(&app->groups, __ATOMIC_ACQUIRE);
		mcfan_fanout_stage(&lc->rx, table, pkts, n, now);
		ms_add(&lc->ms, ms_on, MCFAN_MS_CLASSIFY, rte_rdtsc());
		mcfan_fanout_flush(&lc->rx);
		ms_add(&lc->ms, ms_on, MCFAN_MS_FANOUT, rte_rdtsc());
	}
}

/* One pass over the worker's rings; returns the copies processed. */
static unsigned int
worker_pass(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int burst, bool ms_on)
{
	struct rte_mbuf *pkts[MCFAN_MAX_BURST];
	unsigned int r, avail, total = 0;
	uint16_t n;
	uint64_t now;

	for (r = 0; r < app->n_rx; r++) {
		n = (uint16_t)rte_ring_sc_dequeue_burst(lc->in_rings[r], (void **)pkts, burst,
							&avail);
		now = rte_rdtsc();
		if (ms_on)
			mcfan_msacc_poll(&lc->ms, n);
		if (n == 0) {
			ms_add(&lc->ms, ms_on, MCFAN_MS_POLL_EMPTY, now);
			continue;
		}
		ms_add(&lc->ms, ms_on, MCFAN_MS_DEQUEUE, now);
		mcfan_worker_burst(lc->ws, pkts, n, n + avail, now, app->meta_offset);
		ms_add(&lc->ms, ms_on, MCFAN_MS_PROCESS, rte_rdtsc());
		total += n;
	}
	return total;
}

static bool
rings_empty(const struct mcfan_app *app, const struct mcfan_lcore *lc)
{
	unsigned int r;

	for (r = 0; r < app->n_rx; r++)
		if (!rte_ring_empty(lc->in_rings[r]))
			return false;
	return true;
}

int
mcfan_lcore_main(void *arg)
{
	struct mcfan_app *app = arg;
	unsigned int id = rte_lcore_id();
	struct mcfan_lcore *lc = &app->lcores[id];
	bool rx = (lc->role & MCFAN_ROLE_RX) != 0;
	bool worker = (lc->role & MCFAN_ROLE_WORKER) != 0;
	bool rx_running = rx;
	unsigned int burst;
	uint32_t phase;
	bool ms_on, ms_was_on = true;

	if (lc->role == MCFAN_ROLE_NONE)
		return 0;
	if (rx)
		rte_rcu_qsbr_thread_online(app->qsbr, lc->rx_index);

	for (;;) {
		phase = __atomic_load_n(&app->phase, __ATOMIC_ACQUIRE);
		burst = __atomic_load_n(&app->burst, __ATOMIC_RELAXED);
		ms_on = __atomic_load_n(&app->cfg.msacc, __ATOMIC_RELAXED);
		if (ms_on && !ms_was_on)
			/* accounting was switched back on: the time it was off counts as other */
			mcfan_msacc_add(&lc->ms, MCFAN_MS_OTHER, rte_rdtsc());
		ms_was_on = ms_on;

		if (rx_running) {
			if (phase == MCFAN_PHASE_RUN) {
				if (!__atomic_load_n(&app->rx_paused, __ATOMIC_ACQUIRE)) {
					rx_pass(app, lc, burst, ms_on);
				} else {
					rte_pause();
					ms_add(&lc->ms, ms_on, MCFAN_MS_SLEEP, rte_rdtsc());
				}
				rte_rcu_qsbr_quiescent(app->qsbr, lc->rx_index);
			} else {
				rte_rcu_qsbr_thread_offline(app->qsbr, lc->rx_index);
				rx_running = false;
				__atomic_fetch_add(&app->rx_done_count, 1, __ATOMIC_RELEASE);
			}
		}
		if (worker) {
			if (worker_pass(app, lc, burst, ms_on) == 0 && phase >= MCFAN_PHASE_STOP_RX &&
			    !rx_running &&
			    __atomic_load_n(&app->rx_done_count, __ATOMIC_ACQUIRE) == app->n_rx &&
			    rings_empty(app, lc))
				break;
		} else if (!rx_running) {
			break;
		}
	}
	ms_add(&lc->ms, ms_on, MCFAN_MS_OTHER, rte_rdtsc());
	return 0;
}
