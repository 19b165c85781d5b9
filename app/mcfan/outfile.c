/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Output files: checked at start, written at exit (outfile.h). */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* The temporary file's name: the path with this suffix and the PID. */
#define TMP_SUFFIX_FMT "%s.tmp%d"

/* Long paths are cut in messages: their end, where the file name is, matters most. */
#define MSG_PATH_MAX 96

static const char *
msg_path(const char *path)
{
	size_t n = strlen(path);

	return n <= MSG_PATH_MAX ? path : path + n - MSG_PATH_MAX;
}

static void
tmp_name(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, TMP_SUFFIX_FMT, path, (int)getpid());
}

int
mcfan_outfile_check(const char *path, const char *opt, enum mcfan_outfile_mode *mode,
		    char *err, size_t len)
{
	char tmp[PATH_MAX + 32];
	struct stat lst, st;
	int fd, ret;

	if (strcmp(path, "-") == 0) {
		*mode = MCFAN_OUTFILE_STDOUT;
		return 0;
	}
	if (strlen(path) + 16 >= PATH_MAX) {
		snprintf(err, len, "--%s: '%.64s...' is longer than a path may be (%d bytes)", opt,
			 path, PATH_MAX - 17);
		return -ENAMETOOLONG;
	}
	if (lstat(path, &lst) == 0 && !S_ISREG(lst.st_mode)) {
		if (stat(path, &st) != 0) {
			ret = -errno;
			snprintf(err, len, "--%s: '%s' is a symbolic link to nothing (%s)", opt,
				 msg_path(path), strerror(errno));
			return ret;
		}
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, len, "--%s: '%s' is a directory; give a file name", opt, path);
			return -EINVAL;
		}
		if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
			snprintf(err, len, "--%s: '%s' exists and is not a regular file, a FIFO or a "
				 "character device: mcfan will not replace it", opt, path);
			return -EINVAL;
		}
		if (access(path, W_OK) != 0) {
			ret = -errno;
			snprintf(err, len, "--%s: cannot write '%s': %s", opt, msg_path(path),
				 strerror(errno));
			return ret;
		}
		*mode = MCFAN_OUTFILE_IN_PLACE;
		return 0;
	}
	/* a new or regular file: the exit will create tmp and rename it; try that now */
	tmp_name(path, tmp, sizeof(tmp));
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		if (lstat(path, &lst) == 0) /* it exists: the new file beside it is refused */
			snprintf(err, len, "--%s: cannot write '%s%s': the report is written to a "
				 "new file beside it ('%s.tmpPID') and renamed over it, and its "
				 "directory takes no new file: %s", opt,
				 strlen(path) > MSG_PATH_MAX ? "..." : "", msg_path(path),
				 msg_path(path), strerror(-ret));
		else
			snprintf(err, len, "--%s: cannot write '%s%s': %s", opt,
				 strlen(path) > MSG_PATH_MAX ? "..." : "", msg_path(path),
				 strerror(-ret));
		return ret;
	}
	close(fd);
	unlink(tmp);
	*mode = MCFAN_OUTFILE_RENAME;
	return 0;
}

/* fflush and fclose, with the first error of the stream's life as the result (-errno; -EIO
 * when the stream only says that it failed). */
static int
close_checked(FILE *f)
{
	int ret = 0;

	if (fflush(f) != 0)
		ret = -errno;
	else if (ferror(f))
		ret = -EIO;
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	return ret;
}

int
mcfan_outfile_write(const char *path, enum mcfan_outfile_mode mode,
		    int (*write_fn)(FILE *f, void *arg), void *arg, char *err, size_t len)
{
	char tmp[PATH_MAX + 32];
	const char *target = path;
	FILE *f;
	int fd, ret;

	if (mode == MCFAN_OUTFILE_STDOUT) {
		ret = write_fn(stdout, arg);
		if (fflush(stdout) != 0 && ret == 0)
			ret = -errno;
		if (ret == 0 && ferror(stdout))
			ret = -EIO;
		if (ret != 0)
			snprintf(err, len, "cannot write to standard output: %s", strerror(-ret));
		return ret;
	}
	if (mode == MCFAN_OUTFILE_RENAME) {
		tmp_name(path, tmp, sizeof(tmp));
		target = tmp;
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	} else {
		/* never wait for a FIFO's reader at exit; a device or a file: truncate, as '>' */
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_TRUNC);
		if (fd >= 0)
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	}
	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "cannot open '%s': %s%s", target, strerror(errno),
			 errno == ENXIO ? " (a FIFO with no reader)" : "");
		return ret;
	}
	f = fdopen(fd, "w");
	if (f == NULL) {
		ret = -errno;
		close(fd);
		snprintf(err, len, "cannot open '%s': %s", target, strerror(-ret));
		goto unlink_tmp;
	}
	ret = write_fn(f, arg);
	if (ret == 0)
		ret = close_checked(f);
	else
		fclose(f);
	if (ret != 0) {
		snprintf(err, len, "cannot write '%s': %s", target, strerror(-ret));
		goto unlink_tmp;
	}
	if (mode == MCFAN_OUTFILE_RENAME && rename(tmp, path) != 0) {
		ret = -errno;
		snprintf(err, len, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		goto unlink_tmp;
	}
	return 0;
unlink_tmp:
	if (mode == MCFAN_OUTFILE_RENAME)
		unlink(tmp);
	return ret;
}
