/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Control actions (see control.h): join, leave, set fanout, set burst, start,
 * stop, clear stats, msacc, set idle. Text parsing of arguments and every check happen
 * before anything changes.
 *
 * Group counter slots. Each joined group owns a slot (its id, 0..1023) that
 * tags its frames and indexes the workers' per-group counters. A slot stays
 * with its group while joined. After a leave the slot retires; it is handed
 * to a new group only once no frame tagged with it can still be counted:
 * the leave's table is published (after the RCU grace period no RX lcore tags
 * with the slot), then mcfan_control_tick() records every ring's producer
 * tail, waits until each ring's consumer tail has passed it (every tagged copy
 * dequeued) and then until each worker's frame counter has reached the sum of
 * its rings' consumer tails (every dequeued copy counted). The reused slot is
 * rebased in stats.c so its new group starts from zero. Fresh slots are used
 * first, round-robin, so reuse happens late.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "control/control.h"
#include "log.h"
#include "control/stats.h"

#define WORKER_WORDS ((MCFAN_MAX_WORKERS + 63) / 64)
#define STOP_DRAIN_WAIT_MS 1000   /* how long `stop` waits for workers to count what is queued */
#define POLL_PERIOD_NS 1000000L   /* 1 ms between checks while waiting */
#define ERR_TEXT_MAX 256
#define LIST_TEXT_MAX 160         /* group or lcore list quoted in a message */

enum slot_state {
	SLOT_FREE = 0, /* never used, or retired and drained (see done_seq) */
	SLOT_JOINED,
	SLOT_RETIRED,  /* left; reusable once retired_seq <= done_seq */
};

/* Owned by the actions and mcfan_control_tick(), under action_mutex. */
struct mcfan_control {
	uint8_t state[MCFAN_MAX_GROUPS];
	bool used[MCFAN_MAX_GROUPS];                   /* has counted frames: rebase on reuse */
	uint64_t retired_seq[MCFAN_MAX_GROUPS];
	uint64_t eligible[MCFAN_MAX_GROUPS][WORKER_WORDS]; /* worker indexes a group may use */
	unsigned int cursor;                           /* next slot to consider */
	uint64_t seq;                                  /* last retirement number handed out */
	uint64_t done_seq;                             /* retirements up to this are drained */
	uint64_t check_seq;                            /* retirements being drained, 0 = none */
	int check_stage;                               /* 1: ring tails, 2: worker counters */
	uint32_t *ring_rec;                            /* [n_rx * n_workers] tails recorded */
	uint32_t *target;                              /* [n_workers] frames to reach */
};

static pthread_mutex_t action_mutex = PTHREAD_MUTEX_INITIALIZER;

