/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Worker engine "tx": send every copy out of one port (docs/delivery.md).
 *
 *   --worker-engine tx:PORT[,dst-mac=XX:XX:XX:XX:XX:XX][,dst-ip=A.B.C.D][,dst-port=N]
 *                      [,udp-csum=auto|update|full]
 *
 * PORT is a port id (0, 1 ...) or an ethdev name (net_tap0, net_memif0). Without a rewrite
 * the copy goes out unchanged: the worker's mbuf reference (replicate mode shares one mbuf
 * among workers by reference count) passes to the PMD, no byte is copied. With a rewrite the
 * copy goes out as a small header mbuf (Ethernet, up to two VLAN tags, IPv4 or IPv6, UDP:
 * copied and rewritten) chained to an indirect clone of the shared frame that skips those
 * headers, DPDK's examples/ipv4_multicast technique, so that the shared frame is never
 * written. The IPv4 header checksum is recomputed (RFC 791); the UDP checksum is updated
 * incrementally for the changed words (RFC 1624) and a checksum of 0 stays 0 (IPv4: none,
 * RFC 768); dst-ip rewrites IPv4 frames only. A partial UDP checksum, such as a Linux sender
 * writes into a veth (CHECKSUM_PARTIAL: only the pseudo-header's sum), which a receiver
 * after the port would drop as bad, is computed anew over the pseudo-header, the UDP header
 * and the payload (RFC 768; RFC 8200 8.1 for IPv6), with or without a rewrite
 * (udp-csum=auto, the default); udp-csum=update never computes one anew, udp-csum=full
 * always does. A multicast dst-ip without dst-mac also
 * rewrites the destination MAC to the group's (RFC 1112 6.4); a unicast one needs dst-mac.
 *
 * Each worker lcore of the engine has its own TX queue (1.., queue 0 is the control lcore's:
 * control/ports.c). Every copy ends under exactly one counter: tx_sent (the PMD took it) or a
 * drop: tx_full (tx_burst refused it: the TX ring was full or the port down), tx_nohdr (no
 * header or clone mbuf), tx_unrewritable (a rewrite asked for and the frame is not
 * Ethernet/IPv4|IPv6/UDP with its headers in the first segment, or dst-ip on IPv6, or where
 * the UDP checksum is computed anew a datagram whose UDP length disagrees with its IP
 * header's). Every
 * refused mbuf is freed at once.
 */

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_bus.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_eal.h>
#include <rte_seqcount.h>
#include <rte_udp.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "datapath/engine.h"
#include "datapath/engine_tx.h"
#include "log.h"

/* Header mbufs and clones per tx lcore: the TX ring can hold MCFAN_TX_DESC copies (each one
 * header and one clone), plus a burst in hand, plus the per-lcore cache. */
#define TX_POOL_MBUFS (2 * MCFAN_TX_DESC + MCFAN_MAX_BURST + TX_POOL_CACHE)
#define TX_POOL_CACHE 64
/* Room of a header mbuf: Ethernet + 2 VLAN tags + IPv6 (40; IPv4 up to 60) + UDP. */
#define TX_HDR_ROOM 128
#define TX_PORT_TEXT 64
#define VLAN_TAGS_MAX 2

/* udp-csum=: what becomes of a copy's UDP checksum. */
enum tx_csum {
	TX_CSUM_AUTO = 0, /* a partial one (the pseudo-header's sum) computed, others updated */
	TX_CSUM_UPDATE,   /* updated for the rewritten words (RFC 1624) */
	TX_CSUM_FULL,     /* computed anew (RFC 768) */
};

/* What ARGS asked for. */
struct tx_args {
	char port[TX_PORT_TEXT];
	bool rw_mac, rw_ip, rw_port;
	enum tx_csum csum;      /* udp-csum= */
	struct rte_ether_addr mac;
	rte_be32_t ip;
	rte_be16_t udp_port;
};

/* Counters of one tx lcore. Single writer: that lcore, in one rte_seqcount write section
 * a burst; readers (any control thread): tx_counters(), retrying while it changes. */
struct tx_stats {
	rte_seqcount_t seq;
	uint32_t pad;
	uint64_t sent;          /* copies the PMD took */
	uint64_t full;          /* copies tx_burst refused */
	uint64_t nohdr;         /* copies without a header or clone mbuf */
	uint64_t unrewritable;  /* copies a rewrite could not be applied to */
	uint64_t bytes;         /* pkt_len of the copies sent, bytes */
};

/* Per lcore: set by configure (main lcore, before launch), then the lcore's own. */
struct tx_priv {
	struct tx_stats st;
	struct tx_args a;
	uint16_t port;
	uint16_t queue;
	struct rte_mempool *hdr_pool;   /* header mbufs, TX_HDR_ROOM bytes */
	struct rte_mempool *clone_pool; /* indirect mbufs (no data room) */
	/* udp-csum=auto: copies received on these ports are looked at: every port but a PCI
	 * one (a NIC: checksums on a wire are complete; a partial one exists only inside a
	 * host, from a kernel sender through a vdev) */
	bool look[RTE_MAX_ETHPORTS];
} __rte_cache_aligned;

/* RFC 1112 section 6.4: the Ethernet group address of an IPv4 host group is 01:00:5e and
 * the low 23 bits of the group. */
#define IPV4_MCAST_MAC_MASK 0x007fffffu
#define IPV4_ANY 0x00000000u                /* 0.0.0.0: "this host" (RFC 1122 3.2.1.3) */
#define IPV4_LIMITED_BROADCAST 0xffffffffu  /* RFC 919, RFC 1122 3.2.1.3 */

/* The destination MAC of IPv4 group ip (network order), RFC 1112 section 6.4. */
static void
ipv4_group_mac(rte_be32_t ip, struct rte_ether_addr *mac)
{
	uint32_t low = rte_be_to_cpu_32(ip) & IPV4_MCAST_MAC_MASK;

	mac->addr_bytes[0] = 0x01;
	mac->addr_bytes[1] = 0x00;
	mac->addr_bytes[2] = 0x5e;
	mac->addr_bytes[3] = (uint8_t)(low >> 16);
	mac->addr_bytes[4] = (uint8_t)(low >> 8);
	mac->addr_bytes[5] = (uint8_t)low;
}

/*
 * Parse ARGS into a; 0 or -EINVAL with err naming the token. A multicast dst-ip without
 * dst-mac rewrites the destination MAC to the group's (RFC 1112 6.4); a unicast one needs
 * dst-mac (mcfan does no ARP); 0.0.0.0 and 255.255.255.255 are no destination.
 */
static int
tx_parse(const char *args, struct tx_args *a, char *err, size_t len)
{
	char buf[MCFAN_ENGINE_ARGS_MAX + 1], *tok[MCFAN_ENGINE_ARGS_TOKENS], *val, ipt[16];
	struct in_addr in;
	uint64_t v;
	int n, i;

	memset(a, 0, sizeof(*a));
	if (args[0] == '\0') {
		snprintf(err, len, "no output port: give tx:PORT (a port id or name, e.g. "
			 "tx:net_tap0 or tx:1)");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", args);
	n = mcfan_engine_args_split(buf, tok, RTE_DIM(tok), err, len);
	if (n < 0)
		return n;
	if (strchr(tok[0], '=') != NULL || strlen(tok[0]) >= sizeof(a->port)) {
		snprintf(err, len, "'%s' is not an output port: the first argument is "
			 "PORT (a port id or an ethdev name)", tok[0]);
		return -EINVAL;
	}
	snprintf(a->port, sizeof(a->port), "%s", tok[0]);
	for (i = 1; i < n; i++) {
		val = strchr(tok[i], '=');
		if (val == NULL) {
			snprintf(err, len, "'%s' is not KEY=VALUE (keys: dst-mac, dst-ip, dst-port, "
				 "udp-csum)", tok[i]);
			return -EINVAL;
		}
		*val++ = '\0';
		if (strcmp(tok[i], "dst-mac") == 0) {
			if (rte_ether_unformat_addr(val, &a->mac) != 0) {
				snprintf(err, len, "dst-mac '%s' is not a MAC address "
					 "(XX:XX:XX:XX:XX:XX)", val);
				return -EINVAL;
			}
			if (rte_is_zero_ether_addr(&a->mac)) {
				snprintf(err, len, "dst-mac '%s' is not a destination (all zero, "
					 "as dst-ip 0.0.0.0 is none)", val);
				return -EINVAL;
			}
			a->rw_mac = true;
		} else if (strcmp(tok[i], "dst-ip") == 0) {
			if (inet_pton(AF_INET, val, &in) != 1) {
				snprintf(err, len, "dst-ip '%s' is not an IPv4 address", val);
				return -EINVAL;
			}
			if (in.s_addr == RTE_BE32(IPV4_ANY) ||
			    in.s_addr == RTE_BE32(IPV4_LIMITED_BROADCAST)) {
				snprintf(err, len, "dst-ip '%s' is not a destination (neither "
					 "0.0.0.0 nor 255.255.255.255)", val);
				return -EINVAL;
			}
			a->ip = in.s_addr;
			a->rw_ip = true;
		} else if (strcmp(tok[i], "dst-port") == 0) {
			if (mcfan_parse_u64(val, 1, UINT16_MAX, &v) < 0) {
				snprintf(err, len, "dst-port '%s' is not a UDP port (1..65535)", val);
				return -EINVAL;
			}
			a->udp_port = rte_cpu_to_be_16((uint16_t)v);
			a->rw_port = true;
		} else if (strcmp(tok[i], "udp-csum") == 0) {
			if (strcmp(val, "auto") == 0) {
				a->csum = TX_CSUM_AUTO;
			} else if (strcmp(val, "update") == 0) {
				a->csum = TX_CSUM_UPDATE;
			} else if (strcmp(val, "full") == 0) {
				a->csum = TX_CSUM_FULL;
			} else {
				snprintf(err, len, "udp-csum '%s' is not auto (the default: a partial "
					 "checksum computed, others updated), update (updated for the "
					 "rewritten words) or full (computed anew over the datagram)",
					 val);
				return -EINVAL;
			}
		} else {
			snprintf(err, len, "'%s' is not a tx argument (dst-mac, dst-ip, dst-port, "
				 "udp-csum)", tok[i]);
			return -EINVAL;
		}
	}
	if (a->rw_ip && !a->rw_mac) {
		/* 224.0.0.0/4 (RFC 5771); not DPDK's RTE_IS_IPV4_MCAST(), whose RTE_IPV4()
		 * shifts 224 into an int's sign bit (UndefinedBehaviorSanitizer) */
		if ((rte_be_to_cpu_32(a->ip) >> 28) != 0xeu) {
			inet_ntop(AF_INET, &a->ip, ipt, sizeof(ipt));
			snprintf(err, len, "dst-ip '%s' is unicast: give dst-mac= too (the MAC "
				 "of the host or next hop; mcfan does no ARP)", ipt);
			return -EINVAL;
		}
		ipv4_group_mac(a->ip, &a->mac);
		a->rw_mac = true;
	}
	return 0;
}

/* Does a copy go out as a header mbuf chained to a clone (a rewrite or udp-csum=full)? */
static inline bool
tx_header_mbuf(const struct tx_args *a)
{
	return a->rw_mac || a->rw_ip || a->rw_port || a->csum == TX_CSUM_FULL;
}

static int
tx_args_check(const char *args, char *err, size_t len)
{
	struct tx_args a;

	return tx_parse(args, &a, err, len);
}

/* The port of PORT: an id of a probed port or an ethdev name; -ENODEV. */
static int
tx_port_find(const char *text, uint16_t *port)
{
	uint64_t v;

	if (mcfan_parse_u64(text, 0, RTE_MAX_ETHPORTS - 1, &v) == 0) {
		if (!rte_eth_dev_is_valid_port((uint16_t)v))
			return -ENODEV;
		*port = (uint16_t)v;
		return 0;
	}
	return rte_eth_dev_get_port_by_name(text, port) == 0 ? 0 : -ENODEV;
}

/* Will mcfan poll port? A tx output's port is output-only (not polled) unless --rx-ports
 * names it (control/ports.c mcfan_ports_roles(), which runs later at start: every tx
 * output's port is named at start, so this is its role, before and after). */
static bool
tx_port_polled(const struct mcfan_app *app, uint16_t port)
{
	return app->cfg.rx_ports_set && mcfan_bits_test(app->cfg.rx_ports, port);
}

/* The port of a (its PORT a probed port's id or name) and, unless a rewrites dst-ip or
 * dst-port, no net_ring port that mcfan polls (its TX feeds its own RX: every copy would
 * come back); 0, or -ENODEV / -EINVAL with err naming the token. */
static int
tx_port_of(const struct mcfan_app *app, const struct tx_args *a, uint16_t *port, char *err,
	   size_t len)
{
	uint16_t n = rte_eth_dev_count_avail();

	if (tx_port_find(a->port, port) < 0) {
		if (n == 0)
			/* not "a port id (0..0)": there is no port 0 to give */
			snprintf(err, len, "'%s' is not a probed port: no port was probed: "
				 "give a device with --vdev (e.g. net_tap0) or -a PCI_ADDRESS",
				 a->port);
		else
			snprintf(err, len, "'%s' is not a probed port: give a port id (0..%u) "
				 "or an ethdev name of a --vdev/-a device", a->port, n - 1u);
		return -ENODEV;
	}
	if (!a->rw_ip && !a->rw_port && mcfan_port_driver_is(*port, "net_ring") &&
	    tx_port_polled(app, *port)) {
		snprintf(err, len, "port %u is net_ring, whose TX feeds its own RX, which mcfan "
			 "polls (--rx-ports names it): every copy would come back as a new frame of its group and be "
			 "sent again, without end; send on another port, or rewrite dst-ip or "
			 "dst-port to a group mcfan has not joined", *port);
		return -EINVAL;
	}
	return 0;
}

/* ARGS a and b (both accepted) that send the same copies out of the same probed port: the
 * port given once by id and once by name (tx:1, tx:net_tap0), a number written otherwise
 * (dst-port=05001), udp-csum=auto given or not. */
static bool
tx_args_same_probed(const char *a, const char *b, char *what, size_t len)
{
	struct tx_args x, y;
	uint16_t px, py;
	char err[256], name[RTE_ETH_NAME_MAX_LEN];

	if (tx_parse(a, &x, err, sizeof(err)) < 0 || tx_parse(b, &y, err, sizeof(err)) < 0 ||
	    tx_port_find(x.port, &px) < 0 || tx_port_find(y.port, &py) < 0 || px != py ||
	    x.csum != y.csum || x.rw_mac != y.rw_mac || x.rw_ip != y.rw_ip ||
	    x.rw_port != y.rw_port ||
	    (x.rw_mac && !rte_is_same_ether_addr(&x.mac, &y.mac)) ||
	    (x.rw_ip && x.ip != y.ip) || (x.rw_port && x.udp_port != y.udp_port))
		return false;
	if (rte_eth_dev_get_name_by_port(px, name) != 0)
		snprintf(name, sizeof(name), "?");
	snprintf(what, len, "port %u (%s) with the same destination and udp-csum", px, name);
	return true;
}

/* dst-ip rewrites IPv4 frames only: an instance with it hands on no copy of an IPv6 group
 * (every one would be tx_unrewritable) */
static int
tx_args_group_check(const char *args, const struct mcfan_flow_key *key, char *err, size_t len)
{
	char g[MCFAN_GROUP_STR_MAX], ip[INET_ADDRSTRLEN];
	struct tx_args a;

	if (tx_parse(args, &a, err, len) < 0 || !a.rw_ip || key->family == MCFAN_FAMILY_IPV4)
		return 0;
	mcfan_group_format(key, g, sizeof(g));
	if (inet_ntop(AF_INET, &a.ip, ip, sizeof(ip)) == NULL)
		snprintf(ip, sizeof(ip), "?");
	snprintf(err, len, "dst-ip=%s rewrites IPv4 frames only, and group %s is IPv6: every "
		 "copy of it would be dropped as tx_unrewritable; give IPv6 groups an output "
		 "without dst-ip (dst-mac= and dst-port= rewrite both families)", ip, g);
	return -EAFNOSUPPORT;
}

static int
tx_args_check_probed(const struct mcfan_app *app, const char *args, char *err, size_t len)
{
	struct tx_args a;
	uint16_t port;
	int ret = tx_parse(args, &a, err, len);

	return ret < 0 ? ret : tx_port_of(app, &a, &port, err, len);
}

/* Is port a PCI device (a NIC), not a virtual one? */
static bool
port_is_pci(uint16_t port)
{
	struct rte_eth_dev_info info;
	const struct rte_bus *bus;

	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL)
		return false;
	bus = rte_dev_bus(info.device);
	return bus != NULL && strcmp(rte_bus_name(bus), "pci") == 0;
}

/* The lowest instance that is a tx output (engine_tx); n_inst when none. */
static unsigned int
tx_first_inst(const struct mcfan_app *app)
{
	unsigned int k;

	for (k = 0; k < app->n_inst; k++)
		if (strcmp(app->inst_engine[k]->name, "tx") == 0)
			break;
	return k;
}

int
mcfan_tx_replicate_warning(const struct mcfan_app *app, enum mcfan_fanout fanout,
			   const char *how, char *msg, size_t len)
{
	if (len > 0)
		msg[0] = '\0';
	/* replicate hands each worker lcore a reference to every frame, and every worker's
	 * tx output sends its own: N times the frame on the port */
	if (fanout != MCFAN_FANOUT_REPLICATE || app->n_workers < 2 ||
	    tx_first_inst(app) >= app->n_inst)
		return 0;
	snprintf(msg, len, "tx: %s replicate gives every frame to each of the %u worker lcores, "
		 "and each sends its copy: every frame of a group on a tx output leaves its port "
		 "%u times; give %s partition to send each frame once (docs/delivery.md)", how,
		 app->n_workers, app->n_workers, how);
	return 1;
}

/* The port of instance k's ARGS (a tx output); -EINVAL or -ENODEV (configure says which). */
static int
tx_inst_port(const struct mcfan_app *app, unsigned int k, uint16_t *port)
{
	char err[256];
	struct tx_args a;

	if (tx_parse(app->cfg.engine_inst[k].args, &a, err, sizeof(err)) < 0)
		return -EINVAL;
	return tx_port_find(a.port, port);
}

/* Does a copy sent to dst (udp_port 0: the port of the frame, any) match joined group j? */
static bool
loop_dst_matches(const struct mcfan_flow_key *dst, const struct mcfan_flow_key *j)
{
	size_t alen = dst->family == MCFAN_FAMILY_IPV4 ? 4 : 16;

	return dst->family == j->family && memcmp(dst->addr, j->addr, alen) == 0 &&
	       (dst->udp_port == 0 || j->udp_port == 0 || dst->udp_port == j->udp_port);
}

int
mcfan_tx_loop_check(const struct mcfan_app *app, const struct mcfan_flow_key *keys,
		    unsigned int n, const char *what, char *msg, size_t len)
{
	char err[256], gt[MCFAN_GROUP_STR_MAX], dt[MCFAN_GROUP_STR_MAX], jt[MCFAN_GROUP_STR_MAX];
	struct mcfan_flow_key dst;
	struct tx_args a;
	unsigned int k, g, j;
	uint16_t port;

	msg[0] = '\0';
	for (k = 0; k < app->n_inst; k++) {
		if (strcmp(app->inst_engine[k]->name, "tx") != 0 ||
		    tx_parse(app->cfg.engine_inst[k].args, &a, err, sizeof(err)) < 0 ||
		    tx_port_find(a.port, &port) < 0 || !mcfan_port_driver_is(port, "net_ring") ||
		    !tx_port_polled(app, port))
			continue;
		for (g = 0; g < n; g++) {
			/* dst-ip rewrites IPv4 frames only: an IPv6 group's copies are dropped */
			if (a.rw_ip && keys[g].family != MCFAN_FAMILY_IPV4)
				continue;
			dst = keys[g];
			if (a.rw_ip) {
				memset(dst.addr, 0, sizeof(dst.addr));
				memcpy(dst.addr, &a.ip, sizeof(a.ip));
			}
			if (a.rw_port)
				dst.udp_port = rte_be_to_cpu_16(a.udp_port);
			for (j = 0; j < n; j++)
				if (loop_dst_matches(&dst, &keys[j]))
					break;
			if (j == n)
				continue;
			mcfan_group_format(&keys[g], gt, sizeof(gt));
			mcfan_group_format(&dst, dt, sizeof(dt));
			mcfan_group_format(&keys[j], jt, sizeof(jt));
			return mcfan_err_set(msg, len, -ELOOP, "%s: %s: tx:%s: port %u is net_ring, "
					     "whose TX feeds its own RX, which mcfan polls: copies "
					     "of group %s would go to %s%s, which group %s matches, "
					     "come back as new frames of it and be sent again, "
					     "without end; %s", what, MCFAN_ENGINE_OPTION(k),
					     app->cfg.engine_inst[k].args, port, gt, dt,
					     dst.udp_port == 0 ? " (any port)" : "", jt,
					     strcmp(what, "join") == 0 ?
					     "join no group a tx output on a net_ring port sends to" :
					     "send on another port, or rewrite dst-ip or dst-port to a "
					     "group mcfan has not joined");
		}
	}
	return 0;
}

/*
 * Refuse, before any tx output is set up, a port whose driver has too few TX queues for all
 * the worker lcores that would send on it: each worker lcore takes one TX queue per tx output
 * on the port, after queue 0 (the control lcore's). The message counts every worker lcore
 * and output and offers only the advice that applies. 0 or -EINVAL (one line on stderr).
 * An output with a bad ARGS or port is skipped: its own configure names it.
 */
static int
tx_queues_check(const struct mcfan_app *app)
{
	struct rte_eth_dev_info info;
	unsigned int k, j, outputs, need, fit;
	uint16_t port, other;
	char advice[192];
	bool seen;
	int ret;

	for (k = 0; k < app->n_inst; k++) {
		if (strcmp(app->inst_engine[k]->name, "tx") != 0 || tx_inst_port(app, k, &port) < 0)
			continue;
		outputs = 0;
		seen = false;
		for (j = 0; j < app->n_inst; j++) {
			if (strcmp(app->inst_engine[j]->name, "tx") != 0 ||
			    tx_inst_port(app, j, &other) < 0 || other != port)
				continue;
			seen |= j < k; /* the port was checked with instance j */
			outputs++;
		}
		if (seen)
			continue;
		ret = rte_eth_dev_info_get(port, &info);
		if (ret != 0) {
			fprintf(stderr, "mcfan: %s: tx: port %u: cannot get device info: %s\n",
				MCFAN_ENGINE_OPTION(k), port, rte_strerror(-ret));
			return ret;
		}
		need = 1u + app->n_workers * outputs;
		if (info.max_tx_queues < need) {
			fit = info.max_tx_queues > 1u ? (info.max_tx_queues - 1u) / outputs : 0u;
			if (info.max_tx_queues <= 1u)
				snprintf(advice, sizeof(advice), "no worker lcore can send on it: "
					 "send on a port with at least %u TX queues", need);
			else if (fit == 0)
				snprintf(advice, sizeof(advice), "use at most %u tx output%s on this "
					 "port, or a port with at least %u TX queues",
					 info.max_tx_queues - 1u, info.max_tx_queues == 2u ? "" : "s",
					 need);
			else
				snprintf(advice, sizeof(advice), "use at most %u worker lcore%s "
					 "(--worker-lcores)%s, or a port with at least %u TX queues",
					 fit, fit == 1u ? "" : "s",
					 outputs > 1 ? " or fewer tx outputs on this port" : "", need);
			fprintf(stderr, "mcfan: port %u (%s): %u worker lcore%s would send on it "
				"(tx engine: %u TX queues, queue 0 for the control lcore and one per "
				"worker lcore%s) but the driver has at most %u TX queue%s; %s\n",
				port, info.driver_name, app->n_workers,
				app->n_workers == 1 ? "" : "s", need,
				outputs > 1 ? " and tx output on the port" : "", info.max_tx_queues,
				info.max_tx_queues == 1 ? "" : "s", advice);
			return -EINVAL;
		}
		/* net_tap of DPDK 22.11 passes one file descriptor per RX and per TX queue in
		 * one multi-process message of at most RTE_MP_MAX_FD_NUM (8) at start and
		 * overruns it above 4 queue pairs (the process dies: "stack smashing detected") */
		if (strcmp(info.driver_name, "net_tap") == 0 &&
		    2u * need > RTE_MP_MAX_FD_NUM) {
			fprintf(stderr, "mcfan: port %u (net_tap): %u tx outputs of worker lcores "
				"send on it, but net_tap takes at most %u queue pairs (one is the "
				"control lcore's: its start passes %u file descriptors at most); use "
				"fewer tx workers or outputs on this port, or another tap port\n",
				port, need - 1u, RTE_MP_MAX_FD_NUM / 2, RTE_MP_MAX_FD_NUM);
			return -EINVAL;
		}
	}
	return 0;
}

static int
tx_configure(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int inst,
	     const char *args, void **priv)
{
	char err[384], loop[MCFAN_TX_LOOP_MSG_MAX], name[RTE_MEMPOOL_NAMESIZE], warn[320];
	int socket = (int)rte_lcore_to_socket_id(lc->lcore_id);
	struct tx_priv *p;
	struct tx_args a;
	unsigned int i;
	uint16_t port;
	int ret;

	if (tx_parse(args, &a, err, sizeof(err)) < 0) {
		fprintf(stderr, "mcfan: %s: tx: %s\n", MCFAN_ENGINE_OPTION(inst), err);
		return -EINVAL;
	}
	/* a net_ring vdev's (--vdev net_ringN) TX queues are its RX queues, which mcfan polls
	 * when the port is an RX port (--rx-ports names it): unchanged copies would come back
	 * as frames of their group, be sent again, and so on. An output-only net_ring port is
	 * not polled: its copies stay in the ring (tx_full once it is full) */
	ret = tx_port_of(app, &a, &port, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "mcfan: %s: tx%s%s: %s\n", MCFAN_ENGINE_OPTION(inst),
			ret == -ENODEV ? "" : ":", ret == -ENODEV ? "" : args, err);
		return -EINVAL;
	}
	/* every tx output's TX queues on every port are checked at the first configure of a tx
	 * output, before any is set up and before any port starts (the ports are configured
	 * after all engines); so are the rewrites of every tx output on a net_ring port, with
	 * the groups of --groups */
	if (lc->lcore_id == app->worker_lcore_ids[0] && tx_first_inst(app) == inst) {
		ret = tx_queues_check(app);
		if (ret < 0)
			return ret;
		ret = mcfan_tx_loop_check(app, app->cfg.groups, app->cfg.n_groups, "mcfan", loop,
					  sizeof(loop));
		if (ret < 0) {
			fprintf(stderr, "%s\n", loop);
			return -EINVAL;
		}
		if (mcfan_tx_replicate_warning(app, app->cfg.fanout, "--fanout", warn,
					       sizeof(warn)) > 0)
			MCFAN_LOG(WARNING, "%s\n", warn);
	}
	p = rte_zmalloc_socket("mcfan_tx", sizeof(*p), RTE_CACHE_LINE_SIZE, socket);
	if (p == NULL)
		return -ENOMEM;
	p->a = a;
	p->port = port;
	for (i = 0; a.csum == TX_CSUM_AUTO && i < RTE_MAX_ETHPORTS; i++)
		p->look[i] = rte_eth_dev_is_valid_port((uint16_t)i) && !port_is_pci((uint16_t)i);
	if (tx_header_mbuf(&a) || a.csum == TX_CSUM_AUTO) { /* auto: for partial checksums */
		snprintf(name, sizeof(name), "mcfan_txh%u_%u", lc->lcore_id, inst);
		p->hdr_pool = rte_pktmbuf_pool_create(name, TX_POOL_MBUFS, TX_POOL_CACHE, 0,
						      RTE_PKTMBUF_HEADROOM + TX_HDR_ROOM, socket);
		snprintf(name, sizeof(name), "mcfan_txc%u_%u", lc->lcore_id, inst);
		p->clone_pool = rte_pktmbuf_pool_create(name, TX_POOL_MBUFS, TX_POOL_CACHE, 0, 0,
							socket);
		if (p->hdr_pool == NULL || p->clone_pool == NULL) {
			fprintf(stderr, "mcfan: tx engine on lcore %u: cannot create its header "
				"mbuf pools: %s\n", lc->lcore_id, rte_strerror(rte_errno));
			rte_mempool_free(p->hdr_pool);
			rte_mempool_free(p->clone_pool);
			rte_free(p);
			return -ENOMEM;
		}
	}
	/* this lcore's TX queue: the next after the control lcore's queue 0 */
	app->ports[port].nb_txq_workers++;
	p->queue = app->ports[port].nb_txq_workers;
	*priv = p;
	return 0;
}

static void
tx_release(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv)
{
	struct tx_priv *p = priv;

	RTE_SET_USED(app);
	RTE_SET_USED(lc);
	if (p == NULL)
		return;
	rte_mempool_free(p->hdr_pool);
	rte_mempool_free(p->clone_pool);
	rte_free(p);
}

/* RFC 1624 eqn. 3: checksum hc after 16-bit word m became m2 (all in network order). */
static inline uint16_t
csum_update16(uint16_t hc, uint16_t m, uint16_t m2)
{
	uint32_t s = (uint32_t)(uint16_t)~hc + (uint16_t)~m + m2;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/*
 * udp-csum=full: the UDP checksum of h (headers at l3, UDP at l4) computed anew over the
 * pseudo-header, the UDP header and the payload in every segment (RFC 768; IPv6: RFC 8200
 * 8.1, where 0 is sent as 0xffff too). False when the datagram's UDP length disagrees with
 * its IP header's or runs past the frame: there is no datagram to sum.
 */
static bool
udp_csum_full(struct rte_mbuf *h, uint16_t l3, uint16_t l4, bool v4)
{
	uint8_t *d = rte_pktmbuf_mtod(h, uint8_t *);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + l4);
	uint16_t ulen = rte_be_to_cpu_16(udp->dgram_len), iplen, sum;
	uint32_t c;

	if (v4)
		iplen = (uint16_t)(rte_be_to_cpu_16(((struct rte_ipv4_hdr *)(d + l3))->total_length) -
				   (l4 - l3));
	else
		iplen = rte_be_to_cpu_16(((struct rte_ipv6_hdr *)(d + l3))->payload_len);
	if (ulen < sizeof(*udp) || ulen != iplen || (uint32_t)l4 + ulen > h->pkt_len)
		return false;
	udp->dgram_cksum = 0;
	if (rte_raw_cksum_mbuf(h, l4, ulen, &sum) != 0)
		return false;
	c = sum + (v4 ? rte_ipv4_phdr_cksum((struct rte_ipv4_hdr *)(d + l3), 0) :
			rte_ipv6_phdr_cksum((struct rte_ipv6_hdr *)(d + l3), 0));
	c = (c & 0xffff) + (c >> 16);
	c = (c & 0xffff) + (c >> 16);
	sum = (uint16_t)~c;
	udp->dgram_cksum = sum == 0 ? 0xffff : sum;
	return true;
}

/* Where m's headers are: Ethernet (up to VLAN_TAGS_MAX tags), IPv4 or IPv6, UDP, all in the
 * first segment. */
struct tx_hdrs {
	uint16_t l3;  /* IP header's offset */
	uint16_t l4;  /* UDP header's offset */
	bool v4;
};

/* Parse m's headers into h; false when m is not Ethernet/IPv4|IPv6/UDP with its headers (at
 * most TX_HDR_ROOM bytes) in the first segment. */
static inline bool
tx_headers(const struct rte_mbuf *m, struct tx_hdrs *h)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t off = RTE_ETHER_HDR_LEN, et;
	unsigned int tags = 0;
	uint8_t proto;

	if (m->data_len < RTE_ETHER_HDR_LEN)
		return false;
	et = rte_be_to_cpu_16(((const struct rte_ether_hdr *)d)->ether_type);
	while ((et == RTE_ETHER_TYPE_VLAN || et == RTE_ETHER_TYPE_QINQ) && tags < VLAN_TAGS_MAX) {
		if (m->data_len < off + sizeof(struct rte_vlan_hdr))
			return false;
		et = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(d + off))->eth_proto);
		off += sizeof(struct rte_vlan_hdr);
		tags++;
	}
	h->l3 = off;
	if (et == RTE_ETHER_TYPE_IPV4) {
		if (m->data_len < h->l3 + sizeof(struct rte_ipv4_hdr))
			return false;
		off += (uint16_t)(((d[h->l3] & 0x0f)) * 4);
		proto = ((const struct rte_ipv4_hdr *)(d + h->l3))->next_proto_id;
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		off += sizeof(struct rte_ipv6_hdr);
		if (m->data_len < off)
			return false;
		proto = ((const struct rte_ipv6_hdr *)(d + h->l3))->proto;
	} else {
		return false;
	}
	h->l4 = off;
	h->v4 = et == RTE_ETHER_TYPE_IPV4;
	return proto == IPPROTO_UDP && m->data_len >= off + sizeof(struct rte_udp_hdr) &&
	       off + sizeof(struct rte_udp_hdr) <= TX_HDR_ROOM;
}

