/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The /metrics page (metrics.h): the Prometheus text exposition format 0.0.4, or OpenMetrics
 * 1.0.0 text. Every value comes from the read side the report and the /mcfan telemetry use
 * (control/stats.h, kernel.h, idle.h, sched.h); docs/metrics.md lists every family.
 *
 * The two formats differ only in their metadata lines: OpenMetrics names a counter family
 * without its _total suffix and an info family without _info, has UNIT lines and ends with
 * "# EOF"; the text format names each family as its samples are named, and has no info type
 * (a gauge of value 1). Samples are the same bytes in both.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_version.h>

#include "mcfan.h"
#include "mcfan_msacc_window.h"
#include "control/feed.h"
#include "control/idle.h"
#include "control/igmp.h"
#include "control/kernel.h"
#include "control/overrun.h"
#include "control/readers.h"
#include "control/sched.h"
#include "control/stats.h"
#include "metrics/metrics.h"

#define LABELS_MAX 512          /* one sample's label set, with NUL */
#define NS_PER_SEC 1e9 /* ns in a second, as a double */
#define OTHER_GROUP "_other"    /* the label value of the groups past --metrics-max-groups */

enum fam_type { FAM_COUNTER, FAM_GAUGE, FAM_HISTOGRAM, FAM_INFO };

/* The page being written. */
struct expo {
	FILE *f;
	bool om;    /* OpenMetrics */
};

/*
 * A family's metadata. name is the OpenMetrics family name: a counter's without _total, an
 * info's without _info; unit, if not NULL, is the name's last word (seconds, bytes).
 */
static void
family(struct expo *e, const char *name, enum fam_type t, const char *unit, const char *help)
{
	static const char *const om_type[] = {"counter", "gauge", "histogram", "info"};
	static const char *const text_type[] = {"counter", "gauge", "histogram", "gauge"};
	const char *suffix = "";

	if (!e->om && t == FAM_COUNTER)
		suffix = "_total";
	else if (!e->om && t == FAM_INFO)
		suffix = "_info";
	fprintf(e->f, "# HELP %s%s %s\n", name, suffix, help);
	fprintf(e->f, "# TYPE %s%s %s\n", name, suffix, e->om ? om_type[t] : text_type[t]);
	if (e->om && unit != NULL)
		fprintf(e->f, "# UNIT %s %s\n", name, unit);
}

/* Append name="value" to a label set, the value escaped as both formats want (\\, \", \n). */
static void
label(char *buf, size_t len, const char *name, const char *value)
{
	size_t n = strlen(buf);
	const char *p;

	if (n + 1 >= len)
		return;
	n += (size_t)snprintf(buf + n, len - n, "%s%s=\"", n == 0 ? "" : ",", name);
	for (p = value; *p != '\0' && n + 3 < len; p++) {
		if (*p == '\\' || *p == '"') {
			buf[n++] = '\\';
			buf[n++] = *p;
		} else if (*p == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
		} else {
			buf[n++] = *p;
		}
	}
	if (n + 1 < len)
		buf[n++] = '"';
	buf[RTE_MIN(n, len - 1)] = '\0';
}

/* Append name="N" for a number. */
static void
label_u(char *buf, size_t len, const char *name, unsigned int v)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", v);
	label(buf, len, name, num);
}

static void
sample_u64(struct expo *e, const char *name, const char *suffix, const char *labels,
	   uint64_t v)
{
	fprintf(e->f, "%s%s%s%s%s %" PRIu64 "\n", name, suffix, labels[0] != '\0' ? "{" : "",
		labels, labels[0] != '\0' ? "}" : "", v);
}

/* One sample with a single numeric label key="N" (per port, per lcore). */
static void
sample_by_u(struct expo *e, const char *name, const char *suffix, const char *key,
	    unsigned int keyval, uint64_t v)
{
	char l[32] = "";

	label_u(l, sizeof(l), key, keyval);
	sample_u64(e, name, suffix, l, v);
}

static void
sample_dbl(struct expo *e, const char *name, const char *suffix, const char *labels, double v)
{
	fprintf(e->f, "%s%s%s%s%s %.15g\n", name, suffix, labels[0] != '\0' ? "{" : "",
		labels, labels[0] != '\0' ? "}" : "", v);
}

/* A counter family with one unlabelled sample. */
static void
counter1(struct expo *e, const char *name, const char *unit, const char *help, uint64_t v)
{
	family(e, name, FAM_COUNTER, unit, help);
	sample_u64(e, name, "_total", "", v);
}

static void
gauge1(struct expo *e, const char *name, const char *unit, const char *help, double v)
{
	family(e, name, FAM_GAUGE, unit, help);
	sample_dbl(e, name, "", "", v);
}

static void
put_info(struct expo *e, struct mcfan_app *app)
{
	const char *rd = rte_eal_get_runtime_dir(), *prefix = strrchr(rd, '/');
	char l[LABELS_MAX] = "";

	/* EAL's runtime directory is <base>/<--file-prefix> */
	prefix = prefix != NULL ? prefix + 1 : rd;
	family(e, "mcfan", FAM_INFO, NULL, "mcfan and DPDK versions and the EAL --file-prefix "
	       "(value 1)");
	label(l, sizeof(l), "version", MCFAN_VERSION);
	label(l, sizeof(l), "dpdk_version", rte_version());
	label(l, sizeof(l), "file_prefix", prefix);
	sample_u64(e, "mcfan", "_info", l, 1);
	gauge1(e, "process_start_time_seconds", "seconds", "Start time of the process since "
	       "unix epoch in seconds", app->start_time_s);
	gauge1(e, "mcfan_uptime_seconds", "seconds", "Time since the data lcores were launched "
	       "(up to the stop once stopped)",
	       app->start_tsc == 0 ? 0 : (double)((app->stop_tsc != 0 ? app->stop_tsc :
	       rte_rdtsc()) - app->start_tsc) / (double)app->tsc_hz);
	gauge1(e, "mcfan_rx_running", NULL, "1 while the RX lcores poll (launched, not held by "
	       "the console's stop, no stop of mcfan requested), else 0",
	       mcfan_atomic_u32_load(&app->live.phase, memory_order_acquire) ==
	       MCFAN_PHASE_RUN && !mcfan_live_rx_paused(&app->live) &&
	       !mcfan_live_quitting(&app->live) ? 1 : 0);
	gauge1(e, "mcfan_msacc_enabled", NULL, "1 while microstate accounting of the data lcores "
	       "is on", mcfan_live_msacc(&app->live) ? 1 : 0);
}

/* The conservation lines: rx = delivered + drops, copies offered = delivered + ring full. */
static void
put_totals(struct expo *e, struct mcfan_app *app)
{
	struct mcfan_totals t;
	char l[LABELS_MAX];
	unsigned int k;

	mcfan_totals_read_since(app, &t, MCFAN_SINCE_START);
	counter1(e, "mcfan_rx_frames", NULL, "Frames returned by rx_burst on every port (all RX "
		 "lcores): delivered + dropped", t.rx_frames);
	counter1(e, "mcfan_rx_bytes", "bytes", "Bytes of those frames (pkt_len)", t.rx_bytes);
	counter1(e, "mcfan_delivered_frames", NULL, "Frames with at least one copy enqueued to "
		 "a worker ring", t.delivered_frames);
	counter1(e, "mcfan_copies_offered", NULL, "Copies classified for enqueue (one per "
		 "target worker)", t.copies_offered);
	counter1(e, "mcfan_delivered_copies", NULL, "Copies enqueued to worker rings",
		 t.delivered_copies);
	counter1(e, "mcfan_mac_mismatch_frames", NULL, "Frames delivered whose destination MAC "
		 "is not their group's multicast MAC (counted, not dropped)", t.mac_mismatch);
	family(e, "mcfan_dropped_frames", FAM_COUNTER, NULL, "Frames dropped, by drop reason "
	       "(docs/guide.md)");
	for (k = 1; k < MCFAN_DROP_MAX; k++) {
		l[0] = '\0';
		label(l, sizeof(l), "reason", mcfan_drop_name(k));
		sample_u64(e, "mcfan_dropped_frames", "_total", l, t.drops[k]);
	}
}

/*
 * Frames and drops where they arise: per RX lcore (every drop reason is decided on the RX
 * side: classifier reasons, unknown_group, ring_full, control), and per port, exactly: the
 * RX lcores count each (port, RX queue) pair's frames and drops apart too (mcfan_rx_stats
 * pair[]), and a port's drops are the sum over its pairs, whichever lcores poll them.
 */
