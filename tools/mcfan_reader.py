#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Python binding of libmcfan-reader (ctypes; docs/readers.md).

Read a group's frames from a running mcfan (--worker-engine readers) without DPDK:

    import mcfan_reader
    with mcfan_reader.Reader("rte", "239.9.9.1:3999") as r:
        try:
            while True:
                f = r.read()             # a Frame, or None when there is none yet
                if f is None:
                    if r.wait(1000) < 0: # ms; -EPIPE (negative errno) when mcfan stopped
                        break
                    continue
                print(f.seq, len(f.data), f.lost)
        except BrokenPipeError:          # read(): mcfan stopped, every frame read
            pass

The library is found through $MCFAN_READER_LIB (when set, that one or an error), then the
build tree beside this file
(../build/lib), then, installed, the library of the same `meson install` (its libdir, by a
path relative to this file), then the system's loader (libmcfan-reader.so.1).

Run as a program it is a tiny example, a counting reader that prints one JSON line:
    mcfan_reader.py --file-prefix PREFIX --group GROUP[:PORT] [--seconds S] [--count N]
                    [--sleep-every N --sleep-ms MS]   (a deliberately slow reader)
"""

import ctypes
import errno
import json
import os
import re
import signal
import sys
import time

ABI = 1
OLDEST = 1


class _Frame(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_uint8)), ("len", ctypes.c_uint32),
                ("pad", ctypes.c_uint32), ("seq", ctypes.c_uint64), ("lost", ctypes.c_uint64),
                ("rx_ns", ctypes.c_uint64)]


class _Stats(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_uint64), ("lost", ctypes.c_uint64),
                ("laps", ctypes.c_uint64), ("head", ctypes.c_uint64), ("lag", ctypes.c_uint64),
                ("n_slots", ctypes.c_uint32), ("data_max", ctypes.c_uint32),
                ("closed", ctypes.c_int), ("reader_slot", ctypes.c_int)]


# The installed library's directory relative to the installed copy of this file: `meson
# install` sets it (tools/meson.build), so that a binding installed under any prefix loads its
# own prefix's library without ldconfig or LD_LIBRARY_PATH; None in the source tree.
_INSTALLED_LIBDIR = None


def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    # $MCFAN_READER_LIB: the library asked for, or an error (never silently another one)
    named = os.environ.get("MCFAN_READER_LIB")
    tries = [named] if named else [
        os.path.join(here, "..", "build", "lib", f"libmcfan-reader.so.{ABI}"),
        _INSTALLED_LIBDIR and os.path.join(here, _INSTALLED_LIBDIR, f"libmcfan-reader.so.{ABI}"),
        f"libmcfan-reader.so.{ABI}"]
    last = None
    for t in tries:
        if not t:
            continue
        try:
            lib = ctypes.CDLL(t)
            break
        except OSError as e:
            last = e
    else:
        if named:
            raise OSError(f"MCFAN_READER_LIB={named}: cannot load it: {last}")
        raise OSError(f"libmcfan-reader not found (set MCFAN_READER_LIB): {last}")
    p = ctypes.POINTER
    lib.mcfan_reader_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint,
                                      p(ctypes.c_void_p)]
    lib.mcfan_reader_next.argtypes = [ctypes.c_void_p, p(_Frame)]
    lib.mcfan_reader_frame_valid.argtypes = [ctypes.c_void_p, p(_Frame)]
    lib.mcfan_reader_read.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                      p(_Frame)]
    lib.mcfan_reader_wait.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    lib.mcfan_reader_stats.argtypes = [ctypes.c_void_p, p(_Stats)]
    lib.mcfan_reader_group.argtypes = [ctypes.c_void_p]
    lib.mcfan_reader_group.restype = ctypes.c_char_p
    lib.mcfan_reader_close.argtypes = [ctypes.c_void_p]
    lib.mcfan_reader_close.restype = None
    lib.mcfan_reader_strerror.argtypes = [ctypes.c_int]
    lib.mcfan_reader_strerror.restype = ctypes.c_char_p
    lib.mcfan_reader_explain.argtypes = [ctypes.c_int]
    lib.mcfan_reader_explain.restype = ctypes.c_char_p
    lib.mcfan_reader_udp_payload.argtypes = [ctypes.c_void_p, ctypes.c_uint32,
                                             p(p(ctypes.c_uint8)), p(ctypes.c_uint32)]
    return lib


_lib = None


def lib():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


#: Largest errno strerror() and explain() take: the library's int (C would cut a larger one).
ERRNO_MAX = 2**31 - 1


def _errno_arg(err):
    """An errno as the library's C int, negative: an int (not a bool) of magnitude at most
    ERRNO_MAX, else ValueError (ctypes would cut 2**40 to 0, "no error")."""
    if isinstance(err, bool) or not isinstance(err, int) or abs(err) > ERRNO_MAX:
        raise ValueError(f"errno {err!r}: must be an int, -{ERRNO_MAX}..{ERRNO_MAX} (a "
                         f"negative errno of the library, or a positive one)")
    return -abs(err)


def strerror(err):
    """The library's own sentence for an errno it returned (negative or positive): the words
    mcfan-read prints (mcfan_reader_strerror()). ValueError for anything but an int of at most
    ERRNO_MAX either way."""
    return lib().mcfan_reader_strerror(_errno_arg(err)).decode()


def explain(err):
    """The library's fullest sentence for an errno this thread got from it last
    (mcfan_reader_explain()): for -EXDEV the group, the engine mcfan gives it to and what to
    do, the words mcfan-read prints; else strerror()'s. Call it right after the failing call.
    ValueError as strerror()."""
    return lib().mcfan_reader_explain(_errno_arg(err)).decode()


def _error(ret, what):
    """OSError for a negative errno of the library, with the library's message."""
    return OSError(-ret, f"{what}: {explain(ret)}")


