#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Write the seed corpora of test/fuzz/corpus/ from inputs the tests already use:
classify  every frame of test_pcap.py's mix (one of each kind mcfan meets), a 2,218-byte frame
          with a 256-byte IPv6 hop-by-hop header and that frame cut by af_packet, each
          behind three control bytes (flags, two segment cuts; see fuzz_classify.c)
sct       every map of test/unit/sct_oracle.h (erl's accepted and refused +sct texts)
groups    the group texts of test/unit/test_group.c and config/*.ini
Run from the repository root; rewrites the three directories."""
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


write("classify", frames())
write("sct", sct_maps())
write("groups", group_texts())
