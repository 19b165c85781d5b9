/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * EAL's environment, for main.c (eal_env.h): why rte_eal_init() failed (another primary's
 * lock, no hugetlbfs, no free hugepages), a run EAL made a secondary, no port probed, the
 * hugepages free, and this run's hugepage files removed at exit. Before EAL and after it;
 * never on a data lcore.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <mntent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "eal_env.h"

/* Unlink one memory segment's hugepage file (rte_memseg_walk callback); *arg counts them. */
static int
hugepage_file_unlink(const struct rte_memseg_list *msl, const struct rte_memseg *ms, void *arg)
{
	char link[64], path[PATH_MAX];
	unsigned int *n = arg;
	ssize_t len;
	int fd;

	if (msl->external)
		return 0;
	fd = rte_memseg_get_fd_thread_unsafe(ms);
	if (fd < 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len <= 0)
		return 0;
	path[len] = '\0';
	/* a file of --single-file-segments holds many segments: unlinked at the first one (the
	 * link then reads "PATH (deleted)", which names no file) */
	if (unlink(path) == 0)
		(*n)++;
	return 0;
}

/*
 * At exit, before rte_eal_cleanup(): remove this primary's hugepage files (PREFIXmap_* in its
 * hugetlbfs mount). EAL 22.11 leaves them, so their pages stay taken after the process ended
 * until someone removes them; nothing can use them after mcfan: a secondary (dpdk-dumpcap)
 * attaches to a running primary only, and the next primary of the prefix clears them itself.
 * A secondary still attached keeps its mappings. Not with --huge-unlink=never (kept on
 * purpose) or without files (--no-huge, --in-memory: memfd). Returns the files removed.
 */
unsigned int
mcfan_eal_hugepage_files_remove(bool keep)
{
	unsigned int n = 0;

	if (!keep && rte_eal_process_type() == RTE_PROC_PRIMARY &&
	    rte_eal_has_hugepages() != 0)
		rte_memseg_walk(hugepage_file_unlink, &n);
	return n;
}

/* Value of an EAL option ("--file-prefix X" or "--file-prefix=X") in argv[1..argc), or NULL;
 * of the last one when it is given more than once, the one EAL's getopt leaves in force. */
const char *
mcfan_eal_opt_value(int argc, char **argv, const char *opt)
{
	const char *v, *last = NULL;
	int i;

	for (i = 1; i < argc; i++)
		if ((v = mcfan_opt_value(argc, argv, &i, opt)) != NULL)
			last = v;
	return last;
}

/* No port was probed: when --vdev devices were given, name them (a key their driver does
 * not know, iface= missing: the driver's line above says which), else say to give one. */
void
mcfan_eal_no_port_probed(void)
{
	const struct rte_devargs *da;
	char list[512];
	size_t off = 0;
	unsigned int n = 0;

	list[0] = '\0';
	RTE_EAL_DEVARGS_FOREACH("vdev", da) {
		if (off < sizeof(list))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s%s%s",
						n == 0 ? "" : " ", da->name,
						da->args != NULL && da->args[0] != '\0' ? "," : "",
						da->args != NULL ? da->args : "");
		n++;
	}
	if (n > 0)
		fprintf(stderr, "mcfan: no port was probed: the --vdev device%s given (%s) did "
			"not start: check %s arguments against the driver's keys (a key it does "
			"not know, one it needs, a file or interface that is not there) and its "
			"lines above\n", n == 1 ? "" : "s", list, n == 1 ? "its" : "their");
	else
		fprintf(stderr, "mcfan: no port was probed: give a device with --vdev (e.g. "
			"net_af_packet0,iface=veth0) or -a PCI_ADDRESS, and check the EAL and "
			"driver messages above\n");
}

/* PID of another process that holds the write lock on EAL's config file of this file
 * prefix (a second primary: EAL's lock, lib/eal/linux/eal.c), or 0. */
static pid_t
eal_lock_holder(const char *prefix)
{
	struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	char path[PATH_MAX];
	const char *base = getuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");
	int fd;

	if (base == NULL)
		base = "/tmp";
	snprintf(path, sizeof(path), "%s/dpdk/%s/config", base, prefix);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &lk) != 0 || lk.l_type == F_UNLCK)
		lk.l_pid = 0;
	close(fd);
	return lk.l_pid;
}

/* A hugetlbfs among the mounts (/proc/mounts): true, or when they cannot be read */
static bool
hugetlbfs_mounted(void)
{
	struct mntent *m;
	bool found = false;
	FILE *f;

	f = setmntent("/proc/mounts", "r");
	if (f == NULL)
		return true;
	while (!found && (m = getmntent(f)) != NULL)
		found = strcmp(m->mnt_type, "hugetlbfs") == 0;
	endmntent(f);
	return found;
}

