#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The kernel-side sources besides net_af_packet (docs/guide.md "Frames mcfan never sees"):
what the kernel offers for net_tap and for net_pcap on a live interface, shown with real
frames.

1. net_tap in a namespace made here: N frames written into the tap from the kernel side
   (an AF_PACKET socket on the tap interface: the kernel "transmits" them to the PMD).
   kernel_source "tap", the interface named; kernel_packets (the tap's tx_packets +
   tx_dropped) = ipackets + kernel_drops exactly, every frame received and delivered;
   rx_packets (what the PMD wrote into the kernel) 0: mcfan sends nothing; the text
   report's kernel line says the same. Then the tap is moved to another namespace and
   back while mcfan runs: away, /mcfan/ports says kernel_source none (not a count of 0
   that looks exact) and a WARNING line says why; back, the counts are read again; renamed,
   it is followed by its index.
2. net_pcap iface= on the lab's receiving veth, iperf2 sending 10 groups, a capture on the
   sending side: kernel_source "pcap_stats", kernel_drops = imissed (libpcap's ps_drop),
   kernel_packets = ipackets + imissed, the interface's rx_packets = the frames on the wire
   = iperf2's own counts, and exactly: sent on the wire = ipackets + kernel_drops (libpcap's
   buffer does drop at this rate on this host; the test prints how many); every frame
   passed on is delivered to its group; no per-queue counts (libpcap has none).

