/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_READER_WRITER_H
#define MCFAN_READER_WRITER_H

/**
 * @file
 * The writer side of the reader ring (mcfan_reader_ring.h): create and remove a group's
 * shared-memory ring (control side), and the fast-path inlines a worker uses to put frames
 * in it (datapath/engine_readers.c). Pure C11 and Linux calls.
 *
 * Writer/reader protocol of struct mcfan_rw: the fields without a wrapper are written only
 * by the ring's owner worker (the one writer) after creation; the counters (struct
 * mcfan_atomic_u64) are written by the owner with relaxed stores and read by the control
 * side (show readers, telemetry) with relaxed loads; owner, name and geometry are constant.
 * The control side creates a ring before any worker can see it (release store into the
 * table), and frees it after the workers have stopped, or while they run once it is retired
 * (mcfan_rw_retire(): no copy can reach it any more), a worker grace period has passed since,
 * and it is off its owner's deferred-wake list (mcfan_rw_deferred() false), then
 * mcfan_rw_release().
 *
 * Per burst, for each ring it wrote to, the worker calls mcfan_rw_flush() once: it
 * publishes the new head (release), then, after a seq_cst fence, calls FUTEX_WAKE only if
 * a reader announced itself in waiters (readers add to waiters, then look at head: one of
 * the two always sees the other). That is the only system call of the fast path, at most
 * once per ring and burst, and only when some reader sleeps.
 *
 * Coalesced wakes (mcfan_rw_set_wake(), mcfan_rw_flush_at(), mcfan_rw_worker_poll()): the
 * head is still published every burst (a reader that has not gone to sleep sees the frames
 * at once), but the FUTEX_WAKE of sleeping readers waits until the frames published since
 * the last wake reach wake_frames, or the oldest of them has waited wake_ticks (the latency
 * budget, in the caller's clock: mcfan gives TSC cycles). A ring whose wake is deferred is
 * put on its worker's list (struct mcfan_rw_worker, owner only); the worker calls
 * mcfan_rw_worker_poll() on every pass of its loop, also passes that found no work, and it
 * wakes each ring whose budget ran out: a deferred wake is never forgotten, and the wakes
 * of a coalesced batch are exactly one. wake_frames 1 (or wake_ticks 0) is the old rule:
 * one wake per flush.
 */

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mcfan_atomic.h"
#include "mcfan_reader_ring.h"

/** Slots of a ring by default (frames it holds): 4096 frames, about 8 MiB a group. */
#define MCFAN_RW_SLOTS_DEFAULT 4096
/** Bytes of a slot by default: a 1,518-byte Ethernet frame with VLAN tags fits. */
#define MCFAN_RW_SLOT_SIZE_DEFAULT 2048u
/** Reader slots of a ring by default (readers listed at once). */
#define MCFAN_RW_READERS_DEFAULT 256u
/** Frames published to sleeping readers before they are woken, by default (coalesced
 * wakes: mcfan_rw_set_wake()). */
#define MCFAN_RW_WAKE_FRAMES_DEFAULT 32
/** Most frames of --reader-wake-frames. */
#define MCFAN_RW_WAKE_FRAMES_MAX 65536u
/** Latency budget of a deferred wake by default, microseconds. */
#define MCFAN_RW_WAKE_US_DEFAULT 200
/** Most microseconds of --reader-wake-us (1 s). */
#define MCFAN_RW_WAKE_US_MAX 1000000u

