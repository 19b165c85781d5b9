/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Console: show igmp, show mld (docs/igmp.md, docs/console.md): per port the mode, the
 * version spoken, the querier, the counters per version and every group with its state
 * and the time since its last report (read side control/igmp.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_ethdev.h>

#include "mcfan.h"
#include "control/igmp.h"
#include "console/console.h"

static int
show_proto(struct mcfan_console *con, unsigned int k)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_igmp_port_view *views;
	struct mcfan_igmp_group_view *gv;
	struct mcfan_igmp_totals tot;
	uint8_t proto = k == 0 ? MCFAN_IGMP_PROTO_IGMP : MCFAN_IGMP_PROTO_MLD;
	const char *name = k == 0 ? "igmp" : "mld";
	char a[MCFAN_IGMP_ADDR_STR], q[MCFAN_IGMP_ADDR_STR];
	unsigned int n, i, v, r, vmax = k == 0 ? 3 : 2;
	int ng, j;

	views = calloc(RTE_MAX_ETHPORTS, sizeof(*views));
	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	if (views == NULL || gv == NULL) {
		free(views);
		free(gv);
		mcfan_console_error(con, "show %s: out of memory", name);
		return -ENOMEM;
	}
	n = mcfan_igmp_read(app, views, RTE_MAX_ETHPORTS, &tot);
	printf("control frames: dequeued %" PRIu64 ", ctl_ring_full %" PRIu64 "\n", tot.dequeued,
	       tot.ctl_ring_full);
	for (i = 0; i < n; i++) {
		const struct mcfan_igmp_proto_view *p = &views[i].proto[k];

		printf("port %u: %s mode %s, speaks v%u, source %s, filter %s\n", views[i].port,
		       k == 0 ? "IGMP" : "MLD", mcfan_igmp_mode_name(p->mode), p->version,
		       mcfan_igmp_addr_format(proto, p->src, a), app->ports[views[i].port].filter_mode);
		if (p->have_querier)
			printf("  querier %s v%u, last query %" PRIu64 " ms ago\n",
			       mcfan_igmp_addr_format(proto, p->querier, q), p->querier_version,
			       p->querier_age_ms);
		else
			printf("  querier: none seen\n");
		printf("  %7s %16s %14s %15s %13s %12s %11s\n", "version", "queries_general",
		       "queries_group", "queries_source", "reports_sent", "leaves_sent",
		       "suppressed");
		for (v = 1; v <= vmax; v++)
			printf("  %7u %16" PRIu64 " %14" PRIu64 " %15" PRIu64 " %13" PRIu64 " %12"
			       PRIu64 " %11" PRIu64 "\n", v, p->c.queries_general[v],
			       p->c.queries_group[v], p->c.queries_source[v], p->c.reports_sent[v],
			       p->c.leaves_sent[v], p->c.reports_suppressed[v]);
		printf("  taken %" PRIu64 ", invalid:", p->taken);
		for (r = 1; r < MCFAN_IGMP_INVALID_MAX; r++)
			printf(" %s %" PRIu64, mcfan_igmp_invalid_name(r), p->c.invalid[r]);
		printf("\n");
		ng = mcfan_igmp_read_groups(app, views[i].port, k, gv, MCFAN_MAX_GROUPS);
		for (j = 0; j < ng; j++) {
			printf("  group %-40s %-8s sources %u", mcfan_igmp_addr_format(proto,
			       gv[j].addr, a), gv[j].state, gv[j].n_src);
			if (gv[j].reported)
				printf(", last report %" PRIu64 " ms ago\n", gv[j].last_report_age_ms);
			else
				printf(", no report yet\n");
		}
	}
	free(views);
	free(gv);
	return 0;
}

static int
cmd_show_igmp(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return show_proto(con, 0);
}

MCFAN_CONSOLE_COMMAND(show_igmp, 280, "show igmp", cmd_show_igmp,
		      "IGMP per port: mode, version spoken, querier, queries seen, reports and "
		      "leaves sent, invalid frames, groups and their last report",
		      "show igmp");

static int
cmd_show_mld(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return show_proto(con, 1);
}

MCFAN_CONSOLE_COMMAND(show_mld, 290, "show mld", cmd_show_mld,
		      "MLD per port: mode, version spoken, querier, queries seen, reports and "
		      "dones sent, invalid frames, groups and their last report",
		      "show mld");
