/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Unit tests of mcfan_sct: the +sct parser and the bind orders agree with Erlang's runtime on
 * the table of sct_oracle.h (generated from erl by gen_sct_oracle.sh), maps survive a round
 * trip through their text, and the API behaves as documented.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcfan_sct.h"
#include "unit.h"
#include "sct_oracle.h"

UNIT_DEFINE_COUNTERS;

/* Room for any text a test map produces (the largest table map has 64 CPUs). */
#define TEXT_LEN 65536

/* Room for an error message. */
#define ERR_LEN 512

/* Tables of this file need at least this many maps (issue 3, "Tests"). */
#define MIN_TABLE_MAPS 40
/* ... and bind orders for at least this many maps: the 24-CPU map and 10 others. */
#define MIN_ORDER_MAPS 11

/* erl's reasons (erl_init.c) and the error kinds they correspond to. */
static const struct {
	const char *erl;
	enum mcfan_sct_err_kind kind;
} erl_reasons[] = {
	{ "invalid identifier", MCFAN_SCT_ERR_INVALID_ID },
	{ "invalid identifier range", MCFAN_SCT_ERR_INVALID_ID_RANGE },
	{ "invalid hierarchy", MCFAN_SCT_ERR_INVALID_HIERARCHY },
	{ "invalid identifier type", MCFAN_SCT_ERR_INVALID_ID_TYPE },
	{ "invalid nodes declaration", MCFAN_SCT_ERR_INVALID_NODES },
	{ "missing logical identifier", MCFAN_SCT_ERR_MISSING_LOGICAL },
	{ "not unique logical identifiers", MCFAN_SCT_ERR_LOGICAL_NOT_UNIQUE },
	{ "not unique entities", MCFAN_SCT_ERR_ENTITIES_NOT_UNIQUE },
	{ "missing cpu topology", MCFAN_SCT_ERR_EMPTY },
};

#define N_ERL_REASONS (sizeof(erl_reasons) / sizeof(erl_reasons[0]))

static int
erl_reason_kind(const char *reason)
{
	size_t i;

	for (i = 0; i < N_ERL_REASONS; i++) {
		if (strcmp(reason, erl_reasons[i].erl) == 0)
			return (int)erl_reasons[i].kind;
	}
	return -1;
}

/* --- Erlang's topology term, built from a map --- */

/*
 * erlang:system_info({cpu_topology, defined}) nests CPUs, in processor order, by node,
 * processor, node inside the processor, core and thread. Its documented shape: a level whose
 * whole group has one value is left out unless it is a processor or a node inside one, or
 * unless that value is undefined; an undefined node around processors lifts the processors
 * up; a group of one CPU ends in {logical, Id}.
 */
enum term_level {
	TERM_NODE,
	TERM_PROCESSOR,
	TERM_PROCESSOR_NODE,
	TERM_CORE,
	TERM_THREAD,
	TERM_LOGICAL,
};

static const char *const term_tags[] = {
	[TERM_NODE] = "node",
	[TERM_PROCESSOR] = "processor",
	[TERM_PROCESSOR_NODE] = "node",
	[TERM_CORE] = "core",
	[TERM_THREAD] = "thread",
};

struct text {
	char buf[TEXT_LEN];
	size_t pos;
};

static void
text_add(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->pos + n < sizeof(t->buf)) {
		memcpy(t->buf + t->pos, s, n + 1);
		t->pos += n;
	}
}

static int32_t
term_value(const struct mcfan_sct_map *map, size_t i, int level)
{
	const struct mcfan_sct_cpu *c = mcfan_sct_cpu_at(map, i);

	switch (level) {
	case TERM_NODE:
		return c->node;
	case TERM_PROCESSOR:
		return c->processor;
	case TERM_PROCESSOR_NODE:
		return c->processor_node;
	case TERM_CORE:
		return c->core;
	case TERM_THREAD:
		return c->thread;
	default:
		return c->logical;
	}
}

