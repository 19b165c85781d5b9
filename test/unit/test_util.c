/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * lib/util: decimal numbers, the corelist parser, worker bitmaps (bits.h) and the one
 * error-message helper. Pure functions: no EAL.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bits.h"
#include "mcfan_group.h"
#include "mcfan_parse.h"
#include "mcfan_tsclock.h"
#include "mcfan_txstall.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

#define MAX_RANGES 16
#define ERR_LEN 64
#define TEST_MAX_ID 127

/* What the corelist parser handed to its callback. */
struct ranges {
	unsigned int n;
	uint64_t first[MAX_RANGES];
	uint64_t last[MAX_RANGES];
	unsigned int refuse_at; /* refuse the range with this index (MAX_RANGES: none) */
};

static int
record(uint64_t first, uint64_t last, void *arg)
{
	struct ranges *r = arg;

	if (r->n == r->refuse_at)
		return -EEXIST;
	if (r->n < MAX_RANGES) {
		r->first[r->n] = first;
		r->last[r->n] = last;
	}
	r->n++;
	return 0;
}

static int
parse(const char *text, uint64_t max_id, struct ranges *r, struct mcfan_corelist_err *e)
{
	memset(r, 0, sizeof(*r));
	r->refuse_at = MAX_RANGES;
	memset(e, 0xff, sizeof(*e));
	return mcfan_corelist_parse(text, strlen(text), max_id, record, r, e);
}

static void
check_syntax_err(const char *text, enum mcfan_corelist_err_kind kind, unsigned int visited)
{
	struct mcfan_corelist_err e;
	struct ranges r;

	CHECK(parse(text, TEST_MAX_ID, &r, &e) == -EINVAL, "'%s' is refused", text);
	CHECK(e.kind == kind, "'%s': kind %d, expected %d", text, (int)e.kind, (int)kind);
	CHECK(r.n == visited, "'%s': %u ranges visited before the error, expected %u", text,
	      r.n, visited);
}

static void
test_corelist_good(void)
{
	struct mcfan_corelist_err e;
	struct ranges r;

	CHECK_EQ_INT(parse("1", TEST_MAX_ID, &r, &e), 0);
	CHECK_EQ_INT(e.kind, MCFAN_CORELIST_OK);
	CHECK_EQ_INT(r.n, 1);
	CHECK_EQ_INT(r.first[0], 1);
	CHECK_EQ_INT(r.last[0], 1);

	/* list order is kept, ranges are handed over whole, leading zeros are decimal */
	CHECK_EQ_INT(parse("7,1-3,08,5-5", TEST_MAX_ID, &r, &e), 0);
	CHECK_EQ_INT(r.n, 4);
	CHECK_EQ_INT(r.first[0], 7);
	CHECK_EQ_INT(r.last[0], 7);
	CHECK_EQ_INT(r.first[1], 1);
	CHECK_EQ_INT(r.last[1], 3);
	CHECK_EQ_INT(r.first[2], 8);
	CHECK_EQ_INT(r.last[2], 8);
	CHECK_EQ_INT(r.first[3], 5);
	CHECK_EQ_INT(r.last[3], 5);

	/* repeats are for the callback to judge */
	CHECK_EQ_INT(parse("2,2,1-3", TEST_MAX_ID, &r, &e), 0);
	CHECK_EQ_INT(r.n, 3);

	/* the largest id, and a range up to it */
	CHECK_EQ_INT(parse("127", TEST_MAX_ID, &r, &e), 0);
	CHECK_EQ_INT(parse("0-127", TEST_MAX_ID, &r, &e), 0);
	CHECK_EQ_INT(r.first[0], 0);
	CHECK_EQ_INT(r.last[0], 127);
	CHECK_EQ_INT(parse("18446744073709551615", UINT64_MAX, &r, &e), 0);
	CHECK(r.first[0] == UINT64_MAX, "UINT64_MAX parsed");

	/* the length bounds the text: what follows is not looked at */
	memset(&r, 0, sizeof(r));
	r.refuse_at = MAX_RANGES;
	CHECK_EQ_INT(mcfan_corelist_parse("3-4\n", 3, TEST_MAX_ID, record, &r, NULL), 0);
	CHECK_EQ_INT(r.n, 1);
	CHECK_EQ_INT(r.last[0], 4);
}

