/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * A paced multicast UDP sender for test/bench/bench_seed.sh: one group, COUNT datagrams
 * of LEN bytes at RATE datagrams a second, then one end-of-test datagram, as iperf2 sends
 * them (the payload starts with iperf 2.1's UDP datagram header: a 32-bit big-endian id,
 * tv_sec, tv_usec, the id's upper 32 bits; the last datagram carries -(COUNT), the
 * "negative id" end marker; lib/feed/mcfan_feed.h), so the wire carries COUNT + 1.
 *
 *   seed_sender -g GROUP -p PORT -l LEN -r RATE -n COUNT [-T TICK_US] [-w MAX_SECONDS]
 *
 * Why not iperf2: Debian 12's iperf 2.1.8 paces by spinning and, with -n, does not pace at
 * all above some rate: on this host ten of them asked for 16,500 datagrams/s sent 49,000 a
 * second each, and asked for 3,300 sent 1,500-2,500 (ten spinning processes on two CPUs;
 * docs/performance.md "The senders' rate"). This sender sleeps: it wakes on an absolute
 * CLOCK_MONOTONIC deadline, every TICK_US (default 1000) or at the next datagram's time if
 * that is later, and sends, with sendmmsg(), the datagrams due by then (the schedule is
 * start + i / RATE), so the rate over the run is RATE whatever a wake-up's lateness, and a
 * late wake-up sends what fell due meanwhile.
 * TTL 1 (IP_MULTICAST_TTL), the route picks the interface (the lab's sender namespace
 * has one). A datagram the kernel refuses (ENOBUFS, EAGAIN) is sent again at the next
 * tick, never skipped. Stops after MAX_SECONDS (default COUNT / RATE + 10) whatever is
 * left; exit status 1 then.
 *
 * At exit it prints one line: "sent N datagrams in S s: R per second, at most B a tick,
 * E refused (sent again)". Built by bench_seed.sh with cc; no DPDK.
 */

#define _GNU_SOURCE /* sendmmsg() */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 256       /* datagrams per sendmmsg() */
#define LEN_MIN 16      /* the iperf2 header */
#define LEN_MAX 1472    /* one Ethernet frame */
#define NS_PER_S 1000000000ULL

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Parse a whole decimal number in [lo, hi] or exit 2 naming the option. */
static uint64_t
number(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "seed_sender: %s '%s': want a whole number in [%" PRIu64 ", %"
			PRIu64 "]\n", opt, s, lo, hi);
		exit(2);
	}
	return v;
}

/* Write iperf 2.1's UDP datagram header for 64-bit id @id into @p. */
static void
put_header(uint8_t *p, int64_t id)
{
	struct timespec ts;
	uint32_t w[4];

	clock_gettime(CLOCK_REALTIME, &ts);
	w[0] = htonl((uint32_t)((uint64_t)id & 0xffffffffu));
	w[1] = htonl((uint32_t)ts.tv_sec);
	w[2] = htonl((uint32_t)(ts.tv_nsec / 1000));
	w[3] = htonl((uint32_t)((uint64_t)id >> 32));
	memcpy(p, w, sizeof(w));
}

