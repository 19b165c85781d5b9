/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_READERS_H
#define MCFAN_CONTROL_READERS_H

/*
 * Reader rings, the control side (control/readers.c, docs/readers.md): when a worker runs
 * the `readers` engine, every joined group gets a broadcast ring in POSIX shared memory
 * (lib/reader), created before launch for --groups and at the join for a later group,
 * named after the EAL file prefix, closed and unlinked at exit. The workers find a copy's
 * ring by its counter slot in struct mcfan_rw_table (app->readers); this file is its only
 * writer. The read side (show readers, /mcfan/readers) copies each ring's counters and its
 * reader table.
 *
 * Protocol: rings are created and the table written under the action lock (or before
 * launch); a ring is never freed before the data lcores have stopped (mcfan_readers_free()),
 * so a reader of the list (any control thread) may look at every ring it finds.
 */

#include <stddef.h>
#include <stdint.h>

#include "mcfan.h"
#include "mcfan_reader_writer.h"

/** Name of the worker engine that writes reader rings. */
#define MCFAN_READERS_ENGINE "readers"

/** One ring, as the read side copies it. */
struct mcfan_readers_view {
	char group[MCFAN_RD_GROUP_MAX];  /**< "239.9.9.1:3999". */
	char name[MCFAN_RD_NAME_MAX];    /**< Shared-memory object, "/mcfan.PREFIX.ADDR.PORT". */
	unsigned int owner_lcore;        /**< The worker lcore that writes it. */
	uint32_t n_slots;                /**< Frames it holds. */
	uint32_t data_max;               /**< Longest frame a slot holds, bytes. */
	uint64_t written;                /**< Frames written (delivered to the ring). */
	uint64_t bytes;                  /**< Their bytes. */
	uint64_t too_big;                /**< Frames longer than data_max: reader_too_big. */
	uint64_t wakes;                  /**< FUTEX_WAKE calls. */
	uint32_t waiters;                /**< Readers asleep now. */
	unsigned int n_readers;          /**< Entries of readers[]. */
	struct mcfan_rw_reader_info *readers; /**< Its readers, dead ones included. */
};

/** Counters of one worker lcore that runs the engine. */
struct mcfan_readers_worker_view {
	unsigned int lcore;
	uint64_t not_owner;              /**< Copies of a group another worker writes. */
	uint64_t no_ring;                /**< Copies of a slot without a ring (reader_no_ring). */
};

/**
 * Whether any worker engine instance (the --worker-engine or a --group-engine) is readers,
 * so that reader rings will be made (every worker lcore runs every instance). Main lcore,
 * after mcfan_setup_lcores() (the instance table), before or after mcfan_readers_start().
 *
 * @return
 *   true if a worker lcore exists and an instance's engine is readers.
 */
bool mcfan_readers_wanted(const struct mcfan_app *app);

/**
 * Create the rings of the groups joined at start, if any worker runs the readers engine
 * (app->readers stays NULL otherwise). Before launch, after the group table is published.
 *
 * @return
 *   0, -ENOMEM, or the negative errno of mcfan_rw_create() (logged with the group).
 */
int mcfan_readers_start(struct mcfan_app *app);

/**
 * Rings for groups being joined (control/groups.c, under the action lock, before the new
 * group table is published): each group's ring is found or created, owned by the worker
 * that partition would pick among eligible, and set in its counter slot. Nothing when no
 * worker runs the readers engine.
 *
 * @return
 *   0, or a negative errno with msg written (the join is then refused).
 */
int mcfan_readers_join(struct mcfan_app *app, const struct mcfan_flow_key *keys,
		       const uint16_t *slots, unsigned int n, const uint16_t *eligible,
		       unsigned int n_eligible, char *msg, size_t len);

/** Take back the waits of dead readers, at most once a second; from the control tick. */
void mcfan_readers_tick(struct mcfan_app *app);

/** Close and unlink every ring; after the data lcores have stopped. */
void mcfan_readers_free(struct mcfan_app *app);

/**
 * Copy the rings' state (read side): rings of joined and left groups, in creation order.
 *
 * @param out
 *   Receives a malloc'd array (free with mcfan_readers_view_free()); NULL when none.
 * @param workers
 *   Receives up to max_workers worker counters (may be NULL).
 * @param n_workers
 *   Receives how many (may be NULL).
 * @return
 *   Rings (>= 0); -ENODEV (no worker runs the readers engine), -ENOMEM.
 */
int mcfan_readers_read(const struct mcfan_app *app, struct mcfan_readers_view **out,
		       struct mcfan_readers_worker_view *workers, unsigned int max_workers,
		       unsigned int *n_workers);

/** Free what mcfan_readers_read() returned (n rings). */
void mcfan_readers_view_free(struct mcfan_readers_view *v, unsigned int n);

#endif /* MCFAN_CONTROL_READERS_H */
