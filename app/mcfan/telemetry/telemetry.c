/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Telemetry commands under /mcfan/, answered on the standard v2 socket
 * (dpdk-telemetry.py -f PREFIX). Callbacks run in EAL's telemetry thread; they
 * only read, through the same functions as the report and the console
 * (stats.c). Reply shapes are documented in docs/telemetry.md.
 *
 * DPDK 22.11 limits shape every reply: dict keys [A-Za-z0-9_/], at most
 * RTE_TEL_MAX_DICT_ENTRIES (256) dict and RTE_TEL_MAX_ARRAY_ENTRIES (512) array
 * entries, containers only one level deep and only arrays of scalars, no
 * floating point, and a reply over 16 KiB loses elements silently. So tables
 * are given as columns (parallel arrays), percentages as basis points (1/100
 * of a percent, integers), and groups in pages of MCFAN_TEL_GROUPS_PAGE.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "log.h"
#include "control/idle.h"
#include "control/placement.h"
#include "control/stats.h"

/* Groups per /mcfan/groups page: 128 rows of the longest IPv6 group stay under 16 KiB. */
#define MCFAN_TEL_GROUPS_PAGE 128
/* Longest parameter accepted (a bracketed IPv6 group with port is 48 characters). */
#define MCFAN_TEL_PARAM_MAX 64
#define BASIS_POINTS 100.0 /* basis points per percent */

/*
 * Lifetime: callbacks run in the telemetry thread and may arrive before setup is complete
 * or while the main lcore tears down. tel_lock (control side only, never taken by a data
 * lcore) guards tel_ready: callbacks run only while it is set, and mcfan_telemetry_stop()
 * clears it, waiting for a running callback to finish.
 */
static struct mcfan_app *tel_app;
static rte_spinlock_t tel_lock = RTE_SPINLOCK_INITIALIZER;
static bool tel_ready;

/* Reject a parameter on a command that takes none. */
static int
no_param(const char *cmd, const char *params)
{
	if (params != NULL && params[0] != '\0') {
		MCFAN_LOG(WARNING, "telemetry %s: takes no parameter, got '%.64s'\n", cmd, params);
		return -EINVAL;
	}
	return 0;
}

/* A decimal number 0..max, nothing else. */
static int
param_uint(const char *s, unsigned long max, unsigned long *out)
{
	uint64_t v = 0;
	int ret = mcfan_parse_u64(s, 0, max, &v);

	*out = (unsigned long)v; /* 0 on error: callers test ret */
	return ret;
}

static struct rte_tel_data *
new_array(enum rte_tel_value_type type)
{
	struct rte_tel_data *a = rte_tel_data_alloc();

	if (a != NULL)
		rte_tel_data_start_array(a, type);
	return a;
}

static uint64_t
to_bp(double pct)
{
	return pct <= 0 ? 0 : (uint64_t)(pct * BASIS_POINTS + 0.5);
}

/* One column of a table reply: DPDK 22.11 gives tables as parallel arrays. */
struct tel_col {
	const char *name;
	enum rte_tel_value_type type;
};

