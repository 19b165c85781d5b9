# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""Shared helpers for mcfan's integration tests: run the real program, build frames, write
pcap files, assert. Standard library only."""

import json
import os
import struct
import subprocess
import sys
import tempfile

MCFAN = os.environ.get("MCFAN", "")
# MCFAN_TEST_PREFIX: the start of every run's --file-prefix ("mcfan" unless set), so that
# runs beside other users of the host are told apart (and cleaned up) by name
PREFIX = os.environ.get("MCFAN_TEST_PREFIX", "mcfan")

_failures = 0
_checks = 0


def check(cond, msg):
    """Record one assertion; print it when it fails."""
    global _failures, _checks
    _checks += 1
    if not cond:
        _failures += 1
        print(f"FAIL: {msg}", flush=True)
    return cond


def check_eq(got, want, msg):
    return check(got == want, f"{msg}: got {got!r}, expected {want!r}")


def finish(name):
    print(f"{name}: {_checks} checks, {_failures} failed", flush=True)
    sys.exit(1 if _failures else 0)


def eal_lcores(lcores, prefix, vdevs=()):
    """EAL arguments for a hugepage-free in-memory run (-m 512, no PCI) with --lcores lcores
    (lcore@cpu maps allowed), --file-prefix prefix and one --vdev for each of vdevs."""
    eal = ["--lcores", lcores, "--no-huge", "-m", "512", "--in-memory", "--file-prefix",
           prefix, "--no-pci", "--log-level", "lib.eal:warning"]
    for v in vdevs:
        eal += ["--vdev", v]
    return eal


def mcfan_path():
    if len(sys.argv) > 1 and os.path.exists(sys.argv[1]):
        return sys.argv[1]
    if MCFAN:
        return MCFAN
    raise SystemExit("usage: TEST MCFAN_BINARY")


def eal_args(name, lcores="0-1", mem_mb=512, extra=()):
    """EAL arguments for a hugepage-free run with its own runtime directory."""
    return ["-l", lcores, "--no-huge", "-m", str(mem_mb), "--in-memory",
            "--file-prefix", f"{PREFIX}-{name}-{os.getpid()}", "--no-pci",
            "--log-level", "lib.eal:warning", *extra]


def run_mcfan(eal, app, timeout=60, stdin=None, report=True):
    """Run mcfan; return (returncode, stdout, stderr, report dict or None)."""
    rep = None
    path = None
    if report:
        fd, path = tempfile.mkstemp(prefix="mcfan-report-", suffix=".json")
        os.close(fd)
        os.unlink(path)
        app = [*app, "--report-json", path]
    cmd = [mcfan_path(), *eal, "--", *app]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL if stdin is None else stdin)
    if path is not None and os.path.exists(path):
        with open(path) as f:
            rep = json.load(f)
        os.unlink(path)
    return p.returncode, p.stdout, p.stderr, rep


def load_report(path):
    """The JSON report mcfan wrote to path (--report-json), or None when there is none."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def wait_or_kill(p, timeout):
    """Wait for the process p (a subprocess.Popen) to end; after timeout seconds SIGKILL it
    (this process only) and wait. Returns its exit status (negative: the signal)."""
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    return p.returncode


def communicate_both_or_kill(p, timeout):
    """p.communicate() (a subprocess.Popen with its output on pipes); after timeout seconds
    SIGKILL it (this process only) and collect what it wrote. Returns (stdout, stderr), each
    None when not a pipe."""
    try:
        return p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.communicate()


def communicate_or_kill(p, timeout):
    """communicate_both_or_kill()'s stdout alone."""
    return communicate_both_or_kill(p, timeout)[0]


def check_refused(eal, app, msg, what):
    """Run mcfan (run_mcfan) on input it must refuse before EAL starts; assert exit status
    2, msg (a substring) in stderr, nothing started (no EAL line, no runtime directory) and
    no report. what names the case in the messages. Returns (rc, stdout, stderr, rep)."""
    rc, out, err, rep = run_mcfan(eal, app)
    check_eq(rc, 2, f"{what}: exit status")
    check(msg in err, f"{what}: message {msg!r}: {err.strip()!r}")
    check(not eal_lines(err) and not os.path.exists(runtime_dir(eal)),
          f"{what}: nothing started")
    check(rep is None, f"{what}: no report")
    return rc, out, err, rep


