/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_READER_RING_H
#define MCFAN_READER_RING_H

/**
 * @file
 * The reader ring's format in shared memory: one per group, one writer (the mcfan worker
 * that owns the group), any number of reader processes (docs/readers.md is the format spec
 * in prose). C11 with POSIX (kill(2)), no DPDK: the writer (mcfan_reader_writer.h) and the
 * reader library (mcfan_reader.h, libmcfan-reader.so) both include it. It also compiles as C++11 and
 * later, where the shared words are std::atomic (the same size, lock-free, checked below).
 *
 * The object is a POSIX shared-memory object (shm_open(3), /dev/shm/NAME) named
 * "mcfan.PREFIX.ADDRESS.PORT" (mcfan_rd_name()): PREFIX is mcfan's EAL --file-prefix
 * (default "rte"), ADDRESS the group as inet_ntop(3) writes it, PORT its UDP destination
 * port in decimal, 0 for a group that matches every port. Layout (native byte order, all
 * offsets in bytes from the start of the object):
 *
 *   0                  struct mcfan_rd_hdr (MCFAN_RD_HDR_SIZE bytes)
 *   hdr_size           n_readers x struct mcfan_rd_reader (MCFAN_RD_READER_SIZE each)
 *   slots_offset       n_slots x slot_size bytes: struct mcfan_rd_slot, then the data
 *
 * Frame s (0, 1, 2 ... in the order written) lives in slot s % n_slots. Its slot's seq is
 * 2s+1 while the writer copies it in and 2s+2 once it is complete (0: never written): a
 * seqlock per slot. The header's head is the number of frames published: frames 0..head-1
 * are complete, the newest n_slots of them still in the ring. A reader keeps its cursor
 * (the next frame it wants) in its own memory; it reads slot cursor % n_slots, and the
 * frame is its own if seq is 2*cursor+2 before and after it looked; a larger seq means the
 * writer lapped it. The writer never reads a reader's state except waiters (below).
 *
 * Who writes what:
 *  - the header's constant part: the writer, once, before the object gets its final name;
 *  - head, head_futex, state: the writer only (release stores, per burst);
 *  - waiters: readers (seq_cst add before they sleep on head_futex, sub when they wake;
 *    mcfan subtracts a dead reader's count, see struct mcfan_rd_reader.waiting); the writer
 *    loads it after each burst it published and calls FUTEX_WAKE only when it is not 0;
 *  - the serve words (serve_seq, serve, serve_lcore, serve_engine; MCFAN_RD_FLAG_SERVE):
 *    mcfan's control side (mcfan_rw_set_serve(), seqlock), never a worker; readers read them
 *    at open and while they wait (mcfan_rd_serve_read());
 *  - a reader slot: the reader that claimed it (owner word by compare-and-swap), and
 *    mcfan's control side only to take back a dead reader's waiting count.
 */

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__cplusplus) && defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE)
/* -std=c11 without POSIX: <signal.h> then declares no kill(2), and mcfan_rd_pid_alive()
 * would call an implicit declaration (an error from GCC 14 on) */
#error "mcfan_reader_ring.h needs POSIX (kill(2)): compile with -std=gnu11, or define _POSIX_C_SOURCE 200809L before the first #include"
#else /* the rest, only where it compiles: one error, not one a call */

#ifdef __cplusplus
#include <atomic>
/** A word shared between processes: std::atomic in C++ (lock-free: checked below). */
#define MCFAN_RD_ATOMIC(T) std::atomic<T>
/** atomic_load_explicit() of C11 and C++11 alike; mo is a memory_order_* name. */
#define MCFAN_RD_LOAD(p, mo) std::atomic_load_explicit((p), std::mo)
/** atomic_thread_fence() of C11 and C++11 alike. */
#define MCFAN_RD_FENCE(mo) std::atomic_thread_fence(std::mo)
/** A compile-time check, C11 and C++11 alike. */
#define MCFAN_RD_STATIC_ASSERT(c, m) static_assert(c, m)
static_assert(sizeof(std::atomic<uint64_t>) == 8 && sizeof(std::atomic<uint32_t>) == 4,
	      "the ring's shared words must be plain 8- and 4-byte words");
