/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Kernel-side loss (control/kernel.h). DPDK 22.11's net_af_packet never reads its sockets'
 * PACKET_STATISTICS (upstream added that in 25.03), so frames the kernel drops because a
 * queue's ring is full count nowhere. mcfan finds the PMD's sockets itself:
 *
 *  1. the port's kernel interface: rte_eth_dev_info.if_index (the PMD sets it), else the
 *     device argument iface=NAME;
 *  2. /proc/net/packet lists every packet socket of the network namespace with its
 *     interface index and inode; /proc/self/fd/N of a socket reads "socket:[INODE]";
 *     the process's fds whose inode is a packet socket bound to that interface are the
 *     PMD's, one per queue. The PMD opens them in queue order at probe, so in ascending fd
 *     order they are queues 0, 1, ...;
 *  3. each is duplicated (F_DUPFD_CLOEXEC), so the fd stays this socket's whatever the
 *     process opens or closes later, and read with getsockopt(SOL_PACKET,
 *     PACKET_STATISTICS) on the control lcore's tick: tp_drops and tp_packets (which the
 *     kernel returns with the drops included) reset on every read, so they are added up
 *     here, under ctl_lock; the last read comes right before the port stops (the PMD then
 *     closes its sockets), and the duplicates are closed.
 *
 * net_tap: frames the kernel could not queue to the tap fd count as the tap interface's
 * tx_dropped, and those queued as its tx_packets (the kernel "transmits" to the PMD).
 * net_pcap on iface=: libpcap owns the socket and its pcap_stats() reads (and so resets)
 * PACKET_STATISTICS; the PMD reports that as imissed, so mcfan uses imissed and leaves the
 * socket alone (a read here would take the drops away from libpcap).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_spinlock.h>

#include "mcfan.h"
#include "log.h"
#include "control/kernel.h"

#define PROC_NET_PACKET "/proc/net/packet"
#define PROC_NET_SNMP "/proc/net/snmp"
#define MAX_PACKET_SOCKETS 256 /* packet sockets of the namespace looked at */

enum kernel_kind {
	KIND_NONE = 0,
	KIND_AF_PACKET,
	KIND_TAP,
	KIND_PCAP,
};

/* Interface counters, raw (since the interface was created). */
struct if_counters {
	uint64_t rx_packets;
	uint64_t rx_dropped;
	uint64_t tx_packets;
	uint64_t tx_dropped;
};

/* One port's state. */
struct kernel_port {
	enum kernel_kind kind;
	char ifname[IF_NAMESIZE];
	unsigned int ifindex;                        /* 0 = unknown */
	bool if_gone;                                /* told once: not in the namespace */
	/* net_af_packet: the interface its sockets were bound to is gone (deleted, or moved
	 * to another namespace: the kernel unbinds them then, for good); told once, final */
	bool bound_gone;
	uint64_t inodes[MCFAN_KERNEL_MAX_QUEUES];    /* the sockets' inodes (af_packet) */
	struct if_counters if_last;                  /* last good read (kept once gone) */
	bool have_last;
	uint64_t next_check_tsc;                     /* next binding check (af_packet) */
	unsigned int n_fds;
	int fds[MCFAN_KERNEL_MAX_QUEUES];            /* duplicates, -1 once closed */
	uint64_t packets[MCFAN_KERNEL_MAX_QUEUES];   /* accumulated since the start */
	uint64_t drops[MCFAN_KERNEL_MAX_QUEUES];
	uint64_t base_packets[MCFAN_KERNEL_MAX_QUEUES]; /* at the last clear */
	uint64_t base_drops[MCFAN_KERNEL_MAX_QUEUES];
	bool have_if;
	struct if_counters if_base;                  /* at the start, then at each clear */
	struct if_counters if_start;                 /* at the start (/metrics' base) */
	struct if_counters if_final;                 /* read at the final read */
	bool final;
};

/* The network namespace's IPv4 reassembly counters (RFC 4293 ipSystemStatsReasmReqds,
 * ReasmOKs, ReasmFails; /proc/net/snmp's "Ip:" lines), raw. */
struct reasm_counters {
	uint64_t reqds; /* fragments that needed reassembly */
	uint64_t oks;   /* datagrams reassembled */
	uint64_t fails; /* reassemblies that failed (ReasmTimeout's included) */
};

