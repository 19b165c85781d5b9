/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Feed quality (mcfan_feed.h): the extractors and the sequence tracker.
 *
 * The tracker keeps, for the last `cap` sequence numbers below `next` (the highest seen + 1),
 * one bit each: received or not. Numbers below `settled` are decided: a missing one there
 * was counted lost. `settled` follows next - window_pkts, and jumps to the end of a gap
 * whose window_ns ran out (open gaps, oldest first). cap is at least twice window_pkts, so
 * a bit is recycled only once its number is settled. Every step is O(1) per number but for
 * jumps, which cost at most O(cap).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_pause.h>
#include <rte_seqcount.h>

#include "mcfan_parse.h"
#include "mcfan_fanout.h"
#include "mcfan_feed.h"

#define READ_TRIES 64            /* seqcount tries before the per-word copy */
#define IPERF2_HDR_LEN 16        /* id, tv_sec, tv_usec, id2 (iperf2 include/payloads.h) */
#define IPERF2_SEC_OFF 4         /* tv_sec: the send time, seconds (the sender's clock) */
#define IPERF2_USEC_OFF 8        /* tv_usec: its microseconds */
#define RTP_HDR_LEN 12           /* RFC 3550 section 5.1 */
#define RTP_VERSION 2
#define RTP_SEQ_MOD (1u << 16)   /* RFC 3550 appendix A.1 */
#define RTP_MAX_DROPOUT 3000     /* A.1 */
#define RTP_MAX_MISORDER 100     /* A.1 */
#define TS_PKT_LEN 188           /* ISO/IEC 13818-1 2.4.3.2 */
#define TS_SYNC 0x47
#define TS_PID_NULL 0x1fff       /* null packets: no continuity_counter meaning */
#define TS_CC_MOD 16
#define TS_SEEN 0x80             /* per PID state: a counter is known */
#define TS_DUP 0x40              /* the last packet was a duplicate (one is allowed) */
#define TS_CC_MASK 0x0f
#define MOLD_HDR_LEN 20          /* session 10, sequence 8, count 2 (MoldUDP64 1.00) */
#define MOLD_SESSION_LEN 10
#define MOLD_END 0xffff          /* message count of an end-of-session datagram */
#define FEED_NS_PER_S 1000000000ULL
#define JITTER_SHIFT 4           /* RFC 3550 6.4.1: J += (|D| - J) / 16, kept times 16 */
#define CAP_MIN 64
/* An 8-byte generic number is placed in the tracker's space relative to the session's first
 * one (its origin), at the middle: numbers modulo 2^64, so 2^64 - 1 is followed by 0. */
#define REBASE_MID (UINT64_C(1) << 63)
/* Farther than this from the origin (either way) is a new start: a reset. */
#define REBASE_FAR (UINT64_C(1) << 62)

struct open_gap {
	uint64_t first, last, t_ns, filled;
};

/* Extension of a short sequence number to 64 bits (RFC 3550 appendix A.1's shape). */
struct ext_state {
	bool init;
	uint64_t max;      /* highest extended number */
	uint32_t bad_seq;  /* rtp: the number after a large jump, RTP_SEQ_MOD + 1 = none */
};

struct tracker {
	struct mcfan_feed_params p;
	uint32_t cap, mask;
	uint64_t *bits;            /* received bits of [next - cap, next) */
	uint64_t *line_bits[2];    /* arb: per line */
	uint64_t *first_ns;        /* arb: arrival of the first copy, per number */
	uint8_t *first_line;       /* arb: which line brought it */
	bool started;
	bool ended;                /* iperf2: the end-of-test datagram came */
	uint64_t end_next;         /* iperf2: the next number its end said */
	uint64_t base, next, settled;
	struct open_gap open[MCFAN_FEED_OPEN_GAPS];
	unsigned int open_head, open_n;
	uint64_t last_ns;          /* latest arrival */
	/* jitter */
	unsigned int jit_n;        /* arrivals seen in the session, up to 2 */
	uint64_t prev_ns, prev_gap_ns;
	uint32_t prev_ts;
	uint64_t prev_sent_ns;     /* iperf2: the previous datagram's send time, ns */
	uint64_t jitter_q4;
	struct mcfan_feed_line line[2];
	/* arb, iperf2: a line's test number (it goes up when the line sends data after its own
	 * end-of-test), whether its end came, and the merged stream's test number */
	uint32_t line_test[2];
	bool line_ended[2];
	uint32_t test;
	/* arb, rtp and moldudp64: each line's own session (SSRC, session name hash) */
	uint64_t line_session[2];
	bool line_have_session[2];
	uint64_t skew_hist[2][MCFAN_FEED_SKEW_BUCKETS];
	uint64_t skew_max_ns[2];
};

struct mcfan_feed_group {
	rte_seqcount_t seq;
	uint32_t pad;
	struct mcfan_feed_counters c;
	struct mcfan_feed_gap log[MCFAN_FEED_GAP_LOG];
	struct mcfan_feed_spec spec;
	uint16_t owner;
	struct tracker t;
	struct ext_state ext;
	uint64_t session;          /* rtp SSRC, moldudp64 session hash */
	bool have_session;
	uint8_t *ts_cc;            /* mpegts: MCFAN_FEED_TS_PIDS entries */
	bool rebased;              /* generic width 8: numbers are placed around origin */
	uint64_t origin;           /* the raw number that sits at REBASE_MID */
};

struct mcfan_feed_arb {
	struct mcfan_feed_group g; /* the merged stream: its counters and log */
	struct mcfan_feed_arb_counters out; /* under g.seq */
};

static const char *const kind_names[MCFAN_FEED_KINDS] = {
	[MCFAN_FEED_OFF] = "off",
	[MCFAN_FEED_IPERF2] = "iperf2",
	[MCFAN_FEED_RTP] = "rtp",
	[MCFAN_FEED_MPEGTS] = "mpegts",
	[MCFAN_FEED_MOLDUDP64] = "moldudp64",
	[MCFAN_FEED_GENERIC] = "generic",
};

const char *
mcfan_feed_kind_name(enum mcfan_feed_kind kind)
{
	if ((unsigned int)kind >= MCFAN_FEED_KINDS)
		return "invalid";
	return kind_names[kind];
}

