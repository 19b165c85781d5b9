#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""net_af_packet with an interface MTU above what its ring frames hold (issue 16): mcfan warns
at start, and frames the kernel cut to fit the ring count as `truncated`, not `malformed`,
while frames that fit are delivered. A veth pair with MTU 4000; real frames sent into the
peer with an AF_PACKET socket. Needs root (else 77). Usage: test_afpacket.py MCFAN_BINARY"""

import atexit
import os
import shutil
import subprocess
import tempfile
import time

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-afpacket-")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
IF_A, IF_B = f"mcfmtu{os.getpid() % 10000}a", f"mcfmtu{os.getpid() % 10000}b"
MTU = 4000
N_EACH = 20


def ip(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True)


def run(devargs, send):
    """Run mcfan on devargs for 4 s; if send, send N_EACH long and N_EACH short frames into
    the peer once it is up. Returns (exit status, stderr, report or None)."""
    report = os.path.join(TMP, "report.json")
    if os.path.exists(report):
        os.unlink(report)
    eal = t.eal_args(f"afp{os.getpid()}") + ["--vdev", devargs]
    cmd = [t.mcfan_path(), *eal, "--", "--groups", "239.9.9.1:3999", "--duration", "4",
           "--report-json", report]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL)
    if send:
        time.sleep(2.0)
        long_frame = t.udp4_frame("239.9.9.1", 3999, data=b"L" * 2900)    # 2,942 bytes
        short_frame = t.udp4_frame("239.9.9.1", 3999, data=b"s" * 900)    # 942 bytes
        t.packet_send(IF_B, [long_frame, short_frame], N_EACH, 0.005)
    return t.finish_popen(p, eal, report, 60)


def main():
    t.veth_pair_or_skip("test_afpacket", IF_A, IF_B)
    try:
        for i in (IF_A, IF_B):
            ip("link", "set", i, "mtu", str(MTU), "up")
        # IPv6 off on the pair: no router solicitations or MLD reports among the counts
        for i in (IF_A, IF_B):
            subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{i}.disable_ipv6=1"],
                           capture_output=True)
        rc, err, rep = run(f"net_af_packet0,iface={IF_A}", True)
        t.check_eq(rc, 0, f"MTU {MTU}, default framesz: exit status ({err.strip()[-300:]!r})")
        t.check(f"interface {IF_A} has MTU {MTU} but a 2048-byte ring frame (framesz) holds "
                "IP packets of at most 1968 bytes" in err,
                f"MTU {MTU}, default framesz: the start warning ({err.strip()[-400:]!r})")
        if rep is not None:
            d = rep["drops"]
            t.check_eq(d["truncated"], N_EACH, f"frames cut by af_packet are truncated: {d}")
            t.check_eq(d["malformed"], 0, f"and not malformed: {d}")
            t.check_eq(rep["delivered_frames"], N_EACH, "frames that fit are delivered")
            t.check_eq(rep["mac_mismatch"], 0, "frames with their group's MAC: no mismatch")
            t.check(t.conservation(rep), f"conservation: {rep['rx_frames']}")
        else:
            t.check(False, "no report")
        # an MTU that exactly fits the default framesz (2048 - 66 - 14): no warning
        ip("link", "set", IF_A, "mtu", "1968")
        rc, err, rep = run(f"net_af_packet0,iface={IF_A}", False)
        t.check_eq(rc, 0, f"MTU 1968: exit status ({err.strip()[-300:]!r})")
        t.check("ring frame (framesz)" not in err, f"MTU 1968: no warning ({err[-300:]!r})")
        # one byte more than a given framesz holds: the warning names the framesz given, and
        # the framesz and blocksz that hold the MTU (no --mbuf-size: 2016 bytes fit an mbuf)
        ip("link", "set", IF_A, "mtu", "945")
        rc, err, rep = run(f"net_af_packet0,iface={IF_A},framesz=1024,blocksz=4096", False)
        t.check("has MTU 945 but a 1024-byte ring frame (framesz) holds IP packets of at "
                "most 944 bytes" in err and "give --vdev ...,framesz=2048,blocksz=4096 (frames "
                "of the MTU with a VLAN tag), or lower the MTU to 944" in err,
                f"MTU 945, framesz 1024: warning ({err[-600:]!r})")
        # the warning's remedy for the MTU of the first run names --mbuf-size too
        ip("link", "set", IF_A, "mtu", str(MTU))
        rc, err, rep = run(f"net_af_packet0,iface={IF_A}", False)
        t.check("give --vdev ...,framesz=4096,blocksz=4096 (frames of the MTU with a VLAN "
                "tag) and mcfan's --mbuf-size 4064" in err,
                f"MTU {MTU}: the remedy names --mbuf-size ({err[-600:]!r})")
    finally:
        ip("link", "del", IF_A)
    t.finish("afpacket")


if __name__ == "__main__":
    main()
