/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_IDLE_H
#define MCFAN_IDLE_H

/*
 * Idle policies (docs/idle.md): what a data lcore does when a loop iteration
 * finds no work.
 *
 *  - poll: spin (every empty poll is busy-wait);
 *  - backoff[:THRESHOLD]: after THRESHOLD consecutive empty iterations, as
 *    many again with rte_pause() between polls, then sleep in doubling steps
 *    from 1/4 of the lcore's sleep cap up to the cap;
 *  - wake[:THRESHOLD] (worker-only lcores): after THRESHOLD, announce the
 *    sleep, check the rings once more, and sleep on the lcore's eventfd; an RX
 *    lcore that enqueues to a sleeping worker writes that eventfd;
 *  - interrupt[:THRESHOLD] (lcores with the RX role): after THRESHOLD, arm the
 *    ports' Rx queue interrupts and wait in rte_epoll_wait().
 *
 * The sleep cap (mcfan_idle_sleep_cap_ns()) bounds every sleep: never longer
 * than the time half of the smallest input ring (an RX descriptor ring, or a
 * worker ring) takes to fill at the highest rate seen recently on it, so that
 * a burst that starts during a sleep still fits in the other half.
 *
 * Writer/reader protocol of struct mcfan_idle (one per lcore, in struct
 * mcfan_lcore):
 *  - policy (struct mcfan_atomic_u32, lib/util/mcfan_atomic.h): written by the
 *    main lcore before launch and by control actions (app control/, relaxed
 *    store: a policy is one word, nothing else is published with it), loaded
 *    by the data lcore with one relaxed load per loop iteration;
 *  - sleeping (struct mcfan_atomic_u32, 0 or 1): the wake protocol's flag, in
 *    its own cache line: set by the worker when it goes to sleep (seq_cst
 *    store), cleared by it (relaxed) or by the RX lcore that wakes it
 *    (acq_rel exchange; the RX lcore first checks it with a relaxed load);
 *  - ring_bound_ns, rx_max_pps, wk_max_pps: written by the data lcore (relaxed
 *    stores, once per rate window), read by the control side;
 *  - efd, epfd, intr_ok, efd_ev, rate capacities: set by the main lcore before
 *    launch (mcfan_idle_setup()), read only afterwards;
 *  - everything else is private to the data lcore.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_config.h>
#include <rte_epoll.h>

#include "mcfan_atomic.h"

/** What an lcore does when it finds no work. */
enum mcfan_idle_kind {
	MCFAN_IDLE_POLL = 0,   /**< Busy polling. */
	MCFAN_IDLE_BACKOFF,    /**< Spin, pause, then sleep in growing steps. */
	MCFAN_IDLE_WAKE,       /**< Sleep on an eventfd that RX lcores write (workers). */
	MCFAN_IDLE_INTERRUPT,  /**< Wait for the ports' Rx queue interrupts (RX lcores). */
	MCFAN_IDLE_KIND_MAX    /**< Number of kinds; not a kind. */
};

/**
 * Empty iterations before an lcore starts to pause and sleep, named after
 * the Erlang VM's busy-wait thresholds (+sbwt). Numbers: docs/idle.md.
 */
enum mcfan_idle_threshold {
	MCFAN_IDLE_THR_NONE = 0,
	MCFAN_IDLE_THR_VERY_SHORT,
	MCFAN_IDLE_THR_SHORT,
	MCFAN_IDLE_THR_MEDIUM,
	MCFAN_IDLE_THR_LONG,
	MCFAN_IDLE_THR_VERY_LONG,
	MCFAN_IDLE_THR_MAX     /**< Number of thresholds; not a threshold. */
};

/** A policy word: kind in bits 0-7, threshold in bits 8-15. */
#define MCFAN_IDLE_POLICY(kind, thr) ((uint32_t)(kind) | ((uint32_t)(thr) << 8))
#define MCFAN_IDLE_KIND_OF(p) ((enum mcfan_idle_kind)((p) & 0xffu))
#define MCFAN_IDLE_THR_OF(p) ((enum mcfan_idle_threshold)(((p) >> 8) & 0xffu))

/** --idle-max-sleep-us: default (like OVS's pmd-sleep-max) and range, microseconds. */
#define MCFAN_IDLE_MAX_SLEEP_US_DEFAULT 100
#define MCFAN_IDLE_MAX_SLEEP_US_MIN 1
#define MCFAN_IDLE_MAX_SLEEP_US_MAX 1000000
/**
 * First backoff sleep: 1/MCFAN_IDLE_STEP_FIRST_DIV of the lcore's sleep cap, at least
 * MCFAN_IDLE_STEP_MIN_NS; each further empty iteration doubles it, up to the cap. A sleep
 * costs a system call and a timer (some 2-30 us of CPU, most on virtual machines), so the
 * steps start near the cap: 3 sleeps from the first to the cap (1/4, 1/2, 1).
 */
