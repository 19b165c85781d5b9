/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Microbenchmark: what one wake-up of a sleeping process costs on this host, the floor under
 * the readers engine's CPU per copy (issue 14; docs/performance.md). No DPDK, no ring: N
 * processes wait on one futex word in shared memory, as readers wait on a ring's head_futex
 * (lib/reader); a waker bumps the word and wakes them all (FUTEX_WAKE, as the readers
 * writer does) every INTERVAL microseconds for SECONDS seconds. Printed: the waiters' CPU
 * (user + system, getrusage of the children) per wake-up of one waiter, and the waker's CPU
 * per FUTEX_WAKE call and per waiter it woke.
 *
 * Usage: wake_floor [waiters 1..1000] [interval us 10..1000000] [seconds 1..60]
 *        (defaults 10, 300, 3: one group's 10 readers at one wake-up a 3,300/s datagram)
 */

#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAITERS_MAX 1000

struct shared {
	_Atomic uint32_t word;          /* the futex word: bumped at every wake-up */
	_Atomic uint32_t stop;
	uint64_t woken[WAITERS_MAX];    /* wake-ups each waiter saw the word change */
};

static long
futex(_Atomic uint32_t *addr, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)addr, op, val, NULL, NULL, 0);
}

static double
cpu_s(const struct rusage *u)
{
	return (double)u->ru_utime.tv_sec + (double)u->ru_stime.tv_sec +
	       ((double)u->ru_utime.tv_usec + (double)u->ru_stime.tv_usec) / 1e6;
}

static int
arg(int argc, char **argv, int i, int64_t def, int64_t lo, int64_t hi, const char *what,
    int64_t *out)
{
	char *end;

	if (argc <= i) {
		*out = def;
		return 0;
	}
	errno = 0;
	*out = strtoll(argv[i], &end, 10);
	if (errno != 0 || *end != '\0' || end == argv[i] || *out < lo || *out > hi) {
		fprintf(stderr, "wake_floor: %s '%s': a decimal number %" PRId64 "..%" PRId64
			"\n", what, argv[i], lo, hi);
		return -1;
	}
	return 0;
}

static void
waiter(struct shared *s, unsigned int i)
{
	uint32_t seen = atomic_load(&s->word), v;
	uint64_t n = 0;

	while (!atomic_load(&s->stop)) {
		v = atomic_load(&s->word);
		if (v == seen) {
			futex(&s->word, FUTEX_WAIT, v); /* EAGAIN if it changed since: look again */
			continue;
		}
		seen = v;
		n++;
	}
	s->woken[i] = n;
	_exit(0);
}

int
main(int argc, char **argv)
{
	int64_t n_waiters, interval_us, seconds, i;
	struct timespec gap, t0, t1;
	struct rusage self, kids;
	struct shared *s;
	uint64_t wakes = 0, woken = 0;
	double kids_s, self_s;
	pid_t pid;

	if (arg(argc, argv, 1, 10, 1, WAITERS_MAX, "waiters", &n_waiters) < 0 ||
	    arg(argc, argv, 2, 300, 10, 1000000, "interval (us)", &interval_us) < 0 ||
	    arg(argc, argv, 3, 3, 1, 60, "seconds", &seconds) < 0)
		return 2;
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		perror("wake_floor: mmap");
		return 1;
	}
	memset(s, 0, sizeof(*s));
	for (i = 0; i < n_waiters; i++) {
		pid = fork();
		if (pid < 0) {
			perror("wake_floor: fork");
			atomic_store(&s->stop, 1);
			futex(&s->word, FUTEX_WAKE, INT32_MAX);
			while (wait(NULL) > 0)
				;
			return 1;
		}
		if (pid == 0)
			waiter(s, (unsigned int)i);
	}
	gap.tv_sec = interval_us / 1000000;
	gap.tv_nsec = (interval_us % 1000000) * 1000;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nanosleep(&gap, NULL);
		atomic_fetch_add(&s->word, 1);
		futex(&s->word, FUTEX_WAKE, INT32_MAX);
		wakes++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (t1.tv_sec - t0.tv_sec < seconds);
	atomic_store(&s->stop, 1);
	atomic_fetch_add(&s->word, 1);
	futex(&s->word, FUTEX_WAKE, INT32_MAX);
	while (wait(NULL) > 0)
		;
	getrusage(RUSAGE_CHILDREN, &kids);
	getrusage(RUSAGE_SELF, &self);
	for (i = 0; i < n_waiters; i++)
		woken += s->woken[i];
	kids_s = cpu_s(&kids);
	self_s = cpu_s(&self);
	printf("wake_floor: %" PRId64 " waiters, a FUTEX_WAKE every %" PRId64 " us for %" PRId64
	       " s: %" PRIu64
	       " wakes, %" PRIu64 " waiter wake-ups (%.1f a wake)\n", n_waiters, interval_us,
	       seconds, wakes, woken, wakes ? (double)woken / (double)wakes : 0.0);
	printf("wake_floor: waiters %.3f CPU-s = %.2f us a waiter wake-up; waker %.3f CPU-s = "
	       "%.2f us a FUTEX_WAKE, %.2f us a waiter woken; together %.2f us a waiter "
	       "wake-up\n", kids_s, woken ? kids_s * 1e6 / (double)woken : 0.0, self_s,
	       wakes ? self_s * 1e6 / (double)wakes : 0.0,
	       woken ? self_s * 1e6 / (double)woken : 0.0,
	       woken ? (kids_s + self_s) * 1e6 / (double)woken : 0.0);
	munmap(s, sizeof(*s));
	return 0;
}
