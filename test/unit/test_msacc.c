/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Unit tests of microstate accounting (lib/mcfan_msacc). No EAL: every TSC
 * value is passed explicitly. The concurrency case runs a pthread writer
 * against a snapshot reader.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "mcfan_msacc.h"
#include "mcfan_msacc_window.h"
#include "mcfan_msacc_writer.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

/** Fake TSC rate for windows given in ms: 1 GHz, so 1 ms = 1,000,000 cycles. */
#define FAKE_HZ UINT64_C(1000000000)
/** Cycles per ms at FAKE_HZ. */
#define FAKE_CYC_PER_MS (FAKE_HZ / 1000)
/** TSC at which the blocks start counting in most cases. */
#define T0 UINT64_C(1000000)
/** Allowed relative error of "sum of states equals the window length". */
#define WINDOW_TOLERANCE 0.001
/** Allowed error of the printed percentages of one row around 100. */
#define PRINT_TOLERANCE 0.1
/** Tolerance of sums computed in double. */
#define DOUBLE_EPS 1e-9
/** Text buffer for the formatter cases. */
#define TEXT_SIZE 65536
/** Random single-row tables for the rounding case. */
#define ROUNDING_ROUNDS 2000
/** Distinct snapshots after which the reader stops the writer. */
#define TARGET_DISTINCT 2000
/** Longest a concurrency case runs (ns), should the threads have to share a CPU. */
#define RACE_LIMIT_NS (TEST_NS_PER_S / 2)
/** How far (operations) the writer may run ahead of the reader's replay. */
#define RACE_LEAD 65536
/** The writer checks its lead every this many operations (a power of two). */
#define RACE_LEAD_CHECK 4096
/** Nanoseconds per second. */
#define TEST_NS_PER_S UINT64_C(1000000000)
/** TSC cycles the paced writer spends between bursts (an empty rx_burst is ~50-100). */
#define WRITER_GAP 100
/**
 * Fewest distinct snapshots taken while the writer runs. Kept low on purpose:
 * on a loaded machine the two threads may share one CPU and take turns.
 */
#define MIN_DISTINCT 2

static uint64_t
sum_cycles(const uint64_t *cycles)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < MCFAN_MS_MAX; i++)
		sum += cycles[i];
	return sum;
}

static uint64_t
sum_hist(const uint64_t *hist)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < MCFAN_MSACC_HIST_BUCKETS; i++)
		sum += hist[i];
	return sum;
}

/* Absolute value of a double, without libm. */
static double
dabs(double v)
{
	return v < 0 ? -v : v;
}

/* xorshift64: deterministic pseudo-random numbers without global state. */
static uint64_t
next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void
test_names(void)
{
	unsigned int s;

	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_OTHER), "other");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_POLL_EMPTY), "poll_empty");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_RX), "rx");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_CLASSIFY), "classify");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_FANOUT), "fanout");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_DEQUEUE), "dequeue");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_PROCESS), "process");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_SLEEP), "sleep");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_CONSOLE), "console");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_TELEMETRY), "telemetry");
	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_MAX), "unknown");
	for (s = 0; s < MCFAN_MS_MAX; s++) {
		const char *name = mcfan_ms_state_name(s);

		CHECK(strlen(name) <= MCFAN_MS_STATE_NAME_MAX, "%s too long", name);
		CHECK(strspn(name, "abcdefghijklmnopqrstuvwxyz_") == strlen(name),
			"%s not snake_case", name);
		CHECK_EQ_INT(mcfan_ms_state_from_name(name), s);
		CHECK(strlen(mcfan_ms_state_desc(s)) > 0, "state %u has no meaning", s);
	}
	CHECK_EQ_INT(mcfan_ms_state_from_name("busy_wait"), -ENOENT);
	CHECK_EQ_INT(mcfan_ms_state_from_name(NULL), -EINVAL);

	CHECK_EQ_STR(mcfan_role_name(MCFAN_ROLE_RX), "rx");
	CHECK_EQ_STR(mcfan_role_name(MCFAN_ROLE_WORKER), "worker");
	CHECK_EQ_STR(mcfan_role_name(MCFAN_ROLE_RX | MCFAN_ROLE_WORKER), "rx+worker");
	CHECK_EQ_STR(mcfan_role_name(MCFAN_ROLE_CONTROL), "control");
	CHECK_EQ_STR(mcfan_role_name(0), "none");
	CHECK_EQ_STR(mcfan_role_name(MCFAN_ROLE_RX | MCFAN_ROLE_CONTROL), "mixed");
	CHECK_EQ_INT(mcfan_role_type(MCFAN_ROLE_RX | MCFAN_ROLE_WORKER),
		MCFAN_ROLE_TYPE_RX_WORKER);
	CHECK_EQ_INT(mcfan_role_type(MCFAN_ROLE_RX | MCFAN_ROLE_CONTROL), -EINVAL);
	CHECK_EQ_INT(mcfan_role_type_role(MCFAN_ROLE_TYPE_CONTROL), MCFAN_ROLE_CONTROL);
	CHECK_EQ_INT(mcfan_role_type_role(MCFAN_ROLE_TYPE_MAX), 0);

	CHECK_EQ_STR(mcfan_msacc_hist_label(0), "1");
	CHECK_EQ_STR(mcfan_msacc_hist_label(1), "2-3");
	CHECK_EQ_STR(mcfan_msacc_hist_label(8), "256-511");
	CHECK_EQ_STR(mcfan_msacc_hist_label(9), "512+");
	CHECK_EQ_STR(mcfan_msacc_hist_label(MCFAN_MSACC_HIST_BUCKETS), "?");
	CHECK_EQ_STR(mcfan_msacc_window_mode_name(MCFAN_MSACC_WIN_TIMED), "timed");
}

static void
test_hist_buckets(void)
{
	static const struct { uint16_t n; unsigned int bucket; } cases[] = {
		{ 1, 0 }, { 2, 1 }, { 3, 1 }, { 4, 2 }, { 7, 2 }, { 8, 3 }, { 15, 3 },
		{ 16, 4 }, { 32, 5 }, { 64, 6 }, { 128, 7 }, { 255, 7 }, { 256, 8 },
		{ 511, 8 }, { 512, 9 }, { 1024, 9 }, { UINT16_MAX, 9 },
	};
	struct mcfan_msacc ms;
	uint64_t frames = 0;
	unsigned int i, b;

	for (i = 0; i < RTE_DIM(cases); i++) {
		CHECK(mcfan_msacc_hist_bucket(cases[i].n) == cases[i].bucket,
			"bucket(%u) = %u, expected %u", cases[i].n,
			mcfan_msacc_hist_bucket(cases[i].n), cases[i].bucket);
		/* The poll lands in that bucket and in no other. */
		mcfan_msacc_init(&ms, MCFAN_ROLE_RX, T0);
		mcfan_msacc_poll(&ms, cases[i].n);
		for (b = 0; b < MCFAN_MSACC_HIST_BUCKETS; b++)
			CHECK(ms.hist[b] == (b == cases[i].bucket ? 1u : 0u),
				"n=%u: hist[%u] = %" PRIu64, cases[i].n, b, ms.hist[b]);
		CHECK_EQ_INT(ms.polls, 1);
		CHECK_EQ_INT(ms.polls_work, 1);
		CHECK_EQ_INT(ms.frames, cases[i].n);
	}

	/* Empty polls count as polls only. */
	mcfan_msacc_init(&ms, MCFAN_ROLE_WORKER, T0);
	mcfan_msacc_poll(&ms, 0);
	mcfan_msacc_poll(&ms, 0);
	CHECK_EQ_INT(ms.polls, 2);
	CHECK_EQ_INT(ms.polls_work, 0);
	CHECK_EQ_INT(ms.frames, 0);
	CHECK_EQ_INT(sum_hist(ms.hist), 0);

	/* Many polls: the buckets add up to the polls that found work. */
	for (i = 0; i <= 600; i++) {
		mcfan_msacc_poll(&ms, (uint16_t)i);
		frames += i;
	}
	CHECK_EQ_INT(ms.polls, 603);
	CHECK_EQ_INT(ms.polls_work, 600);
	CHECK_EQ_INT(ms.frames, frames);
	CHECK_EQ_INT(sum_hist(ms.hist), 600);
	CHECK_EQ_INT(ms.hist[0], 1);
	CHECK_EQ_INT(ms.hist[8], 256);
	CHECK_EQ_INT(ms.hist[9], 600 - 511);
}

