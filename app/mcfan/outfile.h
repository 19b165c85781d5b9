/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_OUTFILE_H
#define MCFAN_APP_OUTFILE_H

/*
 * Files that mcfan writes (the JSON report today): checked when the option is parsed, so that
 * a run never ends by losing its output or by replacing something that is not a file.
 *
 * What a path may name:
 *  - nothing yet, or a regular file (not through a symbolic link): mcfan writes a temporary
 *    file next to it and renames it over the path, so a reader never sees half a file;
 *  - a FIFO, a character device (/dev/null, a terminal) or a symbolic link to one of these or
 *    to a regular file (/dev/stdout): mcfan writes into it in place (truncating a regular
 *    file), the link and the device stay what they are;
 *  - anything else (a directory, a socket, a block device, a dangling link): refused;
 *  - "-": standard output (a file named '-' is "./-").
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/** How an output path is written (mcfan_outfile_check()). */
enum mcfan_outfile_mode {
	MCFAN_OUTFILE_RENAME = 0, /**< A temporary file next to it, then rename(2). */
	MCFAN_OUTFILE_IN_PLACE,   /**< Opened and written where it is (FIFO, device, link). */
	MCFAN_OUTFILE_STDOUT,     /**< "-": written to standard output, which stays open. */
};

/**
 * Check, before anything starts, that path can be written the way it will be at exit.
 * For MCFAN_OUTFILE_RENAME the temporary file is created and removed again (this catches a
 * read-only directory and a name too long for the file system, with the temporary suffix).
 *
 * @param path
 *   The path as the user gave it.
 * @param opt
 *   The option's name without dashes, for the message ("report-json").
 * @param mode
 *   Receives how the path will be written.
 * @param err
 *   Receives a one-line message naming the path and the reason on failure.
 * @param len
 *   Size of err, bytes.
 * @return
 *   0 (for "-" always, with MCFAN_OUTFILE_STDOUT); -EINVAL (a directory, a socket, a block
 *   device, a dangling link), -ENAMETOOLONG,
 *   or the negative errno of the failed creation or access check (-EACCES, -EROFS, ...).
 */
int mcfan_outfile_check(const char *path, const char *opt, enum mcfan_outfile_mode *mode,
			char *err, size_t len);

/**
 * Write a file as mcfan_outfile_check() decided. A FIFO without a reader is not waited for
 * (opened non-blocking: -ENXIO). MCFAN_OUTFILE_STDOUT: write_fn gets stdout, which is
 * flushed, not closed.
 *
 * @param path
 *   The path.
 * @param mode
 *   From mcfan_outfile_check().
 * @param write_fn
 *   Writes the content to f; returns 0 or a negative errno.
 * @param arg
 *   Passed to write_fn.
 * @param err
 *   Receives a one-line message on failure.
 * @param len
 *   Size of err, bytes.
 * @return
 *   0, write_fn's error, or the negative errno of open, write, close or rename (of the
 *   flush for standard output: -EPIPE when its reader has gone).
 */
int mcfan_outfile_write(const char *path, enum mcfan_outfile_mode mode,
			int (*write_fn)(FILE *f, void *arg), void *arg, char *err, size_t len);

#endif /* MCFAN_APP_OUTFILE_H */
