#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The /mcfan/* telemetry commands with the real program, the real socket and the real
client (dpdk-telemetry.py), as documented in docs/telemetry.md.

1. A loaded run (net_pcap infinite_rx, a mix of frame kinds, 1 RX + 1 worker):
   - every command answers through dpdk-telemetry.py with valid JSON and exactly the
     documented keys, and the same through the socket, with consistent values;
   - /mcfan/groups,ADDRESS without a port names every joined group of the address, as the
     console's show groups: one (239.9.9.1, 239.7.7.7) in the one-group form, two
     (239.9.9.2:3999 and :4000) in the page form's columns;
   - /mcfan/counters conserves frames at every moment under load (rx_frames ==
     delivered_frames + every drop reason), while a second client queries everything else;
   - every bad parameter (not a number, no such lcore, no such group, too long, a parameter
     on a command that takes none, a page out of range, binary garbage) gets the null reply
     and exactly one log line, and the app goes on: later queries work, and SIGINT ends it
     with status 0 and its report;
   - the console's `clear stats`, repeated while two clients query, never shows a counter
     below zero or a reply that breaks conservation.
1b. Pages while the console joins and leaves (200 groups, 2 pages): the pages of one table
   have one `generation`; a leave and a join between two pages, which keep `total` but move
   a row past the reader, change it.
2. 1024 groups: every page of /mcfan/groups is valid JSON under the 16 KiB output limit, no
   element lost, and the pages cover the 1024 groups exactly once (the longest page is made
   of the longest IPv6 groups with port 65535).
3. Source-specific groups (IGMPv3/MLDv2 INCLUDE, GROUP@SOURCE): /mcfan/groups has each
   group's sources in its sources column ("" for any source), /mcfan/groups,GROUP a sources
   list ([] for any source), through the socket and dpdk-telemetry.py; the JSON report's
   groups[] the same lists, the text report a "(sources S+S)" on the group's row.
4. 128 lcores (EAL --lcores '0@0,(1-127)@(0-1)', 1 RX + 126 workers on 2 CPUs): /mcfan/msacc,
   /mcfan/lcores and the others have every row, valid JSON, under the limit.

Usage: test_telemetry.py MCFAN_BINARY"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-telemetry-")
LIMIT = t.TELEMETRY_MAX_OUTPUT

STATES = ["other", "poll_empty", "rx", "classify", "fanout", "dequeue", "process", "sleep",
          "console", "telemetry", "wait_cpu"]
DROPS = ["not_multicast", "not_udp", "malformed", "fragment", "unknown_group", "ring_full",
         "control", "truncated", "ctl_ring_full"]
# every reason the report and /mcfan/counters list: quit_drained too (0 while running: it
# counts only the frames the quit drain takes from the RX queues)
DROPS_ALL = DROPS + ["quit_drained"]
ROLES = {"rx", "worker", "rx+worker", "control"}

# The documented reply keys (docs/telemetry.md).
KEYS = {
    "/mcfan/info": {"version", "dpdk_version", "uptime_ms", "tsc_hz", "main_lcore",
                    "rx_lcores", "worker_lcores", "groups", "fanout", "burst", "ring_size",
                    "ring_size_why", "rx_state"},
    "/mcfan/lcores": {"lcore", "role", "cpu", "socket", "state", "rx_engine", "worker_engine",
                      "hosted_by", "cpus"},
    "/mcfan/msacc": {"tsc_hz", "lcore", "wall_cycles", "busy_bp"} | {s + "_bp" for s in STATES},
    "/mcfan/msacc/types": {"lcores", "role", "wall_cycles", "busy_bp"} |
                          {s + "_bp" for s in STATES},
    "/mcfan/groups": {"total", "page", "pages", "group", "udp_port", "frames", "bytes",
                      "n_workers", "copies", "copy_drops", "sources", "sources_cut", "output",
                      "generation"},
    "/mcfan/rings": {"rx_lcores", "lcore", "size", "count", "high_water", "enqueued", "drops",
                     "frames"},
    "/mcfan/counters": {"rx_frames", "rx_bytes", "delivered_frames", "copies_offered",
                        "delivered_copies", "drops_total", "mac_mismatch"} | set(DROPS_ALL),
    "/mcfan/ports": {"port", "name", "driver", "rx_queues", "ipackets", "imissed", "ierrors",
                     "rx_nombuf", "kernel_source", "interface", "kernel_packets",
                     "kernel_drops", "rx_packets", "rx_dropped", "reasm_fragments",
                     "reasm_reassembled", "reasm_failed", "role", "role_why",
                     "interface_state"},
}
MSACC_ONE_KEYS = ({"lcore", "role", "wall_cycles", "tsc_hz", "busy_cycles", "busy_bp",
                   "polls", "polls_work", "frames", "empty_poll_bp", "cycles_per_frame",
                   "frames_per_poll_x100", "sleeps", "wakeups", "burst_hist_log2",
                   "ctx_switches_voluntary", "ctx_switches_involuntary"} |
                  {s + "_cycles" for s in STATES} | {s + "_bp" for s in STATES})
GROUP_ONE_KEYS = {"group", "udp_port", "fanout", "frames", "copies", "copy_drops", "bytes",
                  "first_rx_tsc", "last_rx_tsc", "workers", "sources", "output"}
# Columns of the table-shaped replies (parallel arrays, one element a row).
COLUMNS = {
    "/mcfan/lcores": sorted(KEYS["/mcfan/lcores"]),
    "/mcfan/msacc": ["lcore", "wall_cycles", "busy_bp"] + [s + "_bp" for s in STATES],
    "/mcfan/msacc/types": ["lcores", "role", "wall_cycles", "busy_bp"] +
                          [s + "_bp" for s in STATES],
    "/mcfan/groups": ["group", "udp_port", "frames", "bytes", "n_workers", "copies",
                      "copy_drops", "sources", "output"],
    "/mcfan/rings": ["lcore", "size", "count", "high_water", "enqueued", "drops", "frames"],
}


def eal(name, lcores, pcap, mem_mb=512):
    """EAL arguments: an --lcores map instead of -l, net_pcap replaying pcap forever."""
    return t.eal_args(name, mem_mb=mem_mb)[2:] + [
        "--lcores", lcores, "--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"]


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_keys(cmd, val, keys, what=""):
    if not t.check(isinstance(val, dict), f"{cmd}{what}: reply is an object: {val!r:.200}"):
        return False
    return t.check_eq(set(val), keys, f"{cmd}{what}: reply keys")


def check_columns(cmd, val, n, what=""):
    """Every column of a table reply is an array of n elements."""
    ok = True
    for c in COLUMNS[cmd]:
        col = val.get(c)
        ok &= t.check(isinstance(col, list) and len(col) == n,
                      f"{cmd}{what}: column {c} has {n} elements: "
                      f"{len(col) if isinstance(col, list) else col!r}")
    return ok


def check_bp_rows(cmd, val, n, what=""):
    """Per row: the state shares in basis points add up to 10000 (each rounded: +-5) and
    busy = 10000 - poll_empty - sleep (+-2)."""
    for i in range(n):
        bp = [val[s + "_bp"][i] for s in STATES]
        if not t.check(all(is_int(x) and 0 <= x <= 10000 for x in bp),
                       f"{cmd}{what}: row {i} shares are integers 0..10000: {bp}"):
            continue
        t.check(abs(sum(bp) - 10000) <= 5, f"{cmd}{what}: row {i} shares add up to 10000 bp: "
                f"{sum(bp)} {bp}")
        busy = 10000 - val["poll_empty_bp"][i] - val["sleep_bp"][i]
        t.check(abs(val["busy_bp"][i] - busy) <= 2, f"{cmd}{what}: row {i} busy_bp "
                f"{val['busy_bp'][i]} = 10000 - poll_empty - sleep = {busy}")


def check_msacc_one(val, lcore, role, what=""):
    cmd = "/mcfan/msacc,N"
    if not check_keys(cmd, val, MSACC_ONE_KEYS, what):
        return
    t.check_eq(val["lcore"], lcore, f"{cmd}{what}: lcore")
    t.check_eq(val["role"], role, f"{cmd}{what}: role")
    cyc = sum(val[s + "_cycles"] for s in STATES)
    t.check_eq(cyc, val["wall_cycles"], f"{cmd}{what}: the states' cycles add up to "
               "wall_cycles exactly")
    t.check_eq(val["busy_cycles"], val["wall_cycles"] - val["poll_empty_cycles"] -
               val["sleep_cycles"], f"{cmd}{what}: busy_cycles = wall - poll_empty - sleep")
    h = val["burst_hist_log2"]
    if t.check(isinstance(h, list) and len(h) == 10, f"{cmd}{what}: burst_hist_log2 has 10 "
               f"buckets: {h!r}"):
        t.check_eq(sum(h), val["polls_work"], f"{cmd}{what}: histogram counts every poll "
                   "with work")
    t.check(val["polls_work"] <= val["polls"], f"{cmd}{what}: polls_work <= polls")
    if val["polls_work"]:
        fpp = val["frames"] * 100 / val["polls_work"]
        t.check(abs(val["frames_per_poll_x100"] - fpp) <= 1, f"{cmd}{what}: "
                f"frames_per_poll_x100 {val['frames_per_poll_x100']} = 100 frames/polls_work "
                f"{fpp:.1f}")
    for s in STATES:
        if val["wall_cycles"]:
            bp = val[s + "_cycles"] * 10000 / val["wall_cycles"]
            t.check(abs(val[s + "_bp"] - bp) <= 1, f"{cmd}{what}: {s}_bp {val[s + '_bp']} "
                    f"matches {s}_cycles ({bp:.1f})")


def conserved(c):
    return c["rx_frames"] == c["delivered_frames"] + sum(c[d] for d in DROPS_ALL) and \
        c["drops_total"] == sum(c[d] for d in DROPS_ALL)


