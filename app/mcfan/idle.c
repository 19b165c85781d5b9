/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Idle policies (see idle.h and docs/idle.md): parsing, set-up of eventfds and
 * Rx interrupts, the data lcore's waiting, the sleep bound and the read side.
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
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "mcfan.h"
#include "log.h"

#define NS_PER_MS UINT64_C(1000000) /* NS_PER_S is rte_cycles.h's */
#define NS_PER_US UINT64_C(1000)
#define MS_PER_S 1000
/* Timer slack of a sleeping data lcore (prctl PR_SET_TIMERSLACK), ns: the kernel's default
 * of 50 us would stretch every short sleep to at least that. */
#define TIMER_SLACK_NS 1000
#define INTR_EVENTS_MAX 8 /* events taken per rte_epoll_wait() */

/* mcfan_idle_setup() has given every lcore its descriptors (-1 or open): main lcore only. */
static bool fds_valid;

static const char *const kind_names[MCFAN_IDLE_KIND_MAX] = {
	[MCFAN_IDLE_POLL] = "poll",
	[MCFAN_IDLE_BACKOFF] = "backoff",
	[MCFAN_IDLE_WAKE] = "wake",
	[MCFAN_IDLE_INTERRUPT] = "interrupt",
};

static const char *const thr_names[MCFAN_IDLE_THR_MAX] = {
	[MCFAN_IDLE_THR_NONE] = "none",
	[MCFAN_IDLE_THR_VERY_SHORT] = "very_short",
	[MCFAN_IDLE_THR_SHORT] = "short",
	[MCFAN_IDLE_THR_MEDIUM] = "medium",
	[MCFAN_IDLE_THR_LONG] = "long",
	[MCFAN_IDLE_THR_VERY_LONG] = "very_long",
};

/* Empty iterations per threshold: roughly x8 a step; an empty af_packet or ring poll takes
 * 0.1-0.5 us, so short spins some 10-60 us before it pauses (docs/idle.md). */
static const uint32_t thr_polls[MCFAN_IDLE_THR_MAX] = {
	[MCFAN_IDLE_THR_NONE] = 0,
	[MCFAN_IDLE_THR_VERY_SHORT] = 16,
	[MCFAN_IDLE_THR_SHORT] = 128,
	[MCFAN_IDLE_THR_MEDIUM] = 1024,
	[MCFAN_IDLE_THR_LONG] = 8192,
	[MCFAN_IDLE_THR_VERY_LONG] = 65536,
};

/* Threshold of a policy given without one. */
static const enum mcfan_idle_threshold default_thr[MCFAN_IDLE_KIND_MAX] = {
	[MCFAN_IDLE_POLL] = MCFAN_IDLE_THR_NONE,
	[MCFAN_IDLE_BACKOFF] = MCFAN_IDLE_THR_SHORT,
	[MCFAN_IDLE_WAKE] = MCFAN_IDLE_THR_VERY_SHORT,
	[MCFAN_IDLE_INTERRUPT] = MCFAN_IDLE_THR_VERY_SHORT,
};

const char *
mcfan_idle_kind_name(enum mcfan_idle_kind kind)
{
	return (unsigned int)kind < MCFAN_IDLE_KIND_MAX ? kind_names[kind] : "unknown";
}

uint32_t
mcfan_idle_threshold_polls(enum mcfan_idle_threshold thr)
{
	return (unsigned int)thr < MCFAN_IDLE_THR_MAX ? thr_polls[thr] : 0;
}

int
mcfan_idle_parse(const char *text, uint32_t *policy, char *err, size_t len)
{
	char kind_text[MCFAN_IDLE_POLICY_TEXT_MAX + 1];
	const char *colon;
	size_t n;
	unsigned int k, t;

	if (text == NULL || text[0] == '\0' || strlen(text) > MCFAN_IDLE_POLICY_TEXT_MAX)
		goto bad;
	colon = strchr(text, ':');
	n = colon != NULL ? (size_t)(colon - text) : strlen(text);
	snprintf(kind_text, sizeof(kind_text), "%.*s", (int)n, text);
	for (k = 0; k < MCFAN_IDLE_KIND_MAX; k++)
		if (strcmp(kind_text, kind_names[k]) == 0)
			break;
	if (k == MCFAN_IDLE_KIND_MAX)
		goto bad;
	if (colon == NULL) {
		*policy = MCFAN_IDLE_POLICY(k, default_thr[k]);
		return 0;
	}
	if (k == MCFAN_IDLE_POLL) {
		snprintf(err, len, "idle policy '%s': poll takes no threshold", text);
		return -EINVAL;
	}
	for (t = 0; t < MCFAN_IDLE_THR_MAX; t++)
		if (strcmp(colon + 1, thr_names[t]) == 0)
			break;
	if (t == MCFAN_IDLE_THR_MAX) {
		snprintf(err, len, "idle policy '%s': threshold '%s' is not one of none, very_short, "
			 "short, medium, long, very_long", text, colon + 1);
		return -EINVAL;
	}
	*policy = MCFAN_IDLE_POLICY(k, t);
	return 0;
bad:
	snprintf(err, len, "idle policy '%.*s' is not one of poll, backoff[:THRESHOLD], "
		 "wake[:THRESHOLD], interrupt[:THRESHOLD]", MCFAN_IDLE_POLICY_TEXT_MAX * 2,
		 text != NULL ? text : "");
	return -EINVAL;
}

