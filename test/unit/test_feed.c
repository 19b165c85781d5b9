/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Unit tests of feed quality (lib/feed/mcfan_feed.h): kind parsing, each extractor on
 * datagrams built here byte by byte from its format, and the tracker's counters: gaps
 * filled inside the window (reordered), gaps settled by packets and by time (lost), late
 * arrivals, duplicates, resets, sessions, end-of-test datagrams, jitter, the gap log, and
 * A/B arbitration (delivered = union, gaps = intersection).
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "mcfan_feed.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

#define MS 1000000ULL

static const struct mcfan_feed_params params_default = {
	.window_pkts = 64, .window_ns = 100 * MS,
};

static void
put_be(uint8_t *p, uint64_t v, unsigned int w)
{
	unsigned int i;

	for (i = 0; i < w; i++)
		p[i] = (uint8_t)(v >> (8 * (w - 1 - i)));
}

/* iperf2: id at 0, tv_sec 4, tv_usec 8, id2 at 12 (the upper half). */
static void
iperf2_send(struct mcfan_feed_group *g, int64_t id, uint64_t t_ns)
{
	uint8_t p[64] = {0};

	put_be(p, (uint64_t)id & 0xffffffffu, 4);
	put_be(p + 12, (uint64_t)id >> 32, 4);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, p, sizeof(p), t_ns), 0);
}

/* iperf2 with a send time (tv_sec, tv_usec) of sent_us microseconds. */
static void
iperf2_send_at(struct mcfan_feed_group *g, int64_t id, uint64_t sent_us, uint64_t t_ns)
{
	uint8_t p[64] = {0};

	put_be(p, (uint64_t)id & 0xffffffffu, 4);
	put_be(p + 4, sent_us / 1000000u, 4);
	put_be(p + 8, sent_us % 1000000u, 4);
	put_be(p + 12, (uint64_t)id >> 32, 4);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, p, sizeof(p), t_ns), 0);
}

static struct mcfan_feed_counters
read_counters(const struct mcfan_feed_group *g)
{
	struct mcfan_feed_counters c;

	CHECK(mcfan_feed_group_read(g, &c, NULL, 0) >= 0, "read");
	return c;
}

static struct mcfan_feed_group *
make(const char *kind, const struct mcfan_feed_params *p)
{
	struct mcfan_feed_spec s;
	struct mcfan_feed_group *g;

	CHECK_EQ_INT(mcfan_feed_spec_parse(kind, &s, NULL, 0), 0);
	g = mcfan_feed_group_create(&s, p, 0);
	CHECK(g != NULL, "create %s", kind);
	return g;
}

