/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_LIVE_H
#define MCFAN_CONTROL_LIVE_H

/*
 * Live settings, the control side (control/live.c): the actions that change the live state
 * (struct mcfan_live, mcfan.h): burst, RX stop and start, msacc, idle policies, quit, and
 * clear stats; the conventions of control/control.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcfan.h"

/** Longest `msacc start` window, milliseconds (one day). */
#define MCFAN_CTL_MSACC_MS_MAX 86400000u

/** Freeze a due timed msacc window; from mcfan_control_tick(), with the action lock held. */
void mcfan_live_tick(struct mcfan_app *app);

/**
 * Set the RX and worker burst size, from the next loop of every data lcore.
 *
 * @return
 *   0, or -ERANGE unless 1 <= n <= min(MCFAN_MAX_BURST, ring size).
 */
int mcfan_ctl_set_burst(struct mcfan_app *app, uint64_t n, char *msg, size_t len);

/**
 * Stop RX polling (RX lcores skip rx_burst; frames wait in the PMD or count as
 * its imissed). Returns once every RX lcore has finished its burst in flight
 * and the workers have counted every copy enqueued (up to about a second).
 *
 * @return
 *   0, or -EALREADY if RX is stopped.
 */
int mcfan_ctl_rx_stop(struct mcfan_app *app, char *msg, size_t len);

/**
 * Start RX polling again after mcfan_ctl_rx_stop().
 *
 * @return
 *   0, or -EALREADY if RX is running.
 */
int mcfan_ctl_rx_start(struct mcfan_app *app, char *msg, size_t len);

/**
 * Clear statistics: every counter read through stats.h (totals, workers,
 * groups, port stats), the feed quality counts (control/feed.h) and the IGMP/MLD
 * counters start from zero; no counter is written.
 *
 * @return
 *   0, or -ENOMEM.
 */
int mcfan_ctl_clear_stats(struct mcfan_app *app, char *msg, size_t len);

/**
 * Start a timed msacc window of ms milliseconds (msacc:start(Ms)).
 *
 * @return
 *   0, or -ERANGE unless 1 <= ms <= MCFAN_CTL_MSACC_MS_MAX.
 */
int mcfan_ctl_msacc_start(struct mcfan_app *app, uint64_t ms, char *msg, size_t len);

/**
 * Reset the msacc window: it runs open-ended from now. 0 or -errno.
 *
 * @return
 *   0, or the window reset's negative errno (msg says why).
 */
int mcfan_ctl_msacc_reset(struct mcfan_app *app, char *msg, size_t len);

/**
 * Switch microstate accounting of the data lcores on or off. While off, their
 * accounting is frozen; the time it was off is charged to "other" when it
 * comes back on (use msacc reset or start for a clean window).
 *
 * @return
 *   0, or -EALREADY if it already is in that state.
 */
int mcfan_ctl_msacc_enable(struct mcfan_app *app, bool on, char *msg, size_t len);

/**
 * Set the idle policy (lib/idle/mcfan_idle.h, docs/idle.md) of data lcores, from their next
 * loop iteration.
 *
 * @param who
 *   "rx" (every lcore with the RX role, and later the --idle-rx shown by show
 *   config), "worker" (every worker-only lcore), or a decimal lcore id.
 * @param policy
 *   poll, backoff[:THRESHOLD], wake[:THRESHOLD] or interrupt[:THRESHOLD].
 * @return
 *   0; -EINVAL (bad policy or lcore, or a policy the role cannot use),
 *   -ENOENT (no lcore of that role), -ENOTSUP (interrupt on a port without Rx
 *   queue interrupts set up).
 */
int mcfan_ctl_set_idle(struct mcfan_app *app, const char *who, const char *policy, char *msg,
		       size_t len);

/**
 * Ask the main lcore to stop, exactly as SIGINT does. Always 0.
 *
 * @return
 *   0 (msg says the stop was asked).
 */
int mcfan_ctl_quit(struct mcfan_app *app, char *msg, size_t len);

#endif /* MCFAN_CONTROL_LIVE_H */
