#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Idle policies (docs/idle.md) with the real program.

1. Each policy on the lab (test/lab/lab.sh: iperf2 multicast into net_af_packet), at a low
   rate, RX lcore 1 and worker lcore 2 sharing CPU 1: poll, backoff, backoff + wake. Every
   datagram on the wire is counted, nothing is dropped, and the microstate accounting shows
   sleep > 0 (with sleeps, and wake-ups for wake) for backoff and wake, exactly 0 for poll.
   The report carries each lcore's policy and bound, each worker's latency histogram.
2. interrupt on net_tap, in a namespace made here: frames written into the tap from the
   kernel side (an AF_PACKET socket on the tap interface) are all received, the RX lcore
   sleeps in rte_epoll_wait and is woken. On net_pcap the option is refused at start (exit
   2, a message naming the port and the PMD, no report); the console refuses a live switch
   to interrupt on ports set up without Rx interrupts, and wake for an RX lcore.
3. Live switch from the console under traffic: poll -> backoff/wake -> poll. Sleep stays 0
   before the switch, grows after it, stops growing after the switch back; no frame lost.
4. Bursts after idle: the sender idles, then sends a few thousand datagrams as fast as it
   can, twice: backoff loses what poll loses (nothing where poll loses nothing).
5. Oversubscription: RX lcore 1 and 5 workers on CPU 1 (EAL --lcores '0@0,1@1,(2-6)@1'),
   replicate: with wake and with backoff, every worker counts every frame, no drop.

