#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Reader rings of left groups are freed while mcfan runs (docs/readers.md, "Limits" and "A
ring's lifetime"), on net_tap (frames written into the tap's kernel side with an AF_PACKET
socket, from 198.18.42.1), one worker lcore with the readers engine, the console on a pipe;
coalesced wakes of up to 0.5 s (--reader-wake-us 500000, --reader-wake-frames 1000) and idle
sleeps of up to 0.5 s (--idle-max-sleep-us 500000), so that a left group's ring is likely
still on its worker's deferred-wake list when it is retired, the worker asleep (offline):
a ring freed before the worker took it off (a grace period alone) is used after its free
when the worker wakes, which the ASan build reports.

  - Readers of a group that is left: a Python reader blocked in wait() without a limit and an
    mcfan-read, both on group W, 20 frames sent, then `leave W`: both read the 20 frames and
    are told (wait() -EXDEV, "mcfan left the group"; mcfan-read exit 1, not_served); neither
    hangs. A second Python reader on group H opened with oldest and reading nothing until
    W's and H's rings are freed (their files gone from /dev/shm, retired_freed 2): it then
    reads H's 30 frames written before the leave from its own mapping, and is told -EXDEV.
  - Rejoin: `join H` makes a fresh ring under the same name (another inode); a new reader
    reads the 25 frames sent then, lost 0; the old reader gets nothing of them (-EXDEV).
  - Churn: CYCLES cycles of `join` then `leave` of GROUPS_PER_CYCLE groups never joined
    before (CYCLES x GROUPS_PER_CYCLE rings made, more than the 2,048 a run could make
    before, so the last joins were refused): no join is refused, the ring files of the run in
    /dev/shm stay bounded while it runs (at most MAX_FILES after each cycle), and once the grace periods are
    over they are exactly those of the groups joined now; /mcfan/readers says retired_waiting
    0 and retired_freed = every ring of a left group; show readers and the report say the
    same.
  - The report: conservation, the text line's retired_freed; exit 0, no ring left.

Usage: test_readers_churn.py MCFAN_BINARY. Exit 77 (skip) when not root. Under a sanitizer
build give MCFAN_READER_BUILD, a build directory without one, for mcfan-read and the library.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import labtest
import mcfantest as t

PORT = 3999
HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
SRC = "198.18.42.1"
BASE = "239.42.0.1"            # joined the whole run
W = "239.42.0.2"               # left while readers wait on it
H = "239.42.0.3"               # left while a reader holds it open; joined again
CYCLES = 600
GROUPS_PER_CYCLE = 4           # 2,400 rings of left groups: past the 2,048 of before
MAX_FILES = 64                 # ring files of the run, looked at after every churn cycle

WAITER = r"""
import json, sys, mcfan_reader
r = mcfan_reader.Reader(sys.argv[1], sys.argv[2], oldest=True)
n = 0
print("open", flush=True)
while True:
    f = r.read()
    if f is None:
        w = r.wait(-1)
        if w < 0:
            print(json.dumps({"frames": n, "wait": w, "why": mcfan_reader.explain(w)}),
                  flush=True)
            break
        continue
    n += 1
"""

HOLDER = r"""
import json, sys, mcfan_reader
r = mcfan_reader.Reader(sys.argv[1], sys.argv[2], oldest=True)
print("open", flush=True)
sys.stdin.readline()          # read nothing until told
n, w = 0, 0
while True:
    f = r.read()
    if f is None:
        w = r.wait(2000)
        if w != 1:
            break
        continue
    n += 1
print(json.dumps({"frames": n, "wait": w, "why": mcfan_reader.explain(w) if w < 0 else ""}),
      flush=True)
sys.stdin.readline()          # then once more: nothing new from this ring
w = r.wait(2000)
print(json.dumps({"next": r.read() is not None, "wait": w}), flush=True)
"""


