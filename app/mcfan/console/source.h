/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_CONSOLE_SOURCE_H
#define MCFAN_APP_CONSOLE_SOURCE_H

/*
 * Line sources of the console (private to console/): the command file and standard input
 * that is not a terminal, read with read(2), one line at a time, never blocking on a pipe.
 * Used by the line framework (console.c) only.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/** The cmdline library's line buffer (RDLINE_BUF_SIZE, private in 22.11): longest line. */
#define CONSOLE_LINE_MAX_CHARS 512
/** Bytes read at a time. */
#define CONSOLE_READ_CHUNK 4096

/** A source of lines: the command file or standard input. Owned by the main lcore. */
struct console_src {
	int fd;                                  /**< -1: closed */
	char name[PATH_MAX];                     /**< for messages: the file, or "stdin" */
	unsigned int line_no;                    /**< of the line last returned, from 1 */
	char buf[CONSOLE_READ_CHUNK];
	size_t len, off;                         /**< bytes read and not yet split:
						  *   buf[off..len) */
	char line[CONSOLE_LINE_MAX_CHARS + 2];   /**< the line so far; one byte more shows
						  *   "too long" */
	size_t line_len;                         /**< its length; counts on past what line
						  *   holds */
	bool eof;
};

/**
 * Open a source.
 *
 * @param path
 *   The file to open, or the name of fd.
 * @param fd
 *   An open descriptor to read (standard input), or -1 to open path.
 * @return
 *   0, or -errno of open(2).
 */
int console_src_open(struct console_src *s, const char *path, int fd);

/** Close a source (never standard input, output or error); safe to call again. */
void console_src_close(struct console_src *s);

/**
 * The next whole line of a source, from what was read already, reading once more if
 * allowed. A line longer than the buffer is cut in *line, but *len is its full length.
 *
 * @param may_read
 *   Whether one read(2) may be made (poll said the source is readable).
 * @param line
 *   The line, without its newline (or CRLF), valid until the next call.
 * @return
 *   1 with the line, 0 if none is complete yet, -1 at the end.
 */
int console_src_next(struct console_src *s, bool may_read, const char **line, size_t *len);

#endif /* MCFAN_APP_CONSOLE_SOURCE_H */
