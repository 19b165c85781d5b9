/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Feed quality, the control side (control/feed.h).
 *
 * Each counter slot with an extractor has a state (lib/feed) that exactly one worker writes:
 * the group's first target (partition: its worker; replicate: the first of its workers). A
 * binding (struct mcfan_feed_bind) names the state, the A/B arbitration if the group is a
 * line of a pair, and the worker; it is published with a release store into the slot's
 * entry of app->feed, and never changed: a change publishes a new binding. A replaced
 * binding and the state (or arbitration) it alone named cannot be freed while a worker may
 * still hold it: they are retired into a DPDK RCU defer queue (rte_rcu_qsbr_dq) on the
 * worker-step threads' QSBR variable (app->wqsbr, datapath/lcore.c: one quiescent state a
 * loop pass, offline while asleep), each with its token, and freed once every such thread
 * has passed a quiescent state since (reclaim(): non-blocking, rte_rcu_qsbr_check() without
 * waiting; the control side never waits for a worker). The tick reclaims, and so does an
 * action that needs room. The queue holds at most MCFAN_FEED_RETIRED_MAX objects awaiting
 * their grace period, a safety bound that a worker that keeps running (or sleeps) never
 * lets fill: an action that would overflow it is refused, saying that the objects wait for
 * a grace period. /mcfan/feed shows the objects waiting and those freed so far.
 *
 * The slot table below belongs to the actions and mcfan_feed_tick() (the action lock); the
 * read side copies it under ctl_lock, which every change also takes.
 *
 * `clear stats` (mcfan_feed_clear()) never writes a state: it keeps each state's counts at the
 * clear as its baseline here, and every read subtracts it, the reads of the states under
 * ctl_lock with the baselines (a clear in between would take the difference below zero). A
 * state bound after the clear has a zero baseline.
 *
 * /metrics' cap (--metrics-max-groups): a slot whose group gets an extractor takes a place
 * of its own while fewer than the cap have one, and keeps it while the group keeps an
 * extractor (set seq, set fanout give it a fresh state in the same place); without a place
 * its counts are summed under group="_other", and when such a state is replaced or removed
 * its counts since the clear are kept in that sum (struct mcfan_feed_gone), which so never
 * goes back but at a clear; /metrics reads the states without their baselines and a second
 * sum with all their counts (gone_start), which never goes back at all.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_rcu_qsbr.h>

#include "mcfan.h"
#include "mcfan_feed.h"
#include "mcfan_parse.h"
#include "log.h"
#include "control/action.h"
#include "control/feed.h"
#include "control/stats.h"

struct feed_slot {
	bool used;                      /* has an extractor */
	struct mcfan_flow_key key;
	struct mcfan_feed_spec spec;
	uint16_t owner;                 /* worker index */
	struct mcfan_feed_group *group;
	struct mcfan_feed_bind *bind;   /* published */
	int pair;                       /* index in pair[], or -1 */
	bool seen;                      /* the group in this slot was looked at by the tick */
	struct mcfan_flow_key seen_key;
	uint32_t join_seq;              /* seen: its membership (mcfan_group_entry join_seq) */
	bool warned;                    /* its kind's mismatch was logged (once a state) */
	bool own_series;                /* used: a place of its own on /metrics, else _other */
	struct mcfan_feed_counters base; /* used: its state's counts at the last clear */
	/* own_series: what the group's earlier states in this place counted (set seq, set
	 * fanout gave it fresh ones), which /metrics adds so that its series never go back */
	struct mcfan_feed_counters carry;
};

struct feed_rule {
	struct mcfan_flow_key *keys;
	unsigned int n;
	struct mcfan_feed_spec spec;
};

struct feed_pair {
	bool used;
	uint16_t slot[2];
	struct mcfan_feed_arb *arb;
	struct mcfan_feed_arb_counters base; /* its counts at the last clear */
};

enum retired_type { RETIRED_BIND, RETIRED_GROUP, RETIRED_ARB };

/* A group left since the last clear with a feed state: its results for the report's left
 * row (docs/feed.md "Left groups"). Its state is retired at the leave and may still be
 * written by its worker until the grace period is over: until the state is freed (reclaimed())
 * its counts are read from it, then from the copy made just before the free. */
struct feed_left {
	uint32_t join_seq;              /* the membership (mcfan_group_entry join_seq) */
	struct mcfan_feed_view view;    /* key, kind, lcore; c: the final counts once live is NULL */
	const struct mcfan_feed_group *live; /* its retired state until freed, else NULL */
	struct mcfan_feed_counters base; /* its slot's baseline at the leave (the last clear) */
	struct mcfan_feed_gap log[MCFAN_FEED_GAP_LOG]; /* live NULL: its gap log since the clear */
	unsigned int n_log;
};

/* An element of the defer queue (copied in and out of it: no alignment assumed). */
struct retired {
	void *p;
	uint32_t type; /* enum retired_type */
	uint32_t pad;  /* the queue's elements are a multiple of 4 bytes */
};

struct feed_ctl {
	struct mcfan_feed_table tab;    /* first: app->feed points here */
	struct mcfan_app *app;          /* for ctl_lock in reclaimed() */
	struct mcfan_feed_params params;
	struct feed_slot slot[MCFAN_MAX_GROUPS];
	struct feed_rule rules[MCFAN_SEQ_RULES_MAX];
	unsigned int n_rules;
	struct feed_pair pair[MCFAN_FEED_PAIRS_MAX];
	/* retired objects awaiting their grace period (see the top of this file); the action
	 * lock, the counts read by the read side (relaxed) */
	struct rte_rcu_qsbr_dq *dq;
	atomic_uint n_waiting;          /* in dq */
	atomic_ullong n_freed;          /* reclaimed from dq since the start */
	/* those dq had no room for (cannot happen but past a refused action's checks): freed
	 * at exit */
	struct retired *kept;
	unsigned int n_kept, kept_cap;
	atomic_uint n_kept_read;        /* n_kept, for the read side */
	bool retired_full_logged;
	bool lacked_room;               /* room() refused since follow_groups() last scanned */
	uint64_t next_check_tsc;        /* when mcfan_feed_tick() next looks for wrong kinds */
	uint32_t followed_gen;          /* app->group_entries_gen that follow_groups() saw */
	bool followed;                  /* followed_gen is set */
	unsigned int n_own;             /* used slots with a place of their own on /metrics */
	struct mcfan_feed_gone gone;    /* _other's states replaced or removed since the clear */
	/* the same since the start, all their counts (/metrics: never goes back) */
	struct mcfan_feed_gone gone_start;
	/* groups left since the clear that had a state, oldest leave first: [MCFAN_MAX_GROUPS],
	 * allocated at the first such leave; changed under ctl_lock (the read side's lock) */
	struct feed_left *left;
	unsigned int n_left;
};

/* The counts of struct mcfan_feed_counters, besides gap_hist: what a clear starts from zero
 * (pending and jitter_ns are levels, as they are now). */
static const size_t count_off[] = {
	offsetof(struct mcfan_feed_counters, datagrams),
	offsetof(struct mcfan_feed_counters, expected),
	offsetof(struct mcfan_feed_counters, received),
	offsetof(struct mcfan_feed_counters, lost),
	offsetof(struct mcfan_feed_counters, reordered),
	offsetof(struct mcfan_feed_counters, late),
	offsetof(struct mcfan_feed_counters, duplicates),
	offsetof(struct mcfan_feed_counters, gaps),
	offsetof(struct mcfan_feed_counters, resets),
	offsetof(struct mcfan_feed_counters, sessions),
	offsetof(struct mcfan_feed_counters, ends),
	offsetof(struct mcfan_feed_counters, heartbeats),
	offsetof(struct mcfan_feed_counters, malformed),
	offsetof(struct mcfan_feed_counters, gap_log_total),
};

