/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_HOSTTOPO_H
#define MCFAN_HOSTTOPO_H

/**
 * @file
 * Reading the host's CPU topology as an Erlang `+sct` map (see mcfan_sct.h).
 *
 * The logical CPUs are the ones online (`/sys/devices/system/cpu/online`) and allowed to
 * the calling thread (sched_getaffinity(2): taskset, cgroup cpusets). For each one the
 * processor is its `topology/physical_package_id`, the core its `topology/core_id`, the
 * thread its position in `topology/thread_siblings_list`, and the NUMA node the one
 * libnuma's numa_node_of_cpu() names (or, for a sysfs tree given by path, the `nodeN`
 * entry of the CPU's directory). A processor that spans several nodes (sub-NUMA
 * clustering) gets its nodes declared inside it (`...N1P0`), as Erlang does.
 *
 * No EAL is needed. Call mcfan_hosttopo_read() before rte_eal_init(): EAL pins the
 * calling thread to the main lcore's CPU, which shrinks the allowed set to that CPU.
 */

#include <stddef.h>
#include <stdint.h>

#include "bits.h"
#include "mcfan_sct.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default directory of the CPUs in sysfs. */
#define MCFAN_HOSTTOPO_SYSFS_CPU "/sys/devices/system/cpu"
/** Default directory of the PCI devices in sysfs. */
#define MCFAN_HOSTTOPO_SYSFS_PCI "/sys/bus/pci/devices"

/** A set of logical CPU ids 0..MCFAN_SCT_MAX_ID (8 KiB: keep it off small stacks). */
struct mcfan_cpuset {
	uint64_t bits[MCFAN_BITS_WORDS(MCFAN_SCT_MAX_CPUS)]; /**< Bit i (bits.h): CPU i is in. */
};

/** Where the NUMA node of a CPU comes from. */
enum mcfan_hosttopo_node_src {
	MCFAN_HOSTTOPO_NODE_LIBNUMA = 0, /**< numa_node_of_cpu(); none if libnuma is unusable. */
	MCFAN_HOSTTOPO_NODE_SYSFS,       /**< The `nodeN` entry of the CPU's sysfs directory. */
	MCFAN_HOSTTOPO_NODE_NONE,        /**< No nodes: the map declares none. */
};

/**
 * Empty a CPU set.
 *
 * @param set
 *   The set.
 */
void
mcfan_cpuset_zero(struct mcfan_cpuset *set);

/**
 * Add a CPU to a set.
 *
 * @param set
 *   The set.
 * @param cpu
 *   Logical CPU id; ids above MCFAN_SCT_MAX_ID are ignored.
 */
void
mcfan_cpuset_add(struct mcfan_cpuset *set, unsigned int cpu);

/**
 * Test whether a set holds a CPU.
 *
 * @param set
 *   The set.
 * @param cpu
 *   Logical CPU id.
 * @return
 *   1 if cpu is in the set, else 0 (also for ids above MCFAN_SCT_MAX_ID).
 */
int
mcfan_cpuset_has(const struct mcfan_cpuset *set, unsigned int cpu);

/**
 * Count the CPUs of a set.
 *
 * @param set
 *   The set.
 * @return
 *   Number of CPUs in the set.
 */
unsigned int
mcfan_cpuset_count(const struct mcfan_cpuset *set);

/**
 * Parse a Linux CPU list such as `0-3,8,10-11` (the format of sysfs `online` and
 * `thread_siblings_list` files, and of taskset -c). A trailing newline is accepted.
 *
 * @param text
 *   NUL-terminated list; the empty text (or a lone newline) is the empty set.
 * @param set
 *   Receives the set (emptied first).
 * @return
 *   0 on success; -EINVAL on a NULL argument, a character that does not belong, a
 *   decreasing range or an id above MCFAN_SCT_MAX_ID.
 */
int
mcfan_cpuset_parse(const char *text, struct mcfan_cpuset *set);

/**
 * Write a set as a Linux CPU list, ranges merged (`0-3,8`); the empty set is "".
 *
 * @param set
 *   The set.
 * @param buf
 *   Output buffer; may be NULL when len is 0.
 * @param len
 *   Size of buf; the text is truncated to len - 1 characters and NUL-terminated.
 * @return
 *   Length of the full text without the NUL (like snprintf); -EINVAL if set is NULL or buf
 *   is NULL with len > 0.
 */
int
mcfan_cpuset_format(const struct mcfan_cpuset *set, char *buf, size_t len);

/**
 * Read the CPUs that are online.
 *
 * @param sysfs_cpu_dir
 *   Directory holding `online`, NULL for MCFAN_HOSTTOPO_SYSFS_CPU.
 * @param set
 *   Receives the online CPUs.
 * @return
 *   0 on success; -errno if the file cannot be read; -EINVAL if it does not parse.
 */
int
mcfan_hosttopo_online(const char *sysfs_cpu_dir, struct mcfan_cpuset *set);