def new_lines(proc, since):
    return [ln for _, ln in proc.err[since:]]


def wait_err_count(proc, n, timeout):
    end = time.monotonic() + timeout
    while len(proc.err) < n and time.monotonic() < end:
        time.sleep(0.02)
    return len(proc.err) >= n


def quit_console(p):
    """Type quit into a console run's stdin (a pipe) and close it; its exit status, after at
    most 120 s (then killed)."""
    try:
        p.stdin.write(b"quit\n")
        p.stdin.close()
    except OSError:
        pass
    try:
        return p.wait(120)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.wait()


def stop(proc, what, timeout=300):
    """SIGINT, then the exit status, the printed report and the JSON report."""
    proc.signal(signal.SIGINT)
    rc = proc.wait(timeout)
    t.check_eq(rc, 0, f"[{what}] exit status after SIGINT (stderr tail: "
               f"{proc.stderr()[-400:]!r})")
    t.check("mcfan report" in proc.stdout(), f"[{what}] report printed at exit")
    return rc


def load_report(path, what):
    if not t.check(os.path.exists(path), f"[{what}] JSON report written"):
        return None
    with open(path) as f:
        rep = json.load(f)
    t.check(t.conservation(rep), f"[{what}] report: conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"[{what}] report: mbufs_outside_pool")
    return rep


# ---------------------------------------------------------------------------------------------
# 1. One loaded run: shapes, consistency, conservation, bad parameters.

GROUPS_MIX = "239.9.9.1-10:3999,[ff3e::1]:5000,239.7.7.7,239.9.9.2:4000"
N_MIX = 13                          # groups in GROUPS_MIX
MISMATCH = 3                        # frames of the mix delivered with another group's MAC


def mix_frames():
    """Frames of every kind, so that every drop reason but ring_full moves."""
    f = [t.udp4_frame(f"239.9.9.{i % 10 + 1}", 3999) for i in range(40)]
    f += [t.udp6_frame("ff3e::1", 5000) for _ in range(4)]
    f += [t.udp4_frame("239.7.7.7", p) for p in (1000, 2000)]
    f += [t.udp4_frame("239.9.9.2", 4000) for _ in range(2)]
    # delivered to 239.9.9.3 with 239.9.9.4's MAC: counted in mac_mismatch, not a drop
    f += [t.eth(t.mac_for_group("239.9.9.4"), 0x0800,
                t.ipv4("198.18.0.1", "239.9.9.3", 17, t.udp(1, 3999, b"w" * 18)))] * MISMATCH
    f += [t.udp4_frame("239.5.5.5", 3999)]                                     # unknown_group
    f += [t.eth(b"\x02\x00\x00\x00\x00\x02", 0x0800,                            # not_multicast
                t.ipv4("198.18.0.1", "198.18.0.2", 17, t.udp(1, 3999, b"u" * 18)))]
    f += [t.eth(t.mac_for_group("239.9.9.1"), 0x0800,                           # not_udp
                t.ipv4("198.18.0.1", "239.9.9.1", 6, b"t" * 26))]
    f += [t.eth(t.mac_for_group("239.9.9.1"), 0x0800,                           # malformed
                t.ipv4("198.18.0.1", "239.9.9.1", 17, t.udp(1, 3999, b"m" * 18), ihl=4))]
    f += [t.eth(t.mac_for_group("239.9.9.1"), 0x0800,                           # truncated
                t.ipv4("198.18.0.1", "239.9.9.1", 17, t.udp(1, 3999, b"m" * 18),
                       total_len=400))]
    f += [t.eth(t.mac_for_group("239.9.9.1"), 0x0800,                           # fragment
                t.ipv4("198.18.0.1", "239.9.9.1", 17, b"f" * 26, frag=0x0004))]
    # control (IGMP), 16 of them: the control lcore drains its ring every 10 ms tick, so
    # ctl_ring_full moves only if the RX lcore hands it more than a ring between two ticks;
    # under ASan on a loaded host one frame in 53 was not always enough
    f += [t.eth(t.mac_for_group("224.0.0.22"), 0x0800,
                t.ipv4("198.18.0.1", "224.0.0.22", 2, b"\x22" + b"\0" * 7))] * 16
    return f


def cli_checks(prefix, lcores):
    """Every command once through dpdk-telemetry.py (4 clients at a time; the server takes
    at most 10 connections)."""
    cmds = list(KEYS) + [f"/mcfan/msacc,{lcores['rx']}", "/mcfan/groups,0",
                         "/mcfan/groups,239.9.9.1:3999", "/mcfan/msacc,abc"]
    with ThreadPoolExecutor(max_workers=4) as ex:
        results = list(ex.map(lambda c: (c, *t.telemetry_cli(prefix, c)), cmds))
    for cmd, parsed, out in results:
        key = cmd.split(",", 1)[0]
        what = f"dpdk-telemetry.py {cmd}"
        if not t.check(isinstance(parsed, dict) and list(parsed) == [key],
                       f"{what}: last line is JSON {{{key!r}: ...}}: {out[-300:]!r}"):
            continue
        val = parsed[key]
        if cmd == "/mcfan/msacc,abc":
            t.check(val is None, f"{what}: null reply for a bad parameter: {val!r:.100}")
        elif cmd.startswith("/mcfan/msacc,"):
            check_msacc_one(val, lcores["rx"], "rx", f" (via {what})")
        elif cmd == "/mcfan/groups,239.9.9.1:3999":
            check_keys(key, val, GROUP_ONE_KEYS, f" (via {what})")
        else:
            check_keys(key, val, KEYS[key], f" (via {what})")


def socket_checks(tel, lcores, n_groups, ring_size):
    # the command list and help
    val, _ = tel.query("/")
    for cmd in KEYS:
        t.check(cmd in (val or []), f"/ lists {cmd}")
        h, _ = tel.query(f"/help,{cmd}")
        t.check(isinstance(h, dict) and isinstance(h.get(cmd), str) and h[cmd],
                f"/help,{cmd} gives a help text: {h!r}")

    info, raw = tel.query("/mcfan/info")
    if check_keys("/mcfan/info", info, KEYS["/mcfan/info"]):
        t.check_eq(info["rx_lcores"], [lcores["rx"]], "/mcfan/info rx_lcores")
        t.check_eq(info["worker_lcores"], [lcores["worker"]], "/mcfan/info worker_lcores")
        t.check_eq(info["main_lcore"], lcores["control"], "/mcfan/info main_lcore")
        t.check_eq(info["groups"], n_groups, "/mcfan/info groups")
        t.check_eq(info["fanout"], "partition", "/mcfan/info fanout")
        t.check_eq(info["burst"], 32, "/mcfan/info burst")
        t.check_eq(info["ring_size"], ring_size, "/mcfan/info ring_size")
        t.check_eq(info["ring_size_why"], f"option (--ring-size {ring_size})",
                   "/mcfan/info ring_size_why")
        t.check(is_int(info["tsc_hz"]) and info["tsc_hz"] > 10 ** 8, "/mcfan/info tsc_hz")
        t.check(info["dpdk_version"].startswith("DPDK 22.11"), "/mcfan/info dpdk_version")
        time.sleep(0.3)
        info2, _ = tel.query("/mcfan/info")
        t.check(info2["uptime_ms"] >= info["uptime_ms"] + 250,
                f"/mcfan/info uptime_ms grows: {info['uptime_ms']} -> {info2['uptime_ms']}")

    lc, raw = tel.query("/mcfan/lcores")
    if check_keys("/mcfan/lcores", lc, KEYS["/mcfan/lcores"]) and \
            check_columns("/mcfan/lcores", lc, 3):
        rows = {lc["lcore"][i]: (lc["role"][i], lc["cpu"][i]) for i in range(3)}
        t.check_eq(rows, {lcores["control"]: ("control", 0), lcores["rx"]: ("rx", 1),
                          lcores["worker"]: ("worker", 0)},
                   "/mcfan/lcores: role and CPU of each lcore (--lcores 0@0,1@1,2@0)")
        t.check(all(s in STATES for s in lc["state"]), f"/mcfan/lcores states: {lc['state']}")
        t.check(all(is_int(x) and x >= 0 for x in lc["socket"]), "/mcfan/lcores socket")
        t.check_eq(lc["hosted_by"], [-1, -1, -1],
                   "/mcfan/lcores hosted_by: the worker (CPU 0) is not on the RX lcore's CPU")

    ms, raw = tel.query("/mcfan/msacc")
    if check_keys("/mcfan/msacc", ms, KEYS["/mcfan/msacc"]) and \
            check_columns("/mcfan/msacc", ms, 3):
        t.check_eq(sorted(ms["lcore"]), sorted(lcores.values()), "/mcfan/msacc lcores")
        check_bp_rows("/mcfan/msacc", ms, 3)
        rx_i = ms["lcore"].index(lcores["rx"])
        t.check(ms["poll_empty_bp"][rx_i] <= 500, "/mcfan/msacc: the loaded RX lcore polls "
                f"empty <= 5 %: {ms['poll_empty_bp'][rx_i]} bp")

    for who in ("rx", "worker", "control"):
        one, raw = tel.query(f"/mcfan/msacc,{lcores[who]}")
        check_msacc_one(one, lcores[who], who, f" ({who})")
        if who == "rx" and one:
            t.check(one["frames"] > 0 and one["frames_per_poll_x100"] >= 2560,
                    f"/mcfan/msacc,{lcores[who]}: the loaded RX lcore gets near-full "
                    f"bursts: {one['frames_per_poll_x100'] / 100} frames per poll")

    ty, raw = tel.query("/mcfan/msacc/types")
    if check_keys("/mcfan/msacc/types", ty, KEYS["/mcfan/msacc/types"]) and \
            check_columns("/mcfan/msacc/types", ty, 3):
        t.check_eq(sorted(ty["role"]), ["control", "rx", "worker"], "/mcfan/msacc/types roles")
        t.check_eq(ty["lcores"], [1, 1, 1], "/mcfan/msacc/types lcores per role")
        check_bp_rows("/mcfan/msacc/types", ty, 3)

    g, raw = tel.query("/mcfan/groups")
    if check_keys("/mcfan/groups", g, KEYS["/mcfan/groups"]) and \
            check_columns("/mcfan/groups", g, n_groups):
        t.check_eq((g["total"], g["page"], g["pages"]), (n_groups, 0, 1),
                   "/mcfan/groups total, page, pages")
        want = {(f"239.9.9.{i}", 3999) for i in range(1, 11)} | {("[ff3e::1]", 5000),
                                                                  ("239.7.7.7", 0),
                                                                  ("239.9.9.2", 4000)}
        t.check_eq(set(zip(g["group"], g["udp_port"])), want, "/mcfan/groups rows")
        t.check(all(n in (0, 1) for n in g["n_workers"]), "/mcfan/groups n_workers (partition)")
        g0, _ = tel.query("/mcfan/groups,0")
        t.check(g0 is not None and g0["group"] == g["group"], "/mcfan/groups,0 = /mcfan/groups")
    # an address without a port names every joined group of it (as show groups does): the
    # one-group form when that is one group (239.9.9.1: only :3999 is joined)
    for q, grp, port in (("239.9.9.1:3999", "239.9.9.1", 3999),
                         ("[ff3e::1]:5000", "[ff3e::1]", 5000), ("239.7.7.7", "239.7.7.7", 0),
                         ("239.9.9.1", "239.9.9.1", 3999), ("[ff3e::1]", "[ff3e::1]", 5000),
                         ("239.9.9.2:4000", "239.9.9.2", 4000)):
        one, raw = tel.query(f"/mcfan/groups,{q}")
        if check_keys("/mcfan/groups,GROUP", one, GROUP_ONE_KEYS, f" ({q})"):
            t.check_eq((one["group"], one["udp_port"], one["fanout"]), (grp, port, "partition"),
                       f"/mcfan/groups,{q}: group, port, fan-out")
            t.check(set(one["workers"]) <= {lcores["worker"]}, f"/mcfan/groups,{q}: workers")
    # two groups of the address (239.9.9.2:3999 and :4000): the page form's columns, total 2
    two, raw = tel.query("/mcfan/groups,239.9.9.2")
    if check_keys("/mcfan/groups,ADDRESS", two, KEYS["/mcfan/groups"] - {"page", "pages", "generation"}) and \
            check_columns("/mcfan/groups", two, 2, " (239.9.9.2, every port)"):
        t.check_eq((two["total"], list(zip(two["group"], two["udp_port"]))),
                   (2, [("239.9.9.2", 3999), ("239.9.9.2", 4000)]),
                   "/mcfan/groups,239.9.9.2: both groups of the address, in join order")
        t.check(all(f > 0 for f in two["frames"]),
                f"/mcfan/groups,239.9.9.2: frames of both: {two['frames']}")
    one, _ = tel.query("/mcfan/groups,239.9.9.1:3999")
    if one:
        t.check(one["frames"] > 0 and one["first_rx_tsc"] <= one["last_rx_tsc"] and
                one["workers"] == [lcores["worker"]],
                f"/mcfan/groups,239.9.9.1:3999: frames counted by its worker: {one}")

    r, raw = tel.query("/mcfan/rings")
    if check_keys("/mcfan/rings", r, KEYS["/mcfan/rings"]) and \
            check_columns("/mcfan/rings", r, 1):
        t.check_eq(r["rx_lcores"], 1, "/mcfan/rings rx_lcores")
        t.check_eq((r["lcore"], r["size"]), ([lcores["worker"]], [ring_size]),
                   "/mcfan/rings lcore, size")
        t.check(0 <= r["count"][0] <= ring_size and 0 < r["high_water"][0] <= ring_size,
                f"/mcfan/rings count and high_water within the ring: {r}")
        t.check(r["frames"][0] <= r["enqueued"][0], "/mcfan/rings frames <= enqueued")

    c, raw = tel.query("/mcfan/counters")
    if check_keys("/mcfan/counters", c, KEYS["/mcfan/counters"]):
        t.check(conserved(c), f"/mcfan/counters conservation: {c}")
        for d in DROPS:
            if d != "ring_full":
                t.check(c[d] > 0, f"/mcfan/counters: drop reason {d} moves with this traffic")
        t.check(c["delivered_copies"] <= c["copies_offered"], "/mcfan/counters copies")
        # a warning count of delivered frames: moves with the mix, outside drops_total
        t.check(0 < c["mac_mismatch"] <= c["delivered_frames"],
                f"/mcfan/counters: mac_mismatch moves with this traffic and counts delivered "
                f"frames: {c['mac_mismatch']} of {c['delivered_frames']}")


def hammer(path, stop_evt, out, n_min):
    """Second client: every command in turn until stopped (at least n_min rounds)."""
    try:
        tel = t.Telemetry(path, timeout=60)
        cmds = list(KEYS) + ["/mcfan/msacc,1", "/mcfan/groups,239.9.9.2:3999"]
        i = 0
        while not stop_evt.is_set() or i < n_min:
            cmd = cmds[i % len(cmds)]
            val, raw = tel.query(cmd)
            if val is None or len(raw) >= LIMIT:
                out.append(f"{cmd}: {raw[:120]!r}")
            i += 1
        tel.close()
        out.append(i)
    except Exception as e:  # noqa: BLE001 - reported as a check failure
        out.append(f"exception {e!r}")


def conservation_under_load(tel, path):
    """/mcfan/counters conserves frames at every moment while frames flow and another
    client queries every command."""
    stop_evt = threading.Event()
    out = []
    th = threading.Thread(target=hammer, args=(path, stop_evt, out, 20), daemon=True)
    th.start()
    n = bad = regress = 0
    last = None
    first = None
    end = time.monotonic() + 4
    while time.monotonic() < end or n < 200:
        c, _ = tel.query("/mcfan/counters")
        n += 1
        if c is None or not conserved(c):
            bad += 1
            if bad <= 3:
                t.check(False, f"/mcfan/counters conservation under load: {c}")
            continue
        first = first or c
        if last is not None and (c["rx_frames"] < last["rx_frames"] or
                                 any(c[d] < last[d] for d in DROPS_ALL)):
            regress += 1
        last = c
        if n >= 5000:
            break
    stop_evt.set()
    th.join(120)
    t.check_eq(bad, 0, f"/mcfan/counters: queries under load that broke conservation (of {n})")
    t.check_eq(regress, 0, "/mcfan/counters: counters never go back")
    t.check(first is not None and last is not None and last["rx_frames"] > first["rx_frames"],
            "/mcfan/counters: frames flowed during the queries")
    errs = [x for x in out if not isinstance(x, int)]
    t.check(not errs and out and isinstance(out[-1], int),
            f"second client: every reply valid and non-null: {errs[:3]}")
    print(f"conservation: {n} /mcfan/counters replies under load, second client "
          f"{out[-1] if out and isinstance(out[-1], int) else '?'} queries", flush=True)


def set_engine_words(prefix, worker):
    """/mcfan/set_engine through dpdk-telemetry.py: spaces around the words do not count,
    a word after the engine is refused as the console refuses it."""
    cases = [
        (f"/mcfan/set_engine,{worker}  count  extra", -22,
         "set engine: unexpected 'extra' after the command (help set engine)"),
        (f"/mcfan/set_engine,  {worker}   count  ", -114,
         f"set engine: lcore {worker} sends every copy to count already, by group"),
        # the parameters joined by a comma: say they are space separated
        (f"/mcfan/set_engine,{worker},bogus", -22,
         f"set engine: '{worker},bogus': the parameters are space separated, e.g. "
         f"/mcfan/set_engine,1 count"),
        # a group list (commas of its own) without an engine: still what is missing
        ("/mcfan/set_engine,239.9.9.1:3999,239.9.9.2:3999", -22,
         "set engine: give an engine after the groups: set engine "
         "239.9.9.1:3999,239.9.9.2:3999 NAME[:ARGS]"),
        # an lcore id too large for 32 or 64 bits: no worker lcore, not a bad group
        ("/mcfan/set_engine,4294967296 count", -22,
         "set engine: lcore 4294967296 is not a worker lcore"),
        ("/mcfan/set_engine,99999999999999999999 count", -22,
         "set engine: lcore 99999999999999999999 is not a worker lcore"),
        ("/mcfan/set_engine,99999999999999999999", -22,
         "set engine: lcore 99999999999999999999 is not a worker lcore"),
    ]
    for cmd, status, msg in cases:
        parsed, out = t.telemetry_cli(prefix, cmd)
        got = parsed.get("/mcfan/set_engine") if isinstance(parsed, dict) else None
        t.check(isinstance(got, dict) and got.get("status") == status and
                str(got.get("message")).startswith(msg),
                f"[set engine words] {cmd!r}: status {status}, {msg!r}: {out[-300:]!r}")


DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                   "telemetry.md")


