/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Groups (control/groups.h): join, leave, set fanout, the counter slots of the groups, the
 * publication of the group table with RCU and the ports' multicast MAC filters. Text
 * parsing of arguments and every check happen before anything changes.
 *
 * Group counter slots. Each joined group owns a slot (its id, 0..1023) that tags its
 * frames and indexes the workers' per-group counters. A slot stays with its group while
 * joined. After a leave the slot retires; it is handed to a new group only once no frame
 * tagged with it can still be counted: the leave's table is published (after the RCU grace
 * period no RX lcore tags with the slot), then mcfan_groups_tick() drains it (the pure part:
 * lib/group/mcfan_slots.h) from the rings' tails and the workers' copy counters (struct
 * mcfan_lcore handed: copies handed to their engines, counted after deliver()). The reused
 * slot is rebased in stats.c so its new group starts from zero. Fresh slots are used first,
 * round-robin, so reuse happens late. A drain's end is told to the pcap writer, which
 * closes the left memberships' files once it has written their last copies (control/pcap.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "bits.h"
#include "mcfan_slots.h"
#include "log.h"
#include "datapath/engine.h"
#include "datapath/engine_tx.h"
#include "control/action.h"
#include "control/feed.h"
#include "control/groups.h"
#include "control/igmp.h"
#include "control/pcap.h"
#include "control/readers.h"
#include "control/stats.h"

/** Source-specific groups a join's message names (the others are counted). */
#define JOIN_SSM_SHOWN 4
/** Room for one group's sources in a message: the most, IPv6 in brackets, '+' between. */
#define JOIN_SSM_TEXT_MAX (MCFAN_IGMP_MAX_SOURCES * (MCFAN_IGMP_ADDR_STR + 3))

/* Owned by the group actions and mcfan_groups_tick(), under the action lock. */
struct mcfan_control {
	struct mcfan_slots *slots;                         /* lifecycle of the counter slots */
	uint64_t eligible[MCFAN_MAX_GROUPS][MCFAN_WORKER_WORDS]; /* worker indexes it may use */
	uint32_t *prod;                                    /* [n_rx * n_workers] drain snapshot */
	uint32_t *cons;                                    /* [n_rx * n_workers] */
	uint32_t *copies;                                  /* [n_workers] */
	uint16_t drained_slot[MCFAN_MAX_GROUPS];           /* drained_tell()'s */
	uint32_t drained_join[MCFAN_MAX_GROUPS];
};

/* "2,3,5" from worker index bits, or "all (N)" when every worker is set and say_all. */
static void
format_workers(const struct mcfan_app *app, const uint64_t *bits, bool say_all, char *buf,
	       size_t len)
{
	unsigned int w, n = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (w = 0; w < app->n_workers; w++)
		if (mcfan_bits_test(bits, w))
			n++;
	if (say_all && n == app->n_workers) {
		snprintf(buf, len, "all (%u)", n);
		return;
	}
	for (w = 0; w < app->n_workers && off < len; w++) {
		if (!(mcfan_bits_test(bits, w)))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%u", off == 0 ? "" : ",",
					app->worker_lcore_ids[w]);
	}
}

/* The source-specific groups of a join for its message (docs/igmp.md): "; source-specific:
 * G@S+S, ... (...)", the first JOIN_SSM_SHOWN of them; "" for a join from any source. */
static void
format_join_sources(const struct mcfan_flow_key *keys, unsigned int n,
		    const struct mcfan_igmp_ssm *ssm, unsigned int n_ssm, char *buf, size_t len)
{
	char group[MCFAN_GROUP_STR_MAX], src[JOIN_SSM_TEXT_MAX];
	unsigned int i, shown = 0, more = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && n_ssm > 0; i++) {
		if (mcfan_igmp_ssm_format(ssm, n_ssm, &keys[i], src, sizeof(src)) == 0)
			continue;
		if (shown == JOIN_SSM_SHOWN) {
			more++;
			continue;
		}
		mcfan_group_format(&keys[i], group, sizeof(group));
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s@%s",
						shown == 0 ? "; source-specific: " : ", ", group, src);
		shown++;
	}
	if (more > 0 && off < len)
		off += (size_t)snprintf(buf + off, len - off, " and %u more (show groups)", more);
	if (shown > 0 && off < len)
		snprintf(buf + off, len - off, " (IGMPv3/MLDv2 INCLUDE: the switch forwards these "
			 "sources only; mcfan does not filter by source)");
}

/* Worker lcores of a "workers" list, as worker index bits; the message quotes the list. */
struct workers_visit {
	const struct mcfan_app *app;
	const char *text;
	const char *all;
	uint64_t bits[MCFAN_WORKER_WORDS];
	char *msg;
	size_t len;
};

