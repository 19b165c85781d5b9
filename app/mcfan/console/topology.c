/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* `show topology`: the text formatter of the placement's read view (control/placement.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "control/placement.h"
#include "console/topology.h"

int
mcfan_console_topology_print(const struct mcfan_placement_view *v, FILE *f)
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

/* Compatibility until the console calls mcfan_console_topology_print() (placement.h). */
int
mcfan_placement_print(struct mcfan_app *app, FILE *f)
{
	struct mcfan_placement_view v;
	int ret = mcfan_placement_view_get(app, &v);

	if (ret < 0)
		return ret;
	ret = mcfan_console_topology_print(&v, f);
	mcfan_placement_view_put(&v);
	return ret;
}
