# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Helpers for the integration tests on the two-namespace veth lab of test/lab/lab.sh
(test_lab, test_kernel, test_kernelsrc, test_overrun, test_idle, test_feed, test_feed_lab,
test_readers, test_readers_wake): the lab driven from Python, the checks before one, the
main() around one. Standard library only; assertions go through mcfantest.check."""

import os
import shutil
import signal
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

    def af_packet(self, framecnt=4096, qpairs=1):
        """The --vdev of net_af_packet on the receiver's veth."""
        return f"net_af_packet0,iface={self.vrcv},qpairs={qpairs},framecnt={framecnt}"

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


def data_cpu():
    """The CPU for the data lcores: 1 on a host of 2 CPUs or more (CPU 0 keeps the control
    lcore, the senders and the captures), else 0."""
    return 1 if (os.cpu_count() or 1) > 1 else 0


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


class NsRun:
    """A process (cmd, an argument list: mcfan through `ip netns exec`) whose stdout and
    stderr, together, a thread reads line by line into lines; running is set at the first
    line that says "running:". With console, stdin is a pipe (say() types a line), else
    /dev/null. Subclasses may look at each line in on_line (called on the reader thread)."""

    def __init__(self, cmd, console=False):
        import threading
        self.cmd = cmd
        self.lines = []
        self.running = threading.Event()
        self.cond = threading.Condition()
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  stdin=subprocess.PIPE if console else subprocess.DEVNULL,
                                  text=True)
        self.th = threading.Thread(target=self._read, daemon=True)
        self.th.start()

    def on_line(self, line):
        """Called with each output line, after it is in lines."""

    def _read(self):
        for line in self.p.stdout:
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
            if "running:" in line:
                self.running.set()
            self.on_line(line)
        with self.cond:
            self.cond.notify_all()

    START_TIMEOUT = 60           # wait_running's default, seconds

    def wait_running(self, timeout=None):
        """Until a line says "running:" (True), the process ends or timeout seconds pass
        (default START_TIMEOUT)."""
        end = time.monotonic() + (self.START_TIMEOUT if timeout is None else timeout)
        while time.monotonic() < end:
            if self.running.wait(0.1):
                return True
            if self.p.poll() is not None:
                return False
        return False

    def wait_for(self, text, timeout):
        """Until a line holds text (True), the process ends or timeout seconds pass."""
        end = time.monotonic() + timeout
        with self.cond:
            while not any(text in ln for ln in self.lines):
                left = end - time.monotonic()
                if left <= 0 or self.p.poll() is not None:
                    return False
                self.cond.wait(min(left, 0.1))
        return True

    def say(self, line):
        """Type one line on the console (console runs only)."""
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def end(self, timeout):
        """Wait for the exit (SIGKILL after timeout seconds) and for the last output lines
        (5 s). Returns the exit status."""
        t.wait_or_kill(self.p, timeout)
        self.th.join(5)
        return self.p.returncode

    def kill(self):
        """SIGKILL if it still runs (for finally:)."""
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def output(self):
        """All it printed so far."""
        return "".join(self.lines)


class McfanRun(NsRun):
    """mcfan in namespace ns (eal_lcores(lcores, prefix, [vdev]), then -- app and
    --report-json DIR/report-NAME.json), with the -i console on a pipe if asked; telemetry
    over its socket (query), the workers' counts (wait_frames), a clean stop (stop: quit on
    the console, else SIGINT) that returns (exit status, report)."""

    START_TIMEOUT = 120

    def __init__(self, ns, prefix, lcores, vdev, app, report_dir, name, console=False):
        self.report = os.path.join(report_dir, f"report-{name}.json")
        self.eal = t.eal_lcores(lcores, prefix, [vdev])
        args = [*app, "--report-json", self.report] + (["-i"] if console else [])
        self.tel = None
        super().__init__(["ip", "netns", "exec", ns, t.mcfan_path(), *self.eal, "--", *args],
                         console)

    def telemetry(self):
        if self.tel is None:
            self.tel = t.Telemetry(t.telemetry_socket(self.eal), timeout=120)
            self.tel.wait_ready()
        return self.tel

    def query(self, cmd):
        return self.telemetry().query(cmd)[0]

    def wait_frames(self, want, timeout=60):
        """Until the workers have counted `want` copies (or the timeout)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.p.poll() is None:
            v = self.query("/mcfan/rings")
            if v and sum(v["frames"]) >= want:
                return True
            time.sleep(0.2)
        return False

    def stop(self, timeout=60):
        if self.tel is not None:
            self.tel.close()
            self.tel = None
        if self.p.poll() is None:
            if self.p.stdin is not None:
                try:
                    self.say("quit")
                    self.p.stdin.close()
                except OSError:
                    pass
            else:
                self.p.send_signal(signal.SIGINT)
        self.end(timeout)
        t.remove_runtime_dir(self.eal)
        rep = t.load_report(self.report)
        if rep is not None:
            os.unlink(self.report)
        return self.p.returncode, rep

    def kill(self):
        super().kill()
        t.remove_runtime_dir(self.eal)

    def serve(self, lab, send, want, tag, before=(), after=()):
        """The usual run: wait until it runs, query each of before (telemetry commands), run
        send (a lab.sh command line) and check it ends well, wait until the workers counted
        want copies, query each of after, stop. Kills it whatever happens. Returns (exit
        status, report or None, {command: reply}); None as the report is checked (tag)."""
        answers, rc, rep = {}, None, None
        try:
            if not t.check(self.wait_running(), f"{tag} mcfan starts:\n{self.output()}"):
                return rc, rep, answers
            for cmd in before:
                answers[cmd] = self.query(cmd)
            r = lab.sh(send, timeout=180)
            t.check_eq(r.returncode, 0, f"{tag} every sender ends well")
            t.check(self.wait_frames(want), f"{tag} the workers count every copy ({want})")
            for cmd in after:
                answers[cmd] = self.query(cmd)
            rc, rep = self.stop()
        finally:
            self.kill()
        t.check(rep is not None, f"{tag} report (exit {rc}):\n{self.output()[-3000:]}")
        return rc, rep, answers
