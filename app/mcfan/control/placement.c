/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Placement of lcores from a +sct map and a bind type (docs/topology.md, "Placement").
 *
 * Planning: the control lcore takes the first CPU of the bind order (or --control-cpu);
 * then every data lcore, RX lcores first, takes the CPU that carries the fewest lcores so
 * far, the earliest in the bind order among equals, so data lcores skip the control CPU
 * while other CPUs remain and wrap around the bind order when there are more lcores than
 * CPUs. An RX lcore looks only at the CPUs on the node of the port it polls, when the map
 * has any there. Bind type `u` pins nothing: every lcore floats over the map's CPUs.
 *
 * Lifecycle: mcfan_placement_pre_eal() before rte_eal_init (print options, refusals, the
 * generated --lcores), mcfan_placement_roles() before the lcores are set up, and
 * mcfan_placement_report() once lcores, rings, pool and ports exist; after that the state
 * here is only read (console, telemetry thread, report) until mcfan_placement_free().
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "log.h"
#include "control/placement.h"
#include "mcfan_parse.h"

#define PLC_ERR_MAX 512
/* Most ports the planner considers (EAL's -a and --vdev arguments). */
#define PLC_MAX_PORTS RTE_MAX_ETHPORTS
/* Most rows of a column in a telemetry reply: 5 columns of 256 small numbers stay well
 * under the 16 KiB reply limit of DPDK 22.11. */
#define PLC_TEL_MAX_ROWS 256

/* The placement state; see the lifecycle above. */
static struct {
	struct mcfan_sct_map *map;    /* --cpu-topology, or the host's; NULL if unreadable */
	bool map_from_option;
	bool requested;               /* any placement option given */
	bool counts_given;            /* --rx or --workers */
	bool generated;               /* mcfan built EAL's --lcores */
	enum mcfan_sct_bind bind;
	unsigned int n_rx;
	int workers;                  /* -1: not given */
	struct mcfan_plan *plan;      /* when generated */
	char **argv;                  /* EAL argv with --lcores inserted (when generated) */
	struct mcfan_plc_row *rows;   /* what runs (mcfan_placement_report) */
	unsigned int n_rows;
	unsigned int *shared;         /* CPUs with more than one lcore, in rows */
	unsigned int *shared_lcores;  /* how many each */
	unsigned int n_shared;
	struct mcfan_app *app;
} plc;

/* A CPU list as malloc'd text. */
static char *
set_text(const struct mcfan_cpuset *set)
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

static char *
cpu_text(unsigned int cpu)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", cpu);
	return strdup(buf);
}

/* Fill a row's ids from the map: those of its CPU, or for a set only a common node. */
static void
row_ids(struct mcfan_plc_row *r, const struct mcfan_sct_map *map, const struct mcfan_cpuset *set)
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

/* ---- planning ---- */

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
		const struct mcfan_plc_row *r = &plan->rows[i];
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
		if (req->control_cpu < 0 || n == 1 || plan->order[i] != (unsigned int)req->control_cpu)
			mcfan_cpuset_add(data, plan->order[i]);
	}
	for (i = 0; i < plan->n_rows; i++) {
		struct mcfan_plc_row *r = &plan->rows[i];

		if (i == 0 && req->control_cpu >= 0) {
			r->cpu = req->control_cpu;
			r->cpus = cpu_text((unsigned int)r->cpu);
		} else {
			r->cpu = -1;
			r->cpus = set_text(i == 0 ? all : data);
		}
		if (r->cpus == NULL)
			goto out;
		row_ids(r, req->map, i == 0 ? all : data);
		if (r->cpu < 0 && mcfan_cpuset_count(i == 0 ? all : data) == 1)
			r->cpu = atoi(r->cpus);
		if (r->cpu >= 0)
			row_ids(r, req->map, NULL);
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
		struct mcfan_plc_row *r = &plan->rows[i];

		if (i > 0) {
			want = -1;
			if ((r->role & MCFAN_ROLE_RX) && i - 1 < req->n_ports &&
			    req->port_nodes != NULL) {
				want = req->port_nodes[i - 1];
				if (want == MCFAN_PLC_NODE_CONTROL)
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
		row_ids(r, req->map, NULL);
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
		return mcfan_err_set(err, len, -EINVAL,
				     "%u lcores (control, %u RX, %u workers) is more than the %u "
				     "lcores EAL supports", n_lcores, req->n_rx, req->n_workers,
				     req->max_lcores);
	}
	if (req->control_cpu >= 0 && mcfan_sct_lookup(req->map, (unsigned int)req->control_cpu) ==
	    NULL) {
		return mcfan_err_set(err, len, -EINVAL, "--control-cpu %d is not a CPU of the map",
				     req->control_cpu);
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
		mcfan_err_set(err, len, ret, "out of memory");
	mcfan_plan_free(plan);
	return ret;
}

/* ---- printing ---- */

static void
print_id(FILE *f, int width, int32_t v)
{
	if (v < 0)
		fprintf(f, "%-*s", width, "-");
	else
		fprintf(f, "%-*d", width, v);
}

static void
print_rows(FILE *f, const struct mcfan_plc_row *rows, unsigned int n)
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
}

/* The map as compact +sct text, malloc'd. */
static char *
map_text(const struct mcfan_sct_map *map, unsigned int flags)
{
	int n = mcfan_sct_format(map, flags, NULL, 0);
	char *s;

	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s != NULL)
		mcfan_sct_format(map, flags, s, (size_t)n + 1);
	return s;
}

