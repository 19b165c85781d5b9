/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The reader ring (lib/reader): the writer's inlines against libmcfan-reader, with readers
 * in threads and in processes: exact counts, exact lapped counts, wrap of the ring,
 * blocking waits, dead readers, close, bad arguments. No EAL, no devices: only /dev/shm
 * objects named after this process, removed at the end.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"
#include "mcfan_reader.h"
#include "mcfan_reader_writer.h"

UNIT_DEFINE_COUNTERS;

static char prefix[64];
/** Bytes of an expected sentence of mcfan_reader_explain(). */
#define WANT_MAX 512

/* Frame i: len = 60 + i % 200 bytes, each byte (i + k) & 0xff, so a torn frame shows. */
static uint32_t
frame_len(uint64_t i)
{
	return 60 + (uint32_t)(i % 200);
}

static void
put(struct mcfan_rw *w, uint64_t i)
{
	uint32_t len = frame_len(i), k;
	uint8_t *d = mcfan_rw_begin(w, len, i);

	if (d == NULL)
		return;
	for (k = 0; k < len; k++)
		d[k] = (uint8_t)(i + k);
	mcfan_rw_end(w, len);
}

static bool
frame_ok(const uint8_t *d, uint32_t len, uint64_t seq)
{
	uint32_t k;

	if (len != frame_len(seq))
		return false;
	for (k = 0; k < len; k++)
		if (d[k] != (uint8_t)(seq + k))
			return false;
	return true;
}

static struct mcfan_rw *
make_ring(unsigned int port, uint32_t n_slots, uint32_t n_readers)
{
	struct mcfan_rw *w = NULL;
	char g[64];
	int ret;

	snprintf(g, sizeof(g), "239.9.9.1:%u", port);
	ret = mcfan_rw_create(prefix, "239.9.9.1", port, g, n_slots, 512, n_readers, 0, &w);
	CHECK(ret == 0, "create: %s", strerror(-ret));
	return w;
}

static void
test_basic(void)
{
	struct mcfan_rw *w = make_ring(1001, 64, 4);
	struct mcfan_reader *r = NULL, *r2 = NULL;
	struct mcfan_reader_frame f;
	struct mcfan_reader_stats st;
	const char *group;
	uint8_t buf[512];
	uint64_t i;

	if (w == NULL)
		return;
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1001", 0, &r), 0);
	group = mcfan_reader_group(r);
	CHECK_EQ_STR(group, "239.9.9.1:1001");
	CHECK(mcfan_reader_group(NULL) == NULL, "mcfan_reader_group(NULL): NULL");
	CHECK_EQ_INT(mcfan_reader_next(r, &f), 0);
	CHECK_EQ_INT(mcfan_reader_wait(r, 0), 0);
	/* 10 frames: written but not flushed are not seen */
	for (i = 0; i < 10; i++)
		put(w, i);
	CHECK_EQ_INT(mcfan_reader_next(r, &f), 0);
	mcfan_rw_flush(w);
	CHECK_EQ_INT(mcfan_reader_wait_ms(r, 100), 1);
	for (i = 0; i < 5; i++) {
		CHECK_EQ_INT(mcfan_reader_next(r, &f), 1);
		CHECK_EQ_INT(f.seq, i);
		CHECK_EQ_INT(f.lost, 0);
		CHECK_EQ_INT(f.rx_ns, i);
		CHECK(frame_ok(f.data, f.len, i), "frame %" PRIu64 " intact", i);
		CHECK_EQ_INT(mcfan_reader_frame_valid(r, &f), 1);
	}
	for (; i < 10; i++) {
		CHECK_EQ_INT(mcfan_reader_read(r, buf, sizeof(buf), &f), 1);
		CHECK(f.data == buf && frame_ok(buf, f.len, i), "copy %" PRIu64, i);
	}
	CHECK_EQ_INT(mcfan_reader_read(r, buf, sizeof(buf), &f), 0);
	/* a buffer too small: the frame stays */
	put(w, 10);
	mcfan_rw_flush(w);
	CHECK_EQ_INT(mcfan_reader_read(r, buf, 10, &f), -EMSGSIZE);
	CHECK_EQ_INT(f.len, frame_len(10));
	CHECK_EQ_INT(mcfan_reader_read(r, buf, sizeof(buf), &f), 1);
	CHECK_EQ_INT(f.seq, 10);
	/* a second reader from the oldest frame sees all 11 */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1", MCFAN_READER_OLDEST, &r2), 0);
	for (i = 0; mcfan_reader_next(r2, &f) == 1; i++)
		CHECK_EQ_INT(f.seq, i);
	CHECK_EQ_INT(i, 11);
	/* too big: counted, not written */
	CHECK(mcfan_rw_begin(w, 512 - MCFAN_RD_SLOT_HDR + 1, 0) == NULL, "too big refused");
	CHECK_EQ_INT(mcfan_atomic_u64_load(&w->too_big, memory_order_relaxed), 1);
	CHECK(mcfan_rw_begin(w, 512 - MCFAN_RD_SLOT_HDR, 0) != NULL, "a full slot fits");
	mcfan_rw_end(w, 512 - MCFAN_RD_SLOT_HDR);
	mcfan_rw_flush(w);
	CHECK_EQ_INT(mcfan_reader_stats(r, &st), 0);
	CHECK_EQ_INT(st.frames, 11);
	CHECK_EQ_INT(st.head, 12);
	CHECK_EQ_INT(st.lag, 1);
	CHECK_EQ_INT(st.lost, 0);
	CHECK_EQ_INT(st.n_slots, 64);
	CHECK_EQ_INT(st.data_max, 512 - MCFAN_RD_SLOT_HDR);
	{
		struct mcfan_rw_reader_info info[4];
		unsigned int n = mcfan_rw_readers(w, info, 4, 0);

		CHECK_EQ_INT(n, 2);
		CHECK_EQ_INT(info[0].pid, getpid());
		CHECK(info[0].alive, "alive");
		CHECK_EQ_INT(info[0].frames, 11);
		CHECK_EQ_INT(info[0].lag, 1);
		CHECK_EQ_INT(info[1].frames, 11);
	}
	/* a fifth reader on 4 rows: the first two and two more, then -ENOSPC */
	{
		struct mcfan_reader *r3 = NULL, *r4 = NULL, *r5 = NULL;

		CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1001", 0, &r3), 0);
		CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1001", 0, &r4), 0);
		CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1001", 0, &r5), -ENOSPC);
		CHECK(r5 == NULL, "no reader on -ENOSPC");
		mcfan_reader_close(r4);
		CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1001", 0, &r5), 0);
		mcfan_reader_close(r5);
		mcfan_reader_close(r3);
	}
	mcfan_reader_close(r2);
	/* another process cannot take the name of a ring whose writer runs */
	{
		pid_t c = fork();
		int st = 0;

		if (c == 0) {
			struct mcfan_rw *w2 = NULL;

			_exit(mcfan_rw_create(prefix, "239.9.9.1", 1001, "x", 64, 512, 4, 0, &w2) ==
			      -EADDRINUSE ? 0 : 1);
		}
		waitpid(c, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "second writer refused: -EADDRINUSE");
	}
	/* closed: what is left is read, then -EPIPE */
	mcfan_rw_destroy(w);
	CHECK_EQ_INT(mcfan_reader_next(r, &f), 1);
	CHECK_EQ_INT(mcfan_reader_next(r, &f), -EPIPE);
	CHECK_EQ_INT(mcfan_reader_wait_ms(r, 1000), -EPIPE);
	/* the group's string is the reader's own (mcfan_reader.h): the same pointer and text
	 * after the writer closed and unlinked the ring, until mcfan_reader_close() */
	CHECK(mcfan_reader_group(r) == group, "mcfan_reader_group(): the same string until close");
	CHECK_EQ_STR(group, "239.9.9.1:1001");
	mcfan_reader_close(r);
	/* gone: no such ring */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1001", 0, &r), -ENOENT);
}

