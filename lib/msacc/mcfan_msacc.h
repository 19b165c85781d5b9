/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_MSACC_H
#define MCFAN_MSACC_H

/**
 * @file
 * Microstate accounting (msacc) per lcore.
 *
 * Every lcore is always in exactly one state of enum mcfan_ms_state. The lcore
 * reads the TSC at burst granularity and calls mcfan_msacc_add(), which charges
 * the cycles elapsed since its previous call to the state it names ("the time
 * since the last change was spent in s"). Beside the states it counts polls,
 * polls that returned work, frames and a burst-size histogram.
 *
 * Concurrency: each struct mcfan_msacc has exactly one writer, its own lcore,
 * which never uses atomic read-modify-write, locks or system calls. Readers on
 * the control side (any lcore or thread) take a consistent copy with
 * mcfan_msacc_snapshot(), which retries around a sequence counter.
 *
 * Windows (reset, "collect for N ms then freeze", continuous) are kept on the
 * control side as baselines in struct mcfan_msacc_window, so the fast path
 * never sees them.
 *
 * Units: all times are TSC cycles unless a name says otherwise; percentages
 * are of the window's wall time in TSC cycles.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_config.h>
#include <rte_spinlock.h>

#include "bits.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Microstates of an lcore. Every cycle of an lcore is charged to exactly one of them. */
enum mcfan_ms_state {
	MCFAN_MS_OTHER = 0,  /**< Housekeeping not covered by any other state. */
	MCFAN_MS_POLL_EMPTY, /**< rx_burst or ring dequeue returned 0 frames: busy-wait. */
	MCFAN_MS_RX,         /**< rx_burst calls that returned frames. */
	MCFAN_MS_CLASSIFY,   /**< Parsing headers and looking up the multicast group. */
	MCFAN_MS_FANOUT,     /**< Ring enqueue to workers, including ring-full handling. */
	MCFAN_MS_DEQUEUE,    /**< Worker ring dequeue calls that returned frames. */
	MCFAN_MS_PROCESS,    /**< Worker per-group counting and mbuf free. */
	MCFAN_MS_SLEEP,      /**< Sleeping or waiting under the idle policy. */
	MCFAN_MS_CONSOLE,    /**< Control lcore: interactive console command handling. */
	MCFAN_MS_TELEMETRY,  /**< Control lcore: statistics, report and telemetry work. */
	MCFAN_MS_MAX         /**< Number of states; not a state. */
};

/** Role bits of an lcore. RX | WORKER is a run-to-completion lcore. */
enum mcfan_role {
	MCFAN_ROLE_RX = 1,      /**< Polls a NIC queue, classifies and fans out. */
	MCFAN_ROLE_WORKER = 2,  /**< Dequeues from its ring and processes. */
	MCFAN_ROLE_CONTROL = 4, /**< Console, statistics, report, telemetry. */
};

/** Role types used for the per-role ("stats per type") aggregation. */
enum mcfan_role_type {
	MCFAN_ROLE_TYPE_RX = 0,    /**< role == MCFAN_ROLE_RX */
	MCFAN_ROLE_TYPE_WORKER,    /**< role == MCFAN_ROLE_WORKER */
	MCFAN_ROLE_TYPE_RX_WORKER, /**< role == MCFAN_ROLE_RX | MCFAN_ROLE_WORKER */
	MCFAN_ROLE_TYPE_CONTROL,   /**< role == MCFAN_ROLE_CONTROL */
	MCFAN_ROLE_TYPE_MAX        /**< Number of role types; not a type. */
};

/**
 * Number of burst-size histogram buckets. Bucket b (b < 9) counts the non-empty
 * polls that returned 2^b .. 2^(b+1) - 1 frames (1, 2-3, 4-7, ..., 256-511);
 * the last bucket counts polls of 512 frames or more.
 */
#define MCFAN_MSACC_HIST_BUCKETS 10

/** Largest number of lcores a window or an aggregation handles: one per DPDK lcore id. */
#define MCFAN_MSACC_MAX_LCORES RTE_MAX_LCORE

/** Number of 64-bit words in a bitmap of MCFAN_MSACC_MAX_LCORES bits. */
#define MCFAN_MSACC_LCORE_WORDS MCFAN_BITS_WORDS(MCFAN_MSACC_MAX_LCORES)

