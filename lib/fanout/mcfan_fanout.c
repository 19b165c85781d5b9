/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_pause.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "mcfan_fanout.h"

#define META_FIELD_NAME "mcfan_dynfield_meta"
#define PREFETCH_AHEAD 4 /* frames whose headers are prefetched ahead of the classifier */
#define WORKER_READ_TRIES 64 /* seqcount tries on a worker block before the per-word copy */

int
mcfan_meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = META_FIELD_NAME,
		.size = sizeof(struct mcfan_mbuf_meta),
		.align = __alignof__(struct mcfan_mbuf_meta),
	};
	int off = rte_mbuf_dynfield_register(&desc);

	return off < 0 ? -rte_errno : off;
}

int
mcfan_rx_ctx_init(struct mcfan_rx_ctx *ctx, struct rte_ring **rings, unsigned int n_workers,
		  int meta_offset, int socket_id)
{
	if (n_workers == 0 || n_workers > MCFAN_MAX_WORKERS || meta_offset < 0)
		return -EINVAL;
	memset(ctx, 0, sizeof(*ctx));
	ctx->n_workers = n_workers;
	ctx->meta_offset = meta_offset;
	ctx->rings = rte_zmalloc_socket("mcfan_rx_rings", n_workers * sizeof(ctx->rings[0]), 0,
					socket_id);
	ctx->ring_stats = rte_zmalloc_socket("mcfan_rx_ring_stats",
					     n_workers * sizeof(ctx->ring_stats[0]),
					     RTE_CACHE_LINE_SIZE, socket_id);
	ctx->group_stats = rte_zmalloc_socket("mcfan_rx_group_stats", sizeof(*ctx->group_stats),
					      RTE_CACHE_LINE_SIZE, socket_id);
	ctx->stage = rte_zmalloc_socket("mcfan_rx_stage",
					(size_t)n_workers * MCFAN_MAX_BURST * sizeof(ctx->stage[0]),
					RTE_CACHE_LINE_SIZE, socket_id);
	ctx->stage_frame = rte_zmalloc_socket("mcfan_rx_stage_frame",
					      (size_t)n_workers * MCFAN_MAX_BURST *
					      sizeof(ctx->stage_frame[0]), RTE_CACHE_LINE_SIZE,
					      socket_id);
	ctx->stage_count = rte_zmalloc_socket("mcfan_rx_stage_count",
					      n_workers * sizeof(ctx->stage_count[0]), 0,
					      socket_id);
	ctx->local = rte_zmalloc_socket("mcfan_rx_local", n_workers * sizeof(ctx->local[0]), 0,
					socket_id);
	if (ctx->rings == NULL || ctx->ring_stats == NULL || ctx->group_stats == NULL ||
	    ctx->stage == NULL || ctx->stage_frame == NULL || ctx->stage_count == NULL ||
	    ctx->local == NULL) {
		mcfan_rx_ctx_free(ctx);
		return -ENOMEM;
	}
	memcpy(ctx->rings, rings, n_workers * sizeof(ctx->rings[0]));
	return 0;
}

int
mcfan_rx_ctx_set_local(struct mcfan_rx_ctx *ctx, unsigned int w, bool local)
{
	if (ctx == NULL || ctx->local == NULL || w >= ctx->n_workers)
		return -EINVAL;
	ctx->local[w] = local ? 1 : 0;
	return 0;
}

void
mcfan_copy_release_bulk(struct rte_mbuf **pkts, uint16_t n, int meta_offset)
{
	struct rte_mbuf *out[MCFAN_MAX_BURST];
	struct mcfan_mbuf_meta *meta;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		meta = mcfan_meta(pkts[i], meta_offset);
		if (meta->local_refs > 1) {
			meta->local_refs--; /* other local copies still hold the reference */
			continue;
		}
		meta->local_refs = 0;
		out[k++] = pkts[i];
	}
	if (k != 0)
		rte_pktmbuf_free_bulk(out, k);
}

