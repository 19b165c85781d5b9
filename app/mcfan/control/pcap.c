/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The pcap engine's writer (datapath/engine_pcap.h, docs/delivery.md): one pthread on the control
 * side (it inherits the main lcore's CPU set, never a data lcore's) that takes the copies the
 * pcap workers enqueued, writes each into the pcapng file (RFC draft-ietf-opsawg-pcapng;
 * rte_pcapng) of its group and worker, rotates files by size and by time, and frees every
 * mbuf. It may block on the disk: the workers never wait for it (a full ring is pcap_full).
 *
 * Files: DIR/mcfan-GROUP-wLCORE-SEQ.pcapng, GROUP as "239.9.9.1_3999" (':' '[' ']' as '_'),
 * SEQ from 00001 per group and worker. Each file starts with rte_pcapng's section header and
 * one interface description per port; each frame is an enhanced packet block on the port it
 * came from, its timestamp the RX TSC of the burst (ns since the epoch in the file).
 *
 * A file's end. Besides rotation and stop, the file of a membership (counter slot g,
 * join_seq J) on ring R is closed once the writer has taken and written every copy of it
 * that the worker queued into R, and never before (a copy after the close would need the
 * membership's name again, which app slot_history forgets after MCFAN_SLOT_HISTORY reuses
 * of the slot). The order that makes this exact:
 *  1. the leave publishes the group table; after the RCU grace period no RX lcore tags a
 *     frame with (g, J);
 *  2. the slot drain (control/groups.c, lib/group/mcfan_slots.h) waits for the RX to worker
 *     rings' consumer tails and then for each worker's handed counter, which the worker step
 *     advances (release) after its engines' deliver() returned, so after pcap_deliver()'s
 *     enqueue into R (ws->frames is counted before deliver(): a drain that waited for it
 *     could end while a worker still held copies of (g, J) not yet in R, and the file was
 *     closed early: the lagging-writer failure of an earlier attempt). Hosted workers are
 *     no different: their host's thread runs their step and advances their counter;
 *  3. once the drain ended (the counters read with acquire), mcfan_pcap_drained() reads every
 *     pcap ring's producer tail: every copy of (g, J) is before it. It posts (g, J, tails)
 *     under app ctl_lock and moves post_gen (release);
 *  4. this thread sees post_gen move (acquire, once a pass), takes the posts under the lock
 *     (posts_take()) and arms the slot's file of every ring; after each burst of R, once its
 *     own consumer position has reached R's tail (files_close_ended()), it closes the file
 *     if it still is (g, J)'s or an earlier membership's of g: a later group's in the slot
 *     (its copies came first, file_follow()) is left open.
 * The files, their state and the posts once taken are this thread's alone; the control
 * side only writes the posts. Nothing on the data path locks or waits: the workers' part
 * is one release store a step. A file closed so keeps its group and number: a rejoin in the
 * same slot numbers on, one in another slot after the group's highest (file_open()).
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pcapng.h>
#include <rte_ring.h>
#include <rte_seqcount.h>

#include "mcfan.h"
#include "log.h"
#include "datapath/engine_pcap.h"
#include "control/pcap.h"
#include "mcfan_tsclock.h"

#define WRITER_BURST 64
#define WRITER_IDLE_US 1000        /* sleep when every ring was empty */
#define COPY_POOL_MBUFS 1023       /* rte_pcapng_copy's mbufs: one burst in hand at a time */
#define PCAP_NS_PER_S 1000000000ull
/* The start line's directories, bytes: a longer list is cut. */
#define PCAP_DIRS_TEXT_MAX 1024
/* Sequence numbers tried past existing files before a file of a group counts as failed. */
#define SEQ_PROBE_MAX 100000
/* A SEQ in DIR above this is no file of a series (last_seq_in_dir): numbering on after it
 * would leave the unsigned range. */
#define SEQ_SCAN_MAX 1000000000ul
/* Descriptors besides the pcap files: EAL's, the PMDs', telemetry, metrics, reader rings. */
#define NOFILE_OTHERS 256

/* One open file of a (pcap lcore, group slot). */
struct pcap_file {
	rte_pcapng_t *pc;
	int fd;                  /* pc's descriptor (rte_pcapng_close() closes it) */
	uint64_t bytes;          /* written so far, bytes */
	uint64_t frames;         /* copies written into it so far */
	uint64_t opened_ns;      /* CLOCK_MONOTONIC at open */
	uint64_t last_ts_ns;     /* the last block's time: the next is never earlier */
	unsigned int seq;        /* of the last file opened, from 1 */
	uint32_t join_seq;       /* the membership grp names (mcfan_group_entry); 0 = none yet */
	uint32_t unknown_seq;    /* the last membership that could not be named (logged once) */
	char grp[MCFAN_GROUP_STR_MAX]; /* the group text in the open file's name */
	char grp_text[MCFAN_GROUP_STR_MAX]; /* the group as written (its ':', '[', ']') */
	bool failed;             /* the last open failed: retried on the next copy */
	/* The end of memberships of the slot (files_close_ended()): the slot drain posted that
	 * its memberships up to close_join are over; once the ring's consumer position has
	 * reached close_tail (its producer tail at the post), no copy of them is left in it:
	 * the file is closed if it still is one of theirs (join_seq <= close_join). */
	bool close_armed;
	uint32_t close_join;
	uint32_t close_tail;
	uint64_t lost;           /* copies pcap_write_failed (a failed open, copy or write)
				  * since its last file was made */
};