int
mcfan_feed_spec_parse(const char *text, struct mcfan_feed_spec *spec, char *err, size_t len)
{
	struct mcfan_feed_spec s = { .clock_hz = MCFAN_FEED_RTP_CLOCK_DEFAULT };
	char buf[MCFAN_FEED_SPEC_STR_MAX + 1], *w, *e;
	uint64_t v;

	if (text == NULL || text[0] == '\0')
		return mcfan_err_set(err, len, -EINVAL, "a sequence kind is needed: iperf2, rtp, "
				     "mpegts, moldudp64, OFFSET:WIDTH:be|le or off");
	if (strlen(text) > MCFAN_FEED_SPEC_STR_MAX)
		return mcfan_err_set(err, len, -EINVAL, "sequence kind '%.40s...' is longer than "
				     "%d characters", text, MCFAN_FEED_SPEC_STR_MAX);
	snprintf(buf, sizeof(buf), "%s", text);
	if (strcmp(buf, "off") == 0) {
		s.kind = MCFAN_FEED_OFF;
	} else if (strcmp(buf, "iperf2") == 0) {
		s.kind = MCFAN_FEED_IPERF2;
	} else if (strcmp(buf, "mpegts") == 0) {
		s.kind = MCFAN_FEED_MPEGTS;
	} else if (strcmp(buf, "moldudp64") == 0) {
		s.kind = MCFAN_FEED_MOLDUDP64;
	} else if (strcmp(buf, "rtp") == 0) {
		s.kind = MCFAN_FEED_RTP;
	} else if (strncmp(buf, "rtp:", 4) == 0) {
		s.kind = MCFAN_FEED_RTP;
		if (mcfan_parse_u64(buf + 4, 1, MCFAN_FEED_RTP_CLOCK_MAX, &v) < 0)
			return mcfan_err_set(err, len, -EINVAL, "sequence kind '%s': the RTP clock "
					     "'%s' is not a rate of 1..%d Hz", text, buf + 4,
					     MCFAN_FEED_RTP_CLOCK_MAX);
		s.clock_hz = (uint32_t)v;
	} else if (buf[0] >= '0' && buf[0] <= '9') {
		s.kind = MCFAN_FEED_GENERIC;
		w = strchr(buf, ':');
		e = w != NULL ? strchr(w + 1, ':') : NULL;
		if (w == NULL || e == NULL)
			return mcfan_err_set(err, len, -EINVAL, "sequence kind '%s' is not "
					     "OFFSET:WIDTH:be|le (e.g. 0:4:be)", text);
		*w = '\0';
		*e = '\0';
		if (mcfan_parse_u64(buf, 0, MCFAN_FEED_GENERIC_OFFSET_MAX, &v) < 0)
			return mcfan_err_set(err, len, -EINVAL, "sequence kind '%s': offset '%s' is "
					     "not 0..%d", text, buf, MCFAN_FEED_GENERIC_OFFSET_MAX);
		s.offset = (uint16_t)v;
		if (mcfan_parse_u64(w + 1, 1, 8, &v) < 0 || (v != 1 && v != 2 && v != 4 && v != 8))
			return mcfan_err_set(err, len, -EINVAL, "sequence kind '%s': width '%s' is "
					     "not 1, 2, 4 or 8 bytes", text, w + 1);
		s.width = (uint8_t)v;
		if (strcmp(e + 1, "be") == 0)
			s.little_endian = false;
		else if (strcmp(e + 1, "le") == 0)
			s.little_endian = true;
		else
			return mcfan_err_set(err, len, -EINVAL, "sequence kind '%s': byte order "
					     "'%s' is not be or le", text, e + 1);
	} else {
		return mcfan_err_set(err, len, -EINVAL, "'%s' is not a sequence kind: iperf2, rtp, "
				     "mpegts, moldudp64, OFFSET:WIDTH:be|le or off", text);
	}
	*spec = s;
	return 0;
}

const char *
mcfan_feed_spec_format(const struct mcfan_feed_spec *spec, char *buf, size_t len)
{
	if (spec->kind == MCFAN_FEED_GENERIC)
		snprintf(buf, len, "%u:%u:%s", spec->offset, spec->width,
			 spec->little_endian ? "le" : "be");
	else if (spec->kind == MCFAN_FEED_RTP && spec->clock_hz != MCFAN_FEED_RTP_CLOCK_DEFAULT)
		snprintf(buf, len, "rtp:%u", spec->clock_hz);
	else
		snprintf(buf, len, "%s", mcfan_feed_kind_name(spec->kind));
	return buf;
}

/* ---- the tracker ---- */

static inline bool
bit_get(const uint64_t *b, uint32_t mask, uint64_t s)
{
	uint32_t i = (uint32_t)(s & mask);

	return (b[i >> 6] >> (i & 63)) & 1;
}

static inline void
bit_set(uint64_t *b, uint32_t mask, uint64_t s)
{
	uint32_t i = (uint32_t)(s & mask);

	b[i >> 6] |= UINT64_C(1) << (i & 63);
}

static inline void
bit_clear(uint64_t *b, uint32_t mask, uint64_t s)
{
	uint32_t i = (uint32_t)(s & mask);

	b[i >> 6] &= ~(UINT64_C(1) << (i & 63));
}

static unsigned int
log2_bucket(uint64_t v, unsigned int buckets)
{
	unsigned int b = v == 0 ? 0 : 63u - (unsigned int)__builtin_clzll(v);

	return RTE_MIN(b, buckets - 1);
}

static void
log_gap(struct mcfan_feed_group *g, uint64_t first, uint64_t last, uint64_t t_ns, uint64_t lost,
	uint32_t stream)
{
	struct mcfan_feed_gap *e = &g->log[g->c.gap_log_total % MCFAN_FEED_GAP_LOG];

	if (g->rebased) {
		/* back to the numbers of the wire, modulo 2^64 */
		first = first - REBASE_MID + g->origin;
		last = last - REBASE_MID + g->origin;
	}
	e->first = first;
	e->last = last;
	e->t_ns = t_ns;
	e->lost = lost;
	e->stream = stream;
	e->pad = 0;
	g->c.gap_log_total++;
}

/* Close the oldest open gap into the log. */
static void
close_oldest(struct mcfan_feed_group *g)
{
	struct tracker *t = &g->t;
	struct open_gap *o = &t->open[t->open_head];

	log_gap(g, o->first, o->last, o->t_ns, o->last - o->first + 1 - o->filled, 0);
	t->open_head = (t->open_head + 1) % MCFAN_FEED_OPEN_GAPS;
	t->open_n--;
}

/* Decide every number below to: missing ones are lost. to <= next. */
static void
settle(struct mcfan_feed_group *g, uint64_t to)
{
	struct tracker *t = &g->t;
	uint64_t s, low = t->next > t->cap ? t->next - t->cap : 0;
	unsigned int l;

	if (to <= t->settled)
		return;
	/* below the bitmap (after a jump): all missing */
	if (t->settled < low) {
		uint64_t n = RTE_MIN(to, low) - t->settled;

		g->c.lost += n;
		g->c.pending -= n;
		for (l = 0; l < 2; l++)
			t->line[l].missed += t->line_bits[l] != NULL ? n : 0;
		t->settled += n;
	}
	for (s = t->settled; s < to; s++) {
		if (!bit_get(t->bits, t->mask, s)) {
			g->c.lost++;
			g->c.pending--;
		}
		for (l = 0; l < 2; l++)
			if (t->line_bits[l] != NULL && !bit_get(t->line_bits[l], t->mask, s))
				t->line[l].missed++;
	}
	t->settled = to;
	while (t->open_n > 0 && t->open[t->open_head].last < t->settled)
		close_oldest(g);
}

