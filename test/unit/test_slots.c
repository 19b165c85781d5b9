/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Group counter slots (lib/group/mcfan_slots.h): states, retirement numbers, the cursor,
 * and draining: a retired slot is reused only after every frame it tagged was dequeued
 * and counted. Pure: no EAL.
 */

#include "unit.h"
#include "mcfan_slots.h"

UNIT_DEFINE_COUNTERS;

static void
test_create(void)
{
	struct mcfan_slots *s;
	unsigned int i;

	rte_errno = 0;
	CHECK(mcfan_slots_create(0, 1) == NULL, "0 RX lcores");
	CHECK_EQ_INT(rte_errno, EINVAL);
	rte_errno = 0;
	CHECK(mcfan_slots_create(1, 0) == NULL, "0 workers");
	CHECK_EQ_INT(rte_errno, EINVAL);
	rte_errno = 0;
	CHECK(mcfan_slots_create(1, RTE_MAX_LCORE + 1) == NULL, "too many workers");
	CHECK_EQ_INT(rte_errno, EINVAL);
	s = mcfan_slots_create(2, 3);
	CHECK(s != NULL, "create 2 x 3");
	if (s == NULL)
		return;
	for (i = 0; i < MCFAN_MAX_GROUPS; i++)
		if (mcfan_slots_state(s, (uint16_t)i) != MCFAN_SLOT_FREE ||
		    mcfan_slots_was_used(s, (uint16_t)i) || mcfan_slots_retired_seq(s, (uint16_t)i))
			break;
	CHECK_EQ_INT(i, MCFAN_MAX_GROUPS);
	CHECK_EQ_INT(mcfan_slots_seq(s), 0);
	CHECK_EQ_INT(mcfan_slots_done_seq(s), 0);
	CHECK_EQ_INT(mcfan_slots_check_seq(s), 0);
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_IDLE);
	CHECK(!mcfan_slots_drain_pending(s), "nothing to drain");
	CHECK_EQ_INT(mcfan_slots_state(s, MCFAN_MAX_GROUPS), MCFAN_SLOT_FREE);
	mcfan_slots_free(s);
	mcfan_slots_free(NULL);
}

static void
test_claim_find_take(void)
{
	struct mcfan_slots *s = mcfan_slots_create(1, 1);
	uint16_t out[MCFAN_MAX_GROUPS], bad[2];
	unsigned int n;

	CHECK(s != NULL, "create");
	if (s == NULL)
		return;
	CHECK_EQ_INT(mcfan_slots_claim(s, 0), 0);
	CHECK_EQ_INT(mcfan_slots_claim(s, 1), 0);
	CHECK_EQ_INT(mcfan_slots_claim(s, 2), 0);
	CHECK_EQ_INT(mcfan_slots_claim(s, 1), -EBUSY);
	CHECK_EQ_INT(mcfan_slots_claim(s, MCFAN_MAX_GROUPS), -EINVAL);
	CHECK_EQ_INT(mcfan_slots_state(s, 1), MCFAN_SLOT_IN_USE);
	CHECK(mcfan_slots_was_used(s, 2), "claimed slot is used");
	/* from the cursor (after the last claim), changing nothing */
	n = mcfan_slots_find(s, 3, out);
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_INT(out[0], 3);
	CHECK_EQ_INT(out[1], 4);
	CHECK_EQ_INT(out[2], 5);
	CHECK_EQ_INT(mcfan_slots_state(s, 3), MCFAN_SLOT_FREE);
	CHECK_EQ_INT(mcfan_slots_find(s, MCFAN_MAX_GROUPS, out), MCFAN_MAX_GROUPS - 3);
	/* all or nothing */
	bad[0] = 3;
	bad[1] = 1;
	CHECK_EQ_INT(mcfan_slots_take(s, bad, 2), -EBUSY);
	CHECK_EQ_INT(mcfan_slots_state(s, 3), MCFAN_SLOT_FREE);
	bad[1] = 3;
	CHECK_EQ_INT(mcfan_slots_take(s, bad, 2), -EINVAL);
	bad[1] = MCFAN_MAX_GROUPS;
	CHECK_EQ_INT(mcfan_slots_take(s, bad, 2), -EINVAL);
	CHECK_EQ_INT(mcfan_slots_take(s, bad, 0), -EINVAL);
	CHECK_EQ_INT(mcfan_slots_state(s, 3), MCFAN_SLOT_FREE);
	n = mcfan_slots_find(s, 2, out);
	CHECK_EQ_INT(mcfan_slots_take(s, out, n), 0);
	CHECK_EQ_INT(mcfan_slots_state(s, 3), MCFAN_SLOT_IN_USE);
	CHECK_EQ_INT(mcfan_slots_state(s, 4), MCFAN_SLOT_IN_USE);
	n = mcfan_slots_find(s, 1, out);
	CHECK_EQ_INT(out[0], 5);
	/* retire: numbers 1, 2, ... ; only an in-use slot */
	CHECK_EQ_INT(mcfan_slots_retire(s, 1), 1);
	CHECK_EQ_INT(mcfan_slots_retire(s, 1), -EINVAL);
	CHECK_EQ_INT(mcfan_slots_retire(s, 7), -EINVAL);
	CHECK_EQ_INT(mcfan_slots_retire(s, MCFAN_MAX_GROUPS), -EINVAL);
	CHECK_EQ_INT(mcfan_slots_retire(s, 3), 2);
	CHECK_EQ_INT(mcfan_slots_state(s, 1), MCFAN_SLOT_RETIRED);
	CHECK_EQ_INT(mcfan_slots_retired_seq(s, 1), 1);
	CHECK_EQ_INT(mcfan_slots_retired_seq(s, 3), 2);
	CHECK_EQ_INT(mcfan_slots_seq(s), 2);
	CHECK(mcfan_slots_drain_pending(s), "retirements to drain");
	/* a retired slot is not free: find skips it, take and claim refuse it */
	CHECK_EQ_INT(mcfan_slots_find(s, MCFAN_MAX_GROUPS, out), MCFAN_MAX_GROUPS - 5);
	CHECK_EQ_INT(mcfan_slots_claim(s, 1), -EBUSY);
	bad[0] = 1;
	CHECK_EQ_INT(mcfan_slots_take(s, bad, 1), -EBUSY);
	mcfan_slots_free(s);
}

