/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Telemetry: /mcfan/ports, every port's counters with the kernel-side ones
 * (docs/telemetry.md): ipackets + kernel_drops = kernel_packets, the frames that reached the
 * port's kernel socket or queue.
 */

#include <errno.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "control/kernel.h"
#include "control/stats.h"
#include "telemetry/telemetry.h"

static int
tel_ports(struct mcfan_app *app, const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct mcfan_tel_col cols[] = {
		{"port", RTE_TEL_INT_VAL}, {"name", RTE_TEL_STRING_VAL},
		{"driver", RTE_TEL_STRING_VAL}, {"rx_queues", RTE_TEL_INT_VAL},
		{"ipackets", RTE_TEL_U64_VAL}, {"imissed", RTE_TEL_U64_VAL},
		{"ierrors", RTE_TEL_U64_VAL}, {"rx_nombuf", RTE_TEL_U64_VAL},
		{"kernel_source", RTE_TEL_STRING_VAL}, {"interface", RTE_TEL_STRING_VAL},
		{"kernel_packets", RTE_TEL_U64_VAL}, {"kernel_drops", RTE_TEL_U64_VAL},
		{"rx_packets", RTE_TEL_U64_VAL}, {"rx_dropped", RTE_TEL_U64_VAL},
		{"reasm_fragments", RTE_TEL_U64_VAL}, {"reasm_reassembled", RTE_TEL_U64_VAL},
		{"reasm_failed", RTE_TEL_U64_VAL}, {"role", RTE_TEL_STRING_VAL},
		{"role_why", RTE_TEL_STRING_VAL}, {"interface_state", RTE_TEL_STRING_VAL},
	};
	struct rte_tel_data *c[RTE_DIM(cols)];
	struct mcfan_kernel_view kv;
	struct rte_eth_stats ps;
	uint16_t port;

	if (mcfan_tel_param_none(cmd, params) < 0)
		return -EINVAL;
	if (mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols)) < 0)
		return -ENOMEM;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used)
			continue;
		mcfan_port_stats_read(app, port, &ps);
		mcfan_kernel_read(app, port, &ps, &kv);
		rte_tel_data_add_array_int(c[0], port);
		rte_tel_data_add_array_string(c[1], app->ports[port].name);
		rte_tel_data_add_array_string(c[2], app->ports[port].driver);
		rte_tel_data_add_array_int(c[3], app->ports[port].nb_rxq);
		rte_tel_data_add_array_u64(c[4], ps.ipackets);
		rte_tel_data_add_array_u64(c[5], ps.imissed);
		rte_tel_data_add_array_u64(c[6], ps.ierrors);
		rte_tel_data_add_array_u64(c[7], ps.rx_nombuf);
		rte_tel_data_add_array_string(c[8], kv.source);
		rte_tel_data_add_array_string(c[9], kv.ifname);
		rte_tel_data_add_array_u64(c[10], kv.kernel_packets);
		rte_tel_data_add_array_u64(c[11], kv.kernel_drops);
		rte_tel_data_add_array_u64(c[12], kv.if_rx_packets);
		rte_tel_data_add_array_u64(c[13], kv.if_rx_dropped);
		/* net_af_packet only (0 elsewhere): the namespace's IPv4 reassembly */
		rte_tel_data_add_array_u64(c[14], kv.reasm_fragments);
		rte_tel_data_add_array_u64(c[15], kv.reasm_datagrams);
		rte_tel_data_add_array_u64(c[16], kv.reasm_failed);
		/* rx (polled, groups joined) or output (a tx output only: never polled) */
		rte_tel_data_add_array_string(c[17], mcfan_port_role_name(app->ports[port].role));
		rte_tel_data_add_array_string(c[18], app->ports[port].role_why != NULL ?
					      app->ports[port].role_why : "");
		/* present, gone (af_packet: nothing more received), away or none */
		rte_tel_data_add_array_string(c[19], kv.if_state);
	}
	mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
	return 0;
}
MCFAN_TEL_COMMAND(tel_ports, "/mcfan/ports",
		  "Per port: ethdev and kernel counters (kernel_packets = ipackets + kernel_drops), "
		  "role (rx or output) and why. No parameters")
