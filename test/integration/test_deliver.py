#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Delivery engines (docs/delivery.md) with the real program, in a namespace made here.

Input: frames of three groups (239.9.9.1-3:3999, different counts, each payload naming its
group and sequence number, valid UDP checksums) written into a net_tap port from the kernel
side (an AF_PACKET socket on the tap interface).

1. tx, unchanged, to net_memif (server): dpdk-testpmd, memif client on the same socket in
   rxonly mode with verbose on, sees per group (by destination MAC) the frames sent, as
   many as mcfan counted; tx_sent = every copy, tx_full 0; conservation exact. (A second
   mcfan cannot be the peer: it polls one RX queue, and the worker sends on queue 1.)
2. tx with dst-mac/dst-ip/dst-port rewritten, to a second net_tap, tcpdump on its kernel
   side: every frame captured once, per group the counts sent; field by field: destination
   MAC, IPv4 destination, UDP destination port rewritten; source MAC/IP/port, TTL, IP id,
   lengths and the UDP payload unchanged; the IPv4 header checksum and the UDP checksum
   verify (computed here, and tshark's own checks say "good").
3. TX refusals: tx to net_memif with no peer (its link is down: tx_burst takes nothing):
   every copy counted tx_full, tx_sent 0, worker frames = tx_sent + tx_full, no mbuf left
   outside the pool.
4. pcap: --worker-engine pcap:DIR,rotate-mb=..: the pcapng files read back by tshark hold
   every frame once, per group the counts sent, timestamps monotonic per file, file names
   with group and sequence, rotation by size made more than one file per group, report
   counters pcap_written = frames, pcap_full 0, pcap_errors 0.
   Two runs into a DIR that holds an earlier run's series with gaps: each group's files
   number on after the highest SEQ there, gaps stay, other files untouched.
   DIR moved away mid-run and back: copies meanwhile write_failed, the group's loss logged
   when its files can be made again (and at stop when they cannot).
   DIR removed (rm -rf) mid-run and made again: each open file seen gone within a second,
   its copies said lost, the next copies write_failed, then written into the new DIR.
   1024 groups under a hard open file limit of 1024: said at start, every copy counted.
   A restart into a DIR of 10,240 files: read once, not once per group.
   DIR's file system frozen (fsfreeze) while copies arrive: pcap_full, one warning, the
   ring written once thawed.
5. dpdk-dumpcap: attached to a running mcfan (shared runtime directory, no --in-memory) it
   captures frames of the input port into a pcapng that tshark reads back.
   dpdk-pdump (--pdump 'port=0,queue=*,rx-dev=FILE'): attached before the frames arrive, its
   libpcap file holds exactly each group's frames mcfan counted, and its own counts agree.
   A left group's copies still in the pcap writer's ring when a new group takes its counter
   slot go into the left group's file, never into the new group's (the writer thread held
   with ptrace meanwhile, as a slow disk would).
6. pcap on a full disk (a 256 KiB tmpfs): a short write is pcap_write_failed, files read
   back whole, pcap_written = tshark's count over all files.
7. tx with a multicast dst-ip and no dst-mac: the destination MAC is the group's (RFC 1112).
8. tx without a rewrite, fed frames with partial (a Linux sender's CHECKSUM_PARTIAL, as from
   a veth), complete and corrupt UDP checksums: udp-csum auto (the default) completes the
   partial ones only, full every one, update none; every other byte as sent.
   IPv6 datagrams with a UDP checksum of 0 (forbidden): auto computes it, update not.
9. Output-only ports (docs/delivery.md "Port roles"): with tx:net_tap1 and IGMP/MLD on, an
   IGMPv3 query and the groups' frames into both taps: no IGMP/MLD message leaves the
   output tap (tcpdump on its kernel side), its frames are not received (ipackets 0, role
   output); with --rx-ports 0-1 both taps report and receive.

Usage: test_deliver.py MCFAN_BINARY. Exit 77 (skip) when not root, without `ip netns`,
tcpdump or tshark.
"""

import ctypes
import glob
import ipaddress
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

import mcfantest as t
import netnstest as nt

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = 3999
GROUPS = {"239.9.9.1": 120, "239.9.9.2": 80, "239.9.9.3": 40}
SRC_IP, SRC_MAC, SPORT = "198.18.0.1", b"\x02\x00\x00\x00\x00\x01", 40000
RW_MAC, RW_IP, RW_PORT = "02:00:00:00:00:99", "198.18.9.9", 5001
PPS = 1000
PCAP_PPS = 80           # 240 frames over 3 s: rotate-s=1 makes several files per group
DUMP_N = 50             # frames dpdk-dumpcap is asked for (-c)
SIZE_FRAMES = 3000      # frames of about 1.4 KB: about 4 MiB for rotate-mb=1
LCORES = "0@0,1@1,2@1"     # main 0, RX 1, worker 2 (2 CPUs)


def frame(group, seq):
    """Ethernet/IPv4/UDP (RFC 791, RFC 768) with both checksums, 40 bytes of padding."""
    return t.udp4_seq_frame(group, seq, pad=40, dport=PORT, src=SRC_IP, sport=SPORT)


def all_frames():
    """The frames sent, interleaved over the groups."""
    out, seq = [], {g: 0 for g in GROUPS}
    while any(seq[g] < n for g, n in GROUPS.items()):
        for g, n in GROUPS.items():
            if seq[g] < n:
                out.append(frame(g, seq[g]))
                seq[g] += 1
    return out


def partial(fr):
    """fr with the UDP checksum a Linux sender leaves to the hardware (CHECKSUM_PARTIAL):
    the pseudo-header's folded sum, not complemented (what a veth peer's receiver sees)."""
    pseudo = fr[26:34] + struct.pack("!BBH", 0, 17, len(fr) - 34)
    return fr[:40] + struct.pack("!H", ~t.csum(pseudo) & 0xFFFF) + fr[42:]


if len(sys.argv) == 4 and sys.argv[1] == "--raw-send":
    # inside the namespace: every frame of all_frames() out of iface, paced
    sys.exit(nt.send_paced(sys.argv[2], all_frames(), float(sys.argv[3])))
def corrupt(fr):
    """fr with a UDP checksum that is wrong (neither complete nor partial)."""
    return fr[:40] + struct.pack("!H", struct.unpack("!H", fr[40:42])[0] ^ 0x0101) + fr[42:]


def csum_mix():
    """all_frames() in turn as sent by a Linux sender over a veth (partial), complete, and
    corrupt: (the frame sent, its complete form)."""
    return [((partial, lambda f: f, corrupt)[i % 3](f), f) for i, f in enumerate(all_frames())]


if len(sys.argv) == 4 and sys.argv[1] == "--raw-send-many":
    # all_frames() 16 times over (3840 frames): more than a pcap ring holds (2048)
    sys.exit(nt.send_paced(sys.argv[2], all_frames() * 16, float(sys.argv[3])))
V6_GROUP, V6_SRC, V6_N = "ff3e::42:1", "2001:db8::42:1", 60


def v6_zero(seq):
    """Ethernet/IPv6/UDP to V6_GROUP with a UDP checksum of 0, which IPv6 forbids (RFC 8200
    section 8.1: a receiver discards it), and its complete form."""
    data = f"v6 {seq:05d}".encode() + bytes(30)
    zero = t.udp6_frame(V6_GROUP, PORT, data=data, src=V6_SRC)
    ip6 = zero[14:54]
    pseudo = ip6[8:40] + struct.pack("!IxxxB", len(zero) - 54, 17)
    c = t.csum(pseudo + zero[54:]) or 0xFFFF
    return zero, zero[:60] + struct.pack("!H", c) + zero[62:]


if len(sys.argv) == 4 and sys.argv[1] == "--raw-send-v6zero":
    sys.exit(nt.send_paced(sys.argv[2], [v6_zero(i)[0] for i in range(V6_N)],
                           float(sys.argv[3])))
def igmp_query():
    """An IGMPv3 general query to 224.0.0.1 (Router Alert, TTL 1), max response 1 s."""
    msg = bytes([0x11, 10, 0, 0, 0, 0, 0, 0, 2, 125, 0, 0])
    msg = msg[:2] + struct.pack("!H", t.csum(msg)) + msg[4:]
    return t.eth(t.mac_for_group("224.0.0.1"), 0x0800,
                 t.ipv4("198.18.41.254", "224.0.0.1", 2, msg, ihl=6, options=b"\x94\x04\0\0"))


def host_messages(frames):
    """(IGMP, MLD) messages a host sends among frames: IGMP reports and leaves (not
    queries), MLD reports and done messages behind a Hop-by-Hop header."""
    igmp = [f for f in frames if f[12:14] == b"\x08\x00" and f[23] == 2 and
            f[14 + (f[14] & 0xf) * 4] in (0x12, 0x16, 0x17, 0x22)]
    mld = [f for f in frames if f[12:14] == b"\x86\xdd" and f[20] == 0 and len(f) > 62 and
           f[54] == 58 and f[62] in (131, 132, 143)]
    return igmp, mld


if len(sys.argv) == 3 and sys.argv[1] == "--raw-send-query":
    sys.exit(nt.send_paced(sys.argv[2], [igmp_query()], 10))
if len(sys.argv) == 4 and sys.argv[1] == "--raw-send-csum-mix":
    sys.exit(nt.send_paced(sys.argv[2], [s for s, _ in csum_mix()], float(sys.argv[3])))

LAB = nt.Netns("deliver", "dlv")
TMP, ID = LAB.tmp, LAB.id
TIN, TOUT = f"dli{ID % 100000}", f"dlo{ID % 100000}"     # net_tap0, net_tap1


def Mcfan(name, vdevs, app, lcores=LCORES, in_memory=True, huge_dir=None, console=False):
    """mcfan in the namespace on the three groups; stop() with SIGINT (with a console: the
    test types quit), then the report."""
    mem = ("--huge-dir", huge_dir, "-m", "96") if huge_dir else ("--no-huge", "-m", "512")
    return nt.NsMcfan(LAB, name, vdevs, ["--groups", f"239.9.9.1-3:{PORT}", *app], lcores,
                      mem=mem, in_memory=in_memory, console=console)


def send(tap, pps=None):
    return LAB.send_self(__file__, tap, str(pps or PPS))


def worker(rep, lcore=2):
    for lc in rep["lcores"]:
        if lc["lcore"] == lcore:
            return lc
    return None


def engine_conservation(rep, tag):
    """Per worker: frames taken = delivered + dropped counters of its engine."""
    w = worker(rep)
    ws = [x for x in rep["workers"] if x["lcore"] == 2]
    if not t.check(w is not None and len(ws) == 1, f"{tag} worker lcore 2 in the report"):
        return None
    c = w["engine_counters"]
    w = ws[0]
    delivered = c.get("tx_sent", 0) + c.get("pcap_written", 0)
    drops = sum(v for k, v in c.items() if k in ("tx_full", "tx_nohdr", "tx_unrewritable",
                                                   "pcap_full", "pcap_write_failed"))
    t.check_eq(delivered + drops, w["frames"],
               f"{tag} worker frames {w['frames']} = engine delivered {delivered} + "
               f"drops {drops} ({c})")
    return c


def sent_total():
    return sum(GROUPS.values())


per_group_payload = t.per_group_payload
read_pcap = t.read_pcap


def test_memif():
    """The other end is dpdk-testpmd, memif client with as many queues as mcfan's server
    (TX queue 1 is the worker's: memif pairs queue i with the peer's queue i), rxonly with
    verbose on: one line per frame received, its destination MAC naming the group."""
    tag = "[tx memif]"
    sock = os.path.join(TMP, "memif.sock")
    if not nt.have_dpdk_tool("dpdk-testpmd", tag):
        return
    a = Mcfan("memA", [f"net_tap0,iface={TIN}", f"net_memif0,role=server,socket={sock}"],
              ["--worker-engine", "tx:net_memif0"])
    r = nt.TestpmdMemif(LAB, sock, LAB.prefix("tp")).run(a, tag, lambda: send(TIN))
    if r is None:
        return
    rca, repa, out = r
    if not a.ended(rca, repa, tag, "mcfan exit"):
        return
    want = {(g, PORT): n for g, n in GROUPS.items()}
    t.check_eq(t.group_frames(repa), want, f"{tag} mcfan's per-group counts = frames sent")
    got = {(g, PORT): c for g, c in nt.TestpmdMemif.per_group(out).items()}
    t.check_eq(got, want, f"{tag} frames per group at the memif peer (testpmd):\n"
               f"{out[-1500:]}")
    t.check(t.conservation(repa), f"{tag} conservation")
    c = engine_conservation(repa, tag)
    if c is not None:
        t.check_eq(c.get("tx_sent"), sent_total(), f"{tag} tx_sent = every copy")
        t.check_eq(c.get("tx_full"), 0, f"{tag} tx_full")
    t.check_eq(repa["mbufs_outside_pool"], 0, f"{tag} no mbuf outside its pool")
    print(f"deliver: {tag} mcfan {t.group_frames(repa)} peer {got} {c}", flush=True)


def tshark_fields(path, fields, extra=()):
    cmd = ["tshark", "-r", path, "-T", "fields", *extra]
    for f in fields:
        cmd += ["-e", f]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return [ln.split("\t") for ln in r.stdout.splitlines() if ln.strip()], r


def run_captured(a, cap, tag):
    """Once mcfan a runs: tcpdump on TOUT into cap, the frames into TIN, 1 s, then both
    stopped: (exit status, report); (None, None) when mcfan did not start."""
    dump = None
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return None, None
        dump = nt.Tcpdump(LAB, TOUT, cap, tag)
        send(TIN)
        time.sleep(1.0)
        dump.stop()
        return a.stop()
    finally:
        nt.kill_all(a, dump)


def test_tap_rewrite():
    tag = "[tx tap rewrite]"
    cap = os.path.join(TMP, "tap-out.pcap")
    a = Mcfan("tap", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
              ["--worker-engine", f"tx:net_tap1,dst-mac={RW_MAC},dst-ip={RW_IP},"
               f"dst-port={RW_PORT}"])
    rc, rep = run_captured(a, cap, tag)
    if rc is None:
        return
    if not a.ended(rc, rep, tag):
        return
    c = engine_conservation(rep, tag)
    if c is not None:
        t.check_eq(c.get("tx_sent"), sent_total(), f"{tag} tx_sent = every copy")
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} no mbuf outside its pool")
    got = read_pcap(cap)
    t.check_eq(len(got), sent_total(), f"{tag} frames captured on the tap's kernel side")
    seqs = per_group_payload(got)
    t.check_eq({g: sorted(s) for g, s in seqs.items()},
               {g: list(range(n)) for g, n in GROUPS.items()},
               f"{tag} per group: every sequence number once")
    sent = {fr[42:]: fr for fr in all_frames()}   # by UDP payload
    bad = []
    for fr in got:
        orig = sent.get(fr[42:])
        if orig is None:
            bad.append("payload not sent")
            continue
        exp = bytearray(orig)
        exp[0:6] = bytes.fromhex(RW_MAC.replace(":", ""))
        exp[30:34] = ipaddress.IPv4Address(RW_IP).packed
        exp[24:26] = b"\0\0"
        exp[24:26] = struct.pack("!H", t.csum(bytes(exp[14:34])))
        exp[36:38] = struct.pack("!H", RW_PORT)
        exp[40:42] = b"\0\0"
        pseudo = bytes(exp[26:34]) + struct.pack("!BBH", 0, 17, len(exp) - 34)
        exp[40:42] = struct.pack("!H", t.csum(pseudo + bytes(exp[34:])) or 0xFFFF)
        if bytes(exp) != fr:
            diff = [i for i in range(min(len(exp), len(fr))) if exp[i] != fr[i]]
            bad.append(f"bytes differ at {diff[:8]} (len {len(fr)} vs {len(exp)})")
    t.check_eq(bad[:3], [], f"{tag} every frame = the sent frame with dst MAC, IP, port "
               f"rewritten and both checksums recomputed ({len(bad)} bad)")
    rows, r = tshark_fields(cap, ["eth.dst", "ip.dst", "udp.dstport", "ip.checksum.status",
                                  "udp.checksum.status", "ip.src", "udp.srcport"],
                            ["-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"])
    t.check_eq(len(rows), sent_total(), f"{tag} tshark reads every frame: {r.stderr[-300:]}")
    t.check_eq(sorted(set(tuple(x) for x in rows)),
               [(RW_MAC, RW_IP, str(RW_PORT), "1", "1", SRC_IP, str(SPORT))],
               f"{tag} tshark: rewritten fields, checksums good (status 1), sources kept")
    print(f"deliver: {tag} captured {len(got)}, {c}", flush=True)


def output_only_run(rx_ports):
    """tx:net_tap1 with IGMPv3 and MLDv2 on (docs/delivery.md "Port roles"); tcpdump on both
    taps' kernel sides (IGMP and IPv6) while an IGMPv3 general query goes into each tap and
    the groups' frames into both (those into the output, TOUT, are frames mcfan must not
    receive), then the stop (its leaves). Default: the output port sends no IGMP/MLD message
    (none answers the query, no leave), is not polled (ipackets 0, its frames not counted,
    role output), the input port reports and leaves as ever. --rx-ports 0-1: both report
    and both are polled (every frame counted twice: once a tap)."""
    tag = f"[output-only{' --rx-ports ' + rx_ports if rx_ports else ''}]"
    caps = {i: os.path.join(TMP, f"host-{i}-{rx_ports or 'default'}.pcap") for i in (0, 1)}
    # the three groups and an IPv6 one (no frames: its MLD reports only)
    a = nt.NsMcfan(LAB, f"outonly{'rx' if rx_ports else ''}",
                   [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
                   ["--groups", f"239.9.9.1-3:{PORT},[ff3e::1]:{PORT}", "--worker-engine",
                    "tx:net_tap1"] + (["--rx-ports", rx_ports] if rx_ports else []), LCORES,
                   host=("--igmp", "v3", "--mld", "v2"))
    dumps = []
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        for i, tap in ((0, TIN), (1, TOUT)):
            dumps.append(nt.Tcpdump(LAB, tap, caps[i], tag, filt="igmp or ip6"))
        for tap in (TIN, TOUT):
            r = LAB.run("timeout", "30", sys.executable, os.path.abspath(__file__),
                        "--raw-send-query", tap, capture_output=True, text=True, timeout=60)
            t.check_eq(r.returncode, 0, f"{tag} query into {tap}: {r.stderr}")
        send(TOUT)
        send(TIN)
        time.sleep(1.5)   # the answer to the query (max response 1 s) and the last copies
        rc, rep = a.stop()
        time.sleep(0.5)   # the leaves sent at the stop reach tcpdump
        for d in dumps:
            d.stop()
    finally:
        nt.kill_all(a, *dumps)
    if not a.ended(rc, rep, tag):
        return
    ports = {p["port_id"]: p for p in rep["ports"]}
    role1 = "rx" if rx_ports else "output"
    t.check_eq([ports[0]["role"], ports[1]["role"]], ["rx", role1], f"{tag} ports' roles")
    t.check_eq({k: v for k, v in t.group_frames(rep).items() if v},
               {(g, PORT): n * (2 if rx_ports else 1) for g, n in GROUPS.items()},
               f"{tag} group frames: those into the output tap "
               f"{'counted' if rx_ports else 'not received'}")
    if rx_ports:
        t.check(ports[1]["ipackets"] >= sent_total(), f"{tag} port 1 polled: {ports[1]}")
    else:
        t.check_eq(ports[1]["ipackets"], 0, f"{tag} port 1 not polled: ipackets")
        t.check_eq(ports[1]["filter_mode"], "untouched", f"{tag} port 1's filter untouched")
    t.check_eq([p["port"] for p in rep["igmp"]["ports"]], [0, 1] if rx_ports else [0],
               f"{tag} IGMP/MLD hosts of the RX ports only")
    t.check(t.conservation(rep), f"{tag} conservation")
    c = engine_conservation(rep, tag)
    if c is not None:
        t.check_eq(c.get("tx_sent"), sent_total() * (2 if rx_ports else 1),
                   f"{tag} tx_sent = every copy")
    got = {i: host_messages(read_pcap(caps[i])) for i in (0, 1)}
    # on the wire: IGMP, the answer to the query sent into each tap while tcpdump ran (the
    # MLD reports at start go out before tcpdump can start on the taps mcfan makes, and the
    # MLD done at the stop races the tap's removal at exit); MLD: what mcfan counts it sent
    mld = {p["port"]: sum(p["mld"]["reports_sent"].values()) +
           sum(p["mld"]["leaves_sent"].values()) for p in rep["igmp"]["ports"]}
    t.check(len(got[0][0]) >= 1 and mld.get(0, 0) >= 1,
            f"{tag} the input port sent IGMP and MLD: {len(got[0][0])} IGMP on the wire, "
            f"{mld.get(0, 0)} MLD messages sent")
    if rx_ports:
        t.check(len(got[1][0]) >= 1 and mld.get(1, 0) >= 1,
                f"{tag} port 1 (--rx-ports) sent IGMP and MLD: {len(got[1][0])} IGMP on the "
                f"wire, {mld.get(1, 0)} MLD messages sent")
    else:
        t.check_eq((len(got[1][0]), len(got[1][1])), (0, 0),
                   f"{tag} no IGMP or MLD message left the output port")
    print(f"deliver: {tag} host messages in/out {[(len(x), len(y)) for x, y in got.values()]}",
          flush=True)


def test_output_only():
    output_only_run(None)
    output_only_run("0-1")


def tap_send_capture(a, cap, tag, send_flag):
    """Wait for mcfan a to run, capture the tap TOUT's kernel side into cap while this script's
    raw sender (send_flag: --raw-send-csum-mix, --raw-send-v6zero) sends into TIN at PPS, then
    stop a: (rc, report), or None when a did not start (checked, killed)."""
    dump = None
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return None
        dump = nt.Tcpdump(LAB, TOUT, cap, tag)
        r = LAB.run("timeout", "60", sys.executable, os.path.abspath(__file__), send_flag,
                    TIN, str(PPS), capture_output=True, text=True, timeout=90)
        t.check_eq(r.returncode, 0, f"{tag} raw sender: {r.stderr}")
        time.sleep(1.0)
        dump.stop()
        return a.stop()
    finally:
        nt.kill_all(a, dump)


def csum_run(mode, want, tag):
    """tx:net_tap1 (no rewrite; udp-csum=MODE unless mode is None) fed csum_mix(); the
    frames captured on the tap's kernel side must be want(sent, complete) for each."""
    cap = os.path.join(TMP, f"tap-csum-{mode}.pcap")
    a = Mcfan(f"csum-{mode}", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
              ["--worker-engine", "tx:net_tap1" + (f",udp-csum={mode}" if mode else "")])
    ended = tap_send_capture(a, cap, tag, "--raw-send-csum-mix")
    if ended is None or not a.ended(*ended, tag):
        return
    rc, rep = ended
    c = engine_conservation(rep, tag)
    if c is not None:
        t.check_eq((c.get("tx_sent"), c.get("tx_unrewritable")), (sent_total(), 0),
                   f"{tag} tx_sent = every copy, none unrewritable")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} no mbuf outside its pool")
    got = read_pcap(cap)
    exp = sorted(want(sent, full) for sent, full in csum_mix())
    t.check_eq(len(got), len(exp), f"{tag} frames captured on the tap's kernel side")
    t.check(sorted(got) == exp, f"{tag} every frame as expected, every other byte as sent: "
            f"{sum(1 for g in got if g not in exp)} differ")
    print(f"deliver: {tag} captured {len(got)}, {c}", flush=True)


