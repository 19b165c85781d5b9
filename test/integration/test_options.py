#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Every mcfan option with good and bad values, the config file, and the errors that can only
be found after EAL init.

A bad option or value: exit status 2, a message naming the option and what is allowed, and
nothing started (no "EAL:" line, no runtime directory). A good value: the run works and the
value shows in the JSON report where the report carries it.
Usage: test_options.py MCFAN_BINARY"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-options-")
PCAP = os.path.join(TMP, "mix.pcap")
N_SEED = 100      # 239.9.9.1-10:3999, 10 each
N_V6 = 20         # [ff3e::1]:5000
N_ANY = 12        # 239.7.7.7, ports 1000/2000/3000
N_FRAMES = N_SEED + N_V6 + N_ANY
LCORES3 = ["--lcores", "0@0,1@1,2@1"]          # main + 2 data lcores on 2 CPUs
LCORES4 = ["--lcores", "0@0,1@1,2@1,3@0"]      # main + 3 data lcores
_case = 0


def make_pcap():
    frames = [t.udp4_frame(f"239.9.9.{i % 10 + 1}", 3999) for i in range(N_SEED)]
    frames += [t.udp6_frame("ff3e::1", 5000) for _ in range(N_V6)]
    frames += [t.udp4_frame("239.7.7.7", (1000, 2000, 3000)[i % 3]) for i in range(N_ANY)]
    t.write_pcap(PCAP, frames)


def eal(extra=(), lcores="0-1", vdev=True):
    global _case
    _case += 1
    args = t.eal_args(f"opt{_case}", lcores=lcores or "0-1")
    if lcores is None:      # the lcores come with extra (--lcores)
        args = args[2:]
    if vdev:
        args += ["--vdev", f"net_pcap0,rx_pcap={PCAP}"]
    return args + list(extra)


def run(eal_args, app, timeout=60):
    """Run mcfan without a report; (rc or None on timeout, stdout, stderr)."""
    cmd = [t.mcfan_path(), *eal_args, "--", *app]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        return None, out, err


def started_lines(err):
    """Lines that only a run past the option parsing prints: EAL's and DPDK libraries' logs
    (with EAL's log level at warning EAL itself may print nothing), mcfan's own log lines, and
    its note about --in-memory that comes just before rte_eal_init."""
    return [ln for ln in err.splitlines()
            if re.match(r"(EAL|TELEMETRY|MCFAN|USER1|PMD|ETHDEV|MBUF|RING):", ln) or
            "passing --no-shconf" in ln]


def bad(app, names, hints=(), what=None, extra_eal=(), timeout=30, guard=True, lcores="0-1"):
    """A value refused before EAL: status 2, the option and what is allowed named, nothing
    started. names: strings of which at least one must appear (the option); hints: strings
    that must all appear (what is allowed)."""
    what = what or " ".join(app) or "(empty)"
    e = eal(extra_eal, lcores=lcores)
    # A bounded run if mcfan wrongly accepts the value (unless the case is about --duration).
    # (not when the case is about --duration, or a config file's duration: the command line
    # would win over it)
    guard = [] if not guard or any(a.startswith("--duration") for a in app) \
        else ["--duration", "0.2"]
    rc, out, err = run(e, [*guard, *app], timeout=timeout)
    t.check_eq(rc, 2, f"[{what}] exit status")
    low = err.lower()
    t.check(any(n.lower() in low for n in names),
            f"[{what}] message names the option ({' or '.join(names)}): {err.strip()!r}")
    for h in hints:
        t.check(h.lower() in low, f"[{what}] message says what is allowed ({h!r}): "
                f"{err.strip()!r}")
    t.check(not started_lines(err), f"[{what}] nothing started: EAL/DPDK lines in stderr: "
            f"{started_lines(err)[:2]}")
    t.check(not os.path.exists(t.runtime_dir(e)),
            f"[{what}] nothing started: runtime directory {t.runtime_dir(e)} exists")
    t.check("mcfan report" not in out, f"[{what}] no report printed")
    t.remove_runtime_dir(e)
    return err


def good(app, what=None, extra_eal=(), lcores="0-1", frames=N_FRAMES, duration="0.8"):
    """A run with good values: status 0, a report, exact conservation; returns the report."""
    what = what or " ".join(app)
    e = eal(extra_eal, lcores=lcores)
    timed = not any(a == "--duration" for a in app) and duration is not None
    # the capture is read once within the run's duration; on a loaded host the RX lcore may
    # not have had the CPU for it in 0.8 s (seen once: 32 of 132 frames). Such a short run
    # is run again for 3 s, once: a run that reads fewer frames then still fails below.
    tries = (duration, "3") if timed else (None,)
    for d in tries:
        args = list(app) + (["--duration", d] if d is not None else [])
        try:
            rc, out, err, rep = t.run_mcfan(e, args, timeout=60)
        except subprocess.TimeoutExpired:
            t.check(False, f"[{what}] run did not end within 60 s")
            t.remove_runtime_dir(e)
            return None
        t.remove_runtime_dir(e)
        if (rc != 0 or rep is None or frames is None or rep["rx_frames"] >= frames or
                not t.conservation(rep) or d == tries[-1]):
            break
        print(f"options: [{what}] {rep['rx_frames']} of {frames} frames read in {d} s "
              f"(a loaded host?): run again for 3 s", flush=True)
    if not t.check_eq(rc, 0, f"[{what}] exit status (stderr: {err.strip()[-300:]!r})"):
        return None
    if not t.check(rep is not None, f"[{what}] JSON report written"):
        return None
    t.check(t.conservation(rep), f"[{what}] conservation")
    if frames is not None:
        t.check_eq(rep["rx_frames"], frames, f"[{what}] rx_frames (pcap replayed once)")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"[{what}] mbufs_outside_pool")
    return rep


def roles(rep):
    return {lc["lcore"]: lc["role"] for lc in rep["lcores"]}


def worker_lcores(rep):
    return sorted(w["lcore"] for w in rep["workers"])


# ---------------------------------------------------------------------------------------------

def test_help():
    e = eal(vdev=False)
    rc, out, err = run(e, ["--help"])
    t.check_eq(rc, 0, "--help exit status")
    t.check(not started_lines(err) and not os.path.exists(t.runtime_dir(e)),
            "--help starts nothing")
    t.remove_runtime_dir(e)
    lines = out.splitlines()
    opts = ["rx-lcores", "worker-lcores", "groups", "fanout", "ring-size", "burst", "mbufs",
            "duration", "stats-period", "report-json", "config", "no-msacc", "interactive",
            "cmdline-file", "rx-engine", "worker-engine"]
    for o in opts:
        idx = [i for i, ln in enumerate(lines) if re.match(rf"\s+(-\w, )?--{o}\b", ln)]
        if not t.check(len(idx) == 1, f"--help lists --{o} once"):
            continue
        nxt = lines[idx[0] + 1] if idx[0] + 1 < len(lines) else ""
        t.check("default:" in nxt, f"--help gives the default of --{o}: {nxt!r}")
    t.check(any(re.match(r"\s+--help\b", ln) for ln in lines), "--help lists --help")
    # GROUP@SOURCE: the help says who filters by source (the switch), not that mcfan does
    flat = " ".join(ln.strip() for ln in lines)
    t.check("GROUP@SOURCE[+SOURCE] asks the network for these sources only (IGMPv3/MLDv2 "
            "INCLUDE reports: the switch filters; mcfan's data path does not filter by source, "
            "docs/igmp.md)" in flat, "--help: --groups' GROUP@SOURCE says the switch filters")
    # --stats-period prints the whole report each period, not a summary: its help says so
    t.check("print the whole text report every SEC seconds, headed '==== mcfan stats' (the "
            "final one at exit: 'report')" in " ".join(ln.strip() for ln in lines),
            "--help: --stats-period prints the whole text report")
    # --help before "--" (mcfan --help) is EAL's: its options, then mcfan's (before: EAL's
    # alone, about 100 lines, no word of mcfan's options or of "-- --help")
    p = subprocess.run([t.mcfan_path(), "--help"], capture_output=True, text=True, timeout=30)
    t.check(p.returncode == 0 and "EAL common options:" in p.stdout and
            "mcfan's own options go after '--' (mcfan [EAL options] -- [mcfan options]); "
            "mcfan -- --help prints them alone:" in p.stdout and
            re.search(r"^\s+--groups LIST\s", p.stdout, re.M) is not None,
            f"mcfan --help (no --): EAL's usage, then mcfan's: {p.returncode} "
            f"{p.stdout[-300:]!r}")
    # the example is README's, which runs on a 2-CPU host and keeps EAL off the host's NICs
    # (before: -l 0-2, "CPU 2 is not online" on 2 CPUs, and no --no-pci)
    ex = lines[lines.index("Example:") + 1].split(None, 1)[1] if "Example:" in lines else ""
    t.check_eq(ex, "-l 0-1 --no-pci --vdev net_af_packet0,iface=veth0 -- --groups "
               "239.9.9.1-10:3999 --duration 10", "--help: the example is README's")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                           "README.md")) as f:
        readme = " ".join(f.read().replace("\\\n", " ").split())
    t.check("mcfan " + ex + " --report-json report.json" in readme,
            "--help: README shows the example (with --report-json)")
    listed = set(re.findall(r"^\s+(?:-\w, )?--([a-z-]+)", out, re.M))
    # docs/guide.md's option table names exactly the options --help lists (and EAL's
    # --mbuf-pool-ops-name, which it explains)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                           "guide.md")) as f:
        table = f.read().split("| option | meaning | default |", 1)[-1].split("\n\n", 1)[0]
    named = {o for ln in table.splitlines() if ln.startswith("| ")
             for o in re.findall(r"--([a-z][a-z-]*)", ln.split(" | ")[0])}
    t.check_eq(sorted(named - {"mbuf-pool-ops-name"}), sorted(listed),
               "docs/guide.md option table: the options --help lists")
    if listed - set(opts) - {"help"}:
        print(f"NOTE: --help lists options this test does not cover yet: "
              f"{sorted(listed - set(opts) - {'help'})}")
    bad(["-h"], ["-h"], [], what="-h (no short options)")


