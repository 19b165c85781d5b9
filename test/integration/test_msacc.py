#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Microstate accounting with the real program (issue 4, integration part).

Lcore map for every run: --lcores 0@0,1@1,2@0 (main lcore 0 and worker lcore 2 on CPU 0,
RX lcore 1 alone on CPU 1), default burst 32.

1. Idle app (net_ring0: a port that never receives anything): the RX and the worker lcore
   spend >= 95 % of their time in poll_empty (or sleep, or wait_cpu: runnable while another
   job of a loaded host held its CPU, not work), in /mcfan/msacc, in a window taken from two
   /mcfan/msacc,N snapshots, and in the JSON report's lcores[].state_pct; every poll is
   empty; busy minus wait_cpu (docs/msacc.md counts wait_cpu as busy) is <= 5 %.
2. Saturated app (net_pcap infinite_rx=1): the RX lcore's poll_empty is <= 5 %, its rx +
   classify + fanout >= 90 % of the time it had its CPU (wall minus wait_cpu), and its
   frames per poll >= 0.8 x burst, by telemetry and by the report.
3. In both: the states of each lcore add up to its wall time exactly (cycles) and, over a
   window between two snapshots, to the wall-clock time of the window within 1 %.
4. --no-msacc: the app runs and reports frames as usual; the data lcores count no polls and
   no frames, and their time is not reported as busy (zero or absent, since nothing was
   measured); the control lcore is still accounted.

Usage: test_msacc.py MCFAN_BINARY"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-msacc-")
LCORES = "0@0,1@1,2@0"
CONTROL, RX, WORKER = 0, 1, 2
BURST = 32
STATES = ["other", "poll_empty", "rx", "classify", "fanout", "dequeue", "process", "sleep",
          "console", "telemetry", "wait_cpu"]
WINDOW_S = 2.0
# states in which an lcore does no work: the busy-wait, sleeping, and waiting for a CPU
NOT_WORK = ("poll_empty", "sleep", "wait_cpu")


def eal(name, vdev):
    return t.eal_args(name)[2:] + ["--lcores", LCORES, "--vdev", vdev]


def snap(tel, lcore):
    """(monotonic before, monotonic after, /mcfan/msacc,lcore reply)."""
    a = time.monotonic()
    v, _ = tel.query(f"/mcfan/msacc,{lcore}")
    return a, time.monotonic(), v


def window(a, b):
    """Difference of two /mcfan/msacc,N replies: cycles per state, polls, frames, wall."""
    d = {s: b[s + "_cycles"] - a[s + "_cycles"] for s in STATES}
    for k in ("wall_cycles", "polls", "polls_work", "frames"):
        d[k] = b[k] - a[k]
    d["hist"] = [y - x for x, y in zip(a["burst_hist_log2"], b["burst_hist_log2"])]
    return d


def check_window(what, lcore, sa, sb):
    """The states add up to the wall time of the window: exactly in cycles, and within 1 % of
    the wall-clock time between the two queries (bracketed by their send and receive)."""
    a0, a1, va = sa
    b0, b1, vb = sb
    if not t.check(va is not None and vb is not None, f"[{what}] lcore {lcore}: snapshots"):
        return None
    for v in (va, vb):
        t.check_eq(sum(v[s + "_cycles"] for s in STATES), v["wall_cycles"],
                   f"[{what}] lcore {lcore}: states add up to wall_cycles exactly")
    w = window(va, vb)
    # A snapshot charges the interval in progress to the lcore's last state, a guess the
    # lcore may correct later (docs/msacc.md), so a state may lose that much between two
    # snapshots: at most one state interval (a burst; a tick of the control lcore, whose
    # sleep between ticks, up to 100 ms, is guessed as sleep).
    slack = 0.01 * w["wall_cycles"]
    t.check(all(w[s] >= -slack for s in STATES), f"[{what}] lcore {lcore}: no state goes "
            f"back by more than one state interval in the window: {w}")
    hz = vb["tsc_hz"]
    states_s = sum(w[s] for s in STATES) / hz
    lo, hi = (b0 - a1) * 0.99, (b1 - a0) * 1.01
    t.check(lo <= states_s <= hi, f"[{what}] lcore {lcore}: the states of the window add up "
            f"to {states_s:.4f} s, the window's wall clock is {b0 - a1:.4f}..{b1 - a0:.4f} s "
            "(+-1 %)")
    return w


