/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Telemetry: /mcfan/topology, the placement's read view (control/placement.h) as
 * docs/topology.md describes it: the map, the bind type, the placement as columns, and
 * the nodes of the mempool, the rings and the ports.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "control/placement.h"
#include "telemetry/telemetry.h"

/* Most rows of a column: 5 columns of 256 small numbers stay well under the 16 KiB reply
 * limit of DPDK 22.11. */
#define TOPO_TEL_MAX_ROWS 256

/* Telemetry strings hold RTE_TEL_MAX_STRING_LEN - 1 characters: the map also goes as its
 * entries, one string each, and as columns. */
static int
topo_map(struct rte_tel_data *d, const struct mcfan_sct_map *map)
{
	static const struct mcfan_tel_col entry_col[] = {{"sct_entries", RTE_TEL_STRING_VAL}};
	static const struct mcfan_tel_col cols[] = {
		{"map_cpu", RTE_TEL_INT_VAL}, {"map_thread", RTE_TEL_INT_VAL},
		{"map_core", RTE_TEL_INT_VAL}, {"map_processor", RTE_TEL_INT_VAL},
		{"map_node", RTE_TEL_INT_VAL},
	};
	struct rte_tel_data *entries, *c[RTE_DIM(cols)];
	const struct mcfan_sct_cpu *cpu;
	char *text, *tok, *save = NULL;
	unsigned int i, n;
	int ret;

	if (map == NULL) {
		rte_tel_data_add_dict_string(d, "sct", "");
		return 0;
	}
	text = mcfan_plan_map_text(map, MCFAN_SCT_FORMAT_COMPACT);
	if (text == NULL)
		return -ENOMEM;
	if (strlen(text) < RTE_TEL_MAX_STRING_LEN)
		rte_tel_data_add_dict_string(d, "sct", text);
	ret = mcfan_tel_cols_alloc(&entries, entry_col, 1);
	for (tok = strtok_r(text, ":", &save), i = 0; ret == 0 && tok != NULL &&
	     i < TOPO_TEL_MAX_ROWS; tok = strtok_r(NULL, ":", &save), i++)
		rte_tel_data_add_array_string(entries, tok);
	free(text);
	if (ret == 0)
		ret = mcfan_tel_cols_attach(d, &entries, entry_col, 1);
	if (mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols)) < 0)
		return -ENOMEM;
	n = (unsigned int)RTE_MIN(mcfan_sct_count(map), (size_t)TOPO_TEL_MAX_ROWS);
	for (i = 0; i < n; i++) {
		cpu = mcfan_sct_cpu_at(map, i);
		rte_tel_data_add_array_int(c[0], cpu->logical);
		rte_tel_data_add_array_int(c[1], cpu->thread);
		rte_tel_data_add_array_int(c[2], cpu->core);
		rte_tel_data_add_array_int(c[3], cpu->processor);
		rte_tel_data_add_array_int(c[4], mcfan_sct_cpu_numa_node(cpu));
	}
	if (mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols)) < 0)
		ret = -ENOMEM;
	rte_tel_data_add_dict_int(d, "map_cpus", (int)mcfan_sct_count(map));
	return ret;
}

/* The placement as columns, one row an lcore. */
static int
topo_rows(struct rte_tel_data *d, const struct mcfan_placement_view *v)
{
	static const struct mcfan_tel_col cols[] = {
		{"lcore", RTE_TEL_INT_VAL}, {"role", RTE_TEL_STRING_VAL}, {"cpu", RTE_TEL_INT_VAL},
		{"cpus", RTE_TEL_STRING_VAL}, {"thread", RTE_TEL_INT_VAL},
		{"core", RTE_TEL_INT_VAL}, {"processor", RTE_TEL_INT_VAL},
		{"node", RTE_TEL_INT_VAL},
	};
	static const struct mcfan_tel_col shared_col[] = {{"oversubscribed", RTE_TEL_INT_VAL}};
	struct rte_tel_data *c[RTE_DIM(cols)], *shared;
	unsigned int i, n = RTE_MIN(v->n_rows, (unsigned int)TOPO_TEL_MAX_ROWS);
	int ret = 0;

	if (mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols)) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct mcfan_plan_row *row = &v->rows[i];
		char cpus[RTE_TEL_MAX_STRING_LEN];

		snprintf(cpus, sizeof(cpus), "%s", row->cpus);
		rte_tel_data_add_array_int(c[0], (int)row->lcore);
		rte_tel_data_add_array_string(c[1], mcfan_role_name(row->role));
		rte_tel_data_add_array_int(c[2], row->cpu);
		rte_tel_data_add_array_string(c[3], cpus);
		rte_tel_data_add_array_int(c[4], row->thread);
		rte_tel_data_add_array_int(c[5], row->core);
		rte_tel_data_add_array_int(c[6], row->processor);
		rte_tel_data_add_array_int(c[7], row->node);
	}
	if (mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols)) < 0)
		ret = -ENOMEM;
	if (mcfan_tel_cols_alloc(&shared, shared_col, 1) < 0)
		return -ENOMEM;
	for (i = 0; i < v->n_shared && i < TOPO_TEL_MAX_ROWS; i++)
		rte_tel_data_add_array_int(shared, (int)v->shared[i]);
	if (mcfan_tel_cols_attach(d, &shared, shared_col, 1) < 0)
		ret = -ENOMEM;
	return ret;
}

