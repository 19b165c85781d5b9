#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Reader processes on the readers engine (docs/readers.md), in the lab (test/lab/lab.sh).

mcfan (net_af_packet on the lab's veth, 2 workers, --worker-engine readers, reader rings of
256 frames) receives iperf2 multicast to 239.9.9.1-10:3999. Around it, ordinary processes
read the groups' rings through libmcfan-reader:
  - 100 readers, 10 per group: 9 mcfan-read (C; as user nobody when possible: no root; one
    of them --zero-copy) and 1 tools/mcfan_reader.py (the ctypes binding); every one must read exactly the group's
    frames, lose none, and its count must equal mcfan's per-group count and the wire's
    (iperf2 writes COUNT datagrams and one end-of-test datagram per group, test_lab.py);
  - one deliberately slow Python reader on 239.9.9.1 (it sleeps): it must be lapped, and
    report exactly the frames it lost: lost = frames written - frames it read, lost > 0;
  - 5 victims (mcfan-read on 239.9.9.2-6), killed with SIGKILL mid-run: mcfan runs on, shows
    them dead in `show readers` and /mcfan/readers, the text report's "readers now" counts
    the live readers only (and the 5 dead apart), and the others' counts stay exact.
`show readers` (console, -i on a pipe) and /mcfan/readers (telemetry socket) must list every
reader with its pid; a group joined later from the console gets its ring at the join, freed
after its leave (retired_freed 1); at
exit the rings are removed from /dev/shm. A bad --reader-ring-frames is refused (exit 2)
naming the value.

Before the lab, without it (net_pcap): replicate over 2 workers writes each frame into the
ring once (by the group's one writer; the other worker's copies are counted not_owner),
frames of two mbuf segments arrive whole (bytes equal), frames longer than a slot count as
reader_too_big and are not written; readers started late with --oldest get every frame.

Usage: test_readers.py MCFAN_BINARY. Exit 77 (skip) when not root or without `ip netns`.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import labtest
import mcfantest as t

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")

NGROUPS = 10
COUNT = 1000         # datagrams per group
LEN = 100            # UDP payload bytes
PPS = 200            # per group: 2,000 frames/s in all, 5 s
PORT = 3999
RING = 256           # --reader-ring-frames: the slow reader is lapped soon
PER_GROUP = 10       # readers per group (9 mcfan-read + 1 Python)
VICTIMS = 5
SLOW_EVERY, SLOW_MS = 20, 400   # the slow reader: 400 ms after every 20 frames (50/s)
GROUPS = [f"239.9.9.{i}" for i in range(1, NGROUPS + 1)]


skip = labtest.skipper("readers")


def Lab():
    """The lab of this test: LAB_ID rdPID (12 characters at most)."""
    return labtest.Lab(ident=f"rd{os.getpid()}"[:12], dir_name="readers", port=PORT)


def reader_bin():
    """build/app/mcfan-read/mcfan-read beside the mcfan binary's build tree."""
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(t.mcfan_path()))))
    return os.path.join(build, "app", "mcfan-read", "mcfan-read"), \
        os.path.join(build, "lib", "libmcfan-reader.so.1")


def nobody_prefix(binary):
    """setpriv to user nobody if it can run the reader there, else nothing (root)."""
    if shutil.which("setpriv") is None:
        return []
    pre = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    p = subprocess.run(pre + [binary, "--help"], capture_output=True, text=True)
    return pre if p.returncode == 0 else []


class Reader:
    def __init__(self, cmd, group, kind, env=None):
        self.group, self.kind = group, kind
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, text=True, env=env)
        self.pid = self.p.pid
        self.out = ""
        self.err = ""

    def finish(self, timeout):
        try:
            self.out, self.err = self.p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.out, self.err = self.p.communicate()
        return self.p.returncode

    def result(self):
        lines = [ln for ln in self.out.splitlines() if ln.startswith("{")]
        try:
            return json.loads(lines[-1]) if lines else None
        except ValueError:
            return None


def remove_rings(prefix):
    """Remove the rings of a run whose mcfan was killed (mcfan removes them at exit)."""
    for f in os.listdir("/dev/shm"):
        if f.startswith(f"mcfan.{prefix}."):
            os.unlink(os.path.join("/dev/shm", f))


