/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_CONSOLE_SHOW_H
#define MCFAN_APP_CONSOLE_SHOW_H

/* Formatting shared by the console's show families (show_lcores.c, show_stats.c). */

#include <inttypes.h>
#include <stdio.h>

#include "mcfan.h"

/**
 * RX state for tables: "stopped" after the console's stop, else "running".
 *
 * @return
 *   A constant string, "stopped" or "running".
 */
static inline const char *
mcfan_console_rx_state(const struct mcfan_app *app)
{
	return mcfan_live_rx_paused(&app->live) ? "stopped" : "running";
}

/**
 * Nanoseconds as microseconds with one decimal and the unit ("12.3us"); "-" for none (0 or
 * UINT64_MAX), without the unit: a dash is no number of microseconds.
 *
 * @return
 *   buf.
 */
static inline const char *
mcfan_console_us_text(uint64_t ns, char *buf, size_t len)
{
	if (ns == 0 || ns == UINT64_MAX)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "us", ns / 1000, ns % 1000 / 100);
	return buf;
}

#endif /* MCFAN_APP_CONSOLE_SHOW_H */