static int
put_rx_lcores(struct expo *e, struct mcfan_app *app)
{
	uint64_t frames, pd[MCFAN_DROP_MAX];
	struct mcfan_rx_lcore_view *rv;
	char l[LABELS_MAX];
	unsigned int r, i, k;
	uint16_t port;
	int n;

	rv = calloc(RTE_MAX(app->n_rx, 1u), sizeof(*rv));
	if (rv == NULL)
		return -ENOMEM;
	n = mcfan_rx_lcores_read_since(app, rv, app->n_rx, MCFAN_SINCE_START);
	if (n < 0)
		n = 0;
	family(e, "mcfan_rx_pair", FAM_INFO, NULL, "A (port, RX queue) pair and the RX lcore "
	       "that polls it (value 1)");
	for (r = 0; r < (unsigned int)n; r++)
		for (i = 0; i < rv[r].n_ports; i++) {
			l[0] = '\0';
			label_u(l, sizeof(l), "lcore", rv[r].lcore_id);
			label_u(l, sizeof(l), "port", rv[r].ports[i]);
			label_u(l, sizeof(l), "queue", rv[r].queues[i]);
			sample_u64(e, "mcfan_rx_pair", "_info", l, 1);
		}
#define RXL_FAM(fname, unit, help, expr) do { \
	family(e, fname, FAM_COUNTER, unit, help); \
	for (r = 0; r < (unsigned int)n; r++) { \
		l[0] = '\0'; \
		label_u(l, sizeof(l), "lcore", rv[r].lcore_id); \
		sample_u64(e, fname, "_total", l, (expr)); \
	} \
} while (0)
	RXL_FAM("mcfan_rx_lcore_rx_frames", NULL, "Frames the RX lcore's rx_bursts returned "
		"(all its ports)", rv[r].rx_frames);
	RXL_FAM("mcfan_rx_lcore_rx_bytes", "bytes", "Bytes of those frames (pkt_len)",
		rv[r].rx_bytes);
	RXL_FAM("mcfan_rx_lcore_delivered_frames", NULL, "Frames of the RX lcore with at least "
		"one copy enqueued to a worker ring", rv[r].delivered_frames);
#undef RXL_FAM
	family(e, "mcfan_rx_lcore_dropped_frames", FAM_COUNTER, NULL, "Frames the RX lcore "
	       "dropped, by drop reason (summed over the RX lcores: mcfan_dropped_frames_total)");
	for (r = 0; r < (unsigned int)n; r++)
		for (k = 1; k < MCFAN_DROP_MAX; k++) {
			l[0] = '\0';
			label_u(l, sizeof(l), "lcore", rv[r].lcore_id);
			label(l, sizeof(l), "reason", mcfan_drop_name(k));
			sample_u64(e, "mcfan_rx_lcore_dropped_frames", "_total", l, rv[r].drops[k]);
		}
	family(e, "mcfan_port_dropped_frames", FAM_COUNTER, NULL, "Frames received on the port "
	       "and dropped by mcfan, by drop reason (summed over the ports: "
	       "mcfan_dropped_frames_total)");
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		/* the sum over every (port, queue) pair of it, whichever lcore polls it */
		if (!mcfan_rx_port_sum(rv, (unsigned int)n, port, &frames, pd))
			continue;
		for (k = 1; k < MCFAN_DROP_MAX; k++) {
			l[0] = '\0';
			label_u(l, sizeof(l), "port", port);
			label(l, sizeof(l), "reason", mcfan_drop_name(k));
			sample_u64(e, "mcfan_port_dropped_frames", "_total", l, pd[k]);
		}
	}
	free(rv);
	return 0;
}

/* One port's counters, read once for every family. */
struct port_read {
	uint16_t port;
	struct rte_eth_stats ps;
	struct mcfan_kernel_view kv;
};

/* Which ports a port counter has series for. */
enum port_set {
	PORTS_ALL,    /* every port */
	PORTS_KERNEL, /* ports with a kernel source */
	PORTS_REASM,  /* net_af_packet ports: the kernel's IPv4 reassembly before them */
};

static void
port_counter(struct expo *e, const struct port_read *pr, unsigned int n, const char *name,
	     const char *unit, const char *help, size_t off, enum port_set which)
{
	char l[LABELS_MAX];
	unsigned int i;
	uint64_t v;

	family(e, name, FAM_COUNTER, unit, help);
	for (i = 0; i < n; i++) {
		if ((which == PORTS_KERNEL && strcmp(pr[i].kv.source, "none") == 0) ||
		    (which == PORTS_REASM && !pr[i].kv.have_reasm))
			continue;
		memcpy(&v, (const char *)&pr[i] + off, sizeof(v));
		l[0] = '\0';
		label_u(l, sizeof(l), "port", pr[i].port);
		sample_u64(e, name, "_total", l, v);
	}
}

/* The port counter families, in the page's order. */
static const struct {
	const char *name, *unit, *help;
	size_t off;
	enum port_set which;
} port_fams[] = {
	{"mcfan_port_rx_frames", NULL, "Frames the port received (ethdev ipackets)",
	 offsetof(struct port_read, ps.ipackets), PORTS_ALL},
	{"mcfan_port_rx_bytes", "bytes", "Bytes the port received (ethdev ibytes)",
	 offsetof(struct port_read, ps.ibytes), PORTS_ALL},
	{"mcfan_port_rx_missed_frames", NULL, "Frames the port dropped for want of RX "
	 "descriptors (ethdev imissed)", offsetof(struct port_read, ps.imissed), PORTS_ALL},
	{"mcfan_port_rx_error_frames", NULL, "Erroneous frames (ethdev ierrors)",
	 offsetof(struct port_read, ps.ierrors), PORTS_ALL},
	{"mcfan_port_rx_nombuf", NULL, "RX mbuf allocation failures (ethdev rx_nombuf)",
	 offsetof(struct port_read, ps.rx_nombuf), PORTS_ALL},
	{"mcfan_port_kernel_frames", NULL, "Frames that reached the port's kernel sockets or "
	 "queue, dropped ones included (ports with a kernel source only)",
	 offsetof(struct port_read, kv.kernel_packets), PORTS_KERNEL},
	{"mcfan_port_kernel_dropped_frames", NULL, "Frames the kernel dropped before the PMD saw "
	 "them (ports with a kernel source only)", offsetof(struct port_read, kv.kernel_drops),
	 PORTS_KERNEL},
	{"mcfan_port_kernel_reassembly_fragments", NULL, "IPv4 fragments the kernel took for "
	 "reassembly before the port's sockets (net_af_packet ports; the network namespace's "
	 "count, every socket's)", offsetof(struct port_read, kv.reasm_fragments), PORTS_REASM},
	{"mcfan_port_kernel_reassembled_datagrams", NULL, "IPv4 datagrams the kernel reassembled "
	 "(net_af_packet ports; the namespace's)", offsetof(struct port_read, kv.reasm_datagrams),
	 PORTS_REASM},
	{"mcfan_port_kernel_reassembly_failed_datagrams", NULL, "IPv4 reassemblies that failed, "
	 "their fragments never reaching mcfan (net_af_packet ports; the namespace's)",
	 offsetof(struct port_read, kv.reasm_failed), PORTS_REASM},
};

static int
put_ports(struct expo *e, struct mcfan_app *app)
{
	struct port_read *pr;
	char l[LABELS_MAX];
	unsigned int i, n = 0;
	size_t f;
	uint16_t port;

	pr = calloc(RTE_MAX_ETHPORTS, sizeof(*pr));
	if (pr == NULL)
		return -ENOMEM;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used)
			continue;
		pr[n].port = port;
		mcfan_port_stats_read_since(app, port, &pr[n].ps, MCFAN_SINCE_START);
		mcfan_kernel_read_since(app, port, &pr[n].ps, &pr[n].kv, true);
		n++;
	}
	family(e, "mcfan_port", FAM_INFO, NULL, "A port of mcfan: name, driver, role (rx: "
	       "polled, or output: a tx output only), multicast filter mode and where its "
	       "kernel-side drops come from (value 1)");
	for (i = 0; i < n; i++) {
		const struct mcfan_port *p = &app->ports[pr[i].port];

		l[0] = '\0';
		label_u(l, sizeof(l), "port", pr[i].port);
		label(l, sizeof(l), "name", p->name);
		label(l, sizeof(l), "driver", p->driver);
		label(l, sizeof(l), "role", mcfan_port_role_name(p->role));
		label(l, sizeof(l), "filter_mode", p->filter_mode);
		label(l, sizeof(l), "kernel_source", pr[i].kv.source);
		sample_u64(e, "mcfan_port", "_info", l, 1);
	}
	for (f = 0; f < RTE_DIM(port_fams); f++)
		port_counter(e, pr, n, port_fams[f].name, port_fams[f].unit, port_fams[f].help,
			     port_fams[f].off, port_fams[f].which);
	free(pr);
	return 0;
}

/* One group's series (or the sum of the groups past the cap). */
struct group_sum {
	uint64_t frames, copies, copy_drops, bytes;
};