static void
test_transitions(void)
{
	struct mcfan_msacc ms;
	struct mcfan_msacc_snap snap;
	uint64_t t = T0;
	unsigned int i;

	mcfan_msacc_init(&ms, MCFAN_ROLE_RX, T0);
	CHECK_EQ_INT(ms.state, MCFAN_MS_OTHER);
	CHECK_EQ_INT(ms.seq, 0);

	mcfan_msacc_add(&ms, MCFAN_MS_OTHER, t += 50);
	mcfan_msacc_add(&ms, MCFAN_MS_POLL_EMPTY, t += 100);
	mcfan_msacc_add(&ms, MCFAN_MS_RX, t += 20);
	mcfan_msacc_add(&ms, MCFAN_MS_CLASSIFY, t += 30);
	mcfan_msacc_add(&ms, MCFAN_MS_FANOUT, t += 40);
	mcfan_msacc_add(&ms, MCFAN_MS_POLL_EMPTY, t += 100);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_OTHER], 50);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_POLL_EMPTY], 200);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_RX], 20);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_CLASSIFY], 30);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_FANOUT], 40);
	CHECK_EQ_INT(ms.last_tsc, t);
	CHECK_EQ_INT(ms.state, MCFAN_MS_POLL_EMPTY);
	CHECK_EQ_INT(ms.seq % 2, 0);
	CHECK_EQ_INT(sum_cycles(ms.cycles), t - T0);

	/* A TSC not after the last change charges nothing and keeps time monotonic. */
	mcfan_msacc_add(&ms, MCFAN_MS_RX, t - 10);
	mcfan_msacc_add(&ms, MCFAN_MS_SLEEP, t);
	CHECK_EQ_INT(ms.last_tsc, t);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_RX], 20);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_SLEEP], 0);
	CHECK_EQ_INT(ms.state, MCFAN_MS_SLEEP);
	/* An out-of-range state counts as other. */
	mcfan_msacc_add(&ms, MCFAN_MS_MAX, t += 5);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_OTHER], 55);
	CHECK_EQ_INT(ms.state, MCFAN_MS_OTHER);
	mcfan_msacc_add(&ms, MCFAN_MS_SLEEP, t += 1000);

	/* The snapshot charges the time since the last change to the current state. */
	mcfan_msacc_snapshot(&ms, t + 700, &snap);
	CHECK_EQ_INT(snap.tsc, t + 700);
	CHECK_EQ_INT(snap.start_tsc, T0);
	CHECK_EQ_INT(snap.last_tsc, t);
	CHECK_EQ_INT(snap.pending, 700);
	CHECK_EQ_INT(snap.state, MCFAN_MS_SLEEP);
	CHECK_EQ_INT(snap.cycles[MCFAN_MS_SLEEP], 1700);
	CHECK_EQ_INT(sum_cycles(snap.cycles), snap.tsc - T0);
	CHECK_EQ_INT(mcfan_msacc_snap_wall(&snap), snap.tsc - T0);
	/* A reader TSC older than the owner's last change: the snapshot ends there. */
	mcfan_msacc_snapshot(&ms, t - 1, &snap);
	CHECK_EQ_INT(snap.tsc, t);
	CHECK_EQ_INT(snap.pending, 0);
	CHECK_EQ_INT(sum_cycles(snap.cycles), t - T0);

	/* add_then: the elapsed time to s, the pending time guessed as next (the control
	 * lcore's sleep after its tick), then charged as the owner says at its next change. */
	mcfan_msacc_add_then(&ms, MCFAN_MS_OTHER, MCFAN_MS_SLEEP, t += 40);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_OTHER], 95);
	CHECK_EQ_INT(ms.state, MCFAN_MS_SLEEP);
	mcfan_msacc_snapshot(&ms, t + 300, &snap);
	CHECK_EQ_INT(snap.pending, 300);
	CHECK_EQ_INT(snap.cycles[MCFAN_MS_SLEEP], 1300);
	CHECK_EQ_INT(snap.cycles[MCFAN_MS_OTHER], 95);
	mcfan_msacc_add(&ms, MCFAN_MS_SLEEP, t += 300);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_SLEEP], 1300);
	mcfan_msacc_add_then(&ms, MCFAN_MS_CONSOLE, MCFAN_MS_MAX, t += 10);
	CHECK_EQ_INT(ms.cycles[MCFAN_MS_CONSOLE], 10);
	CHECK_EQ_INT(ms.state, MCFAN_MS_OTHER); /* out of range: other */
	CHECK_EQ_INT(sum_cycles(ms.cycles), t - T0);

	/* Long mixed run: the states add up to the window length exactly. */
	mcfan_msacc_init(&ms, MCFAN_ROLE_RX | MCFAN_ROLE_WORKER, T0);
	t = T0;
	for (i = 0; i < 100000; i++) {
		t += 1 + i % 97;
		mcfan_msacc_add_poll(&ms, (enum mcfan_ms_state)(i % MCFAN_MS_MAX), t,
			(uint16_t)(i % 3 == 0 ? 0 : i % 64));
	}
	mcfan_msacc_snapshot(&ms, t + 12345, &snap);
	CHECK_EQ_INT(sum_cycles(snap.cycles), t + 12345 - T0);
	CHECK(dabs((double)sum_cycles(snap.cycles) - (double)(t + 12345 - T0)) <=
		WINDOW_TOLERANCE * (double)(t + 12345 - T0), "sum of states off the window");
	CHECK_EQ_INT(snap.polls, 100000);

	/* Sleep and wake-up counters. */
	mcfan_msacc_note_sleep(&ms);
	mcfan_msacc_note_sleep(&ms);
	mcfan_msacc_note_wakeup(&ms);
	CHECK_EQ_INT(ms.sleeps, 2);
	CHECK_EQ_INT(ms.wakeups, 1);

	/* NULL arguments are ignored. */
	mcfan_msacc_init(NULL, 0, 0);
	mcfan_msacc_snapshot(NULL, 0, &snap);
	mcfan_msacc_snapshot(&ms, 0, NULL);
	CHECK_EQ_INT(mcfan_msacc_snap_wall(NULL), 0);
}

