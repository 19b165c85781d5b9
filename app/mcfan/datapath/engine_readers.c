/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Worker engine "readers" (docs/readers.md): every copy of a group is written, as the whole
 * Ethernet frame, into the group's broadcast ring in shared memory (lib/reader), where any
 * number of reader processes read it; then it is counted per group like `count` does and
 * freed. Each ring has one writer, the worker partition gives the group: under replicate,
 * the other workers' copies are counted (not_owner) and freed, the ring has the frame
 * already. A frame longer than a slot counts as reader_too_big in its ring. Each ring
 * written in a pass is published once, after the pass; its sleeping readers are woken when
 * enough frames are waiting for them or the oldest nears the latency budget
 * (--reader-wake-frames, --reader-wake-us: lib/reader's coalesced wakes, checked on every
 * pass), the one system call, only when a reader sleeps. Never blocks.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "mcfan.h"
#include "log.h"
#include "mcfan_reader_writer.h"
#include "datapath/engine.h"

static int
readers_start(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	if (app->readers == NULL) {
		MCFAN_LOG(ERR, "lcore %u: engine readers without reader rings\n", lc->lcore_id);
		return -ENODEV;
	}
	return 0;
}

/* Write one copy into its group's ring (if this worker writes it); the mbuf stays. */
static inline void
readers_put(struct mcfan_rw_table *t, struct mcfan_rw_worker *wc, struct rte_mbuf *m,
	    int meta_offset, uint16_t self, struct mcfan_rw **touched, unsigned int *n_touched)
{
	const struct mcfan_mbuf_meta *meta = mcfan_meta(m, meta_offset);
	const struct rte_mbuf *seg;
	struct mcfan_rw *w;
	uint32_t len = m->pkt_len, off = 0, l;
	uint8_t *d;

	w = mcfan_rw_slot_load(t, meta->group_id);
	if (unlikely(w == NULL)) {
		mcfan_atomic_u64_store(&wc->no_ring, ++wc->no_ring_local, memory_order_relaxed);
		return;
	}
	if (w->owner != self) {
		mcfan_atomic_u64_store(&wc->not_owner, ++wc->not_owner_local,
				       memory_order_relaxed);
		return;
	}
	d = mcfan_rw_begin(w, len, mcfan_rw_tsc_ns(t, meta->rx_tsc));
	if (d == NULL)
		return; /* counted as reader_too_big */
	for (seg = m; seg != NULL && off < len; seg = seg->next) {
		l = RTE_MIN((uint32_t)seg->data_len, len - off);
		rte_memcpy(d + off, rte_pktmbuf_mtod(seg, const void *), l);
		off += l;
	}
	mcfan_rw_end(w, len);
	if (!w->listed) {
		w->listed = true;
		touched[(*n_touched)++] = w;
	}
}

static void
readers_deliver(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv,
		struct rte_mbuf **pkts, uint16_t n)
{
	struct mcfan_rw *touched[MCFAN_MAX_BURST];
	struct mcfan_rw_table *t = app->readers;
	struct mcfan_rw_worker *wc = &t->worker[lc->worker_index];
	unsigned int i, n_touched = 0;
	uint16_t self = (uint16_t)lc->worker_index;
	uint64_t now = 0;

	RTE_SET_USED(priv);
	for (i = 0; i < n; i++)
		readers_put(t, wc, pkts[i], app->meta_offset, self, touched, &n_touched);
	/* publish each ring once for the burst; wake its sleepers now or defer it */
	if (n_touched != 0)
		now = rte_rdtsc();
	for (i = 0; i < n_touched; i++) {
		touched[i]->listed = false;
		mcfan_rw_worker_flush(wc, touched[i], now);
	}
	rte_pktmbuf_free_bulk(pkts, n); /* counted per group by the worker step */
}

/* Deferred wakes (coalesced, lib/reader): looked at on every pass of the worker step, with
 * work or not; while one waits, the lcore's next sleep ends by the time it is due. */
static void
readers_pass(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv)
{
	struct mcfan_rw_table *t = app->readers;
	struct mcfan_rw_worker *wc = &t->worker[lc->worker_index];
	uint64_t now;

	RTE_SET_USED(priv);
	lc->idle.engine_sleep_cap_ns = 0;
	if (!mcfan_rw_worker_pending(wc))
		return;
	now = rte_rdtsc();
	if (mcfan_rw_worker_poll(wc, now) != 0)
		lc->idle.engine_sleep_cap_ns = wc->next_due > now ?
			mcfan_rw_tsc_ns(t, t->base_tsc + wc->next_due - now) - t->base_ns : 1;
}

static const struct mcfan_engine engine_readers = {
	.name = "readers",
	.side = MCFAN_ENGINE_WORKER,
	.help = "write every copy into its group's shared-memory ring for reader processes "
		"(libmcfan-reader, mcfan-read), count it and free it",
	.start = readers_start,
	.deliver = readers_deliver,
	.pass = readers_pass,
};

MCFAN_ENGINE_REGISTER(engine_readers);
