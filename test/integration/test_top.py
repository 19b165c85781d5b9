#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""mcfan-top (tools/mcfan-top, docs/mcfan-top.md) against a real mcfan: net_pcap replays a
capture forever (groups 239.9.9.1..4:3999 at 1:2:3:4 and [ff3e::1]:5000 at 2, plus frames
of two drop reasons; 239.9.9.5:3999 is joined but never sent), lcores control, rx, worker.
mcfan-top runs in tmux (160x50); keys go in with `tmux send-keys`, the screen is read with
`tmux capture-pane`. Asserts on what is shown: every lcore row with its role, state shares
adding up to 100 %, every group row, group rates > 0 (0 for the silent group) and within
20 % of the telemetry counters' growth over a bracketing span, shown totals inside that
span, p freezes the screen, s cycles the order rate -> name -> drops, + and - change the
interval shown, q exits 0, a wrong prefix exits 1 naming the socket path, mcfan exiting
while shown gives the message (and a new mcfan on the prefix is shown again), a too small
terminal a notice; --once prints the same frame.
Skips (77) without tmux.
Usage: test_top.py MCFAN_BINARY"""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import mcfantest as t

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "mcfan-top")
SESSION = f"mcfan-top-{os.getpid()}"
WEIGHTS = {"239.9.9.1:3999": 1, "239.9.9.2:3999": 2, "239.9.9.3:3999": 3,
           "239.9.9.4:3999": 4, "[ff3e::1]:5000": 2}
SILENT = "239.9.9.5:3999"
GROUPS = list(WEIGHTS) + [SILENT]
NAME_ORDER = ["239.9.9.1:3999", "239.9.9.2:3999", "239.9.9.3:3999", "239.9.9.4:3999",
              "239.9.9.5:3999", "[ff3e::1]:5000"]
ROLES = {0: "control", 1: "rx", 2: "worker"}
RATE_TOLERANCE = 0.20
LCORE_RE = re.compile(r"^\s*(\d+) (control|rx\+worker|rx|worker)\s+(-?\d+)\s+(\S+)\s+(\S+)\s+"
                      r"([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+\|([#.w -]*)\|")
SUFFIX = {"k": 1e3, "M": 1e6, "G": 1e9}


def tmux(*args, check=True):
    return subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=20,
                          check=check)


def pane(session=SESSION):
    out = tmux("capture-pane", "-p", "-t", session, check=False).stdout
    return "\n".join(ln.rstrip() for ln in out.splitlines()).rstrip("\n")


def wait_for(pred, timeout=15.0, session=SESSION):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = pane(session)
        if pred(text):
            return text
        time.sleep(0.1)
    return pane(session)


def keys(k, session=SESSION):
    tmux("send-keys", "-t", session, "-l", k)


def num(text):
    """A shown rate back to a number: '233k' -> 233000.0; '-' -> None."""
    if text == "-":
        return None
    if text[-1] in SUFFIX:
        return float(text[:-1]) * SUFFIX[text[-1]]
    return float(text)


def parse(text):
    """{'header', 'lcores': {id: row}, 'groups': [row in shown order], 'drops': {reason:
    (total, rate)}, 'rings': [row]} of one screen or --once output."""
    lines = text.splitlines()
    out = {"header": lines[0] if lines else "", "lcores": {}, "groups": [], "drops": {},
           "rings": [], "text": text}
    section = None
    for ln in lines:
        m = LCORE_RE.match(ln)
        if m:
            out["lcores"][int(m.group(1))] = {
                "role": m.group(2), "cpu": int(m.group(3)), "engines": m.group(4),
                "shares": [float(m.group(i)) for i in range(6, 10)], "bar": m.group(10)}
            continue
        if ln.startswith("DROP REASON"):
            section = "drops"
            continue
        if ln.startswith("GROUP "):
            section = "groups"
            continue
        f = ln.split()
        if section == "drops" and len(f) >= 3 and f[0].isidentifier() and f[1].isdigit():
            out["drops"][f[0]] = (int(f[1]), num(f[2]))
            if len(f) >= 10:  # the ring beside it: LCORE COUNT/SIZE % HW IN/S DROPS DROPS/S
                out["rings"].append(f[3:])
        elif section == "groups" and len(f) == 8 and f[0] in GROUPS:
            out["groups"].append({"name": f[0], "frames_rate": num(f[1]),
                                  "copies_rate": num(f[2]), "copy_drops_rate": num(f[3]),
                                  "frames": int(f[4]), "copies": int(f[5]),
                                  "copy_drops": int(f[6]), "workers": int(f[7])})
        elif section == "groups" and not ln:
            section = None
    return out


def group_counters(tel):
    g, _ = tel.query("/mcfan/groups")
    return time.monotonic(), {t_name(a, p): (fr, co) for a, p, fr, co in
                              zip(g["group"], g["udp_port"], g["frames"], g["copies"])}


def t_name(addr, port):
    return addr if port == 0 else f"{addr}:{port}"


def check_frame(s, where, tel_span=None):
    """Everything one frame must show; tel_span = (t0, counters0, t1, counters1) brackets
    the interval the frame's rates cover."""
    t.check_eq(sorted(s["lcores"]), sorted(ROLES), f"{where}: one row per lcore")
    for lc, role in ROLES.items():
        r = s["lcores"].get(lc)
        if r is None:
            continue
        t.check_eq(r["role"], role, f"{where}: lcore {lc} role")
        total = sum(r["shares"])
        t.check(abs(total - 100.0) <= 0.3, f"{where}: lcore {lc} busy + poll_empty + sleep + "
                f"wait_cpu = {total:.1f} %, expected 100 +- 0.3")
        t.check_eq(len(r["bar"]), 50, f"{where}: lcore {lc} bar width")
    t.check_eq(s["lcores"].get(1, {}).get("engines"), "fanout", f"{where}: rx lcore engine")
    t.check_eq(s["lcores"].get(2, {}).get("engines"), "count", f"{where}: worker engine")
    t.check(s["lcores"].get(0, {}).get("shares", [0, 0, 0])[2] > 50.0,
            f"{where}: the control lcore sleeps most of the interval")
    names = [g["name"] for g in s["groups"]]
    t.check_eq(sorted(names), sorted(GROUPS), f"{where}: one row per group")
    for g in s["groups"]:
        if g["name"] == SILENT:
            t.check(g["frames_rate"] == 0 and g["frames"] == 0,
                    f"{where}: {SILENT} shows 0 frames/s and 0 frames: {g}")
            continue
        t.check(g["frames_rate"] is not None and g["frames_rate"] > 0,
                f"{where}: {g['name']} frames/s > 0: {g['frames_rate']}")
        t.check(g["copies_rate"] is not None and g["copies_rate"] > 0,
                f"{where}: {g['name']} copies/s > 0: {g['copies_rate']}")
        t.check_eq(g["workers"], 1, f"{where}: {g['name']} workers")
    for reason in ("unknown_group", "not_multicast"):
        tot, rt = s["drops"].get(reason, (0, None))
        t.check(tot > 0 and rt is not None and rt > 0,
                f"{where}: drop reason {reason} shown with a rate > 0: {(tot, rt)}")
    t.check("ring_full" in s["drops"] and "truncated" in s["drops"],
            f"{where}: every drop reason has a row: {sorted(s['drops'])}")
    # /mcfan/counters' mac_mismatch counts delivered frames: not a drop reason's row
    t.check("mac_mismatch" not in s["drops"],
            f"{where}: mac_mismatch is no drop reason: {sorted(s['drops'])}")
    t.check(len(s["rings"]) == 1 and s["rings"][0][0] == "2" and
            s["rings"][0][1].endswith("/1024"), f"{where}: the worker's ring row: {s['rings']}")
    if tel_span is None:
        return True
    t0, c0, t1, c1 = tel_span
    ok = True
    for g in s["groups"]:
        n = g["name"]
        if n == SILENT or n not in c0:
            continue
        ok &= t.check(c0[n][0] <= g["frames"] <= c1[n][0],
                      f"{where}: {n} frames shown {g['frames']} inside telemetry's "
                      f"{c0[n][0]} .. {c1[n][0]}")
        want = (c1[n][0] - c0[n][0]) / (t1 - t0)
        got = g["frames_rate"] or 0.0
        good = want > 0 and abs(got - want) <= RATE_TOLERANCE * want
        if not good:
            print(f"{where}: {n} frames/s shown {got:.0f}, telemetry over the span {want:.0f}")
        ok &= good
    return ok


