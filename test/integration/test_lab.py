#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Lab test: mcfan on real multicast, in a two-namespace veth lab (test/lab/lab.sh).

iperf2 sends a known number of datagrams to each of 10 groups (239.9.9.1-10:3999); tcpdump
captures the receiver's veth; mcfan (net_af_packet on that veth) counts.

1. iperf2's own report against the wire: per group, iperf2 writes exactly COUNT datagrams
   (sequence numbers 1..COUNT, its -e "Write" column), then one end-of-test datagram with
   the negative sequence number -(COUNT + 1), also to the group. The wire therefore carries
   COUNT + 1 datagrams per group; iperf2 2.1's "Sent N datagrams" line says COUNT + 2 (it
   reports the final packet id + 1, one more than it wrote; strace shows COUNT + 1 writes).
2. mcfan against the wire, partition mode then replicate mode, 2 workers each: per-group
   frames and bytes equal the capture's (times 2 in replicate: every worker counts every
   frame), every drop reason equals what the capture says the wire carried (IPv6 is off in
   the lab, so normally nothing but the datagrams), conservation, no mbuf outside its pool.
3. The af_packet VLAN pitfall: raw frames with 802.1Q, 802.1ad, QinQ and 0x9100 tags (the
   kernel has no 8021q module on every host, so they are written with an AF_PACKET socket in
   the sender namespace, not through a VLAN sub-interface): mcfan counts each to its group;
   three tags are malformed. The kernel strips the outer 802.1Q/802.1ad tag into metadata;
   the report's bytes show whether af_packet put it back into the frame.

Usage: test_lab.py MCFAN_BINARY. Exit 77 (skip) when not root or without `ip netns`.
"""

import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time


NGROUPS = 10
COUNT = 200          # datagrams per group
LEN = 100            # UDP payload bytes
PPS = 250            # per group; 10 groups -> 2500 frames/s in all
PORT = 3999
GROUPS = [f"239.9.9.{i}" for i in range(1, NGROUPS + 1)]
VLAN_COUNT = 50      # raw tagged frames per kind
VLAN_PPS = 200

ETH_P_8021Q, ETH_P_8021AD, ETH_P_QINQ_OLD = 0x8100, 0x88A8, 0x9100
TPIDS = (ETH_P_8021Q, ETH_P_8021AD, ETH_P_QINQ_OLD)
MAX_TAGS = 2

# The tagged frames of the VLAN part: (group, [(tpid, vid), ...] outermost first, label).
VLAN_KINDS = [
    ("239.9.9.1", [(ETH_P_8021Q, 100)], "802.1Q"),
    ("239.9.9.2", [(ETH_P_8021AD, 200)], "802.1ad"),
    ("239.9.9.3", [(ETH_P_8021AD, 300), (ETH_P_8021Q, 301)], "QinQ 802.1ad+802.1Q"),
    ("239.9.9.4", [(ETH_P_8021Q, 400), (ETH_P_8021Q, 401)], "double 802.1Q"),
    ("239.9.9.5", [(ETH_P_QINQ_OLD, 500), (ETH_P_8021Q, 501)], "0x9100+802.1Q"),
    ("239.9.9.6", [], "untagged"),
    ("239.9.9.7", [(ETH_P_8021AD, 700), (ETH_P_8021Q, 701), (ETH_P_8021Q, 702)],
     "three tags"),
]


# ---------------------------------------------------------------- raw sender (own process)

from mcfantest import csum as _csum  # noqa: E402


def vlan_frame(group, tags, seq):
    data = struct.pack("!i", seq) + b"v" * (LEN - 4)
    u = struct.pack("!HHHH", 40000, PORT, 8 + len(data), 0) + data
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(u), seq & 0xFFFF, 0, 1, 17, 0,
                     socket.inet_aton("198.18.0.1"), socket.inet_aton(group))
    ip = ip[:10] + struct.pack("!H", _csum(ip)) + ip[12:]
    o = [int(x) for x in group.split(".")]
    hdr = bytes([0x01, 0x00, 0x5E, o[1] & 0x7F, o[2], o[3]]) + b"\x02\x00\xc6\x12\x00\x01"
    for tpid, vid in tags:
        hdr += struct.pack("!HH", tpid, vid)
    return hdr + struct.pack("!H", 0x0800) + ip + u


def raw_send_main(iface, count, pps):
    """Runs inside the sender namespace: VLAN_KINDS x count frames, paced (pps rounds of
    one frame of each kind a second), then exits."""
    from netnstest import send_paced
    return send_paced(iface, [vlan_frame(group, tags, seq) for seq in range(1, count + 1)
                              for group, tags, _ in VLAN_KINDS], pps, burst=len(VLAN_KINDS))


if len(sys.argv) == 5 and sys.argv[1] == "--raw-send":
    sys.exit(raw_send_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))


# ---------------------------------------------------------------- the test proper

from mcfantest import (check, check_eq, conservation, finish, group_frames,  # noqa: E402
                       eal_lcores, load_report, mcfan_path)
from labtest import Lab, NsRun, data_cpu, preflight, skipper  # noqa: E402

skip = skipper("lab")


class McfanRun(NsRun):
    """mcfan inside the receiver namespace, its output read by a thread; rx: the frames
    received as of the last periodic summary."""

    def __init__(self, lab, name, app_args):
        self.report = os.path.join(lab.dir, f"report-{name}.json")
        cpu = data_cpu()
        # 2 CPUs: lcore 0 (control, mostly asleep) on CPU 0; lcore 1 (RX and worker) and
        # lcore 2 (worker) share CPU 1, which keeps CPU 0 for the senders and the capture.
        eal = eal_lcores(f"0@0,1@{cpu},2@{cpu}", f"mcfan-lab-{name}-{lab.id}",
                         [lab.af_packet()])
        app = ["--rx-lcores", "1", "--worker-lcores", "1-2", "--stats-period", "0.5",
               "--report-json", self.report, *app_args]
        self.rx = -1
        super().__init__(["ip", "netns", "exec", lab.rcv, mcfan_path(), *eal, "--", *app])

    def on_line(self, line):
        m = re.match(r"frames: rx (\d+)", line)
        if m:
            self.rx = int(m.group(1))

    def wait_rx(self, want, timeout=20):
        """Until the periodic summary shows at least `want` frames received."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.p.poll() is None:
            if self.rx >= want:
                return True
            time.sleep(0.1)
        return False

    def stop(self, timeout=30):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        return self.end(timeout), load_report(self.report)


