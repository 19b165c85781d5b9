/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Microstate accounting: the control side (snapshots, windows, aggregation,
 * text). The owner-side fast path is static inline in mcfan_msacc_writer.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_pause.h>
#include <rte_seqcount.h>
#include <rte_spinlock.h>

#include "mcfan_msacc.h"
#include "mcfan_msacc_window.h"
#include "mcfan_msacc_writer.h"

/** Direct reads of a block before asking its owner to publish a copy. */
#define MSACC_DIRECT_TRIES 8

/** Waiting rounds with rte_pause() before yielding the CPU once. */
#define MSACC_SNAP_SPINS 1024

/** Percent scale. */
#define MSACC_PCT 100.0

/** Milliseconds per second. */
#define MSACC_MS_PER_S 1000

/* Table column widths (characters). */
#define COL_LCORE 7   /**< "lcore" and "lcores" column. */
#define COL_ROLE 9    /**< Role name; "rx+worker" is the longest. */
#define COL_STATE 10  /**< One state; "poll_empty" is the longest name. */
#define COL_CYCLES 15 /**< Absolute cycle counts. */
#define COL_COUNT 12  /**< Poll and frame counts. */
#define COL_RATIO 8   /**< Percentages and ratios in the counters section. */
#define COL_HIST 9    /**< One histogram bucket. */

/** Digits after the decimal point of the percentages in the tables. */
#define PCT_DECIMALS 2

/** States in table column order: the busy-wait first, "other" last. */
static const enum mcfan_ms_state col_order[MCFAN_MS_MAX] = {
	MCFAN_MS_POLL_EMPTY, MCFAN_MS_RX, MCFAN_MS_CLASSIFY, MCFAN_MS_FANOUT,
	MCFAN_MS_DEQUEUE, MCFAN_MS_PROCESS, MCFAN_MS_SLEEP, MCFAN_MS_CONSOLE,
	MCFAN_MS_TELEMETRY, MCFAN_MS_WAIT_CPU, MCFAN_MS_OTHER,
};

static const char *const state_names[MCFAN_MS_MAX] = {
	[MCFAN_MS_OTHER] = "other",
	[MCFAN_MS_POLL_EMPTY] = "poll_empty",
	[MCFAN_MS_RX] = "rx",
	[MCFAN_MS_CLASSIFY] = "classify",
	[MCFAN_MS_FANOUT] = "fanout",
	[MCFAN_MS_DEQUEUE] = "dequeue",
	[MCFAN_MS_PROCESS] = "process",
	[MCFAN_MS_SLEEP] = "sleep",
	[MCFAN_MS_CONSOLE] = "console",
	[MCFAN_MS_TELEMETRY] = "telemetry",
	[MCFAN_MS_WAIT_CPU] = "wait_cpu",
};

static const char *const state_descs[MCFAN_MS_MAX] = {
	[MCFAN_MS_OTHER] = "housekeeping not covered by any other state",
	[MCFAN_MS_POLL_EMPTY] = "rx_burst or ring dequeue returned 0 frames: busy-wait",
	[MCFAN_MS_RX] = "rx_burst calls that returned frames",
	[MCFAN_MS_CLASSIFY] = "parsing headers and looking up the multicast group",
	[MCFAN_MS_FANOUT] = "ring enqueue to workers, including ring-full handling",
	[MCFAN_MS_DEQUEUE] = "worker ring dequeue calls that returned frames",
	[MCFAN_MS_PROCESS] = "worker per-group counting and mbuf free",
	[MCFAN_MS_SLEEP] = "sleeping or waiting under the idle policy",
	[MCFAN_MS_CONSOLE] = "control lcore: interactive console command handling",
	[MCFAN_MS_TELEMETRY] = "control lcore: statistics, report and telemetry work",
	[MCFAN_MS_WAIT_CPU] = "runnable but waiting for a CPU (the kernel's schedstat)",
};

static const char *const hist_labels[MCFAN_MSACC_HIST_BUCKETS] = {
	"1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128-255", "256-511", "512+",
};

static const uint32_t type_roles[MCFAN_ROLE_TYPE_MAX] = {
	[MCFAN_ROLE_TYPE_RX] = MCFAN_ROLE_RX,
	[MCFAN_ROLE_TYPE_WORKER] = MCFAN_ROLE_WORKER,
	[MCFAN_ROLE_TYPE_RX_WORKER] = MCFAN_ROLE_RX | MCFAN_ROLE_WORKER,
	[MCFAN_ROLE_TYPE_CONTROL] = MCFAN_ROLE_CONTROL,
};

static const char *const type_names[MCFAN_ROLE_TYPE_MAX] = {
	[MCFAN_ROLE_TYPE_RX] = "rx",
	[MCFAN_ROLE_TYPE_WORKER] = "worker",
	[MCFAN_ROLE_TYPE_RX_WORKER] = "rx+worker",
	[MCFAN_ROLE_TYPE_CONTROL] = "control",
};

/* ---------------------------------------------------------------------------------------------
 * Names.
 */