const char *
mcfan_idle_format(uint32_t policy, char *buf, size_t len)
{
	enum mcfan_idle_kind k = MCFAN_IDLE_KIND_OF(policy);
	enum mcfan_idle_threshold t = MCFAN_IDLE_THR_OF(policy);

	if (k == MCFAN_IDLE_POLL || (unsigned int)t >= MCFAN_IDLE_THR_MAX)
		snprintf(buf, len, "%s", mcfan_idle_kind_name(k));
	else
		snprintf(buf, len, "%s:%s", mcfan_idle_kind_name(k), thr_names[t]);
	return buf;
}

int
mcfan_idle_role_ok(uint32_t policy, uint32_t role, char *err, size_t len)
{
	enum mcfan_idle_kind k = MCFAN_IDLE_KIND_OF(policy);

	if (k == MCFAN_IDLE_WAKE && (role & MCFAN_ROLE_RX)) {
		snprintf(err, len, "wake is for worker-only lcores: an lcore that polls a port is "
			 "woken by no one (use backoff or interrupt)");
		return -EINVAL;
	}
	if (k == MCFAN_IDLE_INTERRUPT && !(role & MCFAN_ROLE_RX)) {
		snprintf(err, len, "interrupt is for lcores that poll a port (use wake or backoff "
			 "for workers)");
		return -EINVAL;
	}
	return 0;
}

