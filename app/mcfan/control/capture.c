/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * dpdk-dumpcap and dpdk-pdump against a running mcfan (docs/capture.md): both are DPDK
 * secondary processes. They find mcfan through its runtime directory (/var/run/dpdk/PREFIX
 * for root), map its memory and ask, over EAL's multi-process channel, for RX/TX callbacks
 * that copy frames into their ring (rte_pdump). That needs a shared runtime directory: not
 * with --in-memory, nor --no-shconf (which mcfan passes for --no-huge --in-memory).
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_pdump.h>

#include "log.h"
#include "control/capture.h"

static bool pdump_on;

static bool
has_arg(int argc, char **argv, const char *flag)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], flag) == 0)
			return true;
	return false;
}

bool
mcfan_capture_init(int eal_argc, char **eal_argv)
{
	const char *why = NULL;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		why = "mcfan is not the primary process";
	else if (has_arg(eal_argc, eal_argv, "--in-memory"))
		why = "EAL runs with --in-memory (no shared runtime directory)";
	else if (has_arg(eal_argc, eal_argv, "--no-shconf"))
		why = "EAL runs with --no-shconf (no shared runtime directory; mcfan passes it "
		      "for --no-huge --in-memory)";
	if (why != NULL) {
		MCFAN_LOG(INFO, "capture: dpdk-dumpcap and dpdk-pdump cannot attach: %s; start "
			  "without --in-memory/--no-shconf to capture (docs/capture.md)\n", why);
		return false;
	}
	ret = rte_pdump_init();
	if (ret != 0) {
		MCFAN_LOG(WARNING, "capture: dpdk-dumpcap and dpdk-pdump cannot attach: "
			  "rte_pdump_init: %s\n", rte_strerror(rte_errno));
		return false;
	}
	pdump_on = true;
	MCFAN_LOG(INFO, "capture: dpdk-dumpcap/dpdk-pdump may attach with --file-prefix of "
		  "runtime directory %s\n", rte_eal_get_runtime_dir());
	return true;
}

void
mcfan_capture_uninit(void)
{
	if (!pdump_on)
		return;
	rte_pdump_uninit();
	pdump_on = false;
}
