/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Read side of every counter: the one source of truth that the report, the
 * periodic summary, telemetry and the console format. Control side only.
 *
 * `clear stats` never writes a counter (each has one writer, its data lcore):
 * it takes baselines here, on the control side, and every read function
 * subtracts them. A group counter slot that a new group reuses is rebased
 * the same way. Baselines are guarded by app->ctl_lock (see mcfan.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "mcfan.h"
#include "control/kernel.h"
#include "control/overrun.h"
#include "control/sched.h"
#include "control/stats.h"
#include "datapath/engine.h"


/* Per worker baselines. */
struct worker_base {
	uint64_t frames;
	uint64_t bytes;
	uint64_t enqueued;
	uint64_t ring_drops;
	uint64_t lat_hist[MCFAN_LAT_BUCKETS];
	uint64_t lat_sum_ns;
};

/* A group left since the last clear: its row of the report. */
struct left_group {
	struct mcfan_group_view view; /* entry_copy, left_tsc; the counters once frozen */
	bool frozen;                  /* its slot was reused: view holds its final counters */
};

/* One worker engine instance's counters at the last clear. */
struct engine_base {
	const struct mcfan_engine *engine; /* the instance's engine then (NULL: none read) */
	uint64_t frames;
	unsigned int n;
	const char *names[MCFAN_ENGINE_VALUES_MAX];
	uint64_t values[MCFAN_ENGINE_VALUES_MAX];
};

/* What every read subtracts; all zero until the first clear. */
struct mcfan_stats_base {
	uint64_t clear_tsc;                           /* TSC of the last clear, 0 = never */
	struct mcfan_totals totals;
	struct worker_base *workers;                  /* [n_workers] */
	uint64_t *slot_frames;                        /* [n_workers * MCFAN_MAX_GROUPS] */
	uint64_t *slot_bytes;                         /* [n_workers * MCFAN_MAX_GROUPS] */
	uint64_t slot_tsc[MCFAN_MAX_GROUPS];          /* TSC of a slot's last rebase */
	struct mcfan_rx_group_stats rx_groups;        /* RX lcores' per-group sums */
	struct rte_eth_stats ports[RTE_MAX_ETHPORTS];
	struct mcfan_ring_stats *rings;               /* [n_rx * n_workers], as app->rings */
	struct mcfan_rx_stats *rx;                    /* [n_rx]: each RX lcore's block */
	struct left_group left[MCFAN_MAX_GROUPS];     /* groups left since the clear, oldest first */
	unsigned int n_left;
	struct mcfan_left_overflow left_over;         /* rows folded in beyond MCFAN_MAX_GROUPS */
	struct mcfan_left_overflow left_over_other;   /* those of them without own series */
	/* per slot: its group (while joined) has series of its own on /metrics, decided at the
	 * join and kept across clears (mcfan_stats_groups_joining()) */
	bool own_series[MCFAN_MAX_GROUPS];
	/* [n_workers * MCFAN_ENGINE_INST_MAX]: per worker and instance (mcfan_lcore_inst_read) */
	struct engine_base *inst;
	struct engine_base *values0;                  /* [n_workers]: mcfan_lcore_engine_values */
	uint64_t *sel_frames;                         /* [n_workers] */
	/* since the start (MCFAN_SINCE_START, /metrics): a slot's counts at its group's join
	 * (its last rebase), never moved by a clear */
	uint64_t *join_frames;                        /* [n_workers * MCFAN_MAX_GROUPS] */
	uint64_t *join_bytes;                         /* [n_workers * MCFAN_MAX_GROUPS] */
	struct mcfan_rx_group_stats join_rx;          /* RX lcores' per-group sums */
	/* per slot: its group left without series of its own and the slot is not reused yet
	 * (counted live from the slot into group="_other") */
	bool other_live[MCFAN_MAX_GROUPS];
	struct mcfan_left_overflow other_start;       /* such groups once their slot was reused */
};

/* The totals of every RX lcore's block; per, if not NULL, receives each block ([n_rx]) as
 * read for the sum, so that baselines of both come from one read. */
static void
totals_raw(const struct mcfan_app *app, struct mcfan_totals *t, struct mcfan_rx_stats *per)
{
	struct mcfan_rx_stats s;
	unsigned int r, k;

	memset(t, 0, sizeof(*t));
	for (r = 0; r < app->n_rx; r++) {
		mcfan_rx_stats_read(&app->lcores[app->rx_lcore_ids[r]].rx.stats, &s);
		if (per != NULL)
			per[r] = s;
		t->rx_frames += s.rx_frames;
		t->rx_bytes += s.rx_bytes;
		t->delivered_frames += s.delivered_frames;
		t->copies_offered += s.copies_offered;
		t->delivered_copies += s.delivered_copies;
		for (k = 1; k < MCFAN_DROP_MAX; k++)
			t->drops[k] += s.drops[k];
		t->mac_mismatch += s.mac_mismatch;
	}
	for (k = 1; k < MCFAN_DROP_MAX; k++)
		t->drops_total += t->drops[k];
}

/* The clear stats baselines a read subtracts: none since the start. ctl_lock held. */
static const struct mcfan_stats_base *
base_for(const struct mcfan_app *app, enum mcfan_stats_since since)
{
	return since == MCFAN_SINCE_START ? NULL : app->stats_base;
}

void
mcfan_totals_read_since(const struct mcfan_app *app, struct mcfan_totals *t,
			enum mcfan_stats_since since)
{
	const struct mcfan_stats_base *base;
	const struct mcfan_totals *b;
	unsigned int k;

	/* raw read and baseline under one lock: a `clear stats` in between would make the
	 * difference go below zero */
	mcfan_ctl_state_lock(app);
	totals_raw(app, t, NULL);
	base = base_for(app, since);
	if (base != NULL) {
		b = &base->totals;
		t->rx_frames -= b->rx_frames;
		t->rx_bytes -= b->rx_bytes;
		t->delivered_frames -= b->delivered_frames;
		t->copies_offered -= b->copies_offered;
		t->delivered_copies -= b->delivered_copies;
		for (k = 1; k < MCFAN_DROP_MAX; k++)
			t->drops[k] -= b->drops[k];
		t->drops_total -= b->drops_total;
		t->mac_mismatch -= b->mac_mismatch;
	}
	mcfan_ctl_state_unlock(app);
}

void
mcfan_totals_read(const struct mcfan_app *app, struct mcfan_totals *t)
{
	mcfan_totals_read_since(app, t, MCFAN_SINCE_CLEAR);
}

int
mcfan_rx_lcores_read_since(const struct mcfan_app *app, struct mcfan_rx_lcore_view *out,
			   unsigned int max, enum mcfan_stats_since since)
{
	const struct mcfan_rx_stats *b;
	struct mcfan_rx_stats s;
	unsigned int r, k, i;

	mcfan_ctl_state_lock(app); /* raw reads and baselines together (see mcfan_totals_read) */
	for (r = 0; r < app->n_rx && r < max; r++) {
		const struct mcfan_lcore *lc = &app->lcores[app->rx_lcore_ids[r]];

		memset(&out[r], 0, sizeof(out[r]));
		out[r].lcore_id = lc->lcore_id;
		out[r].n_ports = RTE_MIN(lc->n_ports, (unsigned int)MCFAN_MAX_RX_PAIRS);
		for (i = 0; i < out[r].n_ports; i++) {
			out[r].ports[i] = lc->ports[i];
			out[r].queues[i] = lc->queues[i];
		}
		mcfan_rx_stats_read(&lc->rx.stats, &s);
		b = base_for(app, since) != NULL ? &app->stats_base->rx[r] : NULL;
		out[r].rx_frames = s.rx_frames - (b != NULL ? b->rx_frames : 0);
		out[r].rx_bytes = s.rx_bytes - (b != NULL ? b->rx_bytes : 0);
		out[r].delivered_frames = s.delivered_frames - (b != NULL ? b->delivered_frames : 0);
		for (k = 1; k < MCFAN_DROP_MAX; k++)
			out[r].drops[k] = s.drops[k] - (b != NULL ? b->drops[k] : 0);
		/* per pair (the block's pair[] has one entry per pair the lcore polls) */
		RTE_BUILD_BUG_ON(MCFAN_MAX_RX_PAIRS > MCFAN_RX_STATS_PAIRS);
		for (i = 0; i < out[r].n_ports; i++) {
			const struct mcfan_rx_pair_stats *p = &s.pair[i];
			const struct mcfan_rx_pair_stats *bp = b != NULL ? &b->pair[i] : NULL;

			out[r].pair_frames[i] = p->rx_frames - (bp != NULL ? bp->rx_frames : 0);
			for (k = 1; k < MCFAN_DROP_MAX; k++)
				out[r].pair_drops[i][k] = p->drops[k] -
							  (bp != NULL ? bp->drops[k] : 0);
		}
	}
	mcfan_ctl_state_unlock(app);
	return (int)r;
}

int
mcfan_rx_lcores_read(const struct mcfan_app *app, struct mcfan_rx_lcore_view *out,
		     unsigned int max)
{
	return mcfan_rx_lcores_read_since(app, out, max, MCFAN_SINCE_CLEAR);
}

bool
mcfan_rx_port_sum(const struct mcfan_rx_lcore_view *rv, unsigned int n, uint16_t port,
		  uint64_t *frames, uint64_t drops[MCFAN_DROP_MAX])
{
	unsigned int r, i, k;
	bool seen = false;

	*frames = 0;
	memset(drops, 0, MCFAN_DROP_MAX * sizeof(drops[0]));
	for (r = 0; r < n; r++)
		for (i = 0; i < rv[r].n_ports; i++) {
			if (rv[r].ports[i] != port)
				continue;
			seen = true;
			*frames += rv[r].pair_frames[i];
			for (k = 1; k < MCFAN_DROP_MAX; k++)
				drops[k] += rv[r].pair_drops[i][k];
		}
	return seen;
}

int
mcfan_workers_read_since(const struct mcfan_app *app, struct mcfan_worker_view *out,
			 enum mcfan_stats_since since)
{
	struct mcfan_ring_stats *rs;
	struct mcfan_rx_stats st;
	unsigned int r, w;

	rs = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*rs));
	if (rs == NULL)
		return -ENOMEM;
	mcfan_ctl_state_lock(app); /* raw reads and baselines together (see mcfan_totals_read) */
	for (w = 0; w < app->n_workers; w++) {
		const struct mcfan_lcore *lc = &app->lcores[app->worker_lcore_ids[w]];

		memset(&out[w], 0, sizeof(out[w]));
		out[w].lcore_id = lc->lcore_id;
		out[w].ring_size = app->cfg.ring_size;
		/* one writer (the worker); each field is one aligned 64-bit atomic load, so a
		 * reader never sees a torn value (per-group counters use the seqlock) */
		out[w].frames = __atomic_load_n(&lc->ws->frames, __ATOMIC_RELAXED);
		out[w].bytes = __atomic_load_n(&lc->ws->bytes, __ATOMIC_RELAXED);
		out[w].ring_high_water = __atomic_load_n(&lc->ws->ring_high_water,
							 __ATOMIC_RELAXED);
		for (r = 0; r < app->n_rx; r++)
			out[w].ring_count += rte_ring_count(lc->in_rings[r]);
	}
	for (r = 0; r < app->n_rx; r++) {
		mcfan_rx_ctx_read(&app->lcores[app->rx_lcore_ids[r]].rx, &st, rs);
		for (w = 0; w < app->n_workers; w++) {
			out[w].enqueued += rs[w].enqueued;
			out[w].ring_drops += rs[w].ring_drops;
		}
	}
	free(rs);
	if (base_for(app, since) != NULL) {
		for (w = 0; w < app->n_workers; w++) {
			const struct worker_base *b = &app->stats_base->workers[w];

			out[w].frames -= b->frames;
			out[w].bytes -= b->bytes;
			out[w].enqueued -= b->enqueued;
			out[w].ring_drops -= b->ring_drops;
		}
	}
	mcfan_ctl_state_unlock(app);
	return (int)app->n_workers;
}