static void
test_corelist_errors(void)
{
	struct mcfan_corelist_err e;
	struct ranges r;

	check_syntax_err("", MCFAN_CORELIST_EMPTY, 0);
	check_syntax_err(",1", MCFAN_CORELIST_EMPTY_ITEM, 0);
	check_syntax_err("1,", MCFAN_CORELIST_EMPTY_ITEM, 0);
	check_syntax_err("1,,2", MCFAN_CORELIST_EMPTY_ITEM, 0);
	check_syntax_err(",", MCFAN_CORELIST_EMPTY_ITEM, 0);
	/* empty items are found before anything else: no range is visited */
	check_syntax_err("x,2,", MCFAN_CORELIST_EMPTY_ITEM, 0);
	check_syntax_err("x", MCFAN_CORELIST_SYNTAX, 0);
	check_syntax_err("-1", MCFAN_CORELIST_SYNTAX, 0);
	check_syntax_err("1-", MCFAN_CORELIST_SYNTAX, 0);
	check_syntax_err("1-2-3", MCFAN_CORELIST_SYNTAX, 0);
	check_syntax_err(" 1", MCFAN_CORELIST_SYNTAX, 0);
	check_syntax_err("+1", MCFAN_CORELIST_SYNTAX, 0);
	check_syntax_err("0x1", MCFAN_CORELIST_SYNTAX, 0);
	check_syntax_err("128", MCFAN_CORELIST_SYNTAX, 0);
	check_syntax_err("1-128", MCFAN_CORELIST_SYNTAX, 0);
	check_syntax_err("99999999999999999999", MCFAN_CORELIST_SYNTAX, 0);
	/* items are checked in order: earlier good ones were already visited */
	check_syntax_err("1,2,x", MCFAN_CORELIST_SYNTAX, 2);
	check_syntax_err("1,5-3", MCFAN_CORELIST_DECREASING, 1);

	CHECK_EQ_INT(parse("4,9-2", TEST_MAX_ID, &r, &e), -EINVAL);
	CHECK_EQ_INT(e.kind, MCFAN_CORELIST_DECREASING);
	CHECK_EQ_INT(e.first, 9);
	CHECK_EQ_INT(e.last, 2);

	/* the callback's refusal stops the parse and is returned as it is */
	memset(&r, 0, sizeof(r));
	r.refuse_at = 1;
	CHECK_EQ_INT(mcfan_corelist_parse("1,4-6,x", 7, TEST_MAX_ID, record, &r, &e), -EEXIST);
	CHECK_EQ_INT(e.kind, MCFAN_CORELIST_VISIT);
	CHECK_EQ_INT(e.first, 4);
	CHECK_EQ_INT(e.last, 6);
	CHECK_EQ_INT(mcfan_corelist_parse("1,", 2, TEST_MAX_ID, record, &r, NULL), -EINVAL);
	CHECK_EQ_INT(mcfan_corelist_parse(NULL, 0, TEST_MAX_ID, record, &r, &e), -EINVAL);
	CHECK_EQ_INT(e.kind, MCFAN_CORELIST_EMPTY);
}