# Every limit these pages state (a range "LO..HI"), the option that takes it, and the values
# just inside and just outside: the inside ones plan (--print-placement, nothing started),
# the outside ones are refused naming the same range (docs/guide.md's own ranges are
# test_ring_burst_mbufs' and test_times').
DOC_LIMITS = (
    ("guide.md", "2048..65407", ["--mbuf-size"], "2048", "65407", "2047", "65408"),
    ("feed.md", "1..65536", ["--seq-window"], "1", "65536", "0", "65537"),
    ("feed.md", "1..60000", ["--seq-window-ms"], "1", "60000", "0", "60001"),
    ("feed.md", "(0..1472)", ["--seq", "239.9.9.1:3999={}:1:be"], "0", "1472", None, "1473"),
    ("feed.md", "1..10000000 Hz", ["--seq", "239.9.9.1:3999=rtp:{}"], "1", "10000000", "0",
     "10000001"),
    ("delivery.md", "(1..1048576)", ["--worker-engine", "pcap:/tmp,rotate-mb={}"], "1",
     "1048576", "0", "1048577"),
    ("delivery.md", "(1..604800)", ["--worker-engine", "pcap:/tmp,rotate-s={}"], "1", "604800",
     "0", "604801"),
    ("delivery.md", "destination UDP port, 1..65535", ["--worker-engine", "tx:0,dst-port={}"],
     "1", "65535", "0", "65536"),
    ("topology.md", "1..126", ["--rx"], "1", "126", "0", "127"),
    ("topology.md", "0..65535", ["--cpu-topology", "L{}"], "0", "65535", None, "65536"),
    ("idle.md", "-20..19", ["--rx-nice"], "-20", "19", "-21", "20"),
    ("idle.md", "1..1000000 µs", ["--idle-max-sleep-us"], "1", "1000000", "0", "1000001"),
    ("metrics.md", "0..1024", ["--metrics-listen", "127.0.0.1:9", "--metrics-max-groups"],
     "0", "1024", None, "1025"),
)


def test_doc_limits():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")
    for doc, text, args, lo, hi, below, above in DOC_LIMITS:
        with open(os.path.join(root, doc)) as f:
            t.check(text in f.read(), f"docs/{doc} states the range {text!r}")
        rng = re.search(r"(-?[0-9]+)\.\.([0-9]+)", text).groups()

        def argv(v):
            a = [x.replace("{}", v) for x in args]
            return a if any("{}" in x for x in args) else a + [v]
        for v in (lo, hi):
            app = ["--groups", "239.9.9.1:3999", "--cpu-topology", "L0-3C0-3", *argv(v),
                   "--print-placement"]
            if "--cpu-topology" in args:
                app = ["--groups", "239.9.9.1:3999", *argv(v), "--print-placement"]
            p = subprocess.run([t.mcfan_path(), "--no-huge", "--file-prefix",
                                f"{t.file_prefix(eal())}", "--", *app], capture_output=True,
                               text=True, timeout=30, stdin=subprocess.DEVNULL)
            t.check_eq(p.returncode, 0, f"docs/{doc} {text}: {' '.join(argv(v))} accepted "
                       f"({p.stderr.strip()[-200:]!r})")
        for v in (below, above):
            if v is not None:
                bad(["--groups", "239.9.9.1:3999", *argv(v)],
                    [[a for a in args if a.startswith("--")][-1]],
                    ["..".join(rng)], what=f"docs/{doc} {text}: {' '.join(argv(v))}")


def test_corelists():
    for opt in ("--rx-lcores", "--worker-lcores"):
        bad([opt, "x"], [opt], ["corelist"])
        bad([opt, "2-1"], [opt], ["decreasing"])
        bad([opt, "1,1"], [opt], ["twice"])
        bad([opt, "1-3,2"], [opt], ["twice"])
        bad([opt, "200"], [opt], ["0..127"])
        bad([opt, ""], [opt], ["corelist"])
        bad([opt, "1,"], [opt], ["empty"])
        bad([opt, "-1"], [opt], ["corelist"])
    # good: one lcore, a range; RX and workers apart and together
    rep = good(["--rx-lcores", "1"])
    if rep:
        t.check("rx" in roles(rep).get(1, ""), f"--rx-lcores 1: lcore 1 polls RX: {roles(rep)}")
    rep = good(["--rx-lcores", "1-2"], extra_eal=LCORES3, lcores=None)
    if rep:
        r = roles(rep)
        t.check("rx" in r.get(1, "") and "rx" in r.get(2, ""),
                f"--rx-lcores 1-2: lcores 1 and 2 poll RX: {r}")
        t.check_eq(worker_lcores(rep), [1, 2], "--rx-lcores 1-2: run-to-completion workers")
    rep = good(["--worker-lcores", "1"])
    if rep:
        t.check_eq(worker_lcores(rep), [1], "--worker-lcores 1")
    rep = good(["--worker-lcores", "1-2"], extra_eal=LCORES3, lcores=None)
    if rep:
        t.check_eq(worker_lcores(rep), [1, 2], "--worker-lcores 1-2")
    rep = good(["--rx-lcores", "1", "--worker-lcores", "2-3"], extra_eal=LCORES4, lcores=None)
    if rep:
        t.check_eq(worker_lcores(rep), [2, 3], "--rx-lcores 1 --worker-lcores 2-3: workers")
        t.check_eq(roles(rep).get(1), "rx", "--rx-lcores 1 --worker-lcores 2-3: lcore 1 role")


