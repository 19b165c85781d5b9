/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_SCT_H
#define MCFAN_SCT_H

/**
 * @file
 * CPU topology maps in Erlang's `+sct` syntax and Erlang's scheduler bind orders.
 *
 * A map lists logical CPUs with their hardware thread, core, processor (socket) and NUMA
 * node, for example `L0-3T0,1,0,1C0,0,1,1P0N0`. The parser accepts exactly the maps that
 * Erlang's `erl +sct` accepts and reports the same error kind for the others. A bind type
 * (Erlang's `+sbt`) turns a map into the order in which CPUs are handed out; the order
 * equals what Erlang's `fake_scheduler_bindings` returns for the same map.
 *
 * Everything here is pure C: no EAL, no global state, no I/O. A map is immutable once built
 * and may be shared read-only between threads.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest id at any level; Erlang's ERTS_MAX_CPU_TOPOLOGY_ID (erl_cpu_topology.c). */
#define MCFAN_SCT_MAX_ID 65535

/** Most CPUs a valid map can hold: one per logical id 0..MCFAN_SCT_MAX_ID. */
#define MCFAN_SCT_MAX_CPUS (MCFAN_SCT_MAX_ID + 1)

/** Value of mcfan_sct_cpu.node and .processor_node when the map declares no such node. */
#define MCFAN_SCT_ID_UNDEFINED (-1)

/** mcfan_sct_cpu.descriptive bit: the thread id was written in lower case (`t`). */
#define MCFAN_SCT_DESC_THREAD (1u << 0)
/** mcfan_sct_cpu.descriptive bit: the core id was written in lower case (`c`). */
#define MCFAN_SCT_DESC_CORE (1u << 1)
/** mcfan_sct_cpu.descriptive bit: the processor id was written in lower case (`p`). */
#define MCFAN_SCT_DESC_PROCESSOR (1u << 2)
/** mcfan_sct_cpu.descriptive bit: the node inside the processor was written `n`. */
#define MCFAN_SCT_DESC_PROCESSOR_NODE (1u << 3)
/** mcfan_sct_cpu.descriptive bit: the node around the processor was written `n`. */
#define MCFAN_SCT_DESC_NODE (1u << 4)

/** mcfan_sct_format() flag: merge runs of CPUs into ranged entries (`L0-5T0C0-5P0N0`). */
#define MCFAN_SCT_FORMAT_COMPACT (1u << 0)

/**
 * One logical CPU of a map.
 *
 * Ids are the ones written in the map (or read from the host), 0..MCFAN_SCT_MAX_ID.
 * A map declares NUMA nodes either around processors (`...P0N1`, field node) or inside
 * them (`...N1P0`, field processor_node); the other field is MCFAN_SCT_ID_UNDEFINED.
 * Use mcfan_sct_cpu_numa_node() to get the node whichever way it was declared.
 */
struct mcfan_sct_cpu {
	int32_t logical;        /**< Logical CPU id (the OS CPU number), `L`. */
	int32_t thread;         /**< Hardware thread within the core, `T`; 0 if omitted. */
	int32_t core;           /**< Core within the processor, `C`; 0 if omitted. */
	int32_t processor;      /**< Processor (socket), `P`; 0 if omitted. */
	int32_t node;           /**< NUMA node around the processor (`N` after `P`), or -1. */
	int32_t processor_node; /**< NUMA node inside the processor (`N` before `P`), or -1. */
	uint32_t descriptive;   /**< MCFAN_SCT_DESC_* bits: levels written in lower case. */
};

