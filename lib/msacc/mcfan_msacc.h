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
 * Headers: this one is the API (states, roles, snapshots, names, and the
 * block's life cycle); mcfan_msacc_writer.h holds the block's layout and the
 * owner's fast-path inlines; mcfan_msacc_window.h the control side's windows,
 * statistics and text tables.
 *
 * Units: all times are TSC cycles unless a name says otherwise; percentages
 * are of the window's wall time in TSC cycles.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_config.h>

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
	/** The lcore's thread was runnable but not running (waiting for a CPU). Never charged
	 * by the owner: the control side measures it and says which states' cycles it was
	 * (mcfan_msacc_set_wait()); windows move it there (mcfan_msacc_snap_apply_wait()). */
	MCFAN_MS_WAIT_CPU,
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
	/** Per state: cycles of it that were really waiting for a CPU (mcfan_msacc_set_wait()):
	 * since init in a snapshot, the difference in a window; still inside cycles[] until
	 * mcfan_msacc_snap_apply_wait() moves them to cycles[MCFAN_MS_WAIT_CPU]. */
	uint64_t wait_adj[MCFAN_MS_MAX];
};

/** Per-lcore accounting block; its layout and the owner's inlines are in mcfan_msacc_writer.h. */
struct mcfan_msacc;

/* ---------------------------------------------------------------------------------------------
 * Life cycle of a block (owner lcore, or the main lcore before the owner is launched).
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
 * Say how many of the cycles charged to each state since the block's init were in truth
 * spent waiting for a CPU (the control side measures the kernel's schedstat run_delay and
 * shares each increase over the states in proportion to what they were charged meanwhile).
 * The one part of the block the control side writes: a single control thread calls it
 * (relaxed stores, each value never decreasing); snapshots read it. Never the owner.
 *
 * @param ms
 *   The block; ignored if NULL.
 * @param adj
 *   MCFAN_MS_MAX values, TSC cycles since init; adj[MCFAN_MS_WAIT_CPU] is ignored.
 */
void
mcfan_msacc_set_wait(struct mcfan_msacc *ms, const uint64_t *adj);

/**
 * Move a window's wait_adj[] out of the states into cycles[MCFAN_MS_WAIT_CPU] (each cut
 * to what its state holds), so the sum of cycles[] is unchanged; wait_adj[] is then zero,
 * so applying twice changes nothing. The rows of mcfan_msacc_window_collect() come with
 * it applied.
 *
 * @param snap
 *   Window or snapshot; ignored if NULL.
 */
void
mcfan_msacc_snap_apply_wait(struct mcfan_msacc_snap *snap);

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

/**
 * Snake_case name of a state, as used in JSON, telemetry and the table:
 * "other", "poll_empty", "rx", "classify", "fanout", "dequeue", "process",
 * "sleep", "console", "telemetry", "wait_cpu".
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
