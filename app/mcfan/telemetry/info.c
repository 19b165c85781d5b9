/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Telemetry: /mcfan/info and /mcfan/lcores, what runs (docs/telemetry.md). */

#include <errno.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "mcfan.h"
#include "control/stats.h"
#include "telemetry/telemetry.h"

static int
tel_info(struct mcfan_app *app, const char *cmd, const char *params,
	 struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[] = {
		{"rx_lcores", RTE_TEL_INT_VAL}, {"worker_lcores", RTE_TEL_INT_VAL},
	};
	struct rte_tel_data *c[RTE_DIM(cols)];
	unsigned int i;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	if (mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols)) < 0)
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
	mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
	rte_tel_data_add_dict_u64(d, "groups", app->n_group_entries);
	rte_tel_data_add_dict_string(d, "fanout", mcfan_fanout_name(mcfan_live_fanout(&app->live)));
	rte_tel_data_add_dict_u64(d, "burst", mcfan_live_burst(&app->live));
	rte_tel_data_add_dict_u64(d, "ring_size", app->cfg.ring_size);
	rte_tel_data_add_dict_string(d, "ring_size_why", app->ring_size_why);
	/* the console's stop and start, as show counters and show lcores say them */
	rte_tel_data_add_dict_string(d, "rx_state", mcfan_live_rx_paused(&app->live) ? "stopped" :
				     "running");
	return 0;
}
MCFAN_TEL_COMMAND(tel_info, "/mcfan/info",
		  "Version, uptime, DPDK version, lcores, groups, fan-out, burst, ring size, RX running or "
		  "stopped. No parameters")

static int
tel_lcores(struct mcfan_app *app, const char *cmd, const char *params,
	   struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[] = {
		{"lcore", RTE_TEL_INT_VAL}, {"role", RTE_TEL_STRING_VAL}, {"cpu", RTE_TEL_INT_VAL},
		{"socket", RTE_TEL_INT_VAL}, {"state", RTE_TEL_STRING_VAL},
		{"rx_engine", RTE_TEL_STRING_VAL}, {"worker_engine", RTE_TEL_STRING_VAL},
		{"hosted_by", RTE_TEL_INT_VAL}, {"cpus", RTE_TEL_STRING_VAL},
	};
	struct rte_tel_data *c[RTE_DIM(cols)];
	struct mcfan_lcore_engines eng;
	char cpus[RTE_TEL_MAX_STRING_LEN];
	unsigned int id;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	if (mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols)) < 0)
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
		/* the lcore whose thread runs its worker step (docs/idle.md), -1: its own */
		rte_tel_data_add_array_int(c[7], lc->host_id < RTE_MAX_LCORE ?
					   (int)lc->host_id : -1);
		/* every CPU it may run on: `cpu` is only the lowest of a set (--bind u) */
		mcfan_lcore_cpus(id, cpus, sizeof(cpus));
		rte_tel_data_add_array_string(c[8], cpus);
	}
	mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
	return 0;
}
MCFAN_TEL_COMMAND(tel_lcores, "/mcfan/lcores",
		  "Per lcore: role, CPU (and its CPU set), NUMA socket, state, engines, host of a "
		  "hosted worker. No parameters")
