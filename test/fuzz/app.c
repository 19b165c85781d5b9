/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * What main.c defines for the rest of the program, for the fuzz targets that link the
 * program's objects without main.c (fuzz_console, fuzz_config, fuzz_telemetry): the app and
 * the "mcfan" log type. The app stays as zeroed here until a target sets a field.
 */

#include <rte_log.h>

#include "mcfan.h"
#include "log.h"

struct mcfan_app mcfan_app;

RTE_LOG_REGISTER_DEFAULT(mcfan_logtype, INFO);
