/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Unit tests of mcfan_plan, the placement planner: the rows, CPUs and EAL --lcores text
 * for several maps and bind types (the worked examples of docs/topology.md and what
 * test_placement.py checks through the program), oversubscription, bind type u, ports on
 * a node, run-to-completion, every refusal with its message, and the table's text.
 * Pure: no EAL.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcfan_msacc.h"
#include "mcfan_plan.h"
#include "mcfan_sct.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

#define ERR_LEN 512

/* docs/topology.md's 24-CPU map: 2 processors (nodes 0, 1) of 6 cores of 2 threads. */
static const char map24_text[] =
	"L0-1T0-1C0P0N0:L2-3T0-1C1P0N0:L4-5T0-1C2P0N0:L6-7T0-1C3P0N0:L8-9T0-1C4P0N0:"
	"L10-11T0-1C5P0N0:L12-13T0-1C0P1N1:L14-15T0-1C1P1N1:L16-17T0-1C2P1N1:"
	"L18-19T0-1C3P1N1:L20-21T0-1C4P1N1:L22-23T0-1C5P1N1";

static struct mcfan_sct_map *
map_parse(const char *text)
{
	struct mcfan_sct_map *map = NULL;
	char err[ERR_LEN];

	if (mcfan_sct_parse(text, &map, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "cannot parse %s: %s\n", text, err);
		exit(1);
	}
	return map;
}

static struct mcfan_plan_req
req_make(const struct mcfan_sct_map *map, enum mcfan_sct_bind bind, unsigned int n_rx,
	 unsigned int n_workers)
{
	struct mcfan_plan_req req;

	memset(&req, 0, sizeof(req));
	req.map = map;
	req.bind = bind;
	req.n_rx = n_rx;
	req.n_workers = n_workers;
	req.control_cpu = -1;
	req.max_lcores = 128;
	return req;
}

/* Plan and check the --lcores text and that every row's CPU list matches it; NULL and a
 * failed check if planning fails. */
static struct mcfan_plan *
plan_expect(const struct mcfan_plan_req *req, const char *lcores)
{
	struct mcfan_plan *plan = NULL;
	char err[ERR_LEN] = "";
	int ret = mcfan_plan_build(req, &plan, err, sizeof(err));

	CHECK(ret == 0, "mcfan_plan_build: %d (%s), expected --lcores %s", ret, err, lcores);
	if (ret != 0)
		return NULL;
	CHECK_EQ_STR(plan->lcores_arg, lcores);
	CHECK_EQ_INT(plan->n_rows, 1 + req->n_rx + req->n_workers);
	return plan;
}

static void
check_row(const struct mcfan_plan_row *r, unsigned int lcore, uint32_t role, int32_t cpu,
	  const char *cpus, int32_t thread, int32_t core, int32_t processor, int32_t node)
{
	CHECK_EQ_INT(r->lcore, lcore);
	CHECK_EQ_INT(r->role, role);
	CHECK_EQ_INT(r->cpu, cpu);
	CHECK_EQ_STR(r->cpus, cpus);
	CHECK_EQ_INT(r->thread, thread);
	CHECK_EQ_INT(r->core, core);
	CHECK_EQ_INT(r->processor, processor);
	CHECK_EQ_INT(r->node, node);
}