def doc_sections():
    """{section title: (keys of its tables, [its JSON examples])} of docs/telemetry.md's
    "### `/mcfan/...`" sections: a table row's first cell names keys in backquotes
    (STATE_cycles and STATE_bp stand for one key per state); an example is a line of a json
    block that parses (an example cut with "..." does not)."""
    parts = re.split(r"^(#{2,3} .*)$", open(DOC, encoding="utf-8").read(), flags=re.M)
    out = {}
    for title, body in zip(parts[1::2], parts[2::2]):
        if not title.startswith("### "):
            continue
        keys = set()
        for ln in body.splitlines():
            if ln.startswith("| `"):
                for k in re.findall(r"`([A-Za-z0-9_]+)`", ln.split("|")[1]):
                    keys |= ({s + k[5:] for s in STATES} if k.startswith("STATE_") else {k})
        examples = []
        for block in re.findall(r"```json\n(.*?)```", body, re.S):
            for ln in block.splitlines():
                try:
                    examples.append(json.loads(ln))
                except ValueError:
                    pass
        out[title[4:]] = (keys, examples)
    return out


def doc_checks(tel, lcores):
    """docs/telemetry.md against the replies, key by key: every section's table names
    exactly the keys its queries answer (the union of its forms), and every JSON example has
    exactly the keys of the same form's reply now (before: the /mcfan/msacc, msacc,LCORE,
    msacc/types and /mcfan/groups examples lacked keys added since, and the /mcfan/msacc
    table lacked tsc_hz)."""
    rx, wk = lcores["rx"], lcores["worker"]
    forms = {"/mcfan/msacc,LCORE": [f"/mcfan/msacc,{rx}"],
             "/mcfan/groups,GROUP": ["/mcfan/groups,239.9.9.1:3999"],
             "/mcfan/latency": ["/mcfan/latency", f"/mcfan/latency,{wk}"]}
    sections = doc_sections()
    t.check(len(sections) >= 13, f"docs/telemetry.md: {len(sections)} command sections")
    # the commands table: every scalar key of a command's reply is named, in backquotes or as
    # a key of a JSON text, in its row, its section or a docs/X.md the row points to (before:
    # /mcfan/feed's shown was in none)
    table = open(DOC, encoding="utf-8").read().split("| command | answers | parameter |", 1)[1]
    named = {}
    for row in table.split("\n\n", 1)[0].splitlines()[2:]:
        words = set(re.findall(r"`([A-Za-z0-9_]+)`", row)) | set(re.findall(r'"([a-z_]+)":', row))
        for other in set(re.findall(r"docs/([a-z]+\.md)", row)):
            text = open(os.path.join(os.path.dirname(DOC), other), encoding="utf-8").read()
            words |= set(re.findall(r"`([A-Za-z0-9_]+)`", text))
        for cmd in re.findall(r"`(/mcfan/[a-z_/]+)", row.split("|")[1]):
            named.setdefault(cmd, set()).update(words)
    for title, (keys, _) in sections.items():
        for cmd in re.findall(r"`(/mcfan/[a-z_/]+)`", title):
            named.setdefault(cmd, set()).update(keys)
    cmds, _ = tel.query("/")
    for cmd in [c for c in cmds or [] if c.startswith("/mcfan/")]:
        v, _ = tel.query(cmd)
        scalars = {k for k, x in (v or {}).items() if not isinstance(x, (list, dict))}
        t.check_eq(scalars - named.get(cmd, set()), set(),
                   f"docs/telemetry.md: every key of {cmd} named in its row or section")
    # docs/igmp.md's /mcfan/igmp keys: the top level, then those of igmp and mld (N: the
    # version, REASON: an invalid frame's reason)
    igmp_doc = open(os.path.join(os.path.dirname(DOC), "igmp.md"), encoding="utf-8").read()
    bullet = igmp_doc.split("- `/mcfan/igmp[,PORT]`", 1)[1].split("\n- ", 1)[0]
    inner = bullet.split("`igmp` and `mld` (", 1)[1].split("),", 1)[0]
    top = set(re.findall(r"`([a-z_]+)`", bullet)) - set(re.findall(r"`([A-Za-z_]+)`", inner))
    v, _ = tel.query("/mcfan/igmp")
    t.check_eq(top, set(v or {}), "docs/igmp.md /mcfan/igmp: the keys of the reply")
    for proto in ("igmp", "mld"):
        got = {re.sub(r"^invalid_.*", "invalid_REASON", re.sub(r"_v\d$", "_vN", k))
               for k in (v or {}).get(proto, {})}
        t.check_eq(set(re.findall(r"`([A-Za-z_]+)`", inner)), got,
                   f"docs/igmp.md /mcfan/igmp: the keys of {proto}")
    # the commands table's /mcfan/readers row: without the readers engine, two keys only
    v, _ = tel.query("/mcfan/readers")
    t.check_eq(v, {"engine": "the readers engine is not in use", "rings": 0},
               "docs/telemetry.md /mcfan/readers without the readers engine")
    for title, (keys, examples) in sections.items():
        cmds = re.findall(r"`(/mcfan/[a-z_/]+(?:,[A-Z]+)?)`", title)
        queries = [q for c in cmds if not c.endswith(",PAGE") for q in forms.get(c, [c])]
        got = set()
        for q in queries:
            v, _ = tel.query(q)
            got |= set(v) if isinstance(v, dict) else set()
        t.check_eq(keys, got, f"docs/telemetry.md {title}: the table's keys are the reply's "
                   f"({', '.join(queries)})")
        for ex in examples:
            (cmd, val), = ex.items()
            if cmd == "/mcfan/msacc" and isinstance(val.get("lcore"), int):
                q = f"/mcfan/msacc,{rx}"
            elif cmd == "/mcfan/groups" and "page" not in val:
                # several groups named (the page form's columns and total), or one
                q = "/mcfan/groups,239.9.9.2" if "total" in val else "/mcfan/groups,239.9.9.1"
            else:
                q = cmd
            v, _ = tel.query(q)
            t.check_eq(set(val), set(v or {}), f"docs/telemetry.md {title}: the keys of the "
                       f"example {json.dumps(ex)[:60]}... are those of {q}")

