/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * dpdk-dumpcap and dpdk-pdump against a running mcfan (docs/capture.md): both are DPDK
 * secondary processes. They find mcfan through its runtime directory (/var/run/dpdk/PREFIX
 * for root), map its memory and ask, over EAL's multi-process channel, for RX/TX callbacks
 * that copy frames into their ring (rte_pdump). That needs a shared runtime directory: not
 * with --in-memory, nor --no-shconf (which mcfan passes for --no-huge --in-memory); and the
 * primary's hugepage files: not with --no-huge, nor --huge-unlink (=always), which removes
 * them once mapped. Each case is said at start, in one line.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_pdump.h>

#include "mcfan_parse.h"
#include "log.h"
#include "control/capture.h"

/** EAL's shared configuration file in the runtime directory: what a secondary maps first. */
#define EAL_CONFIG_FILE "config"
/** EAL's option that removes the hugepage files, and its values that keep them. */
#define EAL_HUGE_UNLINK "--huge-unlink"

static bool pdump_on;

/* --huge-unlink or --huge-unlink=always (not =existing, =never: those keep the files) */
static bool
has_huge_unlink(int argc, char **argv)
{
	size_t n = strlen(EAL_HUGE_UNLINK);
	int i;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], EAL_HUGE_UNLINK, n) != 0 || mcfan_eal_arg_is_value(argc, argv, i))
			continue;
		if (argv[i][n] == '\0' || strcmp(argv[i] + n, "=always") == 0)
			return true;
	}
	return false;
}

/* Does the runtime directory hold EAL's shared configuration file? */
static bool
has_config_file(char *path, size_t len)
{
	int n = snprintf(path, len, "%s/%s", rte_eal_get_runtime_dir(), EAL_CONFIG_FILE);

	return n > 0 && (size_t)n < len && access(path, F_OK) == 0;
}

bool
mcfan_capture_init(int eal_argc, char **eal_argv)
{
	char path[PATH_MAX], cfg_why[PATH_MAX + 64];
	const char *why = NULL;
	int ret;

	/* (mcfan runs only as a primary: main.c refuses a secondary before this) */
	if (mcfan_eal_has_flag(eal_argc, eal_argv, "--in-memory"))
		why = "EAL runs with --in-memory (no shared runtime directory)";
	else if (mcfan_eal_has_flag(eal_argc, eal_argv, "--no-shconf"))
		why = "EAL runs with --no-shconf (no shared runtime directory; mcfan passes it "
		      "for --no-huge --in-memory)";
	else if (rte_eal_has_hugepages() == 0)
		why = "EAL runs with --no-huge (no hugepage files: a DPDK 22.11 secondary maps the "
		      "primary's memory from them)";
	else if (has_huge_unlink(eal_argc, eal_argv))
		why = "EAL runs with --huge-unlink (the hugepage files are removed once mapped: a "
		      "secondary cannot map them; --huge-unlink=existing keeps them)";
	else if (!has_config_file(path, sizeof(path))) {
		snprintf(cfg_why, sizeof(cfg_why), "no shared configuration file %s", path);
		why = cfg_why;
	}
	if (why != NULL) {
		MCFAN_LOG(INFO, "capture: dpdk-dumpcap and dpdk-pdump cannot attach: %s; start "
			  "with hugepages and without --in-memory/--no-shconf/--huge-unlink to "
			  "capture (docs/capture.md)\n", why);
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
