/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The IGMP and MLD host side on the control lcore (control/igmp.h, docs/igmp.md): the
 * control rings from the RX lcores, one lib/igmp host per port and protocol, the reports
 * through TX queue 0.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "mcfan.h"
#include "log.h"
#include "control/igmp.h"
#include "control/stats.h"

#define TX_POOL_MBUFS 511     /* control frames in flight at most (a power of two - 1) */
#define DEQ_BURST 64          /* frames taken from a ring at a time */
#define DEQ_PER_TICK 1024     /* most frames taken from one ring in one tick */
#define SENDS_PER_POLL 256    /* most messages one host sends in one tick */
#define FRAME_COPY_MAX 2048   /* bytes of a multi-segment frame parsed (the rest is cut) */
#define N_PROTO 2             /* [0] IGMP, [1] MLD */

struct igmp_port {
	bool used;
	bool warned_tx;             /* a TX failure was logged */
	bool said[N_PROTO];         /* the first message was logged */
	uint8_t mac[6];
	uint8_t src[N_PROTO][16];   /* report sources: IPv4, IPv6 link-local */
	struct mcfan_igmp_host host[N_PROTO];
	uint64_t taken[N_PROTO];
	uint64_t tx_frames;
	uint64_t tx_failed;
	uint64_t nogroup_ms[N_PROTO]; /* the last tick the host had no group (0: the start) */
	bool quiet_said[N_PROTO];     /* "no querier heard" was logged, no query since */
	uint64_t quiet_ms[N_PROTO];   /* when it was logged */
	/* what the clears took away, added up: the counts since the start are these plus the
	 * ones above (mcfan_igmp_read_since(), /metrics) */
	struct mcfan_igmp_counters c_cleared[N_PROTO];
	uint64_t taken_cleared[N_PROTO];
	uint64_t tx_frames_cleared;
	uint64_t tx_failed_cleared;
	/* the groups as they were when mcfan stopped and left them (mcfan_igmp_leave_all()),
	 * for the report: malloc'd, n_final entries; NULL while running */
	struct mcfan_igmp_group *final[N_PROTO];
	unsigned int n_final[N_PROTO];
};

struct mcfan_igmp {
	rte_spinlock_t lock;        /* everything below (control/igmp.h "Locking") */
	bool synced;                /* the first sync has run */
	struct rte_mempool *pool;   /* TX mbufs of control frames */
	struct rte_ring *rings[RTE_MAX_LCORE]; /* [rx index] */
	unsigned int n_rings;
	uint64_t start_tsc;
	uint64_t dequeued;
	uint64_t unknown_port;
	uint64_t dequeued_cleared;     /* what the clears took from the two above, added up */
	uint64_t unknown_port_cleared;
	struct mcfan_igmp_ssm ssm[MCFAN_IGMP_SSM_MAX]; /* sources of joined groups */
	unsigned int n_ssm;
	struct mcfan_flow_key keys[MCFAN_MAX_GROUPS];  /* sync's copy of the joined groups */
	struct igmp_port ports[RTE_MAX_ETHPORTS];
};

static unsigned int
proto_idx(uint8_t proto)
{
	return proto == MCFAN_IGMP_PROTO_MLD ? 1 : 0;
}

static const char *
proto_name(unsigned int idx)
{
	return idx == 1 ? "MLD" : "IGMP";
}

static uint64_t
now_ms(const struct mcfan_app *app, const struct mcfan_igmp *g)
{
	return (rte_rdtsc() - g->start_tsc) / (app->tsc_hz / 1000);
}

int
mcfan_igmp_check(const struct mcfan_app *app)
{
	char ids[128] = "";
	unsigned int i, n = 0;
	size_t off = 0;
	uint16_t port;
	int w;

	for (i = 0; i < app->cfg.n_port_ip; i++) {
		if (rte_eth_dev_is_valid_port(app->cfg.port_ip[i].port))
			continue;
		/* the ids of the ports there are, not only their count ("1" read as port 1) */
		RTE_ETH_FOREACH_DEV(port) {
			w = snprintf(ids + off, sizeof(ids) - off, "%s%u", n++ > 0 ? "," : "",
				     port);
			if (w < 0 || (size_t)w >= sizeof(ids) - off) {
				snprintf(ids + off, sizeof(ids) - off, ",...");
				break;
			}
			off += (size_t)w;
		}
		fprintf(stderr, "mcfan: --port-ip: port %u does not exist (ports probed: %u%s%s%s)"
			"\n", app->cfg.port_ip[i].port, rte_eth_dev_count_avail(),
			n == 0 ? "" : n == 1 ? " (port " : " (ports ", ids, n == 0 ? "" : ")");
		return -EINVAL;
	}
	return 0;
}

