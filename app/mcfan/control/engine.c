/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Worker engines at run time (control/engine.h): set engine publishes the engine a worker
 * lcore runs through its worker_engine_sel word (mcfan.h has the protocol); the lcore picks
 * it up between two bursts. Only engines whose set-up is already there may run: the engine
 * instances configured at start, and engines that need none (count). An engine with ports,
 * queues, pools or files (tx, pcap) is set up before the ports start and cannot be added
 * later. join ... engine and set engine GROUPS find the instance here and leave the group
 * table to control/groups.c.
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
#include "control/readers.h"

static bool
needs_setup(const struct mcfan_engine *e)
{
	return e->args_check != NULL || e->configure != NULL || e->start != NULL ||
	       e->stop != NULL;
}

/* The instances the joined groups that reach worker lcore lc are on now, as bits (a lcore
 * without groups: instance 0, where joins go). With the action lock held. */
static uint32_t
lcore_outputs(const struct mcfan_app *app, const struct mcfan_lcore *lc)
{
	const struct mcfan_group_entry *g;
	uint32_t bits = 0;
	unsigned int i, t;

	for (i = 0; i < app->n_group_entries; i++) {
		g = &app->group_entries[i];
		for (t = 0; t < g->n_targets; t++)
			if (g->targets[t] == lc->worker_index)
				bits |= UINT32_C(1) << (g->inst % MCFAN_ENGINE_INST_MAX);
	}
	return bits != 0 ? bits : 1;
}

/* What runs on lc now, for messages and views: one engine that takes every copy (its name)
 * or several outputs by group. With the action lock held. */
static void
lcore_now(const struct mcfan_app *app, const struct mcfan_lcore *lc,
	  struct mcfan_engine_view *v)
{
	uint32_t sel = mcfan_atomic_u32_load(&lc->worker_engine_sel, memory_order_acquire);
	const struct mcfan_engine *e = mcfan_engine_of_sel(app, sel, &v->output);
	unsigned int k;

	v->outputs = 0;
	if (e != NULL) {
		v->mode = v->output >= 0 ? MCFAN_ENGINE_MODE_OUTPUT : MCFAN_ENGINE_MODE_ENGINE;
		v->engine = e->name;
		return;
	}
	v->mode = MCFAN_ENGINE_MODE_GROUPS;
	v->outputs = lcore_outputs(app, lc);
	v->engine = MCFAN_ENGINE_PER_GROUP;
	for (k = 0; k < app->n_inst; k++)
		if (v->outputs == UINT32_C(1) << k)
			v->engine = app->inst_engine[k]->name;
	if (app->n_inst == 0)
		v->engine = lc->worker_engine->name;
}

/* "0,2" from output bits. */
static const char *
format_outputs(uint32_t bits, char *buf, size_t len)
{
	unsigned int k;
	size_t off = 0;

	buf[0] = '\0';
	for (k = 0; k < MCFAN_ENGINE_INST_MAX && off < len; k++)
		if (bits & (UINT32_C(1) << k))
			off += (size_t)snprintf(buf + off, len - off, "%s%u", off == 0 ? "" : ",",
						k);
	return buf;
}

/* Room for NAME[:ARGS] with its colon, bytes with the NUL. */
#define SPEC_MAX (MCFAN_ENGINE_NAME_MAX + 1 + MCFAN_ENGINE_ARGS_MAX + 1)

/* The one word NAME[:ARGS] of spec into buf, without the spaces around it (the console's
 * <command>... and telemetry's parameter are the rest of a line); a second word is refused
 * as the console refuses words after any other command, naming the word. */
