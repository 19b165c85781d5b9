/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_PARSE_H
#define MCFAN_PARSE_H

/**
 * @file
 * Number parsing shared by options, config files, console and telemetry:
 * decimal for people, so "08" is eight, never octal, and nothing but digits.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

/**
 * Parse a decimal number made only of the digits 0-9.
 *
 * @param text
 *   NUL-terminated text; no sign, no spaces, no base prefix. May be NULL
 *   (-EINVAL).
 * @param min
 *   Smallest value allowed.
 * @param max
 *   Largest value allowed (at most UINT64_MAX).
 * @param out
 *   Receives the value on success; untouched on error. Must not be NULL.
 * @return
 *   0; -EINVAL if text is NULL, empty or has a character other than a digit;
 *   -ERANGE if the value is below min or above max (including overflow).
 */
int mcfan_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/**
 * Write a formatted error message into a caller's buffer (snprintf), the way
 * every mcfan parser reports what was wrong.
 *
 * @param err
 *   Destination buffer, or NULL (nothing is written).
 * @param len
 *   Size of err in bytes; 0 writes nothing. The text is truncated to fit and
 *   always NUL-terminated.
 * @param fmt
 *   printf-style format.
 */
__rte_format_printf(3, 4)
void mcfan_err_set(char *err, size_t len, const char *fmt, ...);

#endif /* MCFAN_PARSE_H */
