/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_TXSTALL_H
#define MCFAN_TXSTALL_H

/*
 * A tx output that sends nothing: the decision of the control side's one-time warning
 * (app/mcfan/control/txstall.c, docs/delivery.md "A tx output that sends nothing"). Fed the
 * output's tx_sent and tx_full totals on every control tick; never called on a data lcore.
 */

#include <stdbool.h>
#include <stdint.h>

/** What the check keeps of one tx output (one worker lcore, one engine instance). */
struct mcfan_txstall {
	uint64_t sent;   /**< tx_sent last seen. */
	uint64_t full;   /**< tx_full last seen, or when the span began. */
	uint64_t since;  /**< Time (any unit, e.g. TSC) the span began; 0: none. */
	bool seen;       /**< sent and full hold a reading. */
	bool warned;     /**< Warned once: never again. */
};

/**
 * Should the output be warned about now? True once: a span begins at the first reading that
 * finds copies refused (tx_full grew) and none sent since the last reading; it ends when a
 * copy is sent. Warned when the span has lasted window and copies were refused during it
 * too (a burst that stopped is no stall).
 *
 * @param now
 *   The time now, > 0, in the unit of window.
 *
 * @return
 *   true once per output (warn now), false otherwise and ever after.
 */
static inline bool
mcfan_txstall_check(struct mcfan_txstall *s, uint64_t sent, uint64_t full, uint64_t now,
		    uint64_t window)
{
	if (s->warned)
		return false;
	if (!s->seen || sent != s->sent) {
		s->seen = true;
		s->sent = sent;
		s->full = full;
		s->since = 0;
		return false;
	}
	if (full == s->full)
		return false;
	if (s->since == 0) {
		s->since = now;
		s->full = full;
		return false;
	}
	if (now - s->since < window)
		return false;
	s->warned = true;
	return true;
}

#endif /* MCFAN_TXSTALL_H */
