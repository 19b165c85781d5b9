/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Unit tests of the fan-out fast path: mcfan_fanout_burst() from an RX burst
 * to worker rings, mcfan_worker_burst() on the worker side, the exact
 * counting rules and mbuf ownership (every mbuf back in its pool). EAL runs
 * without hugepages or devices; the "RX burst" is mbufs filled by hand.
 */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
/* mcfan_fanout.h uses RTE_MBUF_DYNFIELD without including its header (reported). */
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "mcfan_classify.h"
#include "mcfan_fanout.h"
#include "mcfan_group.h"
#include "frame.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

#define POOL_SIZE 1023         /* 2^q - 1, as rte_mempool recommends */
#define POOL_CACHE 32
#define BIG_RING 1024
#define SMALL_RING 8
#define BURST 32
#define MAX_W 3                /* most workers any case uses */
#define PAYLOAD_LEN 32
#define N_GROUPS 10
#define V6_PORT 5000
#define RING_FLAGS (RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ)


static struct rte_mempool *pool;
static int meta_off = -1;

/* ---- frames (built with frame.h) ---- */

/* UDP payload: a sequence number, then filler, payload_len bytes in all (at least 4). */
static void
payload(struct frame *f, uint32_t seq, uint32_t payload_len)
{
	uint32_t i;

	put_be32(f, seq);
	for (i = 4; i < payload_len; i++)
		put_u8(f, (uint8_t)i);
}

static void
v4_addr(uint8_t a[4], uint8_t last)
{
	a[0] = 239;
	a[1] = 9;
	a[2] = 9;
	a[3] = last;
}

/* IPv4 UDP to 239.9.9.<last>:<port>, with n_tags tags and a payload of payload_len bytes. */
static void
build_v4(struct frame *f, unsigned int n_tags, uint8_t last, uint16_t port, uint32_t seq,
	 uint32_t payload_len)
{
	uint8_t dst[4];
	uint32_t ip, u;

	v4_addr(dst, last);
	l2_hdr(f, l2_tags(n_tags), ET_IPV4);
	ip = ipv4_begin(f, IPV4_IHL_MIN, PROTO_UDP, 0, dst);
	u = udp_begin(f, port);
	payload(f, seq, payload_len);
	udp_end(f, u);
	ipv4_end(f, ip);
}

/* IPv6 UDP to [ff3e::1]:port, optionally behind a hop-by-hop header of hbh_units. */
static void
build_v6(struct frame *f, bool hbh, uint8_t hbh_units, uint16_t port, uint32_t seq)
{
	uint32_t ip, u;

	l2_hdr(f, l2_tags(0), ET_IPV6);
	ip = ipv6_begin(f, hbh ? PROTO_HOPOPTS : PROTO_UDP, V6_GROUP);
	if (hbh)
		ipv6_opts(f, PROTO_UDP, hbh_units);
	u = udp_begin(f, port);
	payload(f, seq, PAYLOAD_LEN);
	udp_end(f, u);
	ipv6_end(f, ip);
}

/* Frame kinds of a mixed burst, and the drop reason each gets before the lookup. */
enum kind {
	K_GROUP,        /* 239.9.9.<1..10>:3999, deliverable */
	K_GROUP6,       /* [ff3e::1]:5000, deliverable */
	K_UNICAST,
	K_TCP,
	K_TOTLEN,       /* IPv4 total length beyond the frame: truncated */
	K_IHL4,
	K_SHORT,        /* 20 bytes */
	K_FRAG_FIRST,
	K_FRAG_LATER,
	K_UNKNOWN,      /* 239.9.9.99:3999 */
	K_WRONG_PORT,   /* 239.9.9.1:4000, group is port-specific */
	K_IGMP,
	K_MLD,
	K_MAX
};

static const enum mcfan_drop kind_reason[K_MAX] = {
	[K_GROUP] = MCFAN_DROP_NONE,
	[K_GROUP6] = MCFAN_DROP_NONE,
	[K_UNICAST] = MCFAN_DROP_NOT_MULTICAST,
	[K_TCP] = MCFAN_DROP_NOT_UDP,
	[K_TOTLEN] = MCFAN_DROP_TRUNCATED,
	[K_IHL4] = MCFAN_DROP_MALFORMED,
	[K_SHORT] = MCFAN_DROP_MALFORMED,
	[K_FRAG_FIRST] = MCFAN_DROP_FRAGMENT,
	[K_FRAG_LATER] = MCFAN_DROP_FRAGMENT,
	[K_UNKNOWN] = MCFAN_DROP_UNKNOWN_GROUP,
	[K_WRONG_PORT] = MCFAN_DROP_UNKNOWN_GROUP,
	[K_IGMP] = MCFAN_DROP_CONTROL,
	[K_MLD] = MCFAN_DROP_CONTROL,
};

static void
build_kind(struct frame *f, enum kind k, uint8_t group, uint32_t seq)
{
	uint8_t dst[4];
	uint32_t ip, i;

	v4_addr(dst, group);
	switch (k) {
	case K_GROUP:
		build_v4(f, 0, group, GROUP_PORT, seq, PAYLOAD_LEN);
		break;
	case K_GROUP6:
		build_v6(f, false, 0, V6_PORT, seq);
		break;
	case K_UNICAST:
		l2_hdr(f, l2_tags(0), ET_IPV4);
		ip = ipv4_begin(f, IPV4_IHL_MIN, PROTO_UDP, 0, V4_UNICAST);
		i = udp_begin(f, GROUP_PORT);
		payload(f, seq, PAYLOAD_LEN);
		udp_end(f, i);
		ipv4_end(f, ip);
		break;
	case K_TCP:
		l2_hdr(f, l2_tags(0), ET_IPV4);
		ip = ipv4_begin(f, IPV4_IHL_MIN, PROTO_TCP, 0, dst);
		for (i = 0; i < 20; i++)
			put_u8(f, i == 12 ? 0x50 : 0);
		ipv4_end(f, ip);
		break;
	case K_TOTLEN:
		build_v4(f, 0, group, GROUP_PORT, seq, PAYLOAD_LEN);
		set_be16(f, ETH_HDR_LEN + 2, 1500);
		break;
	case K_IHL4:
		build_v4(f, 0, group, GROUP_PORT, seq, PAYLOAD_LEN);
		f->b[ETH_HDR_LEN] = 0x44;
		break;
	case K_SHORT:
		build_v4(f, 0, group, GROUP_PORT, seq, PAYLOAD_LEN);
		f->len = 20;
		break;
	case K_FRAG_FIRST:
	case K_FRAG_LATER:
		l2_hdr(f, l2_tags(0), ET_IPV4);
		ip = ipv4_begin(f, IPV4_IHL_MIN, PROTO_UDP, k == K_FRAG_FIRST ? IPV4_MF : 100, dst);
		payload(f, seq, PAYLOAD_LEN);
		ipv4_end(f, ip);
		break;
	case K_UNKNOWN:
		build_v4(f, 0, 99, GROUP_PORT, seq, PAYLOAD_LEN);
		break;
	case K_WRONG_PORT:
		build_v4(f, 0, 1, GROUP_PORT + 1, seq, PAYLOAD_LEN);
		break;
	case K_IGMP:
		l2_hdr(f, l2_tags(0), ET_IPV4);
		ip = ipv4_begin(f, IPV4_IHL_MIN, PROTO_IGMP, 0, dst);
		put_be16(f, 0x1600);
		put_be16(f, 0);
		put_bytes(f, dst, 4);
		ipv4_end(f, ip);
		break;
	case K_MLD:
		l2_hdr(f, l2_tags(0), ET_IPV6);
		ip = ipv6_begin(f, PROTO_HOPOPTS, V6_MLDV2_ROUTERS);
		ipv6_hbh_router_alert(f, PROTO_ICMPV6);
		put_u8(f, ICMPV6_MLDV2_REPORT);
		put_u8(f, 0);
		put_be16(f, 0);
		put_be32(f, 0);          /* reserved, no records */
		ipv6_end(f, ip);
		break;
	default:
		f->len = 0;
		break;
	}
}

static struct rte_mbuf *
mbuf_from(const struct frame *f)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *p;

	CHECK(m != NULL, "mbuf alloc failed (%u available)", rte_mempool_avail_count(pool));
	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, (uint16_t)f->len);
	CHECK(p != NULL || f->len == 0, "append %u bytes failed", f->len);
	if (p != NULL)
		memcpy(p, f->b, f->len);
	return m;
}

/* Frame of f split over segments at the given offsets (increasing, inside the frame). */
static struct rte_mbuf *
mbuf_chain_from(const struct frame *f, const uint32_t *splits, unsigned int n_splits)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t start = 0, end;
	unsigned int i;
	char *p;

	for (i = 0; i <= n_splits; i++) {
		end = i < n_splits ? splits[i] : f->len;
		m = rte_pktmbuf_alloc(pool);
		CHECK(m != NULL, "segment alloc failed");
		if (m == NULL)
			break;
		p = rte_pktmbuf_append(m, (uint16_t)(end - start));
		if (p != NULL)
			memcpy(p, f->b + start, end - start);
		if (head == NULL)
			head = m;
		else
			CHECK_EQ_INT(rte_pktmbuf_chain(head, m), 0);
		start = end;
	}
	return head;
}

/* Sequence number of a deliverable IPv4 frame (untagged, IHL 5). */
static uint32_t
seq_of_v4(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						   ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN);

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static struct rte_ring *
ring_new(const char *name, unsigned int size)
{
	struct rte_ring *r = rte_ring_create(name, size, SOCKET_ID_ANY, RING_FLAGS);

	CHECK(r != NULL, "ring %s of %u: %s", name, size, rte_strerror(rte_errno));
	if (r != NULL) {
		CHECK_EQ_INT(rte_ring_get_capacity(r), size);
		CHECK_EQ_INT(rte_ring_free_count(r), size);
	}
	return r;
}

static void
ring_del(struct rte_ring *r)
{
	if (r != NULL)
		CHECK(rte_ring_empty(r), "ring %s freed while not empty", r->name);
	rte_ring_free(r);
}

/* Groups 239.9.9.1..10:3999 (ids 0..9) and [ff3e::1]:5000 (id 10). */
static struct mcfan_group_table *
table_new(enum mcfan_fanout mode, const uint16_t *eligible, unsigned int n_eligible)
{
	static struct mcfan_group_entry e[N_GROUPS + 1];
	struct mcfan_flow_key keys[N_GROUPS + 1];
	struct mcfan_group_table *t;
	char err[128] = "";
	int n, i;

	n = mcfan_group_parse_list("239.9.9.1-10:3999,[ff3e::1]:5000", keys, RTE_DIM(keys), err,
				   sizeof(err));
	CHECK(n == N_GROUPS + 1, "group list: %d (%s)", n, err);
	if (n != N_GROUPS + 1)
		return NULL;
	for (i = 0; i < n; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		e[i].key = keys[i];
		e[i].id = (uint16_t)i;
		CHECK_EQ_INT(mcfan_group_assign(&e[i], mode, eligible, n_eligible), 0);
	}
	t = mcfan_group_table_create(e, (unsigned int)n, SOCKET_ID_ANY);
	CHECK(t != NULL, "table: %s", rte_strerror(rte_errno));
	return t;
}

static struct mcfan_worker_stats *
ws_new(void)
{
	struct mcfan_worker_stats *ws = rte_zmalloc("ut_ws", sizeof(*ws), RTE_CACHE_LINE_SIZE);

	CHECK(ws != NULL, "worker stats alloc");
	return ws;
}

static uint64_t
sum_drops(const struct mcfan_rx_stats *s)
{
	uint64_t sum = 0;
	unsigned int r;

	for (r = 1; r < MCFAN_DROP_MAX; r++)
		sum += s->drops[r];
	return sum;
}

static uint64_t
sum_ring_drops(const struct mcfan_rx_ctx *ctx)
{
	uint64_t sum = 0;
	unsigned int w;

	for (w = 0; w < ctx->n_workers; w++)
		sum += ctx->ring_stats[w].ring_drops;
	return sum;
}

