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
 * mutex in control.c; none runs on a data lcore and none makes a data lcore
 * wait.
 *
 * Numbers in text arguments are decimal (a leading zero never means octal).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcfan.h"

/** Room for an action's message, bytes (one line; longer text is cut). */
#define MCFAN_CTL_MSG_MAX 512

/** Longest `msacc start` window, milliseconds (one day). */
#define MCFAN_CTL_MSACC_MS_MAX 86400000u

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
 * Periodic control-side housekeeping, from the main lcore's loop (every tick):
 * freezes a due timed msacc window, and frees the counter slots of left
 * groups once every frame they tagged has been counted. Cheap when idle.
 */
void mcfan_control_tick(struct mcfan_app *app);

/**
 * Join groups: add them to the group table (published with RCU; RX lcores
 * never wait), each with a stable counter slot, fan-out cfg.fanout.
 *
 * @param groups
 *   Group list as for --groups: "239.9.9.1", "239.9.9.1-10:3999", "[ff3e::1]:5000",
 *   comma-separated.
 * @param workers
 *   Worker lcores that may receive these groups (corelist, e.g. "2,4-5"), or NULL
 *   for every worker.
 * @return
 *   0; -EINVAL (bad group or lcore list, lcore not a worker), -EEXIST (a group
 *   already joined or listed twice), -ENOSPC (table or counter slots full),
 *   -ENOMEM.
 */
int mcfan_ctl_join(struct mcfan_app *app, const char *groups, const char *workers, char *msg,
		   size_t len);

/**
 * Leave groups: their frames count as unknown_group from the next RX burst on.
 *
 * @param groups
 *   Group list as for mcfan_ctl_join(); each must be joined with exactly this
 *   address and port.
 * @return
 *   0; -EINVAL (bad list), -ENOENT (a group is not joined), -ENOMEM.
 */
int mcfan_ctl_leave(struct mcfan_app *app, const char *groups, char *msg, size_t len);

/**
 * Change the fan-out of joined groups.
 *
 * @param groups
 *   Group list, or NULL for every group and for later joins (cfg.fanout).
 * @param mode
 *   "partition" or "replicate".
 * @return
 *   0; -EINVAL (bad list or mode), -ENOENT (a group is not joined), -ENOMEM.
 */
int mcfan_ctl_set_fanout(struct mcfan_app *app, const char *groups, const char *mode,
			 char *msg, size_t len);

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
 * groups, port stats) starts from zero; no counter is written.
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

/** Reset the msacc window: it runs open-ended from now. 0 or -errno. */
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

/** Ask the main lcore to stop, exactly as SIGINT does. Always 0. */
int mcfan_ctl_quit(struct mcfan_app *app, char *msg, size_t len);

/**
 * Parse a decimal number ("08" is 8; no sign, no hex, no octal).
 *
 * @return
 *   0; -EINVAL if text is not only decimal digits; -ERANGE above UINT64_MAX.
 */
int mcfan_ctl_parse_u64(const char *text, uint64_t *out);

/**
 * Parse a list of worker lcores (DPDK corelist syntax, decimal) into worker
 * indexes (positions in app->worker_lcore_ids).
 *
 * @param idx
 *   Receives up to MCFAN_MAX_WORKERS indexes, in increasing order.
 * @return
 *   Number of workers (>= 1), or -EINVAL with msg naming the bad part.
 */
int mcfan_ctl_parse_workers(const struct mcfan_app *app, const char *text, uint16_t *idx,
			    char *msg, size_t len);

#endif /* MCFAN_APP_CONTROL_H */
