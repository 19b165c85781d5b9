/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Telemetry: /mcfan/groups, /mcfan/rings, /mcfan/counters and /mcfan/latency, the
 * counters of the stats read side (control/stats.h). */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "bits.h"
#include "log.h"
#include "control/igmp.h"
#include "control/stats.h"
#include "telemetry/telemetry.h"

/* Groups per /mcfan/groups page: 128 rows of the longest IPv6 group stay under 16 KiB. */
#define MCFAN_TEL_GROUPS_PAGE 128

static void
group_text(const struct mcfan_flow_key *k, char *buf, size_t len)
{
	struct mcfan_flow_key any = *k;

	any.udp_port = 0;
	mcfan_group_format(&any, buf, len);
}

/* The columns of /mcfan/groups' page form, and of /mcfan/groups,GROUP naming several. */
static const struct mcfan_tel_col page_cols[] = {
	{"group", RTE_TEL_STRING_VAL}, {"udp_port", RTE_TEL_INT_VAL},
	{"frames", RTE_TEL_U64_VAL}, {"bytes", RTE_TEL_U64_VAL},
	{"n_workers", RTE_TEL_INT_VAL}, {"copies", RTE_TEL_U64_VAL},
	{"copy_drops", RTE_TEL_U64_VAL}, {"sources", RTE_TEL_STRING_VAL},
	{"output", RTE_TEL_INT_VAL},
};

/* Room for one group's sources as a group list writes them: "S+S", IPv6 in brackets. */
#define SOURCES_TEXT_MAX (MCFAN_IGMP_MAX_SOURCES * (MCFAN_IGMP_ADDR_STR + 3))

/* One row of the page form, its texts made before the reply so that its size is known. */
struct page_row {
	const struct mcfan_group_view *g;
	char group[MCFAN_GROUP_STR_MAX];
	char src[SOURCES_TEXT_MAX]; /* "S+S", or "N sources" when shortened */
	bool cut;                   /* src shortened to its count */
};

/* JSON bytes of row r in page_cols' columns. */
static size_t
row_bytes(const struct page_row *r)
{
	const struct mcfan_group_view *g = r->g;

	return mcfan_tel_str_bytes(r->group) + mcfan_tel_u64_bytes(g->entry->key.udp_port) +
	       mcfan_tel_u64_bytes(g->frames) + mcfan_tel_u64_bytes(g->bytes) +
	       mcfan_tel_u64_bytes(MCFAN_MAX_WORKERS) + mcfan_tel_u64_bytes(g->copies) +
	       mcfan_tel_u64_bytes(g->copy_drops) + mcfan_tel_str_bytes(r->src) +
	       mcfan_tel_u64_bytes(MCFAN_ENGINE_INST_MAX);
}

/*
 * The texts of rows[0..n-1] (g set). Rows whose sources (IGMPv3/MLDv2 INCLUDE) would take
 * the reply past DPDK's limit, which drops a whole column without a word, get their count
 * instead, "N sources", the longest lists first, until the rows fit. Returns how many were
 * shortened (/mcfan/groups,GROUP lists a group's sources whole).
 */
static unsigned int
rows_make(const struct mcfan_app *app, struct page_row *rows, unsigned int n)
{
	size_t used = 0, len, best_len;
	unsigned int i, best, cut = 0, n_src;

	for (i = 0; i < n; i++) {
		group_text(&rows[i].g->entry->key, rows[i].group, sizeof(rows[i].group));
		/* "" for a group joined from any source */
		mcfan_igmp_sources_text(app, &rows[i].g->entry->key, rows[i].src,
					sizeof(rows[i].src));
		used += row_bytes(&rows[i]);
	}
	while (used > MCFAN_TEL_REPLY_BYTES - MCFAN_TEL_REPLY_RESERVE) {
		best = n;
		best_len = 0;
		for (i = 0; i < n; i++) {
			len = strlen(rows[i].src);
			if (!rows[i].cut && len > best_len) {
				best = i;
				best_len = len;
			}
		}
		if (best == n)
			break; /* nothing left to shorten */
		used -= row_bytes(&rows[best]);
		for (n_src = 1, i = 0; rows[best].src[i] != '\0'; i++)
			n_src += rows[best].src[i] == '+';
		snprintf(rows[best].src, sizeof(rows[best].src), "%u source%s", n_src,
			 n_src == 1 ? "" : "s");
		rows[best].cut = true;
		used += row_bytes(&rows[best]);
		cut++;
	}
	return cut;
}

