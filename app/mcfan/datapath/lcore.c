/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The data lcores' loop. An lcore has the RX role, the worker role, or both
 * (run-to-completion); each role runs its engine (datapath/engine.h): the loop
 * calls the engines' burst once a pass and knows nothing of what they do.
 * Never blocks, allocates, prints or locks. Stop order: the main lcore moves
 * the phase to STOP_RX; RX lcores finish their burst, go offline and count
 * themselves done; workers drain their rings once every RX lcore is done,
 * then return. While the console's `stop` holds (live rx_paused), RX lcores
 * skip their engine (frames wait in the PMD, or count as its imissed) and go on
 * reporting RCU quiescent states, so group table updates still complete.
 *
 * Hosted workers (docs/idle.md "Hosted workers", control/placement.h): an lcore that
 * hosts others runs their worker step after its own roles, every pass, as their single
 * writer (rings, stats, msacc tables, engines); it ends once their rings are empty too, then
 * stops their engines and releases their threads, which only waited.
 *
 * Idle (datapath/idle.h): an iteration that found no work hands over to the lcore's
 * idle policy, loaded with one relaxed load per iteration; it may pause or
 * sleep, never longer than the lcore's sleep cap, and an RX lcore goes
 * RCU-offline while it sleeps.
 *
 * Worker RCU (app->wqsbr, control/feed.c): a thread that runs worker steps (a worker
 * lcore's own, or a host's for itself and the lcores it hosts) reports one quiescent state a
 * loop pass, after every worker step of the pass (none holds a feed binding then), under its
 * own lcore id: a hosted worker's steps are its host's thread's. It is online from just
 * before its loop to just after it, and offline while it sleeps (mcfan_idle_wait()); its
 * waits between passes (pause, `stop`) pass through the report, so the control side's
 * reclamation of retired feed objects never waits for a sleeping or stopped lcore.
 */

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>

#include "mcfan.h"
#include "log.h"
#include "datapath/deliver.h"
#include "datapath/engine.h"
#include "datapath/idle.h"

/* Run an engine's start hook (before the loop); false if it refused (the app is asked to
 * stop and the lcore runs without that engine). */
static bool
engine_start(struct mcfan_app *app, struct mcfan_lcore *lc, const struct mcfan_engine *e,
	     int *err)
{
	int ret;

	if (e->start == NULL)
		return true;
	ret = e->start(app, lc);
	if (ret == 0)
		return true;
	MCFAN_LOG(ERR, "lcore %u: %s engine %s cannot start: %s; stopping\n", lc->lcore_id,
		  mcfan_engine_side_name(e->side), e->name, rte_strerror(-ret));
	mcfan_atomic_flag_store(&app->live.quit, true, memory_order_release);
	*err = ret;
	return false;
}

/* Whether instance k is the first of its engine (its start and stop run once an lcore). */
static bool
inst_first(const struct mcfan_app *app, unsigned int k)
{
	unsigned int j;

	for (j = 0; j < k; j++)
		if (app->inst_engine[j] == app->inst_engine[k])
			return false;
	return true;
}

/* Start the worker engines of every instance; false if one refused. */
static bool
worker_start(struct mcfan_app *app, struct mcfan_lcore *lc, int *err)
{
	unsigned int k;

	for (k = 0; k < app->n_inst; k++)
		if (inst_first(app, k) && !engine_start(app, lc, app->inst_engine[k], err))
			return false;
	return true;
}

static void
worker_stop(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	unsigned int k;

	for (k = 0; k < app->n_inst; k++)
		if (inst_first(app, k) && app->inst_engine[k]->stop != NULL)
			app->inst_engine[k]->stop(app, lc);
}

/* The `set engine` selection (control/engine.c), re-read every pass: a switch takes effect
 * between two bursts. Run by the thread that runs lc's worker step. */
static inline void
worker_sel(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	uint32_t sel = mcfan_atomic_u32_load(&lc->worker_engine_sel, memory_order_acquire);

	if (likely(sel == lc->run_sel))
		return;
	lc->run_sel = sel;
	/* NULL: every copy to its group's instance (datapath/deliver.h) */
	lc->run_inst = sel >= MCFAN_ENGINE_SEL_INST && sel - MCFAN_ENGINE_SEL_INST < app->n_inst ?
		       (int)(sel - MCFAN_ENGINE_SEL_INST) : -1;
	lc->run_engine = sel == 0 || sel >= MCFAN_ENGINE_SEL_INST ? NULL :
			 mcfan_engine_at(MCFAN_ENGINE_WORKER, sel - 1);
}

