/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_CONTROL_H
#define MCFAN_APP_CONTROL_H

/*
 * Control actions: the live changes an operator can make, callable from the
 * console (console.c) and from any other control thread (telemetry). Each
 * action validates everything first and either changes nothing and returns a
 * negative errno, or makes the whole change and returns 0; both ways it
 * writes one line (no newline) to msg saying what was done or what was wrong,
 * naming the offending value. Actions are serialised among themselves by a
 * mutex (control/action.c); none runs on a data lcore and none makes a data lcore
 * wait. The group actions are in control/groups.h, the live settings in control/live.h;
 * this header gathers them with the control side's start, stop and tick.
 *
 * Numbers in text arguments are decimal (a leading zero never means octal).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcfan.h"
#include "control/action.h"
#include "control/groups.h"
#include "control/live.h"

/**
 * Set up the control state: the counter slots of the groups joined at start
 * (ids 0..n-1 from --groups) and the stats baselines. Call once after the
 * initial group table is published, before any action.
 *
 * @return
 *   0, or -ENOMEM.
 */
int mcfan_control_init(struct mcfan_app *app);

/** Free what mcfan_control_init() allocated; no action may run afterwards. */
void mcfan_control_free(struct mcfan_app *app);

/**
 * Periodic control-side housekeeping, from the main lcore's loop (every tick, at most
 * mcfan_control_wait_ms() apart):
 * freezes a due timed msacc window (mcfan_live_tick()), and frees the counter slots of
 * left groups once every frame they tagged has been counted (mcfan_groups_tick()). Skipped
 * while an action runs. Cheap when idle.
 */
void mcfan_control_tick(struct mcfan_app *app);

/** The control lcore's tick while something needs it, ms (the tick of mcfan 1.0 always). */
#define MCFAN_CONTROL_TICK_MS 10
/** The longest the control lcore sleeps between two ticks when nothing needs them, ms: the
 * delay of wait_cpu, of feed-kind warnings and of a kernel counter total read by nothing
 * else (a read by the report, telemetry or the console takes the counters itself). */
#define MCFAN_CONTROL_QUIET_MS 100

/**
 * How long the control lcore may sleep before its next mcfan_control_tick(), in ms. It is
 * MCFAN_CONTROL_TICK_MS while the tick has work: a timed msacc window runs, retired counter
 * slots wait to be drained, the last tick saw port or kernel drops (sleep overrun's
 * attribution, control/overrun.h), or an action held the lock at the tick; else the time
 * until the next IGMP/MLD message is due, within MCFAN_CONTROL_TICK_MS ..
 * MCFAN_CONTROL_QUIET_MS. An action wakes the sleep at once (mcfan_ctl_wake_open()); the
 * main loop's own deadlines (--duration, --stats-period) are the caller's. Main lcore,
 * after mcfan_control_tick().
 *
 * @return
 *   Milliseconds, MCFAN_CONTROL_TICK_MS .. MCFAN_CONTROL_QUIET_MS.
 */
unsigned int mcfan_control_wait_ms(struct mcfan_app *app);

#endif /* MCFAN_APP_CONTROL_H */