def test_groups():
    bad(["--groups", "10.0.0.1"], ["--groups"], ["multicast", "224.0.0.0/4"])
    bad(["--groups", "255.255.255.255"], ["--groups"], ["multicast"])
    bad(["--groups", "[fe80::1]"], ["--groups"], ["multicast", "ff00::/8"])
    # IPv6 scope 0 (reserved) and 1 (interface-local) reach no port (RFC 4291 2.7): refused
    # (before: joined, and never a frame; also a groups = line, join: one parser)
    bad(["--groups", "239.9.9.1,[ff01::1]:5000"], ["--groups"],
        ["'[ff01::1]:5000'", "scope 1 (interface-local)", "link-local scope (2) and wider"])
    bad(["--groups", "[ff30::1]"], ["--groups"], ["scope 0 (reserved)", "link-local scope (2)"])
    bad_cfg("[mcfan]\ngroups = [ff11::1]:5000\n", "groups of scope 1",
            ["line 2", "scope 1 (interface-local)", "link-local scope (2) and wider"])
    bad(["--groups", "239.9.9.1:0"], ["--groups"], ["1..65535"])
    bad(["--groups", "239.9.9.1:70000"], ["--groups"], ["1..65535"])
    bad(["--groups", "239.9.9.1:x"], ["--groups"], ["1..65535"])
    bad(["--groups", "239.9.9.1,239.9.9.1"], ["--groups"], ["twice"])
    bad(["--groups", "239.9.9.1-3:3999,239.9.9.2:3999"], ["--groups"], ["twice"])
    bad(["--groups", "[ff3e::1]:5000,[ff3e:0::1]:5000"], ["--groups"], ["twice"])
    bad(["--groups", "239.9.9.5-1"], ["--groups"], ["239.9.9.5-1", "e.g."])
    bad(["--groups", "239.9.9"], ["--groups"], ["239.9.9", "e.g."])
    # a bare IPv6 group: the bracket hint is the example, one "e.g." (before: "... goes in
    # brackets, e.g. [ff15::1]:5000 (e.g. 239.9.9.1-10:3999 or [ff15::1]:5000)")
    err = bad(["--groups", "ff3e::1"], ["--groups"], ["goes in brackets, e.g. [ff15::1]:5000"])
    t.check_eq(err.count("e.g."), 1, f"--groups ff3e::1: one example: {err.strip()!r}")
    bad(["--groups", ""], ["--groups"], ["239.9.9.1-10:3999"])
    bad(["--groups", "239.9.9.1,,239.9.9.2"], ["--groups"], ["239.9.9.1-10:3999"])
    # too many: one range of 1025, and 1025 in separate items
    bad(["--groups", "239.8.0.0-239.8.4.0"], ["--groups"], ["1024"])
    many = ",".join(f"239.8.{i // 256}.{i % 256}" for i in range(1025))
    bad(["--groups", many], ["--groups"], ["1024"], what="--groups with 1025 items")
    # an IPv6 item past the limit gets the same answer as an IPv4 one (a trial finding)
    bad(["--groups", "239.1.0.0-239.1.3.255,[ff3e::1]"], ["--groups"],
        ["'[ff3e::1]': names more groups than allowed", "1024"],
        what="--groups with an IPv6 group after 1024")

    rep = good(["--groups", "239.9.9.1-10:3999,[ff3e::1]:5000,239.7.7.7"])
    if rep:
        g = t.group_frames(rep)
        want = {(f"239.9.9.{i}", 3999): N_SEED // 10 for i in range(1, 11)}
        want[("ff3e::1", 5000)] = N_V6
        want[("239.7.7.7", None)] = N_ANY
        t.check_eq(g, want, "--groups ranges, IPv6 and any-port: per-group frames")
        t.check_eq(rep["drops"]["unknown_group"], 0, "every frame of the pcap joined")
    rep = good(["--groups", "239.9.9.1-239.9.9.10"])
    if rep:
        t.check_eq(t.group_frames(rep),
                   {(f"239.9.9.{i}", None): N_SEED // 10 for i in range(1, 11)},
                   "--groups whole-address range without port")
        t.check_eq(rep["drops"]["unknown_group"], N_V6 + N_ANY, "unjoined groups counted")
    rep = good(["--groups", "[ff3e::1]"])
    if rep:
        t.check_eq(t.group_frames(rep), {("ff3e::1", None): N_V6}, "--groups [ff3e::1]")
    # exactly 1024 is allowed
    rep = good(["--groups", "239.8.0.0-239.8.3.255"])
    if rep:
        t.check_eq(len(rep["groups"]), 1024, "--groups with exactly 1024 groups")
    rep = good([])
    if rep:
        t.check_eq(rep["groups"], [], "no --groups: no group")
        t.check_eq(rep["drops"]["unknown_group"], N_FRAMES, "no --groups: all unknown_group")


def test_fanout():
    bad(["--fanout", "broadcast"], ["--fanout"], ["partition", "replicate"])
    bad(["--fanout", ""], ["--fanout"], ["partition", "replicate"])
    bad(["--fanout", "Partition"], ["--fanout"], ["partition", "replicate"])
    for mode in ("partition", "replicate"):
        rep = good(["--fanout", mode, "--groups", "239.9.9.1-10:3999"], extra_eal=LCORES4,
                   lcores=None)
        if not rep:
            continue
        t.check_eq(rep["fanout"], mode, f"--fanout {mode}: report")
        nw = len(rep["workers"])
        t.check_eq(nw, 2, f"--fanout {mode}: two workers")
        want = N_SEED * (nw if mode == "replicate" else 1)
        t.check_eq(rep["delivered_copies"], want, f"--fanout {mode}: delivered copies")
        for g in rep["groups"]:
            t.check_eq(len(g["workers"]), nw if mode == "replicate" else 1,
                       f"--fanout {mode}: workers of {g['group']}")


def test_ring_burst_mbufs():
    bad(["--ring-size", "1000"], ["--ring-size"], ["power of two"])
    bad(["--ring-size", "0"], ["--ring-size"], ["power of two"])
    bad(["--ring-size", "x"], ["--ring-size"], ["power of two"])
    bad(["--ring-size", "-8"], ["--ring-size"], ["power of two"])
    bad(["--ring-size", str(1 << 25)], ["--ring-size"], ["power of two"])
    bad(["--ring-size", "16", "--burst", "32"], ["--ring-size"], ["--burst"])
    bad(["--ring-size", "16"], ["--ring-size"], ["burst"], what="--ring-size 16 (burst 32)")
    bad(["--burst", "0"], ["--burst"], ["1..512"])
    bad(["--burst", "513"], ["--burst"], ["1..512"])
    bad(["--burst", "-1"], ["--burst"], ["1..512"])
    bad(["--burst", "3x"], ["--burst"], ["1..512"])
    bad(["--burst", "99999999999999999999999"], ["--burst"], ["1..512"])
    bad(["--mbufs", "10"], ["--mbufs"], ["1023.."])
    bad(["--mbufs", "x"], ["--mbufs"], ["1023.."])
    bad(["--mbufs", str((1 << 26) + 1)], ["--mbufs"], ["1023.."])
    # --mbuf-size: frame bytes after the headroom, DPDK's 2048 up to a uint16_t data room
    for v in ("0", "2047", "65408", "65536", "9k", "-1", "", "0x1000", "99999999999999999999"):
        bad(["--mbuf-size", v], ["--mbuf-size"], ["2048..65407", "128-byte headroom"],
            what=f"--mbuf-size {v!r}")

    for rs, b in (("32", "32"), ("64", None), ("2048", None), ("512", "512")):
        app = ["--ring-size", rs, "--groups", "239.9.9.1-10:3999"]
        if b:
            app += ["--burst", b]
        rep = good(app)
        if rep:
            t.check(all(w["ring_size"] == int(rs) for w in rep["workers"]),
                    f"--ring-size {rs}: workers' ring_size {[w['ring_size'] for w in rep['workers']]}")
            t.check_eq(rep["delivered_frames"], N_SEED, f"{' '.join(app)}: delivered")
    rep = good(["--burst", "1", "--groups", "239.9.9.1-10:3999"])
    if rep:
        t.check_eq(rep["delivered_frames"], N_SEED, "--burst 1: delivered")
        t.check(all(w["ring_high_water"] <= 1 for w in rep["workers"]),
                f"--burst 1: at most one frame waits in a ring at a time "
                f"{[w['ring_high_water'] for w in rep['workers']]}")
    for n in ("9000", "16384"):
        rep = good(["--mbufs", n])
        if rep:
            t.check_eq(rep["mbufs_total"], int(n), f"--mbufs {n}: pool size")
    for n in ("2048", "9184", "65407"):
        rep = good(["--mbuf-size", n, "--mbufs", "1023", "--groups", "239.9.9.1-10:3999"])
        if rep:
            t.check_eq(rep["mbuf_size"], int(n), f"--mbuf-size {n}: the pool's mbufs")
            t.check_eq(rep["delivered_frames"], N_SEED, f"--mbuf-size {n}: delivered")


def test_times():
    for opt in ("--duration", "--stats-period"):
        for v in ("-1", "1e3", "abc", "", ".5", "1.", "1,5", "0x10", "inf", "nan", " 1",
                  "99999999999"):
            bad([opt, v], [opt], ["seconds"], what=f"{opt} {v!r}")
    # --duration: the JSON report's duration_s follows it (a generous upper bound only)
    rep = good(["--duration", "0.5"], duration=None, frames=None)
    if rep:
        t.check(0.45 <= rep["duration_s"] < 10, f"--duration 0.5: duration_s "
                f"{rep['duration_s']}")
    rep = good(["--duration", "01.5"], duration=None)
    if rep:
        t.check(1.45 <= rep["duration_s"] < 12, f"--duration 01.5 (leading zero, decimal): "
                f"duration_s {rep['duration_s']}")
    # --duration 0: until a signal
    e = eal()
    p = t.McfanProcess(e, ["--duration", "0"])
    started = p.wait_line("running", 30) is not None
    t.check(started, "--duration 0: runs")
    if started:
        import time
        time.sleep(0.5)
        t.check(p.p.poll() is None, "--duration 0: still running after 0.5 s")
    p.signal(signal.SIGINT)
    t.check_eq(p.wait(30), 0, "--duration 0: stops on SIGINT, status 0")
    t.remove_runtime_dir(e)
    # --stats-period: a decimal, "08" is eight (not octal); 0 is off
    e = eal()
    rc, out, err = run(e, ["--stats-period", "0.25", "--duration", "1.6"])
    t.remove_runtime_dir(e)
    n = out.count("==== mcfan stats")
    t.check(rc == 0 and n >= 2, f"--stats-period 0.25 --duration 1.6: status {rc}, "
            f"{n} periodic reports (>= 2 expected)")
    # each one the whole text report (as --help says), with mbufs in use at its end
    first = out.split("==== mcfan stats")[1].split("==== mcfan")[0] if n else ""
    t.check(all(s in first for s in ("\nports:\n", "\ngroups (joined", "\nworkers:\n",
                                     "\nmicrostate accounting", "\nmbufs in use: ")),
            f"--stats-period: a periodic print is the whole text report: {first[-300:]!r}")
    final = out.split("==== mcfan report")[-1] if "==== mcfan report" in out else ""
    t.check("\nmbufs outside their pool: " in final and "\nmbufs in use: " not in final,
            f"--stats-period: the final report ends with mbufs outside their pool: "
            f"{final[-200:]!r}")
    # the docs say the same: guide.md's --stats-period row and the seed workload's comment
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(root, "docs", "guide.md")) as f:
        row = [ln for ln in f if ln.startswith("| `--stats-period SEC` |")]
    t.check(len(row) == 1 and "each ends with `mbufs in use`; the final one at exit is "
            "headed `report` and ends with `mbufs outside their pool`" in row[0],
            f"docs/guide.md --stats-period row says which report ends how: {row!r}")
    with open(os.path.join(root, "config", "seed-workload.ini")) as f:
        seed = f.read()
    t.check("stats-period" in seed and "summary" not in seed and
            "Print the whole text report every" in seed,
            "config/seed-workload.ini: stats-period prints the whole report, no 'summary'")
    e = eal()
    rc, out, err = run(e, ["--stats-period", "0", "--duration", "0.6"])
    t.remove_runtime_dir(e)
    t.check(rc == 0 and "==== mcfan stats" not in out, "--stats-period 0: no periodic report")
    # 08 is eight seconds (decimal, never octal): as show config gives it (the period's
    # timing is the 0.25 s run's above; waiting 9 s for the one report at 8 s took 18 s of CI)
    e = eal()
    p = subprocess.run([t.mcfan_path(), *e, "--", "--stats-period", "08", "-i"],
                       input="show config\nquit\n", capture_output=True, text=True, timeout=60)
    t.remove_runtime_dir(e)
    t.check(p.returncode == 0 and "\nstats-period:  8.000 s\n" in p.stdout,
            f"--stats-period 08: eight seconds in show config: {p.returncode} "
            f"{p.stdout[-300:]!r}")


def test_paths_flags():
    bad(["--report-json", ""], ["--report-json"], ["path"])
    bad(["--report-json", "x" * 5000], ["--report-json"], ["path"])
    bad(["--config", ""], ["--config"], ["path"])
    # --report-json: written by rename (no temporary left next to it)
    d = tempfile.mkdtemp(dir=TMP)
    path = os.path.join(d, "r.json")
    e = eal()
    # (with a feed rule and a pair, so that the report has every key docs/guide.md names)
    rc, out, err = run(e, ["--report-json", path, "--duration", "1",
                           "--groups", "239.9.9.1-10:3999", "--seq", "239.9.9.1-2:3999=iperf2",
                           "--seq-pair", "239.9.9.1:3999,239.9.9.2:3999"])
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, "--report-json: exit status")
    t.check_eq(sorted(os.listdir(d)), ["r.json"], "--report-json: only the report in its dir")
    try:
        with open(path) as f:
            rep = json.load(f)
        t.check_eq(rep["rx_frames"], N_FRAMES, "--report-json: content")
        for k in ("rx_frames", "delivered_frames", "delivered_copies", "drops", "ports",
                  "groups", "workers", "lcores", "mbufs_outside_pool"):
            t.check(k in rep, f"--report-json: top-level key {k}")
        doc_report_keys(rep)
        doc_msacc_sample(out)
    except (OSError, ValueError) as ex:
        t.check(False, f"--report-json: cannot read the report: {ex}")
    # --no-msacc: a flag; it takes no value
    good(["--no-msacc"])
    err = bad(["--no-msacc=yes"], ["no-msacc"])
    t.check("unknown option" not in err,
            f"--no-msacc=yes: the message says the option takes no value, not that it is "
            f"unknown: {err.strip()!r}")
    # the console's options (their behaviour is test_console's): flag and path syntax
    bad(["--interactive=yes"], ["interactive"], what="--interactive=yes")
    bad(["-i", "--interactive"], ["interactive"], ["twice"], what="-i --interactive")
    bad(["--cmdline-file", ""], ["--cmdline-file"], ["path"])
    # --help with values: help wins (exit 0, nothing started)
    e = eal()
    rc, out, err = run(e, ["--burst", "32", "--help"])
    t.check(rc == 0 and "Usage" in out and not started_lines(err), "--burst 32 --help: help")
    t.remove_runtime_dir(e)