/* The sources of a port's reports, and one log line per protocol saying which and why. */
static void
port_sources(struct mcfan_app *app, uint16_t port, struct igmp_port *p)
{
	const struct mcfan_port_ip *pi = NULL;
	char a[MCFAN_IGMP_ADDR_STR];
	unsigned int i;

	for (i = 0; i < app->cfg.n_port_ip; i++)
		if (app->cfg.port_ip[i].port == port)
			pi = &app->cfg.port_ip[i];
	if (pi != NULL && pi->has4) {
		memcpy(p->src[0], pi->ip4, 16);
		MCFAN_LOG(INFO, "port %u: IGMP %s, reports from %s (--port-ip)\n", port,
			  mcfan_igmp_mode_name(app->cfg.igmp_mode),
			  mcfan_igmp_addr_format(MCFAN_IGMP_PROTO_IGMP, p->src[0], a));
	} else {
		MCFAN_LOG(INFO, "port %u: IGMP %s, reports from 0.0.0.0: no --port-ip for the port "
			  "(RFC 3376 section 4.2.13 allows it; a querier or switch that drops such "
			  "reports needs --port-ip %u=ADDR)\n", port,
			  mcfan_igmp_mode_name(app->cfg.igmp_mode), port);
	}
	if (pi != NULL && pi->has6) {
		memcpy(p->src[1], pi->ip6, 16);
		MCFAN_LOG(INFO, "port %u: MLD %s, reports from %s (--port-ip)\n", port,
			  mcfan_igmp_mode_name(app->cfg.mld_mode),
			  mcfan_igmp_addr_format(MCFAN_IGMP_PROTO_MLD, p->src[1], a));
	} else {
		mcfan_igmp_link_local(p->mac, p->src[1]);
		MCFAN_LOG(INFO, "port %u: MLD %s, reports from %s: the link-local address of the "
			  "port's MAC %02x:%02x:%02x:%02x:%02x:%02x (RFC 3810 section 5.2.13 wants "
			  "a link-local source; no --port-ip ADDR6 for the port)\n", port,
			  mcfan_igmp_mode_name(app->cfg.mld_mode),
			  mcfan_igmp_addr_format(MCFAN_IGMP_PROTO_MLD, p->src[1], a), p->mac[0],
			  p->mac[1], p->mac[2], p->mac[3], p->mac[4], p->mac[5]);
	}
}

