/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_PCAP_H
#define MCFAN_CONTROL_PCAP_H

/* The pcap engine's writer thread (control/pcap.c, datapath/engine_pcap.h). */

#include <stdbool.h>
#include <stdint.h>

#include "mcfan.h"

/**
 * Start the writer thread if a worker runs the pcap engine (nothing otherwise). Main lcore,
 * after the engines are configured, before launch.
 *
 * @return
 *   0, or -ENOMEM (the pool, the file table or the thread could not be made; logged).
 */
int mcfan_pcap_start(struct mcfan_app *app);

/**
 * Is the writer running (a worker runs the pcap engine)? Main lcore.
 *
 * @return
 *   true while the writer thread runs.
 */
bool mcfan_pcap_active(void);

/**
 * The slot drain ended for the memberships join_seq[i] of counter slots slot[i] (i < n):
 * every copy of each is in its engine (control/groups.c, after the workers' handed counters
 * reached the drain's targets). Takes every pcap ring's producer tail now and posts it with
 * the memberships to the writer, which closes their files once its consumer position on
 * each ring has reached that tail (docs/delivery.md). The control lcore, under the action
 * lock; nothing when the writer does not run.
 */
void mcfan_pcap_drained(struct mcfan_app *app, const uint16_t *slot, const uint32_t *join_seq,
			unsigned int n);

/**
 * Stop the writer: it first writes (or counts) every copy left in the rings, then every file
 * is closed and every mbuf is back in its pool. Main lcore, after the data lcores returned;
 * safe when the writer never started.
 */
void mcfan_pcap_stop(struct mcfan_app *app);

#endif /* MCFAN_CONTROL_PCAP_H */
