#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The last gaps of per-group engines (docs/delivery.md "Per-group engines"), real program,
real vdevs, real senders, in a network namespace made here.

Input: frames of groups 239.9.9.x:3999 (payload naming group and sequence number, valid
checksums) written into net_tap0 from the kernel side (AF_PACKET), or read from a pcap file.

1. join ... engine and set engine LCORE, one run, one worker lcore, console on a pipe:
   --groups 239.9.9.1,5,6 with 239.9.9.1 on tx:net_tap1,dst-port=5001 and 239.9.9.6 on
   tx:net_tap1,dst-port=5002 (two tx outputs on one port), 239.9.9.5 on count (the
   --worker-engine). Under traffic of groups 1, 2, 5, 6 the console joins 239.9.9.2 with
   `engine tx:net_tap1,dst-port=5001`: not one copy of it reaches the count output (it was
   never on output 0), every frame of it counted after the join went out of net_tap1 with
   port 5001 (tcpdump). Refused, nothing joined: an output that is not there (the message
   of set engine GROUPS, under "join:"), an unknown engine, ARGS to count. Then set engine
   2 count on an lcore started with count whose groups go to three outputs: done (not
   "already"), every copy to count (engine_set_frames), show engines and /mcfan/engines
   (mode set_engine) say so; again: "already"; set engine 2 tx: every copy (also count's
   group) to output 1; set engine 2 outputs: back to the groups' outputs. Per phase the
   counts are exact: the count output = group 5 outside the set engine phases, tx output 1
   = its captured frames (port 5001) = tx_sent, output 2 = group 6's (port 5002); the two
   tx outputs on one port have their own TX queues (tx_queue 1 and 2).
2. Two pcap outputs in one directory (however spelled) are refused at start, exit 2, both
   named; in two directories they run, and the writer's start line counts one worker lcore
   and two outputs and names both directories.
3. readers on some groups only (net_pcap input, --group-engine 239.9.9.1-2:3999=readers,
   239.9.9.3 on count), real mcfan-read processes started after the frames (--oldest): each
   reads exactly its group's frames, lost 0; the count group's ring holds nothing, and a
   reader on it is refused at open naming the count engine (exit 1, no JSON line, not a
   reader that silently reads 0 frames); mcfan-read on a group that is not joined is refused
   (exit 1, "no such reader ring").
4. tx per group to net_memif (server), dpdk-testpmd the client in rxonly mode, verbose:
   groups 1-2 on tx:net_memif0, group 3 on count: the peer sees per group exactly the frames
   mcfan counted for 1 and 2, none of 3; the outputs' frames split as the groups.