int
mcfan_igmp_init(struct mcfan_app *app)
{
	struct mcfan_igmp *g;
	struct rte_ether_addr ea;
	char name[RTE_RING_NAMESIZE];
	struct mcfan_lcore *lc;
	unsigned int r, k;
	uint16_t port;
	int ret;

	g = rte_zmalloc("mcfan_igmp", sizeof(*g), 0);
	if (g == NULL)
		return -ENOMEM;
	rte_spinlock_init(&g->lock);
	g->start_tsc = rte_rdtsc();
	app->igmp = g;
	g->pool = rte_pktmbuf_pool_create("mcfan_ctl_tx", TX_POOL_MBUFS, 0, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (g->pool == NULL) {
		MCFAN_LOG(ERR, "cannot create the pool of control frames: %s\n",
			  rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (r = 0; r < app->n_rx; r++) {
		lc = &app->lcores[app->rx_lcore_ids[r]];
		snprintf(name, sizeof(name), "mcfan_ctl_r%u", r);
		g->rings[r] = rte_ring_create(name, MCFAN_IGMP_RING_SIZE,
					      rte_lcore_to_socket_id(lc->lcore_id),
					      RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (g->rings[r] == NULL) {
			MCFAN_LOG(ERR, "cannot create ring %s: %s\n", name, rte_strerror(rte_errno));
			return -rte_errno;
		}
		g->n_rings = r + 1;
		lc->rx.ctl_ring = g->rings[r];
	}
	memcpy(g->ssm, app->cfg.ssm, app->cfg.n_ssm * sizeof(g->ssm[0]));
	g->n_ssm = app->cfg.n_ssm;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		struct igmp_port *p = &g->ports[port];

		/* an output-only port joins nothing: no host, no report, its queries unpolled */
		if (!app->ports[port].used || app->ports[port].role != MCFAN_PORT_RX)
			continue;
		ret = rte_eth_macaddr_get(port, &ea);
		if (ret != 0)
			memset(&ea, 0, sizeof(ea));
		memcpy(p->mac, ea.addr_bytes, 6);
		for (k = 0; k < N_PROTO; k++) {
			ret = mcfan_igmp_host_init(&p->host[k], k == 0 ? MCFAN_IGMP_PROTO_IGMP :
						   MCFAN_IGMP_PROTO_MLD, (uint8_t)(k == 0 ?
						   app->cfg.igmp_mode : app->cfg.mld_mode),
						   MCFAN_MAX_GROUPS, rte_rdtsc() ^ ((uint64_t)port << 32 | k));
			if (ret < 0)
				return ret;
		}
		p->used = true;
		port_sources(app, port, p);
	}
	return 0;
}

/* Count an invalid frame, or feed a valid query to its host. */
static void
take_frame(struct mcfan_app *app, struct mcfan_igmp *g, struct rte_mbuf *m, uint64_t t)
{
	uint8_t copy[FRAME_COPY_MAX];
	struct mcfan_igmp_msg msg;
	enum mcfan_igmp_invalid r;
	const uint8_t *data;
	struct igmp_port *p;
	uint32_t len;
	unsigned int k;

	RTE_SET_USED(app);
	g->dequeued++;
	if (m->port >= RTE_MAX_ETHPORTS || !g->ports[m->port].used) {
		g->unknown_port++;
		return;
	}
	p = &g->ports[m->port];
	len = RTE_MIN(m->pkt_len, (uint32_t)FRAME_COPY_MAX);
	data = rte_pktmbuf_read(m, 0, len, copy);
	if (data == NULL) {
		p->host[0].c.invalid[MCFAN_IGMP_MALFORMED]++;
		return;
	}
	r = mcfan_igmp_parse(data, len, &msg);
	k = proto_idx(msg.proto);
	if (r != MCFAN_IGMP_VALID) {
		p->host[k].c.invalid[r]++;
		/* another member's report: counted as not for us, and it may suppress ours */
		if (r == MCFAN_IGMP_NOT_FOR_US && msg.type == MCFAN_IGMP_MSG_REPORT)
			mcfan_igmp_host_report_heard(&p->host[k], &msg, t);
		return;
	}
	p->taken[k]++;
	mcfan_igmp_host_query(&p->host[k], &msg, t);
}

/* Build and send one message on a port's TX queue 0. */
static void
send_one(struct mcfan_igmp *g, uint16_t port, unsigned int k, const struct mcfan_igmp_send *s)
{
	struct igmp_port *p = &g->ports[port];
	char a[MCFAN_IGMP_ADDR_STR];
	struct rte_mbuf *m;
	uint8_t proto = k == 0 ? MCFAN_IGMP_PROTO_IGMP : MCFAN_IGMP_PROTO_MLD;
	char *data;
	int len;

	m = rte_pktmbuf_alloc(g->pool);
	if (m == NULL) {
		p->tx_failed++;
		return;
	}
	data = rte_pktmbuf_mtod(m, char *);
	len = mcfan_igmp_build(s, p->mac, p->src[k], (uint8_t *)data, rte_pktmbuf_tailroom(m),
			       NULL);
	if (len < 0) {
		rte_pktmbuf_free(m);
		p->tx_failed++;
		return;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		p->tx_failed++;
		if (!p->warned_tx)
			MCFAN_LOG(WARNING, "port %u: TX queue 0 refused a control frame (%s); "
				  "counted in tx_failed\n", port, mcfan_igmp_send_name(s->kind));
		p->warned_tx = true;
		return;
	}
	p->tx_frames++;
	mcfan_igmp_addr_format(proto, s->n_recs > 0 ? s->recs[0].group : s->group, a);
	if (!p->said[k])
		MCFAN_LOG(INFO, "port %u: first %s message sent: %s (%s) for %s%s\n", port,
			  proto_name(k), mcfan_igmp_send_name(s->kind), mcfan_igmp_why_name(s->why),
			  a, s->n_recs > 1 ? " and more" : "");
	else
		MCFAN_LOG(DEBUG, "port %u: %s (%s) for %s%s\n", port, mcfan_igmp_send_name(s->kind),
			  mcfan_igmp_why_name(s->why), a, s->n_recs > 1 ? " and more" : "");
	p->said[k] = true;
}

/* Send what is due on one port. */
static void
send_due_port(struct mcfan_igmp *g, uint16_t port, uint64_t t)
{
	struct mcfan_igmp_send s;
	unsigned int k, n;

	for (k = 0; k < N_PROTO; k++)
		for (n = 0; n < SENDS_PER_POLL &&
		     mcfan_igmp_host_poll(&g->ports[port].host[k], t, &s) == 1; n++)
			send_one(g, port, k, &s);
}

static void
send_due(struct mcfan_igmp *g, uint64_t t)
{
	uint16_t port;

	for (port = 0; port < RTE_MAX_ETHPORTS; port++)
		if (g->ports[port].used)
			send_due_port(g, port, t);
}

static bool
key_eq(const struct mcfan_flow_key *a, const struct mcfan_flow_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* A group newly joined from any source in an SSM range (mcfan_igmp_ssm_range()): routers
 * ignore that join (RFC 4604 section 2.2.2), so tell the user how to have it forwarded. Not
 * refused: a LAN without routers forwards it. k: 0 IGMP, 1 MLD. */
static void
ssm_any_warn(const struct mcfan_app *app, unsigned int k, const struct mcfan_flow_key *key)
{
	char text[MCFAN_GROUP_STR_MAX];

	if ((k == 0 ? app->cfg.igmp_mode : app->cfg.mld_mode) == MCFAN_IGMP_MODE_OFF ||
	    !mcfan_igmp_ssm_range(k == 0 ? MCFAN_IGMP_PROTO_IGMP : MCFAN_IGMP_PROTO_MLD,
				  key->addr))
		return;
	mcfan_group_format(key, text, sizeof(text));
	MCFAN_LOG(WARNING, "group %s is in the source-specific multicast range (%s): it is "
		  "joined from any source (%s), which routers ignore there (RFC 4604, RFC 4607), "
		  "so a routed network forwards it nothing: give its sources as GROUP@SOURCE "
		  "(e.g. %s@%s) for a router to forward it; a LAN without routers (a snooping "
		  "switch only) forwards it as it is (docs/igmp.md)\n", text,
		  k == 0 ? "232.0.0.0/8" : "ff3x::/96", k == 0 ? "IGMPv3 TO_EX {} or an IGMPv2 "
		  "report" : "MLDv2 EXCLUDE {} or an MLDv1 report", text, k == 0 ? "SOURCE" : "[SOURCE]");
}

/* Join and leave on every host so that its groups are the joined addresses. g->lock held. */
static void
sync_locked(struct mcfan_app *app, struct mcfan_igmp *g, uint64_t t)
{
	uint8_t src[MCFAN_IGMP_MAX_SOURCES][16];
	unsigned int n_keys = 0, i, j, s, n_src, k, al;
	struct mcfan_igmp_host *h;
	bool any, seen, warn_port = true;
	uint16_t port;

	mcfan_ctl_state_lock(app);
	for (i = 0; i < app->n_group_entries && i < MCFAN_MAX_GROUPS; i++) {
		const struct mcfan_flow_key *key = &app->group_entries[i].key;
		uint8_t proto = key->family == MCFAN_FAMILY_IPV4 ? MCFAN_IGMP_PROTO_IGMP :
				MCFAN_IGMP_PROTO_MLD;

		/* 224.0.0.1, ff02::1: received, never reported (scopes 0 and 1: not parsed) */
		if (mcfan_igmp_never_reported(proto, key->addr))
			continue;
		g->keys[n_keys++] = *key;
	}
	mcfan_ctl_state_unlock(app);
	/* forget the sources of groups no longer joined */
	for (s = 0, j = 0; s < g->n_ssm; s++) {
		for (i = 0; i < n_keys && !key_eq(&g->ssm[s].key, &g->keys[i]); i++)
			;
		if (i < n_keys)
			g->ssm[j++] = g->ssm[s];
	}
	g->n_ssm = j;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!g->ports[port].used)
			continue;
		for (k = 0; k < N_PROTO; k++) {
			h = &g->ports[port].host[k];
			al = k == 0 ? 4 : 16;
			/* join what is joined: each address once, its sources the union */
			for (i = 0; i < n_keys; i++) {
				if (g->keys[i].family != (k == 0 ? MCFAN_FAMILY_IPV4 : MCFAN_FAMILY_IPV6))
					continue;
				for (j = 0, seen = false; j < i && !seen; j++)
					seen = memcmp(g->keys[j].addr, g->keys[i].addr, 16) == 0;
				if (seen)
					continue;
				n_src = 0;
				any = false;
				for (j = i; j < n_keys; j++) {
					bool has = false;

					if (memcmp(g->keys[j].addr, g->keys[i].addr, 16) != 0)
						continue;
					for (s = 0; s < g->n_ssm; s++) {
						unsigned int x;

						if (!key_eq(&g->ssm[s].key, &g->keys[j]))
							continue;
						has = true;
						for (x = 0; x < n_src; x++)
							if (memcmp(src[x], g->ssm[s].source, al) == 0)
								break;
						if (x == n_src && n_src < MCFAN_IGMP_MAX_SOURCES)
							memcpy(src[n_src++], g->ssm[s].source, 16);
					}
					if (!has)
						any = true;
				}
				/* a joined address whose union changed: its new sources */
				if (mcfan_igmp_host_set_sources(h, g->keys[i].addr,
								(const uint8_t (*)[16])src,
								any ? 0 : n_src, t) != -ENOENT)
					continue;
				mcfan_igmp_host_join(h, g->keys[i].addr, (const uint8_t (*)[16])src,
						     any ? 0 : n_src, t);
				if (any && warn_port)
					ssm_any_warn(app, k, &g->keys[i]);
			}
			/* leave what is not */
			for (j = h->n_groups; j-- > 0;) {
				const struct mcfan_igmp_group *gr = &h->groups[j];

				if (gr->leaving)
					continue;
				for (i = 0; i < n_keys; i++)
					if (memcmp(g->keys[i].addr, gr->addr, 16) == 0)
						break;
				if (i == n_keys)
					mcfan_igmp_host_leave(h, gr->addr, t);
			}
		}
		warn_port = false; /* told once a group, not once a port */
	}
	g->synced = true;
}

void
mcfan_igmp_sync(struct mcfan_app *app, const struct mcfan_igmp_ssm *ssm, unsigned int n_ssm)
{
	struct mcfan_igmp *g = app->igmp;
	unsigned int i;
	uint64_t t;

	if (g == NULL)
		return;
	rte_spinlock_lock(&g->lock);
	for (i = 0; i < n_ssm && g->n_ssm < MCFAN_IGMP_SSM_MAX; i++)
		g->ssm[g->n_ssm++] = ssm[i];
	t = now_ms(app, g);
	sync_locked(app, g, t);
	send_due(g, t);
	rte_spinlock_unlock(&g->lock);
}

int
mcfan_igmp_join_check(const struct mcfan_app *app, const struct mcfan_igmp_ssm *ssm,
		      unsigned int n_ssm, char *msg, size_t len)
{
	struct mcfan_igmp *g = app->igmp;
	struct mcfan_igmp_ssm *all;
	char err[256];
	unsigned int n = 0;
	int ret;

	all = calloc(2 * MCFAN_IGMP_SSM_MAX, sizeof(*all));
	if (all == NULL) {
		snprintf(msg, len, "join: out of memory");
		return -ENOMEM;
	}
	if (g != NULL) {
		rte_spinlock_lock(&g->lock);
		memcpy(all, g->ssm, g->n_ssm * sizeof(all[0]));
		n = g->n_ssm;
		rte_spinlock_unlock(&g->lock);
	}
	if (n + n_ssm > MCFAN_IGMP_SSM_MAX) {
		snprintf(msg, len, "join: %u (group, source) pairs joined + %u new is more than the "
			 "%d mcfan holds", n, n_ssm, MCFAN_IGMP_SSM_MAX);
		ret = -E2BIG;
		goto out;
	}
	if (n_ssm > 0)
		memcpy(all + n, ssm, n_ssm * sizeof(all[0]));
	ret = mcfan_igmp_ssm_check(all, n + n_ssm, app->cfg.igmp_mode, app->cfg.mld_mode, err,
				   sizeof(err));
	if (ret < 0)
		snprintf(msg, len, "join: %s", err);
out:
	free(all);
	return ret;
}

/* Take up to `limit` frames of ring r. g->lock held. */
static void
drain_ring(struct mcfan_app *app, struct mcfan_igmp *g, unsigned int r, uint64_t t,
	   unsigned int limit)
{
	struct rte_mbuf *pkts[DEQ_BURST];
	unsigned int n, i, taken;

	for (taken = 0; taken < limit; taken += n) {
		n = rte_ring_dequeue_burst(g->rings[r], (void **)pkts,
					   RTE_MIN(limit - taken, (unsigned int)DEQ_BURST), NULL);
		if (n == 0)
			break;
		for (i = 0; i < n; i++)
			take_frame(app, g, pkts[i], t);
		rte_pktmbuf_free_bulk(pkts, n);
	}
}

/* Take up to `limit` frames of each ring. g->lock held. */
static void
drain_rings(struct mcfan_app *app, struct mcfan_igmp *g, uint64_t t, unsigned int limit)
{
	unsigned int r;

	for (r = 0; r < g->n_rings; r++)
		drain_ring(app, g, r, t, limit);
}

/* Take what each ring holds now, and no more: an RX lcore that keeps adding control frames
 * (a capture of queries replayed at line rate) would keep an unbounded drain going while
 * the RX lcore runs, with the clear stats action, the action lock and the console stuck in
 * it. g->lock held. */
static void
drain_held(struct mcfan_app *app, struct mcfan_igmp *g, uint64_t t)
{
	unsigned int r;

	for (r = 0; r < g->n_rings; r++)
		drain_ring(app, g, r, t, rte_ring_count(g->rings[r]));
}

/*
 * Say once when a port's joined groups go without a querier for the Other Querier Present
 * Interval (mcfan_igmp_host_querier_silent_ms()): a snooping switch then prunes or floods
 * them, and mcfan, which reports only when asked (RFC 3376 5.2, RFC 3810 6.2), cannot keep
 * them; and once when a querier is heard again. Under g->lock.
 */
static void
querier_check(struct mcfan_igmp *g, uint64_t t)
{
	struct igmp_port *p;
	uint64_t silent;
	unsigned int k;
	uint16_t port;

	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		p = &g->ports[port];
		if (!p->used)
			continue;
		for (k = 0; k < N_PROTO; k++) {
			const struct mcfan_igmp_host *h = &p->host[k];

			if (h->n_groups == 0) {
				p->nogroup_ms[k] = t;
				p->quiet_said[k] = false;
				continue;
			}
			silent = mcfan_igmp_host_querier_silent_ms(h, p->nogroup_ms[k], t);
			if (silent != 0 && !p->quiet_said[k]) {
				MCFAN_LOG(WARNING, "port %u: no %s querier heard for %" PRIu64 " s while "
					  "%u group(s) are joined: a snooping switch keeps a port's "
					  "membership only while a querier asks for it (after its "
					  "membership interval it prunes the groups, or floods them), "
					  "and mcfan reports only when asked: enable a querier on the "
					  "switch or VLAN (docs/igmp.md)\n", port, proto_name(k),
					  silent / 1000, h->n_groups);
				p->quiet_said[k] = true;
				p->quiet_ms[k] = t;
			} else if (silent == 0 && p->quiet_said[k] && h->have_querier &&
				   h->querier_seen_ms >= p->quiet_ms[k]) {
				MCFAN_LOG(INFO, "port %u: %s querier heard again (v%u): its queries "
					  "keep the groups' membership\n", port, proto_name(k),
					  h->querier_version);
				p->quiet_said[k] = false;
			}
		}
	}
}

void
mcfan_igmp_tick(struct mcfan_app *app)
{
	struct mcfan_igmp *g = app->igmp;
	uint64_t t;

	if (g == NULL)
		return;
	rte_spinlock_lock(&g->lock);
	t = now_ms(app, g);
	drain_rings(app, g, t, DEQ_PER_TICK);
	if (!g->synced)
		sync_locked(app, g, t);
	send_due(g, t);
	querier_check(g, t);
	rte_spinlock_unlock(&g->lock);
}

uint64_t
mcfan_igmp_idle_ms(struct mcfan_app *app)
{
	struct mcfan_igmp *g = app->igmp;
	uint64_t t, due = UINT64_MAX, d;
	unsigned int r, k;
	uint16_t port;

	if (g == NULL)
		return UINT64_MAX;
	for (r = 0; r < g->n_rings; r++)
		if (rte_ring_count(g->rings[r]) != 0)
			return 0;
	rte_spinlock_lock(&g->lock);
	t = now_ms(app, g);
	if (!g->synced)
		due = 0;
	for (port = 0; due != 0 && port < RTE_MAX_ETHPORTS; port++) {
		if (!g->ports[port].used)
			continue;
		for (k = 0; k < N_PROTO; k++) {
			d = mcfan_igmp_host_next_due(&g->ports[port].host[k]);
			due = RTE_MIN(due, d);
		}
	}
	rte_spinlock_unlock(&g->lock);
	if (due == UINT64_MAX)
		return UINT64_MAX;
	return due > t ? due - t : 0;
}

void
mcfan_igmp_drain(struct mcfan_app *app)
{
	struct mcfan_igmp *g = app->igmp;

	if (g == NULL)
		return;
	rte_spinlock_lock(&g->lock);
	drain_rings(app, g, now_ms(app, g), UINT32_MAX);
	rte_spinlock_unlock(&g->lock);
}

/* Leave messages a host counted, every version (the report's leaves_sent). */
static uint64_t
leaves_total(const struct mcfan_igmp_host *h)
{
	uint64_t n = 0;
	unsigned int v;

	for (v = 0; v < RTE_DIM(h->c.leaves_sent); v++)
		n += h->c.leaves_sent[v];
	return n;
}

/* Most passes of leave_all: each sends what is due, then makes the repeats due at once
 * (a learned QRV is at most 7, RFC 3376 4.1.6, plus the pass that finds nothing left). */
#define LEAVE_PASSES 8

void
mcfan_igmp_leave_all(struct mcfan_app *app)
{
	struct mcfan_igmp *g = app->igmp;
	unsigned int i, k, pass, left[N_PROTO];
	uint64_t t, failed, leaves[N_PROTO];
	struct igmp_port *p;
	uint16_t port;
	bool more;

	if (g == NULL)
		return;
	rte_spinlock_lock(&g->lock);
	t = now_ms(app, g);
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		p = &g->ports[port];
		if (!p->used || !app->ports[port].started)
			continue;
		failed = p->tx_failed;
		for (k = 0; k < N_PROTO; k++) {
			struct mcfan_igmp_host *h = &p->host[k];

			leaves[k] = leaves_total(h);

			/* the report lists what was joined, as "left" */
			p->final[k] = calloc(RTE_MAX(h->n_groups, 1u), sizeof(h->groups[0]));
			if (p->final[k] != NULL) {
				memcpy(p->final[k], h->groups, h->n_groups * sizeof(h->groups[0]));
				p->n_final[k] = h->n_groups;
			}
			left[k] = mcfan_igmp_host_leave_all(h, t);
		}
		if (left[0] + left[1] == 0)
			continue;
		for (pass = 0, more = true; pass < LEAVE_PASSES && more; pass++) {
			/* every group's message of this pass, SENDS_PER_POLL at a time */
			for (i = 0; i <= MCFAN_MAX_GROUPS / SENDS_PER_POLL; i++)
				send_due_port(g, port, t);
			more = false;
			for (k = 0; k < N_PROTO; k++)
				more |= mcfan_igmp_host_hurry(&p->host[k], t) > 0;
		}
		for (k = 0; k < N_PROTO; k++)
			leaves[k] = leaves_total(&p->host[k]) - leaves[k];
		/* the leaves counted as the report's leaves_sent (also those TX queue 0
		 * refused), and every message of the run as the report's sent (tx_frames) */
		MCFAN_LOG(INFO, "port %u: stopping: left %u IGMP (%s) and %u MLD (%s) groups with %"
			  PRIu64 " leave messages at the stop (IGMP %" PRIu64 ", MLD %" PRIu64
			  ", repeats of earlier leaves included; the report's leaves sent count them "
			  "and the run's earlier ones; %" PRIu64 " refused by TX queue 0); %" PRIu64
			  " IGMP/MLD messages sent in the run, reports included (the report's "
			  "sent)\n", port,
			  left[0], mcfan_igmp_mode_name(p->host[0].mode), left[1],
			  mcfan_igmp_mode_name(p->host[1].mode), leaves[0] + leaves[1], leaves[0],
			  leaves[1], p->tx_failed - failed, p->tx_frames);
	}
	rte_spinlock_unlock(&g->lock);
}