static int
workers_add(uint64_t a, uint64_t b, void *arg)
{
	struct workers_visit *v = arg;
	uint64_t l;
	int wi;

	if (b - a >= RTE_MAX_LCORE)
		return mcfan_err_set(v->msg, v->len, -EINVAL, "workers '%s': range %" PRIu64 "-%"
				     PRIu64 " is wider than %d lcores", v->text, a, b,
				     RTE_MAX_LCORE);
	for (l = a; l <= b; l++) {
		wi = mcfan_worker_index(v->app, l);
		if (wi < 0)
			return mcfan_err_set(v->msg, v->len, -EINVAL, "workers: lcore %" PRIu64
					     " is not a worker lcore (workers: %s)", l, v->all);
		if (mcfan_bits_test(v->bits, wi))
			return mcfan_err_set(v->msg, v->len, -EINVAL, "workers: lcore %" PRIu64
					     " is listed twice in '%s'", l, v->text);
		mcfan_bits_set(v->bits, wi);
	}
	return 0;
}

int
mcfan_ctl_parse_workers(const struct mcfan_app *app, const char *text, uint16_t *idx,
			char *msg, size_t len)
{
	struct workers_visit v = { .app = app, .text = text, .msg = msg, .len = len };
	char all[CTL_LIST_MAX];
	struct mcfan_corelist_err e;
	unsigned int w, n = 0;
	int ret;

	if (text == NULL || text[0] == '\0' || strlen(text) >= CTL_LIST_MAX)
		return mcfan_err_set(msg, len, -EINVAL,
				     "workers: give a list of worker lcores, e.g. 2,4-5");
	for (w = 0; w < app->n_workers; w++)
		mcfan_bits_set(v.bits, w);
	format_workers(app, v.bits, false, all, sizeof(all));
	memset(v.bits, 0, sizeof(v.bits));
	v.all = all;
	ret = mcfan_corelist_parse(text, strlen(text), UINT64_MAX, workers_add, &v, &e);
	switch (e.kind) {
	case MCFAN_CORELIST_OK:
		break;
	case MCFAN_CORELIST_VISIT:
		return ret; /* workers_add() wrote the message */
	case MCFAN_CORELIST_EMPTY_ITEM:
		return mcfan_err_set(msg, len, -EINVAL, "workers '%s': empty item in the list",
				     text);
	case MCFAN_CORELIST_DECREASING:
		return mcfan_err_set(msg, len, -EINVAL, "workers '%s': range %" PRIu64 "-%" PRIu64
				     " is decreasing", text, e.first, e.last);
	default:
		return mcfan_err_set(msg, len, -EINVAL, "workers '%s': not a list of decimal lcore "
				     "ids (e.g. 2,4-5)", text);
	}
	MCFAN_BITS_FOREACH(w, v.bits, app->n_workers)
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
		if (mcfan_bits_test(c->eligible[slot], w))
			idx[(*n)++] = (uint16_t)w;
}

static int
find_entry(const struct mcfan_app *app, const struct mcfan_flow_key *k)
{
	return mcfan_group_entry_find(app->group_entries, app->n_group_entries, k);
}

/* Parse a group list for an action; keys must hold MCFAN_MAX_GROUPS. */
static int
parse_groups(const char *what, const char *text, struct mcfan_flow_key *keys, char *msg,
	     size_t len)
{
	char err[CTL_ERR_MAX];
	int n;

	if (text == NULL || text[0] == '\0')
		return mcfan_err_set(msg, len, -EINVAL, "%s: give a group, e.g. 239.9.9.1:3999", what);
	n = mcfan_group_parse_list(text, keys, MCFAN_MAX_GROUPS, err, sizeof(err));
	if (n == -E2BIG)
		return mcfan_err_set(msg, len, -ENOSPC, "%s: more than %d groups in '%.*s'", what,
			       MCFAN_MAX_GROUPS, CTL_LIST_MAX, text);
	if (n < 0)
		return mcfan_err_set(msg, len, n, "%s: %s", what, err);
	return n;
}

/* Split GROUP@SOURCE items (lib/igmp/mcfan_igmp_ssm.h) out of an action's group list: the
 * list without them in *text (malloc'd, the caller frees it), the pairs in ssm
 * (MCFAN_IGMP_SSM_MAX). */
static int
split_sources(const char *what, const char *groups, char **text, struct mcfan_igmp_ssm *ssm,
	      unsigned int *n_ssm, char *msg, size_t len)
{
	char err[CTL_ERR_MAX];
	size_t n;
	int ret;

	*n_ssm = 0;
	*text = NULL;
	if (groups == NULL)
		return 0;
	n = strlen(groups) + 1;
	*text = malloc(n);
	if (*text == NULL)
		return mcfan_err_set(msg, len, -ENOMEM, "%s: out of memory", what);
	ret = mcfan_igmp_ssm_split(groups, *text, n, ssm, MCFAN_IGMP_SSM_MAX, n_ssm, err,
				   sizeof(err));
	if (ret < 0)
		return mcfan_err_set(msg, len, ret, "%s: %s", what, err);
	return 0;
}

/* RFC 1112 section 6.4: 01:00:5e + the low 23 bits of the IPv4 group. */
#define IPV4_MC_MAC_LOW_MASK 0x7f
/* RFC 2464 section 7: 33:33 + the low 32 bits of the IPv6 group. */
#define IPV6_MC_MAC_PREFIX 0x33