Usage: test_kernelsrc.py MCFAN_BINARY. Exit 77 (skip) when not root or without `ip netns`.
"""

import os
import re
import subprocess
import sys
import time

from labtest import preflight, run_lab
import netnstest as nt
from mcfantest import check, check_eq, conservation, telemetry_once
from test_lab import NGROUPS, LEN, PORT, iperf_reports, read_pcap, skip
import test_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
TAP_N, TAP_PPS = 500, 1000
PCAP_COUNT, PCAP_PPS = 200, 500


class NsRun:
    """What test_kernel.run_mcfan needs of a lab: a directory, a namespace, an id."""

    def __init__(self, ns, d, ident):
        self.rcv, self.dir, self.id = ns, d, ident


def kernel_line(out, source, iface):
    m = re.search(rf"port 0 kernel \({source}, {re.escape(iface)}\): reached the socket "
                  r"(\d+) = ipackets (\d+) \+ kernel_drops (\d+)\n", out)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def ports_row(prefix):
    """/mcfan/ports' port 0 as a dict (its columns' first values), or None."""
    try:
        cols = telemetry_once(prefix, "/mcfan/ports")
    except (OSError, ValueError):
        return None
    return {k: v[0] for k, v in cols.items()} if cols and cols.get("port") else None


def tap_away(ns, tap, prefix):
    """The tap moved to another namespace while mcfan runs, then back (docs/guide.md,
    "Frames mcfan never sees"): away, its counters cannot be read, and /mcfan/ports says
    so (kernel_source none, not a count of 0 that looks exact); back, they are read again
    and cover the time away."""
    tag = "[net_tap moved away and back]"
    other = f"{ns}-away"
    before = ports_row(prefix)
    if not check(before is not None and before["kernel_source"] == "tap" and
                 before["kernel_packets"] == TAP_N, f"{tag} before: {before}"):
        return
    if not check(nt.netns_add(other), f"{tag} ip netns add {other}"):
        return
    try:
        moved = subprocess.run(["ip", "-n", ns, "link", "set", tap, "netns", other],
                               capture_output=True, text=True)
        if not check_eq(moved.returncode, 0, f"{tag} ip link set netns: {moved.stderr}"):
            return
        away = ports_row(prefix)
        check(away is not None and away["kernel_source"] == "none" and
              away["kernel_packets"] == 0 and away["rx_packets"] == 0 and
              away["interface"] == tap,
              f"{tag} away: kernel_source none, the interface still named: {away}")
        back = subprocess.run(["ip", "-n", other, "link", "set", tap, "netns", ns],
                              capture_output=True, text=True)
        check_eq(back.returncode, 0, f"{tag} moved back: {back.stderr}")
        again = ports_row(prefix)
        check(again is not None and again["kernel_source"] == "tap" and
              again["kernel_packets"] == TAP_N,
              f"{tag} back: kernel_source tap, kernel_packets {TAP_N} again: {again}")
        # back, it is down (a move takes it down), and a down interface may be renamed
        renamed = subprocess.run(["ip", "-n", ns, "link", "set", tap, "name", tap + "r"],
                                 capture_output=True, text=True)
        if check_eq(renamed.returncode, 0, f"{tag} renamed: {renamed.stderr}"):
            row = ports_row(prefix)
            check(row is not None and row["interface"] == tap + "r" and
                  row["kernel_source"] == "tap" and row["kernel_packets"] == TAP_N,
                  f"{tag} renamed: followed by its index, the new name shown: {row}")
            subprocess.run(["ip", "-n", ns, "link", "set", tap + "r", "name", tap])
            check_eq((ports_row(prefix) or {}).get("interface"), tap,
                     f"{tag} its old name again")
    finally:
        subprocess.run(["ip", "netns", "del", other])


def test_tap(tmp):
    tag = "[net_tap]"
    ns = f"mcfan-ksrc-{os.getpid()}"
    tap = f"mcfk{os.getpid() % 10000000}"
    if not check(nt.netns_add(ns), f"{tag} ip netns add {ns}"):
        return
    p = None
    try:
        p, report = test_kernel.run_mcfan(NsRun(ns, tmp, os.getpid()), "tap",
                                          f"net_tap0,iface={tap}", "0@0,1@1,2@1",
                                          ["--rx-lcores", "1", "--worker-lcores", "2",
                                           # no IGMP/MLD reports: mcfan writes nothing
                                           "--igmp", "off", "--mld", "off"])
        ok, lines = test_kernel.wait_running(p)
        if not check(ok, f"{tag} mcfan starts:\n{''.join(lines)}"):
            return
        send = subprocess.run(["ip", "netns", "exec", ns, "timeout", "120", sys.executable,
                               os.path.join(HERE, "test_idle.py"), "--raw-send", tap,
                               str(TAP_N), str(TAP_PPS)],
                              capture_output=True, text=True, timeout=180)
        check_eq(send.returncode, 0, f"{tag} raw sender on the tap: {send.stderr}")
        time.sleep(1.0)
        tap_away(ns, tap, f"mcfan-kern-tap-{os.getpid()}")
        rc, out, rep = test_kernel.stop_mcfan(p, report)
        p = None
    finally:
        if p is not None:
            p.kill()
            p.wait()
        subprocess.run(["ip", "netns", "del", ns])
    check_eq(rc, 0, f"{tag} exit status:\n{out[-1500:]}")
    if not check(rep is not None and rep["ports"], f"{tag} JSON report"):
        return
    port = rep["ports"][0]
    check_eq(port["kernel_source"], "tap", f"{tag} kernel_source")
    check_eq(port["interface"], tap, f"{tag} the tap interface named")
    check_eq(port["kernel_packets"], port["ipackets"] + port["kernel_drops"],
             f"{tag} kernel_packets {port['kernel_packets']} = ipackets {port['ipackets']} "
             f"+ kernel_drops {port['kernel_drops']}")
    check_eq(port["kernel_drops"], 0, f"{tag} no kernel drop at {TAP_PPS} frames/s")
    check_eq(port["ipackets"], TAP_N, f"{tag} ipackets = the frames written into the tap")
    check_eq(sum(g["frames"] for g in rep["groups"]), TAP_N, f"{tag} every frame delivered")
    check_eq(port["rx_packets"], 0, f"{tag} rx_packets: mcfan wrote nothing into the kernel")
    check_eq(port["kernel_queues"], [], f"{tag} no per-queue kernel counts for a tap")
    check(conservation(rep), f"{tag} conservation")
    check_eq(kernel_line(out, "tap", tap), (TAP_N, TAP_N, 0), f"{tag} the text report's line")
    check(re.search(rf"port 0: interface {tap} is gone from mcfan's network "
                    r"namespace .*kernel_source none", out) is not None,
          f"{tag} one line when the tap left the namespace")
    check(re.search(rf"port 0: interface {tap} is back in mcfan's network namespace", out)
          is not None, f"{tag} one line when it came back")
    print(f"kernelsrc: {tag} kernel_packets {port['kernel_packets']}, ipackets "
          f"{port['ipackets']}, kernel_drops {port['kernel_drops']}, rx_packets "
          f"{port['rx_packets']}, rx_dropped {port['rx_dropped']}", flush=True)


def test_pcap_iface(lab):
    tag = "[net_pcap iface=]"
    cap_path = os.path.join(lab.dir, "snd-pcap.pcap")
    cap = test_kernel.sender_capture(lab, cap_path)
    if not check(cap is not None, f"{tag} tcpdump listens on the sending side"):
        return
    p, report = test_kernel.run_mcfan(lab, "pcapif", f"net_pcap0,iface={lab.vrcv}",
                                      "0@0,1@1,2@0", ["--rx-lcores", "1", "--worker-lcores", "2"])
    ok, lines = test_kernel.wait_running(p)
    if not check(ok, f"{tag} mcfan starts:\n{''.join(lines)}"):
        p.kill()
        test_kernel.capture_stop(cap)
        return
    send = lab.sh(f"lab_send {NGROUPS} {PCAP_COUNT} {LEN} {PCAP_PPS}", timeout=120)
    check_eq(send.returncode, 0, f"{tag} every iperf2 client ends well")
    time.sleep(1.0)
    rc, out, rep = test_kernel.stop_mcfan(p, report)
    check(test_kernel.capture_stop(cap), f"{tag} the sending side's capture lost nothing")
    wire = read_pcap(cap_path)
    check_eq(rc, 0, f"{tag} exit status:\n{out[-1500:]}")
    if not check(rep is not None and rep["ports"], f"{tag} JSON report"):
        return
    port = rep["ports"][0]
    sent = sum(w + 1 for w, _, _ in iperf_reports(lab).values())
    check_eq(port["kernel_source"], "pcap_stats", f"{tag} kernel_source")
    check_eq(port["interface"], lab.vrcv, f"{tag} the interface named")
    check_eq(port["kernel_drops"], port["imissed"], f"{tag} kernel_drops = imissed (ps_drop)")
    check_eq(port["kernel_packets"], port["ipackets"] + port["imissed"],
             f"{tag} kernel_packets = ipackets + imissed")
    check_eq(port["rx_packets"], len(wire), f"{tag} the interface's rx_packets = the wire")
    check_eq(len(wire), sent, f"{tag} the capture = iperf2's counts (writes + 1 per group)")
    check_eq(port["ipackets"] + port["kernel_drops"], len(wire),
             f"{tag} sent on the wire {len(wire)} = ipackets {port['ipackets']} + "
             f"kernel_drops {port['kernel_drops']}")
    check_eq(sum(g["frames"] for g in rep["groups"]), port["ipackets"],
             f"{tag} every frame libpcap passed on is a group frame, delivered")
    check_eq(port["kernel_queues"], [], f"{tag} no per-queue kernel counts (libpcap has none)")
    check(conservation(rep), f"{tag} conservation")
    line = kernel_line(out, "pcap_stats", lab.vrcv)
    check(line is not None and line[0] == port["kernel_packets"],
          f"{tag} the text report's line: {line}")
    print(f"kernelsrc: {tag} wire {len(wire)}, rx_packets {port['rx_packets']}, ipackets "
          f"{port['ipackets']}, imissed = kernel_drops {port['kernel_drops']}, group frames "
          f"{sent}", flush=True)


def runs(lab):
    test_tap(lab.dir)
    test_pcap_iface(lab)


def main():
    preflight(skip)
    run_lab("kernelsrc", runs)


if __name__ == "__main__":
    sys.exit(main())
