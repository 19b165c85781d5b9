/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Telemetry: /mcfan/idle, the idle policies (docs/idle.md). */

#include <errno.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "control/idle.h"
#include "control/overrun.h"
#include "telemetry/telemetry.h"

static int
tel_idle(struct mcfan_app *app, const char *cmd, const char *params,
	 struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[] = {
		{"lcore", RTE_TEL_INT_VAL}, {"role", RTE_TEL_STRING_VAL},
		{"policy", RTE_TEL_STRING_VAL}, {"ring_bound_ns", RTE_TEL_U64_VAL},
		{"sleep_cap_ns", RTE_TEL_U64_VAL}, {"rx_max_pps", RTE_TEL_U64_VAL},
		{"wk_max_pps", RTE_TEL_U64_VAL}, {"why", RTE_TEL_STRING_VAL},
		{"max_sleep_ns", RTE_TEL_U64_VAL}, {"sleep_overrun", RTE_TEL_U64_VAL},
		{"sleep_overrun_ring", RTE_TEL_U64_VAL}, {"sleep_overrun_port", RTE_TEL_U64_VAL},
		{"sched", RTE_TEL_STRING_VAL}, {"hosted_by", RTE_TEL_INT_VAL},
		{"nice", RTE_TEL_INT_VAL},
	};
	struct mcfan_overrun_view ov;
	struct mcfan_idle_view *iv;
	struct rte_tel_data *c[RTE_DIM(cols)];
	int n, k;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	iv = calloc(RTE_MAX_LCORE, sizeof(*iv));
	if (iv == NULL)
		return -ENOMEM;
	if (mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols)) < 0) {
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
		rte_tel_data_add_array_string(c[7], iv[k].why);
		rte_tel_data_add_array_u64(c[8], iv[k].max_sleep_ns);
		mcfan_overrun_read(app, iv[k].lcore_id, &ov); /* zero if not a data lcore */
		rte_tel_data_add_array_u64(c[9], ov.total);
		rte_tel_data_add_array_u64(c[10], ov.ring);
		rte_tel_data_add_array_u64(c[11], ov.port);
		rte_tel_data_add_array_string(c[12], iv[k].sched);
		rte_tel_data_add_array_int(c[13], iv[k].hosted_by);
		rte_tel_data_add_array_int(c[14], iv[k].nice);
	}
	rte_tel_data_add_dict_u64(d, "max_sleep_us", app->cfg.idle_max_sleep_us);
	mcfan_overrun_total(app, &ov);
	rte_tel_data_add_dict_u64(d, "sleep_overrun_total", ov.total);
	mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
	free(iv);
	return 0;
}
MCFAN_TEL_COMMAND(tel_idle, "/mcfan/idle",
		  "Per data lcore: idle policy, ring bound, sleep cap (ns), rates, why, max "
		  "sleep, overrun, sched, nice, hosted_by. No parameters")