/* rows[0..n-1] into page_cols' columns c, and "sources_cut" into d. */
static void
rows_add(const struct mcfan_app *app, struct rte_tel_data *d, struct rte_tel_data **c,
	 struct page_row *rows, unsigned int n)
{
	unsigned int i, cut = rows_make(app, rows, n);
	const struct mcfan_group_view *g;

	for (i = 0; i < n; i++) {
		g = rows[i].g;
		rte_tel_data_add_array_string(c[0], rows[i].group);
		rte_tel_data_add_array_int(c[1], g->entry->key.udp_port);
		rte_tel_data_add_array_u64(c[2], g->frames);
		rte_tel_data_add_array_u64(c[3], g->bytes);
		rte_tel_data_add_array_int(c[4], (int)mcfan_bits_count(g->worker_bits,
								       MCFAN_MAX_WORKERS));
		rte_tel_data_add_array_u64(c[5], g->copies);
		rte_tel_data_add_array_u64(c[6], g->copy_drops);
		rte_tel_data_add_array_string(c[7], rows[i].src);
		rte_tel_data_add_array_int(c[8], g->entry->inst);
	}
	rte_tel_data_add_dict_u64(d, "sources_cut", cut);
}

/* The one-group form of /mcfan/groups,GROUP: the group of g. */
static void
group_one(const struct mcfan_app *app, const struct mcfan_group_view *g, struct rte_tel_data *d)
{
	char text[MCFAN_GROUP_STR_MAX], src[MCFAN_IGMP_MAX_SOURCES][MCFAN_IGMP_ADDR_STR];
	struct rte_tel_data *wl, *sl;
	unsigned int w, n_src;

	group_text(&g->entry->key, text, sizeof(text));
	rte_tel_data_add_dict_string(d, "group", text);
	rte_tel_data_add_dict_int(d, "udp_port", g->entry->key.udp_port);
	rte_tel_data_add_dict_string(d, "fanout", mcfan_fanout_name(g->entry->fanout));
	rte_tel_data_add_dict_u64(d, "frames", g->frames);
	rte_tel_data_add_dict_u64(d, "copies", g->copies);
	rte_tel_data_add_dict_u64(d, "copy_drops", g->copy_drops);
	rte_tel_data_add_dict_u64(d, "bytes", g->bytes);
	rte_tel_data_add_dict_int(d, "output", g->entry->inst);
	rte_tel_data_add_dict_u64(d, "first_rx_tsc", g->first_tsc);
	rte_tel_data_add_dict_u64(d, "last_rx_tsc", g->last_tsc);
	wl = mcfan_tel_array(RTE_TEL_INT_VAL);
	if (wl != NULL) {
		for (w = 0; w < app->n_workers; w++)
			if (mcfan_bits_test(g->worker_bits, w))
				rte_tel_data_add_array_int(wl, (int)app->worker_lcore_ids[w]);
		rte_tel_data_add_dict_container(d, "workers", wl, 0);
	}
	/* a source-specific group's sources (IGMPv3/MLDv2 INCLUDE), [] for any source */
	sl = mcfan_tel_array(RTE_TEL_STRING_VAL);
	if (sl != NULL) {
		n_src = mcfan_igmp_sources_list(app, &g->entry->key, src, RTE_DIM(src));
		for (w = 0; w < RTE_MIN(n_src, (unsigned int)RTE_DIM(src)); w++)
			rte_tel_data_add_array_string(sl, src[w]);
		rte_tel_data_add_dict_container(d, "sources", sl, 0);
	}
}

