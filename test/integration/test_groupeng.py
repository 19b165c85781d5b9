#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Per-group worker engines (docs/delivery.md "Per-group engines"), real program, real vdevs,
in a network namespace made here.

Input: 12 groups 239.9.9.1-12:3999, N frames each (payload naming group and sequence number,
valid checksums), written into net_tap0 from the kernel side (AF_PACKET).

1. One run, two worker lcores, partition and again replicate: groups 1-3 to
   tx:net_tap1 rewritten to dst-port 5001, groups 4-5 to tx:net_tap2 rewritten to dst-port
   5002 (two tx outputs on each worker), groups 6-10 to pcap:DIR (the partition run gives
   them as --group-engine, the replicate run as a config file's [group-engine] rows), 11-12
   count (the --worker-engine). tcpdump on both taps' kernel
   sides: per group the frames mcfan counted for it (x2 under replicate), dst MAC, IP and
   port rewritten as that output asks, net_tap1 carries exactly groups 1-3 (port 5001) and
   net_tap2 exactly 4-5 (5002), the tx_sent of each output = its captured frames; tshark per
   group over the
   pcapng files = the group's frames, no file of another group; count's copies = groups 11-12;
   per worker frames = sum over outputs of frames, per output frames = delivered + dropped
   (dropped 0), conservation, no mbuf outside the pool.
2. set engine GROUPS count under traffic: groups 1-3 start on tx:net_tap1; midway the console
   moves them to count: tx frames + count frames = every frame, tx_sent = the tap's capture,
   both parts not empty; a run-time set engine to an instance that needs set-up is refused.
3. readers for one group (net_pcap input): its ring gets its frames, the other group's ring
   none, the outputs' frames split as the groups.
4. Refusals (docs/bad-input.md section 15): before EAL, exit 2, nothing started: not
   GROUPS=NAME, unknown engine, bad ARGS, ARGS to count, group not in --groups, a group given
   two engines, too many instances, the config file's rows (a bad engine; a group not in
   groups or given two engines, named by the file's line as its other refusals); after EAL: a port without a TX
   queue for every output, net_tap1 with two tx outputs on two workers (5 queue pairs: DPDK
   22.11's net_tap overruns its multi-process message above 4).
5. An IPv6 group on a tx output with dst-ip (IPv4 frames only): refused before EAL
   (--group-engine, --worker-engine, a config file's row) and on the console (set engine
   GROUPS, join ... engine, a join onto such an instance 0), nothing joined or moved.

Usage: test_groupeng.py MCFAN_BINARY. Exit 77 (skip) when not root, without `ip netns`,
tcpdump or tshark.
"""

import glob
import ipaddress
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
N = 20                                   # frames per group
NG = 12
GROUPS = [f"239.9.9.{i}" for i in range(1, NG + 1)]
RW_MAC, RW_IP = "02:00:00:00:00:99", "239.1.1.1"
TX_A = ["239.9.9.1", "239.9.9.2", "239.9.9.3"]          # dst-port 5001
TX_B = ["239.9.9.4", "239.9.9.5"]                       # dst-port 5002
PCAP_G = [f"239.9.9.{i}" for i in range(6, 11)]
COUNT_G = ["239.9.9.11", "239.9.9.12"]
PPS = 1000


def all_frames(groups, n):
    """n frames of each group (payload naming group and sequence number), interleaved."""
    return [t.udp4_seq_frame(g, s, dport=PORT) for s in range(n) for g in groups]


if len(sys.argv) == 6 and sys.argv[1] == "--raw-send":
    # inside the namespace: n frames of each of the first ngroups groups out of iface
    sys.exit(nt.send_paced(sys.argv[2], all_frames(GROUPS[:int(sys.argv[4])],
                                                   int(sys.argv[5])), float(sys.argv[3])))

LAB = nt.Netns("groupeng", "ge")
TMP, ID = LAB.tmp, LAB.id
TIN, TOUT, TOUT2 = f"gei{ID % 100000}", f"geo{ID % 100000}", f"gep{ID % 100000}"


def send(ngroups=NG, n=N, pps=PPS):
    return LAB.send_self(__file__, TIN, str(pps), str(ngroups), str(n))


def Mcfan(name, vdevs, app, lcores, console=False):
    """mcfan in the namespace; stop() with SIGINT (with a console: the test types quit),
    then the report."""
    return nt.NsMcfan(LAB, name, vdevs, app, lcores, console=console)


read_pcap = t.read_pcap
group_of = t.group_of


def outputs_check(rep, tag):
    """Per worker: frames = sum over outputs + set-engine frames; per output frames =
    delivered + dropped, dropped 0. Returns {(engine, args): summed counters + frames}."""
    tot = {}
    frames = {w["lcore"]: w["frames"] for w in rep["workers"]}
    for lc in rep["lcores"]:
        outs = lc.get("engine_outputs") or []
        if lc["lcore"] not in frames:
            continue
        t.check_eq(sum(o["frames"] for o in outs) + lc["engine_set_frames"],
                   frames[lc["lcore"]], f"{tag} lcore {lc['lcore']}: worker frames = sum over "
                   f"its outputs {[(o['engine'], o['frames']) for o in outs]}")
        for o in outs:
            t.check_eq(o["delivered"] + o["dropped"], o["frames"],
                       f"{tag} lcore {lc['lcore']} output {o['output']} {o['engine']}: "
                       f"frames = delivered + dropped ({o['counters']})")
            t.check_eq(o["dropped"], 0, f"{tag} lcore {lc['lcore']} output {o['output']}: "
                       f"nothing dropped")
            s = tot.setdefault((o["engine"], o["args"]), {"frames": 0})
            s["frames"] += o["frames"]
            for k, v in o["counters"].items():
                s[k] = s.get(k, 0) + v
    return tot


def test_mixed(fanout):
    tag = f"[mixed {fanout}]"
    mult = 2 if fanout == "replicate" else 1
    pdir = os.path.join(TMP, f"pcap-{fanout}")
    os.makedirs(pdir)
    caps = [os.path.join(TMP, f"tap-{fanout}-{i}.pcap") for i in (1, 2)]
    cfg = os.path.join(TMP, f"ge-{fanout}.ini")
    rw = f"dst-mac={RW_MAC},dst-ip={RW_IP}"
    rules = [(f"239.9.9.1-3:{PORT}", f"tx:net_tap1,{rw},dst-port=5001"),
             (f"239.9.9.4-5:{PORT}", f"tx:net_tap2,{rw},dst-port=5002"),
             (f"239.9.9.6-10:{PORT}", f"pcap:{pdir}")]
    cli = []
    with open(cfg, "w") as f:
        f.write(f"[mcfan]\nfanout = {fanout}\n")
        if fanout == "replicate":
            f.write("[group-engine]\n" + "".join(f"{g} = {e}\n" for g, e in rules))
        else:
            cli = [x for g, e in rules for x in ("--group-engine", f"{g}={e}")]
    a = Mcfan(f"mix{fanout[0]}", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}",
                                  f"net_tap2,iface={TOUT2}"],
              ["--groups", f"239.9.9.1-{NG}:{PORT}", "--rx-lcores", "1",
               "--worker-lcores", "2-3", "--config", cfg, *cli],
              "0@0,1@1,2@1,3@0")
    dumps = []
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        for iface, cap in zip((TOUT, TOUT2), caps):
            dumps.append(nt.Tcpdump(LAB, iface, cap, tag, f"{tag} tcpdump on {iface}"))
        send()
        time.sleep(1.0)
        for d in dumps:
            d.stop()
        rc, rep = a.stop()
    finally:
        nt.kill_all(a, *dumps)
    if not a.ended(rc, rep, tag):
        return
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} no mbuf outside its pool")
    gf = t.group_frames(rep)
    t.check_eq(gf, {(g, PORT): N for g in GROUPS}, f"{tag} every group's frames counted")
    tot = outputs_check(rep, tag)
    # the taps: per group and per rewrite
    by = {}
    bad = []
    for i, cap in enumerate(caps):
        for fr in read_pcap(cap):
            g = group_of(fr)
            dport = struct.unpack("!H", fr[36:38])[0]
            if dport != 5001 + i:
                bad.append(f"dst-port {dport} on net_tap{i + 1}")
            by.setdefault(dport, {}).setdefault(g, 0)
            by[dport][g] += 1
        if fr[0:6] != bytes.fromhex(RW_MAC.replace(":", "")) or \
                fr[30:34] != ipaddress.IPv4Address(RW_IP).packed or \
                t.csum(fr[14:34]) != 0:
            bad.append(fr[:42].hex())
    t.check_eq(bad[:2], [], f"{tag} every frame on the taps: dst MAC and IP rewritten, IPv4 "
               f"checksum good, its output's port ({len(bad)} bad)")
    t.check_eq(by.get(5001), {g: mult * N for g in TX_A},
               f"{tag} net_tap1 (dst-port 5001): exactly groups 1-3, each its frames")
    t.check_eq(by.get(5002), {g: mult * N for g in TX_B},
               f"{tag} net_tap2 (dst-port 5002): exactly groups 4-5, each its frames")
    t.check_eq(sorted(by), [5001, 5002], f"{tag} no other destination port on the tap")
    for dport, gs in ((5001, TX_A), (5002, TX_B)):
        key = ("tx", f"net_tap{dport - 5000},{rw},dst-port={dport}")
        t.check_eq((tot.get(key, {}).get("tx_sent"), tot.get(key, {}).get("frames")),
                   (mult * N * len(gs), mult * N * len(gs)),
                   f"{tag} output tx dst-port={dport}: tx_sent = frames = its captured "
                   f"frames")
        t.check_eq(sum(by.get(dport, {}).values()), tot.get(key, {}).get("tx_sent"),
                   f"{tag} dst-port {dport}: capture = tx_sent")
    # the pcapng files, read back by tshark
    per = {}
    for path in glob.glob(os.path.join(pdir, "*.pcapng")):
        m = re.fullmatch(r"mcfan-(239\.9\.9\.\d+)_3999-w\d+-\d{5}\.pcapng",
                         os.path.basename(path))
        if not t.check(m is not None, f"{tag} pcap file name {path}"):
            continue
        r = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "ip.dst"],
                           capture_output=True, text=True, timeout=60)
        rows = [x for x in r.stdout.split() if x]
        t.check_eq(set(rows), {m.group(1)}, f"{tag} {os.path.basename(path)}: its group only")
        per[m.group(1)] = per.get(m.group(1), 0) + len(rows)
    t.check_eq(per, {g: mult * N for g in PCAP_G},
               f"{tag} tshark per group over the pcapng files = the group's frames")
    key = ("pcap", pdir)
    t.check_eq((tot.get(key, {}).get("pcap_written"), tot.get(key, {}).get("frames")),
               (mult * N * len(PCAP_G),) * 2, f"{tag} output pcap: pcap_written = frames")
    key = ("count", "")
    t.check_eq((tot.get(key, {}).get("counted"), tot.get(key, {}).get("frames")),
               (mult * N * len(COUNT_G),) * 2, f"{tag} output count: groups 11-12 only")
    t.check("engine output 1 tx:net_tap1," in a.out, f"{tag} the text report per output")
    t.check("lcore 2 worker per-group (outputs 0 count, 1 tx, 2 tx, 3 pcap)" in a.out,
            f"{tag} the text report's engines line: per-group and the outputs: "
            f"{[x for x in a.out.splitlines() if x.startswith('engines:')]}")
    t.check(all(w["frames"] > 0 for w in rep["workers"]) and len(rep["workers"]) == 2,
            f"{tag} both workers took copies: {[w['frames'] for w in rep['workers']]}")
    print(f"groupeng: {tag} captured {sum(sum(v.values()) for v in by.values())}, {tot}",
          flush=True)


telemetry = t.telemetry_once


def test_set_engine():
    tag = "[set engine groups]"
    cap = os.path.join(TMP, "tap-set.pcap")
    a = Mcfan("set", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
              ["--groups", f"239.9.9.1-3:{PORT}", "--rx-lcores", "1", "--worker-lcores", "2",
               "--group-engine", f"239.9.9.1-3:{PORT}=tx:net_tap1", "-i"],
              "0@0,1@1,2@1", console=True)
    n = 3 * 200
    dump = None
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        dump = nt.Tcpdump(LAB, TOUT, cap, tag)
        th = threading.Thread(target=send, args=(3, 200, 300))   # 600 frames over 2 s
        th.start()
        time.sleep(1.0)
        a.console(f"set engine 239.9.9.1-3:{PORT} count")
        th.join()
        time.sleep(0.5)
        a.console(f"set engine 239.9.9.1:{PORT} pcap:{TMP}")
        a.console(f"set engine 239.9.9.1:{PORT} count")
        a.console("show engines")
        tel_out = telemetry(a.prefix, "/mcfan/engine_outputs")
        tel_bad = telemetry(a.prefix, f"/mcfan/set_engine,239.9.9.1:{PORT} pcap:/tmp")
        tel_set = telemetry(a.prefix, f"/mcfan/set_engine,239.9.9.1:{PORT} tx:net_tap1")
        # where each group's copies go now: 239.9.9.1 back on tx, the others on count
        a.console("show groups")
        tel_g1 = telemetry(a.prefix, f"/mcfan/groups,239.9.9.1:{PORT}")
        tel_page = telemetry(a.prefix, "/mcfan/groups")
        # what is missing, as the console says it (trial9: null and no word before)
        tel_miss = [telemetry(a.prefix, c) for c in ("/mcfan/set_engine", "/mcfan/set_engine,2")]
        dump.stop()
        a.console("quit")
        rc, rep = a.stop()
    finally:
        nt.kill_all(a, dump)
    out = a.out
    t.check_eq(rc, 0, f"{tag} exit:\n{out[-2000:]}")
    t.check(f"239.9.9.1:{PORT} .. 239.9.9.3:{PORT} (3 groups): engine instance 0 (count) "
            "from the next RX burst" in out,
            f"{tag} the console's answer: {[x for x in out.splitlines() if 'engine' in x]}")
    t.check(f"error: set engine: pcap:{TMP} is no engine instance of this run" in out and
            "start mcfan with --group-engine" in out, f"{tag} an engine with set-up refused")
    t.check(f"error: set engine: 239.9.9.1:{PORT} already on engine instance 0" in out,
            f"{tag} no change refused")
    t.check(re.search(r"^  output 1 tx:net_tap1: frames \d+; tx_sent \d+", out, re.M)
            is not None, f"{tag} show engines per output")
    t.check_eq(tel_set, {"status": 0, "message": f"239.9.9.1:{PORT}: engine instance 1 "
                         "(tx:net_tap1) from the next RX burst"},
               f"{tag} /mcfan/set_engine moves a group back to tx")
    t.check(isinstance(tel_miss[0], dict) and tel_miss[0].get("status") == -22 and
            tel_miss[0].get("message", "").startswith("set engine: give a worker lcore or "
                                                      "groups, then an engine"),
            f"{tag} /mcfan/set_engine without a parameter says what to give: {tel_miss[0]}")
    t.check(isinstance(tel_miss[1], dict) and tel_miss[1].get("status") == -22 and
            tel_miss[1].get("message", "").startswith("set engine: give an engine after "
                                                      "lcore 2: set engine 2 NAME[:ARGS]"),
            f"{tag} /mcfan/set_engine,2 says an engine is missing: {tel_miss[1]}")
    t.check(isinstance(tel_bad, dict) and tel_bad.get("status") == -95 and
            "is no engine instance of this run" in tel_bad.get("message", ""),
            f"{tag} /mcfan/set_engine refuses an engine with set-up (-ENOTSUP): {tel_bad}")
    rows = re.findall(r"^  (239\.9\.9\.\d):\d+ .*  output (\d) (\S+)$", out, re.M)
    t.check_eq(rows[-3:], [("239.9.9.1", "1", "tx:net_tap1"), ("239.9.9.2", "0", "count"),
                           ("239.9.9.3", "0", "count")],
               f"{tag} show groups: the output each group's copies go to now")
    t.check_eq((tel_g1 or {}).get("output"), 1, f"{tag} /mcfan/groups,GROUP: output")
    t.check_eq((tel_page or {}).get("output"), [1, 0, 0], f"{tag} /mcfan/groups: output column")
    if t.check(isinstance(tel_out, dict), f"{tag} /mcfan/engine_outputs: {tel_out}"):
        t.check_eq({k: tel_out.get(k) for k in ("lcore", "output", "engine", "args")},
                   {"lcore": [2, 2], "output": [0, 1], "engine": ["count", "tx"],
                    "args": ["", "net_tap1"]}, f"{tag} /mcfan/engine_outputs columns")
        t.check_eq(sum(tel_out.get("frames", [])), n, f"{tag} /mcfan/engine_outputs: the "
                   f"outputs' frames add up to every frame")
        t.check_eq(tel_out.get("delivered"), tel_out.get("frames"),
                   f"{tag} /mcfan/engine_outputs: delivered = frames per output")
    if not t.check(rep is not None, f"{tag} report"):
        return
    t.check_eq(t.group_frames(rep), {(f"239.9.9.{i}", PORT): 200 for i in (1, 2, 3)},
               f"{tag} every frame counted per group")
    t.check_eq([g.get("output") for g in rep["groups"]], [1, 0, 0],
               f"{tag} report groups[]: the output of each at the end")
    tot = outputs_check(rep, tag)
    tx, cnt = tot.get(("tx", "net_tap1"), {}), tot.get(("count", ""), {})
    t.check_eq(tx.get("frames", 0) + cnt.get("frames", 0), n,
               f"{tag} tx frames {tx.get('frames')} + count frames {cnt.get('frames')} = "
               f"every frame")
    t.check(tx.get("frames", 0) > 0 and cnt.get("frames", 0) > 0,
            f"{tag} the switch landed under traffic: both parts not empty")
    t.check_eq(len(read_pcap(cap)), tx.get("tx_sent"), f"{tag} the tap's capture = tx_sent")
    t.check(t.conservation(rep), f"{tag} conservation")


def test_set_engine_lcore():
    """set engine LCORE count under traffic: show engines' per-output frames plus its
    `set engine` line add up to the worker's copies, /mcfan/engines' set_engine_frames is
    that line's number (trial: the 632 copies moved showed only in the final report)."""
    tag = "[set engine lcore]"
    a = Mcfan("setlc", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
              ["--groups", f"239.9.9.1-3:{PORT}", "--rx-lcores", "1", "--worker-lcores", "2",
               "--group-engine", f"239.9.9.1-2:{PORT}=tx:net_tap1", "-i"],
              "0@0,1@1,2@1", console=True)
    n = 3 * 200
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        th = threading.Thread(target=send, args=(3, 200, 300))   # 600 frames over 2 s
        th.start()
        time.sleep(1.0)
        a.console("set engine 2 count")
        th.join()
        time.sleep(0.5)
        a.console("show engines")                # the only one: its lines are unique
        tel = telemetry(a.prefix, "/mcfan/engines")
        registered = telemetry(a.prefix, "/") or []
        a.console("quit")
        rc, rep = a.stop()
    finally:
        nt.kill_all(a)
    shown = a.out
    t.check_eq(rc, 0, f"{tag} exit:\n{shown[-2000:]}")
    outs = [int(x) for x in re.findall(r"^  output \d+ \S+: frames (\d+);", shown, re.M)]
    sel = re.findall(r"^  set engine \(set engine LCORE\): frames (\d+)$", shown, re.M)
    if not t.check(len(outs) == 2 and len(sel) == 1, f"{tag} show engines: two outputs and "
                   f"the set engine line:\n{shown}"):
        return
    t.check(int(sel[0]) > 0 and sum(outs) > 0, f"{tag} the switch landed under traffic: "
            f"outputs {outs}, set engine {sel[0]}")
    if not t.check(rep is not None, f"{tag} report"):
        return
    frames = {w["lcore"]: w["frames"] for w in rep["workers"]}
    t.check_eq(frames.get(2), n, f"{tag} the worker's copies")
    t.check_eq(sum(outs) + int(sel[0]), frames.get(2), f"{tag} show engines: outputs "
               f"{outs} + set engine {sel[0]} = the worker's copies")
    lc = [x for x in rep["lcores"] if x["lcore"] == 2]
    t.check(len(lc) == 1 and lc[0]["engine_set_frames"] == int(sel[0]),
            f"{tag} show engines' set engine line = the report's engine_set_frames")
    # DPDK 22.11 registers at most 64 telemetry commands: past that /mcfan/engines is absent
    if "/mcfan/engines" in registered:
        t.check(isinstance(tel, dict) and tel.get("set_engine_frames") == [int(sel[0])],
                f"{tag} /mcfan/engines set_engine_frames = show engines' line: {tel}")
    else:
        print(f"NOTE: {tag} /mcfan/engines not registered (DPDK's 64-command limit): its "
              "set_engine_frames column not checked")
    t.check(t.conservation(rep), f"{tag} conservation")


def bad_cases():
    big = [f"--group-engine=239.9.9.{i}=pcap:/tmp,rotate-s={i}" for i in range(1, 17)]
    return [
        (["--group-engine", "239.9.9.1"], "--group-engine: '239.9.9.1' is not "
         "GROUPS=NAME[:ARGS] of at most 511 characters"),
        (["--group-engine", "239.9.9.1=nope"], "--group-engine: 'nope' is not a worker "
         "engine: "),
        (["--group-engine", "239.9.9.1=tx:0,dst-port=0"], "--group-engine: tx: dst-port '0' "
         "is not a UDP port (1..65535)"),
        (["--group-engine", "239.9.9.1=count:x"], "--group-engine: '239.9.9.1=count:x': "
         "engine count takes no arguments"),
        (["--group-engine", "239.9.9.300=count"], "--group-engine: "),
        (["--group-engine", "239.9.9.7=count"], "--group-engine: group 239.9.9.7 of "
         "'239.9.9.7=count' is not in --groups (join it there too)"),
        (["--group-engine", "239.9.9.1-2=pcap:/tmp", "--group-engine", "239.9.9.2=count"],
         "--group-engine: group 239.9.9.2 is given two engines: '239.9.9.1-2=pcap:/tmp' and "
         "'239.9.9.2=count' (one engine a group)"),
        (big, "--group-engine: '239.9.9.16=pcap:/tmp,rotate-s=16': more than 16 engine "
         "instances"),
    ]


def test_bad_input():
    tag = "[bad input]"
    for i, (args, msg) in enumerate(bad_cases()):
        eal = t.eal_args(f"gebad{i}", extra=["--vdev", "net_null0"])
        app = ["--groups", "239.9.9.1-16", "--duration", "0.2", *args]
        if "239.9.9.7=count" in args:
            t.run_mcfan(eal, app)        # (unchecked, as it always was) then the case proper
            app = ["--groups", "239.9.9.1", "--duration", "0.2", *args]
        t.check_refused(eal, app, msg, f"{tag} {args[-1][:50]}")
    # the address joined with a port: the message says what --groups has
    eal = t.eal_args("gebadport", extra=["--vdev", "net_null0"])
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1-3:3999", "--duration", "0.2",
                                          "--group-engine", "239.9.9.1=count"])
    t.check_eq(rc, 2, f"{tag} group without its port: exit status")
    t.check("--group-engine: group 239.9.9.1 of '239.9.9.1=count' is not in --groups: "
            "--groups has 239.9.9.1:3999, and a group without a port means every port" in err,
            f"{tag} group without its port: message: {err.strip()!r}")
    # an output's set-up refused after EAL names the option that gave it
    eal = t.eal_args("gebadtx", extra=["--vdev", "net_null0"])
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1-3", "--duration", "0.2",
                                          "--group-engine", "239.9.9.1=tx:7"])
    t.remove_runtime_dir(eal)
    t.check_eq(rc, 2, f"{tag} tx:7: exit status")
    t.check("mcfan: --group-engine: tx: '7' is not a probed port" in err and
            "--worker-engine" not in err, f"{tag} tx:7: message names --group-engine: "
            f"{err.strip()[-300:]!r}")
    t.check_refused_config("gebadcfg", TMP,
                           "[mcfan]\ngroups = 239.9.9.1\n[group-engine]\n239.9.9.1 = nope\n",
                           "'nope' is not a worker engine", f"{tag} config file")
    # the checks against groups after parsing name the file's line, as the file's own
    # refusals do (before: "--group-engine: ..." alone)
    bad_ini = os.path.join(TMP, "bad.ini")
    for i, (text, msg) in enumerate([
            ("[mcfan]\ngroups = 239.9.9.1\n[group-engine]\n; the rows\n239.9.9.7 = count\n",
             f"mcfan: config file '{bad_ini}' line 5: key '239.9.9.7' in [group-engine]: "
             "--group-engine: group 239.9.9.7 of '239.9.9.7=count' is not in --groups (join "
             "it there too)\n"),
            ("[mcfan]\ngroups = 239.9.9.1-3:3999\n[group-engine]\n239.9.9.1 = count\n",
             f"mcfan: config file '{bad_ini}' line 4: key '239.9.9.1' in [group-engine]: "
             "--group-engine: group 239.9.9.1 of '239.9.9.1=count' is not in --groups: "
             "--groups has 239.9.9.1:3999, and a group without a port means every port"),
            ("[mcfan]\ngroups = 239.9.9.1-3\n[group-engine]\n239.9.9.1-2 = pcap:/tmp\n"
             "239.9.9.2 = count\n",
             f"mcfan: config file '{bad_ini}' line 5: key '239.9.9.2' in [group-engine]: "
             "--group-engine: group 239.9.9.2 is given two engines: '239.9.9.1-2=pcap:/tmp' "
             "and '239.9.9.2=count' (one engine a group)\n"),
            ("[mcfan]\ngroups = 239.9.9.1\n\ngroup-engine = 239.9.9.7=count\n",
             f"mcfan: config file '{bad_ini}' line 4: key 'group-engine': --group-engine: "
             "group 239.9.9.7 of '239.9.9.7=count' is not in --groups (join it there too)\n"),
            # a repeatable option given twice as a key: where several rules go
            ("[mcfan]\ngroups = 239.9.9.1-2\ngroup-engine = 239.9.9.1=count\n"
             "group-engine = 239.9.9.2=pcap:/tmp\n",
             f"mcfan: config file '{bad_ini}' line 4: key 'group-engine' is given twice "
             "(first on line 3); give several rules as rows of a [group-engine] section, one "
             "rule a row\n")]):
        t.check_refused_config(f"gebadcfg{i}", TMP, text, msg,
                               f"{tag} config file, checked against groups ({i})")
    # after EAL: net_pcap without tx_pcap has 1 TX queue (the control lcore's)
    eal = t.eal_one_txq_port("gebadtxq", TMP)
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1-2", "--duration", "0.2",
                                          "--group-engine", "239.9.9.2=tx:1"])
    t.check_eq(rc, 2, f"{tag} tx:1 output on a port of 1 TX queue: exit status")
    t.check("mcfan: port 1 (net_pcap): 1 worker lcore would send on it (tx engine: 2 TX "
            "queues, queue 0 for the control lcore and one per worker lcore) but the driver "
            "has at most 1 TX queue; no worker lcore can send on it: send on a port with at "
            "least 2 TX queues\n" in err, f"{tag} tx:1 output: {err!r}")
    t.check("fewer" not in err, f"{tag} tx:1 output: one tx output, no advice about outputs: "
            f"{err!r}")
    t.check(rep is None, f"{tag} tx:1 output: no report")
    t.remove_runtime_dir(eal)


