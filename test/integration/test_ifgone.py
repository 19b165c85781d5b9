#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""A net_af_packet port whose interface is renamed, then deleted and made again under the
same name (control/kernel.c). mcfan on a veth in a namespace made here, real frames sent
into the peer with an AF_PACKET socket:

1. renamed while mcfan runs, with another interface made under the old name: the port is
   still bound (the kernel keeps a packet socket's binding across a rename), frames sent
   into the peer are received, /mcfan/ports names the new name and its rx_packets are the
   renamed interface's, not the new one's; interface_state present;
2. deleted: one WARNING naming the port and the interface and saying nothing more is
   received until mcfan restarts; /mcfan/ports says interface_state gone and keeps the
   interface's last rx_packets (a counter that does not go back to 0);
3. made again under the same name, frames sent into it: not received (DPDK's PMD cannot
   rebind), group frames unchanged, and the counters are not the new interface's: the
   report's rx_packets are the old interface's last values, its kernel line says
   "interface gone", and kernel_packets = ipackets + kernel_drops still.

Usage: test_ifgone.py MCFAN_BINARY. Exit 77 (skip) when not root or without `ip netns`."""

import os
import signal
import subprocess
import sys
import time

import mcfantest as t
import netnstest as nt

TAG = f"{t.PREFIX}-ifg{os.getpid() % 100000}"
NS = TAG
IF_A, IF_B = "ifga", "ifgb"   # names inside the namespace made here
N1, N2, N3 = 100, 50, 200


def ip(*args):
    return subprocess.run(["ip", "-n", NS, *args], capture_output=True, text=True)


def veth():
    ok = ip("link", "add", IF_A, "type", "veth", "peer", "name", IF_B).returncode == 0
    for i in (IF_A, IF_B):
        ok = ip("link", "set", i, "up").returncode == 0 and ok
    return ok


def send(iface, n):
    """n frames to 239.9.9.1:3999 out of iface at 100 frames/s, from inside the namespace
    (this file with --send)."""
    r = subprocess.run(["ip", "netns", "exec", NS, "timeout", "60", sys.executable,
                        os.path.abspath(__file__), "--send", iface, str(n)],
                       capture_output=True, text=True, timeout=90)
    t.check_eq(r.returncode, 0, f"sender on {iface}: {r.stderr[-300:]}")


def row(prefix):
    """/mcfan/ports' port 0 as a dict, or {}."""
    try:
        cols = t.telemetry_once(prefix, "/mcfan/ports")
    except (OSError, ValueError):
        return {}
    return {k: v[0] for k, v in cols.items()} if cols else {}


def wait_row(prefix, cond, timeout=10.0):
    end = time.monotonic() + timeout
    r = row(prefix)
    while not cond(r) and time.monotonic() < end:
        time.sleep(0.2)
        r = row(prefix)
    return r


def if_rx(name):
    r = subprocess.run(["ip", "netns", "exec", NS, "cat",
                        f"/sys/class/net/{name}/statistics/rx_packets"],
                       capture_output=True, text=True)
    return int(r.stdout) if r.returncode == 0 else None


def scenario(tmp):
    report = os.path.join(tmp, "report.json")
    eal = t.eal_args("ifgone") + ["--vdev", f"net_af_packet0,iface={IF_A}"]
    prefix = t.file_prefix(eal)
    cmd = ["ip", "netns", "exec", NS, t.mcfan_path(), *eal, "--", "--groups",
           "239.9.9.1:3999", "--igmp", "off", "--mld", "off", "--report-json", report]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         stdin=subprocess.DEVNULL)
    try:
        r = wait_row(prefix, lambda r: r.get("interface") == IF_A, 30)
        if not t.check(r.get("interface_state") == "present", f"mcfan runs on {IF_A}: {r}"):
            return
        send(IF_B, N1)
        r = wait_row(prefix, lambda r: r.get("ipackets", 0) >= N1)
        t.check_eq(r.get("ipackets"), N1, "frames of the first send received")
        t.check_eq(r.get("rx_packets"), N1, "the interface's rx_packets")
        # 1. renamed, another interface under the old name: still this port's interface
        ip("link", "set", IF_A, "down")
        t.check_eq(ip("link", "set", IF_A, "name", IF_A + "r").returncode, 0, "rename")
        ip("link", "set", IF_A + "r", "up")
        t.check_eq(ip("link", "add", IF_A, "type", "veth", "peer", "name", "ifgc").returncode,
                   0, f"another interface named {IF_A}")
        ip("link", "set", IF_A, "up")
        send(IF_B, N2)
        r = wait_row(prefix, lambda r: r.get("ipackets", 0) >= N1 + N2)
        t.check_eq(r.get("ipackets"), N1 + N2, "renamed: the port still receives")
        t.check_eq(r.get("interface"), IF_A + "r", "renamed: followed by its index")
        t.check_eq(r.get("interface_state"), "present", "renamed: present")
        t.check_eq(r.get("rx_packets"), if_rx(IF_A + "r"),
                   "renamed: rx_packets are the renamed interface's")
        t.check(r.get("rx_packets") == N1 + N2, f"renamed: rx_packets {r.get('rx_packets')}")
        before = r
        # 2. deleted (its peer goes with it), the other one too
        ip("link", "del", IF_A + "r")
        ip("link", "del", IF_A)
        r = wait_row(prefix, lambda r: r.get("interface_state") == "gone")
        t.check_eq(r.get("interface_state"), "gone", "deleted: interface_state gone")
        t.check_eq(r.get("rx_packets"), before.get("rx_packets"),
                   "deleted: rx_packets keep their last value, not 0")
        # 3. made again under the same name, frames sent into it
        t.check(veth(), "veth made again under the same names")
        send(IF_B, N3)
        time.sleep(1.5)
        r = row(prefix)
        t.check_eq(r.get("ipackets"), N1 + N2, "made again: nothing more received")
        t.check_eq(r.get("rx_packets"), before.get("rx_packets"),
                   f"made again: not the new interface's rx_packets ({if_rx(IF_A)})")
        t.check(if_rx(IF_A) == N3, f"the new interface did receive {N3}: {if_rx(IF_A)}")
        t.check_eq(r.get("interface_state"), "gone", "made again: still gone")
        p.send_signal(signal.SIGINT)
        out = t.communicate_or_kill(p, 30)
        rc = p.returncode
        p = None
    finally:
        if p is not None:
            p.kill()
            p.wait()
    t.check_eq(rc, 0, f"exit status:\n{out[-2000:]}")
    warn = f"port 0: interface {IF_A}r (index "
    t.check_eq(out.count(warn), 1, f"one WARNING when it went:\n{out[-2000:]}")
    t.check("nothing more is received on port 0 until mcfan restarts" in out,
            "the WARNING says what it means")
    t.check(f"port 0 kernel (packet_statistics, {IF_A}r, interface gone: nothing more "
            "received until mcfan restarts): reached the socket" in out,
            f"the text report's kernel line says so:\n{out[-1500:]}")
    t.check("frames queued at the start" not in out, "no caveat about another interface")
    rep = t.load_report(report)
    if not t.check(rep is not None and rep["ports"], "JSON report"):
        return
    port = rep["ports"][0]
    t.check_eq(port["interface_state"], "gone", "report: interface_state")
    t.check_eq(port["rx_packets"], N1 + N2, "report: the old interface's last rx_packets")
    t.check_eq(port["ipackets"], N1 + N2, "report: ipackets")
    t.check_eq(port["kernel_packets"], port["ipackets"] + port["kernel_drops"],
               "report: kernel_packets = ipackets + kernel_drops")
    t.check_eq(sum(t.group_frames(rep).values()), N1 + N2, "report: group frames")
    t.check(t.conservation(rep), "conservation")


def main():
    if os.geteuid() != 0:
        print("test_ifgone: needs root, skipped")
        return 77
    if not nt.netns_add(NS):
        print("test_ifgone: ip netns add failed, skipped")
        return 77
    tmp = f"/tmp/{TAG}"
    os.makedirs(tmp, exist_ok=True)
    try:
        if t.check(veth(), f"veth {IF_A}/{IF_B} in {NS}"):
            scenario(tmp)
    finally:
        subprocess.run(["ip", "netns", "del", NS])
        subprocess.run(["rm", "-rf", tmp])
    return t.finish("test_ifgone")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--send":
        sys.exit(nt.send_paced(sys.argv[2], [t.udp4_frame("239.9.9.1", 3999,
                                                          src="198.18.48.1")
                                             for _ in range(int(sys.argv[3]))], 100))
    sys.exit(main())
