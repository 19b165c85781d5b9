/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* The report: a one-screen text summary (periodic and final) and the JSON file. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_version.h>

#include "mcfan.h"
#include "log.h"
#include "control/engine.h"
#include "control/igmp.h"
#include "control/idle.h"
#include "control/kernel.h"
#include "control/overrun.h"
#include "control/sched.h"
#include "control/placement.h"
#include "control/stats.h"
#include "telemetry/igmp.h"
#include "telemetry/feed.h"
#include "telemetry/readers.h"
#include "telemetry/report.h"
#include "telemetry/report_rx.h"

#define MSACC_TEXT_MAX (64 * 1024)

static void
group_addr(const struct mcfan_flow_key *k, char *buf, size_t len)
{
	struct mcfan_flow_key any = *k;
	char tmp[MCFAN_GROUP_STR_MAX];

	any.udp_port = 0;
	mcfan_group_format(&any, tmp, sizeof(tmp));
	if (tmp[0] == '[') {
		/* IPv6 in JSON and tables without the brackets, the port is separate */
		tmp[strlen(tmp) - 1] = '\0';
		snprintf(buf, len, "%s", tmp + 1);
	} else {
		snprintf(buf, len, "%s", tmp);
	}
}

static double
elapsed_s(const struct mcfan_app *app)
{
	uint64_t end = app->stop_tsc != 0 ? app->stop_tsc : rte_rdtsc();

	if (app->start_tsc == 0 || end < app->start_tsc)
		return 0;
	return (double)(end - app->start_tsc) / (double)app->tsc_hz;
}

/* Seconds from the start to tsc (0 if either is unknown). */
static double
at_s(const struct mcfan_app *app, uint64_t tsc)
{
	if (app->start_tsc == 0 || tsc < app->start_tsc)
		return 0;
	return (double)(tsc - app->start_tsc) / (double)app->tsc_hz;
}

/* The report's group rows into gv (2 x MCFAN_MAX_GROUPS views): the groups joined now, then
 * those left since the start or the last clear stats, one row per membership, oldest leave
 * first; *n_left receives the left rows, *ov the rows folded beyond them. Returns the rows,
 * or a negative errno (*n_left 0, *ov zero). */
static int
group_rows_read(const struct mcfan_app *app, struct mcfan_group_view *gv, int *n_left,
		struct mcfan_left_overflow *ov)
{
	int n = mcfan_groups_read(app, gv, MCFAN_MAX_GROUPS), k;

	*n_left = 0;
	memset(ov, 0, sizeof(*ov));
	if (n < 0)
		return n;
	k = mcfan_left_groups_read(app, gv + n, MCFAN_MAX_GROUPS, ov);
	*n_left = k > 0 ? k : 0;
	return n + *n_left;
}

/* Seconds the counters cover: from the last clear stats (or the start) to the stop or now. */
static double
counted_s(const struct mcfan_app *app)
{
	uint64_t end = app->stop_tsc != 0 ? app->stop_tsc : rte_rdtsc();
	uint64_t clear = mcfan_stats_clear_tsc(app);

	if (clear == 0)
		return elapsed_s(app);
	return end > clear ? (double)(end - clear) / (double)app->tsc_hz : 0;
}

static int64_t
mbufs_outside(const struct mcfan_app *app)
{
	if (app->pool == NULL)
		return 0;
	return (int64_t)app->pool_size - (int64_t)rte_mempool_avail_count(app->pool);
}

/* Per worker latency and per lcore idle policy, text. */
static void
print_idle_latency(struct mcfan_app *app, FILE *f)
{
	struct mcfan_latency_view *lv;
	struct mcfan_idle_view *iv;
	int n, i;

	lv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*lv));
	iv = calloc(RTE_MAX_LCORE, sizeof(*iv));
	if (lv == NULL || iv == NULL)
		goto out;
	n = mcfan_latency_read(app, lv);
	fprintf(f, "\nlatency, RX to worker dequeue (us):\n  %5s %14s %10s %10s %10s\n", "lcore",
		"copies", "p50", "p99", "max");
	for (i = 0; i < n; i++)
		fprintf(f, "  %5u %14" PRIu64 " %10.1f %10.1f %10.1f\n", lv[i].lcore_id,
			lv[i].copies, lv[i].p50_ns / 1e3, lv[i].p99_ns / 1e3, lv[i].max_ns / 1e3);
	n = mcfan_idle_read(app, iv, RTE_MAX_LCORE);
	fprintf(f, "\nhosted workers: %s\n", app->hosts_why);
	fprintf(f, "\nidle policies (--idle-max-sleep-us %u; each lcore's own max sleep below; bound 0: "
		"no recent traffic):\n"
		"  %5s %-10s %-22s %14s %14s %14s %-6s %4s  %s\n", app->cfg.idle_max_sleep_us, "lcore",
		"role", "policy", "ring_bound_us", "sleep_cap_us", "max_sleep_us", "sched", "nice",
		"why");
	for (i = 0; i < n; i++)
		fprintf(f, "  %5u %-10s %-22s %14.1f %14.1f %14.1f %-6s %4d  %s\n", iv[i].lcore_id,
			mcfan_role_name(iv[i].role), iv[i].policy_text, iv[i].ring_bound_ns / 1e3,
			iv[i].sleep_cap_ns / 1e3, iv[i].max_sleep_ns / 1e3, iv[i].sched, iv[i].nice,
			iv[i].why);
out:
	free(lv);
	free(iv);
}

/* Drops caused by sleeping (docs/idle.md), per data lcore, text. */
static void
print_overrun(const struct mcfan_app *app, FILE *f)
{
	struct mcfan_overrun_view v;
	unsigned int id;

	mcfan_overrun_total(app, &v);
	fprintf(f, "\nsleep overrun (drops caused by sleeping): %" PRIu64 " (ring %" PRIu64
		" copies, port %" PRIu64 " frames)\n  %5s %14s %14s %14s\n", v.total, v.ring,
		v.port, "lcore", "sleep_overrun", "ring", "port");
	for (id = 0; id < RTE_MAX_LCORE; id++)
		if (mcfan_overrun_read(app, id, &v) == 0)
			fprintf(f, "  %5u %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n", id,
				v.total, v.ring, v.port);
}