Usage: test_groupfix.py MCFAN_BINARY [PART ...]. Exit 77 (skip) when not root, without
`ip netns`, tcpdump.
"""

import glob
import json
import os
import re
import struct
import subprocess
import sys
import threading
import time

import mcfantest as t
import netnstest as nt

PORT = 3999


def raw_send_main(iface, pps, groups, n):
    """n frames of each group (comma-separated last octets), interleaved, at pps."""
    gs = [f"239.9.9.{x}" for x in groups.split(",")]
    return nt.send_paced(iface, [t.udp4_seq_frame(g, seq, dport=PORT) for seq in range(n)
                                 for g in gs], pps)


if len(sys.argv) == 6 and sys.argv[1] == "--raw-send":
    sys.exit(raw_send_main(sys.argv[2], float(sys.argv[3]), sys.argv[4], int(sys.argv[5])))

LAB = nt.Netns("groupfix", "gf")
TMP, ID = LAB.tmp, LAB.id
TIN, TOUT = f"gfi{ID % 100000}", f"gfo{ID % 100000}"


def send(groups, n, pps):
    return LAB.send_self(__file__, TIN, str(pps), groups, str(n))


def Mcfan(name, vdevs, app, lcores="0@0,1@1,2@1"):
    """mcfan in the namespace, stdin a pipe (the console with -i); stop() with quit (-i) or
    SIGINT, then the report."""
    return nt.NsMcfan(LAB, name, vdevs, app, lcores, console=True, console_quit=True)


telemetry = t.telemetry_once


def wait_group(prefix, group, want, timeout=20):
    """Until the worker counted want frames of group (/mcfan/groups,GROUP): the last group of
    each round the sender writes, so every frame before it is through the worker too (one
    RX lcore, one worker: one ring, in order)."""
    end, got = time.monotonic() + timeout, None
    while time.monotonic() < end:
        got = (telemetry(prefix, f"/mcfan/groups,{group}") or {}).get("frames")
        if got == want:
            return True
        time.sleep(0.1)
    return t.check_eq(got, want, f"worker counted {group} in time")


wait_capture = nt.wait_capture
read_pcap = t.read_pcap
group_of = t.group_of


def outputs(rep, lcore=2):
    """{output index: engine_outputs entry} of one worker lcore, and its engine_set_frames."""
    for lc in rep["lcores"]:
        if lc["lcore"] == lcore:
            return {o["output"]: o for o in lc.get("engine_outputs") or []}, \
                lc.get("engine_set_frames")
    return {}, None


def test_join_and_lcore():
    tag = "[join engine, set engine LCORE]"
    cap = os.path.join(TMP, "tap1.pcap")
    tx1, tx2 = "tx:net_tap1,dst-port=5001", "tx:net_tap1,dst-port=5002"
    a = Mcfan("join", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
              ["--groups", f"239.9.9.1:{PORT},239.9.9.5:{PORT},239.9.9.6:{PORT}",
               "--rx-lcores", "1", "--worker-lcores", "2",
               "--group-engine", f"239.9.9.1:{PORT}={tx1}",
               "--group-engine", f"239.9.9.6:{PORT}={tx2}", "-i"])
    dump = tel_set = tel_out = None
    n1, n2, n3 = 150, 40, 30          # frames per group in phases 1, 2, 3a/3b
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        dump = nt.Tcpdump(LAB, TOUT, cap, tag)
        # phase 1: group 2 joined on output 1 while its frames arrive (600 frames, 2 s)
        th = threading.Thread(target=send, args=("1,2,5,6", n1, 300))
        th.start()
        time.sleep(0.8)
        a.console(f"join 239.9.9.2:{PORT} engine {tx1}")
        a.console(f"join 239.9.9.3:{PORT} engine pcap:{TMP}")
        a.console(f"join 239.9.9.3:{PORT} workers 2 engine nope")
        a.console(f"join 239.9.9.3:{PORT} engine count:x")
        a.console(f"join 239.9.9.3:{PORT} engine count:")
        th.join()
        g6 = f"239.9.9.6:{PORT}"
        wait_group(a.prefix, g6, n1)
        # phase 2: the whole lcore to count (first a tx output that is not there: refused)
        a.console("set engine 2 tx:net_tap1,dst-port=5003")
        a.console("set engine 2 count")
        a.console("show engines")
        tel_set = telemetry(a.prefix, "/mcfan/engines")
        a.console("set engine 2 count")
        send("1,2,5,6", n2, 400)
        wait_group(a.prefix, g6, n1 + n2)
        # phase 3a: the whole lcore to tx (the first tx output), 3b: back to the outputs
        a.console("set engine 2 tx")
        send("1,2,5,6", n3, 400)
        wait_group(a.prefix, g6, n1 + n2 + n3)
        a.console("set engine 2 outputs")
        a.console("set engine 2 outputs")
        a.console("show engines")
        tel_out = telemetry(a.prefix, "/mcfan/engines")
        send("1,2,5,6", n3, 400)
        wait_group(a.prefix, g6, n1 + n2 + 2 * n3)
        # every copy the tx outputs sent, in tcpdump's file
        eo = telemetry(a.prefix, "/mcfan/engine_outputs") or {}
        wait_capture(cap, sum(d for d, e in zip(eo.get("delivered", []), eo.get("engine", []))
                              if e == "tx"))
        time.sleep(0.2)
        dump.stop()
        rc, rep = a.stop()
    finally:
        nt.kill_all(a, dump)
    out = a.out
    t.check_eq(rc, 0, f"{tag} exit:\n{out[-2000:]}")
    t.check(re.search(rf"^joined 239\.9\.9\.2:{PORT}: counter slot \d+, fan-out partition, "
                      rf"workers all \(1\), engine instance 1 \({re.escape(tx1)}\)$", out,
                      re.M) is not None,
            f"{tag} join ... engine: {[x for x in out.splitlines() if 'join' in x]}")
    t.check(f"error: join: pcap:{TMP} is no engine instance of this run: an engine with its "
            "set-up (ports, queues, files) cannot be added at run time; start mcfan with "
            f"--group-engine 239.9.9.3:{PORT}=pcap:{TMP} (or move the groups to count)" in out,
            f"{tag} join on an output that is not there: set engine GROUPS's message")
    t.check("error: join: 'nope' is not a worker engine: " in out, f"{tag} unknown engine")
    t.check("error: join: engine count takes no arguments ('x')" in out, f"{tag} count:x")
    t.check("error: join: engine count takes no arguments ('')" in out,
            f"{tag} count: (empty ARGS, refused as --worker-engine count: is)")
    t.check(re.search(r"^lcore 2: worker engine count \(was the outputs of its groups: "
                      r"0,1,2\), from its next burst; every copy of the lcore goes to it, "
                      r"whatever its group's output$", out, re.M) is not None,
            f"{tag} set engine 2 count with groups on 3 outputs is done, not 'already'")
    t.check(re.search(r"^lcore 2: engine count \(started as count\); every copy to count "
                      r"\(set engine\)$", out, re.M) is not None,
            f"{tag} show engines: every copy to count")
    t.check("error: set engine: tx:net_tap1,dst-port=5003 is no engine instance of this run: "
            "an engine with its set-up (ports, queues, files) cannot be added at run time; "
            "start mcfan with --group-engine GROUPS=tx:net_tap1,dst-port=5003" in out,
            f"{tag} set engine 2 to a tx output that is not there")
    t.check("error: set engine: lcore 2 runs count already, for all its copies" in out,
            f"{tag} a second set engine 2 count: already")
    t.check("lcore 2: worker engine tx (was count), from its next burst; every copy of the "
            "lcore goes to it, whatever its group's output (output 1)" in out,
            f"{tag} set engine 2 tx: the first tx output")
    t.check("lcore 2: each copy to its group's output again (outputs 0,1,2 now), not tx for "
            "all its copies, from its next burst" in out, f"{tag} set engine 2 outputs")
    t.check("error: set engine: lcore 2 sends each copy to its group's output already "
            "(outputs 0,1,2)" in out, f"{tag} set engine 2 outputs twice: already")
    t.check(re.search(r"^lcore 2: engine per-group \(started as count\); per group: outputs "
                      r"0,1,2$", out, re.M) is not None, f"{tag} show engines: per group")
    t.check(tel_set is not None and tel_set.get("engine") == ["count"] and
            tel_set.get("mode") == ["set_engine"], f"{tag} /mcfan/engines: {tel_set}")
    t.check(tel_out is not None and tel_out.get("engine") == ["per-group"] and
            tel_out.get("mode") == ["per_group"], f"{tag} /mcfan/engines after: {tel_out}")
    if not t.check(rep is not None, f"{tag} report"):
        return
    gf = t.group_frames(rep)
    g2 = gf.get(("239.9.9.2", PORT), 0)
    t.check_eq({k: v for k, v in gf.items() if k != ("239.9.9.2", PORT)},
               {(f"239.9.9.{g}", PORT): n1 + n2 + 2 * n3 for g in (1, 5, 6)},
               f"{tag} groups 1, 5, 6: every frame counted")
    t.check(n2 + 2 * n3 < g2 < n1 + n2 + 2 * n3,
            f"{tag} group 2 joined midway: part of phase 1 counted ({g2})")
    t.check_eq(rep["drops"].get("unknown_group"), n1 + n2 + 2 * n3 - g2,
               f"{tag} group 2's frames before its join: unknown_group; the refused joins "
               f"joined nothing")
    outs, set_frames = outputs(rep)
    t.check_eq(sorted((k, o["engine"], o["args"]) for k, o in outs.items()),
               [(0, "count", ""), (1, "tx", "net_tap1,dst-port=5001"),
                (2, "tx", "net_tap1,dst-port=5002")], f"{tag} the outputs")
    if len(outs) != 3:
        return
    t.check_eq(set_frames, 4 * n2, f"{tag} engine_set_frames = phase 2's copies")
    t.check_eq(outs[0]["frames"], n1 + n3, f"{tag} count output: group 5 in phases 1 and 3b "
               f"only: no copy of group 2 ever reached output 0")
    t.check_eq(outs[1]["frames"], n1 + (g2 - n2 - 2 * n3) + 4 * n3 + 2 * n3,
               f"{tag} output 1: groups 1, 2 in phase 1, everything in 3a, 1 and 2 in 3b")
    t.check_eq(outs[2]["frames"], n1 + n3, f"{tag} output 2: group 6 in phases 1 and 3b")
    for k in (1, 2):
        c = outs[k]["counters"]
        t.check_eq((c.get("tx_sent"), c.get("tx_port"), c.get("tx_queue")),
                   (outs[k]["frames"], 1, k), f"{tag} output {k}: tx_sent = frames, port 1, "
                   f"its own TX queue {k}")
    by = {}
    for fr in read_pcap(cap):
        dport = struct.unpack("!H", fr[36:38])[0]
        by.setdefault(dport, {}).setdefault(group_of(fr), 0)
        by[dport][group_of(fr)] += 1
    t.check_eq(by.get(5001), {"239.9.9.1": n1 + 2 * n3, "239.9.9.2": g2 - n2,
                              "239.9.9.5": n3, "239.9.9.6": n3},
               f"{tag} net_tap1 port 5001: per group (group 2: every frame counted outside "
               f"phase 2; 5 and 6 in phase 3a)")
    t.check_eq(by.get(5002), {"239.9.9.6": n1 + n3}, f"{tag} net_tap1 port 5002: group 6")
    t.check_eq(sum(by.get(5001, {}).values()), outs[1]["counters"].get("tx_sent"),
               f"{tag} capture = tx_sent of output 1")
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} no mbuf outside its pool")


def test_pcap_dirs():
    tag = "[pcap dirs]"
    d1, d2 = os.path.join(TMP, "p1"), os.path.join(TMP, "p2")
    os.makedirs(d1)
    os.makedirs(d2)
    cases = [
        (["--group-engine", f"239.9.9.1=pcap:{d1}", "--group-engine",
          f"239.9.9.2=pcap:{d1}/,rotate-s=5"],
         f"--group-engine: outputs 'pcap:{d1}' and 'pcap:{d1}/,rotate-s=5' both write into "
         f"directory {d1}: their files would have the same names; give each pcap output a "
         "place of its own"),
        (["--worker-engine", f"pcap:{d1}", "--group-engine",
          f"239.9.9.2=pcap:{TMP}/p2/../p1,rotate-mb=1"],
         f"--group-engine: outputs 'pcap:{d1}' (--worker-engine) and "
         f"'pcap:{TMP}/p2/../p1,rotate-mb=1' both write into directory {d1}"),
    ]
    for i, (args, msg) in enumerate(cases):
        eal = t.eal_args(f"gfpc{i}", extra=["--vdev", "net_null0"])
        t.check_refused(eal, ["--groups", "239.9.9.1-2", "--duration", "0.2", *args], msg,
                        f"{tag} case {i}")
    eal = t.eal_args("gfpcok", extra=["--vdev", "net_null0"])
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1-2", "--duration", "0.2",
                                          "--group-engine", f"239.9.9.1=pcap:{d1}",
                                          "--group-engine", f"239.9.9.2=pcap:{d2}"])
    t.check_eq(rc, 0, f"{tag} two directories: runs ({err.strip()[-300:]!r})")
    # -l 0-1: one worker lcore (lcore 1) with two pcap outputs, each directory named
    line = [x for x in (out + err).splitlines() if "pcap: writer thread" in x]
    t.check_eq(line, [f"MCFAN: pcap: writer thread for 1 worker lcore and 2 pcap outputs, "
                      f"files in {d1}, {d2}"], f"{tag} two directories: the writer's start line")
    t.remove_runtime_dir(eal)


def reader_bin():
    """build/app/mcfan-read/mcfan-read beside the mcfan binary's build tree."""
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(t.mcfan_path()))))
    return os.path.join(build, "app", "mcfan-read", "mcfan-read")


