/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Sleep overrun, control side (control/overrun.h). The ring side is counted exactly by the
 * RX lcores (datapath/overrun.c); this file reads it, and attributes the port side:
 *
 * Each tick, for every data lcore L, gen_a = L's window generation before the port counters
 * are read and gen_b after. L's window was open at some time between the previous tick's
 * counter read and this one if prev(L) is odd or gen_b != prev(L), where prev(L) is the
 * previous tick's gen_a (taken before that tick's counter read, so the two intervals
 * overlap and no open window is missed). The drops of a (port, queue) since the previous
 * tick are then held for its RX lcore: per queue for net_af_packet (PACKET_STATISTICS is
 * per socket, one socket a queue), and for imissed (and net_tap's kernel drops, which are
 * per port) for the first RX lcore of the port whose window was open. Once the lcore's
 * held drops become its sleep overrun as soon as a window closes whose wake found its
 * smallest RX ring's worth of frames waiting (full_closes moved: that ring may have been
 * full, lib/overrun/mcfan_overrun.h), and are dropped once its windows are closed (gen
 * even, read after the counters) with none such (no ring was full: the sleep lost
 * nothing; the drops were load). The attribution is as fine as the control tick: load-caused
 * drops in the same tick as a window that overflowed count as sleep overrun too (the tick is
 * 10 ms while drops come or are held, mcfan_overrun_busy(); the first tick of a burst of
 * drops after a quiet time may span the control lcore's quiet wait, up to 100 ms); drops in ticks with no
 * window open never do, so with the poll policy it is 0, and it never exceeds the drops it
 * explains.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>

#include "mcfan.h"
#include "control/kernel.h"
#include "control/overrun.h"

/* The port counters one tick reads (without ctl_lock: the kernel read takes it); imissed raw
 * (since the start), the kernel's drops since the last clear. */
struct port_read {
	bool ok;
	bool per_queue;                              /* af_packet: kernel drops per queue */
	uint64_t imissed;
	uint64_t kdrops;                             /* per-port kernel drops (net_tap) */
	uint64_t qdrops[MCFAN_KERNEL_MAX_QUEUES];
	unsigned int n_queues;
};

/* Control side state (app->overrun), ctl_lock. */
struct mcfan_overrun_ctl {
	bool resync;                                 /* next tick only takes new baselines */
	bool busy;                                   /* the last tick saw drops or held some */
	uint32_t prev_gen[RTE_MAX_LCORE];            /* gen_a of the previous tick */
	uint64_t port[RTE_MAX_LCORE];                /* port-side overrun since the clear */
	uint64_t port_cleared[RTE_MAX_LCORE];        /* port[] that the clears took, added up */
	uint64_t pending[RTE_MAX_LCORE];             /* drops held until the window closes */
	uint32_t full_seen[RTE_MAX_LCORE];           /* full_closes at the last decision */
	uint64_t ring_base[RTE_MAX_LCORE];           /* ring side at the last clear */
	uint64_t last_imissed[RTE_MAX_ETHPORTS];
	uint64_t last_kdrops[RTE_MAX_ETHPORTS];
	uint64_t last_qdrops[RTE_MAX_ETHPORTS][MCFAN_KERNEL_MAX_QUEUES];
	struct port_read rd[RTE_MAX_ETHPORTS];       /* scratch of one tick */
	uint32_t gen_a[RTE_MAX_LCORE];               /* scratch of one tick */
	/* What a tick walks, set by mcfan_overrun_setup(): the data lcores (a role) and the
	 * ports in use. Walking all RTE_MAX_LCORE lcores and RTE_MAX_ETHPORTS ports each 10 ms
	 * tick touched three cache lines of every mcfan_lcore, used or not: 15 % of the control
	 * lcore's CPU in the seed (docs/performance.md "The control lcore's tick, again"). */
	uint16_t lc_ids[RTE_MAX_LCORE];
	unsigned int n_lc;
	uint16_t port_ids[RTE_MAX_ETHPORTS];
	unsigned int n_ports;
};

/* net_af_packet's default ring frames a queue (devarg framecnt; DPDK 22.11
 * rte_eth_af_packet.c DFLT_FRAME_COUNT). */
#define AF_PACKET_FRAMECNT_DEFAULT 512

/* Frames one RX queue of port holds: net_af_packet's kernel ring (framecnt), else the
 * descriptors the PMD took. */
static uint64_t
rx_ring_frames(const struct mcfan_app *app, uint16_t port)
{
	const struct mcfan_port *p = &app->ports[port];
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	const char *v;
	uint64_t n = p->nb_rxd;

	if (strcmp(p->driver, "net_af_packet") != 0 || rte_eth_dev_info_get(port, &info) != 0 ||
	    info.device == NULL)
		return RTE_MAX(n, (uint64_t)1);
	n = AF_PACKET_FRAMECNT_DEFAULT;
	da = rte_dev_devargs(info.device);
	kv = da != NULL && da->args != NULL ? rte_kvargs_parse(da->args, NULL) : NULL;
	v = kv != NULL ? rte_kvargs_get(kv, "framecnt") : NULL;
	if (v != NULL && strtoull(v, NULL, 0) > 0)
		n = strtoull(v, NULL, 0);
	rte_kvargs_free(kv);
	return n;
}

int
mcfan_overrun_setup(struct mcfan_app *app)
{
	struct mcfan_overrun_ctl *s;
	struct mcfan_lcore *lc;
	unsigned int id, i;
	uint16_t port;
	uint64_t b;

	if (app->overrun == NULL) {
		app->overrun = calloc(1, sizeof(*app->overrun));
		if (app->overrun == NULL)
			return -ENOMEM;
		app->overrun->resync = true;
	}
	s = app->overrun;
	s->n_ports = 0;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++)
		if (app->ports[port].used)
			s->port_ids[s->n_ports++] = port;
	s->n_lc = 0;
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		lc = &app->lcores[id];
		if (lc->role != MCFAN_ROLE_NONE)
			s->lc_ids[s->n_lc++] = (uint16_t)id;
		b = 0;
		if (lc->role & MCFAN_ROLE_RX)
			for (i = 0; i < lc->n_ports; i++)
				b += RTE_MAX(app->ports[lc->ports[i]].nb_rxd,
					     (uint16_t)MCFAN_RX_DESC);
		if (lc->role & MCFAN_ROLE_WORKER)
			b += (uint64_t)app->cfg.ring_size * app->n_rx;
		lc->ovr.backlog = RTE_MAX(b, (uint64_t)1);
		lc->ovr.rx_count = NULL;
		if ((lc->role & MCFAN_ROLE_RX) && lc->n_ports > 0) {
			lc->ovr.rx_count = &lc->rx.stats.rx_frames;
			lc->ovr.rx_pairs = lc->n_ports;
			lc->ovr.rx_capacity = UINT64_MAX;
			for (i = 0; i < lc->n_ports; i++)
				lc->ovr.rx_capacity = RTE_MIN(lc->ovr.rx_capacity,
							      rx_ring_frames(app, lc->ports[i]));
		}
	}
	return 0;
}