def test_tap_csum():
    """udp-csum without a rewrite, each frame of a third sent with a Linux sender's partial
    UDP checksum (CHECKSUM_PARTIAL, as from a veth), a third complete, a third corrupt
    (docs/delivery.md, "Checksums from a Linux sender on the same host"): auto (the
    default) completes the partial ones and passes the others on unchanged; full computes
    every one anew; update leaves them all as they came."""
    csum_run(None, lambda sent, full: full if sent == partial(full) else sent,
             "[tx udp-csum auto]")
    csum_run("full", lambda sent, full: full, "[tx udp-csum=full]")
    csum_run("update", lambda sent, full: sent, "[tx udp-csum=update]")


def test_tap_csum6_zero():
    """IPv6 datagrams with a UDP checksum of 0 (forbidden for IPv6, RFC 8200 8.1; a Linux
    receiver drops them) out of tx:net_tap1 without a rewrite: udp-csum auto (the default)
    sends each with its checksum computed, every other byte as sent; update as it came.
    Before: auto left the 0, so a kernel receiver behind the tap dropped every copy."""
    for mode in (None, "update"):
        tag = f"[tx udp-csum {mode or 'auto'} ipv6 zero]"
        cap = os.path.join(TMP, f"tap-csum6-{mode}.pcap")
        a = nt.NsMcfan(LAB, f"csum6-{mode}", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
                       ["--groups", f"[{V6_GROUP}]:{PORT}", "--worker-engine",
                        "tx:net_tap1" + (f",udp-csum={mode}" if mode else "")], LCORES)
        ended = tap_send_capture(a, cap, tag, "--raw-send-v6zero")
        if ended is None:
            return
        if not a.ended(*ended, tag):
            continue
        rc, rep = ended
        c = worker(rep)["engine_counters"]
        t.check_eq((c.get("tx_sent"), c.get("tx_unrewritable")), (V6_N, 0),
                   f"{tag} tx_sent = every copy ({c})")
        got = sorted(read_pcap(cap))
        want = sorted(v6_zero(i)[0 if mode == "update" else 1] for i in range(V6_N))
        t.check_eq(len(got), V6_N, f"{tag} frames captured on the tap's kernel side")
        t.check(got == want, f"{tag} every frame " + ("as sent" if mode else "with its "
                "checksum computed, every other byte as sent") +
                f": {sum(1 for g in got if g not in want)} differ")