static void
test_diff(void)
{
	struct mcfan_msacc ms;
	struct mcfan_msacc_snap base, now, win;
	unsigned int s;

	mcfan_msacc_init(&ms, MCFAN_ROLE_RX, T0);
	mcfan_msacc_add_poll(&ms, MCFAN_MS_POLL_EMPTY, T0 + 1000, 0);
	/* Baseline in the middle of an interval: 500 pending cycles guessed as poll_empty. */
	mcfan_msacc_snapshot(&ms, T0 + 1500, &base);
	CHECK_EQ_INT(base.pending, 500);
	/* The interval turns out to have been rx. */
	mcfan_msacc_add_poll(&ms, MCFAN_MS_RX, T0 + 2000, 32);
	mcfan_msacc_add(&ms, MCFAN_MS_CLASSIFY, T0 + 2300);
	mcfan_msacc_snapshot(&ms, T0 + 2400, &now);
	mcfan_msacc_diff(&now, &base, &win);
	/* The window starts at the base's last real change, so nothing goes negative. */
	CHECK_EQ_INT(win.start_tsc, T0 + 1000);
	CHECK_EQ_INT(win.tsc, T0 + 2400);
	CHECK_EQ_INT(win.cycles[MCFAN_MS_POLL_EMPTY], 0);
	CHECK_EQ_INT(win.cycles[MCFAN_MS_RX], 1000);
	CHECK_EQ_INT(win.cycles[MCFAN_MS_CLASSIFY], 400);
	CHECK_EQ_INT(sum_cycles(win.cycles), mcfan_msacc_snap_wall(&win));
	for (s = 0; s < MCFAN_MS_MAX; s++)
		CHECK(win.cycles[s] <= mcfan_msacc_snap_wall(&win), "state %u negative", s);
	CHECK_EQ_INT(win.polls, 1);
	CHECK_EQ_INT(win.polls_work, 1);
	CHECK_EQ_INT(win.frames, 32);
	CHECK_EQ_INT(win.hist[5], 1);

	/* Same interval still open: exact. */
	mcfan_msacc_snapshot(&ms, T0 + 2350, &base);
	mcfan_msacc_snapshot(&ms, T0 + 2900, &now);
	mcfan_msacc_diff(&now, &base, &win);
	CHECK_EQ_INT(win.start_tsc, T0 + 2300);
	CHECK_EQ_INT(win.cycles[MCFAN_MS_CLASSIFY], 600);
	CHECK_EQ_INT(sum_cycles(win.cycles), 600);

	/* No base, a newer base, or a base of another epoch: since init. */
	mcfan_msacc_diff(&now, NULL, &win);
	CHECK_EQ_INT(win.start_tsc, T0);
	CHECK_EQ_INT(sum_cycles(win.cycles), T0 + 2900 - T0);
	mcfan_msacc_add(&ms, MCFAN_MS_RX, T0 + 3000);
	mcfan_msacc_snapshot(&ms, T0 + 3000, &base);
	mcfan_msacc_diff(&now, &base, &win);
	CHECK_EQ_INT(win.start_tsc, T0);
	mcfan_msacc_restart(&ms, T0 + 5000);
	CHECK_EQ_INT(ms.seq % 2, 0);
	mcfan_msacc_add_poll(&ms, MCFAN_MS_RX, T0 + 5100, 4);
	mcfan_msacc_snapshot(&ms, T0 + 5200, &now);
	mcfan_msacc_diff(&now, &base, &win);
	CHECK_EQ_INT(win.start_tsc, T0 + 5000);
	CHECK_EQ_INT(win.cycles[MCFAN_MS_RX], 200);
	CHECK_EQ_INT(win.polls, 1);
	CHECK_EQ_INT(sum_cycles(win.cycles), 200);
	CHECK_EQ_INT(ms.role, MCFAN_ROLE_RX);
}

/* The owner publishes a copy only when a reader has asked for one. */
static void
test_publish(void)
{
	struct mcfan_msacc ms;
	struct mcfan_msacc_snap snap;

	mcfan_msacc_init(&ms, MCFAN_ROLE_WORKER, T0);
	mcfan_msacc_add_poll(&ms, MCFAN_MS_DEQUEUE, T0 + 100, 16);
	CHECK_EQ_INT(ms.pub_seq.sn, 0);
	CHECK_EQ_INT(mcfan_atomic_u64_load(&ms.req_done, memory_order_relaxed), 0);

	/* What a reader does after failing to find a quiet moment. */
	mcfan_atomic_u64_add(&ms.req, 1, memory_order_acq_rel);
	mcfan_msacc_poll(&ms, 3);   /* poll() does not check: no copy yet */
	CHECK_EQ_INT(ms.pub_seq.sn, 0);
	mcfan_msacc_add(&ms, MCFAN_MS_PROCESS, T0 + 250);
	CHECK_EQ_INT(ms.pub_seq.sn, 2);
	CHECK_EQ_INT(mcfan_atomic_u64_load(&ms.req_done, memory_order_relaxed), 1);
	CHECK_EQ_INT(ms.pub.seq, ms.seq);
	CHECK_EQ_INT(ms.pub.last_tsc, T0 + 250);
	CHECK_EQ_INT(ms.pub.init_tsc, T0);
	CHECK_EQ_INT(ms.pub.cycles[MCFAN_MS_DEQUEUE], 100);
	CHECK_EQ_INT(ms.pub.cycles[MCFAN_MS_PROCESS], 150);
	CHECK_EQ_INT(ms.pub.polls, 2);
	CHECK_EQ_INT(ms.pub.frames, 19);
	CHECK_EQ_INT(ms.pub.hist[4], 1);
	CHECK_EQ_INT(ms.pub.hist[1], 1);
	CHECK_EQ_INT(ms.pub.state, MCFAN_MS_PROCESS);
	CHECK_EQ_INT(ms.pub.role, MCFAN_ROLE_WORKER);

	/* Served: the next change does not publish again. */
	mcfan_msacc_add(&ms, MCFAN_MS_POLL_EMPTY, T0 + 300);
	CHECK_EQ_INT(ms.pub_seq.sn, 2);

	/* An idle owner: the snapshot reads the live block directly. */
	mcfan_msacc_snapshot(&ms, T0 + 400, &snap);
	CHECK_EQ_INT(snap.seq, ms.seq);
	CHECK_EQ_INT(snap.cycles[MCFAN_MS_POLL_EMPTY], 150);
	CHECK_EQ_INT(sum_cycles(snap.cycles), 400);
}

/* Three lcores at ids 0, 2 and 5 of an array of 6. */
struct trio {
	struct mcfan_msacc rx, worker, control;
	const struct mcfan_msacc *ptr[6];
};

static void
trio_init(struct trio *t, uint64_t now)
{
	memset(t, 0, sizeof(*t));
	mcfan_msacc_init(&t->rx, MCFAN_ROLE_RX, now);
	mcfan_msacc_init(&t->worker, MCFAN_ROLE_WORKER, now);
	mcfan_msacc_init(&t->control, MCFAN_ROLE_CONTROL, now);
	t->ptr[0] = &t->rx;
	t->ptr[2] = &t->worker;
	t->ptr[5] = &t->control;
}

/* Advance every lcore of the trio by 100 cycles per step, ending at "until". */
static void
trio_run(struct trio *t, uint64_t from, uint64_t until)
{
	uint64_t now;

	for (now = from + 100; now <= until; now += 100) {
		mcfan_msacc_add_poll(&t->rx, (now / 100) % 4 == 0 ? MCFAN_MS_RX :
			MCFAN_MS_POLL_EMPTY, now, (now / 100) % 4 == 0 ? 32 : 0);
		mcfan_msacc_add_poll(&t->worker, (now / 100) % 2 == 0 ? MCFAN_MS_PROCESS :
			MCFAN_MS_POLL_EMPTY, now, (now / 100) % 2 == 0 ? 8 : 0);
		mcfan_msacc_add(&t->control, (now / 100) % 10 == 0 ? MCFAN_MS_TELEMETRY :
			MCFAN_MS_SLEEP, now);
	}
}

