/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Device arguments checked before EAL (vdev_check.h). Without this, an af_packet port on an
 * interface that does not exist gives three lines of PMD and EAL errors and then "no port
 * was probed"; a framesz too big for an mbuf starts, warns about the MTU, fails in the PMD's
 * RX queue setup with "N bytes will not fit in mbuf" and exits 1. Both are the operator's
 * input, so mcfan names the argument and the remedy once, before anything is set up.
 */

#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_packet.h>

#include <rte_common.h>
#include <rte_kvargs.h>
#include <rte_mbuf_core.h>

#include "vdev_check.h"

#define VDEV_OPT "--vdev"
/* DPDK 22.11 rte_eth_af_packet.c: the frame's data is framesz minus the tpacket2_hdr
 * (eth_rx_queue_setup: tp_frame_size - (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))) */
#define AF_PACKET_HDR (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))
/* mcfan's pool: rte_pktmbuf_pool_create(..., RTE_MBUF_DEFAULT_BUF_SIZE) (main.c) */
#define MBUF_DATA_BYTES RTE_MBUF_DEFAULT_DATAROOM

static const char *const iface_keys[] = {"iface", "rx_iface", "rx_iface_in"};

static bool
is_driver(const char *arg, const char *a, const char *b)
{
	return strncmp(arg, a, strlen(a)) == 0 || (b != NULL && strncmp(arg, b, strlen(b)) == 0);
}

/* One --vdev argument; 0 or the error (message printed). */
static int
check_one(const char *arg)
{
	bool afp = is_driver(arg, "net_af_packet", "eth_af_packet");
	bool pcap = is_driver(arg, "net_pcap", "eth_pcap");
	const char *comma = strchr(arg, ',');
	struct rte_kvargs *kv;
	const char *v;
	uint64_t fs;
	unsigned int k;
	int ret = 0;

	if ((!afp && !pcap) || comma == NULL)
		return 0;
	kv = rte_kvargs_parse(comma + 1, NULL);
	if (kv == NULL)
		return 0; /* the PMD says what is wrong with its arguments */
	for (k = 0; k < RTE_DIM(iface_keys) && ret == 0; k++) {
		if (afp && k > 0)
			break;
		v = rte_kvargs_get(kv, iface_keys[k]);
		if (v == NULL || if_nametoindex(v) != 0)
			continue;
		fprintf(stderr, "mcfan: --vdev %s: no interface '%s' in this network namespace "
			"(ip link lists them): give an existing one with %s=, or run mcfan in the "
			"interface's namespace (ip netns exec NS mcfan ...)\n", arg, v,
			iface_keys[k]);
		ret = -ENODEV;
	}
	v = afp && ret == 0 ? rte_kvargs_get(kv, "framesz") : NULL;
	if (v != NULL) {
		fs = strtoull(v, NULL, 0);
		if (fs > AF_PACKET_HDR && fs - AF_PACKET_HDR > MBUF_DATA_BYTES) {
			fprintf(stderr, "mcfan: --vdev %s: framesz=%s gives ring frames of %" PRIu64 " data "
				"bytes, more than an mbuf of mcfan's pool holds (%u): give framesz=%u "
				"or less\n", arg, v, fs - AF_PACKET_HDR, (unsigned int)MBUF_DATA_BYTES,
				(unsigned int)(MBUF_DATA_BYTES + AF_PACKET_HDR));
			ret = -EINVAL;
		}
	}
	rte_kvargs_free(kv);
	return ret;
}

int
mcfan_vdev_check(int argc, char **argv)
{
	size_t n = strlen(VDEV_OPT);
	const char *arg;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], VDEV_OPT) == 0 && i + 1 < argc)
			arg = argv[++i];
		else if (strncmp(argv[i], VDEV_OPT, n) == 0 && argv[i][n] == '=')
			arg = argv[i] + n + 1;
		else
			continue;
		ret = check_one(arg);
		if (ret != 0)
			return ret;
	}
	return 0;
}