/* Allocate one array per column; all or none (-ENOMEM). */
static int
cols_alloc(struct rte_tel_data **c, const struct tel_col *cols, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		c[i] = new_array(cols[i].type);
		if (c[i] == NULL) {
			while (i-- > 0)
				rte_tel_data_free(c[i]);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Hand the columns to the reply under their names (the reply frees them). */
static void
cols_attach(struct rte_tel_data *d, struct rte_tel_data **c, const struct tel_col *cols,
	    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rte_tel_data_add_dict_container(d, cols[i].name, c[i], 0);
}

static int
tel_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct tel_col cols[] = {
		{"rx_lcores", RTE_TEL_INT_VAL}, {"worker_lcores", RTE_TEL_INT_VAL},
	};
	struct mcfan_app *app = tel_app;
	struct rte_tel_data *c[RTE_DIM(cols)];
	unsigned int i;

	if (no_param(cmd, params) < 0)
		return -EINVAL;
	if (cols_alloc(c, cols, RTE_DIM(cols)) < 0)
		return -ENOMEM;
	for (i = 0; i < app->n_rx; i++)
		rte_tel_data_add_array_int(c[0], (int)app->rx_lcore_ids[i]);
	for (i = 0; i < app->n_workers; i++)
		rte_tel_data_add_array_int(c[1], (int)app->worker_lcore_ids[i]);
	rte_tel_data_add_dict_string(d, "version", MCFAN_VERSION);
	rte_tel_data_add_dict_string(d, "dpdk_version", rte_version());
	rte_tel_data_add_dict_u64(d, "uptime_ms", app->start_tsc == 0 ? 0 :
				  (rte_rdtsc() - app->start_tsc) * 1000 / app->tsc_hz);
	rte_tel_data_add_dict_u64(d, "tsc_hz", app->tsc_hz);
	rte_tel_data_add_dict_int(d, "main_lcore", (int)app->main_lcore);
	cols_attach(d, c, cols, RTE_DIM(cols));
	rte_tel_data_add_dict_u64(d, "groups", app->n_group_entries);
	rte_tel_data_add_dict_string(d, "fanout", mcfan_fanout_name(mcfan_live_fanout(&app->live)));
	rte_tel_data_add_dict_u64(d, "burst", mcfan_live_burst(&app->live));
	rte_tel_data_add_dict_u64(d, "ring_size", app->cfg.ring_size);
	return 0;
}

static int
tel_lcores(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct tel_col cols[] = {
		{"lcore", RTE_TEL_INT_VAL}, {"role", RTE_TEL_STRING_VAL}, {"cpu", RTE_TEL_INT_VAL},
		{"socket", RTE_TEL_INT_VAL}, {"state", RTE_TEL_STRING_VAL},
		{"rx_engine", RTE_TEL_STRING_VAL}, {"worker_engine", RTE_TEL_STRING_VAL},
	};
	struct mcfan_app *app = tel_app;
	struct mcfan_lcore_engines eng;
	struct rte_tel_data *c[RTE_DIM(cols)];
	unsigned int id;

	if (no_param(cmd, params) < 0)
		return -EINVAL;
	if (cols_alloc(c, cols, RTE_DIM(cols)) < 0)
		return -ENOMEM;
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		const struct mcfan_lcore *lc = &app->lcores[id];

		if (lc->role == MCFAN_ROLE_NONE)
			continue;
		rte_tel_data_add_array_int(c[0], (int)id);
		rte_tel_data_add_array_string(c[1], mcfan_role_name(lc->role));
		rte_tel_data_add_array_int(c[2], mcfan_lcore_cpu(id));
		rte_tel_data_add_array_int(c[3], (int)rte_lcore_to_socket_id(id));
		rte_tel_data_add_array_string(c[4], mcfan_ms_state_name(
			__atomic_load_n(&lc->ms.state, __ATOMIC_RELAXED)));
		mcfan_lcore_engines_read(app, id, &eng);
		rte_tel_data_add_array_string(c[5], eng.rx != NULL ? eng.rx : "none");
		rte_tel_data_add_array_string(c[6], eng.worker != NULL ? eng.worker : "none");
	}
	cols_attach(d, c, cols, RTE_DIM(cols));
	return 0;
}

/* Window rows of all lcores; returns the count or a negative errno. */
static int
msacc_rows(struct mcfan_msacc_row **rows)
{
	int n;

	*rows = calloc(RTE_MAX_LCORE, sizeof(**rows));
	if (*rows == NULL)
		return -ENOMEM;
	n = mcfan_lcore_rows(tel_app, *rows, RTE_MAX_LCORE);
	if (n < 0) {
		free(*rows);
		*rows = NULL;
	}
	return n;
}