def test_readers_some():
    tag = "[readers on some groups]"
    rd = reader_bin()
    if not t.check(os.path.exists(rd), f"{tag} {rd} built"):
        return
    want = {"239.9.9.1": 240, "239.9.9.2": 120, "239.9.9.3": 60}
    frames = []
    for i in range(240):
        frames.append(t.udp4_frame("239.9.9.1", PORT, data=b"a" * 20))
        if i % 2 == 0:
            frames.append(t.udp4_frame("239.9.9.2", PORT, data=b"b" * 20))
        if i % 4 == 0:
            frames.append(t.udp4_frame("239.9.9.3", PORT, data=b"c" * 20))
    pcap = os.path.join(TMP, "rd.pcap")
    t.write_pcap(pcap, frames)
    prefix, eal = LAB.pcap_eal("rd", pcap)
    report = os.path.join(TMP, "rd-report.json")
    mc = t.McfanProcess(eal, ["--rx-lcores", "1", "--worker-lcores", "2", "--groups",
                              f"239.9.9.1-3:{PORT}", "--group-engine",
                              f"239.9.9.1-2:{PORT}=readers", "--duration", "4",
                              "--report-json", report])
    rds = []
    try:
        if not t.check(mc.wait_line("running:", 60) is not None, f"{tag} mcfan runs"):
            return
        # started after the frames were written: --oldest reads each ring from its start
        for g in ("239.9.9.1", "239.9.9.1", "239.9.9.2", "239.9.9.2", "239.9.9.3"):
            rds.append((g, subprocess.Popen([rd, "--file-prefix", prefix, "--group",
                                             f"{g}:{PORT}", "--oldest", "--quiet",
                                             "--no-seq"], stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True)))
        nj = subprocess.run([rd, "--file-prefix", prefix, "--group", f"239.9.9.9:{PORT}"],
                            capture_output=True, text=True, timeout=30)
        rc = mc.wait(30)
    finally:
        if mc.p.poll() is None:
            mc.p.kill()
            mc.wait(10)
        res = []
        for g, p in rds:
            try:
                o, e = p.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                o, e = p.communicate()
            lines = [ln for ln in o.splitlines() if ln.startswith("{")]
            res.append((g, json.loads(lines[-1]) if lines else None, e, p.returncode))
        for f in glob.glob(f"/dev/shm/mcfan.{prefix}.*"):
            os.unlink(f)
    t.check_eq(rc, 0, f"{tag} mcfan exit status")
    for g, r, e, prc in res:
        if g == "239.9.9.3":
            t.check_eq((prc, r, e), (1, None, f"mcfan-read: group {g}:{PORT}: mcfan serves it "
                                     "with the count engine, not readers (route the group to "
                                     "readers: give mcfan's console set engine "
                                     f"{g}:{PORT} readers, or start mcfan with "
                                     f"--group-engine {g}:{PORT}=readers and no other "
                                     "--group-engine or [group-engine] row for it)\n"),
                       f"{tag} mcfan-read on the count group: refused at open, why")
            continue
        t.check_eq((prc, (r or {}).get("frames"), (r or {}).get("lost")), (0, want[g], 0),
                   f"{tag} mcfan-read on {g}: its group's frames, none lost ({r}, "
                   f"{e.strip()[-200:]!r})")
    t.check(nj.returncode == 1 and "no such reader ring" in nj.stderr,
            f"{tag} mcfan-read on a group not joined: exit 1, no such reader ring: "
            f"{nj.returncode} {nj.stderr.strip()!r}")
    if not t.check(os.path.exists(report), f"{tag} report"):
        return
    with open(report) as f:
        rep = json.load(f)
    outs, _ = outputs(rep)
    t.check_eq({(o["engine"], o["frames"]) for o in outs.values()},
               {("count", 60), ("readers", 360)},
               f"{tag} readers output: groups 1-2's copies, count: group 3's")
    rings = {r["group"]: r["written"] for r in (rep.get("readers") or {}).get("rings", [])}
    t.check_eq(rings, {f"{g}:{PORT}": (n if g != "239.9.9.3" else 0) for g, n in want.items()},
               f"{tag} reader rings written: groups 1-2 their frames, the count group's none")
    t.check(t.conservation(rep), f"{tag} conservation")


