#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Reader rings (docs/readers.md) at their limits, on net_null (no lab, no traffic needed):

  - shm_full: /dev/shm a private 4 MB tmpfs (unshare -m): rings x groups larger than its free
    space are refused at start naming the sizes and the free space (exit 1, no ring made);
    a console join whose ring does not fit is an error naming the ring, nothing joined, no
    ring left behind, mcfan runs on (posix_fallocate, not a SIGBUS).

Usage: test_readers_fix.py MCFAN_BINARY. Exit 77 (skip) when not root or without unshare.
"""

import os
import shutil
import subprocess
import sys
import threading
import time

import mcfantest as t

PORT = 3999


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
    prefix = f"mcfan-rdfix-full-{os.getpid()}"
    # 1,024 frames: 20,480 + 1,024 x 2,048 = 2,117,632 bytes a ring; 3 of them > 4 MB
    ring = 20480 + 1024 * 2048
    app = ["--rx-lcores", "1", "--worker-lcores", "2", "--worker-engine", "readers",
           "--reader-ring-frames", "1024", "--duration", "20"]
    p = subprocess.run(small_shm([mcfan, *eal(prefix), "--", *app, "--groups",
                                  f"239.9.9.1-3:{PORT}"]),
                       capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    t.check(p.returncode == 1 and f"3 groups x {ring} bytes (--reader-ring-frames 1024) = "
            f"{3 * ring} bytes do not fit the 4194304 bytes free in /dev/shm" in out and
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


def main():
    mcfan = t.mcfan_path()
    if os.geteuid() != 0:
        skip("needs root (a private tmpfs on /dev/shm)")
    if shutil.which("unshare") is None:
        skip("no unshare(1)")
    shm_full(mcfan)
    return t.finish("readers_fix")


if __name__ == "__main__":
    sys.exit(main())
