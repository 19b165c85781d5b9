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
 *
 * Idle (datapath/idle.h): an iteration that found no work hands over to the lcore's
 * idle policy, loaded with one relaxed load per iteration; it may pause or
 * sleep, never longer than the lcore's sleep cap, and an RX lcore goes
 * RCU-offline while it sleeps. After each burst that enqueued, an RX lcore
 * checks whether some worker sleeps (one relaxed load after a fence; the wake
 * protocol in datapath/idle.c) and wakes the ones it fed.
 */

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "mcfan.h"
#include "datapath/idle.h"

/* Charge state s up to now; reads the TSC only when accounting is on. */
static inline void
ms_add_now(struct mcfan_msacc *ms, bool on, enum mcfan_ms_state s)
{
	if (on)
		mcfan_msacc_add(ms, s, rte_rdtsc());
}

/* Wake protocol, RX side: order the enqueues before the load (see datapath/idle.c). */
static inline void
kick_workers(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (unlikely(__atomic_load_n(&app->idle_sleepers, __ATOMIC_RELAXED) != 0))
		mcfan_idle_kick_slow(app, lc);
}

/* One pass over the lcore's ports; returns the frames received. */
static unsigned int
rx_pass(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int burst, bool ms_on)
{
	struct rte_mbuf *pkts[MCFAN_MAX_BURST];
	const struct mcfan_group_table *table;
	unsigned int i;
	unsigned int total = 0;
	uint16_t port, n;
	uint64_t now;

	for (i = 0; i < lc->n_ports; i++) {
		port = lc->ports[i];
		n = rte_eth_rx_burst(port, 0, pkts, (uint16_t)burst);
		now = rte_rdtsc();
		lc->idle.rx[i].frames += n;
		/* one msacc write section per poll: the poll counted and its time charged */
		if (ms_on)
			mcfan_msacc_add_poll(&lc->ms, n == 0 ? MCFAN_MS_POLL_EMPTY : MCFAN_MS_RX,
					     now, n);
		if (n == 0)
			continue;
		table = __atomic_load_n(&app->groups, __ATOMIC_ACQUIRE);
		mcfan_fanout_stage(&lc->rx, table, pkts, n, now);
		ms_add_now(&lc->ms, ms_on, MCFAN_MS_CLASSIFY);
		if (mcfan_fanout_flush(&lc->rx) != 0)
			kick_workers(app, lc);
		ms_add_now(&lc->ms, ms_on, MCFAN_MS_FANOUT);
		total += n;
	}
	return total;
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
		if (n == 0) {
			if (ms_on)
				mcfan_msacc_add_poll(&lc->ms, MCFAN_MS_POLL_EMPTY, rte_rdtsc(), 0);
			continue;
		}
		now = rte_rdtsc(); /* needed anyway: RX-to-dequeue latency */
		if (ms_on)
			mcfan_msacc_add_poll(&lc->ms, MCFAN_MS_DEQUEUE, now, n);
		mcfan_worker_burst(lc->ws, pkts, n, n + avail, now, app->meta_offset);
		ms_add_now(&lc->ms, ms_on, MCFAN_MS_PROCESS);
		total += n;
	}
	lc->idle.wk.frames += total;
	return total;
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
	unsigned int burst, work;
	uint32_t phase, policy;
	uint64_t now;
	bool ms_on, ms_was_on = __atomic_load_n(&lc->ms.paused, __ATOMIC_RELAXED) == 0;

	if (lc->role == MCFAN_ROLE_NONE)
		return 0;
	if (rx)
		rte_rcu_qsbr_thread_online(app->qsbr, lc->rx_index);
	mcfan_idle_lcore_start(app, lc, rte_rdtsc());

	for (;;) {
		phase = __atomic_load_n(&app->phase, __ATOMIC_ACQUIRE);
		burst = __atomic_load_n(&app->burst, __ATOMIC_RELAXED);
		policy = __atomic_load_n(&lc->idle.policy, __ATOMIC_RELAXED);
		work = 0;
		ms_on = __atomic_load_n(&app->cfg.msacc, __ATOMIC_RELAXED);
		if (unlikely(ms_on != ms_was_on)) {
			/* switched off: freeze the counters; back on: resume (lib/msacc/mcfan_msacc.h) */
			if (ms_on)
				mcfan_msacc_resume(&lc->ms, rte_rdtsc());
			else
				mcfan_msacc_pause(&lc->ms, rte_rdtsc());
			ms_was_on = ms_on;
		}

		if (rx_running) {
			if (phase == MCFAN_PHASE_RUN) {
				if (!__atomic_load_n(&app->rx_paused, __ATOMIC_ACQUIRE)) {
					work += rx_pass(app, lc, burst, ms_on);
				} else {
					rte_pause();
					ms_add_now(&lc->ms, ms_on, MCFAN_MS_SLEEP);
				}
				rte_rcu_qsbr_quiescent(app->qsbr, lc->rx_index);
			} else {
				rte_rcu_qsbr_thread_offline(app->qsbr, lc->rx_index);
				rx_running = false;
				__atomic_fetch_add(&app->rx_done_count, 1, __ATOMIC_RELEASE);
			}
		}
		if (worker) {
			work += worker_pass(app, lc, burst, ms_on);
			if (work == 0 && phase >= MCFAN_PHASE_STOP_RX && !rx_running &&
			    __atomic_load_n(&app->rx_done_count, __ATOMIC_ACQUIRE) == app->n_rx &&
			    mcfan_lcore_rings_empty(app, lc))
				break;
		} else if (!rx_running) {
			break;
		}
		/* rate windows (idle.h): a TSC read when idle, and every few busy iterations */
		if (work == 0 || (++lc->idle.iter & MCFAN_IDLE_TSC_EVERY_MASK) == 0) {
			now = rte_rdtsc();
			if (unlikely(now - lc->idle.win_start >= lc->idle.win_cycles))
				mcfan_idle_window(app, lc, now);
		}
		if (work != 0)
			mcfan_idle_busy(&lc->idle);
		else if (phase == MCFAN_PHASE_RUN)
			mcfan_idle_wait(app, lc, policy, rx_running, ms_on);
	}
	ms_add_now(&lc->ms, ms_on, MCFAN_MS_OTHER);
	return 0;
}
