/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_IGMP_H
#define MCFAN_CONTROL_IGMP_H

/**
 * @file
 * The IGMP and MLD host side of every port, on the control lcore (docs/igmp.md).
 *
 * The path: an RX lcore's classifier finds an IGMP or MLD frame and hands it to its
 * control ring (one single producer / single consumer rte_ring per RX lcore), counted
 * under the drop reason `control` (not for the workers); a frame the full ring refuses is
 * freed and counted under the drop reason `ctl_ring_full` instead. The control lcore's tick (mcfan_igmp_tick()) dequeues, parses
 * (lib/igmp: an invalid frame counts under its reason: malformed, bad_checksum, wrong_ttl,
 * not_for_us; it is never answered), feeds the queries to the port's host state machine,
 * and sends what is due through TX queue 0 of the port, which only this file uses. So for
 * every port: drops.control = frames dequeued + frames still in the ring (none once the
 * run has stopped), drops.ctl_ring_full = what the rings refused, and frames dequeued = taken + sum of the invalid reasons (mcfan_igmp_read()).
 *
 * Membership follows the joined groups: at the first tick, and at once after each join
 * and leave action (mcfan_igmp_sync()), each distinct group address is joined (any source,
 * or INCLUDE the union of the sources its joins gave with `@`) or left on every RX port (an
 * output-only port has no host: struct mcfan_port role, docs/delivery.md "Port roles"); when
 * the union of a joined address changes (a join or leave of another UDP port of it), its
 * sources are replaced and the state-change report is sent (mcfan_igmp_host_set_sources()).
 *
 * Locking: the state below is guarded by its own spinlock, taken by the tick, the sync
 * (from an action) and the readers (console, telemetry, report); ctl_lock is taken inside
 * it (to copy the joined groups), never the other way round. TX queue 0 is only used
 * under that lock.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcfan_igmp.h"
#include "mcfan_igmp_host.h"
#include "mcfan_igmp_ssm.h"

struct mcfan_app;

/** Slots of each RX lcore's control ring, frames. */
#define MCFAN_IGMP_RING_SIZE 1024

/** What the read side shows of one protocol on one port. */
struct mcfan_igmp_proto_view {
	uint8_t mode;               /**< enum mcfan_igmp_mode. */
	uint8_t version;            /**< Version spoken now (0: off). */
	bool have_querier;          /**< A query was seen. */
	uint8_t querier_version;    /**< Version of the last query. */
	uint8_t querier[16];        /**< Its source address. */
	uint64_t querier_age_ms;    /**< Since the last query, ms. */
	uint8_t src[16];            /**< Source address of the reports sent. */
	unsigned int n_groups;      /**< Groups (joined or leaving). */
	uint64_t taken;             /**< Valid queries taken. */
	struct mcfan_igmp_counters c; /**< Queries, reports, leaves, invalid frames. */
};

/** One port. */
struct mcfan_igmp_port_view {
	uint16_t port;
	uint64_t tx_frames;         /**< Control frames sent on TX queue 0. */
	uint64_t tx_failed;         /**< Frames the TX queue or the pool refused (freed). */
	struct mcfan_igmp_proto_view proto[2]; /**< [0] IGMP, [1] MLD. */
};

/** Totals of the path. */
struct mcfan_igmp_totals {
	uint64_t dequeued;          /**< Control frames taken from the rings. */
	/** Control frames the rings refused: the drop reason MCFAN_DROP_CTL_RING_FULL (read
	 * through mcfan_totals_read(), so since the last `clear stats`). */
	uint64_t ctl_ring_full;
	uint64_t unknown_port;      /**< Dequeued frames of a port mcfan does not use. */
};

