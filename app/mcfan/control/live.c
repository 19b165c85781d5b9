/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Live settings (control/live.h): burst, RX stop and start, clear stats, msacc, idle
 * policies and quit. Each writes the application's live state (struct mcfan_live, mcfan.h)
 * or the per-lcore idle policy, after checking everything.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "control/action.h"
#include "control/feed.h"
#include "control/igmp.h"
#include "control/live.h"
#include "control/sched.h"
#include "control/stats.h"

#define STOP_DRAIN_WAIT_MS 1000   /* how long `stop` waits for workers to count what is queued */
#define POLL_PERIOD_NS 1000000L   /* 1 ms between checks while waiting */

int
mcfan_ctl_set_burst(struct mcfan_app *app, uint64_t n, char *msg, size_t len)
{
	unsigned int max = RTE_MIN((unsigned int)MCFAN_MAX_BURST, app->cfg.ring_size);
	unsigned int old;

	if (n < 1 || n > max)
		return mcfan_err_set(msg, len, -ERANGE, "set burst: %" PRIu64 " is out of range 1..%u%s",
			       n, max,
			       max < MCFAN_MAX_BURST ? " (a burst must fit in a ring)" : "");
	mcfan_ctl_lock();
	old = mcfan_atomic_u32_exchange(&app->live.burst, (uint32_t)n, memory_order_relaxed);
	mcfan_ctl_unlock();
	return mcfan_err_set(msg, len, 0, "burst %" PRIu64 " (was %u)", n, old);
}

static void
sleep_poll(void)
{
	struct timespec ts = {0, POLL_PERIOD_NS};

	nanosleep(&ts, NULL);
}

/* Copies enqueued to workers but not yet counted by them (raw counters, no baselines). */
static uint64_t
copies_in_flight(const struct mcfan_app *app)
{
	struct mcfan_ring_stats *rs;
	struct mcfan_rx_stats st;
	uint64_t enq = 0, done = 0;
	unsigned int r, w;

	rs = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*rs));
	if (rs == NULL)
		return UINT64_MAX;
	for (r = 0; r < app->n_rx; r++) {
		mcfan_rx_ctx_read(&app->lcores[app->rx_lcore_ids[r]].rx, &st, rs);
		for (w = 0; w < app->n_workers; w++)
			enq += rs[w].enqueued;
	}
	for (w = 0; w < app->n_workers; w++)
		done += __atomic_load_n(&app->lcores[app->worker_lcore_ids[w]].ws->frames,
					__ATOMIC_RELAXED);
	free(rs);
	return enq > done ? enq - done : 0;
}

int
mcfan_ctl_rx_stop(struct mcfan_app *app, char *msg, size_t len)
{
	uint64_t left = 0, start;
	int ret;

	mcfan_ctl_lock();
	if (mcfan_live_rx_paused(&app->live)) {
		ret = mcfan_err_set(msg, len, -EALREADY,
			      "stop: RX is already stopped (start resumes it)");
		goto out;
	}
	mcfan_atomic_flag_store(&app->live.rx_paused, true, memory_order_release);
	/* every RX lcore passes a quiescent state after its burst in flight: then none polls */
	rte_rcu_qsbr_synchronize(app->qsbr, RTE_QSBR_THRID_INVALID);
	start = rte_rdtsc();
	for (;;) {
		left = copies_in_flight(app);
		if (left == 0 || rte_rdtsc() - start > app->tsc_hz / 1000 * STOP_DRAIN_WAIT_MS)
			break;
		sleep_poll();
	}
	if (left == 0)
		ret = mcfan_err_set(msg, len, 0, "RX stopped; workers have counted every queued frame");
	else
		ret = mcfan_err_set(msg, len, 0, "RX stopped; workers still have %" PRIu64 " copies to "
			      "count after %d ms", left, STOP_DRAIN_WAIT_MS);
out:
	mcfan_ctl_unlock();
	return ret;
}

int
mcfan_ctl_rx_start(struct mcfan_app *app, char *msg, size_t len)
{
	int ret;

	mcfan_ctl_lock();
	if (!mcfan_live_rx_paused(&app->live))
		ret = mcfan_err_set(msg, len, -EALREADY, "start: RX is already running");
	else {
		mcfan_atomic_flag_store(&app->live.rx_paused, false, memory_order_release);
		ret = mcfan_err_set(msg, len, 0, "RX started");
	}
	mcfan_ctl_unlock();
	return ret;
}

