/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_CONSOLE_H
#define MCFAN_APP_CONSOLE_H

/*
 * Console commands (docs/console.md): what a command family file needs to add commands to
 * the console. The line framework (console.c) reads the input, parses it with DPDK's cmdline
 * library, prints the errors and `help`; a family file (show_stats.c, show_lcores.c,
 * groups.c, live.c) holds handlers, each followed by the MCFAN_CONSOLE_COMMAND() that defines
 * its command and adds it before main() runs. A new command is one handler and one
 * MCFAN_CONSOLE_COMMAND() in the family file it belongs to; nothing else changes.
 *
 * A handler only parses its words and calls a control action (control/control.h) or a read
 * function (control/stats.h, control/idle.h); it prints the result on standard output and
 * every failure as one "error: " line through mcfan_console_error().
 *
 * Threads: commands are registered by constructors before main(); they run on the main lcore
 * only, one at a time.
 */

#include <stdint.h>

#include <rte_common.h>

struct mcfan_app;

/** The console (one, owned by the main lcore); handlers reach the app through it. */
struct mcfan_console;

/**
 * The words of a parsed command, by name. A field points at the word the spec's token of that
 * name took, valid while the handler runs; it is NULL when the spec has no such token, so
 * a handler serving several specs tells them apart by it. The token kinds (the characters a
 * word may hold, and how help and errors name it) come with the names:
 */
struct mcfan_console_args {
	const char *command; /**< `<command>...`: the rest of the line, as typed */
	const char *groups;  /**< `<groups>`: a group list (hex digits . : [ ] - , @ +) */
	const char *list;    /**< `<list>`: an lcore list (digits - ,) */
	const char *policy;  /**< `<policy>`: a name (lower-case letters, digits _ :) */
	const char *kind;    /**< `<kind>`: a sequence kind (docs/feed.md), any printable word */
	const char *lcore;   /**< `<lcore>`: decimal digits */
	const char *port;    /**< `<port>`: decimal digits */
	const char *ms;      /**< `<ms>`: decimal digits, milliseconds */
	const char *n;       /**< `<n>`: decimal digits */
	const char *choice;  /**< the word that matched the spec's alternatives `a|b|c` (one at
			      *   most a spec) */
};

/**
 * A command handler.
 *
 * @param con
 *   The console.
 * @param a
 *   The command's named words.
 * @return
 *   0, or a negative errno after printing one error line (mcfan_console_error()).
 */
typedef int (*mcfan_console_fn)(struct mcfan_console *con, const struct mcfan_console_args *a);

/** Most commands the console holds. */
#define MCFAN_CONSOLE_CMDS_MAX 64

/** One console command: a spec, its handler, its help. */
struct mcfan_console_cmd {
	/**
	 * Its place in `help` (and in the parser's list): ascending, one command a key, so the
	 * listing does not depend on the order the constructors run in. By family: 1..99 the
	 * framework (help), 100..299 show, 300..399 msacc, clear stats, start and stop,
	 * 400..499 groups, 500..599 live settings, 600.. wait and quit.
	 */
	unsigned int order;
	/**
	 * The words, separated by one space: a literal word ("show"); alternatives ("a|b",
	 * the word taken is args->choice); an argument "<name>" of a name in struct
	 * mcfan_console_args; "<command>..." (last) the rest of the line. At most 8 words of at
	 * most 31 characters.
	 */
	const char *spec;
	mcfan_console_fn fn;    /**< the handler */
	const char *help;       /**< one line: what it does */
	const char *example;    /**< one line: a command as typed */
};

/**
 * Add a command to the console. Called by MCFAN_CONSOLE_COMMAND() before main(); a command
 * that cannot be added makes mcfan_console_init() fail with the same error (and a message on
 * stderr naming the command), so a mistake shows at the first start.
 *
 * @param cmd
 *   The command; it must stay valid while mcfan runs (a static definition).
 * @return
 *   0; -EINVAL (a spec word that is not as described above, an unknown argument name, two
 *   alternatives in one spec, no handler), -EEXIST (the order key or the spec is taken),
 *   -ENOSPC (MCFAN_CONSOLE_CMDS_MAX commands already).
 */
int mcfan_console_register(const struct mcfan_console_cmd *cmd);

/**
 * Define a console command and add it before main() (a constructor calling
 * mcfan_console_register(), as testpmd's TESTPMD_ADD_DRIVER_COMMANDS). Write it right under
 * its handler, at file scope:
 *
 *     MCFAN_CONSOLE_COMMAND(show_rings, 160, "show rings", cmd_show_rings,
 *                           "per worker: ring size, ...",
 *                           "show rings");
 *
 * @param name
 *   An identifier unique in the file: the name of the static struct mcfan_console_cmd.
 * @param order_key
 *   Its .order (the place in help).
 * @param spec_text, handler, help_text, example_text
 *   Its .spec, .fn, .help and .example.
 */
#define MCFAN_CONSOLE_COMMAND(name, order_key, spec_text, handler, help_text, example_text) \
	static const struct mcfan_console_cmd name = { \
		.order = (order_key), \
		.spec = (spec_text), \
		.fn = (handler), \
		.help = (help_text), \
		.example = (example_text), \
	}; \
	RTE_INIT(mcfan_console_register_ ## name) \
	{ \
		mcfan_console_register(&name); \
	}

/**
 * The app the console serves.
 *
 * @return
 *   The app given to mcfan_console_init().
 */
struct mcfan_app *mcfan_console_app(const struct mcfan_console *con);

/**
 * Print one error line: "error: " and the message, with the command file's name and line
 * when the command comes from --cmdline-file; counts it.
 *
 * @param fmt
 *   printf format of the message, without the newline.
 */
void mcfan_console_error(struct mcfan_console *con, const char *fmt, ...)
	__rte_format_printf(2, 3);

/**
 * Allocate a zeroed array for a handler (calloc()); when that fails, print the error line
 * "CMD: out of memory" (mcfan_console_error()).
 *
 * @param cmd
 *   The command, for the error: "show rings".
 * @param n, size
 *   Elements and bytes an element, as calloc()'s.
 * @return
 *   The array (the caller frees it with free()), or NULL, the error printed.
 */
void *mcfan_console_calloc(struct mcfan_console *con, const char *cmd, size_t n, size_t size);

/**
 * Print a control action's message (control/control.h): as an error line if the action
 * failed, else as a plain line.
 *
 * @param ret
 *   The action's return value.
 * @param msg
 *   Its message (one line, no newline).
 * @return
 *   ret.
 */
int mcfan_console_result(struct mcfan_console *con, int ret, const char *msg);

/**
 * Read a decimal argument in [min, max] (mcfan_ctl_parse_u64(): decimal only, a leading zero
 * is not octal); print the error naming the command and the argument if it is not one.
 *
 * @param cmd
 *   The command, for the error: "set burst".
 * @param what
 *   The argument, for the error: "burst".
 * @param text
 *   The word.
 * @param out
 *   The number, when 0 is returned.
 * @return
 *   0; -EINVAL (not a decimal number), -ERANGE (too large or out of [min, max]).
 */
int mcfan_console_u64(struct mcfan_console *con, const char *cmd, const char *what,
		      const char *text, uint64_t min, uint64_t max, uint64_t *out);

#endif /* MCFAN_APP_CONSOLE_H */
