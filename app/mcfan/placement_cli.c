/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Placement's words on the command line (placement_cli.h): like params.c for --help, this
 * is the program's own output before and at start-up, formatted from the plan and the
 * placement's read view. The table's text is lib/topo's (mcfan_plan_rows_print()), the
 * JSON pieces the report's (telemetry/report.h), so every output shows the same rows.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "mcfan.h"
#include "control/placement.h"
#include "placement_cli.h"
#include "telemetry/report.h"

/* Longest refusal: a map's CPU lists can be long. */
#define PLC_CLI_ERR_MAX 4096

/* Once, on standard error: the lcores and the CPUs that carry more than one. */
static void
warn_shared(const unsigned int *cpus, const unsigned int *lcores, unsigned int n,
	    unsigned int n_lcores, unsigned int n_cpus)
{
	fprintf(stderr, "mcfan: warning: oversubscribed: %u lcores on %u CPU%s; CPUs with more "
		"than one lcore:", n_lcores, n_cpus, n_cpus == 1 ? "" : "s");
	mcfan_plan_shared_print(stderr, cpus, lcores, n);
	fprintf(stderr, "\n");
}

/*
 * Once, on standard error: the oversubscribed CPUs, and, without --workers, a map with more
 * CPUs than EAL has lcores, whose default (one worker per CPU left) stops at RTE_MAX_LCORE.
 */
