/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Worker engine "count" (the default): dequeue from each input ring, count every copy per
 * group (frames, bytes, RX-to-dequeue latency: lib/fanout/mcfan_fanout.h) and free it; the
 * copies of groups with a sequence extractor are tracked first (datapath/feed.h).
 */

#include <stdbool.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "mcfan.h"
#include "datapath/engine.h"
#include "datapath/feed.h"

static unsigned int
count_burst(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int burst, bool ms_on)
{
	struct rte_mbuf *pkts[MCFAN_MAX_BURST];
	unsigned int r, avail, total = 0;
	uint64_t now = 0;
	uint16_t n;

	for (r = 0; r < app->n_rx; r++) {
		n = mcfan_engine_ring_poll(lc, r, pkts, burst, ms_on, &avail, &now);
		if (n == 0)
			continue;
		mcfan_feed_worker_burst(app, lc, pkts, n); /* feed quality: reads, before the free */
		mcfan_worker_burst(lc->ws, pkts, n, n + avail, now, app->meta_offset);
		mcfan_engine_charge(&lc->ms, ms_on, MCFAN_MS_PROCESS);
		total += n;
	}
	if (total == 0)
		mcfan_feed_worker_idle(app, lc);
	return total;
}

static const struct mcfan_engine engine_count = {
	.name = "count",
	.side = MCFAN_ENGINE_WORKER,
	.help = "count every copy per group and free it",
	.burst = count_burst,
};

MCFAN_ENGINE_REGISTER(engine_count);
