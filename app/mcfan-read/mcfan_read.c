/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * mcfan-read (docs/readers.md): read one group's frames from a running mcfan (worker engine
 * readers) through libmcfan-reader, print a line a second (frames, lost, sequence gaps) and
 * one JSON line at exit. An example of the library as much as a tool; no DPDK.
 *
 *   mcfan-read --file-prefix PREFIX --group GROUP[:PORT] [--count N] [--seconds S]
 *              [--wait-open S] [--oldest] [--quiet] [--no-seq] [--zero-copy]
 *
 * --wait-open S: a reader started before mcfan (or while it restarts) finds no ring
 * (-ENOENT) and tries the open again every WAIT_SLICE_MS for up to S seconds.
 *
 * Sequence gaps: the UDP payload's iperf2 datagram number (iperf2 include/payloads.h: id at
 * bytes 0..3 and id2 at 12..15, big-endian; a negative id ends a test) is followed, and a
 * jump forward counts as a gap of that many datagrams (seq_lost); frames of other kinds
 * (too short for the header, or a tv_usec of a second or more: not iperf2) count in
 * seq_other. Exit status: 0, 1 on an error of the library, 2 on bad usage.
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mcfan_reader.h"
#include "mcfan_reader_ring.h"

#define EXIT_USAGE 2
/** Bytes of the copy buffer: the longest frame a slot may hold. */
#define BUF_SIZE 65600
/** Bytes of iperf2's datagram header (id, tv_sec, tv_usec, id2). */
#define IPERF2_HDR_LEN 16
#define NS_PER_S 1000000000ull
/** Largest --seconds, s (about 31 years; its deadline in ns fits 64 bits). */
#define SECONDS_MAX 1e9
/** Longest single wait, ms: the per-second line and the signals are looked at between. */
#define WAIT_SLICE_MS 100
/** Most ports listed in the message for an address without a port. */
#define PORTS_MAX 64

/*
 * Split GROUP[:PORT] ("239.9.9.1:3999", "239.9.9.1", "[ff3e::1]:5000", "ff3e::1") into the
 * address as inet_ntop(3) writes it (the ring names' form) and the port (-1: none).
 */
