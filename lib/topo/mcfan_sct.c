/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Erlang +sct CPU topology maps and +sbt bind orders.
 *
 * The accepted language, the error kinds and their precedence, the canonical CPU order and
 * the bind orders reproduce what Erlang/OTP's runtime does (erts/emulator/beam/
 * erl_cpu_topology.c); test/unit/sct_oracle.h holds the answers of a real erl for a table of
 * maps and test/unit/test_sct.c checks this file against them.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcfan_parse.h"
#include "mcfan_sct.h"

/*
 * Hierarchy levels, outermost first, numbered like Erlang's ERTS_TOPOLOGY_* levels: within an
 * entry each letter must name a level strictly below the previous letter's one.
 */
enum sct_level {
	SCT_LEVEL_NODE = 0,
	SCT_LEVEL_PROCESSOR = 1,
	SCT_LEVEL_PROCESSOR_NODE = 2,
	SCT_LEVEL_CORE = 3,
	SCT_LEVEL_THREAD = 4,
	SCT_LEVEL_LOGICAL = 5,
	SCT_LEVEL_COUNT = 6, /* also "no letter seen yet" */
};

/* Separator between entries of a map (Erlang's +sct syntax). */
#define SCT_ENTRY_SEP ':'
/* Separator between ids of a list. */
#define SCT_LIST_SEP ','
/* Separator between the two ends of a range. */
#define SCT_RANGE_SEP '-'

/* Sort keys used for every ordering here: up to this many ids, then the original index. */
#define SCT_SORT_KEYS 5

/* Room for one CPU written as a +sct entry: "L65535t65535c65535n65535p65535n65535". */
#define SCT_CPU_TEXT_LEN 48

/* Longest entry text quoted in an error message, in characters. */
#define SCT_QUOTE_MAX 64

/* One range of ids, first..last inclusive, in either direction. */
struct sct_run {
	int32_t first;
	int32_t last;
};

/* The ids given for one letter of an entry. */
struct sct_ids {
	struct sct_run *runs;
	size_t n_runs;
	size_t cap_runs;
	uint64_t count;         /* number of ids over all runs */
	bool given;             /* the letter appears in the entry */
	bool lower;             /* the letter was lower case (descriptive id) */
	const char *field;      /* the letter and its ids, for messages */
	size_t field_len;
};

/* Where a parsed CPU came from, for messages. */
struct sct_span {
	size_t entry;           /* 1-based entry number */
	size_t offset;          /* entry text offset in the map */
	size_t len;             /* entry text length */
};

struct mcfan_sct_map {
	size_t n;
	struct mcfan_sct_cpu *cpus;     /* canonical processor order */
	uint32_t *by_logical;           /* positions into cpus, ascending logical id */
};

/* Error reporting destination. */
struct sct_err {
	enum mcfan_sct_err_kind kind;
	char *buf;
	size_t len;
};

/* Parser state for one map text. */
struct sct_parser {
	const char *text;
	struct sct_ids ids[SCT_LEVEL_COUNT];
	struct mcfan_sct_cpu *cpus;
	struct sct_span *spans;
	size_t n_cpus;
	size_t cap_cpus;
	bool overflow;          /* more than MCFAN_SCT_MAX_CPUS CPUs: logical ids repeat */
	struct sct_err *err;
};

/* An element to sort: keys compared in order, then the index for a total order. */
struct sct_sort_item {
	int32_t key[SCT_SORT_KEYS];
	uint32_t index;
};

/* Output accumulator with snprintf semantics. */
struct sct_out {
	char *buf;
	size_t len;
	size_t pos;
};

static const char *const sct_err_names[] = {
	[MCFAN_SCT_ERR_NONE] = "no error",
	[MCFAN_SCT_ERR_INVALID_ID] = "invalid identifier",
	[MCFAN_SCT_ERR_INVALID_ID_RANGE] = "invalid identifier range",
	[MCFAN_SCT_ERR_INVALID_HIERARCHY] = "invalid hierarchy",
	[MCFAN_SCT_ERR_INVALID_ID_TYPE] = "invalid identifier type",
	[MCFAN_SCT_ERR_INVALID_NODES] = "invalid nodes declaration",
	[MCFAN_SCT_ERR_MISSING_LOGICAL] = "missing logical identifier",
	[MCFAN_SCT_ERR_LOGICAL_NOT_UNIQUE] = "logical identifiers not unique",
	[MCFAN_SCT_ERR_ENTITIES_NOT_UNIQUE] = "entities not unique",
	[MCFAN_SCT_ERR_EMPTY] = "empty topology",
	[MCFAN_SCT_ERR_ARGUMENT] = "invalid argument",
	[MCFAN_SCT_ERR_NO_MEMORY] = "out of memory",
};

/* Bind type names: Erlang's +sbt short names and erlang:system_flag/2 long names. */
static const char *const sct_bind_short[MCFAN_SCT_BIND_COUNT] = {
	[MCFAN_SCT_BIND_UNBOUND] = "u",
	[MCFAN_SCT_BIND_NO_SPREAD] = "ns",
	[MCFAN_SCT_BIND_THREAD_SPREAD] = "ts",
	[MCFAN_SCT_BIND_PROCESSOR_SPREAD] = "ps",
	[MCFAN_SCT_BIND_SPREAD] = "s",
	[MCFAN_SCT_BIND_NO_NODE_THREAD_SPREAD] = "nnts",
	[MCFAN_SCT_BIND_NO_NODE_PROCESSOR_SPREAD] = "nnps",
	[MCFAN_SCT_BIND_THREAD_NO_NODE_PROCESSOR_SPREAD] = "tnnps",
	[MCFAN_SCT_BIND_DEFAULT_BIND] = "db",
};

static const char *const sct_bind_long[MCFAN_SCT_BIND_COUNT] = {
	[MCFAN_SCT_BIND_UNBOUND] = "unbound",
	[MCFAN_SCT_BIND_NO_SPREAD] = "no_spread",
	[MCFAN_SCT_BIND_THREAD_SPREAD] = "thread_spread",
	[MCFAN_SCT_BIND_PROCESSOR_SPREAD] = "processor_spread",
	[MCFAN_SCT_BIND_SPREAD] = "spread",
	[MCFAN_SCT_BIND_NO_NODE_THREAD_SPREAD] = "no_node_thread_spread",
	[MCFAN_SCT_BIND_NO_NODE_PROCESSOR_SPREAD] = "no_node_processor_spread",
	[MCFAN_SCT_BIND_THREAD_NO_NODE_PROCESSOR_SPREAD] = "thread_no_node_processor_spread",
	[MCFAN_SCT_BIND_DEFAULT_BIND] = "default_bind",
};

/* Fields of a renumbered CPU, the sort keys of the bind orders. */
enum sct_field {
	SCT_F_NODE,
	SCT_F_PROCESSOR,
	SCT_F_PROCESSOR_NODE,
	SCT_F_CORE,
	SCT_F_THREAD,
	SCT_F_NONE,             /* unused key slot */
};

