/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_PLACEMENT_CLI_H
#define MCFAN_APP_PLACEMENT_CLI_H

/*
 * Placement on the command line (placement_cli.c): what main() calls around
 * control/placement.c, and everything placement says on standard output and standard
 * error: --print-topology, --print-placement [--json], the refusals, the oversubscription
 * warning and the start-up table. Main lcore only.
 */

struct mcfan_app;
struct mcfan_config;

/**
 * Before rte_eal_init: --print-topology and --print-placement (print, then exit 0), the
 * refusals (printed, exit 2, or 1 when the host's map is unreadable or memory is short),
 * and, when mcfan places the lcores, EAL's --lcores inserted into *eal_argv and the roles
 * into cfg.
 *
 * @param status
 *   With a return of 1, the exit status.
 * @return
 *   0: go on; 1: exit with *status.
 */
int mcfan_placement_cli_pre_eal(struct mcfan_config *cfg, int *eal_argc, char ***eal_argv,
				int *status);

/**
 * After rte_eal_init, before mcfan_setup_lcores(): mcfan_placement_roles(), its refusal
 * printed.
 *
 * @return
 *   0, or -EINVAL (printed).
 */
int mcfan_placement_cli_roles(struct mcfan_app *app);

/**
 * Once lcores, rings, pool and ports exist: mcfan_placement_report(), then, when placement
 * was asked for, the start-up table on standard output and, for the user's own EAL
 * lcores, the oversubscription warning.
 */
void mcfan_placement_cli_report(struct mcfan_app *app);

#endif /* MCFAN_APP_PLACEMENT_CLI_H */
