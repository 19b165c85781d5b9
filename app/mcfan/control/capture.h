/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_CAPTURE_H
#define MCFAN_CONTROL_CAPTURE_H

/* Packet capture by dpdk-dumpcap and dpdk-pdump against a running mcfan (docs/capture.md). */

#include <stdbool.h>

/**
 * Serve capture requests of DPDK secondary processes (rte_pdump_init()) when they can attach:
 * mcfan is the primary process, has a shared runtime directory (neither --in-memory nor
 * --no-shconf among EAL's arguments, EAL's config file in it) and hugepage files a secondary
 * can map (no --no-huge, no --huge-unlink / --huge-unlink=always). Otherwise say once, in one
 * log line, why they cannot. Main lcore, right after rte_eal_init().
 *
 * @param eal_argc, eal_argv
 *   The EAL arguments as passed to rte_eal_init() (after mcfan's own rewrites).
 * @return
 *   true if dpdk-dumpcap / dpdk-pdump can attach.
 */
bool mcfan_capture_init(int eal_argc, char **eal_argv);

/** Stop serving capture requests (rte_pdump_uninit()); before rte_eal_cleanup(). Safe when
 * mcfan_capture_init() did not enable them. */
void mcfan_capture_uninit(void);

#endif /* MCFAN_CONTROL_CAPTURE_H */
