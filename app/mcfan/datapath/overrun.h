/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_DATAPATH_OVERRUN_H
#define MCFAN_DATAPATH_OVERRUN_H

/* Sleep overrun, the data lcores' side (datapath/overrun.c): the RX lcore's check of its
 * full-ring refusals after each fan-out flush (lib/overrun/mcfan_overrun.h has the protocol,
 * docs/idle.md the meaning). */

#include <rte_branch_prediction.h>

#include "mcfan.h"

/**
 * Slow path of mcfan_overrun_ring_check(): some copies found a worker ring full since the
 * last check; charge those refused in a sleep window (the worker's, else this lcore's own)
 * to sleep overrun. The RX lcore itself; never blocks.
 */
void mcfan_overrun_ring_slow(struct mcfan_app *app, struct mcfan_lcore *lc);

/**
 * After a fan-out flush (mcfan_fanout_flush()): did a ring refuse copies since the last
 * check? One compare of two counters of the lcore's own stats block.
 */
static inline void
mcfan_overrun_ring_check(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	const struct mcfan_rx_stats *st = &lc->rx.stats;

	if (unlikely(st->copies_offered - st->delivered_copies != lc->ovr.refused_seen))
		mcfan_overrun_ring_slow(app, lc);
}

#endif /* MCFAN_DATAPATH_OVERRUN_H */