int
mcfan_workers_read(const struct mcfan_app *app, struct mcfan_worker_view *out)
{
	return mcfan_workers_read_since(app, out, MCFAN_SINCE_CLEAR);
}

int
mcfan_rings_read_since(const struct mcfan_app *app, struct mcfan_ring_view *out,
		       unsigned int max, enum mcfan_stats_since since)
{
	struct mcfan_ring_stats *rs;
	struct mcfan_rx_stats st;
	unsigned int r, w, k = 0;
	size_t i;

	rs = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*rs));
	if (rs == NULL)
		return -ENOMEM;
	mcfan_ctl_state_lock(app); /* raw reads and baselines together (see mcfan_totals_read) */
	for (r = 0; r < app->n_rx; r++) {
		mcfan_rx_ctx_read(&app->lcores[app->rx_lcore_ids[r]].rx, &st, rs);
		for (w = 0; w < app->n_workers && k < max; w++, k++) {
			i = (size_t)r * app->n_workers + w;
			out[k].rx_lcore_id = app->rx_lcore_ids[r];
			out[k].worker_lcore_id = app->worker_lcore_ids[w];
			out[k].size = app->cfg.ring_size;
			out[k].enqueued = rs[w].enqueued;
			out[k].ring_drops = rs[w].ring_drops;
			out[k].count = app->rings != NULL ? rte_ring_count(app->rings[i]) : 0;
			if (base_for(app, since) != NULL) {
				out[k].enqueued -= app->stats_base->rings[i].enqueued;
				out[k].ring_drops -= app->stats_base->rings[i].ring_drops;
			}
		}
	}
	mcfan_ctl_state_unlock(app);
	free(rs);
	return (int)k;
}

