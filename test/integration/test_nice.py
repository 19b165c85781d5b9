#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The RX role's nice value (--rx-nice, docs/idle.md "Scheduling class") with the real program
on net_pcap.

1. With the readers engine (reader processes share the RX lcore's CPUs) the RX lcore runs at
   nice -10 by default; a worker-only lcore keeps the process's nice. The report
   (lcores[].idle.nice), the text report's idle table and the kernel (the thread's
   /proc/PID/task/TID/stat, read while it runs) agree.
2. Without readers nothing changes: every data lcore at the process's nice (0 here, and 4
   under `nice -n 4`: the option, not the default, moves it).
3. --rx-nice 5 (command line) and rx-nice = 3 (config file): the RX role only.
4. Refused, nothing started: -21, 20, "x", "", "5x", " 5", "+5" and "-10 " on the command
   line, 100 in the config file, each with the range in the message.
5. A hosted worker (docs/idle.md "Hosted workers") shows its host's nice value: its step runs
   in the host's thread.

Usage: test_nice.py MCFAN_BINARY. Part 1's -10 needs CAP_SYS_NICE (root): without it the
check is that mcfan says it cannot and runs on.
"""

import os
import subprocess
import tempfile
import time

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-nice-")
PCAP = os.path.join(TMP, "frames.pcap")
GROUPS = "239.9.9.1-3:3999"
ROOT = os.geteuid() == 0


def nices(rep):
    return {l["lcore"]: l["idle"]["nice"] for l in rep["lcores"] if l.get("idle")}


def run(name, lcores, app, prefix_cmd=()):
    eal = t.eal_lcores(lcores, f"mcfan-nice-{name}-{os.getpid()}", [f"net_pcap0,rx_pcap={PCAP}"])
    report = os.path.join(TMP, f"{name}.json")
    r = subprocess.run([*prefix_cmd, t.mcfan_path(), *eal, "--", "--groups", GROUPS,
                        "--duration", "1", "--report-json", report, *app],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    t.remove_runtime_dir(eal)
    rep = t.load_report(report) if os.path.exists(report) else None
    return r.returncode, r.stdout, r.stderr, rep


def thread_nice(pid, comm):
    """The nice value (field 19 of /proc/PID/task/TID/stat) of pid's thread named comm."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() != comm:
                    continue
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                return int(f.read().rsplit(")", 1)[1].split()[16])
        except OSError:
            continue
    return None