/*
 * Sort key order of each bind type, most significant first, as Erlang's bind order
 * comparators in erl_cpu_topology.c define them. Types whose name says "no node" compare
 * nodes inside processors through the node key (see sct_renumber()).
 */
static const enum sct_field sct_bind_keys[MCFAN_SCT_BIND_COUNT][SCT_SORT_KEYS] = {
	[MCFAN_SCT_BIND_UNBOUND] = {
		SCT_F_NONE, SCT_F_NONE, SCT_F_NONE, SCT_F_NONE, SCT_F_NONE },
	[MCFAN_SCT_BIND_NO_SPREAD] = {
		SCT_F_NODE, SCT_F_PROCESSOR, SCT_F_PROCESSOR_NODE, SCT_F_CORE, SCT_F_THREAD },
	[MCFAN_SCT_BIND_THREAD_SPREAD] = {
		SCT_F_THREAD, SCT_F_NODE, SCT_F_PROCESSOR, SCT_F_PROCESSOR_NODE, SCT_F_CORE },
	[MCFAN_SCT_BIND_PROCESSOR_SPREAD] = {
		SCT_F_THREAD, SCT_F_PROCESSOR_NODE, SCT_F_CORE, SCT_F_NODE, SCT_F_PROCESSOR },
	[MCFAN_SCT_BIND_SPREAD] = {
		SCT_F_THREAD, SCT_F_CORE, SCT_F_PROCESSOR_NODE, SCT_F_PROCESSOR, SCT_F_NODE },
	[MCFAN_SCT_BIND_NO_NODE_THREAD_SPREAD] = {
		SCT_F_NODE, SCT_F_THREAD, SCT_F_PROCESSOR, SCT_F_CORE, SCT_F_NONE },
	[MCFAN_SCT_BIND_NO_NODE_PROCESSOR_SPREAD] = {
		SCT_F_NODE, SCT_F_THREAD, SCT_F_CORE, SCT_F_PROCESSOR, SCT_F_NONE },
	[MCFAN_SCT_BIND_THREAD_NO_NODE_PROCESSOR_SPREAD] = {
		SCT_F_THREAD, SCT_F_NODE, SCT_F_CORE, SCT_F_PROCESSOR, SCT_F_NONE },
	[MCFAN_SCT_BIND_DEFAULT_BIND] = {
		SCT_F_THREAD, SCT_F_NODE, SCT_F_CORE, SCT_F_PROCESSOR, SCT_F_NONE },
};

/* Bind types that fold nodes inside processors into the node level. */
static const bool sct_bind_folds_nodes[MCFAN_SCT_BIND_COUNT] = {
	[MCFAN_SCT_BIND_NO_NODE_THREAD_SPREAD] = true,
	[MCFAN_SCT_BIND_NO_NODE_PROCESSOR_SPREAD] = true,
	[MCFAN_SCT_BIND_THREAD_NO_NODE_PROCESSOR_SPREAD] = true,
	[MCFAN_SCT_BIND_DEFAULT_BIND] = true,
};

/* --- error reporting --- */

/*
 * Record an error kind, and its message through the one error-message helper: the kind's
 * name, then fmt's text if any. Returns the matching negative errno.
 */
__rte_format_printf(3, 4)
static int
sct_fail(struct sct_err *err, enum mcfan_sct_err_kind kind, const char *fmt, ...)
{
	int ret = kind == MCFAN_SCT_ERR_NO_MEMORY ? -ENOMEM : -EINVAL;
	size_t n;
	va_list ap;

	err->kind = kind;
	mcfan_err_set(err->buf, err->len, ret, "%s", sct_err_names[kind]);
	if (fmt == NULL || err->buf == NULL || err->len == 0)
		return ret;
	n = strlen(err->buf);
	va_start(ap, fmt);
	mcfan_err_vset(err->buf + n, err->len - n, ret, fmt, ap);
	va_end(ap);
	return ret;
}

static void
sct_err_init(struct sct_err *err, char *buf, size_t len)
{
	err->kind = MCFAN_SCT_ERR_NONE;
	err->buf = buf;
	err->len = len;
	if (buf != NULL && len > 0)
		buf[0] = '\0';
}

/* Length of a quoted piece of text, capped so messages stay readable. */
static int
sct_quote_len(size_t len)
{
	return len > SCT_QUOTE_MAX ? SCT_QUOTE_MAX : (int)len;
}

/* "..." suffix for a quoted piece that was cut. */
static const char *
sct_quote_cut(size_t len)
{
	return len > SCT_QUOTE_MAX ? "..." : "";
}

/* --- output accumulator --- */

static void
sct_out_init(struct sct_out *o, char *buf, size_t len)
{
	o->buf = buf;
	o->len = len;
	o->pos = 0;
	if (buf != NULL && len > 0)
		buf[0] = '\0';
}

__rte_format_printf(2, 3)
static void
sct_out_printf(struct sct_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (o->buf != NULL && o->pos < o->len)
		n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += (size_t)n;
}

static int
sct_out_result(const struct sct_out *o)
{
	return o->pos > INT_MAX ? -EOVERFLOW : (int)o->pos;
}

/* --- CPU text --- */

static char
sct_letter(char upper, uint32_t descriptive, uint32_t bit)
{
	return (descriptive & bit) != 0 ? (char)tolower((unsigned char)upper) : upper;
}

/* Write one letter and its id or range. */
static void
sct_out_field(struct sct_out *o, char letter, int32_t first, int32_t last)
{
	if (first == last)
		sct_out_printf(o, "%c%d", letter, first);
	else
		sct_out_printf(o, "%c%d-%d", letter, first, last);
}

/*
 * Write a group of CPUs as one entry: each field of first..last steps by at most one, so a
 * single id or a range describes it (see sct_format_compact()).
 */
static void
sct_out_entry(struct sct_out *o, const struct mcfan_sct_cpu *first,
	const struct mcfan_sct_cpu *last)
{
	uint32_t d = first->descriptive;

	sct_out_field(o, 'L', first->logical, last->logical);
	sct_out_field(o, sct_letter('T', d, MCFAN_SCT_DESC_THREAD), first->thread, last->thread);
	sct_out_field(o, sct_letter('C', d, MCFAN_SCT_DESC_CORE), first->core, last->core);
	if (first->processor_node >= 0)
		sct_out_field(o, sct_letter('N', d, MCFAN_SCT_DESC_PROCESSOR_NODE),
			first->processor_node, last->processor_node);
	sct_out_field(o, sct_letter('P', d, MCFAN_SCT_DESC_PROCESSOR), first->processor,
		last->processor);
	if (first->node >= 0)
		sct_out_field(o, sct_letter('N', d, MCFAN_SCT_DESC_NODE), first->node, last->node);
}

/* Describe one CPU as a +sct entry in buf (SCT_CPU_TEXT_LEN bytes). */
static const char *
sct_cpu_text(const struct mcfan_sct_cpu *cpu, char *buf)
{
	struct sct_out o;

	sct_out_init(&o, buf, SCT_CPU_TEXT_LEN);
	sct_out_entry(&o, cpu, cpu);
	return buf;
}