int
mcfan_rings_read(const struct mcfan_app *app, struct mcfan_ring_view *out, unsigned int max)
{
	return mcfan_rings_read_since(app, out, max, MCFAN_SINCE_CLEAR);
}

int
mcfan_latency_read_since(const struct mcfan_app *app, struct mcfan_latency_view *out,
			 enum mcfan_stats_since since)
{
	const struct mcfan_worker_stats *ws;
	unsigned int w, b, top;

	for (w = 0; w < app->n_workers; w++) {
		ws = app->lcores[app->worker_lcore_ids[w]].ws;
		memset(&out[w], 0, sizeof(out[w]));
		out[w].lcore_id = app->worker_lcore_ids[w];
		/* bucket by bucket, each one atomic load: a histogram of a moment, give or take
		 * the copies counted during the read */
		for (b = 0; b < MCFAN_LAT_BUCKETS; b++)
			out[w].hist[b] = __atomic_load_n(&ws->lat_hist[b], __ATOMIC_RELAXED);
		out[w].max_ns = __atomic_load_n(&ws->lat_max_ns, __ATOMIC_RELAXED);
		out[w].sum_ns = __atomic_load_n(&ws->lat_sum_ns, __ATOMIC_RELAXED);
	}
	mcfan_ctl_state_lock(app);
	if (base_for(app, since) != NULL && app->stats_base->clear_tsc != 0) {
		for (w = 0; w < app->n_workers; w++) {
			out[w].sum_ns -= app->stats_base->workers[w].lat_sum_ns;
			for (b = 0, top = 0; b < MCFAN_LAT_BUCKETS; b++) {
				out[w].hist[b] -= app->stats_base->workers[w].lat_hist[b];
				if (out[w].hist[b] != 0)
					top = b + 1;
			}
			/* the max since the clear is unknown: at most the top of its bucket */
			if (top < MCFAN_LAT_BUCKETS)
				out[w].max_ns = RTE_MIN(out[w].max_ns, (UINT64_C(1) << top) - 1);
		}
	}
	mcfan_ctl_state_unlock(app);
	for (w = 0; w < app->n_workers; w++) {
		for (b = 0; b < MCFAN_LAT_BUCKETS; b++)
			out[w].copies += out[w].hist[b];
		if (out[w].copies == 0) {
			out[w].max_ns = 0;
			out[w].sum_ns = 0;
		}
		out[w].p50_ns = mcfan_lat_quantile_ns(out[w].hist, out[w].max_ns, 500);
		out[w].p99_ns = mcfan_lat_quantile_ns(out[w].hist, out[w].max_ns, 990);
	}
	return (int)app->n_workers;
}

int
mcfan_latency_read(const struct mcfan_app *app, struct mcfan_latency_view *out)
{
	return mcfan_latency_read_since(app, out, MCFAN_SINCE_CLEAR);
}

/* Sum of every RX lcore's per-group counters into out (zeroed first); tmp scratch. */
static void
rx_groups_sum(const struct mcfan_app *app, struct mcfan_rx_group_stats *out)
{
	struct mcfan_rx_group_stats *one = malloc(sizeof(*one));
	unsigned int r, g;

	memset(out, 0, sizeof(*out));
	if (one == NULL)
		return;
	for (r = 0; r < app->n_rx; r++) {
		mcfan_rx_group_read(&app->lcores[app->rx_lcore_ids[r]].rx, one);
		for (g = 0; g < MCFAN_MAX_GROUPS; g++) {
			out->frames[g] += one->frames[g];
			out->copy_drops[g] += one->copy_drops[g];
		}
	}
	free(one);
}

/* Count the groups of out[0..n-1] (entry_copy set, the rest zeroed) from their counter slots,
 * minus the baselines: the clear's and the rebases' (since the clear), or the rebases' only
 * (since the group's join: since start). ctl_lock held; ws and gs scratch. */
static void
slots_count_since(const struct mcfan_app *app, struct mcfan_group_view *out, unsigned int n,
		  struct mcfan_worker_stats *ws, struct mcfan_rx_group_stats *gs,
		  enum mcfan_stats_since since)
{
	const struct mcfan_stats_base *base = app->stats_base;
	bool start = since == MCFAN_SINCE_START;
	unsigned int i, w;
	uint64_t frames, bytes, first, from;
	size_t k;

	if (n == 0)
		return;
	rx_groups_sum(app, gs);
	for (w = 0; w < app->n_workers; w++) {
		mcfan_worker_stats_read(app->lcores[app->worker_lcore_ids[w]].ws, ws);
		for (i = 0; i < n; i++) {
			uint16_t id = out[i].entry_copy.id;

			frames = ws->group_frames[id];
			bytes = ws->group_bytes[id];
			first = ws->group_first_tsc[id];
			if (base != NULL && start) {
				k = (size_t)w * MCFAN_MAX_GROUPS + id;
				frames -= base->join_frames[k];
				bytes -= base->join_bytes[k];
				if (base->join_frames[k] != 0 && first < base->slot_tsc[id])
					first = base->slot_tsc[id];
			} else if (base != NULL) {
				k = (size_t)w * MCFAN_MAX_GROUPS + id;
				frames -= base->slot_frames[k];
				bytes -= base->slot_bytes[k];
				/* frames counted before the baseline: the first since is unknown */
				from = RTE_MAX(base->clear_tsc, base->slot_tsc[id]);
				if (base->slot_frames[k] != 0 && first < from)
					first = from;
			}
			if (frames == 0)
				continue;
			out[i].copies += frames;
			out[i].bytes += bytes;
			if (out[i].first_tsc == 0 || first < out[i].first_tsc)
				out[i].first_tsc = first;
			if (ws->group_last_tsc[id] > out[i].last_tsc)
				out[i].last_tsc = ws->group_last_tsc[id];
			mcfan_bits_set(out[i].worker_bits, w);
		}
	}
	for (i = 0; i < n; i++) {
		uint16_t id = out[i].entry_copy.id;

		out[i].frames = gs->frames[id];
		out[i].copy_drops = gs->copy_drops[id];
		if (base != NULL) {
			const struct mcfan_rx_group_stats *rb = start ? &base->join_rx :
								  &base->rx_groups;

			out[i].frames -= rb->frames[id];
			out[i].copy_drops -= rb->copy_drops[id];
		}
	}
}

static void left_sum_add(struct mcfan_left_overflow *sum, const struct mcfan_group_view *v);

/* slots_count_since() since the last clear. */
static void
slots_count(const struct mcfan_app *app, struct mcfan_group_view *out, unsigned int n,
	    struct mcfan_worker_stats *ws, struct mcfan_rx_group_stats *gs)
{
	slots_count_since(app, out, n, ws, gs, MCFAN_SINCE_CLEAR);
}