/* The engine view of worker lcore id among n views, or NULL. */
static const struct mcfan_engine_view *
view_of(const struct mcfan_engine_view *ev, unsigned int n, unsigned int id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ev[i].lcore_id == id)
			return &ev[i];
	return NULL;
}

/* One line: the engines of every data lcore. A worker lcore shows the engine that takes its
 * copies now (as show engines: control/engine.h), per-group with the outputs its groups are
 * on only when they are on more than one. */
static void
print_engines(const struct mcfan_app *app, FILE *f)
{
	struct mcfan_engine_view *ev = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*ev));
	const struct mcfan_engine_view *v;
	struct mcfan_lcore_engines e;
	unsigned int id, k, n = 0;
	const char *sep = "", *osep;

	if (ev != NULL && app->n_inst > 1)
		n = mcfan_engines_read(app, ev, app->n_workers);
	fprintf(f, "\nengines:");
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		if (mcfan_lcore_engines_read(app, id, &e) < 0 || (e.rx == NULL && e.worker == NULL))
			continue;
		fprintf(f, "%s lcore %u%s%s", sep, id, e.rx != NULL ? " rx " : "",
			e.rx != NULL ? e.rx : "");
		sep = ";";
		if (e.worker == NULL)
			continue;
		v = view_of(ev, n, id);
		if (app->n_inst <= 1 || v == NULL) {
			fprintf(f, " worker %s", e.worker);
			continue;
		}
		if (v->mode != MCFAN_ENGINE_MODE_GROUPS ||
		    strcmp(v->engine, MCFAN_ENGINE_PER_GROUP) != 0) {
			fprintf(f, " worker %s%s", v->engine,
				v->mode != MCFAN_ENGINE_MODE_GROUPS ? " (set engine)" : "");
			continue;
		}
		/* engines per group (--group-engine): the outputs its groups are on */
		fprintf(f, " worker %s (outputs", MCFAN_ENGINE_PER_GROUP);
		for (k = 0, osep = ""; k < app->n_inst; k++) {
			if ((v->outputs & (UINT32_C(1) << k)) == 0)
				continue;
			fprintf(f, "%s %u %s", osep, k, app->cfg.engine_inst[k].name);
			osep = ",";
		}
		fprintf(f, ")");
	}
	free(ev);
}

/* Per worker lcore whose engine has counters (tx, pcap: datapath/engine.h), one line. */
static void
print_engine_values(const struct mcfan_app *app, FILE *f)
{
	struct mcfan_engine_value v[MCFAN_ENGINE_VALUES_MAX];
	struct mcfan_lcore_engines e;
	unsigned int w, id;
	int n, i;

	for (w = 0; w < app->n_workers; w++) {
		id = app->worker_lcore_ids[w];
		n = mcfan_lcore_engine_values_cleared(app, id, v, RTE_DIM(v));
		if (n <= 0 || mcfan_lcore_engines_read(app, id, &e) < 0)
			continue;
		fprintf(f, "\nengine %s on lcore %u:", e.worker, id);
		for (i = 0; i < n; i++)
			fprintf(f, " %s %" PRIu64, v[i].name, v[i].value);
	}
}

/* Per worker lcore and engine instance ("output", docs/delivery.md), one line each, when the
 * run has more than one instance. */
static void
print_engine_outputs(const struct mcfan_app *app, FILE *f)
{
	struct mcfan_inst_view v;
	unsigned int w, k, id;
	int i;

	for (w = 0; app->n_inst > 1 && w < app->n_workers; w++) {
		id = app->worker_lcore_ids[w];
		for (k = 0; k < app->n_inst; k++) {
			if (mcfan_lcore_inst_read_cleared(app, id, k, &v) < 0)
				continue;
			fprintf(f, "\nengine output %u %s%s%s on lcore %u: frames %" PRIu64 ";", k,
				v.engine, v.args[0] != '\0' ? ":" : "", v.args, id, v.frames);
			for (i = 0; i < v.n_values; i++)
				fprintf(f, " %s %" PRIu64, v.values[i].name, v.values[i].value);
		}
		if (mcfan_lcore_sel_frames_cleared(app, id) != 0)
			fprintf(f, "\nengine set for lcore %u (set engine LCORE): frames %" PRIu64, id,
				mcfan_lcore_sel_frames_cleared(app, id));
	}
}

