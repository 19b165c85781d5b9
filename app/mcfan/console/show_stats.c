/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Console commands that show the traffic counters (docs/console.md "Looking"): show groups,
 * show rings, show counters, show port stats, show port xstats, show latency. The numbers
 * come from the read side (control/stats.h) shared with the report and telemetry; port
 * statistics from ethdev.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>

#include "mcfan.h"
#include "control/action.h"
#include "control/igmp.h"
#include "control/kernel.h"
#include "control/stats.h"
#include "console/console.h"
#include "console/show.h"

/** Room for one group's sources in show groups: the most, IPv6 in brackets, '+' between. */
#define SHOW_SOURCES_MAX (MCFAN_IGMP_MAX_SOURCES * (MCFAN_IGMP_ADDR_STR + 3))

/* The group's target workers and, with per-group engines, the output its copies go to. */
static void
print_targets(const struct mcfan_app *app, const struct mcfan_group_entry *e)
{
	unsigned int t;

	for (t = 0; t < e->n_targets && t < app->n_workers; t++)
		printf("%s%u", t == 0 ? "" : ",", app->worker_lcore_ids[e->targets[t]]);
	if (app->n_inst > 1 && e->inst < app->cfg.n_engine_inst)
		printf("  output %u %s%s%s", e->inst, app->cfg.engine_inst[e->inst].name,
		       app->cfg.engine_inst[e->inst].args[0] != '\0' ? ":" : "",
		       app->cfg.engine_inst[e->inst].args);
	printf("\n");
}