/* Does the UDP checksum at d + h->l4 need computing (udp-csum=auto)? A partial one: the
 * pseudo-header's folded sum, not complemented, which a Linux sender leaves for the hardware
 * to complete (CHECKSUM_PARTIAL) and a veth passes on as it is. A complete checksum is equal
 * to it once in 65,536 frames; it is then computed anew, to the same value. And 0 over IPv6,
 * which RFC 8200 section 8.1 forbids (a receiver discards the datagram); over IPv4 0 is "no
 * checksum" (RFC 768) and stays. */
static inline bool
udp_csum_partial(const uint8_t *d, const struct tx_hdrs *h)
{
	uint16_t c = ((const struct rte_udp_hdr *)(d + h->l4))->dgram_cksum;

	if (c == 0)
		return !h->v4;
	return c == (h->v4 ? rte_ipv4_phdr_cksum((const struct rte_ipv4_hdr *)(d + h->l3), 0) :
			     rte_ipv6_phdr_cksum((const struct rte_ipv6_hdr *)(d + h->l3), 0));
}

/*
 * The copy m with its headers rewritten (and its UDP checksum computed anew where udp-csum
 * asks): a header mbuf chained to a clone of m past the UDP header; m's reference is given
 * up (the clone holds one). NULL if it cannot be done: m is then freed and *drop names the
 * counter.
 */
