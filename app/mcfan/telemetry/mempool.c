/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Telemetry: /mcfan/mempool, the mbufs outside their pool while mcfan runs
 * (docs/telemetry.md). DPDK 22.11's own /mempool/info gives the pool's size but not how many
 * mbufs are available, so a soak or a monitor could not see a leak before the final report
 * (its mbufs_outside_pool). The count is the same as the periodic report's "mbufs in use":
 * rte_mempool_avail_count() (the common pool plus every lcore's cache) from the pool size.
 */

#include <errno.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "telemetry/telemetry.h"

static int
tel_mempool(struct mcfan_app *app, const char *cmd, const char *params,
	    struct rte_tel_data *d)
{
	unsigned int avail;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	if (app->pool == NULL)
		return -ENODEV;
	avail = rte_mempool_avail_count(app->pool);
	rte_tel_data_add_dict_string(d, "name", app->pool->name);
	rte_tel_data_add_dict_u64(d, "size", app->pool->size);
	rte_tel_data_add_dict_u64(d, "cache_size", app->pool->cache_size);
	rte_tel_data_add_dict_string(d, "ops", app->pool_ops != NULL ? app->pool_ops : "");
	rte_tel_data_add_dict_string(d, "ops_why", app->pool_ops_why);
	rte_tel_data_add_dict_u64(d, "available", avail);
	/* rte_mempool_avail_count() is at most the size (it clamps a racy sum) */
	rte_tel_data_add_dict_u64(d, "outside_pool", app->pool->size - avail);
	return 0;
}
MCFAN_TEL_COMMAND(tel_mempool, "/mcfan/mempool",
		  "The mbuf pool: size, handler (ops, ops_why), available, outside_pool. "
		  "No parameters")
