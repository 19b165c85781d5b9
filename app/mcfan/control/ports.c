/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Port setup: the ports' roles (RX or output-only), every RX queue the device comes with
 * (net_af_packet's qpairs, net_pcap's rx_pcap/rx_iface streams, net_ring's rings; one queue
 * for a device that has none yet, such as a PCI NIC), each of an RX port polled by one RX
 * lcore; multicast MAC filters, start and stop.
 */

#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_packet.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>

#include "mcfan.h"
#include "log.h"
#include "control/groups.h"
#include "control/igmp.h"
#include "control/kernel.h"
#include "control/overrun.h"

#define PCAP_FILE_HDR 24   /* classic pcap: file header, bytes */
#define PCAP_REC_HDR 16    /* record header: ts_sec, ts_usec, incl_len, orig_len */
#define PCAP_MAGIC 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
/* mbufs DPDK 22.11's net_af_xdp puts in an RX queue's fill queue at setup and keeps there
 * (ETH_AF_XDP_DFLT_NUM_DESCS in drivers/net/af_xdp/rte_eth_af_xdp.c) */
#define AF_XDP_FILL_MBUFS 2048

/* mbufs a classic pcap file's records fill (one per mbuf_size bytes of each: the frame bytes
 * of an mbuf of the pool, --mbuf-size), or -1 if it is not a classic pcap file mcfan can
 * read. */
static int64_t
pcap_file_mbufs(const char *path, unsigned int mbuf_size)
{
	unsigned char h[PCAP_FILE_HDR], r[PCAP_REC_HDR];
	uint32_t magic, incl;
	int64_t n = 0;
	bool swap;
	FILE *f;

	f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	if (fread(h, 1, sizeof(h), f) != sizeof(h)) {
		fclose(f);
		return -1;
	}
	memcpy(&magic, h, sizeof(magic));
	swap = magic == rte_bswap32(PCAP_MAGIC) || magic == rte_bswap32(PCAP_MAGIC_NS);
	if (!swap && magic != PCAP_MAGIC && magic != PCAP_MAGIC_NS) {
		fclose(f);
		return -1;
	}
	while (fread(r, 1, sizeof(r), f) == sizeof(r)) {
		memcpy(&incl, r + 8, sizeof(incl));
		if (swap)
			incl = rte_bswap32(incl);
		n += RTE_MAX((int64_t)1, ((int64_t)incl + mbuf_size - 1) / mbuf_size);
		if (fseek(f, (long)incl, SEEK_CUR) != 0)
			break;
	}
	fclose(f);
	return n;
}

/* For net_pcap with infinite_rx=1: the mbufs its captures hold for the whole run (the PMD
 * copies every frame of each rx_pcap file into mbufs of the pool at queue setup); 0 else. */
static uint64_t
pcap_infinite_mbufs(uint16_t port, unsigned int mbuf_size)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	const char *p, *e;
	char path[PATH_MAX];
	uint64_t total = 0;
	int64_t n;

	if (rte_eth_dev_info_get(port, &info) != 0 || strcmp(info.driver_name, "net_pcap") != 0 ||
	    info.device == NULL)
		return 0;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL || strstr(da->args, "infinite_rx=1") == NULL)
		return 0;
	for (p = strstr(da->args, "rx_pcap="); p != NULL; p = strstr(e, "rx_pcap=")) {
		p += strlen("rx_pcap=");
		e = p + strcspn(p, ",");
		snprintf(path, sizeof(path), "%.*s", (int)(e - p), p);
		n = pcap_file_mbufs(path, mbuf_size);
		if (n > 0)
			total += (uint64_t)n;
	}
	return total;
}

/* RX queues a port is configured with: the device's own (at least one), and for net_tap
 * (which refuses other counts) and net_memif (whose peer pairs queue i with its queue i both
 * ways, and is refused rings the server lacks) as many RX queues as TX queues: one for every
 * TX queue of the tx engine's workers too (every one is polled on an RX port: ports_assign();
 * an output-only port's are set up and never polled). */
