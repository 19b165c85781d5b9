/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */
/*
 * Idle policies, the data lcore's side (datapath/idle.h, docs/idle.md): rate windows, the
 * sleep of an lcore that found no work, and the wake protocol.
 *
 * The wake protocol, and why no wake-up is lost. A worker W that goes to sleep
 * (1) sets its sleeping flag and increments app->idle_sleepers, (2) issues a
 * sequentially consistent fence, (3) checks its rings once more and sleeps
 * only if they are empty. An RX lcore R, after a burst that enqueued, (a)
 * issues a sequentially consistent fence, (b) loads app->idle_sleepers and,
 * only if it is not 0, (c) wakes every sleeping worker whose ring from R is
 * not empty (exchange of its flag to 0, then one eventfd write). The two
 * fences order the stores before the loads on both sides (Dekker): either R's
 * load sees W's increment and R wakes W, or W's ring check sees R's frames and
 * W does not sleep. The worker's sleep is bounded anyway (--idle-max-sleep-us
 * and the ring bound), so even a bug here would cost latency, not frames.
 *
 * Wake-ups, amortised (a wake-up costs 18-40 us on a virtual machine, and one on the RX
 * lcore's own CPU hands that CPU to the worker): R does not run (a)-(c) after every burst
 * but after the frames it enqueued since its last round reach a quarter of a worker ring,
 * or, when R finds no work (for an R alone on its CPU: once the oldest of them waited
 * MCFAN_IDLE_WAKE_BUDGET_US, or before it sleeps). Delaying (a)-(c) delays a wake-up; it
 * loses none: the fence and load still follow the enqueues.
 */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "mcfan.h"
#include "log.h"
#include "datapath/idle.h"

#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000) /* NS_PER_S is rte_cycles.h's */
#define MS_PER_S 1000
/* Timer slack of a sleeping data lcore (prctl PR_SET_TIMERSLACK), ns: the kernel's default
 * of 50 us would stretch every short sleep to at least that. */
#define TIMER_SLACK_NS 1000
#define INTR_EVENTS_MAX 8 /* events taken per rte_epoll_wait() */
/* Longest wait of a hosted lcore's own thread between two looks at its end flag, ns: its
 * host wakes it at the end; this bounds a lost wake-up. */
#define HOSTED_WAIT_NS (1000 * NS_PER_MS)

static void sleep_ns(uint64_t ns);
static void efd_drain(int efd);

/* The rate windows of an lcore from now on. */
static void
windows_start(struct mcfan_app *app, struct mcfan_idle *id, uint64_t now)
{
	id->win_start = now;
	id->halve_tsc = now;
	id->win_cycles = RTE_MAX(app->tsc_hz / MS_PER_S * MCFAN_IDLE_RATE_WINDOW_MS, (uint64_t)1);
}

void
mcfan_idle_hosted_start(struct mcfan_app *app, struct mcfan_lcore *lc, uint64_t now)
{
	windows_start(app, &lc->idle, now);
	mcfan_idle_busy(&lc->idle);
}

void
mcfan_idle_hosted_wait(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	struct pollfd pfd = {.fd = lc->idle.efd, .events = POLLIN};
	const struct timespec ts = {
		.tv_sec = (time_t)(HOSTED_WAIT_NS / NS_PER_S),
		.tv_nsec = (long)(HOSTED_WAIT_NS % NS_PER_S),
	};

	RTE_SET_USED(app);
	__atomic_store_n(&lc->idle.sched_class, sched_getscheduler(0) + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&lc->idle.nice_seen, getpriority(PRIO_PROCESS, 0) + 100, __ATOMIC_RELAXED);
	while (mcfan_atomic_u32_load(&lc->hosted_done, memory_order_acquire) == 0) {
		/* the eventfd: the host's end, or the quit's wake-up (mcfan_idle_wake_all()) */
		if (lc->idle.efd < 0)
			sleep_ns(HOSTED_WAIT_NS);
		else if (ppoll(&pfd, 1, &ts, NULL) > 0)
			efd_drain(lc->idle.efd);
	}
}

void
mcfan_idle_hosted_end(struct mcfan_lcore *lc)
{
	uint64_t one = 1;
	ssize_t r;

	mcfan_atomic_u32_store(&lc->hosted_done, 1, memory_order_release);
	if (lc->idle.efd >= 0) {
		/* EAGAIN (the counter is full): a wake-up is pending anyway */
		r = write(lc->idle.efd, &one, sizeof(one));
		RTE_SET_USED(r);
	}
}

