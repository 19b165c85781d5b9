/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_STATS_H
#define MCFAN_APP_STATS_H

/* Read side of the counters, shared by report, console and telemetry. */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>

#include "mcfan.h"

/* The conservation line: rx_frames = delivered_frames + drops_total. */
struct mcfan_totals {
	uint64_t rx_frames;
	uint64_t rx_bytes;
	uint64_t delivered_frames;
	uint64_t copies_offered;
	uint64_t delivered_copies;
	uint64_t drops[MCFAN_DROP_MAX];
	uint64_t drops_total;
	uint64_t mac_mismatch;        /* delivered with a destination MAC not the group's */
};

/** The text line of mcfan_totals.mac_mismatch, one wording for the report and the console
 * (docs/guide.md "mac_mismatch"): a warning count of delivered frames, not a drop. */
#define MCFAN_MAC_MISMATCH_FMT "mac_mismatch %" PRIu64 " (delivered, not a drop: frames " \
	"whose destination MAC is not their group's multicast MAC)"

struct mcfan_worker_view {
	unsigned int lcore_id;
	unsigned int ring_size;       /* slots per ring, frames */
	uint64_t frames;              /* copies processed */
	uint64_t bytes;
	uint64_t enqueued;            /* copies enqueued to this worker by all RX lcores */
	uint64_t ring_drops;          /* copies refused by this worker's full rings */
	uint64_t ring_high_water;     /* most copies seen waiting in one ring */
	uint64_t ring_count;          /* copies waiting now, all rings */
};

struct mcfan_group_view {
	const struct mcfan_group_entry *entry; /* points to entry_copy */
	struct mcfan_group_entry entry_copy;   /* the group as it was at the read */
	uint64_t frames;              /* frames of the group received (RX lcores) */
	uint64_t copies;              /* copies of them processed by workers */
	uint64_t copy_drops;          /* copies refused by full worker rings */
	uint64_t bytes;               /* bytes of the copies processed */
	uint64_t first_tsc;           /* RX TSC of the first frame, 0 = none */
	uint64_t last_tsc;
	uint64_t worker_bits[MCFAN_WORKER_WORDS]; /* worker indexes that got frames */
	bool left;                    /* a group left since the last clear (mcfan_left_groups_read) */
	uint64_t left_tsc;            /* TSC of its leave, 0 for a joined group */
	/* /metrics gives it series of its own (else it counts in group="_other"); decided at its
	 * join for the whole membership (mcfan_stats_groups_joining(), docs/metrics.md) */
	bool own_series;
};

/** Left groups summed: those beyond the MCFAN_MAX_GROUPS rows mcfan_left_groups_read() keeps
 * (the oldest are folded in here, so that the groups' rows plus these still sum to the
 * totals), or those that /metrics keeps in group="_other" (mcfan_groups_series_read()). */
struct mcfan_left_overflow {
	uint64_t groups;              /**< Left rows summed since the last clear. */
	uint64_t frames;              /**< Their frames (RX lcores). */
	uint64_t copies;              /**< Their copies processed by workers. */
	uint64_t copy_drops;          /**< Their copies refused by full worker rings. */
	uint64_t bytes;               /**< Bytes of their copies processed. */
};

/** One RX-to-worker ring (app->rings[rx * n_workers + w]), since the last clear. */
struct mcfan_ring_view {
	unsigned int rx_lcore_id;     /**< The RX lcore that fills it. */
	unsigned int worker_lcore_id; /**< The worker that empties it. */
	unsigned int size;            /**< Slots, frames. */
	uint64_t enqueued;            /**< Copies enqueued into it, frames. */
	uint64_t ring_drops;          /**< Copies that found it full, frames. */
	uint64_t count;               /**< Copies waiting in it now, frames. */
};

/**
 * What a read counts from. `clear stats` never writes a counter: it takes baselines, which
 * the reads of the report, the console and telemetry subtract (MCFAN_SINCE_CLEAR). /metrics
 * exposes Prometheus counters, which must never go back, so it reads the same counters
 * without the baselines (MCFAN_SINCE_START): totals since the start, not moved by a clear.
 */