/* Ring-side overrun of lcore lc, raw (since the start). */
static uint64_t
ring_raw(const struct mcfan_app *app, const struct mcfan_lcore *lc)
{
	uint64_t v = mcfan_atomic_u64_load(&lc->ovr.ring_own, memory_order_relaxed);
	unsigned int r;

	if (lc->role & MCFAN_ROLE_WORKER)
		for (r = 0; r < app->n_rx; r++)
			v += mcfan_atomic_u64_load(
				&app->lcores[app->rx_lcore_ids[r]].ovr.ring_worker[lc->worker_index],
				memory_order_relaxed);
	return v;
}

static bool
window_seen(const struct mcfan_overrun_ctl *s, const struct mcfan_app *app, unsigned int id)
{
	uint32_t gen_b = mcfan_atomic_u32_load(&app->lcores[id].ovr.gen, memory_order_acquire);

	return (s->prev_gen[id] & 1) != 0 || gen_b != s->prev_gen[id];
}

/* Charge d port-level drops of port to the first of its RX lcores whose window was open. */
static void
charge_port(struct mcfan_overrun_ctl *s, const struct mcfan_app *app, uint16_t port,
	    uint64_t d)
{
	const struct mcfan_lcore *lc;
	unsigned int r, i, id;

	for (r = 0; r < app->n_rx; r++) {
		id = app->rx_lcore_ids[r];
		lc = &app->lcores[id];
		for (i = 0; i < lc->n_ports; i++) {
			if (lc->ports[i] != port || !window_seen(s, app, id))
				continue;
			s->pending[id] += d;
			return;
		}
	}
}

