/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Telemetry of feed quality (docs/feed.md, docs/telemetry.md): /mcfan/feed (every group with
 * a sequence extractor, or one group and its gap log) and /mcfan/feed_pairs (A/B pairs).
 * Only formats what control/feed.h reads.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "mcfan_feed.h"
#include "log.h"
#include "control/action.h"
#include "control/feed.h"
#include "control/stats.h"
#include "telemetry/feed.h"
#include "telemetry/telemetry.h"

/* Rows of /mcfan/feed: 64 rows of 16 columns stay under the 16 KiB of a reply. */
#define TEL_FEED_ROWS 64

static int
tel_feed_group(struct mcfan_app *app, const char *cmd, const char *params,
	       struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[] = {
		{"gap_first", RTE_TEL_U64_VAL}, {"gap_last", RTE_TEL_U64_VAL},
		{"gap_lost", RTE_TEL_U64_VAL}, {"gap_time_ns", RTE_TEL_U64_VAL},
		{"gap_stream", RTE_TEL_U64_VAL}, {"gap_epoch_ns", RTE_TEL_U64_VAL},
	};
	struct mcfan_feed_gap log[MCFAN_FEED_GAP_LOG];
	struct rte_tel_data *c[RTE_DIM(cols)];
	struct mcfan_feed_view v;
	char msg[256], text[MCFAN_GROUP_STR_MAX];
	int n, i;

	n = mcfan_feed_gaps_read(app, cmd, params, &v, log, RTE_DIM(log), msg, sizeof(msg));
	if (n < 0) {
		MCFAN_LOG(WARNING, "telemetry %s\n", msg); /* msg starts with cmd */
		return n;
	}
	mcfan_group_format(&v.key, text, sizeof(text));
	rte_tel_data_add_dict_string(d, "group", text);
	rte_tel_data_add_dict_string(d, "kind", v.kind);
	rte_tel_data_add_dict_int(d, "lcore", (int)v.lcore);
	rte_tel_data_add_dict_u64(d, "datagrams", v.c.datagrams);
	rte_tel_data_add_dict_u64(d, "expected", v.c.expected);
	rte_tel_data_add_dict_u64(d, "received", v.c.received);
	rte_tel_data_add_dict_u64(d, "lost", v.c.lost);
	rte_tel_data_add_dict_u64(d, "pending", v.c.pending);
	rte_tel_data_add_dict_u64(d, "reordered", v.c.reordered);
	rte_tel_data_add_dict_u64(d, "late", v.c.late);
	rte_tel_data_add_dict_u64(d, "duplicates", v.c.duplicates);
	rte_tel_data_add_dict_u64(d, "gaps", v.c.gaps);
	rte_tel_data_add_dict_u64(d, "resets", v.c.resets);
	rte_tel_data_add_dict_u64(d, "sessions", v.c.sessions);
	rte_tel_data_add_dict_u64(d, "ends", v.c.ends);
	rte_tel_data_add_dict_u64(d, "heartbeats", v.c.heartbeats);
	rte_tel_data_add_dict_u64(d, "malformed", v.c.malformed);
	rte_tel_data_add_dict_u64(d, "jitter_ns", v.c.jitter_ns);
	rte_tel_data_add_dict_u64(d, "gap_events", v.c.gap_log_total);
	rte_tel_data_add_dict_int(d, "kind_suspect", mcfan_feed_kind_suspect(&v.c) ? 1 : 0);
	if (mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols)) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rte_tel_data_add_array_u64(c[0], log[i].first);
		rte_tel_data_add_array_u64(c[1], log[i].last);
		rte_tel_data_add_array_u64(c[2], log[i].lost);
		rte_tel_data_add_array_u64(c[3], log[i].t_ns);
		rte_tel_data_add_array_u64(c[4], log[i].stream);
		rte_tel_data_add_array_u64(c[5], mcfan_feed_epoch_ns(app, log[i].t_ns));
	}
	return mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
}

