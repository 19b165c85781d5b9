/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Reading the host's CPU topology (lib/mcfan_hosttopo.h): CPU lists, PCI addresses, maps
 * built from fake sysfs trees (the 24-CPU machine of docs/topology.md numbered the Linux
 * way, sub-NUMA clusters, colliding core ids, subsets), and this host's map against
 * `lscpu -p=CPU,CORE,SOCKET,NODE`, sched_getaffinity(2) and libnuma.
 */

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <numa.h>

#include "mcfan_hosttopo.h"
#include "mcfan_sct.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

static struct mcfan_cpuset set_a, set_b;

/* ---- CPU lists ---- */

static void
test_cpuset(void)
{
	static const char *const bad[] = {
		"3-1", "a", "0,", ",0", "65536", "0-2x", "0-", "-1", "0 1", "0\n\n", "1,,2",
	};
	char buf[64];
	unsigned int i;

	CHECK_EQ_INT(mcfan_cpuset_parse("0-3,8,10-11\n", &set_a), 0);
	CHECK_EQ_INT(mcfan_cpuset_count(&set_a), 7);
	CHECK_EQ_INT(mcfan_cpuset_has(&set_a, 8), 1);
	CHECK_EQ_INT(mcfan_cpuset_has(&set_a, 9), 0);
	CHECK_EQ_INT(mcfan_cpuset_format(&set_a, buf, sizeof(buf)), 11);
	CHECK_EQ_STR(buf, "0-3,8,10-11");
	/* snprintf semantics: the full length even when truncated */
	CHECK_EQ_INT(mcfan_cpuset_format(&set_a, buf, 4), 11);
	CHECK_EQ_STR(buf, "0-3");
	CHECK_EQ_INT(mcfan_cpuset_format(&set_a, NULL, 0), 11);
	CHECK_EQ_INT(mcfan_cpuset_parse("", &set_a), 0);
	CHECK_EQ_INT(mcfan_cpuset_count(&set_a), 0);
	CHECK_EQ_INT(mcfan_cpuset_format(&set_a, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "");
	CHECK_EQ_INT(mcfan_cpuset_parse("65535,0,5", &set_a), 0);
	CHECK_EQ_INT(mcfan_cpuset_format(&set_a, buf, sizeof(buf)), 9);
	CHECK_EQ_STR(buf, "0,5,65535");
	CHECK_EQ_INT(mcfan_cpuset_parse("2-2", &set_a), 0);
	CHECK_EQ_INT(mcfan_cpuset_count(&set_a), 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(mcfan_cpuset_parse(bad[i], &set_a) == -EINVAL, "'%s' was accepted", bad[i]);
	CHECK_EQ_INT(mcfan_cpuset_parse(NULL, &set_a), -EINVAL);
}

/* ---- PCI addresses ---- */

static void
test_pci_addr(void)
{
	static const char *const bad[] = {
		"01:00", "net_pcap0", "0000:01:20.0", "1:00.0", "0000:01:00.8", "00000:01:00.0",
		"0000:01:00.0x", "", "0000:g1:00.0",
	};
	char buf[16];
	unsigned int i;

	CHECK_EQ_INT(mcfan_hosttopo_pci_addr("01:00.0", buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "0000:01:00.0");
	CHECK_EQ_INT(mcfan_hosttopo_pci_addr("0000:AF:1f.7,rxq=2", buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "0000:af:1f.7");
	CHECK_EQ_INT(mcfan_hosttopo_pci_addr("10ab:00:04.0", buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "10ab:00:04.0");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(mcfan_hosttopo_pci_addr(bad[i], buf, sizeof(buf)) == -EINVAL,
		      "'%s' was accepted", bad[i]);
	CHECK_EQ_INT(mcfan_hosttopo_pci_addr("01:00.0", buf, 12), -EINVAL);
}

/* ---- fake sysfs trees ---- */

static char root[256];

static void
put(const char *rel, const char *text)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash != NULL;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* One CPU of a fake tree; node < 0: no nodeN entry. */
static void
fake_cpu(unsigned int cpu, int core, int pkg, const char *siblings, int node)
{
	char rel[128], val[64];

	snprintf(rel, sizeof(rel), "cpu%u/topology/core_id", cpu);
	snprintf(val, sizeof(val), "%d\n", core);
	put(rel, val);
	snprintf(rel, sizeof(rel), "cpu%u/topology/physical_package_id", cpu);
	snprintf(val, sizeof(val), "%d\n", pkg);
	put(rel, val);
	snprintf(rel, sizeof(rel), "cpu%u/topology/thread_siblings_list", cpu);
	snprintf(val, sizeof(val), "%s\n", siblings);
	put(rel, val);
	if (node >= 0) {
		snprintf(rel, sizeof(rel), "cpu%u/node%d/cpulist", cpu, node);
		put(rel, "\n");
	}
}

static void
new_root(void)
{
	char cmd[PATH_MAX + 16];

	if (root[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", root);
	}
	snprintf(root, sizeof(root), "/tmp/mcfan-hosttopo-XXXXXX");
	if (mkdtemp(root) == NULL) {
		perror("mkdtemp");
		exit(2);
	}
}

/* Build a map of `cpus` (a CPU list) from the fake tree and compare it with `want`. */
static void
expect_map(const char *cpus, enum mcfan_hosttopo_node_src src, const char *want)
{
	struct mcfan_sct_map *got = NULL, *exp = NULL;
	char err[256] = "", text[512] = "";
	int ret;

	CHECK_EQ_INT(mcfan_cpuset_parse(cpus, &set_a), 0);
	ret = mcfan_hosttopo_build(root, &set_a, src, &got, err, sizeof(err));
	CHECK(ret == 0, "build %s: %d %s", cpus, ret, err);
	CHECK_EQ_INT(mcfan_sct_parse(want, &exp, NULL, err, sizeof(err)), 0);
	if (got != NULL)
		mcfan_sct_format(got, MCFAN_SCT_FORMAT_COMPACT, text, sizeof(text));
	CHECK(got != NULL && exp != NULL && mcfan_sct_equal(got, exp),
	      "CPUs %s: got %s, expected %s", cpus, text, want);
	mcfan_sct_free(got);
	mcfan_sct_free(exp);
}

static void
test_fake_trees(void)
{
	struct mcfan_sct_map *map = NULL;
	struct mcfan_sct_cpu rec;
	char err[256], sib[32];
	int32_t node = 0;
	unsigned int i;

	/* The 24-CPU, 2-node machine numbered the way Linux numbers most x86 servers: thread
	 * siblings n and n + 12, processor p on node p. */
	new_root();
	put("online", "0-23\n");
	for (i = 0; i < 24; i++) {
		snprintf(sib, sizeof(sib), "%u,%u", i % 12, i % 12 + 12);
		fake_cpu(i, (int)(i % 6), (int)(i % 12 / 6), sib, (int)(i % 12 / 6));
	}
	CHECK_EQ_INT(mcfan_hosttopo_online(root, &set_b), 0);
	CHECK_EQ_INT(mcfan_cpuset_count(&set_b), 24);
	expect_map("0-23", MCFAN_HOSTTOPO_NODE_SYSFS,
		   "L0-5T0C0-5P0N0:L6-11T0C0-5P1N1:L12-17T1C0-5P0N0:L18-23T1C0-5P1N1");
	expect_map("0-23", MCFAN_HOSTTOPO_NODE_NONE,
		   "L0-5T0C0-5P0:L6-11T0C0-5P1:L12-17T1C0-5P0:L18-23T1C0-5P1");
	/* a subset (taskset -c 12,13,20): thread ids stay the hardware's */
	expect_map("12-13,20", MCFAN_HOSTTOPO_NODE_SYSFS, "L12-13T1C0-1P0N0:L20T1C2P1N1");
	CHECK_EQ_INT(mcfan_hosttopo_read_cpu(root, 19, MCFAN_HOSTTOPO_NODE_SYSFS, &rec), 0);
	CHECK(rec.logical == 19 && rec.thread == 1 && rec.core == 1 && rec.processor == 1 &&
	      rec.node == 1 && rec.processor_node == -1 && rec.descriptive == 0,
	      "cpu 19: L%dT%dC%dP%dN%d/%d", rec.logical, rec.thread, rec.core, rec.processor,
	      rec.node, rec.processor_node);
	CHECK_EQ_INT(mcfan_hosttopo_read_cpu(root, 24, MCFAN_HOSTTOPO_NODE_SYSFS, &rec),
		     -ENOENT);
	CHECK_EQ_INT(mcfan_hosttopo_build(root, &set_b, MCFAN_HOSTTOPO_NODE_SYSFS, NULL, err,
					  sizeof(err)), -EINVAL);
	mcfan_cpuset_zero(&set_a);
	CHECK_EQ_INT(mcfan_hosttopo_build(root, &set_a, MCFAN_HOSTTOPO_NODE_SYSFS, &map, err,
					  sizeof(err)), -EINVAL);
	/* a CPU the tree lacks */
	mcfan_cpuset_add(&set_a, 30);
	CHECK_EQ_INT(mcfan_hosttopo_build(root, &set_a, MCFAN_HOSTTOPO_NODE_SYSFS, &map, err,
					  sizeof(err)), -ENOENT);
	CHECK(strstr(err, "CPU 30") != NULL, "message: %s", err);

	/* Sub-NUMA clustering: one package over two nodes, so the nodes go inside it. */
	new_root();
	for (i = 0; i < 4; i++) {
		snprintf(sib, sizeof(sib), "%u", i);
		fake_cpu(i, (int)i, 0, sib, (int)(i / 2));
	}
	expect_map("0-3", MCFAN_HOSTTOPO_NODE_SYSFS, "L0-3T0C0-3N0,0,1,1P0");

	/* Two packages on one node (node around both). */
	new_root();
	for (i = 0; i < 4; i++) {
		snprintf(sib, sizeof(sib), "%u", i);
		fake_cpu(i, (int)(i % 2), (int)(i / 2), sib, 0);
	}
	expect_map("0-3", MCFAN_HOSTTOPO_NODE_SYSFS, "L0-1T0C0-1P0N0:L2-3T0C0-1P1N0");

	/* Core ids that repeat within a package (two dies): cores renumbered by lowest CPU. */
	new_root();
	fake_cpu(0, 0, 0, "0,4", 0);
	fake_cpu(1, 1, 0, "1,5", 0);
	fake_cpu(2, 0, 0, "2,6", 0);
	fake_cpu(3, 1, 0, "3,7", 0);
	fake_cpu(4, 0, 0, "0,4", 0);
	fake_cpu(5, 1, 0, "1,5", 0);
	fake_cpu(6, 0, 0, "2,6", 0);
	fake_cpu(7, 1, 0, "3,7", 0);
	expect_map("0-7", MCFAN_HOSTTOPO_NODE_SYSFS, "L0-3T0C0-3P0N0:L4-7T1C0-3P0N0");

	/* Gaps in core ids are kept (real ids); a package id of -1 is processor 0. */
	new_root();
	fake_cpu(0, 0, -1, "0", -1);
	fake_cpu(1, 4, -1, "1", -1);
	fake_cpu(2, 8, -1, "2", -1);
	expect_map("0-2", MCFAN_HOSTTOPO_NODE_SYSFS, "L0-2T0C0,4,8P0");

	/* Some CPUs with a node and some without: none keeps one. */
	new_root();
	fake_cpu(0, 0, 0, "0", 0);
	fake_cpu(1, 1, 0, "1", -1);
	expect_map("0-1", MCFAN_HOSTTOPO_NODE_SYSFS, "L0-1T0C0-1P0");

	/* Files that do not parse */
	new_root();
	fake_cpu(0, 0, 0, "0", 0);
	put("cpu0/topology/core_id", "zero\n");
	CHECK_EQ_INT(mcfan_hosttopo_read_cpu(root, 0, MCFAN_HOSTTOPO_NODE_SYSFS, &rec), -EINVAL);
	put("online", "0-x\n");
	CHECK_EQ_INT(mcfan_hosttopo_online(root, &set_a), -EINVAL);

	/* PCI devices' nodes */
	put("pci/0000:01:00.0/numa_node", "1\n");
	put("pci/0000:02:00.0/numa_node", "-1\n");
	{
		char pci[PATH_MAX];

		snprintf(pci, sizeof(pci), "%s/pci", root);
		CHECK_EQ_INT(mcfan_hosttopo_pci_node(pci, "01:00.0,rxq=1", &node), 0);
		CHECK_EQ_INT(node, 1);
		CHECK_EQ_INT(mcfan_hosttopo_pci_node(pci, "0000:02:00.0", &node), 0);
		CHECK_EQ_INT(node, MCFAN_SCT_ID_UNDEFINED);
		CHECK_EQ_INT(mcfan_hosttopo_pci_node(pci, "0000:03:00.0", &node), -ENOENT);
		CHECK_EQ_INT(mcfan_hosttopo_pci_node(pci, "net_pcap0", &node), -EINVAL);
	}
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", root);
	}
}

/* ---- this host ---- */

struct lscpu_row {
	int cpu, core, socket, node; /* node -1: lscpu printed none */
};

/* `lscpu -p=CPU,CORE,SOCKET,NODE`; returns the number of rows, -1 if lscpu is missing. */
static int
read_lscpu(struct lscpu_row *rows, int max)
{
	char line[256];
	int n = 0, k;
	FILE *p = popen("lscpu -p=CPU,CORE,SOCKET,NODE 2>/dev/null", "r");

	if (p == NULL)
		return -1;
	while (fgets(line, sizeof(line), p) != NULL && n < max) {
		if (line[0] == '#')
			continue;
		rows[n].node = -1;
		k = sscanf(line, "%d,%d,%d,%d", &rows[n].cpu, &rows[n].core, &rows[n].socket,
			   &rows[n].node);
		if (k >= 3)
			n++;
	}
	if (pclose(p) != 0 && n == 0)
		return -1;
	return n;
}

static void
test_this_host(void)
{
	static struct lscpu_row rows[4096];
	struct mcfan_sct_map *map = NULL, *map2 = NULL, *back = NULL;
	const struct mcfan_sct_cpu *a, *b;
	cpu_set_t aff;
	char err[256] = "", *text;
	int n, i, j, ret, nodes = 0;
	unsigned int online = 0, allowed = 0;
	bool numa = numa_available() >= 0;

	/* online and allowed, against sysconf and sched_getaffinity */
	CHECK_EQ_INT(mcfan_hosttopo_online(NULL, &set_a), 0);
	online = mcfan_cpuset_count(&set_a);
	CHECK_EQ_INT(online, sysconf(_SC_NPROCESSORS_ONLN));
	CHECK_EQ_INT(mcfan_hosttopo_allowed(&set_b), 0);
	allowed = mcfan_cpuset_count(&set_b);
	CPU_ZERO(&aff);
	CHECK_EQ_INT(sched_getaffinity(0, sizeof(aff), &aff), 0);
	CHECK_EQ_INT(allowed, CPU_COUNT(&aff));
	for (i = 0; i < CPU_SETSIZE; i++)
		CHECK(mcfan_cpuset_has(&set_b, (unsigned int)i) == !!CPU_ISSET(i, &aff),
		      "CPU %d: allowed %d, affinity %d", i, mcfan_cpuset_has(&set_b, (unsigned)i),
		      !!CPU_ISSET(i, &aff));

	ret = mcfan_hosttopo_read(&map, err, sizeof(err));
	CHECK(ret == 0, "reading this host: %d %s", ret, err);
	if (map == NULL)
		return;
	CHECK_EQ_INT(mcfan_sct_count(map), allowed);
	n = mcfan_sct_format(map, 0, NULL, 0);
	text = malloc((size_t)n + 1);
	if (text != NULL) {
		mcfan_sct_format(map, 0, text, (size_t)n + 1);
		printf("this host: %s\n", text);
		CHECK_EQ_INT(mcfan_sct_parse(text, &back, NULL, err, sizeof(err)), 0);
		CHECK(back != NULL && mcfan_sct_equal(map, back), "round trip of %s", text);
		free(text);
	}
	/* nodes from sysfs agree with libnuma's */
	ret = mcfan_hosttopo_build(NULL, &set_b, MCFAN_HOSTTOPO_NODE_SYSFS, &map2, err,
				   sizeof(err));
	CHECK(ret == 0, "sysfs nodes: %s", err);
	if (numa)
		CHECK(map2 != NULL && mcfan_sct_equal(map, map2),
		      "nodes from sysfs differ from libnuma's");
	for (i = 0; i < (int)mcfan_sct_count(map); i++) {
		a = mcfan_sct_cpu_at(map, (size_t)i);
		if (numa)
			CHECK_EQ_INT(mcfan_sct_cpu_numa_node(a), numa_node_of_cpu(a->logical));
		else
			CHECK_EQ_INT(mcfan_sct_cpu_numa_node(a), MCFAN_SCT_ID_UNDEFINED);
	}

	/* lscpu: the same CPUs, and the same grouping into cores, sockets and nodes */
	n = read_lscpu(rows, (int)(sizeof(rows) / sizeof(rows[0])));
	if (n < 0) {
		printf("lscpu not found: skipping the comparison with lscpu\n");
		goto out;
	}
	CHECK_EQ_INT(n, online);
	for (i = 0; i < n; i++) {
		a = mcfan_sct_lookup(map, (unsigned int)rows[i].cpu);
		CHECK((a != NULL) == !!mcfan_cpuset_has(&set_b, (unsigned int)rows[i].cpu),
		      "lscpu CPU %d: in the map %d, allowed %d", rows[i].cpu, a != NULL,
		      mcfan_cpuset_has(&set_b, (unsigned int)rows[i].cpu));
		if (a == NULL)
			continue;
		if (rows[i].node >= 0)
			CHECK(mcfan_sct_cpu_numa_node(a) == rows[i].node,
			      "CPU %d: node %d, lscpu says %d", rows[i].cpu,
			      mcfan_sct_cpu_numa_node(a), rows[i].node);
		if (rows[i].node + 1 > nodes)
			nodes = rows[i].node + 1;
		for (j = 0; j < n; j++) {
			b = mcfan_sct_lookup(map, (unsigned int)rows[j].cpu);
			if (b == NULL)
				continue;
			CHECK((rows[i].socket == rows[j].socket) == (a->processor == b->processor),
			      "CPUs %d and %d: lscpu sockets %d %d, map processors %d %d",
			      rows[i].cpu, rows[j].cpu, rows[i].socket, rows[j].socket,
			      a->processor, b->processor);
			CHECK((rows[i].core == rows[j].core) ==
			      (a->processor == b->processor && a->core == b->core &&
			       mcfan_sct_cpu_numa_node(a) == mcfan_sct_cpu_numa_node(b)),
			      "CPUs %d and %d: lscpu cores %d %d, map cores %d %d",
			      rows[i].cpu, rows[j].cpu, rows[i].core, rows[j].core, a->core,
			      b->core);
		}
	}
	if (numa)
		CHECK(nodes == 0 || nodes <= numa_max_node() + 1, "lscpu nodes %d, libnuma %d",
		      nodes, numa_max_node() + 1);
	printf("this host: %u CPUs online, %u allowed, %d in lscpu, libnuma %s (%d nodes)\n",
	       online, allowed, n, numa ? "available" : "unavailable",
	       numa ? numa_max_node() + 1 : 0);
out:
	mcfan_sct_free(back);
	mcfan_sct_free(map2);
	mcfan_sct_free(map);
}

int
main(void)
{
	test_cpuset();
	test_pci_addr();
	test_fake_trees();
	test_this_host();
	return unit_summary("hosttopo");
}