def churn_group(i, k):
    """The k-th group of churn cycle i: 239.42.(1 + i // 60).(k + 4 * (i % 60) + 1)."""
    return f"239.42.{1 + i // 60}.{GROUPS_PER_CYCLE * (i % 60) + k + 1}"


def ring_files(prefix):
    return t.shm_ring_files(prefix)


def ring_name(prefix, g):
    return f"mcfan.{prefix}.{g}.{PORT}"


def send(tap, g, n, tag):
    t.tap_send_tagged(tap, g, PORT, n, tag, SRC)


wait_until = t.wait_until


def main():
    mcfan = t.mcfan_path()
    if os.geteuid() != 0:
        labtest.skipper("readers_churn")("needs root (EAL, /dev/shm, a tap)")
    # the readers' build: mcfan's, or MCFAN_READER_BUILD (an ASan mcfan's own reader library
    # does not load into a Python without ASan)
    build = os.environ.get("MCFAN_READER_BUILD") or t.build_dir(mcfan)
    rd_bin = os.path.join(build, "app", "mcfan-read", "mcfan-read")
    env = dict(os.environ, MCFAN_READER_LIB=os.path.join(build, "lib", "libmcfan-reader.so.1"),
               PYTHONPATH=TOOLS)
    pid = os.getpid()
    prefix = f"{t.PREFIX}-rdchurn-{pid}"
    tap = f"{t.PREFIX[:4]}chn{pid % 100000}"[:15]
    work = tempfile.mkdtemp(prefix="mcfan-readers-churn-")
    report = os.path.join(work, "report.json")
    eal = t.eal_lcores("0@0,1@1,2@1", prefix, [f"net_tap0,iface={tap}"])
    cmd = [mcfan, *eal, "--", "--rx-lcores", "1", "--worker-lcores", "2", "--groups",
           f"{BASE}:{PORT},{W}:{PORT},{H}:{PORT}", "--worker-engine", "readers",
           "--reader-ring-frames", "64", "--reader-wake-frames", "1000", "--reader-wake-us",
           "500000", "--idle-max-sleep-us", "500000", "--igmp", "off", "--mld", "off", "--report-json",
           report, "--duration", "300", "-i"]
    mc = labtest.NsRun(cmd, console=True)
    procs = []
    tel = None
    try:
        if not t.check(mc.wait_running(), "mcfan runs:\n" + "".join(mc.lines[-30:])):
            return t.finish("readers_churn")
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)

        def readers():
            v, _ = tel.query("/mcfan/readers")
            return v or {}

        def attached(g, n):
            return lambda: sum(1 for x in readers().get("group", []) if x == f"{g}:{PORT}") >= n

        t.check_eq(ring_files(prefix), sorted(ring_name(prefix, g) for g in (BASE, W, H)),
                   "three rings at the start")
        # readers of W: one blocked in wait() without a limit, an mcfan-read; one holding H
        waiter = subprocess.Popen([sys.executable, "-c", WAITER, prefix, f"{W}:{PORT}"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
        procs.append(waiter)
        rdw = subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group", f"{W}:{PORT}",
                                "--quiet", "--no-seq", "--oldest", "--seconds", "60"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(rdw)
        holder = subprocess.Popen([sys.executable, "-c", HOLDER, prefix, f"{H}:{PORT}"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env)
        procs.append(holder)
        t.check_eq(waiter.stdout.readline().strip(), "open", "the waiter on W opens")
        t.check_eq(holder.stdout.readline().strip(), "open", "the holder of H opens")
        t.check(wait_until(attached(W, 2), 10), "both readers of W are attached")
        send(tap, W, 20, b"W")
        send(tap, H, 30, b"H")
        v = wait_until(lambda: (lambda r: r if r.get("ring_written", [0, 0, 0])[1:3] ==
                                [20, 30] else None)(readers()), 10)
        t.check_eq((v or {}).get("ring_written"), [0, 20, 30],
                   "/mcfan/readers: frames written into BASE, W, H")
        t.check_eq(((v or {}).get("retired_waiting"), (v or {}).get("retired_freed")), (0, 0),
                   "/mcfan/readers: no ring retired yet")
        ino_h = os.stat(os.path.join("/dev/shm", ring_name(prefix, H))).st_ino
        mc.say(f"leave {W}:{PORT},{H}:{PORT}")
        t.check(mc.wait_for(f"left {W}:{PORT}", 10), "leave W and H answers")
        try:
            out, err = waiter.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            waiter.kill()
            out, err = waiter.communicate()
        r = t.json_line(out)
        t.check_eq((r.get("frames"), r.get("wait")), (20, -18),
                   f"the waiter blocked on W reads its 20 frames, then wait() -EXDEV: {err!r}")
        t.check("mcfan left the group" in (r.get("why") or ""),
                f"the waiter is told mcfan left the group: {r.get('why')!r}")
        out, err = t.communicate_both_or_kill(rdw, 20)
        r = t.json_line(out)
        t.check_eq((rdw.returncode, r.get("frames"), r.get("not_served")), (1, 20, True),
                   f"mcfan-read on W: its 20 frames, then told (exit 1, not_served): {err!r}")
        # both rings freed: their files gone, the counters say so
        gone = wait_until(lambda: ring_files(prefix) == [ring_name(prefix, BASE)], 20)
        t.check(gone, f"W's and H's ring files are gone: {ring_files(prefix)}")
        v = wait_until(lambda: (lambda r: r if r.get("retired_freed") == 2 else None)(
            readers()), 10) or readers()
        t.check_eq((v.get("rings"), v.get("retired_waiting"), v.get("retired_freed"),
                    v.get("ring_group")), (1, 0, 2, [f"{BASE}:{PORT}"]),
                   "/mcfan/readers: one ring, W's and H's freed")
        # the holder reads H's frames from its own mapping, then is told
        holder.stdin.write("go\n")
        holder.stdin.flush()
        r = json.loads(holder.stdout.readline() or "{}")
        t.check_eq((r.get("frames"), r.get("wait")), (30, -18),
                   f"the holder of H's freed ring reads its 30 frames, then -EXDEV: {r}")
        t.check("mcfan left the group" in (r.get("why") or ""), f"the holder is told: {r}")
        p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", f"{H}:{PORT}",
                            "--quiet", "--no-seq"], capture_output=True, text=True,
                           timeout=30)
        t.check_eq((p.returncode, p.stdout), (1, ""),
                   f"mcfan-read on H while it is not joined: refused ({p.stderr.strip()})")
        t.check("no such reader ring" in p.stderr, f"... no such ring: {p.stderr!r}")
        # rejoin: a fresh ring of the same name, read by a new reader
        mc.say(f"join {H}:{PORT}")
        t.check(wait_until(lambda: ring_name(prefix, H) in ring_files(prefix), 10),
                "join H again: its ring file is back")
        # the holder still maps the old ring: a new object has another inode
        t.check(os.stat(os.path.join("/dev/shm", ring_name(prefix, H))).st_ino != ino_h,
                "join H again: a fresh ring object (another inode), not the old one")
        rdh = subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group", f"{H}:{PORT}",
                                "--quiet", "--no-seq", "--count", "25", "--seconds", "30"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(rdh)
        t.check(wait_until(attached(H, 1), 10), "a new reader is attached to H's new ring")
        send(tap, H, 25, b"J")
        out, err = t.communicate_both_or_kill(rdh, 40)
        r = t.json_line(out)
        t.check_eq((rdh.returncode, r.get("frames"), r.get("lost")), (0, 25, 0),
                   f"the new reader of H's new ring reads the 25 frames sent then: {err!r}")
        holder.stdin.write("again\n")
        holder.stdin.flush()
        r = json.loads(holder.stdout.readline() or "{}")
        t.check_eq(r, {"next": False, "wait": -18},
                   "the holder of H's old ring gets none of the new ring's frames: -EXDEV")
        holder.stdin.close()
        t.check_eq(t.wait_or_kill(holder, 10), 0, "the holder ends")
        # churn: join and leave groups never joined before
        refused, most = [], 0
        for i in range(CYCLES):
            gs = ",".join(f"{churn_group(i, k)}:{PORT}" for k in range(GROUPS_PER_CYCLE))
            mark = len(mc.lines)
            mc.say(f"join {gs}")
            mc.say(f"leave {gs}")
            ok = wait_after(mc, mark, "left ", 20)
            if not ok:
                t.check(False, f"churn cycle {i}: no answer: {mc.lines[mark:][-5:]}" +
                        ("" if mc.p.poll() is None else
                         f"; mcfan ended ({mc.p.returncode}):\n" + "".join(mc.lines[-40:])))
                if mc.p.poll() is not None:
                    return t.finish("readers_churn")
                break
            refused += [ln for ln in mc.lines[mark:] if "rings alive" in ln or
                        "rings made" in ln]
            most = max(most, len(ring_files(prefix)))
        t.check_eq(refused, [], "churn: no join refused")
        t.check(most <= MAX_FILES, f"churn: at most {MAX_FILES} ring files at once: {most}")
        want = sorted(ring_name(prefix, g) for g in (BASE, H))
        files = wait_until(lambda: ring_files(prefix) == want and ring_files(prefix), 30)
        t.check_eq(ring_files(prefix), want,
                   "after the churn: the ring files are those of the groups joined now")
        made = CYCLES * GROUPS_PER_CYCLE + 2
        v = wait_until(lambda: (lambda r: r if r.get("retired_freed") == made else None)(
            readers()), 30) or readers()
        t.check_eq((v.get("rings"), v.get("retired_waiting"), v.get("retired_freed")),
                   (2, 0, made), "/mcfan/readers after the churn: 2 rings, every left "
                   "group's freed")
        mark = len(mc.lines)
        mc.say("show readers")
        t.check(wait_after(mc, mark, "(docs/readers.md)", 20), "show readers answers")
        last = [ln for ln in mc.lines[mark:] if "(docs/readers.md)" in ln]
        t.check(bool(last) and f"retired rings: 0 waiting to be freed (retired_waiting), "
                f"{made} freed (retired_freed)" in last[0], f"show readers: {last}")
        tel.close()
        tel = None
        mc.say("quit")
        t.check_eq(mc.end(60), 0, "mcfan exit status")
        rep = t.load_report(report) or {}
        t.check(t.conservation(rep), "report: conservation")
        rd = rep.get("readers") or {}
        t.check_eq((len(rd.get("rings", [])), rd.get("retired_waiting"),
                    rd.get("retired_freed")), (2, 0, made),
                   "report: 2 rings, retired_waiting 0, retired_freed")
        text = "".join(mc.lines)
        t.check(re.search(rf"reader rings \(docs/readers\.md\): 2, .*retired_waiting 0, "
                          rf"retired_freed {made},", text) is not None,
                "the text report's reader rings line says retired_freed")
        t.check_eq(ring_files(prefix), [], "no ring left after the exit")
    finally:
        if tel is not None:
            tel.close()
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if mc.p.poll() is None:
            mc.p.kill()
            mc.p.wait()
        for f in ring_files(prefix):
            os.unlink(os.path.join("/dev/shm", f))
        t.remove_runtime_dir(eal)
        shutil.rmtree(work, ignore_errors=True)
    return t.finish("readers_churn")


def wait_after(mc, mark, text, timeout):
    """Until a line of mc after its first mark lines holds text (True), mc ends or timeout
    seconds pass."""
    end = time.monotonic() + timeout
    while not any(text in ln for ln in mc.lines[mark:]):
        if time.monotonic() >= end or mc.p.poll() is not None:
            return False
        time.sleep(0.002)
    return True


if __name__ == "__main__":
    main()
