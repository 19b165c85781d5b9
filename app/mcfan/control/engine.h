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

/** The word of `set engine LCORE outputs`: each copy to its group's output again. */
#define MCFAN_ENGINE_OUTPUTS "outputs"

/**
 * Switch worker lcore lcore_id, all its outputs, to the worker engine of spec (NAME[:ARGS]),
 * from its next burst: every copy the lcore takes goes to that engine, whatever its group's
 * output, until the next set engine LCORE. Allowed: an engine that needs no set-up (no
 * ARGS, no configure/start/stop: count; its copies count as engine_set_frames), and an
 * engine instance configured at start (--worker-engine, --group-engine: the same NAME and
 * ARGS; NAME alone: the first instance of NAME; its copies count in that output's frames).
 * spec MCFAN_ENGINE_OUTPUTS ("outputs") undoes it: each copy to its group's output (the
 * start state). Takes the action lock; checks everything before it changes anything.
 *
 * @param msg
 *   Receives one line: what was done, or what is wrong (naming the word).
 * @return
 *   0; -EINVAL (not a worker lcore, not a worker engine, ARGS refused), -ENOTSUP (an engine
 *   that needs set-up at start: its ports, queues or files are not there), -EALREADY (NAME
 *   takes every copy of the lcore already; "outputs": each copy goes to its group's output
 *   already).
 */
int mcfan_ctl_set_engine(struct mcfan_app *app, uint64_t lcore_id, const char *spec, char *msg,
			 size_t len);

/**
 * The refusal of `join GROUPS [workers LIST] engine` without an engine: what is missing and
 * the syntax, with the worker engines of this build. Changes nothing, joins nothing.
 *
 * @param groups
 *   The group list as typed.
 * @param workers
 *   The worker lcore list as typed, or NULL when none was given.
 * @param msg
 *   Receives one line: "join: give an engine after 'engine': join G engine NAME[:ARGS] ...".
 * @return
 *   -EINVAL, always.
 */
int mcfan_ctl_join_engine_missing(const char *groups, const char *workers, char *msg,
				  size_t len);

/**
 * Join groups (mcfan_ctl_join()) with their copies on the worker engine instance of spec
 * (NAME[:ARGS], found as mcfan_ctl_set_group_engine() finds it, with the same refusals
 * under "join:"): the groups are in the published table with that instance from the start,
 * never on instance 0 first. An instance that is not there refuses the join; nothing is
 * joined. Takes the action lock.
 *
 * @param workers
 *   As mcfan_ctl_join(): a worker lcore list or NULL for every worker.
 * @param msg
 *   Receives one line: mcfan_ctl_join()'s, then ", engine instance K (NAME[:ARGS])"; or
 *   what is wrong.
 * @return
 *   0; mcfan_ctl_join()'s errors; -EINVAL (not a worker engine, ARGS to an engine without
 *   any), -ENOTSUP (no such instance: its set-up cannot be added at run time).
 */
int mcfan_ctl_join_engine(struct mcfan_app *app, const char *groups, const char *workers,
			  const char *spec, char *msg, size_t len);

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

/**
 * `set engine TARGET SPEC` as the console and telemetry give it: TARGET of decimal digits only
 * is a worker lcore (mcfan_ctl_set_engine(); one too large for an lcore id is refused as no
 * worker lcore, "set engine: lcore 99999999999999999999 is not a worker lcore", never read as
 * a group), anything else a group list (mcfan_ctl_set_group_engine()).
 *
 * @param target
 *   The word after `set engine`, not empty.
 * @param spec
 *   NAME[:ARGS] (or MCFAN_ENGINE_OUTPUTS for an lcore).
 * @param msg
 *   Receives one line: what was done, or what is wrong (naming the word).
 * @return
 *   As mcfan_ctl_set_engine() or mcfan_ctl_set_group_engine(); -EINVAL for an lcore id
 *   beyond 64 bits.
 */
int mcfan_ctl_set_engine_target(struct mcfan_app *app, const char *target, const char *spec,
				char *msg, size_t len);

/**
 * The refusal of `set engine TARGET` without an engine: what is missing and the syntax, with
 * the worker engines of this build. Changes nothing.
 *
 * @param target
 *   The word after `set engine`: an lcore id (decimal digits) or a group list; NULL for
 *   `set engine` alone (the answer then names both forms).
 * @param msg
 *   Receives one line: "set engine: give an engine after lcore 2: ...", or, for an lcore
 *   id that is not a worker lcore's, "set engine: lcore 7 is not a worker lcore".
 * @return
 *   -EINVAL, always.
 */
int mcfan_ctl_set_engine_missing(const struct mcfan_app *app, const char *target, char *msg,
				 size_t len);

/** How a worker lcore hands on its copies now (struct mcfan_engine_view mode). */
enum mcfan_engine_mode {
	MCFAN_ENGINE_MODE_GROUPS = 0, /**< Each copy to its group's output (the start state). */
	MCFAN_ENGINE_MODE_ENGINE,     /**< set engine LCORE: every copy to an engine without
				       *   set-up (count), counted as engine_set_frames. */
	MCFAN_ENGINE_MODE_OUTPUT,     /**< set engine LCORE: every copy to one output. */
};

/** The engine word of a view whose copies go to several outputs, by group. */
#define MCFAN_ENGINE_PER_GROUP "per-group"

/** One worker lcore's engines for show engines and /mcfan/engines. */
struct mcfan_engine_view {
	unsigned int lcore_id;
	const char *start_engine;   /**< Configured at start (the report's worker_engine). */
	const char *start_args;     /**< Its ARGS, "" for none. */
	/** The engine that takes every copy of the lcore now, or MCFAN_ENGINE_PER_GROUP when
	 * its groups' copies go to outputs of more than one engine instance. */
	const char *engine;
	enum mcfan_engine_mode mode;
	int output;                 /**< MCFAN_ENGINE_MODE_OUTPUT: that output, else -1. */
	/** MCFAN_ENGINE_MODE_GROUPS: bit k set = a joined group that reaches the lcore is on
	 * output k now (no group: output 0, where joins go); else 0. */
	uint32_t outputs;
	int n_values;               /**< Counters of the start engine in values. */
	struct mcfan_engine_value values[MCFAN_ENGINE_VALUES_MAX];
};

/**
 * Read every worker lcore's engines and counters. Any control thread; takes the action lock
 * (the group entries), so not with it held.
 *
 * @return
 *   Views written (at most max).
 */
unsigned int mcfan_engines_read(const struct mcfan_app *app, struct mcfan_engine_view *out,
				unsigned int max);

#endif /* MCFAN_CONTROL_ENGINE_H */