/** One ring, the writer's view. */
struct mcfan_rw {
	struct mcfan_rd_hdr *hdr;      /**< The mapping (hdr->... in shared memory). */
	uint8_t *slots;                /**< Slot 0 in the mapping. */
	struct mcfan_rd_slot *cur;     /**< Slot being written (between begin and end). */
	uint64_t head;                 /**< Next frame number; owner only. */
	uint64_t mask;                 /**< n_slots - 1. */
	uint32_t slot_size;            /**< Bytes per slot. */
	uint32_t data_max;             /**< Longest frame a slot holds, bytes. */
	uint32_t n_slots;              /**< Slots. */
	uint32_t n_readers;            /**< Reader slots. */
	bool pending;                  /**< Frames written since the last flush; owner only. */
	bool listed;                   /**< In the owner's flush list of this burst; owner only. */
	uint16_t owner;                /**< Worker index of the one writer; constant. */
	/** On the owner's deferred-wake list: written by the owner only (cleared with a release
	 * store as its last touch of the ring when it takes the ring off), read by the control
	 * side (mcfan_rw_deferred()) before it frees a retired ring. */
	struct mcfan_atomic_flag deferred;
	/** The control side retired the ring (mcfan_rw_retire(), release): the owner takes it
	 * off its deferred-wake list at its next pass, waking its sleepers if a wake was due,
	 * and never puts it back. */
	struct mcfan_atomic_flag retired;
	uint32_t wake_frames;          /**< Wake after this many frames (>= 1); owner only. */
	uint64_t wake_ticks;           /**< ... or once the oldest waited this long; owner. */
	uint64_t unwoken;              /**< Frames published since the last wake; owner only. */
	uint64_t unwoken_since;        /**< When the oldest of them was published; owner. */
	struct mcfan_rw *next_deferred; /**< Next ring of the owner's list; owner only. */
	size_t size;                   /**< Bytes of the mapping. */
	struct mcfan_atomic_u64 written; /**< Frames published (= head after a flush). */
	struct mcfan_atomic_u64 bytes;   /**< Bytes of those frames. */
	struct mcfan_atomic_u64 too_big; /**< Frames longer than data_max: reader_too_big. */
	struct mcfan_atomic_u64 wakes;   /**< FUTEX_WAKE calls made. */
	uint64_t bytes_local;            /**< bytes, owner's copy. */
	uint64_t too_big_local;          /**< too_big, owner's copy. */
	uint64_t obj_dev;                /**< st_dev of the object, from its creation. */
	uint64_t obj_ino;                /**< st_ino of the object, from its creation. */
	char name[MCFAN_RD_NAME_MAX];    /**< The object's name, "/mcfan.PREFIX.ADDR.PORT". */
	char group[MCFAN_RD_GROUP_MAX];  /**< The group's text. */
};

/** Counter slots of struct mcfan_rw_table (mcfan's MCFAN_MAX_GROUPS). */
#define MCFAN_RW_TABLE_SLOTS 1024u
/** Worker indexes of struct mcfan_rw_table (at least mcfan's MCFAN_MAX_WORKERS). */
#define MCFAN_RW_TABLE_WORKERS 1024u

/** Counters of one worker; single writer: that worker (relaxed stores). */
struct mcfan_rw_worker {
	struct mcfan_atomic_u64 not_owner; /**< Copies of a group another worker writes. */
	struct mcfan_atomic_u64 no_ring;   /**< Copies of a counter slot without a ring. */
	uint64_t not_owner_local;          /**< not_owner, the worker's copy. */
	uint64_t no_ring_local;            /**< no_ring, the worker's copy. */
	struct mcfan_rw *deferred;         /**< Rings whose wake is deferred; the worker only. */
	uint64_t deferred_n;               /**< Rings on that list; the worker only. */
	uint64_t next_due;                 /**< When the first of them is due (the last
					    * mcfan_rw_worker_poll()'s, caller's clock). */
	uint8_t pad[8];
};

/** A ring pointer of the table: a C11 atomic in a struct of its own (as lib/util/mcfan_atomic.h
 * does for numbers), so that a plain read or write does not compile. */
struct mcfan_rw_slot_ptr {
	_Atomic(struct mcfan_rw *) val; /**< Never touched directly. */
};

/**
 * The rings by counter slot, as the workers look them up for every copy.
 * W: the control side (release store, before any frame can carry the slot: before the
 * group table with the slot is published). R: the workers (acquire load per copy).
 */
struct mcfan_rw_table {
	/** By counter slot; only through mcfan_rw_slot_load() / mcfan_rw_slot_store(). */
	struct mcfan_rw_slot_ptr slot[MCFAN_RW_TABLE_SLOTS];
	/** TSC to CLOCK_REALTIME for the frames' rx_ns: ns = base_ns + ((tsc - base_tsc) *
	 * ns_mult >> 32); constant once the workers run. */
	uint64_t base_tsc;
	uint64_t base_ns;
	uint64_t ns_mult;
	struct mcfan_rw_worker worker[MCFAN_RW_TABLE_WORKERS];
};