/* dst's counts plus (add) or minus src's; its levels untouched. */
static void
counts_fold(struct mcfan_feed_counters *dst, const struct mcfan_feed_counters *src, bool add)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(count_off); i++) {
		uint64_t *d = RTE_PTR_ADD(dst, count_off[i]);
		const uint64_t *v = RTE_PTR_ADD(src, count_off[i]);

		*d = add ? *d + *v : *d - *v;
	}
	for (i = 0; i < MCFAN_FEED_GAP_BUCKETS; i++)
		dst->gap_hist[i] = add ? dst->gap_hist[i] + src->gap_hist[i] :
			dst->gap_hist[i] - src->gap_hist[i];
}

/* The baseline of counters c at a clear: their counts, but for the numbers pending then,
 * which count as expected after the clear (they settle after it: received, or lost). */
static void
counts_base(struct mcfan_feed_counters *base, const struct mcfan_feed_counters *c)
{
	memset(base, 0, sizeof(*base));
	counts_fold(base, c, true);
	base->expected -= RTE_MIN(c->pending, c->expected);
}

/* State g's counters since its baseline base into c, and up to max gap events since then
 * into log (oldest first); returns the events written. ctl_lock held (the baseline with the
 * read). */
static unsigned int
state_counters(const struct mcfan_feed_group *g, const struct mcfan_feed_counters *base,
	       struct mcfan_feed_counters *c, struct mcfan_feed_gap *log, unsigned int max)
{
	int n = mcfan_feed_group_read(g, c, log, max);
	unsigned int k = n < 0 ? 0 : (unsigned int)n;

	counts_fold(c, base, false);
	if (c->gap_log_total < k) {
		/* the older events were logged before the clear */
		memmove(log, log + (k - c->gap_log_total), c->gap_log_total * sizeof(*log));
		k = (unsigned int)c->gap_log_total;
	}
	return k;
}

/* Slot s's counters since the clear, as state_counters(). ctl_lock held. */
static unsigned int
slot_counters(const struct feed_slot *s, struct mcfan_feed_counters *c,
	      struct mcfan_feed_gap *log, unsigned int max)
{
	return state_counters(s->group, &s->base, c, log, max);
}

static struct feed_ctl *
ctl_of(const struct mcfan_app *app)
{
	return app->feed == NULL ? NULL : container_of(app->feed, struct feed_ctl, tab);
}

static void
free_one(void *p, uint32_t type)
{
	if (type == RETIRED_GROUP)
		mcfan_feed_group_free(p);
	else if (type == RETIRED_ARB)
		mcfan_feed_arb_free(p);
	else
		free(p);
}

/* State g is about to be freed: the left groups that read their counts from it keep its
 * final counts and gap log (its worker no longer holds it: its grace period is over). Takes
 * ctl_lock, so the caller must not hold it (reclaim() is never called under it). */
static void
left_final(struct feed_ctl *c, const struct mcfan_feed_group *g)
{
	unsigned int i;

	for (i = 0; i < c->n_left; i++) {
		struct feed_left *l = &c->left[i];

		if (l->live != g)
			continue;
		mcfan_ctl_state_lock(c->app);
		l->n_log = state_counters(g, &l->base, &l->view.c, l->log, RTE_DIM(l->log));
		l->live = NULL;
		mcfan_ctl_state_unlock(c->app);
	}
}

/* The defer queue's free function (rte_rcu_qsbr_free_resource_t): n elements at e, whose
 * grace period is over. Called by rte_rcu_qsbr_dq_reclaim() (reclaim()), and at exit. */
static void
reclaimed(void *p, void *e, unsigned int n)
{
	struct feed_ctl *c = p;
	struct retired r;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memcpy(&r, RTE_PTR_ADD(e, i * sizeof(r)), sizeof(r)); /* e: maybe unaligned */
		if (r.type == RETIRED_GROUP)
			left_final(c, r.p); /* a left group's final counts, before the state goes */
		free_one(r.p, r.type);
	}
	atomic_fetch_sub_explicit(&c->n_waiting, n, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->n_freed, n, memory_order_relaxed);
}

/* Free the retired objects whose grace period is over; never waits. Action lock. */
static void
reclaim(struct feed_ctl *c)
{
	if (c->dq != NULL && atomic_load_explicit(&c->n_waiting, memory_order_relaxed) != 0)
		(void)rte_rcu_qsbr_dq_reclaim(c->dq, UINT_MAX, NULL, NULL, NULL);
}

/* Room to retire n more objects? Reclaims first if there is not. Action lock. */
static bool
room(struct feed_ctl *c, unsigned int n)
{
	unsigned int w = atomic_load_explicit(&c->n_waiting, memory_order_relaxed);

	if (w + n <= MCFAN_FEED_RETIRED_MAX)
		return true;
	reclaim(c);
	w = atomic_load_explicit(&c->n_waiting, memory_order_relaxed);
	if (w + n <= MCFAN_FEED_RETIRED_MAX)
		return true;
	c->lacked_room = true;
	return false;
}

static unsigned int
mcfan_feed_waiting(const struct feed_ctl *c)
{
	return atomic_load_explicit(&c->n_waiting, memory_order_relaxed);
}

/* Keep p until exit: the defer queue had no room (room() was not asked, or lied). */
static void
keep(struct feed_ctl *c, void *p, enum retired_type type)
{
	struct retired *k;
	unsigned int cap;

	if (!c->retired_full_logged)
		MCFAN_LOG(WARNING, "feed: %d replaced states wait for a grace period of the worker "
			  "lcores; further ones are kept until exit\n", MCFAN_FEED_RETIRED_MAX);
	c->retired_full_logged = true;
	if (c->n_kept == c->kept_cap) {
		cap = c->kept_cap == 0 ? 64 : 2 * c->kept_cap;
		k = realloc(c->kept, cap * sizeof(*k));
		if (k == NULL)
			return; /* out of memory: p is lost, never freed while a worker may hold it */
		c->kept = k;
		c->kept_cap = cap;
	}
	c->kept[c->n_kept].p = p;
	c->kept[c->n_kept].type = type;
	c->n_kept++;
	atomic_store_explicit(&c->n_kept_read, c->n_kept, memory_order_relaxed);
}

/* Retire p (NULL: nothing): freed after the grace period that starts now. Action lock. */
static void
retire(struct feed_ctl *c, void *p, enum retired_type type)
{
	struct retired r = { .p = p, .type = type };

	if (p == NULL)
		return;
	if (c->dq == NULL || !room(c, 1) || rte_rcu_qsbr_dq_enqueue(c->dq, &r) != 0) {
		keep(c, p, type);
		return;
	}
	atomic_fetch_add_explicit(&c->n_waiting, 1, memory_order_relaxed);
}

/* Publish slot id's binding (NULL: none); retire the old one. Under the action lock. */
static int
publish(struct mcfan_app *app, struct feed_ctl *c, uint16_t id, struct mcfan_feed_group *g,
	struct mcfan_feed_arb *arb, uint8_t line, uint16_t owner)
{
	struct feed_slot *s = &c->slot[id];
	struct mcfan_feed_bind *b = NULL, *old = s->bind;

