/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_TELEMETRY_H
#define MCFAN_APP_TELEMETRY_H

/*
 * The /mcfan/... telemetry framework (telemetry.c): commands register themselves beside
 * their handlers, and answer only between mcfan_telemetry_init() and
 * mcfan_telemetry_stop() (mcfan.h); plus the parameter parsers and the one column helper
 * every table reply is built with.
 *
 * A new command is one block in the file of its family (a file in telemetry/):
 *
 *	static int
 *	tel_thing(struct mcfan_app *app, const char *cmd, const char *params,
 *		  struct rte_tel_data *d)
 *	{
 *		...
 *	}
 *	MCFAN_TEL_COMMAND(tel_thing, "/mcfan/thing", "What it answers. No parameters")
 *
 * DPDK 22.11 limits shape every reply: dict keys [A-Za-z0-9_/], at most
 * RTE_TEL_MAX_DICT_ENTRIES (256) dict and RTE_TEL_MAX_ARRAY_ENTRIES (512) array
 * entries, containers only one level deep and only arrays of scalars, no floating point,
 * and a reply over 16 KiB loses elements silently. So tables are given as columns
 * (parallel arrays), percentages as basis points (1/100 of a percent, integers).
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_telemetry.h>

struct mcfan_app;
struct mcfan_flow_key;

/**
 * A command's handler. Runs in EAL's telemetry thread, only while mcfan is set up, one
 * at a time; it only reads (the stats read side, the placement view). The reply dict is
 * already started and the parameter, if any, is at most MCFAN_TEL_PARAM_MAX printable
 * ASCII characters.
 *
 * @param app
 *   The application of mcfan_telemetry_init().
 * @param cmd
 *   The command as called ("/mcfan/info").
 * @param params
 *   Its parameter; NULL or "" when none.
 * @param d
 *   The reply, a dict.
 * @return
 *   0, or a negative errno (the client gets null).
 */
typedef int (*mcfan_tel_handler)(struct mcfan_app *app, const char *cmd, const char *params,
				 struct rte_tel_data *d);

/** A /mcfan/... command: static, in the file of its handler (MCFAN_TEL_COMMAND). */
struct mcfan_tel_cmd {
	const char *name;             /**< "/mcfan/...". */
	mcfan_tel_handler fn;         /**< Its handler. */
	const char *help;             /**< Under RTE_TEL_MAX_STRING_LEN (128) characters, or
				       *   DPDK refuses the command. */
	struct mcfan_tel_cmd *next;   /**< Registration list; the framework's. */
};

/** Longest parameter accepted (a bracketed IPv6 group with port is 48 characters). */
#define MCFAN_TEL_PARAM_MAX 64

/**
 * Add a command. Called from constructors (MCFAN_TEL_COMMAND), before main(); the command
 * is registered with DPDK by mcfan_telemetry_init(), in the order of the calls.
 *
 * @param cmd
 *   The command; static, never freed.
 */
void mcfan_tel_register(struct mcfan_tel_cmd *cmd);

/** Bytes of a command name with its NUL that DPDK 22.11 registers (telemetry.c MAX_CMD_LEN,
 * not public). */
#define MCFAN_TEL_NAME_SIZE 56

/** Register handler fn as telemetry command name with help text help, from this file. A name
 * or help text DPDK would refuse (rte_telemetry_register_cmd() -EINVAL, and then no later
 * command) fails the build. */
