#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""IGMP and MLD host side against the real thing (docs/igmp.md): a Linux bridge with
IGMP/MLD snooping and its own querier, in a namespace of its own, between a sender namespace
and mcfan's veth (net_af_packet), with `mcast_flood off` on mcfan's port, so a group reaches
mcfan only while the bridge holds a membership for it there.

1. IGMPv2 + MLDv1 bridge (mcast_igmp_version 2, mcast_mld_version 1): before `join` the
   groups' frames do not reach mcfan (the bridge's sender port counts them); after `join`
   they do and `bridge mdb show` lists both groups on mcfan's port; they keep flowing (no
   2 s window without frames) for five membership intervals, answered queries only; after
   `leave` the entries go and the frames stop within the last-member query time; the
   counters say v2 / v1, queries seen, reports and leaves sent.
2. IGMPv3 + MLDv2 bridge: the same with v3 / MLDv2 reports, and a source-specific join
   (232.1.1.1:4000@198.18.0.1, INCLUDE) forwards only that source's frames (tcpdump on
   mcfan's veth sees none of 198.18.0.3's, which the bridge does receive), and the bridge
   lists the (S,G) entry.
3. mcfan stopping (SIGTERM on a v2/MLDv1 bridge, `quit` on a v3/MLDv2 one) leaves its
   groups: the mdb entries go within the last-member query time after it exits, though
   that bridge's membership interval is 30 s.
4. A capture (net_pcap) of malformed IGMP/MLD frames: each counted under its reason
   (malformed, bad_checksum, wrong_ttl, not_for_us), none answered: the TX capture holds
   only the joins' unsolicited reports (and the leaves mcfan sends when it stops).
5. A flood of control frames (net_pcap infinite_rx) fills the control ring: the drop
   reason ctl_ring_full, exactly in the conservation line (test_ring_full).
6. `clear stats` on the console resets the IGMP counters, not membership or querier.
7. Report suppression against a real second member, the kernel of the sender namespace,
   on a router port of a v2 bridge (test_suppression).
8. The MAC filter fallback: a run-time join refused by rte_eth_dev_set_mc_addr_list (a
   net_failsafe port that gains a sub-device without lists) switches the port to
   allmulticast, says so, and the group's frames arrive (test_filter_fallback).
9. Bad input: options (exit 2, nothing started) and console lines (error, nothing
   changed), and a re-join with other sources replacing the sources (console_sources);
   --rx-ports refusals (syntax before EAL; a port not probed, no port left to receive,
   --port-ip of an output-only port after EAL).
10. Output-only ports (docs/delivery.md "Port roles"): a tx output's port sends no IGMP/MLD
   message and is not polled, on net_pcap (its TX queue 0 written to a file:
   test_output_only) and on the snooping bridge (no mdb entry on its bridge port, nothing
   from it on the wire: test_bridge_output); with --rx-ports 0-1 both ports report.
In every other run: drops.control == frames dequeued by the control lcore + ctl_ring_full
(which is 0 there; the flood checks drops.control == dequeued and drops.ctl_ring_full ==
igmp.ctl_ring_full), and dequeued == taken + every invalid reason, exactly.

Timers are short (query interval 1 s, response 0.5 s, membership 2.5 s: the RFC's 2 x query
interval + response) to stay under ~90 s; both bridge runs keep flowing for five membership
intervals (12.5 s).
Usage: test_igmp.py MCFAN_BINARY. Exit 77 (skip) when not root or without `ip netns`.
"""

import ipaddress
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

import mcfantest as t

ID = f"ig{os.getpid() % 100000}"
NS_S, NS_B, NS_R = f"mcfan-igs-{ID}", f"mcfan-igb-{ID}", f"mcfan-igr-{ID}"
V_S, V_BS, V_R, V_BR = f"s{ID}", f"bs{ID}", f"r{ID}", f"br{ID}"
QUERY_CS, RESP_CS, MEMBER_CS = 100, 50, 250      # bridge timers, centiseconds
LAST_MEMBER_S = 2 * 1.0                           # mcast_last_member_count 2 x interval 1 s
G4, G6, GSSM, PORT = "239.9.9.1", "ff3e::9", "232.1.1.1", 3999
SSM_PORT = 4000
PREFIX = "mcfan-igmp"                             # EAL --file-prefix of the runs
MCFAN_IP = "198.18.0.2"                           # mcfan's --port-ip


def sh(cmd, check=True, timeout=30):
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{cmd}: {p.stderr.strip()}")
    return p.stdout


def lab_down():
    for ns in (NS_S, NS_B, NS_R):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def lab_up(igmp_v, mld_v, member_cs=MEMBER_CS):
    lab_down()
    for ns in (NS_S, NS_B, NS_R):
        sh(f"ip netns add {ns}")
    sh(f"ip link add {V_S} type veth peer name {V_BS}")
    sh(f"ip link add {V_R} type veth peer name {V_BR}")
    sh(f"ip link set {V_S} netns {NS_S}; ip link set {V_BS} netns {NS_B}")
    sh(f"ip link set {V_R} netns {NS_R}; ip link set {V_BR} netns {NS_B}")
    for ns in (NS_S, NS_B):
        sh(f"ip netns exec {ns} sysctl -qw net.ipv6.conf.all.accept_dad=0 "
           "net.ipv6.conf.default.accept_dad=0")
    b = f"ip netns exec {NS_B}"
    sh(f"{b} ip link add br0 type bridge mcast_snooping 1 mcast_querier 0 "
       f"mcast_query_interval {QUERY_CS} mcast_query_response_interval {RESP_CS} "
       f"mcast_membership_interval {member_cs} mcast_igmp_version {igmp_v} "
       f"mcast_mld_version {mld_v} mcast_startup_query_count 1")
    # the querier once the timers are set: switching it on holds forwarding back for one
    # query response interval, which at creation would still be the default 10 s
    sh(f"{b} ip link set br0 type bridge mcast_querier 1")
    sh(f"{b} ip link set {V_BS} master br0; {b} ip link set {V_BR} master br0")
    sh(f"{b} bridge link set dev {V_BR} mcast_flood off")
    sh(f"{b} ip link set {V_BS} up; {b} ip link set {V_BR} up; {b} ip link set br0 up")
    s = f"ip netns exec {NS_S}"
    sh(f"{s} ip addr add 198.18.0.1/24 dev {V_S}; {s} ip addr add 198.18.0.3/24 dev {V_S}")
    sh(f"{s} ip link set {V_S} up")
    # mcfan's side: no kernel IPv6 (its own MLD reports would blur what mcfan sends)
    sh(f"ip netns exec {NS_R} sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
       "net.ipv6.conf.default.disable_ipv6=1")
    sh(f"ip netns exec {NS_R} ip link set {V_R} up")
    d = sh(f"{b} ip -d link show br0")
    for opt in ("mcast_snooping 1", "mcast_querier 1", f"mcast_igmp_version {igmp_v}",
                f"mcast_mld_version {mld_v}"):
        if opt not in d:
            raise RuntimeError(f"this kernel's bridge does not take {opt}: {d}")


# The sender: bounded in count and time; prints {"name": frames sent} at the end.
SENDER = r"""
import json, socket, struct, sys, time
dur, pps, ifname = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
flows = json.loads(sys.argv[4])   # [[name, family, src, group, port]]
idx = socket.if_nametoindex(ifname)
socks = []
for name, fam, src, grp, port in flows:
    if fam == 4:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
        s.bind((src, 0))
    else:
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 1)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, idx)
    socks.append((name, s, (grp, port) if fam == 4 else (grp, port, 0, idx)))
sent = {f[0]: 0 for f in flows}
end = time.monotonic() + dur
n = 0
while time.monotonic() < end and n < int(dur * pps) + 10:
    for name, s, dst in socks:
        try:
            s.sendto(b"mcfan-igmp-test", dst)
            sent[name] += 1
        except OSError:
            pass
    n += 1
    time.sleep(1.0 / pps)
