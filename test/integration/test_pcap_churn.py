#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The pcap engine's file lifetime under group churn (docs/delivery.md, "pcap"): the file of a
left membership is closed once the writer has written every copy of it, and never before.
A veth pair (frames from 198.18.41.0/24, IPv6 off), net_af_packet on one end, frames sent into
the other with an AF_PACKET socket; the console on a pipe (-i) joins and leaves a new group
each cycle, each getting 1 to 3 frames, with the last LAG groups still joined.
Case churn: CYCLES cycles with the writer keeping up: at no time more than a few files open;
at the end exactly the files of the groups still joined (with copies) are open, each left
group has exactly one file (no close before its last copy: a copy after it would open a
second) holding exactly its frames (read here block by block and by capinfos, the frames'
groups checked), and every copy is pcap_written, none pcap_write_failed.
Case lag: the same while the writer thread (mcfan-pcap) is held stopped with ptrace (that
thread only; SIGSTOP would stop the whole process) for the most part of the churn, so the
slot drains end while the copies of the left groups still wait in the writer's ring; then a
flood of the joined group's frames fills the ring (pcap_full). Released, the writer writes
every queued copy into its group's one file and closes the left groups' files: the same
checks, and pcap_written + pcap_full = the copies delivered.
Case hosted: case lag with two worker lcores hosted by the RX lcore (docs/idle.md "Hosted
workers": their steps run in its thread, their copies share local references) and fan-out
replicate: each group has one file per worker lcore, each with all its frames.
Needs root (else 77). Usage: test_pcap_churn.py MCFAN_BINARY [churn|lag|hosted]"""

import atexit
import ctypes
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-pcapchurn-")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
IF_A, IF_B = f"trR{os.getpid() % 10000}a", f"trR{os.getpid() % 10000}b"
PORT = 3999
SRC = "198.18.41.1"
BASE = "239.41.250.1"          # joined at start, the whole run
CYCLES = 300
LAG = 3                        # cycle i leaves the group of cycle i - LAG
# main lcore and the worker on CPU 0, the RX lcore on CPU 1 (the pcap writer thread runs on
# the main lcore's CPU set); hosted: workers 2 and 3 on the RX lcore's CPU
LCORES = "0@0,1@1,2@0"
LCORES_HOSTED = "0@0,1@1,2@1,3@1"
PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH, WALL = 0x4206, 0x4207, 17, 0x40000000


def ip(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True)


def group(i):
    return f"239.41.{i // 200}.{i % 200 + 1}"


def frames_of(i):
    return 1 + i % 3


class Console:
    """mcfan -i on pipes; stdout and stderr read by threads."""

    def __init__(self, name, pdir, lcores, workers, extra=()):
        self.report = os.path.join(TMP, f"report-{name}.json")
        self.eal = t.eal_lcores(lcores, f"trR-{name}-{os.getpid()}",
                                [f"net_af_packet0,iface={IF_A}"])
        cmd = [t.mcfan_path(), *self.eal, "--", "--groups", f"{BASE}:{PORT}",
               "--rx-lcores", "1", "--worker-lcores", ",".join(str(w) for w in workers),
               "--worker-engine", f"pcap:{pdir}", "-i", "--report-json", self.report, *extra]
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        self.cond = threading.Condition()
        self.th = [threading.Thread(target=self._read, args=(s, lst), daemon=True)
                   for s, lst in ((self.p.stdout, self.out), (self.p.stderr, self.err))]
        for th in self.th:
            th.start()

    def _read(self, stream, lst):
        for line in stream:
            with self.cond:
                lst.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait(self, lst, substr, count=1, timeout=30):
        end = time.monotonic() + timeout
        with self.cond:
            while sum(substr in ln for ln in lst) < count:
                left = end - time.monotonic()
                if left <= 0 or self.p.poll() is not None:
                    return False
                self.cond.wait(min(left, 0.1))
        return True

    def cmd(self, line, reply, count=1):
        """Type line; wait for the count-th line of stdout holding reply."""
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.wait(self.out, reply, count)

    def finish(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.flush()
        except OSError:
            pass
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        for th in self.th:
            th.join(5)
        t.remove_runtime_dir(self.eal)
        return self.p.returncode, t.load_report(self.report)


def pcap_fds(pid, pdir):
    held = []
    for f in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{f}")
        except OSError:
            continue
        if target.startswith(pdir + "/"):
            held.append(target)
    return held


def wait_fds(pid, pdir, want, timeout=30):
    """Wait until exactly want pcap files are open; return the list last seen."""
    end = time.monotonic() + timeout
    while True:
        held = pcap_fds(pid, pdir)
        if len(held) == want or time.monotonic() > end:
            return held
        time.sleep(0.1)


def writer_tid(pid):
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() == "mcfan-pcap":
                    return int(tid)
        except OSError:
            pass
    return None


class ThreadStop:
    """Hold one thread stopped (ptrace seize and interrupt: that thread alone, no signal)."""

    def __init__(self, tid):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                                     ctypes.c_void_p]
        self.libc.ptrace.restype = ctypes.c_long
        self.tid = tid
        self.held = False

    def stop(self):
        if self.libc.ptrace(PTRACE_SEIZE, self.tid, None, None) != 0:
            return f"PTRACE_SEIZE: {os.strerror(ctypes.get_errno())}"
        if self.libc.ptrace(PTRACE_INTERRUPT, self.tid, None, None) != 0:
            return f"PTRACE_INTERRUPT: {os.strerror(ctypes.get_errno())}"
        os.waitpid(self.tid, WALL)
        self.held = True
        return None

    def cont(self):
        if self.held:
            self.libc.ptrace(PTRACE_DETACH, self.tid, None, None)
            self.held = False


def send(grp, n):
    t.packet_send(IF_B, [t.udp4_frame(grp, PORT, data=b"c" * 60, src=SRC)], n)


def pcapng_blocks(path):
    """The frames (Enhanced Packet Blocks' data) of a pcapng file, and whether its blocks
    chain to the end exactly."""
    with open(path, "rb") as f:
        b = f.read()
    out, off = [], 0
    while off + 12 <= len(b):
        typ, blen = struct.unpack_from("<II", b, off)
        if blen < 12 or off + blen > len(b):
            return out, False
        if typ == 6:
            cap = struct.unpack_from("<I", b, off + 20)[0]
            out.append(b[off + 28:off + 28 + cap])
        off += blen
    return out, off == len(b)


def capinfos_counts(paths):
    """{path: frames} as capinfos (Wireshark's wiretap) reads them; None if it failed."""
    got = {}
    for k in range(0, len(paths), 100):
        p = subprocess.run(["capinfos", "-c", "-M", "-T", "-r", *paths[k:k + 100]],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"capinfos: {p.stderr.strip()[-500:]}", flush=True)
            return None
        for ln in p.stdout.splitlines():
            f = ln.split("\t")
            if len(f) == 2:
                got[f[0]] = int(f[1])
    return got


def check_files(what, pdir, want, nw, full_group=None):
    """Every file of pdir: one a group and worker lcore (SEQ 00001), the group's frames
    exactly want[group] x nw (the group full_group: left out), each frame of its group."""
    names = sorted(os.listdir(pdir))
    by_group, bad = {}, []
    for n in names:
        m = re.fullmatch(r"mcfan-(\d+\.\d+\.\d+\.\d+)_(\d+)-w(\d+)-(\d{5})\.pcapng", n)
        if m is None:
            bad.append(n)
            continue
        by_group.setdefault(m.group(1), []).append((m.group(3), m.group(4), n))
    t.check_eq(bad, [], f"{what}: every file a series' file")
    several = {g: v for g, v in by_group.items()
               if len(v) != nw or len({w for w, _, _ in v}) != nw or
               any(seq != "00001" for _, seq, _ in v)}
    t.check(not several, f"{what}: one file a group, 00001 (no close before its last copy): "
            f"{len(several)} groups have others, e.g. {sorted(several.items())[:3]}")
    paths = [os.path.join(pdir, n) for n in names]
    cap = capinfos_counts(paths)
    t.check(cap is not None, f"{what}: capinfos reads all {len(paths)} files")
    counts, mismatch, torn, wrong_group = {}, [], [], []
    for g, files in by_group.items():
        for _, _, n in files:
            path = os.path.join(pdir, n)
            frames, whole = pcapng_blocks(path)
            if not whole:
                torn.append(n)
            if cap is not None and cap.get(path) != len(frames):
                mismatch.append((n, cap.get(path), len(frames)))
            for fr in frames:
                if len(fr) < 34 or ".".join(str(x) for x in fr[30:34]) != g:
                    wrong_group.append(n)
                    break
            counts[g] = counts.get(g, 0) + len(frames)
    t.check_eq(torn[:5], [], f"{what}: every file's blocks whole")
    t.check_eq(mismatch[:5], [], f"{what}: capinfos counts what the blocks hold")
    t.check_eq(wrong_group[:5], [], f"{what}: every frame in its group's file")
    diff = sorted((g, counts.get(g, 0), n * nw) for g, n in want.items()
                  if g != full_group and counts.get(g, 0) != n * nw)
    diff += sorted((g, n, 0) for g, n in counts.items() if g not in want)
    t.check(not diff, f"{what}: frames per group in the files = frames sent: {len(diff)} "
            f"differ, (group, in files, sent): {diff[:5]}")
    return counts


def churn(c, pdir, what, stopper=None, stop_at=None, resume_at=None):
    """CYCLES cycles; the writer held stopped from cycle stop_at to resume_at. Returns
    ({group: frames sent}, most pcap files open at once)."""
    want = {BASE: 0}
    most = 0
    for i in range(CYCLES):
        if stopper is not None and i == stop_at:
            why = stopper.stop()
            if why is not None:
                t.check(False, f"{what}: writer thread held stopped ({why})")
                stopper = None
        if stopper is not None and i == resume_at:
            stopper.cont()
        g = group(i)
        if not t.check(c.cmd(f"join {g}:{PORT}", f"joined {g}:{PORT}:"),
                       f"{what}: cycle {i}: join answered"):
            break
        send(g, frames_of(i))
        want[g] = frames_of(i)
        if i >= LAG:
            old = group(i - LAG)
            if not t.check(c.cmd(f"leave {old}:{PORT}", f"left {old}:{PORT}:"),
                           f"{what}: cycle {i}: leave answered"):
                break
        if i % 10 == 0:
            send(BASE, 1)
            want[BASE] += 1
            most = max(most, len(pcap_fds(c.p.pid, pdir)))
    if stopper is not None:
        stopper.cont()
    return want, most


def case(name, lag, hosted=False):
    what = f"[{name}]"
    pdir = os.path.join(TMP, f"pcap-{name}")
    os.mkdir(pdir)
    workers = [2, 3] if hosted else [2]
    nw = len(workers)
    c = Console(name, pdir, LCORES_HOSTED if hosted else LCORES, workers,
                ["--fanout", "replicate"] if hosted else [])
    stopper = None
    try:
        if not t.check(c.wait(c.err, "running:", timeout=60), f"{what}: mcfan runs"):
            return
        time.sleep(0.3)
        if lag:
            tid = writer_tid(c.p.pid)
            if not t.check(tid is not None, f"{what}: the writer thread mcfan-pcap"):
                return
            stopper = ThreadStop(tid)
        t0 = time.monotonic()
        want, most = churn(c, pdir, what, stopper, CYCLES // 6, CYCLES - CYCLES // 6)
        flood = 0
        if lag:
            # while held again: the joined group's frames fill the writer's ring (2048)
            why = stopper.stop()
            t.check(why is None, f"{what}: writer held for the flood ({why})")
            flood = 3000
            t.packet_burst(IF_B, [t.udp4_frame(BASE, PORT, data=b"f" * 60, src=SRC)] * flood)
            time.sleep(1.0)
            stopper.cont()
            want[BASE] += flood
        print(f"{what}: {CYCLES} cycles in {time.monotonic() - t0:.1f} s, most pcap files "
              f"open at once {most}", flush=True)
        # the LAG groups of the last cycles and BASE joined, with copies: their files alone
        held = wait_fds(c.p.pid, pdir, (LAG + 1) * nw)
        names = sorted(os.path.basename(h) for h in held)
        t.check_eq(len(held), (LAG + 1) * nw, f"{what}: pcap files open after the churn: the "
                   f"joined groups' ({names[:8]}{' ...' if len(names) > 8 else ''})")
        joined = {f"{group(i)}_{PORT}" for i in range(CYCLES - LAG, CYCLES)} | {
            f"{BASE}_{PORT}"}
        open_groups = {re.sub(r"^mcfan-(.*)-w\d+-\d+\.pcapng$", r"\1", n) for n in names}
        t.check(open_groups == joined, f"{what}: the open files are the joined groups' "
                f"({sorted(joined)}), not {sorted(open_groups - joined)[:8]}")
        if not lag:
            t.check(most <= 2 * LAG + 4, f"{what}: at most {2 * LAG + 4} files open at once "
                    f"during the churn: {most}")
        # leaving the rest closes theirs too (BASE's stays)
        for i in range(CYCLES - LAG, CYCLES):
            c.cmd(f"leave {group(i)}:{PORT}", f"left {group(i)}:{PORT}:")
        held = sorted(os.path.basename(h) for h in wait_fds(c.p.pid, pdir, nw))
        t.check(held == [f"mcfan-{BASE}_{PORT}-w{w}-00001.pcapng" for w in workers],
                f"{what}: after the last leaves, BASE's file alone open: {len(held)} open "
                f"({held[:4]}{' ...' if len(held) > 4 else ''})")
    finally:
        if stopper is not None:
            stopper.cont()
        rc, rep = c.finish()
    err = "\n".join(c.err)
    t.check_eq(rc, 0, f"{what}: exit status ({err[-300:]!r})")
    t.check_eq([ln for ln in c.err if "pcap:" in ln and "writer thread" not in ln], [],
               f"{what}: the pcap writer logged nothing but its start")
    if not t.check(rep is not None, f"{what}: JSON report"):
        return
    rows = {g["group"]: g["frames"] for g in rep["groups"]}
    diff = sorted((g, rows.get(g), n) for g, n in want.items() if rows.get(g) != n)
    t.check(not diff, f"{what}: the report's frames per group = frames sent: {len(diff)} "
            f"differ, (group, report, sent): {diff[:5]}")
    ecs = [lc.get("engine_counters", {}) for lc in rep["lcores"] if "worker" in lc["role"]]
    t.check_eq(len(ecs), nw, f"{what}: worker lcores in the report")
    ec = {k: sum(e.get(k, 0) for e in ecs) for k in ("pcap_written", "pcap_full",
                                                      "pcap_write_failed", "pcap_pending")}
    copies = sum(g["copies"] for g in rep["groups"])
    t.check_eq(copies, sum(want.values()) * nw, f"{what}: copies = frames x {nw}")
    if hosted:
        t.check(rep.get("hosted_workers", "").startswith(
            "auto (2 worker lcores on CPU 1 of RX lcore 1"),
            f"{what}: the workers are hosted: {rep.get('hosted_workers')!r}")
    t.check_eq(ec.get("pcap_write_failed"), 0, f"{what}: pcap_write_failed 0 ({ec})")
    t.check_eq(ec.get("pcap_pending"), 0, f"{what}: pcap_pending 0 at exit")
    t.check_eq(ec.get("pcap_written", 0) + ec.get("pcap_full", 0), copies,
               f"{what}: pcap_written + pcap_full = the copies delivered ({ec})")
    if lag:
        t.check(ec.get("pcap_full", 0) > 0, f"{what}: the flood filled the ring: {ec}")
    else:
        t.check_eq(ec.get("pcap_full"), 0, f"{what}: pcap_full 0")
    counts = check_files(what, pdir, want, nw, BASE if lag else None)
    t.check_eq(sum(counts.values()), ec.get("pcap_written"),
               f"{what}: the files' frames = pcap_written")
    if lag:
        t.check_eq(counts.get(BASE, 0) + ec.get("pcap_full", 0), want[BASE] * nw,
                   f"{what}: BASE's frames in its file + pcap_full = BASE's frames")


def main():
    which = sys.argv[2:] or ["churn", "lag", "hosted"]
    if shutil.which("capinfos") is None:
        print("test_pcap_churn: no capinfos (Wireshark), skipping")
        sys.exit(77)
    t.veth_pair_or_skip("test_pcap_churn", IF_A, IF_B, up=True)
    try:
        if "churn" in which:
            case("churn", False)
        if "lag" in which:
            case("lag", True)
        if "hosted" in which:
            case("hosted", True, True)
    finally:
        ip("link", "del", IF_A)
    t.finish("pcap_churn")


if __name__ == "__main__":
    main()