#define MCFAN_TEL_COMMAND(fn, name, help) \
	_Static_assert(sizeof(help) <= RTE_TEL_MAX_STRING_LEN, \
		       name ": the help text is longer than DPDK 22.11 registers " \
		       "(RTE_TEL_MAX_STRING_LEN with its NUL; rte_telemetry_register_cmd() " \
		       "refuses it with -EINVAL, and no later command is registered)"); \
	_Static_assert(sizeof(name) <= MCFAN_TEL_NAME_SIZE, name ": the name is longer than " \
		       "DPDK 22.11 registers (MAX_CMD_LEN)"); \
	static struct mcfan_tel_cmd fn ## _tel_cmd = { name, fn, help, NULL }; \
	RTE_INIT(fn ## _tel_register) \
	{ \
		mcfan_tel_register(&fn ## _tel_cmd); \
	}

/**
 * Refuse a parameter on a command that takes none (logged).
 *
 * @return
 *   0 when params is NULL or "", else -EINVAL.
 */
int mcfan_tel_param_none(const char *cmd, const char *params);

/**
 * A decimal number 0..max, nothing else.
 *
 * @param out
 *   The number; 0 on error.
 * @return
 *   0; -EINVAL (not a decimal number) or -ERANGE (above max).
 */
int mcfan_tel_param_uint(const char *s, uint64_t max, uint64_t *out);

/**
 * The check every /mcfan/... parameter passes before its handler runs: at most
 * MCFAN_TEL_PARAM_MAX characters, each printable ASCII (0x20..0x7e). A parameter longer
 * than that is refused whole, never cut: a command acts on all of its text or on none.
 *
 * @param params
 *   The parameter; NULL is fine (none).
 * @param at
 *   Receives, on -EINVAL, the 0-based offset of the first byte that is not printable ASCII;
 *   on -E2BIG the parameter's length in bytes; 0 otherwise. Not NULL.
 * @return
 *   0; -EINVAL (a control or non-ASCII byte among the first MCFAN_TEL_PARAM_MAX), or
 *   -E2BIG (longer than MCFAN_TEL_PARAM_MAX, its first MCFAN_TEL_PARAM_MAX printable).
 */
int mcfan_tel_param_check(const char *params, size_t *at);

/**
 * The parameter of /mcfan/groups: none (page 0), a page number 0..UINT32_MAX, or one
 * group with an optional port (mcfan_group_parse(), as --groups: "239.9.9.1:3999").
 *
 * @param params
 *   The parameter; NULL or "" for none.
 * @param page
 *   The page; 0 unless a page number is given.
 * @param group
 *   The group, when 1 is returned.
 * @param err
 *   Receives the reason when -EINVAL is returned ("" otherwise): the group parser's, a page
 *   beyond UINT32_MAX, or a list or range naming more than one group.
 * @param len
 *   Size of err, bytes.
 * @return
 *   0 (a page), 1 (a group), or -EINVAL (neither).
 */
int mcfan_tel_param_page_or_group(const char *params, uint64_t *page,
				  struct mcfan_flow_key *group, char *err, size_t len);

/**
 * A percentage as basis points (1/100 of a percent), rounded; 0 for pct <= 0.
 *
 * @return
 *   Basis points (10000 for 100 %); pct must be finite and below 1.8e15.
 */
uint64_t mcfan_tel_bp(double pct);

/** Bytes of a telemetry reply in DPDK 22.11 (lib/telemetry's MAX_OUTPUT_LEN): a container
 * that does not fit what is left is left out whole, without a word. */
#define MCFAN_TEL_REPLY_BYTES 16384
/** Of them, kept for what is not a table row: the command, keys, brackets and counts. */
#define MCFAN_TEL_REPLY_RESERVE 1024

/**
 * JSON bytes of an unsigned integer in an array: its decimal digits and a comma.
 *
 * @param v
 *   The value.
 * @return
 *   Bytes, 2..21.
 */
size_t mcfan_tel_u64_bytes(uint64_t v);

/**
 * JSON bytes of a string in an array: the string, its two quotes and a comma (mcfan's
 * strings need no escapes).
 *
 * @param s
 *   The string; not NULL.
 * @return
 *   Bytes, strlen(s) + 3.
 */
size_t mcfan_tel_str_bytes(const char *s);

/** One column of a table reply: DPDK 22.11 gives tables as parallel arrays. */
struct mcfan_tel_col {
	const char *name;             /**< Its key in the reply. */
	enum rte_tel_value_type type; /**< Its elements' type. */
};

/**
 * An empty array of one type.
 *
 * @return
 *   The array, owned by the caller until added to a reply; NULL without memory.
 */
struct rte_tel_data *mcfan_tel_array(enum rte_tel_value_type type);

/**
 * Allocate one array per column; all or none.
 *
 * @param c
 *   n slots, filled with the arrays.
 * @return
 *   0, or -ENOMEM (nothing allocated).
 */
int mcfan_tel_cols_alloc(struct rte_tel_data **c, const struct mcfan_tel_col *cols,
			 unsigned int n);

/**
 * Hand the columns to the reply under their names, in order; the reply owns them then
 * (one that cannot be added is freed).
 *
 * @return
 *   0, or -ENOMEM when a column could not be added.
 */
int mcfan_tel_cols_attach(struct rte_tel_data *d, struct rte_tel_data **c,
			  const struct mcfan_tel_col *cols, unsigned int n);

#endif /* MCFAN_APP_TELEMETRY_H */
