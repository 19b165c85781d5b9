#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""mcfan says at start, in one line, whether dpdk-dumpcap and dpdk-pdump can attach
(docs/capture.md), for each way of starting EAL that keeps them out:

  --no-huge --in-memory  mcfan passes --no-shconf (no shared runtime directory)
  --no-huge --no-shconf  the same line
  --no-huge              a shared runtime directory but no hugepage files: the --no-huge line,
                         and dpdk-dumpcap -D against that mcfan does fail
  hugepages --in-memory  the --in-memory line
  hugepages --huge-unlink  the --huge-unlink line, and dpdk-dumpcap -D does fail
  hugepages, and hugepages --huge-unlink=existing: "may attach", and dpdk-dumpcap -D does list
                         mcfan's port (the line is true both ways); after the run no hugepage
                         file of its prefix is left in the mount (mcfan removes them at exit
                         and says so; before, they and their pages stayed)
  hugepages --huge-unlink=never: "may attach", and the files are kept at exit, as asked
  mcfan as a secondary of a running mcfan (--proc-type secondary or auto): refused right
                         after EAL, exit 2, naming the primary; the primary goes on
  hugepages --socket-limit 16 / --legacy-mem -m 16: the pool's failure names that cap to
                         raise and the hugepages free, not "reserve more hugepages"

The hugepage runs get 64 reserved 2 MiB pages and a hugetlbfs mount of their own, given back
and unmounted after. Usage: test_capture.py MCFAN_BINARY. Exit 77 (skip) when not root.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

import mcfantest as t

ID = os.getpid()
NR_PATH = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
HUGE_PAGES = 64          # 128 MiB for the hugepage runs (mcfan takes -m 96)
CANNOT = "dpdk-dumpcap and dpdk-pdump cannot attach: "
MAY = "dpdk-dumpcap/dpdk-pdump may attach"


def eal(name, mem, flags, last=False):
    """EAL options with flags after the memory options, or last (just before "--")."""
    rest = ["--file-prefix", f"{t.PREFIX}-cap-{name}-{ID}", "--no-pci", "--log-level",
            "lib.eal:warning", "--vdev", "net_null0"]
    if last:
        return ["-l", "0-1", *mem, *rest, *flags]
    return ["-l", "0-1", *mem, *flags, *rest]


def dumpcap_list(prefix):
    """dpdk-dumpcap -D against a running mcfan: (returncode, output)."""
    r = subprocess.run(["dpdk-dumpcap", f"--file-prefix={prefix}", "-D"], capture_output=True,
                       text=True, timeout=30)
    return r.returncode, r.stdout + r.stderr


def hugepage_files(huge, e):
    """The hugepage files of run e's prefix in the mount huge (PREFIXmap_*)."""
    return [f for f in os.listdir(huge) if f.startswith(t.file_prefix(e) + "map_")]


def run(name, mem, flags, want, attachable, last=False, huge=None, kept=False):
    """One mcfan run; its capture line must be the one wanted, exactly once; with dumpcap
    present, dpdk-dumpcap -D must succeed exactly when mcfan says it may attach. huge: the
    hugetlbfs mount of a hugepage run, whose files of the run's prefix must be gone after it
    (kept: still there, --huge-unlink=never; removed here after the check)."""
    tag = f"[{name}]"
    e = eal(name, mem, flags, last)
    p = t.McfanProcess(e, ["--groups", "239.9.9.1", "--duration", "8"])
    try:
        started = p.wait_line("running:", 30) is not None
        t.check(started, f"{tag} mcfan starts: {p.stderr()[-800:]}")
        if started and shutil.which("dpdk-dumpcap") is not None:
            rc, out = dumpcap_list(t.file_prefix(e))
            if attachable:
                t.check(rc == 0 and "net_null0" in out,
                        f"{tag} dpdk-dumpcap -D attaches and lists the port: rc {rc}: "
                        f"{out[-600:]}")
            else:
                t.check(rc != 0 and "net_null0" not in out,
                        f"{tag} dpdk-dumpcap -D cannot attach: rc {rc}: {out[-600:]}")
        p.signal(2)
        rc = p.wait(30)
    finally:
        if p.p.poll() is None:
            p.p.kill()
            p.p.wait()
        t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"{tag} exit: {p.stderr()[-600:]}")
    text = p.stdout() + "\n" + p.stderr()
    lines = [ln for ln in text.splitlines() if CANNOT in ln or MAY in ln]
    t.check_eq(len(lines), 1, f"{tag} one capture line at start: {lines}")
    t.check(len(lines) == 1 and re.search(want, lines[0]) is not None,
            f"{tag} the line says {want!r}: {lines}")
    before = text.find("running:")
    t.check(before < 0 or (lines and text.find(lines[0]) < before),
            f"{tag} the capture line comes before 'running:'")
    t.check(not os.path.exists(t.runtime_dir(e)), f"{tag} runtime directory removed")
    if huge is not None:
        # mcfan removes its hugepage files at exit (before: they stayed, and with them the
        # pages, until someone removed them), but with --huge-unlink=never
        files = hugepage_files(huge, e)
        if kept:
            t.check(len(files) > 0, f"{tag} --huge-unlink=never: the hugepage files kept")
        else:
            t.check_eq(files, [], f"{tag} no hugepage file of the run left in the mount")
        t.check(kept or re.search(r"removed the \d+ hugepage files? of this run from the "
                                  r"hugetlbfs mount: its pages are free again", p.stderr()),
                f"{tag} says it removed its hugepage files: {p.stderr()[-400:]!r}")
        for f in files:
            os.unlink(os.path.join(huge, f))
    print(f"capture: {tag} {lines[0] if lines else '(none)'}", flush=True)


