/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Reader rings, the control side (control/readers.h, docs/readers.md).
 */

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_spinlock.h>

#include "mcfan.h"
#include "log.h"
#include "mcfan_parse.h"
#include "datapath/engine.h"
#include "control/action.h"
#include "control/readers.h"

/** Rings alive or waiting to be freed at once (a group joined again by another worker gets a
 * new ring; a retired one is freed after a worker grace period: retire_start()). */
#define READERS_RINGS_MAX (2 * MCFAN_MAX_GROUPS)
/** How often dead sleepers are looked for, s. */
#define READERS_REAP_PERIOD_S 1
/** Frames of the ring of a group no readers instance serves (the smallest ring the format
 * allows): it exists for its serve words, nobody writes it (docs/readers.md). */
#define READERS_IDLE_SLOTS MCFAN_RD_SLOTS_MIN
/** Reader rows of such a ring: a reader opening it is told by the serve words, takes none. */
#define READERS_IDLE_READERS 1u

static_assert(MCFAN_RW_TABLE_SLOTS == MCFAN_MAX_GROUPS, "a ring pointer per counter slot");
static_assert(MCFAN_RW_TABLE_WORKERS >= MCFAN_MAX_WORKERS, "a counter block per worker");

/* What the read side last saw of one row of a ring's reader table (the tally below). */
struct reader_tally {
	uint64_t owner;                  /* owner word last seen (pid 0: no reader) */
	uint64_t frames, lost, laps;     /* its reader's counts last seen */
	bool own;                        /* its reader has series of its own (mcfan_readers_view) */
};

/* Where a ring is in its life (action lock). A ring nobody serves any more is retired: a
 * left group's once its counter slot is drained (every copy handed to its engine,
 * mcfan_readers_drained()), a replaced one (superseded) at the next tick; then, once a
 * worker grace period since has passed and its owner no longer lists it for a deferred wake,
 * it goes into the defer queue, and is freed after one more grace period (reclaimed()). */
enum ring_life {
	RING_LIVE = 0,   /* served, or not yet retired */
	RING_LEFT,       /* its group is left: waits for the slot's drain */
	RING_RETIRING,   /* retired (mcfan_rw_retire()): waits for token and its owner's list */
	RING_WAITING,    /* in the defer queue: freed after its grace period */
};

struct readers_ring {
	struct mcfan_rw *w;
	struct mcfan_flow_key key;
	bool superseded;                 /* a newer ring of the group exists (action lock) */
	bool name_taken;                 /* a newer ring was renamed over the name (action lock) */
	uint8_t life;                    /* enum ring_life (action lock) */
	bool renew_failed;               /* its name was removed and no new ring could be made:
					  * said once (names_check(), action lock) */
	uint16_t slot;                   /* the counter slot it was last stored in */
	uint64_t token;                  /* RING_RETIRING: the worker grace period to wait for */
	/* the tally: [w->n_readers], made with the ring; read and written under tally_lock */
	struct reader_tally *tally;
	struct mcfan_readers_gone gone;  /* readers without own series gone, tally_lock */
};

/* The control side's state; table first: app->readers points at it. */
struct mcfan_readers {
	struct mcfan_rw_table table;
	char prefix[128];
	uint32_t n_slots;                /* frames a ring holds: --reader-ring-frames */
	uint32_t wake_frames;            /* --reader-wake-frames (coalesced wakes) */
	uint64_t wake_cycles;            /* --reader-wake-us in TSC cycles */
	/* rings[0..n_rings): appended under the action lock (release store of n_rings after
	 * the entry); a freed ring's entry is removed (the later ones move down) under the action
	 * lock and tally_lock; read by the action lock's holder, or by any control
	 * thread under tally_lock */
	struct readers_ring rings[READERS_RINGS_MAX];
	struct mcfan_atomic_u32 n_rings;
	/* retired rings after their grace period (app->wqsbr; NULL without it: kept to exit) */
	struct rte_rcu_qsbr_dq *dq;
	unsigned int n_queued;             /* rings in dq (action lock) */
	struct mcfan_atomic_u64 n_freed;   /* rings freed while mcfan runs, since the start */
	/* rings made again because their name was removed from /dev/shm (names_check()) */
	struct mcfan_atomic_u64 n_recreated;
	uint64_t next_reap_tsc;
	/* the read side's memory of the readers (rings[].tally, gone, n_own), so that /metrics
	 * counters never go back when readers come and go: any control thread (console,
	 * telemetry, /metrics, the tick), never a data lcore; also the rings[] list itself for a
	 * thread without the action lock (a freed ring's entry goes under it) */
	rte_spinlock_t tally_lock;
	unsigned int n_own;              /* readers present now with series of their own */
};

static struct mcfan_readers *
readers_of(const struct mcfan_app *app)
{
	return app->readers == NULL ? NULL :
		container_of(app->readers, struct mcfan_readers, table);
}

bool
mcfan_readers_wanted(const struct mcfan_app *app)
{
	unsigned int k;

	if (app->n_workers == 0)
		return false;
	for (k = 0; k < app->n_inst; k++)
		if (strcmp(app->inst_engine[k]->name, MCFAN_READERS_ENGINE) == 0)
			return true;
	return false;
}

/* The worker partition gives the group among eligible: the ring's one writer. */
static int
owner_of(const struct mcfan_flow_key *k, const uint16_t *eligible, unsigned int n_el,
	 uint16_t *owner)
{
	struct mcfan_group_entry *e = calloc(1, sizeof(*e));
	int ret;

	if (e == NULL)
		return -ENOMEM;
	e->key = *k;
	ret = mcfan_group_assign(e, MCFAN_FANOUT_PARTITION, eligible, n_el);
	if (ret == 0)
		*owner = e->targets[0];
	free(e);
	return ret;
}

