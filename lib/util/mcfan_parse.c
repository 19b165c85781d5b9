/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "mcfan_parse.h"

#define DECIMAL_BASE 10

int
mcfan_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0, digit;
	const char *p;

	if (text == NULL || *text == '\0')
		return -EINVAL;
	for (p = text; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	for (p = text; *p != '\0'; p++) {
		digit = (uint64_t)(*p - '0');
		if (v > (UINT64_MAX - digit) / DECIMAL_BASE)
			return -ERANGE;
		v = v * DECIMAL_BASE + digit;
		if (v > max)
			return -ERANGE;
	}
	if (v < min)
		return -ERANGE;
	*out = v;
	return 0;
}

void
mcfan_err_set(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}
