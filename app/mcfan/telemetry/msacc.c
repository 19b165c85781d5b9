/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Telemetry: /mcfan/msacc and /mcfan/msacc/types, microstate accounting
 * (docs/msacc.md), state shares in basis points. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "log.h"
#include "control/sched.h"
#include "control/stats.h"
#include "telemetry/telemetry.h"

/* Window rows of all lcores; returns the count or a negative errno. */
static int
msacc_rows(struct mcfan_app *app, struct mcfan_msacc_row **rows)
{
	int n;

	*rows = calloc(RTE_MAX_LCORE, sizeof(**rows));
	if (*rows == NULL)
		return -ENOMEM;
	n = mcfan_lcore_rows(app, *rows, RTE_MAX_LCORE);
	if (n < 0) {
		free(*rows);
		*rows = NULL;
	}
	return n;
}

static void
msacc_one(struct mcfan_app *app, struct rte_tel_data *d, const struct mcfan_msacc_row *row)
{
	struct mcfan_msacc_stats st;
	struct mcfan_sched_view sv;
	struct rte_tel_data *hist;
	char key[MCFAN_MS_STATE_NAME_MAX + 8];
	unsigned int s, b;

	mcfan_msacc_stats(&row->snap, &st);
	rte_tel_data_add_dict_int(d, "lcore", (int)row->lcore_id);
	rte_tel_data_add_dict_string(d, "role", mcfan_role_name(row->role));
	rte_tel_data_add_dict_u64(d, "wall_cycles", st.wall_cycles);
	rte_tel_data_add_dict_u64(d, "tsc_hz", app->tsc_hz);
	for (s = 0; s < MCFAN_MS_MAX; s++) {
		snprintf(key, sizeof(key), "%s_cycles", mcfan_ms_state_name(s));
		rte_tel_data_add_dict_u64(d, key, st.cycles[s]);
		snprintf(key, sizeof(key), "%s_bp", mcfan_ms_state_name(s));
		rte_tel_data_add_dict_u64(d, key, mcfan_tel_bp(st.pct[s]));
	}
	rte_tel_data_add_dict_u64(d, "busy_cycles", st.busy_cycles);
	rte_tel_data_add_dict_u64(d, "busy_bp", mcfan_tel_bp(st.busy_pct));
	rte_tel_data_add_dict_u64(d, "polls", st.polls);
	rte_tel_data_add_dict_u64(d, "polls_work", st.polls_work);
	rte_tel_data_add_dict_u64(d, "frames", st.frames);
	rte_tel_data_add_dict_u64(d, "empty_poll_bp", mcfan_tel_bp(st.empty_poll_pct));
	rte_tel_data_add_dict_u64(d, "cycles_per_frame", (uint64_t)(st.cycles_per_frame + 0.5));
	rte_tel_data_add_dict_u64(d, "frames_per_poll_x100",
				  (uint64_t)(st.frames_per_poll * 100 + 0.5));
	rte_tel_data_add_dict_u64(d, "sleeps", st.sleeps);
	rte_tel_data_add_dict_u64(d, "wakeups", st.wakeups);
	mcfan_sched_read(app, row->lcore_id, &sv); /* zeros for the control lcore */
	rte_tel_data_add_dict_u64(d, "ctx_switches_voluntary", sv.ctx_voluntary);
	rte_tel_data_add_dict_u64(d, "ctx_switches_involuntary", sv.ctx_involuntary);
	hist = mcfan_tel_array(RTE_TEL_U64_VAL);
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
	struct mcfan_tel_col cols[N_COLS] = {
		[COL_ID] = {names != NULL ? "role" : "lcore",
			    names != NULL ? RTE_TEL_STRING_VAL : RTE_TEL_INT_VAL},
		[COL_WALL] = {"wall_cycles", RTE_TEL_U64_VAL},
		[COL_BUSY] = {"busy_bp", RTE_TEL_U64_VAL},
	};
	struct rte_tel_data *c[N_COLS];
	unsigned int s, i;

	for (s = 0; s < MCFAN_MS_MAX; s++) {
		snprintf(keys[s], sizeof(keys[s]), "%s_bp", mcfan_ms_state_name(s));
		cols[COL_STATE0 + s] = (struct mcfan_tel_col){keys[s], RTE_TEL_U64_VAL};
	}
	if (mcfan_tel_cols_alloc(c, cols, N_COLS) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (names != NULL)
			rte_tel_data_add_array_string(c[COL_ID], names[i]);
		else
			rte_tel_data_add_array_int(c[COL_ID], (int)ids[i]);
		rte_tel_data_add_array_u64(c[COL_WALL], st[i].wall_cycles);
		rte_tel_data_add_array_u64(c[COL_BUSY], mcfan_tel_bp(st[i].busy_pct));
		for (s = 0; s < MCFAN_MS_MAX; s++)
			rte_tel_data_add_array_u64(c[COL_STATE0 + s], mcfan_tel_bp(st[i].pct[s]));
	}
	mcfan_tel_cols_attach(d, c, cols, N_COLS);
	return 0;
}

