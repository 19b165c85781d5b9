/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_LOG_H
#define MCFAN_APP_LOG_H

#include <rte_log.h>

/* Log type "mcfan", registered in main.c; level with --log-level=mcfan:debug. */
extern int mcfan_logtype;

#define MCFAN_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, mcfan_logtype, "MCFAN: " __VA_ARGS__)

#endif /* MCFAN_APP_LOG_H */