/* a += b, every count of the two (struct mcfan_igmp_counters is only uint64_t arrays) */
static void
counters_add(struct mcfan_igmp_counters *a, const struct mcfan_igmp_counters *b)
{
	uint64_t va, vb;
	size_t i;

	RTE_BUILD_BUG_ON(sizeof(*a) % sizeof(uint64_t) != 0);
	for (i = 0; i < sizeof(*a); i += sizeof(uint64_t)) {
		memcpy(&va, (const char *)a + i, sizeof(va));
		memcpy(&vb, (const char *)b + i, sizeof(vb));
		va += vb;
		memcpy((char *)a + i, &va, sizeof(va));
	}
}

void
mcfan_igmp_clear(struct mcfan_app *app)
{
	struct mcfan_igmp *g = app->igmp;
	struct igmp_port *p;
	unsigned int k;
	uint16_t port;

	if (g == NULL)
		return;
	rte_spinlock_lock(&g->lock);
	drain_held(app, g, now_ms(app, g));
	g->dequeued_cleared += g->dequeued;
	g->unknown_port_cleared += g->unknown_port;
	g->dequeued = 0;
	g->unknown_port = 0;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		p = &g->ports[port];
		if (!p->used)
			continue;
		p->tx_frames_cleared += p->tx_frames;
		p->tx_failed_cleared += p->tx_failed;
		p->tx_frames = 0;
		p->tx_failed = 0;
		for (k = 0; k < N_PROTO; k++) {
			p->taken_cleared[k] += p->taken[k];
			counters_add(&p->c_cleared[k], &p->host[k].c);
			p->taken[k] = 0;
			memset(&p->host[k].c, 0, sizeof(p->host[k].c));
		}
	}
	rte_spinlock_unlock(&g->lock);
}