static void
test_parse(void)
{
	struct mcfan_feed_spec s;
	char err[128], buf[32];
	struct mcfan_feed_params bad = { .window_pkts = 0, .window_ns = 1 };

	CHECK_EQ_INT(mcfan_feed_spec_parse("iperf2", &s, err, sizeof(err)), 0);
	CHECK_EQ_INT(s.kind, MCFAN_FEED_IPERF2);
	CHECK_EQ_INT(mcfan_feed_spec_parse("rtp:8000", &s, err, sizeof(err)), 0);
	CHECK_EQ_INT(s.clock_hz, 8000);
	CHECK_EQ_STR(mcfan_feed_spec_format(&s, buf, sizeof(buf)), "rtp:8000");
	CHECK_EQ_INT(mcfan_feed_spec_parse("8:4:le", &s, err, sizeof(err)), 0);
	CHECK_EQ_INT(s.kind, MCFAN_FEED_GENERIC);
	CHECK_EQ_INT(s.offset, 8);
	CHECK_EQ_INT(s.width, 4);
	CHECK_EQ_INT(s.little_endian, 1);
	CHECK_EQ_STR(mcfan_feed_spec_format(&s, buf, sizeof(buf)), "8:4:le");
	CHECK_EQ_INT(mcfan_feed_spec_parse("0:3:be", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "width '3'") != NULL, "%s", err);
	CHECK_EQ_INT(mcfan_feed_spec_parse("0:4:xe", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "'xe'") != NULL, "%s", err);
	CHECK_EQ_INT(mcfan_feed_spec_parse("rtpx", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "'rtpx' is not a sequence kind") != NULL, "%s", err);
	CHECK_EQ_INT(mcfan_feed_spec_parse("rtp:0", &s, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(mcfan_feed_spec_parse("9999:4:be", &s, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(mcfan_feed_spec_parse(NULL, &s, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(mcfan_feed_spec_parse("off", &s, err, sizeof(err)), 0);
	CHECK_EQ_INT(s.kind, MCFAN_FEED_OFF);
	CHECK(mcfan_feed_group_create(&s, &params_default, 0) == NULL, "off has no state");
	CHECK_EQ_INT(rte_errno, EINVAL);
	CHECK_EQ_INT(mcfan_feed_spec_parse("iperf2", &s, err, sizeof(err)), 0);
	CHECK(mcfan_feed_group_create(&s, &bad, 0) == NULL, "window 0");
}

/* In order, then a hole filled late, a hole never filled, a duplicate. */
static void
test_iperf2_basic(void)
{
	struct mcfan_feed_group *g = make("iperf2", &params_default);
	struct mcfan_feed_counters c;
	struct mcfan_feed_gap log[8];
	int64_t s;
	uint64_t t = 1000 * MS;

	for (s = 1; s <= 10; s++)
		iperf2_send(g, s, t += MS);
	/* 11 and 12 swapped */
	iperf2_send(g, 12, t += MS);
	iperf2_send(g, 11, t += MS);
	/* 13 lost */
	iperf2_send(g, 14, t += MS);
	/* 14 again */
	iperf2_send(g, 14, t += MS);
	for (s = 15; s <= 20; s++)
		iperf2_send(g, s, t += MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.datagrams, 20);
	CHECK_EQ_INT(c.expected, 20);
	CHECK_EQ_INT(c.received, 19);
	CHECK_EQ_INT(c.reordered, 1);
	CHECK_EQ_INT(c.duplicates, 1);
	CHECK_EQ_INT(c.lost, 0);      /* 13 is within both windows still */
	CHECK_EQ_INT(c.pending, 1);
	CHECK_EQ_INT(c.gaps, 2);
	CHECK_EQ_INT(c.gap_hist[0], 2);
	/* the time window runs out */
	mcfan_feed_group_tick(g, t + 200 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.lost, 1);
	CHECK_EQ_INT(c.pending, 0);
	CHECK_EQ_INT(mcfan_feed_group_read(g, &c, log, RTE_DIM(log)), 2);
	CHECK_EQ_INT(log[0].first, 11);
	CHECK_EQ_INT(log[0].last, 11);
	CHECK_EQ_INT(log[0].lost, 0);
	CHECK_EQ_INT(log[1].first, 13);
	CHECK_EQ_INT(log[1].last, 13);
	CHECK_EQ_INT(log[1].lost, 1);
	/* 13 after it was counted lost: late */
	iperf2_send(g, 13, t + 300 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.late, 1);
	CHECK_EQ_INT(c.lost, 1);
	CHECK_EQ_INT(c.received, 20);
	/* the end of the test: -(next) = -21, the first of the FIN datagrams; then more FINs */
	iperf2_send(g, -21, t + 301 * MS);
	iperf2_send(g, -22, t + 302 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.ends, 2);
	CHECK_EQ_INT(c.expected, 20);
	CHECK_EQ_INT(c.lost, 1);
	/* a new test on the same group starts over: a session, not a loss */
	iperf2_send(g, 0, t + 400 * MS);
	iperf2_send(g, 1, t + 401 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.sessions, 1);
	CHECK_EQ_INT(c.expected, 22);
	CHECK_EQ_INT(c.lost, 1);
	mcfan_feed_group_free(g);
}

/* A tail loss is revealed by the FIN's number; the packet window settles gaps too. */
static void
test_iperf2_tail_and_window(void)
{
	struct mcfan_feed_params p = { .window_pkts = 4, .window_ns = 60000 * MS };
	struct mcfan_feed_group *g = make("iperf2", &p);
	struct mcfan_feed_counters c;
	int64_t s;

	for (s = 0; s < 10; s++)
		if (s != 3)
			iperf2_send(g, s, (uint64_t)s * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.lost, 1); /* 3: four later numbers came */
	CHECK_EQ_INT(c.pending, 0);
	/* 10, 11 never sent (lost at the tail); FIN -12 */
	iperf2_send(g, -12, 20 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.expected, 12);
	CHECK_EQ_INT(c.received, 9);
	CHECK_EQ_INT(c.lost, 3);
	CHECK_EQ_INT(c.pending, 0);
	mcfan_feed_group_free(g);
}

/* 64-bit iperf2 ids and a forward jump beyond MCFAN_FEED_RESET_JUMP. */
static void
test_iperf2_reset(void)
{
	struct mcfan_feed_group *g = make("iperf2", &params_default);
	struct mcfan_feed_counters c;

	iperf2_send(g, (int64_t)0x100000000LL, MS);
	iperf2_send(g, (int64_t)0x100000001LL, 2 * MS);
	iperf2_send(g, (int64_t)0x100000001LL + (int64_t)MCFAN_FEED_RESET_JUMP + 5, 3 * MS);
	iperf2_send(g, (int64_t)0x100000001LL + (int64_t)MCFAN_FEED_RESET_JUMP + 6, 4 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.resets, 1);
	CHECK_EQ_INT(c.expected, 4);
	CHECK_EQ_INT(c.lost, 0);
	/* a big gap that is not a reset: settled by packets at once */
	iperf2_send(g, (int64_t)0x100000001LL + (int64_t)MCFAN_FEED_RESET_JUMP + 6 + 1001,
		    5 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.lost, 1000 - 63);
	CHECK_EQ_INT(c.pending, 63);
	CHECK_EQ_INT(c.gap_hist[9], 1); /* 1000: 512..1023 */
	mcfan_feed_group_free(g);
	/* back beyond the bitmap: a restart */
	g = make("iperf2", &params_default);
	iperf2_send(g, 5000, MS);
	iperf2_send(g, 5001, MS);
	iperf2_send(g, 1, 2 * MS);
	iperf2_send(g, 2, 3 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.resets, 1);
	CHECK_EQ_INT(c.expected, 4);
	CHECK_EQ_INT(c.late, 0);
	mcfan_feed_group_free(g);
}

/* iperf2 in the 32-bit form (iperf 2.0 without --udp-counters-64bit): id2 is not the upper
 * half (0 here, or payload bytes), and the end of test is a negative 32-bit id. */
static void
iperf2_send32(struct mcfan_feed_group *g, uint32_t id, uint32_t id2, uint64_t t_ns)
{
	uint8_t p[64] = {0};

	put_be(p, id, 4);
	put_be(p + 12, id2, 4);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, p, sizeof(p), t_ns), 0);
}

/* The 32-bit form's end, -(next number) in 32 bits: an end, not a jump ahead and a reset
 * (before: 0xffffff9b with id2 0 was the number 4294967195, a reset; expected 101, ends 0). */
static void
test_iperf2_end32(void)
{
	const uint32_t id2s[] = { 0, 0x32333435 }; /* zero, or the payload's pattern digits */
	struct mcfan_feed_counters c;
	struct mcfan_feed_group *g;
	unsigned int k;
	uint32_t s;

	for (k = 0; k < RTE_DIM(id2s); k++) {
		g = make("iperf2", &params_default);
		for (s = 1; s <= 100; s++)
			if (s != 50 && s != 99 && s != 100)
				iperf2_send32(g, s, id2s[k], (uint64_t)s * MS);
		/* iperf2 repeats its end (up to 10 times, waiting for the server's ack) */
		for (s = 0; s < 3; s++)
			iperf2_send32(g, (uint32_t)-101, id2s[k], (101 + s) * MS);
		c = read_counters(g);
		CHECK_EQ_INT(c.ends, 3);
		CHECK_EQ_INT(c.resets, 0);
		CHECK_EQ_INT(c.expected, 100);
		CHECK_EQ_INT(c.received, 97);
		CHECK_EQ_INT(c.lost, 3); /* 50, and 99 and 100 at the tail */
		CHECK_EQ_INT(c.pending, 0);
		/* a new test after the end: a session, from 1 again */
		iperf2_send32(g, 1, id2s[k], 200 * MS);
		iperf2_send32(g, 2, id2s[k], 201 * MS);
		c = read_counters(g);
		CHECK_EQ_INT(c.sessions, 1);
		CHECK_EQ_INT(c.resets, 0);
		CHECK_EQ_INT(c.expected, 102);
		mcfan_feed_group_free(g);
	}
	/* a 32-bit id past 2^31 in sequence (2^31 datagrams in) is data, not an end */
	g = make("iperf2", &params_default);
	for (s = 0x7ffffffe; s != 0x80000004; s++)
		iperf2_send32(g, s, 0, MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.ends, 0);
	CHECK_EQ_INT(c.expected, 6);
	CHECK_EQ_INT(c.received, 6);
	mcfan_feed_group_free(g);
}

/* The window's memory: twice the window rounded up to a power of two, at least 64 numbers.
 * A number that comes that far behind the next expected one is late (or a duplicate); one
 * more is a restart. --seq-window 16: 64; the default 1024: 2048; 1000: 2048 too. */
static void
test_window_memory(void)
{
	const uint32_t windows[] = { 16, 1000, 1024 };
	struct mcfan_feed_params p = { .window_ns = 60000 * MS };
	struct mcfan_feed_counters c;
	struct mcfan_feed_group *g;
	uint32_t mem, n, k, d;
	int64_t s;

	for (k = 0; k < RTE_DIM(windows); k++) {
		p.window_pkts = windows[k];
		for (mem = 64; mem < 2 * windows[k]; mem *= 2)
			;
		n = mem + 100;
		for (d = mem; d <= mem + 1; d++) {
			g = make("iperf2", &p);
			for (s = 1; s <= n; s++)
				if (s != (int64_t)(n + 1 - d))
					iperf2_send(g, s, (uint64_t)s * MS);
			iperf2_send(g, (int64_t)(n + 1 - d), (uint64_t)(n + 1) * MS);
			c = read_counters(g);
			CHECK_EQ_INT(c.resets, d == mem ? 0 : 1);
			CHECK_EQ_INT(c.late, d == mem ? 1 : 0);
			CHECK_EQ_INT(c.lost, 1);
			mcfan_feed_group_free(g);
		}
	}
}

/* A restart without an end (docs/feed.md "limits"): inside the window's memory (2048 for the
 * default 1024) its numbers are duplicates; beyond it, a reset. */
static void
test_restart_in_memory(void)
{
	struct mcfan_feed_params p = { .window_pkts = 1024, .window_ns = 60000 * MS };
	const int64_t sent[] = { 500, 2100 };
	struct mcfan_feed_counters c;
	struct mcfan_feed_group *g;
	unsigned int k;
	int64_t s;

	for (k = 0; k < RTE_DIM(sent); k++) {
		g = make("iperf2", &p);
		for (s = 1; s <= sent[k]; s++)
			iperf2_send(g, s, (uint64_t)s * 1000);
		for (s = 1; s <= 300; s++)
			iperf2_send(g, s, (uint64_t)(sent[k] + s) * 1000);
		c = read_counters(g);
		CHECK_EQ_INT(c.duplicates, k == 0 ? 300 : 0);
		CHECK_EQ_INT(c.resets, k == 0 ? 0 : 1);
		CHECK_EQ_INT(c.expected, k == 0 ? 500 : 2400);
		mcfan_feed_group_free(g);
	}
}

static void
rtp_send(struct mcfan_feed_group *g, uint16_t seq, uint32_t ts, uint32_t ssrc, uint64_t t_ns)
{
	uint8_t p[32] = {0};

	p[0] = 0x80;
	p[1] = 96;
	put_be(p + 2, seq, 2);
	put_be(p + 4, ts, 4);
	put_be(p + 8, ssrc, 4);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, p, sizeof(p), t_ns), 0);
}

/* RFC 3550 A.1: wrap of the 16-bit number, misorder across the wrap, a new SSRC, a jump. */
static void
test_rtp(void)
{
	struct mcfan_feed_group *g = make("rtp", &params_default);
	struct mcfan_feed_counters c;
	uint32_t i, ts = 1000;
	uint64_t t = 5 * MS;
	uint8_t bad[12] = {0x40};

	for (i = 0; i < 10; i++)
		rtp_send(g, (uint16_t)(65530 + i), ts += 3000, 7, t += 33 * MS + (i == 5 ? MS : 0));
	c = read_counters(g);
	CHECK_EQ_INT(c.expected, 10);
	CHECK_EQ_INT(c.received, 10);
	/* 90 kHz: 3000 ticks = 33.333 ms; arrivals every 33 ms, one 34: jitter of about 1/3 ms */
	CHECK(c.jitter_ns > 100000 && c.jitter_ns < 1000000, "jitter %" PRIu64, c.jitter_ns);
	/* 65530+10 = 4 (after the wrap) expected; send 5, 6, then 4 late (reordered) */
	rtp_send(g, 5, ts += 3000, 7, t += 33 * MS);
	rtp_send(g, 6, ts += 3000, 7, t += 33 * MS);
	rtp_send(g, 4, ts, 7, t += MS);
	/* 65535 again: a duplicate from before the wrap */
	rtp_send(g, 65535, ts, 7, t += MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.expected, 13);
	CHECK_EQ_INT(c.reordered, 1);
	CHECK_EQ_INT(c.duplicates, 1);
	CHECK_EQ_INT(c.lost, 0);
	/* a jump of 30000: held back once, taken as a restart when the next follows it */
	rtp_send(g, 30000, ts, 7, t += MS);
	rtp_send(g, 30001, ts, 7, t += MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.resets, 1);
	CHECK_EQ_INT(c.expected, 14); /* 30000 was held back: the new sequence starts at 30001 */
	/* a new SSRC: a new session */
	rtp_send(g, 100, ts, 8, t += MS);
	rtp_send(g, 101, ts, 8, t += MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.sessions, 1);
	CHECK_EQ_INT(c.expected, 16);
	CHECK_EQ_INT(c.lost, 0);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, bad, sizeof(bad), t), -EINVAL);
	c = read_counters(g);
	CHECK_EQ_INT(c.malformed, 1);
	mcfan_feed_group_free(g);
}