/* End of the run of CPUs from lo on with the same value at level. */
static size_t
term_run_end(const struct mcfan_sct_map *map, size_t lo, size_t hi, int level)
{
	size_t r = lo + 1;

	while (r < hi && term_value(map, r, level) == term_value(map, lo, level))
		r++;
	return r;
}

static void term_group(const struct mcfan_sct_map *map, size_t lo, size_t hi, int level,
	struct text *t);

/* The list items for CPUs lo..hi-1 at level, comma separated; *first tracks the commas. */
static void
term_items(const struct mcfan_sct_map *map, size_t lo, size_t hi, int level, bool *first,
	struct text *t)
{
	size_t r;

	while (lo < hi) {
		r = term_run_end(map, lo, hi, level);
		if (level == TERM_NODE && term_value(map, lo, level) < 0) {
			term_items(map, lo, r, TERM_PROCESSOR, first, t);
		} else {
			if (!*first)
				text_add(t, ",");
			*first = false;
			text_add(t, "{");
			text_add(t, term_tags[level]);
			text_add(t, ",");
			term_group(map, lo, r, level + 1, t);
			text_add(t, "}");
		}
		lo = r;
	}
}

/* The term for a group of CPUs lo..hi-1 that starts at level. */
static void
term_group(const struct mcfan_sct_map *map, size_t lo, size_t hi, int level, struct text *t)
{
	char id[32];
	bool first = true;
	int32_t v;

	if (level == TERM_LOGICAL) {
		snprintf(id, sizeof(id), "{logical,%d}", (int)term_value(map, lo, level));
		text_add(t, id);
		return;
	}
	v = term_value(map, lo, level);
	if (term_run_end(map, lo, hi, level) == hi &&
			(v < 0 || (level != TERM_PROCESSOR && level != TERM_PROCESSOR_NODE))) {
		term_group(map, lo, hi, level + 1, t);
		return;
	}
	text_add(t, "[");
	term_items(map, lo, hi, level, &first, t);
	text_add(t, "]");
}

static const char *
erlang_term(const struct mcfan_sct_map *map, struct text *t)
{
	t->pos = 0;
	t->buf[0] = '\0';
	term_group(map, 0, mcfan_sct_count(map), TERM_NODE, t);
	return t->buf;
}

/* --- helpers --- */

/* A bind order as "a,b,c". */
static const char *
order_text(const struct mcfan_sct_map *map, enum mcfan_sct_bind bind, struct text *t)
{
	unsigned int *cpus;
	char id[16];
	size_t n = mcfan_sct_count(map);
	int ret;
	int i;

	t->pos = 0;
	t->buf[0] = '\0';
	cpus = calloc(n, sizeof(*cpus));
	if (cpus == NULL)
		return "(no memory)";
	ret = mcfan_sct_bind_order(map, bind, cpus, n);
	if (ret < 0) {
		snprintf(t->buf, sizeof(t->buf), "(error %d)", ret);
	} else {
		for (i = 0; i < ret; i++) {
			snprintf(id, sizeof(id), "%s%u", i == 0 ? "" : ",", cpus[i]);
			text_add(t, id);
		}
	}
	free(cpus);
	return t->buf;
}

static struct mcfan_sct_map *
parse_ok(const char *text)
{
	struct mcfan_sct_map *map = NULL;
	enum mcfan_sct_err_kind kind;
	char err[ERR_LEN];
	int ret;

	ret = mcfan_sct_parse(text, &map, &kind, err, sizeof(err));
	CHECK(ret == 0 && map != NULL, "parse '%s': %d %s", text, ret, err);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_NONE);
	return ret == 0 ? map : NULL;
}