static uint16_t
port_rxq_wanted(const struct mcfan_app *app, uint16_t port, const struct rte_eth_dev_info *info)
{
	uint16_t q = RTE_MAX(info->nb_rx_queues, (uint16_t)1);

	if (info->max_rx_queues > 0)
		q = RTE_MIN(q, info->max_rx_queues);
	if (strcmp(info->driver_name, "net_tap") == 0 ||
	    strcmp(info->driver_name, "net_memif") == 0)
		q = RTE_MAX(q, (uint16_t)(1 + app->ports[port].nb_txq_workers));
	return q;
}

uint64_t
mcfan_ports_mbufs(const struct mcfan_app *app, uint64_t *held, unsigned int *rx_queues)
{
	struct rte_eth_dev_info info;
	uint64_t need = 0;
	uint16_t port, q;

	*held = 0;
	*rx_queues = 0;
	RTE_ETH_FOREACH_DEV(port) {
		q = 1;
		if (rte_eth_dev_info_get(port, &info) == 0)
			q = port_rxq_wanted(app, port, &info);
		*rx_queues += q;
		need += (uint64_t)q * MCFAN_RX_DESC;
		/* net_af_xdp's fill queue: mbufs the kernel fills, beside those in its RX ring
		 * (its umem is the pool's memory) */
		if (mcfan_port_driver_is(port, "net_af_xdp"))
			need += (uint64_t)q * AF_XDP_FILL_MBUFS;
		/* the tx engine's queues hold the copies they send until the PMD frees them */
		need += (uint64_t)app->ports[port].nb_txq_workers * MCFAN_TX_DESC;
		*held += pcap_infinite_mbufs(port, app->cfg.mbuf_size);
	}
	return need + *held;
}

int
mcfan_ports_pool_ops_check(const char **ops, bool user, char *why, size_t len)
{
	/* DPDK's choice without the operator's (rte_mbuf_best_mempool_ops() returns theirs) */
	const char *best = rte_mbuf_platform_mempool_ops() != NULL ?
			   rte_mbuf_platform_mempool_ops() : RTE_MBUF_DEFAULT_MEMPOOL_OPS;
	uint16_t port;

	if (strcmp(*ops, "stack") != 0 && strcmp(*ops, "lf_stack") != 0)
		return 0;
	RTE_ETH_FOREACH_DEV(port) {
		if (!mcfan_port_driver_is(port, "net_af_xdp"))
			continue;
		if (user) {
			fprintf(stderr, "mcfan: --mbuf-pool-ops-name %s: port %u is net_af_xdp, "
				"which receives nothing from a pool with the %s handler (DPDK "
				"22.11: every frame counts as the port's imissed); leave "
				"--mbuf-pool-ops-name out or give %s\n", *ops, port, *ops, best);
			return -EINVAL;
		}
		snprintf(why, len, "default-af_xdp (port %u is net_af_xdp, which gets no frames "
			 "from a %s-handler pool in DPDK 22.11)", port, *ops);
		*ops = best;
		return 0;
	}
	return 0;
}

uint64_t
mcfan_ports_kept_mbufs_max(void)
{
	struct rte_eth_dev_info info;
	uint64_t n = 0;
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port)
		if (rte_eth_dev_info_get(port, &info) == 0 &&
		    strcmp(info.driver_name, "net_af_xdp") == 0)
			n += (uint64_t)RTE_MAX(info.nb_rx_queues, (uint16_t)1) *
			     (AF_XDP_FILL_MBUFS + MCFAN_TX_DESC);
	return n;
}

const char *
mcfan_port_role_name(enum mcfan_port_role role)
{
	return role == MCFAN_PORT_RX ? "rx" : "output";
}