def test_memif():
    tag = "[tx memif per group]"
    if not nt.have_dpdk_tool("dpdk-testpmd", tag):
        return
    sock = os.path.join(TMP, "memif.sock")
    n = 60
    a = Mcfan("memif", [f"net_tap0,iface={TIN}", f"net_memif0,role=server,socket={sock}"],
              ["--groups", f"239.9.9.1-3:{PORT}", "--rx-lcores", "1", "--worker-lcores", "2",
               "--group-engine", f"239.9.9.1-2:{PORT}=tx:net_memif0"])
    # line-buffered: the echo of the console's "stop" cannot cut a verbose line
    r = nt.TestpmdMemif(LAB, sock, LAB.prefix("tp"), line_buffered=True).run(
        a, tag, lambda: send("1,2,3", n, 600))
    if r is None:
        return
    rc, rep, out = r
    if not a.ended(rc, rep, tag, "mcfan exit"):
        return
    t.check_eq(t.group_frames(rep), {(f"239.9.9.{g}", PORT): n for g in (1, 2, 3)},
               f"{tag} mcfan's per-group counts = frames sent")
    got = nt.TestpmdMemif.per_group(out)
    t.check_eq(got, {"239.9.9.1": n, "239.9.9.2": n},
               f"{tag} at the memif peer (testpmd): groups 1-2, each its frames, no group 3:"
               f"\n{out[-1500:]}")
    outs, _ = outputs(rep)
    t.check_eq({(o["engine"], o["frames"], o["counters"].get("tx_sent", o["frames"]))
                for o in outs.values()}, {("count", n, n), ("tx", 2 * n, 2 * n)},
               f"{tag} the outputs' frames: tx groups 1-2 (all sent), count group 3")
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} no mbuf outside its pool")


def main():
    LAB.main((("join", test_join_and_lcore), ("pcap_dirs", test_pcap_dirs),
              ("readers", test_readers_some), ("memif", test_memif)), ("ip", "tcpdump"))


if __name__ == "__main__":
    main()