/* Parse text, expect refusal of the given kind with a message containing quote. */
static void
parse_bad(const char *text, enum mcfan_sct_err_kind want, const char *quote)
{
	struct mcfan_sct_map *map = NULL;
	enum mcfan_sct_err_kind kind;
	char err[ERR_LEN];
	int ret;

	ret = mcfan_sct_parse(text, &map, &kind, err, sizeof(err));
	CHECK(ret == -EINVAL, "parse '%s' returned %d", text, ret);
	CHECK(map == NULL, "parse '%s' gave a map", text);
	CHECK(kind == want, "parse '%s': kind %s, expected %s (%s)", text,
		mcfan_sct_err_kind_str(kind), mcfan_sct_err_kind_str(want), err);
	CHECK(strncmp(err, mcfan_sct_err_kind_str(want), strlen(mcfan_sct_err_kind_str(want)))
		== 0, "message '%s' does not start with the kind", err);
	if (quote != NULL)
		CHECK(strstr(err, quote) != NULL, "message '%s' does not quote '%s'", err, quote);
}

/* Parse, print (plain and compact), parse again: the same map. */
static void
round_trip(const struct mcfan_sct_map *map, const char *what)
{
	static char text[TEXT_LEN];
	static const unsigned int flags[] = { 0, MCFAN_SCT_FORMAT_COMPACT };
	struct mcfan_sct_map *again;
	int len;
	size_t f;

	for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		len = mcfan_sct_format(map, flags[f], text, sizeof(text));
		CHECK(len > 0 && (size_t)len < sizeof(text), "format '%s': %d", what, len);
		CHECK_EQ_INT(mcfan_sct_format(map, flags[f], NULL, 0), len);
		again = parse_ok(text);
		CHECK(again != NULL && mcfan_sct_equal(map, again),
			"round trip of '%s' through '%s' changed the map", what, text);
		mcfan_sct_free(again);
	}
}

/* --- the oracle table --- */

static void
test_oracle_table(void)
{
	static struct text t;
	size_t n_cases = sizeof(sct_oracle) / sizeof(sct_oracle[0]);
	bool kinds_seen[MCFAN_SCT_ERR_EMPTY + 1] = { false };
	const struct sct_oracle_case *oc;
	struct mcfan_sct_map *map;
	enum mcfan_sct_err_kind kind;
	enum mcfan_sct_bind bind;
	char err[ERR_LEN];
	size_t n_good = 0;
	size_t i;
	int want;
	int ret;
	int b;

	CHECK(n_cases >= MIN_TABLE_MAPS, "only %zu maps in the table", n_cases);
	for (i = 0; i < n_cases; i++) {
		oc = &sct_oracle[i];
		map = NULL;
		ret = mcfan_sct_parse(oc->map, &map, &kind, err, sizeof(err));
		if (oc->error != NULL) {
			want = erl_reason_kind(oc->error);
			CHECK(want >= 0, "unknown erl reason '%s'", oc->error);
			CHECK(ret == -EINVAL && map == NULL, "'%s' accepted, erl says '%s'",
				oc->map, oc->error);
			CHECK(want < 0 || kind == (enum mcfan_sct_err_kind)want,
				"'%s': %s (%s), erl says '%s'", oc->map,
				mcfan_sct_err_kind_str(kind), err, oc->error);
			CHECK(err[0] != '\0', "'%s': empty message", oc->map);
			if (want >= 0 && (enum mcfan_sct_err_kind)want == kind)
				kinds_seen[kind] = true;
			mcfan_sct_free(map);
			continue;
		}
		CHECK(ret == 0 && map != NULL, "'%s' refused (%s), erl accepts it", oc->map, err);
		if (ret != 0)
			continue;
		n_good++;
		CHECK(strcmp(erlang_term(map, &t), oc->term) == 0,
			"'%s': topology %s, erl says %s", oc->map, t.buf, oc->term);
		for (b = 0; b < SCT_ORACLE_BINDS; b++) {
			CHECK_EQ_INT(mcfan_sct_bind_parse(sct_oracle_binds[b], &bind), 0);
			CHECK(strcmp(order_text(map, bind, &t), oc->order[b]) == 0,
				"'%s' %s: order %s, erl says %s", oc->map, sct_oracle_binds[b],
				t.buf, oc->order[b]);
		}
		round_trip(map, oc->map);
		mcfan_sct_free(map);
	}
	CHECK(n_good >= MIN_ORDER_MAPS, "only %zu accepted maps with bind orders", n_good);
	for (i = MCFAN_SCT_ERR_INVALID_ID; i <= MCFAN_SCT_ERR_EMPTY; i++)
		CHECK(kinds_seen[i], "no table map refused with %s",
			mcfan_sct_err_kind_str((enum mcfan_sct_err_kind)i));
	printf("oracle table: %zu maps, %zu accepted with %d bind orders each\n", n_cases, n_good,
		SCT_ORACLE_BINDS);
}