def rates_consistent(attempt, where):
    """Run attempt() (returns True when the rates agree) up to twice: the rate of a pcap
    replayed at full speed moves with the load of this shared host."""
    if attempt():
        t.check(True, f"{where}: group rates within 20 % of telemetry")
        return
    print(f"{where}: rates disagreed once; measuring again")
    t.check(attempt(), f"{where}: group rates within 20 % of telemetry's counters")


def run_not_a_terminal(prefix):
    """The live view with standard output not a terminal: an error, exit 1."""
    p = subprocess.run([sys.executable, TOP, "-f", prefix], capture_output=True, text=True,
                       timeout=30, stdin=subprocess.DEVNULL)
    t.check(p.returncode == 1 and "standard output is not a terminal; use --once" in p.stderr
            and p.stdout == "", f"live view on a pipe: exit 1 and the advice: {p.returncode} "
            f"{p.stderr!r}")


def run_other_instance(prefix):
    """--instance N where only instance 0 runs: the error names instance N, not the prefix
    as if no mcfan ran there (before: "no mcfan runs under file prefix 'P'", with mcfan
    running under P)."""
    p = subprocess.run([sys.executable, TOP, "-f", prefix, "--instance", "5", "--once"],
                       capture_output=True, text=True, timeout=30)
    t.check(p.returncode == 1 and
            f"mcfan-top: no mcfan instance 5 runs under file prefix '{prefix}': cannot "
            "connect to" in p.stderr and "dpdk_telemetry.v2:5" in p.stderr and
            "other telemetry sockets there: dpdk_telemetry.v2 (--instance N)" in p.stderr,
            f"--instance 5: exit 1 naming instance 5 and the socket there: {p.returncode} "
            f"{p.stderr!r}")


