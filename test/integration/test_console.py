#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The console without a terminal (docs/console.md):
 - scripted: console_scripted.txt (--cmdline-file) joins, leaves and switches fan-out while a
   pcap replays round-robin without end; the counts of each phase follow from that phase's
   configuration, conservation is exact at every stop and at exit, counter slots are stable
   and a reused slot starts from zero;
 - bad input: a table of bad lines on a pipe (-i), each refused with its own one-line error
   and nothing changed; afterwards show counters answers, `08` is eight, quit exits 0;
 - source-specific groups: join GROUP@SOURCE names its sources and who filters by them, show
   groups shows such groups as GROUP@SOURCE;
 - end of input on /dev/null and on a closed pipe ends mcfan cleanly; a missing command file
   is refused with status 2.
Usage: test_console.py MCFAN_BINARY"""

import os
import re
import subprocess
import sys
import tempfile
import time

import mcfantest as t

HERE = os.path.dirname(os.path.abspath(__file__))
GROUPS4 = ["239.9.9.1", "239.9.9.2", "239.9.9.3", "239.9.9.4"]
PORT = 3999
# main lcore 0 and worker 2 share CPU 0 (the main lcore mostly sleeps); lcore 1 is RX and
# worker on CPU 1: two workers on a 2-CPU host
LCORES_2W = ["--lcores", "0@0,1@1,2@0"]


def eal(name, lcores=None, pcap=None):
    args = t.eal_args(name, extra=["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"])
    if lcores is not None:
        i = args.index("-l")
        args[i:i + 2] = lcores
    return args


def round_robin_pcap(path, n=400):
    t.write_pcap(path, [t.udp4_frame(GROUPS4[i % 4], PORT) for i in range(n)])


def blocks(stdout):
    """[(command, [output lines])] from a transcript: commands are echoed as 'mcfan> CMD'."""
    out = []
    for ln in stdout.splitlines():
        if ln.startswith("mcfan> "):
            out.append((ln[len("mcfan> "):], []))
        elif out:
            out[-1][1].append(ln)
    return out


COUNTERS = re.compile(r"^frames: rx (\d+) = delivered (\d+) \+ drops (\d+)$")
COPIES = re.compile(r"^copies: offered (\d+) = delivered (\d+) \+ ring drops (\d+)$")
# group, fan-out, slot, frames, copies, copy_drops, bytes, workers
GROUP_ROW = re.compile(r"^\s+(\S+)\s+(partition|replicate)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
                       r"\s+(\S+)$")


def parse_counters(lines):
    c = {}
    for ln in lines:
        m = COUNTERS.match(ln)
        if m:
            c["rx"], c["delivered"], c["drops"] = map(int, m.groups())
        m = COPIES.match(ln)
        if m:
            c["offered"], c["copies"], c["ring_drops"] = map(int, m.groups())
        if ln.startswith("drops:"):
            f = ln.split()[1:]
            c["reasons"] = {f[i]: int(f[i + 1]) for i in range(0, len(f) - 1, 2)}
    return c


def parse_groups(lines):
    """{group: (fanout, slot, copies, workers)}: copies the workers counted (the column the
    workers' counts add up to; frames, the frames received, is m.group(4))"""
    g = {}
    for ln in lines:
        m = GROUP_ROW.match(ln)
        if m:
            g[m.group(1)] = (m.group(2), int(m.group(3)), int(m.group(5)), m.group(8))
    return g


RING_ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$")


def parse_rings(lines):
    """{worker lcore: ring_drops}"""
    r = {}
    for ln in lines:
        m = RING_ROW.match(ln)
        if m:
            r[m.group(1)] = int(m.group(7))
    return r


def near(got, want, slack, msg):
    return t.check(abs(got - want) <= slack, f"{msg}: got {got}, expected {want} +- {slack}")


def check_group(ph, g, got, targets, quarter, drops):
    """A joined group got |targets| copies of its ~quarter frames. Exact (+-1 frame per copy,
    the pcap cycles through the 4 groups) unless a target worker's ring overflowed in this
    phase (the host's other load can starve a worker): then those drops bound it."""
    lost = sum(drops.get(w, 0) for w in targets)
    n = len(targets)
    if lost == 0:
        near(got, n * quarter, n, f"phase {ph}: {g} frames")
    else:
        t.check(n * (quarter - 1) - lost <= got <= n * (quarter + 1),
                f"phase {ph}: {g} frames {got} within {n} x {quarter} - {lost} ring drops")


def test_scripted(tmp):
    pcap = os.path.join(tmp, "rr4.pcap")
    round_robin_pcap(pcap)
    script = os.path.join(HERE, "console_scripted.txt")
    e = eal("console-script", LCORES_2W, pcap)
    rc, out, err, rep = t.run_mcfan(e, ["--groups", "239.9.9.1-2:3999", "--worker-lcores", "1-2",
                                        "--ring-size", "8192", "--cmdline-file", script],
                                    timeout=120)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, "scripted: exit status")
    if not t.check(rep is not None, "scripted: JSON report written"):
        print(err)
        return
    b = blocks(out)
    errors = [ln for _, lines in b for ln in lines if ln.startswith("error:")]
    t.check_eq(errors, [], "scripted: no command failed")
    stops = [lines for cmd, lines in b if cmd == "stop"]
    t.check(all(ln == ["RX stopped; workers have counted every queued frame"] for ln in stops),
            "scripted: every stop waited until the workers counted every queued frame")
    snaps = [parse_counters(lines) for cmd, lines in b if cmd == "show counters"]
    rings = [parse_rings(lines) for cmd, lines in b if cmd == "show rings"]
    tables = [parse_groups(lines) for cmd, lines in b if cmd.startswith("show groups")]
    if not t.check_eq(len(snaps), 6, "scripted: six show counters answered") or \
            not t.check_eq(len(rings), 6, "scripted: six show rings answered") or \
            not t.check_eq(len(tables), 8, "scripted: eight show groups answered"):
        print(out)
        return
    for i, s in enumerate(snaps):
        t.check(s["rx"] == s["delivered"] + s["drops"], f"scripted: conservation at stop {i}")
        t.check_eq(s["offered"], s["copies"] + s["ring_drops"],
                   f"scripted: copies offered = delivered + ring drops at stop {i}")
        t.check_eq(s["ring_drops"], sum(rings[i].values()),
                   f"scripted: ring drops are the workers' ring drops at stop {i}")
        t.check_eq(sum(v for k, v in s["reasons"].items()
                       if k not in ("unknown_group", "ring_full")), 0,
                   f"scripted: no drop but unknown_group and ring_full at stop {i}")
    # tables: 0,1,2,3 after the phases; 4 = group 4 while joined; 5 after phase 4;
    # 6 = the two reused slots; 7 = group 3 after phase 5
    g1, g2, g3, g4 = (f"{g}:{PORT}" for g in GROUPS4)
    zero = {"rx": 0, "delivered": 0, "drops": 0, "offered": 0, "copies": 0, "ring_drops": 0,
            "reasons": {"unknown_group": 0, "ring_full": 0}}
    prev_c, prev_r, prev_g = zero, {}, {}
    phase_tables = [tables[0], tables[1], tables[2], tables[3], tables[5]]
    for ph, (c, tab, rg) in enumerate(zip(snaps[:5], phase_tables, rings[:5])):
        r = c["rx"] - prev_c["rx"]
        unknown = c["reasons"]["unknown_group"] - prev_c["reasons"]["unknown_group"]
        copies = c["copies"] - prev_c["copies"]
        drops = {w: v - prev_r.get(w, 0) for w, v in rg.items()}
        quarter = r / 4

        def df(g):
            return tab[g][2] - (prev_g[g][2] if g in prev_g else 0)

        def targets(g):
            return tab[g][3].split(",")

        t.check(r > 400, f"phase {ph}: traffic flowed ({r} frames)")
        if ph != 4:
            t.check_eq(sum(df(g) for g in tab), copies,
                       f"phase {ph}: workers counted every delivered copy")
        for g in tab:
            check_group(ph, g, df(g), targets(g), quarter, drops)
        if ph == 0:
            t.check_eq(sorted(tab), [g1, g2], "phase 0: groups 1 and 2 joined")
            t.check_eq((tab[g1][1], tab[g2][1]), (0, 1), "phase 0: slots 0 and 1")
            near(unknown, 2 * quarter, 2, "phase 0: groups 3 and 4 are unknown_group")
        elif ph == 1:
            t.check_eq(sorted(tab), [g1, g2, g3], "phase 1: group 3 joined")
            t.check_eq(tab[g3][1], 2, "phase 1: group 3 in slot 2")
            t.check_eq((tab[g1][1], tab[g2][1]), (0, 1), "phase 1: slots of 1 and 2 kept")
            near(unknown, quarter, 1, "phase 1: only group 4 is unknown_group")
        elif ph == 2:
            t.check_eq(tab[g1][0], "replicate", "phase 2: group 1 replicated")
            t.check_eq(tab[g1][3], "1,2", "phase 2: group 1 goes to both workers")
            # copies beyond one a frame are group 1's second copies
            extra = (c["offered"] - prev_c["offered"]) - (c["delivered"] - prev_c["delivered"]) \
                - (c["reasons"]["ring_full"] - prev_c["reasons"]["ring_full"])
            near(extra, quarter, 1, "phase 2: one extra copy per group 1 frame")
            near(unknown, quarter, 1, "phase 2: group 4 is unknown_group")
        elif ph == 3:
            t.check_eq(sorted(tab), [g1, g3], "phase 3: group 2 left")
            near(unknown, 2 * quarter, 2, "phase 3: groups 2 and 4 are unknown_group")
        elif ph == 4:
            # group 4 joined and left while traffic flowed: groups 1 and 3 lost nothing
            # (checked above), group 4's frames went to it or to unknown_group
            t.check_eq(sorted(tab), [g1, g3], "phase 4: group 4 joined and left")
            t.check_eq(sorted(tables[4]), [g4], "phase 4: show groups 239.9.9.4 found it")
            t.check_eq(tables[4][g4][1], 3, "phase 4: group 4 got a fresh slot (3)")
            t.check(sum(df(g) for g in tab) < copies,
                    "phase 4: copies beyond groups 1 and 3 went to group 4")
            t.check(quarter - 1 <= unknown <= 2 * quarter + 2,
                    f"phase 4: unknown_group {unknown} within group 2 .. groups 2+4")
        prev_c, prev_r, prev_g = c, rg, tab
    # phase 5: reused slots start from zero; traffic still counted
    reused = tables[6]
    t.check_eq(sorted(v[1] for v in reused.values()), [0, 1],
               "phase 5: the last groups joined reuse slots 0 and 1")
    t.check_eq([v[2] for v in reused.values()], [0, 0], "phase 5: reused slots start at 0")
    r5 = snaps[5]["rx"] - snaps[4]["rx"]
    d5 = {w: v - rings[4].get(w, 0) for w, v in rings[5].items()}
    check_group(5, g3, tables[7][g3][2] - tables[5][g3][2], tables[7][g3][3].split(","), r5 / 4,
                d5)
    t.check(any("joined 239.10.0.0 .. 239.10.3.253 (1022 groups)" in ln
                for _, lines in b for ln in lines), "phase 5: 1022 groups joined in one command")
    # the final report: the same numbers, everything back in the pool
    t.check(t.conservation(rep), "scripted: final conservation")
    t.check_eq(rep["rx_frames"], snaps[5]["rx"], "scripted: no frame after the last stop")
    t.check_eq(rep["mbufs_outside_pool"], 0, "scripted: every mbuf back in its pool")
    joined = [g for g in rep["groups"] if not g["left"]]
    t.check_eq(len(joined), 1023, "scripted: 1023 groups at exit")
    # the left groups keep their rows, oldest leave first; 239.9.9.1 and .2's slots were
    # reused in phase 5, so their rows hold what they had then: the rows still sum exactly
    t.check_eq([(g["group"], g["left"]) for g in rep["groups"][1023:]],
               [("239.9.9.2", True), ("239.9.9.4", True), ("239.9.9.1", True)],
               "scripted: the three left groups' rows, in the order they were left")
    t.check_groups_sum(rep, "scripted: joined and left")