/* Bytes free in /dev/shm for an unprivileged process (statvfs f_bavail), or -errno. */
static int64_t
shm_free_bytes(void)
{
	struct statvfs sv;

	if (statvfs("/dev/shm", &sv) < 0)
		return -errno;
	return (int64_t)((uint64_t)sv.f_bavail * sv.f_frsize);
}

/* Is w a full ring (--reader-ring-frames), not the idle one of a group readers do not serve? */
static bool
ring_full(const struct mcfan_readers *rd, const struct mcfan_rw *w)
{
	return w->n_slots >= rd->n_slots;
}

/* Find or make the ring of key, written by owner: full (--reader-ring-frames) when the
 * readers engine serves the group, else the idle ring (READERS_IDLE_SLOTS) unless a full one
 * is there already. A full ring replaces an idle one of the same writer as a ring of another
 * writer replaces the old: same name, the old one superseded. renew: a new ring even when
 * the group's is fit (its name was removed from /dev/shm: names_check()). */
static int
ring_for(struct mcfan_readers *rd, const struct mcfan_flow_key *k, uint16_t owner, bool full,
	 bool renew, struct mcfan_rw **out, char *msg, size_t len)
{
	uint32_t n_slots = full ? rd->n_slots : RTE_MIN(rd->n_slots, READERS_IDLE_SLOTS);
	uint32_t n_readers = full ? MCFAN_RW_READERS_DEFAULT : READERS_IDLE_READERS;
	unsigned int i, n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_relaxed);
	char addr[INET6_ADDRSTRLEN], text[MCFAN_GROUP_STR_MAX];
	struct readers_ring *old = NULL;
	struct mcfan_rw *w;
	int ret;

	for (i = 0; i < n; i++) {
		/* a retired ring is never served again: a rejoin gets a fresh one */
		if (!rd->rings[i].superseded && rd->rings[i].life < RING_RETIRING &&
		    mcfan_flow_key_equal(&rd->rings[i].key, k)) {
			old = &rd->rings[i];
			break;
		}
	}
	if (!renew && old != NULL && old->w->owner == owner && (!full || ring_full(rd, old->w))) {
		*out = old->w;
		return 0;
	}
	mcfan_group_format(k, text, sizeof(text));
	if (n == READERS_RINGS_MAX)
		return mcfan_err_set(msg, len, -ENOSPC, "reader ring for %s: %d rings alive or "
				     "waiting to be freed already (a left or replaced group's ring is "
				     "freed once its last copies are written and a worker grace period "
				     "has passed: try again, or leave groups first)", text,
				     READERS_RINGS_MAX);
	inet_ntop(k->family == MCFAN_FAMILY_IPV4 ? AF_INET : AF_INET6, k->addr, addr,
		  sizeof(addr));
	/* the slot size is the same either way: a frame never fits one ring and not the other */
	ret = mcfan_rw_create(rd->prefix, addr, k->udp_port, text, n_slots,
			      MCFAN_RW_SLOT_SIZE_DEFAULT, n_readers, owner, &w);
	if (ret == -EADDRINUSE)
		return mcfan_err_set(msg, len, ret, "reader ring for %s: /dev/shm/mcfan.%s.%s.%u is "
				     "in use by another running mcfan with the same file prefix: give "
				     "one of them its own --file-prefix", text, rd->prefix, addr,
				     k->udp_port);
	if (ret == -ENOSPC)
		return mcfan_err_set(msg, len, ret, "reader ring for %s: /dev/shm/mcfan.%s.%s.%u "
				     "needs %" PRIu64 " bytes and /dev/shm has %" PRId64 " bytes free: "
				     "give a smaller --reader-ring-frames or a larger /dev/shm", text,
				     rd->prefix, addr, k->udp_port,
				     mcfan_rw_ring_bytes(n_slots, MCFAN_RW_SLOT_SIZE_DEFAULT,
							 n_readers), shm_free_bytes());
	if (ret < 0)
		return mcfan_err_set(msg, len, ret, "reader ring for %s in /dev/shm: %s", text,
				     strerror(-ret));
	rd->rings[n].tally = calloc(w->n_readers, sizeof(rd->rings[n].tally[0]));
	if (rd->rings[n].tally == NULL) {
		mcfan_rw_destroy(w);
		return mcfan_err_set(msg, len, -ENOMEM, "reader ring for %s: out of memory", text);
	}
	memset(&rd->rings[n].gone, 0, sizeof(rd->rings[n].gone));
	/* coalesced wakes (lib/reader): the budget in TSC cycles, the workers' clock */
	mcfan_rw_set_wake(w, rd->wake_frames, rd->wake_cycles);
	/* the old ring (another writer) is retired at the next tick (the new one is in the slot
	 * by then); copies in flight may still reach it until the grace period after that */
	if (old != NULL)
		old->superseded = true;
	/* the name is the new ring's now: a retired ring of the group must not unlink it */
	for (i = 0; i < n; i++)
		if (mcfan_flow_key_equal(&rd->rings[i].key, k))
			rd->rings[i].name_taken = true;
	rd->rings[n].w = w;
	rd->rings[n].key = *k;
	rd->rings[n].superseded = false;
	rd->rings[n].name_taken = false;
	rd->rings[n].life = RING_LIVE;
	rd->rings[n].renew_failed = false;
	rd->rings[n].slot = UINT16_MAX;
	rd->rings[n].token = 0;
	mcfan_atomic_u32_store(&rd->n_rings, n + 1, memory_order_release);
	*out = w;
	return 0;
}

/* Record the counter slot ring w is stored in now (its entry, found by w). Action lock. */
static void
ring_slot_set(struct mcfan_readers *rd, const struct mcfan_rw *w, uint16_t slot)
{
	unsigned int i, n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_relaxed);

	for (i = n; i-- > 0;) {
		if (rd->rings[i].w == w) {
			rd->rings[i].slot = slot;
			return;
		}
	}
}