struct pcap_writer {
	struct mcfan_app *app;
	struct mcfan_pcap_lcore *lc[RTE_MAX_LCORE * MCFAN_ENGINE_INST_MAX];
	unsigned int n;
	struct pcap_file *files;           /* n x MCFAN_MAX_GROUPS */
	struct seq_table *seqs;            /* n: the series in each one's DIR at its start */
	struct rte_mempool *pool;          /* rte_pcapng_copy's */
	pthread_t thread;
	bool running;
	/* the copies' RX TSC to CLOCK_REALTIME: a pair taken again every second */
	struct mcfan_tsclock clock;
	/* W: mcfan_pcap_stop (main lcore), release. R: the writer thread, acquire. */
	struct mcfan_atomic_flag stop;
	/* The writer's: files of each ring (n) with close_armed; its last post_gen taken. */
	unsigned int *armed;
	uint32_t seen_gen;
	/* The slot drain's posts (mcfan_pcap_drained(), control lcore), taken by the writer
	 * (posts_take()); both under app ctl_lock. post_slot[0..n_post-1]: the slots posted
	 * and not taken yet, each once; post_join[g]: the newest membership of slot g posted
	 * (0: none pending); post_tail[pi * MCFAN_MAX_GROUPS + g]: ring pi's producer tail at
	 * that post. A later post of a slot replaces an earlier one (a newer membership and
	 * later tails close the earlier membership's file too, a little later). */
	uint16_t post_slot[MCFAN_MAX_GROUPS];
	unsigned int n_post;
	uint32_t post_join[MCFAN_MAX_GROUPS];
	uint32_t *post_tail;
	/* W: mcfan_pcap_drained() under ctl_lock, release, after its post. R: the writer every
	 * pass, acquire: when it moved, posts_take() takes the lock. */
	struct mcfan_atomic_u32 post_gen;
};

static struct pcap_writer writer;

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * PCAP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* The group text for a file name of membership join_seq of counter slot g (the group
 * that held the slot then, joined or left since: app slot_history), and into text (of len
 * bytes too) the group as written; false if that membership is too old to be known (the
 * slot was reused MCFAN_SLOT_HISTORY times since). */
static bool
group_name(const struct mcfan_app *app, uint16_t g, uint32_t join_seq, char *buf, char *text,
	   size_t len)
{
	const struct mcfan_slot_history *h = &app->slot_history[g];
	struct mcfan_flow_key key;
	bool found = false;
	unsigned int i;
	char *c;

	mcfan_ctl_state_lock(app);
	for (i = 0; i < MCFAN_SLOT_HISTORY && join_seq != 0; i++) {
		if (h->join_seq[i] == join_seq) {
			key = h->key[i];
			found = true;
			break;
		}
	}
	mcfan_ctl_state_unlock(app);
	if (!found || mcfan_group_format(&key, buf, len) < 0)
		return false;
	snprintf(text, len, "%s", buf);
	for (c = buf; *c != '\0'; c++)
		if (*c == ':' || *c == '[' || *c == ']')
			*c = '_';
	return true;
}

static void
wr_count(struct mcfan_pcap_lcore *p, uint64_t written, uint64_t failed, uint64_t errors,
	 uint64_t files, uint64_t bytes)
{
	rte_seqcount_write_begin(&p->wr.seq);
	p->wr.written += written;
	p->wr.write_failed += failed;
	p->wr.errors += errors;
	p->wr.files += files;
	p->wr.bytes += bytes;
	rte_seqcount_write_end(&p->wr.seq);
}

/* The path of file seq of group text grp of p; false if it does not fit. */
static bool
file_path(const struct mcfan_pcap_lcore *p, const char *grp, unsigned int seq, char *path,
	  size_t len)
{
	int n = snprintf(path, len, "%s/mcfan-%s-w%u-%05u.pcapng", p->dir, grp, p->lcore_id, seq);

	return n >= 0 && (size_t)n < len;
}

/* The series already in DIR at the first file of a pcap output on a worker lcore: each
 * file name's prefix (mcfan-GROUP-wLCORE-, without SEQ.pcapng) and the highest SEQ seen. */
struct seq_entry {
	char *prefix;
	unsigned int seq;
};

struct seq_table {
	struct seq_entry *e;     /* sorted by prefix, one entry a prefix */
	size_t n;
	bool built;              /* DIR was read (retried at the next file until it can be) */
};

