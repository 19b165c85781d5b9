/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_GROUP_ENGINE_H
#define MCFAN_APP_GROUP_ENGINE_H

/*
 * Per-group engines resolved before rte_eal_init (group_engine.c, docs/delivery.md): the
 * --group-engine rules (and a config file's [group-engine] rows) that params.c checked one
 * by one become the worker engine instance table and each --groups entry's instance. Main
 * lcore only, before EAL.
 */

#include "mcfan.h"

/**
 * Build cfg->engine_inst[] / cfg->n_engine_inst and cfg->group_inst[]: instance 0 is
 * --worker-engine NAME[:ARGS]; each rule's NAME[:ARGS] text is an instance (the same text
 * twice, or the --worker-engine text, is one instance); count is added when no instance is
 * count, so that `set engine GROUPS count` always has somewhere to go. Refused, one line on
 * standard error naming the token (and a rule from the config file by the file and its line,
 * cfg->group_engine_from): a group that is not in --groups, a group two rules give
 * different engines, more than MCFAN_ENGINE_INST_MAX instances, two instances that would
 * write into one place (two pcap outputs in one directory: the engine's args_collide hook).
 *
 * @param cfg
 *   The parsed configuration (mcfan_params_parse() returned 0).
 * @return
 *   0; -EINVAL: refused (bad input, exit 2); -ENOMEM: out of memory (printed).
 */
int mcfan_group_engine_resolve(struct mcfan_config *cfg);

#endif /* MCFAN_APP_GROUP_ENGINE_H */
