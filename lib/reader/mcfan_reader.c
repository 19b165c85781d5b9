/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * libmcfan-reader: the reader side of the reader ring (mcfan_reader_ring.h). Pure C and
 * Linux system calls; no DPDK.
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/futex.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mcfan_reader.h"
#include "mcfan_reader_ring.h"

/** Where Linux keeps POSIX shared-memory objects (for an address without a port). */
#define SHM_DIR "/dev/shm"
/** The smaller of two lengths. */
#define MIN_LEN(a, b) ((a) < (b) ? (a) : (b))

struct mcfan_reader {
	int fd;
	void *base;                    /* the whole object, size bytes */
	size_t size;
	struct mcfan_rd_hdr *hdr;
	uint8_t *slots;
	struct mcfan_rd_reader *me;    /* our row of the reader table */
	int slot_index;
	uint64_t owner;                /* the owner word we stored in me */
	uint64_t mask;                 /* n_slots - 1 */
	uint32_t n_slots;
	uint32_t slot_size;
	uint32_t data_max;
	int32_t writer_pid;
	bool writer_start_known;       /* the header has the writer's start time */
	uint64_t writer_start;         /* its /proc/PID/stat starttime */
	uint64_t cursor;               /* the next frame wanted */
	uint64_t frames;
	uint64_t lost;
	uint64_t laps;
	uint64_t pending_lost;         /* lost since the last frame returned */
	uint64_t last_seq;             /* seq of the frame last returned by next() */
	bool last_valid;               /* last_seq is set and not yet found overwritten */
	char group[MCFAN_RD_GROUP_MAX];
};

/** Longest single futex sleep of a wait, ns: a reader re-reads the serve words this often
 * (mcfan wakes it when they change; this closes the gap between its look and its sleep). */
#define SERVE_RECHECK_NS 1000000000u
/** Longest sentence of mcfan_reader_explain(), with the NUL: -EACCES names the ring's path
 * twice, the file prefix (up to 75 characters) and four user and group names. */
#define WHY_MAX 2048

/* This thread's last error with a sentence of its own (mcfan_reader_explain()): -EXDEV, and
 * open's bad prefix or group and missing ring. */
static __thread int why_err;
static __thread char why_text[WHY_MAX];

/* Forget the last sentence: a call that fails without one must not show an older one of the
 * same errno (a success keeps it: explain() words this thread's last such error). */
static void
why_clear(void)
{
	why_err = 0;
}

/* Keep a sentence for err (a negative errno) and return err. */
static int
why_set(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_text, sizeof(why_text), fmt, ap);
	va_end(ap);
	why_err = -err;
	return err;
}

static uint64_t
mono_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Does the ring's writer still run? Its pid exists and, when the header has it, the
 * process with that pid started when the writer did: a pid reused by another process after
 * mcfan died is not the writer, nor is a zombie (mcfan exited, its parent has not reaped it).
 * A start time that cannot be read (no /proc, hidepid) leaves the answer to the pid.
 */
static bool
writer_alive(const struct mcfan_reader *r)
{
	return mcfan_rd_writer_runs(r->writer_pid, r->writer_start_known, r->writer_start);
}

static struct mcfan_rd_slot *
slot_at(const struct mcfan_reader *r, uint64_t seq)
{
	return (struct mcfan_rd_slot *)(r->slots + (seq & r->mask) * r->slot_size);
}

/* Publish our counters in our row (relaxed: mcfan reads them now and then). */
static void
publish(struct mcfan_reader *r)
{
	if (r->me == NULL)
		return;
	atomic_store_explicit(&r->me->frames, r->frames, memory_order_relaxed);
	atomic_store_explicit(&r->me->lost, r->lost, memory_order_relaxed);
	atomic_store_explicit(&r->me->laps, r->laps, memory_order_relaxed);
	atomic_store_explicit(&r->me->cursor, r->cursor, memory_order_relaxed);
	atomic_store_explicit(&r->me->last_ns, mono_ns(CLOCK_MONOTONIC_COARSE),
			      memory_order_relaxed);
}

/* A dead reader's waiting count back out of waiters (whoever exchanges first does it). */
static void
take_back_waiting(struct mcfan_rd_hdr *hdr, struct mcfan_rd_reader *row)
{
	if (atomic_exchange_explicit(&row->waiting, 0, memory_order_acq_rel) == 1)
		atomic_fetch_sub_explicit(&hdr->waiters, 1, memory_order_seq_cst);
}