void
mcfan_idle_lcore_start(struct mcfan_app *app, struct mcfan_lcore *lc, uint64_t now)
{
	struct mcfan_idle *id = &lc->idle;

	/* before the loop: the one system call of the set-up */
	if (prctl(PR_SET_TIMERSLACK, TIMER_SLACK_NS, 0, 0, 0) != 0)
		MCFAN_LOG(WARNING, "lcore %u: cannot lower the timer slack: short sleeps will last "
			  "longer\n", lc->lcore_id);
	if (id->sched_batch) {
		const struct sched_param sp = { .sched_priority = 0 };
		int e = pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);

		if (e != 0)
			MCFAN_LOG(WARNING, "lcore %u: cannot switch to SCHED_BATCH (%s): woken by "
				  "the RX lcore on its CPU it may preempt it\n", lc->lcore_id,
				  strerror(e));
	}
	if (id->nice_apply && setpriority(PRIO_PROCESS, 0, id->nice) != 0)
		MCFAN_LOG(WARNING, "lcore %u: cannot set its nice value to %d (%s): processes on "
			  "its CPU may keep it waiting (--rx-nice; CAP_SYS_NICE)\n", lc->lcore_id,
			  id->nice, strerror(errno));
	__atomic_store_n(&id->sched_class, sched_getscheduler(0) + 1, __ATOMIC_RELAXED);
	/* PRIO_PROCESS, 0: this thread (a Linux task has its own nice value) */
	__atomic_store_n(&id->nice_seen, getpriority(PRIO_PROCESS, 0) + 100, __ATOMIC_RELAXED);
	windows_start(app, id, now);
	mcfan_idle_busy(id);
}

/* New max of one input at the end of a window; returns its bound in ns (UINT64_MAX: none). */
static uint64_t
rate_close(struct mcfan_idle_rate *r, uint64_t elapsed, uint64_t hz, unsigned int halvings)
{
	uint64_t rate = r->frames * hz / elapsed;

	r->max_pps = halvings >= 64 ? 0 : r->max_pps >> halvings;
	if (rate > r->max_pps)
		r->max_pps = rate;
	r->frames = 0;
	return r->max_pps == 0 ? UINT64_MAX : r->capacity * NS_PER_S / r->max_pps;
}

void
mcfan_idle_window(struct mcfan_app *app, struct mcfan_lcore *lc, uint64_t now)
{
	struct mcfan_idle *id = &lc->idle;
	uint64_t hz = app->tsc_hz, half = hz / MS_PER_S * MCFAN_IDLE_RATE_HALF_LIFE_MS;
	uint64_t elapsed = now - id->win_start, bound = UINT64_MAX, rx_max = 0;
	unsigned int i, halvings = 0;

	if (now - id->halve_tsc >= half) {
		halvings = (unsigned int)RTE_MIN((now - id->halve_tsc) / half, (uint64_t)64);
		id->halve_tsc = now;
	}
	if (lc->role & MCFAN_ROLE_RX) {
		for (i = 0; i < lc->n_ports; i++) {
			bound = RTE_MIN(bound, rate_close(&id->rx[i], elapsed, hz, halvings));
			rx_max = RTE_MAX(rx_max, id->rx[i].max_pps);
		}
		__atomic_store_n(&id->rx_max_pps, rx_max, __ATOMIC_RELAXED);
	}
	if (lc->role & MCFAN_ROLE_WORKER) {
		bound = RTE_MIN(bound, rate_close(&id->wk, elapsed, hz, halvings));
		__atomic_store_n(&id->wk_max_pps, id->wk.max_pps, __ATOMIC_RELAXED);
	}
	id->ring_bound_ns_priv = bound == UINT64_MAX ? 0 : RTE_MAX(bound, (uint64_t)1);
	__atomic_store_n(&id->ring_bound_ns, id->ring_bound_ns_priv, __ATOMIC_RELAXED);
	id->win_start = now;
}

static void
sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / NS_PER_S),
		.tv_nsec = (long)(ns % NS_PER_S),
	};

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