# ---- the capture, read here (classic pcap as tcpdump -w writes it) ----

def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file")
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    if linktype != 1:
        raise ValueError(f"{path}: link type {linktype}, expected Ethernet")
    frames, off = [], 24
    while off + 16 <= len(data):
        incl, orig = struct.unpack(endian + "II", data[off + 8:off + 16])
        frames.append((data[off + 16:off + 16 + incl], orig))
        off += 16 + incl
    return frames


def wire_classify(frame, groups):
    """What the wire frame is, for mcfan: ('group', (group, port), iperf_seq) or
    ('drop', reason). Tags of any of the three TPIDs count, at most MAX_TAGS of them."""
    if len(frame) < 14:
        return ("drop", "malformed")
    off, tags = 14, 0
    et = struct.unpack("!H", frame[12:14])[0]
    while et in TPIDS:
        tags += 1
        if tags > MAX_TAGS or off + 4 > len(frame):
            return ("drop", "malformed")
        et = struct.unpack("!H", frame[off + 2:off + 4])[0]
        off += 4
    if et == 0x0800:
        ip = frame[off:]
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[0] & 15 < 5:
            return ("drop", "malformed")
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack("!H", ip[2:4])[0]
        if tot < ihl:
            return ("drop", "malformed")
        if tot > len(ip):
            return ("drop", "truncated")
        if ip[16] & 0xF0 != 0xE0:
            return ("drop", "not_multicast")
        if ip[9] == 2:
            return ("drop", "control")
        if struct.unpack("!H", ip[6:8])[0] & 0x3FFF:
            return ("drop", "fragment")
        if ip[9] != 17:
            return ("drop", "not_udp")
        udp = ip[ihl:tot]
        if len(udp) < 8:
            return ("drop", "malformed")
        dst = socket.inet_ntoa(ip[16:20])
        dport = struct.unpack("!H", udp[2:4])[0]
        if (dst, dport) not in groups and (dst, None) not in groups:
            return ("drop", "unknown_group")
        seq = struct.unpack("!i", udp[8:12])[0] if len(udp) >= 12 else None
        return ("group", (dst, dport), seq)
    if et == 0x86DD:
        ip = frame[off:]
        if len(ip) < 40:
            return ("drop", "malformed")
        if 40 + struct.unpack("!H", ip[4:6])[0] > len(ip):
            return ("drop", "truncated")
        if ip[24] != 0xFF:
            return ("drop", "not_multicast")
        nh, p = ip[6], 40
        while nh in (0, 43, 60) and p + 2 <= len(ip):   # hop-by-hop, routing, dest options
            nh, p = ip[p], p + (ip[p + 1] + 1) * 8
        if nh == 58 and p < len(ip) and ip[p] in (130, 131, 132, 143):
            return ("drop", "control")   # MLD
        if nh != 17:
            return ("drop", "not_udp")
        return ("drop", "unknown_group")  # the lab joins no IPv6 group
    return ("drop", "not_multicast")