#define MCFAN_IDLE_STEP_FIRST_DIV 4
#define MCFAN_IDLE_STEP_MIN_NS 1000
/** A sleep cap below this is not worth a system call: the lcore pauses instead, ns. */
#define MCFAN_IDLE_SLEEP_MIN_NS 1000
/** interrupt: longest wait in rte_epoll_wait (the device wakes the lcore earlier), ms. */
#define MCFAN_IDLE_INTR_WAIT_MAX_MS 10
/** A busy lcore checks its rate window every (mask + 1) loop iterations (an idle one every
 * iteration), so the fast path reads the TSC for it only that often. */
#define MCFAN_IDLE_TSC_EVERY_MASK 63u
/** Rate windows: frames are counted per window of this length, ms. */
#define MCFAN_IDLE_RATE_WINDOW_MS 1
/** The highest rate seen decays by half each period of this length, ms. */
#define MCFAN_IDLE_RATE_HALF_LIFE_MS 1000
/**
 * Placement defaults (docs/idle.md "Defaults"): a data lcore that shares a CPU with another
 * data lcore must not spin against it, so without --idle-rx / --idle-worker it starts with
 * MCFAN_IDLE_SHARED_RX (lcores with the RX role) or MCFAN_IDLE_SHARED_WORKER (worker-only
 * lcores); an lcore alone on its CPU(s) polls. Thresholds none: spinning on a shared CPU
 * only delays the lcore that has work.
 */
#define MCFAN_IDLE_SHARED_RX MCFAN_IDLE_POLICY(MCFAN_IDLE_BACKOFF, MCFAN_IDLE_THR_NONE)
#define MCFAN_IDLE_SHARED_WORKER MCFAN_IDLE_POLICY(MCFAN_IDLE_WAKE, MCFAN_IDLE_THR_NONE)
/**
 * Longest sleep of an lcore that got its policy from placement, when --idle-max-sleep-us is
 * not given, us. A sleep costs 18-40 us of CPU on a virtual machine, so sleeps must be long
 * to be cheap: an RX lcore that sleeps 1.25-5 ms (its backoff steps) drains a batch per
 * wake-up and wakes each worker once per batch; the ring bound keeps it lossless
 * (docs/performance.md "Idle policies", tuned runs).
 */
#define MCFAN_IDLE_SHARED_MAX_SLEEP_US 5000
/**
 * The same for a worker-only lcore, us: its RX lcores wake it when they enqueue for it (the
 * wake protocol, docs/idle.md), so its own timer only backs that up; at 5000 us ten workers
 * woke 2,000 times a second by timer in the seed at 3,300/s per group beside the RX lcore's
 * wake-ups (docs/performance.md "Worker timers"). The ring bound still caps it.
 */
#define MCFAN_IDLE_SHARED_WORKER_MAX_SLEEP_US 50000
/**
 * First backoff sleep of such an lcore: the whole cap (1/1), not 1/MCFAN_IDLE_STEP_FIRST_DIV:
 * the cap is lossless by the ring bound, and a shorter first sleep only adds wake-ups
 * (each of which also wakes the workers it fed).
 */
#define MCFAN_IDLE_SHARED_STEP_FIRST_DIV 1
/**
 * Wake amortisation (datapath/idle.c): an RX lcore wakes the sleeping workers it fed once
 * this many frames are pending since its last wake-up round, ring slots / DIV ...
 */
#define MCFAN_IDLE_WAKE_FILL_DIV 4
/** ... or, on a CPU of its own, once the oldest of them waited this long, us (half the
 * 200 us p99 budget of RX-to-worker latency, docs/idle.md); else when it finds no work. */
#define MCFAN_IDLE_WAKE_BUDGET_US 100

/** Where an lcore's idle policy came from (shown by show idle, /mcfan/idle, report). */
enum mcfan_idle_origin {
	MCFAN_IDLE_FROM_OPTION = 0, /**< --idle-rx / --idle-worker (or the config file). */
	MCFAN_IDLE_FROM_ALONE,      /**< Default: no other data lcore shares its CPUs. */
	MCFAN_IDLE_FROM_SHARED,     /**< Default: another data lcore shares a CPU with it. */
	MCFAN_IDLE_FROM_SET,        /**< Console or telemetry `set idle` since. */
	/** Default: alone among mcfan's data lcores, but reader processes (engine readers)
	 * share the host's CPUs with it, so it does not spin against them. */
	MCFAN_IDLE_FROM_READERS,
	MCFAN_IDLE_FROM_MAX         /**< Number of origins; not an origin. */
};

/** Longest policy text ("interrupt:very_short"), without the NUL. */
#define MCFAN_IDLE_POLICY_TEXT_MAX 24

