/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The writer side of the reader ring: creation, removal and the reader table's read side
 * (mcfan_reader_writer.h). The fast path is in the header.
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mcfan_reader_writer.h"

/** Where Linux keeps POSIX shared-memory objects (rename needs paths). */
#define SHM_DIR "/dev/shm"
/** Mode of a ring: every local user may read it, and write its reader rows and waiters. */
#define RING_MODE 0666

/* Does the writer the header h names still run (mcfan_rd_writer_runs())? */
static bool
writer_runs(const struct mcfan_rd_hdr *h)
{
	return mcfan_rd_writer_runs(h->writer_pid, (h->flags & MCFAN_RD_FLAG_WRITER_START) != 0,
				    h->writer_start);
}

static const struct mcfan_rd_reader *
row_at(const struct mcfan_rw *w, unsigned int i)
{
	return (const struct mcfan_rd_reader *)((const char *)w->hdr + MCFAN_RD_HDR_SIZE +
						(size_t)i * MCFAN_RD_READER_SIZE);
}

/* Is there a ring of this name whose writer, another process, still runs it? */
static bool
name_in_use(const char *name)
{
	struct mcfan_rd_hdr *h;
	struct stat st;
	bool busy = false;
	int fd;

	fd = shm_open(name, O_RDONLY, 0);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size >= MCFAN_RD_HDR_SIZE) {
		h = mmap(NULL, MCFAN_RD_HDR_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		if (h != MAP_FAILED) {
			busy = memcmp(h->magic, MCFAN_RD_MAGIC, sizeof(MCFAN_RD_MAGIC)) == 0 &&
			       atomic_load_explicit(&h->state, memory_order_acquire) ==
			       MCFAN_RD_STATE_OPEN && h->writer_pid != (int32_t)getpid() &&
			       writer_runs(h);
			munmap(h, MCFAN_RD_HDR_SIZE);
		}
	}
	close(fd);
	return busy;
}

int
mcfan_rw_create(const char *prefix, const char *addr, unsigned int port, const char *group,
		uint32_t n_slots, uint32_t slot_size, uint32_t n_readers, uint16_t owner,
		struct mcfan_rw **out)
{
	char tmp[MCFAN_RD_NAME_MAX], from[PATH_MAX], to[PATH_MAX];
	struct mcfan_rd_hdr *h;
	struct timespec ts;
	struct mcfan_rw *w;
	struct stat st;
	uint64_t size;
	void *base;
	int fd, ret;