/* The two conservation laws, exactly. */
static void
check_conservation(const char *what, const struct mcfan_rx_ctx *ctx)
{
	const struct mcfan_rx_stats *s = &ctx->stats;

	CHECK(s->rx_frames == s->delivered_frames + sum_drops(s),
	      "%s: rx_frames %" PRIu64 " != delivered %" PRIu64 " + drops %" PRIu64, what,
	      s->rx_frames, s->delivered_frames, sum_drops(s));
	CHECK(s->copies_offered == s->delivered_copies + sum_ring_drops(ctx),
	      "%s: copies_offered %" PRIu64 " != delivered_copies %" PRIu64
	      " + ring_drops %" PRIu64, what, s->copies_offered, s->delivered_copies,
	      sum_ring_drops(ctx));
	CHECK(s->drops[MCFAN_DROP_NONE] == 0, "%s: drops[none] used", what);
	CHECK((s->seq.sn & 1) == 0, "%s: seq odd after a burst", what);
}

/* Dequeue everything from a ring into out (at most max), returning the count. */
static unsigned int
drain(struct rte_ring *r, struct rte_mbuf **out, unsigned int max)
{
	unsigned int n = 0, got;

	do {
		got = rte_ring_dequeue_burst(r, (void **)&out[n], RTE_MIN(max - n, 64u), NULL);
		n += got;
	} while (got > 0 && n < max);
	return n;
}

static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Every mbuf is back in the pool, exactly once. rte_mempool_avail_count() alone cannot tell:
 * it caps its answer at the pool size, so a double free (one object in the pool twice) looks
 * like a full pool. Take every object out, count them and look for duplicates, put them back.
 */
static void
check_pool_full(const char *what)
{
	static void *objs[POOL_SIZE + 16];
	unsigned int n = 0, i, dups = 0;

	CHECK(rte_mempool_avail_count(pool) == POOL_SIZE,
	      "%s: %u of %u mbufs in the pool", what, rte_mempool_avail_count(pool), POOL_SIZE);
	while (n < RTE_DIM(objs) && rte_mempool_get(pool, &objs[n]) == 0)
		n++;
	qsort(objs, n, sizeof(objs[0]), ptr_cmp);
	for (i = 1; i < n; i++)
		dups += objs[i] == objs[i - 1];
	CHECK(n == POOL_SIZE && dups == 0,
	      "%s: pool holds %u objects (%u duplicates: freed twice), expected %u", what, n,
	      dups, POOL_SIZE);
	/* Put back only distinct objects, so one failure does not poison the next cases. */
	for (i = 0; i < n; i++)
		if (i == 0 || objs[i] != objs[i - 1])
			rte_mempool_put(pool, objs[i]);
}

/* ---- cases ---- */

static void
test_meta_and_init(void)
{
	struct rte_ring *r[1];
	struct mcfan_rx_ctx ctx;
	int off2;

	off2 = mcfan_meta_register();
	CHECK_EQ_INT(off2, meta_off);
	CHECK(meta_off >= (int)sizeof(struct rte_mbuf) - RTE_CACHE_LINE_SIZE &&
	      meta_off < (int)sizeof(struct rte_mbuf),
	      "meta offset %d outside the dynamic field area", meta_off);

	r[0] = NULL;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, r, 0, meta_off, SOCKET_ID_ANY), -EINVAL);
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, r, MCFAN_MAX_WORKERS + 1, meta_off, SOCKET_ID_ANY),
		     -EINVAL);
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, r, 1, -1, SOCKET_ID_ANY), -EINVAL);
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, r, 1, meta_off, SOCKET_ID_ANY), 0);
	CHECK(ctx.n_workers == 1 && ctx.stats.rx_frames == 0 && ctx.stats.seq.sn == 0,
	      "fresh ctx not zeroed");
	mcfan_rx_ctx_free(&ctx);
	mcfan_rx_ctx_free(&ctx); /* second free is harmless: pointers were cleared */
	mcfan_rx_ctx_free(NULL);
}

static void
test_partition(void)
{
	static const uint16_t two[] = { 0, 1 };
	static struct rte_mbuf *pkts[BURST * 3], *out[BURST * 3];
	static uint64_t frames_in_group[N_GROUPS], bytes_in_group[N_GROUPS];
	static const uint64_t tsc[3] = { 1000, 2000, 3000 };
	struct mcfan_worker_stats *ws[2] = { ws_new(), ws_new() };
	struct rte_ring *rings[2] = { ring_new("ut_part0", BIG_RING),
				      ring_new("ut_part1", BIG_RING) };
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_PARTITION, two, 2);
	const struct mcfan_group_entry *ge;
	struct mcfan_rx_ctx ctx;
	struct mcfan_flow_key key;
	struct frame f;
	uint64_t total_bytes = 0, expect_enq[2] = { 0, 0 };
	uint32_t last_seq[N_GROUPS];
	bool seen[BURST * 3];
	unsigned int b, i, w, g, n, avail;
	uint16_t ret;

	if (ws[0] == NULL || ws[1] == NULL || rings[0] == NULL || rings[1] == NULL || t == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 2, meta_off, SOCKET_ID_ANY), 0);
	memset(seen, 0, sizeof(seen));

	/* Three bursts of 32 frames over the 10 groups; payload sizes vary by frame. */
	for (b = 0; b < 3; b++) {
		for (i = 0; i < BURST; i++) {
			unsigned int seq = b * BURST + i;

			g = (seq * 7) % N_GROUPS;
			build_v4(&f, 0, (uint8_t)(1 + g), GROUP_PORT, seq, PAYLOAD_LEN + seq % 5);
			pkts[seq] = mbuf_from(&f);
			total_bytes += f.len;
			frames_in_group[g]++;
			bytes_in_group[g] += f.len;
			ge = mcfan_group_table_entry(t, g);
			expect_enq[ge->targets[0]]++;
		}
		ret = mcfan_fanout_burst(&ctx, t, &pkts[b * BURST], BURST, tsc[b]);
		CHECK_EQ_INT(ret, BURST);
		check_conservation("partition", &ctx);
	}
	CHECK_EQ_INT(ctx.stats.rx_frames, 3 * BURST);
	CHECK_EQ_INT(ctx.stats.rx_bytes, total_bytes);
	CHECK_EQ_INT(ctx.stats.delivered_frames, 3 * BURST);
	CHECK_EQ_INT(ctx.stats.copies_offered, 3 * BURST);
	CHECK_EQ_INT(ctx.stats.delivered_copies, 3 * BURST);
	CHECK_EQ_INT(sum_drops(&ctx.stats), 0);
	CHECK_EQ_INT(ctx.stats.seq.sn, 6);
	CHECK(expect_enq[0] > 0 && expect_enq[1] > 0, "all groups on one worker");
	for (w = 0; w < 2; w++) {
		CHECK_EQ_INT(ctx.ring_stats[w].enqueued, expect_enq[w]);
		CHECK_EQ_INT(ctx.ring_stats[w].ring_drops, 0);
		CHECK_EQ_INT(rte_ring_count(rings[w]), expect_enq[w]);
	}
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - 3 * BURST);

	/* Every frame is in exactly the ring its group's target names, in order, with its
	 * metadata; the worker counts it. */
	for (w = 0; w < 2; w++) {
		for (g = 0; g < N_GROUPS; g++)
			last_seq[g] = UINT32_MAX;
		/* Take 5 first: waiting = 5 + what is left = the whole ring. */
		n = rte_ring_dequeue_burst(rings[w], (void **)out, 5, &avail);
		CHECK_EQ_INT(n + avail, expect_enq[w]);
		n += drain(rings[w], &out[n], RTE_DIM(out) - n);
		CHECK_EQ_INT(n, expect_enq[w]);
		for (i = 0; i < n; i++) {
			struct mcfan_mbuf_meta *meta = mcfan_meta(out[i], meta_off);
			uint32_t seq = seq_of_v4(out[i]);

			CHECK(mcfan_classify_mbuf(out[i], &key) == MCFAN_DROP_NONE, "re-classify");
			ge = mcfan_group_table_lookup(t, &key);
			CHECK(ge != NULL && ge->targets[0] == w && meta->group_id == ge->id,
			      "frame %u in ring %u, group id %u", seq, w, meta->group_id);
			CHECK(seq < RTE_DIM(seen) && !seen[seq], "frame %u twice", seq);
			if (seq < RTE_DIM(seen))
				seen[seq] = true;
			CHECK_EQ_INT(meta->rx_tsc, tsc[seq / BURST]);
			g = meta->group_id;
			if (g < N_GROUPS) {
				CHECK(last_seq[g] == UINT32_MAX || last_seq[g] < seq,
				      "group %u out of order: %u after %u", g, seq, last_seq[g]);
				last_seq[g] = seq;
			}
			CHECK_EQ_INT(rte_mbuf_refcnt_read(out[i]), 1);
		}
		mcfan_worker_burst(ws[w], out, (uint16_t)n, (unsigned int)expect_enq[w], 5000,
				   meta_off);
	}
	for (i = 0; i < RTE_DIM(seen); i++)
		CHECK(seen[i], "frame %u lost", i);
	check_pool_full("partition");

	/* Worker stats: per group exactly, on the group's worker only. */
	for (w = 0; w < 2; w++) {
		CHECK_EQ_INT(ws[w]->frames, expect_enq[w]);
		CHECK_EQ_INT(ws[w]->ring_high_water, expect_enq[w]);
		CHECK_EQ_INT(ws[w]->seq.sn, 2);
	}
	CHECK_EQ_INT(ws[0]->bytes + ws[1]->bytes, total_bytes);
	for (g = 0; g < N_GROUPS; g++) {
		unsigned int tw = mcfan_group_table_entry(t, g)->targets[0], ow = 1 - tw;

		CHECK_EQ_INT(ws[tw]->group_frames[g], frames_in_group[g]);
		CHECK_EQ_INT(ws[tw]->group_bytes[g], bytes_in_group[g]);
		CHECK_EQ_INT(ws[tw]->group_first_tsc[g], tsc[0]);
		CHECK_EQ_INT(ws[tw]->group_last_tsc[g], tsc[2]);
		CHECK_EQ_INT(ws[ow]->group_frames[g], 0);
		CHECK_EQ_INT(ws[ow]->group_first_tsc[g], 0);
	}
	/* The seqlock copy equals the live block. */
	{
		struct mcfan_worker_stats *copy = ws_new();

		if (copy != NULL) {
			mcfan_worker_stats_read(ws[0], copy);
			CHECK(memcmp(copy, ws[0], sizeof(*copy)) == 0, "worker stats copy differs");
			rte_free(copy);
		}
	}
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t);
	ring_del(rings[0]);
	ring_del(rings[1]);
	rte_free(ws[0]);
	rte_free(ws[1]);
}