void
mcfan_igmp_free(struct mcfan_app *app)
{
	struct mcfan_igmp *g = app->igmp;
	unsigned int r, k;
	uint16_t port;

	if (g == NULL)
		return;
	mcfan_igmp_drain(app);
	for (r = 0; r < g->n_rings; r++) {
		app->lcores[app->rx_lcore_ids[r]].rx.ctl_ring = NULL;
		rte_ring_free(g->rings[r]);
	}
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		for (k = 0; k < N_PROTO; k++) {
			mcfan_igmp_host_free(&g->ports[port].host[k]);
			free(g->ports[port].final[k]);
		}
	}
	rte_mempool_free(g->pool);
	rte_free(g);
	app->igmp = NULL;
}

unsigned int
mcfan_igmp_read_since(const struct mcfan_app *app, struct mcfan_igmp_port_view *views,
		      unsigned int max, struct mcfan_igmp_totals *tot, bool since_start)
{
	struct mcfan_igmp *g = app->igmp;
	struct mcfan_totals tt;
	unsigned int n = 0, k;
	uint16_t port;
	uint64_t t;

	if (tot != NULL) {
		/* the drop reason, as the conservation line counts it (and `clear stats` resets) */
		memset(tot, 0, sizeof(*tot));
		mcfan_totals_read_since(app, &tt, since_start ? MCFAN_SINCE_START :
							       MCFAN_SINCE_CLEAR);
		tot->ctl_ring_full = tt.drops[MCFAN_DROP_CTL_RING_FULL];
	}
	if (g == NULL)
		return 0;
	rte_spinlock_lock(&g->lock);
	t = now_ms(app, g);
	if (tot != NULL) {
		tot->dequeued = g->dequeued + (since_start ? g->dequeued_cleared : 0);
		tot->unknown_port = g->unknown_port + (since_start ? g->unknown_port_cleared : 0);
	}
	for (port = 0; port < RTE_MAX_ETHPORTS && n < max; port++) {
		const struct igmp_port *p = &g->ports[port];
		struct mcfan_igmp_port_view *v = &views[n];

		if (!p->used)
			continue;
		memset(v, 0, sizeof(*v));
		v->port = port;
		v->tx_frames = p->tx_frames + (since_start ? p->tx_frames_cleared : 0);
		v->tx_failed = p->tx_failed + (since_start ? p->tx_failed_cleared : 0);
		for (k = 0; k < N_PROTO; k++) {
			const struct mcfan_igmp_host *h = &p->host[k];
			struct mcfan_igmp_proto_view *pv = &v->proto[k];

			pv->mode = h->mode;
			pv->version = (uint8_t)mcfan_igmp_host_version(h, t);
			pv->have_querier = h->have_querier;
			pv->querier_version = h->querier_version;
			memcpy(pv->querier, h->querier, 16);
			pv->querier_age_ms = h->have_querier ? t - h->querier_seen_ms : 0;
			memcpy(pv->src, p->src[k], 16);
			pv->n_groups = p->final[k] != NULL ? p->n_final[k] : h->n_groups;
			pv->taken = p->taken[k];
			pv->c = h->c;
			if (since_start) {
				pv->taken += p->taken_cleared[k];
				counters_add(&pv->c, &p->c_cleared[k]);
			}
		}
		n++;
	}
	rte_spinlock_unlock(&g->lock);
	return n;
}

