#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""A reader ring removed from /dev/shm while mcfan runs (docs/readers.md, "A ring removed
from /dev/shm"), and mcfan-read's lines after a stall (docs/readers.md, "mcfan-read"), on
net_tap (frames written into the tap's kernel side with an AF_PACKET socket, from
198.18.47.1), one worker lcore with the readers engine, the console on a pipe.

  - removed: an mcfan-read attached to group G2 reads its 10 frames; then the ring's file is
    removed (`rm /dev/shm/mcfan.PREFIX.239.47.0.2.3999`, as a user or a tmp cleaner would).
    Within a few seconds the name is there again (another inode: a new ring), mcfan said so
    in one log line naming the group and the path (once, also seconds later); the old reader
    ends with the "open it again" sentence after its 10 frames (exit 1, not_served); a new
    mcfan-read opens the group and reads the 20 frames sent then, lost 0. /mcfan/readers:
    rings_recreated 1, the old ring freed (retired_freed 1), the new one written 20; show
    readers: G2's one row with its path, the summary counts the ring made again; the report
    (JSON and text) says rings_recreated 1. (Before: the group stayed unreadable, "no such
    reader ring", for the rest of the run, and nothing was said.)
  - stall: an mcfan-read on G1 (--seconds 9) is stopped (SIGSTOP) for 4 s while 3,000
    frames come, then continued: its lines' times (real seconds since the open) grow, no two
    lines fall in the same second, one line says the reader was stopped ("no line for"), the
    lines' increases add up to its frames, and its JSON line says 3,000 frames, lost 0.
    (Before: after SIGCONT it printed a line for each second missed, all at once, numbered
    1 s, 2 s, ... as if they had passed.)
  - The report: conservation; exit 0, no ring left.

Usage: test_readers_removed.py MCFAN_BINARY. Exit 77 (skip) when not root.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import labtest
import mcfantest as t

PORT = 3999
SRC = "198.18.47.1"
G1 = "239.47.0.1"              # the stalled mcfan-read's group
G2 = "239.47.0.2"              # its ring's file removed mid-run
LOGGED = "was removed from /dev/shm while mcfan writes it"
LINE = re.compile(r"^(\d+\.\d) s: (\d+) frames \(\+(\d+)\), lost (\d+) \(\+(\d+)\), lag \d+, "
                  r"seq gaps \d+ \(\d+ datagrams\)( \(no line for \d+\.\d s: the reader was "
                  r"stopped or starved\))?$")


def ring_files(prefix):
    return t.shm_ring_files(prefix)


def send(tap, g, n, tag):
    t.tap_send_tagged(tap, g, PORT, n, tag, SRC)


wait_until = t.wait_until


def ino_of(path):
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def finish_proc(p, timeout):
    try:
        return p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.communicate()


def removed(mc, tel, tap, prefix, rd_bin, procs):
    """The ring of G2 removed from /dev/shm (module docstring)."""
    path = f"/dev/shm/mcfan.{prefix}.{G2}.{PORT}"

    def readers():
        v, _ = tel.query("/mcfan/readers")
        return v or {}

    old = subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group", f"{G2}:{PORT}",
                            "--quiet", "--no-seq", "--oldest", "--seconds", "60"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs.append(old)
    t.check(wait_until(lambda: f"{G2}:{PORT}" in readers().get("group", []), 10),
            "removed: the first reader of G2 is attached")
    send(tap, G2, 10, b"A")
    v = wait_until(lambda: (lambda r: r if r.get("ring_written", [0, 0])[1:2] == [10]
                            else None)(readers()), 10)
    t.check_eq((v or {}).get("ring_written"), [0, 10], "removed: 10 frames written into G2")
    t.check_eq((v or {}).get("rings_recreated"), 0, "removed: no ring made again yet")
    ino = ino_of(path)
    t.check(ino is not None, f"removed: {path} is there")
    mark = len(mc.lines)
    os.unlink(path)
    again = wait_until(lambda: (lambda i: i if i is not None and i != ino else None)(
        ino_of(path)), 10)
    t.check(again is not None, f"removed: {path} is there again (a new ring), inode "
            f"{ino} -> {again}")
    t.check(wait_until(lambda: any(LOGGED in ln for ln in mc.lines[mark:]), 5),
            "removed: the log says so")
    # the old reader reads what its ring held, then is told to open the group again
    out, err = finish_proc(old, 20)
    r = t.json_line(out)
    t.check_eq((old.returncode, r.get("frames"), r.get("lost"), r.get("not_served")),
               (1, 10, 0, True), f"removed: the old reader read its 10 frames, then was told: "
               f"{err!r}")
    t.check(f"group {G2}:{PORT}: mcfan writes a new ring of the same name (the group joined "
            "again on other workers, or this ring's file removed from /dev/shm): open it "
            "again" in err and
            "stopped after 10 frames" in err,
            f"removed: the old reader's sentence says to open the group again: {err!r}")
    # a new reader opens the group and reads the frames sent now
    new = subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group", f"{G2}:{PORT}",
                            "--quiet", "--no-seq", "--count", "20", "--seconds", "30"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs.append(new)
    t.check(wait_until(lambda: f"{G2}:{PORT}" in readers().get("group", []), 10),
            "removed: a new reader of G2 is attached")
    send(tap, G2, 20, b"B")
    out, err = finish_proc(new, 40)
    r = t.json_line(out)
    t.check_eq((new.returncode, r.get("frames"), r.get("lost"), r.get("not_served")),
               (0, 20, 0, False), f"removed: a new reader reads the group's new frames: {err!r}")
    v = wait_until(lambda: (lambda r: r if r.get("retired_freed") == 1 else None)(readers()),
                   10)
    t.check_eq(((v or {}).get("ring_group"), (v or {}).get("ring_written"),
                (v or {}).get("rings_recreated"), (v or {}).get("retired_waiting"),
                (v or {}).get("retired_freed")),
               ([f"{G1}:{PORT}", f"{G2}:{PORT}"], [0, 20], 1, 0, 1),
               "removed: /mcfan/readers: G2's new ring written 20, rings_recreated 1, the "
               "old ring freed")
    t.check_eq(ring_files(prefix), sorted(os.path.basename(p) for p in (
        path, f"/dev/shm/mcfan.{prefix}.{G1}.{PORT}")), "removed: the two rings' files")
    # seconds later: said once
    time.sleep(2.5)
    said = [ln for ln in mc.lines[mark:] if LOGGED in ln]
    t.check(len(said) == 1 and f"{path} (group {G2}:{PORT})" in said[0] and
            "made a new ring of the group under the name (rings_recreated 1)" in said[0],
            f"removed: one log line naming the path and the group: {said!r}")
    smark = len(mc.lines)
    mc.say("show readers")
    t.check(wait_after(mc, smark, "(docs/readers.md)", 20), "removed: show readers answers")
    rows = [ln.split(None, 8)[-1].strip() for ln in mc.lines[smark:]
            if ln.startswith(f"  {G2}:") and "/dev/shm" in ln]
    t.check_eq(rows, [path], "removed: show readers: G2's ring with its path")
    t.check(any("; 1 ring made again after its name was removed from /dev/shm "
                "(rings_recreated)" in ln for ln in mc.lines[smark:]),
            f"removed: show readers' summary counts it: {mc.lines[-1:]!r}")


def stall(tap, prefix, rd_bin, procs, readers):
    """An mcfan-read stopped for 4 s while frames come (module docstring)."""
    rd = subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group", f"{G1}:{PORT}",
                           "--no-seq", "--seconds", "9"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    procs.append(rd)
    t.check(wait_until(lambda: f"{G1}:{PORT}" in readers().get("group", []), 10),
            "stall: the reader of G1 is attached")
    time.sleep(1.2)
    rd.send_signal(signal.SIGSTOP)
    send(tap, G1, 3000, b"S")
    time.sleep(2.5)
    rd.send_signal(signal.SIGCONT)
    out, err = finish_proc(rd, 30)
    r = t.json_line(out)
    t.check_eq((rd.returncode, r.get("frames"), r.get("lost")), (0, 3000, 0),
               f"stall: the reader read the 3000 frames: {err!r}")
    lines = [ln for ln in out.splitlines() if not ln.startswith("{")]
    print("stall: mcfan-read's lines:\n  " + "\n  ".join(lines), flush=True)
    got = [LINE.match(ln) for ln in lines]
    t.check(lines and all(m is not None for m in got), f"stall: the lines' form: {lines!r}")
    got = [m for m in got if m is not None]
    times = [float(m.group(1)) for m in got]
    t.check(all(a < b for a, b in zip(times, times[1:])),
            f"stall: the lines' times grow: {times}")
    t.check_eq(len({int(x) for x in times}), len(times),
               f"stall: no two lines in the same second: {times}")
    t.check_eq(sum(1 for m in got if m.group(6)), 1,
               f"stall: one line says the reader was stopped: {lines!r}")
    last = int(got[-1].group(2)) if got else -1
    t.check_eq(sum(int(m.group(3)) for m in got), last,
               f"stall: the lines' increases add up to the last line's frames: {lines!r}")
    t.check(0 <= last <= (r.get("frames") or 0),
            f"stall: the last line's frames are within the JSON line's: {last} {r}")


def wait_after(mc, mark, text, timeout):
    """Until a line of mc after its first mark lines holds text (True), mc ends or timeout
    seconds pass."""
    end = time.monotonic() + timeout
    while not any(text in ln for ln in mc.lines[mark:]):
        if time.monotonic() >= end or mc.p.poll() is not None:
            return False
        time.sleep(0.002)
    return True


def main():
    mcfan = t.mcfan_path()
    if os.geteuid() != 0:
        labtest.skipper("readers_removed")("needs root (EAL, /dev/shm, a tap)")
    build = os.environ.get("MCFAN_READER_BUILD") or t.build_dir(mcfan)
    rd_bin = os.path.join(build, "app", "mcfan-read", "mcfan-read")
    pid = os.getpid()
    prefix = f"{t.PREFIX}-rdrm-{pid}"
    tap = f"{t.PREFIX[:4]}rrm{pid % 100000}"[:15]
    work = tempfile.mkdtemp(prefix="mcfan-readers-removed-")
    report = os.path.join(work, "report.json")
    eal = t.eal_lcores("0@0,1@1,2@1", prefix, [f"net_tap0,iface={tap}"])
    cmd = [mcfan, *eal, "--", "--rx-lcores", "1", "--worker-lcores", "2", "--groups",
           f"{G1}-2:{PORT}", "--worker-engine", "readers", "--igmp", "off", "--mld", "off",
           "--report-json", report, "--duration", "300", "-i"]
    mc = labtest.NsRun(cmd, console=True)
    procs = []
    tel = None
    try:
        if not t.check(mc.wait_running(), "mcfan runs:\n" + "".join(mc.lines[-30:])):
            return t.finish("readers_removed")
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)

        def readers():
            v, _ = tel.query("/mcfan/readers")
            return v or {}

        removed(mc, tel, tap, prefix, rd_bin, procs)
        stall(tap, prefix, rd_bin, procs, readers)
        tel.close()
        tel = None
        mc.say("quit")
        t.check_eq(mc.end(60), 0, "mcfan exit status")
        rep = t.load_report(report) or {}
        t.check(t.conservation(rep), "report: conservation")
        t.check_eq((rep.get("readers") or {}).get("rings_recreated"), 1,
                   "report: rings_recreated 1")
        t.check(re.search(r"reader rings \(docs/readers\.md\): 2, .*, rings_recreated 1, ",
                          "".join(mc.lines)) is not None,
                "the text report's reader rings line says rings_recreated 1")
        t.check_eq(ring_files(prefix), [], "no ring left after the exit")
    finally:
        if tel is not None:
            tel.close()
        for p in procs:
            if p.poll() is None:
                if p.returncode is None:
                    p.send_signal(signal.SIGCONT)
                p.kill()
                p.wait()
        if mc.p.poll() is None:
            mc.p.kill()
            mc.p.wait()
        for f in ring_files(prefix):
            os.unlink(os.path.join("/dev/shm", f))
        t.remove_runtime_dir(eal)
        shutil.rmtree(work, ignore_errors=True)
    return t.finish("readers_removed")


if __name__ == "__main__":
    main()