void
mcfan_copy_own_bulk(struct rte_mbuf **pkts, uint16_t n, int meta_offset)
{
	struct mcfan_mbuf_meta *meta;
	uint16_t i;

	for (i = 0; i < n; i++) {
		meta = mcfan_meta(pkts[i], meta_offset);
		/* every local copy still out gets a reference of its own, in one update:
		 * at most one atomic operation a frame, as without sharing */
		if (meta->local_refs > 1)
			rte_pktmbuf_refcnt_update(pkts[i], (int16_t)(meta->local_refs - 1));
		meta->local_refs = 0;
	}
}

void
mcfan_rx_ctx_free(struct mcfan_rx_ctx *ctx)
{
	if (ctx == NULL)
		return;
	rte_free(ctx->rings);
	rte_free(ctx->ring_stats);
	rte_free(ctx->group_stats);
	rte_free(ctx->stage);
	rte_free(ctx->stage_frame);
	rte_free(ctx->stage_count);
	rte_free(ctx->local);
	ctx->local = NULL;
	ctx->rings = NULL;
	ctx->ring_stats = NULL;
	ctx->group_stats = NULL;
	ctx->stage = NULL;
	ctx->stage_frame = NULL;
	ctx->stage_count = NULL;
}

/* Hand control frames to the control ring (counted `control`); what it refuses is freed
 * and counted under its own drop reason, `ctl_ring_full`. */
static void
stage_control(struct mcfan_rx_ctx *ctx, struct rte_mbuf **ctl, unsigned int n)
{
	unsigned int sent = rte_ring_enqueue_burst(ctx->ctl_ring, (void **)ctl, n, NULL);

	ctx->pend.drops[MCFAN_DROP_CONTROL] += sent;
	if (unlikely(sent < n)) {
		ctx->pend.drops[MCFAN_DROP_CTL_RING_FULL] += n - sent;
		rte_pktmbuf_free_bulk(&ctl[sent], n - sent);
	}
}

uint16_t
mcfan_fanout_stage(struct mcfan_rx_ctx *ctx, const struct mcfan_group_table *table,
		   struct rte_mbuf **pkts, uint16_t n, uint64_t rx_tsc)
{
	struct mcfan_flow_key keys[MCFAN_MAX_BURST];
	const struct mcfan_flow_key *key_ptrs[RTE_HASH_LOOKUP_BULK_MAX];
	const struct mcfan_group_entry *found[RTE_HASH_LOOKUP_BULK_MAX];
	uint16_t cls[MCFAN_MAX_BURST];
	struct rte_mbuf *ctl[MCFAN_MAX_BURST];
	struct mcfan_rx_pending *pd = &ctx->pend;
	uint16_t n_cls = 0, n_ctl = 0, i, j, chunk, base, t, local;
	unsigned int w, k;
	enum mcfan_drop r;

	if (n > MCFAN_MAX_BURST - pd->frames)
		n = (uint16_t)(MCFAN_MAX_BURST - pd->frames);