print(json.dumps(sent))
"""


def start_sender(dur, pps, flows):
    return subprocess.Popen(["ip", "netns", "exec", NS_S, "timeout", str(int(dur) + 20),
                             "python3", "-c", SENDER, str(dur), str(pps), V_S,
                             json.dumps(flows)], stdout=subprocess.DEVNULL)


def mdb():
    return sh(f"ip netns exec {NS_B} bridge mdb show dev br0", check=False)


def mdb_has(group, src=None):
    for ln in mdb().splitlines():
        if f"port {V_BR} " in ln and f"grp {group} " in ln + " ":
            if src is None or f"src {src} " in ln + " ":
                return True
    return False


def bridge_rx(dev):
    """Frames the bridge received on dev (its RX counter)."""
    out = sh(f"ip netns exec {NS_B} ip -s -j link show {dev}")
    return json.loads(out)[0]["stats64"]["rx"]["packets"]


def wait_for(cond, timeout, step=0.1):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(step)
    return cond()


class Run:
    """mcfan in mcfan's namespace with the console on a pipe and the telemetry socket."""

    def __init__(self, name, app, ns=NS_R, vdev=None, eal_extra=()):
        self.prefix = f"{PREFIX}-{name}-{os.getpid()}"
        self.eal = ["-l", "0-1", "--no-huge", "-m", "512", "--file-prefix", self.prefix,
                    "--no-pci", "--log-level", "lib.eal:warning", *eal_extra,
                    "--vdev", vdev or f"net_af_packet0,iface={V_R}"]
        fd, self.report = tempfile.mkstemp(prefix="mcfan-igmp-", suffix=".json")
        os.close(fd)
        os.unlink(self.report)
        self.p = subprocess.Popen(["ip", "netns", "exec", ns, t.mcfan_path(), *self.eal, "--",
                                   "-i", "--report-json", self.report, *app],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.tel = t.Telemetry(t.telemetry_socket(self.eal), timeout=60)
        self.tel.wait_ready()

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def q(self, cmd):
        return self.tel.query(cmd)[0]

    def frames(self, group):
        v = self.q(f"/mcfan/groups,{group}")
        return v["frames"] if v else 0

    def unknown(self):
        return self.q("/mcfan/counters")["unknown_group"]

    def finish(self):
        self.tel.close()
        self.cmd("quit")
        try:
            out, err = self.p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, err = self.p.communicate()
        rep = None
        if os.path.exists(self.report):
            with open(self.report) as f:
                rep = json.load(f)
            os.unlink(self.report)
        shutil.rmtree(t.runtime_dir(self.eal), ignore_errors=True)
        return self.p.returncode, out, err, rep


def check_path(rep, what):
    """The control frames' conservation, exactly."""
    ig = rep["igmp"]
    t.check(t.conservation(rep), f"[{what}] rx = delivered + drops")
    t.check_eq(rep["drops"]["control"], ig["dequeued"] + ig["ctl_ring_full"],
               f"[{what}] drops.control == dequeued + ctl_ring_full")
    t.check_eq(rep["drops"]["ctl_ring_full"], ig["ctl_ring_full"],
               f"[{what}] drops.ctl_ring_full == igmp.ctl_ring_full")
    taken = sum(p[k]["taken"] + sum(p[k]["invalid"].values())
                for p in ig["ports"] for k in ("igmp", "mld"))
    t.check_eq(ig["dequeued"], taken + ig["unknown_port"],
               f"[{what}] dequeued == taken + invalid (every reason)")
    t.check_eq(rep["mbufs_outside_pool"], 0,
               f"[{what}] every mbuf back in its pool")


def flow_phase(run, groups, mdb_names, seconds, what):
    """For `seconds`: the mdb entries never go (sampled every 0.5 s) and each group's frames
    grow in every 2 s window."""
    last = {g: run.frames(g) for g in groups}
    gaps = {g: [] for g in groups}
    missing = []
    t0 = time.monotonic()
    end = t0 + seconds
    tw = t0
    while time.monotonic() < end:
        time.sleep(0.5)
        now = time.monotonic()
        for m in mdb_names:
            if not mdb_has(m):
                missing.append((round(now - t0, 1), m))
        if now - tw >= 2.0:
            for g in groups:
                f = run.frames(g)
                if f <= last[g]:
                    gaps[g].append(round(now - t0, 1))
                last[g] = f
            tw = now
    t.check_eq(missing, [], f"[{what}] mdb entries missing during {seconds} s (at s)")
    for g in groups:
        t.check_eq(gaps[g], [], f"[{what}] {g}: 2 s windows without frames over {seconds} s "
                   "(ends at s)")


def test_bridge(igmp_v, mld_v, flow_s, ssm):
    what = f"igmp v{igmp_v} mld v{mld_v}"
    lab_up(igmp_v, mld_v)
    flows = [["g4", 4, "198.18.0.1", G4, PORT], ["g6", 6, "", G6, PORT]]
    if ssm:
        flows += [["ssm1", 4, "198.18.0.1", GSSM, SSM_PORT],
                  ["ssm3", 4, "198.18.0.3", GSSM, SSM_PORT]]
    run = Run(f"v{igmp_v}", ["--port-ip", "0=198.18.0.2", "--idle-rx", "backoff"])
    dur = 3 + 2 + flow_s + LAST_MEMBER_S + 6
    snd = start_sender(dur, 50, flows)
    try:
        # the bridge's querier reaches mcfan, which answers nothing yet
        t.check(wait_for(lambda: run.q("/mcfan/igmp")["igmp"]["querier"] != "none", 8),
                f"[{what}] mcfan saw the bridge's IGMP querier")
        v = run.q("/mcfan/igmp")
        t.check_eq(v["igmp"]["version"], igmp_v, f"[{what}] IGMP version follows the querier")
        t.check(wait_for(lambda: run.q("/mcfan/igmp")["mld"]["querier"] != "none", 5),
                f"[{what}] mcfan saw the bridge's MLD querier")
        t.check_eq(run.q("/mcfan/igmp")["mld"]["version"], mld_v,
                   f"[{what}] MLD version follows the querier")
        # before join: the bridge gets the frames, mcfan does not
        u0, b0 = run.unknown(), bridge_rx(V_BS)
        time.sleep(2)
        t.check(bridge_rx(V_BS) - b0 >= 100, f"[{what}] the sender's frames reach the bridge")
        t.check_eq(run.unknown() - u0, 0, f"[{what}] before join no group frame reaches mcfan")
        t.check(not mdb_has(G4) and not mdb_has(G6), f"[{what}] no mdb entry before join")
        joins = f"{G4}:{PORT},[{G6}]:{PORT}"
        if ssm:
            joins += f",{GSSM}:{SSM_PORT}@198.18.0.1"
        run.cmd(f"join {joins}")
        t.check(wait_for(lambda: mdb_has(G4) and mdb_has(G6), 3),
                f"[{what}] after join bridge mdb lists both groups on mcfan's port: {mdb()}")
        t.check(wait_for(lambda: run.frames(f"{G4}:{PORT}") > 0, 3),
                f"[{what}] after join the IPv4 group's frames reach mcfan")
        t.check(wait_for(lambda: run.frames(f"[{G6}]:{PORT}") > 0, 3),
                f"[{what}] after join the IPv6 group's frames reach mcfan")
        gl = run.q("/mcfan/igmp")
        t.check(any(s.split()[0] == G4 for s in gl.get("igmp_groups", [])) and
                any(s.split()[0] == G6 for s in gl.get("mld_groups", [])),
                f"[{what}] /mcfan/igmp lists the joined groups: {gl.get('igmp_groups')} "
                f"{gl.get('mld_groups')}")
        if ssm:
            t.check(wait_for(lambda: mdb_has(GSSM, "198.18.0.1"), 3),
                    f"[{what}] the bridge lists (198.18.0.1, {GSSM}) on mcfan's port: {mdb()}")
            t.check(not mdb_has(GSSM, "198.18.0.3"), f"[{what}] and not 198.18.0.3")
            cap = subprocess.Popen(["ip", "netns", "exec", NS_R, "timeout", "5", "tcpdump",
                                    "-nn", "-l", "-i", V_R, "-Q", "in", f"dst {GSSM}"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   text=True)
            b3 = bridge_rx(V_BS)
            cout, _ = cap.communicate(timeout=20)
            src1 = len(re.findall(r"198\.18\.0\.1\.\d+ > 232\.1\.1\.1", cout))
            src3 = len(re.findall(r"198\.18\.0\.3\.\d+ > 232\.1\.1\.1", cout))
            t.check(src1 >= 10, f"[{what}] source-specific join: 198.18.0.1's frames arrive "
                    f"({src1} in 5 s)")
            t.check_eq(src3, 0, f"[{what}] source-specific join: none of 198.18.0.3's")
            t.check(bridge_rx(V_BS) - b3 >= 4 * src1, f"[{what}] while the bridge gets both "
                    "sources")
        flow_phase(run, [f"{G4}:{PORT}", f"[{G6}]:{PORT}"], [G4, G6], flow_s, what)
        t.check(mdb_has(G4) and mdb_has(G6), f"[{what}] still in the mdb after {flow_s} s")
        # leave: the entries go and the frames stop within the last-member query time
        run.cmd(f"leave {G4}:{PORT},[{G6}]:{PORT}")
        tl = time.monotonic()
        t.check(wait_for(lambda: not mdb_has(G4) and not mdb_has(G6), LAST_MEMBER_S + 1.5),
                f"[{what}] after leave the mdb entries go within the last-member time: {mdb()}")
        gone = time.monotonic() - tl
        time.sleep(0.5)
        u1 = run.unknown()
        time.sleep(1.5)
        t.check_eq(run.unknown() - u1, 0, f"[{what}] after leave (entries gone after "
                   f"{gone:.1f} s) no frame of the groups reaches mcfan")
        v = run.q("/mcfan/igmp")
        vi, vm = f"v{igmp_v}", f"v{mld_v}"
        t.check(v["igmp"][f"queries_general_{vi}"] >= 3, f"[{what}] IGMP general queries seen")
        t.check(v["igmp"][f"queries_group_{vi}"] >= 1, f"[{what}] IGMP group query after leave")
        t.check(v["igmp"][f"reports_sent_{vi}"] >= 4, f"[{what}] IGMP reports sent")
        t.check(v["igmp"][f"leaves_sent_{vi}"] >= 1, f"[{what}] IGMP leave sent")
        t.check(v["mld"][f"queries_general_{vm}"] >= 3, f"[{what}] MLD general queries seen")
        t.check(v["mld"][f"reports_sent_{vm}"] >= 4, f"[{what}] MLD reports sent")
        t.check(v["mld"][f"leaves_sent_{vm}"] >= 1, f"[{what}] MLD done / leave sent")
        t.check(v["tx_failed"] == 0, f"[{what}] no TX failure")
    finally:
        rc, out, err, rep = run.finish()
        snd.kill()
        snd.wait()
        lab_down()
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    if t.check(rep is not None, f"[{what}] report written"):
        check_path(rep, what)
        p = rep["igmp"]["ports"][0]
        t.check_eq(p["igmp"]["source"], "198.18.0.2", f"[{what}] --port-ip source")
        t.check(p["mld"]["source"].startswith("fe80::"), f"[{what}] MLD from link-local")


QUIET = "querier heard for"


def test_querier_gone():
    """The bridge's querier stops (mcast_querier 0), then comes back: mcfan says once per
    protocol that its joined groups have no querier, after the Other Querier Present Interval
    the querier's QRV 2 and QQIC 1 s make (2 x 1 s + 10 s / 2 = 7 s), and once that it is heard
    again. (Before: nothing; without a querier the bridge stops forwarding to a port by
    membership at once, and mcfan, which reports only when asked, cannot keep it.)"""
    what = "querier gone"
    lab_up(3, 2)
    run = Run("quiet", ["--port-ip", f"0={MCFAN_IP}", "--groups", f"{G4}:{PORT},[{G6}]:{PORT}"])
    rc, err, rep = None, "", None
    try:
        t.check(wait_for(lambda: run.q("/mcfan/igmp")["igmp"]["querier"] != "none" and
                         run.q("/mcfan/igmp")["mld"]["querier"] != "none", 8),
                f"[{what}] mcfan heard the bridge's IGMP and MLD queriers")
        sh(f"ip netns exec {NS_B} ip link set br0 type bridge mcast_querier 0")
        t_off = time.monotonic()
        time.sleep(9)
        sh(f"ip netns exec {NS_B} ip link set br0 type bridge mcast_querier 1")
        time.sleep(3)
        rc, _, err, rep = run.finish()
    finally:
        if rc is None:
            run.finish()
        lab_down()
    print(f"{what}: {time.monotonic() - t_off:.1f} s with the querier off and on again",
          flush=True)
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    lines = [ln for ln in err.splitlines() if "querier" in ln]
    for proto, ver in (("IGMP", 3), ("MLD", 2)):
        warn = [ln for ln in lines if f"port 0: no {proto} {QUIET}" in ln]
        t.check(len(warn) == 1 and re.search(r"for ([7-9]) s while 1 group\(s\) are joined: a "
                                              r"snooping switch keeps", warn[0]) is not None,
                f"[{what}] one {proto} warning after 7-9 s: {lines}")
        again = [i for i, ln in enumerate(lines)
                 if f"port 0: {proto} querier heard again (v{ver})" in ln]
        t.check(len(again) == 1 and warn and again[0] > lines.index(warn[0]),
                f"[{what}] then {proto} querier heard again, once: {lines}")


# A kernel member of a group in the sender's namespace: joined for `seconds`, then it exits.
MEMBER = r"""
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             struct.pack("4s4s", socket.inet_aton(sys.argv[1]), socket.inet_aton(sys.argv[2])))
time.sleep(float(sys.argv[3]))
"""


def test_suppression():
    """IGMPv2 report suppression against a real second member: the kernel of the sender's
    namespace joins the group too and answers the bridge's v2 queries; mcfan's bridge port
    is made a router port (mcast_router 2), so the bridge passes that member's reports to
    mcfan. Each query, whichever answer is due first goes out: when the kernel's comes
    first, mcfan cancels its own (reports_suppressed), so over 12 queries some of mcfan's
    answers are suppressed and the rest sent, never both for one query."""
    what = "suppression"
    lab_up(2, 1)
    sh(f"ip netns exec {NS_B} bridge link set dev {V_BR} mcast_router 2")
    member = subprocess.Popen(["ip", "netns", "exec", NS_S, "timeout", "40", "python3", "-c",
                               MEMBER, G4, "198.18.0.1", "25"])
    run = Run("suppress", ["--port-ip", "0=198.18.0.2", "--igmp", "auto", "--mld", "off",
                           "--groups", f"{G4}:{PORT}"])
    rc, err, rep = None, "", None
    try:
        t.check(wait_for(lambda: run.q("/mcfan/igmp")["igmp"]["version"] == 2, 8),
                f"[{what}] mcfan speaks v2 to the bridge's v2 querier")
        v0 = run.q("/mcfan/igmp")["igmp"]
        time.sleep(12 * QUERY_CS / 100)
        v = run.q("/mcfan/igmp")["igmp"]
        q = v["queries_general_v2"] - v0["queries_general_v2"]
        sup = v["reports_suppressed_v2"] - v0["reports_suppressed_v2"]
        ans = v["reports_sent_v2"] - v0["reports_sent_v2"]
        print(f"{what}: {q} queries, {ans} answers sent, {sup} suppressed", flush=True)
        t.check(q >= 10, f"[{what}] the bridge queried ({q})")
        t.check(v["invalid_not_for_us"] - v0["invalid_not_for_us"] >= q // 2,
                f"[{what}] mcfan heard the other member's reports (not_for_us)")
        t.check(sup >= 1, f"[{what}] some of mcfan's answers were suppressed ({sup} of {q})")
        t.check(ans >= 1, f"[{what}] and the others sent ({ans})")
        t.check(sup + ans <= q + 2, f"[{what}] at most one answer a query: {ans} + {sup}")
        # (the mdb entry of mcfan's port may lapse meanwhile: a router port needs none)
        rc, _, err, rep = run.finish()
    finally:
        if rc is None:
            run.finish()
        member.kill()
        member.wait()
        lab_down()
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    if t.check(rep is not None, f"[{what}] report written"):
        check_path(rep, what)
        t.check(rep["igmp"]["ports"][0]["igmp"]["reports_suppressed"]["v2"] >= 1,
                f"[{what}] the report counts reports_suppressed")


STOP_MEMBER_CS = 3000   # a 30 s membership interval: a prune without a leave takes that long


def test_stop_leave(igmp_v, mld_v, how):
    """mcfan stopping (SIGTERM, or `quit` on the console) leaves its groups: the bridge's
    mdb entries go within the last-member query time after mcfan exits, not after the
    membership interval (30 s here), and the report lists the groups as left."""
    what = f"stop ({how}) igmp v{igmp_v} mld v{mld_v}"
    lab_up(igmp_v, mld_v, STOP_MEMBER_CS)
    g4, g6 = "239.9.9.2", "ff3e::a"
    run = Run(f"stop{igmp_v}", ["--port-ip", "0=198.18.0.2", "--idle-rx", "backoff",
                                "--igmp", f"v{igmp_v}", "--mld", f"v{mld_v}",
                                "--groups", f"{g4}:{PORT},[{g6}]:{PORT}"])
    rc, err, rep = None, "", None
    try:
        t.check(wait_for(lambda: mdb_has(g4) and mdb_has(g6), 5),
                f"[{what}] the groups of --groups are in the bridge's mdb: {mdb()}")
        time.sleep(0.5)
        if how == "sigterm":
            run.tel.close()
            run.p.send_signal(signal.SIGTERM)
            _, err = run.p.communicate(timeout=60)
            rc = run.p.returncode
            if os.path.exists(run.report):
                with open(run.report) as f:
                    rep = json.load(f)
                os.unlink(run.report)
            shutil.rmtree(t.runtime_dir(run.eal), ignore_errors=True)
        else:
            rc, _, err, rep = run.finish()
        tq = time.monotonic()
        gone = wait_for(lambda: not mdb_has(g4) and not mdb_has(g6), LAST_MEMBER_S + 1.5)
        t.check(gone, f"[{what}] after mcfan exits the mdb entries go within the last-member "
                f"time ({LAST_MEMBER_S + 1.5} s, not the {STOP_MEMBER_CS / 100:.0f} s "
                f"membership interval): {mdb()}")
        print(f"{what}: entries gone {time.monotonic() - tq:.1f} s after the exit", flush=True)
    finally:
        if rc is None:
            run.finish()
        lab_down()
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    if t.check(rep is not None, f"[{what}] report written"):
        check_path(rep, what)
        p = rep["igmp"]["ports"][0]
        t.check(p["igmp"]["leaves_sent"][f"v{igmp_v}"] >= 1 and
                p["mld"]["leaves_sent"][f"v{mld_v}"] >= 1,
                f"[{what}] leaves sent at stop: {p['igmp']['leaves_sent']} "
                f"{p['mld']['leaves_sent']}")
        t.check_eq([(g["group"], g["state"]) for g in p["igmp"]["groups"] + p["mld"]["groups"]],
                   [(g4, "left"), (g6, "left")], f"[{what}] the report lists the groups as left")
        # the stop line counts what the report counts: its leaves (no leave before the stop
        # in this run) and every message of the run
        li, lm = sum(p["igmp"]["leaves_sent"].values()), sum(p["mld"]["leaves_sent"].values())
        line = (f"port 0: stopping: left 1 IGMP (v{igmp_v}) and 1 MLD (v{mld_v}) groups with "
                f"{li + lm} leave messages at the stop (IGMP {li}, MLD {lm}, repeats of "
                f"earlier leaves included; the report's leaves sent count them and the run's "
                f"earlier ones; "
                f"{p['tx_failed']} refused by TX queue 0); {p['tx_frames']} IGMP/MLD messages "
                f"sent in the run, reports included (the report's sent)")
        stop = [ln for ln in err.splitlines() if "stopping: left" in ln]
        t.check(len(stop) == 1 and stop[0].endswith(line),
                f"[{what}] the stop line agrees with the report: {line!r}, got {stop}")
        t.check_eq(p["tx_frames"], sum(p["igmp"]["reports_sent"].values()) + li +
                   sum(p["mld"]["reports_sent"].values()) + lm - p["tx_failed"],
                   f"[{what}] the report's sent = its reports + leaves - tx_failed")


V_O, V_BO = f"o{ID}", f"bo{ID}"     # mcfan's second port (a tx output) and its bridge port


def mdb_on(port, group):
    """Whether the bridge's mdb holds group on bridge port `port`."""
    return any(f"port {port} " in ln and f"grp {group} " in ln + " "
               for ln in mdb().splitlines())


def test_bridge_output(rx_ports):
    """A tx output on the snooping bridge's segment (docs/delivery.md "Port roles"): mcfan's
    port 1 (net_af_packet on a second veth into the same bridge, mcast_flood off there too)
    is the output of tx. By default it sends no report: the bridge's mdb holds the groups on
    mcfan's port 0 only, tcpdump on the bridge's end of port 1's veth sees no IGMP/MLD report
    or leave come from it
    (the bridge's queries reach it, unread: the port is not polled, ipackets 0), so the
    bridge would forward no feed onto the output segment. With --rx-ports 0-1 the bridge
    holds them on both ports. No sender: nothing is sent to a group, so no copy goes out."""
    what = f"bridge, tx output{' --rx-ports ' + rx_ports if rx_ports else ''}"
    lab_up(3, 2)
    b = f"ip netns exec {NS_B}"
    sh(f"ip link add {V_O} type veth peer name {V_BO}")
    sh(f"ip link set {V_O} netns {NS_R}; ip link set {V_BO} netns {NS_B}")
    sh(f"{b} ip link set {V_BO} master br0; {b} bridge link set dev {V_BO} mcast_flood off")
    sh(f"{b} ip link set {V_BO} up; ip netns exec {NS_R} ip link set {V_O} up")
    g4, g6 = "239.9.9.3", "ff3e::b"
    cap = {v: tempfile.mktemp(prefix=f"mcfan-igmp-{v}-", suffix=".pcap") for v in (V_BR, V_BO)}
    dumps = {}
    run, rc, err, rep = None, None, "", None
    try:
        # tcpdump on the bridge's side of mcfan's two veths, on what the bridge receives
        # there (-Q in: what mcfan's port sent; net_af_packet bypasses the qdisc, so mcfan's
        # side sees none of it, and the bridge floods port 0's reports to 224.0.0.22 and
        # ff02::16 out of every port), before mcfan sends anything
        for v in (V_BR, V_BO):
            dumps[v] = subprocess.Popen(["ip", "netns", "exec", NS_B, "timeout", "60",
                                         "tcpdump", "-i", v, "-Q", "in", "-p", "-U", "-w",
                                         cap[v], "igmp or ip6"], stderr=subprocess.PIPE,
                                        text=True)
            line = dumps[v].stderr.readline()
            t.check("listening" in line, f"[{what}] tcpdump on {v} listens: {line}")
        run = Run(f"out{'rx' if rx_ports else ''}",
                  ["--port-ip", "0=198.18.0.2", "--idle-rx", "backoff", "--igmp", "v3",
                   "--mld", "v2", "--groups", f"{g4}:{PORT},[{g6}]:{PORT}",
                   "--worker-engine", "tx:net_af_packet1"] +
                  (["--rx-ports", rx_ports] if rx_ports else []),
                  eal_extra=["--vdev", f"net_af_packet0,iface={V_R}"],
                  vdev=f"net_af_packet1,iface={V_O},qpairs=2")
        t.check(wait_for(lambda: mdb_on(V_BR, g4) and mdb_on(V_BR, g6), 5),
                f"[{what}] the groups are in the bridge's mdb on port 0's bridge port: {mdb()}")
        if rx_ports:
            t.check(wait_for(lambda: mdb_on(V_BO, g4) and mdb_on(V_BO, g6), 5),
                    f"[{what}] and on port 1's (--rx-ports): {mdb()}")
        # three query intervals: the bridge's queries reach both ports
        time.sleep(3 * QUERY_CS / 100)
        if not rx_ports:
            t.check(not mdb_on(V_BO, g4) and not mdb_on(V_BO, g6),
                    f"[{what}] no mdb entry on the output port's bridge port: {mdb()}")
        rc, _, err, rep = run.finish()
        run = None
        time.sleep(0.5)   # the leaves of the stop reach tcpdump
    finally:
        if run is not None:
            run.finish()
        for p in dumps.values():
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        lab_down()
    got = {}
    for v in (V_BR, V_BO):
        igmp, mld = control_frames(read_pcap(cap[v]))
        # mcfan's messages, not the bridge's queries (IGMP 0x11, MLD 130)
        got[v] = (len([f for f in igmp if f[14 + (f[14] & 0xf) * 4] != 0x11]),
                  len([f for f in mld if f[62] != 130]))
        os.unlink(cap[v])
    t.check(got[V_BR][0] >= 1 and got[V_BR][1] >= 1,
            f"[{what}] port 0 sent IGMP and MLD reports: {got[V_BR]}")
    if rx_ports:
        t.check(got[V_BO][0] >= 1 and got[V_BO][1] >= 1,
                f"[{what}] port 1 (--rx-ports) sent IGMP and MLD reports: {got[V_BO]}")
    else:
        t.check_eq(got[V_BO], (0, 0), f"[{what}] no IGMP/MLD message left the output port")
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    if t.check(rep is not None, f"[{what}] report written"):
        ports = {p["name"]: p for p in rep["ports"]}
        out = ports.get("net_af_packet1", {})
        t.check_eq(out.get("role"), "rx" if rx_ports else "output", f"[{what}] port 1's role")
        t.check_eq(len(rep["igmp"]["ports"]), 2 if rx_ports else 1,
                   f"[{what}] IGMP/MLD hosts: the RX ports'")
        if not rx_ports:
            t.check_eq(out.get("ipackets"), 0,
                       f"[{what}] port 1 not polled: the bridge's queries not read")
        else:
            t.check(out.get("ipackets", 0) >= 1, f"[{what}] port 1 polled: the queries read")
        check_path(rep, what)

NS_F, TAP_F = f"mcfan-igf-{ID}", f"t{ID}"


def port_filter(out, port_name):
    """The filter column of each `show port stats` row of port_name, in order."""
    return re.findall(r"^\s+\d+ %s\s+(\S+)\s+\d+" % re.escape(port_name), out, re.M)


def test_filter_fallback():
    """MAC filters follow membership: a run-time join whose rte_eth_dev_set_mc_addr_list
    fails falls back to allmulticast and says so. The only virtual PMDs here that take a
    multicast list are net_tap (always) and net_failsafe (if every sub-device does), so the
    port is a fail-safe over a tap, and a second sub-device that refuses lists (a fail-safe
    over net_null) is plugged in while mcfan runs (fail-safe's exec() sub-device, polled
    every 100 ms): the list taken at start (mc_addr_list) is refused at the next join."""
    what = "filter fallback"
    tmp = tempfile.mkdtemp(prefix="mcfan-igmp-filter-")
    flag = os.path.join(tmp, "subdevice")
    subprocess.run(["ip", "netns", "del", NS_F], capture_output=True)
    sh(f"ip netns add {NS_F}")
    sh(f"ip netns exec {NS_F} sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
       "net.ipv6.conf.default.disable_ipv6=1")
    vdev = (f"net_failsafe0,hotplug_poll=100,dev(net_tap0,iface={TAP_F}),"
            f"exec(cat {flag})")
    run = Run("filter", ["--igmp", "v3", "--mld", "off"], ns=NS_F, vdev=vdev,
              eal_extra=["--log-level", "pmd.net.failsafe:info"])
    snd = None
    rc, out, err, rep = None, "", "", None
    try:
        t.check_eq(run.q("/mcfan/igmp")["filter_mode"], "mc_addr_list",
                   f"[{what}] at start the fail-safe over a tap takes the multicast list")
        run.cmd("show port stats")
        with open(flag, "w") as f:
            f.write("net_failsafe1,dev(net_null1,no-rx=1)\n")
        time.sleep(2.0)   # plugged and configured by the next hot-plug poll (100 ms)
        sh(f"ip netns exec {NS_F} ip addr add 198.18.7.1/24 dev {TAP_F}")
        run.cmd(f"join {G4}:{PORT}")
        t.check(wait_for(lambda: run.q("/mcfan/igmp")["filter_mode"] == "allmulticast", 5),
                f"[{what}] the join's refused list switched the port to allmulticast")
        run.cmd("show port stats")
        snd = subprocess.Popen(["ip", "netns", "exec", NS_F, "timeout", "20", "python3", "-c",
                                SENDER, "3", "100", TAP_F,
                                json.dumps([["g4", 4, "198.18.7.1", G4, PORT]])],
                               stdout=subprocess.PIPE, text=True)
        t.check(wait_for(lambda: run.frames(f"{G4}:{PORT}") >= 50, 8),
                f"[{what}] the group's frames arrive after the fallback "
                f"({run.frames(f'{G4}:{PORT}')})")
        snd.communicate(timeout=30)
        rc, out, err, rep = run.finish()
    finally:
        if rc is None:
            run.finish()
        if snd is not None and snd.poll() is None:
            snd.kill()
            snd.wait()
        subprocess.run(["ip", "netns", "del", NS_F], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    t.check("Initializing Fail-safe PMD for net_failsafe1" in err and
            "Unable to synchronize sub_device state" not in err,
            f"[{what}] the second sub-device was plugged in and configured")
    t.check("port 0: cannot update the multicast address list (1 addresses): Operation not "
            "supported; allmulticast enabled instead (filter mode allmulticast)" in err,
            f"[{what}] the warning says so ({err[-600:]!r})")
    t.check_eq(port_filter(out, "net_failsafe0")[:2], ["mc_addr_list", "allmulticast"],
               f"[{what}] show port stats: mc_addr_list before, allmulticast after the join")
    if t.check(rep is not None, f"[{what}] report written"):
        t.check_eq([p["filter_mode"] for p in rep["ports"]], ["allmulticast"],
                   f"[{what}] the report's ports[].filter_mode")
        t.check_eq(rep["igmp"]["ports"][0]["filter_mode"], "allmulticast",
                   f"[{what}] the report's igmp.ports[].filter_mode")
        t.check(t.conservation(rep), f"[{what}] rx = delivered + drops")
        g = [x for x in rep["groups"] if x["group"] == G4]
        t.check(len(g) == 1 and g[0]["frames"] >= 50, f"[{what}] the group's frames: {g}")


def icmp6(src, dst, msg):
    pseudo = (ipaddress.IPv6Address(src).packed + ipaddress.IPv6Address(dst).packed +
              struct.pack("!IxxxB", len(msg), 58))
    c = t._csum(pseudo + msg)
    return msg[:2] + struct.pack("!H", c) + msg[4:]


HBH_RA = bytes([58, 0, 5, 2, 0, 0, 1, 0])


def igmp_frame(dst, msg, ttl=1, fix=True):
    if fix:
        msg = msg[:2] + struct.pack("!H", t._csum(msg[:2] + b"\0\0" + msg[4:])) + msg[4:]
    return t.eth(t.mac_for_group(dst), 0x0800,
                 t.ipv4("198.18.0.254", dst, 2, msg, ihl=6, options=b"\x94\x04\0\0", ttl=ttl))


def mld_frame(src, dst, msg, hlim=1, fix=True):
    if fix:
        msg = icmp6(src, dst, msg[:2] + b"\0\0" + msg[4:])
    ip = bytearray(t.ipv6(src, dst, 0, HBH_RA + msg))
    ip[7] = hlim
    return t.eth(t.mac_for_group(dst), 0x86DD, bytes(ip))


def test_never_reported():
    """224.0.0.1 and ff02::1 (RFC 3376 section 5, RFC 3810 section 6): received, never
    reported, never left; the group beside them is reported as always."""
    what = "never reported"
    tmp = tempfile.mkdtemp(prefix="mcfan-igmp-nr-")
    inp, outp = os.path.join(tmp, "in.pcap"), os.path.join(tmp, "out.pcap")
    frames = [t.udp4_frame("224.0.0.1", 5000)] * 3 + [t.udp6_frame("ff02::1", 5000)] * 2 + \
        [t.udp4_frame("239.9.9.1", 5000)]
    t.write_pcap(inp, frames)
    eal = ["-l", "0-1", "--no-huge", "-m", "512", "--file-prefix",
           f"mcfan-igmp-nr-{os.getpid()}", "--no-pci", "--log-level", "lib.eal:warning",
           "--vdev", f"net_pcap0,rx_pcap={inp},tx_pcap={outp}"]
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "224.0.0.1:5000,[ff02::1]:5000,"
                                          "239.9.9.1:5000", "--igmp", "v3", "--mld", "v2",
                                          "--duration", "2"], timeout=60)
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    if t.check(rep is not None, f"[{what}] report written"):
        gf = t.group_frames(rep)
        t.check_eq(sorted(gf.items()), sorted({("224.0.0.1", 5000): 3, ("ff02::1", 5000): 2,
                                               ("239.9.9.1", 5000): 1}.items()),
                   f"[{what}] every group's frames received")
        p = rep["igmp"]["ports"][0]
        t.check_eq(p["mld"]["reports_sent"]["v2"], 0, f"[{what}] no MLD report for ff02::1")
        t.check_eq(p["igmp"]["reports_sent"]["v3"], 2, f"[{what}] 239.9.9.1's 2 reports only")
    # what went out: the reports of 239.9.9.1 only (2 joins, 2 leaves at stop)
    groups = []
    for f in read_pcap(outp):
        if f[12:14] == b"\x08\x00":
            groups.append(("igmp", bytes(f[14 + 24 + 12:14 + 24 + 16])))
        elif f[12:14] == b"\x86\xdd":
            groups.append(("mld", bytes(f[14 + 48 + 12:14 + 48 + 28])))
    t.check_eq(sorted(groups), [("igmp", bytes([239, 9, 9, 1]))] * 4,
               f"[{what}] sent: 239.9.9.1's records only, nothing for 224.0.0.1 or ff02::1")
    shutil.rmtree(tmp, ignore_errors=True)
    t.remove_runtime_dir(eal)


def control_frames(frames):
    """(IGMP messages, MLD messages) among frames (bytes): IPv4 protocol 2, and IPv6 with a
    Hop-by-Hop header followed by ICMPv6 MLD (types 130, 131, 132, 143)."""
    igmp = [f for f in frames if f[12:14] == b"\x08\x00" and f[23] == 2]
    mld = [f for f in frames if f[12:14] == b"\x86\xdd" and f[20] == 0 and len(f) > 62 and
           f[54] == 58 and f[62] in (130, 131, 132, 143)]
    return igmp, mld


def test_output_only():
    """A port used only as a tx output (docs/delivery.md "Port roles") joins nothing: two
    net_pcap ports, port 1 the output of tx:1, each with a capture of group frames and an
    IGMPv3 general query on its RX side and its TX queues written into files (queue 0: the
    control lcore's IGMP/MLD, queue 1: the tx worker's copies). By default port 1 sends no
    IGMP or MLD message (its queue 0 file holds none), is not polled (ipackets 0, none of its
    frames counted, its query unanswered), has no host in the igmp section and its filter
    is left untouched; port 0 reports as ever. With --rx-ports 0-1 port 1 is polled and
    reports too (the operator who receives and sends on one port)."""
    what = "output-only"
    tmp = tempfile.mkdtemp(prefix="mcfan-igmp-out-")
    q3 = bytes([0x11, 10, 0, 0, 0, 0, 0, 0, 2, 125, 0, 0])
    in0, in1 = os.path.join(tmp, "in0.pcap"), os.path.join(tmp, "in1.pcap")
    src = "198.18.41.1"
    t.write_pcap(in0, [t.udp4_frame("239.9.9.1", 5000, src=src)] * 30 +
                 [t.udp6_frame("ff3e::1", 5000)] * 20)
    t.write_pcap(in1, [igmp_frame("224.0.0.1", q3)] + [t.udp4_frame("239.9.9.1", 5000,
                                                                    src=src)] * 17)
    for rx_ports, want0 in ((None, 30), ("0-1", 47)):
        tag = f"[{what}{' --rx-ports ' + rx_ports if rx_ports else ''}]"
        outs = {k: os.path.join(tmp, f"{k}-{rx_ports or 'default'}.pcap")
                for k in ("o0", "o1q0", "o1q1")}
        eal = ["--lcores", "0@0,1@1,2@1", "--no-huge", "-m", "512", "--file-prefix",
               f"{PREFIX}-out-{os.getpid()}", "--no-pci", "--log-level", "lib.eal:warning",
               "--vdev", f"net_pcap0,rx_pcap={in0},tx_pcap={outs['o0']}",
               "--vdev", f"net_pcap1,rx_pcap={in1},tx_pcap={outs['o1q0']},"
               f"tx_pcap={outs['o1q1']}"]
        app = ["--groups", "239.9.9.1:5000,[ff3e::1]:5000", "--igmp", "v3", "--mld", "v2",
               "--worker-engine", "tx:1", "--duration", "2"]
        if rx_ports:
            app += ["--rx-ports", rx_ports]
        rc, out, err, rep = t.run_mcfan(eal, app, timeout=60)
        t.remove_runtime_dir(eal)
        t.check_eq(rc, 0, f"{tag} exit status ({err[-400:]!r})")
        if not t.check(rep is not None, f"{tag} report written"):
            continue
        ports = {p["port_id"]: p for p in rep["ports"]}
        role1 = "rx" if rx_ports else "output"
        t.check_eq([(ports[i]["role"], ports[i]["role_why"]) for i in (0, 1)],
                   [("rx", "--rx-ports" if rx_ports else "default"),
                    (role1, "--rx-ports" if rx_ports else "tx output")],
                   f"{tag} the report's ports[].role and role_why")
        t.check(re.search(r"^\s+1 net_pcap1\s+net_pcap\s+.* " + role1 + r"$", out, re.M)
                is not None, f"{tag} the text report's ports table says port 1 is {role1}")
        gf = t.group_frames(rep)
        t.check_eq(sorted(gf.items()), sorted({("239.9.9.1", 5000): want0,
                                               ("ff3e::1", 5000): 20}.items()),
                   f"{tag} group frames: port 1's {'counted' if rx_ports else 'not received'}")
        t.check_eq(ports[1]["ipackets"], 18 if rx_ports else 0,
                   f"{tag} port 1's ipackets (not polled by default)")
        t.check(t.conservation(rep), f"{tag} rx = delivered + drops")
        hosts = [p["port"] for p in rep["igmp"]["ports"]]
        t.check_eq(hosts, [0, 1] if rx_ports else [0],
                   f"{tag} IGMP/MLD hosts: the RX ports' only")
        if not rx_ports:
            t.check_eq(ports[1]["filter_mode"], "untouched",
                       f"{tag} port 1's multicast filter left as it is")
            t.check("port 1: output-only (tx output): not polled, no group joined, no "
                    "IGMP/MLD report sent" in err, f"{tag} said at start: {err[-800:]!r}")
        i0, m0 = control_frames(read_pcap(outs["o0"]))
        i1, m1 = control_frames(read_pcap(outs["o1q0"]))
        t.check(len(i0) >= 2 and len(m0) >= 2,
                f"{tag} port 0 sent IGMP and MLD reports: {len(i0)} IGMP, {len(m0)} MLD")
        if rx_ports:
            t.check(len(i1) >= 2 and len(m1) >= 2,
                    f"{tag} port 1 sent IGMP and MLD reports: {len(i1)} IGMP, {len(m1)} MLD")
        else:
            t.check_eq((len(i1), len(m1)), (0, 0),
                       f"{tag} no IGMP or MLD message left the output port")
        copies = read_pcap(outs["o1q1"])
        t.check_eq(len(copies), want0 + 20, f"{tag} the tx output sent every copy")
        t.check_eq(control_frames(copies), ([], []), f"{tag} no IGMP/MLD among the copies")
    shutil.rmtree(tmp, ignore_errors=True)


def test_capture():
    """Malformed frames from a capture: counted per reason, never answered."""
    what = "capture"
    tmp = tempfile.mkdtemp(prefix="mcfan-igmp-pcap-")
    inp, outp = os.path.join(tmp, "in.pcap"), os.path.join(tmp, "out.pcap")
    q2 = bytes([0x11, 100, 0, 0, 0, 0, 0, 0])
    q3 = bytes([0x11, 100, 0, 0, 0, 0, 0, 0, 2, 125, 0, 0])
    m2 = bytes([130, 0, 0, 0, 0x03, 0xe8, 0, 0]) + bytes(16) + bytes([2, 125, 0, 0])
    ll = "fe80::1"
    bad = igmp_frame("224.0.0.1", q3)
    bad = bad[:-1] + bytes([bad[-1] ^ 0xff])
    mbad = mld_frame(ll, "ff02::1", m2)
    mbad = mbad[:-1] + bytes([mbad[-1] ^ 0xff])
    frames = [
        (igmp_frame("224.0.0.1", q3, ttl=2), "igmp", "wrong_ttl"),
        (bad, "igmp", "bad_checksum"),
        (igmp_frame("224.0.0.1", q3[:10]), "igmp", "malformed"),      # 10 bytes: no version
        (igmp_frame("239.9.9.1", q2), "igmp", "not_for_us"),          # general query to a group
        (igmp_frame("224.0.0.1", bytes([0x16, 0, 0, 0, 239, 9, 9, 1])), "igmp", "not_for_us"),
        (mld_frame(ll, "ff02::1", m2, hlim=255), "mld", "wrong_ttl"),
        (mbad, "mld", "bad_checksum"),
        (mld_frame(ll, "ff02::1", m2[:26]), "mld", "malformed"),
        (mld_frame("2001:db8::1", "ff02::1", m2), "mld", "not_for_us"),  # not link-local
    ]
    t.write_pcap(inp, [f for f, _, _ in frames])
    eal = ["-l", "0-1", "--no-huge", "-m", "512", "--file-prefix",
           f"mcfan-igmp-pcap-{os.getpid()}", "--no-pci", "--log-level", "lib.eal:warning",
           "--vdev", f"net_pcap0,rx_pcap={inp},tx_pcap={outp}"]
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", f"239.9.9.1,[{G6}]", "--igmp", "v3",
                                          "--mld", "v2", "--duration", "3"], timeout=60)
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    if t.check(rep is not None, f"[{what}] report written"):
        check_path(rep, what)
        t.check_eq(rep["drops"]["control"], len(frames), f"[{what}] every frame is control")
        p = rep["igmp"]["ports"][0]
        for k in ("igmp", "mld"):
            want = {"malformed": 0, "bad_checksum": 0, "wrong_ttl": 0, "not_for_us": 0}
            for _, kk, r in frames:
                if kk == k:
                    want[r] += 1
            t.check_eq(p[k]["invalid"], want, f"[{what}] {k}: invalid frames per reason")
            t.check_eq(p[k]["taken"], 0, f"[{what}] {k}: nothing taken")
            t.check_eq(sum(p[k]["queries_general"].values()), 0, f"[{what}] {k}: no query")
        t.check_eq(p["igmp"]["reports_sent"]["v3"], 2, f"[{what}] IGMPv3: the join's 2 reports")
        t.check_eq(p["mld"]["reports_sent"]["v2"], 2, f"[{what}] MLDv2: the join's 2 reports")
    # what went out: only CHANGE_TO_EXCLUDE records (the joins), no answer (IS_EX)
    sent = read_pcap(outp)
    kinds = []
    for f in sent:
        if f[12:14] == b"\x08\x00":
            g = f[14 + 24:]
            kinds.append(("igmp", g[0], g[8]))
        elif f[12:14] == b"\x86\xdd":
            m = f[14 + 48:]
            kinds.append(("mld", m[0], m[8]))
    # (and, since mcfan leaves its groups when it stops, 2 + 2 TO_IN leaves at the end)
    t.check_eq(sorted(kinds), sorted([("igmp", 0x22, 4)] * 2 + [("mld", 143, 4)] * 2 +
                                     [("igmp", 0x22, 3)] * 2 + [("mld", 143, 3)] * 2),
               f"[{what}] sent: 2 IGMPv3 and 2 MLDv2 TO_EX joins, no answer")
    shutil.rmtree(tmp, ignore_errors=True)
    t.remove_runtime_dir(eal)


