#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# The fast path's rule (docs/architecture.md, datapath/engine.h): it never blocks, allocates,
# prints, logs or locks, and makes no system call except the documented ones (the reader
# rings' FUTEX_WAKE, eventfd wakes, idle sleeps). Checked on the built program: the direct
# call graph from `objdump -d`, walked from the data lcores' loop (mcfan_lcore_main) and from
# every engine's per-burst hook (.burst, .deliver, .pass in app/mcfan/datapath/engine_*.c,
# which the loop calls through pointers), not into what runs once before or after the loop
# (FUNC_ONCE). Every call it reaches that leaves the program (a PLT entry: libc, DPDK's shared
# libraries) must be in CALLEE_OK, or in CALL_OK for the one caller that may make it; any other
# is a finding, named with its path from a root.
#
# Inlining moves calls between functions, so the allowed lists name every function a call may
# end up in; the check holds on the debugoptimized (-O2), debug (-O0) and sanitizer builds.
#
# What it cannot see: calls through pointers other than the engine hooks, and inlined locks
# (rte_spinlock is a header inline: the source check in check_sources() looks for those).
#
# Usage: fastpath_callees_check.py MCFAN_BINARY TOP_DIR   exit 0: clean, 1: findings, 77: no
#        objdump;  fastpath_callees_check.py --self-test   the checker on made-up disassembly

import os
import re
import shutil
import subprocess
import sys

# Run once an lcore, before or after its loop (datapath/lcore.c, datapath/idle.c): they may
# log, set the thread's priority and wait for the end.
FUNC_ONCE = {
    "engine_start", "worker_stop", "hosted_thread",
    "mcfan_idle_lcore_start", "mcfan_idle_hosted_start", "mcfan_idle_hosted_wait",
    "mcfan_idle_hosted_end", "mcfan_overrun_close",
}

# Outside calls any fast-path function may make: none blocks, allocates, prints or locks.
CALLEE_OK = {
    "memcpy", "memset", "memmove", "memcmp",
    "__memcpy_chk", "__memset_chk", "__memmove_chk", "__stack_chk_fail",
    "__rte_pktmbuf_read",          # copies a frame's bytes across segments
    "rte_pktmbuf_free_bulk",       # mbufs back to their pool
    "rte_pktmbuf_clone",           # tx engine: a clone from its own pool (engine_tx.c)
    "rte_eth_call_rx_callbacks",   # inside rte_eth_rx_burst / rte_eth_tx_burst
    "rte_eth_call_tx_callbacks",
}
CALLEE_PREFIX_OK = ("__asan_", "__ubsan_", "__sanitizer_", "__tsan_")
# assert(): an abort on a broken invariant, never taken otherwise (DPDK's ring inlines keep
# theirs in a -O0 build, where the constants that prove them are not folded)
CALLEE_OK.add("__assert_fail")
# DPDK's own inline functions (rte_*, __rte_*) may call these: RTE_VERIFY's panic on a
# corrupt mbuf or mempool, and the fast-path tracepoints' per-thread buffer, which is
# compiled out (a -O2 build drops it: RTE_ENABLE_TRACE_FP is not set) and in a -O0 build
# only ever runs with tracing on
DPDK_INLINE_CALLEE_OK = {"__rte_panic", "__rte_trace_mem_per_thread_alloc"}

# The documented system calls: (the functions that may make them, whichever of them the
# compiler inlined into which, and the calls).
CALL_OK_GROUPS = [
    # once, before the loop: the thread id for the schedstat reads (control/sched.c)
    ({"mcfan_lcore_main"}, {"rte_sys_gettid"}),
    # the reader rings' FUTEX_WAKE (lib/reader/mcfan_reader_writer.h), now or coalesced
    ({"readers_deliver", "readers_pass", "mcfan_rw_wake_now", "mcfan_rw_worker_flush",
      "mcfan_rw_worker_poll"}, {"syscall"}),
    # the eventfd wake of a sleeping worker (datapath/idle.c)
    ({"mcfan_idle_kick_slow"}, {"write"}),
    # idle sleeps (datapath/idle.c): a timed sleep, the wake eventfd, RX interrupts
    ({"mcfan_idle_wait", "sleep_ns", "wake_sleep", "efd_drain", "intr_sleep"},
     {"clock_nanosleep", "ppoll", "read", "rte_epoll_wait", "rte_eth_dev_rx_intr_enable",
      "rte_eth_dev_rx_intr_disable"}),
]
CALL_OK = {(f, c) for callers, callees in CALL_OK_GROUPS for f in callers for c in callees}

FUNC_RE = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
CALL_RE = re.compile(r"\s(?:call|jmp|j[a-z]{1,3})q?\s+[0-9a-f]+ <([^>+]+)(?:\+0x[0-9a-f]+)?>")
HOOK_RE = re.compile(r"\.(?:burst|deliver|pass)\s*=\s*([A-Za-z_]\w*)\s*,")


def base(name):
    """A symbol's function: foo for foo.cold, foo.part.0, foo.isra.0, foo.constprop.0."""
    return name.split(".", 1)[0]


