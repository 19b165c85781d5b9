#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Feed quality live on the lab veth (docs/feed.md), against the capture on mcfan's veth.

1. A group joined later from the real console (-i, on mcfan's standard input) while its
   iperf2 sender is already running: the --seq rule's extractor comes with the join, so it
   counts from the group's first frame: the feed's datagrams equal the group's delivered
   frames exactly, expected = received + lost, and expected, lost and duplicates equal the
   capture's over the frames mcfan delivered (the tail of the group's frames on the wire).
2. A/B arbitration live: a user-space relay in the source namespace (this file, run with
   --ab-send) sends one iperf2-format sequence as two lines, 239.9.9.11 (A) and 239.9.9.12
   (B), each with its own holes, and writes what it sent; the pair is declared with
   --seq-pair. From the capture: delivered = the union, gaps = the intersection, each line's
   first arrivals (which line's copy came first, per number) and its lost, exactly; and the
   relay's record agrees with the capture.

Usage: test_feed_lab.py MCFAN_BINARY. Skipped (77) without root or `ip netns`.
"""

import json
import os
import socket
import struct
import subprocess
import sys
import time

import mcfantest as t

PORT = 3999

# ---------------------------------------------------------------- the A/B relay

AB_COUNT = 1500
AB_PPS = 1000
AB_GROUPS = ("239.9.9.11", "239.9.9.12")
AB_HOLES = ({*range(100, 120), 500, *range(900, 910), 1300},
            {*range(110, 130), 500, 700, *range(1200, 1205)})


iperf2_payload = t.iperf2_payload


def ab_send_main(record):
    """Each number goes out on line A, then on line B, but for each line's holes; then
    iperf2's end of test on both. What went out is written to record (JSON)."""
    s = t.mcast_sender()
    sent = [[], []]
    pace = t.Pacer(AB_PPS)
    for seq in range(1, AB_COUNT + 1):
        for line, g in enumerate(AB_GROUPS):
            if seq not in AB_HOLES[line]:
                s.sendto(iperf2_payload(seq), (g, PORT))
                sent[line].append(seq)
        pace.wait()
    for g in AB_GROUPS:
        s.sendto(iperf2_payload(-(AB_COUNT + 1)), (g, PORT))
    s.close()
    with open(record, "w") as f:
        json.dump({"sent": sent}, f)
    return 0


if len(sys.argv) == 3 and sys.argv[1] == "--ab-send":
    sys.exit(ab_send_main(sys.argv[2]))

import labtest  # noqa: E402
import test_lab as L  # noqa: E402

JOIN_GROUP = "239.9.9.1"
JOIN_PPS = int(os.environ.get("FEED_LAB_PPS", "4000"))
JOIN_COUNT = 3 * JOIN_PPS  # 3 s of the already-running sender; the join comes about 1 s in
JOIN_LINES_AFTER = 63    # console lines pasted with the join


class ConsoleRun(labtest.NsRun):
    """mcfan in the receiving namespace with its console (-i) on a pipe; output read by a
    thread. One data lcore: RX and the only worker (so an A/B pair shares its worker)."""

    def __init__(self, lab, name, app_args):
        self.report = os.path.join(lab.dir, f"report-{name}.json")
        eal = t.eal_lcores(f"0@0,1@{labtest.data_cpu()}", f"mcfan-lab-{name}-{lab.id}",
                           [lab.af_packet()])
        app = ["-i", "--report-json", self.report, *app_args]
        super().__init__(["ip", "netns", "exec", lab.rcv, t.mcfan_path(), *eal, "--", *app],
                         console=True)

    def quit(self, timeout=30):
        """quit on the console: the run stops with its report."""
        try:
            self.say("quit")
            self.p.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        return self.end(timeout), t.load_report(self.report)


def wire(frames):
    """[(group, seq)] of the iperf2-format datagrams on the wire, in arrival order."""
    out = []
    for fr, _ in frames:
        if len(fr) < 14 + 20 + 8 + 16 or fr[12:14] != b"\x08\x00":
            continue
        ip = fr[14:]
        if ip[9] != 17:
            continue
        udp = ip[(ip[0] & 15) * 4:]
        if struct.unpack("!H", udp[2:4])[0] != PORT:
            continue
        lo, hi = struct.unpack("!II", udp[8:12] + udp[20:24])
        out.append((socket.inet_ntoa(ip[16:20]),
                    struct.unpack("!q", struct.pack("!II", hi, lo))[0]))
    return out


def truth(seqs):
    """From a line's sequence numbers in arrival order: what the feed counters must say."""
    data = [s for s in seqs if s >= 0]
    ends = len(seqs) - len(data)
    if not data:
        return None
    seen, top, dups, reord = set(), 0, 0, 0
    for s in data:
        if s in seen:
            dups += 1
        elif s < top:
            reord += 1
        seen.add(s)
        top = max(top, s)
    fin = [-s for s in seqs if s < 0]
    last = fin[0] - 1 if fin else top
    exp = last - data[0] + 1
    return {"expected": exp, "received": len(seen), "lost": exp - len(seen),
            "duplicates": dups, "reordered": reord, "ends": ends, "datagrams": len(seqs)}


def group_of(rep, g):
    for x in rep["groups"]:
        if x["group"] == g and x.get("udp_port") == PORT:
            return x
    return None


def check_join(rep, out, on_wire):
    """The group joined from the console: its extractor from its first frame."""
    t.check("joined 239.9.9.1:3999" in out, "console: the join is answered")
    g = group_of(rep, JOIN_GROUP)
    f = g.get("feed") if g is not None else None
    if not t.check(f is not None, f"join: the joined group has a feed object ({g})"):
        return
    frames = g["frames"]
    line = [s for grp, s in on_wire if grp == JOIN_GROUP]
    print(f"feed_lab: join: wire {len(line)} datagrams, mcfan's group {frames} frames, feed "
          f"{f['datagrams']} datagrams (expected {f['expected']}, received {f['received']}, "
          f"lost {f['lost']}, ends {f['ends']})", flush=True)
    t.check(0 < frames < len(line) - JOIN_PPS // 4,
            f"join: the group was joined while its sender ran ({frames} of {len(line)})")
    t.check_eq(f["datagrams"], frames,
               "join: the extractor saw every frame delivered to the group, from the first")
    t.check_eq(f["expected"], f["received"] + f["lost"], "join: expected = received + lost")
    t.check_eq((f["pending"], f["late"], f["malformed"]), (0, 0, 0),
               "join: nothing pending, late or malformed")
    want = truth(line[len(line) - frames:])
    if t.check(want is not None, "join: the capture has the delivered frames"):
        for k in ("datagrams", "expected", "received", "lost", "duplicates", "reordered",
                  "ends"):
            t.check_eq(f[k], want[k], f"join: feed {k} = the capture's over the delivered frames")


def check_ab(rep, on_wire, record):
    """The pair of lines through the relay: union, intersection, per-line shares."""
    sent = record["sent"]
    lines = [[s for grp, s in on_wire if grp == g] for g in AB_GROUPS]
    for k in range(2):
        data = [s for s in lines[k] if s > 0]
        t.check_eq(data, sent[k], f"ab: line {'AB'[k]} on the wire = the relay's record")
    have = [set(s for s in lines[k] if s > 0) for k in range(2)]
    union = have[0] | have[1]
    first = [0, 0]
    done = set()
    for grp, s in on_wire:
        if grp in AB_GROUPS and s > 0 and s not in done:
            done.add(s)
            first[AB_GROUPS.index(grp)] += 1
    pairs = rep.get("feed_pairs") or []
    if not t.check(len(pairs) == 1, f"ab: one pair in the report ({pairs})"):
        return
    m, ln = pairs[0]["merged"], pairs[0]["lines"]
    print(f"feed_lab: ab: merged {m['expected']} expected, {m['received']} received, "
          f"{m['lost']} lost; first arrivals A {ln[0]['first_arrivals']} B "
          f"{ln[1]['first_arrivals']} (capture {first}); skew B-A p50 "
          f"{ln[1]['skew_p50_ns']} ns", flush=True)
    t.check_eq(m["expected"], AB_COUNT, "ab: merged expected")
    t.check_eq(m["received"], len(union), "ab: delivered = the union of the lines")
    t.check_eq(m["lost"], AB_COUNT - len(union), "ab: gaps = the intersection")
    t.check_eq(m["lost"], len(AB_HOLES[0] & AB_HOLES[1]), "ab: ... = the relay's common holes")
    t.check_eq(m["pending"], 0, "ab: nothing pending at the end")
    for k in range(2):
        t.check_eq(ln[k]["group"], f"{AB_GROUPS[k]}:{PORT}", f"ab: line {'AB'[k]} is its group")
        t.check_eq(ln[k]["first_arrivals"], first[k],
                   f"ab: line {'AB'[k]} first arrivals = the capture's")
        t.check_eq(ln[k]["lost"], AB_COUNT - len(have[k]), f"ab: line {'AB'[k]} lost")
        f = group_of(rep, AB_GROUPS[k])
        f = f.get("feed") if f is not None else None
        t.check(f is not None and f["lost"] == len(AB_HOLES[k]) and
                f["received"] == len(have[k]),
                f"ab: {AB_GROUPS[k]}'s own feed: lost its holes, received its numbers ({f})")
    t.check_eq(ln[0]["first_arrivals"] + ln[1]["first_arrivals"], m["received"],
               "ab: every delivered number came first on exactly one line")


def run_lab():
    lab = labtest.Lab()
    run = None
    try:
        if not t.check(lab.up(), "lab_up"):
            return
        pcap = os.path.join(lab.dir, "capture-feed-lab.pcap")
        if not t.check(lab.sh(f'lab_capture_start "{pcap}"').returncode == 0, "tcpdump"):
            return
        run = ConsoleRun(lab, "feedlab", [
            "--groups", f"239.9.9.11-12:{PORT}",
            "--seq", f"{JOIN_GROUP}:{PORT}=iperf2",
            "--seq", f"239.9.9.11-12:{PORT}=iperf2",
            "--seq-pair", f"239.9.9.11:{PORT},239.9.9.12:{PORT}"])
        if not t.check(run.wait_for("running:", 60), f"mcfan starts:\n{run.output()[-2000:]}"):
            return
        # 1. the sender runs; about a second later the console joins its group
        send = subprocess.Popen(["bash", "-c", f'. "{labtest.LAB_SH}" && lab_send 1 '
                                 f'{JOIN_COUNT} 100 {JOIN_PPS}'], env=lab.env,
                                stdout=subprocess.DEVNULL)
        time.sleep(1.0)
        # the join, then more lines in the same write, as a pasted script: the console runs
        # up to 64 lines a poll before the control tick (before the fix, the extractor came
        # with that tick: these lines' time was the window of uncounted frames)
        run.say(f"join {JOIN_GROUP}:{PORT}\n" + "show stats\n" * JOIN_LINES_AFTER)
        t.check(run.wait_for(f"joined {JOIN_GROUP}:{PORT}", 10), "console: join answered")
        t.check_eq(send.wait(60), 0, "the iperf2 sender ends well")
        # 2. the A/B relay
        record = os.path.join(lab.dir, "ab-record.json")
        ab = subprocess.run(["ip", "netns", "exec", lab.snd, "timeout", "30", sys.executable,
                             os.path.abspath(__file__), "--ab-send", record], timeout=60)
        t.check_eq(ab.returncode, 0, "the A/B relay ends well")
        time.sleep(0.5)    # the time window (100 ms) settles what is still open
        rc, rep = run.quit()
        lab.sh("lab_capture_stop")
        t.check_eq(rc, 0, f"mcfan exit status:\n{run.output()[-2000:]}")
        if not t.check(rep is not None, f"mcfan's report:\n{run.output()[-2000:]}"):
            return
        on_wire = wire(L.read_pcap(pcap))
        check_join(rep, run.output(), on_wire)
        with open(record) as f:
            check_ab(rep, on_wire, json.load(f))
    finally:
        if run is not None:
            run.kill()
        lab.down()


def main():
    t0 = time.monotonic()
    if os.geteuid() != 0 or subprocess.run(["ip", "netns", "list"], capture_output=True
                                           ).returncode != 0:
        print("feed_lab: SKIP: needs root and ip netns", flush=True)
        sys.exit(77)
    run_lab()
    print(f"feed_lab: {time.monotonic() - t0:.1f} s", flush=True)
    t.finish("feed_lab")


if __name__ == "__main__":
    main()
