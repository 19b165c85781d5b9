#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""net_af_xdp on a veth (docs/guide.md "net_af_xdp"): DPDK 22.11's AF_XDP PMD makes its umem
of the mbuf pool's memory and receives nothing from a pool with the LIFO stack handler, which
mcfan picks when two data lcores share a CPU. mcfan keeps the ring handler for such a port and
says why; an operator's --mbuf-pool-ops-name stack is refused with the way out; every frame
sent into the peer is counted; the mbufs the PMD keeps after its close (its fill queue) are
reported as kept by it, within its bound, not as a leak. Real frames are sent into the peer
with an AF_PACKET socket. Needs root and AF_XDP (else 77). Usage: test_afxdp.py MCFAN_BINARY"""

import os
import subprocess
import sys
import tempfile
import time

import mcfantest as t

IF_A, IF_B = f"mcfxdp{os.getpid() % 10000}a", f"mcfxdp{os.getpid() % 10000}b"
N_EACH = 150           # frames of each group
GROUPS = ("239.9.9.1", "239.9.9.2")


def run(lcores, app, send, extra=()):
    """Run mcfan on net_af_xdp0 (IF_A) with --lcores lcores and mcfan options app for 4 s;
    if send, send N_EACH frames of each group into IF_B once it runs. Returns (exit status,
    stdout + stderr, report or None)."""
    fd, report = tempfile.mkstemp(prefix="mcfan-afxdp-", suffix=".json")
    os.close(fd)
    os.unlink(report)
    eal = [*t.eal_lcores(lcores, f"mcfan-afxdp-{os.getpid()}",
                         [f"net_af_xdp0,iface={IF_A},start_queue=0,queue_count=1"]), *extra]
    cmd = [t.mcfan_path(), *eal, "--", "--groups", "239.9.9.1-2:3999", "--duration", "4",
           "--report-json", report, *app]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         stdin=subprocess.DEVNULL)
    if send:
        time.sleep(2.0)
        frames = [t.udp4_frame(g, 3999, data=b"x" * 60) for g in GROUPS]
        t.packet_send(IF_B, frames, N_EACH, 0.002)
    out = t.communicate_or_kill(p, 60)
    t.remove_runtime_dir(eal)
    rep = t.load_report(report)
    if os.path.exists(report):
        os.unlink(report)
    return p.returncode, out, rep


def main():
    t.veth_pair_or_skip("test_afxdp", IF_A, IF_B, up=True)
    try:
        # two data lcores on CPU 1: placement alone would pick the stack handler
        rc, out, rep = run("0@0,1@1,2@1", ["--rx-lcores", "1", "--worker-lcores", "2"], True)
        if rc != 0 and ("xsk" in out.lower() or "af_xdp" in out.lower()) and rep is None:
            print(f"test_afxdp: net_af_xdp does not start here, skipping: {out[-400:]!r}")
            sys.exit(77)
        t.check_eq(rc, 0, f"shared CPU: exit status ({out.strip()[-400:]!r})")
        t.check("handler ring_mp_mc: default-af_xdp (port 0 is net_af_xdp, which gets no "
                "frames from a stack-handler pool in DPDK 22.11)" in out,
                f"shared CPU: the start line names the handler and why ({out[-1500:]!r})")
        if rep is not None:
            t.check_eq(rep["rx_frames"], len(GROUPS) * N_EACH, "every frame sent is received")
            t.check_eq(rep["delivered_frames"], len(GROUPS) * N_EACH, "and delivered")
            t.check_eq(rep["ports"][0]["imissed"], 0, "none missed by the port")
            t.check(t.conservation(rep), f"conservation: {rep['rx_frames']}")
            t.check_eq(t.group_frames(rep), {(g, 3999): N_EACH for g in GROUPS}, "per group")
            kept, bound = rep["mbufs_outside_pool"], rep["mbufs_kept_by_ports_max"]
            t.check_eq(bound, 2048 + 512, "the bound: fill queue 2048 + 512 TX descriptors")
            t.check(0 < kept <= bound, f"mbufs outside the pool within the bound: {kept}")
            t.check(f"mbufs outside their pool: {kept}  (kept by net_af_xdp after its close, "
                    f"at most {bound}: DPDK 22.11 does not return its fill and TX completion "
                    "queues' mbufs; no frame is lost by it)" in out,
                    f"the text report says who keeps them ({out[-600:]!r})")
            t.check("(LEAK)" not in out, "not called a leak")
        else:
            t.check(False, "shared CPU: no report")
        # the operator's stack handler: refused before any frame, with the way out
        for ops in ("stack", "lf_stack"):
            rc, out, rep = run("0-1", [], False, ["--mbuf-pool-ops-name", ops])
            t.check_eq(rc, 2, f"--mbuf-pool-ops-name {ops}: exit status")
            t.check(f"mcfan: --mbuf-pool-ops-name {ops}: port 0 is net_af_xdp, which receives "
                    f"nothing from a pool with the {ops} handler (DPDK 22.11: every frame "
                    "counts as the port's imissed); leave --mbuf-pool-ops-name out or give "
                    "ring_mp_mc" in out, f"--mbuf-pool-ops-name {ops}: message ({out[-600:]!r})")
            t.check(rep is None, f"--mbuf-pool-ops-name {ops}: no report")
        # the ring handler given by the operator: accepted as theirs
        rc, out, rep = run("0-1", [], True, ["--mbuf-pool-ops-name", "ring_mp_mc"])
        t.check_eq(rc, 0, f"--mbuf-pool-ops-name ring_mp_mc: exit status ({out[-300:]!r})")
        t.check("handler ring_mp_mc: option (--mbuf-pool-ops-name ring_mp_mc)" in out,
                "--mbuf-pool-ops-name ring_mp_mc: the start line")
        if rep is not None:
            t.check_eq(rep["delivered_frames"], len(GROUPS) * N_EACH,
                       "--mbuf-pool-ops-name ring_mp_mc: every frame delivered")
    finally:
        subprocess.run(["ip", "link", "del", IF_A], capture_output=True)
    t.finish("afxdp")


if __name__ == "__main__":
    main()
