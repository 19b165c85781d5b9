/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Lcore roles and engines, worker rings, the RCU state and the published group table. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "log.h"
#include "datapath/engine.h"

/** Room for the worker lcore list of a refusal, bytes (a longer list is cut). */
#define CHECK_IDS_MAX 128

static int
check_lcore(const struct mcfan_app *app, unsigned int id, const char *opt)
{
	if (!rte_lcore_is_enabled(id)) {
		fprintf(stderr, "mcfan: --%s: lcore %u is not enabled in EAL (give it with -l or "
			"--lcores)\n", opt, id);
		return -EINVAL;
	}
	if (id == app->main_lcore) {
		fprintf(stderr, "mcfan: --%s: lcore %u is the main (control) lcore; data lcores "
			"must be other lcores\n", opt, id);
		return -EINVAL;
	}
	return 0;
}

void
mcfan_lcore_roles(const struct mcfan_config *cfg, const unsigned int *data, unsigned int n_data,
		  bool *is_rx, bool *is_worker)
{
	unsigned int i, j;

	for (i = 0; i < cfg->n_rx_lcores; i++)
		is_rx[cfg->rx_lcores[i]] = true;
	for (i = 0; i < cfg->n_worker_lcores; i++)
		is_worker[cfg->worker_lcores[i]] = true;
	if (cfg->n_rx_lcores == 0) {
		/* the first data lcore that is not an explicit worker, else the first worker */
		for (i = 0; i < n_data && is_worker[data[i]]; i++)
			;
		is_rx[i < n_data ? data[i] : data[0]] = true;
	}
	if (cfg->n_worker_lcores == 0) {
		for (i = 0, j = 0; i < n_data; i++) {
			if (!is_rx[data[i]]) {
				is_worker[data[i]] = true;
				j++;
			}
		}
		if (j == 0)
			for (i = 0; i < n_data; i++)
				is_worker[data[i]] = is_rx[data[i]];
	}
}

/*
 * --idle-worker (or the config file's idle-worker) sets the policy of worker-only lcores
 * (docs/idle.md): with none, every worker also polls ports and waits by --idle-rx's policy,
 * so the option would be taken and used nowhere. The console's `set idle worker` refuses the
 * same layout (control/live.c); a worker-only lcore is one whose role is only worker, as
 * there (no worker is hosted when --idle-worker is given: control/placement.c).
 */
int
mcfan_role_counts(unsigned int n_rx, int workers, unsigned int n_data, const char *given_by,
		  unsigned int *n_workers, char *err, size_t len)
{
	*n_workers = workers >= 0 ? (unsigned int)workers : (n_data > n_rx ? n_data - n_rx : 0);
	if (n_data >= n_rx + *n_workers)
		return 0;
	if (workers < 0) /* not given: say it is the default, not as if it were asked */
		return mcfan_err_set(err, len, -EINVAL, "--rx %u needs %u data lcore%s, %s %u "
				     "(--workers not given: its default, the data lcores left "
				     "after the RX lcores, is %u here; leave out -l/-c/--lcores and "
				     "mcfan places them on the map)", n_rx, n_rx,
				     n_rx == 1 ? "" : "s", given_by, n_data, *n_workers);
	return mcfan_err_set(err, len, -EINVAL, "--rx %u --workers %u need %u data lcore%s, %s "
			     "%u (leave out -l/-c/--lcores and mcfan places them on the map)",
			     n_rx, *n_workers, n_rx + *n_workers,
			     n_rx + *n_workers == 1 ? "" : "s", given_by, n_data);
}

int
mcfan_idle_worker_check(const struct mcfan_config *cfg, const unsigned int *data,
			unsigned int n_data, const bool *is_rx, const bool *is_worker)
{
	char policy[MCFAN_IDLE_POLICY_TEXT_MAX + 1], ids[CHECK_IDS_MAX] = "";
	unsigned int i, n_workers = 0;
	size_t off = 0;

	if (!cfg->idle_worker_set)
		return 0;
	for (i = 0; i < n_data; i++) {
		if (!is_worker[data[i]])
			continue;
		if (!is_rx[data[i]])
			return 0;
		if (off < sizeof(ids))
			off += (size_t)snprintf(ids + off, sizeof(ids) - off, "%s%u",
						n_workers == 0 ? "" : ",", data[i]);
		n_workers++;
	}
	fprintf(stderr, "mcfan: --idle-worker %s: there is no worker lcore that is only a worker "
		"(worker lcore%s %s also poll%s ports and wait%s by --idle-rx's policy); give a "
		"worker lcore of its own (e.g. -l 0-2, or --worker-lcores apart from --rx-lcores), "
		"or leave --idle-worker out and set --idle-rx\n",
		mcfan_idle_format(cfg->idle_worker, policy, sizeof(policy)),
		n_workers == 1 ? "" : "s", ids, n_workers == 1 ? "s" : "",
		n_workers == 1 ? "s" : "");
	return -EINVAL;
}

