/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_PLACEMENT_H
#define MCFAN_APP_PLACEMENT_H

/*
 * Placement of mcfan's lcores on the CPUs of a +sct topology map in the order of a bind type
 * (docs/topology.md, "Placement"), tied to the application: the map and the plan before
 * EAL, roles after it, and once everything is set up a read view of what runs where. The
 * planning itself is pure (lib/topo/mcfan_plan.h).
 *
 * This file prints nothing, builds no JSON and serves no telemetry: refusals come back as
 * one line of text in err, and the view is formatted by its users: the start-up table and
 * the print options (placement_cli.c), `show topology` (console/topology.c), /mcfan/topology
 * (telemetry/topology.c) and the report's "topology" key (telemetry/report.c).
 *
 * Lifecycle (main lcore): mcfan_placement_load(), then mcfan_placement_plan() for
 * --print-placement or mcfan_placement_apply() before rte_eal_init;
 * mcfan_placement_roles() before the lcores are set up; mcfan_placement_report() once
 * lcores, rings, pool and ports exist. After that the state here is only read (console,
 * telemetry thread, report) until mcfan_placement_free().
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mcfan_hosttopo.h"
#include "mcfan_plan.h"
#include "mcfan_sct.h"

struct mcfan_app;
struct mcfan_config;

/** A ring between an RX lcore and a worker, and where it lives. */
struct mcfan_placement_ring {
	const char *name;             /**< The ring's name; "" if it is missing. */
	int node;                     /**< Node of its memzone; -1 unknown. */
	unsigned int rx_lcore;        /**< The RX lcore that fills it. */
	unsigned int worker_lcore;    /**< The worker that drains it. */
	int worker_node;              /**< The worker's node; -1 unknown. */
};

/** A port in use, and where its queues live. */
struct mcfan_placement_port {
	uint16_t port;                /**< Port id. */
	const char *name;             /**< Its device name. */
	int node;                     /**< Node of its queues (the socket it was set up on). */
};

/**
 * What runs where: the read view behind `show topology`, /mcfan/topology, the report's
 * "topology" key and the start-up table. Filled by mcfan_placement_view_get(); strings and
 * rows point into the placement state and stay valid until mcfan_placement_free(); rings
 * and ports are owned by the view (mcfan_placement_view_put()).
 */
struct mcfan_placement_view {
	const struct mcfan_sct_map *map; /**< --cpu-topology or the host's; NULL unknown. */
	bool map_from_option;         /**< The map came from --cpu-topology. */
	bool requested;               /**< A placement option was given. */
	bool generated;               /**< mcfan built EAL's --lcores (bind applied). */
	enum mcfan_sct_bind bind;     /**< The bind type; meaningful only when generated. */
	const char *lcores_arg;       /**< The --lcores mcfan built; NULL unless generated. */
	const struct mcfan_plan_row *rows; /**< Every enabled lcore with its EAL cpuset. */
	unsigned int n_rows;
	const unsigned int *shared;   /**< Pinned CPUs that carry more than one lcore. */
	const unsigned int *shared_lcores; /**< How many each. */
	unsigned int n_shared;
	unsigned int n_map_cpus;      /**< CPUs of the map; 0 without one. */
	bool has_mempool;             /**< The mempool fields below are set. */
	const char *mempool;          /**< The mbuf pool's name. */
	int mempool_node;             /**< Node of its first memory chunk; -1 unknown. */
	int mempool_socket_asked;     /**< The socket it was created for. */
	unsigned int mempool_rx_lcore; /**< The first RX lcore (0 without RX lcores). */
	int mempool_rx_node;          /**< That lcore's node; -1 unknown. */
	struct mcfan_placement_ring *rings; /**< RX lcore-major, worker-minor. */
	unsigned int n_rings;
	struct mcfan_placement_port *ports; /**< Ports in use, ascending. */
	unsigned int n_ports;
};

/**
 * Before rte_eal_init: take the placement options of cfg and read the map (--cpu-topology,
 * or the host's; without a placement or print option an unreadable host only leaves the
 * map unknown).
 *
 * @return
 *   0; or a refusal with err set and *status the exit status: MCFAN_EXIT_USAGE (--json
 *   without --print-placement, both --rx/--workers and --rx-lcores/--worker-lcores, a bad
 *   map), EXIT_FAILURE (the host's map is unreadable and one is needed).
 */