	for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		if (i + PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], void *));
		pd->bytes += pkts[i]->pkt_len;
		r = mcfan_classify_mbuf(pkts[i], &keys[i]);
		if (likely(r == MCFAN_DROP_NONE)) {
			cls[n_cls++] = i;
		} else if (r == MCFAN_DROP_CONTROL && ctx->ctl_ring != NULL) {
			ctl[n_ctl++] = pkts[i]; /* counted by stage_control() */
		} else {
			pd->drops[r]++;
			rte_pktmbuf_free(pkts[i]);
		}
	}
	if (unlikely(n_ctl != 0))
		stage_control(ctx, ctl, n_ctl);

	for (base = 0; base < n_cls; base += chunk) {
		chunk = RTE_MIN(n_cls - base, RTE_HASH_LOOKUP_BULK_MAX);
		for (j = 0; j < chunk; j++)
			key_ptrs[j] = &keys[cls[base + j]];
		mcfan_group_table_lookup_bulk(table, key_ptrs, chunk, found);
		for (j = 0; j < chunk; j++) {
			const struct mcfan_group_entry *e = found[j];
			struct rte_mbuf *m;
			struct mcfan_mbuf_meta *meta;
			uint16_t f;

			i = cls[base + j];
			m = pkts[i];
			if (e == NULL) {
				pd->drops[MCFAN_DROP_UNKNOWN_GROUP]++;
				rte_pktmbuf_free(m);
				continue;
			}
			if (unlikely(mcfan_classify_mac_mismatch(rte_pktmbuf_mtod(m, const uint8_t *),
								 m->data_len, &keys[i])))
				pd->mac_mismatch++;
			meta = mcfan_meta(m, ctx->meta_offset);
			meta->rx_tsc = rx_tsc;
			meta->group_id = e->id;
			meta->inst = e->inst;
			meta->join_seq = e->join_seq;
			meta->local_refs = 0;
			if (e->n_targets > 1) {
				/* copies to workers of this thread share one reference
				 * ("Local references", mcfan_fanout.h) when two or more */
				for (t = 0, local = 0; t < e->n_targets; t++)
					local += ctx->local[e->targets[t]];
				if (local >= 2)
					meta->local_refs = local;
				else
					local = 1;
				if (e->n_targets > local)
					rte_pktmbuf_refcnt_update(m, (int16_t)(e->n_targets - local));
			}
			f = (uint16_t)(pd->frames + i);
			for (t = 0; t < e->n_targets; t++) {
				w = e->targets[t];
				k = w * MCFAN_MAX_BURST + ctx->stage_count[w]++;
				ctx->stage[k] = m;
				ctx->stage_frame[k] = f;
			}
			pd->copies_left[f] = e->n_targets;
			pd->group[f] = e->id;
			pd->grouped[pd->n_grouped++] = f;
			pd->offered += e->n_targets;
			pd->delivered++;
		}
	}
	pd->frames = (uint16_t)(pd->frames + n);
	return n;
}

uint16_t
mcfan_fanout_flush(struct mcfan_rx_ctx *ctx)
{
	struct mcfan_rx_pending *pd = &ctx->pend;
	struct mcfan_rx_stats *st = &ctx->stats;
	struct mcfan_rx_group_stats *gs = ctx->group_stats;
	uint64_t enq_total = 0;
	unsigned int w, k, cnt, sent;
	uint16_t f, delivered = pd->delivered;

	rte_seqcount_write_begin(&st->seq);
	for (w = 0; w < ctx->n_workers; w++) {
		cnt = ctx->stage_count[w];
		if (cnt == 0)
			continue;
		k = w * MCFAN_MAX_BURST;
		sent = rte_ring_enqueue_burst(ctx->rings[w], (void **)&ctx->stage[k], cnt, NULL);
		enq_total += sent;
		ctx->ring_stats[w].enqueued += sent;
		if (unlikely(sent < cnt)) {
			unsigned int j;

			ctx->ring_stats[w].ring_drops += cnt - sent;
			for (j = sent; j < cnt; j++) {
				f = ctx->stage_frame[k + j];
				gs->copy_drops[pd->group[f]]++;
				if (--pd->copies_left[f] == 0) {
					pd->drops[MCFAN_DROP_RING_FULL]++;
					delivered--;
				}
			}
			/* one bulk free of the refused copies (drops one reference each; a
			 * local copy gives its share back) */
			if (ctx->local[w])
				mcfan_copy_release_bulk(&ctx->stage[k + sent],
							(uint16_t)(cnt - sent), ctx->meta_offset);
			else
				rte_pktmbuf_free_bulk(&ctx->stage[k + sent], cnt - sent);
		}
		ctx->stage_count[w] = 0;
	}
	for (k = 0; k < pd->n_grouped; k++)
		gs->frames[pd->group[pd->grouped[k]]]++;
	st->rx_frames += pd->frames;
	st->rx_bytes += pd->bytes;
	st->delivered_frames += delivered;
	st->copies_offered += pd->offered;
	st->delivered_copies += enq_total;
	for (k = 1; k < MCFAN_DROP_MAX; k++)
		st->drops[k] += pd->drops[k];
	st->mac_mismatch += pd->mac_mismatch;
	if (ctx->pair < st->n_pairs) {
		struct mcfan_rx_pair_stats *ps = &st->pair[ctx->pair];

		ps->rx_frames += pd->frames;
		for (k = 1; k < MCFAN_DROP_MAX; k++)
			ps->drops[k] += pd->drops[k];
	}
	rte_seqcount_write_end(&st->seq);
	memset(pd, 0, offsetof(struct mcfan_rx_pending, copies_left));
	return delivered;
}