def test_ipv6_dst_ip():
    """An IPv6 group on a tx output that rewrites dst-ip (IPv4 frames only): every copy would
    be tx_unrewritable, so it is refused: before EAL (--group-engine, --worker-engine, the
    config file's rows), and on the console (set engine GROUPS, join ... engine, a join onto
    such an instance 0), where nothing changes (before: taken, every copy dropped)."""
    tag = "[ipv6 dst-ip]"
    tx = "tx:0,dst-ip=239.1.1.1,dst-port=5001"
    why = ("tx: dst-ip=239.1.1.1 rewrites IPv4 frames only, and group {g} is IPv6: every "
           "copy of it would be dropped as tx_unrewritable; give IPv6 groups an output "
           "without dst-ip (dst-mac= and dst-port= rewrite both families)")
    g6 = "[ff3e::1]:5000"
    for i, (app, msg) in enumerate([
            (["--groups", f"239.9.9.1,{g6}", "--group-engine", f"{g6}={tx}"],
             f"mcfan: --group-engine: '{g6}={tx}': " + why.format(g=g6)),
            (["--groups", f"239.9.9.1,{g6}", "--worker-engine", tx],
             "mcfan: --worker-engine: " + why.format(g=g6))]):
        eal = t.eal_args(f"ge6bad{i}", extra=["--vdev", "net_null0"])
        t.check_refused(eal, [*app, "--duration", "0.2"], msg, f"{tag} {app[-1]}")
    bad_ini = os.path.join(TMP, "bad.ini")
    t.check_refused_config("ge6badcfg", TMP,
                           f"[mcfan]\ngroups = 239.9.9.1,{g6}\n[group-engine]\n{g6} = {tx}\n",
                           f"mcfan: config file '{bad_ini}' line 4: key '{g6}' in "
                           f"[group-engine]: --group-engine: '{g6}={tx}': " + why.format(g=g6),
                           f"{tag} config file")
    # at run time: the console refuses, and every group stays where it was
    cmds = os.path.join(TMP, "ge6.txt")
    with open(cmds, "w") as f:
        f.write(f"set engine {g6} {tx}\n"
                f"join [ff3e::2]:5000 engine {tx}\n"
                f"set engine 239.9.9.1 {tx}\n"
                "show groups\n")
    eal = t.eal_args("ge6run", extra=["--vdev", "net_null0"])
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", f"239.9.9.1,{g6}", "--group-engine",
                                          f"239.9.9.1={tx}", "--rx-ports", "0",
                                          "--cmdline-file", cmds,
                                          "--duration", "0.5"])
    t.check_eq(rc, 0, f"{tag} console run: exit status: {err[-600:]!r}")
    t.check(f"error: set engine: {why.format(g=g6)}" in out,
            f"{tag} set engine {g6} {tx}: refused: {out[-1500:]!r}")
    t.check("error: join: " + why.format(g="[ff3e::2]:5000") in out,
            f"{tag} join [ff3e::2]:5000 engine {tx}: refused")
    t.check("239.9.9.1: engine instance 1" not in out and
            "already on engine instance 1" in out, f"{tag} an IPv4 group still goes there")
    rows = re.findall(r"^  (\S+) .*  output (\d) (\S+)$", out, re.M)
    t.check_eq(rows, [("239.9.9.1", "1", tx), (g6, "0", "count")],
               f"{tag} show groups: nothing joined or moved")
    # a join without engine onto instance 0 (--worker-engine tx with dst-ip)
    with open(cmds, "w") as f:
        f.write("join [ff3e::2]:5000\nshow groups\n")
    eal = t.eal_args("ge6run0", extra=["--vdev", "net_null0"])
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1", "--worker-engine", tx,
                                          "--rx-ports", "0", "--cmdline-file", cmds,
                                          "--duration", "0.5"])
    t.check_eq(rc, 0, f"{tag} console run, --worker-engine tx: exit status: {err[-600:]!r}")
    t.check("error: join: " + why.format(g="[ff3e::2]:5000") in out,
            f"{tag} join [ff3e::2]:5000 onto --worker-engine {tx}: refused: {out[-800:]!r}")
    t.check("ff3e::2" not in "".join(re.findall(r"^  \S+ .*  output .*$", out, re.M)),
            f"{tag} join onto --worker-engine tx: nothing joined")