static void
test_parse_u64(void)
{
	uint64_t v = 42;

	CHECK_EQ_INT(mcfan_parse_u64("0", 0, 10, &v), 0);
	CHECK_EQ_INT(v, 0);
	CHECK_EQ_INT(mcfan_parse_u64("010", 0, 10, &v), 0);
	CHECK_EQ_INT(v, 10);
	CHECK_EQ_INT(mcfan_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	CHECK(v == UINT64_MAX, "UINT64_MAX");
	v = 42;
	CHECK_EQ_INT(mcfan_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	CHECK_EQ_INT(mcfan_parse_u64("11", 0, 10, &v), -ERANGE);
	CHECK_EQ_INT(mcfan_parse_u64("4", 5, 10, &v), -ERANGE);
	CHECK_EQ_INT(mcfan_parse_u64("", 0, 10, &v), -EINVAL);
	CHECK_EQ_INT(mcfan_parse_u64(NULL, 0, 10, &v), -EINVAL);
	CHECK_EQ_INT(mcfan_parse_u64("-1", 0, 10, &v), -EINVAL);
	CHECK_EQ_INT(mcfan_parse_u64("1 ", 0, 10, &v), -EINVAL);
	/* a non-digit anywhere is -EINVAL even where the digits before it overflow */
	CHECK_EQ_INT(mcfan_parse_u64("99999999999999999999x", 0, UINT64_MAX, &v), -EINVAL);
	CHECK_EQ_INT(v, 42);
}

static void
test_err_set(void)
{
	char err[ERR_LEN], small[6];

	memset(err, 'x', sizeof(err));
	CHECK_EQ_INT(mcfan_err_set(err, sizeof(err), -ENOSPC, "%s: %d", "slots", 3), -ENOSPC);
	CHECK_EQ_STR(err, "slots: 3");
	CHECK_EQ_INT(mcfan_err_set(err, sizeof(err), 0, "ok"), 0);
	CHECK_EQ_STR(err, "ok");
	CHECK_EQ_INT(mcfan_err_set(small, sizeof(small), -EINVAL, "truncated"), -EINVAL);
	CHECK_EQ_STR(small, "trunc");
	CHECK_EQ_INT(mcfan_err_set(NULL, 16, -EINVAL, "nowhere"), -EINVAL);
	memset(small, 'y', sizeof(small));
	CHECK_EQ_INT(mcfan_err_set(small, 0, -E2BIG, "nothing"), -E2BIG);
	CHECK_EQ_INT(small[0], 'y');
}

static void
test_bits(void)
{
	uint64_t bits[MCFAN_WORKER_WORDS];
	unsigned int i, n, seen[8];

	CHECK_EQ_INT(MCFAN_BITS_WORDS(0), 0);
	CHECK_EQ_INT(MCFAN_BITS_WORDS(1), 1);
	CHECK_EQ_INT(MCFAN_BITS_WORDS(64), 1);
	CHECK_EQ_INT(MCFAN_BITS_WORDS(65), 2);
	CHECK_EQ_INT(MCFAN_WORKER_WORDS, (MCFAN_MAX_WORKERS + 63) / 64);
	CHECK_EQ_INT(sizeof(bits) * 8 >= MCFAN_MAX_WORKERS, 1);

	memset(bits, 0, sizeof(bits));
	CHECK_EQ_INT(mcfan_bits_count(bits, MCFAN_MAX_WORKERS), 0);
	CHECK_EQ_INT(mcfan_bits_next(bits, MCFAN_MAX_WORKERS, 0), MCFAN_MAX_WORKERS);
	mcfan_bits_set(bits, 0);
	mcfan_bits_set(bits, 63);
	mcfan_bits_set(bits, 64);
	mcfan_bits_set(bits, MCFAN_MAX_WORKERS - 1);
	mcfan_bits_set(bits, 64); /* setting twice is setting once */
	CHECK_EQ_INT(bits[0], (UINT64_C(1) << 63) | 1);
	CHECK_EQ_INT(bits[1] & 1, 1);
	CHECK(mcfan_bits_test(bits, 0) && mcfan_bits_test(bits, 63) && mcfan_bits_test(bits, 64),
	      "bits 0, 63, 64 set");
	CHECK(!mcfan_bits_test(bits, 1) && !mcfan_bits_test(bits, 62) &&
	      !mcfan_bits_test(bits, 65), "bits 1, 62, 65 clear");
	CHECK_EQ_INT(mcfan_bits_count(bits, MCFAN_MAX_WORKERS), 4);
	/* counting stops at n_bits, also inside a word */
	CHECK_EQ_INT(mcfan_bits_count(bits, 0), 0);
	CHECK_EQ_INT(mcfan_bits_count(bits, 1), 1);
	CHECK_EQ_INT(mcfan_bits_count(bits, 63), 1);
	CHECK_EQ_INT(mcfan_bits_count(bits, 64), 2);
	CHECK_EQ_INT(mcfan_bits_count(bits, 65), 3);

	CHECK_EQ_INT(mcfan_bits_next(bits, MCFAN_MAX_WORKERS, 0), 0);
	CHECK_EQ_INT(mcfan_bits_next(bits, MCFAN_MAX_WORKERS, 1), 63);
	CHECK_EQ_INT(mcfan_bits_next(bits, MCFAN_MAX_WORKERS, 64), 64);
	CHECK_EQ_INT(mcfan_bits_next(bits, MCFAN_MAX_WORKERS, 65), MCFAN_MAX_WORKERS - 1);
	CHECK_EQ_INT(mcfan_bits_next(bits, 64, 1), 63);
	CHECK_EQ_INT(mcfan_bits_next(bits, 63, 1), 63); /* bit 63 is past n_bits: none */
	CHECK_EQ_INT(mcfan_bits_next(bits, 10, 200), 10);

	n = 0;
	MCFAN_BITS_FOREACH(i, bits, MCFAN_MAX_WORKERS)
		if (n < RTE_DIM(seen))
			seen[n++] = i;
	CHECK_EQ_INT(n, 4);
	CHECK_EQ_INT(seen[0], 0);
	CHECK_EQ_INT(seen[1], 63);
	CHECK_EQ_INT(seen[2], 64);
	CHECK_EQ_INT(seen[3], MCFAN_MAX_WORKERS - 1);
	n = 0;
	MCFAN_BITS_FOREACH(i, bits, 64)
		n++;
	CHECK_EQ_INT(n, 2);

	mcfan_bits_clear(bits, 63);
	mcfan_bits_clear(bits, 5); /* clearing a clear bit changes nothing */
	CHECK(!mcfan_bits_test(bits, 63), "bit 63 cleared");
	CHECK_EQ_INT(mcfan_bits_count(bits, MCFAN_MAX_WORKERS), 3);
	CHECK_EQ_INT(bits[0], 1);
}

/* The tx stall warning's decision (lib/util/mcfan_txstall.h): the trial's memif output,
 * tx_sent 0 and tx_full growing, is warned once after the window; any copy sent ends the
 * span; full copies with sends between them, a burst that stops, or none refused, never. */
static void
test_txstall(void)
{
	struct mcfan_txstall s = {0};

	/* tx_sent 0, tx_full 0 -> 3609 over 2 s (window 1000 ms) */
	CHECK(!mcfan_txstall_check(&s, 0, 0, 100, 1000), "first reading");
	CHECK(!mcfan_txstall_check(&s, 0, 600, 200, 1000), "refused, none sent: span begins");
	CHECK(!mcfan_txstall_check(&s, 0, 1200, 700, 1000), "0.5 s: not yet");
	CHECK(mcfan_txstall_check(&s, 0, 2400, 1200, 1000), "1 s, none sent, more full: warn");
	CHECK(!mcfan_txstall_check(&s, 0, 3609, 2200, 1000), "once only");
	CHECK(!mcfan_txstall_check(&s, 5, 4000, 9200, 1000), "warned: never again");

	/* sends between the full copies: each send ends the span, no warning */
	memset(&s, 0, sizeof(s));
	CHECK(!mcfan_txstall_check(&s, 10, 5, 100, 1000), "first reading");
	CHECK(!mcfan_txstall_check(&s, 20, 50, 900, 1000), "sent");
	CHECK(!mcfan_txstall_check(&s, 30, 90, 1800, 1000), "sent again");
	CHECK(!mcfan_txstall_check(&s, 40, 900, 2700, 1000), "still sending: no warning");

	/* idle, then a burst refused that stops: no more refused after the span began */
	memset(&s, 0, sizeof(s));
	CHECK(!mcfan_txstall_check(&s, 7, 3, 100, 1000), "first reading");
	CHECK(!mcfan_txstall_check(&s, 7, 3, 5000, 1000), "idle, nothing refused");
	CHECK(!mcfan_txstall_check(&s, 7, 40, 6000, 1000), "a burst refused: span begins");
	CHECK(!mcfan_txstall_check(&s, 7, 40, 9000, 1000), "nothing more refused: no warning");
	CHECK(mcfan_txstall_check(&s, 7, 41, 9100, 1000), "refused again 3.1 s on: warn");
}

/* mcfan_opt_value(): the spellings getopt_long() and EAL take, and the near misses. */
static void
test_opt_value(void)
{
	char *argv[] = {"mcfan", "--file-prefix", "a", "--file-prefix=b", "--file-prefixc",
			"-l0-1", "-l", "2-3", "--lcores=(0-1)@0", "--vdev"};
	int argc = (int)RTE_DIM(argv), i = 1;

	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "--file-prefix"), "a");
	CHECK_EQ_INT(i, 2); /* moved past the separate value */
	i = 3;
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "--file-prefix"), "b");
	CHECK_EQ_INT(i, 3);
	i = 4; /* a longer long option is another option */
	CHECK(mcfan_opt_value(argc, argv, &i, "--file-prefix") == NULL, "--file-prefixc");
	i = 5;
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "-l"), "0-1");
	i = 6;
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "-l"), "2-3");
	CHECK_EQ_INT(i, 7);
	i = 8; /* a short option is not a prefix of a long one */
	CHECK(mcfan_opt_value(argc, argv, &i, "-l") == NULL, "-l against --lcores");
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "--lcores"), "(0-1)@0");
	i = 9; /* last, without its value */
	CHECK(mcfan_opt_value(argc, argv, &i, "--vdev") == NULL, "--vdev with no value");
	CHECK_EQ_INT(i, 9);
	i = 1;
	CHECK(mcfan_opt_value(argc, argv, &i, "--vdev") == NULL, "another option");
}