static void
test_drop_mix(void)
{
	static const uint16_t one[] = { 0 };
	/* 12 deliverable frames, interleaved with 11 that are not. */
	static const enum kind mix[] = {
		K_GROUP, K_UNICAST, K_GROUP, K_TCP, K_GROUP, K_TOTLEN, K_GROUP, K_IHL4,
		K_GROUP6, K_SHORT, K_GROUP, K_FRAG_FIRST, K_GROUP, K_FRAG_LATER, K_GROUP,
		K_UNKNOWN, K_GROUP, K_WRONG_PORT, K_GROUP, K_IGMP, K_GROUP6, K_MLD, K_GROUP,
	};
	struct rte_ring *rings[1] = { ring_new("ut_mix", SMALL_RING) };
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_PARTITION, one, 1);
	struct mcfan_worker_stats *ws = ws_new();
	struct rte_mbuf *pkts[RTE_DIM(mix)], *out[RTE_DIM(mix)];
	uint64_t exp[MCFAN_DROP_MAX] = { 0 };
	uint32_t deliverable_seq[RTE_DIM(mix)];
	struct mcfan_rx_ctx ctx;
	struct mcfan_flow_key key;
	struct frame f;
	unsigned int i, n, n_ok = 0, r;
	uint16_t ret;

	if (rings[0] == NULL || t == NULL || ws == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 1, meta_off, SOCKET_ID_ANY), 0);
	for (i = 0; i < RTE_DIM(mix); i++) {
		build_kind(&f, mix[i], (uint8_t)(1 + i % N_GROUPS), i);
		pkts[i] = mbuf_from(&f);
		/* Each kind classifies as intended on its own. */
		r = mcfan_classify_mbuf(pkts[i], &key);
		if (kind_reason[mix[i]] == MCFAN_DROP_UNKNOWN_GROUP)
			CHECK(r == MCFAN_DROP_NONE && mcfan_group_table_lookup(t, &key) == NULL,
			      "kind %u: %s", mix[i], mcfan_drop_name(r));
		else
			CHECK(r == kind_reason[mix[i]], "kind %u: %s, expected %s", mix[i],
			      mcfan_drop_name(r), mcfan_drop_name(kind_reason[mix[i]]));
		if (kind_reason[mix[i]] == MCFAN_DROP_NONE)
			deliverable_seq[n_ok++] = i;
		else
			exp[kind_reason[mix[i]]]++;
	}
	CHECK_EQ_INT(n_ok, 12);
	/* The ring holds 8: the first 8 deliverable frames go in, the last 4 are ring_full. */
	exp[MCFAN_DROP_RING_FULL] = n_ok - SMALL_RING;

	ret = mcfan_fanout_burst(&ctx, t, pkts, RTE_DIM(mix), 42);
	CHECK_EQ_INT(ret, SMALL_RING);
	CHECK_EQ_INT(ctx.stats.rx_frames, RTE_DIM(mix));
	CHECK_EQ_INT(ctx.stats.delivered_frames, SMALL_RING);
	CHECK_EQ_INT(ctx.stats.copies_offered, n_ok);
	CHECK_EQ_INT(ctx.stats.delivered_copies, SMALL_RING);
	CHECK_EQ_INT(ctx.ring_stats[0].enqueued, SMALL_RING);
	CHECK_EQ_INT(ctx.ring_stats[0].ring_drops, n_ok - SMALL_RING);
	for (r = 1; r < MCFAN_DROP_MAX; r++)
		CHECK(ctx.stats.drops[r] == exp[r], "drops[%s] = %" PRIu64 ", expected %" PRIu64,
		      mcfan_drop_name(r), ctx.stats.drops[r], exp[r]);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_NOT_MULTICAST], 1);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_NOT_UDP], 1);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_MALFORMED], 2);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_TRUNCATED], 1);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_FRAGMENT], 2);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_UNKNOWN_GROUP], 2);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_CONTROL], 2);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_RING_FULL], 4);
	check_conservation("drop mix", &ctx);
	/* Only the 8 enqueued mbufs are out of the pool: every dropped one was freed. */
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - SMALL_RING);

	n = drain(rings[0], out, RTE_DIM(out));
	CHECK_EQ_INT(n, SMALL_RING);
	for (i = 0; i < n; i++) {
		uint32_t seq;
		const uint8_t *p = rte_pktmbuf_mtod(out[i], const uint8_t *);

		/* IPv6 frames carry the sequence after a 40-byte header. */
		if (p[12] == (ET_IPV6 >> 8) && p[13] == (ET_IPV6 & 0xff))
			p += ETH_HDR_LEN + IPV6_HDR_LEN + UDP_HDR_LEN;
		else
			p += ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN;
		seq = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		CHECK_EQ_INT(seq, deliverable_seq[i]);
	}
	mcfan_worker_burst(ws, out, (uint16_t)n, n, 43, meta_off);
	CHECK_EQ_INT(ws->frames, SMALL_RING);
	CHECK_EQ_INT(ws->group_frames[N_GROUPS], 1); /* one [ff3e::1]:5000 frame made it */
	check_pool_full("drop mix");
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t);
	ring_del(rings[0]);
	rte_free(ws);
}

static void
test_replicate(void)
{
	static const uint16_t three[] = { 0, 1, 2 };
	struct rte_ring *rings[MAX_W] = {
		ring_new("ut_rep0", BIG_RING), ring_new("ut_rep1", BIG_RING),
		ring_new("ut_rep2", BIG_RING),
	};
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_REPLICATE, three, 3);
	struct mcfan_worker_stats *ws[MAX_W] = { ws_new(), ws_new(), ws_new() };
	static struct rte_mbuf *pkts[BURST], *out[MAX_W][BURST];
	struct mcfan_rx_ctx ctx;
	struct frame f;
	unsigned int i, w, n[MAX_W];
	uint16_t ret;

	if (rings[0] == NULL || rings[1] == NULL || rings[2] == NULL || t == NULL ||
	    ws[0] == NULL || ws[1] == NULL || ws[2] == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_group_table_entry(t, 0)->n_targets, 3);
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 3, meta_off, SOCKET_ID_ANY), 0);
	for (i = 0; i < BURST; i++) {
		build_v4(&f, i % 3 == 0 ? 2 : 0, (uint8_t)(1 + i % N_GROUPS), GROUP_PORT, i,
			 PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	ret = mcfan_fanout_burst(&ctx, t, pkts, BURST, 7);
	CHECK_EQ_INT(ret, BURST);
	CHECK_EQ_INT(ctx.stats.rx_frames, BURST);
	CHECK_EQ_INT(ctx.stats.delivered_frames, BURST);
	CHECK_EQ_INT(ctx.stats.copies_offered, 3 * BURST);
	CHECK_EQ_INT(ctx.stats.delivered_copies, 3 * BURST);
	CHECK_EQ_INT(sum_drops(&ctx.stats), 0);
	check_conservation("replicate", &ctx);
	/* Shared by reference, never copied: only BURST mbufs are out of the pool. */
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - BURST);

	for (w = 0; w < 3; w++) {
		CHECK_EQ_INT(ctx.ring_stats[w].enqueued, BURST);
		n[w] = drain(rings[w], out[w], BURST);
		CHECK_EQ_INT(n[w], BURST);
	}
	for (i = 0; i < BURST; i++) {
		CHECK(out[0][i] == pkts[i] && out[1][i] == pkts[i] && out[2][i] == pkts[i],
		      "frame %u: rings hold other mbufs or another order", i);
		CHECK_EQ_INT(rte_mbuf_refcnt_read(out[0][i]), 3);
	}
	/* Workers free one by one; the mbufs return only after the last. */
	mcfan_worker_burst(ws[0], out[0], (uint16_t)n[0], n[0], 8, meta_off);
	CHECK_EQ_INT(rte_mbuf_refcnt_read(out[1][0]), 2);
	mcfan_worker_burst(ws[1], out[1], (uint16_t)n[1], n[1], 8, meta_off);
	CHECK_EQ_INT(rte_mbuf_refcnt_read(out[2][0]), 1);
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - BURST);
	mcfan_worker_burst(ws[2], out[2], (uint16_t)n[2], n[2], 8, meta_off);
	check_pool_full("replicate");
	for (w = 0; w < 3; w++) {
		CHECK_EQ_INT(ws[w]->frames, BURST);
		CHECK_EQ_INT(ws[w]->bytes, ctx.stats.rx_bytes);
		CHECK_EQ_INT(ws[w]->group_frames[0], (BURST + N_GROUPS - 1) / N_GROUPS);
	}
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t);
	for (w = 0; w < 3; w++) {
		ring_del(rings[w]);
		rte_free(ws[w]);
	}
}

/*
 * Rings too small for the load: 2 workers (partition), rings of 8, bursts of 32, the
 * workers draining only a few frames between bursts. A model of the rings predicts every
 * counter; conservation holds exactly after every burst.
 */
/* Local references (mcfan_fanout.h): copies to workers of the RX lcore's own thread share
 * one reference counted in the frame's local_refs; the others keep one each. Every mbuf
 * returns to the pool exactly after its last copy, whatever the order of release, own and
 * free, and also when a full local ring refuses a copy. */
static void
test_local_refs(void)
{
	static const uint16_t four[] = { 0, 1, 2, 3 };
	static const uint16_t two[] = { 0, 1 };
	struct rte_ring *rings[4] = {
		ring_new("ut_loc0", BIG_RING), ring_new("ut_loc1", SMALL_RING),
		ring_new("ut_loc2", BIG_RING), ring_new("ut_loc3", BIG_RING),
	};
	struct mcfan_group_table *t4 = table_new(MCFAN_FANOUT_REPLICATE, four, 4);
	struct mcfan_group_table *t2 = table_new(MCFAN_FANOUT_REPLICATE, two, 2);
	static struct rte_mbuf *pkts[BURST], *out[4][BURST];
	struct rte_ring *big[4];
	struct mcfan_rx_ctx ctx;
	struct frame f;
	unsigned int i, w, n[4];

	if (rings[0] == NULL || rings[1] == NULL || rings[2] == NULL || rings[3] == NULL ||
	    t4 == NULL || t2 == NULL)
		goto out;
	/* 1. workers 0-2 local, 3 not; big rings everywhere (ring 1 swapped for ring 2's
	 * size: every copy enqueued) */
	big[0] = rings[0];
	big[1] = rings[2];
	big[2] = rings[3];
	big[3] = ring_new("ut_loc4", BIG_RING);
	if (big[3] == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, big, 4, meta_off, SOCKET_ID_ANY), 0);
	CHECK_EQ_INT(mcfan_rx_ctx_set_local(&ctx, 4, true), -EINVAL);
	for (w = 0; w < 3; w++)
		CHECK_EQ_INT(mcfan_rx_ctx_set_local(&ctx, w, true), 0);
	for (i = 0; i < BURST; i++) {
		build_v4(&f, 0, (uint8_t)(1 + i % N_GROUPS), GROUP_PORT, i, PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	CHECK_EQ_INT(mcfan_fanout_burst(&ctx, t4, pkts, BURST, 7), BURST);
	CHECK_EQ_INT(ctx.stats.delivered_copies, 4 * BURST);
	check_conservation("local refs", &ctx);
	for (w = 0; w < 4; w++)
		CHECK_EQ_INT(drain(big[w], out[w], BURST), BURST);
	for (i = 0; i < BURST; i++) {
		CHECK_EQ_INT(rte_mbuf_refcnt_read(pkts[i]), 2); /* worker 3's + the shared one */
		CHECK_EQ_INT(mcfan_meta(pkts[i], meta_off)->local_refs, 3);
	}
	rte_pktmbuf_free_bulk(out[3], BURST);               /* the other thread's worker */
	CHECK_EQ_INT(rte_mbuf_refcnt_read(pkts[0]), 1);
	CHECK_EQ_INT(mcfan_meta(pkts[0], meta_off)->local_refs, 3);
	mcfan_copy_release_bulk(out[0], BURST, meta_off);   /* a local copy given up */
	CHECK_EQ_INT(mcfan_meta(pkts[0], meta_off)->local_refs, 2);
	mcfan_copy_own_bulk(out[1], BURST, meta_off);       /* one handed on (a PMD) */
	/* both local copies still out (1 and 2) now hold a reference each, no share left */
	CHECK_EQ_INT(rte_mbuf_refcnt_read(pkts[0]), 2);
	CHECK_EQ_INT(mcfan_meta(pkts[0], meta_off)->local_refs, 0);
	rte_pktmbuf_free_bulk(out[1], BURST);               /* ... which frees it */
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - BURST);
	mcfan_copy_release_bulk(out[2], BURST, meta_off);   /* now a plain reference */
	check_pool_full("local refs: release, own, free in any order");
	mcfan_rx_ctx_free(&ctx);
	ring_del(big[3]);

	/* 2. two local workers, worker 1's ring of SMALL_RING slots refuses the rest: the RX
	 * lcore gives the refused copies' shares back; worker 0's last release frees them */
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 2, meta_off, SOCKET_ID_ANY), 0);
	CHECK_EQ_INT(mcfan_rx_ctx_set_local(&ctx, 0, true), 0);
	CHECK_EQ_INT(mcfan_rx_ctx_set_local(&ctx, 1, true), 0);
	for (i = 0; i < BURST; i++) {
		build_v4(&f, 0, (uint8_t)(1 + i % N_GROUPS), GROUP_PORT, i, PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	CHECK_EQ_INT(mcfan_fanout_burst(&ctx, t2, pkts, BURST, 8), BURST);
	CHECK_EQ_INT(ctx.ring_stats[1].ring_drops, BURST - SMALL_RING);
	for (i = 0; i < BURST; i++) {
		CHECK_EQ_INT(rte_mbuf_refcnt_read(pkts[i]), 1);
		CHECK_EQ_INT(mcfan_meta(pkts[i], meta_off)->local_refs, i < SMALL_RING ? 2 : 1);
	}
	n[0] = drain(rings[0], out[0], BURST);
	n[1] = drain(rings[1], out[1], BURST);
	CHECK_EQ_INT(n[0], BURST);
	CHECK_EQ_INT(n[1], SMALL_RING);
	mcfan_copy_release_bulk(out[0], (uint16_t)n[0], meta_off);
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - SMALL_RING);
	mcfan_copy_release_bulk(out[1], (uint16_t)n[1], meta_off);
	check_pool_full("local refs: a full local ring");
	mcfan_rx_ctx_free(&ctx);

	/* 3. one local target and one other: no sharing (local_refs 0, one reference each) */
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, big, 2, meta_off, SOCKET_ID_ANY), 0);
	CHECK_EQ_INT(mcfan_rx_ctx_set_local(&ctx, 0, true), 0);
	build_v4(&f, 0, 1, GROUP_PORT, 0, PAYLOAD_LEN);
	pkts[0] = mbuf_from(&f);
	CHECK_EQ_INT(mcfan_fanout_burst(&ctx, t2, pkts, 1, 9), 1);
	CHECK_EQ_INT(rte_mbuf_refcnt_read(pkts[0]), 2);
	CHECK_EQ_INT(mcfan_meta(pkts[0], meta_off)->local_refs, 0);
	n[0] = drain(big[0], out[0], BURST);
	n[1] = drain(big[1], out[1], BURST);
	CHECK_EQ_INT(n[0] + n[1], 2);
	mcfan_copy_release_bulk(out[0], (uint16_t)n[0], meta_off);
	rte_pktmbuf_free_bulk(out[1], n[1]);
	check_pool_full("local refs: one local target");
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t4);
	mcfan_group_table_free(t2);
	for (w = 0; w < 4; w++)
		ring_del(rings[w]);
}