/* Claim a row of the reader table: a free one, else one of a dead process. */
static int
claim_row(struct mcfan_reader *r)
{
	char *table = (char *)r->base + r->hdr->hdr_size;
	int32_t pid = (int32_t)getpid();
	unsigned int pass, i;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < r->hdr->n_readers; i++) {
			struct mcfan_rd_reader *row =
				(struct mcfan_rd_reader *)(table + (size_t)i * MCFAN_RD_READER_SIZE);
			uint64_t o = atomic_load_explicit(&row->owner, memory_order_acquire);
			int32_t p = mcfan_rd_owner_pid(o);
			uint64_t next = mcfan_rd_owner_next(o, pid);

			if (pass == 0 ? p != 0 : (p == 0 || mcfan_rd_pid_runs(p)))
				continue;
			if (!atomic_compare_exchange_strong_explicit(&row->owner, &o, next,
					memory_order_acq_rel, memory_order_relaxed))
				continue;
			take_back_waiting(r->hdr, row);
			r->me = row;
			r->slot_index = (int)i;
			r->owner = next;
			atomic_store_explicit(&row->frames, 0, memory_order_relaxed);
			atomic_store_explicit(&row->lost, 0, memory_order_relaxed);
			atomic_store_explicit(&row->laps, 0, memory_order_relaxed);
			atomic_store_explicit(&row->cursor, r->cursor, memory_order_relaxed);
			atomic_store_explicit(&row->started_ns, mono_ns(CLOCK_MONOTONIC),
					      memory_order_relaxed);
			publish(r);
			return 0;
		}
	}
	return -ENOSPC;
}

/* Check the header of a mapped object of size bytes; fills the reader's geometry. */
static int
check_header(struct mcfan_reader *r, size_t size)
{
	const struct mcfan_rd_hdr *h = r->hdr;
	uint64_t need;

	if (memcmp(h->magic, MCFAN_RD_MAGIC, sizeof(MCFAN_RD_MAGIC)) != 0 ||
	    h->version != MCFAN_RD_VERSION || h->hdr_size != MCFAN_RD_HDR_SIZE ||
	    h->reader_size != MCFAN_RD_READER_SIZE)
		return -EPROTO;
	if (h->n_slots < MCFAN_RD_SLOTS_MIN || h->n_slots > MCFAN_RD_SLOTS_MAX ||
	    (h->n_slots & (h->n_slots - 1)) != 0 || h->slot_size < MCFAN_RD_SLOT_SIZE_MIN ||
	    h->slot_size > MCFAN_RD_SLOT_SIZE_MAX || h->slot_size % MCFAN_RD_ALIGN != 0 ||
	    h->n_readers == 0 || h->n_readers > MCFAN_RD_READERS_MAX ||
	    h->slots_offset != mcfan_rd_slots_offset(h->n_readers))
		return -EPROTO;
	need = h->slots_offset + (uint64_t)h->n_slots * h->slot_size;
	if (need != h->total_size || need > size)
		return -EPROTO;
	r->n_slots = h->n_slots;
	r->mask = h->n_slots - 1;
	r->slot_size = h->slot_size;
	r->data_max = h->slot_size - MCFAN_RD_SLOT_HDR;
	r->writer_pid = h->writer_pid;
	r->writer_start_known = (h->flags & MCFAN_RD_FLAG_WRITER_START) != 0;
	r->writer_start = h->writer_start;
	r->slots = (uint8_t *)r->base + h->slots_offset;
	memcpy(r->group, h->group, sizeof(r->group));
	r->group[sizeof(r->group) - 1] = '\0';
	return 0;
}

/* The syntax every group sentence ends with. */
#define GROUP_SYNTAX "give GROUP or GROUP:PORT, e.g. 239.9.9.1:3999 or [ff3e::1]:5000"

/*
 * Parse "ADDR[:PORT]" / "[V6][:PORT]" / bare V6 into normalised text and a port (-1 none).
 * -EINVAL (not a group, a port not 1..65535), -EADDRNOTAVAIL (an address that is not
 * multicast), each with this thread's sentence (mcfan_reader_explain()).
 */
static int
parse_group(const char *group, char *addr, size_t alen, int *port)
{
	char buf[MCFAN_RD_GROUP_MAX], *p, *end;
	unsigned char bin[16];
	const char *a;
	int fam;
	long v;

	if (strlen(group) >= sizeof(buf) || group[0] == '\0')
		goto syntax;
	strcpy(buf, group);
	*port = -1;
	p = NULL;
	if (buf[0] == '[') {
		end = strchr(buf, ']');
		if (end == NULL)
			goto syntax;
		*end = '\0';
		a = buf + 1;
		if (end[1] == ':')
			p = end + 2;
		else if (end[1] != '\0')
			goto syntax;
		fam = AF_INET6;
	} else if (strchr(buf, ':') != strrchr(buf, ':')) {
		a = buf; /* a bare IPv6 address: no port */
		fam = AF_INET6;
	} else {
		end = strchr(buf, ':');
		if (end != NULL) {
			*end = '\0';
			p = end + 1;
		}
		a = buf;
		fam = AF_INET;
	}
	if (inet_pton(fam, a, bin) != 1 || inet_ntop(fam, bin, addr, (socklen_t)alen) == NULL)
		goto syntax;
	if (p != NULL) {
		errno = 0;
		v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : 0;
		if (*p < '0' || *p > '9' || errno != 0 || *end != '\0' || v < 1 || v > 65535)
			return why_set(-EINVAL, "group %s: the UDP port '%s' is not 1..65535",
				       group, p);
		*port = (int)v;
	}
	/* IPv4 224.0.0.0/4 (RFC 5771), IPv6 ff00::/8 (RFC 4291): mcfan joins nothing else */
	if (fam == AF_INET ? (bin[0] & 0xf0) != 0xe0 : bin[0] != 0xff)
		return why_set(-EADDRNOTAVAIL, "group %s: %s is not a multicast address (IPv4 "
			       "224.0.0.0/4, IPv6 ff00::/8)", group, addr);
	return 0;
syntax:
	if (group[0] == '\0') /* not "group : '' is not a group" */
		return why_set(-EINVAL, "group '': empty: " GROUP_SYNTAX);
	return why_set(-EINVAL, "group %.*s: '%.*s' is not a group: " GROUP_SYNTAX,
		       MCFAN_RD_GROUP_MAX, group, MCFAN_RD_GROUP_MAX, group);
}

