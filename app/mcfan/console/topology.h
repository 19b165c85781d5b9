/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_CONSOLE_TOPOLOGY_H
#define MCFAN_APP_CONSOLE_TOPOLOGY_H

#include <stdio.h>

struct mcfan_placement_view;

/**
 * `show topology`: the map and where it came from, the bind type, EAL's lcores, the table
 * of what runs, the CPUs with more than one lcore, and where the mempool, each ring (with
 * its worker's node) and each port's queues live.
 *
 * @param v
 *   The placement's read view (mcfan_placement_view_get()); read only.
 * @param f
 *   Where to print.
 * @return
 *   0; -ENOMEM (nothing printed); -EIO when f reports an error.
 */
int mcfan_console_topology_print(const struct mcfan_placement_view *v, FILE *f);

#endif /* MCFAN_APP_CONSOLE_TOPOLOGY_H */