__rte_format_printf(4, 5)
static int
say(char *msg, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (msg != NULL && len > 0) {
		va_start(ap, fmt);
		vsnprintf(msg, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

int
mcfan_ctl_parse_u64(const char *text, uint64_t *out)
{
	return mcfan_parse_u64(text, 0, UINT64_MAX, out);
}

static int
worker_index(const struct mcfan_app *app, uint64_t lcore)
{
	unsigned int w;

	for (w = 0; w < app->n_workers; w++)
		if (app->worker_lcore_ids[w] == lcore)
			return (int)w;
	return -1;
}

/* "2,3,5" from worker index bits, or "all (N)" when every worker is set and say_all. */
static void
format_workers(const struct mcfan_app *app, const uint64_t *bits, bool say_all, char *buf,
	       size_t len)
{
	unsigned int w, n = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (w = 0; w < app->n_workers; w++)
		if (bits[w / 64] & (UINT64_C(1) << (w % 64)))
			n++;
	if (say_all && n == app->n_workers) {
		snprintf(buf, len, "all (%u)", n);
		return;
	}
	for (w = 0; w < app->n_workers && off < len; w++) {
		if (!(bits[w / 64] & (UINT64_C(1) << (w % 64))))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%u", off == 0 ? "" : ",",
					app->worker_lcore_ids[w]);
	}
}

int
mcfan_ctl_parse_workers(const struct mcfan_app *app, const char *text, uint16_t *idx,
			char *msg, size_t len)
{
	uint64_t bits[WORKER_WORDS] = {0};
	char buf[LIST_TEXT_MAX], all[LIST_TEXT_MAX];
	char *tok, *save = NULL, *dash;
	uint64_t a, b, l;
	unsigned int w, n = 0;
	int wi;

	if (text == NULL || text[0] == '\0' || strlen(text) >= sizeof(buf))
		return say(msg, len, -EINVAL, "workers: give a list of worker lcores, e.g. 2,4-5");
	strcpy(buf, text);
	for (w = 0; w < app->n_workers; w++)
		bits[w / 64] |= UINT64_C(1) << (w % 64);
	format_workers(app, bits, false, all, sizeof(all));
	memset(bits, 0, sizeof(bits));
	if (buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,") != NULL)
		return say(msg, len, -EINVAL, "workers '%s': empty item in the list", text);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash != NULL)
			*dash = '\0';
		if (mcfan_ctl_parse_u64(tok, &a) < 0 ||
		    (dash != NULL && mcfan_ctl_parse_u64(dash + 1, &b) < 0))
			return say(msg, len, -EINVAL, "workers '%s': not a list of decimal lcore "
				   "ids (e.g. 2,4-5)", text);
		if (dash == NULL)
			b = a;
		if (b < a)
			return say(msg, len, -EINVAL, "workers '%s': range %" PRIu64 "-%" PRIu64
				   " is decreasing", text, a, b);
		if (b - a >= RTE_MAX_LCORE)
			return say(msg, len, -EINVAL, "workers '%s': range %" PRIu64 "-%" PRIu64
				   " is wider than %d lcores", text, a, b, RTE_MAX_LCORE);
		for (l = a; l <= b; l++) {
			wi = worker_index(app, l);
			if (wi < 0)
				return say(msg, len, -EINVAL, "workers: lcore %" PRIu64 " is not a "
					   "worker lcore (workers: %s)", l, all);
			if (bits[wi / 64] & (UINT64_C(1) << (wi % 64)))
				return say(msg, len, -EINVAL, "workers: lcore %" PRIu64 " is listed "
					   "twice in '%s'", l, text);
			bits[wi / 64] |= UINT64_C(1) << (wi % 64);
		}
	}
	for (w = 0; w < app->n_workers; w++)
		if (bits[w / 64] & (UINT64_C(1) << (w % 64)))
			idx[n++] = (uint16_t)w;
	return (int)n;
}

static void
slot_workers(const struct mcfan_control *c, uint16_t slot, const struct mcfan_app *app,
	     uint16_t *idx, unsigned int *n)
{
	unsigned int w;

	*n = 0;
	for (w = 0; w < app->n_workers; w++)
		if (c->eligible[slot][w / 64] & (UINT64_C(1) << (w % 64)))
			idx[(*n)++] = (uint16_t)w;
}

static int
find_entry(const struct mcfan_app *app, const struct mcfan_flow_key *k)
{
	unsigned int i;

	for (i = 0; i < app->n_group_entries; i++)
		if (mcfan_flow_key_equal(&app->group_entries[i].key, k))
			return (int)i;
	return -1;
}

/* Text of a parsed list for messages: "239.9.9.1:3999" or "239.9.9.1:3999 .. 239.9.9.10:3999
 * (10 groups)". */
static void
format_keys(const struct mcfan_flow_key *k, unsigned int n, char *buf, size_t len)
{
	char a[MCFAN_GROUP_STR_MAX], b[MCFAN_GROUP_STR_MAX];

	mcfan_group_format(&k[0], a, sizeof(a));
	if (n == 1) {
		snprintf(buf, len, "%s", a);
		return;
	}
	mcfan_group_format(&k[n - 1], b, sizeof(b));
	snprintf(buf, len, "%s .. %s (%u groups)", a, b, n);
}

/* Parse a group list for an action; keys must hold MCFAN_MAX_GROUPS. */
static int
parse_groups(const char *what, const char *text, struct mcfan_flow_key *keys, char *msg,
	     size_t len)
{
	char err[ERR_TEXT_MAX];
	int n;

	if (text == NULL || text[0] == '\0')
		return say(msg, len, -EINVAL, "%s: give a group, e.g. 239.9.9.1:3999", what);
	n = mcfan_group_parse_list(text, keys, MCFAN_MAX_GROUPS, err, sizeof(err));
	if (n == -E2BIG)
		return say(msg, len, -ENOSPC, "%s: more than %d groups in '%.*s'", what,
			   MCFAN_MAX_GROUPS, LIST_TEXT_MAX, text);
	if (n < 0)
		return say(msg, len, n, "%s: %s", what, err);
	return n;
}

/* Reprogram the multicast MAC list of ports that use one (the others are in allmulticast or
 * take everything already). */
static void
update_port_filters(struct mcfan_app *app)
{
	struct rte_ether_addr *macs;
	unsigned int i, n = 0;
	uint16_t port;
	int ret;

	macs = calloc(MCFAN_MAX_GROUPS, sizeof(*macs));
	if (macs == NULL) {
		MCFAN_LOG(WARNING, "cannot update multicast filters: out of memory\n");
		return;
	}
	for (i = 0; i < app->n_group_entries; i++)
		n = mcfan_mac_list_add(macs, n, &app->group_entries[i].key);
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!app->ports[port].used || strcmp(app->ports[port].filter_mode,
						     "mc_addr_list") != 0)
			continue;
		ret = rte_eth_dev_set_mc_addr_list(port, macs, n);
		if (ret != 0)
			MCFAN_LOG(WARNING, "port %u: cannot update the multicast address list (%u "
				  "addresses): %s\n", port, n, rte_strerror(-ret));
	}
	free(macs);
}

