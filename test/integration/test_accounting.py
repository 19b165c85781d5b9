#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Accounting under overload: rings too small for the load (--ring-size 32 --burst 32, workers
sharing a CPU with the RX lcore, net_pcap looping a capture at full speed). Ring overflows are
counted, and every count adds up exactly:
  rx_frames == delivered_frames + sum(drops)
  copies_offered == delivered_copies + sum(workers.ring_drops)
  sum(groups.frames) == sum(workers.frames) == delivered_copies
  mbufs_outside_pool == 0, port ipackets == rx_frames
and the periodic summaries (--stats-period) add up at every print.
Usage: test_accounting.py MCFAN_BINARY"""

import os
import re
import shutil
import subprocess
import tempfile

import mcfantest as t

GROUPS = "239.9.9.1-10:3999"
N_JOINED, N_UNKNOWN, N_UNICAST = 900, 50, 50
RING = 32
# main lcore 0 on CPU 0; RX lcore 1 on CPU 1; workers share CPUs with it / the main lcore
LCORES_REPLICATE = "0@0,1@1,2@1,3@0"
LCORES_PARTITION = "0@0,1@1,2@1,3@1"   # with --host-workers off


def make_pcap(path):
    frames = [t.udp4_frame(f"239.9.9.{i % 10 + 1}", 3999, data=bytes([i % 251]) * 18)
              for i in range(N_JOINED)]
    frames += [t.udp4_frame("239.8.8.8", 3999) for _ in range(N_UNKNOWN)]
    frames += [t.eth(b"\x02\x00\x00\x00\x00\x02", 0x0800,
                     t.ipv4("198.18.0.1", "198.18.0.2", 17, t.udp(1, 3999, b"u" * 18)))
               for _ in range(N_UNICAST)]
    # interleave so every burst mixes kinds
    order = sorted(range(len(frames)), key=lambda i: (i * 7919) % 10007)
    t.write_pcap(path, [frames[i] for i in order])


def eal_for(name, lcores, vdev):
    return t.eal_args(name)[2:] + ["--lcores", lcores, "--vdev", vdev]


def check_exact(rep, what, n_workers, mode):
    drops = rep["drops"]
    workers = rep["workers"]
    ring_drops = sum(w["ring_drops"] for w in workers)
    t.check(t.conservation(rep), f"[{what}] conservation: rx {rep['rx_frames']} == delivered "
            f"{rep['delivered_frames']} + drops {sum(drops.values())} {drops}")
    t.check_eq(rep["copies_offered"], rep["delivered_copies"] + ring_drops,
               f"[{what}] copies_offered == delivered_copies + sum(ring_drops)")
    t.check_eq(sum(g["copies"] for g in rep["groups"]), rep["delivered_copies"],
               f"[{what}] sum(groups.copies) == delivered_copies")
    t.check_eq(sum(g["frames"] for g in rep["groups"]),
               rep["delivered_frames"] + rep["drops"]["ring_full"],
               f"[{what}] sum(groups.frames) == delivered_frames + ring_full (frames, not copies)")
    t.check_eq(sum(g["copy_drops"] for g in rep["groups"]), ring_drops,
               f"[{what}] sum(groups.copy_drops) == sum(workers.ring_drops)")
    t.check_eq(sum(w["frames"] for w in workers), rep["delivered_copies"],
               f"[{what}] sum(workers.frames) == delivered_copies")
    for w in workers:
        t.check_eq(w["enqueued"], w["frames"], f"[{what}] worker {w['lcore']}: every enqueued "
                   f"copy processed (rings drained at stop)")
        t.check_eq(w["ring_size"], RING, f"[{what}] worker {w['lcore']} ring_size")
        t.check(w["ring_high_water"] <= RING, f"[{what}] worker {w['lcore']} high water "
                f"{w['ring_high_water']} <= ring size {RING}")
        if w["ring_drops"] > 0:
            # a refused enqueue leaves the ring full, and the worker's next dequeue sees all of
            # it: an exact-size ring of 32 holds 32 (not 31)
            t.check_eq(w["ring_high_water"], RING, f"[{what}] worker {w['lcore']}: an "
                       f"overflowing ring held --ring-size frames")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"[{what}] mbufs_outside_pool")
    t.check_eq(sum(p["ipackets"] for p in rep["ports"]), rep["rx_frames"],
               f"[{what}] port ipackets == rx_frames")
    t.check(drops["ring_full"] > 0 or ring_drops > 0,
            f"[{what}] the rings overflowed (ring_full {drops['ring_full']}, ring_drops "
            f"{ring_drops})")
    t.check(rep["rx_frames"] > 0, f"[{what}] frames received")
    # the mix's other reasons are counted too
    t.check(drops["unknown_group"] > 0 and drops["not_multicast"] > 0,
            f"[{what}] unknown_group and not_multicast counted: {drops}")
    t.check_eq(drops["malformed"] + drops["not_udp"] + drops["fragment"] + drops["control"], 0,
               f"[{what}] no drop reason outside the mix")
    # fan-out identities
    joined = rep["rx_frames"] - drops["unknown_group"] - drops["not_multicast"]
    t.check_eq(rep["copies_offered"], joined * n_workers if mode == "replicate" else joined,
               f"[{what}] copies_offered == joined frames x copies per frame")
    t.check_eq(rep["delivered_frames"] + drops["ring_full"], joined,
               f"[{what}] joined frames == delivered + ring_full")
    if mode == "partition":
        t.check_eq(drops["ring_full"], ring_drops,
                   f"[{what}] partition: ring_full == sum(ring_drops) (one copy a frame)")
        t.check_eq(rep["delivered_copies"], rep["delivered_frames"],
                   f"[{what}] partition: delivered_copies == delivered_frames")
    else:
        t.check(rep["delivered_frames"] <= rep["delivered_copies"] <=
                n_workers * rep["delivered_frames"],
                f"[{what}] replicate: delivered <= copies <= {n_workers} x delivered")
        t.check(drops["ring_full"] <= min(w["ring_drops"] for w in workers),
                f"[{what}] replicate: a ring_full frame lost its copy on every worker")


def overload_run(pcap, mode, lcores, run_no, extra=(), duration="2.5"):
    eal = eal_for(f"acc-{mode}-{run_no}", lcores, f"net_pcap0,rx_pcap={pcap},infinite_rx=1")
    what = f"{mode} #{run_no}"
    try:
        rc, out, err, rep = t.run_mcfan(eal, ["--groups", GROUPS, "--fanout", mode,
                                              "--ring-size", str(RING), "--burst", "32",
                                              "--duration", duration, *extra], timeout=120)
    except subprocess.TimeoutExpired:
        t.check(False, f"[{what}] mcfan did not end within 120 s")
        t.remove_runtime_dir(eal)
        return None, ""
    t.remove_runtime_dir(eal)
    if not t.check_eq(rc, 0, f"[{what}] exit status (stderr: {err.strip()[-400:]!r})"):
        return None, out
    if not t.check(rep is not None, f"[{what}] JSON report"):
        return None, out
    t.check_eq(len(rep["workers"]), 2, f"[{what}] two workers")
    check_exact(rep, what, len(rep["workers"]), mode)
    # the text report says the same
    m = re.search(r"==== mcfan report.*?\nframes: rx (\d+) = delivered (\d+) \+ drops (\d+)(.*)",
                  out)
    if t.check(m is not None, f"[{what}] final text report"):
        t.check_eq((int(m.group(1)), int(m.group(2)), int(m.group(3))),
                   (rep["rx_frames"], rep["delivered_frames"], sum(rep["drops"].values())),
                   f"[{what}] text report frames line == JSON")
        t.check("MISMATCH" not in m.group(4), f"[{what}] no MISMATCH in the text report")
    t.check("mbufs outside their pool: 0\n" in out + "\n", f"[{what}] text report: 0 mbufs "
            f"outside their pool")
    return rep, out


def check_periodic(out, what):
    """Every periodic summary adds up: rx = delivered + drops, drops line sums to drops."""
    blocks = out.split("==== mcfan ")[1:]
    stats = [b for b in blocks if b.startswith("stats after")]
    t.check(len(stats) >= 2, f"[{what}] at least 2 periodic summaries: {len(stats)}")
    prev = -1
    for i, b in enumerate(stats):
        m = re.search(r"^frames: rx (\d+) = delivered (\d+) \+ drops (\d+)(.*)$", b, re.M)
        d = re.search(r"^drops:((?: [a-z_]+ \d+)+)$", b, re.M)
        if not t.check(m is not None and d is not None, f"[{what}] summary {i}: frames and "
                       f"drops lines"):
            continue
        rx, dl, dr = int(m.group(1)), int(m.group(2)), int(m.group(3))
        t.check_eq(rx, dl + dr, f"[{what}] summary {i}: rx == delivered + drops")
        t.check("MISMATCH" not in m.group(4), f"[{what}] summary {i}: no MISMATCH")
        vals = [int(x) for x in d.group(1).split()[1::2]]
        t.check_eq(sum(vals), dr, f"[{what}] summary {i}: drop reasons sum to drops")
        t.check(rx >= prev, f"[{what}] summary {i}: rx never goes back ({prev} -> {rx})")
        prev = rx
        t.check("mbufs in use:" in b, f"[{what}] summary {i}: mbufs in use shown")


def null_run(run_no):
    """net_null: endless frames of zeros (not multicast) as fast as RX can take them."""
    eal = eal_for(f"acc-null-{run_no}", LCORES_REPLICATE, "net_null0")
    what = f"net_null #{run_no}"
    try:
        rc, out, err, rep = t.run_mcfan(eal, ["--groups", GROUPS, "--fanout", "replicate",
                                              "--ring-size", str(RING), "--duration", "1.5"],
                                        timeout=120)
    except subprocess.TimeoutExpired:
        t.check(False, f"[{what}] mcfan did not end within 120 s")
        t.remove_runtime_dir(eal)
        return
    t.remove_runtime_dir(eal)
    if not t.check_eq(rc, 0, f"[{what}] exit status (stderr: {err.strip()[-400:]!r})") or \
            not t.check(rep is not None, f"[{what}] JSON report"):
        return
    t.check(rep["rx_frames"] > 0, f"[{what}] frames received")
    t.check(t.conservation(rep), f"[{what}] conservation")
    t.check_eq(rep["drops"]["not_multicast"], rep["rx_frames"], f"[{what}] all not_multicast")
    t.check_eq(rep["delivered_copies"] + rep["copies_offered"], 0, f"[{what}] no copies")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"[{what}] mbufs_outside_pool")
    t.check_eq(sum(p["ipackets"] for p in rep["ports"]), rep["rx_frames"],
               f"[{what}] port ipackets == rx_frames")


def main():
    tmp = tempfile.mkdtemp(prefix="mcfan-accounting-")
    pcap = os.path.join(tmp, "load.pcap")
    make_pcap(pcap)
    for run_no in (1, 2):
        overload_run(pcap, "replicate", LCORES_REPLICATE, run_no)
        # worker threads of their own: hosted by the RX lcore (the default on this shape,
        # docs/idle.md "Hosted workers") they empty their rings after every burst and never
        # overflow, and this test is about counting overflows
        overload_run(pcap, "partition", LCORES_PARTITION, run_no, extra=("--host-workers", "off"))
    # periodic summaries while overloaded
    rep, out = overload_run(pcap, "replicate", LCORES_REPLICATE, 3,
                            extra=["--stats-period", "0.5"], duration="2.6")
    if rep is not None:
        check_periodic(out, "replicate --stats-period 0.5")
    null_run(1)
    shutil.rmtree(tmp, ignore_errors=True)
    t.finish("accounting")


if __name__ == "__main__":
    main()
