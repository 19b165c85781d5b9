/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_GROUPS_H
#define MCFAN_CONTROL_GROUPS_H

/*
 * Groups, the control side (control/groups.c): the group actions (join, leave, set fanout;
 * the conventions of control/control.h), the counter slots, the publication of the group
 * table with RCU and the ports' multicast MAC filters.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "mcfan.h"

/**
 * Build and publish the group table of --groups (counter slots 0..n-1, fan-out of the
 * configuration, every worker eligible). Once, after the rings, before the ports start.
 *
 * @return
 *   0, -ENOMEM, or the error of mcfan_group_assign() or mcfan_groups_publish().
 */
int mcfan_groups_start(struct mcfan_app *app);

/**
 * Publish a group table built from entries: RX lcores see it from their next burst, and
 * the table it replaces is freed after an RCU grace period (this waits for it; the RX
 * lcores never wait). Control side, one caller at a time.
 *
 * @return
 *   0, or the negative errno of mcfan_group_table_create().
 */
int mcfan_groups_publish(struct mcfan_app *app, const struct mcfan_group_entry *entries,
			 unsigned int n);

/**
 * Add a group's multicast MAC (RFC 1112 6.4 / RFC 2464 7) to macs[0..n) unless present.
 *
 * @param macs
 *   Must have room for one more.
 * @return
 *   The new count.
 */
unsigned int mcfan_mac_list_add(struct rte_ether_addr *macs, unsigned int n,
				const struct mcfan_flow_key *k);

/**
 * Set up the counter slots of the groups of the published table (mcfan_groups_start()).
 * Once, before any group action.
 *
 * @return
 *   0, -ENOMEM, or -EINVAL if the table holds a slot twice.
 */
int mcfan_groups_control_init(struct mcfan_app *app);

/** Free what mcfan_groups_control_init() made; no group action may run afterwards. */
void mcfan_groups_control_free(struct mcfan_app *app);

/**
 * Are retired counter slots waiting to be drained (mcfan_groups_tick() has work)? With the
 * action lock held.
 *
 * @return
 *   true if a drain runs or retired slots wait for one.
 */
bool mcfan_groups_drain_pending(const struct mcfan_app *app);

/**
 * One step of draining retired counter slots (lib/group/mcfan_slots.h); from
 * mcfan_control_tick(), with the action lock held. Cheap when nothing is retired.
 */
void mcfan_groups_tick(struct mcfan_app *app);

/**
 * Join groups: add them to the group table (published with RCU; RX lcores
 * never wait), each with a stable counter slot, fan-out live.fanout (mcfan.h).
 *
 * @param groups
 *   Group list as for --groups: "239.9.9.1", "239.9.9.1-10:3999", "[ff3e::1]:5000",
 *   comma-separated.
 * @param workers
 *   Worker lcores that may receive these groups (corelist, e.g. "2,4-5"), or NULL
 *   for every worker.
 * @return
 *   0; -EINVAL (bad group or lcore list, lcore not a worker), -EEXIST (a group
 *   already joined or listed twice), -ENOSPC (table or counter slots full),
 *   -ENOMEM.
 */
int mcfan_ctl_join(struct mcfan_app *app, const char *groups, const char *workers, char *msg,
		   size_t len);

/**
 * Join groups as mcfan_ctl_join() does, their copies going to worker engine instance inst
 * (join ... engine NAME[:ARGS], control/engine.c): the entries carry inst in the table's
 * first publication, so the RX side never stamps another instance into their copies.
 *
 * @param inst
 *   An instance index, < app->n_inst (0: the --worker-engine, as mcfan_ctl_join()).
 * @return
 *   As mcfan_ctl_join(); -EINVAL also for an instance that is not there.
 */
int mcfan_ctl_join_inst(struct mcfan_app *app, const char *groups, const char *workers,
			unsigned int inst, char *msg, size_t len);

/**
 * Leave groups: their frames count as unknown_group from the next RX burst on.
 *
 * @param groups
 *   Group list as for mcfan_ctl_join(); each must be joined with exactly this
 *   address and port.
 * @return
 *   0; -EINVAL (bad list), -ENOENT (a group is not joined), -ENOMEM.
 */
int mcfan_ctl_leave(struct mcfan_app *app, const char *groups, char *msg, size_t len);

/**
 * Change the fan-out of joined groups.
 *
 * @param groups
 *   Group list, or NULL for every group and for later joins (live.fanout).
 * @param mode
 *   "partition" or "replicate".
 * @return
 *   0; -EINVAL (bad list or mode), -ENOENT (a group is not joined), -ENOMEM.
 */
int mcfan_ctl_set_fanout(struct mcfan_app *app, const char *groups, const char *mode,
			 char *msg, size_t len);

/**
 * Move joined groups to worker engine instance inst (set engine GROUPS, control/engine.c):
 * published with RCU like a join, so the RX side stamps the new instance into the copies of
 * its next burst; copies already staged keep the old one (each copy is handed on once).
 *
 * @param groups
 *   Group list as for mcfan_ctl_join(); each must be joined.
 * @param inst
 *   An instance index, < app->n_inst.
 * @param what
 *   The action's name for messages ("set engine").
 * @return
 *   0; -EINVAL (bad list or instance), -ENOENT (a group is not joined), -EALREADY (every
 *   group is on inst already), -ENOMEM.
 */
int mcfan_ctl_set_groups_inst(struct mcfan_app *app, const char *groups, unsigned int inst,
			      const char *what, char *msg, size_t len);

/**
 * Parse a list of worker lcores (DPDK corelist syntax, decimal) into worker
 * indexes (positions in app->worker_lcore_ids).
 *
 * @param idx
 *   Receives up to MCFAN_MAX_WORKERS indexes, in increasing order.
 * @return
 *   Number of workers (>= 1), or -EINVAL with msg naming the bad part.
 */
int mcfan_ctl_parse_workers(const struct mcfan_app *app, const char *text, uint16_t *idx,
			    char *msg, size_t len);

#endif /* MCFAN_CONTROL_GROUPS_H */
