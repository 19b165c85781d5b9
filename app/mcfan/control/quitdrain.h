/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_QUITDRAIN_H
#define MCFAN_APP_QUITDRAIN_H

/*
 * The quit drain: frames still waiting in a port's RX queue (net_af_packet's kernel ring,
 * net_tap's or net_pcap's queue) when the RX lcores stop are received by the control side,
 * freed and counted under the drop reason `quit_drained`, so that no frame is lost silently
 * at quit. Control side only, called once from main() after the data lcores are joined and
 * before the ports are stopped (so the kernel-side counters read at the stop are final).
 */

#include <stdint.h>

#include "mcfan.h"

/** Most bursts taken from one RX queue beyond its ring size, frames / burst. */
#define MCFAN_QUITDRAIN_EXTRA_BURSTS 4
/** Least ring size assumed for a queue, frames: a kernel ring can hold more than the
 * port's descriptors (net_af_packet's framecnt is its own vdev argument, 4096 in the
 * benchmarks, and ignores nb_rxd). The time bound below still holds. */
#define MCFAN_QUITDRAIN_MIN_FRAMES 262144
/** Longest time spent draining one RX queue, microseconds. */
#define MCFAN_QUITDRAIN_QUEUE_US 50000

/**
 * Drain every RX queue of every used, started port that has a kernel queue in its path
 * (control/kernel.h source other than "none": net_af_packet, net_tap, net_pcap on a live
 * interface; a file or memory source only makes new frames): rte_eth_rx_burst() until it
 * returns 0, at most the queue's ring size (nb_rxd, and at least MCFAN_QUITDRAIN_MIN_FRAMES)
 * plus MCFAN_QUITDRAIN_EXTRA_BURSTS bursts of frames and
 * MCFAN_QUITDRAIN_QUEUE_US microseconds per queue, so a port that keeps receiving cannot
 * hold the quit. Every mbuf received is freed to its pool here (the drain owns it); the
 * frames and their bytes are counted in the stats block of the RX lcore that polled the
 * queue, under that (port, queue) pair (mcfan_rx_stats_add_drops()), as received (rx_frames,
 * rx_bytes) and as drops[MCFAN_DROP_QUIT_DRAINED]: the lcore's, the port's and the totals
 * (control/stats.h) include them with no special case. A queue no RX lcore polled (cannot
 * happen: control/ports.c gives each one out) would count on the first RX lcore, in its
 * totals only. Must be called only when no data lcore runs (after they are joined): the
 * drain is then the blocks' only writer.
 *
 * @param app
 *   The application; its ports[].used, started and nb_rxq say what to drain.
 * @return
 *   The number of frames drained by this call (0 or more).
 */
uint64_t
mcfan_quit_drain(struct mcfan_app *app);

#endif /* MCFAN_APP_QUITDRAIN_H */