static void
test_bad_args(void)
{
	struct mcfan_reader *r = NULL;
	struct mcfan_rw *w = NULL;
	struct mcfan_rw *w2 = NULL;
	char want[WANT_MAX], got[WANT_MAX];

	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:0", 0, &r), -EINVAL);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:70000", 0, &r), -EINVAL);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.x", 0, &r), -EINVAL);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "[ff3e::1", 0, &r), -EINVAL);
	CHECK_EQ_INT(mcfan_reader_open("a/b", "239.9.9.1", 0, &r), -EINVAL);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1", 8, &r), -EINVAL);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1", 0, NULL), -EINVAL);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.77", 0, &r), -ENOENT);
	CHECK_EQ_INT(mcfan_reader_next(NULL, NULL), -EINVAL);
	CHECK_EQ_INT(mcfan_reader_wait(NULL, 0), -EINVAL);
	/* INT_MIN, no errno of either sign: strerror(3)'s text (before: -INT_MIN, undefined
	 * behaviour, which the sanitizer pass aborts on) */
	/* each text copied before the next call: glibc's strerror(3) of an unknown errno
	 * returns a buffer that its next call frees (AddressSanitizer saw the test read it) */
	snprintf(want, sizeof(want), "%s", strerror(INT_MIN));
	snprintf(got, sizeof(got), "%s", mcfan_reader_strerror(INT_MIN));
	CHECK_EQ_STR(got, want);
	snprintf(got, sizeof(got), "%s", mcfan_reader_explain(INT_MIN));
	CHECK_EQ_STR(got, want);
	snprintf(want, sizeof(want), "%s", strerror(INT_MAX));
	snprintf(got, sizeof(got), "%s", mcfan_reader_strerror(INT_MAX));
	CHECK_EQ_STR(got, want);
	CHECK_EQ_INT(mcfan_rw_create(prefix, "239.9.9.1", 5, "x", 3, 512, 1, 0, &w), -EINVAL);
	CHECK_EQ_INT(mcfan_rw_create(prefix, "239.9.9.1", 5, "x", 4, 100, 1, 0, &w), -EINVAL);
	CHECK_EQ_INT(mcfan_rw_create(prefix, "239.9.9.1", 5, "x", 4, 512, 0, 0, &w), -EINVAL);
	/* two rings of one address: no port is ambiguous; IPv6 names */
	CHECK_EQ_INT(mcfan_rw_create(prefix, "239.9.9.1", 5, "239.9.9.1:5", 4, 512, 1, 0, &w), 0);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1", 0, &r), 0);
	mcfan_reader_close(r);
	CHECK_EQ_INT(mcfan_rw_create(prefix, "239.9.9.1", 6, "239.9.9.1:6", 4, 512, 1, 0, &w2), 0);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1", 0, &r), -ENOTUNIQ);
	mcfan_rw_destroy(w);
	mcfan_rw_destroy(w2);
	CHECK_EQ_INT(mcfan_rw_create(prefix, "ff3e::1", 7, "[ff3e::1]:7", 4, 512, 1, 0, &w), 0);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "[ff3e:0::1]:7", 0, &r), 0);
	mcfan_reader_close(r);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "ff3e::1", 0, &r), 0);
	mcfan_reader_close(r);
	/* a port the ring does not have: the hint names the one it has */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "[ff3e::1]:8", 0, &r), -ENOENT);
	snprintf(want, sizeof(want), "group [ff3e::1]:8 of file prefix %s: no such reader ring; "
		 "mcfan serves [ff3e::1]:7: use --group [ff3e::1]:7", prefix);
	CHECK_EQ_STR(mcfan_reader_explain(-ENOENT), want);
	/* the port written without brackets, "ff3e::1:7": an address (ff3e::1:7), whose ring
	 * there is not; the hint says the brackets and names the ring (before: only "is mcfan
	 * running with --worker-engine readers, and the group joined?"); docs/bad-input.md 421 */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "ff3e::1:7", 0, &r), -ENOENT);
	snprintf(want, sizeof(want), "group ff3e::1:7 of file prefix %s: no such reader ring; "
		 "an IPv6 group with a port goes in brackets: mcfan serves [ff3e::1]:7: use "
		 "--group [ff3e::1]:7", prefix);
	CHECK_EQ_STR(mcfan_reader_explain(-ENOENT), want);
	/* no ring for the bracketed reading either: the plain sentence */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "ff3e::1:9", 0, &r), -ENOENT);
	snprintf(want, sizeof(want), "group ff3e::1:9 of file prefix %s: %s", prefix,
		 mcfan_reader_strerror(-ENOENT));
	CHECK_EQ_STR(mcfan_reader_explain(-ENOENT), want);
	mcfan_rw_destroy(w);
}

/*
 * Bad input to mcfan_reader_open(): each kind gets its own errno and a sentence of
 * mcfan_reader_explain() that names it and says what is allowed (before: -EINVAL and "invalid
 * argument: a bad file prefix, group or flags, or NULL" for all, -ENOENT for a unicast
 * group, and a bare "no such reader ring" for a group asked with a port it was not joined on).
 */
static void
test_open_explain(void)
{
	struct mcfan_reader *r = NULL;
	struct mcfan_rw *w = NULL, *w2 = NULL;
	char longp[400], want[WANT_MAX];

	memset(longp, 'p', 300);
	longp[300] = '\0';
	CHECK_EQ_INT(mcfan_reader_open(longp, "239.9.9.1:3999", 0, &r), -ENAMETOOLONG);
	CHECK_EQ_STR(mcfan_reader_explain(-ENAMETOOLONG), "file prefix "
		     "'pppppppppppppppppppppppppppppppppppppppp...': 300 characters, more than the "
		     "186 a reader ring's name allows (mcfan refuses longer ones too)");
	CHECK(strstr(mcfan_reader_strerror(-ENAMETOOLONG), "at most 186 characters") != NULL,
	      "strerror(ENAMETOOLONG) names the limit: %s",
	      mcfan_reader_strerror(-ENAMETOOLONG));
	/* 186 characters are allowed (no ring: -ENOENT), 187 are not */
	longp[MCFAN_RD_PREFIX_MAX] = '\0';
	CHECK_EQ_INT(mcfan_reader_open(longp, "239.9.9.1:3999", 0, &r), -ENOENT);
	longp[MCFAN_RD_PREFIX_MAX] = 'p';
	longp[MCFAN_RD_PREFIX_MAX + 1] = '\0';
	CHECK_EQ_INT(mcfan_reader_open(longp, "239.9.9.1:3999", 0, &r), -ENAMETOOLONG);
	CHECK_EQ_INT(mcfan_reader_open("../../etc", "239.9.9.1:3999", 0, &r), -EINVAL);
	CHECK_EQ_STR(mcfan_reader_explain(-EINVAL), "file prefix '../../etc': has a '/' (it is "
		     "not a path): give the name of mcfan's EAL --file-prefix: a directory name "
		     "under DPDK's runtime directory (not empty, no '/' or '%', not . or ..)");
	CHECK_EQ_INT(mcfan_reader_open("50%", "239.9.9.1:3999", 0, &r), -EINVAL);
	CHECK(strstr(mcfan_reader_explain(-EINVAL), "file prefix '50%': has a '%'") != NULL,
	      "'%%' named: %s", mcfan_reader_explain(-EINVAL));
	CHECK_EQ_INT(mcfan_reader_open("..", "239.9.9.1:3999", 0, &r), -EINVAL);
	CHECK(strstr(mcfan_reader_explain(-EINVAL), "file prefix '..': is a directory") != NULL,
	      "'..' named: %s", mcfan_reader_explain(-EINVAL));
	/* a control character (a CR kept from a CRLF file): refused, not quoted (before:
	 * looked up as a ring name, -ENOENT) */
	CHECK_EQ_INT(mcfan_reader_open("feed1\r", "239.9.9.1:3999", 0, &r), -EINVAL);
	CHECK(strstr(mcfan_reader_explain(-EINVAL), "file prefix of 6 characters: has a control "
		     "character (0x0d, character 6; a line end of the file it was read from?)") !=
	      NULL && strchr(mcfan_reader_explain(-EINVAL), '\r') == NULL,
	      "control character named, not printed: %s", mcfan_reader_explain(-EINVAL));
	/* groups: not multicast, a bad port, not an address */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "10.0.0.1", 0, &r), -EADDRNOTAVAIL);
	CHECK_EQ_STR(mcfan_reader_explain(-EADDRNOTAVAIL), "group 10.0.0.1: 10.0.0.1 is not a "
		     "multicast address (IPv4 224.0.0.0/4, IPv6 ff00::/8)");
	CHECK_EQ_INT(mcfan_reader_open(prefix, "[fe80::1]:5000", 0, &r), -EADDRNOTAVAIL);
	CHECK_EQ_STR(mcfan_reader_explain(-EADDRNOTAVAIL), "group [fe80::1]:5000: fe80::1 is not "
		     "a multicast address (IPv4 224.0.0.0/4, IPv6 ff00::/8)");
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.255.255.255:9", 0, &r), -ENOENT);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "240.0.0.1:9", 0, &r), -EADDRNOTAVAIL);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:70000", 0, &r), -EINVAL);
	CHECK_EQ_STR(mcfan_reader_explain(-EINVAL), "group 239.9.9.1:70000: the UDP port "
		     "'70000' is not 1..65535");
	CHECK_EQ_INT(mcfan_reader_open(prefix, "bogus", 0, &r), -EINVAL);
	CHECK_EQ_STR(mcfan_reader_explain(-EINVAL), "group bogus: 'bogus' is not a group: give "
		     "GROUP or GROUP:PORT, e.g. 239.9.9.1:3999 or [ff3e::1]:5000");
	/* an empty group (an unset shell variable): said so, not "group : '' is not a group" */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "", 0, &r), -EINVAL);
	CHECK_EQ_STR(mcfan_reader_explain(-EINVAL), "group '': empty: give GROUP or GROUP:PORT, "
		     "e.g. 239.9.9.1:3999 or [ff3e::1]:5000");
	/* a later -EINVAL without a sentence of its own does not show the old one */
	CHECK_EQ_INT(mcfan_reader_next(NULL, NULL), -EINVAL);
	CHECK_EQ_STR(mcfan_reader_explain(-EINVAL), mcfan_reader_strerror(-EINVAL));
	/* no ring of the prefix at all: the prefix is named as the likely mistake (before:
	 * only "is mcfan running with --worker-engine readers, and the group joined?", also
	 * for a mistyped prefix); docs/bad-input.md 602 */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.8:3999", 0, &r), -ENOENT);
	snprintf(want, sizeof(want), "group 239.9.9.8:3999 of file prefix %s: no such reader "
		 "ring; the file prefix %s has no reader rings at all: give the --file-prefix mcfan "
		 "was started with (EAL's default: rte), and run mcfan with --worker-engine readers",
		 prefix, prefix);
	CHECK_EQ_STR(mcfan_reader_explain(-ENOENT), want);
	/* rings of the prefix, none of the address: the generic sentence; with a port the
	 * any-port ring lacks, the hint */
	CHECK_EQ_INT(mcfan_rw_create(prefix, "239.9.9.9", 0, "239.9.9.9", 4, 512, 1, 0, &w2), 0);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.8:3999", 0, &r), -ENOENT);
	snprintf(want, sizeof(want), "group 239.9.9.8:3999 of file prefix %s: %s", prefix,
		 mcfan_reader_strerror(-ENOENT));
	CHECK_EQ_STR(mcfan_reader_explain(-ENOENT), want);
	mcfan_rw_destroy(w2);
	CHECK_EQ_INT(mcfan_rw_create(prefix, "239.9.9.8", 0, "239.9.9.8", 4, 512, 1, 0, &w), 0);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.8:3999", 0, &r), -ENOENT);
	snprintf(want, sizeof(want), "group 239.9.9.8:3999 of file prefix %s: no such reader "
		 "ring; mcfan serves 239.9.9.8 (any port): use --group 239.9.9.8", prefix);
	CHECK_EQ_STR(mcfan_reader_explain(-ENOENT), want);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.8", 0, &r), 0);
	mcfan_reader_close(r);
	mcfan_rw_destroy(w);
}