/** Longest state name returned by mcfan_ms_state_name(), without the NUL. */
#define MCFAN_MS_STATE_NAME_MAX 10

/**
 * Consistent copy of one lcore's accounting, or the difference of two copies
 * (a window). Invariant: the sum of cycles[] equals tsc - start_tsc exactly.
 */
struct mcfan_msacc_snap {
	uint64_t tsc;       /**< End of the interval covered (TSC). */
	uint64_t start_tsc; /**< Start of the interval covered (TSC). */
	uint64_t init_tsc;  /**< TSC at which the lcore's counters started (epoch). */
	uint64_t last_tsc;  /**< The lcore's last state change at or before tsc. */
	uint64_t pending;   /**< Cycles tsc - last_tsc, charged to state by assumption. */
	uint64_t seq;       /**< Owner's sequence counter at the copy; grows with each write. */
	uint64_t cycles[MCFAN_MS_MAX];           /**< Cycles per state. */
	uint64_t polls;                          /**< Polls. */
	uint64_t polls_work;                     /**< Polls that returned frames. */
	uint64_t frames;                         /**< Frames returned by polls. */
	uint64_t hist[MCFAN_MSACC_HIST_BUCKETS]; /**< Non-empty polls by burst size. */
	uint64_t sleeps;                         /**< Sleep periods. */
	uint64_t wakeups;                        /**< Wake-ups by another lcore. */
	uint32_t role;                           /**< enum mcfan_role bits. */
	uint32_t state;                          /**< Current state (enum mcfan_ms_state). */
	uint32_t paused;                         /**< 1: accounting off, counters frozen. */
};

/**
 * Per-lcore accounting block. One per lcore, written only by that lcore.
 * Initialise with mcfan_msacc_init(); read from elsewhere only through
 * mcfan_msacc_snapshot().
 */
struct mcfan_msacc {
	uint64_t seq;                   /**< Sequence counter: odd while the owner writes. */
	uint64_t last_tsc;              /**< TSC of the last state change. */
	uint64_t cycles[MCFAN_MS_MAX];  /**< Cycles charged to each state up to last_tsc. */
	uint64_t polls;                 /**< Polls (rx_burst or ring dequeue calls). */
	uint64_t polls_work;            /**< Polls that returned at least one frame. */
	uint64_t frames;                /**< Frames returned by all polls. */
	uint64_t hist[MCFAN_MSACC_HIST_BUCKETS]; /**< Non-empty polls by frames per poll. */
	uint64_t sleeps;                /**< Sleep periods started. */
	uint64_t wakeups;               /**< Sleep periods ended by another lcore's wake-up. */
	uint32_t role;                  /**< enum mcfan_role bits. */
	uint32_t state;                 /**< State charged by the last mcfan_msacc_add(). */
	uint32_t paused;                /**< 1 while accounting is off (mcfan_msacc_pause()). */
	uint64_t init_tsc;              /**< TSC at init or restart: start of the counters. */
	uint64_t req_done;              /**< Last snapshot request the owner published. */
	/**
	 * Snapshot requests: the only field readers write (never the owner), in
	 * its own cache line so the owner's check of it stays an L1 hit.
	 */
	uint64_t req __rte_cache_aligned;
	/** Sequence counter of pub: odd while the owner writes it. */
	uint64_t pub_seq __rte_cache_aligned;
	/**
	 * Copy the owner publishes, in answer to a request, for readers that
	 * could not find a quiet moment between its writes (a busy-polling lcore
	 * writes every few tens of nanoseconds).
	 */
	struct mcfan_msacc_snap pub;
} __rte_cache_aligned;

/** One input row of the aggregation and formatting functions. */
struct mcfan_msacc_row {
	uint32_t lcore_id;            /**< DPDK lcore id shown in the table. */
	uint32_t role;                /**< enum mcfan_role bits. */
	struct mcfan_msacc_snap snap; /**< The lcore's window (usually from a window). */
};

