#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Stopping cleanly at any time: SIGUSR1 and SIGTERM while the options are read, SIGINT 50 ms
after start (during EAL init), SIGINT during port start, a second SIGINT 20 ms after the first,
SIGTERM while running, and --duration 1 stopping by itself. Each must end with exit status 0,
the final report printed, the JSON report written (when asked and once the run got that far), no mbuf outside its pool, no runtime directory left
behind and no process left running (every wait is bounded).
Usage: test_signals.py MCFAN_BINARY"""

import json
import os
import signal
import shutil
import subprocess
import tempfile
import time

import mcfantest as t

GROUPS = "239.9.9.1-10:3999"
TMP = tempfile.mkdtemp(prefix="mcfan-signals-")
PCAP = os.path.join(TMP, "load.pcap")
N_PORTS = 12          # many ports, so that port start takes a while
EXIT_TIMEOUT = 30     # generous: the machine is shared


def make_pcap():
    t.write_pcap(PCAP, [t.udp4_frame(f"239.9.9.{i % 10 + 1}", 3999) for i in range(200)])


def eal_for(name, n_ports=1, lcores="0@0,1@1,2@1"):
    args = t.eal_args(name)[2:] + ["--lcores", lcores]
    for i in range(n_ports):
        args += ["--vdev", f"net_pcap{i},rx_pcap={PCAP},infinite_rx=1"]
    return args


class Run:
    """One mcfan run in the background, with a JSON report path of its own."""

    def __init__(self, name, app=(), n_ports=1):
        self.name = name
        self.eal = eal_for(f"sig-{name}", n_ports)
        self.json = os.path.join(TMP, f"{name}.json")
        self.rundir = t.runtime_dir(self.eal)
        t.check(not os.path.exists(self.rundir), f"[{name}] runtime dir absent before start")
        self.p = t.McfanProcess(self.eal, ["--groups", GROUPS, "--report-json", self.json,
                                           *app])

    def finish(self, expect_report=True, expect_json=True):
        """Wait (bounded), then check the clean end; return the JSON report or None."""
        rc = self.p.wait(EXIT_TIMEOUT)
        name = self.name
        t.check(rc is not None, f"[{name}] ended within {EXIT_TIMEOUT} s (else killed)")
        t.check_eq(rc, 0, f"[{name}] exit status (stderr tail: "
                   f"{self.p.stderr()[-400:]!r})")
        try:
            os.kill(self.p.pid, 0)
            gone = False
        except ProcessLookupError:
            gone = True
        t.check(gone, f"[{name}] no process {self.p.pid} left (reaped, no zombie)")
        out = self.p.stdout()
        if expect_report:
            t.check("==== mcfan report" in out, f"[{name}] final report printed")
            t.check("mbufs outside their pool: 0" in out,
                    f"[{name}] text report: 0 mbufs outside their pool")
        rep = None
        if expect_json:
            if t.check(os.path.exists(self.json), f"[{name}] JSON report written"):
                with open(self.json) as f:
                    rep = json.load(f)
                t.check_eq(rep["mbufs_outside_pool"], 0, f"[{name}] mbufs_outside_pool")
                t.check(t.conservation(rep), f"[{name}] conservation")
                t.check_eq(sum(p["ipackets"] for p in rep["ports"]), rep["rx_frames"],
                           f"[{name}] port ipackets == rx_frames")
        leftovers = [f for f in os.listdir(TMP) if f.startswith(f"{name}.json.")]
        t.check_eq(leftovers, [], f"[{name}] no temporary JSON file left")
        t.check(not os.path.exists(self.rundir),
                f"[{name}] no runtime directory left behind: {self.rundir} "
                f"(contents: {sorted(os.listdir(self.rundir)) if os.path.isdir(self.rundir) else '-'})")
        t.remove_runtime_dir(self.eal)
        return rep


def sleep_until(t0, seconds):
    left = t0 + seconds - time.monotonic()
    if left > 0:
        time.sleep(left)


def wait_handler_installed(r, t0):
    """50 ms after start; but never before mcfan's first line, which it prints once its signal
    handlers are installed (a SIGINT before main() runs kills any program)."""
    sleep_until(t0, 0.05)
    r.p.wait_line("mcfan:", 5)


def sigint_during_eal_init(i):
    r = Run(f"eal-init-{i}")
    wait_handler_installed(r, r.p.t0)
    sent = time.monotonic()
    r.p.signal(signal.SIGINT)
    rep = r.finish()
    # the stop was asked before the data lcores were launched: they never are
    t.check(r.p.wait_line("running:", 0) is None, f"[eal-init-{i}] the run did not start")
    eal_done = r.p.wait_line("TELEMETRY:", 0)
    if eal_done is not None and eal_done < sent:
        print(f"NOTE: [eal-init-{i}] EAL init had ended {sent - eal_done:.3f} s before the "
              f"signal (slow start); the case ran as SIGINT during setup")
    if rep is not None:
        t.check_eq(rep["rx_frames"], 0, f"[eal-init-{i}] no frame received")


def sigint_during_setup(i):
    """Right after EAL init: lcores, rings, the mbuf pool, groups (EAL's last line is
    telemetry's; without it, half a second after start)."""
    r = Run(f"setup-{i}")
    if r.p.wait_line("TELEMETRY:", 30) is None:
        sleep_until(r.p.t0, 0.5)
    r.p.signal(signal.SIGINT)
    rep = r.finish()
    if rep is not None and r.p.wait_line("running:", 0) is None:
        t.check_eq(rep["rx_frames"], 0, f"[setup-{i}] no frame received")


def sigint_during_port_start(i):
    """Many ports: the signal comes when port 0 has started and the others are starting."""
    r = Run(f"port-start-{i}", n_ports=N_PORTS)
    seen = r.p.wait_line("started,", 60)
    t.check(seen is not None, f"[port-start-{i}] port 0 started")
    r.p.signal(signal.SIGINT)
    rep = r.finish()
    started = [ln for _, ln in r.p.err if "started," in ln]
    if rep is not None and r.p.wait_line("running:", 0) is None:
        t.check_eq(rep["rx_frames"], 0, f"[port-start-{i}] no frame received")
        t.check_eq(len(rep["ports"]), len(started), f"[port-start-{i}] the report lists the "
                   f"ports set up")
    if os.environ.get("MCFAN_TEST_VERBOSE"):
        print(f"[port-start-{i}] {len(started)} of {N_PORTS} ports started before the stop")


def double_sigint(i, during_run):
    name = f"double-sigint-{'run' if during_run else 'init'}-{i}"
    r = Run(name)
    if during_run:
        ok = r.p.wait_line("running:", 60) is not None
        t.check(ok, f"[{name}] running")
        time.sleep(0.3)
    else:
        wait_handler_installed(r, r.p.t0)
    r.p.signal(signal.SIGINT)
    time.sleep(0.02)
    r.p.signal(signal.SIGINT)
    rep = r.finish()
    if rep is not None and during_run:
        t.check(rep["rx_frames"] > 0, f"[{name}] frames received before the stop")


def sigterm_running(i):
    r = Run(f"sigterm-{i}")
    ok = r.p.wait_line("running:", 60) is not None
    t.check(ok, f"[sigterm-{i}] running")
    time.sleep(0.5)
    t.check(r.p.p.poll() is None, f"[sigterm-{i}] still running before SIGTERM")
    r.p.signal(signal.SIGTERM)
    rep = r.finish()
    if rep is not None:
        t.check(rep["rx_frames"] > 0 and rep["delivered_frames"] > 0,
                f"[sigterm-{i}] frames delivered before the stop")


def duration_1(i):
    r = Run(f"duration-{i}", app=["--duration", "1"])
    run_t = r.p.wait_line("running:", 60)
    t.check(run_t is not None, f"[duration-{i}] running")
    rc = r.p.wait(EXIT_TIMEOUT)
    end = time.monotonic()
    if run_t is not None and rc is not None:
        t.check(end - run_t < 3.0, f"[duration-{i}] stopped by itself within 3 s of running "
                f"({end - run_t:.2f} s)")
    rep = r.finish()
    if rep is not None:
        t.check(0.95 <= rep["duration_s"] < 5.0, f"[duration-{i}] duration_s "
                f"{rep['duration_s']}")
        t.check(rep["rx_frames"] > 0, f"[duration-{i}] frames received")


def signal_while_parsing(sig):
    """A signal while mcfan reads its options, before EAL: strace delivers it as mcfan opens
    its --config file (inside the option parser: -P that file, inject at its openat), every
    time, not at a moment guessed by a sleep. SIGUSR1 asks for the report now: the run goes
    on and prints it ("mcfan stats after") as soon as its control loop starts; SIGTERM is a
    stop: the run stops before the data lcores start, with its report. Before, the handlers
    were installed after the options were read, and either signal killed mcfan (SIGUSR1's
    default action) with no report and no clean-up."""
    name = f"parse-{signal.Signals(sig).name}"
    ini = os.path.join(TMP, f"{name}.ini")
    out_json = os.path.join(TMP, f"{name}.json")
    with open(ini, "w") as f:
        f.write(f"[mcfan]\ngroups = {GROUPS}\nduration = 1\n")
    e = eal_for(f"sig-{name}")
    rundir = t.runtime_dir(e)
    cmd = ["strace", "-qq", "-o", "/dev/null", "-P", ini, "-e", "trace=openat", "-e",
           f"inject=openat:signal={signal.Signals(sig).name[3:]}:when=1", t.mcfan_path(),
           *e, "--", "--config", ini, "--report-json", out_json]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        t.check(False, f"[{name}] ended within 60 s")
        t.remove_runtime_dir(e)
        return
    t.check_eq(r.returncode, 0, f"[{name}] exit status: not killed by the signal "
               f"(stderr tail: {r.stderr[-400:]!r})")
    t.check("==== mcfan report" in r.stdout, f"[{name}] final report printed")
    t.check(os.path.exists(out_json), f"[{name}] JSON report written")
    rep = None
    if os.path.exists(out_json):
        with open(out_json) as f:
            rep = json.load(f)
        t.check_eq(rep["mbufs_outside_pool"], 0, f"[{name}] mbufs_outside_pool")
        t.check(t.conservation(rep), f"[{name}] conservation")
    running = "running:" in r.stderr
    if sig == signal.SIGUSR1:
        # asked before the control loop ran: printed as soon as it starts, and the run went
        # on to its --duration with frames received
        t.check(running, f"[{name}] the run started after the signal")
        t.check("==== mcfan stats after" in r.stdout,
                f"[{name}] the report asked for while parsing is printed once the control "
                f"loop starts: {r.stdout[:300]!r}")
        if rep is not None:
            t.check(rep["rx_frames"] > 0, f"[{name}] frames received: {rep['rx_frames']}")
    else:
        t.check(not running, f"[{name}] the stop asked while parsing: the data lcores never "
                f"start")
        if rep is not None:
            t.check_eq(rep["rx_frames"], 0, f"[{name}] no frame received")
    t.check(not os.path.exists(rundir), f"[{name}] no runtime directory left behind")
    t.remove_runtime_dir(e)


def main():
    make_pcap()
    for sig in (signal.SIGUSR1, signal.SIGTERM):
        signal_while_parsing(sig)
    for i in range(3):
        sigint_during_eal_init(i)
        sigint_during_setup(i)
        sigint_during_port_start(i)
        double_sigint(i, during_run=True)
        double_sigint(i, during_run=False)
        sigterm_running(i)
        duration_1(i)
    shutil.rmtree(TMP, ignore_errors=True)
    t.finish("signals")


if __name__ == "__main__":
    main()
