/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_MSACC_WINDOW_H
#define MCFAN_MSACC_WINDOW_H

/**
 * @file
 * Microstate accounting, the control side: measurement windows (continuous,
 * reset, timed), derived statistics per lcore and per role type, and the
 * msacc-like text table. None of it is used by the fast path; a window's
 * functions serialise themselves with the window's spinlock.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_spinlock.h>

#include "mcfan_msacc.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* MCFAN_MSACC_WINDOW_H */
