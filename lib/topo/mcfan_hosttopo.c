/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The host's CPU topology from sysfs and libnuma, as an Erlang +sct map (mcfan_hosttopo.h).
 * Linux's sysfs CPU topology ABI: Documentation/ABI/stable/sysfs-devices-system-cpu and
 * Documentation/admin-guide/cputopology.rst in the kernel tree.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <numa.h>

#include "mcfan_hosttopo.h"
#include "mcfan_parse.h"

/* Longest sysfs file read here: a CPU list of a large host fits easily. */
#define HT_FILE_MAX 65536

static const char *
ht_dir(const char *dir)
{
	return dir != NULL ? dir : MCFAN_HOSTTOPO_SYSFS_CPU;
}

void
mcfan_cpuset_zero(struct mcfan_cpuset *set)
{
	memset(set, 0, sizeof(*set));
}

void
mcfan_cpuset_add(struct mcfan_cpuset *set, unsigned int cpu)
{
	if (cpu <= MCFAN_SCT_MAX_ID)
		mcfan_bits_set(set->bits, cpu);
}

int
mcfan_cpuset_has(const struct mcfan_cpuset *set, unsigned int cpu)
{
	if (cpu > MCFAN_SCT_MAX_ID)
		return 0;
	return mcfan_bits_test(set->bits, cpu);
}

unsigned int
mcfan_cpuset_count(const struct mcfan_cpuset *set)
{
	return mcfan_bits_count(set->bits, MCFAN_SCT_MAX_CPUS);
}

static int
cpuset_add_range(uint64_t first, uint64_t last, void *arg)
{
	uint64_t i;

	for (i = first; i <= last; i++)
		mcfan_cpuset_add(arg, (unsigned int)i);
	return 0;
}

int
mcfan_cpuset_parse(const char *text, struct mcfan_cpuset *set)
{
	size_t len;

	if (text == NULL || set == NULL)
		return -EINVAL;
	mcfan_cpuset_zero(set);
	len = strlen(text);
	if (len > 0 && text[len - 1] == '\n') /* as sysfs writes it */
		len--;
	if (len == 0)
		return 0;
	return mcfan_corelist_parse(text, len, MCFAN_SCT_MAX_ID, cpuset_add_range, set, NULL) < 0 ?
		-EINVAL : 0;
}

int
mcfan_cpuset_format(const struct mcfan_cpuset *set, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i, j;
	int n;
	bool first = true;

	if (set == NULL || (buf == NULL && len > 0))
		return -EINVAL;
	if (len > 0)
		buf[0] = '\0';
	for (i = 0; i < MCFAN_SCT_MAX_CPUS; i++) {
		if (!mcfan_cpuset_has(set, i))
			continue;
		for (j = i; j + 1 < MCFAN_SCT_MAX_CPUS && mcfan_cpuset_has(set, j + 1); j++)
			;
		if (j == i)
			n = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
				     "%s%u", first ? "" : ",", i);
		else
			n = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
				     "%s%u-%u", first ? "" : ",", i, j);
		used += (size_t)n;
		first = false;
		i = j;
	}
	if (used > INT_MAX)
		return -EOVERFLOW;
	return (int)used;
}

/* Read a small text file into buf (NUL-terminated). 0 or -errno. */
static int
ht_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return ret;
}

/* A signed decimal number, optionally followed by a newline. */
static int
ht_read_long(const char *path, long *out)
{
	char buf[64], *end;
	long v;
	int ret;

	ret = ht_read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || errno != 0 || (*end != '\0' && strcmp(end, "\n") != 0))
		return -EINVAL;
	*out = v;
	return 0;
}

static int
ht_read_cpuset(const char *path, struct mcfan_cpuset *set)
{
	char *buf = malloc(HT_FILE_MAX);
	int ret;

	if (buf == NULL)
		return -ENOMEM;
	ret = ht_read_file(path, buf, HT_FILE_MAX);
	if (ret == 0)
		ret = mcfan_cpuset_parse(buf, set);
	free(buf);
	return ret;
}

int
mcfan_hosttopo_online(const char *sysfs_cpu_dir, struct mcfan_cpuset *set)
{
	char path[PATH_MAX];

	if (set == NULL)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/online", ht_dir(sysfs_cpu_dir)) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return ht_read_cpuset(path, set);
}