/**
 * The ring of counter slot slot (< MCFAN_RW_TABLE_SLOTS), or NULL; acquire (workers).
 *
 * @return
 *   The ring (owned by the control side, which keeps every ring it made mapped until
 *   exit), or NULL when the slot has none.
 */
static inline struct mcfan_rw *
mcfan_rw_slot_load(const struct mcfan_rw_table *t, uint16_t slot)
{
	return atomic_load_explicit(&t->slot[slot].val, memory_order_acquire);
}

/** Set the ring of counter slot slot; release (the control side, before the slot is used). */
static inline void
mcfan_rw_slot_store(struct mcfan_rw_table *t, uint16_t slot, struct mcfan_rw *w)
{
	atomic_store_explicit(&t->slot[slot].val, w, memory_order_release);
}

/**
 * CLOCK_REALTIME ns of a TSC value, by the table's time base.
 *
 * @return
 *   ns since the epoch (the table's base ns for a TSC at or before its base).
 */
static inline uint64_t
mcfan_rw_tsc_ns(const struct mcfan_rw_table *t, uint64_t tsc)
{
	if (tsc <= t->base_tsc)
		return t->base_ns;
	return t->base_ns + (uint64_t)(((unsigned __int128)(tsc - t->base_tsc) * t->ns_mult) >> 32);
}

/** One reader of a ring, as mcfan_rw_readers() reports it. */
struct mcfan_rw_reader_info {
	unsigned int slot;   /**< Row in the reader table. */
	/** The row's owner word (pid | generation << 32): a new reader in the row, or the
	 * row freed, changes it. */
	uint64_t owner;
	int32_t pid;         /**< The reader's process id; 0 for a free row. */
	bool alive;          /**< The process exists (kill(pid, 0)). */
	uint64_t frames;     /**< Frames it read. */
	/** Frames it lost, lapped: stepped over, or overwritten before it got there. */
	uint64_t lost;
	uint64_t laps;       /**< Times it was lapped. */
	uint64_t lag;        /**< Frames written that it can still read (at most the ring's). */
	uint64_t idle_ns;    /**< Since its last read or wait, ns (CLOCK_MONOTONIC). */
	uint64_t age_ns;     /**< Since it opened the ring, ns. */
	bool waiting;        /**< Asleep in mcfan_reader_wait(). */
	/** Its process is stopped (SIGSTOP, Ctrl-Z, a debugger: state T or t in /proc/PID/stat,
	 * proc(5)): it reads nothing until continued, waiting or not. */
	bool stopped;
};

/**
 * Bytes of /dev/shm one ring takes (header, reader table, slots).
 *
 * @param n_slots
 *   Frames the ring holds.
 * @param slot_size
 *   Bytes per slot.
 * @param n_readers
 *   Reader slots.
 * @return
 *   The object's size in bytes.
 */
static inline uint64_t
mcfan_rw_ring_bytes(uint32_t n_slots, uint32_t slot_size, uint32_t n_readers)
{
	return mcfan_rd_slots_offset(n_readers) + (uint64_t)n_slots * slot_size;
}

/**
 * Create a group's ring: a new shared-memory object (an older one of the same name, left
 * by a run that crashed or closed, is replaced; one still open by a running writer is not), mode 0666 so that readers need no privilege,
 * the header written, and only then named (created under a temporary name and renamed),
 * so a reader never sees a half-made ring.
 *
 * @param prefix
 *   mcfan's EAL --file-prefix (the basename of its runtime directory).
 * @param addr
 *   The group address as inet_ntop(3) writes it.
 * @param port
 *   UDP port, 0 = any.
 * @param group
 *   The group's text for the header ("239.9.9.1:3999").
 * @param n_slots
 *   Frames the ring holds: a power of two, MCFAN_RD_SLOTS_MIN..MCFAN_RD_SLOTS_MAX.
 * @param slot_size
 *   Bytes per slot: a multiple of 64, MCFAN_RD_SLOT_SIZE_MIN..MCFAN_RD_SLOT_SIZE_MAX.
 * @param n_readers
 *   Reader slots, 1..MCFAN_RD_READERS_MAX.
 * @param owner
 *   Worker index of the one writer.
 * @param out
 *   Receives the ring (malloc'd).
 * @return
 *   0; -EINVAL (a size out of range), -ENAMETOOLONG, -EADDRINUSE (a ring of that name is
 *   open and its writer, another process, runs: another mcfan with the same file prefix; a
 *   writer runs when its pid exists and, when the header has it, started at the header's
 *   writer_start: a pid reused after the writer died is not it, and its ring is replaced),
 *   -ENOMEM, or the negative errno of shm_open(3), ftruncate(2), posix_fallocate(3) (-ENOSPC:
 *   /dev/shm cannot hold the ring; nothing is left behind), mmap(2), rename(2).
 */
