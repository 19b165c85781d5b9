/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Read side of every counter: the one source of truth that the report, the
 * periodic summary, telemetry and the console format. Control side only.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "mcfan.h"
#include "stats.h"

void
mcfan_totals_read(const struct mcfan_app *app, struct mcfan_totals *t)
{
	struct mcfan_rx_stats s;
	unsigned int r, k;

	memset(t, 0, sizeof(*t));
	for (r = 0; r < app->n_rx; r++) {
		mcfan_rx_stats_read(&app->lcores[app->rx_lcore_ids[r]].rx.stats, &s);
		t->rx_frames += s.rx_frames;
		t->rx_bytes += s.rx_bytes;
		t->delivered_frames += s.delivered_frames;
		t->copies_offered += s.copies_offered;
		t->delivered_copies += s.delivered_copies;
		for (k = 1; k < MCFAN_DROP_MAX; k++)
			t->drops[k] += s.drops[k];
	}
	for (k = 1; k < MCFAN_DROP_MAX; k++)
		t->drops_total += t->drops[k];
}

int
mcfan_workers_read(const struct mcfan_app *app, struct mcfan_worker_view *out)
{
	struct mcfan_ring_stats *rs;
	struct mcfan_rx_stats st;
	unsigned int r, w;

	rs = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*rs));
	if (rs == NULL)
		return -ENOMEM;
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
	return (int)app->n_workers;
}

int
mcfan_groups_read(const struct mcfan_app *app, struct mcfan_group_view *out, unsigned int max)
{
	struct mcfan_worker_stats *ws;
	unsigned int i, w, n = RTE_MIN(app->n_group_entries, max);

	ws = malloc(sizeof(*ws));
	if (ws == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].entry = &app->group_entries[i];
	}
	for (w = 0; w < app->n_workers; w++) {
		mcfan_worker_stats_read(app->lcores[app->worker_lcore_ids[w]].ws, ws);
		for (i = 0; i < n; i++) {
			uint16_t id = out[i].entry->id;

			if (ws->group_frames[id] == 0)
				continue;
			out[i].frames += ws->group_frames[id];
			out[i].bytes += ws->group_bytes[id];
			if (out[i].first_tsc == 0 || ws->group_first_tsc[id] < out[i].first_tsc)
				out[i].first_tsc = ws->group_first_tsc[id];
			if (ws->group_last_tsc[id] > out[i].last_tsc)
				out[i].last_tsc = ws->group_last_tsc[id];
			out[i].worker_bits[w / 64] |= UINT64_C(1) << (w % 64);
		}
	}
	free(ws);
	return (int)n;
}

int
mcfan_lcore_rows(struct mcfan_app *app, struct mcfan_msacc_row *rows, unsigned int max)
{
	const struct mcfan_msacc *ms[RTE_MAX_LCORE] = {NULL};
	unsigned int id;

	for (id = 0; id < RTE_MAX_LCORE; id++)
		if (app->lcores[id].role != MCFAN_ROLE_NONE)
			ms[id] = &app->lcores[id].ms;
	return mcfan_msacc_window_collect(app->window, ms, RTE_MAX_LCORE, rte_rdtsc(), rows, max);
}
