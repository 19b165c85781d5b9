/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_FEED_H
#define MCFAN_CONTROL_FEED_H

/*
 * Feed quality, the control side (control/feed.c, docs/feed.md): which groups have a
 * sequence extractor (--seq, `set seq`), A/B pairs (--seq-pair, `set pair`), the state per
 * group allocated here and published to the workers (struct mcfan_feed_table), and the read
 * side that the report, the console and telemetry share. Actions follow the conventions of
 * control/control.h: the action lock, every check before any change, one line of message.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcfan.h"
#include "mcfan_feed.h"

/** Most A/B pairs at once. */
#define MCFAN_FEED_PAIRS_MAX 64
/** Most replaced bindings, states and arbitrations awaiting their grace period at once
 * (the worker lcores' RCU, control/feed.c): a safety bound; an action that would pass it is
 * refused. Each is freed once every worker-step thread has passed a quiescent state (one a
 * loop pass; a sleeping one counts as quiescent). */
#define MCFAN_FEED_RETIRED_MAX 4096

/** The retired objects (replaced bindings, states, arbitrations): /mcfan/feed. */
struct mcfan_feed_retired {
	uint64_t waiting;               /**< Awaiting their grace period now. */
	uint64_t freed;                 /**< Freed after theirs, since the start. */
	uint64_t kept;                  /**< Past MCFAN_FEED_RETIRED_MAX: kept until exit. */
};

/** One group with an extractor, as the read side copies it. */
struct mcfan_feed_view {
	struct mcfan_flow_key key;
	uint16_t slot;                  /**< Counter slot. */
	unsigned int lcore;             /**< The worker lcore that tracks it. */
	char kind[MCFAN_FEED_SPEC_STR_MAX + 1];
	int pair;                       /**< Its pair's index in mcfan_feed_pairs_read(), or -1. */
	/** /metrics gives its feed series of their own (else they count in group="_other"):
	 * decided when the group got its extractor, kept while it has one. */
	bool own_series;
	/** Its counts since the last `clear stats` (or since it got this state), see
	 * mcfan_feed_clear(); pending and jitter_ns as they are now. */
	struct mcfan_feed_counters c;
};

/** One A/B pair; its counts since the last `clear stats` or since it was declared. */
struct mcfan_feed_pair_view {
	struct mcfan_flow_key key[2];   /**< Lines A and B. */
	unsigned int lcore;             /**< The worker lcore that arbitrates. */
	struct mcfan_feed_arb_counters c;
};

/** Feed states /metrics counted in group="_other" that were replaced or removed since the
 * last `clear stats`: a left group's, one that `set seq` gave another kind or took away, one
 * that `set fanout` moved to another worker (docs/metrics.md "Cardinality"). */
struct mcfan_feed_gone {
	uint64_t states;                /**< States summed. */
	struct mcfan_feed_counters c;   /**< Their counts since the clear; pending, jitter_ns 0. */
};

/**
 * The retired objects' counts (zero without the control side). Any thread; takes ctl_lock.
 */
void mcfan_feed_retired_read(const struct mcfan_app *app, struct mcfan_feed_retired *r);

/**
 * Create the bindings table and apply --seq and --seq-pair to the groups joined at start.
 * Before launch, once.
 *
 * @return
 *   0, -ENOMEM, or -EINVAL (a pair that cannot be made: the message is logged).
 */
int mcfan_feed_control_init(struct mcfan_app *app);

/** Free the table and every state (also the retired ones). After the data lcores stopped. */
void mcfan_feed_control_free(struct mcfan_app *app);

/**
 * Follow joins and leaves (control tick, under the action lock): a group joined later that
 * a --seq rule names gets its state (if mcfan_feed_join() did not give it at the join); a left group's binding is withdrawn; a group whose
 * designated worker changed (set fanout) gets a new state on the new worker.
 */
void mcfan_feed_tick(struct mcfan_app *app);

/**
 * Follow a change of the group table now (mcfan_ctl_join(), leave, set fanout: right after
 * they publish it, under the action lock), not at the next tick: a left group's feed state
 * and A/B pair are withdrawn, a group moved to another worker gets a fresh state, before the
 * next console line or telemetry query reads them. Does nothing when the table did not
 * change since the last follow.
 *
 * @param app
 *   The application.
 * @param gone
 *   Receives the A/B pairs this dissolved ("A,B", " and " between several; "" for none; cut
 *   to fit), for the action's reply; NULL: not wanted.
 * @param len
 *   Size of gone, bytes.
 */
void mcfan_feed_follow(struct mcfan_app *app, char *gone, size_t len);

