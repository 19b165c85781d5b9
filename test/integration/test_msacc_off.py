#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""A defect the soak (test/soak/) found: after `msacc off` and then `msacc reset` or a timed
`msacc start` (a window that holds none of the data lcores' time), the data lcores vanished
from /mcfan/msacc, `show msacc` and the report's lcores, and /mcfan/msacc,1 answered null
with "lcore 1 has no accounting (not an mcfan lcore)". Only lcores that never measured
anything (--no-msacc since the start) may be left out.

Checks, console on a pipe, net_null, lcores 1 (RX and worker) and 2 (worker):
  1. msacc off, msacc reset: /mcfan/msacc lists lcores 0, 1, 2; /mcfan/msacc,1 and ,2 answer
     with wall_cycles 0 (frozen, nothing in the window); `show msacc` has rows 1 and 2;
  2. msacc start 300 while off, wait past its end: the same;
  3. msacc on, msacc reset: lcores 1 and 2 measure again (wall_cycles > 0);
  4. msacc off, msacc reset, quit: the report (JSON) lists lcores 0, 1, 2; exit 0;
  5. --no-msacc since the start: the data lcores are still left out (rows that are no
     measurement), /mcfan/msacc,1 answers null.

Usage: test_msacc_off.py MCFAN_BINARY"""

import atexit
import json
import os
import shutil
import subprocess
import tempfile
import time

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-msacc-off-")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)


class Run:
    def __init__(self, name, extra=()):
        self.eal = t.eal_args(name, extra=["--vdev", "net_null0"])
        self.eal[0:2] = ["--lcores", "0@0,1@1,2@1"]
        self.report = os.path.join(TMP, f"report-{name}.json")
        cmd = [t.mcfan_path(), *self.eal, "--", "--groups", "239.9.9.1", "--rx-lcores", "1",
               "--worker-lcores", "1-2", "-i", "--report-json", self.report, *extra]
        self.err = open(os.path.join(TMP, f"stderr-{name}"), "w")
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True)

        class Proc:
            pass
        Proc.p = self.p
        self.tel = t.Telemetry(t.telemetry_socket(self.eal), timeout=60, proc=Proc)
        t.check(self.tel.wait_ready() is not None, f"[{name}] /mcfan/info answers")

    def console(self, *cmds):
        self.p.stdin.write("".join(c + "\n" for c in cmds))
        self.p.stdin.flush()

    def q(self, cmd):
        return self.tel.query(cmd)[0]

    def quit(self):
        self.console("quit")
        try:
            out, _ = self.p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, _ = self.p.communicate()
        self.tel.close()
        rep = None
        if os.path.exists(self.report):
            with open(self.report) as f:
                rep = json.load(f)
        t.remove_runtime_dir(self.eal)
        return self.p.returncode, out, rep


def frozen_rows(r, what):
    v = r.q("/mcfan/msacc")
    t.check_eq(v and v["lcore"], [0, 1, 2], f"{what}: /mcfan/msacc lcores")
    for lc in (1, 2):
        one = r.q(f"/mcfan/msacc,{lc}")
        t.check(one is not None and one["lcore"] == lc and one["wall_cycles"] == 0,
                f"{what}: /mcfan/msacc,{lc} answers, frozen with nothing in the window: "
                f"{one and one['wall_cycles']}")


def main():
    r = Run("msoff")
    t.check_eq(r.q("/mcfan/msacc")["lcore"], [0, 1, 2], "on: /mcfan/msacc lcores")
    r.console("msacc off", "wait 200", "msacc reset", "wait 300")
    time.sleep(1.0)
    frozen_rows(r, "off + reset")
    r.console("msacc start 300", "wait 600")
    time.sleep(1.2)
    frozen_rows(r, "off + timed window over")
    r.console("show msacc")
    r.console("msacc on", "wait 200", "msacc reset", "wait 300")
    time.sleep(1.0)
    for lc in (1, 2):
        one = r.q(f"/mcfan/msacc,{lc}")
        t.check(one is not None and one["wall_cycles"] > 0,
                f"on again: /mcfan/msacc,{lc} measures: {one and one['wall_cycles']}")
    r.console("msacc off", "wait 200", "msacc reset", "wait 200")
    time.sleep(0.8)
    rc, out, rep = r.quit()
    t.check_eq(rc, 0, "exit status")
    show = out.split("mcfan> show msacc", 1)[-1].split("mcfan> msacc on", 1)[0]
    rows = [ln.split()[:2] for ln in show.splitlines()
            if ln.split()[:1] in (["0"], ["1"], ["2"])]
    t.check(["1", "rx+worker"] in rows and ["2", "worker"] in rows,
            f"show msacc while off has rows 1 and 2: {show[:600]!r}")
    t.check(rep is not None and [lc["lcore"] for lc in rep["lcores"]] == [0, 1, 2],
            f"report lcores: {rep and [lc['lcore'] for lc in rep['lcores']]}")

    r = Run("nomsacc", extra=["--no-msacc"])
    v = r.q("/mcfan/msacc")
    t.check_eq(v and v["lcore"], [0], "--no-msacc: /mcfan/msacc leaves the data lcores out")
    t.check(r.q("/mcfan/msacc,1") is None, "--no-msacc: /mcfan/msacc,1 answers null")
    r.console("show idle", "show msacc 1", "show msacc 7", "msacc on")
    rc, out, rep = r.quit()
    t.check_eq(rc, 0, "--no-msacc: exit status")
    # lcore 1 is an mcfan lcore whose accounting is off, not "not used by mcfan" (before:
    # the console and telemetry said it was no mcfan lcore)
    t.check("show msacc: lcore 1 has no accounting: it has been off since the start "
            "(--no-msacc); msacc on starts it" in out, f"--no-msacc: show msacc 1: {out[-600:]!r}")
    # show idle: sleeps, wake-ups and % asleep are msacc's, "-" without it (before: 0 and
    # 0.00 while a shared-CPU lcore slept most of the time)
    idle = out.split("mcfan> show idle", 1)[-1].split("mcfan> ", 1)[0]
    row = [ln.split() for ln in idle.splitlines() if ln.split()[:1] == ["1"]]
    t.check(len(row) >= 1 and row[0][7:10] == ["-", "-", "-"],
            f"--no-msacc: show idle has no sleeps, wake-ups, % asleep for lcore 1: {idle!r}")
    # msacc on: they count from now, nothing of the time before is charged to other
    t.check("microstate accounting on (the data lcores off since the start, --no-msacc, "
            "count from now)" in out, f"--no-msacc: msacc on: {out[-600:]!r}")
    t.check("show msacc: lcore 7 is not used by mcfan" in out,
            f"--no-msacc: show msacc 7: not an mcfan lcore: {out[-600:]!r}")
    with open(os.path.join(TMP, "stderr-nomsacc")) as f:
        err = f.read()
    t.check("telemetry /mcfan/msacc: lcore 1 has no accounting (off since the start: "
            "--no-msacc; the console's msacc on starts it)" in err,
            f"--no-msacc: /mcfan/msacc,1 says why: {err[-600:]!r}")
    subprocess.run(["rm", "-rf", "--", TMP])
    t.finish("msacc_off")


main()
