# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Helpers for the integration tests that run mcfan inside one network namespace of their
own with net_tap / net_memif ports (test_deliver, test_groupeng, test_groupfix): the
namespace and its clean-up, mcfan in it (output, console on a pipe, report), the paced raw
sender, tcpdump on a tap's kernel side, dpdk-testpmd as the net_memif peer. Standard
library only; assertions go through mcfantest.check."""

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import mcfantest as t


def netns_add(ns):
    """ip netns add ns, then IPv6 off in it (the kernel side of a tap in it then sends
    nothing of its own). True when it was made (the caller asserts it, and removes it with
    ip netns del)."""
    if subprocess.run(["ip", "netns", "add", ns]).returncode != 0:
        return False
    subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                    "net.ipv6.conf.all.disable_ipv6=1",
                    "net.ipv6.conf.default.disable_ipv6=1"], capture_output=True)
    return True


def send_paced(iface, frames, pps, burst=1):
    """Write every frame (bytes, a whole Ethernet frame) out of iface with an AF_PACKET raw
    socket, in order, burst frames back to back then a pause: pps bursts a second (pps > 0;
    a late burst is not made up beyond catching up on the schedule). Runs inside a
    namespace (the test script started again with --raw-send). Returns 0 (exit status)."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    pace = t.Pacer(pps)
    for i, fr in enumerate(frames):
        s.send(fr)
        if (i + 1) % burst == 0:
            pace.wait()
    s.close()
    return 0


