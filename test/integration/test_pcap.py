#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""A capture with a mix of frame kinds replayed once through net_pcap, in partition and in
replicate mode: per-group counts equal what tshark counts in the same file, drop reasons equal
the expected mix exactly, conservation is exact, no mbuf is left outside its pool and the
port's ipackets equals rx_frames. Skips (77) without tshark.
Usage: test_pcap.py MCFAN_BINARY"""

import ipaddress
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import mcfantest as t

GROUPS = "239.9.9.1-10:3999,[ff3e::1]:5000,239.7.7.7"
SRC4, SRC6 = "198.18.0.1", "2001:db8::1"
RA4 = b"\x94\x04\x00\x00"                      # IPv4 Router Alert option (RFC 2113)
LCORES_2W = ["--lcores", "0@0,1@1,2@1,3@0"]    # main 0, RX 1, workers 2 and 3 on 2 CPUs


# ---- frames (RFC 791, 768, 8200, 2236, 3376, 2710, 3810, 826; IEEE 802.1Q/802.1ad) ----------

def udp_csum(src, dst, sport, dport, data):
    """UDP header with its checksum over the IPv4 or IPv6 pseudo-header (mandatory in IPv6)."""
    a, b = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    length = 8 + len(data)
    if a.version == 4:
        pseudo = a.packed + b.packed + struct.pack("!BBH", 0, 17, length)
    else:
        pseudo = a.packed + b.packed + struct.pack("!IxxxB", length, 17)
    hdr = struct.pack("!HHHH", sport, dport, length, 0)
    c = t._csum(pseudo + hdr + data) or 0xFFFF
    return struct.pack("!HHHH", sport, dport, length, c) + data


def v4(dst, dport, data=b"x" * 18, vlans=(), src=SRC4, ihl=5, options=b"", frag=0,
       total_len=None, proto=17, payload=None, mac=None):
    if payload is None:
        payload = udp_csum(src, dst, 40000, dport, data) if proto == 17 else data
    ip = t.ipv4(src, dst, proto, payload, ihl=ihl, options=options, frag=frag,
                total_len=total_len)
    return t.eth(mac or t.mac_for_group(dst) if ipaddress.ip_address(dst).is_multicast
                 else mac or b"\x02\x00\x00\x00\x00\x02", 0x0800, ip, vlans=vlans)


def v6(dst, nh, payload, payload_len=None, src=SRC6):
    mac = t.mac_for_group(dst) if ipaddress.ip_address(dst).is_multicast \
        else b"\x02\x00\x00\x00\x00\x02"
    return t.eth(mac, 0x86DD, t.ipv6(src, dst, nh, payload, payload_len=payload_len))


def v6udp(dst, dport, data=b"y" * 20, src=SRC6):
    return v6(dst, 17, udp_csum(src, dst, 40000, dport, data), src=src)


def icmp6(src, dst, typ, body):
    a, b = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    msg = struct.pack("!BBH", typ, 0, 0) + body
    pseudo = a.packed + b.packed + struct.pack("!IxxxB", len(msg), 58)
    c = t._csum(pseudo + msg)
    return msg[:2] + struct.pack("!H", c) + msg[4:]


def hbh_router_alert(nh):
    """IPv6 Hop-by-Hop header (RFC 8200 4.3) with Router Alert MLD (RFC 2711) + PadN."""
    return struct.pack("!BB", nh, 0) + b"\x05\x02\x00\x00" + b"\x01\x00"


def mld(typ, group, dst):
    src = "fe80::1"
    if typ == 143:   # MLDv2 report: one record, change to exclude {} (join)
        body = struct.pack("!HH", 0, 1) + struct.pack("!BBH16s", 4, 0, 0,
                                                    ipaddress.IPv6Address(group).packed)
    else:            # MLDv1: max response delay, reserved, group
        body = struct.pack("!HH16s", 0, 0, ipaddress.IPv6Address(group).packed)
    return v6(dst, 0, hbh_router_alert(58) + icmp6(src, dst, typ, body), src=src)


def igmp(typ, dst, group, v3=False):
    if v3:   # IGMPv3 report, one group record (RFC 3376 4.2)
        body = struct.pack("!BBHHH", 0x22, 0, 0, 0, 1) + struct.pack(
            "!BBH4s", 4, 0, 0, ipaddress.IPv4Address(group).packed)
    else:
        body = struct.pack("!BBH4s", typ, 0, 0, ipaddress.IPv4Address(group).packed)
    body = body[:2] + struct.pack("!H", t._csum(body)) + body[4:]
    return v4(dst, 0, proto=2, payload=body, ihl=6, options=RA4)


def arp():
    body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, b"\x02\x00\x00\x00\x00\x01",
                       ipaddress.IPv4Address(SRC4).packed, b"\x00" * 6,
                       ipaddress.IPv4Address("198.18.0.2").packed)
    return t.eth(b"\xff" * 6, 0x0806, body + b"\x00" * 18)


def tcp(dst, dport):
    hdr = struct.pack("!HHIIBBHHH", 40000, dport, 1, 0, 0x50, 0x02, 8192, 0, 0)
    return v4(dst, 0, proto=6, payload=hdr)


def build_mix():
    """[(frame, expected)]: expected is ("group", (group, port or None)) or ("drop", reason)."""
    mix = []

    def add(frame, kind, what, n=1):
        for _ in range(n):
            mix.append((frame, (kind, what)))

    # delivered: 239.9.9.1-10:3999 in varying counts and sizes
    for k in range(1, 11):
        add(v4(f"239.9.9.{k}", 3999, data=bytes([k]) * (18 + 10 * k)), "group",
            (f"239.9.9.{k}", 3999), n=k + 1)
    add(v4("239.9.9.4", 3999, vlans=[(0x8100, 100)]), "group", ("239.9.9.4", 3999), n=3)
    add(v4("239.9.9.6", 3999, vlans=[(0x88A8, 10), (0x8100, 20)]), "group",
        ("239.9.9.6", 3999), n=2)
    add(v4("239.9.9.2", 3999, ihl=6, options=RA4), "group", ("239.9.9.2", 3999))
    # a short datagram padded to Ethernet's 60-byte minimum: IP total length < frame
    add(v4("239.9.9.8", 3999, data=b"ab") + b"\x00" * 14, "group", ("239.9.9.8", 3999))
    # IPv6 joined group
    add(v6udp("ff3e::1", 5000), "group", ("ff3e::1", 5000), n=7)
    add(v6("ff3e::1", 0, struct.pack("!BB", 17, 0) + b"\x01\x04\x00\x00\x00\x00" +
           udp_csum(SRC6, "ff3e::1", 40000, 5000, b"h" * 16)), "group", ("ff3e::1", 5000))
    # RFC 6946 atomic fragment: offset 0, M clear, a whole datagram
    add(v6("ff3e::1", 44, struct.pack("!BBHI", 17, 0, 0, 9) +
           udp_csum(SRC6, "ff3e::1", 40000, 5000, b"a" * 16)), "group", ("ff3e::1", 5000))
    # a group without port: several ports
    for port, n in ((1000, 2), (2000, 3), (4001, 1)):
        add(v4("239.7.7.7", port), "group", ("239.7.7.7", None), n=n)

    # not_multicast
    add(v4("198.18.0.2", 3999), "drop", "not_multicast", n=2)
    add(arp(), "drop", "not_multicast", n=2)
    add(v4("255.255.255.255", 3999, mac=b"\xff" * 6), "drop", "not_multicast")
    add(v6udp("2001:db8::2", 5000), "drop", "not_multicast")
    add(t.eth(b"\x01\x80\xc2\x00\x00\x0e", 0x88CC, b"\x02\x07\x04" + b"\x00" * 40), "drop",
        "not_multicast")
    # not_udp
    add(tcp("239.9.9.1", 3999), "drop", "not_udp", n=2)
    add(v4("224.0.0.5", 0, proto=89, payload=b"\x02\x01" + b"\x00" * 42), "drop", "not_udp")
    add(v6("ff02::1", 58, icmp6(SRC6, "ff02::1", 128, b"\x00\x01\x00\x01")), "drop",
        "not_udp")
    # control: IGMP, MLD behind hop-by-hop
    add(igmp(0x16, "239.9.9.1", "239.9.9.1"), "drop", "control", n=2)
    add(igmp(0x22, "224.0.0.22", "239.9.9.2", v3=True), "drop", "control")
    add(igmp(0x11, "224.0.0.1", "0.0.0.0"), "drop", "control")
    add(mld(143, "ff3e::1", "ff02::16"), "drop", "control", n=2)
    add(mld(131, "ff3e::1", "ff3e::1"), "drop", "control")
    # malformed, all to joined groups
    whole = v4("239.9.9.3", 3999)
    add(whole[:14 + 12], "drop", "malformed")                       # cut in the IPv4 header
    add(whole[:14 + 20 + 4], "drop", "truncated")                   # cut in the UDP header
    add(v4("239.9.9.3", 3999, ihl=4), "drop", "malformed")          # IHL < 5
    add(v4("239.9.9.3", 3999, total_len=200), "drop", "truncated")  # total length > frame
    add(v4("239.9.9.3", 3999, payload=struct.pack("!HHHH", 40000, 3999, 100, 0) + b"u" * 18),
        "drop", "malformed")                                        # UDP length > IP payload
    add(v4("239.9.9.3", 3999, payload=struct.pack("!HHHH", 40000, 3999, 4, 0) + b"u" * 18),
        "drop", "malformed")                                        # UDP length < 8
    add(whole[:14] + bytes([0x65]) + whole[15:], "drop", "malformed")   # version 6 in IPv4
    add(v6("ff3e::1", 17, udp_csum(SRC6, "ff3e::1", 40000, 5000, b"z" * 8), payload_len=300),
        "drop", "truncated")                                        # IPv6 payload > frame
    add(v6udp("ff3e::1", 5000)[:14 + 30], "drop", "malformed")      # cut in the IPv6 header
    add(v4("239.9.9.3", 3999, vlans=[(0x88A8, 1), (0x8100, 2), (0x8100, 3)]), "drop",
        "malformed")                                                # three VLAN tags
    add(whole[:10], "drop", "malformed")                            # shorter than Ethernet
    # fragments
    add(v4("239.9.9.5", 3999, frag=0x2000), "drop", "fragment")     # first, MF
    add(v4("239.9.9.5", 3999, payload=b"f" * 24, frag=0x2000 | 3), "drop", "fragment")
    add(v4("239.9.9.5", 3999, payload=b"g" * 24, frag=6), "drop", "fragment")   # last
    add(v6("ff3e::1", 44, struct.pack("!BBHI", 17, 0, 1, 7) +
           udp_csum(SRC6, "ff3e::1", 40000, 5000, b"q" * 16)), "drop", "fragment")
    add(v6("ff3e::1", 44, struct.pack("!BBHI", 17, 0, 3 << 3, 7) + b"r" * 24), "drop",
        "fragment")
    # unknown_group
    add(v4("239.8.8.8", 3999), "drop", "unknown_group", n=3)
    add(v4("239.9.9.1", 4000), "drop", "unknown_group", n=2)
    add(v4("239.9.9.11", 3999), "drop", "unknown_group")
    add(v6udp("ff3e::2", 5000), "drop", "unknown_group")
    add(v6udp("ff3e::1", 5001), "drop", "unknown_group")
    # spread the kinds over the file (a fixed permutation, so runs are repeatable)
    order = sorted(range(len(mix)), key=lambda i: (i * 7919) % 104729)
    return [mix[i] for i in order]


# ---- tshark -----------------------------------------------------------------------------------

# What mcfan counts as a delivered datagram, in tshark's terms: not a fragment (tshark 4 tests a
# bare boolean field for presence, so MF is compared with 0), nothing tshark finds malformed or
# flags with an error (IPv4 total length beyond the frame, bad UDP length, bogus IHL,
# truncation), no IPv6 payload length beyond the frame (only a warning for tshark), and at most
# two VLAN tags (tshark dissects any number; mcfan walks two: 802.1ad dissects as ieee8021ad,
# 802.1Q as vlan).
TSHARK_WHOLE = ("!_ws.malformed && !(_ws.expert.severity >= 8388608) && "
                "!ipv6.plen_exceeds_framing && "
                "!(count(vlan.id) >= 3 || (ieee8021ad && count(vlan.id) >= 2) || "
                "count(ieee8021ad.id) >= 2)")


def tshark_filter(group, port):
    if ":" in group:
        f = (f"ipv6.dst == {group} && udp && !(ipv6.fraghdr.offset > 0) && "
             f"!(ipv6.fraghdr.more == 1)")
    else:
        f = f"ip.dst == {group} && udp && ip.flags.mf == 0 && ip.frag_offset == 0"
    if port is not None:
        f += f" && udp.dstport == {port}"
    return f"{f} && {TSHARK_WHOLE}"


def tshark_frames(pcap, flt):
    """(frames, bytes on the wire) that tshark's display filter flt selects in pcap."""
    p = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", flt, "-T", "fields",
                        "-e", "frame.len"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        t.check(False, f"tshark failed on {flt!r}: {p.stderr.strip()}")
        return None, None
    lens = [int(ln) for ln in p.stdout.split()]
    return len(lens), sum(lens)