static void
msacc_one(struct rte_tel_data *d, const struct mcfan_msacc_row *row)
{
	struct mcfan_msacc_stats st;
	struct rte_tel_data *hist;
	char key[MCFAN_MS_STATE_NAME_MAX + 8];
	unsigned int s, b;

	mcfan_msacc_stats(&row->snap, &st);
	rte_tel_data_add_dict_int(d, "lcore", (int)row->lcore_id);
	rte_tel_data_add_dict_string(d, "role", mcfan_role_name(row->role));
	rte_tel_data_add_dict_u64(d, "wall_cycles", st.wall_cycles);
	rte_tel_data_add_dict_u64(d, "tsc_hz", tel_app->tsc_hz);
	for (s = 0; s < MCFAN_MS_MAX; s++) {
		snprintf(key, sizeof(key), "%s_cycles", mcfan_ms_state_name(s));
		rte_tel_data_add_dict_u64(d, key, st.cycles[s]);
		snprintf(key, sizeof(key), "%s_bp", mcfan_ms_state_name(s));
		rte_tel_data_add_dict_u64(d, key, to_bp(st.pct[s]));
	}
	rte_tel_data_add_dict_u64(d, "busy_cycles", st.busy_cycles);
	rte_tel_data_add_dict_u64(d, "busy_bp", to_bp(st.busy_pct));
	rte_tel_data_add_dict_u64(d, "polls", st.polls);
	rte_tel_data_add_dict_u64(d, "polls_work", st.polls_work);
	rte_tel_data_add_dict_u64(d, "frames", st.frames);
	rte_tel_data_add_dict_u64(d, "empty_poll_bp", to_bp(st.empty_poll_pct));
	rte_tel_data_add_dict_u64(d, "cycles_per_frame", (uint64_t)(st.cycles_per_frame + 0.5));
	rte_tel_data_add_dict_u64(d, "frames_per_poll_x100",
				  (uint64_t)(st.frames_per_poll * 100 + 0.5));
	rte_tel_data_add_dict_u64(d, "sleeps", st.sleeps);
	rte_tel_data_add_dict_u64(d, "wakeups", st.wakeups);
	hist = new_array(RTE_TEL_U64_VAL);
	if (hist != NULL) {
		for (b = 0; b < MCFAN_MSACC_HIST_BUCKETS; b++)
			rte_tel_data_add_array_u64(hist, st.hist[b]);
		rte_tel_data_add_dict_container(d, "burst_hist_log2", hist, 0);
	}
}

/* Columns of a per-lcore or per-role table: one array per state in basis points. */
static int
msacc_columns(struct rte_tel_data *d, const struct mcfan_msacc_stats *st, const uint32_t *ids,
	      const char *const *names, unsigned int n)
{
	enum { COL_ID, COL_WALL, COL_BUSY, COL_STATE0, N_COLS = COL_STATE0 + MCFAN_MS_MAX };
	char keys[MCFAN_MS_MAX][MCFAN_MS_STATE_NAME_MAX + 8];
	struct tel_col cols[N_COLS] = {
		[COL_ID] = {names != NULL ? "role" : "lcore",
			    names != NULL ? RTE_TEL_STRING_VAL : RTE_TEL_INT_VAL},
		[COL_WALL] = {"wall_cycles", RTE_TEL_U64_VAL},
		[COL_BUSY] = {"busy_bp", RTE_TEL_U64_VAL},
	};
	struct rte_tel_data *c[N_COLS];
	unsigned int s, i;

	for (s = 0; s < MCFAN_MS_MAX; s++) {
		snprintf(keys[s], sizeof(keys[s]), "%s_bp", mcfan_ms_state_name(s));
		cols[COL_STATE0 + s] = (struct tel_col){keys[s], RTE_TEL_U64_VAL};
	}
	if (cols_alloc(c, cols, N_COLS) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (names != NULL)
			rte_tel_data_add_array_string(c[COL_ID], names[i]);
		else
			rte_tel_data_add_array_int(c[COL_ID], (int)ids[i]);
		rte_tel_data_add_array_u64(c[COL_WALL], st[i].wall_cycles);
		rte_tel_data_add_array_u64(c[COL_BUSY], to_bp(st[i].busy_pct));
		for (s = 0; s < MCFAN_MS_MAX; s++)
			rte_tel_data_add_array_u64(c[COL_STATE0 + s], to_bp(st[i].pct[s]));
	}
	cols_attach(d, c, cols, N_COLS);
	return 0;
}