static int
spec_word(const char *what, const char *spec, char *buf, size_t len, char *msg, size_t mlen)
{
	size_t n, extra;

	spec += strspn(spec, " \t");
	n = strcspn(spec, " \t");
	extra = n + strspn(spec + n, " \t");
	if (spec[extra] != '\0')
		return mcfan_err_set(msg, mlen, -EINVAL, "%s: unexpected '%.*s' after the command "
				     "(help %s)", what, (int)strcspn(spec + extra, " \t"),
				     spec + extra, what);
	if (n >= len)
		return mcfan_err_set(msg, mlen, -EINVAL, "%s: '%.*s' is not a worker engine: "
				     "NAME[:ARGS] of at most %zu characters", what, (int)n, spec,
				     len - 1);
	memcpy(buf, spec, n);
	buf[n] = '\0';
	return 0;
}

/* NAME of NAME[:ARGS] as a worker engine; the message names the word. */
static int
parse_engine(const char *what, const char *spec, const struct mcfan_engine **e,
	     const char **args, char *msg, size_t len)
{
	char name[MCFAN_ENGINE_NAME_MAX + 1], names[128];
	const char *colon = strchr(spec, ':');
	size_t n = colon != NULL ? (size_t)(colon - spec) : strlen(spec);

	*args = colon != NULL ? colon + 1 : NULL;
	if (n == 0 || n >= sizeof(name))
		return mcfan_err_set(msg, len, -EINVAL, "%s: '%s' is not a worker engine: %s",
				     what, spec, mcfan_engine_names(MCFAN_ENGINE_WORKER, names,
								    sizeof(names)));
	memcpy(name, spec, n);
	name[n] = '\0';
	*e = mcfan_engine_find(MCFAN_ENGINE_WORKER, name);
	if (*e == NULL)
		return mcfan_err_set(msg, len, -EINVAL, "%s: '%s' is not a worker engine: %s",
				     what, name, mcfan_engine_names(MCFAN_ENGINE_WORKER, names,
								    sizeof(names)));
	return 0;
}

/* An instance configured at start of engine e: the same ARGS (args NULL: the first instance
 * of e); -1 none. */
static int
find_inst(const struct mcfan_app *app, const struct mcfan_engine *e, const char *args)
{
	unsigned int k;

	for (k = 0; k < app->n_inst; k++)
		if (app->inst_engine[k] == e && (args == NULL ||
		    strcmp(app->cfg.engine_inst[k].args, args) == 0))
			return (int)k;
	return -1;
}

/* ARGS that engine e (one that needs set-up) would refuse at start, when no instance has
 * them: the engine's own refusal (as --worker-engine words it; also against the probed
 * ports: a tx PORT that is not there), so that no answer advises a start that is refused;
 * 0 for ARGS it takes (or none given). */
static int
args_refused(const struct mcfan_app *app, const char *what, const struct mcfan_engine *e,
	     const char *args, char *msg, size_t len)
{
	char err[512];
	int ret;

	if (args == NULL || e->args_check == NULL)
		return 0;
	ret = e->args_check(args, err, sizeof(err));
	if (ret == 0 && e->args_check_probed != NULL)
		ret = e->args_check_probed(app, args, err, sizeof(err));
	if (ret == 0)
		return 0;
	return mcfan_err_set(msg, len, ret, "%s: %s: %s", what, e->name, err);
}

/* ARGS spelled otherwise than an instance's that name its place (pcap: the same directory,
 * however written: a start with both would be refused too) or the same output (tx: its
 * port by id or by name): the instance, named; 0 when there is none. */