/** Derived statistics of one lcore or one role type over a window. */
struct mcfan_msacc_stats {
	uint64_t wall_cycles;           /**< Window wall time (sum over lcores for a type). */
	uint64_t cycles[MCFAN_MS_MAX];  /**< Cycles per state. */
	double pct[MCFAN_MS_MAX];       /**< Percent of wall_cycles per state; sums to 100. */
	uint64_t busy_cycles;           /**< Cycles in all states but poll_empty and sleep. */
	double busy_pct;                /**< busy_cycles in percent of wall_cycles. */
	uint64_t polls;                 /**< Polls. */
	uint64_t polls_work;            /**< Polls that returned frames. */
	uint64_t frames;                /**< Frames. */
	uint64_t hist[MCFAN_MSACC_HIST_BUCKETS]; /**< Non-empty polls by burst size. */
	uint64_t sleeps;                /**< Sleep periods. */
	uint64_t wakeups;               /**< Wake-ups by another lcore. */
	double empty_poll_pct;          /**< Percent of polls that returned 0 (0 if no polls). */
	double frames_per_poll;         /**< frames / polls_work (0 if no work). */
	double cycles_per_frame;        /**< busy_cycles / frames (0 if no frames). */
	uint32_t nb_lcores;             /**< Lcores aggregated (1 for a single lcore). */
	uint32_t role;                  /**< Role bits (of the type for an aggregation). */
};

/** Window modes. */
enum mcfan_msacc_window_mode {
	MCFAN_MSACC_WIN_CONTINUOUS = 0, /**< Since each lcore's init. */
	MCFAN_MSACC_WIN_RESET,          /**< Since the last reset, open-ended. */
	MCFAN_MSACC_WIN_TIMED,          /**< From a start for a fixed time, then frozen. */
};

/**
 * A measurement window over up to MCFAN_MSACC_MAX_LCORES lcores, indexed by
 * lcore id. Control side only; about 64 KiB, so allocate it with the owning
 * context, not on a small stack. Its functions may be called from several
 * control threads at once (telemetry, console, report): an internal spinlock
 * serialises them. The fast path never touches it. A zero-filled window is a
 * valid continuous window.
 */
struct mcfan_msacc_window {
	rte_spinlock_t lock;  /**< Serialises the window functions. */
	uint32_t mode;        /**< enum mcfan_msacc_window_mode. */
	uint32_t frozen;      /**< Timed window has ended; result[] is kept. */
	uint64_t start_tsc;   /**< TSC of the reset or start (0 when continuous). */
	uint64_t end_tsc;     /**< Timed: TSC at which the window freezes. */
	uint64_t frozen_tsc;  /**< Timed: TSC at which it actually froze. */
	uint64_t base_set[MCFAN_MSACC_LCORE_WORDS];   /**< Bit i: base[i] is valid. */
	uint64_t result_set[MCFAN_MSACC_LCORE_WORDS]; /**< Bit i: result[i] is valid. */
	struct mcfan_msacc_snap base[MCFAN_MSACC_MAX_LCORES];   /**< Baselines. */
	struct mcfan_msacc_snap result[MCFAN_MSACC_MAX_LCORES]; /**< Frozen windows. */
};

/** Summary of a window's state, for telemetry and console output. */
struct mcfan_msacc_window_info {
	uint32_t mode;      /**< enum mcfan_msacc_window_mode. */
	uint32_t frozen;    /**< 1 if a timed window has ended and is frozen. */
	uint64_t start_tsc; /**< TSC of the reset or start; 0 when continuous. */
	uint64_t end_tsc;   /**< Timed: planned end TSC; otherwise 0. */
	uint64_t remaining; /**< Timed and running: cycles left; otherwise 0. */
};

/** Formatter flag: the per-lcore percentage table ("stats per thread"). */
#define MCFAN_MSACC_FMT_LCORES   (UINT32_C(1) << 0)
/** Formatter flag: the per-role percentage rows ("stats per type"). */
#define MCFAN_MSACC_FMT_ROLES    (UINT32_C(1) << 1)
/** Formatter flag: per-lcore counters (cycles, busy, polls, frames, cycles per frame). */
#define MCFAN_MSACC_FMT_COUNTERS (UINT32_C(1) << 2)
/** Formatter flag: per-lcore burst-size histogram. */
#define MCFAN_MSACC_FMT_HIST     (UINT32_C(1) << 3)
/** Formatter flag: leave out state columns that are zero in every row. */
#define MCFAN_MSACC_FMT_COMPACT  (UINT32_C(1) << 4)
/** Formatter flags used when 0 is passed. */
#define MCFAN_MSACC_FMT_DEFAULT \
	(MCFAN_MSACC_FMT_LCORES | MCFAN_MSACC_FMT_ROLES | MCFAN_MSACC_FMT_COUNTERS)