/* Settle the gaps whose time ran out. */
static void
expire(struct mcfan_feed_group *g, uint64_t now_ns)
{
	struct tracker *t = &g->t;

	while (t->open_n > 0 && now_ns - t->open[t->open_head].t_ns >= t->p.window_ns)
		settle(g, t->open[t->open_head].last + 1);
}

static void
clear_range(struct tracker *t, uint64_t from, uint64_t to)
{
	uint64_t s;
	unsigned int l;

	if (to - from >= t->cap) {
		memset(t->bits, 0, t->cap / 8);
		for (l = 0; l < 2; l++)
			if (t->line_bits[l] != NULL)
				memset(t->line_bits[l], 0, t->cap / 8);
		return;
	}
	for (s = from; s < to; s++) {
		bit_clear(t->bits, t->mask, s);
		for (l = 0; l < 2; l++)
			if (t->line_bits[l] != NULL)
				bit_clear(t->line_bits[l], t->mask, s);
	}
}

/* A session ends: what is missing is lost; the next number starts afresh. */
static void
session_end(struct mcfan_feed_group *g)
{
	struct tracker *t = &g->t;

	if (!t->started)
		return;
	settle(g, t->next);
	while (t->open_n > 0)
		close_oldest(g);
	t->started = false;
	t->jit_n = 0;
}

/* Move next to end (> next); the numbers [next, seq) are a gap seen at now_ns. */
static void
advance(struct mcfan_feed_group *g, uint64_t seq, uint64_t end, uint64_t now_ns)
{
	struct tracker *t = &g->t;
	uint64_t old = t->next, target, gap;
	struct open_gap *o;

	if (seq > old) {
		gap = seq - old;
		g->c.gaps++;
		g->c.gap_hist[log2_bucket(gap, MCFAN_FEED_GAP_BUCKETS)]++;
		g->c.pending += gap;
		if (t->open_n == MCFAN_FEED_OPEN_GAPS)
			settle(g, t->open[t->open_head].last + 1);
		o = &t->open[(t->open_head + t->open_n) % MCFAN_FEED_OPEN_GAPS];
		o->first = old;
		o->last = seq - 1;
		o->t_ns = now_ns;
		o->filled = 0;
		t->open_n++;
	}
	g->c.expected += end - old;
	target = end > t->p.window_pkts ? end - t->p.window_pkts : 0;
	target = RTE_MIN(target, seq); /* [seq, end) arrives now */
	if (target > t->settled) {
		/* the part below old is in the bitmap; [old, target) is all missing */
		settle(g, RTE_MIN(target, old));
		if (target > old) {
			uint64_t n = target - t->settled;
			unsigned int l;

			g->c.lost += n;
			g->c.pending -= n;
			for (l = 0; l < 2; l++)
				t->line[l].missed += t->line_bits[l] != NULL ? n : 0;
			t->settled = target;
			while (t->open_n > 0 && t->open[t->open_head].last < t->settled)
				close_oldest(g);
		}
	}
	clear_range(t, end - old >= t->cap ? end - t->cap : old, end);
	t->next = end;
}

/* The open gap holding s, or NULL. */
static struct open_gap *
find_open(struct tracker *t, uint64_t s)
{
	unsigned int i;
	struct open_gap *o;

	for (i = 0; i < t->open_n; i++) {
		o = &t->open[(t->open_head + i) % MCFAN_FEED_OPEN_GAPS];
		if (s >= o->first && s <= o->last)
			return o;
	}
	return NULL;
}

/* What happened to one number. */
enum fate { FATE_NEW, FATE_FILLED, FATE_LATE, FATE_DUP };

/* A number below next. */
static enum fate
old_number(struct mcfan_feed_group *g, uint64_t s)
{
	struct tracker *t = &g->t;
	struct open_gap *o;

	if (t->next - s > t->cap || s < t->base) {
		g->c.late++; /* before the session or the bitmap: late or a duplicate */
		g->c.received++;
		return FATE_LATE;
	}
	if (bit_get(t->bits, t->mask, s)) {
		g->c.duplicates++;
		return FATE_DUP;
	}
	bit_set(t->bits, t->mask, s);
	g->c.received++;
	if (s < t->settled) {
		g->c.late++;
		return FATE_LATE;
	}
	g->c.reordered++;
	g->c.pending--;
	o = find_open(t, s);
	if (o != NULL)
		o->filled++;
	return FATE_FILLED;
}

/*
 * Numbers [seq, seq + count) arrived at now_ns (count 0: a heartbeat saying seq is next).
 * fates (may be NULL) receives the fate of each number when count is 1.
 */
static void
track(struct mcfan_feed_group *g, uint64_t seq, uint32_t count, uint64_t now_ns,
      enum fate *fate)
{
	struct tracker *t = &g->t;
	uint64_t end = seq + count, s;
	enum fate f = FATE_NEW;

	t->last_ns = now_ns;
	expire(g, now_ns);
	/* a jump far ahead, or back beyond the whole history: the source restarted */
	if (t->started && ((seq > t->next && seq - t->next > MCFAN_FEED_RESET_JUMP) ||
			   (seq < t->next && t->next - seq > t->cap))) {
		session_end(g);
		g->c.resets++;
	}
	if (!t->started) {
		t->started = true;
		t->base = seq;
		t->next = seq;
		t->settled = seq;
		clear_range(t, 0, t->cap);
	}
	for (s = seq; s < end && s < t->next; s++)
		f = old_number(g, s);
	if (end > t->next || (count == 0 && seq > t->next)) {
		uint64_t from = RTE_MAX(seq, t->next);

		advance(g, from, RTE_MAX(end, from), now_ns);
		for (s = from; s < end; s++) {
			bit_set(t->bits, t->mask, s);
			g->c.received++;
		}
		f = FATE_NEW;
	}
	if (fate != NULL)
		*fate = f;
}

/* RFC 3550 6.4.1 / A.8: J += (|D| - J) / 16, J kept times 16. */
static void
jitter_add(struct mcfan_feed_group *g, int64_t d)
{
	struct tracker *t = &g->t;
	uint64_t a = (uint64_t)(d < 0 ? -d : d);

	t->jitter_q4 += a - ((t->jitter_q4 + (1u << (JITTER_SHIFT - 1))) >> JITTER_SHIFT);
	g->c.jitter_ns = t->jitter_q4 >> JITTER_SHIFT;
}

/* Jitter from arrival spacing: D = this spacing - the previous one. */
static void
jitter_spacing(struct mcfan_feed_group *g, uint64_t now_ns)
{
	struct tracker *t = &g->t;
	uint64_t gap = now_ns - t->prev_ns;

	if (t->jit_n >= 2)
		jitter_add(g, (int64_t)gap - (int64_t)t->prev_gap_ns);
	if (t->jit_n >= 1)
		t->prev_gap_ns = gap;
	if (t->jit_n < 2)
		t->jit_n++;
	t->prev_ns = now_ns;
}