void
mcfan_report_print(struct mcfan_app *app, FILE *f, bool final)
{
	struct mcfan_totals t;
	struct mcfan_worker_view *wv;
	struct mcfan_group_view *gv;
	struct mcfan_left_overflow ov;
	struct mcfan_msacc_row *rows;
	struct mcfan_kernel_view kv;
	struct rte_eth_stats ps;
	char *text, addr[MCFAN_GROUP_STR_MAX], span[96], reasm[256], balance[384], hint[768];
	uint64_t pframes, pdrops[MCFAN_DROP_MAX];
	struct mcfan_report_rx rx;
	char src[MCFAN_IGMP_MAX_SOURCES * (MCFAN_IGMP_ADDR_STR + 3)];
	unsigned int i, w;
	int n, ng, nr, nl;
	uint64_t clear_tsc;
	uint16_t port;

	wv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*wv));
	gv = calloc(MCFAN_MAX_GROUPS * 2, sizeof(*gv));
	rows = calloc(RTE_MAX_LCORE, sizeof(*rows));
	text = malloc(MSACC_TEXT_MAX);
	if (wv == NULL || gv == NULL || rows == NULL || text == NULL) {
		fprintf(f, "mcfan: report: out of memory\n");
		goto out;
	}
	mcfan_totals_read(app, &t);
	clear_tsc = mcfan_stats_clear_tsc(app);
	if (clear_tsc == 0)
		snprintf(span, sizeof(span), "after %.2f s", elapsed_s(app));
	else
		snprintf(span, sizeof(span), "after %.2f s since clear stats at %.2f s (run %.2f s)",
			 counted_s(app), at_s(app, clear_tsc), elapsed_s(app));
	ng = group_rows_read(app, gv, &nl, &ov);
	fprintf(f, "\n==== mcfan %s %s: fan-out %s, groups %u (left %" PRIu64 "), RX lcores %u, "
		"workers %u ====\n", final ? "report" : "stats", span,
		mcfan_fanout_name(mcfan_live_fanout(&app->live)), app->n_group_entries,
		(uint64_t)nl + ov.groups, app->n_rx, app->n_workers);
	fprintf(f, "frames: rx %" PRIu64 " = delivered %" PRIu64 " + drops %" PRIu64 "%s\n",
		t.rx_frames, t.delivered_frames, t.drops_total,
		t.rx_frames == t.delivered_frames + t.drops_total ? "" : "  (MISMATCH)");
	fprintf(f, "copies: offered %" PRIu64 " = delivered %" PRIu64 " + ring drops %" PRIu64
		"\n", t.copies_offered, t.delivered_copies,
		t.copies_offered - t.delivered_copies);
	fprintf(f, "drops:");
	for (i = 1; i < MCFAN_DROP_MAX; i++)
		fprintf(f, " %s %" PRIu64, mcfan_drop_name(i), t.drops[i]);
	fprintf(f, "\n" MCFAN_MAC_MISMATCH_FMT, t.mac_mismatch);
	print_engines(app, f);
	print_engine_values(app, f);
	print_engine_outputs(app, f);
	fprintf(f, "\n\nports:\n  %4s %-22s %-16s %-12s %12s %10s %10s %10s %12s %12s %s\n",
		"port", "name", "driver", "filter", "ipackets", "imissed", "ierrors", "rx_nombuf",
		"kernel_drops", "if_rx_pkts", "role");
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used)
			continue;
		mcfan_port_stats_read(app, port, &ps);
		mcfan_kernel_read(app, port, &ps, &kv);
		fprintf(f, "  %4u %-22.22s %-16.16s %-12s %12" PRIu64 " %10" PRIu64 " %10" PRIu64
			" %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %s\n", port,
			app->ports[port].name, app->ports[port].driver,
			app->ports[port].filter_mode, ps.ipackets, ps.imissed, ps.ierrors,
			ps.rx_nombuf, kv.kernel_drops, kv.if_rx_packets,
			mcfan_port_role_name(app->ports[port].role));
	}
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used)
			continue;
		mcfan_port_stats_read(app, port, &ps);
		mcfan_kernel_read(app, port, &ps, &kv);
		if (strcmp(kv.source, "none") == 0)
			continue;
		fprintf(f, "port %u kernel (%s, %s%s): %s\n", port, kv.source, kv.ifname,
			strcmp(kv.if_state, "gone") == 0 ? ", interface gone: nothing more "
			"received until mcfan restarts" : "",
			mcfan_kernel_balance_text(&kv, &ps, balance, sizeof(balance)));
		if (mcfan_kernel_reasm_text(&kv, reasm, sizeof(reasm))[0] != '\0')
			fprintf(f, "port %u kernel: %s\n", port, reasm);
	}
	/* at exit, once: why a net_af_packet port's frames were truncated, and the remedy */
	if (final && t.drops[MCFAN_DROP_TRUNCATED] != 0 && mcfan_report_rx_read(app, &rx) == 0) {
		for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
			if (!app->ports[port].used)
				continue;
			mcfan_rx_port_sum(rx.rv, rx.n, port, &pframes, pdrops);
			if (mcfan_ports_truncated_hint(app, port, pdrops[MCFAN_DROP_TRUNCATED],
						       hint, sizeof(hint)) > 0)
				fprintf(f, "port %u (net_af_packet): %s\n", port, hint);
		}
		mcfan_report_rx_free(&rx);
	}
	fprintf(f, "\ngroups (joined, then left: every row since the %s):\n"
		"  %-40s %6s %10s %14s %14s %10s %14s  %s\n",
		clear_tsc == 0 ? "start" : "clear stats", "group", "port",
		"fan-out", "frames", "copies", "copy_drops", "bytes", "worker lcores");
	for (i = 0; ng > 0 && i < (unsigned int)ng; i++) {
		char portbuf[8];

		group_addr(&gv[i].entry->key, addr, sizeof(addr));
		if (gv[i].entry->key.udp_port == 0)
			snprintf(portbuf, sizeof(portbuf), "any");
		else
			snprintf(portbuf, sizeof(portbuf), "%u", gv[i].entry->key.udp_port);
		fprintf(f, "  %-40s %6s %10s %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %14"
			PRIu64 " ", addr, portbuf, mcfan_fanout_name(gv[i].entry->fanout),
			gv[i].frames, gv[i].copies, gv[i].copy_drops, gv[i].bytes);
		for (w = 0; w < app->n_workers; w++)
			if (mcfan_bits_test(gv[i].worker_bits, w))
				fprintf(f, " %u", app->worker_lcore_ids[w]);
		/* a source-specific group joined now: its sources, as a group list writes them */
		if (!gv[i].left && mcfan_igmp_sources_text(app, &gv[i].entry->key, src,
							   sizeof(src)) > 0)
			fprintf(f, "  (sources %s)", src);
		if (gv[i].left)
			fprintf(f, "  (left at %.2f s)", at_s(app, gv[i].left_tsc));
		fprintf(f, "\n");
	}
	if (ov.groups != 0)
		fprintf(f, "  %-40s %6s %10s %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %14" PRIu64
			"  (%" PRIu64 " more left groups, oldest first, beyond the %u rows kept)\n",
			"(older left groups)", "", "", ov.frames, ov.copies, ov.copy_drops, ov.bytes,
			ov.groups, (unsigned int)MCFAN_MAX_GROUPS);
	/* feed quality: groups with --seq, joined then left (telemetry/feed.c) */
	mcfan_feed_report_print(app, ng > 0 && nl > 0 ? gv + (ng - nl) : gv,
				ng > 0 && nl > 0 ? (unsigned int)nl : 0, f);
	mcfan_readers_report_print(app, f); /* reader rings, engine readers (telemetry/readers.c) */
	n = mcfan_workers_read(app, wv);
	fprintf(f, "\nworkers:\n  %5s %14s %14s %12s %16s\n", "lcore", "frames", "enqueued",
		"ring_drops", "ring_high_water");
	for (w = 0; n > 0 && w < (unsigned int)n; w++)
		fprintf(f, "  %5u %14" PRIu64 " %14" PRIu64 " %12" PRIu64 " %10" PRIu64 " / %u\n",
			wv[w].lcore_id, wv[w].frames, wv[w].enqueued, wv[w].ring_drops,
			wv[w].ring_high_water, wv[w].ring_size);
	print_idle_latency(app, f);
	print_overrun(app, f);
	nr = mcfan_lcore_rows(app, rows, RTE_MAX_LCORE);
	if (nr > 0 && mcfan_msacc_format_table(text, MSACC_TEXT_MAX, rows, (unsigned int)nr,
					       app->tsc_hz, 0) >= 0)
		fprintf(f, "\nmicrostate accounting (%% of wall time per lcore):\n%s", text);
	mcfan_igmp_report_print(app, f);
	if (final && app->mbufs_outside > 0 &&
	    (uint64_t)app->mbufs_outside <= app->mbufs_kept_max)
		fprintf(f, "\nmbufs outside their pool: %" PRId64 "  (kept by net_af_xdp after "
			"its close, at most %" PRIu64 ": DPDK 22.11 does not return its fill and "
			"TX completion queues' mbufs; no frame is lost by it)\n", app->mbufs_outside,
			app->mbufs_kept_max);
	else if (final)
		fprintf(f, "\nmbufs outside their pool: %" PRId64 "%s\n", app->mbufs_outside,
			app->mbufs_outside == 0 ? "" : "  (LEAK)");
	else
		fprintf(f, "\nmbufs in use: %" PRId64 " of %u\n", mbufs_outside(app),
			app->pool_size);
	fflush(f);