/* Scratch of the slot reads; false (both NULL) when out of memory. */
static bool
scratch_alloc(struct mcfan_worker_stats **ws, struct mcfan_rx_group_stats **gs)
{
	*ws = malloc(sizeof(**ws));
	*gs = calloc(1, sizeof(**gs));
	if (*ws != NULL && *gs != NULL)
		return true;
	free(*ws);
	free(*gs);
	*ws = NULL;
	*gs = NULL;
	return false;
}

/* The groups joined now into out[0..max-1], counted since the clear or since their join.
 * ctl_lock held; ws and gs scratch. */
static unsigned int
joined_rows_since(const struct mcfan_app *app, struct mcfan_group_view *out, unsigned int max,
		  struct mcfan_worker_stats *ws, struct mcfan_rx_group_stats *gs,
		  enum mcfan_stats_since since)
{
	const struct mcfan_stats_base *base = app->stats_base;
	unsigned int i, n = RTE_MIN(app->n_group_entries, max);

	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		/* a copy: group_entries may be replaced once the lock is released */
		out[i].entry_copy = app->group_entries[i];
		out[i].entry = &out[i].entry_copy;
		out[i].own_series = base != NULL && base->own_series[out[i].entry_copy.id];
	}
	slots_count_since(app, out, n, ws, gs, since);
	return n;
}

/* joined_rows_since() since the last clear. */
static unsigned int
joined_rows(const struct mcfan_app *app, struct mcfan_group_view *out, unsigned int max,
	    struct mcfan_worker_stats *ws, struct mcfan_rx_group_stats *gs)
{
	return joined_rows_since(app, out, max, ws, gs, MCFAN_SINCE_CLEAR);
}

/* Add the groups left without series of their own since the start to sum: those whose slot
 * was reused as summed then, the others counted live from their slot since their join.
 * ctl_lock held; ws, gs and v (MCFAN_MAX_GROUPS views) scratch. */
static void
other_left_since_start(const struct mcfan_app *app, struct mcfan_left_overflow *sum,
		       struct mcfan_worker_stats *ws, struct mcfan_rx_group_stats *gs,
		       struct mcfan_group_view *v)
{
	const struct mcfan_stats_base *base = app->stats_base;
	unsigned int id, i, n = 0;

	if (base == NULL)
		return;
	sum->groups += base->other_start.groups;
	sum->frames += base->other_start.frames;
	sum->copies += base->other_start.copies;
	sum->copy_drops += base->other_start.copy_drops;
	sum->bytes += base->other_start.bytes;
	for (id = 0; id < MCFAN_MAX_GROUPS; id++)
		if (base->other_live[id]) {
			memset(&v[n], 0, sizeof(v[n]));
			v[n++].entry_copy.id = (uint16_t)id;
		}
	/* one pass over the counter blocks for all of them */
	slots_count_since(app, v, n, ws, gs, MCFAN_SINCE_START);
	for (i = 0; i < n; i++)
		left_sum_add(sum, &v[i]);
}

/* The left rows since the clear into out[0..max-1], oldest first: those whose slot is still
 * theirs counted from it, the others as kept. ctl_lock held; ws and gs scratch. */
static unsigned int
left_rows(const struct mcfan_app *app, struct mcfan_group_view *out, unsigned int max,
	  struct mcfan_worker_stats *ws, struct mcfan_rx_group_stats *gs)
{
	const struct mcfan_stats_base *base = app->stats_base;
	unsigned int i, j, n;

	if (base == NULL)
		return 0;
	n = RTE_MIN(base->n_left, max);
	for (i = 0, j = 0; i < n; i++) {
		if (base->left[i].frozen)
			continue;
		memset(&out[j], 0, sizeof(out[j]));
		out[j++].entry_copy = base->left[i].view.entry_copy;
	}
	slots_count(app, out, j, ws, gs);
	for (i = n; i-- > 0;) {
		if (base->left[i].frozen)
			out[i] = base->left[i].view;
		else
			out[i] = out[--j];
		out[i].entry = &out[i].entry_copy;
		out[i].left = true;
		out[i].left_tsc = base->left[i].view.left_tsc;
		out[i].own_series = base->left[i].view.own_series;
	}
	return n;
}

/* Add one group's counters to a sum of left groups. */
static void
left_sum_add(struct mcfan_left_overflow *sum, const struct mcfan_group_view *v)
{
	sum->groups++;
	sum->frames += v->frames;
	sum->copies += v->copies;
	sum->copy_drops += v->copy_drops;
	sum->bytes += v->bytes;
}

/*
 * One hold of ctl_lock, so that a group being left is counted once (as joined or as left) and
 * a row folded is counted once (as a row or in the overflow): the groups joined now into
 * out[0..max-1] (out NULL: none), the left rows since the clear into left[0..max_left-1]
 * (left NULL: none; *n_left receives how many), the overflow into ov and its part without
 * series of their own into ov_other (each may be NULL). Returns the joined views written, or
 * -ENOMEM.
 */
static int
rows_read(const struct mcfan_app *app, struct mcfan_group_view *out, unsigned int max,
	  struct mcfan_group_view *left, unsigned int max_left, unsigned int *n_left,
	  struct mcfan_left_overflow *ov, struct mcfan_left_overflow *ov_other, uint32_t *gen)
{
	const struct mcfan_stats_base *base;
	struct mcfan_rx_group_stats *gs;
	struct mcfan_worker_stats *ws;
	unsigned int n = 0;

	*n_left = 0;
	if (!scratch_alloc(&ws, &gs))
		return -ENOMEM;
	mcfan_ctl_state_lock(app);
	base = app->stats_base;
	if (out != NULL)
		n = joined_rows(app, out, max, ws, gs);
	if (left != NULL)
		*n_left = left_rows(app, left, max_left, ws, gs);
	if (base != NULL && ov != NULL)
		*ov = base->left_over;
	if (base != NULL && ov_other != NULL)
		*ov_other = base->left_over_other;
	if (gen != NULL)
		*gen = app->group_entries_gen;
	mcfan_ctl_state_unlock(app);
	free(ws);
	free(gs);
	return (int)n;
}

int
mcfan_groups_read(const struct mcfan_app *app, struct mcfan_group_view *out, unsigned int max)
{
	unsigned int k;

	return rows_read(app, out, max, NULL, 0, &k, NULL, NULL, NULL);
}

int
mcfan_groups_read_gen(const struct mcfan_app *app, struct mcfan_group_view *out,
		      unsigned int max, uint32_t *gen)
{
	unsigned int k;

	return rows_read(app, out, max, NULL, 0, &k, NULL, NULL, gen);
}

int
mcfan_groups_series_read(const struct mcfan_app *app, struct mcfan_group_view *out,
			 unsigned int max, struct mcfan_left_overflow *other)
{
	struct mcfan_group_view *left;
	unsigned int i, k;
	int n;

	memset(other, 0, sizeof(*other));
	left = calloc(MCFAN_MAX_GROUPS, sizeof(*left));
	if (left == NULL)
		return -ENOMEM;
	n = rows_read(app, out, max, left, MCFAN_MAX_GROUPS, &k, NULL, other, NULL);
	for (i = 0; i < k; i++)
		if (!left[i].own_series)
			left_sum_add(other, &left[i]);
	free(left);
	return n;
}

