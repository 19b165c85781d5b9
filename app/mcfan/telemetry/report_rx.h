/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_TELEMETRY_REPORT_RX_H
#define MCFAN_APP_TELEMETRY_REPORT_RX_H

/*
 * The JSON report's RX-side frames and drops where they arise (telemetry/report_rx.c): per
 * RX lcore (its entry in "lcores") and per port (its entry in "ports", the sum over the port's
 * (port, RX queue) pairs whichever RX lcores poll them). Both come from one read of the RX
 * lcores' stats blocks (control/stats.h mcfan_rx_lcores_read()), so summed over the RX
 * lcores, or over the ports, they are the report's totals; the quit drain's frames
 * (quit_drained) included, as they are counted on the RX lcore that owned the queue.
 */

#include <stdint.h>

#include <jansson.h>

#include "mcfan.h"
#include "control/stats.h"

/** One read of every RX lcore's counters, for the report's entries. */
struct mcfan_report_rx {
	struct mcfan_rx_lcore_view *rv; /**< [n] views, RX lcore order; NULL when n is 0. */
	unsigned int n;                 /**< Views in rv. */
};

/**
 * Read every RX lcore's frames and drops since the last clear (mcfan_rx_lcores_read()). Any
 * control thread.
 *
 * @param app
 *   The application.
 * @param rx
 *   Receives the read; release it with mcfan_report_rx_free().
 * @return
 *   0, or -ENOMEM (rx is then empty: n 0, and the entries get nothing).
 */
int mcfan_report_rx_read(const struct mcfan_app *app, struct mcfan_report_rx *rx);

/**
 * Add an RX lcore's "rx_frames", "rx_bytes", "delivered_frames" and "drops" (reason ->
 * frames) to its JSON object; nothing for an lcore without the RX role.
 *
 * @param rx
 *   From mcfan_report_rx_read().
 * @param lcore_id
 *   The lcore the object describes.
 * @param o
 *   The lcore's object in the report's "lcores".
 */
void mcfan_report_rx_lcore_json(const struct mcfan_report_rx *rx, unsigned int lcore_id,
				json_t *o);

/**
 * Add a port's "rx_frames" (frames mcfan's RX lcores received from it, the quit drain's
 * included) and "drops" (reason -> frames) to its JSON object: the sums over every (port,
 * RX queue) pair of the port; 0 for a port no RX lcore polls.
 *
 * @param rx
 *   From mcfan_report_rx_read().
 * @param port
 *   The port the object describes.
 * @param o
 *   The port's object in the report's "ports".
 */
void mcfan_report_rx_port_json(const struct mcfan_report_rx *rx, uint16_t port, json_t *o);

/**
 * Release what mcfan_report_rx_read() allocated.
 *
 * @param rx
 *   The read (emptied: n 0).
 */
void mcfan_report_rx_free(struct mcfan_report_rx *rx);

#endif /* MCFAN_APP_TELEMETRY_REPORT_RX_H */