def pct(w, *states):
    return 100.0 * sum(w[s] for s in states) / w["wall_cycles"] if w["wall_cycles"] else 0.0


def check_report_lcores(what, rep):
    """Each row's state shares add up to 100 and its wall time covers the run."""
    for lc in rep["lcores"]:
        sp = lc["state_pct"]
        t.check_eq(set(sp), set(STATES), f"[{what}] report lcore {lc['lcore']}: state_pct keys")
        t.check(abs(sum(sp.values()) - 100.0) <= 0.01, f"[{what}] report lcore {lc['lcore']}: "
                f"state_pct adds up to 100: {sum(sp.values()):.4f}")
        wall_s = lc["wall_cycles"] / rep["tsc_hz"]
        dur = rep["duration_s"]
        # the window runs from accounting start (just before the run starts) to the report
        # (just after ports stop): a little longer than duration_s
        t.check(dur * 0.99 <= wall_s <= dur * 1.01 + 0.5, f"[{what}] report lcore "
                f"{lc['lcore']}: wall {wall_s:.3f} s covers the run of {dur:.3f} s")


def run(what, vdev, extra=(), body=None):
    """Start mcfan, wait for telemetry, call body(tel, proc), stop with SIGINT; returns the
    JSON report (or None)."""
    e = eal(what.replace(" ", "-").replace("--", ""), vdev)
    report = os.path.join(TMP, what.replace(" ", "_") + ".json")
    proc = t.McfanProcess(e, ["--groups", "239.9.9.1-10:3999", "--duration", "600",
                              "--report-json", report, *extra])
    try:
        tel = t.Telemetry(t.telemetry_socket(e), timeout=120, proc=proc)
        if t.check(tel.wait_ready(timeout=120) is not None, f"[{what}] telemetry answers"):
            if not t.check(proc.wait_line("MCFAN: running", 120) is not None,
                           f"[{what}] lcores launched"):
                return None
            body(tel, proc)
        tel.close()
    except (OSError, ValueError, RuntimeError, subprocess.TimeoutExpired) as ex:
        t.check(False, f"[{what}] telemetry session: {ex!r}")
    finally:
        proc.signal(signal.SIGINT)
        rc = proc.wait(120)
        t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"[{what}] exit status (stderr tail {proc.stderr()[-300:]!r})")
    if not t.check(os.path.exists(report), f"[{what}] JSON report written"):
        return None
    with open(report) as f:
        rep = json.load(f)
    t.check(t.conservation(rep), f"[{what}] conservation")
    t.check_eq(rep["mbufs_outside_pool"], 0, f"[{what}] mbufs_outside_pool")
    if "--no-msacc" not in extra:
        t.check_eq(sorted(lc["lcore"] for lc in rep["lcores"]), [CONTROL, RX, WORKER],
                   f"[{what}] report lcores")
    return rep


def lcore_row(rep, lcore):
    return next((lc for lc in rep["lcores"] if lc["lcore"] == lcore), None)


def table_row(ms, lcore):
    i = ms["lcore"].index(lcore)
    return {k: v[i] for k, v in ms.items() if isinstance(v, list)}


def windows(tel, what):
    """0.5 s into the run, every lcore's counters twice, WINDOW_S apart: {lcore: its window
    (check_window: its checks made) or None}, for CONTROL, RX and WORKER."""
    time.sleep(0.5)
    s1 = {lc: snap(tel, lc) for lc in (CONTROL, RX, WORKER)}
    time.sleep(WINDOW_S)
    s2 = {lc: snap(tel, lc) for lc in (CONTROL, RX, WORKER)}
    return {lc: check_window(what, lc, s1[lc], s2[lc]) for lc in (CONTROL, RX, WORKER)}


# ---------------------------------------------------------------------------------------------