static int
tel_feed(struct mcfan_app *app, const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[] = {
		{"group", RTE_TEL_STRING_VAL}, {"kind", RTE_TEL_STRING_VAL},
		{"lcore", RTE_TEL_INT_VAL}, {"expected", RTE_TEL_U64_VAL},
		{"received", RTE_TEL_U64_VAL}, {"lost", RTE_TEL_U64_VAL},
		{"pending", RTE_TEL_U64_VAL}, {"reordered", RTE_TEL_U64_VAL},
		{"late", RTE_TEL_U64_VAL}, {"duplicates", RTE_TEL_U64_VAL},
		{"resets", RTE_TEL_U64_VAL}, {"sessions", RTE_TEL_U64_VAL},
		{"gaps", RTE_TEL_U64_VAL}, {"jitter_ns", RTE_TEL_U64_VAL},
		{"malformed", RTE_TEL_U64_VAL}, {"kind_suspect", RTE_TEL_INT_VAL},
	};
	struct rte_tel_data *c[RTE_DIM(cols)];
	struct mcfan_feed_retired ret_counts;
	struct mcfan_feed_view *v;
	char text[MCFAN_GROUP_STR_MAX];
	unsigned int n, i;
	int ret;

	if (params != NULL && params[0] != '\0')
		return tel_feed_group(app, cmd, params, d);
	v = calloc(MCFAN_MAX_GROUPS, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	n = mcfan_feed_read(app, v, MCFAN_MAX_GROUPS);
	ret = mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols));
	if (ret < 0) {
		free(v);
		return ret;
	}
	for (i = 0; i < RTE_MIN(n, (unsigned int)TEL_FEED_ROWS); i++) {
		mcfan_group_format(&v[i].key, text, sizeof(text));
		rte_tel_data_add_array_string(c[0], text);
		rte_tel_data_add_array_string(c[1], v[i].kind);
		rte_tel_data_add_array_int(c[2], (int)v[i].lcore);
		rte_tel_data_add_array_u64(c[3], v[i].c.expected);
		rte_tel_data_add_array_u64(c[4], v[i].c.received);
		rte_tel_data_add_array_u64(c[5], v[i].c.lost);
		rte_tel_data_add_array_u64(c[6], v[i].c.pending);
		rte_tel_data_add_array_u64(c[7], v[i].c.reordered);
		rte_tel_data_add_array_u64(c[8], v[i].c.late);
		rte_tel_data_add_array_u64(c[9], v[i].c.duplicates);
		rte_tel_data_add_array_u64(c[10], v[i].c.resets);
		rte_tel_data_add_array_u64(c[11], v[i].c.sessions);
		rte_tel_data_add_array_u64(c[12], v[i].c.gaps);
		rte_tel_data_add_array_u64(c[13], v[i].c.jitter_ns);
		rte_tel_data_add_array_u64(c[14], v[i].c.malformed);
		rte_tel_data_add_array_int(c[15], mcfan_feed_kind_suspect(&v[i].c) ? 1 : 0);
	}
	rte_tel_data_add_dict_u64(d, "total", n);
	rte_tel_data_add_dict_u64(d, "shown", RTE_MIN(n, (unsigned int)TEL_FEED_ROWS));
	/* replaced bindings and states: awaiting the workers' grace period, freed after it */
	mcfan_feed_retired_read(app, &ret_counts);
	rte_tel_data_add_dict_u64(d, "retired_waiting", ret_counts.waiting);
	rte_tel_data_add_dict_u64(d, "retired_freed", ret_counts.freed);
	rte_tel_data_add_dict_u64(d, "retired_kept", ret_counts.kept);
	free(v);
	return mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
}
MCFAN_TEL_COMMAND(tel_feed, "/mcfan/feed",
		  "Feed quality per group with --seq (first 64). Parameter GROUP: its counters "
		  "and gap log")