static void
group_to_mac(const struct mcfan_flow_key *k, struct rte_ether_addr *mac)
{
	if (k->family == MCFAN_FAMILY_IPV4) {
		mac->addr_bytes[0] = 0x01;
		mac->addr_bytes[1] = 0x00;
		mac->addr_bytes[2] = 0x5e;
		mac->addr_bytes[3] = k->addr[1] & IPV4_MC_MAC_LOW_MASK;
		mac->addr_bytes[4] = k->addr[2];
		mac->addr_bytes[5] = k->addr[3];
	} else {
		mac->addr_bytes[0] = IPV6_MC_MAC_PREFIX;
		mac->addr_bytes[1] = IPV6_MC_MAC_PREFIX;
		memcpy(&mac->addr_bytes[2], &k->addr[12], 4);
	}
}

unsigned int
mcfan_mac_list_add(struct rte_ether_addr *macs, unsigned int n, const struct mcfan_flow_key *k)
{
	struct rte_ether_addr m;
	unsigned int j;

	group_to_mac(k, &m);
	for (j = 0; j < n; j++)
		if (rte_is_same_ether_addr(&m, &macs[j]))
			return n;
	macs[n] = m;
	return n + 1;
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
		/* an output-only port's filter is never changed (its mode is "untouched") */
		if (!app->ports[port].used || app->ports[port].role != MCFAN_PORT_RX ||
		    strcmp(app->ports[port].filter_mode, "mc_addr_list") != 0)
			continue;
		ret = rte_eth_dev_set_mc_addr_list(port, macs, n);
		if (ret == 0)
			continue;
		/* a full filter table (real hardware): without a fallback the new groups would
		 * silently not arrive */
		if (rte_eth_allmulticast_enable(port) == 0) {
			MCFAN_LOG(WARNING, "port %u: cannot update the multicast address list (%u "
				  "addresses): %s; allmulticast enabled instead (filter mode "
				  "allmulticast)\n", port, n, rte_strerror(-ret));
			snprintf(app->ports[port].filter_mode, sizeof(app->ports[port].filter_mode),
				 "allmulticast");
		} else {
			MCFAN_LOG(WARNING, "port %u: cannot update the multicast address list (%u "
				  "addresses): %s, nor enable allmulticast: groups beyond the old "
				  "list may not arrive\n", port, n, rte_strerror(-ret));
		}
	}
	free(macs);
}

int
mcfan_groups_publish(struct mcfan_app *app, const struct mcfan_group_entry *entries,
		     unsigned int n)
{
	struct mcfan_group_table *t, *old;

	t = mcfan_group_table_create(entries, n, rte_socket_id());
	if (t == NULL)
		return -rte_errno;
	old = mcfan_live_table_exchange(&app->live.groups, t, memory_order_acq_rel);
	if (old != NULL) {
		/* wait until every RX lcore has passed a quiescent state since the store */
		rte_rcu_qsbr_synchronize(app->qsbr, RTE_QSBR_THRID_INVALID);
		mcfan_group_table_free(old);
	}
	return 0;
}

/* Record the memberships of entries[0..n-1] not yet in their slots' histories (app
 * slot_history: a join's new entries); under ctl_lock, or before the launch. */
static void
record_memberships(struct mcfan_app *app, const struct mcfan_group_entry *entries,
		   unsigned int n)
{
	struct mcfan_slot_history *h;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (entries[i].id >= MCFAN_MAX_GROUPS)
			continue;
		h = &app->slot_history[entries[i].id];
		if (h->join_seq[0] == entries[i].join_seq)
			continue;
		memmove(&h->join_seq[1], &h->join_seq[0],
			(MCFAN_SLOT_HISTORY - 1) * sizeof(h->join_seq[0]));
		memmove(&h->key[1], &h->key[0], (MCFAN_SLOT_HISTORY - 1) * sizeof(h->key[0]));
		h->join_seq[0] = entries[i].join_seq;
		h->key[0] = entries[i].key;
	}
}

/* Publish a new entries array (RCU inside), then swap it in for the control side. Takes
 * ownership of entries on success; on failure writes the message, naming the action what.
 * left[0..n_left-1]: the groups the new array leaves out (a leave), whose rows the report
 * keeps: recorded in the same critical section as the swap (control/stats.h). The A/B pairs
 * a left or moved line dissolves go to pairs ("" for none; control/feed.h). */