static void
test_window_reset(void)
{
	static struct mcfan_msacc_window w;
	struct mcfan_msacc_row rows[6];
	struct trio t;
	uint64_t reset = T0 + 100000, end = reset + 1000000;
	unsigned int i;
	int n;

	mcfan_msacc_window_init(&w);
	trio_init(&t, T0);
	trio_run(&t, T0, reset);

	/* Continuous: since init. */
	n = mcfan_msacc_window_collect(&w, t.ptr, RTE_DIM(t.ptr), reset, rows, RTE_DIM(rows));
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_INT(rows[0].lcore_id, 0);
	CHECK_EQ_INT(rows[1].lcore_id, 2);
	CHECK_EQ_INT(rows[2].lcore_id, 5);
	CHECK_EQ_INT(rows[0].role, MCFAN_ROLE_RX);
	CHECK_EQ_INT(rows[2].role, MCFAN_ROLE_CONTROL);
	CHECK_EQ_INT(mcfan_msacc_snap_wall(&rows[0].snap), reset - T0);

	/* Reset 50 cycles into an interval: the baseline has pending time. */
	CHECK_EQ_INT(mcfan_msacc_window_reset(&w, t.ptr, RTE_DIM(t.ptr), reset + 50), 0);
	trio_run(&t, reset, end);
	n = mcfan_msacc_window_collect(&w, t.ptr, RTE_DIM(t.ptr), end + 30, rows, RTE_DIM(rows));
	CHECK_EQ_INT(n, 3);
	for (i = 0; i < (unsigned int)n; i++) {
		uint64_t sum = sum_cycles(rows[i].snap.cycles);
		uint64_t window = end + 30 - (reset + 50);

		CHECK_EQ_INT(sum, mcfan_msacc_snap_wall(&rows[i].snap));
		CHECK(dabs((double)sum - (double)window) <= WINDOW_TOLERANCE * (double)window,
			"lcore %u: sum %" PRIu64 " vs window %" PRIu64, rows[i].lcore_id, sum,
			window);
		CHECK_EQ_INT(rows[i].snap.start_tsc, reset);
	}
	/* rx: a quarter of the 100-cycle steps were rx, 32 frames each. */
	/* The last step (end) was rx, process and telemetry: they get the 30 pending cycles. */
	CHECK_EQ_INT(rows[0].snap.cycles[MCFAN_MS_RX], 2500 * 100 + 30);
	CHECK_EQ_INT(rows[0].snap.polls, 10000);
	CHECK_EQ_INT(rows[0].snap.polls_work, 2500);
	CHECK_EQ_INT(rows[0].snap.frames, 2500 * 32);
	CHECK_EQ_INT(rows[0].snap.hist[5], 2500);
	CHECK_EQ_INT(rows[1].snap.cycles[MCFAN_MS_PROCESS], 5000 * 100 + 30);
	CHECK_EQ_INT(rows[2].snap.cycles[MCFAN_MS_TELEMETRY], 1000 * 100 + 30);
	CHECK_EQ_INT(rows[2].snap.cycles[MCFAN_MS_SLEEP], 9000 * 100);

	/* Too small an output array; bad arguments. */
	CHECK_EQ_INT(mcfan_msacc_window_collect(&w, t.ptr, RTE_DIM(t.ptr), end, rows, 2),
		-ENOSPC);
	CHECK_EQ_INT(mcfan_msacc_window_collect(&w, t.ptr, MCFAN_MSACC_MAX_LCORES + 1, end,
		rows, 2), -EINVAL);
	CHECK_EQ_INT(mcfan_msacc_window_collect(&w, NULL, 0, end, rows, 2), -EINVAL);
	CHECK_EQ_INT(mcfan_msacc_window_collect(NULL, t.ptr, 1, end, rows, 2), -EINVAL);
	CHECK_EQ_INT(mcfan_msacc_window_reset(&w, NULL, 1, end), -EINVAL);

	/* An lcore added after the reset counts since its init. */
	{
		struct mcfan_msacc late;
		const struct mcfan_msacc *more[7];

		memcpy(more, t.ptr, sizeof(t.ptr));
		mcfan_msacc_init(&late, MCFAN_ROLE_WORKER, end);
		mcfan_msacc_add(&late, MCFAN_MS_DEQUEUE, end + 10);
		more[6] = &late;
		n = mcfan_msacc_window_collect(&w, more, RTE_DIM(more), end + 20, rows,
			RTE_DIM(rows));
		CHECK_EQ_INT(n, 4);
		CHECK_EQ_INT(rows[3].lcore_id, 6);
		CHECK_EQ_INT(rows[3].snap.start_tsc, end);
		CHECK_EQ_INT(sum_cycles(rows[3].snap.cycles), 20);
	}

	/* Back to continuous. */
	mcfan_msacc_window_continuous(&w);
	n = mcfan_msacc_window_collect(&w, t.ptr, RTE_DIM(t.ptr), end, rows, RTE_DIM(rows));
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_INT(rows[0].snap.start_tsc, T0);
	CHECK_EQ_INT(sum_cycles(rows[0].snap.cycles), end - T0);
}

static void
test_window_timed(void)
{
	static struct mcfan_msacc_window w;
	struct mcfan_msacc_window_info info;
	struct mcfan_msacc_row rows[6], frozen[6];
	struct trio t;
	const uint64_t length_ms = 10;
	const uint64_t start = T0 + 200000;
	const uint64_t end = start + length_ms * FAKE_CYC_PER_MS;
	int n;

	mcfan_msacc_window_init(&w);
	trio_init(&t, T0);
	trio_run(&t, T0, start);

	CHECK_EQ_INT(mcfan_msacc_window_start(&w, t.ptr, RTE_DIM(t.ptr), start, 0, FAKE_HZ),
		-EINVAL);
	CHECK_EQ_INT(mcfan_msacc_window_start(&w, t.ptr, RTE_DIM(t.ptr), start, 1, 0),
		-EINVAL);
	CHECK_EQ_INT(mcfan_msacc_window_start(&w, t.ptr, RTE_DIM(t.ptr), start, UINT64_MAX,
		FAKE_HZ), -EINVAL);
	CHECK_EQ_INT(mcfan_msacc_window_start(&w, t.ptr, RTE_DIM(t.ptr), UINT64_MAX - 5, 1,
		FAKE_HZ), -EINVAL);
	CHECK_EQ_INT(mcfan_msacc_window_start(&w, t.ptr, RTE_DIM(t.ptr), start, length_ms,
		FAKE_HZ), 0);

	CHECK_EQ_INT(mcfan_msacc_window_info(&w, start + 1000, &info), 0);
	CHECK_EQ_INT(info.mode, MCFAN_MSACC_WIN_TIMED);
	CHECK_EQ_INT(info.frozen, 0);
	CHECK_EQ_INT(info.start_tsc, start);
	CHECK_EQ_INT(info.end_tsc, end);
	CHECK_EQ_INT(info.remaining, end - start - 1000);

	/* Half-way: running, grows. */
	trio_run(&t, start, start + (end - start) / 2);
	CHECK_EQ_INT(mcfan_msacc_window_tick(&w, t.ptr, RTE_DIM(t.ptr), end - 1), 0);
	n = mcfan_msacc_window_collect(&w, t.ptr, RTE_DIM(t.ptr), start + (end - start) / 2,
		rows, RTE_DIM(rows));
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_INT(sum_cycles(rows[0].snap.cycles), (end - start) / 2);

	/* The end: the tick at the end freezes it. */
	trio_run(&t, start + (end - start) / 2, end);
	CHECK_EQ_INT(mcfan_msacc_window_tick(&w, t.ptr, RTE_DIM(t.ptr), end), 1);
	CHECK_EQ_INT(mcfan_msacc_window_tick(&w, t.ptr, RTE_DIM(t.ptr), end + 1), 0);
	n = mcfan_msacc_window_collect(&w, t.ptr, RTE_DIM(t.ptr), end, frozen,
		RTE_DIM(frozen));
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_INT(sum_cycles(frozen[0].snap.cycles), end - start);
	CHECK_EQ_INT(frozen[0].snap.tsc, end);
	CHECK_EQ_INT(frozen[1].snap.cycles[MCFAN_MS_PROCESS], (end - start) / 2);
	CHECK_EQ_INT(mcfan_msacc_window_info(&w, end + 5, &info), 0);
	CHECK_EQ_INT(info.frozen, 1);
	CHECK_EQ_INT(info.remaining, 0);

	/* Later: the frozen window is returned unchanged, with or without the blocks. */
	trio_run(&t, end, end + 5000000);
	n = mcfan_msacc_window_collect(&w, t.ptr, RTE_DIM(t.ptr), end + 5000000, rows,
		RTE_DIM(rows));
	CHECK_EQ_INT(n, 3);
	CHECK(memcmp(rows, frozen, sizeof(frozen[0]) * 3) == 0, "frozen window changed");
	n = mcfan_msacc_window_collect(&w, NULL, 0, end + 6000000, rows, RTE_DIM(rows));
	CHECK_EQ_INT(n, 3);
	CHECK(memcmp(rows, frozen, sizeof(frozen[0]) * 3) == 0, "frozen window changed");
	CHECK_EQ_INT(mcfan_msacc_window_collect(&w, NULL, 0, end, rows, 1), -ENOSPC);

	/* A late first collect freezes at its own time: the rows say so. */
	CHECK_EQ_INT(mcfan_msacc_window_start(&w, t.ptr, RTE_DIM(t.ptr), end + 5000000, 1,
		FAKE_HZ), 0);
	trio_run(&t, end + 5000000, end + 7000000);
	n = mcfan_msacc_window_collect(&w, t.ptr, RTE_DIM(t.ptr), end + 7000000, rows,
		RTE_DIM(rows));
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_INT(mcfan_msacc_snap_wall(&rows[0].snap), 2000000);
	CHECK_EQ_INT(sum_cycles(rows[0].snap.cycles), 2000000);

	/* A reset ends the frozen state. */
	CHECK_EQ_INT(mcfan_msacc_window_reset(&w, t.ptr, RTE_DIM(t.ptr), end + 7000000), 0);
	CHECK_EQ_INT(mcfan_msacc_window_info(&w, end + 7000000, &info), 0);
	CHECK_EQ_INT(info.mode, MCFAN_MSACC_WIN_RESET);
	CHECK_EQ_INT(info.frozen, 0);
	CHECK_EQ_INT(mcfan_msacc_window_info(NULL, 0, &info), -EINVAL);
}