def run_once(prefix, tel):
    def attempt():
        t0, c0 = group_counters(tel)
        p = subprocess.run([sys.executable, TOP, "-f", prefix, "--once", "--interval", "2"],
                           capture_output=True, text=True, timeout=60,
                           env={**os.environ, "COLUMNS": "160"})
        t1, c1 = group_counters(tel)
        t.check_eq(p.returncode, 0, f"--once exit status (stderr {p.stderr!r})")
        s = parse(p.stdout)
        t.check(f"prefix {prefix}" in s["header"] and "interval 2s" in s["header"],
                f"--once header: {s['header']!r}")
        return check_frame(s, "--once", (t0, c0, t1, c1))
    rates_consistent(attempt, "--once")


def header_of(text):
    return text.splitlines()[0] if text else ""


def uptime(text):
    m = re.search(r" up (\S+) ", header_of(text))
    return m.group(1) if m else None


def body(text):
    """The screen without the status line."""
    return "\n".join(text.splitlines()[:-1]) if text else ""


def run_live(prefix, tel, mc, tmp, eal, procs):
    status = os.path.join(tmp, "status")
    shell = f"{shlex.join([sys.executable, TOP, '-f', prefix, '--interval', '1'])}; " \
            f"echo $? > {shlex.quote(status)}; sleep 60"
    tmux("new-session", "-d", "-s", SESSION, "-x", "160", "-y", "50", shell)
    text = wait_for(lambda x: "GROUPS 6" in x and "(rates after" not in x, 20)
    s = parse(text)
    t.check(f"prefix {prefix}" in s["header"] and f"pid {mc.pid}" in s["header"] and
            "interval 1s" in s["header"] and "sort rate" in s["header"],
            f"live: header names the instance, interval and sort: {s['header']!r}")
    t.check(re.search(r"^port 0 net_pcap0: rx \d+ \(\S+/s\)  imissed \d+  kernel_drops \d+",
                      text, re.M) is not None, "live: port line with rx and kernel drops")

    # rates: a span of telemetry readings brackets the interval of the frame shown
    def attempt():
        u0 = uptime(pane())
        t0, c0 = group_counters(tel)
        wait_for(lambda x: uptime(x) not in (None, u0), 10)     # a refresh after t0 ...
        u1 = uptime(pane())
        text = wait_for(lambda x: uptime(x) not in (None, u0, u1), 10)   # ... and the next
        t1, c1 = group_counters(tel)
        s = parse(text)
        ok = check_frame(s, "live", (t0, c0, t1, c1))
        rates = [-1.0 if g["frames_rate"] is None else g["frames_rate"] for g in s["groups"]]
        t.check(rates == sorted(rates, reverse=True),
                f"live: sort rate shows frames/s highest first: {rates}")
        by = {g["name"]: g["frames_rate"] for g in s["groups"]}
        t.check(by.get("239.9.9.4:3999", 0) > by.get("239.9.9.1:3999", 0),
                f"live: 239.9.9.4 (4 parts) above 239.9.9.1 (1 part): {by}")
        return ok
    rates_consistent(attempt, "live")

    # the numbers move while running, and stand still after p
    a = body(pane())
    text = wait_for(lambda x: body(x) != a, 5)
    t.check(body(text) != a, "live: the screen changes from one refresh to the next")
    keys("p")
    text = wait_for(lambda x: "[PAUSED]" in header_of(x), 5)
    t.check("[PAUSED]" in header_of(text), "live: p shows [PAUSED]")
    a = body(pane())
    time.sleep(2.5)
    b = body(pane())
    t.check(a == b and a != "", "live: while paused two captures 2.5 s apart are equal")
    keys("p")
    text = wait_for(lambda x: "[PAUSED]" not in header_of(x), 5)
    t.check("[PAUSED]" not in header_of(text), "live: p again resumes")
    text = wait_for(lambda x: body(x) != b and "[PAUSED]" not in x, 5)
    t.check(body(text) != b, "live: after resuming the numbers move again")

    # s: rate -> name -> drops -> rate
    keys("s")
    text = wait_for(lambda x: "sort name" in header_of(x), 5)
    s = parse(text)
    t.check_eq([g["name"] for g in s["groups"]], NAME_ORDER,
               "live: sort name orders by address (IPv4, then IPv6), then port")
    t.check("GROUPS 6, sorted by name" in text, "live: the group table says sorted by name")
    keys("s")
    text = wait_for(lambda x: "sort drops" in header_of(x), 5)
    s = parse(text)
    key = [(g["copy_drops_rate"] or 0.0, g["copy_drops"]) for g in s["groups"]]
    t.check("sort drops" in header_of(text) and key == sorted(key, reverse=True),
            f"live: sort drops orders by copy_drops/s, then copy_drops: {key}")
    keys("s")
    text = wait_for(lambda x: "sort rate" in header_of(x), 5)
    t.check("sort rate" in header_of(text), "live: a third s comes back to sort rate")

    # + and -: the interval shown
    keys("+")
    text = wait_for(lambda x: "interval 2s" in header_of(x), 5)
    t.check("interval 2s" in header_of(text), f"live: + makes the interval 2s: "
            f"{header_of(text)!r}")
    u = uptime(text)
    text = wait_for(lambda x: uptime(x) not in (None, u), 5)   # the refresh due before +
    u = uptime(text)
    time.sleep(1.3)
    t.check_eq(uptime(pane()), u, "live: at 2 s no refresh 1.3 s after the last one")
    keys("-")
    keys("-")
    text = wait_for(lambda x: "interval 0.5s" in header_of(x), 5)
    t.check("interval 0.5s" in header_of(text), "live: - - makes it 0.5s")
    keys("+")
    wait_for(lambda x: "interval 1s" in header_of(x), 5)

    # mcfan exits while shown: the message, the last numbers stay, top goes on; q quits 0
    mc.signal(signal.SIGINT)
    t.check_eq(mc.wait(30), 0, "mcfan exit status after SIGINT")
    text = wait_for(lambda x: "has exited" in x, 10)
    last = text.splitlines()[-1] if text else ""
    t.check(f"mcfan (pid {mc.pid}) under prefix '{prefix}' has exited" in last,
            f"live: the status line says mcfan exited: {last!r}")
    t.check_eq(sorted(parse(text)["lcores"]), sorted(ROLES),
               "live: the last reading stays on the screen")
    time.sleep(1.5)
    t.check(not os.path.exists(status) or open(status).read().strip() == "",
            "live: mcfan-top still runs after mcfan exited")

    # a new mcfan on the same prefix: mcfan-top connects again and shows it
    mc2 = t.McfanProcess(eal, ["--groups", ",".join(GROUPS), "--duration", "60"])
    procs.append(mc2)
    text = wait_for(lambda x: f"pid {mc2.pid}" in header_of(x) and "(rates after" not in x
                    and "has exited" not in x, 30)
    s = parse(text)
    t.check(f"pid {mc2.pid}" in header_of(text) and sorted(s["lcores"]) == sorted(ROLES) and
            len(s["groups"]) == len(GROUPS) and "has exited" not in text,
            f"live: a new mcfan on the prefix is shown (pid {mc2.pid}): {header_of(text)!r}")
    keys("q")
    for _ in range(100):
        if os.path.exists(status) and open(status).read().strip():
            break
        time.sleep(0.1)
    rc = open(status).read().strip() if os.path.exists(status) else None
    t.check_eq(rc, "0", "live: q exits 0")
    tmux("kill-session", "-t", SESSION, check=False)