out:
	free(wv);
	free(gv);
	free(rows);
	free(text);
}

static json_t *
json_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* A group row's "sources": the addresses a source-specific group (IGMPv3/MLDv2 INCLUDE) was
 * joined from, [] for a group joined from any source, null for a left group (its sources are
 * not kept after the leave). */
static json_t *
group_sources_json(const struct mcfan_app *app, const struct mcfan_group_view *g)
{
	char src[MCFAN_IGMP_MAX_SOURCES][MCFAN_IGMP_ADDR_STR];
	unsigned int i, n;
	json_t *a;

	if (g->left)
		return json_null();
	a = json_array();
	n = mcfan_igmp_sources_list(app, &g->entry->key, src, RTE_DIM(src));
	for (i = 0; i < RTE_MIN(n, (unsigned int)RTE_DIM(src)); i++)
		json_array_append_new(a, json_string(src[i]));
	return a;
}

/* A number that is negative when unknown (cpu, node, ...): null then. */
static json_t *
json_int_or_null(int v)
{
	return v < 0 ? json_null() : json_integer(v);
}

/* JSON of lcore id's worker engine counters ({} without any). */
static json_t *
json_engine_values(const struct mcfan_app *app, unsigned int id)
{
	struct mcfan_engine_value v[MCFAN_ENGINE_VALUES_MAX];
	json_t *o = json_object();
	int n, i;

	n = mcfan_lcore_engine_values_cleared(app, id, v, RTE_DIM(v));
	for (i = 0; i < n; i++)
		json_object_set_new(o, v[i].name, json_u64(v[i].value));
	return o;
}

/* JSON of worker lcore id's engine instances: [{output, engine, args, frames, delivered,
 * dropped, counters}];
 * [] for an lcore that is no worker. */
static json_t *
json_engine_outputs(const struct mcfan_app *app, unsigned int id)
{
	struct mcfan_inst_view v;
	json_t *a = json_array(), *o, *c;
	uint64_t sum[2];
	unsigned int k;
	int i;

	for (k = 0; k < app->n_inst; k++) {
		if (mcfan_lcore_inst_read_cleared(app, id, k, &v) < 0)
			continue;
		o = json_object();
		c = json_object();
		sum[0] = sum[1] = 0;
		json_object_set_new(o, "output", json_integer(k));
		json_object_set_new(o, "engine", json_string(v.engine));
		json_object_set_new(o, "args", json_string(v.args));
		json_object_set_new(o, "frames", json_u64(v.frames));
		for (i = 0; i < v.n_values; i++) {
			json_object_set_new(c, v.values[i].name, json_u64(v.values[i].value));
			if (v.values[i].kind <= 1)
				sum[v.values[i].kind] += v.values[i].value;
		}
		json_object_set_new(o, "delivered", json_u64(sum[0]));
		json_object_set_new(o, "dropped", json_u64(sum[1]));
		json_object_set_new(o, "counters", c);
		json_array_append_new(a, o);
	}
	return a;
}

/* A string that is NULL when there is none (an engine of a role the lcore lacks): null then. */
static json_t *
json_str_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

/* ---- placement: the "topology" key, and the pieces --print-placement --json shares ---- */

static json_t *
row_json(const struct mcfan_plan_row *r)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "lcore", json_integer(r->lcore));
	json_object_set_new(o, "role", json_string(mcfan_role_name(r->role)));
	json_object_set_new(o, "cpu", json_int_or_null(r->cpu));
	json_object_set_new(o, "cpus", json_string(r->cpus));
	json_object_set_new(o, "thread", json_int_or_null(r->thread));
	json_object_set_new(o, "core", json_int_or_null(r->core));
	json_object_set_new(o, "processor", json_int_or_null(r->processor));
	json_object_set_new(o, "node", json_int_or_null(r->node));
	return o;
}