def bad_parameters(tel, proc):
    """Each bad query: the null reply {"CMD": null}, exactly one new log line naming the
    command, and the app goes on."""
    garbage = bytes(range(1, 32)) + b"\x7f\x80\xfe\xff\"\\%s%n{}"
    bad = [
        ("not a number", "/mcfan/msacc,abc"),
        ("negative", "/mcfan/msacc,-1"),
        ("not an integer", "/mcfan/msacc,1.5"),
        ("space before the number", "/mcfan/msacc, 1"),
        ("no such lcore 99", "/mcfan/msacc,99"),
        ("no such lcore 127", "/mcfan/msacc,127"),
        ("lcore beyond RTE_MAX_LCORE", "/mcfan/msacc,128"),
        ("lcore overflowing 64 bits", "/mcfan/msacc,18446744073709551617"),
        ("too long (200 characters)", "/mcfan/msacc," + "1" * 200),
        ("no such group", "/mcfan/groups,239.9.9.99:3999"),
        ("joined group, other port", "/mcfan/groups,239.9.9.1:4000"),
        ("no group of the address", "/mcfan/groups,239.9.9.99"),
        ("not a multicast address", "/mcfan/groups,10.0.0.1"),
        ("a range, not one group", "/mcfan/groups,239.9.9.1-2:3999"),
        ("IPv6 without ]", "/mcfan/groups,[ff3e::1:5000"),
        ("page out of range", "/mcfan/groups,1"),
        ("page overflowing 32 bits", "/mcfan/groups,4294967296"),
        ("a list of two groups", "/mcfan/groups,239.9.9.1:3999,239.9.9.2:3999"),
        ("too long group (200 characters)", "/mcfan/groups," + "239.9.9.1" + "0" * 191),
        ("too long (message beyond the server's 1 KiB read)", "/mcfan/groups," + "9" * 2000),
        ("parameter on /mcfan/info", "/mcfan/info,x"),
        ("parameter on /mcfan/lcores", "/mcfan/lcores,1"),
        ("parameter on /mcfan/msacc/types", "/mcfan/msacc/types,1"),
        ("parameter on /mcfan/rings", "/mcfan/rings,0"),
        ("parameter on /mcfan/counters", "/mcfan/counters,all"),
        ("binary garbage on /mcfan/msacc", b"/mcfan/msacc," + garbage),
        ("binary garbage on /mcfan/groups", b"/mcfan/groups," + garbage),
        ("binary garbage on /mcfan/info", b"/mcfan/info," + garbage),
        # free text one past the limit, and at DPDK's 128-byte string size: refused whole,
        # never acted on cut (set engine's words are an lcore and an engine with its ARGS)
        ("set_engine, 65 characters", "/mcfan/set_engine,2 " + "c" * 63),
        ("set_engine, 127 characters", "/mcfan/set_engine,2 count:" + "x" * 119),
    ]
    # the log line says which rule the parameter broke, and how (before: "longer than 64
    # characters or not printable ASCII" for both)
    why = {
        "too long (200 characters)": "telemetry /mcfan/msacc: parameter of 200 characters "
        "refused: too long (at most 64)",
        "too long group (200 characters)": "telemetry /mcfan/groups: parameter of 200 "
        "characters refused: too long (at most 64)",
        "too long (message beyond the server's 1 KiB read)": "telemetry /mcfan/groups: "
        "parameter of 1009 characters refused: too long (at most 64)",
        "binary garbage on /mcfan/msacc": "telemetry /mcfan/msacc: parameter refused: "
        "character 1 (byte 0x01) is not printable ASCII (0x20..0x7e)",
        "set_engine, 65 characters": "telemetry /mcfan/set_engine: parameter of 65 "
        "characters refused: too long (at most 64)",
        "set_engine, 127 characters": "telemetry /mcfan/set_engine: parameter of 127 "
        "characters refused: too long (at most 64)",
        # one group or a page is asked for: a list, a range, a page beyond 32 bits say so
        # (before: "one ':PORT' after an IPv4 group" for the list, as if it were one group
        # with two ports; "group '4294967296': not a valid IPv4 address" for the page)
        "a list of two groups": "telemetry /mcfan/groups: parameter must be a page number or "
        "one group (e.g. 239.9.9.1:3999): '239.9.9.1:3999,239.9.9.2:3999' names more than one "
        "group: give one",
        "a range, not one group": "'239.9.9.1-2:3999' names more than one group: give one",
        "page overflowing 32 bits": "page 4294967296 is not 0..4294967295",
        # the pages there are (before: "(1 pages)")
        "page out of range": "telemetry /mcfan/groups: page 1 does not exist (pages 0..0: 13 "
        "groups, 128 a page)",
    }
    for what, msg in bad:
        raw_msg = msg if isinstance(msg, bytes) else msg.encode()
        cmd = raw_msg.split(b",", 1)[0].decode()
        n0 = len(proc.err)
        try:
            raw = tel.raw(raw_msg)
            val = json.loads(raw)
        except (ValueError, OSError) as e:
            t.check(False, f"[{what}] reply is JSON: {e!r}")
            continue
        t.check_eq(val, {cmd: None}, f"[{what}] null reply")
        got = wait_err_count(proc, n0 + 1, 10)
        time.sleep(0.3)      # a second line, if any, arrives with the first
        lines = new_lines(proc, n0)
        t.check(got and len(lines) == 1 and f"telemetry {cmd}" in lines[0],
                f"[{what}] exactly one log line naming {cmd}: {lines!r:.300}")
        if what in why:
            t.check(len(lines) == 1 and why[what] in lines[0],
                    f"[{what}] the log line says why: {why[what]!r} in {lines!r:.300}")
        v, _ = tel.query("/mcfan/info")
        t.check(v is not None, f"[{what}] the app goes on: /mcfan/info answers after it")

    # 64 characters, the limit: set engine acts on all of them (the engine name whole)
    v, _ = tel.query("/mcfan/set_engine,2 " + "c" * 62)
    t.check(v is not None and v.get("status") == -22 and
            f"set engine: '{'c' * 62}' is not a worker engine" in v.get("message", ""),
            f"[set_engine, 64 characters] acted on whole: {v!r:.300}")

    # /mcfan/igmp says what it got and what is allowed, or which ports there are (before:
    # "parameter must be a port number" and "port 7 is not in use", neither)
    for msg, words in (("/mcfan/igmp,abc", "telemetry /mcfan/igmp: parameter must be a port id "
                        "0..31, got 'abc'"),
                       ("/mcfan/igmp,7", "telemetry /mcfan/igmp: port 7 is not in use (mcfan's "
                        "ports: 0)")):
        n0 = len(proc.err)
        val = json.loads(tel.raw(msg.encode()))
        t.check_eq(val, {"/mcfan/igmp": None}, f"[{msg}] null reply")
        wait_err_count(proc, n0 + 1, 10)
        lines = new_lines(proc, n0)
        t.check(len(lines) == 1 and words in lines[0], f"[{msg}] log line {words!r}: {lines!r}")

    # /mcfan/latency,LCORE says the range, as /mcfan/msacc does, and which lcores are
    # workers (before: "parameter must be a worker lcore id, got 'abc'" and "lcore 1 is not a
    # worker", neither)
    for msg, words in (("/mcfan/latency,abc", "telemetry /mcfan/latency: parameter must be a "
                        "worker lcore id 0..127, got 'abc'"),
                       ("/mcfan/latency,128", "telemetry /mcfan/latency: parameter must be a "
                        "worker lcore id 0..127, got '128'"),
                       ("/mcfan/latency,1", "telemetry /mcfan/latency: lcore 1 is not a worker "
                        "lcore (worker lcores: 2)")):
        n0 = len(proc.err)
        val = json.loads(tel.raw(msg.encode()))
        t.check_eq(val, {"/mcfan/latency": None}, f"[{msg}] null reply")
        wait_err_count(proc, n0 + 1, 10)
        time.sleep(0.3)      # a second line, if any, arrives with the first
        lines = new_lines(proc, n0)
        t.check(len(lines) == 1 and words in lines[0], f"[{msg}] log line {words!r}: {lines!r}")
    v, _ = tel.query("/mcfan/latency,2")
    t.check(v is not None and v.get("lcore") == 2, f"/mcfan/latency,2 answers after them: {v!r:.100}")

    # garbage as the whole message (not an mcfan command): the server answers for itself;
    # mcfan must just go on
    for msg in (b"\xff\xfe\x00garbage", b"\x00", b"/mcfan", b"/mcfan/infox", b"," * 10,
                b"/" * 1500):
        try:
            tel.raw(msg)
        except OSError as e:
            t.check(False, f"server answers garbage {msg[:20]!r}: {e!r}")
    v, _ = tel.query("/mcfan/info")
    t.check(v is not None, "the app goes on after garbage commands")
    c, _ = tel.query("/mcfan/counters")
    t.check(c is not None and conserved(c), "counters conserved after the bad queries")