static int
replace_entries(struct mcfan_app *app, const char *what, struct mcfan_group_entry *entries,
		unsigned int n, const struct mcfan_group_entry *left, unsigned int n_left,
		char *pairs, size_t pairs_len, char *msg, size_t len)
{
	struct mcfan_group_entry *old;
	unsigned int i;
	int ret;

	ret = mcfan_groups_publish(app, entries, n);
	if (ret < 0)
		return mcfan_err_set(msg, len, ret, "%s: cannot build the group table: %s", what,
				     rte_strerror(-ret));
	mcfan_ctl_state_lock(app);
	old = app->group_entries;
	app->group_entries = entries;
	__atomic_store_n(&app->n_group_entries, n, __ATOMIC_RELEASE);
	app->group_entries_gen++;
	record_memberships(app, entries, n);
	for (i = 0; i < n_left; i++)
		mcfan_stats_group_left(app, &left[i]);
	mcfan_ctl_state_unlock(app);
	free(old);
	/* reader rings: whether the readers engine writes each one now (joined, left, moved) */
	mcfan_readers_sync(app);
	/* feed states and pairs of left or moved groups: now, before the next line reads them */
	mcfan_feed_follow(app, pairs, pairs_len);
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

/* mcfan_group_assign() for an action: on failure writes the message, naming the action what. */
static int
assign_workers(struct mcfan_group_entry *e, enum mcfan_fanout fanout, const uint16_t *eligible,
	       unsigned int n_el, const char *what, char *msg, size_t len)
{
	int ret;

	ret = mcfan_group_assign(e, fanout, eligible, n_el);
	if (ret < 0)
		return mcfan_err_set(msg, len, ret, "%s: cannot assign workers: %s", what,
				     strerror(-ret));
	return 0;
}

/* The actions' first check: 0, or -ENODEV with the message before control_init ran. */
static int
control_ready(const struct mcfan_app *app, const char *what, char *msg, size_t len)
{
	if (app->control == NULL)
		return mcfan_err_set(msg, len, -ENODEV, "%s: the control side is not ready", what);
	return 0;
}

/* The two lines of a --seq-pair need one tracker, so one worker (control/feed.c), and
 * --fanout partition puts each group on the worker its hash gives: line B goes to line A's
 * worker, and stays there, as "join B workers W" would make it (app->start_worker). */
static void
pin_seq_pairs(struct mcfan_app *app)
{
	char a[MCFAN_GROUP_STR_MAX], b[MCFAN_GROUP_STR_MAX];
	struct mcfan_group_entry *ea, *eb;
	struct mcfan_flow_key k[2];
	unsigned int p;
	int ia, ib;

	for (p = 0; p < app->cfg.n_seq_pairs; p++) {
		/* each pair was checked before EAL (seq_check.c): two groups of --groups */
		if (mcfan_group_parse_list(app->cfg.seq_pairs[p], k, 2, NULL, 0) != 2)
			continue;
		ia = find_entry(app, &k[0]);
		ib = find_entry(app, &k[1]);
		if (ia < 0 || ib < 0)
			continue;
		ea = &app->group_entries[ia];
		eb = &app->group_entries[ib];
		if (ea->fanout != MCFAN_FANOUT_PARTITION || eb->fanout != MCFAN_FANOUT_PARTITION)
			continue;
		app->start_worker[eb->id] = (int16_t)ea->targets[0];
		if (eb->targets[0] == ea->targets[0])
			continue;
		mcfan_group_format(&ea->key, a, sizeof(a));
		mcfan_group_format(&eb->key, b, sizeof(b));
		MCFAN_LOG(INFO, "--seq-pair %s,%s: line B on worker lcore %u with line A (--fanout "
			  "partition gave it worker lcore %u)\n", a, b,
			  app->worker_lcore_ids[ea->targets[0]],
			  app->worker_lcore_ids[eb->targets[0]]);
		eb->targets[0] = ea->targets[0];
	}
}

int
mcfan_groups_start(struct mcfan_app *app)
{
	uint16_t eligible[MCFAN_MAX_WORKERS];
	unsigned int i, n = app->cfg.n_groups;
	int ret;

	app->group_entries = calloc(RTE_MAX(n, 1u), sizeof(app->group_entries[0]));
	if (app->group_entries == NULL)
		return -ENOMEM;
	for (i = 0; i < app->n_workers; i++)
		eligible[i] = (uint16_t)i;
	for (i = 0; i < n; i++) {
		app->group_entries[i].key = app->cfg.groups[i];
		app->group_entries[i].id = (uint16_t)i;
		app->group_entries[i].inst = app->cfg.group_inst[i]; /* --group-engine */
		app->group_entries[i].join_seq = ++app->join_seq_last;
		ret = mcfan_group_assign(&app->group_entries[i], mcfan_live_fanout(&app->live),
					 eligible, app->n_workers);
		if (ret < 0)
			return ret;
	}
	app->n_group_entries = n;
	for (i = 0; i < RTE_DIM(app->start_worker); i++)
		app->start_worker[i] = -1;
	pin_seq_pairs(app);
	app->group_entries_gen++;
	record_memberships(app, app->group_entries, n);
	if (n == 0)
		MCFAN_LOG(WARNING, "no groups joined (--groups): every multicast UDP frame counts "
			  "as unknown_group\n");
	return mcfan_groups_publish(app, app->group_entries, n);
}

int
mcfan_ctl_join(struct mcfan_app *app, const char *groups, const char *workers, char *msg,
	       size_t len)
{
	return mcfan_ctl_join_inst(app, groups, workers, 0, msg, len);
}

int
mcfan_ctl_join_inst(struct mcfan_app *app, const char *groups, const char *workers,
		    unsigned int inst, char *msg, size_t len)
{
	struct mcfan_control *c = app->control;
	struct mcfan_flow_key *keys = NULL, *all = NULL;
	struct mcfan_group_entry *entries = NULL;
	uint16_t eligible[MCFAN_MAX_WORKERS], *slots = NULL;
	uint64_t bits[MCFAN_WORKER_WORDS] = {0};
	char text[CTL_LIST_MAX], wtext[CTL_LIST_MAX], stext[MCFAN_CTL_MSG_MAX], *gtext = NULL;
	struct mcfan_igmp_ssm *ssm = NULL;
	unsigned int i, j, n_old, n_el, n_free, n, n_ssm = 0;
	enum mcfan_fanout fanout;
	int ret;

	mcfan_ctl_lock();
	ret = control_ready(app, "join", msg, len);
	if (ret < 0)
		goto out;
	if (inst >= RTE_MAX(app->n_inst, 1u) || inst > UINT8_MAX) {
		ret = mcfan_err_set(msg, len, -EINVAL, "join: no engine instance %u", inst);
		goto out;
	}
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	slots = calloc(MCFAN_MAX_GROUPS, sizeof(*slots));
	if (keys == NULL || slots == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "join: out of memory");
		goto out;
	}
	ssm = calloc(MCFAN_IGMP_SSM_MAX, sizeof(*ssm));
	if (ssm == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "join: out of memory");
		goto out;
	}
	ret = split_sources("join", groups, &gtext, ssm, &n_ssm, msg, len);
	if (ret < 0)
		goto out;
	ret = mcfan_igmp_join_check(app, ssm, n_ssm, msg, len); /* with the joined sources */
	if (ret < 0)
		goto out;
	ret = parse_groups("join", gtext, keys, msg, len);
	if (ret < 0)
		goto out;
	n = (unsigned int)ret;
	if (workers != NULL) {
		ret = mcfan_ctl_parse_workers(app, workers, eligible, wtext, sizeof(wtext));
		if (ret < 0) {
			ret = mcfan_err_set(msg, len, ret, "join: %s", wtext);
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
			/* with sources: the user wants the group's sources changed, which a join
			 * does only for another UDP port of the address; say how */
			for (j = 0; j < n_ssm; j++)
				if (memcmp(&ssm[j].key, &keys[i], sizeof(keys[i])) == 0)
					break;
			ret = mcfan_err_set(msg, len, -EEXIST, "join: group %s is already joined%s",
					    text, j < n_ssm ? ": its sources change with a leave "
					    "and a join again (a join adds sources to an address "
					    "only on another UDP port: docs/igmp.md)" : "");
			goto out;
		}
	}
	/* an instance that can hand on no copy of a group (tx dst-ip, an IPv6 group) */
	ret = mcfan_engine_inst_groups_check(app, inst, keys, n, "join", msg, len);
	if (ret < 0)
		goto out;
	n_old = app->n_group_entries;
	if (n_old + n > MCFAN_MAX_GROUPS) {
		ret = mcfan_err_set(msg, len, -ENOSPC, "join: %u joined + %u new groups is more than the "
			      "%d a table holds", n_old, n, MCFAN_MAX_GROUPS);
		goto out;
	}
	/* a tx output on a net_ring port must not send to a group of the new table */
	all = calloc(n_old + n, sizeof(*all));
	if (all == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "join: out of memory");
		goto out;
	}
	for (i = 0; i < n_old; i++)
		all[i] = app->group_entries[i].key;
	memcpy(&all[n_old], keys, n * sizeof(*keys));
	ret = mcfan_tx_loop_check(app, all, n_old + n, "join", msg, len);
	if (ret < 0)
		goto out;
	n_free = mcfan_slots_find(c->slots, n, slots);
	if (n_free < n) {
		ret = mcfan_err_set(msg, len, -ENOSPC, "join: only %u counter slots are free for %u "
			      "groups; slots of left groups free up once their queued frames are "
			      "counted", n_free, n);
		goto out;
	}
	entries = copy_entries(app, n);
	if (entries == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "join: out of memory");
		goto out;
	}
	fanout = mcfan_live_fanout(&app->live);
	for (i = 0; i < n; i++) {
		struct mcfan_group_entry *e = &entries[n_old + i];

		e->key = keys[i];
		e->id = slots[i];
		/* in the table from its first publication: never seen on instance 0 first */
		e->inst = (uint8_t)inst;
		e->join_seq = ++app->join_seq_last;
		ret = assign_workers(e, fanout, eligible, n_el, "join", msg, len);
		if (ret < 0)
			goto out;
	}
	/* a reused slot's old group is fully counted (see above): start it from zero */
	for (i = 0; i < n; i++) {
		if (!mcfan_slots_was_used(c->slots, slots[i]))
			continue;
		ret = mcfan_stats_slot_rebase(app, slots[i]);
		if (ret < 0) {
			ret = mcfan_err_set(msg, len, ret, "join: cannot rebase counter slot %u: %s",
				      slots[i], strerror(-ret));
			goto out;
		}
	}
	/* /metrics: series of their own while places are free, else group _other (stats.h) */
	ret = mcfan_stats_groups_joining(app, slots, n);
	if (ret < 0) {
		ret = mcfan_err_set(msg, len, ret, "join: the read side is not ready: %s",
				    strerror(-ret));
		goto out;
	}
	/* reader rings (readers engine): in their slots before the table tags frames with them */
	ret = mcfan_readers_join(app, keys, slots, n, inst, eligible, n_el, msg, len);
	if (ret < 0)
		goto out;
	/* their --seq extractors first, so the table brings them along (control/feed.h) */
	mcfan_feed_join(app, &entries[n_old], n);
	ret = replace_entries(app, "join", entries, n_old + n, NULL, 0, NULL, 0, msg, len);
	if (ret < 0)
		goto out;
	entries = NULL;
	for (i = 0; i < n_el; i++)
		mcfan_bits_set(bits, eligible[i]);
	/* found free just now, under the action lock: cannot be refused */
	if (mcfan_slots_take(c->slots, slots, n) < 0)
		MCFAN_LOG(ERR, "join: counter slots %u.. were refused after the join\n", slots[0]);
	for (i = 0; i < n; i++)
		memcpy(c->eligible[slots[i]], bits, sizeof(bits));
	update_port_filters(app);
	mcfan_igmp_sync(app, ssm, n_ssm); /* the reports go out now (control/igmp.h) */
	mcfan_group_format_list(keys, n, text, sizeof(text));
	format_workers(app, bits, true, wtext, sizeof(wtext));
	format_join_sources(keys, n, ssm, n_ssm, stext, sizeof(stext));
	ret = mcfan_err_set(msg, len, 0, "joined %s: counter slot%s %u%s, fan-out %s, workers %s%s",
		      text, n == 1 ? "" : "s", slots[0], n == 1 ? "" : " ..",
		      mcfan_fanout_name(fanout), wtext, stext);