/* --- sorting --- */

static int
sct_sort_cmp(const void *va, const void *vb)
{
	const struct sct_sort_item *a = va;
	const struct sct_sort_item *b = vb;
	int i;

	for (i = 0; i < SCT_SORT_KEYS; i++) {
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	}
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return 0;
}

/* Erlang's processor order: processor, node, node inside the processor, core, thread. */
static void
sct_processor_key(const struct mcfan_sct_cpu *c, struct sct_sort_item *item, uint32_t index)
{
	item->key[0] = c->processor;
	item->key[1] = c->node;
	item->key[2] = c->processor_node;
	item->key[3] = c->core;
	item->key[4] = c->thread;
	item->index = index;
}

static void
sct_logical_key(const struct mcfan_sct_cpu *c, struct sct_sort_item *item, uint32_t index)
{
	memset(item->key, 0, sizeof(item->key));
	item->key[0] = c->logical;
	item->index = index;
}

/* --- validation and construction --- */

/* Describe CPU i for a message: its entry, and the map entry it came from if parsed. */
static void
sct_describe(char *buf, size_t len, const struct mcfan_sct_cpu *cpus,
	const struct sct_span *spans, const char *text, size_t i)
{
	char cpu_text[SCT_CPU_TEXT_LEN];

	sct_cpu_text(&cpus[i], cpu_text);
	if (spans == NULL || text == NULL)
		snprintf(buf, len, "'%s'", cpu_text);
	else
		snprintf(buf, len, "'%s' (entry %zu '%.*s%s')", cpu_text, spans[i].entry,
			sct_quote_len(spans[i].len), text + spans[i].offset,
			sct_quote_cut(spans[i].len));
}

/* What is wrong with the nodes of a CPU, compared with its predecessor and the first CPU. */
enum sct_nodes_problem {
	SCT_NODES_OK,
	SCT_NODES_UNEXPECTED,           /* a node while the first CPU has none */
	SCT_NODES_SPLIT_PROCESSOR,      /* same processor, another node around it */
	SCT_NODES_MIXED_IN_PROCESSOR,   /* same processor, node around vs inside */
	SCT_NODES_BOTH,                 /* a node around and one inside */
	SCT_NODES_MISSING,              /* no node while the first CPU has one */
};

/* Room for sct_describe(): a CPU entry, an entry number and a quoted entry. */
#define SCT_DESCRIBE_LEN (SCT_CPU_TEXT_LEN + SCT_QUOTE_MAX + 48)

/*
 * Check CPU records the way Erlang verifies a topology (unique logical ids, unique
 * entities, consistent nodes, in that order) and build the map, CPUs in processor order.
 * spans and text, if not NULL, say where each CPU came from for messages.
 */
static int
sct_build(const struct mcfan_sct_cpu *cpus, size_t n, const struct sct_span *spans,
	const char *text, struct mcfan_sct_map **mapp, struct sct_err *err)
{
	char a_text[SCT_DESCRIBE_LEN];
	char b_text[SCT_DESCRIBE_LEN];
	struct sct_sort_item *items = NULL;
	struct mcfan_sct_map *map = NULL;
	uint32_t *position = NULL;
	const struct mcfan_sct_cpu *c;
	const struct mcfan_sct_cpu *p;
	enum sct_nodes_problem why;
	bool no_nodes;
	size_t i;
	int ret;

	items = malloc(n * sizeof(*items));
	position = malloc(n * sizeof(*position));
	map = calloc(1, sizeof(*map));
	if (items == NULL || position == NULL || map == NULL) {
		ret = sct_fail(err, MCFAN_SCT_ERR_NO_MEMORY, NULL);
		goto fail;
	}
	map->n = n;
	map->cpus = malloc(n * sizeof(*map->cpus));
	map->by_logical = malloc(n * sizeof(*map->by_logical));
	if (map->cpus == NULL || map->by_logical == NULL) {
		ret = sct_fail(err, MCFAN_SCT_ERR_NO_MEMORY, NULL);
		goto fail;
	}

	/* Logical ids must be unique. */
	for (i = 0; i < n; i++)
		sct_logical_key(&cpus[i], &items[i], (uint32_t)i);
	qsort(items, n, sizeof(*items), sct_sort_cmp);
	for (i = 1; i < n; i++) {
		if (items[i].key[0] == items[i - 1].key[0]) {
			sct_describe(a_text, sizeof(a_text), cpus, spans, text, items[i - 1].index);
			sct_describe(b_text, sizeof(b_text), cpus, spans, text, items[i].index);
			ret = sct_fail(err, MCFAN_SCT_ERR_LOGICAL_NOT_UNIQUE,
				": logical CPU %d is named by %s and by %s",
				(int)items[i].key[0], a_text, b_text);
			goto fail;
		}
	}
	for (i = 0; i < n; i++)
		map->by_logical[i] = items[i].index; /* original indices for now */

	/* Canonical order; two CPUs must not share node, processor, core and thread. */
	for (i = 0; i < n; i++)
		sct_processor_key(&cpus[i], &items[i], (uint32_t)i);
	qsort(items, n, sizeof(*items), sct_sort_cmp);
	for (i = 0; i < n; i++) {
		map->cpus[i] = cpus[items[i].index];
		position[items[i].index] = (uint32_t)i;
	}
	for (i = 1; i < n; i++) {
		c = &map->cpus[i];
		p = &map->cpus[i - 1];
		if (c->processor == p->processor && c->node == p->node &&
				c->processor_node == p->processor_node && c->core == p->core &&
				c->thread == p->thread) {
			sct_describe(a_text, sizeof(a_text), cpus, spans, text, items[i - 1].index);
			sct_describe(b_text, sizeof(b_text), cpus, spans, text, items[i].index);
			ret = sct_fail(err, MCFAN_SCT_ERR_ENTITIES_NOT_UNIQUE,
				": %s and %s have the same node, processor, core and thread",
				a_text, b_text);
			goto fail;
		}
	}

	/*
	 * Nodes, checked like Erlang in processor order: all CPUs have a node or none has;
	 * a processor sits in one node; after the first CPU, none declares a node both
	 * around and inside its processor.
	 */
	no_nodes = map->cpus[0].node < 0 && map->cpus[0].processor_node < 0;
	for (i = 1; i < n; i++) {
		c = &map->cpus[i];
		p = &map->cpus[i - 1];
		if (no_nodes)
			why = c->node >= 0 || c->processor_node >= 0 ? SCT_NODES_UNEXPECTED :
				SCT_NODES_OK;
		else if (c->processor == p->processor && c->node != p->node)
			why = c->node >= 0 && p->node >= 0 ? SCT_NODES_SPLIT_PROCESSOR :
				SCT_NODES_MIXED_IN_PROCESSOR;
		else if (c->node >= 0 && c->processor_node >= 0)
			why = SCT_NODES_BOTH;
		else if (c->node < 0 && c->processor_node < 0)
			why = SCT_NODES_MISSING;
		else
			why = SCT_NODES_OK;
		if (why == SCT_NODES_OK)
			continue;
		sct_describe(b_text, sizeof(b_text), cpus, spans, text, items[i].index);
		sct_describe(a_text, sizeof(a_text), cpus, spans, text,
			items[why == SCT_NODES_SPLIT_PROCESSOR ||
				why == SCT_NODES_MIXED_IN_PROCESSOR ? i - 1 : 0].index);
		switch (why) {
		case SCT_NODES_UNEXPECTED:
			ret = sct_fail(err, MCFAN_SCT_ERR_INVALID_NODES,
				": %s declares a node but %s does not", b_text, a_text);
			break;
		case SCT_NODES_SPLIT_PROCESSOR:
			ret = sct_fail(err, MCFAN_SCT_ERR_INVALID_NODES,
				": %s and %s are on one processor but on different nodes",
				a_text, b_text);
			break;
		case SCT_NODES_MIXED_IN_PROCESSOR:
			ret = sct_fail(err, MCFAN_SCT_ERR_INVALID_NODES,
				": %s and %s are on one processor but declare nodes around and "
				"inside it", a_text, b_text);
			break;
		case SCT_NODES_BOTH:
			ret = sct_fail(err, MCFAN_SCT_ERR_INVALID_NODES,
				": %s declares a node both around and inside its processor",
				b_text);
			break;
		default:
			ret = sct_fail(err, MCFAN_SCT_ERR_INVALID_NODES,
				": %s declares no node but %s does", b_text, a_text);
			break;
		}
		goto fail;
	}

	for (i = 0; i < n; i++)
		map->by_logical[i] = position[map->by_logical[i]];
	free(items);
	free(position);
	*mapp = map;
	return 0;

fail:
	free(items);
	free(position);
	mcfan_sct_free(map);
	return ret;
}

