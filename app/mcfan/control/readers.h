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
 * launch). A ring nobody serves any more (its group left, or a newer ring of the group
 * replaced it) is retired and freed while mcfan runs: a left group's once its counter slot
 * is drained (mcfan_readers_drained()), a replaced one at the next tick; after a worker
 * grace period (app->wqsbr) it must also be off its owner's deferred-wake list
 * (mcfan_rw_deferred()), then it waits one more grace period in an RCU defer queue and is
 * unlinked and unmapped from the tick (never blocking it). A control thread without the
 * action lock reads the list under the read side's lock (mcfan_readers_read()); the others
 * are freed at exit (mcfan_readers_free()).
 */

#include <stddef.h>
#include <stdint.h>

#include "mcfan.h"
#include "mcfan_reader_writer.h"

/** Name of the worker engine that writes reader rings. */
#define MCFAN_READERS_ENGINE "readers"

/** Counts of readers gone from a ring (closed, or their row taken by another reader). */
struct mcfan_readers_gone {
	uint64_t frames;                 /**< Frames they read. */
	uint64_t lost;                   /**< Frames they lost, lapped. */
	uint64_t laps;                   /**< Times they were lapped. */
};

/** One ring, as the read side copies it. */
struct mcfan_readers_view {
	char group[MCFAN_RD_GROUP_MAX];  /**< "239.9.9.1:3999". */
	struct mcfan_flow_key key;       /**< The group, as joined. */
	char name[MCFAN_RD_NAME_MAX];    /**< Shared-memory object, "/mcfan.PREFIX.ADDR.PORT". */
	/** The name no longer opens this ring (removed from /dev/shm, or another file; not a
	 * moved ring, whose name its newer ring has): the tick makes the group a new ring. */
	bool name_gone;
	unsigned int owner_lcore;        /**< The worker lcore that writes it. */
	uint32_t n_slots;                /**< Frames it holds. */
	uint32_t data_max;               /**< Longest frame a slot holds, bytes. */
	uint64_t written;                /**< Frames written (delivered to the ring). */
	uint64_t bytes;                  /**< Their bytes. */
	uint64_t too_big;                /**< Frames longer than data_max: reader_too_big. */
	uint64_t wakes;                  /**< FUTEX_WAKE calls. */
	uint32_t waiters;                /**< Readers asleep now. */
	uint32_t serve;                  /**< MCFAN_RD_SERVE_*: who writes its frames now. */
	uint32_t serve_lcore;            /**< With MCFAN_RD_SERVE_LCORE: that lcore. */
	char serve_engine[MCFAN_RD_ENGINE_MAX]; /**< The other engine ("count"), or "". */
	unsigned int n_readers;          /**< Entries of readers[]. */
	struct mcfan_rw_reader_info *readers; /**< Its readers, dead ones included. */
	/**
	 * Per reader (same index as readers): true if it has series of its own on /metrics.
	 * Decided when the read side first sees the reader and kept while it stays: the first
	 * --metrics-max-groups readers of the first --metrics-max-groups rings that are
	 * there at once get one; a reader that leaves frees its place for the next one to come,
	 * and a reader without one is never promoted (docs/metrics.md "Cardinality").
	 */
	bool *own;
	/**
	 * The readers without series of their own that have left the ring since the start,
	 * their counts when last seen (the whole of them when the read side saw the row freed):
	 * with the present ones they make reader="_other" monotonic.
	 */
	struct mcfan_readers_gone gone;
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

/** Longest text of mcfan_readers_served_text(), with the NUL. */
#define MCFAN_READERS_SERVED_MAX (MCFAN_RD_ENGINE_MAX + 16)

/**
 * Who writes a ring's frames now, as show readers, /mcfan/readers and the report word it:
 * "readers" (the readers engine), the other engine its group goes to ("count"), "lcore L:
 * NAME" (its writer lcore runs NAME for every copy), "left" (mcfan left the group), "moved"
 * (joined again on other workers: a newer ring has the frames), "unknown".
 *
 * @param v
 *   A ring of mcfan_readers_read().
 * @param buf
 *   Receives the text; MCFAN_READERS_SERVED_MAX bytes suffice.
 * @param len
 *   Size of buf, bytes.
 * @return
 *   buf.
 */
const char *mcfan_readers_served_text(const struct mcfan_readers_view *v, char *buf,
				      size_t len);

/**
 * Say in every ring's header whether the readers engine writes it now (mcfan_rw_set_serve()):
 * for the group's entry, the engine its writer worker hands the copies to (the lcore's
 * `set engine LCORE` selection, else the group's instance); a group no longer joined is
 * MCFAN_RD_SERVE_LEFT, a ring replaced by a newer one of the group MCFAN_RD_SERVE_MOVED.
 * A ring that stops being served wakes its sleepers, whose wait then returns -EXDEV. Under
 * the action lock (or before launch), after every change of the group entries or of a
 * worker lcore's engine (rings x group entries key compares: an action's cost, not the
 * tick's). Nothing without reader rings.
 */
void mcfan_readers_sync(struct mcfan_app *app);

/**
 * Remove the reader rings of this file prefix that a dead writer left in /dev/shm
 * (mcfan_rw_remove_stale(): a killed run's; on every start, with the readers engine or not),
 * then create the rings of the groups joined at start, if any worker runs the readers engine
 * (app->readers stays NULL otherwise). Before launch, after the group table is published.
 *
 * @return
 *   0, -ENOMEM, or the negative errno of mcfan_rw_create() (logged with the group).
 */
int mcfan_readers_start(struct mcfan_app *app);

/**
 * Rings for groups being joined (control/groups.c, under the action lock, before the new
 * group table is published): each group's ring is found or created, owned by the worker
 * that partition would pick among eligible, and set in its counter slot. The ring is full
 * (--reader-ring-frames) when the readers engine serves the group (instance inst, or the
 * owner lcore's `set engine LCORE` selection), else idle: the smallest ring the format
 * allows (2 frames, one reader row, 12 KiB), there for its serve words only; a full ring
 * stays full. Nothing when no worker runs the readers engine.
 *
 * @param inst
 *   The worker engine instance the groups join (0 .. app->n_inst - 1).
 * @return
 *   0, or a negative errno with msg written (the join is then refused).
 */
int mcfan_readers_join(struct mcfan_app *app, const struct mcfan_flow_key *keys,
		       const uint16_t *slots, unsigned int n, unsigned int inst,
		       const uint16_t *eligible, unsigned int n_eligible, char *msg, size_t len);

/**
 * Give a full ring (--reader-ring-frames) to every group with an idle ring that the readers
 * engine will serve after a change not yet published: the group entries about to be
 * published (a `set engine GROUPS`), or the selection sel about to be stored in sel_lc's
 * worker_engine_sel (a `set engine LCORE`). The full ring replaces the idle one as a ring
 * of another writer does (same name; the idle one superseded, its serve words "moved" at
 * the next mcfan_readers_sync()) and is stored in the group's counter slot (release) here,
 * before the caller publishes the change: the readers engine never sees an idle ring.
 * Rings never shrink. Under the action lock. Nothing without reader rings.
 *
 * @param entries
 *   The group entries to be published, or NULL for app->group_entries.
 * @param n_entries
 *   How many (ignored with entries NULL).
 * @param sel_lc
 *   The lcore whose selection changes, or NULL.
 * @param sel
 *   Its new selection (0: by group; ignored with sel_lc NULL).
 * @return
 *   0, or a negative errno with msg written (-ENOSPC: /dev/shm is full); the caller then
 *   refuses the change (the rings made so far stay, their serve words synced).
 */
int mcfan_readers_grow(struct mcfan_app *app, const struct mcfan_group_entry *entries,
		       unsigned int n_entries, const struct mcfan_lcore *sel_lc, uint32_t sel,
		       char *msg, size_t len);

/**
 * Take back the waits of dead readers and make a new ring for a served group whose ring's
 * name was removed from /dev/shm (docs/readers.md "A ring removed from /dev/shm"; said in
 * the log), at most once a second, and move the retired rings on to their free (never
 * waits); from the control tick, under the action lock.
 *
 * @return
 *   true while retired rings wait for a grace period (the caller ticks again soon), false
 *   otherwise.
 */
bool mcfan_readers_tick(struct mcfan_app *app);

/**
 * A drain of counter slots ended (control/groups.c): every copy tagged with slots[0..n-1]
 * before their groups left has been handed to its engine. The rings of left groups last
 * stored in those slots are retired (freed after a worker grace period, from the tick).
 * Under the action lock.
 *
 * @param slots
 *   The counter slots drained, 0..MCFAN_MAX_GROUPS-1.
 * @param n
 *   Their number.
 */
void mcfan_readers_drained(struct mcfan_app *app, const uint16_t *slots, unsigned int n);

/**
 * The rings retired and how many were freed (show readers, /mcfan/readers, the report);
 * any control thread.
 *
 * @param waiting
 *   Receives the rings nobody serves any more that are not freed yet (left groups' waiting
 *   for their slot's drain, replaced ones, and those waiting for a worker grace period).
 * @param freed
 *   Receives the rings freed (unlinked and unmapped) while mcfan runs, since the start.
 */
void mcfan_readers_retired(const struct mcfan_app *app, uint64_t *waiting, uint64_t *freed);

/**
 * Rings made again since the start because their name was removed from /dev/shm (or
 * replaced by another file) while mcfan wrote them: rings_recreated (show readers,
 * /mcfan/readers, the report); any control thread.
 *
 * @return
 *   The count (0 without the readers engine).
 */
uint64_t mcfan_readers_recreated(const struct mcfan_app *app);

/** Close and unlink every ring; after the data lcores have stopped. */
void mcfan_readers_free(struct mcfan_app *app);

/**
 * Copy the rings' state (read side): rings of joined groups, and of left or replaced ones
 * until they are freed, in creation order.
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

/**
 * The one group of `show readers GROUP` and `/mcfan/readers,GROUP`, parsed and checked as
 * `show feed gaps` does it: one group of the group parser (its reason for a bad one; "names
 * more than one group" for a list or range), which must be joined or have a ring (a group
 * left keeps its ring until it is freed, and may be asked for until then). Any control thread.
 *
 * @param what
 *   The command, for the message's start ("show readers").
 * @param group
 *   The text given. NULL or "" is refused.
 * @param key
 *   Receives the group: list the rings whose key equals it (mcfan_flow_key_equal()).
 * @param msg, len
 *   Receives "WHAT: ..." when refused.
 * @return
 *   0; -EINVAL (not one group), -ENOENT (not joined and no ring: "WHAT: group G is not
 *   joined", naming a joined group of the same address if there is one).
 */
int mcfan_readers_group_parse(const struct mcfan_app *app, const char *what,
			      const char *group, struct mcfan_flow_key *key, char *msg,
			      size_t len);

/** Free what mcfan_readers_read() returned (n rings). */
void mcfan_readers_view_free(struct mcfan_readers_view *v, unsigned int n);

#endif /* MCFAN_CONTROL_READERS_H */