static int
seq_entry_cmp(const void *a, const void *b)
{
	const struct seq_entry *x = a, *y = b;
	int c = strcmp(x->prefix, y->prefix);

	if (c != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
seq_prefix_cmp(const void *a, const void *b)
{
	return strcmp(((const struct seq_entry *)a)->prefix, ((const struct seq_entry *)b)->prefix);
}

/* name as MCFAN-SERIES-PREFIX SEQ ".pcapng": the length of its prefix (up to its last '-')
 * and *seq; 0 when name is no file of a series. */
static size_t
series_name_split(const char *name, unsigned int *seq)
{
	static const char suffix[] = ".pcapng";
	size_t len = strlen(name), end, k;
	unsigned long v;

	if (strncmp(name, "mcfan-", 6) != 0 || len < sizeof(suffix) + 7 ||
	    strcmp(name + len - (sizeof(suffix) - 1), suffix) != 0)
		return 0;
	end = len - (sizeof(suffix) - 1);
	for (k = end; k > 0 && isdigit((unsigned char)name[k - 1]); k--)
		;
	if (k == end || k < 7 || name[k - 1] != '-' || end - k > 10)
		return 0;
	v = strtoul(name + k, NULL, 10);
	if (v > SEQ_SCAN_MAX)
		return 0;
	*seq = (unsigned int)v;
	return k;
}

/* Read DIR once into t: every series' highest SEQ (one pass, however many groups need it). */
static void
seq_table_build(struct seq_table *t, const char *dir_path)
{
	struct seq_entry *e, *grown;
	const struct dirent *de;
	size_t cap = 0, n = 0, i, k, plen;
	unsigned int seq;
	DIR *dir;

	dir = opendir(dir_path);
	if (dir == NULL)
		return;
	e = NULL;
	while ((de = readdir(dir)) != NULL) {
		plen = series_name_split(de->d_name, &seq);
		if (plen == 0)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 64 : 2 * cap;
			grown = realloc(e, cap * sizeof(*e));
			if (grown == NULL)
				break;
			e = grown;
		}
		e[n].prefix = strndup(de->d_name, plen);
		if (e[n].prefix == NULL)
			break;
		e[n++].seq = seq;
	}
	closedir(dir);
	if (n > 1)
		qsort(e, n, sizeof(*e), seq_entry_cmp);
	/* one entry a prefix: its last after the sort, the highest SEQ */
	for (i = 0, k = 0; i < n; i++) {
		if (i + 1 < n && strcmp(e[i].prefix, e[i + 1].prefix) == 0) {
			free(e[i].prefix);
			continue;
		}
		e[k++] = e[i];
	}
	t->e = e;
	t->n = k;
	t->built = true;
}

static void
seq_table_free(struct seq_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->e[i].prefix);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/*
 * The highest SEQ of the files DIR/mcfan-GROUP-wLCORE-SEQ.pcapng of (p, group text grp) that
 * were in DIR when t was read (at the first file of p's output): an earlier run's. 0 when
 * there is none, or DIR cannot be read (file_open then finds the next free name by O_EXCL
 * alone; so it skips this run's files of an earlier membership). A restart numbers on after
 * it, so that the names of a series sort in time order even when its oldest files were
 * removed (the first free number would go between them). DIR is read once per output and
 * worker lcore, not once per group: 20,000 files take about 20 ms to read.
 */
static unsigned int
last_seq_in_dir(struct seq_table *t, const struct mcfan_pcap_lcore *p, const char *grp)
{
	struct seq_entry key, *hit;
	char prefix[64 + MCFAN_GROUP_STR_MAX];
	int n;

	n = snprintf(prefix, sizeof(prefix), "mcfan-%s-w%u-", grp, p->lcore_id);
	if (n < 0 || (size_t)n >= sizeof(prefix))
		return 0;
	if (!t->built)
		seq_table_build(t, p->dir);
	if (t->n == 0)
		return 0;
	key.prefix = prefix;
	key.seq = 0;
	/* the entry of prefix, if any: compared by prefix alone (one entry a prefix) */
	hit = bsearch(&key, t->e, t->n, sizeof(*t->e), seq_prefix_cmp);
	return hit != NULL ? hit->seq : 0;
}

/* Open the next file of (p, group f->grp); false on failure (counted, logged). The first
 * file of a group (f->seq 0) numbers on after the group's highest in DIR. pcap_files
 * counts it once its first frame is wholly written (write_one). */
static bool
file_open(struct seq_table *t, struct mcfan_pcap_lcore *p, struct pcap_file *f)
{
	char path[PATH_MAX], comment[64 + MCFAN_GROUP_STR_MAX];
	const char *grp = f->grp;
	unsigned int tries;
	int fd;

	/* after the group's files of an earlier run or membership (whose state was another
	 * counter slot's); never over an existing file: the next free number (a file made
	 * since the scan, by another process) */
	if (f->seq == 0)
		f->seq = last_seq_in_dir(t, p, grp);
	for (tries = 0;; tries++) {
		if (!file_path(p, grp, f->seq + 1, path, sizeof(path))) {
			errno = ENAMETOOLONG;
			fd = -1;
			break;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST || tries >= SEQ_PROBE_MAX)
			break;
		f->seq++;
	}
	if (fd < 0) {
		if (!f->failed)
			MCFAN_LOG(ERR, "pcap: cannot create %s: %s; its copies count as "
				  "pcap_write_failed\n", path, strerror(errno));
		f->failed = true;
		wr_count(p, 0, 0, 1, 0, 0);
		return false;
	}
	/* the group as --groups has it, not as the file name (before: 239.9.9.1_3999) */
	snprintf(comment, sizeof(comment), "mcfan worker lcore %u, group %s, file %u",
		 p->lcore_id, f->grp_text, f->seq + 1);
	rte_errno = 0;
	f->pc = rte_pcapng_fdopen(fd, NULL, NULL, "mcfan " MCFAN_VERSION, comment);
	if (f->pc == NULL) {
		if (!f->failed)
			/* rte_pcapng_fdopen() leaves rte_errno 0 when its header write was short
			 * (DPDK 22.11): a full disk, as a rule */
			MCFAN_LOG(ERR, "pcap: cannot start %s: %s; removed, its copies count as "
				  "pcap_write_failed\n", path, rte_errno != 0 ?
				  rte_strerror(rte_errno) : "its section header was not written "
				  "whole (disk full?)");
		/* a file without a whole section header holds no frame: not left behind */
		close(fd);
		unlink(path);
		f->failed = true;
		wr_count(p, 0, 0, 1, 0, 0);
		return false;
	}
	if (f->lost != 0)
		/* the failure was logged; so is its end, with the group's loss */
		MCFAN_LOG(WARNING, "pcap: writing again into %s (group %s, lcore %u) after %"
			  PRIu64 " copies counted pcap_write_failed\n", path, f->grp_text,
			  p->lcore_id, f->lost);
	f->lost = 0;
	f->fd = fd;
	f->seq++;
	f->failed = false;
	f->bytes = 0;
	f->frames = 0;
	f->opened_ns = mono_ns();
	return true;
}

/* Close the open file of f. A file that holds no whole frame (its first write failed, or
 * cut short, or its only copy could not be made) is removed and its sequence number is
 * given to the next file: no file without a frame is left behind. */
static void
file_close(const struct mcfan_pcap_lcore *p, struct pcap_file *f)
{
	char path[PATH_MAX];

	if (f->pc == NULL)
		return;
	rte_pcapng_close(f->pc); /* closes the descriptor too */
	f->pc = NULL;
	if (f->bytes != 0)
		return;
	if (file_path(p, f->grp, f->seq, path, sizeof(path)) && unlink(path) != 0)
		MCFAN_LOG(ERR, "pcap: cannot remove %s (no frame in it): %s\n", path,
			  strerror(errno));
	f->seq--;
}

/* Log the copies of f's group lost since its last file was made (f->lost), when no later
 * file of it will be: at stop, when another group takes f, or when its membership is over
 * (files_close_ended()). */
static void
lost_log(const struct mcfan_pcap_lcore *p, struct pcap_file *f)
{
	if (f->lost == 0)
		return;
	MCFAN_LOG(WARNING, "pcap: group %s (lcore %u): %" PRIu64 " copies counted "
		  "pcap_write_failed since its last file could be made\n", f->grp_text, p->lcore_id,
		  f->lost);
	f->lost = 0;
}

/*
 * Make f the file of membership join_seq of slot g (the copy's: mcfan_mbuf_meta). The slot
 * drain waits for the workers, not for this writer, so copies of a left group may still be
 * in the ring when a new group holds its slot: they go on into the left group's file, and
 * the new group's first copy closes it and starts the new group's own (when the writer
 * keeps up, files_close_ended() has closed it before). False when the membership is too
 * old to name (counted pcap_write_failed by the caller, logged once).
 */
static bool
file_follow(struct pcap_writer *w, struct mcfan_pcap_lcore *p, struct pcap_file *f, uint16_t g,
	    uint32_t join_seq)
{
	char grp[MCFAN_GROUP_STR_MAX], text[MCFAN_GROUP_STR_MAX];

	if (f->join_seq == join_seq)
		return true;
	if (!group_name(w->app, g, join_seq, grp, text, sizeof(grp))) {
		if (f->unknown_seq != join_seq) {
			MCFAN_LOG(ERR, "pcap: copies of a left group of counter slot %u (lcore %u) "
				  "whose name is no longer known (the slot was reused %u times "
				  "since) count as pcap_write_failed\n", g, p->lcore_id,
				  MCFAN_SLOT_HISTORY);
			f->unknown_seq = join_seq;
			wr_count(p, 0, 0, 1, 0, 0);
		}
		return false;
	}
	file_close(p, f);
	if (strcmp(grp, f->grp) != 0) {
		lost_log(p, f);
		f->seq = 0; /* numbered as that group's files (file_open() skips used ones) */
	}
	memcpy(f->grp, grp, sizeof(f->grp));
	memcpy(f->grp_text, text, sizeof(f->grp_text));
	f->join_seq = join_seq;
	f->failed = false;
	return true;
}

/* Take the writer's (TSC, CLOCK_REALTIME) pair now: at start and once a second, so the
 * blocks' times follow the system clock (tcpdump's) and do not drift from it by the TSC
 * rate's error (before: one pair at start, 0.6 ppm on the test host, 2 ms an hour). */
static void
clock_sync(struct pcap_writer *w)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	mcfan_tsclock_sync(&w->clock, rte_rdtsc(),
			   (uint64_t)now.tv_sec * PCAP_NS_PER_S + (uint64_t)now.tv_nsec);
}