def test_loaded_run():
    what = "loaded run"
    pcap = os.path.join(TMP, "mix.pcap")
    t.write_pcap(pcap, mix_frames())
    e = eal("tel-mix", "0@0,1@1,2@0", pcap)
    report = os.path.join(TMP, "mix.json")
    lcores = {"control": 0, "rx": 1, "worker": 2}
    proc = t.McfanProcessRaw(e, ["--groups", GROUPS_MIX, "--duration", "600", "--ring-size", "512",
                              "--report-json", report])

    def body(tel):
        time.sleep(1.0)          # let frames flow
        socket_checks(tel, lcores, N_MIX, 512)
        doc_checks(tel, lcores)
        conservation_under_load(tel, t.telemetry_socket(e))
        bad_parameters(tel, proc)
        cli_checks(t.file_prefix(e), lcores)
        set_engine_words(t.file_prefix(e), lcores["worker"])
        c, _ = tel.query("/mcfan/counters")
        t.check(c is not None and conserved(c), f"[{what}] a valid query after everything")

    session(e, proc, what, body)
    rep = load_report(report, what)
    if rep:
        t.check_eq(sorted(rep["drops"]), sorted(DROPS_ALL), f"[{what}] the report's drop reasons "
                   "are the counters' drop keys")
        # the text report has the JSON's mac_mismatch, on its own line under the drops
        mm = re.findall(r"^mac_mismatch (\d+) \(delivered, not a drop: frames whose destination "
                        r"MAC is not their group's multicast MAC\)$", proc.stdout(), re.M)
        t.check(rep["mac_mismatch"] > 0 and mm == [str(rep["mac_mismatch"])],
                f"[{what}] the text report's mac_mismatch line = the JSON's "
                f"{rep['mac_mismatch']}: {mm}")


def test_clear_under_queries():
    """The console's `clear stats` while clients query: every reply still conserves frames
    and no counter goes below zero (a 64-bit counter just under 2^64 is one that did)."""
    what = "clear stats under queries"
    pcap = os.path.join(TMP, "mix.pcap")
    t.write_pcap(pcap, mix_frames())
    e = eal("tel-clear", "0@0,1@1,2@0", pcap)
    log = open(os.path.join(TMP, "clear.log"), "w+")
    p = subprocess.Popen([t.mcfan_path(), *e, "--", "--groups", GROUPS_MIX, "-i"],
                         stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT)
    bad, n = [], [0]
    try:
        tel = t.Telemetry(t.telemetry_socket(e), timeout=120)
        if not t.check(tel.wait_ready(timeout=120) is not None, f"[{what}] telemetry answers"):
            return
        end = time.monotonic() + 8

        def client():
            tl = t.Telemetry(t.telemetry_socket(e), timeout=60)
            while time.monotonic() < end:
                for cmd in ("/mcfan/counters", "/mcfan/rings"):
                    v, _ = tl.query(cmd)
                    n[0] += 1
                    if v is None:
                        bad.append((cmd, None))
                        continue
                    ints = [x for x in v.values() if is_int(x)]
                    ints += [y for x in v.values() if isinstance(x, list) for y in x]
                    if any(x >= 1 << 63 for x in ints) or \
                            (cmd == "/mcfan/counters" and not conserved(v)):
                        bad.append((cmd, v))
            tl.close()

        ths = [threading.Thread(target=client, daemon=True) for _ in range(2)]
        for th in ths:
            th.start()
        clears = 0
        while time.monotonic() < end:
            # at most 20 clears ahead of the console's answers: on a loaded host a clear
            # can wait for a preempted lcore's counters (rte_seqcount), and thousands queued
            # would outlast the exit timeout after quit
            log.seek(0)
            if clears - log.read().count("statistics cleared") < 20:
                p.stdin.write(b"clear stats\n")
                p.stdin.flush()
                clears += 1
            time.sleep(0.003)
        for th in ths:
            th.join(120)
        t.check(not bad, f"[{what}] {len(bad)} of {n[0]} replies with a counter below zero "
                f"or broken conservation ({clears} clears), e.g. {bad[:1]!r:.600}")
        print(f"clear stats: {n[0]} replies, {clears} clears, {len(bad)} bad", flush=True)
        tel.close()
    except (OSError, ValueError, RuntimeError, subprocess.TimeoutExpired) as ex:
        t.check(False, f"[{what}] telemetry session: {ex!r}")
    finally:
        rc = quit_console(p)
        log.seek(0)
        t.check_eq(rc, 0, f"[{what}] exit status after quit ({log.read()[-300:]!r})")
        log.close()
        t.remove_runtime_dir(e)


# ---------------------------------------------------------------------------------------------
# 2. 1024 groups: paging at the size limit.

V6_BASE = "ff3e:1111:2222:3333:4444:5555:6666"


def groups_1024():
    """896 IPv4 groups (one full-address range, port 5000) and 128 of the longest IPv6
    groups (39 characters, no zero field to compress) with port 65535."""
    v4 = [(f"239.1.{i // 256}.{i % 256}", 5000) for i in range(896)]
    v6 = [(f"{V6_BASE}:{0x7000 + i:04x}", 65535) for i in range(128)]
    arg = "239.1.0.0-239.1.3.127:5000," + ",".join(f"[{a}]:{p}" for a, p in v6)
    want = {(a, p) for a, p in v4} | {(f"[{a}]", p) for a, p in v6}
    frames = [t.udp4_frame(a, p) for a, p in v4] + [t.udp6_frame(a, p) for a, p in v6]
    return arg, want, frames


