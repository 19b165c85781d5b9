#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Frames still in net_af_packet's kernel ring when mcfan quits are counted, not lost: the
quit drain (app/mcfan/control/quitdrain.c) receives them after the data lcores stop and counts
them under the drop reason quit_drained. A veth pair (198.18.0.0/15 frames, IPv6 off); real
frames sent into the peer with an AF_PACKET socket; the real console (-i, a pipe).
Case 1: console `stop`, N frames sent, `quit`: quit_drained == N == rx_frames, in the totals
and on the RX lcore that owned the queue and its port (the report's lcores[] and ports[]
entries), conservation exact, every mbuf back; again with framecnt=4096 and 3,000 frames,
more than the port's 1,024 descriptors. Case 2: frames flowing while `quit` arrives:
conservation exact, and every frame the PMD received (ipackets) is in rx_frames. Case 3
(six runs): frames flowing through the quit and the port's stop: none reaches the socket
after the drain (kernel_packets == ipackets + kernel_drops). In every
case the RX lcores' and the ports' rx_frames and drops sum to the totals. Needs root (else
77).
Usage: test_quitdrain.py MCFAN_BINARY"""

import atexit
import os
import shutil
import subprocess
import tempfile
import threading
import time

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-quitdrain-")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
IF_A, IF_B = f"mcfqd{os.getpid() % 10000}a", f"mcfqd{os.getpid() % 10000}b"
N = 200


def ip(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True)


def start(name, vdev_extra=""):
    report = os.path.join(TMP, f"report-{name}.json")
    eal = t.eal_args(f"qd{name}{os.getpid()}") + ["--vdev",
                                                  f"net_af_packet0,iface={IF_A}{vdev_extra}"]
    cmd = [t.mcfan_path(), *eal, "--", "--groups", "239.9.9.1:3999", "-i",
           "--duration", "30", "--report-json", report]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    return p, eal, report


def console(p, line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def finish(p, eal, report):
    return t.finish_popen(p, eal, report, 40)


def send(count, gap):
    t.packet_send(IF_B, [t.udp4_frame("239.9.9.1", 3999, data=b"q" * 100)], count, gap)


def common(what, rc, err, rep):
    t.check_eq(rc, 0, f"[{what}] exit status ({err.strip()[-300:]!r})")
    if rep is None:
        t.check(False, f"[{what}] no report")
        return False
    t.check(t.conservation(rep), f"[{what}] conservation: rx {rep['rx_frames']} = delivered "
            f"{rep['delivered_frames']} + drops {rep['drops']}")
    t.check("quit_drained" in rep["drops"], f"[{what}] the report names quit_drained")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"[{what}] every mbuf back in the pool")
    port = rep["ports"][0]
    t.check_eq(port["ipackets"], rep["rx_frames"],
               f"[{what}] every frame the PMD received is counted (ipackets == rx_frames)")
    # the kernel's own count: a frame left in the af_packet ring is in kernel_packets
    # (tp_packets) but, undrained, in no ipackets
    t.check_eq(port["kernel_packets"], port["ipackets"] + port["kernel_drops"],
               f"[{what}] kernel_packets == ipackets + kernel_drops (nothing left in the ring)")
    # where the frames arose: summed over the RX lcores, and over the ports, the per-lcore
    # and per-port figures are the totals (the drained frames included)
    for rows, kind in ((rx_lcores(rep), "RX lcores"), (rep["ports"], "ports")):
        t.check_eq(sum(x.get("rx_frames", 0) for x in rows), rep["rx_frames"],
                   f"[{what}] rx_frames summed over the {kind} == the total")
        for r in sorted(rep["drops"]):
            t.check_eq(sum(x.get("drops", {}).get(r, 0) for x in rows), rep["drops"][r],
                       f"[{what}] drops {r} summed over the {kind} == the total")
    return True


def rx_lcores(rep):
    return [lc for lc in rep["lcores"] if "rx" in lc["role"]]


def start_running(name, what, vdev_extra=""):
    """start(), then wait for the run's 'running:' line (stderr then drained by
    communicate): (p, eal, report), or None when it did not run (checked, finished)."""
    p, eal, report = start(name, vdev_extra)
    ok = False
    for line in p.stderr:
        if "running:" in line:
            ok = True
            break
    if not t.check(ok, f"[{what}] mcfan runs"):
        finish(p, eal, report)
        return None
    return p, eal, report


def case_stopped(name="stopped", n=N, vdev_extra=""):
    run = start_running(name, name, vdev_extra)
    if run is None:
        return
    p, eal, report = run
    console(p, "stop")
    time.sleep(1.0)
    send(n, 0.001 if n <= N else 0.0001)
    time.sleep(0.5)
    console(p, "quit")
    rc, err, rep = finish(p, eal, report)
    if common(name, rc, err, rep):
        kd = rep["ports"][0]["kernel_drops"]
        t.check_eq(kd, 0, f"[{name}] the kernel ring held every frame (kernel_drops 0)")
        t.check_eq(rep["drops"]["quit_drained"], n,
                   f"[{name}] the {n} frames sent while RX was stopped are quit_drained")
        t.check_eq(rep["rx_frames"], n, f"[{name}] the wire's frames, all counted")
        t.check_eq(rep["delivered_frames"], 0, f"[{name}] none delivered")
        t.check("quit_drained" in err, f"[{name}] the drain is logged")
        # counted on the RX lcore that owned the queue and on its port, not only in the totals
        lcs = rx_lcores(rep)
        t.check_eq(len(lcs), 1, f"[{name}] one RX lcore")
        for row, kind in ((lcs[0] if lcs else {}, "the RX lcore's"),
                          (rep["ports"][0], "the port's")):
            t.check_eq(row.get("drops", {}).get("quit_drained"), n,
                       f"[{name}] {kind} quit_drained == {n}")
            t.check_eq(row.get("rx_frames"), n, f"[{name}] {kind} rx_frames == {n}")


def case_flowing():
    run = start_running("flow", "flowing")
    if run is None:
        return
    p, eal, report = run
    th = threading.Thread(target=send, args=(3000, 0.0005))
    th.start()
    time.sleep(0.6)
    console(p, "quit")
    rc, err, rep = finish(p, eal, report)
    th.join()
    if common("flowing", rc, err, rep):
        t.check(rep["delivered_frames"] > 0, f"[flowing] frames delivered before the quit: "
                f"{rep['delivered_frames']}")


def case_flooding(run):
    """Frames still arriving, 16 at a time about every 0.2 ms (tens of thousands a second),
    while the quit drain runs and until the port's stop: a frame that reached the socket
    after the drain would be in kernel_packets and nowhere else (a few in one run of four
    before the sockets took no frame after the data lcores' stop), so kernel_packets ==
    ipackets + kernel_drops must hold (common())."""
    what = f"flooding {run}"
    started = start_running(f"flood{run}", what)
    if started is None:
        return
    p, eal, report = started
    th = threading.Thread(target=t.packet_send, args=(
        IF_B, [t.udp4_frame("239.9.9.1", 3999, data=b"f" * 100)] * 16, 5000, 0.0001))
    th.start()
    time.sleep(0.3)
    console(p, "quit")
    rc, err, rep = finish(p, eal, report)
    th.join()
    common(what, rc, err, rep)


def main():
    t.veth_pair_or_skip("test_quitdrain", IF_A, IF_B, up=True)
    try:
        case_stopped()
        # a kernel ring larger than the port's descriptors (framecnt 4096 against nb_rxd
        # 1024): 3,000 frames wait at quit, more than nb_rxd + a few bursts
        case_stopped("stopped-4096", 3000, ",framecnt=4096")
        case_flowing()
        for run in range(6):  # the window is short: six quits under traffic
            case_flooding(run)
    finally:
        ip("link", "del", IF_A)
    t.finish("quitdrain")


if __name__ == "__main__":
    main()