/*
 * A bare IPv6 group ("ff3e::1:5000", no brackets) is an address: its last field is never a
 * port. When the text before the last ':' is a multicast address with a ring for the last
 * field as its UDP port, write "[ADDR]:PORT: use --group [ADDR]:PORT" into hint: what the
 * caller most likely meant. True when there is such a ring.
 */
static bool
bare_v6_port(const char *prefix, const char *group, char *hint, size_t len)
{
	char head[MCFAN_RD_GROUP_MAX], addr[INET6_ADDRSTRLEN], name[MCFAN_RD_NAME_MAX];
	char path[MCFAN_RD_NAME_MAX + sizeof(SHM_DIR)];
	const char *colon = strrchr(group, ':');
	unsigned char bin[16];
	size_t hl;
	long v;

	if (group[0] == '[' || colon == NULL || colon[1] == '\0' ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) || strlen(colon + 1) > 5)
		return false;
	v = strtol(colon + 1, NULL, 10);
	hl = (size_t)(colon - group);
	if (v < 1 || v > 65535 || hl >= sizeof(head))
		return false;
	memcpy(head, group, hl);
	head[hl] = '\0';
	if (inet_pton(AF_INET6, head, bin) != 1 || bin[0] != 0xff ||
	    inet_ntop(AF_INET6, bin, addr, sizeof(addr)) == NULL ||
	    mcfan_rd_name(name, sizeof(name), prefix, addr, (unsigned int)v) < 0)
		return false;
	snprintf(path, sizeof(path), "%s%s", SHM_DIR, name);
	if (access(path, F_OK) != 0)
		return false;
	snprintf(hint, len, "[%s]:%d: use --group [%s]:%d", addr, (int)v, addr, (int)v);
	return true;
}

/* A user's or group's name into buf ("root"), or "?" when it has none. */
static const char *
id_name(bool user, unsigned int id, char *buf, size_t len)
{
	char tmp[1024];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;

	if (user ? getpwuid_r((uid_t)id, &pw, tmp, sizeof(tmp), &pwp) == 0 && pwp != NULL :
		   getgrgid_r((gid_t)id, &gr, tmp, sizeof(tmp), &grp) == 0 && grp != NULL)
		snprintf(buf, len, "%s", user ? pwp->pw_name : grp->gr_name);
	else
		snprintf(buf, len, "?");
	return buf;
}

/*
 * The ring name exists and this process may not open it read-write (a reader holds a row in
 * it, so it needs both): this thread's sentence for err (-EACCES, -EPERM) with the object's
 * owner, group and mode, this process's ids and what to do.
 */
static int
no_access(int err, const char *prefix, const char *group, const char *name)
{
	char path[MCFAN_RD_NAME_MAX + sizeof(SHM_DIR)], ou[64], og[64], mu[64], mg[64];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", SHM_DIR, name);
	if (stat(path, &st) < 0)
		return why_set(err, "group %s of file prefix %s: %s: %s, and its owner and mode "
			       "cannot be read either (%s): this process (uid %u, gid %u) may not "
			       "look into %s; run the reader as a user that may", group, prefix,
			       path, strerror(-err), strerror(errno), (unsigned int)geteuid(),
			       (unsigned int)getegid(), SHM_DIR);
	return why_set(err, "group %s of file prefix %s: %s is owner %s (uid %u), group %s "
		       "(gid %u), mode %04o, and this process, user %s (uid %u) group %s (gid %u), "
		       "may not read and write it (a reader holds a row in the ring): run the "
		       "reader as a user that may (the owner), or give the ring back the mode "
		       "0666 mcfan makes it with: chmod 0666 %s (mcfan has no option for a ring's "
		       "mode or group; docs/readers.md)", group, prefix, path,
		       id_name(true, st.st_uid, ou, sizeof(ou)), (unsigned int)st.st_uid,
		       id_name(false, st.st_gid, og, sizeof(og)), (unsigned int)st.st_gid,
		       (unsigned int)(st.st_mode & 07777),
		       id_name(true, geteuid(), mu, sizeof(mu)), (unsigned int)geteuid(),
		       id_name(false, getegid(), mg, sizeof(mg)), (unsigned int)getegid(), path);
}

/*
 * No ring for group (port >= 0) under prefix: this thread's sentence for -ENOENT, with the
 * rings mcfan does serve for the address under the prefix (another port, or any port), if
 * any: the usual mistake is a port given for a group joined without one, or the other way.
 */