static int
same_place(const struct mcfan_app *app, const char *what, const struct mcfan_engine *e,
	   const char *args, char *msg, size_t len)
{
	char place[192];
	unsigned int k;

	for (k = 0; args != NULL && e->args_collide != NULL && k < app->n_inst; k++)
		if (app->inst_engine[k] == e &&
		    e->args_collide(app->cfg.engine_inst[k].args, args, place, sizeof(place)))
			return mcfan_err_set(msg, len, -ENOTSUP, "%s: %s:%s is no engine instance "
					     "of this run, but output %u (%s:%s) writes into %s: "
					     "give it as this run has it, %s:%s", what, e->name,
					     args, k, e->name, app->cfg.engine_inst[k].args, place,
					     e->name, app->cfg.engine_inst[k].args);
	/* the same output spelled otherwise (tx:1 for tx:net_tap0): that instance, named */
	for (k = 0; args != NULL && e->args_same_probed != NULL && k < app->n_inst; k++)
		if (app->inst_engine[k] == e &&
		    e->args_same_probed(app->cfg.engine_inst[k].args, args, place,
					sizeof(place)))
			return mcfan_err_set(msg, len, -ENOTSUP, "%s: %s:%s is no engine instance "
					     "of this run, but output %u (%s:%s) sends out of %s: "
					     "give it as this run has it, %s:%s", what, e->name,
					     args, k, e->name, app->cfg.engine_inst[k].args, place,
					     e->name, app->cfg.engine_inst[k].args);
	return 0;
}

/* What set engine LCORE spec asks for: *sel, the worker_engine_sel word (mcfan.h), its
 * engine *e and instance *k (-1 none); or a refusal, naming the word. */
static int
lcore_target(const struct mcfan_app *app, const struct mcfan_lcore *lc, const char *spec,
	     const struct mcfan_engine **e, uint32_t *sel, int *k, char *msg, size_t len)
{
	const char *args = NULL;
	unsigned int i;
	int ret;

	ret = parse_engine("set engine", spec, e, &args, msg, len);
	if (ret < 0)
		return ret;
	/* an engine without args_check takes no ARGS ("--worker-engine NAME"), also one with
	 * a set-up: "readers:" is refused as at start, not taken as readers */
	if (args != NULL && (*e)->args_check == NULL)
		return mcfan_err_set(msg, len, -EINVAL, "set engine: engine %s takes no "
				     "arguments ('%s')", (*e)->name, args);
	*k = find_inst(app, *e, args);
	if (!needs_setup(*e)) {
		for (i = 0; mcfan_engine_at(MCFAN_ENGINE_WORKER, i) != *e; i++)
			;
		*sel = i + 1;
		return 0;
	}
	if (*k >= 0) {
		*sel = MCFAN_ENGINE_SEL_INST + (uint32_t)*k;
		return 0;
	}
	ret = args_refused(app, "set engine", *e, args, msg, len);
	if (ret == 0)
		ret = same_place(app, "set engine", *e, args, msg, len);
	if (ret < 0)
		return ret;
	if (*e == lc->worker_engine)
		return mcfan_err_set(msg, len, -ENOTSUP, "set engine: lcore %u runs %s with the "
				     "ARGS it started with ('%s'); '%s' would need a new set-up",
				     lc->lcore_id, (*e)->name, app->cfg.worker_engine_args,
				     args != NULL ? args : "");
	if (find_inst(app, *e, NULL) >= 0)
		return mcfan_err_set(msg, len, -ENOTSUP, "set engine: %s is no engine instance of "
				     "this run: an engine with its set-up (ports, queues, files) "
				     "cannot be added at run time; start mcfan with --group-engine "
				     "GROUPS=%s", spec, spec);
	return mcfan_err_set(msg, len, -ENOTSUP, "set engine: engine %s is set up at start "
			     "(ports, queues, files): start mcfan with --worker-engine %s%s",
			     (*e)->name, (*e)->name, (*e)->args_check != NULL ? ":ARGS" : "");
}