/* One number from a file of the kernel's hugepage directory (DIR/NAME); 0 if unreadable. */
static uint64_t
hugepages_read(const char *dir, const char *name)
{
	char path[PATH_MAX];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%" SCNu64, &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* The hugepages of every size (/sys/kernel/mm/hugepages/hugepages-SIZE): the free ones
 * summed, *reserved the reserved ones summed, and text ("2048 kB: 256 reserved, 0 free; ...")
 * for the message; -1 when the directory cannot be read. */
long
mcfan_hugepages_free(uint64_t *reserved, char *text, size_t len)
{
	static const char base[] = "/sys/kernel/mm/hugepages";
	uint64_t nr, fr, total = 0;
	char dir[PATH_MAX];
	struct dirent *d;
	size_t k = 0;
	DIR *dp;
	int n;

	text[0] = '\0';
	*reserved = 0;
	dp = opendir(base);
	if (dp == NULL)
		return -1;
	while ((d = readdir(dp)) != NULL) {
		if (strncmp(d->d_name, "hugepages-", 10) != 0)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, d->d_name);
		nr = hugepages_read(dir, "nr_hugepages");
		fr = hugepages_read(dir, "free_hugepages");
		*reserved += nr;
		total += fr;
		/* d_name "hugepages-2048kB": the size's digits */
		n = snprintf(text + k, len - k, "%s%.*s kB: %" PRIu64 " reserved, %" PRIu64 " free",
			     k == 0 ? "" : "; ", (int)strspn(d->d_name + 10, "0123456789"),
			     d->d_name + 10, nr, fr);
		if (n > 0 && (size_t)n < len - k)
			k += (size_t)n;
	}
	closedir(dp);
	return total > (uint64_t)LONG_MAX ? LONG_MAX : (long)total;
}

/* rte_eal_init failed: one line with the cause where mcfan can tell it, and the remedy.
 * argv: the EAL options as given (a copy from before rte_eal_init). */
void
mcfan_eal_failure(int argc, char **argv)
{
	const char *prefix = mcfan_eal_opt_value(argc, argv, "--file-prefix");
	bool no_huge = mcfan_eal_has_flag(argc, argv, "--no-huge");
	/* --in-memory and --no-shconf share no files: EAL takes no lock, so a primary that
	 * holds the prefix's lock is not why this run failed (it runs beside it) */
	bool shared = !mcfan_eal_has_flag(argc, argv, "--in-memory") &&
		      !mcfan_eal_has_flag(argc, argv, "--no-shconf");
	uint64_t reserved;
	char sizes[256];
	pid_t holder;

	if (prefix == NULL)
		prefix = "rte";
	holder = shared ? eal_lock_holder(prefix) : 0;
	if (holder > 0) {
		fprintf(stderr, "mcfan: EAL initialisation failed: another primary process (PID "
			"%d) runs with --file-prefix %s and holds its lock; give this run its own "
			"--file-prefix\n", (int)holder, prefix);
		return;
	}
	/* EAL 22.11 needs a hugetlbfs mount for its hugepage files (not --in-memory's); without
	 * one it fails "Cannot get hugepage information" and rte_errno says EACCES */
	if (!no_huge && !mcfan_eal_has_flag(argc, argv, "--in-memory") && !hugetlbfs_mounted()) {
		fprintf(stderr, "mcfan: EAL initialisation failed: no hugetlbfs is mounted "
			"(/proc/mounts), and EAL keeps its hugepages in files there: mount one "
			"(mount -t hugetlbfs nodev /dev/hugepages) with pages reserved "
			"(/sys/kernel/mm/hugepages), or run without hugepages: --no-huge -m 512\n");
		return;
	}
	/* EAL 22.11 fails "Cannot get hugepage information" (rte_errno EACCES: "Permission
	 * denied") when no size has a free page: none reserved, or every one in use, by running
	 * processes or by the hugepage files that ended runs left in the mount */
	if (!no_huge && mcfan_hugepages_free(&reserved, sizes, sizeof(sizes)) == 0) {
		if (reserved == 0)
			fprintf(stderr, "mcfan: EAL initialisation failed: no hugepages are "
				"reserved (%s): reserve some (echo 256 > /sys/kernel/mm/hugepages/"
				"hugepages-2048kB/nr_hugepages), or run without hugepages: --no-huge "
				"-m 512\n", sizes);
		else
			fprintf(stderr, "mcfan: EAL initialisation failed: no free hugepages (%s): "
				"every reserved page is in use, by running processes or by the "
				"hugepage files that ended DPDK runs left in the hugetlbfs mount "
				"(PREFIXmap_*: remove them once no process of that prefix runs, "
				"docs/capture.md); free or reserve more "
				"(/sys/kernel/mm/hugepages), or run without hugepages: --no-huge "
				"-m 512\n", sizes);
		return;
	}
	fprintf(stderr, "mcfan: EAL initialisation failed%s%s (see the EAL lines above%s)\n",
		rte_errno != 0 ? ": " : "", rte_errno != 0 ? rte_strerror(rte_errno) : "",
		no_huge ? "" : "; without hugepages add --no-huge -m 512");
}

