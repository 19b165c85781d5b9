/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Worker engines at run time (control/engine.h): set engine publishes the engine a worker
 * lcore runs through its worker_engine_sel word (mcfan.h has the protocol); the lcore picks
 * it up between two bursts. Only engines whose set-up is already there may run: the lcore's
 * start engine, and engines that need none (count). An engine with ports, queues, pools or
 * files (tx, pcap) is set up before the ports start and cannot be added later.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "datapath/engine.h"
#include "control/action.h"
#include "control/engine.h"
#include "control/groups.h"

static const struct mcfan_engine *
engine_now(const struct mcfan_lcore *lc)
{
	uint32_t sel = mcfan_atomic_u32_load(&lc->worker_engine_sel, memory_order_acquire);
	const struct mcfan_engine *e = sel == 0 ? NULL :
		mcfan_engine_at(MCFAN_ENGINE_WORKER, sel - 1);

	return e != NULL ? e : lc->worker_engine;
}

static bool
needs_setup(const struct mcfan_engine *e)
{
	return e->args_check != NULL || e->configure != NULL || e->start != NULL ||
	       e->stop != NULL;
}

int
mcfan_ctl_set_engine(struct mcfan_app *app, uint64_t lcore_id, const char *spec, char *msg,
		     size_t len)
{
	char name[MCFAN_ENGINE_NAME_MAX + 1], names[128];
	const struct mcfan_engine *e, *old;
	const char *colon = strchr(spec, ':'), *args = colon != NULL ? colon + 1 : "";
	size_t n = colon != NULL ? (size_t)(colon - spec) : strlen(spec);
	struct mcfan_lcore *lc;
	uint32_t sel = 0;
	unsigned int i;
	int ret;

	if (lcore_id >= RTE_MAX_LCORE || app->lcores[lcore_id].worker_engine == NULL)
		return mcfan_err_set(msg, len, -EINVAL, "set engine: lcore %" PRIu64 " is not a "
				     "worker lcore", lcore_id);
	lc = &app->lcores[lcore_id];
	if (n == 0 || n >= sizeof(name))
		return mcfan_err_set(msg, len, -EINVAL, "set engine: '%s' is not a worker engine: "
				     "%s", spec, mcfan_engine_names(MCFAN_ENGINE_WORKER, names,
								    sizeof(names)));
	memcpy(name, spec, n);
	name[n] = '\0';
	e = mcfan_engine_find(MCFAN_ENGINE_WORKER, name);
	if (e == NULL)
		return mcfan_err_set(msg, len, -EINVAL, "set engine: '%s' is not a worker engine: "
				     "%s", name, mcfan_engine_names(MCFAN_ENGINE_WORKER, names,
								    sizeof(names)));
	if (e == lc->worker_engine) {
		if (colon != NULL && strcmp(args, app->cfg.worker_engine_args) != 0)
			return mcfan_err_set(msg, len, -ENOTSUP, "set engine: lcore %" PRIu64 " runs "
					     "%s with the ARGS it started with ('%s'); '%s' would "
					     "need a new set-up", lcore_id, name,
					     app->cfg.worker_engine_args, args);
	} else {
		/* an engine without args_check takes no ARGS: "--worker-engine NAME" */
		if (needs_setup(e))
			return mcfan_err_set(msg, len, -ENOTSUP, "set engine: engine %s is set up "
					     "at start (ports, queues, files): start mcfan with "
					     "--worker-engine %s%s", name, name,
					     e->args_check != NULL ? ":ARGS" : "");
		if (colon != NULL)
			return mcfan_err_set(msg, len, -EINVAL, "set engine: engine %s takes no "
					     "arguments ('%s')", name, args);
		for (i = 0; mcfan_engine_at(MCFAN_ENGINE_WORKER, i) != e; i++)
			;
		sel = i + 1;
	}
	mcfan_ctl_lock();
	old = engine_now(lc);
	if (old == e) {
		ret = mcfan_err_set(msg, len, -EALREADY, "set engine: lcore %" PRIu64 " runs %s "
				    "already", lcore_id, name);
	} else {
		mcfan_atomic_u32_store(&lc->worker_engine_sel, sel, memory_order_release);
		ret = mcfan_err_set(msg, len, 0, "lcore %" PRIu64 ": worker engine %s (was %s), "
				    "from its next burst", lcore_id, name, old->name);
	}
	mcfan_ctl_unlock();
	return ret;
}

int
mcfan_ctl_set_group_engine(struct mcfan_app *app, const char *groups, const char *spec,
			   char *msg, size_t len)
{
	const char *colon = strchr(spec, ':'), *args = colon != NULL ? colon + 1 : "";
	size_t n = colon != NULL ? (size_t)(colon - spec) : strlen(spec);
	char name[MCFAN_ENGINE_NAME_MAX + 1], names[128];
	const struct mcfan_engine *e;
	unsigned int k;

	if (n == 0 || n >= sizeof(name))
		return mcfan_err_set(msg, len, -EINVAL, "set engine: '%s' is not a worker engine: "
				     "%s", spec, mcfan_engine_names(MCFAN_ENGINE_WORKER, names,
								    sizeof(names)));
	memcpy(name, spec, n);
	name[n] = '\0';
	e = mcfan_engine_find(MCFAN_ENGINE_WORKER, name);
	if (e == NULL)
		return mcfan_err_set(msg, len, -EINVAL, "set engine: '%s' is not a worker engine: "
				     "%s", name, mcfan_engine_names(MCFAN_ENGINE_WORKER, names,
								    sizeof(names)));
	/* an instance configured at start: the same NAME and ARGS (none given: the first
	 * instance of NAME) */
	for (k = 0; k < app->n_inst; k++)
		if (app->inst_engine[k] == e && (colon == NULL ||
		    strcmp(app->cfg.engine_inst[k].args, args) == 0))
			break;
	if (k == app->n_inst) {
		if (colon != NULL && e->args_check == NULL)
			return mcfan_err_set(msg, len, -EINVAL, "set engine: engine %s takes no "
					     "arguments ('%s')", name, args);
		return mcfan_err_set(msg, len, -ENOTSUP, "set engine: %s is no engine instance "
				     "of this run: an engine with its set-up (ports, queues, files) "
				     "cannot be added at run time; start mcfan with --group-engine "
				     "%s=%s (or move the groups to count)", spec, groups, spec);
	}
	return mcfan_ctl_set_groups_inst(app, groups, k, "set engine", msg, len);
}

unsigned int
mcfan_engines_read(const struct mcfan_app *app, struct mcfan_engine_view *out,
		   unsigned int max)
{
	const struct mcfan_lcore *lc;
	unsigned int w, k = 0;

	for (w = 0; w < app->n_workers && k < max; w++) {
		lc = &app->lcores[app->worker_lcore_ids[w]];
		if (lc->worker_engine == NULL)
			continue;
		out[k].lcore_id = lc->lcore_id;
		out[k].start_engine = lc->worker_engine->name;
		out[k].start_args = app->cfg.worker_engine_args;
		out[k].engine = engine_now(lc)->name;
		out[k].n_values = mcfan_lcore_engine_values(app, lc->lcore_id, out[k].values,
							     MCFAN_ENGINE_VALUES_MAX);
		if (out[k].n_values < 0)
			out[k].n_values = 0;
		k++;
	}
	return k;
}
