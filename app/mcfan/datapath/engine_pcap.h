/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_DATAPATH_ENGINE_PCAP_H
#define MCFAN_DATAPATH_ENGINE_PCAP_H

/*
 * The hand-off of the worker engine "pcap" (datapath/engine_pcap.c) to its writer thread
 * (control/pcap.c): the worker never touches a file. It enqueues each copy (its mbuf
 * reference) to its lcore's ring; the writer, a pthread on the control side, dequeues,
 * formats each copy with rte_pcapng_copy() (timestamp: the RX TSC of the copy's metadata,
 * which rte_pcapng turns into ns since the epoch), writes it with rte_pcapng_write_packets()
 * into the file of its group and frees the copy.
 *
 * Writer/reader protocol: everything but the two counter blocks is set by the engine's
 * configure (main lcore, before launch) and read-only afterwards. wk: single writer the worker
 * lcore, in an rte_seqcount write section per burst. wr: single writer the writer thread,
 * likewise. Readers (any control thread) copy a block with rte_seqcount retries
 * (mcfan_pcap_counters_read()). ring: single producer the worker, single consumer the writer.
 */

#include <limits.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ring.h>
#include <rte_seqcount.h>

#include "mcfan.h"

/** Copies one pcap lcore's ring holds (a power of two), frames. */
#define MCFAN_PCAP_RING_SIZE 2048

/** Worker side counters of one pcap lcore. */
struct mcfan_pcap_wk_stats {
	rte_seqcount_t seq;
	uint32_t pad;
	uint64_t queued;   /**< Copies handed to the writer, frames. */
	uint64_t full;     /**< Copies the full ring refused (freed at once): pcap_full. */
};

/** Writer side counters of one pcap lcore. */
struct mcfan_pcap_wr_stats {
	rte_seqcount_t seq;
	uint32_t pad;
	uint64_t written;      /**< Copies written into a file, frames. */
	uint64_t write_failed; /**< Copies lost to a failed copy, open or write, frames. */
	uint64_t errors;       /**< Failed opens and writes (each also logged once). */
	uint64_t files;        /**< Files started that hold a frame (rotation included); a
				    *   file left without any whole frame is removed. */
	uint64_t bytes;        /**< Bytes written, pcapng blocks included. */
};

/** One pcap lcore's hand-off for one pcap instance (its inst_priv[inst]). */
struct mcfan_pcap_lcore {
	struct mcfan_pcap_wk_stats wk __rte_cache_aligned;
	struct mcfan_pcap_wr_stats wr __rte_cache_aligned;
	struct rte_ring *ring;      /**< Copies for the writer: SP worker, SC writer. */
	unsigned int lcore_id;      /**< The worker lcore. */
	unsigned int inst;          /**< The engine instance (app->inst_engine[] index). */
	char dir[PATH_MAX];         /**< Where its files go (exists, writable at start). */
	uint64_t rotate_bytes;      /**< Start a new file at this size, bytes; 0 = never. */
	uint64_t rotate_s;          /**< Start a new file after this many seconds; 0 = never. */
};

/**
 * The pcap hand-off of engine instance inst on lcore lc, or NULL when that instance is not
 * pcap (or inst is past the last instance). Any control thread after the engines were
 * configured.
 *
 * @return
 *   The hand-off (owned by the engine instance, freed by its release), or NULL.
 */
struct mcfan_pcap_lcore *mcfan_pcap_of(const struct mcfan_app *app, const struct mcfan_lcore *lc,
				       unsigned int inst);

/**
 * Copy both counter blocks of p consistently (each with rte_seqcount retries, bounded).
 */
void mcfan_pcap_counters_read(const struct mcfan_pcap_lcore *p, struct mcfan_pcap_wk_stats *wk,
			      struct mcfan_pcap_wr_stats *wr);

#endif /* MCFAN_DATAPATH_ENGINE_PCAP_H */