/* app->kernel: one entry per ethdev port; the namespace's reassembly counters, followed
 * while a net_af_packet port is (its PMD's sockets ask the kernel to reassemble). */
struct mcfan_kernel {
	struct kernel_port ports[RTE_MAX_ETHPORTS];
	bool have_reasm;
	bool reasm_final_read;
	struct reasm_counters reasm_base;  /* at the start, then at each clear */
	struct reasm_counters reasm_start; /* at the start (/metrics' base) */
	struct reasm_counters reasm_final; /* read at the final read */
};

/* One number from /sys/class/net/IF/statistics/NAME; false if unreadable. */
static bool
if_stat(const char *ifname, const char *name, uint64_t *v)
{
	char path[128];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", ifname, name);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	ok = fscanf(f, "%" SCNu64, v) == 1;
	fclose(f);
	return ok;
}

/* /proc/net/snmp's reassembly counters: the "Ip:" header line names the columns of the
 * "Ip:" values line after it; false if unreadable. */
static bool
reasm_read(struct reasm_counters *c)
{
	char head[1024], vals[1024], *hs, *vs, *h, *v;
	bool found = false;
	unsigned int got = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = fopen(PROC_NET_SNMP, "r");
	if (f == NULL)
		return false;
	while (!found && fgets(head, sizeof(head), f) != NULL)
		found = strncmp(head, "Ip: ", 4) == 0 && fgets(vals, sizeof(vals), f) != NULL &&
			strncmp(vals, "Ip: ", 4) == 0;
	fclose(f);
	if (!found)
		return false;
	h = strtok_r(head + 4, " \n", &hs);
	v = strtok_r(vals + 4, " \n", &vs);
	while (h != NULL && v != NULL) {
		uint64_t *dst = strcmp(h, "ReasmReqds") == 0 ? &c->reqds :
				strcmp(h, "ReasmOKs") == 0 ? &c->oks :
				strcmp(h, "ReasmFails") == 0 ? &c->fails : NULL;

		if (dst != NULL) {
			*dst = strtoull(v, NULL, 10);
			got++;
		}
		h = strtok_r(NULL, " \n", &hs);
		v = strtok_r(NULL, " \n", &vs);
	}
	return got == 3;
}

static bool
if_read(const char *ifname, struct if_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (ifname[0] == '\0')
		return false;
	return if_stat(ifname, "rx_packets", &c->rx_packets) &&
	       if_stat(ifname, "rx_dropped", &c->rx_dropped) &&
	       if_stat(ifname, "tx_packets", &c->tx_packets) &&
	       if_stat(ifname, "tx_dropped", &c->tx_dropped);
}

/* A net_af_packet port's sockets are still bound to kp->ifindex: false once /proc/net/packet
 * shows one of them bound to no interface (-1) or another (the kernel unbinds a packet
 * socket when its interface is unregistered: deleted, or moved to another namespace, even
 * if it comes back). True when it cannot tell. */
static bool
sockets_bound(const struct kernel_port *kp)
{
	char line[256];
	uint64_t inode;
	bool bound = true;
	unsigned int q;
	FILE *f;
	int iface;

	f = fopen(PROC_NET_PACKET, "r");
	if (f == NULL)
		return true;
	while (bound && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*s %*s %*s %*s %d %*s %*s %*s %" SCNu64, &iface, &inode) != 2)
			continue;
		for (q = 0; q < kp->n_fds; q++)
			if (kp->inodes[q] == inode && iface != (int)kp->ifindex)
				bound = false;
	}
	fclose(f);
	return bound;
}

/* net_af_packet: the interface the port's sockets were bound to is gone (its index no longer
 * exists, or the sockets were unbound). Told once; from then on the interface counters keep
 * their last values (an interface made again under the name is another one). */
static void
bound_gone(struct kernel_port *kp, uint16_t port)
{
	if (kp->bound_gone)
		return;
	kp->bound_gone = true;
	MCFAN_LOG(WARNING, "port %u: interface %s (index %u) is gone (deleted, or moved to "
		  "another network namespace): the port's net_af_packet socket stays bound to "
		  "the interface that is gone, so nothing more is received on port %u until "
		  "mcfan restarts (DPDK's PMD cannot rebind; an interface made again with the "
		  "same name is not this port's). Its kernel counters keep their last values; "
		  "interface_state gone\n", port, kp->ifname, kp->ifindex, port);
}

