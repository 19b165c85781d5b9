/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Fuzz target: the INI configuration reader (config_file.c) with the real option table and
 * its value checks (params.c), on one whole file, the way `mcfan -- --config FILE` reads it:
 * the input is written to a memfd and mcfan_params_parse() gets "--config
 * /proc/self/fd/N". An input of odd length also gives "--burst 16 --groups 239.255.0.1" on
 * the command line, so that the file's values of those keys are only validated (the command
 * line wins, a bad file value is still refused).
 *
 * Inputs naming report-json are skipped: its check creates and removes a temporary file
 * next to the path it names (outfile.c), which a fuzzer must not do anywhere on the host;
 * test_options.py and test_hardening.py cover that key.
 *
 * Checks: the result is 0 or -EINVAL; a refusal is exactly one line on stderr, starting
 * "mcfan: ", naming the file (or --ring-size/--burst with the file), and a line number it
 * names is a line of the file that holds the key or text the message quotes; an accepted file prints nothing and leaves a configuration
 * within the documented ranges (burst 1..512, ring size a power of two and at least the
 * burst, at most MCFAN_MAX_GROUPS groups), and with the command-line keys the command
 * line's values; nothing leaks (the --cpu-topology copy is freed).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_common.h>

#include "mcfan.h"
#include "fuzz.h"

#define FILE_MAX (64 * 1024) /* 64 lines of 1 KiB and some comments */
#define CLI_BURST 16

static int mfd = -1;
static char path[64];
static struct mcfan_config cfg;

/* Lines as fgets() reads them: a last line without '\n' counts, an empty tail does not. */
static unsigned int
count_lines(const uint8_t *data, size_t size)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < size; i++)
		if (data[i] == '\n')
			n++;
	return n + (size > 0 && data[size - 1] != '\n' ? 1 : 0);
}

/* Does line no (1-based) of the file hold the text [t, t + len)? */
static bool
line_holds(const uint8_t *data, size_t size, unsigned int no, const char *t, size_t len)
{
	const uint8_t *p = data, *end = data + size, *nl;

	for (; no > 1 && p < end; no--) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl != NULL ? nl + 1 : end;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	return memmem(p, (size_t)((nl != NULL ? nl : end) - p), t, len) != NULL;
}

/*
 * A refusal that names a line: "mcfan: config file 'PATH' line N: ..."; N must be a line of
 * the file, and the first quoted text after it (the key, header or text the message is
 * about) must stand on that line.
 */
static void
check_line_named(const char *err, const uint8_t *data, size_t size)
{
	const char *p, *q, *r;
	unsigned int line;
	char *end;

	p = strstr(err, path);
	if (p == NULL || strncmp(p + strlen(path), "' line ", 7) != 0)
		return;
	line = (unsigned int)strtoul(p + strlen(path) + 7, &end, 10);
	FUZZ_CHECK(line >= 1 && line <= count_lines(data, size),
		   "names line %u of a file of %u: %s", line, count_lines(data, size), err);
	FUZZ_CHECK(strncmp(end, ": ", 2) == 0, "no ': ' after the line number: %s", err);
	q = strchr(end, '\'');
	r = q != NULL ? strchr(q + 1, '\'') : NULL;
	if (r != NULL && r > q + 1)
		FUZZ_CHECK(line_holds(data, size, line, q + 1, (size_t)(r - q - 1)),
			   "'%.*s' is not on line %u: %s", (int)(r - q - 1), q + 1, line, err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[8], *err = NULL;
	size_t err_len = 0;
	FILE *saved = stderr, *mem;
	bool cli = (size & 1) != 0;
	int argc = 0, ret;

	if (size > FILE_MAX || memmem(data, size, "report-json", strlen("report-json")) != NULL)
		return 0;
	if (mfd < 0) {
		mfd = memfd_create("mcfan-fuzz-config", 0);
		FUZZ_CHECK(mfd >= 0, "memfd_create: %s", strerror(errno));
		snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	}
	FUZZ_CHECK(ftruncate(mfd, 0) == 0 && pwrite(mfd, data, size, 0) == (ssize_t)size,
		   "memfd write: %s", strerror(errno));

	argv[argc++] = (char *)(uintptr_t)"mcfan";
	argv[argc++] = (char *)(uintptr_t)"--config";
	argv[argc++] = path;
	if (cli) {
		argv[argc++] = (char *)(uintptr_t)"--burst";
		argv[argc++] = (char *)(uintptr_t)RTE_STR(CLI_BURST);
		argv[argc++] = (char *)(uintptr_t)"--groups";
		argv[argc++] = (char *)(uintptr_t)"239.255.0.1";
	}
	argv[argc] = NULL;

	mem = open_memstream(&err, &err_len);
	FUZZ_CHECK(mem != NULL, "open_memstream");
	stderr = mem;
	ret = mcfan_params_parse(argc, argv, &cfg);
	fflush(mem);
	stderr = saved;
	fclose(mem);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "mcfan_params_parse: %d", ret);
	if (ret == 0) {
		FUZZ_CHECK(err_len == 0, "accepted, but printed: %s", err);
		FUZZ_CHECK(cfg.burst >= 1 && cfg.burst <= MCFAN_MAX_BURST, "burst %u", cfg.burst);
		FUZZ_CHECK(cfg.ring_size >= cfg.burst && rte_is_power_of_2(cfg.ring_size),
			   "ring size %u, burst %u", cfg.ring_size, cfg.burst);
		FUZZ_CHECK(cfg.n_groups <= MCFAN_MAX_GROUPS, "%u groups", cfg.n_groups);
		if (cli)
			FUZZ_CHECK(cfg.burst == CLI_BURST && cfg.n_groups == 1 &&
				   cfg.groups[0].addr[0] == 239 && cfg.groups[0].addr[3] == 1,
				   "the command line did not win: burst %u, %u groups", cfg.burst,
				   cfg.n_groups);
	} else {
		FUZZ_CHECK(err_len > 0 && err[err_len - 1] == '\n' &&
			   memchr(err, '\n', err_len) == err + err_len - 1,
			   "refused with %zu bytes, not one line: %s", err_len, err);
		FUZZ_CHECK(strncmp(err, "mcfan: ", 7) == 0 && strstr(err, path) != NULL,
			   "refusal does not name the file: %s", err);
		check_line_named(err, data, size);
	}
	free(cfg.cpu_topology);
	cfg.cpu_topology = NULL;
	free(err);
	return 0;
}
