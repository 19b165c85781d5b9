/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Telemetry: /mcfan/engines (docs/telemetry.md, docs/delivery.md): per worker lcore the
 * engine that runs, the one it started with (and its ARGS) and the start engine's counters.
 * Read side: control/engine.h.
 */

#include <errno.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "control/engine.h"
#include "telemetry/telemetry.h"

/* Columns (DPDK 22.11 replies nest one level, arrays of scalars only: telemetry.h). */
enum { COL_LCORE, COL_ENGINE, COL_START, COL_ARGS, COLS };

static int
tel_engines(struct mcfan_app *app, const char *cmd, const char *params,
	    struct rte_tel_data *d)
{
	static const char *const names[COLS] = {"lcore", "engine", "start_engine", "start_args"};
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
		rte_tel_data_start_array(col[j], j == COL_LCORE ? RTE_TEL_U64_VAL :
					 RTE_TEL_STRING_VAL);
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
		  "Worker lcores as columns: lcore, engine, start_engine, start_args and the "
		  "engine's counters. No parameters")