/* One TS packet: PID, continuity counter, payload; afc 1 or 3 (3 with the discontinuity
 * flag when disc). */
static void
ts_packet(uint8_t *p, uint16_t pid, uint8_t cc, bool payload, bool disc)
{
	memset(p, 0xff, 188);
	p[0] = 0x47;
	p[1] = (uint8_t)((pid >> 8) & 0x1f);
	p[2] = (uint8_t)pid;
	p[3] = (uint8_t)(((disc ? 3 : (payload ? 1 : 2)) << 4) | (cc & 0xf));
	if (disc) {
		p[4] = 1;
		p[5] = 0x80;
	}
}

static void
test_mpegts(void)
{
	struct mcfan_feed_group *g = make("mpegts", &params_default);
	struct mcfan_feed_counters c;
	struct mcfan_feed_gap log[4];
	uint8_t d[7 * 188];
	unsigned int i;

	/* datagram 1: PID 0x100 cc 0..6 */
	for (i = 0; i < 7; i++)
		ts_packet(d + i * 188, 0x100, (uint8_t)i, true, false);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, d, sizeof(d), MS), 0);
	/* datagram 2: cc 7, 7 (a duplicate), 10 (8, 9 lost), an adaptation-only packet, PID
	 * 0x200 cc 15 then 0 (the counter wraps), a null packet */
	ts_packet(d, 0x100, 7, true, false);
	ts_packet(d + 188, 0x100, 7, true, false);
	ts_packet(d + 2 * 188, 0x100, 10, true, false);
	ts_packet(d + 3 * 188, 0x100, 3, false, false);
	ts_packet(d + 4 * 188, 0x200, 15, true, false);
	ts_packet(d + 5 * 188, 0x200, 0, true, false);
	ts_packet(d + 6 * 188, 0x1fff, 9, true, false);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, d, sizeof(d), 2 * MS), 0);
	/* datagram 3: a discontinuity on 0x100 (cc 2: no loss), then 3 */
	ts_packet(d, 0x100, 2, true, true);
	ts_packet(d + 188, 0x100, 3, true, false);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, d, 2 * 188, 3 * MS), 0);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, d, 100, 4 * MS), -EINVAL);
	CHECK_EQ_INT(mcfan_feed_group_read(g, &c, log, RTE_DIM(log)), 1);
	CHECK_EQ_INT(c.received, 7 + 2 + 2 + 2);
	CHECK_EQ_INT(c.duplicates, 1);
	CHECK_EQ_INT(c.lost, 2);
	CHECK_EQ_INT(c.expected, 7 + 2 + 2 + 2 + 2);
	CHECK_EQ_INT(c.resets, 1);
	CHECK_EQ_INT(c.malformed, 1);
	CHECK_EQ_INT(log[0].first, 8);
	CHECK_EQ_INT(log[0].last, 9);
	CHECK_EQ_INT(log[0].stream, 0x100);
	mcfan_feed_group_free(g);
}

static void
mold_send(struct mcfan_feed_group *g, const char *session, uint64_t seq, uint16_t count,
	  uint64_t t_ns)
{
	uint8_t p[64] = {0};

	memcpy(p, session, 10);
	put_be(p + 10, seq, 8);
	put_be(p + 18, count, 2);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, p, sizeof(p), t_ns), 0);
}