int mcfan_placement_load(const struct mcfan_config *cfg, int *status, char *err, size_t len);

/**
 * The map that mcfan_placement_load() read.
 *
 * @param from_option
 *   Set to whether it came from --cpu-topology; may be NULL.
 * @return
 *   The map, owned by the placement state; NULL if unknown.
 */
const struct mcfan_sct_map *mcfan_placement_map(bool *from_option);

/**
 * Plan the lcores for the loaded map, cfg's counts and the ports the EAL arguments name
 * (PCI devices in address order, then the vdevs), without applying it (--print-placement).
 *
 * @param plan
 *   The new plan, owned by the caller (mcfan_plan_free()).
 * @return
 *   0; -EINVAL when the EAL arguments give the lcores (-l, -c, --lcores: they run as
 *   given, there is no plan); or the negative errno of mcfan_plan_build() with err set
 *   ("placement: ...").
 */
int mcfan_placement_plan(const struct mcfan_config *cfg, int eal_argc, char **eal_argv,
			 struct mcfan_plan **plan, char *err, size_t len);

/**
 * Before rte_eal_init, when placement was asked for: refuse a map with CPUs not online or
 * not allowed, a --control-cpu outside the map, --main-lcore without -l/--lcores; without
 * -l/-c/--lcores, plan, insert EAL's --lcores into *eal_argv (the new argv is owned here
 * until mcfan_placement_free()) and set the roles in cfg.
 *
 * @param planned
 *   Set to the plan applied (read only, owned here), or NULL when nothing was generated.
 * @return
 *   0; or -EINVAL (refused, err set, exit status MCFAN_EXIT_USAGE) or -ENOMEM (err set,
 *   EXIT_FAILURE).
 */
int mcfan_placement_apply(struct mcfan_config *cfg, int *eal_argc, char ***eal_argv,
			  const struct mcfan_plan **planned, char *err, size_t len);

/**
 * After rte_eal_init, before mcfan_setup_lcores(): with the user's EAL lcores, --rx and
 * --workers pick the roles among EAL's data lcores in order.
 *
 * @return
 *   0, or -EINVAL (too few data lcores; err set).
 */
int mcfan_placement_roles(struct mcfan_app *app, char *err, size_t len);

/**
 * Once lcores, rings, pool and ports exist: build the table of what runs, and log a
 * warning for an lcore EAL did not put where the plan said and for an RX lcore away from
 * the node of a port it polls. Telemetry's /mcfan/topology answers from then on.
 *
 * @return
 *   0, or -ENOMEM (logged; the view then has no rows).
 */
int mcfan_placement_report(struct mcfan_app *app);

/**
 * Fill a read view of the placement (see struct mcfan_placement_view).
 *
 * @param app
 *   The application; NULL: the one of mcfan_placement_report().
 * @param v
 *   The view to fill; release it with mcfan_placement_view_put().
 * @return
 *   0; -EAGAIN before mcfan_placement_report(); -ENOMEM (nothing to release).
 */
int mcfan_placement_view_get(struct mcfan_app *app, struct mcfan_placement_view *v);

/**
 * Release what a view owns (rings and ports).
 *
 * @param v
 *   Filled by mcfan_placement_view_get(); NULL does nothing.
 */
void mcfan_placement_view_put(struct mcfan_placement_view *v);

/** Free the placement state (after rte_eal_cleanup: EAL's argv may be the one built here). */
void mcfan_placement_free(void);

/**
 * Whether lcore id may run on a CPU of an RX lcore other than itself: their EAL cpusets
 * intersect. Main lcore, once the roles are set.
 *
 * @param id
 *   An lcore id, 0..RTE_MAX_LCORE-1.
 * @return
 *   true if it may; false otherwise.
 */
bool mcfan_placement_shares_rx_cpu(const struct mcfan_app *app, unsigned int id);