/** Longest line mcfan_msacc_format_table() writes, newline included (bytes). */
#define MCFAN_MSACC_FORMAT_LINE_MAX 256

/**
 * Buffer size (bytes) that always holds mcfan_msacc_format_table() output for
 * nb_rows rows with every section: at most 3 lines per row plus headers and
 * role rows. About 100 KiB for 128 lcores; the real text is about half that.
 */
#define MCFAN_MSACC_FORMAT_SIZE(nb_rows) \
	((3 * (size_t)(nb_rows) + 16) * MCFAN_MSACC_FORMAT_LINE_MAX)

/* ---------------------------------------------------------------------------------------------
 * Owner lcore (fast path).
 */

/**
 * Initialise an accounting block: all counters zero, state MCFAN_MS_OTHER,
 * counting from now_tsc. Call it before any reader can see the block (before
 * the lcore is launched); to start over while readers may be active, the owner
 * calls mcfan_msacc_restart() instead.
 *
 * @param ms
 *   The block; ignored if NULL.
 * @param role
 *   enum mcfan_role bits of the lcore.
 * @param now_tsc
 *   Current TSC (cycles).
 */
void
mcfan_msacc_init(struct mcfan_msacc *ms, uint32_t role, uint64_t now_tsc);

/**
 * Restart the counters of a block that readers may be reading: zero all
 * counters and cycles, count from now_tsc, keep the role. Only the owner lcore
 * may call it. Windows whose baseline predates the restart fall back to
 * "since restart" for this lcore.
 *
 * @param ms
 *   The block; ignored if NULL.
 * @param now_tsc
 *   Current TSC (cycles).
 */
void
mcfan_msacc_restart(struct mcfan_msacc *ms, uint64_t now_tsc);

/**
 * Switch accounting off for this block: charge the cycles up to now_tsc to the
 * current state, then freeze the counters. Snapshots of a paused block end at
 * its last state change (no pending time is guessed), so a window stops
 * growing. The owner must not call mcfan_msacc_add()/poll() while paused.
 * Owner lcore only (or the main lcore before the owner is launched).
 *
 * @param ms
 *   The block; ignored if NULL.
 * @param now_tsc
 *   Current TSC (cycles).
 */
void
mcfan_msacc_pause(struct mcfan_msacc *ms, uint64_t now_tsc);

/**
 * Switch accounting back on. If nothing was ever measured (paused since init),
 * the counters start at now_tsc; otherwise the cycles of the paused period are
 * charged to MCFAN_MS_OTHER, so that the sum of the states still equals the
 * wall time since init. Owner lcore only.
 *
 * @param ms
 *   The block; ignored if NULL.
 * @param now_tsc
 *   Current TSC (cycles).
 */
void
mcfan_msacc_resume(struct mcfan_msacc *ms, uint64_t now_tsc);