def run_secondary(mem, huge):
    """mcfan started as a secondary process of a running (hugepage) mcfan, by --proc-type
    secondary and by --proc-type auto (any case): refused before EAL with one line naming the
    value and the tools that look into a running mcfan, exit 2, no report (before: "cannot
    create a pool of 8191 mbufs on socket 0: File exists; ... reserve more hugepages", exit
    1); the primary goes on (its telemetry answers, its run ends with status 0)."""
    tag = "[secondary]"
    e = eal("primary", mem, [])
    prefix = t.file_prefix(e)
    p = t.McfanProcess(e, ["--groups", "239.9.9.1", "--duration", "20"])
    try:
        if not t.check(p.wait_line("running:", 30) is not None,
                       f"{tag} the primary starts: {p.stderr()[-600:]}"):
            return
        for pt in ("secondary", "auto", "SECONDARY"):
            sec = ["-l", "0-1", f"--proc-type={pt}", "--file-prefix", prefix, "--no-pci",
                   "--log-level", "lib.eal:warning"]
            r = subprocess.run([t.mcfan_path(), *sec, "--", "--groups", "239.9.9.1",
                                "--duration", "1"], capture_output=True, text=True, timeout=60,
                               stdin=subprocess.DEVNULL)
            want = (f"mcfan: --proc-type {pt}: mcfan runs as EAL's primary process (it "
                    "configures its ports and makes its rings and pool)")
            want2 = ("; to look into a running mcfan use dpdk-telemetry.py -f PREFIX, mcfan-top, "
                     "mcfan-read or dpdk-dumpcap; leave --proc-type out (or give primary)\n")
            t.check(r.returncode == 2 and want in r.stderr and want2 in r.stderr and
                    "EAL:" not in r.stderr and "cannot create a pool" not in
                    r.stderr and "mcfan report" not in r.stdout,
                    f"{tag} --proc-type={pt}: refused, exit 2, the line: {r.returncode} "
                    f"{r.stderr[-500:]!r}")
        tel = t.Telemetry(t.telemetry_socket(e), proc=p)
        t.check(tel.wait_ready() is not None, f"{tag} the primary's telemetry still answers")
        tel.close()
        p.signal(2)
        t.check_eq(p.wait(30), 0, f"{tag} the primary ends cleanly: {p.stderr()[-400:]}")
    finally:
        if p.p.poll() is None:
            p.p.kill()
            p.p.wait()
        t.remove_runtime_dir(e)
        for f in hugepage_files(huge, e):
            os.unlink(os.path.join(huge, f))


