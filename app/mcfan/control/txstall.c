/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * A tx output that sends nothing, a pcap output whose writer takes nothing: the control
 * side's one-time warning (control/txstall.h).
 */

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "mcfan.h"
#include "mcfan_txstall.h"
#include "log.h"
#include "control/stats.h"
#include "control/txstall.h"
#include "datapath/engine.h"

/* Per worker (index in worker_lcore_ids) and engine instance; the control lcore's alone. */
static struct mcfan_txstall stall[MCFAN_MAX_WORKERS][MCFAN_ENGINE_INST_MAX];

static void
warn(const struct mcfan_app *app, unsigned int lcore, const struct mcfan_inst_view *v,
     uint64_t sent, uint64_t full, uint64_t port, uint64_t queue)
{
	const struct mcfan_port *p = port < RTE_MAX_ETHPORTS ? &app->ports[port] : NULL;
	unsigned int txq = p != NULL ? 1u + p->nb_txq_workers : 0u;
	bool memif = p != NULL && strcmp(p->driver, "net_memif") == 0;
	struct rte_eth_link link;
	char why[224] = "";

	/* A link that is down is the reason whatever the queues: a net_memif without a peer
	 * connected (its queue advice would send the user to a peer that is not there). */
	memset(&link, 0, sizeof(link));
	if (p != NULL && rte_eth_link_get_nowait((uint16_t)port, &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_DOWN) {
		if (memif)
			snprintf(why, sizeof(why), ": no net_memif peer is connected; connect one "
				 "with %u RX queues (e.g. dpdk-testpmd --rxq=%u --txq=%u; a peer in "
				 "another network namespace needs socket-abstract=no on both sides)",
				 txq, txq, txq);
		MCFAN_LOG(WARNING, "tx output %s%s%s on lcore %u: port %" PRIu64 " (%s) TX queue %"
			  PRIu64 " has sent nothing for %u ms and refused %" PRIu64 " copies as "
			  "tx_full (tx_sent %" PRIu64 "): the port's link is down%s "
			  "(docs/delivery.md \"A tx output that sends nothing\")\n", v->engine,
			  v->args[0] != '\0' ? ":" : "", v->args, lcore, port, p->name, queue,
			  MCFAN_TXSTALL_MS, full, sent, why);
		return;
	}
	if (memif) {
		MCFAN_LOG(WARNING, "tx output %s%s%s on lcore %u: port %" PRIu64 " (%s) TX queue %"
			  PRIu64 " has sent nothing for %u ms and refused %" PRIu64 " copies as "
			  "tx_full (tx_sent %" PRIu64 "): a net_memif peer must have as many RX "
			  "queues as this side's TX queues, here %u (queue 0 the control lcore's, "
			  "one per tx worker), else queue %" PRIu64 " has no ring on the peer; "
			  "start the peer with %u RX queues (e.g. dpdk-testpmd --rxq=%u --txq=%u; "
			  "docs/delivery.md \"A tx output that sends nothing\")\n", v->engine,
			  v->args[0] != '\0' ? ":" : "", v->args, lcore, port, p->name, queue, MCFAN_TXSTALL_MS, full, sent, txq,
			  queue, txq, txq, txq);
		return;
	}
	MCFAN_LOG(WARNING, "tx output %s%s%s on lcore %u: port %" PRIu64 " (%s) TX queue %" PRIu64
		  " has sent nothing for %u ms and refused %" PRIu64 " copies as tx_full (tx_sent "
		  "%" PRIu64 "): the port takes no frame on that queue (link down, peer not "
		  "reading?) (docs/delivery.md \"A tx output that sends nothing\")\n", v->engine,
		  v->args[0] != '\0' ? ":" : "", v->args, lcore, port, p != NULL ? p->name : "?", queue, MCFAN_TXSTALL_MS, full,
		  sent);
}

/* A pcap output whose writer thread took no copy of the lcore's ring while the ring refused
 * copies (a file system that takes no write: frozen, a hung network mount). */
static void
warn_pcap(unsigned int lcore, const struct mcfan_inst_view *v, uint64_t taken, uint64_t full)
{
	MCFAN_LOG(WARNING, "pcap output %s%s%s on lcore %u: the writer thread has taken no copy "
		  "for %u ms and the ring refused %" PRIu64 " copies as pcap_full (written or "
		  "failed so far %" PRIu64 "): its directory's file system takes no write (frozen, "
		  "a hung network mount?); the worker goes on and counts every copy refused "
		  "(docs/delivery.md \"A disk that takes no write\")\n", v->engine,
		  v->args[0] != '\0' ? ":" : "", v->args, lcore, MCFAN_TXSTALL_MS, full, taken);
}

/* The pcap output k of worker w: the copies its writer took (pcap_written and
 * pcap_write_failed) against those its ring refused (pcap_full). */
static void
pcap_tick(struct mcfan_txstall *s, unsigned int lcore, const struct mcfan_inst_view *v,
	  uint64_t now, uint64_t window)
{
	uint64_t taken = 0, full = 0;
	unsigned int have = 0;
	int i;

	for (i = 0; i < v->n_values; i++) {
		if (strcmp(v->values[i].name, "pcap_written") == 0 ||
		    strcmp(v->values[i].name, "pcap_write_failed") == 0) {
			taken += v->values[i].value;
			have |= strcmp(v->values[i].name, "pcap_written") == 0 ? 1 : 2;
		} else if (strcmp(v->values[i].name, "pcap_full") == 0) {
			full = v->values[i].value;
			have |= 4;
		}
	}
	if (have == 7 && mcfan_txstall_check(s, taken, full, now + 1, window))
		warn_pcap(lcore, v, taken, full);
}

void
mcfan_txstall_tick(struct mcfan_app *app)
{
	struct mcfan_inst_view v;
	uint64_t now = rte_rdtsc(), window = app->tsc_hz / 1000 * MCFAN_TXSTALL_MS;
	uint64_t sent, full, port, queue;
	unsigned int w, k, id, have;
	int i;

	for (w = 0; w < app->n_workers && w < MCFAN_MAX_WORKERS; w++) {
		id = app->worker_lcore_ids[w];
		for (k = 0; k < app->n_inst && k < MCFAN_ENGINE_INST_MAX; k++) {
			if (stall[w][k].warned || (strcmp(app->inst_engine[k]->name, "tx") != 0 &&
						   strcmp(app->inst_engine[k]->name, "pcap") != 0) ||
			    mcfan_lcore_inst_read(app, id, k, &v) < 0)
				continue;
			if (strcmp(app->inst_engine[k]->name, "pcap") == 0) {
				pcap_tick(&stall[w][k], id, &v, now, window);
				continue;
			}
			sent = full = port = queue = 0;
			have = 0;
			for (i = 0; i < v.n_values; i++) {
				if (strcmp(v.values[i].name, "tx_sent") == 0) {
					sent = v.values[i].value;
					have |= 1;
				} else if (strcmp(v.values[i].name, "tx_full") == 0) {
					full = v.values[i].value;
					have |= 2;
				} else if (strcmp(v.values[i].name, "tx_port") == 0) {
					port = v.values[i].value;
				} else if (strcmp(v.values[i].name, "tx_queue") == 0) {
					queue = v.values[i].value;
				}
			}
			if (have == 3 &&
			    mcfan_txstall_check(&stall[w][k], sent, full, now + 1, window))
				warn(app, id, &v, sent, full, port, queue);
		}
	}
}
