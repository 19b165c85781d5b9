/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_DATAPATH_DELIVER_H
#define MCFAN_DATAPATH_DELIVER_H

/*
 * The worker step every worker engine shares (datapath/deliver.c, docs/delivery.md): poll
 * the lcore's input rings, feed the copies to feed quality, count them per group, then hand
 * them to the engine instance of their group (the RX side stamped it into each copy's
 * metadata from the group entry) through the instance engine's deliver hook. With one
 * instance (the default) nothing is split; with several a burst whose copies all belong to
 * one instance costs one compare per copy, otherwise a stable counting sort (order kept
 * within an instance, every copy handed on exactly once: mcfan_worker_split()).
 */

#include <stdbool.h>

#include "mcfan.h"

struct mcfan_engine;

/**
 * One pass over worker lcore lc's input rings: at most one burst of at most burst copies
 * from each. The fast path: never blocks, allocates, prints or locks.
 *
 * @param burst
 *   Copies per ring, 1..MCFAN_MAX_BURST.
 * @param ms_on
 *   Microstate accounting is on for this loop iteration.
 * @param sel
 *   NULL: every copy goes to its group's instance (app->inst_engine[], lc->inst_priv[]);
 *   otherwise the engine `set engine LCORE` chose (one that needs no set-up), which takes
 *   every copy with a NULL priv.
 * @param sel_inst
 *   -1, or (sel NULL) the instance `set engine LCORE` chose (< app->n_inst): every copy goes
 *   to it, whatever its group's instance, counted in lc->inst_frames[sel_inst].
 * @return
 *   Copies taken in; 0 = the pass found no work.
 */
unsigned int mcfan_worker_step(struct mcfan_app *app, struct mcfan_lcore *lc,
			       unsigned int burst, bool ms_on, const struct mcfan_engine *sel,
			       int sel_inst);

#endif /* MCFAN_DATAPATH_DELIVER_H */