static void
warn_plan(const struct mcfan_config *cfg, const struct mcfan_plan *plan,
	  const struct mcfan_sct_map *map)
{
	unsigned int n_cpus = (unsigned int)mcfan_sct_count(map);
	unsigned int n_rx = cfg->rx_count > 0 ? cfg->rx_count : 1;
	unsigned int n_workers = plan->n_rows - 1 - n_rx;

	if (plan->oversubscribed)
		warn_shared(plan->shared, plan->shared_lcores, plan->n_shared, plan->n_rows,
			    n_cpus);
	if (cfg->workers_count < 0 && plan->n_rows < n_cpus)
		fprintf(stderr, "mcfan: note: --workers not given: %u worker lcore%s, not one per "
			"CPU left (%u): %u lcores is all EAL supports, so %u CPU%s of the map "
			"stay%s unused\n", n_workers, n_workers == 1 ? "" : "s",
			n_cpus - 1 - n_rx, RTE_MAX_LCORE, n_cpus - plan->n_rows,
			n_cpus - plan->n_rows == 1 ? "" : "s",
			n_cpus - plan->n_rows == 1 ? "s" : "");
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

/*
 * --idle-worker against the plan's roles, as mcfan_lcore_check() checks the lcores of a run:
 * a plan the run would refuse is refused too (exit 2), not printed with status 0.
 */
static int
check_plan_idle(const struct mcfan_config *cfg, const struct mcfan_plan *plan)
{
	bool is_rx[RTE_MAX_LCORE] = {false}, is_worker[RTE_MAX_LCORE] = {false};
	unsigned int data[RTE_MAX_LCORE], n_data = 0, i;
	const struct mcfan_plan_row *r;

	for (i = 0; i < plan->n_rows && n_data < RTE_MAX_LCORE; i++) {
		r = &plan->rows[i];
		if (r->role == MCFAN_ROLE_CONTROL || r->lcore >= RTE_MAX_LCORE)
			continue;
		data[n_data++] = r->lcore;
		is_rx[r->lcore] = (r->role & MCFAN_ROLE_RX) != 0;
		is_worker[r->lcore] = (r->role & MCFAN_ROLE_WORKER) != 0;
	}
	return mcfan_idle_worker_check(cfg, data, n_data, is_rx, is_worker);
}

/* --print-placement [--json] */
static int
print_plan(const struct mcfan_plan *plan, const struct mcfan_sct_map *map, bool json)
{
	char *text = mcfan_plan_map_text(map, MCFAN_SCT_FORMAT_COMPACT);
	unsigned int i;
	json_t *root;
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
		mcfan_plan_rows_print(stdout, plan->rows, plan->n_rows);
		printf("eal: --lcores %s\n", plan->lcores_arg);
		free(text);
		return 0;
	}
	root = json_object();
	if (root == NULL) {
		free(text);
		return -ENOMEM;
	}
	json_object_set_new(root, "map", json_string(text));
	json_object_set_new(root, "map_cpus", mcfan_report_map_json(map));
	json_object_set_new(root, "bind", json_string(mcfan_sct_bind_name(plan->bind)));
	json_object_set_new(root, "bind_erlang",
			    json_string(mcfan_sct_bind_erlang_name(plan->bind)));
	json_object_set_new(root, "order", u_array(plan->order, plan->n_order));
	json_object_set_new(root, "placement", mcfan_report_rows_json(plan->rows,
			    plan->n_rows));
	json_object_set_new(root, "eal_lcores", json_string(plan->lcores_arg));
	json_object_set_new(root, "oversubscribed", mcfan_report_shared_json(plan->shared,
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
	char *compact = mcfan_plan_map_text(map, MCFAN_SCT_FORMAT_COMPACT);
	char *full = mcfan_plan_map_text(map, 0);
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
	printf("# %s: %zu CPU%s\n", from_option ? "map of --cpu-topology" :
	       "this host: CPUs online and allowed", mcfan_sct_count(map),
	       mcfan_sct_count(map) == 1 ? "" : "s");
	printf("+sct %s\n", compact);
	printf("+sct %s\n", full);
	printf("%s", tree);
	free(compact);
	free(full);
	free(tree);
	return 0;
}

/* The print options: 1 with *status set. */
static int
print_options(const struct mcfan_config *cfg, int eal_argc, char **eal_argv, int *status)
{
	char err[PLC_CLI_ERR_MAX];
	const struct mcfan_sct_map *map;
	struct mcfan_plan *plan = NULL;
	bool from_option;
	int ret;

	map = mcfan_placement_map(&from_option);
	*status = EXIT_FAILURE;
	if (cfg->print_topology && print_topology(map, from_option) < 0)
		return 1;
	if (cfg->print_placement) {
		if (mcfan_placement_plan(cfg, eal_argc, eal_argv, &plan, err, sizeof(err)) < 0) {
			fprintf(stderr, "mcfan: %s\n", err);
			*status = MCFAN_EXIT_USAGE;
			return 1;
		}
		if (check_plan_idle(cfg, plan) < 0) {
			mcfan_plan_free(plan);
			*status = MCFAN_EXIT_USAGE;
			return 1;
		}
		warn_plan(cfg, plan, map);
		/* without a placement option a run builds no --lcores: EAL's default lcores run */
		if (cfg->rx_count == 0 && cfg->workers_count < 0 && cfg->cpu_topology == NULL &&
		    cfg->bind < 0 && cfg->control_cpu < 0)
			fprintf(stderr, "mcfan: note: no placement option (--cpu-topology, --bind, "
				"--rx, --workers, --control-cpu): this is the plan one of them would "
				"apply; without one, mcfan leaves EAL its default lcores (lcore N on "
				"CPU N, every CPU allowed)\n");
		ret = print_plan(plan, map, cfg->json);
		mcfan_plan_free(plan);
		if (ret < 0)
			return 1;
	}
	fflush(stdout);
	*status = EXIT_SUCCESS;
	return 1;
}

int
mcfan_placement_cli_pre_eal(struct mcfan_config *cfg, int *eal_argc, char ***eal_argv,
			    int *status)
{
	char err[PLC_CLI_ERR_MAX], from[PATH_MAX + 64];
	const struct mcfan_plan *planned;
	int ret;

	if (mcfan_placement_load(cfg, status, err, sizeof(err)) < 0) {
		fprintf(stderr, "mcfan: %s%s\n",
			mcfan_params_origin(cfg, err, from, sizeof(from)), err);
		return 1;
	}
	if (cfg->print_topology || cfg->print_placement)
		return print_options(cfg, *eal_argc, *eal_argv, status);
	ret = mcfan_placement_apply(cfg, eal_argc, eal_argv, &planned, err, sizeof(err));
	if (ret < 0) {
		/* an option the config file set: its file and line, as the file's refusals */
		fprintf(stderr, "mcfan: %s%s\n",
			mcfan_params_origin(cfg, err, from, sizeof(from)), err);
		*status = ret == -ENOMEM ? EXIT_FAILURE : MCFAN_EXIT_USAGE;
		return 1;
	}
	if (planned != NULL)
		warn_plan(cfg, planned, mcfan_placement_map(NULL));
	return 0;
}

int
mcfan_placement_cli_roles(struct mcfan_app *app)
{
	char err[PLC_CLI_ERR_MAX];
	int ret = mcfan_placement_roles(app, err, sizeof(err));

	if (ret < 0)
		fprintf(stderr, "mcfan: %s\n", err);
	return ret;
}

/*
 * Once, on standard error: the user's lcores pinned to CPUs that --cpu-topology does not
 * name (-l 0-1 -- --cpu-topology L0): their rows have no thread, core, processor or node.
 */
static void
warn_unmapped(const struct mcfan_placement_view *v)
{
	unsigned int i, n = 0;

	for (i = 0; i < v->n_rows; i++) {
		const struct mcfan_plan_row *r = &v->rows[i];

		if (r->cpu < 0 || mcfan_sct_lookup(v->map, (unsigned int)r->cpu) != NULL)
			continue;
		fprintf(stderr, "%s lcore %u on CPU %d", n++ == 0 ? "mcfan: warning: "
			"--cpu-topology does not name the CPUs of the EAL lcores given:" : ",",
			r->lcore, r->cpu);
	}
	if (n > 0)
		fprintf(stderr, "; the table has no thread, core, processor or node for %s "
			"(give the map of the CPUs -l/-c/--lcores use, or leave --cpu-topology "
			"out for this host's)\n", n == 1 ? "it" : "them");
}

void
mcfan_placement_cli_report(struct mcfan_app *app)
{
	struct mcfan_placement_view v;
	const char *source;
	char *text;

	if (mcfan_placement_report(app) < 0 || mcfan_placement_view_get(app, &v) < 0)
		return;
	if (!v.requested) {
		mcfan_placement_view_put(&v);
		return;
	}
	text = mcfan_plan_map_text(v.map, MCFAN_SCT_FORMAT_COMPACT);
	source = v.map_from_option ? "--cpu-topology" : "this host";
	if (v.generated)
		printf("placement: map %s (%s), bind %s (%s), EAL --lcores built by mcfan:\n",
		       text != NULL ? text : "?", source, mcfan_sct_bind_name(v.bind),
		       mcfan_sct_bind_erlang_name(v.bind));
	else
		printf("placement: map %s (%s), EAL lcores as given (bind type not applied)\n",
		       text != NULL ? text : "?", source);
	if (v.generated)
		printf("placement: --lcores %s\n", v.lcores_arg);
	free(text);
	mcfan_plan_rows_print(stdout, v.rows, v.n_rows);
	fflush(stdout);
	/* the user's lcores: warn here (a generated plan warned before EAL) */
	if (!v.generated && v.n_shared > 0)
		warn_shared(v.shared, v.shared_lcores, v.n_shared, v.n_rows, v.n_map_cpus);
	if (!v.generated && v.map_from_option)
		warn_unmapped(&v);
	mcfan_placement_view_put(&v);
}