/* Short options bundled as getopt reads them: flags without a value (-h, -v) before the
 * option that takes one, its value attached or the next argument: "-vl0-1" is -v -l 0-1,
 * "-vm 512" is -v -m 512 (before: none of the pre-EAL scans saw -l or -m in them, and EAL
 * ran with -m1G as 1 MB). */
static void
test_bundled_short(void)
{
	char *argv[] = {"mcfan", "-vl0-1", "-hvm", "1G", "-vc0x3", "-v", "-hv", "-lv",
			"-va", "0000:01:00.0", "-vx"};
	int argc = (int)RTE_DIM(argv), i;

	for (i = 1; i < argc; i++)
		CHECK_EQ_INT(mcfan_eal_arg_is_value(argc, argv, i), i == 3 || i == 9);
	i = 1;
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "-l"), "0-1");
	i = 1;
	CHECK(mcfan_opt_value(argc, argv, &i, "-c") == NULL, "-vl0-1 holds no -c");
	i = 2;
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "-m"), "1G");
	CHECK_EQ_INT(i, 3); /* moved past the separate value */
	i = 4;
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "-c"), "0x3");
	i = 4; /* "-vc0x3": -c, not -l */
	CHECK(mcfan_opt_value(argc, argv, &i, "-l") == NULL, "-vc0x3 holds no -l");
	i = 7; /* "-lv": -l with the value "v", not -v */
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "-l"), "v");
	i = 8;
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "-a"), "0000:01:00.0");
	i = 10; /* a letter EAL does not know: no option of mcfan's scans */
	CHECK(mcfan_opt_value(argc, argv, &i, "-l") == NULL, "-vx");
	CHECK(mcfan_eal_has_flag(argc, argv, "-h"), "-h bundled in -hvm");
	CHECK(mcfan_eal_has_flag(argc, argv, "-v"), "-v bundled");
	{
		char *nh[] = {"mcfan", "-lh", "--huge-dir", "-h", "-vl", "-h"};

		/* -lh: -l "h"; "--huge-dir -h": a directory; "-vl -h": -l "-h" */
		CHECK(!mcfan_eal_has_flag((int)RTE_DIM(nh), nh, "-h"), "no -h outside values");
	}
}

