/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Console: show engines, set engine LCORE|GROUPS NAME[:ARGS] (docs/delivery.md,
 * docs/console.md).
 * Read side and action: control/engine.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>

#include "mcfan.h"
#include "control/action.h"
#include "control/engine.h"
#include "control/stats.h"
#include "console/console.h"

static int
cmd_show_engines(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_engine_view *v;
	struct mcfan_inst_view iv;
	unsigned int n, i, j, b;
	int k;

	RTE_SET_USED(a);
	v = calloc(RTE_MAX_LCORE, sizeof(*v));
	if (v == NULL) {
		mcfan_console_error(con, "show engines: out of memory");
		return -ENOMEM;
	}
	n = mcfan_engines_read(app, v, RTE_MAX_LCORE);
	for (i = 0; i < n; i++) {
		printf("lcore %u: engine %s (started as %s%s%s)", v[i].lcore_id, v[i].engine,
		       v[i].start_engine, v[i].start_args[0] != '\0' ? ":" : "", v[i].start_args);
		for (k = 0; k < v[i].n_values; k++)
			printf("%s %s %" PRIu64, k == 0 ? ";" : "", v[i].values[k].name,
			       v[i].values[k].value);
		/* where its copies go now (set engine LCORE, or by group) */
		if (v[i].mode == MCFAN_ENGINE_MODE_ENGINE) {
			printf("; every copy to %s (set engine)", v[i].engine);
		} else if (v[i].mode == MCFAN_ENGINE_MODE_OUTPUT) {
			printf("; every copy to output %d (set engine)", v[i].output);
		} else if (app->n_inst > 1) {
			/* "output 0" or "outputs 0,2": the outputs its groups are on now */
			printf("; per group: output%s",
			       (v[i].outputs & (v[i].outputs - 1)) != 0 ? "s" : "");
			for (b = 0, j = 0; b < MCFAN_ENGINE_INST_MAX; b++)
				if (v[i].outputs & (UINT32_C(1) << b))
					printf("%s%u", j++ == 0 ? " " : ",", b);
		}
		printf("\n");
		/* per engine instance ("output": --worker-engine is 0, --group-engine more) */
		for (j = 0; app->n_inst > 1 && j < app->n_inst; j++) {
			if (mcfan_lcore_inst_read_cleared(app, v[i].lcore_id, j, &iv) < 0)
				continue;
			printf("  output %u %s%s%s: frames %" PRIu64 ";", j, iv.engine,
			       iv.args[0] != '\0' ? ":" : "", iv.args, iv.frames);
			for (k = 0; k < iv.n_values; k++)
				printf(" %s %" PRIu64, iv.values[k].name, iv.values[k].value);
			printf("\n");
		}
		/* copies a `set engine LCORE` engine took instead of an output: the outputs'
		 * frames and this line add up to the worker's copies (as in the report) */
		if (app->n_inst > 1 && mcfan_lcore_sel_frames_cleared(app, v[i].lcore_id) != 0)
			printf("  set engine (set engine LCORE): frames %" PRIu64 "\n",
			       mcfan_lcore_sel_frames_cleared(app, v[i].lcore_id));
	}
	free(v);
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_engines, 295, "show engines", cmd_show_engines,
		      "per worker lcore: the engine that runs, the one it started with and its "
		      "counters (tx sent/full, pcap written/full/errors/files)",
		      "show engines");

static int
cmd_set_group_engine(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];
	int ret;

	/* a plain number matches <groups> too: it is an lcore (set engine <lcore> ...) */
	ret = mcfan_ctl_set_engine_target(mcfan_console_app(con), a->groups, a->command, msg,
					  sizeof(msg));
	if (ret < 0) {
		mcfan_console_error(con, "%s", msg);
		return ret;
	}
	printf("%s\n", msg);
	return 0;
}

/* set engine TARGET without an engine, or set engine alone (a->groups NULL): say what is
 * missing and the syntax (the console's own diagnosis would only say "missing words", or
 * name only <groups>). */
static int
cmd_set_engine_missing(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];
	int ret = mcfan_ctl_set_engine_missing(mcfan_console_app(con), a->groups, msg, sizeof(msg));

	mcfan_console_error(con, "%s", msg);
	return ret;
}

MCFAN_CONSOLE_COMMAND(set_engine_missing, 531, "set engine <groups>", cmd_set_engine_missing,
		      "without NAME: says what to give (set engine LCORE|GROUPS NAME[:ARGS])",
		      "set engine 2");

MCFAN_CONSOLE_COMMAND(set_engine_bare, 532, "set engine", cmd_set_engine_missing,
		      "without a target: says what to give", "set engine");

/* One spec for both forms: cmdline would find a number ambiguous between <lcore> and
 * <groups> (a group list may be hex digits), so a plain number is the lcore form. */
MCFAN_CONSOLE_COMMAND(set_engine, 530, "set engine <groups> <engine>...",
		      cmd_set_group_engine,
		      "LCORE NAME[:ARGS]: every copy of one worker lcore to an engine instance "
		      "of this run or to count, from its next burst (LCORE outputs: back to each "
		      "group's output); GROUPS NAME[:ARGS]: move joined groups to an engine "
		      "instance of this run or to count (docs/delivery.md)",
		      "set engine 2 count; set engine 2 outputs; set engine 239.9.9.1-5:3999 count");