def igmp_blocks(out):
    """The `show igmp` answers of a console run, in order: {"taken", "invalid": {reason: n},
    "v3": [queries_general, queries_group, queries_source, reports_sent, leaves_sent,
    suppressed], "groups": [group], "querier": text}."""
    blocks, cur = [], None
    for ln in out.splitlines():
        if ln.startswith("mcfan> "):
            cur = None
            if ln.strip() == "mcfan> show igmp":
                cur = {"groups": [], "querier": None}
                blocks.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"\s+taken (\d+), invalid: (.*)$", ln)
        if m:
            cur["taken"] = int(m.group(1))
            f = m.group(2).split()
            cur["invalid"] = {f[i]: int(f[i + 1]) for i in range(0, len(f) - 1, 2)}
        m = re.match(r"\s+3((?:\s+\d+){6})$", ln)
        if m:
            cur["v3"] = [int(x) for x in m.group(1).split()]
        m = re.match(r"\s+group (\S+)\s+(?:joining|delaying|idle|leaving)\s+sources", ln)
        if m:
            cur["groups"].append(m.group(1))
        m = re.match(r"\s+querier (.*)$", ln)
        if m:
            cur["querier"] = m.group(1).split(",")[0]
    return blocks


def test_clear_stats():
    """`clear stats` on the console resets the IGMP counters (queries, reports, taken,
    invalid frames, dequeued) but not the membership or the querier."""
    what = "clear stats"
    tmp = tempfile.mkdtemp(prefix="mcfan-igmp-clear-")
    inp, outp = os.path.join(tmp, "in.pcap"), os.path.join(tmp, "out.pcap")
    q3 = bytes([0x11, 5, 0, 0, 0, 0, 0, 0, 2, 125, 0, 0])    # general, Max Resp 0.5 s
    t.write_pcap(inp, [igmp_frame("224.0.0.1", q3),
                       igmp_frame("224.0.0.1", q3, ttl=2),
                       igmp_frame("224.0.0.1", bytes([0x16, 0, 0, 0, 239, 9, 9, 1]))])
    cmds = os.path.join(tmp, "cmds")
    with open(cmds, "w") as f:
        f.write("wait 1500\nshow igmp\nclear stats\nshow igmp\n")
    eal = ["-l", "0-1", "--no-huge", "-m", "512", "--file-prefix",
           f"mcfan-igmp-clear-{os.getpid()}", "--no-pci", "--log-level", "lib.eal:warning",
           "--vdev", f"net_pcap0,rx_pcap={inp},tx_pcap={outp}"]
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1", "--igmp", "v3",
                                          "--cmdline-file", cmds, "--duration", "3"],
                                    timeout=60)
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    t.check("statistics cleared (frames, drops, workers, groups, ports, feed quality, IGMP/MLD "
            "counters)" in out + err, f"[{what}] the console says the IGMP/MLD counters are cleared")
    b = igmp_blocks(out)
    if t.check(len(b) == 2 and all("v3" in x and "taken" in x for x in b),
               f"[{what}] two show igmp answers ({out[-800:]!r})"):
        before, after = b
        t.check_eq(before["taken"], 1, f"[{what}] before: the query taken")
        t.check_eq(before["invalid"], {"malformed": 0, "bad_checksum": 0, "wrong_ttl": 1,
                                       "not_for_us": 1}, f"[{what}] before: invalid frames")
        t.check_eq(before["v3"][0], 1, f"[{what}] before: 1 general v3 query seen")
        t.check_eq(before["v3"][3], 3, f"[{what}] before: 2 join reports + 1 answer sent")
        t.check_eq(after["taken"], 0, f"[{what}] after: taken 0")
        t.check_eq(after["invalid"], {"malformed": 0, "bad_checksum": 0, "wrong_ttl": 0,
                                      "not_for_us": 0}, f"[{what}] after: invalid 0")
        t.check_eq(after["v3"], [0] * 6, f"[{what}] after: every v3 counter 0")
        t.check_eq((after["groups"], after["querier"]), (["239.9.9.1"], "198.18.0.254 v3"),
                   f"[{what}] after: membership and querier kept")
    if t.check(rep is not None, f"[{what}] report written"):
        ig = rep["igmp"]
        p = ig["ports"][0]["igmp"]
        t.check_eq((ig["dequeued"], p["taken"], sum(p["invalid"].values()),
                    sum(p["reports_sent"].values()), sum(p["queries_general"].values())),
                   (0, 0, 0, 0, 0), f"[{what}] the report counts from the clear")
        t.check_eq(rep["drops"]["control"], ig["dequeued"],
                   f"[{what}] drops.control == dequeued after the clear")
        t.check_eq([g["group"] for g in p["groups"]], ["239.9.9.1"],
                   f"[{what}] the report still lists the group")
        t.check_eq(p["querier"], "198.18.0.254", f"[{what}] and the querier")
    shutil.rmtree(tmp, ignore_errors=True)
    t.remove_runtime_dir(eal)