/** Rate of one input (a port of an RX lcore, or the rings of a worker). Lcore private. */
struct mcfan_idle_rate {
	uint64_t frames;   /**< Frames in the current window. */
	uint64_t max_pps;  /**< Highest window rate seen, halved every half-life, frames/s. */
	uint64_t capacity; /**< Frames the input holds while the lcore sleeps: half its ring. */
};

/** Nice values (setpriority(2)): the range --rx-nice takes. */
#define MCFAN_NICE_MIN (-20)
#define MCFAN_NICE_MAX 19
/** The RX role's nice value by default when reader processes share its CPUs (engine
 *  readers): 16,500 datagrams/s a group to 100 readers on 2 CPUs lost 2-25 % in af_packet's
 *  ring at nice 0 (the RX lcore waited for a CPU half its time), none at -10
 *  (docs/performance.md "Readers: the RX lcore's priority"). */
#define MCFAN_RX_NICE_READERS (-10)

/** Idle state of one data lcore. See the protocol at the top. */
struct mcfan_idle {
	struct mcfan_atomic_u32 policy; /**< MCFAN_IDLE_POLICY() word (see the protocol). */
	uint32_t empty;                /**< Consecutive empty iterations (private). */
	uint32_t iter;                 /**< Loop iterations, for MCFAN_IDLE_TSC_EVERY_MASK (private). */
	uint64_t step_ns;              /**< Next backoff sleep (private). */
	uint64_t win_start;            /**< TSC at which the rate window began (private). */
	uint64_t halve_tsc;            /**< TSC of the last half-life step (private). */
	uint64_t win_cycles;           /**< Window length, TSC cycles (private). */
	uint64_t ring_bound_ns_priv;   /**< Current ring bound, 0 = none (private copy). */
	uint64_t ring_bound_ns;        /**< Published ring bound, ns; 0 = no recent traffic. */
	uint64_t rx_max_pps;           /**< Published: highest recent rate over its ports. */
	uint64_t wk_max_pps;           /**< Published: highest recent rate into its rings. */
	int efd;                       /**< eventfd of a worker lcore, -1 = none. */
	int epfd;                      /**< epoll instance with the Rx interrupts, -1 = none. */
	bool intr_ok;                  /**< Every port of the lcore has its Rx interrupt in epfd. */
	struct rte_epoll_event efd_ev; /**< The eventfd's registration in epfd. */
	struct mcfan_idle_rate rx[RTE_MAX_ETHPORTS]; /**< Per port, indexed like lcore ports[]. */
	struct mcfan_idle_rate wk;     /**< The worker's rings together. */
	uint64_t max_sleep_ns;         /**< Longest backoff/wake sleep of this lcore, ns (set-up). */
	/** Longest backoff sleep, ns (set-up): max_sleep_ns, but the RX lcores' default for a
	 * worker-only lcore whose longer default relies on being woken (wake policy only). */
	uint64_t max_sleep_backoff_ns;
	uint32_t step_first_div;       /**< First backoff sleep: cap / this (set-up; >= 1). */
	struct mcfan_atomic_u32 origin; /**< enum mcfan_idle_origin (set-up, then set idle). */
	int share_cpu;                 /**< First CPU shared with another data lcore, -1 = none. */
	/** Set-up: the lcore thread switches itself to SCHED_BATCH at start (a worker-only lcore
	 * on a CPU of an RX lcore: woken by it, it must not preempt it, docs/idle.md). */
	bool sched_batch;
	/** Set-up: the lcore thread sets its nice value to nice at start (setpriority(2));
	 * the RX role with reader processes on its CPUs, or --rx-nice (docs/idle.md). */
	bool nice_apply;
	int nice;
	/** The nice value the thread found itself at after its start, + 100 (0 = not started
	 * yet), for the read side after the thread ended too. */
	int nice_seen;
	/** The scheduling class the thread found itself in after its start (sched_getscheduler()
	 * + 1; 0 = not started yet), for the read side after the thread ended too. */
	int sched_class;
	unsigned int share_n;          /**< Other data lcores on its CPUs (set-up). */
	/* wake amortisation, RX side (set-up, then private to the RX lcore) */
	bool kick_defer;               /**< Shares a CPU with a worker: wake only when idle. */
	uint32_t kick_fill;            /**< Pending frames that trigger a wake-up round. */
	uint64_t kick_budget;          /**< Age of the oldest pending frame that does, cycles. */
	uint32_t kick_frames;          /**< Frames enqueued since the last round (private). */
	uint64_t kick_first_tsc;       /**< TSC of the first of them (private). */
	/** A worker engine's bound on the lcore's next sleep, ns, 0 = none (private: set by
	 * the engine every pass; the readers engine's deferred reader wakes, lib/reader). */
	uint64_t engine_sleep_cap_ns;
	/** Wake protocol: 1 while the lcore sleeps and wants an eventfd write. */
	struct mcfan_atomic_u32 sleeping __rte_cache_aligned;
} __rte_cache_aligned;

