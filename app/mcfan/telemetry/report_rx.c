/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* The JSON report's RX-side frames and drops per RX lcore and per port
 * (telemetry/report_rx.h). */

#include <errno.h>
#include <stdlib.h>

#include <jansson.h>

#include <rte_common.h>

#include "mcfan.h"
#include "mcfan_classify.h"
#include "control/stats.h"
#include "telemetry/report_rx.h"

int
mcfan_report_rx_read(const struct mcfan_app *app, struct mcfan_report_rx *rx)
{
	int n;

	rx->n = 0;
	rx->rv = calloc(RTE_MAX(app->n_rx, 1u), sizeof(*rx->rv));
	if (rx->rv == NULL)
		return -ENOMEM;
	n = mcfan_rx_lcores_read(app, rx->rv, app->n_rx);
	rx->n = n > 0 ? (unsigned int)n : 0;
	return 0;
}

/* A "drops" object: reason -> frames, every reason. */
static json_t *
drops_json(const uint64_t *drops)
{
	json_t *d = json_object();
	unsigned int k;

	for (k = 1; d != NULL && k < MCFAN_DROP_MAX; k++)
		json_object_set_new(d, mcfan_drop_name(k), json_integer((json_int_t)drops[k]));
	return d;
}

void
mcfan_report_rx_lcore_json(const struct mcfan_report_rx *rx, unsigned int lcore_id, json_t *o)
{
	const struct mcfan_rx_lcore_view *v;
	unsigned int r;

	for (r = 0; r < rx->n; r++) {
		v = &rx->rv[r];
		if (v->lcore_id != lcore_id)
			continue;
		json_object_set_new(o, "rx_frames", json_integer((json_int_t)v->rx_frames));
		json_object_set_new(o, "rx_bytes", json_integer((json_int_t)v->rx_bytes));
		json_object_set_new(o, "delivered_frames",
				    json_integer((json_int_t)v->delivered_frames));
		json_object_set_new(o, "drops", drops_json(v->drops));
		return;
	}
}

void
mcfan_report_rx_port_json(const struct mcfan_report_rx *rx, uint16_t port, json_t *o)
{
	uint64_t frames, drops[MCFAN_DROP_MAX];

	mcfan_rx_port_sum(rx->rv, rx->n, port, &frames, drops);
	json_object_set_new(o, "rx_frames", json_integer((json_int_t)frames));
	json_object_set_new(o, "drops", drops_json(drops));
}

void
mcfan_report_rx_free(struct mcfan_report_rx *rx)
{
	free(rx->rv);
	rx->rv = NULL;
	rx->n = 0;
}
