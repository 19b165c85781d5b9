/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Group counter slots' lifecycle (mcfan_slots.h): pure state, no rings or lcores. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "mcfan_slots.h"

struct mcfan_slots {
	/* enum mcfan_slot_state; RETIRED stays after the drain (free: retired_seq <= done_seq) */
	uint8_t state[MCFAN_MAX_GROUPS];
	bool used[MCFAN_MAX_GROUPS];              /* has been in use: rebase on reuse */
	uint64_t retired_seq[MCFAN_MAX_GROUPS];
	unsigned int cursor;                      /* next slot to consider */
	uint64_t seq;                             /* last retirement number handed out */
	uint64_t done_seq;                        /* retirements up to this are drained */
	uint64_t check_seq;                       /* retirements being drained, 0 = none */
	enum mcfan_slots_stage stage;
	unsigned int n_rx;
	unsigned int n_workers;
	uint32_t *ring_rec;                       /* [n_rx * n_workers] producer tails recorded */
	uint32_t *target;                         /* [n_workers] copies to reach */
};

struct mcfan_slots *
mcfan_slots_create(unsigned int n_rx, unsigned int n_workers)
{
	struct mcfan_slots *s;

	if (n_rx == 0 || n_workers == 0 || n_rx > RTE_MAX_LCORE || n_workers > RTE_MAX_LCORE) {
		rte_errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		goto no_memory;
	s->n_rx = n_rx;
	s->n_workers = n_workers;
	s->ring_rec = calloc((size_t)n_rx * n_workers, sizeof(s->ring_rec[0]));
	if (s->ring_rec == NULL)
		goto free_slots;
	s->target = calloc(n_workers, sizeof(s->target[0]));
	if (s->target == NULL)
		goto free_rec;
	return s;

free_rec:
	free(s->ring_rec);
free_slots:
	free(s);
no_memory:
	rte_errno = ENOMEM;
	return NULL;
}

void
mcfan_slots_free(struct mcfan_slots *s)
{
	if (s == NULL)
		return;
	free(s->ring_rec);
	free(s->target);
	free(s);
}

static bool
is_free(const struct mcfan_slots *s, unsigned int slot)
{
	return s->state[slot] == MCFAN_SLOT_FREE ||
	       (s->state[slot] == MCFAN_SLOT_RETIRED && s->retired_seq[slot] <= s->done_seq);
}

static void
put_in_use(struct mcfan_slots *s, unsigned int slot)
{
	s->state[slot] = MCFAN_SLOT_IN_USE;
	s->used[slot] = true;
	s->cursor = (slot + 1u) % MCFAN_MAX_GROUPS;
}

int
mcfan_slots_claim(struct mcfan_slots *s, uint16_t slot)
{
	if (slot >= MCFAN_MAX_GROUPS)
		return -EINVAL;
	if (!is_free(s, slot))
		return -EBUSY;
	put_in_use(s, slot);
	return 0;
}

unsigned int
mcfan_slots_find(const struct mcfan_slots *s, unsigned int n, uint16_t *out)
{
	unsigned int i, slot = s->cursor, found = 0;

	for (i = 0; i < MCFAN_MAX_GROUPS && found < n; i++) {
		if (is_free(s, slot))
			out[found++] = (uint16_t)slot;
		slot = (slot + 1) % MCFAN_MAX_GROUPS;
	}
	return found;
}

int
mcfan_slots_take(struct mcfan_slots *s, const uint16_t *slots, unsigned int n)
{
	bool seen[MCFAN_MAX_GROUPS] = {false};
	unsigned int i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (slots[i] >= MCFAN_MAX_GROUPS || seen[slots[i]])
			return -EINVAL;
		seen[slots[i]] = true;
		if (!is_free(s, slots[i]))
			return -EBUSY;
	}
	for (i = 0; i < n; i++)
		put_in_use(s, slots[i]);
	return 0;
}

int64_t
mcfan_slots_retire(struct mcfan_slots *s, uint16_t slot)
{
	if (slot >= MCFAN_MAX_GROUPS || s->state[slot] != MCFAN_SLOT_IN_USE)
		return -EINVAL;
	s->state[slot] = MCFAN_SLOT_RETIRED;
	s->retired_seq[slot] = ++s->seq;
	return (int64_t)s->seq;
}

enum mcfan_slot_state
mcfan_slots_state(const struct mcfan_slots *s, uint16_t slot)
{
	if (slot >= MCFAN_MAX_GROUPS || is_free(s, slot))
		return MCFAN_SLOT_FREE;
	return (enum mcfan_slot_state)s->state[slot];
}

bool
mcfan_slots_was_used(const struct mcfan_slots *s, uint16_t slot)
{
	return slot < MCFAN_MAX_GROUPS && s->used[slot];
}

uint64_t
mcfan_slots_retired_seq(const struct mcfan_slots *s, uint16_t slot)
{
	return slot < MCFAN_MAX_GROUPS ? s->retired_seq[slot] : 0;
}

uint64_t
mcfan_slots_seq(const struct mcfan_slots *s)
{
	return s->seq;
}

uint64_t
mcfan_slots_done_seq(const struct mcfan_slots *s)
{
	return s->done_seq;
}

uint64_t
mcfan_slots_check_seq(const struct mcfan_slots *s)
{
	return s->check_seq;
}

enum mcfan_slots_stage
mcfan_slots_stage(const struct mcfan_slots *s)
{
	return s->stage;
}

bool
mcfan_slots_drain_pending(const struct mcfan_slots *s)
{
	return s->stage != MCFAN_SLOTS_IDLE || s->seq != s->done_seq;
}

/* a - b as a signed distance of free-running 32-bit numbers: >= 0 when a has reached b */
static int32_t
distance(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

int
mcfan_slots_drain_step(struct mcfan_slots *s, const uint32_t *prod_tail,
		       const uint32_t *cons_tail, const uint32_t *worker_copies)
{
	unsigned int r, w, nw;

	if (s == NULL || prod_tail == NULL || cons_tail == NULL || worker_copies == NULL)
		return -EINVAL;
	nw = s->n_workers;
	if (s->stage == MCFAN_SLOTS_IDLE) {
		if (s->seq == s->done_seq)
			return 0;
		memcpy(s->ring_rec, prod_tail, (size_t)s->n_rx * nw * sizeof(s->ring_rec[0]));
		s->check_seq = s->seq;
		s->stage = MCFAN_SLOTS_RINGS;
		return 0;
	}
	if (s->stage == MCFAN_SLOTS_RINGS) {
		for (r = 0; r < s->n_rx; r++)
			for (w = 0; w < nw; w++)
				if (distance(cons_tail[r * nw + w], s->ring_rec[r * nw + w]) < 0)
					return 0;
		for (w = 0; w < nw; w++) {
			s->target[w] = 0;
			for (r = 0; r < s->n_rx; r++)
				s->target[w] += cons_tail[r * nw + w];
		}
		s->stage = MCFAN_SLOTS_COUNTERS;
	}
	/* a worker counts what it dequeued after the dequeue: wait for the count */
	for (w = 0; w < nw; w++)
		if (distance(worker_copies[w], s->target[w]) < 0)
			return 0;
	s->done_seq = s->check_seq;
	s->check_seq = 0;
	s->stage = MCFAN_SLOTS_IDLE;
	return 1;
}