def test_1024_groups():
    what = "1024 groups"
    arg, want, frames = groups_1024()
    pcap = os.path.join(TMP, "g1024.pcap")
    t.write_pcap(pcap, frames)
    e = eal("tel-g1024", "0@0,1@1,2@0", pcap, mem_mb=768)
    report = os.path.join(TMP, "g1024.json")
    proc = t.McfanProcess(e, ["--groups", arg, "--duration", "600", "--report-json", report])

    def body(tel):
        info, _ = tel.query("/mcfan/info")
        t.check_eq((info or {}).get("groups"), 1024, f"[{what}] /mcfan/info groups")
        time.sleep(1.0)
        seen = []
        longest = 0
        for page in range(8):
            val, raw = tel.query(f"/mcfan/groups,{page}")
            longest = max(longest, len(raw))
            t.check(len(raw) < LIMIT, f"[{what}] page {page}: {len(raw)} bytes, under the "
                    f"{LIMIT}-byte output limit")
            if not check_keys("/mcfan/groups", val, KEYS["/mcfan/groups"], f" page {page}"):
                continue
            t.check_eq((val["total"], val["page"], val["pages"]), (1024, page, 8),
                       f"[{what}] page {page}: total, page, pages")
            if check_columns("/mcfan/groups", val, 128, f" page {page}"):
                seen += list(zip(val["group"], val["udp_port"]))
        t.check_eq(len(seen), 1024, f"[{what}] rows over all pages")
        t.check_eq(len(set(seen)), 1024, f"[{what}] no group on two pages")
        t.check_eq(set(seen), want, f"[{what}] the pages cover exactly the joined groups")
        val, _ = tel.query("/mcfan/groups")
        t.check(val is not None and val["page"] == 0 and len(val["group"]) == 128,
                f"[{what}] no parameter: page 0")
        val, _ = tel.query("/mcfan/groups,8")
        t.check(val is None, f"[{what}] page 8 of 8 (0..7): null reply")
        last = f"[{V6_BASE}:707f]:65535"
        val, _ = tel.query(f"/mcfan/groups,{last}")
        t.check(val is not None and val.get("group") == f"[{V6_BASE}:707f]" and
                val.get("udp_port") == 65535, f"[{what}] lookup of the last group {last}: "
                f"{val!r:.200}")
        # the longest page through the real client (it reads max_output_len bytes)
        parsed, out = t.telemetry_cli(t.file_prefix(e), "/mcfan/groups,7")
        g7 = parsed.get("/mcfan/groups") if isinstance(parsed, dict) else None
        t.check(isinstance(g7, dict) and len(g7.get("group", [])) == 128 and
                all(len(g7[c]) == 128 for c in COLUMNS["/mcfan/groups"]),
                f"[{what}] dpdk-telemetry.py /mcfan/groups,7: 128 complete rows: {out[-200:]!r}")
        print(f"1024 groups: longest page {longest} bytes of {LIMIT}", flush=True)
        for cmd in ("/mcfan/info", "/mcfan/rings", "/mcfan/counters"):
            v, raw = tel.query(cmd)
            t.check(v is not None and len(raw) < LIMIT, f"[{what}] {cmd} answers")

    session(e, proc, what, body)
    rep = load_report(report, what)
    if rep:
        t.check_eq(len(rep["groups"]), 1024, f"[{what}] report groups")
        t.check_eq(sum(g["copies"] for g in rep["groups"]), rep["delivered_frames"],
                   f"[{what}] report: the groups' copies add up to delivered_frames "
                   "(partition)")


def test_console_agrees():
    """After the console's `stop` nothing moves: every figure that the console's show
    commands and the telemetry replies both give is the same number (counters and every
    drop reason, each group's frames, copies, copy_drops and bytes, each ring, the latency's
    copies, the port's ipackets), and the replies agree with each other: the groups' and
    the rings' sums, the latency's copies, the port's ipackets and the lcores' msacc frames
    with /mcfan/counters."""
    what = "console and telemetry agree"
    pcap = os.path.join(TMP, "mix.pcap")
    t.write_pcap(pcap, mix_frames())
    e = eal("tel-agree", "0@0,1@1,2@0", pcap)
    log = open(os.path.join(TMP, "agree.log"), "w+")
    p = subprocess.Popen([t.mcfan_path(), *e, "--", "--groups", GROUPS_MIX, "-i"],
                         stdin=subprocess.PIPE, stdout=log, stderr=subprocess.DEVNULL)

    def console(line):
        """The output lines of one console command (up to the next command's echo)."""
        log.seek(0, os.SEEK_END)
        start = log.tell()
        p.stdin.write(line.encode() + b"\nwait 0\n")
        p.stdin.flush()
        end = time.monotonic() + 60
        while time.monotonic() < end:
            log.seek(start)
            text = log.read()
            if "mcfan> wait 0" in text:
                return text.split("mcfan> wait 0")[0].splitlines()[1:]
            time.sleep(0.05)
        t.check(False, f"[{what}] console {line!r}: no answer")
        return []

    try:
        tel = t.Telemetry(t.telemetry_socket(e), timeout=120)
        if not t.check(tel.wait_ready(timeout=120) is not None, f"[{what}] telemetry answers"):
            return
        time.sleep(1.0)
        info, _ = tel.query("/mcfan/info")
        t.check_eq((info or {}).get("rx_state"), "running", f"[{what}] /mcfan/info rx_state")
        t.check_eq(console("stop"), ["RX stopped; workers have counted every queued frame"],
                   f"[{what}] stop")
        # the RX state, as show counters says it (before: telemetry did not say it at all)
        info, _ = tel.query("/mcfan/info")
        t.check_eq((info or {}).get("rx_state"), "stopped",
                   f"[{what}] /mcfan/info rx_state after stop")
        c, _ = tel.query("/mcfan/counters")
        g, _ = tel.query("/mcfan/groups")
        r, _ = tel.query("/mcfan/rings")
        lat, _ = tel.query("/mcfan/latency")
        po, _ = tel.query("/mcfan/ports")
        t.check(c["rx_frames"] > 0, f"[{what}] frames were counted: {c['rx_frames']}")
        # show counters
        text = "\n".join(console("show counters"))
        t.check(re.search(r"^rx: stopped;", text, re.M) is not None,
                f"[{what}] show counters: rx: stopped, as /mcfan/info's rx_state")
        nums = dict(re.findall(r"(\w+) (\d+)", text.split("drops:", 1)[-1].split("\n")[0]))
        shown = {"rx_frames": r"frames: rx (\d+)", "delivered_frames": r"= delivered (\d+) \+ drops",
                 "drops_total": r"\+ drops (\d+)", "copies_offered": r"copies: offered (\d+)",
                 "delivered_copies": r"copies: offered \d+ = delivered (\d+)",
                 "mac_mismatch": r"mac_mismatch (\d+)", "rx_bytes": r"bytes (\d+)"}
        for key, rx in shown.items():
            m = re.search(rx, text)
            t.check(m is not None and int(m.group(1)) == c[key],
                    f"[{what}] {key}: show counters {m and m.group(1)}, /mcfan/counters {c[key]}")
        t.check_eq({k: int(v) for k, v in nums.items()}, {k: c[k] for k in DROPS_ALL},
                   f"[{what}] every drop reason: show counters = /mcfan/counters")
        # show groups: frames, copies, copy_drops, bytes per group
        rows = {}
        for ln in console("show groups"):
            m = re.match(r"^\s+(\S+)\s+(?:partition|replicate)\s+\d+\s+(\d+)\s+(\d+)\s+(\d+)"
                         r"\s+(\d+)\s", ln)
            if m:
                rows[m.group(1)] = tuple(int(x) for x in m.group(2, 3, 4, 5))
        tel_rows = {}
        for i, grp in enumerate(g["group"]):
            name = grp + (f":{g['udp_port'][i]}" if g["udp_port"][i] else "")
            tel_rows[name] = (g["frames"][i], g["copies"][i], g["copy_drops"][i], g["bytes"][i])
        t.check(len(rows) == N_MIX and rows == tel_rows,
                f"[{what}] show groups = /mcfan/groups (frames, copies, copy_drops, bytes): "
                f"{rows} vs {tel_rows}")
        # show rings: size, count, high_water, enqueued, drops, frames per worker
        ring_rows = [ln.split() for ln in console("show rings") if re.match(r"^\s+\d+\s", ln)]
        t.check_eq([[int(x) for x in rr[0:1] + rr[2:]] for rr in ring_rows],
                   [[r[k][i] for k in ("lcore", "size", "count", "high_water", "enqueued",
                                       "drops", "frames")] for i in range(len(r["lcore"]))],
                   f"[{what}] show rings = /mcfan/rings")
        # show latency: copies per worker
        lat_rows = [ln.split() for ln in console("show latency") if re.match(r"^\s+\d+\s", ln)]
        t.check_eq([(int(x[0]), int(x[1])) for x in lat_rows], list(zip(lat["lcore"], lat["copies"])),
                   f"[{what}] show latency copies = /mcfan/latency")
        # show port stats: ipackets, imissed, ierrors, rx_nombuf
        port_rows = [ln.split() for ln in console("show port stats") if re.match(r"^\s+\d+\s", ln)]
        t.check_eq([(int(x[0]), int(x[3]), int(x[4]), int(x[5]), int(x[6])) for x in port_rows],
                   list(zip(po["port"], po["ipackets"], po["imissed"], po["ierrors"],
                            po["rx_nombuf"])), f"[{what}] show port stats = /mcfan/ports")
        # the replies agree with each other too (partition, one RX lcore, one worker, one
        # port; stopped: every queued copy counted)
        m_rx, _ = tel.query("/mcfan/msacc,1")
        m_wk, _ = tel.query("/mcfan/msacc,2")
        pairs = {"groups' frames = copies_offered": (sum(g["frames"]), c["copies_offered"]),
                 "groups' copies = delivered_copies": (sum(g["copies"]), c["delivered_copies"]),
                 "groups' copy_drops = ring_full": (sum(g["copy_drops"]), c["ring_full"]),
                 "rings' enqueued = delivered_copies": (sum(r["enqueued"]), c["delivered_copies"]),
                 "rings' drops = ring_full": (sum(r["drops"]), c["ring_full"]),
                 "rings' frames = delivered_copies": (sum(r["frames"]), c["delivered_copies"]),
                 "rings' count = 0": (sum(r["count"]), 0),
                 "latency copies = delivered_copies": (sum(lat["copies"]), c["delivered_copies"]),
                 "ports' ipackets = rx_frames": (sum(po["ipackets"]), c["rx_frames"]),
                 "RX lcore's msacc frames = rx_frames": (m_rx["frames"], c["rx_frames"]),
                 "worker's msacc frames = delivered_copies": (m_wk["frames"],
                                                              c["delivered_copies"]),
                 "rx_frames = delivered_frames + drops_total": (
                     c["rx_frames"], c["delivered_frames"] + c["drops_total"])}
        for name, (a, b) in pairs.items():
            t.check_eq(a, b, f"[{what}] {name}")
        c2, _ = tel.query("/mcfan/counters")
        t.check_eq(c2, c, f"[{what}] after stop nothing moved while the console was read")
        tel.close()
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as ex:
        t.check(False, f"[{what}] telemetry session: {ex!r}")
    finally:
        rc = quit_console(p)
        log.close()
        t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"[{what}] exit status after quit")

