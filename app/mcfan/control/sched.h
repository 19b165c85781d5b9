/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_SCHED_H
#define MCFAN_APP_SCHED_H

/*
 * What the kernel's scheduler says about each data lcore's thread (docs/msacc.md
 * "wait_cpu"): the time it was runnable but not running (/proc/self/task/TID/schedstat,
 * second field, ns), handed to msacc as the wait_cpu state, and its voluntary and
 * involuntary context switches (/proc/self/task/TID/status). Control side only, off the
 * data path: the state is app->sched, guarded by app->ctl_lock.
 */

#include <stdint.h>

#include "mcfan.h"

/** One lcore's scheduler counters since the start. */
struct mcfan_sched_view {
	int tid;                   /**< Its thread id; 0 if not known (yet). */
	uint64_t wait_ns;          /**< Runnable but not running, ns (while msacc was on). */
	uint64_t ctx_voluntary;    /**< Voluntary context switches (it blocked or slept). */
	uint64_t ctx_involuntary;  /**< Involuntary ones (preempted). */
};

/**
 * Read every data lcore's schedstat and give msacc the wait (mcfan_msacc_set_wait()).
 * Control lcore's tick and before each msacc read (mcfan_lcore_rows()); any control thread.
 * Takes ctl_lock. Nothing to do before the lcores have stored their thread ids.
 */
void mcfan_sched_update(struct mcfan_app *app);

/**
 * An lcore's scheduler counters (its status file read now). Any control thread.
 *
 * @return
 *   0, -EINVAL for an lcore id out of range, -ENOENT if its thread id is not known.
 */
int mcfan_sched_read(struct mcfan_app *app, unsigned int lcore_id, struct mcfan_sched_view *out);

/** Free the state; safe to call more than once. */
void mcfan_sched_free(struct mcfan_app *app);

#endif /* MCFAN_APP_SCHED_H */