/* net_af_packet: is the interface still there with the sockets bound to it? Marks it gone
 * (bound_gone()) when not. ctl_lock held. */
static void
bound_check(struct kernel_port *kp, uint16_t port)
{
	char name[IF_NAMESIZE];

	if (kp->kind != KIND_AF_PACKET || kp->bound_gone || kp->final || kp->ifindex == 0)
		return;
	if (if_indextoname(kp->ifindex, name) == NULL || !sockets_bound(kp))
		bound_gone(kp, port);
}

/* The interface counters of port's interface, followed by its index (a rename is followed;
 * an interface of another index under the old name is not read). False while it is not in
 * mcfan's network namespace (moved to another with ip link set IF netns NS, or deleted):
 * told once when it goes and once when it comes back (its counters, kept by the interface,
 * then cover the time away too). net_af_packet: gone is final (bound_gone()), and the
 * last values read are kept. ctl_lock held (or before launch). */
static bool
if_follow(struct kernel_port *kp, uint16_t port, struct if_counters *c)
{
	char name[IF_NAMESIZE];
	bool ok;

	bound_check(kp, port);
	if (kp->bound_gone) {
		*c = kp->if_last;
		return kp->have_last;
	}
	if (kp->ifindex != 0) {
		ok = if_indextoname(kp->ifindex, name) != NULL;
		if (ok && strcmp(name, kp->ifname) != 0) {
			MCFAN_LOG(INFO, "port %u: interface %s is now %s (index %u): its counters "
				  "are read under the new name\n", port, kp->ifname, name,
				  kp->ifindex);
			snprintf(kp->ifname, sizeof(kp->ifname), "%s", name);
		}
		ok = ok && if_read(kp->ifname, c);
	} else {
		ok = if_read(kp->ifname, c);
	}
	if (ok) {
		kp->if_last = *c;
		kp->have_last = true;
	}
	if (ok && kp->if_gone)
		MCFAN_LOG(INFO, "port %u: interface %s is back in mcfan's network namespace: its "
			  "counters are read again (they cover the time away)\n", port, kp->ifname);
	else if (!ok && !kp->if_gone)
		MCFAN_LOG(WARNING, "port %u: interface %s is gone from mcfan's network namespace "
			  "(moved to another namespace, or deleted): its interface counters cannot "
			  "be read while it is away (rx_packets and rx_dropped null%s)\n", port,
			  kp->ifname, kp->kind == KIND_TAP ? "; the tap's kernel drops are not "
			  "counted: kernel_source none" : "");
	kp->if_gone = !ok;
	return ok;
}

/* The value of key=... in a device argument string ("iface=veth0,qpairs=2"), or "". */
static void
devarg_value(const char *args, const char *key, char *out, size_t len)
{
	size_t n = strlen(key);
	const char *p = args;

	out[0] = '\0';
	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, n) == 0 && p[n] == '=') {
			p += n + 1;
			n = strcspn(p, ",");
			snprintf(out, len, "%.*s", (int)RTE_MIN(n, len - 1), p);
			return;
		}
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Inodes of the namespace's packet sockets bound to ifindex; returns how many. */
static unsigned int
packet_inodes(unsigned int ifindex, uint64_t *inodes, unsigned int max)
{
	char line[256];
	unsigned int n = 0, iface;
	uint64_t inode;
	FILE *f;

	f = fopen(PROC_NET_PACKET, "r");
	if (f == NULL)
		return 0;
	/* sk RefCnt Type Proto Iface R Rmem User Inode */
	while (n < max && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%*s %*s %*s %*s %u %*s %*s %*s %" SCNu64, &iface, &inode) == 2 &&
		    iface == ifindex)
			inodes[n++] = inode;
	fclose(f);
	return n;
}

/* The process's fds that are one of the given socket inodes, ascending; returns how many. */
static unsigned int
socket_fds(const uint64_t *inodes, unsigned int n_inodes, int *fds, unsigned int max)
{
	char path[PATH_MAX], link[64];
	struct dirent *de;
	unsigned int n = 0, i;
	uint64_t inode;
	ssize_t len;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (d == NULL)
		return 0;
	while (n < max && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (sscanf(link, "socket:[%" SCNu64 "]", &inode) != 1)
			continue;
		for (i = 0; i < n_inodes; i++) {
			if (inodes[i] == inode) {
				fds[n++] = atoi(de->d_name);
				break;
			}
		}
	}
	closedir(d);
	qsort(fds, n, sizeof(fds[0]), cmp_int);
	return n;
}