static void
run_init(struct mcfan_lcore *lc)
{
	lc->run_sel = 0;
	lc->run_engine = NULL;
	lc->run_inst = -1;
	lc->run_ms_on = __atomic_load_n(&lc->ms.paused, __ATOMIC_RELAXED) == 0;
}

/* msacc switched on or off (lib/msacc/mcfan_msacc.h): freeze the table, or resume it. */
static inline void
ms_switch(struct mcfan_lcore *lc, bool ms_on)
{
	if (likely(ms_on == lc->run_ms_on))
		return;
	if (ms_on)
		mcfan_msacc_resume(&lc->ms, rte_rdtsc());
	else
		mcfan_msacc_pause(&lc->ms, rte_rdtsc());
	lc->run_ms_on = ms_on;
}

/* Worker steps of w until its rings hold nothing of the RX pass that just ran: at most
 * pairs steps (the host polled pairs (port, queue) pairs once, at most burst frames each,
 * and hosting means one RX lcore), fewer once a step takes less than a burst. So the rings
 * of a host and of the workers it hosts hold at most one RX pass between two passes, and
 * the pool counts them so (main.c pool_size_needed()). */
static inline unsigned int
pass_steps(struct mcfan_app *app, struct mcfan_lcore *w, unsigned int burst, bool ms_on,
	   unsigned int pairs)
{
	unsigned int i, n, total = 0;

	for (i = 0; i < RTE_MAX(pairs, 1u); i++) {
		n = mcfan_worker_step(app, w, burst, ms_on, w->run_engine, w->run_inst);
		total += n;
		if (n < burst)
			break;
	}
	return total;
}

/* One pass of a hosted lcore's worker step, in its host's thread (docs/idle.md "Hosted
 * workers"). The host writes the hosted lcore's table: the time since its last pass is its
 * sleep, then its own dequeue and process. */
static inline unsigned int
hosted_pass(struct mcfan_app *app, struct mcfan_lcore *w, unsigned int burst, bool ms_on,
	    unsigned int pairs)
{
	ms_switch(w, ms_on);
	mcfan_engine_charge(&w->ms, ms_on, MCFAN_MS_SLEEP);
	worker_sel(app, w);
	return pass_steps(app, w, burst, ms_on, pairs);
}

/* Are the rings of every lcore lc hosts empty? Those whose engines did not start (ok[h]
 * false) are left out: nothing takes from them, as with a worker thread whose engine did not
 * start, and the app is stopping anyway. */
static bool
hosted_rings_empty(const struct mcfan_app *app, const struct mcfan_lcore *lc, const bool *ok)
{
	unsigned int h;

	for (h = 0; h < lc->n_hosted; h++)
		if (ok[h] && !mcfan_lcore_rings_empty(app, &app->lcores[lc->hosted[h]]))
			return false;
	return true;
}

/* A hosted lcore's own thread: it waits until its host has stopped its engines. */
static int
hosted_thread(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	__atomic_store_n(&lc->tid, rte_sys_gettid(), __ATOMIC_RELAXED);
	mcfan_idle_hosted_wait(app, lc);
	return 0;
}