	if (n_slots < MCFAN_RD_SLOTS_MIN || n_slots > MCFAN_RD_SLOTS_MAX ||
	    (n_slots & (n_slots - 1)) != 0 || slot_size < MCFAN_RD_SLOT_SIZE_MIN ||
	    slot_size > MCFAN_RD_SLOT_SIZE_MAX || slot_size % MCFAN_RD_ALIGN != 0 ||
	    n_readers == 0 || n_readers > MCFAN_RD_READERS_MAX || out == NULL ||
	    strlen(group) >= MCFAN_RD_GROUP_MAX)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	ret = mcfan_rd_name(w->name, sizeof(w->name), prefix, addr, port);
	if (ret < 0)
		goto free_w;
	if (name_in_use(w->name)) {
		ret = -EADDRINUSE;
		goto free_w;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.new%d", w->name, (int)getpid()) >= (int)sizeof(tmp)) {
		ret = -ENAMETOOLONG;
		goto free_w;
	}
	size = mcfan_rw_ring_bytes(n_slots, slot_size, n_readers);
	shm_unlink(tmp);
	fd = shm_open(tmp, O_RDWR | O_CREAT | O_EXCL, RING_MODE);
	if (fd < 0) {
		ret = -errno;
		goto free_w;
	}
	/* the mode without the umask: readers of any user open it read-write */
	if (fchmod(fd, RING_MODE) < 0 || ftruncate(fd, (off_t)size) < 0) {
		ret = -errno;
		goto unlink_tmp;
	}
	/* reserve the pages now: a sparse object would SIGBUS the writer when tmpfs is full */
	ret = posix_fallocate(fd, 0, (off_t)size);
	if (ret != 0) {
		ret = -ret;
		goto unlink_tmp;
	}
	/* the object's identity: mcfan_rw_name_check() tells a removed or replaced name */
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto unlink_tmp;
	}
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		ret = -errno;
		goto unlink_tmp;
	}
	close(fd);
	fd = -1;
	h = base;
	memcpy(h->magic, MCFAN_RD_MAGIC, sizeof(MCFAN_RD_MAGIC));
	h->version = MCFAN_RD_VERSION;
	h->hdr_size = MCFAN_RD_HDR_SIZE;
	h->n_slots = n_slots;
	h->slot_size = slot_size;
	h->n_readers = n_readers;
	h->reader_size = MCFAN_RD_READER_SIZE;
	h->slots_offset = mcfan_rd_slots_offset(n_readers);
	h->total_size = size;
	h->writer_pid = (int32_t)getpid();
	/* serve words: UNSET (taken as served) until the control side says who writes it */
	h->flags = MCFAN_RD_FLAG_ETHERNET | MCFAN_RD_FLAG_SERVE;
	/* with the pid, the start time names this process (a reused pid is another one) */
	if (mcfan_rd_proc_start(h->writer_pid, &h->writer_start) == 0)
		h->flags |= MCFAN_RD_FLAG_WRITER_START;
	clock_gettime(CLOCK_REALTIME, &ts);
	h->created_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	snprintf(h->group, sizeof(h->group), "%s", group);
	atomic_store_explicit(&h->state, MCFAN_RD_STATE_OPEN, memory_order_release);
	/* an old ring of the same name (a crashed run) goes; its readers keep their mapping */
	snprintf(from, sizeof(from), "%s%s", SHM_DIR, tmp);
	snprintf(to, sizeof(to), "%s%s", SHM_DIR, w->name);
	if (rename(from, to) < 0) {
		ret = -errno;
		munmap(base, size);
		goto unlink_tmp;
	}
	w->hdr = h;
	w->slots = (uint8_t *)base + h->slots_offset;
	w->mask = n_slots - 1;
	w->n_slots = n_slots;
	w->slot_size = slot_size;
	w->data_max = slot_size - MCFAN_RD_SLOT_HDR;
	w->n_readers = n_readers;
	w->owner = owner;
	w->size = size;
	w->obj_dev = (uint64_t)st.st_dev;
	w->obj_ino = (uint64_t)st.st_ino;
	snprintf(w->group, sizeof(w->group), "%s", group);
	*out = w;
	return 0;
unlink_tmp:
	if (fd >= 0)
		close(fd);
	shm_unlink(tmp);
free_w:
	free(w);
	return ret;
}

/* Is tail "ADDRESS.PORT" (a ring name's part after "mcfan.PREFIX."), or that and
 * ".newPID" (a ring being made)? *tmp_pid gets PID, or 0. */
static bool
ring_tail(const char *tail, int32_t *tmp_pid)
{
	char addr[MCFAN_RD_NAME_MAX], bin[16];
	const char *dot, *nw;
	size_t n;

	*tmp_pid = 0;
	nw = strstr(tail, ".new");
	n = nw != NULL ? (size_t)(nw - tail) : strlen(tail);
	if (nw != NULL) {
		if (nw[4] == '\0' || strspn(nw + 4, "0123456789") != strlen(nw + 4))
			return false;
		*tmp_pid = (int32_t)atoi(nw + 4);
	}
	if (n >= sizeof(addr))
		return false;
	memcpy(addr, tail, n);
	addr[n] = '\0';
	dot = strrchr(addr, '.');
	if (dot == NULL || dot[1] == '\0' || strspn(dot + 1, "0123456789") != strlen(dot + 1))
		return false;
	addr[dot - addr] = '\0';
	return inet_pton(AF_INET, addr, bin) == 1 || inet_pton(AF_INET6, addr, bin) == 1;
}

/*
 * Is /dev/shm/NAME a ring whose writer is gone (writer_runs(): its pid, and its start time
 * when the header has one)? Not a ring, a half-made one, or one of this process: false.
 */
