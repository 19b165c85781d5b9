#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Reader rings of groups the readers engine does not serve (docs/readers.md, "Groups served
by another engine"), on net_pcap (no lab, no namespace): mcfan with --worker-engine count and
--group-engine 239.9.9.2-3:3999=readers, one worker lcore, 100 / 300 / 50 frames to groups
239.9.9.1-3:3999 from the pcap file.

  - /mcfan/readers: ring_written [0, 300, 50], ring_written_by [count, readers, readers].
  - mcfan-read on group 1 (count) fails at open: exit 1, the exact sentence naming the group,
    the count engine and the options; nothing on stdout. tools/mcfan_reader.py raises
    OSError EXDEV with the same sentence, and as a program exits 1 saying it.
  - mcfan-read --oldest on group 2 (readers) reads exactly its 300 frames, lost 0, exit 0;
    with --quiet nothing but its JSON line (no "reading" line on stderr), without it the
    "reading" line on stderr and a line a second on stdout.
  - Readers attached to group 3 (mcfan-read, and a Python reader blocked in wait() without a
    limit) when the console moves it to count (set engine GROUPS count): both are told at
    once (mcfan-read exit 1, the sentence, "stopped after 50 frames", "not_served": true;
    wait() returns -EXDEV, explain() the sentence). show readers says written_by count and
    counts the rings not written by the readers engine.
  - set engine GROUPS readers: group 3 opens again; leave: its ring is freed, the open finds
    none ("no such reader ring"; readers attached when it is left: test_readers_churn.py).
  - moved: a group left and joined again on the other worker gets a new ring of the same
    name; the old one is freed (retired_freed 1) and leaves the name to the new one.
  - set engine LCORE count: group 2's reader is told that lcore 2 runs count for every copy.
  - set engine LCORE readers: group 1's idle ring (count) is full now (its /dev/shm file)
    and opens.

Idle rings (idle_rings(): a second run, on net_tap, the frames written into the tap's kernel
side): 64 groups 239.9.9.1-64:3999 on count, 239.9.9.2 on readers. The start says once what
the rings reserve of /dev/shm (1 served by readers, 63 idle); in /dev/shm group 2's ring is
full (8 MiB and more, allocated), each other's is idle (16 KiB at most, size and blocks);
mcfan-read on group 5 is refused with the count sentence; `set engine 239.9.9.5:3999
readers` gives group 5 a full ring (its file 8 MiB and more now; the idle one is freed), a
reader attached to it reads every one of the 200 frames sent then, lost 0; the report: conservation, no mbuf
outside its pool; no ring left.

Usage: test_readers_served.py MCFAN_BINARY. Exit 77 (skip) when not root.
"""

import json
import os
import re
import signal
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import labtest
import mcfantest as t

PORT = 3999
HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
WANT = {"239.9.9.1": 100, "239.9.9.2": 300, "239.9.9.3": 50}

ADVICE = ("not readers (route the group to readers: give mcfan's console set engine "
          "{g}:3999 readers, or start mcfan with --group-engine {g}:3999=readers and no "
          "other --group-engine or [group-engine] row for it)")


def for_nobody(rd_bin, lib, work):
    """Copies of mcfan-read, libmcfan-reader.so.1 and mcfan_reader.py that user nobody can
    run: the build tree may sit under a directory only root enters (a clean clone in
    mktemp -d is 0700). Returns (mcfan-read, mcfan_reader.py, env) for setpriv's runs:
    LD_LIBRARY_PATH and MCFAN_READER_LIB name the copied library."""
    d = os.path.join(work, "nobody")
    os.mkdir(d)
    for x in (work, d):
        os.chmod(x, 0o755)
    shutil.copy(rd_bin, d)
    shutil.copy(os.path.realpath(lib), os.path.join(d, "libmcfan-reader.so.1"))
    shutil.copy(os.path.join(TOOLS, "mcfan_reader.py"), d)
    for f in os.listdir(d):
        os.chmod(os.path.join(d, f), 0o755)
    env = dict(os.environ, LD_LIBRARY_PATH=d,
               MCFAN_READER_LIB=os.path.join(d, "libmcfan-reader.so.1"))
    return os.path.join(d, "mcfan-read"), os.path.join(d, "mcfan_reader.py"), env


def rings_of(prefix):
    """The reader ring objects of file prefix prefix in /dev/shm."""
    return [f for f in os.listdir("/dev/shm") if f.startswith(f"mcfan.{prefix}.")]


def end_run(procs, prefix, eal):
    """A run's clean-up: kill what still runs of procs (None skipped), remove its rings and
    its runtime directory."""
    for p in procs:
        if p is not None and p.poll() is None:
            p.kill()
    for f in rings_of(prefix):
        os.unlink(os.path.join("/dev/shm", f))
    t.remove_runtime_dir(eal)


def engine_line(g, engine):
    return (f"group {g}:{PORT}: mcfan serves it with the {engine} engine, " +
            ADVICE.format(g=g))


WAITER = r"""
import sys, mcfan_reader
r = mcfan_reader.Reader(sys.argv[1], sys.argv[2], oldest=True)
n = 0
print("open", flush=True)
while True:
    f = r.read()
    if f is None:
        w = r.wait(-1)
        if w < 0:
            print(json.dumps({"frames": n, "wait": w, "why": mcfan_reader.explain(w)}))
            break
        continue
    n += 1