int
mcfan_ctl_set_engine(struct mcfan_app *app, uint64_t lcore_id, const char *spec, char *msg,
		     size_t len)
{
	const struct mcfan_engine *e = NULL;
	struct mcfan_engine_view was;
	char outs[64], tail[160] = "", word[SPEC_MAX];
	struct mcfan_lcore *lc;
	uint32_t sel = 0, cur, one;
	unsigned int i;
	bool already;
	int k = -1, ret;

	if (lcore_id >= RTE_MAX_LCORE || app->lcores[lcore_id].worker_engine == NULL)
		return mcfan_err_set(msg, len, -EINVAL, "set engine: lcore %" PRIu64 " is not a "
				     "worker lcore", lcore_id);
	lc = &app->lcores[lcore_id];
	ret = spec_word("set engine", spec, word, sizeof(word), msg, len);
	if (ret < 0)
		return ret;
	spec = word;
	if (strcmp(spec, MCFAN_ENGINE_OUTPUTS) != 0) {
		ret = lcore_target(app, lc, spec, &e, &sel, &k, msg, len);
		if (ret < 0)
			return ret;
	}
	mcfan_ctl_lock();
	cur = mcfan_atomic_u32_load(&lc->worker_engine_sel, memory_order_acquire);
	lcore_now(app, lc, &was);
	/* "already" only when NAME takes every copy of the lcore now */
	if (e == NULL) {
		already = cur == 0;
	} else if (cur == sel) {
		already = true;
	} else if (cur != 0) {
		already = false;
	} else if (sel >= MCFAN_ENGINE_SEL_INST) {
		already = was.outputs == UINT32_C(1) << k;
	} else {
		already = true;
		for (i = 0; i < app->n_inst; i++)
			if ((was.outputs & (UINT32_C(1) << i)) && app->inst_engine[i] != e)
				already = false;
	}
	if (was.mode == MCFAN_ENGINE_MODE_GROUPS &&
	    strcmp(was.engine, MCFAN_ENGINE_PER_GROUP) == 0)
		snprintf(tail, sizeof(tail), "the outputs of its groups: %s",
			 format_outputs(was.outputs, outs, sizeof(outs)));
	if (already && e == NULL) {
		ret = mcfan_err_set(msg, len, -EALREADY, "set engine: lcore %" PRIu64 " sends "
				    "each copy to its group's output already (outputs %s)",
				    lcore_id, format_outputs(was.outputs, outs, sizeof(outs)));
	} else if (already && cur != 0) {
		ret = mcfan_err_set(msg, len, -EALREADY, "set engine: lcore %" PRIu64 " runs %s "
				    "already, for all its copies", lcore_id, e->name);
	} else if (already) {
		/* by group: every group that reaches the lcore is on an output of NAME, which
		 * need not be the lcore's start engine */
		ret = mcfan_err_set(msg, len, -EALREADY, "set engine: lcore %" PRIu64 " sends "
				    "every copy to %s already, by group: its groups are all on "
				    "output%s %s (%s%s%s); its start engine is %s; nothing changed",
				    lcore_id, e->name,
				    (was.outputs & (was.outputs - 1)) != 0 ? "s" : "",
				    format_outputs(was.outputs, outs, sizeof(outs)), e->name,
				    k >= 0 && app->cfg.engine_inst[k].args[0] != '\0' ? ":" : "",
				    k >= 0 ? app->cfg.engine_inst[k].args : "",
				    lc->worker_engine->name);
	} else if ((ret = mcfan_readers_grow(app, NULL, 0, lc, e == NULL ? 0 : sel, msg,
					     len)) < 0) {
		/* a group readers would serve has no full reader ring: nothing changed */
	} else if (e == NULL) {
		mcfan_atomic_u32_store(&lc->worker_engine_sel, 0, memory_order_release);
		ret = mcfan_err_set(msg, len, 0, "lcore %" PRIu64 ": each copy to its group's "
				    "output again (outputs %s now), not %s for all its copies, "
				    "from its next burst", lcore_id,
				    format_outputs(lcore_outputs(app, lc), outs, sizeof(outs)),
				    was.engine);
	} else {
		mcfan_atomic_u32_store(&lc->worker_engine_sel, sel, memory_order_release);
		one = sel >= MCFAN_ENGINE_SEL_INST ? UINT32_C(1) << k : 0;
		ret = mcfan_err_set(msg, len, 0, "lcore %" PRIu64 ": worker engine %s (was %s), "
				    "from its next burst; every copy of the lcore goes to it"
				    "%s%s%s%s", lcore_id, e->name,
				    tail[0] != '\0' ? tail : was.engine,
				    app->n_inst > 1 ? ", whatever its group's output" : "",
				    one != 0 ? " (output " : "",
				    one != 0 ? format_outputs(one, outs, sizeof(outs)) : "",
				    one != 0 ? ")" : "");
	}
	/* reader rings of this lcore's groups: written by readers now, or why not */
	if (ret == 0)
		mcfan_readers_sync(app);
	mcfan_ctl_unlock();
	return ret;
}

