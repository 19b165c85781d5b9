#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Reader rings (docs/readers.md) at their limits, on net_null (no lab, no traffic needed):

  - shm_full: /dev/shm a private 4 MB tmpfs (unshare -m): rings x groups larger than its free
    space are refused at start naming the sizes and the free space (exit 1, no ring made);
    a console join whose ring does not fit is an error naming the ring, nothing joined, no
    ring left behind, mcfan runs on (posix_fallocate, not a SIGBUS).
  - shm_partial: a join of 3 groups whose third ring does not fit is refused, and the two
    rings it made are freed while mcfan runs (show readers: 1 ring, 2 freed).
  - dead_writer: readers attached when mcfan is SIGKILLed end with "writer_dead": true,
    "closed": false and exit 1 (mcfan-read and tools/mcfan_reader.py), not as a clean stop;
    the next mcfan of the same file prefix removes the 2 stale rings at start (and says
    so), but not a dead ring of another prefix (PREFIX.x).
  - stale_no_readers: the next start of the prefix removes a killed run's rings also when it
    runs no readers engine.
  - messages: the 257th reader of a ring (256 rows held by one Python process) is told
    "all 256 reader rows of ring GROUP are taken"; --group ADDRESS when rings exist for
    ports 3999 and 4000 names both and asks for GROUP:PORT (exit 1 both).
  - prefix_limit: a --file-prefix of 76 characters (also --file-prefix=) is refused before
    EAL (exit 2, the prefix, its length and the limit 75 named, no EAL line); one of 75
    works (its telemetry socket and reader ring carry the prefix), and one of 100 with
    --no-telemetry (no socket there: only the ring names' limit).
  - many_rings: /mcfan/readers of 100 rings (long IPv6 groups): rings 100, rings_shown 64 and
    64 ring rows (the reply's bound, said in the reply); with 128 readers whose rows hold
    20-digit counts every column still has its shown rows (the reply fits DPDK's 16 KiB).

Usage: test_readers_fix.py MCFAN_BINARY. Exit 77 (skip) when not root or without unshare.
"""

import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import mcfantest as t

PORT = 3999
HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")


def skip(why):
    print(f"readers_fix: SKIP: {why}", flush=True)
    sys.exit(77)


def eal(prefix):
    return ["--lcores", "0@0,1@0,2@0", "--no-huge", "-m", "512", "--in-memory",
            "--file-prefix", prefix, "--no-pci", "--log-level", "lib.eal:warning",
            "--vdev", "net_null0"]


def small_shm(cmd, mb=4):
    """cmd in its own mount namespace whose /dev/shm is an empty tmpfs of mb MB."""
    return ["unshare", "-m", "--propagation", "private", "sh", "-c",
            f'mount -t tmpfs -o size={mb}m tmpfs /dev/shm && exec "$@"', "sh", *cmd]


class Console:
    """mcfan with -i on a pipe: stdout and stderr as one list of lines."""

    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        self.lines = []
        self.th = threading.Thread(target=self._pump, daemon=True)
        self.th.start()

    def _pump(self):
        for line in self.p.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, substr, timeout, start=0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for ln in self.lines[start:]:
                if substr in ln:
                    return ln
            if self.p.poll() is not None:
                time.sleep(0.2)
                return next((ln for ln in self.lines[start:] if substr in ln), None)
            time.sleep(0.05)
        return None

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def stop(self, timeout=30):
        if self.p.poll() is None:
            try:
                self.cmd("quit")
            except BrokenPipeError:
                pass
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return self.p.wait()
        finally:
            self.th.join(5)

    def text(self):
        return "\n".join(self.lines)


def shm_full(mcfan):
    prefix = f"{t.PREFIX}-rdfix-full-{os.getpid()}"
    # 1,024 frames: 20,480 + 1,024 x 2,048 = 2,117,632 bytes a ring; 3 of them > 4 MB
    ring = 20480 + 1024 * 2048
    app = ["--rx-lcores", "1", "--worker-lcores", "2", "--worker-engine", "readers",
           "--reader-ring-frames", "1024", "--duration", "20"]
    p = subprocess.run(small_shm([mcfan, *eal(prefix), "--", *app, "--groups",
                                  f"239.9.9.1-3:{PORT}"]),
                       capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    t.check(p.returncode == 1 and f"3 groups served by readers x {ring} bytes (--reader-ring-frames "
            f"1024) + 0 others x 12288 bytes = {3 * ring} bytes do not fit the 4194304 bytes free in /dev/shm" in out and
            "reader ring for" not in out,
            f"shm_full: rings x groups beyond /dev/shm's free space refused at start: "
            f"{p.returncode} {out[-600:]!r}")
    # one ring fits; the join of a second does not: an error, nothing joined, mcfan runs on.
    # ls /dev/shm in the same namespace, from mcfan's console (shell escape-free: a file)
    probe = f"/tmp/mcfan-rdfix-{os.getpid()}.ls"
    script = (f'mount -t tmpfs -o size=4m tmpfs /dev/shm && "$@"; rc=$?; '
              f'ls /dev/shm > {probe}; exit $rc')
    cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", mcfan,
           *eal(prefix), "--", *app, "--groups", f"239.9.9.1:{PORT}", "-i"]
    c = Console(cmd)
    try:
        if not t.check(c.wait_for("running:", 60) is not None, "shm_full: one ring fits"):
            print(c.text()[-2000:])
            return
        mark = len(c.lines)
        c.cmd(f"join 239.9.9.2:{PORT}")
        ln = c.wait_for("reader ring for", 20, mark)
        t.check(ln is not None and f"/dev/shm/mcfan.{prefix}.239.9.9.2.{PORT} needs {ring} "
                "bytes and /dev/shm has" in ln,
                f"shm_full: the join names the ring, its size and the free space: {ln!r}")
        mark = len(c.lines)
        c.cmd("show groups")
        c.wait_for("239.9.9.1", 10, mark)
        time.sleep(0.5)
        shown = "\n".join(c.lines[mark:])
        t.check("239.9.9.1" in shown and "239.9.9.2" not in shown,
                f"shm_full: nothing joined: {shown[-600:]!r}")
        rc = c.stop()
        t.check_eq(rc, 0, "shm_full: mcfan runs on and stops cleanly (no SIGBUS)")
        with open(probe) as f:
            left = f.read().split()
        t.check_eq(left, [], "shm_full: no ring (nor a half-made one) left in /dev/shm")
    finally:
        if c.p.poll() is None:
            c.p.kill()
        try:
            os.unlink(probe)
        except OSError:
            pass


def shm_partial(mcfan):
    """A join of 3 groups whose third ring does not fit (4 MB /dev/shm, rings of 1,069,056
    bytes: the start's and two more fit): refused, nothing joined, and the two rings it made
    are freed while mcfan runs (retired_freed 2, one ring left), not kept until exit."""
    prefix = f"{t.PREFIX}-rdfix-part-{os.getpid()}"
    ring = 20480 + 512 * 2048
    cmd = small_shm([mcfan, *eal(prefix), "--", "--rx-lcores", "1", "--worker-lcores", "2",
                     "--worker-engine", "readers", "--reader-ring-frames", "512",
                     "--duration", "30", "--groups", f"239.9.9.1:{PORT}", "-i"])
    c = Console(cmd)
    try:
        if not t.check(c.wait_for("running:", 60) is not None, "shm_partial: mcfan runs"):
            print(c.text()[-2000:])
            return
        mark = len(c.lines)
        c.cmd(f"join 239.9.9.2-4:{PORT}")
        ln = c.wait_for("reader ring for", 20, mark)
        t.check(ln is not None and f"/dev/shm/mcfan.{prefix}.239.9.9.4.{PORT} needs {ring} "
                "bytes" in ln, f"shm_partial: the join is refused at its third ring: {ln!r}")
        end, shown = time.monotonic() + 10, ""
        while time.monotonic() < end:
            mark = len(c.lines)
            c.cmd("show readers")
            c.wait_for("(docs/readers.md)", 10, mark)
            shown = "\n".join(c.lines[mark:])
            if "2 freed" in shown:
                break
            time.sleep(0.2)
        t.check("1 ring, 0 readers (0 dead); retired rings: 0 waiting to be freed "
                "(retired_waiting), 2 freed (retired_freed)" in shown,
                f"shm_partial: the refused join's two rings are freed: {shown[-600:]!r}")
        mark = len(c.lines)
        c.cmd("show groups")
        c.wait_for("239.9.9.1", 10, mark)
        time.sleep(0.5)
        shown = "\n".join(c.lines[mark:])
        t.check("239.9.9.1" in shown and "239.9.9.2" not in shown and "239.9.9.3" not in shown,
                f"shm_partial: nothing joined: {shown[-600:]!r}")
        t.check_eq(c.stop(), 0, "shm_partial: mcfan stops cleanly")
    finally:
        if c.p.poll() is None:
            c.p.kill()


def rings_of(prefix):
    return sorted(f for f in os.listdir("/dev/shm") if f.startswith(f"mcfan.{prefix}."))


def dead_writer(mcfan):
    build = t.build_dir(mcfan)
    rd_bin = os.path.join(build, "app", "mcfan-read", "mcfan-read")
    env = dict(os.environ, MCFAN_READER_LIB=os.path.join(build, "lib", "libmcfan-reader.so.1"))
    prefix = f"{t.PREFIX}-rdfix-dead-{os.getpid()}"
    decoy = f"/dev/shm/mcfan.{prefix}.x.239.9.9.1.{PORT}"
    app = ["--rx-lcores", "1", "--worker-lcores", "2", "--worker-engine", "readers",
           "--reader-ring-frames", "64"]
    mc = t.McfanProcess(eal(prefix), app + ["--groups", f"239.9.9.1-2:{PORT}",
                                            "--duration", "60"])
    rds = []
    try:
        if not t.check(mc.wait_line("running:", 60) is not None, "dead_writer: mcfan runs"):
            print(mc.stderr()[-2000:])
            return
        for cmd in ([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.1:{PORT}",
                     "--quiet", "--no-seq"],
                    [sys.executable, os.path.join(TOOLS, "mcfan_reader.py"), "--file-prefix",
                     prefix, "--group", f"239.9.9.2:{PORT}"]):
            rds.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True, env=env))
        time.sleep(1.5)
        t.check(all(r.poll() is None for r in rds), "dead_writer: the readers read")
        os.kill(mc.pid, signal.SIGKILL)
        mc.wait(30)
        for r, name in zip(rds, ("mcfan-read", "mcfan_reader.py")):
            out, err = t.communicate_both_or_kill(r, 15)
            res = t.json_line(out)
            t.check(r.returncode == 1 and res.get("writer_dead") is True and
                    res.get("closed") is False and "writer dead" in err,
                    f"dead_writer: {name} reports the killed writer, exit 1: {r.returncode} "
                    f"{out.strip()[-300:]!r} {err.strip()[-300:]!r}")
        left = rings_of(prefix)
        t.check_eq(left, [f"mcfan.{prefix}.239.9.9.{i}.{PORT}" for i in (1, 2)],
                   "dead_writer: a SIGKILLed mcfan leaves its rings")
        if left:
            shutil.copyfile(f"/dev/shm/{left[0]}", decoy)
        mc2 = t.McfanProcess(eal(prefix), app + ["--groups", f"239.9.9.3:{PORT}",
                                                 "--duration", "1"])
        rc = mc2.wait(60)
        text = mc2.stdout() + mc2.stderr()
        t.check(rc == 0 and f"reader rings: removed 2 stale rings of file prefix {prefix} "
                "from /dev/shm (their writer is gone)" in text,
                f"dead_writer: the next run removes the 2 stale rings: {rc} {text[-600:]!r}")
        t.check_eq(rings_of(prefix), [f"mcfan.{prefix}.x.239.9.9.1.{PORT}"],
                   "dead_writer: no ring of the prefix left, another prefix's ring kept")
    finally:
        for r in rds:
            if r.poll() is None:
                r.kill()
                r.wait()
        if mc.p.poll() is None:
            mc.p.kill()
            mc.wait(10)
        for f in rings_of(prefix):
            os.unlink(os.path.join("/dev/shm", f))


def stale_no_readers(mcfan):
    """A SIGKILLed readers run's rings are removed by the next start of the prefix that runs
    no readers engine too (before: only a readers run removed them; a restart with the count
    engine left each ring's memory in /dev/shm for good)."""
    prefix = f"{t.PREFIX}-rdfix-stale-{os.getpid()}"
    app = ["--rx-lcores", "1", "--worker-lcores", "2", "--groups", f"239.9.9.1-2:{PORT}"]
    mc = t.McfanProcess(eal(prefix), app + ["--worker-engine", "readers",
                                            "--reader-ring-frames", "64", "--duration", "60"])
    try:
        if not t.check(mc.wait_line("running:", 60) is not None,
                       "stale_no_readers: mcfan runs"):
            print(mc.stderr()[-2000:])
            return
        os.kill(mc.pid, signal.SIGKILL)
        mc.wait(30)
        t.check_eq(len(rings_of(prefix)), 2, "stale_no_readers: the killed run left 2 rings")
        mc2 = t.McfanProcess(eal(prefix), app + ["--duration", "0.5"])
        rc = mc2.wait(60)
        text = mc2.stdout() + mc2.stderr()
        t.check(rc == 0 and f"reader rings: removed 2 stale rings of file prefix {prefix} "
                "from /dev/shm (their writer is gone)" in text,
                f"stale_no_readers: a count-engine run removes them: {rc} {text[-400:]!r}")
        t.check_eq(rings_of(prefix), [], "stale_no_readers: no ring of the prefix left")
    finally:
        if mc.p.poll() is None:
            mc.p.kill()
            mc.wait(10)
        for f in rings_of(prefix):
            os.unlink(os.path.join("/dev/shm", f))


HOLD_ROWS = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import mcfan_reader
rs = [mcfan_reader.Reader(sys.argv[2], sys.argv[3]) for _ in range(256)]
print("held", len(rs), flush=True)
sys.stdin.read()
"""


# many_rings' groups: V6 and 1..100 in hex
V6 = "ff3e:1234:5678:9abc:def0:1234:5678:"
# 2 readers on each of the first 64 rings of many_rings; then 20-digit counts in their rows
HOLD_BIG = r"""
import mmap, os, struct, sys
sys.path.insert(0, sys.argv[1])
import mcfan_reader
addrs = ["%s%x" % (sys.argv[3], i) for i in range(1, 65)]
rs = [mcfan_reader.Reader(sys.argv[2], "[%s]:3999" % a) for a in addrs for _ in range(2)]
for a in addrs:
    fd = os.open("/dev/shm/mcfan.%s.%s.3999" % (sys.argv[2], a), os.O_RDWR)
    mm = mmap.mmap(fd, 8192)
    for row in range(2):   # frames, lost, laps of rows 0 and 1 (mcfan_reader_ring.h)
        struct.pack_into("<QQQ", mm, 4096 + row * 64 + 8, 2**64 - 1, 2**63, 2**63)
    mm.close()
    os.close(fd)
print("held", len(rs), flush=True)
sys.stdin.read()
"""


def messages(mcfan):
    build = t.build_dir(mcfan)
    rd_bin = os.path.join(build, "app", "mcfan-read", "mcfan-read")
    env = dict(os.environ, MCFAN_READER_LIB=os.path.join(build, "lib", "libmcfan-reader.so.1"))
    prefix = f"{t.PREFIX}-rdfix-msg-{os.getpid()}"
    app = ["--rx-lcores", "1", "--worker-lcores", "2", "--worker-engine", "readers",
           "--reader-ring-frames", "64", "--groups", f"239.9.9.1:{PORT},239.9.9.1:4000",
           "--duration", "60"]
    mc = t.McfanProcess(eal(prefix), app)
    hold = None
    try:
        if not t.check(mc.wait_line("running:", 60) is not None, "messages: mcfan runs"):
            print(mc.stderr()[-2000:])
            return
        p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", "239.9.9.1",
                            "--count", "1"], capture_output=True, text=True, timeout=30,
                           env=env)
        t.check(p.returncode == 1 and "239.9.9.1 has reader rings for several UDP ports "
                "(3999, 4000): give GROUP:PORT, e.g. --group 239.9.9.1:3999" in p.stderr and
                "Name not unique" not in p.stderr,
                f"messages: an address without a port names the ports: {p.returncode} "
                f"{p.stderr.strip()!r}")
        hold = subprocess.Popen([sys.executable, "-c", HOLD_ROWS, TOOLS, prefix,
                                 f"239.9.9.1:{PORT}"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)
        line = hold.stdout.readline()
        t.check_eq(line.strip(), "held 256", "messages: one process holds all 256 rows")
        p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.1:{PORT}",
                            "--count", "1"], capture_output=True, text=True, timeout=30,
                           env=env)
        t.check(p.returncode == 1 and f"all 256 reader rows of ring 239.9.9.1:{PORT} are "
                "taken by running readers" in p.stderr and "No space left" not in p.stderr,
                f"messages: the 257th reader is told the rows are taken: {p.returncode} "
                f"{p.stderr.strip()!r}")
    finally:
        if hold is not None:
            hold.kill()
            hold.wait()
        stop_and_unlink(mc, prefix)


def stop_and_unlink(mc, prefix):
    """Stop mcfan mc if it still runs (SIGINT, then SIGKILL after 30 s) and remove the reader
    rings of its file prefix."""
    if mc.p.poll() is None:
        mc.p.send_signal(signal.SIGINT)
        if mc.wait(30) is None and mc.p.poll() is None:
            mc.p.kill()
    for f in rings_of(prefix):
        os.unlink(os.path.join("/dev/shm", f))


def prefix_limit(mcfan):
    long = ("r%d-" % os.getpid()) + "x" * 80
    for form in (["--file-prefix", long[:76]], [f"--file-prefix={long[:76]}"]):
        p = subprocess.run([mcfan, "--no-pci", "--no-huge", "-m", "512", *form, "--",
                            "--groups", f"239.9.9.1:{PORT}"], capture_output=True, text=True,
                           timeout=60)
        t.check(p.returncode == 2 and f"--file-prefix '{long[:76]}': 76 characters, more "
                "than the 75 that work: EAL's telemetry socket /var/run/dpdk/PREFIX/"
                "dpdk_telemetry.v2 must fit a socket path (108 bytes, sockaddr_un)" in p.stderr
                and "EAL:" not in p.stdout + p.stderr,
                f"prefix_limit: {form[0][:16]}: 76 characters refused before EAL: "
                f"{p.returncode} {p.stderr.strip()[-400:]!r}")
    # not a directory name: a path would be EAL's runtime directory (RUNDIR/dpdk/../x is
    # RUNDIR/x, made by EAL before); the rule of the reader library and mcfan-top
    rule = ("give the name of mcfan's EAL --file-prefix: a directory name under DPDK's runtime "
            "directory (not empty, no '/' or '%', not . or ..)")
    esc = "r%d-esc" % os.getpid()
    for form, words in ((["--file-prefix", f"../{esc}"], f"file prefix '../{esc}': has a '/' "
                         "(it is not a path)"),
                        ([f"--file-prefix=../../{esc}"], f"file prefix '../../{esc}': has a "
                         "'/'"),
                        (["--file-prefix", "a%b"], "file prefix 'a%b': has a '%' (DPDK's EAL "
                         "refuses it)"),
                        (["--file-prefix", ".."], "file prefix '..': is a directory of the path "
                         "itself"),
                        (["--file-prefix", ""], "file prefix '': is empty"),
                        # a line end kept from a file the prefix was read from (CRLF): EAL
                        # made RUNDIR/dpdk/"P\r", which mcfan-top -f P never found
                        (["--file-prefix", f"{esc}\r"], f"file prefix of {len(esc) + 1} "
                         f"characters: has a control character (0x0d, character {len(esc) + 1}"
                         "; a line end of the file it was read from?)"),
                        (["--file-prefix", "a\tb"], "file prefix of 3 characters: has a "
                         "control character (0x09, character 2)")):
        p = subprocess.run([mcfan, "--no-pci", "--no-huge", "-m", "512", *form, "--",
                            "--groups", f"239.9.9.1:{PORT}", "--duration", "1"],
                           capture_output=True, text=True, timeout=60)
        t.check(p.returncode == 2 and f"mcfan: --file-prefix: {words}" in p.stderr and
                rule in p.stderr and "EAL:" not in p.stdout + p.stderr,
                f"prefix_limit: {' '.join(form)!r} refused before EAL: {p.returncode} "
                f"{p.stderr.strip()[-300:]!r}")
    t.check(not os.path.exists(f"/var/run/{esc}") and not os.path.exists(f"/var/{esc}"),
            "prefix_limit: no runtime directory made outside /var/run/dpdk")
    for d in (f"/var/run/dpdk/{esc}\r", "/var/run/dpdk/a\tb"):   # made before the fix
        t.check(not os.path.exists(d), f"prefix_limit: no runtime directory {d!r}")
        shutil.rmtree(d, ignore_errors=True)
    for d in (f"/var/run/{esc}", f"/var/{esc}"):   # left by a failing run, before the fix
        shutil.rmtree(d, ignore_errors=True)
    # without telemetry there is no socket in the runtime directory: only the ring names limit
    p = subprocess.run([mcfan, "--no-pci", "--no-huge", "-m", "512", "--no-telemetry",
                        "--file-prefix", "z" * 187, "--", "--groups", f"239.9.9.1:{PORT}"],
                       capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 2 and "187 characters, more than the 186 that work: a reader ring "
            "/dev/shm/mcfan.PREFIX.ADDRESS.PORT must fit a file name (NAME_MAX 255)" in p.stderr
            and "EAL:" not in p.stdout + p.stderr,
            f"prefix_limit: 187 characters with --no-telemetry refused (ring names): "
            f"{p.returncode} {p.stderr.strip()[-300:]!r}")
    prefix = ("n%d-" % os.getpid()) + "y" * 96
    p = subprocess.run([mcfan, *eal(prefix), "--no-telemetry", "--", "--rx-lcores", "1",
                        "--worker-lcores", "2", "--worker-engine", "readers",
                        "--reader-ring-frames", "64", "--groups", f"239.9.9.1:{PORT}",
                        "--duration", "1"], capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    t.check(p.returncode == 0 and f"reader rings: 1 in /dev/shm/mcfan.{prefix}.*" in out,
            f"prefix_limit: 100 characters with --no-telemetry work: {p.returncode} "
            f"{out[-600:]!r}")
    prefix = long[:75]
    p = subprocess.run([mcfan, *eal(prefix), "--", "--rx-lcores", "1", "--worker-lcores", "2",
                        "--worker-engine", "readers", "--reader-ring-frames", "64",
                        "--groups", f"239.9.9.1:{PORT}", "--duration", "1"],
                       capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    t.check(p.returncode == 0 and f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2" in out and
            f"reader rings: 1 in /dev/shm/mcfan.{prefix}.*" in out,
            f"prefix_limit: 75 characters work, the rings carry the prefix: {p.returncode} "
            f"{out[-600:]!r}")


def many_rings(mcfan):
    """/mcfan/readers of 100 rings lists the first 64 (the reply's bound) and says so:
    rings 100, rings_shown 64, 64 entries in each ring column (before: no rings_shown, so
    rings 100 beside 64 rows looked like 36 rings missing)."""
    prefix = f"{t.PREFIX}-rdfix-many-{os.getpid()}"
    # long IPv6 groups (41 characters as a ring names them): the reply's rows are the widest
    groups = ",".join(f"[{V6}{i:x}]:{PORT}" for i in range(1, 101))
    app = ["--rx-lcores", "1", "--worker-lcores", "2", "--worker-engine", "readers",
           "--reader-ring-frames", "2", "--groups", groups, "--duration", "60"]
    mc = t.McfanProcess(eal(prefix), app)
    try:
        if not t.check(mc.wait_line("running:", 60) is not None, "many_rings: mcfan runs"):
            print(mc.stderr()[-2000:])
            return
        tel = t.Telemetry(t.telemetry_socket(eal(prefix)), proc=mc)
        v = tel.wait_ready("/mcfan/readers")
        tel.close()
        if not t.check(v is not None, "many_rings: /mcfan/readers answers"):
            return
        t.check_eq((v.get("rings"), v.get("rings_shown"), len(v.get("ring_group", []))),
                   (100, 64, 64), "many_rings: /mcfan/readers: rings, rings_shown, ring rows")
        # 2 readers on each of the first 64 rings, whose rows say 20-digit counts (a
        # long-lived reader's, written here into the rows): the reply must stay whole under
        # DPDK's 16 KiB (before: 128 rows did not fit, and last_ms and alive were dropped
        # without a word while shown said 128)
        build = t.build_dir(mcfan)
        env = dict(os.environ,
                   MCFAN_READER_LIB=os.path.join(build, "lib", "libmcfan-reader.so.1"))
        hold = subprocess.Popen([sys.executable, "-c", HOLD_BIG, TOOLS, prefix, V6], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        t.check_eq(hold.stdout.readline().strip(), "held 128", "many_rings: 128 readers")
        tel = t.Telemetry(t.telemetry_socket(eal(prefix)), proc=mc)
        v, raw = tel.query("/mcfan/readers")
        tel.close()
        if t.check(v is not None, "many_rings: /mcfan/readers answers with 128 readers"):
            cols = ("group", "pid", "frames", "lost", "lapped", "lag", "last_ms", "alive")
            rcols = ("ring_group", "ring_lcore", "ring_written", "ring_too_big",
                     "ring_readers", "ring_waiters", "ring_written_by")
            t.check(v.get("readers") == 128 and 0 < v.get("shown", 0) <= 128 and
                    all(len(v.get(c, [])) == v["shown"] for c in cols) and
                    all(len(v.get(c, [])) == v.get("rings_shown") for c in rcols),
                    f"many_rings: every column has its shown rows ({len(raw)} bytes): "
                    f"readers {v.get('readers')} shown {v.get('shown')} rings_shown "
                    f"{v.get('rings_shown')}: " +
                    str({c: len(v.get(c, [])) for c in cols + rcols}))
            t.check(v.get("frames", [0])[0] == 2**64 - 1,
                    f"many_rings: the rows' counts read: {v.get('frames', [])[:1]}")
        hold.stdin.close()
        hold.wait(30)
    finally:
        stop_and_unlink(mc, prefix)


def main():
    mcfan = t.mcfan_path()
    if os.geteuid() != 0:
        skip("needs root (a private tmpfs on /dev/shm)")
    if shutil.which("unshare") is None:
        skip("no unshare(1)")
    shm_full(mcfan)
    shm_partial(mcfan)
    dead_writer(mcfan)
    stale_no_readers(mcfan)
    messages(mcfan)
    many_rings(mcfan)
    prefix_limit(mcfan)
    return t.finish("readers_fix")


if __name__ == "__main__":
    sys.exit(main())