static_assert(ATOMIC_LONG_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2 &&
	      ATOMIC_INT_LOCK_FREE == 2, "the ring's shared words must be lock-free");
#else
#include <stdatomic.h>
/** A word shared between processes: _Atomic in C11. */
#define MCFAN_RD_ATOMIC(T) _Atomic T
/** atomic_load_explicit() of C11 and C++11 alike; mo is a memory_order_* name. */
#define MCFAN_RD_LOAD(p, mo) atomic_load_explicit((p), mo)
/** atomic_thread_fence() of C11 and C++11 alike. */
#define MCFAN_RD_FENCE(mo) atomic_thread_fence(mo)
/** A compile-time check, C11 and C++11 alike. */
#define MCFAN_RD_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/** Magic bytes at offset 0 ("MCFANRD" and a NUL). */
#define MCFAN_RD_MAGIC "MCFANRD"
/** Format version in mcfan_rd_hdr.version; a reader refuses another. */
#define MCFAN_RD_VERSION 1u
/** Bytes of the header (one 4 KiB page, so the reader table starts page-aligned). */
#define MCFAN_RD_HDR_SIZE 4096u
/** Bytes of one reader slot (one cache line). */
#define MCFAN_RD_READER_SIZE 64u
/** Bytes of a slot's header before its data. */
#define MCFAN_RD_SLOT_HDR 32u
/** Alignment of slot_size and of every slot, bytes (a cache line). */
#define MCFAN_RD_ALIGN 64u
/** Smallest and largest number of slots a ring may have (a power of two). */
#define MCFAN_RD_SLOTS_MIN 2u
#define MCFAN_RD_SLOTS_MAX (1u << 24)
/** Smallest and largest slot size, bytes. */
#define MCFAN_RD_SLOT_SIZE_MIN 128u
#define MCFAN_RD_SLOT_SIZE_MAX 65600u
/** Largest number of reader slots. */
#define MCFAN_RD_READERS_MAX 4096u
/** Longest group text in the header, with the NUL ("[" IPv6 "]:" port fits). */
#define MCFAN_RD_GROUP_MAX 64u
/** Longest object name, with the NUL (NAME_MAX 255 of /dev/shm). */
#define MCFAN_RD_NAME_MAX 256u

/**
 * Longest file prefix, characters: a ring's name "mcfan.PREFIX.ADDRESS.PORT" (an address of up
 * to 45 characters, a port of up to 5) with the writer's temporary ".newPID" must fit NAME_MAX
 * 255. mcfan refuses a longer --file-prefix before EAL (app/mcfan/vdev_check.c), the reader
 * library a longer prefix at open.
 */
#define MCFAN_RD_PREFIX_MAX 186u

/** mcfan_rd_hdr.state values. */
#define MCFAN_RD_STATE_OPEN 1u   /**< The writer is running. */
#define MCFAN_RD_STATE_CLOSED 2u /**< The writer has stopped: no frame comes any more. */

/** mcfan_rd_hdr.flags: each slot holds a whole Ethernet frame as received (L2 onwards). */
#define MCFAN_RD_FLAG_ETHERNET 1u
/**
 * mcfan_rd_hdr.flags: writer_start holds the writer's start time. A compatible addition to
 * version 1: the field lies in bytes that were padding (zero), an older reader ignores it,
 * and a reader that finds the flag clear (an older writer) judges the writer by its pid only.
 */
#define MCFAN_RD_FLAG_WRITER_START 2u
/**
 * mcfan_rd_hdr.flags: the writer keeps the serve words (serve_seq, serve, serve_lcore,
 * serve_engine) true: whether its readers engine writes this ring and, if not, why. A
 * compatible addition to version 1 like MCFAN_RD_FLAG_WRITER_START (bytes that were padding,
 * zero); a reader that finds the flag clear (an older writer) cannot tell and reads on.
 */
#define MCFAN_RD_FLAG_SERVE 4u
/** Longest engine name in mcfan_rd_hdr.serve_engine, with the NUL. */
#define MCFAN_RD_ENGINE_MAX 32u