int
mcfan_hosttopo_allowed(struct mcfan_cpuset *set)
{
	size_t size = CPU_ALLOC_SIZE(MCFAN_SCT_MAX_CPUS);
	cpu_set_t *aff;
	unsigned int i;
	int ret;

	if (set == NULL)
		return -EINVAL;
	ret = mcfan_hosttopo_online(NULL, set);
	if (ret < 0)
		return ret;
	aff = CPU_ALLOC(MCFAN_SCT_MAX_CPUS);
	if (aff == NULL)
		return -ENOMEM;
	CPU_ZERO_S(size, aff);
	if (sched_getaffinity(0, size, aff) != 0) {
		ret = -errno;
		CPU_FREE(aff);
		return ret;
	}
	for (i = 0; i < MCFAN_SCT_MAX_CPUS; i++)
		if (mcfan_cpuset_has(set, i) && !CPU_ISSET_S(i, size, aff))
			mcfan_bits_clear(set->bits, i);
	CPU_FREE(aff);
	return 0;
}

/* The node of a CPU from the `nodeN` entry of its sysfs directory, or -1. */
static int32_t
ht_sysfs_node(const char *dir, unsigned int cpu)
{
	char path[PATH_MAX];
	struct dirent *de;
	int32_t node = MCFAN_SCT_ID_UNDEFINED;
	uint64_t id;
	DIR *d;

	if (snprintf(path, sizeof(path), "%s/cpu%u", dir, cpu) >= (int)sizeof(path))
		return MCFAN_SCT_ID_UNDEFINED;
	d = opendir(path);
	if (d == NULL)
		return MCFAN_SCT_ID_UNDEFINED;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "node", 4) != 0)
			continue;
		if (mcfan_parse_u64(de->d_name + 4, 0, MCFAN_SCT_MAX_ID, &id) == 0) {
			node = (int32_t)id;
			break;
		}
	}
	closedir(d);
	return node;
}

static int32_t
ht_libnuma_node(unsigned int cpu)
{
	int node;

	if (numa_available() < 0)
		return MCFAN_SCT_ID_UNDEFINED;
	node = numa_node_of_cpu((int)cpu);
	return node < 0 || node > MCFAN_SCT_MAX_ID ? MCFAN_SCT_ID_UNDEFINED : (int32_t)node;
}

/* Read one CPU; *first_sibling receives the lowest CPU of its thread_siblings_list. */
static int
ht_read_cpu(const char *dir, unsigned int cpu, enum mcfan_hosttopo_node_src node_src,
	    struct mcfan_sct_cpu *out, unsigned int *first_sibling)
{
	char path[PATH_MAX];
	struct mcfan_cpuset *sib;
	long core, pkg;
	unsigned int i, pos = 0, first = cpu;
	bool found = false;
	int ret;

	if (out == NULL || cpu > MCFAN_SCT_MAX_ID)
		return -EINVAL;
	dir = ht_dir(dir);
	snprintf(path, sizeof(path), "%s/cpu%u/topology/core_id", dir, cpu);
	ret = ht_read_long(path, &core);
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/cpu%u/topology/physical_package_id", dir, cpu);
	ret = ht_read_long(path, &pkg);
	if (ret < 0)
		return ret;
	if (core < 0 || core > MCFAN_SCT_MAX_ID || pkg < -1 || pkg > MCFAN_SCT_MAX_ID)
		return -EINVAL;
	sib = malloc(sizeof(*sib));
	if (sib == NULL)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/cpu%u/topology/thread_siblings_list", dir, cpu);
	ret = ht_read_cpuset(path, sib);
	if (ret < 0) {
		free(sib);
		return ret;
	}
	for (i = 0; i <= cpu; i++) {
		if (!mcfan_cpuset_has(sib, i))
			continue;
		if (!found) {
			first = i;
			found = true;
		}
		if (i < cpu)
			pos++;
	}
	free(sib);
	memset(out, 0, sizeof(*out));
	out->logical = (int32_t)cpu;
	out->thread = (int32_t)pos;
	out->core = (int32_t)core;
	out->processor = pkg < 0 ? 0 : (int32_t)pkg;
	out->processor_node = MCFAN_SCT_ID_UNDEFINED;
	switch (node_src) {
	case MCFAN_HOSTTOPO_NODE_LIBNUMA:
		out->node = ht_libnuma_node(cpu);
		break;
	case MCFAN_HOSTTOPO_NODE_SYSFS:
		out->node = ht_sysfs_node(dir, cpu);
		break;
	default:
		out->node = MCFAN_SCT_ID_UNDEFINED;
		break;
	}
	if (first_sibling != NULL)
		*first_sibling = first;
	return 0;
}