int
mcfan_ctl_clear_stats(struct mcfan_app *app, char *msg, size_t len)
{
	int ret;

	mcfan_ctl_lock();
	ret = mcfan_stats_clear(app);
	if (ret == 0) {
		mcfan_feed_clear(app); /* feed quality's counts: baselines too (control/feed.h) */
		mcfan_igmp_clear(app); /* after the baselines: see control/igmp.h */
	}
	mcfan_ctl_unlock();
	if (ret < 0)
		return mcfan_err_set(msg, len, ret, "clear stats: %s", strerror(-ret));
	return mcfan_err_set(msg, len, 0, "statistics cleared (frames, drops, workers, groups, ports, "
			     "feed quality, IGMP/MLD counters)");
}

static void
msacc_blocks(struct mcfan_app *app, const struct mcfan_msacc **ms)
{
	unsigned int id;

	for (id = 0; id < RTE_MAX_LCORE; id++)
		ms[id] = app->lcores[id].role != MCFAN_ROLE_NONE ? &app->lcores[id].ms : NULL;
}

int
mcfan_ctl_msacc_start(struct mcfan_app *app, uint64_t ms, char *msg, size_t len)
{
	const struct mcfan_msacc *blocks[RTE_MAX_LCORE];
	int ret;

	if (ms < 1 || ms > MCFAN_CTL_MSACC_MS_MAX)
		return mcfan_err_set(msg, len, -ERANGE, "msacc start: %" PRIu64
			       " ms is out of range 1..%u", ms, MCFAN_CTL_MSACC_MS_MAX);
	mcfan_ctl_lock();
	msacc_blocks(app, blocks);
	ret = mcfan_msacc_window_start(app->window, blocks, RTE_MAX_LCORE, rte_rdtsc(), ms,
				       app->tsc_hz);
	mcfan_ctl_unlock();
	if (ret < 0)
		return mcfan_err_set(msg, len, ret, "msacc start: %s", strerror(-ret));
	return mcfan_err_set(msg, len, 0, "msacc window of %" PRIu64 " ms started; show msacc freezes "
		       "at its end", ms);
}

int
mcfan_ctl_msacc_reset(struct mcfan_app *app, char *msg, size_t len)
{
	const struct mcfan_msacc *blocks[RTE_MAX_LCORE];
	int ret;

	mcfan_ctl_lock();
	msacc_blocks(app, blocks);
	ret = mcfan_msacc_window_reset(app->window, blocks, RTE_MAX_LCORE, rte_rdtsc());
	mcfan_ctl_unlock();
	if (ret < 0)
		return mcfan_err_set(msg, len, ret, "msacc reset: %s", strerror(-ret));
	return mcfan_err_set(msg, len, 0, "msacc window reset: it runs from now");
}

int
mcfan_ctl_msacc_enable(struct mcfan_app *app, bool on, char *msg, size_t len)
{
	int ret;

	mcfan_ctl_lock();
	if (mcfan_live_msacc(&app->live) == on) {
		ret = mcfan_err_set(msg, len, -EALREADY, "msacc %s: accounting is already %s", on ? "on" :
			      "off", on ? "on" : "off");
	} else {
		/* lcores off since the start (--no-msacc) start counting, they charge nothing */
		bool fresh = on && mcfan_msacc_any_never_measured(app);

		if (!on)
			mcfan_sched_update(app); /* the wait_cpu up to now, before it stops */
		mcfan_atomic_flag_store(&app->live.msacc, on, memory_order_relaxed);
		ret = mcfan_err_set(msg, len, 0, !on ? "microstate accounting off for the data "
			      "lcores" : fresh ? "microstate accounting on (the data lcores off "
			      "since the start, --no-msacc, count from now)" : "microstate "
			      "accounting on (the time it was off counts as other; msacc reset "
			      "starts a clean window)");
	}
	mcfan_ctl_unlock();
	return ret;
}

/* Can lcore lc wait for Rx interrupts? 0, or -ENOTSUP with the port and PMD named. */
static int
idle_intr_ok(const struct mcfan_app *app, const struct mcfan_lcore *lc, char *msg, size_t len)
{
	const struct mcfan_port *p;
	unsigned int i;

	if (lc->idle.intr_ok)
		return 0;
	if (lc->n_ports == 0)
		return mcfan_err_set(msg, len, -ENOTSUP, "set idle: lcore %u polls no port: interrupt "
			       "has nothing to wait for", lc->lcore_id);
	for (i = 0; i < lc->n_ports; i++) {
		p = &app->ports[lc->ports[i]];
		if (!p->rx_intr)
			return mcfan_err_set(msg, len, -ENOTSUP, "set idle: lcore %u: port %u (%s, PMD "
				       "%s) was started without Rx queue interrupts (start mcfan "
				       "with --idle-rx interrupt)", lc->lcore_id, lc->ports[i],
				       p->name, p->driver);
	}
	p = &app->ports[lc->ports[0]];
	return mcfan_err_set(msg, len, -ENOTSUP, "set idle: lcore %u: a port (port %u: %s, PMD %s) has "
		       "no Rx queue interrupts", lc->lcore_id, lc->ports[0], p->name, p->driver);
}