out:
	free(entries);
	free(all);
	free(keys);
	free(slots);
	free(ssm);
	free(gtext);
	mcfan_ctl_unlock();
	return ret;
}

/* Message for a group that is not joined, naming joined groups of the same address. */
static int
not_joined(const struct mcfan_app *app, const char *what, const struct mcfan_flow_key *k,
	   char *msg, size_t len)
{
	return mcfan_group_not_joined(app->group_entries, app->n_group_entries, what, k, msg,
				      len);
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
	struct mcfan_group_entry *entries = NULL, *was = NULL;
	uint16_t *ids = NULL;
	bool *gone = NULL;
	char text[CTL_LIST_MAX], pairs[CTL_LIST_MAX] = "";
	unsigned int i, j, k = 0, n, n_old;
	int ret;

	mcfan_ctl_lock();
	n_old = app->n_group_entries;
	ret = control_ready(app, "leave", msg, len);
	if (ret < 0)
		goto out;
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	gone = calloc(RTE_MAX(n_old, 1u), sizeof(*gone));
	ids = calloc(RTE_MAX(n_old, 1u), sizeof(*ids));
	was = calloc(RTE_MAX(n_old, 1u), sizeof(*was));
	if (keys == NULL || gone == NULL || ids == NULL || was == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "leave: out of memory");
		goto out;
	}
	ret = mark_joined(app, "leave", groups, keys, gone, msg, len);
	if (ret < 0)
		goto out;
	n = (unsigned int)ret;
	entries = copy_entries(app, 0);
	if (entries == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "leave: out of memory");
		goto out;
	}
	for (i = 0, j = 0; i < n_old; i++) {
		if (gone[i]) {
			was[k] = app->group_entries[i];
			ids[k++] = app->group_entries[i].id;
		} else
			entries[j++] = app->group_entries[i];
	}
	/* the report keeps each group's row, counted from its slot until the slot is reused */
	ret = replace_entries(app, "leave", entries, j, was, k, pairs, sizeof(pairs), msg, len);
	if (ret < 0)
		goto out;
	entries = NULL;
	/* published and past the grace period: no RX lcore tags frames with these slots */
	for (i = 0; i < k; i++)
		mcfan_slots_retire(c->slots, ids[i]);
	update_port_filters(app);
	mcfan_igmp_sync(app, NULL, 0); /* leaves go out now (control/igmp.h) */
	mcfan_group_format_list(keys, n, text, sizeof(text));
	ret = mcfan_err_set(msg, len, 0, "left %s: %s frames count as unknown_group from now "
			    "on%s%s%s", text, n == 1 ? "its" : "their",
			    pairs[0] != '\0' ? "; pair " : "", pairs,
			    pairs[0] != '\0' ? " dissolved" : "");