int
mcfan_ports_roles(struct mcfan_app *app)
{
	const struct mcfan_config *cfg = &app->cfg;
	char ids[128] = "", outs[128] = "";
	unsigned int i, n_rx = 0;
	size_t off = 0, ooff = 0;
	struct mcfan_port *p;
	uint16_t port;

	for (i = 0; cfg->rx_ports_set && i < RTE_MAX_ETHPORTS; i++) {
		if (!mcfan_bits_test(cfg->rx_ports, i) || rte_eth_dev_is_valid_port((uint16_t)i))
			continue;
		RTE_ETH_FOREACH_DEV(port)
			if (off < sizeof(ids))
				off += (size_t)snprintf(ids + off, sizeof(ids) - off, "%s%u",
							off == 0 ? "" : ",", port);
		fprintf(stderr, "mcfan: --rx-ports: port %u was not probed: give ids of probed "
			"ports (%s; --vdev/-a devices in the order given)\n", i, ids);
		return -EINVAL;
	}
	RTE_ETH_FOREACH_DEV(port) {
		p = &app->ports[port];
		if (cfg->rx_ports_set) {
			p->role = mcfan_bits_test(cfg->rx_ports, port) ? MCFAN_PORT_RX :
								      MCFAN_PORT_OUTPUT;
			p->role_why = "--rx-ports";
		} else {
			p->role = p->nb_txq_workers > 0 ? MCFAN_PORT_OUTPUT : MCFAN_PORT_RX;
			p->role_why = p->nb_txq_workers > 0 ? "tx output" : "default";
		}
		if (p->role == MCFAN_PORT_RX)
			n_rx++;
		else if (ooff < sizeof(outs))
			ooff += (size_t)snprintf(outs + ooff, sizeof(outs) - ooff, "%s%u",
						 ooff == 0 ? "" : ",", port);
	}
	if (n_rx == 0) {
		fprintf(stderr, "mcfan: no port is left to receive: port%s %s %s output-only (%s); "
			"name the ports that receive with --rx-ports (e.g. --rx-ports 0: a port "
			"listed there is polled and joins the groups even if a tx output sends on "
			"it)\n", strchr(outs, ',') != NULL ? "s" : "", outs,
			strchr(outs, ',') != NULL ? "are" : "is",
			cfg->rx_ports_set ? "not in --rx-ports" : "the output of a tx engine");
		return -EINVAL;
	}
	/* --port-ip for an output-only port: the source of reports it never sends */
	for (i = 0; i < cfg->n_port_ip; i++) {
		port = cfg->port_ip[i].port;
		if (!rte_eth_dev_is_valid_port(port) || app->ports[port].role == MCFAN_PORT_RX)
			continue;
		fprintf(stderr, "mcfan: --port-ip: port %u is output-only (%s): it sends no IGMP or "
			"MLD report, so its addresses would source nothing; leave port %u out of "
			"--port-ip, or name it in --rx-ports to receive and join on it too\n", port,
			cfg->rx_ports_set ? "not in --rx-ports" : "the output of a tx engine", port);
		return -EINVAL;
	}
	RTE_ETH_FOREACH_DEV(port)
		if (app->ports[port].role == MCFAN_PORT_OUTPUT)
			MCFAN_LOG(INFO, "port %u: output-only (%s): not polled, no group joined, "
				  "no IGMP/MLD report sent, its multicast filter left as it is\n",
				  port, app->ports[port].role_why);
	return 0;
}

/* Program the multicast MAC filter for the configured groups; fall back to allmulticast, and
 * say which mode is really in effect. An output-only port's filter is left as it is. */
static void
port_filter(struct mcfan_app *app, uint16_t port)
{
	struct rte_ether_addr macs[MCFAN_MAX_GROUPS];
	struct mcfan_port *p = &app->ports[port];
	unsigned int i, n = 0;
	int ret;

	if (p->role != MCFAN_PORT_RX) {
		snprintf(p->filter_mode, sizeof(p->filter_mode), "untouched");
		return;
	}
	for (i = 0; i < app->cfg.n_groups; i++)
		n = mcfan_mac_list_add(macs, n, &app->cfg.groups[i]);
	ret = rte_eth_dev_set_mc_addr_list(port, macs, n);
	if (ret == 0) {
		snprintf(p->filter_mode, sizeof(p->filter_mode), "mc_addr_list");
		return;
	}
	ret = rte_eth_allmulticast_enable(port);
	if (ret == 0) {
		MCFAN_LOG(WARNING, "port %u (%s): multicast address list refused; "
			  "allmulticast enabled instead\n", port, p->driver);
		snprintf(p->filter_mode, sizeof(p->filter_mode), "allmulticast");
		return;
	}
	MCFAN_LOG(WARNING, "port %u (%s): driver supports neither a multicast address list nor "
		  "allmulticast (%s); receiving whatever the device delivers\n", port, p->driver,
		  rte_strerror(-ret));
	snprintf(p->filter_mode, sizeof(p->filter_mode), "none");
}