static void
test_ring_full(void)
{
	static const uint16_t two[] = { 0, 1 };
	struct rte_ring *rings[2] = { ring_new("ut_full0", SMALL_RING),
				      ring_new("ut_full1", SMALL_RING) };
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_PARTITION, two, 2);
	struct mcfan_worker_stats *ws[2] = { ws_new(), ws_new() };
	struct rte_mbuf *pkts[BURST], *out[BURST];
	uint64_t exp_enq[2] = { 0, 0 }, exp_rdrop[2] = { 0, 0 }, exp_full = 0, exp_deliv = 0;
	unsigned int in_ring[2] = { 0, 0 }, high[2] = { 0, 0 };
	struct mcfan_rx_ctx ctx;
	struct frame f;
	unsigned int round, i, w, n, avail, want[2], take;
	uint16_t ret;

	if (rings[0] == NULL || rings[1] == NULL || t == NULL || ws[0] == NULL || ws[1] == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 2, meta_off, SOCKET_ID_ANY), 0);
	for (round = 0; round < 20; round++) {
		unsigned int deliv = 0;

		want[0] = want[1] = 0;
		for (i = 0; i < BURST; i++) {
			unsigned int g = (round * BURST + i) % N_GROUPS;

			build_v4(&f, 0, (uint8_t)(1 + g), GROUP_PORT, round * BURST + i,
				 PAYLOAD_LEN);
			pkts[i] = mbuf_from(&f);
			want[mcfan_group_table_entry(t, g)->targets[0]]++;
		}
		for (w = 0; w < 2; w++) {
			unsigned int room = SMALL_RING - in_ring[w];
			unsigned int sent = RTE_MIN(want[w], room);

			exp_enq[w] += sent;
			exp_rdrop[w] += want[w] - sent;
			exp_full += want[w] - sent;
			deliv += sent;
			in_ring[w] += sent;
		}
		exp_deliv += deliv;
		ret = mcfan_fanout_burst(&ctx, t, pkts, BURST, 100 + round);
		CHECK_EQ_INT(ret, deliv);
		check_conservation("ring full", &ctx);
		CHECK_EQ_INT(ctx.stats.rx_frames, (round + 1) * BURST);
		CHECK_EQ_INT(ctx.stats.delivered_frames, exp_deliv);
		CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_RING_FULL], exp_full);
		CHECK_EQ_INT(ctx.stats.copies_offered, (round + 1) * BURST);
		for (w = 0; w < 2; w++) {
			CHECK_EQ_INT(ctx.ring_stats[w].enqueued, exp_enq[w]);
			CHECK_EQ_INT(ctx.ring_stats[w].ring_drops, exp_rdrop[w]);
			CHECK_EQ_INT(rte_ring_count(rings[w]), in_ring[w]);
		}
		/* No mbuf lost: the pool is short by exactly what waits in the rings. */
		CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - in_ring[0] - in_ring[1]);
		/* Workers take a few (0..5, varying) each. */
		for (w = 0; w < 2; w++) {
			take = (round + 3 * w) % 6;
			n = rte_ring_dequeue_burst(rings[w], (void **)out, take, &avail);
			CHECK_EQ_INT(n, RTE_MIN(take, in_ring[w]));
			if (n > 0) {
				high[w] = RTE_MAX(high[w], n + avail);
				mcfan_worker_burst(ws[w], out, (uint16_t)n, n + avail, 200 + round,
						   meta_off);
			}
			in_ring[w] -= n;
		}
	}
	CHECK(exp_full > 0, "the model predicts no ring_full drops");
	/* Stop: drain the rings, every mbuf back. */
	for (w = 0; w < 2; w++) {
		n = rte_ring_dequeue_burst(rings[w], (void **)out, BURST, &avail);
		CHECK_EQ_INT(n, in_ring[w]);
		if (n > 0) {
			high[w] = RTE_MAX(high[w], n + avail);
			mcfan_worker_burst(ws[w], out, (uint16_t)n, n + avail, 999, meta_off);
		}
		CHECK_EQ_INT(ws[w]->frames, exp_enq[w]);
		CHECK_EQ_INT(ws[w]->ring_high_water, high[w]);
		CHECK(ws[w]->ring_high_water <= SMALL_RING, "high water %" PRIu64 " > ring size",
		      ws[w]->ring_high_water);
	}
	CHECK_EQ_INT(ws[0]->frames + ws[1]->frames, ctx.stats.delivered_frames);
	check_pool_full("ring full");
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t);
	for (w = 0; w < 2; w++) {
		ring_del(rings[w]);
		rte_free(ws[w]);
	}
}

/* Replicate to two workers whose rings fill at different times. */
static void
test_replicate_partial(void)
{
	static const uint16_t two[] = { 0, 1 };
	struct rte_ring *rings[2] = { ring_new("ut_rp0", 4 * SMALL_RING),
				      ring_new("ut_rp1", SMALL_RING) };
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_REPLICATE, two, 2);
	struct mcfan_worker_stats *ws = ws_new();
	struct rte_mbuf *pkts[2 * SMALL_RING], *out[4 * SMALL_RING];
	struct mcfan_rx_group_stats *gs;
	struct mcfan_rx_ctx ctx;
	struct frame f;
	unsigned int i, n, w;
	uint16_t ret;

	if (rings[0] == NULL || rings[1] == NULL || t == NULL || ws == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 2, meta_off, SOCKET_ID_ANY), 0);

	/* 16 frames: ring 0 takes all, ring 1 only 8. Every frame is delivered. */
	for (i = 0; i < 2 * SMALL_RING; i++) {
		build_v4(&f, 0, (uint8_t)(1 + i % N_GROUPS), GROUP_PORT, i, PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	ret = mcfan_fanout_burst(&ctx, t, pkts, 2 * SMALL_RING, 1);
	CHECK_EQ_INT(ret, 2 * SMALL_RING);
	CHECK_EQ_INT(ctx.stats.delivered_frames, 2 * SMALL_RING);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_RING_FULL], 0);
	CHECK_EQ_INT(ctx.stats.copies_offered, 4 * SMALL_RING);
	CHECK_EQ_INT(ctx.stats.delivered_copies, 3 * SMALL_RING);
	CHECK_EQ_INT(ctx.ring_stats[0].ring_drops, 0);
	CHECK_EQ_INT(ctx.ring_stats[1].ring_drops, SMALL_RING);
	check_conservation("replicate partial", &ctx);
	/* The copies that did not fit were released: refcnt 2 for frames in both rings, 1 for
	 * frames only in ring 0. */
	for (i = 0; i < 2 * SMALL_RING; i++)
		CHECK(rte_mbuf_refcnt_read(pkts[i]) == (i < SMALL_RING ? 2 : 1),
		      "frame %u refcnt %u", i, rte_mbuf_refcnt_read(pkts[i]));
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - 2 * SMALL_RING);

	/* Ring 1 still full, ring 0 has 16 free: 16 more frames, 8 then fill ring 0. */
	for (i = 0; i < 2 * SMALL_RING; i++) {
		build_v4(&f, 0, (uint8_t)(1 + i % N_GROUPS), GROUP_PORT, 100 + i, PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	ret = mcfan_fanout_burst(&ctx, t, pkts, 2 * SMALL_RING, 2);
	CHECK_EQ_INT(ret, 2 * SMALL_RING);
	CHECK_EQ_INT(ctx.ring_stats[1].ring_drops, 3 * SMALL_RING);
	CHECK_EQ_INT(rte_ring_count(rings[0]), 4 * SMALL_RING);
	check_conservation("replicate partial 2", &ctx);

	/* Both rings full: the frames find no room at all: ring_full, each counted once. */
	for (i = 0; i < 4; i++) {
		build_v4(&f, 0, (uint8_t)(1 + i), GROUP_PORT, 200 + i, PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	ret = mcfan_fanout_burst(&ctx, t, pkts, 4, 3);
	CHECK_EQ_INT(ret, 0);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_RING_FULL], 4);
	CHECK_EQ_INT(ctx.stats.rx_frames, 4 * SMALL_RING + 4);
	CHECK_EQ_INT(ctx.stats.delivered_frames, 4 * SMALL_RING);
	CHECK_EQ_INT(ctx.ring_stats[0].ring_drops, 4);
	CHECK_EQ_INT(ctx.ring_stats[1].ring_drops, 3 * SMALL_RING + 4);
	check_conservation("replicate both full", &ctx);
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - 4 * SMALL_RING);
	/* per group: frames (not copies) and the copies the full rings refused */
	gs = malloc(sizeof(*gs));
	if (gs != NULL) {
		uint64_t frames = 0, copy_drops = 0;

		mcfan_rx_group_read(&ctx, gs);
		for (i = 0; i < MCFAN_MAX_GROUPS; i++) {
			frames += gs->frames[i];
			copy_drops += gs->copy_drops[i];
		}
		CHECK_EQ_INT(frames, 4 * SMALL_RING + 4);
		CHECK_EQ_INT(copy_drops, ctx.ring_stats[0].ring_drops +
			     ctx.ring_stats[1].ring_drops);
		free(gs);
	}

	for (w = 0; w < 2; w++) {
		n = drain(rings[w], out, RTE_DIM(out));
		CHECK_EQ_INT(n, w == 0 ? 4 * SMALL_RING : SMALL_RING);
		mcfan_worker_burst(ws, out, (uint16_t)n, n, 4, meta_off);
	}
	CHECK_EQ_INT(ws->frames, ctx.stats.delivered_copies);
	check_pool_full("replicate partial");
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t);
	ring_del(rings[0]);
	ring_del(rings[1]);
	rte_free(ws);
}

