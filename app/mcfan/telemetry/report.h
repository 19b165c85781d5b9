/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_REPORT_H
#define MCFAN_APP_REPORT_H

/*
 * The report's JSON pieces for placement (report.c), in the shapes docs/topology.md gives
 * for the report's "topology" key; --print-placement --json prints a plan with the same
 * pieces (placement_cli.c). Each returns a new reference, or NULL without memory.
 */

#include <jansson.h>

#include "control/placement.h"

/**
 * The map as a list of {cpu, thread, core, processor, node} (node null when unknown).
 *
 * @param map
 *   The map; NULL gives an empty list.
 * @return
 *   A new JSON array, or NULL without memory.
 */
json_t *mcfan_report_map_json(const struct mcfan_sct_map *map);

/**
 * Placement rows as a list of {lcore, role, cpu, cpus, thread, core, processor, node},
 * unknown ids (and the cpu of a floating row) null.
 *
 * @return
 *   A new JSON array, or NULL without memory.
 */
json_t *mcfan_report_rows_json(const struct mcfan_plan_row *rows, unsigned int n);

/**
 * CPUs that carry more than one lcore as a list of {cpu, lcores}.
 *
 * @return
 *   A new JSON array, or NULL without memory.
 */
json_t *mcfan_report_shared_json(const unsigned int *cpus, const unsigned int *lcores,
				 unsigned int n);

/**
 * The report's "topology" value: map, map_source, map_cpus, bind, bind_erlang,
 * eal_lcores, placement, oversubscribed, mempools, rings and ports.
 *
 * @param v
 *   The placement's read view.
 * @return
 *   A new JSON object, or NULL without memory.
 */
json_t *mcfan_report_topology_json(const struct mcfan_placement_view *v);

#endif /* MCFAN_APP_REPORT_H */