static int
no_ring(const char *prefix, const char *group, const char *addr, int port)
{
	char want[MCFAN_RD_NAME_MAX], mine[MCFAN_RD_NAME_MAX], hint[WHY_MAX / 2] = "";
	bool v6 = strchr(addr, ':') != NULL;
	unsigned int n = 0, n_prefix = 0;
	struct dirent *de;
	size_t wl, ml, off = 0;
	DIR *d;

	snprintf(want, sizeof(want), "mcfan.%s.%s.", prefix, addr);
	wl = strlen(want);
	snprintf(mine, sizeof(mine), "mcfan.%s.", prefix);
	ml = strlen(mine);
	d = opendir(SHM_DIR);
	while (d != NULL && (de = readdir(d)) != NULL && off < sizeof(hint)) {
		const char *tail = de->d_name + wl;
		int p;

		if (strncmp(de->d_name, mine, ml) == 0)
			n_prefix++;
		if (strncmp(de->d_name, want, wl) != 0 || *tail == '\0' ||
		    strspn(tail, "0123456789") != strlen(tail))
			continue;
		p = (int)strtol(tail, NULL, 10);
		if (p == port)
			continue;
		n++;
		if (p == 0)
			off += (size_t)snprintf(hint + off, sizeof(hint) - off, "%s%s (any port): "
						"use --group %s", n > 1 ? "; " : "", addr, addr);
		else
			off += (size_t)snprintf(hint + off, sizeof(hint) - off, "%s%s%s%s:%d: use "
						"--group %s%s%s:%d", n > 1 ? "; " : "",
						v6 ? "[" : "", addr, v6 ? "]" : "", p,
						v6 ? "[" : "", addr, v6 ? "]" : "", p);
	}
	if (d != NULL)
		closedir(d);
	if (n == 0 && bare_v6_port(prefix, group, hint, sizeof(hint)))
		return why_set(-ENOENT, "group %s of file prefix %s: no such reader ring; an IPv6 "
			       "group with a port goes in brackets: mcfan serves %s", group, prefix,
			       hint);
	/* not one ring of the prefix: the usual mistake is the prefix (a typo, or none given
	 * to a reader of an mcfan started with one), not the group */
	if (n_prefix == 0 && d != NULL)
		return why_set(-ENOENT, "group %s of file prefix %s: no such reader ring; the "
			       "file prefix %s has no reader rings at all: give the --file-prefix "
			       "mcfan was started with (EAL's default: rte), and run mcfan with "
			       "--worker-engine readers", group, prefix, prefix);
	if (n == 0)
		return why_set(-ENOENT, "group %s of file prefix %s: %s", group, prefix,
			       mcfan_reader_strerror(ENOENT));
	return why_set(-ENOENT, "group %s of file prefix %s: no such reader ring; mcfan serves "
		       "%s", group, prefix, hint);
}

/* For an address without a port: the name of its any-port ring, else its only ring. */
static int
find_name(const char *prefix, const char *addr, char *name, size_t len)
{
	char want[MCFAN_RD_NAME_MAX], found[MCFAN_RD_NAME_MAX] = "";
	struct dirent *de;
	unsigned int n = 0;
	size_t wl;
	DIR *d;
	int ret;

	ret = mcfan_rd_name(name, len, prefix, addr, 0);
	if (ret < 0)
		return ret;
	if (access(SHM_DIR "/", F_OK) == 0) {
		char path[MCFAN_RD_NAME_MAX + sizeof(SHM_DIR)];

		snprintf(path, sizeof(path), "%s%s", SHM_DIR, name);
		if (access(path, F_OK) == 0)
			return 0;
	}
	snprintf(want, sizeof(want), "mcfan.%s.%s.", prefix, addr);
	wl = strlen(want);
	d = opendir(SHM_DIR);
	if (d == NULL)
		return -ENOENT;
	while ((de = readdir(d)) != NULL) {
		const char *tail = de->d_name + wl;

		if (strncmp(de->d_name, want, wl) != 0 || *tail == '\0' ||
		    strspn(tail, "0123456789") != strlen(tail))
			continue;
		n++;
		found[0] = '/';
		memcpy(found + 1, de->d_name, MIN_LEN(strlen(de->d_name), sizeof(found) - 2));
		found[1 + MIN_LEN(strlen(de->d_name), sizeof(found) - 2)] = '\0';
	}
	closedir(d);
	if (n == 0)
		return -ENOENT;
	if (n > 1)
		return -ENOTUNIQ;
	if (strlen(found) >= len)
		return -ENAMETOOLONG;
	strcpy(name, found);
	return 0;
}

/*
 * Does mcfan's readers engine write this ring now (the header's serve words, written by
 * mcfan's control side)? 0 yes, or an older writer that does not say; -EXDEV no, with this
 * thread's sentence (mcfan_reader_explain()) naming the group, why, and what to do.
 */