json_t *
mcfan_report_map_json(const struct mcfan_sct_map *map)
{
	json_t *arr = json_array(), *o;
	const struct mcfan_sct_cpu *c;
	size_t i;
	int32_t node;

	if (arr == NULL || map == NULL)
		return arr;
	for (i = 0; i < mcfan_sct_count(map); i++) {
		c = mcfan_sct_cpu_at(map, i);
		node = mcfan_sct_cpu_numa_node(c);
		o = json_object();
		json_object_set_new(o, "cpu", json_integer(c->logical));
		json_object_set_new(o, "thread", json_integer(c->thread));
		json_object_set_new(o, "core", json_integer(c->core));
		json_object_set_new(o, "processor", json_integer(c->processor));
		json_object_set_new(o, "node", json_int_or_null(node));
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *
mcfan_report_shared_json(const unsigned int *cpus, const unsigned int *lcores,
			 unsigned int n)
{
	json_t *arr = json_array(), *o;
	unsigned int i;

	for (i = 0; arr != NULL && i < n; i++) {
		o = json_object();
		json_object_set_new(o, "cpu", json_integer(cpus[i]));
		json_object_set_new(o, "lcores", json_integer(lcores[i]));
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *
mcfan_report_rows_json(const struct mcfan_plan_row *rows, unsigned int n)
{
	json_t *arr = json_array();
	unsigned int i;

	for (i = 0; arr != NULL && i < n; i++)
		json_array_append_new(arr, row_json(&rows[i]));
	return arr;
}

json_t *
mcfan_report_topology_json(const struct mcfan_placement_view *v)
{
	json_t *root = json_object(), *rings = json_array(), *ports = json_array();
	json_t *pools = json_array(), *o;
	unsigned int i;
	char *text;

	if (root == NULL || rings == NULL || ports == NULL || pools == NULL)
		goto fail;
	text = mcfan_plan_map_text(v->map, MCFAN_SCT_FORMAT_COMPACT);
	json_object_set_new(root, "map", json_str_or_null(text));
	free(text);
	json_object_set_new(root, "map_source", json_string(v->map_from_option ?
			    "cpu-topology" : "host"));
	json_object_set_new(root, "map_cpus", mcfan_report_map_json(v->map));
	json_object_set_new(root, "bind", v->generated ?
			    json_string(mcfan_sct_bind_name(v->bind)) : json_null());
	json_object_set_new(root, "bind_erlang", v->generated ?
			    json_string(mcfan_sct_bind_erlang_name(v->bind)) : json_null());
	json_object_set_new(root, "eal_lcores", v->generated ?
			    json_string(v->lcores_arg) : json_null());
	json_object_set_new(root, "placement", mcfan_report_rows_json(v->rows, v->n_rows));
	json_object_set_new(root, "oversubscribed", mcfan_report_shared_json(v->shared,
			    v->shared_lcores, v->n_shared));
	if (v->has_mempool) {
		o = json_object();
		json_object_set_new(o, "name", json_string(v->mempool));
		json_object_set_new(o, "node", json_integer(v->mempool_node));
		json_object_set_new(o, "socket_asked", json_integer(v->mempool_socket_asked));
		json_array_append_new(pools, o);
	}
	json_object_set_new(root, "mempools", pools);
	for (i = 0; i < v->n_rings; i++) {
		const struct mcfan_placement_ring *r = &v->rings[i];

		o = json_object();
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "node", json_integer(r->node));
		json_object_set_new(o, "rx_lcore", json_integer(r->rx_lcore));
		json_object_set_new(o, "worker_lcore", json_integer(r->worker_lcore));
		json_object_set_new(o, "worker_node", json_integer(r->worker_node));
		json_array_append_new(rings, o);
	}
	json_object_set_new(root, "rings", rings);
	for (i = 0; i < v->n_ports; i++) {
		o = json_object();
		json_object_set_new(o, "port", json_integer(v->ports[i].port));
		json_object_set_new(o, "name", json_string(v->ports[i].name));
		json_object_set_new(o, "node", json_integer(v->ports[i].node));
		json_array_append_new(ports, o);
	}
	json_object_set_new(root, "ports", ports);
	return root;
fail:
	json_decref(root);
	json_decref(rings);
	json_decref(ports);
	json_decref(pools);
	return NULL;
}

/* A port's kernel-side counters into its JSON object o (control/kernel.h): the second
 * conservation line, kernel_packets = ipackets + kernel_drops, per queue too. */
static void
port_kernel_json(json_t *o, const struct mcfan_app *app, uint16_t port,
		 const struct rte_eth_stats *ps)
{
	struct mcfan_kernel_view kv;
	json_t *qs, *q;
	unsigned int i;

	mcfan_kernel_read(app, port, ps, &kv);
	json_object_set_new(o, "rx_queues", json_integer(app->ports[port].nb_rxq));
	json_object_set_new(o, "kernel_source", json_string(kv.source));
	json_object_set_new(o, "interface", kv.ifname[0] == '\0' ? json_null() :
			    json_string(kv.ifname));
	json_object_set_new(o, "interface_state", json_string(kv.if_state));
	json_object_set_new(o, "kernel_packets", json_u64(kv.kernel_packets));
	json_object_set_new(o, "kernel_drops", json_u64(kv.kernel_drops));
	json_object_set_new(o, "rx_packets", kv.have_if ? json_u64(kv.if_rx_packets) :
			    json_null());
	json_object_set_new(o, "rx_dropped", kv.have_if ? json_u64(kv.if_rx_dropped) :
			    json_null());
	if (kv.have_reasm) {
		q = json_object();
		json_object_set_new(q, "fragments", json_u64(kv.reasm_fragments));
		json_object_set_new(q, "reassembled", json_u64(kv.reasm_datagrams));
		json_object_set_new(q, "failed", json_u64(kv.reasm_failed));
		json_object_set_new(o, "kernel_reassembly", q);
	} else {
		json_object_set_new(o, "kernel_reassembly", json_null());
	}
	qs = json_array();
	for (i = 0; qs != NULL && i < kv.n_queues; i++) {
		q = json_object();
		json_object_set_new(q, "queue", json_integer(i));
		json_object_set_new(q, "kernel_packets", json_u64(kv.queue_packets[i]));
		json_object_set_new(q, "kernel_drops", json_u64(kv.queue_drops[i]));
		json_array_append_new(qs, q);
	}
	json_object_set_new(o, "kernel_queues", qs);
}

/* The report's "topology" value; NULL (JSON null) before placement has a table. */
static json_t *
report_topology(struct mcfan_app *app)
{
	struct mcfan_placement_view v;
	json_t *o;

	if (mcfan_placement_view_get(app, &v) < 0)
		return NULL;
	o = mcfan_report_topology_json(&v);
	mcfan_placement_view_put(&v);
	return o;
}

static json_t *
report_json_build(struct mcfan_app *app)
{
	struct mcfan_totals t;
	struct mcfan_worker_view *wv = NULL;
	struct mcfan_group_view *gv = NULL;
	struct mcfan_msacc_row *rows = NULL;
	struct mcfan_msacc_stats ms;
	struct rte_eth_stats ps;
	struct mcfan_latency_view *lv = NULL;
	struct mcfan_idle_view *iv = NULL;
	struct mcfan_lcore_engines eng;
	struct mcfan_engine_view *ev = NULL;
	const struct mcfan_engine_view *v;
	struct mcfan_sched_view sv;
	struct mcfan_overrun_view ov;
	struct mcfan_report_rx rxv = { .rv = NULL, .n = 0 };
	struct mcfan_left_overflow lo;
	uint64_t clear_tsc;
	json_t *root, *drops, *arr, *o, *wl, *states, *lat, *hist, *idle;
	char addr[MCFAN_GROUP_STR_MAX], cpus_text[64];
	unsigned int i, w, s, n_ev;
	int n, ni, nl, k;
	uint16_t port;

	root = json_object();
	wv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*wv));
	gv = calloc(MCFAN_MAX_GROUPS * 2, sizeof(*gv));
	rows = calloc(RTE_MAX_LCORE, sizeof(*rows));
	lv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*lv));
	iv = calloc(RTE_MAX_LCORE, sizeof(*iv));
	ev = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*ev));
	if (root == NULL || wv == NULL || gv == NULL || rows == NULL || lv == NULL || iv == NULL ||
	    ev == NULL || mcfan_report_rx_read(app, &rxv) < 0) {
		json_decref(root);
		root = NULL;
		goto out;
	}
	mcfan_totals_read(app, &t);
	n_ev = mcfan_engines_read(app, ev, app->n_workers);
	json_object_set_new(root, "mcfan_version", json_string(MCFAN_VERSION));
	json_object_set_new(root, "dpdk_version", json_string(rte_version()));
	clear_tsc = mcfan_stats_clear_tsc(app);
	/* the counters' span: from the last clear stats, if any, as the counters below */
	json_object_set_new(root, "duration_s", json_real(counted_s(app)));
	json_object_set_new(root, "run_duration_s", json_real(elapsed_s(app)));
	json_object_set_new(root, "cleared_at_s", clear_tsc == 0 ? json_null() :
			    json_real(at_s(app, clear_tsc)));
	json_object_set_new(root, "fanout",
			    json_string(mcfan_fanout_name(mcfan_live_fanout(&app->live))));
	json_object_set_new(root, "rx_frames", json_u64(t.rx_frames));
	json_object_set_new(root, "rx_bytes", json_u64(t.rx_bytes));
	json_object_set_new(root, "delivered_frames", json_u64(t.delivered_frames));
	json_object_set_new(root, "copies_offered", json_u64(t.copies_offered));
	json_object_set_new(root, "delivered_copies", json_u64(t.delivered_copies));
	drops = json_object();
	for (i = 1; i < MCFAN_DROP_MAX; i++)
		json_object_set_new(drops, mcfan_drop_name(i), json_u64(t.drops[i]));
	json_object_set_new(root, "drops", drops);
	json_object_set_new(root, "mac_mismatch", json_u64(t.mac_mismatch));

	arr = json_array();
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used)
			continue;
		mcfan_port_stats_read(app, port, &ps);
		o = json_object();
		json_object_set_new(o, "port_id", json_integer(port));
		json_object_set_new(o, "name", json_string(app->ports[port].name));
		json_object_set_new(o, "driver", json_string(app->ports[port].driver));
		json_object_set_new(o, "role", json_string(mcfan_port_role_name(app->ports[port].role)));
		json_object_set_new(o, "role_why", json_string(app->ports[port].role_why != NULL ?
							       app->ports[port].role_why : ""));
		json_object_set_new(o, "filter_mode", json_string(app->ports[port].filter_mode));
		json_object_set_new(o, "ipackets", json_u64(ps.ipackets));
		json_object_set_new(o, "imissed", json_u64(ps.imissed));
		json_object_set_new(o, "ierrors", json_u64(ps.ierrors));
		json_object_set_new(o, "rx_nombuf", json_u64(ps.rx_nombuf));
		port_kernel_json(o, app, port, &ps);
		mcfan_report_rx_port_json(&rxv, port, o); /* "rx_frames", "drops" of its pairs */
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "ports", arr);

	arr = json_array();
	n = group_rows_read(app, gv, &k, &lo);
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		o = json_object();
		group_addr(&gv[i].entry->key, addr, sizeof(addr));
		json_object_set_new(o, "group", json_string(addr));
		json_object_set_new(o, "udp_port", gv[i].entry->key.udp_port == 0 ? json_null() :
				    json_integer(gv[i].entry->key.udp_port));
		json_object_set_new(o, "fanout", json_string(mcfan_fanout_name(
			gv[i].entry->fanout)));
		json_object_set_new(o, "frames", json_u64(gv[i].frames));
		json_object_set_new(o, "copies", json_u64(gv[i].copies));
		json_object_set_new(o, "copy_drops", json_u64(gv[i].copy_drops));
		json_object_set_new(o, "bytes", json_u64(gv[i].bytes));
		wl = json_array();
		for (w = 0; w < app->n_workers; w++)
			if (mcfan_bits_test(gv[i].worker_bits, w))
				json_array_append_new(wl, json_integer(app->worker_lcore_ids[w]));
		json_object_set_new(o, "workers", wl);
		/* the engine instance its copies go to (docs/delivery.md "Per-group engines") */
		json_object_set_new(o, "output", json_integer(gv[i].entry->inst));
		json_object_set_new(o, "sources", group_sources_json(app, &gv[i]));
		json_object_set_new(o, "left", json_boolean(gv[i].left));
		json_object_set_new(o, "left_at_s", gv[i].left ?
				    json_real(at_s(app, gv[i].left_tsc)) : json_null());
		/* with --seq: the feed of a group joined now, a left one's final feed */
		mcfan_feed_report_group_json(app, &gv[i], o);
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "groups", arr);
	o = json_object();
	json_object_set_new(o, "groups", json_u64(lo.groups));
	json_object_set_new(o, "frames", json_u64(lo.frames));
	json_object_set_new(o, "copies", json_u64(lo.copies));
	json_object_set_new(o, "copy_drops", json_u64(lo.copy_drops));
	json_object_set_new(o, "bytes", json_u64(lo.bytes));
	json_object_set_new(root, "groups_left_folded", o);
	json_object_set_new(root, "igmp", mcfan_igmp_report_json(app));
	arr = mcfan_feed_report_pairs_json(app); /* A/B pairs, only when there are some */
	if (arr != NULL)
		json_object_set_new(root, "feed_pairs", arr);
	arr = mcfan_readers_report_json(app); /* "readers": engine readers only */
	if (arr != NULL)
		json_object_set_new(root, "readers", arr);

	arr = json_array();
	n = mcfan_workers_read(app, wv);
	nl = mcfan_latency_read(app, lv);
	for (w = 0; n > 0 && w < (unsigned int)n; w++) {
		o = json_object();
		json_object_set_new(o, "lcore", json_integer(wv[w].lcore_id));
		json_object_set_new(o, "frames", json_u64(wv[w].frames));
		json_object_set_new(o, "bytes", json_u64(wv[w].bytes));
		json_object_set_new(o, "enqueued", json_u64(wv[w].enqueued));
		json_object_set_new(o, "ring_drops", json_u64(wv[w].ring_drops));
		json_object_set_new(o, "ring_high_water", json_u64(wv[w].ring_high_water));
		json_object_set_new(o, "ring_size", json_integer(wv[w].ring_size));
		json_array_append_new(arr, o);
		if (w >= (unsigned int)nl)
			continue;
		lat = json_object();
		json_object_set_new(lat, "copies", json_u64(lv[w].copies));
		json_object_set_new(lat, "p50_ns", json_u64(lv[w].p50_ns));
		json_object_set_new(lat, "p99_ns", json_u64(lv[w].p99_ns));
		json_object_set_new(lat, "max_ns", json_u64(lv[w].max_ns));
		hist = json_array();
		for (s = 0; s < MCFAN_LAT_BUCKETS; s++)
			json_array_append_new(hist, json_u64(lv[w].hist[s]));
		json_object_set_new(lat, "hist_log2_ns", hist);
		json_object_set_new(o, "latency", lat);
	}
	json_object_set_new(root, "workers", arr);

	arr = json_array();
	ni = mcfan_idle_read(app, iv, RTE_MAX_LCORE);
	n = mcfan_lcore_rows(app, rows, RTE_MAX_LCORE);
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		if (mcfan_msacc_stats(&rows[i].snap, &ms) < 0)
			continue;
		o = json_object();
		json_object_set_new(o, "lcore", json_integer(rows[i].lcore_id));
		json_object_set_new(o, "cpu", json_integer(mcfan_lcore_cpu(rows[i].lcore_id)));
		/* every CPU it may run on ("0-1" when it floats: --bind u), as /mcfan/lcores */
		mcfan_lcore_cpus(rows[i].lcore_id, cpus_text, sizeof(cpus_text));
		json_object_set_new(o, "cpus", json_string(cpus_text));
		json_object_set_new(o, "role", json_string(mcfan_role_name(rows[i].role)));
		json_object_set_new(o, "busy_pct", json_real(ms.busy_pct));
		json_object_set_new(o, "empty_poll_pct", json_real(ms.empty_poll_pct));
		json_object_set_new(o, "polls", json_u64(ms.polls));
		json_object_set_new(o, "frames", json_u64(ms.frames));
		json_object_set_new(o, "frames_per_poll", json_real(ms.frames_per_poll));
		json_object_set_new(o, "cycles_per_frame", json_real(ms.cycles_per_frame));
		json_object_set_new(o, "wall_cycles", json_u64(ms.wall_cycles));
		states = json_object();
		for (s = 0; s < MCFAN_MS_MAX; s++)
			json_object_set_new(states, mcfan_ms_state_name(s), json_real(ms.pct[s]));
		json_object_set_new(o, "state_pct", states);
		json_object_set_new(o, "sleep_cycles", json_u64(ms.cycles[MCFAN_MS_SLEEP]));
		json_object_set_new(o, "wait_cpu_cycles", json_u64(ms.cycles[MCFAN_MS_WAIT_CPU]));
		if (mcfan_sched_read(app, rows[i].lcore_id, &sv) == 0) {
			json_object_set_new(o, "ctx_switches_voluntary", json_u64(sv.ctx_voluntary));
			json_object_set_new(o, "ctx_switches_involuntary",
					    json_u64(sv.ctx_involuntary));
		}
		json_object_set_new(o, "sleeps", json_u64(ms.sleeps));
		json_object_set_new(o, "wakeups", json_u64(ms.wakeups));
		if (mcfan_overrun_read(app, rows[i].lcore_id, &ov) == 0) {
			json_object_set_new(o, "sleep_overrun", json_u64(ov.total));
			json_object_set_new(o, "sleep_overrun_ring", json_u64(ov.ring));
			json_object_set_new(o, "sleep_overrun_port", json_u64(ov.port));
		}
		mcfan_lcore_engines_read(app, rows[i].lcore_id, &eng);
		json_object_set_new(o, "rx_engine", json_str_or_null(eng.rx));
		json_object_set_new(o, "worker_engine", json_str_or_null(eng.worker));
		/* what takes the copies at the end, as the text's engines line (set engine) */
		v = view_of(ev, n_ev, rows[i].lcore_id);
		json_object_set_new(o, "worker_engine_now", v == NULL ? json_null() :
				    json_string(v->engine));
		json_object_set_new(o, "worker_engine_set", v == NULL ? json_null() :
				    json_boolean(v->mode != MCFAN_ENGINE_MODE_GROUPS));
		json_object_set_new(o, "engine_counters", json_engine_values(app,
								       rows[i].lcore_id));
		json_object_set_new(o, "engine_outputs", json_engine_outputs(app,
								     rows[i].lcore_id));
		json_object_set_new(o, "engine_set_frames",
				    json_u64(mcfan_lcore_sel_frames_cleared(app, rows[i].lcore_id)));
		mcfan_report_rx_lcore_json(&rxv, rows[i].lcore_id, o); /* RX lcores only */
		for (k = 0; k < ni; k++) {
			if (iv[k].lcore_id != rows[i].lcore_id)
				continue;
			idle = json_object();
			json_object_set_new(idle, "policy", json_string(iv[k].policy_text));
			json_object_set_new(idle, "ring_bound_ns", json_u64(iv[k].ring_bound_ns));
			json_object_set_new(idle, "sleep_cap_ns", json_u64(iv[k].sleep_cap_ns));
			json_object_set_new(idle, "rx_max_pps", json_u64(iv[k].rx_max_pps));
			json_object_set_new(idle, "wk_max_pps", json_u64(iv[k].wk_max_pps));
			json_object_set_new(idle, "why", json_string(iv[k].why));
			json_object_set_new(idle, "sched", json_string(iv[k].sched));
			json_object_set_new(idle, "origin", json_string(
				mcfan_idle_origin_name((enum mcfan_idle_origin)iv[k].origin)));
			json_object_set_new(idle, "max_sleep_ns", json_u64(iv[k].max_sleep_ns));
			json_object_set_new(idle, "nice", json_integer(iv[k].nice));
			json_object_set_new(idle, "hosted_by", iv[k].hosted_by < 0 ? json_null() :
					    json_integer(iv[k].hosted_by));
			json_object_set_new(o, "idle", idle);
		}
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "lcores", arr);
	json_object_set_new(root, "tsc_hz", json_u64(app->tsc_hz));
	json_object_set_new(root, "idle_max_sleep_us", json_integer(app->cfg.idle_max_sleep_us));
	json_object_set_new(root, "hosted_workers", json_string(app->hosts_why));
	mcfan_overrun_total(app, &ov);
	json_object_set_new(root, "sleep_overrun", json_u64(ov.total));
	json_object_set_new(root, "sleep_overrun_ring", json_u64(ov.ring));
	json_object_set_new(root, "sleep_overrun_port", json_u64(ov.port));
	json_object_set_new(root, "topology", report_topology(app));
	json_object_set_new(root, "mbufs_total", json_integer(app->pool_size));
	json_object_set_new(root, "mbuf_size", json_integer(app->cfg.mbuf_size));
	json_object_set_new(root, "ring_size", json_integer(app->cfg.ring_size));
	json_object_set_new(root, "ring_size_why", json_string(app->ring_size_why));
	json_object_set_new(root, "mbufs_outside_pool", json_integer(app->mbufs_outside));
	json_object_set_new(root, "mbufs_kept_by_ports_max",
			    json_integer((json_int_t)app->mbufs_kept_max));