static void
test_moldudp64(void)
{
	struct mcfan_feed_group *g = make("moldudp64", &params_default);
	struct mcfan_feed_counters c;

	mold_send(g, "SESSION001", 1, 3, MS);   /* 1..3 */
	mold_send(g, "SESSION001", 4, 2, 2 * MS); /* 4..5 */
	mold_send(g, "SESSION001", 8, 1, 3 * MS); /* 6, 7 missing */
	mold_send(g, "SESSION001", 6, 2, 4 * MS); /* filled */
	mold_send(g, "SESSION001", 4, 2, 5 * MS); /* duplicates */
	mold_send(g, "SESSION001", 12, 0, 6 * MS); /* heartbeat: 9..11 missing */
	c = read_counters(g);
	CHECK_EQ_INT(c.expected, 11);
	CHECK_EQ_INT(c.received, 8);
	CHECK_EQ_INT(c.reordered, 2);
	CHECK_EQ_INT(c.duplicates, 2);
	CHECK_EQ_INT(c.heartbeats, 1);
	CHECK_EQ_INT(c.pending, 3);
	/* end of session at 12: pending becomes lost; a new session */
	mold_send(g, "SESSION001", 12, 0xffff, 7 * MS);
	mold_send(g, "SESSION002", 1, 1, 8 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.ends, 1);
	CHECK_EQ_INT(c.lost, 3);
	CHECK_EQ_INT(c.sessions, 1);
	CHECK_EQ_INT(c.expected, 12);
	mcfan_feed_group_free(g);
}

/* generic 2-byte little-endian counter at offset 4, wrapping */
/* One MoldUDP64 datagram of len bytes (at most 64): session, seq, count, then the blocks
 * of lens[0..nl-1] (a 2-byte length, that many bytes 'm'), the rest zero. Returns what
 * mcfan_feed_group_datagram() returns. */
static int
mold_blocks(struct mcfan_feed_group *g, uint64_t seq, uint16_t count, const uint16_t *lens,
	    unsigned int nl, uint32_t len, uint64_t t_ns)
{
	uint8_t p[64] = {0};
	uint32_t off = 20;
	unsigned int i;

	memcpy(p, "SESSION001", 10);
	put_be(p + 10, seq, 8);
	put_be(p + 18, count, 2);
	for (i = 0; i < nl && off + 2 <= sizeof(p); i++) {
		put_be(p + off, lens[i], 2);
		off += 2;
		memset(p + off, 'm', RTE_MIN((uint32_t)lens[i], (uint32_t)sizeof(p) - off));
		off += RTE_MIN((uint32_t)lens[i], (uint32_t)sizeof(p) - off);
	}
	return mcfan_feed_group_datagram(g, p, len, t_ns);
}

/*
 * The message count of a MoldUDP64 header against the datagram: each message is a 2-byte
 * length and that many bytes, so a count whose blocks do not fit (count * 2 + 20 beyond the
 * payload, or a length field that runs past its end) is malformed, and so is the kind after
 * 16 such datagrams. Before: the count was taken as it was: a 32-byte datagram saying 500
 * messages counted 500 expected and received, malformed 0.
 */
static void
test_moldudp64_count(void)
{
	struct mcfan_feed_group *g = make("moldudp64", &params_default);
	static const uint16_t four[] = {4}, two_fit[] = {4, 6}, two_past[] = {4, 7};
	static const uint16_t zeros[7] = {0};
	uint8_t ip2[100];
	struct mcfan_feed_counters c;
	unsigned int i;

	/* 32 bytes: a count of 500 with one 4-byte message (the report: expected 25,000) */
	CHECK_EQ_INT(mold_blocks(g, 1, 500, four, 1, 32, MS), -EINVAL);
	/* the bound: 6 empty messages fill 32 bytes exactly, 7 do not */
	CHECK_EQ_INT(mold_blocks(g, 1, 6, zeros, 6, 32, 2 * MS), 0);
	CHECK_EQ_INT(mold_blocks(g, 7, 7, zeros, 7, 32, 3 * MS), -EINVAL);
	/* the walk: 20 + (2 + 4) + (2 + 6) = 34 bytes fit 34, a 7-byte second one runs past */
	CHECK_EQ_INT(mold_blocks(g, 7, 2, two_fit, 2, 34, 4 * MS), 0);
	CHECK_EQ_INT(mold_blocks(g, 9, 2, two_past, 2, 34, 5 * MS), -EINVAL);
	/* count 1 whose block is whole with bytes after it (padding): taken */
	CHECK_EQ_INT(mold_blocks(g, 9, 1, four, 1, 40, 6 * MS), 0);
	/* a heartbeat and an end of session carry no message: the bare header is whole */
	CHECK_EQ_INT(mold_blocks(g, 10, 0, NULL, 0, 20, 7 * MS), 0);
	c = read_counters(g);
	CHECK_EQ_INT(c.malformed, 3);
	CHECK_EQ_INT(c.expected, 9);
	CHECK_EQ_INT(c.received, 9);
	CHECK_EQ_INT(c.heartbeats, 1);
	CHECK_EQ_INT(c.lost + c.pending, 0);
	CHECK(!mcfan_feed_kind_suspect(&c), "moldudp64: 3 of 10 malformed is not suspect");
	CHECK_EQ_INT(mold_blocks(g, 10, 0xffff, NULL, 0, 20, 8 * MS), 0);
	c = read_counters(g);
	CHECK_EQ_INT(c.ends, 1);
	mcfan_feed_group_free(g);

	/* 50 datagrams of 32 bytes saying 500 messages: all malformed, the kind suspect */
	g = make("moldudp64", &params_default);
	for (i = 0; i < 50; i++)
		CHECK_EQ_INT(mold_blocks(g, 1 + 500 * i, 500, four, 1, 32, (i + 1) * MS), -EINVAL);
	c = read_counters(g);
	CHECK_EQ_INT(c.datagrams, 50);
	CHECK_EQ_INT(c.malformed, 50);
	CHECK_EQ_INT(c.expected, 0);
	CHECK_EQ_INT(c.received, 0);
	CHECK(mcfan_feed_kind_suspect(&c), "moldudp64: a count that never fits is suspect");
	mcfan_feed_group_free(g);

	/* a datagram of iperf2's digits pattern read as MoldUDP64: the count at offset 18 is
	 * 0x3839 ("89"), 14,393 blocks cannot fit 100 bytes */
	g = make("moldudp64", &params_default);
	memset(ip2, 0, sizeof(ip2));
	for (i = 16; i < sizeof(ip2); i++)
		ip2[i] = (uint8_t)('0' + i % 10);
	put_be(ip2, 1, 4);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, ip2, sizeof(ip2), MS), -EINVAL);
	/* ... and a count of 3 that fits 2 * 3 bytes but whose first length, 0x3031 ("01"),
	 * runs past the end */
	put_be(ip2 + 18, 3, 2);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, ip2, sizeof(ip2), 2 * MS), -EINVAL);
	c = read_counters(g);
	CHECK_EQ_INT(c.malformed, 2);
	CHECK_EQ_INT(c.expected, 0);
	mcfan_feed_group_free(g);
}