/* Announce a sleep (wake protocol step 1-2); returns false, undone, if a ring has frames. */
static bool
announce(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	mcfan_atomic_u32_store(&lc->idle.sleeping, 1, memory_order_seq_cst);
	mcfan_atomic_u32_add(&app->idle_sleepers, 1, memory_order_seq_cst);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (mcfan_lcore_rings_empty(app, lc))
		return true;
	mcfan_atomic_u32_store(&lc->idle.sleeping, 0, memory_order_relaxed);
	mcfan_atomic_u32_sub(&app->idle_sleepers, 1, memory_order_release);
	return false;
}

static void
unannounce(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	mcfan_atomic_u32_store(&lc->idle.sleeping, 0, memory_order_relaxed);
	mcfan_atomic_u32_sub(&app->idle_sleepers, 1, memory_order_release);
}

/* Empty the eventfd after a wake-up (non-blocking). */
static void
efd_drain(int efd)
{
	uint64_t v;

	if (read(efd, &v, sizeof(v)) < 0)
		return; /* EAGAIN: a concurrent reader or nothing left; both harmless */
}

/* wake: sleep on the eventfd; returns true if woken by an RX lcore. */
static bool
wake_sleep(struct mcfan_lcore *lc, uint64_t ns)
{
	struct pollfd pfd = {.fd = lc->idle.efd, .events = POLLIN};
	struct timespec ts = {
		.tv_sec = (time_t)(ns / NS_PER_S),
		.tv_nsec = (long)(ns % NS_PER_S),
	};

	if (ppoll(&pfd, 1, &ts, NULL) > 0 && (pfd.revents & POLLIN)) {
		efd_drain(lc->idle.efd);
		return true;
	}
	return false;
}

/* interrupt: wait for a port's Rx interrupt (or the eventfd); returns true if woken. */
static bool
intr_sleep(struct mcfan_lcore *lc, uint64_t ns)
{
	struct rte_epoll_event ev[INTR_EVENTS_MAX];
	unsigned int i;
	int n, k;

	for (i = 0; i < lc->n_ports; i++)
		/* -ENOTSUP: the fd needs no arming */
		rte_eth_dev_rx_intr_enable(lc->ports[i], lc->queues[i]);
	n = rte_epoll_wait(lc->idle.epfd, ev, INTR_EVENTS_MAX, (int)(ns / NS_PER_MS));
	for (i = 0; i < lc->n_ports; i++)
		rte_eth_dev_rx_intr_disable(lc->ports[i], lc->queues[i]);
	for (k = 0; k < n; k++)
		if (lc->idle.efd >= 0 && ev[k].fd == lc->idle.efd)
			efd_drain(lc->idle.efd);
	return n > 0;
}

