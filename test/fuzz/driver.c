/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Regression driver for the fuzz targets when they are not built with libFuzzer: run
 * LLVMFuzzerTestOneInput() once on every file named on the command line or found in a
 * directory named there (not recursive). Each input is copied to a heap buffer of exactly
 * its size, as libFuzzer does, so a sanitizer build catches a read past the end.
 * Exit 0 when every input ran, 1 on an unreadable file or an empty corpus; a finding aborts.
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int
run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t n;
	FILE *f;

	f = fopen(path, "rb");
	if (f == NULL || fstat(fileno(f), &st) != 0) {
		fprintf(stderr, "fuzz driver: %s: %s\n", path, strerror(errno));
		if (f != NULL)
			fclose(f);
		return -1;
	}
	buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	if (buf == NULL) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	if (n != (size_t)st.st_size) {
		fprintf(stderr, "fuzz driver: %s: short read\n", path);
		free(buf);
		return -1;
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int
run_path(const char *path, unsigned int *count)
{
	char child[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "fuzz driver: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s/%s", path, de->d_name) >=
		    sizeof(child)) {
			ret = -1;
			continue;
		}
		if (stat(child, &st) == 0 && S_ISREG(st.st_mode)) {
			(*count)++;
			if (run_file(child) != 0)
				ret = -1;
		}
	}
	closedir(d);
	return ret;
}

int
main(int argc, char **argv)
{
	unsigned int count = 0;
	int i, ret = 0;

	for (i = 1; i < argc; i++)
		if (run_path(argv[i], &count) != 0)
			ret = 1;
	printf("%s: %u inputs, %s\n", argv[0], count, ret == 0 && count > 0 ? "ok" : "FAILED");
	return ret == 0 && count > 0 ? 0 : 1;
}
