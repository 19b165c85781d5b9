#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Kernel-side loss and multi-queue af_packet, in the lab (test/lab/lab.sh), with iperf2.

1. Overload: 10 iperf2 clients send more than mcfan can take (its RX lcore shares a CPU
   with a busy worker, and net_af_packet's ring holds 64 frames), so the kernel drops
   frames in the packet ring before the PMD sees them. tcpdump captures the sending side
   (outgoing frames of the sender's veth). Exact, per port:
     frames sent on the wire (the capture) = ipackets + kernel_drops = kernel_packets,
   the interface's rx_packets = the wire, iperf2's own counts = the capture's per group,
   and kernel_drops > 0 (the overload happened). The text report prints the same line.
2. qpairs=2: the kernel spreads the groups over both sockets (PACKET_FANOUT); mcfan polls
   both queues, receives every frame (ipackets = the wire), and reports both queues.
3. Frames queued at a clear stats: RX stopped from the console, N frames sent (the kernel
   counts them into the packet ring), clear stats, start: mcfan receives them after the
   clear, so ipackets = kernel_packets + N. `show port stats` prints the kernel line with
   the same caveat after it as the text report's line (docs/guide.md "Frames mcfan never
   sees").
4. IPv4 fragments: the PMD's sockets make the kernel reassemble before them. 4 datagrams
   of 1,800 bytes (2 fragments each) and 3 lone first fragments (MF set; their datagrams
   never complete; the receiver's net.ipv4.ipfrag_time is 1 s): the group gets the 4 whole
   datagrams, no frame counts as `fragment`, and the port's kernel_reassembly is exactly
   11 fragments in, 4 reassembled, 3 failed, in the JSON, the text report and show port
   stats, and /metrics (docs/guide.md "IPv4 fragments on net_af_packet").

Usage: test_kernel.py MCFAN_BINARY. Exit 77 (skip) when not root or without `ip netns`.
"""

import os
import re
import signal
import subprocess
import sys
import time

from labtest import McfanRun, preflight, run_lab
import mcfantest as t
from mcfantest import check, check_eq, conservation, mcfan_path
from test_lab import LEN, NGROUPS, PORT, iperf_reports, read_pcap, skip

OVER_COUNT, OVER_PPS = 3000, 6000   # per group: 10 x 6000 pps for 0.5 s
MQ_COUNT, MQ_PPS = 200, 1000
CLEAR_N, CLEAR_PPS = 100, 1000      # frames left in the packet ring at the clear
HERE = os.path.dirname(os.path.abspath(__file__))
# What follows the kernel line when kernel_packets != ipackets + kernel_drops
# (control/kernel.c, mcfan_kernel_caveat()): the report and show port stats alike.
CAVEAT = ("  (frames queued at the start or at a clear stats, received after it; "
          "frames in the kernel's ring not received yet; "
          "or arriving between the quit drain and the port's stop)")


def sender_capture(lab, path):
    """tcpdump on the sender's veth, outgoing frames only; returns the process once it
    listens."""
    p = subprocess.Popen(["ip", "netns", "exec", lab.snd, "timeout", "-s", "INT", "300",
                          "tcpdump", "-i", lab.vsnd, "-Q", "out", "-n", "-U", "-B", "32768",
                          "-s", "128", "-w", path], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    return p if "listening on" in line else None


def capture_stop(p):
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    m = re.search(r"(\d+) packets dropped by kernel", err or "")
    return m is None or int(m.group(1)) == 0


def run_mcfan(lab, name, vdev, lcores, app):
    report = os.path.join(lab.dir, f"report-{name}.json")
    eal = t.eal_lcores(lcores, f"mcfan-kern-{name}-{lab.id}", [vdev])
    cmd = ["ip", "netns", "exec", lab.rcv, mcfan_path(), *eal, "--",
           "--groups", f"239.9.9.1-{NGROUPS}:{PORT}", "--report-json", report, *app]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, text=True)
    return p, report


def wait_running(p, timeout=30):
    lines = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "running:" in line:
            return True, lines
    return False, lines


def stop_mcfan(p, report):
    p.send_signal(signal.SIGINT)
    out = t.communicate_or_kill(p, 30)
    return p.returncode, out, t.load_report(report)


def one_run(lab, name, vdev, lcores, app, count, pps):
    tag = f"[{name}]"
    cap_path = os.path.join(lab.dir, f"snd-{name}.pcap")
    cap = sender_capture(lab, cap_path)
    if not check(cap is not None, f"{tag} tcpdump listens on the sending side"):
        return None
    p, report = run_mcfan(lab, name, vdev, lcores, app)
    ok, lines = wait_running(p)
    if not check(ok, f"{tag} mcfan starts:\n{''.join(lines)}"):
        p.kill()
        capture_stop(cap)
        return None
    send = lab.sh(f"lab_send {NGROUPS} {count} {LEN} {pps}", timeout=120)
    check_eq(send.returncode, 0, f"{tag} every iperf2 client ends well")
    time.sleep(1.0)   # the PMD reads what is left in its ring
    rc, out, rep = stop_mcfan(p, report)
    check(capture_stop(cap), f"{tag} the sending side's capture lost nothing")
    wire = read_pcap(cap_path)
    check_eq(rc, 0, f"{tag} mcfan exit status:\n{out[-2000:]}")
    if not check(rep is not None and rep["ports"], f"{tag} JSON report"):
        return None
    port = rep["ports"][0]
    iperf = iperf_reports(lab)
    sent = sum(w + 1 for w, _, _ in iperf.values())   # + the end-of-test datagram
    group_wire = sum(1 for f, _ in wire if len(f) >= 34 and f[30:33] == bytes([239, 9, 9]))
    check_eq(group_wire, sent, f"{tag} iperf2's counts (writes + 1 per group) = the capture's")
    check_eq(port["kernel_source"], "packet_statistics", f"{tag} kernel counters found")
    check_eq(port["ipackets"] + port["kernel_drops"], len(wire),
             f"{tag} sent on the wire {len(wire)} = ipackets {port['ipackets']} + "
             f"kernel_drops {port['kernel_drops']}")
    check_eq(port["kernel_packets"], port["ipackets"] + port["kernel_drops"],
             f"{tag} kernel_packets = ipackets + kernel_drops")
    check_eq(port["rx_packets"], len(wire), f"{tag} the interface's rx_packets = the wire")
    check_eq(sum(q["kernel_drops"] for q in port["kernel_queues"]), port["kernel_drops"],
             f"{tag} the queues' drops add up")
    check(conservation(rep), f"{tag} conservation")
    check_eq(port["ipackets"], rep["rx_frames"], f"{tag} ipackets = rx_frames")
    m = re.search(r"port 0 kernel \(packet_statistics, \S+\): reached the socket (\d+) = "
                  r"ipackets (\d+) \+ kernel_drops (\d+)\n", out)
    check(m is not None and int(m.group(1)) == len(wire),
          f"{tag} the text report's kernel line: {m.group(0) if m else out[-1500:]}")
    print(f"kernel: {tag} wire {len(wire)}, ipackets {port['ipackets']}, kernel_drops "
          f"{port['kernel_drops']}, queues {port['kernel_queues']}", flush=True)
    return rep


def kernel_lines(text, head):
    """Every kernel line of port 0 in text whose start matches head (a regex: "port 0 " for
    the report's, " +" for show port stats'): [(reached, ipackets, kernel_drops, the rest of
    the line)]."""
    out = []
    for m in re.finditer(r"(?m)^" + head + r"kernel \(packet_statistics, \S+\): "
                         r"reached the socket (\d+)(?: = |; )ipackets (\d+) \+ "
                         r"kernel_drops (\d+)(.*)$", text):
        k, i, d, rest = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)
        # never a false '=': equal sides as K = I + D, else both sides and the difference
        if k == i + d:
            check(" = ipackets" in m.group(0) and not rest.startswith(" ="),
                  f"kernel line with equal sides as an equation: {m.group(0)!r}")
        else:
            want = (f" = {i + d}, {abs(i + d - k)} {'more' if i + d > k else 'fewer'} than "
                    f"reached the socket")
            check(f"reached the socket {k}; ipackets" in m.group(0) and rest.startswith(want),
                  f"kernel line with unequal sides: {want!r} in {m.group(0)!r}")
            rest = rest[len(want):]
        out.append((k, i, d, rest))
    return out


def console_mcfan(lab, name, extra=()):
    """mcfan with its console on the lab's af_packet port: RX lcore 1, worker lcore 2."""
    return McfanRun(lab.rcv, f"mcfan-kern-{name}-{lab.id}", "0@0,1@1,2@1", lab.af_packet(),
                    ["--groups", f"239.9.9.1-{NGROUPS}:{PORT}", "--rx-lcores", "1",
                     "--worker-lcores", "2", *extra], lab.dir, name, console=True)


METRICS_PORT = 9464   # in the receiver's namespace, on its own loopback
# Run in the receiver's namespace: print the /metrics page
SCRAPE = ("import sys, urllib.request; sys.stdout.write(urllib.request.urlopen("
          "sys.argv[1], timeout=10).read().decode())")


def console_case(lab, name, tag, during, text, extra=()):
    """console_mcfan(lab, name, extra); once it runs, during(run), then show port stats
    typed into its console (waiting for text) and mcfan stopped; its exit status and JSON
    report checked. Returns (its whole output, the report, the report's port 0) or None."""
    run = console_mcfan(lab, name, extra)
    try:
        if not check(run.wait_running(), f"{tag} mcfan starts:\n{run.output()}"):
            return None
        during(run)
        run.say("show port stats")
        check(run.wait_for(text, 20), f"{tag} show port stats")
        rc, rep = run.stop()
    finally:
        run.kill()
    out = run.output()
    check_eq(rc, 0, f"{tag} exit status:\n{out[-2000:]}")
    if not check(rep is not None and rep["ports"], f"{tag} JSON report"):
        return None
    return out, rep, rep["ports"][0]


def queued_at_clear(lab):
    """Frames queued in the packet ring at a clear stats: the console's show port stats
    says the report's caveat under the same condition."""
    tag = "[queued at clear stats]"

    def during(run):
        run.say("stop")
        check(run.wait_for("RX stopped", 20), f"{tag} stop")
        send = subprocess.run(["ip", "netns", "exec", lab.snd, "timeout", "60",
                               sys.executable, os.path.join(HERE, "test_idle.py"),
                               "--raw-send", lab.vsnd, str(CLEAR_N), str(CLEAR_PPS)],
                              capture_output=True, text=True, timeout=90)
        check_eq(send.returncode, 0, f"{tag} raw sender: {send.stderr}")
        time.sleep(0.3)       # the control tick reads the sockets' statistics
        run.say("clear stats")
        check(run.wait_for("statistics cleared", 20), f"{tag} clear stats")
        run.say("start")
        check(run.wait_for("RX started", 20), f"{tag} start")
        time.sleep(1.0)       # the PMD reads what waited in its ring

    got = console_case(lab, "clear", tag, during, "reached the socket")
    if got is None:
        return
    out, rep, port = got
    check_eq((port["ipackets"] - port["kernel_packets"], port["kernel_drops"]), (CLEAR_N, 0),
             f"{tag} the kernel counted {CLEAR_N} frames before the clear, mcfan received "
             f"them after it: ipackets {port['ipackets']}, kernel_packets "
             f"{port['kernel_packets']}")
    console, report = out.split("==== mcfan report", 1) if "==== mcfan report" in out \
        else (out, "")
    shown = kernel_lines(console, " +")
    check(len(shown) == 1 and shown[0][1] - shown[0][0] == CLEAR_N and shown[0][2] == 0 and
          shown[0][3] == CAVEAT,
          f"{tag} show port stats: the kernel line with the report's caveat: {shown}")
    line = kernel_lines(report, "port 0 ")
    check_eq([x[3] for x in line], [CAVEAT], f"{tag} the text report's line: {line}")


FRAG_WHOLE, FRAG_LONE, FRAG_LEN = 4, 3, 1800
# Run in the sender's namespace: FRAG_WHOLE datagrams of FRAG_LEN bytes to 239.9.9.1 (the
# kernel fragments them, 2 each at an MTU of 1,500), then FRAG_LONE first fragments (MF set,
# offset 0) of datagrams whose other fragments never come, through a packet socket.
FRAG_SENDER = r"""
import socket, struct, sys
whole, lone, size, ifname, src_ip, port = sys.argv[1:7]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src_ip))
for _ in range(int(whole)):
    s.sendto(b"y" * int(size), ("239.9.9.1", int(port)))
def csum(b):
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    t = (t >> 16) + (t & 0xffff)
    return ~(t + (t >> 16)) & 0xffff
p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
p.bind((ifname, 0))
mac = p.getsockname()[4]
for i in range(int(lone)):
    udp = struct.pack("!HHHH", 5000, int(port), 8 + 1000, 0) + b"z" * 992
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0x4000 + i, 0x2000, 1, 17, 0,
                     socket.inet_aton(src_ip), socket.inet_aton("239.9.9.1"))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    p.send(bytes.fromhex("01005e090901") + mac + b"\x08\x00" + ip + udp)
"""


def fragments(lab):
    """IPv4 fragments on net_af_packet: reassembled by the kernel before the socket; the
    namespace's reassembly counters in the report and show port stats."""
    tag = "[fragments]"
    sysctl = subprocess.run(["ip", "netns", "exec", lab.rcv, "sysctl", "-qw",
                             "net.ipv4.ipfrag_time=1"], capture_output=True, text=True)
    check_eq(sysctl.returncode, 0, f"{tag} ipfrag_time 1 s in the receiver's namespace: "
             f"{sysctl.stderr}")
    page = []

    def during(run):
        send = subprocess.run(["ip", "netns", "exec", lab.snd, "timeout", "60",
                               sys.executable, "-c", FRAG_SENDER, str(FRAG_WHOLE),
                               str(FRAG_LONE), str(FRAG_LEN), lab.vsnd, "198.18.0.1",
                               str(PORT)], capture_output=True, text=True, timeout=90)
        check_eq(send.returncode, 0, f"{tag} sender: {send.stderr}")
        time.sleep(2.5)       # the lone fragments' reassembly times out (1 s)
        scrape = subprocess.run(["ip", "netns", "exec", lab.rcv, sys.executable, "-c", SCRAPE,
                                 f"http://127.0.0.1:{METRICS_PORT}/metrics"],
                                capture_output=True, text=True, timeout=30)
        check_eq(scrape.returncode, 0, f"{tag} /metrics scraped: {scrape.stderr[-300:]}")
        page.append(scrape.stdout)

    got = console_case(lab, "frag", tag, during, "reassemblies failed",
                       ["--metrics-listen", f"127.0.0.1:{METRICS_PORT}"])
    if got is None:
        return
    out, rep, port = got
    page = "".join(page)
    whole_frags = 2 * FRAG_WHOLE
    check_eq(port["kernel_reassembly"], {"fragments": whole_frags + FRAG_LONE,
                                         "reassembled": FRAG_WHOLE, "failed": FRAG_LONE},
             f"{tag} kernel_reassembly")
    for name, want in (("mcfan_port_kernel_reassembly_fragments_total", whole_frags + FRAG_LONE),
                       ("mcfan_port_kernel_reassembled_datagrams_total", FRAG_WHOLE),
                       ("mcfan_port_kernel_reassembly_failed_datagrams_total", FRAG_LONE)):
        m = re.search(r"(?m)^" + name + r'\{port="0"\} (\d+)$', page)
        check(m is not None and int(m.group(1)) == want,
              f"{tag} /metrics {name} = {want}: {m.group(0) if m else page[-600:]}")
    g1 = [g for g in rep["groups"] if g["group"] == "239.9.9.1"]
    check(len(g1) == 1 and g1[0]["frames"] == FRAG_WHOLE and
          g1[0]["bytes"] == FRAG_WHOLE * (14 + 20 + 8 + FRAG_LEN),
          f"{tag} the group got the {FRAG_WHOLE} whole datagrams: {g1}")
    check_eq((rep["drops"]["fragment"], rep["drops"]["truncated"]), (0, 0),
             f"{tag} no frame counted as a fragment or truncated")
    check(port["rx_packets"] >= whole_frags + FRAG_LONE,
          f"{tag} the interface counted every fragment: rx_packets {port['rx_packets']}")
    check(conservation(rep), f"{tag} conservation")
    line = (f"kernel: IPv4 fragments reassembled by the kernel before the socket (the network "
            f"namespace's counts): {whole_frags + FRAG_LONE} fragments in, {FRAG_WHOLE} "
            f"datagrams reassembled, {FRAG_LONE} reassemblies failed (their fragments never "
            f"reach mcfan)\n")
    console, report = out.split("==== mcfan report", 1) if "==== mcfan report" in out \
        else (out, "")
    check("       " + line in console, f"{tag} show port stats says it: {console[-1500:]}")
    check("port 0 " + line in report, f"{tag} the text report says it: {report[-3000:]}")


def runs(lab):
    # RX lcore 1 and a worker both busy on CPU 1: the RX lcore gets half of it
    rep = one_run(lab, "overload", lab.af_packet(framecnt=64),
                  "0@0,1@1,2@1", ["--rx-lcores", "1", "--worker-lcores", "2"],
                  OVER_COUNT, OVER_PPS)
    if rep is not None:
        check(rep["ports"][0]["kernel_drops"] > 0,
              "[overload] the kernel dropped frames (more than the lcores could take)")
    rep = one_run(lab, "qpairs2", lab.af_packet(qpairs=2),
                  "0@0,1@1,2@1", ["--rx-lcores", "1", "--worker-lcores", "2"],
                  MQ_COUNT, MQ_PPS)
    if rep is not None:
        port = rep["ports"][0]
        check_eq(port["rx_queues"], 2, "[qpairs2] both RX queues configured")
        check_eq(len(port["kernel_queues"]), 2, "[qpairs2] both sockets followed")
        check(all(q["kernel_packets"] > 0 for q in port["kernel_queues"]),
              f"[qpairs2] the kernel used both queues: {port['kernel_queues']}")
        check_eq(port["kernel_drops"], 0, "[qpairs2] no kernel drop at this rate")
        check_eq(sum(g["frames"] for g in rep["groups"]), NGROUPS * (MQ_COUNT + 1),
                 "[qpairs2] every group frame received, from both queues")
    queued_at_clear(lab)
    fragments(lab)


def main():
    preflight(skip)
    run_lab("kernel", runs)


if __name__ == "__main__":
    sys.exit(main())