static int
tel_feed_pairs(struct mcfan_app *app, const char *cmd, const char *params,
	       struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[] = {
		{"line_a", RTE_TEL_STRING_VAL}, {"line_b", RTE_TEL_STRING_VAL},
		{"expected", RTE_TEL_U64_VAL}, {"received", RTE_TEL_U64_VAL},
		{"lost", RTE_TEL_U64_VAL}, {"a_first_arrivals", RTE_TEL_U64_VAL},
		{"b_first_arrivals", RTE_TEL_U64_VAL}, {"a_missed", RTE_TEL_U64_VAL},
		{"b_missed", RTE_TEL_U64_VAL}, {"skew_p50_ns", RTE_TEL_U64_VAL},
		{"skew_p99_ns", RTE_TEL_U64_VAL}, {"skew_earlier_p50_ns", RTE_TEL_U64_VAL},
		{"skew_earlier_p99_ns", RTE_TEL_U64_VAL},
	};
	struct mcfan_feed_pair_view pv[MCFAN_FEED_PAIRS_MAX];
	struct rte_tel_data *c[RTE_DIM(cols)];
	char text[MCFAN_GROUP_STR_MAX];
	unsigned int n, i;
	int ret;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	n = mcfan_feed_pairs_read(app, pv, RTE_DIM(pv));
	ret = mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols));
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		mcfan_group_format(&pv[i].key[0], text, sizeof(text));
		rte_tel_data_add_array_string(c[0], text);
		mcfan_group_format(&pv[i].key[1], text, sizeof(text));
		rte_tel_data_add_array_string(c[1], text);
		rte_tel_data_add_array_u64(c[2], pv[i].c.merged.expected);
		rte_tel_data_add_array_u64(c[3], pv[i].c.merged.received);
		rte_tel_data_add_array_u64(c[4], pv[i].c.merged.lost);
		rte_tel_data_add_array_u64(c[5], pv[i].c.line[0].first_arrivals);
		rte_tel_data_add_array_u64(c[6], pv[i].c.line[1].first_arrivals);
		rte_tel_data_add_array_u64(c[7], pv[i].c.line[0].missed);
		rte_tel_data_add_array_u64(c[8], pv[i].c.line[1].missed);
		rte_tel_data_add_array_u64(c[9], mcfan_feed_skew_quantile_ns(
			pv[i].c.skew_hist[0], pv[i].c.skew_max_ns[0], 500));
		rte_tel_data_add_array_u64(c[10], mcfan_feed_skew_quantile_ns(
			pv[i].c.skew_hist[0], pv[i].c.skew_max_ns[0], 990));
		/* the numbers B brought earlier: how far A came after (A - B, ns) */
		rte_tel_data_add_array_u64(c[11], mcfan_feed_skew_quantile_ns(
			pv[i].c.skew_hist[1], pv[i].c.skew_max_ns[1], 500));
		rte_tel_data_add_array_u64(c[12], mcfan_feed_skew_quantile_ns(
			pv[i].c.skew_hist[1], pv[i].c.skew_max_ns[1], 990));
	}
	return mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
}
MCFAN_TEL_COMMAND(tel_feed_pairs, "/mcfan/feed_pairs",
		  "A/B pairs: merged counters, each line's first arrivals, misses, skew p50/p99 "
		  "(B later, B earlier). "
		  "No parameters")

/* ---- the report's pieces (telemetry/feed.h) ---- */

static json_t *
ju64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* A number of the whole 64-bit range (a gap's sequence numbers: an 8-byte kind's reach 2^64
 * - 1): above INT64_MAX, the MCFAN_JSON_U64_MARK string the report's writer makes a number. */
static json_t *
ju64_full(uint64_t v)
{
	char buf[48];

	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), MCFAN_JSON_U64_MARK "%" PRIu64, v);
	return json_string(buf);
}

static void
counters_json(json_t *f, const struct mcfan_feed_counters *c)
{
	json_t *h = json_array();
	unsigned int b;

	json_object_set_new(f, "datagrams", ju64(c->datagrams));
	json_object_set_new(f, "expected", ju64(c->expected));
	json_object_set_new(f, "received", ju64(c->received));
	json_object_set_new(f, "lost", ju64(c->lost));
	json_object_set_new(f, "pending", ju64(c->pending));
	json_object_set_new(f, "reordered", ju64(c->reordered));
	json_object_set_new(f, "late", ju64(c->late));
	json_object_set_new(f, "duplicates", ju64(c->duplicates));
	json_object_set_new(f, "gaps", ju64(c->gaps));
	json_object_set_new(f, "resets", ju64(c->resets));
	json_object_set_new(f, "sessions", ju64(c->sessions));
	json_object_set_new(f, "ends", ju64(c->ends));
	json_object_set_new(f, "heartbeats", ju64(c->heartbeats));
	json_object_set_new(f, "malformed", ju64(c->malformed));
	json_object_set_new(f, "jitter_ns", ju64(c->jitter_ns));
	json_object_set_new(f, "gap_events", ju64(c->gap_log_total));
	for (b = 0; h != NULL && b < MCFAN_FEED_GAP_BUCKETS; b++)
		json_array_append_new(h, ju64(c->gap_hist[b]));
	json_object_set_new(f, "gap_hist_log2", h);
}

