#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The console on a terminal, as a person types it (docs/console.md): mcfan -i runs in a tmux
session; keys go in with `tmux send-keys` (Tab completion, ?, help, history, an en dash, a NUL,
Ctrl-U, Ctrl-Z, function keys, Home and End, a line past 512 characters, Ctrl-C, quit) and the pane is read with `tmux capture-pane`.
Skips (77) without tmux.
Usage: test_console_tty.py MCFAN_BINARY"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import mcfantest as t

SESSION = f"mcfan-tty-{os.getpid()}"
PROMPT = "mcfan> "


def tmux(*args, check=True):
    return subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=20,
                          check=check)


def pane():
    """The whole pane with its scrollback, trailing blanks dropped."""
    out = tmux("capture-pane", "-p", "-J", "-t", SESSION, "-S", "-3000", check=False).stdout
    return "\n".join(ln.rstrip() for ln in out.splitlines()).rstrip("\n")


def wait_for(pred, timeout=15.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = pane()
        if pred(text):
            return text
        time.sleep(0.1)
    return pane()


def last_line(text):
    lines = text.splitlines()
    return lines[-1] if lines else ""


def keys(*k):
    tmux("send-keys", "-t", SESSION, *k)


def typed(text):
    """Literal text, no key names."""
    tmux("send-keys", "-t", SESSION, "-l", text)


def run(tmp):
    pcap = os.path.join(tmp, "rr.pcap")
    t.write_pcap(pcap, [t.udp4_frame(f"239.9.9.{1 + i % 4}", 3999) for i in range(400)])
    report = os.path.join(tmp, "report.json")
    status = os.path.join(tmp, "status")
    eal = t.eal_args("console-tty", extra=["--vdev",
                                           f"net_pcap0,rx_pcap={pcap},infinite_rx=1"])
    cmd = [t.mcfan_path(), *eal, "--", "--groups", "239.9.9.1-2:3999", "--report-json", report,
           "-i"]
    shell = f"{shlex.join(cmd)} 2>{shlex.quote(os.path.join(tmp, 'stderr'))}; " \
            f"echo $? > {shlex.quote(status)}; sleep 60"
    tmux("new-session", "-d", "-s", SESSION, "-x", "220", "-y", "60", shell)
    try:
        text = wait_for(lambda s: last_line(s) == PROMPT.rstrip(), 30)
        t.check("help lists the commands, Tab completes" in text, "tty: banner shown")
        if not t.check(last_line(text).startswith("mcfan>"), "tty: prompt 'mcfan> ' shown"):
            print(text)
            return

        # Tab completes a word, then a second word: "sh<Tab>cou<Tab>" is "show counters "
        typed("sh")
        keys("Tab")
        text = wait_for(lambda s: last_line(s) == "mcfan> show")
        t.check_eq(last_line(text), "mcfan> show", "tty: Tab completes 'sh' to 'show '")
        typed("cou")
        keys("Tab")
        text = wait_for(lambda s: last_line(s) == "mcfan> show counters")
        t.check_eq(last_line(text), "mcfan> show counters", "tty: Tab completes 'cou'")
        keys("Enter")
        text = wait_for(lambda s: "frames: rx" in s and last_line(s) == "mcfan>")
        t.check("frames: rx" in text and " = delivered " in text, "tty: show counters answers")

        # Tab on an empty word lists the choices with their help
        typed("set fanout all ")
        keys("Tab")
        text = wait_for(lambda s: "replicate" in s and last_line(s).startswith("mcfan> set"))
        t.check(" partition " in text and " replicate " in text,
                "tty: Tab lists partition and replicate")
        keys("C-c")
        text = wait_for(lambda s: last_line(s) == "mcfan>")
        t.check_eq(last_line(text), "mcfan>", "tty: Ctrl-C clears the line")

        # ? lists what may come next, without changing the line
        typed("show port ")
        keys("?")
        text = wait_for(lambda s: "xstats" in s and last_line(s).startswith("mcfan> show port"))
        t.check("stats" in text and "xstats" in text, "tty: ? lists stats and xstats")
        keys("C-c")

        # help and help <command>
        typed("help")
        keys("Enter")
        text = wait_for(lambda s: "quit " in s and last_line(s) == "mcfan>")
        for c in ("show msacc <lcore>", "join <groups> workers <list>",
                  "set fanout <groups> partition|replicate", "msacc start <ms>", "quit"):
            t.check(c in text, f"tty: help lists '{c}'")
        typed("help join")
        keys("Enter")
        text = wait_for(lambda s: "example: join [ff15::1]:5000 workers 2" in s)
        t.check("example: join 239.9.9.11-20:3999" in text, "tty: help join shows examples")

        # a join, then the history: Up brings it back, Enter runs it again -> already joined
        typed("join 239.9.9.3:3999")
        keys("Enter")
        text = wait_for(lambda s: "joined 239.9.9.3:3999" in s)
        t.check("joined 239.9.9.3:3999: counter slot 2" in text, "tty: join works")
        keys("Up")
        text = wait_for(lambda s: last_line(s) == "mcfan> join 239.9.9.3:3999")
        t.check_eq(last_line(text), "mcfan> join 239.9.9.3:3999", "tty: Up recalls the join")
        keys("Enter")
        text = wait_for(lambda s: "is already joined" in s)
        t.check("error: join: group 239.9.9.3:3999 is already joined" in text,
                "tty: the repeated join is refused")

        # an en dash pasted into a range: refused whole, not run without it
        typed("join 239.9.9.5\u2013239.9.9.6")
        keys("Enter")
        text = wait_for(lambda s: "non-ASCII byte" in s)
        t.check("error: non-ASCII byte 0xe2 at column 15" in text, "tty: en dash refused")
        # a NUL typed inside a line: refused whole with its column, as on a pipe (the
        # editor would drop it and run the join)
        typed("join 239.9.9.12")
        keys("-H", "00")
        keys("Enter")
        text = wait_for(lambda s: "control character 0x00" in s)
        t.check("error: control character 0x00 at column 16 (Ctrl-@, not a key of the line "
                "editor; Ctrl-C clears a line); nothing was run" in text,
                "tty: a NUL typed in a line refuses it, naming the byte and its column")
        t.check("joined 239.9.9.12" not in text, "tty: the join with a NUL in it did not run")
        # Ctrl-U clears the line, as in a shell (no key of DPDK's editor: mcfan gives it
        # as Ctrl-A, Ctrl-K), also a line a bad byte was typed in; what follows runs
        typed("join 239.9.9.13")
        keys("-H", "00")
        keys("C-u")
        text = wait_for(lambda s: last_line(s) == "mcfan>")
        t.check_eq(last_line(text), "mcfan>", "tty: Ctrl-U clears the line")
        typed("show gr")
        keys("Left", "Left", "C-u")
        text = wait_for(lambda s: last_line(s) == "mcfan>")
        t.check_eq(last_line(text), "mcfan>", "tty: Ctrl-U clears it with the cursor inside")
        typed("show groups")
        keys("Enter")
        text = wait_for(lambda s: "239.9.9.3:3999" in s.split("mcfan> show groups")[-1])
        t.check("control character 0x15" not in text and
                text.count("control character 0x00") == 1 and "joined 239.9.9.13" not in text,
                "tty: after Ctrl-U nothing of the cleared line runs or is refused (the one "
                "NUL refusal is the line before's)")
        # Ctrl-Z is no key of DPDK's editor (mcfan's terminal has no job control): refused
        # the same way as a NUL, not dropped
        typed("show gr")
        keys("C-z")
        keys("Enter")
        text = wait_for(lambda s: "control character 0x1a" in s)
        t.check("error: control character 0x1a at column 8 (Ctrl-Z, not a key of the line "
                "editor; Ctrl-C clears a line); nothing was run" in text,
                "tty: Ctrl-Z refuses the line, named as the key")
        # function keys the editor has not (F1 is ESC O P, F12 ESC [ 2 4 ~, F5 ESC [ 1 5 ~)
        # and Alt+x are ignored, not typed into the line as 'OP~'; Home and End move as
        # Ctrl-A and Ctrl-E
        typed("how")
        keys("F1", "F12", "M-x", "Home")
        typed("s")
        keys("End", "F5")
        typed(" counters")
        text = wait_for(lambda s: last_line(s) == "mcfan> show counters")
        t.check_eq(last_line(text), "mcfan> show counters",
                   "tty: F1, F12, F5, Alt+x leave nothing in the line; Home and End move")
        keys("Enter")
        text = wait_for(lambda s: s.count("frames: rx") >= 2 and last_line(s) == "mcfan>")
        t.check_eq(text.count("frames: rx"), 2, "tty: the line with function keys in it runs")
        t.check("OP~" not in text and "unknown command" not in text,
                "tty: no function key's bytes reached the parser")
        # the arrows of a terminal in application mode (SS3: ESC O A is Up) recall history
        tmux("send-keys", "-t", SESSION, "-H", "1b", "4f", "41")
        text = wait_for(lambda s: last_line(s) == "mcfan> show counters")
        t.check_eq(last_line(text), "mcfan> show counters", "tty: ESC O A is Up")
        keys("C-c")
        # a line past the 512-character buffer: refused whole, its length counted as on a
        # pipe (the editor holds 512 of its characters)
        long_line = "join " + ",".join(f"239.8.0.{i}" for i in range(1, 60))
        typed(long_line)
        keys("Enter")
        text = wait_for(lambda s: "line too long" in s)
        t.check(f"error: line too long: {len(long_line)} characters, at most 512; nothing "
                "was run" in text,
                f"tty: a line of {len(long_line)} characters is refused, its length named as "
                "on a pipe")
        typed("show groups")
        keys("Enter")
        text = wait_for(lambda s: "of 3 groups" in s)
        t.check("3 of 3 groups" in text and "239.8.0." not in text.split("show groups")[-1],
                "tty: nothing of the refused lines was joined")

        # wait typed on a terminal: refused (before: it held every key, Ctrl-C and quit too,
        # for up to 10 minutes; docs/bad-input.md row 367); the next line runs at once
        typed("wait 600000")
        keys("Enter")
        text = wait_for(lambda s: "error: wait is for" in s and last_line(s) == "mcfan>")
        t.check("error: wait is for command files (--cmdline-file) and pipes, not typed at a "
                "terminal: it would hold every key, quit too, until it ends" in text,
                "tty: wait typed on a terminal is refused")
        typed("show config")
        keys("Enter")
        text = wait_for(lambda s: "burst:" in s and last_line(s) == "mcfan>", 5)
        t.check("burst:" in text.split("wait 600000")[-1], "tty: the next line runs at once")

        # quit: the same stop as SIGINT, with the report
        typed("quit")
        keys("Enter")
        wait_for(lambda s: "mbufs outside their pool" in s, 30)
        for _ in range(100):
            if os.path.exists(status) and open(status).read().strip():
                break
            time.sleep(0.1)
        text = pane()
        t.check("==== mcfan report" in text, "tty: quit prints the final report")
        rc = open(status).read().strip() if os.path.exists(status) else None
        t.check_eq(rc, "0", "tty: exit status after quit")
        if t.check(os.path.exists(report), "tty: JSON report written"):
            rep = json.load(open(report))
            t.check(t.conservation(rep), "tty: conservation at exit")
            t.check_eq(sorted(g["group"] for g in rep["groups"]),
                       ["239.9.9.1", "239.9.9.2", "239.9.9.3"], "tty: groups at exit")
        t.remove_runtime_dir(eal)
    finally:
        tmux("kill-session", "-t", SESSION, check=False)


def main():
    t.mcfan_path()
    if shutil.which("tmux") is None:
        print("test_console_tty: tmux not installed (test/install-deps.sh installs it): skip")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="mcfan-tty-") as tmp:
        run(tmp)
    t.finish("test_console_tty")


if __name__ == "__main__":
    main()
