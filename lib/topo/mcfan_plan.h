/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_PLAN_H
#define MCFAN_PLAN_H

/**
 * @file
 * The placement planner (docs/topology.md, "Placement"): a +sct map, a bind type, lcore
 * counts and the nodes of the ports in; the lcore table (control lcore, RX lcores,
 * workers), EAL's --lcores argument and the CPUs that carry more than one lcore out.
 *
 * Pure: no EAL, no I/O but the FILE a caller hands to mcfan_plan_rows_print(), no global
 * state. A plan is owned by its caller and freed with mcfan_plan_free().
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mcfan_hosttopo.h"
#include "mcfan_sct.h"

/** A port whose node is the control lcore's (a vdev), in mcfan_plan_req.port_nodes. */
#define MCFAN_PLAN_NODE_CONTROL (-2)

/** What to place. */
struct mcfan_plan_req {
	const struct mcfan_sct_map *map; /**< The CPUs to use; not NULL. */
	enum mcfan_sct_bind bind;     /**< The order CPUs are handed out in. */
	unsigned int n_rx;            /**< RX lcores, >= 1. */
	unsigned int n_workers;       /**< Worker lcores; 0: the RX lcores are workers too. */
	int32_t control_cpu;          /**< CPU of the control lcore; -1: the first of the bind
				       *   order (u: float over the map). */
	const int32_t *port_nodes;    /**< Node of port i: >= 0, -1 unknown (any node), or
				       *   MCFAN_PLAN_NODE_CONTROL; NULL: no ports known. */
	unsigned int n_ports;         /**< Entries of port_nodes; ports go round-robin to the
				       *   RX lcores, so RX lcore r polls port r first. */
	unsigned int max_lcores;      /**< Lcore ids stay below this (RTE_MAX_LCORE); 0: any. */
};

/** One lcore of a placement. */
struct mcfan_plan_row {
	unsigned int lcore;           /**< Lcore id: 0 control, 1..n_rx RX, then workers. */
	uint32_t role;                /**< enum mcfan_role bits (mcfan_msacc.h). */
	int32_t cpu;                  /**< The CPU it is pinned to; -1 when it floats. */
	char *cpus;                   /**< Its CPU list ("3", "0-23"), malloc'd, owned. */
	int32_t thread;               /**< Its CPU's thread id in the map; -1 unknown/mixed. */
	int32_t core;                 /**< Its CPU's core id; -1 unknown or mixed. */
	int32_t processor;            /**< Its CPU's processor id; -1 unknown or mixed. */
	int32_t node;                 /**< Its CPU's (or every CPU of its set's) node; -1. */
	int32_t want_node;            /**< RX: node of the port it polls first; -1 any. */
};

/** A placement: the table and what it implies. Every pointer is owned by the plan. */
struct mcfan_plan {
	enum mcfan_sct_bind bind;     /**< As asked. */
	unsigned int *order;          /**< The bind order (u: every CPU, ascending). */
	unsigned int n_order;         /**< CPUs of the map. */
	struct mcfan_plan_row *rows;  /**< Control lcore, RX lcores, workers. */
	unsigned int n_rows;          /**< 1 + n_rx + n_workers. */
	char *lcores_arg;             /**< EAL --lcores value ("0@0,1@2", "1@(0-3)"). */
	unsigned int *shared;         /**< CPUs that carry more than one lcore, ascending. */
	unsigned int *shared_lcores;  /**< How many lcores each of them carries. */
	unsigned int n_shared;        /**< Entries of shared and shared_lcores. */
	bool oversubscribed;          /**< More lcores than CPUs. */
};