int mcfan_rw_create(const char *prefix, const char *addr, unsigned int port, const char *group,
		    uint32_t n_slots, uint32_t slot_size, uint32_t n_readers, uint16_t owner,
		    struct mcfan_rw **out);

/**
 * Remove the rings of a file prefix that a dead writer left (mcfan killed or crashed, so
 * they were never closed): /dev/shm/mcfan.PREFIX.ADDRESS.PORT whose header's writer_pid is
 * no running process, or a process that started at another time than the header's
 * writer_start (the pid was reused), and half-made ones (ADDRESS.PORT.newPID) whose PID is
 * gone. Rings of
 * another prefix (a name that is not exactly PREFIX, then an address and a port), rings
 * of a running writer, and files that are not rings of this format are left alone. Readers
 * that still map a removed ring keep their mapping.
 *
 * @param prefix
 *   mcfan's EAL --file-prefix.
 * @return
 *   Rings removed (>= 0); -ENAMETOOLONG, or the negative errno of opendir(3).
 */
int mcfan_rw_remove_stale(const char *prefix);

/**
 * Does the ring's name (/dev/shm/mcfan.PREFIX.ADDRESS.PORT) still refer to its object? A
 * name removed (rm, a tmp cleaner, systemd-tmpfiles) or replaced by another file leaves the
 * writer writing an object no new reader can open. A stat(2) of the path against the device
 * and inode the object had when mcfan_rw_create() made it; control side, never a worker.
 *
 * @return
 *   0 the name is the ring's; 1 it is gone (-ENOENT from stat) or names another file; the
 *   negative errno of another stat(2) failure (the caller cannot tell: it does nothing).
 */
int mcfan_rw_name_check(const struct mcfan_rw *w);

/**
 * Close a ring: state CLOSED (readers read what is left, then get -EPIPE), sleepers
 * woken, the name removed (shm_unlink), the mapping released, w freed. The workers must
 * have stopped writing to it. NULL is allowed.
 */
void mcfan_rw_destroy(struct mcfan_rw *w);

/**
 * Free a retired ring while mcfan runs (mcfan_rw_retire(); the caller has seen its grace
 * period end and mcfan_rw_deferred() false: no worker holds it): its state and serve words
 * stay as they are (left or moved: readers read what is left, then mcfan_reader_wait()
 * returns -EXDEV, as before the free), its sleepers are woken (a new futex value first, so
 * none goes to sleep after), its name removed (shm_unlink) when unlink_name is true, the
 * mapping released, w freed. Readers that have it mapped keep their mapping. NULL is
 * allowed.
 * @param unlink_name
 *   false when a newer ring of the group was renamed over the name (it is not this
 *   ring's any more).
 */
void mcfan_rw_release(struct mcfan_rw *w, bool unlink_name);

/**
 * Say in the ring's header who writes its frames now (the serve words of struct
 * mcfan_rd_hdr, MCFAN_RD_FLAG_SERVE): the readers engine, or why not. Control side only,
 * one thread at a time (mcfan: under the action lock); never a worker. When the ring stops
 * being served its sleeping readers are woken (FUTEX_WAKE), so that mcfan_reader_wait()
 * returns -EXDEV instead of sleeping on a ring nobody writes.
 *
 * @param w
 *   The ring; not NULL.
 * @param serve
 *   MCFAN_RD_SERVE_READERS, _ENGINE, _LCORE, _LEFT or _MOVED.
 * @param engine
 *   For _ENGINE and _LCORE: the engine the group's frames go to ("count"), cut to
 *   MCFAN_RD_ENGINE_MAX - 1 characters; NULL or "" otherwise.
 * @param lcore
 *   For _LCORE: the writer lcore's id; 0 otherwise.
 * @return
 *   true if the words changed, false if they said this already.
 */
