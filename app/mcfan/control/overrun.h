/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_OVERRUN_H
#define MCFAN_CONTROL_OVERRUN_H

/*
 * Sleep overrun, the control side (control/overrun.c; lib/overrun/mcfan_overrun.h has the
 * data lcores' protocol, docs/idle.md "Drops caused by sleeping" the meaning): the windows'
 * input sizes set before launch, the port-side attribution on every control tick, and the
 * read side shared by the report, the console and telemetry. State: app->overrun, guarded
 * by ctl_lock; no data lcore touches it.
 */

#include <stdint.h>

#include "mcfan.h"

/** Drops caused by sleeping, of one lcore (or of all, mcfan_overrun_total()). */
struct mcfan_overrun_view {
	unsigned int lcore_id;
	/** Copies refused by full worker rings while a sleep window was open (the worker's, or
	 * this RX lcore's own); at most the workers' ring_drops. */
	uint64_t ring;
	/** Frames the port or the kernel dropped (imissed, kernel_drops) in a control tick
	 * during which this RX lcore's sleep window was open; at most those drops. */
	uint64_t port;
	uint64_t total; /**< ring + port. */
};

/**
 * Give every data lcore the size of its inputs (RX descriptors of its (port, queue) pairs,
 * worker rings) and allocate the control side's state. Main lcore, after the ports and the
 * rings are set up, before launch.
 *
 * @return
 *   0, or -ENOMEM.
 */
int mcfan_overrun_setup(struct mcfan_app *app);

/**
 * Port-side attribution: read every used port's imissed and kernel drops (per queue for
 * net_af_packet) and charge the drops since the last tick to the RX lcore of that (port,
 * queue) if its sleep window was open at some time since then. The control lcore's tick,
 * and once more right after the kernel's last read at port stop. Takes ctl_lock (not held
 * on entry).
 */
void mcfan_overrun_tick(struct mcfan_app *app);

/**
 * Did the last mcfan_overrun_tick() see port or kernel drops, or hold drops for a window
 * still open? While it did, the control lcore keeps its short tick, so that drops are
 * attributed as finely as the tick allows. The control lcore (the thread that ticks).
 *
 * @return
 *   true if so; false otherwise, or before the first tick.
 */
bool mcfan_overrun_busy(const struct mcfan_app *app);

/** `clear stats`: sleep overrun starts from zero now. Control thread; takes ctl_lock. */
void mcfan_overrun_clear(struct mcfan_app *app);

/**
 * Sleep overrun of one data lcore since the start or the last clear. Any control thread.
 *
 * @return
 *   0, or -EINVAL for an lcore that is not a data lcore (out is then zero).
 */
int mcfan_overrun_read(const struct mcfan_app *app, unsigned int lcore_id,
		       struct mcfan_overrun_view *out);

/**
 * As mcfan_overrun_read() (since_start false), or with since_start true the sleep overrun
 * since the start, which `clear stats` does not move (/metrics). Any control thread; takes
 * ctl_lock.
 *
 * @param lcore_id
 *   A data lcore.
 * @param out
 *   Receives the ring-side and port-side drops and their total.
 * @param since_start
 *   true: since the start; false: since the start or the last clear.
 * @return
 *   0, or -EINVAL for an lcore that is not a data lcore (out is then zero).
 */
int mcfan_overrun_read_since(const struct mcfan_app *app, unsigned int lcore_id,
			     struct mcfan_overrun_view *out, bool since_start);

/** Sum of mcfan_overrun_read() over the data lcores (out->lcore_id is RTE_MAX_LCORE). */
void mcfan_overrun_total(const struct mcfan_app *app, struct mcfan_overrun_view *out);

/** Free the state; safe to call more than once. */
void mcfan_overrun_free(struct mcfan_app *app);

#endif /* MCFAN_CONTROL_OVERRUN_H */
