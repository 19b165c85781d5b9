#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The soak's driver (run by test/soak/soak.sh, which makes the lab and removes it).

mcfan runs in the lab's receiver namespace on net_af_packet with its console on a pipe
(`-i`, one command a line, docs/console.md). Time is cut into ticks of one second; the
senders run in rounds (every group 239.9.9.1-10:3999 from its own iperf2 client, bounded in
count and time), each followed by a quiet gap. At every tick the driver:

  - makes ONE live change through the console, chosen by a seeded random generator from
    the tick and its own model of mcfan's state (so a seed gives the same sequence of
    commands): join, leave, set fanout (all or one group), set idle (role or lcore), set
    burst, stop (and start again 1-6 ticks later; a long stop overflows the af_packet ring
    so that the kernel drops frames), msacc reset/start/off/on, a line that must be refused
    (nothing changes), or, in a gap, clear stats;
  - asks one console `show` (and checks `show counters` and `show groups`);
  - asks the telemetry socket /mcfan/counters, /mcfan/ports, /mcfan/info,
    /mcfan/mempool and one more /mcfan/* command in turn, and checks:
      rx_frames = delivered_frames + drops_total = delivered + the sum of the reasons;
      the kernel line: kernel_packets >= ipackets + kernel_drops, the difference (frames
        still in the af_packet ring) at most its framecnt;
      ipackets (asked after the counters) >= rx_frames;
      counters never go back (but at a clear); while RX is stopped rx_frames stays put;
      groups, fan-out, burst and idle policies as the model says;
  - samples VmRSS (/proc/PID/status) and the mbufs outside the pool (/mcfan/mempool;
    DPDK 22.11's /mempool/info has no count of the available mbufs);
  - scrapes --metrics-listen with curl if the binary has that option.

In every gap, once the senders have exited and mcfan has drained: frames the senders sent
since the start = received + kernel drops, summed over every clear (exact), the kernel line
exact, the mbufs outside the pool back at the idle baseline measured before any traffic.
`clear stats` is only given in gaps, after that check, so that the sums stay exact.

At the end: `quit`, exit status 0, the final report (JSON and text) exact against what the
senders sent since the last clear, no mbuf outside its pool, RSS growth after the first
minute under --rss-bound-kib, conservation never broken. Prints a summary (also as JSON
with --summary). Exit status 0 when every check held, else 1.
"""

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from mcfantest import Telemetry  # noqa: E402

POOL = "mcfan_pool"              # app/mcfan/main.c
FRAMECNT = 4096                  # af_packet ring of the run (vdev framecnt=)
RX_LCORE, WK_LCORE = 1, 2        # lcore 1: RX and worker; lcore 2: worker only
N_TRAFFIC = 10                   # groups with senders: .1 .. .10
N_ADDR = 12                      # groups the changes pick from: .1 .. .12 (11, 12: no traffic)
BURSTS = [1, 2, 4, 8, 16, 32, 64, 100, 128, 256, 512]
THRESHOLDS = ["none", "very_short", "short", "medium", "long", "very_long"]
ROTATE = ["/mcfan/groups", "/mcfan/idle", "/mcfan/rings", "/mcfan/msacc", "/mcfan/latency",
          "/mcfan/lcores", "/mcfan/msacc/types", "/mcfan/topology", f"/mcfan/msacc,{RX_LCORE}",
          f"/mcfan/latency,{WK_LCORE}"]
SHOWS = ["show counters", "show groups", "show rings", "show idle", "show config",
         "show port stats", "show latency", "show msacc", "show lcores", "show msacc types"]


class Stop(Exception):
    """SIGTERM (or SIGINT when run by hand): stop cleanly."""


def log(msg):
    print(f"soak: {msg}", flush=True)


def norm_policy(p):
    """The policy text mcfan shows for what was set (docs/idle.md: default thresholds)."""
    if p in ("backoff",):
        return "backoff:short"
    if p in ("wake", "interrupt"):
        return p + ":very_short"
    return p


class Console:
    """mcfan's console on a pipe: a command is written followed by `wait 0`, whose echo
    marks the end of the command's output."""

    def __init__(self, proc, transcript):
        self.p = proc
        self.lines = []
        self.cond = threading.Condition()
        self.sentinels = 0
        self.sent = 0
        self.transcript = open(transcript, "w")
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stdout:
            line = line.rstrip("\n")
            self.transcript.write(line + "\n")
            with self.cond:
                self.lines.append(line)
                if line == "mcfan> wait 0":
                    self.sentinels += 1
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def run(self, cmd, timeout=30):
        """Run one command; return its output lines (the echo not included), or None if
        mcfan did not answer within timeout."""
        with self.cond:
            start = len(self.lines)
        self.sent += 1
        want = self.sent
        try:
            self.p.stdin.write(f"{cmd}\nwait 0\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        end = time.monotonic() + timeout
        with self.cond:
            while self.sentinels < want:
                left = end - time.monotonic()
                if left <= 0 or (self.p.poll() is not None and not self.t.is_alive()):
                    return None
                self.cond.wait(min(left, 0.1))
            out = self.lines[start:]
        # from the command's echo to the sentinel's
        idx = [i for i, ln in enumerate(out) if ln == f"mcfan> {cmd}"]
        first = idx[0] + 1 if idx else 0
        last = max(i for i, ln in enumerate(out) if ln == "mcfan> wait 0")
        return out[first:last]

    def all_text(self):
        with self.cond:
            return "\n".join(self.lines)


class Soak:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.env = os.environ
        self.snd, self.rcv = self.env["LAB_SND"], self.env["LAB_RCV"]
        self.vrcv = self.env["LAB_VRCV"]
        self.port = int(self.env.get("LAB_PORT", "3999"))
        self.base = self.env.get("LAB_GROUP_BASE", "239.9.9")
        self.dir = a.log_dir or self.env["LAB_DIR"]
        os.makedirs(self.dir, exist_ok=True)
        self.prefix = f"mcfan-soak-{self.env.get('LAB_ID', os.getpid())}"
        self.failures = []
        self.n_fail_logged = 0
        self.checks = 0
        self.cons_checks = 0
        self.kernel_checks = 0
        self.changes = {}
        self.refused_ok = 0
        self.console_queries = 0
        self.tel_queries = 0
        self.metrics_scrapes = 0
        self.metrics_fail = 0
        self.rss = []                  # (tick, kB)
        self.threads = []              # (tick, threads of the process)
        self.fds = []                  # (tick, open fds of the process)
        self.mbufs = []                # (tick, outside)
        self.gap_mbufs = []            # (round, outside after the drain)
        self.rounds = []               # per round: dict
        self.senders = []              # Popen of the current round
        self.sent_total = 0            # every frame the senders put on the wire
        self.sent_since_clear = 0
        self.cum = {"rx": 0, "kdrops": 0, "kpackets": 0, "ipackets": 0, "if_rx": 0,
                    "delivered": 0, "drops": 0}
        self.clears = 0
        self.mc = None
        self.con = None
        self.tel = None
        self.prev = None               # last counters, for monotonicity
        self.stopped_rx = None         # rx_frames seen first while stopped
        # the model of mcfan's live state
        self.joined = set(range(1, N_TRAFFIC + 1))
        self.fanout_default = "partition"
        self.fanout = {g: "partition" for g in self.joined}
        self.burst = 32
        self.policy = {RX_LCORE: "poll", WK_LCORE: "poll"}
        self.running = True
        self.start_at = None           # tick of the start after a stop
        self.msacc_on = True
        self.msacc_on_at = None

    # ---------------------------------------------------------------- bookkeeping

    def check(self, cond, msg):
        self.checks += 1
        if not cond:
            self.failures.append(msg)
            if self.n_fail_logged < 50:
                log(f"FAIL: {msg}")
                self.n_fail_logged += 1
        return cond

    def count_change(self, kind):
        self.changes[kind] = self.changes.get(kind, 0) + 1

    def g(self, i):
        return f"{self.base}.{i}:{self.port}"

    # ---------------------------------------------------------------- processes

    def has_metrics(self):
        p = subprocess.run([self.a.mcfan, "--", "--help"], capture_output=True, text=True,
                           timeout=30)
        return "--metrics-listen" in p.stdout + p.stderr

    def start_mcfan(self):
        eal = ["--lcores", f"0@0,{RX_LCORE}@1,{WK_LCORE}@1", "--no-huge", "-m", "512",
               "--in-memory", "--file-prefix", self.prefix, "--no-pci",
               "--log-level", "lib.eal:warning",
               "--vdev", f"net_af_packet0,iface={self.vrcv},qpairs=1,framecnt={FRAMECNT}"]
        self.report_path = os.path.join(self.dir, "report.json")
        app = ["--rx-lcores", str(RX_LCORE), "--worker-lcores", f"{RX_LCORE}-{WK_LCORE}",
               "--groups", f"{self.base}.1-{N_TRAFFIC}:{self.port}", "-i",
               "--report-json", self.report_path]
        self.metrics = None
        if self.a.metrics == "auto" and self.has_metrics():
            self.metrics = self.a.metrics_listen
            app += ["--metrics-listen", self.metrics]
        elif self.a.metrics == "auto":
            log("SKIP metrics scraping: this mcfan has no --metrics-listen option")
        cmd = ["ip", "netns", "exec", self.rcv, self.a.mcfan, *eal, "--", *app]
        log("mcfan: " + " ".join(cmd))
        self.err = open(os.path.join(self.dir, "mcfan.stderr"), "w")
        self.mc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=self.err, text=True, bufsize=1)
        self.con = Console(self.mc, os.path.join(self.dir, "console.txt"))
        sock = self.sock = os.path.join("/var/run/dpdk", self.prefix, "dpdk_telemetry.v2")

        class P:     # what Telemetry() looks at to notice an early exit
            p = self.mc
        self.tel = Telemetry(sock, timeout=120, proc=P)
        if self.tel.wait_ready(timeout=120) is None:
            raise RuntimeError("mcfan's /mcfan/info did not answer within 120 s")
        # the start policies follow the placement (docs/idle.md "Defaults"): lcores 1 and 2
        # share CPU 1, so they sleep by default; the model starts from what mcfan says, and
        # says it, checked against the documented shared-CPU defaults
        idle, _ = self.tel.query("/mcfan/idle")
        self.policy = dict(zip(idle["lcore"], idle["policy"]))
        log(f"start policies (placement defaults): {self.policy}, why {idle.get('why')}")
        self.check(self.policy == {RX_LCORE: "backoff:none", WK_LCORE: "wake:none"},
                   f"lcores sharing CPU 1 start with the shared-CPU defaults: {self.policy}")
        self.pid = self.mc.pid
        with open(f"/proc/{self.pid}/comm") as f:
            comm = f.read().strip()
        self.check(comm.startswith("mcfan"), f"pid {self.pid} is mcfan, not {comm!r}")

    def start_round(self, r):
        count = self.a.pps * self.a.round
        limit = self.a.round + 20
        self.round_files = []
        self.senders = []
        for i in range(1, N_TRAFFIC + 1):
            out = os.path.join(self.dir, f"iperf-r{r}-{i}.txt")
            self.round_files.append(out)
            cmd = ["ip", "netns", "exec", self.snd, "timeout", "-s", "INT", "-k", "2",
                   str(limit), "iperf", "-c", f"{self.base}.{i}", "-u", "-p", str(self.port),
                   "-T", "1", "-l", str(self.a.len), "-n", str(count * self.a.len),
                   "-b", f"{self.a.pps}pps", "-e"]
            with open(out, "w") as f:
                self.senders.append(subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                                     stdin=subprocess.DEVNULL))
        self.round_count = count

    @staticmethod
    def iperf_writes(path):
        """iperf2 -e: the Write/Err column of the report line (as lab_iperf_report)."""
        w = e = -1
        hdr = False
        with open(path) as f:
            for line in f:
                if "Write/Err" in line:
                    hdr = True
                    continue
                if hdr and "sec" in line:
                    for tok in line.split():
                        m = re.fullmatch(r"(\d+)/(\d+)", tok)
                        if m:
                            w, e = int(m.group(1)), int(m.group(2))
        return w, e

    def finish_round(self, r):
        """Wait for the round's senders; return the frames they put on the wire."""
        end = time.monotonic() + self.a.round + 30
        rcs = []
        for p in self.senders:
            try:
                rcs.append(p.wait(timeout=max(1, end - time.monotonic())))
            except subprocess.TimeoutExpired:
                p.kill()
                rcs.append(p.wait())
        self.senders = []
        sent = 0
        for f, rc in zip(self.round_files, rcs):
            w, e = self.iperf_writes(f)
            self.check(rc == 0 and w == self.round_count and e == 0,
                       f"round {r}: sender {os.path.basename(f)}: exit {rc}, wrote {w} "
                       f"(errors {e}), expected {self.round_count}")
            # iperf2 writes COUNT datagrams, then one end-of-test datagram (test/lab/lab.sh)
            sent += (w if w >= 0 else 0) + 1
        return sent

    def kill_senders(self):
        for p in self.senders:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in self.senders:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        self.senders = []

    # ---------------------------------------------------------------- telemetry

    def q(self, cmd):
        self.tel_queries += 1
        v, _ = self.tel.query(cmd)
        return v

    def mbufs_outside(self):
        v = self.q("/mcfan/mempool")
        if not self.check(v is not None, "/mcfan/mempool answered null"):
            return None
        self.check(v["name"] == POOL and v["outside_pool"] + v["available"] == v["size"],
                   f"/mcfan/mempool: {v}")
        return v["outside_pool"]

    def sample(self, tick, extra=None):
        """The per-tick read: counters, ports, info (+ one more); checks; RSS, mbufs."""
        c = self.q("/mcfan/counters")
        p = self.q("/mcfan/ports")
        info = self.q("/mcfan/info")
        if not self.check(c is not None and p is not None and info is not None,
                          f"tick {tick}: a telemetry query answered null"):
            return None
        reasons = ["not_multicast", "not_udp", "malformed", "fragment", "unknown_group",
                   "ring_full", "control", "truncated"]
        dsum = sum(c.get(k, 0) for k in reasons)
        self.cons_checks += 1
        self.check(c["rx_frames"] == c["delivered_frames"] + c["drops_total"] and
                   c["drops_total"] == dsum,
                   f"tick {tick}: conservation broken: rx {c['rx_frames']} != delivered "
                   f"{c['delivered_frames']} + drops {c['drops_total']} (reasons {dsum})")
        self.check(c["copies_offered"] >= c["delivered_copies"] >= c["delivered_frames"],
                   f"tick {tick}: copies offered {c['copies_offered']} < delivered copies "
                   f"{c['delivered_copies']} or < delivered frames {c['delivered_frames']}")
        kp, kd, ip = p["kernel_packets"][0], p["kernel_drops"][0], p["ipackets"][0]
        self.kernel_checks += 1
        self.check(kp >= ip + kd and kp - ip - kd <= FRAMECNT,
                   f"tick {tick}: kernel line: kernel_packets {kp} vs ipackets {ip} + "
                   f"kernel_drops {kd} (in the ring: {kp - ip - kd}, at most {FRAMECNT})")
        self.check(ip >= c["rx_frames"],
                   f"tick {tick}: ipackets {ip} < rx_frames {c['rx_frames']} read before")
        if self.prev is not None:
            for k in ("rx_frames", "delivered_frames", "drops_total", "copies_offered"):
                self.check(c[k] >= self.prev[0][k],
                           f"tick {tick}: {k} went back: {self.prev[0][k]} -> {c[k]}")
            for k in ("kernel_packets", "kernel_drops", "ipackets"):
                self.check(p[k][0] >= self.prev[1][k][0],
                           f"tick {tick}: {k} went back: {self.prev[1][k][0]} -> {p[k][0]}")
        self.prev = (c, p)
        if not self.running:
            if self.stopped_rx is None:
                self.stopped_rx = c["rx_frames"]
            else:
                self.check(c["rx_frames"] == self.stopped_rx,
                           f"tick {tick}: RX stopped, yet rx_frames moved "
                           f"{self.stopped_rx} -> {c['rx_frames']}")
        # the model
        self.check(info["groups"] == len(self.joined),
                   f"tick {tick}: /mcfan/info groups {info['groups']}, model {len(self.joined)}")
        self.check(info["burst"] == self.burst,
                   f"tick {tick}: /mcfan/info burst {info['burst']}, model {self.burst}")
        self.check(info["fanout"] == self.fanout_default,
                   f"tick {tick}: /mcfan/info fanout {info['fanout']}, "
                   f"model {self.fanout_default}")
        rot = extra if extra is not None else ROTATE[tick % len(ROTATE)]
        v = self.q(rot)
        self.check(v is not None, f"tick {tick}: {rot} answered null")
        if v is not None and rot == "/mcfan/groups":
            got = sorted(zip(v["group"], v["udp_port"]))
            want = sorted((f"{self.base}.{i}", self.port) for i in self.joined)
            self.check(got == want and v["total"] == len(self.joined),
                       f"tick {tick}: /mcfan/groups {got}, model {want}")
        if v is not None and rot == "/mcfan/idle":
            got = dict(zip(v["lcore"], v["policy"]))
            want = {k: norm_policy(x) for k, x in self.policy.items()}
            self.check(got == want, f"tick {tick}: /mcfan/idle policies {got}, model {want}")
        # RSS, threads, fds and mbufs
        try:
            with open(f"/proc/{self.pid}/status") as f:
                st = f.read()
            m = re.search(r"^VmRSS:\s+(\d+) kB", st, re.M)
            self.rss.append((tick, int(m.group(1))))
            m = re.search(r"^Threads:\s+(\d+)", st, re.M)
            self.threads.append((tick, int(m.group(1))))
            self.fds.append((tick, len(os.listdir(f"/proc/{self.pid}/fd"))))
        except OSError:
            self.check(False, f"tick {tick}: cannot read /proc/{self.pid}/status")
        # then a second client, connected for one query only: EAL's telemetry thread per
        # connection must come and go without leaving a thread, an fd or memory behind
        try:
            t2 = Telemetry(self.sock, timeout=10)
            v2, _ = t2.query("/mcfan/counters")
            t2.close()
            self.tel_queries += 1
            self.check(v2 is not None and v2["rx_frames"] == v2["delivered_frames"] +
                       v2["drops_total"], f"tick {tick}: a new client's /mcfan/counters: {v2}")
        except (OSError, ValueError) as e:
            self.check(False, f"tick {tick}: a new telemetry client failed: {e}")
        mo = self.mbufs_outside()
        if mo is not None:
            self.mbufs.append((tick, mo))
        if self.metrics is not None:
            self.scrape(tick)
        return c, p

    def scrape(self, tick):
        self.metrics_scrapes += 1
        url = f"http://{self.metrics}/metrics"
        r = subprocess.run(["ip", "netns", "exec", self.rcv, "curl", "-s", "-f", "-m", "3",
                            url], capture_output=True, text=True, timeout=10)
        ok = r.returncode == 0 and r.stdout.strip() != ""
        if not ok:
            self.metrics_fail += 1
        self.check(ok, f"tick {tick}: metrics scrape of {url}: curl exit {r.returncode}")

    # ---------------------------------------------------------------- changes

    def console(self, cmd, expect_error=False, kind=None):
        out = self.con.run(cmd)
        self.check(out is not None, f"console: no answer to {cmd!r}")
        if out is None:
            return None
        errs = [ln for ln in out if ln.startswith("error: ")]
        if expect_error:
            ok = self.check(len(errs) == 1, f"console: {cmd!r} should be refused with one "
                                            f"error line, got {out}")
            if ok:
                self.refused_ok += 1
        else:
            self.check(not errs, f"console: {cmd!r} failed: {errs}")
        if kind is not None:
            self.count_change(kind)
        with open(os.path.join(self.dir, "changes.txt"), "a") as f:
            f.write(f"{self.tick}\t{cmd}\t{'; '.join(errs)}\n")
        return out

    def ranges(self, members):
        """Runs of consecutive numbers in members: [(a, b)]."""
        runs, s = [], sorted(members)
        for x in s:
            if runs and runs[-1][1] == x - 1:
                runs[-1][1] = x
            else:
                runs.append([x, x])
        return [tuple(r) for r in runs]

    def group_text(self, a, b):
        if a == b:
            return self.g(a)
        return f"{self.base}.{a}-{b}:{self.port}"

    def act(self, tick, phase, in_gap):
        """One change, chosen from (seed, model)."""
        rng = self.rng
        if self.start_at is not None and tick >= self.start_at:
            self.console("start", kind="start")
            self.running = True
            self.start_at = None
            self.stopped_rx = None
            return
        if self.msacc_on_at is not None and tick >= self.msacc_on_at:
            self.console("msacc on", kind="msacc on")
            self.msacc_on = True
            self.msacc_on_at = None
            return
        kinds = [("join", 14), ("leave", 12), ("fanout all", 5), ("fanout group", 8),
                 ("burst", 10), ("idle", 14), ("stop", 0 if in_gap else 7),
                 ("msacc", 4), ("refused", 6)]
        kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        unjoined = set(range(1, N_ADDR + 1)) - self.joined
        if kind == "join" and not unjoined:
            kind = "leave"
        if kind == "leave" and not self.joined:
            kind = "join"
        if kind == "fanout group" and not self.joined:
            kind = "fanout all"
        if kind == "stop":
            k = rng.choice([1, 1, 2, 2, 3, 6])
            if phase + k >= self.a.round - 1 or not self.running:
                kind = "burst"
        if kind == "join":
            runs = self.ranges(unjoined)
            a, b = rng.choice(runs)
            lo = rng.randint(a, b)
            hi = rng.randint(lo, min(b, lo + 2))
            text = self.group_text(lo, hi)
            w = rng.choice([None, None, "1", "2", "1-2"])
            self.console(f"join {text}" + (f" workers {w}" if w else ""), kind="join")
            for i in range(lo, hi + 1):
                self.joined.add(i)
                self.fanout[i] = self.fanout_default
        elif kind == "leave":
            a, b = rng.choice(self.ranges(self.joined))
            lo = rng.randint(a, b)
            hi = rng.randint(lo, min(b, lo + 2))
            self.console(f"leave {self.group_text(lo, hi)}", kind="leave")
            for i in range(lo, hi + 1):
                self.joined.discard(i)
                self.fanout.pop(i, None)
        elif kind == "fanout all":
            m = rng.choice(["partition", "replicate"])
            self.console(f"set fanout all {m}", kind="fanout")
            self.fanout_default = m
            for i in self.joined:
                self.fanout[i] = m
        elif kind == "fanout group":
            i = rng.choice(sorted(self.joined))
            m = rng.choice(["partition", "replicate"])
            self.console(f"set fanout {self.g(i)} {m}", kind="fanout")
            self.fanout[i] = m
            v = self.q(f"/mcfan/groups,{self.g(i)}")
            self.check(v is not None and v["fanout"] == m,
                       f"tick {tick}: /mcfan/groups,{self.g(i)} fanout "
                       f"{None if v is None else v['fanout']}, set {m}")
        elif kind == "burst":
            b = rng.choice(BURSTS)
            self.console(f"set burst {b}", kind="burst")
            self.burst = b
        elif kind == "idle":
            target = rng.choice(["rx", "worker", str(RX_LCORE), str(WK_LCORE)])
            lc = RX_LCORE if target in ("rx", str(RX_LCORE)) else WK_LCORE
            pol = rng.choice(["poll", "backoff", "backoff:T"] +
                             (["wake", "wake:T"] if lc == WK_LCORE else ["interrupt"]))
            if pol.endswith(":T"):
                pol = pol[:-1] + rng.choice(THRESHOLDS)
            if pol == "interrupt":
                # net_af_packet has no Rx queue interrupts: refused, nothing changes
                self.console(f"set idle {target} {pol}", expect_error=True, kind="refused")
            else:
                self.console(f"set idle {target} {pol}", kind="idle")
                self.policy[lc] = pol
        elif kind == "stop":
            self.console("stop", kind="stop")
            self.running = False
            self.stopped_rx = None
            self.start_at = tick + k
        elif kind == "msacc":
            what = rng.choice(["reset", "start", "off"])
            if what == "off" and self.msacc_on:
                self.console("msacc off", kind="msacc off")
                self.msacc_on = False
                self.msacc_on_at = tick + rng.randint(1, 4)
            elif what == "start":
                self.console(f"msacc start {rng.choice([500, 1000, 3000])}", kind="msacc start")
            else:
                self.console("msacc reset", kind="msacc reset")
        elif kind == "refused":
            bad = [f"set burst {rng.choice([0, 513, 4096])}", "set burst 0x20",
                   "set fanout all bogus", f"join {self.base}.300:{self.port}",
                   "join 10.0.0.1", f"join {self.g(1)} workers 9", "show bogus"]
            if self.joined:
                bad.append(f"join {self.g(rng.choice(sorted(self.joined)))}")
            if unjoined:
                bad.append(f"leave {self.g(rng.choice(sorted(unjoined)))}")
            bad.append("start" if self.running else "stop")
            if self.msacc_on and self.msacc_on_at is None:
                bad.append("msacc on")
            self.console(rng.choice(bad), expect_error=True, kind="refused")

    def show(self, tick):
        cmd = self.rng.choice(SHOWS)
        out = self.console(cmd)
        self.console_queries += 1
        if out is None:
            return
        if cmd == "show counters":
            m = [re.match(r"frames: rx (\d+) = delivered (\d+) \+ drops (\d+)", ln)
                 for ln in out]
            m = [x for x in m if x]
            self.cons_checks += 1
            self.check(len(m) == 1 and int(m[0].group(1)) ==
                       int(m[0].group(2)) + int(m[0].group(3)),
                       f"tick {tick}: show counters: {out[:1]}")
        if cmd == "show groups":
            m = [re.match(r"(\d+) of (\d+) groups", ln) for ln in out]
            m = [x for x in m if x]
            self.check(len(m) == 1 and int(m[0].group(1)) == len(self.joined),
                       f"tick {tick}: show groups says {out[-1:]}, model {len(self.joined)}")

    # ---------------------------------------------------------------- gaps and the end

    def drained(self, sent_since_clear, timeout=15):
        """Wait until what the senders sent since the clear is all counted; return the
        counters and ports (or the last ones read)."""
        end = time.monotonic() + timeout
        while True:
            c, p = self.q("/mcfan/counters"), self.q("/mcfan/ports")
            kd, kp, ip = p["kernel_drops"][0], p["kernel_packets"][0], p["ipackets"][0]
            if (c["rx_frames"] + kd == sent_since_clear and kp == ip + kd and
                    ip == c["rx_frames"]) or time.monotonic() > end:
                return c, p
            time.sleep(0.2)

    def gap(self, r, tick):
        sent = self.finish_round(r)
        self.sent_total += sent
        self.sent_since_clear += sent
        c, p = self.drained(self.sent_since_clear)
        kd, kp, ip = p["kernel_drops"][0], p["kernel_packets"][0], p["ipackets"][0]
        if_rx = p["rx_packets"][0]
        rx_cum = self.cum["rx"] + c["rx_frames"]
        kd_cum = self.cum["kdrops"] + kd
        self.kernel_checks += 1
        self.cons_checks += 1
        self.check(rx_cum + kd_cum == self.sent_total,
                   f"round {r}: sent {self.sent_total} != received {rx_cum} + kernel drops "
                   f"{kd_cum} (since the start, over {self.clears} clears)")
        self.check(kp == ip + kd and ip == c["rx_frames"],
                   f"round {r}: kernel line not exact at rest: kernel_packets {kp}, "
                   f"ipackets {ip}, kernel_drops {kd}, rx_frames {c['rx_frames']}")
        self.check(self.cum["if_rx"] + if_rx == self.sent_total,
                   f"round {r}: interface rx_packets {self.cum['if_rx'] + if_rx} != sent "
                   f"{self.sent_total}")
        mo = self.mbufs_outside()
        self.gap_mbufs.append((r, mo))
        self.check(mo == self.mbuf_baseline,
                   f"round {r}: {mo} mbufs outside the pool at rest, idle baseline "
                   f"{self.mbuf_baseline}")
        self.rounds.append({"round": r, "sent": sent, "rx": c["rx_frames"],
                            "kernel_drops": kd, "delivered": c["delivered_frames"],
                            "drops": c["drops_total"], "mbufs_outside": mo, "tick": tick})
        log(f"round {r}: sent {sent} (total {self.sent_total}); since the last clear rx "
            f"{c['rx_frames']} = delivered {c['delivered_frames']} + drops "
            f"{c['drops_total']}, kernel drops {kd}; mbufs outside {mo}; "
            f"RSS {self.rss[-1][1] if self.rss else '?'} kB")
        return c, p

    def clear(self, tick, c, p):
        """clear stats at rest: fold the counters into the sums first."""
        self.cum["rx"] += c["rx_frames"]
        self.cum["kdrops"] += p["kernel_drops"][0]
        self.cum["kpackets"] += p["kernel_packets"][0]
        self.cum["ipackets"] += p["ipackets"][0]
        self.cum["if_rx"] += p["rx_packets"][0]
        self.cum["delivered"] += c["delivered_frames"]
        self.cum["drops"] += c["drops_total"]
        self.console("clear stats", kind="clear stats")
        self.clears += 1
        self.sent_since_clear = 0
        self.prev = None
        c2, p2 = self.q("/mcfan/counters"), self.q("/mcfan/ports")
        self.check(c2["rx_frames"] == 0 and p2["kernel_packets"][0] == 0 and
                   p2["ipackets"][0] == 0 and p2["rx_packets"][0] == 0,
                   f"tick {tick}: after clear stats at rest: rx {c2['rx_frames']}, kernel "
                   f"{p2['kernel_packets'][0]}, ipackets {p2['ipackets'][0]}, if rx "
                   f"{p2['rx_packets'][0]}")

    def final(self):
        out = self.con.run("quit", timeout=60)
        try:
            rc = self.mc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.mc.kill()
            rc = self.mc.wait()
        self.con.t.join(10)
        self.check(rc == 0, f"mcfan exit status {rc} after quit")
        text = self.con.all_text()
        self.check("(MISMATCH)" not in text and "(LEAK)" not in text,
                   "the text report says MISMATCH or LEAK")
        self.check("frames still queued" not in text.split("==== mcfan report")[-1],
                   "the final text report's kernel line is not exact")
        try:
            with open(self.report_path) as f:
                rep = json.load(f)
        except (OSError, ValueError) as e:
            self.check(False, f"no JSON report: {e}")
            return None
        drops = sum(rep["drops"].values())
        port = rep["ports"][0]
        kd = port["kernel_drops"]
        self.cons_checks += 1
        self.kernel_checks += 1
        self.check(rep["rx_frames"] == rep["delivered_frames"] + drops,
                   f"report: rx {rep['rx_frames']} != delivered {rep['delivered_frames']} + "
                   f"drops {drops}")
        self.check(rep["rx_frames"] + kd == self.sent_since_clear,
                   f"report: rx {rep['rx_frames']} + kernel drops {kd} != sent since the "
                   f"last clear {self.sent_since_clear}")
        self.check(port["kernel_packets"] == port["ipackets"] + kd and
                   port["ipackets"] == rep["rx_frames"],
                   f"report: kernel line kernel_packets {port['kernel_packets']} = ipackets "
                   f"{port['ipackets']} + kernel_drops {kd}, rx {rep['rx_frames']}")
        self.check(rep["mbufs_outside_pool"] == 0,
                   f"report: mbufs_outside_pool {rep['mbufs_outside_pool']}")
        self.check(self.cum["rx"] + rep["rx_frames"] + self.cum["kdrops"] + kd ==
                   self.sent_total,
                   f"whole run: received {self.cum['rx'] + rep['rx_frames']} + kernel drops "
                   f"{self.cum['kdrops'] + kd} != sent {self.sent_total}")
        return rep

    # ---------------------------------------------------------------- main loop

    def run(self):
        a = self.a
        period = a.round + a.gap
        n_rounds = max(1, a.duration // period)
        n_ticks = n_rounds * period
        log(f"seed {a.seed}; {n_rounds} rounds of {a.round} s sending + {a.gap} s quiet "
            f"({n_ticks} s); {N_TRAFFIC} groups x {a.pps} datagrams/s of {a.len} bytes")
        self.tick = -1
        self.start_mcfan()
        # idle baseline of the mbufs outside the pool: before any traffic
        time.sleep(1)
        self.mbuf_baseline = self.mbufs_outside()
        log(f"mbufs outside the pool before traffic: {self.mbuf_baseline}")
        t0 = time.monotonic()
        rep = None
        for tick in range(n_ticks):
            self.tick = tick
            d = t0 + tick - time.monotonic()
            if d > 0:
                time.sleep(d)
            r, phase = divmod(tick, period)
            in_gap = phase >= a.round
            if phase == 0:
                self.start_round(r)
            if phase == a.round:
                c, p = self.gap(r, tick)
                # never in the last gap: the final report must count the last round
                if self.rng.random() < a.clear_prob and r < n_rounds - 1:
                    self.clear(tick, c, p)
                    self.sample(tick)
                    continue
            self.act(tick, phase, in_gap)
            self.show(tick)
            self.sample(tick)
            if self.mc.poll() is not None:
                self.check(False, f"tick {tick}: mcfan exited ({self.mc.returncode})")
                break
            if tick % 60 == 59:
                log(f"tick {tick + 1}: {sum(self.changes.values())} changes, "
                    f"{self.checks} checks, {len(self.failures)} failed")
        if self.mc.poll() is None:
            rep = self.final()
        self.summary(n_ticks, rep)
        return 0 if not self.failures else 1

    def summary(self, n_ticks, rep):
        a = self.a
        rss = [kb for _, kb in self.rss]
        after = [kb for t, kb in self.rss if t >= 60]
        base60 = after[0] if after else None
        growth = (max(after) - base60) if after else None
        if after:
            self.check(growth < a.rss_bound_kib,
                       f"RSS grew {growth} kB after the first minute (bound {a.rss_bound_kib})")
        mb = [m for _, m in self.mbufs]
        # threads and fds: the same at the end as after the first minute (the query
        # client's thread is there at every sample; the one-query client is gone)
        th = {t: n for t, n in self.threads}
        fd = {t: n for t, n in self.fds}
        late = [t for t in th if t >= 60] or list(th)
        if late:
            self.check(th[late[-1]] == th[late[0]] and fd[late[-1]] == fd[late[0]],
                       f"threads {th[late[0]]} -> {th[late[-1]]}, fds {fd[late[0]]} -> "
                       f"{fd[late[-1]]} from tick {late[0]} to the end")
        s = {
            "seed": a.seed, "duration_s": n_ticks, "rounds": len(self.rounds),
            "changes": dict(sorted(self.changes.items())),
            "changes_total": sum(self.changes.values()),
            "refused_as_expected": self.refused_ok,
            "console_queries": self.console_queries,
            "telemetry_queries": self.tel_queries,
            "conservation_checks": self.cons_checks,
            "kernel_checks": self.kernel_checks,
            "checks": self.checks, "failed": len(self.failures),
            "rss_kib": {"first": rss[0] if rss else None, "at_60s": base60,
                        "last": rss[-1] if rss else None, "max": max(rss) if rss else None,
                        "growth_after_60s": growth, "bound": a.rss_bound_kib},
            "threads": {"first": self.threads[0][1] if self.threads else None,
                        "max": max(n for _, n in self.threads) if self.threads else None,
                        "last": self.threads[-1][1] if self.threads else None},
            "fds": {"first": self.fds[0][1] if self.fds else None,
                    "max": max(n for _, n in self.fds) if self.fds else None,
                    "last": self.fds[-1][1] if self.fds else None},
            "mbufs_outside_pool": {"idle_baseline": self.mbuf_baseline,
                                   "max_under_traffic": max(mb) if mb else None,
                                   "at_rest_per_round": [m for _, m in self.gap_mbufs],
                                   "final_report": None if rep is None else
                                   rep["mbufs_outside_pool"]},
            "sent_frames": self.sent_total, "clears": self.clears,
            "kernel_drops": self.cum["kdrops"] + (0 if rep is None else
                                                  rep["ports"][0]["kernel_drops"]),
            "metrics": (f"{self.metrics_scrapes} scrapes, {self.metrics_fail} failed"
                        if self.metrics else "skipped: no --metrics-listen"),
            "failures": self.failures[:50],
        }
        if a.summary:
            with open(a.summary, "w") as f:
                json.dump(s, f, indent=1)
        print("\n==== soak summary ====")
        for k, v in s.items():
            if k != "failures":
                print(f"  {k}: {v}")
        for f in self.failures[:20]:
            print(f"  FAIL: {f}")
        print(f"soak: {'PASS' if not self.failures else 'FAIL'}: {self.checks} checks, "
              f"{len(self.failures)} failed", flush=True)

    def shutdown(self):
        self.kill_senders()
        if self.mc is not None and self.mc.poll() is None:
            self.mc.send_signal(signal.SIGINT)
            try:
                self.mc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.mc.kill()
                self.mc.wait()
        if self.tel is not None:
            self.tel.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=int, default=1800,
                    help="seconds, rounded down to whole rounds (default 1800 = 30 min)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--root", default=os.path.join(HERE, "..", ".."))
    ap.add_argument("--mcfan", help="mcfan binary (default ROOT/build/app/mcfan/mcfan)")
    ap.add_argument("--pps", type=int, default=100, help="datagrams/s per group (default 100)")
    ap.add_argument("--len", type=int, default=200, help="UDP payload bytes (default 200)")
    ap.add_argument("--round", type=int, default=56, help="seconds of sending a round (56)")
    ap.add_argument("--gap", type=int, default=4, help="quiet seconds after a round (4)")
    ap.add_argument("--clear-prob", type=float, default=0.5,
                    help="chance of a clear stats in a gap (0.5)")
    ap.add_argument("--rss-bound-kib", type=int, default=1024,
                    help="allowed RSS growth after the first minute, KiB (1024)")
    ap.add_argument("--metrics", choices=["auto", "off"], default="auto")
    ap.add_argument("--metrics-listen", default="127.0.0.1:9109",
                    help="address for --metrics-listen, if the binary has it")
    ap.add_argument("--log-dir", help="keep the logs here (default: the lab directory, "
                                      "removed at the end)")
    ap.add_argument("--summary", help="write the summary as JSON to this file")
    a = ap.parse_args()
    if a.mcfan is None:
        a.mcfan = os.path.join(a.root, "build", "app", "mcfan", "mcfan")
    a.mcfan = os.path.abspath(a.mcfan)
    if not os.access(a.mcfan, os.X_OK):
        print(f"soak: no mcfan binary at {a.mcfan}", file=sys.stderr)
        return 2
    if a.duration < a.round + a.gap or a.pps < 1 or a.round < 10 or a.gap < 2:
        print("soak: --duration must hold one round (--round >= 10 + --gap >= 2)",
              file=sys.stderr)
        return 2
    if "LAB_SND" not in os.environ:
        print("soak: run test/soak/soak.sh (it makes the lab)", file=sys.stderr)
        return 2

    def on_signal(signum, frame):
        raise Stop()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    s = Soak(a)
    try:
        return s.run()
    except Stop:
        log("stopped by a signal; stopping mcfan and the senders")
        return 130
    finally:
        s.shutdown()


if __name__ == "__main__":
    sys.exit(main())
