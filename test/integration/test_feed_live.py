#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Feed quality (docs/feed.md) on datagrams a real UDP socket sends: a network namespace of
this test's own (PREFIX-fq-PID, PREFIX from MCFAN_TEST_PREFIX), a veth pair whose one end is
in it (198.18.45.1/24, a multicast route 224.0.0.0/4 out of it) and whose other end mcfan
receives with net_af_packet; the sender is this file again (--send) run in the namespace,
paced, bounded in count.

Case left: `--seq GROUP=0:4:be`, numbers 1..200 with 101..105 missing, then the console's
`show feed` (lost 5), `leave GROUP`, `quit`: the report keeps the left group's feed results,
in the JSON (groups[] of the left row: feed with expected 200, received 195, lost 5, its gap
event 101..105) and in the text's feed-quality table, the row marked "(left at T s)". Before,
both were gone once the group was left.
Case moldudp64: 50 datagrams of 32 bytes whose header says 500 messages (one 4-byte message
in them: 500 cannot fit) are malformed, the kind suspect (JSON kind_suspect true, the text
report's warning); a real iperf2 client's datagrams read as moldudp64 likewise. Before:
expected and received 25,000, malformed 0, no warning (iperf2: expected and received some
30,000 for 200 datagrams).
Needs root and iperf (else 77).
Usage: test_feed_live.py MCFAN_BINARY"""

import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

import mcfantest as t

NS = f"{t.PREFIX}-fq-{os.getpid()}"
IF_A = f"fq{os.getpid() % 100000}a"     # mcfan's end (this namespace)
IF_B = f"fq{os.getpid() % 100000}b"     # the sender's end (NS)
SRC = "198.18.45.1"
PORT = 4000
TMP = None                              # main(): the reports' directory


def send_main(group, port, kind, count, pps):
    """--send: count datagrams of kind to group:port from a UDP socket, pps a second."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 4)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(SRC))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    pace = t.Pacer(pps)
    for i in range(count):
        if kind == "be32":              # numbers 1..count, 101..105 left out
            seq = i + 1
            if 101 <= seq <= 105:
                continue
            data = struct.pack("!I", seq) + b"s" * 28
        elif kind == "moldbad":         # header count 500, one 4-byte message, 32 bytes
            data = (b"LIVETEST01" + struct.pack("!QH", 1 + 500 * i, 500) +
                    struct.pack("!H", 4) + b"msg1" + b"\0" * 6)
        else:
            raise SystemExit(f"--send: unknown kind {kind}")
        s.sendto(data, (group, port))
        pace.wait()
    s.close()
    return 0


def ns(*cmd, **kw):
    return subprocess.run(["ip", "netns", "exec", NS, *cmd], **kw)


def setup():
    """The namespace, the veth pair and the temporary directory; None, or why not."""
    global TMP
    TMP = tempfile.mkdtemp(prefix="mcfan-feedlive-")
    if subprocess.run(["ip", "netns", "add", NS]).returncode != 0:
        return "cannot create a network namespace"
    why = t.veth_pair(IF_A, IF_B, up=True)
    if why is not None:
        return why
    subprocess.run(["ip", "link", "set", IF_B, "netns", NS], check=True)
    ns("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", capture_output=True)
    ns("ip", "link", "set", "lo", "up", check=True)
    ns("ip", "link", "set", IF_B, "up", check=True)
    ns("ip", "addr", "add", f"{SRC}/24", "dev", IF_B, check=True)
    ns("ip", "route", "add", "224.0.0.0/4", "dev", IF_B, check=True)
    return None


def cleanup():
    subprocess.run(["ip", "link", "del", IF_A], capture_output=True)
    subprocess.run(["ip", "netns", "del", NS], capture_output=True)
    if TMP is not None:
        shutil.rmtree(TMP, ignore_errors=True)


def send(group, kind, count, pps=2000):
    r = ns("timeout", "30", sys.executable, os.path.abspath(__file__), "--send", group,
           str(PORT), kind, str(count), str(pps), capture_output=True, text=True, timeout=60)
    t.check_eq(r.returncode, 0, f"sender in {NS}: {r.stderr[-500:]}")


def iperf_send(group, seconds):
    """A real iperf2 client in the namespace: UDP to group:PORT, 1470-byte datagrams at
    1 Mbit/s (about 85 a second) for seconds, TTL 4."""
    r = ns("timeout", "30", "iperf", "-c", group, "-u", "-p", str(PORT), "-B", SRC, "-T", "4",
           "-b", "1M", "-t", str(seconds), capture_output=True, text=True, timeout=60)
    t.check_eq(r.returncode, 0, f"iperf client in {NS}: {r.stdout[-300:]} {r.stderr[-300:]}")


def start(name, app):
    report = os.path.join(TMP, f"report-{name}.json")
    eal = t.eal_args(f"fl{name}") + ["--vdev", f"net_af_packet0,iface={IF_A}"]
    p = subprocess.Popen([t.mcfan_path(), *eal, "--", *app, "-i", "--duration", "60",
                          "--report-json", report], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in p.stderr:  # the run is up (stderr then drained by communicate)
        if "running:" in line:
            break
    return p, eal, report


def console(p, line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def finish(p, eal, report):
    try:
        out, err = p.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    t.remove_runtime_dir(eal)
    return p.returncode, out, err, t.load_report(report)


def feed_rows(text):
    """The text report's feed-quality rows: {group: (expected, received, lost, rest)}."""
    m = re.search(r"\nfeed quality \(docs/feed\.md\):\n.*\n((?:  \S+ .*\n)*)", text)
    rows = {}
    for ln in (m.group(1).splitlines() if m else []):
        f = ln.split()
        if len(f) >= 5 and f[2].isdigit():
            rows[f[0]] = (int(f[2]), int(f[3]), int(f[4]), ln)
    return rows


def case_left():
    g = "239.44.0.11"
    p, eal, report = start("left", ["--groups", f"{g}:{PORT}", "--seq", f"{g}:{PORT}=0:4:be"])
    send(g, "be32", 200)
    time.sleep(0.5)             # received, and the 100 ms window settled the gap
    console(p, "show feed")
    time.sleep(0.3)
    console(p, f"leave {g}:{PORT}")
    time.sleep(0.3)
    console(p, "quit")
    rc, out, err, rep = finish(p, eal, report)
    t.check_eq(rc, 0, f"[left] exit status ({err.strip()[-400:]!r})")
    cut = out.find("==== mcfan report")
    t.check(re.search(rf"{re.escape(g)}:{PORT}\s+0:4:be\s+\d+\s+200\s+195\s+5\s", out[:cut])
            is not None, f"[left] show feed before the leave: expected 200 received 195 lost 5:"
            f" {out[:cut][-1200:]!r}")
    if not t.check(rep is not None, "[left] JSON report written"):
        return
    rows = [(x["group"], x["left"], x["frames"]) for x in rep["groups"]]
    t.check_eq(rows, [(g, True, 195)], "[left] JSON groups: the left row, its frames")
    f = rep["groups"][0].get("feed") if rep["groups"] else None
    if t.check(f is not None, f"[left] JSON: the left group's row keeps its feed: "
               f"{rep['groups']}"):
        for k, v in {"kind": "0:4:be", "datagrams": 195, "expected": 200, "received": 195,
                     "lost": 5, "pending": 0, "duplicates": 0, "reordered": 0, "gaps": 1,
                     "malformed": 0, "kind_suspect": False}.items():
            t.check_eq(f.get(k), v, f"[left] JSON left group's feed.{k}")
        t.check_eq([(e["first"], e["last"], e["lost"]) for e in f.get("gap_log", [])],
                   [(101, 105, 5)], "[left] JSON left group's gap_log")
    rows = feed_rows(out[cut:])
    row = rows.get(f"{g}:{PORT}")
    if t.check(row is not None, f"[left] the text report's feed table has the left group: "
               f"{out[cut:][-2500:]!r}"):
        t.check_eq(row[:3], (200, 195, 5), "[left] text feed row: expected, received, lost")
        t.check(re.search(r"\(left at \d+\.\d\d s\)$", row[3]) is not None,
                f"[left] text feed row marked left: {row[3]!r}")


def case_moldudp64():
    g1, g2 = "239.44.0.3", "239.44.0.4"
    p, eal, report = start("mold", ["--groups", f"{g1}-4:{PORT}",
                                    "--seq", f"{g1}-4:{PORT}=moldudp64"])
    send(g1, "moldbad", 50)
    iperf_send(g2, 2)
    time.sleep(0.5)
    console(p, "quit")
    rc, out, err, rep = finish(p, eal, report)
    t.check_eq(rc, 0, f"[mold] exit status ({err.strip()[-400:]!r})")
    if not t.check(rep is not None, "[mold] JSON report written"):
        return
    feeds = {x["group"]: x.get("feed") for x in rep["groups"]}
    frames = {x["group"]: x["frames"] for x in rep["groups"]}
    t.check_eq(frames.get(g1), 50, f"[mold] {g1}: every datagram sent received")
    t.check(frames.get(g2, 0) >= 100, f"[mold] {g2}: iperf2's datagrams received: {frames}")
    for grp, n in ((g1, 50), (g2, frames.get(g2, 0))):
        f = feeds.get(grp)
        if not t.check(f is not None, f"[mold] {grp}: a feed object"):
            continue
        t.check_eq((f["datagrams"], f["malformed"], f["expected"], f["received"],
                    f["kind_suspect"]), (n, n, 0, 0, True),
                   f"[mold] {grp}: every datagram malformed (a count that does not fit), "
                   "the kind suspect")
        t.check(f"warning: {grp}:{PORT}: {n} of {n} datagrams did not parse as moldudp64 "
                "(malformed): is its --seq kind right?" in out,
                f"[mold] {grp}: the text report warns: {out[-1500:]!r}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--send":
        a = sys.argv[2:]
        sys.exit(send_main(a[0], int(a[1]), a[2], int(a[3]), int(a[4])))
    if os.geteuid() != 0 or shutil.which("iperf") is None:
        print("feed_live: needs root (a network namespace) and iperf, skipping")
        sys.exit(77)
    why = setup()
    try:
        if why is not None:
            print(f"feed_live: {why}, skipping")
            cleanup()
            sys.exit(77)
        case_left()
        case_moldudp64()
    finally:
        cleanup()
    t.finish("feed_live")


if __name__ == "__main__":
    main()