def pcap_phase(mcfan, rd_bin):
    """replicate, two-segment frames and reader_too_big, on net_pcap (no lab)."""
    work = tempfile.mkdtemp(prefix="mcfan-readers-pcap-")
    prefix = f"mcfan-readers-pcap-{os.getpid()}"
    mc = None
    rds = {}
    seq_rd = None
    try:
        pcap = os.path.join(work, "in.pcap")
        frames, want_bytes = [], {"239.9.9.1": 0, "239.9.9.2": 0}
        for i in range(400):
            g = "239.9.9.1" if i % 4 else "239.9.9.2"
            fr = t.udp4_frame(g, PORT, data=i.to_bytes(4, "big") + b"p" * (20 + i % 300))
            frames.append(fr)
            want_bytes[g] += len(fr)
        for i in range(6):   # 1,992 bytes: two mbuf segments (2,048 - headroom), fits a slot
            fr = t.udp4_frame("239.9.9.1", PORT, data=b"s" * 1950)
            frames.append(fr)
            want_bytes["239.9.9.1"] += len(fr)
        big = [t.udp4_frame("239.9.9.1", PORT, data=b"b" * 2100) for _ in range(3)]
        frames += big   # 2,142 bytes: longer than a slot's 2,016
        # an IPv6 group, and a group joined without a port (its ring's name ends in .0)
        want_bytes["[ff3e::1]:5000"] = want_bytes["239.7.7.7"] = 0
        for i in range(50):
            fr = t.udp6_frame("ff3e::1", 5000, data=b"6" * (10 + i))
            frames.append(fr)
            want_bytes["[ff3e::1]:5000"] += len(fr)
            fr = t.udp4_frame("239.7.7.7", 6000 + i, data=b"a" * 30)
            frames.append(fr)
            want_bytes["239.7.7.7"] += len(fr)
        t.write_pcap(pcap, frames)
        want_frames = {"239.9.9.1": 300 + 6, "239.9.9.2": 100, "[ff3e::1]:5000": 50,
                       "239.7.7.7": 50}
        eal = t.eal_lcores("0@0,1@1,2@1,3@0", prefix, [f"net_pcap0,rx_pcap={pcap}"])
        report = os.path.join(work, "report.json")
        app = ["--rx-lcores", "1", "--worker-lcores", "2-3", "--groups",
               f"239.9.9.1-2:{PORT},[ff3e::1]:5000,239.7.7.7",
               "--fanout", "replicate", "--worker-engine", "readers", "--duration", "6",
               "--report-json", report]
        mc = t.McfanProcess(eal, app)
        if not t.check(mc.wait_line("running:", 60) is not None, "pcap: mcfan runs"):
            mc.wait(30)
            print(mc.stderr()[-2000:])
            return
        # started after the frames were written: --oldest reads the ring from its start
        rds = {g: Reader([rd_bin, "--file-prefix", prefix, "--group",
                          g if ":" in g or g == "239.7.7.7" else f"{g}:{PORT}", "--oldest",
                          "--quiet", "--no-seq"], g, "c") for g in want_frames}
        # and one following sequence numbers on payloads that are not iperf2 (trial9: a
        # "seq_lost" of 1.4e17 from bytes of text): every frame counts in seq_other
        seq_rd = Reader([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.2:{PORT}",
                         "--oldest", "--quiet"], "239.9.9.2", "c")
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30, proc=mc)
        v, end = None, time.monotonic() + 20
        while time.monotonic() < end:
            v, _ = tel.query("/mcfan/readers")
            if v and v.get("ring_written") == [306, 100, 50, 50]:
                break
            time.sleep(0.2)
        tel.close()
        # a second mcfan with the same file prefix (possible with --in-memory) is refused:
        # it would take the first one's rings
        p2 = subprocess.run([mcfan, "--lcores", "0@0,1@1", "--no-huge", "-m", "512",
                             "--in-memory", "--file-prefix", prefix, "--no-pci",
                             "--log-level", "lib.eal:warning", "--vdev", "net_null0", "--",
                             "--groups", f"239.9.9.1:{PORT}", "--worker-engine", "readers",
                             "--duration", "1"], capture_output=True, text=True, timeout=60)
        t.check(p2.returncode == 1 and f"/dev/shm/mcfan.{prefix}.239.9.9.1.{PORT} is in use by "
                "another running mcfan with the same file prefix" in p2.stdout + p2.stderr,
                f"pcap: a second mcfan on the same rings is refused: {p2.returncode} "
                f"{(p2.stdout + p2.stderr)[-400:]!r}")
        t.check(all(os.path.exists(f"/dev/shm/mcfan.{prefix}.{n}") for n in
                    ("239.9.9.1.3999", "ff3e::1.5000", "239.7.7.7.0")),
                "pcap: ring names: ADDRESS.PORT, IPv6 as inet_ntop writes it, .0 for any port")
        t.check(v is not None and v.get("ring_written") == [306, 100, 50, 50] and
                v.get("ring_too_big") == [3, 0, 0, 0],
                f"pcap: replicate writes each frame once, 3 too big: {v}")
        rc = mc.wait(60)
        t.check_eq(rc, 0, "pcap: mcfan exit status")
        with open(report) as f:
            rep = json.load(f)
        copies = {g["group"]: g["copies"] for g in rep["groups"]}
        t.check_eq(copies, {"239.9.9.1": 2 * 309, "239.9.9.2": 200, "ff3e::1": 100,
                            "239.7.7.7": 100},
                   "pcap: every frame reached both workers (replicate)")
        rr = rep.get("readers") or {}
        t.check_eq([(r["group"], r["written"], r["reader_too_big"]) for r in rr.get("rings", [])],
                   [(f"239.9.9.1:{PORT}", 306, 3), (f"239.9.9.2:{PORT}", 100, 0),
                    ("[ff3e::1]:5000", 50, 0), ("239.7.7.7", 50, 0)],
                   "pcap: the report's reader rings: written, reader_too_big")
        t.check_eq(rr.get("not_owner"), 309 + 100 + 50 + 50,
                   "pcap: the other worker's copies are counted not_owner")
        # the readers output of each worker: every copy under one of its counters, the 3 too
        # long for a slot dropped, not delivered (docs/delivery.md: frames = delivered +
        # dropped)
        outs = [o for lc in rep["lcores"] for o in (lc.get("engine_outputs") or [])
                if o["engine"] == "readers"]
        tot = {k: sum(o["counters"].get(k, 0) for o in outs)
               for k in ("reader_written", "not_owner", "reader_too_big", "no_ring")}
        t.check_eq(tot, {"reader_written": 506, "not_owner": 509, "reader_too_big": 3,
                         "no_ring": 0}, "pcap: the readers outputs' counters")
        t.check_eq((sum(o["frames"] for o in outs), sum(o["delivered"] for o in outs),
                    sum(o["dropped"] for o in outs)), (2 * 509, 1015, 3),
                   "pcap: the readers outputs: frames = delivered + dropped, too big dropped")
        t.check(all(o["frames"] == o["delivered"] + o["dropped"] for o in outs) and
                len(outs) == 2, f"pcap: per worker, frames = delivered + dropped: {outs}")
        t.check(os.path.exists(f"/dev/shm/mcfan.{prefix}.239.7.7.7.0") is False and
                "reader rings (docs/readers.md): 4, frames written 506, reader_too_big 3"
                in mc.stdout(), "pcap: the text report's reader line")
        for g, r in rds.items():
            r.finish(30)
            res = r.result() or {}
            t.check_eq((res.get("frames"), res.get("bytes"), res.get("lost")),
                       (want_frames[g], want_bytes[g], 0),
                       f"pcap: {g}: the reader has every frame that fits, byte for byte")
        seq_rd.finish(30)
        res = seq_rd.result() or {}
        t.check_eq({k: res.get(k) for k in ("frames", "seq_gaps", "seq_lost", "seq_other")},
                   {"frames": 100, "seq_gaps": 0, "seq_lost": 0, "seq_other": 100},
                   "pcap: payloads that are not iperf2 count in seq_other, not as gaps")
    finally:
        for r in list(rds.values()) + ([seq_rd] if seq_rd is not None else []):
            if r.p.poll() is None:
                r.p.kill()
                r.p.wait()
        if mc is not None and mc.p.poll() is None:
            mc.p.kill()
            mc.wait(10)
        remove_rings(prefix)
        shutil.rmtree(work, ignore_errors=True)