def doc_report_keys(rep):
    """docs/guide.md "The report" table against a real JSON report: its key column names
    exactly the top-level keys, and each row of a list or object (`ports[]`, `lcores[].idle`,
    `workers[].latency` ...) names every key that list's elements or that object have."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(root, "docs", "guide.md")) as f:
        text = f.read().split("\n## The report\n", 1)[-1].split("\n### ", 1)[0]
    rows = {}
    for ln in text.splitlines():
        cells = ln.split(" | ")
        if ln.startswith("| `") and len(cells) >= 2:
            content = set(re.findall(r"`([a-z0-9_]+)(?:\[\])?`", " | ".join(cells[1:])))
            for key in re.findall(r"`([a-z0-9_.\[\]]+)`", cells[0]):
                rows[key] = content
    top = {k for k in rows if "[" not in k and "." not in k}
    for key in [k for k in rows if "[]." in k]:     # lcores[].idle names lcores[]'s idle
        rows.setdefault(key.split(".")[0], set()).add(key.split(".")[1])
    t.check_eq(sorted(top | {k.split("[")[0] for k in rows}), sorted(rep),
               "docs/guide.md report table: its keys are the JSON report's top-level keys")
    for key, content in rows.items():
        objs = [rep.get(key)] if key in top else []
        if key.endswith("[]"):
            objs = rep.get(key[:-2]) or []
        elif "[]." in key:
            lst, sub = key.split("[].")
            objs = [o.get(sub) for o in rep.get(lst) or []]
        keys = set().union(*[o for o in objs if isinstance(o, dict)]) if objs else set()
        if key in top and key not in ("drops", "topology", "igmp"):
            keys = keys if isinstance(rep.get(key), dict) else set()
        elif key in ("drops", "topology", "igmp"):
            continue        # reasons, and their own pages (docs/topology.md, docs/igmp.md)
        t.check(keys <= content, f"docs/guide.md report row {key}: names every key of the "
                f"real report (missing: {sorted(keys - content)})")
    # the feed objects' keys are docs/feed.md's: the counter table, and the A/B section
    with open(os.path.join(root, "docs", "feed.md")) as f:
        feed = f.read()
    table = feed.split("| counter | meaning |", 1)[-1].split("\n\n", 1)[0]
    names = set(re.findall(r"`([a-z0-9_]+)`", table))
    keys = set().union(*[g["feed"] for g in rep.get("groups", []) if g.get("feed")])
    t.check(bool(keys) and keys <= names, f"docs/feed.md counter table: names every key of "
            f"the report's groups[].feed (missing: {sorted(keys - names)})")
    ab = set(re.findall(r"`([a-z0-9_]+)`", feed.split("\n## A/B arbitration", 1)[-1]))
    pairs = rep.get("feed_pairs") or []
    keys = set().union(*pairs, *[ln for p in pairs for ln in p.get("lines", [])])
    t.check(bool(keys) and keys <= ab, f"docs/feed.md \"A/B arbitration\": names every key "
            f"of the report's feed_pairs (missing: {sorted(keys - ab)})")


def doc_msacc_sample(out):
    """docs/msacc.md's sample output against a real text report's microstate accounting:
    the same section titles and column headers, lcores in the same order (the control lcore
    first)."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(root, "docs", "msacc.md")) as f:
        doc = f.read().split("Sample output (made-up numbers):\n\n```\n", 1)[-1]
    doc = doc.split("```", 1)[0].splitlines()
    real = ("msacc: window" + out.split("\nmsacc: window", 1)[-1]).splitlines()

    def tables(lines):
        """{title: (column header words, role of the first row)} of a msacc text"""
        got = {}
        for i, ln in enumerate(lines[:-2]):
            if ln.startswith(("Stats per ", "Counters per ")):
                got[ln] = (lines[i + 1].split(), lines[i + 2].split()[1])
        return got
    window = r"msacc: window [0-9.]+ ms \([0-9]+ cycles at [0-9]+ Hz\), [0-9]+ lcores$"
    t.check(bool(re.match(window, doc[0]) and re.match(window, real[0])),
            f"docs/msacc.md sample: the window line as the report's: {doc[:1]} {real[:1]}")
    want, got = tables(doc), tables(real)
    t.check_eq(list(want), list(got)[:len(want)], "docs/msacc.md sample: the report's tables")
    for title in want:     # per lcore the control lcore comes first; per role, rx first
        w, g = want[title], got.get(title) or ([], "")
        t.check_eq((w[0], w[1] if "lcore" in title else ""),
                   (g[0], g[1] if "lcore" in title else ""),
                   f"docs/msacc.md sample: {title} columns (and first row's role)")


def test_report_stdout():
    """--report-json -: the JSON report on standard output, alone (the text reports go to
    standard error); no file named '-'; refused with the console, which writes there."""
    d = tempfile.mkdtemp(dir=TMP)
    e = eal()
    cmd = [t.mcfan_path(), *e, "--", "--groups", "239.9.9.1-10:3999", "--stats-period", "0.3",
           "--duration", "1", "--report-json", "-"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=d,
                       stdin=subprocess.DEVNULL)
    t.remove_runtime_dir(e)
    t.check_eq(p.returncode, 0, "--report-json -: exit status")
    t.check_eq(os.listdir(d), [], "--report-json -: no file named '-' (nor any other) made")
    try:
        rep = json.loads(p.stdout)
        t.check_eq(rep["rx_frames"], N_FRAMES, "--report-json -: the JSON on stdout")
        t.check_eq(rep["delivered_frames"], N_SEED, "--report-json -: delivered in the JSON")
    except ValueError as ex:
        t.check(False, f"--report-json -: stdout is not one JSON document: {ex}: "
                f"{p.stdout[:200]!r}")
    t.check(p.stdout.endswith("}\n"), "--report-json -: the JSON ends with a newline")
    t.check("==== mcfan report" in p.stderr and "==== mcfan stats" in p.stderr,
            "--report-json -: the final and periodic text reports go to stderr")
    # a file named '-' is ./-
    e = eal()
    p = subprocess.run([t.mcfan_path(), *e, "--", "--duration", "0.3", "--report-json", "./-"],
                       capture_output=True, text=True, timeout=60, cwd=d,
                       stdin=subprocess.DEVNULL)
    t.remove_runtime_dir(e)
    t.check(p.returncode == 0 and os.listdir(d) == ["-"] and "==== mcfan report" in p.stdout,
            f"--report-json ./-: a file named '-', text report on stdout: {p.returncode} "
            f"{os.listdir(d)}")
    # the console writes to standard output: refused, before EAL
    words = ["standard output", "give the report a file"]
    bad(["--report-json", "-", "-i"], ["--report-json -"], [*words, "leave -i out"],
        what="--report-json - -i")
    script = cfg("show counters\n")
    bad(["--report-json", "-", "--cmdline-file", script], ["--report-json -"],
        [*words, "leave --cmdline-file out"], what="--report-json - --cmdline-file")
    bad(["--config", cfg("[mcfan]\ninteractive = yes\n"), "--report-json", "-"],
        ["--report-json -"], [*words, "(-i)"], what="--report-json - with interactive = yes")