def tshark_count(pcap, flt):
    return tshark_frames(pcap, flt)[0]


# ---- runs -------------------------------------------------------------------------------------

def run_mode(pcap, mode, tshark_counts, tshark_bytes, want_drops, n_frames, run_no):
    eal = t.eal_args(f"pcap-{mode}-{run_no}", lcores="0-1")[2:] + LCORES_2W + \
        ["--vdev", f"net_pcap0,rx_pcap={pcap}"]
    what = f"{mode} #{run_no}"
    try:
        rc, out, err, rep = t.run_mcfan(eal, ["--groups", GROUPS, "--fanout", mode,
                                              "--duration", "2.5"], timeout=120)
    except subprocess.TimeoutExpired:
        t.check(False, f"[{what}] mcfan did not end within 120 s")
        t.remove_runtime_dir(eal)
        return
    t.remove_runtime_dir(eal)
    if not t.check_eq(rc, 0, f"[{what}] exit status (stderr: {err.strip()[-400:]!r})"):
        return
    if not t.check(rep is not None, f"[{what}] JSON report"):
        return
    t.check_eq(rep["rx_frames"], n_frames, f"[{what}] rx_frames: every frame of the file")
    t.check(t.conservation(rep), f"[{what}] conservation: rx {rep['rx_frames']} = delivered "
            f"{rep['delivered_frames']} + drops {rep['drops']}")
    t.check_eq(rep["drops"], want_drops, f"[{what}] drop reasons")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"[{what}] mbufs_outside_pool")
    t.check_eq(sum(p["ipackets"] for p in rep["ports"]), rep["rx_frames"],
               f"[{what}] port ipackets == rx_frames")
    t.check_eq([p["imissed"] + p["ierrors"] + p["rx_nombuf"] for p in rep["ports"]], [0],
               f"[{what}] port imissed + ierrors + rx_nombuf")
    workers = sorted(w["lcore"] for w in rep["workers"])
    t.check_eq(workers, [2, 3], f"[{what}] worker lcores")
    nw = len(workers)
    per_copy = nw if mode == "replicate" else 1
    g = {(x["group"], x["udp_port"]): x["copies"] for x in rep["groups"]}
    t.check_eq(g, {k: v * per_copy for k, v in tshark_counts.items()},
               f"[{what}] per-group copies (tshark count x {per_copy})")
    t.check_eq(t.group_frames(rep), tshark_counts, f"[{what}] per-group frames (tshark count)")
    t.check_eq({(g["group"], g["udp_port"]): g["bytes"] for g in rep["groups"]},
               {k: v * per_copy for k, v in tshark_bytes.items()},
               f"[{what}] per-group bytes (tshark's frame.len sum x {per_copy})")
    delivered = sum(tshark_counts.values())
    t.check_eq(rep["delivered_frames"], delivered, f"[{what}] delivered_frames")
    t.check_eq(rep["copies_offered"], delivered * per_copy, f"[{what}] copies_offered")
    t.check_eq(rep["delivered_copies"], delivered * per_copy, f"[{what}] delivered_copies")
    t.check_eq(sum(w["ring_drops"] for w in rep["workers"]), 0, f"[{what}] ring drops")
    t.check_eq(sum(w["frames"] for w in rep["workers"]), rep["delivered_copies"],
               f"[{what}] workers' frames == delivered_copies")
    for grp in rep["groups"]:
        if mode == "replicate":
            t.check_eq(sorted(grp["workers"]), workers, f"[{what}] {grp['group']} on every worker")
        else:
            t.check_eq(len(grp["workers"]), 1 if grp["frames"] else 0,
                       f"[{what}] {grp['group']}:{grp['udp_port']} on one worker")
    if mode == "replicate":
        for w in rep["workers"]:
            t.check_eq(w["frames"], delivered, f"[{what}] worker {w['lcore']} sees every frame")
    else:
        # partition is a stable hash: a group stays on its worker; sums per worker add up
        per_worker = {}
        for grp in rep["groups"]:
            for wl in grp["workers"]:
                per_worker[wl] = per_worker.get(wl, 0) + grp["frames"]
        t.check_eq({w["lcore"]: w["frames"] for w in rep["workers"] if w["frames"]}, per_worker,
                   f"[{what}] each worker's frames == its groups' frames")
    return rep