/**
 * Give the groups a join is about to publish the extractor of the --seq rule that names
 * them, before their group table is published (mcfan_ctl_join(), under the action lock):
 * the binding is stored (release) before the table, so the first frame an RX lcore tags
 * with their slot is tracked; there is no window where a joined group's frames go uncounted
 * by its extractor. If the join then fails, the next mcfan_feed_tick() withdraws the
 * bindings (their groups are not joined). A state that cannot be made is logged and the
 * join goes on without it.
 *
 * @param app
 *   The application.
 * @param e
 *   The new groups' entries: key, slot (id) and workers (targets[0] tracks) set.
 * @param n
 *   Number of entries at e.
 */
void mcfan_feed_join(struct mcfan_app *app, const struct mcfan_group_entry *e, unsigned int n);

/**
 * Give joined groups a sequence extractor, or none ("off"): set seq GROUPS KIND. Their
 * counters start from zero.
 *
 * @return
 *   0, or -EINVAL (a bad list or kind, a group not joined), -ENOSPC, -ENOMEM, -ENODEV;
 *   msg says what was done or what was wrong.
 */
int mcfan_ctl_set_seq(struct mcfan_app *app, const char *groups, const char *kind, char *msg,
		      size_t len);

/**
 * Declare two joined groups with the same extractor and worker as feed lines A and B of one
 * sequence space: set pair A,B.
 *
 * @return
 *   0, or -EINVAL (not two groups, not joined, no or different extractors, mpegts, already
 *   in a pair), -EXDEV (the lines are tracked by different worker lcores), -ENOSPC,
 *   -ENOMEM; msg as above.
 */
int mcfan_ctl_set_pair(struct mcfan_app *app, const char *groups, char *msg, size_t len);

/**
 * Copy every group with an extractor (in counter-slot order), its counts since the last
 * `clear stats`; any control thread.
 *
 * @param out
 *   Room for max views.
 * @return
 *   The number of views written.
 */
unsigned int mcfan_feed_read(const struct mcfan_app *app, struct mcfan_feed_view *out,
			     unsigned int max);

/**
 * Copy every group with an extractor as mcfan_feed_read() does and, in the same read, the
 * states that /metrics counted in group="_other" and that are gone since the last
 * `clear stats` (so that its sum never goes back before a clear); any control thread.
 *
 * @param out
 *   Room for max views (view.own_series set).
 * @param gone
 *   Receives the gone states' sum. Must not be NULL.
 * @return
 *   The number of views written.
 */
unsigned int mcfan_feed_series_read(const struct mcfan_app *app, struct mcfan_feed_view *out,
				    unsigned int max, struct mcfan_feed_gone *gone);

/**
 * mcfan_feed_series_read() (since_start false), or with since_start true what /metrics
 * shows, which `clear stats` does not move: each state's counts since it was bound, and in
 * gone the states of group="_other" replaced or removed since the start, with all they
 * counted. Any control thread; takes ctl_lock.
 *
 * @param out
 *   Room for max views (view.own_series set).
 * @param gone
 *   Receives the gone states' sum (pending, jitter_ns 0). Must not be NULL.
 * @param since_start
 *   true: since the start; false: since the last clear.
 * @return
 *   The number of views written.
 */
unsigned int mcfan_feed_series_read_since(const struct mcfan_app *app,
					  struct mcfan_feed_view *out, unsigned int max,
					  struct mcfan_feed_gone *gone, bool since_start);

/**
 * `clear stats` for feed quality (mcfan_ctl_clear_stats(), under the action lock): every
 * count of the reads here (mcfan_feed_read(), mcfan_feed_view_read(), mcfan_feed_gaps_read()
 * and its gap log, mcfan_feed_pairs_read()) starts from zero now, by baselines on the
 * control side: no worker's state is written. The levels (pending, jitter_ns) and the
 * trackers' state (the last number seen, the open gaps) go on; the numbers pending at the
 * clear are counted where they settle, as expected after the clear too. Nothing before
 * mcfan_feed_control_init().
 */
void mcfan_feed_clear(struct mcfan_app *app);

/**
 * Copy the feed results of a group left since the last `clear stats` with an extractor: its
 * counts and gap log from the last clear (or from its state's start) to its leave, plus
 * what its worker counted of the copies it still took before the leave reached it. Until the
 * state is freed (the worker lcores' grace period after the leave) they are read from it;
 * the state's final counts are copied just before its free, so they stay for the report
 * (one entry per membership, at most MCFAN_MAX_GROUPS, as control/stats.h keeps left rows;
 * the oldest go first). Any control thread; takes ctl_lock.
 *
 * @param e
 *   The left membership: its key and join_seq (a left row's entry, mcfan_left_groups_read()).
 * @param view
 *   Receives its view (kind, tracking lcore, counters; pair -1).
 * @param log
 *   Receives up to max gap events since the clear, oldest first (may be NULL with max 0).
 * @param max
 *   Room in log, events.
 * @return
 *   Gap events written (0..max), or -ENOENT (no extractor at its leave, or its entry gone).
 */
