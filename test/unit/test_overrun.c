/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * lib/overrun: the sleep window of a data lcore (docs/idle.md "Drops caused by sleeping"):
 * it opens at a sleep, closes at the first iteration with no work or once the lcore has
 * taken its inputs' backlog, and its generation word is odd exactly while it is open.
 * Pure inlines: no EAL.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcfan_overrun.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

#define BACKLOG 100

static uint32_t
gen(const struct mcfan_overrun *o)
{
	return mcfan_atomic_u32_load(&o->gen, memory_order_relaxed);
}

static void
test_window_empty_iteration(struct mcfan_overrun *o)
{
	CHECK(!o->open && gen(o) == 0, "starts closed, gen 0");
	mcfan_overrun_sleep(o);
	CHECK(o->open && gen(o) == 1, "a sleep opens the window: gen odd (%u)", gen(o));
	CHECK_EQ_INT(o->left, BACKLOG);
	mcfan_overrun_progress(o, 10, 32);
	CHECK(o->open && o->left == BACKLOG - 10, "10 frames taken: open, %" PRIu64 " left",
	      o->left);
	mcfan_overrun_progress(o, 0, 32);
	CHECK(!o->open && gen(o) == 2, "an iteration with no work closes it: gen even (%u)",
	      gen(o));
	mcfan_overrun_close(o);
	CHECK_EQ_INT(gen(o), 2); /* closing a closed window changes nothing */
}

static void
test_window_backlog(struct mcfan_overrun *o)
{
	unsigned int i;

	mcfan_overrun_sleep(o);
	CHECK_EQ_INT(gen(o), 3);
	for (i = 0; i < 3; i++)
		mcfan_overrun_progress(o, 32, 32);
	CHECK(o->open && o->left == BACKLOG - 96, "96 of 100 taken: still open");
	mcfan_overrun_progress(o, 4, 32);
	CHECK(!o->open && gen(o) == 4, "the backlog taken: closed (gen %u)", gen(o));
}

static void
test_sleep_again(struct mcfan_overrun *o)
{
	mcfan_overrun_sleep(o);
	mcfan_overrun_progress(o, 60, 32);
	mcfan_overrun_sleep(o); /* another sleep before it caught up: same window, full backlog */
	CHECK(o->open && gen(o) == 5 && o->left == BACKLOG, "a second sleep keeps the window "
	      "(gen %u) and restarts the countdown (%" PRIu64 ")", gen(o), o->left);
	mcfan_overrun_progress(o, 99, 32);
	CHECK(o->open, "99 taken after the second sleep: open");
	mcfan_overrun_progress(o, 1000, 32);
	CHECK(!o->open && gen(o) == 6, "more than the backlog at once: closed");
	mcfan_overrun_sleep(o);
	mcfan_overrun_close(o); /* the lcore stops */
	CHECK(!o->open && gen(o) == 8, "a stop closes the window");
}

/* The port side's evidence: a window that took at least the smallest RX ring's worth. */
static void
test_full_closes(struct mcfan_overrun *o)
{
	uint64_t rx = 1000;

	o->rx_count = &rx;
	o->rx_capacity = 64;
	o->rx_pairs = 1;
	mcfan_overrun_sleep(o);
	rx += 6; /* the first poll after the wake came back short: 6 were waiting */
	mcfan_overrun_progress(o, 6, 32);
	rx += 32 * 3; /* then more arrive, at full bursts: load, not the backlog */
	mcfan_overrun_progress(o, 32, 32);
	mcfan_overrun_progress(o, 32, 32);
	mcfan_overrun_progress(o, 32, 32);
	mcfan_overrun_progress(o, 0, 32);
	CHECK_EQ_INT(mcfan_atomic_u32_load(&o->full_closes, memory_order_relaxed), 0);
	mcfan_overrun_sleep(o);
	rx += 32;
	mcfan_overrun_progress(o, 32, 32);
	rx += 32;
	mcfan_overrun_progress(o, 32, 32);
	rx += 5; /* 64 at full bursts, then a short poll: the 64-frame ring was full */
	mcfan_overrun_progress(o, 5, 32);
	mcfan_overrun_progress(o, 0, 32);
	CHECK_EQ_INT(mcfan_atomic_u32_load(&o->full_closes, memory_order_relaxed), 1);
	CHECK(!o->open && (gen(o) & 1) == 0, "closed after each");
	o->rx_count = NULL;
}

int
main(void)
{
	struct mcfan_overrun *o = calloc(1, sizeof(*o));

	if (o == NULL)
		return 1;
	o->backlog = BACKLOG;
	test_window_empty_iteration(o);
	test_window_backlog(o);
	test_sleep_again(o);
	test_full_closes(o);
	free(o);
	return unit_summary("overrun");
}