/** mcfan_rd_hdr.serve values: who writes the ring's frames now. */
#define MCFAN_RD_SERVE_UNSET 0u   /**< Not set yet (or an older writer): taken as served. */
#define MCFAN_RD_SERVE_READERS 1u /**< mcfan's readers engine writes the group's frames. */
#define MCFAN_RD_SERVE_ENGINE 2u  /**< The group goes to engine serve_engine, not readers. */
#define MCFAN_RD_SERVE_LCORE 3u   /**< Its writer lcore serve_lcore runs serve_engine for
				   * every copy (console `set engine LCORE NAME`). */
#define MCFAN_RD_SERVE_LEFT 4u    /**< mcfan left the group: no frame comes any more. */
#define MCFAN_RD_SERVE_MOVED 5u   /**< The group was joined again on other workers: a new
				   * ring of the same name has its frames, this one none. */

/** Field of /proc/PID/stat that holds the process's start time (proc(5): starttime). */
#define MCFAN_RD_STAT_STARTTIME 22

/** The header at offset 0. */
struct mcfan_rd_hdr {
	/* constant after creation (one cache line and the group text) */
	char magic[8];              /**< MCFAN_RD_MAGIC with its NUL. */
	uint32_t version;           /**< MCFAN_RD_VERSION. */
	uint32_t hdr_size;          /**< MCFAN_RD_HDR_SIZE: offset of the reader table. */
	uint32_t n_slots;           /**< Slots, a power of two, MCFAN_RD_SLOTS_MIN..MAX. */
	uint32_t slot_size;         /**< Bytes per slot, header included, multiple of 64. */
	uint32_t n_readers;         /**< Reader slots, 1..MCFAN_RD_READERS_MAX. */
	uint32_t reader_size;       /**< MCFAN_RD_READER_SIZE. */
	uint64_t slots_offset;      /**< Offset of slot 0, a multiple of 4096. */
	uint64_t total_size;        /**< Bytes of the whole object. */
	int32_t writer_pid;         /**< The writer's process id. */
	uint32_t flags;             /**< MCFAN_RD_FLAG_* bits. */
	uint64_t created_ns;        /**< CLOCK_REALTIME at creation, ns since the epoch. */
	char group[MCFAN_RD_GROUP_MAX]; /**< The group as mcfan names it: "239.9.9.1:3999". */
	/** The writer's start time, clock ticks after boot (/proc/PID/stat field 22), when
	 * flags has MCFAN_RD_FLAG_WRITER_START: with writer_pid it names the process, so a pid
	 * reused by another process is not taken for a live writer. */
	uint64_t writer_start;
	/** With MCFAN_RD_FLAG_SERVE, a seqlock over the three serve fields below: odd while
	 * mcfan's control side changes them (release stores; a reader re-reads until it finds
	 * the same even value before and after). The only header words besides the writer's
	 * line that change after creation; the worker never touches them. */
	MCFAN_RD_ATOMIC(uint32_t) serve_seq;
	MCFAN_RD_ATOMIC(uint32_t) serve;     /**< MCFAN_RD_SERVE_*. */
	MCFAN_RD_ATOMIC(uint32_t) serve_lcore; /**< With MCFAN_RD_SERVE_LCORE: the writer lcore's id. */
	/** With MCFAN_RD_SERVE_ENGINE or _LCORE: the engine the frames go to ("count"). */
	char serve_engine[MCFAN_RD_ENGINE_MAX];
	uint8_t pad0[256 - 180];
	/* the writer's words, a cache line of their own (offset 256) */
	MCFAN_RD_ATOMIC(uint64_t) head;      /**< Frames published (frames 0..head-1 complete). */
	MCFAN_RD_ATOMIC(uint32_t) head_futex; /**< Low 32 bits of head, bumped at close: the futex. */
	MCFAN_RD_ATOMIC(uint32_t) state;     /**< MCFAN_RD_STATE_*. */
	uint8_t pad1[64 - 16];
	/* the readers' word (offset 320) */
	MCFAN_RD_ATOMIC(uint32_t) waiters;   /**< Readers asleep or about to sleep on head_futex. */
	uint8_t pad2[MCFAN_RD_HDR_SIZE - 324];
};