/* /mcfan/groups,GROUP: the joined groups of gv[0..n-1] that want names, as the console's show
 * groups does (mcfan_flow_key_matches(): without a port, every port of the address). One
 * answers in the one-group form; several in the page form's columns with "total" (the groups
 * named), at most a page of them (the first, in join order). */
static int
groups_named(const struct mcfan_app *app, const char *cmd, const struct mcfan_flow_key *want,
	     const struct mcfan_group_view *gv, unsigned int n, struct rte_tel_data *d)
{
	struct rte_tel_data *c[RTE_DIM(page_cols)];
	char text[MCFAN_GROUP_STR_MAX];
	unsigned int i, first = 0, named = 0, n_rows = 0;
	struct page_row *rows;
	int ret;

	for (i = 0; i < n; i++)
		if (mcfan_flow_key_matches(want, &gv[i].entry->key) && named++ == 0)
			first = i;
	if (named == 0) {
		mcfan_group_format(want, text, sizeof(text));
		MCFAN_LOG(WARNING, "telemetry %s: group %s is not joined\n", cmd, text);
		return -ENOENT;
	}
	if (named == 1) {
		group_one(app, &gv[first], d);
		return 0;
	}
	rows = calloc(MCFAN_TEL_GROUPS_PAGE, sizeof(*rows));
	if (rows == NULL)
		return -ENOMEM;
	ret = mcfan_tel_cols_alloc(c, page_cols, RTE_DIM(page_cols));
	if (ret < 0) {
		free(rows);
		return ret;
	}
	for (i = first; i < n && n_rows < MCFAN_TEL_GROUPS_PAGE; i++)
		if (mcfan_flow_key_matches(want, &gv[i].entry->key))
			rows[n_rows++].g = &gv[i];
	rows_add(app, d, c, rows, n_rows);
	free(rows);
	rte_tel_data_add_dict_u64(d, "total", named);
	mcfan_tel_cols_attach(d, c, page_cols, RTE_DIM(page_cols));
	return 0;
}

static int
tel_groups(struct mcfan_app *app, const char *cmd, const char *params,
	   struct rte_tel_data *d)
{
	struct mcfan_group_view *gv;
	struct page_row *rows = NULL;
	struct mcfan_flow_key want;
	struct rte_tel_data *c[RTE_DIM(page_cols)];
	char err[128];
	uint64_t page = 0;
	unsigned int i, first, last, pages;
	uint32_t gen = 0;
	int n, ret = 0;
	bool by_group = false;

