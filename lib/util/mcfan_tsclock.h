/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_TSCLOCK_H
#define MCFAN_TSCLOCK_H

/*
 * TSC to wall-clock time (ns since the epoch) for the pcap writer's block timestamps
 * (app/mcfan/control/pcap.c, docs/delivery.md "Timestamps"). One (TSC, CLOCK_REALTIME) pair
 * taken at start and extrapolated with the nominal TSC rate drifts from the system clock by
 * the rate's error and by NTP's slewing (0.6 ppm on the test host: 2 ms an hour against
 * tcpdump's times); the writer takes the pair again once a second, so the drift is bounded
 * by what one second makes. Control side only.
 */

#include <stdbool.h>
#include <stdint.h>

#define MCFAN_TSCLOCK_NS_PER_S 1000000000ull

/** A (TSC, CLOCK_REALTIME) pair taken together, and the TSC rate. */
struct mcfan_tsclock {
	uint64_t hz;  /**< TSC ticks a second (the app's measured tsc_hz, main.c), not 0 */
	uint64_t tsc; /**< TSC of the last sync */
	uint64_t ns;  /**< CLOCK_REALTIME at tsc, ns since the epoch */
};

/**
 * ns of d TSC ticks at hz, split so that nothing overflows for hz below 18 GHz.
 *
 * @param d
 *   TSC ticks.
 * @param hz
 *   TSC ticks a second, not 0.
 * @return
 *   d ticks in ns, rounded down.
 */
static inline uint64_t
mcfan_tsclock_span_ns(uint64_t d, uint64_t hz)
{
	return (d / hz) * MCFAN_TSCLOCK_NS_PER_S + (d % hz) * MCFAN_TSCLOCK_NS_PER_S / hz;
}

/**
 * Take a new pair: the TSC and CLOCK_REALTIME read together now.
 *
 * @param c
 *   The clock (its hz set).
 * @param tsc, ns
 *   The TSC and CLOCK_REALTIME (ns since the epoch) read together.
 */
static inline void
mcfan_tsclock_sync(struct mcfan_tsclock *c, uint64_t tsc, uint64_t ns)
{
	c->tsc = tsc;
	c->ns = ns;
}

/**
 * Is a new pair due: a second of TSC (or more) since the last?
 *
 * @param c
 *   The clock.
 * @param tsc
 *   The TSC now.
 * @return
 *   true once hz ticks passed since the last sync.
 */
static inline bool
mcfan_tsclock_due(const struct mcfan_tsclock *c, uint64_t tsc)
{
	return tsc - c->tsc >= c->hz;
}

/**
 * The wall-clock time of a TSC, before or after the last sync (a copy that waited in a ring
 * across a sync came before it).
 *
 * @param c
 *   The clock.
 * @param tsc
 *   A TSC, such as a frame's RX TSC.
 * @return
 *   ns since the epoch.
 */
static inline uint64_t
mcfan_tsclock_ns(const struct mcfan_tsclock *c, uint64_t tsc)
{
	uint64_t back;

	if (tsc >= c->tsc)
		return c->ns + mcfan_tsclock_span_ns(tsc - c->tsc, c->hz);
	back = mcfan_tsclock_span_ns(c->tsc - tsc, c->hz);
	return back < c->ns ? c->ns - back : 0;
}

#endif /* MCFAN_TSCLOCK_H */