/** @internal Open a write section (sequence counter becomes odd). Owner only. */
static __rte_always_inline void
mcfan_msacc_write_begin_(struct mcfan_msacc *ms)
{
	/* Only the owner writes seq, so a plain read of it is exact. */
	__atomic_store_n(&ms->seq, ms->seq + 1, __ATOMIC_RELAXED);
	/* Orders the odd seq before the data stores that follow. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/** @internal Close a write section (sequence counter becomes even). Owner only. */
static __rte_always_inline void
mcfan_msacc_write_end_(struct mcfan_msacc *ms)
{
	__atomic_store_n(&ms->seq, ms->seq + 1, __ATOMIC_RELEASE);
}

/** @internal Owner-side relaxed increment of a counter that readers may load. */
static __rte_always_inline void
mcfan_msacc_bump_(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

/**
 * Histogram bucket of a non-empty poll.
 *
 * @param nb_frames
 *   Frames returned by the poll, 1 or more.
 * @return
 *   floor(log2(nb_frames)) capped at MCFAN_MSACC_HIST_BUCKETS - 1: 0 for 1
 *   frame, 1 for 2-3, 2 for 4-7, ..., 8 for 256-511, 9 for 512 or more.
 *   0 if nb_frames is 0.
 */
static __rte_always_inline unsigned int
mcfan_msacc_hist_bucket(uint16_t nb_frames)
{
	unsigned int b = rte_fls_u32(nb_frames);

	b = b == 0 ? 0 : b - 1;
	return b < MCFAN_MSACC_HIST_BUCKETS ? b : MCFAN_MSACC_HIST_BUCKETS - 1;
}

/** @internal The body of mcfan_msacc_add() inside a write section. */
static __rte_always_inline void
mcfan_msacc_charge_(struct mcfan_msacc *ms, enum mcfan_ms_state s, uint64_t now_tsc)
{
	uint64_t last = ms->last_tsc;

	if (unlikely((unsigned int)s >= MCFAN_MS_MAX))
		s = MCFAN_MS_OTHER;
	/* A TSC older than the last change charges nothing and never moves time back. */
	if (likely(now_tsc > last)) {
		mcfan_msacc_bump_(&ms->cycles[s], now_tsc - last);
		__atomic_store_n(&ms->last_tsc, now_tsc, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&ms->state, (uint32_t)s, __ATOMIC_RELAXED);
}

/** @internal The body of mcfan_msacc_poll() inside a write section. */
static __rte_always_inline void
mcfan_msacc_count_(struct mcfan_msacc *ms, uint16_t nb_frames)
{
	mcfan_msacc_bump_(&ms->polls, 1);
	if (nb_frames > 0) {
		mcfan_msacc_bump_(&ms->polls_work, 1);
		mcfan_msacc_bump_(&ms->frames, nb_frames);
		mcfan_msacc_bump_(&ms->hist[mcfan_msacc_hist_bucket(nb_frames)], 1);
	}
}

/**
 * Internal, called by the owner from mcfan_msacc_add() when a reader has asked
 * for a copy: publish the block into ms->pub and acknowledge the request. Not
 * for direct use.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 */
void
mcfan_msacc_publish_(struct mcfan_msacc *ms);

/** @internal Answer a pending snapshot request. Owner only; one L1 load when none. */
static __rte_always_inline void
mcfan_msacc_serve_(struct mcfan_msacc *ms)
{
	if (unlikely(__atomic_load_n(&ms->req, __ATOMIC_RELAXED) != ms->req_done))
		mcfan_msacc_publish_(ms);
}

/**
 * Charge the cycles since the last state change to state s: "the time since
 * the last change was spent in s". Sets last_tsc to now_tsc and the current
 * state to s. Owner lcore only; no atomic read-modify-write, no lock, no
 * system call. A now_tsc not after last_tsc charges nothing.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 * @param s
 *   State the elapsed time was spent in; out-of-range values count as
 *   MCFAN_MS_OTHER.
 * @param now_tsc
 *   Current TSC (cycles), normally rte_rdtsc() right after the work.
 */
static inline void
mcfan_msacc_add(struct mcfan_msacc *ms, enum mcfan_ms_state s, uint64_t now_tsc)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_charge_(ms, s, now_tsc);
	mcfan_msacc_write_end_(ms);
	mcfan_msacc_serve_(ms);
}

/**
 * Count one poll (rx_burst or ring dequeue): polls += 1 and, if nb_frames > 0,
 * polls_work += 1, frames += nb_frames and one histogram bucket += 1. Owner
 * lcore only; no atomic read-modify-write, no lock, no system call.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 * @param nb_frames
 *   Frames the poll returned (0 .. 65535).
 */
static inline void
mcfan_msacc_poll(struct mcfan_msacc *ms, uint16_t nb_frames)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_count_(ms, nb_frames);
	mcfan_msacc_write_end_(ms);
}

/**
 * mcfan_msacc_add() and mcfan_msacc_poll() in one write section: same result
 * as calling both, a little cheaper. Owner lcore only.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 * @param s
 *   State the elapsed time was spent in.
 * @param now_tsc
 *   Current TSC (cycles).
 * @param nb_frames
 *   Frames the poll returned (0 .. 65535).
 */
static inline void
mcfan_msacc_add_poll(struct mcfan_msacc *ms, enum mcfan_ms_state s, uint64_t now_tsc,
		uint16_t nb_frames)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_charge_(ms, s, now_tsc);
	mcfan_msacc_count_(ms, nb_frames);
	mcfan_msacc_write_end_(ms);
	mcfan_msacc_serve_(ms);
}

/**
 * Count the start of one sleep period (sleeps += 1). Owner lcore only. The
 * cycles of the sleep itself are charged with mcfan_msacc_add(MCFAN_MS_SLEEP)
 * when it ends.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 */