static void
test_worker_stats(void)
{
	struct mcfan_worker_stats *ws = ws_new();
	struct rte_mbuf *m[4];
	struct frame f;
	unsigned int i;

	if (ws == NULL)
		return;
	for (i = 0; i < 4; i++) {
		build_v4(&f, 0, 1, GROUP_PORT, i, PAYLOAD_LEN + i);
		m[i] = mbuf_from(&f);
		mcfan_meta(m[i], meta_off)->group_id = (uint16_t)(i < 3 ? 5 : MCFAN_MAX_GROUPS - 1);
		mcfan_meta(m[i], meta_off)->rx_tsc = 500 + 100 * i;
	}
	mcfan_worker_burst(ws, m, 2, 9, 0, meta_off);
	CHECK_EQ_INT(ws->ring_high_water, 9);
	mcfan_worker_burst(ws, &m[2], 2, 3, 0, meta_off);
	CHECK_EQ_INT(ws->ring_high_water, 9);
	CHECK_EQ_INT(ws->frames, 4);
	CHECK_EQ_INT(ws->group_frames[5], 3);
	CHECK_EQ_INT(ws->group_bytes[5], 3 * (ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN +
					      PAYLOAD_LEN) + 0 + 1 + 2);
	CHECK_EQ_INT(ws->group_first_tsc[5], 500);
	CHECK_EQ_INT(ws->group_last_tsc[5], 700);
	CHECK_EQ_INT(ws->group_frames[MCFAN_MAX_GROUPS - 1], 1);
	CHECK_EQ_INT(ws->group_first_tsc[MCFAN_MAX_GROUPS - 1], 800);
	CHECK_EQ_INT(ws->bytes, ws->group_bytes[5] + ws->group_bytes[MCFAN_MAX_GROUPS - 1]);
	CHECK_EQ_INT(ws->seq.sn, 4);
	/* An empty burst changes no count. */
	mcfan_worker_burst(ws, m, 0, 0, 0, meta_off);
	CHECK_EQ_INT(ws->frames, 4);
	check_pool_full("worker stats");
	rte_free(ws);
}

/* mcfan_worker_split(): a stable counting sort by the metadata's engine instance; every copy
 * handed on exactly once, in its instance's run, in burst order within it. */
static void
test_worker_split(void)
{
	struct rte_mbuf *m[64], *out[64];
	uint16_t start[MCFAN_SPLIT_INST_MAX + 1];
	unsigned int i, k, n = RTE_DIM(m), used, seen[64] = {0}, want[5] = {0};
	uint16_t prev;
	struct frame f;

	build_v4(&f, 0, 1, GROUP_PORT, 0, PAYLOAD_LEN);
	for (i = 0; i < n; i++) {
		m[i] = mbuf_from(&f);
		if (m[i] == NULL)
			return;
		/* instances 0..4 in an uneven pattern, instance 3 never, one out of range */
		k = (i * 7 + i / 5) % 5;
		if (k == 3)
			k = 4;
		if (i == 13)
			k = 9; /* counts as instance 0 */
		mcfan_meta(m[i], meta_off)->inst = (uint8_t)k;
		mcfan_meta(m[i], meta_off)->group_id = (uint16_t)i; /* the copy's position */
		want[k == 9 ? 0 : k]++;
	}
	used = mcfan_worker_split(m, (uint16_t)n, meta_off, 5, out, start);
	CHECK_EQ_INT(used, 4);
	CHECK_EQ_INT(start[0], 0);
	CHECK_EQ_INT(start[5], n);
	for (k = 0; k < 5; k++) {
		CHECK_EQ_INT(start[k + 1] - start[k], want[k]);
		prev = 0;
		for (i = start[k]; i < start[k + 1]; i++) {
			const struct mcfan_mbuf_meta *me = mcfan_meta(out[i], meta_off);

			CHECK(me->inst == k || (k == 0 && me->inst == 9),
			      "split: copy %u of run %u has instance %u", i, k, me->inst);
			CHECK(i == start[k] || me->group_id > prev,
			      "split: run %u keeps the burst order (%u after %u)", k, me->group_id,
			      prev);
			prev = me->group_id;
			seen[me->group_id]++;
		}
	}
	for (i = 0; i < n; i++)
		CHECK(seen[i] == 1, "split: copy %u handed on %u times", i, seen[i]);
	/* one instance: everything in run 0, in order */
	used = mcfan_worker_split(m, (uint16_t)n, meta_off, 1, out, start);
	CHECK_EQ_INT(used, 1);
	CHECK_EQ_INT(start[1], n);
	for (i = 0; i < n; i++)
		CHECK(out[i] == m[i], "split, one instance: copy %u in place", i);
	/* an empty burst */
	CHECK_EQ_INT(mcfan_worker_split(m, 0, meta_off, 5, out, start), 0);
	CHECK_EQ_INT(start[5], 0);
	rte_pktmbuf_free_bulk(m, n);
	check_pool_full("worker split");
}

static void
expect_mbuf_key(const char *what, struct rte_mbuf *m, enum mcfan_drop exp_r, uint8_t family,
		const uint8_t *addr, uint16_t port)
{
	struct mcfan_flow_key key, exp;
	enum mcfan_drop r;

	memset(&key, 0xa5, sizeof(key));
	r = mcfan_classify_mbuf(m, &key);
	CHECK(r == exp_r, "%s (%u segments): %s, expected %s", what, m->nb_segs,
	      mcfan_drop_name(r), mcfan_drop_name(exp_r));
	if (r != MCFAN_DROP_NONE || exp_r != MCFAN_DROP_NONE)
		return;
	memset(&exp, 0, sizeof(exp));
	exp.family = family;
	exp.udp_port = port;
	memcpy(exp.addr, addr, family == MCFAN_FAMILY_IPV4 ? 4 : 16);
	CHECK(memcmp(&key, &exp, sizeof(key)) == 0, "%s: key differs", what);
}

static void
test_multiseg(void)
{
	static const uint16_t two[] = { 0, 1 };
	struct rte_ring *rings[2] = { ring_new("ut_ms0", BIG_RING), ring_new("ut_ms1", BIG_RING) };
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_REPLICATE, two, 2);
	struct mcfan_worker_stats *ws = ws_new();
	struct rte_mbuf *m, *out[8];
	struct mcfan_rx_ctx ctx;
	struct frame f;
	uint8_t addr[4];
	uint32_t split, splits[3], bad = 0;
	unsigned int n, w;

	v4_addr(addr, 3);
	build_v4(&f, 0, 3, GROUP_PORT, 1, 200);

	/* The UDP header spans the segment boundary (3 of its 8 bytes in the first). */
	split = ETH_HDR_LEN + IPV4_HDR_LEN + 3;
	m = mbuf_chain_from(&f, &split, 1);
	if (m != NULL) {
		CHECK_EQ_INT(m->nb_segs, 2);
		CHECK_EQ_INT(m->pkt_len, f.len);
		CHECK_EQ_INT(m->data_len, split);
		expect_mbuf_key("udp header across segments", m, MCFAN_DROP_NONE,
				MCFAN_FAMILY_IPV4, addr, GROUP_PORT);
		rte_pktmbuf_free(m);
	}
	/* Every split point gives the same answer; and three segments. */
	for (split = 1; split < f.len; split++) {
		struct mcfan_flow_key key;

		m = mbuf_chain_from(&f, &split, 1);
		if (m == NULL)
			break;
		bad += mcfan_classify_mbuf(m, &key) != MCFAN_DROP_NONE ||
		       key.udp_port != GROUP_PORT;
		rte_pktmbuf_free(m);
	}
	CHECK(bad == 0, "%u split points misclassified", bad);
	splits[0] = 10;
	splits[1] = ETH_HDR_LEN + 5;
	splits[2] = ETH_HDR_LEN + IPV4_HDR_LEN + 6;
	m = mbuf_chain_from(&f, splits, 3);
	if (m != NULL) {
		CHECK_EQ_INT(m->nb_segs, 4);
		expect_mbuf_key("four segments", m, MCFAN_DROP_NONE, MCFAN_FAMILY_IPV4, addr,
				GROUP_PORT);
		rte_pktmbuf_free(m);
	}

	/* Total length checked against the whole packet, not the first segment. */
	set_be16(&f, ETH_HDR_LEN + 2, (uint16_t)(f.len - ETH_HDR_LEN + 1));
	split = 60;
	m = mbuf_chain_from(&f, &split, 1);
	if (m != NULL) {
		expect_mbuf_key("multi-segment, total length one beyond", m, MCFAN_DROP_TRUNCATED,
				0, NULL, 0);
		rte_pktmbuf_free(m);
	}

	/* Headers past the first segment: the same answer as in one segment. */
	build_v6(&f, true, 31, V6_PORT, 1); /* 256-byte hop-by-hop: UDP at 14 + 40 + 256 */
	m = mbuf_from(&f);
	if (m != NULL) {
		expect_mbuf_key("ipv6, 256-byte hop-by-hop, one segment", m, MCFAN_DROP_NONE,
				MCFAN_FAMILY_IPV6, V6_GROUP, V6_PORT);
		rte_pktmbuf_free(m);
	}
	split = 100;
	m = mbuf_chain_from(&f, &split, 1);
	if (m != NULL) {
		expect_mbuf_key("ipv6, 256-byte hop-by-hop, two segments", m, MCFAN_DROP_NONE,
				MCFAN_FAMILY_IPV6, V6_GROUP, V6_PORT);
		rte_pktmbuf_free(m);
	}
	build_v6(&f, true, 20, V6_PORT, 1); /* UDP header ends at 14 + 40 + 168 + 8 = 230 */
	m = mbuf_chain_from(&f, &split, 1);
	if (m != NULL) {
		expect_mbuf_key("ipv6, 168-byte hop-by-hop, two segments", m, MCFAN_DROP_NONE,
				MCFAN_FAMILY_IPV6, V6_GROUP, V6_PORT);
		rte_pktmbuf_free(m);
	}

	/* The VLAN-stripped flag is honoured on both paths. */
	build_v4(&f, 1, 3, GROUP_PORT, 1, 100);
	m = mbuf_from(&f);
	if (m != NULL) {
		m->ol_flags |= RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_VLAN;
		m->vlan_tci = 100;
		expect_mbuf_key("one tag left, outer stripped", m, MCFAN_DROP_NONE,
				MCFAN_FAMILY_IPV4, addr, GROUP_PORT);
		rte_pktmbuf_free(m);
	}
	build_v4(&f, 2, 3, GROUP_PORT, 1, 100);
	split = 16;
	m = mbuf_chain_from(&f, &split, 1);
	if (m != NULL) {
		expect_mbuf_key("qinq, two segments", m, MCFAN_DROP_NONE, MCFAN_FAMILY_IPV4, addr,
				GROUP_PORT);
		m->ol_flags |= RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_VLAN;
		expect_mbuf_key("two tags left after a stripped one, two segments", m,
				MCFAN_DROP_MALFORMED, 0, NULL, 0);
		rte_pktmbuf_free(m);
	}
	check_pool_full("multiseg classify");

	/* A multi-segment frame through the fast path, replicated to two workers: each
	 * segment must be shared, and every segment back in the pool after both free. */
	if (rings[0] == NULL || rings[1] == NULL || t == NULL || ws == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 2, meta_off, SOCKET_ID_ANY), 0);
	build_v4(&f, 0, 3, GROUP_PORT, 1, 200);
	split = ETH_HDR_LEN + IPV4_HDR_LEN + 3;
	m = mbuf_chain_from(&f, &split, 1);
	if (m != NULL) {
		struct rte_mbuf *seg2 = m->next;

		CHECK_EQ_INT(mcfan_fanout_burst(&ctx, t, &m, 1, 77), 1);
		CHECK_EQ_INT(ctx.stats.delivered_copies, 2);
		CHECK_EQ_INT(ctx.stats.rx_bytes, f.len);
		CHECK_EQ_INT(rte_mbuf_refcnt_read(m), 2);
		CHECK(rte_mbuf_refcnt_read(seg2) == 2,
		      "second segment refcnt %u, expected 2 (shared by both workers)",
		      rte_mbuf_refcnt_read(seg2));
		for (w = 0; w < 2; w++) {
			n = drain(rings[w], out, RTE_DIM(out));
			CHECK_EQ_INT(n, 1);
			if (n == 1)
				CHECK(out[0] == m, "ring %u: another mbuf", w);
			mcfan_worker_burst(ws, out, (uint16_t)n, n, 78, meta_off);
		}
		CHECK_EQ_INT(ws->bytes, 2 * f.len);
		check_pool_full("multiseg replicate");
	}
	/* And a multi-segment frame whose second copy finds its ring full. */
	{
		struct rte_mbuf *fill[BIG_RING];
		unsigned int k;

		for (k = 0; k < BIG_RING; k++)
			fill[k] = (struct rte_mbuf *)(uintptr_t)(k + 1); /* never dereferenced */
		CHECK_EQ_INT(rte_ring_enqueue_bulk(rings[1], (void **)fill, BIG_RING, NULL),
			     BIG_RING);
		m = mbuf_chain_from(&f, &split, 1);
		if (m != NULL) {
			CHECK_EQ_INT(mcfan_fanout_burst(&ctx, t, &m, 1, 79), 1);
			CHECK_EQ_INT(ctx.ring_stats[1].ring_drops, 1);
			n = drain(rings[0], out, RTE_DIM(out));
			CHECK_EQ_INT(n, 1);
			mcfan_worker_burst(ws, out, (uint16_t)n, n, 80, meta_off);
		}
		CHECK_EQ_INT(rte_ring_dequeue_bulk(rings[1], (void **)fill, BIG_RING, NULL),
			     BIG_RING);
		check_pool_full("multiseg replicate, one ring full");
	}
	check_conservation("multiseg", &ctx);
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t);
	ring_del(rings[0]);
	ring_del(rings[1]);
	rte_free(ws);
}