int
mcfan_groups_series_read_since(const struct mcfan_app *app, struct mcfan_group_view *out,
			       unsigned int max, struct mcfan_left_overflow *other,
			       enum mcfan_stats_since since)
{
	struct mcfan_rx_group_stats *gs;
	struct mcfan_worker_stats *ws;
	struct mcfan_group_view *v;
	int n;

	if (since == MCFAN_SINCE_CLEAR)
		return mcfan_groups_series_read(app, out, max, other);
	memset(other, 0, sizeof(*other));
	v = malloc(MCFAN_MAX_GROUPS * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	if (!scratch_alloc(&ws, &gs)) {
		free(v);
		return -ENOMEM;
	}
	/* one hold: a group being left is counted once, as joined or as left */
	mcfan_ctl_state_lock(app);
	n = (int)joined_rows_since(app, out, max, ws, gs, MCFAN_SINCE_START);
	other_left_since_start(app, other, ws, gs, v);
	mcfan_ctl_state_unlock(app);
	free(ws);
	free(gs);
	free(v);
	return n;
}

int
mcfan_left_groups_read(const struct mcfan_app *app, struct mcfan_group_view *out,
		       unsigned int max, struct mcfan_left_overflow *ov)
{
	unsigned int k;
	int ret;

	if (ov != NULL)
		memset(ov, 0, sizeof(*ov));
	ret = rows_read(app, NULL, 0, out, max, &k, ov, NULL, NULL);
	return ret < 0 ? ret : (int)k;
}

int
mcfan_stats_group_left(struct mcfan_app *app, const struct mcfan_group_entry *e)
{
	struct mcfan_stats_base *b = app->stats_base;
	struct left_group *lg;
	unsigned int i;

	if (b == NULL)
		return -ENODEV;
	/* ctl_lock held by the caller (see stats.h) */
	if (b->n_left == MCFAN_MAX_GROUPS) {
		/* full: fold the oldest row whose slot was reused (there is one: every other row
		 * holds a retired slot of its own, and the group being left holds a live one) */
		for (i = 0; i < b->n_left && !b->left[i].frozen; i++)
			;
		if (i == b->n_left)
			i = 0; /* not reached; fold the oldest, its later copies uncounted */
		lg = &b->left[i];
		left_sum_add(&b->left_over, &lg->view);
		if (!lg->view.own_series)
			left_sum_add(&b->left_over_other, &lg->view);
		memmove(&b->left[i], &b->left[i + 1], (b->n_left - i - 1) * sizeof(b->left[0]));
		b->n_left--;
	}
	if (!b->own_series[e->id])
		b->other_live[e->id] = true; /* in _other since the start until its slot is reused */
	lg = &b->left[b->n_left++];
	memset(lg, 0, sizeof(*lg));
	lg->view.entry_copy = *e;
	lg->view.left = true;
	lg->view.left_tsc = rte_rdtsc();
	lg->view.own_series = b->own_series[e->id];
	return 0;
}

/* Give the groups of slots[0..n-1], in that order, series of their own while fewer than
 * --metrics-max-groups joined groups have them. ctl_lock held. */
static void
deal_series(const struct mcfan_app *app, struct mcfan_stats_base *b, const uint16_t *slots,
	    unsigned int n)
{
	unsigned int i, own = 0;

	for (i = 0; i < app->n_group_entries; i++)
		own += b->own_series[app->group_entries[i].id];
	for (i = 0; i < n; i++) {
		b->own_series[slots[i]] = own < app->cfg.metrics_max_groups;
		own += b->own_series[slots[i]];
	}
}

int
mcfan_stats_groups_joining(struct mcfan_app *app, const uint16_t *slots, unsigned int n)
{
	if (app->stats_base == NULL)
		return -ENODEV;
	mcfan_ctl_state_lock(app);
	deal_series(app, app->stats_base, slots, n);
	mcfan_ctl_state_unlock(app);
	return 0;
}

uint64_t
mcfan_stats_clear_tsc(const struct mcfan_app *app)
{
	uint64_t tsc = 0;

	mcfan_ctl_state_lock(app);
	if (app->stats_base != NULL)
		tsc = app->stats_base->clear_tsc;
	mcfan_ctl_state_unlock(app);
	return tsc;
}

int
mcfan_port_stats_read_since(const struct mcfan_app *app, uint16_t port,
			    struct rte_eth_stats *out, enum mcfan_stats_since since)
{
	const struct rte_eth_stats *b;
	unsigned int q;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (port >= RTE_MAX_ETHPORTS || !app->ports[port].used)
		return -ENODEV;
	mcfan_ctl_state_lock(app); /* raw read and baseline together (see mcfan_totals_read) */
	if (app->ports[port].have_final)
		*out = app->ports[port].final_stats;
	else
		ret = rte_eth_stats_get(port, out);
	if (ret != 0) {
		mcfan_ctl_state_unlock(app);
		return ret;
	}
	if (base_for(app, since) != NULL) {
		b = &app->stats_base->ports[port];
		out->ipackets -= b->ipackets;
		out->opackets -= b->opackets;
		out->ibytes -= b->ibytes;
		out->obytes -= b->obytes;
		out->imissed -= b->imissed;
		out->ierrors -= b->ierrors;
		out->oerrors -= b->oerrors;
		out->rx_nombuf -= b->rx_nombuf;
		for (q = 0; q < RTE_ETHDEV_QUEUE_STAT_CNTRS; q++) {
			out->q_ipackets[q] -= b->q_ipackets[q];
			out->q_opackets[q] -= b->q_opackets[q];
			out->q_ibytes[q] -= b->q_ibytes[q];
			out->q_obytes[q] -= b->q_obytes[q];
			out->q_errors[q] -= b->q_errors[q];
		}
	}
	mcfan_ctl_state_unlock(app);
	return 0;
}

int
mcfan_port_stats_read(const struct mcfan_app *app, uint16_t port, struct rte_eth_stats *out)
{
	return mcfan_port_stats_read_since(app, port, out, MCFAN_SINCE_CLEAR);
}

int
mcfan_stats_init(struct mcfan_app *app)
{
	struct mcfan_stats_base *b;
	size_t n = (size_t)RTE_MAX(app->n_workers, 1u);
	unsigned int i;

	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	b->workers = calloc(n, sizeof(b->workers[0]));
	b->slot_frames = calloc(n * MCFAN_MAX_GROUPS, sizeof(b->slot_frames[0]));
	b->slot_bytes = calloc(n * MCFAN_MAX_GROUPS, sizeof(b->slot_bytes[0]));
	b->rings = calloc(n * RTE_MAX(app->n_rx, 1u), sizeof(b->rings[0]));
	b->rx = calloc(RTE_MAX(app->n_rx, 1u), sizeof(b->rx[0]));
	b->inst = calloc(n * MCFAN_ENGINE_INST_MAX, sizeof(b->inst[0]));
	b->values0 = calloc(n, sizeof(b->values0[0]));
	b->sel_frames = calloc(n, sizeof(b->sel_frames[0]));
	b->join_frames = calloc(n * MCFAN_MAX_GROUPS, sizeof(b->join_frames[0]));
	b->join_bytes = calloc(n * MCFAN_MAX_GROUPS, sizeof(b->join_bytes[0]));
	if (b->join_frames == NULL || b->join_bytes == NULL) {
		free(b->join_frames);
		free(b->join_bytes);
		b->join_frames = NULL;
		b->join_bytes = NULL;
		free(b->sel_frames);
		b->sel_frames = NULL; /* refused below with the rest */
	}
	if (b->workers == NULL || b->slot_frames == NULL || b->slot_bytes == NULL ||
	    b->rings == NULL || b->rx == NULL || b->inst == NULL || b->values0 == NULL ||
	    b->sel_frames == NULL) {
		free(b->inst);
		free(b->values0);
		free(b->sel_frames);
		free(b->rx);
		free(b->rings);
		free(b->workers);
		free(b->slot_frames);
		free(b->slot_bytes);
		free(b->join_frames);
		free(b->join_bytes);
		free(b);
		return -ENOMEM;
	}
	mcfan_ctl_state_lock(app);
	/* the groups of --groups, in their order (deal_series() with none joined before) */
	for (i = 0; i < app->n_group_entries; i++)
		b->own_series[app->group_entries[i].id] = i < app->cfg.metrics_max_groups;
	app->stats_base = b;
	mcfan_ctl_state_unlock(app);
	return 0;
}

void
mcfan_stats_free(struct mcfan_app *app)
{
	struct mcfan_stats_base *b;

	mcfan_ctl_state_lock(app);
	b = app->stats_base;
	app->stats_base = NULL;
	mcfan_ctl_state_unlock(app);
	if (b == NULL)
		return;
	free(b->workers);
	free(b->slot_frames);
	free(b->slot_bytes);
	free(b->rings);
	free(b->rx);
	free(b->inst);
	free(b->values0);
	free(b->sel_frames);
	free(b->join_frames);
	free(b->join_bytes);
	free(b);
}

/* Every worker's engine counters as they are: inst[w * MCFAN_ENGINE_INST_MAX + k] of
 * instance k, values0[w] of mcfan_lcore_engine_values(). No lock (the counters hooks read the
 * engines' own counters). */
static void
engines_raw(const struct mcfan_app *app, struct engine_base *inst, struct engine_base *values0)
{
	struct mcfan_engine_value v[MCFAN_ENGINE_VALUES_MAX];
	struct mcfan_inst_view iv;
	struct engine_base *eb;
	unsigned int w, k, id;
	int n, i;

	for (w = 0; w < app->n_workers; w++) {
		id = app->worker_lcore_ids[w];
		for (k = 0; k < app->n_inst && k < MCFAN_ENGINE_INST_MAX; k++) {
			if (mcfan_lcore_inst_read(app, id, k, &iv) < 0)
				continue;
			eb = &inst[(size_t)w * MCFAN_ENGINE_INST_MAX + k];
			eb->engine = app->inst_engine[k];
			eb->frames = iv.frames;
			eb->n = (unsigned int)iv.n_values;
			for (i = 0; i < iv.n_values; i++) {
				eb->names[i] = iv.values[i].name;
				eb->values[i] = iv.values[i].value;
			}
		}
		n = mcfan_lcore_engine_values(app, id, v, RTE_DIM(v));
		eb = &values0[w];
		eb->engine = app->lcores[id].worker_engine;
		eb->n = n > 0 ? (unsigned int)n : 0;
		for (i = 0; i < n; i++) {
			eb->names[i] = v[i].name;
			eb->values[i] = v[i].value;
		}
	}
}

int
mcfan_stats_clear(struct mcfan_app *app)
{
	struct mcfan_stats_base *b = app->stats_base;
	struct mcfan_worker_stats *ws;
	struct mcfan_totals t;
	struct mcfan_ring_stats *rs;
	struct mcfan_rx_stats st, *per;
	struct engine_base *eng;
	struct rte_eth_stats ps[RTE_MAX_ETHPORTS];
	unsigned int r, w;
	uint16_t port;

	if (b == NULL)
		return -ENODEV;
	mcfan_kernel_clear(app); /* takes ctl_lock itself */
	mcfan_overrun_clear(app); /* likewise */
	ws = malloc(sizeof(*ws));
	rs = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*rs));
	per = calloc(RTE_MAX(app->n_rx, 1u), sizeof(*per));
	if (ws == NULL || rs == NULL || per == NULL) {
		free(ws);
		free(rs);
		free(per);
		return -ENOMEM;
	}
	memset(ps, 0, sizeof(ps));
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used)
			continue;
		if (app->ports[port].have_final)
			ps[port] = app->ports[port].final_stats;
		else if (rte_eth_stats_get(port, &ps[port]) != 0)
			memset(&ps[port], 0, sizeof(ps[port]));
	}
	eng = calloc((size_t)RTE_MAX(app->n_workers, 1u) * (MCFAN_ENGINE_INST_MAX + 1),
		     sizeof(*eng));
	if (eng == NULL) {
		free(ws);
		free(rs);
		free(per);
		return -ENOMEM;
	}
	engines_raw(app, eng, &eng[(size_t)app->n_workers * MCFAN_ENGINE_INST_MAX]);
	totals_raw(app, &t, per);
	mcfan_ctl_state_lock(app);
	b->clear_tsc = rte_rdtsc();
	b->n_left = 0; /* the left groups' rows start again too */
	memset(&b->left_over, 0, sizeof(b->left_over));
	memset(&b->left_over_other, 0, sizeof(b->left_over_other));
	memcpy(b->inst, eng, (size_t)app->n_workers * MCFAN_ENGINE_INST_MAX * sizeof(*eng));
	memcpy(b->values0, &eng[(size_t)app->n_workers * MCFAN_ENGINE_INST_MAX],
	       (size_t)app->n_workers * sizeof(*eng));
	for (w = 0; w < app->n_workers; w++)
		b->sel_frames[w] = mcfan_lcore_sel_frames(app, app->worker_lcore_ids[w]);
	b->totals = t;
	memcpy(b->rx, per, (size_t)app->n_rx * sizeof(*per));
	memcpy(b->ports, ps, sizeof(ps));
	for (w = 0; w < app->n_workers; w++) {
		const struct mcfan_lcore *lc = &app->lcores[app->worker_lcore_ids[w]];

		mcfan_worker_stats_read(lc->ws, ws);
		b->workers[w].frames = ws->frames;
		b->workers[w].bytes = ws->bytes;
		b->workers[w].enqueued = 0;
		b->workers[w].ring_drops = 0;
		memcpy(b->workers[w].lat_hist, ws->lat_hist, sizeof(ws->lat_hist));
		b->workers[w].lat_sum_ns = ws->lat_sum_ns;
		memcpy(&b->slot_frames[(size_t)w * MCFAN_MAX_GROUPS], ws->group_frames,
		       sizeof(ws->group_frames));
		memcpy(&b->slot_bytes[(size_t)w * MCFAN_MAX_GROUPS], ws->group_bytes,
		       sizeof(ws->group_bytes));
	}
	for (r = 0; r < app->n_rx; r++) {
		mcfan_rx_ctx_read(&app->lcores[app->rx_lcore_ids[r]].rx, &st, rs);
		for (w = 0; w < app->n_workers; w++) {
			b->workers[w].enqueued += rs[w].enqueued;
			b->workers[w].ring_drops += rs[w].ring_drops;
			b->rings[(size_t)r * app->n_workers + w] = rs[w];
		}
	}
	rx_groups_sum(app, &b->rx_groups);
	mcfan_ctl_state_unlock(app);
	free(eng);
	free(ws);
	free(rs);
	free(per);
	return 0;
}