static struct mcfan_msacc_row
make_row(uint32_t lcore, uint32_t role, const uint64_t *cycles, uint64_t polls,
		uint64_t polls_work, uint64_t frames)
{
	struct mcfan_msacc_row r;
	unsigned int s;

	memset(&r, 0, sizeof(r));
	r.lcore_id = lcore;
	r.role = role;
	r.snap.role = role;
	r.snap.start_tsc = T0;
	for (s = 0; s < MCFAN_MS_MAX; s++)
		r.snap.cycles[s] = cycles[s];
	r.snap.tsc = T0 + sum_cycles(cycles);
	r.snap.polls = polls;
	r.snap.polls_work = polls_work;
	r.snap.frames = frames;
	return r;
}

static void
test_role_aggregation(void)
{
	struct mcfan_msacc_stats st[MCFAN_ROLE_TYPE_MAX], one;
	struct mcfan_msacc_row rows[6];
	uint64_t c[MCFAN_MS_MAX];
	double sum;
	unsigned int i, s;

	memset(c, 0, sizeof(c));
	c[MCFAN_MS_POLL_EMPTY] = 600;
	c[MCFAN_MS_RX] = 200;
	c[MCFAN_MS_CLASSIFY] = 100;
	c[MCFAN_MS_FANOUT] = 100;
	rows[0] = make_row(1, MCFAN_ROLE_RX, c, 1000, 100, 400);
	memset(c, 0, sizeof(c));
	c[MCFAN_MS_POLL_EMPTY] = 300;
	c[MCFAN_MS_PROCESS] = 700;
	rows[1] = make_row(2, MCFAN_ROLE_WORKER, c, 10, 5, 50);
	memset(c, 0, sizeof(c));
	c[MCFAN_MS_SLEEP] = 2000;
	c[MCFAN_MS_PROCESS] = 1000;
	rows[2] = make_row(3, MCFAN_ROLE_WORKER, c, 20, 0, 0);
	memset(c, 0, sizeof(c));
	c[MCFAN_MS_RX] = 1;
	c[MCFAN_MS_POLL_EMPTY] = 2;
	rows[3] = make_row(4, MCFAN_ROLE_RX | MCFAN_ROLE_WORKER, c, 3, 1, 1);
	memset(c, 0, sizeof(c));
	c[MCFAN_MS_CONSOLE] = 10;
	c[MCFAN_MS_TELEMETRY] = 20;
	c[MCFAN_MS_SLEEP] = 970;
	rows[4] = make_row(0, MCFAN_ROLE_CONTROL, c, 0, 0, 0);
	rows[5] = make_row(9, MCFAN_ROLE_RX | MCFAN_ROLE_CONTROL, c, 0, 0, 0);

	CHECK_EQ_INT(mcfan_msacc_stats_by_role(rows, RTE_DIM(rows), st), 0);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_RX].nb_lcores, 1);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_WORKER].nb_lcores, 2);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_RX_WORKER].nb_lcores, 1);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_CONTROL].nb_lcores, 1);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_WORKER].role, MCFAN_ROLE_WORKER);

	/* Workers: 4000 cycles of wall time, 1700 process, 300 poll_empty, 2000 sleep. */
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_WORKER].wall_cycles, 4000);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_WORKER].cycles[MCFAN_MS_PROCESS], 1700);
	CHECK(dabs(st[MCFAN_ROLE_TYPE_WORKER].pct[MCFAN_MS_PROCESS] - 42.5) < DOUBLE_EPS,
		"process %f", st[MCFAN_ROLE_TYPE_WORKER].pct[MCFAN_MS_PROCESS]);
	CHECK(dabs(st[MCFAN_ROLE_TYPE_WORKER].pct[MCFAN_MS_SLEEP] - 50.0) < DOUBLE_EPS,
		"sleep %f", st[MCFAN_ROLE_TYPE_WORKER].pct[MCFAN_MS_SLEEP]);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_WORKER].busy_cycles, 1700);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_WORKER].polls, 30);
	CHECK(dabs(st[MCFAN_ROLE_TYPE_WORKER].cycles_per_frame - 1700.0 / 50.0) < DOUBLE_EPS,
		"cycles per frame %f", st[MCFAN_ROLE_TYPE_WORKER].cycles_per_frame);
	CHECK(dabs(st[MCFAN_ROLE_TYPE_WORKER].empty_poll_pct - 2500.0 / 30.0) < DOUBLE_EPS,
		"empty poll %f", st[MCFAN_ROLE_TYPE_WORKER].empty_poll_pct);

	/* RX: busy = rx + classify + fanout. */
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_RX].busy_cycles, 400);
	CHECK(dabs(st[MCFAN_ROLE_TYPE_RX].busy_pct - 40.0) < DOUBLE_EPS, "busy %f",
		st[MCFAN_ROLE_TYPE_RX].busy_pct);
	CHECK(dabs(st[MCFAN_ROLE_TYPE_RX].frames_per_poll - 4.0) < DOUBLE_EPS, "fpp %f",
		st[MCFAN_ROLE_TYPE_RX].frames_per_poll);
	CHECK(dabs(st[MCFAN_ROLE_TYPE_RX].empty_poll_pct - 90.0) < DOUBLE_EPS, "empty %f",
		st[MCFAN_ROLE_TYPE_RX].empty_poll_pct);
	CHECK(dabs(st[MCFAN_ROLE_TYPE_RX].cycles_per_frame - 1.0) < DOUBLE_EPS, "cpf %f",
		st[MCFAN_ROLE_TYPE_RX].cycles_per_frame);
	/* Control: the mixed row is left out. */
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_CONTROL].wall_cycles, 1000);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_CONTROL].busy_cycles, 30);

	/* Every row sums to 100 %. */
	for (i = 0; i < MCFAN_ROLE_TYPE_MAX; i++) {
		sum = 0;
		for (s = 0; s < MCFAN_MS_MAX; s++)
			sum += st[i].pct[s];
		CHECK(dabs(sum - 100.0) < DOUBLE_EPS, "type %u sums to %f", i, sum);
	}
	for (i = 0; i < RTE_DIM(rows); i++) {
		CHECK_EQ_INT(mcfan_msacc_stats(&rows[i].snap, &one), 0);
		CHECK_EQ_INT(one.nb_lcores, 1);
		sum = 0;
		for (s = 0; s < MCFAN_MS_MAX; s++)
			sum += one.pct[s];
		CHECK(dabs(sum - 100.0) < DOUBLE_EPS, "row %u sums to %f", i, sum);
	}

	/* Empty input and bad arguments. */
	CHECK_EQ_INT(mcfan_msacc_stats_by_role(NULL, 0, st), 0);
	CHECK_EQ_INT(st[MCFAN_ROLE_TYPE_RX].nb_lcores, 0);
	CHECK(st[MCFAN_ROLE_TYPE_RX].pct[MCFAN_MS_RX] == 0.0, "empty type has a percentage");
	CHECK_EQ_INT(mcfan_msacc_stats_by_role(NULL, 1, st), -EINVAL);
	CHECK_EQ_INT(mcfan_msacc_stats_by_role(rows, 1, NULL), -EINVAL);
	CHECK_EQ_INT(mcfan_msacc_stats(NULL, &one), -EINVAL);
}

