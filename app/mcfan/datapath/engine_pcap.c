/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Worker engine "pcap": every copy into pcapng files, one series of files per group and
 * worker (docs/delivery.md).
 *
 *   --worker-engine pcap:DIR[,rotate-mb=N][,rotate-s=S]
 *
 * The worker only enqueues each copy to its ring (datapath/engine_pcap.h); the writer thread
 * (control/pcap.c) formats and writes them and frees the mbufs. A full ring refuses the copy:
 * freed at once and counted pcap_full. Every copy ends as pcap_written, pcap_full or
 * pcap_write_failed once the writer has drained the ring (at stop).
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/magic.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_seqcount.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "datapath/engine.h"
#include "datapath/engine_pcap.h"

#define ROTATE_MB_MAX (1u << 20)  /* 1 TiB files */
#define ROTATE_S_MAX 604800       /* a week */
#define MIB (1024u * 1024u)
#define SEQ_TRIES 1000

struct pcap_args {
	char dir[PATH_MAX];
	uint64_t rotate_mb;
	uint64_t rotate_s;
};

/* The file system type of the mount whose device is dev (/proc/self/mountinfo's "MAJ:MIN"
 * and the type after " - "), into type; false if none is found. */
static bool
mount_type(dev_t dev, char *type, size_t len)
{
	char line[4096], *sep;
	unsigned int maj, min;
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "r");
	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [FIELDS...] - FSTYPE SOURCE ... */
		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 || maj != major(dev) ||
		    min != minor(dev) || (sep = strstr(line, " - ")) == NULL)
			continue;
		found = sscanf(sep + 3, "%63s", type) == 1 && strlen(type) < len;
	}
	fclose(f);
	return found;
}

/*
 * A directory on a file system that is no place for capture files: procfs and sysfs (by
 * statfs(2)'s f_type) show the kernel's state; devtmpfs (/dev: its mount's type, since it
 * reports TMPFS_MAGIC as any tmpfs does) holds the device nodes, where root may make files
 * that fill the RAM and sit among the devices. 0, or -EINVAL with err saying so.
 */
static int
check_dir_fs(const char *dir, const struct stat *st, char *err, size_t len)
{
	const char *what = NULL;
	struct statfs fs;
	char type[64];

	if (statfs(dir, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC)
		what = "procfs (the kernel's process information)";
	else if (statfs(dir, &fs) == 0 && fs.f_type == SYSFS_MAGIC)
		what = "sysfs (the kernel's objects)";
	else if (mount_type(st->st_dev, type, sizeof(type)) && strcmp(type, "devtmpfs") == 0)
		what = "devtmpfs (the device nodes of /dev)";
	if (what == NULL)
		return 0;
	snprintf(err, len, "directory '%s' is on %s, no file system for capture files: give a "
		 "directory on a disk's file system or a tmpfs (e.g. pcap:/var/tmp/cap)", dir, what);
	return -EINVAL;
}

/* Can a file be made in dir? 0, or -errno with err saying so. */
static int
probe_file(const char *dir, char *err, size_t len)
{
	char path[PATH_MAX];
	int fd, e;

	if (snprintf(path, sizeof(path), "%s/.mcfan-probe-XXXXXX", dir) >= (int)sizeof(path)) {
		snprintf(err, len, "directory '%s': its path is too long", dir);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT) /* the directory is there: procfs, sysfs say ENOENT for a new file */
			snprintf(err, len, "directory '%s' is not writable: its file system makes no "
				 "new file in it (%s: procfs and sysfs say so)", dir, strerror(e));
		else
			snprintf(err, len, "directory '%s' is not writable: no file can be made in "
				 "it (%s)", dir, strerror(e));
		return -e;
	}
	close(fd);
	unlink(path);
	return 0;
}

/* The arguments are split at every ',', a DIR's too: the length of the shortest prefix of
 * args longer than its first argument that ends at a ',' (or at the end) and names a
 * directory, or 0. */
static size_t
comma_dir_len(const char *args)
{
	char path[MCFAN_ENGINE_ARGS_MAX + 1];
	const char *c = strchr(args, ','), *next;
	struct stat st;
	size_t n;

	while (c != NULL) {
		next = strchr(c + 1, ',');
		n = next != NULL ? (size_t)(next - args) : strlen(args);
		snprintf(path, sizeof(path), "%.*s", (int)n, args);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return n;
		c = next;
	}
	return 0;
}

/* err += what comma_dir_len() found, if anything */
static void
comma_dir_hint(const char *args, char *err, size_t len)
{
	size_t n = comma_dir_len(args), used = strlen(err);

	if (n != 0 && used < len)
		snprintf(err + used, len - used, " ('%.*s' is a directory, but the arguments are "
			 "split at every ',': give a DIR without a ',', e.g. a symlink to it)",
			 (int)n, args);
}