int
mcfan_stats_slot_rebase(struct mcfan_app *app, uint16_t slot)
{
	struct mcfan_stats_base *b = app->stats_base;
	struct mcfan_rx_group_stats *gs;
	struct mcfan_worker_stats *ws;
	unsigned int w, i;

	if (b == NULL || slot >= MCFAN_MAX_GROUPS)
		return -EINVAL;
	ws = malloc(sizeof(*ws));
	gs = calloc(1, sizeof(*gs));
	if (ws == NULL || gs == NULL) {
		free(ws);
		free(gs);
		return -ENOMEM;
	}
	mcfan_ctl_state_lock(app);
	/* a left group's row counted from this slot keeps what it has now (all of it: the
	 * slot is reused only once its frames are drained, see control/groups.c) */
	for (i = 0; i < b->n_left; i++) {
		struct left_group *lg = &b->left[i];
		struct mcfan_group_entry e = lg->view.entry_copy;
		uint64_t tsc = lg->view.left_tsc;
		bool own = lg->view.own_series;

		if (lg->frozen || e.id != slot)
			continue;
		memset(&lg->view, 0, sizeof(lg->view));
		lg->view.entry_copy = e;
		lg->view.left_tsc = tsc;
		lg->view.left = true;
		lg->view.own_series = own; /* where /metrics counts it stays so */
		slots_count(app, &lg->view, 1, ws, gs);
		lg->frozen = true;
	}
	/* the slot's last group, left without series of its own: /metrics' _other keeps all it
	 * counted since its join (since start) */
	if (b->other_live[slot]) {
		struct mcfan_group_view v;

		memset(&v, 0, sizeof(v));
		v.entry_copy.id = slot;
		slots_count_since(app, &v, 1, ws, gs, MCFAN_SINCE_START);
		left_sum_add(&b->other_start, &v);
		b->other_live[slot] = false;
	}
	for (w = 0; w < app->n_workers; w++) {
		size_t k = (size_t)w * MCFAN_MAX_GROUPS + slot;

		mcfan_worker_stats_read(app->lcores[app->worker_lcore_ids[w]].ws, ws);
		b->slot_frames[k] = ws->group_frames[slot];
		b->slot_bytes[k] = ws->group_bytes[slot];
		b->join_frames[k] = ws->group_frames[slot];
		b->join_bytes[k] = ws->group_bytes[slot];
	}
	b->slot_tsc[slot] = rte_rdtsc();
	rx_groups_sum(app, gs);
	b->rx_groups.frames[slot] = gs->frames[slot];
	b->rx_groups.copy_drops[slot] = gs->copy_drops[slot];
	b->join_rx.frames[slot] = gs->frames[slot];
	b->join_rx.copy_drops[slot] = gs->copy_drops[slot];
	mcfan_ctl_state_unlock(app);
	free(gs);
	free(ws);
	return 0;
}