bool mcfan_rw_set_serve(struct mcfan_rw *w, uint32_t serve, const char *engine,
			uint32_t lcore);

/**
 * List a ring's readers (rows whose owner is not free); any thread.
 *
 * @param out
 *   Receives up to max entries.
 * @param now_ns
 *   CLOCK_MONOTONIC now, ns (idle and age are measured from it).
 * @return
 *   Readers written (<= max).
 */
unsigned int mcfan_rw_readers(const struct mcfan_rw *w, struct mcfan_rw_reader_info *out,
			      unsigned int max, uint64_t now_ns);

/**
 * Read one row of a ring's reader table, free or not; any thread. A free row (pid 0) keeps
 * the counters of the reader that freed it (mcfan_reader_close()) until the next reader
 * claims it, so the read side can count a closed reader's last frames.
 *
 * @param i
 *   Row, 0..n_readers-1.
 * @param now_ns
 *   CLOCK_MONOTONIC now, ns (idle and age are measured from it).
 * @param out
 *   Receives the row; alive is false for a free row.
 * @return
 *   1 if a reader owns the row, 0 if it is free, -EINVAL if i is past the table.
 */
int mcfan_rw_reader_at(const struct mcfan_rw *w, unsigned int i, uint64_t now_ns,
		       struct mcfan_rw_reader_info *out);

/**
 * Take back the waiting count of readers whose process is gone (they died asleep), so the
 * writer does not call FUTEX_WAKE for them after every burst. When no reader of the ring
 * is alive, also the counts in waiters that no row holds (a reader killed between its add
 * to waiters and its row's waiting store, or between taking its waiting back and its
 * subtract): waiters goes back to 0. Control side, now and then; never blocks.
 *
 * @return
 *   Waiting counts taken back (dead sleepers and counts no row held), >= 0.
 */
unsigned int mcfan_rw_reap(struct mcfan_rw *w);

/**
 * Start writing a frame of len bytes: the slot's sequence goes odd.
 *
 * @param len
 *   Frame length, bytes.
 * @param rx_ns
 *   When it was received, CLOCK_REALTIME ns.
 * @return
 *   Where to copy the len bytes, then call mcfan_rw_end(); or NULL if len is more than a
 *   slot holds (counted in too_big: nothing else to do).
 */
static inline uint8_t *
mcfan_rw_begin(struct mcfan_rw *w, uint32_t len, uint64_t rx_ns)
{
	struct mcfan_rd_slot *s;

	if (len > w->data_max) {
		mcfan_atomic_u64_store(&w->too_big, ++w->too_big_local, memory_order_relaxed);
		return NULL;
	}
	s = (struct mcfan_rd_slot *)(w->slots + (w->head & w->mask) * w->slot_size);
	atomic_store_explicit(&s->seq, 2 * w->head + 1, memory_order_relaxed);
	/* the odd sequence is visible before any byte of the new frame */
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&s->len, len, memory_order_relaxed);
	atomic_store_explicit(&s->rx_ns, rx_ns, memory_order_relaxed);
	w->cur = s;
	return (uint8_t *)s + MCFAN_RD_SLOT_HDR;
}

/** Finish the frame mcfan_rw_begin() started (len as given there): its sequence goes even. */
static inline void
mcfan_rw_end(struct mcfan_rw *w, uint32_t len)
{
	atomic_store_explicit(&w->cur->seq, 2 * w->head + 2, memory_order_release);
	w->head++;
	w->bytes_local += len;
	w->pending = true;
}

/**
 * Set how a ring's sleeping readers are woken (coalesced wakes, see the file comment).
 * Owner (or before the workers see the ring).
 *
 * @param frames
 *   Wake once this many frames were published since the last wake, 1..65536 (0 counts
 *   as 1: a wake every flush, the old rule).
 * @param ticks
 *   ... or once the oldest of them was published this long ago, in the clock of the now
 *   given to mcfan_rw_flush_at() and mcfan_rw_worker_poll() (mcfan: TSC cycles); 0 = at
 *   once (a wake every flush).
 */