def main():
    if shutil.which("tshark") is None:
        print("test_pcap: tshark not found, skipping")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="mcfan-pcap-")
    pcap = os.path.join(tmp, "mix.pcap")
    mix = build_mix()
    t.write_pcap(pcap, [f for f, _ in mix])

    want_groups = {}
    want_drops = {r: 0 for r in ("not_multicast", "not_udp", "malformed", "fragment",
                                 "unknown_group", "ring_full", "control", "truncated")}
    for _, (kind, what) in mix:
        if kind == "group":
            want_groups[what] = want_groups.get(what, 0) + 1
        else:
            want_drops[what] += 1
    for r in want_drops:
        if r != "ring_full":
            t.check(want_drops[r] > 0, f"the mix has frames for drop reason {r}")
    want_drops["ctl_ring_full"] = 0   # the control ring never fills with this small mix
    want_drops["quit_drained"] = 0    # a pcap file is read to its end before the quit

    # tshark's count per group, from the same file
    tshark_counts, tshark_bytes = {}, {}
    for (grp, port) in sorted(want_groups, key=str):
        tshark_counts[(grp, port)], tshark_bytes[(grp, port)] = \
            tshark_frames(pcap, tshark_filter(grp, port))
    # the test's own expectation agrees with tshark (else the mix or the filters are wrong)
    t.check_eq(tshark_counts, want_groups, "tshark per-group counts == the mix's delivered frames")
    # the frames that are not delivered are not counted by the filters either
    t.check_eq(tshark_count(pcap, "frame"), len(mix), "tshark sees every frame of the file")
    for (grp, port), n in want_groups.items():
        t.check(n > 0, f"group {grp}:{port} has frames")

    for run_no in (1, 2):
        for mode in ("partition", "replicate"):
            run_mode(pcap, mode, tshark_counts, tshark_bytes, want_drops, len(mix), run_no)
    shutil.rmtree(tmp, ignore_errors=True)
    t.finish("pcap")


if __name__ == "__main__":
    main()