# Each bad line and a piece of the one error line it must get.
BAD = [
    (b"foo", "unknown command 'foo'"),
    (b"show", "show: missing one of: lcores, msacc"),
    (b"show foo", "show: 'foo' is not one of:"),
    (b"show msacc abc", "'abc' is not one of: <lcore> (a decimal number), types"),
    (b"show msacc 99", "lcore 99 is not used by mcfan"),
    (b"set seq 239.9.9.1:3999 none", "'none' is not a sequence kind: iperf2, rtp, mpegts, "
     "moldudp64, OFFSET:WIDTH:be|le or off"),
    (b"show port stats 7", "port 7 is not used by mcfan"),
    # a number beyond DPDK's port ids: the ports mcfan uses, as for 7 (before: "is out of
    # range 0..31", "is too large": ids that exist in no run)
    (b"show port stats 99999999999", "error: show port stats: port 99999999999 is not used "
     "by mcfan (ports: 0)"),
    (b"show port xstats 32", "error: show port xstats: port 32 is not used by mcfan "
     "(ports: 0)"),
    (b"show port stats 99999999999999999999999", "error: show port stats: port "
     "99999999999999999999999 is not used by mcfan (ports: 0)"),
    (b"show port xstats", "show port xstats: missing <port>"),
    (b"show counters now", "unexpected 'now' after the command (help show counters)"),
    (b"stop now", "unexpected 'now' after the command (help stop)"),
    # the help hint names the command, not its arguments or choices
    (b"set burst 32 extra", "error: set burst 32: unexpected 'extra' after the command "
     "(help set burst)"),
    (b"show msacc 1 x", "error: show msacc 1: unexpected 'x' after the command (help show msacc)"),
    (b"set idle rx backoff x", "(help set idle)"),
    # a command that may end where the bad word is, or go on with a word: both said
    # (before: "join 239.9.9.7 workers 1: 'extra' is not engine")
    (b"join 239.9.9.7 workers 1 extra", "error: join 239.9.9.7 workers 1: unexpected "
     "'extra': the command ends here or goes on with 'engine' (help join)"),
    (b"set fanout all partition x", "(help set fanout all)"),
    (b"set burst 0", "set burst: 0 is out of range 1..512"),
    (b"set burst 513", "set burst: 513 is out of range 1..512"),
    (b"set burst ten", "'ten' is not <n> (a decimal number)"),
    (b"set burst -1", "'-1' is not <n> (a decimal number)"),
    (b"set burst 0x20", "'0x20' is not <n> (a decimal number)"),
    (b"set burst 99999999999999999999999", "99999999999999999999999 is too large"),
    (b"set fanout all bogus", "'bogus' is not one of: partition, replicate"),
    (b"set fanout 239.9.9.1:3999", "missing one of: partition, replicate"),
    (b"set fanout 239.9.9.9:3999 replicate", "group 239.9.9.9:3999 is not joined"),
    (b"join 239.9.9.1:3999", "group 239.9.9.1:3999 is already joined"),
    (b"join 239.9.9.5,239.9.9.1:3999", "group 239.9.9.1:3999 is already joined"),
    # with sources: how its sources change (before: "is already joined" alone, to a user who
    # wanted another source of the group)
    (b"join 239.9.9.1:3999@198.18.0.3", "error: join: group 239.9.9.1:3999 is already joined: "
     "its sources change with a leave and a join again (a join adds sources to an address only "
     "on another UDP port: docs/igmp.md)"),
    (b"join 10.0.0.1", "not an IPv4 multicast address"),
    (b"join 239.9.9.300", "not a valid IPv4 address"),
    # IPv6 scope 1 (interface-local) reaches no port: refused by the one group parser
    (b"join [ff01::1]:5000", "error: join: group '[ff01::1]:5000': IPv6 multicast scope 1 "
     "(interface-local) does not reach a port: mcfan receives groups of link-local scope (2) "
     "and wider"),
    (b"join 239.9.9.5 workers 9", "lcore 9 is not a worker lcore"),
    (b"join 239.9.9.5 workers 1-0", "is decreasing"),
    (b"join", "join: missing <groups>"),
    # join ... engine without an engine: what to give, as set engine says it (before:
    # "join 239.9.9.5 engine: missing words (help join)")
    (b"join 239.9.9.5 engine", "error: join: give an engine after 'engine': join 239.9.9.5 "
     "engine NAME[:ARGS] (an engine instance of this run, or count; engines: count, readers, "
     "tx, pcap), e.g. join 239.9.9.5 engine count"),
    # one fixed word may come next, where the command may also end: quoted, not read as a
    # description (before: "'foo' is not gaps", "'workers' is not engine")
    (b"show feed foo", "error: show feed: unexpected 'foo': the command ends here or goes on "
     "with 'gaps' (help show feed)"),
    (b"join 239.9.9.5 workers 1 workers 1", "error: join 239.9.9.5 workers 1: unexpected "
     "'workers': the command ends here or goes on with 'engine' (help join)"),
    (b"join 239.9.9.5 workers 1 engine", "error: join: give an engine after 'engine': join "
     "239.9.9.5 workers 1 engine NAME[:ARGS] (an engine instance of this run, or count; "
     "engines: count, readers, tx, pcap), e.g. join 239.9.9.5 workers 1 engine count"),
    # set engine without an engine: what is missing and the syntax, not "missing words"
    (b"set engine 1", "error: set engine: give an engine after lcore 1: set engine 1 "
     "NAME[:ARGS] (engines: count, readers, tx, pcap) or set engine 1 outputs, e.g. set "
     "engine 1 count"),
    # ... but an lcore that is no worker's first: the syntax would not help
    (b"set engine 7", "error: set engine: lcore 7 is not a worker lcore"),
    # and with no target at all, both forms
    (b"set engine", "error: set engine: give a worker lcore or groups, then an engine: set "
     "engine LCORE NAME[:ARGS], set engine LCORE outputs or set engine GROUPS NAME[:ARGS] "
     "(engines: count, readers, tx, pcap), e.g. set engine 2 count"),
    (b"set engine 239.9.9.1:3999", "error: set engine: give an engine after the groups: set "
     "engine 239.9.9.1:3999 NAME[:ARGS] (engines: count, readers, tx, pcap), e.g. set engine "
     "239.9.9.1:3999 count"),
    (b"leave 239.9.9.77", "group 239.9.9.77 is not joined"),
    (b"leave 239.9.9.1", "group 239.9.9.1 is not joined (239.9.9.1:3999 is)"),
    (b"msacc start 0", "0 is out of range 1..86400000"),
    (b"msacc maybe", "'maybe' is not one of: start, reset, on, off"),
    (b"msacc on", "accounting is already on"),
    (b"start", "RX is already running"),
    (b"wait 99999999", "99999999 is out of range 0..600000"),
    (b"help nothing", "no command starts with 'nothing'"),
    (b"show groups 239.9.9.99", "group 239.9.9.99 is not joined"),
    (b"join " + b"x" * 130, "word 2 is 130 characters long, at most 126"),
    (b"show groups 239.9.9.1-" + b"1" * 124, "word 3 is 134 characters long"),
    (b"show groups " + b"2" * 600, "line too long: 612 characters, at most 512"),
    # a join list past the buffer: refused whole, not cut and run (22.11 pitfall)
    (b"join " + b",".join(b"239.8.%d.%d" % (i // 200, i % 200) for i in range(60)),
     "line too long"),
    (b"join 239.9.9.3\xe2\x80\x93239.9.9.5", "non-ASCII byte 0xe2 at column 15"),
    (b"\x00\x01\x02garbage", "control character 0x00 at column 1"),
    (b"show\x1b[Acounters", "control character 0x1b at column 5"),
    (bytes(range(0x80, 0x100)), "non-ASCII byte 0x80 at column 1"),
    (b"join 239.9.9.3:3999 # \xff comment", "non-ASCII byte 0xff"),
    # DPDK's cmdline ends a word at '#': refused, not run with the word cut
    (b"set engine 1 pcap:/tmp/cap#1", "word 4 'pcap:/tmp/cap#...' holds '#', which starts a "
     "comment only after a blank; a word cannot hold '#'; nothing was run"),
    (b"join 239.9.9.3:3999#x", "word 2 '239.9.9.3:3999#...' holds '#'"),
    # the command's words as help spells them, one blank apart: not the tabs and blanks
    # typed (before: "error: set\tburst\t32: ... (help set\tburst)"; bad-input.md row 366)
    (b"set\tburst\t32\textra", "error: set burst 32: unexpected 'extra' after the command "
     "(help set burst)"),
    (b"show   msacc    abc", "error: show msacc: 'abc' is not one of:"),
]


MISMATCH_RE = re.compile(r"^mac_mismatch (\d+) \(delivered, not a drop: frames whose "
                         r"destination MAC is not their group's multicast MAC\)$")


def test_bad_input(tmp):
    pcap = os.path.join(tmp, "rr4mm.pcap")
    # the round robin, and 239.9.9.1's frames once with 239.9.9.2's MAC: mac_mismatch moves
    t.write_pcap(pcap, [t.udp4_frame(GROUPS4[i % 4], PORT) for i in range(400)] +
                 [t.eth(t.mac_for_group(GROUPS4[1]), 0x0800,
                        t.ipv4("198.18.0.1", GROUPS4[0], 17, t.udp(1, PORT, b"m" * 18)))] * 4)
    e = eal("console-bad", pcap=pcap)
    good = [b"set burst 08", b"show config", b"set burst 32", b"show groups",
            b"show counters", b"help set seq", b"quit"]
    data = b"\n".join([line for line, _ in BAD] + good) + b"\n"
    fd, path = tempfile.mkstemp(prefix="mcfan-bad-", dir=tmp)
    os.write(fd, data)
    os.close(fd)
    with open(path, "rb") as f:
        rc, out, err, rep = t.run_mcfan(e, ["--groups", "239.9.9.1-2:3999", "-i"], timeout=60,
                                        stdin=f)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, "bad input: exit status after quit")
    b = blocks(out)
    t.check(len(BAD) >= 25, "bad input: at least 25 bad lines")
    if not t.check_eq(len(b), len(BAD) + len(good), "bad input: one echo per line"):
        print(out)
        return
    for i, (line, want) in enumerate(BAD):
        lines = b[i][1]
        errs = [ln for ln in lines if ln.startswith("error: ")]
        t.check(len(lines) == 1 and len(errs) == 1 and want in errs[0],
                f"bad input {line[:40]!r}: one error line with {want!r}, got {lines!r}")
    res = {cmd: lines for cmd, lines in b[len(BAD):]}
    t.check_eq(res.get("set burst 08"), ["burst 8 (was 32)"], "bad input: 08 is eight")
    # the word that removes an extractor is off (before: "... or none (off)", and set seq
    # GROUPS none is refused: "'none' is not a sequence kind")
    hs = "\n".join(res.get("help set seq", []))
    t.check("or off (no extractor)" in hs and "none" not in hs,
            f"help set seq names the word off: {hs!r}")
    cfg = "\n".join(res.get("show config", []))
    t.check("burst:         8 " in cfg, "bad input: show config shows burst 8")
    t.check("rx lcores:     1 (running)" in cfg and "msacc:         on" in cfg,
            "bad input: RX running, accounting on: nothing changed")
    groups = parse_groups(res.get("show groups", []))
    t.check_eq(sorted(groups), ["239.9.9.1:3999", "239.9.9.2:3999"],
               "bad input: still exactly the two groups")
    t.check(all(v[0] == "partition" for v in groups.values()), "bad input: still partition")
    c = parse_counters(res.get("show counters", []))
    t.check(c.get("rx", 0) > 0 and c["rx"] == c["delivered"] + c["drops"],
            "bad input: show counters still answers, conservation holds")
    t.check(rep is not None and t.conservation(rep) and rep["mbufs_outside_pool"] == 0,
            "bad input: final report clean")
    # mac_mismatch: a line of its own under the drops, a count of delivered frames
    mm = [int(m.group(1)) for m in map(MISMATCH_RE.match, res.get("show counters", [])) if m]
    t.check(len(mm) == 1 and 0 < mm[0] <= c.get("delivered", 0) and rep is not None and
            mm[0] <= rep["mac_mismatch"],
            f"bad input: show counters has mac_mismatch (delivered, not a drop): {mm}, "
            f"report {rep and rep['mac_mismatch']}")


def test_set_engine_words(tmp):
    """set engine LCORE NAME when NAME takes every copy by group only (a --group-engine
    output, the lcore's start engine is count): the answer says so, not "runs pcap"."""
    what = "set engine words"
    pdir = os.path.join(tmp, "pcap-out")
    os.mkdir(pdir)
    e = t.eal_args("console-engwords", extra=["--vdev", "net_null0"])
    data = (b"set engine 1 pcap\nset engine 1\nset engine 1 count\nset engine 1 count\n"
            b"set engine 1 count extra\njoin 239.9.9.5 engine count extra\n"
            b"set engine 239.9.9.1 count  more words\n"
            b"set engine 239.9.9.1 pcap:\njoin 239.9.9.5 engine tx:0,dst-port=0\n"
            b"set engine 1 pcap:/nonexistent-mcfan\nset engine 239.9.9.2 tx\n" +
            f"set engine 239.9.9.1 pcap:{pdir}/\njoin 239.9.9.5 engine pcap:{pdir}/.,rotate-s=5"
            "\nset engine 99999999999999999999 count\nset engine 99999999999999999999\n"
            "help set engine\nhelp join\nquit\n".encode())
    fd, path = tempfile.mkstemp(prefix="mcfan-engwords-", dir=tmp)
    os.write(fd, data)
    os.close(fd)
    with open(path, "rb") as f:
        rc, out, err, rep = t.run_mcfan(e, ["--groups", "239.9.9.1-2:3999", "--group-engine",
                                            f"239.9.9.1-2:3999={'pcap:' + pdir}", "-i"],
                                        timeout=60, stdin=f)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"{what}: exit status after quit ({err.strip()[-300:]!r})")
    res = {cmd: lines for cmd, lines in blocks(out)}
    # help names the engine word <engine>... (NAME[:ARGS]), not <command>... (before)
    t.check("set engine <groups> <engine>..." in res.get("help set engine", []) and
            "join <groups> engine <engine>..." in res.get("help join", []) and
            "join <groups> workers <list> engine <engine>..." in res.get("help join", []) and
            not any("<command>" in ln for ln in res.get("help set engine", []) +
                    res.get("help join", [])),
            f"{what}: help shows <engine>: {res.get('help set engine')!r} "
            f"{res.get('help join')!r}")
    t.check_eq(res.get("set engine 1 pcap"),
               [f"error: set engine: lcore 1 sends every copy to pcap already, by group: its "
                f"groups are all on output 1 (pcap:{pdir}); its start engine is count; "
                f"nothing changed"], f"{what}: pcap by group only")
    t.check_eq(res.get("set engine 1"),
               ["error: set engine: give an engine after lcore 1: set engine 1 NAME[:ARGS] "
                "(engines: count, readers, tx, pcap) or set engine 1 outputs, e.g. set engine "
                "1 count"], f"{what}: no engine")
    b = blocks(out)
    t.check_eq([lines for cmd, lines in b if cmd == "set engine 1 count"],
               [["lcore 1: worker engine count (was pcap), from its next burst; every copy of "
                 "the lcore goes to it, whatever its group's output"],
                ["error: set engine: lcore 1 runs count already, for all its copies"]],
               f"{what}: count by set engine switches, then is already")
    # a word after the engine: refused as after any other command, not as an engine name
    for cmd, want in (("set engine 1 count extra", "set engine"),
                      ("join 239.9.9.5 engine count extra", "join"),
                      ("set engine 239.9.9.1 count  more words", "set engine")):
        word = cmd.split()[-1] if cmd.endswith("extra") else "more"
        t.check_eq(res.get(cmd), [f"error: {want}: unexpected '{word}' after the command "
                                  f"(help {want})"], f"{what}: {cmd}")
    # ARGS the engine itself refuses: its own refusal, not "no engine instance ... start
    # mcfan with --group-engine ...=pcap:", an advice that start would refuse too
    for cmd, want in (("set engine 239.9.9.1 pcap:",
                       "error: set engine: pcap: no directory: give pcap:DIR (an existing, "
                       "writable directory)"),
                      ("join 239.9.9.5 engine tx:0,dst-port=0",
                       "error: join: tx: dst-port '0' is not a UDP port (1..65535)"),
                      ("set engine 1 pcap:/nonexistent-mcfan",
                       "error: set engine: pcap: '/nonexistent-mcfan' is not a directory"),
                      ("set engine 239.9.9.2 tx",
                       "error: set engine: tx is no engine instance of this run: an engine "
                       "with its set-up (ports, queues, files) cannot be added at run time; "
                       "start mcfan with --group-engine 239.9.9.2=tx:ARGS (or move the groups "
                       "to count)")):
        t.check_eq(res.get(cmd), [want], f"{what}: {cmd}")
    # an lcore id beyond 64 bits: no worker lcore, not a bad group (before: "group
    # '99999999999999999999': not a valid IPv4 address")
    for cmd in ("set engine 99999999999999999999 count", "set engine 99999999999999999999"):
        t.check_eq(res.get(cmd), ["error: set engine: lcore 99999999999999999999 is not a "
                                  "worker lcore"], f"{what}: {cmd}")
    # the directory of the run's pcap output spelled otherwise: that output named, not a
    # start with both outputs advised (refused: both write into one directory)
    for cmd, want, args in ((f"set engine 239.9.9.1 pcap:{pdir}/", "set engine", f"{pdir}/"),
                            (f"join 239.9.9.5 engine pcap:{pdir}/.,rotate-s=5", "join",
                             f"{pdir}/.,rotate-s=5")):
        t.check_eq(res.get(cmd), [f"error: {want}: pcap:{args} is no engine instance of this "
                                  f"run, but output 1 (pcap:{pdir}) writes into directory "
                                  f"{pdir}: give it as this run has it, pcap:{pdir}"],
                   f"{what}: {cmd}")
    t.check(rep is not None and "239.9.9.5" not in [g["group"] for g in rep["groups"]],
            f"{what}: the refused join joined nothing")
    t.check(rep is not None and t.conservation(rep), f"{what}: report written, conservation")


