#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Write the seed corpora of test/fuzz/corpus/ from inputs the tests already use:
classify  every frame of test_pcap.py's mix (one of each kind mcfan meets), a 2,218-byte frame
          with a 256-byte IPv6 hop-by-hop header and that frame cut by af_packet, each
          behind three control bytes (flags, two segment cuts; see fuzz_classify.c)
sct       every map of test/unit/sct_oracle.h (erl's accepted and refused +sct texts)
groups    the group texts of test/unit/test_group.c and config/*.ini
console   every command and refused line of docs/console.md, every command example of the
          console family files, and lines at the console's limits
config    every file of config/ and every config file text of the integration tests
telemetry every /mcfan/... request of docs/telemetry.md, with and without its parameter forms
Run from the repository root; rewrites the directories named (all without arguments)."""
import ast
import glob
import hashlib
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
import mcfantest as t  # noqa: E402
import test_pcap  # noqa: E402


def write(kind, items):
    d = os.path.join(ROOT, "test", "fuzz", "corpus", kind)
    os.makedirs(d, exist_ok=True)
    for f in glob.glob(os.path.join(d, "*")):
        os.unlink(f)
    seen = set()
    for data in items:
        h = hashlib.sha1(data).hexdigest()[:16]
        if h in seen:
            continue
        seen.add(h)
        with open(os.path.join(d, h), "wb") as f:
            f.write(data)
    print(f"{kind}: {len(seen)} inputs")


def frames():
    out = []
    mix = [f for f, _ in test_pcap.build_mix()]
    for i, fr in enumerate(mix):
        ctl = [(0, 255, 0), (1, 255, 0), (0, 40, 128), (0, 128, 128)][i % 4]
        out.append(bytes(ctl) + fr)
    hbh = bytes([17, 31, 1, 252]) + b"\x00" * 252            # 256-byte hop-by-hop, PadN
    payload = b"p" * (2218 - 14 - 40 - 256 - 8)
    udp = struct.pack("!HHHH", 40000, 5000, 8 + len(payload), 0) + payload
    long6 = t.eth(t.mac_for_group("ff3e::1"), 0x86DD,
                  t.ipv6("2001:db8::1", "ff3e::1", 0, hbh + udp))
    assert len(long6) == 2218
    out += [bytes((0, 12, 128)) + long6, bytes((0, 255, 0)) + long6[:1982]]
    return out


def sct_maps():
    text = open(os.path.join(ROOT, "test", "unit", "sct_oracle.h")).read()
    return [m.encode() for m in re.findall(r'\.map = "([^"]*)"', text)]


def group_texts():
    out = []
    src = open(os.path.join(ROOT, "test", "unit", "test_group.c")).read()
    for call in re.finditer(r'(?:mcfan_group_parse(?:_list)?|expect_bad(?:_both)?|round_trip)'
                            r'\((?:[a-z]+, )?"((?:[^"\\]|\\.)*)"', src):
        out.append(call.group(1).encode().decode("unicode_escape").encode("latin-1"))
    for ini in glob.glob(os.path.join(ROOT, "config", "*.ini")):
        for line in open(ini):
            m = re.match(r"\s*groups\s*=\s*(.*\S)", line)
            if m:
                out.append(m.group(1).encode())
    return out


CONSOLE_WORDS = ("help", "show", "join", "leave", "set", "stop", "start", "clear", "msacc",
                 "wait", "quit", "foo")


def console_lines():
    out = []
    doc = open(os.path.join(ROOT, "docs", "console.md"), encoding="utf-8").read()
    for row in re.findall(r"^\|(.*)\|\s*$", doc, re.M):
        for span in re.findall(r"`([^`]+)`", row.replace("\\|", "|")):
            if span.split(" ")[0] in CONSOLE_WORDS:
                out.append(span)
    for line in re.findall(r"^    mcfan> (.*)$", doc, re.M):
        out.append(line)
    for src in glob.glob(os.path.join(ROOT, "app", "mcfan", "console", "*.c")):
        text = open(src).read()
        for cmd in re.finditer(r"MCFAN_CONSOLE_COMMAND\((.*?)\);", text, re.S):
            strings = re.findall(r'"((?:[^"\\]|\\.)*)"', cmd.group(1))
            out += [strings[0], strings[-1]]  # the spec and the example
    out += ["", "   ", "# a comment", "show counters # and a comment", "\tshow\tlcores",
            "help set fanout", "help show", "help nothing", "join " + "239.1.1.1," * 50,
            "x" * 513, "show " + "9" * 127, "set burst " + "9" * 126, "set burst 08",
            "set burst 18446744073709551616", "wait 600001", "show msacc 00001",
            "join 239.9.9.3\u20135", "show\x01counters", "show counters\x7f"]
    return [line.encode("utf-8") for line in out]


def _literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    if isinstance(node, ast.BinOp):  # "a" + " " * 300 + "b"
        left, right = _literal(node.left), _literal(node.right)
        if left is not None and right is not None:
            return left + right if isinstance(node.op, ast.Add) else left * right
    return None


def config_files():
    out = [open(f, "rb").read() for f in glob.glob(os.path.join(ROOT, "config", "*"))]
    for test in ("test_options.py", "test_hardening.py"):
        tree = ast.parse(open(os.path.join(ROOT, "test", "integration", test)).read())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and
                    node.func.id in ("cfg", "bad_cfg") and node.args):
                text = _literal(node.args[0])
                if isinstance(text, str) and "report-json" not in text:
                    out.append(text.encode("utf-8"))
    # the 30-group value over rte_cfgfile's 255 characters of test_hardening.py
    groups = ",".join(f"239.1.{i // 200}.{i % 200 + 1}" for i in range(30)) + ":12345"
    out.append(f"[mcfan]\nburst = 8\ngroups = {groups}\n".encode())
    out.append(b"[mcfan]\n" + b"; " + b"c" * 1020 + b"\n")
    # the feed-quality rules' own section (docs/feed.md)
    out.append(b"[mcfan]\ngroups = 239.9.9.1-3:3999,[ff3e::1]:5000\n\n[seq]\n"
               b"239.9.9.1-2:3999 = iperf2\n[ff3e::1]:5000 = rtp:48000 ; IPv6\n"
               b"pair = 239.9.9.1:3999,239.9.9.2:3999\n")
    return out


def telemetry_requests():
    out = []
    doc = open(os.path.join(ROOT, "docs", "telemetry.md"), encoding="utf-8").read()
    for span in re.findall(r"`(/mcfan/[^`]*)`", doc):
        out.append(span)
        if "," in span:
            out.append(span.split(",")[0])
    for row in re.findall(r"^\| `(/mcfan/[a-z/]+),[^`]*`((?:, `,[^`]*`)+)", doc, re.M):
        for extra in re.findall(r"`(,[^`]*)`", row[1]):
            out.append(row[0] + extra)   # ", `,-1`": the same command, another parameter
    out += ["/mcfan/msacc,1", "/mcfan/latency,2", "/mcfan/groups,0", "/mcfan/groups,4294967296",
            "/mcfan/groups,[ff3e::1]:5000", "/mcfan/groups,239.9.9.1", "/mcfan/info,",
            "/mcfan/msacc," + "1" * 64,
            "/mcfan/msacc," + "1" * 65, "/mcfan/groups,239.9.9.1\t", "/mcfan/msacc,1\u00e9"]
    return [r.encode("utf-8") for r in out]


KINDS = {"classify": frames, "sct": sct_maps, "groups": group_texts, "console": console_lines,
         "config": config_files, "telemetry": telemetry_requests}
for kind in sys.argv[1:] or KINDS:
    write(kind, KINDS[kind]())