def test_readers_default():
    tag = "[readers default]"
    eal = t.eal_lcores("0@0,1@1,2@1", f"mcfan-nice-live-{os.getpid()}",
                       [f"net_pcap0,rx_pcap={PCAP},infinite_rx=1"])
    report = os.path.join(TMP, "live.json")
    p = subprocess.Popen([t.mcfan_path(), *eal, "--", "--groups", GROUPS, "--rx-lcores", "1",
                          "--worker-lcores", "2", "--host-workers", "off", "--worker-engine",
                          "readers", "--duration", "4", "--report-json", report],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    live = {}
    end = time.monotonic() + 30
    while time.monotonic() < end and p.poll() is None and len(live) < 2:
        for comm in ("rte-worker-1", "rte-worker-2"):
            v = thread_nice(p.pid, comm)
            if v is not None:
                live[comm] = v
        time.sleep(0.2)
    time.sleep(1.0)   # past the threads' start, where the RX lcore sets its nice
    for comm in ("rte-worker-1", "rte-worker-2"):
        v = thread_nice(p.pid, comm)
        if v is not None:
            live[comm] = v
    out, err = p.communicate(timeout=60)
    t.remove_runtime_dir(eal)
    t.check_eq(p.returncode, 0, f"{tag} exit status ({err[-300:]})")
    rep = t.load_report(report)
    if not t.check(rep is not None, f"{tag} report"):
        return
    want_rx = -10 if ROOT else 0
    t.check_eq(nices(rep), {1: want_rx, 2: 0}, f"{tag} report: the RX lcore at -10, the worker "
               "at the process's nice")
    t.check_eq((live.get("rte-worker-1"), live.get("rte-worker-2")), (want_rx, 0),
               f"{tag} the kernel's nice of the threads while they run")
    row = next((ln for ln in out.splitlines() if ln.split()[:2] == ["1", "rx"] and
                "default-" in ln), "")
    t.check((" -10  default-shared" if ROOT else "  0  default-shared") in row,
            f"{tag} text report's idle table, nice column: {row!r}")
    if not ROOT:
        t.check("cannot set its nice value to -10" in err, f"{tag} says it cannot: {err[-400:]}")


def check_nices(tag, name, app, want, what, prefix_cmd=()):
    """Run RX lcore 1 and worker 2 on CPU 1 with app; the report's nice values must be want.
    Returns the report (or None)."""
    rc, out, err, rep = run(name, "0@0,1@1,2@1", ["--rx-lcores", "1", "--worker-lcores", "2",
                                                   *app], prefix_cmd=prefix_cmd)
    t.check_eq(rc, 0, f"{tag} exit status ({err[-300:]})")
    if t.check(rep is not None, f"{tag} report"):
        t.check_eq(nices(rep), want, f"{tag} {what}")
    return rep


def test_hosted_readers():
    tag = "[readers, hosted worker]"
    want = -10 if ROOT else 0
    # the hosted worker's step runs in lcore 1's thread: it shows that thread's nice
    rep = check_nices(tag, "hosted", ["--worker-engine", "readers"], {1: want, 2: want},
                      "lcore 2 shows its host's nice")
    if rep is not None:
        t.check_eq([l["idle"]["max_sleep_ns"] for l in rep["lcores"] if l["lcore"] == 2], [0],
                   f"{tag} a hosted lcore has no sleep of its own")


def test_no_readers():
    off = ["--host-workers", "off"]
    check_nices("[no readers]", "plain", off, {1: 0, 2: 0},
                "every data lcore at the process's nice")
    check_nices("[no readers, nice -n 4]", "nice4", off, {1: 4, 2: 4},
                "the process's nice is left alone", prefix_cmd=("nice", "-n", "4"))


def test_option():
    check_nices("[--rx-nice 5]", "opt", ["--host-workers", "off", "--rx-nice", "5"],
                {1: 5, 2: 0}, "the RX role only")
    tag = "[config rx-nice = 3]"
    cfg = os.path.join(TMP, "nice.ini")
    with open(cfg, "w") as f:
        f.write("[mcfan]\nrx-nice = 3\n")
    rc, out, err, rep = run("cfg", "0@0,1@1", ["--rx-lcores", "1", "--worker-lcores", "1",
                                               "--config", cfg, "--worker-engine", "readers"])
    t.check_eq(rc, 0, f"{tag} exit status ({err[-300:]})")
    if t.check(rep is not None, f"{tag} report"):
        t.check_eq(nices(rep), {1: 3}, f"{tag} the file's value beats the readers default")


def test_refused():
    for v in ("-21", "20", "x", "", "5x", " 5", "+5", "-10 "):
        e = t.eal_lcores("0@0,1@1", f"mcfan-nice-bad-{os.getpid()}", [f"net_pcap0,rx_pcap={PCAP}"])
        t.check_refused(e, ["--groups", GROUPS, "--rx-nice", v],
                        f"--rx-nice: '{v}' is not a nice value, -20..19", f"[--rx-nice {v!r}]")
        t.remove_runtime_dir(e)
    t.check_refused_config("nice-cfg", TMP, "[mcfan]\nrx-nice = 100\n",
                           "'100' is not a nice value, -20..19", "[config rx-nice = 100]")


def main():
    t.write_pcap(PCAP, [t.udp4_frame(f"239.9.9.{1 + i % 3}", 3999) for i in range(300)])
    try:
        test_readers_default()
        test_hosted_readers()
        test_no_readers()
        test_option()
        test_refused()
    finally:
        subprocess.run(["rm", "-rf", "--", TMP])
    t.finish("nice")


if __name__ == "__main__":
    main()
