/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The kernel's side of test/bench/bench_seed.sh: N UDP sockets per multicast group, as N
 * applications would open them, each joined to its group (RFC 1112, IP_ADD_MEMBERSHIP) on
 * one interface address and drained with recvmmsg() from one epoll loop; every socket
 * counts its own datagrams.
 *
 *   seed_reader -g FIRST_GROUP -n GROUPS -s SOCKETS_PER_GROUP -p PORT -i IFACE_ADDR
 *               [-t MAX_SECONDS]
 *
 * Prints "ready" once every socket has joined, then runs until SIGINT/SIGTERM or
 * MAX_SECONDS (default 600), then one line per socket ("socket K group G datagrams D") and
 * "total D". Groups are FIRST_GROUP, FIRST_GROUP + 1, ... (the last octet counts up).
 * Built by bench_seed.sh with cc; no DPDK.
 */

#define _GNU_SOURCE /* recvmmsg() */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SOCKETS_MAX 4096
#define BATCH 64          /* datagrams per recvmmsg() */
#define DGRAM_MAX 2048    /* bytes kept of a datagram (the seed's are 64) */
#define EVENTS_MAX 128    /* events per epoll_wait() */
#define WAIT_MS 100       /* epoll_wait() timeout: the stop flag is checked this often */
#define MAX_SECONDS_DEFAULT 600

static volatile sig_atomic_t stop_flag;

static void
on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct reader {
	int fd[SOCKETS_MAX];
	uint32_t group[SOCKETS_MAX]; /* host order */
	uint64_t count[SOCKETS_MAX];
	unsigned int n;
};

static struct reader rd;
static char bufs[BATCH][DGRAM_MAX];

/* One socket bound to group:port, joined on iface; returns the fd or -1 (message printed). */
static int
open_member(uint32_t group, uint16_t port, struct in_addr iface)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct ip_mreq mr;
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("seed_reader: socket");
		return -1;
	}
	sa.sin_addr.s_addr = htonl(group);
	mr.imr_multiaddr.s_addr = htonl(group);
	mr.imr_interface = iface;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)) != 0) {
		perror("seed_reader: setsockopt/bind/IP_ADD_MEMBERSHIP");
		close(fd);
		return -1;
	}
	return fd;
}

/* Drain one socket; returns datagrams read. */
static uint64_t
drain(int fd)
{
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint64_t got = 0;
	int i, n;

	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = DGRAM_MAX;
		memset(&msgs[i].msg_hdr, 0, sizeof(msgs[i].msg_hdr));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	for (;;) {
		n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		got += (uint64_t)n;
		if (n < BATCH)
			break;
	}
	return got;
}

static void
usage(void)
{
	fprintf(stderr, "usage: seed_reader -g FIRST_GROUP -n GROUPS -s SOCKETS_PER_GROUP "
		"-p PORT -i IFACE_ADDR [-t MAX_SECONDS]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct epoll_event ev, evs[EVENTS_MAX];
	struct in_addr first = {0}, iface = {0};
	unsigned int groups = 0, per = 0, g, k, i;
	long max_s = MAX_SECONDS_DEFAULT, port = 0;
	struct timespec t0, now;
	uint64_t total = 0;
	int ep, n, o;

	while ((o = getopt(argc, argv, "g:n:s:p:i:t:")) != -1) {
		switch (o) {
		case 'g':
			if (inet_pton(AF_INET, optarg, &first) != 1)
				usage();
			break;
		case 'n':
			groups = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 's':
			per = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'p':
			port = strtol(optarg, NULL, 10);
			break;
		case 'i':
			if (inet_pton(AF_INET, optarg, &iface) != 1)
				usage();
			break;
		case 't':
			max_s = strtol(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (groups == 0 || per == 0 || groups * per > SOCKETS_MAX || port <= 0 || port > 65535 ||
	    first.s_addr == 0 || iface.s_addr == 0 || max_s <= 0)
		usage();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0) {
		perror("seed_reader: epoll_create1");
		return 1;
	}
	for (g = 0; g < groups; g++) {
		for (k = 0; k < per; k++) {
			i = rd.n;
			rd.group[i] = ntohl(first.s_addr) + g;
			rd.fd[i] = open_member(rd.group[i], (uint16_t)port, iface);
			if (rd.fd[i] < 0)
				return 1;
			ev.events = EPOLLIN;
			ev.data.u32 = i;
			if (epoll_ctl(ep, EPOLL_CTL_ADD, rd.fd[i], &ev) != 0) {
				perror("seed_reader: epoll_ctl");
				return 1;
			}
			rd.n++;
		}
	}
	printf("ready\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop_flag) {
		n = epoll_wait(ep, evs, EVENTS_MAX, WAIT_MS);
		if (n < 0 && errno != EINTR) {
			perror("seed_reader: epoll_wait");
			break;
		}
		for (o = 0; o < n; o++)
			rd.count[evs[o].data.u32] += drain(rd.fd[evs[o].data.u32]);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= max_s)
			break;
	}
	for (i = 0; i < rd.n; i++) {
		rd.count[i] += drain(rd.fd[i]);
		total += rd.count[i];
		printf("socket %u group %u.%u.%u.%u datagrams %" PRIu64 "\n", i, rd.group[i] >> 24,
		       (rd.group[i] >> 16) & 0xff, (rd.group[i] >> 8) & 0xff, rd.group[i] & 0xff,
		       rd.count[i]);
		close(rd.fd[i]);
	}
	printf("total %" PRIu64 "\n", total);
	close(ep);
	return 0;
}