enum mcfan_stats_since {
	MCFAN_SINCE_CLEAR = 0, /**< Since the start or the last `clear stats`. */
	MCFAN_SINCE_START,     /**< Since the start; `clear stats` does not move it. */
};

/**
 * Read every RX-to-worker ring, RX lcore by RX lcore, then worker by worker (the order of
 * app->rings). Any control thread; takes ctl_lock for the copy of the RX lcores' counters
 * (seqcount reads) and the clear stats baselines; never touches a data lcore.
 *
 * @param out
 *   Receives up to max views.
 * @param max
 *   Room in out (n_rx * n_workers is enough).
 * @return
 *   Views written, or -ENOMEM.
 */
int mcfan_rings_read(const struct mcfan_app *app, struct mcfan_ring_view *out, unsigned int max);

/**
 * As mcfan_rings_read() (since the last clear), or with since MCFAN_SINCE_START the
 * enqueued and ring full copies since the start (/metrics). Same thread and lock rules.
 *
 * @return
 *   Views written, or -ENOMEM.
 */
int mcfan_rings_read_since(const struct mcfan_app *app, struct mcfan_ring_view *out,
			   unsigned int max, enum mcfan_stats_since since);

/** One RX lcore's frames and drops by reason (its share of struct mcfan_totals), since the
 * last clear. */
struct mcfan_rx_lcore_view {
	unsigned int lcore_id;        /**< The RX lcore. */
	unsigned int n_ports;         /**< (port, queue) pairs it polls: ports[0..n_ports-1]. */
	uint16_t ports[MCFAN_MAX_RX_PAIRS]; /**< The port of each pair (a port may repeat). */
	uint16_t queues[MCFAN_MAX_RX_PAIRS]; /**< The RX queue of each pair. */
	uint64_t rx_frames;           /**< Frames its rx_bursts returned. */
	uint64_t rx_bytes;            /**< Their bytes. */
	uint64_t delivered_frames;    /**< Frames with at least one copy enqueued. */
	uint64_t drops[MCFAN_DROP_MAX]; /**< Frames per drop reason (index 0 unused). */
	/** Per pair i (ports[i], queues[i]), i < n_ports: the frames rx_burst returned from it;
	 * summed over the pairs: rx_frames. */
	uint64_t pair_frames[MCFAN_MAX_RX_PAIRS];
	/** Per pair: its frames per drop reason; summed over the pairs: drops[]. */
	uint64_t pair_drops[MCFAN_MAX_RX_PAIRS][MCFAN_DROP_MAX];
};

/**
 * Read every RX lcore's frames and drops, in RX lcore order (app->rx_lcore_ids). Summed over
 * the RX lcores they are mcfan_totals_read()'s (both start from the same clear stats
 * baseline). Any control thread; takes ctl_lock (seqcount reads of the RX lcores' blocks);
 * never touches a data lcore.
 *
 * @param out
 *   Receives up to max views.
 * @param max
 *   Room in out (n_rx is enough).
 * @return
 *   Views written (0..n_rx).
 */
int mcfan_rx_lcores_read(const struct mcfan_app *app, struct mcfan_rx_lcore_view *out,
			 unsigned int max);

/**
 * As mcfan_rx_lcores_read() (since the last clear), or with since MCFAN_SINCE_START every
 * count since the start (/metrics; summed, mcfan_totals_read_since()'s with the same since).
 * Same thread and lock rules.
 *
 * @return
 *   Views written (0..n_rx).
 */
int mcfan_rx_lcores_read_since(const struct mcfan_app *app, struct mcfan_rx_lcore_view *out,
			       unsigned int max, enum mcfan_stats_since since);

