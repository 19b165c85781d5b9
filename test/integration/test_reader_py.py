#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""tools/mcfan_reader.py's errors on real reader rings of a running mcfan (--worker-engine
readers): each one is an OSError with the library's errno and the library's own sentence
(mcfan_reader_strerror(), the words mcfan-read prints), never os.strerror()'s:

  EINVAL (a bad group), ENOENT (no ring: mcfan-read says the same sentence), ENOTUNIQ (an
  address with rings for ports 3999 and 4000), ENOSPC (the 257th reader of a ring whose 256
  rows this process holds), EPROTO (an object of that name that is not a ring), EPIPE (read after mcfan closed and every frame was read),
  EOWNERDEAD (wait after mcfan was SIGKILLed: wait()'s -EOWNERDEAD and the example's line).
Bad use of the binding: wait() timeouts that are not an int -1 or 0..WAIT_MS_MAX (ValueError;
2**32 + 100 and 2**40 ms wait that long), every method of a closed Reader (ValueError "reader
is closed"), a frame longer than the buffer (read: the buffer grows), the example's numeric options (nan, inf, negative: exit 2).

Input: net_pcap with a file of 5 frames of 239.9.9.1:3999 (read at start, kept in the ring:
the readers open with oldest=True). Usage: test_reader_py.py MCFAN_BINARY. No root needed.
"""

import atexit
import contextlib
import errno
import io
import os
import re
import signal
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

import mcfantest as t

PORT = 3999
HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
ROWS = 256               # reader rows of a ring (MCFAN_RD reader table of the readers engine)
FRAMES = 5


def eal(prefix, pcap):
    return ["--lcores", "0@0,1@0,2@0", "--no-huge", "-m", "512", "--in-memory",
            "--file-prefix", prefix, "--no-pci", "--log-level", "lib.eal:warning",
            "--vdev", f"net_pcap0,rx_pcap={pcap}"]


def rings_of(prefix):
    return sorted(f for f in os.listdir("/dev/shm") if f.startswith(f"mcfan.{prefix}."))


def expect_error(fn, err, what, mr, text=None):
    """fn() must raise OSError with errno err and the library's message for it (text: the
    library's sentence for this input, mcfan_reader_explain()'s, instead of strerror()'s)."""
    try:
        fn()
    except OSError as e:
        t.check_eq(e.errno, err, f"{what}: errno")
        text = text or mr.strerror(err)
        t.check(text in str(e) and text != os.strerror(err),
                f"{what}: the library's message {text!r} in {str(e)!r}")
        return str(e)
    t.check(False, f"{what}: no error raised")
    return ""


def main():
    mcfan = t.mcfan_path()
    build = t.build_dir(mcfan)
    os.environ["MCFAN_READER_LIB"] = os.path.join(build, "lib", "libmcfan-reader.so.1")
    sys.path.insert(0, TOOLS)
    import mcfan_reader as mr
    # a negative limit means nothing: refused before any open, by mcfan-read too
    rd_bin = os.path.join(build, "app", "mcfan-read", "mcfan-read")
    p = subprocess.run([rd_bin, "--group", f"239.9.9.1:{PORT}", "--seconds", "-1"],
                       capture_output=True, text=True, timeout=30)
    t.check(p.returncode == 2 and "mcfan-read: --seconds '-1': must be 0 (no limit) or more "
            "seconds" in p.stderr, f"mcfan-read --seconds -1: exit 2: {p.returncode} "
            f"{p.stderr.strip()[-160:]!r}")
    # the example's numeric options: nan, inf, negative, not a number: exit 2 naming the
    # option and the value (mcfan-read's words), before any open
    for opt, val, words in (
            ("--seconds", "-1", "must be 0 (no limit) or more seconds, decimal, at most "
             "1000000000"),
            ("--seconds", "nan", "must be 0 (no limit) or more seconds"),
            ("--seconds", "inf", "must be 0 (no limit) or more seconds"),
            ("--seconds", "1e10", "must be 0 (no limit) or more seconds, decimal, at most "
             "1000000000"),
            ("--count", "-1", "must be 0 (no limit) or more, a whole number"),
            ("--count", "1.5", "must be 0 (no limit) or more, a whole number"),
            ("--sleep-every", "-3", "must be 0 (no sleep) or more, a whole number"),
            ("--sleep-ms", "nan", "must be 0 (no sleep) or more ms, decimal, at most 3600000"),
            ("--sleep-ms", "inf", "must be 0 (no sleep) or more ms"),
            # decimal means digits and a point: not C's hex float, an exponent, a blank or
            # Python's digit separator (before: 0x10 ran 16 s in mcfan-read)
            ("--seconds", "0x10", "must be 0 (no limit) or more seconds, decimal"),
            ("--seconds", "1e3", "must be 0 (no limit) or more seconds, decimal"),
            ("--seconds", " 5", "must be 0 (no limit) or more seconds, decimal"),
            ("--seconds", "1_0", "must be 0 (no limit) or more seconds, decimal"),
            ("--sleep-ms", "0x10", "must be 0 (no sleep) or more ms, decimal")):
        p = subprocess.run([sys.executable, os.path.join(TOOLS, "mcfan_reader.py"), "--group",
                            f"239.9.9.1:{PORT}", opt, val], capture_output=True, text=True,
                           timeout=30)
        t.check(p.returncode == 2 and f"error: {opt} '{val}': {words}" in p.stderr,
                f"mcfan_reader.py {opt} {val}: exit 2: {p.returncode} "
                f"{p.stderr.strip()[-160:]!r}")
    # --count beyond 64 bits: the range in the message (before: "expected a whole number")
    p = subprocess.run([rd_bin, "--group", f"239.9.9.1:{PORT}", "--count", "9" * 23],
                       capture_output=True, text=True, timeout=30)
    t.check(p.returncode == 2 and f"mcfan-read: --count '{'9' * 23}': expected a whole number "
            "0..18446744073709551615" in p.stderr, f"mcfan-read --count 9x23: the range: "
            f"{p.returncode} {p.stderr[-160:]!r}")
    for val in ("0x10", "1e3", " 5", "1_0", "5.5.5", "."):
        p = subprocess.run([rd_bin, "--group", f"239.9.9.1:{PORT}", "--seconds", val],
                           capture_output=True, text=True, timeout=30)
        t.check(p.returncode == 2 and f"mcfan-read: --seconds '{val}': must be 0 (no limit) "
                "or more seconds, decimal" in p.stderr,
                f"mcfan-read --seconds {val!r}: exit 2: {p.returncode} {p.stderr[-160:]!r}")
    # $MCFAN_READER_LIB names the library to load: one that does not load is an error naming
    # the variable and the path (before: silently passed over for the build tree's or the
    # system's library, another library than the one asked for)
    bad_lib = "/nonexistent/mcfan-readerpy/libmcfan-reader.so.1"
    p = subprocess.run([sys.executable, "-c", "import mcfan_reader as m; m.lib(); print('loaded')"],
                       env=dict(os.environ, MCFAN_READER_LIB=bad_lib, PYTHONPATH=TOOLS),
                       capture_output=True, text=True, timeout=30)
    t.check(p.returncode != 0 and "loaded" not in p.stdout and
            f"MCFAN_READER_LIB={bad_lib}: cannot load it" in p.stderr,
            f"MCFAN_READER_LIB of a missing file: an error naming it: {p.returncode} "
            f"{p.stdout.strip()!r} {p.stderr.strip()[-200:]!r}")
    tmp = tempfile.mkdtemp(prefix="mcfan-readerpy-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    pcap = os.path.join(tmp, "in.pcap")
    t.write_pcap(pcap, [t.udp4_frame("239.9.9.1", PORT, b"x" * 100) for _ in range(FRAMES)])
    prefix = f"{t.PREFIX}-rdpy-{os.getpid()}"
    group = f"239.9.9.1:{PORT}"
    app = ["--rx-lcores", "1", "--worker-lcores", "2", "--worker-engine", "readers",
           "--reader-ring-frames", "64", "--groups",
           f"239.9.9.1:{PORT},239.9.9.1:4000,239.9.9.2"]
    mc = t.McfanProcess(eal(prefix, pcap), app + ["--duration", "60"])
    fake = f"/dev/shm/mcfan.{prefix}.239.9.9.9.{PORT}"
    held = []
    try:
        if not t.check(mc.wait_line("running:", 60) is not None, "mcfan runs"):
            print(mc.stderr()[-2000:])
            return
        # the table of messages itself: the library's words, not strerror(3)'s
        for e in (errno.ENOENT, errno.ENOSPC, errno.ENOTUNIQ, errno.EOWNERDEAD, errno.EPIPE,
                  errno.EPROTO, errno.EMSGSIZE, errno.EINVAL):
            t.check(mr.strerror(e) == mr.strerror(-e) and mr.strerror(e) != os.strerror(e),
                    f"strerror({errno.errorcode[e]}) is the library's: {mr.strerror(e)!r}")
        t.check_eq(mr.strerror(errno.EACCES), os.strerror(errno.EACCES),
                   "strerror(EACCES): strerror(3)'s text")
        # an errno the library's int cannot hold, or not an int: ValueError (before: ctypes cut
        # 2**40 to 0 and the answer was "no error"; 2**31 reached C as INT_MIN)
        for bad in (2**40, -2**40, 2**31, "2", 2.0, True, None):
            for fn in (mr.strerror, mr.explain):
                try:
                    got = fn(bad)
                    t.check(False, f"{fn.__name__}({bad!r}): no ValueError, {got!r}")
                except ValueError as e:
                    t.check(f"errno {bad!r}: must be an int" in str(e),
                            f"{fn.__name__}({bad!r}): ValueError naming it: {e}")
                except Exception as e:   # noqa: BLE001 (the wrong kind is the failure shown)
                    t.check(False, f"{fn.__name__}({bad!r}): ValueError wanted, got "
                            f"{type(e).__name__}: {e}")
        t.check_eq(mr.strerror(2**31 - 1), mr.strerror(-(2**31 - 1)), "strerror(INT_MAX) works")

        expect_error(lambda: mr.Reader(prefix, "239.9.9.300:3999"), errno.EINVAL,
                     "a bad group", mr, "group 239.9.9.300:3999: '239.9.9.300:3999' is not a "
                     "group: give GROUP or GROUP:PORT, e.g. 239.9.9.1:3999 or [ff3e::1]:5000")
        # a NUL character or a value that is not a str: refused by the binding (before: C cut
        # the string at the NUL and opened the ring of what came before it; None and bytes
        # raised AttributeError on .encode)
        for pfx, grp, exc, words in (
                (prefix, group + "\0junk", ValueError, "group '239.9.9.1:3999\\x00junk': has a "
                 "NUL character"),
                (prefix + "\0x", group, ValueError, "file prefix " + repr(prefix + "\0x") +
                 ": has a NUL character"),
                (prefix, None, TypeError, "group None: must be a str, not NoneType"),
                (prefix.encode(), group, TypeError, "must be a str, not bytes"),
                (prefix, 5, TypeError, "group 5: must be a str, not int")):
            try:
                mr.Reader(pfx, grp).close()
                t.check(False, f"Reader({pfx!r}, {grp!r}): opened, no {exc.__name__}")
            except exc as e:
                t.check(words in str(e), f"Reader({pfx!r}, {grp!r}): {exc.__name__} "
                        f"{words!r}: {e}")
            except Exception as e:   # noqa: BLE001 (the wrong kind is the failure shown)
                t.check(False, f"Reader({pfx!r}, {grp!r}): {exc.__name__} wanted, got "
                        f"{type(e).__name__}: {e}")
        msg = expect_error(lambda: mr.Reader(prefix, f"239.9.9.7:{PORT}"), errno.ENOENT,
                           "no such ring", mr)
        p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", f"239.9.9.7:{PORT}",
                            "--count", "1"], capture_output=True, text=True, timeout=30)
        t.check(p.returncode == 1 and mr.strerror(errno.ENOENT) in p.stderr,
                f"no such ring: mcfan-read says the same sentence: {p.stderr.strip()!r}")
        t.check(f"mcfan_reader_open {prefix} 239.9.9.7:{PORT}" in msg,
                f"no such ring: the prefix and group named: {msg!r}")
        # bad prefixes and groups: the library's own errno and sentence, the same words from
        # the binding, its example and mcfan-read (one check, in mcfan_reader_open())
        longp = "p" * 300
        for pfx, grp, err, words in (
                (prefix, "10.0.0.1", errno.EADDRNOTAVAIL, "group 10.0.0.1: 10.0.0.1 is not a "
                 "multicast address (IPv4 224.0.0.0/4, IPv6 ff00::/8)"),
                (prefix, "[fe80::1]:5000", errno.EADDRNOTAVAIL, "group [fe80::1]:5000: "
                 "fe80::1 is not a multicast address"),
                (prefix, "239.9.9.1:70000", errno.EINVAL, "group 239.9.9.1:70000: the UDP "
                 "port '70000' is not 1..65535"),
                (longp, group, errno.ENAMETOOLONG, f"file prefix '{longp[:40]}...': 300 "
                 "characters, more than the 186 a reader ring's name allows"),
                ("a%b", group, errno.EINVAL, "file prefix 'a%b': has a '%' (DPDK's EAL "
                 "refuses it): give the name of mcfan's EAL --file-prefix"),
                # a path: the same words from mcfan-read (before, its own: "--file-prefix
                # '../../etc': give the name mcfan's EAL --file-prefix had (not empty, no '/')")
                ("../../etc", group, errno.EINVAL, "file prefix '../../etc': has a '/' (it is "
                 "not a path): give the name of mcfan's EAL --file-prefix: a directory name "
                 "under DPDK's runtime directory")):
            try:
                mr.Reader(pfx, grp)
                t.check(False, f"Reader({pfx[:20]!r}, {grp!r}): no error")
            except OSError as e:
                t.check(e.errno == err and words in str(e),
                        f"Reader({pfx[:20]!r}, {grp!r}): errno {errno.errorcode[err]}, "
                        f"{words!r}: {e.errno} {str(e)[-200:]!r}")
            for argv in ([rd_bin], [sys.executable, os.path.join(TOOLS, "mcfan_reader.py")]):
                p = subprocess.run(argv + ["--file-prefix", pfx, "--group", grp, "--count",
                                           "1"], capture_output=True, text=True, timeout=30)
                t.check(p.returncode == 2 and words in p.stderr,
                        f"{os.path.basename(argv[-1])} --file-prefix {pfx[:20]} --group {grp}: "
                        f"exit 2, {words!r}: {p.returncode} {p.stderr.strip()[-200:]!r}")
        # an empty --file-prefix: refused by both programs in the same words (before,
        # mcfan_reader.py took it as rte and looked for that mcfan's ring)
        for argv in ([rd_bin], [sys.executable, os.path.join(TOOLS, "mcfan_reader.py")]):
            p = subprocess.run(argv + ["--file-prefix", "", "--group", group, "--count", "1"],
                               capture_output=True, text=True, timeout=30)
            t.check(p.returncode == 2 and "file prefix '': is empty: give the name of mcfan's "
                    "EAL --file-prefix" in p.stderr and "rte" not in p.stderr,
                    f"{os.path.basename(argv[-1])} --file-prefix '': exit 2, is empty: "
                    f"{p.returncode} {p.stderr.strip()[-200:]!r}")
        # a port asked for a group joined without one, or another port: the rings there are
        for grp, hint in (("239.9.9.2:3999", "mcfan serves 239.9.9.2 (any port): use --group "
                           "239.9.9.2"),
                          ("239.9.9.1:5000", f"239.9.9.1:{PORT}: use --group 239.9.9.1:{PORT}"),
                          ("239.9.9.1:5000", "239.9.9.1:4000: use --group 239.9.9.1:4000")):
            words = f"group {grp} of file prefix {prefix}: no such reader ring; "
            try:
                mr.Reader(prefix, grp)
                t.check(False, f"Reader({grp!r}): no error")
            except OSError as e:
                t.check(e.errno == errno.ENOENT and words in str(e) and hint in str(e),
                        f"Reader({grp!r}): ENOENT naming the rings there, {hint!r}: {e}")
            p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", grp, "--count",
                                "1"], capture_output=True, text=True, timeout=30)
            t.check(p.returncode == 1 and words in p.stderr and hint in p.stderr,
                    f"mcfan-read --group {grp}: exit 1, {hint!r}: {p.stderr.strip()!r}")
        expect_error(lambda: mr.Reader(prefix, "239.9.9.1"), errno.ENOTUNIQ,
                     "an address with two rings", mr)
        p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", "239.9.9.1",
                            "--count", "1"], capture_output=True, text=True, timeout=30)
        t.check(p.returncode == 1 and "has reader rings for several UDP ports" in p.stderr and
                "give GROUP:PORT" in p.stderr, f"mcfan-read's ENOTUNIQ: {p.stderr.strip()!r}")
        # --seconds 0 is no limit in mcfan-read as in mcfan_reader.py (and --count 0)
        p = subprocess.run([rd_bin, "--file-prefix", prefix, "--group", group, "--oldest",
                            "--count", str(FRAMES), "--seconds", "0", "--quiet", "--no-seq"],
                           capture_output=True, text=True, timeout=30)
        t.check(p.returncode == 0 and t.json_line(p.stdout).get("frames") == FRAMES,
                f"mcfan-read --seconds 0: no limit, reads the {FRAMES} frames: {p.returncode} "
                f"{p.stdout.strip()[-200:]!r} {p.stderr.strip()[-200:]!r}")
        with open(fake, "wb") as f:
            f.write(b"NOTARING" + b"\0" * 8184)
        expect_error(lambda: mr.Reader(prefix, f"239.9.9.9:{PORT}"), errno.EPROTO,
                     "not a ring", mr)

        # wait(): an int, -1 or 0..WAIT_MS_MAX; anything else is refused naming the value
        r = mr.Reader(prefix, group)
        for bad, words in ((2**63, f"must be -1 (no limit) or 0..{mr.WAIT_MS_MAX} ms"),
                           (-2, f"must be -1 (no limit) or 0..{mr.WAIT_MS_MAX} ms"),
                           (True, "must be a whole number of ms (an int)"),
                           (1.5, "must be a whole number of ms (an int)"),
                           ("100", "must be a whole number of ms (an int)")):
            try:
                r.wait(bad)
                t.check(False, f"wait({bad!r}): no ValueError")
            except ValueError as e:
                t.check(f"wait timeout {bad!r}" in str(e) and words in str(e),
                        f"wait({bad!r}): ValueError naming it: {e}")
        t.check_eq(mr.WAIT_MS_MAX, 9223372036854, "WAIT_MS_MAX: int64 ns in ms")
        t0 = time.monotonic()
        t.check_eq(r.wait(0), 0, "wait(0): nothing new, at once")
        t.check_eq(r.wait(200), 0, "wait(200): times out")
        t.check(0.15 <= time.monotonic() - t0 < 2, f"wait(200) took about 0.2 s: "
                f"{time.monotonic() - t0:.3f}")
        # a closed reader: one ValueError for every method; close() twice is harmless
        r.close()
        r.close()
        t.check(r.closed, "closed is True after close()")
        for name, fn in (("read", r.read), ("wait", lambda: r.wait(0)), ("stats", r.stats),
                         ("group", r.group), ("with", lambda: r.__enter__())):
            try:
                fn()
                t.check(False, f"closed reader: {name}() raised nothing")
            except ValueError as e:
                t.check_eq(str(e), "reader is closed", f"closed reader: {name}()")

        # a bufsize that is not an int 1..BUFSIZE_MAX: ValueError naming it, nothing opened
        # (before: TypeError "1.5", ValueError "Array length must be >= 0, not -1", after the
        # open; 0 opened a reader whose every read failed)
        bufmax = getattr(mr, "BUFSIZE_MAX", 1 << 24)
        for bad in (1.5, -1, 0, True, "4096", bufmax + 1):
            try:
                mr.Reader(prefix, group, bufsize=bad).close()
                t.check(False, f"Reader(bufsize={bad!r}): no ValueError")
            except ValueError as e:
                t.check(f"bufsize {bad!r}: must be a whole number of bytes (an int), "
                        f"1..{bufmax}" in str(e), f"Reader(bufsize={bad!r}): {e}")
            except Exception as e:   # noqa: BLE001 (the wrong kind is the failure shown)
                t.check(False, f"Reader(bufsize={bad!r}): ValueError wanted, got "
                        f"{type(e).__name__}: {e}")
        # read() copies the frame's bytes, not the whole buffer: with the largest bufsize a
        # read of a 142-byte frame takes microseconds (before: .raw copied all 16 MiB of the
        # buffer for each frame, milliseconds a read, 65600 bytes with the default)
        r = mr.Reader(prefix, group, oldest=True, bufsize=getattr(mr, "BUFSIZE_MAX", 1 << 24))
        t0 = time.monotonic()
        got = [r.read() for _ in range(FRAMES)]
        took = time.monotonic() - t0
        r.close()
        t.check(all(f is not None and len(f.data) == len(got[0].data) for f in got) and
                took < FRAMES * 0.001, f"read() with a 16 MiB buffer: {FRAMES} frames in "
                f"{took * 1e3:.2f} ms (at most 1 ms each)")
        # a frame longer than the buffer: read() grows the buffer and reads it (before:
        # OSError EMSGSIZE on every read() for ever, the frame neither read nor skipped)
        r = mr.Reader(prefix, group, oldest=True, bufsize=16)
        small = []
        for _ in range(FRAMES):
            try:
                small.append(r.read())
            except OSError as e:
                small.append(e)
        r.close()
        t.check_eq([(f.data, f.seq) if isinstance(f, mr.Frame) else repr(f) for f in small],
                   [(f.data, f.seq) for f in got],
                   "bufsize 16: every frame read whole, in order, as with the largest buffer")

        # the UDP payload of a frame, as C's mcfan_reader_udp_payload() finds it (before: no
        # way in Python but to parse Ethernet, VLAN tags, IPv4 options and IPv6 by hand)
        f = got[0]
        t.check_eq(mr.udp_payload(f.data), b"x" * 100, "udp_payload(): the datagram's 100 bytes")
        t.check_eq(mr.udp_payload(bytearray(f.data)), b"x" * 100, "udp_payload(bytearray)")
        tagged = f.data[:12] + b"\x81\x00\x00\x05" + f.data[12:]   # one 802.1Q tag
        t.check_eq(mr.udp_payload(memoryview(tagged)), b"x" * 100, "udp_payload(): a VLAN tag")
        for bad, err in ((f.data[:20], errno.EPROTO), (b"", errno.EPROTO)):
            try:
                mr.udp_payload(bad)
                t.check(False, f"udp_payload({len(bad)} bytes): no error")
            except OSError as e:
                t.check(e.errno == err and mr.strerror(err) in str(e),
                        f"udp_payload({len(bad)} bytes): OSError EPROTO, its sentence: {e}")
        for bad in ("text", None, 5):
            try:
                mr.udp_payload(bad)
                t.check(False, f"udp_payload({bad!r}): no TypeError")
            except TypeError as e:
                t.check("bytes" in str(e), f"udp_payload({bad!r}): TypeError: {e}")

        # a forked child that closes its copy of the parent's reader (leaving a `with` block,
        # __del__ at its exit) leaves the parent's row alone: before, it freed the row (pid 0:
        # the parent vanished from show readers, its row free for another reader) and took
        # back the parent's waiting count
        r = mr.Reader(prefix, group, oldest=True)
        t.check(r.read() is not None and r.read() is not None, "fork: the parent reads 2")
        row = 4096 + 64 * r.stats()["reader_slot"]   # hdr_size + slot x reader_size

        def row_words():
            with open(f"/dev/shm/mcfan.{prefix}.239.9.9.1.{PORT}", "rb") as f:
                data = f.read(row + 64)
            owner, frames = struct.unpack_from("=QQ", data, row)
            return owner & 0xFFFFFFFF, frames
        t.check_eq(row_words(), (os.getpid(), 2), "fork: the row is the parent's, 2 frames")
        child = os.fork()
        if child == 0:
            r.close()
            os._exit(0)
        os.waitpid(child, 0)
        t.check_eq(row_words(), (os.getpid(), 2),
                   "fork: the child's close() leaves the parent's row (pid, frames) as it was")
        t.check(r.read() is not None, "fork: the parent reads on after the child's close()")
        t.check_eq(row_words(), (os.getpid(), 3), "fork: its row counts its third frame")
        r.close()
        t.check_eq(row_words()[0], 0, "fork: the parent's own close() frees the row")

        held = [mr.Reader(prefix, group) for _ in range(ROWS)]
        t.check_eq(len(held), ROWS, "this process holds every reader row")
        expect_error(lambda: mr.Reader(prefix, group), errno.ENOSPC,
                     f"the {ROWS + 1}th reader", mr)
        for r in held:
            r.close()
        held = []

        # EOWNERDEAD: a reader (and the example program) when mcfan is SIGKILLed
        r = mr.Reader(prefix, group)
        ex = subprocess.Popen([sys.executable, os.path.join(TOOLS, "mcfan_reader.py"),
                               "--file-prefix", prefix, "--group", group],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        os.kill(mc.pid, signal.SIGKILL)
        mc.wait(30)
        w = r.wait(300)
        t.check_eq(w, -errno.EOWNERDEAD, "wait after SIGKILL: -EOWNERDEAD")
        t.check(mr.strerror(w).startswith("writer dead: mcfan is gone without closing the "
                                          "ring"), f"its sentence: {mr.strerror(w)!r}")
        r.close()
        out, err = t.communicate_both_or_kill(ex, 20)
        t.check(ex.returncode == 1 and f"{group}: {mr.strerror(errno.EOWNERDEAD)}" in err,
                f"mcfan_reader.py prints the library's line for a dead writer: "
                f"{ex.returncode} {err.strip()!r}")
        res = t.json_line(out)
        t.check_eq((res.get("writer_dead"), res.get("not_served")), (True, False),
                   "mcfan_reader.py's JSON line: writer_dead, not not_served")
        for f in rings_of(prefix):
            os.unlink(os.path.join("/dev/shm", f))

        # EPIPE: mcfan stops cleanly; every frame read, the next read says so
        mc = t.McfanProcess(eal(prefix, pcap), app + ["--duration", "60"])
        if not t.check(mc.wait_line("running:", 60) is not None, "mcfan runs again"):
            return
        r = mr.Reader(prefix, group, oldest=True)
        r_doc = mr.Reader(prefix, group, oldest=True)   # for docs/readers.md's example
        # long waits block until mcfan stops (they did not: the timeout was cut to a C int,
        # 2**32 + 100 ms waited 0.1 s and 2**40 ms returned at once)
        longs = {}
        for _ in range(100):   # the pcap's frames all written first: none comes after them
            if r.stats()["head"] >= FRAMES:
                break
            time.sleep(0.05)
        t.check_eq(r.stats()["head"], FRAMES, "every frame of the pcap in the ring")
        sleepers = [mr.Reader(prefix, group) for _ in range(2)]
        threads = [threading.Thread(target=lambda i=i, ms=ms: longs.__setitem__(
                       ms, sleepers[i].wait(ms)), daemon=True)
                   for i, ms in enumerate((2**32 + 100, 2**40))]
        for th in threads:
            th.start()
        time.sleep(0.6)
        t.check_eq(longs, {}, "wait(2**32 + 100) and wait(2**40) still wait after 0.6 s")
        mc.signal(signal.SIGINT)
        for th in threads:
            th.join(20)
        t.check_eq(longs, {2**32 + 100: -errno.EPIPE, 2**40: -errno.EPIPE},
                   "the long waits end with -EPIPE when mcfan stops")
        for sl in sleepers:
            sl.close()
        t.check_eq(mc.wait(30), 0, "mcfan stops cleanly")
        n = 0
        try:
            while r.read() is not None:
                n += 1
        except OSError as e:
            t.check(e.errno == errno.EPIPE and mr.strerror(errno.EPIPE) in str(e),
                    f"read after the close: EPIPE with the library's message: {e}")
        else:
            t.check(False, "read after the close: no EPIPE")
        t.check_eq(n, FRAMES, "every frame of the ring read before EPIPE")
        r.close()
        # docs/readers.md's Python example, as written, on a reader whose frames were still
        # unread when mcfan stopped: it prints them all and ends cleanly (before: read()'s
        # BrokenPipeError out of the loop, a traceback at every stop with frames pending)
        doc = open(os.path.join(HERE, "..", "..", "docs", "readers.md")).read()
        m = re.search(r"<!-- reader-python example -->\n```python\n(.*?)```", doc, re.S)
        if t.check(m is not None, "docs/readers.md has the marked Python example"):
            out = io.StringIO()
            real = mr.Reader
            mr.Reader = lambda *a, **k: r_doc   # the example's Reader("lab", ...): this one
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(m.group(1), "docs/readers.md example", "exec"), {})
                t.check_eq(len(out.getvalue().splitlines()), FRAMES,
                           "the docs' example prints every frame and ends cleanly")
            except Exception as e:   # noqa: BLE001 (what escaped the example is the failure)
                t.check(False, f"the docs' example at mcfan's stop: {type(e).__name__}: {e}")
            finally:
                mr.Reader = real
        r_doc.close()
    finally:
        for r in held:
            r.close()
        if mc.p.poll() is None:
            mc.p.kill()
            mc.wait(10)
        for f in rings_of(prefix):
            os.unlink(os.path.join("/dev/shm", f))
        if os.path.exists(fake):
            os.unlink(fake)
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
        t.remove_runtime_dir(eal(prefix, pcap))
    t.finish("reader_py")


if __name__ == "__main__":
    main()