/*
 * Sum the percentage columns of the table row whose first two fields are
 * lcore and role, in the section that starts with "section". Returns the
 * number of columns, or -1 if the row is not found.
 */
static int
row_sum(const char *text, const char *section, unsigned int lcore, const char *role,
		double *sum)
{
	char want[64], line[512];
	const char *p = strstr(text, section), *eol;
	size_t len;

	if (p == NULL)
		return -1;
	snprintf(want, sizeof(want), "%u %s ", lcore, role);
	while ((p = strchr(p, '\n')) != NULL) {
		p++;
		eol = strchr(p, '\n');
		len = eol == NULL ? strlen(p) : (size_t)(eol - p);
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		if (strncmp(line + strspn(line, " "), want, strlen(want)) == 0) {
			char *q = line + strspn(line, " ") + strlen(want), *end;
			int cols = 0;

			*sum = 0;
			for (;;) {
				double v = strtod(q, &end);

				if (end == q)
					break;
				*sum += v;
				cols++;
				q = end;
			}
			return cols;
		}
		if (len > 0 && line[0] != ' ')
			return -1; /* next section */
	}
	return -1;
}

static void
test_format(void)
{
	static char text[TEXT_SIZE];
	struct mcfan_msacc_row rows[4];
	uint64_t c[MCFAN_MS_MAX], x = UINT64_C(0x9e3779b97f4a7c15);
	double sum, worst = 0;
	unsigned int i, s;
	int n, cols;

	memset(c, 0, sizeof(c));
	/* Thirds: each printed value rounds, the sum must stay within 100 +/- 0.1. */
	c[MCFAN_MS_POLL_EMPTY] = 1;
	c[MCFAN_MS_RX] = 1;
	c[MCFAN_MS_CLASSIFY] = 1;
	rows[0] = make_row(1, MCFAN_ROLE_RX, c, 7, 2, 64);
	rows[0].snap.hist[5] = 2;
	memset(c, 0, sizeof(c));
	c[MCFAN_MS_POLL_EMPTY] = 9999;
	c[MCFAN_MS_DEQUEUE] = 1;
	rows[1] = make_row(2, MCFAN_ROLE_WORKER, c, 100, 1, 1);
	memset(c, 0, sizeof(c));
	c[MCFAN_MS_SLEEP] = 7;
	c[MCFAN_MS_CONSOLE] = 1;
	c[MCFAN_MS_TELEMETRY] = 1;
	rows[2] = make_row(0, MCFAN_ROLE_CONTROL, c, 0, 0, 0);
	memset(c, 0, sizeof(c));
	rows[3] = make_row(3, MCFAN_ROLE_RX | MCFAN_ROLE_WORKER, c, 0, 0, 0); /* empty window */

	n = mcfan_msacc_format_table(text, sizeof(text), rows, RTE_DIM(rows), FAKE_HZ, 0);
	CHECK(n > 0, "format returned %d", n);
	CHECK_EQ_INT(n, strlen(text));
	CHECK(strstr(text, "Hz") != NULL, "no TSC rate:\n%s", text);
	CHECK(strstr(text, "Stats per lcore") != NULL, "no lcore section:\n%s", text);
	CHECK(strstr(text, "Stats per role") != NULL, "no role section:\n%s", text);
	CHECK(strstr(text, "Counters per lcore") != NULL, "no counters:\n%s", text);
	CHECK(strstr(text, "Non-empty polls") == NULL, "histogram not asked for:\n%s", text);
	for (s = 0; s < MCFAN_MS_MAX; s++)
		CHECK(strstr(text, mcfan_ms_state_name(s)) != NULL, "no column %s",
			mcfan_ms_state_name(s));
	CHECK(strstr(text, "  lcore role      poll_empty         rx   classify") != NULL,
		"header layout:\n%s", text);
	CHECK(strstr(text, "rx+worker") != NULL, "no rx+worker row:\n%s", text);

	cols = row_sum(text, "Stats per lcore", 1, "rx", &sum);
	CHECK_EQ_INT(cols, MCFAN_MS_MAX);
	CHECK(dabs(sum - 100.0) <= PRINT_TOLERANCE, "rx row sums to %f", sum);
	cols = row_sum(text, "Stats per lcore", 2, "worker", &sum);
	CHECK_EQ_INT(cols, MCFAN_MS_MAX);
	CHECK(dabs(sum - 100.0) <= PRINT_TOLERANCE, "worker row sums to %f", sum);
	cols = row_sum(text, "Stats per lcore", 0, "control", &sum);
	CHECK_EQ_INT(cols, MCFAN_MS_MAX);
	CHECK(dabs(sum - 100.0) <= PRINT_TOLERANCE, "control row sums to %f", sum);
	CHECK(strstr(text, "99.99") != NULL && strstr(text, "0.01") != NULL,
		"worker percentages:\n%s", text);
	CHECK(strstr(text, "33.33") != NULL, "rx thirds:\n%s", text);
	/* Per-role rows start with the number of lcores. */
	cols = row_sum(text, "Stats per role", 1, "worker", &sum);
	CHECK_EQ_INT(cols, MCFAN_MS_MAX);
	CHECK(dabs(sum - 100.0) <= PRINT_TOLERANCE, "worker type sums to %f", sum);
	cols = row_sum(text, "Stats per role", 1, "control", &sum);
	CHECK_EQ_INT(cols, MCFAN_MS_MAX);

	/* Compact: only the columns with time in them; histogram on request. */
	n = mcfan_msacc_format_table(text, sizeof(text), rows, 3, 0,
		MCFAN_MSACC_FMT_LCORES | MCFAN_MSACC_FMT_COMPACT | MCFAN_MSACC_FMT_HIST);
	CHECK(n > 0, "format returned %d", n);
	CHECK(strstr(text, "fanout") == NULL, "empty column shown:\n%s", text);
	CHECK(strstr(text, "process") == NULL, "empty column shown:\n%s", text);
	CHECK(strstr(text, "dequeue") != NULL, "column missing:\n%s", text);
	CHECK(strstr(text, "Stats per role") == NULL, "role section not asked for");
	CHECK(strstr(text, "TSC rate unknown") != NULL, "no-rate header:\n%s", text);
	CHECK(strstr(text, "256-511") != NULL && strstr(text, "512+") != NULL,
		"histogram labels:\n%s", text);
	cols = row_sum(text, "Stats per lcore", 1, "rx", &sum);
	CHECK_EQ_INT(cols, 7);
	CHECK(dabs(sum - 100.0) <= PRINT_TOLERANCE, "compact rx row sums to %f", sum);

	/* Rounding: random rows, each printed row within 100 +/- 0.1. */
	for (i = 0; i < ROUNDING_ROUNDS; i++) {
		for (s = 0; s < MCFAN_MS_MAX; s++)
			c[s] = next_rand(&x) % (1 + (next_rand(&x) % 1000000));
		c[MCFAN_MS_OTHER]++;
		rows[0] = make_row(7, MCFAN_ROLE_WORKER, c, 1, 1, 1);
		n = mcfan_msacc_format_table(text, sizeof(text), rows, 1, FAKE_HZ,
			MCFAN_MSACC_FMT_LCORES);
		cols = row_sum(text, "Stats per lcore", 7, "worker", &sum);
		if (cols != MCFAN_MS_MAX || dabs(sum - 100.0) > PRINT_TOLERANCE) {
			CHECK(0, "round %u: %d columns sum to %f:\n%s", i, cols, sum, text);
			break;
		}
		worst = RTE_MAX(worst, dabs(sum - 100.0));
	}
	CHECK(worst <= PRINT_TOLERANCE, "worst printed row error %f", worst);
	printf("msacc: worst printed row error over %u random rows: %.3f\n", ROUNDING_ROUNDS,
		worst);

	/* 128 lcores with huge counters and every section fit the documented size. */
	{
		static struct mcfan_msacc_row many[MCFAN_MSACC_MAX_LCORES];
		static char big[MCFAN_MSACC_FORMAT_SIZE(MCFAN_MSACC_MAX_LCORES)];
		const char *line, *nl;
		size_t longest = 0;

		for (i = 0; i < MCFAN_MSACC_MAX_LCORES; i++) {
			for (s = 0; s < MCFAN_MS_MAX; s++)
				c[s] = UINT64_MAX / (2 * MCFAN_MS_MAX) - s;
			many[i] = make_row(i, i % 2 ? MCFAN_ROLE_WORKER : MCFAN_ROLE_RX, c,
				UINT64_MAX / 2, UINT64_MAX / 4, UINT64_MAX / 3);
			for (s = 0; s < MCFAN_MSACC_HIST_BUCKETS; s++)
				many[i].snap.hist[s] = UINT64_MAX - s;
			many[i].snap.sleeps = UINT64_MAX;
			many[i].snap.wakeups = UINT64_MAX;
		}
		n = mcfan_msacc_format_table(big, sizeof(big), many, MCFAN_MSACC_MAX_LCORES,
			FAKE_HZ, MCFAN_MSACC_FMT_DEFAULT | MCFAN_MSACC_FMT_HIST);
		CHECK(n > 0, "128 lcores: format returned %d", n);
		for (line = big; *line != '\0'; line = nl + 1) {
			nl = strchr(line, '\n');
			if (nl == NULL)
				break;
			longest = RTE_MAX(longest, (size_t)(nl - line + 1));
		}
		CHECK(longest <= MCFAN_MSACC_FORMAT_LINE_MAX, "line of %zu bytes", longest);
		printf("msacc: 128-lcore table with every section: %d bytes (buffer %zu), "
			"longest line %zu\n", n, sizeof(big), longest);
	}

	/* Errors: too small, bad arguments. */
	n = mcfan_msacc_format_table(text, 40, rows, 1, FAKE_HZ, 0);
	CHECK_EQ_INT(n, -ENOSPC);
	CHECK(strlen(text) == 39, "truncated text not terminated at the end: %zu",
		strlen(text));
	CHECK_EQ_INT(mcfan_msacc_format_table(NULL, 10, rows, 1, 0, 0), -EINVAL);
	CHECK_EQ_INT(mcfan_msacc_format_table(text, 0, rows, 1, 0, 0), -EINVAL);
	CHECK_EQ_INT(mcfan_msacc_format_table(text, sizeof(text), NULL, 1, 0, 0), -EINVAL);
	n = mcfan_msacc_format_table(text, sizeof(text), NULL, 0, FAKE_HZ, 0);
	CHECK(n > 0, "empty table returned %d", n);
}