static struct rte_mbuf *
tx_rewrite(struct tx_priv *p, struct rte_mbuf *m, uint64_t **drop)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	struct rte_ipv4_hdr *ip4 = NULL;
	struct rte_udp_hdr *udp;
	struct rte_mbuf *h, *cl = NULL;
	uint16_t hlen, c, w_old[2], w_new[2];
	struct tx_hdrs hd_at;
	unsigned int i;
	uint8_t *hd;
	bool full;

	if (!tx_headers(m, &hd_at) || (!hd_at.v4 && p->a.rw_ip))
		goto bad;
	full = p->a.csum == TX_CSUM_FULL ||
	       (p->a.csum == TX_CSUM_AUTO && udp_csum_partial(d, &hd_at));
	hlen = (uint16_t)(hd_at.l4 + sizeof(struct rte_udp_hdr));
	h = rte_pktmbuf_alloc(p->hdr_pool);
	if (h == NULL)
		goto nohdr;
	if (m->pkt_len > hlen) {
		cl = rte_pktmbuf_clone(m, p->clone_pool);
		if (cl == NULL) {
			rte_pktmbuf_free(h);
			goto nohdr;
		}
		rte_pktmbuf_adj(cl, hlen); /* the clone's own offset: m is not touched */
	}
	hd = (uint8_t *)rte_pktmbuf_append(h, hlen);
	memcpy(hd, d, hlen);
	if (p->a.rw_mac)
		rte_ether_addr_copy(&p->a.mac, &((struct rte_ether_hdr *)hd)->dst_addr);
	udp = (struct rte_udp_hdr *)(hd + hd_at.l4);
	if (hd_at.v4)
		ip4 = (struct rte_ipv4_hdr *)(hd + hd_at.l3);
	if (p->a.rw_ip) {
		if (udp->dgram_cksum != 0 && !full) {
			memcpy(w_old, &ip4->dst_addr, sizeof(w_old));
			memcpy(w_new, &p->a.ip, sizeof(w_new));
			c = udp->dgram_cksum;
			for (i = 0; i < 2; i++)
				c = csum_update16(c, w_old[i], w_new[i]);
			udp->dgram_cksum = c == 0 ? 0xffff : c;
		}
		ip4->dst_addr = p->a.ip;
	}
	if (p->a.rw_port) {
		if (udp->dgram_cksum != 0 && !full) {
			c = csum_update16(udp->dgram_cksum, udp->dst_port, p->a.udp_port);
			udp->dgram_cksum = c == 0 ? 0xffff : c;
		}
		udp->dst_port = p->a.udp_port;
	}
	if (ip4 != NULL) {
		ip4->hdr_checksum = 0;
		ip4->hdr_checksum = rte_ipv4_cksum(ip4);
	}
	if (cl != NULL) {
		h->next = cl;
		h->nb_segs = (uint16_t)(1 + cl->nb_segs);
		h->pkt_len = hlen + cl->pkt_len;
	}
	if (full && !udp_csum_full(h, hd_at.l3, hd_at.l4, hd_at.v4)) {
		rte_pktmbuf_free(h); /* and the clone, chained to it */
		goto bad;
	}
	h->port = m->port;
	rte_pktmbuf_free(m); /* the worker's reference; the clone keeps the frame */
	return h;
