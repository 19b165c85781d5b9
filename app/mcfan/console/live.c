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

MCFAN_CONSOLE_COMMAND(msacc_start, 300, "msacc start <ms>", cmd_msacc_start,
		      "start a timed accounting window of <ms> milliseconds; show msacc then "
		      "freezes at its end",
		      "msacc start 1000");

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

MCFAN_CONSOLE_COMMAND(msacc_switch, 310, "msacc reset|on|off", cmd_msacc_switch,
		      "reset: the window runs from now; on/off: switch the data lcores' "
		      "accounting",
		      "msacc reset");

static int
cmd_clear_stats(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return run_action(con, mcfan_ctl_clear_stats);
}

MCFAN_CONSOLE_COMMAND(clear_stats, 320, "clear stats", cmd_clear_stats,
		      "count frames, drops, workers, groups, port stats, feed quality and the "
		      "IGMP/MLD counters from zero (msacc has msacc reset)",
		      "clear stats");

static int
cmd_start(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return run_action(con, mcfan_ctl_rx_start);
}

MCFAN_CONSOLE_COMMAND(start, 330, "start", cmd_start, "start RX polling again after stop", "start");

static int
cmd_stop(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return run_action(con, mcfan_ctl_rx_stop);
}

MCFAN_CONSOLE_COMMAND(stop, 340, "stop", cmd_stop,
		      "stop RX polling without exiting; frames wait in the port or count as its "
		      "imissed",
		      "stop");

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

MCFAN_CONSOLE_COMMAND(set_burst, 500, "set burst <n>", cmd_set_burst,
		      "frames per rx_burst and per ring dequeue, 1..512 and at most the ring "
		      "size",
		      "set burst 64");

/* set idle rx|worker|<lcore> <policy> */
static int
cmd_set_idle(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return mcfan_console_result(con, mcfan_ctl_set_idle(mcfan_console_app(con),
							    a->lcore != NULL ? a->lcore : a->choice,
							    a->policy, msg, sizeof(msg)), msg);
}

MCFAN_CONSOLE_COMMAND(set_idle_role, 510, "set idle rx|worker <policy>", cmd_set_idle,
		      "idle policy of every RX lcore or every worker-only lcore: poll, "
		      "backoff[:THRESHOLD], wake[:T], interrupt[:T]",
		      "set idle worker wake");

MCFAN_CONSOLE_COMMAND(set_idle_lcore, 520, "set idle <lcore> <policy>", cmd_set_idle,
		      "idle policy of one data lcore", "set idle 2 backoff:very_short");

static int
cmd_quit(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	RTE_SET_USED(a);
	return run_action(con, mcfan_ctl_quit);
}

MCFAN_CONSOLE_COMMAND(quit, 700, "quit", cmd_quit,
		      "stop mcfan as SIGINT does: final report, exit (Ctrl-D too)", "quit");