/* The worked example: --bind db --rx 2 --workers 5, and its printed table. */
static void
test_db_24(const struct mcfan_sct_map *map24)
{
	static const unsigned int order[] = {
		0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23
	};
	static const char table[] =
		"lcore  role       cpu  thread  core  processor  node\n"
		"0      control    0    0       0     0          0\n"
		"1      rx         2    0       1     0          0\n"
		"2      rx         4    0       2     0          0\n"
		"3      worker     6    0       3     0          0\n"
		"4      worker     8    0       4     0          0\n"
		"5      worker     10   0       5     0          0\n"
		"6      worker     12   0       0     1          1\n"
		"7      worker     14   0       1     1          1\n";
	struct mcfan_plan_req req = req_make(map24, MCFAN_SCT_BIND_DEFAULT_BIND, 2, 5);
	struct mcfan_plan *plan = plan_expect(&req, "0@0,1@2,2@4,3@6,4@8,5@10,6@12,7@14");
	char *text = NULL;
	size_t len = 0;
	unsigned int i;
	FILE *f;

	if (plan == NULL)
		return;
	CHECK_EQ_INT(plan->bind, MCFAN_SCT_BIND_DEFAULT_BIND);
	CHECK_EQ_INT(plan->n_order, RTE_DIM(order));
	for (i = 0; i < RTE_DIM(order) && i < plan->n_order; i++)
		CHECK(plan->order[i] == order[i], "order[%u] = %u, expected %u", i,
		      plan->order[i], order[i]);
	check_row(&plan->rows[0], 0, MCFAN_ROLE_CONTROL, 0, "0", 0, 0, 0, 0);
	check_row(&plan->rows[1], 1, MCFAN_ROLE_RX, 2, "2", 0, 1, 0, 0);
	check_row(&plan->rows[2], 2, MCFAN_ROLE_RX, 4, "4", 0, 2, 0, 0);
	check_row(&plan->rows[3], 3, MCFAN_ROLE_WORKER, 6, "6", 0, 3, 0, 0);
	check_row(&plan->rows[6], 6, MCFAN_ROLE_WORKER, 12, "12", 0, 0, 1, 1);
	check_row(&plan->rows[7], 7, MCFAN_ROLE_WORKER, 14, "14", 0, 1, 1, 1);
	CHECK(!plan->oversubscribed, "8 lcores on 24 CPUs is not oversubscribed");
	CHECK_EQ_INT(plan->n_shared, 0);
	for (i = 1; i < plan->n_rows; i++)
		CHECK_EQ_INT(plan->rows[i].want_node, -1);

	f = open_memstream(&text, &len);
	if (f == NULL) {
		CHECK(false, "open_memstream: %s", strerror(errno));
	} else {
		CHECK_EQ_INT(mcfan_plan_rows_print(f, plan->rows, plan->n_rows), 0);
		fclose(f);
		CHECK_EQ_STR(text, table);
		free(text);
	}
	mcfan_plan_free(plan);
}

/* Other bind types on the 24-CPU map (docs/topology.md, test_placement.py). */
static void
test_binds_24(const struct mcfan_sct_map *map24)
{
	struct mcfan_plan_req req;

	req = req_make(map24, MCFAN_SCT_BIND_SPREAD, 2, 5);
	mcfan_plan_free(plan_expect(&req, "0@0,1@12,2@2,3@14,4@4,5@16,6@6,7@18"));
	req = req_make(map24, MCFAN_SCT_BIND_NO_SPREAD, 2, 5);
	mcfan_plan_free(plan_expect(&req, "0@0,1@1,2@2,3@3,4@4,5@5,6@6,7@7"));
	/* --control-cpu 2 with ts: the data lcores skip CPU 2 */
	req = req_make(map24, MCFAN_SCT_BIND_THREAD_SPREAD, 1, 2);
	req.control_cpu = 2;
	mcfan_plan_free(plan_expect(&req, "0@2,1@0,2@4,3@6"));
}

/* A vdev on the control lcore's node: --control-cpu 12 --bind nnps --rx 1 --workers 3. */
static void
test_port_node(const struct mcfan_sct_map *map24)
{
	static const int32_t vdev[] = {MCFAN_PLAN_NODE_CONTROL};
	static const int32_t pci_node0[] = {0};
	struct mcfan_plan_req req = req_make(map24, MCFAN_SCT_BIND_NO_NODE_PROCESSOR_SPREAD, 1, 3);
	struct mcfan_plan *plan;

	req.control_cpu = 12;
	req.port_nodes = vdev;
	req.n_ports = 1;
	plan = plan_expect(&req, "0@12,1@14,2@0,3@2,4@4");
	if (plan != NULL) {
		CHECK_EQ_INT(plan->rows[1].want_node, 1);
		CHECK_EQ_INT(plan->rows[1].node, 1);
		CHECK_EQ_INT(plan->rows[2].want_node, -1);
		mcfan_plan_free(plan);
	}
	/* a port on node 0 with the control lcore on node 1: the RX lcore goes to node 0 */
	req.port_nodes = pci_node0;
	plan = plan_expect(&req, "0@12,1@0,2@2,3@4,4@6");
	if (plan != NULL) {
		CHECK_EQ_INT(plan->rows[1].want_node, 0);
		mcfan_plan_free(plan);
	}
}

