/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Fuzz target: the group-list parser (mcfan_group_parse_list(), the --groups value, and
 * mcfan_group_parse(), one item) on one text.
 *
 * Checks: a result is a count within the room or a negative errno the header names; the
 * message is NUL-terminated inside its buffer; every key is a multicast group of its
 * family with a zero pad; every key formats to text that parses back to the same key; no
 * two keys of a list are equal.
 */

#include <errno.h>
#include <string.h>

#include "mcfan_group.h"
#include "fuzz.h"

#define TEXT_MAX 4096
#define ROOM 64 /* small, so -E2BIG is reached too */

static struct mcfan_flow_key keys[ROOM];

static void
check_keys(const struct mcfan_flow_key *k, int n, const char *text)
{
	struct mcfan_flow_key back[2];
	char buf[MCFAN_GROUP_STR_MAX];
	int i, len, m;

	for (i = 0; i < n; i++) {
		FUZZ_CHECK(k[i].pad == 0, "\"%s\" key %d: pad %u", text, i, k[i].pad);
		if (k[i].family == MCFAN_FAMILY_IPV4)
			FUZZ_CHECK((k[i].addr[0] & 0xf0) == 0xe0, "\"%s\" key %d not a group", text,
				   i);
		else
			FUZZ_CHECK(k[i].family == MCFAN_FAMILY_IPV6 && k[i].addr[0] == 0xff,
				   "\"%s\" key %d: family %u", text, i, k[i].family);
		len = mcfan_group_format(&k[i], buf, sizeof(buf));
		FUZZ_CHECK(len > 0 && len < (int)sizeof(buf), "\"%s\" key %d: format %d", text, i,
			   len);
		m = mcfan_group_parse(buf, back, RTE_DIM(back), NULL, 0);
		FUZZ_CHECK(m == 1 && mcfan_flow_key_equal(&back[0], &k[i]),
			   "\"%s\" key %d formats as \"%s\", which parses to %d other keys", text,
			   i, buf, m);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[TEXT_MAX + 1];
	char err[96];
	int n, i, j;

	if (size > TEXT_MAX)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	memset(err, 'x', sizeof(err));
	n = mcfan_group_parse_list(text, keys, ROOM, err, sizeof(err));
	FUZZ_CHECK(n == -EINVAL || n == -EEXIST || n == -E2BIG || (n >= 1 && n <= ROOM),
		   "list \"%s\": %d", text, n);
	if (n < 0)
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL, "list message not terminated");
	if (n > 0) {
		check_keys(keys, n, text);
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				FUZZ_CHECK(!mcfan_flow_key_equal(&keys[i], &keys[j]),
					   "\"%s\": keys %d and %d equal", text, i, j);
	}

	memset(err, 'x', sizeof(err));
	n = mcfan_group_parse(text, keys, ROOM, err, sizeof(err));
	FUZZ_CHECK(n < 0 || (n >= 1 && n <= ROOM), "item \"%s\": %d", text, n);
	if (n < 0)
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL, "item message not terminated");
	else
		check_keys(keys, n, text);
	return 0;
}
