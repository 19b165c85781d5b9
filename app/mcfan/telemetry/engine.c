/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Telemetry: /mcfan/engines (docs/telemetry.md, docs/delivery.md): per worker lcore the
 * engine that runs, the one it started with (and its ARGS) and the start engine's counters;
 * /mcfan/engine_outputs: per worker lcore and engine instance, its copies and their
 * delivered/dropped sums; /mcfan/set_engine: the set engine action. Read side and action:
 * control/engine.h, control/stats.h.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "control/action.h"
#include "control/engine.h"
#include "control/stats.h"
#include "telemetry/telemetry.h"

/* Columns (DPDK 22.11 replies nest one level, arrays of scalars only: telemetry.h). */
enum { COL_LCORE, COL_ENGINE, COL_START, COL_ARGS, COL_MODE, COL_SET_FRAMES, COLS };

/* The mode column: how each lcore hands on its copies now (enum mcfan_engine_mode). */
static const char *const mode_names[] = {
	[MCFAN_ENGINE_MODE_GROUPS] = "per_group",
	[MCFAN_ENGINE_MODE_ENGINE] = "set_engine",
	[MCFAN_ENGINE_MODE_OUTPUT] = "set_output",
};

static int
tel_engines(struct mcfan_app *app, const char *cmd, const char *params,
	    struct rte_tel_data *d)
{
	static const char *const names[COLS] = {"lcore", "engine", "start_engine", "start_args",
						"mode", "set_engine_frames"};
	struct rte_tel_data *col[COLS] = {NULL}, *ctr[MCFAN_ENGINE_VALUES_MAX] = {NULL};
	struct mcfan_engine_view *v;
	unsigned int n, i, j;
	int k, nv = 0, ret = -ENOMEM;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	v = calloc(RTE_MAX_LCORE, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	n = mcfan_engines_read(app, v, RTE_MAX_LCORE);
	/* every worker runs the same start engine: the same counters, in the same order */
	nv = n > 0 ? v[0].n_values : 0;
	for (j = 0; j < COLS; j++) {
		col[j] = rte_tel_data_alloc();
		if (col[j] == NULL)
			goto out;
		rte_tel_data_start_array(col[j], j == COL_LCORE || j == COL_SET_FRAMES ?
					 RTE_TEL_U64_VAL : RTE_TEL_STRING_VAL);
	}
	for (k = 0; k < nv; k++) {
		ctr[k] = rte_tel_data_alloc();
		if (ctr[k] == NULL)
			goto out;
		rte_tel_data_start_array(ctr[k], RTE_TEL_U64_VAL);
	}
	for (i = 0; i < n; i++) {
		rte_tel_data_add_array_u64(col[COL_LCORE], v[i].lcore_id);
		rte_tel_data_add_array_string(col[COL_ENGINE], v[i].engine);
		rte_tel_data_add_array_string(col[COL_START], v[i].start_engine);
		rte_tel_data_add_array_string(col[COL_ARGS], v[i].start_args);
		rte_tel_data_add_array_string(col[COL_MODE], mode_names[v[i].mode]);
		rte_tel_data_add_array_u64(col[COL_SET_FRAMES],
					   mcfan_lcore_sel_frames_cleared(app, v[i].lcore_id));
		for (k = 0; k < nv; k++)
			rte_tel_data_add_array_u64(ctr[k], k < v[i].n_values ?
						   v[i].values[k].value : 0);
	}
	rte_tel_data_start_dict(d);
	for (j = 0; j < COLS; j++) {
		rte_tel_data_add_dict_container(d, names[j], col[j], 0);
		col[j] = NULL;
	}
	for (k = 0; k < nv; k++) {
		rte_tel_data_add_dict_container(d, v[0].values[k].name, ctr[k], 0);
		ctr[k] = NULL;
	}
	ret = 0;
out:
	for (j = 0; j < COLS; j++)
		rte_tel_data_free(col[j]);
	for (k = 0; k < nv; k++)
		rte_tel_data_free(ctr[k]);
	free(v);
	return ret;
}
MCFAN_TEL_COMMAND(tel_engines, "/mcfan/engines",
		  "Worker lcores as columns: lcore, engine, start_engine, start_args, mode, "
		  "set_engine_frames, engine counters. No parameters")

/* Columns of /mcfan/engine_outputs. */
enum { OC_LCORE, OC_OUTPUT, OC_ENGINE, OC_ARGS, OC_FRAMES, OC_DELIVERED, OC_DROPPED, OC_COLS };

static int
tel_engine_outputs(struct mcfan_app *app, const char *cmd, const char *params,
		   struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[OC_COLS] = {
		{"lcore", RTE_TEL_U64_VAL}, {"output", RTE_TEL_U64_VAL},
		{"engine", RTE_TEL_STRING_VAL}, {"args", RTE_TEL_STRING_VAL},
		{"frames", RTE_TEL_U64_VAL}, {"delivered", RTE_TEL_U64_VAL},
		{"dropped", RTE_TEL_U64_VAL},
	};
	struct rte_tel_data *c[OC_COLS];
	struct mcfan_inst_view v;
	uint64_t sum[2];
	unsigned int w, k, id;
	int i;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	if (mcfan_tel_cols_alloc(c, cols, OC_COLS) < 0)
		return -ENOMEM;
	for (w = 0; w < app->n_workers; w++) {
		id = app->worker_lcore_ids[w];
		for (k = 0; k < app->n_inst; k++) {
			if (mcfan_lcore_inst_read_cleared(app, id, k, &v) < 0)
				continue;
			sum[0] = sum[1] = 0;
			for (i = 0; i < v.n_values; i++)
				if (v.values[i].kind <= 1)
					sum[v.values[i].kind] += v.values[i].value;
			rte_tel_data_add_array_u64(c[OC_LCORE], id);
			rte_tel_data_add_array_u64(c[OC_OUTPUT], k);
			rte_tel_data_add_array_string(c[OC_ENGINE], v.engine);
			rte_tel_data_add_array_string(c[OC_ARGS], v.args);
			rte_tel_data_add_array_u64(c[OC_FRAMES], v.frames);
			rte_tel_data_add_array_u64(c[OC_DELIVERED], sum[0]);
			rte_tel_data_add_array_u64(c[OC_DROPPED], sum[1]);
		}
	}
	rte_tel_data_start_dict(d);
	return mcfan_tel_cols_attach(d, c, cols, OC_COLS);
}
MCFAN_TEL_COMMAND(tel_engine_outputs, "/mcfan/engine_outputs",
		  "Engine outputs per worker lcore as columns: lcore, output, engine, args, "
		  "frames, delivered, dropped. No parameters")

/* Is target (one word, no engine after it) the parameters joined by commas ("1,count",
 * "239.9.9.1,count") rather than a group list? A comma that is no group list's. */
static bool
comma_joined(const char *target)
{
	struct mcfan_flow_key *keys;
	int n;

	if (strchr(target, ',') == NULL)
		return false;
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	if (keys == NULL)
		return false;
	n = mcfan_group_parse_list(target, keys, MCFAN_MAX_GROUPS, NULL, 0);
	free(keys);
	return n < 0;
}

/* /mcfan/set_engine,GROUPS NAME[:ARGS] or LCORE NAME[:ARGS]: the console's set engine. */
static int
tel_set_engine(struct mcfan_app *app, const char *cmd, const char *params,
	       struct rte_tel_data *d)
{
	char buf[MCFAN_TEL_PARAM_MAX + 1], msg[MCFAN_CTL_MSG_MAX], *target, *sp;
	int ret;