static inline void
mcfan_msacc_note_sleep(struct mcfan_msacc *ms)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_bump_(&ms->sleeps, 1);
	mcfan_msacc_write_end_(ms);
}

/**
 * Count one wake-up by another lcore (wakeups += 1), as seen by the lcore that
 * was woken. Owner lcore only.
 *
 * @param ms
 *   The lcore's own block (not NULL).
 */
static inline void
mcfan_msacc_note_wakeup(struct mcfan_msacc *ms)
{
	mcfan_msacc_write_begin_(ms);
	mcfan_msacc_bump_(&ms->wakeups, 1);
	mcfan_msacc_write_end_(ms);
}

/* ---------------------------------------------------------------------------------------------
 * Readers (control side, any lcore or thread).
 */

/**
 * Take a consistent copy of a block written concurrently by its owner. Reads the
 * block and retries while the owner was inside a write section (sequence
 * counter odd or changed). If a few tries fail because the owner writes
 * faster than a copy takes, it asks the owner for a copy (the owner publishes
 * one at its next mcfan_msacc_add()) and reads that instead, so it finishes
 * even against an lcore that busy-polls.
 * The cycles between the owner's last state change and now_tsc are charged to
 * its current state (and reported in pending), so the sum of out->cycles equals
 * out->tsc - out->init_tsc exactly. out->tsc is now_tsc, or the owner's last
 * change if that is later (the owner's TSC read may be newer than the caller's).
 * out->start_tsc is out->init_tsc.
 *
 * @param ms
 *   The block to read.
 * @param now_tsc
 *   Current TSC (cycles) of the caller.
 * @param out
 *   Where to write the copy. Nothing is written if ms or out is NULL.
 */
void
mcfan_msacc_snapshot(const struct mcfan_msacc *ms, uint64_t now_tsc,
		struct mcfan_msacc_snap *out);

/**
 * Window of one lcore: now minus base. Cycles and counters are differences; the
 * interval covered starts at base->last_tsc (the lcore's last state change
 * before the baseline, so that no guessed cycles of the base are subtracted
 * and no state goes negative) and ends at now->tsc; the sum of out->cycles
 * equals out->tsc - out->start_tsc exactly. If base is from another epoch
 * (the owner restarted) or is not older than now, the result is now itself
 * (since the lcore's init). out may alias now.
 *
 * @param now
 *   Later snapshot from mcfan_msacc_snapshot().
 * @param base
 *   Earlier snapshot of the same lcore from mcfan_msacc_snapshot(), or NULL
 *   for "since init".
 * @param out
 *   Result; nothing is written if now or out is NULL.
 */
void
mcfan_msacc_diff(const struct mcfan_msacc_snap *now, const struct mcfan_msacc_snap *base,
		struct mcfan_msacc_snap *out);

/**
 * Wall time a snapshot or window covers.
 *
 * @param snap
 *   Snapshot or window.
 * @return
 *   snap->tsc - snap->start_tsc in cycles; 0 if snap is NULL.
 */
uint64_t
mcfan_msacc_snap_wall(const struct mcfan_msacc_snap *snap);

/* ---------------------------------------------------------------------------------------------
 * Windows (control side). The lcore array ms[] is indexed by lcore id; NULL
 * entries are lcores without accounting. nb_lcores is at most
 * MCFAN_MSACC_MAX_LCORES.
 */

/**
 * Initialise a window in continuous mode (since each lcore's init).
 *
 * @param w
 *   The window; ignored if NULL.
 */
void
mcfan_msacc_window_init(struct mcfan_msacc_window *w);

/**
 * Switch a window to continuous mode (since each lcore's init), dropping any
 * baseline or frozen result.
 *
 * @param w
 *   The window; ignored if NULL.
 */
void
mcfan_msacc_window_continuous(struct mcfan_msacc_window *w);

/**
 * Reset: take a baseline of every lcore now; the window then runs open-ended
 * from this moment (like msacc:reset()).
 *
 * @param w
 *   The window.
 * @param ms
 *   Accounting blocks indexed by lcore id; NULL entries are skipped.
 * @param nb_lcores
 *   Entries in ms, at most MCFAN_MSACC_MAX_LCORES.
 * @param now_tsc
 *   Current TSC (cycles).
 * @return
 *   0 on success; -EINVAL if w or ms is NULL or nb_lcores is too large.
 */
int
mcfan_msacc_window_reset(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc);

