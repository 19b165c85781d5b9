/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Console commands of feed quality (docs/feed.md, docs/console.md): set seq, set pair, show
 * feed, show feed gaps. Each only parses, calls control/feed.h and prints.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <rte_common.h>

#include "mcfan.h"
#include "mcfan_feed.h"
#include "control/control.h"
#include "control/feed.h"
#include "console/console.h"

#define NS_PER_US 1000

/* set seq <groups> <kind> */
static int
cmd_set_seq(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_set_seq(mcfan_console_app(con), a->groups,
							   a->kind, msg, sizeof(msg)), msg);
}

MCFAN_CONSOLE_COMMAND(set_seq, 450, "set seq <groups> <kind>", cmd_set_seq,
		      "give joined groups a sequence extractor (iperf2, rtp[:HZ], mpegts, "
		      "moldudp64, OFFSET:WIDTH:be|le) or off (no extractor); counters from zero",
		      "set seq 239.9.9.1-10:3999 iperf2");

/* set pair <A,B> */
static int
cmd_set_pair(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_set_pair(mcfan_console_app(con), a->groups,
							    msg, sizeof(msg)), msg);
}

MCFAN_CONSOLE_COMMAND(set_pair, 460, "set pair <groups>", cmd_set_pair,
		      "arbitrate two groups with one sequence kind as feed lines A,B",
		      "set pair 239.9.9.1:3999,239.9.9.2:3999");

static int
cmd_show_feed(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_feed_view *v;
	struct mcfan_feed_pair_view *pv;
	char text[MCFAN_GROUP_STR_MAX], warn[MCFAN_CTL_MSG_MAX];
	unsigned int n, i, np;

	RTE_SET_USED(a);
	v = mcfan_console_calloc(con, "show feed", MCFAN_MAX_GROUPS, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	pv = mcfan_console_calloc(con, "show feed", MCFAN_FEED_PAIRS_MAX, sizeof(*pv));
	if (pv == NULL) {
		free(v);
		return -ENOMEM;
	}
	n = mcfan_feed_read(app, v, MCFAN_MAX_GROUPS);
	/* late beside lost: expected = received - late + lost + pending (docs/feed.md) */
	printf("  %-24s %-10s %5s %12s %12s %9s %6s %8s %9s %9s %6s %6s %11s %10s\n", "group",
	       "kind", "lcore", "expected", "received", "lost", "late", "pending", "reordered",
	       "dups", "resets", "gaps", "jitter_us", "malformed");
	for (i = 0; i < n; i++) {
		mcfan_group_format(&v[i].key, text, sizeof(text));
		printf("  %-24s %-10s %5u %12" PRIu64 " %12" PRIu64 " %9" PRIu64 " %6" PRIu64
		       " %8" PRIu64 " %9" PRIu64 " %9" PRIu64 " %6" PRIu64 " %6" PRIu64 " %11.1f %10"
		       PRIu64 "\n", text, v[i].kind, v[i].lcore, v[i].c.expected, v[i].c.received,
		       v[i].c.lost, v[i].c.late, v[i].c.pending, v[i].c.reordered, v[i].c.duplicates, v[i].c.resets,
		       v[i].c.gaps, (double)v[i].c.jitter_ns / NS_PER_US, v[i].c.malformed);
	}
	for (i = 0; i < n; i++)
		if (mcfan_feed_kind_suspect(&v[i].c))
			printf("%s\n", mcfan_feed_suspect_line(&v[i], warn, sizeof(warn)));
	(void)mcfan_feed_ring_drop_notes(app, v, n, "", stdout);
	np = mcfan_feed_pairs_read(app, pv, MCFAN_FEED_PAIRS_MAX);
	for (i = 0; i < np; i++)
		mcfan_feed_pair_print(&pv[i], "", stdout);
	printf("%u group%s with a sequence extractor, %u pair%s (docs/feed.md)\n", n,
	       n == 1 ? "" : "s", np, np == 1 ? "" : "s");
	free(pv);
	free(v);
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_feed, 260, "show feed", cmd_show_feed,
		      "feed quality per group with a sequence extractor, and A/B pairs",
		      "show feed");

#define UTC_TEXT_MAX 40

/* ns since the epoch as 2026-12-06T03:28:55.123456789Z */
static const char *
utc_text(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000ull);
	struct tm tm;
	size_t n;

	if (gmtime_r(&s, &tm) == NULL || (n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm)) == 0)
		return "-";
	snprintf(buf + n, len - n, ".%09" PRIu64 "Z", (uint64_t)(ns % 1000000000ull));
	return buf;
}

static int
cmd_show_feed_gaps(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_feed_gap log[MCFAN_FEED_GAP_LOG];
	struct mcfan_feed_view v;
	char msg[MCFAN_CTL_MSG_MAX], text[MCFAN_GROUP_STR_MAX], utc[UTC_TEXT_MAX];
	int n, i;

	n = mcfan_feed_gaps_read(app, "show feed gaps", a->groups, &v, log, RTE_DIM(log), msg,
				 sizeof(msg));
	if (n < 0)
		return mcfan_console_result(con, n, msg);
	mcfan_group_format(&v.key, text, sizeof(text));
	printf("  %6s %20s %20s %8s %16s  %s\n", "stream", "first", "last", "lost", "time_ns",
	       "utc (the pcap files' clock)");
	for (i = 0; i < n; i++)
		printf("  %6u %20" PRIu64 " %20" PRIu64 " %8" PRIu64 " %16" PRIu64 "  %s\n",
		       log[i].stream, log[i].first, log[i].last, log[i].lost, log[i].t_ns,
		       utc_text(mcfan_feed_epoch_ns(app, log[i].t_ns), utc, sizeof(utc)));
	printf("%s (%s): %" PRIu64 " gap event%s, the last %d shown\n", text, v.kind,
	       v.c.gap_log_total, v.c.gap_log_total == 1 ? "" : "s", n);
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_feed_gaps, 270, "show feed gaps <groups>", cmd_show_feed_gaps,
		      "the gap log of one group: first and last missing number, lost, time",
		      "show feed gaps 239.9.9.1:3999");