class Netns:
    """The test's own network namespace mcfan-SHORT-PID and temporary directory
    mcfan-NAME-*; mcfan runs in it get --file-prefix mcfan-SHORT-RUN-PID (runtime_glob
    finds them all)."""

    def __init__(self, name, short):
        self.label = name                      # "deliver": SKIP lines, finish()
        self.short = short                     # "dlv": namespace and prefix names
        self.id = os.getpid()
        self.name = f"mcfan-{short}-{self.id}"
        self.tmp = tempfile.mkdtemp(prefix=f"mcfan-{name}-")

    def prefix(self, run):
        """--file-prefix of one run of this test."""
        return f"mcfan-{self.short}-{run}-{self.id}"

    def runtime_glob(self):
        """Runtime directories of this test's runs (EAL, as root: /var/run/dpdk/PREFIX)."""
        return f"/var/run/dpdk/mcfan-{self.short}-*-{self.id}"

    def pcap_eal(self, run, pcap, lcores="0@0,1@1,2@1"):
        """(--file-prefix, EAL arguments) of a run outside the namespace whose input is the
        capture file pcap (net_pcap rx_pcap): --no-huge -m 512 --in-memory --no-pci."""
        prefix = self.prefix(run)
        return prefix, t.eal_lcores(lcores, prefix, [f"net_pcap0,rx_pcap={pcap}"])

    def run(self, *cmd, **kw):
        """subprocess.run of cmd inside the namespace (ip netns exec)."""
        return subprocess.run(["ip", "netns", "exec", self.name, *cmd], **kw)

    def skip(self, why):
        print(f"{self.label}: SKIP: {why}", flush=True)
        sys.exit(77)

    def send_self(self, script, iface, *args):
        """Run `script --raw-send IFACE ARGS...` (the test file again, whose --raw-send
        calls send_paced) in the namespace, at most 60 s; assert it exits 0. Returns the
        assertion's result."""
        r = self.run("timeout", "60", sys.executable, os.path.abspath(script), "--raw-send",
                     iface, *args, capture_output=True, text=True, timeout=90)
        return t.check_eq(r.returncode, 0, f"raw sender on {iface}: {r.stderr}")

    def main(self, tests, tools, check_clean=False):
        """The test's main(): skip (exit 77) when not root, a tool of tools is missing or
        the namespace cannot be made; then, IPv6 off and lo up in it, run every
        (name, fn) of tests (only those named after MCFAN_BINARY on the command line, when
        any is); always remove the namespace, the temporary directory and the runtime
        directories of this test's runs (check_clean: assert none is left). Ends with
        mcfantest.finish."""
        if os.geteuid() != 0:
            self.skip("needs root (network namespaces)")
        for tool in tools:
            if shutil.which(tool) is None:
                self.skip(f"{tool} missing")
        if subprocess.run(["ip", "netns", "add", self.name]).returncode != 0:
            self.skip("cannot create a network namespace")
        try:
            self.run("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                     "net.ipv6.conf.default.disable_ipv6=1", capture_output=True)
            self.run("ip", "link", "set", "lo", "up")
            for name, fn in tests:
                if len(sys.argv) > 2 and name not in sys.argv[2:]:
                    continue
                fn()
        finally:
            subprocess.run(["ip", "netns", "del", self.name])
            shutil.rmtree(self.tmp, ignore_errors=True)
            for d in glob.glob(self.runtime_glob()):
                shutil.rmtree(d, ignore_errors=True)
            if check_clean:
                t.check(not glob.glob(self.runtime_glob()),
                        "no runtime directory of this run is left in /var/run/dpdk")
        t.finish(self.label)


class NsMcfan:
    """mcfan in the namespace (host: --igmp off --mld off unless given, --report-json in the
    test's temporary directory), stdout and stderr together in one pipe. lines: what wait_running read;
    out: the whole output once stopped. With console (a pipe on stdin; -i in app) the test
    types commands. console_quit: stop() ends a run with -i by typing quit, any other run
    by SIGINT; else stop() sends SIGINT only when stdin is not a pipe (a console run was
    told quit by the test)."""

    def __init__(self, lab, name, vdevs, app, lcores, mem=("--no-huge", "-m", "512"),
                 in_memory=True, console=False, console_quit=False,
                 host=("--igmp", "off", "--mld", "off")):
        self.report = os.path.join(lab.tmp, f"report-{name}.json")
        self.prefix = lab.prefix(name)
        self.console_quit = console_quit
        eal = ["--lcores", lcores, *mem, "--file-prefix", self.prefix, "--no-pci",
               "--log-level", "lib.eal:warning"]
        if in_memory:
            eal.append("--in-memory")
        for v in vdevs:
            eal += ["--vdev", v]
        self.cmd = ["ip", "netns", "exec", lab.name, t.mcfan_path(), *eal, "--", *host,
                    "--report-json", self.report, *app]
        self.p = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  stdin=subprocess.PIPE if console else subprocess.DEVNULL,
                                  text=True)
        self.lines = []
        self.out = ""

    def console(self, line, pause=0.2):
        """Type one console command (-i on a pipe), then wait pause seconds."""
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        time.sleep(pause)

    def wait_running(self, timeout=30):
        """Read output lines (kept in lines) until one says "running:": True; False when
        the output ends or timeout seconds pass first."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            line = self.p.stdout.readline()
            if not line:
                return False
            self.lines.append(line)
            if "running:" in line:
                return True
        return False

    def stop(self):
        """Ask the run to end (see the class), then as stop_when_done(30)."""
        if self.p.poll() is None and self.console_quit and "-i" in self.cmd:
            try:
                self.console("quit", 0)
            except (BrokenPipeError, OSError):
                pass
        elif self.p.poll() is None and (self.console_quit or self.p.stdin is None):
            self.p.send_signal(signal.SIGINT)
        return self.stop_when_done(30)

    def stop_when_done(self, timeout=60):
        """Wait for the end (SIGKILL after timeout seconds); (exit status, report dict or
        None without a report file); out holds the whole output."""
        out = t.communicate_or_kill(self.p, timeout)
        self.out = "".join(self.lines) + (out or "")
        return self.p.returncode, t.load_report(self.report)

    def run_to_end(self, timeout=60):
        """For a run with --duration: stop_when_done(timeout), killed in any case."""
        try:
            return self.stop_when_done(timeout)
        finally:
            self.kill()

    def ended(self, rc, rep, tag, what="exit"):
        """Assert a stopped run's exit status rc is 0 (the message shows the end of its
        output) and that it wrote its report rep; returns whether it did."""
        t.check_eq(rc, 0, f"{tag} {what}:\n{self.out[-2000:]}")
        return t.check(rep is not None, f"{tag} report")

    def kill(self):
        """SIGKILL this run if it still runs (for finally:)."""
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def kill_all(*procs):
    """kill() each of procs (an NsMcfan, Tcpdump, Secondary ...) that is not None, in
    order (for finally:)."""
    for p in procs:
        if p is not None:
            p.kill()


class Tcpdump:
    """tcpdump -i IFACE -p -U -w CAP FILTER (udp unless given) in the namespace: the kernel
    side of a net_tap port. Started, it asserts its first stderr line says "listening"
    (label names it in the message, default "{tag} tcpdump listens")."""

    def __init__(self, lab, iface, cap, tag, label=None, filt="udp"):
        self.p = subprocess.Popen(["ip", "netns", "exec", lab.name, "tcpdump", "-i", iface,
                                   "-p", "-U", "-w", cap, filt], stderr=subprocess.PIPE,
                                  text=True)
        line = self.p.stderr.readline()
        t.check("listening" in line, f"{label or tag + ' tcpdump'} listens: {line}")

    def stop(self):
        """SIGINT, and wait (10 s) for it to write out its file."""
        self.p.send_signal(signal.SIGINT)
        self.p.wait(timeout=10)

    def kill(self):
        """SIGKILL if it still runs (for finally:)."""
        if self.p.poll() is None:
            self.p.kill()


def wait_capture(path, want, timeout=20):
    """Until tcpdump has written want frames into path (or the time is up)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and len(t.read_pcap(path)) < want:
        time.sleep(0.1)


