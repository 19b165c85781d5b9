/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Placement of lcores from a +sct map and a bind type (docs/topology.md, "Placement"),
 * tied to the application; the planning is lib/topo/mcfan_plan.c. Lifecycle in
 * placement.h. No printing here: refusals go back as text, warnings go to the log.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "mcfan.h"
#include "log.h"
#include "control/placement.h"
#include "mcfan_parse.h"

#define PLC_ERR_MAX 512
/* Most ports the planner considers (EAL's -a and --vdev arguments). */
#define PLC_MAX_PORTS RTE_MAX_ETHPORTS


/* The placement state; see the lifecycle in placement.h. */
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
	struct mcfan_plan_row *rows;  /* what runs (mcfan_placement_report) */
	unsigned int n_rows;
	unsigned int *shared;         /* CPUs with more than one lcore, in rows */
	unsigned int *shared_lcores;  /* how many each */
	unsigned int n_shared;
	struct mcfan_app *app;
} plc;

/* ---- before EAL ---- */

/* -l, -c or --lcores among the EAL arguments (also glued: -l0-3, --lcores=..., or after
 * bundled flags: -vl0-3); another option's value is none ("--huge-dir -cdir"). */
static bool
eal_has_lcores(int argc, char **argv)
{
	int i, j;

	for (i = 1; i < argc; i++) {
		j = i;
		if (mcfan_opt_value(argc, argv, &j, "--lcores") != NULL)
			return true;
		j = i;
		if (mcfan_opt_value(argc, argv, &j, "-l") != NULL)
			return true;
		j = i;
		if (mcfan_opt_value(argc, argv, &j, "-c") != NULL)
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
		if (mcfan_eal_arg_is_value(argc, argv, a))
			continue; /* another option's value: "--huge-dir --no-pci" */
		if (strcmp(s, "--no-pci") == 0)
			no_pci = true;
		/* -a X, -aX, -va X, --allow X, --allow=X */
		v = mcfan_opt_value(argc, argv, &a, "-a");
		if (v == NULL)
			v = mcfan_opt_value(argc, argv, &a, "--allow");
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
		nodes[n++] = MCFAN_PLAN_NODE_CONTROL;
	return n;
}

/* CPUs of the map that are not online or not allowed: -EINVAL with the refusal in err. */
static int
check_allowed(const struct mcfan_sct_map *map, char *err, size_t len)
{
	struct mcfan_cpuset *allowed = calloc(1, sizeof(*allowed));
	struct mcfan_cpuset *missing = calloc(1, sizeof(*missing));
	char *a = NULL, *m = NULL;
	const struct mcfan_sct_cpu *c;
	size_t i;
	int ret = -ENOMEM;

	if (allowed == NULL || missing == NULL) {
		mcfan_err_set(err, len, -ENOMEM, "out of memory");
		goto out;
	}
	ret = mcfan_hosttopo_allowed(allowed);
	if (ret < 0) {
		mcfan_err_set(err, len, ret, "cannot read the CPUs allowed to this process: %s",
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
	a = mcfan_plan_cpuset_text(allowed);
	m = mcfan_plan_cpuset_text(missing);
	mcfan_err_set(err, len, -EINVAL, "--cpu-topology: the map names CPUs that are not "
		      "online or not allowed to this process: %s (online and allowed: %s)",
		      m ? m : "?",
		      a ? a : "?");
	ret = -EINVAL;
out:
	free(a);
	free(m);
	free(allowed);
	free(missing);
	return ret;
}

int
mcfan_placement_plan(const struct mcfan_config *cfg, int eal_argc, char **eal_argv,
		     struct mcfan_plan **plan, char *err, size_t len)
{
	int32_t nodes[PLC_MAX_PORTS];
	struct mcfan_plan_req req;
	char why[PLC_ERR_MAX];
	unsigned int n_cpus = (unsigned int)mcfan_sct_count(plc.map);
	int ret;

	if (eal_has_lcores(eal_argc, eal_argv)) {
		/* EAL then runs the user's lcores as given: a plan would show other lcores */
		return mcfan_err_set(err, len, -EINVAL, "--print-placement: the EAL lcores are "
			      "given (-l, -c or --lcores), and mcfan runs them as given, not a "
			      "plan of its own (the start-up table shows their roles and CPUs); "
			      "leave out -l/-c/--lcores to see where mcfan would place the lcores");
	}
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
	ret = mcfan_plan_build(&req, plan, why, sizeof(why));
	if (ret < 0)
		return mcfan_err_set(err, len, ret, "placement: %s", why);
	return ret;
}

int
mcfan_placement_load(const struct mcfan_config *cfg, int *status, char *err, size_t len)
{
	char why[PLC_ERR_MAX];
	int ret;

	*status = MCFAN_EXIT_USAGE;
	plc.counts_given = cfg->rx_count > 0 || cfg->workers_count >= 0;
	plc.requested = plc.counts_given || cfg->cpu_topology != NULL || cfg->bind >= 0 ||
			cfg->control_cpu >= 0;
	plc.bind = cfg->bind >= 0 ? (enum mcfan_sct_bind)cfg->bind : MCFAN_SCT_BIND_DEFAULT_BIND;
	plc.n_rx = cfg->rx_count > 0 ? cfg->rx_count : 1;
	plc.workers = cfg->workers_count;
	if (cfg->json && !cfg->print_placement) {
		return mcfan_err_set(err, len, -EINVAL, "--json goes with --print-placement");
	}
	if (cfg->json && cfg->print_topology) {
		/* both print, the map first: its text would come before the JSON */
		return mcfan_err_set(err, len, -EINVAL, "--print-topology with --print-placement "
			      "--json: --print-topology prints text (+sct lines and a tree), which "
			      "would come before the JSON on standard output; the JSON's map and "
			      "map_cpus hold the map: leave --print-topology out, or --json");
	}
	if (plc.counts_given && (cfg->n_rx_lcores > 0 || cfg->n_worker_lcores > 0)) {
		return mcfan_err_set(err, len, -EINVAL, "--rx/--workers count lcores for mcfan to "
			      "place, --rx-lcores/--worker-lcores name EAL lcores: give one kind, "
			      "not both");
	}
	if (cfg->cpu_topology != NULL) {
		ret = mcfan_sct_parse(cfg->cpu_topology, &plc.map, NULL, why, sizeof(why));
		if (ret < 0) {
			return mcfan_err_set(err, len, ret, "--cpu-topology: %s", why);
		}
		plc.map_from_option = true;
		return 0;
	}
	ret = mcfan_hosttopo_read(&plc.map, why, sizeof(why));
	if (ret < 0) {
		if (plc.requested || cfg->print_topology || cfg->print_placement) {
			mcfan_err_set(err, len, ret, "reading the host's CPU topology: %s (give "
				      "the map with --cpu-topology)", why);
			*status = EXIT_FAILURE;
			return ret;
		}
		plc.map = NULL; /* report without a map */
	}
	return 0;
}

const struct mcfan_sct_map *
mcfan_placement_map(bool *from_option)
{
	if (from_option != NULL)
		*from_option = plc.map_from_option;
	return plc.map;
}

int
mcfan_placement_apply(struct mcfan_config *cfg, int *eal_argc, char ***eal_argv,
		      const struct mcfan_plan **planned, char *err, size_t len)
{
	char **argv;
	unsigned int i;
	int ret;

	*planned = NULL;
	if (!plc.requested)
		return 0;
	if (check_allowed(plc.map, err, len) < 0)
		return -EINVAL;
	if (cfg->control_cpu >= 0 && mcfan_sct_lookup(plc.map, (unsigned int)cfg->control_cpu) ==
	    NULL) {
		char *cpus = mcfan_plan_map_cpus_text(plc.map);

		/* the host's map holds only the CPUs online and allowed (taskset, cpusets) */
		mcfan_err_set(err, len, -EINVAL, "--control-cpu %d is not a CPU of the map (%s: "
			      "%s)", cfg->control_cpu, plc.map_from_option ?
			      "the CPUs of --cpu-topology" :
			      "this host's map, the CPUs online and allowed to this process",
			      cpus != NULL ? cpus : "?");
		free(cpus);
		return -EINVAL;
	}
	if (eal_has_lcores(*eal_argc, *eal_argv)) {
		/* --control-cpu places the control lcore of mcfan's plan; with the user's
		 * lcores EAL's main lcore is the control lcore where they put it */
		if (cfg->control_cpu >= 0) {
			return mcfan_err_set(err, len, -EINVAL, "--control-cpu %d: the EAL lcores "
				      "are given (-l, -c or --lcores), and the control lcore is "
				      "EAL's main lcore on the CPUs they give it; leave out "
				      "--control-cpu, or -l/-c/--lcores (mcfan then places the "
				      "lcores, the control lcore on CPU %d)", cfg->control_cpu,
				      cfg->control_cpu);
		}
		/* the user's lcores as given: roles after EAL init, the table reported */
		return 0;
	}
	/* mcfan builds --lcores: lcores the user named are not its lcores (the plan sets the
	 * roles below, so they would be dropped without a word) */
	if (cfg->n_rx_lcores > 0 || cfg->n_worker_lcores > 0) {
		return mcfan_err_set(err, len, -EINVAL, "--rx-lcores/--worker-lcores name EAL "
			      "lcores, but mcfan builds EAL's --lcores here (from %s%s%s%s%s): "
			      "give --rx N/--workers M for mcfan to place, or -l/--lcores with "
			      "the lcores you name",
			      cfg->cpu_topology != NULL ? "--cpu-topology" : "",
			      cfg->cpu_topology != NULL && cfg->bind >= 0 ? ", " : "",
			      cfg->bind >= 0 ? "--bind" : "",
			      (cfg->cpu_topology != NULL || cfg->bind >= 0) &&
			      cfg->control_cpu >= 0 ? ", " : "",
			      cfg->control_cpu >= 0 ? "--control-cpu" : "");
	}
	for (i = 1; i < (unsigned int)*eal_argc; i++) {
		if (strncmp((*eal_argv)[i], "--main-lcore", 12) == 0 &&
		    !mcfan_eal_arg_is_value(*eal_argc, *eal_argv, (int)i)) {
			mcfan_err_set(err, len, -EINVAL, "--main-lcore: mcfan builds --lcores with "
				      "lcore 0 as the control lcore (see --control-cpu); give "
				      "-l/--lcores "
				      "too to choose lcores yourself");
			return -EINVAL;
		}
	}
	ret = mcfan_placement_plan(cfg, *eal_argc, *eal_argv, &plc.plan, err, len);
	if (ret < 0)
		return -EINVAL;
	*planned = plc.plan;
	argv = calloc((size_t)*eal_argc + 3, sizeof(*argv));
	if (argv == NULL) {
		return mcfan_err_set(err, len, -ENOMEM, "out of memory");
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
mcfan_placement_roles(struct mcfan_app *app, char *err, size_t len)
{
	struct mcfan_config *cfg = &app->cfg;
	unsigned int data[RTE_MAX_LCORE], n_data = 0, id, i, n_workers;

	if (!plc.counts_given || plc.generated)
		return 0;
	RTE_LCORE_FOREACH_WORKER(id)
		data[n_data++] = id;
	if (mcfan_role_counts(plc.n_rx, plc.workers, n_data, "EAL gave", &n_workers, err,
			      len) < 0)
		return -EINVAL;
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
	unsigned int id, n = 0, i, j, n_union = 0, count[CPU_SETSIZE] = {0};
	unsigned int may[CPU_SETSIZE] = {0};
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
		struct mcfan_plan_row *r = &plc.rows[n];

		mcfan_cpuset_zero(set);
		cs = rte_lcore_cpuset(id);
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &cs))
				continue;
			mcfan_cpuset_add(set, (unsigned int)cpu);
			n_union += may[cpu]++ == 0;
		}
		r->lcore = id;
		r->role = id == app->main_lcore ? MCFAN_ROLE_CONTROL : app->lcores[id].role;
		r->want_node = -1;
		r->cpus = mcfan_plan_cpuset_text(set);
		if (r->cpus == NULL)
			break;
		r->cpu = mcfan_cpuset_count(set) == 1 ? atoi(r->cpus) : -1;
		mcfan_plan_row_ids(r, plc.map, r->cpu >= 0 ? NULL : set);
		if (r->cpu >= 0)
			count[r->cpu]++;
		n++;
	}
	plc.n_rows = n;
	free(set);
	/* more lcores than the CPUs they may use: as the plan counts it (mcfan_plan.c), every
	 * such CPU carries each lcore that may run there, floating ones (a CPU set) included;
	 * otherwise only lcores pinned to one CPU count */
	if (n > n_union)
		memcpy(count, may, sizeof(count));
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

int
mcfan_placement_report(struct mcfan_app *app)
{
	unsigned int i, k;
	int node;

	plc.app = app;
	rows_free();
	if (rows_build(app) < 0) {
		MCFAN_LOG(WARNING, "placement: out of memory building the table\n");
		return -ENOMEM;
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
	return 0;
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
mcfan_placement_view_get(struct mcfan_app *app, struct mcfan_placement_view *v)
{
	unsigned int r, w, n;
	uint16_t port;

	memset(v, 0, sizeof(*v));
	if (app == NULL)
		app = plc.app;
	if (app == NULL)
		return -EAGAIN;
	v->map = plc.map;
	v->map_from_option = plc.map_from_option;
	v->requested = plc.requested;
	v->generated = plc.generated;
	v->bind = plc.bind;
	v->lcores_arg = plc.generated ? plc.plan->lcores_arg : NULL;
	v->rows = plc.rows;
	v->n_rows = plc.n_rows;
	v->shared = plc.shared;
	v->shared_lcores = plc.shared_lcores;
	v->n_shared = plc.n_shared;
	v->n_map_cpus = plc.map != NULL ? (unsigned int)mcfan_sct_count(plc.map) : 0;
	if (app->pool != NULL) {
		v->has_mempool = true;
		v->mempool = app->pool->name;
		v->mempool_node = pool_node(app->pool);
		v->mempool_socket_asked = app->pool->socket_id;
		v->mempool_rx_lcore = app->n_rx > 0 ? app->rx_lcore_ids[0] : 0;
		v->mempool_rx_node = app->n_rx > 0 ? lcore_node(app->rx_lcore_ids[0]) : -1;
	}
	n = app->rings != NULL ? app->n_rx * app->n_workers : 0;
	v->rings = calloc(RTE_MAX(n, 1u), sizeof(*v->rings));
	v->ports = calloc(RTE_MAX_ETHPORTS, sizeof(*v->ports));
	if (v->rings == NULL || v->ports == NULL) {
		mcfan_placement_view_put(v);
		return -ENOMEM;
	}
	for (r = 0; app->rings != NULL && r < app->n_rx; r++)
		for (w = 0; w < app->n_workers; w++) {
			const struct rte_ring *ring = app->rings[r * app->n_workers + w];
			struct mcfan_placement_ring *vr = &v->rings[v->n_rings++];

			vr->name = ring != NULL ? ring->name : "";
			vr->node = ring_node(ring);
			vr->rx_lcore = app->rx_lcore_ids[r];
			vr->worker_lcore = app->worker_lcore_ids[w];
			vr->worker_node = lcore_node(app->worker_lcore_ids[w]);
		}
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		struct mcfan_placement_port *vp;

		if (!app->ports[port].used)
			continue;
		vp = &v->ports[v->n_ports++];
		vp->port = port;
		vp->name = app->ports[port].name;
		vp->node = app->ports[port].socket_id;
	}
	return 0;
}

void
mcfan_placement_view_put(struct mcfan_placement_view *v)
{
	if (v == NULL)
		return;
	free(v->rings);
	free(v->ports);
	v->rings = NULL;
	v->ports = NULL;
	v->n_rings = 0;
	v->n_ports = 0;
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

/* ---------------------------------------------------------------------------------------------
 * What shares a CPU (idle defaults, the mbuf pool's handler).
 */

static bool
is_data_lcore(const struct mcfan_lcore *lc)
{
	return (lc->role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)) != 0;
}

unsigned int
mcfan_placement_share(const struct mcfan_app *app, unsigned int id, int *cpu, bool *worker)
{
	rte_cpuset_t mine = rte_lcore_cpuset(id), both;
	unsigned int other, n = 0, c;

	*cpu = -1;
	*worker = false;
	for (other = 0; other < RTE_MAX_LCORE; other++) {
		if (other == id || !is_data_lcore(&app->lcores[other]))
			continue;
		both = rte_lcore_cpuset(other);
		CPU_AND(&both, &both, &mine);
		if (CPU_COUNT(&both) == 0)
			continue;
		n++;
		if (app->lcores[other].role & MCFAN_ROLE_WORKER)
			*worker = true;
		for (c = 0; c < CPU_SETSIZE && *cpu < 0; c++)
			if (CPU_ISSET(c, &both))
				*cpu = (int)c;
	}
	return n;
}

bool
mcfan_placement_shares_rx_cpu(const struct mcfan_app *app, unsigned int id)
{
	rte_cpuset_t mine = rte_lcore_cpuset(id), both;
	unsigned int r;

	for (r = 0; r < app->n_rx; r++) {
		if (app->rx_lcore_ids[r] == id)
			continue;
		both = rte_lcore_cpuset(app->rx_lcore_ids[r]);
		CPU_AND(&both, &both, &mine);
		if (CPU_COUNT(&both) != 0)
			return true;
	}
	return false;
}

/* May a worker-only lcore run on a CPU of an RX lcore? */
static bool
worker_near_rx(const struct mcfan_app *app)
{
	unsigned int w, id;

	for (w = 0; w < app->n_workers; w++) {
		id = app->worker_lcore_ids[w];
		if (app->lcores[id].role == MCFAN_ROLE_WORKER &&
		    mcfan_placement_shares_rx_cpu(app, id))
			return true;
	}
	return false;
}

unsigned int
mcfan_placement_hosts(struct mcfan_app *app, char *why, size_t len, bool *shared)
{
	const struct mcfan_config *cfg = &app->cfg;
	unsigned int id, w, rx, n = 0;
	rte_cpuset_t rx_set, set;
	struct mcfan_lcore *host;
	int cpu = -1, c;

	*shared = worker_near_rx(app);
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		app->lcores[id].host_id = RTE_MAX_LCORE;
		app->lcores[id].n_hosted = 0;
	}
	if (!cfg->host_workers) {
		snprintf(why, len, "option (--host-workers off)");
		return 0;
	}
	if (cfg->idle_worker_set) {
		snprintf(why, len, "none: --idle-worker asks for worker threads that wait by "
			 "themselves");
		return 0;
	}
	if (app->n_rx != 1) {
		snprintf(why, len, "none: %u RX lcores (hosting needs exactly one)", app->n_rx);
		return 0;
	}
	rx = app->rx_lcore_ids[0];
	rx_set = rte_lcore_cpuset(rx);
	if (CPU_COUNT(&rx_set) != 1) {
		snprintf(why, len, "none: RX lcore %u may run on %d CPUs", rx, CPU_COUNT(&rx_set));
		return 0;
	}
	for (c = 0; c < CPU_SETSIZE && cpu < 0; c++)
		if (CPU_ISSET(c, &rx_set))
			cpu = c;
	host = &app->lcores[rx];
	for (w = 0; w < app->n_workers; w++) {
		id = app->worker_lcore_ids[w];
		if (id == rx || app->lcores[id].role != MCFAN_ROLE_WORKER)
			continue;
		set = rte_lcore_cpuset(id);
		if (!CPU_EQUAL(&set, &rx_set))
			continue;
		app->lcores[id].host_id = rx;
		host->hosted[host->n_hosted++] = (uint16_t)id;
		n++;
	}
	if (n == 0)
		snprintf(why, len, "none: no worker-only lcore on CPU %d of RX lcore %u alone",
			 cpu, rx);
	else
		snprintf(why, len, "auto (%u worker lcore%s on CPU %d of RX lcore %u, hosted by "
			 "it)", n, n == 1 ? "" : "s", cpu, rx);
	return n;
}

const char *
mcfan_placement_pool_ops(const struct mcfan_app *app, char *why, size_t len)
{
	const char *user = rte_eal_mbuf_user_pool_ops();
	unsigned int id;
	bool worker;
	int cpu;

	if (user != NULL) {
		snprintf(why, len, "option (--mbuf-pool-ops-name %s)", user);
		return user;
	}
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		if (!is_data_lcore(&app->lcores[id]) ||
		    mcfan_placement_share(app, id, &cpu, &worker) == 0)
			continue;
		snprintf(why, len, "default-shared (lcore %u shares CPU %d with another data "
			 "lcore)", id, cpu);
		return MCFAN_POOL_OPS_SHARED;
	}
	snprintf(why, len, "default-alone (no two data lcores share a CPU)");
	return rte_mbuf_best_mempool_ops();
}

unsigned int
mcfan_placement_ring_size(const struct mcfan_app *app, char *why, size_t len)
{
	const struct mcfan_config *cfg = &app->cfg;
	unsigned int w, id, size, rings = RTE_MAX(app->n_rx * app->n_workers, 1u);
	bool worker, hosted = false;
	int cpu;

	if (cfg->ring_size_set) {
		snprintf(why, len, "option (--ring-size %u)", cfg->ring_size);
		return cfg->ring_size;
	}
	for (w = 0; w < app->n_workers; w++) {
		id = app->worker_lcore_ids[w];
		/* a hosted worker's rings, and its host's own, are emptied after each RX pass by the
		 * thread that filled them: they hold a pass's frames */
		if (app->lcores[id].host_id != RTE_MAX_LCORE || app->lcores[id].n_hosted > 0) {
			hosted = true;
			continue;
		}
		if (mcfan_placement_share(app, id, &cpu, &worker) == 0)
			continue;
		size = RTE_MIN((unsigned int)MCFAN_RING_SIZE_SHARED,
			       rte_align32prevpow2(MCFAN_RING_SLOTS_SHARED / rings));
		size = RTE_MAX(size, RTE_MAX((unsigned int)MCFAN_DEFAULT_RING_SIZE, cfg->burst));
		snprintf(why, len, "default-shared (worker lcore %u shares CPU %d with another data "
			 "lcore)", id, cpu);
		return size;
	}
	if (hosted)
		snprintf(why, len, "default-alone (every worker that shares a CPU is hosted)");
	else
		snprintf(why, len, "default-alone (no worker shares a CPU with another data lcore)");
	return cfg->ring_size;
}