/* Every worker engine instance's per-lcore set-up with its ARGS (engine configure hook),
 * in worker order, then instance order; -EINVAL for bad input (the engine printed the
 * line). */
static int
setup_engine_configure(struct mcfan_app *app)
{
	const struct mcfan_engine *e;
	struct mcfan_lcore *lc;
	unsigned int w, k;
	int ret;

	for (w = 0; w < app->n_workers; w++) {
		lc = &app->lcores[app->worker_lcore_ids[w]];
		for (k = 0; k < app->n_inst; k++) {
			e = app->inst_engine[k];
			if (e->configure == NULL)
				continue;
			ret = e->configure(app, lc, k, app->cfg.engine_inst[k].args,
					   &lc->inst_priv[k]);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* Two instances that are one output written two ways, known only once the ports are
 * probed (tx:1 and tx:net_tap1, the same rewrites): each sets up its own TX queues, so
 * say so once a pair. */
static void
warn_same_outputs(const struct mcfan_app *app)
{
	const struct mcfan_config *cfg = &app->cfg;
	const struct mcfan_engine *e;
	char place[192];
	unsigned int k, j;

	for (k = 0; k < app->n_inst; k++) {
		e = app->inst_engine[k];
		for (j = k + 1; e->args_same_probed != NULL && j < app->n_inst; j++)
			if (app->inst_engine[j] == e &&
			    e->args_same_probed(cfg->engine_inst[k].args, cfg->engine_inst[j].args,
						place, sizeof(place)))
				MCFAN_LOG(WARNING, "worker engine outputs %u (%s:%s) and %u "
					  "(%s:%s) are one output written two ways (%s): each "
					  "takes TX queues of its own; write it one way\n", k,
					  e->name, cfg->engine_inst[k].args, j, e->name,
					  cfg->engine_inst[j].args, place);
	}
}

/* The worker engine instances of cfg.engine_inst (params.c and group_engine.c have
 * checked them; instance 0 is --worker-engine). */
static int
setup_instances(struct mcfan_app *app)
{
	const struct mcfan_config *cfg = &app->cfg;
	unsigned int k;

	app->n_inst = cfg->n_engine_inst;
	if (app->n_inst == 0) { /* not resolved (a caller without group_engine.c): one */
		app->n_inst = 1;
		app->inst_engine[0] = mcfan_engine_find(MCFAN_ENGINE_WORKER, cfg->worker_engine);
		return app->inst_engine[0] != NULL ? 0 : -EINVAL;
	}
	for (k = 0; k < app->n_inst; k++) {
		app->inst_engine[k] = mcfan_engine_find(MCFAN_ENGINE_WORKER,
							cfg->engine_inst[k].name);
		if (app->inst_engine[k] == NULL) {
			fprintf(stderr, "mcfan: --group-engine: '%s' is not a worker engine\n",
				cfg->engine_inst[k].name);
			return -EINVAL;
		}
	}
	warn_same_outputs(app);
	return 0;
}

/* Give every data lcore the engines of its roles (params.c has checked the names). */
static int
setup_engines(struct mcfan_app *app)
{
	const struct mcfan_engine *rxe, *wke;
	char names[128];
	unsigned int id;

	rxe = mcfan_engine_find(MCFAN_ENGINE_RX, app->cfg.rx_engine);
	wke = mcfan_engine_find(MCFAN_ENGINE_WORKER, app->cfg.worker_engine);
	if (rxe == NULL || wke == NULL) {
		fprintf(stderr, "mcfan: --%s-engine: '%s' is not an engine: %s\n",
			rxe == NULL ? "rx" : "worker",
			rxe == NULL ? app->cfg.rx_engine : app->cfg.worker_engine,
			mcfan_engine_names(rxe == NULL ? MCFAN_ENGINE_RX : MCFAN_ENGINE_WORKER,
					   names, sizeof(names)));
		return -EINVAL;
	}
	if (setup_instances(app) < 0)
		return -EINVAL;
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		struct mcfan_lcore *lc = &app->lcores[id];

		lc->rx_engine = (lc->role & MCFAN_ROLE_RX) ? rxe : NULL;
		lc->worker_engine = (lc->role & MCFAN_ROLE_WORKER) ? wke : NULL;
	}
	return setup_engine_configure(app);
}

int
mcfan_setup_lcores(struct mcfan_app *app)
{
	const struct mcfan_config *cfg = &app->cfg;
	unsigned int data[RTE_MAX_LCORE], n_data = 0, id, i;
	bool is_rx[RTE_MAX_LCORE] = {false}, is_worker[RTE_MAX_LCORE] = {false};

	app->main_lcore = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(id)
		data[n_data++] = id;
	if (n_data == 0) {
		fprintf(stderr, "mcfan: no data lcore: EAL gave only the main lcore %u; give at "
			"least two lcores, e.g. -l 0-1\n", app->main_lcore);
		return -EINVAL;
	}
	for (i = 0; i < cfg->n_rx_lcores; i++)
		if (check_lcore(app, cfg->rx_lcores[i], "rx-lcores") < 0)
			return -EINVAL;
	for (i = 0; i < cfg->n_worker_lcores; i++)
		if (check_lcore(app, cfg->worker_lcores[i], "worker-lcores") < 0)
			return -EINVAL;
	mcfan_lcore_roles(cfg, data, n_data, is_rx, is_worker);
	app->n_rx = 0;
	app->n_workers = 0;
	for (i = 0; i < n_data; i++) {
		struct mcfan_lcore *lc = &app->lcores[data[i]];

		id = data[i];
		lc->lcore_id = id;
		lc->role = MCFAN_ROLE_NONE;
		if (is_rx[id]) {
			lc->role |= MCFAN_ROLE_RX;
			lc->rx_index = app->n_rx;
			app->rx_lcore_ids[app->n_rx++] = id;
		}
		if (is_worker[id]) {
			lc->role |= MCFAN_ROLE_WORKER;
			lc->worker_index = app->n_workers;
			app->worker_lcore_ids[app->n_workers++] = id;
		}
		if (lc->role == MCFAN_ROLE_NONE)
			MCFAN_LOG(WARNING, "lcore %u is enabled but has no role: it stays idle\n", id);
	}
	app->lcores[app->main_lcore].lcore_id = app->main_lcore;
	app->lcores[app->main_lcore].role = MCFAN_ROLE_CONTROL;
	if (mcfan_idle_worker_check(cfg, data, n_data, is_rx, is_worker) < 0)
		return -EINVAL;
	return setup_engines(app);
}

int
mcfan_setup_rings(struct mcfan_app *app)
{
	unsigned int r, w, n = app->n_rx * app->n_workers;
	char name[RTE_RING_NAMESIZE];
	struct mcfan_lcore *lc;
	int ret;

	app->meta_offset = mcfan_meta_register();
	if (app->meta_offset < 0) {
		MCFAN_LOG(ERR, "cannot register the mbuf dynamic field: %s\n",
			  strerror(-app->meta_offset));
		return app->meta_offset;
	}
	app->rings = rte_zmalloc("mcfan_rings", n * sizeof(app->rings[0]), 0);
	if (app->rings == NULL)
		return -ENOMEM;
	RTE_BUILD_BUG_ON(RTE_MAX_LCORE > UINT16_MAX);
	for (r = 0; r < app->n_rx; r++) {
		for (w = 0; w < app->n_workers; w++) {
			lc = &app->lcores[app->worker_lcore_ids[w]];
			/* r, w < RTE_MAX_LCORE <= UINT16_MAX: at most 5 digits each, so the
			 * name, 19 characters at most, fits RTE_RING_NAMESIZE (29 with NUL);
			 * the compiler sees the range by the casts (-Wformat-truncation under
			 * the sanitizers saw 10 digits each) */
			snprintf(name, sizeof(name), "mcfan_r%u_w%u", (unsigned int)(uint16_t)r,
				 (unsigned int)(uint16_t)w);
			/* exact size: the operator gets the slots asked for, not size - 1 */
			app->rings[r * app->n_workers + w] = rte_ring_create(name,
				app->cfg.ring_size, rte_lcore_to_socket_id(lc->lcore_id),
				RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
			if (app->rings[r * app->n_workers + w] == NULL) {
				MCFAN_LOG(ERR, "cannot create ring %s of %u slots: %s\n", name,
					  app->cfg.ring_size, rte_strerror(rte_errno));
				return -rte_errno;
			}
		}
	}
	for (r = 0; r < app->n_rx; r++) {
		lc = &app->lcores[app->rx_lcore_ids[r]];
		ret = mcfan_rx_ctx_init(&lc->rx, &app->rings[r * app->n_workers], app->n_workers,
					app->meta_offset, rte_lcore_to_socket_id(lc->lcore_id));
		if (ret < 0) {
			MCFAN_LOG(ERR, "cannot set up RX lcore %u: %s\n", lc->lcore_id,
				  strerror(-ret));
			return ret;
		}
	}
	for (w = 0; w < app->n_workers; w++) {
		lc = &app->lcores[app->worker_lcore_ids[w]];
		lc->in_rings = rte_zmalloc_socket("mcfan_in_rings",
						  app->n_rx * sizeof(lc->in_rings[0]), 0,
						  rte_lcore_to_socket_id(lc->lcore_id));
		lc->in_local = rte_zmalloc_socket("mcfan_in_local",
						  app->n_rx * sizeof(lc->in_local[0]), 0,
						  rte_lcore_to_socket_id(lc->lcore_id));
		lc->ws = rte_zmalloc_socket("mcfan_worker_stats", sizeof(*lc->ws),
					    RTE_CACHE_LINE_SIZE,
					    rte_lcore_to_socket_id(lc->lcore_id));
		if (lc->in_rings == NULL || lc->in_local == NULL || lc->ws == NULL)
			return -ENOMEM;
		lc->ws->lat_ns_mult = mcfan_lat_ns_mult(app->tsc_hz);
		for (r = 0; r < app->n_rx; r++) {
			unsigned int rx_id = app->rx_lcore_ids[r];

			lc->in_rings[r] = app->rings[r * app->n_workers + w];
			/* the same thread: the RX lcore itself, or the lcore hosting this one
			 * (decided before the rings: mcfan_placement_hosts()) */
			lc->in_local[r] = lc->lcore_id == rx_id || lc->host_id == rx_id;
			ret = mcfan_rx_ctx_set_local(&app->lcores[rx_id].rx, w, lc->in_local[r]);
			if (ret < 0)
				return ret;
		}
	}
	app->qsbr = rte_zmalloc("mcfan_qsbr", rte_rcu_qsbr_get_memsize(app->n_rx),
				RTE_CACHE_LINE_SIZE);
	if (app->qsbr == NULL)
		return -ENOMEM;
	ret = rte_rcu_qsbr_init(app->qsbr, app->n_rx);
	if (ret != 0)
		return -rte_errno;
	for (r = 0; r < app->n_rx; r++) {
		ret = rte_rcu_qsbr_thread_register(app->qsbr, r);
		if (ret != 0)
			return -rte_errno;
	}
	/* the worker-step threads' RCU (struct mcfan_app wqsbr): by lcore id, registered
	 * offline (a quiescent state) until their loop starts */
	app->wqsbr = rte_zmalloc("mcfan_wqsbr", rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE),
				 RTE_CACHE_LINE_SIZE);
	if (app->wqsbr == NULL)
		return -ENOMEM;
	ret = rte_rcu_qsbr_init(app->wqsbr, RTE_MAX_LCORE);
	if (ret != 0)
		return -rte_errno;
	for (r = 0; r < RTE_MAX_LCORE; r++) {
		if (!mcfan_lcore_steps_workers(&app->lcores[r]))
			continue;
		ret = rte_rcu_qsbr_thread_register(app->wqsbr, r);
		if (ret != 0)
			return -rte_errno;
	}
	return 0;
}


void
mcfan_setup_free(struct mcfan_app *app)
{
	unsigned int i, k;

	mcfan_group_table_free(mcfan_live_table_exchange(&app->live.groups, NULL,
							 memory_order_acq_rel));
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct mcfan_lcore *lc = &app->lcores[i];

		if (lc->role & MCFAN_ROLE_RX)
			mcfan_rx_ctx_free(&lc->rx);
		for (k = 0; lc->worker_engine != NULL && k < app->n_inst; k++) {
			if (app->inst_engine[k]->release != NULL)
				app->inst_engine[k]->release(app, lc, lc->inst_priv[k]);
			lc->inst_priv[k] = NULL;
		}
		rte_free(lc->in_rings);
		lc->in_rings = NULL;
		rte_free(lc->in_local);
		lc->in_local = NULL;
		rte_free(lc->ws);
		lc->ws = NULL;
	}
	if (app->rings != NULL)
		for (i = 0; i < app->n_rx * app->n_workers; i++)
			rte_ring_free(app->rings[i]);
	rte_free(app->rings);
	app->rings = NULL;
	rte_free(app->qsbr);
	app->qsbr = NULL;
	rte_free(app->wqsbr);
	app->wqsbr = NULL;
	free(app->group_entries);
	app->group_entries = NULL;
}
