#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Placement of lcores from a +sct map and a bind type (docs/topology.md, "Placement").

- --print-topology: this host's map agrees with lscpu and the sysfs NUMA nodes (also under
  taskset, which shrinks it to the allowed CPUs); nothing starts.
- --print-placement on the 24-CPU, 2-node map for every bind type, short and long names:
  the bind order is Erlang's (recorded here; spot-checked against a live erl when there is
  one), the control lcore takes the first CPU, data lcores the rest in order, then wrap
  around with one warning; the EAL --lcores text says the same (parenthesised sets for u);
  --json says the same; --control-cpu and a vdev's node steer the RX lcores.
- Refusals (exit 2, nothing started): a map naming CPUs not online or not allowed (with the
  list and the allowed set), bad --bind, --control-cpu outside the map, contradicting
  options.
- Real runs without EAL lcore options: mcfan builds --lcores, prints the table, and every
  lcore thread's affinity (/proc/PID/task/*/status) is what the table says; the report's
  "topology" key and /mcfan/topology carry it; --workers 4 on 2 CPUs runs and warns once.
- The user's -l: used as given, only reported; --rx/--workers pick the roles among them.
Usage: test_placement.py MCFAN_BINARY"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import mcfantest as t

TMP = tempfile.mkdtemp(prefix="mcfan-placement-")
PCAP = os.path.join(TMP, "small.pcap")
_case = 0

# The 24-CPU, 2-node machine of CONTEXT.md section 2 (docs/topology.md): CPU 2k and 2k+1 are
# the threads of core k mod 6 of processor k div 6; processor p is node p.
MAP24 = ":".join(f"L{c}T{c % 2}C{c % 12 // 2}P{c // 12}N{c // 12}" for c in range(24))

# Erlang's fake_scheduler_bindings for MAP24 (erl OTP 25, as in test/unit/sct_oracle.h).
ORDERS24 = {
    "db": "0,2,4,6,8,10,12,14,16,18,20,22,1,3,5,7,9,11,13,15,17,19,21,23",
    "s": "0,12,2,14,4,16,6,18,8,20,10,22,1,13,3,15,5,17,7,19,9,21,11,23",
    "ps": "0,12,2,14,4,16,6,18,8,20,10,22,1,13,3,15,5,17,7,19,9,21,11,23",
    "ts": "0,2,4,6,8,10,12,14,16,18,20,22,1,3,5,7,9,11,13,15,17,19,21,23",
    "tnnps": "0,2,4,6,8,10,12,14,16,18,20,22,1,3,5,7,9,11,13,15,17,19,21,23",
    "nnps": "0,2,4,6,8,10,1,3,5,7,9,11,12,14,16,18,20,22,13,15,17,19,21,23",
    "nnts": "0,2,4,6,8,10,1,3,5,7,9,11,12,14,16,18,20,22,13,15,17,19,21,23",
    "ns": "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23",
    "u": ",".join(str(c) for c in range(24)),
}
ORDERS24 = {k: [int(x) for x in v.split(",")] for k, v in ORDERS24.items()}
LONG = {"u": "unbound", "ns": "no_spread", "ts": "thread_spread", "ps": "processor_spread",
        "s": "spread", "nnts": "no_node_thread_spread", "nnps": "no_node_processor_spread",
        "tnnps": "thread_no_node_processor_spread", "db": "default_bind"}


def run(eal, app, timeout=60, prefix=()):
    cmd = [*prefix, t.mcfan_path(), *eal, "--", *app]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def eal(name, extra=()):
    """EAL arguments without -l/-c/--lcores: mcfan places the lcores."""
    global _case
    _case += 1
    return t.eal_args(f"plc-{name}{_case}")[2:] + list(extra)


def vdev(infinite=False):
    return ["--vdev", f"net_pcap0,rx_pcap={PCAP}" + (",infinite_rx=1" if infinite else "")]


def parse_table(out):
    """{'order': [...], 'rows': [...], 'eal': str} from --print-placement or the startup table."""
    res = {"order": None, "rows": [], "eal": None}
    lines = out.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("order:"):
            res["order"] = [int(x) for x in re.findall(r"\b\d+\b", ln.split("(")[0])]
        elif ln.startswith("eal: --lcores "):
            res["eal"] = ln[len("eal: --lcores "):]
        elif ln.startswith("placement: --lcores "):
            res["eal"] = ln[len("placement: --lcores "):]
        elif ln.split()[:2] == ["lcore", "role"] and not res["rows"]:
            for row in lines[i + 1:]:
                f = row.split()
                if len(f) != 7 or not f[0].isdigit():
                    break
                ids = [None if x == "-" else int(x) for x in f[3:]]
                res["rows"].append({"lcore": int(f[0]), "role": f[1], "cpus": f[2],
                                    "thread": ids[0], "core": ids[1], "processor": ids[2],
                                    "node": ids[3]})
    return res


def cpulist(text):
    """Linux CPU list -> sorted list of ints."""
    cpus = []
    for part in text.strip().split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        cpus += range(int(a), int(b or a) + 1)
    return sorted(cpus)


