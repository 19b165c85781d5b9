/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The control side's start, stop and tick (control.h); the actions themselves are in
 * control/groups.c (join, leave, set fanout) and control/live.c (the live settings).
 */

#include <rte_common.h>
#include <rte_cycles.h>

#include "mcfan.h"
#include "control/control.h"
#include "control/igmp.h"
#include "control/feed.h"
#include "control/kernel.h"
#include "control/overrun.h"
#include "control/txstall.h"
#include "control/readers.h"
#include "control/sched.h"
#include "control/stats.h"

/* Time between two reads of the data lcores' schedstat for wait_cpu, when no timed msacc
 * window runs, ms (control/sched.c mcfan_sched_update()). Opening
 * /proc/self/task/TID/schedstat each 10 ms tick was 44 % of an idle control lcore with 11
 * data lcores (perf, docs/performance.md "The control lcore's tick"). run_delay is
 * cumulative, so reading it less often loses nothing: the wait between reads is taken at
 * the next. A reader that needs it now (report, telemetry, console) reads it first
 * (control/stats.c); a timed window, which freezes at a tick, and `msacc off` get it every
 * tick. */
#define SCHED_EVERY_MS 100

/* Must wait_cpu be current at this tick? While a timed msacc window runs (it may freeze at
 * any tick and keeps the wait it has then). */
static bool
sched_needed(struct mcfan_app *app)
{
	struct mcfan_msacc_window_info wi;

	return app->window != NULL &&
	       mcfan_msacc_window_info(app->window, rte_rdtsc(), &wi) == 0 &&
	       wi.mode == MCFAN_MSACC_WIN_TIMED && !wi.frozen;
}

int
mcfan_control_init(struct mcfan_app *app)
{
	int ret;

	ret = mcfan_stats_init(app);
	if (ret < 0)
		return ret;
	ret = mcfan_groups_control_init(app);
	if (ret < 0) {
		mcfan_stats_free(app);
		return ret;
	}
	ret = mcfan_igmp_init(app);
	if (ret < 0) {
		mcfan_igmp_free(app);
		mcfan_groups_control_free(app);
		mcfan_stats_free(app);
		return ret;
	}
	ret = mcfan_feed_control_init(app); /* feed quality: --seq, --seq-pair (control/feed.c) */
	if (ret < 0) {
		mcfan_igmp_free(app);
		mcfan_groups_control_free(app);
		mcfan_stats_free(app);
		return ret;
	}
	ret = mcfan_overrun_setup(app);
	if (ret < 0) {
		mcfan_feed_control_free(app);
		mcfan_igmp_free(app);
		mcfan_groups_control_free(app);
		mcfan_stats_free(app);
		return ret;
	}
	ret = mcfan_readers_start(app); /* reader rings of the readers engine (control/readers.c) */
	if (ret < 0) {
		mcfan_overrun_free(app);
		mcfan_feed_control_free(app);
		mcfan_igmp_free(app);
		mcfan_groups_control_free(app);
		mcfan_stats_free(app);
		return ret;
	}
	return 0;
}

void
mcfan_control_free(struct mcfan_app *app)
{
	mcfan_igmp_free(app);
	mcfan_feed_control_free(app);
	mcfan_groups_control_free(app);
	mcfan_stats_free(app);
	mcfan_kernel_free(app);
	mcfan_sched_free(app);
	mcfan_overrun_free(app);
	mcfan_readers_free(app);
}

void
mcfan_control_tick(struct mcfan_app *app)
{
	uint64_t now;

	mcfan_kernel_tick(app); /* PACKET_STATISTICS resets on read: add it up every tick */
	mcfan_overrun_tick(app); /* sleep overrun, port side: after the kernel read */
	now = rte_rdtsc();

	/* wait_cpu: every tick before a timed msacc window may freeze, else every 100 ms */
	if (now >= app->sched_next_tsc || sched_needed(app)) {
		app->sched_next_tsc = now + app->tsc_hz / 1000 * SCHED_EVERY_MS;
		mcfan_sched_update(app);
	}
	mcfan_igmp_tick(app); /* IGMP/MLD: take the control frames, send what is due */
	mcfan_txstall_tick(app); /* a tx output that sends nothing: warned once */
	app->tick_busy = false;
	if (app->control == NULL)
		return;
	if (!mcfan_ctl_trylock()) {
		app->tick_busy = true; /* an action runs: the next tick is a short one */
		return;
	}
	mcfan_live_tick(app);
	mcfan_groups_tick(app);
	mcfan_feed_tick(app);
	/* retired reader rings waiting for a grace period: short ticks, as a drain */
	app->tick_busy = mcfan_readers_tick(app);
	app->tick_busy |= mcfan_groups_drain_pending(app);
	mcfan_ctl_unlock();
}

unsigned int
mcfan_control_wait_ms(struct mcfan_app *app)
{
	uint64_t igmp;

	if (app->tick_busy || sched_needed(app) || mcfan_overrun_busy(app))
		return MCFAN_CONTROL_TICK_MS;
	igmp = mcfan_igmp_idle_ms(app);
	return (unsigned int)RTE_MIN(RTE_MAX(igmp, (uint64_t)MCFAN_CONTROL_TICK_MS),
				     (uint64_t)MCFAN_CONTROL_QUIET_MS);
}