def wire_summary(frames, groups):
    """Per group: frames, bytes, iperf sequence numbers; drops: reason -> frames."""
    per, drops = {}, {}
    for fr, orig in frames:
        c = wire_classify(fr, groups)
        if c[0] == "group":
            g = per.setdefault(c[1], {"frames": 0, "bytes": 0, "seqs": []})
            g["frames"] += 1
            g["bytes"] += orig
            g["seqs"].append(c[2])
        else:
            drops[c[1]] = drops.get(c[1], 0) + 1
    return per, drops


def tshark_counts(lab, pcap):
    """Frames per (group, port) as tshark dissects the capture (lab_wire_counts)."""
    p = lab.sh(f'lab_wire_counts "{pcap}"', timeout=120, quiet=True)
    out, other = {}, None
    for line in p.stdout.splitlines():
        f = line.split()
        if f[0] == "other":
            other = int(f[1])
        else:
            out[(f[0], int(f[1]))] = int(f[2])
    return out, other


def iperf_reports(lab):
    out = {}
    for g in GROUPS:
        w, e, s = lab.sh(f'lab_iperf_report "{g}"', quiet=True).stdout.split()
        out[g] = (int(w), int(e), int(s))
    return out


# ---- one mcfan run against real senders ----

def run_mode(lab, mode, n_workers=2):
    tag = f"[{mode}]"
    pcap = os.path.join(lab.dir, f"capture-{mode}.pcap")
    groups = {(g, PORT) for g in GROUPS}
    if not check(lab.sh(f'lab_capture_start "{pcap}"').returncode == 0,
                 f"{tag} tcpdump starts on the receiver's veth"):
        return
    run = McfanRun(lab, mode, ["--groups", f"239.9.9.1-{NGROUPS}:{PORT}", "--fanout", mode])
    try:
        if not check(run.wait_running(), f"{tag} mcfan starts:\n{run.output()}"):
            return
        t0 = time.monotonic()
        send = lab.sh(f"lab_send {NGROUPS} {COUNT} {LEN} {PPS}", timeout=120)
        print(f"lab: {tag} {NGROUPS} iperf2 clients x {COUNT} datagrams sent in "
              f"{time.monotonic() - t0:.1f} s", flush=True)
        check_eq(send.returncode, 0, f"{tag} every iperf2 client ends well")
        run.wait_rx(NGROUPS * (COUNT + 1))
        time.sleep(0.5)   # anything beyond the expected frames would show up now
        rc, rep = run.stop()
    finally:
        run.kill()
    cap = lab.sh("lab_capture_stop")
    check_eq(cap.returncode, 0, f"{tag} the capture lost no frame in the kernel")

    # -- 1. iperf2's report against the wire --
    frames = read_pcap(pcap)
    per, wdrops = wire_summary(frames, groups)
    tsh, tsh_other = tshark_counts(lab, pcap)
    rep_iperf = iperf_reports(lab)
    for g in GROUPS:
        writes, errs, sent = rep_iperf[g]
        w = per.get((g, PORT), {"frames": 0, "bytes": 0, "seqs": []})
        data = sorted(s for s in w["seqs"] if s is not None and s > 0)
        fins = [s for s in w["seqs"] if s is None or s <= 0]
        check_eq(writes, COUNT, f"{tag} {g}: iperf2 reports {COUNT} writes (-n/-l)")
        check_eq(errs, 0, f"{tag} {g}: iperf2 write errors")
        check_eq(data, list(range(1, COUNT + 1)),
                 f"{tag} {g}: the wire carries iperf2's datagrams 1..{COUNT}, each once")
        check_eq(fins, [-(COUNT + 1)],
                 f"{tag} {g}: the wire carries one end-of-test datagram, sequence -(COUNT+1)")
        check_eq(sent, COUNT + 2, f"{tag} {g}: iperf2's 'Sent N datagrams' (COUNT + 2: "
                 f"it says one more than the {COUNT + 1} it wrote)")
        check_eq(w["frames"], COUNT + 1, f"{tag} {g}: frames on the wire")
        check_eq(tsh.get((g, PORT)), w["frames"], f"{tag} {g}: tshark's count of the capture")
    check_eq(tsh_other, sum(wdrops.values()), f"{tag} tshark: other frames in the capture")
    print(f"lab: {tag} wire: {len(frames)} frames; per group {COUNT} iperf2 datagrams + 1 "
          f"end-of-test; other frames {wdrops or 'none'}; iperf2 says "
          f"'Sent {rep_iperf[GROUPS[0]][2]} datagrams', Write/Err "
          f"{rep_iperf[GROUPS[0]][0]}/{rep_iperf[GROUPS[0]][1]}", flush=True)

    # -- 2. mcfan against the wire --
    if not check(rep is not None, f"{tag} mcfan wrote its JSON report (exit {rc}):\n"
                 f"{run.output()[-3000:]}"):
        return
    check_eq(rc, 0, f"{tag} mcfan exit status")
    wire_total = len(frames)
    wire_group_total = sum(v["frames"] for v in per.values())
    copies = n_workers if mode == "replicate" else 1
    gf = group_frames(rep)
    gc = {(g["group"], g["udp_port"]): g["copies"] for g in rep["groups"]}
    gb = {(g["group"], g["udp_port"]): g["bytes"] for g in rep["groups"]}
    gw = {(g["group"], g["udp_port"]): g["workers"] for g in rep["groups"]}
    for g in GROUPS:
        w = per.get((g, PORT), {"frames": 0, "bytes": 0})
        check_eq(gc.get((g, PORT)), copies * w["frames"],
                 f"{tag} {g}: mcfan's copies = {copies} x the wire's")
        check_eq(gf.get((g, PORT)), w["frames"], f"{tag} {g}: mcfan's frames = the wire's")
        check_eq(gb.get((g, PORT)), copies * w["bytes"],
                 f"{tag} {g}: mcfan's bytes = {copies} x the wire's")
        if mode == "partition":
            check_eq(len(gw.get((g, PORT), [])), 1, f"{tag} {g}: exactly one worker")
        else:
            check_eq(len(gw.get((g, PORT), [])), n_workers, f"{tag} {g}: every worker")
    for reason, n in rep["drops"].items():
        check_eq(n, wdrops.get(reason, 0), f"{tag} drops[{reason}] = the wire's")
    check_eq(rep["rx_frames"], wire_total, f"{tag} rx_frames = frames on the wire")
    check_eq(rep["delivered_frames"], wire_group_total, f"{tag} delivered_frames")
    check(conservation(rep), f"{tag} conservation: rx {rep['rx_frames']} = delivered "
          f"{rep['delivered_frames']} + drops {sum(rep['drops'].values())}")
    check_eq(rep["mbufs_outside_pool"], 0, f"{tag} mbufs outside their pool")
    check_eq(len(rep["workers"]), n_workers, f"{tag} workers")
    for w in rep["workers"]:
        check_eq(w["ring_drops"], 0, f"{tag} worker {w['lcore']}: ring drops")
    port = rep["ports"][0] if rep["ports"] else {}
    check_eq(port.get("ipackets"), wire_total, f"{tag} port ipackets = frames on the wire")
    check_eq(port.get("imissed"), 0, f"{tag} port imissed")
    wf = {w["lcore"]: w["frames"] for w in rep["workers"]}
    if mode == "partition":
        check_eq(sum(wf.values()), rep["delivered_frames"],
                 f"{tag} the workers' frames add up to delivered_frames")
        for lc, n in wf.items():
            mine = sum(per.get((g["group"], g["udp_port"]), {"frames": 0})["frames"]
                       for g in rep["groups"] if g["workers"] == [lc])
            check_eq(n, mine, f"{tag} worker {lc}: frames = the wire's for its groups")
        check_eq(rep["delivered_copies"], rep["delivered_frames"],
                 f"{tag} delivered_copies = delivered_frames")
    else:
        for lc, n in wf.items():
            check_eq(n, rep["delivered_frames"], f"{tag} worker {lc} counts every frame")
        check_eq(rep["delivered_copies"], n_workers * rep["delivered_frames"],
                 f"{tag} delivered_copies = {n_workers} x delivered_frames")
    print(f"lab: {tag} mcfan: rx {rep['rx_frames']}, delivered {rep['delivered_frames']}, "
          f"copies {rep['delivered_copies']}, drops "
          f"{ {k: v for k, v in rep['drops'].items() if v} or 0}, workers {wf}", flush=True)


