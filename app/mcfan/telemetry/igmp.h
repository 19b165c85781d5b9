/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_TELEMETRY_IGMP_H
#define MCFAN_TELEMETRY_IGMP_H

/*
 * The report's IGMP/MLD section (telemetry/igmp.c, read side control/igmp.h); report.c
 * calls these. docs/igmp.md gives the shapes.
 */

#include <stdio.h>

#include <jansson.h>

struct mcfan_app;

/**
 * Print the IGMP/MLD section of the text report: per port and protocol the mode, the
 * version spoken, the querier, the counters and the groups.
 *
 * @param f
 *   Where to print.
 */
void mcfan_igmp_report_print(const struct mcfan_app *app, FILE *f);

/**
 * The report's "igmp" object: {dequeued, ctl_ring_full, unknown_port, ports: [{port,
 * filter_mode, tx_frames, tx_failed, igmp: {...}, mld: {...}}]}.
 *
 * @return
 *   A new JSON object, or NULL without memory.
 */
json_t *mcfan_igmp_report_json(const struct mcfan_app *app);

#endif /* MCFAN_TELEMETRY_IGMP_H */
