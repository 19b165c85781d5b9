/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Microbenchmark: the fast-path cost of microstate accounting, in TSC cycles
 * per mcfan_msacc_add() + mcfan_msacc_poll() pair (what an lcore pays once
 * per burst), without EAL. Each case runs ITERS iterations BENCH_RUNS times
 * and keeps the fastest run; the loop's own cost (the "empty loop" case) is
 * subtracted to give the net figure. The TSC rate is estimated against
 * CLOCK_MONOTONIC_RAW to print nanoseconds.
 *
 * Usage: msacc_cost [iterations]
 */

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "mcfan_msacc.h"
#include "mcfan_msacc_window.h"
#include "mcfan_msacc_writer.h"

/** Default iterations per run. */
#define DEFAULT_ITERS (1000u * 1000u)
/** Runs per case; the fastest is kept (short runs dodge preemption on busy hosts). */
#define BENCH_RUNS 51
/** Frames per poll in the busy cases (a typical rx burst). */
#define BENCH_BURST 32
/** Fake TSC step per iteration in the fake-TSC cases (cycles). */
#define FAKE_STEP 40
/** Nanoseconds per second. */
#define BENCH_NS_PER_S UINT64_C(1000000000)
/** Length of the TSC rate estimate (ns). */
#define CALIBRATE_NS (BENCH_NS_PER_S / 5)

enum bench_case {
	CASE_EMPTY,        /* loop and fake TSC only: the baseline */
	CASE_IDLE,         /* add(poll_empty) + poll(0) */
	CASE_BUSY,         /* add(rx) + poll(32) */
	CASE_MIXED,        /* 1 poll in 4 returns 1..63 frames */
	CASE_COMBINED,     /* add_poll(rx, 32) in one write section */
	CASE_RDTSC,        /* rte_rdtsc() only: the baseline of the next case */
	CASE_RDTSC_BUSY,   /* rte_rdtsc() + add(rx) + poll(32): what a loop really does */
	CASE_BUSY_READER,  /* add(rx) + poll(32) while another thread snapshots non-stop */
	CASE_MAX
};

static const char *const case_names[CASE_MAX] = {
	[CASE_EMPTY] = "empty loop (fake TSC)",
	[CASE_IDLE] = "add(poll_empty)+poll(0)",
	[CASE_BUSY] = "add(rx)+poll(32)",
	[CASE_MIXED] = "add+poll, 1 in 4 polls 1..63 frames",
	[CASE_COMBINED] = "add_poll(rx, 32)",
	[CASE_RDTSC] = "rte_rdtsc() only",
	[CASE_RDTSC_BUSY] = "rte_rdtsc()+add(rx)+poll(32)",
	[CASE_BUSY_READER] = "add(rx)+poll(32), reader snapshotting",
};

struct reader_arg {
	const struct mcfan_msacc *ms;
	uint32_t stop;
	uint64_t snapshots;
};

static void *
reader_main(void *p)
{
	struct reader_arg *r = p;
	struct mcfan_msacc_snap snap;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		mcfan_msacc_snapshot(r->ms, 0, &snap);
		r->snapshots++;
	}
	return NULL;
}