/* Charge d drops of (port, queue) to its RX lcore if its window was open. */
static void
charge_queue(struct mcfan_overrun_ctl *s, const struct mcfan_app *app, uint16_t port,
	     uint16_t queue, uint64_t d)
{
	const struct mcfan_lcore *lc;
	unsigned int r, i, id;

	for (r = 0; r < app->n_rx; r++) {
		id = app->rx_lcore_ids[r];
		lc = &app->lcores[id];
		for (i = 0; i < lc->n_ports; i++) {
			if (lc->ports[i] != port || lc->queues[i] != queue)
				continue;
			if (window_seen(s, app, id))
				s->pending[id] += d;
			return;
		}
	}
}

/* New drops of a counter since last (0 after a clear moved it back); last takes now. */
static uint64_t
delta(uint64_t now, uint64_t *last)
{
	uint64_t d = now >= *last ? now - *last : 0;

	*last = now;
	return d;
}

void
mcfan_overrun_tick(struct mcfan_app *app)
{
	struct mcfan_overrun_ctl *s = app->overrun;
	struct mcfan_kernel_view kv;
	struct rte_eth_stats ps;
	struct port_read *rd;
	uint64_t d;
	unsigned int i, id, q;
	uint16_t port;
	bool busy;

	if (s == NULL)
		return;
	/* gen_a, then the counters, then (in window_seen) gen_b: see the top */
	for (i = 0; i < s->n_lc; i++) {
		id = s->lc_ids[i];
		s->gen_a[id] = mcfan_atomic_u32_load(&app->lcores[id].ovr.gen,
						     memory_order_acquire);
	}
	for (i = 0; i < s->n_ports; i++) {
		port = s->port_ids[i];
		rd = &s->rd[port];
		memset(rd, 0, sizeof(*rd));
		if (!app->ports[port].started || rte_eth_stats_get(port, &ps) != 0)
			continue;
		rd->ok = true;
		rd->imissed = ps.imissed;
		if (mcfan_kernel_read_drops(app, port, &ps, &kv) != 0)
			continue;
		if (strcmp(kv.source, "packet_statistics") == 0) {
			rd->per_queue = true;
			rd->n_queues = RTE_MIN(kv.n_queues, (unsigned int)MCFAN_KERNEL_MAX_QUEUES);
			memcpy(rd->qdrops, kv.queue_drops, sizeof(rd->qdrops));
		} else if (strcmp(kv.source, "tap") == 0) {
			rd->kdrops = kv.kernel_drops;
		} /* "pcap_stats" is imissed itself */
	}
	mcfan_ctl_state_lock(app);
	busy = false;
	for (i = 0; i < s->n_ports; i++) {
		port = s->port_ids[i];
		rd = &s->rd[port];
		if (!rd->ok)
			continue;
		d = delta(rd->imissed, &s->last_imissed[port]);
		busy |= d != 0;
		if (d != 0 && !s->resync)
			charge_port(s, app, port, d);
		d = delta(rd->kdrops, &s->last_kdrops[port]);
		busy |= d != 0;
		if (d != 0 && !s->resync)
			charge_port(s, app, port, d);
		for (q = 0; rd->per_queue && q < rd->n_queues; q++) {
			d = delta(rd->qdrops[q], &s->last_qdrops[port][q]);
			busy |= d != 0;
			if (d != 0 && !s->resync)
				charge_queue(s, app, port, (uint16_t)q, d);
		}
	}
	/* held drops: a closed window decides (see the top) */
	for (i = 0; i < s->n_lc; i++) {
		uint32_t g, f;

		id = s->lc_ids[i];
		g = mcfan_atomic_u32_load(&app->lcores[id].ovr.gen, memory_order_acquire);
		f = mcfan_atomic_u32_load(&app->lcores[id].ovr.full_closes, memory_order_relaxed);
		if (f != s->full_seen[id]) {
			s->port[id] += s->pending[id]; /* a window that found a full ring closed */
			s->pending[id] = 0;
			s->full_seen[id] = f;
		} else if ((g & 1) == 0) {
			s->pending[id] = 0; /* closed, no full ring: the held drops were load */
		} /* else still open: keep holding */
		busy |= s->pending[id] != 0;
	}
	s->busy = busy;
	s->resync = false;
	for (i = 0; i < s->n_lc; i++)
		s->prev_gen[s->lc_ids[i]] = s->gen_a[s->lc_ids[i]];
	mcfan_ctl_state_unlock(app);
}