def call_graph(disasm):
    calls, cur = {}, None
    for line in disasm.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = m.group(1)
            calls.setdefault(cur, set())
            continue
        m = CALL_RE.search(line)
        if m and cur is not None and m.group(1) != cur:
            calls[cur].add(m.group(1))
    return calls


def findings(calls, roots):
    out, parent, todo = [], {}, []
    for r in roots:
        if r not in calls:
            out.append(f"root {r}: not in the program (renamed? update the check)")
            continue
        parent[r] = None
        todo.append(r)
    while todo:
        f = todo.pop()
        for t in sorted(calls.get(f, ())):
            if t.endswith("@plt"):
                callee = t[:-4].split("@", 1)[0]
                if callee in CALLEE_OK or callee.startswith(CALLEE_PREFIX_OK):
                    continue
                if callee in DPDK_INLINE_CALLEE_OK and base(f).startswith(("rte_", "__rte_")):
                    continue
                if (base(f), callee) in CALL_OK:
                    continue
                path, p = [], f
                while p is not None:
                    path.append(p)
                    p = parent[p]
                out.append(f"{callee}() called by {' <- '.join(path)}")
            elif t not in parent and base(t) not in FUNC_ONCE:
                parent[t] = f
                todo.append(t)
    return out


def engine_hooks(top):
    d = os.path.join(top, "app", "mcfan", "datapath")
    hooks = []
    for name in sorted(os.listdir(d)):
        if name.startswith("engine_") and name.endswith(".c"):
            with open(os.path.join(d, name), encoding="utf-8") as f:
                hooks += HOOK_RE.findall(f.read())
    return hooks


LOCK_RE = re.compile(r"\b(?:rte_spinlock_\w+|rte_rwlock_\w+|rte_ticketlock_\w+|"
                     r"pthread_mutex_\w+|pthread_rwlock_\w+|pthread_spin_\w+|"
                     r"pthread_cond_\w+)\s*\(")


def check_sources(top):
    """Locks taken in the fast path's sources, which inline and so never show as calls."""
    out = []
    paths = [os.path.join(top, "app", "mcfan", "datapath")]
    paths += [os.path.join(top, "lib", m) for m in ("fanout", "classify", "group")]
    files = []
    for p in paths:
        files += [os.path.join(p, x) for x in sorted(os.listdir(p)) if x.endswith((".c", ".h"))]
    files += [os.path.join(top, "lib", "msacc", "mcfan_msacc_writer.h"),
              os.path.join(top, "lib", "reader", "mcfan_reader_writer.h")]
    for path in files:
        with open(path, encoding="utf-8") as f:
            for no, line in enumerate(f, start=1):
                m = LOCK_RE.search(line)
                if m:
                    out.append(f"{os.path.relpath(path, top)}:{no}: a lock in the fast "
                               f"path's sources: {m.group(0).rstrip('( ')}")
    return out


SELF_TEST = """
0000000000001000 <mcfan_lcore_main>:
    1000:	call   2000 <engine_start>
    1005:	call   3000 <loop_helper.part.0>
    100a:	call   9000 <rte_sys_gettid@plt>
0000000000002000 <engine_start>:
    2000:	call   9100 <rte_log@plt>
0000000000003000 <loop_helper.part.0>:
    3000:	jne    3010 <loop_helper.part.0+0x10>
    3005:	jmp    4000 <deep>
0000000000004000 <deep>:
    4000:	call   9200 <malloc@plt>
    4005:	call   9300 <memcpy@plt>
0000000000005000 <tx_deliver>:
    5000:	call   9400 <pthread_mutex_lock@plt>
    5005:	call   9500 <write@plt>
0000000000006000 <mcfan_idle_kick_slow>:
    6000:	call   9500 <write@plt>
"""


def self_test():
    calls = call_graph(SELF_TEST)
    got = sorted(findings(calls, ["mcfan_lcore_main", "tx_deliver", "mcfan_idle_kick_slow"]))
    want = ["malloc() called by deep <- loop_helper.part.0 <- mcfan_lcore_main",
            "pthread_mutex_lock() called by tx_deliver",
            "write() called by tx_deliver"]
    if got != want:
        print("FAIL: self-test: got", got, "want", want)
        return 1
    if findings(calls, ["no_such_root"]) != [
            "root no_such_root: not in the program (renamed? update the check)"]:
        print("FAIL: self-test: a missing root passes")
        return 1
    print("self-test: ok (3 findings on made-up disassembly, a missing root refused)")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 3:
        print(__doc__ or "usage: fastpath_callees_check.py MCFAN_BINARY TOP_DIR")
        return 2
    objdump = shutil.which("objdump")
    if objdump is None:
        print("SKIP: no objdump")
        return 77
    disasm = subprocess.run([objdump, "-d", "--no-show-raw-insn", argv[1]], check=True,
                            capture_output=True, text=True).stdout
    calls = call_graph(disasm)
    hooks = engine_hooks(argv[2])
    if not hooks:
        print("FAIL: no engine hooks found in app/mcfan/datapath/engine_*.c")
        return 1
    roots = ["mcfan_lcore_main"] + hooks
    out = findings(calls, roots) + check_sources(argv[2])
    for line in out:
        print("FAIL: fast path:", line)
    print(f"fastpath-callees: {len(out)} finding(s); roots: {', '.join(roots)}")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