/* The inode of socket fd (its /proc/self/fd link "socket:[INODE]"), or 0. */
static uint64_t
socket_inode(int fd)
{
	char path[64], link[64];
	uint64_t inode = 0;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return 0;
	link[len] = '\0';
	if (sscanf(link, "socket:[%" SCNu64 "]", &inode) != 1)
		return 0;
	return inode;
}

/* Read one socket's statistics (reset by the read); false if it cannot be read. */
static bool
sock_stats(int fd, uint64_t *packets, uint64_t *drops)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) != 0)
		return false;
	*packets += st.tp_packets;
	*drops += st.tp_drops;
	return true;
}

/* Read every socket of a port; ctl_lock held (or before launch). */
static void
port_poll(struct kernel_port *kp)
{
	unsigned int q;

	if (kp->kind != KIND_AF_PACKET || kp->final)
		return;
	for (q = 0; q < kp->n_fds; q++)
		if (kp->fds[q] >= 0)
			sock_stats(kp->fds[q], &kp->packets[q], &kp->drops[q]);
}

/* net_af_packet: find and duplicate the port's sockets (see the top of this file). */
static void
af_packet_find(struct kernel_port *kp, uint16_t port, unsigned int ifindex)
{
	uint64_t inodes[MAX_PACKET_SOCKETS], discard = 0;
	int fds[MCFAN_KERNEL_MAX_QUEUES];
	unsigned int n_inodes, n, q;

	n_inodes = packet_inodes(ifindex, inodes, RTE_DIM(inodes));
	n = socket_fds(inodes, n_inodes, fds, RTE_DIM(fds));
	for (q = 0; q < n; q++) {
		kp->fds[kp->n_fds] = fcntl(fds[q], F_DUPFD_CLOEXEC, 0);
		if (kp->fds[kp->n_fds] < 0)
			continue;
		/* read once: what came before the start is not counted */
		sock_stats(kp->fds[kp->n_fds], &discard, &discard);
		kp->inodes[kp->n_fds] = socket_inode(fds[q]);
		kp->n_fds++;
	}
	if (kp->n_fds == 0) {
		MCFAN_LOG(WARNING, "port %u: no packet socket of interface %s found in %s and "
			  "/proc/self/fd: its kernel drops are not counted\n", port, kp->ifname,
			  PROC_NET_PACKET);
		kp->kind = KIND_NONE;
	}
}