const char *
mcfan_ms_state_name(enum mcfan_ms_state s)
{
	if ((unsigned int)s >= MCFAN_MS_MAX)
		return "unknown";
	return state_names[s];
}

const char *
mcfan_ms_state_desc(enum mcfan_ms_state s)
{
	if ((unsigned int)s >= MCFAN_MS_MAX)
		return "unknown state";
	return state_descs[s];
}

int
mcfan_ms_state_from_name(const char *name)
{
	unsigned int s;

	if (name == NULL)
		return -EINVAL;
	for (s = 0; s < MCFAN_MS_MAX; s++)
		if (strcmp(name, state_names[s]) == 0)
			return (int)s;
	return -ENOENT;
}

int
mcfan_role_type(uint32_t role)
{
	unsigned int t;

	for (t = 0; t < MCFAN_ROLE_TYPE_MAX; t++)
		if (type_roles[t] == role)
			return (int)t;
	return -EINVAL;
}

uint32_t
mcfan_role_type_role(enum mcfan_role_type type)
{
	if ((unsigned int)type >= MCFAN_ROLE_TYPE_MAX)
		return 0;
	return type_roles[type];
}

const char *
mcfan_role_name(uint32_t role)
{
	int t;

	if (role == 0)
		return "none";
	t = mcfan_role_type(role);
	if (t < 0)
		return "mixed";
	return type_names[t];
}

const char *
mcfan_msacc_hist_label(unsigned int bucket)
{
	if (bucket >= MCFAN_MSACC_HIST_BUCKETS)
		return "?";
	return hist_labels[bucket];
}

const char *
mcfan_msacc_window_mode_name(uint32_t mode)
{
	switch (mode) {
	case MCFAN_MSACC_WIN_CONTINUOUS:
		return "continuous";
	case MCFAN_MSACC_WIN_RESET:
		return "reset";
	case MCFAN_MSACC_WIN_TIMED:
		return "timed";
	default:
		return "unknown";
	}
}

/* ---------------------------------------------------------------------------------------------
 * Owner side, out of line.
 */

void
mcfan_msacc_init(struct mcfan_msacc *ms, uint32_t role, uint64_t now_tsc)
{
	if (ms == NULL)
		return;
	memset(ms, 0, sizeof(*ms));
	ms->role = role;
	ms->state = MCFAN_MS_OTHER;
	ms->last_tsc = now_tsc;
	ms->init_tsc = now_tsc;
}

void
mcfan_msacc_restart(struct mcfan_msacc *ms, uint64_t now_tsc)
{
	unsigned int i;

	if (ms == NULL)
		return;
	mcfan_msacc_write_begin_(ms);
	for (i = 0; i < MCFAN_MS_MAX; i++)
		__atomic_store_n(&ms->cycles[i], 0, __ATOMIC_RELAXED);
	for (i = 0; i < MCFAN_MSACC_HIST_BUCKETS; i++)
		__atomic_store_n(&ms->hist[i], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ms->polls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ms->polls_work, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ms->frames, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ms->sleeps, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ms->wakeups, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ms->state, (uint32_t)MCFAN_MS_OTHER, __ATOMIC_RELAXED);
	__atomic_store_n(&ms->last_tsc, now_tsc, __ATOMIC_RELAXED);
	__atomic_store_n(&ms->init_tsc, now_tsc, __ATOMIC_RELAXED);
	mcfan_msacc_write_end_(ms);
}

void
mcfan_msacc_pause(struct mcfan_msacc *ms, uint64_t now_tsc)
{
	if (ms == NULL || ms->paused)
		return;
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_charge_(ms, (enum mcfan_ms_state)ms->state, now_tsc);
	__atomic_store_n(&ms->paused, 1, __ATOMIC_RELAXED);
	mcfan_msacc_write_end_(ms);
}

void
mcfan_msacc_resume(struct mcfan_msacc *ms, uint64_t now_tsc)
{
	unsigned int i;
	uint64_t sum;

	if (ms == NULL || !ms->paused)
		return;
	sum = ms->polls;
	for (i = 0; i < MCFAN_MS_MAX; i++)
		sum += ms->cycles[i];
	if (sum == 0) {
		/* never measured: start counting now */
		mcfan_msacc_restart(ms, now_tsc);
		mcfan_msacc_write_begin_(ms);
	} else {
		mcfan_msacc_write_begin_(ms);
		mcfan_msacc_charge_(ms, MCFAN_MS_OTHER, now_tsc);
	}
	__atomic_store_n(&ms->paused, 0, __ATOMIC_RELAXED);
	mcfan_msacc_write_end_(ms);
}

/* ---------------------------------------------------------------------------------------------
 * Snapshots.
 */