/* More lcores than CPUs: the docs' 4-CPU example, and one lcore too many on 24 CPUs. */
static void
test_oversubscribed(const struct mcfan_sct_map *map24)
{
	struct mcfan_sct_map *map4 = map_parse("L0-3T0C0-3P0N0");
	struct mcfan_plan_req req = req_make(map4, MCFAN_SCT_BIND_DEFAULT_BIND, 2, 4);
	struct mcfan_plan *plan = plan_expect(&req, "0@0,1@1,2@2,3@3,4@0,5@1,6@2");
	char *text = NULL;
	size_t len = 0;
	unsigned int i;
	FILE *f;

	if (plan != NULL) {
		CHECK(plan->oversubscribed, "7 lcores on 4 CPUs is oversubscribed");
		CHECK_EQ_INT(plan->n_shared, 3);
		for (i = 0; i < plan->n_shared && i < 3; i++) {
			CHECK_EQ_INT(plan->shared[i], i);
			CHECK_EQ_INT(plan->shared_lcores[i], 2);
		}
		f = open_memstream(&text, &len);
		if (f != NULL) {
			mcfan_plan_shared_print(f, plan->shared, plan->shared_lcores,
						plan->n_shared);
			fclose(f);
			CHECK_EQ_STR(text, " 0 (2 lcores), 1 (2 lcores), 2 (2 lcores)");
			free(text);
		}
		mcfan_plan_free(plan);
	}
	mcfan_sct_free(map4);

	/* 25 lcores on 24 CPUs: the 25th wraps to the first CPU of the order */
	req = req_make(map24, MCFAN_SCT_BIND_DEFAULT_BIND, 1, 23);
	plan = plan_expect(&req, "0@0,1@2,2@4,3@6,4@8,5@10,6@12,7@14,8@16,9@18,10@20,11@22,"
			   "12@1,13@3,14@5,15@7,16@9,17@11,18@13,19@15,20@17,21@19,22@21,23@23,"
			   "24@0");
	if (plan != NULL) {
		CHECK(plan->oversubscribed, "25 lcores on 24 CPUs is oversubscribed");
		CHECK_EQ_INT(plan->n_shared, 1);
		if (plan->n_shared == 1) {
			CHECK_EQ_INT(plan->shared[0], 0);
			CHECK_EQ_INT(plan->shared_lcores[0], 2);
		}
		mcfan_plan_free(plan);
	}
}

