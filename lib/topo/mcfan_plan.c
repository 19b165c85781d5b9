/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The placement planner (mcfan_plan.h). The control lcore takes the first CPU of the bind
 * order (or the control CPU asked for); then every data lcore, RX lcores first, takes the
 * CPU that carries the fewest lcores so far, the earliest in the bind order among equals,
 * so data lcores skip the control CPU while other CPUs remain and wrap around the bind
 * order when there are more lcores than CPUs. An RX lcore looks only at the CPUs on the
 * node of the port it polls, when the map has any there. Bind type `u` pins nothing: every
 * lcore floats over the map's CPUs.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "mcfan_msacc.h"
#include "mcfan_parse.h"
#include "mcfan_plan.h"

char *
mcfan_plan_cpuset_text(const struct mcfan_cpuset *set)
{
	int n = mcfan_cpuset_format(set, NULL, 0);
	char *s;

	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s != NULL)
		mcfan_cpuset_format(set, s, (size_t)n + 1);
	return s;
}

char *
mcfan_plan_map_cpus_text(const struct mcfan_sct_map *map)
{
	struct mcfan_cpuset *set;
	char *s;
	size_t i;

	if (map == NULL)
		return NULL;
	set = calloc(1, sizeof(*set));
	if (set == NULL)
		return NULL;
	for (i = 0; i < mcfan_sct_count(map); i++)
		mcfan_cpuset_add(set, (unsigned int)mcfan_sct_cpu_at(map, i)->logical);
	s = mcfan_plan_cpuset_text(set);
	free(set);
	return s;
}

char *
mcfan_plan_map_text(const struct mcfan_sct_map *map, unsigned int flags)
{
	int n;
	char *s;

	if (map == NULL)
		return NULL;
	n = mcfan_sct_format(map, flags, NULL, 0);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s != NULL)
		mcfan_sct_format(map, flags, s, (size_t)n + 1);
	return s;
}

static char *
cpu_text(unsigned int cpu)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", cpu);
	return strdup(buf);
}

void
mcfan_plan_row_ids(struct mcfan_plan_row *r, const struct mcfan_sct_map *map,
		   const struct mcfan_cpuset *set)
{
	const struct mcfan_sct_cpu *c;
	int32_t node = MCFAN_SCT_ID_UNDEFINED;
	unsigned int i;
	bool first = true;

	r->thread = r->core = r->processor = r->node = -1;
	if (map == NULL)
		return;
	if (r->cpu >= 0) {
		c = mcfan_sct_lookup(map, (unsigned int)r->cpu);
		if (c != NULL) {
			r->thread = c->thread;
			r->core = c->core;
			r->processor = c->processor;
			r->node = mcfan_sct_cpu_numa_node(c);
		}
		return;
	}
	if (set == NULL)
		return;
	for (i = 0; i < MCFAN_SCT_MAX_CPUS; i++) {
		if (!mcfan_cpuset_has(set, i))
			continue;
		c = mcfan_sct_lookup(map, i);
		if (c == NULL)
			return;
		if (first)
			node = mcfan_sct_cpu_numa_node(c);
		else if (node != mcfan_sct_cpu_numa_node(c))
			return;
		first = false;
	}
	r->node = node;
}


void
mcfan_plan_free(struct mcfan_plan *plan)
{
	unsigned int i;

	if (plan == NULL)
		return;
	for (i = 0; i < plan->n_rows; i++)
		free(plan->rows[i].cpus);
	free(plan->rows);
	free(plan->order);
	free(plan->lcores_arg);
	free(plan->shared);
	free(plan->shared_lcores);
	free(plan);
}

/* Position of the least loaded CPU, earliest in the bind order among equals; only CPUs on
 * `node` if node >= 0 and the map has any there. */