def check_refused_config(name, tmpdir, text, msg, what):
    """Write text (an INI file) as tmpdir/bad.ini and run mcfan --config on it (eal_args
    with net_null0); assert exit status 2 and that stderr names both the file and msg (a
    substring: the value refused). what names the case. Returns (rc, stdout, stderr,
    rep)."""
    cfg = os.path.join(tmpdir, "bad.ini")
    with open(cfg, "w") as f:
        f.write(text)
    eal = eal_args(name, extra=["--vdev", "net_null0"])
    rc, out, err, rep = run_mcfan(eal, ["--config", cfg, "--duration", "0.2"])
    check_eq(rc, 2, f"{what}: exit status")
    check(msg in err and "bad.ini" in err,
          f"{what}: the file and the value named: {err.strip()!r}")
    return rc, out, err, rep


def eal_one_txq_port(name, tmpdir):
    """eal_args(name) with port 0 net_null0 and port 1 a net_pcap reading an empty capture
    (written into tmpdir as empty.pcap) without tx_pcap: a port of one TX queue, which is
    the control lcore's, so no worker lcore can send on it."""
    inp = os.path.join(tmpdir, "empty.pcap")
    write_pcap(inp, [])
    return eal_args(name, extra=["--vdev", "net_null0", "--vdev", f"net_pcap0,rx_pcap={inp}"])