static int
serve_check(const struct mcfan_rd_hdr *h, const char *group)
{
	char engine[MCFAN_RD_ENGINE_MAX];
	uint32_t lcore, serve = mcfan_rd_serve_read(h, &lcore, engine, sizeof(engine));

	switch (serve) {
	case MCFAN_RD_SERVE_ENGINE:
		/* the ring exists, so readers is an engine of this run already (maybe the
		 * --worker-engine): what helps is routing this group to it */
		snprintf(why_text, sizeof(why_text), "group %s: mcfan serves it with the %s "
			 "engine, not readers (route the group to readers: give mcfan's console "
			 "set engine %s readers, or start mcfan with --group-engine %s=readers "
			 "and no other --group-engine or [group-engine] row for it)",
			 group, engine, group, group);
		break;
	case MCFAN_RD_SERVE_LCORE:
		snprintf(why_text, sizeof(why_text), "group %s: mcfan's lcore %u, which writes "
			 "its ring, runs the %s engine for every copy, not readers (give mcfan's "
			 "console set engine %u outputs, or set engine %u readers)", group, lcore,
			 engine, lcore, lcore);
		break;
	case MCFAN_RD_SERVE_LEFT:
		snprintf(why_text, sizeof(why_text), "group %s: mcfan left the group: no frame "
			 "comes into its ring (join it again from mcfan's console, then open it "
			 "again)", group);
		break;
	case MCFAN_RD_SERVE_MOVED:
		/* a group joined again on other workers, an idle ring made full (set engine),
		 * or a ring whose file was removed from /dev/shm: a new ring has the name */
		snprintf(why_text, sizeof(why_text), "group %s: mcfan writes a new ring of the "
			 "same name (the group joined again on other workers, or this ring's file "
			 "removed from /dev/shm): open it again", group);
		break;
	default:
		return 0;
	}
	why_err = EXDEV;
	return -EXDEV;
}

const char *
mcfan_reader_explain(int err)
{
	if (err < 0 && err != INT_MIN) /* -INT_MIN is not an int: no errno, strerror(3)'s */
		err = -err;
	if (err != 0 && err == why_err)
		return why_text;
	return mcfan_reader_strerror(err);
}

int
mcfan_reader_open(const char *prefix, const char *group, unsigned int flags,
		  struct mcfan_reader **out)
{
	char addr[MCFAN_RD_GROUP_MAX], name[MCFAN_RD_NAME_MAX];
	struct mcfan_reader *r;
	struct stat st;
	int port, ret;

	if (out == NULL || group == NULL)
		return why_set(-EINVAL, "mcfan_reader_open: %s is NULL", out == NULL ? "out" :
			       "group");
	*out = NULL;
	if ((flags & ~MCFAN_READER_OLDEST) != 0)
		return why_set(-EINVAL, "mcfan_reader_open: flags %#x: only MCFAN_READER_OLDEST "
			       "(%#x) or 0", flags, MCFAN_READER_OLDEST);
	if (prefix == NULL || prefix[0] == '\0')
		prefix = "rte";
	ret = mcfan_rd_prefix_check(prefix, why_text, sizeof(why_text));
	if (ret < 0) {
		why_err = -ret;
		return ret;
	}
	ret = parse_group(group, addr, sizeof(addr), &port);
	if (ret < 0)
		return ret;
	if (port >= 0)
		ret = mcfan_rd_name(name, sizeof(name), prefix, addr, (unsigned int)port);
	else
		ret = find_name(prefix, addr, name, sizeof(name));
	if (ret == -ENOENT)
		return no_ring(prefix, group, addr, -1);
	if (ret < 0)
		return ret;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	r->slot_index = -1;
	r->fd = shm_open(name, O_RDWR, 0);
	if (r->fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			ret = no_ring(prefix, group, addr, port);
		else if (ret == -EACCES || ret == -EPERM)
			ret = no_access(ret, prefix, group, name);
		goto free_reader;
	}
	if (fstat(r->fd, &st) < 0) {
		ret = -errno;
		goto close_fd;
	}
	if ((uint64_t)st.st_size < MCFAN_RD_HDR_SIZE) {
		ret = -EPROTO;
		goto close_fd;
	}
	r->size = (size_t)st.st_size;
	r->base = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED) {
		ret = -errno;
		if (ret == -EACCES || ret == -EPERM)
			ret = no_access(ret, prefix, group, name);
		goto close_fd;
	}
	r->hdr = r->base;
	ret = check_header(r, r->size);
	if (ret < 0)
		goto unmap;
	/* a ring nobody writes (the group goes to another engine): say so now, not never */
	ret = serve_check(r->hdr, r->group);
	if (ret < 0)
		goto unmap;
	if (flags & MCFAN_READER_OLDEST) {
		uint64_t h = atomic_load_explicit(&r->hdr->head, memory_order_acquire);

		r->cursor = h > r->n_slots ? h - r->n_slots : 0;
	} else {
		r->cursor = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
	}
	ret = claim_row(r);
	if (ret < 0)
		goto unmap;
	*out = r;
	return 0;
unmap:
	munmap(r->base, r->size);
close_fd:
	close(r->fd);
free_reader:
	free(r);
	return ret;
}

/*
 * Find the frame at the cursor: 1 with *slotp set (seq checked once, caller re-checks after
 * reading), 0 none yet, -EPIPE closed and drained. Moves the cursor past lapped frames.
 */
