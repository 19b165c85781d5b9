/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Console commands that change live settings and the run (docs/console.md "Changing"):
 * msacc start/reset/on/off, clear stats, start, stop, set burst, set idle, quit. Each only
 * hands its words to a control action (control/control.h) and prints its message.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "mcfan.h"
#include "control/control.h"
#include "console/console.h"

/* An action of no argument but its message (control/control.h). */
typedef int (*ctl_action_fn)(struct mcfan_app *app, char *msg, size_t len);

/* Run it and print its message. */
static int
run_action(struct mcfan_console *con, ctl_action_fn action)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, action(mcfan_console_app(con), msg, sizeof(msg)), msg);
}

static int
cmd_msacc_start(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];
	uint64_t ms;

	if (mcfan_console_u64(con, "msacc start", "ms", a->ms, 1, MCFAN_CTL_MSACC_MS_MAX,
			      &ms) < 0)
		return -EINVAL;
	return mcfan_console_result(con, mcfan_ctl_msacc_start(mcfan_console_app(con), ms, msg,
							       sizeof(msg)), msg);
}

static const struct mcfan_console_cmd msacc_start = {
	.order = 300,
	.spec = "msacc start <ms>",
	.fn = cmd_msacc_start,
	.help = "start a timed accounting window of <ms> milliseconds; show msacc then freezes "
		"at its end",
	.example = "msacc start 1000",
};
MCFAN_CONSOLE_REGISTER(msacc_start);

/* msacc reset|on|off */
static int
cmd_msacc_switch(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	char msg[MCFAN_CTL_MSG_MAX];
	int ret;

	if (strcmp(a->choice, "reset") == 0)
		ret = mcfan_ctl_msacc_reset(app, msg, sizeof(msg));
	else
		ret = mcfan_ctl_msacc_enable(app, strcmp(a->choice, "on") == 0, msg, sizeof(msg));
	return mcfan_console_result(con, ret, msg);
}

static const struct mcfan_console_cmd msacc_switch = {
	.order = 310,
	.spec = "msacc reset|on|off",
	.fn = cmd_msacc_switch,
	.help = "reset: the window runs from now; on/off: switch the data lcores' accounting",
	.example = "msacc reset",
};
MCFAN_CONSOLE_REGISTER(msacc_switch);

static int
cmd_clear_stats(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return run_action(con, mcfan_ctl_clear_stats);
}

static const struct mcfan_console_cmd clear_stats = {
	.order = 320,
	.spec = "clear stats",
	.fn = cmd_clear_stats,
	.help = "count frames, drops, workers, groups and port stats from zero (msacc has msacc "
		"reset)",
	.example = "clear stats",
};
MCFAN_CONSOLE_REGISTER(clear_stats);

static int
cmd_start(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return run_action(con, mcfan_ctl_rx_start);
}

static const struct mcfan_console_cmd start = {
	.order = 330,
	.spec = "start",
	.fn = cmd_start,
	.help = "start RX polling again after stop",
	.example = "start",
};
MCFAN_CONSOLE_REGISTER(start);

static int
cmd_stop(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return run_action(con, mcfan_ctl_rx_stop);
}

static const struct mcfan_console_cmd stop = {
	.order = 340,
	.spec = "stop",
	.fn = cmd_stop,
	.help = "stop RX polling without exiting; frames wait in the port or count as its "
		"imissed",
	.example = "stop",
};
MCFAN_CONSOLE_REGISTER(stop);

static int
cmd_set_burst(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];
	uint64_t n;

	/* the range is the action's to check: it knows the ring size */
	if (mcfan_console_u64(con, "set burst", "burst", a->n, 0, UINT64_MAX, &n) < 0)
		return -EINVAL;
	return mcfan_console_result(con, mcfan_ctl_set_burst(mcfan_console_app(con), n, msg,
							     sizeof(msg)), msg);
}

static const struct mcfan_console_cmd set_burst = {
	.order = 500,
	.spec = "set burst <n>",
	.fn = cmd_set_burst,
	.help = "frames per rx_burst and per ring dequeue, 1..512 and at most the ring size",
	.example = "set burst 64",
};
MCFAN_CONSOLE_REGISTER(set_burst);

/* set idle rx|worker|<lcore> <policy> */
static int
cmd_set_idle(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_set_idle(mcfan_console_app(con),
							    a->lcore != NULL ? a->lcore : a->choice,
							    a->policy, msg, sizeof(msg)), msg);
}

static const struct mcfan_console_cmd set_idle_role = {
	.order = 510,
	.spec = "set idle rx|worker <policy>",
	.fn = cmd_set_idle,
	.help = "idle policy of every RX lcore or every worker-only lcore: poll, "
		"backoff[:THRESHOLD], wake[:T], interrupt[:T]",
	.example = "set idle worker wake",
};
MCFAN_CONSOLE_REGISTER(set_idle_role);

static const struct mcfan_console_cmd set_idle_lcore = {
	.order = 520,
	.spec = "set idle <lcore> <policy>",
	.fn = cmd_set_idle,
	.help = "idle policy of one data lcore",
	.example = "set idle 2 backoff:very_short",
};
MCFAN_CONSOLE_REGISTER(set_idle_lcore);

static int
cmd_quit(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return run_action(con, mcfan_ctl_quit);
}

static const struct mcfan_console_cmd quit = {
	.order = 700,
	.spec = "quit",
	.fn = cmd_quit,
	.help = "stop mcfan as SIGINT does: final report, exit (Ctrl-D too)",
	.example = "quit",
};
MCFAN_CONSOLE_REGISTER(quit);