/* Publish a new entries array (RCU inside), then swap it in for the control side. Takes
 * ownership of entries on success. */
static int
replace_entries(struct mcfan_app *app, struct mcfan_group_entry *entries, unsigned int n)
{
	struct mcfan_group_entry *old;
	int ret;

	ret = mcfan_groups_publish(app, entries, n);
	if (ret < 0)
		return ret;
	rte_spinlock_lock(&app->ctl_lock);
	old = app->group_entries;
	app->group_entries = entries;
	__atomic_store_n(&app->n_group_entries, n, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&app->ctl_lock);
	free(old);
	return 0;
}

static struct mcfan_group_entry *
copy_entries(const struct mcfan_app *app, unsigned int extra)
{
	struct mcfan_group_entry *e;

	e = calloc(RTE_MAX(app->n_group_entries + extra, 1u), sizeof(*e));
	if (e != NULL && app->n_group_entries > 0)
		memcpy(e, app->group_entries, app->n_group_entries * sizeof(*e));
	return e;
}

static bool
slot_reusable(const struct mcfan_control *c, unsigned int s)
{
	return c->state[s] == SLOT_FREE ||
	       (c->state[s] == SLOT_RETIRED && c->retired_seq[s] <= c->done_seq);
}

int
mcfan_ctl_join(struct mcfan_app *app, const char *groups, const char *workers, char *msg,
	       size_t len)
{
	struct mcfan_control *c = app->control;
	struct mcfan_flow_key *keys = NULL;
	struct mcfan_group_entry *entries = NULL;
	uint16_t eligible[MCFAN_MAX_WORKERS], *slots = NULL;
	uint64_t bits[WORKER_WORDS] = {0};
	char text[LIST_TEXT_MAX], wtext[LIST_TEXT_MAX];
	unsigned int i, s, n_old, n_el, n_free = 0, n;
	enum mcfan_fanout fanout;
	int ret;

	pthread_mutex_lock(&action_mutex);
	if (c == NULL) {
		ret = say(msg, len, -ENODEV, "join: the control side is not ready");
		goto out;
	}
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	slots = calloc(MCFAN_MAX_GROUPS, sizeof(*slots));
	if (keys == NULL || slots == NULL) {
		ret = say(msg, len, -ENOMEM, "join: out of memory");
		goto out;
	}
	ret = parse_groups("join", groups, keys, msg, len);
	if (ret < 0)
		goto out;
	n = (unsigned int)ret;
	if (workers != NULL) {
		ret = mcfan_ctl_parse_workers(app, workers, eligible, wtext, sizeof(wtext));
		if (ret < 0) {
			ret = say(msg, len, ret, "join: %s", wtext);
			goto out;
		}
		n_el = (unsigned int)ret;
	} else {
		for (i = 0; i < app->n_workers; i++)
			eligible[i] = (uint16_t)i;
		n_el = app->n_workers;
	}
	for (i = 0; i < n; i++) {
		if (find_entry(app, &keys[i]) >= 0) {
			mcfan_group_format(&keys[i], text, sizeof(text));
			ret = say(msg, len, -EEXIST, "join: group %s is already joined", text);
			goto out;
		}
	}
	n_old = app->n_group_entries;
	if (n_old + n > MCFAN_MAX_GROUPS) {
		ret = say(msg, len, -ENOSPC, "join: %u joined + %u new groups is more than the "
			  "%d a table holds", n_old, n, MCFAN_MAX_GROUPS);
		goto out;
	}
	for (i = 0, s = c->cursor; i < MCFAN_MAX_GROUPS && n_free < n; i++) {
		if (slot_reusable(c, s))
			slots[n_free++] = (uint16_t)s;
		s = (s + 1) % MCFAN_MAX_GROUPS;
	}
	if (n_free < n) {
		ret = say(msg, len, -ENOSPC, "join: only %u counter slots are free for %u groups; "
			  "slots of left groups free up once their queued frames are counted",
			  n_free, n);
		goto out;
	}
	entries = copy_entries(app, n);
	if (entries == NULL) {
		ret = say(msg, len, -ENOMEM, "join: out of memory");
		goto out;
	}
	fanout = mcfan_live_fanout(&app->live);
	for (i = 0; i < n; i++) {
		struct mcfan_group_entry *e = &entries[n_old + i];

		e->key = keys[i];
		e->id = slots[i];
		ret = mcfan_group_assign(e, fanout, eligible, n_el);
		if (ret < 0) {
			ret = say(msg, len, ret, "join: cannot assign workers: %s", strerror(-ret));
			goto out;
		}
	}
	/* a reused slot's old group is fully counted (see above): start it from zero */
	for (i = 0; i < n; i++) {
		if (!c->used[slots[i]])
			continue;
		ret = mcfan_stats_slot_rebase(app, slots[i]);
		if (ret < 0) {
			ret = say(msg, len, ret, "join: cannot rebase counter slot %u: %s",
				  slots[i], strerror(-ret));
			goto out;
		}
	}
	ret = replace_entries(app, entries, n_old + n);
	if (ret < 0) {
		ret = say(msg, len, ret, "join: cannot build the group table: %s",
			  rte_strerror(-ret));
		goto out;
	}
	entries = NULL;
	for (i = 0; i < n_el; i++)
		bits[eligible[i] / 64] |= UINT64_C(1) << (eligible[i] % 64);
	for (i = 0; i < n; i++) {
		c->state[slots[i]] = SLOT_JOINED;
		c->used[slots[i]] = true;
		memcpy(c->eligible[slots[i]], bits, sizeof(bits));
	}
	c->cursor = (slots[n - 1] + 1u) % MCFAN_MAX_GROUPS;
	update_port_filters(app);
	format_keys(keys, n, text, sizeof(text));
	format_workers(app, bits, true, wtext, sizeof(wtext));
	ret = say(msg, len, 0, "joined %s: counter slot%s %u%s, fan-out %s, workers %s", text,
		  n == 1 ? "" : "s", slots[0], n == 1 ? "" : " ..", mcfan_fanout_name(fanout),
		  wtext);
out:
	free(entries);
	free(keys);
	free(slots);
	pthread_mutex_unlock(&action_mutex);
	return ret;
}