static void
group_label(const struct mcfan_group_view *g, char *l, size_t len)
{
	char text[MCFAN_GROUP_STR_MAX];

	if (mcfan_group_format(&g->entry->key, text, sizeof(text)) < 0)
		snprintf(text, sizeof(text), "invalid");
	l[0] = '\0';
	label(l, len, "group", text);
}

static int
put_groups(struct expo *e, struct mcfan_app *app)
{
	static const struct {
		const char *name;
		const char *unit;
		const char *help;
		size_t off;
	} fams[] = {
		{"mcfan_group_frames", NULL, "Frames of the group received (RX lcores)",
		 offsetof(struct group_sum, frames)},
		{"mcfan_group_copies", NULL, "Copies of the group's frames processed by workers",
		 offsetof(struct group_sum, copies)},
		{"mcfan_group_copy_drops", NULL, "Copies of the group's frames refused by full "
		 "worker rings", offsetof(struct group_sum, copy_drops)},
		{"mcfan_group_bytes", "bytes", "Bytes of the copies processed",
		 offsetof(struct group_sum, bytes)},
	};
	struct mcfan_group_view *gv;
	struct mcfan_left_overflow left;
	struct group_sum *gs, other;
	char l[LABELS_MAX];
	unsigned int i, f, shown = 0;
	uint64_t v;
	int n;

	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	gs = calloc(MCFAN_MAX_GROUPS, sizeof(*gs));
	if (gv == NULL || gs == NULL) {
		free(gv);
		free(gs);
		return -ENOMEM;
	}
	/* _other: the joined groups without series of their own, and those left since the
	 * start, so that it never goes back; every count since the group's join, not moved by
	 * a clear stats (stats.h, docs/metrics.md) */
	n = mcfan_groups_series_read_since(app, gv, MCFAN_MAX_GROUPS, &left, MCFAN_SINCE_START);
	if (n < 0) {
		/* no page rather than one whose _other went back */
		free(gv);
		free(gs);
		return n;
	}
	other = (struct group_sum){left.frames, left.copies, left.copy_drops, left.bytes};
	for (i = 0; i < (unsigned int)n; i++) {
		if (!gv[i].own_series) {
			other.frames += gv[i].frames;
			other.copies += gv[i].copies;
			other.copy_drops += gv[i].copy_drops;
			other.bytes += gv[i].bytes;
			continue;
		}
		/* the shown groups first, in group-table order */
		gv[shown] = gv[i];
		gv[shown].entry = &gv[shown].entry_copy;
		gs[shown++] = (struct group_sum){gv[i].frames, gv[i].copies, gv[i].copy_drops,
						 gv[i].bytes};
	}
	gauge1(e, "mcfan_groups", NULL, "Groups joined now", n);
	/* no double quote in a HELP text: OpenMetrics allows it only escaped, 0.0.4 not at all */
	gauge1(e, "mcfan_groups_shown", NULL, "Groups with series of their own (at most "
	       "--metrics-max-groups; the others are summed under group _other)", shown);
	family(e, "mcfan_group", FAM_INFO, NULL, "A group with series of its own and its fan-out "
	       "(value 1)");
	for (i = 0; i < shown; i++) {
		group_label(&gv[i], l, sizeof(l));
		label(l, sizeof(l), "fanout", mcfan_fanout_name(gv[i].entry->fanout));
		sample_u64(e, "mcfan_group", "_info", l, 1);
	}
	for (f = 0; f < RTE_DIM(fams); f++) {
		family(e, fams[f].name, FAM_COUNTER, fams[f].unit, fams[f].help);
		for (i = 0; i < shown; i++) {
			group_label(&gv[i], l, sizeof(l));
			memcpy(&v, (const char *)&gs[i] + fams[f].off, sizeof(v));
			sample_u64(e, fams[f].name, "_total", l, v);
		}
		if ((unsigned int)n > shown || left.groups > 0) {
			l[0] = '\0';
			label(l, sizeof(l), "group", OTHER_GROUP);
			memcpy(&v, (const char *)&other + fams[f].off, sizeof(v));
			sample_u64(e, fams[f].name, "_total", l, v);
		}
	}
	free(gv);
	free(gs);
	return 0;
}

/* Feed quality of the groups with a sequence extractor (docs/feed.md), capped like the
 * groups: those with a place of their own (control/feed.h) in their own series, the counters
 * of the rest, and of the states of _other gone since the clear, summed under
 * group="_other" (jitter is not summed). */
static int
put_feed(struct expo *e, struct mcfan_app *app)
{
	static const struct {
		const char *name;
		const char *help;
		size_t off;
	} fams[] = {
		{"mcfan_feed_expected", "Sequence numbers the sender sent (each session's first to "
		 "its highest)", offsetof(struct mcfan_feed_counters, expected)},
		{"mcfan_feed_received", "Sequence numbers received, once each",
		 offsetof(struct mcfan_feed_counters, received)},
		{"mcfan_feed_lost", "Missing sequence numbers whose reorder window ran out",
		 offsetof(struct mcfan_feed_counters, lost)},
		{"mcfan_feed_late", "Sequence numbers that came after they were counted lost",
		 offsetof(struct mcfan_feed_counters, late)},
		{"mcfan_feed_reordered", "Sequence numbers that came late inside the window",
		 offsetof(struct mcfan_feed_counters, reordered)},
		{"mcfan_feed_duplicates", "Sequence numbers received again",
		 offsetof(struct mcfan_feed_counters, duplicates)},
		{"mcfan_feed_gaps", "Gap events (runs of missing numbers)",
		 offsetof(struct mcfan_feed_counters, gaps)},
		{"mcfan_feed_resets", "Sequence restarts",
		 offsetof(struct mcfan_feed_counters, resets)},
		{"mcfan_feed_sessions", "Session changes (RTP SSRC, MoldUDP64 session, new iperf2 "
		 "test)", offsetof(struct mcfan_feed_counters, sessions)},
		{"mcfan_feed_malformed", "Datagrams too short or not of the kind (not counted in "
		 "the rest)", offsetof(struct mcfan_feed_counters, malformed)},
	};
	struct mcfan_feed_view *fv;
	struct mcfan_feed_gone gone;
	struct mcfan_feed_counters other;
	char l[LABELS_MAX], text[MCFAN_GROUP_STR_MAX];
	unsigned int i, f, n, shown = 0;
	uint64_t v, w, other_pending = 0;

	fv = calloc(MCFAN_MAX_GROUPS, sizeof(*fv));
	if (fv == NULL)
		return -ENOMEM;
	/* since the start: clear stats does not move a counter of the page */
	n = mcfan_feed_series_read_since(app, fv, MCFAN_MAX_GROUPS, &gone, true);
	other = gone.c;
	for (i = 0; i < n; i++) {
		if (fv[i].own_series) {
			fv[shown++] = fv[i]; /* the shown groups first, in slot order */
			continue;
		}
		other_pending += fv[i].c.pending; /* of groups joined now only: a gauge */
		for (f = 0; f < RTE_DIM(fams); f++) {
			memcpy(&v, (const char *)&fv[i].c + fams[f].off, sizeof(v));
			memcpy(&w, (const char *)&other + fams[f].off, sizeof(w));
			w += v;
			memcpy((char *)&other + fams[f].off, &w, sizeof(w));
		}
	}
#define FEED_LABELS(k) do { \
	if (mcfan_group_format(&fv[k].key, text, sizeof(text)) < 0) \
		snprintf(text, sizeof(text), "invalid"); \
	l[0] = '\0'; \
	label(l, sizeof(l), "group", text); \
} while (0)
	family(e, "mcfan_feed", FAM_INFO, NULL, "A group with a sequence extractor: its kind "
	       "and the worker lcore that tracks it (value 1)");
	for (i = 0; i < shown; i++) {
		FEED_LABELS(i);
		label(l, sizeof(l), "kind", fv[i].kind);
		label_u(l, sizeof(l), "lcore", fv[i].lcore);
		sample_u64(e, "mcfan_feed", "_info", l, 1);
	}
	for (f = 0; f < RTE_DIM(fams); f++) {
		family(e, fams[f].name, FAM_COUNTER, NULL, fams[f].help);
		for (i = 0; i < shown; i++) {
			FEED_LABELS(i);
			memcpy(&v, (const char *)&fv[i].c + fams[f].off, sizeof(v));
			sample_u64(e, fams[f].name, "_total", l, v);
		}
		if (n > shown || gone.states > 0) {
			l[0] = '\0';
			label(l, sizeof(l), "group", OTHER_GROUP);
			memcpy(&v, (const char *)&other + fams[f].off, sizeof(v));
			sample_u64(e, fams[f].name, "_total", l, v);
		}
	}
	/* pending goes down as missing numbers come or settle: a gauge (at rest expected =
	 * received - late + lost + pending) */
	family(e, "mcfan_feed_pending", FAM_GAUGE, NULL, "Missing sequence numbers still inside "
	       "the reorder window (they may still come)");
	for (i = 0; i < shown; i++) {
		FEED_LABELS(i);
		sample_u64(e, "mcfan_feed_pending", "", l, fv[i].c.pending);
	}
	if (n > shown || gone.states > 0) {
		l[0] = '\0';
		label(l, sizeof(l), "group", OTHER_GROUP);
		sample_u64(e, "mcfan_feed_pending", "", l, other_pending);
	}
	family(e, "mcfan_feed_jitter_seconds", FAM_GAUGE, "seconds", "RFC 3550 6.4.1 "
	       "interarrival jitter of the group now");
	for (i = 0; i < shown; i++) {
		FEED_LABELS(i);
		sample_dbl(e, "mcfan_feed_jitter_seconds", "", l, fv[i].c.jitter_ns / NS_PER_SEC);
	}