static inline void
mcfan_rw_set_wake(struct mcfan_rw *w, uint32_t frames, uint64_t ticks)
{
	w->wake_frames = frames == 0 ? 1 : frames;
	w->wake_ticks = ticks;
}

/** FUTEX_WAKE every sleeper of the ring, count it, start a new batch. */
static inline void
mcfan_rw_wake_now(struct mcfan_rw *w)
{
	/* shared futex (other processes); INT32_MAX: every sleeper */
	syscall(SYS_futex, &w->hdr->head_futex, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	mcfan_atomic_u64_add(&w->wakes, 1, memory_order_relaxed);
	w->unwoken = 0;
}

/**
 * The wake decision of a ring with frames published and not yet woken for: wake now, or
 * not yet. Pure: no side effect.
 *
 * @param now
 *   The caller's clock (same unit as mcfan_rw_set_wake()'s ticks).
 * @return
 *   true when w->unwoken reached wake_frames or the oldest unwoken frame is wake_ticks old.
 */
static inline bool
mcfan_rw_wake_due(const struct mcfan_rw *w, uint64_t now)
{
	if (w->unwoken == 0)
		return false;
	return w->unwoken >= w->wake_frames || w->wake_ticks == 0 ||
	       now - w->unwoken_since >= w->wake_ticks;
}

/**
 * Publish the frames written since the last flush and decide on waking sleeping readers:
 * none sleeps, nothing to do; else wake them now if the wake is due (mcfan_rw_wake_due()),
 * or defer it. Once per burst and ring. Never blocks.
 *
 * @param now
 *   The caller's clock (mcfan_rw_set_wake()).
 * @return
 *   true if the ring has a deferred wake (the caller must then see that
 *   mcfan_rw_worker_poll() or mcfan_rw_poll() delivers it; mcfan_rw_worker_flush() lists
 *   it), false otherwise.
 */
static inline bool
mcfan_rw_flush_at(struct mcfan_rw *w, uint64_t now)
{
	uint64_t n;

	if (!w->pending)
		return w->unwoken != 0;
	w->pending = false;
	n = w->head - mcfan_atomic_u64_load(&w->written, memory_order_relaxed);
	atomic_store_explicit(&w->hdr->head, w->head, memory_order_release);
	atomic_store_explicit(&w->hdr->head_futex, (uint32_t)w->head, memory_order_release);
	mcfan_atomic_u64_store(&w->written, w->head, memory_order_relaxed);
	mcfan_atomic_u64_store(&w->bytes, w->bytes_local, memory_order_relaxed);
	/* publish, then look at waiters; a reader adds to waiters, then looks at head */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&w->hdr->waiters, memory_order_relaxed) == 0) {
		/* nobody sleeps: a reader that goes to sleep later sees this head first */
		w->unwoken = 0;
		return false;
	}
	if (w->unwoken == 0)
		w->unwoken_since = now;
	w->unwoken += n;
	if (mcfan_rw_wake_due(w, now)) {
		mcfan_rw_wake_now(w);
		return false;
	}
	return true;
}

/**
 * A deferred wake of one ring: deliver it if it is due, or drop it if no reader sleeps any
 * more (a reader's wait returned: it had seen the head). Owner only; never blocks.
 *
 * @param now
 *   The caller's clock (mcfan_rw_set_wake()).
 * @return
 *   true if the wake is still deferred, false if it was delivered or is no longer needed.
 */
static inline bool
mcfan_rw_poll(struct mcfan_rw *w, uint64_t now)
{
	if (w->unwoken == 0)
		return false;
	if (mcfan_atomic_flag_load(&w->retired, memory_order_acquire)) {
		/* no frame comes any more: its sleepers are woken now, the ring leaves the list */
		if (atomic_load_explicit(&w->hdr->waiters, memory_order_relaxed) != 0)
			mcfan_rw_wake_now(w);
		w->unwoken = 0;
		return false;
	}
	if (atomic_load_explicit(&w->hdr->waiters, memory_order_relaxed) == 0) {
		w->unwoken = 0;
		return false;
	}
	if (!mcfan_rw_wake_due(w, now))
		return true;
	mcfan_rw_wake_now(w);
	return false;
}