/* net_af_packet's default frame size and block size (devargs framesz, blocksz), bytes
 * (DPDK 22.11 rte_eth_af_packet.c; the block: getpagesize() on this architecture). */
#define AF_PACKET_FRAMESZ_DEFAULT 2048
#define AF_PACKET_BLOCKSZ_DEFAULT 4096
/*
 * Bytes of a TPACKET_V2 ring frame before the Ethernet header: the kernel puts the network
 * header at TPACKET_ALIGN(TPACKET2_HDRLEN + 16) and the MAC header right before it
 * (net/packet/af_packet.c tpacket_rcv()), so a frame holds framesz minus this much and
 * anything longer arrives cut (66 bytes on x86-64).
 */
#define AF_PACKET_FRAME_OVERHEAD (TPACKET_ALIGN(TPACKET2_HDRLEN + 16) - RTE_ETHER_HDR_LEN)
/* The data bytes the PMD's RX queue setup wants one mbuf to hold: framesz minus the
 * tpacket2 header (eth_rx_queue_setup(), as vdev_check.c) */
#define AF_PACKET_HDR (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))
#define AF_PACKET_VLAN_LEN 4

/* The remedy for an af_packet port whose ring frames are shorter than the MTU: the framesz
 * whose frames hold a frame of the MTU with one VLAN tag (a multiple of 1 KiB, so that a block
 * of a few pages is a whole number of frames, as DPDK 22.11's PMD needs: vdev_check.c), the
 * blocksz of whole frames and pages, and the --mbuf-size it then needs when the pool's mbufs
 * are smaller; or the MTU that fits. */
static void
af_packet_mtu_remedy(unsigned int mtu, unsigned int blocksz, unsigned int mbuf_size,
		     unsigned int room, char *out, size_t len)
{
	unsigned int page = AF_PACKET_BLOCKSZ_DEFAULT, g, x, y;
	unsigned int fs = RTE_ALIGN_CEIL(mtu + RTE_ETHER_HDR_LEN + AF_PACKET_VLAN_LEN +
					 (unsigned int)AF_PACKET_FRAME_OVERHEAD, 1024u);
	unsigned int data = fs - (unsigned int)AF_PACKET_HDR, bs;
	char mbuf[96] = "";

	for (x = fs, y = page; y != 0; g = y, y = x % y, x = g)
		;
	bs = fs / x * page; /* the least common multiple of fs and the page */
	bs = RTE_ALIGN_MUL_CEIL(RTE_MAX(blocksz, bs), bs);
	if (data > mbuf_size)
		snprintf(mbuf, sizeof(mbuf), " and mcfan's --mbuf-size %u (an mbuf must hold a ring "
			 "frame's %u data bytes)", data, data);
	if (data > MCFAN_MBUF_SIZE_MAX)
		snprintf(out, len, "lower the MTU to %u (a ring frame for MTU %u needs more than "
			 "an mbuf can hold)", room, mtu);
	else
		snprintf(out, len, "give --vdev ...,framesz=%u,blocksz=%u (frames of the MTU with "
			 "a VLAN tag)%s, or lower the MTU to %u", fs, bs, mbuf, room);
}

/* An af_packet port's ring frame size (framesz), block size (blocksz) and interface MTU from
 * its devargs and /sys; false when it is no net_af_packet port or a value is unknown. */
static bool
af_packet_geometry(uint16_t port, unsigned int *framesz, unsigned int *blocksz,
		   unsigned int *mtu, char *iface, size_t iface_len)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	const char *ifn, *fs, *bs;
	char path[128];
	bool ok = false;
	FILE *f;
	int n;

	*framesz = AF_PACKET_FRAMESZ_DEFAULT;
	*blocksz = AF_PACKET_BLOCKSZ_DEFAULT;
	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL ||
	    strcmp(info.driver_name, "net_af_packet") != 0)
		return false;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL)
		return false;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return false;
	ifn = rte_kvargs_get(kv, "iface");
	fs = rte_kvargs_get(kv, "framesz");
	if (fs != NULL)
		*framesz = (unsigned int)strtoul(fs, NULL, 0);
	bs = rte_kvargs_get(kv, "blocksz");
	if (bs != NULL)
		*blocksz = (unsigned int)strtoul(bs, NULL, 0);
	n = ifn != NULL ? snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", ifn) : -1;
	f = n > 0 && (size_t)n < sizeof(path) ? fopen(path, "r") : NULL;
	if (f != NULL && fscanf(f, "%u", mtu) == 1 &&
	    *framesz > AF_PACKET_FRAME_OVERHEAD + RTE_ETHER_HDR_LEN) {
		snprintf(iface, iface_len, "%s", ifn);
		ok = true;
	}
	if (f != NULL)
		fclose(f);
	rte_kvargs_free(kv);
	return ok;
}