/* An EAL option's separate value is no option, whatever it looks like (getopt_long() gives
 * it to the option): "--file-prefix -mine" is the prefix "-mine", not -m "ine" (before, the
 * -m check refused it as "-m 'ine'"); "--huge-dir -h" is a directory, not EAL's help. */
static void
test_eal_arg_is_value(void)
{
	char *argv[] = {"mcfan", "--file-prefix", "-mine", "-m", "512", "--huge-dir", "-h",
			"--no-huge", "--vdev", "--in-memory", "-m1G", "--log-level=-l", "-l",
			"--vdev=x", "--lcores"};
	int argc = (int)RTE_DIM(argv), i;

	for (i = 1; i < argc; i++)
		CHECK_EQ_INT(mcfan_eal_arg_is_value(argc, argv, i),
			     i == 2 || i == 4 || i == 6 || i == 9 || i == 13);
	i = 2;
	CHECK(mcfan_opt_value(argc, argv, &i, "-m") == NULL, "-mine: the value of --file-prefix");
	CHECK_EQ_INT(i, 2);
	i = 3;
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "-m"), "512");
	i = 10; /* after "--vdev --in-memory": an option again */
	CHECK_EQ_STR(mcfan_opt_value(argc, argv, &i, "-m"), "1G");
	i = 13;
	CHECK(mcfan_opt_value(argc, argv, &i, "--vdev") == NULL, "--vdev=x: the value of -l");
	CHECK(!mcfan_eal_has_flag(argc, argv, "-h"), "-h: the value of --huge-dir");
	CHECK(!mcfan_eal_has_flag(argc, argv, "--in-memory"), "--in-memory: the value of --vdev");
	CHECK(mcfan_eal_has_flag(argc, argv, "--no-huge"), "--no-huge: an option");
}
/* The pcap writer's TSC-to-wall-clock conversion (mcfan_tsclock.h): a TSC that runs 1 ppm
 * slow against CLOCK_REALTIME over an hour, the writer's loop every 100 ms. */