/** Why a map was refused; mirrors the reasons `erl +sct` prints. */
enum mcfan_sct_err_kind {
	MCFAN_SCT_ERR_NONE = 0,               /**< No error. */
	MCFAN_SCT_ERR_INVALID_ID,             /**< Not a number, or above MCFAN_SCT_MAX_ID. */
	MCFAN_SCT_ERR_INVALID_ID_RANGE,       /**< Bad range end, or id lists of unequal length. */
	MCFAN_SCT_ERR_INVALID_HIERARCHY,      /**< Letters out of order or repeated. */
	MCFAN_SCT_ERR_INVALID_ID_TYPE,        /**< A character that is not L, T, C, P or N. */
	MCFAN_SCT_ERR_INVALID_NODES,          /**< Nodes declared inconsistently. */
	MCFAN_SCT_ERR_MISSING_LOGICAL,        /**< An entry without `L`. */
	MCFAN_SCT_ERR_LOGICAL_NOT_UNIQUE,     /**< The same logical id twice. */
	MCFAN_SCT_ERR_ENTITIES_NOT_UNIQUE,    /**< Two CPUs with the same N, P, C and T. */
	MCFAN_SCT_ERR_EMPTY,                  /**< The map text is empty. */
	MCFAN_SCT_ERR_ARGUMENT,               /**< A NULL or out-of-range argument. */
	MCFAN_SCT_ERR_NO_MEMORY,              /**< Memory allocation failed. */
};

/** Bind types: Erlang's `+sbt` values, in the order Erlang documents them. */
enum mcfan_sct_bind {
	MCFAN_SCT_BIND_UNBOUND = 0,                     /**< `u`: no binding. */
	MCFAN_SCT_BIND_NO_SPREAD,                       /**< `ns`: no_spread. */
	MCFAN_SCT_BIND_THREAD_SPREAD,                   /**< `ts`: thread_spread. */
	MCFAN_SCT_BIND_PROCESSOR_SPREAD,                /**< `ps`: processor_spread. */
	MCFAN_SCT_BIND_SPREAD,                          /**< `s`: spread. */
	MCFAN_SCT_BIND_NO_NODE_THREAD_SPREAD,           /**< `nnts`: no_node_thread_spread. */
	MCFAN_SCT_BIND_NO_NODE_PROCESSOR_SPREAD,        /**< `nnps`: no_node_processor_spread. */
	MCFAN_SCT_BIND_THREAD_NO_NODE_PROCESSOR_SPREAD, /**< `tnnps`. */
	MCFAN_SCT_BIND_DEFAULT_BIND,                    /**< `db`: default_bind (= tnnps). */
	MCFAN_SCT_BIND_COUNT                            /**< Number of bind types. */
};

/** An immutable, validated CPU topology map; opaque. */
struct mcfan_sct_map;

/**
 * Parse a map written in Erlang's `+sct` syntax.
 *
 * Entries are separated by `:`; each is `L<ids>` followed by any of `T<ids>`, `C<ids>`,
 * `P<ids>`, `N<ids>` in the order L T C P N, or L T C N P for a node inside a processor.
 * `<ids>` is an id, a range `a-b` (either direction) or a comma list of those; a list
 * field must have as many ids as `L`, a single id applies to every CPU of the entry.
 * Omitted T, C and P are 0; an omitted N leaves the node undefined. Lower-case t, c, p, n
 * mark descriptive ids; they are kept (see mcfan_sct_cpu.descriptive) but mean the same.
 * The accepted language and the error kind of every refused text equal Erlang's.
 *
 * @param text
 *   NUL-terminated map text, no white space.
 * @param mapp
 *   On success receives the new map, to be released with mcfan_sct_free().
 * @param kind
 *   If not NULL, receives the error kind, MCFAN_SCT_ERR_NONE on success.
 * @param err
 *   If not NULL and err_len > 0, receives a NUL-terminated message naming the error kind
 *   and quoting the offending part of the text (truncated to err_len - 1 characters).
 * @param err_len
 *   Size of err in bytes.
 * @return
 *   0 on success; -EINVAL if text or mapp is NULL or the text is not a valid map;
 *   -ENOMEM if memory ran out.
 */
int
mcfan_sct_parse(const char *text, struct mcfan_sct_map **mapp, enum mcfan_sct_err_kind *kind,
	char *err, size_t err_len);