def build_dir(mcfan):
    """The meson build directory of an mcfan binary (BUILD/app/mcfan/mcfan)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(mcfan))))


def json_line(text):
    """The last line of text that starts with '{', parsed (mcfan-read's closing JSON line);
    {} if there is none or it does not parse."""
    lines = [ln for ln in text.splitlines() if ln.startswith("{")]
    try:
        return json.loads(lines[-1]) if lines else {}
    except ValueError:
        return {}


def check_groups_sum(rep, what):
    """The report's groups table, joined and left rows, sums to its totals: copies to
    delivered_copies; frames to delivered_frames + ring_full (a frame whose every copy found
    a full ring is still its group's)."""
    check_eq(sum(g["copies"] for g in rep["groups"]), rep["delivered_copies"],
             f"{what} groups' copies sum to delivered_copies")
    check_eq(sum(g["frames"] for g in rep["groups"]),
             rep["delivered_frames"] + rep["drops"]["ring_full"],
             f"{what} groups' frames sum to delivered_frames + ring_full")


def conservation(rep):
    """rx_frames == delivered_frames + sum(drops), exactly."""
    return rep["rx_frames"] == rep["delivered_frames"] + sum(rep["drops"].values())


def group_frames(rep):
    """{(group, udp_port): frames} from a report."""
    return {(g["group"], g["udp_port"]): g["frames"] for g in rep["groups"]}


# ---- frames (byte-exact builders; RFC 791, RFC 8200, RFC 768, IEEE 802.1Q) ----

def csum(data):
    """The Internet checksum (RFC 1071) of data (bytes, an odd length padded with a zero
    byte): the 16-bit one's complement of the one's complement sum, 0..0xFFFF."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


_csum = csum   # the name test_igmp uses


def mac_for_group(addr):
    """Multicast MAC of an IPv4 group (RFC 1112 6.4) or IPv6 group (RFC 2464 7)."""
    if ":" in addr:
        import ipaddress
        b = ipaddress.IPv6Address(addr).packed
        return b"\x33\x33" + b[12:]
    o = [int(x) for x in addr.split(".")]
    return bytes([0x01, 0x00, 0x5E, o[1] & 0x7F, o[2], o[3]])


def eth(dst, ethertype, payload, src=b"\x02\x00\x00\x00\x00\x01", vlans=()):
    """Ethernet II frame; vlans = [(tpid, vid), ...] outermost first."""
    hdr = dst + src
    for tpid, vid in vlans:
        hdr += struct.pack("!HH", tpid, vid)
    return hdr + struct.pack("!H", ethertype) + payload


def ipv4(src, dst, proto, payload, ihl=5, options=b"", frag=0, total_len=None, ttl=1):
    import ipaddress
    tl = total_len if total_len is not None else ihl * 4 + len(payload)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, tl, 1, frag, ttl, proto, 0,
                      ipaddress.IPv4Address(src).packed, ipaddress.IPv4Address(dst).packed)
    hdr += options
    hdr = hdr[:10] + struct.pack("!H", _csum(hdr)) + hdr[12:]
    return hdr + payload


def ipv6(src, dst, nh, payload, payload_len=None):
    import ipaddress
    pl = payload_len if payload_len is not None else len(payload)
    return (struct.pack("!IHBB", 0x60000000, pl, nh, 1) + ipaddress.IPv6Address(src).packed +
            ipaddress.IPv6Address(dst).packed + payload)


def udp(sport, dport, data):
    return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data


def udp4_frame(group, dport, data=b"x" * 18, src="198.18.0.1", vlans=()):
    return eth(mac_for_group(group), 0x0800,
               ipv4(src, group, 17, udp(40000, dport, data)), vlans=vlans)


def udp6_frame(group, dport, data=b"x" * 18, src="2001:db8::1"):
    return eth(mac_for_group(group), 0x86DD, ipv6(src, group, 17, udp(40000, dport, data)))


SEQ_SRC_MAC = b"\x02\x00\x00\x00\x00\x01"


def udp4_seq_frame(group, seq, pad=30, dport=3999, src="198.18.0.1", sport=40000,
                   dst_mac=None, dst_ip=None):
    """Ethernet/IPv4/UDP frame (RFC 791, RFC 768) with both checksums, TTL 4, IP id
    seq & 0xFFFF, whose payload names its group and sequence number: b"G<group>:<seq, 6
    digits>:" then pad bytes b"p" (seq_of_payload reads it back). The destination MAC is
    the group's (RFC 1112) unless dst_mac (6 bytes) is given; the IPv4 destination is group
    unless dst_ip is given (the payload still names group). A UDP checksum of 0 is sent as
    0xFFFF (RFC 768)."""
    import ipaddress
    dst_ip = dst_ip or group
    data = f"G{group}:{seq:06d}:".encode() + b"p" * pad
    a, b = ipaddress.IPv4Address(src).packed, ipaddress.IPv4Address(dst_ip).packed
    ulen = 8 + len(data)
    pseudo = a + b + struct.pack("!BBH", 0, 17, ulen)
    uc = csum(pseudo + struct.pack("!HHHH", sport, dport, ulen, 0) + data) or 0xFFFF
    u = struct.pack("!HHHH", sport, dport, ulen, uc) + data
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + ulen, seq & 0xFFFF, 0, 4, 17, 0, a, b)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return (dst_mac or mac_for_group(group)) + SEQ_SRC_MAC + b"\x08\x00" + ip + u


def seq_of_payload(fr):
    """(group, seq) named by the payload of a udp4_seq_frame of a 239.9.9.x group (frame
    bytes, however rewritten on the way), or None when fr has no such payload."""
    import re
    m = re.search(rb"G(239\.9\.9\.\d+):(\d{6}):", fr)
    return (m.group(1).decode(), int(m.group(2))) if m else None


def group_of(fr):
    """The group named by the payload of a udp4_seq_frame, or None (seq_of_payload)."""
    gs = seq_of_payload(fr)
    return gs[0] if gs else None


def per_group_payload(frames):
    """{group: [seq, ...]} in the order of frames, from the payloads of udp4_seq_frames;
    frames without such a payload are left out."""
    got = {}
    for fr in frames:
        gs = seq_of_payload(fr)
        if gs:
            got.setdefault(gs[0], []).append(gs[1])
    return got


def read_pcap(path):
    """The frames (bytes, as captured: incl_len of each record) of a classic libpcap file
    (tcpdump -w) of either byte order, microsecond or nanosecond magic; [] for a file
    shorter than its 24-byte header. A record cut off at the end is returned as far as it
    goes."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return []
    e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack(e + "I", data[off + 8:off + 12])[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def iperf2_payload(seq, length=100):
    """iperf 2.1's UDP header: id, tv_sec, tv_usec, id2 (upper 32 bits); big-endian; then
    zero bytes up to length (bytes, at least 16). seq: the 64-bit sequence number (iperf2's
    end of test: -(COUNT + 1)); the time is now."""
    import time
    now = time.time()
    v = seq & 0xFFFFFFFFFFFFFFFF
    return struct.pack("!IIII", v & 0xFFFFFFFF, int(now), int((now % 1) * 1e6),
                       v >> 32) + b"\0" * (length - 16)


def mcast_sender(src="198.18.0.1"):
    """A UDP socket that sends multicast with TTL 1 out of the interface of address src."""
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
    return s


class Pacer:
    """A sender's schedule: pps ticks a second from now (pps > 0); wait() sleeps until the
    next tick is due (not at all when late: a late sender catches up, in bursts)."""

    def __init__(self, pps):
        import time
        self.gap, self.t = 1.0 / pps, time.monotonic()

    def wait(self):
        import time
        self.t += self.gap
        d = self.t - time.monotonic()
        if d > 0:
            time.sleep(d)


def wait_until(fn, timeout):
    """fn() until it is true (its value) or timeout seconds pass (its last value)."""
    import time
    end = time.monotonic() + timeout
    while True:
        v = fn()
        if v or time.monotonic() >= end:
            return v
        time.sleep(0.05)


def tap_send_tagged(tap, group, port, n, tag, src, pps=2000):
    """n IPv4 UDP frames to group:port written into interface tap (its kernel side: an
    AF_PACKET socket), at pps a second; frame i's payload is tag, i (4 bytes, big endian)
    and 20 bytes of 'c', so a reader can tell the frames apart."""
    import socket
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((tap, 0))
    pace = Pacer(pps)
    for i in range(n):
        s.send(udp4_frame(group, port, data=tag + i.to_bytes(4, "big") + b"c" * 20, src=src))
        pace.wait()
    s.close()


def shm_ring_files(prefix):
    """The reader rings of file prefix prefix in /dev/shm (names), sorted."""
    return sorted(f for f in os.listdir("/dev/shm") if f.startswith(f"mcfan.{prefix}."))


def write_pcap(path, frames, snaplen=65535):
    """Classic libpcap file (LINKTYPE_ETHERNET = 1), microsecond timestamps."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000000, i % 1000000,
                                len(fr), len(fr)))
            f.write(fr)


# ---- runtime directory, long-running processes (test_options/pcap/accounting/signals) ----

def file_prefix(eal):
    """The --file-prefix value of an EAL argument list (EAL's default is "rte")."""
    return eal[eal.index("--file-prefix") + 1] if "--file-prefix" in eal else "rte"


def runtime_dir(eal):
    """The runtime directory EAL creates for these arguments (eal_create_runtime_dir):
    $RUNTIME_DIRECTORY, else /var/run for root, else $XDG_RUNTIME_DIR or /tmp; + dpdk/PREFIX."""
    base = os.environ.get("RUNTIME_DIRECTORY")
    if base is None:
        base = "/var/run" if os.geteuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk", file_prefix(eal))


def remove_runtime_dir(eal):
    """Remove what a run left behind (call after asserting on it)."""
    import shutil
    shutil.rmtree(runtime_dir(eal), ignore_errors=True)


def finish_popen(p, eal, report, timeout):
    """Collect a mcfan started with subprocess.Popen, its stderr on a pipe: wait up to timeout
    seconds for it to end (then SIGKILL it, this process only), remove its EAL runtime
    directory and load its JSON report (--report-json report). Returns (exit status, stderr,
    report dict or None)."""
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    remove_runtime_dir(eal)
    return p.returncode, err, load_report(report)


def veth_pair(a, b, up=False):
    """Create the veth pair a <-> b (the caller deletes it: `ip link del a`); up: also bring
    both ends up with IPv6 off (no router solicitations on the wire). Returns None, or why
    it could not (not root, or `ip link add` refused)."""
    if os.geteuid() != 0:
        return "needs root for a veth pair"
    if subprocess.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b],
                      capture_output=True, text=True).returncode != 0:
        return "cannot create a veth pair"
    for i in (a, b) if up else ():
        subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{i}.disable_ipv6=1"],
                       capture_output=True)
        subprocess.run(["ip", "link", "set", i, "up"], capture_output=True)
    return None


def veth_pair_or_skip(test, a, b, up=False):
    """veth_pair(a, b, up), or, without root or when the pair cannot be made, say why and
    exit 77 (skipped); test names it."""
    why = veth_pair(a, b, up)
    if why is not None:
        print(f"{test}: {why}, skipping")
        sys.exit(77)


def packet_send(ifname, frames, rounds=1, gap=0.0):
    """Send the raw Ethernet frames (bytes) into interface ifname with an AF_PACKET socket
    (root), rounds times over, sleeping gap seconds after each round (0: none)."""
    import socket
    import time
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    for _ in range(rounds):
        for fr in frames:
            s.send(fr)
        if gap:
            time.sleep(gap)
    s.close()


def packet_burst(ifname, frames):
    """Send the raw Ethernet frames (bytes) into interface ifname with an AF_PACKET socket
    (root) about as fast as a polling net_af_packet on the other end of a veth takes them
    with room to spare in its ring: a 2 ms pause after every 64 frames (32 kfps at most)."""
    import socket
    import time
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    for i, fr in enumerate(frames):
        s.send(fr)
        if i % 64 == 63:
            time.sleep(0.002)
    s.close()


def eal_lines(stderr):
    """Lines EAL printed (a run refused before rte_eal_init prints none)."""
    return [ln for ln in stderr.splitlines() if ln.startswith("EAL:")]


class McfanProcess:
    """mcfan running in the background; stdout and stderr collected line by line with
    their arrival time (time.monotonic()) by reader threads."""

    def __init__(self, eal, app, errors=None):
        import threading
        import time
        self.cmd = [mcfan_path(), *eal, "--", *app]
        self.t0 = time.monotonic()
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, errors=errors)
        self.pid = self.p.pid
        self.out = []   # [(t, line)]
        self.err = []
        self._cond = threading.Condition()
        self._threads = [threading.Thread(target=self._read, args=(s, lst), daemon=True)
                         for s, lst in ((self.p.stdout, self.out), (self.p.stderr, self.err))]
        for th in self._threads:
            th.start()

    def _read(self, stream, lst):
        import time
        for line in stream:
            with self._cond:
                lst.append((time.monotonic(), line.rstrip("\n")))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_line(self, substr, timeout, stream="err"):
        """Wait until a line containing substr arrives; return its time or None."""
        import time
        lst = self.err if stream == "err" else self.out
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                for t, ln in lst:
                    if substr in ln:
                        return t
                left = end - time.monotonic()
                if left <= 0 or (self.p.poll() is not None and
                                 not any(th.is_alive() for th in self._threads)):
                    return None
                self._cond.wait(min(left, 0.05))

    def signal(self, sig):
        if self.p.poll() is None:
            self.p.send_signal(sig)

    def wait(self, timeout):
        """Wait for exit; on timeout kill it (SIGKILL, this pid only) and return None."""
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            rc = None
        for th in self._threads:
            th.join(5)
        return rc

    def stdout(self):
        return "\n".join(ln for _, ln in self.out)

    def stderr(self):
        return "\n".join(ln for _, ln in self.err)