/* ---------------------------------------------------------------------------------------------
 * Concurrent writer.
 */

struct race {
	struct mcfan_msacc ms;  /**< Written by the writer thread only. */
	uint64_t gap;           /**< Real TSC cycles the writer spins every 4 operations. */
	uint64_t ops;           /**< Operations the writer performed, once done. */
	uint64_t replayed;      /**< Operations the reader has replayed so far. */
	uint32_t stop;          /**< Set by the reader: the writer stops. */
	uint32_t done;          /**< Set by the writer when it has finished. */
};

/* Fake TSC of iteration i: strictly increasing by at least 3. */
static inline uint64_t
race_tsc(uint64_t i)
{
	return T0 + 7 * (i + 1) + i % 5;
}

/* Apply operation k of the writer's fixed program to ms. */
static inline void
race_op(struct mcfan_msacc *ms, uint64_t k)
{
	uint64_t i = k / 4;

	switch (k % 4) {
	case 0:
		mcfan_msacc_add(ms, (enum mcfan_ms_state)(i % MCFAN_MS_MAX), race_tsc(i));
		break;
	case 1:
		mcfan_msacc_poll(ms, (uint16_t)(i * 37 % 700));
		break;
	case 2:
		mcfan_msacc_add_poll(ms, (enum mcfan_ms_state)((i + 3) % MCFAN_MS_MAX),
			race_tsc(i) + 2, (uint16_t)((i + 1) * 37 % 700));
		break;
	default:
		if (i % 8 == 0)
			mcfan_msacc_note_sleep(ms);
		else if (i % 8 == 4)
			mcfan_msacc_note_wakeup(ms);
		else
			mcfan_msacc_add(ms, (enum mcfan_ms_state)((i + 5) % MCFAN_MS_MAX),
				race_tsc(i) + 2);
		break;
	}
}