static int
tel_msacc(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mcfan_msacc_row *rows;
	struct mcfan_msacc_stats *st;
	uint32_t ids[RTE_MAX_LCORE];
	unsigned long lcore = 0;
	int n, i, ret = 0;
	bool one = params != NULL && params[0] != '\0';

	if (one && param_uint(params, RTE_MAX_LCORE - 1, &lcore) < 0) {
		MCFAN_LOG(WARNING, "telemetry %s: parameter must be an lcore id 0..%d, got "
			  "'%.64s'\n", cmd, RTE_MAX_LCORE - 1, params);
		return -EINVAL;
	}
	n = msacc_rows(&rows);
	if (n < 0)
		return n;
	if (one) {
		for (i = 0; i < n && rows[i].lcore_id != lcore; i++)
			;
		if (i == n) {
			MCFAN_LOG(WARNING, "telemetry %s: lcore %" PRIu64 " has no accounting (not "
				  "an mcfan lcore)\n", cmd, (uint64_t)lcore);
			ret = -ENOENT;
		} else {
			msacc_one(d, &rows[i]);
		}
		free(rows);
		return ret;
	}
	st = calloc(RTE_MAX((unsigned int)n, 1u), sizeof(*st));
	if (st == NULL) {
		free(rows);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		mcfan_msacc_stats(&rows[i].snap, &st[i]);
		ids[i] = rows[i].lcore_id;
	}
	rte_tel_data_add_dict_u64(d, "tsc_hz", tel_app->tsc_hz);
	ret = msacc_columns(d, st, ids, NULL, (unsigned int)n);
	free(st);
	free(rows);
	return ret;
}

static int
tel_msacc_types(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mcfan_msacc_stats by_role[MCFAN_ROLE_TYPE_MAX], st[MCFAN_ROLE_TYPE_MAX];
	const char *names[MCFAN_ROLE_TYPE_MAX];
	struct rte_tel_data *cnt;
	struct mcfan_msacc_row *rows;
	unsigned int t, k = 0;
	int n, ret;

	if (no_param(cmd, params) < 0)
		return -EINVAL;
	n = msacc_rows(&rows);
	if (n < 0)
		return n;
	ret = mcfan_msacc_stats_by_role(rows, (unsigned int)n, by_role);
	free(rows);
	if (ret < 0)
		return ret;
	cnt = new_array(RTE_TEL_INT_VAL);
	if (cnt == NULL)
		return -ENOMEM;
	for (t = 0; t < MCFAN_ROLE_TYPE_MAX; t++) {
		if (by_role[t].nb_lcores == 0)
			continue;
		st[k] = by_role[t];
		names[k] = mcfan_role_name(mcfan_role_type_role(t));
		rte_tel_data_add_array_int(cnt, (int)by_role[t].nb_lcores);
		k++;
	}
	rte_tel_data_add_dict_container(d, "lcores", cnt, 0);
	return msacc_columns(d, st, NULL, names, k);
}

static void
group_text(const struct mcfan_flow_key *k, char *buf, size_t len)
{
	struct mcfan_flow_key any = *k;

	any.udp_port = 0;
	mcfan_group_format(&any, buf, len);
}