# ---- telemetry: the v2 socket and dpdk-telemetry.py (test_telemetry, test_msacc) ----

TELEMETRY_SOCKET = "dpdk_telemetry.v2"   # socket name in DPDK 22.11 lib/telemetry
TELEMETRY_MAX_OUTPUT = 16384             # MAX_OUTPUT_LEN of DPDK 22.11: longer replies lose elements


def telemetry_socket(eal):
    """Path of the v2 telemetry socket of a run with these EAL arguments."""
    return os.path.join(runtime_dir(eal), TELEMETRY_SOCKET)


class Telemetry:
    """Client of the v2 telemetry socket (AF_UNIX, SOCK_SEQPACKET): one message a query,
    one message a reply. The server greets with {"version", "pid", "max_output_len"}."""

    def __init__(self, path, timeout=60, proc=None):
        import socket
        import time
        end = time.monotonic() + timeout
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                s.connect(path)
                break
            except OSError:
                s.close()
                if proc is not None and proc.p.poll() is not None:
                    raise RuntimeError(f"process ended before {path} accepted a connection")
                if time.monotonic() > end:
                    raise TimeoutError(f"no telemetry socket at {path} after {timeout} s")
                time.sleep(0.05)
        s.settimeout(timeout)
        self.sock = s
        self.hello = json.loads(s.recv(1 << 16))
        self.max_output_len = self.hello.get("max_output_len", TELEMETRY_MAX_OUTPUT)

    def raw(self, msg):
        """Send one query (str or bytes, sent as is); return the raw reply bytes."""
        self.sock.send(msg if isinstance(msg, bytes) else msg.encode())
        return self.sock.recv(1 << 20)

    def query(self, cmd):
        """(value, raw reply): value is the reply's value for the command (None for the
        null reply of an error); raises ValueError if the reply is not one JSON object
        keyed by the command."""
        raw = self.raw(cmd)
        d = json.loads(raw)
        key = cmd.split(",", 1)[0]
        if not isinstance(d, dict) or list(d) != [key]:
            raise ValueError(f"reply to {cmd!r} is not {{{key!r}: ...}}: {raw[:200]!r}")
        return d[key], raw

    def wait_ready(self, cmd="/mcfan/info", timeout=60):
        """Wait until cmd answers non-null (mcfan registers its commands after port start);
        return its value, or None on timeout."""
        import time
        end = time.monotonic() + timeout
        while True:
            v, _ = self.query(cmd)
            if v is not None or time.monotonic() > end:
                return v
            time.sleep(0.05)

    def close(self):
        self.sock.close()


