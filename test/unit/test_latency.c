/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Unit tests of the worker's RX-to-dequeue latency histogram (lib/mcfan_fanout.h):
 * the cycles-to-ns multiplier, the log2 buckets mcfan_worker_burst() fills from each
 * frame's rx_tsc and the dequeue TSC, the maximum, and the interpolated quantiles.
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "mcfan_fanout.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

#define NS_PER_S_ UINT64_C(1000000000)

static void
test_mult(void)
{
	/* 1 GHz: one cycle is one ns, the multiplier is exactly 1 in fixed point */
	CHECK_EQ_INT(mcfan_lat_ns_mult(NS_PER_S_), UINT64_C(1) << MCFAN_LAT_MULT_SHIFT);
	CHECK_EQ_INT(mcfan_lat_ns_mult(2 * NS_PER_S_), UINT64_C(1) << (MCFAN_LAT_MULT_SHIFT - 1));
	CHECK_EQ_INT(mcfan_lat_ns_mult(0), 0);
}

static void
test_quantiles(void)
{
	uint64_t h[MCFAN_LAT_BUCKETS] = {0};

	CHECK_EQ_INT(mcfan_lat_quantile_ns(h, 0, 500), 0);
	/* 100 copies of 1024..2047 ns, the longest 2047: linear inside the bucket */
	h[10] = 100;
	CHECK_EQ_INT(mcfan_lat_quantile_ns(h, 2047, 500), 1024 + 1023 / 2);
	CHECK_EQ_INT(mcfan_lat_quantile_ns(h, 2047, 1000), 2047);
	/* the answer never exceeds the maximum seen */
	CHECK_EQ_INT(mcfan_lat_quantile_ns(h, 1100, 990), 1100 - 1);
	/* 99 fast copies and one slow: p50 in the fast bucket, p99 still there, p100 the slow */
	h[10] = 0;
	h[3] = 99;   /* 8..15 ns */
	h[20] = 1;   /* about 1 ms */
	CHECK(mcfan_lat_quantile_ns(h, 1500000, 500) >= 8 &&
	      mcfan_lat_quantile_ns(h, 1500000, 500) < 16, "p50 in bucket 3");
	CHECK(mcfan_lat_quantile_ns(h, 1500000, 990) <= 16, "p99 at most the top of bucket 3");
	CHECK_EQ_INT(mcfan_lat_quantile_ns(h, 1500000, 1000), 1500000);
	/* bucket 0 holds 0 and 1 ns */
	h[3] = 0;
	h[20] = 0;
	h[0] = 4;
	CHECK(mcfan_lat_quantile_ns(h, 1, 500) <= 1, "p50 of zeros and ones");
}

static struct rte_mbuf *
frame(struct rte_mempool *mp, int off, uint64_t rx_tsc)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	if (m == NULL)
		return NULL;
	rte_pktmbuf_append(m, 60);
	mcfan_meta(m, off)->rx_tsc = rx_tsc;
	mcfan_meta(m, off)->group_id = 0;
	return m;
}

static void
test_worker_burst(struct rte_mempool *mp, int off)
{
	/* rx_tsc values; the dequeue happens at TSC 10000 with a 1 GHz TSC (1 cycle = 1 ns) */
	static const uint64_t rx[] = {10000, 9999, 9998, 9000, 9000, 9000, 0, 20000};
	/* expected buckets: 0 ns, 1 ns -> 0; 2 ns -> 1; 1000 ns (x3) -> 9; 10000 ns -> 13;
	 * a TSC after the dequeue (another CPU's) counts as 0 ns */
	static const unsigned int bucket[] = {0, 0, 1, 9, 9, 9, 13, 0};
	uint64_t want[MCFAN_LAT_BUCKETS] = {0};
	struct rte_mbuf *pkts[RTE_DIM(rx)];
	struct mcfan_worker_stats *ws;
	unsigned int i, b;

	ws = rte_zmalloc("ut_lat_ws", sizeof(*ws), RTE_CACHE_LINE_SIZE);
	CHECK(ws != NULL, "worker stats");
	if (ws == NULL)
		return;
	ws->lat_ns_mult = mcfan_lat_ns_mult(NS_PER_S_);
	for (i = 0; i < RTE_DIM(rx); i++) {
		pkts[i] = frame(mp, off, rx[i]);
		CHECK(pkts[i] != NULL, "mbuf %u", i);
		if (pkts[i] == NULL)
			return;
		want[bucket[i]]++;
	}
	mcfan_worker_burst(ws, pkts, RTE_DIM(rx), RTE_DIM(rx), 10000, off);
	for (b = 0; b < MCFAN_LAT_BUCKETS; b++)
		CHECK(ws->lat_hist[b] == want[b], "bucket %u: %" PRIu64 ", expected %" PRIu64, b,
		      ws->lat_hist[b], want[b]);
	CHECK_EQ_INT(ws->lat_max_ns, 10000);
	CHECK_EQ_INT(ws->frames, RTE_DIM(rx));
	/* the histogram's sum: 0 + 1 + 2 + 3 x 1000 + 10000 + 0 (the later TSC) ns */
	CHECK_EQ_INT(ws->lat_sum_ns, 13003);
	/* a later burst raises the maximum and lands in the top bucket when huge */
	pkts[0] = frame(mp, off, 0);
	if (pkts[0] != NULL) {
		mcfan_worker_burst(ws, pkts, 1, 1, UINT64_C(1) << 40, off);
		CHECK_EQ_INT(ws->lat_max_ns, UINT64_C(1) << 40);
		CHECK_EQ_INT(ws->lat_hist[MCFAN_LAT_BUCKETS - 1], 1);
		CHECK_EQ_INT(ws->lat_sum_ns, 13003 + (UINT64_C(1) << 40));
	}
	rte_free(ws);
}

int
main(void)
{
	struct rte_mempool *mp;
	int off, ret;

	if (unit_eal_init("latency") < 0)
		return 1;
	test_mult();
	test_quantiles();
	off = mcfan_meta_register();
	mp = rte_pktmbuf_pool_create("ut_lat_pool", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	CHECK(off >= 0 && mp != NULL, "dynfield %d, pool %p", off, (void *)mp);
	if (off >= 0 && mp != NULL) {
		test_worker_burst(mp, off);
		CHECK_EQ_INT(rte_mempool_avail_count(mp), 255);
	}
	rte_mempool_free(mp);
	ret = unit_summary("latency");
	rte_eal_cleanup();
	return ret;
}