def test_pages_while_joining():
    """Reading /mcfan/groups page by page while the console joins and leaves: a leave on
    page 0 and a join keep `total`, yet move the first row of page 1 onto page 0, so a
    reader of page 0 then page 1 misses it. `generation` (the group table's) tells: the same
    on every page of one table, another after any join or leave; pages read again with one
    generation cover the joined groups exactly once (before: no generation, and the doc's
    advice, compare total, saw nothing)."""
    what = "pages while joining"
    e = t.eal_args("tel-pages", extra=["--vdev", "net_null0"])
    log = open(os.path.join(TMP, "pages.log"), "w+")
    p = subprocess.Popen([t.mcfan_path(), *e, "--", "--groups", "239.2.0.0-199:5000", "-i"],
                         stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT)

    def console(line, done):
        p.stdin.write(line.encode() + b"\n")
        p.stdin.flush()
        end = time.monotonic() + 30
        while time.monotonic() < end:
            log.seek(0)
            if done in log.read():
                return True
            time.sleep(0.05)
        return t.check(False, f"[{what}] console {line!r}: no {done!r}")

    def pages(tel):
        """Every page; [(generation, total, rows)]."""
        got = []
        for page in range(2):
            v, _ = tel.query(f"/mcfan/groups,{page}")
            got.append((v["generation"], v["total"], list(zip(v["group"], v["udp_port"]))))
        return got

    try:
        tel = t.Telemetry(t.telemetry_socket(e), timeout=120)
        if not t.check(tel.wait_ready(timeout=120) is not None, f"[{what}] telemetry answers"):
            return
        want = {(f"239.2.0.{i}", 5000) for i in range(200)}
        (g0, n0, rows0), (g1, n1, rows1) = pages(tel)
        t.check(g0 == g1 and n0 == n1 == 200 and set(rows0 + rows1) == want,
                f"[{what}] two pages of one table: one generation, every group once")
        v, _ = tel.query("/mcfan/groups,0")
        t.check_eq(v["generation"], g0, f"[{what}] no join or leave: the same generation")
        v0, _ = tel.query("/mcfan/groups,0")
        console("leave 239.2.0.5:5000", "left 239.2.0.5:5000")
        console("join 239.2.1.0:5000", "joined 239.2.1.0:5000")
        v1, _ = tel.query("/mcfan/groups,1")
        seen = set(zip(v0["group"], v0["udp_port"])) | set(zip(v1["group"], v1["udp_port"]))
        want = want - {("239.2.0.5", 5000)} | {("239.2.1.0", 5000)}
        # the hazard itself: total the same, a row missed
        t.check(v0["total"] == v1["total"] == 200 and ("239.2.0.128", 5000) not in seen,
                f"[{what}] page 0 before, page 1 after: total {v0['total']}, {v1['total']}; "
                f"239.2.0.128 moved to page 0 unseen")
        t.check(v1["generation"] != v0["generation"],
                f"[{what}] the generation tells the pages apart: {v0['generation']} then "
                f"{v1['generation']}")
        (g0, _, rows0), (g1, _, rows1) = pages(tel)
        t.check(g0 == g1 and len(rows0 + rows1) == 200 and set(rows0 + rows1) == want,
                f"[{what}] read again, one generation: every joined group once")
        # every group left: no page but page 0, with empty columns; a page beyond says so
        # (before: "page 1 does not exist (1 pages)" while the replies said pages 0)
        console("leave 239.2.0.0-4:5000,239.2.0.6-199:5000,239.2.1.0:5000", "(200 groups)")
        v, _ = tel.query("/mcfan/groups")
        t.check(v is not None and (v["total"], v["pages"], v["group"]) == (0, 0, []),
                f"[{what}] no group: page 0 with empty columns: {v!r:.200}")
        v, _ = tel.query("/mcfan/groups,1")
        t.check(v is None, f"[{what}] no group: page 1 refused")
        end = time.monotonic() + 10
        while time.monotonic() < end and "page 1 does not exist" not in log.read():
            time.sleep(0.05)
        log.seek(0)
        t.check("telemetry /mcfan/groups: page 1 does not exist (no group joined: page 0 "
                "answers, with empty columns)" in log.read(),
                f"[{what}] no group: the log says page 0 is the one there is")
        tel.close()
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as ex:
        t.check(False, f"[{what}] telemetry session: {ex!r}")
    finally:
        rc = quit_console(p)
        log.close()
        t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"[{what}] exit status after quit")

# ---------------------------------------------------------------------------------------------
# 3. Source-specific groups.

GROUPS_SSM = ("239.9.9.1:3999,232.2.2.2@198.18.0.9,232.1.1.1:5000@198.18.0.1+198.18.0.3,"
              "[ff3e::5]:5000@[fe80::1]")


def session(e, proc, what, body):
    """Once mcfan proc (EAL arguments e) answers on its telemetry socket, body(tel) with the
    connection; any error of the session is a failed check; then mcfan stops (SIGINT) and its
    runtime directory goes."""
    try:
        tel = t.Telemetry(t.telemetry_socket(e), timeout=120, proc=proc)
        if t.check(tel.wait_ready(timeout=120) is not None,
                   f"[{what}] /mcfan/* commands answer"):
            body(tel)
        tel.close()
    except (OSError, ValueError, RuntimeError, subprocess.TimeoutExpired) as ex:
        t.check(False, f"[{what}] telemetry session: {ex!r}")
    finally:
        stop(proc, what)
        t.remove_runtime_dir(e)


def test_source_specific():
    """The sources of source-specific groups in /mcfan/groups (both forms) and the report.
    Before: only the console's join and show groups named them."""
    what = "source-specific"
    pcap = os.path.join(TMP, "ssm.pcap")
    t.write_pcap(pcap, [t.udp4_frame("239.9.9.1", 3999)] * 10)
    e = eal("tel-ssm", "0@0,1@1,2@0", pcap)
    report = os.path.join(TMP, "ssm.json")
    proc = t.McfanProcessRaw(e, ["--groups", GROUPS_SSM, "--duration", "600",
                                 "--report-json", report])

    def body(tel):
        g, _ = tel.query("/mcfan/groups")
        if check_columns("/mcfan/groups", g, 4, f" [{what}]"):
            t.check_eq(list(zip(g["group"], g["udp_port"], g["sources"])),
                       [("239.9.9.1", 3999, ""), ("232.2.2.2", 0, "198.18.0.9"),
                        ("232.1.1.1", 5000, "198.18.0.1+198.18.0.3"),
                        ("[ff3e::5]", 5000, "[fe80::1]")],
                       f"[{what}] /mcfan/groups: each group's sources, '' for any source")
        for grp, want in (("239.9.9.1:3999", []), ("232.2.2.2", ["198.18.0.9"]),
                          ("232.1.1.1:5000", ["198.18.0.1", "198.18.0.3"]),
                          ("[ff3e::5]:5000", ["fe80::1"])):
            one, _ = tel.query(f"/mcfan/groups,{grp}")
            if check_keys("/mcfan/groups", one, GROUP_ONE_KEYS, f" [{what}] {grp}"):
                t.check_eq(one["sources"], want, f"[{what}] /mcfan/groups,{grp}: sources")
        parsed, out = t.telemetry_cli(t.file_prefix(e), "/mcfan/groups,232.1.1.1:5000")
        t.check_eq((parsed or {}).get("/mcfan/groups", {}).get("sources"),
                   ["198.18.0.1", "198.18.0.3"],
                   f"[{what}] dpdk-telemetry.py /mcfan/groups,232.1.1.1:5000: {out[-300:]!r}")

    session(e, proc, what, body)
    rep = load_report(report, what)
    if rep:
        t.check_eq([(x["group"], x["udp_port"], x["sources"]) for x in rep["groups"]],
                   [("239.9.9.1", 3999, []), ("232.2.2.2", None, ["198.18.0.9"]),
                    ("232.1.1.1", 5000, ["198.18.0.1", "198.18.0.3"]),
                    ("ff3e::5", 5000, ["fe80::1"])],
                   f"[{what}] report groups[]: sources, [] for any source")
    rows = re.findall(r"^  (\S+) +(\S+) +partition .*?(?:  \(sources (\S+)\))?$",
                      proc.stdout(), re.M)
    t.check_eq([r for r in rows if r[0] in ("239.9.9.1", "232.2.2.2", "232.1.1.1", "ff3e::5")],
               [("239.9.9.1", "3999", ""), ("232.2.2.2", "any", "198.18.0.9"),
                ("232.1.1.1", "5000", "198.18.0.1+198.18.0.3"),
                ("ff3e::5", "5000", "[fe80::1]")],
               f"[{what}] text report: the sources on each source-specific group's row")


