/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_TXSTALL_H
#define MCFAN_CONTROL_TXSTALL_H

/*
 * A tx output that sends nothing (docs/delivery.md "A tx output that sends nothing"): on
 * every control tick, read each worker lcore's tx outputs' tx_sent and tx_full; an output
 * that refused copies as tx_full and sent none for MCFAN_TXSTALL_MS is logged once, with its
 * port and queue (for net_memif: the peer needs as many RX queues as this side's TX
 * queues). So is a pcap output whose writer thread took no copy (pcap_written,
 * pcap_write_failed) for MCFAN_TXSTALL_MS while its ring refused copies as pcap_full (a file
 * system that takes no write). The decision: lib/util/mcfan_txstall.h. State is the control
 * lcore's alone.
 */

#include "mcfan.h"

/** How long an output refuses copies and sends (pcap: writes) none before the warning, ms. */
#define MCFAN_TXSTALL_MS 1000u

/** The check of every tx and pcap output, once per control tick. The control lcore only
 * (never a data lcore); each output is warned about at most once a run. */
void mcfan_txstall_tick(struct mcfan_app *app);

#endif /* MCFAN_CONTROL_TXSTALL_H */