int
mcfan_rx_stats_add_drops(struct mcfan_rx_stats *st, unsigned int pair, enum mcfan_drop reason,
			 uint64_t frames, uint64_t bytes)
{
	if (reason <= MCFAN_DROP_NONE || reason >= MCFAN_DROP_MAX)
		return -EINVAL;
	rte_seqcount_write_begin(&st->seq);
	st->rx_frames += frames;
	st->rx_bytes += bytes;
	st->drops[reason] += frames;
	if (pair < st->n_pairs) {
		st->pair[pair].rx_frames += frames;
		st->pair[pair].drops[reason] += frames;
	}
	rte_seqcount_write_end(&st->seq);
	return 0;
}

uint16_t
mcfan_fanout_burst(struct mcfan_rx_ctx *ctx, const struct mcfan_group_table *table,
		   struct rte_mbuf **pkts, uint16_t n, uint64_t rx_tsc)
{
	mcfan_fanout_stage(ctx, table, pkts, n, rx_tsc);
	return mcfan_fanout_flush(ctx);
}

uint64_t
mcfan_lat_ns_mult(uint64_t tsc_hz)
{
	return tsc_hz == 0 ? 0 : ((uint64_t)NS_PER_S << MCFAN_LAT_MULT_SHIFT) / tsc_hz;
}

/* Bucket of one RX-to-dequeue time, the time in *ns_out; raises *max_ns. */
static inline unsigned int
lat_bucket(uint64_t now_tsc, uint64_t rx_tsc, uint64_t mult, uint64_t *max_ns, uint64_t *ns_out)
{
	uint64_t d = now_tsc > rx_tsc ? now_tsc - rx_tsc : 0; /* TSCs of two CPUs may skew */
	uint64_t ns = (uint64_t)(((unsigned __int128)d * mult) >> MCFAN_LAT_MULT_SHIFT);
	unsigned int b;

	*ns_out = ns;
	if (ns > *max_ns)
		*max_ns = ns;
	b = ns == 0 ? 0 : (unsigned int)rte_fls_u64(ns) - 1;
	return RTE_MIN(b, MCFAN_LAT_BUCKETS - 1u);
}

uint64_t
mcfan_lat_quantile_ns(const uint64_t *hist, uint64_t max_ns, unsigned int permille)
{
	uint64_t total = 0, cum = 0, lo, hi, v;
	double target;
	unsigned int b;

	for (b = 0; b < MCFAN_LAT_BUCKETS; b++)
		total += hist[b];
	if (total == 0)
		return 0;
	target = (double)total * RTE_MIN(permille, 1000u) / 1000.0;
	for (b = 0; b < MCFAN_LAT_BUCKETS; b++) {
		if (hist[b] == 0 || (double)(cum + hist[b]) < target) {
			cum += hist[b];
			continue;
		}
		lo = b == 0 ? 0 : UINT64_C(1) << b;
		hi = b == MCFAN_LAT_BUCKETS - 1 ? UINT64_MAX : UINT64_C(1) << (b + 1);
		hi = RTE_MIN(hi, RTE_MAX(max_ns, lo)); /* the top bucket ends at the max seen */
		v = lo + (uint64_t)((double)(hi - lo) * (target - (double)cum) / (double)hist[b]);
		return RTE_MIN(v, max_ns);
	}
	return max_ns;
}