/* --- messages --- */

static void
test_messages(void)
{
	parse_bad("L0T0C0P0N0:L70000", MCFAN_SCT_ERR_INVALID_ID, "'L70000' in entry 2");
	parse_bad("Lx", MCFAN_SCT_ERR_INVALID_ID, "'Lx'");
	parse_bad("L0-5T0-2", MCFAN_SCT_ERR_INVALID_ID_RANGE, "'T0-2' names 3 ids but 'L0-5'");
	parse_bad("L0-70000", MCFAN_SCT_ERR_INVALID_ID_RANGE, "'L0-70000'");
	parse_bad("L0T0P0C1", MCFAN_SCT_ERR_INVALID_HIERARCHY, "'C1' after 'P0'");
	parse_bad("L0T0T1", MCFAN_SCT_ERR_INVALID_HIERARCHY, "'T1' after 'T0'");
	parse_bad("L0:L1X2", MCFAN_SCT_ERR_INVALID_ID_TYPE, "'X' in entry 2 'L1X2'");
	parse_bad("L0P0N0:L1P0N1", MCFAN_SCT_ERR_INVALID_NODES, "'L1T0C0P0N1' (entry 2 'L1P0N1')");
	parse_bad("L0:L1N0", MCFAN_SCT_ERR_INVALID_NODES, "'L1T0C0P0N0'");
	parse_bad("L0T0::L1", MCFAN_SCT_ERR_MISSING_LOGICAL, "entry 2 ''");
	parse_bad("T0C1", MCFAN_SCT_ERR_MISSING_LOGICAL, "entry 1 'T0C1'");
	parse_bad("L0-3C0-3:L2C7", MCFAN_SCT_ERR_LOGICAL_NOT_UNIQUE, "logical CPU 2");
	parse_bad("L0-3C0-3:L2C7", MCFAN_SCT_ERR_LOGICAL_NOT_UNIQUE, "(entry 2 'L2C7')");
	parse_bad("L0C1:L1C1", MCFAN_SCT_ERR_ENTITIES_NOT_UNIQUE, "'L1T0C1P0' (entry 2 'L1C1')");
	parse_bad("", MCFAN_SCT_ERR_EMPTY, NULL);
}

/* --- printing --- */

/* The 24-CPU map of CONTEXT.md written one entry per CPU, as mcfan prints it. */
static const char map24[] =
	"L0T0C0P0N0:L1T1C0P0N0:L2T0C1P0N0:L3T1C1P0N0:L4T0C2P0N0:L5T1C2P0N0:L6T0C3P0N0:"
	"L7T1C3P0N0:L8T0C4P0N0:L9T1C4P0N0:L10T0C5P0N0:L11T1C5P0N0:L12T0C0P1N1:L13T1C0P1N1:"
	"L14T0C1P1N1:L15T1C1P1N1:L16T0C2P1N1:L17T1C2P1N1:L18T0C3P1N1:L19T1C3P1N1:"
	"L20T0C4P1N1:L21T1C4P1N1:L22T0C5P1N1:L23T1C5P1N1";