static int
split_group(const char *group, char *addr, size_t len, long *port)
{
	char a[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(group, ':'), *end;
	uint8_t bin[16];
	size_t n;
	int fam;

	*port = -1;
	if (group[0] == '[') {
		end = strchr(group, ']');
		if (end == NULL)
			return -EINVAL;
		if (end[1] == ':')
			*port = strtol(end + 2, NULL, 10);
		group++;
		n = (size_t)(end - group);
		fam = AF_INET6;
	} else if (colon != NULL && strchr(group, ':') == colon) {
		*port = strtol(colon + 1, NULL, 10);
		n = (size_t)(colon - group);
		fam = AF_INET;
	} else {
		n = strlen(group);
		fam = colon != NULL ? AF_INET6 : AF_INET;
	}
	if (n >= sizeof(a))
		return -EINVAL;
	memcpy(a, group, n);
	a[n] = '\0';
	if (inet_pton(fam, a, bin) != 1 || inet_ntop(fam, bin, addr, (socklen_t)len) == NULL)
		return -EINVAL;
	return 0;
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The UDP ports that have a ring of addr in /dev/shm (sorted); returns how many. */
static unsigned int
ring_ports(const char *prefix, const char *addr, long *ports, unsigned int max)
{
	char want[MCFAN_RD_NAME_MAX];
	struct dirent *de;
	unsigned int n = 0;
	size_t wl;
	DIR *d;

	snprintf(want, sizeof(want), "mcfan.%s.%s.", prefix, addr);
	wl = strlen(want);
	d = opendir("/dev/shm");
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n < max) {
		const char *tail = de->d_name + wl;

		if (strncmp(de->d_name, want, wl) == 0 && *tail != '\0' &&
		    strspn(tail, "0123456789") == strlen(tail))
			ports[n++] = strtol(tail, NULL, 10);
	}
	closedir(d);
	qsort(ports, n, sizeof(*ports), cmp_long);
	return n;
}

/* Reader rows of the ring group names (its header's n_readers), 0 if it cannot be read. */
static unsigned int
ring_rows(const char *prefix, const char *group)
{
	char addr[INET6_ADDRSTRLEN], name[MCFAN_RD_NAME_MAX];
	const struct mcfan_rd_hdr *h;
	unsigned int rows = 0;
	long port, ports[2];
	int fd;

	if (split_group(group, addr, sizeof(addr), &port) < 0)
		return 0;
	if (port < 0 && ring_ports(prefix, addr, ports, 2) == 1)
		port = ports[0];
	if (mcfan_rd_name(name, sizeof(name), prefix, addr, port < 0 ? 0u :
			  (unsigned int)port) < 0)
		return 0;
	fd = shm_open(name, O_RDONLY, 0);
	if (fd < 0)
		return 0;
	h = mmap(NULL, MCFAN_RD_HDR_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (h != MAP_FAILED) {
		rows = h->n_readers;
		munmap((void *)(uintptr_t)h, MCFAN_RD_HDR_SIZE);
	}
	close(fd);
	return rows;
}

/* Why mcfan_reader_open() refused, in words that say what to do. */
static void
open_error(const char *prefix, const char *group, int ret)
{
	char addr[INET6_ADDRSTRLEN], list[PORTS_MAX * 7 + 1] = "";
	long ports[PORTS_MAX];
	unsigned int i, n;
	size_t off = 0;
	long port;

	if (ret == -EXDEV) {
		/* the library's sentence names the group, the engine it goes to, what to do */
		fprintf(stderr, "mcfan-read: %s\n", mcfan_reader_explain(ret));
		return;
	}
	if (ret == -ENOENT || ret == -EINVAL || ret == -EADDRNOTAVAIL || ret == -ENAMETOOLONG ||
	    ret == -EACCES || ret == -EPERM) {
		/* the library's sentence: the bad prefix or group and what is allowed (one rule
		 * for mcfan-read and tools/mcfan_reader.py), the rings mcfan serves instead, or
		 * the ring's owner and mode that keep this user out */
		fprintf(stderr, "mcfan-read: %s\n", mcfan_reader_explain(ret));
		return;
	}
	fprintf(stderr, "mcfan-read: group %s of file prefix %s: ", group, prefix);
	if (ret == -ENOSPC) {
		n = ring_rows(prefix, group);
		if (n > 0)
			fprintf(stderr, "all %u reader rows of ring %s are taken by running "
				"readers: close one first\n", n, group);
		else
			fprintf(stderr, "all reader rows of ring %s are taken by running readers: "
				"close one first\n", group);
	} else if (ret == -ENOTUNIQ && split_group(group, addr, sizeof(addr), &port) == 0) {
		n = ring_ports(prefix, addr, ports, PORTS_MAX);
		for (i = 0; i < n && off < sizeof(list); i++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d",
						i == 0 ? "" : ", ", (int)ports[i]);
		fprintf(stderr, "%s has reader rings for several UDP ports (%s): give GROUP:PORT, "
			"e.g. --group %s%s%s:%d\n", addr, list, strchr(addr, ':') ? "[" : "", addr,
			strchr(addr, ':') ? "]" : "", n > 0 ? (int)ports[0] : 0);
	} else {
		fprintf(stderr, "%s\n", mcfan_reader_strerror(ret));
	}
}

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint64_t
be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

struct seq_state {
	bool on;
	bool started;
	uint64_t next;       /* the datagram number expected next */
	uint64_t gaps;       /* jumps forward */
	uint64_t lost;       /* datagrams the jumps skipped */
	uint64_t back;       /* datagrams at or below one seen (reordered or repeated) */
	uint64_t ends;       /* iperf2 end-of-test datagrams */
	uint64_t other;      /* frames that are not iperf2 datagrams */
};

static void
seq_track(struct seq_state *s, const uint8_t *frame, uint32_t len)
{
	const uint8_t *p;
	uint32_t plen;
	int64_t id;

	if (!s->on)
		return;
	if (mcfan_reader_udp_payload(frame, len, &p, &plen) < 0 || plen < IPERF2_HDR_LEN) {
		s->other++;
		return;
	}
	/* tv_usec (bytes 8..11) of an iperf2 datagram is below one second: other payloads
	 * (bytes of text, another protocol) are not followed as sequence numbers */
	if (be(p + 8, 4) >= 1000000u) {
		s->other++;
		return;
	}
	id = (int64_t)(be(p + 12, 4) << 32 | be(p, 4));
	if (id < 0) {
		s->ends++;
		return;
	}
	if (!s->started || (uint64_t)id == s->next) {
		s->started = true;
	} else if ((uint64_t)id > s->next) {
		s->gaps++;
		s->lost += (uint64_t)id - s->next;
	} else {
		s->back++;
		return;
	}
	s->next = (uint64_t)id + 1;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: mcfan-read --group GROUP[:PORT] [--file-prefix PREFIX] [--count N] "
		"[--seconds S] [--wait-open S] [--oldest] [--quiet] [--no-seq] [--zero-copy]\n"
		"  --file-prefix PREFIX  mcfan's EAL --file-prefix (default rte)\n"
		"  --group GROUP[:PORT]  the group, as mcfan names it: 239.9.9.1:3999, "
		"[ff3e::1]:5000\n"
		"  --count N             stop after N frames (0: no limit, the default)\n"
		"  --seconds S           stop after S seconds, decimal (0: no limit, the default),\n"
		"                        counted from the open\n"
		"  --wait-open S         no ring yet (mcfan not started, or restarting): open again\n"
		"                        every 0.1 s for up to S seconds, decimal (0: do not wait,\n"
		"                        the default; at most 1000000000)\n"
		"  --oldest              start at the oldest frame in the ring, not the newest\n"
		"  --quiet               only the JSON line at exit (and errors on stderr): no\n"
		"                        'reading' line at the start, no line a second\n"
		"  --no-seq              do not look for iperf2 sequence numbers\n"
		"  --zero-copy           read the frames in the ring (mcfan_reader_next), not a copy\n");
}

/* "12", "1.5", "0.25", ".5", "3.": decimal digits and at most one point, nothing else. */
static bool
is_decimal(const char *s)
{
	size_t digits = strspn(s, "0123456789");

	if (s[digits] == '.')
		return digits + strspn(s + digits + 1, "0123456789") > 0 &&
		       s[digits + 1 + strspn(s + digits + 1, "0123456789")] == '\0';
	return digits > 0 && s[digits] == '\0';
}

/* Option opt's decimal number of seconds 0..SECONDS_MAX (zero: what 0 means); -EINVAL with
 * the refusal printed. */
static int
parse_seconds(const char *opt, const char *zero, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	/* decimal digits and a point only (strtod also takes 0x10, 1e3, " 5", inf, nan) */
	if (!is_decimal(s) || errno != 0 || *end != '\0' || !(*v >= 0) || *v > SECONDS_MAX) {
		fprintf(stderr, "mcfan-read: %s '%s': must be 0 (%s) or more seconds, decimal, at "
			"most %.0f\n", opt, s, zero, SECONDS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* How long one wait may be at now (ns): WAIT_SLICE_MS, or less so that the wait ends by
 * deadline (0: none) and by the next per-second line, rounded up to whole ms. */
static int
wait_slice_ms(uint64_t now, uint64_t deadline, uint64_t next_line)
{
	uint64_t end = next_line, ms;

	if (deadline != 0 && deadline < end)
		end = deadline;
	if (end <= now)
		return 0;
	ms = (end - now + 999999) / 1000000;
	return ms < WAIT_SLICE_MS ? (int)ms : WAIT_SLICE_MS;
}

/* Sleep ms milliseconds, or less when a signal comes. */
static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static int
parse_u64(const char *opt, const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		goto bad;
	*v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		goto bad;
	return 0;
bad:
	fprintf(stderr, "mcfan-read: %s '%s': expected a whole number 0..%" PRIu64 "\n", opt, s,
		UINT64_MAX);
	return -EINVAL;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"file-prefix", required_argument, NULL, 'p'},
		{"group", required_argument, NULL, 'g'},
		{"count", required_argument, NULL, 'c'},
		{"seconds", required_argument, NULL, 's'},
		{"wait-open", required_argument, NULL, 'w'},
		{"oldest", no_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"no-seq", no_argument, NULL, 'n'},
		{"zero-copy", no_argument, NULL, 'z'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct seq_state seq = {.on = true};
	const char *prefix = "rte", *group = NULL;
	uint64_t count = 0, bytes = 0, t0, deadline = 0, next_line, last_frames = 0;
	uint64_t last_lost = 0, prev_frames = 0, last_line, skipped;
	double seconds = 0, wait_open = 0;
	bool quiet = false, closed = false, zero_copy = false, writer_dead = false;
	bool not_served = false, out_gone = false, seen[26] = {false};
	unsigned int flags = 0, i;
	struct mcfan_reader_stats st;
	struct mcfan_reader_frame f;
	struct mcfan_reader *r;
	struct sigaction sa;
	char why[512];
	uint8_t *buf;
	int c, ret, status = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c >= 'a' && c <= 'z' && seen[c - 'a']) {
			for (i = 0; opts[i].name != NULL && opts[i].val != c; i++)
				;
			fprintf(stderr, "mcfan-read: --%s given twice: give it once\n",
				opts[i].name != NULL ? opts[i].name : "an option");
			return EXIT_USAGE;
		}
		if (c >= 'a' && c <= 'z')
			seen[c - 'a'] = true;
		switch (c) {
		case 'p':
			/* the library's rule and words (mcfan_reader_open() would map "" to rte:
			 * an empty value given here is a mistake, so it is refused too) */
			prefix = optarg;
			if (mcfan_rd_prefix_check(prefix, why, sizeof(why)) < 0) {
				fprintf(stderr, "mcfan-read: %s\n", why);
				return EXIT_USAGE;
			}
			break;
		case 'g':
			group = optarg;
			break;
		case 'c':
			if (parse_u64("--count", optarg, &count) < 0)
				return EXIT_USAGE;
			break;
		case 's':
			/* 0 is no limit, as for --count and tools/mcfan_reader.py */
			if (parse_seconds("--seconds", "no limit", optarg, &seconds) < 0)
				return EXIT_USAGE;
			break;
		case 'w':
			if (parse_seconds("--wait-open", "do not wait", optarg, &wait_open) < 0)
				return EXIT_USAGE;
			break;
		case 'o':
			flags |= MCFAN_READER_OLDEST;
			break;
		case 'q':
			quiet = true;
			break;
		case 'n':
			seq.on = false;
			break;
		case 'z':
			zero_copy = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mcfan-read: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (group == NULL) {
		fprintf(stderr, "mcfan-read: --group is needed\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = mcfan_reader_open(prefix, group, flags, &r);
	if (ret == -ENOENT && wait_open > 0) {
		/* no ring yet: mcfan has not made it (not started, restarting, the group not
		 * joined yet); a signal ends the wait as it ends the reading */
		uint64_t open_deadline = now_ns() + (uint64_t)(wait_open * 1e9);

		if (!quiet)
			fprintf(stderr, "mcfan-read: group %s of file prefix %s: no reader ring "
				"yet; opening it again every %u ms for up to %g s (--wait-open)\n",
				group, prefix, WAIT_SLICE_MS, wait_open);
		while (ret == -ENOENT && !stop && now_ns() < open_deadline) {
			sleep_ms(WAIT_SLICE_MS);
			ret = mcfan_reader_open(prefix, group, flags, &r);
		}
		if (ret == -ENOENT)
			fprintf(stderr, "mcfan-read: --wait-open %g: %s\n", wait_open, stop ?
				"a signal ended the wait" : "no reader ring came in that time");
	}
	if (ret < 0) {
		open_error(prefix, group, ret);
		/* a bad --file-prefix or --group (the library says which) is bad usage */
		return ret == -EINVAL || ret == -EADDRNOTAVAIL || ret == -ENAMETOOLONG ?
			EXIT_USAGE : EXIT_FAILURE;
	}
	buf = malloc(BUF_SIZE);
	if (buf == NULL) {
		mcfan_reader_close(r);
		return EXIT_FAILURE;
	}
	/* a standard output that went away (mcfan-read ... | head -1): EPIPE, not death by
	 * SIGPIPE; the reader then closes its row as at any other end */
	signal(SIGPIPE, SIG_IGN);
	t0 = now_ns();
	next_line = t0 + NS_PER_S;
	last_line = t0;
	if (seconds > 0)
		deadline = t0 + (uint64_t)(seconds * 1e9);
	if (!quiet)
		fprintf(stderr, "mcfan-read: reading %s (file prefix %s), pid %d\n",
			mcfan_reader_group(r), prefix, (int)getpid());
	while (!stop && (count == 0 || last_frames < count)) {
		uint64_t now;

		if (zero_copy) {
			/* in place; a frame overwritten while we looked counts as lost instead */
			ret = mcfan_reader_next(r, &f);
			if (ret == 1) {
				struct seq_state before = seq;

				seq_track(&seq, f.data, f.len);
				if (mcfan_reader_frame_valid(r, &f) != 1) {
					seq = before;
					continue;
				}
			}
		} else {
			ret = mcfan_reader_read(r, buf, BUF_SIZE, &f);
			if (ret == 1)
				seq_track(&seq, buf, f.len);
		}
		if (ret == 1) {
			bytes += f.len;
			last_frames++;
			if ((last_frames & 0xff) != 0)
				continue;
		} else if (ret == 0) {
			ret = mcfan_reader_wait_ms(r, wait_slice_ms(now_ns(), deadline, next_line));
		}
		if (ret == -EPIPE) {
			closed = true;
			break;
		}
		if (ret == -EOWNERDEAD) {
			fprintf(stderr, "mcfan-read: %s: writer dead: mcfan (pid %d) is gone without "
				"closing the ring (killed or crashed); no frame comes after the %"
				PRIu64 " read\n", mcfan_reader_group(r),
				(int)mcfan_reader_writer_pid(r), last_frames);
			writer_dead = true;
			status = EXIT_FAILURE;
			break;
		}
		if (ret == -EXDEV) {
			/* the group's frames went to another engine, or mcfan left it */
			fprintf(stderr, "mcfan-read: %s; stopped after %" PRIu64 " frames\n",
				mcfan_reader_explain(ret), last_frames);
			not_served = true;
			status = EXIT_FAILURE;
			break;
		}
		if (ret < 0 && ret != -EINTR) {
			fprintf(stderr, "mcfan-read: %s: %s\n", mcfan_reader_group(r),
				strerror(-ret));
			status = EXIT_FAILURE;
			break;
		}
		now = now_ns();
		if (deadline != 0 && now >= deadline)
			break;
		if (now >= next_line) {
			mcfan_reader_stats(r, &st);
			/* one line for the real time since the last one: after a stall (SIGSTOP,
			 * a starved CPU) one line covers it, none for seconds that did not pass
			 * here; the next line is at the next whole second since the open */
			skipped = (now - next_line) / NS_PER_S;
			if (!quiet) {
				printf("%.1f s: %" PRIu64 " frames (+%" PRIu64 "), lost %" PRIu64
				       " (+%" PRIu64 "), lag %" PRIu64 ", seq gaps %" PRIu64
				       " (%" PRIu64 " datagrams)", (double)(now - t0) / 1e9,
				       st.frames, st.frames - prev_frames, st.lost,
				       st.lost - last_lost, st.lag, seq.gaps, seq.lost);
				if (skipped > 0)
					printf(" (no line for %.1f s: the reader was stopped or "
					       "starved)", (double)(now - last_line) / 1e9);
				printf("\n");
			}
			last_lost = st.lost;
			prev_frames = st.frames;
			last_line = now;
			next_line += (skipped + 1) * NS_PER_S;
			if (fflush(stdout) != 0 && errno == EPIPE) {
				out_gone = true; /* nobody reads the lines, nor the JSON line */
				break;
			}
		}
	}
	if (out_gone) {
		free(buf);
		mcfan_reader_close(r);
		return status;
	}
	mcfan_reader_stats(r, &st);
	printf("{\"group\": \"%s\", \"pid\": %d, \"frames\": %" PRIu64 ", \"bytes\": %" PRIu64
	       ", \"lost\": %" PRIu64 ", \"lapped\": %" PRIu64 ", \"head\": %" PRIu64
	       ", \"lag\": %" PRIu64 ", \"closed\": %s, \"seconds\": %.3f", mcfan_reader_group(r),
	       (int)getpid(), st.frames, bytes, st.lost, st.laps, st.head, st.lag,
	       closed || st.closed ? "true" : "false", (double)(now_ns() - t0) / 1e9);
	printf(", \"writer_dead\": %s, \"not_served\": %s", writer_dead ? "true" : "false",
	       not_served ? "true" : "false");
	if (seq.on)
		printf(", \"seq_gaps\": %" PRIu64 ", \"seq_lost\": %" PRIu64 ", \"seq_back\": %"
		       PRIu64 ", \"seq_ends\": %" PRIu64 ", \"seq_other\": %" PRIu64, seq.gaps,
		       seq.lost, seq.back, seq.ends, seq.other);
	printf("}\n");
	fflush(stdout);
	free(buf);
	mcfan_reader_close(r);
	return status;
}
