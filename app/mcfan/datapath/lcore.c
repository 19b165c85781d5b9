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
 * Idle (datapath/idle.h): an iteration that found no work hands over to the lcore's
 * idle policy, loaded with one relaxed load per iteration; it may pause or
 * sleep, never longer than the lcore's sleep cap, and an RX lcore goes
 * RCU-offline while it sleeps.
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

int
mcfan_lcore_main(void *arg)
{
	struct mcfan_app *app = arg;
	unsigned int id = rte_lcore_id();
	struct mcfan_lcore *lc = &app->lcores[id];
	const struct mcfan_engine *rxe = lc->rx_engine, *wke = lc->worker_engine, *cur = NULL;
	bool rx = (lc->role & MCFAN_ROLE_RX) != 0 && rxe != NULL;
	bool worker = (lc->role & MCFAN_ROLE_WORKER) != 0 && wke != NULL;
	bool rx_running, ms_on, ms_was_on;
	unsigned int burst, work;
	uint32_t phase, policy, sel, cur_sel = 0;
	int cur_inst = -1; /* set engine LCORE to an instance: every copy to it */
	uint64_t now;
	int err = 0;

	if (lc->role == MCFAN_ROLE_NONE)
		return 0;
	/* for the control side's schedstat reads (wait_cpu, control/sched.c) */
	__atomic_store_n(&lc->tid, rte_sys_gettid(), __ATOMIC_RELAXED);
	ms_was_on = __atomic_load_n(&lc->ms.paused, __ATOMIC_RELAXED) == 0;
	mcfan_idle_lcore_start(app, lc, rte_rdtsc());
	if (rx && !engine_start(app, lc, rxe, &err))
		rx = false;
	if (worker && !worker_start(app, lc, &err))
		worker = false;
	if ((lc->role & MCFAN_ROLE_RX) && !rx) /* never polls: done at once for the stop order */
		mcfan_atomic_u32_add(&app->rx_done_count, 1, memory_order_release);
	if (rx)
		rte_rcu_qsbr_thread_online(app->qsbr, lc->rx_index);
	rx_running = rx;

	for (;;) {
		phase = mcfan_atomic_u32_load(&app->live.phase, memory_order_acquire);
		burst = mcfan_live_burst(&app->live);
		policy = mcfan_atomic_u32_load(&lc->idle.policy, memory_order_relaxed);
		work = 0;
		ms_on = mcfan_live_msacc(&app->live);
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
			sel = mcfan_atomic_u32_load(&lc->worker_engine_sel, memory_order_acquire);
			if (unlikely(sel != cur_sel)) { /* set engine (control/engine.c) */
				cur_sel = sel;
				/* NULL: every copy to its group's instance (datapath/deliver.h) */
				cur_inst = sel >= MCFAN_ENGINE_SEL_INST &&
					   sel - MCFAN_ENGINE_SEL_INST < app->n_inst ?
					   (int)(sel - MCFAN_ENGINE_SEL_INST) : -1;
				cur = sel == 0 || sel >= MCFAN_ENGINE_SEL_INST ? NULL :
				      mcfan_engine_at(MCFAN_ENGINE_WORKER, sel - 1);
			}
			work += mcfan_worker_step(app, lc, burst, ms_on, cur, cur_inst);
			if (work == 0 && phase >= MCFAN_PHASE_STOP_RX && !rx_running &&
			    mcfan_atomic_u32_load(&app->rx_done_count, memory_order_acquire) == app->n_rx &&
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
		if (unlikely(lc->ovr.open)) /* sleep overrun window (lib/overrun) */
			mcfan_overrun_progress(&lc->ovr, work, burst);
		if (work != 0)
			mcfan_idle_busy(&lc->idle);
		else if (phase == MCFAN_PHASE_RUN)
			mcfan_idle_wait(app, lc, policy, rx_running, ms_on);
	}
	mcfan_overrun_close(&lc->ovr);
	if (rx && rxe->stop != NULL)
		rxe->stop(app, lc);
	if (worker)
		worker_stop(app, lc);
	mcfan_engine_charge(&lc->ms, ms_on, MCFAN_MS_OTHER);
	return err;
}