/* Message for a group that is not joined, naming joined groups of the same address. */
static int
not_joined(const struct mcfan_app *app, const char *what, const struct mcfan_flow_key *k,
	   char *msg, size_t len)
{
	struct mcfan_flow_key a, b;
	char text[MCFAN_GROUP_STR_MAX], other[MCFAN_GROUP_STR_MAX];
	unsigned int i;

	mcfan_group_format(k, text, sizeof(text));
	a = *k;
	a.udp_port = 0;
	for (i = 0; i < app->n_group_entries; i++) {
		b = app->group_entries[i].key;
		b.udp_port = 0;
		if (mcfan_flow_key_equal(&a, &b)) {
			mcfan_group_format(&app->group_entries[i].key, other, sizeof(other));
			return say(msg, len, -ENOENT, "%s: group %s is not joined (%s is)", what,
				   text, other);
		}
	}
	return say(msg, len, -ENOENT, "%s: group %s is not joined", what, text);
}

/* Parse a group list and mark each group's position in group_entries; every group must be
 * joined. keys must hold MCFAN_MAX_GROUPS; marks one bool per joined group. Returns the
 * number of groups or a negative errno with the message written. */
static int
mark_joined(struct mcfan_app *app, const char *what, const char *text,
	    struct mcfan_flow_key *keys, bool *marks, char *msg, size_t len)
{
	unsigned int i, n;
	int ret, pos;

	ret = parse_groups(what, text, keys, msg, len);
	if (ret < 0)
		return ret;
	n = (unsigned int)ret;
	for (i = 0; i < n; i++) {
		pos = find_entry(app, &keys[i]);
		if (pos < 0)
			return not_joined(app, what, &keys[i], msg, len);
		marks[pos] = true;
	}
	return (int)n;
}