static int
tel_groups(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct tel_col page_cols[] = {
		{"group", RTE_TEL_STRING_VAL}, {"udp_port", RTE_TEL_INT_VAL},
		{"frames", RTE_TEL_U64_VAL}, {"bytes", RTE_TEL_U64_VAL},
		{"n_workers", RTE_TEL_INT_VAL},
	};
	struct mcfan_app *app = tel_app;
	struct mcfan_group_view *gv;
	struct mcfan_flow_key want;
	struct rte_tel_data *c[RTE_DIM(page_cols)], *wl;
	char text[MCFAN_GROUP_STR_MAX], err[128];
	unsigned long page = 0;
	unsigned int i, w, first, last, pages;
	int n, ret = 0, found = -1;
	bool by_group = false;

	if (params != NULL && params[0] != '\0') {
		if (param_uint(params, UINT32_MAX, &page) < 0) {
			if (mcfan_group_parse(params, &want, 1, err, sizeof(err)) != 1) {
				MCFAN_LOG(WARNING, "telemetry %s: parameter must be a page number or "
					  "one group (e.g. 239.9.9.1:3999): %s\n", cmd, err);
				return -EINVAL;
			}
			by_group = true;
		}
	}
	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	if (gv == NULL)
		return -ENOMEM;
	n = mcfan_groups_read(app, gv, MCFAN_MAX_GROUPS);
	if (n < 0) {
		free(gv);
		return n;
	}
	if (by_group) {
		for (i = 0; i < (unsigned int)n; i++)
			if (mcfan_flow_key_equal(&gv[i].entry->key, &want))
				found = (int)i;
		if (found < 0) {
			mcfan_group_format(&want, text, sizeof(text));
			MCFAN_LOG(WARNING, "telemetry %s: group %s is not joined\n", cmd, text);
			free(gv);
			return -ENOENT;
		}
		i = (unsigned int)found;
		group_text(&gv[i].entry->key, text, sizeof(text));
		rte_tel_data_add_dict_string(d, "group", text);
		rte_tel_data_add_dict_int(d, "udp_port", gv[i].entry->key.udp_port);
		rte_tel_data_add_dict_string(d, "fanout", mcfan_fanout_name(gv[i].entry->fanout));
		rte_tel_data_add_dict_u64(d, "frames", gv[i].frames);
		rte_tel_data_add_dict_u64(d, "bytes", gv[i].bytes);
		rte_tel_data_add_dict_u64(d, "first_rx_tsc", gv[i].first_tsc);
		rte_tel_data_add_dict_u64(d, "last_rx_tsc", gv[i].last_tsc);
		wl = new_array(RTE_TEL_INT_VAL);
		if (wl != NULL) {
			for (w = 0; w < app->n_workers; w++)
				if (mcfan_bits_test(gv[i].worker_bits, w))
					rte_tel_data_add_array_int(wl, (int)app->worker_lcore_ids[w]);
			rte_tel_data_add_dict_container(d, "workers", wl, 0);
		}
		free(gv);
		return 0;
	}
	pages = ((unsigned int)n + MCFAN_TEL_GROUPS_PAGE - 1) / MCFAN_TEL_GROUPS_PAGE;
	if (page >= RTE_MAX(pages, 1u)) {
		MCFAN_LOG(WARNING, "telemetry %s: page %" PRIu64 " does not exist (%u pages)\n",
			  cmd, (uint64_t)page, RTE_MAX(pages, 1u));
		free(gv);
		return -ENOENT;
	}
	first = (unsigned int)page * MCFAN_TEL_GROUPS_PAGE;
	last = RTE_MIN(first + MCFAN_TEL_GROUPS_PAGE, (unsigned int)n);
	ret = cols_alloc(c, page_cols, RTE_DIM(page_cols));
	if (ret < 0)
		goto out;
	for (i = first; i < last; i++) {
		group_text(&gv[i].entry->key, text, sizeof(text));
		rte_tel_data_add_array_string(c[0], text);
		rte_tel_data_add_array_int(c[1], gv[i].entry->key.udp_port);
		rte_tel_data_add_array_u64(c[2], gv[i].frames);
		rte_tel_data_add_array_u64(c[3], gv[i].bytes);
		rte_tel_data_add_array_int(c[4], (int)mcfan_bits_count(gv[i].worker_bits,
									MCFAN_MAX_WORKERS));
	}
	rte_tel_data_add_dict_u64(d, "total", (uint64_t)n);
	rte_tel_data_add_dict_u64(d, "page", page);
	rte_tel_data_add_dict_u64(d, "pages", pages);
	cols_attach(d, c, page_cols, RTE_DIM(page_cols));
out:
	free(gv);
	return ret;
}