/* f.gap_log: the group's gap events since the clear, log[0..n-1], oldest first (the newest
 * MCFAN_FEED_GAP_LOG), each with its time in ns since the epoch, as show feed gaps shows them:
 * which numbers a run lost, after it ended (before: only their count, gap_events). */
static void
gap_log_json(const struct mcfan_app *app, const struct mcfan_feed_gap *log, int n, json_t *f)
{
	json_t *arr, *e;
	int i;

	arr = json_array();
	if (arr == NULL)
		return;
	for (i = 0; i < n; i++) {
		e = json_object();
		if (e == NULL)
			break;
		json_object_set_new(e, "first", ju64_full(log[i].first));
		json_object_set_new(e, "last", ju64_full(log[i].last));
		json_object_set_new(e, "lost", ju64(log[i].lost));
		json_object_set_new(e, "stream", ju64(log[i].stream));
		json_object_set_new(e, "time_ns", ju64(log[i].t_ns));
		json_object_set_new(e, "epoch_ns", ju64(mcfan_feed_epoch_ns(app, log[i].t_ns)));
		json_array_append_new(arr, e);
	}
	json_object_set_new(f, "gap_log", arr);
}

/* o.feed: view v's kind, lcore, counters and gap log log[0..n-1]. */
static void
feed_json(const struct mcfan_app *app, const struct mcfan_feed_view *v,
	  const struct mcfan_feed_gap *log, int n, json_t *o)
{
	json_t *f = json_object();

	if (f == NULL)
		return;
	json_object_set_new(f, "kind", json_string(v->kind));
	json_object_set_new(f, "lcore", json_integer(v->lcore));
	counters_json(f, &v->c);
	json_object_set_new(f, "kind_suspect", json_boolean(mcfan_feed_kind_suspect(&v->c)));
	gap_log_json(app, log, n, f);
	json_object_set_new(o, "feed", f);
}

void
mcfan_feed_report_group_json(const struct mcfan_app *app, const struct mcfan_group_view *g,
			     json_t *o)
{
	struct mcfan_feed_gap log[MCFAN_FEED_GAP_LOG];
	char text[MCFAN_GROUP_STR_MAX], msg[256];
	struct mcfan_feed_view v;
	int n;

	if (g->left) {
		n = mcfan_feed_left_read(app, g->entry, &v, log, RTE_DIM(log));
	} else {
		if (mcfan_group_format(&g->entry->key, text, sizeof(text)) < 0)
			return;
		n = mcfan_feed_gaps_read(app, "report", text, &v, log, RTE_DIM(log), msg,
					 sizeof(msg));
	}
	if (n >= 0)
		feed_json(app, &v, log, n, o);
}

json_t *
mcfan_feed_report_pairs_json(const struct mcfan_app *app)
{
	struct mcfan_feed_pair_view *pv;
	char text[MCFAN_GROUP_STR_MAX];
	json_t *arr = json_array(), *p, *lines, *l, *m;
	unsigned int n, i, k, sign;

	pv = calloc(MCFAN_FEED_PAIRS_MAX, sizeof(*pv));
	if (pv == NULL || arr == NULL) {
		free(pv);
		json_decref(arr);
		return NULL;
	}
	n = mcfan_feed_pairs_read(app, pv, MCFAN_FEED_PAIRS_MAX);
	if (n == 0) {
		free(pv);
		json_decref(arr);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		p = json_object();
		lines = json_array();
		m = json_object();
		counters_json(m, &pv[i].c.merged);
		json_object_set_new(p, "merged", m);
		json_object_set_new(p, "lcore", json_integer(pv[i].lcore));
		for (k = 0; k < 2; k++) {
			/* line A's skew is the "B earlier" side, line B's "B later" */
			sign = k == 0 ? 1 : 0;
			l = json_object();
			mcfan_group_format(&pv[i].key[k], text, sizeof(text));
			json_object_set_new(l, "line", json_string(k == 0 ? "A" : "B"));
			json_object_set_new(l, "group", json_string(text));
			json_object_set_new(l, "first_arrivals", ju64(pv[i].c.line[k].first_arrivals));
			json_object_set_new(l, "first_arrival_share",
					    json_real(pv[i].c.merged.received == 0 ? 0.0 :
						      (double)pv[i].c.line[k].first_arrivals /
						      (double)pv[i].c.merged.received));
			json_object_set_new(l, "lost", ju64(pv[i].c.line[k].missed));
			json_object_set_new(l, "arb_duplicates", ju64(pv[i].c.line[k].arb_duplicates));
			json_object_set_new(l, "skew_p50_ns", ju64(mcfan_feed_skew_quantile_ns(
				pv[i].c.skew_hist[sign], pv[i].c.skew_max_ns[sign], 500)));
			json_object_set_new(l, "skew_p99_ns", ju64(mcfan_feed_skew_quantile_ns(
				pv[i].c.skew_hist[sign], pv[i].c.skew_max_ns[sign], 990)));
			json_object_set_new(l, "skew_max_ns", ju64(pv[i].c.skew_max_ns[sign]));
			json_array_append_new(lines, l);
		}
		json_object_set_new(p, "lines", lines);
		json_array_append_new(arr, p);
	}
	free(pv);
	return arr;
}