/** One reader slot of the reader table (a cache line); all counters from the reader. */
struct mcfan_rd_reader {
	/** pid | generation << 32; pid 0 = free. Claimed and released with compare-and-swap;
	 * a slot whose pid no longer exists is a dead reader's and may be claimed again. */
	MCFAN_RD_ATOMIC(uint64_t) owner;
	MCFAN_RD_ATOMIC(uint64_t) frames;    /**< Frames read. */
	MCFAN_RD_ATOMIC(uint64_t) lost;      /**< Frames skipped because the writer lapped the reader. */
	MCFAN_RD_ATOMIC(uint64_t) laps;      /**< Times the writer lapped it. */
	MCFAN_RD_ATOMIC(uint64_t) cursor;    /**< The next frame the reader wants (lag = head - cursor). */
	MCFAN_RD_ATOMIC(uint64_t) last_ns;   /**< CLOCK_MONOTONIC of its last read or wait, ns. */
	MCFAN_RD_ATOMIC(uint64_t) started_ns; /**< CLOCK_MONOTONIC when it opened the ring, ns. */
	/** 1 while the reader counts in waiters (set after its add, cleared by whoever
	 * exchanges it back to 0 first: the reader when it wakes, or mcfan / the next owner
	 * of the slot for a dead reader, which then subtracts it from waiters). */
	MCFAN_RD_ATOMIC(uint32_t) waiting;
	uint32_t pad;
};

/** A slot's header; its data follows at MCFAN_RD_SLOT_HDR. */
struct mcfan_rd_slot {
	MCFAN_RD_ATOMIC(uint64_t) seq;       /**< 2s+1 while frame s is written, 2s+2 once complete. */
	MCFAN_RD_ATOMIC(uint32_t) len;       /**< Bytes of data, <= slot_size - MCFAN_RD_SLOT_HDR. */
	uint32_t pad;
	MCFAN_RD_ATOMIC(uint64_t) rx_ns;     /**< When mcfan received the frame: CLOCK_REALTIME, ns. */
	uint64_t pad2;
};

MCFAN_RD_STATIC_ASSERT(sizeof(struct mcfan_rd_hdr) == MCFAN_RD_HDR_SIZE, "header size");
MCFAN_RD_STATIC_ASSERT(offsetof(struct mcfan_rd_hdr, serve_seq) == 136, "serve words at 136");
MCFAN_RD_STATIC_ASSERT(offsetof(struct mcfan_rd_hdr, head) == 256, "the writer's line at 256");
MCFAN_RD_STATIC_ASSERT(sizeof(struct mcfan_rd_reader) == MCFAN_RD_READER_SIZE, "reader slot size");
MCFAN_RD_STATIC_ASSERT(sizeof(struct mcfan_rd_slot) == MCFAN_RD_SLOT_HDR, "slot header size");

/**
 * The shared-memory object's name of a group (for shm_open(3): with the leading '/').
 *
 * @param buf
 *   Receives "/mcfan.PREFIX.ADDRESS.PORT"; MCFAN_RD_NAME_MAX bytes always suffice for a
 *   prefix of up to MCFAN_RD_PREFIX_MAX characters.
 * @param len
 *   Size of buf, bytes.
 * @param prefix
 *   mcfan's EAL --file-prefix ("rte" by default); no '/'.
 * @param addr
 *   The group address as inet_ntop(3) writes it ("239.9.9.1", "ff3e::1").
 * @param port
 *   UDP destination port, 0 for a group that matches every port.
 * @return
 *   0, or -ENAMETOOLONG if buf is too small.
 */