/* --- parser --- */

static bool
sct_is_letter(char ch)
{
	return ch != '\0' && strchr("LTCPNtcpn", ch) != NULL;
}

/* Length of the field starting at s: its letter and everything up to the next letter. */
static size_t
sct_field_len(const char *s)
{
	size_t len = 1;

	while (s[len] != '\0' && s[len] != SCT_ENTRY_SEP && !sct_is_letter(s[len]))
		len++;
	return len;
}

/* Length of the entry starting at s. */
static size_t
sct_entry_len(const char *s)
{
	size_t len = 0;

	while (s[len] != '\0' && s[len] != SCT_ENTRY_SEP)
		len++;
	return len;
}

static int
sct_ids_push(struct sct_parser *ps, struct sct_ids *ids, int32_t first, int32_t last)
{
	struct sct_run *runs;
	size_t cap;

	if (ids->n_runs == ids->cap_runs) {
		cap = ids->cap_runs == 0 ? 8 : ids->cap_runs * 2;
		runs = realloc(ids->runs, cap * sizeof(*runs));
		if (runs == NULL)
			return sct_fail(ps->err, MCFAN_SCT_ERR_NO_MEMORY, NULL);
		ids->runs = runs;
		ids->cap_runs = cap;
	}
	ids->runs[ids->n_runs].first = first;
	ids->runs[ids->n_runs].last = last;
	ids->n_runs++;
	ids->count += (uint64_t)(first <= last ? last - first : first - last) + 1;
	return 0;
}

/* Reset the ids of a letter to its default: one id, or undefined for nodes. */
static void
sct_ids_default(struct sct_ids *ids, int32_t value)
{
	ids->runs[0].first = value;
	ids->runs[0].last = value;
	ids->n_runs = 1;
	ids->count = 1;
	ids->given = false;
	ids->lower = false;
	ids->field = NULL;
	ids->field_len = 0;
}

/*
 * Read a decimal id at *s. Returns false if there is no digit or the value exceeds
 * MCFAN_SCT_MAX_ID; *s then is left anywhere.
 */
static bool
sct_read_id(const char **s, int32_t *value)
{
	const char *c = *s;
	uint32_t v = 0;

	if (!isdigit((unsigned char)*c))
		return false;
	while (isdigit((unsigned char)*c)) {
		if (v <= MCFAN_SCT_MAX_ID)
			v = v * 10 + (uint32_t)(*c - '0');
		c++;
	}
	if (v > MCFAN_SCT_MAX_ID)
		return false;
	*value = (int32_t)v;
	*s = c;
	return true;
}

/* Parse `<ids>` at *s for one letter of entry `entry`. */
static int
sct_parse_ids(struct sct_parser *ps, struct sct_ids *ids, const char **s, size_t entry_no,
	const char *entry, size_t entry_len)
{
	const char *c = *s;
	int32_t first;
	int32_t last;
	int ret;

	ids->n_runs = 0;
	ids->count = 0;
	for (;;) {
		if (!sct_read_id(&c, &first))
			return sct_fail(ps->err, MCFAN_SCT_ERR_INVALID_ID,
				": '%.*s%s' in entry %zu '%.*s%s' (ids are 0..%d)",
				sct_quote_len(ids->field_len), ids->field,
				sct_quote_cut(ids->field_len), entry_no, sct_quote_len(entry_len),
				entry, sct_quote_cut(entry_len), MCFAN_SCT_MAX_ID);
		last = first;
		if (*c == SCT_RANGE_SEP) {
			c++;
			if (!sct_read_id(&c, &last))
				return sct_fail(ps->err, MCFAN_SCT_ERR_INVALID_ID_RANGE,
					": '%.*s%s' in entry %zu '%.*s%s' (a range is a-b, "
					"ids 0..%d)", sct_quote_len(ids->field_len), ids->field,
					sct_quote_cut(ids->field_len), entry_no,
					sct_quote_len(entry_len), entry, sct_quote_cut(entry_len),
					MCFAN_SCT_MAX_ID);
		}
		ret = sct_ids_push(ps, ids, first, last);
		if (ret < 0)
			return ret;
		if (*c != SCT_LIST_SEP)
			break;
		c++;
	}
	*s = c;
	return 0;
}

/* Level named by the letter at s, given the level of the previous letter. */
static int
sct_letter_level(const char *s, int prev_level)
{
	const char *c;

	switch (*s) {
	case 'L':
		return SCT_LEVEL_LOGICAL;
	case 'T':
	case 't':
		return SCT_LEVEL_THREAD;
	case 'C':
	case 'c':
		return SCT_LEVEL_CORE;
	case 'P':
	case 'p':
		return SCT_LEVEL_PROCESSOR;
	case 'N':
	case 'n':
		/*
		 * After P it is the node around the processor. Before P it is a node inside
		 * the processor if a P follows anywhere in the entry, as Erlang decides.
		 */
		if (prev_level <= SCT_LEVEL_PROCESSOR)
			return SCT_LEVEL_NODE;
		for (c = s + 1; *c != '\0' && *c != SCT_ENTRY_SEP; c++) {
			if (*c == 'P' || *c == 'p')
				return SCT_LEVEL_PROCESSOR_NODE;
		}
		return SCT_LEVEL_NODE;
	default:
		return -1;
	}
}

