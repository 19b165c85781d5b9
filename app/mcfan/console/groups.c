/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Console commands that change the groups (docs/console.md "Changing"): join, leave,
 * set fanout. Each only hands its words to a control action (control/control.h), which checks
 * them and publishes the new group table.
 */

#include <rte_common.h>

#include "mcfan.h"
#include "control/control.h"
#include "console/console.h"

/* join <groups> [workers <list>]: without a list every worker is eligible */
static int
cmd_join(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_join(mcfan_console_app(con), a->groups,
							a->list, msg, sizeof(msg)), msg);
}

static const struct mcfan_console_cmd join = {
	.order = 400,
	.spec = "join <groups>",
	.fn = cmd_join,
	.help = "join groups (as --groups: ranges, ports, comma-separated) with the current "
		"fan-out, every worker",
	.example = "join 239.9.9.11-20:3999",
};
MCFAN_CONSOLE_REGISTER(join);

static const struct mcfan_console_cmd join_workers = {
	.order = 410,
	.spec = "join <groups> workers <list>",
	.fn = cmd_join,
	.help = "join groups, giving their frames only to these worker lcores",
	.example = "join [ff3e::1]:5000 workers 2",
};
MCFAN_CONSOLE_REGISTER(join_workers);

static int
cmd_leave(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_leave(mcfan_console_app(con), a->groups, msg,
							 sizeof(msg)), msg);
}

static const struct mcfan_console_cmd leave = {
	.order = 420,
	.spec = "leave <groups>",
	.fn = cmd_leave,
	.help = "leave groups: their frames count as unknown_group from the next burst on",
	.example = "leave 239.9.9.11-20:3999",
};
MCFAN_CONSOLE_REGISTER(leave);

/* set fanout all|<groups> partition|replicate: no groups means all */
static int
cmd_set_fanout(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_set_fanout(mcfan_console_app(con), a->groups,
							      a->choice, msg, sizeof(msg)), msg);
}

static const struct mcfan_console_cmd set_fanout_all = {
	.order = 430,
	.spec = "set fanout all partition|replicate",
	.fn = cmd_set_fanout,
	.help = "fan-out of every group and of later joins",
	.example = "set fanout all replicate",
};
MCFAN_CONSOLE_REGISTER(set_fanout_all);

static const struct mcfan_console_cmd set_fanout_groups = {
	.order = 440,
	.spec = "set fanout <groups> partition|replicate",
	.fn = cmd_set_fanout,
	.help = "fan-out of some groups",
	.example = "set fanout 239.9.9.1:3999 replicate",
};
MCFAN_CONSOLE_REGISTER(set_fanout_groups);