""".replace("import sys,", "import json, sys,")


def refused_at_open(read, group):
    """read(group) again for up to 10 s until mcfan-read is refused at open, not opened just
    before a change and then told (a reader that opened prints its JSON line at exit, one
    refused at open nothing on stdout): the last (status, stdout, stderr)."""
    end = time.monotonic() + 10
    while True:
        rc, out, err = read(group)
        if (rc != 0 and out == "") or time.monotonic() >= end:
            return rc, out, err


def wait_after(mc, mark, text, timeout):
    """Until a line of mc after its first mark lines holds text (True), mc ends or timeout
    seconds pass (NsRun.wait_for() looks at every line since the start)."""
    end = time.monotonic() + timeout
    while not any(text in ln for ln in mc.lines[mark:]):
        if time.monotonic() >= end or mc.p.poll() is not None:
            return False
        time.sleep(0.05)
    return True


def moved_ring(mcfan, work):
    """A group left and joined again on the other worker gets a new ring of the same name;
    the old one is freed (retired_freed 1) without taking the name from the new one: show
    readers shows the new ring with its path, and /dev/shm holds that one object."""
    prefix = f"{t.PREFIX}-rdmov-{os.getpid()}"
    pcap = os.path.join(work, "mov.pcap")
    t.write_pcap(pcap, [t.udp4_frame("239.9.9.1", PORT, data=b"m" * 24) for _ in range(10)])
    eal = t.eal_lcores("0@0,1@1,2@1,3@1", prefix, [f"net_pcap0,rx_pcap={pcap}"])
    mc = labtest.NsRun([mcfan, *eal, "--", "--rx-lcores", "1", "--worker-lcores", "2,3",
                        "--groups", f"239.9.9.1:{PORT}", "--worker-engine", "readers",
                        "--duration", "120", "-i"], console=True)
    name = f"/dev/shm/mcfan.{prefix}.239.9.9.1.{PORT}"
    try:
        if not t.check(mc.wait_running(), "moved: mcfan runs:\n" + "".join(mc.lines[-30:])):
            return
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)
        v, _ = tel.query("/mcfan/readers")
        first = ((v or {}).get("ring_lcore") or [0])[0]
        t.check(first in (2, 3), f"moved: the ring's writer is worker 2 or 3: {v}")
        mc.say(f"leave 239.9.9.1:{PORT}")
        mc.say(f"join 239.9.9.1:{PORT} workers {5 - first}")
        # the console takes the join in its own time: on a loaded host the left ring can be
        # freed before the join makes the new one, so wait for both
        end = time.monotonic() + 20
        while time.monotonic() < end:
            v, _ = tel.query("/mcfan/readers")
            if (v or {}).get("retired_freed") == 1 and (v or {}).get("ring_lcore"):
                break
            time.sleep(0.2)
        tel.close()
        t.check_eq(((v or {}).get("ring_lcore"), (v or {}).get("ring_written_by"),
                    (v or {}).get("retired_waiting"), (v or {}).get("retired_freed")),
                   ([5 - first], ["readers"], 0, 1),
                   "moved: joined again on the other worker, a new ring; the old one freed")
        mark = len(mc.lines)
        mc.say("show readers")
        t.check(wait_after(mc, mark, "(docs/readers.md)", 20), "moved: show readers answers")
        rows = [ln.split(None, 8)[-1].strip() for ln in mc.lines[mark:]
                if ln.startswith("  239.9.9.1:")]
        t.check_eq(rows, [name], "moved: show readers: the new ring, with its name")
        t.check_eq(rings_of(prefix),
                   [os.path.basename(name)], "moved: one object of that name in /dev/shm")
        mc.say("quit")
        t.check_eq(t.wait_or_kill(mc.p, 60), 0, "moved: mcfan exit status")
    finally:
        end_run((mc.p,), prefix, eal)


def main():
    mcfan = t.mcfan_path()
    if os.geteuid() != 0:
        labtest.skipper("readers_served")("needs root (EAL, /dev/shm)")
    build = t.build_dir(mcfan)
    rd_bin = os.path.join(build, "app", "mcfan-read", "mcfan-read")
    env = dict(os.environ, MCFAN_READER_LIB=os.path.join(build, "lib", "libmcfan-reader.so.1"),
               PYTHONPATH=TOOLS)
    work = tempfile.mkdtemp(prefix="mcfan-readers-served-")
    prefix = f"{t.PREFIX}-rdsrv-{os.getpid()}"
    pcap = os.path.join(work, "in.pcap")
    frames = []
    for g, n in WANT.items():
        frames += [t.udp4_frame(g, PORT, data=i.to_bytes(4, "big") + b"s" * 20)
                   for i in range(n)]
    t.write_pcap(pcap, frames)
    eal = t.eal_lcores("0@0,1@1,2@1", prefix, [f"net_pcap0,rx_pcap={pcap}"])
    cmd = [mcfan, *eal, "--", "--rx-lcores", "1", "--worker-lcores", "2", "--groups",
           f"239.9.9.1-3:{PORT}", "--worker-engine", "count", "--group-engine",
           f"239.9.9.2-3:{PORT}=readers", "--duration", "120", "-i"]
    # --wait-open: refused values, a wait that runs out, and a reader started before mcfan
    for bad in ("-1", "nan", "1e3", "x"):
        p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.2:{PORT}",
                            "--wait-open", bad], capture_output=True, text=True, timeout=30)
        t.check_eq((p.returncode, p.stderr),
                   (2, f"mcfan-read: --wait-open '{bad}': must be 0 (do not wait) or more "
                    "seconds, decimal, at most 1000000000\n"), f"--wait-open {bad}: exit 2")
    p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.2:{PORT}",
                        "--wait-open", "0.3"], capture_output=True, text=True, timeout=30)
    t.check_eq((p.returncode, p.stdout, p.stderr.splitlines()),
               (1, "", [f"mcfan-read: group 239.9.9.2:{PORT} of file prefix {prefix}: no "
                        "reader ring yet; opening it again every 100 ms for up to 0.3 s "
                        "(--wait-open)",
                        "mcfan-read: --wait-open 0.3: no reader ring came in that time",
                        f"mcfan-read: group 239.9.9.2:{PORT} of file prefix {prefix}: no such "
                        f"reader ring; the file prefix {prefix} has no reader rings at all: "
                        "give the --file-prefix mcfan was started with (EAL's default: rte), "
                        "and run mcfan with --worker-engine readers"]),
               "--wait-open 0.3 without mcfan: exit 1, the wait said, then why")
    early = subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.2:{PORT}",
                              "--wait-open", "60", "--oldest", "--no-seq", "--count", "300",
                              "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    time.sleep(0.5)
    t.check_eq(early.poll(), None, "mcfan-read --wait-open 60 started before mcfan waits")
    mc = labtest.NsRun(cmd, console=True)
    waiter = None
    try:
        out, err = t.communicate_both_or_kill(early, 60)
        r = t.json_line(out)
        t.check_eq((early.returncode, r.get("frames"), r.get("lost"), err),
                   (0, 300, 0, ""), "mcfan-read --wait-open --oldest started before mcfan: "
                   "opens once the ring is made, reads its 300 frames")
        # -EACCES: a ring this user may not read and write is explained (owner, mode, what
        # to do), not only "Permission denied"; mcfan-read and the Python binding as nobody
        ring = f"/dev/shm/mcfan.{prefix}.239.9.9.2.{PORT}"
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        nb_read, nb_py, nb_env = for_nobody(rd_bin, env["MCFAN_READER_LIB"], work)
        why = (f"group 239.9.9.2:{PORT} of file prefix {prefix}: {ring} is owner root (uid 0), "
               "group root (gid 0), mode 0600, and this process, user nobody (uid 65534) "
               "group nogroup (gid 65534), may not read and write it (a reader holds a row "
               "in the ring): run the reader as a user that may (the owner), or give the "
               f"ring back the mode 0666 mcfan makes it with: chmod 0666 {ring} (mcfan has "
               "no option for a ring's mode or group; docs/readers.md)")
        os.chmod(ring, 0o600)
        try:
            p = subprocess.run(nobody + [nb_read, "--file-prefix", prefix, "--group",
                                         f"239.9.9.2:{PORT}", "--quiet"],
                               capture_output=True, text=True, timeout=30, env=nb_env)
            t.check_eq((p.returncode, p.stdout, p.stderr), (1, "", f"mcfan-read: {why}\n"),
                       "mcfan-read as nobody on a ring of mode 0600: exit 1, owner, mode, "
                       "what to do")
            p = subprocess.run(nobody + ["/usr/bin/python3", nb_py,
                                         "--file-prefix", prefix, "--group",
                                         f"239.9.9.2:{PORT}"],
                               capture_output=True, text=True, timeout=30, env=nb_env)
            t.check_eq((p.returncode, p.stderr),
                       (1, f"mcfan_reader.py: [Errno 13] mcfan_reader_open {prefix} "
                        f"239.9.9.2:{PORT}: {why}\n"),
                       "mcfan_reader.py as nobody on a ring of mode 0600: exit 1, the sentence")
        finally:
            os.chmod(ring, 0o666)
        p = subprocess.run(nobody + [nb_read, "--file-prefix", prefix, "--group",
                                     f"239.9.9.2:{PORT}", "--quiet", "--oldest", "--no-seq",
                                     "--count", "300"], capture_output=True, text=True,
                           timeout=30, env=nb_env)
        t.check_eq((p.returncode, t.json_line(p.stdout).get("frames")), (0, 300),
                   f"mcfan-read as nobody, the ring back at 0666: its 300 frames {p.stderr!r}")
        if not t.check(mc.wait_running(), "mcfan runs:\n" + "".join(mc.lines[-30:])):
            return t.finish("readers_served")
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)
        v, end = None, time.monotonic() + 20
        while time.monotonic() < end:
            v, _ = tel.query("/mcfan/readers")
            if v and v.get("ring_written") == [0, 300, 50]:
                break
            time.sleep(0.2)
        tel.close()
        t.check_eq((v or {}).get("ring_written"), [0, 300, 50],
                   "/mcfan/readers: frames written per ring")
        t.check_eq((v or {}).get("ring_written_by"), ["count", "readers", "readers"],
                   "/mcfan/readers: ring_written_by")

        def read(group, *extra):
            p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", group, "--quiet",
                                "--no-seq", *extra], capture_output=True, text=True,
                               timeout=30)
            return p.returncode, p.stdout, p.stderr

        rc, out, err = read(f"239.9.9.1:{PORT}")
        t.check_eq((rc, out, err), (1, "", "mcfan-read: " + engine_line("239.9.9.1", "count")
                                    + "\n"), "mcfan-read on a count group: exit 1, why")
        p = subprocess.run([sys.executable, "-c",
                            "import mcfan_reader, sys\n"
                            "try:\n"
                            "    mcfan_reader.Reader(sys.argv[1], sys.argv[2])\n"
                            "except OSError as e:\n"
                            "    print(e.errno, e.strerror)\n", prefix, f"239.9.9.1:{PORT}"],
                           capture_output=True, text=True, env=env, timeout=30)
        t.check_eq(p.stdout, f"18 mcfan_reader_open {prefix} 239.9.9.1:{PORT}: " +
                   engine_line("239.9.9.1", "count") + "\n",
                   "Python: OSError EXDEV (18) with the library's sentence")
        p = subprocess.run([sys.executable, os.path.join(TOOLS, "mcfan_reader.py"),
                            "--file-prefix", prefix, "--group", f"239.9.9.1:{PORT}"],
                           capture_output=True, text=True, env=env, timeout=30)
        t.check_eq((p.returncode, p.stderr),
                   (1, f"mcfan_reader.py: [Errno 18] mcfan_reader_open {prefix} "
                    f"239.9.9.1:{PORT}: " + engine_line("239.9.9.1", "count") + "\n"),
                   "mcfan_reader.py on a count group: exit 1, why")

        rc, out, err = read(f"239.9.9.2:{PORT}", "--oldest", "--seconds", "1.5")
        r = t.json_line(out)
        t.check_eq((rc, r.get("frames"), r.get("lost"), r.get("not_served")), (0, 300, 0, False),
                   f"mcfan-read --oldest on a readers group: its 300 frames: {err!r}")
        t.check_eq((err, len(out.splitlines())), ("", 1),
                   "mcfan-read --quiet: nothing on stderr (no 'reading' line), only the JSON "
                   "line on stdout")
        p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.2:{PORT}",
                            "--no-seq", "--oldest", "--seconds", "1.5"], capture_output=True,
                           text=True, timeout=30)
        line = re.fullmatch(rf"mcfan-read: reading 239\.9\.9\.2:{PORT} \(file prefix "
                            rf"{re.escape(prefix)}\), pid \d+\n", p.stderr)
        t.check(p.returncode == 0 and line is not None and
                re.match(r"\d+\.\d s: 300 frames \(\+300\)", p.stdout) is not None,
                f"mcfan-read without --quiet: the 'reading' line, a line a second: "
                f"{p.returncode} {p.stderr!r} {p.stdout[:200]!r}")

        # standard output that goes away (| head -1): mcfan-read ends with status 0 and closes
        # its reader row (before: killed by SIGPIPE, status 141, no JSON, its row left)
        p = subprocess.run(["bash", "-c", f"'{rd_bin}' --file-prefix '{prefix}' --group "
                            f"239.9.9.2:{PORT} --no-seq --oldest --seconds 4 | head -1; "
                            "echo \"rc=${PIPESTATUS[0]}\""], capture_output=True, text=True,
                           timeout=30)
        t.check(re.match(r"\d+\.\d s: 300 frames \(\+300\)", p.stdout) is not None and
                p.stdout.rstrip().endswith("rc=0") and "Broken pipe" not in p.stderr,
                f"mcfan-read | head -1: the first line, then status 0: {p.stdout!r} "
                f"{p.stderr!r}")

        # the Python tool likewise: its JSON line into a pipe already closed is no traceback
        p = subprocess.run(["bash", "-c", f"'{sys.executable}' '{TOOLS}/mcfan_reader.py' "
                            f"--file-prefix '{prefix}' --group 239.9.9.2:{PORT} --seconds 0.5 "
                            "| true; echo \"rc=${PIPESTATUS[0]}\""], capture_output=True,
                           text=True, timeout=30, env=env)
        t.check(p.stdout.rstrip().endswith("rc=0") and "Traceback" not in p.stderr,
                f"mcfan_reader.py | true: status 0, no traceback: {p.stdout!r} {p.stderr!r}")

        # the Python example program's --oldest, as mcfan-read's: every frame the ring holds
        # (without it: from the next frame written, so none here)
        for extra, want in ((["--oldest", "--count", "300"], 300), (["--seconds", "0.5"], 0)):
            p = subprocess.run([sys.executable, os.path.join(TOOLS, "mcfan_reader.py"),
                                "--file-prefix", prefix, "--group", f"239.9.9.2:{PORT}",
                                *extra], capture_output=True, text=True, timeout=30, env=env)
            r = t.json_line(p.stdout)
            t.check_eq((p.returncode, r.get("frames"), r.get("lost")), (0, want, 0),
                       f"mcfan_reader.py {' '.join(extra)}: {want} frames {p.stderr!r}")

        # attached readers of group 3 when it moves to count
        rd = subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.3:{PORT}",
                               "--oldest", "--quiet", "--no-seq"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        waiter = subprocess.Popen([sys.executable, "-c", WAITER, prefix, f"239.9.9.3:{PORT}"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
        t.check_eq(waiter.stdout.readline(), "open\n", "Python waiter opened group 3")
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)
        end = time.monotonic() + 20
        while time.monotonic() < end:
            v, _ = tel.query("/mcfan/readers")
            if v and v.get("frames") == [50, 50] and v.get("ring_waiters") == [0, 0, 2]:
                break
            time.sleep(0.2)
        tel.close()
        t.check_eq(((v or {}).get("frames"), (v or {}).get("ring_waiters")),
                   ([50, 50], [0, 0, 2]), "group 3's two readers read 50 and wait")
        # one group: /mcfan/readers,GROUP and show readers GROUP list its ring and readers only
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)
        v3, _ = tel.query(f"/mcfan/readers,239.9.9.3:{PORT}")
        t.check_eq({k: (v3 or {}).get(k) for k in ("rings", "rings_shown", "ring_group",
                                                    "ring_written", "readers", "shown",
                                                    "group", "frames")},
                   {"rings": 1, "rings_shown": 1, "ring_group": [f"239.9.9.3:{PORT}"],
                    "ring_written": [50], "readers": 2, "shown": 2,
                    "group": [f"239.9.9.3:{PORT}"] * 2, "frames": [50, 50]},
                   "/mcfan/readers,239.9.9.3:3999: its ring and its two readers only")
        v1, _ = tel.query(f"/mcfan/readers,239.9.9.1:{PORT}")
        t.check_eq({k: (v1 or {}).get(k) for k in ("rings", "ring_group", "ring_written_by",
                                                    "readers", "group")},
                   {"rings": 1, "ring_group": [f"239.9.9.1:{PORT}"],
                    "ring_written_by": ["count"], "readers": 0, "group": []},
                   "/mcfan/readers,239.9.9.1:3999: its ring, no reader")
        bad_tel = {"239.9.9.7:3999": "group 239.9.9.7:3999 is not joined",
                   "239.9.9.1": "group 239.9.9.1 is not joined (239.9.9.1:3999 is)",
                   "239.9.9.1:70000": "group '239.9.9.1:70000': UDP port must be a decimal "
                                      "number 1..65535",
                   "239.9.9.1-2:3999": "'239.9.9.1-2:3999' names more than one group: give "
                                       "one (e.g. 239.9.9.1:3999)"}
        for prm in bad_tel:
            bad_q, _ = tel.query(f"/mcfan/readers,{prm}")
            t.check(bad_q is None, f"/mcfan/readers,{prm}: null ({bad_q})")
        tel.close()
        for prm, why in bad_tel.items():
            t.check(mc.wait_for(f"MCFAN: telemetry /mcfan/readers: {why}", 10),
                    f"/mcfan/readers,{prm}: {why!r} in the log")
        mark = len(mc.lines)
        mc.say(f"show readers 239.9.9.3:{PORT}")
        t.check(wait_after(mc, mark, "(docs/readers.md)", 20), "show readers GROUP answers")
        shown = "".join(mc.lines[mark:])
        rows = [ln.split() for ln in shown.splitlines() if ln.startswith("  239.9.9.")]
        t.check_eq(sorted((x[0], x[1]) for x in rows),
                   sorted([(f"239.9.9.3:{PORT}", "2")] +
                          [(f"239.9.9.3:{PORT}", str(p)) for p in (rd.pid, waiter.pid)]),
                   f"show readers 239.9.9.3:3999: its ring and its two readers only: {shown!r}")
        t.check(f"239.9.9.3:{PORT}: 1 of 3 rings, 2 readers (0 dead) (docs/readers.md)" in
                shown, f"show readers GROUP: the summary: {shown!r}")
        for prm, why in bad_tel.items():
            mark = len(mc.lines)
            mc.say(f"show readers {prm}")
            t.check(wait_after(mc, mark, f"error: show readers: {why}", 10),
                    f"show readers {prm}: {why!r}: {mc.lines[mark:]!r}")
        # a reader stopped by SIGSTOP is said to be stopped, not waiting (before: "yes
        # (waiting)" and alive, though it reads nothing until continued)
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)

        def stopped_after(sig, want):
            """Send sig to rd, then /mcfan/readers' stopped column by pid once rd's is
            want (or after 10 s)."""
            os.kill(rd.pid, sig)
            end, st = time.monotonic() + 10, {}
            while time.monotonic() < end:
                v, _ = tel.query("/mcfan/readers")
                st = dict(zip((v or {}).get("pid", []), (v or {}).get("stopped", [])))
                if st.get(rd.pid) == want:
                    break
                time.sleep(0.2)
            return st

        st = stopped_after(signal.SIGSTOP, 1)
        t.check(st.get(rd.pid) == 1 and st.get(waiter.pid) == 0,
                f"/mcfan/readers: the SIGSTOPped reader stopped 1, the other 0: {st}")
        st = stopped_after(signal.SIGCONT, 0)
        tel.close()
        t.check_eq(st.get(rd.pid), 0, "/mcfan/readers: continued (SIGCONT): stopped 0")
        # told within the reader's once-a-second recheck whether mcfan's wake comes or not:
        # no time is asserted here (a loaded host), only that it is told, and what
        mc.say(f"set engine 239.9.9.3:{PORT} count")
        out, err = t.communicate_both_or_kill(rd, 10)
        r = t.json_line(out)
        t.check_eq((rd.returncode, r.get("frames"), r.get("not_served"), r.get("closed")),
                   (1, 50, True, False), "attached mcfan-read: exit 1, 50 frames, not_served")
        t.check_eq(err.splitlines()[-1:], ["mcfan-read: " + engine_line("239.9.9.3", "count") +
                                           "; stopped after 50 frames"],
                   "attached mcfan-read: why it stopped")
        wout, _ = t.communicate_both_or_kill(waiter, 10)
        t.check_eq(t.json_line(wout), {"frames": 50, "wait": -18,
                                     "why": engine_line("239.9.9.3", "count")},
                   "Python wait(-1): -EXDEV and explain()")
        mark = len(mc.lines)
        mc.say("show readers")
        t.check(wait_after(mc, mark, "(docs/readers.md)", 20), "show readers answers")
        shown = "".join(mc.lines[mark:])
        row = [ln.split() for ln in shown.splitlines() if ln.strip().startswith("239.9.9.")
               and "/dev/shm" in ln]
        t.check_eq([(x[0], x[-2]) for x in row],
                   [(f"239.9.9.{i}:{PORT}", w) for i, w in ((1, "count"), (2, "readers"),
                                                             (3, "count"))],
                   "show readers: written_by per ring")
        t.check("3 rings, 0 readers (0 dead), 2 rings not written by the readers engine "
                "(written_by: its group goes to another engine, or was left; its readers get "
                "-EXDEV) (docs/readers.md)" in shown, f"show readers: the summary: {shown!r}")

        mc.say(f"set engine 239.9.9.3:{PORT} readers")
        ok = False
        end = time.monotonic() + 10
        while time.monotonic() < end and not ok:
            rc, out, err = read(f"239.9.9.3:{PORT}", "--oldest", "--seconds", "0.3")
            ok = rc == 0
        t.check_eq((rc, t.json_line(out).get("frames")), (0, 50),
                   f"back on readers: group 3 opens again, its 50 frames: {err!r}")
        mc.say(f"leave 239.9.9.3:{PORT}")
        # the left group's ring is freed (its name removed) once its last copies are written
        # and a worker grace period has passed: then there is no ring to open (before: it
        # stayed until exit, and the open said "mcfan left the group")
        end = time.monotonic() + 10
        while time.monotonic() < end and os.path.exists(
                f"/dev/shm/mcfan.{prefix}.239.9.9.3.{PORT}"):
            time.sleep(0.05)
        rc, out, err = read(f"239.9.9.3:{PORT}")
        t.check_eq((rc, out, err), (1, "", f"mcfan-read: group 239.9.9.3:{PORT} of file prefix "
                                    f"{prefix}: no such reader ring (is mcfan running with "
                                    "--worker-engine readers, and the group joined?)\n"),
                   "after leave: the ring is freed, the open finds none")
        # readers takes no ARGS: "readers:" is refused as at start, not taken as readers
        # (before: "lcore 2: worker engine readers ...", and "readers:x" "would need a new
        # set-up")
        for arg in ("", "x"):
            mc.say(f"set engine 2 readers:{arg}")
            want = f"error: set engine: engine readers takes no arguments ('{arg}')"
            t.check(mc.wait_for(want, 10), f"set engine 2 readers:{arg}: {mc.lines[-3:]!r}")
        t.check(not any("worker engine readers" in ln for ln in mc.lines),
                "set engine 2 readers: changed nothing")
        mc.say("set engine 2 count")
        rc, out, err = refused_at_open(read, f"239.9.9.2:{PORT}")
        t.check_eq((rc, err), (1, f"mcfan-read: group 239.9.9.2:{PORT}: mcfan's lcore 2, which "
                               "writes its ring, runs the count engine for every copy, not "
                               "readers (give mcfan's console set engine 2 outputs, or set "
                               "engine 2 readers)\n"), "set engine LCORE count: why")
        # group 1 (count) has an idle ring; set engine LCORE readers makes it full before
        # the lcore runs readers, and a reader opens it
        t.check(shm_ring(prefix, "239.9.9.1")[0] <= IDLE_MAX, "group 1's ring is idle")
        mc.say("set engine 2 readers")
        t.check(mc.wait_for("lcore 2: worker engine readers (was count)", 10),
                f"set engine 2 readers: {mc.lines[-3:]!r}")
        t.check(shm_ring(prefix, "239.9.9.1")[0] >= FULL_MIN,
                f"set engine LCORE readers: group 1's ring full: {shm_ring(prefix, '239.9.9.1')}")
        rc, out, err = read(f"239.9.9.1:{PORT}", "--seconds", "0.3")
        t.check_eq(rc, 0, f"set engine LCORE readers: group 1 opens: {err!r}")
        mc.say("quit")
        t.check_eq(t.wait_or_kill(mc.p, 60), 0, "mcfan exit status")
        t.check_eq(rings_of(prefix), [],
                   "no ring left in /dev/shm")
    finally:
        end_run((mc.p, waiter, early), prefix, eal)
    try:
        moved_ring(mcfan, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    idle_rings(mcfan, rd_bin)
    return t.finish("readers_served")


IDLE_MAX = 16384              # bytes of /dev/shm an idle ring may take (12 KiB now)
FULL_MIN = 8 * 1024 * 1024    # a full ring (--reader-ring-frames 4096 x 2048 bytes)


def shm_ring(prefix, g):
    """(st_size, bytes allocated) of group g's ring file, or None."""
    try:
        st = os.stat(f"/dev/shm/mcfan.{prefix}.{g}.{PORT}")
    except FileNotFoundError:
        return None
    return st.st_size, st.st_blocks * 512