#undef FEED_LABELS
	free(fv);
	return 0;
}

/* A/B pairs of feed lines (docs/feed.md), at most MCFAN_FEED_PAIRS_MAX: per pair the
 * arbitrated stream, per line its share and its skew against the other line. */
static int
put_feed_pairs(struct expo *e, struct mcfan_app *app)
{
	static const struct {
		const char *name;
		const char *help;
		size_t off;
	} lfams[] = {
		{"mcfan_feed_pair_first_arrivals", "Sequence numbers this line delivered first",
		 offsetof(struct mcfan_feed_line, first_arrivals)},
		{"mcfan_feed_pair_lost", "Settled sequence numbers this line never delivered",
		 offsetof(struct mcfan_feed_line, missed)},
		{"mcfan_feed_pair_arb_duplicates", "Sequence numbers this line delivered after the "
		 "other line", offsetof(struct mcfan_feed_line, arb_duplicates)},
	};
	static const struct {
		const char *name;
		const char *help;
		size_t off;
	} mfams[] = {
		{"mcfan_feed_pair_expected", "Sequence numbers of the arbitrated stream (both lines)",
		 offsetof(struct mcfan_feed_counters, expected)},
		{"mcfan_feed_pair_received", "Sequence numbers the arbitrated stream received",
		 offsetof(struct mcfan_feed_counters, received)},
		{"mcfan_feed_pair_merged_lost", "Sequence numbers lost on both lines",
		 offsetof(struct mcfan_feed_counters, lost)},
	};
	static const struct {
		const char *name;
		const char *help;
		unsigned int permille; /* 0: the maximum */
	} sfams[] = {
		{"mcfan_feed_pair_skew_p50_seconds", "Median of how much later than the other line "
		 "this line delivered the numbers it delivered later", 500},
		{"mcfan_feed_pair_skew_p99_seconds", "99th percentile of that lateness", 990},
		{"mcfan_feed_pair_skew_max_seconds", "Largest such lateness", 0},
	};
	struct mcfan_feed_pair_view *pv;
	char l[LABELS_MAX], a[MCFAN_GROUP_STR_MAX], b[MCFAN_GROUP_STR_MAX];
	char pair[2 * MCFAN_GROUP_STR_MAX + 2];
	unsigned int n, i, k, f, sign;
	uint64_t v;

	pv = calloc(MCFAN_FEED_PAIRS_MAX, sizeof(*pv));
	if (pv == NULL)
		return -ENOMEM;
	n = mcfan_feed_pairs_read_since(app, pv, MCFAN_FEED_PAIRS_MAX, true);
#define PAIR_LABELS(i) do { \
	if (mcfan_group_format(&pv[i].key[0], a, sizeof(a)) < 0) \
		snprintf(a, sizeof(a), "invalid"); \
	if (mcfan_group_format(&pv[i].key[1], b, sizeof(b)) < 0) \
		snprintf(b, sizeof(b), "invalid"); \
	snprintf(pair, sizeof(pair), "%s,%s", a, b); \
	l[0] = '\0'; \
	label(l, sizeof(l), "pair", pair); \
} while (0)
#define LINE_LABELS(i, k) do { \
	PAIR_LABELS(i); \
	label(l, sizeof(l), "line", (k) == 0 ? "A" : "B"); \
	label(l, sizeof(l), "group", (k) == 0 ? a : b); \
} while (0)
	family(e, "mcfan_feed_pair", FAM_INFO, NULL, "An A/B pair of feed lines (pair: line A's "
	       "group, line B's) and the worker lcore that arbitrates it (value 1)");
	for (i = 0; i < n; i++) {
		PAIR_LABELS(i);
		label_u(l, sizeof(l), "lcore", pv[i].lcore);
		sample_u64(e, "mcfan_feed_pair", "_info", l, 1);
	}
	for (f = 0; f < RTE_DIM(mfams); f++) {
		family(e, mfams[f].name, FAM_COUNTER, NULL, mfams[f].help);
		for (i = 0; i < n; i++) {
			PAIR_LABELS(i);
			memcpy(&v, (const char *)&pv[i].c.merged + mfams[f].off, sizeof(v));
			sample_u64(e, mfams[f].name, "_total", l, v);
		}
	}
	for (f = 0; f < RTE_DIM(lfams); f++) {
		family(e, lfams[f].name, FAM_COUNTER, NULL, lfams[f].help);
		for (i = 0; i < n; i++)
			for (k = 0; k < 2; k++) {
				LINE_LABELS(i, k);
				memcpy(&v, (const char *)&pv[i].c.line[k] + lfams[f].off, sizeof(v));
				sample_u64(e, lfams[f].name, "_total", l, v);
			}
	}
	for (f = 0; f < RTE_DIM(sfams); f++) {
		family(e, sfams[f].name, FAM_GAUGE, "seconds", sfams[f].help);
		for (i = 0; i < n; i++)
			for (k = 0; k < 2; k++) {
				/* line A's lateness is the "B earlier" side, line B's "B later"
				 * (as the report's skew_p50_ns of each line) */
				sign = k == 0 ? 1 : 0;
				LINE_LABELS(i, k);
				v = sfams[f].permille == 0 ? pv[i].c.skew_max_ns[sign] :
				    mcfan_feed_skew_quantile_ns(pv[i].c.skew_hist[sign],
								pv[i].c.skew_max_ns[sign],
								sfams[f].permille);
				sample_dbl(e, sfams[f].name, "", l, (double)v / NS_PER_SEC);
			}
	}
#undef LINE_LABELS
#undef PAIR_LABELS
	free(pv);
	return 0;
}

/* The IGMP and MLD host side per port and protocol (control/igmp.h, docs/igmp.md); the
 * membership per group capped at --metrics-max-groups per port and protocol, the rest
 * counted per state under group="_other". */