/* A target of decimal digits only is an lcore id, however long: no group list is written
 * so, and a number too large for an lcore id is no worker lcore, not a bad group. */
static bool
target_is_lcore(const char *target)
{
	return target[0] != '\0' && target[strspn(target, "0123456789")] == '\0';
}

int
mcfan_ctl_set_engine_target(struct mcfan_app *app, const char *target, const char *spec,
			    char *msg, size_t len)
{
	uint64_t id;

	if (!target_is_lcore(target))
		return mcfan_ctl_set_group_engine(app, target, spec, msg, len);
	if (mcfan_parse_u64(target, 0, UINT64_MAX, &id) < 0)
		return mcfan_err_set(msg, len, -EINVAL, "set engine: lcore %s is not a worker "
				     "lcore", target);
	return mcfan_ctl_set_engine(app, id, spec, msg, len);
}

int
mcfan_ctl_set_engine_missing(const struct mcfan_app *app, const char *target, char *msg,
			     size_t len)
{
	char names[128];
	uint64_t id;

	mcfan_engine_names(MCFAN_ENGINE_WORKER, names, sizeof(names));
	if (target == NULL)
		return mcfan_err_set(msg, len, -EINVAL, "set engine: give a worker lcore or "
				     "groups, then an engine: set engine LCORE NAME[:ARGS], set "
				     "engine LCORE %s or set engine GROUPS NAME[:ARGS] (engines: "
				     "%s), e.g. set engine 2 count", MCFAN_ENGINE_OUTPUTS, names);
	/* a wrong lcore first: the syntax would not help (as set engine 99 count says) */
	if (target_is_lcore(target) &&
	    (mcfan_parse_u64(target, 0, UINT64_MAX, &id) < 0 || id >= RTE_MAX_LCORE ||
	     app->lcores[id].worker_engine == NULL))
		return mcfan_err_set(msg, len, -EINVAL, "set engine: lcore %s is not a worker "
				     "lcore", target);
	if (target_is_lcore(target))
		return mcfan_err_set(msg, len, -EINVAL, "set engine: give an engine after lcore "
				     "%s: set engine %s NAME[:ARGS] (engines: %s) or set engine %s "
				     "%s, e.g. set engine %s count", target, target, names, target,
				     MCFAN_ENGINE_OUTPUTS, target);
	return mcfan_err_set(msg, len, -EINVAL, "set engine: give an engine after the groups: "
			     "set engine %s NAME[:ARGS] (engines: %s), e.g. set engine %s count",
			     target, names, target);
}

int
mcfan_ctl_join_engine_missing(const char *groups, const char *workers, char *msg, size_t len)
{
	char names[128];

	mcfan_engine_names(MCFAN_ENGINE_WORKER, names, sizeof(names));
	return mcfan_err_set(msg, len, -EINVAL, "join: give an engine after 'engine': join %s%s%s "
			     "engine NAME[:ARGS] (an engine instance of this run, or count; "
			     "engines: %s), e.g. join %s%s%s engine count", groups,
			     workers != NULL ? " workers " : "", workers != NULL ? workers : "",
			     names, groups, workers != NULL ? " workers " : "",
			     workers != NULL ? workers : "");
}