/* Snapshot of a 2 RX x 2 worker application. */
struct snap {
	uint32_t prod[4];
	uint32_t cons[4];
	uint32_t copies[2];
};

static int
step(struct mcfan_slots *s, const struct snap *x)
{
	return mcfan_slots_drain_step(s, x->prod, x->cons, x->copies);
}

static void
test_drain(void)
{
	struct mcfan_slots *s = mcfan_slots_create(2, 2);
	struct snap x = {
		/* rings [rx * 2 + worker] */
		.prod = {10, 20, 30, 40},
		.cons = {5, 20, 30, 35},
		.copies = {35, 55}, /* worker 0: 5 + 30, worker 1: 20 + 35 */
	};
	uint16_t out[4];
	unsigned int i;

	CHECK(s != NULL, "create");
	if (s == NULL)
		return;
	CHECK_EQ_INT(mcfan_slots_drain_step(s, NULL, x.cons, x.copies), -EINVAL);
	CHECK_EQ_INT(step(s, &x), 0); /* nothing retired: nothing recorded */
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_IDLE);
	for (i = 0; i < 4; i++)
		CHECK_EQ_INT(mcfan_slots_claim(s, (uint16_t)i), 0);
	CHECK_EQ_INT(mcfan_slots_retire(s, 1), 1);
	/* step 1: producer tails recorded */
	CHECK_EQ_INT(step(s, &x), 0);
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_RINGS);
	CHECK_EQ_INT(mcfan_slots_check_seq(s), 1);
	/* a second leave while draining: not covered by this drain */
	CHECK_EQ_INT(mcfan_slots_retire(s, 2), 2);
	/* more enqueued since: the recorded tails are what counts */
	x.prod[0] = 100;
	x.prod[3] = 100;
	/* step 2: ring 0 and ring 3 not yet dequeued up to 10 and 40 */
	x.cons[0] = 9;
	x.cons[3] = 39;
	x.copies[0] = 39;
	x.copies[1] = 59;
	CHECK_EQ_INT(step(s, &x), 0);
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_RINGS);
	x.cons[0] = 10;
	CHECK_EQ_INT(step(s, &x), 0);
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_RINGS);
	/* every ring past the record: targets 10 + 30 = 40 and 20 + 41 = 61; the workers
	 * have counted 38 and 61 */
	x.cons[3] = 41;
	x.copies[0] = 38;
	x.copies[1] = 61;
	CHECK_EQ_INT(step(s, &x), 0);
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_COUNTERS);
	CHECK_EQ_INT(mcfan_slots_state(s, 1), MCFAN_SLOT_RETIRED);
	CHECK_EQ_INT(mcfan_slots_find(s, 4, out), 4);
	CHECK(out[0] == 4 && out[1] == 5 && out[2] == 6 && out[3] == 7, "only fresh slots");
	/* the targets stay: later dequeues do not move them */
	x.cons[0] = 50;
	x.cons[2] = 50;
	x.copies[0] = 39;
	CHECK_EQ_INT(step(s, &x), 0);
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_COUNTERS);
	/* step 3: worker 0 has counted its 40 */
	x.copies[0] = 40;
	CHECK_EQ_INT(step(s, &x), 1);
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_IDLE);
	CHECK_EQ_INT(mcfan_slots_done_seq(s), 1);
	CHECK_EQ_INT(mcfan_slots_check_seq(s), 0);
	CHECK_EQ_INT(mcfan_slots_state(s, 1), MCFAN_SLOT_FREE);
	CHECK(mcfan_slots_was_used(s, 1), "drained slot keeps its used mark (rebase on reuse)");
	CHECK_EQ_INT(mcfan_slots_state(s, 2), MCFAN_SLOT_RETIRED);
	CHECK(mcfan_slots_drain_pending(s), "retirement 2 still to drain");
	CHECK_EQ_INT(mcfan_slots_claim(s, 2), -EBUSY);
	/* the second drain, everything already counted: three steps */
	CHECK_EQ_INT(step(s, &x), 0);
	CHECK_EQ_INT(mcfan_slots_check_seq(s), 2);
	x.cons[0] = 100;
	x.cons[3] = 100;
	x.copies[0] = 100 + 50; /* targets: cons 0 + 2, cons 1 + 3 */
	x.copies[1] = 20 + 100;
	CHECK_EQ_INT(step(s, &x), 1);
	CHECK_EQ_INT(mcfan_slots_done_seq(s), 2);
	CHECK_EQ_INT(mcfan_slots_state(s, 2), MCFAN_SLOT_FREE);
	CHECK(!mcfan_slots_drain_pending(s), "all drained");
	CHECK_EQ_INT(step(s, &x), 0);
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_IDLE);
	mcfan_slots_free(s);
}