static void
test_generic(void)
{
	struct mcfan_feed_group *g = make("4:2:le", &params_default);
	struct mcfan_feed_counters c;
	uint8_t p[8] = {0};
	uint32_t i, v;

	for (i = 0; i < 20; i++) {
		v = (65530 + i) & 0xffff;
		if (i == 7)
			continue;
		p[4] = (uint8_t)v;
		p[5] = (uint8_t)(v >> 8);
		CHECK_EQ_INT(mcfan_feed_group_datagram(g, p, sizeof(p), (i + 1) * MS), 0);
	}
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, p, 5, 30 * MS), -EINVAL);
	mcfan_feed_group_tick(g, 500 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.expected, 20);
	CHECK_EQ_INT(c.received, 19);
	CHECK_EQ_INT(c.lost, 1);
	CHECK_EQ_INT(c.malformed, 1);
	/* 1 ms spacing but one 2 ms (the missing 7): some jitter, well below 1 ms */
	CHECK(c.jitter_ns > 0 && c.jitter_ns < MS, "jitter %" PRIu64, c.jitter_ns);
	mcfan_feed_group_free(g);
}

static void
gen8_send(struct mcfan_feed_group *g, uint64_t v, uint64_t t_ns)
{
	uint8_t p[16] = {0};

	put_be(p + 2, v, 8);
	CHECK_EQ_INT(mcfan_feed_group_datagram(g, p, sizeof(p), t_ns), 0);
}

/* generic 8-byte big-endian number at offset 2: 2^64 - 1 is a number like any other, and
 * the wrap to 0 is one step, not a reset */
static void
test_generic64(void)
{
	struct mcfan_feed_group *g = make("2:8:be", &params_default);
	struct mcfan_feed_counters c;
	struct mcfan_feed_gap log[4];
	uint64_t i;
	int n;

	/* 2^64 - 5 .. 2^64 - 1, 0 .. 4; 2^64 - 1 missing, 2^64 - 2 twice, 1 and 2 swapped */
	for (i = 0; i < 10; i++) {
		uint64_t v = UINT64_MAX - 4 + i; /* modulo 2^64 */

		if (v == UINT64_MAX)
			continue;
		if (v == 1)
			v = 2;
		else if (v == 2)
			v = 1;
		gen8_send(g, v, (i + 1) * MS);
		if (v == UINT64_MAX - 1)
			gen8_send(g, v, (i + 1) * MS);
	}
	mcfan_feed_group_tick(g, 500 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.expected, 10);
	CHECK_EQ_INT(c.received, 9);
	CHECK_EQ_INT(c.lost, 1);
	CHECK_EQ_INT(c.pending, 0);
	CHECK_EQ_INT(c.duplicates, 1);
	CHECK_EQ_INT(c.reordered, 1);
	CHECK_EQ_INT(c.resets, 0);
	CHECK_EQ_INT(c.malformed, 0);
	n = mcfan_feed_group_read(g, &c, log, RTE_DIM(log));
	CHECK_EQ_INT(n, 2);
	/* the gap log names the wire's numbers */
	CHECK(log[0].first == UINT64_MAX && log[0].last == UINT64_MAX && log[0].lost == 1,
	      "gap 0: %" PRIu64 "..%" PRIu64 " lost %" PRIu64, log[0].first, log[0].last,
	      log[0].lost);
	CHECK(log[1].first == 1 && log[1].last == 1 && log[1].lost == 0,
	      "gap 1: %" PRIu64 "..%" PRIu64 " lost %" PRIu64, log[1].first, log[1].last,
	      log[1].lost);
	mcfan_feed_group_free(g);

	/* a stream that starts at 2^64 - 1 and wraps */
	g = make("0:8:le", &params_default);
	for (i = 0; i < 4; i++) {
		uint8_t p[8];
		uint64_t v = UINT64_MAX + i;
		unsigned int b;

		for (b = 0; b < 8; b++)
			p[b] = (uint8_t)(v >> (8 * b));
		CHECK_EQ_INT(mcfan_feed_group_datagram(g, p, sizeof(p), (i + 1) * MS), 0);
	}
	mcfan_feed_group_tick(g, 500 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.expected, 4);
	CHECK_EQ_INT(c.received, 4);
	CHECK_EQ_INT(c.lost, 0);
	CHECK_EQ_INT(c.resets, 0);
	mcfan_feed_group_free(g);

	/* a jump of 2^63 is a reset, as any jump beyond MCFAN_FEED_RESET_JUMP */
	g = make("2:8:be", &params_default);
	gen8_send(g, 10, 1 * MS);
	gen8_send(g, 11, 2 * MS);
	gen8_send(g, 11 + (UINT64_C(1) << 63), 3 * MS);
	gen8_send(g, 12 + (UINT64_C(1) << 63), 4 * MS);
	mcfan_feed_group_tick(g, 500 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.resets, 1);
	CHECK_EQ_INT(c.expected, 4);
	CHECK_EQ_INT(c.received, 4);
	CHECK_EQ_INT(c.lost, 0);
	mcfan_feed_group_free(g);
}

/* An A/B pair of lines of kind (a --seq KIND), default parameters; checked not NULL. */
static struct mcfan_feed_arb *
arb_new(const char *kind)
{
	struct mcfan_feed_spec s;
	struct mcfan_feed_arb *a;

	CHECK_EQ_INT(mcfan_feed_spec_parse(kind, &s, NULL, 0), 0);
	a = mcfan_feed_arb_create(&s, &params_default, 0);
	CHECK(a != NULL, "arb create");
	return a;
}

static void
arb_send(struct mcfan_feed_arb *a, unsigned int line, int64_t id, uint64_t t_ns)
{
	uint8_t p[32] = {0};

	put_be(p, (uint64_t)id & 0xffffffffu, 4);
	put_be(p + 12, (uint64_t)id >> 32, 4);
	CHECK_EQ_INT(mcfan_feed_arb_datagram(a, line, p, sizeof(p), t_ns), 0);
}

/* Lines A and B with independent holes: delivered = union, gaps = intersection. */
static void
test_arb(void)
{
	struct mcfan_feed_spec s;
	struct mcfan_feed_arb *a;
	struct mcfan_feed_arb_counters c;
	int64_t i;

	a = arb_new("iperf2");
	/* A misses 10..14 and 30; B misses 12..20 and 30; B always 2 ms after A */
	for (i = 0; i < 50; i++) {
		if (!((i >= 10 && i <= 14) || i == 30))
			arb_send(a, 0, i, (uint64_t)i * 10 * MS);
		if (!((i >= 12 && i <= 20) || i == 30))
			arb_send(a, 1, i, (uint64_t)i * 10 * MS + 2 * MS);
	}
	mcfan_feed_arb_tick(a, 10000 * MS);
	CHECK_EQ_INT(mcfan_feed_arb_read(a, &c), 0);
	CHECK_EQ_INT(c.merged.expected, 50);
	CHECK_EQ_INT(c.merged.received, 50 - 3 - 1);  /* union */
	CHECK_EQ_INT(c.merged.lost, 3 + 1);           /* 12, 13, 14 and 30 */
	CHECK_EQ_INT(c.line[0].first_arrivals, 50 - 6);
	CHECK_EQ_INT(c.line[1].first_arrivals, 2);    /* 10, 11 */
	/* both lines have 50 - |{10..20, 30}| = 38 numbers: B's copy comes second */
	CHECK_EQ_INT(c.line[1].arb_duplicates, 38);
	CHECK_EQ_INT(c.line[0].arb_duplicates, 0);
	CHECK_EQ_INT(c.merged.duplicates, 38);
	CHECK_EQ_INT(c.line[0].missed, 6);
	CHECK_EQ_INT(c.line[1].missed, 10);
	/* skew B - A = +2 ms: bucket 20 (1048576..2097151 ns) */
	CHECK_EQ_INT(c.skew_hist[0][20], 38);
	CHECK_EQ_INT(c.skew_max_ns[0], 2 * MS);
	CHECK(mcfan_feed_skew_quantile_ns(c.skew_hist[0], c.skew_max_ns[0], 500) <= 2 * MS,
	      "p50");
	mcfan_feed_arb_free(a);
	CHECK_EQ_INT(mcfan_feed_spec_parse("mpegts", &s, NULL, 0), 0);
	CHECK(mcfan_feed_arb_create(&s, &params_default, 0) == NULL, "no arb for mpegts");
}