def run_small(prefix, tmp):
    """A 50x6 terminal: a notice instead of a frame; q still quits 0."""
    sess = SESSION + "-small"
    status = os.path.join(tmp, "status-small")
    shell = f"{shlex.join([sys.executable, TOP, '-f', prefix])}; " \
            f"echo $? > {shlex.quote(status)}; sleep 60"
    tmux("new-session", "-d", "-s", sess, "-x", "50", "-y", "6", shell)
    try:
        text = wait_for(lambda x: "too small" in x, 15, sess)
        t.check("terminal too small: 50x6" in text and "needs 60x8" in text,
                f"small: the notice names the size: {text!r}")
        keys("q", sess)
        for _ in range(50):
            if os.path.exists(status) and open(status).read().strip():
                break
            time.sleep(0.1)
        t.check_eq(open(status).read().strip() if os.path.exists(status) else None, "0",
                   "small: q exits 0")
    finally:
        tmux("kill-session", "-t", sess, check=False)


def run_wrong_prefix(tmp):
    prefix = f"mcfan-top-none-{os.getpid()}"
    path = os.path.join(t.runtime_dir(["--file-prefix", prefix]), "dpdk_telemetry.v2")
    p = subprocess.run([sys.executable, TOP, "-f", prefix, "--once"], capture_output=True,
                       text=True, timeout=30)
    t.check_eq(p.returncode, 1, "wrong prefix --once: exit status")
    t.check(f"no mcfan runs under file prefix '{prefix}'" in p.stderr and path in p.stderr,
            f"wrong prefix --once: the error names the socket path: {p.stderr!r}")
    # the live mode says the same before it takes the terminal
    sess = SESSION + "-wrong"
    status = os.path.join(tmp, "status-wrong")
    shell = f"{shlex.join([sys.executable, TOP, '-f', prefix])}; " \
            f"echo $? > {shlex.quote(status)}; sleep 60"
    tmux("new-session", "-d", "-s", sess, "-x", "160", "-y", "10", shell)
    try:
        text = wait_for(lambda x: "no mcfan" in x, 15, sess)
        t.check(path in text.replace("\n", ""), f"wrong prefix live: message on the terminal: "
                f"{text!r}")
        for _ in range(50):
            if os.path.exists(status) and open(status).read().strip():
                break
            time.sleep(0.1)
        t.check_eq(open(status).read().strip() if os.path.exists(status) else None, "1",
                   "wrong prefix live: exit status")
    finally:
        tmux("kill-session", "-t", sess, check=False)
    # -f that cannot be mcfan's file prefix (mcfan refuses it too: test_readers_fix.py)
    rule = ("give the name of mcfan's EAL --file-prefix: a directory name under DPDK's runtime "
            "directory (not empty, no '/' or '%', not . or ..)")
    for val, words in (("../../etc", "'../../etc' has a '/' (it is not a path): " + rule),
                       ("a/b", "'a/b' has a '/'"),
                       ("", "'' is empty: " + rule),
                       ("..", "'..' is a directory of the path itself"),
                       ("a%b", "'a%b' has a '%' (DPDK's EAL refuses it)"),
                       ("feed1\r", "file prefix of 6 characters: has a control character "
                        "(0x0d, character 6; a line end of the file it was read from?): " + rule),
                       ("x" * 76, "'" + "x" * 40 + "...': 76 characters, more than the 75 an mcfan can run under "
                        "(its telemetry socket /var/run/dpdk/PREFIX/dpdk_telemetry.v2 must fit "
                        "a socket path of 108 bytes)")):
        p = subprocess.run([sys.executable, TOP, "-f", val, "--once"], capture_output=True,
                           text=True, timeout=30)
        t.check(p.returncode == 2 and f"argument -f/--file-prefix: {words}" in p.stderr,
                f"-f {val[:20]!r}: exit 2 naming it: {p.returncode} {p.stderr.strip()[-300:]!r}")
    for args, words in ((["--interval", "0"], "'0' is outside 0.1 .. 3600 seconds"),
                        (["--interval", "abc"], "'abc' is not a number of seconds"),
                        # float() takes these, the documented decimal does not
                        (["--interval", "1_0"], "'1_0' is not a number of seconds"),
                        (["--interval", " 1"], "' 1' is not a number of seconds"),
                        (["--interval", "1e0"], "'1e0' is not a number of seconds"),
                        (["--instance", "-1"], "'-1' is negative"),
                        # DPDK numbers the sockets :1, :2 ... with a C int (before: any
                        # number was taken, and the connect failed, exit 1)
                        (["--instance", "2147483648"], "argument -i/--instance: '2147483648' is "
                         "more than 2147483647: DPDK numbers the telemetry sockets of a "
                         "prefix's processes dpdk_telemetry.v2:1, :2 ... with a C int"),
                        (["--instance", "9" * 80], "argument -i/--instance: '" + "9" * 20 +
                         "... (80 digits)' is more than 2147483647"),
                        (["-f", "x" * 75, "--instance", "2147483647"],
                         "argument -i/--instance: '2147483647': its socket "
                         f"{t.runtime_dir(['--file-prefix', 'x' * 75])}/dpdk_telemetry.v2:"
                         "2147483647 is 118 bytes, more than a socket path holds (107): no "
                         "process of this prefix has it"),
                        (["--sort", "size"], "invalid choice: 'size'")):
        p = subprocess.run([sys.executable, TOP, "-f", prefix, *args], capture_output=True,
                           text=True, timeout=30)
        t.check(p.returncode == 2 and words in p.stderr,
                f"{' '.join(args)}: exit 2 naming the value: {p.returncode} {p.stderr!r}")
    # every key that works is in --help (before: Q, = and _ worked unnamed)
    p = subprocess.run([sys.executable, TOP, "--help"], capture_output=True, text=True,
                       timeout=30)
    helptext = " ".join(p.stdout.split())
    t.check("Keys: s sort groups (rate, name, drops), p pause, + or = longer interval, - or _ "
            "shorter interval, q or Q quit." in helptext, f"--help names every key: {helptext!r}")


