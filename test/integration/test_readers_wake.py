#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Coalesced reader wakes (docs/readers.md "Waking readers"): a reader blocked in wait gets a
single frame within the latency budget, though one frame never reaches --reader-wake-frames.

Bad values of --reader-wake-frames and --reader-wake-us are refused first (exit 2, the value
named). Then in the lab (test/lab/lab.sh) mcfan runs the readers engine on net_af_packet
(one run-to-completion lcore), a reader (tools/mcfan_reader.py, libmcfan-reader) sleeps in
mcfan_reader_wait() on 239.9.9.1:3999 (its row's waiting flag set), and ONE UDP datagram is
sent to the group from the sender's namespace:
  - default options (32 frames / 200 us): the wait returns 1 and the frame's RX time to the
    reader's wake-up is under 200 us + 50 ms of scheduling slack; the ring's FUTEX_WAKE
    count in the report is exactly 1 (the deferred wake delivered once, by the worker's
    poll: no frame came after it);
  - --reader-wake-us 30000: the wake-up comes at the budget, 30 ms after the frame (not
    before, less 2 ms for the clocks), and before 30 ms + 50 ms; wakes exactly 1;
  - --idle-rx backoff:none --idle-max-sleep-us 500000 (the lcore sleeps up to 0.5 s when
    idle): the default budget still holds (200 us + 50 ms): the lcore's sleep is cut to
    the deferred wake's due time.
A forgotten deferred wake fails both: the reader would sleep out its 5 s timeout.

Usage: test_readers_wake.py MCFAN_BINARY. Exit 77 (skip) when not root or without `ip netns`.
"""

import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

import labtest
import mcfantest as t

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
PORT = 3999
GROUP = "239.9.9.1"
SLACK_NS = 50_000_000      # scheduling slack on a shared 2-CPU host
WAITERS_OFF = 320          # struct mcfan_rd_hdr: waiters (docs/readers.md, format)


skip = labtest.skipper("readers_wake")


def refusals(mcfan):
    for opt, val, want in (("--reader-wake-frames", "0", "frames 1..65536"),
                           ("--reader-wake-frames", "65537", "frames 1..65536"),
                           ("--reader-wake-frames", "x", "frames 1..65536"),
                           ("--reader-wake-us", "-1", "microseconds 0..1000000"),
                           ("--reader-wake-us", "1000001", "microseconds 0..1000000"),
                           ("--reader-wake-us", "2ms", "microseconds 0..1000000")):
        p = subprocess.run([mcfan, "--no-pci", "--no-huge", "-m", "64", "--in-memory",
                            "--file-prefix", f"rdwake-bad-{os.getpid()}", "--", opt, val],
                           capture_output=True, text=True, timeout=60)
        t.check(p.returncode == 2 and f"{opt}: '{val}' is not allowed: {want}" in p.stderr,
                f"{opt} {val} refused, exit 2: {p.returncode} {p.stderr.strip()[-200:]}")
    # a --reader-* option where no group goes to the readers engine shapes nothing: refused
    # before EAL, not ignored (before: accepted without a word); with the engine, taken
    for opt, val, engine in (("--reader-wake-us", "5000", []),
                             ("--reader-wake-frames", "8", ["--worker-engine", "tx:0"]),
                             ("--reader-ring-frames", "64", ["--group-engine",
                                                             f"{GROUP}=count"])):
        p = subprocess.run([mcfan, "--no-pci", "--no-huge", "-m", "64", "--in-memory",
                            "--file-prefix", f"rdwake-bad-{os.getpid()}", "--", "--groups",
                            GROUP, *engine, opt, val], capture_output=True, text=True,
                           timeout=60)
        t.check(p.returncode == 2 and f"{opt}: no group goes to the readers engine" in p.stderr
                and f"or leave {opt} out" in p.stderr and not t.eal_lines(p.stderr),
                f"{opt} {val} {engine} without readers: exit 2 before EAL: {p.returncode} "
                f"{p.stderr.strip()[-300:]}")
    for engine in (["--worker-engine", "readers"], ["--group-engine", f"{GROUP}=readers"]):
        prefix = f"rdwake-ok-{os.getpid()}"
        p = subprocess.run([mcfan, "-l", "0-1", "--no-pci", "--no-huge", "-m", "256",
                            "--in-memory", "--file-prefix", prefix, "--vdev", "net_null0",
                            "--", "--groups", GROUP, *engine, "--reader-wake-us", "5000",
                            "--duration", "0.3"], capture_output=True, text=True, timeout=60)
        t.check_eq(p.returncode, 0, f"--reader-wake-us with {engine}: exit status "
                   f"({p.stderr.strip()[-200:]!r})")


class Lab(labtest.Lab):
    """The lab of this test: LAB_ID rwPID (12 characters at most), and the sender's
    address (snd_ip)."""

    def __init__(self):
        super().__init__(ident=f"rw{os.getpid()}"[:12], dir_name="rdwake", port=PORT,
                         extra=("LAB_SND_IP",))

    def send_one(self, marker):
        """One UDP datagram to GROUP:PORT from the sender's namespace."""
        code = ("import socket, sys\n"
                "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                "s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)\n"
                f"s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, "
                f"socket.inet_aton('{self.snd_ip}'))\n"
                f"s.sendto(sys.argv[1].encode(), ('{GROUP}', {PORT}))\n")
        return subprocess.run(["ip", "netns", "exec", self.snd, sys.executable, "-c", code,
                               marker], capture_output=True, text=True, timeout=30)