static int
tel_rings(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct tel_col cols[] = {
		{"lcore", RTE_TEL_INT_VAL}, {"size", RTE_TEL_U64_VAL}, {"count", RTE_TEL_U64_VAL},
		{"high_water", RTE_TEL_U64_VAL}, {"enqueued", RTE_TEL_U64_VAL},
		{"drops", RTE_TEL_U64_VAL}, {"frames", RTE_TEL_U64_VAL},
	};
	struct mcfan_app *app = tel_app;
	struct mcfan_worker_view *wv;
	struct rte_tel_data *c[RTE_DIM(cols)];
	unsigned int w;
	int n;

	if (no_param(cmd, params) < 0)
		return -EINVAL;
	wv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*wv));
	if (wv == NULL)
		return -ENOMEM;
	n = mcfan_workers_read(app, wv);
	if (n < 0 || cols_alloc(c, cols, RTE_DIM(cols)) < 0) {
		free(wv);
		return n < 0 ? n : -ENOMEM;
	}
	for (w = 0; w < (unsigned int)n; w++) {
		rte_tel_data_add_array_int(c[0], (int)wv[w].lcore_id);
		rte_tel_data_add_array_u64(c[1], wv[w].ring_size);
		rte_tel_data_add_array_u64(c[2], wv[w].ring_count);
		rte_tel_data_add_array_u64(c[3], wv[w].ring_high_water);
		rte_tel_data_add_array_u64(c[4], wv[w].enqueued);
		rte_tel_data_add_array_u64(c[5], wv[w].ring_drops);
		rte_tel_data_add_array_u64(c[6], wv[w].frames);
	}
	rte_tel_data_add_dict_u64(d, "rx_lcores", app->n_rx);
	cols_attach(d, c, cols, RTE_DIM(cols));
	free(wv);
	return 0;
}

static int
tel_counters(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mcfan_totals t;
	unsigned int k;

	if (no_param(cmd, params) < 0)
		return -EINVAL;
	mcfan_totals_read(tel_app, &t);
	rte_tel_data_add_dict_u64(d, "rx_frames", t.rx_frames);
	rte_tel_data_add_dict_u64(d, "rx_bytes", t.rx_bytes);
	rte_tel_data_add_dict_u64(d, "delivered_frames", t.delivered_frames);
	rte_tel_data_add_dict_u64(d, "copies_offered", t.copies_offered);
	rte_tel_data_add_dict_u64(d, "delivered_copies", t.delivered_copies);
	rte_tel_data_add_dict_u64(d, "drops_total", t.drops_total);
	for (k = 1; k < MCFAN_DROP_MAX; k++)
		rte_tel_data_add_dict_u64(d, mcfan_drop_name(k), t.drops[k]);
	return 0;
}

