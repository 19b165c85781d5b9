/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_PCAP_H
#define MCFAN_CONTROL_PCAP_H

/* The pcap engine's writer thread (control/pcap.c, datapath/engine_pcap.h). */

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
 * Stop the writer: it first writes (or counts) every copy left in the rings, then every file
 * is closed and every mbuf is back in its pool. Main lcore, after the data lcores returned;
 * safe when the writer never started.
 */
void mcfan_pcap_stop(struct mcfan_app *app);

#endif /* MCFAN_CONTROL_PCAP_H */