uint64_t
mcfan_idle_sleep_cap_ns(uint32_t policy, uint64_t ring_bound_ns, uint64_t max_sleep_ns)
{
	uint64_t bound = ring_bound_ns == 0 ? UINT64_MAX : ring_bound_ns;
	uint64_t intr;

	switch (MCFAN_IDLE_KIND_OF(policy)) {
	case MCFAN_IDLE_BACKOFF:
	case MCFAN_IDLE_WAKE:
		return RTE_MIN(bound, max_sleep_ns);
	case MCFAN_IDLE_INTERRUPT:
		intr = RTE_MIN(bound, MCFAN_IDLE_INTR_WAIT_MAX_MS * NS_PER_MS);
		if (intr >= NS_PER_MS)
			return intr - intr % NS_PER_MS;
		return RTE_MIN(bound, max_sleep_ns);
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------------------------------
 * Set-up.
 */

/* Remove the first n ports of an lcore from its epoll instance and close it. */
static void
intr_teardown(struct mcfan_lcore *lc, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rte_eth_dev_rx_intr_ctl_q(lc->ports[i], 0, lc->idle.epfd, RTE_INTR_EVENT_DEL, NULL);
	if (lc->idle.epfd >= 0)
		close(lc->idle.epfd);
	lc->idle.epfd = -1;
	lc->idle.intr_ok = false;
}

/* An epoll instance with the Rx interrupt of every port of the lcore (and its eventfd);
 * -ENOTSUP, with a message if refuse, when a port has none. */
static int
intr_setup(struct mcfan_app *app, struct mcfan_lcore *lc, bool refuse)
{
	struct mcfan_idle *id = &lc->idle;
	unsigned int i;
	uint16_t port;
	int ret;

	id->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (id->epfd < 0) {
		ret = -errno;
		MCFAN_LOG(ERR, "lcore %u: epoll_create1: %s\n", lc->lcore_id, strerror(errno));
		return ret;
	}
	for (i = 0; i < lc->n_ports; i++) {
		port = lc->ports[i];
		ret = -ENOTSUP;
		if (app->ports[port].rx_intr)
			ret = rte_eth_dev_rx_intr_ctl_q(port, 0, id->epfd, RTE_INTR_EVENT_ADD, NULL);
		if (ret != 0) {
			if (refuse)
				fprintf(stderr, "mcfan: --idle-rx interrupt: port %u (%s) has no Rx queue "
					"interrupts: its PMD %s does not support them (%s); use "
					"--idle-rx poll or backoff\n", port, app->ports[port].name,
					app->ports[port].driver, rte_strerror(ret < 0 ? -ret : EINVAL));
			intr_teardown(lc, i);
			return -ENOTSUP;
		}
	}
	if (lc->role & MCFAN_ROLE_WORKER) {
		/* a run-to-completion lcore also sleeps for the frames other RX lcores send it */
		memset(&id->efd_ev, 0, sizeof(id->efd_ev));
		id->efd_ev.epdata.event = EPOLLIN;
		ret = rte_epoll_ctl(id->epfd, EPOLL_CTL_ADD, id->efd, &id->efd_ev);
		if (ret != 0) {
			MCFAN_LOG(ERR, "lcore %u: cannot add its eventfd to epoll: %d\n",
				  lc->lcore_id, ret);
			intr_teardown(lc, lc->n_ports);
			return -EIO;
		}
	}
	id->intr_ok = true;
	return 0;
}

int
mcfan_idle_setup(struct mcfan_app *app)
{
	const struct mcfan_config *cfg = &app->cfg;
	struct mcfan_lcore *lc;
	unsigned int id, i;
	uint64_t cap;
	int ret;

	for (id = 0; id < RTE_MAX_LCORE; id++) {
		lc = &app->lcores[id];
		lc->idle.efd = -1;
		lc->idle.epfd = -1;
	}
	fds_valid = true;
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		lc = &app->lcores[id];
		if (!(lc->role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)))
			continue;
		lc->idle.policy = (lc->role & MCFAN_ROLE_RX) ? cfg->idle_rx : cfg->idle_worker;
		for (i = 0; i < lc->n_ports; i++) {
			cap = app->ports[lc->ports[i]].nb_rxd / 2;
			lc->idle.rx[i].capacity = RTE_MAX(cap, (uint64_t)1);
		}
		lc->idle.wk.capacity = RTE_MAX(cfg->ring_size / 2, 1u);
		if (lc->role & MCFAN_ROLE_WORKER) {
			lc->idle.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
			if (lc->idle.efd < 0) {
				ret = -errno;
				MCFAN_LOG(ERR, "lcore %u: eventfd: %s\n", id, strerror(errno));
				return ret;
			}
		}
		/* every lcore with the RX role gets its interrupts if the ports were set up for
		 * them, so that `set idle` can switch to interrupt later */
		if ((lc->role & MCFAN_ROLE_RX) && lc->n_ports > 0) {
			bool want = MCFAN_IDLE_KIND_OF(lc->idle.policy) == MCFAN_IDLE_INTERRUPT;

			ret = intr_setup(app, lc, want);
			if (ret < 0 && want)
				return ret;
		}
	}
	return 0;
}

void
mcfan_idle_free(struct mcfan_app *app)
{
	struct mcfan_lcore *lc;
	unsigned int id;

	if (!fds_valid)
		return;
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		lc = &app->lcores[id];
		if (!(lc->role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)))
			continue;
		if (lc->idle.epfd >= 0)
			intr_teardown(lc, lc->idle.intr_ok ? lc->n_ports : 0);
		if (lc->idle.efd >= 0)
			close(lc->idle.efd);
		lc->idle.efd = -1;
	}
}

/* ------------------------------------------------------------------------------------------
 * Data lcore.
 */

