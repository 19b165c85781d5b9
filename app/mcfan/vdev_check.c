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

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <regex.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/if_packet.h>

#include <rte_common.h>
#include <rte_kvargs.h>
#include <rte_mbuf_core.h>

#include "mcfan_parse.h"
#include "mcfan_reader_ring.h"
#include "vdev_check.h"

#define VDEV_OPT "--vdev"
#define PREFIX_OPT "--file-prefix"
#define MEM_OPT "-m"
#define LOG_LEVEL_OPT "--log-level"
/* DPDK 22.11 rte_log.h: RTE_LOG_EMERG (1) .. RTE_LOG_DEBUG (8), the names EAL reads */
static const char *const log_levels[] = {
	"emergency", "alert", "critical", "error", "warning", "notice", "info", "debug",
};
/* DPDK 22.11 lib/telemetry: the socket in the runtime directory RUNDIR/dpdk/PREFIX */
#define TELEMETRY_SOCKET "/dpdk_telemetry.v2"
/* The longest reader ring name's tail after the prefix: "." IPv6 (45) "." port (5)
 * ".new" pid (7), and its head "mcfan." (lib/reader/mcfan_reader_ring.h) */
#define RING_NAME_TAIL (1 + 45 + 1 + 5 + 4 + 7)
#define RING_NAME_HEAD 6
/* DPDK 22.11 rte_eth_af_packet.c: the frame's data is framesz minus the tpacket2_hdr
 * (eth_rx_queue_setup: tp_frame_size - (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))) */
#define AF_PACKET_HDR (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))

/* DPDK 22.11 rte_eth_af_packet.c's defaults and limit (RTE_PMD_AF_PACKET_MAX_RINGS) */
#define AF_PACKET_QPAIRS_MAX 16
#define AF_PACKET_BLOCKSZ_DEFAULT 4096 /* getpagesize() on this architecture */
#define AF_PACKET_FRAMESZ_DEFAULT 2048
#define AF_PACKET_FRAMECNT_DEFAULT 512

static const char *const iface_keys[] = {"iface", "rx_iface", "rx_iface_in"};