def test_refusals():
    tag = "[tx refused]"
    sock = os.path.join(TMP, "memif-nopeer.sock")
    a = Mcfan("ref", [f"net_tap0,iface={TIN}", f"net_memif0,role=server,socket={sock}"],
              ["--worker-engine", "tx:1,dst-port=7000"])
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        send(TIN, pps=100)   # 2.4 s of copies refused: the tx stall warning (1 s) comes
        time.sleep(0.5)
        rc, rep = a.stop()
    finally:
        a.kill()
    t.check_eq(rc, 0, f"{tag} exit:\n{a.out[-2000:]}")
    # no peer at all: the warning says the link is down, not that the peer has too few
    # queues (there is no peer to give them)
    warns = [x for x in a.out.splitlines() if "has sent nothing for" in x]
    t.check_eq(len(warns), 1, f"{tag} one tx stall warning: {warns}")
    t.check(len(warns) == 1 and "port 1 (net_memif0) TX queue 1 has sent nothing for 1000 ms"
            in warns[0] and "tx_full (tx_sent 0): the port's link is down: no net_memif peer "
            "is connected; connect one with 2 RX queues (e.g. dpdk-testpmd --rxq=2 --txq=2; "
            "a peer in another network namespace needs socket-abstract=no on both sides)"
            in warns[0] and "must have as many RX queues" not in warns[0],
            f"{tag} the warning names the link down, no peer: {warns}")
    t.check_eq(len(re.findall(r"dpdk-dumpcap and dpdk-pdump cannot attach: EAL runs with "
                              r"--no-shconf", a.out)), 1,
               f"{tag} --no-huge --in-memory: mcfan says once why capture tools cannot attach")
    if not t.check(rep is not None, f"{tag} report"):
        return
    c = engine_conservation(rep, tag)
    if c is not None:
        t.check_eq(c.get("tx_sent"), 0, f"{tag} a port with its link down takes nothing")
        t.check_eq(c.get("tx_full"), sent_total(), f"{tag} every copy counted tx_full")
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} every refused mbuf freed")
    t.check(re.search(r"engine tx on lcore 2: tx_sent 0 tx_full %d" % sent_total(), a.out),
            f"{tag} the text report's engine line")


def pcap_files(d):
    """{group: [(seq, path), ...]} from DIR/mcfan-GROUP-wLCORE-SEQ.pcapng, in sequence."""
    out = {}
    for path in glob.glob(os.path.join(d, "*.pcapng")):
        m = re.fullmatch(r"mcfan-(239\.9\.9\.\d+)_(\d+)-w(\d+)-(\d{5})\.pcapng",
                         os.path.basename(path))
        if t.check(m is not None, f"pcap file name {os.path.basename(path)}"):
            out.setdefault(m.group(1), []).append((int(m.group(4)), path))
    return {g: sorted(v) for g, v in out.items()}


def test_pcap_time():
    """Paced input, rotation by time (rotate-s=1) over about 3 s."""
    tag = "[pcap time]"
    d = os.path.join(TMP, "pcap-time")
    os.makedirs(d)
    a = Mcfan("pcapt", [f"net_tap0,iface={TIN}"],
              ["--worker-engine", f"pcap:{d},rotate-s=1"])
    t0 = time.time()
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        send(TIN, pps=PCAP_PPS)
        time.sleep(0.5)
        rc, rep = a.stop()
    finally:
        a.kill()
    t1 = time.time()
    if not a.ended(rc, rep, tag):
        return
    c = engine_conservation(rep, tag)
    if c is not None:
        t.check_eq(c.get("pcap_written"), sent_total(), f"{tag} pcap_written = every copy")
        t.check_eq((c.get("pcap_full"), c.get("pcap_write_failed"), c.get("pcap_errors"),
                    c.get("pcap_pending")), (0, 0, 0, 0),
                   f"{tag} pcap_full, write_failed, errors, pending")
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} every mbuf back in its pool")
    files = pcap_files(d)
    t.check_eq(sorted(files), sorted(GROUPS), f"{tag} files of every group")
    nfiles = 0
    for g, lst in files.items():
        seqs = [s for s, _ in lst]
        t.check_eq(seqs, list(range(1, len(lst) + 1)), f"{tag} {g}: sequence numbers")
        t.check(len(lst) >= 2, f"{tag} {g}: rotation by time made {len(lst)} files")
        nfiles += len(lst)
        times, frames = [], []
        for _, path in lst:
            rows, r = tshark_fields(path, ["frame.time_epoch", "ip.dst", "udp.payload"])
            t.check(r.returncode == 0, f"{tag} tshark reads {path}: {r.stderr[-300:]}")
            # the section's comment names the group as --groups does (before: "group
            # 239.9.9.1_3999", the file name's form; IPv6 "_ff3e__1__5000")
            with open(path, "rb") as fh:
                head = fh.read(256)
            t.check(f", group {g}:{PORT}, file ".encode() in head,
                    f"{tag} {path}: section comment names group {g}:{PORT}: {head!r}")
            ft = [float(x[0]) for x in rows]
            t.check(all(x[1] == g for x in rows), f"{tag} {path}: only group {g}")
            t.check(not ft or ft[-1] - ft[0] <= 1.5,
                    f"{tag} {path}: spans {ft[-1] - ft[0] if ft else 0:.3f} s (rotate-s=1)")
            times += ft
            frames += [bytes.fromhex(x[2].replace(":", "")) for x in rows]
        t.check_eq(len(times), GROUPS[g], f"{tag} {g}: frames in its files")
        t.check(times == sorted(times), f"{tag} {g}: timestamps monotonic over its files")
        t.check(times and t0 <= times[0] and times[-1] <= t1,
                f"{tag} {g}: timestamps within the run ({t0:.3f}..{t1:.3f}): "
                f"{times[:1]} {times[-1:]}")
        t.check_eq(sorted(per_group_payload(frames).get(g, [])), list(range(GROUPS[g])),
                   f"{tag} {g}: every sequence number once")
    if c is not None:
        t.check_eq(c.get("pcap_files"), nfiles, f"{tag} pcap_files = the files made")
        # pcap_bytes: the frames' blocks (EPB), not each file's section header and interface
        # blocks (docs/delivery.md; du of the files is larger by those)
        epb = hdr = 0
        for lst in files.values():
            for _, path in lst:
                with open(path, "rb") as fh:
                    data = fh.read()
                off = 0
                while off + 8 <= len(data):
                    typ, blen = struct.unpack_from("<II", data, off)
                    if typ == 6:
                        epb += blen
                    else:
                        hdr += blen
                    off += blen
        t.check_eq(c.get("pcap_bytes"), epb, f"{tag} pcap_bytes = the files' frame blocks, "
                   f"the {hdr} bytes of their headers not counted")
    print(f"deliver: {tag} {nfiles} files, {c}", flush=True)


def test_pcap_size():
    """A capture replayed at full speed through net_pcap: rotation by size (rotate-mb=1);
    the ring may fill (pcap_full, counted) but every copy is accounted."""
    tag = "[pcap size]"
    d = os.path.join(TMP, "pcap-size")
    os.makedirs(d)
    inp = os.path.join(TMP, "big.pcap")
    big = [frame("239.9.9.1", i)[:-40] + bytes(1400) for i in range(SIZE_FRAMES)]
    t.write_pcap(inp, big)
    a = Mcfan("pcaps", [f"net_pcap0,rx_pcap={inp}"],
              ["--worker-engine", f"pcap:{d},rotate-mb=1", "--duration", "3",
               "--ring-size", "4096"])
    rc, rep = a.run_to_end()
    if not a.ended(rc, rep, tag):
        return
    c = engine_conservation(rep, tag)
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} every mbuf back in its pool")
    lst = pcap_files(d).get("239.9.9.1", [])
    t.check(len(lst) >= 2, f"{tag} rotation by size made {len(lst)} files")
    total = 0
    for i, (_, path) in enumerate(lst):
        size = os.path.getsize(path)
        if i < len(lst) - 1:
            t.check(1 << 20 <= size < (1 << 20) + 2048,
                    f"{tag} {path}: {size} bytes, just past 1 MiB when rotated")
        rows, _ = tshark_fields(path, ["frame.time_epoch"])
        times = [float(x[0]) for x in rows]
        t.check(times == sorted(times), f"{tag} {path}: timestamps monotonic")
        total += len(rows)
    if c is not None:
        t.check_eq(total, c.get("pcap_written"), f"{tag} frames in the files = pcap_written")
    t.check_eq(rep["rx_frames"], SIZE_FRAMES, f"{tag} every frame of the capture received "
               f"(delivered or counted: drops {rep['drops']})")
    # a writer that falls behind but writes (pcap_full) is no disk that takes no write
    t.check_eq([x for x in a.out.splitlines() if "has taken no copy" in x], [],
               f"{tag} no stalled-writer warning while the writer writes ({c})")
    print(f"deliver: {tag} {len(lst)} files, {c}", flush=True)


def test_pcap_rejoin():
    """A group left and joined again (its new membership has another counter slot) keeps
    its earlier file and numbers on; a file of the same name already in DIR (an earlier
    run's) is never overwritten. Before: the rejoin reopened SEQ 00001 with O_TRUNC, and
    the frames written before it were lost while pcap_written counted them."""
    tag = "[pcap rejoin]"
    d = os.path.join(TMP, "pcap-rejoin")
    os.makedirs(d)
    keep = os.path.join(d, f"mcfan-239.9.9.1_{PORT}-w2-00001.pcapng")
    with open(keep, "wb") as f:
        f.write(b"an earlier run's file\n")
    a = Mcfan("pcaprj", [f"net_tap0,iface={TIN}"], ["--worker-engine", f"pcap:{d}", "-i"],
              console=True)
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        send(TIN)
        time.sleep(0.5)
        a.console(f"leave 239.9.9.1:{PORT}")
        time.sleep(0.3)
        a.console(f"join 239.9.9.1:{PORT}")
        time.sleep(0.3)
        send(TIN)
        time.sleep(0.5)
        rc, rep = a.stop()
    finally:
        a.kill()
    if not a.ended(rc, rep, tag):
        return
    with open(keep, "rb") as f:
        t.check_eq(f.read(), b"an earlier run's file\n", f"{tag} the earlier file is untouched")
    c = engine_conservation(rep, tag)
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} every mbuf back in its pool")
    files = pcap_files(d)
    seqs = [s for s, _ in files.get("239.9.9.1", [])]
    t.check_eq(seqs, [1, 2, 3], f"{tag} 239.9.9.1: the earlier file, then one file a "
               f"membership")
    total, per_group = 0, {}
    for g, lst in files.items():
        for s, path in lst:
            if path == keep:
                continue
            rows, r = tshark_fields(path, ["ip.dst"])
            t.check(r.returncode == 0, f"{tag} tshark reads {path}: {r.stderr[-300:]}")
            t.check(all(x[0] == g for x in rows), f"{tag} {path}: only group {g}")
            per_group[g] = per_group.get(g, 0) + len(rows)
            total += len(rows)
    t.check_eq(per_group, {g: 2 * n for g, n in GROUPS.items()},
               f"{tag} every frame of both sends in its group's files")
    if c is not None:
        t.check_eq(c.get("pcap_written"), total, f"{tag} pcap_written = the frames in the "
                   f"files")
        t.check_eq(c.get("pcap_files"), sum(len(v) for v in files.values()) - 1,
                   f"{tag} pcap_files = the files made")
    print(f"deliver: {tag} files {files}, {c}", flush=True)