static void retire_start(struct mcfan_app *app, struct mcfan_readers *rd,
			 struct readers_ring *rg);

/* Does the readers engine write a group of instance inst whose ring owner writes, when the
 * owner's lcore has `set engine LCORE` selection sel (mcfan.h, worker_engine_sel; 0: by
 * group)? */
static bool
serves_readers(const struct mcfan_app *app, unsigned int inst, uint32_t sel)
{
	const struct mcfan_engine *e;
	int k;

	e = mcfan_engine_of_sel(app, sel, &k);
	if (e == NULL)
		e = inst < app->n_inst ? app->inst_engine[inst] : NULL;
	return e != NULL && strcmp(e->name, MCFAN_READERS_ENGINE) == 0;
}

/* The selection of the lcore of worker owner: sel when it is sel_lc (a change not yet
 * published), else the lcore's own. */
static uint32_t
owner_sel(const struct mcfan_app *app, uint16_t owner, const struct mcfan_lcore *sel_lc,
	  uint32_t sel)
{
	const struct mcfan_lcore *lc = &app->lcores[app->worker_lcore_ids[owner]];

	return lc == sel_lc ? sel :
	       mcfan_atomic_u32_load(&lc->worker_engine_sel, memory_order_acquire);
}

int
mcfan_readers_join(struct mcfan_app *app, const struct mcfan_flow_key *keys,
		   const uint16_t *slots, unsigned int n, unsigned int inst,
		   const uint16_t *eligible, unsigned int n_eligible, char *msg, size_t len)
{
	struct mcfan_readers *rd = readers_of(app);
	struct mcfan_rw *w;
	uint16_t owner = 0;
	unsigned int i, made;
	bool full;
	int ret = 0;

	if (rd == NULL)
		return 0;
	made = mcfan_atomic_u32_load(&rd->n_rings, memory_order_relaxed);
	for (i = 0; i < n && ret == 0; i++) {
		ret = owner_of(&keys[i], eligible, n_eligible, &owner);
		if (ret < 0) {
			ret = mcfan_err_set(msg, len, ret, "reader ring: no worker for the group");
			break;
		}
		full = serves_readers(app, inst, owner_sel(app, owner, NULL, 0));
		if (slots[i] >= MCFAN_RW_TABLE_SLOTS) {
			ret = mcfan_err_set(msg, len, -EINVAL, "reader ring: counter slot %u",
					    slots[i]);
			break;
		}
		ret = ring_for(rd, &keys[i], owner, full, false, &w, msg, len);
		if (ret < 0)
			break;
		/* before the table that tags frames with the slot is published */
		mcfan_rw_slot_store(&rd->table, slots[i], w);
	}
	if (ret < 0) {
		/* the join is refused: its slots never tagged a frame, so the rings made for it
		 * are retired now (a ring of a left group it would have reused keeps its slot
		 * and waits for that slot's drain) */
		for (i = made; i < mcfan_atomic_u32_load(&rd->n_rings, memory_order_relaxed); i++)
			retire_start(app, rd, &rd->rings[i]);
		return ret;
	}
	for (i = 0; i < n; i++)
		ring_slot_set(rd, mcfan_rw_slot_load(&rd->table, slots[i]), slots[i]);
	return 0;
}

int
mcfan_readers_grow(struct mcfan_app *app, const struct mcfan_group_entry *entries,
		   unsigned int n_entries, const struct mcfan_lcore *sel_lc, uint32_t sel,
		   char *msg, size_t len)
{
	struct mcfan_readers *rd = readers_of(app);
	const struct mcfan_group_entry *g;
	struct readers_ring *rg;
	unsigned int i, n;
	struct mcfan_rw *w;
	int k, ret;

	if (rd == NULL)
		return 0;
	if (entries == NULL) {
		entries = app->group_entries;
		n_entries = app->n_group_entries;
	}
	/* the rings made here are appended: only those there before are looked at */
	n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	for (i = 0; i < n; i++) {
		rg = &rd->rings[i];
		if (rg->superseded || ring_full(rd, rg->w))
			continue;
		k = mcfan_group_entry_find(entries, n_entries, &rg->key);
		if (k < 0)
			continue;
		g = &entries[k];
		if (!serves_readers(app, g->inst, owner_sel(app, rg->w->owner, sel_lc, sel)))
			continue;
		ret = g->id < MCFAN_RW_TABLE_SLOTS ?
		      ring_for(rd, &rg->key, rg->w->owner, true, false, &w, msg, len) :
		      mcfan_err_set(msg, len, -EINVAL, "reader ring: counter slot %u", g->id);
		if (ret < 0) {
			/* the change is refused: the rings made so far say who serves them */
			mcfan_readers_sync(app);
			return ret;
		}
		/* release: before the change that sends the group's copies to readers is */
		mcfan_rw_slot_store(&rd->table, g->id, w);
		ring_slot_set(rd, w, g->id);
	}
	return 0;
}

static void reclaimed(void *p, void *e, unsigned int n);

/* The EAL file prefix: the last part of the runtime directory (/var/run/dpdk/PREFIX). */
static void
file_prefix(char *buf, size_t len)
{
	const char *dir = rte_eal_get_runtime_dir(), *p = strrchr(dir, '/');

	snprintf(buf, len, "%s", p != NULL && p[1] != '\0' ? p + 1 : "rte");
}