static void
test_format(void)
{
	static char text[TEXT_LEN];
	struct mcfan_sct_map *map;
	char small[8];
	int len;

	map = parse_ok("L0-11T0,1,0,1,0,1,0,1,0,1,0,1C0,0,1,1,2,2,3,3,4,4,5,5P0N0:"
		"L12-23T0,1,0,1,0,1,0,1,0,1,0,1C0,0,1,1,2,2,3,3,4,4,5,5P1N1");
	if (map == NULL)
		return;
	len = mcfan_sct_format(map, 0, text, sizeof(text));
	CHECK_EQ_STR(text, map24);
	CHECK_EQ_INT(len, strlen(map24));
	mcfan_sct_format(map, MCFAN_SCT_FORMAT_COMPACT, text, sizeof(text));
	CHECK_EQ_STR(text, "L0-1T0-1C0P0N0:L2-3T0-1C1P0N0:L4-5T0-1C2P0N0:L6-7T0-1C3P0N0:"
		"L8-9T0-1C4P0N0:L10-11T0-1C5P0N0:L12-13T0-1C0P1N1:L14-15T0-1C1P1N1:"
		"L16-17T0-1C2P1N1:L18-19T0-1C3P1N1:L20-21T0-1C4P1N1:L22-23T0-1C5P1N1");

	/* Truncation like snprintf. */
	len = mcfan_sct_format(map, 0, small, sizeof(small));
	CHECK_EQ_INT(len, strlen(map24));
	CHECK_EQ_STR(small, "L0T0C0P");
	CHECK_EQ_INT(mcfan_sct_format(map, 0x80, text, sizeof(text)), -EINVAL);
	CHECK_EQ_INT(mcfan_sct_format(NULL, 0, text, sizeof(text)), -EINVAL);
	CHECK_EQ_INT(mcfan_sct_format(map, 0, NULL, 4), -EINVAL);
	mcfan_sct_free(map);

	map = parse_ok("L0-5T0C0-5P0N0:L6-11T0C0-5P1N1:L12-17T1C0-5P0N0:L18-23T1C0-5P1N1");
	if (map != NULL) {
		mcfan_sct_format(map, MCFAN_SCT_FORMAT_COMPACT, text, sizeof(text));
		CHECK_EQ_STR(text, "L0-5T0C0-5P0N0:L6-11T0C0-5P1N1:L12-17T1C0-5P0N0:"
			"L18-23T1C0-5P1N1");
		mcfan_sct_free(map);
	}

	/* Descriptive ids, nodes inside processors and descending runs survive printing. */
	map = parse_ok("L7-4t1c0-3n0p2:L3-0t0c0-3n1p2");
	if (map != NULL) {
		mcfan_sct_format(map, MCFAN_SCT_FORMAT_COMPACT, text, sizeof(text));
		CHECK_EQ_STR(text, "L0-3t0c3-0n1p2:L4-7t1c3-0n0p2");
		mcfan_sct_format(map, 0, text, sizeof(text));
		CHECK_EQ_STR(text, "L0t0c3n1p2:L1t0c2n1p2:L2t0c1n1p2:L3t0c0n1p2:"
			"L4t1c3n0p2:L5t1c2n0p2:L6t1c1n0p2:L7t1c0n0p2");
		mcfan_sct_free(map);
	}
}

static void
test_tree(void)
{
	static char text[TEXT_LEN];
	struct mcfan_sct_map *map;
	int len;

	map = parse_ok("L0-3T0,1,0,1C0,0,1,1P0N0:L4-5T0C0-1P1N1");
	if (map == NULL)
		return;
	len = mcfan_sct_format_tree(map, text, sizeof(text));
	CHECK_EQ_STR(text,
		"node 0\n"
		"  processor 0\n"
		"    core 0\n"
		"      thread 0: cpu 0\n"
		"      thread 1: cpu 1\n"
		"    core 1\n"
		"      thread 0: cpu 2\n"
		"      thread 1: cpu 3\n"
		"node 1\n"
		"  processor 1\n"
		"    core 0\n"
		"      thread 0: cpu 4\n"
		"    core 1\n"
		"      thread 0: cpu 5\n");
	CHECK_EQ_INT(len, strlen(text));
	CHECK_EQ_INT(mcfan_sct_format_tree(map, NULL, 0), len);
	mcfan_sct_free(map);

	/* Nodes inside a processor sit below it; processors with several nodes stay whole. */
	map = parse_ok("L0-1N0,1P0:L2C1N1P0");
	if (map != NULL) {
		mcfan_sct_format_tree(map, text, sizeof(text));
		CHECK_EQ_STR(text,
			"processor 0\n"
			"  node 0\n"
			"    core 0\n"
			"      thread 0: cpu 0\n"
			"  node 1\n"
			"    core 0\n"
			"      thread 0: cpu 1\n"
			"    core 1\n"
			"      thread 0: cpu 2\n");
		mcfan_sct_free(map);
	}

	/* Without nodes the processor is the root; node ids ordered, not processor ids. */
	map = parse_ok("L0-1C0,1P0,1N1,0");
	if (map != NULL) {
		mcfan_sct_format_tree(map, text, sizeof(text));
		CHECK_EQ_STR(text,
			"node 0\n"
			"  processor 1\n"
			"    core 1\n"
			"      thread 0: cpu 1\n"
			"node 1\n"
			"  processor 0\n"
			"    core 0\n"
			"      thread 0: cpu 0\n");
		mcfan_sct_free(map);
	}
	CHECK_EQ_INT(mcfan_sct_format_tree(NULL, text, sizeof(text)), -EINVAL);
}

