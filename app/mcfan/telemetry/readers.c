/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * /mcfan/readers (docs/readers.md, docs/telemetry.md): the reader rings of the readers
 * engine and their reader processes, from control/readers.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "control/readers.h"
#include "telemetry/telemetry.h"

/** Most reader rows in one reply (the telemetry socket's reply is 16 KiB at most). */
#define TEL_READERS_ROWS 128
/** Most ring rows in one reply. */
#define TEL_RINGS_ROWS 64
#define NS_PER_MS 1000000u

static int
tel_readers(struct mcfan_app *app, const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct mcfan_tel_col ring_cols[] = {
		{"ring_group", RTE_TEL_STRING_VAL}, {"ring_lcore", RTE_TEL_INT_VAL},
		{"ring_written", RTE_TEL_U64_VAL}, {"ring_too_big", RTE_TEL_U64_VAL},
		{"ring_readers", RTE_TEL_INT_VAL}, {"ring_waiters", RTE_TEL_INT_VAL},
	};
	static const struct mcfan_tel_col cols[] = {
		{"group", RTE_TEL_STRING_VAL}, {"pid", RTE_TEL_INT_VAL},
		{"frames", RTE_TEL_U64_VAL}, {"lost", RTE_TEL_U64_VAL},
		{"lapped", RTE_TEL_U64_VAL}, {"lag", RTE_TEL_U64_VAL},
		{"last_ms", RTE_TEL_U64_VAL}, {"alive", RTE_TEL_INT_VAL},
	};
	struct rte_tel_data *rc[RTE_DIM(ring_cols)], *c[RTE_DIM(cols)];
	struct mcfan_readers_view *v = NULL;
	unsigned int i, j, rows = 0, total = 0, rings = 0;
	int n, ret;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	n = mcfan_readers_read(app, &v, NULL, 0, NULL);
	if (n == -ENODEV) {
		rte_tel_data_add_dict_string(d, "engine", "the readers engine is not in use");
		rte_tel_data_add_dict_u64(d, "rings", 0);
		return 0;
	}
	if (n < 0)
		return n;
	ret = mcfan_tel_cols_alloc(rc, ring_cols, RTE_DIM(ring_cols));
	if (ret < 0)
		goto out;
	ret = mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols));
	if (ret < 0) {
		for (i = 0; i < RTE_DIM(rc); i++)
			rte_tel_data_free(rc[i]);
		goto out;
	}
	for (i = 0; i < (unsigned int)n; i++) {
		if (rings < TEL_RINGS_ROWS) {
			rte_tel_data_add_array_string(rc[0], v[i].group);
			rte_tel_data_add_array_int(rc[1], (int)v[i].owner_lcore);
			rte_tel_data_add_array_u64(rc[2], v[i].written);
			rte_tel_data_add_array_u64(rc[3], v[i].too_big);
			rte_tel_data_add_array_int(rc[4], (int)v[i].n_readers);
			rte_tel_data_add_array_int(rc[5], (int)v[i].waiters);
			rings++;
		}
		for (j = 0; j < v[i].n_readers; j++, total++) {
			const struct mcfan_rw_reader_info *r = &v[i].readers[j];

			if (rows == TEL_READERS_ROWS)
				continue;
			rte_tel_data_add_array_string(c[0], v[i].group);
			rte_tel_data_add_array_int(c[1], (int)r->pid);
			rte_tel_data_add_array_u64(c[2], r->frames);
			rte_tel_data_add_array_u64(c[3], r->lost);
			rte_tel_data_add_array_u64(c[4], r->laps);
			rte_tel_data_add_array_u64(c[5], r->lag);
			rte_tel_data_add_array_u64(c[6], r->idle_ns / NS_PER_MS);
			rte_tel_data_add_array_int(c[7], r->alive ? 1 : 0);
			rows++;
		}
	}
	rte_tel_data_add_dict_u64(d, "rings", (uint64_t)n);
	rte_tel_data_add_dict_u64(d, "readers", total);
	rte_tel_data_add_dict_u64(d, "shown", rows);
	ret = mcfan_tel_cols_attach(d, rc, ring_cols, RTE_DIM(ring_cols));
	if (ret == 0)
		ret = mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
	else
		for (i = 0; i < RTE_DIM(c); i++)
			rte_tel_data_free(c[i]);
out:
	mcfan_readers_view_free(v, (unsigned int)n);
	return ret;
}
MCFAN_TEL_COMMAND(tel_readers, "/mcfan/readers",
		  "Reader rings (engine readers), their readers: pid, frames, lost, lapped, lag, "
		  "last_ms, alive. No parameters")
