/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */
/*
 * Idle policies, the control side (control/idle.h): each data lcore's start policy, its
 * eventfd and Rx interrupt epoll instance, set up by the main lcore before launch and freed
 * after the lcores return; and the read side for report, console and telemetry.
 */

#include <errno.h>
#include <sys/resource.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>

#include "mcfan.h"
#include "log.h"
#include "control/idle.h"
#include "control/placement.h"
#include "control/readers.h"

#define NS_PER_US UINT64_C(1000)

/* mcfan_idle_setup() has given every lcore its descriptors (-1 or open): main lcore only. */
static bool fds_valid;

/* ------------------------------------------------------------------------------------------
 * Set-up.
 */

/* Remove the first n ports of an lcore from its epoll instance and close it. */
static void
intr_teardown(struct mcfan_lcore *lc, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rte_eth_dev_rx_intr_ctl_q(lc->ports[i], lc->queues[i], lc->idle.epfd,
					  RTE_INTR_EVENT_DEL, NULL);
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
			ret = rte_eth_dev_rx_intr_ctl_q(port, lc->queues[i], id->epfd,
							RTE_INTR_EVENT_ADD, NULL);
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

/* The start policy, its origin and the sleep cap of one data lcore (docs/idle.md). */
static void
start_policy(struct mcfan_app *app, unsigned int id, struct mcfan_lcore *lc)
{
	const struct mcfan_config *cfg = &app->cfg;
	bool rx = (lc->role & MCFAN_ROLE_RX) != 0, explicit = rx ? cfg->idle_rx_set :
		cfg->idle_worker_set, worker_near, shared;
	unsigned int max_us = cfg->idle_max_sleep_us, first_div = MCFAN_IDLE_STEP_FIRST_DIV;
	unsigned int backoff_us = 0; /* 0: max_us */
	enum mcfan_idle_origin origin;
	uint32_t policy;
	int cpu;

	lc->idle.share_n = mcfan_placement_share(app, id, &cpu, &worker_near);
	lc->idle.share_cpu = cpu;
	if (explicit) {
		policy = rx ? cfg->idle_rx : cfg->idle_worker;
		origin = MCFAN_IDLE_FROM_OPTION;
	} else {
		/* reader rings (engine readers): reader processes run on the host's CPUs, so an
		 * lcore alone among mcfan's would still spin against them */
		shared = lc->idle.share_n > 0 || mcfan_readers_wanted(app);
		policy = mcfan_idle_default_policy(lc->role, shared);
		origin = lc->idle.share_n > 0 ? MCFAN_IDLE_FROM_SHARED :
			shared ? MCFAN_IDLE_FROM_READERS : MCFAN_IDLE_FROM_ALONE;
		if (shared) {
			first_div = MCFAN_IDLE_SHARED_STEP_FIRST_DIV;
			if (!cfg->idle_max_sleep_set) {
				max_us = rx ? MCFAN_IDLE_SHARED_MAX_SLEEP_US :
					MCFAN_IDLE_SHARED_WORKER_MAX_SLEEP_US;
				/* a worker set to backoff later (set idle) is not woken by
				 * its RX lcore: the longer cap the wake protocol backs up does
				 * not hold for it */
				backoff_us = MCFAN_IDLE_SHARED_MAX_SLEEP_US;
			}
		}
	}
	lc->idle.step_first_div = first_div;
	/* woken by an RX lcore on its own CPU, a worker of the normal class preempts it at once
	 * (wake-up preemption), before the RX lcore has woken its other workers and gone to
	 * sleep: each wake-up then costs two context switches instead of one */
	lc->idle.sched_batch = !rx && mcfan_placement_shares_rx_cpu(app, id);
	/* an RX lcore late for its CPU loses frames in the port's ring; a late reader lags */
	lc->idle.nice_apply = rx && (cfg->rx_nice_set || mcfan_readers_wanted(app));
	lc->idle.nice = cfg->rx_nice_set ? cfg->rx_nice : MCFAN_RX_NICE_READERS;
	mcfan_atomic_u32_store(&lc->idle.policy, policy, memory_order_relaxed);
	mcfan_atomic_u32_store(&lc->idle.origin, origin, memory_order_relaxed);
	lc->idle.max_sleep_ns = (uint64_t)max_us * NS_PER_US;
	lc->idle.max_sleep_backoff_ns = (uint64_t)(backoff_us != 0 ? backoff_us : max_us) *
		NS_PER_US;
	/* wake amortisation: a wake-up of a worker on the RX lcore's own CPU would preempt it,
	 * so such an RX lcore wakes its workers when it runs out of work (datapath/idle.c) */
	lc->idle.kick_defer = rx && worker_near;
	lc->idle.kick_fill = RTE_MAX(cfg->ring_size / MCFAN_IDLE_WAKE_FILL_DIV, 1u);
	lc->idle.kick_budget = rte_get_tsc_hz() / US_PER_S * MCFAN_IDLE_WAKE_BUDGET_US;
	lc->idle.kick_frames = 0;
}

int
mcfan_idle_setup(struct mcfan_app *app)
{
	const struct mcfan_config *cfg = &app->cfg;
	struct mcfan_lcore *lc;
	unsigned int id, i;
	uint32_t policy;
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
		start_policy(app, id, lc);
		policy = mcfan_atomic_u32_load(&lc->idle.policy, memory_order_relaxed);
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
			bool want = MCFAN_IDLE_KIND_OF(policy) == MCFAN_IDLE_INTERRUPT;

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
 * Read side.
 */

/* The scheduling class of the lcore's thread (sched(7)): now while it runs (also what chrt
 * set from outside), else the one it found at start; "-" before it started. */
static const char *
sched_name(const struct mcfan_lcore *lc)
{
	int c = __atomic_load_n(&lc->idle.sched_class, __ATOMIC_RELAXED);
	int tid = __atomic_load_n(&lc->tid, __ATOMIC_RELAXED), now;

	if (c <= 0)
		return "-";
	now = tid > 0 ? sched_getscheduler(tid) : -1;
	if (now >= 0)
		c = now + 1;
	switch ((c - 1) & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER:
		return "normal";
	case SCHED_BATCH:
		return "batch";
	case SCHED_IDLE:
		return "idle";
	case SCHED_FIFO:
		return "fifo";
	case SCHED_RR:
		return "rr";
	default:
		return "?";
	}
}

/* The nice value of the lcore's thread: now while it runs, else the one it found at start;
 * 0 before it started. */
static int
nice_now(const struct mcfan_lcore *lc)
{
	int seen = __atomic_load_n(&lc->idle.nice_seen, __ATOMIC_RELAXED);
	int tid = __atomic_load_n(&lc->tid, __ATOMIC_RELAXED), now;

	if (seen == 0)
		return 0;
	errno = 0;
	now = tid > 0 ? getpriority(PRIO_PROCESS, (id_t)tid) : -1;
	return errno == 0 && tid > 0 ? now : seen - 100;
}

void
mcfan_idle_wake_all(struct mcfan_app *app)
{
	uint64_t one = 1;
	unsigned int id;
	ssize_t r;

	if (!fds_valid)
		return;
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		if (!(app->lcores[id].role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)) ||
		    app->lcores[id].idle.efd < 0)
			continue;
		/* EAGAIN (the counter is full): a wake-up is pending anyway */
		r = write(app->lcores[id].idle.efd, &one, sizeof(one));
		RTE_SET_USED(r);
	}
}