def test_argv_errors():
    bad(["--bogus"], ["--bogus"], ["--help"])
    bad(["--burst", "32", "--burst", "64"], ["--burst"], ["twice"])
    bad(["--no-msacc", "--no-msacc"], ["--no-msacc"], ["twice"])
    bad(["--groups", "239.9.9.1", "--groups", "239.9.9.2"], ["--groups"], ["twice"])
    bad(["--burst"], ["--burst"], ["value"], what="--burst without a value")
    bad(["--groups"], ["--groups"], ["value"], what="--groups without a value")
    bad(["stray"], ["stray"], ["--"], what="a stray argument")
    # a group list with a blank, as the shell splits it (before: only "unexpected argument")
    bad(["--groups", "239.9.9.1", "239.9.9.2"], ["'239.9.9.2'"],
        ["--groups takes one comma-separated list, without blanks",
         "--groups 239.9.9.1,239.9.9.2"], what="--groups A B")
    bad(["--groups", "239.9.9.1,", "[ff3e::1]:5000"], ["'[ff3e::1]:5000'"],
        ["comma-separated list, without blanks"], what="--groups 'A, B'")
    bad(["-x"], ["-x"], [], what="a short option")
    # an EAL option after "--" (before: "unknown option '--file-prefix' (see '-- --help')",
    # as if mcfan had no use for it)
    for a in (["--file-prefix", "x"], ["--no-huge"], ["--vdev=net_null0"], ["-l", "0-1"],
              ["-l0-1"], ["--log-level", "debug"], ["-m", "512"]):
        bad(a, [f"'{a[0]}' is an EAL option"], ["give it before '--'"],
            what=f"EAL option {a[0]} after --")
    # an mcfan option before "--" (before: EAL's "Invalid 'command line' arguments" and its
    # whole usage, about 100 lines, none naming --groups)
    for a in (["--groups", "239.9.9.1"], ["--duration=3"], ["--no-msacc"]):
        bad([], [f"'{a[0]}' is an mcfan option"], ["give it after '--'"],
            what=f"mcfan option {a[0]} before --", extra_eal=a)
    # --proc-type secondary or auto: mcfan would attach to another primary's memory and
    # configure its ports (before: secondary failed in EAL's words, "Cannot init config",
    # exit 1; auto ran, as a secondary whenever a primary of the prefix ran)
    # (EAL takes the value in any case: --proc-type=Secondary made a secondary too)
    for v in ("secondary", "auto", "Secondary", "AUTO"):
        bad([], [f"--proc-type {v}: mcfan runs as EAL's primary process"],
            ["dpdk-telemetry.py -f PREFIX", "leave --proc-type out"],
            what=f"--proc-type {v}", extra_eal=[f"--proc-type={v}" if v.lower() == "auto" else
                                                "--proc-type", *([] if v.lower() == "auto" else
                                                                 [v])])
    # a --proc-type that is no process type, empty, or without a value: one line before EAL
    # (before: EAL's "Invalid process type specified", its usage, "Invalid 'command line'
    # arguments" and mcfan's "EAL initialisation failed" after them)
    for ex, word in ((["--proc-type", "bogus"], "--proc-type 'bogus': not a process type"),
                     (["--proc-type="], "--proc-type '': not a process type"),
                     (["--proc-type", "--no-pci"], "--proc-type '--no-pci': not a process type"),
                     (["--proc-type"], "--proc-type needs a value")):
        err = bad([], [word], ["mcfan runs as EAL's primary process", "leave --proc-type out"],
                  what=" ".join(ex), extra_eal=ex)
        t.check_eq(len(err.strip().splitlines()), 1, f"{' '.join(ex)}: one line: {err!r}")
    # a control byte in an option's value: the errors quote the value, and an escape sequence
    # reached the terminal raw (before: "--fanout: '\x1b]0;x\x07' is not a mode"; a CR kept
    # from a CRLF file: "group '239.9.9.1\r': not a valid IPv4 address", the CR unseen)
    for a, where in ((["--fanout", "\x1b]0;x\x07"], "after '--fanout' holds control character "
                      "0x1b at column 1:"),
                     (["--groups", "239.9.9.1\r"], "after '--groups' holds control character "
                      "0x0d at column 10, after '239.9.9.1':")):
        err = bad(a, [where], ["options and values are text", "CRLF"],
                  what=f"control byte in {a[0]}")
        t.check(not any(c in err for c in "\x1b\x07\r"),
                f"control byte in {a[0]}: none in the message: {err!r}")
    # a tab stays a separator of --seq rules, as a blank is
    good(["--groups", "239.9.9.1-10:3999", "--seq", "239.9.9.1:3999=iperf2\t239.9.9.2:3999=rtp"],
         what="--seq rules apart by a tab")
    # an abbreviated EAL long option: EAL's getopt_long takes it, mcfan's checks before EAL
    # know the full names only (before: --file-pref ../X made /var/run/X the runtime
    # directory, --in-mem beside --no-huge got EAL's whole usage, --log-lev foo:bar ran with
    # EAL's warning alone)
    escape = f"{t.PREFIX}-abbr-{os.getpid()}"
    for a, full in ((["--file-pref", f"../{escape}"], "--file-prefix"),
                    ([f"--file-pre=../{escape}"], "--file-prefix"),
                    (["--in-mem"], "--in-memory"), (["--log-lev", "foo:bar"], "--log-level"),
                    (["--no-h"], "--no-hpet or --no-huge")):
        bad([], [f"EAL option '{a[0]}'"], ["not abbreviated", f"did you mean {full}?"],
            what=f"EAL option {a[0]} abbreviated", extra_eal=a)
        t.check(not os.path.exists(f"/var/run/{escape}"),
                f"{a[0]}: no runtime directory /var/run/{escape} outside /var/run/dpdk")
        shutil.rmtree(f"/var/run/{escape}", ignore_errors=True)


def test_eal_memory():
    """EAL's -m in a form DPDK 22.11's atoi() reads as another size: refused before EAL
    (before: -m 1G started with 1 MB and failed at the pool with "raise -m", -m 0x200 and
    -m abc ran on EAL's default 64 MB, -m 4294967808 on 512 MB, all without a word)."""
    for v, eal_reads in (("1G", "1 MB"), ("512M", "512 MB"), ("0x200", "EAL's default"),
                         ("abc", "EAL's default"), ("0", "EAL's default"),
                         ("4294967808", "512 MB"), ("-5", "negative"), (" 512", "512 MB")):
        bad([], [f"-m '{v}'"], ["whole number of megabytes", eal_reads, "-m 1024 for 1 GB"],
            what=f"-m {v!r}", extra_eal=["-m", v])
    bad([], ["-m '2g'"], ["1..2147483647"], what="-m2g", extra_eal=["-m2g"])
    # -m after bundled flags, as getopt reads it: -vm1G is -v -m 1G, -hvm 1G is -h -v -m 1G
    # (before: no scan saw -m in them; -vm1G started with 1 MB and failed at the pool, 1)
    for extra in (["-vm1G"], ["-hvm", "1G"]):
        bad([], ["-m '1G'"], ["whole number of megabytes", "-m 1024 for 1 GB"],
            what=" ".join(extra), extra_eal=extra)
    # a decimal number of megabytes still starts, given last or as -mN
    for extra in (["-m", "256"], ["-m256"], ["-vm256"]):
        rc, out, err = run(eal(extra), ["--groups", "239.9.9.1-10:3999", "--duration", "0.3"])
        t.check_eq(rc, 0, f"-m {extra}: exit status ({err.strip()[-200:]!r})")
    # the separate value of an EAL option is that option's, whatever it looks like (getopt
    # gives it the next argument): --huge-dir -m1G and --huge-dir -h name a directory
    # (before: refused as "-m '1G': not a whole number of megabytes"; -h set the EAL help
    # hook)
    for v in ("-m1G", "-h"):
        rc, out, err = run(eal(["--huge-dir", v]), ["--groups", "239.9.9.1-10:3999",
                                                    "--duration", "0.3"])
        t.check(rc == 0 and "-m '" not in err and "Usage:" not in out + err and
                "mcfan report" in out,
                f"--huge-dir {v}: a directory's name, the run starts: {rc} {err.strip()[-300:]!r}")


def test_eal_log_level():
    """EAL's --log-level with a level DPDK 22.11 cannot read, or a TYPE,LEVEL whose TYPE is
    not a regular expression: refused before EAL (before: EAL printed "Invalid log level:
    debugg" and the run went on at the default level, status 0)."""
    for v, word in (("debugg", "'debugg' is not a log level"), ("9", "'9' is not"),
                    ("", "'' is not"), ("pmd.net.*:debugg", "'debugg' is not"),
                    ("x[,debug", "not a regular expression")):
        bad([], ["--log-level"], [word, "emergency", "1..8", "TYPE:LEVEL"],
            what=f"--log-level {v!r}", extra_eal=["--log-level", v])
    bad([], ["--log-level 'inf0'"], ["'inf0' is not a log level"], what="--log-level=inf0",
        extra_eal=["--log-level=inf0"])
    # a level EAL reads (a name, its prefix, a number, with a type) still starts
    for v in ("debug", "notice", "8", "pmd.net.*:info", "lib.eal,warn"):
        rc, out, err = run(eal(["--log-level", v]),
                           ["--groups", "239.9.9.1-10:3999", "--duration", "0.3"])
        t.check_eq(rc, 0, f"--log-level {v}: exit status ({err.strip()[-200:]!r})")


def online_cpus():
    """The online CPUs' ids (sysfs), as EAL and mcfan read them."""
    ids = set()
    with open("/sys/devices/system/cpu/online") as f:
        for part in f.read().strip().split(","):
            a, _, b = part.partition("-")
            ids.update(range(int(a), int(b or a) + 1))
    return ids