class Frame:
    """One frame: data (bytes, the whole Ethernet frame), seq, lost (just before it), rx_ns."""
    __slots__ = ("data", "seq", "lost", "rx_ns")

    def __init__(self, data, seq, lost, rx_ns):
        self.data, self.seq, self.lost, self.rx_ns = data, seq, lost, rx_ns


def udp_payload(frame):
    """The UDP payload of a frame of the ring (Frame.data: Ethernet, up to two VLAN tags, IPv4
    with options or IPv6 without extension headers, UDP), as bytes, found by the library's
    mcfan_reader_udp_payload() (its length from the UDP header, cut to the frame). frame: any
    bytes-like object (bytes, bytearray, memoryview), else TypeError; a frame that is not such
    a UDP datagram raises OSError EPROTO with the library's sentence."""
    try:
        data = memoryview(frame).cast("B")
    except TypeError:
        raise TypeError(f"frame {frame!r:.40}: must be bytes-like (bytes, bytearray, "
                        f"memoryview), not {type(frame).__name__}") from None
    if len(data) > 0xFFFFFFFF:
        raise ValueError(f"frame of {len(data)} bytes: longer than the library's 32-bit length")
    buf = (ctypes.c_uint8 * max(len(data), 1)).from_buffer_copy(bytes(data) or b"\0")
    p = ctypes.POINTER(ctypes.c_uint8)()
    plen = ctypes.c_uint32()
    ret = lib().mcfan_reader_udp_payload(buf, len(data), ctypes.byref(p), ctypes.byref(plen))
    if ret < 0:
        raise _error(ret, "mcfan_reader_udp_payload")
    off = ctypes.cast(p, ctypes.c_void_p).value - ctypes.addressof(buf)
    return bytes(data[off:off + plen.value])


#: Longest wait() timeout, ms: the library's wait takes int64 nanoseconds (about 292 years).
WAIT_MS_MAX = (2**63 - 1) // 1000000


def _wait_ns(timeout_ms):
    """wait()'s timeout in ms as the library's int64 ns: -1 (no limit) or 0..WAIT_MS_MAX, a
    whole number (an int: not a bool or a float); anything else raises ValueError."""
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int):
        raise ValueError(f"wait timeout {timeout_ms!r}: must be a whole number of ms (an int), "
                         f"-1 (no limit) or 0..{WAIT_MS_MAX}")
    if timeout_ms == -1:
        return -1
    if not 0 <= timeout_ms <= WAIT_MS_MAX:
        raise ValueError(f"wait timeout {timeout_ms} ms: must be -1 (no limit) or "
                         f"0..{WAIT_MS_MAX} ms")
    return timeout_ms * 1000000