def run_pool_cap(huge):
    """The mbuf pool that does not fit an EAL memory cap with hugepages to spare: the line
    names the cap to raise (--socket-limit, or -m / --socket-mem with --legacy-mem) and the
    hugepages free, not "reserve more hugepages (...) or raise --socket-mem", which left the
    same cap in place (a trial finding). Exit 1, no report, no hugepage file left."""
    for tag, flags, remedy in (
            ("--socket-limit", ["--socket-limit", "16"],
             "raise --socket-limit 16 (it caps the heap; hugepages: "),
            ("--socket-limit=", ["--socket-mem", "16", "--socket-limit=16"],
             "raise --socket-limit 16 (it caps the heap; hugepages: "),
            ("--legacy-mem", ["--legacy-mem", "-m", "16"],
             "raise -m or --socket-mem (with --legacy-mem EAL takes all its memory at start and "
             "never grows the heap; hugepages: ")):
        e = eal("poolcap", ["--huge-dir", huge, *flags], [])
        r = subprocess.run([t.mcfan_path(), *e, "--", "--groups", "239.9.9.1", "--duration",
                            "1"], capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
        t.remove_runtime_dir(e)
        line = next((ln for ln in r.stderr.splitlines() if "cannot create a pool" in ln), "")
        t.check(r.returncode == 1 and remedy in line and "reserve more hugepages" not in line
                and re.search(r"2048 kB: \d+ reserved, \d+ free", line) is not None and
                "mcfan report" not in r.stdout,
                f"[pool cap {tag}] exit 1 and the line names the cap: {r.returncode} {line!r}")
        t.check_eq(hugepage_files(huge, e), [], f"[pool cap {tag}] no hugepage file left")


def main():
    if os.geteuid() != 0:
        print("capture: SKIP: needs root (hugepages)", flush=True)
        sys.exit(77)
    nohuge = ["--no-huge", "-m", "512"]
    run("nohuge-inmem", nohuge, ["--in-memory"],
        re.escape(CANNOT + "EAL runs with --no-shconf (no shared runtime directory; mcfan "
                  "passes it for --no-huge --in-memory)"), False)
    run("nohuge-noshconf", nohuge, ["--no-shconf"],
        re.escape(CANNOT + "EAL runs with --no-shconf"), False)
    # last before "--": EAL writes its program name over the last option it parsed, so
    # mcfan reads a copy of the options from before rte_eal_init (this said --no-huge)
    run("nohuge-noshconf-last", nohuge, ["--no-shconf"],
        re.escape(CANNOT + "EAL runs with --no-shconf"), False, last=True)
    run("nohuge", nohuge, [],
        re.escape(CANNOT + "EAL runs with --no-huge (no hugepage files"), False)
    tmp = tempfile.mkdtemp(prefix="mcfan-capture-")
    huge = os.path.join(tmp, "huge")
    os.makedirs(huge)
    with open(NR_PATH) as f:
        nr0 = int(f.read())
    mounted = False
    try:
        with open(NR_PATH, "w") as f:
            f.write(str(nr0 + HUGE_PAGES))
        mounted = subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "none",
                                  huge]).returncode == 0
        if t.check(mounted, "hugetlbfs mounted"):
            mem = ["--huge-dir", huge, "-m", "96"]
            run("huge", mem, [], re.escape(MAY + " with --file-prefix of runtime directory "),
                True, huge=huge)
            run("huge-inmem", mem, ["--in-memory"],
                re.escape(CANNOT + "EAL runs with --in-memory (no shared runtime directory)"),
                False)
            run("huge-unlink", mem, ["--huge-unlink"],
                re.escape(CANNOT + "EAL runs with --huge-unlink (the hugepage files are "
                          "removed once mapped"), False)
            # =existing keeps the files it makes while it runs (mcfan removes them at exit)
            run("huge-unlink-existing", mem, ["--huge-unlink=existing"], re.escape(MAY), True,
                huge=huge)
            # =never: kept, also at exit, as asked
            run("huge-unlink-never", mem, ["--huge-unlink=never"], re.escape(MAY), True,
                huge=huge, kept=True)
            run_secondary(mem, huge)
            run_pool_cap(huge)
    finally:
        if mounted:
            subprocess.run(["umount", huge])
        with open(NR_PATH, "w") as f:
            f.write(str(nr0))
        shutil.rmtree(tmp, ignore_errors=True)
    t.check(not os.path.exists(tmp), "its hugetlbfs unmounted and removed")
    with open(NR_PATH) as f:
        t.check_eq(int(f.read()), nr0, "the reserved hugepages given back")
    t.finish("capture")


if __name__ == "__main__":
    main()
