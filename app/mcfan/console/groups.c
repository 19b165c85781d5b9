/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Console commands that change the groups (docs/console.md "Changing"): join (also on an
 * engine instance: control/engine.h), leave, set fanout. Each only hands its words to a
 * control action (control/control.h), which checks them and publishes the new group table.
 */

#include <rte_common.h>

#include "mcfan.h"
#include "control/control.h"
#include "control/engine.h"
#include "console/console.h"

/* join <groups> [workers <list>]: without a list every worker is eligible */
static int
cmd_join(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_join(mcfan_console_app(con), a->groups,
							a->list, msg, sizeof(msg)), msg);
}

MCFAN_CONSOLE_COMMAND(join, 400, "join <groups>", cmd_join,
		      "join groups (as --groups: ranges, ports, comma-separated) with the "
		      "current fan-out, every worker",
		      "join 239.9.9.11-20:3999");

MCFAN_CONSOLE_COMMAND(join_workers, 410, "join <groups> workers <list>", cmd_join,
		      "join groups, giving their frames only to these worker lcores",
		      "join [ff15::1]:5000 workers 2");

/* join <groups> [workers <list>] engine NAME[:ARGS]: on an engine instance of this run */
static int
cmd_join_engine(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_join_engine(mcfan_console_app(con), a->groups,
							       a->list, a->command, msg,
							       sizeof(msg)), msg);
}

MCFAN_CONSOLE_COMMAND(join_engine, 412, "join <groups> engine <engine>...", cmd_join_engine,
		      "join groups with their copies on an engine instance of this run "
		      "(NAME[:ARGS] as set engine GROUPS takes it, docs/delivery.md)",
		      "join 239.9.9.11:3999 engine count");

MCFAN_CONSOLE_COMMAND(join_workers_engine, 414, "join <groups> workers <list> engine "
		      "<engine>...", cmd_join_engine,
		      "join groups for these worker lcores, on an engine instance of this run",
		      "join 239.9.9.12:3999 workers 2 engine tx:net_tap1");

/* join <groups> [workers <list>] engine without an engine: what to give (the console's own
 * diagnosis would only say "missing words") */
static int
cmd_join_engine_missing(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];
	int ret = mcfan_ctl_join_engine_missing(a->groups, a->list, msg, sizeof(msg));

	mcfan_console_error(con, "%s", msg);
	return ret;
}

MCFAN_CONSOLE_COMMAND(join_engine_missing, 413, "join <groups> engine",
		      cmd_join_engine_missing,
		      "without NAME: says what to give (join GROUPS engine NAME[:ARGS])",
		      "join 239.9.9.11:3999 engine");

MCFAN_CONSOLE_COMMAND(join_workers_engine_missing, 415, "join <groups> workers <list> engine",
		      cmd_join_engine_missing,
		      "without NAME: says what to give (join GROUPS workers LIST engine "
		      "NAME[:ARGS])", "join 239.9.9.12:3999 workers 2 engine");

static int
cmd_leave(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_leave(mcfan_console_app(con), a->groups, msg,
							 sizeof(msg)), msg);
}

MCFAN_CONSOLE_COMMAND(leave, 420, "leave <groups>", cmd_leave,
		      "leave groups: their frames count as unknown_group from the next burst on",
		      "leave 239.9.9.11-20:3999");

/* set fanout all|<groups> partition|replicate: no groups means all */
static int
cmd_set_fanout(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_set_fanout(mcfan_console_app(con), a->groups,
							      a->choice, msg, sizeof(msg)), msg);
}

MCFAN_CONSOLE_COMMAND(set_fanout_all, 430, "set fanout all partition|replicate", cmd_set_fanout,
		      "fan-out of every group and of later joins", "set fanout all replicate");

MCFAN_CONSOLE_COMMAND(set_fanout_groups, 440, "set fanout <groups> partition|replicate",
		      cmd_set_fanout,
		      "fan-out of some groups",
		      "set fanout 239.9.9.1:3999 replicate");