/* err += why a DIR that starts with '~' was not found: the shell expands '~' at the start of
 * a word only, not after "pcap:" (nor does a config file) */
static void
tilde_hint(const char *dir, char *err, size_t len)
{
	size_t used = strlen(err);

	if (dir[0] == '~' && used < len)
		snprintf(err + used, len - used, " (a '~' is not expanded after 'pcap:': give the "
			 "whole path, e.g. pcap:$HOME%s)", dir + 1);
}

static int
pcap_parse(const char *args, struct pcap_args *a, char *err, size_t len)
{
	char buf[MCFAN_ENGINE_ARGS_MAX + 1], *tok[MCFAN_ENGINE_ARGS_TOKENS], *val;
	struct stat st;
	int n, i;

	memset(a, 0, sizeof(*a));
	if (args[0] == '\0') {
		snprintf(err, len, "no directory: give pcap:DIR (an existing, writable directory)");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", args);
	n = mcfan_engine_args_split(buf, tok, RTE_DIM(tok), err, len);
	if (n < 0)
		return n;
	if (stat(tok[0], &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, len, "'%s' is not a directory", tok[0]);
		comma_dir_hint(args, err, len);
		tilde_hint(tok[0], err, len);
		return -EINVAL;
	}
	if (check_dir_fs(tok[0], &st, err, len) < 0)
		return -EINVAL;
	if (access(tok[0], W_OK | X_OK) != 0) {
		snprintf(err, len, "directory '%s' is not writable", tok[0]);
		return -EINVAL;
	}
	/* access() says yes to root on any directory of a file system mounted read-write,
	 * procfs and sysfs too: make (and remove) a file to be sure */
	if (probe_file(tok[0], err, len) < 0)
		return -EINVAL;
	snprintf(a->dir, sizeof(a->dir), "%s", tok[0]);
	for (i = 1; i < n; i++) {
		val = strchr(tok[i], '=');
		if (val == NULL) {
			snprintf(err, len, "'%s' is not KEY=VALUE (keys: rotate-mb, rotate-s)",
				 tok[i]);
			comma_dir_hint(args, err, len);
			return -EINVAL;
		}
		*val++ = '\0';
		if (strcmp(tok[i], "rotate-mb") == 0) {
			if (mcfan_parse_u64(val, 1, ROTATE_MB_MAX, &a->rotate_mb) < 0) {
				snprintf(err, len, "rotate-mb '%s' is not allowed: MiB, 1..%u", val,
					 ROTATE_MB_MAX);
				return -EINVAL;
			}
		} else if (strcmp(tok[i], "rotate-s") == 0) {
			if (mcfan_parse_u64(val, 1, ROTATE_S_MAX, &a->rotate_s) < 0) {
				snprintf(err, len, "rotate-s '%s' is not allowed: seconds, 1..%u", val,
					 ROTATE_S_MAX);
				return -EINVAL;
			}
		} else {
			snprintf(err, len, "'%s' is not a pcap argument (rotate-mb, rotate-s)",
				 tok[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static int
pcap_args_check(const char *args, char *err, size_t len)
{
	struct pcap_args a;

	return pcap_parse(args, &a, err, len);
}

/* Two pcap outputs in one directory (the same device and inode, however spelled) would
 * write the same file names, DIR/mcfan-GROUP-wLCORE-SEQ.pcapng, once a group moves from
 * one to the other (set engine) or an lcore sends all its copies to one (set engine
 * LCORE). */
static bool
pcap_args_collide(const char *a, const char *b, char *place, size_t len)
{
	struct pcap_args pa, pb;
	struct stat sa, sb;
	char err[128];

	if (pcap_parse(a, &pa, err, sizeof(err)) < 0 || pcap_parse(b, &pb, err, sizeof(err)) < 0)
		return false; /* args_check refuses them first */
	if (stat(pa.dir, &sa) != 0 || stat(pb.dir, &sb) != 0)
		return false;
	if (sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)
		return false;
	snprintf(place, len, "directory %s", pa.dir);
	return true;
}

static int
pcap_configure(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int inst,
	       const char *args, void **priv)
{
	int socket = (int)rte_lcore_to_socket_id(lc->lcore_id);
	char err[256], name[RTE_RING_NAMESIZE];
	struct mcfan_pcap_lcore *p;
	struct pcap_args a;

	RTE_SET_USED(app);
	if (pcap_parse(args, &a, err, sizeof(err)) < 0) {
		fprintf(stderr, "mcfan: %s: pcap: %s\n", MCFAN_ENGINE_OPTION(inst), err);
		return -EINVAL;
	}
	p = rte_zmalloc_socket("mcfan_pcap", sizeof(*p), RTE_CACHE_LINE_SIZE, socket);
	if (p == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "mcfan_pcap%u_%u", lc->lcore_id, inst);
	p->ring = rte_ring_create(name, MCFAN_PCAP_RING_SIZE, socket,
				  RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (p->ring == NULL) {
		fprintf(stderr, "mcfan: pcap engine on lcore %u: cannot create its ring: %s\n",
			lc->lcore_id, rte_strerror(rte_errno));
		rte_free(p);
		return -ENOMEM;
	}
	p->lcore_id = lc->lcore_id;
	snprintf(p->dir, sizeof(p->dir), "%s", a.dir);
	p->rotate_bytes = a.rotate_mb * MIB;
	p->rotate_s = a.rotate_s;
	p->inst = inst;
	*priv = p;
	return 0;
}

static void
pcap_release(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv)
{
	struct mcfan_pcap_lcore *p = priv;
	struct rte_mbuf *m;

	RTE_SET_USED(app);
	RTE_SET_USED(lc);
	if (p == NULL)
		return;
	/* the writer has drained it at stop; a start that failed before may leave some */
	while (rte_ring_sc_dequeue(p->ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(p->ring);
	rte_free(p);
}

static void
pcap_deliver(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv,
	     struct rte_mbuf **pkts, uint16_t n)
{
	struct mcfan_pcap_lcore *p = priv;
	unsigned int k;

	RTE_SET_USED(app);
	RTE_SET_USED(lc);
	k = rte_ring_sp_enqueue_burst(p->ring, (void **)pkts, n, NULL);
	if (k < n)
		rte_pktmbuf_free_bulk(&pkts[k], n - k);
	rte_seqcount_write_begin(&p->wk.seq);
	p->wk.queued += k;
	p->wk.full += n - k;
	rte_seqcount_write_end(&p->wk.seq);
}

void
mcfan_pcap_counters_read(const struct mcfan_pcap_lcore *p, struct mcfan_pcap_wk_stats *wk,
			 struct mcfan_pcap_wr_stats *wr)
{
	unsigned int tries = 0;
	uint32_t sn;

	do {
		sn = rte_seqcount_read_begin(&p->wk.seq);
		*wk = p->wk;
	} while (rte_seqcount_read_retry(&p->wk.seq, sn) && ++tries < SEQ_TRIES);
	tries = 0;
	do {
		sn = rte_seqcount_read_begin(&p->wr.seq);
		*wr = p->wr;
	} while (rte_seqcount_read_retry(&p->wr.seq, sn) && ++tries < SEQ_TRIES);
}

static unsigned int
pcap_counters(const struct mcfan_app *app, const struct mcfan_lcore *lc, const void *priv,
	      struct mcfan_engine_counter *out, unsigned int max)
{
	const struct mcfan_pcap_lcore *p = priv;
	struct mcfan_pcap_wk_stats wk;
	struct mcfan_pcap_wr_stats wr;

	RTE_SET_USED(app);
	RTE_SET_USED(lc);
	if (p == NULL || max < 7)
		return 0;
	mcfan_pcap_counters_read(p, &wk, &wr);
	out[0] = (struct mcfan_engine_counter){"pcap_written", wr.written,
					       MCFAN_ENGINE_CTR_DELIVERED};
	out[1] = (struct mcfan_engine_counter){"pcap_full", wk.full, MCFAN_ENGINE_CTR_DROP};
	out[2] = (struct mcfan_engine_counter){"pcap_write_failed", wr.write_failed,
					       MCFAN_ENGINE_CTR_DROP};
	/* in the ring, not yet written (0 once the writer has drained it at stop) */
	out[3] = (struct mcfan_engine_counter){"pcap_pending",
		wk.queued - RTE_MIN(wk.queued, wr.written + wr.write_failed),
		MCFAN_ENGINE_CTR_INFO};
	out[4] = (struct mcfan_engine_counter){"pcap_errors", wr.errors, MCFAN_ENGINE_CTR_INFO};
	out[5] = (struct mcfan_engine_counter){"pcap_files", wr.files, MCFAN_ENGINE_CTR_INFO};
	out[6] = (struct mcfan_engine_counter){"pcap_bytes", wr.bytes, MCFAN_ENGINE_CTR_INFO};
	return 7;
}

static const struct mcfan_engine engine_pcap = {
	.name = "pcap",
	.side = MCFAN_ENGINE_WORKER,
	.help = "pcap:DIR[,rotate-mb=N,rotate-s=S]: every copy into pcapng files per group "
		"(written by a control-side thread)",
	.deliver = pcap_deliver,
	.args_check = pcap_args_check,
	.configure = pcap_configure,
	.release = pcap_release,
	.counters = pcap_counters,
	.args_collide = pcap_args_collide,
};

MCFAN_ENGINE_REGISTER(engine_pcap);

struct mcfan_pcap_lcore *
mcfan_pcap_of(const struct mcfan_app *app, const struct mcfan_lcore *lc, unsigned int inst)
{
	if (inst >= app->n_inst || app->inst_engine[inst] != &engine_pcap)
		return NULL;
	return lc->inst_priv[inst];
}