# ---- the af_packet VLAN pitfall ----

def run_vlan(lab):
    tag = "[vlan]"
    pcap = os.path.join(lab.dir, "capture-vlan.pcap")
    groups = {(g, PORT) for g in GROUPS}
    if not check(lab.sh(f'lab_capture_start "{pcap}"').returncode == 0,
                 f"{tag} tcpdump starts"):
        return
    run = McfanRun(lab, "vlan", ["--groups", f"239.9.9.1-{NGROUPS}:{PORT}"])
    try:
        if not check(run.wait_running(), f"{tag} mcfan starts:\n{run.output()}"):
            return
        send = subprocess.run(["ip", "netns", "exec", lab.snd, "timeout", "60",
                               sys.executable, os.path.abspath(__file__), "--raw-send",
                               lab.vsnd, str(VLAN_COUNT), str(VLAN_PPS)],
                              capture_output=True, text=True, timeout=90)
        check_eq(send.returncode, 0, f"{tag} the raw sender ends well: {send.stderr}")
        run.wait_rx(VLAN_COUNT * len(VLAN_KINDS))
        time.sleep(0.5)
        rc, rep = run.stop()
    finally:
        run.kill()
    check_eq(lab.sh("lab_capture_stop").returncode, 0, f"{tag} the capture lost no frame")
    frames = read_pcap(pcap)
    per, wdrops = wire_summary(frames, groups)
    if not check(rep is not None, f"{tag} mcfan wrote its report (exit {rc}):\n"
                 f"{run.output()[-3000:]}"):
        return
    check_eq(rc, 0, f"{tag} mcfan exit status")
    gf, gb = group_frames(rep), {(g["group"], g["udp_port"]): g["bytes"] for g in rep["groups"]}
    seen = []
    for group, tags, label in VLAN_KINDS:
        key = (group, PORT)
        w = per.get(key, {"frames": 0, "bytes": 0})
        if len(tags) > MAX_TAGS:
            check_eq(w["frames"], 0, f"{tag} {label}: not a group frame for the classifier")
            continue
        check_eq(w["frames"], VLAN_COUNT, f"{tag} {label}: frames on the wire")
        check_eq(gf.get(key), w["frames"], f"{tag} {label} ({group}): mcfan's frames = "
                 "the wire's")
        # The capture shows the frame as it was on the wire (libpcap puts the tag the kernel
        # stripped back, with its TPID). af_packet either re-inserts that tag too (same
        # bytes) or leaves it in the mbuf's vlan_tci (4 bytes fewer per frame).
        diff = None if gf.get(key) in (None, 0) else (w["bytes"] - gb.get(key, 0)) / gf[key]
        stripped = tags and tags[0][0] in (ETH_P_8021Q, ETH_P_8021AD)
        ok = diff == 0 or (stripped and diff == 4)
        check(ok, f"{tag} {label}: mcfan's bytes {gb.get(key)} vs the wire's {w['bytes']}")
        seen.append(f"{label}: " + ("as sent" if not tags else
                                    "tag in the frame" if diff == 0 else "tag stripped"))
    n_bad = sum(VLAN_COUNT for _, t, _ in VLAN_KINDS if len(t) > MAX_TAGS)
    check_eq(wdrops.get("malformed", 0), n_bad, f"{tag} three-tag frames on the wire")
    for reason, n in rep["drops"].items():
        check_eq(n, wdrops.get(reason, 0), f"{tag} drops[{reason}] = the wire's")
    check_eq(rep["rx_frames"], len(frames), f"{tag} rx_frames = frames on the wire")
    check(conservation(rep), f"{tag} conservation")
    check_eq(rep["mbufs_outside_pool"], 0, f"{tag} mbufs outside their pool")
    print(f"lab: {tag} af_packet delivered: {'; '.join(seen)}; drops "
          f"{ {k: v for k, v in rep['drops'].items() if v} }", flush=True)