int
mcfan_ctl_set_idle(struct mcfan_app *app, const char *who, const char *policy, char *msg,
		   size_t len)
{
	char err[CTL_ERR_MAX], text[MCFAN_IDLE_POLICY_TEXT_MAX + 1], ids[CTL_LIST_MAX];
	bool sel[RTE_MAX_LCORE] = {false};
	const struct mcfan_lcore *lc;
	unsigned int id, n = 0;
	size_t off = 0;
	uint64_t one = 0;
	uint32_t p;
	int ret;

	if (mcfan_idle_parse(policy, &p, err, sizeof(err)) < 0)
		return mcfan_err_set(msg, len, -EINVAL, "set idle: %s", err);
	if (who == NULL)
		who = "";
	if (strcmp(who, "rx") != 0 && strcmp(who, "worker") != 0) {
		if (mcfan_ctl_parse_u64(who, &one) < 0 || one >= RTE_MAX_LCORE ||
		    !(app->lcores[one].role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)))
			return mcfan_err_set(msg, len, -EINVAL, "set idle: '%.*s' is not rx, worker or a "
				       "data lcore (show lcores lists them)", CTL_LIST_MAX, who);
	}
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		lc = &app->lcores[id];
		if (!(lc->role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)))
			continue;
		if (strcmp(who, "rx") == 0)
			sel[id] = (lc->role & MCFAN_ROLE_RX) != 0;
		else if (strcmp(who, "worker") == 0)
			sel[id] = lc->role == MCFAN_ROLE_WORKER;
		else
			sel[id] = id == one;
		if (!sel[id])
			continue;
		if (lc->host_id != RTE_MAX_LCORE)
			return mcfan_err_set(msg, len, -EINVAL, "set idle: lcore %u is hosted by lcore "
				       "%u (docs/idle.md \"Hosted workers\"): its worker step runs "
				       "in lcore %u's thread, which waits by lcore %u's policy (set "
				       "idle %u); start with --host-workers off for a worker thread "
				       "of its own", id, lc->host_id, lc->host_id, lc->host_id,
				       lc->host_id);
		if (mcfan_idle_role_ok(p, lc->role, err, sizeof(err)) < 0)
			return mcfan_err_set(msg, len, -EINVAL, "set idle: lcore %u (%s): %s", id,
				       mcfan_role_name(lc->role), err);
		if (MCFAN_IDLE_KIND_OF(p) == MCFAN_IDLE_INTERRUPT) {
			ret = idle_intr_ok(app, lc, msg, len);
			if (ret < 0)
				return ret;
		}
		n++;
	}
	if (n == 0)
		return mcfan_err_set(msg, len, -ENOENT, "set idle: there is no %s lcore%s", who,
			       strcmp(who, "worker") == 0 ? " that is only a worker (the workers "
			       "also poll ports: set idle rx)" : "");
	mcfan_ctl_lock();
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		if (!sel[id])
			continue;
		mcfan_atomic_u32_store(&app->lcores[id].idle.policy, p, memory_order_relaxed);
		mcfan_atomic_u32_store(&app->lcores[id].idle.origin, MCFAN_IDLE_FROM_SET,
				       memory_order_relaxed);
		if (off < sizeof(ids))
			off += (size_t)snprintf(ids + off, sizeof(ids) - off, "%s%u",
						off == 0 ? "" : ",", id);
	}
	if (strcmp(who, "rx") == 0) {
		mcfan_atomic_u32_store(&app->live.idle_rx, p, memory_order_relaxed);
		mcfan_atomic_flag_store(&app->live.idle_rx_set, true, memory_order_relaxed);
	} else if (strcmp(who, "worker") == 0) {
		mcfan_atomic_u32_store(&app->live.idle_worker, p, memory_order_relaxed);
		mcfan_atomic_flag_store(&app->live.idle_worker_set, true, memory_order_relaxed);
	}
	mcfan_ctl_unlock();
	return mcfan_err_set(msg, len, 0, "idle policy %s for lcore%s %s", mcfan_idle_format(p, text,
		       sizeof(text)), n == 1 ? "" : "s", ids);
}

int
mcfan_ctl_quit(struct mcfan_app *app, char *msg, size_t len)
{
	mcfan_atomic_flag_store(&app->live.quit, true, memory_order_release);
	return mcfan_err_set(msg, len, 0, "stopping");
}

void
mcfan_live_tick(struct mcfan_app *app)
{
	const struct mcfan_msacc *blocks[RTE_MAX_LCORE];

	msacc_blocks(app, blocks);
	mcfan_msacc_window_tick(app->window, blocks, RTE_MAX_LCORE, rte_rdtsc());
}