/* Copy every field with relaxed loads; the caller validates with the sequence counter. */
static void
msacc_copy_relaxed(const struct mcfan_msacc *ms, struct mcfan_msacc_snap *s)
{
	unsigned int i;

	s->last_tsc = __atomic_load_n(&ms->last_tsc, __ATOMIC_RELAXED);
	s->init_tsc = __atomic_load_n(&ms->init_tsc, __ATOMIC_RELAXED);
	for (i = 0; i < MCFAN_MS_MAX; i++)
		s->cycles[i] = __atomic_load_n(&ms->cycles[i], __ATOMIC_RELAXED);
	s->polls = __atomic_load_n(&ms->polls, __ATOMIC_RELAXED);
	s->polls_work = __atomic_load_n(&ms->polls_work, __ATOMIC_RELAXED);
	s->frames = __atomic_load_n(&ms->frames, __ATOMIC_RELAXED);
	for (i = 0; i < MCFAN_MSACC_HIST_BUCKETS; i++)
		s->hist[i] = __atomic_load_n(&ms->hist[i], __ATOMIC_RELAXED);
	s->sleeps = __atomic_load_n(&ms->sleeps, __ATOMIC_RELAXED);
	s->wakeups = __atomic_load_n(&ms->wakeups, __ATOMIC_RELAXED);
	s->role = __atomic_load_n(&ms->role, __ATOMIC_RELAXED);
	s->state = __atomic_load_n(&ms->state, __ATOMIC_RELAXED);
	s->paused = __atomic_load_n(&ms->paused, __ATOMIC_RELAXED);
}

/* One seqlock read of the live block; 1 if the copy is consistent. */
static int
msacc_try_direct(const struct mcfan_msacc *ms, struct mcfan_msacc_snap *s)
{
	uint64_t seq0, seq1;

	seq0 = __atomic_load_n(&ms->seq, __ATOMIC_ACQUIRE);
	if (seq0 & 1)
		return 0;
	msacc_copy_relaxed(ms, s);
	/* Orders the data loads before the second load of seq. */
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	seq1 = __atomic_load_n(&ms->seq, __ATOMIC_RELAXED);
	s->seq = seq0;
	return seq1 == seq0;
}

/* One seqlock read of the published copy; 1 if the copy is consistent. */
static int
msacc_try_pub(const struct mcfan_msacc *ms, struct mcfan_msacc_snap *s)
{
	const struct mcfan_msacc_snap *p = &ms->pub;
	uint32_t sn;
	unsigned int i;

	sn = rte_seqcount_read_begin(&ms->pub_seq);
	if (sn & 1)
		return 0; /* the owner is writing pub: the caller tries again */
	s->seq = __atomic_load_n(&p->seq, __ATOMIC_RELAXED);
	s->last_tsc = __atomic_load_n(&p->last_tsc, __ATOMIC_RELAXED);
	s->init_tsc = __atomic_load_n(&p->init_tsc, __ATOMIC_RELAXED);
	for (i = 0; i < MCFAN_MS_MAX; i++)
		s->cycles[i] = __atomic_load_n(&p->cycles[i], __ATOMIC_RELAXED);
	s->polls = __atomic_load_n(&p->polls, __ATOMIC_RELAXED);
	s->polls_work = __atomic_load_n(&p->polls_work, __ATOMIC_RELAXED);
	s->frames = __atomic_load_n(&p->frames, __ATOMIC_RELAXED);
	for (i = 0; i < MCFAN_MSACC_HIST_BUCKETS; i++)
		s->hist[i] = __atomic_load_n(&p->hist[i], __ATOMIC_RELAXED);
	s->sleeps = __atomic_load_n(&p->sleeps, __ATOMIC_RELAXED);
	s->wakeups = __atomic_load_n(&p->wakeups, __ATOMIC_RELAXED);
	s->role = __atomic_load_n(&p->role, __ATOMIC_RELAXED);
	s->state = __atomic_load_n(&p->state, __ATOMIC_RELAXED);
	s->paused = __atomic_load_n(&p->paused, __ATOMIC_RELAXED);
	return !rte_seqcount_read_retry(&ms->pub_seq, sn);
}

void
mcfan_msacc_publish_(struct mcfan_msacc *ms)
{
	struct mcfan_msacc_snap *p = &ms->pub;
	uint64_t req = mcfan_atomic_u64_load(&ms->req, memory_order_acquire);
	unsigned int i;

	/* Only the owner writes pub and the live fields: plain reads of them are exact. */
	rte_seqcount_write_begin(&ms->pub_seq);
	__atomic_store_n(&p->seq, ms->seq, __ATOMIC_RELAXED);
	__atomic_store_n(&p->last_tsc, ms->last_tsc, __ATOMIC_RELAXED);
	__atomic_store_n(&p->init_tsc, ms->init_tsc, __ATOMIC_RELAXED);
	for (i = 0; i < MCFAN_MS_MAX; i++)
		__atomic_store_n(&p->cycles[i], ms->cycles[i], __ATOMIC_RELAXED);
	__atomic_store_n(&p->polls, ms->polls, __ATOMIC_RELAXED);
	__atomic_store_n(&p->polls_work, ms->polls_work, __ATOMIC_RELAXED);
	__atomic_store_n(&p->frames, ms->frames, __ATOMIC_RELAXED);
	for (i = 0; i < MCFAN_MSACC_HIST_BUCKETS; i++)
		__atomic_store_n(&p->hist[i], ms->hist[i], __ATOMIC_RELAXED);
	__atomic_store_n(&p->sleeps, ms->sleeps, __ATOMIC_RELAXED);
	__atomic_store_n(&p->wakeups, ms->wakeups, __ATOMIC_RELAXED);
	__atomic_store_n(&p->role, ms->role, __ATOMIC_RELAXED);
	__atomic_store_n(&p->state, ms->state, __ATOMIC_RELAXED);
	__atomic_store_n(&p->paused, ms->paused, __ATOMIC_RELAXED);
	rte_seqcount_write_end(&ms->pub_seq);
	/* Readers that see req_done >= their ticket find a copy at least this new. */
	mcfan_atomic_u64_store(&ms->req_done, req, memory_order_release);
}