	if (g != NULL || arb != NULL) {
		b = calloc(1, sizeof(*b));
		if (b == NULL)
			return -ENOMEM;
		b->group = g;
		b->arb = arb;
		b->line = line;
		b->owner = owner;
	}
	mcfan_ctl_state_lock(app);
	atomic_store_explicit(&c->tab.slot[id], b, memory_order_release);
	if (old == NULL && b != NULL)
		atomic_fetch_add_explicit(&c->tab.bound, 1, memory_order_relaxed);
	else if (old != NULL && b == NULL)
		atomic_fetch_sub_explicit(&c->tab.bound, 1, memory_order_relaxed);
	s->bind = b;
	mcfan_ctl_state_unlock(app);
	retire(c, old, RETIRED_BIND);
	return 0;
}

/* Dissolve pair p: both lines go on alone. */
static void
unpair(struct mcfan_app *app, struct feed_ctl *c, int p)
{
	struct feed_pair *fp;
	unsigned int l;

	if (p < 0) /* not paired: no index into c->pair (UBSan: index -1) */
		return;
	fp = &c->pair[p];
	if (!fp->used)
		return;
	for (l = 0; l < 2; l++) {
		struct feed_slot *s = &c->slot[fp->slot[l]];

		s->pair = -1;
		if (publish(app, c, fp->slot[l], s->used ? s->group : NULL, NULL, 0, s->owner) < 0)
			MCFAN_LOG(WARNING, "feed: out of memory while dissolving a pair\n");
	}
	mcfan_ctl_state_lock(app);
	fp->used = false;
	mcfan_ctl_state_unlock(app);
	retire(c, fp->arb, RETIRED_ARB);
	fp->arb = NULL;
}

/* Slot s's place on /metrics as it gets a state for group k (bound false: none); the counts
 * of a replaced state without a place stay in _other. ctl_lock held. */
static void
place(const struct mcfan_app *app, struct feed_ctl *c, struct feed_slot *s,
      const struct mcfan_flow_key *k, bool bound)
{
	struct mcfan_feed_counters now;

	if (s->used && !s->own_series) {
		slot_counters(s, &now, NULL, 0);
		counts_fold(&c->gone.c, &now, true);
		c->gone.states++;
		(void)mcfan_feed_group_read(s->group, &now, NULL, 0);
		counts_fold(&c->gone_start.c, &now, true);
		c->gone_start.states++;
	}
	if (s->used && bound && mcfan_flow_key_equal(&s->key, k)) {
		/* the same group, a fresh state (set seq, set fanout): its place stays, and its
		 * series go on from what the old state counted */
		if (s->own_series) {
			(void)mcfan_feed_group_read(s->group, &now, NULL, 0);
			counts_fold(&s->carry, &now, true);
		}
		return;
	}
	memset(&s->carry, 0, sizeof(s->carry)); /* another group, or none: from zero */
	if (s->used && s->own_series)
		c->n_own--;
	s->own_series = bound && c->n_own < app->cfg.metrics_max_groups;
	c->n_own += s->own_series;
}

/* Give slot id a fresh state of spec on worker owner (kind off: none). */
static int
bind_slot(struct mcfan_app *app, struct feed_ctl *c, uint16_t id, const struct mcfan_flow_key *k,
	  const struct mcfan_feed_spec *spec, uint16_t owner)
{
	struct feed_slot *s = &c->slot[id];
	struct mcfan_feed_group *g = NULL, *old = s->group;
	int ret;

	unpair(app, c, s->pair);
	if (spec->kind != MCFAN_FEED_OFF) {
		g = mcfan_feed_group_create(spec, &c->params, owner);
		if (g == NULL)
			return -rte_errno;
	}
	ret = publish(app, c, id, g, NULL, 0, owner);
	if (ret < 0) {
		mcfan_feed_group_free(g);
		return ret;
	}
	mcfan_ctl_state_lock(app);
	place(app, c, s, k, g != NULL);
	s->used = g != NULL;
	s->key = *k;
	s->spec = *spec;
	s->owner = owner;
	s->group = g;
	s->warned = false;
	memset(&s->base, 0, sizeof(s->base)); /* a new state counts from zero */
	mcfan_ctl_state_unlock(app);
	retire(c, old, RETIRED_GROUP);
	return 0;
}

static const struct feed_rule *
match_rule(const struct feed_ctl *c, const struct mcfan_flow_key *k)
{
	unsigned int r, i;

	/* the last rule that names the group wins, as a later option does */
	for (r = c->n_rules; r > 0; r--)
		for (i = 0; i < c->rules[r - 1].n; i++)
			if (mcfan_flow_key_equal(&c->rules[r - 1].keys[i], k))
				return &c->rules[r - 1];
	return NULL;
}

/* Slot e->id holds a group new to it: drop what the slot had, bind the group's rule. */
static void
bind_new(struct mcfan_app *app, struct feed_ctl *c, const struct mcfan_group_entry *e)
{
	struct feed_slot *s = &c->slot[e->id];
	const struct feed_rule *r;
	char text[MCFAN_GROUP_STR_MAX];
	uint16_t owner = e->targets[0];

	if (s->used && !room(c, 3))
		return;
	if (s->used)
		bind_slot(app, c, e->id, &e->key, &(struct mcfan_feed_spec){0}, owner);
	s->seen = true;
	s->seen_key = e->key;
	s->join_seq = e->join_seq;
	r = match_rule(c, &e->key);
	if (r != NULL && room(c, 3) && bind_slot(app, c, e->id, &e->key, &r->spec, owner) < 0) {
		mcfan_group_format(&e->key, text, sizeof(text));
		MCFAN_LOG(WARNING, "feed: group %s: cannot create its state: %s\n", text,
			  rte_strerror(rte_errno));
	}
}

void
mcfan_feed_join(struct mcfan_app *app, const struct mcfan_group_entry *e, unsigned int n)
{
	struct feed_ctl *c = ctl_of(app);
	unsigned int i;

	if (c == NULL)
		return;
	/* also without rules: a state left on a reused slot goes now, not at the tick */
	for (i = 0; i < n; i++)
		bind_new(app, c, &e[i]);
}

static void pair_append(const struct feed_ctl *c, int p, char *buf, size_t len);
static void fill_view(const struct mcfan_app *app, const struct feed_slot *s, uint16_t id,
		      struct mcfan_feed_view *v);

/* Slot id's group was left with its state: keep a left row's results for it, read from the
 * state until it is freed (left_final()). At most MCFAN_MAX_GROUPS rows, as the report keeps
 * (control/stats.c): beyond, the oldest goes. Action lock. */
static void
left_keep(struct mcfan_app *app, struct feed_ctl *c, uint16_t id)
{
	struct feed_slot *s = &c->slot[id];
	struct feed_left *l, *arr = c->left;

	if (arr == NULL) {
		arr = calloc(MCFAN_MAX_GROUPS, sizeof(*arr));
		if (arr == NULL) {
			MCFAN_LOG(WARNING, "feed: out of memory: a left group's feed results are not "
				  "kept for the report\n");
			return;
		}
	}
	mcfan_ctl_state_lock(app);
	c->left = arr;
	if (c->n_left == MCFAN_MAX_GROUPS) {
		memmove(&c->left[0], &c->left[1], (c->n_left - 1) * sizeof(c->left[0]));
		c->n_left--;
	}
	l = &c->left[c->n_left++];
	memset(l, 0, sizeof(*l));
	l->join_seq = s->join_seq;
	fill_view(app, s, id, &l->view);
	l->view.pair = -1; /* its pair is dissolved with the leave */
	l->live = s->group;
	l->base = s->base;
	mcfan_ctl_state_unlock(app);
}