int
mcfan_readers_start(struct mcfan_app *app)
{
	struct mcfan_readers *rd;
	uint16_t eligible[MCFAN_MAX_WORKERS], slot, pin;
	uint64_t ring, idle, need;
	unsigned int n_full = 0;
	int64_t avail;
	char msg[256], prefix[sizeof(rd->prefix)];
	struct timespec ts;
	unsigned int i;
	int ret;

	/* a killed run's rings stay until someone removes them: ours, if their writer is gone;
	 * on every start of the prefix, with the readers engine or not (each ring holds
	 * --reader-ring-frames slots of /dev/shm's memory) */
	file_prefix(prefix, sizeof(prefix));
	ret = mcfan_rw_remove_stale(prefix);
	if (ret > 0)
		MCFAN_LOG(INFO, "reader rings: removed %d stale ring%s of file prefix %s from "
			  "/dev/shm (their writer is gone)\n", ret, ret == 1 ? "" : "s", prefix);
	if (!mcfan_readers_wanted(app))
		return 0;
	rd = rte_zmalloc("mcfan_readers", sizeof(*rd), 0);
	if (rd == NULL) {
		MCFAN_LOG(ERR, "reader rings: out of memory\n");
		return -ENOMEM;
	}
	rte_spinlock_init(&rd->tally_lock);
	if (app->wqsbr != NULL) {
		struct rte_rcu_qsbr_dq_parameters dp = {
			.name = "mcfan_readers",
			/* the action lock serialises its users */
			.flags = RTE_RCU_QSBR_DQ_MT_UNSAFE,
			.size = READERS_RINGS_MAX,
			.esize = sizeof(struct mcfan_rw *),
			/* no reclaim inside an enqueue: reclaim_rings() does it, in the tick */
			.trigger_reclaim_limit = READERS_RINGS_MAX + 1,
			.max_reclaim_size = READERS_RINGS_MAX,
			.free_fn = reclaimed,
			.p = rd,
			.v = app->wqsbr,
		};

		rd->dq = rte_rcu_qsbr_dq_create(&dp);
		if (rd->dq == NULL) {
			MCFAN_LOG(ERR, "reader rings: cannot create the defer queue of retired "
				  "rings: %s\n", rte_strerror(rte_errno));
			rte_free(rd);
			return -ENOMEM;
		}
	}
	file_prefix(rd->prefix, sizeof(rd->prefix));
	rd->n_slots = app->cfg.reader_ring_frames != 0 ? app->cfg.reader_ring_frames :
		      MCFAN_RW_SLOTS_DEFAULT;
	rd->wake_frames = app->cfg.reader_wake_frames;
	rd->wake_cycles = (uint64_t)app->cfg.reader_wake_us * app->tsc_hz / 1000000u;
	clock_gettime(CLOCK_REALTIME, &ts);
	rd->table.base_tsc = rte_rdtsc();
	rd->table.base_ns = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
	rd->table.ns_mult = mcfan_lat_ns_mult(app->tsc_hz);
	ring = mcfan_rw_ring_bytes(rd->n_slots, MCFAN_RW_SLOT_SIZE_DEFAULT,
				   MCFAN_RW_READERS_DEFAULT);
	idle = mcfan_rw_ring_bytes(RTE_MIN(rd->n_slots, READERS_IDLE_SLOTS),
				   MCFAN_RW_SLOT_SIZE_DEFAULT, READERS_IDLE_READERS);
	/* full rings for the groups of readers instances; the others' are idle (ring_for()) */
	for (i = 0; i < app->n_group_entries; i++)
		if (serves_readers(app, app->group_entries[i].inst, 0))
			n_full++;
	need = (uint64_t)n_full * ring + (uint64_t)(app->n_group_entries - n_full) * idle;
	avail = shm_free_bytes();
	if (avail >= 0 && need > (uint64_t)avail) {
		MCFAN_LOG(ERR, "reader rings: %u groups served by readers x %" PRIu64 " bytes "
			  "(--reader-ring-frames %u) + %u others x %" PRIu64 " bytes = %" PRIu64
			  " bytes do not fit the %" PRId64 " bytes free in /dev/shm: give a "
			  "smaller --reader-ring-frames, route fewer groups to readers or give a "
			  "larger /dev/shm\n", n_full, ring, rd->n_slots,
			  app->n_group_entries - n_full, idle, need, avail);
		rte_rcu_qsbr_dq_delete(rd->dq);
		rte_free(rd);
		return -ENOSPC;
	}
	app->readers = &rd->table;
	for (i = 0; i < app->n_workers; i++)
		eligible[i] = (uint16_t)i;
	for (i = 0; i < app->n_group_entries; i++) {
		slot = app->group_entries[i].id;
		/* a group the start gave one worker (app->start_worker): that one writes */
		pin = app->start_worker[slot] >= 0 ? (uint16_t)app->start_worker[slot] : 0;
		ret = mcfan_readers_join(app, &app->group_entries[i].key, &slot, 1,
					 app->group_entries[i].inst,
					 app->start_worker[slot] >= 0 ? &pin : eligible,
					 app->start_worker[slot] >= 0 ? 1 : app->n_workers, msg,
					 sizeof(msg));
		if (ret < 0) {
			MCFAN_LOG(ERR, "%s\n", msg);
			mcfan_readers_free(app);
			return ret;
		}
	}
	mcfan_readers_sync(app);
	/* once: what the rings hold of /dev/shm (RAM), and what to change if that is too much */
	MCFAN_LOG(INFO, "reader rings: %u in /dev/shm/mcfan.%s.*: %u served by readers x %"
		  PRIu64 " KiB (%u frames of up to %u bytes each) + %u idle x %" PRIu64 " KiB "
		  "(another engine serves their group; full when readers does) = %" PRIu64
		  " KiB reserved; fewer with a smaller --reader-ring-frames or fewer groups "
		  "routed to readers\n", mcfan_atomic_u32_load(&rd->n_rings, memory_order_relaxed),
		  rd->prefix, n_full, ring / 1024, rd->n_slots,
		  MCFAN_RW_SLOT_SIZE_DEFAULT - MCFAN_RD_SLOT_HDR, app->n_group_entries - n_full,
		  idle / 1024, need / 1024);
	return 0;
}