def eal_lcores_args(name, lcores):
    """EAL arguments on net_null0 with --lcores (one CPU each for RX and worker lcore)."""
    args = t.eal_args(name, extra=["--vdev", "net_null0"])
    i = args.index("-l")
    args[i:i + 2] = ["--lcores", lcores]
    return args


def console_script(tmp, name, lcores, app, data):
    """mcfan with EAL lcores `lcores`, options app and -i, the console lines data (bytes) on
    standard input: (status, standard output, standard error); the runtime directory
    removed."""
    e = eal_lcores_args(f"console-{name}", lcores)
    fd, path = tempfile.mkstemp(prefix=f"mcfan-{name}-", dir=tmp)
    os.write(fd, data)
    os.close(fd)
    with open(path, "rb") as f:
        rc, out, err, _ = t.run_mcfan(e, [*app, "-i"], timeout=60, stdin=f)
    t.remove_runtime_dir(e)
    return rc, out, err


def test_readers_idle_config(tmp):
    """show config with --worker-engine readers and no --idle-rx/--idle-worker: the policy
    the lcores run (backoff:none, wake:none: reader processes share mcfan's CPUs), not the
    poll of an lcore alone on its CPU; show idle agrees (default-readers)."""
    what = "readers show config"
    rc, out, err = console_script(tmp, "rdcfg", "0@0,1@1,2@0",
                                  ["--groups", "239.9.9.1-2:3999", "--worker-engine", "readers",
                                   "--rx-lcores", "1", "--worker-lcores", "2"],
                                  b"show config\nshow idle\nquit\n")
    t.check_eq(rc, 0, f"{what}: exit status after quit ({err.strip()[-300:]!r})")
    res = {cmd: lines for cmd, lines in blocks(out)}
    cfg = res.get("show config", [])
    t.check_eq([ln for ln in cfg if ln.startswith(("idle-rx:", "idle-worker:"))],
               ["idle-rx:       backoff:none (not given: the default with the readers engine, "
                "whose reader processes share mcfan's CPUs, so no lcore with the RX role "
                "polls; see show idle)",
                "idle-worker:   wake:none (not given: the default with the readers engine, "
                "whose reader processes share mcfan's CPUs, so no worker-only lcore polls; "
                "see show idle)"], f"{what}: idle lines")
    idle = "\n".join(res.get("show idle", []))
    t.check(re.search(r"^\s+1\s.*backoff:none.*default-readers", idle, re.M) is not None and
            re.search(r"^\s+2\s.*wake:none.*default-readers", idle, re.M) is not None,
            f"{what}: show idle says the same policies, default-readers:\n{idle}")