def test_eal_cpus():
    """A CPU of -l, -c or --lcores that is not online: one line naming it and the online
    CPUs, exit 2 before EAL (before: EAL's "lcore 2 unavailable" and its whole usage, 60
    lines). A CPU outside the process's affinity (taskset): warned, and the run goes on."""
    cpus = online_cpus()
    n = max(cpus) + 1
    if n + 2 >= 128:
        print(f"options: eal cpus skipped ({n} CPUs: no id above them below RTE_MAX_LCORE)")
        return
    listed = f"0-{max(cpus)}" if cpus == set(range(n)) else ",".join(map(str, sorted(cpus)))
    for opt, v in (("-l", f"0-{n}"), ("-c", hex((1 << (n + 1)) - 1)),
                   ("--lcores", f"0@0,1@{n + 1}")):
        want = n + 1 if opt == "--lcores" else n
        err = bad([], [f"{opt} {v}"], [f"CPU {want} is not online on this host",
                                       f"(its CPUs: {listed})", "--lcores"],
                  what=f"{opt} {v}", extra_eal=[opt, v], lcores=None)
        t.check_eq(len(err.strip().splitlines()), 1, f"{opt} {v}: one line")
        # the example places the lcores asked, no more (before: '0@0,(1-3)@1' whatever
        # was asked: 4 lcores for -l 0-2)
        if opt == "--lcores":
            t.check("name an online CPU after each '@'" in err, f"{opt} {v}: its hint: {err!r}")
        elif cpus == set(range(n)) and os.sched_getaffinity(0) == cpus:
            last = 0 if n == 1 else n - 1
            want_ex = ",".join(f"{i}@{i}" for i in range(n)) + f",{n}@{last}"
            t.check(f"(e.g. --lcores '{want_ex}')" in err, f"{opt} {v}: example {want_ex}: "
                    f"{err.strip()!r}")
    # -l 1-N, -l 0,N: the lcore beyond the CPUs on the CPU none of the others uses
    if cpus == set(range(n)) and os.sched_getaffinity(0) == cpus and n > 1:
        for v, want_ex in ((f"1-{n}", ",".join(f"{i}@{i}" for i in range(1, n)) + f",{n}@0"),
                           (f"0,{n}", f"0@0,{n}@1")):
            err = bad([], [f"-l {v}"], [f"(e.g. --lcores '{want_ex}')"], what=f"-l {v}",
                      extra_eal=["-l", v], lcores=None)
    # the value attached (-l0-N, -cMASK) or after bundled flags (-vl0-N, -vl 0-N, -vcMASK):
    # the same line (before: -vl0-N went to EAL, "lcore N unavailable" and its usage)
    for opt, extra in (("-l", [f"-l0-{n}"]), ("-c", [f"-c{hex((1 << (n + 1)) - 1)}"]),
                       ("-l", [f"-vl0-{n}"]), ("-l", ["-vl", f"0-{n}"]),
                       ("-c", [f"-vc{hex((1 << (n + 1)) - 1)}"])):
        err = bad([], [f"{opt} "], [f"CPU {n} is not online on this host", "--lcores"],
                  what=" ".join(extra), extra_eal=extra, lcores=None)
        t.check_eq(len(err.strip().splitlines()), 1, f"{' '.join(extra)}: one line")
    # a list EAL refuses itself (an lcore id above RTE_MAX_LCORE - 1, a bad mask): EAL says
    # why (before: exit 2 and not a word, the pre-EAL check returned its parse error)
    for opt, v, words in (("-l", "0,200", "lcore 200 >= RTE_MAX_LCORE"),
                          ("-c", "0xg", "invalid characters in coremask"),
                          ("--lcores", "0@0,200@1", "invalid parameter for --lcores")):
        e = eal([opt, v], lcores=None)
        rc, out, err = run(e, ["--duration", "0.2"])
        t.remove_runtime_dir(e)
        t.check(rc == 2 and words in err, f"{opt} {v}: exit 2 and EAL's reason: {rc} "
                f"{err.strip()[:300]!r}")
    # two lcore options: EAL refuses the second ("Option -l is ignored, because (-l) is
    # set!", though it refuses it) with its whole usage, or a second -l naming a CPU that
    # is not online with "lcore 2 unavailable" first; now one line naming both, before EAL
    for extra in (["-l", "0-1", "-l", "0-1"], ["-l", "0-1", "--lcores", "0@0,1@1"],
                  ["-c", "0x3", "-l0-1"], ["-l", "0-1", "-l", f"0-{n}"]):
        v2 = extra[3] if len(extra) == 4 else extra[2][2:]
        o2 = extra[2] if len(extra) == 4 else "-l"
        err = bad([], [f"{extra[0]} {extra[1]} and {o2} {v2}"],
                  ["EAL takes its lcores from one option, once",
                   "give one of -l, -c or --lcores"],
                  what=" ".join(extra), extra_eal=extra, lcores=None)
        t.check_eq(len(err.strip().splitlines()), 1, f"{' '.join(extra)}: one line")
    # only the main lcore (-l 1, -c 1, --lcores 0@1): refused before EAL (before: EAL
    # started, made its runtime directory, and then mcfan said "no data lcore")
    for opt, v, main in (("-l", "1", 1), ("-c", "1", 0), ("--lcores", "0@1", 0)):
        err = bad([], ["no data lcore"], [f"EAL gave only the main lcore {main}",
                                          "give at least two lcores, e.g. -l 0-1"],
                  what=f"{opt} {v}", extra_eal=[opt, v], lcores=None)
        t.check_eq(len(err.strip().splitlines()), 1, f"{opt} {v}: one line")
    # more lcores than CPUs, placed with --lcores on CPUs that are online: taken
    rc, out, err = run(eal(["--lcores", "0@0,(1-3)@0"], lcores=None),
                       ["--groups", "239.9.9.1-10:3999", "--duration", "0.3"])
    t.check_eq(rc, 0, f"--lcores 0@0,(1-3)@0: exit status ({err.strip()[-200:]!r})")
    t.check("not online" not in err and "outside the CPUs" not in err,
            f"--lcores 0@0,(1-3)@0: no word about CPUs: {err.strip()[-200:]!r}")
    if len(cpus) < 2:
        return
    # taskset -c FIRST: lcore 1's CPU is outside the affinity: one warning, the run goes on
    first, second = sorted(cpus)[:2]
    e = eal(["-l", f"{first},{second}"], lcores=None)
    p = subprocess.run([t.mcfan_path(), *e, "--", "--groups", "239.9.9.1-10:3999",
                        "--duration", "0.3"], capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL, preexec_fn=lambda: os.sched_setaffinity(
                           0, {first}))
    t.remove_runtime_dir(e)
    t.check_eq(p.returncode, 0, f"taskset -c {first}: exit status "
               f"({p.stderr.strip()[-200:]!r})")
    t.check(f"mcfan: warning: -l {first},{second}: CPU {second} is outside the CPUs this "
            f"process may run on ({first}: taskset or a cpuset); EAL pins lcores there all "
            f"the same" in p.stderr, f"taskset -c {first}: the warning: "
            f"{p.stderr.strip()[:300]!r}")
    # taskset -c SECOND and no lcore option: EAL's default is one lcore a CPU, the main
    # lcore alone: refused before EAL (before: EAL ran, then "no data lcore"); with a
    # placement option mcfan places two lcores on that CPU and runs
    def on_second():
        os.sched_setaffinity(0, {second})
    for app, rc_want in (([], 2), (["--rx", "1"], 0)):
        e = eal(lcores=None)
        p = subprocess.run([t.mcfan_path(), *e, "--", "--groups", "239.9.9.1-10:3999",
                            "--duration", "0.3", *app], capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL, preexec_fn=on_second)
        t.remove_runtime_dir(e)
        want = (f"mcfan: this process may run on one CPU only ({second}: taskset or a "
                f"cpuset), so EAL's default lcores (one a CPU) are the main lcore alone: no "
                f"data lcore; give a placement option for mcfan to place its lcores there "
                f"(e.g. --rx 1), or EAL's --lcores (e.g. --lcores '0@{second},1@{second}')")
        t.check(p.returncode == rc_want and (want in p.stderr) == (rc_want == 2) and
                (rc_want == 0 or not started_lines(p.stderr)),
                f"taskset -c {second} {app}: exit {rc_want}: {p.returncode} "
                f"{p.stderr.strip()[-300:]!r}")


def test_no_hugetlbfs():
    """Hugepages (no --no-huge, no --in-memory) on a host with no hugetlbfs mounted (a mount
    namespace of its own without one): one line saying so and both remedies (before:
    "EAL initialisation failed: Permission denied", EAL's rte_errno)."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        print("options: no-hugetlbfs skipped (needs root and unshare)")
        return
    e = [a for a in eal() if a not in ("--no-huge", "--in-memory")]
    del e[e.index("-m"):e.index("-m") + 2]
    cmd = [t.mcfan_path(), *e, "--", "--groups", "239.9.9.1", "--duration", "0.2"]
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                        'umount -a -t hugetlbfs 2>/dev/null; exec "$@"', "sh", *cmd],
                       capture_output=True, text=True, timeout=60)
    t.remove_runtime_dir(e)
    t.check(p.returncode == 1 and "mcfan: EAL initialisation failed: no hugetlbfs is mounted "
            "(/proc/mounts), and EAL keeps its hugepages in files there: mount one (mount -t "
            "hugetlbfs nodev /dev/hugepages) with pages reserved (/sys/kernel/mm/hugepages), "
            "or run without hugepages: --no-huge -m 512\n" in p.stderr,
            f"no hugetlbfs: exit 1 and the line: {p.returncode} {p.stderr.strip()[-300:]!r}")


HUGEPAGES_SYS = "/sys/kernel/mm/hugepages"


def hugepages_free():
    """{size directory: (reserved, free)} of the kernel's hugepage sizes."""
    out = {}
    for d in os.listdir(HUGEPAGES_SYS):     # in the directory's order, as mcfan reads it
        with open(os.path.join(HUGEPAGES_SYS, d, "nr_hugepages")) as f:
            nr = int(f.read())
        with open(os.path.join(HUGEPAGES_SYS, d, "free_hugepages")) as f:
            out[d] = (nr, int(f.read()))
    return out