/* The engine the worker lcore lc hands a copy of entry g to: its `set engine LCORE`
 * selection (mcfan.h, worker_engine_sel; *by_lcore true) or the group's instance. */
static const struct mcfan_engine *
copy_engine(const struct mcfan_app *app, const struct mcfan_lcore *lc,
	    const struct mcfan_group_entry *g, bool *by_lcore)
{
	uint32_t sel = mcfan_atomic_u32_load(&lc->worker_engine_sel, memory_order_acquire);
	const struct mcfan_engine *e;
	int inst;

	e = mcfan_engine_of_sel(app, sel, &inst);
	*by_lcore = e != NULL;
	if (e != NULL)
		return e;
	return g->inst < app->n_inst ? app->inst_engine[g->inst] : NULL;
}

void
mcfan_readers_sync(struct mcfan_app *app)
{
	struct mcfan_readers *rd = readers_of(app);
	const struct mcfan_group_entry *g;
	const struct mcfan_engine *e;
	const struct mcfan_lcore *lc;
	unsigned int i, n, lcore;
	int k;
	bool by_lcore;

	if (rd == NULL)
		return;
	n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	for (i = 0; i < n; i++) {
		struct readers_ring *rg = &rd->rings[i];

		if (rg->superseded) {
			mcfan_rw_set_serve(rg->w, MCFAN_RD_SERVE_MOVED, NULL, 0);
			continue;
		}
		k = mcfan_group_entry_find(app->group_entries, app->n_group_entries, &rg->key);
		g = k >= 0 ? &app->group_entries[k] : NULL;
		if (g == NULL) {
			mcfan_rw_set_serve(rg->w, MCFAN_RD_SERVE_LEFT, NULL, 0);
			/* retired once its slot is drained (mcfan_readers_drained()) */
			if (rg->life == RING_LIVE)
				rg->life = RING_LEFT;
			continue;
		}
		if (rg->life == RING_LEFT) /* joined again before the drain: served again */
			rg->life = RING_LIVE;
		lcore = app->worker_lcore_ids[rg->w->owner];
		lc = &app->lcores[lcore];
		e = copy_engine(app, lc, g, &by_lcore);
		if (e != NULL && strcmp(e->name, MCFAN_READERS_ENGINE) == 0)
			mcfan_rw_set_serve(rg->w, MCFAN_RD_SERVE_READERS, NULL, 0);
		else if (by_lcore)
			mcfan_rw_set_serve(rg->w, MCFAN_RD_SERVE_LCORE, e != NULL ? e->name : "?",
					   lcore);
		else
			mcfan_rw_set_serve(rg->w, MCFAN_RD_SERVE_ENGINE, e != NULL ? e->name : "?",
					   0);
	}
}

static void
gone_add(struct mcfan_readers_gone *g, uint64_t frames, uint64_t lost, uint64_t laps)
{
	g->frames += frames;
	g->lost += lost;
	g->laps += laps;
}

/*
 * Bring row x->slot of ring ri's tally up to x (mcfan_rw_reader_at()): a reader that left
 * (its row freed, or taken by another reader) has its counts added to the ring's gone when
 * it had no series of its own (all of them when the row was freed and not taken since, else
 * the counts last seen: the new reader zeroed them); a reader seen for the first time gets
 * its place. The counts kept never go back. tally_lock held.
 */
static void
tally_row(const struct mcfan_app *app, struct mcfan_readers *rd, unsigned int ri,
	  const struct mcfan_rw_reader_info *x)
{
	struct readers_ring *r = &rd->rings[ri];
	struct reader_tally *t = &r->tally[x->slot];
	unsigned int cap = app->cfg.metrics_max_groups;
	bool freed_since = x->pid <= 0 && (x->owner >> 32) == (t->owner >> 32) + 1;

	if (t->owner != x->owner) {
		if (mcfan_rd_owner_pid(t->owner) > 0) {
			if (freed_since) {
				t->frames = RTE_MAX(t->frames, x->frames);
				t->lost = RTE_MAX(t->lost, x->lost);
				t->laps = RTE_MAX(t->laps, x->laps);
			}
			if (!t->own)
				gone_add(&r->gone, t->frames, t->lost, t->laps);
			else
				rd->n_own--;
			/* freed again after readers came unseen: the last one's counts */
			if (x->pid <= 0 && !freed_since)
				gone_add(&r->gone, x->frames, x->lost, x->laps);
		} else if (x->pid <= 0) {
			/* readers came and left unseen: the last one's counts are in the row */
			gone_add(&r->gone, x->frames, x->lost, x->laps);
		}
		t->owner = x->owner;
		t->frames = 0;
		t->lost = 0;
		t->laps = 0;
		t->own = x->pid > 0 && ri < cap && rd->n_own < cap;
		if (t->own)
			rd->n_own++;
	}
	if (x->pid <= 0)
		return;
	t->frames = RTE_MAX(t->frames, x->frames);
	t->lost = RTE_MAX(t->lost, x->lost);
	t->laps = RTE_MAX(t->laps, x->laps);
}

/*
 * Every row of ring ri through the tally; the readers present into v (when not NULL: its
 * readers and own arrays hold the ring's n_readers rows), counts as the tally keeps them.
 * tally_lock held.
 */