/* ---- policies as text (no EAL needed: params.c uses them before rte_eal_init) ---- */

/**
 * Parse a policy: poll, backoff[:THRESHOLD], wake[:THRESHOLD],
 * interrupt[:THRESHOLD]; THRESHOLD one of none, very_short, short, medium,
 * long, very_long. Without a threshold: none for poll, short for backoff,
 * very_short for wake and interrupt.
 *
 * @param text
 *   The policy text, at most MCFAN_IDLE_POLICY_TEXT_MAX characters; may be
 *   NULL (-EINVAL).
 * @param policy
 *   Receives the policy word (MCFAN_IDLE_POLICY()); untouched on error. Must
 *   not be NULL.
 * @param err
 *   Receives a one-line message on failure (mcfan_err_set()); may be NULL.
 * @param len
 *   Size of err in bytes.
 * @return
 *   0, or -EINVAL for an unknown kind, a threshold after poll or an unknown
 *   threshold.
 */
int mcfan_idle_parse(const char *text, uint32_t *policy, char *err, size_t len);

/**
 * Write a policy as text: "poll", or KIND:THRESHOLD ("backoff:short"); the
 * kind alone if the threshold is out of range, "unknown" for a kind out of
 * range.
 *
 * @param policy
 *   A policy word.
 * @param buf
 *   Destination; MCFAN_IDLE_POLICY_TEXT_MAX + 1 bytes always suffice, less
 *   truncates. Must not be NULL if len > 0.
 * @param len
 *   Size of buf in bytes.
 * @return
 *   buf.
 */
const char *mcfan_idle_format(uint32_t policy, char *buf, size_t len);

/**
 * Name of a kind.
 *
 * @param kind
 *   An enum mcfan_idle_kind value.
 * @return
 *   "poll", "backoff", "wake", "interrupt", or "unknown" out of range.
 */
const char *mcfan_idle_kind_name(enum mcfan_idle_kind kind);

/**
 * Empty iterations of a threshold before the lcore pauses (as many again
 * before it sleeps).
 *
 * @param thr
 *   An enum mcfan_idle_threshold value.
 * @return
 *   0, 16, 128, 1024, 8192 or 65536 iterations (none .. very_long); 0 out of
 *   range.
 */
uint32_t mcfan_idle_threshold_polls(enum mcfan_idle_threshold thr);

/**
 * May an lcore with these role bits (enum mcfan_role) use the policy? wake is
 * for worker-only lcores (nothing wakes an lcore that polls a port),
 * interrupt for lcores with the RX role; poll and backoff suit every role.
 *
 * @param policy
 *   A policy word.
 * @param role
 *   enum mcfan_role bits of the lcore.
 * @param err
 *   Receives a one-line message on failure; may be NULL.
 * @param len
 *   Size of err in bytes.
 * @return
 *   0, or -EINVAL with a message in err.
 */
int mcfan_idle_role_ok(uint32_t policy, uint32_t role, char *err, size_t len);

/**
 * The longest sleep an lcore may take now: 0 for poll; for backoff and wake
 * the smaller of max_sleep_ns and the ring bound; for interrupt the smaller of
 * MCFAN_IDLE_INTR_WAIT_MAX_MS and the ring bound, rounded down to whole
 * milliseconds (a bound under 1 ms makes it sleep like backoff instead).
 *
 * @param policy
 *   A policy word; a kind out of range counts as poll.
 * @param ring_bound_ns
 *   Time half the smallest input ring takes to fill at the highest recent
 *   rate, ns; 0 = no recent traffic (no bound).
 * @param max_sleep_ns
 *   The configured cap (--idle-max-sleep-us), ns.
 * @return
 *   The cap in ns; 0 for poll.
 */
uint64_t mcfan_idle_sleep_cap_ns(uint32_t policy, uint64_t ring_bound_ns, uint64_t max_sleep_ns);

/**
 * The policy an lcore starts with when no option names one (docs/idle.md "Defaults").
 *
 * @param role
 *   enum mcfan_role bits of the lcore.
 * @param shared
 *   true if another data lcore may run on one of its CPUs.
 * @return
 *   poll when not shared; else MCFAN_IDLE_SHARED_RX for lcores with the RX role and
 *   MCFAN_IDLE_SHARED_WORKER for worker-only lcores.
 */
uint32_t mcfan_idle_default_policy(uint32_t role, bool shared);

/**
 * Name of an origin.
 *
 * @param origin
 *   An enum mcfan_idle_origin value.
 * @return
 *   "option", "default-alone", "default-shared", "set", or "unknown" out of range.
 */
const char *mcfan_idle_origin_name(enum mcfan_idle_origin origin);

#endif /* MCFAN_IDLE_H */
