/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_DATAPATH_FEED_H
#define MCFAN_DATAPATH_FEED_H

/*
 * Feed quality on the worker lcores (docs/feed.md): the worker step that hands each copy of
 * a group with a sequence extractor to the group's tracker (lib/feed/mcfan_feed.h), if this
 * worker is the group's owner (partition: the group's worker; replicate: its first target),
 * and the idle tick that settles gaps whose time window ran out. Fast path: no syscall, lock,
 * allocation or print; the bindings come from app->feed (RCU-style publication, see
 * struct mcfan_feed_table).
 */

#include <stdint.h>

#include <rte_mbuf.h>

#include "mcfan.h"

/**
 * Track the copies of a dequeued burst: before they are counted and freed. Only reads the
 * mbufs; their ownership does not change.
 *
 * @param app
 *   The application (app->feed may be NULL: nothing to do).
 * @param lc
 *   The calling worker lcore.
 * @param pkts
 *   The copies.
 * @param n
 *   0..MCFAN_MAX_BURST.
 */
void mcfan_feed_worker_burst(struct mcfan_app *app, struct mcfan_lcore *lc,
			     struct rte_mbuf **pkts, uint16_t n);

/**
 * On a pass that found no work: at most once a millisecond, settle the gaps of this
 * worker's groups whose time window ran out (a stream that stopped still has its tail
 * counted).
 *
 * @param app
 *   The application.
 * @param lc
 *   The calling worker lcore.
 */
void mcfan_feed_worker_idle(struct mcfan_app *app, struct mcfan_lcore *lc);

#endif /* MCFAN_DATAPATH_FEED_H */