/* Bind type u: nothing pinned; with a control CPU the data lcores float over the rest. */
static void
test_unbound(const struct mcfan_sct_map *map24)
{
	struct mcfan_plan_req req = req_make(map24, MCFAN_SCT_BIND_UNBOUND, 1, 2);
	struct mcfan_plan *plan = plan_expect(&req, "0@(0-23),1@(0-23),2@(0-23),3@(0-23)");
	unsigned int i;

	if (plan != NULL) {
		for (i = 0; i < plan->n_order; i++)
			CHECK(plan->order[i] == i, "u: order[%u] = %u, every CPU ascending", i,
			      plan->order[i]);
		check_row(&plan->rows[0], 0, MCFAN_ROLE_CONTROL, -1, "0-23", -1, -1, -1, -1);
		check_row(&plan->rows[3], 3, MCFAN_ROLE_WORKER, -1, "0-23", -1, -1, -1, -1);
		CHECK(!plan->oversubscribed, "4 lcores floating on 24 CPUs");
		mcfan_plan_free(plan);
	}
	req.control_cpu = 5;
	req.n_workers = 1;
	plan = plan_expect(&req, "0@5,1@(0-4,6-23),2@(0-4,6-23)");
	if (plan != NULL) {
		check_row(&plan->rows[0], 0, MCFAN_ROLE_CONTROL, 5, "5", 1, 2, 0, 0);
		check_row(&plan->rows[1], 1, MCFAN_ROLE_RX, -1, "0-4,6-23", -1, -1, -1, -1);
		mcfan_plan_free(plan);
	}
	/* 25 lcores floating on 24 CPUs: every CPU may carry all of them */
	req = req_make(map24, MCFAN_SCT_BIND_UNBOUND, 1, 23);
	plan = plan_expect(&req, "0@(0-23),1@(0-23),2@(0-23),3@(0-23),4@(0-23),5@(0-23),"
			   "6@(0-23),7@(0-23),8@(0-23),9@(0-23),10@(0-23),11@(0-23),12@(0-23),"
			   "13@(0-23),14@(0-23),15@(0-23),16@(0-23),17@(0-23),18@(0-23),"
			   "19@(0-23),20@(0-23),21@(0-23),22@(0-23),23@(0-23),24@(0-23)");
	if (plan != NULL) {
		CHECK(plan->oversubscribed, "u: 25 lcores on 24 CPUs is oversubscribed");
		CHECK_EQ_INT(plan->n_shared, 24);
		CHECK_EQ_INT(plan->shared[23], 23);
		CHECK_EQ_INT(plan->shared_lcores[0], 25);
		mcfan_plan_free(plan);
	}
	/* one node only: a floating row has that node */
	{
		struct mcfan_sct_map *map2 = map_parse("L0-1T0C0-1P0N0");

		req = req_make(map2, MCFAN_SCT_BIND_UNBOUND, 1, 0);
		plan = plan_expect(&req, "0@(0-1),1@(0-1)");
		if (plan != NULL) {
			check_row(&plan->rows[1], 1, MCFAN_ROLE_RX | MCFAN_ROLE_WORKER, -1, "0-1",
				  -1, -1, -1, 0);
			mcfan_plan_free(plan);
		}
		mcfan_sct_free(map2);
	}
}

/* CPU ids above RTE_MAX_LCORE, and run-to-completion (--workers 0). */
static void
test_high_cpus_and_rtc(void)
{
	struct mcfan_sct_map *map = map_parse("L200-203T0C0-3P0N0");
	struct mcfan_plan_req req = req_make(map, MCFAN_SCT_BIND_DEFAULT_BIND, 1, 2);
	struct mcfan_plan *plan;

	mcfan_plan_free(plan_expect(&req, "0@200,1@201,2@202,3@203"));
	req = req_make(map, MCFAN_SCT_BIND_DEFAULT_BIND, 2, 0);
	plan = plan_expect(&req, "0@200,1@201,2@202");
	if (plan != NULL) {
		check_row(&plan->rows[1], 1, MCFAN_ROLE_RX | MCFAN_ROLE_WORKER, 201, "201", 0, 1,
			  0, 0);
		check_row(&plan->rows[2], 2, MCFAN_ROLE_RX | MCFAN_ROLE_WORKER, 202, "202", 0, 2,
			  0, 0);
		mcfan_plan_free(plan);
	}
	mcfan_sct_free(map);
}

static void
expect_refusal(const struct mcfan_plan_req *req, struct mcfan_plan **out, const char *msg)
{
	struct mcfan_plan *untouched = (struct mcfan_plan *)(uintptr_t)0x1;
	char err[ERR_LEN] = "";
	int ret;

	if (out != NULL)
		*out = untouched;
	ret = mcfan_plan_build(req, out, err, sizeof(err));
	CHECK_EQ_INT(ret, -EINVAL);
	CHECK_EQ_STR(err, msg);
	if (out != NULL)
		CHECK(*out == untouched, "the plan pointer is untouched on error");
}

