/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* This process's telemetry socket (telemetry/socket.h). */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "telemetry/socket.h"

#define PROC_NET_UNIX "/proc/net/unix"
#define PROC_SELF_FD "/proc/self/fd"

/* Does this process hold a descriptor of the socket with this inode? */
static bool
own_inode(uint64_t inode)
{
	char link[PATH_MAX], target[64], want[64];
	struct dirent *de;
	bool found = false;
	DIR *d;
	ssize_t n;

	snprintf(want, sizeof(want), "socket:[%" PRIu64 "]", inode);
	d = opendir(PROC_SELF_FD);
	if (d == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", PROC_SELF_FD, de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = strcmp(target, want) == 0;
	}
	closedir(d);
	return found;
}

int
mcfan_telemetry_socket_path(const char *runtime_dir, char *buf, size_t len)
{
	char line[PATH_MAX + 128], prefix[PATH_MAX + 2], *path;
	uint64_t inode;
	size_t plen;
	int ret = -ENOENT;
	FILE *f;

	if (snprintf(prefix, sizeof(prefix), "%s/%s", runtime_dir, MCFAN_TELEMETRY_SOCKET_NAME) >=
	    (int)sizeof(prefix))
		return -ENAMETOOLONG;
	plen = strlen(prefix);
	f = fopen(PROC_NET_UNIX, "r");
	if (f == NULL)
		return -errno;
	/* "Num RefCount Protocol Flags Type St Inode Path" (net/unix/af_unix.c) */
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		path = strchr(line, '/');
		if (path == NULL || strncmp(path, prefix, plen) != 0 ||
		    (path[plen] != '\0' && path[plen] != ':'))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %" SCNu64, &inode) != 1 || !own_inode(inode))
			continue;
		ret = snprintf(buf, len, "%s", path) < (int)len ? 0 : -ENAMETOOLONG;
		break;
	}
	fclose(f);
	return ret;
}