int
mcfan_kernel_port_init(struct mcfan_app *app, uint16_t port)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct kernel_port *kp;
	char val[IF_NAMESIZE];
	const char *args = "";
	unsigned int ifindex;

	if (port >= RTE_MAX_ETHPORTS)
		return -EINVAL;
	if (app->kernel == NULL) {
		app->kernel = calloc(1, sizeof(*app->kernel));
		if (app->kernel == NULL)
			return -ENOMEM;
	}
	kp = &app->kernel->ports[port];
	memset(kp, 0, sizeof(*kp));
	if (rte_eth_dev_info_get(port, &info) != 0)
		return 0;
	da = info.device != NULL ? rte_dev_devargs(info.device) : NULL;
	if (da != NULL && da->args != NULL)
		args = da->args;
	ifindex = info.if_index;
	if (strcmp(info.driver_name, "net_af_packet") == 0) {
		kp->kind = KIND_AF_PACKET;
		devarg_value(args, "iface", val, sizeof(val));
	} else if (strcmp(info.driver_name, "net_tap") == 0) {
		kp->kind = KIND_TAP;
		devarg_value(args, "iface", val, sizeof(val));
	} else if (strcmp(info.driver_name, "net_pcap") == 0) {
		devarg_value(args, "iface", val, sizeof(val));
		if (val[0] == '\0')
			devarg_value(args, "rx_iface", val, sizeof(val));
		if (val[0] == '\0')
			devarg_value(args, "rx_iface_in", val, sizeof(val));
		if (val[0] != '\0')
			kp->kind = KIND_PCAP;
	} else {
		return 0;
	}
	if (kp->kind == KIND_NONE)
		return 0;
	if (ifindex == 0 && val[0] != '\0')
		ifindex = if_nametoindex(val);
	if (ifindex == 0 || if_indextoname(ifindex, kp->ifname) == NULL)
		snprintf(kp->ifname, sizeof(kp->ifname), "%s", val);
	else
		kp->ifindex = ifindex;
	if (kp->kind == KIND_AF_PACKET) {
		if (ifindex == 0) {
			MCFAN_LOG(WARNING, "port %u: net_af_packet without a kernel interface index: "
				  "its kernel drops are not counted\n", port);
			kp->kind = KIND_NONE;
		} else {
			af_packet_find(kp, port, ifindex);
		}
	}
	/* the PMD's sockets reassemble IPv4 (their fanout's defrag flag): follow the
	 * namespace's reassembly from the first such port on */
	if (kp->kind == KIND_AF_PACKET && !app->kernel->have_reasm) {
		app->kernel->have_reasm = reasm_read(&app->kernel->reasm_base);
		app->kernel->reasm_start = app->kernel->reasm_base;
	}
	kp->have_if = if_read(kp->ifname, &kp->if_base);
	kp->if_start = kp->if_base;
	kp->if_last = kp->if_base;
	kp->have_last = kp->have_if;
	if (kp->kind != KIND_NONE)
		MCFAN_LOG(INFO, "port %u: kernel-side counters of %s from %s%s\n", port,
			  kp->ifname, kp->kind == KIND_AF_PACKET ? "PACKET_STATISTICS" :
			  kp->kind == KIND_TAP ? "the tap interface" : "pcap_stats (imissed)",
			  kp->kind == KIND_AF_PACKET ? (kp->n_fds > 1 ? " of its sockets" :
							" of its socket") : "");
	return 0;
}

void
mcfan_kernel_tick(struct mcfan_app *app)
{
	struct if_counters now;
	struct kernel_port *kp;
	uint64_t tsc = rte_rdtsc();
	uint16_t port;

	if (app->kernel == NULL)
		return;
	mcfan_ctl_state_lock(app);
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		kp = &app->kernel->ports[port];
		port_poll(kp);
		/* once a second: is a net_af_packet port's interface still there? Its
		 * counters are read then too, so the values kept once it is gone are at most
		 * a second old */
		if (kp->kind == KIND_AF_PACKET && !kp->bound_gone && !kp->final &&
		    tsc >= kp->next_check_tsc) {
			kp->next_check_tsc = tsc + app->tsc_hz;
			if (kp->have_if)
				if_follow(kp, port, &now);
			else
				bound_check(kp, port);
		}
	}
	mcfan_ctl_state_unlock(app);
}

void
mcfan_kernel_quiesce(struct mcfan_app *app)
{
	/* classic BPF "return 0": the kernel refuses each frame before the ring, and before
	 * tp_packets counts it (net/packet/af_packet.c: run_filter() comes first) */
	struct sock_filter none[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_fprog prog = { .len = RTE_DIM(none), .filter = none };
	struct kernel_port *kp;
	unsigned int q;
	uint16_t port;

	if (app->kernel == NULL)
		return;
	mcfan_ctl_state_lock(app);
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		kp = &app->kernel->ports[port];
		if (kp->kind != KIND_AF_PACKET || kp->final)
			continue;
		for (q = 0; q < kp->n_fds; q++)
			if (kp->fds[q] >= 0 &&
			    setsockopt(kp->fds[q], SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				       sizeof(prog)) != 0)
				MCFAN_LOG(WARNING, "port %u (%s) queue %u: cannot close its socket to "
					  "new frames before the quit drain (%s): frames arriving "
					  "until the port's stop reach the socket uncounted\n", port,
					  kp->ifname, q, strerror(errno));
	}
	mcfan_ctl_state_unlock(app);
}

