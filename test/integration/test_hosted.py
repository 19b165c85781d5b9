#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Hosted workers (docs/idle.md "Hosted workers", issue 10) with the real program.

By default, the worker-only lcores that EAL pins to the one CPU of the only RX lcore have
their worker step run by that RX lcore's thread. These runs check that a hosted worker is
still a worker in every count, that the decision is shown and follows its rules, and that
bad input is refused:

1. net_pcap, RX lcore 1 and workers 2-4 on CPU 1, replicate: every worker counts every
   frame, every group's copies are exact, nothing is dropped, every mbuf is back. The report
   says which lcores are hosted and by whom (idle.hosted_by, policy "hosted", the host's
   why "hosts 3", the top-level hosted_workers), the rings get the default-alone size, the
   hosted workers' tables hold their own dequeue and process cycles, and their threads
   hardly run (voluntary context switches).
2. The same with partition: each group's frames go to exactly one worker; and hosted by an
   RX lcore that is also a worker (run-to-completion), whose own ring is sized alike.
3. Not hosted: --host-workers off, --idle-worker given, an RX lcore on two CPUs; the
   report says why, and the counts are the same.
4. Refused: --host-workers with a bad value (command line and config file); the console's
   `set idle` on a hosted lcore (and `set idle worker`) with the policy unchanged; `show
   lcores` marks the hosted lcores (hosted_by, a note each).
5. The lab (iperf2 multicast into net_af_packet, test/lab/lab.sh) with mcfan's default
   options on the seed's shape, 5 hosted workers, replicate: every datagram on the wire is
   counted by every worker; /mcfan/idle's and /mcfan/lcores' hosted_by columns over the
   telemetry socket.