static void
warn_shared(const unsigned int *cpus, const unsigned int *lcores, unsigned int n,
	    unsigned int n_lcores, unsigned int n_cpus)
{
	unsigned int i;

	fprintf(stderr, "mcfan: warning: oversubscribed: %u lcores on %u CPUs; CPUs with more "
		"than one lcore:", n_lcores, n_cpus);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s %u (%u lcores)", i ? "," : "", cpus[i], lcores[i]);
	fprintf(stderr, "\n");
}

static json_t *
row_json(const struct mcfan_plc_row *r)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "lcore", json_integer(r->lcore));
	json_object_set_new(o, "role", json_string(mcfan_role_name(r->role)));
	json_object_set_new(o, "cpu", r->cpu < 0 ? json_null() : json_integer(r->cpu));
	json_object_set_new(o, "cpus", json_string(r->cpus));
	json_object_set_new(o, "thread", r->thread < 0 ? json_null() : json_integer(r->thread));
	json_object_set_new(o, "core", r->core < 0 ? json_null() : json_integer(r->core));
	json_object_set_new(o, "processor", r->processor < 0 ? json_null() :
			    json_integer(r->processor));
	json_object_set_new(o, "node", r->node < 0 ? json_null() : json_integer(r->node));
	return o;
}

static json_t *
map_json(const struct mcfan_sct_map *map)
{
	json_t *arr = json_array(), *o;
	const struct mcfan_sct_cpu *c;
	size_t i;
	int32_t node;

	if (arr == NULL || map == NULL)
		return arr;
	for (i = 0; i < mcfan_sct_count(map); i++) {
		c = mcfan_sct_cpu_at(map, i);
		node = mcfan_sct_cpu_numa_node(c);
		o = json_object();
		json_object_set_new(o, "cpu", json_integer(c->logical));
		json_object_set_new(o, "thread", json_integer(c->thread));
		json_object_set_new(o, "core", json_integer(c->core));
		json_object_set_new(o, "processor", json_integer(c->processor));
		json_object_set_new(o, "node", node < 0 ? json_null() : json_integer(node));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *
u_array(const unsigned int *v, unsigned int n)
{
	json_t *arr = json_array();
	unsigned int i;

	for (i = 0; arr != NULL && i < n; i++)
		json_array_append_new(arr, json_integer(v[i]));
	return arr;
}

static json_t *
shared_json(const unsigned int *cpus, const unsigned int *lcores, unsigned int n)
{
	json_t *arr = json_array(), *o;
	unsigned int i;

	for (i = 0; arr != NULL && i < n; i++) {
		o = json_object();
		json_object_set_new(o, "cpu", json_integer(cpus[i]));
		json_object_set_new(o, "lcores", json_integer(lcores[i]));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* --print-placement */
static int
print_plan(const struct mcfan_plan *plan, const struct mcfan_sct_map *map, bool json)
{
	char *text = map_text(map, MCFAN_SCT_FORMAT_COMPACT);
	json_t *root, *rows;
	unsigned int i;
	char *dump;

	if (text == NULL)
		return -ENOMEM;
	if (!json) {
		printf("map: %s\n", text);
		printf("bind: %s (%s)\n", mcfan_sct_bind_name(plan->bind),
		       mcfan_sct_bind_erlang_name(plan->bind));
		printf("order:");
		for (i = 0; i < plan->n_order; i++)
			printf(" %u", plan->order[i]);
		printf("%s\n", plan->bind == MCFAN_SCT_BIND_UNBOUND ? " (unbound: no order)" : "");
		print_rows(stdout, plan->rows, plan->n_rows);
		printf("eal: --lcores %s\n", plan->lcores_arg);
		free(text);
		return 0;
	}
	root = json_object();
	rows = json_array();
	if (root == NULL || rows == NULL) {
		json_decref(root);
		json_decref(rows);
		free(text);
		return -ENOMEM;
	}
	json_object_set_new(root, "map", json_string(text));
	json_object_set_new(root, "map_cpus", map_json(map));
	json_object_set_new(root, "bind", json_string(mcfan_sct_bind_name(plan->bind)));
	json_object_set_new(root, "bind_erlang",
			    json_string(mcfan_sct_bind_erlang_name(plan->bind)));
	json_object_set_new(root, "order", u_array(plan->order, plan->n_order));
	for (i = 0; i < plan->n_rows; i++)
		json_array_append_new(rows, row_json(&plan->rows[i]));
	json_object_set_new(root, "placement", rows);
	json_object_set_new(root, "eal_lcores", json_string(plan->lcores_arg));
	json_object_set_new(root, "oversubscribed", shared_json(plan->shared,
			    plan->shared_lcores, plan->n_shared));
	dump = json_dumps(root, JSON_INDENT(2));
	if (dump != NULL)
		printf("%s\n", dump);
	free(dump);
	json_decref(root);
	free(text);
	return dump == NULL ? -ENOMEM : 0;
}

/* --print-topology */
static int
print_topology(const struct mcfan_sct_map *map, bool from_option)
{
	char *compact = map_text(map, MCFAN_SCT_FORMAT_COMPACT);
	char *full = map_text(map, 0);
	char *tree = NULL;
	int n = mcfan_sct_format_tree(map, NULL, 0);

	if (n >= 0) {
		tree = malloc((size_t)n + 1);
		if (tree != NULL)
			mcfan_sct_format_tree(map, tree, (size_t)n + 1);
	}
	if (compact == NULL || full == NULL || tree == NULL) {
		free(compact);
		free(full);
		free(tree);
		return -ENOMEM;
	}
	printf("# %s: %zu CPUs\n", from_option ? "map of --cpu-topology" :
	       "this host: CPUs online and allowed", mcfan_sct_count(map));
	printf("+sct %s\n", compact);
	printf("+sct %s\n", full);
	printf("%s", tree);
	free(compact);
	free(full);
	free(tree);
	return 0;
}

/* ---- before EAL ---- */

/* -l, -c or --lcores among the EAL arguments (also glued: -l0-3, --lcores=...). */
static bool
eal_has_lcores(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--lcores") == 0 || strncmp(a, "--lcores=", 9) == 0)
			return true;
		if (a[0] == '-' && (a[1] == 'l' || a[1] == 'c'))
			return true;
	}
	return false;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Kernel drivers that hand PCI devices to DPDK's PCI bus. */
static const char *const pci_uio_drivers[] = {"vfio-pci", "uio_pci_generic", "igb_uio"};

/* Without -a, EAL probes every PCI device bound to a UIO/VFIO driver: add their addresses. */
static unsigned int
pci_bound(char (*pci)[16], unsigned int n, unsigned int max)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned int i;
	DIR *d;

	for (i = 0; i < RTE_DIM(pci_uio_drivers); i++) {
		snprintf(path, sizeof(path), "/sys/bus/pci/drivers/%s", pci_uio_drivers[i]);
		d = opendir(path);
		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL && n < max)
			if (mcfan_hosttopo_pci_addr(de->d_name, pci[n], sizeof(pci[0])) == 0 &&
			    strcmp(de->d_name, pci[n]) == 0)
				n++;
		closedir(d);
	}
	return n;
}

/* The ports EAL will probe, in port id order (PCI devices by address: those of -a, or
 * without -a those bound to vfio-pci, uio_pci_generic or igb_uio; then --vdev in order),
 * with their nodes. Devices of bifurcated drivers (mlx5) without -a are not seen. */
static unsigned int
eal_ports(int argc, char **argv, int32_t *nodes, unsigned int max)
{
	char pci[PLC_MAX_PORTS][16], *sorted[PLC_MAX_PORTS];
	unsigned int n_pci = 0, n_vdev = 0, n = 0, i;
	bool no_pci = false, allow = false;
	const char *v;
	int a;

	for (a = 1; a < argc; a++) {
		const char *s = argv[a];

		v = NULL;
		if (strcmp(s, "--no-pci") == 0)
			no_pci = true;
		if (strcmp(s, "-a") == 0 || strcmp(s, "--allow") == 0)
			v = a + 1 < argc ? argv[++a] : NULL;
		else if (strncmp(s, "--allow=", 8) == 0)
			v = s + 8;
		else if (strncmp(s, "-a", 2) == 0 && s[2] != '\0')
			v = s + 2;
		if (v != NULL) {
			allow = true;
			if (n_pci < PLC_MAX_PORTS &&
			    mcfan_hosttopo_pci_addr(v, pci[n_pci], sizeof(pci[0])) == 0)
				n_pci++;
			continue;
		}
		if (strcmp(s, "--vdev") == 0 && a + 1 < argc) {
			a++;
			n_vdev++;
		} else if (strncmp(s, "--vdev=", 7) == 0) {
			n_vdev++;
		}
	}
	if (!allow && !no_pci)
		n_pci = pci_bound(pci, n_pci, PLC_MAX_PORTS);
	for (i = 0; i < n_pci; i++)
		sorted[i] = pci[i];
	qsort(sorted, n_pci, sizeof(sorted[0]), cmp_str);
	for (i = 0; i < n_pci && n < max; i++) {
		if (no_pci)
			break;
		if (mcfan_hosttopo_pci_node(NULL, sorted[i], &nodes[n]) < 0)
			nodes[n] = MCFAN_SCT_ID_UNDEFINED;
		n++;
	}
	for (i = 0; i < n_vdev && n < max; i++)
		nodes[n++] = MCFAN_PLC_NODE_CONTROL;
	return n;
}

/* CPUs of the map that are not online or not allowed; prints the refusal. */
static int
check_allowed(const struct mcfan_sct_map *map)
{
	struct mcfan_cpuset *allowed = calloc(1, sizeof(*allowed));
	struct mcfan_cpuset *missing = calloc(1, sizeof(*missing));
	char *a = NULL, *m = NULL;
	const struct mcfan_sct_cpu *c;
	size_t i;
	int ret = -ENOMEM;

	if (allowed == NULL || missing == NULL)
		goto out;
	ret = mcfan_hosttopo_allowed(allowed);
	if (ret < 0) {
		fprintf(stderr, "mcfan: cannot read the CPUs allowed to this process: %s\n",
			strerror(-ret));
		goto out;
	}
	for (i = 0; i < mcfan_sct_count(map); i++) {
		c = mcfan_sct_cpu_at(map, i);
		if (!mcfan_cpuset_has(allowed, (unsigned int)c->logical))
			mcfan_cpuset_add(missing, (unsigned int)c->logical);
	}
	if (mcfan_cpuset_count(missing) == 0) {
		ret = 0;
		goto out;
	}
	a = set_text(allowed);
	m = set_text(missing);
	fprintf(stderr, "mcfan: --cpu-topology: the map names CPUs that are not online or not "
		"allowed to this process: %s (online and allowed: %s)\n", m ? m : "?",
		a ? a : "?");
	ret = -EINVAL;
out:
	free(a);
	free(m);
	free(allowed);
	free(missing);
	return ret;
}

static int
make_plan(const struct mcfan_config *cfg, int eal_argc, char **eal_argv,
	  struct mcfan_plan **plan)
{
	int32_t nodes[PLC_MAX_PORTS];
	struct mcfan_plan_req req;
	char err[PLC_ERR_MAX];
	unsigned int n_cpus = (unsigned int)mcfan_sct_count(plc.map);
	int ret;

	memset(&req, 0, sizeof(req));
	req.map = plc.map;
	req.bind = plc.bind;
	req.n_rx = plc.n_rx;
	if (plc.workers >= 0)
		req.n_workers = (unsigned int)plc.workers;
	else
		req.n_workers = n_cpus > 1 + plc.n_rx ? n_cpus - 1 - plc.n_rx : 0;
	if (plc.workers < 0 && 1 + req.n_rx + req.n_workers > RTE_MAX_LCORE)
		req.n_workers = RTE_MAX_LCORE > 1 + req.n_rx ? RTE_MAX_LCORE - 1 - req.n_rx : 0;
	req.control_cpu = cfg->control_cpu;
	req.port_nodes = nodes;
	req.n_ports = eal_ports(eal_argc, eal_argv, nodes, PLC_MAX_PORTS);
	req.max_lcores = RTE_MAX_LCORE;
	ret = mcfan_plan_build(&req, plan, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "mcfan: placement: %s\n", err);
	else if ((*plan)->oversubscribed)
		warn_shared((*plan)->shared, (*plan)->shared_lcores, (*plan)->n_shared,
			    (*plan)->n_rows, n_cpus);
	return ret;
}

int
mcfan_placement_pre_eal(struct mcfan_config *cfg, int *eal_argc, char ***eal_argv,
			int *status)
{
	char err[PLC_ERR_MAX];
	struct mcfan_plan *plan = NULL;
	char **argv;
	unsigned int i;
	int ret;

	*status = MCFAN_EXIT_USAGE;
	plc.counts_given = cfg->rx_count > 0 || cfg->workers_count >= 0;
	plc.requested = plc.counts_given || cfg->cpu_topology != NULL || cfg->bind >= 0 ||
			cfg->control_cpu >= 0;
	plc.bind = cfg->bind >= 0 ? (enum mcfan_sct_bind)cfg->bind : MCFAN_SCT_BIND_DEFAULT_BIND;
	plc.n_rx = cfg->rx_count > 0 ? cfg->rx_count : 1;
	plc.workers = cfg->workers_count;
	if (cfg->json && !cfg->print_placement) {
		fprintf(stderr, "mcfan: --json goes with --print-placement\n");
		return 1;
	}
	if (plc.counts_given && (cfg->n_rx_lcores > 0 || cfg->n_worker_lcores > 0)) {
		fprintf(stderr, "mcfan: --rx/--workers count lcores for mcfan to place, "
			"--rx-lcores/--worker-lcores name EAL lcores: give one kind, not both\n");
		return 1;
	}
	if (cfg->cpu_topology != NULL) {
		ret = mcfan_sct_parse(cfg->cpu_topology, &plc.map, NULL, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "mcfan: --cpu-topology: %s\n", err);
			return 1;
		}
		plc.map_from_option = true;
	} else {
		ret = mcfan_hosttopo_read(&plc.map, err, sizeof(err));
		if (ret < 0) {
			if (plc.requested || cfg->print_topology || cfg->print_placement) {
				fprintf(stderr, "mcfan: reading the host's CPU topology: %s (give "
					"the map with --cpu-topology)\n", err);
				*status = EXIT_FAILURE;
				return 1;
			}
			plc.map = NULL; /* report without a map */
		}
	}
	if (cfg->print_topology || cfg->print_placement) {
		if (cfg->print_topology && print_topology(plc.map, plc.map_from_option) < 0) {
			*status = EXIT_FAILURE;
			return 1;
		}
		if (cfg->print_placement) {
			if (make_plan(cfg, *eal_argc, *eal_argv, &plan) < 0)
				return 1;
			ret = print_plan(plan, plc.map, cfg->json);
			mcfan_plan_free(plan);
			if (ret < 0) {
				*status = EXIT_FAILURE;
				return 1;
			}
		}
		fflush(stdout);
		*status = EXIT_SUCCESS;
		return 1;
	}
	if (!plc.requested)
		return 0;
	if (check_allowed(plc.map) < 0)
		return 1;
	if (cfg->control_cpu >= 0 && mcfan_sct_lookup(plc.map, (unsigned int)cfg->control_cpu) ==
	    NULL) {
		fprintf(stderr, "mcfan: --control-cpu %d is not a CPU of the map\n",
			cfg->control_cpu);
		return 1;
	}
	if (eal_has_lcores(*eal_argc, *eal_argv)) {
		/* the user's lcores as given: roles after EAL init, the table reported */
		return 0;
	}
	for (i = 1; i < (unsigned int)*eal_argc; i++) {
		if (strncmp((*eal_argv)[i], "--main-lcore", 12) == 0) {
			fprintf(stderr, "mcfan: --main-lcore: mcfan builds --lcores with lcore 0 as "
				"the control lcore (see --control-cpu); give -l/--lcores too to "
				"choose lcores yourself\n");
			return 1;
		}
	}
	if (make_plan(cfg, *eal_argc, *eal_argv, &plc.plan) < 0)
		return 1;
	argv = calloc((size_t)*eal_argc + 3, sizeof(*argv));
	if (argv == NULL) {
		*status = EXIT_FAILURE;
		return 1;
	}
	argv[0] = (*eal_argv)[0];
	argv[1] = (char *)(uintptr_t)"--lcores";
	argv[2] = plc.plan->lcores_arg;
	for (i = 1; i < (unsigned int)*eal_argc; i++)
		argv[i + 2] = (*eal_argv)[i];
	plc.argv = argv;
	*eal_argv = argv;
	*eal_argc += 2;
	/* roles: lcore 0 control, then the RX lcores, then the workers */
	cfg->n_rx_lcores = 0;
	cfg->n_worker_lcores = 0;
	for (i = 1; i < plc.plan->n_rows; i++) {
		if (plc.plan->rows[i].role & MCFAN_ROLE_RX)
			cfg->rx_lcores[cfg->n_rx_lcores++] = (uint16_t)plc.plan->rows[i].lcore;
		if (plc.plan->rows[i].role & MCFAN_ROLE_WORKER)
			cfg->worker_lcores[cfg->n_worker_lcores++] =
				(uint16_t)plc.plan->rows[i].lcore;
	}
	plc.generated = true;
	return 0;
}

/* ---- after EAL ---- */

int
mcfan_placement_roles(struct mcfan_app *app)
{
	struct mcfan_config *cfg = &app->cfg;
	unsigned int data[RTE_MAX_LCORE], n_data = 0, id, i, n_workers;

	if (!plc.counts_given || plc.generated)
		return 0;
	RTE_LCORE_FOREACH_WORKER(id)
		data[n_data++] = id;
	n_workers = plc.workers >= 0 ? (unsigned int)plc.workers :
		    (n_data > plc.n_rx ? n_data - plc.n_rx : 0);
	if (n_data < plc.n_rx + n_workers) {
		fprintf(stderr, "mcfan: --rx %u --workers %u need %u data lcores, EAL gave %u (leave "
			"out -l/-c/--lcores and mcfan places them on the map)\n", plc.n_rx,
			n_workers, plc.n_rx + n_workers, n_data);
		return -EINVAL;
	}
	cfg->n_rx_lcores = plc.n_rx;
	cfg->n_worker_lcores = 0;
	for (i = 0; i < plc.n_rx; i++)
		cfg->rx_lcores[i] = (uint16_t)data[i];
	if (n_workers == 0)
		for (i = 0; i < plc.n_rx; i++)
			cfg->worker_lcores[cfg->n_worker_lcores++] = (uint16_t)data[i];
	for (i = 0; i < n_workers; i++)
		cfg->worker_lcores[cfg->n_worker_lcores++] = (uint16_t)data[plc.n_rx + i];
	return 0;
}

static void
rows_free(void)
{
	unsigned int i;

	for (i = 0; i < plc.n_rows; i++)
		free(plc.rows[i].cpus);
	free(plc.rows);
	plc.rows = NULL;
	plc.n_rows = 0;
	free(plc.shared);
	plc.shared = NULL;
	free(plc.shared_lcores);
	plc.shared_lcores = NULL;
	plc.n_shared = 0;
}

/* The rows of what runs: every enabled lcore with its EAL cpuset. */
static int
rows_build(struct mcfan_app *app)
{
	struct mcfan_cpuset *set = calloc(1, sizeof(*set));
	unsigned int id, n = 0, i, j, count[CPU_SETSIZE] = {0};
	rte_cpuset_t cs;
	int cpu;

	if (set == NULL)
		return -ENOMEM;
	plc.rows = calloc(rte_lcore_count(), sizeof(*plc.rows));
	if (plc.rows == NULL) {
		free(set);
		return -ENOMEM;
	}
	RTE_LCORE_FOREACH(id) {
		struct mcfan_plc_row *r = &plc.rows[n];

		mcfan_cpuset_zero(set);
		cs = rte_lcore_cpuset(id);
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &cs))
				mcfan_cpuset_add(set, (unsigned int)cpu);
		r->lcore = id;
		r->role = id == app->main_lcore ? MCFAN_ROLE_CONTROL : app->lcores[id].role;
		r->want_node = -1;
		r->cpus = set_text(set);
		if (r->cpus == NULL)
			break;
		r->cpu = mcfan_cpuset_count(set) == 1 ? atoi(r->cpus) : -1;
		row_ids(r, plc.map, r->cpu >= 0 ? NULL : set);
		if (r->cpu >= 0)
			count[r->cpu]++;
		n++;
	}
	plc.n_rows = n;
	free(set);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (count[i] > 1)
			plc.n_shared++;
	plc.shared = calloc(plc.n_shared + 1, sizeof(*plc.shared));
	plc.shared_lcores = calloc(plc.n_shared + 1, sizeof(*plc.shared_lcores));
	if (plc.shared == NULL || plc.shared_lcores == NULL)
		return -ENOMEM;
	for (i = 0, j = 0; i < CPU_SETSIZE; i++) {
		if (count[i] > 1) {
			plc.shared_lcores[j] = count[i];
			plc.shared[j++] = i;
		}
	}
	return n == rte_lcore_count() ? 0 : -ENOMEM;
}