def eal_lcores_text(rows):
    """The --lcores text a table implies: L@C, or L@(set) for a set."""
    out = []
    for r in rows:
        c = r["cpus"]
        out.append(f"{r['lcore']}@({c})" if ("," in c or "-" in c) else f"{r['lcore']}@{c}")
    return ",".join(out)


# ---- this host, independently of mcfan: sysfs and lscpu ----

def allowed_cpus():
    return sorted(os.sched_getaffinity(0))


def sysfs_node(cpu):
    nodes = glob.glob(f"/sys/devices/system/cpu/cpu{cpu}/node[0-9]*")
    return int(os.path.basename(nodes[0])[4:]) if nodes else None


def host_map(cpus):
    """The +sct map of some CPUs of this host from sysfs: thread = position among siblings."""
    ents = []
    for c in cpus:
        base = f"/sys/devices/system/cpu/cpu{c}/topology"
        with open(f"{base}/core_id") as f:
            core = int(f.read())
        with open(f"{base}/physical_package_id") as f:
            pkg = max(0, int(f.read()))
        with open(f"{base}/thread_siblings_list") as f:
            sib = cpulist(f.read())
        node = sysfs_node(c)
        ents.append(f"L{c}T{sib.index(c)}C{core}P{pkg}" + ("" if node is None else f"N{node}"))
    return ":".join(ents)


def lscpu_rows():
    try:
        p = subprocess.run(["lscpu", "-p=CPU,CORE,SOCKET,NODE"], capture_output=True,
                           text=True, timeout=30)
    except OSError:
        return None
    rows = {}
    for ln in p.stdout.splitlines():
        if ln.startswith("#") or not ln.strip():
            continue
        f = ln.split(",")
        rows[int(f[0])] = (int(f[1]), int(f[2]), int(f[3]) if len(f) > 3 and f[3] else None)
    return rows


ENTRY = re.compile(r"^L(\d+)T(\d+)C(\d+)P(\d+)(?:N(\d+))?$")


def parse_full_map(text):
    """One-entry-a-CPU +sct text -> {cpu: (thread, core, processor, node)}."""
    m = {}
    for e in text.split(":"):
        g = ENTRY.match(e)
        if not t.check(g is not None, f"entry {e!r} is L T C P [N]"):
            continue
        m[int(g[1])] = (int(g[2]), int(g[3]), int(g[4]), None if g[5] is None else int(g[5]))
    return m


# ---- --print-topology ----

def check_topology_output(rc, out, err, cpus, what):
    t.check_eq(rc, 0, f"{what}: exit status (stderr: {err[-300:]})")
    t.check(not t.eal_lines(err), f"{what}: EAL not started")
    sct = [ln[len("+sct "):] for ln in out.splitlines() if ln.startswith("+sct ")]
    if not t.check_eq(len(sct), 2, f"{what}: two +sct lines (compact, one entry a CPU)"):
        return
    m = parse_full_map(sct[1])
    t.check_eq(sorted(m), cpus, f"{what}: CPUs of the map = online and allowed")
    tree_cpus = sorted(int(x) for x in re.findall(r"thread \d+: cpu (\d+)", out))
    t.check_eq(tree_cpus, cpus, f"{what}: the tree names every CPU once")
    t.check("processor " in out and "core " in out, f"{what}: the tree has levels")
    lsc = lscpu_rows()
    if lsc is None:
        print("lscpu not found: skipping the comparison with lscpu")
        return
    for a in m:
        if a not in lsc:
            t.check(False, f"{what}: CPU {a} not in lscpu")
            continue
        if lsc[a][2] is not None:
            t.check_eq(m[a][3], lsc[a][2], f"{what}: node of CPU {a} as lscpu")
        t.check_eq(m[a][3], sysfs_node(a), f"{what}: node of CPU {a} as sysfs")
        for b in m:
            if b not in lsc:
                continue
            t.check_eq(m[a][2] == m[b][2], lsc[a][1] == lsc[b][1],
                       f"{what}: CPUs {a},{b} same processor iff same lscpu socket")
            t.check_eq(m[a][1:] == m[b][1:], lsc[a][0] == lsc[b][0],
                       f"{what}: CPUs {a},{b} same core iff same lscpu core")
    # it parses back: the compact text as a --cpu-topology of a plan
    rc2, out2, err2 = run([], ["--cpu-topology", sct[0], "--print-placement", "--rx", "1",
                               "--workers", "0"])
    t.check_eq(rc2, 0, f"{what}: the compact map is accepted back ({err2[-200:]})")