/**
 * Start a timed window (like msacc:start(Ms)): take a baseline now; the first
 * mcfan_msacc_window_collect() or mcfan_msacc_window_tick() at or after
 * now_tsc + length_ms freezes the window, which is then returned unchanged
 * until the next reset, start or continuous. The frozen window ends at the
 * freezing call, so call mcfan_msacc_window_tick() periodically to freeze it
 * close to its planned end; the rows carry the exact interval.
 *
 * @param w
 *   The window.
 * @param ms
 *   Accounting blocks indexed by lcore id; NULL entries are skipped.
 * @param nb_lcores
 *   Entries in ms, at most MCFAN_MSACC_MAX_LCORES.
 * @param now_tsc
 *   Current TSC (cycles).
 * @param length_ms
 *   Window length in milliseconds, 1 or more.
 * @param tsc_hz
 *   TSC rate in Hz (rte_get_tsc_hz()), not 0.
 * @return
 *   0 on success; -EINVAL if an argument is NULL, 0 or too large, or the end
 *   would overflow 64 bits.
 */
int
mcfan_msacc_window_start(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc, uint64_t length_ms, uint64_t tsc_hz);

/**
 * Freeze a timed window if its end has come; otherwise do nothing. Cheap when
 * there is nothing to do.
 *
 * @param w
 *   The window.
 * @param ms
 *   Accounting blocks indexed by lcore id.
 * @param nb_lcores
 *   Entries in ms, at most MCFAN_MSACC_MAX_LCORES.
 * @param now_tsc
 *   Current TSC (cycles).
 * @return
 *   1 if this call froze the window, 0 if not; -EINVAL on bad arguments.
 */
int
mcfan_msacc_window_tick(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc);

/**
 * Get the window of every lcore as rows for mcfan_msacc_stats_by_role() and
 * mcfan_msacc_format_table(), in lcore id order. Continuous: since each lcore's
 * init. Reset or running timed window: since the baseline (an lcore that had
 * no baseline or restarted since counts since its init). Frozen timed window:
 * the frozen rows (ms may then be NULL). Freezes a timed window that is due.
 *
 * @param w
 *   The window.
 * @param ms
 *   Accounting blocks indexed by lcore id; NULL entries give no row.
 * @param nb_lcores
 *   Entries in ms, at most MCFAN_MSACC_MAX_LCORES.
 * @param now_tsc
 *   Current TSC (cycles).
 * @param rows
 *   Output rows.
 * @param max_rows
 *   Capacity of rows.
 * @return
 *   Number of rows written (0 .. max_rows); -EINVAL on bad arguments;
 *   -ENOSPC if more than max_rows lcores have rows (none written then).
 */
int
mcfan_msacc_window_collect(struct mcfan_msacc_window *w, const struct mcfan_msacc *const *ms,
		unsigned int nb_lcores, uint64_t now_tsc, struct mcfan_msacc_row *rows,
		unsigned int max_rows);

/**
 * Describe a window: mode, frozen or not, start, planned end, cycles left.
 *
 * @param w
 *   The window.
 * @param now_tsc
 *   Current TSC (cycles), for the remaining time.
 * @param out
 *   Description.
 * @return
 *   0 on success; -EINVAL if w or out is NULL.
 */
int
mcfan_msacc_window_info(struct mcfan_msacc_window *w, uint64_t now_tsc,
		struct mcfan_msacc_window_info *out);

/**
 * Name of a window mode: "continuous", "reset" or "timed".
 *
 * @param mode
 *   enum mcfan_msacc_window_mode.
 * @return
 *   Static string; "unknown" for other values.
 */
const char *
mcfan_msacc_window_mode_name(uint32_t mode);

/* ---------------------------------------------------------------------------------------------
 * Aggregation and text.
 */

/**
 * Derived statistics of one window: percentages per state of its wall time
 * (computed in double, summing to 100 up to rounding), busy cycles, empty poll
 * percentage, frames per poll and cycles per frame. A window of 0 cycles gives
 * all percentages 0.
 *
 * @param snap
 *   Window (or snapshot) of one lcore.
 * @param out
 *   Result, nb_lcores = 1.
 * @return
 *   0 on success; -EINVAL if an argument is NULL.
 */
int
mcfan_msacc_stats(const struct mcfan_msacc_snap *snap, struct mcfan_msacc_stats *out);