static void
tally_ring(const struct mcfan_app *app, struct mcfan_readers *rd, unsigned int ri,
	   uint64_t now, struct mcfan_readers_view *v)
{
	const struct mcfan_rw *w = rd->rings[ri].w;
	struct mcfan_rw_reader_info x;
	unsigned int j;

	for (j = 0; j < w->n_readers; j++) {
		if (mcfan_rw_reader_at(w, j, now, &x) < 0)
			break;
		tally_row(app, rd, ri, &x);
		if (v == NULL || x.pid <= 0)
			continue;
		x.frames = rd->rings[ri].tally[j].frames;
		x.lost = rd->rings[ri].tally[j].lost;
		x.laps = rd->rings[ri].tally[j].laps;
		v->own[v->n_readers] = rd->rings[ri].tally[j].own;
		v->readers[v->n_readers++] = x;
	}
	if (v != NULL)
		v->gone = rd->rings[ri].gone;
}

static uint64_t
mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/*
 * Retire ring rg: no copy can reach it any more (a left group's slot drained; a replaced
 * ring, the newer one in the slot since the action that made it; one made for a join that
 * was refused). The slots that still name it forget it (a stray copy would count as no_ring,
 * never write a ring being freed), its owner takes it off
 * its deferred-wake list at its next pass (lib/reader mcfan_rw_poll()), and the grace period
 * that starts now covers a pass that looked it up before. Action lock.
 */
static void
retire_start(struct mcfan_app *app, struct mcfan_readers *rd, struct readers_ring *rg)
{
	uint16_t s;

	if (rd->dq == NULL)
		return; /* no worker RCU: kept until exit, as before */
	for (s = 0; s < MCFAN_RW_TABLE_SLOTS; s++)
		if (mcfan_rw_slot_load(&rd->table, s) == rg->w)
			mcfan_rw_slot_store(&rd->table, s, NULL);
	mcfan_rw_retire(rg->w);
	rg->token = rte_rcu_qsbr_start(app->wqsbr);
	rg->life = RING_RETIRING;
}

void
mcfan_readers_drained(struct mcfan_app *app, const uint16_t *slots, unsigned int n)
{
	struct mcfan_readers *rd = readers_of(app);
	unsigned int i, j, n_rings;

	if (rd == NULL)
		return;
	n_rings = mcfan_atomic_u32_load(&rd->n_rings, memory_order_relaxed);
	for (i = 0; i < n_rings; i++) {
		if (rd->rings[i].life != RING_LEFT)
			continue;
		for (j = 0; j < n; j++) {
			if (slots[j] == rd->rings[i].slot) {
				retire_start(app, rd, &rd->rings[i]);
				break;
			}
		}
	}
}

/* The defer queue's free function (rte_rcu_qsbr_free_resource_t): n ring pointers at e,
 * whose grace period is over and that no worker lists: each ring is released (its name
 * removed unless a newer ring of its group has it) and its entry removed (under
 * tally_lock). From reclaim_rings() (the tick, action lock) and at
 * exit. */
static void
reclaimed(void *p, void *e, unsigned int n)
{
	struct mcfan_readers *rd = p;
	struct reader_tally *tally;
	struct mcfan_rw *w;
	unsigned int i, j, k, last;
	bool unlink_name;

	for (i = 0; i < n; i++) {
		memcpy(&w, RTE_PTR_ADD(e, i * sizeof(w)), sizeof(w)); /* e: maybe unaligned */
		rte_spinlock_lock(&rd->tally_lock);
		last = mcfan_atomic_u32_load(&rd->n_rings, memory_order_relaxed);
		for (k = 0; k < last && rd->rings[k].w != w; k++)
			;
		if (k == last) { /* cannot happen: every queued ring has its entry */
			rte_spinlock_unlock(&rd->tally_lock);
			continue;
		}
		unlink_name = !rd->rings[k].name_taken;
		tally = rd->rings[k].tally;
		/* its readers' own series on /metrics go with it: their places are free */
		for (j = 0; j < w->n_readers; j++)
			if (tally[j].own && mcfan_rd_owner_pid(tally[j].owner) > 0)
				rd->n_own--;
		/* the others keep their creation order (mcfan_readers_read()) */
		memmove(&rd->rings[k], &rd->rings[k + 1], (last - k - 1) * sizeof(rd->rings[0]));
		mcfan_atomic_u32_store(&rd->n_rings, last - 1, memory_order_release);
		rte_spinlock_unlock(&rd->tally_lock);
		free(tally);
		mcfan_rw_release(w, unlink_name);
		rd->n_queued--;
		mcfan_atomic_u64_add(&rd->n_freed, 1, memory_order_relaxed);
	}
}

/*
 * The retired rings' way to their free: a replaced ring is retired (the tick after the
 * action that replaced it), a retired ring whose grace period is over and that its owner no
 * longer lists for a deferred wake goes into the defer queue, and the queue frees those whose
 * own grace period is over. Never waits. Action lock. Returns true while retired rings wait
 * (the next tick comes soon).
 */
static bool
reclaim_rings(struct mcfan_app *app, struct mcfan_readers *rd)
{
	unsigned int i, n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_relaxed);
	struct readers_ring *rg;
	bool busy = false;

	if (rd->dq == NULL)
		return false;
	for (i = 0; i < n; i++) {
		rg = &rd->rings[i];
		if (rg->life == RING_LIVE && rg->superseded)
			retire_start(app, rd, rg);
		if (rg->life != RING_RETIRING)
			continue;
		if (rte_rcu_qsbr_check(app->wqsbr, rg->token, false) != 1 ||
		    mcfan_rw_deferred(rg->w)) {
			busy = true;
			continue;
		}
		/* no worker can put it on a list again: the next grace period ends its use */
		if (rte_rcu_qsbr_dq_enqueue(rd->dq, &rg->w) == 0) {
			rg->life = RING_WAITING;
			rd->n_queued++;
		}
	}
	if (rd->n_queued != 0)
		(void)rte_rcu_qsbr_dq_reclaim(rd->dq, UINT_MAX, NULL, NULL, NULL);
	return busy || rd->n_queued != 0;
}

