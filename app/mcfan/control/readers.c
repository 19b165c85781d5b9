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
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "mcfan.h"
#include "log.h"
#include "mcfan_parse.h"
#include "datapath/engine.h"
#include "control/action.h"
#include "control/readers.h"

/** Rings kept at most (a group joined again by another worker gets a new ring). */
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

struct readers_ring {
	struct mcfan_rw *w;
	struct mcfan_flow_key key;
	bool superseded;                 /* a newer ring of the group exists (action lock) */
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
	 * the entry); read by any control thread (acquire load); freed only at exit */
	struct readers_ring rings[READERS_RINGS_MAX];
	struct mcfan_atomic_u32 n_rings;
	uint64_t next_reap_tsc;
	/* the read side's memory of the readers (rings[].tally, gone, n_own), so that /metrics
	 * counters never go back when readers come and go: any control thread (console,
	 * telemetry, /metrics, the tick), never a data lcore */
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
 * writer replaces the old: same name, the old one superseded. */
static int
ring_for(struct mcfan_readers *rd, const struct mcfan_flow_key *k, uint16_t owner, bool full,
	 struct mcfan_rw **out, char *msg, size_t len)
{
	uint32_t n_slots = full ? rd->n_slots : RTE_MIN(rd->n_slots, READERS_IDLE_SLOTS);
	uint32_t n_readers = full ? MCFAN_RW_READERS_DEFAULT : READERS_IDLE_READERS;
	unsigned int i, n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_relaxed);
	char addr[INET6_ADDRSTRLEN], text[MCFAN_GROUP_STR_MAX];
	struct readers_ring *old = NULL;
	struct mcfan_rw *w;
	int ret;

	for (i = 0; i < n; i++) {
		if (!rd->rings[i].superseded && mcfan_flow_key_equal(&rd->rings[i].key, k)) {
			old = &rd->rings[i];
			break;
		}
	}
	if (old != NULL && old->w->owner == owner && (!full || ring_full(rd, old->w))) {
		*out = old->w;
		return 0;
	}
	mcfan_group_format(k, text, sizeof(text));
	if (n == READERS_RINGS_MAX)
		return mcfan_err_set(msg, len, -ENOSPC, "reader ring for %s: %d rings made already",
				     text, READERS_RINGS_MAX);
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
	/* the old ring (another writer) stays mapped until exit: copies in flight may reach it */
	if (old != NULL)
		old->superseded = true;
	rd->rings[n].w = w;
	rd->rings[n].key = *k;
	rd->rings[n].superseded = false;
	mcfan_atomic_u32_store(&rd->n_rings, n + 1, memory_order_release);
	*out = w;
	return 0;
}

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
	unsigned int i;
	bool full;
	int ret;

	if (rd == NULL)
		return 0;
	for (i = 0; i < n; i++) {
		ret = owner_of(&keys[i], eligible, n_eligible, &owner);
		if (ret < 0)
			return mcfan_err_set(msg, len, ret, "reader ring: no worker for the group");
		full = serves_readers(app, inst, owner_sel(app, owner, NULL, 0));
		ret = ring_for(rd, &keys[i], owner, full, &w, msg, len);
		if (ret < 0)
			return ret;
		if (slots[i] >= MCFAN_RW_TABLE_SLOTS)
			return mcfan_err_set(msg, len, -EINVAL, "reader ring: counter slot %u",
					     slots[i]);
		/* before the table that tags frames with the slot is published */
		mcfan_rw_slot_store(&rd->table, slots[i], w);
	}
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
		      ring_for(rd, &rg->key, rg->w->owner, true, &w, msg, len) :
		      mcfan_err_set(msg, len, -EINVAL, "reader ring: counter slot %u", g->id);
		if (ret < 0) {
			/* the change is refused: the rings made so far say who serves them */
			mcfan_readers_sync(app);
			return ret;
		}
		/* release: before the change that sends the group's copies to readers is */
		mcfan_rw_slot_store(&rd->table, g->id, w);
	}
	return 0;
}

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
			continue;
		}
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

void
mcfan_readers_tick(struct mcfan_app *app)
{
	struct mcfan_readers *rd = readers_of(app);
	uint64_t now = rte_rdtsc();
	unsigned int i, n;

	if (rd == NULL || now < rd->next_reap_tsc)
		return;
	rd->next_reap_tsc = now + READERS_REAP_PERIOD_S * app->tsc_hz;
	n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	for (i = 0; i < n; i++)
		mcfan_rw_reap(rd->rings[i].w);
	/* the tally sees a closed reader's last counts before another reader takes its row */
	rte_spinlock_lock(&rd->tally_lock);
	for (i = 0; i < n; i++)
		tally_ring(app, rd, i, mono_now_ns(), NULL);
	rte_spinlock_unlock(&rd->tally_lock);
}

void
mcfan_readers_free(struct mcfan_app *app)
{
	struct mcfan_readers *rd = readers_of(app);
	unsigned int i, n;

	if (rd == NULL)
		return;
	app->readers = NULL;
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
	const struct mcfan_readers *rd = readers_of(app);
	unsigned int i, n_rings;
	bool found = false;
	int ret;

	ret = mcfan_ctl_parse_one_group(what, group, key, msg, len);
	if (ret < 0)
		return ret;
	/* a ring of it (also of a group left since): rings are only appended */
	n_rings = rd == NULL ? 0 : mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	for (i = 0; i < n_rings && !found; i++)
		found = mcfan_flow_key_equal(&rd->rings[i].key, key);
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
	n = mcfan_atomic_u32_load(&rd->n_rings, memory_order_acquire);
	v = calloc(RTE_MAX(n, 1u), sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
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
		r->readers = calloc(w->n_readers, sizeof(*r->readers));
		r->own = calloc(w->n_readers, sizeof(*r->own));
		if (r->readers == NULL || r->own == NULL) {
			mcfan_readers_view_free(v, n);
			return -ENOMEM;
		}
	}
	rte_spinlock_lock(&rd->tally_lock);
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