/* Follow the group table; the pairs a left or moved line dissolves are appended to gone
 * (pair_append(); NULL: not wanted). */
static void
follow_groups(struct mcfan_app *app, struct feed_ctl *c, char *gone, size_t gone_len)
{
	bool present[MCFAN_MAX_GROUPS];
	unsigned int i, id;

	/* The same entries as at the last scan, and no room() refused since it began (so that
	 * scan bound every slot it could): nothing to follow. Scanning the 1,024 slots each
	 * 10 ms tick was 7 % of the control lcore in the seed (docs/performance.md "The control
	 * lcore's tick, again"). A scan that lacked room is done again once the retired
	 * objects' grace period has freed some. */
	if (c->followed && c->followed_gen == app->group_entries_gen && !c->lacked_room)
		return;
	c->lacked_room = false;
	c->followed = true;
	c->followed_gen = app->group_entries_gen;
	memset(present, 0, sizeof(present));
	for (i = 0; i < app->n_group_entries; i++) {
		const struct mcfan_group_entry *e = &app->group_entries[i];
		struct feed_slot *s = &c->slot[e->id];
		uint16_t owner = e->targets[0];

		present[e->id] = true;
		if (!s->seen || !mcfan_flow_key_equal(&s->seen_key, &e->key)) {
			/* a group new in this slot (not through mcfan_feed_join()): its rule */
			bind_new(app, c, e);
		} else if (s->used && s->owner != owner && room(c, 4)) {
			/* set fanout moved it: a fresh state on its new worker */
			struct mcfan_feed_spec spec = s->spec;

			if (gone != NULL && s->pair >= 0 && c->pair[s->pair].used)
				pair_append(c, s->pair, gone, gone_len);
			bind_slot(app, c, e->id, &e->key, &spec, owner);
		}
	}
	for (id = 0; id < MCFAN_MAX_GROUPS; id++) {
		struct feed_slot *s = &c->slot[id];

		if (!s->seen || present[id])
			continue;
		s->seen = false; /* left */
		if (gone != NULL && s->used && s->pair >= 0 && c->pair[s->pair].used)
			pair_append(c, s->pair, gone, gone_len);
		if (s->used)
			left_keep(app, c, (uint16_t)id); /* its results for the report's left row */
		if (s->used && room(c, 3))
			bind_slot(app, c, (uint16_t)id, &s->key, &(struct mcfan_feed_spec){0},
				  s->owner);
	}
}

/* An arbitration's counters c since its baseline b; the largest skew since the clear is
 * unknown: at most the top of the highest bucket counted since (lib/feed's log2 buckets). */
static void
arb_since(struct mcfan_feed_arb_counters *c, const struct mcfan_feed_arb_counters *b)
{
	unsigned int l, sign, k, top;

	counts_fold(&c->merged, &b->merged, false);
	for (l = 0; l < 2; l++) {
		c->line[l].first_arrivals -= b->line[l].first_arrivals;
		c->line[l].arb_duplicates -= b->line[l].arb_duplicates;
		c->line[l].missed -= b->line[l].missed;
	}
	for (sign = 0; sign < 2; sign++) {
		for (k = 0, top = 0; k < MCFAN_FEED_SKEW_BUCKETS; k++) {
			c->skew_hist[sign][k] -= b->skew_hist[sign][k];
			if (c->skew_hist[sign][k] != 0)
				top = k + 1;
		}
		if (top < MCFAN_FEED_SKEW_BUCKETS)
			c->skew_max_ns[sign] = RTE_MIN(c->skew_max_ns[sign],
						       (UINT64_C(1) << top) - 1);
	}
}

const char *
mcfan_feed_suspect_line(const struct mcfan_feed_view *v, char *buf, size_t len)
{
	char text[MCFAN_GROUP_STR_MAX];

	mcfan_group_format(&v->key, text, sizeof(text));
	snprintf(buf, len, "warning: %s: %" PRIu64 " of %" PRIu64 " datagrams did not parse as %s "
		 "(malformed): is its --seq kind right?", text, v->c.malformed, v->c.datagrams,
		 v->kind);
	return buf;
}

int
mcfan_feed_ring_drop_notes(const struct mcfan_app *app, const struct mcfan_feed_view *v,
			   unsigned int n, const char *indent, FILE *f)
{
	char text[MCFAN_GROUP_STR_MAX];
	struct mcfan_group_view *gv;
	unsigned int i;
	int ng, j, said = 0;

	if (n == 0)
		return 0;
	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	if (gv == NULL)
		return -ENOMEM;
	ng = mcfan_groups_read(app, gv, MCFAN_MAX_GROUPS);
	for (i = 0; i < n && ng > 0; i++) {
		for (j = 0; j < ng; j++)
			if (mcfan_flow_key_equal(&gv[j].entry->key, &v[i].key))
				break;
		if (j == ng || gv[j].copy_drops == 0)
			continue;
		mcfan_group_format(&v[i].key, text, sizeof(text));
		fprintf(f, "%snote: %s: mcfan's full worker rings refused %" PRIu64 " copies of it "
			"(copy_drops): the feed is tracked after the ring, so those of its tracking "
			"worker count in lost here (or, at the tail, are not expected), not as the "
			"network's\n", indent, text, gv[j].copy_drops);
		said++;
	}
	free(gv);
	return ng < 0 ? ng : said;
}

void
mcfan_feed_pair_print(const struct mcfan_feed_pair_view *pv, const char *indent, FILE *f)
{
	char a[MCFAN_GROUP_STR_MAX], b[MCFAN_GROUP_STR_MAX];
	double q[2][2];
	unsigned int l, k;

	mcfan_group_format(&pv->key[0], a, sizeof(a));
	mcfan_group_format(&pv->key[1], b, sizeof(b));
	fprintf(f, "%spair %s / %s: merged expected %" PRIu64 " received %" PRIu64 " lost %"
		PRIu64 " late %" PRIu64 " pending %" PRIu64 " arbitration duplicates %" PRIu64
		"\n", indent, a, b, pv->c.merged.expected, pv->c.merged.received,
		pv->c.merged.lost, pv->c.merged.late, pv->c.merged.pending,
		pv->c.line[0].arb_duplicates + pv->c.line[1].arb_duplicates);
	for (l = 0; l < 2; l++)
		fprintf(f, "%s  line %c: first arrivals %" PRIu64 ", missed %" PRIu64 "\n", indent,
			l == 0 ? 'A' : 'B', pv->c.line[l].first_arrivals, pv->c.line[l].missed);
	/* both sides: hist 0 holds the numbers B brought later (B - A > 0), hist 1 those B
	 * brought earlier (B - A < 0, shown negative) */
	for (l = 0; l < 2; l++)
		for (k = 0; k < 2; k++)
			q[l][k] = (double)mcfan_feed_skew_quantile_ns(pv->c.skew_hist[l],
				pv->c.skew_max_ns[l], k == 0 ? 500 : 990) / 1000.0;
	fprintf(f, "%s  skew B-A: B later %" PRIu64 ": p50 %+.1f us, p99 %+.1f us; B earlier %"
		PRIu64 ": p50 %+.1f us, p99 %+.1f us\n", indent, pv->c.line[1].arb_duplicates,
		q[0][0], q[0][1], pv->c.line[0].arb_duplicates, q[1][0] == 0 ? 0.0 : -q[1][0],
		q[1][1] == 0 ? 0.0 : -q[1][1]);
}

