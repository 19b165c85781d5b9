/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_FUZZ_H
#define MCFAN_FUZZ_H

/*
 * What every fuzz target defines: libFuzzer's entry point. Built with -fsanitize=fuzzer
 * (meson -Dfuzz=true, clang) libFuzzer calls it; otherwise driver.c's main() calls it once
 * per corpus file, so the corpus runs as a plain regression test in every build.
 *
 * A target reports a finding by calling FUZZ_CHECK(), which aborts: libFuzzer then saves
 * the input as a crash artifact, and the driver's test fails.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with a message when cond is false (an invariant of the code under test broke). */
#define FUZZ_CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

#endif /* MCFAN_FUZZ_H */
