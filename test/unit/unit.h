/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Minimal assertion helpers for mcfan's unit test programs.
 * Each test program is one suite: it runs its cases, prints one line per
 * failed assertion and exits non-zero if any assertion failed, which is
 * what meson's test harness reads.
 */

#ifndef MCFAN_TEST_UNIT_H
#define MCFAN_TEST_UNIT_H

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

extern int unit_failures;
extern int unit_checks;

#define UNIT_DEFINE_COUNTERS int unit_failures; int unit_checks

#define CHECK(cond, ...) do { \
	unit_checks++; \
	if (!(cond)) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

#define CHECK_EQ_INT(a, b) do { \
	int64_t unit_a_ = (int64_t)(a), unit_b_ = (int64_t)(b); \
	CHECK(unit_a_ == unit_b_, "%s = %" PRId64 ", expected %s = %" PRId64, #a, unit_a_, #b, \
	      unit_b_); \
} while (0)

#define CHECK_EQ_STR(a, b) do { \
	const char *unit_a_ = (a), *unit_b_ = (b); \
	CHECK(unit_a_ != NULL && unit_b_ != NULL && strcmp(unit_a_, unit_b_) == 0, \
		"%s = \"%s\", expected \"%s\"", #a, unit_a_ ? unit_a_ : "(null)", \
		unit_b_ ? unit_b_ : "(null)"); \
} while (0)

static inline int
unit_summary(const char *suite)
{
	printf("%s: %d checks, %d failed\n", suite, unit_checks, unit_failures);
	return unit_failures == 0 ? 0 : 1;
}

/* Runtime directory of this test's EAL, removed at exit (see unit_eal_init()). */
static char unit_runtime_dir[PATH_MAX];

static void
unit_remove_runtime_dir(void)
{
	if (unit_runtime_dir[0] != '\0')
		rmdir(unit_runtime_dir);
}

/*
 * Start EAL for a suite that needs it: no hugepages, no devices, one lcore, and a
 * --file-prefix of its own (mcfan-ut-SUITE-PID) so concurrent runs never share a runtime
 * directory. The (then empty) directory is removed by an exit handler registered before
 * rte_eal_init(), so it runs after the telemetry library has removed its socket.
 * Returns 0, or -1 with a message.
 */
static inline int
unit_eal_init(const char *suite)
{
	char name[64], prefix[64];
	char *argv[] = {
		name, "--no-huge", "-m", "64", "--no-shconf", "--no-pci", "-l", "0",
		"--file-prefix", prefix, "--log-level", "lib.eal:error",
	};

	snprintf(name, sizeof(name), "test_%s", suite);
	snprintf(prefix, sizeof(prefix), "mcfan-ut-%s-%d", suite, (int)getpid());
	atexit(unit_remove_runtime_dir);
	if (rte_eal_init((int)RTE_DIM(argv), argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	snprintf(unit_runtime_dir, sizeof(unit_runtime_dir), "%s", rte_eal_get_runtime_dir());
	return 0;
}

#endif /* MCFAN_TEST_UNIT_H */