/* Lapping, in one thread: exact counts over several wraps. */
static void
test_lapped(void)
{
	struct mcfan_rw *w = make_ring(1002, 16, 2);
	struct mcfan_reader *r = NULL;
	struct mcfan_reader_frame f;
	struct mcfan_reader_stats st;
	uint8_t buf[512];
	uint64_t i, got = 0;

	if (w == NULL)
		return;
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1002", 0, &r), 0);
	/* 100 frames, then read: 16 left, 84 lost, in one lap */
	for (i = 0; i < 100; i++)
		put(w, i);
	mcfan_rw_flush(w);
	/* before it reads (a stopped or slow reader): the 84 are lost now, and so is the lap
	 * that lost them, in the library's counts and in mcfan's view of the row alike
	 * (before: lost 84 but lapped 0 until the reader next read) */
	mcfan_reader_stats(r, &st);
	CHECK_EQ_INT(st.lost, 84);
	CHECK_EQ_INT(st.laps, 1);
	CHECK_EQ_INT(st.lag, 16);
	{
		struct mcfan_rw_reader_info info[2];

		CHECK_EQ_INT(mcfan_rw_readers(w, info, 2, 0), 1);
		CHECK_EQ_INT(info[0].lost, 84);
		CHECK_EQ_INT(info[0].laps, 1);
		CHECK_EQ_INT(info[0].lag, 16);
	}
	while (mcfan_reader_read(r, buf, sizeof(buf), &f) == 1) {
		CHECK(frame_ok(buf, f.len, f.seq), "intact %" PRIu64, f.seq);
		if (got == 0) {
			CHECK_EQ_INT(f.seq, 84);
			CHECK_EQ_INT(f.lost, 84);
		} else {
			CHECK_EQ_INT(f.lost, 0);
		}
		got++;
	}
	CHECK_EQ_INT(got, 16);
	mcfan_reader_stats(r, &st);
	CHECK_EQ_INT(st.lost, 84);
	CHECK_EQ_INT(st.laps, 1);
	CHECK_EQ_INT(st.frames + st.lost, 100);
	/* the writer overwrites a frame mid-burst (not yet flushed) while the reader is behind:
	 * the slot's sequence says so and the reader skips exactly to the oldest valid one */
	for (i = 100; i < 110; i++)
		put(w, i);
	mcfan_rw_flush(w);
	for (i = 110; i < 130; i++)
		put(w, i); /* not flushed: head says 110, the slots hold up to 129 */
	/* 100..109 are all overwritten, 110.. not published yet: nothing, 10 lost */
	CHECK_EQ_INT(mcfan_reader_next(r, &f), 0);
	mcfan_reader_stats(r, &st);
	CHECK_EQ_INT(st.lost, 94);
	CHECK_EQ_INT(st.laps, 2);
	mcfan_rw_flush(w);
	/* the oldest frame left is 114 (= 129 - 16 + 1): 110..113 lost too, 14 in all */
	CHECK_EQ_INT(mcfan_reader_next(r, &f), 1);
	CHECK_EQ_INT(f.seq, 114);
	CHECK_EQ_INT(f.lost, 14);
	CHECK(frame_ok(f.data, f.len, 114), "frame 114 intact");
	/* zero-copy frame overwritten after it was returned: valid() moves it to lost */
	for (i = 130; i < 150; i++)
		put(w, i);
	mcfan_rw_flush(w);
	CHECK_EQ_INT(mcfan_reader_frame_valid(r, &f), 0);
	mcfan_reader_stats(r, &st);
	/* cursor 115, head 150: 115..133 are overwritten (lost now), 134..149 readable */
	CHECK_EQ_INT(st.lag, 16);
	CHECK_EQ_INT(st.frames + st.lost, 134);
	CHECK_EQ_INT(st.frames + st.lost + st.lag, 150);
	{
		/* mcfan's view of the row says the same (show readers, /metrics) */
		struct mcfan_rw_reader_info info[2];

		CHECK_EQ_INT(mcfan_rw_readers(w, info, 2, 0), 1);
		CHECK_EQ_INT(info[0].lag, 16);
		CHECK_EQ_INT(info[0].frames + info[0].lost + info[0].lag, 150);
	}
	while (mcfan_reader_next(r, &f) == 1)
		got++;
	mcfan_reader_stats(r, &st);
	CHECK_EQ_INT(st.frames + st.lost, 150);
	CHECK_EQ_INT(st.lag, 0);
	mcfan_reader_close(r);
	mcfan_rw_destroy(w);
}

/* ---- a writer thread and reader threads ---- */

#define THR_FRAMES 200000u
#define THR_READERS 4

struct thr {
	struct mcfan_rw *w;
	unsigned int port;
	int slow;             /* sleep now and then: lapped */
	uint64_t frames, lost, bad, order;
	int ret;
	volatile int *ready;
};