/*
 * The copy's time, ns since the epoch, from the writer's clock (mcfan_tsclock.h), never
 * before the group's last block (a sync steps the time by up to what a second drifts).
 * rte_pcapng of the DPDK 22.11 build in use puts times about 7e9 s ahead into its blocks
 * (seen against date(1) and tshark), so the time is set here, in the block's own field.
 */
static uint64_t
tsc_to_epoch_ns(const struct pcap_writer *w, struct pcap_file *f, uint64_t tsc)
{
	uint64_t ns = mcfan_tsclock_ns(&w->clock, tsc);

	if (ns < f->last_ts_ns)
		ns = f->last_ts_ns;
	f->last_ts_ns = ns;
	return ns;
}

/* Enhanced Packet Block (pcapng, draft-ietf-opsawg-pcapng 4.3): type 6; timestamp upper 32
 * bits at byte 12, lower at 16, in the section's (host) byte order and the interface's
 * if_tsresol, which rte_pcapng sets to 9 (ns). */
#define EPB_TYPE 6u
#define EPB_TS_HI 12
#define EPB_TS_LO 16

static void
epb_set_time(struct rte_mbuf *c, uint64_t ns)
{
	uint8_t *b = rte_pktmbuf_mtod(c, uint8_t *);
	uint32_t type, hi = (uint32_t)(ns >> 32), lo = (uint32_t)ns;

	if (rte_pktmbuf_data_len(c) < EPB_TS_LO + sizeof(lo))
		return;
	memcpy(&type, b, sizeof(type));
	if (type != EPB_TYPE)
		return;
	memcpy(b + EPB_TS_HI, &hi, sizeof(hi));
	memcpy(b + EPB_TS_LO, &lo, sizeof(lo));
}