def _c_text(what, value):
    """A str argument as the library's C string: TypeError for anything but a str, ValueError
    for a str with a NUL character (C would end the string there: "239.9.9.1:3999\\0x" would
    open the ring of 239.9.9.1:3999, "lab\\0x" that of prefix lab)."""
    if not isinstance(value, str):
        raise TypeError(f"{what} {value!r}: must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"{what} {value!r}: has a NUL character (C would cut the name there)")
    return value.encode()


#: Largest Reader bufsize, bytes (the copy buffer; frames are at most a slot's 2016).
BUFSIZE_MAX = 1 << 24


class Reader:
    """An open ring. Errors raise OSError with the library's errno and message (strerror());
    a prefix or group that is not a str raises TypeError, one with a NUL character
    ValueError, as does a bufsize that is not an int 1..BUFSIZE_MAX; any method but close() on a closed reader raises ValueError("reader is
    closed"), as Python's own files do."""

    def __init__(self, prefix, group, oldest=False, bufsize=65600):
        """bufsize: the copy buffer's first size, bytes; read() grows it to a longer frame."""
        self._r = ctypes.c_void_p()   # before the open: close() and __del__ find it
        cprefix = _c_text("file prefix", prefix or "rte")
        cgroup = _c_text("group", group)
        if isinstance(bufsize, bool) or not isinstance(bufsize, int) or \
                not 1 <= bufsize <= BUFSIZE_MAX:
            raise ValueError(f"bufsize {bufsize!r}: must be a whole number of bytes (an int), "
                             f"1..{BUFSIZE_MAX} (a slot holds at most 2016)")
        ret = lib().mcfan_reader_open(cprefix, cgroup, OLDEST if oldest else 0,
                                      ctypes.byref(self._r))
        if ret < 0:
            raise _error(ret, f"mcfan_reader_open {prefix or 'rte'} {group}")
        self._buf = ctypes.create_string_buffer(bufsize)
        self._f = _Frame()

    def _open(self):
        """The library's reader; ValueError once close() was called."""
        if not self._r:
            raise ValueError("reader is closed")
        return self._r

    @property
    def closed(self):
        """True once close() was called (or the open failed)."""
        return not self._r

    def read(self):
        """The next frame (copied), None if there is none yet; BrokenPipeError (OSError
        EPIPE) once mcfan stopped and every frame was read.
        A frame longer than the buffer grows the buffer to the frame's length and is read
        (bufsize is the buffer's first size, not a limit)."""
        self._open()
        while True:
            ret = lib().mcfan_reader_read(self._r, self._buf, len(self._buf),
                                          ctypes.byref(self._f))
            if ret != -errno.EMSGSIZE:
                break
            # the library left the frame unread and says its length in f.len: a buffer that
            # long reads it (before: EMSGSIZE on every read for ever, the frame never passed).
            # f.len only grows the buffer, so the loop ends (a ring's frames are at most
            # data_max, 2016 bytes); a length no buffer may take is an error
            need = self._f.len
            if need <= len(self._buf) or need > BUFSIZE_MAX:
                raise OSError(errno.EMSGSIZE, f"mcfan_reader_read {self.group()}: "
                              f"{strerror(ret)}: the next frame is {need} bytes, the buffer "
                              f"{len(self._buf)} (at most {BUFSIZE_MAX})")
            self._buf = ctypes.create_string_buffer(need)
        if ret == 1:
            # the frame's bytes only (.raw would copy the whole buffer, 65600 bytes or more)
            return Frame(ctypes.string_at(self._buf, self._f.len), self._f.seq, self._f.lost,
                         self._f.rx_ns)
        if ret == 0:
            return None
        raise _error(ret, f"mcfan_reader_read {self.group()}")

    def wait(self, timeout_ms=-1):
        """1 (a frame is there), 0 (timed out), or a negative errno (-EPIPE: mcfan stopped,
        -EOWNERDEAD: mcfan was killed without closing the ring, -EXDEV: mcfan no longer
        writes the ring, its group went to another engine); explain() words it.

        timeout_ms: an int, -1 (no limit) or 0..WAIT_MS_MAX ms (the library's 64-bit ns
        wait); a bool, a float or any other value raises ValueError naming it. 0 only looks
        (1, 0 or -EPIPE): -EOWNERDEAD and -EXDEV need a timeout of 1 ms or more."""
        ns = _wait_ns(timeout_ms)
        return lib().mcfan_reader_wait(self._open(), ns)

    def stats(self):
        """The reader's counters (mcfan_reader_stats()) as a dict."""
        s = _Stats()
        ret = lib().mcfan_reader_stats(self._open(), ctypes.byref(s))
        if ret < 0:
            raise _error(ret, "mcfan_reader_stats")
        return {k: getattr(s, k) for k, _ in _Stats._fields_}

    def group(self):
        """The ring's group as mcfan names it ("239.9.9.1:3999")."""
        return lib().mcfan_reader_group(self._open()).decode()

    def close(self):
        if self._r:
            lib().mcfan_reader_close(self._r)
            self._r = ctypes.c_void_p()

    def __enter__(self):
        self._open()
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


#: Largest --seconds, s (as mcfan-read's: about 31 years).
SECONDS_MAX = 1e9
#: Largest --sleep-ms, ms (one hour a sleep).
SLEEP_MS_MAX = 3600000.0


def _decimal(ap, opt, text, top, unit, zero="no limit"):
    """A finite decimal 0..top of the command line, else exit 2 naming the option and value
    (nan, inf and negative values are refused, as mcfan-read refuses them)."""
    v = None
    if re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", text, re.ASCII):  # as mcfan-read: not
        v = float(text)                                             # 1e3, 0x10, " 5", 1_0
    if v is None or not 0 <= v <= top:   # nan compares false: refused too
        ap.error(f"{opt} '{text}': must be 0 ({zero}) or more {unit}, decimal, at most "
                 f"{top:.0f}")
    return v


def _whole(ap, opt, text, zero="no limit"):
    """A whole number 0 or more of the command line, else exit 2 naming the option."""
    if not text.isdigit() or not text.isascii():
        ap.error(f"{opt} '{text}': must be 0 ({zero}) or more, a whole number")
    return int(text)


def _main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="count a group's frames from a running mcfan")
    ap.add_argument("--file-prefix", default="rte")
    ap.add_argument("--group", required=True)
    ap.add_argument("--seconds", default="0", help="stop after S seconds (0: no limit)")
    ap.add_argument("--count", default="0", help="stop after N frames (0: no limit)")
    ap.add_argument("--sleep-every", default="0", help="sleep after every N frames")
    ap.add_argument("--sleep-ms", default="0", help="ms of each such sleep")
    ap.add_argument("--oldest", action="store_true",
                    help="start at the oldest frame in the ring, not the newest (as "
                    "mcfan-read --oldest)")
    a = ap.parse_args(argv)
    if a.file_prefix == "":
        # Reader() takes "" as rte, as the library does; given on the command line it is a
        # mistake (an unset shell variable): refused, in mcfan-read's words
        ap.error("file prefix '': is empty: give the name of mcfan's EAL --file-prefix: a "
                 "directory name under DPDK's runtime directory (not empty, no '/' or '%', "
                 "not . or ..)")
    a.seconds = _decimal(ap, "--seconds", a.seconds, SECONDS_MAX, "seconds")
    a.sleep_ms = _decimal(ap, "--sleep-ms", a.sleep_ms, SLEEP_MS_MAX, "ms", "no sleep")
    a.count = _whole(ap, "--count", a.count)
    a.sleep_every = _whole(ap, "--sleep-every", a.sleep_every, "no sleep")
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    try:
        r = Reader(a.file_prefix, a.group, oldest=a.oldest)
    except OSError as e:
        print(f"mcfan_reader.py: {e}", file=sys.stderr)
        # a bad --file-prefix or --group (the library's sentence says which) is bad usage,
        # as in mcfan-read
        return 2 if e.errno in (errno.EINVAL, errno.EADDRNOTAVAIL, errno.ENAMETOOLONG) else 1
    print(f"mcfan_reader.py: reading {r.group()}, pid {os.getpid()}", file=sys.stderr,
          flush=True)
    t0 = time.monotonic()
    frames = lost = 0
    closed = dead = not_served = False
    error = None
    while not stop and (a.count == 0 or frames < a.count):
        if a.seconds and time.monotonic() - t0 >= a.seconds:
            break
        try:
            f = r.read()
        except OSError as e:
            closed = e.errno == errno.EPIPE
            dead = e.errno == errno.EOWNERDEAD
            error = None if closed or dead else e.strerror
            not_served = e.errno == errno.EXDEV
            break
        if f is None:
            w = r.wait(100)
            if w < 0 and w != -errno.EINTR:
                closed = w == -errno.EPIPE
                dead = w == -errno.EOWNERDEAD
                error = None if closed or dead else explain(w)
                not_served = w == -errno.EXDEV
                break
            continue
        frames += 1
        lost += f.lost
        if a.sleep_every and frames % a.sleep_every == 0:
            time.sleep(a.sleep_ms / 1000.0)
    st = r.stats()
    group = r.group()
    try:
        print(json.dumps({"group": group, "pid": os.getpid(), "frames": st["frames"],
                          "lost": st["lost"], "lapped": st["laps"], "head": st["head"],
                          "lag": st["lag"], "lost_seen": lost,
                          "closed": closed or bool(st["closed"]), "writer_dead": dead,
                          "not_served": not_served}), flush=True)
    except BrokenPipeError:
        # nobody reads the JSON line (| head -0, a closed pipe): not an error, as in
        # mcfan-read; the reader row is still closed below
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    r.close()
    if dead:
        print(f"mcfan_reader.py: {group}: {strerror(errno.EOWNERDEAD)}", file=sys.stderr,
              flush=True)
        return 1
    if error is not None:
        print(f"mcfan_reader.py: {group}: {error}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