/**
 * Per-role ("stats per type") aggregation: for each enum mcfan_role_type, sums
 * the cycles, wall times and counters of the rows with that role and derives
 * percentages of the summed wall time. Rows whose role is none of the four
 * types are left out. Types without rows get nb_lcores = 0 and zeros.
 *
 * @param rows
 *   Rows, one per lcore.
 * @param nb_rows
 *   Number of rows (may be 0).
 * @param out
 *   Array of MCFAN_ROLE_TYPE_MAX results, indexed by enum mcfan_role_type.
 * @return
 *   0 on success; -EINVAL if out is NULL, or rows is NULL while nb_rows > 0.
 */
int
mcfan_msacc_stats_by_role(const struct mcfan_msacc_row *rows, unsigned int nb_rows,
		struct mcfan_msacc_stats *out);

/**
 * Write a msacc-like print-out into buf: a header with the window length and
 * the TSC rate, then, as selected by flags, one row per lcore (lcore id, role,
 * one column per state in percent of the lcore's wall time, two decimals, each
 * row summing to 100 +/- 0.05), the per-role rows, per-lcore counters and the
 * burst-size histogram. Always NUL-terminated when size > 0.
 *
 * @param buf
 *   Output buffer.
 * @param size
 *   Size of buf in bytes.
 * @param rows
 *   Rows, one per lcore, in display order.
 * @param nb_rows
 *   Number of rows (may be 0).
 * @param tsc_hz
 *   TSC rate in Hz for times in ms; 0 prints cycles only.
 * @param flags
 *   MCFAN_MSACC_FMT_* bits; 0 means MCFAN_MSACC_FMT_DEFAULT.
 * @return
 *   Bytes written, without the NUL; -EINVAL if buf is NULL, size is 0 or rows
 *   is NULL while nb_rows > 0; -ENOSPC if the text did not fit (buf then
 *   holds a truncated, NUL-terminated text).
 */
int
mcfan_msacc_format_table(char *buf, size_t size, const struct mcfan_msacc_row *rows,
		unsigned int nb_rows, uint64_t tsc_hz, uint32_t flags);

/**
 * Snake_case name of a state, as used in JSON, telemetry and the table:
 * "other", "poll_empty", "rx", "classify", "fanout", "dequeue", "process",
 * "sleep", "console", "telemetry".
 *
 * @param s
 *   The state.
 * @return
 *   Static string of at most MCFAN_MS_STATE_NAME_MAX characters; "unknown"
 *   for values outside the enum.
 */
const char *
mcfan_ms_state_name(enum mcfan_ms_state s);

/**
 * One-line meaning of a state, for help texts.
 *
 * @param s
 *   The state.
 * @return
 *   Static string; "unknown state" for values outside the enum.
 */
const char *
mcfan_ms_state_desc(enum mcfan_ms_state s);

/**
 * State of a snake_case name.
 *
 * @param name
 *   Name as returned by mcfan_ms_state_name().
 * @return
 *   The enum mcfan_ms_state value; -EINVAL if name is NULL; -ENOENT if no
 *   state has that name.
 */
int
mcfan_ms_state_from_name(const char *name);

/**
 * Name of a role: "rx", "worker", "rx+worker" or "control"; "none" for 0 and
 * "mixed" for other combinations.
 *
 * @param role
 *   enum mcfan_role bits.
 * @return
 *   Static string.
 */
const char *
mcfan_role_name(uint32_t role);

/**
 * Role type of a role, for the per-role aggregation.
 *
 * @param role
 *   enum mcfan_role bits.
 * @return
 *   The enum mcfan_role_type value; -EINVAL if role is none of the four types.
 */
int
mcfan_role_type(uint32_t role);

/**
 * Role bits of a role type.
 *
 * @param type
 *   enum mcfan_role_type.
 * @return
 *   enum mcfan_role bits; 0 for values outside the enum.
 */
uint32_t
mcfan_role_type_role(enum mcfan_role_type type);

/**
 * Label of a histogram bucket: "1", "2-3", "4-7", ..., "256-511", "512+".
 *
 * @param bucket
 *   Bucket index, 0 .. MCFAN_MSACC_HIST_BUCKETS - 1.
 * @return
 *   Static string; "?" for an index out of range.
 */
const char *
mcfan_msacc_hist_label(unsigned int bucket);

#ifdef __cplusplus
}
#endif

#endif /* MCFAN_MSACC_H */
