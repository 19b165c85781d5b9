/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_METRICS_H
#define MCFAN_APP_METRICS_H

/*
 * The metrics endpoint (docs/metrics.md): HTTP GET /metrics on --metrics-listen, served by
 * libmicrohttpd's own thread (server.c), the page built from the read side of every counter
 * (control/stats.h and friends: the same functions as the report and the telemetry) by
 * exposition.c. Control side only: no data lcore is ever touched or waited for.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcfan.h"

/** Content type of the Prometheus text format 0.0.4 (the answer unless OpenMetrics is asked). */
#define MCFAN_METRICS_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
/** Content type of OpenMetrics 1.0.0 text (when the request's Accept names it). */
#define MCFAN_METRICS_TYPE_OPENMETRICS \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"

/** The server's own counters, shown on the page (mcfan_metrics_*_total). */
struct mcfan_metrics_stats {
	uint64_t pages_text;        /**< Pages answered in the text format 0.0.4. */
	uint64_t pages_openmetrics; /**< Pages answered in OpenMetrics. */
	uint64_t refused;           /**< Requests answered 404 or 405 by mcfan. */
	uint64_t cut;               /**< Connections cut at their exchange deadline. */
};

/**
 * Build the metrics page: every family with its HELP and TYPE (and UNIT in OpenMetrics),
 * the per-group series capped at app->cfg.metrics_max_groups (the rest summed under
 * group="_other"). Any control thread; takes ctl_lock only inside the read functions it
 * calls, as briefly as they do.
 *
 * @param app
 *   The application, set up (lcores, rings, ports and groups).
 * @param openmetrics
 *   true: OpenMetrics 1.0.0 text (counter families named without _total, UNIT lines,
 *   info type, "# EOF" last; the OpenMetrics specification, prometheus/OpenMetrics
 *   specification/OpenMetrics.md); false: the Prometheus text exposition format 0.0.4.
 * @param st
 *   The server's counters up to this request (this page not yet counted); NULL: none shown.
 * @param out
 *   Receives the page, malloc'd, not NUL-terminated; the caller frees it.
 * @param len
 *   Receives its length, bytes.
 * @return
 *   0, or -ENOMEM (*out is then NULL).
 */
int mcfan_metrics_format(struct mcfan_app *app, bool openmetrics,
			 const struct mcfan_metrics_stats *st, char **out, size_t *len);

/**
 * Start serving /metrics if --metrics-listen was given (nothing to do otherwise): bind and
 * listen on the address, then start libmicrohttpd with its own polling thread (on the
 * control lcore's CPUs: call it from the main lcore after rte_eal_init()), a connection
 * timeout (silence), a deadline per exchange (kept by a watchdog control thread), a total
 * and a per-IP connection limit. Main lcore, once set-up is complete, before the data
 * lcores are launched.
 *
 * @return
 *   0; -EADDRINUSE (port in use), -EADDRNOTAVAIL (not an address of this host), -EACCES
 *   or another negative errno of socket(), bind() or listen(), each with one line on
 *   stderr naming the address; -EIO if libmicrohttpd does not start; the positive error of
 *   rte_ctrl_thread_create(), negated, if the watchdog thread does not.
 */
int mcfan_metrics_start(struct mcfan_app *app);

/**
 * Stop serving: close the listening socket and every connection, and wait for the server's
 * thread (a page being built is finished first). Main lcore, when the run stops: before the
 * data lcores are stopped and the ports closed (no scrape reads a closing port). Safe to
 * call when not started, and more than once.
 */
void mcfan_metrics_stop(void);

#endif /* MCFAN_APP_METRICS_H */
