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
#include <stdio.h>
#include <string.h>

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
	long long unit_a_ = (long long)(a), unit_b_ = (long long)(b); \
	CHECK(unit_a_ == unit_b_, "%s = %lld, expected %s = %lld", #a, unit_a_, #b, unit_b_); \
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

#endif /* MCFAN_TEST_UNIT_H */