def test_print_topology():
    cpus = allowed_cpus()
    rc, out, err = run([], ["--print-topology"])
    check_topology_output(rc, out, err, cpus, "--print-topology")
    t.check_eq(host_map(cpus), [ln for ln in out.splitlines() if ln.startswith("+sct ")][1][5:]
               if out.count("+sct ") >= 2 else None, "--print-topology = the map from sysfs")
    if len(cpus) >= 2 and shutil.which("taskset"):
        last = cpus[-1]
        rc, out, err = run([], ["--print-topology"], prefix=["taskset", "-c", str(last)])
        check_topology_output(rc, out, err, [last], f"taskset -c {last} --print-topology")
    # with --cpu-topology it prints that map, and --help says so (it said "the host's map")
    rc, out, err = run([], ["--cpu-topology", "L0-3T0,1,0,1C0,0,1,1P0N0", "--print-topology"])
    t.check(rc == 0 and out.startswith("# map of --cpu-topology: 4 CPUs\n+sct "
                                       "L0-1T0-1C0P0N0:L2-3T0-1C1P0N0\n"),
            f"--cpu-topology MAP --print-topology prints MAP: {out[:120]!r}")
    rc, out, err = run([], ["--help"])
    line = " ".join(ln.strip() for ln in out.splitlines()
                    if re.match(r"\s+--print-topology\b", ln))
    t.check("--cpu-topology" in line and "host" in line,
            f"--help: --print-topology prints --cpu-topology's map or the host's: {line!r}")
    # given together, in either order, both print: the map, then the placement, each as it
    # prints alone
    rc, topo, err = run([], ["--print-topology"])
    rc2, plan, err2 = run([], ["--print-placement"])
    # no placement option: the plan is what one would apply, not what this command runs
    # (before: printed without a word; `taskset -c 1 mcfan -- --print-placement` showed a
    # working plan while `taskset -c 1 mcfan --` fails with "no data lcore")
    t.check("mcfan: note: no placement option (--cpu-topology, --bind, --rx, --workers, "
            "--control-cpu): this is the plan one of them would apply; without one, mcfan "
            "leaves EAL its default lcores" in err2, f"--print-placement alone: the note: {err2!r}")
    rc4, _, err4 = run([], ["--rx", "1", "--print-placement"])
    t.check(rc4 == 0 and "no placement option" not in err4,
            f"--rx 1 --print-placement: no note ({err4!r})")
    for app in (["--print-topology", "--print-placement"],
                ["--print-placement", "--print-topology"]):
        what = " ".join(app)
        rc3, out, err3 = run([], app)
        t.check_eq(rc3, 0, f"{what}: exit status ({err3[-200:]})")
        t.check(rc == 0 and rc2 == 0 and out == topo + plan,
                f"{what}: the map, then the placement table: {out[-400:]!r}")
        t.check("eal: --lcores " in out and out.count("+sct ") == 2,
                f"{what}: both outputs are there")


# ---- --print-placement on the 24-CPU map ----

