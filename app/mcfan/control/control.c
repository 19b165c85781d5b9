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
#include "control/readers.h"
#include "control/sched.h"
#include "control/stats.h"

/* Control ticks between two reads of the data lcores' schedstat for wait_cpu, when no timed
 * msacc window runs: 10, i.e. every 100 ms. Reading every lcore's
 * /proc/self/task/TID/schedstat each 10 ms tick was 44 % of an idle control lcore with 11
 * data lcores (perf, docs/performance.md "The control lcore's tick"). run_delay is
 * cumulative, so reading it less often loses nothing: the wait of the ticks between reads
 * is shared out at the next read. Readers of the states (report, telemetry, console) update
 * first (control/stats.c); a timed window, which freezes at a tick, and `msacc off` get it
 * every tick. */
#define SCHED_EVERY_TICKS 10

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
	mcfan_kernel_tick(app); /* PACKET_STATISTICS resets on read: add it up every tick */
	mcfan_overrun_tick(app); /* sleep overrun, port side: after the kernel read */
	/* wait_cpu: every tick before a timed msacc window may freeze, else every 100 ms */
	if (++app->sched_ticks >= SCHED_EVERY_TICKS || sched_needed(app)) {
		app->sched_ticks = 0;
		mcfan_sched_update(app);
	}
	mcfan_igmp_tick(app); /* IGMP/MLD: take the control frames, send what is due */
	if (app->control == NULL || !mcfan_ctl_trylock())
		return;
	mcfan_live_tick(app);
	mcfan_groups_tick(app);
	mcfan_feed_tick(app);
	mcfan_readers_tick(app);
	mcfan_ctl_unlock();
}