static void
test_refusals(const struct mcfan_sct_map *map24)
{
	struct mcfan_sct_map *map4 = map_parse("L0-3T0C0-3P0N0");
	struct mcfan_plan_req req;
	struct mcfan_plan *plan;

	expect_refusal(NULL, &plan, "no map or no bind type");
	req = req_make(map24, MCFAN_SCT_BIND_DEFAULT_BIND, 1, 1);
	expect_refusal(&req, NULL, "no map or no bind type");
	req.map = NULL;
	expect_refusal(&req, &plan, "no map or no bind type");
	req = req_make(map24, MCFAN_SCT_BIND_COUNT, 1, 1);
	expect_refusal(&req, &plan, "no map or no bind type");
	req = req_make(map24, MCFAN_SCT_BIND_DEFAULT_BIND, 0, 3);
	expect_refusal(&req, &plan, "at least one RX lcore is needed");
	req = req_make(map4, MCFAN_SCT_BIND_DEFAULT_BIND, 2, 4);
	req.max_lcores = 4;
	expect_refusal(&req, &plan, "7 lcores (control, 2 RX, 4 workers) is more than the 4 "
		       "lcores EAL supports");
	req = req_make(map24, MCFAN_SCT_BIND_DEFAULT_BIND, 1, 127);
	expect_refusal(&req, &plan, "129 lcores (control, 1 RX, 127 workers) is more than the "
		       "128 lcores EAL supports");
	req = req_make(map4, MCFAN_SCT_BIND_DEFAULT_BIND, 1, 1);
	req.control_cpu = 9;
	expect_refusal(&req, &plan, "--control-cpu 9 is not a CPU of the map (its CPUs: 0-3)");
	/* the bound is inclusive: 128 lcores ids 0..127 */
	req = req_make(map4, MCFAN_SCT_BIND_DEFAULT_BIND, 1, 126);
	req.max_lcores = 128;
	plan = NULL;
	CHECK_EQ_INT(mcfan_plan_build(&req, &plan, NULL, 0), 0);
	if (plan != NULL) {
		CHECK_EQ_INT(plan->n_rows, 128);
		CHECK(plan->oversubscribed, "128 lcores on 4 CPUs");
		CHECK_EQ_INT(plan->n_shared, 4);
		CHECK_EQ_INT(plan->shared_lcores[0], 32);
	}
	mcfan_plan_free(plan);
	mcfan_plan_free(NULL);
	mcfan_sct_free(map4);
}

/* The helpers the placement's other outputs use. */
static void
test_helpers(const struct mcfan_sct_map *map24)
{
	struct mcfan_cpuset set;
	struct mcfan_plan_row row;
	char *text;

	mcfan_cpuset_zero(&set);
	mcfan_cpuset_add(&set, 0);
	mcfan_cpuset_add(&set, 1);
	mcfan_cpuset_add(&set, 2);
	mcfan_cpuset_add(&set, 8);
	text = mcfan_plan_cpuset_text(&set);
	CHECK_EQ_STR(text, "0-2,8");
	free(text);

	memset(&row, 0, sizeof(row));
	row.cpu = 13;
	mcfan_plan_row_ids(&row, map24, NULL);
	CHECK_EQ_INT(row.thread, 1);
	CHECK_EQ_INT(row.core, 0);
	CHECK_EQ_INT(row.processor, 1);
	CHECK_EQ_INT(row.node, 1);
	row.cpu = -1;
	mcfan_plan_row_ids(&row, map24, &set); /* all on node 0 */
	CHECK_EQ_INT(row.thread, -1);
	CHECK_EQ_INT(row.node, 0);
	mcfan_cpuset_add(&set, 12);            /* now nodes 0 and 1 */
	mcfan_plan_row_ids(&row, map24, &set);
	CHECK_EQ_INT(row.node, -1);
	row.cpu = 99;                          /* not in the map */
	mcfan_plan_row_ids(&row, map24, NULL);
	CHECK_EQ_INT(row.core, -1);
	row.cpu = 3;
	mcfan_plan_row_ids(&row, NULL, NULL);
	CHECK_EQ_INT(row.node, -1);

	text = mcfan_plan_map_text(map24, MCFAN_SCT_FORMAT_COMPACT);
	CHECK_EQ_STR(text, map24_text);
	free(text);
	CHECK(mcfan_plan_map_text(NULL, 0) == NULL, "no map, no text");
}

int
main(void)
{
	struct mcfan_sct_map *map24 = map_parse(map24_text);

	test_db_24(map24);
	test_binds_24(map24);
	test_port_node(map24);
	test_oversubscribed(map24);
	test_unbound(map24);
	test_high_cpus_and_rtc();
	test_refusals(map24);
	test_helpers(map24);
	mcfan_sct_free(map24);
	return unit_summary("plan");
}