static int
cmd_show_groups(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	const char *which = a->groups;
	struct mcfan_flow_key *keys = NULL;
	struct mcfan_group_view *gv;
	char text[MCFAN_GROUP_STR_MAX], err[256], src[SHOW_SOURCES_MAX];
	char row_group[MCFAN_GROUP_STR_MAX + SHOW_SOURCES_MAX];
	bool *show = NULL;
	unsigned int i, k, n_keys = 0, shown = 0, n_ssm = 0;
	int n, ret = 0;

	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	show = calloc(MCFAN_MAX_GROUPS, sizeof(*show));
	if (gv == NULL || keys == NULL || show == NULL) {
		mcfan_console_error(con, "show groups: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	if (which != NULL) {
		n = mcfan_group_parse_list(which, keys, MCFAN_MAX_GROUPS, err, sizeof(err));
		if (n < 0) {
			mcfan_console_error(con, "show groups: %s", err);
			ret = n;
			goto out;
		}
		n_keys = (unsigned int)n;
	}
	n = mcfan_groups_read(app, gv, MCFAN_MAX_GROUPS);
	if (n < 0) {
		mcfan_console_error(con, "show groups: %s", strerror(-n));
		ret = n;
		goto out;
	}
	for (i = 0; i < (unsigned int)n; i++)
		show[i] = which == NULL;
	for (k = 0; k < n_keys; k++) {
		bool found = false;

		for (i = 0; i < (unsigned int)n; i++) {
			if (mcfan_flow_key_matches(&keys[k], &gv[i].entry->key)) {
				show[i] = true;
				found = true;
			}
		}
		if (!found) {
			mcfan_group_format(&keys[k], text, sizeof(text));
			mcfan_console_error(con, "show groups: group %s is not joined", text);
			ret = -ENOENT;
			goto out;
		}
	}
	printf("  %-46s %-9s %4s %14s %14s %10s %16s  %s%s\n", "group", "fan-out", "slot", "frames",
	       "copies", "copy_drops", "bytes", "workers", app->n_inst > 1 ? "  output" : "");
	for (i = 0; i < (unsigned int)n; i++) {
		if (!show[i])
			continue;
		mcfan_group_format(&gv[i].entry->key, text, sizeof(text));
		/* a source-specific group as it was joined: GROUP@SOURCE[+SOURCE] */
		if (mcfan_igmp_sources_text(app, &gv[i].entry->key, src, sizeof(src)) > 0) {
			snprintf(row_group, sizeof(row_group), "%s@%s", text, src);
			n_ssm++;
		} else {
			snprintf(row_group, sizeof(row_group), "%s", text);
		}
		printf("  %-46s %-9s %4u %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %16" PRIu64 "  ",
		       row_group, mcfan_fanout_name((enum mcfan_fanout)gv[i].entry->fanout),
		       gv[i].entry->id, gv[i].frames, gv[i].copies, gv[i].copy_drops,
		       gv[i].bytes);
		print_targets(app, gv[i].entry);
		shown++;
	}
	printf("%u of %d groups; fan-out of later joins: %s\n", shown, n,
	       mcfan_fanout_name(mcfan_live_fanout(&app->live)));
	if (n_ssm > 0)
		printf("GROUP@SOURCE: joined from these sources only (IGMPv3/MLDv2 INCLUDE): the "
		       "switch forwards them; mcfan's data path does not filter by source "
		       "(docs/igmp.md)\n");
out:
	free(gv);
	free(keys);
	free(show);
	return ret;
}

MCFAN_CONSOLE_COMMAND(show_groups_all, 140, "show groups", cmd_show_groups,
		      "every joined group (GROUP@SOURCE: source-specific): fan-out, counter slot, "
		      "frames and bytes counted by workers, target workers, and with per-group "
		      "engines the output its copies go to",
		      "show groups");

MCFAN_CONSOLE_COMMAND(show_groups_some, 150, "show groups <groups>", cmd_show_groups,
		      "the same for some groups (no port: every port of the address)",
		      "show groups 239.9.9.1-3");

static int
cmd_show_rings(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_worker_view *wv;
	unsigned int w;
	int n;

	RTE_SET_USED(a);
	wv = mcfan_console_calloc(con, "show rings", RTE_MAX(app->n_workers, 1u), sizeof(*wv));
	if (wv == NULL)
		return -ENOMEM;
	n = mcfan_workers_read(app, wv);
	printf("  %5s %5s %9s %9s %10s %14s %12s %14s\n", "lcore", "rings", "size", "count",
	       "high_water", "enqueued", "ring_drops", "processed");
	for (w = 0; n > 0 && w < (unsigned int)n; w++)
		printf("  %5u %5u %9u %9" PRIu64 " %10" PRIu64 " %14" PRIu64 " %12" PRIu64 " %14"
		       PRIu64 "\n", wv[w].lcore_id, app->n_rx, wv[w].ring_size, wv[w].ring_count,
		       wv[w].ring_high_water, wv[w].enqueued, wv[w].ring_drops, wv[w].frames);
	printf("one ring per RX lcore and worker; size and high_water per ring, the rest summed "
	       "over a worker's rings\n");
	free(wv);
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_rings, 160, "show rings", cmd_show_rings,
		      "per worker: ring size, frames waiting, high-water mark, enqueued, ring "
		      "drops, processed",
		      "show rings");

static int
cmd_show_counters(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_totals t;
	unsigned int k;

	RTE_SET_USED(a);
	mcfan_totals_read(app, &t);
	printf("frames: rx %" PRIu64 " = delivered %" PRIu64 " + drops %" PRIu64 "%s\n",
	       t.rx_frames, t.delivered_frames, t.drops_total,
	       t.rx_frames == t.delivered_frames + t.drops_total ? "" : "  (MISMATCH)");
	printf("copies: offered %" PRIu64 " = delivered %" PRIu64 " + ring drops %" PRIu64 "\n",
	       t.copies_offered, t.delivered_copies, t.copies_offered - t.delivered_copies);
	printf("drops:");
	for (k = 1; k < MCFAN_DROP_MAX; k++)
		printf(" %s %" PRIu64, mcfan_drop_name(k), t.drops[k]);
	printf("\n" MCFAN_MAC_MISMATCH_FMT, t.mac_mismatch);
	printf("\nrx: %s; bytes %" PRIu64 "\n", mcfan_console_rx_state(app), t.rx_bytes);
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_counters, 170, "show counters", cmd_show_counters,
		      "the conservation line: rx = delivered + drops, copies, every drop reason, "
		      "mac_mismatch (delivered, not a drop)",
		      "show counters");

static int
print_port_stats(struct mcfan_console *con, uint16_t port, bool header)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_kernel_view kv;
	struct rte_eth_stats ps;
	char reasm[256], balance[384];
	int ret;

	ret = mcfan_port_stats_read(app, port, &ps);
	if (ret < 0) {
		mcfan_console_error(con, "show port stats: port %u: %s", port, rte_strerror(-ret));
		return ret;
	}
	mcfan_kernel_read(app, port, &ps, &kv);
	if (header)
		printf("  %4s %-22s %-12s %14s %12s %10s %10s %16s %12s %14s %s\n", "port",
		       "name", "filter", "ipackets", "imissed", "ierrors", "rx_nombuf", "ibytes",
		       "kernel_drops", "if_rx_packets", "role");
	printf("  %4u %-22.22s %-12s %14" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64
	       " %16" PRIu64 " %12" PRIu64 " %14" PRIu64 " %s\n", port, app->ports[port].name,
	       app->ports[port].filter_mode, ps.ipackets, ps.imissed, ps.ierrors, ps.rx_nombuf,
	       ps.ibytes, kv.kernel_drops, kv.if_rx_packets,
	       mcfan_port_role_name(app->ports[port].role));
	if (app->ports[port].role != MCFAN_PORT_RX)
		printf("       output-only (%s): not polled, no group joined, no IGMP/MLD\n",
		       app->ports[port].role_why);
	if (strcmp(kv.source, "none") != 0)
		printf("       kernel (%s, %s%s): %s\n", kv.source, kv.ifname,
		       strcmp(kv.if_state, "gone") == 0 ? ", interface gone: nothing more "
		       "received until mcfan restarts" : "",
		       mcfan_kernel_balance_text(&kv, &ps, balance, sizeof(balance)));
	if (mcfan_kernel_reasm_text(&kv, reasm, sizeof(reasm))[0] != '\0')
		printf("       kernel: %s\n", reasm);
	return 0;
}