int
main(int argc, char **argv)
{
	static uint8_t bufs[BATCH][LEN_MAX];
	static struct iovec iov[BATCH];
	static struct mmsghdr msgs[BATCH];
	struct sockaddr_in dst = { .sin_family = AF_INET };
	uint64_t rate = 0, count = 0, len = 0, tick_us = 1000, max_s = 0;
	uint64_t sent = 0, refused = 0, max_tick = 0, start, deadline, t_end;
	const char *group = NULL;
	unsigned char ttl = 1;
	int port = -1, o, fd, i;

	while ((o = getopt(argc, argv, "g:p:l:r:n:T:w:")) != -1) {
		switch (o) {
		case 'g':
			group = optarg;
			break;
		case 'p':
			port = (int)number("-p", optarg, 1, 65535);
			break;
		case 'l':
			len = number("-l", optarg, LEN_MIN, LEN_MAX);
			break;
		case 'r':
			rate = number("-r", optarg, 1, 10000000);
			break;
		case 'n':
			count = number("-n", optarg, 1, 1000000000);
			break;
		case 'T':
			tick_us = number("-T", optarg, 10, 1000000);
			break;
		case 'w':
			max_s = number("-w", optarg, 1, 86400);
			break;
		default:
			fprintf(stderr, "usage: seed_sender -g GROUP -p PORT -l LEN -r RATE -n COUNT "
				"[-T TICK_US] [-w MAX_SECONDS]\n");
			return 2;
		}
	}
	if (group == NULL || port < 0 || len == 0 || rate == 0 || count == 0) {
		fprintf(stderr, "seed_sender: -g, -p, -l, -r and -n are required\n");
		return 2;
	}
	if (inet_pton(AF_INET, group, &dst.sin_addr) != 1 ||
	    (ntohl(dst.sin_addr.s_addr) >> 28) != 0xe) {
		fprintf(stderr, "seed_sender: -g '%s': want an IPv4 multicast group "
			"(224.0.0.0/4)\n", group);
		return 2;
	}
	dst.sin_port = htons((uint16_t)port);
	if (max_s == 0)
		max_s = count / rate + 10;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl)) != 0 ||
	    connect(fd, (struct sockaddr *)&dst, sizeof(dst)) != 0) {
		fprintf(stderr, "seed_sender: socket to %s:%d: %s\n", group, port,
			strerror(errno));
		return 1;
	}
	/* Wake-ups on time: the default 50 us of timer slack is most of a 60 us interval. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	for (i = 0; i < BATCH; i++) {
		memset(bufs[i], 0, len);
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = len;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	start = now_ns();
	t_end = start + max_s * NS_PER_S;
	deadline = start;
	while (sent < count) {
		uint64_t t = now_ns(), due, todo, this_tick = 0;
		struct timespec ts;

		if (t >= t_end)
			break;
		/* datagrams due by now: the schedule is start + i / rate */
		due = (uint64_t)((double)(t - start) * (double)rate / (double)NS_PER_S) + 1;
		if (due > count)
			due = count;
		while (sent < due) {
			int n, k;

			todo = due - sent;
			n = todo > BATCH ? BATCH : (int)todo;
			for (k = 0; k < n; k++)
				put_header(bufs[k], (int64_t)(sent + (uint64_t)k));
			k = sendmmsg(fd, msgs, (unsigned int)n, 0);
			if (k < 0) {
				if (errno == EINTR)
					continue;
				if (errno != ENOBUFS && errno != EAGAIN) {
					fprintf(stderr, "seed_sender: sendmmsg: %s\n",
						strerror(errno));
					return 1;
				}
				refused++;
				break; /* sent again at the next tick */
			}
			sent += (uint64_t)k;
			this_tick += (uint64_t)k;
			if (k < n) {
				refused++;
				break;
			}
		}
		if (this_tick > max_tick)
			max_tick = this_tick;
		if (sent >= count)
			break;
		/* the next tick, or the next datagram's time if that is later (a low rate wakes
		 * once a datagram, on time) */
		deadline += tick_us * 1000;
		if (deadline < t)
			deadline = t; /* late: no burst of empty ticks */
		{
			uint64_t next = start + (uint64_t)((double)sent * (double)NS_PER_S /
							   (double)rate);

			if (next > deadline)
				deadline = next;
		}
		ts.tv_sec = (time_t)(deadline / NS_PER_S);
		ts.tv_nsec = (long)(deadline % NS_PER_S);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	if (sent == count) {
		/* iperf2's end-of-test datagram: -(the next sequence number) */
		put_header(bufs[0], -(int64_t)count);
		while (send(fd, bufs[0], len, 0) < 0 && (errno == ENOBUFS || errno == EAGAIN ||
							 errno == EINTR) && now_ns() < t_end)
			usleep(100);
	}
	{
		double s = (double)(now_ns() - start) / (double)NS_PER_S;

		printf("sent %" PRIu64 " datagrams in %.3f s: %.0f per second, at most %" PRIu64
		       " a tick, %" PRIu64 " refused (sent again)\n", sent, s,
		       s > 0 ? (double)sent / s : 0.0, max_tick, refused);
	}
	close(fd);
	return sent == count ? 0 : 1;
}