/* Where memory lives: the mempool, the rings, the ports' queues. */
static int
topo_memory(struct rte_tel_data *d, const struct mcfan_placement_view *v)
{
	static const struct mcfan_tel_col ring_cols[] = {
		{"ring", RTE_TEL_STRING_VAL}, {"ring_node", RTE_TEL_INT_VAL},
		{"ring_worker_lcore", RTE_TEL_INT_VAL},
	};
	static const struct mcfan_tel_col port_cols[] = {
		{"port", RTE_TEL_INT_VAL}, {"port_node", RTE_TEL_INT_VAL},
	};
	struct rte_tel_data *rc[RTE_DIM(ring_cols)], *pc[RTE_DIM(port_cols)];
	unsigned int i;
	int ret = 0;

	if (v->has_mempool) {
		rte_tel_data_add_dict_string(d, "mempool", v->mempool);
		rte_tel_data_add_dict_int(d, "mempool_node", v->mempool_node);
	}
	if (mcfan_tel_cols_alloc(rc, ring_cols, RTE_DIM(ring_cols)) < 0)
		return -ENOMEM;
	for (i = 0; i < v->n_rings && i < TOPO_TEL_MAX_ROWS; i++) {
		rte_tel_data_add_array_string(rc[0], v->rings[i].name);
		rte_tel_data_add_array_int(rc[1], v->rings[i].node);
		rte_tel_data_add_array_int(rc[2], (int)v->rings[i].worker_lcore);
	}
	if (mcfan_tel_cols_attach(d, rc, ring_cols, RTE_DIM(ring_cols)) < 0)
		ret = -ENOMEM;
	if (mcfan_tel_cols_alloc(pc, port_cols, RTE_DIM(port_cols)) < 0)
		return -ENOMEM;
	for (i = 0; i < v->n_ports; i++) {
		rte_tel_data_add_array_int(pc[0], v->ports[i].port);
		rte_tel_data_add_array_int(pc[1], v->ports[i].node);
	}
	if (mcfan_tel_cols_attach(d, pc, port_cols, RTE_DIM(port_cols)) < 0)
		ret = -ENOMEM;
	return ret;
}

static int
tel_topology(struct mcfan_app *app, const char *cmd, const char *params,
	     struct rte_tel_data *d)
{
	struct mcfan_placement_view v;
	int ret;

	RTE_SET_USED(app); /* the placement's own: it answers once its table is built */
	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	ret = mcfan_placement_view_get(NULL, &v);
	if (ret < 0)
		return ret;
	rte_tel_data_add_dict_string(d, "map_source", v.map_from_option ? "cpu-topology" :
				     "host");
	ret = topo_map(d, v.map);
	rte_tel_data_add_dict_string(d, "bind", v.generated ? mcfan_sct_bind_name(v.bind) :
				     "none");
	rte_tel_data_add_dict_string(d, "bind_erlang", v.generated ?
				     mcfan_sct_bind_erlang_name(v.bind) : "none");
	rte_tel_data_add_dict_int(d, "lcores_built", v.generated ? 1 : 0);
	if (topo_rows(d, &v) < 0)
		ret = -ENOMEM;
	if (topo_memory(d, &v) < 0)
		ret = -ENOMEM;
	mcfan_placement_view_put(&v);
	return ret;
}
MCFAN_TEL_COMMAND(tel_topology, "/mcfan/topology",
		  "CPU map (+sct), bind type, placement per lcore, nodes of mempool, rings and "
		  "ports. No parameters")