def run(tmp):
    frames = []
    for g, w in WEIGHTS.items():
        addr, port = g.rsplit(":", 1)
        for _ in range(w * 4):
            frames.append(t.udp6_frame(addr.strip("[]"), int(port)) if addr.startswith("[")
                          else t.udp4_frame(addr, int(port)))
    frames.append(t.udp4_frame("239.5.5.5", 3999))                      # unknown_group
    frames.append(t.eth(b"\x02\x00\x00\x00\x00\x02", 0x0800,             # not_multicast
                        t.ipv4("198.18.0.1", "198.18.0.2", 17, t.udp(1, 3999, b"u" * 18))))
    pcap = os.path.join(tmp, "top.pcap")
    t.write_pcap(pcap, frames)
    eal = t.eal_args("top", extra=["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"])
    eal[eal.index("-l"):eal.index("-l") + 2] = ["--lcores", "0@0,1@1,2@0"]
    prefix = t.file_prefix(eal)
    mc = t.McfanProcess(eal, ["--groups", ",".join(GROUPS), "--duration", "120"])
    procs = [mc]
    tel = None
    try:
        tel = t.Telemetry(t.telemetry_socket(eal), proc=mc)
        if not t.check(tel.wait_ready() is not None, "mcfan's telemetry answers"):
            print(mc.stderr())
            return
        run_wrong_prefix(tmp)
        run_other_instance(prefix)
        run_not_a_terminal(prefix)
        run_once(prefix, tel)
        run_small(prefix, tmp)
        run_live(prefix, tel, mc, tmp, eal, procs)
    finally:
        if tel is not None:
            tel.close()
        for p in procs:
            p.signal(signal.SIGINT)
            p.wait(30)
        tmux("kill-session", "-t", SESSION, check=False)
        t.remove_runtime_dir(eal)


