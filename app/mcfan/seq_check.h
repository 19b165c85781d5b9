/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_SEQ_CHECK_H
#define MCFAN_APP_SEQ_CHECK_H

/*
 * The feed-quality rules checked before rte_eal_init (seq_check.c, docs/feed.md): a --seq
 * rule (or a config file's [seq] row) that names a group not joined at start, and an A/B
 * pair (--seq-pair, a config file's [seq] pair) that cannot be made, are refused in one
 * line, exit 2, before EAL starts anything. params.c has checked each rule's syntax; this checks
 * the rules against each other and against --groups. Main lcore only, before EAL.
 */

#include "mcfan.h"

/**
 * Check every --seq rule of the configuration: each group it names must be a group of
 * --groups, with the same port (or none on both), as --group-engine's rules must be ("mcfan:
 * --seq 239.9.9.1-2=iperf2: group 239.9.9.1 is not joined (239.9.9.1:4000 is): ...", with
 * the file and line for a config file's rule). Then every --seq-pair A,B: A and B must be
 * groups of --groups, each
 * named by a --seq rule with a kind (not off), the same kind for both, not mpegts (no
 * sequence space across PIDs), and no group may be a line of two pairs. (That both lines
 * are tracked by one worker depends on the placement: checked at start, after EAL.) Prints
 * one line on standard error for the first pair that fails.
 *
 * @param cfg
 *   The parsed configuration (mcfan_params_parse() returned 0).
 * @return
 *   0: every rule names joined groups and every pair can be made (or there is none);
 *   -EINVAL: a rule or pair refused (bad input, exit 2); -ENOMEM: out of memory (printed).
 */
int mcfan_seq_check(const struct mcfan_config *cfg);

#endif /* MCFAN_APP_SEQ_CHECK_H */