int
mcfan_ctl_leave(struct mcfan_app *app, const char *groups, char *msg, size_t len)
{
	struct mcfan_control *c = app->control;
	struct mcfan_flow_key *keys = NULL;
	struct mcfan_group_entry *entries = NULL;
	uint16_t *ids = NULL;
	bool *gone = NULL;
	char text[LIST_TEXT_MAX];
	unsigned int i, j, k = 0, n, n_old;
	int ret;

	pthread_mutex_lock(&action_mutex);
	n_old = app->n_group_entries;
	if (c == NULL) {
		ret = say(msg, len, -ENODEV, "leave: the control side is not ready");
		goto out;
	}
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	gone = calloc(RTE_MAX(n_old, 1u), sizeof(*gone));
	ids = calloc(RTE_MAX(n_old, 1u), sizeof(*ids));
	if (keys == NULL || gone == NULL || ids == NULL) {
		ret = say(msg, len, -ENOMEM, "leave: out of memory");
		goto out;
	}
	ret = mark_joined(app, "leave", groups, keys, gone, msg, len);
	if (ret < 0)
		goto out;
	n = (unsigned int)ret;
	entries = copy_entries(app, 0);
	if (entries == NULL) {
		ret = say(msg, len, -ENOMEM, "leave: out of memory");
		goto out;
	}
	for (i = 0, j = 0; i < n_old; i++) {
		if (gone[i])
			ids[k++] = app->group_entries[i].id;
		else
			entries[j++] = app->group_entries[i];
	}
	ret = replace_entries(app, entries, j);
	if (ret < 0) {
		ret = say(msg, len, ret, "leave: cannot build the group table: %s",
			  rte_strerror(-ret));
		goto out;
	}
	entries = NULL;
	/* published and past the grace period: no RX lcore tags frames with these slots */
	for (i = 0; i < k; i++) {
		c->state[ids[i]] = SLOT_RETIRED;
		c->retired_seq[ids[i]] = ++c->seq;
	}
	update_port_filters(app);
	format_keys(keys, n, text, sizeof(text));
	ret = say(msg, len, 0, "left %s: %s frames count as unknown_group from now on", text,
		  n == 1 ? "its" : "their");
out:
	free(entries);
	free(keys);
	free(gone);
	free(ids);
	pthread_mutex_unlock(&action_mutex);
	return ret;
}

int
mcfan_ctl_set_fanout(struct mcfan_app *app, const char *groups, const char *mode, char *msg,
		     size_t len)
{
	struct mcfan_control *c = app->control;
	struct mcfan_flow_key *keys = NULL;
	struct mcfan_group_entry *entries = NULL;
	uint16_t eligible[MCFAN_MAX_WORKERS];
	bool *sel = NULL;
	char text[LIST_TEXT_MAX];
	unsigned int i, n = 0, n_el, n_old;
	int ret, f;

	pthread_mutex_lock(&action_mutex);
	n_old = app->n_group_entries;
	if (c == NULL) {
		ret = say(msg, len, -ENODEV, "set fanout: the control side is not ready");
		goto out;
	}
	f = mode != NULL ? mcfan_fanout_parse(mode) : -EINVAL;
	if (f < 0) {
		ret = say(msg, len, -EINVAL, "set fanout: '%.*s' is not a mode: partition or "
			  "replicate", LIST_TEXT_MAX, mode != NULL ? mode : "");
		goto out;
	}
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	sel = calloc(RTE_MAX(n_old, 1u), sizeof(*sel));
	if (keys == NULL || sel == NULL) {
		ret = say(msg, len, -ENOMEM, "set fanout: out of memory");
		goto out;
	}
	if (groups != NULL) {
		ret = mark_joined(app, "set fanout", groups, keys, sel, msg, len);
		if (ret < 0)
			goto out;
		n = (unsigned int)ret;
	} else {
		for (i = 0; i < n_old; i++)
			sel[i] = true;
	}
	entries = copy_entries(app, 0);
	if (entries == NULL) {
		ret = say(msg, len, -ENOMEM, "set fanout: out of memory");
		goto out;
	}
	for (i = 0; i < n_old; i++) {
		if (!sel[i])
			continue;
		slot_workers(c, entries[i].id, app, eligible, &n_el);
		ret = mcfan_group_assign(&entries[i], (enum mcfan_fanout)f, eligible, n_el);
		if (ret < 0) {
			ret = say(msg, len, ret, "set fanout: cannot assign workers: %s",
				  strerror(-ret));
			goto out;
		}
	}
	if (n_old > 0) {
		ret = replace_entries(app, entries, n_old);
		if (ret < 0) {
			ret = say(msg, len, ret, "set fanout: cannot build the group table: %s",
				  rte_strerror(-ret));
			goto out;
		}
		entries = NULL;
	}
	if (groups == NULL) {
		mcfan_live_u32_store(&app->live.fanout, (uint32_t)f, memory_order_relaxed);
		ret = say(msg, len, 0, "fan-out %s for every group (%u) and later joins",
			  mcfan_fanout_name((enum mcfan_fanout)f), n_old);
	} else {
		format_keys(keys, n, text, sizeof(text));
		ret = say(msg, len, 0, "fan-out %s for %s", mcfan_fanout_name((enum mcfan_fanout)f),
			  text);
	}
out:
	free(entries);
	free(keys);
	free(sel);
	pthread_mutex_unlock(&action_mutex);
	return ret;
}