def test_readers_group():
    """The readers engine for one group only: its ring is written, the other group's is not
    (it is counted); the reader rings exist because an instance is readers."""
    tag = "[readers per group]"
    pcap = os.path.join(TMP, "rd.pcap")
    t.write_pcap(pcap, [t.udp4_frame(f"239.9.9.{1 + (i % 4 == 0)}", PORT) for i in range(400)])
    _, eal = LAB.pcap_eal("rd", pcap)
    report = os.path.join(TMP, "rd-report.json")
    mc = t.McfanProcess(eal, ["--rx-lcores", "1", "--worker-lcores", "2", "--groups",
                              f"239.9.9.1-2:{PORT}", "--group-engine",
                              f"239.9.9.1:{PORT}=readers", "--duration", "4",
                              "--report-json", report])
    v = None
    try:
        if not t.check(mc.wait_line("running:", 60) is not None, f"{tag} mcfan runs"):
            return
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)
        end = time.monotonic() + 20
        while time.monotonic() < end:
            v, _ = tel.query("/mcfan/readers")
            if v and v.get("ring_written") == [300, 0]:
                break
            time.sleep(0.2)
        tel.close()
    finally:
        rc = mc.wait(30)
    t.check_eq(rc, 0, f"{tag} exit status")
    t.check_eq((v or {}).get("ring_written"), [300, 0],
               f"{tag} /mcfan/readers: group 1's ring has its 300 frames, group 2's none")
    if not t.check(os.path.exists(report), f"{tag} report"):
        return
    with open(report) as f:
        rep = json.load(f)
    tot = outputs_check(rep, tag)
    t.check_eq((tot.get(("readers", ""), {}).get("frames"),
                tot.get(("count", ""), {}).get("frames")), (300, 100),
               f"{tag} the readers output took group 1's copies, count group 2's")
    t.check(t.conservation(rep), f"{tag} conservation")