/* One transit sample, D = (Rj - Ri) - (Sj - Si) in ns, when there is a previous datagram
 * with a send time (sample; sent_d_ns = Sj - Si); the arrival kept for the next. */
static void
jitter_transit(struct mcfan_feed_group *g, uint64_t now_ns, bool sample, int64_t sent_d_ns)
{
	struct tracker *t = &g->t;

	if (sample)
		jitter_add(g, (int64_t)(now_ns - t->prev_ns) - sent_d_ns);
	else if (t->jit_n == 0)
		t->jit_n = 1;
	t->prev_ns = now_ns;
}

/* Jitter from RTP timestamps: D = (Rj - Ri) - (Sj - Si), in ns. */
static void
jitter_rtp(struct mcfan_feed_group *g, uint64_t now_ns, uint32_t ts)
{
	struct tracker *t = &g->t;
	int64_t ds = (int64_t)(int32_t)(ts - t->prev_ts);

	jitter_transit(g, now_ns, t->jit_n >= 1,
		       ds * (int64_t)FEED_NS_PER_S / (int64_t)g->spec.clock_hz);
	t->prev_ts = ts;
}

/* Extend a bits-wide number (bits < 64) to 64 bits, near the highest seen (RFC 3550 A.1 for
 * RTP's 16 bits: MAX_DROPOUT forward, MAX_MISORDER back, a large jump restarts the sequence
 * only when the next number follows it). Returns false for a number to ignore. */
static bool
extend(struct mcfan_feed_group *g, uint64_t raw, unsigned int bits, bool rtp, uint64_t *out)
{
	struct ext_state *x = &g->ext;
	uint64_t mod = UINT64_C(1) << bits, mask = mod - 1;
	uint64_t udelta = (raw - x->max) & mask;

	if (!x->init || !g->t.started) {
		x->init = true;
		x->max = raw;
		x->bad_seq = RTP_SEQ_MOD + 1;
		*out = raw;
		return true;
	}
	if (rtp) {
		if (udelta < RTP_MAX_DROPOUT) {
			x->max += udelta;
		} else if (udelta <= RTP_SEQ_MOD - RTP_MAX_MISORDER) {
			if (raw != x->bad_seq) {
				x->bad_seq = (uint32_t)((raw + 1) & mask);
				return false;
			}
			/* two in order after a jump: the source restarted (A.1) */
			session_end(g);
			g->c.resets++;
			x->max = raw;
			x->bad_seq = RTP_SEQ_MOD + 1;
			*out = raw;
			return true;
		} else {
			/* duplicate or misordered: just behind max */
			*out = x->max - ((x->max - raw) & mask);
			return true;
		}
		*out = x->max;
		return true;
	}
	if (udelta < mod / 2) {
		x->max += udelta;
		*out = x->max;
	} else {
		*out = x->max - ((x->max - raw) & mask);
	}
	return true;
}

static uint64_t
load_be(const uint8_t *p, unsigned int w)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < w; i++)
		v = (v << 8) | p[i];
	return v;
}

static uint64_t
load_le(const uint8_t *p, unsigned int w)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = w; i > 0; i--)
		v = (v << 8) | p[i - 1];
	return v;
}

/* Jitter from the sender's own send times (iperf2's tv_sec/tv_usec), as iperf2's server
 * computes it: D = (Rj - Ri) - (Sj - Si), in ns (RFC 3550 6.4.1 with send times for RTP
 * timestamps). A datagram without a send time (0.000000: a sender that does not fill it)
 * falls back to arrival spacing. */
static void
jitter_sent(struct mcfan_feed_group *g, uint64_t now_ns, const uint8_t *p)
{
	struct tracker *t = &g->t;
	uint64_t sec = load_be(p + IPERF2_SEC_OFF, 4), usec = load_be(p + IPERF2_USEC_OFF, 4);
	uint64_t sent_ns = sec * FEED_NS_PER_S + usec * 1000u;

	if (sent_ns == 0) {
		jitter_spacing(g, now_ns);
		t->prev_sent_ns = 0;
		return;
	}
	jitter_transit(g, now_ns, t->jit_n >= 1 && t->prev_sent_ns != 0,
		       (int64_t)(sent_ns - t->prev_sent_ns));
	t->prev_sent_ns = sent_ns;
}

/*
 * Place an 8-byte generic number in the tracker's space, where numbers only grow: at
 * REBASE_MID plus its signed distance from the session's first number (modulo 2^64, so
 * 2^64 - 1 and the wrap to 0 are counted like any other step). A number more than
 * REBASE_FAR from the origin starts afresh (a reset, as any jump of more than
 * MCFAN_FEED_RESET_JUMP would be).
 */
static uint64_t
rebase64(struct mcfan_feed_group *g, uint64_t raw)
{
	int64_t d;

	if (!g->rebased || !g->t.started) {
		g->rebased = true;
		g->origin = raw;
		return REBASE_MID;
	}
	d = (int64_t)(raw - g->origin);
	if (d > (int64_t)REBASE_FAR || d < -(int64_t)REBASE_FAR) {
		session_end(g);
		g->c.resets++;
		g->origin = raw;
		return REBASE_MID;
	}
	return REBASE_MID + (uint64_t)d;
}

/* A new session begins (a new SSRC or MoldUDP64 session, a new iperf2 test): counted, and its
 * jitter starts from 0, as a new source's (RFC 3550 6.4.1 and A.8 keep it per SSRC; iperf2's
 * server per test). The old session's end keeps its jitter (the report after a test shows
 * it); a reset of the sequence in one session (an A.1 resync, a jump) keeps it too. */
static void
session_new(struct mcfan_feed_group *g)
{
	g->c.sessions++;
	g->t.jitter_q4 = 0;
	g->c.jitter_ns = 0;
}

/* A new session (SSRC, MoldUDP64 session): the old one ends. */
static void
session_check(struct mcfan_feed_group *g, uint64_t id)
{
	if (g->have_session && g->session != id) {
		session_end(g);
		session_new(g);
		g->ext.init = false;
	}
	g->session = id;
	g->have_session = true;
}