def test_set_idle_config(tmp):
    """show config after set idle: `set idle rx poll` on a readers run without --idle-rx is
    the policy in effect, no longer "not given: the default" (before: backoff:none (not
    given ...) while every RX lcore polled), and an lcore that `set idle LCORE` gave
    another policy is named on its role's line."""
    what = "set idle, show config"
    rc, out, err = console_script(tmp, "setidle", "0@0,1@1,2@0",
                                  ["--groups", "239.9.9.1-2:3999", "--worker-engine", "readers",
                                   "--rx-lcores", "1", "--worker-lcores", "2"],
                                  b"set idle rx poll\nshow config\nset idle 2 backoff:short\n"
                                  b"show config\nset idle worker wake:none\nshow config\n"
                                  b"quit\n")
    t.check_eq(rc, 0, f"{what}: exit status after quit ({err.strip()[-300:]!r})")
    cfgs = [[ln for ln in lines if ln.startswith(("idle-rx:", "idle-worker:"))]
            for cmd, lines in blocks(out) if cmd == "show config"]
    dflt_wk = ("idle-worker:   wake:none (not given: the default with the readers engine, "
               "whose reader processes share mcfan's CPUs, so no worker-only lcore polls; "
               "see show idle)")
    t.check_eq(cfgs, [["idle-rx:       poll", dflt_wk],
                      ["idle-rx:       poll", dflt_wk + "; by set idle LCORE: lcore 2 "
                       "backoff:short"],
                      ["idle-rx:       poll", "idle-worker:   wake:none"]],
               f"{what}: idle lines after each set idle")