/** One group of one port and protocol. */
struct mcfan_igmp_group_view {
	uint8_t addr[16];
	uint8_t n_src;              /**< 0: any source (EXCLUDE {}). */
	uint8_t sources[MCFAN_IGMP_MAX_SOURCES][16];
	/** mcfan_igmp_group_state(); "left" once mcfan stopped and left it
	 * (mcfan_igmp_leave_all(): the report lists the groups as they were). */
	const char *state;
	bool reported;              /**< A report was sent. */
	uint64_t last_report_age_ms; /**< Since the last report, ms. */
};

/**
 * Check the IGMP/MLD configuration against the probed ports (--port-ip names a port that
 * exists). After EAL, before anything starts; prints one line on failure.
 *
 * @return
 *   0, or -EINVAL (exit status 2).
 */
int mcfan_igmp_check(const struct mcfan_app *app);

/**
 * Set up the path: the control rings (given to the RX lcores), the TX pool, one host per
 * port and protocol. After the ports are started, before the lcores are launched.
 *
 * @return
 *   0, or -ENOMEM / -rte_errno (logged).
 */
int mcfan_igmp_init(struct mcfan_app *app);

/**
 * Dequeue and take the control frames, send what is due. The control lcore, every tick.
 */
void mcfan_igmp_tick(struct mcfan_app *app);

/**
 * How long the control lcore may sleep before mcfan_igmp_tick() has work: control frames
 * waiting in an RX lcore's control ring, a first sync not yet run, or the earliest message
 * due on any port's host (mcfan_igmp_host_next_due()). The control lcore, before it sleeps.
 *
 * @return
 *   Milliseconds, 0 if there is work now; UINT64_MAX if nothing is pending (or IGMP is not
 *   set up).
 */
uint64_t mcfan_igmp_idle_ms(struct mcfan_app *app);

/**
 * Bring the hosts' membership to the joined groups and send what is due at once. Called
 * by the join and leave actions (without ctl_lock held) after they changed the groups.
 *
 * @param ssm
 *   Sources of the groups just joined (mcfan_igmp_ssm_split()), or NULL.
 * @param n_ssm
 *   Entries of ssm.
 */
void mcfan_igmp_sync(struct mcfan_app *app, const struct mcfan_igmp_ssm *ssm, unsigned int n_ssm);

/**
 * Check the sources of a join against those of the groups joined (the join action, before
 * it changes anything): together at most MCFAN_IGMP_MAX_SOURCES sources per group address
 * and MCFAN_IGMP_SSM_MAX (group, source) pairs, and IGMPv3 / MLDv2 able to send them
 * (mcfan_igmp_ssm_check()).
 *
 * @param ssm
 *   Sources of the groups to join (mcfan_igmp_ssm_split()); may be NULL when n_ssm is 0.
 * @param n_ssm
 *   Entries of ssm.
 * @param msg
 *   Receives one line naming the group and the limit or the mode, after "join: ".
 * @param len
 *   Size of msg, bytes.
 * @return
 *   0, -E2BIG (too many sources or pairs), -ENOTSUP (the mode cannot send sources),
 *   -ENOMEM.
 */
int mcfan_igmp_join_check(const struct mcfan_app *app, const struct mcfan_igmp_ssm *ssm,
			  unsigned int n_ssm, char *msg, size_t len);

/**
 * mcfan stops: leave every group on every started port and send the messages at once
 * (v3 / MLDv2 TO_IN {} or BLOCK {S} [Robustness Variable] times back to back, one IGMPv2
 * Leave / MLDv1 Done; IGMPv1 and off send nothing), so a snooping switch prunes the
 * groups within its last-member query time instead of its membership interval. Logs what
 * it sent. After the data lcores stopped (and mcfan_igmp_drain()), before the ports stop.
 */
void mcfan_igmp_leave_all(struct mcfan_app *app);

/**
 * `clear stats`: the IGMP/MLD counters start from zero now (queries seen, reports, leaves
 * and suppressed answers sent, taken, invalid frames, frames dequeued, unknown_port,
 * tx_frames, tx_failed); the membership, the querier and its timers stay. What the rings
 * hold is taken first, so the frames classified before the clear are not counted after it
 * (only what they hold at the clear: RX lcores go on adding).
 * Control thread (the clear stats action), after mcfan_stats_clear().
 */
