/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_DATAPATH_ENGINE_TX_H
#define MCFAN_DATAPATH_ENGINE_TX_H

/*
 * The worker engine "tx" (datapath/engine_tx.c) seen from the control side: the check that
 * no tx output sends copies back into mcfan as frames of a joined group (a net_ring port's
 * TX feeds its own RX, which mcfan polls), at start (the engine's configure) and before a
 * join (control/groups.c). Nothing here runs on a data lcore.
 */

#include <stddef.h>

#include "mcfan.h"

/** Room for the message of mcfan_tx_loop_check(), bytes: every group and ARGS at their longest. */
#define MCFAN_TX_LOOP_MSG_MAX 1024

/**
 * Refuse a set of joined groups in which a tx output on a net_ring port would send a copy
 * back to mcfan as a frame of a joined group: for every group G of keys and every tx
 * engine instance on a net_ring port, the destination of G's copies after the rewrite
 * (dst-ip, else G's address; dst-port, else G's port, which may be any port) must match no
 * group of keys. Every group counts, not only the instance's own: set engine LCORE tx...
 * sends every copy of a lcore to one output. Control side only (main lcore at start, or
 * under the action lock); allocates nothing.
 *
 * @param app
 *   The application, with its engine instances resolved (app->inst_engine). Not NULL.
 * @param keys
 *   The groups that would be joined (all of them, old and new). Not NULL when n > 0.
 * @param n
 *   Number of keys.
 * @param what
 *   What is checked, the message's first words ("join", "--worker-engine"). Not NULL.
 * @param msg
 *   One line naming the instance, the group, its rewritten destination and the port, or
 *   "" when there is no loop. Not NULL.
 * @param len
 *   Size of msg in bytes; MCFAN_TX_LOOP_MSG_MAX always suffices (cut to fit).
 * @return
 *   0 when no copy would come back as a joined group's frame, -ELOOP when one would.
 */
int mcfan_tx_loop_check(const struct mcfan_app *app, const struct mcfan_flow_key *keys,
			unsigned int n, const char *what, char *msg, size_t len);

/**
 * The warning that fan-out replicate with a tx output sends every frame more than once:
 * each of the N worker lcores gets every frame and each sends its copy out of its port, so
 * every frame of a group on a tx output leaves N times. The one sentence of --fanout
 * replicate at start (the engine's configure) and of set fanout ... replicate at run time
 * (control/groups.c). Control side only; allocates nothing.
 *
 * @param app
 *   The application, with its engine instances resolved (app->inst_engine) and its worker
 *   lcores counted (app->n_workers). Not NULL.
 * @param fanout
 *   The fan-out being set.
 * @param how
 *   How it is set, the sentence's words before "replicate" and "partition": "--fanout" at
 *   start, "set fanout" at run time. Not NULL.
 * @param msg
 *   Receives the sentence, without a line end, or "" when it does not apply. Not NULL.
 * @param len
 *   Size of msg in bytes (cut to fit; 320 always suffices).
 * @return
 *   1 when it applies (fanout is replicate, a worker engine instance is tx and there are at
 *   least 2 worker lcores), 0 when not.
 */
int mcfan_tx_replicate_warning(const struct mcfan_app *app, enum mcfan_fanout fanout,
			       const char *how, char *msg, size_t len);

#endif /* MCFAN_DATAPATH_ENGINE_TX_H */