/**
 * One port's RX-side frames and drops: the sum over every (port, RX queue) pair of it in
 * views that mcfan_rx_lcores_read() gave, whichever RX lcores poll them. Any thread; reads
 * only the views.
 *
 * @param rv
 *   The views; n of them.
 * @param port
 *   The port id.
 * @param frames
 *   Receives the frames the RX lcores took from the port (the quit drain's included).
 * @param drops
 *   Receives its frames per drop reason (index 0 left 0).
 * @return
 *   true if some view polls a queue of the port (frames and drops may still be 0), false
 *   if none does (both 0).
 */
bool mcfan_rx_port_sum(const struct mcfan_rx_lcore_view *rv, unsigned int n, uint16_t port,
		       uint64_t *frames, uint64_t drops[MCFAN_DROP_MAX]);

/* RX-to-dequeue latency of one worker (lib/fanout/mcfan_fanout.h's histogram), since the last clear. */
struct mcfan_latency_view {
	unsigned int lcore_id;
	uint64_t copies;                       /* copies measured */
	uint64_t hist[MCFAN_LAT_BUCKETS];      /* copies per log2(ns) bucket */
	uint64_t max_ns;                       /* longest (since a clear: at most its bucket's top) */
	uint64_t sum_ns;                       /* sum of the copies' times, ns (histogram _sum) */
	uint64_t p50_ns;                       /* quantiles, interpolated in their bucket */
	uint64_t p99_ns;
};

/**
 * The conservation line's totals over every RX lcore and worker since the last `clear
 * stats` (frames, bytes, copies; drops per reason). Any control thread (takes ctl_lock).
 *
 * @param t
 *   Receives the totals; the caller's storage.
 */
void mcfan_totals_read(const struct mcfan_app *app, struct mcfan_totals *t);
/**
 * RX-to-dequeue latency of every worker since the last `clear stats`. Any control thread.
 *
 * @param out
 *   Receives one view per worker, in worker order: room for app->n_workers views.
 * @return
 *   app->n_workers (views written, 0..RTE_MAX_LCORE).
 */
int mcfan_latency_read(const struct mcfan_app *app, struct mcfan_latency_view *out);
/**
 * Every worker's frames and rings since the last `clear stats`. Any control thread (takes
 * ctl_lock).
 *
 * @param out
 *   Receives one view per worker, in worker order: room for app->n_workers views.
 * @return
 *   app->n_workers (views written), or -ENOMEM (nothing written).
 */
int mcfan_workers_read(const struct mcfan_app *app, struct mcfan_worker_view *out);

/**
 * The frame totals (the conservation line) since the last clear (MCFAN_SINCE_CLEAR, as
 * mcfan_totals_read()) or since the start (MCFAN_SINCE_START, /metrics). Any control thread;
 * takes ctl_lock; never touches a data lcore.
 *
 * @param t
 *   Receives the totals (frames, bytes, copies, drops by reason).
 */
void mcfan_totals_read_since(const struct mcfan_app *app, struct mcfan_totals *t,
			     enum mcfan_stats_since since);

/**
 * Every worker's RX-to-dequeue latency histogram, in worker order, since the last clear
 * (MCFAN_SINCE_CLEAR, as mcfan_latency_read()) or since the start (MCFAN_SINCE_START,
 * /metrics: buckets, count and sum never go back; max_ns the longest since the start).
 * Any control thread; takes ctl_lock.
 *
 * @param out
 *   Receives n_workers views.
 * @return
 *   n_workers.
 */
int mcfan_latency_read_since(const struct mcfan_app *app, struct mcfan_latency_view *out,
			     enum mcfan_stats_since since);

/**
 * Every worker's copies, bytes, enqueued and ring full copies, in worker order, since the
 * last clear (MCFAN_SINCE_CLEAR, as mcfan_workers_read()) or since the start
 * (MCFAN_SINCE_START, /metrics); the ring gauges as they are now. Any control thread; takes
 * ctl_lock.
 *
 * @param out
 *   Receives n_workers views.
 * @return
 *   n_workers, or -ENOMEM.
 */
int mcfan_workers_read_since(const struct mcfan_app *app, struct mcfan_worker_view *out,
			     enum mcfan_stats_since since);
