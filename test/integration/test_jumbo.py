#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Jumbo frames on net_af_packet with --mbuf-size (docs/guide.md "af_packet and the MTU").
Two network namespaces of the test's own joined by a veth pair of MTU 9000; a real sender
(a Python UDP socket in the sender's namespace, a bounded count) sends datagrams of 4,000
bytes to 239.9.9.1:3999 and of 8,000 bytes to 239.9.9.2:3999; mcfan receives them in the
other namespace with net_af_packet. Checks:

1. framesz=9216,blocksz=36864 and --mbuf-size 9184 (the remedy mcfan's MTU warning names
   for MTU 9000): no warning, every datagram counted in its group with its whole length
   (frames of 4,042 and 8,042 bytes), no drop, conservation;
2. the same with the pcap engine: each group's pcapng file holds every frame whole
   (tshark: frame.len and frame.cap_len 4,042 / 8,042);
3. the same framesz without --mbuf-size: refused before EAL, exit 2, the message naming
   the framesz that fits and --mbuf-size;
4. the default framesz: the start warning names framesz=9216,blocksz=36864 and
   --mbuf-size 9184 (run 1 shows that they work), the long frames count as truncated;
5. an MTU of 1500 and 2,000-byte datagrams (two IPv4 fragments each, reassembled by the
   kernel before the socket): with the default framesz the reassembled datagrams count as
   truncated and the exit says why; with framesz=3072,blocksz=12288 and --mbuf-size 3040 they are
   delivered whole.

Needs root, ip netns and tshark (else 77). Usage: test_jumbo.py MCFAN_BINARY"""

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import mcfantest as t
import netnstest

PID = os.getpid()
NS_RX = f"{t.PREFIX}-jmb-rx-{PID}"
NS_TX = f"{t.PREFIX}-jmb-tx-{PID}"
IF_RX, IF_TX = f"mcj{PID % 100000}r", f"mcj{PID % 100000}t"
ADDR_RX, ADDR_TX = "198.18.46.2", "198.18.46.1"
TMP = tempfile.mkdtemp(prefix="mcfan-jumbo-")
N = 25                                   # datagrams a group
SIZES = {"239.9.9.1": 4000, "239.9.9.2": 8000}
HDRS = 14 + 20 + 8                       # Ethernet, IPv4, UDP
JUMBO_DEV = f"net_af_packet0,iface={IF_RX},framesz=9216,blocksz=36864"

# the sender: one UDP socket in NS_TX, COUNT datagrams of each SIZE to its GROUP, 2 ms apart
SENDER = r"""
import socket, sys, time
src, count = sys.argv[1], int(sys.argv[2])
pairs = [(a.split("=")[0], int(a.split("=")[1])) for a in sys.argv[3:]]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
for i in range(count):
    for group, size in pairs:
        s.sendto(bytes([i % 256]) * size, (group, 3999))
    time.sleep(0.002)
"""


def ns(name, *cmd, **kw):
    return subprocess.run(["ip", "netns", "exec", name, *cmd], capture_output=True, text=True,
                          **kw)


def set_mtu(mtu):
    ns(NS_RX, "ip", "link", "set", IF_RX, "mtu", str(mtu))
    ns(NS_TX, "ip", "link", "set", IF_TX, "mtu", str(mtu))


def send(sizes):
    """Send N datagrams to each group of sizes (group -> bytes) from NS_TX; assert it ran."""
    r = ns(NS_TX, "timeout", "30", sys.executable, "-c", SENDER, ADDR_TX, str(N),
           *[f"{g}={s}" for g, s in sizes.items()], timeout=60)
    t.check_eq(r.returncode, 0, f"sender: {r.stderr.strip()[-300:]!r}")


def run(name, devargs, app, sizes):
    """mcfan in NS_RX on devargs with app options for 5 s; once it runs (or not at all when
    it refuses to start), the sender sends sizes. Returns (exit status, output, report)."""
    report = os.path.join(TMP, f"{name}.json")
    eal = t.eal_args(f"jmb-{name}", lcores="0-1", extra=["--vdev", devargs])
    cmd = ["ip", "netns", "exec", NS_RX, t.mcfan_path(), *eal, "--", "--groups",
           "239.9.9.1-2:3999", "--igmp", "off", "--mld", "off", "--duration", "5",
           "--report-json", report, *app]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         stdin=subprocess.DEVNULL)
    out = []
    end = time.monotonic() + 60
    while time.monotonic() < end:
        line = p.stdout.readline()
        if not line:
            break
        out.append(line)
        if "running:" in line:
            send(sizes)
            break
    try:
        rest, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        rest, _ = p.communicate()
    t.remove_runtime_dir(eal)
    return p.returncode, "".join(out) + rest, t.load_report(report)


def groups(rep):
    return {g["group"]: g for g in rep["groups"]}


def test_counted():
    rc, out, rep = run("count", JUMBO_DEV, ["--mbuf-size", "9184"], SIZES)
    t.check_eq(rc, 0, f"jumbo, --mbuf-size 9184: exit status ({out[-400:]!r})")
    t.check("ring frame (framesz)" not in out, f"framesz 9216 on MTU 9000: no warning "
            f"({out[-400:]!r})")
    t.check("mbufs of 9184 data bytes" in out, f"the pool line names the size ({out[:600]!r})")
    if not t.check(rep is not None, "jumbo: a report"):
        return
    g = groups(rep)
    for grp, size in SIZES.items():
        row = g.get(grp, {})
        t.check_eq(row.get("frames"), N, f"{grp} ({size}-byte datagrams): frames")
        t.check_eq(row.get("bytes"), N * (size + HDRS), f"{grp}: bytes, every frame whole")
    t.check_eq(sum(rep["drops"].values()), 0, f"no drop: {rep['drops']}")
    t.check_eq(rep["rx_frames"], 2 * N, "rx_frames: the datagrams and nothing else")
    t.check(t.conservation(rep), f"conservation: {rep['rx_frames']}")


def test_pcap():
    pdir = os.path.join(TMP, "pcap")
    os.mkdir(pdir)
    rc, out, rep = run("pcap", JUMBO_DEV, ["--mbuf-size", "9184", "--worker-engine",
                                           f"pcap:{pdir}"], SIZES)
    t.check_eq(rc, 0, f"jumbo to pcap: exit status ({out[-400:]!r})")
    for grp, size in SIZES.items():
        files = glob.glob(os.path.join(pdir, f"mcfan-{grp}_3999-w*.pcapng"))
        if not t.check_eq(len(files), 1, f"{grp}: one pcapng file ({os.listdir(pdir)})"):
            continue
        r = subprocess.run(["tshark", "-r", files[0], "-T", "fields", "-e", "frame.len",
                            "-e", "frame.cap_len"], capture_output=True, text=True)
        rows = [ln.split() for ln in r.stdout.splitlines() if ln.strip()]
        t.check_eq(r.returncode, 0, f"{grp}: tshark reads the file ({r.stderr[-200:]!r})")
        t.check_eq(len(rows), N, f"{grp}: frames in the file")
        want = str(size + HDRS)
        t.check(all(row == [want, want] for row in rows),
                f"{grp}: every frame whole, {want} bytes: {rows[:3]}")
    if t.check(rep is not None, "jumbo to pcap: a report"):
        t.check_eq(sum(rep["drops"].values()), 0, f"no drop: {rep['drops']}")


def test_refused():
    rc, out, rep = run("refused", JUMBO_DEV, [], {})
    t.check_eq(rc, 2, f"framesz 9216 without --mbuf-size: exit status ({out[-400:]!r})")
    t.check("framesz=9216 gives ring frames of 9184 data bytes, more than an mbuf of "
            "mcfan's pool holds (2048): give framesz=2080 or less, or a larger --mbuf-size "
            "(9184 or more, up to 65407)" in out, f"the refusal ({out[-400:]!r})")
    t.check("EAL:" not in out and rep is None, "refused before EAL, no report")


def test_advice():
    rc, out, rep = run("advice", f"net_af_packet0,iface={IF_RX}", [], SIZES)
    t.check_eq(rc, 0, f"MTU 9000, default framesz: exit status ({out[-400:]!r})")
    t.check(f"interface {IF_RX} has MTU 9000 but a 2048-byte ring frame (framesz) holds IP "
            "packets of at most 1968 bytes" in out and "give --vdev ...,framesz=9216,"
            "blocksz=36864 (frames of the MTU with a VLAN tag) and mcfan's --mbuf-size 9184"
            in out, "the warning names the framesz and --mbuf-size that work "
            f"({[ln for ln in out.splitlines() if 'framesz' in ln]!r})")
    if t.check(rep is not None, "default framesz: a report"):
        t.check_eq(rep["drops"]["truncated"], 2 * N, f"cut frames are truncated: "
                   f"{rep['drops']}")
        rep_text = out.split("==== mcfan report")[-1]
        t.check(f"port 0 (net_af_packet): {2 * N} frames truncated: longer than a 2048-byte "
                "ring frame (framesz) holds (IP packets of at most 1968 bytes)" in rep_text and
                "framesz=9216,blocksz=36864" in rep_text, "the report at exit says why frames "
                f"were truncated ({[ln for ln in rep_text.splitlines() if 'trunc' in ln]!r})")


def test_fragments():
    set_mtu(1500)
    try:
        frag = {"239.9.9.1": 2000}
        rc, out, rep = run("frag", f"net_af_packet0,iface={IF_RX}", [], frag)
        t.check_eq(rc, 0, f"fragments, default framesz: exit status ({out[-400:]!r})")
        if t.check(rep is not None, "fragments, default framesz: a report"):
            t.check_eq(rep["drops"]["truncated"], N, f"reassembled datagrams longer than a "
                       f"ring frame: truncated ({rep['drops']})")
            t.check_eq(rep["drops"]["fragment"], 0, "no fragment reaches the socket")
            k = rep["ports"][0]["kernel_reassembly"]
            t.check(k is not None and k["reassembled"] >= N and k["fragments"] >= 2 * N,
                    f"the kernel reassembled them: {k}")
            hint = [ln for ln in out.split("==== mcfan report")[-1].splitlines()
                    if "frames truncated" in ln]
            t.check(len(hint) == 1 and f"{N} frames truncated" in hint[0] and
                    "IPv4 datagrams the kernel reassembled from fragments" in hint[0] and
                    "--mbuf-size framesz - 32" in hint[0],
                    f"the exit says once why, and the remedy: {hint}")
        rc, out, rep = run("fragok", f"net_af_packet0,iface={IF_RX},framesz=3072,"
                           "blocksz=12288", ["--mbuf-size", "3040"], frag)
        t.check_eq(rc, 0, f"fragments, framesz 3072: exit status ({out[-400:]!r})")
        if t.check(rep is not None, "fragments, framesz 3072: a report"):
            row = groups(rep).get("239.9.9.1", {})
            t.check_eq(row.get("frames"), N, "reassembled datagrams delivered")
            t.check_eq(row.get("bytes"), N * (2000 + HDRS), "whole")
            t.check_eq(sum(rep["drops"].values()), 0, f"no drop: {rep['drops']}")
    finally:
        set_mtu(9000)


def main():
    if os.geteuid() != 0:
        print("jumbo: SKIP: needs root (network namespaces)")
        sys.exit(77)
    if shutil.which("tshark") is None:
        print("jumbo: SKIP: tshark missing")
        sys.exit(77)
    made = []
    try:
        for name in (NS_RX, NS_TX):
            if not netnstest.netns_add(name):
                print("jumbo: SKIP: cannot create a network namespace")
                sys.exit(77)
            made.append(name)
        if subprocess.run(["ip", "link", "add", IF_RX, "netns", NS_RX, "type", "veth", "peer",
                           "name", IF_TX, "netns", NS_TX]).returncode != 0:
            print("jumbo: SKIP: cannot create a veth pair")
            sys.exit(77)
        for name, ifname, addr in ((NS_RX, IF_RX, ADDR_RX), (NS_TX, IF_TX, ADDR_TX)):
            ns(name, "ip", "link", "set", ifname, "mtu", "9000", "up")
            ns(name, "ip", "addr", "add", f"{addr}/24", "dev", ifname)
            ns(name, "ip", "link", "set", "lo", "up")
        for name, fn in (("counted", test_counted), ("pcap", test_pcap),
                         ("refused", test_refused), ("advice", test_advice),
                         ("fragments", test_fragments)):
            if len(sys.argv) > 2 and name not in sys.argv[2:]:
                continue
            fn()
    finally:
        for name in made:
            subprocess.run(["ip", "netns", "del", name])
        shutil.rmtree(TMP, ignore_errors=True)
    t.finish("jumbo")


if __name__ == "__main__":
    main()