int
mcfan_ctl_set_burst(struct mcfan_app *app, uint64_t n, char *msg, size_t len)
{
	unsigned int max = RTE_MIN((unsigned int)MCFAN_MAX_BURST, app->cfg.ring_size);
	unsigned int old;

	if (n < 1 || n > max)
		return say(msg, len, -ERANGE, "set burst: %" PRIu64 " is out of range 1..%u%s", n,
			   max, max < MCFAN_MAX_BURST ? " (a burst must fit in a ring)" : "");
	pthread_mutex_lock(&action_mutex);
	old = mcfan_live_u32_exchange(&app->live.burst, (uint32_t)n, memory_order_relaxed);
	pthread_mutex_unlock(&action_mutex);
	return say(msg, len, 0, "burst %" PRIu64 " (was %u)", n, old);
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

	pthread_mutex_lock(&action_mutex);
	if (mcfan_live_flag_load(&app->live.rx_paused, memory_order_acquire)) {
		ret = say(msg, len, -EALREADY, "stop: RX is already stopped (start resumes it)");
		goto out;
	}
	mcfan_live_flag_store(&app->live.rx_paused, true, memory_order_release);
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
		ret = say(msg, len, 0, "RX stopped; workers have counted every queued frame");
	else
		ret = say(msg, len, 0, "RX stopped; workers still have %" PRIu64 " copies to "
			  "count after %d ms", left, STOP_DRAIN_WAIT_MS);
out:
	pthread_mutex_unlock(&action_mutex);
	return ret;
}

int
mcfan_ctl_rx_start(struct mcfan_app *app, char *msg, size_t len)
{
	int ret;

	pthread_mutex_lock(&action_mutex);
	if (!mcfan_live_flag_load(&app->live.rx_paused, memory_order_acquire))
		ret = say(msg, len, -EALREADY, "start: RX is already running");
	else {
		mcfan_live_flag_store(&app->live.rx_paused, false, memory_order_release);
		ret = say(msg, len, 0, "RX started");
	}
	pthread_mutex_unlock(&action_mutex);
	return ret;
}

int
mcfan_ctl_clear_stats(struct mcfan_app *app, char *msg, size_t len)
{
	int ret;

	pthread_mutex_lock(&action_mutex);
	ret = mcfan_stats_clear(app);
	pthread_mutex_unlock(&action_mutex);
	if (ret < 0)
		return say(msg, len, ret, "clear stats: %s", strerror(-ret));
	return say(msg, len, 0, "statistics cleared (frames, drops, workers, groups, ports)");
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
		return say(msg, len, -ERANGE, "msacc start: %" PRIu64 " ms is out of range 1..%u",
			   ms, MCFAN_CTL_MSACC_MS_MAX);
	pthread_mutex_lock(&action_mutex);
	msacc_blocks(app, blocks);
	ret = mcfan_msacc_window_start(app->window, blocks, RTE_MAX_LCORE, rte_rdtsc(), ms,
				       app->tsc_hz);
	pthread_mutex_unlock(&action_mutex);
	if (ret < 0)
		return say(msg, len, ret, "msacc start: %s", strerror(-ret));
	return say(msg, len, 0, "msacc window of %" PRIu64 " ms started; show msacc freezes "
		   "at its end", ms);
}