def test_no_free_hugepages():
    """Hugepages asked for (no --no-huge) while none is free: every reserved page in use (here
    by a file of the test's own hugetlbfs mount holding every free 2 MiB page for the moment
    of two failed starts, as the hugepage files of ended runs hold them) or none reserved. One
    line saying so, with the counts and the remedies (before: "EAL initialisation failed:
    Permission denied", EAL's rte_errno). Also with --in-memory on the file prefix of a running
    primary (a --no-huge one that holds the prefix's lock): an --in-memory EAL takes no lock
    and runs beside it, so the lock is not the cause (before: "another primary process (PID N)
    runs with --file-prefix P and holds its lock; give this run its own --file-prefix").
    Nothing is reserved or unreserved: the pages are taken back as soon as both runs ended."""
    if os.geteuid() != 0 or not os.path.isdir(HUGEPAGES_SYS):
        print("options: no-free-hugepages skipped (needs root and hugepage support)")
        return
    other = {d: v for d, v in hugepages_free().items() if d != "hugepages-2048kB" and v[1]}
    if other:
        print(f"options: no-free-hugepages skipped (free pages of another size: {other})")
        return
    mnt = tempfile.mkdtemp(prefix="mcfan-options-huge-")
    if subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "none", mnt],
                      capture_output=True).returncode != 0:
        os.rmdir(mnt)
        print("options: no-free-hugepages skipped (cannot mount a hugetlbfs)")
        return
    # the primary holding a prefix's lock: --no-huge, with shared files (no --in-memory)
    holder_eal = [a for a in eal() if a != "--in-memory"]
    prefix = holder_eal[holder_eal.index("--file-prefix") + 1]
    holder = subprocess.Popen([t.mcfan_path(), *holder_eal, "--", "--groups", "239.9.9.1",
                               "--duration", "30"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hog = os.path.join(mnt, "hog")
    runs = []
    try:
        config = os.path.join(t.runtime_dir(holder_eal), "config")
        for _ in range(100):
            if os.path.exists(config) or holder.poll() is not None:
                break
            subprocess.run(["sleep", "0.1"])
        t.check(holder.poll() is None and os.path.exists(config),
                f"the --no-huge primary of prefix {prefix} runs with its shared files")
        nr, free = hugepages_free().get("hugepages-2048kB", (0, 0))
        if free > 0:
            fd = os.open(hog, os.O_CREAT | os.O_RDWR, 0o600)
            try:
                os.posix_fallocate(fd, 0, free * 2 * 1024 * 1024)
            finally:
                os.close(fd)
        now = hugepages_free()
        if any(v[1] for v in now.values()):
            print(f"options: no-free-hugepages skipped (pages freed meanwhile: {now})")
            return
        sizes = "; ".join(f"{d[len('hugepages-'):-2]} kB: {v[0]} reserved, 0 free"
                          for d, v in now.items())
        mem = ["--huge-dir", mnt, "-m", "32"]
        own = [a for a in eal() if a not in ("--no-huge", "--in-memory")]
        del own[own.index("-m"):own.index("-m") + 2]
        beside = list(own)      # another run's own arguments on the holder's prefix
        beside[beside.index("--file-prefix") + 1] = prefix
        beside.append("--in-memory")
        for tag, e in (("own prefix", own + mem), ("--in-memory beside a primary", beside + mem)):
            rc, out, err = run(e, ["--groups", "239.9.9.1", "--duration", "0.2"])
            runs.append(e)
            if nr == 0:
                want = (f"mcfan: EAL initialisation failed: no hugepages are reserved ({sizes}): "
                        "reserve some (echo 256 > /sys/kernel/mm/hugepages/hugepages-2048kB/"
                        "nr_hugepages), or run without hugepages: --no-huge -m 512\n")
            else:
                want = (f"mcfan: EAL initialisation failed: no free hugepages ({sizes}): every "
                        "reserved page is in use, by running processes or by the hugepage files "
                        "that ended DPDK runs left in the hugetlbfs mount (PREFIXmap_*: remove "
                        "them once no process of that prefix runs, docs/capture.md); free or "
                        "reserve more (/sys/kernel/mm/hugepages), or run without hugepages: "
                        "--no-huge -m 512\n")
            t.check(rc == 1 and want in err and "Permission denied" not in err and
                    "holds its lock" not in err and "mcfan report" not in out,
                    f"no free hugepages, {tag}: exit 1 and the line: {rc} {err.strip()[-400:]!r}")
    finally:
        if os.path.exists(hog):
            os.unlink(hog)
        subprocess.run(["umount", mnt])
        os.rmdir(mnt)
        holder.send_signal(signal.SIGTERM)
        try:
            holder.wait(timeout=30)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.wait()
        for e in [holder_eal, *runs]:
            t.remove_runtime_dir(e)


def test_post_eal():
    """Errors found only once EAL knows the lcores and ports: status 2 and a clear message."""
    cases = [
        (["--rx-lcores", "5"], (), "0-1", ["--rx-lcores", "5", "not enabled"]),
        (["--worker-lcores", "1,3"], (), "0-1", ["--worker-lcores", "3", "not enabled"]),
        (["--rx-lcores", "0"], (), "0-1", ["--rx-lcores", "main"]),
        (["--worker-lcores", "0-1"], (), "0-1", ["--worker-lcores", "main"]),
    ]
    for app, extra, lc, words in cases:
        e = eal(extra, lcores=lc)
        rc, out, err = run(e, [*app, "--duration", "0.2"])
        t.remove_runtime_dir(e)
        what = " ".join(app)
        t.check_eq(rc, 2, f"[{what}] (post-EAL) exit status")
        for w in words:
            t.check(w.lower() in err.lower(), f"[{what}] message has {w!r}: "
                    f"{err.strip()[-300:]!r}")
    # --idle-worker with no worker-only lcore (lcore 1 is RX and worker and waits by the RX
    # policy): refused as the console's `set idle worker` is, exit 2, no report; also from a
    # config file; before EAL when -l, -c or --lcores says the lcores (nothing started);
    # with a worker lcore of its own it runs
    def want(policy, lcore):
        return (f"mcfan: --idle-worker {policy}: there is no worker lcore that is only a "
                f"worker (worker lcore {lcore} also polls ports and waits by --idle-rx's "
                "policy); give a worker lcore of its own (e.g. -l 0-2, or --worker-lcores "
                "apart from --rx-lcores), or leave --idle-worker out and set --idle-rx\n")
    for lc, extra, app, lcore in (
            ("0-1", [], ["--idle-worker", "wake"], 1),
            ("0-1", [], ["--config", cfg("[mcfan]\nidle-worker = wake\n")], 1),
            ("0-1", [], ["--idle-worker", "poll"], 1),
            (None, ["-c", "0x3"], ["--idle-worker", "poll"], 1),
            (None, ["--lcores", "0@0,1@1"], ["--idle-worker", "poll"], 1),
            (None, ["--lcores=(0-1)@0"], ["--idle-worker", "poll"], 1),
            ("0-1", ["--main-lcore", "1"], ["--idle-worker", "poll"], 0)):
        e = eal(extra, lcores=lc)
        what = f"{'-l ' + lc if lc else ''} {' '.join(extra)} -- {' '.join(app)}"
        rc, out, err = run(e, ["--groups", "239.9.9.1", *app, "--duration", "0.2"])
        policy = "poll" if "poll" in app else "wake:very_short"
        t.check(rc == 2 and want(policy, lcore) in err and "mcfan report" not in out,
                f"{what}: refused, exit 2: {rc} {err.strip()[-400:]!r}")
        t.check(not started_lines(err), f"{what}: refused before EAL: "
                f"{started_lines(err)[:2]}")
        t.check(not os.path.exists(t.runtime_dir(e)),
                f"{what}: no runtime directory {t.runtime_dir(e)}")
        t.remove_runtime_dir(e)
    # --rx/--workers counted on the user's lcores: the roles come after EAL, so does the
    # refusal (still exit 2, no report)
    e = eal(lcores="0-1")
    rc, out, err = run(e, ["--rx", "1", "--workers", "0", "--idle-worker", "poll",
                           "--duration", "0.2"])
    t.remove_runtime_dir(e)
    t.check(rc == 2 and want("poll", 1) in err and "mcfan report" not in out,
            f"-l 0-1 -- --rx 1 --workers 0 --idle-worker poll: refused after EAL: {rc} "
            f"{err.strip()[-300:]!r}")
    e = eal(["--lcores", "0@0,1@1,2@1"], lcores=None)
    rc, out, err = run(e, ["--groups", "239.9.9.1", "--idle-worker", "wake", "--duration", "0.2"])
    t.remove_runtime_dir(e)
    t.check(rc == 0 and "there is no worker lcore" not in err,
            f"--lcores 0@0,1@1,2@1 --idle-worker wake (lcore 2 only a worker): runs: {rc} "
            f"{err.strip()[-300:]!r}")
    # main lcore not 0: --rx-lcores naming it
    e = eal(["--main-lcore", "1"], lcores="0-1")
    rc, out, err = run(e, ["--rx-lcores", "1", "--duration", "0.2"])
    t.remove_runtime_dir(e)
    t.check(rc == 2 and "main" in err, f"--main-lcore 1 --rx-lcores 1: status {rc}, "
            f"{err.strip()[-200:]!r}")
    # no port
    e = eal(vdev=False)
    rc, out, err = run(e, ["--duration", "0.2"])
    t.remove_runtime_dir(e)
    t.check_eq(rc, 2, "no port: exit status")
    t.check("no port" in err and "--vdev" in err, f"no port: message {err.strip()[-200:]!r}")
    # only the main lcore
    e = eal(lcores="0")
    rc, out, err = run(e, ["--duration", "0.2"])
    t.remove_runtime_dir(e)
    t.check_eq(rc, 2, "-l 0: exit status")
    t.check("lcore" in err and "-l" in err, f"-l 0: message {err.strip()[-200:]!r}")


# ---- config file ----------------------------------------------------------------------------

def cfg(text):
    fd, path = tempfile.mkstemp(dir=TMP, suffix=".ini")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def bad_cfg(text, what, words, cli=()):
    path = cfg(text)
    err = bad(["--config", path, *cli], [path], words, what=f"config: {what}",
              guard="duration" not in text)
    return err


def test_config():
    good_text = ("; mcfan test configuration\n"
                 "[mcfan]\n"
                 "fanout = replicate\n"
                 "\n"
                 "groups=239.9.9.1-10:3999,[ff3e::1]:5000\n"
                 "  ring-size = 256  \n"
                 "burst = 16\n"
                 "mbufs = 9000\n"
                 "mbuf-size = 3000\n"
                 "duration = 1.0\n"
                 "stats-period = 0\n"
                 "no-msacc = no\n")
    path = cfg(good_text)
    rep = good(["--config", path], extra_eal=LCORES4, lcores=None, duration=None)
    if rep:
        t.check_eq(rep["fanout"], "replicate", "config: fanout from the file")
        t.check_eq(sorted(t.group_frames(rep)),
                   sorted([(f"239.9.9.{i}", 3999) for i in range(1, 11)] +
                          [("ff3e::1", 5000)]), "config: groups from the file")
        t.check_eq(rep["delivered_frames"], N_SEED + N_V6, "config: delivered")
        t.check(all(w["ring_size"] == 256 for w in rep["workers"]), "config: ring-size 256")
        t.check_eq(rep["mbufs_total"], 9000, "config: mbufs from the file")
        t.check_eq(rep["mbuf_size"], 3000, "config: mbuf-size from the file")
        t.check(0.95 <= rep["duration_s"] < 10, f"config: duration 1.0: {rep['duration_s']}")
    # the command line wins over the file
    rep = good(["--config", path, "--fanout", "partition", "--ring-size", "512",
                "--groups", "239.9.9.1-5:3999"], extra_eal=LCORES4, lcores=None,
               duration=None)
    if rep:
        t.check_eq(rep["fanout"], "partition", "config + --fanout: command line wins")
        t.check_eq(len(rep["groups"]), 5, "config + --groups: command line wins")
        t.check(all(w["ring_size"] == 512 for w in rep["workers"]),
                "config + --ring-size: command line wins")
        t.check_eq(rep["mbufs_total"], 9000, "config + CLI: the file's other values hold")
    # the command line wins even where the file's value would be refused with it
    path2 = cfg("[mcfan]\nring-size = 16\n")
    good(["--config", path2, "--ring-size", "64"], what="config ring-size 16, CLI 64")
    # a file with an empty [mcfan] section, and --no-msacc as a flag beside it
    good(["--config", cfg("[mcfan]\n"), "--no-msacc"], what="config: empty section")

    # refused, before EAL, with the file (and line and key) named
    path = os.path.join(TMP, "does-not-exist.ini")
    bad(["--config", path], [path], [], what="config: missing file")
    bad_cfg("[mcfan]\nfanout = replicate\n[other]\nx = 1\n", "unknown section",
            ["line 3", "other"])
    bad_cfg("[mcfan]\nfanout = replicate\n; comment\nbogus = 1\n", "unknown key",
            ["line 4", "bogus"])
    # a value in quotes (before: the quotes were part of it: "'\"replicate\"' is not a
    # mode", a report file named with its quotes)
    bad_cfg('[mcfan]\nfanout = "replicate"\n', "quoted value",
            ["line 2", "key 'fanout'", "in quotes", "without them", "(fanout = replicate)"])
    bad_cfg("[mcfan]\ngroups = '239.9.9.1'\n", "single-quoted value",
            ["line 2", "in quotes", "(groups = 239.9.9.1)"])
    # a key written as the command line's option (before: only "unknown key '--groups'")
    bad_cfg("[mcfan]\n--groups = 239.9.9.1\n", "key with dashes",
            ["line 2", "'--groups'", "without its dashes: write 'groups'"])
    bad_cfg("[mcfan]\n-burst = 16\n", "key with a dash", ["line 2", "write 'burst'"])
    bad_cfg("[mcfan]\n--bogus = 1\n", "unknown key with dashes",
            ["line 2", "unknown key '--bogus'", "see --help"])
    # an EAL option as a key (before: "unknown key 'vdev' in [mcfan] (keys are the long
    # option names, see --help)", though --vdev is in --help's usage line)
    for key, val in (("vdev", "net_null0"), ("file-prefix", "x"), ("--no-huge", "yes"),
                     ("lcores", "0@0,1@1")):
        bare = key.lstrip("-")
        bad_cfg(f"[mcfan]\n{key} = {val}\n", f"EAL key {key}",
                ["line 2", f"key '{key}' is an EAL option",
                 "EAL reads its options from the command line only",
                 f"give --{bare} there, before '--'"])
    bad_cfg("[mcfan]\nconfig = other.ini\n", "config key", ["line 2", "config"])
    bad_cfg("[mcfan]\nhelp = yes\n", "help key", ["line 2", "help"])
    bad_cfg("[mcfan]\nfanout = replicate\n\nburst = 0\n", "bad burst",
            ["line 4", "burst", "1..512"])
    bad_cfg("[mcfan]\ngroups = 10.1.1.1\n", "bad groups", ["line 2", "groups", "multicast"])
    bad_cfg("[mcfan]\nfanout = both\n", "bad fanout", ["line 2", "fanout", "replicate"])
    bad_cfg("[mcfan]\nmbuf-size = 1500\n", "bad mbuf-size", ["line 2", "mbuf-size",
                                                           "2048..65407"])
    bad_cfg("[mcfan]\nduration = 1e3\n", "bad duration", ["line 2", "duration", "seconds"])
    bad_cfg("[mcfan]\nno-msacc = maybe\n", "bad no-msacc", ["line 2", "no-msacc", "yes"])
    bad_cfg("[mcfan]\nrx-lcores = 2-1\n", "bad rx-lcores", ["line 2", "rx-lcores"])
    bad_cfg("[mcfan]\nring-size = 16\n", "ring below burst", ["ring-size", "burst"])
    bad_cfg("[mcfan\nfanout = replicate\n", "syntax: no ']'", ["line 1"])
    bad_cfg("fanout = replicate\n[mcfan]\n", "syntax: key before any section", ["line 1"])
    # no section at all: an empty file, or blank lines and comments only; it would set
    # nothing (before: accepted without a word, the run went on with the defaults)
    for text, what in (("", "empty file"), ("; mcfan\n\n# nothing here\n", "comments only")):
        err = bad_cfg(text, what, ["has no [mcfan] section (nor [seq] or [group-engine]): "
                                   "it sets nothing; options go under [mcfan]"])
        t.check_eq(len(err.strip().splitlines()), 1, f"config: {what}: one line: {err!r}")
    # a file of rules alone ([seq] or [group-engine], no [mcfan]) stays valid
    path = cfg("[seq]\n239.9.9.1-10:3999 = iperf2\n")
    good(["--groups", "239.9.9.1-10:3999", "--config", path], what="config: [seq] alone")
    bad_cfg("[mcfan]\nburst = 32\nfanout replicate\n", "syntax: line without '='",
            ["line 3"])


def test_review_findings():
    """Bad input a new user tried: each refused before EAL with a specific message."""
    import shutil
    d = tempfile.mkdtemp(prefix="mcfan-opt-dir-")
    try:
        bad(["--config", d], ["--config"], ["not a regular file"], what="--config DIR")
        bad(["--cmdline-file", d], ["--cmdline-file"], ["not a regular file"],
            what="--cmdline-file DIR")
        bad(["--report-json", d], ["--report-json"], ["directory"], what="--report-json DIR")
        bad(["--report-json", os.path.join(d, "missing", "r.json")], ["--report-json"],
            ["cannot write", "No such file or directory"],
            what="--report-json in a missing directory")
        # an existing file whose directory takes no new file: the temporary file beside it
        # is what fails (before: "No such file or directory" about a file that exists)
        bad(["--report-json", "/proc/version"], ["--report-json"],
            ["cannot write '/proc/version'", "new file beside it", "'/proc/version.tmpPID'",
             "renamed over it", "its directory takes no new file"],
            what="--report-json /proc/version")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    bad(["--stats-period", "0.05"], ["--stats-period"], ["0.1", "0 = no periodic report"],
        what="--stats-period 0.05")
    bad(["--no"], ["--no"], ["abbreviated", "--no-msacc"], what="abbreviated --no")
    bad(["--grou", "239.9.9.1"], ["--grou"], ["abbreviated", "--groups"],
        what="abbreviated --grou")
    bad_cfg("[mcfan]\ngroups = 239.9.9.1\n[mcfan]\nburst = 16\n", "section twice",
            ["line 3", "second section"])
    bad_cfg("[mcfan]\nburst =\n", "empty value", ["line 2", "burst", "no value"])
    bad_cfg("[mcfan]\nbu\0rst = 3\n", "NUL byte", ["line 2", "NUL"])
    # another control byte: an escape sequence in a value was quoted raw into the error and
    # reached the terminal ("fanout = ESC[2J" cleared the screen); a CR before the newline
    # (a CRLF file) and tabs around '=' stay allowed
    for text, col in (("[mcfan]\nfanout = \x1b[2J\n", "0x1b at column 10"),
                      ("[mcfan]\nburst\x01 = 8\n", "0x01 at column 6"),
                      ("[mcfan]\ngroups = 239.9.9.1\x7f\n", "0x7f at column 19")):
        err = bad_cfg(text, f"control character {col}", ["line 2", f"control character {col}",
                                                          "not a text file?"])
        t.check("\x1b" not in err and "\x01" not in err and "\x7f" not in err,
                f"control character {col}: no control byte in the message: {err!r}")
    good(["--config", cfg("[mcfan]\r\nfanout\t=\treplicate\r\n")], what="config: CRLF, tabs")


def test_engines():
    """--rx-engine / --worker-engine (issue 9): the defaults run today's work and show in the
    report; bad names are refused before EAL with the engines that exist; config keys too."""
    rep = good(["--rx-engine", "fanout", "--worker-engine", "count"], extra_eal=LCORES3,
               lcores=None)
    if rep:
        eng = {lc["lcore"]: (lc.get("rx_engine"), lc.get("worker_engine"))
               for lc in rep["lcores"]}
        t.check_eq(eng.get(1), ("fanout", None), "engines: RX lcore 1 runs fanout only")
        t.check_eq(eng.get(2), (None, "count"), "engines: worker lcore 2 runs count only")
        t.check_eq(eng.get(0), (None, None), "engines: the control lcore runs none")
    # run-to-completion: one lcore, both engines
    rep = good([], what="engines: run-to-completion")
    if rep:
        eng = {lc["lcore"]: (lc.get("rx_engine"), lc.get("worker_engine"))
               for lc in rep["lcores"]}
        t.check_eq(eng.get(1), ("fanout", "count"), "engines: rx+worker lcore runs both")
    bad(["--rx-engine", "nope"], ["--rx-engine"], ["'nope'", "fanout"])
    bad(["--worker-engine", "fanout"], ["--worker-engine"], ["not a worker engine", "count"])
    bad(["--rx-engine", ""], ["--rx-engine"], ["fanout"], what="--rx-engine ''")
    bad(["--rx-engine", "count"], ["--rx-engine"], ["not an rx engine"],
        what="--rx-engine with a worker engine's name")
    bad_cfg("[mcfan]\nworker-engine = bogus\n", "bad worker-engine",
            ["line 2", "worker-engine", "count"])
    path = cfg("[mcfan]\nrx-engine = fanout\nworker-engine = count\n")
    good(["--config", path], what="config: engine keys")
    e = eal()
    rc, out, err = run(e, ["--help"])
    t.remove_runtime_dir(e)
    t.check(rc == 0 and "RX engines (--rx-engine):" in out and "Worker engines "
            "(--worker-engine):" in out and "fanout" in out and "count" in out,
            "--help lists the engines of each side")


def main():
    make_pcap()
    parts = [test_help, test_argv_errors, test_corelists, test_doc_limits, test_groups,
             test_fanout, test_ring_burst_mbufs, test_times, test_paths_flags, test_eal_memory,
             test_eal_log_level, test_report_stdout, test_eal_cpus, test_post_eal,
             test_no_hugetlbfs, test_no_free_hugepages, test_config, test_review_findings,
             test_engines]
    # MCFAN_OPTIONS_ONLY=name,name (without test_): only those parts (the sanitizer pass's
    # selection, test/run-tests.sh; the main pass runs all)
    only = [x for x in os.environ.get("MCFAN_OPTIONS_ONLY", "").split(",") if x]
    names = {f.__name__[len("test_"):] for f in parts}
    if not t.check(set(only) <= names, f"MCFAN_OPTIONS_ONLY names parts that exist: "
                   f"{sorted(set(only) - names)}"):
        only = []
    for f in parts:
        if not only or f.__name__[len("test_"):] in only:
            f()
    import shutil
    shutil.rmtree(TMP, ignore_errors=True)
    t.finish("options")


if __name__ == "__main__":
    main()