static void *
reader_thread(void *arg)
{
	struct thr *t = arg;
	struct mcfan_reader *r = NULL;
	struct mcfan_reader_frame f;
	uint8_t buf[512];
	uint64_t expect = 0;
	char g[32];
	int n;

	snprintf(g, sizeof(g), "239.9.9.1:%u", t->port);
	t->ret = mcfan_reader_open(prefix, g, 0, &r);
	__atomic_add_fetch(t->ready, 1, __ATOMIC_SEQ_CST);
	if (t->ret < 0)
		return NULL;
	for (;;) {
		n = mcfan_reader_read(r, buf, sizeof(buf), &f);
		if (n == 1) {
			if (!frame_ok(buf, f.len, f.seq))
				t->bad++;
			if (f.seq != expect + f.lost)
				t->order++;
			expect = f.seq + 1;
			t->frames++;
			t->lost += f.lost;
			if (t->slow && t->frames % 1000 == 0)
				usleep(20000);
			continue;
		}
		if (n == 0)
			n = mcfan_reader_wait_ms(r, 10000);
		if (n < 0)
			break;
		if (n == 0) {
			t->ret = -ETIMEDOUT;
			break;
		}
	}
	{
		struct mcfan_reader_stats st;

		mcfan_reader_stats(r, &st);
		if (st.lost != t->lost || st.frames != t->frames)
			t->bad++;
	}
	mcfan_reader_close(r);
	return NULL;
}

static void
writer_run(struct mcfan_rw *w, uint64_t n, unsigned int burst)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		put(w, i);
		if ((i + 1) % burst == 0 || i + 1 == n)
			mcfan_rw_flush(w);
		if (i % 256 == 255)
			usleep(500); /* about 500,000 frames/s: the slow reader falls behind */
	}
}

static void
test_threads(void)
{
	struct mcfan_rw *w = make_ring(1003, 65536, 8);
	struct thr t[THR_READERS + 1];
	pthread_t tid[THR_READERS + 1];
	volatile int ready = 0;
	unsigned int i;

	if (w == NULL)
		return;
	memset(t, 0, sizeof(t));
	for (i = 0; i <= THR_READERS; i++) {
		t[i].port = 1003;
		t[i].ready = &ready;
		t[i].slow = i == THR_READERS;
		pthread_create(&tid[i], NULL, reader_thread, &t[i]);
	}
	while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < THR_READERS + 1)
		usleep(1000);
	writer_run(w, THR_FRAMES, 32);
	mcfan_rw_destroy(w); /* the readers drain, then see -EPIPE */
	for (i = 0; i <= THR_READERS; i++) {
		pthread_join(tid[i], NULL);
		CHECK(t[i].ret == 0, "reader %u: %s", i, strerror(-t[i].ret));
		CHECK_EQ_INT(t[i].bad, 0);
		CHECK_EQ_INT(t[i].order, 0);
		CHECK_EQ_INT(t[i].frames + t[i].lost, THR_FRAMES);
		if (i < THR_READERS)
			CHECK(t[i].lost == 0, "fast reader %u lost %" PRIu64, i, t[i].lost);
	}
	CHECK(t[THR_READERS].lost > 0, "the slow reader was lapped (lost %" PRIu64 ")",
	      t[THR_READERS].lost);
	printf("threads: %u frames; fast readers lost %" PRIu64 " %" PRIu64 " %" PRIu64 " %"
	       PRIu64 ", slow reader lost %" PRIu64 " read %" PRIu64 "\n", THR_FRAMES, t[0].lost,
	       t[1].lost, t[2].lost, t[3].lost, t[4].lost, t[4].frames);
}

/* ---- reader processes, one killed: the writer and the others go on, counts exact ---- */

static void
test_processes(void)
{
	struct mcfan_rw *w = make_ring(1004, 8192, 8);
	struct mcfan_rw_reader_info info[8];
	int pipes[3][2];
	pid_t pid[3];
	unsigned int i, n, tries;
	uint64_t res[3][2];

	if (w == NULL)
		return;
	for (i = 0; i < 3; i++) {
		if (pipe(pipes[i]) < 0)
			return;
		pid[i] = fork();
		if (pid[i] == 0) {
			struct thr t;
			volatile int rd = 0;
			uint64_t out[2];

			memset(&t, 0, sizeof(t));
			t.port = 1004;
			t.ready = &rd;
			reader_thread(&t);
			out[0] = t.frames;
			out[1] = t.lost + (t.bad || t.order || t.ret ? 1u << 30 : 0);
			if (write(pipes[i][1], out, sizeof(out)) != sizeof(out))
				_exit(3);
			_exit(0);
		}
		close(pipes[i][1]);
	}
	/* wait until the three have claimed their rows */
	for (tries = 0; tries < 2000; tries++) {
		if (mcfan_rw_readers(w, info, 8, 0) == 3)
			break;
		usleep(1000);
	}
	CHECK_EQ_INT(mcfan_rw_readers(w, info, 8, 0), 3);
	writer_run(w, 5000, 16);
	/* reader 2 is killed while it sleeps in wait: its waiting count is taken back. A
	 * waiting reader leaves its wait once a second to recheck the serve words (its row's
	 * waiting goes 0 for a moment), so stop it first and kill it only when its row says
	 * it waits (CI once killed it in that moment: waiters 2, nothing to reap) */
	for (tries = 0; tries < 5000; tries++) {
		bool asleep = false;

		if (atomic_load(&w->hdr->waiters) == 3) {
			kill(pid[2], SIGSTOP);
			waitpid(pid[2], NULL, WUNTRACED);
			n = mcfan_rw_readers(w, info, 8, 0);
			for (i = 0; i < n; i++)
				if (info[i].pid == pid[2] && info[i].waiting)
					asleep = true;
			if (asleep)
				break;
			kill(pid[2], SIGCONT);
		}
		usleep(1000);
	}
	CHECK(tries < 5000, "reader 2 seen asleep in wait before the kill");
	kill(pid[2], SIGKILL);
	/* not reaped yet: a zombie, which kill(pid, 0) still finds, is dead too (before: shown
	 * alive, its waiting count kept, until its parent reaped it) */
	for (tries = 0; tries < 2000; tries++) {
		uint64_t start;

		if (mcfan_rd_proc_start(pid[2], &start) == -ESRCH)
			break;
		usleep(1000);
	}
	CHECK(tries < 2000, "the killed reader is a zombie until reaped");
	n = mcfan_rw_readers(w, info, 8, 0);
	CHECK_EQ_INT(n, 3);
	for (i = 0; i < n; i++)
		if (info[i].pid == pid[2])
			CHECK(!info[i].alive, "killed reader shown dead");
	/* the dead one still counts; the two alive may be between two waits (a wake-up without
	 * a frame, a late scheduled one on a loaded host): they settle back asleep */
	for (tries = 0; tries < 5000 && atomic_load(&w->hdr->waiters) != 3; tries++)
		usleep(1000);
	CHECK_EQ_INT(atomic_load(&w->hdr->waiters), 3);
	CHECK_EQ_INT(mcfan_rw_reap(w), 1);
	waitpid(pid[2], NULL, 0);
	for (tries = 0; tries < 5000 && atomic_load(&w->hdr->waiters) != 2; tries++)
		usleep(1000);
	CHECK_EQ_INT(atomic_load(&w->hdr->waiters), 2);
	/* a woken reader may wait long for a CPU on a loaded host (it still counts in waiters
	 * until it runs): the next 5000 frames go out unpaced, so let the two alive read the
	 * first 5000 before, or one that never ran is lapped (CI saw 8192 read, 1808 lost) */
	for (tries = 0; tries < 20000; tries++) {
		unsigned int behind = 0;

		n = mcfan_rw_readers(w, info, 8, 0);
		for (i = 0; i < n; i++)
			if (info[i].alive && info[i].lag != 0)
				behind++;
		if (behind == 0)
			break;
		usleep(1000);
	}
	CHECK(tries < 20000, "the two alive readers read the first 5000 frames");
	/* 5000 more frames for the two left; a new reader takes the dead one's row */
	{
		struct mcfan_reader *r = NULL;
		unsigned int rows[3];

		for (i = 0; i < 3; i++)
			rows[i] = info[i].slot;
		CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1004", 0, &r), 0);
		n = mcfan_rw_readers(w, info, 8, 0);
		CHECK_EQ_INT(n, 4);
		mcfan_reader_close(r);
		(void)rows;
	}
	for (i = 5000; i < 10000; i++) {
		put(w, i);
		if (i % 16 == 15)
			mcfan_rw_flush(w);
	}
	mcfan_rw_flush(w);
	mcfan_rw_destroy(w);
	for (i = 0; i < 2; i++) {
		int st = 0;

		CHECK(read(pipes[i][0], res[i], sizeof(res[i])) == sizeof(res[i]), "result %u", i);
		waitpid(pid[i], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "reader process %u exit", i);
		CHECK_EQ_INT(res[i][0], 10000);
		CHECK_EQ_INT(res[i][1], 0);
	}
	for (i = 0; i < 3; i++)
		close(pipes[i][0]);
}

/* ---- readers killed inside their wait's bookkeeping: waiters goes back to 0 ---- */

