/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_PARSE_H
#define MCFAN_PARSE_H

/**
 * @file
 * Number and corelist parsing shared by options, config files, console,
 * telemetry and the host topology: decimal for people, so "08" is eight, never
 * octal, and nothing but digits; and the one error-message helper.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

/**
 * Parse a decimal number made only of the digits 0-9.
 *
 * @param text
 *   NUL-terminated text; no sign, no spaces, no base prefix. May be NULL
 *   (-EINVAL).
 * @param min
 *   Smallest value allowed.
 * @param max
 *   Largest value allowed (at most UINT64_MAX).
 * @param out
 *   Receives the value on success; untouched on error. Must not be NULL.
 * @return
 *   0; -EINVAL if text is NULL, empty or has a character other than a digit;
 *   -ERANGE if the value is below min or above max (including overflow).
 */
int mcfan_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/**
 * Write a formatted error message into a caller's buffer (snprintf) and hand
 * back an error code: the one way every mcfan parser and control action
 * reports what was wrong, so a caller can `return mcfan_err_set(...)`.
 *
 * @param err
 *   Destination buffer, or NULL (nothing is written).
 * @param len
 *   Size of err in bytes; 0 writes nothing. The text is truncated to fit and
 *   always NUL-terminated.
 * @param ret
 *   The value to return, usually a negative errno (0 for a message of success).
 * @param fmt
 *   printf-style format.
 * @return
 *   ret, unchanged.
 */
__rte_format_printf(4, 5)
int mcfan_err_set(char *err, size_t len, int ret, const char *fmt, ...);

/**
 * mcfan_err_set() with a va_list, for helpers that take a format of their own.
 *
 * @param err
 *   Destination buffer, or NULL (nothing is written).
 * @param len
 *   Size of err in bytes; 0 writes nothing. Truncated to fit, always NUL-terminated.
 * @param ret
 *   The value to return.
 * @param fmt
 *   printf-style format.
 * @param ap
 *   The format's arguments.
 * @return
 *   ret, unchanged.
 */
__rte_format_printf(4, 0)
int mcfan_err_vset(char *err, size_t len, int ret, const char *fmt, va_list ap);

/** What mcfan_corelist_parse() found wrong. */
enum mcfan_corelist_err_kind {
	MCFAN_CORELIST_OK = 0,     /**< No error. */
	MCFAN_CORELIST_EMPTY,      /**< No text at all. */
	MCFAN_CORELIST_EMPTY_ITEM, /**< A comma first, last or next to another comma. */
	MCFAN_CORELIST_SYNTAX,     /**< An item that is not N or N-M in decimal, or an id
				     *   above the largest allowed. */
	MCFAN_CORELIST_DECREASING, /**< A range N-M with M below N (first and last set). */
	MCFAN_CORELIST_VISIT,      /**< The visit callback refused a range (first, last set). */
};

/** Where mcfan_corelist_parse() stopped, for the caller's own message. */
struct mcfan_corelist_err {
	enum mcfan_corelist_err_kind kind; /**< What was wrong; MCFAN_CORELIST_OK on success. */
	uint64_t first;                    /**< The range's first id (DECREASING, VISIT). */
	uint64_t last;                     /**< The range's last id (DECREASING, VISIT). */
};

/**
 * Called by mcfan_corelist_parse() once for each item, in list order.
 *
 * @param first
 *   First id of the item (N of "N" or "N-M").
 * @param last
 *   Last id of the item, >= first (N for "N").
 * @param arg
 *   The caller's argument.
 * @return
 *   0 to go on, or a negative errno to stop the parse (it returns that value).
 */
typedef int (*mcfan_corelist_visit_t)(uint64_t first, uint64_t last, void *arg);