/* Write one copy m of p (m is freed here, whatever happens). */
static void
write_one(struct pcap_writer *w, struct mcfan_pcap_lcore *p, unsigned int pi,
	  struct rte_mbuf *m)
{
	const struct mcfan_mbuf_meta *meta = mcfan_meta(m, w->app->meta_offset);
	uint16_t g = meta->group_id < MCFAN_MAX_GROUPS ? meta->group_id : MCFAN_MAX_GROUPS - 1;
	struct pcap_file *f = &w->files[(size_t)pi * MCFAN_MAX_GROUPS + g];
	struct rte_mbuf *c;
	ssize_t len, want;
	off_t end;

	if (!file_follow(w, p, f, g, meta->join_seq)) {
		rte_pktmbuf_free(m);
		wr_count(p, 0, 1, 0, 0, 0);
		return;
	}
	if (f->pc != NULL && ((p->rotate_bytes != 0 && f->bytes >= p->rotate_bytes) ||
			      (p->rotate_s != 0 &&
			       mono_ns() - f->opened_ns >= p->rotate_s * PCAP_NS_PER_S)))
		file_close(p, f);
	if (f->pc == NULL && !file_open(&w->seqs[pi], p, f)) {
		rte_pktmbuf_free(m);
		wr_count(p, 0, 1, 0, 0, 0);
		f->lost++;
		return;
	}
	c = rte_pcapng_copy(m->port, 0, m, w->pool, UINT32_MAX, meta->rx_tsc,
			    RTE_PCAPNG_DIRECTION_IN);
	rte_pktmbuf_free(m);
	if (c == NULL) {
		wr_count(p, 0, 1, 1, 0, 0);
		f->lost++;
		return;
	}
	epb_set_time(c, tsc_to_epoch_ns(w, f, meta->rx_tsc));
	/* DPDK 22.11's rte_pcapng_write_packets() does not free the copies (its doc says it
	 * does; dpdk-dumpcap frees them after the write): freed here */
	want = (ssize_t)rte_pktmbuf_pkt_len(c);
	len = rte_pcapng_write_packets(f->pc, &c, 1);
	rte_pktmbuf_free(c);
	if (len < 0) {
		MCFAN_LOG(ERR, "pcap: write failed (lcore %u, group %s, file %u): %s; "
			  "starting a new file\n", p->lcore_id, f->grp_text, f->seq,
			  strerror(errno));
		file_close(p, f);
		wr_count(p, 0, 1, 1, 0, 0);
		f->lost++;
		return;
	}
	if (len < want) {
		/* a short writev() (a full disk): the block is cut off. The file is truncated
		 * back to its last whole block, so that every frame in it reads back, and
		 * closed; the copy counts as pcap_write_failed, not pcap_written. */
		end = lseek(f->fd, 0, SEEK_CUR);
		if (end < 0 || ftruncate(f->fd, end - (off_t)len) != 0)
			MCFAN_LOG(ERR, "pcap: cannot cut file %u of group %s (lcore %u) back "
				  "to its last whole block: %s\n", f->seq, f->grp_text,
				  p->lcore_id, strerror(errno));
		MCFAN_LOG(ERR, "pcap: short write (lcore %u, group %s, file %u): %zd of %zd "
			  "bytes (disk full?); starting a new file\n", p->lcore_id, f->grp_text,
			  f->seq, len, want);
		file_close(p, f);
		wr_count(p, 0, 1, 1, 0, 0);
		f->lost++;
		return;
	}
	wr_count(p, 1, 0, 0, f->bytes == 0 ? 1 : 0, (uint64_t)len);
	f->bytes += (uint64_t)len;
	f->frames++;
}