def telemetry_once(prefix, cmd):
    """One query on the v2 telemetry socket of the run with --file-prefix prefix, as root
    (/var/run/dpdk/PREFIX/dpdk_telemetry.v2): connect, read the greeting, send cmd, return
    the reply's value for the command (None when the reply has no such key: an error's
    null). Raises OSError when the socket is not there (yet), ValueError on a reply that is
    not JSON."""
    import socket
    path = os.path.join("/var/run/dpdk", prefix, TELEMETRY_SOCKET)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(path)
        s.recv(16384)
        s.send(cmd.encode())
        return json.loads(s.recv(65536).decode()).get(cmd.split(",")[0])
    finally:
        s.close()


def telemetry_cli(prefix, cmd, timeout=120):
    """Ask with the real client, `echo CMD | dpdk-telemetry.py -f PREFIX`; return (parsed
    last output line or None if it is not JSON, the whole stdout). The client takes a few
    seconds to start on a loaded host."""
    p = subprocess.run(["dpdk-telemetry.py", "-f", prefix], input=cmd + "\n",
                       capture_output=True, text=True, timeout=timeout)
    lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
    try:
        return (json.loads(lines[-1]) if lines else None), p.stdout
    except ValueError:
        return None, p.stdout


class McfanProcessRaw(McfanProcess):
    """McfanProcess for runs whose output may hold bytes that are not UTF-8 (a log line
    that quotes a binary telemetry parameter): such bytes become backslash escapes instead
    of stopping the reader thread."""

    def __init__(self, eal, app):
        super().__init__(eal, app, errors="backslashreplace")