static int64_t
tsclock_err(const struct mcfan_tsclock *c, uint64_t tsc, uint64_t wall)
{
	return (int64_t)(mcfan_tsclock_ns(c, tsc) - wall);
}

static void
test_tsclock(void)
{
	const uint64_t hz = 1000000000ull, t0 = 5000000000ull, w0 = 1700000000ull * hz;
	struct mcfan_tsclock once = { .hz = hz }, synced = { .hz = hz };
	uint64_t tsc, wall, syncs = 0;
	int64_t e, worst = 0;

	/* wall(tsc) = w0 + (tsc - t0) * 1.000001 */
#define WALL(t) (w0 + ((t) - t0) + ((t) - t0) / 1000000u)
	mcfan_tsclock_sync(&once, t0, w0);
	mcfan_tsclock_sync(&synced, t0, w0);
	CHECK(!mcfan_tsclock_due(&synced, t0 + hz - 1), "tsclock: due before a second");
	CHECK(mcfan_tsclock_due(&synced, t0 + hz), "tsclock: not due after a second");
	for (tsc = t0 + hz / 10; tsc <= t0 + 3600 * hz; tsc += hz / 10) {
		if (mcfan_tsclock_due(&synced, tsc)) {
			mcfan_tsclock_sync(&synced, tsc, WALL(tsc));
			syncs++;
		}
		/* a copy received 50 ms before, converted now (it waited in the ring) */
		wall = WALL(tsc - hz / 20);
		e = tsclock_err(&synced, tsc - hz / 20, wall);
		if ((e < 0 ? -e : e) > worst)
			worst = e < 0 ? -e : e;
	}
	CHECK(syncs == 3600, "tsclock: %" PRIu64 " syncs in an hour, expected 3600", syncs);
	/* 1 ppm of one second and a bit: within 2 us all hour long */
	CHECK(worst <= 2000, "tsclock: synced every second, off by %" PRId64 " ns", worst);
	/* one pair at start, as before: 3.6 ms behind after the hour */
	e = tsclock_err(&once, t0 + 3600 * hz, WALL(t0 + 3600 * hz));
	CHECK(e < -3500000 && e > -3700000, "tsclock: one pair at start: off by %" PRId64, e);
	/* before the sync: earlier, not the sync's own time */
	CHECK(mcfan_tsclock_ns(&synced, synced.tsc - hz) == synced.ns - hz,
	      "tsclock: a TSC a second before the sync");
	CHECK(mcfan_tsclock_ns(&synced, 0) == synced.ns - (synced.tsc / hz) * hz -
	      (synced.tsc % hz), "tsclock: TSC 0");
#undef WALL
}


int
main(void)
{
	test_opt_value();
	test_eal_arg_is_value();
	test_bundled_short();
	test_corelist_good();
	test_corelist_errors();
	test_parse_u64();
	test_err_set();
	test_bits();
	test_txstall();
	test_tsclock();
	return unit_summary("util");
}