/*
 * Once a second: does each served ring's name still open it? A name removed from /dev/shm
 * (rm, a tmp cleaner, systemd-tmpfiles) leaves the writer writing an object no new reader can
 * open: the unlinked object cannot be linked again (linkat(2) of a file with no link left is
 * ENOENT unless it was made O_TMPFILE). So the group gets a new ring under the name, made
 * and published as a moved group's is (ring_for(), the counter slot's release store): the
 * writer writes the new one from its next copy, the old one is superseded (`moved`: its
 * readers read what it holds, then get -EXDEV, "open it again") and retired at the next tick.
 * Said once a ring in the log. Action lock.
 */
static void
names_check(struct mcfan_app *app, struct mcfan_readers *rd)
{
	unsigned int i, n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	char text[MCFAN_GROUP_STR_MAX], path[sizeof(rd->rings[0].w->name) + 16];
	char msg[384];
	const struct mcfan_group_entry *g;
	struct readers_ring *rg;
	struct mcfan_rw *w;
	bool made = false;
	int k, ret;

	/* the rings made here are appended: only those there before are looked at */
	for (i = 0; i < n; i++) {
		rg = &rd->rings[i];
		if (rg->life != RING_LIVE || rg->superseded || mcfan_rw_name_check(rg->w) != 1)
			continue;
		k = mcfan_group_entry_find(app->group_entries, app->n_group_entries, &rg->key);
		if (k < 0 || app->group_entries[k].id >= MCFAN_RW_TABLE_SLOTS)
			continue; /* left: its ring goes anyway */
		g = &app->group_entries[k];
		mcfan_group_format(&rg->key, text, sizeof(text));
		snprintf(path, sizeof(path), "/dev/shm%s", rg->w->name);
		ret = ring_for(rd, &rg->key, rg->w->owner, ring_full(rd, rg->w), true, &w, msg,
			       sizeof(msg));
		if (ret < 0) {
			if (!rg->renew_failed)
				MCFAN_LOG(ERR, "reader rings: %s (group %s) was removed from /dev/shm "
					  "while mcfan writes it, and no new ring could be made (%s): "
					  "no new reader can open the group; tried again every second\n",
					  path, text, msg);
			rg->renew_failed = true;
			continue;
		}
		/* release: the writer's next copy of the group goes to the new ring */
		mcfan_rw_slot_store(&rd->table, g->id, w);
		ring_slot_set(rd, w, g->id);
		made = true;
		mcfan_atomic_u64_add(&rd->n_recreated, 1, memory_order_relaxed);
		MCFAN_LOG(WARNING, "reader rings: %s (group %s) was removed from /dev/shm while "
			  "mcfan writes it (not by mcfan: rm, a tmp cleaner?): made a new ring of "
			  "the group under the name (rings_recreated %" PRIu64 "); new readers open "
			  "it, readers of the removed one read what it holds, then are told to open "
			  "the group again (-EXDEV)\n", path, text,
			  mcfan_atomic_u64_load(&rd->n_recreated, memory_order_relaxed));
	}
	if (made)
		mcfan_readers_sync(app); /* serve words: the new rings', the old ones moved */
}

bool
mcfan_readers_tick(struct mcfan_app *app)
{
	struct mcfan_readers *rd = readers_of(app);
	uint64_t now = rte_rdtsc();
	unsigned int i, n;
	bool busy;

	if (rd == NULL)
		return false;
	busy = reclaim_rings(app, rd);
	if (now < rd->next_reap_tsc)
		return busy;
	rd->next_reap_tsc = now + READERS_REAP_PERIOD_S * app->tsc_hz;
	names_check(app, rd);
	n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	for (i = 0; i < n; i++)
		mcfan_rw_reap(rd->rings[i].w);
	/* the tally sees a closed reader's last counts before another reader takes its row */
	rte_spinlock_lock(&rd->tally_lock);
	for (i = 0; i < n; i++)
		tally_ring(app, rd, i, mono_now_ns(), NULL);
	rte_spinlock_unlock(&rd->tally_lock);
	return busy;
}

void
mcfan_readers_free(struct mcfan_app *app)
{
	struct mcfan_readers *rd = readers_of(app);
	unsigned int i, n;

	if (rd == NULL)
		return;
	app->readers = NULL;
	/* the data lcores have stopped (offline): the queued rings are freed (reclaimed()) */
	if (rd->dq != NULL && rte_rcu_qsbr_dq_delete(rd->dq) != 0)
		MCFAN_LOG(WARNING, "reader rings: %u retired rings still wait for a grace period "
			  "at exit: not freed\n", rd->n_queued);
	n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	for (i = 0; i < n; i++) {
		mcfan_rw_destroy(rd->rings[i].w);
		free(rd->rings[i].tally);
	}
	rte_free(rd);
}

const char *
mcfan_readers_served_text(const struct mcfan_readers_view *v, char *buf, size_t len)
{
	switch (v->serve) {
	case MCFAN_RD_SERVE_READERS:
		snprintf(buf, len, "%s", MCFAN_READERS_ENGINE);
		break;
	case MCFAN_RD_SERVE_ENGINE:
		snprintf(buf, len, "%s", v->serve_engine);
		break;
	case MCFAN_RD_SERVE_LCORE:
		snprintf(buf, len, "lcore %u: %s", v->serve_lcore, v->serve_engine);
		break;
	case MCFAN_RD_SERVE_LEFT:
		snprintf(buf, len, "left");
		break;
	case MCFAN_RD_SERVE_MOVED:
		snprintf(buf, len, "moved");
		break;
	default:
		snprintf(buf, len, "unknown");
		break;
	}
	return buf;
}