int
mcfan_hosttopo_read_cpu(const char *sysfs_cpu_dir, unsigned int cpu,
			enum mcfan_hosttopo_node_src node_src, struct mcfan_sct_cpu *out)
{
	return ht_read_cpu(sysfs_cpu_dir, cpu, node_src, out, NULL);
}

/* Sort item for the per-processor checks. */
struct ht_item {
	int32_t processor;
	int32_t core;
	unsigned int first_sibling;
	size_t index;
};

/* Order of items: processor, then (by_core) core, then first sibling, then position. */
static int
ht_cmp_items(const struct ht_item *a, const struct ht_item *b, bool by_core)
{
	if (a->processor != b->processor)
		return a->processor < b->processor ? -1 : 1;
	if (by_core && a->core != b->core)
		return a->core < b->core ? -1 : 1;
	if (a->first_sibling != b->first_sibling)
		return a->first_sibling < b->first_sibling ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static int
ht_cmp(const void *va, const void *vb)
{
	return ht_cmp_items(va, vb, true);
}

static int
ht_cmp_sibling(const void *va, const void *vb)
{
	return ht_cmp_items(va, vb, false);
}

/* Renumber the cores of processors whose core_ids collide (see mcfan_hosttopo_build()). */
static void
ht_fix_cores(struct mcfan_sct_cpu *cpus, struct ht_item *items, size_t n)
{
	size_t i, j, k;
	bool collide;
	int32_t core;

	for (i = 0; i < n; i++) {
		items[i].processor = cpus[items[i].index].processor;
		items[i].core = cpus[items[i].index].core;
	}
	qsort(items, n, sizeof(items[0]), ht_cmp);
	for (i = 0; i < n; i = j) {
		collide = false;
		for (j = i + 1; j < n && items[j].processor == items[i].processor; j++)
			if (items[j].core == items[j - 1].core &&
			    items[j].first_sibling != items[j - 1].first_sibling)
				collide = true;
		if (!collide)
			continue;
		qsort(&items[i], j - i, sizeof(items[0]), ht_cmp_sibling);
		core = -1;
		for (k = i; k < j; k++) {
			if (k == i || items[k].first_sibling != items[k - 1].first_sibling)
				core++;
			cpus[items[k].index].core = core;
		}
	}
}

/* Nodes: all or none; inside processors if a processor spans several. */
static void
ht_fix_nodes(struct mcfan_sct_cpu *cpus, struct ht_item *items, size_t n)
{
	bool some = false, missing = false, spans = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (cpus[i].node == MCFAN_SCT_ID_UNDEFINED)
			missing = true;
		else
			some = true;
	}
	if (!some)
		return;
	if (missing) {
		for (i = 0; i < n; i++)
			cpus[i].node = MCFAN_SCT_ID_UNDEFINED;
		return;
	}
	for (i = 0; i < n; i++) {
		items[i].processor = cpus[items[i].index].processor;
		items[i].core = cpus[items[i].index].node; /* sort by node within processor */
	}
	qsort(items, n, sizeof(items[0]), ht_cmp);
	for (i = 1; i < n; i++)
		if (items[i].processor == items[i - 1].processor &&
		    items[i].core != items[i - 1].core)
			spans = true;
	if (!spans)
		return;
	for (i = 0; i < n; i++) {
		cpus[i].processor_node = cpus[i].node;
		cpus[i].node = MCFAN_SCT_ID_UNDEFINED;
	}
}