void
mcfan_msacc_snapshot(const struct mcfan_msacc *ms, uint64_t now_tsc,
		struct mcfan_msacc_snap *out)
{
	struct mcfan_msacc_snap s;
	uint64_t ticket;
	unsigned int tries, spins = 0, i;

	if (ms == NULL || out == NULL)
		return;
	memset(&s, 0, sizeof(s));
	for (tries = 0; tries < MSACC_DIRECT_TRIES; tries++) {
		if (msacc_try_direct(ms, &s))
			goto done;
		rte_pause();
	}
	/*
	 * The owner writes faster than we can copy: ask it for a copy. req is
	 * the one field readers write; the block itself is not const memory.
	 */
	ticket = mcfan_atomic_u64_add((struct mcfan_atomic_u64 *)(uintptr_t)&ms->req, 1,
				      memory_order_acq_rel) + 1;
	for (;;) {
		if (mcfan_atomic_u64_load(&ms->req_done, memory_order_acquire) >= ticket &&
				msacc_try_pub(ms, &s))
			break;
		/* An owner that has stopped writing (asleep, finished) never publishes. */
		if (msacc_try_direct(ms, &s))
			break;
		if (++spins < MSACC_SNAP_SPINS) {
			rte_pause();
		} else {
			/* The owner may have been preempted on our CPU: let it run. */
			spins = 0;
			sched_yield();
		}
	}
done:
	if (s.state >= MCFAN_MS_MAX)
		s.state = MCFAN_MS_OTHER;
	/* a paused block is frozen at its last change: no pending time is guessed */
	s.tsc = s.paused ? s.last_tsc : RTE_MAX(now_tsc, s.last_tsc);
	s.pending = s.tsc - s.last_tsc;
	s.cycles[s.state] += s.pending;
	s.start_tsc = s.init_tsc;
	for (i = 0; i < MCFAN_MS_MAX; i++)
		s.wait_adj[i] = __atomic_load_n(&ms->wait_adj[i], __ATOMIC_RELAXED);
	*out = s;
}

void
mcfan_msacc_set_wait(struct mcfan_msacc *ms, const uint64_t *adj)
{
	unsigned int i;

	if (ms == NULL || adj == NULL)
		return;
	for (i = 0; i < MCFAN_MS_MAX; i++)
		__atomic_store_n(&ms->wait_adj[i], i == MCFAN_MS_WAIT_CPU ? 0 : adj[i],
				 __ATOMIC_RELAXED);
}

void
mcfan_msacc_snap_apply_wait(struct mcfan_msacc_snap *snap)
{
	uint64_t a;
	unsigned int i;

	if (snap == NULL)
		return;
	for (i = 0; i < MCFAN_MS_MAX; i++) {
		if (i == MCFAN_MS_WAIT_CPU)
			continue;
		a = RTE_MIN(snap->wait_adj[i], snap->cycles[i]);
		snap->cycles[i] -= a;
		snap->cycles[MCFAN_MS_WAIT_CPU] += a;
		snap->wait_adj[i] = 0;
	}
}

uint64_t
mcfan_msacc_snap_wall(const struct mcfan_msacc_snap *snap)
{
	if (snap == NULL || snap->tsc < snap->start_tsc)
		return 0;
	return snap->tsc - snap->start_tsc;
}

/* Whether base is an earlier snapshot of the same epoch as now. */
static int
msacc_base_usable(const struct mcfan_msacc_snap *now, const struct mcfan_msacc_snap *base)
{
	unsigned int i;

	if (base == NULL || base->init_tsc != now->init_tsc || base->seq > now->seq ||
			base->last_tsc > now->last_tsc || base->state >= MCFAN_MS_MAX)
		return 0;
	/* Raw cycles (without the base's guessed pending part) never decrease. */
	for (i = 0; i < MCFAN_MS_MAX; i++) {
		uint64_t raw = base->cycles[i] - (i == base->state ? base->pending : 0);

		if (raw > now->cycles[i])
			return 0;
	}
	for (i = 0; i < MCFAN_MSACC_HIST_BUCKETS; i++)
		if (base->hist[i] > now->hist[i])
			return 0;
	return base->polls <= now->polls && base->polls_work <= now->polls_work &&
		base->frames <= now->frames && base->sleeps <= now->sleeps &&
		base->wakeups <= now->wakeups;
}