out:
	free(entries);
	free(keys);
	free(gone);
	free(ids);
	free(was);
	mcfan_ctl_unlock();
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
	char text[CTL_LIST_MAX], pairs[CTL_LIST_MAX] = "", warn[320];
	unsigned int i, n = 0, n_el, n_old;
	int ret, f;

	mcfan_ctl_lock();
	n_old = app->n_group_entries;
	ret = control_ready(app, "set fanout", msg, len);
	if (ret < 0)
		goto out;
	f = mode != NULL ? mcfan_fanout_parse(mode) : -EINVAL;
	if (f < 0) {
		ret = mcfan_err_set(msg, len, -EINVAL, "set fanout: '%.*s' is not a mode: partition or "
			      "replicate", CTL_LIST_MAX, mode != NULL ? mode : "");
		goto out;
	}
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	sel = calloc(RTE_MAX(n_old, 1u), sizeof(*sel));
	if (keys == NULL || sel == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "set fanout: out of memory");
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
		ret = mcfan_err_set(msg, len, -ENOMEM, "set fanout: out of memory");
		goto out;
	}
	for (i = 0; i < n_old; i++) {
		if (!sel[i])
			continue;
		slot_workers(c, entries[i].id, app, eligible, &n_el);
		ret = assign_workers(&entries[i], (enum mcfan_fanout)f, eligible, n_el,
				     "set fanout", msg, len);
		if (ret < 0)
			goto out;
	}
	if (n_old > 0) {
		ret = replace_entries(app, "set fanout", entries, n_old, NULL, 0, pairs, sizeof(pairs),
				      msg, len);
		if (ret < 0)
			goto out;
		entries = NULL;
	}
	/* the start's warning, in the same words: replicate to tx outputs sends N times */
	mcfan_tx_replicate_warning(app, (enum mcfan_fanout)f, "set fanout", warn, sizeof(warn));
	if (groups == NULL) {
		mcfan_atomic_u32_store(&app->live.fanout, (uint32_t)f, memory_order_relaxed);
		ret = mcfan_err_set(msg, len, 0, "fan-out %s for every group (%u) and later "
			      "joins%s%s%s%s%s", mcfan_fanout_name((enum mcfan_fanout)f), n_old,
			      pairs[0] != '\0' ? "; pair " : "", pairs,
			      pairs[0] != '\0' ? " dissolved (set pair again)" : "",
			      warn[0] != '\0' ? "; " : "", warn);
	} else {
		mcfan_group_format_list(keys, n, text, sizeof(text));
		ret = mcfan_err_set(msg, len, 0, "fan-out %s for %s%s%s%s%s%s",
			      mcfan_fanout_name((enum mcfan_fanout)f), text,
			      pairs[0] != '\0' ? "; pair " : "", pairs,
			      pairs[0] != '\0' ? " dissolved (set pair again)" : "",
			      warn[0] != '\0' ? "; " : "", warn);
	}