void
mcfan_idle_wait(struct mcfan_app *app, struct mcfan_lcore *lc, uint32_t policy, bool rx_online,
		bool wk_online, bool ms_on)
{
	struct mcfan_idle *id = &lc->idle;
	enum mcfan_idle_kind kind = MCFAN_IDLE_KIND_OF(policy);
	uint32_t thr = mcfan_idle_threshold_polls(MCFAN_IDLE_THR_OF(policy));
	uint64_t cap, ns;
	bool woken = false;
	unsigned int h;

	/* wake amortisation: wake-ups deferred while the RX lcore had work (datapath/idle.h) */
	if (id->kick_frames != 0 && (id->kick_defer || kind != MCFAN_IDLE_POLL ||
				     rte_rdtsc() - id->kick_first_tsc >= id->kick_budget))
		mcfan_idle_kick(app, lc);
	if (kind == MCFAN_IDLE_POLL)
		return;
	id->empty++;
	if (id->empty <= thr)
		return; /* busy-wait: the empty polls are charged as poll_empty */
	if (id->empty <= 2 * thr) {
		rte_pause();
		return;
	}
	cap = mcfan_idle_sleep_cap_ns(policy, id->ring_bound_ns_priv, kind == MCFAN_IDLE_BACKOFF ?
				      id->max_sleep_backoff_ns : id->max_sleep_ns);
	if (id->engine_sleep_cap_ns != 0) /* an engine's deadline (deferred reader wakes) */
		cap = RTE_MIN(cap, id->engine_sleep_cap_ns);
	for (h = 0; h < lc->n_hosted; h++) { /* and those of the engines of the lcores it hosts */
		uint64_t e = app->lcores[lc->hosted[h]].idle.engine_sleep_cap_ns;

		if (e != 0)
			cap = RTE_MIN(cap, e);
	}
	if (cap < MCFAN_IDLE_SLEEP_MIN_NS) {
		rte_pause();
		return;
	}
	if (kind == MCFAN_IDLE_INTERRUPT && (!rx_online || !id->intr_ok || cap < NS_PER_MS))
		kind = MCFAN_IDLE_BACKOFF; /* paused by `stop`, or a bound under 1 ms */
	if (kind == MCFAN_IDLE_WAKE && id->efd < 0)
		kind = MCFAN_IDLE_BACKOFF;
	if (kind == MCFAN_IDLE_BACKOFF) {
		ns = RTE_MAX(id->step_ns, RTE_MAX(cap / RTE_MAX(id->step_first_div, 1u),
						  (uint64_t)MCFAN_IDLE_STEP_MIN_NS));
		ns = RTE_MIN(ns, cap);
		id->step_ns = RTE_MIN(ns * 2, cap);
	} else {
		ns = cap;
	}
	if (kind != MCFAN_IDLE_BACKOFF && (lc->role & MCFAN_ROLE_WORKER) && !announce(app, lc))
		return; /* frames arrived: no sleep */
	/* sleep overrun window (lib/overrun): not while `stop` holds RX, the drops then are the
	 * stop's, not the sleep's */
	if ((lc->role & MCFAN_ROLE_RX) && mcfan_live_rx_paused(&app->live))
		mcfan_overrun_close(&lc->ovr);
	else
		mcfan_overrun_sleep(&lc->ovr);
	/* the time up to the wake-up is sleep, the lcore's and its hosted lcores' (the wake-up
	 * and their next pass charge it so): a snapshot taken meanwhile guesses the interval
	 * in progress as sleep too, not as the poll_empty it would take back at the wake-up */
	if (ms_on) {
		uint64_t now = rte_rdtsc();

		mcfan_msacc_add(&lc->ms, MCFAN_MS_SLEEP, now);
		for (h = 0; h < lc->n_hosted; h++) {
			struct mcfan_lcore *w = &app->lcores[lc->hosted[h]];

			/* its table runs (its last pass switched it on): not one paused */
			if (w->run_ms_on)
				mcfan_msacc_add(&w->ms, MCFAN_MS_SLEEP, now);
		}
	}
	if (rx_online)
		rte_rcu_qsbr_thread_offline(app->qsbr, lc->rx_index);
	if (wk_online) /* worker RCU (app->wqsbr): its worker steps hold nothing here */
		rte_rcu_qsbr_thread_offline(app->wqsbr, lc->lcore_id);
	switch (kind) {
	case MCFAN_IDLE_WAKE:
		woken = wake_sleep(lc, ns);
		break;
	case MCFAN_IDLE_INTERRUPT:
		woken = intr_sleep(lc, ns);
		break;
	default:
		sleep_ns(ns);
		break;
	}
	if (rx_online)
		rte_rcu_qsbr_thread_online(app->qsbr, lc->rx_index);
	if (wk_online)
		rte_rcu_qsbr_thread_online(app->wqsbr, lc->lcore_id);
	if (kind != MCFAN_IDLE_BACKOFF && (lc->role & MCFAN_ROLE_WORKER))
		unannounce(app, lc);
	if (ms_on) {
		mcfan_msacc_note_sleep(&lc->ms);
		if (woken)
			mcfan_msacc_note_wakeup(&lc->ms);
		mcfan_msacc_add(&lc->ms, MCFAN_MS_SLEEP, rte_rdtsc());
	}
}

void
mcfan_idle_kick_slow(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	const struct mcfan_rx_ctx *rx = &lc->rx;
	struct mcfan_lcore *wl;
	uint64_t one = 1;
	unsigned int w;

	/* pairs with the release of the sleepers' increment: their flags are visible */
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (w = 0; w < rx->n_workers; w++) {
		wl = &app->lcores[app->worker_lcore_ids[w]];
		if (mcfan_atomic_u32_load(&wl->idle.sleeping, memory_order_relaxed) == 0 ||
		    rte_ring_empty(rx->rings[w]))
			continue;
		if (mcfan_atomic_u32_exchange(&wl->idle.sleeping, 0, memory_order_acq_rel) != 0) {
			/* EAGAIN (the counter is full) means a wake-up is pending anyway */
			ssize_t r = write(wl->idle.efd, &one, sizeof(one));

			RTE_SET_USED(r);
		}
	}
}