Usage: test_hosted.py MCFAN_BINARY. Part 5 is skipped (the rest runs) without root or
`ip netns`.
"""

import os
import signal
import subprocess
import sys
import tempfile

import mcfantest as t
from labtest import Lab, McfanRun

PORT = 3999
NG = 3                 # groups of the pcap runs
PER_GROUP = 1000       # frames per group in the capture
TMP = tempfile.mkdtemp(prefix="mcfan-hosted-")
PCAP = os.path.join(TMP, "frames.pcap")
SHAPE = "0@0,1@1,(2-4)@1"   # main 0, RX lcore 1 and workers 2-4 on CPU 1


def lcore(rep, lc):
    return next((row for row in rep["lcores"] if row["lcore"] == lc), {})


def pcap_run(name, lcores, app, timeout=120):
    e = t.eal_lcores(lcores, f"mcfan-hosted-{name}-{os.getpid()}", [f"net_pcap0,rx_pcap={PCAP}"])
    rc, out, err, rep = t.run_mcfan(e, ["--groups", f"239.9.9.1-{NG}:{PORT}", "--duration",
                                        "3", *app], timeout=timeout)
    t.remove_runtime_dir(e)
    return rc, out, err, rep


def check_exact(tag, rep, workers, replicate):
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["rx_frames"], NG * PER_GROUP, f"{tag} frames received")
    t.check_eq(rep["drops"]["ring_full"], 0, f"{tag} ring_full")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} mbufs outside their pool")
    t.check_eq(sorted(w["lcore"] for w in rep["workers"]), workers, f"{tag} worker lcores")
    for g in rep["groups"]:
        t.check_eq(g["frames"], PER_GROUP, f"{tag} group {g['group']} frames")
        t.check_eq(g["copies"], PER_GROUP * (len(workers) if replicate else 1),
                   f"{tag} group {g['group']} copies")
        t.check_eq(g["copy_drops"], 0, f"{tag} group {g['group']} copy drops")
    if replicate:
        for w in rep["workers"]:
            t.check_eq(w["frames"], NG * PER_GROUP, f"{tag} worker {w['lcore']} counts "
                       "every frame")
    else:
        t.check_eq(sum(w["frames"] for w in rep["workers"]), NG * PER_GROUP,
                   f"{tag} the workers' frames add up to the frames received")
        t.check(all(len(g["workers"]) == 1 for g in rep["groups"]),
                f"{tag} one worker a group: {[g['workers'] for g in rep['groups']]}")


def test_hosted_replicate():
    tag = "[hosted replicate]"
    rc, out, err, rep = pcap_run("rep", SHAPE, ["--rx-lcores", "1", "--worker-lcores", "2-4",
                                                "--fanout", "replicate"])
    t.check_eq(rc, 0, f"{tag} exit status ({err[-400:]})")
    if not t.check(rep is not None, f"{tag} report"):
        return
    check_exact(tag, rep, [2, 3, 4], True)
    t.check_eq(rep["hosted_workers"], "auto (3 worker lcores on CPU 1 of RX lcore 1, "
               "hosted by it)", f"{tag} the report's hosted_workers")
    t.check("hosted workers: auto (3 worker lcores on CPU 1 of RX lcore 1" in err,
            f"{tag} the start line says so")
    host = lcore(rep, 1)["idle"]
    t.check(host["hosted_by"] is None and host["why"].endswith(", hosts 3"),
            f"{tag} lcore 1 hosts 3: {host}")
    t.check_eq(host["policy"], "backoff:none", f"{tag} the host keeps its shared-CPU policy")
    for w in (2, 3, 4):
        row = lcore(rep, w)
        iv = row["idle"]
        t.check_eq(iv["hosted_by"], 1, f"{tag} lcore {w} hosted_by")
        t.check_eq(iv["policy"], "hosted", f"{tag} lcore {w} policy")
        t.check_eq(iv["why"], "hosted (its step runs in lcore 1's thread on CPU 1)",
                   f"{tag} lcore {w} why")
        sp = row["state_pct"]
        t.check(sp["process"] > 0 and sp["dequeue"] > 0 and sp["sleep"] > 50,
                f"{tag} lcore {w}'s table holds its own dequeue and process, the rest "
                f"sleep: {sp}")
        t.check_eq(row["frames"], NG * PER_GROUP, f"{tag} lcore {w}'s table frames")
        # its thread waits 1 s at a time: a few in 3 s, never one a burst
        t.check(row["ctx_switches_voluntary"] < 30,
                f"{tag} lcore {w}'s own thread hardly runs: "
                f"{row['ctx_switches_voluntary']} voluntary context switches")
    t.check_eq(rep["ring_size"], 1024, f"{tag} hosted workers get the default ring size")
    t.check_eq(rep["ring_size_why"], "default-alone (every worker that shares a CPU is hosted)",
               f"{tag} ring_size_why")


def test_hosted_partition():
    tag = "[hosted partition]"
    rc, out, err, rep = pcap_run("part", "0@0,1@1,(2-3)@1", ["--rx-lcores", "1",
                                                           "--worker-lcores", "2-3"])
    t.check_eq(rc, 0, f"{tag} exit status ({err[-400:]})")
    if not t.check(rep is not None, f"{tag} report"):
        return
    check_exact(tag, rep, [2, 3], False)
    t.check_eq([lcore(rep, w)["idle"]["hosted_by"] for w in (2, 3)], [1, 1],
               f"{tag} both hosted")


def test_hosted_rtc():
    tag = "[hosted by a run-to-completion lcore]"
    rc, out, err, rep = pcap_run("rtc", "0@0,1@1,(2-3)@1", ["--rx-lcores", "1", "--worker-lcores",
                                                          "1-3", "--fanout", "replicate"])
    t.check_eq(rc, 0, f"{tag} exit status ({err[-400:]})")
    if not t.check(rep is not None, f"{tag} report"):
        return
    check_exact(tag, rep, [1, 2, 3], True)
    t.check_eq([lcore(rep, w)["idle"]["hosted_by"] for w in (1, 2, 3)], [None, 1, 1],
               f"{tag} lcore 1 (RX and worker) hosts 2 and 3")
    # the host's own ring is emptied by the thread that fills it, like the hosted ones
    t.check_eq((rep["ring_size"], rep["ring_size_why"]),
               (1024, "default-alone (every worker that shares a CPU is hosted)"),
               f"{tag} ring size")


def test_alone():
    """An RX-and-worker lcore with no other data lcore on its CPU polls, and says so in those
    words: the sleeping control lcore may share the CPU (before: "alone on its CPU", here
    where control lcore 0 runs on CPU 0 too)."""
    tag = "[no other data lcore]"
    rc, out, err, rep = pcap_run("alone", "(0-1)@0", ["--rx-lcores", "1", "--worker-lcores",
                                                      "1"])
    t.check_eq(rc, 0, f"{tag} exit status ({err[-400:]})")
    if not t.check(rep is not None, f"{tag} report"):
        return
    check_exact(tag, rep, [1], False)
    iv = lcore(rep, 1)["idle"]
    t.check_eq((iv["policy"], iv["why"]), ("poll", "default-alone (no other data lcore on its "
                                           "CPU)"), f"{tag} lcore 1's policy and why")


def test_not_hosted():
    cases = [
        ("off", SHAPE, ["--host-workers", "off"], "option (--host-workers off)"),
        ("idle", SHAPE, ["--idle-worker", "backoff"],
         "none: --idle-worker asks for worker threads that wait by themselves"),
        ("twocpu", "0@0,1@(0-1),(2-4)@1", [], "none: RX lcore 1 may run on 2 CPUs"),
    ]
    for name, lcores, extra, why in cases:
        tag = f"[not hosted: {name}]"
        rc, out, err, rep = pcap_run(name, lcores, ["--rx-lcores", "1", "--worker-lcores",
                                                    "2-4", "--fanout", "replicate", *extra])
        t.check_eq(rc, 0, f"{tag} exit status ({err[-400:]})")
        if not t.check(rep is not None, f"{tag} report"):
            continue
        check_exact(tag, rep, [2, 3, 4], True)
        t.check_eq(rep["hosted_workers"], why, f"{tag} hosted_workers")
        t.check(f"hosted workers: {why}" in err, f"{tag} the start line says why: {err[-600:]}")
        t.check(f"\nhosted workers: {why}\n" in out, f"{tag} the text report says why")
        for w in (2, 3, 4):
            iv = lcore(rep, w)["idle"]
            t.check(iv["hosted_by"] is None and iv["policy"] != "hosted",
                    f"{tag} lcore {w} runs in its own thread: {iv}")
        t.check(not lcore(rep, 1)["idle"]["why"].endswith("hosts 3"), f"{tag} lcore 1 hosts none")


def test_refused():
    tag = "[--host-workers bad]"
    e = t.eal_lcores(SHAPE, f"mcfan-hosted-bad-{os.getpid()}", [f"net_pcap0,rx_pcap={PCAP}"])
    t.check_refused(e, ["--groups", f"239.9.9.1:{PORT}", "--rx-lcores", "1", "--worker-lcores",
                        "2-4", "--host-workers", "maybe"],
                    "--host-workers: 'maybe' is not auto or off", tag)
    t.remove_runtime_dir(e)
    t.check_refused_config("hosted-cfg", TMP, "[mcfan]\nhost-workers = sometimes\n",
                           "'sometimes' is not auto or off", "[config host-workers bad]")

    tag = "[set idle hosted]"
    cmds = os.path.join(TMP, "cmds.txt")
    with open(cmds, "w") as f:
        f.write("set idle 2 backoff\nset idle worker wake\nset idle 1 backoff:short\n"
                "show idle\nshow lcores\nquit\n")
    e = t.eal_lcores(SHAPE, f"mcfan-hosted-con-{os.getpid()}", [f"net_pcap0,rx_pcap={PCAP}"])
    with open(cmds) as f:
        rc, out, err, rep = t.run_mcfan(e, ["--groups", f"239.9.9.1-{NG}:{PORT}", "--rx-lcores",
                                            "1", "--worker-lcores", "2-4", "-i"], stdin=f,
                                        timeout=120)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"{tag} exit status ({err[-300:]})")
    errors = [ln for ln in out.splitlines() if ln.startswith("error:")]
    t.check_eq(len(errors), 2, f"{tag} two refusals: {errors}")
    t.check(any("lcore 2 is hosted by lcore 1" in ln and "--host-workers off" in ln
                for ln in errors), f"{tag} set idle 2: names the host and the way out: {errors}")
    t.check(any("is hosted by lcore 1" in ln for ln in errors[1:]),
            f"{tag} set idle worker refused: {errors}")
    t.check("idle policy backoff:short for lcore 1" in out, f"{tag} the host's policy is set")
    t.check(out.count("hosted (its step runs in lcore 1's thread on CPU 1)") >= 3,
            f"{tag} show idle shows the hosted lcores: {out[-1500:]}")
    # show lcores: the hosted_by column (the host, "-" for an lcore in its own thread) and a
    # note per hosted lcore
    tag = "[show lcores hosted]"
    shown = out.split("mcfan> show lcores\n", 1)[-1].split("mcfan> ", 1)[0].splitlines()
    t.check_eq(shown[0].split(), ["lcore", "cpu", "socket", "role", "state", "rx",
                                  "hosted_by", "ports"], f"{tag} the header: {shown[:1]}")
    t.check_eq({int(ln.split()[0]): ln.split()[6] for ln in shown[1:6]},
               {0: "-", 1: "-", 2: "1", 3: "1", 4: "1"}, f"{tag} hosted_by per lcore: {shown}")
    t.check_eq(shown[6:], [f"lcore {w}: hosted by lcore 1: its worker step runs in lcore 1's "
                           "thread, which writes its state; its own thread only waits "
                           "(docs/idle.md \"Hosted workers\")" for w in (2, 3, 4)],
               f"{tag} one note per hosted lcore: {shown[6:]}")
    tag = "[set idle hosted]"
    if t.check(rep is not None, f"{tag} report"):
        t.check_eq([lcore(rep, w)["idle"]["policy"] for w in (1, 2, 3, 4)],
                   ["backoff:short", "hosted", "hosted", "hosted"],
                   f"{tag} only the host's policy changed")


# ---- 5. the lab: real senders, net_af_packet ----

LAB_GROUPS = 10
LAB_COUNT = 200   # datagrams per group (iperf2 adds its end-of-test datagram)
LAB_PPS = 100


def test_lab(lab):
    tag = "[lab hosted]"
    want = LAB_GROUPS * (LAB_COUNT + 1)
    run = McfanRun(lab.rcv, f"mcfan-hosted-lab-{os.getpid()}", "0@0,1@1,(2-6)@1",
                   lab.af_packet(), ["--groups", f"239.9.9.1-{LAB_GROUPS}:{PORT}", "--rx-lcores",
                                     "1", "--worker-lcores", "2-6", "--fanout", "replicate"],
                   TMP, "lab")
    rc, rep, ans = run.serve(lab, f"lab_send {LAB_GROUPS} {LAB_COUNT} 100 {LAB_PPS}", 5 * want,
                             tag, before=["/mcfan/idle", "/mcfan/lcores"])
    iv = ans.get("/mcfan/idle")
    t.check(iv is not None and dict(zip(iv["lcore"], iv["hosted_by"])) ==
            {1: -1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}, f"{tag} /mcfan/idle hosted_by: {iv}")
    lc = ans.get("/mcfan/lcores")
    t.check(lc is not None and dict(zip(lc["lcore"], lc["hosted_by"])) ==
            {0: -1, 1: -1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1},
            f"{tag} /mcfan/lcores hosted_by (-1: its own thread): {lc}")
    if rep is None:
        return
    t.check_eq(rc, 0, f"{tag} exit status")
    t.check(t.conservation(rep), f"{tag} conservation")
    for w in rep["workers"]:
        t.check_eq(w["frames"], want, f"{tag} worker {w['lcore']} counts every datagram")
    port = rep["ports"][0]
    t.check_eq((port["imissed"], port["rx_nombuf"], rep["drops"]["ring_full"]), (0, 0, 0),
               f"{tag} imissed, rx_nombuf, ring_full")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} mbufs outside their pool")
    p99 = max(w["latency"]["p99_ns"] for w in rep["workers"])
    print(f"hosted: {tag} 5 hosted workers: each counted {rep['workers'][0]['frames']} of "
          f"{want}, worst RX-to-dequeue p99 {p99 / 1e3:.1f} us", flush=True)


def main():
    def on_signal(sig, frame):
        raise KeyboardInterrupt(f"signal {sig}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    t.write_pcap(PCAP, [t.udp4_frame(f"239.9.9.{1 + i % NG}", PORT) for i in
                        range(NG * PER_GROUP)])
    lab = None
    try:
        test_hosted_replicate()
        test_hosted_partition()
        test_hosted_rtc()
        test_alone()
        test_not_hosted()
        test_refused()
        if os.geteuid() == 0 and subprocess.run(["ip", "netns", "list"],
                                                capture_output=True).returncode == 0:
            lab = Lab()
            if t.check(lab.up(), "lab_up"):
                test_lab(lab)
        else:
            print("hosted: lab part skipped: needs root and 'ip netns'", flush=True)
    except KeyboardInterrupt as e:
        t.check(False, f"interrupted ({e})")
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if lab is not None:
            lab.down()
        subprocess.run(["rm", "-rf", "--", TMP])
    t.finish("hosted")


if __name__ == "__main__":
    main()