/**
 * Read the CPUs that are online and allowed to the calling thread (sched_getaffinity).
 *
 * @param set
 *   Receives the CPUs.
 * @return
 *   0 on success; -errno from reading sysfs or from sched_getaffinity().
 */
int
mcfan_hosttopo_allowed(struct mcfan_cpuset *set);

/**
 * Read one CPU's place from sysfs.
 *
 * @param sysfs_cpu_dir
 *   Directory holding `cpuN/topology/`, NULL for MCFAN_HOSTTOPO_SYSFS_CPU.
 * @param cpu
 *   Logical CPU id, 0..MCFAN_SCT_MAX_ID.
 * @param node_src
 *   Where to take the NUMA node from.
 * @param out
 *   Receives the record: logical = cpu; thread = position of cpu in its
 *   thread_siblings_list; core = core_id; processor = physical_package_id (0 if the
 *   kernel says -1); node = the NUMA node or MCFAN_SCT_ID_UNDEFINED; processor_node =
 *   MCFAN_SCT_ID_UNDEFINED; descriptive = 0.
 * @return
 *   0 on success; -EINVAL on a bad argument or a file that does not parse; -errno if a
 *   file cannot be read (-ENOENT: no such CPU, or it is offline).
 */
int
mcfan_hosttopo_read_cpu(const char *sysfs_cpu_dir, unsigned int cpu,
	enum mcfan_hosttopo_node_src node_src, struct mcfan_sct_cpu *out);

/**
 * Build the map of some CPUs from sysfs.
 *
 * Reads every CPU of the set with mcfan_hosttopo_read_cpu(). If any processor spans
 * several nodes, every CPU's node moves inside its processor (processor_node). If some
 * CPUs have a node and others none, no CPU keeps one. If two CPUs of a processor that are
 * not thread siblings report the same core_id (some multi-die packages), that processor's
 * cores are renumbered 0, 1, ... in the order of their lowest logical CPU.
 *
 * @param sysfs_cpu_dir
 *   Directory holding `cpuN/topology/`, NULL for MCFAN_HOSTTOPO_SYSFS_CPU.
 * @param cpus
 *   The CPUs to describe; at least one.
 * @param node_src
 *   Where to take the NUMA nodes from.
 * @param mapp
 *   On success receives the map, to be released with mcfan_sct_free().
 * @param err
 *   If not NULL and err_len > 0, receives a message on failure.
 * @param err_len
 *   Size of err.
 * @return
 *   0 on success; -EINVAL on a bad argument, an empty set or records the map refuses;
 *   -errno if sysfs cannot be read; -ENOMEM if memory ran out.
 */
int
mcfan_hosttopo_build(const char *sysfs_cpu_dir, const struct mcfan_cpuset *cpus,
	enum mcfan_hosttopo_node_src node_src, struct mcfan_sct_map **mapp, char *err,
	size_t err_len);

/**
 * Read this host's map: the CPUs online and allowed to the calling thread, nodes from
 * libnuma.
 *
 * @param mapp
 *   On success receives the map, to be released with mcfan_sct_free().
 * @param err
 *   If not NULL and err_len > 0, receives a message on failure.
 * @param err_len
 *   Size of err.
 * @return
 *   0 on success; a negative errno as mcfan_hosttopo_build() and mcfan_hosttopo_allowed().
 */
int
mcfan_hosttopo_read(struct mcfan_sct_map **mapp, char *err, size_t err_len);

/**
 * Normalise a PCI address as sysfs names it: `DDDD:BB:DD.F`, lower case; a missing domain
 * is 0000; device arguments after a comma are dropped (`01:00.0,rxq=2` is `0000:01:00.0`).
 *
 * @param addr
 *   The address as given to EAL's -a.
 * @param buf
 *   Receives the normal form.
 * @param len
 *   Size of buf, at least 13.
 * @return
 *   0 on success; -EINVAL if addr is not a PCI address or buf is too small.
 */
int
mcfan_hosttopo_pci_addr(const char *addr, char *buf, size_t len);

/**
 * Read the NUMA node of a PCI device (its sysfs `numa_node`).
 *
 * @param sysfs_pci_dir
 *   Directory of the devices, NULL for MCFAN_HOSTTOPO_SYSFS_PCI.
 * @param addr
 *   PCI address in any form mcfan_hosttopo_pci_addr() accepts.
 * @param node
 *   Receives the node (>= 0), or MCFAN_SCT_ID_UNDEFINED if the kernel does not know it
 *   (-1 in sysfs, as on most single-node hosts and virtual machines).
 * @return
 *   0 on success; -EINVAL if an argument is NULL or addr is not a PCI address; -ENOENT
 *   (or another -errno) if there is no such device or its node cannot be read.
 */
int
mcfan_hosttopo_pci_node(const char *sysfs_pci_dir, const char *addr, int32_t *node);

#ifdef __cplusplus
}
#endif

#endif /* MCFAN_HOSTTOPO_H */
