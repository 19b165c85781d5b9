/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_TELEMETRY_READERS_H
#define MCFAN_APP_TELEMETRY_READERS_H

/*
 * The report's pieces of the reader rings (telemetry/readers.c, docs/readers.md): nothing
 * unless a worker runs the readers engine.
 */

#include <stdio.h>

#include <jansson.h>

#include "mcfan.h"

/**
 * The JSON report's "readers" object: per ring its group, writer lcore, frames and bytes
 * written, reader_too_big and its readers (pid, frames, lost, lapped, lag, alive); the
 * workers' not_owner and no_ring copies.
 *
 * @return
 *   A new object, or NULL when no worker runs the readers engine (or without memory).
 */
json_t *mcfan_readers_report_json(const struct mcfan_app *app);

/** The text report's reader-ring lines (nothing when the readers engine is not in use). */
void mcfan_readers_report_print(const struct mcfan_app *app, FILE *f);

#endif /* MCFAN_APP_TELEMETRY_READERS_H */