/**
 * The groups joined now, in group-table order (show groups, /mcfan/groups, /metrics); their
 * counters since the last clear. Any control thread.
 *
 * @param out
 *   Receives up to max views.
 * @param max
 *   Room in out, views.
 * @return
 *   Views written (0..max), or -ENOMEM.
 */
int mcfan_groups_read(const struct mcfan_app *app, struct mcfan_group_view *out,
		      unsigned int max);

/**
 * Read the groups joined now, as mcfan_groups_read() does, and in the same hold of ctl_lock
 * the generation of the group entries they come from (app group_entries_gen: one more at
 * every join, leave or other change of the entries), so that a reader of several pieces
 * (/mcfan/groups pages) can tell whether they come from one table. Any control thread.
 *
 * @param out
 *   Receives up to max views.
 * @param max
 *   Room in out; MCFAN_MAX_GROUPS is enough.
 * @param gen
 *   Receives the generation (wraps at 2^32). Must not be NULL.
 * @return
 *   Views written, or -ENOMEM.
 */
int mcfan_groups_read_gen(const struct mcfan_app *app, struct mcfan_group_view *out,
			  unsigned int max, uint32_t *gen);

/**
 * Read the groups joined now, as mcfan_groups_read() does, and in the same read (one hold of
 * ctl_lock, so that a group being left is counted once: as joined or as left) the sum of the
 * groups left since the last `clear stats` that had no series of their own: what /metrics
 * keeps in group="_other" besides the joined groups without (docs/metrics.md
 * "Cardinality"). Any control thread; never touches a data lcore.
 *
 * @param out
 *   Receives up to max views (view.own_series set).
 * @param max
 *   Room in out; MCFAN_MAX_GROUPS is enough.
 * @param other
 *   Receives the left groups without series of their own: how many, and their frames,
 *   copies, copy drops and bytes since the last clear (the rows folded beyond
 *   MCFAN_MAX_GROUPS included). Must not be NULL.
 * @return
 *   Views written, or -ENOMEM.
 */
int mcfan_groups_series_read(const struct mcfan_app *app, struct mcfan_group_view *out,
			     unsigned int max, struct mcfan_left_overflow *other);

/**
 * mcfan_groups_series_read() (MCFAN_SINCE_CLEAR), or with MCFAN_SINCE_START what /metrics
 * shows, which `clear stats` does not move: each joined group counted since its join (its
 * counter slot's last rebase), and in other every group left since the start without series
 * of its own, with all it counted from its join (live from its slot until the slot is
 * reused, then as summed at the reuse). Same thread and lock rules (one hold of ctl_lock).
 *
 * @param out
 *   Receives up to max views (view.own_series set).
 * @param max
 *   Room in out; MCFAN_MAX_GROUPS is enough.
 * @param other
 *   Receives the left groups without series of their own (how many, frames, copies, copy
 *   drops, bytes). Must not be NULL.
 * @return
 *   Views written, or -ENOMEM.
 */
int mcfan_groups_series_read_since(const struct mcfan_app *app, struct mcfan_group_view *out,
				   unsigned int max, struct mcfan_left_overflow *other,
				   enum mcfan_stats_since since);

/**
 * Read the groups left since the start or the last `clear stats`, oldest leave first: one row
 * per membership (a group left, joined again and left again has two rows; while joined it
 * has its joined row in mcfan_groups_read() too). Each row's counters are those of its
 * membership: counted from its slot until the slot is reused (copies still queued at the
 * leave are counted when a worker takes them), then kept as they were at the reuse. With the
 * rows of mcfan_groups_read() and *ov they sum to mcfan_totals_read()'s once the rings are
 * empty. Any control thread; takes ctl_lock.
 *
 * @param out
 *   Receives up to max rows (view.left true, view.left_tsc the leave's TSC).
 * @param max
 *   Room in out; MCFAN_MAX_GROUPS is enough (at most that many rows are kept).
 * @param ov
 *   Receives the rows folded in beyond MCFAN_MAX_GROUPS (all 0 when none); may be NULL.
 * @return
 *   Rows written, or -ENOMEM.
 */