/* The instance of spec for groups (set engine GROUPS, join ... engine): one configured at
 * start (NAME alone: the first of NAME) or count; the message names the word. */
static int
group_inst(const struct mcfan_app *app, const char *what, const char *groups,
	   const char *spec, char *msg, size_t len)
{
	const struct mcfan_engine *e;
	char word[SPEC_MAX];
	const char *args;
	int ret, k;

	ret = spec_word(what, spec, word, sizeof(word), msg, len);
	if (ret < 0)
		return ret;
	spec = word;
	ret = parse_engine(what, spec, &e, &args, msg, len);
	if (ret < 0)
		return ret;
	/* "count:" too, as --worker-engine count: is refused at start */
	if (args != NULL && e->args_check == NULL)
		return mcfan_err_set(msg, len, -EINVAL, "%s: engine %s takes no arguments ('%s')",
				     what, e->name, args);
	k = find_inst(app, e, args);
	if (k >= 0)
		return k;
	ret = args_refused(app, what, e, args, msg, len);
	if (ret == 0)
		ret = same_place(app, what, e, args, msg, len);
	if (ret < 0)
		return ret;
	/* NAME alone of an engine that takes ARGS: the advice asks for them (pcap:DIR) */
	return mcfan_err_set(msg, len, -ENOTSUP, "%s: %s is no engine instance of this run: an "
			     "engine with its set-up (ports, queues, files) cannot be added at run "
			     "time; start mcfan with --group-engine %s=%s%s (or move the groups to "
			     "count)", what, spec, groups, spec,
			     args == NULL && e->args_check != NULL ? ":ARGS" : "");
}

int
mcfan_ctl_set_group_engine(struct mcfan_app *app, const char *groups, const char *spec,
			   char *msg, size_t len)
{
	int k = group_inst(app, "set engine", groups, spec, msg, len);

	if (k < 0)
		return k;
	return mcfan_ctl_set_groups_inst(app, groups, (unsigned int)k, "set engine", msg, len);
}

int
mcfan_ctl_join_engine(struct mcfan_app *app, const char *groups, const char *workers,
		      const char *spec, char *msg, size_t len)
{
	int k = group_inst(app, "join", groups != NULL ? groups : "", spec, msg, len);
	size_t off;
	int ret;

	if (k < 0)
		return k;
	ret = mcfan_ctl_join_inst(app, groups, workers, (unsigned int)k, msg, len);
	off = strlen(msg);
	if (ret == 0 && off < len)
		snprintf(msg + off, len - off, ", engine instance %d (%s%s%s)", k,
			 app->cfg.engine_inst[k].name,
			 app->cfg.engine_inst[k].args[0] != '\0' ? ":" : "",
			 app->cfg.engine_inst[k].args);
	return ret;
}

unsigned int
mcfan_engines_read(const struct mcfan_app *app, struct mcfan_engine_view *out,
		   unsigned int max)
{
	const struct mcfan_lcore *lc;
	unsigned int w, k = 0;

	mcfan_ctl_lock(); /* the group entries (lcore_now()) */
	for (w = 0; w < app->n_workers && k < max; w++) {
		lc = &app->lcores[app->worker_lcore_ids[w]];
		if (lc->worker_engine == NULL)
			continue;
		out[k].lcore_id = lc->lcore_id;
		out[k].start_engine = lc->worker_engine->name;
		out[k].start_args = app->cfg.worker_engine_args;
		lcore_now(app, lc, &out[k]);
		/* since the last clear stats, as the report (the metrics keep the totals) */
		out[k].n_values = mcfan_lcore_engine_values_cleared(app, lc->lcore_id,
								     out[k].values,
								     MCFAN_ENGINE_VALUES_MAX);
		if (out[k].n_values < 0)
			out[k].n_values = 0;
		k++;
	}
	mcfan_ctl_unlock();
	return k;
}