static int
put_igmp(struct expo *e, struct mcfan_app *app)
{
	static const char *const pname[2] = {"igmp", "mld"};
	static const char *const qkind[3] = {"general", "group", "source"};
	struct mcfan_igmp_port_view *pv;
	struct mcfan_igmp_group_view *gv;
	struct mcfan_igmp_totals tot = {0};
	char l[LABELS_MAX], a[MCFAN_IGMP_ADDR_STR];
	unsigned int n, i, k, v, x, vmax, cap = app->cfg.metrics_max_groups;
	const uint64_t *arr;
	int ng, j, m;

	pv = calloc(RTE_MAX_ETHPORTS, sizeof(*pv));
	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	if (pv == NULL || gv == NULL) {
		free(pv);
		free(gv);
		return -ENOMEM;
	}
	/* since the start: clear stats does not move a counter of the page */
	n = mcfan_igmp_read_since(app, pv, RTE_MAX_ETHPORTS, &tot, true);
	counter1(e, "mcfan_igmp_dequeued_frames", NULL, "IGMP and MLD frames the control lcore "
		 "took from the RX lcores' control rings", tot.dequeued);
	counter1(e, "mcfan_igmp_unknown_port_frames", NULL, "Of those, frames of a port mcfan "
		 "does not use", tot.unknown_port);
#define PP_LABELS(i, k) do { \
	l[0] = '\0'; \
	label_u(l, sizeof(l), "port", pv[i].port); \
	label(l, sizeof(l), "proto", pname[k]); \
} while (0)
	family(e, "mcfan_igmp_tx_frames", FAM_COUNTER, NULL, "IGMP and MLD frames sent on the "
	       "port (TX queue 0)");
	for (i = 0; i < n; i++) {
		sample_by_u(e, "mcfan_igmp_tx_frames", "_total", "port", pv[i].port,
			    pv[i].tx_frames);
	}
	family(e, "mcfan_igmp_tx_failed_frames", FAM_COUNTER, NULL, "IGMP and MLD frames the TX "
	       "queue or the pool refused (freed)");
	for (i = 0; i < n; i++) {
		sample_by_u(e, "mcfan_igmp_tx_failed_frames", "_total", "port", pv[i].port,
			    pv[i].tx_failed);
	}
	family(e, "mcfan_igmp_version", FAM_GAUGE, NULL, "Version the host speaks now on the "
	       "port (IGMP 2 or 3, MLD 1 or 2; 0: off)");
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			PP_LABELS(i, k);
			sample_u64(e, "mcfan_igmp_version", "", l, pv[i].proto[k].version);
		}
	family(e, "mcfan_igmp_querier_version", FAM_GAUGE, NULL, "Version of the last query "
	       "seen on the port (0: no query seen)");
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			PP_LABELS(i, k);
			sample_u64(e, "mcfan_igmp_querier_version", "", l,
				   pv[i].proto[k].have_querier ? pv[i].proto[k].querier_version : 0);
		}
	family(e, "mcfan_igmp_querier_age_seconds", FAM_GAUGE, "seconds", "Time since the last "
	       "query (ports and protocols that saw one)");
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			if (!pv[i].proto[k].have_querier)
				continue;
			PP_LABELS(i, k);
			sample_dbl(e, "mcfan_igmp_querier_age_seconds", "", l,
				   pv[i].proto[k].querier_age_ms / 1e3);
		}
	family(e, "mcfan_igmp_queries_taken", FAM_COUNTER, NULL, "Valid queries taken");
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			PP_LABELS(i, k);
			sample_u64(e, "mcfan_igmp_queries_taken", "_total", l, pv[i].proto[k].taken);
		}
	family(e, "mcfan_igmp_queries", FAM_COUNTER, NULL, "Queries seen, by kind (general, "
	       "group, source: group-and-source-specific) and version of the query");
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			vmax = k == 0 ? 3 : 2;
			for (x = 0; x < RTE_DIM(qkind); x++) {
				arr = x == 0 ? pv[i].proto[k].c.queries_general :
				      x == 1 ? pv[i].proto[k].c.queries_group :
				      pv[i].proto[k].c.queries_source;
				for (v = 1; v <= vmax; v++) {
					PP_LABELS(i, k);
					label(l, sizeof(l), "kind", qkind[x]);
					label_u(l, sizeof(l), "version", v);
					sample_u64(e, "mcfan_igmp_queries", "_total", l, arr[v]);
				}
			}
		}
	for (x = 0; x < 2; x++) {
		const char *fname = x == 0 ? "mcfan_igmp_reports_sent" : "mcfan_igmp_leaves_sent";

		family(e, fname, FAM_COUNTER, NULL, x == 0 ? "Reports sent, by version sent" :
		       "Leaves, Dones and leave state changes sent, by version sent");
		for (i = 0; i < n; i++)
			for (k = 0; k < 2; k++) {
				vmax = k == 0 ? 3 : 2;
				arr = x == 0 ? pv[i].proto[k].c.reports_sent :
				      pv[i].proto[k].c.leaves_sent;
				for (v = 1; v <= vmax; v++) {
					PP_LABELS(i, k);
					label_u(l, sizeof(l), "version", v);
					sample_u64(e, fname, "_total", l, arr[v]);
				}
			}
	}
	family(e, "mcfan_igmp_invalid_frames", FAM_COUNTER, NULL, "Frames not taken, by reason "
	       "(malformed, bad_checksum, wrong_ttl, not_for_us)");
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++)
			for (x = 1; x < MCFAN_IGMP_INVALID_MAX; x++) {
				PP_LABELS(i, k);
				label(l, sizeof(l), "reason", mcfan_igmp_invalid_name(x));
				sample_u64(e, "mcfan_igmp_invalid_frames", "_total", l,
					   pv[i].proto[k].c.invalid[x]);
			}
	family(e, "mcfan_igmp_groups", FAM_GAUGE, NULL, "Groups of the host (joined or "
	       "leaving)");
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			PP_LABELS(i, k);
			sample_u64(e, "mcfan_igmp_groups", "", l, pv[i].proto[k].n_groups);
		}
	family(e, "mcfan_igmp_membership", FAM_GAUGE, NULL, "Groups of the host in a state: 1 "
	       "for each of the first --metrics-max-groups groups, then the number of the "
	       "others in that state under group _other");
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			ng = mcfan_igmp_read_groups(app, pv[i].port, k, gv, MCFAN_MAX_GROUPS);
			for (j = 0; j < ng; j++) {
				if ((unsigned int)j < cap) {
					PP_LABELS(i, k);
					label(l, sizeof(l), "group", mcfan_igmp_addr_format(k == 0 ?
					      MCFAN_IGMP_PROTO_IGMP : MCFAN_IGMP_PROTO_MLD,
					      gv[j].addr, a));
					label(l, sizeof(l), "state", gv[j].state);
					sample_u64(e, "mcfan_igmp_membership", "", l, 1);
					continue;
				}
				/* the first of its state past the cap: count that state's others */
				for (m = (int)cap; m < j; m++)
					if (strcmp(gv[m].state, gv[j].state) == 0)
						break;
				if (m < j)
					continue;
				v = 0;
				for (m = j; m < ng; m++)
					v += strcmp(gv[m].state, gv[j].state) == 0;
				PP_LABELS(i, k);
				label(l, sizeof(l), "group", OTHER_GROUP);
				label(l, sizeof(l), "state", gv[j].state);
				sample_u64(e, "mcfan_igmp_membership", "", l, v);
			}
		}
#undef PP_LABELS
	free(pv);
	free(gv);
	return 0;
}

static int
put_workers(struct expo *e, struct mcfan_app *app)
{
	struct mcfan_worker_view *wv;
	struct mcfan_latency_view *lv;
	char l[LABELS_MAX], le[32];
	unsigned int w, b;
	uint64_t cum;
	int n, nl;

	wv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*wv));
	lv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*lv));
	if (wv == NULL || lv == NULL) {
		free(wv);
		free(lv);
		return -ENOMEM;
	}
	n = mcfan_workers_read_since(app, wv, MCFAN_SINCE_START);
	nl = mcfan_latency_read_since(app, lv, MCFAN_SINCE_START);
	if (n < 0)
		n = 0;
	if (nl < 0)
		nl = 0;
#define WORKER_FAM(fname, type, unit, help, expr) do { \
	family(e, fname, type, unit, help); \
	for (w = 0; w < (unsigned int)n; w++) { \
		l[0] = '\0'; \
		label_u(l, sizeof(l), "lcore", wv[w].lcore_id); \
		sample_u64(e, fname, type == FAM_COUNTER ? "_total" : "", l, (expr)); \
	} \
} while (0)
	WORKER_FAM("mcfan_worker_copies", FAM_COUNTER, NULL, "Copies the worker dequeued and "
		   "processed", wv[w].frames);
	WORKER_FAM("mcfan_worker_bytes", FAM_COUNTER, "bytes", "Bytes of those copies",
		   wv[w].bytes);
	WORKER_FAM("mcfan_worker_enqueued_copies", FAM_COUNTER, NULL, "Copies the RX lcores "
		   "enqueued to the worker's rings", wv[w].enqueued);
	WORKER_FAM("mcfan_worker_ring_full_copies", FAM_COUNTER, NULL, "Copies refused by the "
		   "worker's full rings", wv[w].ring_drops);
	WORKER_FAM("mcfan_worker_ring_high_water_copies", FAM_GAUGE, NULL, "Most copies seen "
		   "waiting in one of the worker's rings since the start", wv[w].ring_high_water);
	WORKER_FAM("mcfan_worker_ring_waiting_copies", FAM_GAUGE, NULL, "Copies waiting in the "
		   "worker's rings now", wv[w].ring_count);
#undef WORKER_FAM

	family(e, "mcfan_rx_to_worker_latency_seconds", FAM_HISTOGRAM, "seconds", "Time from the "
	       "RX burst to the worker's dequeue, per copy (log2 buckets of ns, cumulative; "
	       "_count is the +Inf bucket, _sum the copies' times added up)");
	for (w = 0; w < (unsigned int)nl; w++) {
		cum = 0;
		for (b = 0; b < MCFAN_LAT_BUCKETS; b++) {
			cum += lv[w].hist[b];
			l[0] = '\0';
			label_u(l, sizeof(l), "lcore", lv[w].lcore_id);
			/* bucket b holds 2^b .. 2^(b+1) - 1 ns; the last one everything above */
			if (b + 1 < MCFAN_LAT_BUCKETS)
				snprintf(le, sizeof(le), "%.10g",
					 (double)((UINT64_C(1) << (b + 1)) - 1) / NS_PER_SEC);
			else
				snprintf(le, sizeof(le), "+Inf");
			label(l, sizeof(l), "le", le);
			sample_u64(e, "mcfan_rx_to_worker_latency_seconds", "_bucket", l, cum);
		}
		l[0] = '\0';
		label_u(l, sizeof(l), "lcore", lv[w].lcore_id);
		/* the +Inf bucket and the count from the same read: they must be equal */
		sample_u64(e, "mcfan_rx_to_worker_latency_seconds", "_count", l, cum);
		sample_dbl(e, "mcfan_rx_to_worker_latency_seconds", "_sum", l,
			   (double)lv[w].sum_ns / NS_PER_SEC);
	}
	family(e, "mcfan_rx_to_worker_latency_max_seconds", FAM_GAUGE, "seconds", "Longest RX to "
	       "dequeue time seen since the start");
	for (w = 0; w < (unsigned int)nl; w++) {
		l[0] = '\0';
		label_u(l, sizeof(l), "lcore", lv[w].lcore_id);
		sample_dbl(e, "mcfan_rx_to_worker_latency_max_seconds", "", l,
			   (double)lv[w].max_ns / NS_PER_SEC);
	}
	free(wv);
	free(lv);
	return 0;
}