/*
 * Every open file whose name was removed (its directory removed, rm -rf DIR, or the file
 * itself: no link left) is closed, with one line saying what went with it: the copies
 * written into it are counted pcap_written but nobody can read them, and every later copy
 * would go the same way, silently. The group's next copy starts its next file (which
 * fails, pcap_write_failed and logged, while DIR is not there). Once a second, from the
 * writer thread (a file renamed, its directory moved away, keeps a link: written on).
 */
static void
removed_check(struct pcap_writer *w)
{
	char path[PATH_MAX];
	struct mcfan_pcap_lcore *p;
	struct pcap_file *f;
	struct stat st;
	unsigned int i, g;

	for (i = 0; i < w->n; i++) {
		p = w->lc[i];
		for (g = 0; g < MCFAN_MAX_GROUPS; g++) {
			f = &w->files[(size_t)i * MCFAN_MAX_GROUPS + g];
			if (f->pc == NULL || fstat(f->fd, &st) != 0 || st.st_nlink != 0)
				continue;
			if (!file_path(p, f->grp, f->seq, path, sizeof(path)))
				snprintf(path, sizeof(path), "file %u", f->seq);
			MCFAN_LOG(ERR, "pcap: %s (group %s, lcore %u) was removed while open: the "
				  "%" PRIu64 " copies written into it (counted pcap_written) are "
				  "gone with it; the group's next copy starts a new file\n", path,
				  f->grp_text, p->lcore_id, f->frames);
			rte_pcapng_close(f->pc); /* closes the descriptor too */
			f->pc = NULL;
			wr_count(p, 0, 0, 1, 0, 0);
		}
	}
}

/* a - b of free-running 32-bit numbers (ring positions, join_seq) as a signed distance:
 * >= 0 when a has reached b */