/**
 * Parse a corelist, DPDK's "1,3-5" syntax (as -l): comma-separated items, each
 * a decimal id or a range of two ids joined by '-'. Only the syntax is checked
 * here; what an id means (an lcore, a worker, a CPU) and whether it may repeat
 * is for the visit callback.
 *
 * @param text
 *   The list; need not be NUL-terminated. Must not be NULL unless len is 0.
 * @param len
 *   Length of the list in bytes (0: MCFAN_CORELIST_EMPTY).
 * @param max_id
 *   Largest id allowed; a larger one is MCFAN_CORELIST_SYNTAX.
 * @param visit
 *   Called for each item after it parsed, before the next one is looked at.
 *   Must not be NULL.
 * @param arg
 *   Passed to visit.
 * @param err
 *   Receives where the parse stopped; may be NULL.
 * @return
 *   0; -EINVAL for a syntax error (err->kind says which); or the negative
 *   value visit returned (err->kind MCFAN_CORELIST_VISIT).
 */
int mcfan_corelist_parse(const char *text, size_t len, uint64_t max_id,
			 mcfan_corelist_visit_t visit, void *arg, struct mcfan_corelist_err *err);

/**
 * Is argv[i] the separate value of the EAL option before it ("--file-prefix -mine",
 * "--huge-dir -h")? getopt_long() gives an option that takes a value the next argument,
 * whatever it looks like, so such an argument is no option of its own. The options are
 * DPDK 22.11 EAL's that take a value (required_argument): -a -b -c -d -l -m -n -r -s -S and
 * --allow, --base-virtaddr, --block, --file-prefix, --force-max-simd-bitwidth, --huge-dir,
 * --iova-mode, --lcores, --log-level, --main-lcore, --mbuf-pool-ops-name, --proc-type,
 * --socket-limit, --socket-mem, --syslog, --trace, --trace-bufsz, --trace-dir,
 * --trace-mode, --vdev, --vfio-intr, --vfio-vf-token, each written whole with no "=VALUE"
 * (or, short, no value attached, also after bundled flags: "-vl" takes the next argument
 * as getopt does). Reads argv from argv[1] up to i.
 *
 * @param argc
 *   Number of arguments (argv[0] included).
 * @param argv
 *   EAL's arguments (those before "--"); not changed.
 * @param i
 *   Index of the argument asked about, 1..argc-1.
 * @return
 *   true if argv[i] is the value of argv[i - 1].
 */
bool mcfan_eal_arg_is_value(int argc, char **argv, int i);

/**
 * Is flag (an EAL option without a value: "--no-huge", "--in-memory", "-h") among EAL's
 * arguments as an option, not as another option's value (mcfan_eal_arg_is_value())? A
 * short flag also counts bundled with others before any value ("-vh", "-hl0-1"; not "-lh",
 * which is -l "h").
 *
 * @param argc
 *   Number of arguments (argv[0] included).
 * @param argv
 *   EAL's arguments (those before "--"); not changed.
 * @param flag
 *   The option with its dashes, written whole. Not NULL.
 * @return
 *   true if an argument is flag and no option's value.
 */
bool mcfan_eal_has_flag(int argc, char **argv, const char *flag);

/**
 * The value of command-line option opt at argv[*i], as getopt_long() and EAL read it:
 * "--opt VALUE" or "--opt=VALUE" for a long option, "-o VALUE" or "-oVALUE" for a short one
 * (one of EAL's: -a -b -c -d -l -m -n -r -s -S), also after EAL's flags -h and -v bundled
 * before it ("-vl0-1", "-hvm 512").
 * For the scans of EAL's arguments mcfan makes before (or instead of) rte_eal_init.
 *
 * @param argc
 *   Number of arguments (argv[0] included).
 * @param argv
 *   The arguments; not changed.
 * @param i
 *   Index of the argument to look at, 1..argc-1; moved past a separate value.
 * @param opt
 *   The option with its dashes: "--file-prefix", "-l".
 * @return
 *   The value (inside argv), or NULL: argv[*i] is not opt, opt is last with no value, or
 *   argv[*i] is the value of the option before it (mcfan_eal_arg_is_value()).
 */
const char *mcfan_opt_value(int argc, char **argv, int *i, const char *opt);

#endif /* MCFAN_PARSE_H */