/* Next id of a letter for the CPUs of an entry: a single id applies to all. */
struct sct_iter {
	const struct sct_ids *ids;
	size_t run;
	int32_t next;
};

static void
sct_iter_init(struct sct_iter *it, const struct sct_ids *ids)
{
	it->ids = ids;
	it->run = 0;
	it->next = ids->runs[0].first;
}

static int32_t
sct_iter_next(struct sct_iter *it)
{
	const struct sct_run *r;
	int32_t v = it->next;

	if (it->ids->count == 1)
		return v;
	r = &it->ids->runs[it->run];
	if (v == r->last) {
		it->run++;
		if (it->run < it->ids->n_runs)
			it->next = it->ids->runs[it->run].first;
	} else {
		it->next = r->first < r->last ? v + 1 : v - 1;
	}
	return v;
}

/* Add the CPUs of a parsed entry. */
static int
sct_add_entry_cpus(struct sct_parser *ps, size_t entry_no, size_t offset, size_t len)
{
	struct sct_iter it[SCT_LEVEL_COUNT];
	struct mcfan_sct_cpu *cpus;
	struct sct_span *spans;
	struct mcfan_sct_cpu *c;
	uint64_t count = ps->ids[SCT_LEVEL_LOGICAL].count;
	uint32_t desc = 0;
	size_t cap;
	uint64_t r;
	int l;

	if (ps->overflow || ps->n_cpus + count > MCFAN_SCT_MAX_CPUS) {
		/* Pigeonhole: logical ids must repeat; keep parsing for syntax errors. */
		ps->overflow = true;
		return 0;
	}
	if (ps->n_cpus + count > ps->cap_cpus) {
		cap = ps->cap_cpus == 0 ? 64 : ps->cap_cpus;
		while (cap < ps->n_cpus + count)
			cap *= 2;
		cpus = realloc(ps->cpus, cap * sizeof(*cpus));
		if (cpus == NULL)
			return sct_fail(ps->err, MCFAN_SCT_ERR_NO_MEMORY, NULL);
		ps->cpus = cpus;
		spans = realloc(ps->spans, cap * sizeof(*spans));
		if (spans == NULL)
			return sct_fail(ps->err, MCFAN_SCT_ERR_NO_MEMORY, NULL);
		ps->spans = spans;
		ps->cap_cpus = cap;
	}
	if (ps->ids[SCT_LEVEL_THREAD].lower)
		desc |= MCFAN_SCT_DESC_THREAD;
	if (ps->ids[SCT_LEVEL_CORE].lower)
		desc |= MCFAN_SCT_DESC_CORE;
	if (ps->ids[SCT_LEVEL_PROCESSOR].lower)
		desc |= MCFAN_SCT_DESC_PROCESSOR;
	if (ps->ids[SCT_LEVEL_PROCESSOR_NODE].lower)
		desc |= MCFAN_SCT_DESC_PROCESSOR_NODE;
	if (ps->ids[SCT_LEVEL_NODE].lower)
		desc |= MCFAN_SCT_DESC_NODE;
	for (l = 0; l < SCT_LEVEL_COUNT; l++)
		sct_iter_init(&it[l], &ps->ids[l]);
	for (r = 0; r < count; r++) {
		c = &ps->cpus[ps->n_cpus];
		c->logical = sct_iter_next(&it[SCT_LEVEL_LOGICAL]);
		c->thread = sct_iter_next(&it[SCT_LEVEL_THREAD]);
		c->core = sct_iter_next(&it[SCT_LEVEL_CORE]);
		c->processor_node = sct_iter_next(&it[SCT_LEVEL_PROCESSOR_NODE]);
		c->processor = sct_iter_next(&it[SCT_LEVEL_PROCESSOR]);
		c->node = sct_iter_next(&it[SCT_LEVEL_NODE]);
		c->descriptive = desc;
		ps->spans[ps->n_cpus].entry = entry_no;
		ps->spans[ps->n_cpus].offset = offset;
		ps->spans[ps->n_cpus].len = len;
		ps->n_cpus++;
	}
	return 0;
}

/* Parse the entry at *s (entry number entry_no) and add its CPUs. */
static int
sct_parse_entry(struct sct_parser *ps, const char **s, size_t entry_no)
{
	const char *entry = *s;
	size_t entry_len = sct_entry_len(entry);
	const struct sct_ids *prev = NULL;
	const struct sct_ids *lids;
	const char *c = entry;
	struct sct_ids *ids;
	int level = SCT_LEVEL_COUNT;
	int next;
	int ret;
	int l;

	sct_ids_default(&ps->ids[SCT_LEVEL_LOGICAL], 0);
	ps->ids[SCT_LEVEL_LOGICAL].count = 0;
	sct_ids_default(&ps->ids[SCT_LEVEL_THREAD], 0);
	sct_ids_default(&ps->ids[SCT_LEVEL_CORE], 0);
	sct_ids_default(&ps->ids[SCT_LEVEL_PROCESSOR_NODE], MCFAN_SCT_ID_UNDEFINED);
	sct_ids_default(&ps->ids[SCT_LEVEL_PROCESSOR], 0);
	sct_ids_default(&ps->ids[SCT_LEVEL_NODE], MCFAN_SCT_ID_UNDEFINED);

	while (*c != SCT_ENTRY_SEP && *c != '\0') {
		next = sct_letter_level(c, level);
		if (next < 0)
			return sct_fail(ps->err, MCFAN_SCT_ERR_INVALID_ID_TYPE,
				": '%c' in entry %zu '%.*s%s' (letters are L, T, C, P, N; lower "
				"case t, c, p, n for descriptive ids)", *c, entry_no,
				sct_quote_len(entry_len), entry, sct_quote_cut(entry_len));
		if (next >= level)
			return sct_fail(ps->err, MCFAN_SCT_ERR_INVALID_HIERARCHY,
				": '%.*s%s' after '%.*s%s' in entry %zu '%.*s%s' (order is L T C P N "
				"or L T C N P, each letter once)",
				sct_quote_len(sct_field_len(c)), c, sct_quote_cut(sct_field_len(c)),
				sct_quote_len(prev->field_len), prev->field,
				sct_quote_cut(prev->field_len), entry_no, sct_quote_len(entry_len),
				entry, sct_quote_cut(entry_len));
		level = next;
		ids = &ps->ids[level];
		ids->given = true;
		ids->lower = islower((unsigned char)*c) != 0;
		ids->field = c;
		ids->field_len = sct_field_len(c);
		c++;
		ret = sct_parse_ids(ps, ids, &c, entry_no, entry, entry_len);
		if (ret < 0)
			return ret;
		prev = ids;
	}

	lids = &ps->ids[SCT_LEVEL_LOGICAL];
	if (!lids->given)
		return sct_fail(ps->err, MCFAN_SCT_ERR_MISSING_LOGICAL,
			": entry %zu '%.*s%s' has no L", entry_no, sct_quote_len(entry_len), entry,
			sct_quote_cut(entry_len));
	if (*c == SCT_ENTRY_SEP)
		c++;

	/* Lists must match L's length; Erlang checks T, C, inner N, P, outer N in turn. */
	for (l = SCT_LEVEL_THREAD; l >= SCT_LEVEL_NODE; l--) {
		ids = &ps->ids[l];
		if (ids->count != 1 && ids->count != lids->count)
			return sct_fail(ps->err, MCFAN_SCT_ERR_INVALID_ID_RANGE,
				": '%.*s%s' names %" PRIu64 " ids but '%.*s%s' names %" PRIu64
				", in entry %zu '%.*s%s' (a list must be as long as L's, or a "
				"single id)",
				sct_quote_len(ids->field_len), ids->field,
				sct_quote_cut(ids->field_len), (uint64_t)ids->count,
				sct_quote_len(lids->field_len), lids->field,
				sct_quote_cut(lids->field_len), (uint64_t)lids->count,
				entry_no, sct_quote_len(entry_len), entry, sct_quote_cut(entry_len));
	}

	ret = sct_add_entry_cpus(ps, entry_no, (size_t)(entry - ps->text), entry_len);
	if (ret < 0)
		return ret;
	*s = c;
	return 0;
}