def cpu_ids24(c):
    return {"thread": c % 2, "core": c % 12 // 2, "processor": c // 12, "node": c // 12}


def erl_order(bind_long):
    p = subprocess.run(
        ["erl", "+sct", MAP24, "-noshell", "-eval",
         "erts_debug:set_internal_state(available_internal_state,true), "
         f"io:format(\"~w~n\",[erts_debug:get_internal_state({{fake_scheduler_bindings,"
         f"{bind_long}}})]), halt()."], capture_output=True, text=True, timeout=120)
    # only the term's own line: a loaded host can make erl print a report (with a
    # timestamp) around it
    for line in p.stdout.splitlines():
        if re.fullmatch(r"[{\[][\d,]*[}\]]", line.strip()):
            return [int(x) for x in re.findall(r"\d+", line)]
    return []


def test_print_placement():
    for short, name in LONG.items():
        for bind in (short, name):
            what = f"--print-placement --bind {bind}"
            rc, out, err = run([], ["--cpu-topology", MAP24, "--bind", bind, "--rx", "1",
                                    "--workers", "22", "--print-placement"])
            t.check_eq(rc, 0, f"{what}: exit status ({err[-300:]})")
            t.check(not t.eal_lines(err), f"{what}: EAL not started")
            res = parse_table(out)
            order = ORDERS24[short]
            t.check_eq(res["order"], order, f"{what}: bind order is Erlang's")
            t.check(f"bind: {short} ({name})" in out, f"{what}: names the bind type")
            rows = res["rows"]
            if not t.check_eq(len(rows), 24, f"{what}: 24 rows (control, 1 RX, 22 workers)"):
                continue
            t.check_eq([r["role"] for r in rows], ["control", "rx"] + ["worker"] * 22,
                       f"{what}: roles")
            t.check_eq(res["eal"], eal_lcores_text(rows), f"{what}: --lcores = the table")
            t.check("oversubscribed" not in err, f"{what}: 24 lcores on 24 CPUs: no warning")
            if short == "u":
                t.check(all(r["cpus"] == "0-23" for r in rows), f"{what}: every lcore floats")
                t.check(res["eal"].startswith("0@(0-23),1@(0-23),"),
                        f"{what}: one parenthesised cpuset each: {res['eal'][:40]}")
                t.check(all(r["node"] is None for r in rows), f"{what}: no single node")
                continue
            cpus = [int(r["cpus"]) for r in rows]
            t.check_eq(cpus, order, f"{what}: control on the first CPU, data lcores in order")
            for r in rows:
                c = int(r["cpus"])
                t.check_eq({k: r[k] for k in ("thread", "core", "processor", "node")},
                           cpu_ids24(c), f"{what}: ids of CPU {c}")
        # one lcore more than CPUs: wraps to the start of the order, one warning
        what = f"--bind {short} --workers 23"
        rc, out, err = run([], ["--cpu-topology", MAP24, "--bind", short, "--rx", "1",
                                "--workers", "23", "--print-placement"])
        t.check_eq(rc, 0, f"{what}: exit status")
        warn = [ln for ln in err.splitlines() if "oversubscribed" in ln]
        t.check_eq(len(warn), 1, f"{what}: warns once")
        rows = parse_table(out)["rows"]
        if short != "u" and t.check_eq(len(rows), 25, f"{what}: 25 rows"):
            first = ORDERS24[short][0]
            t.check_eq(rows[-1]["cpus"], str(first), f"{what}: the 25th wraps to CPU {first}")
            t.check(warn and f" {first} (2 lcores)" in warn[0],
                    f"{what}: the warning names CPU {first}: {warn}")
        elif short == "u":
            t.check(warn and "25 lcores on 24 CPUs" in warn[0], f"{what}: {warn}")

    # Erlang itself, when installed: a few bind types
    if shutil.which("erl"):
        for short in ("db", "s", "nnps"):
            rc, out, _ = run([], ["--cpu-topology", MAP24, "--bind", short, "--rx", "1",
                                  "--workers", "22", "--print-placement"])
            t.check_eq(parse_table(out)["order"], erl_order(LONG[short]),
                       f"--bind {short}: order = erl's fake_scheduler_bindings")
    else:
        print("erl not found: orders checked against the recorded data only")

    # --json says the same as the text
    app = ["--cpu-topology", MAP24, "--bind", "s", "--rx", "2", "--workers", "3",
           "--print-placement"]
    rc, out, _ = run([], app)
    res = parse_table(out)
    rc, js, err = run([], app + ["--json"])
    t.check_eq(rc, 0, f"--json: exit status ({err[-200:]})")
    try:
        j = json.loads(js)
    except ValueError:
        t.check(False, f"--json prints JSON: {js[:200]!r}")
        j = {}
    if j:
        t.check_eq(j.get("bind"), "s", "--json bind")
        t.check_eq(j.get("bind_erlang"), "spread", "--json bind_erlang")
        t.check_eq(j.get("order"), ORDERS24["s"], "--json order")
        t.check_eq(j.get("eal_lcores"), res["eal"], "--json eal_lcores = text")
        t.check_eq([(r["lcore"], r["role"], r["cpus"], r["node"]) for r in j["placement"]],
                   [(r["lcore"], r["role"], r["cpus"], r["node"]) for r in res["rows"]],
                   "--json placement = text")
        t.check_eq(len(j.get("map_cpus", [])), 24, "--json map_cpus")
        t.check_eq(j.get("oversubscribed"), [], "--json oversubscribed: none")

    # --control-cpu: the control lcore there, data lcores skip it; a vdev's RX lcore goes to
    # the control lcore's node (node 1 here): the earliest free CPU of node 1 in the order
    rc, out, err = run(["--vdev", "net_null0"], ["--cpu-topology", MAP24, "--bind", "db",
                                                  "--control-cpu", "12", "--rx", "1",
                                                  "--workers", "3", "--print-placement"])
    rows = parse_table(out)["rows"]
    t.check_eq([r["cpus"] for r in rows], ["12", "14", "0", "2", "4"],
               f"--control-cpu 12 with a vdev: RX on node 1 ({err[-200:]})")
    rc, out, err = run([], ["--cpu-topology", MAP24, "--bind", "ts", "--control-cpu", "2",
                            "--rx", "1", "--workers", "2", "--print-placement"])
    t.check_eq([r["cpus"] for r in parse_table(out)["rows"]], ["2", "0", "4", "6"],
               "--control-cpu 2: data lcores skip CPU 2")
    # u with --control-cpu: control pinned, data lcores float over the rest
    rc, out, err = run([], ["--cpu-topology", MAP24, "--bind", "u", "--control-cpu", "5",
                            "--rx", "1", "--workers", "1", "--print-placement"])
    res = parse_table(out)
    t.check_eq([r["cpus"] for r in res["rows"]], ["5", "0-4,6-23", "0-4,6-23"],
               "--bind u --control-cpu 5")
    t.check_eq(res["eal"], "0@5,1@(0-4,6-23),2@(0-4,6-23)", "--bind u --control-cpu 5: EAL")
    # CPU ids above RTE_MAX_LCORE take the lcore@cpu form; planning works for any map
    rc, out, err = run([], ["--cpu-topology", "L200-203T0C0-3P0N0", "--rx", "1", "--workers",
                            "2", "--print-placement"])
    t.check_eq(rc, 0, "a map of CPUs 200-203 plans")
    t.check_eq(parse_table(out)["eal"], "0@200,1@201,2@202,3@203", "CPUs >= 128: lcore@cpu")
    # the 24-CPU map on this host: only planned, never refused
    rc, out, err = run([], ["--cpu-topology", MAP24, "--print-placement"])
    t.check_eq(rc, 0, "--print-placement of a map this host lacks")
    t.check_eq(len(parse_table(out)["rows"]), 24,
               "defaults: control, 1 RX, one worker per CPU left")
    t.check_eq(err, "", "the 24-CPU map: nothing on standard error")
    # a map larger than EAL's 128 lcores: the default workers stop there, and say so (before:
    # 126 workers on a 200-CPU map without a word, 72 CPUs unused)
    rc, out, err = run([], ["--cpu-topology", "L0-199T0C0-199P0N0", "--print-placement"])
    t.check(rc == 0 and len(parse_table(out)["rows"]) == 128,
            f"a 200-CPU map: 128 lcores ({rc} {err[-200:]!r})")
    t.check_eq(err, "mcfan: note: --workers not given: 126 worker lcores, not one per CPU left "
               "(198): 128 lcores is all EAL supports, so 72 CPUs of the map stay unused\n",
               "a 200-CPU map: the capped default is said")
    rc, out, err = run([], ["--cpu-topology", "L0-199T0C0-199P0N0", "--workers", "126",
                            "--print-placement"])
    t.check(rc == 0 and err == "", f"--workers 126 given: no note ({err[-200:]!r})")
    # one CPU: "1 CPU", not "1 CPUs", in the map's header and the oversubscribed warning
    rc, out, err = run([], ["--cpu-topology", "L0", "--rx", "1", "--workers", "1",
                            "--print-topology", "--print-placement"])
    t.check(rc == 0 and "# map of --cpu-topology: 1 CPU\n" in out and
            "oversubscribed: 3 lcores on 1 CPU; CPUs with more than one lcore: 0 (3 lcores)"
            in err, f"a one-CPU map: singular CPU: {rc} {out[:80]!r} {err[-200:]!r}")


# ---- refusals ----

def test_refusals():
    cpus = allowed_cpus()
    missing = 5 if 5 not in cpus else max(os.cpu_count() or 1, max(cpus)) + 5
    bad_map = host_map(cpus) + f":L{missing}T0C{missing + 100}P0" + \
        ("N0" if sysfs_node(cpus[0]) is not None else "")
    allowed_text = ",".join(str(c) for c in cpus)
    if len(cpus) > 1 and cpus == list(range(cpus[0], cpus[-1] + 1)):
        allowed_text = f"{cpus[0]}-{cpus[-1]}"
    e = eal("refuse", vdev())
    rc, out, err = run(e, ["--cpu-topology", bad_map, "--rx", "1", "--workers", "1"])
    t.check_eq(rc, 2, f"a map naming CPU {missing}: exit 2 ({err[-300:]})")
    t.check(f"not online or not allowed to this process: {missing} " in err,
            f"the message lists CPU {missing}: {err[-300:]}")
    t.check(f"(online and allowed: {allowed_text})" in err, f"... and the allowed set: {err}")
    t.check(not t.eal_lines(err), "refused before EAL")
    t.check(not os.path.exists(t.runtime_dir(e)), "no runtime directory")
    rc, out, err = run([], ["--cpu-topology", bad_map, "--print-placement"])
    t.check_eq(rc, 0, f"--print-placement of the same map only plans ({err[-200:]})")
    if len(cpus) >= 2 and shutil.which("taskset"):
        rc, out, err = run(eal("taskset", vdev()), ["--cpu-topology", host_map(cpus), "--rx",
                                                    "1", "--workers", "0"],
                           prefix=["taskset", "-c", str(cpus[-1])])
        t.check_eq(rc, 2, "taskset: a map naming CPUs outside the affinity: exit 2")
        t.check(f"(online and allowed: {cpus[-1]})" in err, f"taskset: allowed set: {err}")
        # --control-cpu outside the host's map: the map's CPUs are named, and that they are
        # the allowed ones (before: "not a CPU of the map", though the host has that CPU)
        rc, out, err = run(eal("taskset", vdev()), ["--control-cpu", str(cpus[0])],
                           prefix=["taskset", "-c", str(cpus[-1])])
        t.check_eq(rc, 2, "taskset: --control-cpu outside the affinity: exit 2")
        t.check(f"--control-cpu {cpus[0]} is not a CPU of the map (this host's map, the CPUs "
                f"online and allowed to this process: {cpus[-1]})" in err,
                f"taskset: --control-cpu: the map's CPUs named: {err}")
    for app, what, words in (
            (["--bind", "xx"], "--bind xx", "not a bind type"),
            (["--cpu-topology", "L0-1T0-2"], "a bad map", "invalid identifier range"),
            (["--cpu-topology", "L0:L1"], "a map with two CPUs in one place",
             "not unique"),
            # a --print-topology line copied whole (before: "invalid identifier type: '+'")
            (["--cpu-topology", "+sct L0-1T0C0-1P0N0"], "a map with erl's +sct in front",
             "--cpu-topology: '+sct L0-1T0C0-1P0N0' starts with +sct, erl's flag: give the "
             "map alone"),
            (["--json"], "--json alone", "--json goes with --print-placement"),
            (["--print-topology", "--print-placement", "--json"],
             "--print-topology --print-placement --json (text before the JSON)",
             "--print-topology with --print-placement --json: --print-topology prints text"
             " (+sct lines and a tree), which would come before the JSON on standard output"),
            (["--rx", "1", "--rx-lcores", "1"], "--rx with --rx-lcores", "not both"),
            (["--rx", "0"], "--rx 0", "--rx"),
            (["--workers", "x"], "--workers x", "--workers"),
            (["--control-cpu", "7", "--cpu-topology", host_map(cpus)],
             "--control-cpu outside the map",
             f"not a CPU of the map (the CPUs of --cpu-topology: {allowed_text})"),
            (["--control-cpu", "70000"], "--control-cpu 70000", "--control-cpu"),
            # a plan the run would refuse is refused too (before: printed, status 0, while
            # the same options without --print-placement exit 2)
            (["--rx", "1", "--workers", "0", "--idle-worker", "wake", "--print-placement"],
             "--print-placement with --idle-worker and no worker-only lcore",
             "--idle-worker wake:very_short: there is no worker lcore that is only a worker"),
            # mcfan builds --lcores from a placement option: lcores named by the user are
            # not its lcores (before: ignored without a word, lcore 1 ran as RX and worker)
            (["--bind", "ns", "--rx-lcores", "1", "--worker-lcores", "2"],
             "--bind with --rx-lcores/--worker-lcores",
             "--rx-lcores/--worker-lcores name EAL lcores, but mcfan builds EAL's --lcores "
             "here (from --bind)"),
            (["--cpu-topology", host_map(cpus), "--worker-lcores", "1"],
             "--cpu-topology with --worker-lcores", "(from --cpu-topology)")):
        e = eal("bad", vdev())
        rc, out, err = run(e, app)
        t.check_eq(rc, 2, f"{what}: exit 2 ({err[-200:]})")
        t.check(words in err, f"{what}: message has {words!r}: {err[-300:]}")
        t.check(not t.eal_lines(err), f"{what}: refused before EAL")
        t.remove_runtime_dir(e)
    # the user's lcores run as given: a plan of mcfan's own would show other lcores (before:
    # `-l 0 -- --print-placement` printed "eal: --lcores 0@0,1@1", status 0)
    # (-vl0-1: -v -l 0-1, bundled as getopt reads it; before: not seen, mcfan's own plan)
    for lcores in (["-l", "0"], ["-l0-1"], ["--lcores=0@0,1@1"], ["-c", "1"], ["-vl0-1"],
                   ["-vc", "1"]):
        rc, out, err = run(lcores, ["--print-placement"])
        t.check(rc == 2 and out == "" and "--print-placement: the EAL lcores are given (-l, "
                "-c or --lcores), and mcfan runs them as given" in err,
                f"{lcores} --print-placement: refused, nothing printed: {rc} {out!r} {err!r}")
    # an EAL option's value that looks like -c or -l is that option's (getopt gives it the
    # next argument): --huge-dir -cdir names a directory, no lcores are given (before:
    # refused as above)
    rc, out, err = run(["--huge-dir", "-cdir"], ["--print-placement"])
    t.check(rc == 0 and "eal: --lcores " in out and "the EAL lcores are given" not in err,
            f"--huge-dir -cdir --print-placement: printed: {rc} {out[-200:]!r} {err!r}")


# ---- real runs ----

def thread_affinity(pid):
    """{name or 'main': cpu list} of a process's threads."""
    res = {}
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            with open(f"{task}/comm") as f:
                comm = f.read().strip()
            with open(f"{task}/status") as f:
                st = f.read()
        except OSError:
            continue
        m = re.search(r"^Cpus_allowed_list:\s*(\S+)", st, re.M)
        name = "main" if os.path.basename(task) == str(pid) else comm
        res[name] = cpulist(m[1]) if m else None
    return res


def check_run(name, app, n_rows, expect_warn):
    e = eal(name, vdev(infinite=True))
    fd, rep_path = tempfile.mkstemp(prefix="mcfan-plc-", suffix=".json", dir=TMP)
    os.close(fd)
    os.unlink(rep_path)
    p = t.McfanProcess(e, [*app, "--groups", "239.9.9.1:3999", "--duration", "5",
                           "--report-json", rep_path])
    t.check(p.wait_line("running:", 60) is not None, f"[{name}] runs ({p.stderr()[-300:]})")
    time.sleep(0.3)
    aff = thread_affinity(p.pid)
    res = parse_table(p.stdout())
    tel = lcores = None
    try:
        c = t.Telemetry(t.telemetry_socket(e), timeout=30, proc=p)
        tel = c.wait_ready("/mcfan/topology", timeout=30)
        lcores, _ = c.query("/mcfan/lcores")
        c.close()
    except (OSError, RuntimeError, TimeoutError, ValueError) as ex:
        t.check(False, f"[{name}] telemetry: {ex}")
    rc = p.wait(60)
    t.check_eq(rc, 0, f"[{name}] exit status ({p.stderr()[-300:]})")
    rows = res["rows"]
    t.check_eq(len(rows), n_rows, f"[{name}] the startup table has {n_rows} rows")
    t.check_eq(res["eal"], eal_lcores_text(rows), f"[{name}] --lcores = the table")
    for r in rows:
        thread = "main" if r["role"] == "control" else f"rte-worker-{r['lcore']}"
        t.check_eq(aff.get(thread), cpulist(r["cpus"]),
                   f"[{name}] lcore {r['lcore']} ({thread}) runs on CPUs {r['cpus']}")
    warn = [ln for ln in p.stderr().splitlines() if "oversubscribed" in ln]
    t.check_eq(len(warn), 1 if expect_warn else 0, f"[{name}] oversubscription warnings")
    if expect_warn and warn:
        count = {}
        for r in rows:
            for c in cpulist(r["cpus"]):
                count[c] = count.get(c, 0) + 1
        shared = sorted(c for c, n in count.items() if n > 1)
        named = [int(x) for x in re.findall(r"(\d+) \(\d+ lcores\)", warn[0])]
        t.check_eq(named, shared, f"[{name}] the warning names the shared CPUs")
    # the report and /mcfan/topology name the CPUs the warning names, floating lcores
    # (--bind u) included (before: [] for them, though the warning named every CPU)
    warned = [{"cpu": int(c), "lcores": int(k)} for c, k in
              re.findall(r"(\d+) \((\d+) lcores\)", warn[0])] if warn else []
    rep = None
    if t.check(os.path.exists(rep_path), f"[{name}] report written"):
        with open(rep_path) as f:
            rep = json.load(f)
        os.unlink(rep_path)
    if rep is not None and t.check("topology" in rep, f"[{name}] report has 'topology'"):
        top = rep["topology"]
        t.check_eq([(r["lcore"], r["role"], r["cpus"]) for r in top["placement"]],
                   [(r["lcore"], r["role"], r["cpus"]) for r in rows],
                   f"[{name}] report placement = the table")
        t.check_eq(top["eal_lcores"], res["eal"], f"[{name}] report eal_lcores")
        t.check(top["map"] is not None and len(top["map_cpus"]) >= 1, f"[{name}] report map")
        t.check(len(top["mempools"]) == 1 and top["mempools"][0]["node"] >= 0,
                f"[{name}] report: the mempool's node {top['mempools']}")
        t.check(all(r["node"] == r["worker_node"] for r in top["rings"]) and top["rings"],
                f"[{name}] report: rings on their worker's node {top['rings']}")
        t.check(t.conservation(rep), f"[{name}] rx = delivered + drops")
        # the report's lcores[] name every CPU of a floating lcore too (before: only "cpu")
        t.check_eq(sorted((lc["lcore"], lc.get("cpus")) for lc in rep["lcores"]),
                   sorted((r["lcore"], r["cpus"]) for r in rows),
                   f"[{name}] report lcores[].cpus = the table")
        t.check_eq(top["oversubscribed"], warned, f"[{name}] report: oversubscribed CPUs as "
                   f"the warning says")
    if isinstance(tel, dict):
        t.check_eq(tel.get("lcore"), [r["lcore"] for r in rows], f"[{name}] telemetry lcores")
        t.check_eq(tel.get("cpus"), [r["cpus"] for r in rows], f"[{name}] telemetry cpus")
    # /mcfan/lcores (and so mcfan-top) names every CPU of a floating lcore (before: only
    # "cpu", the lowest: 0 for every lcore of --bind u, as if all were pinned to CPU 0)
    if isinstance(lcores, dict):
        t.check_eq(lcores.get("cpus"), [r["cpus"] for r in rows],
                   f"[{name}] /mcfan/lcores cpus = the table")
        t.check_eq(tel.get("node"), [-1 if r["node"] is None else r["node"] for r in rows],
                   f"[{name}] telemetry nodes")
        t.check(isinstance(tel.get("sct"), str) and tel["sct"], f"[{name}] telemetry sct")
        t.check_eq(tel.get("lcores_built"), 1, f"[{name}] telemetry: lcores built")
        t.check("mempool_node" in tel and "ring_node" in tel, f"[{name}] telemetry nodes")
        t.check_eq(tel.get("oversubscribed"), [w["cpu"] for w in warned],
                   f"[{name}] telemetry: oversubscribed CPUs as the warning says")
    t.remove_runtime_dir(e)
    return rows


def test_runs():
    cpus = allowed_cpus()
    hmap = host_map(cpus)
    n = len(cpus)
    # --cpu-topology (this host's map written by the test) --bind db --rx 1 --workers 1
    rows = check_run("db", ["--cpu-topology", hmap, "--bind", "db", "--rx", "1", "--workers",
                            "1"], 3, expect_warn=n < 3)
    if len(rows) == 3:
        t.check_eq(rows[0]["cpus"], str(cpus[0]), "control lcore on the first CPU")
        if n >= 2:
            t.check_eq(rows[1]["cpus"], str(cpus[1]), "the RX lcore skips the control CPU")
    # thread-spread with the long name, host map read by mcfan
    check_run("ts", ["--bind", "thread_spread", "--rx", "1", "--workers", "0"], 2,
              expect_warn=n < 2)
    # oversubscribed: --workers 4 on this host (2 CPUs: 6 lcores)
    check_run("over", ["--cpu-topology", hmap, "--rx", "1", "--workers", "4"], 6,
              expect_warn=n < 6)
    # unbound: every lcore floats over the map's CPUs
    rows = check_run("u", ["--bind", "u", "--rx", "1", "--workers", "1"], 3,
                     expect_warn=n < 3)
    t.check(all(cpulist(r["cpus"]) == cpus for r in rows), "--bind u: every lcore floats")


def started(err):
    """Lines only a run past the option checks prints (EAL's log level is at warning: mcfan's
    own log lines and its --no-shconf note, which comes just before rte_eal_init)."""
    return [ln for ln in err.splitlines()
            if ln.startswith(("EAL:", "MCFAN:")) or "passing --no-shconf" in ln]


def test_user_lcores():
    cpus = allowed_cpus()
    if len(cpus) < 2:
        print("fewer than 2 CPUs: skipping the -l case")
        return
    lc = f"{cpus[0]},{cpus[1]}"
    e = t.eal_args("plc-user", lcores=lc) + vdev()
    rc, out, err = run(e, ["--rx", "1", "--workers", "0", "--duration", "1"])
    t.check_eq(rc, 0, f"-l {lc} with --rx 1 --workers 0: exit status ({err[-300:]})")
    t.check("EAL lcores as given" in out, "the user's lcores are used as given")
    rows = parse_table(out)["rows"]
    t.check_eq([(r["role"], r["cpus"]) for r in rows],
               [("control", str(cpus[0])), ("rx+worker", str(cpus[1]))],
               "roles from the counts among the given lcores")
    t.check("--lcores" not in out, "no --lcores built")
    t.remove_runtime_dir(e)
    # a map that lacks the CPU of a given lcore: one warning naming it (before: the row
    # showed '-' for thread, core, processor and node without a word)
    e = t.eal_args("plc-user4", lcores=lc) + vdev()
    rc, out, err = run(e, ["--cpu-topology", f"L{cpus[0]}", "--duration", "0.5"])
    t.remove_runtime_dir(e)
    t.check_eq(rc, 0, f"-l {lc} --cpu-topology L{cpus[0]}: exit status ({err[-300:]})")
    t.check(f"mcfan: warning: --cpu-topology does not name the CPUs of the EAL lcores given: "
            f"lcore 1 on CPU {cpus[1]}; the table has no thread, core, processor or node for "
            f"it" in err, f"... warned: {err[-400:]}")
    e = t.eal_args("plc-user5", lcores=lc) + vdev()
    rc, out, err = run(e, ["--cpu-topology", host_map(cpus), "--duration", "0.5"])
    t.remove_runtime_dir(e)
    t.check(rc == 0 and "does not name" not in err, f"the host's map: no warning ({err[-300:]})")
    e = t.eal_args("plc-user2", lcores=lc) + vdev()
    rc, out, err = run(e, ["--rx", "1", "--workers", "1", "--duration", "1"])
    t.check_eq(rc, 2, "-l with too few lcores for --rx/--workers: exit 2")
    t.check("need 2 data lcores" in err, f"... says so: {err[-200:]}")
    # --rx alone: --workers' default is said to be one (before: "--rx 2 --workers 0 need
    # ...", as if --workers 0 had been given)
    rc, out, err = run(e, ["--rx", "2", "--duration", "1"])
    t.check_eq(rc, 2, "-l with too few lcores for --rx 2: exit 2")
    t.check("--rx 2 needs 2 data lcores, -l/-c/--lcores give 1 (--workers not given: its "
            "default, the data lcores left after the RX lcores, is 0 here" in err and
            "--workers 0" not in err, f"... says the worker count is the default: {err[-300:]}")
    t.check(not started(err), f"... before EAL: -l says how many lcores there will be "
            f"({err[-300:]})")
    t.remove_runtime_dir(e)
    # --control-cpu places mcfan's control lcore; with the user's lcores EAL's main lcore is
    # it wherever -l puts it: refused before EAL (before: ignored without a word, the
    # control lcore on cpus[0] though CPU cpus[1] was asked)
    e = t.eal_args("plc-user3", lcores=lc) + vdev()
    rc, out, err = run(e, ["--control-cpu", str(cpus[1]), "--duration", "1"])
    t.check_eq(rc, 2, f"-l {lc} with --control-cpu {cpus[1]}: exit 2 ({err[-300:]})")
    t.check(f"--control-cpu {cpus[1]}: the EAL lcores are given (-l, -c or --lcores)" in err,
            f"... says why: {err[-300:]}")
    t.check(not started(err), f"... before EAL ({err[-300:]})")
    t.remove_runtime_dir(e)
    # the same from a config file: the file and its line named, as the file's own refusals
    # (before: "--control-cpu N: ..." alone, though the command line had no --control-cpu)
    cfg = os.path.join(TMP, "control-cpu.ini")
    with open(cfg, "w") as f:
        f.write(f"[mcfan]\n; the control lcore\ncontrol-cpu = {cpus[1]}\n")
    e = t.eal_args("plc-user4", lcores=lc) + vdev()
    rc, out, err = run(e, ["--config", cfg, "--duration", "1"])
    t.check(rc == 2 and f"mcfan: config file '{cfg}' line 3: --control-cpu {cpus[1]}: the EAL "
            f"lcores are given" in err and not started(err),
            f"control-cpu from a config file beside -l: exit 2, the file and line named, "
            f"before EAL: {rc} {err[-300:]}")
    t.remove_runtime_dir(e)


def main():
    t.write_pcap(PCAP, [t.udp4_frame("239.9.9.1", 3999) for _ in range(50)])
    try:
        test_print_topology()
        test_print_placement()
        test_refusals()
        test_runs()
        test_user_lcores()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    t.finish("placement")


if __name__ == "__main__":
    sys.exit(main())