/* A reader process that opens the ring of port and is killed (SIGKILL) right after its
 * add to waiters, before its row says it waits: mcfan_reader_wait()'s first two stores,
 * the kill falling between them (a kill -9 can land there: nothing in the row counts it). */
static void
killed_after_add(struct mcfan_rw *w, unsigned int port)
{
	char g[64];
	pid_t pid;
	int st = 0;

	snprintf(g, sizeof(g), "239.9.9.1:%u", port);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		struct mcfan_reader *r = NULL;

		if (mcfan_reader_open(prefix, g, 0, &r) != 0)
			_exit(3);
		atomic_fetch_add_explicit(&w->hdr->waiters, 1, memory_order_seq_cst);
		raise(SIGKILL);
		_exit(4);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "reader killed after its add");
}

static void
test_reap_unheld(void)
{
	struct mcfan_rw *w = make_ring(1008, 64, 4);
	struct mcfan_reader *r = NULL;
	uint64_t wakes;
	unsigned int i;

	/* 40 readers come and are killed in that moment: 40 counts no row holds (before:
	 * waiters stayed 40 for the ring's life and every flush woke nobody with FUTEX_WAKE) */
	for (i = 0; i < 40; i++)
		killed_after_add(w, 1008);
	CHECK_EQ_INT(atomic_load(&w->hdr->waiters), 40);
	put(w, 0);
	wakes = mcfan_atomic_u64_load(&w->wakes, memory_order_relaxed);
	mcfan_rw_flush(w);
	CHECK_EQ_INT(mcfan_atomic_u64_load(&w->wakes, memory_order_relaxed), wakes + 1);
	/* a reader alive: its count could be one of them, nothing is taken back */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1008", 0, &r), 0);
	CHECK_EQ_INT(mcfan_rw_reap(w), 0);
	CHECK_EQ_INT(atomic_load(&w->hdr->waiters), 40);
	mcfan_reader_close(r);
	/* none alive: all 40 back, and a flush wakes nobody */
	CHECK_EQ_INT(mcfan_rw_reap(w), 40);
	CHECK_EQ_INT(atomic_load(&w->hdr->waiters), 0);
	CHECK_EQ_INT(mcfan_rw_reap(w), 0);
	put(w, 1);
	wakes = mcfan_atomic_u64_load(&w->wakes, memory_order_relaxed);
	mcfan_rw_flush(w);
	CHECK_EQ_INT(mcfan_atomic_u64_load(&w->wakes, memory_order_relaxed), wakes);
	mcfan_rw_destroy(w);
}

/* ---- the writer's pid and start time: a reused pid is not a live writer ---- */