static int
tel_latency(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct tel_col cols[] = {
		{"lcore", RTE_TEL_INT_VAL}, {"copies", RTE_TEL_U64_VAL},
		{"p50_ns", RTE_TEL_U64_VAL}, {"p99_ns", RTE_TEL_U64_VAL},
		{"max_ns", RTE_TEL_U64_VAL},
	};
	struct mcfan_app *app = tel_app;
	struct mcfan_latency_view *lv;
	struct rte_tel_data *c[RTE_DIM(cols)], *hist;
	unsigned long lcore = 0;
	unsigned int w, b;
	int n;
	bool one = params != NULL && params[0] != '\0';

	if (one && param_uint(params, RTE_MAX_LCORE - 1, &lcore) < 0) {
		MCFAN_LOG(WARNING, "telemetry %s: parameter must be a worker lcore id, got "
			  "'%.64s'\n", cmd, params);
		return -EINVAL;
	}
	lv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*lv));
	if (lv == NULL)
		return -ENOMEM;
	n = mcfan_latency_read(app, lv);
	if (one) {
		for (w = 0; w < (unsigned int)n && lv[w].lcore_id != lcore; w++)
			;
		if (w == (unsigned int)n) {
			MCFAN_LOG(WARNING, "telemetry %s: lcore %" PRIu64 " is not a worker\n", cmd,
				  (uint64_t)lcore);
			free(lv);
			return -ENOENT;
		}
		rte_tel_data_add_dict_int(d, "lcore", (int)lv[w].lcore_id);
		rte_tel_data_add_dict_u64(d, "copies", lv[w].copies);
		rte_tel_data_add_dict_u64(d, "p50_ns", lv[w].p50_ns);
		rte_tel_data_add_dict_u64(d, "p99_ns", lv[w].p99_ns);
		rte_tel_data_add_dict_u64(d, "max_ns", lv[w].max_ns);
		hist = new_array(RTE_TEL_U64_VAL);
		if (hist != NULL) {
			for (b = 0; b < MCFAN_LAT_BUCKETS; b++)
				rte_tel_data_add_array_u64(hist, lv[w].hist[b]);
			rte_tel_data_add_dict_container(d, "hist_log2_ns", hist, 0);
		}
		free(lv);
		return 0;
	}
	if (cols_alloc(c, cols, RTE_DIM(cols)) < 0) {
		free(lv);
		return -ENOMEM;
	}
	for (w = 0; w < (unsigned int)n; w++) {
		rte_tel_data_add_array_int(c[0], (int)lv[w].lcore_id);
		rte_tel_data_add_array_u64(c[1], lv[w].copies);
		rte_tel_data_add_array_u64(c[2], lv[w].p50_ns);
		rte_tel_data_add_array_u64(c[3], lv[w].p99_ns);
		rte_tel_data_add_array_u64(c[4], lv[w].max_ns);
	}
	cols_attach(d, c, cols, RTE_DIM(cols));
	free(lv);
	return 0;
}

static int
tel_idle(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct tel_col cols[] = {
		{"lcore", RTE_TEL_INT_VAL}, {"role", RTE_TEL_STRING_VAL},
		{"policy", RTE_TEL_STRING_VAL}, {"ring_bound_ns", RTE_TEL_U64_VAL},
		{"sleep_cap_ns", RTE_TEL_U64_VAL}, {"rx_max_pps", RTE_TEL_U64_VAL},
		{"wk_max_pps", RTE_TEL_U64_VAL},
	};
	struct mcfan_app *app = tel_app;
	struct mcfan_idle_view *iv;
	struct rte_tel_data *c[RTE_DIM(cols)];
	int n, k;

	if (no_param(cmd, params) < 0)
		return -EINVAL;
	iv = calloc(RTE_MAX_LCORE, sizeof(*iv));
	if (iv == NULL)
		return -ENOMEM;
	if (cols_alloc(c, cols, RTE_DIM(cols)) < 0) {
		free(iv);
		return -ENOMEM;
	}
	n = mcfan_idle_read(app, iv, RTE_MAX_LCORE);
	for (k = 0; k < n; k++) {
		rte_tel_data_add_array_int(c[0], (int)iv[k].lcore_id);
		rte_tel_data_add_array_string(c[1], mcfan_role_name(iv[k].role));
		rte_tel_data_add_array_string(c[2], iv[k].policy_text);
		rte_tel_data_add_array_u64(c[3], iv[k].ring_bound_ns);
		rte_tel_data_add_array_u64(c[4], iv[k].sleep_cap_ns);
		rte_tel_data_add_array_u64(c[5], iv[k].rx_max_pps);
		rte_tel_data_add_array_u64(c[6], iv[k].wk_max_pps);
	}
	rte_tel_data_add_dict_u64(d, "max_sleep_us", app->cfg.idle_max_sleep_us);
	cols_attach(d, c, cols, RTE_DIM(cols));
	free(iv);
	return 0;
}