def top_closed_stdout(cmd):
    """cmd with its standard output a pipe whose reader has gone before it writes (as
    `| head -1` once head has its line): a CompletedProcess without stdout."""
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run(cmd, stdout=w, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(w)
    return p


def once_against(name, app, interval, closed_stdout=False, vdevs=("net_null0",)):
    """mcfan (vdevs, net_null0 alone by default; options app) with its telemetry ready,
    then mcfan-top -f PREFIX
    --once --interval interval against it (closed_stdout: into a pipe no one reads,
    top_closed_stdout()): (mcfan's EAL args, its process, mcfan-top's CompletedProcess, or
    None when mcfan's telemetry never answered: checked). mcfan is stopped and its runtime
    directory removed before the return."""
    eal = t.eal_args(name, extra=[a for v in vdevs for a in ("--vdev", v)])
    mc = t.McfanProcess(eal, app)
    p = None
    try:
        tel = t.Telemetry(t.telemetry_socket(eal), proc=mc)
        ready = tel.wait_ready() is not None
        tel.close()
        cmd = [sys.executable, TOP, "-f", t.file_prefix(eal), "--once", "--interval",
               interval]
        if t.check(ready, f"{name}: mcfan's telemetry answers") and closed_stdout:
            p = top_closed_stdout(cmd)
        elif ready:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    finally:
        mc.signal(signal.SIGINT)
        mc.wait(30)
        t.remove_runtime_dir(eal)
    return eal, mc, p


def run_once_exit():
    """mcfan exits inside the --once interval: the documented line naming its pid and
    prefix, exit 1 (a trial finding: a raw 'Broken pipe')."""
    eal, mc, p = once_against("top-exit", ["--groups", "239.9.9.1:3999", "--duration", "4"],
                              "6")
    if p is None:
        return
    t.check_eq(p.returncode, 1, f"--once exit: exit status ({p.stderr!r})")
    t.check(f"mcfan-top: mcfan (pid {mc.pid}) under prefix '{t.file_prefix(eal)}' has "
            "exited during the --once interval; nothing to show (" in p.stderr,
            f"--once exit: the documented line: {p.stderr!r}")


def run_no_msacc():
    """mcfan --no-msacc: every lcore is shown, the data lcores without shares and why (before:
    exit 1, "/mcfan/msacc,1 answers null: mcfan is not running its data path")."""
    _, _, p = once_against("top-nomsacc", ["--groups", "239.9.9.1:3999", "--duration", "30",
                                           "--no-msacc"], "0.5")
    if p is None:
        return
    t.check_eq(p.returncode, 0, f"--no-msacc: exit status ({p.stderr!r})")
    rows = [ln for ln in p.stdout.splitlines() if re.match(r"\s+[01] ", ln)]
    t.check(len(rows) == 2 and "%" in rows[0] and rows[1].endswith(
        "(no accounting: off since the start, --no-msacc)"),
        f"--no-msacc: the control lcore's shares, lcore 1 without: {rows}")


def run_once_closed_pipe():
    """--once into a pipe whose reader has gone (mcfan-top --once | head -1): exit 0 and
    nothing on standard error, as mcfan on a closed standard output (before: a Python
    traceback ending in "BrokenPipeError: [Errno 32] Broken pipe", exit 1)."""
    _, _, p = once_against("top-pipe", ["--groups", "239.9.9.1:3999", "--duration", "30"],
                           "0.3", closed_stdout=True)
    if p is None:
        return
    t.check(p.returncode == 0 and p.stderr == "",
            f"--once into a closed pipe: exit 0, no traceback: {p.returncode} {p.stderr!r}")



def run_per_group_engines():
    """Engines per group (--group-engine): the lcore's ENGINES are those `show engines` and
    the report name, the worker engine it runs now, `per-group` when its groups go to
    outputs of several engine instances (before: `fanout+count`, the --worker-engine it
    started with, from /mcfan/lcores, while the copies of 239.9.9.2 went to pcap); with
    --worker-engine pcap alone the engine is pcap."""
    with tempfile.TemporaryDirectory(prefix="mcfan-top-pcap-") as cap:
        for what, app, want in (
                ("per-group", ["--group-engine", f"239.9.9.2:3999=pcap:{cap}"],
                 "fanout+per-group"),
                ("pcap alone", ["--worker-engine", f"pcap:{cap}"], "fanout+pcap")):
            _, _, p = once_against("top-engines", ["--groups", "239.9.9.1:3999,239.9.9.2:3999",
                                                   "--duration", "30", *app], "0.3")
            if p is None:
                continue
            rows = [ln.split() for ln in p.stdout.splitlines() if re.match(r"\s+1 rx\+worker ", ln)]
            t.check(p.returncode == 0 and len(rows) == 1 and rows[0][3] == want,
                    f"engines {what}: lcore 1 shows {want}: {p.returncode} {rows} "
                    f"{p.stderr[-300:]!r}")


def run_output_only():
    """A port used only as a tx output (docs/delivery.md "Port roles"): its line ends with
    `output-only (not polled)`; the input port's does not."""
    what = "output-only port"
    _, _, p = once_against("top-out", ["--groups", "239.9.9.1:3999", "--duration", "30",
                                       "--worker-engine", "tx:1"], "0.3",
                           vdevs=("net_null0", "net_null1"))
    if p is None:
        return
    lines = {m.group(1): ln for ln in p.stdout.splitlines()
             for m in [re.match(r"port (\d) net_null\d: ", ln)] if m}
    t.check(p.returncode == 0 and lines.get("1", "").endswith("  output-only (not polled)")
            and "output-only" not in lines.get("0", "-"),
            f"{what}: port 1's line says output-only, port 0's not: {p.returncode} {lines} "
            f"{p.stderr[-300:]!r}")


def run_pages_change():
    """mcfan-top's reading of /mcfan/groups while the console leaves groups between two of its
    pages (a real mcfan, 200 groups on 2 pages; the leave is typed just after page 0 came):
    the sample is all from one group table, the 100 groups left (before: page 1 no longer
    existed, answered null, and mcfan-top took mcfan for gone)."""
    import importlib.machinery
    import importlib.util
    what = "pages change"
    loader = importlib.machinery.SourceFileLoader("mcfan_top", TOP)
    top = importlib.util.module_from_spec(importlib.util.spec_from_loader("mcfan_top", loader))
    loader.exec_module(top)
    eal = t.eal_args("top-pages", extra=["--vdev", "net_null0"])
    p = subprocess.Popen([t.mcfan_path(), *eal, "--", "--groups", "239.2.0.0-199:5000", "-i"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        tel = t.Telemetry(t.telemetry_socket(eal))
        if not t.check(tel.wait_ready() is not None, f"{what}: mcfan's telemetry answers"):
            return
        client = top.Client(t.telemetry_socket(eal))
        plain = client.query
        typed = []

        def query(cmd):
            reply = plain(cmd)
            if cmd == "/mcfan/groups,0" and not typed:
                typed.append(cmd)
                p.stdin.write("leave 239.2.0.100-199:5000\nwait 0\n")
                p.stdin.flush()
                while "mcfan> wait 0" not in p.stdout.readline():
                    pass
            return reply
        client.query = query
        try:
            s = top.sample(client)
            got = set(zip(s["groups"]["group"], s["groups"]["udp_port"]))
            t.check(typed and got == {(f"239.2.0.{i}", 5000) for i in range(100)},
                    f"{what}: the sample has the 100 groups joined after the leave, once "
                    f"each: {len(s['groups']['group'])} rows")
        except top.Gone as e:
            t.check(False, f"{what}: mcfan-top took mcfan for gone: {e}")
        client.close()
        tel.close()
    finally:
        try:
            p.stdin.write("quit\n")
            p.stdin.close()
        except OSError:
            pass
        try:
            p.wait(60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        t.remove_runtime_dir(eal)

def main():
    t.mcfan_path()
    if shutil.which("tmux") is None:
        print("test_top: tmux not installed (test/install-deps.sh installs it): skip")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="mcfan-top-") as tmp:
        run(tmp)
    run_once_exit()
    run_no_msacc()
    run_once_closed_pipe()
    run_per_group_engines()
    run_output_only()
    run_pages_change()
    t.finish("test_top")


if __name__ == "__main__":
    main()