/* Free-running tails and counters wrap at 2^32. */
static void
test_wrap(void)
{
	struct mcfan_slots *s = mcfan_slots_create(1, 1);
	uint32_t prod = UINT32_MAX - 4, cons = UINT32_MAX - 9, copies = UINT32_MAX - 9;

	CHECK(s != NULL, "create");
	if (s == NULL)
		return;
	CHECK_EQ_INT(mcfan_slots_claim(s, 0), 0);
	CHECK_EQ_INT(mcfan_slots_retire(s, 0), 1);
	CHECK_EQ_INT(mcfan_slots_drain_step(s, &prod, &cons, &copies), 0);
	cons = UINT32_MAX;
	CHECK_EQ_INT(mcfan_slots_drain_step(s, &prod, &cons, &copies), 0);
	CHECK_EQ_INT(mcfan_slots_stage(s), MCFAN_SLOTS_COUNTERS);
	cons = 3; /* wrapped: past the record */
	copies = UINT32_MAX - 1;
	CHECK_EQ_INT(mcfan_slots_drain_step(s, &prod, &cons, &copies), 0);
	copies = UINT32_MAX;
	CHECK_EQ_INT(mcfan_slots_drain_step(s, &prod, &cons, &copies), 1);
	CHECK_EQ_INT(mcfan_slots_state(s, 0), MCFAN_SLOT_FREE);
	mcfan_slots_free(s);
}

/* Fresh slots first, round-robin: a drained slot comes back only after the cursor wraps. */
static void
test_reuse_order(void)
{
	struct mcfan_slots *s = mcfan_slots_create(1, 1);
	uint32_t prod = 0, cons = 0, copies = 0;
	uint16_t out[2], last = MCFAN_MAX_GROUPS - 1;
	unsigned int i;

	CHECK(s != NULL, "create");
	if (s == NULL)
		return;
	CHECK_EQ_INT(mcfan_slots_claim(s, 0), 0);
	CHECK_EQ_INT(mcfan_slots_retire(s, 0), 1);
	CHECK_EQ_INT(mcfan_slots_drain_step(s, &prod, &cons, &copies), 0);
	CHECK_EQ_INT(mcfan_slots_drain_step(s, &prod, &cons, &copies), 1);
	CHECK_EQ_INT(mcfan_slots_find(s, 1, out), 1);
	CHECK_EQ_INT(out[0], 1);
	for (i = 1; i < MCFAN_MAX_GROUPS - 1; i++)
		CHECK_EQ_INT(mcfan_slots_claim(s, (uint16_t)i), 0);
	CHECK_EQ_INT(mcfan_slots_find(s, 2, out), 2);
	CHECK_EQ_INT(out[0], last);
	CHECK_EQ_INT(out[1], 0);
	CHECK_EQ_INT(mcfan_slots_take(s, out, 2), 0);
	CHECK_EQ_INT(mcfan_slots_state(s, 0), MCFAN_SLOT_IN_USE);
	CHECK_EQ_INT(mcfan_slots_retired_seq(s, 0), 1);
	CHECK_EQ_INT(mcfan_slots_find(s, 1, out), 0);
	mcfan_slots_free(s);
}

int
main(void)
{
	test_create();
	test_claim_find_take();
	test_drain();
	test_wrap();
	test_reuse_order();
	return unit_summary("slots");
}