static int32_t
distance(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

/*
 * Take the slot drain's posts (mcfan_pcap_drained()): arm the close of every ring's file of
 * each slot posted, whether it is open now or not (copies of the membership still in the
 * ring may open it before the ring's position reaches the tail). One acquire load a pass;
 * the lock only when something was posted.
 */
static void
posts_take(struct pcap_writer *w)
{
	uint32_t gen = mcfan_atomic_u32_load(&w->post_gen, memory_order_acquire);
	struct pcap_file *f;
	unsigned int k, pi;
	uint16_t g;

	if (gen == w->seen_gen)
		return;
	w->seen_gen = gen;
	mcfan_ctl_state_lock(w->app);
	for (k = 0; k < w->n_post; k++) {
		g = w->post_slot[k];
		for (pi = 0; pi < w->n; pi++) {
			f = &w->files[(size_t)pi * MCFAN_MAX_GROUPS + g];
			if (!f->close_armed)
				w->armed[pi]++;
			f->close_armed = true;
			f->close_join = w->post_join[g];
			f->close_tail = w->post_tail[(size_t)pi * MCFAN_MAX_GROUPS + g];
		}
		w->post_join[g] = 0;
	}
	w->n_post = 0;
	mcfan_ctl_state_unlock(w->app);
}

/*
 * Close the files of ring pi whose memberships are over, now that every copy the ring
 * held at the slot drain's post has been taken and written (the writer's consumer
 * position, its own, has reached close_tail; the copies before it are written: this runs
 * after the burst's write_one()). A file of a later membership of the slot (join_seq past
 * close_join: the slot's next group) is left alone. The file keeps its group and number,
 * so a copy of the membership that still came (none can: the drain's guarantee) would open
 * its next file, as a rotation does, and a rejoin numbers on.
 */
static void
files_close_ended(struct pcap_writer *w, unsigned int pi)
{
	struct mcfan_pcap_lcore *p = w->lc[pi];
	uint32_t cons = mcfan_ring_tail(p->ring, false);
	struct pcap_file *f;
	unsigned int g;

	for (g = 0; g < MCFAN_MAX_GROUPS && w->armed[pi] != 0; g++) {
		f = &w->files[(size_t)pi * MCFAN_MAX_GROUPS + g];
		if (!f->close_armed || distance(cons, f->close_tail) < 0)
			continue;
		f->close_armed = false;
		w->armed[pi]--;
		if (f->join_seq == 0 || distance(f->close_join, f->join_seq) < 0)
			continue;
		file_close(p, f);
		lost_log(p, f);
	}
}

static void *
writer_main(void *arg)
{
	struct pcap_writer *w = arg;
	struct rte_mbuf *pkts[WRITER_BURST];
	unsigned int i, k, n, work;
	bool stopping;

	for (;;) {
		/* read before the rings: once stop is seen, one more pass finds them all */
		stopping = mcfan_atomic_flag_load(&w->stop, memory_order_acquire);
		if (mcfan_tsclock_due(&w->clock, rte_rdtsc())) {
			clock_sync(w);
			removed_check(w);
		}
		posts_take(w);
		work = 0;
		for (i = 0; i < w->n; i++) {
			n = rte_ring_sc_dequeue_burst(w->lc[i]->ring, (void **)pkts, WRITER_BURST,
						      NULL);
			for (k = 0; k < n; k++)
				write_one(w, w->lc[i], i, pkts[k]);
			work += n;
			if (w->armed[i] != 0)
				files_close_ended(w, i);
		}
		if (work == 0) {
			if (stopping)
				break;
			usleep(WRITER_IDLE_US);
		}
	}
	return NULL;
}

/* The start line: the worker lcores and the pcap outputs the writer serves, and the directory
 * of every output (one each: two outputs in one directory are refused at start). */
static void
log_start(const struct pcap_writer *w)
{
	bool lcore_seen[RTE_MAX_LCORE] = {false}, inst_seen[MCFAN_ENGINE_INST_MAX] = {false};
	char dirs[PCAP_DIRS_TEXT_MAX] = "";
	unsigned int i, n_lcores = 0, n_outputs = 0;
	size_t off = 0;

	for (i = 0; i < w->n; i++) {
		const struct mcfan_pcap_lcore *p = w->lc[i];

		if (p->lcore_id < RTE_MAX_LCORE && !lcore_seen[p->lcore_id]) {
			lcore_seen[p->lcore_id] = true;
			n_lcores++;
		}
		if (p->inst >= MCFAN_ENGINE_INST_MAX || inst_seen[p->inst])
			continue;
		inst_seen[p->inst] = true;
		if (off < sizeof(dirs))
			off += (size_t)snprintf(dirs + off, sizeof(dirs) - off, "%s%s",
						n_outputs == 0 ? "" : ", ", p->dir);
		n_outputs++;
	}
	MCFAN_LOG(INFO, "pcap: writer thread for %u worker lcore%s and %u pcap output%s, files "
		  "in %s\n", n_lcores, n_lcores == 1 ? "" : "s", n_outputs,
		  n_outputs == 1 ? "" : "s", dirs);
}

/*
 * The writer keeps one file open per (worker lcore, pcap output, group) that has copies: for
 * the groups of the start, at most w->n x their number at once. DPDK 22.11's EAL raises the
 * soft RLIMIT_NOFILE to the hard one at start (seen: 1024 to 20000), so the hard limit is
 * what counts: below what the files may need (a service with LimitNOFILE=1024), the groups
 * past it got EMFILE on their first file without a word at start. Said here, once.
 */
static void
nofile_check(const struct pcap_writer *w)
{
	unsigned int files = w->n * w->app->cfg.n_groups;
	rlim_t want = (rlim_t)files + NOFILE_OTHERS;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	MCFAN_LOG(WARNING, "pcap: open file limit (RLIMIT_NOFILE) %" PRIu64 " (hard limit %"
		  PRIu64 ") is below the %" PRIu64 " that up to %u open pcap files (%u worker "
		  "lcore and pcap output pair%s x %u groups) and mcfan's other descriptors may "
		  "need: a file past the limit cannot be made (Too many open files) and its "
		  "group's copies count as pcap_write_failed; raise the hard limit (ulimit -Hn, "
		  "systemd LimitNOFILE=)\n", (uint64_t)rl.rlim_cur, (uint64_t)rl.rlim_max,
		  (uint64_t)want, files, w->n, w->n == 1 ? "" : "s", w->app->cfg.n_groups);
}

static void
writer_posts_free(struct pcap_writer *w)
{
	free(w->armed);
	free(w->post_tail);
	w->armed = NULL;
	w->post_tail = NULL;
}

int
mcfan_pcap_start(struct mcfan_app *app)
{
	struct pcap_writer *w = &writer;
	struct mcfan_pcap_lcore *p;
	unsigned int i, k;
	int ret;

	memset(w, 0, sizeof(*w));
	w->app = app;
	for (i = 0; i < app->n_workers; i++) {
		for (k = 0; k < app->n_inst; k++) {
			p = mcfan_pcap_of(app, &app->lcores[app->worker_lcore_ids[i]], k);
			if (p != NULL)
				w->lc[w->n++] = p;
		}
	}
	if (w->n == 0)
		return 0;
	w->files = calloc((size_t)w->n * MCFAN_MAX_GROUPS, sizeof(w->files[0]));
	w->seqs = calloc(w->n, sizeof(w->seqs[0]));
	w->armed = calloc(w->n, sizeof(w->armed[0]));
	w->post_tail = calloc((size_t)w->n * MCFAN_MAX_GROUPS, sizeof(w->post_tail[0]));
	/* a copy of a frame of one RX pool mbuf (--mbuf-size) in one mbuf, EPB and options */
	w->pool = rte_pktmbuf_pool_create("mcfan_pcapng", COPY_POOL_MBUFS, 0, 0,
					  (uint16_t)RTE_MIN(rte_pcapng_mbuf_size(app->cfg.mbuf_size),
							    (uint32_t)UINT16_MAX),
					  SOCKET_ID_ANY);
	if (w->files == NULL || w->seqs == NULL || w->armed == NULL || w->post_tail == NULL ||
	    w->pool == NULL) {
		MCFAN_LOG(ERR, "pcap: cannot allocate the writer's state: %s\n",
			  rte_strerror(rte_errno));
		goto free_state;
	}
	nofile_check(w);
	w->clock.hz = app->tsc_hz; /* measured (main.c) */
	clock_sync(w);
	mcfan_atomic_flag_store(&w->stop, false, memory_order_relaxed);
	ret = pthread_create(&w->thread, NULL, writer_main, w);
	if (ret != 0) {
		MCFAN_LOG(ERR, "pcap: cannot start the writer thread: %s\n", strerror(ret));
		goto free_state;
	}
	pthread_setname_np(w->thread, "mcfan-pcap");
	w->running = true;
	log_start(w);
	return 0;
free_state:
	rte_mempool_free(w->pool);
	free(w->files);
	free(w->seqs);
	writer_posts_free(w);
	w->pool = NULL;
	w->files = NULL;
	w->seqs = NULL;
	w->n = 0;
	return -ENOMEM;
}

void
mcfan_pcap_stop(struct mcfan_app *app)
{
	struct pcap_writer *w = &writer;
	unsigned int i;

	RTE_SET_USED(app);
	if (!w->running)
		return;
	mcfan_atomic_flag_store(&w->stop, true, memory_order_release);
	pthread_join(w->thread, NULL);
	w->running = false;
	removed_check(w); /* the copies of the last second too */
	for (i = 0; i < w->n * MCFAN_MAX_GROUPS; i++) {
		file_close(w->lc[i / MCFAN_MAX_GROUPS], &w->files[i]);
		lost_log(w->lc[i / MCFAN_MAX_GROUPS], &w->files[i]);
	}
	free(w->files);
	w->files = NULL;
	for (i = 0; i < w->n; i++)
		seq_table_free(&w->seqs[i]);
	free(w->seqs);
	w->seqs = NULL;
	writer_posts_free(w);
	rte_mempool_free(w->pool);
	w->pool = NULL;
}

bool
mcfan_pcap_active(void)
{
	return writer.running;
}

/*
 * The slot drain ended for these memberships (control/groups.c drained_tell()). The caller
 * read the workers' handed counters (acquire) and found them at the drain's targets: every
 * copy of the memberships was enqueued into its pcap ring before those counters' stores
 * (release), so each ring's producer tail read now is past every one of them. Those tails
 * go to the writer with the memberships (posts_take()).
 */
void
mcfan_pcap_drained(struct mcfan_app *app, const uint16_t *slot, const uint32_t *join_seq,
		   unsigned int n)
{
	struct pcap_writer *w = &writer;
	unsigned int i, pi;
	uint16_t g;

	if (!w->running || n == 0)
		return;
	mcfan_ctl_state_lock(app);
	for (i = 0; i < n; i++) {
		g = slot[i];
		if (g >= MCFAN_MAX_GROUPS || join_seq[i] == 0)
			continue;
		if (w->post_join[g] == 0)
			w->post_slot[w->n_post++] = g;
		w->post_join[g] = join_seq[i];
		for (pi = 0; pi < w->n; pi++)
			w->post_tail[(size_t)pi * MCFAN_MAX_GROUPS + g] =
				mcfan_ring_tail(w->lc[pi]->ring, true);
	}
	mcfan_atomic_u32_store(&w->post_gen, mcfan_atomic_u32_load(&w->post_gen,
			       memory_order_relaxed) + 1, memory_order_release);
	mcfan_ctl_state_unlock(app);
}