static int
tel_msacc(struct mcfan_app *app, const char *cmd, const char *params,
	  struct rte_tel_data *d)
{
	struct mcfan_msacc_row *rows;
	struct mcfan_msacc_stats *st;
	uint32_t ids[RTE_MAX_LCORE];
	uint64_t lcore = 0;
	int n, i, ret = 0;
	bool one = params != NULL && params[0] != '\0';

	if (one && mcfan_tel_param_uint(params, RTE_MAX_LCORE - 1, &lcore) < 0) {
		MCFAN_LOG(WARNING, "telemetry %s: parameter must be an lcore id 0..%d, got "
			  "'%.64s'\n", cmd, RTE_MAX_LCORE - 1, params);
		return -EINVAL;
	}
	n = msacc_rows(app, &rows);
	if (n < 0)
		return n;
	if (one) {
		for (i = 0; i < n && rows[i].lcore_id != lcore; i++)
			;
		if (i == n && app->lcores[lcore].role != MCFAN_ROLE_NONE) {
			/* an mcfan lcore whose accounting never ran (--no-msacc since start) */
			MCFAN_LOG(WARNING, "telemetry %s: lcore %" PRIu64 " has no accounting (off "
				  "since the start: --no-msacc; the console's msacc on starts "
				  "it)\n", cmd, lcore);
			ret = -ENOENT;
		} else if (i == n) {
			MCFAN_LOG(WARNING, "telemetry %s: lcore %" PRIu64 " has no accounting (not an "
				  "mcfan lcore)\n", cmd, lcore);
			ret = -ENOENT;
		} else {
			msacc_one(app, d, &rows[i]);
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
	rte_tel_data_add_dict_u64(d, "tsc_hz", app->tsc_hz);
	ret = msacc_columns(d, st, ids, NULL, (unsigned int)n);
	free(st);
	free(rows);
	return ret;
}
MCFAN_TEL_COMMAND(tel_msacc, "/mcfan/msacc",
		  "Microstate accounting, per lcore state shares in basis points. "
		  "Parameter: lcore id")

static int
tel_msacc_types(struct mcfan_app *app, const char *cmd, const char *params,
	        struct rte_tel_data *d)
{
	struct mcfan_msacc_stats by_role[MCFAN_ROLE_TYPE_MAX], st[MCFAN_ROLE_TYPE_MAX];
	const char *names[MCFAN_ROLE_TYPE_MAX];
	struct rte_tel_data *cnt;
	struct mcfan_msacc_row *rows;
	unsigned int t, k = 0;
	int n, ret;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	n = msacc_rows(app, &rows);
	if (n < 0)
		return n;
	ret = mcfan_msacc_stats_by_role(rows, (unsigned int)n, by_role);
	free(rows);
	if (ret < 0)
		return ret;
	cnt = mcfan_tel_array(RTE_TEL_INT_VAL);
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
MCFAN_TEL_COMMAND(tel_msacc_types, "/mcfan/msacc/types",
		  "Microstate accounting per role. No parameters")