/* Once a second: log each group whose kind does not match its stream, once a state. */
static void
check_kinds(struct mcfan_app *app, struct feed_ctl *c)
{
	struct mcfan_feed_view v;
	char line[MCFAN_CTL_MSG_MAX];
	uint64_t now = rte_rdtsc();
	unsigned int id;

	if (now < c->next_check_tsc)
		return;
	c->next_check_tsc = now + app->tsc_hz;
	for (id = 0; id < MCFAN_MAX_GROUPS; id++) {
		struct feed_slot *s = &c->slot[id];

		if (!s->used || s->warned)
			continue;
		fill_view(app, s, (uint16_t)id, &v);
		(void)mcfan_feed_group_read(s->group, &v.c, NULL, 0);
		if (!mcfan_feed_kind_suspect(&v.c))
			continue;
		s->warned = true;
		MCFAN_LOG(WARNING, "feed: %s\n", mcfan_feed_suspect_line(&v, line, sizeof(line)));
	}
}

void
mcfan_feed_follow(struct mcfan_app *app, char *gone, size_t len)
{
	struct feed_ctl *c = ctl_of(app);

	if (gone != NULL && len > 0)
		gone[0] = '\0';
	if (c != NULL)
		follow_groups(app, c, gone, len);
}

void
mcfan_feed_tick(struct mcfan_app *app)
{
	struct feed_ctl *c = ctl_of(app);

	if (c == NULL)
		return;
	reclaim(c); /* the retired objects whose grace period is over */
	follow_groups(app, c, NULL, 0);
	check_kinds(app, c);
}

/* Parse a group list; every group must be joined; ids[] receive their slots and owners[]
 * their designated workers. keys must hold MCFAN_MAX_GROUPS. */
static int
joined_slots(const struct mcfan_app *app, const char *what, const char *text,
	     struct mcfan_flow_key *keys, uint16_t *ids, uint16_t *owners, char *msg, size_t len)
{
	char err[CTL_ERR_MAX];
	unsigned int i;
	int j;
	int n;

	if (text == NULL || text[0] == '\0')
		return mcfan_err_set(msg, len, -EINVAL, "%s: give a group, e.g. 239.9.9.1:3999",
				     what);
	n = mcfan_group_parse_list(text, keys, MCFAN_MAX_GROUPS, err, sizeof(err));
	if (n < 0)
		return mcfan_err_set(msg, len, -EINVAL, "%s: %s", what, err);
	for (i = 0; i < (unsigned int)n; i++) {
		j = mcfan_group_entry_find(app->group_entries, app->n_group_entries, &keys[i]);
		if (j < 0) {
			/* naming the joined group of the address, as leave does */
			mcfan_group_not_joined(app->group_entries, app->n_group_entries, what,
					       &keys[i], msg, len);
			return -EINVAL;
		}
		ids[i] = app->group_entries[j].id;
		owners[i] = app->group_entries[j].targets[0];
	}
	return n;
}

/* Append pair p's name ("A,B"; " and " between two) to buf of len bytes (cut to fit). */
static void
pair_append(const struct feed_ctl *c, int p, char *buf, size_t len)
{
	char a[MCFAN_GROUP_STR_MAX], b[MCFAN_GROUP_STR_MAX];
	size_t used = strlen(buf);

	mcfan_group_format(&c->slot[c->pair[p].slot[0]].key, a, sizeof(a));
	mcfan_group_format(&c->slot[c->pair[p].slot[1]].key, b, sizeof(b));
	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s%s,%s", used > 0 ? " and " : "", a, b);
}

/* "lcore 2" or "lcores 2,3": the worker lcores of owners[0..n-1] (worker indexes), each
 * once, in worker order. */
static const char *
owner_lcores(const struct mcfan_app *app, const uint16_t *owners, unsigned int n, char *buf,
	     size_t len)
{
	char list[CTL_LIST_MAX] = "";
	unsigned int w, i, k = 0;
	size_t off = 0;

	for (w = 0; w < app->n_workers; w++) {
		for (i = 0; i < n && owners[i] != w; i++)
			;
		if (i == n)
			continue;
		if (off < sizeof(list))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%u",
						k == 0 ? "" : ",", app->worker_lcore_ids[w]);
		k++;
	}
	snprintf(buf, len, "lcore%s %s", k > 1 ? "s" : "", list);
	return buf;
}

int
mcfan_ctl_set_seq(struct mcfan_app *app, const char *groups, const char *kind, char *msg,
		  size_t len)
{
	struct feed_ctl *c = ctl_of(app);
	struct mcfan_flow_key *keys = NULL;
	uint16_t *ids = NULL, *owners = NULL;
	struct mcfan_feed_spec spec;
	char err[CTL_ERR_MAX], text[CTL_LIST_MAX], kt[MCFAN_FEED_SPEC_STR_MAX + 1];
	char gone[CTL_LIST_MAX] = "", wl[CTL_LIST_MAX];
	unsigned int i, n;
	int ret;

	mcfan_ctl_lock();
	if (c == NULL) {
		ret = mcfan_err_set(msg, len, -ENODEV, "set seq: the control side is not ready");
		goto out;
	}
	ret = mcfan_feed_spec_parse(kind, &spec, err, sizeof(err));
	if (ret < 0) {
		ret = mcfan_err_set(msg, len, ret, "set seq: %s", err);
		goto out;
	}
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	ids = calloc(MCFAN_MAX_GROUPS, sizeof(*ids));
	owners = calloc(MCFAN_MAX_GROUPS, sizeof(*owners));
	if (keys == NULL || ids == NULL || owners == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "set seq: out of memory");
		goto out;
	}
	ret = joined_slots(app, "set seq", groups, keys, ids, owners, msg, len);
	if (ret < 0)
		goto out;
	n = (unsigned int)ret;
	if (!room(c, 4 * n)) {
		ret = mcfan_err_set(msg, len, -ENOSPC, "set seq: %u replaced bindings and states "
				    "wait for a grace period of the worker lcores (at most %d): try "
				    "again once they have passed one", mcfan_feed_waiting(c),
				    MCFAN_FEED_RETIRED_MAX);
		goto out;
	}
	for (i = 0; i < n; i++) {
		/* a line of a pair: the pair goes with its state (bind_slot()); the reply says so */
		if (c->slot[ids[i]].pair >= 0 && c->pair[c->slot[ids[i]].pair].used)
			pair_append(c, c->slot[ids[i]].pair, gone, sizeof(gone));
		ret = bind_slot(app, c, ids[i], &keys[i], &spec, owners[i]);
		if (ret < 0) {
			ret = mcfan_err_set(msg, len, ret, "set seq: cannot create the state of "
					    "group %u of the list: %s", i + 1, strerror(-ret));
			goto out;
		}
		c->slot[ids[i]].seen = true;
		c->slot[ids[i]].seen_key = keys[i];
	}
	mcfan_group_format_list(keys, n, text, sizeof(text));
	mcfan_feed_spec_format(&spec, kt, sizeof(kt));
	if (spec.kind == MCFAN_FEED_OFF)
		ret = mcfan_err_set(msg, len, 0, "seq off for %s: no feed quality%s%s%s", text,
				    gone[0] != '\0' ? "; pair " : "", gone,
				    gone[0] != '\0' ? " dissolved" : "");
	else
		ret = mcfan_err_set(msg, len, 0, "seq %s for %s: counters from zero, tracked by "
				    "worker %s%s%s%s", kt, text,
				    owner_lcores(app, owners, n, wl, sizeof(wl)), gone[0] != '\0' ?
				    "; pair " : "", gone,
				    gone[0] != '\0' ? " dissolved (set pair again)" : "");