def main():
    mcfan = t.mcfan_path()
    rd_bin, rd_lib = reader_bin()
    if not os.path.exists(rd_bin):
        print(f"readers: {rd_bin} not built", flush=True)
        return 1

    # bad input: exit 2 at start, the value named, nothing started (no EAL line)
    for val in ("100", "1", "x", "33554432"):
        p = subprocess.run([mcfan, "--no-pci", "--no-huge", "-m", "512", "--",
                            "--reader-ring-frames", val], capture_output=True, text=True,
                           timeout=60)
        t.check(p.returncode == 2 and f"--reader-ring-frames: '{val}' is not allowed: a power "
                "of two 2..16777216" in p.stderr and "EAL:" not in p.stderr + p.stdout,
                f"--reader-ring-frames {val} refused, exit 2: {p.returncode} "
                f"{p.stderr.strip()!r}")
    for args, words in ((["--group", "239.9.9.1:3999", "--count", "x"], "--count 'x'"),
                        (["--group", "239.9.9.1:3999", "--seconds", "-1"],
                         "--seconds '-1': must be 0 (no limit) or more"),
                        (["--group", "239.9.9.1:3999", "--bogus"], "usage:"),
                        ([], "--group is needed"),
                        (["--file-prefix", "nosuchmcfan", "--group", "bogus"],
                         "'bogus' is not a group: give GROUP or GROUP:PORT"),
                        # a port or an address that parses but cannot be a group's
                        (["--group", "239.9.9.1:70000"], "mcfan-read: group "
                         "239.9.9.1:70000: the UDP port '70000' is not 1..65535\n"),
                        (["--group", "239.9.9.1:0"], "the UDP port '0' is not 1..65535"),
                        (["--group", "239.9.9.1:39x"], "the UDP port '39x' is not 1..65535"),
                        (["--group", "198.18.0.2:3999"], "mcfan-read: group 198.18.0.2:3999: "
                         "198.18.0.2 is not a multicast address (IPv4 224.0.0.0/4, IPv6 "
                         "ff00::/8)\n"),
                        (["--group", "[fe80::1]:5000"], "fe80::1 is not a multicast address"),
                        # an option twice, a prefix that is a path or empty (trial9)
                        (["--group", "239.9.9.1:3999", "--group", "239.9.9.2:3999"],
                         "mcfan-read: --group given twice: give it once\n"),
                        (["--group", "239.9.9.1:3999", "--count", "1", "--count=2"],
                         "--count given twice"),
                        # the library's rule and words (mcfan_rd_prefix_check), as
                        # mcfan and tools/mcfan_reader.py say them
                        (["--file-prefix", "../x", "--group", "239.9.9.1:3999"],
                         "mcfan-read: file prefix '../x': has a '/' (it is not a path): give "
                         "the name of mcfan's EAL --file-prefix: a directory name under "
                         "DPDK's runtime directory (not empty, no '/' or '%', not . or ..)\n"),
                        (["--file-prefix", "", "--group", "239.9.9.1:3999"],
                         "mcfan-read: file prefix '': is empty: give the name")):
        p = subprocess.run([rd_bin, *args], capture_output=True, text=True, timeout=30)
        t.check(p.returncode == 2 and words in p.stderr,
                f"mcfan-read {' '.join(args)}: exit 2, {words!r}: {p.returncode} "
                f"{p.stderr.strip()[:200]!r}")
    p = subprocess.run([rd_bin, "--file-prefix", "nosuchmcfan", "--group", "239.9.9.1"],
                       capture_output=True, text=True, timeout=30)
    t.check(p.returncode == 1 and "no such reader ring" in p.stderr,
            f"mcfan-read without a ring: exit 1, said so: {p.stderr.strip()!r}")

    pcap_phase(mcfan, rd_bin)

    labtest.preflight(skip, "needs root (network namespaces)")
    lab = Lab()
    procs = []
    mc = None
    try:
        if not t.check(lab.sh("lab_up").returncode == 0, "lab up"):
            return t.finish("readers")
        prefix = f"mcfan-readers-{lab.id}"
        report = os.path.join(lab.dir, "report.json")
        cpu = labtest.data_cpu()
        eal = t.eal_lcores(f"0@0,1@{cpu},2@{cpu}", prefix, [lab.af_packet()])
        app = ["--rx-lcores", "1", "--worker-lcores", "1-2", "--groups",
               f"239.9.9.1-{NGROUPS}:{PORT}", "--worker-engine", "readers",
               "--reader-ring-frames", str(RING), "--report-json", report, "-i"]
        mc = labtest.NsRun(["ip", "netns", "exec", lab.rcv, mcfan, *eal, "--", *app],
                           console=True)
        out_lines = mc.lines
        if not t.check(mc.running.wait(60), "mcfan runs with the readers engine"):
            print("".join(out_lines))
            return t.finish("readers")
        shm = sorted(f for f in os.listdir("/dev/shm") if f.startswith(f"mcfan.{prefix}."))
        t.check_eq(shm, sorted(f"mcfan.{prefix}.{g}.{PORT}" for g in GROUPS),
                   "one ring a group in /dev/shm")
        st = os.stat(f"/dev/shm/mcfan.{prefix}.239.9.9.1.{PORT}")
        t.check_eq(st.st_mode & 0o777, 0o666, "rings readable and writable by any user")
        # a group joined later gets its ring at the join; after a leave the ring is freed
        late = f"/dev/shm/mcfan.{prefix}.239.9.9.20.4000"
        mark = len(out_lines)
        mc.say("join 239.9.9.20:4000")
        end = time.monotonic() + 20
        while time.monotonic() < end and not any("joined" in ln for ln in out_lines[mark:]):
            time.sleep(0.1)
        t.check(os.path.exists(late), "a group joined from the console gets its ring at the "
                "join: " + "".join(out_lines[mark:]).strip()[-300:])
        mc.say("leave 239.9.9.20:4000")
        end = time.monotonic() + 20
        while time.monotonic() < end and os.path.exists(late):
            time.sleep(0.1)
        t.check(not os.path.exists(late), "the ring of a group left is freed (docs/readers.md "
                "\"A ring's lifetime\")")

        nobody = nobody_prefix(rd_bin)
        print(f"readers: C readers run {'as nobody' if nobody else 'as root'}", flush=True)
        env = dict(os.environ, MCFAN_READER_LIB=rd_lib)
        py = [sys.executable, os.path.join(TOOLS, "mcfan_reader.py"), "--file-prefix", prefix]
        readers, victims = [], []
        for g in GROUPS:
            gp = f"{g}:{PORT}"
            for i in range(PER_GROUP - 1):  # the first of each group reads in place
                readers.append(Reader(nobody + [rd_bin, "--file-prefix", prefix, "--group", gp,
                                                "--quiet"] + (["--zero-copy"] if i == 0 else []),
                                      g, "c"))
            readers.append(Reader(py + ["--group", gp], g, "py", env))
        slow = Reader(py + ["--group", f"239.9.9.1:{PORT}", "--sleep-every", str(SLOW_EVERY),
                            "--sleep-ms", str(SLOW_MS)], "239.9.9.1", "slow", env)
        for i in range(VICTIMS):
            victims.append(Reader([rd_bin, "--file-prefix", prefix, "--group",
                                   f"239.9.9.{i + 2}:{PORT}", "--quiet"], GROUPS[i + 1], "victim"))
        procs = readers + [slow] + victims
        want = len(procs)

        # every reader attached (its row in the reader table) before a frame is sent
        tel = t.Telemetry(t.telemetry_socket(eal), timeout=30)
        n_seen, end = -1, time.monotonic() + 60
        while time.monotonic() < end:
            v, _ = tel.query("/mcfan/readers")
            n_seen = v.get("readers", -1) if v else -1
            if n_seen == want:
                break
            time.sleep(0.2)
        if not t.check_eq(n_seen, want, "/mcfan/readers lists every reader before the traffic"):
            return t.finish("readers")
        t.check_eq((v["rings"], v.get("retired_waiting"), v.get("retired_freed")),
                   (NGROUPS, 0, 1), "/mcfan/readers: rings (the late join's freed)")
        t.check_eq(sorted(v["pid"]), sorted(r.pid for r in procs),
                   "/mcfan/readers: the readers' pids")

        sender = threading.Thread(target=lambda: lab.sh(
            f"lab_send {NGROUPS} {COUNT} {LEN} {PPS}", timeout=120))
        t0 = time.monotonic()
        sender.start()
        time.sleep(COUNT / PPS / 2)
        for r in victims:
            os.kill(r.pid, signal.SIGKILL)
        for r in victims:
            r.finish(10)
        t.check(mc.p.poll() is None, "mcfan runs on after kill -9 of 5 readers")
        time.sleep(1.2)  # mcfan looks for dead sleepers once a second
        v, _ = tel.query("/mcfan/readers")
        alive = dict(zip(v["pid"], v["alive"]))
        t.check(all(alive.get(r.pid) == 0 for r in victims),
                f"/mcfan/readers shows the killed readers dead: "
                f"{[alive.get(r.pid) for r in victims]}")
        t.check(all(alive.get(r.pid) == 1 for r in readers + [slow]),
                "/mcfan/readers shows the others alive")
        sender.join(120)
        print(f"readers: {NGROUPS} iperf2 senders x {COUNT} datagrams in "
              f"{time.monotonic() - t0:.1f} s", flush=True)
        time.sleep(1.0)  # the last frames reach the readers
        mark = len(out_lines)
        mc.say("show readers")
        end = time.monotonic() + 20
        while time.monotonic() < end and not any(
                "rings," in ln for ln in out_lines[mark:]):
            time.sleep(0.1)
        shown = "".join(out_lines[mark:])
        t.check(f"{NGROUPS} rings, {want} readers ({VICTIMS} dead); retired rings: 0 "
                "waiting to be freed (retired_waiting), 1 freed (retired_freed)" in shown,
                f"show readers: {NGROUPS} rings, {want} readers, {VICTIMS} dead, 1 freed")
        t.check(all(f" {r.pid} " in shown for r in procs), "show readers lists every pid")
        tel.close()
        mark = len(out_lines)
        mc.say("quit")
        t.check_eq(mc.end(60), 0, "mcfan exit status")
        # the text report counts the live readers as show readers does, the killed apart
        report_text = "".join(out_lines[mark:])
        t.check(f", readers now {want - VICTIMS} alive, {VICTIMS} dead\n" in report_text,
                f"the text report: readers now {want - VICTIMS} alive, {VICTIMS} dead: "
                f"{[ln for ln in report_text.splitlines() if 'readers now' in ln]}")
        with open(report) as f:
            rep = json.load(f)
        per_group = {g["group"]: g["frames"] for g in rep["groups"]}
        written = {r["group"]: r["written"] for r in (rep.get("readers") or {}).get("rings", [])}
        t.check_eq(written, {f"{g}:{PORT}": per_group.get(g) for g in GROUPS},
                   "the report: every group's frames written to its ring")
        left = [f for f in os.listdir("/dev/shm") if f.startswith(f"mcfan.{prefix}.")]
        t.check_eq(left, [], "the rings are removed at exit")

        # every reader ends at mcfan's close (-EPIPE) with its JSON line
        for r in readers + [slow]:
            r.finish(60)
        iperf_frames = COUNT + 1  # COUNT datagrams and iperf2's end-of-test datagram
        for g in GROUPS:
            t.check_eq(per_group.get(g), iperf_frames, f"mcfan's count of {g} = the senders'")
        bad = []
        for r in readers:
            res = r.result()
            if (res is None or res.get("frames") != per_group.get(r.group) or
                    res.get("lost") != 0 or r.p.returncode != 0 or not res.get("closed")):
                bad.append((r.kind, r.group, r.p.returncode, res, r.err[-300:]))
        t.check(not bad, f"100 readers each read exactly their group's frames, none lost: "
                f"{len(bad)} wrong, first {bad[:2]}")
        res = next(r for r in readers if r.kind == "c").result() or {}
        t.check_eq((res.get("seq_gaps"), res.get("seq_lost"), res.get("seq_ends")),
                   (0, 0, 1), "mcfan-read: no iperf2 sequence gap, one end datagram")
        res = slow.result() or {}
        written = per_group.get("239.9.9.1")
        print(f"readers: slow reader read {res.get('frames')}, lost {res.get('lost')} "
              f"({res.get('lapped')} laps) of {written}", flush=True)
        t.check(res.get("lost", 0) > 0, f"the slow reader was lapped: {res}")
        t.check_eq(res.get("lost"), (written or 0) - res.get("frames", 0),
                   "the slow reader's lost = frames written - frames it read")
        t.check_eq(res.get("lost_seen"), res.get("lost"),
                   "the slow reader was told each loss with the frame after it")
        t.check_eq(res.get("head"), written, "the slow reader's head = frames written")
    finally:
        for r in procs:
            if r.p.poll() is None:
                r.p.kill()
                r.p.wait()
        if mc is not None:
            mc.kill()
        lab.down()
        remove_rings(f"mcfan-readers-{lab.id}")  # only if mcfan could not (killed)
    return t.finish("readers")


if __name__ == "__main__":
    sys.exit(main())
