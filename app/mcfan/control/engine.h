/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_ENGINE_H
#define MCFAN_CONTROL_ENGINE_H

/* Worker engines at run time: the set engine action and the read side of show engines and
 * /mcfan/engines (control/engine.c, docs/delivery.md). */

#include <stddef.h>
#include <stdint.h>

#include "mcfan.h"
#include "control/stats.h"

/**
 * Switch worker lcore lcore_id to the worker engine of spec (NAME[:ARGS]), from its next
 * burst. Allowed: the lcore's start engine with its start ARGS (or none), and engines that
 * need no set-up (no ARGS, no configure/start/stop: count). Takes the action lock; checks
 * everything before it changes anything.
 *
 * @param msg
 *   Receives one line: what was done, or what is wrong (naming the word).
 * @return
 *   0; -EINVAL (not a worker lcore, not a worker engine, ARGS refused), -ENOTSUP (an engine
 *   that needs set-up at start: its ports, queues or files are not there), -EALREADY.
 */
int mcfan_ctl_set_engine(struct mcfan_app *app, uint64_t lcore_id, const char *spec, char *msg,
			 size_t len);

/**
 * Move joined groups to the worker engine instance of spec (NAME[:ARGS]): one configured at
 * start (--worker-engine, --group-engine; without ARGS the first instance of NAME), or count
 * (always an instance). Published with RCU like a join (mcfan_ctl_set_groups_inst()): the
 * switch lands between RX bursts, no copy is lost or handed on twice. Takes the action lock.
 *
 * @param groups
 *   Group list as for join; each must be joined.
 * @param msg
 *   Receives one line: what was done, or what is wrong (naming the word).
 * @return
 *   0; -EINVAL (not a worker engine, ARGS to an engine without any, bad group list),
 *   -ENOTSUP (no such instance: its set-up cannot be added at run time), -ENOENT (a group
 *   is not joined), -EALREADY, -ENOMEM.
 */
int mcfan_ctl_set_group_engine(struct mcfan_app *app, const char *groups, const char *spec,
			       char *msg, size_t len);

/** One worker lcore's engines for show engines and /mcfan/engines. */
struct mcfan_engine_view {
	unsigned int lcore_id;
	const char *start_engine;   /**< Configured at start (the report's worker_engine). */
	const char *start_args;     /**< Its ARGS, "" for none. */
	const char *engine;         /**< The one that runs now. */
	int n_values;               /**< Counters of the start engine in values. */
	struct mcfan_engine_value values[MCFAN_ENGINE_VALUES_MAX];
};

/**
 * Read every worker lcore's engines and counters. Any control thread.
 *
 * @return
 *   Views written (at most max).
 */
unsigned int mcfan_engines_read(const struct mcfan_app *app, struct mcfan_engine_view *out,
				unsigned int max);

#endif /* MCFAN_CONTROL_ENGINE_H */