static void *
race_writer(void *arg)
{
	struct race *r = arg;
	uint64_t k, t;

	for (k = 0; !__atomic_load_n(&r->stop, __ATOMIC_RELAXED); k++) {
		/* Stay near the reader, so its replay keeps up and snapshots stay frequent. */
		if ((k & (RACE_LEAD_CHECK - 1)) == 0)
			while (k > __atomic_load_n(&r->replayed, __ATOMIC_RELAXED) + RACE_LEAD &&
					!__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
				rte_pause();
		/* Like an lcore between bursts: time passes outside the write sections. */
		if (r->gap > 0 && k % 4 == 0) {
			t = rte_rdtsc();
			while (rte_rdtsc() - t < r->gap)
				rte_pause();
		}
		race_op(&r->ms, k);
	}
	r->ops = k;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Compare a snapshot with the single-threaded model at the same sequence number. */
static int
race_same(const struct mcfan_msacc_snap *a, const struct mcfan_msacc_snap *b)
{
	return a->seq == b->seq && a->tsc == b->tsc && a->last_tsc == b->last_tsc &&
		a->init_tsc == b->init_tsc && a->state == b->state && a->role == b->role &&
		memcmp(a->cycles, b->cycles, sizeof(a->cycles)) == 0 &&
		memcmp(a->hist, b->hist, sizeof(a->hist)) == 0 && a->polls == b->polls &&
		a->polls_work == b->polls_work && a->frames == b->frames &&
		a->sleeps == b->sleeps && a->wakeups == b->wakeups;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * TEST_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/*
 * A pthread writer runs a fixed program of operations while this thread
 * snapshots it non-stop, until TARGET_DISTINCT distinct snapshots or
 * RACE_LIMIT_NS. Every snapshot must satisfy the invariants and equal, field
 * by field, a single-threaded replay of the program up to the same sequence
 * number: a torn copy cannot pass.
 */
static void
test_concurrent(uint64_t gap, uint64_t min_distinct)
{
	static struct race r;
	struct mcfan_msacc model;
	struct mcfan_msacc_snap s, m;
	uint64_t k = 0, snaps = 0, prev_seq = 0, distinct = 0, bad_model = 0, bad_inv = 0;
	uint64_t deadline = mono_ns() + RACE_LIMIT_NS;
	pthread_t writer;
	int done, rc;

	memset(&r, 0, sizeof(r));
	r.gap = gap;
	mcfan_msacc_init(&r.ms, MCFAN_ROLE_RX, T0);
	mcfan_msacc_init(&model, MCFAN_ROLE_RX, T0);
	rc = pthread_create(&writer, NULL, race_writer, &r);
	CHECK_EQ_INT(rc, 0);
	if (rc != 0)
		return;
	/* Count only what overlaps the writer. */
	while (__atomic_load_n(&r.ms.seq, __ATOMIC_RELAXED) == 0)
		rte_pause();
	do {
		done = __atomic_load_n(&r.done, __ATOMIC_ACQUIRE);
		/* now_tsc 0: the snapshot ends at the owner's last change. */
		mcfan_msacc_snapshot(&r.ms, 0, &s);
		snaps++;
		if (s.seq % 2 != 0 || s.seq < prev_seq) {
			bad_model++;
			break;
		}
		distinct += s.seq != prev_seq;
		prev_seq = s.seq;

		/* Invariants every consistent copy satisfies. */
		if (sum_cycles(s.cycles) != s.tsc - s.init_tsc || s.polls < s.polls_work ||
				sum_hist(s.hist) != s.polls_work || s.frames < s.polls_work ||
				s.pending != 0) {
			if (bad_inv++ == 0)
				fprintf(stderr, "inconsistent snapshot at seq %" PRIu64 "\n",
					s.seq);
		}
		/* Exactly the state after seq / 2 operations of the program. */
		while (model.seq < s.seq)
			race_op(&model, k++);
		__atomic_store_n(&r.replayed, k, __ATOMIC_RELAXED);
		mcfan_msacc_snapshot(&model, 0, &m);
		if (!race_same(&s, &m)) {
			if (bad_model++ == 0)
				fprintf(stderr, "snapshot differs from the model at seq %" PRIu64
					"\n", s.seq);
		}
		/* With a later reader TSC the gap goes to the current state. */
		mcfan_msacc_snapshot(&r.ms, UINT64_MAX / 2, &s);
		if (sum_cycles(s.cycles) != UINT64_MAX / 2 - T0)
			bad_inv++;
		if (distinct >= TARGET_DISTINCT || (snaps % 64 == 0 && mono_ns() > deadline))
			__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	} while (!done);
	pthread_join(writer, NULL);

	CHECK_EQ_INT(bad_inv, 0);
	CHECK_EQ_INT(bad_model, 0);
	CHECK_EQ_INT(prev_seq, 2 * r.ops);
	CHECK(distinct >= min_distinct, "only %" PRIu64 " distinct snapshots", distinct);
	printf("msacc: writer gap %" PRIu64 " cycles: %" PRIu64 " snapshots (%" PRIu64
		" distinct) against %" PRIu64 " writer ops, %" PRIu64
		" copies requested from the writer\n", gap, snaps, distinct, r.ops,
		mcfan_atomic_u64_load(&r.ms.req, memory_order_relaxed));
}

/* wait_cpu: the control side's per-state amounts move into wait_cpu in a window, a row
 * still sums to its wall time, an amount is cut to its state, applying twice is a no-op. */
static void
test_wait_cpu(void)
{
	uint64_t adj[MCFAN_MS_MAX] = {0};
	struct mcfan_msacc_snap base, now, win;
	struct mcfan_msacc ms;

	CHECK_EQ_STR(mcfan_ms_state_name(MCFAN_MS_WAIT_CPU), "wait_cpu");
	CHECK_EQ_INT(mcfan_ms_state_from_name("wait_cpu"), MCFAN_MS_WAIT_CPU);
	mcfan_msacc_init(&ms, MCFAN_ROLE_RX, T0);
	mcfan_msacc_add_poll(&ms, MCFAN_MS_POLL_EMPTY, T0 + 1000, 0);
	adj[MCFAN_MS_POLL_EMPTY] = 100;
	mcfan_msacc_set_wait(&ms, adj);
	mcfan_msacc_snapshot(&ms, T0 + 1000, &base);
	CHECK_EQ_INT(base.wait_adj[MCFAN_MS_POLL_EMPTY], 100);
	mcfan_msacc_add_poll(&ms, MCFAN_MS_RX, T0 + 3000, 32);
	mcfan_msacc_add(&ms, MCFAN_MS_CLASSIFY, T0 + 4000);
	adj[MCFAN_MS_POLL_EMPTY] = 100;
	adj[MCFAN_MS_RX] = 500;
	adj[MCFAN_MS_CLASSIFY] = 5000; /* more than the state holds: cut */
	adj[MCFAN_MS_WAIT_CPU] = 77;   /* ignored */
	mcfan_msacc_set_wait(&ms, adj);
	mcfan_msacc_snapshot(&ms, T0 + 4000, &now);
	mcfan_msacc_diff(&now, &base, &win);
	CHECK_EQ_INT(win.wait_adj[MCFAN_MS_RX], 500);
	CHECK_EQ_INT(win.wait_adj[MCFAN_MS_POLL_EMPTY], 0);
	CHECK_EQ_INT(win.wait_adj[MCFAN_MS_WAIT_CPU], 0);
	mcfan_msacc_snap_apply_wait(&win);
	CHECK_EQ_INT(win.cycles[MCFAN_MS_RX], 2000 - 500);
	CHECK_EQ_INT(win.cycles[MCFAN_MS_CLASSIFY], 0);
	CHECK_EQ_INT(win.cycles[MCFAN_MS_WAIT_CPU], 500 + 1000);
	CHECK_EQ_INT(sum_cycles(win.cycles), mcfan_msacc_snap_wall(&win));
	mcfan_msacc_snap_apply_wait(&win);
	CHECK_EQ_INT(win.cycles[MCFAN_MS_WAIT_CPU], 1500);
	/* since init: the whole amounts */
	mcfan_msacc_snap_apply_wait(&now);
	CHECK_EQ_INT(now.cycles[MCFAN_MS_POLL_EMPTY], 900);
	CHECK_EQ_INT(now.cycles[MCFAN_MS_WAIT_CPU], 100 + 500 + 1000);
	CHECK_EQ_INT(sum_cycles(now.cycles), now.tsc - T0);
}

int
main(void)
{
	test_names();
	test_hist_buckets();
	test_transitions();
	test_diff();
	test_wait_cpu();
	test_publish();
	test_window_reset();
	test_window_timed();
	test_role_aggregation();
	test_format();
	test_concurrent(0, MIN_DISTINCT);
	test_concurrent(WRITER_GAP, MIN_DISTINCT);
	return unit_summary("msacc");
}