	ret = mcfan_tel_param_page_or_group(params, &page, &want, err, sizeof(err));
	if (ret < 0) {
		MCFAN_LOG(WARNING, "telemetry %s: parameter must be a page number or one group "
			  "(e.g. 239.9.9.1:3999): %s\n", cmd, err);
		return -EINVAL;
	}
	by_group = ret == 1;
	ret = 0;
	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	if (gv == NULL)
		return -ENOMEM;
	n = mcfan_groups_read_gen(app, gv, MCFAN_MAX_GROUPS, &gen);
	if (n < 0) {
		free(gv);
		return n;
	}
	if (by_group) {
		ret = groups_named(app, cmd, &want, gv, (unsigned int)n, d);
		free(gv);
		return ret;
	}
	pages = ((unsigned int)n + MCFAN_TEL_GROUPS_PAGE - 1) / MCFAN_TEL_GROUPS_PAGE;
	if (page >= RTE_MAX(pages, 1u)) {
		/* the pages there are, as the replies count them (pages is 0 without groups) */
		if (pages == 0)
			MCFAN_LOG(WARNING, "telemetry %s: page %" PRIu64 " does not exist (no group "
				  "joined: page 0 answers, with empty columns)\n", cmd, page);
		else
			MCFAN_LOG(WARNING, "telemetry %s: page %" PRIu64 " does not exist (pages "
				  "0..%u: %d groups, %d a page)\n", cmd, page, pages - 1, n,
				  MCFAN_TEL_GROUPS_PAGE);
		free(gv);
		return -ENOENT;
	}
	first = (unsigned int)page * MCFAN_TEL_GROUPS_PAGE;
	last = RTE_MIN(first + MCFAN_TEL_GROUPS_PAGE, (unsigned int)n);
	rows = calloc(MCFAN_TEL_GROUPS_PAGE, sizeof(*rows));
	if (rows == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	ret = mcfan_tel_cols_alloc(c, page_cols, RTE_DIM(page_cols));
	if (ret < 0)
		goto out;
	for (i = first; i < last; i++)
		rows[i - first].g = &gv[i];
	rows_add(app, d, c, rows, last - first);
	rte_tel_data_add_dict_u64(d, "total", (uint64_t)n);
	rte_tel_data_add_dict_u64(d, "page", page);
	rte_tel_data_add_dict_u64(d, "pages", pages);
	/* pages of one table have one generation: a join or leave between two pages shows */
	rte_tel_data_add_dict_u64(d, "generation", gen);
	mcfan_tel_cols_attach(d, c, page_cols, RTE_DIM(page_cols));
out:
	free(rows);
	free(gv);
	return ret;
}
MCFAN_TEL_COMMAND(tel_groups, "/mcfan/groups",
		  "Per group counters, 128 a page. Parameter: page number or a group "
		  "(239.9.9.1:3999; 239.9.9.1: every port of the address)")

static int
tel_rings(struct mcfan_app *app, const char *cmd, const char *params,
	  struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[] = {
		{"lcore", RTE_TEL_INT_VAL}, {"size", RTE_TEL_U64_VAL}, {"count", RTE_TEL_U64_VAL},
		{"high_water", RTE_TEL_U64_VAL}, {"enqueued", RTE_TEL_U64_VAL},
		{"drops", RTE_TEL_U64_VAL}, {"frames", RTE_TEL_U64_VAL},
	};
	struct mcfan_worker_view *wv;
	struct rte_tel_data *c[RTE_DIM(cols)];
	unsigned int w;
	int n;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	wv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*wv));
	if (wv == NULL)
		return -ENOMEM;
	n = mcfan_workers_read(app, wv);
	if (n < 0 || mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols)) < 0) {
		free(wv);
		return n < 0 ? n : -ENOMEM;
	}
	for (w = 0; w < (unsigned int)n; w++) {
		rte_tel_data_add_array_int(c[0], (int)wv[w].lcore_id);
		rte_tel_data_add_array_u64(c[1], wv[w].ring_size);
		rte_tel_data_add_array_u64(c[2], wv[w].ring_count);
		rte_tel_data_add_array_u64(c[3], wv[w].ring_high_water);
		rte_tel_data_add_array_u64(c[4], wv[w].enqueued);
		rte_tel_data_add_array_u64(c[5], wv[w].ring_drops);
		rte_tel_data_add_array_u64(c[6], wv[w].frames);
	}
	rte_tel_data_add_dict_u64(d, "rx_lcores", app->n_rx);
	mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
	free(wv);
	return 0;
}
MCFAN_TEL_COMMAND(tel_rings, "/mcfan/rings",
		  "Per worker ring: size, count, high-water, enqueued, drops. No parameters")

static int
tel_counters(struct mcfan_app *app, const char *cmd, const char *params,
	     struct rte_tel_data *d)
{
	struct mcfan_totals t;
	unsigned int k;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	mcfan_totals_read(app, &t);
	rte_tel_data_add_dict_u64(d, "rx_frames", t.rx_frames);
	rte_tel_data_add_dict_u64(d, "rx_bytes", t.rx_bytes);
	rte_tel_data_add_dict_u64(d, "delivered_frames", t.delivered_frames);
	rte_tel_data_add_dict_u64(d, "copies_offered", t.copies_offered);
	rte_tel_data_add_dict_u64(d, "delivered_copies", t.delivered_copies);
	rte_tel_data_add_dict_u64(d, "drops_total", t.drops_total);
	for (k = 1; k < MCFAN_DROP_MAX; k++)
		rte_tel_data_add_dict_u64(d, mcfan_drop_name(k), t.drops[k]);
	/* delivered frames, not a drop: not in drops_total */
	rte_tel_data_add_dict_u64(d, "mac_mismatch", t.mac_mismatch);
	return 0;
}
MCFAN_TEL_COMMAND(tel_counters, "/mcfan/counters",
		  "rx, delivered, copies, every drop reason, mac_mismatch (delivered, not a "
		  "drop). No parameters")