/* Warn when an af_packet port's interface MTU is above what its ring frames hold: those
 * frames arrive cut and count as truncated. Keeps the geometry for the report
 * (mcfan_ports_truncated_hint()). Best effort: silent when anything is unknown. */
static void
af_packet_mtu_check(struct mcfan_app *app, uint16_t port)
{
	struct mcfan_port *p = &app->ports[port];
	unsigned int framesz, blocksz, mtu, room;
	char iface[IF_NAMESIZE + 1], remedy[256];

	if (!af_packet_geometry(port, &framesz, &blocksz, &mtu, iface, sizeof(iface)))
		return;
	p->afp_framesz = framesz;
	p->afp_blocksz = blocksz;
	p->afp_mtu = mtu;
	room = framesz - AF_PACKET_FRAME_OVERHEAD - RTE_ETHER_HDR_LEN;
	af_packet_mtu_remedy(mtu, blocksz, app->cfg.mbuf_size, room, remedy, sizeof(remedy));
	if (mtu > room)
		MCFAN_LOG(WARNING, "port %u (net_af_packet): interface %s has MTU %u but a "
			  "%u-byte ring frame (framesz) holds IP packets of at most %u "
			  "bytes (%u bytes of packet header, %u of Ethernet, 4 fewer a VLAN "
			  "tag): longer frames arrive cut and count as 'truncated' (IPv4 "
			  "datagrams the kernel reassembled from fragments too); %s\n", port,
			  iface, mtu, framesz, room, (unsigned int)AF_PACKET_FRAME_OVERHEAD,
			  RTE_ETHER_HDR_LEN, remedy);
}

int
mcfan_ports_truncated_hint(const struct mcfan_app *app, uint16_t port, uint64_t truncated,
			   char *buf, size_t len)
{
	const struct mcfan_port *p = &app->ports[port];
	unsigned int framesz = p->afp_framesz, blocksz = p->afp_blocksz, mtu = p->afp_mtu, room;
	char remedy[256] = "";

	buf[0] = '\0';
	if (truncated == 0 || mtu == 0)
		return 0;
	room = framesz - AF_PACKET_FRAME_OVERHEAD - RTE_ETHER_HDR_LEN;
	if (mtu > room) {
		af_packet_mtu_remedy(mtu, blocksz, app->cfg.mbuf_size, room, remedy,
				     sizeof(remedy));
		snprintf(remedy + strlen(remedy), sizeof(remedy) - strlen(remedy), " (MTU %u)",
			 mtu);
	} else {
		snprintf(remedy, sizeof(remedy), "for datagrams of B bytes give framesz of at least "
			 "B + %u (Ethernet, IPv4 and UDP headers and the ring's %u; a multiple of "
			 "1024, blocksz a multiple of it and of the page) and --mbuf-size framesz - "
			 "%u", (unsigned int)(RTE_ETHER_HDR_LEN + 20 + 8 + AF_PACKET_FRAME_OVERHEAD),
			 (unsigned int)AF_PACKET_FRAME_OVERHEAD, (unsigned int)AF_PACKET_HDR);
	}
	return snprintf(buf, len, "%" PRIu64 " frames truncated: longer than a %u-byte ring "
			"frame (framesz) holds (IP packets of at most %u bytes); IPv4 datagrams "
			"the kernel reassembled from fragments before the socket count here too "
			"(mcfan does not reassemble; its own fragment reason never sees them on "
			"net_af_packet): %s (docs/guide.md \"af_packet and the MTU\")", truncated,
			framesz, room, remedy);
}