Timing: the host may be loaded; no assertion on absolute time beyond generous bounds.
Usage: test_idle.py MCFAN_BINARY. Exit 77 (skip) when not root or without `ip netns`.
"""

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def raw_send_main(iface, count, pps):
    """Runs inside a namespace: count UDP frames to 239.9.9.1:3999 out of iface, paced."""
    sys.path.insert(0, HERE)
    import mcfantest as mt
    from netnstest import send_paced
    return send_paced(iface, [mt.udp4_frame("239.9.9.1", 3999,
                                            data=i.to_bytes(4, "big") + b"t" * 60)
                              for i in range(count)], pps)


if len(sys.argv) == 5 and sys.argv[1] == "--raw-send":
    sys.exit(raw_send_main(sys.argv[2], int(sys.argv[3]), float(sys.argv[4])))

import mcfantest as t  # noqa: E402
from labtest import Lab, McfanRun, preflight, skipper  # noqa: E402
import netnstest as nt  # noqa: E402

NGROUPS = 10
PORT = 3999
GROUPS = f"239.9.9.1-{NGROUPS}:{PORT}"
COUNT = 200        # datagrams per group and run (iperf2 adds one end-of-test datagram)
PPS = 100          # per group: 1000 frames/s in all
LEN = 100
TMP = tempfile.mkdtemp(prefix="mcfan-idle-")


skip = skipper("idle")


class Run(McfanRun):
    """mcfan in a namespace (labtest.McfanRun), named for this test."""

    def __init__(self, ns, name, lcores, vdev, app, console=False):
        super().__init__(ns, f"mcfan-idle-{name}-{os.getpid()}", lcores, vdev, app, TMP, name,
                         console)


def lab_run(lab, name, lcores, app, console=False):
    vdev = lab.af_packet()
    return Run(lab.rcv, name, lcores, vdev, ["--groups", GROUPS, *app], console)


def lcore(rep, lc):
    for row in rep["lcores"]:
        if row["lcore"] == lc:
            return row
    return {}


def lost(rep, want_per_group, copies=1):
    """Group copies that the workers did not count, and every drop mcfan or the port saw."""
    got = sum(g["copies"] for g in rep["groups"])
    port = rep["ports"][0] if rep["ports"] else {}
    return {"missing": NGROUPS * want_per_group * copies - got,
            "ring_full": rep["drops"]["ring_full"],
            "ring_drops": sum(w["ring_drops"] for w in rep["workers"]),
            "imissed": port.get("imissed", 0), "rx_nombuf": port.get("rx_nombuf", 0)}


def check_no_loss(tag, rep, want_per_group, copies=1):
    loss = lost(rep, want_per_group, copies)
    t.check(all(v == 0 for v in loss.values()), f"{tag} nothing lost: {loss}")
    t.check(t.conservation(rep), f"{tag} conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"{tag} mbufs outside their pool")


# ---- 1. each policy at a low rate ----

def test_policies(lab):
    configs = [("poll", "poll", "poll"), ("backoff", "backoff", "backoff"),
               ("wake", "backoff", "wake")]
    for name, rx_pol, wk_pol in configs:
        tag = f"[{name}]"
        run = lab_run(lab, name, "0@0,1@1,2@1", ["--rx-lcores", "1", "--worker-lcores", "2",
                                                 "--idle-rx", rx_pol, "--idle-worker", wk_pol])
        rc, rep, ans = run.serve(lab, f"lab_send {NGROUPS} {COUNT} {LEN} {PPS}",
                                 NGROUPS * (COUNT + 1), tag,
                                 after=["/mcfan/idle", "/mcfan/latency"])
        idle, lat = ans.get("/mcfan/idle"), ans.get("/mcfan/latency")
        if rep is None:
            continue
        t.check_eq(rc, 0, f"{tag} exit status")
        check_no_loss(tag, rep, COUNT + 1)
        for lc, role, pol in ((1, "rx", rx_pol), (2, "worker", wk_pol)):
            row = lcore(rep, lc)
            t.check_eq(row.get("role"), role, f"{tag} lcore {lc} role")
            t.check(row.get("idle", {}).get("policy", "").split(":")[0] == pol,
                    f"{tag} lcore {lc}: report's policy {row.get('idle')}")
            if pol == "poll":
                t.check_eq(row.get("sleep_cycles"), 0, f"{tag} lcore {lc}: no sleep under poll")
                t.check_eq(row.get("sleeps"), 0, f"{tag} lcore {lc}: no sleeps under poll")
            else:
                t.check(row.get("sleep_cycles", 0) > 0 and row.get("sleeps", 0) > 0,
                        f"{tag} lcore {lc}: sleeps under {pol}: {row.get('sleep_cycles')} "
                        f"cycles, {row.get('sleeps')} sleeps")
                t.check(row["state_pct"]["sleep"] > 1.0,
                        f"{tag} lcore {lc}: sleep share {row['state_pct']['sleep']:.2f} %")
        if wk_pol == "wake":
            t.check(lcore(rep, 2).get("wakeups", 0) > 0,
                    f"{tag} the worker is woken by the RX lcore: {lcore(rep, 2).get('wakeups')}")
        w = rep["workers"][0]
        lt = w.get("latency", {})
        t.check_eq(lt.get("copies"), w["frames"], f"{tag} latency measured for every copy")
        t.check_eq(sum(lt.get("hist_log2_ns", [])), w["frames"], f"{tag} histogram total")
        t.check(0 < lt.get("p50_ns", 0) <= lt.get("p99_ns", 0) <= lt.get("max_ns", 0),
                f"{tag} 0 < p50 <= p99 <= max: {lt}")
        t.check(idle is not None and idle.get("lcore") == [1, 2] and
                [p.split(":")[0] for p in idle.get("policy", [])] == [rx_pol, wk_pol],
                f"{tag} /mcfan/idle: {idle}")
        t.check(lat is not None and lat.get("lcore") == [2] and lat["copies"][0] > 0,
                f"{tag} /mcfan/latency: {lat}")
        print(f"idle: {tag} rx {rep['rx_frames']}, lcore 1 sleep "
              f"{lcore(rep, 1)['state_pct']['sleep']:.1f} % ({lcore(rep, 1)['sleeps']} sleeps), "
              f"lcore 2 sleep {lcore(rep, 2)['state_pct']['sleep']:.1f} % "
              f"({lcore(rep, 2)['sleeps']} sleeps, {lcore(rep, 2)['wakeups']} wake-ups), "
              f"latency p50 {lt.get('p50_ns', 0) / 1e3:.1f} us p99 "
              f"{lt.get('p99_ns', 0) / 1e3:.1f} us", flush=True)


# ---- 2. interrupt: net_tap, and refused on net_pcap ----

def test_interrupt_tap():
    tag = "[interrupt tap]"
    ns = f"mcfan-idle-{os.getpid()}"
    tap = f"mcfantap{os.getpid() % 10000000}"
    n = 300
    if not nt.netns_add(ns):
        t.check(False, f"{tag} ip netns add {ns}")
        return
    run = None
    try:
        run = Run(ns, "tap", "0@0,1@1,2@1", f"net_tap0,iface={tap}",
                  ["--groups", f"239.9.9.1:{PORT}", "--rx-lcores", "1", "--worker-lcores", "2",
                   "--idle-rx", "interrupt", "--idle-worker", "wake"])
        if not t.check(run.wait_running(), f"{tag} mcfan starts:\n{run.output()}"):
            return
        idle = run.query("/mcfan/idle")
        t.check(idle is not None and idle["policy"][0].startswith("interrupt"),
                f"{tag} /mcfan/idle shows interrupt: {idle}")
        time.sleep(1)  # the lcore falls asleep
        before = run.query("/mcfan/msacc,1")
        send = subprocess.run(["ip", "netns", "exec", ns, "timeout", "120", sys.executable,
                               os.path.abspath(__file__), "--raw-send", tap, str(n), "200"],
                              capture_output=True, text=True, timeout=180)
        t.check_eq(send.returncode, 0, f"{tag} raw sender on the tap: {send.stderr}")
        t.check(run.wait_frames(n), f"{tag} the worker counts every frame")
        after = run.query("/mcfan/msacc,1")
        rc, rep = run.stop()
    finally:
        if run is not None:
            run.kill()
        subprocess.run(["ip", "netns", "del", ns])
    if not t.check(rep is not None, f"{tag} report (exit {rc}):\n{run.output()[-3000:]}"):
        return
    t.check_eq(rc, 0, f"{tag} exit status")
    t.check_eq(rep["ports"][0]["driver"], "net_tap", f"{tag} the port is a tap")
    gf = t.group_frames(rep)
    t.check_eq(gf.get(("239.9.9.1", PORT)), n, f"{tag} every frame written into the tap")
    t.check(t.conservation(rep), f"{tag} conservation")
    rx = lcore(rep, 1)
    t.check(rx.get("idle", {}).get("policy", "").startswith("interrupt"), f"{tag} RX policy")
    t.check(rx.get("sleep_cycles", 0) > 0 and rx.get("sleeps", 0) > 0,
            f"{tag} the RX lcore sleeps: {rx.get('sleeps')}")
    if before is not None and after is not None:
        woken = after["wakeups"] - before["wakeups"]
        t.check(woken > 0, f"{tag} the RX lcore is woken by the tap's interrupt: {woken}")
        print(f"idle: {tag} {n} frames, RX lcore: {after['sleeps'] - before['sleeps']} sleeps, "
              f"{woken} interrupt wake-ups while they arrived; sleep "
              f"{rx['state_pct']['sleep']:.1f} %", flush=True)


def test_interrupt_refused():
    tag = "[interrupt pcap]"
    pcap = os.path.join(TMP, "frames.pcap")
    t.write_pcap(pcap, [t.udp4_frame("239.9.9.1", PORT) for _ in range(50)])
    e = t.eal_args("idle-pcap", lcores="0-1", extra=("--vdev", f"net_pcap0,rx_pcap={pcap}"))
    rc, out, err, rep = t.run_mcfan(e, ["--groups", f"239.9.9.1:{PORT}", "--idle-rx",
                                        "interrupt", "--duration", "5"], timeout=120)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 2, f"{tag} refused: exit status 2 ({err[-500:]})")
    line = [ln for ln in err.splitlines() if "--idle-rx interrupt" in ln]
    t.check(len(line) == 1 and "port 0" in line[0] and "net_pcap" in line[0],
            f"{tag} one message naming the port and the PMD: {line}")
    t.check(rep is None and "==== mcfan report" not in out, f"{tag} no report")

    # the console: interrupt on a port set up without Rx interrupts, wake on an RX lcore
    tag = "[set idle]"
    cmds = os.path.join(TMP, "cmds.txt")
    with open(cmds, "w") as f:
        f.write("set idle rx interrupt\nset idle 1 wake\nset idle 9 backoff\n"
                "set idle worker backoff:nope\nset idle worker wake\nset idle 1 backoff:none\n"
                "show idle\nshow latency\nshow config\nquit\n")
    e = t.eal_args("idle-con", lcores="0@0,1@1,2@1",
                   extra=("--vdev", f"net_pcap0,rx_pcap={pcap}"))
    e[e.index("-l")] = "--lcores"
    with open(cmds) as f:
        # --host-workers off: a worker thread of its own, whose policy `set idle` may change
        # (test_hosted.py has the refusal for a hosted one)
        rc, out, err, rep = t.run_mcfan(e, ["--groups", f"239.9.9.1:{PORT}", "--rx-lcores", "1",
                                            "--worker-lcores", "2", "--host-workers", "off",
                                            "-i"], stdin=f, timeout=120)
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"{tag} exit status ({err[-300:]})")
    errors = [ln for ln in out.splitlines() if ln.startswith("error:")]
    t.check(len(errors) == 4, f"{tag} four refusals: {errors}")
    t.check(any("port 0" in ln and "net_pcap" in ln and "interrupt" in ln for ln in errors),
            f"{tag} interrupt refused naming the port and the PMD: {errors}")
    t.check(any("wake is for worker-only lcores" in ln for ln in errors),
            f"{tag} wake refused for an RX lcore: {errors}")
    t.check("idle policy wake:very_short for lcore 2" in out, f"{tag} worker -> wake")
    t.check("idle policy backoff:none for lcore 1" in out, f"{tag} lcore 1 -> backoff:none")
    t.check("ring_bound" in out and "sleep_cap" in out, f"{tag} show idle")
    t.check("p99" in out, f"{tag} show latency")
    t.check("idle-worker:   wake:very_short" in out, f"{tag} show config: {out[-800:]}")
    if rep is not None:
        t.check_eq(lcore(rep, 2).get("idle", {}).get("policy"), "wake:very_short",
                   f"{tag} the report shows the live policy")


# ---- 3. live switch under traffic ----

def msacc_sleep(run, lc):
    v = run.query(f"/mcfan/msacc,{lc}")
    return (v["sleep_cycles"], v["sleeps"]) if v else (None, None)


def test_live_switch(lab):
    tag = "[live]"
    count, pps = 800, 100   # 8 s of traffic
    # starts under poll explicitly: lcores 1 and 2 share CPU 1, whose default is to sleep
    run = lab_run(lab, "live", "0@0,1@1,2@1", ["--rx-lcores", "1", "--worker-lcores", "2",
                                               "--idle-rx", "poll", "--idle-worker", "poll"],
                  console=True)
    result = {}
    try:
        if not t.check(run.wait_running(), f"{tag} mcfan starts:\n{run.output()}"):
            return
        sender = threading.Thread(target=lambda: result.update(
            send=lab.sh(f"lab_send {NGROUPS} {count} {LEN} {pps}", timeout=300)))
        sender.start()
        time.sleep(1.5)
        s0 = {lc: msacc_sleep(run, lc) for lc in (1, 2)}
        run.say("set idle rx backoff")
        run.say("set idle worker wake")
        time.sleep(2.5)
        s1 = {lc: msacc_sleep(run, lc) for lc in (1, 2)}
        idle = run.query("/mcfan/idle")
        run.say("set idle rx poll")
        run.say("set idle worker poll")
        time.sleep(0.5)    # a sleep under way ends
        s2 = {lc: msacc_sleep(run, lc) for lc in (1, 2)}
        time.sleep(1.5)
        s3 = {lc: msacc_sleep(run, lc) for lc in (1, 2)}
        sender.join(300)
        t.check(run.wait_frames(NGROUPS * (count + 1)), f"{tag} every datagram counted")
        rc, rep = run.stop()
    finally:
        run.kill()
    send = result.get("send")
    t.check(send is not None and send.returncode == 0, f"{tag} every iperf2 client ends well")
    t.check(send is not None and send.returncode == 0 and "idle policy backoff:short for lcore 1"
            in run.output() and "idle policy wake:very_short for lcore 2" in run.output(),
            f"{tag} the console confirms the switches:\n{run.output()[-2000:]}")
    for lc in (1, 2):
        t.check_eq(s0[lc], (0, 0), f"{tag} lcore {lc}: no sleep under poll")
        t.check(s1[lc][0] is not None and s1[lc][0] > 0 and s1[lc][1] > 0,
                f"{tag} lcore {lc}: sleeps after the switch: {s1[lc]}")
        t.check(s2[lc][0] is not None and s2[lc] == s3[lc],
                f"{tag} lcore {lc}: no sleep after the switch back to poll: {s2[lc]} {s3[lc]}")
    t.check(idle is not None and idle.get("policy") == ["backoff:short", "wake:very_short"],
            f"{tag} /mcfan/idle during the switch: {idle}")
    if not t.check(rep is not None, f"{tag} report (exit {rc})"):
        return
    t.check_eq(rc, 0, f"{tag} exit status")
    check_no_loss(tag, rep, count + 1)
    print(f"idle: {tag} sleep cycles lcore 1: {s0[1][0]} -> {s1[1][0]} -> {s2[1][0]} = "
          f"{s3[1][0]}; lcore 2: {s0[2][0]} -> {s1[2][0]} -> {s2[2][0]} = {s3[2][0]}",
          flush=True)


# ---- 4. bursts after idle ----

def test_bursts(lab):
    groups, count, bursts = 3, 1000, 2
    loss = {}
    for pol in ("poll", "backoff"):
        tag = f"[burst {pol}]"
        run = lab_run(lab, f"burst-{pol}", "0@0,1@1,2@1",
                      ["--rx-lcores", "1", "--worker-lcores", "2", "--ring-size", "8192",
                       "--idle-rx", pol, "--idle-worker", pol])
        try:
            if not t.check(run.wait_running(), f"{tag} mcfan starts:\n{run.output()}"):
                continue
            for b in range(bursts):
                time.sleep(1.5)   # idle: backoff is asleep by now
                send = lab.sh(f"lab_send {groups} {count} {LEN} 1000000", timeout=180)
                t.check_eq(send.returncode, 0, f"{tag} burst {b + 1}: iperf2 ends well")
            run.wait_frames(bursts * groups * (count + 1), timeout=30)
            rc, rep = run.stop()
        finally:
            run.kill()
        if not t.check(rep is not None and rc == 0, f"{tag} report (exit {rc})"):
            continue
        got = sum(g["copies"] for g in rep["groups"])
        port = rep["ports"][0]
        loss[pol] = (bursts * groups * (count + 1) - got + rep["drops"]["ring_full"] +
                     port["imissed"] + port["rx_nombuf"])
        t.check(t.conservation(rep), f"{tag} conservation")
        print(f"idle: {tag} {bursts} bursts of {groups} x {count + 1} datagrams: "
              f"{got} counted, lost {loss[pol]} (imissed {port['imissed']}, ring_full "
              f"{rep['drops']['ring_full']}); RX sleeps {lcore(rep, 1).get('sleeps')}",
              flush=True)
    if "poll" in loss and "backoff" in loss:
        if loss["poll"] == 0:
            t.check_eq(loss["backoff"], 0, "[burst] backoff loses nothing where poll loses "
                       "nothing")
        else:
            t.check(loss["backoff"] <= loss["poll"], f"[burst] backoff loses no more than "
                    f"poll: {loss}")


# ---- 5. oversubscription ----

def test_oversubscribed(lab):
    for pol in ("wake", "backoff"):
        tag = f"[oversubscribed {pol}]"
        run = lab_run(lab, f"over-{pol}", "0@0,1@1,(2-6)@1",
                      ["--rx-lcores", "1", "--worker-lcores", "2-6", "--fanout", "replicate",
                       "--idle-rx", "backoff", "--idle-worker", pol])
        try:
            if not t.check(run.wait_running(), f"{tag} mcfan starts:\n{run.output()}"):
                continue
            send = lab.sh(f"lab_send {NGROUPS} {COUNT} {LEN} {PPS}", timeout=180)
            t.check_eq(send.returncode, 0, f"{tag} every iperf2 client ends well")
            t.check(run.wait_frames(5 * NGROUPS * (COUNT + 1)), f"{tag} every copy counted")
            rc, rep = run.stop()
        finally:
            run.kill()
        if not t.check(rep is not None, f"{tag} report (exit {rc}):\n{run.output()[-2000:]}"):
            continue
        t.check_eq(rc, 0, f"{tag} exit status")
        check_no_loss(tag, rep, COUNT + 1, copies=5)
        for w in rep["workers"]:
            t.check_eq(w["frames"], NGROUPS * (COUNT + 1),
                       f"{tag} worker {w['lcore']} counts every frame")
            t.check(lcore(rep, w["lcore"]).get("sleeps", 0) > 0,
                    f"{tag} worker {w['lcore']} sleeps")
        p99 = max(w["latency"]["p99_ns"] for w in rep["workers"])
        print(f"idle: {tag} 5 workers on one CPU with the RX lcore: each counted "
              f"{rep['workers'][0]['frames']}, worst p99 {p99 / 1e3:.1f} us", flush=True)


def main():
    preflight(skip, "needs root (network namespaces)")

    def on_signal(sig, frame):
        raise KeyboardInterrupt(f"signal {sig}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    t0 = time.monotonic()
    lab = Lab()
    try:
        test_interrupt_refused()
        test_interrupt_tap()
        if t.check(lab.up(), "lab_up"):
            test_policies(lab)
            test_live_switch(lab)
            test_bursts(lab)
            test_oversubscribed(lab)
    except KeyboardInterrupt as e:
        t.check(False, f"interrupted ({e})")
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        lab.down()
        subprocess.run(["rm", "-rf", "--", TMP])
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        t.check(lab.snd not in left and lab.rcv not in left and
                f"mcfan-idle-{os.getpid()}" not in left, "every namespace removed")
    print(f"idle: {time.monotonic() - t0:.1f} s", flush=True)
    t.finish("idle")


if __name__ == "__main__":
    main()