void
mcfan_placement_report(struct mcfan_app *app)
{
	unsigned int i, k;
	char *text;
	int node;

	plc.app = app;
	rows_free();
	if (rows_build(app) < 0) {
		MCFAN_LOG(WARNING, "placement: out of memory building the table\n");
		return;
	}
	/* generated: EAL must have done what the plan says */
	if (plc.generated) {
		for (i = 0; i < plc.n_rows && i < plc.plan->n_rows; i++)
			if (plc.rows[i].lcore != plc.plan->rows[i].lcore ||
			    strcmp(plc.rows[i].cpus, plc.plan->rows[i].cpus) != 0)
				MCFAN_LOG(WARNING, "placement: lcore %u runs on CPUs %s, the plan "
					  "says %s\n", plc.rows[i].lcore, plc.rows[i].cpus,
					  plc.plan->rows[i].cpus);
	}
	/* an RX lcore away from the node of a port it polls */
	for (i = 0; i < plc.n_rows; i++) {
		const struct mcfan_lcore *l = &app->lcores[plc.rows[i].lcore];

		if (!(plc.rows[i].role & MCFAN_ROLE_RX) || plc.rows[i].node < 0)
			continue;
		for (k = 0; k < l->n_ports; k++) {
			node = rte_eth_dev_socket_id(l->ports[k]);
			if (node >= 0 && node != plc.rows[i].node)
				MCFAN_LOG(WARNING, "placement: RX lcore %u (node %d) polls port %u "
					  "on node %d\n", plc.rows[i].lcore, plc.rows[i].node,
					  l->ports[k], node);
		}
	}
	if (!plc.requested)
		return;
	text = plc.map != NULL ? map_text(plc.map, MCFAN_SCT_FORMAT_COMPACT) : NULL;
	if (plc.generated)
		printf("placement: map %s (%s), bind %s (%s), EAL --lcores built by mcfan:\n",
		       text != NULL ? text : "?",
		       plc.map_from_option ? "--cpu-topology" : "this host",
		       mcfan_sct_bind_name(plc.bind), mcfan_sct_bind_erlang_name(plc.bind));
	else
		printf("placement: map %s (%s), EAL lcores as given (bind type not applied)\n",
		       text != NULL ? text : "?",
		       plc.map_from_option ? "--cpu-topology" : "this host");
	if (plc.generated)
		printf("placement: --lcores %s\n", plc.plan->lcores_arg);
	free(text);
	print_rows(stdout, plc.rows, plc.n_rows);
	fflush(stdout);
	/* the user's lcores: warn here (a generated plan warned before EAL) */
	if (!plc.generated && plc.n_shared > 0)
		warn_shared(plc.shared, plc.shared_lcores, plc.n_shared, plc.n_rows,
			    plc.map != NULL ? (unsigned int)mcfan_sct_count(plc.map) : 0);
}

