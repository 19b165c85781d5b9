#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The report after `leave` and after `clear stats`, typed into the real console (-i, a pipe),
with exact frame counts: a veth pair (198.18.0.0/15 frames, IPv6 off), net_af_packet on one
end, frames sent into the other with an AF_PACKET socket between the console lines.
Case leave: N_A frames to group A and N_B to B, `leave B`, M more to A and K to B (now
unknown_group), `join B` again, R to B, `quit`: the report's groups are A (N_A + M), B left
(N_B, its leave's time) and B joined again (R), text and JSON; the rows sum to the delivered
frames and copies exactly.
Case clear: F frames, `clear stats`, K frames, `quit` (worker engine pcap): the frame
counters, the pcap engine's counters (report and `show engines`) and the report's duration
all start at the clear.
Case fold: 1022 groups joined, left, joined again and left again: 1024 left rows kept, the
1020 oldest beyond them summed into groups_left_folded with their frames.
Needs root (else 77).
Usage: test_leave_report.py MCFAN_BINARY"""

import atexit
import os
import re
import shutil
import subprocess
import tempfile
import time

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-leave-")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
IF_A, IF_B = f"mcflr{os.getpid() % 10000}a", f"mcflr{os.getpid() % 10000}b"
GA, GB = "239.9.9.1", "239.9.9.2"
PORT = 3999


def ip(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True)


def start(name, extra=()):
    report = os.path.join(TMP, f"report-{name}.json")
    eal = t.eal_args(f"lr{name}{os.getpid()}") + ["--vdev", f"net_af_packet0,iface={IF_A}"]
    cmd = [t.mcfan_path(), *eal, "--", "--groups", f"{GA}-2:{PORT}", "-i",
           "--duration", "60", "--report-json", report, *extra]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    for line in p.stderr:  # wait for the run (stderr then drained by communicate)
        if "running:" in line:
            return p, eal, report
    t.check(False, f"[{name}] mcfan runs")
    return p, eal, report


def console(p, line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def send(group, count):
    t.packet_send(IF_B, [t.udp4_frame(group, PORT, data=b"l" * 100)], count, 0.001)
    time.sleep(0.4)  # received and counted before the next console line


def finish(p, eal, report):
    try:
        out, err = p.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    t.remove_runtime_dir(eal)
    return p.returncode, out, err, t.load_report(report)


def text_groups(out):
    """The text report's group rows: [(group, frames, copies, left marker or None)]."""
    rows = []
    m = re.search(r"\ngroups \(joined, then left: every row since the (start|clear stats)\):\n"
                  r".*?\n((?:  \S+ .*\n)*)", out)
    if m is None:
        return None
    for ln in m.group(2).splitlines():
        f = ln.split()
        left = re.search(r"\(left at (\d+\.\d\d) s\)", ln)
        rows.append((f[0], int(f[3]), int(f[4]), left.group(1) if left else None))
    return rows


def case_leave():
    na, nb, m, k, r = 30, 20, 15, 5, 7
    p, eal, report = start("leave")
    send(GA, na)
    send(GB, nb)
    console(p, f"leave {GB}:{PORT}")
    time.sleep(0.3)
    send(GA, m)
    send(GB, k)
    console(p, f"join {GB}:{PORT}")
    time.sleep(0.3)
    send(GB, r)
    console(p, "show groups")
    console(p, "quit")
    rc, out, err, rep = finish(p, eal, report)
    t.check_eq(rc, 0, f"[leave] exit status ({err.strip()[-300:]!r})")
    t.check(f"left {GB}:{PORT}: its frames count as unknown_group from now on" in out,
            "[leave] the console says what leave did")
    if not t.check(rep is not None, "[leave] JSON report written"):
        return
    t.check(t.conservation(rep), "[leave] conservation")
    t.check_eq(rep["rx_frames"], na + nb + m + k + r, "[leave] rx_frames: every frame sent")
    t.check_eq(rep["drops"]["unknown_group"], k, "[leave] B's frames while left: unknown_group")
    rows = [(g["group"], g["left"], g["frames"], g["copies"]) for g in rep["groups"]]
    t.check_eq(rows, [(GA, False, na + m, na + m), (GB, False, r, r), (GB, True, nb, nb)],
               "[leave] JSON groups: A, B joined again, B left (its own row)")
    t.check_groups_sum(rep, "[leave] JSON")
    left = [g for g in rep["groups"] if g["left"]]
    t.check(len(left) == 1 and 0 < left[0]["left_at_s"] < rep["run_duration_s"],
            f"[leave] left_at_s within the run: {left}")
    t.check(all(g["left_at_s"] is None for g in rep["groups"] if not g["left"]),
            "[leave] joined groups: left_at_s null")
    t.check_eq(rep["groups_left_folded"], {"groups": 0, "frames": 0, "copies": 0,
                                           "copy_drops": 0, "bytes": 0},
               "[leave] nothing folded")
    tg = text_groups(out)
    if t.check(tg is not None, "[leave] text report's groups table"):
        t.check_eq([(g, fr, c, lt is not None) for g, fr, c, lt in tg],
                   [(GA, na + m, na + m, False), (GB, r, r, False), (GB, nb, nb, True)],
                   "[leave] text groups: A, B, B (left at ...)")
    t.check(re.search(r"==== mcfan report after \d+\.\d\d s: fan-out partition, groups 2 "
                      r"\(left 1\),", out) is not None, "[leave] text header: groups 2 (left 1)")


def case_clear():
    f, k = 40, 12
    capdir = os.path.join(TMP, "cap")
    os.mkdir(capdir)
    p, eal, report = start("clear", ["--worker-engine", f"pcap:{capdir}"])
    send(GA, f)
    time.sleep(0.6)
    console(p, "clear stats")
    time.sleep(0.3)
    send(GA, k)
    time.sleep(0.5)
    console(p, "show engines")
    console(p, "quit")
    rc, out, err, rep = finish(p, eal, report)
    t.check_eq(rc, 0, f"[clear] exit status ({err.strip()[-300:]!r})")
    if not t.check(rep is not None, "[clear] JSON report written"):
        return
    t.check_eq(rep["rx_frames"], k, "[clear] rx_frames since the clear")
    t.check_eq([(g["group"], g["frames"]) for g in rep["groups"]], [(GA, k), (GB, 0)],
               "[clear] groups since the clear")
    ca = rep["cleared_at_s"]
    t.check(ca is not None and 0.5 < ca < rep["run_duration_s"], f"[clear] cleared_at_s {ca}")
    t.check(abs(rep["run_duration_s"] - ca - rep["duration_s"]) < 0.01,
            f"[clear] duration_s {rep['duration_s']} = run {rep['run_duration_s']} - clear {ca}")
    workers = [lc for lc in rep["lcores"] if "worker" in lc["role"]]
    ec = workers[0].get("engine_counters", {}) if workers else {}
    t.check_eq(ec.get("pcap_written"), k, "[clear] pcap_written since the clear")
    t.check_eq(ec.get("pcap_files"), 0, "[clear] pcap_files: none opened since the clear")
    files = [os.path.join(capdir, x) for x in os.listdir(capdir)]
    size = sum(os.path.getsize(x) for x in files)
    # every block of a frame has the same size e: the file is its header blocks and f + k of
    # them, pcap_bytes since the clear k of them
    pb = ec.get("pcap_bytes", 0)
    e = pb // k
    t.check(pb > 0 and pb % k == 0 and 0 < size - (f + k) * e < 512,
            f"[clear] pcap_bytes since the clear: {pb} = {k} blocks of the file's {f + k} "
            f"({size} bytes with its header)")
    m = re.search(r"==== mcfan report after (\d+\.\d\d) s since clear stats at (\d+\.\d\d) s "
                  r"\(run (\d+\.\d\d) s\):", out)
    t.check(m is not None, "[clear] text header: since clear stats at T (run D)")
    t.check(re.search(rf"\nengine pcap on lcore \d+: pcap_written {k} ", out) is not None,
            "[clear] text engine line: pcap_written since the clear")
    t.check(re.search(rf"pcap_written {k} pcap_full 0 .* pcap_files 0 pcap_bytes {pb}\n",
                      out[:out.find("==== mcfan report")]) is not None,
            f"[clear] show engines: the counters since the clear, as the report's "
            f"({out[:out.find('==== mcfan report')][-600:]!r})")


def case_fold():
    many = "239.10.0.0-239.10.3.253"  # 1022 groups: with A and B every counter slot
    g1, n1, n2 = "239.10.0.1", 9, 4
    p, eal, report = start("fold")
    console(p, f"join {many}:{PORT}")
    time.sleep(0.5)
    send(g1, n1)
    console(p, f"leave {many}:{PORT}")
    time.sleep(1.0)  # the slots drain on the control tick, then a join may reuse them
    console(p, f"join {many}:{PORT}")
    time.sleep(0.5)
    send(g1, n2)
    console(p, f"leave {many}:{PORT}")
    time.sleep(0.5)
    console(p, "quit")
    rc, out, err, rep = finish(p, eal, report)
    t.check_eq(rc, 0, f"[fold] exit status ({err.strip()[-300:]!r})")
    t.check_eq(out.count("joined 239.10.0.0:3999 .. 239.10.3.253:3999 (1022 groups)"), 2,
               f"[fold] both joins of 1022 groups done ({out[-400:]!r})")
    if not t.check(rep is not None, "[fold] JSON report written"):
        return
    left = [g for g in rep["groups"] if g["left"]]
    t.check_eq(len(left), 1024, "[fold] 1024 left rows kept")
    t.check_eq(rep["groups_left_folded"], {"groups": 1020, "frames": n1, "copies": n1,
                                           "copy_drops": 0, "bytes": n1 * 142},
               "[fold] the 1020 oldest left rows folded, 239.10.0.1's first membership in them")
    t.check_eq([(g["group"], g["frames"]) for g in left if g["group"] == g1], [(g1, n2)],
               "[fold] 239.10.0.1's second membership kept as a row")
    fo = rep["groups_left_folded"]
    t.check_eq(sum(g["frames"] for g in rep["groups"]) + fo["frames"],
               rep["delivered_frames"] + rep["drops"]["ring_full"],
               "[fold] rows plus folded frames sum to delivered_frames + ring_full")
    t.check(re.search(r"==== mcfan report after \d+\.\d\d s: fan-out partition, groups 2 "
                      r"\(left 2044\),", out) is not None,
            "[fold] text header: left 2044 (1024 rows and 1020 folded)")
    t.check(re.search(r"\(older left groups\)\s+\d+\s+\d+\s+0\s+\d+\s+\(1020 more left groups", out)
            is not None, "[fold] the text report's folded row")


def main():
    t.veth_pair_or_skip("test_leave_report", IF_A, IF_B, up=True)
    try:
        case_leave()
        case_clear()
        case_fold()
    finally:
        ip("link", "del", IF_A)
    t.finish("test_leave_report")


if __name__ == "__main__":
    main()