def test_placement_idle_config(tmp):
    """show config without --idle-rx/--idle-worker and without readers: the policy the
    lcores run by placement (backoff:none for an RX lcore sharing its CPU), "by placement"
    when the role's lcores run different defaults (before: poll (not given ...) on both lines
    while the RX lcore ran backoff:none and worker 3 wake:none)."""
    what = "placement show config"
    rc, out, err = console_script(tmp, "plcfg", "0@0,1@1,2@0,3@1",
                                  ["--rx-lcores", "1", "--worker-lcores", "2,3",
                                   "--host-workers", "off"], b"show config\nshow idle\nquit\n")
    t.check_eq(rc, 0, f"{what}: exit status after quit ({err.strip()[-300:]!r})")
    res = {cmd: lines for cmd, lines in blocks(out)}
    t.check_eq([ln for ln in res.get("show config", [])
                if ln.startswith(("idle-rx:", "idle-worker:"))],
               ["idle-rx:       backoff:none (not given: each lcore with the RX role runs its "
                "placement default, see show idle)",
                "idle-worker:   by placement (not given: each worker-only lcore runs its "
                "placement default, see show idle)"], f"{what}: idle lines")
    idle = "\n".join(res.get("show idle", []))
    t.check(re.search(r"^\s+1\s.*backoff:none.*default-shared", idle, re.M) is not None and
            re.search(r"^\s+2\s.*poll.*default-alone", idle, re.M) is not None and
            re.search(r"^\s+3\s.*wake:none.*default-shared", idle, re.M) is not None,
            f"{what}: show idle says the same policies:\n{idle}")