static int
locate(struct mcfan_reader *r, struct mcfan_rd_slot **slotp, uint64_t *seqp)
{
	bool lapped = false;
	int ret;

	for (;;) {
		uint64_t head = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
		uint64_t want, s, newest, skip;
		struct mcfan_rd_slot *slot;

		if (r->cursor >= head) {
			if (atomic_load_explicit(&r->hdr->state, memory_order_acquire) ==
			    MCFAN_RD_STATE_CLOSED &&
			    r->cursor >= atomic_load_explicit(&r->hdr->head, memory_order_acquire))
				ret = -EPIPE;
			else
				ret = 0;
			break;
		}
		if (head - r->cursor > r->n_slots) {
			/* lapped by head alone: the oldest frame still there is head - n_slots */
			skip = head - r->n_slots - r->cursor;
			r->cursor += skip;
			r->lost += skip;
			r->pending_lost += skip;
			lapped = true;
		}
		slot = slot_at(r, r->cursor);
		want = 2 * r->cursor + 2;
		s = atomic_load_explicit(&slot->seq, memory_order_acquire);
		if (s == want) {
			*slotp = slot;
			*seqp = want;
			ret = 1;
			break;
		}
		if (s < want) {
			ret = 0; /* not possible with an honest writer: treat as not there yet */
			break;
		}
		/* the slot holds a newer frame (being) written: frames up to it - n_slots are gone */
		newest = (s - 1) / 2;
		skip = newest >= r->cursor + r->n_slots ? newest - r->n_slots + 1 - r->cursor : 1;
		r->cursor += skip;
		r->lost += skip;
		r->pending_lost += skip;
		lapped = true;
	}
	if (lapped)
		r->laps++; /* one lap however many slots it took to find the oldest frame */
	return ret;
}

/* The frame at the cursor was taken: fill f's fields from the slot (data not copied). */
static void
take(struct mcfan_reader *r, struct mcfan_rd_slot *slot, struct mcfan_reader_frame *f,
     uint32_t len, uint64_t rx_ns)
{
	f->data = (const uint8_t *)slot + MCFAN_RD_SLOT_HDR;
	f->len = len;
	f->pad = 0;
	f->seq = r->cursor;
	f->lost = r->pending_lost;
	f->rx_ns = rx_ns;
	r->pending_lost = 0;
	r->cursor++;
	r->frames++;
	publish(r);
}

/* The frame at the cursor was overwritten while we read it: count it as lost. */
static void
lose_one(struct mcfan_reader *r)
{
	r->cursor++;
	r->lost++;
	r->pending_lost++;
	r->laps++;
}

int
mcfan_reader_next(struct mcfan_reader *r, struct mcfan_reader_frame *f)
{
	struct mcfan_rd_slot *slot;
	uint64_t want, rx_ns;
	uint32_t len;
	int ret;

	if (r == NULL || f == NULL) {
		why_clear();
		return -EINVAL;
	}
	for (;;) {
		ret = locate(r, &slot, &want);
		if (ret <= 0) {
			publish(r);
			return ret;
		}
		len = atomic_load_explicit(&slot->len, memory_order_relaxed);
		rx_ns = atomic_load_explicit(&slot->rx_ns, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&slot->seq, memory_order_relaxed) != want ||
		    len > r->data_max) {
			lose_one(r);
			continue;
		}
		take(r, slot, f, len, rx_ns);
		r->last_seq = f->seq;
		r->last_valid = true;
		return 1;
	}
}

int
mcfan_reader_frame_valid(struct mcfan_reader *r, const struct mcfan_reader_frame *f)
{
	struct mcfan_rd_slot *slot;

	if (r == NULL || f == NULL) {
		why_clear();
		return -EINVAL;
	}
	slot = slot_at(r, f->seq);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&slot->seq, memory_order_relaxed) == 2 * f->seq + 2)
		return 1;
	if (r->last_valid && r->last_seq == f->seq) {
		/* read and then overwritten: it counts as lost, not as read */
		r->last_valid = false;
		r->frames--;
		r->lost++;
		r->laps++;
		publish(r);
	}
	return 0;
}

int
mcfan_reader_read(struct mcfan_reader *r, void *buf, size_t len, struct mcfan_reader_frame *f)
{
	struct mcfan_rd_slot *slot;
	uint64_t want, rx_ns;
	uint32_t n;
	int ret;

	if (r == NULL || f == NULL || (buf == NULL && len > 0)) {
		why_clear();
		return -EINVAL;
	}
	for (;;) {
		ret = locate(r, &slot, &want);
		if (ret <= 0) {
			publish(r);
			return ret;
		}
		n = atomic_load_explicit(&slot->len, memory_order_relaxed);
		rx_ns = atomic_load_explicit(&slot->rx_ns, memory_order_relaxed);
		if (n <= r->data_max && n <= len)
			memcpy(buf, (const uint8_t *)slot + MCFAN_RD_SLOT_HDR, n);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&slot->seq, memory_order_relaxed) != want ||
		    n > r->data_max) {
			lose_one(r);
			continue;
		}
		if (n > len) {
			f->len = n;
			return -EMSGSIZE;
		}
		take(r, slot, f, n, rx_ns);
		f->data = buf;
		r->last_valid = false;
		return 1;
	}
}