static inline int
mcfan_rd_name(char *buf, size_t len, const char *prefix, const char *addr, unsigned int port)
{
	int n = snprintf(buf, len, "/mcfan.%s.%s.%u", prefix, addr, port);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/**
 * Is prefix a file prefix an mcfan can run under (one rule for mcfan, mcfan-top and the reader
 * library)? A DPDK file prefix names a directory under EAL's runtime directory
 * (RUNDIR/dpdk/PREFIX) and is part of the rings' names: it is not empty, has no '/' (a path
 * would leave the runtime directory), no '%' (DPDK 22.11's EAL refuses it), no control
 * character (a "\r" or "\n" of a file the prefix was read from would make a directory
 * nobody finds by the name), is not "." or "..", and has at most MCFAN_RD_PREFIX_MAX
 * characters.
 *
 * @param prefix
 *   The prefix; not NULL.
 * @param why
 *   Receives, on an error, a sentence naming the prefix and the rule ("file prefix 'a/b':
 *   has a '/' ..."); may be NULL.
 * @param len
 *   Size of why, bytes.
 * @return
 *   0; -EINVAL (empty, '/', '%', a control character, "." or ".."), -ENAMETOOLONG
 *   (longer than MCFAN_RD_PREFIX_MAX characters).
 */
static inline int
mcfan_rd_prefix_check(const char *prefix, char *why, size_t len)
{
	static const char rule[] = "give the name of mcfan's EAL --file-prefix: a directory "
				   "name under DPDK's runtime directory (not empty, no '/' or "
				   "'%', not . or ..)";
	size_t n = strlen(prefix), i;
	const char *bad = NULL;

	if (n > MCFAN_RD_PREFIX_MAX) {
		if (why != NULL)
			snprintf(why, len, "file prefix '%.40s...': %zu characters, more than the "
				 "%u a reader ring's name allows (mcfan refuses longer ones too)",
				 prefix, n, MCFAN_RD_PREFIX_MAX);
		return -ENAMETOOLONG;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)prefix[i] >= 0x20 && prefix[i] != 0x7f)
			continue;
		/* not quoted: the character would break the line it is shown on */
		if (why != NULL)
			snprintf(why, len, "file prefix of %zu characters: has a control character "
				 "(0x%02x, character %zu%s): %s", n, (unsigned char)prefix[i], i + 1,
				 prefix[i] == '\r' || prefix[i] == '\n' ?
				 "; a line end of the file it was read from?" : "", rule);
		return -EINVAL;
	}
	if (n == 0)
		bad = "is empty";
	else if (strchr(prefix, '/') != NULL)
		bad = "has a '/' (it is not a path)";
	else if (strchr(prefix, '%') != NULL)
		bad = "has a '%' (DPDK's EAL refuses it)";
	else if (strcmp(prefix, ".") == 0 || strcmp(prefix, "..") == 0)
		bad = "is a directory of the path itself";
	if (bad == NULL)
		return 0;
	if (why != NULL)
		snprintf(why, len, "file prefix '%s': %s: %s", prefix, bad, rule);
	return -EINVAL;
}

/**
 * Offset of the first slot for n_readers reader slots: rounded up to 4096 bytes.
 *
 * @return
 *   Bytes from the start of the ring's file, a multiple of 4096.
 */
static inline uint64_t
mcfan_rd_slots_offset(uint32_t n_readers)
{
	uint64_t end = (uint64_t)MCFAN_RD_HDR_SIZE + (uint64_t)n_readers * MCFAN_RD_READER_SIZE;

	return (end + 4095u) & ~(uint64_t)4095u;
}

/** Room for /proc/PID/stat's text, bytes: its 52 fields take about 350 (proc(5)). */
#define MCFAN_RD_STAT_LEN 1024

/**
 * Read /proc/PID/stat (proc(5)) and find its field 3, the state: the one parser of that
 * file for mcfan_rd_proc_start(), mcfan_rd_proc_state() and mcfan's readers table. Field 2,
 * the command (at most 15 bytes, set by the process itself), is in parentheses and may hold
 * anything, spaces, ") " and line ends too: the whole file is read, and field 3 starts after
 * the last ") " of it. Pure C.
 *
 * @param pid
 *   A process id (> 0).
 * @param buf
 *   Receives the file's text, NUL-terminated; owned by the caller.
 * @param len
 *   Size of buf in bytes; MCFAN_RD_STAT_LEN suffices.
 * @param state
 *   Receives a pointer into buf at field 3 (the state letter, the other fields after it,
 *   separated by spaces); not NULL.
 * @return
 *   0; -ENOENT (no such process, or no /proc), -EPROTO (a text this parser does not know, or
 *   longer than len), or the negative errno of fopen(3) (-EACCES ...).
 */
