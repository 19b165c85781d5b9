/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_KERNEL_H
#define MCFAN_APP_KERNEL_H

/*
 * Kernel-side loss of the ports whose frames pass through a kernel socket or queue before
 * the PMD sees them (docs/guide.md "Frames mcfan never sees"): net_af_packet (each queue's
 * PACKET_STATISTICS, accumulated), net_tap (the tap interface's own counters) and net_pcap on
 * a live interface (libpcap's pcap_stats, which the PMD already reports as imissed); and the
 * kernel interface's receive counters. Control side only: the state is app->kernel, guarded
 * by app->ctl_lock; no data lcore touches it.
 */

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>

#include "mcfan.h"

/** Most kernel sockets (queues) followed per port: net_af_packet's qpairs limit. */
#define MCFAN_KERNEL_MAX_QUEUES 16

/** The kernel-side counters of one port, since the start (or the last clear stats). */
struct mcfan_kernel_view {
	/** Where kernel_drops comes from: "packet_statistics" (net_af_packet), "tap"
	 * (the tap interface's tx counters), "pcap_stats" (net_pcap on an interface: the
	 * PMD's imissed), or "none" (no kernel socket in the path, or not found). */
	const char *source;
	char ifname[IF_NAMESIZE];                       /**< Kernel interface, "" = none. */
	/** The interface's state: "present"; "gone" (net_af_packet: the interface its
	 * sockets were bound to was deleted or moved to another namespace, so the port
	 * receives nothing more until mcfan restarts; if_rx_packets and if_rx_dropped keep
	 * the last values read, at most a second before it went); "away" (net_tap, net_pcap:
	 * not in mcfan's network namespace now, have_if false); "none" (no interface). */
	const char *if_state;
	unsigned int n_queues;                          /**< Sockets followed (af_packet). */
	uint64_t queue_packets[MCFAN_KERNEL_MAX_QUEUES]; /**< Per queue: tp_packets, frames. */
	uint64_t queue_drops[MCFAN_KERNEL_MAX_QUEUES];   /**< Per queue: tp_drops, frames. */
	/** Frames that reached the port's sockets or queue, dropped ones included: equals
	 * ipackets + kernel_drops once the PMD has read everything queued. */
	uint64_t kernel_packets;
	uint64_t kernel_drops;       /**< Frames the kernel dropped there, before the PMD. */
	bool have_if;                /**< The interface counters below were read. */
	uint64_t if_rx_packets;      /**< The interface's statistics/rx_packets. */
	uint64_t if_rx_dropped;      /**< The interface's statistics/rx_dropped. */
	/** The reassembly counts below were read: a net_af_packet port (DPDK 22.11's PMD joins
	 * its sockets to a fanout group with PACKET_FANOUT_FLAG_DEFRAG, so the kernel
	 * reassembles IPv4 fragments before the socket: whole datagrams reach mcfan, and the
	 * fragments of one that never completes reach nothing). Not by mcfan_kernel_read_drops(). */
	bool have_reasm;
	/** IPv4 fragments that needed reassembly (RFC 4293 ipSystemStatsReasmReqds), of the
	 * network namespace: every socket's, not only this port's. */
	uint64_t reasm_fragments;
	uint64_t reasm_datagrams; /**< Datagrams reassembled (ReasmOKs), the namespace's. */
	/** Reassemblies that failed (ReasmFails: timed out after net.ipv4.ipfrag_time seconds,
	 * or refused), the namespace's: datagrams, not fragments. */
	uint64_t reasm_failed;
};

/**
 * Find the kernel-side counters of a started port and zero them (its sockets' statistics
 * are read once and discarded, the interface counters become the baseline). Main lcore,
 * before the data lcores are launched, right before the port's ethdev stats are reset.
 * A port with no kernel socket, or whose sockets are not found, reports "none".
 *
 * @return
 *   0, or -ENOMEM.
 */
int mcfan_kernel_port_init(struct mcfan_app *app, uint16_t port);

/**
 * Read every followed socket's PACKET_STATISTICS and add them up (the kernel resets them
 * on each read). Control lcore's tick; any control thread. Takes ctl_lock.
 */
void mcfan_kernel_tick(struct mcfan_app *app);

/**
 * Close every followed net_af_packet socket to new frames (a filter that takes none), so
 * that the quit drain then empties its ring and the last read is final: a frame that
 * reached the socket is received or counted. Main lcore, after the data lcores stopped:
 * mcfan_quit_drain() calls it first. Takes ctl_lock.
 */
void mcfan_kernel_quiesce(struct mcfan_app *app);

/**
 * Last read of the sockets before the PMD closes them (port stop), then stop following
 * them. Main lcore. Takes ctl_lock.
 */
void mcfan_kernel_final(struct mcfan_app *app);