def test_hosted_idle_config(tmp):
    """show config in the seed's layout (every worker-only lcore hosted by the RX lcore): the
    idle-worker line says hosted (before: poll (not given ...), while no worker polled)."""
    what = "hosted show config"
    rc, out, err = console_script(tmp, "hostcfg", "0@0,1@1,(2-3)@1",
                                  ["--rx-lcores", "1", "--worker-lcores", "2-3"],
                                  b"show config\nquit\n")
    t.check_eq(rc, 0, f"{what}: exit status after quit ({err.strip()[-300:]!r})")
    res = {cmd: lines for cmd, lines in blocks(out)}
    t.check_eq([ln for ln in res.get("show config", []) if ln.startswith("idle-worker:")],
               ["idle-worker:   hosted (not given: by placement each worker-only lcore's step "
                "runs in its RX lcore's thread, see show idle)"], f"{what}: idle-worker line")


def test_fanout_pair(tmp):
    """set fanout that moves a pair's line to another tracking worker dissolves the pair and
    says so, as leave and set seq do (before: "fan-out replicate for G" and the pair gone
    from show feed without a word); one that moves no line says nothing of pairs. The two
    lines go to worker lcore 2 by partition's stable hash over workers 1,2; replicate makes
    lcore 1 the first target of 239.42.0.2."""
    what = "set fanout a pair's line"
    rc, out, err = console_script(tmp, "fopair", "0@0,1@1,2@1",
                                  ["--rx-lcores", "1", "--worker-lcores", "1,2", "--host-workers",
                                   "off"],
                                  b"join 239.42.0.1-8:5001\nset seq 239.42.0.1-8:5001 rtp\n"
                                  b"set pair 239.42.0.2:5001,239.42.0.4:5001\n"
                                  b"set fanout 239.42.0.3:5001 replicate\n"
                                  b"set fanout 239.42.0.2:5001 replicate\nshow feed\nquit\n")
    t.check_eq(rc, 0, f"{what}: exit status ({err.strip()[-300:]!r})")
    res = {cmd: lines for cmd, lines in blocks(out)}
    t.check_eq(res.get("set pair 239.42.0.2:5001,239.42.0.4:5001"),
               ["pair: line A 239.42.0.2:5001, line B 239.42.0.4:5001 (rtp), arbitrated by "
                "worker lcore 2"], f"{what}: the pair, on lcore 2")
    t.check_eq(res.get("set fanout 239.42.0.3:5001 replicate"),
               ["fan-out replicate for 239.42.0.3:5001"], f"{what}: no line moved")
    t.check_eq(res.get("set fanout 239.42.0.2:5001 replicate"),
               ["fan-out replicate for 239.42.0.2:5001; pair 239.42.0.2:5001,239.42.0.4:5001 "
                "dissolved (set pair again)"], f"{what}: line A moved to lcore 1")
    feed = res.get("show feed", [])
    t.check(any(ln.startswith("8 groups with a sequence extractor, 0 pairs") for ln in feed),
            f"{what}: show feed has no pair left: {feed}")


def test_source_specific(tmp):
    """join GROUP@SOURCE says the sources it joined from and that the switch filters by them,
    not mcfan; show groups shows a source-specific group as joined (GROUP@SOURCE), at start
    and after a join, and says what that means once; a join from any source says nothing
    of sources."""
    what = "source-specific"
    e = t.eal_args("console-ssm", extra=["--vdev", "net_null0"])
    data = (b"join 232.1.1.1-2:5000@198.18.0.1+198.18.0.3\njoin [ff3e::5]:5000@[fe80::1]\n"
            b"join 239.9.9.2\nshow groups\nquit\n")
    fd, path = tempfile.mkstemp(prefix="mcfan-ssm-", dir=tmp)
    os.write(fd, data)
    os.close(fd)
    with open(path, "rb") as f:
        rc, out, err, rep = t.run_mcfan(e, ["--groups", "239.9.9.1:3999,232.2.2.2@198.18.0.9",
                                            "-i"], timeout=60, stdin=f)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"{what}: exit status ({err.strip()[-300:]!r})")
    res = {cmd: lines for cmd, lines in blocks(out)}
    filt = " (IGMPv3/MLDv2 INCLUDE: the switch forwards these sources only; mcfan does not " \
           "filter by source)"
    t.check_eq(res.get("join 232.1.1.1-2:5000@198.18.0.1+198.18.0.3"),
               ["joined 232.1.1.1:5000 .. 232.1.1.2:5000 (2 groups): counter slots 2 .., "
                "fan-out partition, workers all (1); source-specific: "
                "232.1.1.1:5000@198.18.0.1+198.18.0.3, 232.1.1.2:5000@198.18.0.1+198.18.0.3" +
                filt], f"{what}: the join names its sources")
    t.check_eq(res.get("join [ff3e::5]:5000@[fe80::1]"),
               ["joined [ff3e::5]:5000: counter slot 4, fan-out partition, workers all (1); "
                "source-specific: [ff3e::5]:5000@[fe80::1]" + filt], f"{what}: an IPv6 source")
    t.check_eq(res.get("join 239.9.9.2"),
               ["joined 239.9.9.2: counter slot 5, fan-out partition, workers all (1)"],
               f"{what}: a join from any source")
    shown = res.get("show groups", [])
    t.check_eq([ln.split()[0] for ln in shown[1:-2]],
               ["239.9.9.1:3999", "232.2.2.2@198.18.0.9", "232.1.1.1:5000@198.18.0.1+198.18.0.3",
                "232.1.1.2:5000@198.18.0.1+198.18.0.3", "[ff3e::5]:5000@[fe80::1]", "239.9.9.2"],
               f"{what}: show groups names each group as joined: {shown}")
    t.check(shown[-1:] == ["GROUP@SOURCE: joined from these sources only (IGMPv3/MLDv2 "
                           "INCLUDE): the switch forwards them; mcfan's data path does not "
                           "filter by source (docs/igmp.md)"],
            f"{what}: show groups says what GROUP@SOURCE means: {shown[-1:]}")


SSM_WARN = "is in the source-specific multicast range"