def have_dpdk_tool(tool, tag):
    """Whether tool (dpdk-testpmd, dpdk-dumpcap ...) is on PATH; asserts it is (the tools
    of package dpdk are part of the test, not a reason to skip)."""
    if shutil.which(tool) is None:
        t.check(False, f"{tag} {tool} missing (package dpdk)")
        return False
    return True


class TestpmdMemif:
    """dpdk-testpmd in the namespace as the net_memif client of an mcfan memif server on
    socket sock: 2 RX/TX queues (memif pairs queue i with the peer's queue i; TX queue 1 is
    the worker's), rxonly with verbose on, one line per frame received naming its
    destination MAC. Its output goes to a file (a pipe read only at the end would fill and
    block its forwarding lcore); line_buffered (stdbuf -oL): the echo of the console's
    "stop" cannot cut a verbose line."""

    def __init__(self, lab, sock, prefix, line_buffered=False):
        self.lab, self.sock, self.prefix = lab, sock, prefix
        self.line_buffered = line_buffered
        self.path = os.path.join(lab.tmp, "testpmd.out")
        self.file = open(self.path, "w")
        self.p = None

    def start(self, mcfan_prefix, tag):
        """Start it, then wait (20 s) until mcfan's memif port (1) says its link is up over
        telemetry; assert it did, then give the forwarding lcore 0.5 s."""
        pre = ["stdbuf", "-oL"] if self.line_buffered else []
        self.p = subprocess.Popen(["ip", "netns", "exec", self.lab.name, *pre, "dpdk-testpmd",
                                   "-l", "0,1", "--no-huge", "-m", "256", "--no-shconf",
                                   "--no-pci", "--file-prefix", self.prefix, "--vdev",
                                   f"net_memif0,role=client,socket={self.sock}", "--", "-i",
                                   "--rxq=2", "--txq=2", "--total-num-mbufs=8192",
                                   "--forward-mode=rxonly"],
                                  stdin=subprocess.PIPE, stdout=self.file,
                                  stderr=subprocess.STDOUT, text=True)
        self.p.stdin.write("set verbose 1\nstart\n")
        self.p.stdin.flush()
        end, up = time.monotonic() + 20, None
        while time.monotonic() < end:
            try:
                up = t.telemetry_once(mcfan_prefix, "/ethdev/link_status,1")
            except OSError:
                up = None
            if up and up.get("status") == "UP":
                break
            time.sleep(0.2)
        t.check(up and up.get("status") == "UP", f"{tag} memif link up: {up}")
        time.sleep(0.5)

    def stop(self):
        """stop and quit on its console; wait for its exit (30 s)."""
        self.p.communicate("stop\nquit\n", timeout=30)

    def close(self):
        """SIGKILL it if it still runs, close its file (for finally:)."""
        if self.p is not None and self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        self.file.close()

    def output(self):
        """What it printed (after close)."""
        with open(self.path) as f:
            return f.read()

    def run(self, a, tag, send):
        """Once mcfan a (memif server on sock) runs: start (link up), send(), 1 s, stop a
        then testpmd; kills both in any case. (exit status, report, testpmd's output), or
        None when mcfan did not start."""
        try:
            if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
                return None
            # testpmd starts and connects: mcfan's memif port (1) says its link is up
            self.start(a.prefix, tag)
            send()
            time.sleep(1.0)
            rc, rep = a.stop()
            self.stop()
        finally:
            a.kill()
            self.close()
        return rc, rep, self.output()

    @staticmethod
    def per_group(out):
        """{"239.9.9.N": frames} from its verbose lines (dst=01:00:5E:09:09:0N, N 1..9)."""
        import re
        got = {}
        for m in re.finditer(r"dst=01:00:5E:09:09:0(\d)", out):
            got[f"239.9.9.{m.group(1)}"] = got.get(f"239.9.9.{m.group(1)}", 0) + 1
        return got