void
mcfan_msacc_diff(const struct mcfan_msacc_snap *now, const struct mcfan_msacc_snap *base,
		struct mcfan_msacc_snap *out)
{
	struct mcfan_msacc_snap r;
	unsigned int i;

	if (now == NULL || out == NULL)
		return;
	r = *now;
	if (!msacc_base_usable(now, base)) {
		*out = r;
		return;
	}
	/*
	 * The base charged its pending cycles (last_tsc .. tsc) to its state by
	 * guess; the lcore may later have charged that interval elsewhere. Start
	 * the window at the base's last real state change instead, so that only
	 * real charges are subtracted: exact and never negative.
	 */
	for (i = 0; i < MCFAN_MS_MAX; i++)
		r.cycles[i] = now->cycles[i] - base->cycles[i] +
			(i == base->state ? base->pending : 0);
	for (i = 0; i < MCFAN_MSACC_HIST_BUCKETS; i++)
		r.hist[i] = now->hist[i] - base->hist[i];
	r.polls = now->polls - base->polls;
	r.polls_work = now->polls_work - base->polls_work;
	r.frames = now->frames - base->frames;
	r.sleeps = now->sleeps - base->sleeps;
	r.wakeups = now->wakeups - base->wakeups;
	for (i = 0; i < MCFAN_MS_MAX; i++)
		r.wait_adj[i] = now->wait_adj[i] >= base->wait_adj[i] ?
				now->wait_adj[i] - base->wait_adj[i] : 0;
	r.start_tsc = base->last_tsc;
	*out = r;
}

/* ---------------------------------------------------------------------------------------------
 * Windows.
 */

void
mcfan_msacc_window_init(struct mcfan_msacc_window *w)
{
	if (w == NULL)
		return;
	memset(w, 0, sizeof(*w));
	rte_spinlock_init(&w->lock);
	w->mode = MCFAN_MSACC_WIN_CONTINUOUS;
}

/* Drop baselines and results; lock held. */
static void
window_clear(struct mcfan_msacc_window *w, uint32_t mode, uint64_t start_tsc)
{
	memset(w->base_set, 0, sizeof(w->base_set));
	memset(w->result_set, 0, sizeof(w->result_set));
	w->mode = mode;
	w->frozen = 0;
	w->start_tsc = start_tsc;
	w->end_tsc = 0;
	w->frozen_tsc = 0;
}

void
mcfan_msacc_window_continuous(struct mcfan_msacc_window *w)
{
	if (w == NULL)
		return;
	rte_spinlock_lock(&w->lock);
	window_clear(w, MCFAN_MSACC_WIN_CONTINUOUS, 0);
	rte_spinlock_unlock(&w->lock);
}

/* Take a baseline of every lcore; lock held. */
static void
window_baseline(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc)
{
	unsigned int i;

	for (i = 0; i < nb_lcores; i++) {
		if (ms[i] == NULL)
			continue;
		mcfan_msacc_snapshot(ms[i], now_tsc, &w->base[i]);
		mcfan_bits_set(w->base_set, i);
	}
}

/* The window of lcore i now; lock held. */
static void
window_lcore(const struct mcfan_msacc_window *w, const struct mcfan_msacc *ms, unsigned int i,
		uint64_t now_tsc, struct mcfan_msacc_snap *out)
{
	struct mcfan_msacc_snap now;
	const struct mcfan_msacc_snap *base = NULL;

	mcfan_msacc_snapshot(ms, now_tsc, &now);
	if (w->mode != MCFAN_MSACC_WIN_CONTINUOUS && mcfan_bits_test(w->base_set, i))
		base = &w->base[i];
	mcfan_msacc_diff(&now, base, out);
}

int
mcfan_msacc_window_reset(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc)
{
	if (w == NULL || ms == NULL || nb_lcores > MCFAN_MSACC_MAX_LCORES)
		return -EINVAL;
	rte_spinlock_lock(&w->lock);
	window_clear(w, MCFAN_MSACC_WIN_RESET, now_tsc);
	window_baseline(w, ms, nb_lcores, now_tsc);
	rte_spinlock_unlock(&w->lock);
	return 0;
}

int
mcfan_msacc_window_start(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc, uint64_t length_ms, uint64_t tsc_hz)
{
	uint64_t length;

	if (w == NULL || ms == NULL || nb_lcores > MCFAN_MSACC_MAX_LCORES || length_ms == 0 ||
			tsc_hz == 0 || length_ms > UINT64_MAX / tsc_hz)
		return -EINVAL;
	length = length_ms * tsc_hz / MSACC_MS_PER_S;
	if (length == 0)
		length = 1;
	if (now_tsc > UINT64_MAX - length)
		return -EINVAL;
	rte_spinlock_lock(&w->lock);
	window_clear(w, MCFAN_MSACC_WIN_TIMED, now_tsc);
	w->end_tsc = now_tsc + length;
	window_baseline(w, ms, nb_lcores, now_tsc);
	rte_spinlock_unlock(&w->lock);
	return 0;
}