void
mcfan_kernel_final(struct mcfan_app *app)
{
	struct kernel_port *kp;
	unsigned int q;
	uint16_t port;

	if (app->kernel == NULL)
		return;
	mcfan_ctl_state_lock(app);
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		kp = &app->kernel->ports[port];
		if (kp->final)
			continue;
		port_poll(kp);
		if (kp->have_if && !if_follow(kp, port, &kp->if_final))
			kp->have_if = false;
		for (q = 0; q < kp->n_fds; q++) {
			if (kp->fds[q] >= 0)
				close(kp->fds[q]);
			kp->fds[q] = -1;
		}
		kp->final = true;
	}
	if (app->kernel->have_reasm && !app->kernel->reasm_final_read) {
		if (!reasm_read(&app->kernel->reasm_final))
			app->kernel->reasm_final = app->kernel->reasm_base;
		app->kernel->reasm_final_read = true;
	}
	mcfan_ctl_state_unlock(app);
}

/* The reassembly counters since the last clear, or since the start, into out (ctl_lock
 * held). */
static void
reasm_view(const struct mcfan_kernel *k, struct mcfan_kernel_view *out, bool since_start)
{
	const struct reasm_counters *b = since_start ? &k->reasm_start : &k->reasm_base;
	struct reasm_counters now;

	if (k->reasm_final_read)
		now = k->reasm_final;
	else if (!reasm_read(&now))
		now = k->reasm_base;
	out->have_reasm = true;
	out->reasm_fragments = now.reqds - b->reqds;
	out->reasm_datagrams = now.oks - b->oks;
	out->reasm_failed = now.fails - b->fails;
}

/* mcfan_kernel_read(), mcfan_kernel_read_drops(): with_if false reads the interface's
 * sysfs counters only where kernel_drops comes from them (net_tap); since_start: from the
 * start, not the last clear (mcfan_kernel_read_since()). */
static int
kernel_read(const struct mcfan_app *app, uint16_t port, const struct rte_eth_stats *ps,
	    struct mcfan_kernel_view *out, bool with_if, bool since_start)
{
	const struct if_counters *ib;
	struct if_counters now;
	struct kernel_port *kp;
	unsigned int q;

	memset(out, 0, sizeof(*out));
	out->source = "none";
	out->if_state = "none";
	if (port >= RTE_MAX_ETHPORTS || !app->ports[port].used)
		return -ENODEV;
	if (app->kernel == NULL)
		return 0;
	mcfan_ctl_state_lock(app);
	kp = &app->kernel->ports[port];
	ib = since_start ? &kp->if_start : &kp->if_base;
	port_poll(kp);
	if (kp->have_if && (with_if || kp->kind == KIND_TAP)) {
		if (kp->final)
			now = kp->if_final;
		/* a live read that fails is not a zero: the view says "not read" */
		out->have_if = kp->final || if_follow(kp, port, &now);
		if (out->have_if) {
			out->if_rx_packets = now.rx_packets - ib->rx_packets;
			out->if_rx_dropped = now.rx_dropped - ib->rx_dropped;
		}
	}
	snprintf(out->ifname, sizeof(out->ifname), "%s", kp->ifname);
	out->if_state = kp->kind == KIND_NONE || kp->ifname[0] == '\0' ? "none" :
			kp->bound_gone ? "gone" : kp->if_gone ? "away" : "present";
	switch (kp->kind) {
	case KIND_AF_PACKET:
		out->source = "packet_statistics";
		if (with_if && app->kernel->have_reasm)
			reasm_view(app->kernel, out, since_start);
		out->n_queues = kp->n_fds;
		for (q = 0; q < kp->n_fds; q++) {
			out->queue_packets[q] = kp->packets[q] -
						(since_start ? 0 : kp->base_packets[q]);
			out->queue_drops[q] = kp->drops[q] - (since_start ? 0 : kp->base_drops[q]);
			out->kernel_packets += out->queue_packets[q];
			out->kernel_drops += out->queue_drops[q];
		}
		break;
	case KIND_TAP:
		if (out->have_if) {
			out->source = "tap";
			out->kernel_drops = now.tx_dropped - ib->tx_dropped;
			out->kernel_packets = now.tx_packets - ib->tx_packets +
					      out->kernel_drops;
		}
		break;
	case KIND_PCAP:
		out->source = "pcap_stats";
		out->kernel_drops = ps->imissed;
		out->kernel_packets = ps->ipackets + ps->imissed;
		break;
	default:
		break;
	}
	mcfan_ctl_state_unlock(app);
	return 0;
}

int
mcfan_kernel_read(const struct mcfan_app *app, uint16_t port, const struct rte_eth_stats *ps,
		  struct mcfan_kernel_view *out)
{
	return kernel_read(app, port, ps, out, true, false);
}

