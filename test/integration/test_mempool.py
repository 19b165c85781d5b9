#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""/mcfan/mempool: the mbufs outside their pool while mcfan runs (docs/telemetry.md), as the
soak (test/soak/) samples it every second.

net_pcap with infinite_rx=1 copies its capture into mbufs at start and keeps them for the
whole run (it replays copies of them), so the count is known exactly: with RX stopped from
the console (rings drained, every copy counted and freed) the mbufs outside the pool are
exactly the capture's frames; while frames flow into a replicate fan-out at least those and
at most the pool; after quit the report's mbufs_outside_pool is 0. Also: the documented keys,
size = the report's mbufs_total, available + outside_pool = size, a parameter refused (null).
The pool's handler follows the placement (docs/performance.md "Scale"): stack when data lcores
share a CPU (this run), DPDK's ring_mp_mc when none does, the EAL's --mbuf-pool-ops-name when
given; /mcfan/mempool and the start line say which and why. The worker rings follow it too:
8192 slots when a worker shares a CPU, 1024 when none does, --ring-size or the config file
when given; /mcfan/info, show config, the start line and the report say which and why.

Usage: test_mempool.py MCFAN_BINARY"""

import atexit
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-mempool-")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
N_FRAMES = 57          # frames in the capture = mbufs net_pcap keeps
KEYS = {"name", "size", "cache_size", "ops", "ops_why", "available", "outside_pool"}


def console(p, cmd):
    p.stdin.write(cmd + "\n")
    p.stdin.flush()


def handler_runs(pcap):
    """The start line names the handler and why: alone, and shared with the EAL option."""
    for name, lcores, wk, extra, want in (
            ("alone", "0@0,1@1", "1", [], "handler ring_mp_mc: default-alone (no two data "
             "lcores share a CPU)"),
            ("option", "0@0,1@1,2@1", "1-2", ["--mbuf-pool-ops-name", "ring_mp_mc"],
             "handler ring_mp_mc: option (--mbuf-pool-ops-name ring_mp_mc)")):
        eal = t.eal_args(f"mempool-{name}",
                         extra=["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1", *extra])
        eal[0:2] = ["--lcores", lcores]
        r = subprocess.run([t.mcfan_path(), *eal, "--", "--groups", "239.9.9.1-3:3999",
                            "--rx-lcores", "1", "--worker-lcores", wk, "--duration", "1"],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        t.remove_runtime_dir(eal)
        t.check_eq(r.returncode, 0, f"[{name}] exit status ({r.stderr[-300:]!r})")
        line = next((ln for ln in r.stderr.splitlines() if "mbuf pool:" in ln), "")
        t.check(line.endswith(want), f"[{name}] start line ends with {want!r}: {line!r}")


OFF = ["--host-workers", "off"]


def ring_runs(pcap):
    """Worker rings by placement (docs/performance.md "Worker rings by placement"): 1024 slots
    when no worker shares a CPU; 8192 when one does; fewer when more rings would pass 98,304
    slots in all (32 workers: 2048); --ring-size and the config file's ring-size win."""
    cfg = os.path.join(TMP, "ring.ini")
    with open(cfg, "w") as f:
        f.write("[mcfan]\nring-size = 512\n")
    low = ("default-shared (worker lcore 2 shares CPU 1 with another data lcore), lowered: "
           "a pool for more did not fit in memory")
    whys = set()
    for name, lcores, wk, extra, want in (
            ("alone", "0@0,1@1", "1", [],
             (1024, "default-alone (no worker shares a CPU with another data lcore)")),
            # 10 x 8192 slots need a pool of about 200 MiB: -m 256 cannot hold it, so the
            # default halves the rings (the old default, 1024, ran in this memory)
            # worker threads of their own (--host-workers off): hosted workers (the default
            # on these shapes, docs/idle.md "Hosted workers") empty their rings every pass
            ("lowered", "0@0,1@1,(2-11)@1", "2-11", OFF, (4096, low)),
            ("shared", "0@0,1@1,2@1", "1-2", OFF,
             (8192, "default-shared (worker lcore 1 shares CPU 1 with another data lcore)")),
            ("many", "0@0,1@1,(2-33)@0", "2-33", [],
             (2048, "default-shared (worker lcore 2 shares CPU 0 with another data lcore)")),
            ("option", "0@0,1@1,2@1", "1-2", ["--ring-size", "2048", *OFF],
             (2048, "option (--ring-size 2048)")),
            ("config", "0@0,1@1,2@1", "1-2", ["--config", cfg, *OFF],
             (512, "option (--ring-size 512)")),
            ("hosted", "0@0,1@1,(2-11)@1", "2-11", [],
             (1024, "default-alone (every worker that shares a CPU is hosted)"))):
        eal = t.eal_args(f"mempool-ring-{name}",
                         extra=["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"])
        eal[0:2] = ["--lcores", lcores]
        if name in ("lowered", "hosted"):   # hosted: 1024 slots fit where 8192 did not
            eal[eal.index("-m") + 1] = "256"
        report = os.path.join(TMP, f"ring-{name}.json")
        r = subprocess.run([t.mcfan_path(), *eal, "--", "--groups", "239.9.9.1-3:3999",
                            "--fanout", "replicate", "--rx-lcores", "1", "--worker-lcores", wk,
                            "--duration", "0.5", "--report-json", report, *extra],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        t.remove_runtime_dir(eal)
        if not t.check_eq(r.returncode, 0, f"[ring {name}] exit status ({r.stderr[-300:]!r})"):
            continue
        line = next((ln for ln in r.stderr.splitlines() if "worker rings:" in ln), "")
        t.check(line.endswith(f"worker rings: {want[0]} slots: {want[1]}"),
                f"[ring {name}] start line says {want}: {line!r}")
        with open(report) as f:
            rep = json.load(f)
        t.check_eq((rep["ring_size"], rep["ring_size_why"]), want,
                   f"[ring {name}] report ring_size, ring_size_why")
        whys.add(re.sub(r"[0-9]+", "N", rep["ring_size_why"]).split(", lowered")[0])
        t.check_eq(sorted({w["ring_size"] for w in rep["workers"]}), [want[0]],
                   f"[ring {name}] every worker's ring")
        if name == "hosted":
            # hosted rings are emptied in the RX pass that filled them: the pool holds one
            # pass (1 pair x 512, the largest burst), not 10 x 1024 slots, so the smallest
            # pool mcfan makes (8191 mbufs) is enough
            t.check_eq(rep["mbufs_total"], 8191, f"[ring {name}] pool: the smallest")
        else:
            # the pool holds every ring full (and the rest): 32 x 2048 slots are in it
            t.check(rep["mbufs_total"] >= want[0] * len(rep["workers"]),
                    f"[ring {name}] pool {rep['mbufs_total']} >= rings x slots")
        t.check(t.conservation(rep), f"[ring {name}] report conservation")
        # the same placement picks each lcore's scheduling class and longest sleep: a
        # worker-only lcore on the RX lcore's CPU runs SCHED_BATCH (woken by the RX lcore
        # it must not preempt it) and sleeps up to 50 ms (the RX lcore wakes it); an RX
        # lcore on a shared CPU up to 5 ms; lcores alone poll (docs/idle.md "Defaults")
        got = {l["lcore"]: (l["idle"]["sched"], l["idle"]["max_sleep_ns"])
               for l in rep["lcores"] if l["role"] != "control"}
        shared_rx = name != "alone" and name != "many"
        want_l = {1: ("normal", 5_000_000 if shared_rx else 100_000)} if wk != "2-11" else \
            {1: ("normal", 5_000_000)}
        for w in rep["workers"]:
            if w["lcore"] != 1:
                # a hosted worker shows its host's class, and no sleep of its own
                want_l[w["lcore"]] = ("normal", 0) if name == "hosted" else \
                    ("batch", 50_000_000) if shared_rx else ("normal", 50_000_000)
        t.check_eq(got, want_l, f"[ring {name}] lcores' sched class and max sleep")
    # docs/guide.md's ring_size_why row names every why these runs gave (numbers aside)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                           "guide.md")) as f:
        row = next((ln for ln in f if ln.startswith("| `ring_size`, `ring_size_why` |")), "")
    doc = {re.sub(r"[0-9]+", "N", w) for w in re.findall(r"`([^`]+)`", row)}
    t.check(whys and whys <= doc, f"docs/guide.md ring_size_why row names every why of the "
            f"runs: missing {sorted(whys - doc)}")


def hosted_pairs(pcap):
    """An RX lcore that polls two ports and hosts ten workers (docs/idle.md "Hosted
    workers"): each RX pass may put two bursts in a hosted worker's ring, and the host empties
    it in that pass (datapath/lcore.c pass_steps()). Both captures replay without end and
    saturate the RX lcore, yet no ring fills: ring_full 0, every frame delivered to every
    worker (replicate), the report conserved."""
    report = os.path.join(TMP, "pairs.json")
    eal = t.eal_args("mempool-pairs", extra=[
        "--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1",
        "--vdev", f"net_pcap1,rx_pcap={pcap},infinite_rx=1"])
    eal[0:2] = ["--lcores", "0@0,1@1,(2-11)@1"]
    r = subprocess.run([t.mcfan_path(), *eal, "--", "--groups", "239.9.9.1-3:3999",
                        "--fanout", "replicate", "--rx-lcores", "1", "--worker-lcores", "2-11",
                        "--duration", "1", "--report-json", report],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    t.remove_runtime_dir(eal)
    if not t.check_eq(r.returncode, 0, f"[pairs] exit status ({r.stderr[-300:]!r})"):
        return
    with open(report) as f:
        rep = json.load(f)
    t.check_eq(len(rep["workers"]), 10, "[pairs] ten workers")
    t.check_eq(sorted(l["idle"].get("hosted_by") for l in rep["lcores"]
                      if l["lcore"] >= 2), [1] * 10, "[pairs] lcores 2-11 hosted by lcore 1")
    t.check(rep["rx_frames"] > 10 * N_FRAMES, f"[pairs] traffic: {rep['rx_frames']} frames")
    t.check_eq(rep["drops"].get("ring_full"), 0, "[pairs] ring_full: hosted rings never fill")
    t.check_eq(sum(rep["drops"].values()), 0, f"[pairs] no drops at all: {rep['drops']}")
    t.check_eq(sorted({w["frames"] for w in rep["workers"]}), [rep["rx_frames"]],
               "[pairs] every worker got every frame")
    t.check(t.conservation(rep), "[pairs] report conservation")
    t.check_eq(rep["mbufs_total"], 8191, "[pairs] pool: the smallest (one pass is 2 x 512)")
    t.check("holds less than one RX pass" not in r.stderr, "[pairs] no ring warning at 1024")
    # a ring smaller than one pass (2 pairs x burst 32): said at start, the overflow counted
    r = subprocess.run([t.mcfan_path(), *eal, "--", "--groups", "239.9.9.1-3:3999",
                        "--fanout", "replicate", "--rx-lcores", "1", "--worker-lcores", "2-11",
                        "--ring-size", "32", "--duration", "0.5", "--report-json", report],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    t.remove_runtime_dir(eal)
    if not t.check_eq(r.returncode, 0, f"[pairs 32] exit status ({r.stderr[-300:]!r})"):
        return
    t.check("MCFAN: hosted workers: a worker ring of 32 slots holds less than one RX pass of "
            "lcore 1 (2 (port, queue) pairs x burst 32 = 64 frames): expect ring_full "
            "whenever the ports are busy; --ring-size 64 or more keeps every frame"
            in r.stderr, f"[pairs 32] the start says the ring is too small: {r.stderr[-600:]!r}")
    with open(report) as f:
        rep = json.load(f)
    t.check(rep["drops"]["ring_full"] > 0, f"[pairs 32] ring_full counted: {rep['drops']}")
    t.check(t.conservation(rep), "[pairs 32] report conservation")


def main():
    pcap = os.path.join(TMP, "mix.pcap")
    t.write_pcap(pcap, [t.udp4_frame(f"239.9.9.{i % 3 + 1}", 3999) for i in range(N_FRAMES)])
    report = os.path.join(TMP, "report.json")
    # lcores 1 (RX and worker) and 2 (worker) share CPU 1 (2-CPU hosts)
    eal = t.eal_args("mempool", extra=["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"])
    eal[0:2] = ["--lcores", "0@0,1@1,2@1"]
    cmd = [t.mcfan_path(), *eal, "--", "--groups", "239.9.9.1-3:3999", "--fanout",
           "replicate", "--rx-lcores", "1", "--worker-lcores", "1-2", "--host-workers", "off",
           "-i", "--report-json", report]
    err = open(os.path.join(TMP, "stderr"), "w")
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                         text=True)
    class Proc:        # what Telemetry() looks at to notice an early exit
        pass
    Proc.p = p
    tel = t.Telemetry(t.telemetry_socket(eal), timeout=60, proc=Proc)
    t.check(tel.wait_ready() is not None, "/mcfan/info answers")
    # telemetry answers before the ports start: net_pcap's infinite_rx copy of the capture
    # is loaded at start, so sample only once the lcores run
    deadline, running = time.monotonic() + 60, False
    while not running and time.monotonic() < deadline and p.poll() is None:
        with open(os.path.join(TMP, "stderr")) as f:
            running = "MCFAN: running" in f.read()
        time.sleep(0.05)
    t.check(running, "lcores launched (MCFAN: running)")
    seen = []
    end = time.monotonic() + 2
    while time.monotonic() < end:
        v, _ = tel.query("/mcfan/mempool")
        if not t.check(isinstance(v, dict) and set(v) == KEYS, f"/mcfan/mempool keys: {v}"):
            break
        t.check(v["available"] + v["outside_pool"] == v["size"],
                f"available + outside_pool = size: {v}")
        seen.append(v["outside_pool"])
        time.sleep(0.02)
    t.check(seen and min(seen) >= N_FRAMES and max(seen) <= v["size"],
            f"under traffic: {N_FRAMES} <= outside_pool <= size, got {min(seen or [-1])}.."
            f"{max(seen or [-1])}")
    t.check_eq(v["name"], "mcfan_pool", "/mcfan/mempool name")
    t.check_eq(v["cache_size"], 256, "/mcfan/mempool cache_size")
    t.check_eq(v["ops"], "stack", "/mcfan/mempool ops: data lcores share CPU 1")
    t.check_eq(v["ops_why"], "default-shared (lcore 1 shares CPU 1 with another data lcore)",
               "/mcfan/mempool ops_why")
    info, _ = tel.query("/mcfan/info")
    t.check_eq(info and (info["ring_size"], info["ring_size_why"]),
               (8192, "default-shared (worker lcore 1 shares CPU 1 with another data lcore)"),
               "/mcfan/info ring_size, ring_size_why: workers share CPU 1")
    idle, _ = tel.query("/mcfan/idle")
    t.check_eq(idle and list(zip(idle["lcore"], idle["sched"])), [(1, "normal"), (2, "batch")],
               "/mcfan/idle sched: the worker-only lcore on the RX lcore's CPU runs batch")
    # the class now, also what chrt set from outside (a trial found the start's kept)
    tid = next((t_ for t_ in os.listdir(f"/proc/{p.pid}/task")
                if open(f"/proc/{p.pid}/task/{t_}/comm").read().strip() == "rte-worker-2"), None)
    r = subprocess.run(["chrt", "-o", "-p", "0", str(tid)], capture_output=True, text=True)
    t.check_eq(r.returncode, 0, f"chrt -o on lcore 2's thread {tid}: {r.stderr!r}")
    idle, _ = tel.query("/mcfan/idle")
    t.check_eq(idle and list(zip(idle["lcore"], idle["sched"])), [(1, "normal"), (2, "normal")],
               "/mcfan/idle sched after chrt -o on lcore 2")
    # a worker set to backoff is not woken by its RX lcore: the RX default cap (5 ms), not
    # the 50 ms its wake default relies on
    t.check_eq(idle and idle["max_sleep_ns"][1], 50_000_000, "/mcfan/idle lcore 2 wake cap")
    console(p, "set idle 2 backoff:none")
    time.sleep(0.3)
    idle, _ = tel.query("/mcfan/idle")
    t.check_eq(idle and (idle["policy"][1], idle["max_sleep_ns"][1]), ("backoff:none", 5_000_000),
               "/mcfan/idle lcore 2 set to backoff: its longest sleep is 5 ms")
    size = v["size"]
    v, _ = tel.query("/mcfan/mempool,1")
    t.check(v is None, f"/mcfan/mempool,1 is refused (null): {v!r}")
    console(p, "stop")
    time.sleep(0.5)
    v, _ = tel.query("/mcfan/mempool")
    t.check_eq(v and v["outside_pool"], N_FRAMES,
               "RX stopped, rings drained: outside_pool = the frames net_pcap keeps")
    console(p, "start")
    time.sleep(0.3)
    console(p, "quit")
    try:
        out, _ = p.communicate(timeout=60)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        rc = None
    tel.close()
    t.check_eq(rc, 0, "exit status after quit")
    t.check("RX stopped" in out, f"console stopped RX: {out[-300:]!r}")
    rep = None
    if t.check(os.path.exists(report), "report written"):
        with open(report) as f:
            rep = json.load(f)
    if rep is not None:
        t.check_eq(rep["mbufs_total"], size, "report mbufs_total = /mcfan/mempool size")
        t.check_eq(rep["mbufs_outside_pool"], 0, "report mbufs_outside_pool after quit")
        t.check(t.conservation(rep), "report conservation")
    t.remove_runtime_dir(eal)
    handler_runs(pcap)
    ring_runs(pcap)
    hosted_pairs(pcap)
    subprocess.run(["rm", "-rf", "--", TMP])
    t.finish("mempool")


main()