/**
 * Place the lcores. The control lcore takes --control-cpu or the first CPU of the bind
 * order; then each data lcore, RX lcores first, takes the CPU carrying the fewest lcores
 * so far, the earliest in the bind order among equals (an RX lcore only among the CPUs on
 * its port's node, when the map has any there). Bind type u pins nothing: the control
 * lcore floats over the map (or sits on control_cpu), data lcores over the rest.
 *
 * @param req
 *   What to place; read only.
 * @param out
 *   On success the new plan, owned by the caller (mcfan_plan_free()).
 * @param err
 *   Buffer for one line saying what is wrong, without a trailing newline; may be NULL.
 * @param err_len
 *   Size of err in bytes.
 * @return
 *   0; -EINVAL (NULL req or out, no map, bad bind type, no RX lcore, more lcores than
 *   req->max_lcores, control_cpu not in the map; err says which) or -ENOMEM ("out of
 *   memory"). *out is untouched on error.
 */
int mcfan_plan_build(const struct mcfan_plan_req *req, struct mcfan_plan **out, char *err,
		     size_t err_len);

/**
 * Free a plan and everything it owns.
 *
 * @param plan
 *   From mcfan_plan_build(); NULL does nothing.
 */
void mcfan_plan_free(struct mcfan_plan *plan);

/**
 * A CPU set as text in corelist syntax ("0-3,8").
 *
 * @param set
 *   The set; read only.
 * @return
 *   The text, malloc'd, owned by the caller; NULL without memory.
 */
char *mcfan_plan_cpuset_text(const struct mcfan_cpuset *set);

/**
 * The logical CPUs a map names, as text in corelist syntax ("0-3,8").
 *
 * @param map
 *   The map; read only.
 * @return
 *   The text, malloc'd, owned by the caller; NULL without memory or without a map.
 */
char *mcfan_plan_map_cpus_text(const struct mcfan_sct_map *map);

/**
 * A map as +sct text (mcfan_sct_format()).
 *
 * @param map
 *   The map; read only.
 * @param flags
 *   MCFAN_SCT_FORMAT_* flags (MCFAN_SCT_FORMAT_COMPACT: ranges), 0 one entry a CPU.
 * @return
 *   The text, malloc'd, owned by the caller; NULL without memory or with a NULL map.
 */
char *mcfan_plan_map_text(const struct mcfan_sct_map *map, unsigned int flags);

/**
 * Fill a row's thread, core, processor and node from the map: those of row->cpu when it
 * is >= 0; otherwise, for a set, only the node, and only when every CPU of the set is on
 * the same one. Ids the map does not know stay -1.
 *
 * @param row
 *   The row; row->cpu is read, the ids written.
 * @param map
 *   The map; NULL leaves every id -1.
 * @param set
 *   The CPUs of a row that floats (row->cpu < 0); NULL leaves the ids -1.
 */
void mcfan_plan_row_ids(struct mcfan_plan_row *row, const struct mcfan_sct_map *map,
			const struct mcfan_cpuset *set);

/**
 * Print a placement table: a header line, then one line a row with lcore, role, CPU (or
 * CPU list), thread, core, processor and node ("-" for -1), columns as docs/topology.md
 * shows them. The same text serves --print-placement, the start-up table and `show
 * topology`.
 *
 * @param f
 *   Where to print.
 * @param rows
 *   The rows; read only.
 * @param n
 *   How many.
 * @return
 *   0, or -EIO when f reports an error.
 */
int mcfan_plan_rows_print(FILE *f, const struct mcfan_plan_row *rows, unsigned int n);

/**
 * Print the CPUs that carry more than one lcore as " 0 (2 lcores), 1 (2 lcores)", with no
 * newline: the tail of the oversubscription warning and of `show topology`.
 *
 * @param f
 *   Where to print.
 * @param cpus
 *   The CPUs.
 * @param lcores
 *   How many lcores each carries.
 * @param n
 *   Entries of cpus and lcores.
 * @return
 *   0, or -EIO when f reports an error.
 */
int mcfan_plan_shared_print(FILE *f, const unsigned int *cpus, const unsigned int *lcores,
			    unsigned int n);

#endif /* MCFAN_PLAN_H */