int
mcfan_kernel_read_since(const struct mcfan_app *app, uint16_t port,
			const struct rte_eth_stats *ps, struct mcfan_kernel_view *out,
			bool since_start)
{
	return kernel_read(app, port, ps, out, true, since_start);
}

int
mcfan_kernel_read_drops(const struct mcfan_app *app, uint16_t port,
			const struct rte_eth_stats *ps, struct mcfan_kernel_view *out)
{
	return kernel_read(app, port, ps, out, false, false);
}

const char *
mcfan_kernel_caveat(const struct mcfan_kernel_view *kv, const struct rte_eth_stats *ps)
{
	if (kv->kernel_packets == ps->ipackets + kv->kernel_drops)
		return "";
	if (kv->if_state != NULL && strcmp(kv->if_state, "gone") == 0)
		return "  (the interface is gone: frames in the kernel's ring when it went, "
		       "received after it; frames queued at the start or at a clear stats)";
	return "  (frames queued at the start or at a clear stats, received after it; "
	       "frames in the kernel's ring not received yet; "
	       "or arriving between the quit drain and the port's stop)";
}

const char *
mcfan_kernel_balance_text(const struct mcfan_kernel_view *kv, const struct rte_eth_stats *ps,
			  char *buf, size_t len)
{
	uint64_t sum = ps->ipackets + kv->kernel_drops;

	if (kv->kernel_packets == sum)
		snprintf(buf, len, "reached the socket %" PRIu64 " = ipackets %" PRIu64
			 " + kernel_drops %" PRIu64, kv->kernel_packets, ps->ipackets,
			 kv->kernel_drops);
	else
		snprintf(buf, len, "reached the socket %" PRIu64 "; ipackets %" PRIu64
			 " + kernel_drops %" PRIu64 " = %" PRIu64 ", %" PRIu64 " %s than reached "
			 "the socket%s", kv->kernel_packets, ps->ipackets, kv->kernel_drops, sum,
			 sum > kv->kernel_packets ? sum - kv->kernel_packets :
			 kv->kernel_packets - sum, sum > kv->kernel_packets ? "more" : "fewer",
			 mcfan_kernel_caveat(kv, ps));
	return buf;
}

const char *
mcfan_kernel_reasm_text(const struct mcfan_kernel_view *kv, char *buf, size_t len)
{
	buf[0] = '\0';
	if (kv->have_reasm && (kv->reasm_fragments != 0 || kv->reasm_failed != 0))
		snprintf(buf, len, "IPv4 fragments reassembled by the kernel before the socket "
			 "(the network namespace's counts): %" PRIu64 " fragments in, %" PRIu64
			 " datagrams reassembled, %" PRIu64 " reassemblies failed (their fragments "
			 "never reach mcfan)", kv->reasm_fragments, kv->reasm_datagrams,
			 kv->reasm_failed);
	return buf;
}

void
mcfan_kernel_clear(struct mcfan_app *app)
{
	struct if_counters now;
	struct kernel_port *kp;
	uint16_t port;

	if (app->kernel == NULL)
		return;
	mcfan_ctl_state_lock(app);
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		kp = &app->kernel->ports[port];
		port_poll(kp);
		memcpy(kp->base_packets, kp->packets, sizeof(kp->packets));
		memcpy(kp->base_drops, kp->drops, sizeof(kp->drops));
		if (kp->have_if) {
			if (kp->final)
				kp->if_base = kp->if_final;
			else if (if_follow(kp, port, &now))
				kp->if_base = now;
		}
	}
	if (app->kernel->have_reasm) {
		if (app->kernel->reasm_final_read)
			app->kernel->reasm_base = app->kernel->reasm_final;
		else
			reasm_read(&app->kernel->reasm_base);
	}
	mcfan_ctl_state_unlock(app);
}

void
mcfan_kernel_free(struct mcfan_app *app)
{
	struct kernel_port *kp;
	unsigned int q;
	uint16_t port;

	if (app->kernel == NULL)
		return;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		kp = &app->kernel->ports[port];
		for (q = 0; q < kp->n_fds; q++)
			if (kp->fds[q] >= 0 && !kp->final)
				close(kp->fds[q]);
	}
	free(app->kernel);
	app->kernel = NULL;
}
