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
3. wait_cpu on an oversubscribed run (--lcores '0@0,1@1,(2-5)@1': five data lcores on CPU
   1): over a 3 s window of two /mcfan/msacc,N queries, each data lcore's wait_cpu_cycles
   agrees with its thread's schedstat run-delay delta (read here) within 1 % of the
   window; the states still add up to the window; context switches are reported.

Usage: test_acct.py MCFAN_BINARY"""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

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


def run_delays(pid):
    """{lcore: schedstat run-delay ns} of mcfan's data lcore threads (named rte-worker-N)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                m = re.match(r"rte-worker-(\d+)$", f.read().strip())
            if m:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    out[int(m.group(1))] = int(f.read().split()[1])
        except OSError:
            pass
    return out


def wait_cpu(tmp):
    what = "wait_cpu"
    pcap = os.path.join(tmp, "wait.pcap")
    make_pcap(pcap, PER_GROUP)
    eal = t.eal_args("acct-wait")[2:] + ["--lcores", "0@0,1@1,(2-5)@1", "--vdev",
                                          f"net_pcap0,rx_pcap={pcap},infinite_rx=1"]
    # every lcore polls (lcores sharing a CPU sleep by default): four spinning workers on CPU 1
    p = subprocess.Popen([t.mcfan_path(), *eal, "--", "--groups", GROUPS, "--duration", "30",
                          "--idle-rx", "poll", "--idle-worker", "poll"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lcores = [1, 2, 3, 4, 5]
    try:
        tel = t.Telemetry(t.telemetry_socket(eal))
        if not t.check(tel.wait_ready() is not None, f"[{what}] telemetry answers"):
            return
        time.sleep(0.5)

        def sample():
            """Per lcore: its schedstat read right before its /mcfan/msacc,N query."""
            rd, ms = {}, {}
            for lc in lcores:
                rd[lc] = run_delays(p.pid).get(lc)
                ms[lc] = tel.query(f"/mcfan/msacc,{lc}")[0]
            return rd, ms
        rd_a, ms_a = sample()
        time.sleep(3)
        rd_b, ms_b = sample()
        tel.close()
        for lc in lcores:
            a, b = ms_a[lc], ms_b[lc]
            if not t.check(a is not None and b is not None and rd_a[lc] is not None and
                           rd_b[lc] is not None,
                           f"[{what}] lcore {lc}: msacc and schedstat read"):
                continue
            hz = b["tsc_hz"]
            win = b["wall_cycles"] - a["wall_cycles"]
            wait = b["wait_cpu_cycles"] - a["wait_cpu_cycles"]
            sched = (rd_b[lc] - rd_a[lc]) * hz / 1e9
            print(f"acct: [{what}] lcore {lc}: wait_cpu {wait / hz * 1e3:.1f} ms, schedstat "
                  f"{sched / hz * 1e3:.1f} ms, window {win / hz * 1e3:.1f} ms", flush=True)
            t.check(abs(wait - sched) <= 0.01 * win,
                    f"[{what}] lcore {lc}: wait_cpu {wait / hz * 1e3:.1f} ms = schedstat "
                    f"{sched / hz * 1e3:.1f} ms within 1 % of the {win / hz:.2f} s window")
            t.check(sched > 0.3 * win, f"[{what}] lcore {lc}: oversubscribed, it waited "
                    f"{sched / win * 100:.0f} % of the window")
            t.check_eq(sum(v for k, v in b.items() if k.endswith("_cycles") and
                           k not in ("wall_cycles", "busy_cycles")), b["wall_cycles"],
                       f"[{what}] lcore {lc}: the states add up to the wall time")
            t.check(b.get("ctx_switches_involuntary", 0) > 0,
                    f"[{what}] lcore {lc}: involuntary context switches reported")
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    t.check_eq(p.returncode, 0, f"[{what}] exit status")


def main():
    tmp = tempfile.mkdtemp(prefix="mcfan-acct-")
    try:
        replicate(tmp, 2)
        replicate(tmp, 3)
        failed_starts(tmp)
        wait_cpu(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t.finish("acct")


if __name__ == "__main__":
    main()
