/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * `show topology`: the map and where it came from, the bind type, EAL's lcores, the table
 * of what runs, the CPUs with more than one lcore, and where the mempool, each ring (with its
 * worker's node) and each port's queues live; formatted from the placement's read view
 * (control/placement.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "control/placement.h"
#include "console/console.h"

/* Print the view to f; 0, -ENOMEM (nothing printed) or -EIO when f reports an error. */
static int
topology_print(const struct mcfan_placement_view *v, FILE *f)
{
	char *text = NULL;
	unsigned int i;

	if (v->map != NULL) {
		text = mcfan_plan_map_text(v->map, MCFAN_SCT_FORMAT_COMPACT);
		if (text == NULL)
			return -ENOMEM;
	}
	fprintf(f, "map (%s): %s\n", v->map_from_option ? "--cpu-topology" : "this host",
		text != NULL ? text : "unknown");
	free(text);
	if (v->generated)
		fprintf(f, "bind: %s (%s)\n", mcfan_sct_bind_name(v->bind),
			mcfan_sct_bind_erlang_name(v->bind));
	else
		fprintf(f, "bind: not applied (EAL lcores as given)\n");
	fprintf(f, "EAL lcores: %s%s\n", v->generated ? "--lcores " : "as given",
		v->generated ? v->lcores_arg : "");
	mcfan_plan_rows_print(f, v->rows, v->n_rows);
	if (v->n_shared > 0) {
		fprintf(f, "oversubscribed: CPUs with more than one lcore:");
		mcfan_plan_shared_print(f, v->shared, v->shared_lcores, v->n_shared);
		fprintf(f, "\n");
	}
	if (v->has_mempool)
		fprintf(f, "mempool %s: node %d (asked %d; RX lcore %u on node %d)\n", v->mempool,
			v->mempool_node, v->mempool_socket_asked, v->mempool_rx_lcore,
			v->mempool_rx_node);
	for (i = 0; i < v->n_rings; i++)
		fprintf(f, "ring %s: node %d (RX lcore %u -> worker lcore %u on node %d)\n",
			v->rings[i].name[0] != '\0' ? v->rings[i].name : "?", v->rings[i].node,
			v->rings[i].rx_lcore, v->rings[i].worker_lcore, v->rings[i].worker_node);
	for (i = 0; i < v->n_ports; i++)
		fprintf(f, "port %u (%s): queues on node %d\n", v->ports[i].port, v->ports[i].name,
			v->ports[i].node);
	return ferror(f) ? -EIO : 0;
}

static int
cmd_show_topology(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_placement_view v;
	int ret;

	RTE_SET_USED(a);
	ret = mcfan_placement_view_get(mcfan_console_app(con), &v);
	if (ret == 0) {
		ret = topology_print(&v, stdout);
		mcfan_placement_view_put(&v);
	}
	if (ret == -ENOMEM)
		mcfan_console_error(con, "show topology: out of memory");
	else if (ret < 0)
		mcfan_console_error(con, "show topology: %s", strerror(-ret));
	return ret;
}

MCFAN_CONSOLE_COMMAND(show_topology, 250, "show topology", cmd_show_topology,
		      "CPU map, bind type, lcore placement (CPU, core, processor, node), nodes "
		      "of mempool, rings and ports",
		      "show topology");
