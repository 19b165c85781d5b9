#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Frames, copies and failed starts (issue 11), with net_pcap:

1. --fanout replicate with 2 and 3 workers: per group, frames = the capture's frames of
   the group, copies + copy_drops = workers x frames, and the sums agree with the top
   level (delivered_copies, ring_drops); the same numbers in show groups.
2. A 10,000-frame capture with infinite_rx=1: the default pool is sized from the capture
   (the run works); with a --mbufs too small the start is refused with one line naming the
   option and the number needed, status 2, no report, no PMD warning.

Usage: test_acct.py MCFAN_BINARY"""

import os
import re
import shutil
import tempfile

import mcfantest as t

GROUPS = "239.9.9.1-10:3999"
PER_GROUP = 150
BIG = 10000


def make_pcap(path, n_per_group):
    frames = [t.udp4_frame(f"239.9.9.{i % 10 + 1}", 3999) for i in range(10 * n_per_group)]
    t.write_pcap(path, frames)


def replicate(tmp, n_workers):
    what = f"replicate {n_workers} workers"
    pcap = os.path.join(tmp, "rep.pcap")
    make_pcap(pcap, PER_GROUP)
    lcores = "0@0,1@1," + ",".join(f"{2 + w}@{w % 2}" for w in range(n_workers))
    workers = f"2-{1 + n_workers}"
    cmds = os.path.join(tmp, "cmds.txt")
    with open(cmds, "w") as f:
        f.write("show groups\n")
    eal = t.eal_args(f"acct-rep{n_workers}", extra=["--lcores", lcores, "--vdev",
                                                     f"net_pcap0,rx_pcap={pcap}"])
    eal = [a for a in eal if a not in ("-l", "0-1")]
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", GROUPS, "--fanout", "replicate",
                                          "--rx-lcores", "1", "--worker-lcores", workers,
                                          "--duration", "1.5"])
    t.check_eq(rc, 0, f"[{what}] exit status ({err.strip()[-300:]!r})")
    if not t.check(rep is not None, f"[{what}] report"):
        return
    t.check_eq(len(rep["workers"]), n_workers, f"[{what}] workers")
    ring_drops = sum(w["ring_drops"] for w in rep["workers"])
    for g in rep["groups"]:
        t.check_eq(g["frames"], PER_GROUP, f"[{what}] {g['group']}: frames = the capture's")
        t.check_eq(g["copies"] + g["copy_drops"], n_workers * g["frames"],
                   f"[{what}] {g['group']}: copies + copy_drops = {n_workers} x frames")
    t.check_eq(sum(g["copies"] for g in rep["groups"]), rep["delivered_copies"],
               f"[{what}] sum(copies) = delivered_copies")
    t.check_eq(sum(g["copy_drops"] for g in rep["groups"]), ring_drops,
               f"[{what}] sum(copy_drops) = sum(ring_drops)")
    t.check_eq(sum(g["frames"] for g in rep["groups"]), 10 * PER_GROUP,
               f"[{what}] sum(frames) = the capture")
    # the text report's groups table: frames then copies
    rows = re.findall(r"^\s+239\.9\.9\.\d+\s+3999\s+replicate\s+(\d+)\s+(\d+)\s+(\d+)", out,
                      re.M)
    t.check(len(rows) == 10 and all(int(f) == PER_GROUP for f, _, _ in rows),
            f"[{what}] text report: frames column {rows[:3]}")


def failed_starts(tmp):
    pcap = os.path.join(tmp, "big.pcap")
    make_pcap(pcap, BIG // 10)
    vdev = f"net_pcap0,rx_pcap={pcap},infinite_rx=1"
    what = "infinite_rx, default pool"
    rc, out, err, rep = t.run_mcfan(t.eal_args("acct-big", extra=["--vdev", vdev]),
                                    ["--groups", GROUPS, "--duration", "0.5"])
    t.check_eq(rc, 0, f"[{what}] exit status ({err.strip()[-300:]!r})")
    t.check("Not enough mbufs" not in err and "Cannot free ring" not in err,
            f"[{what}] no PMD complaint")
    t.check(rep is not None and rep["rx_frames"] >= BIG and rep["mbufs_total"] > BIG,
            f"[{what}] the pool holds the capture and the run loops it: "
            f"{rep and (rep['rx_frames'], rep['mbufs_total'])}")
    what = "infinite_rx, --mbufs too small"
    rc, out, err, rep = t.run_mcfan(t.eal_args("acct-small", extra=["--vdev", vdev]),
                                    ["--groups", GROUPS, "--duration", "0.5", "--mbufs", "9000"])
    t.check_eq(rc, 2, f"[{what}] exit status 2")
    mine = [ln for ln in err.splitlines() if ln.startswith("mcfan:") and "--no-shconf" not in ln]
    t.check(len(mine) == 1 and "--mbufs" in mine[0] and re.search(r"at least \d+", mine[0]),
            f"[{what}] one line naming the option and the number: {mine}")
    t.check("Not enough mbufs" not in err and "Cannot free ring" not in err and
            "RING:" not in err, f"[{what}] no PMD warning: {err.strip()[-400:]!r}")
    t.check(rep is None and "mcfan report" not in out, f"[{what}] no report")


def main():
    tmp = tempfile.mkdtemp(prefix="mcfan-acct-")
    try:
        replicate(tmp, 2)
        replicate(tmp, 3)
        failed_starts(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t.finish("acct")


if __name__ == "__main__":
    main()