static void
mold_arb_send(struct mcfan_feed_arb *a, unsigned int line, uint64_t seq, uint16_t count,
	      uint64_t t_ns)
{
	uint8_t p[64] = {0};

	memcpy(p, "SESSION001", 10);
	put_be(p + 10, seq, 8);
	put_be(p + 18, count, 2);
	CHECK_EQ_INT(mcfan_feed_arb_datagram(a, line, p, sizeof(p), t_ns), 0);
}

/*
 * A/B of MoldUDP64 lines whose datagrams carry several messages: every message counts in
 * each line's first_arrivals, arb_duplicates and missed, not only a datagram's first one,
 * and a heartbeat (count 0) brings no message. Before: only the first message of a datagram
 * was marked as the line's, so a line that had every message was said to miss two of three,
 * first_arrivals and arb_duplicates counted datagrams, and a heartbeat was a first arrival.
 */
static void
test_arb_mold(void)
{
	struct mcfan_feed_arb *a;
	struct mcfan_feed_arb_counters c;
	uint64_t i;

	a = arb_new("moldudp64");
	/* 10 datagrams of 3 messages (1..30); A lacks the one of 7..9, B the one of 16..18 */
	for (i = 0; i < 10; i++) {
		if (i != 2)
			mold_arb_send(a, 0, 1 + 3 * i, 3, (i * 10 + 1) * MS);
		if (i != 5)
			mold_arb_send(a, 1, 1 + 3 * i, 3, (i * 10 + 3) * MS);
	}
	mold_arb_send(a, 0, 31, 0, 200 * MS); /* heartbeat: 31 is next */
	mold_arb_send(a, 1, 31, 0, 201 * MS);
	mcfan_feed_arb_tick(a, 10000 * MS);
	CHECK_EQ_INT(mcfan_feed_arb_read(a, &c), 0);
	CHECK_EQ_INT(c.merged.expected, 30);
	CHECK_EQ_INT(c.merged.received, 30);
	CHECK_EQ_INT(c.merged.lost, 0);
	CHECK_EQ_INT(c.line[0].first_arrivals, 27);
	CHECK_EQ_INT(c.line[1].first_arrivals, 3);    /* 7..9 */
	CHECK_EQ_INT(c.line[1].arb_duplicates, 24);   /* all but 7..9 and 16..18 */
	CHECK_EQ_INT(c.line[0].arb_duplicates, 0);
	CHECK_EQ_INT(c.line[0].missed, 3);
	CHECK_EQ_INT(c.line[1].missed, 3);
	CHECK_EQ_INT(c.skew_hist[0][20], 24);         /* B - A = 2 ms, per message */
	mcfan_feed_arb_free(a);
}

/*
 * A/B of iperf2 lines that both lose the tail of a test: the end-of-test datagram says
 * which number is next (-(next)), so the merged stream knows the tail it never got, as
 * each line's own feed does. Before: the merged stream ignored the end datagram and
 * counted expected 18, lost 0 where both lines had lost 19 and 20.
 */
static void
test_arb_end(void)
{
	struct mcfan_feed_arb *a;
	struct mcfan_feed_arb_counters c;
	int64_t i;

	a = arb_new("iperf2");
	/* 1..20 sent; A has 1..17, B 1..18; both get the end -(21) */
	for (i = 1; i <= 20; i++) {
		if (i <= 17)
			arb_send(a, 0, i, (uint64_t)i * MS);
		if (i <= 18)
			arb_send(a, 1, i, (uint64_t)i * MS + MS / 2);
	}
	arb_send(a, 0, -21, 30 * MS);
	arb_send(a, 1, -21, 31 * MS);
	CHECK_EQ_INT(mcfan_feed_arb_read(a, &c), 0);
	CHECK_EQ_INT(c.merged.expected, 20);
	CHECK_EQ_INT(c.merged.pending, 2);
	mcfan_feed_arb_tick(a, 10000 * MS);
	CHECK_EQ_INT(mcfan_feed_arb_read(a, &c), 0);
	CHECK_EQ_INT(c.merged.expected, 20);
	CHECK_EQ_INT(c.merged.received, 18);
	CHECK_EQ_INT(c.merged.lost, 2);                /* 19, 20: both lines missed them */
	CHECK_EQ_INT(c.merged.pending, 0);
	CHECK_EQ_INT(c.merged.ends, 2);
	CHECK_EQ_INT(c.line[0].missed, 3);             /* 18, 19, 20 */
	CHECK_EQ_INT(c.line[1].missed, 2);
	CHECK_EQ_INT(c.line[0].first_arrivals, 17);
	CHECK_EQ_INT(c.line[1].first_arrivals, 1);
	mcfan_feed_arb_free(a);
}

/*
 * An iperf2 end-of-test datagram whose -(next number) is INT64_MIN (id 0, id2 0x80000000):
 * taken as an end that names 2^63 next (a jump: a reset), with no signed overflow. Before:
 * the negation of INT64_MIN, undefined behaviour (an abort under the sanitizer pass).
 */
static void
test_iperf2_end_min(void)
{
	struct mcfan_feed_group *g = make("iperf2", &params_default);
	struct mcfan_feed_arb *a;
	struct mcfan_feed_counters c;
	int64_t i;

	for (i = 1; i <= 3; i++)
		iperf2_send(g, i, (uint64_t)i * MS);
	iperf2_send(g, INT64_MIN, 4 * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.ends, 1);
	CHECK_EQ_INT(c.resets, 1);
	CHECK_EQ_INT(c.received, 3);
	mcfan_feed_group_free(g);
	a = arb_new("iperf2");
	arb_send(a, 0, 1, MS);
	arb_send(a, 1, INT64_MIN, 2 * MS);
	mcfan_feed_arb_free(a);
}

/*
 * A/B of iperf2 lines over two tests (each ends with -(51), sent three times as iperf2 repeats
 * it): the merged stream starts a new session with the second test, as each group does.
 * Before: the second test's
 * numbers were taken as duplicates of the first's (merged expected 50 of 100, sessions 0).
 */