static unsigned int
plan_pick(const struct mcfan_sct_map *map, const unsigned int *order, const unsigned int *load,
	  unsigned int n, int32_t node)
{
	unsigned int i, best = UINT_MAX;
	bool on_node = false;

	if (node >= 0)
		for (i = 0; i < n && !on_node; i++)
			on_node = mcfan_sct_cpu_numa_node(mcfan_sct_lookup(map, order[i])) == node;
	for (i = 0; i < n; i++) {
		if (on_node && mcfan_sct_cpu_numa_node(mcfan_sct_lookup(map, order[i])) != node)
			continue;
		if (best == UINT_MAX || load[i] < load[best])
			best = i;
	}
	return best;
}

/* The EAL --lcores value: `L@C` for a pinned lcore, `L@(list)` for a set (one cpuset; the
 * unparenthesised `L@0-3,8` would be two mappings). */
static int
plan_lcores_arg(struct mcfan_plan *plan)
{
	size_t len = 1, used = 0;
	unsigned int i;
	int n;

	for (i = 0; i < plan->n_rows; i++)
		len += strlen(plan->rows[i].cpus) + 16;
	plan->lcores_arg = malloc(len);
	if (plan->lcores_arg == NULL)
		return -ENOMEM;
	plan->lcores_arg[0] = '\0';
	for (i = 0; i < plan->n_rows; i++) {
		const struct mcfan_plan_row *r = &plan->rows[i];
		bool set = strpbrk(r->cpus, ",-") != NULL;

		n = snprintf(plan->lcores_arg + used, len - used, "%s%u@%s%s%s", i ? "," : "",
			     r->lcore, set ? "(" : "", r->cpus, set ? ")" : "");
		used += (size_t)n;
	}
	return 0;
}

/* Bind type u: nothing pinned; control floats over the map (or sits on --control-cpu),
 * data lcores over the map without the control CPU. */
static int
plan_unbound(const struct mcfan_plan_req *req, struct mcfan_plan *plan)
{
	struct mcfan_cpuset *all = calloc(1, sizeof(*all)), *data = calloc(1, sizeof(*data));
	unsigned int i, k, n = plan->n_order;
	int ret = -ENOMEM;

	if (all == NULL || data == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		mcfan_cpuset_add(all, plan->order[i]);
		if (req->control_cpu < 0 || n == 1 ||
		    plan->order[i] != (unsigned int)req->control_cpu)
			mcfan_cpuset_add(data, plan->order[i]);
	}
	for (i = 0; i < plan->n_rows; i++) {
		struct mcfan_plan_row *r = &plan->rows[i];

		if (i == 0 && req->control_cpu >= 0) {
			r->cpu = req->control_cpu;
			r->cpus = cpu_text((unsigned int)r->cpu);
		} else {
			r->cpu = -1;
			r->cpus = mcfan_plan_cpuset_text(i == 0 ? all : data);
		}
		if (r->cpus == NULL)
			goto out;
		mcfan_plan_row_ids(r, req->map, i == 0 ? all : data);
		if (r->cpu < 0 && mcfan_cpuset_count(i == 0 ? all : data) == 1)
			r->cpu = atoi(r->cpus);
		if (r->cpu >= 0)
			mcfan_plan_row_ids(r, req->map, NULL);
	}
	plan->oversubscribed = plan->n_rows > n;
	if (plan->oversubscribed) {
		/* every CPU the data lcores float over may have to carry several */
		plan->shared = calloc(n, sizeof(*plan->shared));
		plan->shared_lcores = calloc(n, sizeof(*plan->shared_lcores));
		if (plan->shared == NULL || plan->shared_lcores == NULL)
			goto out;
		for (i = 0; i < MCFAN_SCT_MAX_CPUS && plan->n_shared < n; i++) {
			if (!mcfan_cpuset_has(all, i))
				continue;
			/* the control lcore if it may run here, and every data lcore if they may */
			k = (req->control_cpu < 0 || (unsigned int)req->control_cpu == i) +
			    (mcfan_cpuset_has(data, i) ? plan->n_rows - 1 : 0);
			if (k < 2)
				continue;
			plan->shared[plan->n_shared] = i;
			plan->shared_lcores[plan->n_shared++] = k;
		}
	}
	ret = 0;
out:
	free(all);
	free(data);
	return ret;
}