static bool
ring_stale(const char *name)
{
	char path[PATH_MAX];
	struct mcfan_rd_hdr *h;
	struct stat st;
	bool stale = false;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", SHM_DIR, name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size >= MCFAN_RD_HDR_SIZE) {
		h = mmap(NULL, MCFAN_RD_HDR_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		if (h != MAP_FAILED) {
			if (memcmp(h->magic, MCFAN_RD_MAGIC, sizeof(MCFAN_RD_MAGIC)) == 0)
				stale = h->writer_pid > 0 && h->writer_pid != (int32_t)getpid() &&
					!writer_runs(h);
			munmap(h, MCFAN_RD_HDR_SIZE);
		}
	}
	close(fd);
	return stale;
}

int
mcfan_rw_remove_stale(const char *prefix)
{
	char want[MCFAN_RD_NAME_MAX], path[PATH_MAX];
	struct dirent *de;
	int32_t tmp_pid;
	size_t wl;
	int n = 0;
	DIR *d;

	if (snprintf(want, sizeof(want), "mcfan.%s.", prefix) >= (int)sizeof(want))
		return -ENAMETOOLONG;
	wl = strlen(want);
	d = opendir(SHM_DIR);
	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, want, wl) != 0 || !ring_tail(de->d_name + wl, &tmp_pid))
			continue;
		/* a ring being made names its maker (its pid alone); a ring its writer */
		if (tmp_pid != 0 ? tmp_pid < 0 || tmp_pid == (int32_t)getpid() ||
				   mcfan_rd_pid_alive(tmp_pid) : !ring_stale(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", SHM_DIR, de->d_name);
		if (unlink(path) == 0)
			n++;
	}
	closedir(d);
	return n;
}

int
mcfan_rw_name_check(const struct mcfan_rw *w)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", SHM_DIR, w->name);
	if (stat(path, &st) < 0)
		return errno == ENOENT ? 1 : -errno;
	return (uint64_t)st.st_dev == w->obj_dev && (uint64_t)st.st_ino == w->obj_ino ? 0 : 1;
}

void
mcfan_rw_destroy(struct mcfan_rw *w)
{
	if (w == NULL)
		return;
	atomic_store_explicit(&w->hdr->head, w->head, memory_order_release);
	atomic_store_explicit(&w->hdr->state, MCFAN_RD_STATE_CLOSED, memory_order_release);
	mcfan_rw_release(w, true);
}