/*
 * mcfan_fanout_stage() twice, then one mcfan_fanout_flush(): nothing is published until the
 * flush, drops found while staging are freed at once, and frames of the second stage are
 * told apart from the first (copies and ring_full counted per frame).
 */
static void
test_stage_flush(void)
{
	static const uint16_t one[] = { 0 }, two[] = { 0, 1 };
	static struct rte_mbuf *pkts[MCFAN_MAX_BURST + 8], *out[MCFAN_MAX_BURST];
	struct rte_ring *rings[2] = { ring_new("ut_sf0", SMALL_RING),
				      ring_new("ut_sf1", SMALL_RING / 2) };
	struct rte_ring *big = ring_new("ut_sf_big", BIG_RING);
	struct mcfan_group_table *tp = table_new(MCFAN_FANOUT_PARTITION, one, 1);
	struct mcfan_group_table *tr = table_new(MCFAN_FANOUT_REPLICATE, two, 2);
	struct mcfan_worker_stats *ws = ws_new();
	struct mcfan_rx_ctx ctx;
	struct frame f;
	unsigned int i, n, w;

	if (rings[0] == NULL || rings[1] == NULL || big == NULL || tp == NULL || tr == NULL ||
	    ws == NULL)
		goto out;

	/* Partition, one ring of 8: 5 deliverable + 1 unicast, then 6 deliverable. */
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 1, meta_off, SOCKET_ID_ANY), 0);
	for (i = 0; i < 12; i++) {
		build_kind(&f, i == 3 ? K_UNICAST : K_GROUP, (uint8_t)(1 + i % N_GROUPS), i);
		pkts[i] = mbuf_from(&f);
	}
	mcfan_fanout_stage(&ctx, tp, pkts, 6, 10);
	CHECK_EQ_INT(ctx.stats.seq.sn, 0);
	CHECK_EQ_INT(ctx.stats.rx_frames, 0);
	CHECK_EQ_INT(ctx.pend.frames, 6);
	CHECK_EQ_INT(ctx.pend.delivered, 5);
	CHECK_EQ_INT(ctx.pend.drops[MCFAN_DROP_NOT_MULTICAST], 1);
	CHECK_EQ_INT(rte_ring_count(rings[0]), 0);
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - 11); /* the unicast one freed */
	mcfan_fanout_stage(&ctx, tp, &pkts[6], 6, 20);
	CHECK_EQ_INT(ctx.pend.frames, 12);
	CHECK_EQ_INT(ctx.stats.rx_frames, 0);
	CHECK_EQ_INT(mcfan_fanout_flush(&ctx), SMALL_RING);
	CHECK_EQ_INT(ctx.stats.seq.sn, 2);
	CHECK_EQ_INT(ctx.stats.rx_frames, 12);
	CHECK_EQ_INT(ctx.stats.delivered_frames, SMALL_RING);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_RING_FULL], 3);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_NOT_MULTICAST], 1);
	CHECK_EQ_INT(ctx.stats.copies_offered, 11);
	CHECK_EQ_INT(ctx.stats.delivered_copies, SMALL_RING);
	check_conservation("stage/flush", &ctx);
	CHECK(ctx.pend.frames == 0 && ctx.pend.delivered == 0 && ctx.pend.offered == 0 &&
	      ctx.pend.bytes == 0 && ctx.pend.drops[MCFAN_DROP_NOT_MULTICAST] == 0,
	      "pending state not reset by the flush");
	n = drain(rings[0], out, RTE_DIM(out));
	CHECK_EQ_INT(n, SMALL_RING);
	for (i = 0; i < n; i++) {
		/* Frames 0,1,2,4,5 (first stage, tsc 10) then 6,7,8 (second stage, tsc 20). */
		static const uint32_t exp_seq[SMALL_RING] = { 0, 1, 2, 4, 5, 6, 7, 8 };

		CHECK_EQ_INT(seq_of_v4(out[i]), exp_seq[i]);
		CHECK_EQ_INT(mcfan_meta(out[i], meta_off)->rx_tsc, i < 5 ? 10 : 20);
	}
	mcfan_worker_burst(ws, out, (uint16_t)n, n, 0, meta_off);
	/* A flush with nothing staged publishes nothing but stays consistent. */
	CHECK_EQ_INT(mcfan_fanout_flush(&ctx), 0);
	CHECK_EQ_INT(ctx.stats.seq.sn, 4);
	CHECK_EQ_INT(ctx.stats.rx_frames, 12);
	check_pool_full("stage/flush partition");
	mcfan_rx_ctx_free(&ctx);

	/* Replicate over rings of 8 and 4: per-frame copy accounting across two stages. */
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 2, meta_off, SOCKET_ID_ANY), 0);
	for (i = 0; i < 6; i++) {
		build_v4(&f, 0, (uint8_t)(1 + i), GROUP_PORT, i, PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	mcfan_fanout_stage(&ctx, tr, pkts, 3, 1);
	mcfan_fanout_stage(&ctx, tr, &pkts[3], 3, 2);
	CHECK_EQ_INT(ctx.pend.offered, 12);
	CHECK_EQ_INT(mcfan_fanout_flush(&ctx), 6);        /* ring 1 took 4 of 6 copies */
	CHECK_EQ_INT(ctx.ring_stats[1].ring_drops, 2);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_RING_FULL], 0);
	for (i = 0; i < 6; i++)
		CHECK_EQ_INT(rte_mbuf_refcnt_read(pkts[i]), i < 4 ? 2 : 1);
	/* Ring 0 has 2 slots left, ring 1 none: of 2 + 2 frames, the first 2 make it. */
	for (i = 0; i < 4; i++) {
		build_v4(&f, 0, (uint8_t)(1 + i), GROUP_PORT, 10 + i, PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	mcfan_fanout_stage(&ctx, tr, pkts, 2, 3);
	mcfan_fanout_stage(&ctx, tr, &pkts[2], 2, 4);
	CHECK_EQ_INT(mcfan_fanout_flush(&ctx), 2);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_RING_FULL], 2);
	CHECK_EQ_INT(ctx.stats.delivered_frames, 8);
	CHECK_EQ_INT(ctx.ring_stats[0].ring_drops, 2);
	CHECK_EQ_INT(ctx.ring_stats[1].ring_drops, 2 + 4);
	check_conservation("stage/flush replicate", &ctx);
	/*
	 * Ring 0 emptied, ring 1 still full: one frame per stage, each refused by ring 1 only.
	 * Both are delivered; a flush that mixed up the two stages' frames would count the two
	 * refusals against one frame and report a ring_full drop.
	 */
	n = drain(rings[0], out, RTE_DIM(out));
	CHECK_EQ_INT(n, SMALL_RING);
	mcfan_worker_burst(ws, out, (uint16_t)n, n, 0, meta_off);
	for (i = 0; i < 2; i++) {
		build_v4(&f, 0, (uint8_t)(1 + i), GROUP_PORT, 20 + i, PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	mcfan_fanout_stage(&ctx, tr, pkts, 1, 5);
	mcfan_fanout_stage(&ctx, tr, &pkts[1], 1, 6);
	CHECK_EQ_INT(mcfan_fanout_flush(&ctx), 2);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_RING_FULL], 2);
	CHECK_EQ_INT(ctx.stats.delivered_frames, 10);
	CHECK_EQ_INT(ctx.ring_stats[1].ring_drops, 2 + 4 + 2);
	check_conservation("stage/flush replicate, one refusal per frame", &ctx);
	for (w = 0; w < 2; w++) {
		n = drain(rings[w], out, RTE_DIM(out));
		CHECK_EQ_INT(n, w == 0 ? 2 : SMALL_RING / 2);
		mcfan_worker_burst(ws, out, (uint16_t)n, n, 0, meta_off);
	}
	check_pool_full("stage/flush replicate");
	mcfan_rx_ctx_free(&ctx);

	/* At most MCFAN_MAX_BURST frames are staged in total; the rest stay the caller's. */
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, &big, 1, meta_off, SOCKET_ID_ANY), 0);
	for (i = 0; i < MCFAN_MAX_BURST + 8; i++) {
		build_v4(&f, 0, (uint8_t)(1 + i % N_GROUPS), GROUP_PORT, i, PAYLOAD_LEN);
		pkts[i] = mbuf_from(&f);
	}
	mcfan_fanout_stage(&ctx, tp, pkts, MCFAN_MAX_BURST - 12, 5);
	mcfan_fanout_stage(&ctx, tp, &pkts[MCFAN_MAX_BURST - 12], 20, 6);
	CHECK_EQ_INT(ctx.pend.frames, MCFAN_MAX_BURST);
	CHECK_EQ_INT(mcfan_fanout_flush(&ctx), MCFAN_MAX_BURST);
	CHECK_EQ_INT(ctx.stats.rx_frames, MCFAN_MAX_BURST);
	CHECK_EQ_INT(rte_ring_count(big), MCFAN_MAX_BURST);
	for (i = MCFAN_MAX_BURST; i < MCFAN_MAX_BURST + 8; i++)
		CHECK_EQ_INT(rte_mbuf_refcnt_read(pkts[i]), 1);
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - MCFAN_MAX_BURST - 8);
	rte_pktmbuf_free_bulk(&pkts[MCFAN_MAX_BURST], 8);
	n = drain(big, out, RTE_DIM(out));
	CHECK_EQ_INT(n, MCFAN_MAX_BURST);
	mcfan_worker_burst(ws, out, (uint16_t)n, n, 0, meta_off);
	check_pool_full("stage cap");
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(tp);
	mcfan_group_table_free(tr);
	ring_del(rings[0]);
	ring_del(rings[1]);
	ring_del(big);
	rte_free(ws);
}

/* ---- stats readers ---- */

struct reader_arg {
	const struct mcfan_rx_ctx *ctx;
	volatile bool stop;
	uint64_t reads;
	uint64_t bad;
	uint64_t last_rx;
	uint64_t backwards;
};

static void *
reader_main(void *p)
{
	struct reader_arg *a = p;
	struct mcfan_rx_stats s;
	struct mcfan_ring_stats rs[2];

	while (!a->stop) {
		uint64_t rdrops;

		mcfan_rx_ctx_read(a->ctx, &s, rs);
		rdrops = rs[0].ring_drops + rs[1].ring_drops;
		if (s.rx_frames != s.delivered_frames + sum_drops(&s) ||
		    s.copies_offered != s.delivered_copies + rdrops ||
		    s.delivered_copies != rs[0].enqueued + rs[1].enqueued || (s.seq.sn & 1) != 0)
			a->bad++;
		if (s.rx_frames < a->last_rx)
			a->backwards++;
		a->last_rx = s.rx_frames;
		mcfan_rx_stats_read(&a->ctx->stats, &s);
		if (s.rx_frames != s.delivered_frames + sum_drops(&s) || (s.seq.sn & 1) != 0)
			a->bad++;
		a->reads++;
	}
	return NULL;
}

/* Per (port, queue) pair counters: each flushed burst also counts under ctx->pair when that
 * is < stats.n_pairs; summed over the pairs they equal the totals; readers copy only the
 * pairs in use and zero the rest. */