def test_long_sources():
    """128 source-specific IPv6 groups of the longest form, 2 sources each of the longest
    form (256 (group, source) pairs: the most mcfan takes): the page's rows would take about
    19 KB, and DPDK leaves out a column that does not fit its 16 KiB reply without a word
    (before: the sources column was missing). The longest source lists are given as their
    count ("2 sources") until the page fits; sources_cut says how many; /mcfan/groups,GROUP
    still lists them whole."""
    what = "long source lists"
    groups = [f"{V6_BASE}:{0x7000 + i:04x}" for i in range(128)]
    srcs = {g: [f"2001:1db8:1111:2222:3333:4444:{0x7000 + i:04x}:{0x8000 + k:04x}"
                for k in range(2)] for i, g in enumerate(groups)}
    arg = ",".join(f"[{g}]:65535@" + "+".join(f"[{x}]" for x in srcs[g]) for g in groups)
    pcap = os.path.join(TMP, "long-src.pcap")
    t.write_pcap(pcap, [t.udp4_frame("239.9.9.1", 3999)] * 10)
    e = eal("tel-longsrc", "0@0,1@1,2@0", pcap)
    proc = t.McfanProcessRaw(e, ["--groups", arg, "--duration", "600"])

    def body(tel):
        g, raw = tel.query("/mcfan/groups")
        t.check(len(raw) < LIMIT, f"[{what}] {len(raw)} bytes, under {LIMIT}")
        if check_keys("/mcfan/groups", g, KEYS["/mcfan/groups"], f" [{what}]") and \
                check_columns("/mcfan/groups", g, 128, f" [{what}]"):
            cut = [x for x in g["sources"] if x == "2 sources"]
            whole = [(grp, x) for grp, x in zip(g["group"], g["sources"]) if x != "2 sources"]
            t.check(0 < len(cut) < 128 and g["sources_cut"] == len(cut),
                    f"[{what}] sources_cut {g['sources_cut']} = rows given as '2 sources' "
                    f"{len(cut)}, some but not all")
            t.check_eq(whole, [(grp, "+".join(f"[{x}]" for x in srcs[grp[1:-1]]))
                               for grp, _ in whole],
                       f"[{what}] the other rows list their sources whole")
            print(f"{what}: {len(raw)} bytes, sources_cut {g['sources_cut']} of 128 rows",
                  flush=True)
        one, _ = tel.query(f"/mcfan/groups,[{groups[0]}]:65535")
        t.check_eq((one or {}).get("sources"), srcs[groups[0]],
                   f"[{what}] /mcfan/groups,GROUP lists the 2 sources whole")

    session(e, proc, what, body)


# ---------------------------------------------------------------------------------------------
# 4. 128 lcores on 2 CPUs.

def test_128_lcores():
    what = "128 lcores"
    pcap = os.path.join(TMP, "seed.pcap")
    t.write_pcap(pcap, [t.udp4_frame(f"239.9.9.{i % 10 + 1}", 3999) for i in range(100)])
    e = eal("tel-l128", "0@0,(1-127)@(0-1)", pcap, mem_mb=1024)
    report = os.path.join(TMP, "l128.json")
    proc = t.McfanProcess(e, ["--groups", "239.9.9.1-10:3999", "--rx-lcores", "1",
                              "--worker-lcores", "2-127", "--ring-size", "64",
                              "--duration", "900", "--report-json", report])
    t0 = time.monotonic()
    try:
        tel = t.Telemetry(t.telemetry_socket(e), timeout=240, proc=proc)
        info = tel.wait_ready(timeout=240)
        if not t.check(info is not None, f"[{what}] /mcfan/* commands answer"):
            return
        # the real client, started now: on 2 CPUs shared with 127 busy-polling threads it
        # takes a minute to start, so it runs while the lcores are launched and queried
        cli = []
        cli_th = threading.Thread(target=lambda: cli.append(t.telemetry_cli(
            t.file_prefix(e), "/mcfan/msacc", timeout=280)), daemon=True)
        cli_th.start()
        # queries while EAL is still launching the lcores, one after the other
        v, raw = tel.query("/mcfan/msacc")
        t.check(v is not None and len(v.get("lcore", [])) == 128 and len(raw) < LIMIT,
                f"[{what}] /mcfan/msacc during the launch: 128 rows")
        # 127 busy-polling threads on 2 CPUs: EAL 22.11 launches the lcores one by one with a
        # handshake each, which takes tens of seconds here
        up = proc.wait_line("MCFAN: running", 300)
        t.check(up is not None, f"[{what}] all lcores launched")
        print(f"128 lcores: launched after {time.monotonic() - t0:.1f} s", flush=True)
        ids = list(range(128))
        roles = ["control", "rx"] + ["worker"] * 126
        v, raw = tel.query("/mcfan/lcores")
        if check_keys("/mcfan/lcores", v, KEYS["/mcfan/lcores"]) and \
                check_columns("/mcfan/lcores", v, 128):
            t.check_eq(v["lcore"], ids, f"[{what}] /mcfan/lcores lcore ids")
            t.check_eq(v["role"], roles, f"[{what}] /mcfan/lcores roles")
            t.check(set(v["cpu"]) <= {0, 1} and v["cpu"][0] == 0,
                    f"[{what}] /mcfan/lcores cpus: {sorted(set(v['cpu']))}")
            t.check(all(s in STATES for s in v["state"]), f"[{what}] /mcfan/lcores states")
        t.check(len(raw) < LIMIT, f"[{what}] /mcfan/lcores {len(raw)} bytes < {LIMIT}")
        v, raw = tel.query("/mcfan/msacc")
        if check_keys("/mcfan/msacc", v, KEYS["/mcfan/msacc"]) and \
                check_columns("/mcfan/msacc", v, 128):
            t.check_eq(v["lcore"], ids, f"[{what}] /mcfan/msacc lcore ids")
            check_bp_rows("/mcfan/msacc", v, 128, f" [{what}]")
        t.check(len(raw) < LIMIT, f"[{what}] /mcfan/msacc {len(raw)} bytes < {LIMIT}")
        print(f"128 lcores: /mcfan/msacc {len(raw)} bytes", flush=True)
        v, raw = tel.query("/mcfan/msacc/types")
        if check_keys("/mcfan/msacc/types", v, KEYS["/mcfan/msacc/types"]) and \
                check_columns("/mcfan/msacc/types", v, 3):
            got = dict(zip(v["role"], v["lcores"]))
            t.check_eq(got, {"rx": 1, "worker": 126, "control": 1},
                       f"[{what}] /mcfan/msacc/types lcores per role")
        v, raw = tel.query("/mcfan/info")
        if check_keys("/mcfan/info", v, KEYS["/mcfan/info"]):
            t.check_eq((v["rx_lcores"], v["worker_lcores"]), ([1], list(range(2, 128))),
                       f"[{what}] /mcfan/info lcores")
        v, raw = tel.query("/mcfan/rings")
        if check_keys("/mcfan/rings", v, KEYS["/mcfan/rings"]) and \
                check_columns("/mcfan/rings", v, 126):
            t.check_eq(v["lcore"], list(range(2, 128)), f"[{what}] /mcfan/rings lcores")
        t.check(len(raw) < LIMIT, f"[{what}] /mcfan/rings {len(raw)} bytes < {LIMIT}")
        v, raw = tel.query("/mcfan/msacc,127")
        check_msacc_one(v, 127, "worker", f" [{what}] lcore 127")
        v, _ = tel.query("/mcfan/counters")
        t.check(v is not None and conserved(v), f"[{what}] /mcfan/counters conservation")
        print(f"128 lcores: socket queries done after {time.monotonic() - t0:.1f} s", flush=True)
        cli_th.join(300)
        print(f"128 lcores: dpdk-telemetry.py done after {time.monotonic() - t0:.1f} s",
              flush=True)
        parsed, out = cli[0] if cli else (None, "(no answer)")
        m = parsed.get("/mcfan/msacc") if isinstance(parsed, dict) else None
        t.check(isinstance(m, dict) and all(len(m[c]) == 128 for c in COLUMNS["/mcfan/msacc"]),
                f"[{what}] dpdk-telemetry.py /mcfan/msacc: 128 complete rows: {out[-200:]!r}")
        tel.close()
    except (OSError, ValueError, RuntimeError, subprocess.TimeoutExpired) as ex:
        t.check(False, f"[{what}] telemetry session: {ex!r}")
    finally:
        t1 = time.monotonic()
        stop(proc, what, timeout=300)
        print(f"128 lcores: stopped in {time.monotonic() - t1:.1f} s", flush=True)
        t.remove_runtime_dir(e)
    rep = load_report(report, what)
    if rep:
        t.check_eq(len(rep["lcores"]), 128, f"[{what}] report lcores")
        t.check_eq(len(rep["workers"]), 126, f"[{what}] report workers")
    print(f"128 lcores: {time.monotonic() - t0:.1f} s in all", flush=True)


def main():
    t.mcfan_path()
    only = os.environ.get("MCFAN_TEL_ONLY")  # run one part: loaded, 1024, 128
    if shutil.which("dpdk-telemetry.py") is None:
        print("SKIP: dpdk-telemetry.py not installed (apt-get install dpdk)")
        sys.exit(77)
    try:
        for fn in (test_loaded_run, test_clear_under_queries, test_pages_while_joining,
                   test_console_agrees, test_1024_groups,
                   test_source_specific, test_long_sources, test_128_lcores):
            if only and only not in fn.__name__:
                continue
            t0 = time.monotonic()
            fn()
            print(f"{fn.__name__}: {time.monotonic() - t0:.1f} s", flush=True)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    t.finish("test_telemetry")


if __name__ == "__main__":
    main()