/**
 * Build a map from CPU records, for example ones read from the host.
 *
 * The records are checked exactly like a parsed map: ids 0..MCFAN_SCT_MAX_ID (nodes may
 * also be MCFAN_SCT_ID_UNDEFINED), unique logical ids, unique entities, consistent nodes.
 *
 * @param cpus
 *   Array of n records, in any order; copied.
 * @param n
 *   Number of records, 1..MCFAN_SCT_MAX_CPUS.
 * @param mapp
 *   On success receives the new map, to be released with mcfan_sct_free().
 * @param kind
 *   If not NULL, receives the error kind, MCFAN_SCT_ERR_NONE on success.
 * @param err
 *   If not NULL and err_len > 0, receives a NUL-terminated message quoting the offending
 *   records in `+sct` syntax.
 * @param err_len
 *   Size of err in bytes.
 * @return
 *   0 on success; -EINVAL on a NULL argument or invalid records (n == 0 is
 *   MCFAN_SCT_ERR_EMPTY); -ENOMEM if memory ran out.
 */
int
mcfan_sct_from_cpus(const struct mcfan_sct_cpu *cpus, size_t n, struct mcfan_sct_map **mapp,
	enum mcfan_sct_err_kind *kind, char *err, size_t err_len);

/**
 * Release a map.
 *
 * @param map
 *   Map from mcfan_sct_parse() or mcfan_sct_from_cpus(); NULL is ignored.
 */
void
mcfan_sct_free(struct mcfan_sct_map *map);

/**
 * Count the CPUs of a map.
 *
 * @param map
 *   A map.
 * @return
 *   Number of logical CPUs, 1..MCFAN_SCT_MAX_CPUS; 0 if map is NULL.
 */
size_t
mcfan_sct_count(const struct mcfan_sct_map *map);

/**
 * Get a CPU by position.
 *
 * Positions follow Erlang's canonical processor order: by processor, node, node inside the
 * processor, core, then thread (real ids, undefined nodes first). The first CPU is the
 * natural home of a control thread.
 *
 * @param map
 *   A map.
 * @param index
 *   Position, 0..mcfan_sct_count(map) - 1.
 * @return
 *   The CPU record, valid as long as the map; NULL if map is NULL or index is out of range.
 */
const struct mcfan_sct_cpu *
mcfan_sct_cpu_at(const struct mcfan_sct_map *map, size_t index);

/**
 * Look up a logical CPU.
 *
 * @param map
 *   A map.
 * @param logical
 *   Logical CPU id (OS CPU number).
 * @return
 *   The CPU record, valid as long as the map; NULL if map is NULL or the map does not
 *   name that CPU.
 */
const struct mcfan_sct_cpu *
mcfan_sct_lookup(const struct mcfan_sct_map *map, unsigned int logical);

/**
 * Get the NUMA node of a CPU, whether declared around or inside its processor.
 *
 * @param cpu
 *   A CPU record.
 * @return
 *   The node inside the processor if declared, else the node around it, else
 *   MCFAN_SCT_ID_UNDEFINED (also when cpu is NULL).
 */
int32_t
mcfan_sct_cpu_numa_node(const struct mcfan_sct_cpu *cpu);

/**
 * Compare two maps.
 *
 * @param a
 *   A map.
 * @param b
 *   Another map.
 * @return
 *   1 if both name the same CPUs with the same ids and descriptive marks, else 0.
 */
int
mcfan_sct_equal(const struct mcfan_sct_map *a, const struct mcfan_sct_map *b);

/**
 * Write a map as `+sct` text that mcfan_sct_parse() (and erl) turn back into the same map.
 *
 * Entries come in ascending logical id order; every entry spells out T, C and P, and N
 * when defined. Without flags each CPU gets its own entry (`L0T0C0P0N0:L1T1C0P0N0:...`);
 * with MCFAN_SCT_FORMAT_COMPACT runs of consecutive logical ids whose other ids are
 * constant or step by one are merged (`L0-5T0C0-5P0N0:...`).
 *
 * @param map
 *   A map.
 * @param flags
 *   0 or MCFAN_SCT_FORMAT_COMPACT.
 * @param buf
 *   Output buffer; may be NULL when len is 0.
 * @param len
 *   Size of buf in bytes; the text is truncated to len - 1 characters and NUL-terminated.
 * @return
 *   Length of the full text in characters, without the NUL (like snprintf: a result >= len
 *   means truncation); -EINVAL if map is NULL, buf is NULL with len > 0, or flags has an
 *   unknown bit; -EOVERFLOW if the text would exceed INT_MAX characters.
 */