/**
 * The kernel-side counters of a port since the start or the last clear. Any control thread;
 * reads the sockets first (takes ctl_lock).
 *
 * @param ps
 *   The port's ethdev stats as mcfan_port_stats_read() gave them (for "pcap_stats").
 * @return
 *   0, or -ENODEV for a port mcfan does not use (out is then "none", all zero).
 */
int mcfan_kernel_read(const struct mcfan_app *app, uint16_t port,
		      const struct rte_eth_stats *ps, struct mcfan_kernel_view *out);

/**
 * As mcfan_kernel_read(), or with since_start true the counters since the port's start, not
 * moved by `clear stats` (/metrics: Prometheus counters never go back). Same thread and lock
 * rules.
 *
 * @param ps
 *   The port's ethdev stats counted from the same point (mcfan_port_stats_read_since()).
 * @param since_start
 *   true: since the start; false: since the last clear, as mcfan_kernel_read().
 * @return
 *   0, or -ENODEV for a port mcfan does not use (out is then "none", all zero).
 */
int mcfan_kernel_read_since(const struct mcfan_app *app, uint16_t port,
			    const struct rte_eth_stats *ps, struct mcfan_kernel_view *out,
			    bool since_start);

/**
 * As mcfan_kernel_read(), but without the interface's own counters (have_if false,
 * if_rx_packets and if_rx_dropped 0) unless kernel_drops comes from them (net_tap): for a
 * caller that wants only the kernel-side drops, every control tick. The interface counters
 * are four sysfs files, each opened, read and closed; at 100 ticks a second on
 * net_af_packet that was 16 % of mcfan's CPU in the seed at 3,300 datagrams/s a group
 * (docs/performance.md). Same locking and errors as mcfan_kernel_read().
 *
 * @return
 *   0, or -ENODEV for a port mcfan does not use (out is then "none", all zero).
 */
int mcfan_kernel_read_drops(const struct mcfan_app *app, uint16_t port,
			    const struct rte_eth_stats *ps, struct mcfan_kernel_view *out);

/**
 * What the line `reached the socket kernel_packets = ipackets + kernel_drops` adds after
 * itself: nothing when the two sides are equal, else why they can differ (frames queued at
 * the start or at a clear stats, received after it; frames in the kernel's ring not
 * received yet, while it runs; frames arriving at quit after the quit
 * drain). One text for the report and `show port stats`. Any thread; reads only its
 * arguments.
 *
 * @param kv
 *   The port's kernel-side counters (mcfan_kernel_read()).
 * @param ps
 *   The port's ethdev stats that kv was read with.
 * @return
 *   "" when kernel_packets == ipackets + kernel_drops, else the caveat, starting with two
 *   spaces and in parentheses; a static string.
 */
const char *mcfan_kernel_caveat(const struct mcfan_kernel_view *kv,
				const struct rte_eth_stats *ps);

/**
 * The kernel line's balance for the report and `show port stats`, never a false `=`:
 * "reached the socket K = ipackets I + kernel_drops D" when K = I + D; else "reached the
 * socket K; ipackets I + kernel_drops D = S, N more|fewer than reached the socket" and the
 * caveat (mcfan_kernel_caveat()). All values are frames since the start or the last clear
 * stats. Any thread; reads only its arguments.
 *
 * @param kv
 *   The port's kernel-side counters (mcfan_kernel_read()). Not NULL.
 * @param ps
 *   The port's ethdev stats that kv was read with. Not NULL.
 * @param buf
 *   Output, always NUL-terminated (cut to fit; 384 bytes always suffice). Not NULL.
 * @param len
 *   Size of buf in bytes, > 0.
 * @return
 *   buf.
 */
const char *mcfan_kernel_balance_text(const struct mcfan_kernel_view *kv,
				      const struct rte_eth_stats *ps, char *buf, size_t len);

/**
 * The line the report and `show port stats` print after a net_af_packet port's kernel line
 * when the kernel reassembled (or failed to reassemble) IPv4 fragments since the start or
 * the last clear: the namespace's ReasmReqds, ReasmOKs and ReasmFails (RFC 4293). Any
 * thread; reads only kv.
 *
 * @param kv
 *   The port's kernel-side counters (mcfan_kernel_read()).
 * @param buf, len
 *   Receives the text, without a newline; "" when there is nothing to say.
 * @return
 *   buf.
 */
const char *mcfan_kernel_reasm_text(const struct mcfan_kernel_view *kv, char *buf, size_t len);

/**
 * `clear stats`: the kernel-side counters start from zero now. Control thread, with the
 * other baselines (control/stats.c). Takes ctl_lock.
 */
void mcfan_kernel_clear(struct mcfan_app *app);

/** Close the duplicated socket fds and free the state; safe to call more than once. */
void mcfan_kernel_free(struct mcfan_app *app);

#endif /* MCFAN_APP_KERNEL_H */