static void
test_arb_tests(void)
{
	struct mcfan_feed_arb *a;
	struct mcfan_feed_arb_counters c;
	uint64_t t_ns = 0;
	int64_t i;
	int test, k;

	a = arb_new("iperf2");
	for (test = 0; test < 2; test++) {
		for (i = 1; i <= 50; i++) {
			if (i != (test == 0 ? 7 : 20))
				arb_send(a, 0, i, t_ns += MS);
			if (i != (test == 0 ? 8 : 30))
				arb_send(a, 1, i, t_ns += MS);
		}
		for (k = 0; k < 3; k++) {
			arb_send(a, 0, -51, t_ns += MS);
			arb_send(a, 1, -51, t_ns += MS);
		}
	}
	mcfan_feed_arb_tick(a, t_ns + 10000 * MS);
	CHECK_EQ_INT(mcfan_feed_arb_read(a, &c), 0);
	CHECK_EQ_INT(c.merged.expected, 100);
	CHECK_EQ_INT(c.merged.received, 100);         /* the holes are on one line each */
	CHECK_EQ_INT(c.merged.lost, 0);
	CHECK_EQ_INT(c.merged.sessions, 1);
	CHECK_EQ_INT(c.merged.ends, 12);
	CHECK_EQ_INT(c.line[0].first_arrivals, 98);
	CHECK_EQ_INT(c.line[1].first_arrivals, 2);    /* 7, 20 */
	CHECK_EQ_INT(c.line[0].missed, 2);
	CHECK_EQ_INT(c.line[1].missed, 2);
	CHECK_EQ_INT(c.line[1].arb_duplicates, 96);
	mcfan_feed_arb_free(a);
}

/*
 * Line B lags across the end of a test: A sends 1..5 and its end, B 1..4; A begins the next
 * test (1, 2) before B's copy of 5 and B's end come. Those belong to the old test: B's 5 is
 * late, B's end is no heartbeat in the new test; B's own next test is then arbitrated.
 */
static void
test_arb_lag(void)
{
	struct mcfan_feed_arb *a;
	struct mcfan_feed_arb_counters c;
	int64_t i;

	a = arb_new("iperf2");
	for (i = 1; i <= 5; i++) {
		arb_send(a, 0, i, (uint64_t)i * MS);
		if (i <= 4)
			arb_send(a, 1, i, (uint64_t)i * MS + MS / 2);
	}
	arb_send(a, 0, -6, 10 * MS);
	arb_send(a, 0, 1, 20 * MS);      /* A: the next test */
	arb_send(a, 0, 2, 21 * MS);
	arb_send(a, 1, 5, 22 * MS);      /* B: the old test's last copy, late */
	arb_send(a, 1, -6, 23 * MS);     /* B: the old test's end */
	arb_send(a, 1, 1, 30 * MS);      /* B: the next test */
	arb_send(a, 1, 2, 31 * MS);
	CHECK_EQ_INT(mcfan_feed_arb_read(a, &c), 0);
	CHECK_EQ_INT(c.merged.sessions, 1);
	CHECK_EQ_INT(c.merged.expected, 7);
	CHECK_EQ_INT(c.merged.received, 8);
	CHECK_EQ_INT(c.merged.late, 1);
	CHECK_EQ_INT(c.merged.lost, 0);
	CHECK_EQ_INT(c.merged.pending, 0);
	CHECK_EQ_INT(c.merged.duplicates, 6);
	CHECK_EQ_INT(c.line[1].arb_duplicates, 6);
	CHECK_EQ_INT(c.line[0].first_arrivals, 7);
	mcfan_feed_arb_free(a);
}

/*
 * The merged stream's jitter is that of the arbitrated stream: line A every 10 ms exactly,
 * line B 3 ms after each; A's copies go on, so the merged spacing is even: jitter 0, as
 * line A's own. Before: every copy of both lines was a sample (spacings 3, 7, 3, 7 ms):
 * about 4 ms of jitter on a perfectly even stream.
 */
/*
 * iperf2's jitter from its send times, as iperf2's server has it: a sender that sends in
 * bursts (5 datagrams 10 us apart, then 5 ms of nothing) whose datagrams arrive with the
 * same spacing plus a constant delay has no jitter (before: from arrival spacing alone,
 * about 1.8 ms, which iperf2's server calls 0.001 ms). Arrivals 0 and 40 us late by turns:
 * about 40 us. A datagram without a send time (0.000000) falls back to arrival spacing.
 */
static void
test_iperf2_jitter(void)
{
	struct mcfan_feed_group *g = make("iperf2", &params_default);
	struct mcfan_feed_counters c;
	uint64_t sent_us = 1765000000ull * 1000000u, t0 = 7 * MS;
	int64_t id;

	for (id = 0; id < 500; id++)
		iperf2_send_at(g, id, sent_us + (uint64_t)(id / 5) * 5000 + (uint64_t)(id % 5) * 10,
			       t0 + ((uint64_t)(id / 5) * 5000 + (uint64_t)(id % 5) * 10) * 1000);
	c = read_counters(g);
	CHECK_EQ_INT(c.received, 500);
	CHECK_EQ_INT(c.jitter_ns, 0);
	mcfan_feed_group_free(g);

	g = make("iperf2", &params_default);
	for (id = 0; id < 500; id++)
		iperf2_send_at(g, id, sent_us + (uint64_t)id * 1000,
			       t0 + (uint64_t)id * MS + (id % 2 ? 40000u : 0u));
	c = read_counters(g);
	CHECK(c.jitter_ns > 35000 && c.jitter_ns < 45000, "jitter %" PRIu64 " ns, about 40 us",
	      c.jitter_ns);
	mcfan_feed_group_free(g);

	/* no send time: arrival spacing, 1 ms but every other 2 ms: about 1 ms */
	g = make("iperf2", &params_default);
	for (id = 0; id < 200; id++)
		iperf2_send(g, id, t0 + (uint64_t)(id + id / 2) * MS);
	c = read_counters(g);
	CHECK(c.jitter_ns > 500000 && c.jitter_ns < 1500000, "jitter %" PRIu64 " ns, about 1 ms",
	      c.jitter_ns);
	mcfan_feed_group_free(g);
}

/*
 * Jitter is a source's own (RFC 3550 6.4.1, A.8: per SSRC; iperf2's server: per test): a new
 * SSRC, or a new iperf2 test after an end, starts from 0, so a perfectly even new source has
 * jitter 0; the end of a test keeps the test's jitter for the report. Before: the old
 * source's estimate carried on and decayed by 15/16 a datagram.
 */
static void
test_jitter_new_source(void)
{
	const uint64_t step_ns = 3000 * 1000000000ull / 90000; /* 3000 ticks at 90 kHz */
	struct mcfan_feed_group *g = make("rtp", &params_default);
	struct mcfan_feed_counters c;
	uint64_t t_ns = 5 * MS, before;
	uint32_t i;
	int64_t id;

	for (i = 0; i < 100; i++) /* SSRC 1: arrivals 20 and 46.7 ms apart by turns */
		rtp_send(g, (uint16_t)i, i * 3000, 1, t_ns += (i % 2 ? 20 : 46) * MS);
	c = read_counters(g);
	CHECK(c.jitter_ns > 5 * MS, "jitter of the uneven source %" PRIu64, c.jitter_ns);
	for (i = 0; i < 100; i++) /* SSRC 2: perfectly even */
		rtp_send(g, (uint16_t)(5000 + i), 777 + i * 3000, 2, t_ns += step_ns);
	c = read_counters(g);
	CHECK_EQ_INT(c.sessions, 1);
	CHECK_EQ_INT(c.jitter_ns, 0);
	mcfan_feed_group_free(g);

	g = make("iperf2", &params_default);
	for (id = 1; id <= 100; id++) /* arrivals 0 and 40 us late by turns */
		iperf2_send_at(g, id, 1000000000u + (uint64_t)id * 1000,
			       t_ns + (uint64_t)id * MS + (id % 2 ? 40000u : 0u));
	before = read_counters(g).jitter_ns;
	CHECK(before > 30000, "jitter of the first test %" PRIu64, before);
	iperf2_send_at(g, -101, 0, t_ns + 101 * MS);
	CHECK_EQ_INT(read_counters(g).jitter_ns, before); /* the end keeps it */
	for (id = 1; id <= 100; id++) /* the next test: even */
		iperf2_send_at(g, id, 2000000000u + (uint64_t)id * 1000,
			       t_ns + 200 * MS + (uint64_t)id * MS);
	c = read_counters(g);
	CHECK_EQ_INT(c.sessions, 1);
	CHECK_EQ_INT(c.jitter_ns, 0);
	mcfan_feed_group_free(g);
}