unsigned int
mcfan_igmp_read(const struct mcfan_app *app, struct mcfan_igmp_port_view *views,
		unsigned int max, struct mcfan_igmp_totals *tot)
{
	return mcfan_igmp_read_since(app, views, max, tot, false);
}

unsigned int
mcfan_igmp_sources_text(const struct mcfan_app *app, const struct mcfan_flow_key *key,
			char *buf, size_t len)
{
	struct mcfan_igmp *g = app->igmp;
	unsigned int n;

	buf[0] = '\0';
	if (g == NULL)
		return 0;
	rte_spinlock_lock(&g->lock);
	n = mcfan_igmp_ssm_format(g->ssm, g->n_ssm, key, buf, len);
	rte_spinlock_unlock(&g->lock);
	return n;
}

unsigned int
mcfan_igmp_sources_list(const struct mcfan_app *app, const struct mcfan_flow_key *key,
			char (*out)[MCFAN_IGMP_ADDR_STR], unsigned int max)
{
	struct mcfan_igmp *g = app->igmp;
	uint8_t proto = key->family == MCFAN_FAMILY_IPV6 ? MCFAN_IGMP_PROTO_MLD :
		MCFAN_IGMP_PROTO_IGMP;
	unsigned int i, n = 0;

	if (g == NULL)
		return 0;
	rte_spinlock_lock(&g->lock);
	for (i = 0; i < g->n_ssm; i++) {
		if (!mcfan_flow_key_equal(&g->ssm[i].key, key))
			continue;
		if (n < max)
			mcfan_igmp_addr_format(proto, g->ssm[i].source, out[n]);
		n++;
	}
	rte_spinlock_unlock(&g->lock);
	return n;
}