int
mcfan_sct_format(const struct mcfan_sct_map *map, unsigned int flags, char *buf, size_t len);

/**
 * Write a map as an indented tree: node > processor > (node) > core > thread > CPU.
 *
 * One line per level change, two spaces of indent per level, for example
 * `node 0\n  processor 0\n    core 0\n      thread 0: cpu 0\n`. A node level is printed
 * only when the map declares nodes; a node inside a processor is printed below it.
 *
 * @param map
 *   A map.
 * @param buf
 *   Output buffer; may be NULL when len is 0.
 * @param len
 *   Size of buf in bytes; the text is truncated to len - 1 characters and NUL-terminated.
 * @return
 *   Length of the full text in characters, without the NUL (like snprintf); -EINVAL if map
 *   is NULL or buf is NULL with len > 0; -ENOMEM if memory ran out; -EOVERFLOW if the text
 *   would exceed INT_MAX characters.
 */
int
mcfan_sct_format_tree(const struct mcfan_sct_map *map, char *buf, size_t len);

/**
 * Name an error kind.
 *
 * @param kind
 *   An error kind.
 * @return
 *   Static text such as "invalid identifier range"; "unknown error" for a bad value.
 */
const char *
mcfan_sct_err_kind_str(enum mcfan_sct_err_kind kind);

/**
 * Parse a bind type name.
 *
 * @param name
 *   Erlang's `+sbt` short name (u, db, s, ps, ts, tnnps, nnps, nnts, ns) or its long name
 *   (unbound, default_bind, spread, processor_spread, thread_spread,
 *   thread_no_node_processor_spread, no_node_processor_spread, no_node_thread_spread,
 *   no_spread); case-sensitive.
 * @param bind
 *   Receives the bind type.
 * @return
 *   0 on success; -EINVAL if an argument is NULL or the name is unknown.
 */
int
mcfan_sct_bind_parse(const char *name, enum mcfan_sct_bind *bind);

/**
 * Get the short (`+sbt`) name of a bind type.
 *
 * @param bind
 *   A bind type.
 * @return
 *   Static text such as "tnnps"; NULL for a bad value.
 */
const char *
mcfan_sct_bind_name(enum mcfan_sct_bind bind);

/**
 * Get the long (erlang:system_flag/2) name of a bind type.
 *
 * @param bind
 *   A bind type.
 * @return
 *   Static text such as "thread_no_node_processor_spread"; NULL for a bad value.
 */
const char *
mcfan_sct_bind_erlang_name(enum mcfan_sct_bind bind);

/**
 * Get the order in which a bind type hands out the CPUs of a map.
 *
 * Like Erlang, ids are first renumbered densely in processor order (node, processor, core
 * and thread counted by first appearance; the "no node" types fold nodes inside processors
 * into the node level), then the CPUs are sorted by the bind type's key order, see
 * docs/topology.md. The i-th thread to place goes to cpus[i]. MCFAN_SCT_BIND_UNBOUND has
 * no order: it yields every CPU of the map in ascending logical id order, the set an
 * unbound thread may float over.
 *
 * @param map
 *   A map.
 * @param bind
 *   A bind type.
 * @param cpus
 *   Receives mcfan_sct_count(map) logical CPU ids; may be NULL when n is 0.
 * @param n
 *   Capacity of cpus in elements.
 * @return
 *   Number of CPUs of the map (also when cpus is NULL and n is 0, to size the array);
 *   -EINVAL if map is NULL, bind is invalid, or cpus is NULL with n > 0; -ENOSPC if n is
 *   smaller than the number of CPUs; -ENOMEM if memory ran out.
 */
int
mcfan_sct_bind_order(const struct mcfan_sct_map *map, enum mcfan_sct_bind bind,
	unsigned int *cpus, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* MCFAN_SCT_H */