def test_pcap_restart():
    """A restart into the same DIR numbers each group's files on after the highest SEQ of
    that group and worker lcore already there, so that the names sort in time order; it
    never fills a gap an earlier run's series has (its oldest files removed to make room)
    and never touches a file it did not make. Before: the first free number, so the new
    run's files went between the earlier run's (00001, 00003, 00004 for 00002 and 00005
    left) and `ls` showed the runs interleaved."""
    tag = "[pcap restart]"
    d = os.path.join(TMP, "pcap-restart")
    os.makedirs(d)
    inp = os.path.join(TMP, "restart.pcap")
    t.write_pcap(inp, all_frames())
    g1, g2, g3 = (f"mcfan-239.9.9.{i}_{PORT}" for i in (1, 2, 3))
    # an earlier run's series of 239.9.9.1 whose oldest files were removed; another worker
    # lcore's file of 239.9.9.2 and names that are no file of the series (not counted)
    earlier = [f"{g1}-w2-00002.pcapng", f"{g1}-w2-00005.pcapng", f"{g2}-w3-00007.pcapng",
               f"{g3}-w2-00009.pcapng.bak", f"{g3}-w2-0000x.pcapng", f"{g3}-w22-00008.pcapng"]
    for name in earlier:
        with open(os.path.join(d, name), "wb") as f:
            f.write(name.encode())
    want = {"239.9.9.1": [2, 5], "239.9.9.2": [], "239.9.9.3": []}
    for run in (1, 2):
        a = Mcfan(f"pcaprs{run}", [f"net_pcap0,rx_pcap={inp}"],
                  ["--worker-engine", f"pcap:{d}", "--duration", "1"])
        rc, rep = a.run_to_end()
        if not a.ended(rc, rep, f"{tag} run {run}"):
            return
        c = engine_conservation(rep, f"{tag} run {run}")
        t.check_eq(c and c.get("pcap_written"), sent_total(),
                   f"{tag} run {run}: pcap_written = every copy")
        got = {}
        for name in os.listdir(d):
            m = re.fullmatch(r"mcfan-(239\.9\.9\.\d)_\d+-w2-(\d{5})\.pcapng", name)
            if m is not None:
                got.setdefault(m.group(1), []).append(int(m.group(2)))
        for g in want:
            want[g].append(want[g][-1] + 1 if want[g] else 1)
        t.check_eq({g: sorted(v) for g, v in got.items()}, want,
                   f"{tag} run {run}: each group's series numbered on after its highest")
        for g, n in GROUPS.items():
            path = os.path.join(d, f"mcfan-{g}_{PORT}-w2-{want[g][-1]:05d}.pcapng")
            rows, r = tshark_fields(path, ["ip.dst"])
            t.check(r.returncode == 0 and len(rows) == n and all(x[0] == g for x in rows),
                    f"{tag} run {run}: {path} holds the run's {n} frames of {g} "
                    f"({len(rows)}; {r.stderr[-200:]})")
    for name in earlier:
        with open(os.path.join(d, name), "rb") as f:
            t.check_eq(f.read(), name.encode(), f"{tag} {name} untouched")
    print(f"deliver: {tag} series {want}", flush=True)


def test_pcap_dir_gone():
    """DIR moved away mid-run (as a removed or read-only directory would be), while every
    group needs a new file (left and joined again), then moved back: the copies meanwhile
    are pcap_write_failed (one line a group when it starts), and the line when a group's
    files can be made again says how many of its copies were lost, so the log tells each
    group's loss; then the files go on. Moved away again until the stop: a line a group at
    stop says its loss. Before: the failure was logged, its end not, and no line said which
    group lost how many."""
    tag = "[pcap dir gone]"
    d = os.path.join(TMP, "pcap-gone")
    away = d + ".away"
    os.makedirs(d)
    a = Mcfan("pcapgone", [f"net_tap0,iface={TIN}"], ["--worker-engine", f"pcap:{d}", "-i"],
              console=True)
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        send(TIN)
        time.sleep(0.5)
        os.rename(d, away)
        a.console(f"leave 239.9.9.1-3:{PORT}", 0.3)
        a.console(f"join 239.9.9.1-3:{PORT}", 0.3)
        send(TIN)
        time.sleep(0.5)
        os.rename(away, d)
        send(TIN)
        time.sleep(0.5)
        # away again at the end: the loss of each group is said at stop
        os.rename(d, away)
        a.console(f"leave 239.9.9.1-3:{PORT}", 0.3)
        a.console(f"join 239.9.9.1-3:{PORT}", 0.3)
        send(TIN)
        time.sleep(0.5)
        rc, rep = a.stop()
    finally:
        a.kill()
        if os.path.isdir(away):
            os.rename(away, d)
    if not a.ended(rc, rep, tag):
        return
    c = engine_conservation(rep, tag)
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} every mbuf back in its pool")
    if c is not None:
        t.check_eq((c.get("pcap_written"), c.get("pcap_write_failed")),
                   (2 * sent_total(), 2 * sent_total()),
                   f"{tag} the first and third sends written, the second and fourth "
                   f"write_failed")
    for g, n in GROUPS.items():
        name = f"mcfan-{g}_{PORT}-w2-"
        fails = [x for x in a.out.splitlines() if "pcap: cannot create" in x and name in x]
        t.check(len(fails) == 2 and all("No such file or directory" in x for x in fails),
                f"{tag} {g}: one line each time its file cannot be made: {fails}")
        again = [x for x in a.out.splitlines() if "pcap: writing again" in x and name in x]
        t.check(len(again) == 1 and f"group {g}:{PORT}, lcore 2" in again[0] and
                f" after {n} copies counted pcap_write_failed" in again[0] and
                f"{name}00002.pcapng" in again[0],
                f"{tag} {g}: one line when its files can be made again, with its {n} copies "
                f"lost: {again}")
        end = [x for x in a.out.splitlines() if f"pcap: group {g}:{PORT} (lcore 2): " in x]
        t.check(len(end) == 1 and f": {n} copies counted pcap_write_failed since its last "
                f"file could be made" in end[0],
                f"{tag} {g}: at stop, one line with its {n} copies lost since: {end}")
        for s in (1, 2):
            rows, r = tshark_fields(os.path.join(d, f"{name}{s:05d}.pcapng"), ["ip.dst"])
            t.check(r.returncode == 0 and len(rows) == n and all(x[0] == g for x in rows),
                    f"{tag} {g}: file {s} holds one send's {n} frames ({len(rows)}; "
                    f"{r.stderr[-200:]})")
    print(f"deliver: {tag} {c}", flush=True)


def test_pcap_dir_removed():
    """DIR removed mid-run (rm -rf: its open files unlinked) while no group needs a new
    file, then made again: within a second of the removal each group's open file is seen
    gone, one line a group says so with the copies written into it, and the group's next
    copies are pcap_write_failed (the directory is not there) until DIR is back, then
    written into a new file of its series. Before: every copy went on into the unlinked
    files, counted pcap_written, and not a word: a whole run's capture could vanish."""
    tag = "[pcap dir removed]"
    d = os.path.join(TMP, "pcap-removed")
    os.makedirs(d)
    a = Mcfan("pcaprm", [f"net_tap0,iface={TIN}"], ["--worker-engine", f"pcap:{d}", "-i"],
              console=True)
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        send(TIN)
        time.sleep(0.5)
        shutil.rmtree(d)
        time.sleep(1.5)          # the writer looks at its open files once a second
        send(TIN)
        time.sleep(0.5)
        os.makedirs(d)
        send(TIN)
        time.sleep(0.5)
        rc, rep = a.stop()
    finally:
        a.kill()
    if not a.ended(rc, rep, tag):
        return
    c = engine_conservation(rep, tag)
    t.check(t.conservation(rep), f"{tag} conservation")
    if c is not None:
        t.check_eq((c.get("pcap_written"), c.get("pcap_write_failed")),
                   (2 * sent_total(), sent_total()),
                   f"{tag} the first and third sends written, the second (no DIR) write_failed")
    for g, n in GROUPS.items():
        name = f"mcfan-{g}_{PORT}-w2-"
        gone = [x for x in a.out.splitlines() if "was removed while open" in x and name in x]
        t.check(len(gone) == 1 and f"pcap: {d}/{name}00001.pcapng (group {g}:{PORT}, lcore "
                f"2) was removed while open: the {n} copies written into it (counted "
                f"pcap_written) are gone with it" in gone[0],
                f"{tag} {g}: one line says its open file was removed, with its {n} copies: "
                f"{gone}")
        fails = [x for x in a.out.splitlines() if "pcap: cannot create" in x and name in x]
        t.check(len(fails) == 1, f"{tag} {g}: one line when its next file cannot be made: "
                f"{fails}")
        rows, r = tshark_fields(os.path.join(d, f"{name}00002.pcapng"), ["ip.dst"])
        t.check(r.returncode == 0 and len(rows) == n and all(x[0] == g for x in rows),
                f"{tag} {g}: file 2 in the new DIR holds the third send's {n} frames "
                f"({len(rows)}; {r.stderr[-200:]})")
    print(f"deliver: {tag} {c}", flush=True)


NOFILE_GROUPS = 1024     # one pcap file open each: past the usual limit of 1024 descriptors


def test_pcap_nofile():
    """1024 groups into pcap:DIR keep 1024 files open. Under a hard open file limit of 1024
    (a service's LimitNOFILE=1024) the last groups' files cannot be made: said at start,
    and every copy still counted (written or pcap_write_failed, the failure logged).
    Under a hard limit that fits (EAL raises the soft one to it): no word, every file made.
    Before: nothing was said at start."""
    tag = "[pcap nofile]"
    import resource
    inp = os.path.join(TMP, "nofile.pcap")
    base = int(ipaddress.IPv4Address("239.9.40.1"))
    groups = [str(ipaddress.IPv4Address(base + i)) for i in range(NOFILE_GROUPS)]
    t.write_pcap(inp, [t.udp4_frame(g, PORT) for g in groups] * 2)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 4096:
        print(f"deliver: {tag} SKIP the second run: the hard limit here is {hard}", flush=True)
    for run, lim in ((1, 1024), (2, None)):
        if lim is None and hard != resource.RLIM_INFINITY and hard < 4096:
            break
        d = os.path.join(TMP, f"pcap-nofile{run}")
        os.makedirs(d)
        prefix, eal = LAB.pcap_eal(f"nofile{run}", inp)
        rep_path = os.path.join(TMP, f"nofile{run}.json")
        app = ["--groups", f"{groups[0]}-{groups[-1]}:{PORT}", "--worker-engine", f"pcap:{d}",
               "--duration", "2", "--report-json", rep_path]
        p = subprocess.run([t.mcfan_path(), *eal, "--", *app], capture_output=True,
                           text=True, timeout=60,
                           preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_NOFILE,
                                                                  (lim, lim))) if lim else None)
        out = p.stdout + p.stderr
        if not t.check_eq(p.returncode, 0, f"{tag} run {run} exit: {out[-1500:]}"):
            continue
        rep = t.load_report(rep_path)
        c = worker(rep)["engine_counters"]
        warn = [x for x in out.splitlines() if "pcap: open file limit" in x]
        emfile = [x for x in out.splitlines() if "Too many open files" in x and "cannot create" in x]
        nfiles = len(os.listdir(d))
        t.check_eq(c.get("pcap_written", 0) + c.get("pcap_write_failed", 0),
                   2 * NOFILE_GROUPS, f"{tag} run {run}: every copy written or write_failed")
        t.check_eq(c.get("pcap_files"), nfiles, f"{tag} run {run}: pcap_files = files made")
        t.check_eq(c.get("pcap_written"), 2 * nfiles,
                   f"{tag} run {run}: two copies in each file made")
        if lim:
            t.check(len(warn) == 1 and "(RLIMIT_NOFILE) 1024 (hard limit 1024) is below the "
                    "1280 that up to 1024 open pcap files" in warn[0],
                    f"{tag} a hard limit of 1024 said at start: {warn}")
            t.check(c.get("pcap_write_failed", 0) > 0 and len(emfile) ==
                    c.get("pcap_write_failed", 0) // 2,
                    f"{tag} the groups past the limit: write_failed, one line each "
                    f"({len(emfile)} lines, {c})")
        else:
            t.check_eq(warn, [], f"{tag} a limit that fits: no word")
            t.check_eq((c.get("pcap_write_failed"), nfiles), (0, NOFILE_GROUPS),
                       f"{tag} a limit that fits: a file each group")
        print(f"deliver: {tag} run {run} limit {lim or hard}: {nfiles} files, {c}", flush=True)


BIG_DIR_FILES = 10       # an earlier run's files of each of NOFILE_GROUPS groups in DIR