static int
plan_pinned(const struct mcfan_plan_req *req, struct mcfan_plan *plan, char *err, size_t len)
{
	unsigned int n = plan->n_order, i, pos, *load, *by_cpu = NULL, k;
	int32_t control_node, want;

	load = calloc(n, sizeof(*load));
	if (load == NULL)
		return -ENOMEM;
	pos = 0;
	if (req->control_cpu >= 0)
		for (pos = 0; pos < n && plan->order[pos] != (unsigned int)req->control_cpu; pos++)
			;
	control_node = mcfan_sct_cpu_numa_node(mcfan_sct_lookup(req->map, plan->order[pos]));
	for (i = 0; i < plan->n_rows; i++) {
		struct mcfan_plan_row *r = &plan->rows[i];

		if (i > 0) {
			want = -1;
			if ((r->role & MCFAN_ROLE_RX) && i - 1 < req->n_ports &&
			    req->port_nodes != NULL) {
				want = req->port_nodes[i - 1];
				if (want == MCFAN_PLAN_NODE_CONTROL)
					want = control_node;
			}
			r->want_node = want < 0 ? -1 : want;
			pos = plan_pick(req->map, plan->order, load, n, r->want_node);
		}
		load[pos]++;
		r->cpu = (int32_t)plan->order[pos];
		r->cpus = cpu_text(plan->order[pos]);
		if (r->cpus == NULL) {
			free(load);
			return -ENOMEM;
		}
		mcfan_plan_row_ids(r, req->map, NULL);
	}
	for (i = 0; i < n; i++)
		if (load[i] > 1)
			plan->n_shared++;
	plan->oversubscribed = plan->n_shared > 0;
	if (plan->n_shared > 0) {
		plan->shared = calloc(plan->n_shared, sizeof(*plan->shared));
		plan->shared_lcores = calloc(plan->n_shared, sizeof(*plan->shared_lcores));
		by_cpu = calloc(n, sizeof(*by_cpu));
		if (plan->shared == NULL || plan->shared_lcores == NULL || by_cpu == NULL) {
			free(by_cpu);
			free(load);
			return -ENOMEM;
		}
		/* ascending CPU ids: sort the positions with load > 1 by CPU id (few) */
		for (i = 0, k = 0; i < n; i++)
			if (load[i] > 1)
				by_cpu[k++] = i;
		for (i = 1; i < k; i++) {
			unsigned int v = by_cpu[i], j = i;

			while (j > 0 && plan->order[by_cpu[j - 1]] > plan->order[v]) {
				by_cpu[j] = by_cpu[j - 1];
				j--;
			}
			by_cpu[j] = v;
		}
		for (i = 0; i < k; i++) {
			plan->shared[i] = plan->order[by_cpu[i]];
			plan->shared_lcores[i] = load[by_cpu[i]];
		}
	}
	RTE_SET_USED(err);
	RTE_SET_USED(len);
	free(by_cpu);
	free(load);
	return 0;
}