/* Prefetch the mbuf header and the line that holds its metadata (the second line). */
static inline void
prefetch_mbuf(struct rte_mbuf *m, int meta_offset)
{
	rte_prefetch0(m);
	rte_prefetch0(mcfan_meta(m, meta_offset));
}

void
mcfan_worker_burst(struct mcfan_worker_stats *ws, struct rte_mbuf **pkts, uint16_t n,
		   unsigned int waiting, uint64_t now_tsc, int meta_offset)
{
	mcfan_worker_account(ws, pkts, n, waiting, now_tsc, meta_offset);
	rte_pktmbuf_free_bulk(pkts, n);
}

void
mcfan_worker_account(struct mcfan_worker_stats *ws, struct rte_mbuf *const *pkts, uint16_t n,
		     unsigned int waiting, uint64_t now_tsc, int meta_offset)
{
	uint64_t bytes = 0, prev_rx = 0, lat_max = ws->lat_max_ns, mult = ws->lat_ns_mult;
	uint64_t lat_ns = 0, lat_sum = 0;
	unsigned int lb = 0;
	uint16_t i, g;

	/* The copies were last written on the RX lcore's core: fetch both mbuf cache lines
	 * (pkt_len, refcnt and pool in the first; the metadata and next in the second, which
	 * the count and rte_pktmbuf_free_bulk() read) a few copies ahead. */
	for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
		prefetch_mbuf(pkts[i], meta_offset);
	rte_seqcount_write_begin(&ws->seq);
	for (i = 0; i < n; i++) {
		const struct mcfan_mbuf_meta *meta = mcfan_meta(pkts[i], meta_offset);
		uint32_t len = pkts[i]->pkt_len;

		if (i + PREFETCH_AHEAD < n)
			prefetch_mbuf(pkts[i + PREFETCH_AHEAD], meta_offset);

		/* copies of one RX burst share their rx_tsc: one bucket computation per run */
		if (i == 0 || meta->rx_tsc != prev_rx) {
			prev_rx = meta->rx_tsc;
			lb = lat_bucket(now_tsc, prev_rx, mult, &lat_max, &lat_ns);
		}
		ws->lat_hist[lb]++;
		lat_sum += lat_ns;

		g = meta->group_id;
		if (unlikely(g >= MCFAN_MAX_GROUPS))
			g = MCFAN_MAX_GROUPS - 1;
		ws->group_frames[g]++;
		ws->group_bytes[g] += len;
		if (ws->group_first_tsc[g] == 0)
			ws->group_first_tsc[g] = meta->rx_tsc;
		ws->group_last_tsc[g] = meta->rx_tsc;
		bytes += len;
	}
	ws->frames += n;
	ws->bytes += bytes;
	ws->lat_max_ns = lat_max;
	ws->lat_sum_ns += lat_sum;
	if (waiting > ws->ring_high_water)
		ws->ring_high_water = waiting;
	rte_seqcount_write_end(&ws->seq);
}

unsigned int
mcfan_worker_split(struct rte_mbuf *const *pkts, uint16_t n, int meta_offset,
		   unsigned int n_inst, struct rte_mbuf **out, uint16_t *start)
{
	uint16_t cnt[MCFAN_SPLIT_INST_MAX + 1] = {0}, pos[MCFAN_SPLIT_INST_MAX];
	uint8_t inst[MCFAN_MAX_BURST];
	unsigned int i, used = 0;

	if (n_inst == 0 || n_inst > MCFAN_SPLIT_INST_MAX)
		n_inst = 1;
	for (i = 0; i < n; i++) {
		uint8_t k = mcfan_meta(pkts[i], meta_offset)->inst;

		if (unlikely(k >= n_inst))
			k = 0;
		inst[i] = k;
		cnt[k]++;
	}
	start[0] = 0;
	for (i = 0; i < n_inst; i++) {
		pos[i] = start[i];
		start[i + 1] = (uint16_t)(start[i] + cnt[i]);
		if (cnt[i] != 0)
			used++;
	}
	for (i = 0; i < n; i++)
		out[pos[inst[i]]++] = pkts[i];
	return used;
}