static inline int
mcfan_rd_proc_stat(int32_t pid, char *buf, size_t len, char **state)
{
	char path[32], *p;
	size_t n;
	FILE *f;

	if (pid <= 0)
		return -ENOENT;
	if (len < 2)
		return -EPROTO;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return errno == ENOENT || errno == ESRCH ? -ENOENT : -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	if (n == 0)
		return -ENOENT; /* gone between open and read */
	if (n == len - 1)
		return -EPROTO; /* no room to know the end: the last ')' may be further on */
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ' || p[2] == '\0')
		return -EPROTO;
	*state = p + 2;
	return 0;
}

/**
 * The state of process pid (/proc/PID/stat field 3, proc(5)): 'R' running, 'S' sleeping,
 * 'T' stopped by a signal, 't' stopped by a debugger, 'Z' zombie ... Pure C.
 *
 * @param pid
 *   A process id (> 0).
 * @return
 *   The state letter (> 0), or a negative errno of mcfan_rd_proc_stat().
 */
static inline int
mcfan_rd_proc_state(int32_t pid)
{
	char line[MCFAN_RD_STAT_LEN], *p = NULL;
	int ret = mcfan_rd_proc_stat(pid, line, sizeof(line), &p);

	return ret < 0 ? ret : (unsigned char)p[0];
}

/**
 * The start time of process pid (/proc/PID/stat field 22, proc(5)): clock ticks after boot.
 * Pure C: the writer stores its own in the header, a reader compares it with the pid's now.
 *
 * @param pid
 *   A process id (> 0).
 * @param start
 *   Receives the start time; not NULL.
 * @return
 *   0; -ENOENT (no such process, or no /proc), -ESRCH (the process has exited and waits to be
 *   reaped by its parent: a zombie, state Z or X, field 3; kill(pid, 0) still finds it, but it
 *   runs no more), -EPROTO (a stat text this parser does not know), or the negative errno of
 *   fopen(3) (-EACCES ...).
 */
static inline int
mcfan_rd_proc_start(int32_t pid, uint64_t *start)
{
	char line[MCFAN_RD_STAT_LEN], *p = NULL, *end;
	unsigned long long v;
	int field, ret;

	ret = mcfan_rd_proc_stat(pid, line, sizeof(line), &p);
	if (ret < 0)
		return ret;
	/* field 3, the state: Z (zombie) and X (dead) have exited */
	if (p[0] == 'Z' || p[0] == 'X')
		return -ESRCH;
	for (field = 3; field < MCFAN_RD_STAT_STARTTIME; field++) {
		while (*p == ' ')
			p++;
		while (*p != ' ' && *p != '\0')
			p++;
		if (*p == '\0')
			return -EPROTO;
	}
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno != 0 || end == p)
		return -EPROTO;
	*start = (uint64_t)v;
	return 0;
}

/**
 * Does process pid exist? kill(2) with signal 0; EPERM means it does and is another user's.
 * A zombie exists too (see mcfan_rd_pid_runs()).
 *
 * @param pid
 *   A process id; <= 0 is no process.
 * @return
 *   true if a process with that pid exists.
 */
static inline bool
mcfan_rd_pid_alive(int32_t pid)
{
	if (pid <= 0)
		return false;
	return kill(pid, 0) == 0 || errno == EPERM;
}

/**
 * Does process pid run: it exists and is not a zombie (exited, not yet reaped by its parent:
 * kill(2) still finds it, but it reads and writes nothing any more)?
 *
 * @param pid
 *   A process id; <= 0 is no process.
 * @return
 *   true if it exists and /proc does not show it exited (unreadable /proc: the pid decides).
 */
static inline bool
mcfan_rd_pid_runs(int32_t pid)
{
	uint64_t start;

	return mcfan_rd_pid_alive(pid) && mcfan_rd_proc_start(pid, &start) != -ESRCH;
}