/* ---- where memory lives ---- */

/* Node of the memory at addr, or -1. */
static int
mem_node(const void *addr)
{
	const struct rte_memseg_list *msl;

	if (addr == NULL)
		return -1;
	msl = rte_mem_virt2memseg_list(addr);
	return msl == NULL ? -1 : msl->socket_id;
}

static void
first_chunk(struct rte_mempool *mp, void *opaque, struct rte_mempool_memhdr *memhdr,
	    unsigned int mem_idx)
{
	RTE_SET_USED(mp);
	if (mem_idx == 0)
		*(void **)opaque = memhdr->addr;
}

/* Node of a mempool's objects (its first memory chunk), or -1. */
static int
pool_node(struct rte_mempool *mp)
{
	void *addr = NULL;

	if (mp == NULL)
		return -1;
	rte_mempool_mem_iter(mp, first_chunk, &addr);
	return mem_node(addr);
}

static int
ring_node(const struct rte_ring *r)
{
	return r == NULL || r->memzone == NULL ? -1 : r->memzone->socket_id;
}

/* Node of the lcores that use a ring: its worker's (the consumer) */
static int
lcore_node(unsigned int lcore)
{
	unsigned int i;

	for (i = 0; i < plc.n_rows; i++)
		if (plc.rows[i].lcore == lcore)
			return plc.rows[i].node;
	return -1;
}