out:
	free(keys);
	free(ids);
	free(owners);
	mcfan_ctl_unlock();
	return ret;
}

static int
set_pair_locked(struct mcfan_app *app, struct feed_ctl *c, const char *groups, char *msg,
		size_t len)
{
	struct mcfan_flow_key keys[MCFAN_MAX_GROUPS];
	uint16_t ids[MCFAN_MAX_GROUPS], owners[MCFAN_MAX_GROUPS];
	char a[MCFAN_GROUP_STR_MAX], b[MCFAN_GROUP_STR_MAX], kt[MCFAN_FEED_SPEC_STR_MAX + 1];
	char kb[MCFAN_FEED_SPEC_STR_MAX + 1];
	struct feed_slot *sa, *sb;
	struct mcfan_feed_arb *arb;
	unsigned int p, l;
	int ret;

	ret = joined_slots(app, "set pair", groups, keys, ids, owners, msg, len);
	if (ret < 0)
		return ret;
	if (ret != 2 || ids[0] == ids[1])
		return mcfan_err_set(msg, len, -EINVAL, "set pair: '%.*s' is not two groups (line "
				     "A,line B)", CTL_LIST_MAX, groups);
	mcfan_group_format(&keys[0], a, sizeof(a));
	mcfan_group_format(&keys[1], b, sizeof(b));
	sa = &c->slot[ids[0]];
	sb = &c->slot[ids[1]];
	if (!sa->used || !sb->used)
		return mcfan_err_set(msg, len, -EINVAL, "set pair: group %s has no sequence "
				     "extractor (set seq first)", !sa->used ? a : b);
	if (memcmp(&sa->spec, &sb->spec, sizeof(sa->spec)) != 0) {
		/* the kinds named, as --seq-pair names them (rtp and rtp:48000 differ too) */
		mcfan_feed_spec_format(&sa->spec, kt, sizeof(kt));
		mcfan_feed_spec_format(&sb->spec, kb, sizeof(kb));
		return mcfan_err_set(msg, len, -EINVAL, "set pair: line A %s is %s and line B %s "
				     "is %s: both lines of a pair carry one kind (set seq)", a, kt,
				     b, kb);
	}
	if (sa->spec.kind == MCFAN_FEED_MPEGTS)
		return mcfan_err_set(msg, len, -EINVAL, "set pair: mpegts has no sequence space "
				     "across PIDs to arbitrate");
	if (sa->owner != sb->owner)
		return mcfan_err_set(msg, len, -EXDEV, "set pair: %s is tracked by worker lcore "
				     "%u and %s by %u: join both lines to one worker (join ... "
				     "workers N)", a, app->worker_lcore_ids[sa->owner], b,
				     app->worker_lcore_ids[sb->owner]);
	if (sa->pair >= 0 || sb->pair >= 0)
		return mcfan_err_set(msg, len, -EINVAL, "set pair: %s is in a pair already",
				     sa->pair >= 0 ? a : b);
	for (p = 0; p < MCFAN_FEED_PAIRS_MAX && c->pair[p].used; p++)
		;
	if (p == MCFAN_FEED_PAIRS_MAX)
		return mcfan_err_set(msg, len, -ENOSPC, "set pair: %d pairs already",
				     MCFAN_FEED_PAIRS_MAX);
	if (!room(c, 4))
		return mcfan_err_set(msg, len, -ENOSPC, "set pair: %u replaced bindings and states "
				     "wait for a grace period of the worker lcores (at most %d): try "
				     "again once they have passed one", mcfan_feed_waiting(c),
				     MCFAN_FEED_RETIRED_MAX);
	arb = mcfan_feed_arb_create(&sa->spec, &c->params, sa->owner);
	if (arb == NULL)
		return mcfan_err_set(msg, len, -rte_errno, "set pair: %s", rte_strerror(rte_errno));
	for (l = 0; l < 2; l++) {
		struct feed_slot *s = &c->slot[ids[l]];

		ret = publish(app, c, ids[l], s->group, arb, (uint8_t)l, s->owner);
		if (ret < 0)
			return mcfan_err_set(msg, len, ret, "set pair: out of memory");
		s->pair = (int)p;
	}
	mcfan_ctl_state_lock(app);
	c->pair[p].used = true;
	c->pair[p].slot[0] = ids[0];
	c->pair[p].slot[1] = ids[1];
	c->pair[p].arb = arb;
	memset(&c->pair[p].base, 0, sizeof(c->pair[p].base));
	mcfan_ctl_state_unlock(app);
	return mcfan_err_set(msg, len, 0, "pair: line A %s, line B %s (%s), arbitrated by worker "
			     "lcore %u", a, b, mcfan_feed_spec_format(&sa->spec, kt, sizeof(kt)),
			     app->worker_lcore_ids[sa->owner]);
}

int
mcfan_ctl_set_pair(struct mcfan_app *app, const char *groups, char *msg, size_t len)
{
	struct feed_ctl *c = ctl_of(app);
	int ret;

	mcfan_ctl_lock();
	if (c == NULL)
		ret = mcfan_err_set(msg, len, -ENODEV, "set pair: the control side is not ready");
	else
		ret = set_pair_locked(app, c, groups, msg, len);
	mcfan_ctl_unlock();
	return ret;
}

static void
free_rules(struct feed_ctl *c)
{
	unsigned int r;

	for (r = 0; r < c->n_rules; r++)
		free(c->rules[r].keys);
	c->n_rules = 0;
}

/* --seq rules from the configuration (checked by params.c already). */
static int
load_rules(const struct mcfan_app *app, struct feed_ctl *c)
{
	char buf[MCFAN_SEQ_RULE_LEN], err[CTL_ERR_MAX], *eq;
	struct feed_rule *r;
	unsigned int i;
	int n;

	for (i = 0; i < app->cfg.n_seq_rules; i++) {
		snprintf(buf, sizeof(buf), "%s", app->cfg.seq_rules[i]);
		eq = strrchr(buf, '=');
		if (eq == NULL)
			return -EINVAL;
		*eq = '\0';
		r = &c->rules[c->n_rules];
		r->keys = calloc(MCFAN_MAX_GROUPS, sizeof(*r->keys));
		if (r->keys == NULL)
			return -ENOMEM;
		c->n_rules++;
		n = mcfan_group_parse_list(buf, r->keys, MCFAN_MAX_GROUPS, err, sizeof(err));
		if (n < 0 || mcfan_feed_spec_parse(eq + 1, &r->spec, err, sizeof(err)) < 0) {
			MCFAN_LOG(ERR, "--seq %s: %s\n", app->cfg.seq_rules[i], err);
			return -EINVAL;
		}
		r->n = (unsigned int)n;
	}
	return 0;
}

/*
 * A --seq rule may name groups a console join brings later; a group whose address --groups
 * joins with another port is refused before EAL (seq_check.c), so what is left here is a
 * group whose address is not joined at start at all: say so once a rule, with its first
 * such group and how many more, so that a mistyped address is seen. The rule stays.
 */