/* Seconds from the start to tsc (0 if either is unknown), as the groups table gives them. */
static double
since_start_s(const struct mcfan_app *app, uint64_t tsc)
{
	if (app->start_tsc == 0 || tsc < app->start_tsc)
		return 0;
	return (double)(tsc - app->start_tsc) / (double)app->tsc_hz;
}

void
mcfan_feed_report_print(const struct mcfan_app *app, const struct mcfan_group_view *left,
			unsigned int n_left, FILE *f)
{
	struct mcfan_feed_pair_view *pv;
	struct mcfan_feed_view *v;
	char text[MCFAN_GROUP_STR_MAX], warn[MCFAN_CTL_MSG_MAX];
	unsigned int n, nj, i, np;
	double *at;

	v = calloc(2 * MCFAN_MAX_GROUPS, sizeof(*v));
	at = calloc(2 * MCFAN_MAX_GROUPS, sizeof(*at));
	if (v == NULL || at == NULL) {
		free(v);
		free(at);
		return;
	}
	nj = mcfan_feed_read(app, v, MCFAN_MAX_GROUPS);
	/* then the left groups' rows, as the groups table has them: their final results */
	for (i = 0, n = nj; i < n_left && n < 2 * MCFAN_MAX_GROUPS; i++) {
		if (mcfan_feed_left_read(app, left[i].entry, &v[n], NULL, 0) < 0)
			continue;
		at[n++] = since_start_s(app, left[i].left_tsc);
	}
	if (n > 0)
		fprintf(f, "\nfeed quality (docs/feed.md):\n  %-24s %-10s %12s %12s %9s %6s %8s "
			"%9s %9s %6s %11s %10s\n", "group", "kind", "expected", "received", "lost",
			"late", "pending", "reordered", "dups", "resets", "jitter_us", "malformed");
	for (i = 0; i < n; i++) {
		mcfan_group_format(&v[i].key, text, sizeof(text));
		fprintf(f, "  %-24s %-10s %12" PRIu64 " %12" PRIu64 " %9" PRIu64 " %6" PRIu64
			" %8" PRIu64 " %9" PRIu64 " %9" PRIu64 " %6" PRIu64 " %11.1f %10" PRIu64,
			text, v[i].kind, v[i].c.expected, v[i].c.received, v[i].c.lost, v[i].c.late,
			v[i].c.pending,
			v[i].c.reordered, v[i].c.duplicates, v[i].c.resets,
			(double)v[i].c.jitter_ns / 1000.0, v[i].c.malformed);
		if (i >= nj)
			fprintf(f, "  (left at %.2f s)", at[i]);
		fprintf(f, "\n");
	}
	for (i = 0; i < n; i++)
		if (mcfan_feed_kind_suspect(&v[i].c))
			fprintf(f, "  %s\n", mcfan_feed_suspect_line(&v[i], warn, sizeof(warn)));
	(void)mcfan_feed_ring_drop_notes(app, v, nj, "  ", f); /* joined: their copy_drops */
	free(v);
	free(at);
	/* the A/B pairs, as show feed gives them: the merged stream and each line's share */
	pv = calloc(MCFAN_FEED_PAIRS_MAX, sizeof(*pv));
	if (pv == NULL)
		return;
	np = mcfan_feed_pairs_read(app, pv, MCFAN_FEED_PAIRS_MAX);
	if (np > 0)
		fprintf(f, "\nA/B pairs (docs/feed.md \"A/B arbitration\"):\n");
	for (i = 0; i < np; i++)
		mcfan_feed_pair_print(&pv[i], "  ", f);
	free(pv);
}