def test_idle():
    what = "idle"

    def body(tel, proc):
        for lc, w in windows(tel, what).items():
            if w is None or lc == CONTROL:
                continue
            idle = pct(w, *NOT_WORK)
            t.check(idle >= 95.0, f"[{what}] lcore {lc}: window poll_empty + sleep + "
                    f"wait_cpu {idle:.2f} % >= 95 % (wait_cpu {pct(w, 'wait_cpu'):.2f} %)")
            t.check(w["polls"] > 0 and w["polls_work"] == 0 and w["frames"] == 0,
                    f"[{what}] lcore {lc}: polls, all empty: {w['polls']} polls, "
                    f"{w['polls_work']} with work")
        ms, _ = tel.query("/mcfan/msacc")
        if t.check(ms is not None, f"[{what}] /mcfan/msacc"):
            for lc in (RX, WORKER):
                r = table_row(ms, lc)
                idle = sum(r[s + "_bp"] for s in NOT_WORK)
                t.check(idle >= 9500, f"[{what}] /mcfan/msacc lcore {lc}: poll_empty + sleep "
                        f"+ wait_cpu {idle} bp >= 9500 (wait_cpu {r['wait_cpu_bp']} bp)")
        ty, _ = tel.query("/mcfan/msacc/types")
        if t.check(ty is not None, f"[{what}] /mcfan/msacc/types"):
            for role in ("rx", "worker"):
                i = ty["role"].index(role)
                idle = sum(ty[s + "_bp"][i] for s in NOT_WORK)
                t.check(idle >= 9500, f"[{what}] /mcfan/msacc/types {role}: poll_empty + "
                        f"sleep + wait_cpu {idle} bp >= 9500")
        c, _ = tel.query("/mcfan/counters")
        t.check(c is not None and c["rx_frames"] == 0, f"[{what}] no frame arrives: {c}")

    # net_ring0 hands what mcfan sends back to its RX queue: no IGMP/MLD reports, so
    # nothing arrives at all
    rep = run(what, "net_ring0", extra=["--igmp", "off", "--mld", "off"], body=body)
    if rep is None:
        return
    t.check_eq(rep["rx_frames"], 0, f"[{what}] report rx_frames")
    for lc in (RX, WORKER):
        row = lcore_row(rep, lc)
        if row is None:
            continue
        sp = row["state_pct"]
        idle = sum(sp[s] for s in NOT_WORK)
        t.check(idle >= 95.0, f"[{what}] report lcore {lc}: poll_empty + sleep + wait_cpu "
                f"{idle:.2f} % >= 95 % (wait_cpu {sp['wait_cpu']:.2f} %)")
        t.check(row["polls"] > 0 and row["empty_poll_pct"] == 100.0 and row["frames"] == 0,
                f"[{what}] report lcore {lc}: every poll empty: {row}")
        work = row["busy_pct"] - sp["wait_cpu"]
        t.check(work <= 5.0, f"[{what}] report lcore {lc}: busy_pct {row['busy_pct']:.2f} "
                f"minus wait_cpu {sp['wait_cpu']:.2f} <= 5")
    check_report_lcores(what, rep)


def test_saturated():
    what = "saturated"
    pcap = os.path.join(TMP, "seed.pcap")
    t.write_pcap(pcap, [t.udp4_frame(f"239.9.9.{i % 10 + 1}", 3999) for i in range(1000)])

    def body(tel, proc):
        for lc, w in windows(tel, what).items():
            if w is None or lc != RX:
                continue
            t.check(pct(w, "poll_empty") <= 5.0, f"[{what}] RX lcore: window poll_empty "
                    f"{pct(w, 'poll_empty'):.2f} % <= 5 %")
            fpp = w["frames"] / w["polls_work"] if w["polls_work"] else 0
            t.check(fpp >= 0.8 * BURST, f"[{what}] RX lcore: window frames per poll "
                    f"{fpp:.1f} >= 0.8 x {BURST}")
            # of the time it had its CPU (wait_cpu: another job of a loaded host held it)
            ran = w["wall_cycles"] - w["wait_cpu"]
            work = 100.0 * sum(w[s] for s in ("rx", "classify", "fanout")) / ran if ran else 0
            t.check(work >= 90.0, f"[{what}] RX lcore: window rx + classify + fanout "
                    f"{work:.2f} % >= 90 % of the time it ran (wait_cpu "
                    f"{pct(w, 'wait_cpu'):.2f} % of the window)")
            t.check(w["hist"][5] >= 0.9 * w["polls_work"], f"[{what}] RX lcore: the polls "
                    f"with work are full bursts (bucket 32-63): {w['hist']}")
        one, _ = tel.query(f"/mcfan/msacc,{RX}")
        if t.check(one is not None, f"[{what}] /mcfan/msacc,{RX}"):
            t.check(one["poll_empty_bp"] <= 500, f"[{what}] /mcfan/msacc,{RX} poll_empty_bp "
                    f"{one['poll_empty_bp']} <= 500")
            t.check(one["frames_per_poll_x100"] >= 80 * BURST, f"[{what}] /mcfan/msacc,{RX} "
                    f"frames_per_poll_x100 {one['frames_per_poll_x100']} >= {80 * BURST}")
            t.check(one["cycles_per_frame"] > 0, f"[{what}] /mcfan/msacc,{RX} cycles_per_frame")
        ms, _ = tel.query("/mcfan/msacc")
        if t.check(ms is not None, f"[{what}] /mcfan/msacc"):
            t.check(table_row(ms, RX)["poll_empty_bp"] <= 500,
                    f"[{what}] /mcfan/msacc RX poll_empty_bp <= 500")

    rep = run(what, f"net_pcap0,rx_pcap={pcap},infinite_rx=1", body=body)
    if rep is None:
        return
    row = lcore_row(rep, RX)
    if row is None:
        return
    t.check(rep["rx_frames"] > 0, f"[{what}] frames received")
    t.check(row["state_pct"]["poll_empty"] <= 5.0, f"[{what}] report RX lcore: poll_empty "
            f"{row['state_pct']['poll_empty']:.2f} % <= 5 %")
    t.check(row["frames_per_poll"] >= 0.8 * BURST, f"[{what}] report RX lcore: frames per "
            f"poll {row['frames_per_poll']:.1f} >= 0.8 x {BURST}")
    t.check_eq(row["frames"], rep["rx_frames"], f"[{what}] report RX lcore frames = rx_frames")
    check_report_lcores(what, rep)