static void
port_list(const struct mcfan_app *app, char *buf, size_t len)
{
	uint16_t p;
	size_t off = 0;

	buf[0] = '\0';
	for (p = 0; p < RTE_MAX_ETHPORTS && off < len; p++)
		if (app->ports[p].used)
			off += (size_t)snprintf(buf + off, len - off, "%s%u", off == 0 ? "" : ",",
						p);
}

/* A <port> argument: a port mcfan uses; prints the error naming cmd otherwise. */
static int
port_arg(struct mcfan_console *con, const char *cmd, const char *text, uint16_t *port)
{
	struct mcfan_app *app = mcfan_console_app(con);
	char list[128];
	uint64_t v;

	/* a number of any size that is not a port mcfan uses gets the same answer, the ports
	 * it uses (before: "out of range 0..31" or "too large", the ids DPDK could have) */
	if (mcfan_ctl_parse_u64(text, &v) == -EINVAL)
		return mcfan_console_u64(con, cmd, "port", text, 0, 0, &v); /* says why */
	if (v >= RTE_MAX_ETHPORTS || !app->ports[v].used) {
		port_list(app, list, sizeof(list));
		mcfan_console_error(con, "%s: port %s is not used by mcfan (ports: %s)", cmd, text,
				    list[0] != '\0' ? list : "none");
		return -ENODEV;
	}
	*port = (uint16_t)v;
	return 0;
}

static int
cmd_show_port_stats(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	bool header = true;
	uint16_t port;

	if (a->port != NULL) {
		if (port_arg(con, "show port stats", a->port, &port) < 0)
			return -EINVAL;
		return print_port_stats(con, port, true);
	}
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used)
			continue;
		if (print_port_stats(con, port, header) < 0)
			return -EIO;
		header = false;
	}
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_port_stats, 180, "show port stats", cmd_show_port_stats,
		      "ipackets, imissed, ierrors, rx_nombuf of every port", "show port stats");

MCFAN_CONSOLE_COMMAND(show_port_stats_all, 190, "show port stats all", cmd_show_port_stats,
		      "the same as show port stats", "show port stats all");

MCFAN_CONSOLE_COMMAND(show_port_stats_one, 200, "show port stats <port>", cmd_show_port_stats,
		      "the port statistics of one port", "show port stats 0");

static int
cmd_show_port_xstats(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *vals = NULL;
	uint16_t port;
	int n, m, i, ret = 0;

	if (port_arg(con, "show port xstats", a->port, &port) < 0)
		return -EINVAL;
	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n < 0) {
		mcfan_console_error(con, "show port xstats: port %u: %s", port, rte_strerror(-n));
		return n;
	}
	names = calloc((size_t)RTE_MAX(n, 1), sizeof(*names));
	vals = calloc((size_t)RTE_MAX(n, 1), sizeof(*vals));
	if (names == NULL || vals == NULL) {
		mcfan_console_error(con, "show port xstats: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	m = rte_eth_xstats_get_names(port, names, (unsigned int)n);
	i = rte_eth_xstats_get(port, vals, (unsigned int)n);
	if (m != n || i != n) {
		mcfan_console_error(con, "show port xstats: port %u: the statistics changed while "
				    "read; try again", port);
		ret = -EAGAIN;
		goto out;
	}
	printf("port %u (%s), extended statistics of the driver since the port started:\n",
	       port, mcfan_console_app(con)->ports[port].driver);
	for (i = 0; i < n; i++)
		printf("  %-40s %20" PRIu64 "\n", names[vals[i].id < (uint64_t)n ? vals[i].id :
		       (uint64_t)i].name, vals[i].value);
out:
	free(names);
	free(vals);
	return ret;
}

MCFAN_CONSOLE_COMMAND(show_port_xstats, 210, "show port xstats <port>", cmd_show_port_xstats,
		      "the driver's extended statistics of one port", "show port xstats 0");

static int
cmd_show_latency(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_latency_view *lv;
	char p50[24], p99[24], mx[24];
	unsigned int w;
	int n;

	RTE_SET_USED(a);
	lv = mcfan_console_calloc(con, "show latency", RTE_MAX(app->n_workers, 1u), sizeof(*lv));
	if (lv == NULL)
		return -ENOMEM;
	n = mcfan_latency_read(app, lv);
	printf("RX-to-dequeue time per worker (log2 ns buckets, quantiles interpolated)\n");
	printf("  %5s %14s %12s %12s %12s\n", "lcore", "copies", "p50", "p99", "max");
	for (w = 0; n > 0 && w < (unsigned int)n; w++)
		printf("  %5u %14" PRIu64 " %12s %12s %12s\n", lv[w].lcore_id, lv[w].copies,
		       mcfan_console_us_text(lv[w].p50_ns, p50, sizeof(p50)),
		       mcfan_console_us_text(lv[w].p99_ns, p99, sizeof(p99)),
		       mcfan_console_us_text(lv[w].max_ns, mx, sizeof(mx)));
	free(lv);
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_latency, 240, "show latency", cmd_show_latency,
		      "per worker: RX-to-dequeue time p50, p99, max", "show latency");