int mcfan_left_groups_read(const struct mcfan_app *app, struct mcfan_group_view *out,
			   unsigned int max, struct mcfan_left_overflow *ov);

/**
 * Keep a row for a group being left (control/groups.c, under the action lock, after the
 * table without it is published and before its slot retires), with ctl_lock held by the
 * caller: in the critical section that takes the group out of group_entries, so that no
 * read sees the group in neither list (or in both). When MCFAN_MAX_GROUPS rows are kept,
 * the oldest row whose slot was reused is folded into the overflow counters.
 *
 * @param e
 *   The group's entry as it was joined (copied).
 * @return
 *   0, or -ENODEV before mcfan_stats_init().
 */
int mcfan_stats_group_left(struct mcfan_app *app, const struct mcfan_group_entry *e);

/**
 * Decide which groups a join is about to publish get series of their own on /metrics (the
 * rest count in group="_other" for as long as they are joined, and after their leave until
 * the next clear, docs/metrics.md "Cardinality"): in the order given, each while fewer than
 * --metrics-max-groups joined groups have them. Under the action lock, before the table
 * with them is published (mcfan_ctl_join_inst()); mcfan_stats_init() decides for the
 * groups of --groups. Takes ctl_lock.
 *
 * @param slots
 *   The new groups' counter slots, n of them.
 * @param n
 *   0..MCFAN_MAX_GROUPS.
 * @return
 *   0, or -ENODEV before mcfan_stats_init().
 */
int mcfan_stats_groups_joining(struct mcfan_app *app, const uint16_t *slots, unsigned int n);

/**
 * TSC of the last `clear stats`, 0 if there was none: the counters of every read above, and
 * the report's duration, start there. Any control thread.
 *
 * @return
 *   The TSC (cycles) of the last clear, or 0.
 */
uint64_t mcfan_stats_clear_tsc(const struct mcfan_app *app);
/**
 * Whether an lcore of mcfan's has never measured anything: its accounting has been off since
 * the start (--no-msacc) and no msacc on has reached it yet. Any control thread.
 *
 * @return
 *   true if at least one lcore never measured anything.
 */
bool mcfan_msacc_any_never_measured(const struct mcfan_app *app);

/**
 * First CPU of an lcore's cpuset (the --lcores mapping). Any thread.
 *
 * @param lcore_id
 *   The lcore, < RTE_MAX_LCORE (not checked).
 * @return
 *   The CPU (0..CPU_SETSIZE-1), or -1 when the set is empty.
 */
int mcfan_lcore_cpu(unsigned int lcore_id);

/**
 * An lcore's cpuset (the --lcores mapping) as a Linux CPU list, ranges merged: "1" for an
 * lcore pinned to CPU 1, "0-1" for one that floats over CPUs 0 and 1 (`--bind u`,
 * `--lcores 1@(0-1)`); "" when the set is empty.
 *
 * @param lcore_id
 *   The lcore.
 * @param buf
 *   Output buffer; the text is truncated to len - 1 characters and NUL-terminated.
 * @param len
 *   Size of buf, at least 1.
 */
void mcfan_lcore_cpus(unsigned int lcore_id, char *buf, size_t len);
/**
 * mcfan_lcore_rows_in() over the shared window, app->window (the console's and
 * telemetry's msacc reset and start move it).
 *
 * @param rows
 *   Receives up to max rows.
 * @param max
 *   Room in rows.
 * @return
 *   As mcfan_lcore_rows_in().
 */
int mcfan_lcore_rows(struct mcfan_app *app, struct mcfan_msacc_row *rows, unsigned int max);

/**
 * The microstate rows of every lcore mcfan uses, in lcore id order, over a window of the
 * caller's (mcfan_lcore_rows() reads the shared one, app->window, which the console's and
 * telemetry's msacc reset and start move); the lcores that never measured anything are left
 * out. Control side, any thread; the window's own lock serialises its users.
 *
 * @param window
 *   The window (mcfan_msacc_window_init()); e.g. a continuous one, whose rows count since
 *   each lcore's accounting started. Must not be NULL.
 * @param rows
 *   Receives up to max rows.
 * @param max
 *   Room in rows.
 * @return
 *   The number of rows, or a negative errno of mcfan_msacc_window_collect().
 */