static void
test_pair_stats(void)
{
	static const uint16_t one[] = { 0 };
	/* pair 0: 4 deliverable, not_multicast, not_udp */
	static const enum kind b0[] = { K_GROUP, K_UNICAST, K_GROUP, K_TCP, K_GROUP, K_GROUP };
	/* pair 1: 2 unknown_group, 6 deliverable of which 2 find the ring (8) full */
	static const enum kind b1[] = { K_UNKNOWN, K_GROUP, K_GROUP, K_UNKNOWN, K_GROUP, K_GROUP,
					K_GROUP, K_GROUP };
	/* pair 5 (>= n_pairs): a fragment and a ring_full, counted in the totals only */
	static const enum kind b2[] = { K_FRAG_FIRST, K_GROUP };
	const enum kind *bursts[] = { b0, b1, b2 };
	const unsigned int lens[] = { RTE_DIM(b0), RTE_DIM(b1), RTE_DIM(b2) };
	const uint16_t pairs[] = { 0, 1, 5 };
	struct rte_ring *rings[1] = { ring_new("ut_pairs", SMALL_RING) };
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_PARTITION, one, 1);
	struct rte_mbuf *pkts[BURST], *out[BURST];
	struct mcfan_rx_stats *copy = calloc(1, sizeof(*copy));
	struct mcfan_rx_ctx ctx;
	struct frame f;
	uint64_t sum;
	unsigned int b, i, k, n;

	if (rings[0] == NULL || t == NULL || copy == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 1, meta_off, SOCKET_ID_ANY), 0);
	CHECK_EQ_INT(ctx.pair, 0);
	CHECK_EQ_INT(ctx.stats.n_pairs, 0);
	ctx.stats.n_pairs = 2;
	for (b = 0; b < RTE_DIM(bursts); b++) {
		for (i = 0; i < lens[b]; i++) {
			build_kind(&f, bursts[b][i], (uint8_t)(1 + i % N_GROUPS), b * 100 + i);
			pkts[i] = mbuf_from(&f);
		}
		ctx.pair = pairs[b];
		mcfan_fanout_burst(&ctx, t, pkts, (uint16_t)lens[b], 7);
	}
	CHECK_EQ_INT(ctx.stats.pair[0].rx_frames, RTE_DIM(b0));
	CHECK_EQ_INT(ctx.stats.pair[0].drops[MCFAN_DROP_NOT_MULTICAST], 1);
	CHECK_EQ_INT(ctx.stats.pair[0].drops[MCFAN_DROP_NOT_UDP], 1);
	CHECK_EQ_INT(ctx.stats.pair[0].drops[MCFAN_DROP_UNKNOWN_GROUP], 0);
	CHECK_EQ_INT(ctx.stats.pair[0].drops[MCFAN_DROP_RING_FULL], 0);
	CHECK_EQ_INT(ctx.stats.pair[1].rx_frames, RTE_DIM(b1));
	CHECK_EQ_INT(ctx.stats.pair[1].drops[MCFAN_DROP_UNKNOWN_GROUP], 2);
	CHECK_EQ_INT(ctx.stats.pair[1].drops[MCFAN_DROP_RING_FULL], 2);
	CHECK_EQ_INT(ctx.stats.pair[1].drops[MCFAN_DROP_NOT_UDP], 0);
	for (i = 2; i < MCFAN_RX_STATS_PAIRS; i++) {
		CHECK_EQ_INT(ctx.stats.pair[i].rx_frames, 0);
		for (k = 1; k < MCFAN_DROP_MAX; k++)
			CHECK_EQ_INT(ctx.stats.pair[i].drops[k], 0);
	}
	/* the totals hold all three bursts; the pairs in use, the first two exactly */
	CHECK_EQ_INT(ctx.stats.rx_frames, RTE_DIM(b0) + RTE_DIM(b1) + RTE_DIM(b2));
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_FRAGMENT], 1);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_RING_FULL], 3);
	CHECK_EQ_INT(ctx.stats.pair[0].rx_frames + ctx.stats.pair[1].rx_frames,
		     ctx.stats.rx_frames - RTE_DIM(b2));
	for (k = 1; k < MCFAN_DROP_MAX; k++) {
		sum = ctx.stats.pair[0].drops[k] + ctx.stats.pair[1].drops[k];
		CHECK(sum == ctx.stats.drops[k] - (k == MCFAN_DROP_FRAGMENT ||
						   k == MCFAN_DROP_RING_FULL ? 1 : 0),
		      "pairs' drops[%s] = %" PRIu64 ", totals %" PRIu64, mcfan_drop_name(k), sum,
		      ctx.stats.drops[k]);
	}
	check_conservation("pairs", &ctx);
	/* readers copy the used pairs only: a stray value past n_pairs is not copied */
	ctx.stats.pair[2].rx_frames = 99;
	memset(copy, 0xff, sizeof(*copy));
	mcfan_rx_stats_read(&ctx.stats, copy);
	CHECK(memcmp(copy, &ctx.stats, offsetof(struct mcfan_rx_stats, pair) +
		     2 * sizeof(copy->pair[0])) == 0, "rx stats copy of the used part differs");
	CHECK_EQ_INT(copy->pair[2].rx_frames, 0);
	CHECK_EQ_INT(copy->pair[MCFAN_RX_STATS_PAIRS - 1].drops[MCFAN_DROP_MAX - 1], 0);
	memset(copy, 0xff, sizeof(*copy));
	mcfan_rx_ctx_read(&ctx, copy, NULL);
	CHECK(memcmp(copy, &ctx.stats, offsetof(struct mcfan_rx_stats, pair) +
		     2 * sizeof(copy->pair[0])) == 0, "rx ctx copy of the used part differs");
	CHECK_EQ_INT(copy->pair[2].rx_frames, 0);
	CHECK_EQ_INT(copy->n_pairs, 2);
	ctx.stats.pair[2].rx_frames = 0;
	n = drain(rings[0], out, RTE_DIM(out));
	CHECK_EQ_INT(n, SMALL_RING);
	rte_pktmbuf_free_bulk(out, n);
	check_pool_full("pairs");
	mcfan_rx_ctx_free(&ctx);
out:
	free(copy);
	mcfan_group_table_free(t);
	ring_del(rings[0]);
}

/* mcfan_rx_stats_add_drops() (the quit drain's frames): the lcore's rx_frames, rx_bytes and
 * drops[reason] and, for a pair in use, the pair's; one seqcount section (even afterwards,
 * two more); a pair >= n_pairs counts in the lcore's counters only; a reason out of range
 * counts nothing. */
static void
test_add_drops(void)
{
	struct mcfan_rx_stats *st = calloc(1, sizeof(*st));
	unsigned int k;

	if (st == NULL)
		return;
	st->n_pairs = 2;
	CHECK_EQ_INT(mcfan_rx_stats_add_drops(st, 1, MCFAN_DROP_QUIT_DRAINED, 200, 200 * 142), 0);
	CHECK_EQ_INT(st->seq.sn, 2);
	CHECK_EQ_INT(st->rx_frames, 200);
	CHECK_EQ_INT(st->rx_bytes, 200 * 142);
	CHECK_EQ_INT(st->drops[MCFAN_DROP_QUIT_DRAINED], 200);
	CHECK_EQ_INT(st->pair[1].rx_frames, 200);
	CHECK_EQ_INT(st->pair[1].drops[MCFAN_DROP_QUIT_DRAINED], 200);
	CHECK_EQ_INT(st->pair[0].rx_frames, 0);
	CHECK_EQ_INT(st->delivered_frames, 0);
	/* no pair (index past n_pairs): the lcore's counters only */
	CHECK_EQ_INT(mcfan_rx_stats_add_drops(st, 2, MCFAN_DROP_QUIT_DRAINED, 5, 500), 0);
	CHECK_EQ_INT(st->rx_frames, 205);
	CHECK_EQ_INT(st->rx_bytes, 200 * 142 + 500);
	CHECK_EQ_INT(st->drops[MCFAN_DROP_QUIT_DRAINED], 205);
	CHECK_EQ_INT(st->pair[1].rx_frames, 200);
	CHECK_EQ_INT(st->pair[2].rx_frames, 0);
	CHECK_EQ_INT(st->pair[2].drops[MCFAN_DROP_QUIT_DRAINED], 0);
	CHECK_EQ_INT(st->seq.sn, 4);
	/* conservation holds: every frame added is a drop */
	CHECK_EQ_INT(st->rx_frames, st->delivered_frames + sum_drops(st));
	/* bad reasons: nothing counted, the block untouched */
	CHECK_EQ_INT(mcfan_rx_stats_add_drops(st, 0, MCFAN_DROP_NONE, 7, 7), -EINVAL);
	CHECK_EQ_INT(mcfan_rx_stats_add_drops(st, 0, MCFAN_DROP_MAX, 7, 7), -EINVAL);
	CHECK_EQ_INT(st->seq.sn, 4);
	CHECK_EQ_INT(st->rx_frames, 205);
	for (k = 1; k < MCFAN_DROP_MAX; k++)
		CHECK_EQ_INT(st->pair[0].drops[k], 0);
	free(st);
}

static void
test_stats_read(void)
{
	static const uint16_t two[] = { 0, 1 };
	static const enum kind kinds[] = { K_GROUP, K_UNICAST, K_GROUP, K_GROUP6, K_IGMP,
					   K_UNKNOWN, K_GROUP, K_TOTLEN };
	struct rte_ring *rings[2] = { ring_new("ut_rd0", SMALL_RING),
				      ring_new("ut_rd1", SMALL_RING) };
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_REPLICATE, two, 2);
	struct mcfan_worker_stats *ws = ws_new();
	struct mcfan_rx_stats copy;
	struct mcfan_ring_stats rs[2];
	struct rte_mbuf *pkts[BURST], *out[BURST];
	struct reader_arg arg;
	struct mcfan_rx_ctx ctx;
	struct frame f;
	pthread_t th;
	unsigned int round, i, w, n;
	bool started;

	if (rings[0] == NULL || rings[1] == NULL || t == NULL || ws == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 2, meta_off, SOCKET_ID_ANY), 0);
	memset(&arg, 0, sizeof(arg));
	arg.ctx = &ctx;
	started = pthread_create(&th, NULL, reader_main, &arg) == 0;
	CHECK(started, "reader thread");
	for (round = 0; round < 3000; round++) {
		for (i = 0; i < BURST; i++) {
			build_kind(&f, kinds[(round + i) % RTE_DIM(kinds)],
				   (uint8_t)(1 + i % N_GROUPS), i);
			pkts[i] = mbuf_from(&f);
			if (pkts[i] == NULL)
				break;
		}
		mcfan_fanout_burst(&ctx, t, pkts, (uint16_t)i, round);
		for (w = 0; w < 2; w++) {
			n = rte_ring_dequeue_burst(rings[w], (void **)out,
						   (round + w) % 3 == 0 ? BURST : 3, NULL);
			mcfan_worker_burst(ws, out, (uint16_t)n, n, round, meta_off);
		}
	}
	arg.stop = true;
	if (started)
		pthread_join(th, NULL);
	printf("fanout: stats reader made %" PRIu64 " reads during 3000 bursts\n", arg.reads);
	CHECK(arg.reads > 0, "reader never read");
	CHECK(arg.bad == 0, "%" PRIu64 " of %" PRIu64 " concurrent reads inconsistent", arg.bad,
	      arg.reads);
	CHECK(arg.backwards == 0, "rx_frames went backwards %" PRIu64 " times", arg.backwards);

	/* Quiescent: the copies equal the live blocks. */
	mcfan_rx_stats_read(&ctx.stats, &copy);
	CHECK(memcmp(&copy, &ctx.stats, sizeof(copy)) == 0, "rx stats copy differs");
	memset(&copy, 0, sizeof(copy));
	mcfan_rx_ctx_read(&ctx, &copy, rs);
	CHECK(memcmp(&copy, &ctx.stats, sizeof(copy)) == 0, "rx ctx stats copy differs");
	CHECK(memcmp(rs, ctx.ring_stats, sizeof(rs)) == 0, "ring stats copy differs");
	mcfan_rx_ctx_read(&ctx, &copy, NULL);
	CHECK(memcmp(&copy, &ctx.stats, sizeof(copy)) == 0, "rx ctx copy without rings differs");
	CHECK_EQ_INT(copy.rx_frames, 3000 * BURST);
	CHECK_EQ_INT(copy.seq.sn, 2 * 3000);
	check_conservation("stats read", &ctx);
	CHECK(ctx.stats.drops[MCFAN_DROP_RING_FULL] > 0 && sum_ring_drops(&ctx) >
	      ctx.stats.drops[MCFAN_DROP_RING_FULL], "load did not exercise full rings");

	/* An empty burst counts nothing but is still a (consistent) update. */
	CHECK_EQ_INT(mcfan_fanout_burst(&ctx, t, pkts, 0, 0), 0);
	CHECK_EQ_INT(ctx.stats.rx_frames, 3000 * BURST);
	CHECK_EQ_INT(ctx.stats.seq.sn, 2 * 3000 + 2);

	for (w = 0; w < 2; w++) {
		n = drain(rings[w], out, BURST);
		mcfan_worker_burst(ws, out, (uint16_t)n, n, 0, meta_off);
	}
	CHECK_EQ_INT(ws->frames, ctx.stats.delivered_copies);
	check_pool_full("stats read");
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t);
	ring_del(rings[0]);
	ring_del(rings[1]);
	rte_free(ws);
}