/* Seqcount read; max_tries 0 = until consistent. Every try counts, also one that finds the
 * writer inside its section, so a bounded read ends. Returns 0 if consistent, -EAGAIN if
 * max_tries ran out (dst then holds the last, possibly mixed, copy or nothing new). */
static int
seq_read(const rte_seqcount_t *seq, const void *src, void *dst, size_t len,
	 unsigned int max_tries)
{
	unsigned int tries = 0;
	uint32_t sn;

	for (;;) {
		sn = rte_seqcount_read_begin(seq);
		if ((sn & 1) == 0) {
			memcpy(dst, src, len);
			if (!rte_seqcount_read_retry(seq, sn))
				return 0;
		} else {
			rte_pause();
		}
		if (max_tries != 0 && ++tries >= max_tries)
			return -EAGAIN;
	}
}

/* Copy a block of 64-bit counters word by word with atomic loads: every word is a value the
 * writer stored, though words may come from different bursts. */
static void
words_read(const uint64_t *src, uint64_t *dst, size_t n_words)
{
	size_t i;

	for (i = 0; i < n_words; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/* Bytes of an RX lcore's stats block in use: the counters and its n_pairs pair entries
 * (n_pairs is set before launch and constant after). */
static size_t
rx_stats_used(const struct mcfan_rx_stats *st)
{
	uint32_t n = RTE_MIN(st->n_pairs, (uint32_t)MCFAN_RX_STATS_PAIRS);

	return offsetof(struct mcfan_rx_stats, pair) + n * sizeof(st->pair[0]);
}

void
mcfan_rx_stats_read(const struct mcfan_rx_stats *src, struct mcfan_rx_stats *dst)
{
	size_t used = rx_stats_used(src);

	seq_read(&src->seq, src, dst, used, 0);
	memset((char *)dst + used, 0, sizeof(*dst) - used);
}

int
mcfan_worker_stats_read(const struct mcfan_worker_stats *src, struct mcfan_worker_stats *dst)
{
	RTE_BUILD_BUG_ON(sizeof(*src) % sizeof(uint64_t) != 0);
	if (seq_read(&src->seq, src, dst, sizeof(*dst), WORKER_READ_TRIES) == 0)
		return 0;
	/* a busy worker rewrites its block faster than 33 KiB can be copied: give a copy
	 * whose every counter is exact at some instant instead of retrying for ever */
	words_read((const uint64_t *)src, (uint64_t *)dst, sizeof(*dst) / sizeof(uint64_t));
	return -EAGAIN;
}

/* Copy len bytes of one RX lcore's stats (src, written in its stats seqcount section) to
 * dst, and the ring stats too if ring_stats is not NULL, as one consistent read. */
static void
rx_seq_copy(const struct mcfan_rx_ctx *ctx, void *dst, const void *src, size_t len,
	    struct mcfan_ring_stats *ring_stats)
{
	uint32_t sn;

	for (;;) {
		sn = rte_seqcount_read_begin(&ctx->stats.seq);
		if (sn & 1) {
			rte_pause();
			continue;
		}
		memcpy(dst, src, len);
		if (ring_stats != NULL)
			memcpy(ring_stats, ctx->ring_stats,
			       ctx->n_workers * sizeof(ring_stats[0]));
		if (!rte_seqcount_read_retry(&ctx->stats.seq, sn))
			return;
	}
}

void
mcfan_rx_ctx_read(const struct mcfan_rx_ctx *ctx, struct mcfan_rx_stats *stats,
		  struct mcfan_ring_stats *ring_stats)
{
	size_t used = rx_stats_used(&ctx->stats);

	rx_seq_copy(ctx, stats, &ctx->stats, used, ring_stats);
	memset((char *)stats + used, 0, sizeof(*stats) - used);
}

void
mcfan_rx_group_read(const struct mcfan_rx_ctx *ctx, struct mcfan_rx_group_stats *out)
{
	rx_seq_copy(ctx, out, ctx->group_stats, sizeof(*out), NULL);
}
