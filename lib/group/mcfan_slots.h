/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_SLOTS_H
#define MCFAN_SLOTS_H

/**
 * @file
 * Group counter slots: their lifecycle, pure (no rings, no lcores, no clock).
 *
 * Each joined group owns a slot (0..MCFAN_MAX_GROUPS-1) that tags its frames and indexes
 * the workers' per-group counters. A slot is
 *  - free: never used, or retired and drained;
 *  - in use: its group is joined;
 *  - retired: its group has left, and some frame it tagged may still be uncounted.
 * Each retirement gets the next number of a sequence (1, 2, ...); "drained up to N" means
 * every slot retired with a number <= N has every frame it tagged counted, so it is free
 * again. A slot is handed to a new group only once free; fresh slots are used first,
 * round-robin from a cursor, so reuse happens late.
 *
 * Draining (mcfan_slots_drain_step(), once a control tick, after the leave's group table is
 * published and its RCU grace period is over, so no RX lcore tags with a retired slot):
 *  1. record every worker ring's producer tail (everything tagged was enqueued before);
 *  2. wait until every ring's consumer tail has passed what was recorded (every tagged
 *     copy dequeued), then take each worker's target: the sum of its rings' consumer tails;
 *  3. wait until each worker's copy counter has reached its target (every dequeued copy
 *     counted); then everything retired up to the number of step 1 is drained. What
 *     "counted" covers is the caller's counter: mcfan's is advanced after the worker's
 *     engines took the copies (struct mcfan_lcore handed), so a drained slot's copies are
 *     all in their engines (the pcap writer's ring included).
 * Tails and counters are free-running 32-bit numbers (rte_ring's head/tail indexes, the low
 * bits of a worker's copy counter) compared modulo 2^32.
 *
 * Not thread-safe: one writer (the control side, serialised by its action lock).
 */

#include <stdbool.h>
#include <stdint.h>

#include "mcfan_group.h"

/** A slot's state (see the file comment). */
enum mcfan_slot_state {
	MCFAN_SLOT_FREE = 0,   /**< Never used, or retired and drained. */
	MCFAN_SLOT_IN_USE,     /**< Its group is joined. */
	MCFAN_SLOT_RETIRED,    /**< Left; free once drained. */
};

/** Where the drain stands. */
enum mcfan_slots_stage {
	MCFAN_SLOTS_IDLE = 0,  /**< No drain running. */
	MCFAN_SLOTS_RINGS,     /**< Producer tails recorded: waiting for the consumer tails. */
	MCFAN_SLOTS_COUNTERS,  /**< Targets taken: waiting for the workers' copy counters. */
};

struct mcfan_slots;

/**
 * Create the slots of an application with n_rx RX lcores and n_workers workers (its rings
 * are [rx * n_workers + worker]); every slot free, cursor at slot 0.
 *
 * @return
 *   The slots, or NULL with rte_errno EINVAL (a count of 0, or above RTE_MAX_LCORE) or
 *   ENOMEM.
 */
struct mcfan_slots *mcfan_slots_create(unsigned int n_rx, unsigned int n_workers);

/** Free slots made by mcfan_slots_create(); NULL is allowed. */
void mcfan_slots_free(struct mcfan_slots *s);

/**
 * Put a free slot in use for a group joined at start (ids 0..n-1 from --groups); moves
 * the cursor past it.
 *
 * @return
 *   0; -EINVAL (slot >= MCFAN_MAX_GROUPS), -EBUSY (not free).
 */
int mcfan_slots_claim(struct mcfan_slots *s, uint16_t slot);

/**
 * Find up to n free slots, round-robin from the cursor; changes nothing.
 *
 * @param out
 *   Receives the slots, in the order to use them (room for n).
 * @return
 *   Slots found (0..n).
 */
unsigned int mcfan_slots_find(const struct mcfan_slots *s, unsigned int n, uint16_t *out);

/**
 * Put slots (from mcfan_slots_find()) in use, marked used (their counters need a rebase if
 * they are ever reused), and move the cursor past the last one. All or nothing.
 *
 * @return
 *   0; -EINVAL (n == 0, or a slot out of range or listed twice), -EBUSY (a slot not free).
 */
int mcfan_slots_take(struct mcfan_slots *s, const uint16_t *slots, unsigned int n);

/**
 * Retire an in-use slot: it gets the next retirement number.
 *
 * @return
 *   The retirement number (>= 1); -EINVAL (slot out of range or not in use).
 */
int64_t mcfan_slots_retire(struct mcfan_slots *s, uint16_t slot);

/**
 * State of a slot; MCFAN_SLOT_FREE for a slot out of range.
 *
 * @return
 *   The slot's state.
 */
enum mcfan_slot_state mcfan_slots_state(const struct mcfan_slots *s, uint16_t slot);

/**
 * Has the slot ever been in use (so its counters hold a former group's counts)?
 *
 * @return
 *   true if the slot was ever in use (false out of range).
 */
bool mcfan_slots_was_used(const struct mcfan_slots *s, uint16_t slot);

/**
 * Retirement number of the slot's last retirement; 0 if never retired.
 *
 * @return
 *   The number, 1.., or 0.
 */
uint64_t mcfan_slots_retired_seq(const struct mcfan_slots *s, uint16_t slot);

/**
 * Last retirement number handed out; 0 = none yet.
 *
 * @return
 *   The number, 1.., or 0.
 */
uint64_t mcfan_slots_seq(const struct mcfan_slots *s);

/**
 * Retirements up to this number are drained.
 *
 * @return
 *   The number, 0 when nothing is drained yet.
 */
uint64_t mcfan_slots_done_seq(const struct mcfan_slots *s);

/**
 * Retirement number the running drain will reach; 0 = no drain running.
 *
 * @return
 *   The number, 1.., or 0.
 */
uint64_t mcfan_slots_check_seq(const struct mcfan_slots *s);

/**
 * Where the drain stands.
 *
 * @return
 *   The stage (MCFAN_SLOTS_IDLE when no drain runs).
 */
enum mcfan_slots_stage mcfan_slots_stage(const struct mcfan_slots *s);

/**
 * Is there work for mcfan_slots_drain_step() (a drain running, or retirements undrained)?
 *
 * @return
 *   true if mcfan_slots_drain_step() has work.
 */
bool mcfan_slots_drain_pending(const struct mcfan_slots *s);

/**
 * One step of draining (see the file comment), from a snapshot the caller takes in this
 * order: every ring's tails, then every worker's copy counter (so that a counter is never
 * older than the tails).
 *
 * @param prod_tail
 *   Producer tail of each ring, [rx * n_workers + worker].
 * @param cons_tail
 *   Consumer tail of each ring, same indexes.
 * @param worker_copies
 *   Low 32 bits of each worker's copy counter (copies it has counted), [worker].
 * @return
 *   1 if this step finished a drain (done_seq advanced), 0 if not (or nothing to do),
 *   -EINVAL if an argument is NULL.
 */
int mcfan_slots_drain_step(struct mcfan_slots *s, const uint32_t *prod_tail,
			   const uint32_t *cons_tail, const uint32_t *worker_copies);

#endif /* MCFAN_SLOTS_H */