int
mcfan_igmp_read_groups(const struct mcfan_app *app, uint16_t port, unsigned int proto_idx_,
		       struct mcfan_igmp_group_view *out, unsigned int max)
{
	struct mcfan_igmp *g = app->igmp;
	const struct mcfan_igmp_group *groups;
	const struct igmp_port *p;
	unsigned int i, n = 0, n_groups;
	uint64_t t;

	if (g == NULL || port >= RTE_MAX_ETHPORTS || proto_idx_ >= N_PROTO ||
	    !g->ports[port].used)
		return -ENOENT;
	rte_spinlock_lock(&g->lock);
	t = now_ms(app, g);
	p = &g->ports[port];
	groups = p->final[proto_idx_] != NULL ? p->final[proto_idx_] :
		p->host[proto_idx_].groups;
	n_groups = p->final[proto_idx_] != NULL ? p->n_final[proto_idx_] :
		p->host[proto_idx_].n_groups;
	for (i = 0; i < n_groups && n < max; i++) {
		const struct mcfan_igmp_group *gr = &groups[i];
		struct mcfan_igmp_group_view *v = &out[n++];

		memcpy(v->addr, gr->addr, 16);
		v->n_src = gr->n_src;
		memcpy(v->sources, gr->sources, sizeof(v->sources));
		v->state = p->final[proto_idx_] != NULL ? "left" : mcfan_igmp_group_state(gr);
		v->reported = gr->reported;
		v->last_report_age_ms = gr->reported ? t - gr->last_report_ms : 0;
	}
	rte_spinlock_unlock(&g->lock);
	return (int)n;
}