/* FNV-1a over the MoldUDP64 session bytes: a 64-bit name for a 10-byte session. */
static uint64_t
session_hash(const uint8_t *p, unsigned int n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/*
 * The number of an iperf2 datagram, negative for an end of test (-(next number)). The
 * 64-bit form (iperf 2.1: id2 holds the upper 32 bits) ends with a negative 64-bit number;
 * the 32-bit form (iperf 2.0 without --udp-counters-64bit) with a negative 32-bit id, id2
 * being 0 or the payload's own bytes. Such an id is taken as the 32-bit form's end when its
 * 64-bit reading would be a jump ahead beyond MCFAN_FEED_RESET_JUMP (a reset) while -(id), in
 * the same upper half, lands within the window's memory of the next expected number (after
 * an end: when it is that end again).
 */
static int64_t
iperf2_id(const struct mcfan_feed_group *g, const uint8_t *p)
{
	const struct tracker *t = &g->t;
	uint64_t hi = load_be(p + 12, 4) << 32, lo = load_be(p, 4), raw = hi | lo, next;

	if ((int64_t)raw < 0 || lo < (UINT64_C(1) << 31))
		return (int64_t)raw;
	next = hi | ((UINT64_C(1) << 32) - lo);
	if (t->ended) /* iperf2 repeats its end, waiting for the server's ack */
		return next == t->end_next ? -(int64_t)next : (int64_t)raw;
	if (!t->started || raw <= t->next || raw - t->next <= MCFAN_FEED_RESET_JUMP)
		return (int64_t)raw;
	if (next + t->cap >= t->next && next <= t->next + t->cap)
		return -(int64_t)next;
	return (int64_t)raw;
}

static int
iperf2_datagram(struct mcfan_feed_group *g, const uint8_t *p, uint32_t len, uint64_t now_ns)
{
	int64_t id;

	if (len < IPERF2_HDR_LEN)
		return -EINVAL;
	id = iperf2_id(g, p);
	if (id < 0) {
		g->c.ends++;
		if (!g->t.ended && g->t.started) {
			/* -(next number): a heartbeat, then the test is over */
			track(g, UINT64_C(0) - (uint64_t)id, 0, now_ns, NULL);
			session_end(g);
			g->t.ended = true;
			g->t.end_next = UINT64_C(0) - (uint64_t)id;
		}
		return 0;
	}
	if (g->t.ended) {
		g->t.ended = false;
		session_new(g);
	}
	track(g, (uint64_t)id, 1, now_ns, NULL);
	jitter_sent(g, now_ns, p);
	return 0;
}

/*
 * The session of a datagram of line `line` of an A/B pair (line < 0: a group alone,
 * session_check()). The lines may name one session differently (each its SSRC): a session
 * changes when a line's own id changes; the first line on a new session ends the merged
 * one, and a line still on an older session than the merged stream (a lagging copy) is not
 * tracked (the caller counts it late). Returns 0, or 1 for a datagram not to track.
 */
static int
session_of_line(struct mcfan_feed_group *g, int line, uint64_t id)
{
	struct tracker *t = &g->t;

	if (line < 0) {
		session_check(g, id);
		return 0;
	}
	if (t->line_have_session[line] && t->line_session[line] != id)
		t->line_test[line]++;
	t->line_session[line] = id;
	t->line_have_session[line] = true;
	if (t->line_test[line] != t->test) {
		if ((int32_t)(t->line_test[line] - t->test) < 0)
			return 1;
		session_end(g);
		session_new(g);
		g->ext.init = false;
		t->test = t->line_test[line];
	}
	return 0;
}

static int
rtp_datagram(struct mcfan_feed_group *g, const uint8_t *p, uint32_t len, uint64_t now_ns,
	     int line, uint64_t *seq_out)
{
	uint64_t ext;

	if (len < RTP_HDR_LEN || (p[0] >> 6) != RTP_VERSION)
		return -EINVAL;
	if (session_of_line(g, line, load_be(p + 8, 4)) != 0) {
		g->c.received++;
		g->c.late++;
		return 1;
	}
	if (!extend(g, load_be(p + 2, 2), 16, true, &ext))
		return 1; /* held back by A.1's large-jump rule */
	*seq_out = ext;
	jitter_rtp(g, now_ns, (uint32_t)load_be(p + 4, 4));
	return 0;
}

static int
mpegts_datagram(struct mcfan_feed_group *g, const uint8_t *p, uint32_t len, uint64_t now_ns)
{
	uint32_t off, pid;
	uint8_t afc, cc, st, exp, miss;

	if (len == 0 || len % TS_PKT_LEN != 0)
		return -EINVAL;
	for (off = 0; off < len; off += TS_PKT_LEN)
		if (p[off] != TS_SYNC)
			return -EINVAL;
	for (off = 0; off < len; off += TS_PKT_LEN) {
		const uint8_t *h = p + off;

		pid = ((uint32_t)(h[1] & 0x1f) << 8) | h[2];
		afc = (h[3] >> 4) & 3;
		cc = h[3] & TS_CC_MASK;
		if (pid == TS_PID_NULL || (afc & 1) == 0)
			continue; /* no payload: the counter does not move (2.4.3.3) */
		st = g->ts_cc[pid];
		/* adaptation field with discontinuity_indicator (2.4.3.4) */
		if ((afc & 2) != 0 && h[4] > 0 && (h[5] & 0x80) != 0 && (st & TS_SEEN) != 0) {
			g->c.resets++;
			st = 0;
		}
		if ((st & TS_SEEN) == 0) {
			g->ts_cc[pid] = TS_SEEN | cc;
			g->c.expected++;
			g->c.received++;
			continue;
		}
		exp = (uint8_t)(((st & TS_CC_MASK) + 1) % TS_CC_MOD);
		if (cc == (st & TS_CC_MASK) && (st & TS_DUP) == 0) {
			g->c.duplicates++;
			g->ts_cc[pid] = st | TS_DUP;
			continue;
		}
		if (cc != exp) {
			miss = (uint8_t)((cc - exp) & TS_CC_MASK);
			g->c.lost += miss;
			g->c.expected += miss;
			g->c.gaps++;
			g->c.gap_hist[log2_bucket(miss, MCFAN_FEED_GAP_BUCKETS)]++;
			log_gap(g, exp, (exp + miss - 1u) & TS_CC_MASK, now_ns, miss, pid);
		}
		g->c.expected++;
		g->c.received++;
		g->ts_cc[pid] = TS_SEEN | cc;
	}
	jitter_spacing(g, now_ns);
	return 0;
}

/*
 * Do the n message blocks of a MoldUDP64 datagram fit its len bytes? Each block is a 2-byte
 * length, then that many bytes of message (MoldUDP64 1.00): at least 2 * n bytes after the
 * header (checked first, which bounds the walk to (len - 20) / 2 blocks), and no length
 * field that runs past the end. Bytes after the last block are allowed (padding).
 */
static bool
mold_blocks_fit(const uint8_t *p, uint32_t len, uint32_t n)
{
	uint32_t off = MOLD_HDR_LEN, i;

	if ((uint64_t)n * 2 + MOLD_HDR_LEN > len)
		return false;
	for (i = 0; i < n; i++) {
		if (off + 2 > len)
			return false;
		off += 2 + (uint32_t)load_be(p + off, 2);
		if (off > len)
			return false;
	}
	return true;
}

static int
mold_datagram(struct mcfan_feed_group *g, const uint8_t *p, uint32_t len, uint64_t now_ns,
	      int line, uint64_t *seq, uint32_t *count)
{
	uint32_t n;
	int stale;

	if (len < MOLD_HDR_LEN)
		return -EINVAL;
	n = (uint32_t)load_be(p + MOLD_SESSION_LEN + 8, 2);
	/* a count whose message blocks do not fit the datagram is not MoldUDP64: malformed,
	 * before its session name is taken (an end of session carries no message) */
	if (n != MOLD_END && !mold_blocks_fit(p, len, n))
		return -EINVAL;
	stale = session_of_line(g, line, session_hash(p, MOLD_SESSION_LEN));
	*seq = load_be(p + MOLD_SESSION_LEN, 8);
	if (n == MOLD_END) {
		g->c.ends++;
		if (g->t.started && stale == 0)
			track(g, *seq, 0, now_ns, NULL);
		/* a pair's session goes on: the other line's copies may still come; a new
		 * session name on a line ends it (session_of_line()) */
		if (line < 0)
			session_end(g);
		return 1;
	}
	if (n > g->t.p.window_pkts)
		return -EINVAL; /* more messages than the window holds: not tracked */
	if (stale != 0) {
		g->c.received += n;
		g->c.late += n;
		return 1;
	}
	if (n == 0)
		g->c.heartbeats++;
	*count = n;
	jitter_spacing(g, now_ns);
	return 0;
}

/*
 * An iperf2 datagram of line `line` of an A/B pair. The merged stream's test ends when a line
 * that sent its end-of-test sends data again (a new test): then the tail is settled and a
 * session counted, as for one group. Until then an end is a heartbeat only (the other line's
 * copies may still come). A line still on an older test than the merged stream (a lagging
 * copy, a repeated end) is not tracked: its data count late. Returns 0 with *seq to track,
 * 1 for a datagram not tracked, -EINVAL for a malformed one.
 */
static int
iperf2_arb_datagram(struct mcfan_feed_group *g, const uint8_t *p, uint32_t len,
		    uint64_t now_ns, unsigned int line, uint64_t *seq)
{
	struct tracker *t = &g->t;
	uint64_t raw;

	if (len < IPERF2_HDR_LEN)
		return -EINVAL;
	raw = (uint64_t)iperf2_id(g, p);
	if ((int64_t)raw < 0) {
		g->c.ends++;
		if (t->line_test[line] == t->test && !t->line_ended[line] && t->started)
			/* -(next number): a heartbeat for the merged stream */
			track(g, UINT64_C(0) - raw, 0, now_ns, NULL);
		t->line_ended[line] = true;
		return 1;
	}
	if (t->line_ended[line]) {
		t->line_ended[line] = false;
		t->line_test[line]++;
	}
	if (t->line_test[line] != t->test) {
		if ((int32_t)(t->line_test[line] - t->test) < 0) {
			g->c.received++;
			g->c.late++;
			return 1;
		}
		/* the first line on a new test: the merged stream's test is over */
		session_end(g);
		session_new(g);
		t->test = t->line_test[line];
	}
	*seq = raw;
	jitter_sent(g, now_ns, p);
	return 0;
}

/* Parse and track one datagram; fate (may be NULL) as track(). On 0, *seq_out and
 * *count_out are the numbers it brought: [seq, seq + count) (count 0: a heartbeat). */
static int
datagram(struct mcfan_feed_group *g, const uint8_t *p, uint32_t len, uint64_t now_ns,
	 enum fate *fate, unsigned int line, uint64_t *seq_out, uint32_t *count_out)
{
	const struct mcfan_feed_spec *s = &g->spec;
	uint64_t seq = 0, raw;
	uint32_t count = 1;
	int ret = 0;

	g->c.datagrams++;
	if (fate != NULL)
		*fate = FATE_DUP;
	switch (s->kind) {
	case MCFAN_FEED_IPERF2:
		if (fate == NULL)
			return iperf2_datagram(g, p, len, now_ns);
		ret = iperf2_arb_datagram(g, p, len, now_ns, line, &seq);
		break;
	case MCFAN_FEED_RTP:
		ret = rtp_datagram(g, p, len, now_ns, fate != NULL ? (int)line : -1, &seq);
		break;
	case MCFAN_FEED_MPEGTS:
		return mpegts_datagram(g, p, len, now_ns);
	case MCFAN_FEED_MOLDUDP64:
		ret = mold_datagram(g, p, len, now_ns, fate != NULL ? (int)line : -1, &seq, &count);
		break;
	case MCFAN_FEED_GENERIC:
		if ((uint32_t)s->offset + s->width > len)
			return -EINVAL;
		raw = s->little_endian ? load_le(p + s->offset, s->width) :
			load_be(p + s->offset, s->width);
		if (s->width < 8) {
			if (!extend(g, raw, s->width * 8u, false, &seq))
				return 1;
		} else {
			seq = rebase64(g, raw);
		}
		jitter_spacing(g, now_ns);
		break;
	default:
		return -EINVAL;
	}
	if (ret != 0)
		return ret;
	track(g, seq, count, now_ns, fate);
	*seq_out = seq;
	*count_out = count;
	return 0;
}

static int
group_init(struct mcfan_feed_group *g, const struct mcfan_feed_spec *spec,
	   const struct mcfan_feed_params *params, uint16_t owner)
{
	uint32_t cap = CAP_MIN;

	if (spec == NULL || params == NULL || spec->kind == MCFAN_FEED_OFF ||
	    spec->kind >= MCFAN_FEED_KINDS || params->window_pkts == 0 ||
	    params->window_pkts > MCFAN_FEED_WINDOW_PKTS_MAX || params->window_ns == 0 ||
	    params->window_ns > MCFAN_FEED_WINDOW_NS_MAX ||
	    (spec->kind == MCFAN_FEED_RTP && spec->clock_hz == 0))
		return -EINVAL;
	while (cap < 2 * params->window_pkts)
		cap *= 2;
	rte_seqcount_init(&g->seq);
	g->spec = *spec;
	g->owner = owner;
	g->t.p = *params;
	g->t.cap = cap;
	g->t.mask = cap - 1;
	g->t.bits = calloc(cap / 64, sizeof(uint64_t));
	if (g->t.bits == NULL)
		return -ENOMEM;
	if (spec->kind == MCFAN_FEED_MPEGTS) {
		g->ts_cc = calloc(MCFAN_FEED_TS_PIDS, 1);
		if (g->ts_cc == NULL)
			return -ENOMEM;
	}
	return 0;
}

static void
group_fini(struct mcfan_feed_group *g)
{
	unsigned int l;

	free(g->t.bits);
	for (l = 0; l < 2; l++)
		free(g->t.line_bits[l]);
	free(g->t.first_ns);
	free(g->t.first_line);
	free(g->ts_cc);
}

struct mcfan_feed_group *
mcfan_feed_group_create(const struct mcfan_feed_spec *spec,
			const struct mcfan_feed_params *params, uint16_t owner)
{
	struct mcfan_feed_group *g = calloc(1, sizeof(*g));
	int ret;

	if (g == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ret = group_init(g, spec, params, owner);
	if (ret < 0) {
		group_fini(g);
		free(g);
		rte_errno = -ret;
		return NULL;
	}
	return g;
}

void
mcfan_feed_group_free(struct mcfan_feed_group *g)
{
	if (g == NULL)
		return;
	group_fini(g);
	free(g);
}

uint16_t
mcfan_feed_group_owner(const struct mcfan_feed_group *g)
{
	return g->owner;
}

const struct mcfan_feed_spec *
mcfan_feed_group_spec(const struct mcfan_feed_group *g)
{
	return &g->spec;
}

int
mcfan_feed_group_datagram(struct mcfan_feed_group *g, const uint8_t *payload, uint32_t len,
			  uint64_t now_ns)
{
	uint64_t seq;
	uint32_t count;
	int ret;

	rte_seqcount_write_begin(&g->seq);
	ret = datagram(g, payload, len, now_ns, NULL, 0, &seq, &count);
	if (ret < 0)
		g->c.malformed++;
	rte_seqcount_write_end(&g->seq);
	return ret < 0 ? -EINVAL : 0;
}

/* Is there something for a tick to settle: a gap whose time ran out, or a stream silent for
 * the time window with numbers not yet settled (for an A/B pair, a line's misses)? */
static bool
tick_due(const struct tracker *t, uint64_t now_ns)
{
	if (t->open_n > 0 && now_ns - t->open[t->open_head].t_ns >= t->p.window_ns)
		return true;
	return t->started && t->settled < t->next && now_ns - t->last_ns >= t->p.window_ns;
}

/* The tick's work: timed-out gaps, then, after a silence of the window, everything. */
static void
tick(struct mcfan_feed_group *g, uint64_t now_ns)
{
	expire(g, now_ns);
	if (g->t.started && now_ns - g->t.last_ns >= g->t.p.window_ns)
		settle(g, g->t.next);
}

void
mcfan_feed_group_tick(struct mcfan_feed_group *g, uint64_t now_ns)
{
	if (!tick_due(&g->t, now_ns))
		return;
	rte_seqcount_write_begin(&g->seq);
	tick(g, now_ns);
	rte_seqcount_write_end(&g->seq);
}

/*
 * Seqcount copy of len bytes; -EAGAIN after READ_TRIES, and dst then holds a per-word copy:
 * each 64-bit word as the writer last stored it (one atomic load each, so a counter is a
 * value it really had, never torn), the words not all from the same moment. Before, a
 * writer busy at every try (a feed at millions of frames a second) left dst as it was: the
 * caller's uninitialised stack, shown as counters of 10^13 and more.
 */
static int
seq_copy(const rte_seqcount_t *seq, const void *src, void *dst, size_t len)
{
	unsigned int tries;
	uint64_t w;
	uint32_t sn;
	size_t i;

	for (tries = 0; tries < READ_TRIES; tries++) {
		sn = rte_seqcount_read_begin(seq);
		if ((sn & 1) == 0) {
			memcpy(dst, src, len);
			if (!rte_seqcount_read_retry(seq, sn))
				return 0;
		} else {
			rte_pause();
		}
	}
	if (len % sizeof(uint64_t) != 0 || ((uintptr_t)src % sizeof(uint64_t)) != 0) {
		memcpy(dst, src, len); /* not reached: every copy here is of 64-bit words */
		return -EAGAIN;
	}
	for (i = 0; i < len; i += sizeof(w)) {
		w = __atomic_load_n((const uint64_t *)RTE_PTR_ADD(src, i), __ATOMIC_RELAXED);
		memcpy(RTE_PTR_ADD(dst, i), &w, sizeof(w));
	}
	return -EAGAIN;
}

int
mcfan_feed_group_read(const struct mcfan_feed_group *g, struct mcfan_feed_counters *c,
		      struct mcfan_feed_gap *log, unsigned int max)
{
	struct {
		struct mcfan_feed_counters c;
		struct mcfan_feed_gap log[MCFAN_FEED_GAP_LOG];
	} copy;
	unsigned int n, i, first;
	int ret;

	RTE_BUILD_BUG_ON(offsetof(struct mcfan_feed_group, log) !=
			 offsetof(struct mcfan_feed_group, c) + sizeof(struct mcfan_feed_counters));
	ret = seq_copy(&g->seq, &g->c, &copy, sizeof(copy));
	*c = copy.c;
	n = (unsigned int)RTE_MIN(copy.c.gap_log_total, (uint64_t)MCFAN_FEED_GAP_LOG);
	n = RTE_MIN(n, max);
	/* the newest n, oldest first */
	first = (unsigned int)((copy.c.gap_log_total - n) % MCFAN_FEED_GAP_LOG);
	for (i = 0; i < n; i++)
		log[i] = copy.log[(first + i) % MCFAN_FEED_GAP_LOG];
	return ret < 0 ? ret : (int)n;
}

/* ---- frames ---- */

#define ETH_HDR_LEN 14
#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_IPV6 0x86dd
#define ETH_TYPE_VLAN 0x8100       /* IEEE 802.1Q */
#define ETH_TYPE_QINQ 0x88a8       /* IEEE 802.1ad */
#define ETH_TYPE_QINQ_OLD 0x9100
#define VLAN_TAG_LEN 4
#define IPV4_MIN_HDR_LEN 20
#define IPV6_HDR_LEN 40
#define IP_PROTO_UDP 17
#define IP6_HOPOPTS 0
#define IP6_ROUTING 43
#define IP6_FRAGMENT 44
#define IP6_DSTOPTS 60
#define IP6_FRAG_LEN 8
#define IP6_EXT_MAX 8              /* extension headers followed at most */
#define UDP_HDR_LEN 8

int
mcfan_feed_udp_payload(const uint8_t *f, uint32_t len, uint32_t *off, uint32_t *plen)
{
	uint32_t o = ETH_HDR_LEN, ulen;
	uint16_t type;
	unsigned int tags = 0, ext = 0;
	uint8_t proto;

	if (len < ETH_HDR_LEN)
		return -EINVAL;
	type = (uint16_t)load_be(f + 12, 2);
	while ((type == ETH_TYPE_VLAN || type == ETH_TYPE_QINQ || type == ETH_TYPE_QINQ_OLD) &&
	       tags < MCFAN_MAX_VLAN_TAGS) {
		if (len < o + VLAN_TAG_LEN)
			return -EINVAL;
		type = (uint16_t)load_be(f + o + 2, 2);
		o += VLAN_TAG_LEN;
		tags++;
	}
	if (type == ETH_TYPE_IPV4) {
		if (len < o + IPV4_MIN_HDR_LEN || (f[o] & 0x0f) < 5)
			return -EINVAL;
		proto = f[o + 9];
		o += (uint32_t)(f[o] & 0x0f) * 4;
	} else if (type == ETH_TYPE_IPV6) {
		if (len < o + IPV6_HDR_LEN)
			return -EINVAL;
		proto = f[o + 6];
		o += IPV6_HDR_LEN;
		while ((proto == IP6_HOPOPTS || proto == IP6_ROUTING || proto == IP6_DSTOPTS ||
			proto == IP6_FRAGMENT) && ext++ < IP6_EXT_MAX) {
			if (len < o + 8)
				return -EINVAL;
			uint32_t hl = proto == IP6_FRAGMENT ? IP6_FRAG_LEN :
				((uint32_t)f[o + 1] + 1) * 8;

			proto = f[o];
			o += hl;
		}
	} else {
		return -EINVAL;
	}
	if (proto != IP_PROTO_UDP || len < o + UDP_HDR_LEN)
		return -EINVAL;
	ulen = (uint32_t)load_be(f + o + 4, 2);
	if (ulen < UDP_HDR_LEN)
		return -EINVAL;
	*off = o + UDP_HDR_LEN;
	*plen = RTE_MIN(ulen - UDP_HDR_LEN, len - *off);
	return 0;
}

/* ---- A/B arbitration ---- */

struct mcfan_feed_arb *
mcfan_feed_arb_create(const struct mcfan_feed_spec *spec, const struct mcfan_feed_params *params,
		      uint16_t owner)
{
	struct mcfan_feed_arb *a;
	unsigned int l;
	int ret;

	if (spec == NULL || spec->kind == MCFAN_FEED_MPEGTS) {
		rte_errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ret = group_init(&a->g, spec, params, owner);
	if (ret == 0) {
		for (l = 0; l < 2; l++)
			a->g.t.line_bits[l] = calloc(a->g.t.cap / 64, sizeof(uint64_t));
		a->g.t.first_ns = calloc(a->g.t.cap, sizeof(uint64_t));
		a->g.t.first_line = calloc(a->g.t.cap, 1);
		if (a->g.t.line_bits[0] == NULL || a->g.t.line_bits[1] == NULL ||
		    a->g.t.first_ns == NULL || a->g.t.first_line == NULL)
			ret = -ENOMEM;
	}
	if (ret < 0) {
		group_fini(&a->g);
		free(a);
		rte_errno = -ret;
		return NULL;
	}
	return a;
}

void
mcfan_feed_arb_free(struct mcfan_feed_arb *a)
{
	if (a == NULL)
		return;
	group_fini(&a->g);
	free(a);
}

static void
arb_publish(struct mcfan_feed_arb *a)
{
	a->out.merged = a->g.c;
	memcpy(a->out.line, a->g.t.line, sizeof(a->out.line));
	memcpy(a->out.skew_hist, a->g.t.skew_hist, sizeof(a->out.skew_hist));
	memcpy(a->out.skew_max_ns, a->g.t.skew_max_ns, sizeof(a->out.skew_max_ns));
}

int
mcfan_feed_arb_datagram(struct mcfan_feed_arb *a, unsigned int line, const uint8_t *payload,
			uint32_t len, uint64_t now_ns)
{
	struct tracker *t = &a->g.t;
	enum fate f = FATE_DUP;
	uint64_t seq = 0, s, skew, firsts = 0;
	uint32_t count = 0;
	unsigned int other = line ^ 1u, sign, i;
	/* the jitter of the arbitrated stream: a datagram that brought nothing first (a copy
	 * the other line had, a heartbeat) takes back its sample */
	const unsigned int jit_n = t->jit_n;
	const uint64_t prev_ns = t->prev_ns, prev_gap_ns = t->prev_gap_ns;
	const uint64_t jitter_q4 = t->jitter_q4, jitter_ns = a->g.c.jitter_ns;
	const uint32_t prev_ts = t->prev_ts;
	const uint64_t prev_sent_ns = t->prev_sent_ns;
	int ret;

	if (line > 1)
		return -EINVAL;
	rte_seqcount_write_begin(&a->g.seq);
	ret = datagram(&a->g, payload, len, now_ns, &f, line, &seq, &count);
	if (ret < 0)
		a->g.c.malformed++;
	/*
	 * Each number the datagram brought (a MoldUDP64 datagram: every message; a heartbeat:
	 * none) that the bitmap still holds. A number no line had before went on from this
	 * line (the merged bitmap is the union of the lines' bitmaps, so this is the merged
	 * fate of each number); one only the other line had is an arbitration duplicate.
	 */
	for (s = seq; ret == 0 && t->started && s - seq < count; s++) {
		if (t->next - s > t->cap || s < t->base)
			continue;
		i = (unsigned int)(s & t->mask);
		if (!bit_get(t->line_bits[line], t->mask, s) &&
		    !bit_get(t->line_bits[other], t->mask, s)) {
			t->line[line].first_arrivals++;
			firsts++;
			t->first_ns[i] = now_ns;
			t->first_line[i] = (uint8_t)line;
		} else if (!bit_get(t->line_bits[line], t->mask, s) &&
			   t->first_line[i] == other) {
			/* the other line had it first: an arbitration duplicate; skew B - A */
			t->line[line].arb_duplicates++;
			skew = now_ns - t->first_ns[i];
			sign = line == 1 ? 0 : 1;
			t->skew_hist[sign][log2_bucket(skew, MCFAN_FEED_SKEW_BUCKETS)]++;
			t->skew_max_ns[sign] = RTE_MAX(t->skew_max_ns[sign], skew);
		}
		bit_set(t->line_bits[line], t->mask, s);
	}
	if (firsts == 0 && t->started) {
		t->jit_n = jit_n;
		t->prev_ns = prev_ns;
		t->prev_gap_ns = prev_gap_ns;
		t->jitter_q4 = jitter_q4;
		t->prev_ts = prev_ts;
		t->prev_sent_ns = prev_sent_ns;
		a->g.c.jitter_ns = jitter_ns;
	}
	arb_publish(a);
	rte_seqcount_write_end(&a->g.seq);
	return ret < 0 ? -EINVAL : 0;
}

void
mcfan_feed_arb_tick(struct mcfan_feed_arb *a, uint64_t now_ns)
{
	if (!tick_due(&a->g.t, now_ns))
		return;
	rte_seqcount_write_begin(&a->g.seq);
	tick(&a->g, now_ns);
	arb_publish(a);
	rte_seqcount_write_end(&a->g.seq);
}

int
mcfan_feed_arb_read(const struct mcfan_feed_arb *a, struct mcfan_feed_arb_counters *c)
{
	return seq_copy(&a->g.seq, &a->out, c, sizeof(*c));
}

uint64_t
mcfan_feed_skew_quantile_ns(const uint64_t *hist, uint64_t max_ns, unsigned int permille)
{
	RTE_BUILD_BUG_ON(MCFAN_FEED_SKEW_BUCKETS != MCFAN_LAT_BUCKETS);
	return mcfan_lat_quantile_ns(hist, max_ns, permille);
}