int
mcfan_placement_print(struct mcfan_app *app, FILE *f)
{
	unsigned int i, r, w;
	char *text = NULL;
	uint16_t port;

	if (plc.map != NULL) {
		text = map_text(plc.map, MCFAN_SCT_FORMAT_COMPACT);
		if (text == NULL)
			return -ENOMEM;
	}
	fprintf(f, "map (%s): %s\n", plc.map_from_option ? "--cpu-topology" : "this host",
		text != NULL ? text : "unknown");
	free(text);
	if (plc.generated)
		fprintf(f, "bind: %s (%s)\n", mcfan_sct_bind_name(plc.bind),
			mcfan_sct_bind_erlang_name(plc.bind));
	else
		fprintf(f, "bind: not applied (EAL lcores as given)\n");
	fprintf(f, "EAL lcores: %s%s\n", plc.generated ? "--lcores " : "as given",
		plc.generated ? plc.plan->lcores_arg : "");
	print_rows(f, plc.rows, plc.n_rows);
	if (plc.n_shared > 0) {
		fprintf(f, "oversubscribed: CPUs with more than one lcore:");
		for (i = 0; i < plc.n_shared; i++)
			fprintf(f, "%s %u (%u lcores)", i ? "," : "", plc.shared[i],
				plc.shared_lcores[i]);
		fprintf(f, "\n");
	}
	if (app->pool != NULL)
		fprintf(f, "mempool %s: node %d (asked %d; RX lcore %u on node %d)\n",
			app->pool->name, pool_node(app->pool), app->pool->socket_id,
			app->n_rx > 0 ? app->rx_lcore_ids[0] : 0,
			app->n_rx > 0 ? lcore_node(app->rx_lcore_ids[0]) : -1);
	for (r = 0; app->rings != NULL && r < app->n_rx; r++)
		for (w = 0; w < app->n_workers; w++) {
			const struct rte_ring *ring = app->rings[r * app->n_workers + w];

			fprintf(f, "ring %s: node %d (RX lcore %u -> worker lcore %u on node %d)\n",
				ring != NULL ? ring->name : "?", ring_node(ring),
				app->rx_lcore_ids[r], app->worker_lcore_ids[w],
				lcore_node(app->worker_lcore_ids[w]));
		}
	for (port = 0; port < RTE_MAX_ETHPORTS; port++)
		if (app->ports[port].used)
			fprintf(f, "port %u (%s): queues on node %d\n", port, app->ports[port].name,
				app->ports[port].socket_id);
	return 0;
}