bad:
	*drop = &p->st.unrewritable;
	rte_pktmbuf_free(m);
	return NULL;
nohdr:
	*drop = &p->st.nohdr;
	rte_pktmbuf_free(m);
	return NULL;
}

/* udp-csum=auto without a rewrite: does copy m need a header mbuf (a partial checksum)?
 * Only copies from a port that is not a NIC are looked at (p->look). */
static inline bool
tx_needs_csum(const struct tx_priv *p, const struct rte_mbuf *m)
{
	struct tx_hdrs h;

	if (m->port >= RTE_MAX_ETHPORTS || !p->look[m->port])
		return false; /* from a NIC: complete */
	return tx_headers(m, &h) && udp_csum_partial(rte_pktmbuf_mtod(m, const uint8_t *), &h);
}

static void
tx_deliver(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv, struct rte_mbuf **pkts,
	   uint16_t n)
{
	struct tx_priv *p = priv;
	bool rw = tx_header_mbuf(&p->a);
	struct rte_mbuf *out[MCFAN_MAX_BURST], **tx = pkts;
	uint64_t sent_bytes, *drop;
	unsigned int i, k = n;
	uint16_t sent;

	RTE_SET_USED(app);
	RTE_SET_USED(lc);
	rte_seqcount_write_begin(&p->st.seq);
	if (rw || p->a.csum == TX_CSUM_AUTO) {
		tx = out;
		for (i = 0, k = 0; i < n; i++) {
			if (!rw && !tx_needs_csum(p, pkts[i])) {
				out[k++] = pkts[i]; /* unchanged: the reference as it is */
				continue;
			}
			drop = NULL;
			out[k] = tx_rewrite(p, pkts[i], &drop);
			if (out[k] != NULL)
				k++;
			else
				(*drop)++;
		}
	}
	sent = k > 0 ? rte_eth_tx_burst(p->port, p->queue, tx, (uint16_t)k) : 0;
	for (i = 0, sent_bytes = 0; i < sent; i++)
		sent_bytes += tx[i]->pkt_len;
	if (sent < k)
		rte_pktmbuf_free_bulk(&tx[sent], k - sent);
	p->st.sent += sent;
	p->st.full += k - sent;
	p->st.bytes += sent_bytes;
	rte_seqcount_write_end(&p->st.seq);
}

