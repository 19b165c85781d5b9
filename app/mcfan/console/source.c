/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Line sources of the console: the command file, standard input that is not a terminal. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "console/source.h"

int
console_src_open(struct console_src *s, const char *path, int fd)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	snprintf(s->name, sizeof(s->name), "%s", path);
	if (fd < 0) {
		s->fd = open(path, O_RDONLY);
		if (s->fd < 0)
			return -errno;
	}
	return 0;
}

void
console_src_close(struct console_src *s)
{
	if (s->fd > STDERR_FILENO)
		close(s->fd);
	s->fd = -1;
}

int
console_src_next(struct console_src *s, bool may_read, const char **line, size_t *len)
{
	ssize_t got;
	char c;

	for (;;) {
		while (s->off < s->len) {
			c = s->buf[s->off++];
			if (c == '\n')
				goto complete;
			if (s->line_len < sizeof(s->line) - 1)
				s->line[s->line_len] = c;
			s->line_len++;
		}
		if (s->eof || !may_read)
			break;
		got = read(s->fd, s->buf, sizeof(s->buf));
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			return 0;
		s->off = 0;
		s->len = got > 0 ? (size_t)got : 0;
		if (got <= 0)
			s->eof = true;
		may_read = false; /* one read a call: never block on a pipe */
	}
	if (!s->eof)
		return 0;
	if (s->line_len == 0)
		return -1;
complete:
	s->line_no++;
	if (s->line_len > 0 && s->line_len < sizeof(s->line) && s->line[s->line_len - 1] == '\r')
		s->line_len--; /* CRLF files */
	*line = s->line;
	*len = s->line_len;
	s->line_len = 0;
	return 1;
}