int
mcfan_ctl_msacc_reset(struct mcfan_app *app, char *msg, size_t len)
{
	const struct mcfan_msacc *blocks[RTE_MAX_LCORE];
	int ret;

	pthread_mutex_lock(&action_mutex);
	msacc_blocks(app, blocks);
	ret = mcfan_msacc_window_reset(app->window, blocks, RTE_MAX_LCORE, rte_rdtsc());
	pthread_mutex_unlock(&action_mutex);
	if (ret < 0)
		return say(msg, len, ret, "msacc reset: %s", strerror(-ret));
	return say(msg, len, 0, "msacc window reset: it runs from now");
}

int
mcfan_ctl_msacc_enable(struct mcfan_app *app, bool on, char *msg, size_t len)
{
	int ret;

	pthread_mutex_lock(&action_mutex);
	if (mcfan_live_flag_load(&app->live.msacc, memory_order_relaxed) == on) {
		ret = say(msg, len, -EALREADY, "msacc %s: accounting is already %s", on ? "on" :
			  "off", on ? "on" : "off");
	} else {
		mcfan_live_flag_store(&app->live.msacc, on, memory_order_relaxed);
		ret = say(msg, len, 0, on ? "microstate accounting on (the time it was off counts "
			  "as other; msacc reset starts a clean window)" :
			  "microstate accounting off for the data lcores");
	}
	pthread_mutex_unlock(&action_mutex);
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
		return say(msg, len, -ENOTSUP, "set idle: lcore %u polls no port: interrupt has "
			   "nothing to wait for", lc->lcore_id);
	for (i = 0; i < lc->n_ports; i++) {
		p = &app->ports[lc->ports[i]];
		if (!p->rx_intr)
			return say(msg, len, -ENOTSUP, "set idle: lcore %u: port %u (%s, PMD %s) was "
				   "started without Rx queue interrupts (start mcfan with --idle-rx "
				   "interrupt)", lc->lcore_id, lc->ports[i], p->name, p->driver);
	}
	p = &app->ports[lc->ports[0]];
	return say(msg, len, -ENOTSUP, "set idle: lcore %u: a port (port %u: %s, PMD %s) has no Rx "
		   "queue interrupts", lc->lcore_id, lc->ports[0], p->name, p->driver);
}

int
mcfan_ctl_set_idle(struct mcfan_app *app, const char *who, const char *policy, char *msg,
		   size_t len)
{
	char err[ERR_TEXT_MAX], text[MCFAN_IDLE_POLICY_TEXT_MAX + 1], ids[LIST_TEXT_MAX];
	bool sel[RTE_MAX_LCORE] = {false};
	const struct mcfan_lcore *lc;
	unsigned int id, n = 0;
	size_t off = 0;
	uint64_t one = 0;
	uint32_t p;
	int ret;

	if (mcfan_idle_parse(policy, &p, err, sizeof(err)) < 0)
		return say(msg, len, -EINVAL, "set idle: %s", err);
	if (who == NULL)
		who = "";
	if (strcmp(who, "rx") != 0 && strcmp(who, "worker") != 0) {
		if (mcfan_ctl_parse_u64(who, &one) < 0 || one >= RTE_MAX_LCORE ||
		    !(app->lcores[one].role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)))
			return say(msg, len, -EINVAL, "set idle: '%.*s' is not rx, worker or a data "
				   "lcore (show lcores lists them)", LIST_TEXT_MAX, who);
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
		if (mcfan_idle_role_ok(p, lc->role, err, sizeof(err)) < 0)
			return say(msg, len, -EINVAL, "set idle: lcore %u (%s): %s", id,
				   mcfan_role_name(lc->role), err);
		if (MCFAN_IDLE_KIND_OF(p) == MCFAN_IDLE_INTERRUPT) {
			ret = idle_intr_ok(app, lc, msg, len);
			if (ret < 0)
				return ret;
		}
		n++;
	}
	if (n == 0)
		return say(msg, len, -ENOENT, "set idle: there is no %s lcore%s", who,
			   strcmp(who, "worker") == 0 ? " that is only a worker (the workers also "
			   "poll ports: set idle rx)" : "");
	pthread_mutex_lock(&action_mutex);
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		if (!sel[id])
			continue;
		__atomic_store_n(&app->lcores[id].idle.policy, p, __ATOMIC_RELAXED);
		if (off < sizeof(ids))
			off += (size_t)snprintf(ids + off, sizeof(ids) - off, "%s%u",
						off == 0 ? "" : ",", id);
	}
	if (strcmp(who, "rx") == 0)
		mcfan_live_u32_store(&app->live.idle_rx, p, memory_order_relaxed);
	else if (strcmp(who, "worker") == 0)
		mcfan_live_u32_store(&app->live.idle_worker, p, memory_order_relaxed);
	pthread_mutex_unlock(&action_mutex);
	return say(msg, len, 0, "idle policy %s for lcore%s %s", mcfan_idle_format(p, text,
		   sizeof(text)), n == 1 ? "" : "s", ids);
}