static int
put_rings(struct expo *e, struct mcfan_app *app)
{
	unsigned int max = RTE_MAX(app->n_rx * app->n_workers, 1u), i;
	struct mcfan_ring_view *rv;
	char l[LABELS_MAX];
	int n;

	rv = calloc(max, sizeof(*rv));
	if (rv == NULL)
		return -ENOMEM;
	n = mcfan_rings_read_since(app, rv, max, MCFAN_SINCE_START);
	if (n < 0)
		n = 0;
#define RING_FAM(fname, type, help, expr) do { \
	family(e, fname, type, NULL, help); \
	for (i = 0; i < (unsigned int)n; i++) { \
		l[0] = '\0'; \
		label_u(l, sizeof(l), "rx_lcore", rv[i].rx_lcore_id); \
		label_u(l, sizeof(l), "worker_lcore", rv[i].worker_lcore_id); \
		sample_u64(e, fname, type == FAM_COUNTER ? "_total" : "", l, (expr)); \
	} \
} while (0)
	RING_FAM("mcfan_ring_enqueued_copies", FAM_COUNTER, "Copies enqueued into the ring from "
		 "RX lcore rx_lcore to worker worker_lcore", rv[i].enqueued);
	RING_FAM("mcfan_ring_full_copies", FAM_COUNTER, "Copies that found the ring full",
		 rv[i].ring_drops);
	RING_FAM("mcfan_ring_occupancy_copies", FAM_GAUGE, "Copies waiting in the ring now",
		 rv[i].count);
	RING_FAM("mcfan_ring_size_copies", FAM_GAUGE, "Slots of the ring", rv[i].size);
#undef RING_FAM
	free(rv);
	return 0;
}

/* The worker engines' own counters (datapath/engine.h counters hook, as the report's
 * engine_outputs[].counters) per worker lcore and engine instance ("output",
 * docs/delivery.md, numbered as show engines and /mcfan/engine_outputs do): copies delivered
 * and dropped by reason, and the other values; indexed by struct mcfan_engine_value's kind
 * (0 delivered, 1 drop, 2 not a copy count). An engine without counters (count) has none. */
static int
put_engines(struct expo *e, struct mcfan_app *app)
{
	static const struct {
		const char *name;
		enum fam_type type;
		const char *key;
		const char *help;
	} fams[] = {
		[0] = {"mcfan_engine_delivered_copies", FAM_COUNTER,
			"counter", "Copies the worker engine output delivered (sent, written), by "
			"counter (output: the engine instance, 0 = --worker-engine)"},
		[1] = {"mcfan_engine_dropped_copies", FAM_COUNTER, "reason",
			"Copies the worker engine output dropped, by drop reason; per lcore and "
			"output, copies in (mcfan_engine_output_copies_total state=in) = its "
			"delivered + its dropped copies once nothing is pending"},
		[2] = {"mcfan_engine_value", FAM_GAUGE, "counter",
			"Other values of the worker engine output (bytes, files, errors, pending, "
			"the output port): not copy counts"},
	};
	struct mcfan_inst_view v;
	char l[LABELS_MAX];
	unsigned int w, k, f;
	int i;

	for (f = 0; f < RTE_DIM(fams); f++) {
		family(e, fams[f].name, fams[f].type, NULL, fams[f].help);
		for (w = 0; w < app->n_workers; w++) {
			unsigned int id = app->worker_lcore_ids[w];

			for (k = 0; k < app->n_inst; k++) {
				if (mcfan_lcore_inst_read(app, id, k, &v) < 0 || !v.own_counters)
					continue;
				for (i = 0; i < v.n_values; i++) {
					if (v.values[i].kind != f)
						continue;
					l[0] = '\0';
					label_u(l, sizeof(l), "lcore", id);
					label_u(l, sizeof(l), "output", k);
					label(l, sizeof(l), "engine", v.engine);
					label(l, sizeof(l), fams[f].key, v.values[i].name);
					sample_u64(e, fams[f].name,
						   fams[f].type == FAM_COUNTER ? "_total" : "", l,
						   v.values[i].value);
				}
			}
		}
	}
	return 0;
}

/* Per worker lcore and engine instance ("output", docs/delivery.md): the copies handed to
 * it, and the sums of its delivered and dropped counters (state in, delivered, dropped). */
static int
put_engine_outputs(struct expo *e, struct mcfan_app *app)
{
	static const char *const states[] = {"delivered", "dropped", "in"};
	static const char *name = "mcfan_engine_output_copies";
	struct mcfan_inst_view v;
	char l[LABELS_MAX];
	uint64_t sum[3];
	unsigned int w, k, st;
	int i;

	family(e, name, FAM_COUNTER, NULL, "Copies per worker lcore and engine instance "
	       "(output; 0 = --worker-engine): in = handed to it, delivered + dropped = in once "
	       "nothing is pending");
	for (w = 0; w < app->n_workers; w++) {
		unsigned int id = app->worker_lcore_ids[w];

		for (k = 0; k < app->n_inst; k++) {
			if (mcfan_lcore_inst_read(app, id, k, &v) < 0)
				continue;
			sum[0] = sum[1] = 0;
			sum[2] = v.frames;
			for (i = 0; i < v.n_values; i++)
				if (v.values[i].kind <= 1)
					sum[v.values[i].kind] += v.values[i].value;
			for (st = 0; st < RTE_DIM(states); st++) {
				l[0] = '\0';
				label_u(l, sizeof(l), "lcore", id);
				label_u(l, sizeof(l), "output", k);
				label(l, sizeof(l), "engine", v.engine);
				label(l, sizeof(l), "state", states[st]);
				sample_u64(e, name, "_total", l, sum[st]);
			}
		}
	}
	return 0;
}

/* The per-reader values summed under reader="_other". */
struct reader_sum {
	uint64_t frames;
	uint64_t lost;
	uint64_t laps;
	uint64_t lag;
};

static void
reader_sum_add(struct reader_sum *s, const struct mcfan_rw_reader_info *x)
{
	s->frames += x->frames;
	s->lost += x->lost;
	s->laps += x->laps;
	s->lag += x->lag;
}

/* The counts of a ring's readers gone (no lag: they wait for no frame). */
static void
reader_sum_gone(struct reader_sum *s, const struct mcfan_readers_gone *g)
{
	s->frames += g->frames;
	s->lost += g->lost;
	s->laps += g->laps;
}

/* Family f's sample of one reader or of a sum of readers, labels l. */
static void
reader_samples(struct expo *e, const char *l, const struct reader_sum *s, unsigned int f)
{
	static const char *const names[] = {"mcfan_reader_frames", "mcfan_reader_lost_frames",
					    "mcfan_reader_lapped", "mcfan_reader_lag_frames"};
	const uint64_t vals[] = {s->frames, s->lost, s->laps, s->lag};

	sample_u64(e, names[f], f < 3 ? "_total" : "", l, vals[f]);
}

/*
 * Reader rings (control/readers.h, docs/readers.md), when a worker runs the readers engine:
 * per ring (capped like the groups: the first --metrics-max-groups rings, the rest summed
 * under group="_other"; rings in creation order, a freed one's series gone: docs/readers.md
 * "A ring's lifetime"), per worker, and per reader: at most
 * --metrics-max-groups readers at once have series of their own (decided when the read side
 * first sees them: mcfan_readers_view own), the others are summed per ring under
 * reader="_other" (those of the rings past the cap under group="_other"), with the counts
 * of such readers that have left (gone), so that no _other counter goes back.
 */