out:
	free(wv);
	free(gv);
	free(rows);
	free(lv);
	free(iv);
	free(ev);
	mcfan_report_rx_free(&rxv);
	return root;
}

/* Write the dumped report, each MCFAN_JSON_U64_DUMPED "DIGITS" string (a number above
 * INT64_MAX, telemetry/feed.h) as the bare number. */
static int
report_write(FILE *f, const char *text)
{
	const size_t mark = strlen(MCFAN_JSON_U64_DUMPED);
	const char *p = text, *q;
	size_t n;

	while ((q = strstr(p, MCFAN_JSON_U64_DUMPED)) != NULL) {
		n = strspn(q + mark, "0123456789");
		if (n == 0 || q[mark + n] != '"') {
			/* not a mark of ours: as it is */
			if (fwrite(p, 1, (size_t)(q - p) + mark, f) != (size_t)(q - p) + mark)
				return -1;
			p = q + mark;
			continue;
		}
		if (fwrite(p, 1, (size_t)(q - p), f) != (size_t)(q - p) ||
		    fwrite(q + mark, 1, n, f) != n)
			return -1;
		p = q + mark + n + 1;
	}
	return fputs(p, f) == EOF ? -1 : 0;
}

static int
report_dump(FILE *f, void *arg)
{
	char *text;
	int ret;

	errno = 0;
	text = json_dumps(arg, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	if (text == NULL)
		return -ENOMEM;
	ret = report_write(f, text);
	free(text);
	if (ret == 0 && (f != stdout || fputc('\n', f) != EOF)) /* on stdout: a whole last line */
		return 0;
	return errno != 0 ? -errno : -EIO; /* the write's own reason when stdio kept one */
}

int
mcfan_report_json(struct mcfan_app *app, const char *path)
{
	char err[PATH_MAX + 128];
	json_t *root;
	int ret;

	root = report_json_build(app);
	if (root == NULL) {
		MCFAN_LOG(ERR, "report: out of memory building the JSON report\n");
		return -ENOMEM;
	}
	/* a regular file: a temporary file next to it, then rename: readers never see half;
	 * a FIFO or a device: in place (outfile.h) */
	ret = mcfan_outfile_write(path, app->cfg.report_json_mode, report_dump, root, err,
				  sizeof(err));
	json_decref(root);
	if (ret < 0)
		MCFAN_LOG(ERR, "report: %s\n", err);
	return ret;
}