static long
futex_wait(_Atomic uint32_t *word, uint32_t val, const struct timespec *ts)
{
	/* shared (not FUTEX_PRIVATE_FLAG): the word is in memory other processes map */
	return syscall(SYS_futex, word, FUTEX_WAIT, val, ts, NULL, 0);
}

/* Is a frame there now (or the end)? 1 frame, -EPIPE closed and drained, 0 neither. */
static int
ready(const struct mcfan_reader *r)
{
	if (atomic_load_explicit(&r->hdr->head, memory_order_seq_cst) > r->cursor)
		return 1;
	if (atomic_load_explicit(&r->hdr->state, memory_order_seq_cst) == MCFAN_RD_STATE_CLOSED)
		return atomic_load_explicit(&r->hdr->head, memory_order_seq_cst) > r->cursor ?
			1 : -EPIPE;
	return 0;
}

int
mcfan_reader_wait(struct mcfan_reader *r, int64_t timeout_ns)
{
	uint64_t deadline = 0, now, left;
	struct timespec ts, *tsp;
	uint32_t v;
	long rc;
	int ret, err;

	if (r == NULL) {
		why_clear();
		return -EINVAL;
	}
	ret = ready(r);
	if (ret != 0 || timeout_ns == 0)
		return ret;
	if (timeout_ns > 0)
		deadline = mono_ns(CLOCK_MONOTONIC) + (uint64_t)timeout_ns;
	for (;;) {
		/* announce first, then look (the writer publishes, then looks at waiters) */
		atomic_fetch_add_explicit(&r->hdr->waiters, 1, memory_order_seq_cst);
		if (r->me != NULL)
			atomic_store_explicit(&r->me->waiting, 1, memory_order_seq_cst);
		v = atomic_load_explicit(&r->hdr->head_futex, memory_order_seq_cst);
		ret = ready(r);
		if (ret == 0)
			ret = serve_check(r->hdr, r->group);
		rc = 0;
		err = 0;
		if (ret == 0) {
			/* at most SERVE_RECHECK_NS at a time: then the serve words again */
			now = mono_ns(CLOCK_MONOTONIC);
			left = SERVE_RECHECK_NS;
			if (timeout_ns > 0 && now >= deadline) {
				rc = -1;
				err = ETIMEDOUT;
			} else if (timeout_ns > 0 && deadline - now < left) {
				left = deadline - now;
			}
			ts.tv_sec = (time_t)(left / 1000000000u);
			ts.tv_nsec = (long)(left % 1000000000u);
			tsp = &ts;
			if (err == 0) {
				rc = futex_wait(&r->hdr->head_futex, v, tsp);
				err = rc < 0 ? errno : 0;
			}
		}
		if (r->me != NULL)
			take_back_waiting(r->hdr, r->me);
		else
			atomic_fetch_sub_explicit(&r->hdr->waiters, 1, memory_order_seq_cst);
		if (ret != 0)
			break;
		ret = ready(r);
		if (ret != 0)
			break;
		if (rc < 0 && err == EINTR) {
			ret = -EINTR;
			break;
		}
		ret = serve_check(r->hdr, r->group);
		if (ret != 0)
			break;
		if (rc < 0 && err == ETIMEDOUT) {
			/* killed without closing (SIGKILL, a crash): not a clean stop; looked at
			 * at every recheck slice, so a long wait (or one without a limit) is
			 * told within SERVE_RECHECK_NS too, not only when its timeout runs out */
			if (!writer_alive(r)) {
				ret = -EOWNERDEAD;
				break;
			}
			if (timeout_ns < 0 || mono_ns(CLOCK_MONOTONIC) < deadline)
				continue; /* one recheck slice of a longer wait */
			ret = 0;
			break;
		}
		/* woken or EAGAIN without a frame (a close, another ring's writer...): again */
	}
	publish(r);
	return ret;
}

int
mcfan_reader_wait_ms(struct mcfan_reader *r, int timeout_ms)
{
	return mcfan_reader_wait(r, timeout_ms < 0 ? -1 : (int64_t)timeout_ms * 1000000);
}

int
mcfan_reader_stats(const struct mcfan_reader *r, struct mcfan_reader_stats *st)
{
	uint64_t head, behind, gone;

	if (r == NULL || st == NULL) {
		why_clear();
		return -EINVAL;
	}
	head = atomic_load_explicit(&r->hdr->head, memory_order_acquire);
	behind = head > r->cursor ? head - r->cursor : 0;
	/* frames the writer has overwritten already are lost now, not at the next read: the
	 * oldest frame still in the ring is head - n_slots (as the next read finds) */
	gone = behind > r->n_slots ? behind - r->n_slots : 0;
	st->frames = r->frames;
	st->lost = r->lost + gone;
	/* and the lap that lost them: its next read steps over them as one lap */
	st->laps = r->laps + (gone > 0 ? 1 : 0);
	st->head = head;
	st->lag = behind - gone;
	st->n_slots = r->n_slots;
	st->data_max = r->data_max;
	st->closed = atomic_load_explicit(&r->hdr->state, memory_order_acquire) ==
		     MCFAN_RD_STATE_CLOSED;
	st->reader_slot = r->slot_index;
	return 0;
}

int32_t
mcfan_reader_writer_pid(const struct mcfan_reader *r)
{
	return r == NULL ? -EINVAL : r->writer_pid;
}

