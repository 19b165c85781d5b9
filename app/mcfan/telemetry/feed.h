/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_TELEMETRY_FEED_H
#define MCFAN_APP_TELEMETRY_FEED_H

/*
 * The report's feed-quality pieces (telemetry/feed.c, docs/feed.md): the per-group `feed`
 * object, the `feed_pairs` list and the text lines. The report (report.c) calls these.
 */

#include <stdio.h>

#include <jansson.h>

#include "mcfan.h"
#include "control/stats.h"

/**
 * A JSON report number above INT64_MAX (jansson's json_int_t is signed): an 8-byte sequence
 * number of a gap event goes into the tree as the string MCFAN_JSON_U64_MARK "DIGITS", and
 * the report's writer (telemetry/report.c) writes it as the bare number DIGITS. In the
 * dumped text the mark reads MCFAN_JSON_U64_DUMPED (jansson escapes the control byte).
 */
#define MCFAN_JSON_U64_MARK "\x01u64:"
#define MCFAN_JSON_U64_DUMPED "\"\\u0001u64:"

/**
 * Add the object "feed" (expected, received, lost, pending, reordered, late, duplicates,
 * gaps, resets, sessions, ends, heartbeats, malformed, jitter_ns, kind, lcore, gap_hist,
 * gap_log: the gap events, each first, last, lost, stream, time_ns and epoch_ns) to a group's
 * report object, if the group has a sequence extractor; for a left group (g->left), if it
 * had one at its leave: its final results (mcfan_feed_left_read()).
 *
 * @param g
 *   The group's row (mcfan_groups_read(), or mcfan_left_groups_read() for a left one).
 * @param o
 *   The group's JSON object.
 */
void mcfan_feed_report_group_json(const struct mcfan_app *app, const struct mcfan_group_view *g,
				  json_t *o);

/**
 * The A/B pairs: a list of {"lines": [{group, first_arrivals, lost, arb_duplicates,
 * skew_p50_ns, skew_p99_ns}...], merged counters}.
 *
 * @return
 *   A new JSON array, or NULL when there is no pair (or no memory).
 */
json_t *mcfan_feed_report_pairs_json(const struct mcfan_app *app);

/**
 * The text report's feed lines (nothing when no group has or had an extractor): a row per
 * group joined now with an extractor, then one per left group that had one at its leave,
 * with its final results and "(left at T s)", in the order of the left rows given.
 *
 * @param left
 *   The report's left group rows (mcfan_left_groups_read()), oldest leave first.
 * @param n_left
 *   Number of rows at left.
 * @param f
 *   Where to print.
 */
void mcfan_feed_report_print(const struct mcfan_app *app, const struct mcfan_group_view *left,
			     unsigned int n_left, FILE *f);

#endif /* MCFAN_APP_TELEMETRY_FEED_H */
