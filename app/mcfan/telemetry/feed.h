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
 * report object, if the group has a sequence extractor.
 *
 * @param o
 *   The group's JSON object.
 */
void mcfan_feed_report_group_json(const struct mcfan_app *app, const struct mcfan_flow_key *key,
				  json_t *o);

/**
 * The A/B pairs: a list of {"lines": [{group, first_arrivals, lost, arb_duplicates,
 * skew_p50_ns, skew_p99_ns}...], merged counters}.
 *
 * @return
 *   A new JSON array, or NULL when there is no pair (or no memory).
 */
json_t *mcfan_feed_report_pairs_json(const struct mcfan_app *app);

/** The text report's feed lines (nothing when no group has an extractor). */
void mcfan_feed_report_print(const struct mcfan_app *app, FILE *f);

#endif /* MCFAN_APP_TELEMETRY_FEED_H */