def test_no_msacc():
    what = "no-msacc"
    pcap = os.path.join(TMP, "seed.pcap")
    if not os.path.exists(pcap):
        t.write_pcap(pcap, [t.udp4_frame(f"239.9.9.{i % 10 + 1}", 3999) for i in range(1000)])

    def body(tel, proc):
        time.sleep(1.0)
        for lc in (RX, WORKER):
            v, _ = tel.query(f"/mcfan/msacc,{lc}")
            if v is None:      # "no accounting" as an error reply is sensible too
                continue
            t.check(v["polls"] == 0 and v["frames"] == 0, f"[{what}] /mcfan/msacc,{lc}: no "
                    f"poll counted while accounting is off: {v['polls']} polls")
            t.check(v.get("busy_bp", 0) == 0, f"[{what}] /mcfan/msacc,{lc}: an lcore whose "
                    f"accounting is off is not reported busy: busy_bp {v.get('busy_bp')}, "
                    f"other_bp {v.get('other_bp')}")
        v, _ = tel.query(f"/mcfan/msacc,{CONTROL}")
        t.check(v is not None and v["sleep_bp"] >= 5000, f"[{what}] the control lcore is still "
                f"accounted (sleeps most of the time): {v and v['sleep_bp']}")
        c, _ = tel.query("/mcfan/counters")
        t.check(c is not None and c["rx_frames"] > 0, f"[{what}] frames flow")

    rep = run(what, f"net_pcap0,rx_pcap={pcap},infinite_rx=1", extra=["--no-msacc"], body=body)
    if rep is None:
        return
    t.check(rep["rx_frames"] > 0, f"[{what}] frames received and reported")
    for lc in (RX, WORKER):
        row = lcore_row(rep, lc)
        if row is None:    # left out of the report as not measured: sensible too
            continue
        t.check(row["polls"] == 0 and row["frames"] == 0, f"[{what}] report lcore {lc}: no "
                f"poll counted: {row['polls']} polls, {row['frames']} frames")
        t.check(row.get("busy_pct") in (0, None), f"[{what}] report lcore {lc}: not reported "
                f"busy while unmeasured: busy_pct {row.get('busy_pct')}, state_pct "
                f"{row.get('state_pct')}")
        sp = row.get("state_pct") or {}
        t.check(all(v == 0 for v in sp.values()), f"[{what}] report lcore {lc}: no state "
                f"share while unmeasured: {sp}")
    ctl = lcore_row(rep, CONTROL)
    t.check(ctl is not None and abs(sum(ctl["state_pct"].values()) - 100.0) <= 0.01 and
            ctl["state_pct"]["sleep"] >= 50.0, f"[{what}] report: the control lcore is "
            f"still accounted: {ctl['state_pct']}")


def main():
    t.mcfan_path()
    try:
        for fn in (test_idle, test_saturated, test_no_msacc):
            t0 = time.monotonic()
            fn()
            print(f"{fn.__name__}: {time.monotonic() - t0:.1f} s", flush=True)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    t.finish("test_msacc")


if __name__ == "__main__":
    main()
