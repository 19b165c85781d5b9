/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * RX engine "fanout" (the default): poll each port of the lcore, classify the frames against
 * the published group table and fan the copies out to the worker rings (partition or
 * replicate, lib/fanout/mcfan_fanout.h); wake the sleeping workers it fed.
 */

#include <stdbool.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "mcfan.h"
#include "datapath/engine.h"
#include "datapath/idle.h"
#include "datapath/overrun.h"

static unsigned int
fanout_burst(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int burst, bool ms_on)
{
	struct rte_mbuf *pkts[MCFAN_MAX_BURST];
	const struct mcfan_group_table *table;
	unsigned int i, total = 0;
	uint64_t now;
	uint16_t n, sent;

	for (i = 0; i < lc->n_ports; i++) {
		n = mcfan_engine_rx_poll(lc, i, pkts, burst, ms_on, &now);
		if (n == 0)
			continue;
		table = mcfan_live_table_load(&app->live.groups, memory_order_acquire);
		lc->rx.pair = (uint16_t)i; /* its frames and drops count under pair i too */
		mcfan_fanout_stage(&lc->rx, table, pkts, n, now);
		mcfan_engine_charge(&lc->ms, ms_on, MCFAN_MS_CLASSIFY);
		sent = mcfan_fanout_flush(&lc->rx);
		if (sent != 0) /* wakes sleeping workers now or when idle (datapath/idle.h) */
			mcfan_idle_kick_note(app, lc, sent, now);
		mcfan_overrun_ring_check(app, lc);
		mcfan_engine_charge(&lc->ms, ms_on, MCFAN_MS_FANOUT);
		total += n;
	}
	return total;
}

static const struct mcfan_engine engine_fanout = {
	.name = "fanout",
	.side = MCFAN_ENGINE_RX,
	.help = "classify by group and fan out to the worker rings",
	.burst = fanout_burst,
};

MCFAN_ENGINE_REGISTER(engine_fanout);