void
mcfan_idle_lcore_start(struct mcfan_app *app, struct mcfan_lcore *lc, uint64_t now)
{
	struct mcfan_idle *id = &lc->idle;

	/* before the loop: the one system call of the set-up */
	if (prctl(PR_SET_TIMERSLACK, TIMER_SLACK_NS, 0, 0, 0) != 0)
		MCFAN_LOG(WARNING, "lcore %u: cannot lower the timer slack: short sleeps will last "
			  "longer\n", lc->lcore_id);
	id->win_start = now;
	id->halve_tsc = now;
	id->win_cycles = RTE_MAX(app->tsc_hz / MS_PER_S * MCFAN_IDLE_RATE_WINDOW_MS, (uint64_t)1);
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
	__atomic_store_n(&lc->idle.sleeping, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&app->idle_sleepers, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (mcfan_lcore_rings_empty(app, lc))
		return true;
	__atomic_store_n(&lc->idle.sleeping, 0, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&app->idle_sleepers, 1, __ATOMIC_RELEASE);
	return false;
}

static void
unannounce(struct mcfan_app *app, struct mcfan_lcore *lc)
{
	__atomic_store_n(&lc->idle.sleeping, 0, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&app->idle_sleepers, 1, __ATOMIC_RELEASE);
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
		rte_eth_dev_rx_intr_enable(lc->ports[i], 0); /* -ENOTSUP: the fd needs no arming */
	n = rte_epoll_wait(lc->idle.epfd, ev, INTR_EVENTS_MAX, (int)(ns / NS_PER_MS));
	for (i = 0; i < lc->n_ports; i++)
		rte_eth_dev_rx_intr_disable(lc->ports[i], 0);
	for (k = 0; k < n; k++)
		if (lc->idle.efd >= 0 && ev[k].fd == lc->idle.efd)
			efd_drain(lc->idle.efd);
	return n > 0;
}

void
mcfan_idle_wait(struct mcfan_app *app, struct mcfan_lcore *lc, uint32_t policy, bool rx_online,
		bool ms_on)
{
	struct mcfan_idle *id = &lc->idle;
	enum mcfan_idle_kind kind = MCFAN_IDLE_KIND_OF(policy);
	uint32_t thr = mcfan_idle_threshold_polls(MCFAN_IDLE_THR_OF(policy));
	uint64_t cap, ns;
	bool woken = false;

	if (kind == MCFAN_IDLE_POLL)
		return;
	id->empty++;
	if (id->empty <= thr)
		return; /* busy-wait: the empty polls are charged as poll_empty */
	if (id->empty <= 2 * thr) {
		rte_pause();
		return;
	}
	cap = mcfan_idle_sleep_cap_ns(policy, id->ring_bound_ns_priv,
				      (uint64_t)app->cfg.idle_max_sleep_us * NS_PER_US);
	if (cap < MCFAN_IDLE_SLEEP_MIN_NS) {
		rte_pause();
		return;
	}
	if (kind == MCFAN_IDLE_INTERRUPT && (!rx_online || !id->intr_ok || cap < NS_PER_MS))
		kind = MCFAN_IDLE_BACKOFF; /* paused by `stop`, or a bound under 1 ms */
	if (kind == MCFAN_IDLE_WAKE && id->efd < 0)
		kind = MCFAN_IDLE_BACKOFF;
	if (kind == MCFAN_IDLE_BACKOFF) {
		ns = RTE_MAX(id->step_ns, RTE_MAX(cap / MCFAN_IDLE_STEP_FIRST_DIV,
						  (uint64_t)MCFAN_IDLE_STEP_MIN_NS));
		ns = RTE_MIN(ns, cap);
		id->step_ns = RTE_MIN(ns * 2, cap);
	} else {
		ns = cap;
	}
	if (kind != MCFAN_IDLE_BACKOFF && (lc->role & MCFAN_ROLE_WORKER) && !announce(app, lc))
		return; /* frames arrived: no sleep */
	if (rx_online)
		rte_rcu_qsbr_thread_offline(app->qsbr, lc->rx_index);
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
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (w = 0; w < rx->n_workers; w++) {
		wl = &app->lcores[app->worker_lcore_ids[w]];
		if (!__atomic_load_n(&wl->idle.sleeping, __ATOMIC_RELAXED) ||
		    rte_ring_empty(rx->rings[w]))
			continue;
		if (__atomic_exchange_n(&wl->idle.sleeping, 0, __ATOMIC_ACQ_REL)) {
			/* EAGAIN (the counter is full) means a wake-up is pending anyway */
			ssize_t r = write(wl->idle.efd, &one, sizeof(one));

			RTE_SET_USED(r);
		}
	}
}

/* ------------------------------------------------------------------------------------------
 * Read side.
 */

int
mcfan_idle_read(const struct mcfan_app *app, struct mcfan_idle_view *out, unsigned int max)
{
	uint64_t max_sleep_ns = (uint64_t)app->cfg.idle_max_sleep_us * NS_PER_US;
	const struct mcfan_lcore *lc;
	unsigned int id, n = 0;

	for (id = 0; id < RTE_MAX_LCORE && n < max; id++) {
		lc = &app->lcores[id];
		if (!(lc->role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].lcore_id = id;
		out[n].role = lc->role;
		out[n].policy = __atomic_load_n(&lc->idle.policy, __ATOMIC_RELAXED);
		mcfan_idle_format(out[n].policy, out[n].policy_text, sizeof(out[n].policy_text));
		out[n].ring_bound_ns = __atomic_load_n(&lc->idle.ring_bound_ns, __ATOMIC_RELAXED);
		out[n].sleep_cap_ns = mcfan_idle_sleep_cap_ns(out[n].policy, out[n].ring_bound_ns,
							      max_sleep_ns);
		out[n].rx_max_pps = __atomic_load_n(&lc->idle.rx_max_pps, __ATOMIC_RELAXED);
		out[n].wk_max_pps = __atomic_load_n(&lc->idle.wk_max_pps, __ATOMIC_RELAXED);
		n++;
	}
	return (int)n;
}