/**
 * Hosted workers (docs/idle.md "Hosted workers"): with --host-workers auto (the default)
 * and no --idle-worker, when there is exactly one RX lcore and EAL pins it to one CPU,
 * every worker-only lcore that EAL pins to that same CPU (and to it only) is hosted by the
 * RX lcore: its worker step runs in the RX lcore's thread after each RX pass, so a frame
 * costs no wake-up and no context switch, and its own thread only waits for the end. Sets
 * every lcore's host_id (RTE_MAX_LCORE: not hosted) and the host's hosted[]. Main lcore,
 * once the roles are set, before the idle set-up and the launch.
 *
 * @param why
 *   Receives the decision in words, e.g. "auto (10 worker lcores on CPU 1 of RX lcore
 *   1, hosted by it)" or why none is hosted, cut to len - 1 characters.
 * @param shared
 *   Receives whether a worker-only lcore may run on a CPU of an RX lcore: then the decision
 *   is worth a start line even when none is hosted.
 * @return
 *   The number of hosted worker lcores (0 = none).
 */
unsigned int mcfan_placement_hosts(struct mcfan_app *app, char *why, size_t len,
				   bool *shared);

/** The mbuf pool's handler when data lcores share a CPU (mcfan_placement_pool_ops()). */
#define MCFAN_POOL_OPS_SHARED "stack"

/**
 * How many other data lcores (RX or worker role) may run on a CPU of lcore id: their EAL
 * cpusets intersect (docs/idle.md "Defaults"). Main lcore, once the roles are set
 * (mcfan_setup_lcores()).
 *
 * @param id
 *   An lcore id, 0..RTE_MAX_LCORE-1.
 * @param cpu
 *   Receives the first CPU it shares, -1 if none.
 * @param worker
 *   Receives whether one of those lcores has the worker role.
 * @return
 *   The number of other data lcores sharing a CPU with it (0 = alone).
 */
unsigned int mcfan_placement_share(const struct mcfan_app *app, unsigned int id, int *cpu,
				   bool *worker);

/**
 * The mempool handler (rte_mempool ops name) of the mbuf pool, by placement
 * (docs/performance.md "Scale"): the EAL's --mbuf-pool-ops-name if given; else
 * MCFAN_POOL_OPS_SHARED ("stack", LIFO) when two data lcores share a CPU: the default ring
 * handler (ring_mp_mc) is not preemption safe, a thread preempted inside an enqueue makes
 * every other lcore that frees or allocates spin until it runs again (0.05 M copies/s
 * against 12 M with 4 workers on one CPU); else DPDK's best (rte_mbuf_best_mempool_ops(),
 * ring_mp_mc on x86). Main lcore, after the roles are set, before the pool is made.
 *
 * @param why
 *   Receives the reason, e.g. "default-shared (lcore 2 shares CPU 0 with another data
 *   lcore)", cut to len - 1 characters.
 * @return
 *   The handler name (static storage or the EAL's).
 */
const char *mcfan_placement_pool_ops(const struct mcfan_app *app, char *why, size_t len);

/** Slots of each worker ring by default when a worker shares a CPU (mcfan_placement_ring_size()). */
#define MCFAN_RING_SIZE_SHARED 8192
/** Most ring slots in all (n_rx x n_workers rings) that the shared default gives: the pool
 *  holds an mbuf for each (about 230 MiB of 2 KiB mbufs at this bound). */
#define MCFAN_RING_SLOTS_SHARED 98304

/**
 * Slots of each RX-to-worker ring, by placement (docs/performance.md "Worker rings by
 * placement"): --ring-size (command line or config file) if given; else, when a worker lcore
 * that is not hosted (mcfan_placement_hosts(), called before) shares a CPU with another data
 * lcore, MCFAN_RING_SIZE_SHARED, lowered to the largest power
 * of two that keeps n_rx x n_workers rings within MCFAN_RING_SLOTS_SHARED and never below
 * MCFAN_DEFAULT_RING_SIZE: a worker waiting for its time slice meets every frame that came
 * meanwhile in its ring (the seed's 10 workers on one CPU at 165 kpps lost 3 % of their
 * copies to 1024-slot rings, none to 8192); else MCFAN_DEFAULT_RING_SIZE. Main lcore, after
 * the roles are set (mcfan_setup_lcores()), before the rings and the pool are made.
 *
 * @param why
 *   Receives the reason, e.g. "default-shared (worker lcore 2 shares CPU 1 with another data
 *   lcore)", cut to len - 1 characters.
 * @return
 *   The ring size, a power of two >= the burst (the option's own checks, or a default).
 */
unsigned int mcfan_placement_ring_size(const struct mcfan_app *app, char *why, size_t len);

#endif /* MCFAN_APP_PLACEMENT_H */
