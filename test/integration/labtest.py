# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Helpers for the integration tests on the two-namespace veth lab of test/lab/lab.sh
(test_lab, test_kernel, test_kernelsrc, test_overrun, test_idle, test_feed, test_feed_lab,
test_readers, test_readers_wake): the lab driven from Python, the checks before one, the
main() around one. Standard library only; assertions go through mcfantest.check."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import mcfantest as t

HERE = os.path.dirname(os.path.abspath(__file__))
LAB_SH = os.path.join(HERE, "..", "lab", "lab.sh")


class Lab:
    """lab.sh driven from Python: every call sources the library with the same LAB_ID.

    ident: LAB_ID (default the pid; lab.sh names the namespaces and veths after it);
    dir_name: the temporary directory is mcfan-DIR_NAME-LAB_ID-* (LAB_DIR); port: LAB_PORT.
    snd, rcv, vsnd, vrcv: the sender's and receiver's namespaces and veths, and one
    attribute for each extra lab.sh variable (LAB_SND_IP -> snd_ip)."""

    def __init__(self, ident=None, dir_name="lab", port=3999, extra=()):
        self.id = ident or str(os.getpid())
        self.dir = tempfile.mkdtemp(prefix=f"mcfan-{dir_name}-{self.id}-")
        self.env = dict(os.environ, LAB_ID=self.id, LAB_DIR=self.dir, LAB_PORT=str(port))
        names = ["LAB_SND", "LAB_RCV", "LAB_VSND", "LAB_VRCV", *extra]
        v = self.sh("echo " + " ".join(f'"${n}"' for n in names), quiet=True).stdout.split()
        self.snd, self.rcv, self.vsnd, self.vrcv = v[:4]
        for n, val in zip(extra, v[4:]):
            setattr(self, n[len("LAB_"):].lower(), val)

    def sh(self, script, timeout=120, quiet=False):
        """Run script (bash) after sourcing lab.sh; its stderr is printed unless quiet.
        Returns the CompletedProcess."""
        p = subprocess.run(["bash", "-c", f'. "{LAB_SH}" && {script}'], env=self.env,
                           capture_output=True, text=True, timeout=timeout)
        if not quiet and p.stderr.strip():
            print(p.stderr.rstrip(), flush=True)
        return p

    def up(self):
        """lab_up: True when the lab is there."""
        return self.sh("lab_up").returncode == 0

    def down(self):
        """lab_down, then the temporary directory removed (whatever lab_down did)."""
        try:
            self.sh("lab_down", timeout=60)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def skipper(name):
    """skip(why) for the test name: prints "NAME: SKIP: why", exit 77."""
    def skip(why):
        print(f"{name}: SKIP: {why}", flush=True)
        sys.exit(77)
    return skip


def preflight(skip, why="needs root"):
    """Before a lab: skip (a skipper) with why unless root, and unless `ip netns` works;
    mcfantest.mcfan_path() (exits with usage without the binary)."""
    if os.geteuid() != 0:
        skip(why)
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        skip("'ip netns' is not available")
    t.mcfan_path()


def run_lab(name, body, lab=None):
    """The main() of a lab test: lab (default a new Lab()) up (asserted; the test ends
    without it), body(lab), a KeyboardInterrupt a failed check; always lab down; then the
    time it took and mcfantest.finish(name)."""
    lab = lab or Lab()
    t0 = time.monotonic()
    try:
        if not t.check(lab.up(), "lab_up"):
            t.finish(name)
        body(lab)
    except KeyboardInterrupt as e:
        t.check(False, f"interrupted ({e})")
    finally:
        lab.down()
    print(f"{name}: {time.monotonic() - t0:.1f} s", flush=True)
    t.finish(name)
