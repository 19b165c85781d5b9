/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_IDLE_H
#define MCFAN_CONTROL_IDLE_H

/* Idle policies, the control side: eventfds and Rx interrupts set up before launch, and the
 * read side (control/idle.c; lib/idle/mcfan_idle.h has the policies). */

#include <stdint.h>

#include "mcfan.h"


/**
 * Give every data lcore its start policy (--idle-rx for lcores with the RX
 * role, --idle-worker for the others; without the option, the placement default:
 * mcfan_idle_default_policy() of whether another data lcore's EAL cpuset meets its own,
 * and then MCFAN_IDLE_SHARED_MAX_SLEEP_US unless --idle-max-sleep-us is given), its wake
 * amortisation (an RX lcore that shares a CPU with a worker defers its wake-ups), an eventfd for lcores with the worker
 * role, the ring capacities for the sleep bound, and for lcores whose policy
 * is interrupt an epoll instance with their ports' Rx queue interrupts. Call
 * after the ports are started, before the lcores are launched.
 *
 * @return
 *   0; -ENOTSUP if a port of an lcore that starts with interrupt has no Rx
 *   queue interrupts (a message naming the port and the PMD is printed);
 *   another negative errno on a system error.
 */
int mcfan_idle_setup(struct mcfan_app *app);

/**
 * Write the eventfd of every data lcore that has one (the `wake` workers, the `interrupt`
 * lcores), so that an lcore asleep in its bounded sleep looks at the phase now instead of at
 * the end of its sleep (up to 50 ms for a shared-CPU worker). For quit: after the phase is
 * set to MCFAN_PHASE_STOP_RX the RX lcores stop polling without waking their workers, so the
 * join, and the quit drain after it, waited for the workers' timers while the ports' kernel
 * rings filled (1,643-1,757 kernel_drops a port at 50,000 frames/s). Main lcore; a lcore not
 * asleep sees one spurious wake-up at its next sleep. Nothing to return: a failed write
 * leaves that lcore to its timer.
 */
void mcfan_idle_wake_all(struct mcfan_app *app);

/** Release what mcfan_idle_setup() made; after the data lcores have returned. Idempotent. */
void mcfan_idle_free(struct mcfan_app *app);


/** Size of mcfan_idle_view.why, bytes. */
#define MCFAN_IDLE_WHY_MAX 80

/** The idle state of one lcore, for the report, telemetry and the console. */
struct mcfan_idle_view {
	unsigned int lcore_id;
	uint32_t role;            /**< enum mcfan_role bits. */
	uint32_t policy;          /**< Policy word now. */
	char policy_text[MCFAN_IDLE_POLICY_TEXT_MAX + 1];
	uint64_t ring_bound_ns;   /**< 0 = no recent traffic: no bound from the rings. */
	uint64_t sleep_cap_ns;    /**< Longest sleep now (mcfan_idle_sleep_cap_ns()). */
	uint64_t rx_max_pps;      /**< Highest recent RX rate over its ports (RX role). */
	uint64_t wk_max_pps;      /**< Highest recent rate into its rings (worker role). */
	uint64_t max_sleep_ns;    /**< This lcore's longest backoff/wake sleep, ns. */
	uint32_t origin;          /**< enum mcfan_idle_origin: why it runs this policy. */
	/** The origin in words with the placement: "default-shared (shares CPU 1 with 10 data
	 * lcores)", "option (no other data lcore on its CPU)" ... */
	char why[MCFAN_IDLE_WHY_MAX];
	/** The lcore that runs its worker step (mcfan_placement_hosts()), -1 = its own thread.
	 * A hosted lcore's policy_text is "hosted": it never waits by itself. */
	int hosted_by;
	unsigned int n_hosted;    /**< Worker lcores whose step this lcore's thread runs. */
	/** The thread's nice value now (getpriority(2); also what renice set), the one it found
	 * at start once it ended; 0 before launch. A hosted lcore shows its host's thread's (its
	 * sched too), and max_sleep_ns 0. */
	int nice;
	/** The thread's scheduling class now (sched(7); also what chrt set), the one it found
	 * at start once it ended: "normal", "batch" (a worker-only lcore on a CPU of an RX
	 * lcore, by placement), "idle", "fifo", "rr"; "-" before launch. */
	char sched[8];
};

/**
 * Read the idle state of every data lcore, in lcore id order.
 *
 * @return
 *   Number of views written (at most max).
 */
int mcfan_idle_read(const struct mcfan_app *app, struct mcfan_idle_view *out, unsigned int max);

#endif /* MCFAN_CONTROL_IDLE_H */