int
mcfan_sct_parse(const char *text, struct mcfan_sct_map **mapp, enum mcfan_sct_err_kind *kind,
	char *err_buf, size_t err_len)
{
	struct sct_parser ps;
	struct sct_err err;
	const char *s;
	size_t entry_no;
	int ret;
	int l;

	sct_err_init(&err, err_buf, err_len);
	memset(&ps, 0, sizeof(ps));
	ps.text = text;
	ps.err = &err;
	if (text == NULL || mapp == NULL) {
		ret = sct_fail(&err, MCFAN_SCT_ERR_ARGUMENT, ": NULL map text or result pointer");
		goto out;
	}
	if (*text == '\0') {
		ret = sct_fail(&err, MCFAN_SCT_ERR_EMPTY, ": the map text is empty");
		goto out;
	}
	for (l = 0; l < SCT_LEVEL_COUNT; l++) {
		ret = sct_ids_push(&ps, &ps.ids[l], 0, 0);
		if (ret < 0)
			goto out;
	}

	s = text;
	entry_no = 0;
	do {
		entry_no++;
		ret = sct_parse_entry(&ps, &s, entry_no);
		if (ret < 0)
			goto out;
	} while (*s != '\0');

	if (ps.overflow) {
		ret = sct_fail(&err, MCFAN_SCT_ERR_LOGICAL_NOT_UNIQUE,
			": the map names more than %d CPUs, so some logical id repeats",
			MCFAN_SCT_MAX_CPUS);
		goto out;
	}
	ret = sct_build(ps.cpus, ps.n_cpus, ps.spans, text, mapp, &err);

out:
	for (l = 0; l < SCT_LEVEL_COUNT; l++)
		free(ps.ids[l].runs);
	free(ps.cpus);
	free(ps.spans);
	if (kind != NULL)
		*kind = err.kind;
	return ret;
}

/* Whether an id field of a record is in range; nodes may be undefined. */
static bool
sct_id_ok(int32_t id, bool may_be_undefined)
{
	if (may_be_undefined && id == MCFAN_SCT_ID_UNDEFINED)
		return true;
	return id >= 0 && id <= MCFAN_SCT_MAX_ID;
}

int
mcfan_sct_from_cpus(const struct mcfan_sct_cpu *cpus, size_t n, struct mcfan_sct_map **mapp,
	enum mcfan_sct_err_kind *kind, char *err_buf, size_t err_len)
{
	const struct mcfan_sct_cpu *c;
	struct sct_err err;
	size_t i;
	int ret;

	sct_err_init(&err, err_buf, err_len);
	if (cpus == NULL || mapp == NULL) {
		ret = sct_fail(&err, MCFAN_SCT_ERR_ARGUMENT, ": NULL records or result pointer");
		goto out;
	}
	if (n == 0) {
		ret = sct_fail(&err, MCFAN_SCT_ERR_EMPTY, ": no CPU records");
		goto out;
	}
	if (n > MCFAN_SCT_MAX_CPUS) {
		ret = sct_fail(&err, MCFAN_SCT_ERR_LOGICAL_NOT_UNIQUE,
			": %zu records but only %d logical ids exist", n, MCFAN_SCT_MAX_CPUS);
		goto out;
	}
	for (i = 0; i < n; i++) {
		c = &cpus[i];
		if (!sct_id_ok(c->logical, false) || !sct_id_ok(c->thread, false) ||
				!sct_id_ok(c->core, false) || !sct_id_ok(c->processor, false) ||
				!sct_id_ok(c->node, true) || !sct_id_ok(c->processor_node, true)) {
			ret = sct_fail(&err, MCFAN_SCT_ERR_INVALID_ID,
				": record %zu {logical %d, thread %d, core %d, processor %d, "
				"node %d, processor node %d} (ids are 0..%d, nodes may be %d)",
				i, (int)c->logical, (int)c->thread, (int)c->core,
				(int)c->processor, (int)c->node, (int)c->processor_node,
				MCFAN_SCT_MAX_ID, MCFAN_SCT_ID_UNDEFINED);
			goto out;
		}
	}
	ret = sct_build(cpus, n, NULL, NULL, mapp, &err);

out:
	if (kind != NULL)
		*kind = err.kind;
	return ret;
}

void
mcfan_sct_free(struct mcfan_sct_map *map)
{
	if (map == NULL)
		return;
	free(map->cpus);
	free(map->by_logical);
	free(map);
}

size_t
mcfan_sct_count(const struct mcfan_sct_map *map)
{
	return map == NULL ? 0 : map->n;
}

const struct mcfan_sct_cpu *
mcfan_sct_cpu_at(const struct mcfan_sct_map *map, size_t index)
{
	if (map == NULL || index >= map->n)
		return NULL;
	return &map->cpus[index];
}