int
mcfan_lcore_main(void *arg)
{
	struct mcfan_app *app = arg;
	unsigned int id = rte_lcore_id();
	struct mcfan_lcore *lc = &app->lcores[id];
	const struct mcfan_engine *rxe = lc->rx_engine, *wke = lc->worker_engine;
	bool rx = (lc->role & MCFAN_ROLE_RX) != 0 && rxe != NULL;
	bool worker = (lc->role & MCFAN_ROLE_WORKER) != 0 && wke != NULL;
	bool rx_running, ms_on, hosting = lc->n_hosted > 0, wrcu;
	bool hosted_ok[RTE_MAX_LCORE]; /* by index in lc->hosted[]: its engines started */
	struct mcfan_lcore *w;
	unsigned int burst, work, h;
	uint32_t phase, policy;
	uint64_t now;
	int err = 0;

	if (lc->role == MCFAN_ROLE_NONE)
		return 0;
	if (lc->host_id != RTE_MAX_LCORE)
		return hosted_thread(app, lc);
	/* for the control side's schedstat reads (wait_cpu, control/sched.c) */
	__atomic_store_n(&lc->tid, rte_sys_gettid(), __ATOMIC_RELAXED);
	run_init(lc);
	mcfan_idle_lcore_start(app, lc, rte_rdtsc());
	if (rx && !engine_start(app, lc, rxe, &err))
		rx = false;
	if (worker && !worker_start(app, lc, &err))
		worker = false;
	for (h = 0; h < lc->n_hosted; h++) {
		w = &app->lcores[lc->hosted[h]];
		run_init(w);
		mcfan_idle_hosted_start(app, w, rte_rdtsc());
		hosted_ok[h] = w->worker_engine != NULL && worker_start(app, w, &err);
	}
	if ((lc->role & MCFAN_ROLE_RX) && !rx) /* never polls: done at once for the stop order */
		mcfan_atomic_u32_add(&app->rx_done_count, 1, memory_order_release);
	if (rx)
		rte_rcu_qsbr_thread_online(app->qsbr, lc->rx_index);
	rx_running = rx;
	/* runs worker steps (registered in app->wqsbr: mcfan_lcore_steps_workers()) */
	wrcu = worker || hosting;
	if (wrcu)
		rte_rcu_qsbr_thread_online(app->wqsbr, id);

	for (;;) {
		phase = mcfan_atomic_u32_load(&app->live.phase, memory_order_acquire);
		burst = mcfan_live_burst(&app->live);
		policy = mcfan_atomic_u32_load(&lc->idle.policy, memory_order_relaxed);
		work = 0;
		ms_on = mcfan_live_msacc(&app->live);
		ms_switch(lc, ms_on);

		if (rx_running) {
			if (phase == MCFAN_PHASE_RUN) {
				if (!mcfan_live_rx_paused(&app->live)) {
					work += rxe->burst(app, lc, burst, ms_on);
				} else {
					rte_pause();
					mcfan_engine_charge(&lc->ms, ms_on, MCFAN_MS_SLEEP);
				}
				rte_rcu_qsbr_quiescent(app->qsbr, lc->rx_index);
			} else {
				rte_rcu_qsbr_thread_offline(app->qsbr, lc->rx_index);
				rx_running = false;
				mcfan_atomic_u32_add(&app->rx_done_count, 1, memory_order_release);
			}
		}
		if (worker) {
			worker_sel(app, lc);
			/* a host empties its own ring of the pass too: the pool counts it so */
			work += pass_steps(app, lc, burst, ms_on, hosting ? lc->n_ports : 1);
		}
		if (hosting) {
			for (h = 0; h < lc->n_hosted; h++)
				if (hosted_ok[h])
					work += hosted_pass(app, &app->lcores[lc->hosted[h]], burst,
							    ms_on, lc->n_ports);
			/* those cycles are in the hosted lcores' tables: here, its roles waited */
			mcfan_engine_charge(&lc->ms, ms_on, MCFAN_MS_SLEEP);
		}
		/* worker RCU: no feed binding is held between passes (one report a pass) */
		if (wrcu)
			rte_rcu_qsbr_quiescent(app->wqsbr, id);
		if (worker || hosting) {
			if (work == 0 && phase >= MCFAN_PHASE_STOP_RX && !rx_running &&
			    mcfan_atomic_u32_load(&app->rx_done_count, memory_order_acquire) == app->n_rx &&
			    (!worker || mcfan_lcore_rings_empty(app, lc)) &&
			    (!hosting || hosted_rings_empty(app, lc, hosted_ok)))
				break;
		} else if (!rx_running) {
			break;
		}
		/* rate windows (idle.h): a TSC read when idle, and every few busy iterations */
		if (work == 0 || (++lc->idle.iter & MCFAN_IDLE_TSC_EVERY_MASK) == 0) {
			now = rte_rdtsc();
			if (unlikely(now - lc->idle.win_start >= lc->idle.win_cycles))
				mcfan_idle_window(app, lc, now);
			for (h = 0; h < lc->n_hosted; h++) {
				w = &app->lcores[lc->hosted[h]];
				if (unlikely(now - w->idle.win_start >= w->idle.win_cycles))
					mcfan_idle_window(app, w, now);
			}
		}
		if (unlikely(lc->ovr.open)) /* sleep overrun window (lib/overrun) */
			mcfan_overrun_progress(&lc->ovr, work, burst);
		if (work != 0)
			mcfan_idle_busy(&lc->idle);
		else if (phase == MCFAN_PHASE_RUN)
			mcfan_idle_wait(app, lc, policy, rx_running, wrcu, ms_on);
	}
	if (wrcu)
		rte_rcu_qsbr_thread_offline(app->wqsbr, id);
	mcfan_overrun_close(&lc->ovr);
	if (rx && rxe->stop != NULL)
		rxe->stop(app, lc);
	if (worker)
		worker_stop(app, lc);
	for (h = 0; h < lc->n_hosted; h++) {
		w = &app->lcores[lc->hosted[h]];
		if (hosted_ok[h])
			worker_stop(app, w);
		mcfan_engine_charge(&w->ms, w->run_ms_on, MCFAN_MS_SLEEP);
		mcfan_idle_hosted_end(w);
	}
	mcfan_engine_charge(&lc->ms, ms_on, MCFAN_MS_OTHER);
	return err;
}