def test_pcap_big_dir():
    """A restart into a DIR of 10,240 files (10 of each of 1024 groups): each group's file
    numbers on (SEQ 11), and DIR is opened for reading a few times in the run (strace's
    openat of DIR with O_DIRECTORY), not once per group (before: 1024 reads of 10,240 names
    held the writer about 7 s at the groups' first copies on the test host)."""
    tag = "[pcap big dir]"
    inp = os.path.join(TMP, "bigdir.pcap")
    base = int(ipaddress.IPv4Address("239.9.40.1"))
    groups = [str(ipaddress.IPv4Address(base + i)) for i in range(NOFILE_GROUPS)]
    t.write_pcap(inp, [t.udp4_frame(g, PORT) for g in groups])
    d = os.path.join(TMP, "pcap-bigdir")
    os.makedirs(d)
    for g in groups:
        for s in range(1, BIG_DIR_FILES + 1):
            open(os.path.join(d, f"mcfan-{g}_{PORT}-w2-{s:05d}.pcapng"), "wb").close()
    prefix, eal = LAB.pcap_eal("bigdir", inp)
    rep_path = os.path.join(TMP, "bigdir.json")
    app = ["--groups", f"{groups[0]}-{groups[-1]}:{PORT}", "--worker-engine", f"pcap:{d}",
           "--duration", "1", "--report-json", rep_path]
    trace = os.path.join(TMP, "bigdir.strace")
    p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat", "-o", trace,
                        t.mcfan_path(), *eal, "--", *app], capture_output=True, text=True,
                       timeout=120)
    if not t.check_eq(p.returncode, 0, f"{tag} exit: {(p.stdout + p.stderr)[-1500:]}"):
        return
    with open(trace) as f:
        reads = [x for x in f if f'"{d}"' in x and "O_DIRECTORY" in x]
    c = worker(t.load_report(rep_path))["engine_counters"]
    t.check_eq((c.get("pcap_written"), c.get("pcap_write_failed"), c.get("pcap_files")),
               (NOFILE_GROUPS, 0, NOFILE_GROUPS), f"{tag} a file for every group ({c})")
    new = [n for n in os.listdir(d) if n.endswith(f"-w2-{BIG_DIR_FILES + 1:05d}.pcapng")]
    t.check_eq(len(new), NOFILE_GROUPS, f"{tag} every group's file is SEQ {BIG_DIR_FILES + 1}")
    # the writer reads DIR once for its output (and the start's check of DIR may look at
    # it): a handful, against one a group (1024) before
    t.check(1 <= len(reads) <= 4, f"{tag} DIR opened for reading {len(reads)} times (1..4, "
            f"not once a group): {reads[:6]}")
    print(f"deliver: {tag} DIR read {len(reads)} times, {c}", flush=True)


def test_pcap_frozen_disk():
    """DIR on a file system that takes no write (fsfreeze of a loop-mounted ext4: a hung disk)
    while 3840 copies arrive over about 4 s: the worker never waits (its ring to the
    writer fills, then pcap_full), one warning says the writer takes nothing, and once the
    file system is thawed every copy in the ring is written: pcap_written + pcap_full = the
    worker's frames, and tshark reads back pcap_written frames. Before: the copies refused
    were counted, but the log said nothing while the disk hung."""
    tag = "[pcap frozen disk]"
    if shutil.which("fsfreeze") is None or shutil.which("mkfs.ext4") is None:
        print(f"deliver: {tag} SKIP: fsfreeze or mkfs.ext4 missing", flush=True)
        return
    d = os.path.join(TMP, "pcap-frozen")
    img = os.path.join(TMP, "frozen.img")
    os.makedirs(d)
    with open(img, "wb") as f:
        f.truncate(32 << 20)
    if not t.check(subprocess.run(["mkfs.ext4", "-q", "-F", img]).returncode == 0 and
                   subprocess.run(["mount", "-o", "loop", img, d]).returncode == 0,
                   f"{tag} an ext4 image loop-mounted on {d}"):
        return
    frozen = False
    try:
        a = Mcfan("pcapfrz", [f"net_tap0,iface={TIN}"], ["--worker-engine", f"pcap:{d}"])
        try:
            if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
                return
            frozen = subprocess.run(["fsfreeze", "-f", d]).returncode == 0
            if not t.check(frozen, f"{tag} fsfreeze -f {d}"):
                return
            r = LAB.run("timeout", "60", sys.executable, os.path.abspath(__file__),
                        "--raw-send-many", TIN, "1000", capture_output=True, text=True,
                        timeout=90)
            t.check_eq(r.returncode, 0, f"{tag} raw sender: {r.stderr}")
            time.sleep(1.2)
            subprocess.run(["fsfreeze", "-u", d])
            frozen = False
            time.sleep(1)
            rc, rep = a.stop()
        finally:
            if frozen:
                subprocess.run(["fsfreeze", "-u", d])
            a.kill()
        if not a.ended(rc, rep, tag):
            return
        c = worker(rep)["engine_counters"]
        w = [x for x in rep["workers"] if x["lcore"] == 2][0]
        t.check_eq(w["frames"], 16 * sent_total(), f"{tag} the worker took every copy")
        t.check(c.get("pcap_full", 0) > 0, f"{tag} the ring filled: pcap_full ({c})")
        t.check_eq((c.get("pcap_written", 0) + c.get("pcap_full", 0),
                    c.get("pcap_write_failed"), c.get("pcap_pending")),
                   (w["frames"], 0, 0), f"{tag} written + full = the worker's frames")
        warn = [x for x in a.out.splitlines() if "has taken no copy" in x]
        t.check(len(warn) == 1 and f"pcap output pcap:{d} on lcore 2: the writer thread "
                f"has taken no copy for 1000 ms" in warn[0] and "pcap_full" in warn[0],
                f"{tag} one warning while the disk took no write: {warn}")
        total = 0
        for name in sorted(os.listdir(d)):
            if name.endswith(".pcapng"):
                rows, r = tshark_fields(os.path.join(d, name), ["frame.number"])
                t.check(r.returncode == 0, f"{tag} tshark reads {name}: {r.stderr[-200:]}")
                total += len(rows)
        t.check_eq(total, c.get("pcap_written"), f"{tag} tshark reads pcap_written frames")
        t.check(t.conservation(rep), f"{tag} conservation")
        t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} every mbuf back in its pool")
        print(f"deliver: {tag} {c}", flush=True)
    finally:
        subprocess.run(["umount", d])


class HeldThread:
    """One thread of another process held still (ptrace PTRACE_SEIZE + PTRACE_INTERRUPT: only
    that thread stops, the others run on) until release(); the kernel lets it go if this
    process ends first."""
    SEIZE, INTERRUPT, DETACH, WALL = 0x4206, 0x4207, 17, 0x40000000

    def __init__(self, pid, comm):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                                     ctypes.c_void_p]
        self.tid = None
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() == comm:
                    self.tid = int(tid)
        if self.tid is None:
            raise RuntimeError(f"no thread {comm} in process {pid}")
        for req in (self.SEIZE, self.INTERRUPT):
            if self.libc.ptrace(req, self.tid, None, None) != 0:
                raise OSError(ctypes.get_errno(), f"ptrace {req:#x} on thread {self.tid}")
        os.waitpid(self.tid, self.WALL)

    def release(self):
        if self.tid is not None:
            self.libc.ptrace(self.DETACH, self.tid, None, None)
            self.tid = None


def test_pcap_slot_reuse():
    """A group leaves while its copies wait in the pcap writer's ring (the writer held, as on
    a slow disk), its counter slot drains (the slot drain waits for the workers, not for the
    writer) and a new group takes it: every copy of the left group is written into the left
    group's file, none into the new group's. Before: the writer named the file by the slot's
    group at open time, so the left group's copies went into mcfan-239.9.9.7_..."""
    tag = "[pcap slot reuse]"
    d = os.path.join(TMP, "pcap-reuse")
    os.makedirs(d)
    fresh = f"239.10.0.0-239.10.3.252:{PORT}"   # slots 3..1023: no fresh slot is left
    a = Mcfan("pcapru", [f"net_tap0,iface={TIN}"], ["--worker-engine", f"pcap:{d}", "-i"],
              console=True)
    held = None
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        a.console(f"join {fresh}", 0.5)
        a.console(f"leave {fresh}", 1.0)         # drained on the control tick
        held = HeldThread(a.p.pid, "mcfan-pcap")
        send(TIN)
        time.sleep(0.5)
        a.console(f"leave 239.9.9.1:{PORT}", 1.0)
        a.console(f"join 239.9.9.7:{PORT}", 0.5)
        held.release()
        time.sleep(0.5)
        rc, rep = a.stop()
    finally:
        if held is not None:
            held.release()
        a.kill()
    if not a.ended(rc, rep, tag):
        return
    t.check(re.search(rf"joined 239\.9\.9\.7:{PORT}: counter slot 0,", a.out) is not None,
            f"{tag} the new group took the left group's slot 0:\n{a.out[-1500:]}")
    c = engine_conservation(rep, tag)
    t.check(t.conservation(rep), f"{tag} conservation")
    per_group = {}
    for g, lst in pcap_files(d).items():
        for _, path in lst:
            rows, r = tshark_fields(path, ["ip.dst"])
            t.check(r.returncode == 0, f"{tag} tshark reads {path}: {r.stderr[-300:]}")
            t.check_eq(sorted({x[0] for x in rows}), [g], f"{tag} {path}: only group {g}")
            per_group[g] = per_group.get(g, 0) + len(rows)
    t.check_eq(per_group, GROUPS, f"{tag} every frame in its own group's files, no file of "
               f"239.9.9.7 (it got no frame)")
    if c is not None:
        t.check_eq((c.get("pcap_written"), c.get("pcap_write_failed"), c.get("pcap_full")),
                   (sent_total(), 0, 0), f"{tag} pcap_written, write_failed, full")
    print(f"deliver: {tag} {per_group}, {c}", flush=True)


FULL_FRAMES = 1000       # frames of about 1.4 KB (1.4 MB) into a 256 KiB tmpfs


def test_pcap_full_disk():
    """A capture replayed into pcap:DIR on a tiny tmpfs: the disk fills. A frame not wholly
    written (short writev) is pcap_write_failed, not pcap_written, and its file is cut back
    to its last whole block; a file that could not start is removed. pcap_written = what
    tshark reads back from all files; written + full + write_failed = the worker's frames."""
    tag = "[pcap full disk]"
    d = os.path.join(TMP, "pcap-full")
    os.makedirs(d)
    inp = os.path.join(TMP, "full.pcap")
    t.write_pcap(inp, [frame("239.9.9.1", i)[:-40] + bytes(1400) for i in range(FULL_FRAMES)])
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "none",
                              d]).returncode == 0
    if not t.check(mounted, f"{tag} tmpfs of 256 KiB mounted on {d}"):
        return
    try:
        a = Mcfan("pcapfull", [f"net_pcap0,rx_pcap={inp}"],
                  ["--worker-engine", f"pcap:{d}", "--duration", "2"])
        rc, rep = a.run_to_end()
        if not a.ended(rc, rep, tag):
            return
        w = [x for x in rep["workers"] if x["lcore"] == 2]
        c = worker(rep)["engine_counters"]
        t.check_eq(rep["rx_frames"], FULL_FRAMES, f"{tag} every frame of the capture received")
        t.check(c.get("pcap_write_failed", 0) > 0 and c.get("pcap_errors", 0) > 0,
                f"{tag} the disk filled: copies counted pcap_write_failed ({c})")
        t.check(re.search(r"pcap: short write \(lcore 2, group 239\.9\.9\.1:3999, file 1\): "
                          r"\d+ of \d+ bytes", a.out) is not None,
                f"{tag} the disk filled in the middle of a block (a short write, logged with "
                f"its group)")
        # each group's loss is in the log: when a file of it can be made again, or at stop
        lost = [int(x) for x in re.findall(r"pcap: writing again into \S+ \(group 239\.9\.9\.1:"
                                           r"3999, lcore 2\) after (\d+) copies", a.out)]
        lost += [int(x) for x in re.findall(r"pcap: group 239\.9\.9\.1:3999 \(lcore 2\): (\d+) "
                                            r"copies counted pcap_write_failed since", a.out)]
        t.check_eq(sum(lost), c.get("pcap_write_failed"),
                   f"{tag} the group's losses in the log ({lost}) add up to pcap_write_failed")
        # the next file's section header did not fit: said so, never errno 0's "Success"
        starts = [x for x in a.out.splitlines() if "pcap: cannot start" in x]
        t.check(len(starts) == 1 and "its section header was not written whole (disk full?)"
                in starts[0], f"{tag} a file that could not start, and why: {starts}")
        t.check_eq(c.get("pcap_written", 0) + c.get("pcap_full", 0) +
                   c.get("pcap_write_failed", 0), w[0]["frames"] if w else None,
                   f"{tag} pcap_written + pcap_full + pcap_write_failed = worker frames")
        total, bad = 0, []
        paths = sorted(glob.glob(os.path.join(d, "*")))
        for path in paths:
            if os.path.getsize(path) == 0:
                bad.append(f"{path}: empty")
                continue
            rows, r = tshark_fields(path, ["frame.number"])
            if r.returncode != 0:
                bad.append(f"{path}: {r.stderr.strip()[-200:]}")
            total += len(rows)
        t.check_eq(bad, [], f"{tag} every file reads back whole (none empty, none cut off)")
        t.check_eq(total, c.get("pcap_written"),
                   f"{tag} pcap_written = frames tshark reads back from {len(paths)} files")
        t.check_eq(c.get("pcap_files"), len(paths), f"{tag} pcap_files = the files left")
        t.check(t.conservation(rep), f"{tag} conservation")
        t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} every mbuf back in its pool")
        print(f"deliver: {tag} {len(paths)} files, {total} frames read back, {c}", flush=True)
    finally:
        subprocess.run(["umount", d])


