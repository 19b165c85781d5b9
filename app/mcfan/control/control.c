/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The control side's start, stop and tick (control.h); the actions themselves are in
 * control/groups.c (join, leave, set fanout) and control/live.c (the live settings).
 */

#include <rte_common.h>

#include "mcfan.h"
#include "control/control.h"
#include "control/igmp.h"
#include "control/feed.h"
#include "control/kernel.h"
#include "control/overrun.h"
#include "control/readers.h"
#include "control/sched.h"
#include "control/stats.h"

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
	mcfan_sched_update(app); /* wait_cpu before a timed msacc window may freeze */
	mcfan_igmp_tick(app); /* IGMP/MLD: take the control frames, send what is due */
	if (app->control == NULL || !mcfan_ctl_trylock())
		return;
	mcfan_live_tick(app);
	mcfan_groups_tick(app);
	mcfan_feed_tick(app);
	mcfan_readers_tick(app);
	mcfan_ctl_unlock();
}
