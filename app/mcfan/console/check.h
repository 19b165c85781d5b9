/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_CONSOLE_CHECK_H
#define MCFAN_APP_CONSOLE_CHECK_H

/*
 * The console's line layer without input and without a data plane, for tests and the fuzz
 * target test/fuzz/fuzz_console.c (docs/testing.md): a line goes through exactly what a
 * typed line goes through (the length, character and word checks, DPDK's cmdline parser on
 * the real command table, mcfan's diagnosis of a line that matches nothing), the
 * framework's own commands (help, wait) run, and a family command stops at the action
 * boundary: instead of its handler, which would call a control action, a callback gets the
 * command and its words. Output goes to stdout as in a real run.
 *
 * Threads: one thread, as the console; not together with mcfan_console_init().
 */

#include <stddef.h>

#include "console/console.h"

/**
 * Called in check mode instead of a family command's handler.
 *
 * @param cmd
 *   The command matched (its spec, help, handler).
 * @param a
 *   Its words, as the handler would get them.
 * @param arg
 *   As given to mcfan_console_check_open().
 */
typedef void (*mcfan_console_check_fn)(const struct mcfan_console_cmd *cmd,
				       const struct mcfan_console_args *a, void *arg);

/**
 * Build the console's parser from the registered commands, in check mode. Close it with
 * mcfan_console_close().
 *
 * @param app
 *   The app the framework's commands see (wait reads app->tsc_hz); not set up.
 * @param fn
 *   Gets every family command matched.
 * @param arg
 *   Passed to fn.
 * @return
 *   0; a registration error of a family file (as mcfan_console_init()), -ENOMEM.
 */
int mcfan_console_check_open(struct mcfan_app *app, mcfan_console_check_fn fn, void *arg);

/**
 * Run one line as the console runs a line from a pipe or --cmdline-file (without the echo).
 *
 * @param line
 *   The line's bytes, without its end ('\n'); any bytes.
 * @param len
 *   Its length, bytes.
 * @return
 *   The number of error lines the console has printed since mcfan_console_check_open().
 */
unsigned int mcfan_console_check_line(const char *line, size_t len);

#endif /* MCFAN_APP_CONSOLE_CHECK_H */
