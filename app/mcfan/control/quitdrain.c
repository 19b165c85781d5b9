/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* The quit drain (control/quitdrain.h): the frames left in the RX queues at quit. */

#include <inttypes.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mcfan.h"
#include "log.h"
#include "control/kernel.h"
#include "control/quitdrain.h"

#define QUITDRAIN_BURST 32

/* Drain one queue; *bytes receives the frames' lengths. Returns the frames drained. */
static uint64_t
drain_queue(uint16_t port, uint16_t queue, uint32_t max_frames, uint64_t *bytes)
{
	struct rte_mbuf *pkts[QUITDRAIN_BURST];
	uint64_t deadline = rte_get_tsc_cycles() +
		rte_get_tsc_hz() / 1000000 * MCFAN_QUITDRAIN_QUEUE_US;
	uint64_t frames = 0;
	uint16_t n, i;

	while (frames < max_frames && rte_get_tsc_cycles() < deadline) {
		n = rte_eth_rx_burst(port, queue, pkts, QUITDRAIN_BURST);
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			*bytes += rte_pktmbuf_pkt_len(pkts[i]);
			rte_pktmbuf_free(pkts[i]);
		}
		frames += n;
	}
	return frames;
}

/* The RX lcore that polled (port, queue) and the index of that pair in its stats block
 * (control/ports.c ports_assign() deals the pairs out before launch). A queue no RX lcore
 * polls should not exist: its frames are counted on the first RX lcore, under no pair (its
 * totals only), so that they are still counted where the totals come from. */
static struct mcfan_lcore *
queue_owner(struct mcfan_app *app, uint16_t port, uint16_t queue, unsigned int *pair)
{
	struct mcfan_lcore *lc;
	unsigned int r, i;

	for (r = 0; r < app->n_rx; r++) {
		lc = &app->lcores[app->rx_lcore_ids[r]];
		for (i = 0; i < lc->n_ports; i++) {
			if (lc->ports[i] == port && lc->queues[i] == queue) {
				*pair = i;
				return lc;
			}
		}
	}
	*pair = MCFAN_RX_STATS_PAIRS; /* >= n_pairs: no pair */
	return app->n_rx > 0 ? &app->lcores[app->rx_lcore_ids[0]] : NULL;
}

uint64_t
mcfan_quit_drain(struct mcfan_app *app)
{
	struct mcfan_lcore *owner;
	unsigned int pair;
	uint64_t total = 0, frames, bytes;
	struct mcfan_kernel_view kv;
	struct rte_eth_stats ps;
	uint32_t max_frames;
	uint16_t port, q;

	memset(&ps, 0, sizeof(ps));
	/* af_packet sockets take no new frame now: what reached one is in its ring, drained
	 * below, and its last statistics (at the port's stop) are final */
	mcfan_kernel_quiesce(app);

	RTE_ETH_FOREACH_DEV(port) {
		/* an output-only port's queues were never polled: what waits there is not
		 * mcfan's (the PMD frees it at close) */
		if (!app->ports[port].used || !app->ports[port].started ||
		    app->ports[port].role != MCFAN_PORT_RX)
			continue;
		/* only a port with a kernel queue in its path, or a net_ring port (its rings hold
		 * what was sent into them: by mcfan's tx engine too, whose TX feeds its own RX),
		 * holds frames that arrived and wait; a file source (net_pcap rx_pcap,
		 * infinite_rx) or net_null would only produce new ones */
		if (strcmp(app->ports[port].driver, "net_ring") != 0 &&
		    (mcfan_kernel_read(app, port, &ps, &kv) < 0 || strcmp(kv.source, "none") == 0))
			continue;
		max_frames = RTE_MAX((uint32_t)app->ports[port].nb_rxd,
				     (uint32_t)MCFAN_QUITDRAIN_MIN_FRAMES) +
			MCFAN_QUITDRAIN_EXTRA_BURSTS * QUITDRAIN_BURST;
		for (q = 0; q < app->ports[port].nb_rxq; q++) {
			bytes = 0;
			frames = drain_queue(port, q, max_frames, &bytes);
			if (frames == 0)
				continue;
			total += frames;
			MCFAN_LOG(INFO, "quit: port %u queue %u: %" PRIu64
				  " frames still queued, drained (quit_drained)\n", port, q, frames);
			/* received and dropped on the RX lcore that owned the queue (joined: the
			 * block has no other writer now), so that its, the port's and the summed
			 * totals all include them */
			owner = queue_owner(app, port, q, &pair);
			if (owner == NULL) /* no RX lcore: cannot be (ports_assign() needs one) */
				continue;
			mcfan_rx_stats_add_drops(&owner->rx.stats, pair, MCFAN_DROP_QUIT_DRAINED,
						 frames, bytes);
		}
	}
	return total;
}