const struct mcfan_sct_cpu *
mcfan_sct_lookup(const struct mcfan_sct_map *map, unsigned int logical)
{
	size_t lo;
	size_t hi;
	size_t mid;
	const struct mcfan_sct_cpu *c;

	if (map == NULL || logical > MCFAN_SCT_MAX_ID)
		return NULL;
	lo = 0;
	hi = map->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = &map->cpus[map->by_logical[mid]];
		if ((unsigned int)c->logical == logical)
			return c;
		if ((unsigned int)c->logical < logical)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int32_t
mcfan_sct_cpu_numa_node(const struct mcfan_sct_cpu *cpu)
{
	if (cpu == NULL)
		return MCFAN_SCT_ID_UNDEFINED;
	if (cpu->processor_node >= 0)
		return cpu->processor_node;
	return cpu->node;
}

int
mcfan_sct_equal(const struct mcfan_sct_map *a, const struct mcfan_sct_map *b)
{
	const struct mcfan_sct_cpu *x;
	const struct mcfan_sct_cpu *y;
	size_t i;

	if (a == NULL || b == NULL || a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		x = &a->cpus[i];
		y = &b->cpus[i];
		if (x->logical != y->logical || x->thread != y->thread || x->core != y->core ||
				x->processor != y->processor || x->node != y->node ||
				x->processor_node != y->processor_node ||
				x->descriptive != y->descriptive)
			return 0;
	}
	return 1;
}

/* --- formatting --- */

/* Step of an id from one CPU to the next within a compact entry: -1, 0, +1, or invalid. */
static bool
sct_step_ok(int32_t from, int32_t to, int32_t *step, bool first_pair, bool may_be_undefined)
{
	int32_t d = to - from;

	if (may_be_undefined && (from < 0) != (to < 0))
		return false;
	if (first_pair) {
		if (d < -1 || d > 1)
			return false;
		*step = d;
		return true;
	}
	return d == *step;
}

/*
 * Merge CPUs (ascending logical order) into entries: a run of consecutive logical ids
 * whose other ids each stay constant or step by one in one direction, and whose
 * descriptive marks are equal, prints as one entry with single ids and ranges.
 */
static void
sct_format_entries(const struct mcfan_sct_map *map, bool compact, struct sct_out *o)
{
	const struct mcfan_sct_cpu *first;
	const struct mcfan_sct_cpu *prev;
	const struct mcfan_sct_cpu *c;
	int32_t step[SCT_LEVEL_COUNT] = { 0 };
	bool pair;
	size_t i;

	i = 0;
	while (i < map->n) {
		first = &map->cpus[map->by_logical[i]];
		prev = first;
		i++;
		while (compact && i < map->n) {
			c = &map->cpus[map->by_logical[i]];
			pair = prev == first;
			if (c->descriptive != first->descriptive ||
					!sct_step_ok(prev->logical, c->logical,
						&step[SCT_LEVEL_LOGICAL], pair, false) ||
					step[SCT_LEVEL_LOGICAL] != 1 ||
					!sct_step_ok(prev->thread, c->thread,
						&step[SCT_LEVEL_THREAD], pair, false) ||
					!sct_step_ok(prev->core, c->core,
						&step[SCT_LEVEL_CORE], pair, false) ||
					!sct_step_ok(prev->processor_node, c->processor_node,
						&step[SCT_LEVEL_PROCESSOR_NODE], pair, true) ||
					!sct_step_ok(prev->processor, c->processor,
						&step[SCT_LEVEL_PROCESSOR], pair, false) ||
					!sct_step_ok(prev->node, c->node,
						&step[SCT_LEVEL_NODE], pair, true))
				break;
			prev = c;
			i++;
		}
		if (first != &map->cpus[map->by_logical[0]])
			sct_out_printf(o, "%c", SCT_ENTRY_SEP);
		sct_out_entry(o, first, prev);
	}
}

int
mcfan_sct_format(const struct mcfan_sct_map *map, unsigned int flags, char *buf, size_t len)
{
	struct sct_out o;

	if (map == NULL || (buf == NULL && len > 0) || (flags & ~MCFAN_SCT_FORMAT_COMPACT) != 0)
		return -EINVAL;
	sct_out_init(&o, buf, len);
	sct_format_entries(map, (flags & MCFAN_SCT_FORMAT_COMPACT) != 0, &o);
	return sct_out_result(&o);
}

/* Levels of the tree, outermost first. */
enum sct_tree_level {
	SCT_TREE_NODE,
	SCT_TREE_PROCESSOR,
	SCT_TREE_PROCESSOR_NODE,
	SCT_TREE_CORE,
	SCT_TREE_THREAD,
	SCT_TREE_LEVELS,
};

static const char *const sct_tree_label[SCT_TREE_LEVELS] = {
	[SCT_TREE_NODE] = "node",
	[SCT_TREE_PROCESSOR] = "processor",
	[SCT_TREE_PROCESSOR_NODE] = "node",
	[SCT_TREE_CORE] = "core",
	[SCT_TREE_THREAD] = "thread",
};

/* Tree level values of a CPU; -1 for a level it does not have. */
static void
sct_tree_values(const struct mcfan_sct_cpu *c, int32_t *v)
{
	v[SCT_TREE_NODE] = c->node;
	v[SCT_TREE_PROCESSOR] = c->processor;
	v[SCT_TREE_PROCESSOR_NODE] = c->processor_node;
	v[SCT_TREE_CORE] = c->core;
	v[SCT_TREE_THREAD] = c->thread;
}

int
mcfan_sct_format_tree(const struct mcfan_sct_map *map, char *buf, size_t len)
{
	struct sct_sort_item *items;
	int32_t prev[SCT_TREE_LEVELS];
	int32_t v[SCT_TREE_LEVELS];
	const struct mcfan_sct_cpu *c;
	struct sct_out o;
	bool changed;
	int depth;
	size_t i;
	int l;

	if (map == NULL || (buf == NULL && len > 0))
		return -EINVAL;
	items = malloc(map->n * sizeof(*items));
	if (items == NULL)
		return -ENOMEM;
	/* Node first: a processor lies within one node, so this regroups processors by node. */
	for (i = 0; i < map->n; i++) {
		c = &map->cpus[i];
		items[i].key[0] = c->node;
		items[i].key[1] = c->processor;
		items[i].key[2] = c->processor_node;
		items[i].key[3] = c->core;
		items[i].key[4] = c->thread;
		items[i].index = (uint32_t)i;
	}
	qsort(items, map->n, sizeof(*items), sct_sort_cmp);

	sct_out_init(&o, buf, len);
	for (i = 0; i < map->n; i++) {
		c = &map->cpus[items[i].index];
		sct_tree_values(c, v);
		changed = i == 0;
		depth = 0;
		for (l = 0; l < SCT_TREE_LEVELS; l++) {
			if (!changed && v[l] != prev[l])
				changed = true;
			prev[l] = v[l];
			if (v[l] < 0)
				continue;
			if (changed && l == SCT_TREE_THREAD)
				sct_out_printf(&o, "%*s%s %d: cpu %d\n", depth * 2, "",
					sct_tree_label[l], (int)v[l], (int)c->logical);
			else if (changed)
				sct_out_printf(&o, "%*s%s %d\n", depth * 2, "", sct_tree_label[l],
					(int)v[l]);
			depth++;
		}
	}
	free(items);
	return sct_out_result(&o);
}

const char *
mcfan_sct_err_kind_str(enum mcfan_sct_err_kind kind)
{
	if ((unsigned int)kind >= sizeof(sct_err_names) / sizeof(sct_err_names[0]))
		return "unknown error";
	return sct_err_names[kind];
}

/* --- bind orders --- */

int
mcfan_sct_bind_parse(const char *name, enum mcfan_sct_bind *bind)
{
	int b;

	if (name == NULL || bind == NULL)
		return -EINVAL;
	for (b = 0; b < MCFAN_SCT_BIND_COUNT; b++) {
		if (strcmp(name, sct_bind_short[b]) == 0 || strcmp(name, sct_bind_long[b]) == 0) {
			*bind = (enum mcfan_sct_bind)b;
			return 0;
		}
	}
	return -EINVAL;
}

const char *
mcfan_sct_bind_name(enum mcfan_sct_bind bind)
{
	if ((unsigned int)bind >= MCFAN_SCT_BIND_COUNT)
		return NULL;
	return sct_bind_short[bind];
}

const char *
mcfan_sct_bind_erlang_name(enum mcfan_sct_bind bind)
{
	if ((unsigned int)bind >= MCFAN_SCT_BIND_COUNT)
		return NULL;
	return sct_bind_long[bind];
}

/* A dense counter: the last real id seen at a level and the dense id given to it. */
struct sct_counter {
	int32_t last;
	int32_t dense;
};

static void
sct_counter_reset(struct sct_counter *k)
{
	k->last = -1;
	k->dense = -1;
}

/*
 * Renumber the ids of CPUs (in processor order) densely, the way Erlang does before it
 * sorts for a bind order. Walking the CPUs, a level gets the next dense id whenever its
 * real id differs from the previous CPU's, and every level below restarts from 0: threads
 * count within a core, cores within a processor or node inside it, processors within a
 * node. Node ids count over the whole map, so a node met again after another one gets a
 * new id. With fold_nodes (the "no node" bind types) a node inside a processor takes the
 * node id itself, and the previous inner node is remembered across processors.
 */
static void
sct_renumber(int32_t (*f)[SCT_F_NONE], size_t n, bool fold_nodes)
{
	struct sct_counter node;
	struct sct_counter processor;
	struct sct_counter inner;
	struct sct_counter core;
	struct sct_counter thread;
	int32_t inner_as_node = -1;
	int32_t *x;
	size_t i;

	sct_counter_reset(&node);
	sct_counter_reset(&processor);
	sct_counter_reset(&inner);
	sct_counter_reset(&core);
	sct_counter_reset(&thread);

	for (i = 0; i < n; i++) {
		x = f[i];

		/* Node around the processor (folded types only look at defined ones). */
		if (!fold_nodes || x[SCT_F_NODE] >= 0) {
			if (x[SCT_F_NODE] == node.last) {
				x[SCT_F_NODE] = node.dense;
			} else {
				node.last = x[SCT_F_NODE];
				sct_counter_reset(&processor);
				if (!fold_nodes)
					sct_counter_reset(&inner);
				sct_counter_reset(&core);
				sct_counter_reset(&thread);
				if (x[SCT_F_NODE] >= 0)
					x[SCT_F_NODE] = ++node.dense;
			}
		}

		/* Processor. */
		if (x[SCT_F_PROCESSOR] == processor.last) {
			x[SCT_F_PROCESSOR] = processor.dense;
		} else {
			processor.last = x[SCT_F_PROCESSOR];
			if (!fold_nodes) {
				sct_counter_reset(&inner);
				inner_as_node = -1;
			}
			sct_counter_reset(&core);
			sct_counter_reset(&thread);
			x[SCT_F_PROCESSOR] = ++processor.dense;
		}

		/* Node inside the processor. */
		if (fold_nodes && x[SCT_F_PROCESSOR_NODE] < 0) {
			inner.last = -1;
		} else if (x[SCT_F_PROCESSOR_NODE] == inner.last) {
			if (fold_nodes) {
				x[SCT_F_NODE] = node.dense;
				x[SCT_F_PROCESSOR_NODE] = node.dense;
			} else {
				if (inner_as_node >= 0)
					x[SCT_F_NODE] = inner_as_node;
				x[SCT_F_PROCESSOR_NODE] = inner.dense;
			}
		} else {
			inner.last = x[SCT_F_PROCESSOR_NODE];
			sct_counter_reset(&core);
			sct_counter_reset(&thread);
			if (fold_nodes) {
				x[SCT_F_NODE] = ++node.dense;
				x[SCT_F_PROCESSOR_NODE] = node.dense;
			} else {
				inner_as_node = ++node.dense;
				x[SCT_F_NODE] = inner_as_node;
				x[SCT_F_PROCESSOR_NODE] = ++inner.dense;
			}
		}
		if (!fold_nodes && x[SCT_F_PROCESSOR_NODE] < 0)
			x[SCT_F_PROCESSOR_NODE] = 0;

		/* Core. */
		if (x[SCT_F_CORE] == core.last) {
			x[SCT_F_CORE] = core.dense;
		} else {
			core.last = x[SCT_F_CORE];
			sct_counter_reset(&thread);
			x[SCT_F_CORE] = ++core.dense;
		}

		/* Thread. */
		if (x[SCT_F_THREAD] == thread.last) {
			x[SCT_F_THREAD] = thread.dense;
		} else {
			thread.last = x[SCT_F_THREAD];
			x[SCT_F_THREAD] = ++thread.dense;
		}
	}
}

int
mcfan_sct_bind_order(const struct mcfan_sct_map *map, enum mcfan_sct_bind bind,
	unsigned int *cpus, size_t n)
{
	int32_t (*fields)[SCT_F_NONE];
	struct sct_sort_item *items;
	const struct mcfan_sct_cpu *c;
	enum sct_field key;
	size_t i;
	int k;

	if (map == NULL || (unsigned int)bind >= MCFAN_SCT_BIND_COUNT || (cpus == NULL && n > 0))
		return -EINVAL;
	if (cpus == NULL)
		return (int)map->n;
	if (n < map->n)
		return -ENOSPC;

	if (bind == MCFAN_SCT_BIND_UNBOUND) {
		for (i = 0; i < map->n; i++)
			cpus[i] = (unsigned int)map->cpus[map->by_logical[i]].logical;
		return (int)map->n;
	}

	fields = malloc(map->n * sizeof(*fields));
	items = malloc(map->n * sizeof(*items));
	if (fields == NULL || items == NULL) {
		free(fields);
		free(items);
		return -ENOMEM;
	}
	for (i = 0; i < map->n; i++) {
		c = &map->cpus[i];
		fields[i][SCT_F_NODE] = c->node;
		fields[i][SCT_F_PROCESSOR] = c->processor;
		fields[i][SCT_F_PROCESSOR_NODE] = c->processor_node;
		fields[i][SCT_F_CORE] = c->core;
		fields[i][SCT_F_THREAD] = c->thread;
	}
	sct_renumber(fields, map->n, sct_bind_folds_nodes[bind]);
	for (i = 0; i < map->n; i++) {
		for (k = 0; k < SCT_SORT_KEYS; k++) {
			key = sct_bind_keys[bind][k];
			items[i].key[k] = key == SCT_F_NONE ? 0 : fields[i][key];
		}
		items[i].index = (uint32_t)i;
	}
	qsort(items, map->n, sizeof(*items), sct_sort_cmp);
	for (i = 0; i < map->n; i++)
		cpus[i] = (unsigned int)map->cpus[items[i].index].logical;
	free(fields);
	free(items);
	return (int)map->n;
}