/**
 * Publish a ring and keep its worker's deferred-wake list: mcfan_rw_flush_at(), and a ring
 * whose wake is deferred goes on wc's list (once). wc is the ring's owner's.
 *
 * @param now
 *   The caller's clock (mcfan_rw_set_wake()).
 */
static inline void
mcfan_rw_worker_flush(struct mcfan_rw_worker *wc, struct mcfan_rw *w, uint64_t now)
{
	if (mcfan_rw_flush_at(w, now) &&
	    !mcfan_atomic_flag_load(&w->deferred, memory_order_relaxed)) {
		mcfan_atomic_flag_store(&w->deferred, true, memory_order_relaxed);
		w->next_deferred = wc->deferred;
		wc->deferred = w;
		wc->deferred_n++;
	}
}

/**
 * Deliver the due deferred wakes of a worker's rings; call it on every pass of the
 * worker's loop (also a pass without frames) while mcfan_rw_worker_pending() is true. A
 * retired ring (mcfan_rw_retire()) leaves the list at once, its sleepers woken if a wake
 * was pending. Never blocks.
 *
 * @param now
 *   The caller's clock (mcfan_rw_set_wake()).
 * @return
 *   Rings whose wake is still deferred; wc->next_due is then when the first of them is due
 *   (a sleeping worker must run again by then: the budget holds).
 */
static inline uint64_t
mcfan_rw_worker_poll(struct mcfan_rw_worker *wc, uint64_t now)
{
	struct mcfan_rw **pp = &wc->deferred, *w;

	wc->next_due = UINT64_MAX;
	while ((w = *pp) != NULL) {
		if (mcfan_rw_poll(w, now)) {
			if (w->unwoken_since + w->wake_ticks < wc->next_due)
				wc->next_due = w->unwoken_since + w->wake_ticks;
			pp = &w->next_deferred;
			continue;
		}
		*pp = w->next_deferred;
		w->next_deferred = NULL;
		wc->deferred_n--;
		/* the last touch of w: the control side may free a retired ring once it sees it */
		mcfan_atomic_flag_store(&w->deferred, false, memory_order_release);
	}
	return wc->deferred_n;
}

/**
 * Does the worker have rings with a deferred wake? (cheap: no clock read needed)
 *
 * @return
 *   true if a deferred wake waits (mcfan_rw_worker_poll() has work).
 */
static inline bool
mcfan_rw_worker_pending(const struct mcfan_rw_worker *wc)
{
	return wc->deferred != NULL;
}

/**
 * Retire a ring: no copy reaches it any more (its group was left and its counter slot
 * drained, or a newer ring of the group replaced it), so its owner takes it off its
 * deferred-wake list at its next pass (mcfan_rw_poll()) and never lists it again. Control
 * side only (release).
 */
static inline void
mcfan_rw_retire(struct mcfan_rw *w)
{
	mcfan_atomic_flag_store(&w->retired, true, memory_order_release);
}

/**
 * Is the ring on its owner's deferred-wake list? Control side (acquire): false after
 * mcfan_rw_retire() and a worker grace period means the owner holds it no more.
 *
 * @return
 *   true while the owner lists it.
 */
static inline bool
mcfan_rw_deferred(const struct mcfan_rw *w)
{
	return mcfan_atomic_flag_load(&w->deferred, memory_order_acquire);
}

/**
 * Publish the frames written since the last flush and wake sleeping readers, if any, at
 * once (the rule without coalescing, whatever mcfan_rw_set_wake() says). Once per burst
 * and ring. Never blocks.
 */
static inline void
mcfan_rw_flush(struct mcfan_rw *w)
{
	uint32_t f = w->wake_frames;
	uint64_t t = w->wake_ticks;

	w->wake_frames = 1;
	w->wake_ticks = 0;
	mcfan_rw_flush_at(w, 0);
	w->wake_frames = f;
	w->wake_ticks = t;
}

#endif /* MCFAN_READER_WRITER_H */