def idle_rings(mcfan, rd_bin):
    """The second run: idle rings of the groups readers do not serve (module docstring)."""
    pid = os.getpid()
    prefix = f"{t.PREFIX}-rdidle-{pid}"
    tap = f"{t.PREFIX[:4]}idl{pid % 100000}"[:15]
    work = tempfile.mkdtemp(prefix="mcfan-readers-idle-")
    report = os.path.join(work, "report.json")
    eal = t.eal_lcores("0@0,1@1,2@1", prefix, [f"net_tap0,iface={tap}"])
    cmd = [mcfan, *eal, "--", "--rx-lcores", "1", "--worker-lcores", "2", "--groups",
           f"239.9.9.1-64:{PORT}", "--worker-engine", "count", "--group-engine",
           f"239.9.9.2:{PORT}=readers", "--igmp", "off", "--mld", "off", "--report-json",
           report, "--duration", "120", "-i"]
    mc = labtest.NsRun(cmd, console=True)
    rd = None
    try:
        if not t.check(mc.wait_running(), "idle: mcfan runs:\n" + "".join(mc.lines[-30:])):
            return
        said = [ln for ln in mc.lines if "reader rings: 64 in /dev/shm" in ln]
        t.check(len(said) == 1 and re.search(r": 1 served by readers x \d+ KiB \(4096 frames "
                                             r"of up to \d+ bytes each\) \+ 63 idle x 12 KiB",
                                             said[0]) is not None and
                "--reader-ring-frames" in said[0],
                f"idle: the start says once what the rings reserve: {said!r}")
        sizes = {i: shm_ring(prefix, f"239.9.9.{i}") for i in range(1, 65)}
        t.check(all(v is not None for v in sizes.values()), f"idle: 64 rings: {sizes}")
        big = {i: v for i, v in sizes.items() if v is not None and i != 2 and
               (v[0] > IDLE_MAX or v[1] > IDLE_MAX)}
        t.check_eq(big, {}, "idle: the rings of groups readers does not serve are small")
        t.check(sizes[2] is not None and sizes[2][0] >= FULL_MIN and sizes[2][1] >= FULL_MIN,
                f"idle: group 2's ring (readers) is full and allocated: {sizes[2]}")
        total = sum(v[1] for v in sizes.values() if v is not None)
        print(f"idle: /dev/shm held by the 64 rings: {total} bytes", flush=True)

        def read(group, *extra):
            p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", group, "--quiet",
                                "--no-seq", *extra], capture_output=True, text=True,
                               timeout=30)
            return p.returncode, p.stdout, p.stderr

        t.check_eq(read(f"239.9.9.5:{PORT}"),
                   (1, "", "mcfan-read: " + engine_line("239.9.9.5", "count") + "\n"),
                   "idle: mcfan-read on an idle ring: the same sentence")
        mc.say(f"set engine 239.9.9.5:{PORT} readers")
        t.check(mc.wait_for("239.9.9.5:3999: engine instance 1 (readers) from the next RX "
                            "burst", 10), f"idle: set engine answers: {mc.lines[-3:]!r}")
        v = shm_ring(prefix, "239.9.9.5")
        t.check(v is not None and v[0] >= FULL_MIN and v[1] >= FULL_MIN,
                f"idle: group 5's ring is full after set engine readers: {v}")
        rd = subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.5:{PORT}",
                               "--quiet", "--no-seq", "--count", "200", "--seconds", "30"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)
        end, n_rd = time.monotonic() + 10, 0
        while time.monotonic() < end and n_rd == 0:
            v, _ = tel.query("/mcfan/readers")
            n_rd = sum(1 for g in (v or {}).get("group", []) if g == f"239.9.9.5:{PORT}")
            time.sleep(0.1)
        t.check_eq(n_rd, 1, "idle: the reader is attached to group 5's new ring")
        frames = [t.udp4_frame("239.9.9.5", PORT, data=i.to_bytes(4, "big") + b"i" * 20)
                  for i in range(200)]
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((tap, 0))
        pace = t.Pacer(1000)
        for fr in frames:
            s.send(fr)
            pace.wait()
        s.close()
        out, err = t.communicate_both_or_kill(rd, 40)
        r = t.json_line(out)
        t.check_eq((rd.returncode, r.get("frames"), r.get("lost")), (0, 200, 0),
                   f"idle: the reader of group 5's full ring reads every frame: {err!r}")
        tel.close()
        mark = len(mc.lines)
        mc.say("show readers")
        t.check(mc.wait_for("(docs/readers.md)", 20), "idle: show readers answers")
        rows = [ln.split() for ln in "".join(mc.lines[mark:]).splitlines()
                if ln.strip().startswith(f"239.9.9.5:{PORT}") and "/dev/shm" in ln]
        # the state column: the idle ring the full one replaced is freed (retired_freed),
        # the full ring has the path
        t.check_eq([(x[0], x[7], " ".join(x[8:])) for x in rows],
                   [(f"239.9.9.5:{PORT}", "readers",
                     f"/dev/shm/mcfan.{prefix}.239.9.9.5.{PORT}")],
                   f"idle: show readers: group 5's idle ring freed, its full ring: {rows}")
        t.check(any("retired rings: 0 waiting to be freed (retired_waiting), 1 freed "
                    "(retired_freed)" in ln for ln in mc.lines[mark:]),
                f"idle: show readers: the idle ring freed: {mc.lines[-1:]}")
        mc.say("quit")
        t.check_eq(t.wait_or_kill(mc.p, 60), 0, "idle: mcfan exit status")
        rep = t.load_report(report)
        if t.check(rep is not None, "idle: report"):
            t.check(t.conservation(rep), "idle: conservation")
            t.check_eq(rep["mbufs_outside_pool"], 0, "idle: no mbuf outside its pool")
        t.check_eq(rings_of(prefix), [],
                   "idle: no ring left in /dev/shm")
    finally:
        end_run((mc.p, rd), prefix, eal)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