struct tel_cmd {
	const char *name;
	telemetry_cb fn;
	const char *help;
};

/* Help texts stay under RTE_TEL_MAX_STRING_LEN (128) or registration fails. */
static const struct tel_cmd tel_cmds[] = {
	{"/mcfan/info", tel_info, "Version, uptime, DPDK version, lcores, groups, fan-out. "
	 "No parameters"},
	{"/mcfan/lcores", tel_lcores, "Per lcore: role, CPU, NUMA socket, state. No parameters"},
	{"/mcfan/msacc", tel_msacc, "Microstate accounting, per lcore state shares in basis "
	 "points. Parameter: lcore id"},
	{"/mcfan/msacc/types", tel_msacc_types, "Microstate accounting per role. No parameters"},
	{"/mcfan/groups", tel_groups, "Per group counters, 128 a page. Parameter: page number "
	 "or a group (239.9.9.1:3999)"},
	{"/mcfan/rings", tel_rings, "Per worker ring: size, count, high-water, enqueued, drops. "
	 "No parameters"},
	{"/mcfan/counters", tel_counters, "rx, delivered, copies, every drop reason. No "
	 "parameters"},
	{"/mcfan/latency", tel_latency, "Per worker RX-to-dequeue time p50, p99, max in ns. "
	 "Parameter: worker lcore id (adds the log2 histogram)"},
	{"/mcfan/idle", tel_idle, "Per data lcore: idle policy, ring bound and sleep cap in ns, "
	 "highest recent rates. No parameters"},
	{"/mcfan/topology", mcfan_placement_tel, "CPU map (+sct), bind type, placement per "
	 "lcore, nodes of mempool, rings and ports. No parameters"},
};

/* A parameter of at most MCFAN_TEL_PARAM_MAX printable ASCII characters. */
static bool
param_printable(const char *p)
{
	size_t n = 0;

	for (; *p != '\0'; p++, n++)
		if (n >= MCFAN_TEL_PARAM_MAX || (unsigned char)*p < 0x20 ||
		    (unsigned char)*p > 0x7e)
			return false;
	return true;
}

/* Every command goes through here: find it, and run it only while mcfan is set up. */
static int
tel_dispatch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i;
	int ret = -ENOENT;

	rte_tel_data_start_dict(d);
	for (i = 0; i < RTE_DIM(tel_cmds); i++)
		if (strcmp(cmd, tel_cmds[i].name) == 0)
			break;
	if (i == RTE_DIM(tel_cmds))
		return -ENOENT;
	if (params != NULL && !param_printable(params)) {
		/* never copy control or non-ASCII bytes into the log: one line, one reason */
		MCFAN_LOG(WARNING, "telemetry %s: parameter refused: longer than %d characters or "
			  "not printable ASCII\n", cmd, MCFAN_TEL_PARAM_MAX);
		return -EINVAL;
	}
	rte_spinlock_lock(&tel_lock);
	if (tel_ready)
		ret = tel_cmds[i].fn(cmd, params, d);
	else
		ret = -EAGAIN;
	rte_spinlock_unlock(&tel_lock);
	return ret;
}

void
mcfan_telemetry_stop(void)
{
	rte_spinlock_lock(&tel_lock);
	tel_ready = false;
	rte_spinlock_unlock(&tel_lock);
}

int
mcfan_telemetry_init(struct mcfan_app *app)
{
	unsigned int i;
	int ret;

	rte_spinlock_lock(&tel_lock);
	tel_app = app;
	tel_ready = true;
	rte_spinlock_unlock(&tel_lock);
	for (i = 0; i < RTE_DIM(tel_cmds); i++) {
		ret = rte_telemetry_register_cmd(tel_cmds[i].name, tel_dispatch,
						 tel_cmds[i].help);
		if (ret != 0) {
			MCFAN_LOG(ERR, "cannot register telemetry command %s: %s\n",
				  tel_cmds[i].name, strerror(-ret));
			return ret;
		}
	}
	return 0;
}
