/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_PLACEMENT_H
#define MCFAN_APP_PLACEMENT_H

/*
 * Placement of mcfan's lcores on the CPUs of a +sct topology map in the order of a bind type
 * (docs/topology.md, "Placement"). Planning (mcfan_plan_*) is pure: map, bind type, counts
 * and port nodes in, a table and the EAL --lcores argument out. The rest ties it to the
 * application: options before EAL, roles, the startup table, `show topology`, the
 * /mcfan/topology telemetry command and the report's "topology" key.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "mcfan_hosttopo.h"
#include "mcfan_sct.h"

struct mcfan_app;
struct mcfan_config;
struct rte_tel_data;

/* A port whose node is the control lcore's (a vdev), in mcfan_plan_req.port_nodes. */
#define MCFAN_PLC_NODE_CONTROL (-2)

/* What to place. */
struct mcfan_plan_req {
	const struct mcfan_sct_map *map;
	enum mcfan_sct_bind bind;
	unsigned int n_rx;            /* RX lcores, >= 1 */
	unsigned int n_workers;       /* worker lcores; 0 = the RX lcores are workers too */
	int32_t control_cpu;          /* -1: the first CPU of the bind order (u: float) */
	const int32_t *port_nodes;    /* node of port i, -1 unknown, MCFAN_PLC_NODE_CONTROL */
	unsigned int n_ports;         /* ports go round-robin to the RX lcores */
	unsigned int max_lcores;      /* lcore ids must stay below this (RTE_MAX_LCORE) */
};

/* One lcore of a placement. */
struct mcfan_plc_row {
	unsigned int lcore;
	uint32_t role;                /* MCFAN_ROLE_* bits */
	int32_t cpu;                  /* the CPU it is pinned to; -1 when it floats over cpus */
	char *cpus;                   /* its CPU list ("3", "0-23") */
	int32_t thread, core, processor, node; /* its CPU's ids in the map; -1 unknown/mixed */
	int32_t want_node;            /* RX: node of the port it polls first; -1 = any */
};

/* A placement: the table and what it implies. */
struct mcfan_plan {
	enum mcfan_sct_bind bind;
	unsigned int *order;          /* the bind order (u: every CPU, ascending) */
	unsigned int n_order;
	struct mcfan_plc_row *rows;   /* control lcore, RX lcores, workers */
	unsigned int n_rows;
	char *lcores_arg;             /* EAL --lcores value */
	unsigned int *shared;         /* CPUs that carry more than one lcore, ascending */
	unsigned int *shared_lcores;  /* how many each */
	unsigned int n_shared;
	bool oversubscribed;          /* more lcores than CPUs */
};

/* Plan. 0, or -EINVAL (message in err: bad counts, control CPU not in the map, too many
 * lcores) or -ENOMEM. */
int mcfan_plan_build(const struct mcfan_plan_req *req, struct mcfan_plan **out, char *err,
		     size_t err_len);
void mcfan_plan_free(struct mcfan_plan *plan);

/* Before rte_eal_init: --print-topology / --print-placement (print, then *status = 0 and
 * return 1), refusals (*status = 2, return 1), and, when mcfan places the lcores, the EAL
 * --lcores argument inserted into *eal_argv and the roles into cfg. 0: go on. */
int mcfan_placement_pre_eal(struct mcfan_config *cfg, int *eal_argc, char ***eal_argv,
			    int *status);
/* After rte_eal_init, before mcfan_setup_lcores: with the user's EAL lcores, --rx/--workers
 * pick the roles among them. 0 or -EINVAL (message printed). */
int mcfan_placement_roles(struct mcfan_app *app);
/* Once lcores, rings and pool exist: build the table of what runs; print it if placement
 * was asked for. */
void mcfan_placement_report(struct mcfan_app *app);
/* `show topology`: map, bind type, table, where the mempool, rings and ports live. */
int mcfan_placement_print(struct mcfan_app *app, FILE *f);
/* The report's "topology" value (a new reference), NULL without memory. */
json_t *mcfan_placement_json(struct mcfan_app *app);
/* /mcfan/topology (telemetry.c's table). */
int mcfan_placement_tel(const char *cmd, const char *params, struct rte_tel_data *d);
void mcfan_placement_free(void);

#endif /* MCFAN_APP_PLACEMENT_H */