static int
put_readers(struct expo *e, struct mcfan_app *app)
{
	static const struct {
		const char *name;
		enum fam_type type;
		const char *unit;
		const char *help;
	} rfams[] = {
		{"mcfan_reader_ring_written_frames", FAM_COUNTER, NULL, "Frames written into the "
		 "group's reader ring"},
		{"mcfan_reader_ring_bytes", FAM_COUNTER, "bytes", "Their bytes"},
		{"mcfan_reader_ring_too_big_frames", FAM_COUNTER, NULL, "Copies longer than a slot, "
		 "not written (drop reason reader_too_big)"},
		{"mcfan_reader_ring_wakes", FAM_COUNTER, NULL, "FUTEX_WAKE calls of the writer"},
		{"mcfan_reader_ring_waiters", FAM_GAUGE, NULL, "Readers asleep on the ring now"},
		{"mcfan_reader_ring_readers", FAM_GAUGE, NULL, "Readers in the ring's reader "
		 "table (dead ones included)"},
	};
	static const struct {
		const char *name;
		enum fam_type type;
		const char *help;
	} pfams[] = {
		{"mcfan_reader_frames", FAM_COUNTER, "Frames the reader read"},
		{"mcfan_reader_lost_frames", FAM_COUNTER, "Frames the reader lost (lapped by the "
		 "writer)"},
		{"mcfan_reader_lapped", FAM_COUNTER, "Times the reader was lapped"},
		{"mcfan_reader_lag_frames", FAM_GAUGE, "Frames written and not yet read or lost by "
		 "the reader"},
	};
	struct mcfan_readers_worker_view wv[RTE_MAX_LCORE];
	struct mcfan_readers_view *v = NULL;
	struct reader_sum rs, other_rs;
	uint64_t rv[RTE_DIM(rfams)], ov[RTE_DIM(rfams)];
	unsigned int i, j, f, nw = 0, shown, cap = app->cfg.metrics_max_groups;
	unsigned int any_other;
	char l[LABELS_MAX];
	int n;

	n = mcfan_readers_read(app, &v, wv, RTE_DIM(wv), &nw);
	if (n == -ENODEV)
		return 0;
	if (n < 0)
		return n;
	shown = RTE_MIN((unsigned int)n, cap);
	for (f = 0; f < RTE_DIM(rfams); f++) {
		family(e, rfams[f].name, rfams[f].type, rfams[f].unit, rfams[f].help);
		memset(ov, 0, sizeof(ov));
		for (i = 0; i < (unsigned int)n; i++) {
			rv[0] = v[i].written;
			rv[1] = v[i].bytes;
			rv[2] = v[i].too_big;
			rv[3] = v[i].wakes;
			rv[4] = v[i].waiters;
			rv[5] = v[i].n_readers;
			if (i >= shown) {
				ov[f] += rv[f];
				continue;
			}
			l[0] = '\0';
			label(l, sizeof(l), "group", v[i].group);
			label_u(l, sizeof(l), "lcore", v[i].owner_lcore);
			sample_u64(e, rfams[f].name, rfams[f].type == FAM_COUNTER ? "_total" : "", l,
				   rv[f]);
		}
		if ((unsigned int)n > shown) {
			l[0] = '\0';
			label(l, sizeof(l), "group", OTHER_GROUP);
			sample_u64(e, rfams[f].name, rfams[f].type == FAM_COUNTER ? "_total" : "", l,
				   ov[f]);
		}
	}
	family(e, "mcfan_readers_not_owner_copies", FAM_COUNTER, NULL, "Copies of a group whose "
	       "ring another worker writes (replicate: counted, freed, not written)");
	for (i = 0; i < nw; i++) {
		sample_by_u(e, "mcfan_readers_not_owner_copies", "_total", "lcore", wv[i].lcore,
			    wv[i].not_owner);
	}
	family(e, "mcfan_readers_no_ring_copies", FAM_COUNTER, NULL, "Copies of a group without "
	       "a ring (drop reason reader_no_ring)");
	for (i = 0; i < nw; i++) {
		sample_by_u(e, "mcfan_readers_no_ring_copies", "_total", "lcore", wv[i].lcore,
			    wv[i].no_ring);
	}
	for (f = 0; f < RTE_DIM(pfams); f++) {
		family(e, pfams[f].name, pfams[f].type, NULL, pfams[f].help);
		any_other = 0;
		memset(&other_rs, 0, sizeof(other_rs));
		for (i = 0; i < (unsigned int)n; i++) {
			const struct mcfan_readers_gone *g = &v[i].gone;
			bool had = g->frames != 0 || g->lost != 0 || g->laps != 0;
			bool ring_other = i < shown && had;

			memset(&rs, 0, sizeof(rs));
			if (i >= shown) {
				reader_sum_gone(&other_rs, g);
				any_other |= had;
			} else {
				reader_sum_gone(&rs, g);
			}
			for (j = 0; j < v[i].n_readers; j++) {
				const struct mcfan_rw_reader_info *x = &v[i].readers[j];
				struct reader_sum one = {0};

				if (i >= shown) {
					reader_sum_add(&other_rs, x);
					any_other = 1;
					continue;
				}
				if (!v[i].own[j]) {
					reader_sum_add(&rs, x);
					ring_other = true;
					continue;
				}
				reader_sum_add(&one, x);
				l[0] = '\0';
				label(l, sizeof(l), "group", v[i].group);
				label_u(l, sizeof(l), "reader", x->slot);
				label_u(l, sizeof(l), "pid", (unsigned int)x->pid);
				reader_samples(e, l, &one, f);
			}
			if (ring_other) {
				l[0] = '\0';
				label(l, sizeof(l), "group", v[i].group);
				label(l, sizeof(l), "reader", OTHER_GROUP);
				reader_samples(e, l, &rs, f);
			}
		}
		if (any_other) {
			l[0] = '\0';
			label(l, sizeof(l), "group", OTHER_GROUP);
			label(l, sizeof(l), "reader", OTHER_GROUP);
			reader_samples(e, l, &other_rs, f);
		}
	}
	mcfan_readers_view_free(v, (unsigned int)n);
	return 0;
}

static void
lcore_labels(char *l, size_t len, const struct mcfan_msacc_row *r)
{
	l[0] = '\0';
	label_u(l, len, "lcore", r->lcore_id);
	label(l, len, "role", mcfan_role_name(r->role));
}

/*
 * The page's own msacc window, continuous: its rows count since each lcore's accounting
 * started, whatever the console or telemetry do to the shared window (a timed window there
 * froze every mcfan_lcore_* msacc series at its end, and msacc reset took them back to 0).
 * Only libmicrohttpd's one thread formats pages (server.c): no lock for the flag.
 */
static struct mcfan_msacc_window page_window;
static bool page_window_ready;

/*
 * mcfan_lcore_state_seconds never goes back, as a counter must not (OpenMetrics): a snapshot
 * charges the interval in progress to the lcore's last state, which the lcore may charge to
 * another one later, and the wait_cpu share moves cycles out of the other states as
 * schedstat is read (docs/msacc.md). So each sample is the largest this window has shown:
 * a state taken back stays flat until its cycles pass it again. A row that starts again
 * (an lcore whose accounting first comes on with msacc on) starts afresh. Only
 * libmicrohttpd's one thread formats pages (server.c): no lock.
 */
struct state_shown {
	bool seen;
	uint64_t start_tsc;             /* the window's start: which window the row is of */
	uint64_t cycles[MCFAN_MS_MAX];  /* the largest cycles shown per state */
};
static struct state_shown state_shown[RTE_MAX_LCORE];

/* The cycles of state s of row r (stats st) to show: never fewer than shown before. */
static uint64_t
state_cycles_shown(const struct mcfan_msacc_row *r, const struct mcfan_msacc_stats *st,
		   unsigned int s)
{
	struct state_shown *h = &state_shown[r->lcore_id % RTE_MAX_LCORE];

	if (!h->seen || h->start_tsc != r->snap.start_tsc) {
		memset(h, 0, sizeof(*h));
		h->seen = true;
		h->start_tsc = r->snap.start_tsc;
	}
	h->cycles[s] = RTE_MAX(h->cycles[s], st->cycles[s]);
	return h->cycles[s];
}