def run_lab_env_refused():
    """test/lab/run-lab.sh refuses a LAB_PPS or LAB_LEN it cannot run (a rate of 0, text, a
    payload below iperf2's header or above one packet on a 9000-byte MTU, one longer than a
    reader ring slot with readers) with one line naming the variable and what is allowed,
    exit status 2, before anything (no package step, no lab)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lab", "run-lab.sh")
    cases = [
        ({"LAB_PPS": "0"}, "LAB_PPS '0' is not a rate of datagrams a second a group, 1..100000"),
        ({"LAB_PPS": "1k"}, "LAB_PPS '1k' is not a rate"),
        ({"LAB_PPS": "100001"}, "LAB_PPS '100001' is not a rate"),
        ({"LAB_LEN": "15"}, "LAB_LEN '15' is not a UDP payload of 16..8972 bytes"),
        ({"LAB_LEN": "8973"}, "LAB_LEN '8973' is not a UDP payload of 16..8972 bytes"),
        ({"LAB_LEN": "-1"}, "LAB_LEN '-1' is not a UDP payload"),
        ({"LAB_LEN": "2000"}, "LAB_LEN 2000 gives frames of 2042 bytes, more than a reader "
         "ring slot holds (2016 bytes: LAB_LEN 1974 at most)"),
    ]
    for env, want in cases:
        r = subprocess.run([script, "1"], capture_output=True, text=True, timeout=30,
                           env={**os.environ, **env}, stdin=subprocess.DEVNULL)
        lines = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.strip()]
        check_eq(r.returncode, 2, f"run-lab.sh with {env}: exit status ({lines})")
        check(len(lines) == 1 and want in lines[0], f"run-lab.sh with {env}: one line, "
              f"{want!r} ({lines})")


def main():
    preflight(skip, "needs root (network namespaces)")
    run_lab_env_refused()
    lab = Lab()

    def on_signal(sig, frame):
        raise KeyboardInterrupt(f"signal {sig}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    t0 = time.monotonic()
    try:
        if not check(lab.up(), "lab_up"):
            finish("lab")
        run_mode(lab, "partition")
        run_mode(lab, "replicate")
        run_vlan(lab)
    except KeyboardInterrupt as e:
        check(False, f"interrupted ({e})")
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        lab.down()
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        check(lab.snd not in left and lab.rcv not in left, "lab_down removes the namespaces")
    print(f"lab: {time.monotonic() - t0:.1f} s", flush=True)
    finish("lab")


if __name__ == "__main__":
    main()