# dst-ip multicast without dst-mac: the destination MAC is the group's (RFC 1112 6.4); the
# second octet's top bit is not in the MAC (low 23 bits)
GROUP_IP, GROUP_MAC = "239.137.9.200", "01:00:5e:09:09:c8"


def test_tap_group():
    tag = "[tx dst-ip group]"
    cap = os.path.join(TMP, "tap-group.pcap")
    a = Mcfan("tapgrp", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
              ["--worker-engine", f"tx:net_tap1,dst-ip={GROUP_IP}"])
    rc, rep = run_captured(a, cap, tag)
    if rc is None:
        return
    if a.ended(rc, rep, tag):
        c = engine_conservation(rep, tag)
        if c is not None:
            t.check_eq(c.get("tx_sent"), sent_total(), f"{tag} tx_sent = every copy")
    rows, r = tshark_fields(cap, ["eth.dst", "ip.dst", "udp.dstport", "ip.checksum.status",
                                  "udp.checksum.status"],
                            ["-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"])
    t.check_eq(len(rows), sent_total(), f"{tag} tshark reads every frame: {r.stderr[-300:]}")
    t.check_eq(sorted(set(tuple(x) for x in rows)),
               [(GROUP_MAC, GROUP_IP, str(PORT), "1", "1")],
               f"{tag} destination MAC derived from dst-ip, port kept, checksums good")


def test_set_engine():
    """The console's set engine and show engines, /mcfan/engines: tx at start, count from the
    console, tx again; tx's counters count only its own copies."""
    tag = "[set engine]"
    a = Mcfan("seteng", [f"net_tap0,iface={TIN}", f"net_tap1,iface={TOUT}"],
              ["--worker-engine", "tx:net_tap1", "-i"], console=True)
    n = sent_total()
    try:
        if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
            return
        a.console("show engines")
        send(TIN)
        time.sleep(0.5)
        a.console("set engine 2 count")
        time.sleep(0.3)
        send(TIN)
        time.sleep(0.5)
        tel = t.telemetry_once(a.prefix, "/mcfan/engines")
        a.console("set engine 2 pcap:/tmp")
        a.console("set engine 2 readers")
        a.console("set engine 9 count")
        a.console("set engine 2 tx:0")
        a.console("set engine 2 count")
        a.console("set engine 2 tx:net_tap1")
        time.sleep(0.3)
        send(TIN)
        time.sleep(0.5)
        a.console("show engines")
        a.console("quit")
        rc, rep = a.stop()
    finally:
        a.kill()
    out = a.out
    t.check_eq(rc, 0, f"{tag} exit:\n{out[-2000:]}")
    t.check("lcore 2: engine tx (started as tx:net_tap1); tx_sent 0 tx_full 0" in out,
            f"{tag} show engines at start:\n{out[-2500:]}")
    t.check("lcore 2: worker engine count (was tx), from its next burst" in out,
            f"{tag} set engine 2 count")
    t.check("error: set engine: engine pcap is set up at start" in out,
            f"{tag} pcap cannot be added at run time")
    t.check(re.search(r"error: set engine: engine readers is set up at start \(ports, "
                      r"queues, files\): start mcfan with --worker-engine readers$", out,
                      re.M) is not None,
            f"{tag} readers (no ARGS) is named without ':ARGS'")
    t.check("error: set engine: lcore 9 is not a worker lcore" in out, f"{tag} lcore 9")
    t.check("error: set engine: lcore 2 runs tx with the ARGS it started with" in out,
            f"{tag} other ARGS refused")
    t.check("error: set engine: lcore 2 runs count already" in out, f"{tag} no change")
    t.check("lcore 2: worker engine tx (was count), from its next burst" in out,
            f"{tag} back to tx")
    t.check(f"lcore 2: engine tx (started as tx:net_tap1); tx_sent {2 * n} tx_full 0" in out,
            f"{tag} show engines at the end: tx sent only its own copies")
    want = {"lcore": [2], "engine": ["count"], "start_engine": ["tx"],
            "start_args": ["net_tap1"], "tx_sent": [n], "tx_full": [0]}
    t.check(tel is not None and {k: tel.get(k) for k in want} == want,
            f"{tag} /mcfan/engines while count runs: {tel}")
    if t.check(rep is not None, f"{tag} report"):
        t.check_eq(t.group_frames(rep), {(g, PORT): 3 * c for g, c in GROUPS.items()},
                   f"{tag} every frame counted, whatever engine ran")
        w = [x for x in rep["workers"] if x["lcore"] == 2]
        c = worker(rep)["engine_counters"]
        t.check_eq((c.get("tx_sent"), w[0]["frames"] if w else None), (2 * n, 3 * n),
                   f"{tag} tx_sent = the copies while tx ran; worker frames = all")
        lc2 = worker(rep)
        t.check_eq({k: lc2.get(k) for k in ("worker_engine", "worker_engine_now",
                                            "worker_engine_set")},
                   {"worker_engine": "tx", "worker_engine_now": "tx",
                    "worker_engine_set": True},
                   f"{tag} the JSON says the start engine and the one set at the end")
        t.check(t.conservation(rep), f"{tag} conservation")


# (worker-engine value, the error line mcfan prints): refused before EAL, exit 2
BAD_ENGINE = [
    ("tx", "--worker-engine: tx: no output port: give tx:PORT (a port id or name, e.g. "
     "tx:net_tap0 or tx:1)"),
    ("tx:0,dst-mac=02:00:00:00:00", "--worker-engine: tx: dst-mac '02:00:00:00:00' is not a "
     "MAC address (XX:XX:XX:XX:XX:XX)"),
    ("tx:0,dst-ip=239.1.1", "--worker-engine: tx: dst-ip '239.1.1' is not an IPv4 address"),
    ("tx:0,dst-mac=00:00:00:00:00:00", "--worker-engine: tx: dst-mac '00:00:00:00:00:00' is "
     "not a destination (all zero, as dst-ip 0.0.0.0 is none)"),
    ("tx:0,dst-port=65536", "--worker-engine: tx: dst-port '65536' is not a UDP port "
     "(1..65535)"),
    ("tx:0,ttl=3", "--worker-engine: tx: 'ttl' is not a tx argument (dst-mac, dst-ip, "
     "dst-port, udp-csum)"),
    ("tx:0,dst-port", "--worker-engine: tx: 'dst-port' is not KEY=VALUE (keys: dst-mac, "
     "dst-ip, dst-port, udp-csum)"),
    ("tx:0,udp-csum=zero", "--worker-engine: tx: udp-csum 'zero' is not auto (the default: a "
     "partial checksum computed, others updated), update (updated for the rewritten words) "
     "or full (computed anew over the datagram)"),
    ("tx:a=b", "--worker-engine: tx: 'a=b' is not an output port: the first argument is PORT "
     "(a port id or an ethdev name)"),
    ("count:fast", "--worker-engine: 'count:fast': engine count takes no arguments"),
    ("nope:1", "--worker-engine: 'nope' is not a worker engine: "),
    ("pcap", "--worker-engine: pcap: no directory: give pcap:DIR (an existing, writable "
     "directory)"),
    ("pcap:/nonexistent-mcfan", "--worker-engine: pcap: '/nonexistent-mcfan' is not a "
     "directory"),
    # root passes access() there: a probe file is made (trial9: every copy write_failed)
    # the shell leaves '~' after "pcap:" as it is (before: only "is not a directory")
    ("pcap:~/mcfan-caps", "--worker-engine: pcap: '~/mcfan-caps' is not a directory (a '~' is "
     "not expanded after 'pcap:': give the whole path, e.g. pcap:$HOME/mcfan-caps)"),
    # a directory on a file system that is no place for files: procfs, sysfs by statfs's
    # f_type, /dev by its mount's type devtmpfs (it reports TMPFS_MAGIC) (before: /proc and
    # /sys "not writable", found by a probe file; /dev taken, the captures among the devices)
    ("pcap:/proc", "--worker-engine: pcap: directory '/proc' is on procfs (the kernel's "
     "process information), no file system for capture files: give a directory on a disk's "
     "file system or a tmpfs (e.g. pcap:/var/tmp/cap)"),
    ("pcap:/sys/kernel", "--worker-engine: pcap: directory '/sys/kernel' is on sysfs (the "
     "kernel's objects), no file system for capture files"),
    ("pcap:/dev", "--worker-engine: pcap: directory '/dev' is on devtmpfs (the device nodes "
     "of /dev), no file system for capture files: give a directory on a disk's file system "
     "or a tmpfs"),
    ("pcap:/tmp,rotate-mb=0", "--worker-engine: pcap: rotate-mb '0' is not allowed: MiB, "
     "1..1048576"),
    ("pcap:/tmp,rotate-s=x", "--worker-engine: pcap: rotate-s 'x' is not allowed: seconds, "
     "1..604800"),
    ("pcap:/tmp,every=1", "--worker-engine: pcap: 'every' is not a pcap argument (rotate-mb, "
     "rotate-s)"),
    ("tx:0,dst-ip=198.18.9.9", "--worker-engine: tx: dst-ip '198.18.9.9' is unicast: give "
     "dst-mac= too (the MAC of the host or next hop; mcfan does no ARP)"),
    ("tx:0,dst-ip=0.0.0.0", "--worker-engine: tx: dst-ip '0.0.0.0' is not a destination "
     "(neither 0.0.0.0 nor 255.255.255.255)"),
    ("tx:0,dst-mac=02:00:00:00:00:99,dst-ip=255.255.255.255", "--worker-engine: tx: dst-ip "
     "'255.255.255.255' is not a destination (neither 0.0.0.0 nor 255.255.255.255)"),
    ("tx:0,dst-port=1,dst-port=2", "--worker-engine: tx: 'dst-port' is given twice"),
    ("tx:0,,dst-port=1", "--worker-engine: tx: empty argument (argument 2): ',,', a leading "
     "or a trailing comma"),
    ("tx:0,dst-port=1,", "--worker-engine: tx: empty argument (argument 3): ',,', a leading "
     "or a trailing comma"),
    ("pcap:/tmp,rotate-s=1,rotate-s=2", "--worker-engine: pcap: 'rotate-s' is given twice"),
    ("pcap:/tmp,,rotate-s=1", "--worker-engine: pcap: empty argument (argument 2): ',,', a "
     "leading or a trailing comma"),
    ("pcap:/tmp,", "--worker-engine: pcap: empty argument (argument 2): ',,', a leading or a "
     "trailing comma"),
    ("tx:" + "a" * 256, "--worker-engine: arguments of tx are longer than 255 characters"),
]