out:
	free(entries);
	free(keys);
	free(sel);
	mcfan_ctl_unlock();
	return ret;
}

int
mcfan_ctl_set_groups_inst(struct mcfan_app *app, const char *groups, unsigned int inst,
			  const char *what, char *msg, size_t len)
{
	struct mcfan_flow_key *keys = NULL;
	struct mcfan_group_entry *entries = NULL;
	char text[CTL_LIST_MAX];
	bool *sel = NULL;
	unsigned int i, n, n_old, moved = 0;
	int ret;

	mcfan_ctl_lock();
	n_old = app->n_group_entries;
	ret = control_ready(app, what, msg, len);
	if (ret < 0)
		goto out;
	if (inst >= app->n_inst || inst > UINT8_MAX) {
		ret = mcfan_err_set(msg, len, -EINVAL, "%s: no engine instance %u", what, inst);
		goto out;
	}
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	sel = calloc(RTE_MAX(n_old, 1u), sizeof(*sel));
	if (keys == NULL || sel == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "%s: out of memory", what);
		goto out;
	}
	ret = mark_joined(app, what, groups, keys, sel, msg, len);
	if (ret < 0)
		goto out;
	n = (unsigned int)ret;
	ret = mcfan_engine_inst_groups_check(app, inst, keys, n, what, msg, len);
	if (ret < 0)
		goto out;
	entries = copy_entries(app, 0);
	if (entries == NULL) {
		ret = mcfan_err_set(msg, len, -ENOMEM, "%s: out of memory", what);
		goto out;
	}
	for (i = 0; i < n_old; i++) {
		if (!sel[i] || entries[i].inst == inst)
			continue;
		entries[i].inst = (uint8_t)inst;
		moved++;
	}
	mcfan_group_format_list(keys, n, text, sizeof(text));
	if (moved == 0) {
		ret = mcfan_err_set(msg, len, -EALREADY, "%s: %s already on engine instance %u",
				    what, text, inst);
		goto out;
	}
	/* a group readers serve now gets its full reader ring before the table says so */
	ret = mcfan_readers_grow(app, entries, n_old, NULL, 0, msg, len);
	if (ret < 0)
		goto out;
	/* published like a join: the RX side stamps the new instance from its next burst;
	 * copies already in a worker ring keep theirs, so none is lost or handed on twice */
	ret = replace_entries(app, what, entries, n_old, NULL, 0, NULL, 0, msg, len);
	if (ret < 0)
		goto out;
	entries = NULL;
	ret = mcfan_err_set(msg, len, 0, "%s: engine instance %u (%s%s%s) from the next RX "
			    "burst", text, inst, app->cfg.engine_inst[inst].name,
			    app->cfg.engine_inst[inst].args[0] != '\0' ? ":" : "",
			    app->cfg.engine_inst[inst].args);