json_t *
mcfan_placement_json(struct mcfan_app *app)
{
	json_t *root = json_object(), *rows = json_array(), *rings = json_array();
	json_t *ports = json_array(), *pools = json_array(), *o;
	unsigned int i, r, w;
	char *text = NULL;
	uint16_t port;

	if (root == NULL || rows == NULL || rings == NULL || ports == NULL || pools == NULL)
		goto fail;
	if (plc.map != NULL)
		text = map_text(plc.map, MCFAN_SCT_FORMAT_COMPACT);
	json_object_set_new(root, "map", text != NULL ? json_string(text) : json_null());
	free(text);
	json_object_set_new(root, "map_source", json_string(plc.map_from_option ?
			    "cpu-topology" : "host"));
	json_object_set_new(root, "map_cpus", map_json(plc.map));
	json_object_set_new(root, "bind", plc.generated ?
			    json_string(mcfan_sct_bind_name(plc.bind)) : json_null());
	json_object_set_new(root, "bind_erlang", plc.generated ?
			    json_string(mcfan_sct_bind_erlang_name(plc.bind)) : json_null());
	json_object_set_new(root, "eal_lcores", plc.generated ?
			    json_string(plc.plan->lcores_arg) : json_null());
	for (i = 0; i < plc.n_rows; i++)
		json_array_append_new(rows, row_json(&plc.rows[i]));
	json_object_set_new(root, "placement", rows);
	json_object_set_new(root, "oversubscribed", shared_json(plc.shared, plc.shared_lcores,
			    plc.n_shared));
	if (app->pool != NULL) {
		o = json_object();
		json_object_set_new(o, "name", json_string(app->pool->name));
		json_object_set_new(o, "node", json_integer(pool_node(app->pool)));
		json_object_set_new(o, "socket_asked", json_integer(app->pool->socket_id));
		json_array_append_new(pools, o);
	}
	json_object_set_new(root, "mempools", pools);
	for (r = 0; app->rings != NULL && r < app->n_rx; r++)
		for (w = 0; w < app->n_workers; w++) {
			const struct rte_ring *ring = app->rings[r * app->n_workers + w];

			o = json_object();
			json_object_set_new(o, "name", json_string(ring != NULL ? ring->name : ""));
			json_object_set_new(o, "node", json_integer(ring_node(ring)));
			json_object_set_new(o, "rx_lcore", json_integer(app->rx_lcore_ids[r]));
			json_object_set_new(o, "worker_lcore",
					    json_integer(app->worker_lcore_ids[w]));
			json_object_set_new(o, "worker_node",
					    json_integer(lcore_node(app->worker_lcore_ids[w])));
			json_array_append_new(rings, o);
		}
	json_object_set_new(root, "rings", rings);
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used)
			continue;
		o = json_object();
		json_object_set_new(o, "port", json_integer(port));
		json_object_set_new(o, "name", json_string(app->ports[port].name));
		json_object_set_new(o, "node", json_integer(app->ports[port].socket_id));
		json_array_append_new(ports, o);
	}
	json_object_set_new(root, "ports", ports);
	return root;