/* An accounting block paused since its init with nothing counted (main.c pauses a --no-msacc
 * block at the instant it initialises it): the same test mcfan_msacc_resume() makes. */
static bool
msacc_never_measured(const struct mcfan_msacc *ms)
{
	struct mcfan_msacc_snap snap;
	uint64_t sum;
	unsigned int i;

	mcfan_msacc_snapshot(ms, rte_rdtsc(), &snap);
	sum = snap.polls;
	for (i = 0; i < MCFAN_MS_MAX; i++)
		sum += snap.cycles[i];
	return snap.paused && sum == 0;
}

bool
mcfan_msacc_any_never_measured(const struct mcfan_app *app)
{
	unsigned int id;

	for (id = 0; id < RTE_MAX_LCORE; id++)
		if (app->lcores[id].role != MCFAN_ROLE_NONE &&
		    msacc_never_measured(&app->lcores[id].ms))
			return true;
	return false;
}

int
mcfan_lcore_rows(struct mcfan_app *app, struct mcfan_msacc_row *rows, unsigned int max)
{
	return mcfan_lcore_rows_in(app, app->window, rows, max);
}

int
mcfan_lcore_rows_in(struct mcfan_app *app, struct mcfan_msacc_window *window,
		    struct mcfan_msacc_row *rows, unsigned int max)
{
	const struct mcfan_msacc *ms[RTE_MAX_LCORE] = {NULL};
	unsigned int id;

	for (id = 0; id < RTE_MAX_LCORE; id++)
		if (app->lcores[id].role != MCFAN_ROLE_NONE)
			ms[id] = &app->lcores[id].ms;

	int n, i, k = 0;

	if (app->stop_tsc == 0)
		mcfan_sched_update(app); /* wait_cpu up to now (control/sched.h) */
	/* after the stop, every view ends at the stop, so the text and JSON reports agree */
	n = mcfan_msacc_window_collect(window, ms, RTE_MAX_LCORE,
				       app->stop_tsc != 0 ? app->stop_tsc : rte_rdtsc(), rows, max);
	/* leave out lcores that never measured anything (--no-msacc since start); an lcore whose
	 * accounting was switched off keeps its row even when the window holds none of its time
	 * (msacc off, then msacc reset or start): it is an mcfan lcore, frozen, not absent */
	for (i = 0; i < n; i++)
		if (!(rows[i].snap.paused && mcfan_msacc_snap_wall(&rows[i].snap) == 0 &&
		      msacc_never_measured(&app->lcores[rows[i].lcore_id].ms)))
			rows[k++] = rows[i];
	return n < 0 ? n : k;
}

int
mcfan_lcore_cpu(unsigned int lcore_id)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore_id);
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