int
mcfan_plan_build(const struct mcfan_plan_req *req, struct mcfan_plan **out, char *err,
		 size_t len)
{
	struct mcfan_plan *plan;
	unsigned int i, n_lcores;
	int n, ret;

	if (req == NULL || out == NULL || req->map == NULL || req->bind >= MCFAN_SCT_BIND_COUNT) {
		return mcfan_err_set(err, len, -EINVAL, "no map or no bind type");
	}
	if (req->n_rx == 0) {
		return mcfan_err_set(err, len, -EINVAL, "at least one RX lcore is needed");
	}
	n_lcores = 1 + req->n_rx + req->n_workers;
	if (req->max_lcores > 0 && n_lcores > req->max_lcores) {
		return mcfan_err_set(err, len, -EINVAL, "%u lcores (control, %u RX, %u workers) is "
			      "more than the %u lcores EAL supports", n_lcores, req->n_rx,
			      req->n_workers,
			      req->max_lcores);
	}
	if (req->control_cpu >= 0 && mcfan_sct_lookup(req->map, (unsigned int)req->control_cpu) ==
	    NULL) {
		char *cpus = mcfan_plan_map_cpus_text(req->map);

		mcfan_err_set(err, len, -EINVAL, "--control-cpu %d is not a CPU of the map (its "
			      "CPUs: %s)", req->control_cpu, cpus != NULL ? cpus : "?");
		free(cpus);
		return -EINVAL;
	}
	plan = calloc(1, sizeof(*plan));
	if (plan == NULL)
		return -ENOMEM;
	plan->bind = req->bind;
	n = mcfan_sct_bind_order(req->map, req->bind, NULL, 0);
	ret = -ENOMEM;
	if (n <= 0)
		goto fail;
	plan->order = calloc((size_t)n, sizeof(*plan->order));
	plan->rows = calloc(n_lcores, sizeof(*plan->rows));
	if (plan->order == NULL || plan->rows == NULL)
		goto fail;
	ret = mcfan_sct_bind_order(req->map, req->bind, plan->order, (size_t)n);
	if (ret < 0)
		goto fail;
	plan->n_order = (unsigned int)n;
	plan->n_rows = n_lcores;
	for (i = 0; i < n_lcores; i++) {
		plan->rows[i].lcore = i;
		plan->rows[i].want_node = -1;
		if (i == 0)
			plan->rows[i].role = MCFAN_ROLE_CONTROL;
		else if (i <= req->n_rx)
			plan->rows[i].role = MCFAN_ROLE_RX |
				(req->n_workers == 0 ? MCFAN_ROLE_WORKER : 0);
		else
			plan->rows[i].role = MCFAN_ROLE_WORKER;
	}
	if (req->bind == MCFAN_SCT_BIND_UNBOUND)
		ret = plan_unbound(req, plan);
	else
		ret = plan_pinned(req, plan, err, len);
	if (ret == 0)
		ret = plan_lcores_arg(plan);
	if (ret < 0)
		goto fail;
	*out = plan;
	return 0;
fail:
	if (ret == -ENOMEM)
		mcfan_err_set(err, len, -ENOMEM, "out of memory");
	mcfan_plan_free(plan);
	return ret;
}

/* An id column: "-" for unknown (-1), padded to width. */
static void
print_id(FILE *f, int width, int32_t v)
{
	if (v < 0)
		fprintf(f, "%-*s", width, "-");
	else
		fprintf(f, "%-*d", width, v);
}

int
mcfan_plan_rows_print(FILE *f, const struct mcfan_plan_row *rows, unsigned int n)
{
	unsigned int i;
	int w = 4;

	for (i = 0; i < n; i++)
		if ((int)strlen(rows[i].cpus) + 1 > w)
			w = (int)strlen(rows[i].cpus) + 1;
	fprintf(f, "%-6s %-10s %-*s %-7s %-5s %-10s %s\n", "lcore", "role", w, "cpu", "thread",
		"core", "processor", "node");
	for (i = 0; i < n; i++) {
		fprintf(f, "%-6u %-10s %-*s ", rows[i].lcore, mcfan_role_name(rows[i].role), w,
			rows[i].cpus);
		print_id(f, 8, rows[i].thread);
		print_id(f, 6, rows[i].core);
		print_id(f, 11, rows[i].processor);
		if (rows[i].node < 0)
			fprintf(f, "-\n");
		else
			fprintf(f, "%d\n", rows[i].node);
	}
	return ferror(f) ? -EIO : 0;
}

int
mcfan_plan_shared_print(FILE *f, const unsigned int *cpus, const unsigned int *lcores,
			unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s %u (%u lcores)", i ? "," : "", cpus[i], lcores[i]);
	return ferror(f) ? -EIO : 0;
}