fail:
	json_decref(root);
	json_decref(rows);
	json_decref(rings);
	json_decref(ports);
	json_decref(pools);
	return NULL;
}

/* ---- telemetry ---- */

static struct rte_tel_data *
tel_array(enum rte_tel_value_type type)
{
	struct rte_tel_data *a = rte_tel_data_alloc();

	if (a != NULL)
		rte_tel_data_start_array(a, type);
	return a;
}

/* Add a column; frees it on failure. */
static int
tel_col(struct rte_tel_data *d, const char *name, struct rte_tel_data *col)
{
	if (col == NULL)
		return -ENOMEM;
	if (rte_tel_data_add_dict_container(d, name, col, 0) != 0) {
		rte_tel_data_free(col);
		return -ENOMEM;
	}
	return 0;
}

/* Telemetry strings hold RTE_TEL_MAX_STRING_LEN - 1 characters: the map also goes as its
 * entries, one string each. */
static int
tel_map(struct rte_tel_data *d)
{
	struct rte_tel_data *entries, *cols[5];
	static const char *const names[5] = {
		"map_cpu", "map_thread", "map_core", "map_processor", "map_node"
	};
	const struct mcfan_sct_cpu *c;
	char *text, *tok, *save = NULL;
	unsigned int i, k, n;
	int ret = 0;

	if (plc.map == NULL) {
		rte_tel_data_add_dict_string(d, "sct", "");
		return 0;
	}
	text = map_text(plc.map, MCFAN_SCT_FORMAT_COMPACT);
	if (text == NULL)
		return -ENOMEM;
	if (strlen(text) < RTE_TEL_MAX_STRING_LEN)
		rte_tel_data_add_dict_string(d, "sct", text);
	entries = tel_array(RTE_TEL_STRING_VAL);
	for (tok = strtok_r(text, ":", &save), i = 0; entries != NULL && tok != NULL &&
	     i < PLC_TEL_MAX_ROWS; tok = strtok_r(NULL, ":", &save), i++)
		rte_tel_data_add_array_string(entries, tok);
	free(text);
	ret = tel_col(d, "sct_entries", entries);
	n = (unsigned int)RTE_MIN(mcfan_sct_count(plc.map), (size_t)PLC_TEL_MAX_ROWS);
	for (k = 0; k < 5; k++)
		cols[k] = tel_array(RTE_TEL_INT_VAL);
	for (i = 0; i < n; i++) {
		c = mcfan_sct_cpu_at(plc.map, i);
		if (cols[0] != NULL)
			rte_tel_data_add_array_int(cols[0], c->logical);
		if (cols[1] != NULL)
			rte_tel_data_add_array_int(cols[1], c->thread);
		if (cols[2] != NULL)
			rte_tel_data_add_array_int(cols[2], c->core);
		if (cols[3] != NULL)
			rte_tel_data_add_array_int(cols[3], c->processor);
		if (cols[4] != NULL)
			rte_tel_data_add_array_int(cols[4], mcfan_sct_cpu_numa_node(c));
	}
	for (k = 0; k < 5; k++)
		if (tel_col(d, names[k], cols[k]) < 0)
			ret = -ENOMEM;
	rte_tel_data_add_dict_int(d, "map_cpus", (int)mcfan_sct_count(plc.map));
	return ret;
}