	RTE_SET_USED(cmd);
	if (params != NULL && strlen(params) > MCFAN_TEL_PARAM_MAX)
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", params != NULL ? params : "");
	/* words separated by spaces, as on the console: none around them counts */
	target = buf + strspn(buf, " \t");
	sp = target + strcspn(target, " \t");
	if (*sp != '\0')
		*sp++ = '\0';
	sp += strspn(sp, " \t");
	if (target[0] != '\0' && sp[0] != '\0') {
		ret = mcfan_ctl_set_engine_target(app, target, sp, msg, sizeof(msg));
	} else if (comma_joined(target)) {
		/* "1,count": the engine joined to the target by a comma, which separates the
		 * groups of a list, not the parameters; short, as a telemetry string holds at
		 * most RTE_TEL_MAX_STRING_LEN (128) bytes */
		ret = mcfan_err_set(msg, sizeof(msg), -EINVAL, "set engine: '%s': the parameters "
				    "are space separated, e.g. /mcfan/set_engine,1 count", target);
	} else {
		/* no target or no engine: what is missing, as the console's set engine says */
		ret = mcfan_ctl_set_engine_missing(app, target[0] != '\0' ? target : NULL, msg,
						   sizeof(msg));
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "status", ret);
	rte_tel_data_add_dict_string(d, "message", msg);
	return 0;
}
MCFAN_TEL_COMMAND(tel_set_engine, "/mcfan/set_engine",
		  "set engine as on the console: parameter 'LCORE NAME[:ARGS]' or 'GROUPS "
		  "NAME[:ARGS]'; answers status and message")
