/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Worker engine "count" (the default): the worker step (datapath/deliver.h) has dequeued
 * every copy, tracked the copies of groups with a sequence extractor (datapath/feed.h) and
 * counted each per group (frames, bytes, RX-to-dequeue latency: lib/fanout/mcfan_fanout.h);
 * count frees them.
 */

#include <stdbool.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "mcfan.h"
#include "datapath/engine.h"

/* The copies were counted per group by the worker step (datapath/deliver.c), which also
 * gives them up after this (borrows): nothing is left to do. */
static void
count_deliver(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv, struct rte_mbuf **pkts,
	      uint16_t n)
{
	RTE_SET_USED(app);
	RTE_SET_USED(lc);
	RTE_SET_USED(priv);
	RTE_SET_USED(pkts);
	RTE_SET_USED(n);
}

static const struct mcfan_engine engine_count = {
	.name = "count",
	.side = MCFAN_ENGINE_WORKER,
	.help = "count every copy per group and free it",
	.deliver = count_deliver,
	.borrows = true,
};

MCFAN_ENGINE_REGISTER(engine_count);