/* Freeze a due timed window; lock held. Returns 1 if it froze now, 0 if not, -EINVAL. */
static int
window_tick_locked(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc)
{
	unsigned int i;

	if (w->mode != MCFAN_MSACC_WIN_TIMED || w->frozen || now_tsc < w->end_tsc)
		return 0;
	if (ms == NULL || nb_lcores > MCFAN_MSACC_MAX_LCORES)
		return -EINVAL;
	memset(w->result_set, 0, sizeof(w->result_set));
	for (i = 0; i < nb_lcores; i++) {
		if (ms[i] == NULL)
			continue;
		window_lcore(w, ms[i], i, now_tsc, &w->result[i]);
		mcfan_bits_set(w->result_set, i);
	}
	w->frozen = 1;
	w->frozen_tsc = now_tsc;
	return 1;
}

int
mcfan_msacc_window_tick(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc)
{
	int ret;

	if (w == NULL)
		return -EINVAL;
	rte_spinlock_lock(&w->lock);
	ret = window_tick_locked(w, ms, nb_lcores, now_tsc);
	rte_spinlock_unlock(&w->lock);
	return ret;
}

/* Rows of a frozen window; lock held. */
static int
window_rows_frozen(const struct mcfan_msacc_window *w, struct mcfan_msacc_row *rows,
		unsigned int max_rows)
{
	unsigned int i, n = 0;

	for (i = 0; i < MCFAN_MSACC_MAX_LCORES; i++)
		n += mcfan_bits_test(w->result_set, i);
	if (n > max_rows)
		return -ENOSPC;
	n = 0;
	for (i = 0; i < MCFAN_MSACC_MAX_LCORES; i++) {
		if (!mcfan_bits_test(w->result_set, i))
			continue;
		rows[n].lcore_id = i;
		rows[n].role = w->result[i].role;
		rows[n].snap = w->result[i];
		mcfan_msacc_snap_apply_wait(&rows[n].snap);
		n++;
	}
	return (int)n;
}

/* Rows of a live window; lock held. */
static int
window_rows_live(const struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc, struct mcfan_msacc_row *rows,
		unsigned int max_rows)
{
	unsigned int i, n = 0;

	for (i = 0; i < nb_lcores; i++)
		n += ms[i] != NULL;
	if (n > max_rows)
		return -ENOSPC;
	n = 0;
	for (i = 0; i < nb_lcores; i++) {
		if (ms[i] == NULL)
			continue;
		window_lcore(w, ms[i], i, now_tsc, &rows[n].snap);
		mcfan_msacc_snap_apply_wait(&rows[n].snap);
		rows[n].lcore_id = i;
		rows[n].role = rows[n].snap.role;
		n++;
	}
	return (int)n;
}

int
mcfan_msacc_window_collect(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc, struct mcfan_msacc_row *rows,
		unsigned int max_rows)
{
	int ret;

	if (w == NULL || (rows == NULL && max_rows > 0) || nb_lcores > MCFAN_MSACC_MAX_LCORES)
		return -EINVAL;
	rte_spinlock_lock(&w->lock);
	ret = window_tick_locked(w, ms, nb_lcores, now_tsc);
	if (ret >= 0) {
		if (w->frozen)
			ret = window_rows_frozen(w, rows, max_rows);
		else if (ms == NULL)
			ret = -EINVAL;
		else
			ret = window_rows_live(w, ms, nb_lcores, now_tsc, rows, max_rows);
	}
	rte_spinlock_unlock(&w->lock);
	return ret;
}