def test_ssm_any_source(tmp):
    """A group in an SSM range (232.0.0.0/8, ff3x::/96) joined from any source, at start or
    with join, gets one WARNING a group address saying routers ignore that join and to give
    GROUP@SOURCE; it is still joined. Not for a source-specific join, a group outside the
    ranges (ff3e:0:0:0:0:1::/96 is not one), a second UDP port of an address already told,
    nor with --igmp off --mld off (nothing is sent)."""
    what = "SSM range, any source"
    data = (b"join [ff3e::7]:5000\njoin 232.2.2.2:6000\njoin 239.9.9.2\n"
            b"join [ff3e::1:0:1]:5000\njoin 232.4.4.4@198.18.48.1\nquit\n")
    app = ["--groups", "239.9.9.1:3999,232.2.2.2:5000,[ff3e::1]:5000,232.3.3.3@198.18.48.1"]
    rc, out, err = console_script(tmp, "ssmany", "0@0,1@1,2@0", app, data)
    t.check_eq(rc, 0, f"{what}: exit status ({err.strip()[-300:]!r})")
    warned = [ln for ln in err.splitlines() if SSM_WARN in ln]
    want = {"232.2.2.2:5000": "232.0.0.0/8", "[ff3e::1]:5000": "ff3x::/96",
            "[ff3e::7]:5000": "ff3x::/96"}
    t.check_eq(len(warned), len(want), f"{what}: one WARNING a group address: {warned}")
    for group, rng in want.items():
        t.check(any(f"group {group} {SSM_WARN} ({rng})" in ln and
                    f"(e.g. {group}@" in ln and "routers ignore there" in ln
                    for ln in warned), f"{what}: {group} told ({rng}): {warned}")
    res = {cmd: lines for cmd, lines in blocks(out)}
    t.check(res.get("join [ff3e::7]:5000", [""])[0].startswith("joined [ff3e::7]:5000"),
            f"{what}: still joined, not refused: {res.get('join [ff3e::7]:5000')}")
    rc, out, err = console_script(tmp, "ssmoff", "0@0,1@1,2@0",
                                  ["--groups", "232.2.2.2:5000,[ff3e::1]:5000", "--igmp",
                                   "off", "--mld", "off"], b"join [ff3e::7]:5000\nquit\n")
    t.check_eq(rc, 0, f"{what}, IGMP and MLD off: exit status ({err.strip()[-300:]!r})")
    t.check(SSM_WARN not in err, f"{what}: nothing said when nothing is sent: {err[-500:]!r}")


def test_end_of_input(tmp):
    pcap = os.path.join(tmp, "rr4.pcap")
    round_robin_pcap(pcap)
    # /dev/null: end of input at once
    e = eal("console-null", pcap=pcap)
    t0 = time.monotonic()
    rc, out, err, rep = t.run_mcfan(e, ["--groups", "239.9.9.1:3999", "-i"], timeout=60)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, "/dev/null: exit status")
    t.check("end of input: stopping" in out, "/dev/null: says end of input")
    t.check(time.monotonic() - t0 < 30, "/dev/null: ends promptly, never spins")
    t.check(rep is not None and t.conservation(rep), "/dev/null: report written")
    # a pipe that closes after two commands, the last line without a newline
    e = eal("console-pipe", pcap=pcap)
    cmd = [t.mcfan_path(), *e, "--", "--groups", "239.9.9.1:3999", "-i"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    time.sleep(0.5)
    try:
        out, err = p.communicate(input=b"show counters\nshow lcores", timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    t.remove_runtime_dir(e)
    out = out.decode(errors="replace")
    t.check_eq(p.returncode, 0, "closed pipe: exit status")
    t.check("mcfan> show lcores" in out and "rx+worker" in out,
            "closed pipe: last line without newline still runs")
    t.check("==== mcfan report" in out, "closed pipe: final report printed")
    # a missing command file is a usage error
    e = eal("console-nofile", pcap=pcap)
    rc, out, err, rep = t.run_mcfan(e, ["--cmdline-file", os.path.join(tmp, "nope.txt")],
                                    timeout=60)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 2, "missing --cmdline-file: exit status 2")
    t.check("--cmdline-file: cannot read" in err, "missing --cmdline-file: says so")
    # a command file with refused lines: each named with its file and line, the next line
    # runs, and the exit status stays 0 (docs/console.md "A command file")
    e = eal("console-fileerr", pcap=pcap)
    script = os.path.join(tmp, "errs.txt")
    with open(script, "w") as f:
        f.write("show counters\nfoo\nset burst 999\nset burst 64\nquit\n")
    rc, out, err, rep = t.run_mcfan(e, ["--groups", "239.9.9.1:3999", "--cmdline-file", script],
                                    timeout=60)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, "command file with refused lines: exit status 0 after its quit")
    t.check_eq([ln for ln in out.splitlines() if ln.startswith("error: ")],
               [f"error: unknown command 'foo' (help lists the commands) ({script} line 2)",
                f"error: set burst: 999 is out of range 1..512 ({script} line 3)"],
               "command file with refused lines: one error each, with file and line")
    t.check("mcfan> set burst 64\nburst 64" in out and "==== mcfan report" in out,
            f"command file with refused lines: the lines after them run: {out[-800:]!r}")
    # --help lists the console options
    p = subprocess.run([t.mcfan_path(), "--", "--help"], capture_output=True, text=True,
                       timeout=30)
    t.check("-i, --interactive" in p.stdout and "--cmdline-file FILE" in p.stdout,
            "--help lists -i and --cmdline-file")


def test_set_engine_tx_spelling(tmp):
    """set engine and join ... engine with a tx output of this run spelled otherwise (its
    port by id, a number with a leading zero, udp-csum=auto written out): that output is
    named, as pcap's directory spelled otherwise is (before: "no engine instance of this run
    ... start mcfan with --group-engine 239.9.9.1=tx:1", a second output on the same port)."""
    what = "set engine tx spelled otherwise"
    e = t.eal_args("console-txspell", extra=["--vdev", "net_null0", "--vdev", "net_null1"])
    data = (b"set engine 239.9.9.1 tx:1\nset engine 1 tx:net_null1,udp-csum=auto\n"
            b"join 239.9.9.5 engine tx:1,dst-port=05001\n"
            b"set engine 239.9.9.1 tx:1,dst-port=5002\nquit\n")
    fd, path = tempfile.mkstemp(prefix="mcfan-txspell-", dir=tmp)
    os.write(fd, data)
    os.close(fd)
    with open(path, "rb") as f:
        rc, out, err, rep = t.run_mcfan(e, ["--groups", "239.9.9.1-2", "--group-engine",
                                            "239.9.9.2=tx:net_null1", "--group-engine",
                                            "239.9.9.1=tx:net_null1,dst-port=5001", "-i"],
                                        timeout=60, stdin=f)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"{what}: exit status after quit ({err.strip()[-300:]!r})")
    res = {cmd: lines for cmd, lines in blocks(out)}
    same = " sends out of port 1 (net_null1) with the same destination and udp-csum: give it as "
    t.check_eq(res.get("set engine 239.9.9.1 tx:1"),
               ["error: set engine: tx:1 is no engine instance of this run, but output 1 "
                "(tx:net_null1)" + same + "this run has it, tx:net_null1"], f"{what}: tx:1")
    t.check_eq(res.get("set engine 1 tx:net_null1,udp-csum=auto"),
               ["error: set engine: tx:net_null1,udp-csum=auto is no engine instance of this "
                "run, but output 1 (tx:net_null1)" + same + "this run has it, tx:net_null1"],
               f"{what}: udp-csum=auto written out")
    t.check_eq(res.get("join 239.9.9.5 engine tx:1,dst-port=05001"),
               ["error: join: tx:1,dst-port=05001 is no engine instance of this run, but "
                "output 2 (tx:net_null1,dst-port=5001)" + same + "this run has it, "
                "tx:net_null1,dst-port=5001"], f"{what}: join, dst-port=05001")
    # another destination is another output: the advice to start with it stays
    t.check(any("tx:1,dst-port=5002 is no engine instance of this run: an engine with its "
                "set-up" in ln for ln in res.get("set engine 239.9.9.1 tx:1,dst-port=5002", [])),
            f"{what}: another dst-port: {res.get('set engine 239.9.9.1 tx:1,dst-port=5002')!r}")
    t.check("joined 239.9.9.5" not in out, f"{what}: nothing joined")