def test_ring_full():
    """A flood of control frames (a capture replayed without end, net_pcap infinite_rx)
    outruns the control lcore (1024 frames a ring per 10 ms tick): what the full control
    ring refuses is the drop reason ctl_ring_full, in the conservation line, and the path's
    equations stay exact: drops.control == dequeued, drops.ctl_ring_full ==
    igmp.ctl_ring_full."""
    what = "ctl ring full"
    tmp = tempfile.mkdtemp(prefix="mcfan-igmp-flood-")
    inp = os.path.join(tmp, "flood.pcap")
    # another member's v2 report (not_for_us) and a query with TTL 2 (wrong_ttl)
    rep2 = igmp_frame("239.9.9.1", bytes([0x16, 0, 0, 0, 239, 9, 9, 1]))
    q3 = igmp_frame("224.0.0.1", bytes([0x11, 100, 0, 0, 0, 0, 0, 0, 2, 125, 0, 0]), ttl=2)
    t.write_pcap(inp, [rep2, q3] * 32)
    eal = ["-l", "0-1", "--no-huge", "-m", "512", "--file-prefix",
           f"mcfan-igmp-flood-{os.getpid()}", "--no-pci", "--log-level", "lib.eal:warning",
           "--vdev", f"net_pcap0,rx_pcap={inp},infinite_rx=1"]
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1", "--igmp", "v2",
                                          "--duration", "2"], timeout=60)
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    if t.check(rep is not None, f"[{what}] report written"):
        d, ig = rep["drops"], rep["igmp"]
        print(f"{what}: drops {d}, dequeued {ig['dequeued']}", flush=True)
        t.check(d["ctl_ring_full"] > 0, f"[{what}] the flood filled the control ring: {d}")
        t.check(d["control"] > 1024, f"[{what}] and the control lcore took frames: {d}")
        t.check(t.conservation(rep), f"[{what}] rx {rep['rx_frames']} = delivered "
                f"{rep['delivered_frames']} + drops {sum(d.values())}, ctl_ring_full included")
        t.check_eq(d["control"], ig["dequeued"], f"[{what}] drops.control == dequeued")
        t.check_eq(d["ctl_ring_full"], ig["ctl_ring_full"],
                   f"[{what}] drops.ctl_ring_full == igmp.ctl_ring_full")
        t.check_eq(d["control"] + d["ctl_ring_full"], rep["rx_frames"],
                   f"[{what}] every frame of the flood is control or ctl_ring_full")
        p = rep["igmp"]["ports"][0]["igmp"]
        t.check_eq(ig["dequeued"], p["taken"] + sum(p["invalid"].values()) + ig["unknown_port"],
                   f"[{what}] dequeued == taken + invalid")
        t.check_eq(p["invalid"]["not_for_us"] + p["invalid"]["wrong_ttl"], ig["dequeued"],
                   f"[{what}] every frame taken is a report or a TTL-2 query")
        t.check_eq(rep["mbufs_outside_pool"], 0, f"[{what}] every mbuf back in its pool")
        t.check(re.search(r"^drops: .* ctl_ring_full %d\b" % d["ctl_ring_full"], out, re.M)
                is not None, f"[{what}] the text report's drops line names ctl_ring_full")
    shutil.rmtree(tmp, ignore_errors=True)
    t.remove_runtime_dir(eal)