int
mcfan_msacc_window_info(struct mcfan_msacc_window *w, uint64_t now_tsc,
		struct mcfan_msacc_window_info *out)
{
	if (w == NULL || out == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	rte_spinlock_lock(&w->lock);
	out->mode = w->mode;
	out->frozen = w->frozen;
	out->start_tsc = w->start_tsc;
	if (w->mode == MCFAN_MSACC_WIN_TIMED) {
		out->end_tsc = w->end_tsc;
		if (!w->frozen && w->end_tsc > now_tsc)
			out->remaining = w->end_tsc - now_tsc;
	}
	rte_spinlock_unlock(&w->lock);
	return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Aggregation.
 */

static inline int
state_is_busy(unsigned int s)
{
	return s != MCFAN_MS_POLL_EMPTY && s != MCFAN_MS_SLEEP;
}

/* Add one window into an accumulator. */
static void
stats_accumulate(struct mcfan_msacc_stats *st, const struct mcfan_msacc_snap *snap)
{
	unsigned int i;

	st->wall_cycles += mcfan_msacc_snap_wall(snap);
	for (i = 0; i < MCFAN_MS_MAX; i++)
		st->cycles[i] += snap->cycles[i];
	for (i = 0; i < MCFAN_MSACC_HIST_BUCKETS; i++)
		st->hist[i] += snap->hist[i];
	st->polls += snap->polls;
	st->polls_work += snap->polls_work;
	st->frames += snap->frames;
	st->sleeps += snap->sleeps;
	st->wakeups += snap->wakeups;
	st->nb_lcores++;
}

/* Derive percentages and ratios from the accumulated sums, in double. */
static void
stats_finish(struct mcfan_msacc_stats *st)
{
	double wall = (double)st->wall_cycles;
	unsigned int i;

	st->busy_cycles = 0;
	for (i = 0; i < MCFAN_MS_MAX; i++)
		if (state_is_busy(i))
			st->busy_cycles += st->cycles[i];
	for (i = 0; i < MCFAN_MS_MAX; i++)
		st->pct[i] = st->wall_cycles > 0 ? MSACC_PCT * (double)st->cycles[i] / wall : 0.0;
	st->busy_pct = st->wall_cycles > 0 ? MSACC_PCT * (double)st->busy_cycles / wall : 0.0;
	st->empty_poll_pct = st->polls > 0 ?
		MSACC_PCT * (double)(st->polls - st->polls_work) / (double)st->polls : 0.0;
	st->frames_per_poll = st->polls_work > 0 ?
		(double)st->frames / (double)st->polls_work : 0.0;
	st->cycles_per_frame = st->frames > 0 ?
		(double)st->busy_cycles / (double)st->frames : 0.0;
}

int
mcfan_msacc_stats(const struct mcfan_msacc_snap *snap, struct mcfan_msacc_stats *out)
{
	if (snap == NULL || out == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	stats_accumulate(out, snap);
	out->role = snap->role;
	stats_finish(out);
	return 0;
}

int
mcfan_msacc_stats_by_role(const struct mcfan_msacc_row *rows, unsigned int nb_rows,
		struct mcfan_msacc_stats *out)
{
	unsigned int i;
	int t;

	if (out == NULL || (rows == NULL && nb_rows > 0))
		return -EINVAL;
	memset(out, 0, sizeof(*out) * MCFAN_ROLE_TYPE_MAX);
	for (i = 0; i < MCFAN_ROLE_TYPE_MAX; i++)
		out[i].role = type_roles[i];
	for (i = 0; i < nb_rows; i++) {
		t = mcfan_role_type(rows[i].role);
		if (t < 0)
			continue;
		stats_accumulate(&out[t], &rows[i].snap);
	}
	for (i = 0; i < MCFAN_ROLE_TYPE_MAX; i++)
		stats_finish(&out[i]);
	return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Text.
 */

/** Append-only text buffer that remembers overflow. */
struct text {
	char *buf;
	size_t size;
	size_t len;
	int overflow;
};

static void __rte_format_printf(2, 3)
text_printf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	if (t->overflow)
		return;
	room = t->size - t->len;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		t->overflow = 1;
		t->len = t->size - 1;
		t->buf[t->len] = '\0';
		return;
	}
	t->len += (size_t)n;
}

/* The state header: role column title, then one name per shown column. */
static void
text_state_header(struct text *t, const char *first, const int *shown)
{
	unsigned int c;

	text_printf(t, "%*s %-*s", COL_LCORE, first, COL_ROLE, "role");
	for (c = 0; c < MCFAN_MS_MAX; c++)
		if (shown[c])
			text_printf(t, " %*s", COL_STATE, state_names[col_order[c]]);
	text_printf(t, "\n");
}

/* One row of percentages for the shown columns; "-" for an empty window. */
static void
text_state_row(struct text *t, const struct mcfan_msacc_stats *st, const int *shown)
{
	unsigned int c;

	for (c = 0; c < MCFAN_MS_MAX; c++) {
		if (!shown[c])
			continue;
		if (st->wall_cycles == 0)
			text_printf(t, " %*s", COL_STATE, "-");
		else
			text_printf(t, " %*.*f", COL_STATE, PCT_DECIMALS, st->pct[col_order[c]]);
	}
	text_printf(t, "\n");
}

static double
cycles_to_ms(uint64_t cycles, uint64_t tsc_hz)
{
	return (double)cycles * MSACC_MS_PER_S / (double)tsc_hz;
}

static void
text_header(struct text *t, const struct mcfan_msacc_row *rows, unsigned int nb_rows,
		uint64_t tsc_hz)
{
	uint64_t wall = 0;
	unsigned int i;

	for (i = 0; i < nb_rows; i++)
		wall = RTE_MAX(wall, mcfan_msacc_snap_wall(&rows[i].snap));
	if (tsc_hz > 0)
		text_printf(t, "msacc: window %.3f ms (%" PRIu64 " cycles at %" PRIu64
			" Hz), %u lcores\n", cycles_to_ms(wall, tsc_hz), wall, tsc_hz, nb_rows);
	else
		text_printf(t, "msacc: window %" PRIu64 " cycles (TSC rate unknown), %u lcores\n",
			wall, nb_rows);
}

static void
text_counters(struct text *t, const struct mcfan_msacc_row *rows, unsigned int nb_rows)
{
	struct mcfan_msacc_stats st;
	unsigned int i;

	text_printf(t, "Counters per lcore:\n");
	text_printf(t, "%*s %-*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s\n",
		COL_LCORE, "lcore", COL_ROLE, "role", COL_CYCLES, "wall_cycles",
		COL_CYCLES, "busy_cycles", COL_RATIO, "busy_%", COL_COUNT, "polls",
		COL_RATIO, "empty_%", COL_COUNT, "frames", COL_RATIO, "fr/poll",
		COL_RATIO, "cyc/fr", COL_COUNT, "sleeps", COL_COUNT, "wakeups");
	for (i = 0; i < nb_rows; i++) {
		mcfan_msacc_stats(&rows[i].snap, &st);
		text_printf(t, "%*u %-*s %*" PRIu64 " %*" PRIu64 " %*.*f %*" PRIu64
			" %*.*f %*" PRIu64 " %*.1f %*.1f %*" PRIu64 " %*" PRIu64 "\n",
			COL_LCORE, rows[i].lcore_id, COL_ROLE, mcfan_role_name(rows[i].role),
			COL_CYCLES, st.wall_cycles, COL_CYCLES, st.busy_cycles,
			COL_RATIO, PCT_DECIMALS, st.busy_pct, COL_COUNT, st.polls,
			COL_RATIO, PCT_DECIMALS, st.empty_poll_pct, COL_COUNT, st.frames,
			COL_RATIO, st.frames_per_poll, COL_RATIO, st.cycles_per_frame,
			COL_COUNT, st.sleeps, COL_COUNT, st.wakeups);
	}
}

static void
text_hist(struct text *t, const struct mcfan_msacc_row *rows, unsigned int nb_rows)
{
	unsigned int i, b;

	text_printf(t, "Non-empty polls by frames per poll:\n");
	text_printf(t, "%*s %-*s", COL_LCORE, "lcore", COL_ROLE, "role");
	for (b = 0; b < MCFAN_MSACC_HIST_BUCKETS; b++)
		text_printf(t, " %*s", COL_HIST, hist_labels[b]);
	text_printf(t, "\n");
	for (i = 0; i < nb_rows; i++) {
		text_printf(t, "%*u %-*s", COL_LCORE, rows[i].lcore_id, COL_ROLE,
			mcfan_role_name(rows[i].role));
		for (b = 0; b < MCFAN_MSACC_HIST_BUCKETS; b++)
			text_printf(t, " %*" PRIu64, COL_HIST, rows[i].snap.hist[b]);
		text_printf(t, "\n");
	}
}

int
mcfan_msacc_format_table(char *buf, size_t size, const struct mcfan_msacc_row *rows,
		unsigned int nb_rows, uint64_t tsc_hz, uint32_t flags)
{
	struct mcfan_msacc_stats st, types[MCFAN_ROLE_TYPE_MAX];
	struct text t = { .buf = buf, .size = size };
	int shown[MCFAN_MS_MAX];
	unsigned int i, c;

	if (buf == NULL || size == 0 || (rows == NULL && nb_rows > 0))
		return -EINVAL;
	if (size > INT_MAX)
		t.size = INT_MAX;
	buf[0] = '\0';
	if (flags == 0 || flags == MCFAN_MSACC_FMT_COMPACT)
		flags |= MCFAN_MSACC_FMT_DEFAULT;

	for (c = 0; c < MCFAN_MS_MAX; c++) {
		shown[c] = !(flags & MCFAN_MSACC_FMT_COMPACT) || nb_rows == 0;
		for (i = 0; i < nb_rows && !shown[c]; i++)
			shown[c] = rows[i].snap.cycles[col_order[c]] > 0;
	}

	text_header(&t, rows, nb_rows, tsc_hz);
	if (flags & MCFAN_MSACC_FMT_LCORES) {
		text_printf(&t, "Stats per lcore (%% of wall time):\n");
		text_state_header(&t, "lcore", shown);
		for (i = 0; i < nb_rows; i++) {
			mcfan_msacc_stats(&rows[i].snap, &st);
			text_printf(&t, "%*u %-*s", COL_LCORE, rows[i].lcore_id, COL_ROLE,
				mcfan_role_name(rows[i].role));
			text_state_row(&t, &st, shown);
		}
	}
	if (flags & MCFAN_MSACC_FMT_ROLES) {
		mcfan_msacc_stats_by_role(rows, nb_rows, types);
		text_printf(&t, "Stats per role (%% of summed wall time):\n");
		text_state_header(&t, "lcores", shown);
		for (i = 0; i < MCFAN_ROLE_TYPE_MAX; i++) {
			if (types[i].nb_lcores == 0)
				continue;
			text_printf(&t, "%*u %-*s", COL_LCORE, types[i].nb_lcores, COL_ROLE,
				type_names[i]);
			text_state_row(&t, &types[i], shown);
		}
	}
	if (flags & MCFAN_MSACC_FMT_COUNTERS)
		text_counters(&t, rows, nb_rows);
	if (flags & MCFAN_MSACC_FMT_HIST)
		text_hist(&t, rows, nb_rows);

	return t.overflow ? -ENOSPC : (int)t.len;
}