int mcfan_lcore_rows_in(struct mcfan_app *app, struct mcfan_msacc_window *window,
			struct mcfan_msacc_row *rows, unsigned int max);

/** The engines a data lcore runs (datapath/engine.h), by name; NULL for a role it lacks. */
struct mcfan_lcore_engines {
	const char *rx;      /**< RX-side engine (RX role), e.g. "fanout". */
	const char *worker;  /**< Worker-side engine (worker role), e.g. "count". */
};

/**
 * Read the engine names of lcore lcore_id. Any control thread; the names are set before
 * launch and stay valid for the life of the process.
 *
 * @return
 *   0, or -EINVAL if lcore_id >= RTE_MAX_LCORE (out is then all NULL).
 */
int mcfan_lcore_engines_read(const struct mcfan_app *app, unsigned int lcore_id,
			     struct mcfan_lcore_engines *out);

/** One counter of a worker engine on one lcore (datapath/engine.h counters hook). */
struct mcfan_engine_value {
	const char *name;  /**< e.g. "tx_sent", "pcap_full"; constant for the process. */
	uint64_t value;    /**< Copies (or files, errors, bytes: kind 2). */
	/** 0: copies delivered by the engine; 1: copies dropped, this is its reason; 2: not a
	 * copy count. Copies in = sum(kind 0) + sum(kind 1), exactly. */
	uint8_t kind;
};

/** Most counters of one lcore's worker engine. */
#define MCFAN_ENGINE_VALUES_MAX 16

/**
 * Read the counters of lcore lcore_id's worker engine (totals since start, not cleared by
 * clear stats). Any control thread, while the lcores run or after.
 *
 * @param out
 *   Receives at most max (<= MCFAN_ENGINE_VALUES_MAX) counters.
 * @return
 *   Counters written (0: the engine has none, or the lcore is no worker), or -EINVAL for a
 *   bad lcore_id.
 */
int mcfan_lcore_engine_values(const struct mcfan_app *app, unsigned int lcore_id,
			      struct mcfan_engine_value *out, unsigned int max);

/** One worker engine instance ("output") on one worker lcore (docs/delivery.md). */
struct mcfan_inst_view {
	unsigned int inst;        /**< Index in the instance table, 0 = --worker-engine. */
	const char *engine;       /**< Its engine's name. */
	const char *args;         /**< Its ARGS, "" for none. */
	uint64_t frames;          /**< Copies the lcore handed to it. */
	int n_values;             /**< Counters in values (>= 1). */
	/** The engine has counters of its own (false: count, values is its one "counted"). */
	bool own_counters;
	/** Its counters; an engine without any (count) shows one, "counted" = frames. The
	 * copies handed to it = sum(kind 0) + sum(kind 1) once nothing is pending. */
	struct mcfan_engine_value values[MCFAN_ENGINE_VALUES_MAX];
};

/**
 * Read instance inst of worker lcore lcore_id: its engine, ARGS, copies and counters
 * (totals since start). Any control thread, while the lcores run or after.
 *
 * @return
 *   0, or -EINVAL (lcore_id not a worker lcore, inst >= app->n_inst).
 */
int mcfan_lcore_inst_read(const struct mcfan_app *app, unsigned int lcore_id, unsigned int inst,
			  struct mcfan_inst_view *out);

/**
 * Copies worker lcore lcore_id handed to an engine chosen by `set engine LCORE` instead of
 * their group's instance (0 for a bad lcore_id). Any control thread.
 *
 * @return
 *   Copies since start (0 for a bad lcore_id).
 */
uint64_t mcfan_lcore_sel_frames(const struct mcfan_app *app, unsigned int lcore_id);