static int
tel_latency(struct mcfan_app *app, const char *cmd, const char *params,
	    struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[] = {
		{"lcore", RTE_TEL_INT_VAL}, {"copies", RTE_TEL_U64_VAL},
		{"p50_ns", RTE_TEL_U64_VAL}, {"p99_ns", RTE_TEL_U64_VAL},
		{"max_ns", RTE_TEL_U64_VAL},
	};
	struct mcfan_latency_view *lv;
	struct rte_tel_data *c[RTE_DIM(cols)], *hist;
	char list[64] = "";
	uint64_t lcore = 0;
	unsigned int w, b;
	size_t used;
	int n;
	bool one = params != NULL && params[0] != '\0';

	if (one && mcfan_tel_param_uint(params, RTE_MAX_LCORE - 1, &lcore) < 0) {
		/* the range, as /mcfan/msacc says it */
		MCFAN_LOG(WARNING, "telemetry %s: parameter must be a worker lcore id 0..%d, got "
			  "'%.64s'\n", cmd, RTE_MAX_LCORE - 1, params);
		return -EINVAL;
	}
	lv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*lv));
	if (lv == NULL)
		return -ENOMEM;
	n = mcfan_latency_read(app, lv);
	if (one) {
		for (w = 0; w < (unsigned int)n && lv[w].lcore_id != lcore; w++)
			;
		if (w == (unsigned int)n) {
			/* name the workers that are: "2", "2, 3, 5" (cut after about 60 characters) */
			for (w = 0, used = 0; w < (unsigned int)n && used < sizeof(list) - 8; w++)
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%u",
							 w == 0 ? "" : ", ", lv[w].lcore_id);
			MCFAN_LOG(WARNING, "telemetry %s: lcore %" PRIu64 " is not a worker lcore "
				  "(worker lcores: %s%s)\n", cmd, lcore, list,
				  w < (unsigned int)n ? ", ..." : "");
			free(lv);
			return -ENOENT;
		}
		rte_tel_data_add_dict_int(d, "lcore", (int)lv[w].lcore_id);
		rte_tel_data_add_dict_u64(d, "copies", lv[w].copies);
		rte_tel_data_add_dict_u64(d, "p50_ns", lv[w].p50_ns);
		rte_tel_data_add_dict_u64(d, "p99_ns", lv[w].p99_ns);
		rte_tel_data_add_dict_u64(d, "max_ns", lv[w].max_ns);
		hist = mcfan_tel_array(RTE_TEL_U64_VAL);
		if (hist != NULL) {
			for (b = 0; b < MCFAN_LAT_BUCKETS; b++)
				rte_tel_data_add_array_u64(hist, lv[w].hist[b]);
			rte_tel_data_add_dict_container(d, "hist_log2_ns", hist, 0);
		}
		free(lv);
		return 0;
	}
	if (mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols)) < 0) {
		free(lv);
		return -ENOMEM;
	}
	for (w = 0; w < (unsigned int)n; w++) {
		rte_tel_data_add_array_int(c[0], (int)lv[w].lcore_id);
		rte_tel_data_add_array_u64(c[1], lv[w].copies);
		rte_tel_data_add_array_u64(c[2], lv[w].p50_ns);
		rte_tel_data_add_array_u64(c[3], lv[w].p99_ns);
		rte_tel_data_add_array_u64(c[4], lv[w].max_ns);
	}
	mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
	free(lv);
	return 0;
}
MCFAN_TEL_COMMAND(tel_latency, "/mcfan/latency",
		  "Per worker RX-to-dequeue time p50, p99, max in ns. Parameter: worker lcore id "
		  "(adds the log2 histogram)")