/* A decimal number of the devargs (1..20 digits, no sign); false otherwise. */
static bool
devarg_u64(const char *s, uint64_t *v)
{
	char *end;

	if (s == NULL || s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0';
}

/* The least common multiple of a and b (both > 0). */
static uint64_t
lcm_u64(uint64_t a, uint64_t b)
{
	uint64_t x = a, y = b, r;

	while (y != 0) {
		r = x % y;
		x = y;
		y = r;
	}
	return a / x * b;
}

/*
 * The PACKET_RX_RING geometry af_packet asks of the kernel (packet(7), tpacket_req with
 * TPACKET_V2): the block a multiple of the page size, the frame a multiple of
 * TPACKET_ALIGNMENT holding at least the tpacket2 header and at most a block, the frame
 * count a whole number of blocks; qpairs 1..16. The PMD says "could not set
 * PACKET_RX_RING ...: Invalid argument" or "invalid ... value" in three lines and mcfan
 * then "no port was probed": here it is one line naming the key and the remedy.
 */
static int
check_afp_ring(const char *arg, struct rte_kvargs *kv)
{
	const char *keys[] = {"qpairs", "blocksz", "framesz", "framecnt"};
	uint64_t v[RTE_DIM(keys)] = {1, AF_PACKET_BLOCKSZ_DEFAULT, AF_PACKET_FRAMESZ_DEFAULT,
				     AF_PACKET_FRAMECNT_DEFAULT};
	uint64_t page = (uint64_t)getpagesize(), per_block;
	const char *s;
	unsigned int k;

	for (k = 0; k < RTE_DIM(keys); k++) {
		s = rte_kvargs_get(kv, keys[k]);
		if (s == NULL)
			continue;
		if (!devarg_u64(s, &v[k]) || v[k] == 0) {
			fprintf(stderr, "mcfan: --vdev %s: %s=%s is not a positive decimal number\n",
				arg, keys[k], s);
			return -EINVAL;
		}
	}
	if (v[0] > AF_PACKET_QPAIRS_MAX) {
		fprintf(stderr, "mcfan: --vdev %s: qpairs=%" PRIu64 " is more than net_af_packet's "
			"%u queue pairs: give qpairs=1..%u\n", arg, v[0], AF_PACKET_QPAIRS_MAX,
			AF_PACKET_QPAIRS_MAX);
		return -EINVAL;
	}
	if (v[1] % page != 0) {
		fprintf(stderr, "mcfan: --vdev %s: blocksz=%" PRIu64 " is not a multiple of the page "
			"size (%" PRIu64 "): give blocksz=%" PRIu64 " or another multiple\n", arg,
			v[1], page, RTE_MAX(page, v[1] / page * page));
		return -EINVAL;
	}
	if (v[2] < AF_PACKET_HDR || v[2] % TPACKET_ALIGNMENT != 0 || v[2] > v[1]) {
		fprintf(stderr, "mcfan: --vdev %s: framesz=%" PRIu64 " must be a multiple of %u from "
			"%u up to blocksz (%" PRIu64 "): give framesz=%u, or a larger blocksz\n",
			arg, v[2], TPACKET_ALIGNMENT, (unsigned int)RTE_ALIGN_CEIL(AF_PACKET_HDR,
			TPACKET_ALIGNMENT), v[1], AF_PACKET_FRAMESZ_DEFAULT);
		return -EINVAL;
	}
	/* DPDK 22.11's PMD reads RX ring frame i at i * framesz from the ring's start, but the
	 * kernel starts every block's frames at the block's start: with a block that is not a
	 * whole number of frames, every frame after the first block is read at the wrong place
	 * and the port receives nothing after a few frames (without a word) */
	if (v[1] % v[2] != 0) {
		fprintf(stderr, "mcfan: --vdev %s: blocksz=%" PRIu64 " is not a whole number of "
			"%" PRIu64 "-byte frames (framesz): net_af_packet reads ring frame i at i x "
			"framesz, the kernel puts none across a block's end, so the port would stop "
			"receiving after its first block; give blocksz=%" PRIu64 " (a multiple of "
			"framesz and of the page size)%s\n", arg, v[1], v[2], lcm_u64(v[2], page),
			lcm_u64(v[2], page) > 16 * v[2] ? ", or a framesz that is a multiple of 1024" :
			"");
		return -EINVAL;
	}
	per_block = v[1] / v[2];
	if (v[3] % per_block != 0) {
		fprintf(stderr, "mcfan: --vdev %s: framecnt=%" PRIu64 " is not a whole number of "
			"blocks (%" PRIu64 " frames of %" PRIu64 " bytes a %" PRIu64 "-byte block): "
			"give framecnt=%" PRIu64 "\n", arg, v[3], per_block, v[2], v[1],
			RTE_MAX(per_block, v[3] / per_block * per_block));
		return -EINVAL;
	}
	return 0;
}

static bool
is_driver(const char *arg, const char *a, const char *b)
{
	return strncmp(arg, a, strlen(a)) == 0 || (b != NULL && strncmp(arg, b, strlen(b)) == 0);
}

/* DPDK 22.11 rte_eth_af_packet.c's keys (its valid_arguments[]): the PMD refuses another
 * key with only "vdev_probe(): failed to initialize", at any log level. */
static const char *const afp_keys[] = {"iface", "qpairs", "blocksz", "framesz", "framecnt",
				       "qdisc_bypass"};

/* net_af_packet's arguments: iface= given, every key one it knows; 0 or the error. */
static int
check_afp_keys(const char *arg, const struct rte_kvargs *kv)
{
	unsigned int i, k;

	for (i = 0; kv != NULL && i < kv->count; i++) {
		for (k = 0; k < RTE_DIM(afp_keys); k++)
			if (strcmp(kv->pairs[i].key, afp_keys[k]) == 0)
				break;
		if (k == RTE_DIM(afp_keys)) {
			fprintf(stderr, "mcfan: --vdev %s: '%s' is not a key of net_af_packet "
				"(keys: iface, qpairs, blocksz, framesz, framecnt, qdisc_bypass)\n",
				arg, kv->pairs[i].key);
			return -EINVAL;
		}
	}
	if (kv == NULL || rte_kvargs_get(kv, "iface") == NULL) {
		fprintf(stderr, "mcfan: --vdev %s: net_af_packet needs iface=IFNAME, the interface "
			"it receives on (e.g. net_af_packet0,iface=veth0)\n", arg);
		return -EINVAL;
	}
	return 0;
}

/*
 * net_null's size= (DPDK 22.11 rte_eth_null.c): the length of every frame it makes. Its RX
 * queue setup allocates a frame of that size (size=0: rte_zmalloc of 0 bytes fails, and
 * mcfan said "RX queue setup failed: Cannot allocate memory"), and each mbuf it returns
 * claims size bytes of data (with copy=1 it copies that many into the mbuf): more than an
 * mbuf of mcfan's pool holds would be read past the mbuf's buffer. So 1..mbuf_size
 * (--mbuf-size),
 * decimal as every number mcfan reads (the PMD's strtoul() takes "abc" as 0). 0 or -EINVAL.
 */
static int
check_null_size(const char *arg, const struct rte_kvargs *kv, unsigned int mbuf_size)
{
	const char *s = rte_kvargs_get(kv, "size");
	uint64_t v;

	if (s == NULL || (devarg_u64(s, &v) && v >= 1 && v <= mbuf_size))
		return 0;
	fprintf(stderr, "mcfan: --vdev %s: size=%s is not a frame size net_null can make for "
		"mcfan: give size=1..%u (decimal bytes, at most what an mbuf of mcfan's pool "
		"holds; net_null's default is 64)\n", arg, s, mbuf_size);
	return -EINVAL;
}

/* One --vdev argument; 0 or the error (message printed). mbuf_size: the frame bytes of an
 * mbuf of mcfan's RX pool (--mbuf-size). */
static int
check_one(const char *arg, unsigned int mbuf_size)
{
	bool afp = is_driver(arg, "net_af_packet", "eth_af_packet");
	bool pcap = is_driver(arg, "net_pcap", "eth_pcap");
	const char *comma = strchr(arg, ',');
	struct rte_kvargs *kv;
	const char *v;
	uint64_t fs;
	unsigned int k;
	int ret = 0;

	if (afp && comma == NULL)
		return check_afp_keys(arg, NULL);
	if (is_driver(arg, "net_null", "eth_null") && comma != NULL) {
		kv = rte_kvargs_parse(comma + 1, NULL);
		if (kv == NULL)
			return 0; /* the PMD says what is wrong with its arguments */
		ret = check_null_size(arg, kv, mbuf_size);
		rte_kvargs_free(kv);
		return ret;
	}
	if ((!afp && !pcap) || comma == NULL)
		return 0;
	kv = rte_kvargs_parse(comma + 1, NULL);
	if (kv == NULL)
		return 0; /* the PMD says what is wrong with its arguments */
	ret = afp ? check_afp_keys(arg, kv) : 0;
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
	if (afp && ret == 0)
		ret = check_afp_ring(arg, kv);
	v = afp && ret == 0 ? rte_kvargs_get(kv, "framesz") : NULL;
	if (v != NULL) {
		fs = strtoull(v, NULL, 0);
		/* the PMD's RX queue setup wants the frame's data in one mbuf */
		if (fs > AF_PACKET_HDR && fs - AF_PACKET_HDR > mbuf_size) {
			fprintf(stderr, "mcfan: --vdev %s: framesz=%s gives ring frames of %" PRIu64 " data "
				"bytes, more than an mbuf of mcfan's pool holds (%u): give "
				"framesz=%u or less, or a larger --mbuf-size (%" PRIu64 " or more, up "
				"to %u)\n", arg, v, fs - AF_PACKET_HDR, mbuf_size,
				(unsigned int)RTE_ALIGN_FLOOR(mbuf_size + AF_PACKET_HDR,
							      TPACKET_ALIGNMENT),
				fs - AF_PACKET_HDR, (unsigned int)(UINT16_MAX - RTE_PKTMBUF_HEADROOM));
			ret = -EINVAL;
		}
	}
	rte_kvargs_free(kv);
	return ret;
}

/* The base of EAL's runtime directory (DPDK 22.11 eal_create_runtime_dir()). */
static const char *
runtime_base(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (getuid() == 0)
		return "/var/run";
	return xdg != NULL ? xdg : "/tmp";
}

int
mcfan_prefix_check(int argc, char **argv)
{
	size_t len, max_sock, max_shm, max;
	struct sockaddr_un sa;
	const char *arg, *base = runtime_base();
	char why[512];
	int i;

	/* the socket path RUNDIR/dpdk/PREFIX/dpdk_telemetry.v2 with its NUL in sun_path */
	len = strlen(base) + strlen("/dpdk/") + strlen(TELEMETRY_SOCKET) + 1;
	max_sock = len < sizeof(sa.sun_path) ? sizeof(sa.sun_path) - len : 0;
	/* a reader ring's name, /dev/shm/mcfan.PREFIX.ADDRESS.PORT, within NAME_MAX */
	max_shm = NAME_MAX - RING_NAME_HEAD - RING_NAME_TAIL;
	/* without telemetry there is no such socket (EAL's own mp_socket it truncates) */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--no-telemetry") == 0 && !mcfan_eal_arg_is_value(argc, argv, i))
			max_sock = SIZE_MAX;
	max = RTE_MIN(max_sock, max_shm);
	for (i = 1; i < argc; i++) {
		if ((arg = mcfan_opt_value(argc, argv, &i, PREFIX_OPT)) == NULL)
			continue;
		len = strlen(arg);
		/* a path ("../../etc": EAL would make RUNDIR/dpdk/../../etc its runtime
		 * directory), '%', "." or "..", empty: the rule the reader library and mcfan-top
		 * apply too (mcfan_rd_prefix_check()) */
		if (len <= max && mcfan_rd_prefix_check(arg, why, sizeof(why)) == -EINVAL) {
			fprintf(stderr, "mcfan: --file-prefix: %s\n", why);
			return -EINVAL;
		}
		if (len <= max)
			continue;
		if (max == max_sock)
			fprintf(stderr, "mcfan: --file-prefix '%s': %zu characters, more than the %zu "
				"that work: EAL's telemetry socket %s/dpdk/PREFIX%s must fit a socket "
				"path (%zu bytes, sockaddr_un), else EAL cannot bind it and fails to "
				"start: give a prefix of at most %zu characters (or --no-telemetry)\n",
				arg, len, max, base,
				TELEMETRY_SOCKET, sizeof(sa.sun_path), max);
		else
			fprintf(stderr, "mcfan: --file-prefix '%s': %zu characters, more than the %zu "
				"that work: a reader ring /dev/shm/mcfan.PREFIX.ADDRESS.PORT must fit "
				"a file name (NAME_MAX %d): give a prefix of at most %zu characters\n",
				arg, len, max, NAME_MAX, max);
		return -ENAMETOOLONG;
	}
	return 0;
}

int
mcfan_mem_check(int argc, char **argv)
{
	const char *arg;
	unsigned long mb;
	char *end, eal[64];
	int i, n;

	for (i = 1; i < argc; i++) {
		if ((arg = mcfan_opt_value(argc, argv, &i, MEM_OPT)) == NULL)
			continue;
		/* EAL 22.11 reads -m with atoi(): "1G" is 1 MB, "0x200" and "abc" are 0 (its
		 * default, 64 MB without hugepages), "4294967808" wraps to 512 */
		errno = 0;
		mb = strtoul(arg, &end, 10);
		if (arg[0] >= '0' && arg[0] <= '9' && *end == '\0' && errno == 0 && mb >= 1 &&
		    mb <= INT_MAX)
			continue;
		n = atoi(arg);
		if (n > 0)
			snprintf(eal, sizeof(eal), "%d MB", n);
		else
			snprintf(eal, sizeof(eal), "%s", n == 0 ? "0, EAL's default size" :
				 "a negative size, which EAL fails to allocate");
		fprintf(stderr, "mcfan: -m '%s': not a whole number of megabytes 1..%d (EAL reads "
			"-m with atoi(), so '%s' would be %s): give megabytes in decimal, without "
			"a unit, e.g. -m 512, or -m 1024 for 1 GB\n", arg, INT_MAX, arg, eal);
		return -EINVAL;
	}
	return 0;
}

/* A level as DPDK 22.11's eal_parse_log_priority() reads it (a name or a name's prefix, or
 * a number), restricted to the levels that exist, 1..8: 1..8, else 0 */
static unsigned int
log_level_value(const char *level)
{
	size_t len = strlen(level);
	unsigned long n;
	unsigned int i;
	char *end;

	if (len == 0)
		return 0;
	for (i = 0; i < RTE_DIM(log_levels); i++)
		if (strncmp(log_levels[i], level, len) == 0)
			return i + 1;
	errno = 0;
	n = strtoul(level, &end, 0);
	if (errno != 0 || *end != '\0' || !isdigit((unsigned char)level[0]) || n < 1 ||
	    n > RTE_DIM(log_levels))
		return 0;
	return (unsigned int)n;
}

int
mcfan_log_level_check(int argc, char **argv)
{
	const char *arg, *level, *why;
	char type[256];
	regex_t re;
	size_t n;
	int i;

	for (i = 1; i < argc; i++) {
		if ((arg = mcfan_opt_value(argc, argv, &i, LOG_LEVEL_OPT)) == NULL)
			continue;
		/* as EAL: TYPE-REGEX,LEVEL first, then TYPE-GLOB:LEVEL, else LEVEL */
		level = strchr(arg, ',');
		if (level == NULL)
			level = strchr(arg, ':');
		n = level != NULL ? (size_t)(level - arg) : 0;
		level = level != NULL ? level + 1 : arg;
		why = NULL;
		if (log_level_value(level) == 0) {
			snprintf(type, sizeof(type), "'%s' is not a log level", level);
			why = type;
		} else if (n > 0 && arg[n] == ',') {
			/* EAL compiles the type with regcomp(..., 0) */
			snprintf(type, sizeof(type), "%.*s", (int)n, arg);
			if (n >= sizeof(type) || regcomp(&re, type, 0) != 0) {
				snprintf(type, sizeof(type), "the log type before ',' is not a "
					 "regular expression");
				why = type;
			} else {
				regfree(&re);
			}
		}
		if (why == NULL)
			continue;
		/* EAL 22.11 prints "Invalid log level" and runs on at its default level */
		fprintf(stderr, "mcfan: --log-level '%s': %s: give LEVEL, TYPE:LEVEL (TYPE a glob, e.g. "
			"pmd.net.*:debug) or TYPE,LEVEL (TYPE a regular expression), LEVEL one of emergency, alert, "
			"critical, error, warning, notice, info, debug or 1..8\n", arg, why);
		return -EINVAL;
	}
	return 0;
}

/*
 * A device name given by an earlier --vdev: EAL 22.11 probes the first and drops the other
 * without a word (--vdev net_pcap0,rx_pcap=A --vdev net_pcap0,rx_pcap=B: B's frames were
 * never received, one port). first: the earlier --vdev of that name, or NULL.
 */
static const char *
same_name(int argc, char **argv, int upto, const char *arg)
{
	size_t n = strcspn(arg, ","), m;
	const char *prev;
	int i;

	for (i = 1; i < upto && i < argc; i++) {
		if ((prev = mcfan_opt_value(argc, argv, &i, VDEV_OPT)) == NULL || i >= upto)
			continue;
		m = strcspn(prev, ",");
		if (m == n && strncmp(prev, arg, n) == 0)
			return prev;
	}
	return NULL;
}

int
mcfan_vdev_check(int argc, char **argv, unsigned int mbuf_size)
{
	const char *arg, *prev;
	int i, at, ret;

	for (i = 1; i < argc; i++) {
		at = i;
		if ((arg = mcfan_opt_value(argc, argv, &i, VDEV_OPT)) == NULL)
			continue;
		prev = same_name(argc, argv, at, arg);
		if (prev != NULL) {
			fprintf(stderr, "mcfan: --vdev %s: the device name %.*s is given twice (first "
				"in --vdev %s): EAL would probe the first alone and drop this one "
				"without a word; give each device a name of its own (e.g. %.*s0, "
				"%.*s1)\n", arg, (int)strcspn(arg, ","), arg, prev,
				(int)strcspn(arg, "0123456789,"), arg,
				(int)strcspn(arg, "0123456789,"), arg);
			return -EEXIST;
		}
		ret = check_one(arg, mbuf_size);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int
mcfan_vdev_report_check(int argc, char **argv, const char *report)
{
	struct stat rst, st;
	struct rte_kvargs *kv;
	const char *arg, *comma;
	bool exists, same;
	unsigned int k;
	int i;

	if (report == NULL || report[0] == '\0')
		return 0;
	exists = stat(report, &rst) == 0;
	for (i = 1; i < argc; i++) {
		if ((arg = mcfan_opt_value(argc, argv, &i, VDEV_OPT)) == NULL ||
		    !is_driver(arg, "net_pcap", "eth_pcap") || (comma = strchr(arg, ',')) == NULL)
			continue;
		kv = rte_kvargs_parse(comma + 1, NULL);
		if (kv == NULL)
			continue; /* the PMD says what is wrong with its arguments */
		for (k = 0; k < kv->count; k++) {
			if (strcmp(kv->pairs[k].key, "rx_pcap") != 0 &&
			    strcmp(kv->pairs[k].key, "tx_pcap") != 0)
				continue;
			/* the same file by device and inode; a tx_pcap the PMD has yet to create,
			 * by its name */
			same = exists ? stat(kv->pairs[k].value, &st) == 0 &&
				st.st_dev == rst.st_dev && st.st_ino == rst.st_ino :
				strcmp(kv->pairs[k].value, report) == 0;
			if (!same)
				continue;
			fprintf(stderr, "mcfan: --report-json: '%s' is the %s file of --vdev %s: the "
				"report would replace it at exit; give the report a file of its own\n",
				report, kv->pairs[k].key, arg);
			rte_kvargs_free(kv);
			return -EINVAL;
		}
		rte_kvargs_free(kv);
	}
	return 0;
}

int
mcfan_proc_type_check(int argc, char **argv)
{
	const char *v;
	int i;

	for (i = 1; i < argc; i++) {
		if (mcfan_eal_arg_is_value(argc, argv, i))
			continue;
		if (strcmp(argv[i], "--proc-type") == 0 && i + 1 >= argc) {
			/* last EAL argument, no value: EAL's getopt would print its usage */
			fprintf(stderr, "mcfan: --proc-type needs a value: mcfan runs as EAL's "
				"primary process; leave --proc-type out (or give primary)\n");
			return -EINVAL;
		}
		/* EAL's eal_parse_proc_type(): "primary", any case, is the one mcfan runs as */
		if ((v = mcfan_opt_value(argc, argv, &i, "--proc-type")) == NULL ||
		    strcasecmp(v, "primary") == 0)
			continue;
		if (strcasecmp(v, "secondary") != 0 && strcasecmp(v, "auto") != 0) {
			/* before: EAL's "Invalid process type specified", its usage and mcfan's
			 * "EAL initialisation failed" after it */
			fprintf(stderr, "mcfan: --proc-type '%s': not a process type (EAL's are "
				"primary, secondary and auto), and mcfan runs as EAL's primary "
				"process; leave --proc-type out (or give primary)\n", v);
			return -EINVAL;
		}
		fprintf(stderr, "mcfan: --proc-type %s: mcfan runs as EAL's primary process (it "
			"configures its ports and makes its rings and pool)%s; to look into a "
			"running mcfan use dpdk-telemetry.py -f PREFIX, mcfan-top, mcfan-read or "
			"dpdk-dumpcap; leave --proc-type out (or give primary)\n", v,
			strcasecmp(v, "auto") == 0 ? ", and auto makes it a secondary when a primary of "
			"its file prefix runs" : "");
		return -EINVAL;
	}
	return 0;
}