/* --- records, lookup, bind names --- */

static void
test_records(void)
{
	const struct mcfan_sct_cpu *c;
	struct mcfan_sct_map *map;
	unsigned int cpus[24];
	size_t i;

	map = parse_ok(map24);
	if (map == NULL)
		return;
	CHECK_EQ_INT(mcfan_sct_count(map), 24);
	c = mcfan_sct_lookup(map, 13);
	CHECK(c != NULL, "L13 not found");
	if (c != NULL) {
		CHECK_EQ_INT(c->logical, 13);
		CHECK_EQ_INT(c->thread, 1);
		CHECK_EQ_INT(c->core, 0);
		CHECK_EQ_INT(c->processor, 1);
		CHECK_EQ_INT(c->node, 1);
		CHECK_EQ_INT(c->processor_node, MCFAN_SCT_ID_UNDEFINED);
		CHECK_EQ_INT(c->descriptive, 0);
		CHECK_EQ_INT(mcfan_sct_cpu_numa_node(c), 1);
	}
	CHECK(mcfan_sct_lookup(map, 24) == NULL, "L24 found");
	CHECK(mcfan_sct_lookup(map, 70000) == NULL, "L70000 found");
	CHECK(mcfan_sct_lookup(NULL, 0) == NULL, "lookup in NULL");
	CHECK(mcfan_sct_cpu_at(map, 24) == NULL, "cpu_at past the end");
	CHECK(mcfan_sct_cpu_at(NULL, 0) == NULL, "cpu_at in NULL");
	CHECK_EQ_INT(mcfan_sct_count(NULL), 0);
	/* Canonical order: processor, node, core, thread. */
	for (i = 0; i < 24; i++)
		CHECK_EQ_INT(mcfan_sct_cpu_at(map, i)->logical, i);

	/* Orders: sizing, capacity, unbound. */
	CHECK_EQ_INT(mcfan_sct_bind_order(map, MCFAN_SCT_BIND_SPREAD, NULL, 0), 24);
	CHECK_EQ_INT(mcfan_sct_bind_order(map, MCFAN_SCT_BIND_SPREAD, cpus, 23), -ENOSPC);
	CHECK_EQ_INT(mcfan_sct_bind_order(map, MCFAN_SCT_BIND_SPREAD, NULL, 3), -EINVAL);
	CHECK_EQ_INT(mcfan_sct_bind_order(map, MCFAN_SCT_BIND_COUNT, cpus, 24), -EINVAL);
	CHECK_EQ_INT(mcfan_sct_bind_order(NULL, MCFAN_SCT_BIND_SPREAD, cpus, 24), -EINVAL);
	CHECK_EQ_INT(mcfan_sct_bind_order(map, MCFAN_SCT_BIND_UNBOUND, cpus, 24), 24);
	for (i = 0; i < 24; i++)
		CHECK_EQ_INT(cpus[i], i);
	mcfan_sct_free(map);

	map = parse_ok("L9-6C0,1,0,1N1,1,0,0P3");
	if (map != NULL) {
		c = mcfan_sct_lookup(map, 8);
		CHECK(c != NULL && mcfan_sct_cpu_numa_node(c) == 1 && c->node < 0,
			"L8 inner node");
		CHECK_EQ_INT(mcfan_sct_bind_order(map, MCFAN_SCT_BIND_UNBOUND, cpus, 24), 4);
		CHECK(cpus[0] == 6 && cpus[3] == 9, "unbound order not ascending");
		mcfan_sct_free(map);
	}
	CHECK_EQ_INT(mcfan_sct_cpu_numa_node(NULL), MCFAN_SCT_ID_UNDEFINED);
}