static void
warn_unjoined(const struct mcfan_app *app, const struct feed_ctl *c)
{
	char text[MCFAN_GROUP_STR_MAX];
	unsigned int r, i, n, first;

	for (r = 0; r < c->n_rules; r++) {
		n = 0;
		first = 0;
		for (i = 0; i < c->rules[r].n; i++) {
			if (mcfan_group_entry_find(app->group_entries, app->n_group_entries,
						   &c->rules[r].keys[i]) >= 0)
				continue;
			if (n++ == 0)
				first = i;
		}
		if (n == 0)
			continue;
		mcfan_group_format(&c->rules[r].keys[first], text, sizeof(text));
		if (n == 1)
			MCFAN_LOG(WARNING, "--seq %s: group %s is not joined at start: no feed "
				  "quality for it until a console join brings it (is its address "
				  "right?)\n", app->cfg.seq_rules[r], text);
		else
			MCFAN_LOG(WARNING, "--seq %s: group %s and %u more are not joined at start: "
				  "no feed quality for them until a console join brings them (are "
				  "their addresses right?)\n", app->cfg.seq_rules[r], text, n - 1);
	}
}

int
mcfan_feed_control_init(struct mcfan_app *app)
{
	struct feed_ctl *c;
	char msg[MCFAN_CTL_MSG_MAX];
	unsigned int i;
	int ret;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	for (i = 0; i < MCFAN_MAX_GROUPS; i++) {
		atomic_init(&c->tab.slot[i], NULL);
		c->slot[i].pair = -1;
	}
	c->app = app;
	atomic_init(&c->tab.bound, 0);
	atomic_init(&c->n_waiting, 0);
	atomic_init(&c->n_freed, 0);
	atomic_init(&c->n_kept_read, 0);
	if (app->wqsbr != NULL) {
		struct rte_rcu_qsbr_dq_parameters dp = {
			.name = "mcfan_feed",
			/* the action lock serialises its users */
			.flags = RTE_RCU_QSBR_DQ_MT_UNSAFE,
			.size = MCFAN_FEED_RETIRED_MAX,
			.esize = sizeof(struct retired),
			/* no reclaim inside an enqueue: reclaim() does it, tick and room() */
			.trigger_reclaim_limit = MCFAN_FEED_RETIRED_MAX + 1,
			.max_reclaim_size = MCFAN_FEED_RETIRED_MAX,
			.free_fn = reclaimed,
			.p = c,
			.v = app->wqsbr,
		};

		c->dq = rte_rcu_qsbr_dq_create(&dp);
		if (c->dq == NULL) {
			ret = -rte_errno;
			MCFAN_LOG(ERR, "feed: cannot create the defer queue of retired states: %s\n",
				  rte_strerror(rte_errno));
			free(c);
			return ret < 0 ? ret : -ENOMEM;
		}
	}
	c->params.window_pkts = app->cfg.seq_window_pkts != 0 ? app->cfg.seq_window_pkts :
		MCFAN_FEED_WINDOW_PKTS_DEFAULT;
	c->params.window_ns = app->cfg.seq_window_ns != 0 ? app->cfg.seq_window_ns :
		MCFAN_FEED_WINDOW_NS_DEFAULT;
	ret = load_rules(app, c);
	if (ret < 0) {
		free_rules(c);
		rte_rcu_qsbr_dq_delete(c->dq);
		free(c);
		return ret;
	}
	app->feed = &c->tab;
	warn_unjoined(app, c);
	mcfan_ctl_lock();
	follow_groups(app, c, NULL, 0);
	for (i = 0; i < app->cfg.n_seq_pairs; i++) {
		/* on one worker: the start put line B on line A's (control/groups.c) */
		ret = set_pair_locked(app, c, app->cfg.seq_pairs[i], msg, sizeof(msg));
		if (ret < 0) {
			MCFAN_LOG(ERR, "--seq-pair %s: %s\n", app->cfg.seq_pairs[i], msg);
			break;
		}
	}
	mcfan_ctl_unlock();
	return ret < 0 ? -EINVAL : 0;
}

void
mcfan_feed_control_free(struct mcfan_app *app)
{
	struct feed_ctl *c = ctl_of(app);
	unsigned int i;

	if (c == NULL)
		return;
	mcfan_ctl_state_lock(app);
	app->feed = NULL;
	mcfan_ctl_state_unlock(app);
	for (i = 0; i < MCFAN_MAX_GROUPS; i++) {
		free(c->slot[i].bind);
		mcfan_feed_group_free(c->slot[i].group);
	}
	for (i = 0; i < MCFAN_FEED_PAIRS_MAX; i++)
		mcfan_feed_arb_free(c->pair[i].arb);
	/* the data lcores have stopped (offline): every grace period is over, the queue empties
	 * (reclaimed()) and goes */
	if (c->dq != NULL && rte_rcu_qsbr_dq_delete(c->dq) != 0)
		MCFAN_LOG(WARNING, "feed: %u retired states still wait for a grace period at exit: "
			  "not freed\n", mcfan_feed_waiting(c));
	for (i = 0; i < c->n_kept; i++)
		free_one(c->kept[i].p, c->kept[i].type);
	free(c->kept);
	free(c->left);
	free_rules(c);
	free(c);
}

void
mcfan_feed_retired_read(const struct mcfan_app *app, struct mcfan_feed_retired *r)
{
	const struct feed_ctl *c;

	memset(r, 0, sizeof(*r));
	mcfan_ctl_state_lock(app);
	c = ctl_of(app);
	if (c != NULL) {
		r->waiting = atomic_load_explicit(&c->n_waiting, memory_order_relaxed);
		r->freed = atomic_load_explicit(&c->n_freed, memory_order_relaxed);
		r->kept = atomic_load_explicit(&c->n_kept_read, memory_order_relaxed);
	}
	mcfan_ctl_state_unlock(app);
}

static void
fill_view(const struct mcfan_app *app, const struct feed_slot *s, uint16_t id,
	  struct mcfan_feed_view *v)
{
	v->key = s->key;
	v->slot = id;
	v->lcore = app->worker_lcore_ids[s->owner];
	mcfan_feed_spec_format(&s->spec, v->kind, sizeof(v->kind));
	v->pair = s->pair;
	v->own_series = s->own_series;
}

unsigned int
mcfan_feed_series_read_since(const struct mcfan_app *app, struct mcfan_feed_view *out,
			     unsigned int max, struct mcfan_feed_gone *gone, bool since_start)
{
	const struct feed_ctl *c = ctl_of(app);
	unsigned int id, n = 0;

	memset(gone, 0, sizeof(*gone));
	if (c == NULL)
		return 0;
	/* the states are read with their baselines (see the top of this file) */
	mcfan_ctl_state_lock(app);
	for (id = 0; id < MCFAN_MAX_GROUPS && n < max; id++) {
		if (!c->slot[id].used)
			continue;
		fill_view(app, &c->slot[id], (uint16_t)id, &out[n]);
		if (since_start) {
			(void)mcfan_feed_group_read(c->slot[id].group, &out[n].c, NULL, 0);
			counts_fold(&out[n++].c, &c->slot[id].carry, true);
		} else
			slot_counters(&c->slot[id], &out[n++].c, NULL, 0);
	}
	*gone = since_start ? c->gone_start : c->gone;
	mcfan_ctl_state_unlock(app);
	return n;
}

