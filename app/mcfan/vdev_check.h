/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_VDEV_CHECK_H
#define MCFAN_APP_VDEV_CHECK_H

/*
 * Device arguments checked before rte_eal_init (vdev_check.c): the --vdev arguments whose
 * failure a PMD would report in several lines of its own, then leave mcfan with no port or
 * a port that cannot start, are refused first in one line with the cause and the remedy.
 * Main lcore only, before EAL.
 */

/**
 * Check every --vdev (also --vdev=) among EAL's arguments:
 *  - net_af_packet (eth_af_packet) and net_pcap on an interface (iface=, rx_iface=,
 *    rx_iface_in=): the interface must exist in this network namespace;
 *  - net_af_packet framesz=: a ring frame's data (framesz - 32 bytes) must fit an mbuf of
 *    mcfan's RX pool (mbuf_size bytes), or the PMD's RX queue setup fails; the message
 *    names the framesz that fits and the --mbuf-size that would;
 *  - net_null (eth_null) size=: 1..mbuf_size, decimal (size=0 fails the PMD's RX queue
 *    setup for want of memory; a larger frame would not fit an mbuf);
 *  - a device name (before the first ',') given by two --vdev: EAL would probe the first
 *    alone and drop the other without a word.
 * Prints one line on standard error for the first that fails.
 *
 * @param argc
 *   EAL's argument count (argv[0] included).
 * @param argv
 *   EAL's arguments; not changed.
 * @param mbuf_size
 *   Frame bytes an mbuf of mcfan's RX pool holds after its headroom (--mbuf-size,
 *   MCFAN_MBUF_SIZE_MIN..MCFAN_MBUF_SIZE_MAX).
 * @return
 *   0: all good (or nothing to check); -ENODEV: an interface that does not exist;
 *   -EINVAL: a framesz too big, a net_null size outside 1..mbuf_size; -EEXIST: a device
 *   name given twice. Each is bad input
 *   (exit 2).
 */
int mcfan_vdev_check(int argc, char **argv, unsigned int mbuf_size);

/**
 * Check --report-json against the files of net_pcap's --vdev arguments (rx_pcap=, tx_pcap=):
 * the report is written at exit by renaming over its path, so a report naming the capture
 * mcfan reads (or the one the PMD writes) would replace it. The same file by device and
 * inode (a link or another spelling too); a file that does not exist yet, by its name.
 * Prints one line on standard error. Main lcore only, before EAL.
 *
 * @param argc
 *   EAL's argument count (argv[0] included).
 * @param argv
 *   EAL's arguments; not changed.
 * @param report
 *   The --report-json path; NULL or "" (none, or standard output): nothing to check.
 * @return
 *   0: no clash; -EINVAL: the report names a capture file of a --vdev (bad input, exit 2).
 */
int mcfan_vdev_report_check(int argc, char **argv, const char *report);

/**
 * Check EAL's --file-prefix (also --file-prefix=) before EAL: a prefix too long for EAL's
 * runtime directory RUNDIR/dpdk/PREFIX to hold its telemetry socket dpdk_telemetry.v2
 * within sockaddr_un's sun_path (108 bytes with the NUL; RUNDIR is /var/run for root,
 * else $XDG_RUNTIME_DIR or /tmp), or for a reader ring's name
 * mcfan.PREFIX.ADDRESS.PORT(.newPID) within NAME_MAX (255), fails later in words that do
 * not name the prefix (EAL: "TELEMETRY: Error with socket binding, path too long" and
 * "No such file or directory"; the readers engine: no ring). With --no-telemetry only the
 * ring name limit (186 characters) applies. A prefix that is not a directory name (empty, with
 * '/' or '%', "." or "..": mcfan_rd_prefix_check(), the reader library's and mcfan-top's rule)
 * is refused too: EAL would make a path such as ../../etc its runtime directory. Prints one
 * line on standard error naming the prefix and the limit or the rule.
 *
 * @param argc
 *   EAL's argument count (argv[0] included).
 * @param argv
 *   EAL's arguments; not changed.
 * @return
 *   0, -ENAMETOOLONG (a prefix longer than the limit: 75 characters for root with
 *   telemetry) or -EINVAL (not a directory name). Bad input (exit 2).
 */
int mcfan_prefix_check(int argc, char **argv);

/**
 * Check EAL's -m (also -mN) before EAL: DPDK 22.11 reads it with atoi(), so a unit ("1G":
 * 1 MB), a hex or other non-decimal text (0: EAL's default memory, 64 MB without
 * hugepages), 0 itself, or a number beyond INT_MAX (wrapped) would start with a memory size
 * other than the one written, and fail later (if at all) in words about the pool. Prints one
 * line on standard error naming the value, what EAL would make of it and the form to write.
 *
 * @param argc
 *   EAL's argument count (argv[0] included).
 * @param argv
 *   EAL's arguments; not changed.
 * @return
 *   0 (every -m a decimal number of megabytes 1..INT_MAX, or no -m), or -EINVAL. Bad input
 *   (exit 2).
 */
int mcfan_mem_check(int argc, char **argv);

/**
 * Check EAL's --log-level (also --log-level=) before EAL: DPDK 22.11 prints "Invalid log
 * level" for a level it cannot read ("debugg", "9", an empty one) or a TYPE,LEVEL whose TYPE
 * is not a regular expression, then starts at its default level as if the option were not
 * there. Prints one line on standard error naming the value and the forms allowed.
 *
 * @param argc
 *   EAL's argument count (argv[0] included).
 * @param argv
 *   EAL's arguments; not changed.
 * @return
 *   0 (every --log-level LEVEL, TYPE:LEVEL or TYPE,LEVEL with LEVEL a level's name, or its
 *   prefix as EAL reads it, or 1..8; or no --log-level), or -EINVAL. Bad input (exit 2).
 */
int mcfan_log_level_check(int argc, char **argv);

/**
 * Check EAL's --proc-type (also --proc-type=) before EAL: mcfan is EAL's primary process (it
 * configures and starts its ports, makes its rings and pool); "secondary", or "auto" (a
 * secondary when a primary of the file prefix runs), would have it attach to another
 * process's memory and configure that process's ports, or fail in EAL's own words. A value
 * that is no process type ("bogus", "") and --proc-type without a value are refused too
 * (EAL would print its usage). Prints one line on standard error naming the value and, for
 * secondary and auto, the tools that do attach. So EAL never makes mcfan a secondary.
 *
 * @param argc
 *   EAL's argument count (argv[0] included).
 * @param argv
 *   EAL's arguments; not changed.
 * @return
 *   0 (no --proc-type, or primary in any case), or -EINVAL for any other value or none.
 *   Bad input (exit 2).
 */
int mcfan_proc_type_check(int argc, char **argv);

#endif /* MCFAN_APP_VDEV_CHECK_H */