def test_tap_queues():
    tag = "[tap queues]"
    a = Mcfan("tapq", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
              ["--groups", f"239.9.9.1-2:{PORT}", "--rx-lcores", "1", "--worker-lcores", "2-3",
               "--group-engine", f"239.9.9.1:{PORT}=tx:net_tap1,dst-port=5001",
               "--group-engine", f"239.9.9.2:{PORT}=tx:net_tap1,dst-port=5002"],
              "0@0,1@1,2@1,3@0")
    try:
        out, _ = a.p.communicate(timeout=60)
    finally:
        a.kill()
    t.check_eq(a.p.returncode, 2, f"{tag} two tx outputs x two workers on net_tap1: exit 2")
    t.check("mcfan: port 1 (net_tap): 4 tx outputs of worker lcores send on it, but net_tap "
            "takes at most 4 queue pairs" in out, f"{tag} the message: {out[-800:]!r}")
    t.check("stack smashing" not in out, f"{tag} no crash")


def main():
    LAB.main((("partition", lambda: test_mixed("partition")),
              ("replicate", lambda: test_mixed("replicate")),
              ("set_engine", test_set_engine),
              ("set_engine_lcore", test_set_engine_lcore), ("tap_queues", test_tap_queues),
              ("readers", test_readers_group),
              ("bad_input", test_bad_input), ("ipv6_dst_ip", test_ipv6_dst_ip)),
             ("ip", "tcpdump", "tshark"))


if __name__ == "__main__":
    main()