const char *
mcfan_reader_group(const struct mcfan_reader *r)
{
	return r == NULL ? NULL : r->group;
}

/* Ethernet types (IEEE 802.3, 802.1Q, 802.1ad) and IP protocol numbers (IANA). */
#define ETH_HLEN 14u
#define ETHERTYPE_IPV4 0x0800u
#define ETHERTYPE_IPV6 0x86ddu
#define ETHERTYPE_VLAN 0x8100u
#define ETHERTYPE_QINQ 0x88a8u
#define VLAN_HLEN 4u
#define VLAN_TAGS_MAX 2u
#define IPV6_HLEN 40u
#define UDP_HLEN 8u
#define IPPROTO_UDP_NUM 17u

int
mcfan_reader_udp_payload(const uint8_t *frame, uint32_t len, const uint8_t **payload,
			 uint32_t *plen)
{
	uint32_t off = ETH_HLEN, ulen, tags = 0;
	unsigned int type, proto;

	if (frame == NULL || payload == NULL || plen == NULL) {
		why_clear();
		return -EINVAL;
	}
	if (len < ETH_HLEN)
		return -EPROTO;
	type = (unsigned int)frame[12] << 8 | frame[13];
	while ((type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ) && tags < VLAN_TAGS_MAX) {
		if (len < off + VLAN_HLEN)
			return -EPROTO;
		type = (unsigned int)frame[off + 2] << 8 | frame[off + 3];
		off += VLAN_HLEN;
		tags++;
	}
	if (type == ETHERTYPE_IPV4) {
		uint32_t ihl;

		if (len < off + 20 || (frame[off] >> 4) != 4)
			return -EPROTO;
		ihl = (uint32_t)(frame[off] & 0x0f) * 4;
		if (ihl < 20 || len < off + ihl)
			return -EPROTO;
		proto = frame[off + 9];
		off += ihl;
	} else if (type == ETHERTYPE_IPV6) {
		if (len < off + IPV6_HLEN || (frame[off] >> 4) != 6)
			return -EPROTO;
		proto = frame[off + 6];
		off += IPV6_HLEN;
	} else {
		return -EPROTO;
	}
	if (proto != IPPROTO_UDP_NUM || len < off + UDP_HLEN)
		return -EPROTO;
	ulen = (uint32_t)frame[off + 4] << 8 | frame[off + 5];
	if (ulen < UDP_HLEN)
		return -EPROTO;
	ulen -= UDP_HLEN;
	off += UDP_HLEN;
	if (ulen > len - off)
		ulen = len - off;
	*payload = frame + off;
	*plen = ulen;
	return 0;
}

const char *
mcfan_reader_strerror(int err)
{
	if (err < 0 && err != INT_MIN) /* -INT_MIN is not an int: no errno, strerror(3)'s */
		err = -err;
	switch (err) {
	case 0:
		return "no error";
	case ENOENT:
		return "no such reader ring (is mcfan running with --worker-engine readers, and "
		       "the group joined?)";
	case ENOSPC:
		return "all reader rows of the ring are taken by running readers: close one first";
	case ENOTUNIQ:
		return "the address has reader rings for several UDP ports: give GROUP:PORT";
	case EOWNERDEAD:
		return "writer dead: mcfan is gone without closing the ring (killed or crashed); "
		       "no frame comes any more";
	case EPIPE:
		return "mcfan closed the ring (it stopped) and every frame was read";
	case EPROTO:
		return "not a reader ring of this format or version (mcfan and libmcfan-reader "
		       "from different builds?)";
	case EMSGSIZE:
		return "the next frame is longer than the buffer";
	case EINVAL:
		return "invalid argument: a bad file prefix, group or flags, or NULL "
		       "(mcfan_reader_explain() says which)";
	case EADDRNOTAVAIL:
		return "the group's address is not a multicast address (IPv4 224.0.0.0/4, IPv6 "
		       "ff00::/8)";
	case EXDEV:
		return "mcfan's readers engine does not write this group's ring: the group goes to "
		       "another engine, or mcfan left it (mcfan_reader_explain() names which)";
	case ENAMETOOLONG:
		return "the file prefix is too long: a reader ring's name must fit /dev/shm (at "
		       "most 186 characters)";
	default:
		return strerror(err);
	}
}

void
mcfan_reader_close(struct mcfan_reader *r)
{
	if (r == NULL)
		return;
	/* the row is the opener's: a fork child that closes its copy (cleanup code, a binding's
	 * destructor at its exit) only drops its mapping; freeing the row or taking back its
	 * waiting count would take them from the parent, which still reads */
	if (r->me != NULL && mcfan_rd_owner_pid(r->owner) == (int32_t)getpid()) {
		uint64_t o = r->owner;

		publish(r);
		take_back_waiting(r->hdr, r->me);
		/* free the row unless someone took it from us (they thought we were dead) */
		atomic_compare_exchange_strong_explicit(&r->me->owner, &o,
			mcfan_rd_owner_next(o, 0), memory_order_acq_rel, memory_order_relaxed);
	}
	munmap(r->base, r->size);
	close(r->fd);
	free(r);
}
