#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Failed starts and refused RX queues (issue 11), each as a user meets it:

1. RX queues no lcore can take: three net_ring ports of 16 RX queues each (48 (port,
   queue) pairs) for one RX lcore, which polls at most 32: one line naming the port and
   its queues that would not be polled and the remedy, exit 2, no report (text or JSON),
   nothing printed after that line. With two RX lcores (24 pairs each) the same ports
   start and every RX lcore polls.
2. net_af_packet on an interface that does not exist; net_pcap iface= and rx_iface= on one:
   one line on standard error naming the interface and the remedy, before EAL (no PMD or
   EAL error lines), exit 2, no report.
3. net_af_packet framesz too big for an mbuf (framesz=4096: the PMD's RX queue setup would
   fail with "will not fit in mbuf"): one line with the largest framesz that fits, exit 2,
   no report.
(The pool that does not fit the memory: test_hardening.py test_pool_failure; net_pcap
infinite_rx with a pool too small: test_acct.py.)

Usage: test_failstart.py MCFAN_BINARY"""

import os
import time

import mcfantest as t

GROUPS = "239.9.9.1:3999"


def run(name, vdevs, app=(), lcores="0-1"):
    extra = []
    for v in vdevs:
        extra += ["--vdev", v]
    eal = t.eal_args(f"fail-{name}", lcores=lcores, extra=extra)
    if "@" in lcores:   # the host has 2 CPUs: map the lcores onto them
        eal = ["--lcores" if a == "-l" else a for a in eal]
    return t.run_mcfan(eal, ["--groups", GROUPS, "--duration", "0.5", *app])


def refused(tag, rc, out, err, rep, pattern, before_eal):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    hits = [i for i, ln in enumerate(lines) if pattern in ln]
    t.check_eq(rc, 2, f"{tag} exit status 2 (bad input): {err[-800:]!r}")
    t.check(len(hits) == 1, f"{tag} one line says why: {pattern!r} in {lines}")
    if hits:
        t.check_eq(lines[hits[0] + 1:], [], f"{tag} nothing printed after the refusal")
        t.check(lines[hits[0]].startswith("mcfan: "), f"{tag} mcfan's own line")
    t.check(rep is None, f"{tag} no JSON report")
    t.check("mcfan report" not in out and "frames: rx" not in out, f"{tag} no text report")
    if before_eal:
        t.check_eq(lines, [lines[hits[0]]] if hits else [],
                   f"{tag} refused before EAL: no PMD, EAL or telemetry line")


def test_queues():
    tag = "[48 queues, 1 RX lcore]"
    rings = ["net_ring0", "net_ring1", "net_ring2"]
    rc, out, err, rep = run("q1", rings)
    refused(tag, rc, out, err, rep, "port 2 (net_ring2): RX queues 0-15 would not be polled: "
            "each of the 1 RX lcores polls at most 32 (port, queue) pairs; give more RX "
            "lcores (--rx-lcores) or fewer queues", False)
    tag = "[48 queues, 2 RX lcores]"
    rc, out, err, rep = run("q2", rings, ["--rx-lcores", "1-2", "--worker-lcores", "3"],
                            lcores="0@0,1@1,2@1,3@0")
    t.check_eq(rc, 0, f"{tag} starts: {err[-800:]!r}")
    if t.check(rep is not None, f"{tag} report"):
        t.check_eq([p["rx_queues"] for p in rep["ports"]], [16, 16, 16],
                   f"{tag} every port with its 16 RX queues")
        t.check_eq(sorted(lc["lcore"] for lc in rep["lcores"] if lc["role"] == "rx"), [1, 2],
                   f"{tag} both RX lcores run")


def test_interfaces():
    name = f"nosuch{os.getpid() % 100000}"
    for drv, key in (("net_af_packet0", "iface"), ("net_pcap0", "iface"),
                     ("net_pcap0", "rx_iface")):
        tag = f"[{drv} {key}= missing]"
        rc, out, err, rep = run(f"if-{key}", [f"{drv},{key}={name}"])
        refused(tag, rc, out, err, rep, f"mcfan: --vdev {drv},{key}={name}: no interface "
                f"'{name}' in this network namespace (ip link lists them): give an existing "
                f"one with {key}=, or run mcfan in the interface's namespace", True)


def test_afp_keys():
    # a key net_af_packet does not know, or no iface=: the PMD says only "failed to
    # initialize" at any log level, then mcfan "no port was probed: give a device with
    # --vdev": one line naming the key, before EAL
    for args, want in (
            ("net_af_packet0,ifase=lo", "mcfan: --vdev net_af_packet0,ifase=lo: 'ifase' is not "
             "a key of net_af_packet (keys: iface, qpairs, blocksz, framesz, framecnt, "
             "qdisc_bypass)"),
            ("net_af_packet0", "mcfan: --vdev net_af_packet0: net_af_packet needs "
             "iface=IFNAME, the interface it receives on (e.g. net_af_packet0,iface=veth0)"),
            ("net_af_packet0,qpairs=1", "mcfan: --vdev net_af_packet0,qpairs=1: net_af_packet "
             "needs iface=IFNAME")):
        tag = f"[{args}]"
        rc, out, err, rep = run("afpkeys", [args])
        refused(tag, rc, out, err, rep, want, True)


def test_vdev_twice():
    # one device name in two --vdev: EAL 22.11 probes the first and drops the second without
    # a word (before: one port, the second capture's frames never received, status 0)
    pcap = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"mcfan-failstart-{os.getpid()}.pcap")
    t.write_pcap(pcap, [t.udp4_frame("239.9.9.1", 3999)])
    try:
        for second in (f"net_pcap0,rx_pcap={pcap},infinite_rx=0", f"net_pcap0,rx_pcap={pcap}"):
            tag = f"[--vdev net_pcap0 twice: {second}]"
            rc, out, err, rep = run("twice", [f"net_pcap0,rx_pcap={pcap}", second])
            refused(tag, rc, out, err, rep, f"mcfan: --vdev {second}: the device name net_pcap0 "
                    f"is given twice (first in --vdev net_pcap0,rx_pcap={pcap}): EAL would "
                    "probe the first alone and drop this one without a word; give each device "
                    "a name of its own (e.g. net_pcap0, net_pcap1)", True)
        # two names that share a prefix are two devices
        rc, out, err, rep = run("twice-ok", ["net_null1", "net_null10"])
        t.check_eq(rc, 0, f"[net_null1 and net_null10] start: {err[-400:]!r}")
        if t.check(rep is not None, "[net_null1 and net_null10] report"):
            t.check_eq(len(rep["ports"]), 2, "[net_null1 and net_null10] two ports")
    finally:
        os.unlink(pcap)


def test_framesz():
    tag = "[af_packet framesz=4096]"
    rc, out, err, rep = run("fs", ["net_af_packet0,iface=lo,framesz=4096,blocksz=4096"])
    refused(tag, rc, out, err, rep, "framesz=4096 gives ring frames of 4064 data bytes, more "
            "than an mbuf of mcfan's pool holds (2048): give framesz=2080 or less, or a larger "
            "--mbuf-size (4064 or more, up to 65407)", True)
    # with --mbuf-size the limit is that size: one byte short is refused, naming it
    tag = "[af_packet framesz=4096, --mbuf-size 4063]"
    rc, out, err, rep = run("fs2", ["net_af_packet0,iface=lo,framesz=4096,blocksz=4096"],
                            ["--mbuf-size", "4063"])
    refused(tag, rc, out, err, rep, "framesz=4096 gives ring frames of 4064 data bytes, more "
            "than an mbuf of mcfan's pool holds (4063): give framesz=4080 or less, or a larger "
            "--mbuf-size (4064 or more", True)


def test_ring_geometry():
    # the PACKET_RX_RING geometry (packet(7)): the PMD's three lines become one, before EAL
    cases = [
        ("blocksz=1024,framesz=1024", "blocksz=1024 is not a multiple of the page size (4096): "
         "give blocksz=4096 or another multiple"),
        ("blocksz=5000", "blocksz=5000 is not a multiple of the page size (4096): give "
         "blocksz=4096"),
        ("framesz=100", "framesz=100 must be a multiple of 16 from 32 up to blocksz (4096): "
         "give framesz=2048"),
        ("blocksz=4096,framesz=8192", "framesz=8192 must be a multiple of 16 from 32 up to "
         "blocksz (4096)"),
        ("framecnt=513", "framecnt=513 is not a whole number of blocks (2 frames of 2048 bytes "
         "a 4096-byte block): give framecnt=512"),
        ("framesz=3072", "blocksz=4096 is not a whole number of 3072-byte frames (framesz): "
         "net_af_packet reads ring frame i at i x framesz, the kernel puts none across a "
         "block's end, so the port would stop receiving after its first block; give "
         "blocksz=12288 (a multiple of framesz and of the page size)"),
        ("framesz=9088,blocksz=12288", "give blocksz=290816 (a multiple of framesz and of "
         "the page size), or a framesz that is a multiple of 1024"),
        ("framecnt=0", "framecnt=0 is not a positive decimal number"),
        ("blocksz=abc", "blocksz=abc is not a positive decimal number"),
        ("qpairs=0", "qpairs=0 is not a positive decimal number"),
        ("qpairs=17", "qpairs=17 is more than net_af_packet's 16 queue pairs: give "
         "qpairs=1..16"),
    ]
    for i, (args, want) in enumerate(cases):
        tag = f"[af_packet {args}]"
        rc, out, err, rep = run(f"geo{i}", [f"net_af_packet0,iface=lo,{args}"])
        refused(tag, rc, out, err, rep, want, True)


def test_null_size():
    # net_null's size= it cannot use: 0 fails its RX queue setup for want of memory, more
    # than an mbuf holds would be read past the mbuf (before: size=0 started EAL, then "port
    # 0: RX queue setup failed: Cannot allocate memory", exit 1); one line before EAL
    for i, v in enumerate(("0", "2049", "abc", "0x40")):
        tag = f"[net_null size={v}]"
        rc, out, err, rep = run(f"nsz{i}", [f"net_null0,size={v}"])
        refused(tag, rc, out, err, rep, f"mcfan: --vdev net_null0,size={v}: size={v} is not a "
                "frame size net_null can make for mcfan: give size=1..2048 (decimal bytes, at "
                "most what an mbuf of mcfan's pool holds; net_null's default is 64)", True)
    # the largest size an mbuf holds still runs, every frame received and counted
    rc, out, err, rep = run("nsz-ok", ["net_null0,size=2048"])
    t.check_eq(rc, 0, f"[net_null size=2048] starts: {err[-400:]!r}")
    if t.check(rep is not None, "[net_null size=2048] report"):
        t.check(rep["rx_frames"] > 0 and t.conservation(rep),
                f"[net_null size=2048] frames received, conservation: {rep['rx_frames']}")


def main():
    t0 = time.monotonic()
    t.mcfan_path()
    test_queues()
    test_interfaces()
    test_afp_keys()
    test_vdev_twice()
    test_framesz()
    test_ring_geometry()
    test_null_size()
    print(f"failstart: {time.monotonic() - t0:.1f} s", flush=True)
    t.finish("failstart")


if __name__ == "__main__":
    main()