int
mcfan_ctl_quit(struct mcfan_app *app, char *msg, size_t len)
{
	mcfan_live_flag_store(&app->live.quit, true, memory_order_release);
	return say(msg, len, 0, "stopping");
}

static uint32_t
ring_tail(const struct rte_ring *r, bool prod)
{
	/* the running head/tail indexes of rte_ring_core.h: they start at 0 and only grow */
	return __atomic_load_n(prod ? &r->prod.tail : &r->cons.tail, __ATOMIC_ACQUIRE);
}

/* One step of draining retired slots; see the comment at the top. */
static void
drain_tick(struct mcfan_app *app, struct mcfan_control *c)
{
	unsigned int r, w, nw = app->n_workers;
	uint32_t frames;

	if (c->check_seq == 0) {
		if (c->seq == c->done_seq)
			return;
		for (r = 0; r < app->n_rx; r++)
			for (w = 0; w < nw; w++)
				c->ring_rec[r * nw + w] = ring_tail(app->rings[r * nw + w], true);
		c->check_seq = c->seq;
		c->check_stage = 1;
		return;
	}
	if (c->check_stage == 1) {
		for (r = 0; r < app->n_rx; r++)
			for (w = 0; w < nw; w++)
				if ((int32_t)(ring_tail(app->rings[r * nw + w], false) -
					      c->ring_rec[r * nw + w]) < 0)
					return;
		for (w = 0; w < nw; w++) {
			c->target[w] = 0;
			for (r = 0; r < app->n_rx; r++)
				c->target[w] += ring_tail(app->rings[r * nw + w], false);
		}
		c->check_stage = 2;
	}
	for (w = 0; w < nw; w++) {
		/* a worker counts what it dequeued after the dequeue: wait for the count */
		frames = (uint32_t)__atomic_load_n(&app->lcores[app->worker_lcore_ids[w]].ws->frames,
						   __ATOMIC_RELAXED);
		if ((int32_t)(frames - c->target[w]) < 0)
			return;
	}
	c->done_seq = c->check_seq;
	c->check_seq = 0;
}

void
mcfan_control_tick(struct mcfan_app *app)
{
	const struct mcfan_msacc *blocks[RTE_MAX_LCORE];

	if (app->control == NULL || pthread_mutex_trylock(&action_mutex) != 0)
		return;
	msacc_blocks(app, blocks);
	mcfan_msacc_window_tick(app->window, blocks, RTE_MAX_LCORE, rte_rdtsc());
	drain_tick(app, app->control);
	pthread_mutex_unlock(&action_mutex);
}

int
mcfan_control_init(struct mcfan_app *app)
{
	struct mcfan_control *c;
	unsigned int i, w;
	int ret;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->ring_rec = calloc(RTE_MAX(app->n_rx * app->n_workers, 1u), sizeof(c->ring_rec[0]));
	c->target = calloc(RTE_MAX(app->n_workers, 1u), sizeof(c->target[0]));
	if (c->ring_rec == NULL || c->target == NULL) {
		ret = -ENOMEM;
		goto free_control;
	}
	ret = mcfan_stats_init(app);
	if (ret < 0)
		goto free_control;
	for (i = 0; i < app->n_group_entries; i++) {
		uint16_t id = app->group_entries[i].id;

		c->state[id] = SLOT_JOINED;
		c->used[id] = true;
		for (w = 0; w < app->n_workers; w++)
			c->eligible[id][w / 64] |= UINT64_C(1) << (w % 64);
		if (id + 1u > c->cursor)
			c->cursor = (id + 1u) % MCFAN_MAX_GROUPS;
	}
	pthread_mutex_lock(&action_mutex);
	app->control = c;
	pthread_mutex_unlock(&action_mutex);
	return 0;

free_control:
	free(c->ring_rec);
	free(c->target);
	free(c);
	return ret;
}

void
mcfan_control_free(struct mcfan_app *app)
{
	struct mcfan_control *c;

	pthread_mutex_lock(&action_mutex);
	c = app->control;
	app->control = NULL;
	pthread_mutex_unlock(&action_mutex);
	mcfan_stats_free(app);
	if (c == NULL)
		return;
	free(c->ring_rec);
	free(c->target);
	free(c);
}