void
mcfan_lcore_cpus(unsigned int lcore_id, char *buf, size_t len)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore_id);
	size_t off = 0;
	int cpu, last;

	buf[0] = '\0';
	for (cpu = 0; cpu < CPU_SETSIZE && off < len; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		for (last = cpu; last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set); last++)
			;
		if (last == cpu)
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off > 0 ? "," : "",
						cpu);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%d-%d",
						off > 0 ? "," : "", cpu, last);
		cpu = last;
	}
}

int
mcfan_lcore_engines_read(const struct mcfan_app *app, unsigned int lcore_id,
			 struct mcfan_lcore_engines *out)
{
	const struct mcfan_lcore *lc;

	out->rx = NULL;
	out->worker = NULL;
	if (lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	lc = &app->lcores[lcore_id];
	if (lc->rx_engine != NULL)
		out->rx = lc->rx_engine->name;
	if (lc->worker_engine != NULL)
		out->worker = lc->worker_engine->name;
	return 0;
}

int
mcfan_lcore_engine_values(const struct mcfan_app *app, unsigned int lcore_id,
			  struct mcfan_engine_value *out, unsigned int max)
{
	struct mcfan_engine_counter c[MCFAN_ENGINE_COUNTERS_MAX];
	const struct mcfan_lcore *lc;
	unsigned int n, i;

	if (lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	lc = &app->lcores[lcore_id];
	if (lc->worker_engine == NULL || lc->worker_engine->counters == NULL)
		return 0;
	/* instance 0: the --worker-engine, as before per-group engines */
	n = lc->worker_engine->counters(app, lc, lc->inst_priv[0], c,
					RTE_MIN(max, (unsigned int)RTE_DIM(c)));
	for (i = 0; i < n; i++) {
		out[i].name = c[i].name;
		out[i].value = c[i].value;
		out[i].kind = c[i].kind;
	}
	return (int)n;
}

int
mcfan_lcore_inst_read(const struct mcfan_app *app, unsigned int lcore_id, unsigned int inst,
		      struct mcfan_inst_view *out)
{
	struct mcfan_engine_counter c[MCFAN_ENGINE_COUNTERS_MAX];
	const struct mcfan_engine *e;
	const struct mcfan_lcore *lc;
	unsigned int n = 0, i;

	if (lcore_id >= RTE_MAX_LCORE || inst >= app->n_inst)
		return -EINVAL;
	lc = &app->lcores[lcore_id];
	if (lc->worker_engine == NULL)
		return -EINVAL;
	e = app->inst_engine[inst];
	out->inst = inst;
	out->engine = e->name;
	out->args = app->cfg.n_engine_inst > inst ? app->cfg.engine_inst[inst].args :
		app->cfg.worker_engine_args;
	out->frames = mcfan_atomic_u64_load(&lc->inst_frames[inst], memory_order_relaxed);
	if (e->counters != NULL)
		n = e->counters(app, lc, lc->inst_priv[inst], c, RTE_DIM(c));
	out->own_counters = n > 0;
	if (n == 0) {
		/* an engine without counters (count) delivers every copy it is handed */
		out->values[0] = (struct mcfan_engine_value){"counted", out->frames,
							     MCFAN_ENGINE_CTR_DELIVERED};
		out->n_values = 1;
		return 0;
	}
	for (i = 0; i < n && i < RTE_DIM(out->values); i++)
		out->values[i] = (struct mcfan_engine_value){c[i].name, c[i].value, c[i].kind};
	out->n_values = (int)i;
	return 0;
}

uint64_t
mcfan_lcore_sel_frames(const struct mcfan_app *app, unsigned int lcore_id)
{
	if (lcore_id >= RTE_MAX_LCORE)
		return 0;
	return mcfan_atomic_u64_load(&app->lcores[lcore_id].sel_frames, memory_order_relaxed);
}

/* A kind 2 engine value that is a level or a name, not a count: never rebased. */
static bool
value_is_level(const char *name)
{
	return strcmp(name, "pcap_pending") == 0 || strcmp(name, "tx_port") == 0 ||
		strcmp(name, "tx_queue") == 0;
}

/* Subtract baseline eb (taken from engine e at the clear) from values v[0..n-1]. */
static void
values_rebase(const struct engine_base *eb, const struct mcfan_engine *e,
	      struct mcfan_engine_value *v, unsigned int n)
{
	unsigned int i;

	if (eb->engine == NULL || eb->engine != e)
		return; /* no clear, or the engine changed since: its counters start there */
	for (i = 0; i < n && i < eb->n; i++) {
		if (eb->names[i] == NULL || strcmp(eb->names[i], v[i].name) != 0 ||
		    (v[i].kind == MCFAN_ENGINE_CTR_INFO && value_is_level(v[i].name)))
			continue;
		v[i].value = v[i].value >= eb->values[i] ? v[i].value - eb->values[i] : 0;
	}
}

int
mcfan_lcore_engine_values_cleared(const struct mcfan_app *app, unsigned int lcore_id,
				  struct mcfan_engine_value *out, unsigned int max)
{
	int n = mcfan_lcore_engine_values(app, lcore_id, out, max);
	int w = mcfan_worker_index(app, lcore_id);

	if (n <= 0 || w < 0)
		return n;
	mcfan_ctl_state_lock(app);
	if (app->stats_base != NULL)
		values_rebase(&app->stats_base->values0[w], app->lcores[lcore_id].worker_engine, out,
			      (unsigned int)n);
	mcfan_ctl_state_unlock(app);
	return n;
}

int
mcfan_lcore_inst_read_cleared(const struct mcfan_app *app, unsigned int lcore_id,
			      unsigned int inst, struct mcfan_inst_view *out)
{
	const struct engine_base *eb;
	int ret = mcfan_lcore_inst_read(app, lcore_id, inst, out);
	int w = mcfan_worker_index(app, lcore_id);

	if (ret < 0 || w < 0 || inst >= MCFAN_ENGINE_INST_MAX)
		return ret;
	mcfan_ctl_state_lock(app);
	if (app->stats_base != NULL) {
		eb = &app->stats_base->inst[(size_t)w * MCFAN_ENGINE_INST_MAX + inst];
		if (eb->engine != NULL && eb->engine == app->inst_engine[inst])
			out->frames -= RTE_MIN(out->frames, eb->frames);
		values_rebase(eb, app->inst_engine[inst], out->values,
			      (unsigned int)out->n_values);
	}
	mcfan_ctl_state_unlock(app);
	return 0;
}

uint64_t
mcfan_lcore_sel_frames_cleared(const struct mcfan_app *app, unsigned int lcore_id)
{
	uint64_t v = mcfan_lcore_sel_frames(app, lcore_id);
	int w = mcfan_worker_index(app, lcore_id);

	if (w < 0)
		return v;
	mcfan_ctl_state_lock(app);
	if (app->stats_base != NULL)
		v -= RTE_MIN(v, app->stats_base->sel_frames[w]);
	mcfan_ctl_state_unlock(app);
	return v;
}
