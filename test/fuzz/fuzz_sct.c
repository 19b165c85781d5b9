/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Fuzz target: the Erlang `+sct` parser (lib/topo/mcfan_sct.c) on one map text.
 *
 * Texts with an id range wider than RANGE_MAX are skipped (see there).
 * Checks: success and the error kind agree; the message is NUL-terminated inside its
 * buffer; a parsed map formats (plain and compact) to text that parses back to an equal
 * map; everything is freed (LeakSanitizer in a sanitizer build).
 */

#include <errno.h>
#include <string.h>

#include "mcfan_sct.h"
#include "fuzz.h"

/* Longer texts than any real map; keeps the formatter's buffer bounded. */
#define TEXT_MAX 8192
#define FORMAT_MAX 65536
/*
 * Widest id range fuzzed. A range such as L0-65535 makes a 65,536-CPU map, 0.4 s an input
 * under ASan and libFuzzer's comparison tracing (against 20 us for a real map), and the
 * fuzzer finds such ranges at once; the unit tests (test_sct) cover the limits themselves.
 */
#define RANGE_MAX 1024

/* True if text holds a range "a-b" wider than RANGE_MAX ids (either direction). */
static int
wide_range(const char *text)
{
	unsigned long a = 0, b;
	const char *p;
	char *end;

	for (p = text; *p != '\0'; p++) {
		if (*p >= '0' && *p <= '9') {
			a = strtoul(p, &end, 10);
			p = end - 1;
			continue;
		}
		if (*p == '-' && p[1] >= '0' && p[1] <= '9') {
			b = strtoul(p + 1, &end, 10);
			if ((a > b ? a - b : b - a) > RANGE_MAX)
				return 1;
			a = b;
			p = end - 1;
		}
	}
	return 0;
}

static void
round_trip(const struct mcfan_sct_map *map, unsigned int flags)
{
	static char text[FORMAT_MAX];
	struct mcfan_sct_map *again = NULL;
	enum mcfan_sct_err_kind kind;
	char err[128];
	int n, ret;

	n = mcfan_sct_format(map, flags, text, sizeof(text));
	FUZZ_CHECK(n > 0, "format returned %d", n);
	if ((size_t)n >= sizeof(text))
		return;
	ret = mcfan_sct_parse(text, &again, &kind, err, sizeof(err));
	FUZZ_CHECK(ret == 0, "formatted map \"%s\" refused: %s", text, err);
	FUZZ_CHECK(mcfan_sct_equal(map, again) == 1, "\"%s\" parses to another map", text);
	mcfan_sct_free(again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcfan_sct_map *map = NULL;
	enum mcfan_sct_err_kind kind;
	char text[TEXT_MAX + 1];
	char err[64];
	int ret;

	if (size > TEXT_MAX)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (wide_range(text))
		return 0;
	memset(err, 'x', sizeof(err));
	ret = mcfan_sct_parse(text, &map, &kind, err, sizeof(err));
	if (ret == -ENOMEM)
		return 0;
	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "ret %d", ret);
	FUZZ_CHECK((ret == 0) == (kind == MCFAN_SCT_ERR_NONE), "ret %d, kind %d", ret, kind);
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL || ret == 0, "message not terminated");
	if (ret != 0) {
		FUZZ_CHECK(map == NULL, "a map on failure");
		return 0;
	}
	FUZZ_CHECK(map != NULL, "no map on success");
	round_trip(map, 0);
	round_trip(map, MCFAN_SCT_FORMAT_COMPACT);
	mcfan_sct_free(map);
	return 0;
}