def test_bad_input():
    tag = "[bad input]"
    for val, msg in BAD_ENGINE:
        eal = t.eal_args(f"dlvbad{BAD_ENGINE.index((val, msg))}",
                         extra=["--vdev", "net_null0"])
        t.check_refused(eal, ["--groups", "239.9.9.1", "--duration", "0.2",
                              "--worker-engine", val], msg, f"{tag} {val}")
    # a directory that root may write (access() says yes) but where no file can be made:
    # the probe file finds it (a tmpfs of one inode, its root's; before the f_type check,
    # pcap:/proc was this case)
    full = os.path.join(TMP, "one-inode")
    os.makedirs(full, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "nr_inodes=1,size=1m", "mcfan-test",
                       full]).returncode == 0:
        try:
            t.check_refused(t.eal_args("dlvbadfull", extra=["--vdev", "net_null0"]),
                            ["--groups", "239.9.9.1", "--duration", "0.2", "--worker-engine",
                             f"pcap:{full}"], f"--worker-engine: pcap: directory '{full}' is "
                            "not writable: no file can be made in it (No space left on device)",
                            f"{tag} pcap on a full file system")
        finally:
            subprocess.run(["umount", full])
    else:
        print(f"{tag} pcap on a full file system: skipped (no tmpfs mount)")
    os.rmdir(full)
    # a DIR with a ',' is split there: the refusal says so (before: only "'D/cap' is not a
    # directory", or "'b' is not KEY=VALUE" when D/cap exists too)
    comma, cap = os.path.join(TMP, "cap,b"), os.path.join(TMP, "cap")
    os.makedirs(comma, exist_ok=True)
    hint = (f" ('{comma}' is a directory, but the arguments are split at every ',': give a "
            "DIR without a ',', e.g. a symlink to it)")
    for i, msg in enumerate((f"pcap: '{cap}' is not a directory{hint}",
                             f"pcap: 'b' is not KEY=VALUE (keys: rotate-mb, rotate-s){hint}")):
        if i == 1:
            os.makedirs(cap, exist_ok=True)
        t.check_refused(t.eal_args(f"dlvbadcomma{i}", extra=["--vdev", "net_null0"]),
                        ["--groups", "239.9.9.1", "--duration", "0.2", "--worker-engine",
                         f"pcap:{comma},rotate-s=1"], msg, f"{tag} pcap:{comma} ({i})")
    os.rmdir(cap)
    os.rmdir(comma)
    # in the config file: the same check, file and line named
    t.check_refused_config("dlvbadcfg", TMP,
                           "[mcfan]\ngroups = 239.9.9.1\nworker-engine = tx:0,dst-port=0\n",
                           "dst-port '0' is not a UDP port (1..65535)", f"{tag} config file")
    # after EAL: a port that was not probed, a TX queue more than the port has
    eal = t.eal_args("dlvbadport", extra=["--vdev", "net_null0"])
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1", "--duration", "0.2",
                                          "--worker-engine", "tx:net_tap7"])
    t.check_eq(rc, 2, f"{tag} tx:net_tap7: exit status")
    t.check("--worker-engine: tx: 'net_tap7' is not a probed port: give a port id (0..0) or "
            "an ethdev name of a --vdev/-a device" in err, f"{tag} tx:net_tap7: {err!r}")
    t.check(rep is None, f"{tag} tx:net_tap7: no report")
    t.remove_runtime_dir(eal)
    # --fanout replicate over 2 tx workers: each sends every frame, so it leaves the port
    # twice; said at start (before: nothing, and the tap's kernel side saw 102 of 51)
    warn = ("MCFAN: tx: --fanout replicate gives every frame to each of the 2 worker lcores, "
            "and each sends its copy: every frame of a group on a tx output leaves its port "
            "2 times; give --fanout partition to send each frame once (docs/delivery.md)")
    for fanout in ("replicate", "partition"):
        eal = t.eal_lcores("0@0,1@1,2@0,3@1", f"mcfan-dlvrep{fanout[0]}-{os.getpid()}",
                           ["net_null0"])
        rc, out, err, rep = t.run_mcfan(eal, ["--rx-lcores", "1", "--worker-lcores", "2-3",
                                              "--groups", "239.9.9.1", "--duration", "0.2",
                                              "--fanout", fanout, "--worker-engine", "tx:0",
                                              "--rx-ports", "0"])
        t.check_eq(rc, 0, f"{tag} tx, --fanout {fanout}, 2 workers: exit status")
        t.check((warn in err) == (fanout == "replicate"),
                f"{tag} tx, --fanout {fanout}: the replicate warning "
                f"{'given' if fanout == 'replicate' else 'not given'}: {err[-600:]!r}")
        t.remove_runtime_dir(eal)
    # one tx output written two ways (by id and by name, the same rewrites): warned once the
    # ports are probed (before: two outputs, each with TX queues of its own, without a word)
    eal = t.eal_args("dlvsame", extra=["--vdev", "net_null0", "--vdev", "net_null1"])
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1-2:3999", "--duration", "0.2",
                                          "--group-engine", "239.9.9.1:3999=tx:1",
                                          "--group-engine", "239.9.9.2:3999=tx:net_null1"])
    t.check(rc == 0 and "MCFAN: worker engine outputs 1 (tx:1) and 2 (tx:net_null1) are one "
            "output written two ways (port 1 (net_null1) with the same destination and "
            "udp-csum): each takes TX queues of its own; write it one way" in err,
            f"{tag} tx:1 and tx:net_null1: warned, runs: {rc} {err[-600:]!r}")
    t.remove_runtime_dir(eal)
    # no port probed at all: no port id range to offer (before: "give a port id (0..0)")
    eal = t.eal_args("dlvbadnoport")
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", "239.9.9.1", "--duration", "0.2",
                                          "--worker-engine", "tx:0"])
    t.check_eq(rc, 2, f"{tag} tx:0, no port: exit status")
    t.check("mcfan: --worker-engine: tx: '0' is not a probed port: no port was probed: give "
            "a device with --vdev (e.g. net_tap0) or -a PCI_ADDRESS" in err and "0..0" not in err,
            f"{tag} tx:0, no port: {err!r}")
    t.check(rep is None, f"{tag} tx:0, no port: no report")
    t.remove_runtime_dir(eal)
    # a tx port with too few TX queues (net_pcap without tx_pcap: 1, queue 0 is the control
    # lcore's) is refused before any port starts: port 0 (net_null0) is not started; the
    # message counts every worker lcore that would send, not those set up so far
    for n_workers in (1, 2, 3):
        what = f"{tag} tx:1 on a port of 1 TX queue, {n_workers} worker lcores"
        eal = t.eal_one_txq_port(f"dlvbadtxq{n_workers}", TMP)
        app = ["--groups", "239.9.9.1", "--duration", "0.2", "--worker-engine", "tx:1"]
        if n_workers > 1:
            lcores = "0@0,1@1," + ",".join(f"{2 + w}@{w % 2}" for w in range(n_workers))
            eal = [a for a in eal if a not in ("-l", "0-1")] + ["--lcores", lcores]
            app += ["--rx-lcores", "1", "--worker-lcores", f"2-{1 + n_workers}"]
        rc, out, err, rep = t.run_mcfan(eal, app)
        t.check_eq(rc, 2, f"{what}: exit status")
        msg = (f"mcfan: port 1 (net_pcap): {n_workers} worker lcore"
               f"{'' if n_workers == 1 else 's'} would send on it (tx engine: "
               f"{n_workers + 1} TX queues, queue 0 for the control lcore and one per worker "
               f"lcore) but the driver has at most 1 TX queue; no worker lcore can send on "
               f"it: send on a port with at least {n_workers + 1} TX queues\n")
        t.check(msg in err, f"{what}: message {msg!r}: {err!r}")
        t.check("fewer outputs" not in err, f"{what}: no advice about outputs: {err!r}")
        t.check("started," not in out + err, f"{what}: no port started before the refusal: "
                f"{(out + err)[-600:]!r}")
        t.check(rep is None, f"{what}: no report")
        t.remove_runtime_dir(eal)


    ring_loop(tag)


def ring_run(name, vdevs, what):
    """mcfan for 1 s on vdevs with tx:net_ring0,dst-port=5000: exit status 0 and a report
    checked; returns (stderr, report or None)."""
    eal = t.eal_args(name, extra=vdevs)
    rc, _, err, rep = t.run_mcfan(eal, ["--groups", f"239.9.9.1-3:{PORT}", "--duration", "1",
                                        "--worker-engine", "tx:net_ring0,dst-port=5000",
                                        "--rx-ports", "0-1"])
    t.check_eq(rc, 0, f"{what}: exit status ({err[-400:]!r})")
    t.remove_runtime_dir(eal)
    t.check(rep is not None, f"{what}: report")
    return err, rep


def ring_join(tag, vdevs):
    """The real console on tx:net_ring0,dst-port=5000: a join of a group the copies would
    come back as (239.9.9.1:5000, or 239.9.9.1 on every port) is refused and changes
    nothing; one they would not (239.9.9.7:4000, sent to 239.9.9.7:5000) is joined."""
    eal = t.eal_args("dlvringjoin", extra=vdevs)
    path = os.path.join(TMP, "ringjoin.cmd")
    with open(path, "w") as f:
        f.write("join 239.9.9.1:5000\njoin 239.9.9.1\njoin 239.9.9.7:4000\nshow groups\n"
                f"set engine 239.9.9.2:{PORT} tx:net_ring0\nset engine 1 tx:9\n"
                "join 239.9.9.8 engine tx:net_tap7\nquit\n")
    with open(path) as f:
        rc, out, err, rep = t.run_mcfan(eal, ["--groups", f"239.9.9.1-3:{PORT}", "-i",
                                              "--rx-ports", "0-1",
                                              "--worker-engine", "tx:net_ring0,dst-port=5000"],
                                        stdin=f)
    t.remove_runtime_dir(eal)
    os.unlink(path)
    t.check_eq(rc, 0, f"{tag} ring join: exit status ({err[-400:]!r})")
    head = ("error: join: --worker-engine: tx:net_ring0,dst-port=5000: port 1 is net_ring, "
            "whose TX feeds its own RX, which mcfan polls: copies of group 239.9.9.1:3999 "
            "would go to 239.9.9.1:5000, which group ")
    tail = (" matches, come back as new frames of it and be sent again, without end; join "
            "no group a tx output on a net_ring port sends to\n")
    for g in ("239.9.9.1:5000", "239.9.9.1"):
        t.check(head + g + tail in out, f"{tag} ring join {g}: refused: {out[-1500:]!r}")
    t.check("joined 239.9.9.7:4000" in out, f"{tag} ring join 239.9.9.7:4000: joined")
    # tx ARGS that start would refuse after EAL (no such port; unchanged on net_ring): that
    # refusal, not "no engine instance ... start mcfan with --group-engine ...=tx:9"
    for want in ("error: set engine: tx: port 1 is net_ring, whose TX feeds its own RX, "
                 "which mcfan polls (--rx-ports names it): every copy would come back as a new frame of its group "
                 "and be sent again, without end; send on another port, or rewrite dst-ip or "
                 "dst-port to a group mcfan has not joined\n",
                 "error: set engine: tx: '9' is not a probed port: give a port id (0..1) or an "
                 "ethdev name of a --vdev/-a device\n",
                 "error: join: tx: 'net_tap7' is not a probed port: give a port id (0..1) or "
                 "an ethdev name of a --vdev/-a device\n"):
        t.check(want in out, f"{tag} ring console: {want!r} in {out[-1500:]!r}")
    if t.check(rep is not None, f"{tag} ring join: report"):
        names = sorted((g["group"], g["udp_port"]) for g in rep["groups"])
        t.check_eq(names, [(f"239.9.9.{i}", p) for i, p in ((1, PORT), (2, PORT), (3, PORT),
                                                            (7, 4000))],
                   f"{tag} ring join: the refused groups were not joined")
        t.check(t.conservation(rep), f"{tag} ring join: conservation")