static int
port_init(struct mcfan_app *app, uint16_t port)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_rxq_info rxq;
	struct mcfan_port *p = &app->ports[port];
	uint16_t nb_rxd = MCFAN_RX_DESC, nb_txd = MCFAN_TX_DESC, q, nb_txq;
	int ret;

	memset(&conf, 0, sizeof(conf));
	/* Rx queue interrupts only when asked for: the idle policy interrupt (datapath/idle.c) */
	if (MCFAN_IDLE_KIND_OF(app->cfg.idle_rx) == MCFAN_IDLE_INTERRUPT)
		conf.intr_conf.rxq = 1;
	p->rx_intr = conf.intr_conf.rxq != 0;
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0) {
		MCFAN_LOG(ERR, "port %u: cannot get device info: %s\n", port, rte_strerror(-ret));
		return ret;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	af_packet_mtu_check(app, port);
	rte_eth_dev_get_name_by_port(port, p->name);
	p->socket_id = rte_eth_dev_socket_id(port);
	if (p->socket_id < 0)
		p->socket_id = (int)rte_socket_id();
	/* the queues the device was created with (a kernel that spreads frames over the
	 * sockets of net_af_packet's qpairs needs every one polled), at least one */
	p->nb_rxq = port_rxq_wanted(app, port, &info);
	/* TX queue 0: the control lcore (IGMP/MLD); 1..: one per worker lcore of the tx engine */
	nb_txq = (uint16_t)(1 + p->nb_txq_workers);
	if (p->nb_txq_workers > 0 && info.max_tx_queues < nb_txq) {
		/* the tx engine's set-up refused this before any port started (engine_tx.c):
		 * reached only if a driver lowers max_tx_queues after that check */
		fprintf(stderr, "mcfan: port %u (%s): %u worker lcores would send on it (tx "
			"engine: %u TX queues, queue 0 for the control lcore and one per worker "
			"lcore) but the driver has at most %u TX queues\n", port, p->driver,
			p->nb_txq_workers, nb_txq, info.max_tx_queues);
		return -E2BIG;
	}
	ret = rte_eth_dev_configure(port, p->nb_rxq, nb_txq, &conf);
	if (ret != 0) {
		MCFAN_LOG(ERR, "port %u (%s): configure failed: %s: the driver refused %u RX "
			  "queue(s) and %u TX queue(s); check the device's arguments (--vdev, -a) "
			  "and the driver's lines above\n", port, p->driver, rte_strerror(-ret),
			  p->nb_rxq, nb_txq);
		return ret;
	}
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret != 0) {
		MCFAN_LOG(ERR, "port %u: cannot adjust descriptors: %s\n", port, rte_strerror(-ret));
		return ret;
	}
	for (q = 0; q < p->nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(port, q, nb_rxd, p->socket_id, NULL, app->pool);
		if (ret != 0) {
			MCFAN_LOG(ERR, "port %u: RX queue %u setup failed: %s\n", port, q,
				  rte_strerror(-ret));
			return ret;
		}
	}
	/* the ring the idle sleep bound protects: what the PMD reports, else what it took */
	p->nb_rxd = nb_rxd;
	if (rte_eth_rx_queue_info_get(port, 0, &rxq) == 0 && rxq.nb_desc > 0)
		p->nb_rxd = rxq.nb_desc;
	for (q = 0; q < nb_txq; q++) {
		ret = rte_eth_tx_queue_setup(port, q, nb_txd, p->socket_id, NULL);
		if (ret != 0) {
			MCFAN_LOG(ERR, "port %u: TX queue %u setup failed: %s\n", port, q,
				  rte_strerror(-ret));
			return ret;
		}
	}
	ret = rte_eth_dev_start(port);
	if (ret != 0) {
		MCFAN_LOG(ERR, "port %u (%s): start failed: %s: check the device's arguments "
			  "(--vdev, -a), its link and the driver's lines above\n", port, p->driver,
			  rte_strerror(-ret));
		return ret;
	}
	p->started = true;
	port_filter(app, port);
	/* the kernel's counters start with the port's: zeroed right before its stats */
	ret = mcfan_kernel_port_init(app, port);
	if (ret != 0)
		return ret;
	ret = rte_eth_stats_reset(port);
	if (ret != 0 && ret != -ENOTSUP)
		MCFAN_LOG(WARNING, "port %u: cannot reset stats: %s\n", port, rte_strerror(-ret));
	MCFAN_LOG(INFO, "port %u (%s, %s): started, role %s, %u RX queue(s) of %u descriptors%s, "
		  "filter %s\n", port, p->name, p->driver, mcfan_port_role_name(p->role),
		  p->nb_rxq, nb_rxd, p->role == MCFAN_PORT_RX ? "" : " (not polled)",
		  p->filter_mode);
	return 0;
}