def test_fanout_tx_warning(tmp):
    """set fanout ... replicate with a tx output and 2 worker lcores: the result line says
    what --fanout replicate says at start, in the same words (before: "fan-out replicate
    for every group (1) and later joins" alone, while every frame left the port twice);
    partition says nothing of it."""
    what = "set fanout replicate, tx"
    rc, out, err = console_script(tmp, "fantx", "0@0,1@1,2@0,3@1",
                                  ["--groups", "239.9.9.1", "--worker-engine", "tx:0",
                                   "--rx-ports", "0", "--rx-lcores", "1",
                                   "--worker-lcores", "2-3"],
                                  b"set fanout all replicate\nset fanout 239.9.9.1 replicate\n"
                                  b"set fanout all partition\nquit\n")
    t.check_eq(rc, 0, f"{what}: exit status after quit ({err.strip()[-300:]!r})")
    res = {cmd: lines for cmd, lines in blocks(out)}
    warn = ("tx: set fanout replicate gives every frame to each of the 2 worker lcores, and "
            "each sends its copy: every frame of a group on a tx output leaves its port 2 "
            "times; give set fanout partition to send each frame once (docs/delivery.md)")
    t.check_eq(res.get("set fanout all replicate"),
               ["fan-out replicate for every group (1) and later joins; " + warn],
               f"{what}: every group")
    t.check_eq(res.get("set fanout 239.9.9.1 replicate"),
               ["fan-out replicate for 239.9.9.1; " + warn], f"{what}: one group")
    t.check_eq(res.get("set fanout all partition"),
               ["fan-out partition for every group (1) and later joins"],
               f"{what}: partition, no warning")
    t.check("MCFAN: tx: --fanout replicate" not in err, f"{what}: nothing said at start "
            f"(--fanout partition)")



def test_show_at_rest(tmp):
    """What the show commands print with no group, no traffic counted and nothing measured
    (stop, clear stats): a time that is none is "-", never "-us" (before: "-us" in show
    latency's p50/p99/max and show idle's sleep_cap of a poll lcore), and a measured one
    keeps its unit ("12.3us")."""
    what = "show at rest"
    rc, out, err = console_script(tmp, "rest", "0@0,1@1,2@0", [],
                                  b"stop\nclear stats\nshow latency\nshow idle\nshow groups\n"
                                  b"show counters\nhelp\nquit\n")
    t.check_eq(rc, 0, f"{what}: exit status after quit ({err.strip()[-300:]!r})")
    res = {cmd: lines for cmd, lines in blocks(out)}
    lat = res.get("show latency", [])
    t.check_eq([ln.split() for ln in lat[2:]], [["2", "0", "-", "-", "-"]],
               f"{what}: show latency of worker 2, nothing measured: {lat!r}")
    idle = res.get("show idle", [])
    rows = [ln.split() for ln in idle if ln.split()[:1] in (["1"], ["2"])][:2]
    t.check(len(rows) == 2 and all(r[3] == "-" or re.fullmatch(r"\d+\.\dus", r[3]) for r in rows)
            and [r[4] for r in rows] == ["-", "-"],
            f"{what}: show idle: ring_bound a time with its unit or -, sleep_cap - (poll): "
            f"{idle!r}")
    t.check(not any(re.search(r"(^|\s)-us(\s|$)", ln) for _, lines in blocks(out) for ln in lines),
            f"{what}: no '-us' anywhere: {out[-1500:]!r}")
    t.check_eq(res.get("show groups", [None])[-1],
               "0 of 0 groups; fan-out of later joins: partition", f"{what}: show groups")
    t.check_eq(res.get("show counters", [None])[0], "frames: rx 0 = delivered 0 + drops 0",
               f"{what}: show counters after stop and clear stats")
    # help's line keys (Tab, ?, Up/Down) are the terminal's: on a pipe '?' is a command
    # (before: "Tab completes, ? lists what may come next" with no word of a terminal)
    t.check_eq(res.get("help", [None])[0],
               "Commands (on a terminal: Tab completes, ? lists what may come next, Up/Down "
               "browse the history; Ctrl-D or quit exits; # starts a comment):",
               f"{what}: help says which keys are a terminal's")
    # docs/console.md's example transcript has the lines these commands print, numbers,
    # groups and RX state aside (before: its show groups had no copies, copy_drops columns)
    doc = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                            "console.md"), encoding="utf-8").read()
    example = doc.split("\n    mcfan> show counters\n", 1)[1].split("\n\n", 1)[0]
    ex = {cmd: lines for cmd, lines in blocks("mcfan> show counters\n" + "\n".join(
        ln[4:] for ln in example.splitlines()))}

    def shape(ln):
        return re.sub(r"\d+", "N", re.sub(r"running|stopped", "STATE", ln))
    t.check_eq([shape(ln) for ln in res.get("show counters", [])],
               [shape(ln) for ln in ex.get("show counters", [])],
               f"{what}: show counters prints the lines of docs/console.md's example")
    t.check_eq([shape(ln) for ln in res.get("show groups", [])],
               [shape(ln) for ln in ex.get("show groups", [])[:1] + ex.get("show groups", [])[-1:]],
               f"{what}: show groups prints the header and last line of docs/console.md's "
               f"example")


def test_doc_errors(tmp):
    """docs/console.md's table of refused lines, mechanically: each input of the table, typed
    on a pipe in the table's order (joined: 239.9.9.1:3999; worker lcores 2 and 3; RX
    running), gets exactly the error the table gives (before: the table's `show` row listed
    10 of the 15 words show takes)."""
    what = "docs/console.md errors"
    doc = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                            "console.md"), encoding="utf-8").read()
    table = doc.split("| input | error |\n", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    rows = [(re.match(r"\| `([^`]*)`", ln).group(1),
             re.findall(r"`([^`]*)`", ln.split(" | ", 1)[1])[0]) for ln in table]
    t.check(len(rows) >= 15, f"{what}: {len(rows)} rows")
    data = "".join(inp + "\n" for inp, _ in rows).encode("utf-8") + b"quit\n"
    rc, out, err = console_script(tmp, "docerr", "0@0,1@1,2@0,3@1",
                                  ["--groups", "239.9.9.1:3999", "--rx-lcores", "1",
                                   "--worker-lcores", "2-3"], data)
    t.check_eq(rc, 0, f"{what}: exit status after quit ({err.strip()[-300:]!r})")
    got = [ln[len("error: "):] for ln in out.splitlines() if ln.startswith("error: ")]
    t.check_eq(len(got), len(rows), f"{what}: one error a row")
    for (inp, want), line in zip(rows, got):
        t.check_eq(line, want, f"{what}: {inp!r}")

def main():
    t.mcfan_path()
    with tempfile.TemporaryDirectory(prefix="mcfan-console-") as tmp:
        test_scripted(tmp)
        test_bad_input(tmp)
        test_set_engine_words(tmp)
        test_set_engine_tx_spelling(tmp)
        test_readers_idle_config(tmp)
        test_set_idle_config(tmp)
        test_placement_idle_config(tmp)
        test_hosted_idle_config(tmp)
        test_fanout_pair(tmp)
        test_fanout_tx_warning(tmp)
        test_source_specific(tmp)
        test_ssm_any_source(tmp)
        test_end_of_input(tmp)
        test_show_at_rest(tmp)
        test_doc_errors(tmp)
    t.finish("test_console")


if __name__ == "__main__":
    main()