HUGEPAGES_NR = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"


class Hugepages:
    """For a run whose shared memory a DPDK secondary (dpdk-dumpcap, dpdk-pdump) maps: pages
    more 2 MiB hugepages reserved and a hugetlbfs of its own mounted on path (made here).
    nr0: the reservation before; release() unmounts and gives the pages back."""

    def __init__(self, path, pages):
        with open(HUGEPAGES_NR) as f:
            self.nr0 = int(f.read())
        self.path, self.pages = path, pages
        self.mounted = False
        os.makedirs(path)

    def mount(self):
        """Reserve the pages and mount; True when the mount worked."""
        with open(HUGEPAGES_NR, "w") as f:
            f.write(str(self.nr0 + self.pages))
        self.mounted = subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M",
                                       "none", self.path]).returncode == 0
        return self.mounted

    def release(self):
        """Unmount (if mounted) and set the reservation back to nr0 (for finally:)."""
        if self.mounted:
            subprocess.run(["umount", self.path])
        with open(HUGEPAGES_NR, "w") as f:
            f.write(str(self.nr0))

    @staticmethod
    def reserved():
        """The 2 MiB hugepages reserved now."""
        with open(HUGEPAGES_NR) as f:
            return int(f.read())


class Secondary:
    """A DPDK secondary process (dpdk-dumpcap, dpdk-pdump: cmd, an argument list) run
    line-buffered (stdbuf -oL: its lines come when they are said, not at exit), stdout and
    stderr collected in lines by a thread."""

    def __init__(self, cmd):
        import threading
        self.p = subprocess.Popen(["stdbuf", "-oL", *cmd], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        self.lines = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(self.p.stdout),
                                       daemon=True)
        self.reader.start()

    def wait_line(self, marker, timeout):
        """Until a line holds marker, the process ends or timeout seconds pass; True when a
        line holds it."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.p.poll() is None and \
                not any(marker in ln for ln in self.lines):
            time.sleep(0.1)
        return any(marker in ln for ln in self.lines)

    def wait(self, timeout=20):
        """Wait for its exit (SIGKILL after timeout seconds), then for its last lines (5 s);
        returns all it printed."""
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.reader.join(timeout=5)
        return "".join(self.lines)

    def kill(self):
        """SIGKILL if it still runs (for finally:)."""
        if self.p.poll() is None:
            self.p.kill()