def test_bad_input():
    """Bad --igmp, --mld, --port-ip and GROUP@SOURCE values: one line naming the value,
    exit 2, nothing started (before EAL); a --port-ip port that does not exist: exit 2 after
    EAL; a bad source on the console: an error line, nothing joined."""
    what = "bad input"
    eal = ["-l", "0-1", "--no-huge", "-m", "512", "--file-prefix",
           f"mcfan-igmp-bad-{os.getpid()}", "--no-pci", "--log-level", "lib.eal:warning",
           "--vdev", "net_null0"]
    cases = [
        (["--igmp", "v4"], "--igmp: 'v4' is not a mode: auto, v2, v3 or off"),
        (["--mld", "v3"], "--mld: 'v3' is not a mode: auto, v1, v2 or off"),
        (["--port-ip", "0=224.0.0.1"], "--port-ip: '224.0.0.1' is not a unicast IPv4 address"),
        (["--port-ip", "0=198.18.0.2,2001:db8::1"],
         "--port-ip: '2001:db8::1' is not an IPv6 link-local address"),
        (["--port-ip", "x=198.18.0.2"], "--port-ip: 'x' is not a port number"),
        (["--port-ip", "0"], "--port-ip: '0' is not PORT=ADDR[,ADDR6]"),
        (["--port-ip", "0=198.18.0.2/0=198.18.0.3"], "--port-ip: port 0 is given twice"),
        (["--groups", "232.1.1.1@239.1.1.1"], "'239.1.1.1' is not a unicast source address"),
        (["--groups", "232.1.1.1@"], "'' is not a unicast source address"),
        (["--groups", "[ff3e::1]@198.18.0.1"], "'198.18.0.1' is not a unicast source address"),
        # an IPv6 source without its brackets, an IPv4 one in brackets: the message says
        # what to write (before: "is not a unicast source address of the group's family",
        # of an address that is one)
        (["--groups", "[ff3e::1]:5000@2001:db8::1"],
         "mcfan: --groups: '2001:db8::1' is an IPv6 source without its brackets: write "
         "[2001:db8::1] (e.g. [ff3e::1]@[fe80::1])"),
        (["--groups", "[ff3e::1]@[fe80::1]+fe80::2"],
         "mcfan: --groups: 'fe80::2' is an IPv6 source without its brackets: write "
         "[fe80::2] (e.g. [ff3e::1]@[fe80::1])"),
        # a source no network sends from: loopback, an IPv4-mapped IPv6 address (before:
        # taken, and the switch asked for a source that never sends: no frame, no word)
        (["--groups", "232.1.1.1:5000@127.0.0.1"],
         "mcfan: --groups: '127.0.0.1' is not a unicast source address of a network "
         "(127.0.0.0/8 is loopback): give the sender's address (e.g. 232.1.1.1@198.18.0.1)"),
        (["--groups", "[ff3e::1]:5000@[::1]"],
         "mcfan: --groups: '[::1]' is not a unicast source address of a network (::1 is "
         "loopback): give the sender's address (e.g. [ff3e::1]@[fe80::1])"),
        (["--groups", "[ff3e::1]:5000@[fe80::1]+[::ffff:198.18.0.1]"],
         "mcfan: --groups: '[::ffff:198.18.0.1]' is not a unicast source address of a network "
         "(::ffff:0:0/96 is IPv4-mapped, never on a wire): give the sender's IPv6 address "
         "(e.g. [ff3e::1]@[fe80::1])"),
        (["--groups", "232.1.1.1@[198.18.0.1]"],
         "mcfan: --groups: '[198.18.0.1]' is an IPv4 source in brackets: write 198.18.0.1 "
         "(e.g. 232.1.1.1@198.18.0.1)"),
        # a source named twice for a group: refused, not merged into one
        (["--groups", "232.1.1.1@198.18.0.1+198.18.0.1"],
         "mcfan: --groups: duplicate source 198.18.0.1 in group 232.1.1.1: name each source "
         "once (e.g. 232.1.1.1@198.18.0.1+198.18.0.3)"),
        # one group's sources in two items, as if items were sources (before: "group
        # 232.1.1.1 is listed twice")
        (["--groups", "232.1.1.1@198.18.0.1,232.1.1.1@198.18.0.2"],
         "mcfan: --groups: group 232.1.1.1 is given sources in two items "
         "('232.1.1.1@198.18.0.2' again): join its sources with '+'"),
        # report sources that cannot be one: loopback, this host, broadcast, ::1, multicast
        (["--port-ip", "0=127.0.0.1"], "--port-ip: '127.0.0.1' is not a unicast IPv4 address "
         "of a network (127.0.0.0/8 is loopback)"),
        (["--port-ip", "0=0.0.0.0"], "--port-ip: '0.0.0.0' is not a unicast IPv4 address of a "
         "network (0.0.0.0/8 is this host"),
        (["--port-ip", "0=255.255.255.255"],
         "--port-ip: '255.255.255.255' is not a unicast IPv4 address"),
        (["--port-ip", "0=::1"], "--port-ip: '::1' is not an IPv6 link-local address"),
        (["--port-ip", "0=198.18.0.2,ff02::1"],
         "--port-ip: 'ff02::1' is not an IPv6 link-local address"),
        # more sources than a group holds (9th source), also over two UDP ports of a group
        (["--groups", "232.1.1.1@" + "+".join(f"198.18.0.{i}" for i in range(1, 10))],
         "--groups: group 232.1.1.1: 9 sources, more than the 8 a group can be joined from"),
        (["--groups", "232.1.1.1:1@" + "+".join(f"198.18.0.{i}" for i in range(1, 6)) +
          ",232.1.1.1:2@" + "+".join(f"198.18.0.{i}" for i in range(5, 10))],
         "--groups: group 232.1.1.1: 9 sources, more than the 8 a group can be joined from"),
        # a version that cannot say sources
        (["--igmp", "v2", "--groups", "232.1.1.1@198.18.0.1"],
         "--groups: 232.1.1.1 from a source needs IGMPv3 (--igmp auto or v3), not --igmp v2"),
        (["--igmp", "off", "--groups", "232.1.1.1@198.18.0.1"],
         "--groups: 232.1.1.1 from a source needs IGMPv3 (--igmp auto or v3), not --igmp off"),
        (["--mld", "v1", "--groups", "[ff3e::1]:5000@[fe80::1]"],
         "--groups: ff3e::1 from a source needs MLDv2 (--mld auto or v2), not --mld v1"),
        (["--mld", "off", "--groups", "[ff3e::1]:5000@[fe80::1]"],
         "--groups: ff3e::1 from a source needs MLDv2 (--mld auto or v2), not --mld off"),
        # an address of a protocol that is off: the source of reports never sent (before:
        # accepted without a word)
        (["--igmp", "off", "--mld", "off", "--port-ip", "0=198.18.0.2"],
         "--port-ip: port 0's IPv4 address is the source of IGMP reports, and --igmp is off: "
         "nothing is sent from it; give --igmp auto, v2 or v3, or leave the IPv4 address out"),
        (["--mld", "off", "--port-ip", "0=198.18.0.2/1=198.18.0.3,fe80::3"],
         "--port-ip: port 1's IPv6 address is the source of MLD reports, and --mld is off: "
         "nothing is sent from it; give --mld auto, v1 or v2, or leave the IPv6 address out"),
        # --rx-ports (the ports that receive and join; docs/delivery.md "Port roles")
        (["--rx-ports", "x"], "mcfan: --rx-ports: 'x' is not a list of port ids 0..31 (e.g. 0 "
         "or 0,2-3)"),
        (["--rx-ports", ""], "mcfan: --rx-ports: '' is not a list of port ids (e.g. 0 or "
         "0,2-3)"),
        (["--rx-ports", "32"], "mcfan: --rx-ports: '32' is not a list of port ids 0..31"),
        (["--rx-ports", "0,,1"], "mcfan: --rx-ports: '0,,1' has an empty item"),
        (["--rx-ports", "1-0"], "mcfan: --rx-ports: range 1-0 in '1-0' is decreasing"),
        (["--rx-ports", "0,0-1"], "mcfan: --rx-ports: port 0 is listed twice in '0,0-1'"),
    ]
    for app, msg in cases:
        rc, out, err, rep = t.run_mcfan(eal, app, timeout=60)
        t.check_eq(rc, 2, f"[{what}] {app}: exit status")
        t.check(msg in err, f"[{what}] {app}: says {msg!r} ({err.strip()[-200:]!r})")
        t.check(not t.eal_lines(err) and rep is None, f"[{what}] {app}: nothing started")
        t.check(err.count("(e.g.") <= 1, f"[{what}] {app}: one example, not two ({err!r})")
    rc, out, err, rep = t.run_mcfan(eal, ["--port-ip", "5=198.18.0.2"], timeout=60)
    t.check_eq(rc, 2, f"[{what}] --port-ip 5: exit status")
    # the ids of the ports probed, not only their count (before: "(ports probed: 1)",
    # read as "port 1" beside --port-ip 1=...)
    t.check("--port-ip: port 5 does not exist (ports probed: 1 (port 0))" in err,
            f"[{what}] --port-ip 5: says so ({err.strip()[-200:]!r})")
    t.check(rep is None, f"[{what}] --port-ip 5: no report")
    # after EAL, once the ports are probed: a port that was not, no port left to receive
    for app, msg in ((["--rx-ports", "0,3"], "mcfan: --rx-ports: port 3 was not probed: give "
                      "ids of probed ports (0; --vdev/-a devices in the order given)"),
                     (["--worker-engine", "tx:0"], "mcfan: no port is left to receive: port 0 "
                      "is output-only (the output of a tx engine); name the ports that "
                      "receive with --rx-ports (e.g. --rx-ports 0: a port listed there is "
                      "polled and joins the groups even if a tx output sends on it)")):
        rc, out, err, rep = t.run_mcfan(eal, [*app, "--duration", "0.2"], timeout=60)
        t.check_eq(rc, 2, f"[{what}] {app}: exit status")
        t.check(msg in err and err.count("mcfan: ") <= 2,
                f"[{what}] {app}: says {msg!r} ({err.strip()[-300:]!r})")
        t.check(rep is None and "running:" not in err, f"[{what}] {app}: no run, no report")
    # --port-ip for an output-only port (two ports, port 1 the tx output): its addresses
    # would source nothing; named in --rx-ports it is an RX port and the run starts
    for app, msg in ((["--port-ip", "1=198.18.41.3"], "mcfan: --port-ip: port 1 is "
                      "output-only (the output of a tx engine): it sends no IGMP or MLD report, "
                      "so its addresses would source nothing; leave port 1 out of --port-ip, "
                      "or name it in --rx-ports to receive and join on it too"),
                     (["--port-ip", "1=198.18.41.3", "--rx-ports", "0-1"], None)):
        rc, out, err, rep = t.run_mcfan(eal + ["--vdev", "net_null1"],
                                        [*app, "--worker-engine", "tx:1", "--duration", "0.2"],
                                        timeout=60)
        if msg is None:
            t.check(rc == 0 and rep is not None and
                    [p["role"] for p in rep["ports"]] == ["rx", "rx"],
                    f"[{what}] {app}: runs, both ports rx ({err.strip()[-300:]!r})")
            continue
        t.check_eq(rc, 2, f"[{what}] {app}: exit status")
        t.check(msg in err, f"[{what}] {app}: says {msg!r} ({err.strip()[-300:]!r})")
        t.check(rep is None and "running:" not in err, f"[{what}] {app}: no run, no report")
    # in the config file: the same key through the same table
    cfg = tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False)
    cfg.write("[mcfan]\nrx-ports = 0-\n")
    cfg.close()
    rc, out, err, rep = t.run_mcfan(eal, ["--config", cfg.name], timeout=60)
    os.unlink(cfg.name)
    t.check(rc == 2 and f"config file '{cfg.name}' line 2: key 'rx-ports': --rx-ports: '0-' is "
            "not a list of port ids 0..31" in err and not t.eal_lines(err),
            f"[{what}] config file rx-ports = 0-: exit 2 before EAL ({err.strip()[-300:]!r})")
    tmp = tempfile.mkdtemp(prefix="mcfan-igmp-bad-")
    cmds = os.path.join(tmp, "cmds")
    with open(cmds, "w") as f:
        f.write("join 232.1.1.1@[fe80::1]\njoin 232.1.1.1:5000@198.18.0.1+198.18.0.3\n"
                "show igmp\n")
    rc, out, err, rep = t.run_mcfan(eal, ["--cmdline-file", cmds, "--duration", "1"],
                                    timeout=60)
    t.check("join: '[fe80::1]' is not a unicast source address of the group's family" in out
            + err, f"[{what}] console join with an IPv6 source for an IPv4 group refused")
    t.check(re.search(r"group 232\.1\.1\.1\s+\S+\s+sources 2", out) is not None,
            f"[{what}] the good source-specific join holds 2 sources ({out[-400:]!r})")
    if t.check(rep is not None, f"[{what}] console run: report"):
        gs = rep["igmp"]["ports"][0]["igmp"]["groups"]
        t.check_eq([(g["group"], g["sources"]) for g in gs],
                   [("232.1.1.1", ["198.18.0.1", "198.18.0.3"])],
                   f"[{what}] only the good join is a member, INCLUDE its sources")
    console_sources(tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    t.remove_runtime_dir(eal)


def v3_records(frames):
    """(type, group, [sources]) of every IGMPv3 report record sent, in order."""
    recs = []
    for f in frames:
        if f[12:14] != b"\x08\x00" or f[14 + 9] != 2:
            continue
        g = f[14 + (f[14] & 0xf) * 4:]
        if g[0] != 0x22:
            continue
        off = 8
        for _ in range(struct.unpack("!H", g[6:8])[0]):
            rtype, aux, nsrc = g[off], g[off + 1], struct.unpack("!H", g[off + 2:off + 4])[0]
            grp = str(ipaddress.IPv4Address(g[off + 4:off + 8]))
            srcs = [str(ipaddress.IPv4Address(g[off + 8 + 4 * i:off + 12 + 4 * i]))
                    for i in range(nsrc)]
            recs.append((rtype, grp, srcs))
            off += 8 + 4 * nsrc + 4 * aux
    return recs


def console_sources(tmp):
    """The console: a join of an address already joined (another UDP port) with other
    sources replaces the address's sources by the union and sends the state change
    (ALLOW {new}); a leave of one port sends BLOCK {its sources}; a 9th source is refused
    with the limit and changes nothing; with --igmp v2 / --mld v1 a join from a source is
    refused with the mode, nothing joined."""
    what = "console sources"
    inp, outp = os.path.join(tmp, "empty.pcap"), os.path.join(tmp, "tx.pcap")
    t.write_pcap(inp, [])
    cmds = os.path.join(tmp, "cmds2")
    nine = "+".join(f"198.18.0.{i}" for i in range(4, 11))
    with open(cmds, "w") as f:
        f.write("join 232.1.1.1:5000@198.18.0.1\njoin 232.1.1.1:6000@198.18.0.3\n"
                f"join 232.1.1.1:7000@{nine}\nshow igmp\nleave 232.1.1.1:5000\n")
    eal = ["-l", "0-1", "--no-huge", "-m", "512", "--file-prefix",
           f"mcfan-igmp-src-{os.getpid()}", "--no-pci", "--log-level", "lib.eal:warning",
           "--vdev", f"net_pcap0,rx_pcap={inp},tx_pcap={outp}"]
    rc, out, err, rep = t.run_mcfan(eal, ["--cmdline-file", cmds, "--duration", "2"],
                                    timeout=60)
    t.check_eq(rc, 0, f"[{what}] exit status ({err[-300:]})")
    both = out + err
    t.check("error: join: group 232.1.1.1: 9 sources, more than the 8 a group can be joined "
            "from" in both, f"[{what}] a 9th source is refused with the limit ({both[-600:]!r})")
    t.check(re.search(r"group 232\.1\.1\.1\s+\S+\s+sources 2", out) is not None,
            f"[{what}] after the re-join the group holds the union, 2 sources")
    if t.check(rep is not None, f"[{what}] report"):
        gs = rep["igmp"]["ports"][0]["igmp"]["groups"]
        t.check_eq([(g["group"], g["sources"]) for g in gs], [("232.1.1.1", ["198.18.0.3"])],
                   f"[{what}] after the leave of :5000 the sources of :6000 only")
        t.check_eq(sorted(g["udp_port"] for g in rep["groups"] if not g["left"]), [6000],
                   f"[{what}] the refused join joined nothing")
    recs = [r for r in v3_records(read_pcap(outp)) if r[0] in (5, 6)]
    first = []
    for r in recs:
        if not first or first[-1] != r:
            first.append(r)
    t.check_eq(first, [(5, "232.1.1.1", ["198.18.0.1"]), (5, "232.1.1.1", ["198.18.0.3"]),
                       (6, "232.1.1.1", ["198.18.0.1"]), (6, "232.1.1.1", ["198.18.0.3"])],
               f"[{what}] sent ALLOW {{.1}}, ALLOW {{.3}} (the re-join), BLOCK {{.1}} (the "
               f"leave), BLOCK {{.3}} (mcfan stops): {recs}")
    t.remove_runtime_dir(eal)
    # v2 / MLDv1 on the console: the same refusal as at start
    with open(cmds, "w") as f:
        f.write("join 232.1.1.1:5000@198.18.0.1\njoin [ff3e::1]:5000@[fe80::1]\n")
    rc, out, err, rep = t.run_mcfan(eal, ["--cmdline-file", cmds, "--duration", "1",
                                          "--igmp", "v2", "--mld", "v1"], timeout=60)
    both = out + err
    t.check_eq(rc, 0, f"[{what}] v2: exit status ({err[-300:]})")
    t.check("error: join: 232.1.1.1 from a source needs IGMPv3 (--igmp auto or v3), not "
            "--igmp v2" in both, f"[{what}] --igmp v2: console join from a source refused")
    t.check("error: join: ff3e::1 from a source needs MLDv2 (--mld auto or v2), not --mld v1"
            in both, f"[{what}] --mld v1: console join from a source refused")
    if t.check(rep is not None, f"[{what}] v2: report"):
        t.check_eq(rep["groups"], [], f"[{what}] v2: nothing joined")
        p = rep["igmp"]["ports"][0]
        t.check_eq((p["igmp"]["groups"], p["mld"]["groups"]), ([], []),
                   f"[{what}] v2: no membership")
    t.remove_runtime_dir(eal)


def read_pcap(path):
    frames = []
    if not os.path.exists(path):
        return frames
    with open(path, "rb") as f:
        data = f.read()
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def main():
    if os.geteuid() != 0:
        print("test_igmp: needs root (network namespaces), skipping")
        sys.exit(77)
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0 or \
            shutil.which("tcpdump") is None:
        print("test_igmp: needs ip netns and tcpdump, skipping")
        sys.exit(77)
    t0 = time.monotonic()
    only = os.environ.get("TEST_IGMP_ONLY", "")
    try:
        if only in ("", "bad"):
            test_bad_input()
        if only in ("", "capture"):
            test_capture()
            test_never_reported()
        if only in ("", "output"):
            test_output_only()
            test_bridge_output(None)
            test_bridge_output("0-1")
        if only in ("", "ringfull"):
            test_ring_full()
        if only in ("", "clear"):
            test_clear_stats()
        if only in ("", "v2"):
            test_bridge(2, 1, MEMBER_CS * 5 / 100, ssm=False)
        if only in ("", "v3"):
            test_bridge(3, 2, MEMBER_CS * 5 / 100, ssm=True)
        if only in ("", "suppress"):
            test_suppression()
        if only in ("", "quiet"):
            test_querier_gone()
        if only in ("", "filter"):
            test_filter_fallback()
        if only in ("", "stop"):
            test_stop_leave(2, 1, "sigterm")
            test_stop_leave(3, 2, "quit")
    finally:
        lab_down()
    print(f"test_igmp: {time.monotonic() - t0:.0f} s")
    t.finish("igmp")


if __name__ == "__main__":
    main()