int
mcfan_placement_tel(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mcfan_app *app = plc.app;
	struct rte_tel_data *c[8], *rn, *rw, *rnode, *pid, *pnode, *shared;
	static const char *const names[8] = {
		"lcore", "role", "cpu", "cpus", "thread", "core", "processor", "node"
	};
	unsigned int i, k, r, w, n;
	uint16_t port;
	int ret = 0;

	rte_tel_data_start_dict(d);
	if (params != NULL && params[0] != '\0') {
		MCFAN_LOG(WARNING, "telemetry %s: takes no parameter, got '%.64s'\n", cmd, params);
		return -EINVAL;
	}
	if (app == NULL)
		return -EAGAIN;
	rte_tel_data_add_dict_string(d, "map_source", plc.map_from_option ? "cpu-topology" :
				     "host");
	if (tel_map(d) < 0)
		ret = -ENOMEM;
	rte_tel_data_add_dict_string(d, "bind", plc.generated ? mcfan_sct_bind_name(plc.bind) :
				     "none");
	rte_tel_data_add_dict_string(d, "bind_erlang", plc.generated ?
				     mcfan_sct_bind_erlang_name(plc.bind) : "none");
	rte_tel_data_add_dict_int(d, "lcores_built", plc.generated ? 1 : 0);
	for (k = 0; k < 8; k++)
		c[k] = tel_array(k == 1 || k == 3 ? RTE_TEL_STRING_VAL : RTE_TEL_INT_VAL);
	n = RTE_MIN(plc.n_rows, (unsigned int)PLC_TEL_MAX_ROWS);
	for (i = 0; i < n; i++) {
		const struct mcfan_plc_row *row = &plc.rows[i];
		char cpus[RTE_TEL_MAX_STRING_LEN];

		snprintf(cpus, sizeof(cpus), "%s", row->cpus);
		if (c[0] != NULL)
			rte_tel_data_add_array_int(c[0], (int)row->lcore);
		if (c[1] != NULL)
			rte_tel_data_add_array_string(c[1], mcfan_role_name(row->role));
		if (c[2] != NULL)
			rte_tel_data_add_array_int(c[2], row->cpu);
		if (c[3] != NULL)
			rte_tel_data_add_array_string(c[3], cpus);
		if (c[4] != NULL)
			rte_tel_data_add_array_int(c[4], row->thread);
		if (c[5] != NULL)
			rte_tel_data_add_array_int(c[5], row->core);
		if (c[6] != NULL)
			rte_tel_data_add_array_int(c[6], row->processor);
		if (c[7] != NULL)
			rte_tel_data_add_array_int(c[7], row->node);
	}
	for (k = 0; k < 8; k++)
		if (tel_col(d, names[k], c[k]) < 0)
			ret = -ENOMEM;
	shared = tel_array(RTE_TEL_INT_VAL);
	for (i = 0; shared != NULL && i < plc.n_shared && i < PLC_TEL_MAX_ROWS; i++)
		rte_tel_data_add_array_int(shared, (int)plc.shared[i]);
	if (tel_col(d, "oversubscribed", shared) < 0)
		ret = -ENOMEM;
	if (app->pool != NULL) {
		rte_tel_data_add_dict_string(d, "mempool", app->pool->name);
		rte_tel_data_add_dict_int(d, "mempool_node", pool_node(app->pool));
	}
	rn = tel_array(RTE_TEL_STRING_VAL);
	rnode = tel_array(RTE_TEL_INT_VAL);
	rw = tel_array(RTE_TEL_INT_VAL);
	for (r = 0, n = 0; app->rings != NULL && r < app->n_rx; r++)
		for (w = 0; w < app->n_workers && n < PLC_TEL_MAX_ROWS; w++, n++) {
			const struct rte_ring *ring = app->rings[r * app->n_workers + w];

			if (rn != NULL)
				rte_tel_data_add_array_string(rn, ring != NULL ? ring->name : "");
			if (rnode != NULL)
				rte_tel_data_add_array_int(rnode, ring_node(ring));
			if (rw != NULL)
				rte_tel_data_add_array_int(rw, (int)app->worker_lcore_ids[w]);
		}
	if (tel_col(d, "ring", rn) < 0)
		ret = -ENOMEM;
	if (tel_col(d, "ring_node", rnode) < 0)
		ret = -ENOMEM;
	if (tel_col(d, "ring_worker_lcore", rw) < 0)
		ret = -ENOMEM;
	pid = tel_array(RTE_TEL_INT_VAL);
	pnode = tel_array(RTE_TEL_INT_VAL);
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used)
			continue;
		if (pid != NULL)
			rte_tel_data_add_array_int(pid, port);
		if (pnode != NULL)
			rte_tel_data_add_array_int(pnode, app->ports[port].socket_id);
	}
	if (tel_col(d, "port", pid) < 0)
		ret = -ENOMEM;
	if (tel_col(d, "port_node", pnode) < 0)
		ret = -ENOMEM;
	return ret;
}

void
mcfan_placement_free(void)
{
	rows_free();
	mcfan_plan_free(plc.plan);
	plc.plan = NULL;
	free(plc.argv);
	plc.argv = NULL;
	mcfan_sct_free(plc.map);
	plc.map = NULL;
	plc.app = NULL;
}