static unsigned int
tx_counters(const struct mcfan_app *app, const struct mcfan_lcore *lc, const void *priv,
	    struct mcfan_engine_counter *out, unsigned int max)
{
	const struct tx_priv *p = priv;
	struct tx_stats s;
	uint32_t sn;
	unsigned int tries = 0;

	RTE_SET_USED(app);
	RTE_SET_USED(lc);
	if (p == NULL || max < 7)
		return 0;
	do {
		sn = rte_seqcount_read_begin(&p->st.seq);
		s = p->st;
	} while (rte_seqcount_read_retry(&p->st.seq, sn) && ++tries < 1000);
	out[0] = (struct mcfan_engine_counter){"tx_sent", s.sent, MCFAN_ENGINE_CTR_DELIVERED};
	out[1] = (struct mcfan_engine_counter){"tx_full", s.full, MCFAN_ENGINE_CTR_DROP};
	out[2] = (struct mcfan_engine_counter){"tx_nohdr", s.nohdr, MCFAN_ENGINE_CTR_DROP};
	out[3] = (struct mcfan_engine_counter){"tx_unrewritable", s.unrewritable,
					       MCFAN_ENGINE_CTR_DROP};
	out[4] = (struct mcfan_engine_counter){"tx_bytes", s.bytes, MCFAN_ENGINE_CTR_INFO};
	out[5] = (struct mcfan_engine_counter){"tx_port", p->port, MCFAN_ENGINE_CTR_INFO};
	/* the output's own TX queue on its port (1..; 0 is the control lcore's) */
	out[6] = (struct mcfan_engine_counter){"tx_queue", p->queue, MCFAN_ENGINE_CTR_INFO};
	return 7;
}

static const struct mcfan_engine engine_tx = {
	.name = "tx",
	.side = MCFAN_ENGINE_WORKER,
	.help = "tx:PORT[,dst-mac=M,dst-ip=A,dst-port=N,udp-csum=auto|update|full]: send every "
		"copy out of PORT, unchanged or with its destination rewritten; PORT is then "
		"output-only (not polled, no group joined) unless --rx-ports names it",
	.deliver = tx_deliver,
	.args_check = tx_args_check,
	.args_check_probed = tx_args_check_probed,
	.args_same_probed = tx_args_same_probed,
	.args_group_check = tx_args_group_check,
	.configure = tx_configure,
	.release = tx_release,
	.counters = tx_counters,
};

MCFAN_ENGINE_REGISTER(engine_tx);