/* One run of a case; returns TSC cycles for iters iterations. */
static uint64_t
run_case(enum bench_case c, struct mcfan_msacc *ms, uint64_t iters)
{
	uint64_t i, t = 1, start, end;
	uint16_t n;

	mcfan_msacc_init(ms, MCFAN_ROLE_RX, t);
	start = rte_rdtsc_precise();
	switch (c) {
	case CASE_EMPTY:
		for (i = 0; i < iters; i++) {
			t += FAKE_STEP;
			__asm__ volatile("" : "+r"(t) : : "memory");
		}
		break;
	case CASE_IDLE:
		for (i = 0; i < iters; i++) {
			t += FAKE_STEP;
			mcfan_msacc_add(ms, MCFAN_MS_POLL_EMPTY, t);
			mcfan_msacc_poll(ms, 0);
		}
		break;
	case CASE_BUSY:
	case CASE_BUSY_READER:
		for (i = 0; i < iters; i++) {
			t += FAKE_STEP;
			mcfan_msacc_add(ms, MCFAN_MS_RX, t);
			mcfan_msacc_poll(ms, BENCH_BURST);
		}
		break;
	case CASE_MIXED:
		for (i = 0; i < iters; i++) {
			t += FAKE_STEP;
			n = (i & 3) == 0 ? (uint16_t)(1 + (i >> 2) % 63) : 0;
			mcfan_msacc_add(ms, n > 0 ? MCFAN_MS_RX : MCFAN_MS_POLL_EMPTY, t);
			mcfan_msacc_poll(ms, n);
		}
		break;
	case CASE_COMBINED:
		for (i = 0; i < iters; i++) {
			t += FAKE_STEP;
			mcfan_msacc_add_poll(ms, MCFAN_MS_RX, t, BENCH_BURST);
		}
		break;
	case CASE_RDTSC:
		for (i = 0; i < iters; i++) {
			t = rte_rdtsc();
			__asm__ volatile("" : "+r"(t) : : "memory");
		}
		break;
	case CASE_RDTSC_BUSY:
		for (i = 0; i < iters; i++) {
			mcfan_msacc_add(ms, MCFAN_MS_RX, rte_rdtsc());
			mcfan_msacc_poll(ms, BENCH_BURST);
		}
		break;
	default:
		break;
	}
	end = rte_rdtsc_precise();
	return end - start;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * BENCH_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* TSC rate estimated over CALIBRATE_NS of wall time (Hz). */
static uint64_t
estimate_tsc_hz(void)
{
	uint64_t ns0 = mono_ns(), tsc0 = rte_rdtsc_precise(), ns1, tsc1;

	do {
		ns1 = mono_ns();
	} while (ns1 - ns0 < CALIBRATE_NS);
	tsc1 = rte_rdtsc_precise();
	return (uint64_t)((double)(tsc1 - tsc0) * (double)BENCH_NS_PER_S / (double)(ns1 - ns0));
}

int
main(int argc, char **argv)
{
	static struct mcfan_msacc ms;
	struct reader_arg reader = { .ms = &ms };
	double per_iter[CASE_MAX], net;
	uint64_t iters = DEFAULT_ITERS, best, cyc, hz;
	pthread_t tid;
	unsigned int c, r;

	if (argc > 1) {
		iters = strtoull(argv[1], NULL, 0);
		if (iters == 0) {
			fprintf(stderr, "usage: %s [iterations]\n", argv[0]);
			return 1;
		}
	}
	hz = estimate_tsc_hz();
	printf("msacc_cost: %" PRIu64 " iterations x best of %d runs, TSC ~%.3f GHz, "
		"sizeof(struct mcfan_msacc) = %zu bytes\n", iters, BENCH_RUNS,
		(double)hz / (double)BENCH_NS_PER_S, sizeof(struct mcfan_msacc));

	for (c = 0; c < CASE_MAX; c++) {
		if (c == CASE_BUSY_READER &&
				pthread_create(&tid, NULL, reader_main, &reader) != 0) {
			per_iter[c] = 0;
			printf("  %-40s (no reader thread)\n", case_names[c]);
			continue;
		}
		best = UINT64_MAX;
		for (r = 0; r < BENCH_RUNS; r++) {
			cyc = run_case(c, &ms, iters);
			best = RTE_MIN(best, cyc);
		}
		if (c == CASE_BUSY_READER) {
			__atomic_store_n(&reader.stop, 1, __ATOMIC_RELEASE);
			pthread_join(tid, NULL);
		}
		per_iter[c] = (double)best / (double)iters;
		/* Net: minus the loop that does the same without accounting. */
		if (c == CASE_EMPTY || c == CASE_RDTSC)
			net = per_iter[c];
		else if (c == CASE_RDTSC_BUSY)
			net = per_iter[c] - per_iter[CASE_RDTSC];
		else
			net = per_iter[c] - per_iter[CASE_EMPTY];
		printf("  %-40s %7.2f cycles/iter  net %6.2f cycles  %6.2f ns\n",
			case_names[c], per_iter[c], net, net * (double)BENCH_NS_PER_S / (double)hz);
	}
	printf("  (reader took %" PRIu64 " snapshots during its case)\n", reader.snapshots);
	printf("msacc_cost: add+poll pair = %.2f cycles (idle), %.2f cycles (busy), "
		"%.2f cycles (add_poll); rte_rdtsc() = %.2f cycles\n",
		per_iter[CASE_IDLE] - per_iter[CASE_EMPTY],
		per_iter[CASE_BUSY] - per_iter[CASE_EMPTY],
		per_iter[CASE_COMBINED] - per_iter[CASE_EMPTY], per_iter[CASE_RDTSC]);
	return 0;
}