static void
test_from_cpus(void)
{
	struct mcfan_sct_cpu cpus[4] = {
		{ .logical = 3, .thread = 1, .core = 1, .processor = 0, .node = 0,
			.processor_node = -1 },
		{ .logical = 0, .thread = 0, .core = 0, .processor = 0, .node = 0,
			.processor_node = -1 },
		{ .logical = 2, .thread = 0, .core = 1, .processor = 0, .node = 0,
			.processor_node = -1 },
		{ .logical = 1, .thread = 1, .core = 0, .processor = 0, .node = 0,
			.processor_node = -1 },
	};
	struct mcfan_sct_map *parsed;
	struct mcfan_sct_map *map = NULL;
	enum mcfan_sct_err_kind kind;
	char err[ERR_LEN];
	char text[256];

	CHECK_EQ_INT(mcfan_sct_from_cpus(cpus, 4, &map, &kind, err, sizeof(err)), 0);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_NONE);
	parsed = parse_ok("L0-3T0,1,0,1C0,0,1,1P0N0");
	CHECK(map != NULL && parsed != NULL && mcfan_sct_equal(map, parsed),
		"records and text differ");
	mcfan_sct_format(map, MCFAN_SCT_FORMAT_COMPACT, text, sizeof(text));
	CHECK_EQ_STR(text, "L0-1T0-1C0P0N0:L2-3T0-1C1P0N0");
	mcfan_sct_free(map);
	mcfan_sct_free(parsed);

	/* A processor across two nodes, as sysfs may report it: refused, then fixed. */
	cpus[2].node = 1;
	CHECK_EQ_INT(mcfan_sct_from_cpus(cpus, 4, &map, &kind, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_INVALID_NODES);
	CHECK(strstr(err, "'L2T0C1P0N1'") != NULL, "message '%s'", err);
	cpus[0].node = 1;
	cpus[2].node = 1;
	CHECK_EQ_INT(mcfan_sct_from_cpus(cpus, 4, &map, &kind, err, sizeof(err)), -EINVAL);
	cpus[0].processor_node = 1;
	cpus[1].processor_node = 0;
	cpus[2].processor_node = 1;
	cpus[3].processor_node = 0;
	cpus[0].node = cpus[1].node = cpus[2].node = cpus[3].node = -1;
	CHECK_EQ_INT(mcfan_sct_from_cpus(cpus, 4, &map, &kind, err, sizeof(err)), 0);
	mcfan_sct_format(map, 0, text, sizeof(text));
	CHECK_EQ_STR(text, "L0T0C0N0P0:L1T1C0N0P0:L2T0C1N1P0:L3T1C1N1P0");
	mcfan_sct_free(map);

	cpus[1].thread = 70000;
	CHECK_EQ_INT(mcfan_sct_from_cpus(cpus, 4, &map, &kind, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_INVALID_ID);
	cpus[1].thread = 0;
	cpus[1].logical = 2;
	CHECK_EQ_INT(mcfan_sct_from_cpus(cpus, 4, &map, &kind, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_LOGICAL_NOT_UNIQUE);
	cpus[1].logical = 0;
	cpus[3].thread = 0;
	CHECK_EQ_INT(mcfan_sct_from_cpus(cpus, 4, &map, &kind, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_ENTITIES_NOT_UNIQUE);
	CHECK_EQ_INT(mcfan_sct_from_cpus(cpus, 0, &map, &kind, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_EMPTY);
	CHECK_EQ_INT(mcfan_sct_from_cpus(NULL, 4, &map, &kind, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_ARGUMENT);
}

static void
test_bind_names(void)
{
	static const char *const names[][2] = {
		{ "u", "unbound" },
		{ "db", "default_bind" },
		{ "s", "spread" },
		{ "ps", "processor_spread" },
		{ "ts", "thread_spread" },
		{ "tnnps", "thread_no_node_processor_spread" },
		{ "nnps", "no_node_processor_spread" },
		{ "nnts", "no_node_thread_spread" },
		{ "ns", "no_spread" },
	};
	enum mcfan_sct_bind a;
	enum mcfan_sct_bind b;
	size_t i;

	CHECK_EQ_INT(sizeof(names) / sizeof(names[0]), MCFAN_SCT_BIND_COUNT);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CHECK_EQ_INT(mcfan_sct_bind_parse(names[i][0], &a), 0);
		CHECK_EQ_INT(mcfan_sct_bind_parse(names[i][1], &b), 0);
		CHECK_EQ_INT(a, b);
		CHECK_EQ_STR(mcfan_sct_bind_name(a), names[i][0]);
		CHECK_EQ_STR(mcfan_sct_bind_erlang_name(a), names[i][1]);
	}
	CHECK_EQ_INT(mcfan_sct_bind_parse("spread ", &a), -EINVAL);
	CHECK_EQ_INT(mcfan_sct_bind_parse("TS", &a), -EINVAL);
	CHECK_EQ_INT(mcfan_sct_bind_parse(NULL, &a), -EINVAL);
	CHECK(mcfan_sct_bind_name(MCFAN_SCT_BIND_COUNT) == NULL, "name of a bad bind type");
	CHECK_EQ_STR(mcfan_sct_err_kind_str(MCFAN_SCT_ERR_ENTITIES_NOT_UNIQUE),
		"entities not unique");
	CHECK_EQ_STR(mcfan_sct_err_kind_str((enum mcfan_sct_err_kind)99), "unknown error");
}

static void
test_arguments(void)
{
	struct mcfan_sct_map *map = NULL;
	enum mcfan_sct_err_kind kind;
	char err[4];

	CHECK_EQ_INT(mcfan_sct_parse(NULL, &map, &kind, NULL, 0), -EINVAL);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_ARGUMENT);
	CHECK_EQ_INT(mcfan_sct_parse("L0", NULL, NULL, NULL, 0), -EINVAL);
	/* A short message buffer is truncated and terminated. */
	CHECK_EQ_INT(mcfan_sct_parse("Lx", &map, NULL, err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "inv");
	/* Large maps: all 65536 logical ids. */
	CHECK_EQ_INT(mcfan_sct_parse("L0-65535T0-1,0-1C0-32767,32767-0", &map, &kind, NULL, 0),
		-EINVAL);
	CHECK_EQ_INT(kind, MCFAN_SCT_ERR_INVALID_ID_RANGE);
	CHECK_EQ_INT(mcfan_sct_parse("L0-65535C0-65535", &map, &kind, NULL, 0), 0);
	CHECK_EQ_INT(mcfan_sct_count(map), MCFAN_SCT_MAX_CPUS);
	CHECK(mcfan_sct_lookup(map, 65535) != NULL, "L65535 missing");
	CHECK_EQ_INT(mcfan_sct_bind_order(map, MCFAN_SCT_BIND_DEFAULT_BIND, NULL, 0),
		MCFAN_SCT_MAX_CPUS);
	mcfan_sct_free(map);
	mcfan_sct_free(NULL);
}

int
main(void)
{
	test_oracle_table();
	test_messages();
	test_format();
	test_tree();
	test_records();
	test_from_cpus();
	test_bind_names();
	test_arguments();
	return unit_summary("sct");
}