/**
 * mcfan_lcore_engine_values() since the last `clear stats` (the report, show engines,
 * /mcfan/engines; /metrics reads the totals): each counter of
 * copies (kind 0 and 1) and each count of kind 2 minus its value at the clear; a kind 2 value
 * that is a level or a name, not a count (pcap_pending, tx_port, tx_queue), is as read.
 * Any control thread.
 *
 * @return
 *   As mcfan_lcore_engine_values().
 */
int mcfan_lcore_engine_values_cleared(const struct mcfan_app *app, unsigned int lcore_id,
				      struct mcfan_engine_value *out, unsigned int max);

/**
 * mcfan_lcore_inst_read() since the last `clear stats` (the report, show engines,
 * /mcfan/engines): frames and counters as
 * mcfan_lcore_engine_values_cleared() does them. Any control thread.
 *
 * @return
 *   As mcfan_lcore_inst_read().
 */
int mcfan_lcore_inst_read_cleared(const struct mcfan_app *app, unsigned int lcore_id,
				  unsigned int inst, struct mcfan_inst_view *out);

/**
 * mcfan_lcore_sel_frames() since the last `clear stats` (the report). Any control thread.
 *
 * @return
 *   Copies since the last clear (0 for a bad lcore_id).
 */
uint64_t mcfan_lcore_sel_frames_cleared(const struct mcfan_app *app, unsigned int lcore_id);

/**
 * Port counters since the last clear (live, or read just before the port was closed). Any
 * control thread (takes ctl_lock).
 *
 * @param out
 *   Receives the counters (frames, bytes); zeroed on an error.
 * @return
 *   0, -ENODEV for a port mcfan does not use, or rte_eth_stats_get()'s negative errno.
 */
int mcfan_port_stats_read(const struct mcfan_app *app, uint16_t port, struct rte_eth_stats *out);

/**
 * A port's ethdev counters since the last clear (MCFAN_SINCE_CLEAR, as
 * mcfan_port_stats_read()) or since the port's start (MCFAN_SINCE_START, /metrics). Any
 * control thread; takes ctl_lock.
 *
 * @param port
 *   The port id.
 * @param out
 *   Receives the counters (zeroed on error).
 * @return
 *   0, -ENODEV for a port mcfan does not use, or rte_eth_stats_get()'s negative errno.
 */
int mcfan_port_stats_read_since(const struct mcfan_app *app, uint16_t port,
				struct rte_eth_stats *out, enum mcfan_stats_since since);

/**
 * Allocate the baselines (control side) once the lcores are set up; the groups of --groups
 * get series of their own on /metrics here (the first --metrics-max-groups). Main lcore.
 * The baselines belong to app until mcfan_stats_free().
 *
 * @return
 *   0, or -ENOMEM (nothing allocated).
 */
int mcfan_stats_init(struct mcfan_app *app);
/** Free what mcfan_stats_init() allocated, at exit; safe when it never ran. Main lcore. */
void mcfan_stats_free(struct mcfan_app *app);
/**
 * `clear stats`: every read above starts from zero now (MCFAN_SINCE_CLEAR; the
 * MCFAN_SINCE_START reads of /metrics, group="_other" included, are not moved), and so do the
 * engine counters of mcfan_lcore_inst_read_cleared() and mcfan_lcore_engine_values_cleared();
 * the rows of left groups are dropped (and with them their sums since the clear); which
 * joined groups have series of their own does not change. No counter is written. Control
 * thread.
 *
 * @return
 *   0, -ENODEV before mcfan_stats_init(), or -ENOMEM (nothing cleared).
 */
int mcfan_stats_clear(struct mcfan_app *app);
/**
 * A counter slot reused by a new group starts from zero (its old group's frames are all
 * counted: see control/groups.c). Control thread, under the action lock.
 *
 * @param slot
 *   The counter slot, 0..MCFAN_MAX_GROUPS-1.
 * @return
 *   0, -EINVAL (slot out of range, or before mcfan_stats_init()) or -ENOMEM.
 */
int mcfan_stats_slot_rebase(struct mcfan_app *app, uint16_t slot);

#endif /* MCFAN_APP_STATS_H */