/*
 * A worker that stays inside its write section (seq odd) must not hold a reader for ever:
 * mcfan_worker_stats_read() gives up after a bounded number of tries and returns the
 * per-word copy (-EAGAIN); once the section ends, the copy is consistent again.
 */
static void
test_worker_read_bounded(void)
{
	struct mcfan_worker_stats *ws = rte_zmalloc("ut_ws", sizeof(*ws), 0);
	struct mcfan_worker_stats *copy = rte_zmalloc("ut_ws_copy", sizeof(*copy), 0);

	CHECK(ws != NULL && copy != NULL, "worker stats alloc");
	if (ws == NULL || copy == NULL)
		goto out;
	ws->frames = 7;
	ws->group_frames[3] = 5;
	rte_seqcount_write_begin(&ws->seq);
	CHECK_EQ_INT(mcfan_worker_stats_read(ws, copy), -EAGAIN);
	CHECK_EQ_INT(copy->frames, 7);
	CHECK_EQ_INT(copy->group_frames[3], 5);
	CHECK_EQ_INT(copy->seq.sn, 1);
	rte_seqcount_write_end(&ws->seq);
	memset(copy, 0, sizeof(*copy));
	CHECK_EQ_INT(mcfan_worker_stats_read(ws, copy), 0);
	CHECK(memcmp(copy, ws, sizeof(*copy)) == 0, "quiet worker stats copy differs");
out:
	rte_free(copy);
	rte_free(ws);
}

/*
 * The frame: a 256-byte IPv6 hop-by-hop header in a 2,218-byte frame, so the UDP
 * header (at 14 + 40 + 256) lies past the first segment for most split points. Every
 * segmentation must give the answer and key of the same bytes in one piece (before the fix
 * every split before byte 318 counted as malformed). Cut short, the frame is truncated
 * whatever the segmentation.
 */
static void
test_multiseg_long_headers(void)
{
	struct mcfan_flow_key flat_key, key;
	enum mcfan_drop flat, r;
	struct rte_mbuf *m;
	struct frame f;
	uint32_t ip, u, s, splits[2], n_bad = 0, n_tried = 0, data_room;
	unsigned int n_splits;

	l2_hdr(&f, l2_tags(0), ET_IPV6);
	ip = ipv6_begin(&f, PROTO_HOPOPTS, V6_GROUP);
	ipv6_opts(&f, PROTO_UDP, 31);
	u = udp_begin(&f, V6_PORT);
	payload(&f, 7, 2218 - (ETH_HDR_LEN + IPV6_HDR_LEN + 256 + UDP_HDR_LEN));
	udp_end(&f, u);
	ipv6_end(&f, ip);
	CHECK_EQ_INT(f.len, 2218);
	flat = mcfan_classify(f.b, f.len, false, &flat_key);
	CHECK(flat == MCFAN_DROP_NONE, "2,218-byte frame in one piece: %s", mcfan_drop_name(flat));
	data_room = rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
	for (s = 1; s < f.len; s++) {
		n_splits = 1;
		splits[0] = s;
		if (s > data_room) {
			splits[0] = data_room / 2;
			splits[1] = s;
			n_splits = 2;
		} else if (f.len - s > data_room) {
			splits[1] = s + data_room / 2;
			n_splits = 2;
		}
		m = mbuf_chain_from(&f, splits, n_splits);
		if (m == NULL)
			break;
		n_tried++;
		memset(&key, 0xa5, sizeof(key));
		r = mcfan_classify_mbuf(m, &key);
		if (r != flat || memcmp(&key, &flat_key, sizeof(key)) != 0) {
			if (n_bad++ < 3)
				CHECK(0, "2,218-byte frame split at %u: %s, expected %s", s,
				      mcfan_drop_name(r), mcfan_drop_name(flat));
		}
		rte_pktmbuf_free(m);
	}
	CHECK_EQ_INT(n_tried, f.len - 1);
	CHECK(n_bad == 0, "%u of %u segmentations differ from the frame in one piece", n_bad,
	      n_tried);
	/* Cut by af_packet at 1,982 bytes (framesz 2048): truncated in one piece and in two. */
	flat = mcfan_classify(f.b, 1982, false, &key);
	CHECK(flat == MCFAN_DROP_TRUNCATED, "cut to 1982: %s", mcfan_drop_name(flat));
	f.len = 1982;
	splits[0] = 100;
	m = mbuf_chain_from(&f, splits, 1);
	if (m != NULL) {
		expect_mbuf_key("cut to 1982, two segments", m, MCFAN_DROP_TRUNCATED, 0, NULL, 0);
		rte_pktmbuf_free(m);
	}
	check_pool_full("multiseg long headers");
}

/*
 * A frame found in a group whose destination MAC is not the group's multicast MAC is
 * delivered and counted in mac_mismatch (l2_hdr() writes 01:00:5e:09:09:01, the MAC of
 * 239.9.9.1 only). Before the counter, such frames were delivered with no sign.
 */
static void
test_mac_mismatch(void)
{
	static const uint16_t one[] = { 0 };
	static const uint8_t unicast[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x09 };
	static const uint8_t mac_v6[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
	struct rte_ring *rings[1] = { ring_new("ut_mac", BIG_RING) };
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_PARTITION, one, 1);
	struct rte_mbuf *pkts[6], *out[8];
	struct mcfan_rx_ctx ctx;
	struct frame f[6];
	unsigned int i, n;

	if (rings[0] == NULL || t == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 1, meta_off, SOCKET_ID_ANY), 0);
	build_v4(&f[0], 0, 1, GROUP_PORT, 1, PAYLOAD_LEN);  /* 239.9.9.1, its own MAC */
	build_v4(&f[1], 0, 3, GROUP_PORT, 2, PAYLOAD_LEN);  /* 239.9.9.3 with .1's MAC */
	build_v4(&f[2], 0, 1, GROUP_PORT, 3, PAYLOAD_LEN);
	memcpy(f[2].b, unicast, sizeof(unicast));           /* unicast MAC */
	build_v4(&f[3], 1, 1, GROUP_PORT, 4, PAYLOAD_LEN);  /* tagged, its own MAC */
	build_v6(&f[4], false, 0, V6_PORT, 5);
	memcpy(f[4].b, mac_v6, sizeof(mac_v6));             /* ff3e::1, 33:33:00:00:00:01 */
	build_v6(&f[5], false, 0, V6_PORT, 6);              /* ff3e::1 with an IPv4 MAC */
	for (i = 0; i < RTE_DIM(pkts); i++) {
		pkts[i] = mbuf_from(&f[i]);
		if (pkts[i] == NULL)
			goto free_ctx;
	}
	CHECK_EQ_INT(mcfan_fanout_burst(&ctx, t, pkts, RTE_DIM(pkts), 5), RTE_DIM(pkts));
	CHECK_EQ_INT(ctx.stats.delivered_frames, RTE_DIM(pkts));
	CHECK_EQ_INT(ctx.stats.mac_mismatch, 3);
	check_conservation("mac mismatch", &ctx);
	n = drain(rings[0], out, RTE_DIM(out));
	CHECK_EQ_INT(n, RTE_DIM(pkts));
	rte_pktmbuf_free_bulk(out, n);
	check_pool_full("mac mismatch");
free_ctx:
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t);
	ring_del(rings[0]);
}

/* ---- EAL ---- */

static int
eal_up(void)
{
	return unit_eal_init("fanout");
}

/* Control frames (IGMP, MLD) go to the control ring when the context has one, counted
 * under drops[control]; a full ring frees them and counts them under their own drop
 * reason, drops[ctl_ring_full], so the conservation line stays exact. */
static void
test_control_ring(void)
{
	static const uint16_t one[] = { 0 };
	static const enum kind mix[] = {
		K_GROUP, K_IGMP, K_MLD, K_GROUP, K_IGMP, K_IGMP, K_MLD, K_GROUP6,
	};
	enum { CTL_RING = 4 };
	struct rte_ring *rings[1] = { ring_new("ut_ctl_w", SMALL_RING) };
	struct rte_ring *ctl = ring_new("ut_ctl", CTL_RING);
	struct mcfan_group_table *t = table_new(MCFAN_FANOUT_PARTITION, one, 1);
	struct rte_mbuf *pkts[RTE_DIM(mix)], *out[RTE_DIM(mix)];
	struct mcfan_rx_ctx ctx;
	struct mcfan_flow_key key;
	struct frame f;
	unsigned int i, n;

	if (rings[0] == NULL || ctl == NULL || t == NULL)
		goto out;
	CHECK_EQ_INT(mcfan_rx_ctx_init(&ctx, rings, 1, meta_off, SOCKET_ID_ANY), 0);
	CHECK(ctx.ctl_ring == NULL, "no control ring after init");
	ctx.ctl_ring = ctl;
	for (i = 0; i < RTE_DIM(mix); i++) {
		build_kind(&f, mix[i], (uint8_t)(1 + i % N_GROUPS), i);
		pkts[i] = mbuf_from(&f);
	}
	mcfan_fanout_burst(&ctx, t, pkts, RTE_DIM(mix), 42);
	CHECK_EQ_INT(ctx.stats.rx_frames, RTE_DIM(mix));
	CHECK_EQ_INT(ctx.stats.delivered_frames, 3);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_CONTROL], CTL_RING);
	CHECK_EQ_INT(ctx.stats.drops[MCFAN_DROP_CTL_RING_FULL], 5 - CTL_RING);
	check_conservation("control ring", &ctx);
	/* in the pool's books: 3 frames in the worker ring, 4 in the control ring */
	CHECK_EQ_INT(rte_mempool_avail_count(pool), POOL_SIZE - 3 - CTL_RING);
	n = drain(ctl, out, RTE_DIM(out));
	CHECK_EQ_INT(n, CTL_RING);
	for (i = 0; i < n; i++)
		CHECK(mcfan_classify_mbuf(out[i], &key) == MCFAN_DROP_CONTROL,
		      "control ring entry %u is IGMP or MLD", i);
	rte_pktmbuf_free_bulk(out, n);
	n = drain(rings[0], out, RTE_DIM(out));
	CHECK_EQ_INT(n, 3);
	rte_pktmbuf_free_bulk(out, n);
	check_pool_full("control ring");
	mcfan_rx_ctx_free(&ctx);
out:
	mcfan_group_table_free(t);
	ring_del(rings[0]);
	ring_del(ctl);
}

int
main(void)
{
	if (eal_up() < 0) {
		CHECK(0, "EAL did not start");
		return unit_summary("fanout");
	}
	pool = rte_pktmbuf_pool_create("ut_fanout_pool", POOL_SIZE, POOL_CACHE, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	CHECK(pool != NULL, "mbuf pool: %s", rte_strerror(rte_errno));
	meta_off = mcfan_meta_register();
	CHECK(meta_off >= 0, "mcfan_meta_register: %d", meta_off);
	if (pool != NULL && meta_off >= 0) {
		check_pool_full("start");
		test_meta_and_init();
		test_partition();
		test_drop_mix();
		test_replicate();
		test_local_refs();
		test_ring_full();
		test_replicate_partial();
		test_worker_stats();
		test_worker_split();
		test_multiseg();
		test_multiseg_long_headers();
		test_mac_mismatch();
		test_stage_flush();
		test_stats_read();
		test_pair_stats();
		test_add_drops();
		test_worker_read_bounded();
		test_control_ring();
		check_pool_full("end");
	}
	rte_mempool_free(pool);
	CHECK_EQ_INT(rte_eal_cleanup(), 0);
	return unit_summary("fanout");
}