def ring_loop(tag):
    """tx to a net_ring port, whose TX feeds its own RX (mcfan polls it): unchanged copies
    would loop without end, so refused; rewritten to a port mcfan has not joined they come
    back once as unknown_group, and those still in the ring at quit are drained and counted
    (trial9: 35,903,659 frames from 311, then 311 mbufs outside the pool)."""
    pcap = os.path.join(TMP, "ringloop.pcap")
    t.write_pcap(pcap, all_frames())
    vdevs = ["--vdev", f"net_pcap0,rx_pcap={pcap}", "--vdev", "net_ring0"]
    eal = t.eal_args("dlvring", extra=vdevs)
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", f"239.9.9.1-3:{PORT}", "--duration",
                                          "1", "--worker-engine", "tx:net_ring0",
                                          "--rx-ports", "0-1"])
    t.check_eq(rc, 2, f"{tag} tx:net_ring0: exit status")
    t.check("mcfan: --worker-engine: tx:net_ring0: port 1 is net_ring, whose TX feeds its own "
            "RX, which mcfan polls (--rx-ports names it): every copy would come back as a new "
            "frame of its group and be sent again, without end; send on another port, or "
            "rewrite dst-ip or dst-port to a group mcfan has not joined" in err,
            f"{tag} tx:net_ring0: {err[-500:]!r}")
    t.check(rep is None, f"{tag} tx:net_ring0: no report")
    t.remove_runtime_dir(eal)
    # without --rx-ports the net_ring port is output-only: never polled, so nothing comes
    # back; the copies stay in its ring (tx_sent) until it is full (tx_full)
    eal = t.eal_args("dlvringout", extra=vdevs)
    rc, out, err, rep = t.run_mcfan(eal, ["--groups", f"239.9.9.1-3:{PORT}", "--duration",
                                          "1", "--worker-engine", "tx:net_ring0"])
    t.remove_runtime_dir(eal)
    t.check_eq(rc, 0, f"{tag} tx:net_ring0 output-only: exit status ({err[-400:]!r})")
    if t.check(rep is not None, f"{tag} tx:net_ring0 output-only: report"):
        n = sent_total()
        t.check_eq([p.get("role") for p in rep["ports"]], ["rx", "output"],
                   f"{tag} tx:net_ring0 output-only: roles")
        t.check_eq(rep["delivered_frames"], n, f"{tag} tx:net_ring0 output-only: delivered")
        t.check_eq(rep["drops"]["unknown_group"], 0,
                   f"{tag} tx:net_ring0 output-only: nothing came back")
        c = [lc.get("engine_counters") or {} for lc in rep["lcores"]]
        c = {k: sum(x.get(k, 0) for x in c) for k in ("tx_sent", "tx_full")}
        t.check_eq(c["tx_sent"] + c["tx_full"], n,
                   f"{tag} tx:net_ring0 output-only: every copy sent or tx_full: {c}")
        t.check(t.conservation(rep), f"{tag} tx:net_ring0 output-only: conservation")
    # a rewrite that still lands on a joined group loops as well (trial: 33 frames became
    # 6703 of 239.9.9.2 in 1.5 s): refused at start, for either rewrite
    for i, (rw, dst) in enumerate((("dst-ip=239.9.9.2", f"239.9.9.2:{PORT}"),
                                   (f"dst-port={PORT}", f"239.9.9.1:{PORT}"))):
        eal = t.eal_args(f"dlvringrw{i}", extra=vdevs)
        rc, out, err, rep = t.run_mcfan(eal, ["--groups", f"239.9.9.1-3:{PORT}", "--duration",
                                              "1", "--worker-engine", f"tx:net_ring0,{rw}",
                                              "--rx-ports", "0-1"])
        t.remove_runtime_dir(eal)
        t.check_eq(rc, 2, f"{tag} tx:net_ring0,{rw}: exit status")
        msg = (f"mcfan: --worker-engine: tx:net_ring0,{rw}: port 1 is net_ring, whose TX feeds "
               f"its own RX, which mcfan polls: copies of group 239.9.9.1:{PORT} would go to "
               f"{dst}, which group {dst} matches, come back as new frames of it and be sent "
               f"again, without end; send on another port, or rewrite dst-ip or dst-port to a "
               f"group mcfan has not joined\n")
        t.check(msg in err, f"{tag} tx:net_ring0,{rw}: {msg!r} in {err[-600:]!r}")
        t.check(rep is None, f"{tag} tx:net_ring0,{rw}: no report")
    ring_join(tag, vdevs)
    err, rep = ring_run("dlvring2", vdevs, f"{tag} tx:net_ring0,dst-port=5000")
    if rep is None:
        return
    n = sent_total()
    d = rep["drops"]
    t.check_eq(rep["delivered_frames"], n, f"{tag} ring loop: the file's frames delivered")
    t.check_eq(d["unknown_group"] + d["quit_drained"], n,
               f"{tag} ring loop: each copy back once, unknown_group or drained at quit: {d}")
    # mcfan's own IGMP reports go out of net_ring's TX queue 0 too, and come back: control
    t.check_eq(rep["rx_frames"] - d["control"], 2 * n, f"{tag} ring loop: received twice "
               f"over, beside mcfan's own IGMP messages ({d['control']})")
    t.check(t.conservation(rep), f"{tag} ring loop: conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} ring loop: every mbuf back in its pool")
    # a flowing loop (infinite_rx): the copies sent after the RX lcore's last poll wait in
    # net_ring's ring at quit; drained and counted, not left outside the pool
    err, rep = ring_run("dlvring3", ["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1",
                                     "--vdev", "net_ring0"], f"{tag} flowing ring loop")
    if rep is None:
        return
    t.check(rep["drops"]["quit_drained"] > 0 and
            re.search(r"quit: port 1 queue 1: \d+ frames still queued, drained", err),
            f"{tag} flowing ring loop: the ring's last copies drained at quit: "
            f"{rep['drops']} {err[-400:]!r}")
    t.check(t.conservation(rep), f"{tag} flowing ring loop: conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} flowing ring loop: every mbuf back")


HUGE_PAGES = 64          # 2 MiB pages for the dumpcap run (128 MiB), given back after


def start_shared(hp, name, tag):
    """mcfan on net_tap0 (TIN) with shared memory a secondary can map: hp's pages and
    hugetlbfs, no --in-memory; asserts the mount, the start and that mcfan says the capture
    tools may attach. The run, or None when the mount or the start failed."""
    if not t.check(hp.mount(), f"{tag} hugetlbfs mounted"):
        return None
    a = Mcfan(name, [f"net_tap0,iface={TIN}"], [], in_memory=False, huge_dir=hp.path)
    if not t.check(a.wait_running(), f"{tag} mcfan starts:\n{''.join(a.lines)}"):
        a.kill()
        return None
    t.check(any("dpdk-dumpcap/dpdk-pdump may attach" in ln for ln in a.lines),
            f"{tag} mcfan says the capture tools may attach")
    return a


def test_dumpcap():
    """dpdk-dumpcap is a secondary process: it needs the primary's hugepage files and shared
    runtime directory (no --no-huge, no --in-memory); this run gets its own hugetlbfs mount."""
    tag = "[dumpcap]"
    if not nt.have_dpdk_tool("dpdk-dumpcap", tag):
        return
    hp = nt.Hugepages(os.path.join(TMP, "huge"), HUGE_PAGES)
    cap = os.path.join(TMP, "dumpcap.pcapng")
    a = dump = None
    try:
        a = start_shared(hp, "dumpcap", tag)
        if a is None:
            return
        # line-buffered: its "Capturing on" line comes when it is attached, not at exit
        dump = nt.Secondary(["dpdk-dumpcap", f"--file-prefix={a.prefix}", "-i", "0", "-c",
                             str(DUMP_N), "-w", cap])
        # attached once it says "Capturing on": rte_pdump's callbacks are in place
        t.check(dump.wait_line("Capturing on", 30),
                f"{tag} dpdk-dumpcap attached: {''.join(dump.lines)[-800:]}")
        time.sleep(0.3)
        send(TIN)
        dout = dump.wait(20)
        t.check_eq(dump.p.returncode, 0, f"{tag} dpdk-dumpcap exit:\n{dout[-1500:]}")
        rc, rep = a.stop()
        t.check_eq(rc, 0, f"{tag} mcfan exit:\n{a.out[-1500:]}")
        if rep is not None:
            t.check_eq(t.group_frames(rep), {(g, PORT): n for g, n in GROUPS.items()},
                       f"{tag} mcfan counts every frame while captured")
    finally:
        nt.kill_all(dump, a)
        hp.release()
    rows, r = tshark_fields(cap, ["ip.dst", "udp.dstport"]) if os.path.exists(cap) \
        else ([], None)
    t.check(len(rows) >= DUMP_N, f"{tag} tshark reads {len(rows)} frames, at least "
            f"{DUMP_N}: {r.stderr[-300:] if r else 'no file'}")
    t.check(all(x[0] in GROUPS and x[1] == str(PORT) for x in rows),
            f"{tag} every captured frame is one of the groups' datagrams: {rows[:3]}")
    print(f"deliver: {tag} dpdk-dumpcap captured {len(rows)} frames", flush=True)


PDUMP_MBUFS = 2048       # dpdk-pdump's own pool (total-num-mbufs): its default, 65535 mbufs
                         # (about 150 MiB), is more than the pages reserved here
PDUMP_RING = 4096        # its ring (ring-size), every frame of the run fits


def test_pdump():
    """dpdk-pdump, the other secondary: `--pdump 'port=0,queue=*,rx-dev=FILE'` writes the
    frames of port 0 into a libpcap file through a net_pcap vdev it hot-plugs. Attached
    before the frames arrive and stopped after: the file holds exactly the frames mcfan
    received of each group, and every other frame it holds is one mcfan counted as a drop."""
    tag = "[pdump]"
    if not nt.have_dpdk_tool("dpdk-pdump", tag):
        return
    hp = nt.Hugepages(os.path.join(TMP, "huge-pdump"), HUGE_PAGES)
    cap = os.path.join(TMP, "pdump-rx.pcap")
    a = dump = None
    rep = None
    try:
        a = start_shared(hp, "pdump", tag)
        if a is None:
            return
        # its main lcore busy-polls the ring: CPU 0, beside mcfan's control lcore
        dump = nt.Secondary(["dpdk-pdump", "-l", "0", "--no-pci", "--file-prefix", a.prefix,
                             "--", "--pdump",
                             f"port=0,queue=*,rx-dev={cap},ring-size={PDUMP_RING},"
                             f"total-num-mbufs={PDUMP_MBUFS}"])
        # " core (0), capture for (1) tuples" comes after rte_pdump_enable: attached
        if not t.check(dump.wait_line("capture for", 20),
                       f"{tag} dpdk-pdump attached: {''.join(dump.lines)[-800:]}"):
            return
        time.sleep(0.3)
        send(TIN)
        time.sleep(0.5)          # the last frames through its ring into the file
        dump.p.send_signal(signal.SIGINT)
        dout = dump.wait(20)
        t.check_eq(dump.p.returncode, 0,
                   f"{tag} dpdk-pdump exit after SIGINT:\n{dout[-1500:]}")
        rc, rep = a.stop()
        t.check_eq(rc, 0, f"{tag} mcfan exit:\n{a.out[-1500:]}")
    finally:
        nt.kill_all(dump, a)
        hp.release()
    t.check_eq(nt.Hugepages.reserved(), hp.nr0, f"{tag} the reserved hugepages given back")
    t.check(not os.path.ismount(hp.path), f"{tag} its hugetlbfs unmounted")
    if not t.check(rep is not None, f"{tag} report"):
        return
    dout = "".join(dump.lines)
    stats = {k: int(v) for k, v in re.findall(r"-packets (dequeued|transmitted to vdev|freed):"
                                               r"\s+(\d+)", dout)}
    frames = read_pcap(cap) if os.path.exists(cap) else []
    got = per_group_payload(frames)
    t.check_eq({g: len(v) for g, v in got.items()},
               {g: n for (g, _), n in t.group_frames(rep).items()},
               f"{tag} the file's frames per group = mcfan's report per group")
    t.check_eq({g: sorted(v) for g, v in got.items()},
               {g: list(range(n)) for g, n in GROUPS.items()},
               f"{tag} every datagram sent, once, in the file")
    others = len(frames) - sum(len(v) for v in got.values())
    t.check(others <= sum(rep["drops"].values()),
            f"{tag} the {others} other frames of the file are frames mcfan counted as drops "
            f"({rep['drops']})")
    t.check_eq(stats, {"dequeued": len(frames), "transmitted to vdev": len(frames),
                       "freed": 0}, f"{tag} dpdk-pdump's own counts = the file's frames")
    t.check(t.conservation(rep), f"{tag} conservation")
    print(f"deliver: {tag} dpdk-pdump captured {len(frames)} frames "
          f"({sum(len(v) for v in got.values())} of the groups)", flush=True)


def main():
    # runtime directories of this run's prefixes are removed at the end: testpmd makes one
    # even with --no-shconf, and the dumpcap run shares its own (no --in-memory)
    LAB.main((("memif", test_memif), ("tap", test_tap_rewrite), ("tap_csum", test_tap_csum),
              ("tap_csum6_zero", test_tap_csum6_zero),
              ("refusals", test_refusals), ("pcap_time", test_pcap_time),
              ("pcap_size", test_pcap_size), ("pcap_rejoin", test_pcap_rejoin),
              ("pcap_restart", test_pcap_restart), ("pcap_dir_gone", test_pcap_dir_gone),
              ("pcap_dir_removed", test_pcap_dir_removed),
              ("pcap_nofile", test_pcap_nofile), ("pcap_big_dir", test_pcap_big_dir),
              ("pcap_frozen_disk", test_pcap_frozen_disk),
              ("pcap_slot_reuse", test_pcap_slot_reuse),
              ("set_engine", test_set_engine),
              ("pcap_full_disk", test_pcap_full_disk),
              ("tap_group", test_tap_group), ("output_only", test_output_only),
              ("dumpcap", test_dumpcap), ("pdump", test_pdump),
              ("bad_input", test_bad_input)), ("ip", "tcpdump", "tshark"), check_clean=True)


if __name__ == "__main__":
    main()