int
mcfan_readers_group_parse(const struct mcfan_app *app, const char *what, const char *group,
			  struct mcfan_flow_key *key, char *msg, size_t len)
{
	struct mcfan_readers *rd = readers_of(app);
	unsigned int i, n_rings;
	bool found = false;
	int ret;

	ret = mcfan_ctl_parse_one_group(what, group, key, msg, len);
	if (ret < 0)
		return ret;
	/* a ring of it (also of a group left since, until its ring is freed) */
	if (rd != NULL) {
		rte_spinlock_lock(&rd->tally_lock);
		n_rings = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
		for (i = 0; i < n_rings && !found; i++)
			found = mcfan_flow_key_equal(&rd->rings[i].key, key);
		rte_spinlock_unlock(&rd->tally_lock);
	}
	if (found)
		return 0;
	mcfan_ctl_state_lock(app);
	if (mcfan_group_entry_find(app->group_entries, app->n_group_entries, key) < 0)
		ret = mcfan_group_not_joined(app->group_entries, app->n_group_entries, what, key,
					     msg, len);
	mcfan_ctl_state_unlock(app);
	return ret;
}

void
mcfan_readers_view_free(struct mcfan_readers_view *v, unsigned int n)
{
	unsigned int i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(v[i].readers);
		free(v[i].own);
	}
	free(v);
}

int
mcfan_readers_read(const struct mcfan_app *app, struct mcfan_readers_view **out,
		   struct mcfan_readers_worker_view *workers, unsigned int max_workers,
		   unsigned int *n_workers)
{
	struct mcfan_readers *rd = readers_of(app);
	struct mcfan_readers_view *v;
	unsigned int i, n, k = 0;
	uint64_t now;

	*out = NULL;
	if (n_workers != NULL)
		*n_workers = 0;
	if (rd == NULL)
		return -ENODEV;
	now = mono_now_ns();
	/* the list holds still while copied: a freed ring's entry goes under tally_lock */
	rte_spinlock_lock(&rd->tally_lock);
	n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	v = calloc(RTE_MAX(n, 1u), sizeof(*v));
	if (v == NULL) {
		rte_spinlock_unlock(&rd->tally_lock);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct mcfan_rw *w = rd->rings[i].w;
		struct mcfan_readers_view *r = &v[i];

		snprintf(r->group, sizeof(r->group), "%s", w->group);
		r->key = rd->rings[i].key;
		snprintf(r->name, sizeof(r->name), "%s", w->name);
		r->owner_lcore = app->worker_lcore_ids[w->owner];
		r->n_slots = w->n_slots;
		r->data_max = w->data_max;
		r->written = mcfan_atomic_u64_load(&w->written, memory_order_relaxed);
		r->bytes = mcfan_atomic_u64_load(&w->bytes, memory_order_relaxed);
		r->too_big = mcfan_atomic_u64_load(&w->too_big, memory_order_relaxed);
		r->wakes = mcfan_atomic_u64_load(&w->wakes, memory_order_relaxed);
		r->waiters = atomic_load_explicit(&w->hdr->waiters, memory_order_relaxed);
		r->serve = mcfan_rd_serve_read(w->hdr, &r->serve_lcore, r->serve_engine,
					       sizeof(r->serve_engine));
		/* a moved ring's name is its newer ring's (taken, not gone); a left one's goes
		 * with it: names_check() makes neither again */
		r->name_gone = !rd->rings[i].superseded && r->serve != MCFAN_RD_SERVE_MOVED &&
			       r->serve != MCFAN_RD_SERVE_LEFT && mcfan_rw_name_check(w) == 1;
		r->readers = calloc(w->n_readers, sizeof(*r->readers));
		r->own = calloc(w->n_readers, sizeof(*r->own));
		if (r->readers == NULL || r->own == NULL) {
			rte_spinlock_unlock(&rd->tally_lock);
			mcfan_readers_view_free(v, n);
			return -ENOMEM;
		}
	}
	for (i = 0; i < n; i++)
		tally_ring(app, rd, i, now, &v[i]);
	rte_spinlock_unlock(&rd->tally_lock);
	for (i = 0; workers != NULL && i < app->n_workers && k < max_workers; i++) {
		const struct mcfan_lcore *lc = &app->lcores[app->worker_lcore_ids[i]];
		const struct mcfan_rw_worker *c = &rd->table.worker[i];

		if (lc->worker_engine == NULL || !mcfan_readers_wanted(app))
			continue;
		workers[k].lcore = app->worker_lcore_ids[i];
		workers[k].not_owner = mcfan_atomic_u64_load(&c->not_owner, memory_order_relaxed);
		workers[k].no_ring = mcfan_atomic_u64_load(&c->no_ring, memory_order_relaxed);
		k++;
	}
	if (n_workers != NULL)
		*n_workers = k;
	*out = v;
	return (int)n;
}

uint64_t
mcfan_readers_recreated(const struct mcfan_app *app)
{
	const struct mcfan_readers *rd = readers_of(app);

	return rd == NULL ? 0 : mcfan_atomic_u64_load(&rd->n_recreated, memory_order_relaxed);
}

void
mcfan_readers_retired(const struct mcfan_app *app, uint64_t *waiting, uint64_t *freed)
{
	struct mcfan_readers *rd = readers_of(app);
	unsigned int i, n;
	uint64_t k = 0;

	*waiting = 0;
	*freed = 0;
	if (rd == NULL)
		return;
	rte_spinlock_lock(&rd->tally_lock);
	n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	for (i = 0; i < n; i++)
		if (rd->rings[i].life != RING_LIVE || rd->rings[i].superseded)
			k++;
	*freed = mcfan_atomic_u64_load(&rd->n_freed, memory_order_relaxed);
	rte_spinlock_unlock(&rd->tally_lock);
	*waiting = k;
}