static int
put_lcores(struct expo *e, struct mcfan_app *app)
{
	struct mcfan_msacc_row *rows;
	struct mcfan_msacc_stats *st;
	struct mcfan_sched_view sv;
	char l[LABELS_MAX];
	double hz = (double)app->tsc_hz;
	unsigned int s;
	int n, i;

	rows = calloc(RTE_MAX_LCORE, sizeof(*rows));
	st = calloc(RTE_MAX_LCORE, sizeof(*st));
	if (rows == NULL || st == NULL) {
		free(rows);
		free(st);
		return -ENOMEM;
	}
	if (!page_window_ready) {
		mcfan_msacc_window_init(&page_window);
		page_window_ready = true;
	}
	n = mcfan_lcore_rows_in(app, &page_window, rows, RTE_MAX_LCORE);
	if (n < 0)
		n = 0;
	for (i = 0; i < n; i++)
		mcfan_msacc_stats(&rows[i].snap, &st[i]);
	family(e, "mcfan_lcore_state_seconds", FAM_COUNTER, "seconds", "Time of each lcore in "
	       "each microstate (docs/msacc.md), wait_cpu included, since its accounting started "
	       "(msacc windows do not move it); the states of an lcore add up to its wall "
	       "time, ahead of it by at most one interval "
	       "(a state never goes back)");
	for (i = 0; i < n; i++) {
		for (s = 0; s < MCFAN_MS_MAX; s++) {
			lcore_labels(l, sizeof(l), &rows[i]);
			label(l, sizeof(l), "state", mcfan_ms_state_name(s));
			sample_dbl(e, "mcfan_lcore_state_seconds", "_total", l,
				   (double)state_cycles_shown(&rows[i], &st[i], s) / hz);
		}
	}
#define LCORE_FAM(fname, help, expr) do { \
	family(e, fname, FAM_COUNTER, NULL, help); \
	for (i = 0; i < n; i++) { \
		lcore_labels(l, sizeof(l), &rows[i]); \
		sample_u64(e, fname, "_total", l, (expr)); \
	} \
} while (0)
	LCORE_FAM("mcfan_lcore_polls", "Polls (rx_burst or ring dequeue calls)", st[i].polls);
	LCORE_FAM("mcfan_lcore_empty_polls", "Polls that found nothing (busy-wait)",
		  st[i].polls - st[i].polls_work);
	LCORE_FAM("mcfan_lcore_sleeps", "Sleep periods under the idle policy", st[i].sleeps);
	LCORE_FAM("mcfan_lcore_wakeups", "Wake-ups by another lcore", st[i].wakeups);
#undef LCORE_FAM
	family(e, "mcfan_lcore_context_switches", FAM_COUNTER, NULL, "Context switches of the "
	       "lcore's thread (kind voluntary: it slept; involuntary: it was preempted)");
	for (i = 0; i < n; i++) {
		if (mcfan_sched_read(app, rows[i].lcore_id, &sv) != 0)
			continue;
		lcore_labels(l, sizeof(l), &rows[i]);
		label(l, sizeof(l), "kind", "voluntary");
		sample_u64(e, "mcfan_lcore_context_switches", "_total", l, sv.ctx_voluntary);
		lcore_labels(l, sizeof(l), &rows[i]);
		label(l, sizeof(l), "kind", "involuntary");
		sample_u64(e, "mcfan_lcore_context_switches", "_total", l, sv.ctx_involuntary);
	}
	free(rows);
	free(st);
	return 0;
}

static int
put_idle(struct expo *e, struct mcfan_app *app)
{
	struct mcfan_idle_view *iv;
	char l[LABELS_MAX];
	int n, i;

	iv = calloc(RTE_MAX_LCORE, sizeof(*iv));
	if (iv == NULL)
		return -ENOMEM;
	n = mcfan_idle_read(app, iv, RTE_MAX_LCORE);
	gauge1(e, "mcfan_idle_max_sleep_seconds", "seconds", "Longest backoff or wake sleep "
	       "(--idle-max-sleep-us)", app->cfg.idle_max_sleep_us / 1e6);
#define IDLE_LABELS() do { \
	l[0] = '\0'; \
	label_u(l, sizeof(l), "lcore", iv[i].lcore_id); \
	label(l, sizeof(l), "role", mcfan_role_name(iv[i].role)); \
} while (0)
	family(e, "mcfan_lcore_idle_policy", FAM_INFO, NULL, "The lcore's idle policy now "
	       "(docs/idle.md; value 1)");
	for (i = 0; i < n; i++) {
		IDLE_LABELS();
		label(l, sizeof(l), "policy", iv[i].policy_text);
		sample_u64(e, "mcfan_lcore_idle_policy", "_info", l, 1);
	}
	family(e, "mcfan_lcore_sleep_cap_seconds", FAM_GAUGE, "seconds", "Longest sleep the "
	       "lcore may take now (the idle cap and the ring bound)");
	for (i = 0; i < n; i++) {
		IDLE_LABELS();
		sample_dbl(e, "mcfan_lcore_sleep_cap_seconds", "", l,
			   iv[i].sleep_cap_ns / NS_PER_SEC);
	}
	family(e, "mcfan_lcore_ring_bound_seconds", FAM_GAUGE, "seconds", "Time half an input "
	       "ring takes to fill at the recent rate (0: no recent traffic, no bound)");
	for (i = 0; i < n; i++) {
		IDLE_LABELS();
		sample_dbl(e, "mcfan_lcore_ring_bound_seconds", "", l,
			   iv[i].ring_bound_ns / NS_PER_SEC);
	}
	family(e, "mcfan_lcore_sleep_overrun_drops", FAM_COUNTER, NULL, "Drops caused by the "
	       "lcore's sleeps (docs/idle.md): part ring (copies refused by full worker rings) "
	       "or port (imissed and kernel drops)");
	for (i = 0; i < n; i++) {
		struct mcfan_overrun_view ov;

		if (mcfan_overrun_read_since(app, iv[i].lcore_id, &ov, true) < 0)
			continue;
		IDLE_LABELS();
		label(l, sizeof(l), "part", "ring");
		sample_u64(e, "mcfan_lcore_sleep_overrun_drops", "_total", l, ov.ring);
		IDLE_LABELS();
		label(l, sizeof(l), "part", "port");
		sample_u64(e, "mcfan_lcore_sleep_overrun_drops", "_total", l, ov.port);
	}
#undef IDLE_LABELS
	free(iv);
	return 0;
}

static void
put_mbufs(struct expo *e, struct mcfan_app *app)
{
	double in_use = 0;

	if (app->pool != NULL)
		in_use = (double)app->pool_size - (double)rte_mempool_avail_count(app->pool);
	gauge1(e, "mcfan_mbufs", NULL, "Mbufs in the pool", app->pool_size);
	gauge1(e, "mcfan_mbufs_in_use", NULL, "Mbufs outside the pool now (RX descriptors, "
	       "rings, bursts and caches)", in_use);
}

static void
put_server(struct expo *e, const struct mcfan_metrics_stats *st)
{
	char l[LABELS_MAX];

	if (st == NULL)
		return;
	family(e, "mcfan_metrics_pages", FAM_COUNTER, NULL, "Metrics pages served before this one, "
	       "by format (text: 0.0.4, openmetrics: 1.0.0)");
	l[0] = '\0';
	label(l, sizeof(l), "format", "text");
	sample_u64(e, "mcfan_metrics_pages", "_total", l, st->pages_text);
	l[0] = '\0';
	label(l, sizeof(l), "format", "openmetrics");
	sample_u64(e, "mcfan_metrics_pages", "_total", l, st->pages_openmetrics);
	counter1(e, "mcfan_metrics_refused_requests", NULL, "Requests answered 404 (another "
		 "path) or 405 (another method)", st->refused);
	counter1(e, "mcfan_metrics_cut_connections", NULL, "Connections cut because their "
		 "request and response took longer than the exchange deadline (slow clients)",
		 st->cut);
}

int
mcfan_metrics_format(struct mcfan_app *app, bool openmetrics,
		     const struct mcfan_metrics_stats *st, char **out, size_t *len)
{
	struct expo e = {.om = openmetrics};
	int ret;

	*out = NULL;
	*len = 0;
	e.f = open_memstream(out, len);
	if (e.f == NULL)
		return -ENOMEM;
	put_info(&e, app);
	put_totals(&e, app);
	ret = put_rx_lcores(&e, app);
	if (ret == 0)
		ret = put_ports(&e, app);
	if (ret == 0)
		ret = put_groups(&e, app);
	if (ret == 0)
		ret = put_feed(&e, app);
	if (ret == 0)
		ret = put_feed_pairs(&e, app);
	if (ret == 0)
		ret = put_igmp(&e, app);
	if (ret == 0)
		ret = put_workers(&e, app);
	if (ret == 0)
		ret = put_rings(&e, app);
	if (ret == 0)
		ret = put_engines(&e, app);
	if (ret == 0)
		ret = put_engine_outputs(&e, app);
	if (ret == 0)
		ret = put_readers(&e, app);
	if (ret == 0)
		ret = put_lcores(&e, app);
	if (ret == 0)
		ret = put_idle(&e, app);
	if (ret == 0)
		put_mbufs(&e, app);
	if (ret == 0)
		put_server(&e, st);
	if (e.om)
		fprintf(e.f, "# EOF\n");
	if (ferror(e.f))
		ret = -ENOMEM;
	if (fclose(e.f) != 0)
		ret = -ENOMEM;
	if (ret < 0) {
		free(*out);
		*out = NULL;
		*len = 0;
	}
	return ret;
}