int
mcfan_hosttopo_build(const char *sysfs_cpu_dir, const struct mcfan_cpuset *cpus,
		     enum mcfan_hosttopo_node_src node_src, struct mcfan_sct_map **mapp, char *err,
		     size_t err_len)
{
	struct mcfan_sct_cpu *recs = NULL;
	struct ht_item *items = NULL;
	unsigned int cpu, first;
	size_t n, i = 0;
	char msg[256];
	int ret;

	if (cpus == NULL || mapp == NULL) {
		return mcfan_err_set(err, err_len, -EINVAL, "no CPU set or no result pointer");
	}
	n = mcfan_cpuset_count(cpus);
	if (n == 0) {
		return mcfan_err_set(err, err_len, -EINVAL, "no CPU to describe");
	}
	recs = calloc(n, sizeof(*recs));
	items = calloc(n, sizeof(*items));
	if (recs == NULL || items == NULL) {
		ret = mcfan_err_set(err, err_len, -ENOMEM, "out of memory");
		goto out;
	}
	for (cpu = 0; cpu < MCFAN_SCT_MAX_CPUS; cpu++) {
		if (!mcfan_cpuset_has(cpus, cpu))
			continue;
		ret = ht_read_cpu(sysfs_cpu_dir, cpu, node_src, &recs[i], &first);
		if (ret < 0) {
			mcfan_err_set(err, err_len, ret,
				      "cannot read the topology of CPU %u under %s/cpu%u/: " "%s",
				      cpu, ht_dir(sysfs_cpu_dir), cpu, strerror(-ret));
			goto out;
		}
		items[i].first_sibling = first;
		items[i].index = i;
		i++;
	}
	ht_fix_cores(recs, items, n);
	ht_fix_nodes(recs, items, n);
	ret = mcfan_sct_from_cpus(recs, n, mapp, NULL, msg, sizeof(msg));
	if (ret < 0)
		mcfan_err_set(err, err_len, ret, "the host's topology does not make a map: %s",
			      msg);
out:
	free(items);
	free(recs);
	return ret;
}

int
mcfan_hosttopo_read(struct mcfan_sct_map **mapp, char *err, size_t err_len)
{
	struct mcfan_cpuset *set = malloc(sizeof(*set));
	int ret;

	if (set == NULL) {
		return mcfan_err_set(err, err_len, -ENOMEM, "out of memory");
	}
	ret = mcfan_hosttopo_allowed(set);
	if (ret < 0)
		mcfan_err_set(err, err_len, ret, "cannot read the online and allowed CPUs: %s",
			      strerror(-ret));
	else
		ret = mcfan_hosttopo_build(NULL, set, MCFAN_HOSTTOPO_NODE_LIBNUMA, mapp, err,
					   err_len);
	free(set);
	return ret;
}

/* n hex digits at *s (exactly n), value in *out. */
static int
ht_hex(const char **s, unsigned int n, unsigned int *out)
{
	unsigned int v = 0, i;
	int c;

	for (i = 0; i < n; i++) {
		c = tolower((unsigned char)(*s)[i]);
		if (c >= '0' && c <= '9')
			v = v * 16 + (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (unsigned int)(c - 'a' + 10);
		else
			return -EINVAL;
	}
	*s += n;
	*out = v;
	return 0;
}

int
mcfan_hosttopo_pci_addr(const char *addr, char *buf, size_t len)
{
	unsigned int dom = 0, bus, dev, fn;
	const char *s = addr;
	size_t colons = 0;
	const char *p;

	if (addr == NULL || buf == NULL || len < 13)
		return -EINVAL;
	for (p = addr; *p != '\0' && *p != ','; p++)
		if (*p == ':')
			colons++;
	if (colons == 2) {
		if (ht_hex(&s, 4, &dom) < 0 || *s++ != ':')
			return -EINVAL;
	} else if (colons != 1) {
		return -EINVAL;
	}
	if (ht_hex(&s, 2, &bus) < 0 || *s++ != ':' || ht_hex(&s, 2, &dev) < 0 || *s++ != '.' ||
	    ht_hex(&s, 1, &fn) < 0 || (*s != '\0' && *s != ','))
		return -EINVAL;
	if (dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(buf, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

int
mcfan_hosttopo_pci_node(const char *sysfs_pci_dir, const char *addr, int32_t *node)
{
	char norm[16], path[PATH_MAX];
	long v;
	int ret;

	if (node == NULL || mcfan_hosttopo_pci_addr(addr, norm, sizeof(norm)) < 0)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/%s/numa_node",
		     sysfs_pci_dir != NULL ? sysfs_pci_dir : MCFAN_HOSTTOPO_SYSFS_PCI, norm) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = ht_read_long(path, &v);
	if (ret < 0)
		return ret;
	*node = v < 0 || v > MCFAN_SCT_MAX_ID ? MCFAN_SCT_ID_UNDEFINED : (int32_t)v;
	return 0;
}
