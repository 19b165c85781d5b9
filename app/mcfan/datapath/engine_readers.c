/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Worker engine "readers" (docs/readers.md): every copy of a group is written, as the whole
 * Ethernet frame, into the group's broadcast ring in shared memory (lib/reader), where any
 * number of reader processes read it; then it is counted per group like `count` does and
 * freed. Each ring has one writer, the worker partition gives the group: under replicate,
 * the other workers' copies are counted (not_owner) and freed, the ring has the frame
 * already. A frame longer than a slot counts as reader_too_big in its ring. Per instance on
 * an lcore, every copy ends under one counter: reader_written, not_owner (delivered),
 * reader_too_big or no_ring (drops), so frames = delivered + dropped. Each ring
 * written in a pass is published once, after the pass; its sleeping readers are woken when
 * enough frames are waiting for them or the oldest nears the latency budget
 * (--reader-wake-frames, --reader-wake-us: lib/reader's coalesced wakes, checked on every
 * pass), the one system call, only when a reader sleeps. Never blocks.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "mcfan.h"
#include "log.h"
#include "mcfan_reader_writer.h"
#include "datapath/engine.h"

/* What became of the copies one instance handed to this engine on one lcore (its priv):
 * every copy ends under exactly one (datapath/engine.h). W: the thread that runs the lcore's
 * worker step (relaxed stores of its local counts); R: the control side. */
enum {
	RD_WRITTEN = 0, /* put into the group's ring by this worker */
	RD_NOT_OWNER,   /* counted and freed: another worker writes the ring */
	RD_TOO_BIG,     /* longer than a slot: reader_too_big */
	RD_NO_RING,     /* a counter slot without a ring */
	RD_COUNTERS
};

struct readers_inst {
	struct mcfan_atomic_u64 n[RD_COUNTERS]; /* by RD_* */
	uint64_t local[RD_COUNTERS];            /* the same, the writer's copies */
};

/* Name and kind of each counter, by RD_*. */
static const struct {
	const char *name;
	uint8_t kind;
} rd_counter[RD_COUNTERS] = {
	[RD_WRITTEN] = {"reader_written", MCFAN_ENGINE_CTR_DELIVERED},
	/* counted as count does: the ring has the frame from the worker that writes it */
	[RD_NOT_OWNER] = {"not_owner", MCFAN_ENGINE_CTR_DELIVERED},
	[RD_TOO_BIG] = {"reader_too_big", MCFAN_ENGINE_CTR_DROP},
	[RD_NO_RING] = {"no_ring", MCFAN_ENGINE_CTR_DROP},
};

static int
readers_configure(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int inst,
		  const char *args, void **priv)
{
	RTE_SET_USED(app);
	RTE_SET_USED(inst);
	RTE_SET_USED(args);
	*priv = rte_zmalloc_socket("mcfan_readers", sizeof(struct readers_inst),
				   RTE_CACHE_LINE_SIZE, (int)rte_lcore_to_socket_id(lc->lcore_id));
	return *priv != NULL ? 0 : -ENOMEM;
}

static void
readers_release(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv)
{
	RTE_SET_USED(app);
	RTE_SET_USED(lc);
	rte_free(priv);
}

/* One more copy under counter k of instance p (NULL: set engine LCORE readers, whose copies
 * only the lcore's sel_frames and the rings count). */
static inline void
inst_count(struct readers_inst *p, unsigned int k)
{
	if (p != NULL)
		mcfan_atomic_u64_store(&p->n[k], ++p->local[k], memory_order_relaxed);
}

static unsigned int
readers_counters(const struct mcfan_app *app, const struct mcfan_lcore *lc, const void *priv,
		 struct mcfan_engine_counter *out, unsigned int max)
{
	const struct readers_inst *p = priv;
	unsigned int k;

	RTE_SET_USED(app);
	RTE_SET_USED(lc);
	if (p == NULL || max < RD_COUNTERS)
		return 0;
	for (k = 0; k < RD_COUNTERS; k++)
		out[k] = (struct mcfan_engine_counter){rd_counter[k].name,
			mcfan_atomic_u64_load(&p->n[k], memory_order_relaxed), rd_counter[k].kind};
	return RD_COUNTERS;
}

static int
readers_start(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	if (app->readers == NULL) {
		MCFAN_LOG(ERR, "lcore %u: engine readers without reader rings\n", lc->lcore_id);
		return -ENODEV;
	}
	return 0;
}

/* Write one copy into its group's ring (if this worker writes it); the mbuf stays. Returns
 * what became of it (RD_*). */
static inline unsigned int
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
		return RD_NO_RING;
	}
	if (w->owner != self) {
		mcfan_atomic_u64_store(&wc->not_owner, ++wc->not_owner_local,
				       memory_order_relaxed);
		return RD_NOT_OWNER;
	}
	d = mcfan_rw_begin(w, len, mcfan_rw_tsc_ns(t, meta->rx_tsc));
	if (d == NULL)
		return RD_TOO_BIG; /* counted in its ring as reader_too_big */
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
	return RD_WRITTEN;
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

	for (i = 0; i < n; i++)
		inst_count(priv, readers_put(t, wc, pkts[i], app->meta_offset, self, touched,
					     &n_touched));
	/* publish each ring once for the burst; wake its sleepers now or defer it */
	if (n_touched != 0)
		now = rte_rdtsc();
	for (i = 0; i < n_touched; i++) {
		touched[i]->listed = false;
		mcfan_rw_worker_flush(wc, touched[i], now);
	}
	/* the copies are borrowed: the worker step gives them up (.borrows) */
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
	.borrows = true,
	.pass = readers_pass,
	.configure = readers_configure,
	.release = readers_release,
	.counters = readers_counters,
};

MCFAN_ENGINE_REGISTER(engine_readers);