int mcfan_feed_left_read(const struct mcfan_app *app, const struct mcfan_group_entry *e,
			 struct mcfan_feed_view *view, struct mcfan_feed_gap *log,
			 unsigned int max);

/**
 * Copy one group's counters (since the last `clear stats`), if it has an extractor.
 *
 * @return
 *   0, or -ENOENT (no extractor, not joined).
 */
int mcfan_feed_view_read(const struct mcfan_app *app, const struct mcfan_flow_key *key,
			 struct mcfan_feed_view *view);

/**
 * Copy one group's counters and gap log (oldest first), since the last `clear stats`: the
 * events logged before it are left out. Any control thread.
 *
 * @param what
 *   The command that asks, for the message ("show feed gaps", "/mcfan/feed").
 * @param group
 *   One group, as in --groups.
 * @return
 *   Gap events written (0..max), or -EINVAL (not one group), -ENOENT (the group is not
 *   joined, or joined without an extractor); msg says why, starting with what.
 */
int mcfan_feed_gaps_read(const struct mcfan_app *app, const char *what, const char *group,
			 struct mcfan_feed_view *view, struct mcfan_feed_gap *log,
			 unsigned int max, char *msg, size_t len);

/**
 * The wall-clock time of a feed time (a gap event's t_ns: the workers' RX TSC in ns, whose
 * zero is not the epoch), from the TSC and CLOCK_REALTIME read now. Any control thread.
 *
 * @param app
 *   The app (its tsc_hz).
 * @param t_ns
 *   A time of the feed tracker's clock, ns.
 * @return
 *   ns since the epoch (UTC).
 */
uint64_t mcfan_feed_epoch_ns(const struct mcfan_app *app, uint64_t t_ns);

/**
 * The one-line warning for a group whose kind does not match its stream
 * (mcfan_feed_kind_suspect()): "warning: GROUP: N of M datagrams did not parse as KIND
 * (malformed): is its --seq kind right?". The console, the report and the control side's log
 * share it.
 *
 * @param v
 *   The group's view.
 * @param buf
 *   Receives the line, without a newline.
 * @param len
 *   Size of buf (MCFAN_CTL_MSG_MAX always suffices).
 * @return
 *   buf.
 */
const char *mcfan_feed_suspect_line(const struct mcfan_feed_view *v, char *buf, size_t len);

/**
 * Print, for each of the tracked groups v whose copies mcfan's own full worker rings refused
 * since the last `clear stats` (the group's copy_drops, drops.ring_full), the note "note:
 * GROUP: mcfan's full worker rings refused N copies of it (copy_drops): ...": the feed is
 * tracked on the worker, after the ring, so those numbers count in lost (or are not expected,
 * at the tail) as if the network had lost them. show feed and the text report print it.
 * Any control thread; reads the groups' counters (mcfan_groups_read()).
 *
 * @param app
 *   The app.
 * @param v, n
 *   The tracked groups (mcfan_feed_read()).
 * @param indent
 *   Put before each line.
 * @param f
 *   Where to print.
 * @return
 *   Notes printed, or -ENOMEM (nothing printed).
 */
int mcfan_feed_ring_drop_notes(const struct mcfan_app *app, const struct mcfan_feed_view *v,
			       unsigned int n, const char *indent, FILE *f);

/**
 * Print one A/B pair as text, four lines after indent each: "pair A / B: merged expected E
 * received R lost L late T pending P arbitration duplicates D" (E = R - T + L + P at rest),
 * each line's first arrivals and misses, and
 * the skew B-A (p50 and p99 in us of the numbers B brought later and of those it brought
 * earlier, the latter negative). `show feed` and the text report share it.
 *
 * @param pv
 *   The pair's view (mcfan_feed_pairs_read()).
 * @param indent
 *   Written before each line ("" or "  ").
 * @param f
 *   Where to print.
 */
void mcfan_feed_pair_print(const struct mcfan_feed_pair_view *pv, const char *indent, FILE *f);

/**
 * Copy every A/B pair, its counts since the last `clear stats` (skew_max_ns: at most the top
 * of the highest bucket counted since).
 *
 * @return
 *   The number of pairs written (0..max).
 */
unsigned int mcfan_feed_pairs_read(const struct mcfan_app *app, struct mcfan_feed_pair_view *out,
				   unsigned int max);

/**
 * mcfan_feed_pairs_read() (since_start false), or with since_start true every pair's counts
 * and skew since the pair was set (/metrics: `clear stats` does not move them). Any control
 * thread; takes ctl_lock.
 *
 * @param out
 *   Room for max pairs.
 * @param since_start
 *   true: since the pair was set; false: since the last clear.
 * @return
 *   The number of pairs written (0..max).
 */
unsigned int mcfan_feed_pairs_read_since(const struct mcfan_app *app,
					 struct mcfan_feed_pair_view *out, unsigned int max,
					 bool since_start);

#endif /* MCFAN_CONTROL_FEED_H */