int
mcfan_idle_read(const struct mcfan_app *app, struct mcfan_idle_view *out, unsigned int max)
{
	const struct mcfan_lcore *lc;
	enum mcfan_idle_origin origin;
	unsigned int id, n = 0;

	for (id = 0; id < RTE_MAX_LCORE && n < max; id++) {
		lc = &app->lcores[id];
		if (!(lc->role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].lcore_id = id;
		out[n].role = lc->role;
		out[n].policy = mcfan_atomic_u32_load(&lc->idle.policy, memory_order_relaxed);
		mcfan_idle_format(out[n].policy, out[n].policy_text, sizeof(out[n].policy_text));
		out[n].ring_bound_ns = __atomic_load_n(&lc->idle.ring_bound_ns, __ATOMIC_RELAXED);
		out[n].max_sleep_ns = MCFAN_IDLE_KIND_OF(out[n].policy) == MCFAN_IDLE_BACKOFF ?
			lc->idle.max_sleep_backoff_ns : lc->idle.max_sleep_ns;
		out[n].sleep_cap_ns = mcfan_idle_sleep_cap_ns(out[n].policy, out[n].ring_bound_ns,
							      out[n].max_sleep_ns);
		origin = mcfan_atomic_u32_load(&lc->idle.origin, memory_order_relaxed);
		out[n].origin = origin;
		if (lc->idle.share_cpu >= 0)
			snprintf(out[n].why, sizeof(out[n].why), "%s (shares CPU %d with %u data "
				 "lcore%s)", mcfan_idle_origin_name(origin), lc->idle.share_cpu,
				 lc->idle.share_n, lc->idle.share_n == 1 ? "" : "s");
		else if (origin == MCFAN_IDLE_FROM_READERS)
			snprintf(out[n].why, sizeof(out[n].why), "%s (reader processes share "
				 "its CPUs)", mcfan_idle_origin_name(origin));
		else
			snprintf(out[n].why, sizeof(out[n].why), "%s (no other data lcore on its CPU)",
				 mcfan_idle_origin_name(origin));
		out[n].hosted_by = lc->host_id == RTE_MAX_LCORE ? -1 : (int)lc->host_id;
		out[n].n_hosted = lc->n_hosted;
		if (out[n].hosted_by >= 0) {
			snprintf(out[n].policy_text, sizeof(out[n].policy_text), "hosted");
			snprintf(out[n].why, sizeof(out[n].why), "hosted (its step runs in lcore "
				 "%u's thread on CPU %d)", lc->host_id, lc->idle.share_cpu);
			out[n].sleep_cap_ns = 0;
			out[n].max_sleep_ns = 0; /* it never sleeps by itself */
		} else if (lc->n_hosted > 0) {
			size_t l = strlen(out[n].why);

			snprintf(out[n].why + l, sizeof(out[n].why) - l, ", hosts %u",
				 lc->n_hosted);
		}
		/* a hosted lcore's step runs in its host's thread: that thread's class and nice */
		snprintf(out[n].sched, sizeof(out[n].sched), "%s", sched_name(out[n].hosted_by >= 0 ?
			 &app->lcores[lc->host_id] : lc));
		out[n].nice = nice_now(out[n].hosted_by >= 0 ? &app->lcores[lc->host_id] : lc);
		out[n].rx_max_pps = __atomic_load_n(&lc->idle.rx_max_pps, __ATOMIC_RELAXED);
		out[n].wk_max_pps = __atomic_load_n(&lc->idle.wk_max_pps, __ATOMIC_RELAXED);
		n++;
	}
	return (int)n;
}