/**
 * Does a ring's writer still run? Its pid runs (mcfan_rd_pid_runs()) and, when its start
 * time is known (the header's MCFAN_RD_FLAG_WRITER_START), the process with that pid started
 * then: a pid reused by another process after the writer died is not the writer. A start
 * time that cannot be read (no /proc, hidepid) leaves the answer to the pid. The one rule of
 * readers (a wait's -EOWNERDEAD) and of mcfan (a stale ring of a dead mcfan).
 *
 * @param pid
 *   The header's writer_pid.
 * @param start_known
 *   The header has the writer's start time.
 * @param start
 *   The writer's start time (/proc/PID/stat field 22, clock ticks after boot).
 * @return
 *   true if the writer runs.
 */
static inline bool
mcfan_rd_writer_runs(int32_t pid, bool start_known, uint64_t start)
{
	uint64_t now;
	int ret;

	if (!mcfan_rd_pid_alive(pid))
		return false;
	ret = mcfan_rd_proc_start(pid, &now);
	if (ret == -ESRCH)
		return false; /* a zombie: exited, not reaped yet */
	if (!start_known || ret < 0)
		/* no /proc, or hidden: the pid decides (and a process gone meanwhile is dead) */
		return mcfan_rd_pid_alive(pid);
	return now == start;
}

/**
 * Read the serve words of a header (MCFAN_RD_FLAG_SERVE) consistently: the seqlock's even
 * value before and after. Pure C; the reader library and mcfan's read side both use it.
 *
 * @param h
 *   The mapped header.
 * @param lcore
 *   Receives serve_lcore (MCFAN_RD_SERVE_LCORE); may be NULL.
 * @param engine
 *   Receives serve_engine, NUL-terminated (MCFAN_RD_SERVE_ENGINE, _LCORE; else ""); may
 *   be NULL.
 * @param len
 *   Size of engine, bytes (MCFAN_RD_ENGINE_MAX always suffices).
 * @return
 *   MCFAN_RD_SERVE_*; MCFAN_RD_SERVE_UNSET when the writer does not keep the words (flag
 *   clear) or changes them for longer than 1,000 looks.
 */
static inline uint32_t
mcfan_rd_serve_read(const struct mcfan_rd_hdr *h, uint32_t *lcore, char *engine, size_t len)
{
	char name[MCFAN_RD_ENGINE_MAX];
	uint32_t s0, s1, serve, lc;
	unsigned int tries;

	if (engine != NULL && len > 0)
		engine[0] = '\0';
	if (lcore != NULL)
		*lcore = 0;
	if (!(h->flags & MCFAN_RD_FLAG_SERVE))
		return MCFAN_RD_SERVE_UNSET;
	for (tries = 0; tries < 1000; tries++) {
		s0 = MCFAN_RD_LOAD(&h->serve_seq, memory_order_acquire);
		if (s0 & 1u)
			continue;
		serve = MCFAN_RD_LOAD(&h->serve, memory_order_relaxed);
		lc = MCFAN_RD_LOAD(&h->serve_lcore, memory_order_relaxed);
		memcpy(name, h->serve_engine, sizeof(name));
		MCFAN_RD_FENCE(memory_order_acquire);
		s1 = MCFAN_RD_LOAD(&h->serve_seq, memory_order_relaxed);
		if (s0 != s1)
			continue;
		name[sizeof(name) - 1] = '\0';
		if (engine != NULL && len > 0)
			snprintf(engine, len, "%s", name);
		if (lcore != NULL)
			*lcore = lc;
		return serve;
	}
	return MCFAN_RD_SERVE_UNSET;
}

/**
 * Process id in a reader slot's owner word (0 = free).
 *
 * @return
 *   The process id, or 0 for a free slot.
 */
static inline int32_t
mcfan_rd_owner_pid(uint64_t owner)
{
	return (int32_t)(uint32_t)(owner & 0xffffffffu);
}

/**
 * The owner word that follows owner when pid takes (or, pid 0, frees) the slot.
 *
 * @return
 *   The next owner word (its generation, the high 32 bits, one more).
 */
static inline uint64_t
mcfan_rd_owner_next(uint64_t owner, int32_t pid)
{
	return (((owner >> 32) + 1) << 32) | (uint32_t)pid;
}

#endif /* strict ISO C without POSIX */

#endif /* MCFAN_READER_RING_H */