void
mcfan_rw_release(struct mcfan_rw *w, bool unlink_name)
{
	if (w == NULL)
		return;
	/* a new futex value, so a reader between its look and its sleep does not sleep */
	atomic_fetch_add_explicit(&w->hdr->head_futex, 1u << 31, memory_order_seq_cst);
	syscall(SYS_futex, &w->hdr->head_futex, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	if (unlink_name)
		shm_unlink(w->name);
	munmap(w->hdr, w->size);
	free(w);
}

bool
mcfan_rw_set_serve(struct mcfan_rw *w, uint32_t serve, const char *engine, uint32_t lcore)
{
	struct mcfan_rd_hdr *h = w->hdr;
	char name[MCFAN_RD_ENGINE_MAX] = "", now[MCFAN_RD_ENGINE_MAX];
	uint32_t seq, was, was_lcore;

	if (engine != NULL)
		snprintf(name, sizeof(name), "%s", engine);
	was = mcfan_rd_serve_read(h, &was_lcore, now, sizeof(now));
	if (was == serve && was_lcore == lcore && strcmp(now, name) == 0)
		return false;
	/* seqlock: odd while the words change (one writer: the caller holds the action lock) */
	seq = atomic_load_explicit(&h->serve_seq, memory_order_relaxed);
	atomic_store_explicit(&h->serve_seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&h->serve, serve, memory_order_relaxed);
	atomic_store_explicit(&h->serve_lcore, lcore, memory_order_relaxed);
	memcpy(h->serve_engine, name, sizeof(name));
	atomic_store_explicit(&h->serve_seq, seq + 2, memory_order_seq_cst);
	/* sleepers look again: no frame comes, so mcfan_reader_wait() tells them why */
	if (serve != MCFAN_RD_SERVE_READERS && serve != MCFAN_RD_SERVE_UNSET)
		syscall(SYS_futex, &h->head_futex, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	return true;
}

/* Is process pid stopped: state (field 3 of /proc/PID/stat, proc(5)) T (a stop signal) or
 * t (a debugger)? false when /proc cannot say. */
static bool
proc_stopped(int32_t pid)
{
	int s = mcfan_rd_proc_state(pid);

	return s == 'T' || s == 't';
}

int
mcfan_rw_reader_at(const struct mcfan_rw *w, unsigned int i, uint64_t now_ns,
		   struct mcfan_rw_reader_info *r)
{
	uint64_t head = mcfan_atomic_u64_load(&w->written, memory_order_relaxed);
	const struct mcfan_rd_reader *row;
	uint64_t o, cur, last, start;

	if (i >= w->n_readers)
		return -EINVAL;
	row = row_at(w, i);
	o = atomic_load_explicit(&row->owner, memory_order_acquire);
	r->slot = i;
	r->owner = o;
	r->pid = mcfan_rd_owner_pid(o);
	r->alive = r->pid > 0 && mcfan_rd_pid_runs(r->pid);
	r->frames = atomic_load_explicit(&row->frames, memory_order_relaxed);
	r->lost = atomic_load_explicit(&row->lost, memory_order_relaxed);
	r->laps = atomic_load_explicit(&row->laps, memory_order_relaxed);
	cur = atomic_load_explicit(&row->cursor, memory_order_relaxed);
	last = atomic_load_explicit(&row->last_ns, memory_order_relaxed);
	start = atomic_load_explicit(&row->started_ns, memory_order_relaxed);
	r->lag = head > cur ? head - cur : 0;
	/* as mcfan_reader_stats(): what the writer overwrote before the reader got there is
	 * lost now (a stopped or slow reader shows it at once), and so is the lap that lost it */
	if (r->lag > w->n_slots) {
		r->lost += r->lag - w->n_slots;
		r->lag = w->n_slots;
		r->laps++;
	}
	r->idle_ns = now_ns > last ? now_ns - last : 0;
	r->age_ns = now_ns > start ? now_ns - start : 0;
	r->waiting = atomic_load_explicit(&row->waiting, memory_order_relaxed) != 0;
	r->stopped = r->alive && proc_stopped(r->pid);
	return r->pid > 0 ? 1 : 0;
}

unsigned int
mcfan_rw_readers(const struct mcfan_rw *w, struct mcfan_rw_reader_info *out, unsigned int max,
		 uint64_t now_ns)
{
	unsigned int i, n = 0;

	for (i = 0; i < w->n_readers && n < max; i++)
		if (mcfan_rw_reader_at(w, i, now_ns, &out[n]) > 0)
			n++;
	return n;
}

unsigned int
mcfan_rw_reap(struct mcfan_rw *w)
{
	/* before the rows: a reader's add to waiters comes after its claim of a row, so a
	 * count seen here has its row seen below (seq_cst load, acquire loads after it) */
	uint32_t before = atomic_load_explicit(&w->hdr->waiters, memory_order_seq_cst);
	unsigned int i, n = 0;
	bool live = false;
	uint32_t left;

	for (i = 0; i < w->n_readers; i++) {
		struct mcfan_rd_reader *row = (struct mcfan_rd_reader *)(uintptr_t)row_at(w, i);
		uint64_t o = atomic_load_explicit(&row->owner, memory_order_acquire);

		if (mcfan_rd_owner_pid(o) <= 0)
			continue;
		if (mcfan_rd_pid_runs(mcfan_rd_owner_pid(o))) {
			live = true;
			continue;
		}
		if (atomic_load_explicit(&row->waiting, memory_order_relaxed) == 0)
			continue;
		if (atomic_exchange_explicit(&row->waiting, 0, memory_order_acq_rel) == 1) {
			atomic_fetch_sub_explicit(&w->hdr->waiters, 1, memory_order_seq_cst);
			n++;
		}
	}
	/* counts no row holds: a reader killed between its add to waiters and its row's
	 * waiting store, or between taking its waiting back and its sub. With no reader alive
	 * every count left is one of those; taken back only if waiters did not move meanwhile
	 * (a reader that came since changed it: the next reap looks again) */
	left = before - n;
	if (!live && before >= n && left != 0 &&
	    atomic_compare_exchange_strong_explicit(&w->hdr->waiters, &left, 0,
						    memory_order_seq_cst, memory_order_relaxed))
		n += left;
	return n;
}
