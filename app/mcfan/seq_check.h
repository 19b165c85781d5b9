/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_SEQ_CHECK_H
#define MCFAN_APP_SEQ_CHECK_H

/*
 * The feed-quality rules checked before rte_eal_init (seq_check.c, docs/feed.md): an A/B
 * pair (--seq-pair, a config file's [seq] pair) that cannot be made is refused in one line,
 * exit 2, before EAL starts anything. params.c has checked each rule's syntax; this checks
 * the rules against each other and against --groups. Main lcore only, before EAL.
 */

#include "mcfan.h"

/**
 * Check every --seq-pair A,B of the configuration: A and B must be groups of --groups, each
 * named by a --seq rule with a kind (not off), the same kind for both, not mpegts (no
 * sequence space across PIDs), and no group may be a line of two pairs. (That both lines
 * are tracked by one worker depends on the placement: checked at start, after EAL.) Prints
 * one line on standard error for the first pair that fails.
 *
 * @param cfg
 *   The parsed configuration (mcfan_params_parse() returned 0).
 * @return
 *   0: every pair can be made (or there is none); -EINVAL: a pair refused (bad input,
 *   exit 2); -ENOMEM: out of memory (printed).
 */
int mcfan_seq_check(const struct mcfan_config *cfg);

#endif /* MCFAN_APP_SEQ_CHECK_H */