bool
mcfan_overrun_busy(const struct mcfan_app *app)
{
	const struct mcfan_overrun_ctl *s = app->overrun;

	return s != NULL && s->busy;
}

void
mcfan_overrun_clear(struct mcfan_app *app)
{
	struct mcfan_overrun_ctl *s = app->overrun;
	unsigned int id;

	if (s == NULL)
		return;
	mcfan_ctl_state_lock(app);
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		s->port_cleared[id] += s->port[id];
		s->port[id] = 0;
		s->pending[id] = 0;
		s->ring_base[id] = app->lcores[id].role == MCFAN_ROLE_NONE ? 0 :
			ring_raw(app, &app->lcores[id]);
	}
	s->resync = true; /* the counters' own baselines moved: take new ones */
	mcfan_ctl_state_unlock(app);
}

int
mcfan_overrun_read_since(const struct mcfan_app *app, unsigned int lcore_id,
			 struct mcfan_overrun_view *out, bool since_start)
{
	const struct mcfan_overrun_ctl *s = app->overrun;
	uint64_t ring;

	memset(out, 0, sizeof(*out));
	out->lcore_id = lcore_id;
	if (lcore_id >= RTE_MAX_LCORE ||
	    (app->lcores[lcore_id].role & (MCFAN_ROLE_RX | MCFAN_ROLE_WORKER)) == 0)
		return -EINVAL;
	ring = ring_raw(app, &app->lcores[lcore_id]);
	if (s != NULL) {
		mcfan_ctl_state_lock(app);
		if (since_start) {
			out->ring = ring;
			out->port = s->port[lcore_id] + s->port_cleared[lcore_id];
		} else {
			out->ring = ring >= s->ring_base[lcore_id] ?
				    ring - s->ring_base[lcore_id] : 0;
			out->port = s->port[lcore_id];
		}
		mcfan_ctl_state_unlock(app);
	} else {
		out->ring = ring;
	}
	out->total = out->ring + out->port;
	return 0;
}

int
mcfan_overrun_read(const struct mcfan_app *app, unsigned int lcore_id,
		   struct mcfan_overrun_view *out)
{
	return mcfan_overrun_read_since(app, lcore_id, out, false);
}

void
mcfan_overrun_total(const struct mcfan_app *app, struct mcfan_overrun_view *out)
{
	struct mcfan_overrun_view v;
	unsigned int id;

	memset(out, 0, sizeof(*out));
	out->lcore_id = RTE_MAX_LCORE;
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		if (mcfan_overrun_read(app, id, &v) != 0)
			continue;
		out->ring += v.ring;
		out->port += v.port;
	}
	out->total = out->ring + out->port;
}

void
mcfan_overrun_free(struct mcfan_app *app)
{
	free(app->overrun);
	app->overrun = NULL;
}