void mcfan_igmp_clear(struct mcfan_app *app);

/**
 * Take what is left in the control rings (counted) once the RX lcores have stopped, so
 * every mbuf is back in its pool before the ports close.
 */
void mcfan_igmp_drain(struct mcfan_app *app);

/** Free the rings, the pool and the hosts. */
void mcfan_igmp_free(struct mcfan_app *app);

/**
 * Copy the per-port state; any control thread.
 *
 * @param views
 *   Receives up to max ports, in port order.
 * @param max
 *   Room in views.
 * @param tot
 *   Receives the totals; may be NULL.
 * @return
 *   Ports written (0 before mcfan_igmp_init()).
 */
unsigned int mcfan_igmp_read(const struct mcfan_app *app, struct mcfan_igmp_port_view *views,
			     unsigned int max, struct mcfan_igmp_totals *tot);

/**
 * As mcfan_igmp_read() (since_start false: the counts since the last `clear stats`), or with
 * since_start true the counts since the start, which `clear stats` does not move (/metrics:
 * Prometheus counters never go back). Any control thread.
 *
 * @param views
 *   Receives up to max ports, in port order.
 * @param max
 *   Room in views.
 * @param tot
 *   Receives the totals; may be NULL.
 * @param since_start
 *   true: counts since the start; false: since the last clear.
 * @return
 *   Ports written (0 before mcfan_igmp_init()).
 */
unsigned int mcfan_igmp_read_since(const struct mcfan_app *app,
				   struct mcfan_igmp_port_view *views, unsigned int max,
				   struct mcfan_igmp_totals *tot, bool since_start);

/**
 * Copy the groups of one port and protocol; any control thread.
 *
 * @param port
 *   The port.
 * @param proto_idx
 *   0 IGMP, 1 MLD.
 * @param out
 *   Receives up to max groups.
 * @param max
 *   Room in out.
 * @return
 *   Groups written, or -ENOENT for a port without a host.
 */
int mcfan_igmp_read_groups(const struct mcfan_app *app, uint16_t port, unsigned int proto_idx,
			   struct mcfan_igmp_group_view *out, unsigned int max);

/**
 * The sources a joined group was joined from (`GROUP@SOURCE`, docs/igmp.md), as a group list
 * names them (mcfan_igmp_ssm_format()); any control thread. Takes the lock above (not
 * ctl_lock: the caller may read the groups first).
 *
 * @param key
 *   The group, as joined.
 * @param buf
 *   Receives the text, "" for a group joined from any source (or before
 *   mcfan_igmp_init()). Must not be NULL.
 * @param len
 *   Size of buf, bytes, at least 1.
 * @return
 *   The number of sources.
 */
unsigned int mcfan_igmp_sources_text(const struct mcfan_app *app,
				     const struct mcfan_flow_key *key, char *buf, size_t len);

/**
 * The sources a joined group was joined from, one address a row ("198.18.0.1", "fe80::1":
 * no brackets), for the telemetry reply and the report; any control thread, the lock of
 * mcfan_igmp_sources_text().
 *
 * @param key
 *   The group, as joined.
 * @param out
 *   Receives up to max addresses, in the order they were given at the join.
 * @param max
 *   Room in out (MCFAN_IGMP_MAX_SOURCES holds every source a group may have).
 * @return
 *   The number of sources (0 for a group joined from any source, or before
 *   mcfan_igmp_init()); only the first max are written.
 */
unsigned int mcfan_igmp_sources_list(const struct mcfan_app *app,
				     const struct mcfan_flow_key *key,
				     char (*out)[MCFAN_IGMP_ADDR_STR], unsigned int max);

#endif /* MCFAN_CONTROL_IGMP_H */
