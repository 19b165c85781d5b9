/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Feed quality on the worker lcores (datapath/feed.h).
 */

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "mcfan.h"
#include "mcfan_feed.h"
#include "datapath/feed.h"

/* Largest frame copied out of a multi-segment mbuf, bytes (a jumbo frame's first 9 KiB). */
#define FEED_LINEAR_MAX 9216
/* Idle ticks per second. */
#define FEED_TICKS_PER_S 1000

/* TSC cycles to ns with the worker's latency multiplier (lib/fanout, fixed point). */
static inline uint64_t
tsc_ns(uint64_t tsc, uint64_t mult)
{
	return (uint64_t)(((unsigned __int128)tsc * mult) >> MCFAN_LAT_MULT_SHIFT);
}

static void
track_one(const struct mcfan_feed_bind *b, const uint8_t *f, uint32_t len, uint64_t now_ns)
{
	uint32_t off, plen;

	if (mcfan_feed_udp_payload(f, len, &off, &plen) < 0) {
		/* classify accepted it: cannot happen but for a cut copy; the tracker counts it */
		off = len;
		plen = 0;
	}
	if (b->group != NULL)
		(void)mcfan_feed_group_datagram(b->group, f + off, plen, now_ns);
	if (b->arb != NULL)
		(void)mcfan_feed_arb_datagram(b->arb, b->line, f + off, plen, now_ns);
}

void
mcfan_feed_worker_burst(struct mcfan_app *app, struct mcfan_lcore *lc,
			struct rte_mbuf **pkts, uint16_t n)
{
	const struct mcfan_feed_table *t = app->feed;
	const struct mcfan_feed_bind *b;
	uint64_t mult = lc->ws->lat_ns_mult;
	uint8_t linear[FEED_LINEAR_MAX];
	const uint8_t *f;
	uint16_t i;

	if (t == NULL || !mcfan_feed_table_any(t))
		return;
	for (i = 0; i < n; i++) {
		const struct mcfan_mbuf_meta *meta = mcfan_meta(pkts[i], app->meta_offset);
		struct rte_mbuf *m = pkts[i];
		uint32_t len;

		b = mcfan_feed_table_load(t, meta->group_id);
		if (b == NULL || b->owner != lc->worker_index)
			continue;
		if (likely(m->nb_segs == 1)) {
			f = rte_pktmbuf_mtod(m, const uint8_t *);
			len = m->data_len;
		} else {
			len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(linear));
			f = rte_pktmbuf_read(m, 0, len, linear);
			if (f == NULL)
				len = 0;
		}
		track_one(b, f, len, tsc_ns(meta->rx_tsc, mult));
	}
}

void
mcfan_feed_worker_idle(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	struct mcfan_feed_table *t = app->feed;
	const struct mcfan_feed_bind *b;
	uint64_t now, now_ns;
	unsigned int id, w = lc->worker_index;

	if (t == NULL || !mcfan_feed_table_any(t))
		return;
	now = rte_rdtsc();
	if (now < t->worker[w].next_tick_tsc)
		return;
	t->worker[w].next_tick_tsc = now + app->tsc_hz / FEED_TICKS_PER_S;
	now_ns = tsc_ns(now, lc->ws->lat_ns_mult);
	for (id = 0; id < MCFAN_MAX_GROUPS; id++) {
		b = mcfan_feed_table_load(t, (uint16_t)id);
		if (b == NULL || b->owner != w)
			continue;
		if (b->group != NULL)
			mcfan_feed_group_tick(b->group, now_ns);
		if (b->arb != NULL && b->line == 0)
			mcfan_feed_arb_tick(b->arb, now_ns);
	}
}