unsigned int
mcfan_feed_series_read(const struct mcfan_app *app, struct mcfan_feed_view *out,
		       unsigned int max, struct mcfan_feed_gone *gone)
{
	return mcfan_feed_series_read_since(app, out, max, gone, false);
}

unsigned int
mcfan_feed_read(const struct mcfan_app *app, struct mcfan_feed_view *out, unsigned int max)
{
	struct mcfan_feed_gone gone;

	return mcfan_feed_series_read(app, out, max, &gone);
}

void
mcfan_feed_clear(struct mcfan_app *app)
{
	struct feed_ctl *c = ctl_of(app);
	struct mcfan_feed_counters now;
	unsigned int id, p;

	if (c == NULL)
		return;
	/* under the action lock no state is bound or replaced; ctl_lock for the readers */
	mcfan_ctl_state_lock(app);
	for (id = 0; id < MCFAN_MAX_GROUPS; id++) {
		struct feed_slot *s = &c->slot[id];

		if (!s->used)
			continue;
		(void)mcfan_feed_group_read(s->group, &now, NULL, 0);
		counts_base(&s->base, &now);
	}
	for (p = 0; p < MCFAN_FEED_PAIRS_MAX; p++) {
		struct feed_pair *fp = &c->pair[p];

		if (!fp->used)
			continue;
		(void)mcfan_feed_arb_read(fp->arb, &fp->base);
		now = fp->base.merged;
		counts_base(&fp->base.merged, &now);
	}
	memset(&c->gone, 0, sizeof(c->gone));
	c->n_left = 0; /* the report drops its left rows at a clear (control/stats.c) */
	mcfan_ctl_state_unlock(app);
}

int
mcfan_feed_left_read(const struct mcfan_app *app, const struct mcfan_group_entry *e,
		     struct mcfan_feed_view *view, struct mcfan_feed_gap *log, unsigned int max)
{
	const struct feed_ctl *c = ctl_of(app);
	unsigned int i;
	int n = -ENOENT;

	if (c == NULL)
		return -ENOENT;
	mcfan_ctl_state_lock(app);
	for (i = c->n_left; i-- > 0;) {
		const struct feed_left *l = &c->left[i];

		if (l->join_seq != e->join_seq || !mcfan_flow_key_equal(&l->view.key, &e->key))
			continue;
		*view = l->view;
		if (l->live != NULL) {
			n = (int)state_counters(l->live, &l->base, &view->c, log, max);
		} else {
			n = (int)RTE_MIN(l->n_log, max);
			if (n > 0)
				memcpy(log, l->log + (l->n_log - (unsigned int)n),
				       (size_t)n * sizeof(*log));
		}
		break;
	}
	mcfan_ctl_state_unlock(app);
	return n;
}

/* Key's view with its counters and up to max gap events since the clear into log: the
 * events written, or -ENOENT when the group has no extractor. */
static int
find_group(const struct mcfan_app *app, const struct mcfan_flow_key *key,
	   struct mcfan_feed_view *view, struct mcfan_feed_gap *log, unsigned int max)
{
	const struct feed_ctl *c = ctl_of(app);
	unsigned int id;
	int n = -ENOENT;

	if (c == NULL)
		return -ENOENT;
	mcfan_ctl_state_lock(app);
	for (id = 0; id < MCFAN_MAX_GROUPS; id++) {
		if (c->slot[id].used && mcfan_flow_key_equal(&c->slot[id].key, key)) {
			fill_view(app, &c->slot[id], (uint16_t)id, view);
			n = (int)slot_counters(&c->slot[id], &view->c, log, max);
			break;
		}
	}
	mcfan_ctl_state_unlock(app);
	return n;
}

int
mcfan_feed_view_read(const struct mcfan_app *app, const struct mcfan_flow_key *key,
		     struct mcfan_feed_view *view)
{
	return find_group(app, key, view, NULL, 0) < 0 ? -ENOENT : 0;
}

/* Why a group has no feed, for a read path's message: not joined (naming a joined group of
 * its address, as leave does), or joined without an extractor. Reads group_entries under
 * ctl_lock, which their replacement takes. Returns -ENOENT. */
static int
no_feed(const struct mcfan_app *app, const char *what, const struct mcfan_flow_key *key,
	char *msg, size_t len)
{
	char text[MCFAN_GROUP_STR_MAX];
	bool joined = false;
	int ret = 0;

	mcfan_ctl_state_lock(app);
	joined = mcfan_group_entry_find(app->group_entries, app->n_group_entries, key) >= 0;
	if (!joined)
		ret = mcfan_group_not_joined(app->group_entries, app->n_group_entries, what, key,
					     msg, len);
	mcfan_ctl_state_unlock(app);
	if (!joined)
		return ret;
	mcfan_group_format(key, text, sizeof(text));
	return mcfan_err_set(msg, len, -ENOENT, "%s: group %s has no sequence extractor", what,
			     text);
}

int
mcfan_feed_gaps_read(const struct mcfan_app *app, const char *what, const char *group,
		     struct mcfan_feed_view *view, struct mcfan_feed_gap *log, unsigned int max,
		     char *msg, size_t len)
{
	struct mcfan_flow_key k;
	int n;

	n = mcfan_ctl_parse_one_group(what, group, &k, msg, len);
	if (n < 0)
		return n;
	n = find_group(app, &k, view, log, max);
	if (n < 0)
		return no_feed(app, what, &k, msg, len);
	return n;
}

uint64_t
mcfan_feed_epoch_ns(const struct mcfan_app *app, uint64_t t_ns)
{
	uint64_t now_ns, real_ns;
	struct timespec now;

	/* the workers' clock (datapath/feed.c): RX TSC times mcfan_lat_ns_mult() */
	clock_gettime(CLOCK_REALTIME, &now);
	now_ns = (uint64_t)(((unsigned __int128)rte_rdtsc() *
			     mcfan_lat_ns_mult(app->tsc_hz)) >> MCFAN_LAT_MULT_SHIFT);
	real_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	return t_ns <= now_ns ? real_ns - (now_ns - t_ns) : real_ns + (t_ns - now_ns);
}

unsigned int
mcfan_feed_pairs_read_since(const struct mcfan_app *app, struct mcfan_feed_pair_view *out,
			    unsigned int max, bool since_start)
{
	const struct feed_ctl *c = ctl_of(app);
	unsigned int p, n = 0;

	if (c == NULL)
		return 0;
	mcfan_ctl_state_lock(app); /* the arbitrations read with their baselines */
	for (p = 0; p < MCFAN_FEED_PAIRS_MAX && n < max; p++) {
		const struct feed_pair *fp = &c->pair[p];

		if (!fp->used)
			continue;
		out[n].key[0] = c->slot[fp->slot[0]].key;
		out[n].key[1] = c->slot[fp->slot[1]].key;
		out[n].lcore = app->worker_lcore_ids[c->slot[fp->slot[0]].owner];
		(void)mcfan_feed_arb_read(fp->arb, &out[n].c);
		if (!since_start)
			arb_since(&out[n].c, &fp->base);
		n++;
	}
	mcfan_ctl_state_unlock(app);
	return n;
}

unsigned int
mcfan_feed_pairs_read(const struct mcfan_app *app, struct mcfan_feed_pair_view *out,
		      unsigned int max)
{
	return mcfan_feed_pairs_read_since(app, out, max, false);
}