static void
test_arb_jitter(void)
{
	struct mcfan_feed_arb *a;
	struct mcfan_feed_arb_counters c;
	int64_t i;

	a = arb_new("iperf2");
	for (i = 1; i <= 100; i++) {
		arb_send(a, 0, i, (uint64_t)i * 10 * MS);
		arb_send(a, 1, i, (uint64_t)i * 10 * MS + 3 * MS);
	}
	CHECK_EQ_INT(mcfan_feed_arb_read(a, &c), 0);
	CHECK_EQ_INT(c.line[0].first_arrivals, 100);
	CHECK_EQ_INT(c.merged.jitter_ns, 0);
	mcfan_feed_arb_free(a);
}

static void
rtp_arb_send(struct mcfan_feed_arb *a, unsigned int line, uint16_t seq, uint32_t ssrc,
	     uint64_t t_ns)
{
	uint8_t p[32] = {0};

	p[0] = 0x80;
	p[1] = 96;
	put_be(p + 2, seq, 2);
	put_be(p + 4, (uint64_t)seq * 3000, 4);
	put_be(p + 8, ssrc, 4);
	CHECK_EQ_INT(mcfan_feed_arb_datagram(a, line, p, sizeof(p), t_ns), 0);
}

/*
 * A/B of RTP lines whose SSRCs differ (each sender of a line its own): one sequence space,
 * arbitrated; a session changes when a line's own SSRC does, and a copy of the old session
 * that the lagging line sends after that counts late. Before: the merged stream took every
 * change of SSRC between the lines for a new session (193 sessions in 197 datagrams), each
 * line's numbers lost where the other line's came.
 */
static void
test_arb_ssrc(void)
{
	struct mcfan_feed_arb *a;
	struct mcfan_feed_arb_counters c;
	uint64_t t_ns = 0;
	uint16_t q;

	a = arb_new("rtp");
	for (q = 100; q < 120; q++) {
		if (q != 105)
			rtp_arb_send(a, 0, q, 0x1111, t_ns += MS);
		if (q != 110 && q != 119)
			rtp_arb_send(a, 1, q, 0x2222, t_ns += MS);
	}
	rtp_arb_send(a, 0, 5000, 0x3333, t_ns += MS); /* A restarts: a new session */
	rtp_arb_send(a, 1, 119, 0x2222, t_ns += MS);  /* B's last copy of the old one */
	for (q = 5001; q < 5010; q++)
		rtp_arb_send(a, 0, q, 0x3333, t_ns += MS);
	for (q = 5000; q < 5010; q++)
		rtp_arb_send(a, 1, q, 0x4444, t_ns += MS);
	mcfan_feed_arb_tick(a, t_ns + 10000 * MS);
	CHECK_EQ_INT(mcfan_feed_arb_read(a, &c), 0);
	CHECK_EQ_INT(c.merged.sessions, 1);
	CHECK_EQ_INT(c.merged.expected, 30);
	CHECK_EQ_INT(c.merged.received, 31);
	CHECK_EQ_INT(c.merged.late, 1);
	CHECK_EQ_INT(c.merged.lost, 0);
	CHECK_EQ_INT(c.merged.duplicates, 17 + 10);
	CHECK_EQ_INT(c.line[0].first_arrivals, 19 + 10);
	CHECK_EQ_INT(c.line[1].first_arrivals, 1);
	CHECK_EQ_INT(c.line[0].missed, 1);
	CHECK_EQ_INT(c.line[1].missed, 2);
	mcfan_feed_arb_free(a);
}

/*
 * A/B of MoldUDP64 lines where line B lags across the end of session: A sends 1..6 and the
 * end (next 7), B's copy of 4..6 and its end come after A's end. They are copies of the same
 * session: arbitration duplicates, not a new start. Then a new session (another name) on
 * both lines is one session more. Before: A's end closed the merged session and B's late
 * copies started another (expected 9 for 6 numbers, 3 duplicates missed).
 */
static void
test_arb_mold_end(void)
{
	struct mcfan_feed_arb *a;
	struct mcfan_feed_arb_counters c;
	uint8_t p[64] = {0};
	unsigned int i;
	static const struct {
		unsigned int line;
		const char *session;
		uint64_t seq;
		uint16_t count;
	} in[] = {
		{0, "SESSION001", 1, 3}, {1, "SESSION001", 1, 3}, {0, "SESSION001", 4, 3},
		{0, "SESSION001", 7, 0xffff}, {1, "SESSION001", 4, 3}, {1, "SESSION001", 7, 0xffff},
		{0, "SESSION002", 1, 2}, {1, "SESSION002", 1, 2},
	};

	a = arb_new("moldudp64");
	for (i = 0; i < RTE_DIM(in); i++) {
		memcpy(p, in[i].session, 10);
		put_be(p + 10, in[i].seq, 8);
		put_be(p + 18, in[i].count, 2);
		CHECK_EQ_INT(mcfan_feed_arb_datagram(a, in[i].line, p, sizeof(p), (i + 1) * MS), 0);
	}
	mcfan_feed_arb_tick(a, 10000 * MS);
	CHECK_EQ_INT(mcfan_feed_arb_read(a, &c), 0);
	CHECK_EQ_INT(c.merged.expected, 8);
	CHECK_EQ_INT(c.merged.received, 8);
	CHECK_EQ_INT(c.merged.lost, 0);
	CHECK_EQ_INT(c.merged.duplicates, 8);
	CHECK_EQ_INT(c.merged.sessions, 1);
	CHECK_EQ_INT(c.merged.ends, 2);
	CHECK_EQ_INT(c.line[0].first_arrivals, 8);
	CHECK_EQ_INT(c.line[1].arb_duplicates, 8);
	CHECK_EQ_INT(c.line[1].missed, 0);
	mcfan_feed_arb_free(a);
}

int
main(void)
{
	test_parse();
	test_iperf2_basic();
	test_iperf2_tail_and_window();
	test_iperf2_reset();
	test_iperf2_end32();
	test_window_memory();
	test_restart_in_memory();
	test_rtp();
	test_mpegts();
	test_moldudp64();
	test_moldudp64_count();
	test_generic();
	test_generic64();
	test_arb();
	test_arb_mold();
	test_arb_end();
	test_iperf2_end_min();
	test_arb_tests();
	test_arb_lag();
	test_arb_jitter();
	test_iperf2_jitter();
	test_jitter_new_source();
	test_arb_ssrc();
	test_arb_mold_end();
	return unit_summary("feed");
}