/* Open the ring of port, wait 20 ms for a frame that never comes: 0 or -EOWNERDEAD. */
static int
wait_verdict(unsigned int port)
{
	struct mcfan_reader *r = NULL;
	char g[64];
	int ret;

	snprintf(g, sizeof(g), "239.9.9.1:%u", port);
	ret = mcfan_reader_open(prefix, g, 0, &r);
	CHECK(ret == 0, "open %s: %s", g, strerror(-ret));
	if (ret != 0)
		return ret;
	ret = mcfan_reader_wait(r, 20 * 1000000);
	mcfan_reader_close(r);
	return ret;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A dead writer seen by a long wait and by one without a limit at their first recheck slice
 * (within about a second), not only when the timeout runs out (before: a 5 s wait returned
 * -EOWNERDEAD after 5 s, and a wait without a limit, the Python binding's default, never
 * returned after mcfan was killed).
 */
static void
long_wait_dead(void)
{
	struct mcfan_reader *r = NULL;
	uint64_t t0;
	int ret;

	ret = mcfan_reader_open(prefix, "239.9.9.1:1005", 0, &r);
	CHECK(ret == 0, "open: %s", strerror(-ret));
	if (ret != 0)
		return;
	t0 = mono_ns();
	CHECK_EQ_INT(mcfan_reader_wait(r, 5000000000LL), -EOWNERDEAD);
	CHECK(mono_ns() - t0 < 2500000000u, "5 s wait told of the dead writer after %" PRIu64
	      " ms", (mono_ns() - t0) / 1000000);
	t0 = mono_ns();
	CHECK_EQ_INT(mcfan_reader_wait(r, -1), -EOWNERDEAD);
	CHECK(mono_ns() - t0 < 2500000000u, "wait without a limit told after %" PRIu64 " ms",
	      (mono_ns() - t0) / 1000000);
	mcfan_reader_close(r);
}

/*
 * mcfan's side of a reused pid: a ring left open by a writer that died, whose pid another
 * process (child, started at child_start) has now, is stale by the same rule as the readers'
 * (pid and start time): the next mcfan of the prefix removes it and makes its own, where it
 * said "in use by another running mcfan" and refused to start. With the child's own start
 * time in the header the ring is in use (-EADDRINUSE) and stays.
 */
static void
stale_reused_pid(pid_t child, uint64_t child_start, uint64_t writer_start)
{
	struct mcfan_rw *w = make_ring(1006, 64, 4), *w2 = NULL;
	char path[256];
	int ret;

	if (w == NULL)
		return;
	snprintf(path, sizeof(path), "/dev/shm/mcfan.%s.239.9.9.1.1006", prefix);
	w->hdr->writer_pid = child;
	w->hdr->writer_start = child_start;      /* the child is the writer: in use */
	CHECK_EQ_INT(mcfan_rw_create(prefix, "239.9.9.1", 1006, "239.9.9.1:1006", 64, 512, 4, 0,
				     &w2), -EADDRINUSE);
	CHECK_EQ_INT(mcfan_rw_remove_stale(prefix), 0);
	CHECK(access(path, F_OK) == 0, "a ring of a running writer stays");
	w->hdr->writer_start = writer_start;     /* the dead writer's: the pid was reused */
	CHECK_EQ_INT(mcfan_rw_remove_stale(prefix), 1);
	CHECK(access(path, F_OK) != 0, "the ring of a reused pid is removed as stale");
	ret = mcfan_rw_create(prefix, "239.9.9.1", 1006, "239.9.9.1:1006", 64, 512, 4, 0, &w2);
	CHECK_EQ_INT(ret, 0);
	if (ret == 0) {
		/* a ring of the same name left by the reused pid's writer is replaced, too */
		w2->hdr->writer_pid = child;
		w2->hdr->writer_start = writer_start;
		mcfan_rw_destroy(w2);
		w2 = NULL;
	}
	mcfan_rw_destroy(w);
}

static void
test_writer_start(void)
{
	struct mcfan_rw *w = make_ring(1005, 64, 4);
	uint64_t me = 0, child_start = 0, renamed = 0;
	int32_t self = (int32_t)getpid();
	pid_t child, dead;
	int st;

	if (w == NULL)
		return;
	/* the writer recorded its own start time beside its pid */
	CHECK_EQ_INT(mcfan_rd_proc_start(self, &me), 0);
	CHECK(me > 0, "start time of this process %" PRIu64, me);
	CHECK((w->hdr->flags & MCFAN_RD_FLAG_WRITER_START) != 0, "flag set by the writer");
	CHECK_EQ_INT(w->hdr->writer_pid, self);
	CHECK_EQ_INT(w->hdr->writer_start, me);
	CHECK_EQ_INT(mcfan_rd_proc_start(0, &me), -ENOENT);
	/* the writer (this process) runs: a wait only times out */
	CHECK_EQ_INT(wait_verdict(1005), 0);
	/* the same pid with another start time: the pid was reused, the writer is dead */
	w->hdr->writer_start = me + 1;
	CHECK_EQ_INT(wait_verdict(1005), -EOWNERDEAD);
	long_wait_dead();
	/* an older writer (flag clear): the pid alone decides, as before */
	w->hdr->flags &= ~MCFAN_RD_FLAG_WRITER_START;
	CHECK_EQ_INT(wait_verdict(1005), 0);
	w->hdr->flags |= MCFAN_RD_FLAG_WRITER_START;
	/* a pid that exists and is another process (the reuse as it happens): dead; the same
	 * pid with that process's own start time: alive. Its command holds ") (" and spaces,
	 * which the stat parser must step over. */
	child = fork();
	if (child == 0) {
		prctl(PR_SET_NAME, "a) b (c", 0, 0, 0);
		pause();
		_exit(0);
	}
	CHECK(child > 0, "fork");
	if (child > 0) {
		CHECK_EQ_INT(mcfan_rd_proc_start(child, &child_start), 0);
		usleep(50000); /* renamed by now */
		CHECK_EQ_INT(mcfan_rd_proc_start(child, &renamed), 0);
		CHECK_EQ_INT(renamed, child_start);
		CHECK(child_start >= me, "child started after us: %" PRIu64 " >= %" PRIu64,
		      child_start, me);
		w->hdr->writer_pid = child;
		w->hdr->writer_start = me;       /* the writer's, not the child's */
		CHECK_EQ_INT(wait_verdict(1005), -EOWNERDEAD);
		w->hdr->writer_start = child_start;
		CHECK_EQ_INT(wait_verdict(1005), 0);
		stale_reused_pid(child, child_start, me);
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
		/* gone: dead whatever the start time says */
		CHECK_EQ_INT(mcfan_rd_proc_start(child, &renamed), -ENOENT);
		CHECK_EQ_INT(wait_verdict(1005), -EOWNERDEAD);
	}
	/* a writer that exited and whose parent has not reaped it yet (a zombie: kill(pid, 0)
	 * still succeeds) is dead: to a reader's wait, and to the next mcfan, which removes its
	 * ring (before: alive until reaped; a restart right after a kill -9 was refused as "in
	 * use by another running mcfan") */
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(child > 0, "fork");
	if (child > 0) {
		struct mcfan_rw *z = make_ring(1007, 64, 4);
		uint64_t zstart = 0;
		char path[256];

		CHECK_EQ_INT(mcfan_rd_proc_start(child, &zstart), 0);
		kill(child, SIGKILL);
		usleep(100000); /* a zombie now: not waited for */
		CHECK_EQ_INT(kill(child, 0), 0);
		CHECK_EQ_INT(mcfan_rd_proc_start(child, &renamed), -ESRCH);
		w->hdr->writer_pid = child;
		w->hdr->writer_start = zstart;
		CHECK_EQ_INT(wait_verdict(1005), -EOWNERDEAD);
		w->hdr->flags &= ~MCFAN_RD_FLAG_WRITER_START;
		CHECK_EQ_INT(wait_verdict(1005), -EOWNERDEAD);
		w->hdr->flags |= MCFAN_RD_FLAG_WRITER_START;
		w->hdr->writer_pid = self;
		w->hdr->writer_start = me;
		if (z != NULL) {
			snprintf(path, sizeof(path), "/dev/shm/mcfan.%s.239.9.9.1.1007", prefix);
			z->hdr->writer_pid = child;
			z->hdr->writer_start = zstart;
			CHECK_EQ_INT(mcfan_rw_remove_stale(prefix), 1);
			CHECK(access(path, F_OK) != 0, "the ring of a zombie writer is removed");
			mcfan_rw_destroy(z);
		}
		waitpid(child, &st, 0);
	}
	/* a pid that no longer exists, flag clear: dead by the pid alone */
	dead = fork();
	if (dead == 0)
		_exit(0);
	if (dead > 0) {
		waitpid(dead, &st, 0);
		w->hdr->writer_pid = dead;
		w->hdr->flags &= ~MCFAN_RD_FLAG_WRITER_START;
		CHECK_EQ_INT(wait_verdict(1005), -EOWNERDEAD);
	}
	w->hdr->writer_pid = self;
	w->hdr->writer_start = me;
	w->hdr->flags |= MCFAN_RD_FLAG_WRITER_START;
	mcfan_rw_destroy(w);
}

static uint64_t
wakes_of(const struct mcfan_rw *w)
{
	return mcfan_atomic_u64_load(&w->wakes, memory_order_relaxed);
}

/* A reader thread blocked in wait: when did it get its frame? */
struct blocked {
	struct mcfan_reader *r;
	int ret;             /* mcfan_reader_wait()'s */
	uint64_t woke_ns;    /* CLOCK_MONOTONIC when it returned */
};

static void *
blocked_main(void *arg)
{
	struct blocked *b = arg;

	b->ret = mcfan_reader_wait_ms(b->r, 3000);
	b->woke_ns = mono_ns();
	return NULL;
}

/*
 * Coalesced wakes (mcfan_rw_set_wake): the decision by frames and by budget, nothing when no
 * reader sleeps, exactly one wake per coalesced batch, a deferred wake delivered by the
 * worker's poll when no more frames come, and a real reader blocked in wait woken by it.
 */
static void
test_coalesced_wake(void)
{
	struct mcfan_rw *w = make_ring(1005, 64, 4), *w2 = make_ring(1006, 64, 4);
	struct mcfan_rw_worker wc;
	struct mcfan_reader *r = NULL;
	struct mcfan_reader_frame f;
	struct blocked b;
	pthread_t th;
	uint64_t i, t0, polls;

	if (w == NULL || w2 == NULL)
		goto out;
	memset(&wc, 0, sizeof(wc));
	/* without mcfan_rw_set_wake: a wake every flush, as before */
	atomic_store_explicit(&w->hdr->waiters, 1, memory_order_seq_cst); /* one "sleeper" */
	put(w, 0);
	CHECK(!mcfan_rw_flush_at(w, 0), "default: not deferred");
	CHECK_EQ_INT(wakes_of(w), 1);
	/* threshold 4 frames, budget 1000 ticks */
	mcfan_rw_set_wake(w, 4, 1000);
	put(w, 1);
	CHECK(mcfan_rw_flush_at(w, 100), "1 frame: deferred");
	CHECK(!mcfan_rw_wake_due(w, 1099), "not due before the budget");
	CHECK(mcfan_rw_wake_due(w, 1100), "due at the budget");
	put(w, 2);
	put(w, 3);
	CHECK(mcfan_rw_flush_at(w, 200), "3 frames: deferred");
	CHECK_EQ_INT(wakes_of(w), 1);
	put(w, 4);
	CHECK(!mcfan_rw_flush_at(w, 300), "4 frames: woken");
	CHECK_EQ_INT(wakes_of(w), 2);
	CHECK(!mcfan_rw_poll(w, 5000), "nothing left to wake");
	CHECK_EQ_INT(wakes_of(w), 2);
	/* a batch bigger than the threshold in one flush: one wake */
	for (i = 5; i < 15; i++)
		put(w, i);
	CHECK(!mcfan_rw_flush_at(w, 400), "10 frames: woken");
	CHECK_EQ_INT(wakes_of(w), 3);
	/* the budget: one frame, then no more frames; the poll delivers it once */
	put(w, 15);
	CHECK(mcfan_rw_flush_at(w, 10000), "deferred");
	CHECK(mcfan_rw_poll(w, 10500), "still deferred before the budget");
	CHECK_EQ_INT(wakes_of(w), 3);
	CHECK(!mcfan_rw_poll(w, 11000), "delivered at the budget");
	CHECK_EQ_INT(wakes_of(w), 4);
	CHECK(!mcfan_rw_poll(w, 99000), "and only once");
	CHECK_EQ_INT(wakes_of(w), 4);
	/* the budget counts from the oldest unwoken frame, not the newest */
	put(w, 16);
	CHECK(mcfan_rw_flush_at(w, 20000), "deferred");
	put(w, 17);
	CHECK(mcfan_rw_flush_at(w, 20900), "deferred");
	CHECK(!mcfan_rw_poll(w, 21000), "due 1000 after the first");
	CHECK_EQ_INT(wakes_of(w), 5);
	/* nobody sleeps: no wake, nothing deferred; a sleeper gone meanwhile drops the wake */
	atomic_store_explicit(&w->hdr->waiters, 0, memory_order_seq_cst);
	put(w, 18);
	CHECK(!mcfan_rw_flush_at(w, 30000), "no sleeper: nothing deferred");
	atomic_store_explicit(&w->hdr->waiters, 1, memory_order_seq_cst);
	put(w, 19);
	CHECK(mcfan_rw_flush_at(w, 31000), "deferred");
	atomic_store_explicit(&w->hdr->waiters, 0, memory_order_seq_cst);
	CHECK(!mcfan_rw_poll(w, 31001), "the sleeper left: not needed");
	CHECK_EQ_INT(wakes_of(w), 5);
	/* the worker's list: two rings, each listed once, each woken once at its budget */
	atomic_store_explicit(&w->hdr->waiters, 1, memory_order_seq_cst);
	atomic_store_explicit(&w2->hdr->waiters, 1, memory_order_seq_cst);
	mcfan_rw_set_wake(w2, 4, 1000);
	put(w, 20);
	mcfan_rw_worker_flush(&wc, w, 40000);
	put(w, 21);
	mcfan_rw_worker_flush(&wc, w, 40100);
	put(w2, 0);
	mcfan_rw_worker_flush(&wc, w2, 40500);
	CHECK(mcfan_rw_worker_pending(&wc), "pending");
	CHECK_EQ_INT(wc.deferred_n, 2);
	CHECK_EQ_INT(mcfan_rw_worker_poll(&wc, 40999), 2);
	CHECK_EQ_INT(mcfan_rw_worker_poll(&wc, 41000), 1);
	CHECK_EQ_INT(wakes_of(w), 6);
	CHECK_EQ_INT(wakes_of(w2), 0);
	CHECK_EQ_INT(mcfan_rw_worker_poll(&wc, 41500), 0);
	CHECK(!mcfan_rw_worker_pending(&wc), "none pending");
	CHECK_EQ_INT(wakes_of(w2), 1);
	CHECK_EQ_INT(mcfan_rw_worker_poll(&wc, 90000), 0);
	CHECK_EQ_INT(wakes_of(w) + wakes_of(w2), 7);
	atomic_store_explicit(&w->hdr->waiters, 0, memory_order_seq_cst);
	atomic_store_explicit(&w2->hdr->waiters, 0, memory_order_seq_cst);

	/* a real reader blocked in wait gets one frame within the budget (2 ms, ns clock) */
	mcfan_rw_set_wake(w, 32, 2000000);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1005", 0, &r), 0);
	if (r == NULL)
		goto out;
	memset(&b, 0, sizeof(b));
	b.r = r;
	CHECK_EQ_INT(pthread_create(&th, NULL, blocked_main, &b), 0);
	for (i = 0; i < 2000 && atomic_load(&w->hdr->waiters) == 0; i++)
		usleep(1000);
	usleep(20000); /* into FUTEX_WAIT */
	CHECK_EQ_INT(atomic_load(&w->hdr->waiters), 1);
	i = wakes_of(w);
	put(w, 22);
	t0 = mono_ns();
	mcfan_rw_worker_flush(&wc, w, t0);
	CHECK(mcfan_rw_worker_pending(&wc), "one frame of 32: deferred");
	for (polls = 0; mcfan_rw_worker_poll(&wc, mono_ns()) != 0 && polls < 10000000; polls++)
		;
	pthread_join(th, NULL);
	CHECK_EQ_INT(b.ret, 1);
	CHECK_EQ_INT(wakes_of(w), i + 1);
	CHECK(b.woke_ns - t0 >= 2000000, "woken at the budget, not before: %" PRIu64 " ns",
	      b.woke_ns - t0);
	/* slack: a thread woken on a shared 2-CPU host */
	CHECK(b.woke_ns - t0 < 2000000 + 100000000, "woken within the budget + 100 ms: %"
	      PRIu64 " ns", b.woke_ns - t0);
	CHECK_EQ_INT(mcfan_reader_next(r, &f), 1);
	CHECK_EQ_INT(f.seq, 22);
	mcfan_reader_close(r);
out:
	mcfan_rw_destroy(w);
	mcfan_rw_destroy(w2);
}

/* A reader thread blocked in wait without a limit (the serve words' wake). */
static void *
blocked_forever(void *arg)
{
	struct blocked *b = arg;

	b->ret = mcfan_reader_wait_ms(b->r, -1);
	b->woke_ns = mono_ns();
	return NULL;
}

/*
 * The serve words (mcfan_rw_set_serve, MCFAN_RD_FLAG_SERVE): a ring not written by the readers
 * engine is refused at open with -EXDEV and the sentence naming group and engine; a reader
 * blocked in wait without a limit when its ring stops being served returns -EXDEV at once,
 * after the frames already written; UNSET (an older writer) and READERS open.
 */
static void
test_serve(void)
{
	struct mcfan_rw *w = make_ring(1007, 64, 4);
	struct mcfan_reader *r = NULL;
	struct mcfan_reader_frame f;
	uint8_t buf[512];
	struct blocked b;
	pthread_t th;
	uint64_t t0;
	int ret;

	if (w == NULL)
		return;
	/* UNSET: taken as served (an older writer's ring, or not set yet) */
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1007", 0, &r), 0);
	mcfan_reader_close(r);
	r = NULL;
	CHECK(mcfan_rw_set_serve(w, MCFAN_RD_SERVE_ENGINE, "count", 0), "serve: changed");
	CHECK(!mcfan_rw_set_serve(w, MCFAN_RD_SERVE_ENGINE, "count", 0), "serve: same again");
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1007", 0, &r), -EXDEV);
	CHECK(r == NULL, "open -EXDEV: no reader");
	CHECK_EQ_STR(mcfan_reader_explain(-EXDEV), "group 239.9.9.1:1007: mcfan serves it with "
		     "the count engine, not readers (route the group to readers: give mcfan's "
		     "console set engine 239.9.9.1:1007 readers, or start mcfan with "
		     "--group-engine 239.9.9.1:1007=readers and no other --group-engine or "
		     "[group-engine] row for it)");
	CHECK_EQ_STR(mcfan_reader_explain(-ENOENT), mcfan_reader_strerror(-ENOENT));
	mcfan_rw_set_serve(w, MCFAN_RD_SERVE_LCORE, "pcap", 3);
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1007", 0, &r), -EXDEV);
	CHECK_EQ_STR(mcfan_reader_explain(EXDEV), "group 239.9.9.1:1007: mcfan's lcore 3, which "
		     "writes its ring, runs the pcap engine for every copy, not readers (give "
		     "mcfan's console set engine 3 outputs, or set engine 3 readers)");
	mcfan_rw_set_serve(w, MCFAN_RD_SERVE_READERS, NULL, 0);
	ret = mcfan_reader_open(prefix, "239.9.9.1:1007", 0, &r);
	CHECK_EQ_INT(ret, 0);
	if (ret < 0)
		goto out;
	/* one frame written, then the group moves away while the reader sleeps */
	put(w, 0);
	mcfan_rw_flush(w);
	CHECK_EQ_INT(mcfan_reader_read(r, buf, sizeof(buf), &f), 1);
	b.r = r;
	b.ret = 99;
	CHECK_EQ_INT(pthread_create(&th, NULL, blocked_forever, &b), 0);
	usleep(100 * 1000);
	CHECK_EQ_INT(b.ret, 99); /* still asleep */
	put(w, 1);
	mcfan_rw_flush(w);       /* a frame written before the move is still read first */
	usleep(50 * 1000);
	pthread_join(th, NULL);
	CHECK_EQ_INT(b.ret, 1);
	CHECK_EQ_INT(mcfan_reader_read(r, buf, sizeof(buf), &f), 1);
	b.ret = 99;
	CHECK_EQ_INT(pthread_create(&th, NULL, blocked_forever, &b), 0);
	usleep(100 * 1000);
	t0 = mono_ns();
	mcfan_rw_set_serve(w, MCFAN_RD_SERVE_LEFT, NULL, 0);
	pthread_join(th, NULL);
	CHECK_EQ_INT(b.ret, -EXDEV);
	CHECK(b.woke_ns - t0 < 200u * 1000 * 1000, "woken by the serve change in %" PRIu64 " ns",
	      b.woke_ns - t0);
	/* the thread's -EXDEV was its own: this thread's last one is still the lcore's */
	CHECK(strstr(mcfan_reader_explain(-EXDEV), "mcfan's lcore 3") != NULL,
	      "explain: per thread");
	CHECK_EQ_INT(mcfan_reader_wait_ms(r, 0), 0); /* no wait: nothing, no verdict */
	CHECK_EQ_INT(mcfan_reader_wait_ms(r, 10), -EXDEV);
	CHECK_EQ_STR(mcfan_reader_explain(-EXDEV), "group 239.9.9.1:1007: mcfan left the group: "
		     "no frame comes into its ring (join it again from mcfan's console, then open "
		     "it again)");
out:
	mcfan_reader_close(r);
	mcfan_rw_destroy(w);
}

/* Wait (at most 2 s) until process pid is in state want; the state last seen. */
static int
proc_state_wait(pid_t pid, int want)
{
	int s = 0, i;

	for (i = 0; i < 200; i++) {
		s = mcfan_rd_proc_state(pid);
		if (s == want)
			break;
		usleep(10000);
	}
	return s;
}

/* The one /proc/PID/stat parser (mcfan_rd_proc_stat()) under a command that holds ") ",
 * spaces, a false state and a line end: "x) T 1 2\n3". Before, each parser read one line
 * (fgets) and took the name's ')' for the last: a sleeping process was "stopped" (the
 * readers table's stopped) and its start time unreadable (-EPROTO). */
static void
test_proc_stat(void)
{
	static const char name[] = "x) T 1 2\n3";
	int go[2], done[2];
	uint64_t before = 0, after = 0;
	char buf[MCFAN_RD_STAT_LEN], *state = NULL, c = 0;
	pid_t child;
	int st;

	CHECK_EQ_INT(mcfan_rd_proc_state(0), -ENOENT);
	CHECK_EQ_INT(mcfan_rd_proc_stat(-1, buf, sizeof(buf), &state), -ENOENT);
	if (pipe(go) != 0 || pipe(done) != 0) {
		CHECK(false, "pipe: %s", strerror(errno));
		return;
	}
	child = fork();
	if (child == 0) {
		if (read(go[0], &c, 1) == 1) {
			prctl(PR_SET_NAME, name, 0, 0, 0);
			if (write(done[1], "r", 1) != 1)
				_exit(1);
		}
		pause();
		_exit(0);
	}
	CHECK(child > 0, "fork");
	if (child > 0) {
		CHECK_EQ_INT(proc_state_wait(child, 'S'), 'S');
		CHECK_EQ_INT(mcfan_rd_proc_start(child, &before), 0);
		CHECK(write(go[1], "g", 1) == 1 && read(done[0], &c, 1) == 1, "child renamed");
		CHECK_EQ_INT(proc_state_wait(child, 'S'), 'S');
		CHECK_EQ_INT(mcfan_rd_proc_stat(child, buf, sizeof(buf), &state), 0);
		CHECK(strstr(buf, name) != NULL, "the command is in the text read: '%.40s'", buf);
		CHECK(state != NULL && state[0] == 'S' && state[1] == ' ',
		      "field 3 after the last ') ': '%.8s'", state != NULL ? state : "");
		CHECK_EQ_INT(mcfan_rd_proc_start(child, &after), 0);
		CHECK_EQ_INT(after, before);
		CHECK(before > 0, "start time %" PRIu64, before);
		/* a buffer too small to hold the whole text: refused, not parsed cut */
		CHECK_EQ_INT(mcfan_rd_proc_stat(child, buf, 24, &state), -EPROTO);
		kill(child, SIGSTOP);
		CHECK_EQ_INT(waitpid(child, &st, WUNTRACED), child);
		CHECK_EQ_INT(mcfan_rd_proc_state(child), 'T');
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
		CHECK_EQ_INT(mcfan_rd_proc_state(child), -ENOENT);
	}
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

/* ---- mcfan_rw_name_check(): the name removed, or naming another file, is told ---- */
static void
test_name_check(void)
{
	struct mcfan_rw *w = make_ring(1009, 64, 4), *w2 = NULL;
	char path[PATH_MAX];
	int fd;

	if (w == NULL)
		return;
	snprintf(path, sizeof(path), "/dev/shm%s", w->name);
	CHECK_EQ_INT(mcfan_rw_name_check(w), 0);
	CHECK_EQ_INT(unlink(path), 0);
	CHECK_EQ_INT(mcfan_rw_name_check(w), 1);
	/* another file under the name: not the ring's object */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0, "a file under the removed ring's name: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	CHECK_EQ_INT(mcfan_rw_name_check(w), 1);
	/* a new ring of the name (renamed over the file, as mcfan makes one): its own, not w's */
	CHECK_EQ_INT(mcfan_rw_create(prefix, "239.9.9.1", 1009, "239.9.9.1:1009", 64, 512, 4, 0,
				     &w2), 0);
	CHECK_EQ_INT(mcfan_rw_name_check(w), 1);
	if (w2 != NULL)
		CHECK_EQ_INT(mcfan_rw_name_check(w2), 0);
	mcfan_rw_release(w, false);
	mcfan_rw_destroy(w2);
	CHECK(access(path, F_OK) < 0, "no file left");
}

/* ---- a retired ring leaves its worker's deferred-wake list; a released one stays readable ---- */
static void
test_retired(void)
{
	struct mcfan_rw *w = make_ring(1007, 64, 4), *w2 = make_ring(1008, 64, 4);
	struct mcfan_rw_worker wc;
	struct mcfan_reader *r = NULL;
	struct mcfan_reader_frame f;
	char path[PATH_MAX];
	uint64_t i;

	if (w == NULL || w2 == NULL) {
		mcfan_rw_destroy(w);
		mcfan_rw_destroy(w2);
		return;
	}
	memset(&wc, 0, sizeof(wc));
	CHECK_EQ_INT(mcfan_reader_open(prefix, "239.9.9.1:1007", MCFAN_READER_OLDEST, &r), 0);
	/* two rings with a deferred wake (a "sleeper" each, 4 frames or 1000 ticks) */
	atomic_store_explicit(&w->hdr->waiters, 1, memory_order_seq_cst);
	atomic_store_explicit(&w2->hdr->waiters, 1, memory_order_seq_cst);
	mcfan_rw_set_wake(w, 4, 1000);
	mcfan_rw_set_wake(w2, 4, 1000);
	for (i = 0; i < 3; i++)
		put(w, i);
	mcfan_rw_worker_flush(&wc, w, 100);
	put(w2, 0);
	mcfan_rw_worker_flush(&wc, w2, 100);
	CHECK_EQ_INT(wc.deferred_n, 2);
	CHECK(mcfan_rw_deferred(w) && mcfan_rw_deferred(w2), "both listed");
	/* retired before its wake is due: the next poll wakes its sleeper and drops it, at once */
	mcfan_rw_retire(w);
	CHECK(mcfan_rw_deferred(w), "still listed until the worker's next pass");
	CHECK_EQ_INT(mcfan_rw_worker_poll(&wc, 200), 1);
	CHECK(!mcfan_rw_deferred(w), "a retired ring leaves the list at the next pass");
	CHECK(mcfan_rw_deferred(w2), "the other ring stays listed");
	CHECK_EQ_INT(wakes_of(w), 1);
	CHECK_EQ_INT(wakes_of(w2), 0);
	CHECK(wc.deferred == w2 && w2->next_deferred == NULL, "the list holds w2 alone");
	CHECK_EQ_INT(mcfan_rw_worker_poll(&wc, 1100), 0);
	CHECK_EQ_INT(wakes_of(w2), 1);
	/* retired with no sleeper left: dropped, no wake */
	atomic_store_explicit(&w2->hdr->waiters, 1, memory_order_seq_cst);
	put(w2, 1);
	mcfan_rw_worker_flush(&wc, w2, 2000);
	atomic_store_explicit(&w2->hdr->waiters, 0, memory_order_seq_cst);
	mcfan_rw_retire(w2);
	CHECK_EQ_INT(mcfan_rw_worker_poll(&wc, 2001), 0);
	CHECK(!mcfan_rw_deferred(w2) && !mcfan_rw_worker_pending(&wc), "w2 dropped, none left");
	CHECK_EQ_INT(wakes_of(w2), 1);
	atomic_store_explicit(&w->hdr->waiters, 0, memory_order_seq_cst);
	/* released as a left group's ring: the name goes, a reader keeps its mapping, reads the
	 * three frames, then is told the ring is not written any more (-EXDEV), not closed */
	mcfan_rw_set_serve(w, MCFAN_RD_SERVE_LEFT, NULL, 0);
	snprintf(path, sizeof(path), "/dev/shm%s", w->name);
	mcfan_rw_release(w, true);
	CHECK(access(path, F_OK) != 0 && errno == ENOENT, "the released ring's name is gone");
	if (r != NULL) {
		for (i = 0; i < 3; i++) {
			CHECK_EQ_INT(mcfan_reader_next(r, &f), 1);
			CHECK_EQ_INT(f.seq, i);
		}
		CHECK_EQ_INT(mcfan_reader_next(r, &f), 0);
		CHECK_EQ_INT(mcfan_reader_wait(r, 1000000), -EXDEV);
		mcfan_reader_close(r);
	}
	/* released without its name (a newer ring has it): the name stays */
	snprintf(path, sizeof(path), "/dev/shm%s", w2->name);
	mcfan_rw_release(w2, false);
	CHECK(access(path, F_OK) == 0, "a name not the ring's is left alone");
	unlink(path);
	mcfan_rw_release(NULL, true);
}

int
main(void)
{
	snprintf(prefix, sizeof(prefix), "unit%d", (int)getpid());
	test_basic();
	test_bad_args();
	test_open_explain();
	test_lapped();
	test_threads();
	test_processes();
	test_writer_start();
	test_proc_stat();
	test_coalesced_wake();
	test_serve();
	test_reap_unheld();
	test_retired();
	test_name_check();
	return unit_summary("reader");
}