def waiters(prefix):
    with open(f"/dev/shm/mcfan.{prefix}.{GROUP}.{PORT}", "rb") as f:
        f.seek(WAITERS_OFF)
        return struct.unpack("=I", f.read(4))[0]


def phase(mcfan, lab, name, extra, budget_ns, at_budget):
    import mcfan_reader
    prefix = f"mcfan-rdwake-{lab.id}-{name}"
    report = os.path.join(lab.dir, f"{name}.json")
    eal = t.eal_lcores(f"0@0,1@{labtest.data_cpu()}", prefix, [lab.af_packet()])
    app = ["--rx-lcores", "1", "--worker-lcores", "1", "--groups", f"{GROUP}:{PORT}",
           "--worker-engine", "readers", "--report-json", report, *extra]
    mc = labtest.NsRun(["ip", "netns", "exec", lab.rcv, mcfan, *eal, "--", *app])
    try:
        if not t.check(mc.running.wait(60), f"{name}: mcfan runs"):
            print(mc.output())
            return
        r = mcfan_reader.Reader(prefix, f"{GROUP}:{PORT}")
        res = {}

        def blocked():
            res["ret"] = r.wait(5000)
            res["woke_ns"] = time.time_ns()
        th = threading.Thread(target=blocked)
        th.start()
        for _ in range(500):
            if waiters(prefix) == 1:
                break
            time.sleep(0.01)
        time.sleep(0.2)   # into FUTEX_WAIT
        t.check_eq(waiters(prefix), 1, f"{name}: the reader sleeps in wait")
        marker = f"rdwake-{name}-{os.getpid()}"
        p = lab.send_one(marker)
        t.check(p.returncode == 0, f"{name}: one datagram sent {p.stderr.strip()}")
        th.join(10)
        t.check_eq(res.get("ret"), 1, f"{name}: the blocked wait returns with the frame")
        f = r.read()
        t.check(f is not None and marker.encode() in f.data, f"{name}: it is our datagram")
        if f is not None and "woke_ns" in res:
            lat = res["woke_ns"] - f.rx_ns
            print(f"readers_wake: {name}: RX to the reader's wake-up {lat / 1e6:.3f} ms "
                  f"(budget {budget_ns / 1e6:.3f} ms)", flush=True)
            if at_budget:
                t.check(lat >= budget_ns - 2_000_000,
                        f"{name}: woken at the budget, not before: {lat} ns")
            t.check(lat < budget_ns + SLACK_NS,
                    f"{name}: woken within the budget + 50 ms: {lat} ns")
        r.close()
    finally:
        mc.p.send_signal(2)
        rc = mc.end(60)
    t.check_eq(rc, 0, f"{name}: mcfan exits 0")
    try:
        rep = json.load(open(report))
        ring = rep["readers"]["rings"][0]
        t.check_eq(ring["written"], 1, f"{name}: one frame written")
        t.check_eq(ring["wakes"], 1, f"{name}: exactly one FUTEX_WAKE for it")
        # the lcore is alone among mcfan's data lcores, but 100 reader processes may share
        # its CPU: without an idle option it does not spin (docs/idle.md "Defaults")
        idle = next(lc for lc in rep["lcores"] if lc["lcore"] == 1)["idle"]
        want = ("default-readers", "backoff:none") if "--idle-rx" not in extra else \
            ("option", extra[extra.index("--idle-rx") + 1])
        t.check_eq((idle["origin"], idle["policy"]), want, f"{name}: idle origin and policy "
                   f"of the readers lcore ({idle['why']})")
        if "--idle-rx" not in extra:
            t.check_eq(idle["why"], "default-readers (reader processes share its CPUs)",
                       f"{name}: why")
    except (OSError, ValueError, KeyError, IndexError) as e:
        t.check(False, f"{name}: report: {e}")


def main():
    mcfan = t.mcfan_path()
    # the library of the build under test (BUILD/app/mcfan/mcfan -> BUILD/lib), not whatever
    # tools/mcfan_reader.py finds beside the source tree
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(mcfan))))
    os.environ["MCFAN_READER_LIB"] = os.path.join(build, "lib", "libmcfan-reader.so.1")
    refusals(mcfan)
    labtest.preflight(skip, "needs root (network namespaces)")
    lab = Lab()
    try:
        if t.check(lab.sh("lab_up").returncode == 0, "lab up"):
            phase(mcfan, lab, "default", [], 200_000, False)
            phase(mcfan, lab, "budget30ms", ["--reader-wake-us", "30000"], 30_000_000, True)
            # an lcore that sleeps long when idle: its sleep ends when the deferred wake is due
            phase(mcfan, lab, "sleepcap", ["--idle-rx", "backoff:none", "--idle-max-sleep-us",
                                           "500000"], 200_000, False)
    finally:
        lab.down()
    return t.finish("readers_wake")


if __name__ == "__main__":
    sys.exit(main())