/*
 * Give every RX queue of a port to an RX lcore: the (port, queue) pairs go round-robin to the
 * RX lcores, continuing from pair *k. A queue that no lcore can take (each polls at most
 * MCFAN_MAX_RX_PAIRS pairs) refuses the start with the queues named: -E2BIG.
 */
static int
ports_assign(struct mcfan_app *app, uint16_t port, unsigned int *k)
{
	const struct mcfan_port *p = &app->ports[port];
	struct mcfan_lcore *lc;
	uint16_t q;

	if (p->role != MCFAN_PORT_RX)
		return 0; /* output-only: its queues are never polled */
	for (q = 0; q < p->nb_rxq; q++, (*k)++) {
		lc = &app->lcores[app->rx_lcore_ids[*k % app->n_rx]];
		if (lc->n_ports >= MCFAN_MAX_RX_PAIRS) {
			fprintf(stderr, "mcfan: port %u (%s): RX queues %u-%u would not be polled: "
				"each of the %u RX lcores polls at most %u (port, queue) pairs; give "
				"more RX lcores (--rx-lcores) or fewer queues\n", port, p->name, q,
				p->nb_rxq - 1u, app->n_rx, MCFAN_MAX_RX_PAIRS);
			return -E2BIG;
		}
		lc->ports[lc->n_ports] = port;
		lc->queues[lc->n_ports] = q;
		lc->n_ports++;
		/* its frames and drops counted per pair too (mcfan_rx_stats pair[]): before
		 * launch; the RX ctx was set up (mcfan_setup_rings()) before the ports */
		lc->rx.stats.n_pairs = RTE_MIN(lc->n_ports, (unsigned int)MCFAN_RX_STATS_PAIRS);
	}
	return 0;
}

int
mcfan_ports_init(struct mcfan_app *app)
{
	uint16_t port;
	unsigned int n = 0, i = 0, k = 0;
	struct mcfan_lcore *lc;
	int ret;

	RTE_ETH_FOREACH_DEV(port) {
		if (mcfan_live_quitting(&app->live))
			return -EINTR;
		app->ports[port].used = true;
		ret = port_init(app, port);
		if (ret != 0)
			return ret;
		ret = ports_assign(app, port, &k);
		if (ret != 0)
			return ret;
		n += app->ports[port].role == MCFAN_PORT_RX;
	}
	for (i = 0; i < app->n_rx; i++) {
		lc = &app->lcores[app->rx_lcore_ids[i]];
		if (lc->n_ports == 0)
			MCFAN_LOG(WARNING, "RX lcore %u has no port to poll (%u RX ports, %u RX "
				  "lcores)\n",
				  lc->lcore_id, n, app->n_rx);
	}
	return 0;
}

void
mcfan_ports_stop(struct mcfan_app *app)
{
	uint16_t port;
	int ret;

	/* the kernel's last counts, before the PMD closes its sockets */
	mcfan_kernel_final(app);
	/* the RX lcores have stopped: the control frames they left are counted and freed */
	mcfan_igmp_drain(app);
	/* IGMP/MLD: leave every group while the ports still send (docs/igmp.md) */
	mcfan_igmp_leave_all(app);
	mcfan_overrun_tick(app); /* the last port-side sleep overrun, on those counts */
	RTE_ETH_FOREACH_DEV(port) {
		if (!app->ports[port].started)
			continue;
		ret = rte_eth_dev_stop(port);
		if (ret != 0)
			MCFAN_LOG(WARNING, "port %u: stop failed: %s\n", port, rte_strerror(-ret));
		app->ports[port].started = false;
	}
}