out:
	free(entries);
	free(keys);
	free(sel);
	mcfan_ctl_unlock();
	return ret;
}

bool
mcfan_groups_drain_pending(const struct mcfan_app *app)
{
	const struct mcfan_control *c = app->control;

	return c != NULL && mcfan_slots_drain_pending(c->slots);
}

/*
 * A drain just ended: the slots retired after done (up to the new done_seq) are free, and
 * every copy of their last memberships is in its engine (the copy counters read were the
 * workers' handed). Tell the reader rings (control/readers.c), which retire the left
 * groups' rings, and the pcap writer (control/pcap.c), which closes their files once it has
 * taken every copy queued before now. Under the action lock (slot_history).
 */
static void
drained_tell(struct mcfan_app *app, struct mcfan_control *c, uint64_t done)
{
	uint64_t upto = mcfan_slots_done_seq(c->slots), rs;
	unsigned int n = 0;
	uint16_t g;

	for (g = 0; g < MCFAN_MAX_GROUPS; g++) {
		rs = mcfan_slots_retired_seq(c->slots, g);
		if (rs <= done || rs > upto || app->slot_history[g].join_seq[0] == 0)
			continue;
		c->drained_slot[n] = g;
		c->drained_join[n++] = app->slot_history[g].join_seq[0];
	}
	/* the left groups' reader rings are retired (control/readers.c) */
	mcfan_readers_drained(app, c->drained_slot, n);
	if (mcfan_pcap_active())
		mcfan_pcap_drained(app, c->drained_slot, c->drained_join, n);
}

void
mcfan_groups_tick(struct mcfan_app *app)
{
	struct mcfan_control *c = app->control;
	unsigned int k, w, nw = app->n_workers;
	uint64_t done;

	if (c == NULL || !mcfan_slots_drain_pending(c->slots))
		return;
	/* the tails first, then the counters (mcfan_slots_drain_step()) */
	for (k = 0; k < app->n_rx * nw; k++) {
		c->prod[k] = mcfan_ring_tail(app->rings[k], true);
		c->cons[k] = mcfan_ring_tail(app->rings[k], false);
	}
	/* each worker's copies handed to their engines (struct mcfan_lcore handed), not
	 * ws->frames: that one is counted before the engines' deliver(), so a drain that
	 * waited for it could end while a worker, preempted between the two, still held
	 * copies of the slot that its pcap engine had not queued for the writer yet (which
	 * then closed the left group's file too early: docs/delivery.md) */
	for (w = 0; w < nw; w++)
		c->copies[w] = (uint32_t)mcfan_atomic_u64_load(
			&app->lcores[app->worker_lcore_ids[w]].handed, memory_order_acquire);
	done = mcfan_slots_done_seq(c->slots);
	if (mcfan_slots_drain_step(c->slots, c->prod, c->cons, c->copies) == 1)
		drained_tell(app, c, done);
}

static void
control_free(struct mcfan_control *c)
{
	if (c == NULL)
		return;
	mcfan_slots_free(c->slots);
	free(c->prod);
	free(c->cons);
	free(c->copies);
	free(c);
}

int
mcfan_groups_control_init(struct mcfan_app *app)
{
	struct mcfan_control *c;
	size_t n_rings = (size_t)RTE_MAX(app->n_rx * app->n_workers, 1u);
	unsigned int i, w;
	uint16_t id;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->slots = mcfan_slots_create(app->n_rx, app->n_workers);
	c->prod = calloc(n_rings, sizeof(c->prod[0]));
	c->cons = calloc(n_rings, sizeof(c->cons[0]));
	c->copies = calloc(RTE_MAX(app->n_workers, 1u), sizeof(c->copies[0]));
	if (c->slots == NULL || c->prod == NULL || c->cons == NULL || c->copies == NULL) {
		control_free(c);
		return -ENOMEM;
	}
	for (i = 0; i < app->n_group_entries; i++) {
		id = app->group_entries[i].id;
		if (mcfan_slots_claim(c->slots, id) < 0) {
			control_free(c);
			return -EINVAL;
		}
		if (app->start_worker[id] >= 0) /* a --seq-pair's line B (pin_seq_pairs()) */
			mcfan_bits_set(c->eligible[id], (unsigned int)app->start_worker[id]);
		else
			for (w = 0; w < app->n_workers; w++)
				mcfan_bits_set(c->eligible[id], w);
	}
	mcfan_ctl_lock();
	app->control = c;
	mcfan_ctl_unlock();
	return 0;
}

void
mcfan_groups_control_free(struct mcfan_app *app)
{
	struct mcfan_control *c;

	mcfan_ctl_lock();
	c = app->control;
	app->control = NULL;
	mcfan_ctl_unlock();
	control_free(c);
}
