# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
"""The metrics endpoint (docs/metrics.md) against real tools, on loopback only:

1. Bad --metrics-listen / --metrics-max-groups values (command line and config file) are
   refused before EAL, exit 2, the message naming the token; a port in use refuses the
   start (exit 2, no report), the message naming the port.
2. mcfan on a pcap replayed forever (net_pcap infinite_rx) with --metrics-listen on a random
   loopback port, and a real Prometheus (its own temp dir, random port, 1 s scrape interval):
   - the 0.0.4 page passes `promtool check metrics` with no complaint; the OpenMetrics page
     (asked for by Accept) passes the strict OpenMetrics parser of python3-prometheus-client
     and ends with "# EOF"; content types; HEAD has no body;
   - POST gets 405 with Allow, another path 404, garbage bytes 4xx or a closed connection, a
     client that sends half a request and waits is cut by the timeout, and meanwhile other
     scrapes are answered at once;
   - Prometheus scrapes it (target up, no error), and its HTTP API agrees with mcfan's own
     telemetry within one scrape: rate(mcfan_rx_frames_total[5s]) against the rate the
     telemetry counters give over the same 5 s, the lcore state shares of the RX lcore
     against /mcfan/msacc,LCORE, the per-group frame counts against /mcfan/groups, and the
     final report against the last scrape.
3. --metrics-max-groups 2 with 10 groups and a pcap read once, listening on [::1]:PORT (IPv6
   loopback; 127.0.0.1 without IPv6): exactly 2 groups of their own
   plus group="_other" holding the exact sum of the other 8; clear stats on the console then
   zeroes the console's counters and leaves every frame, drop, copy, port, worker, ring,
   group, feed and latency series of the page as it was (since the start).
4. group="_other" across joins and leaves (other_run, root): a real Prometheus sees no reset
   of any _other series while groups leave, join and are not promoted; exact pages each step;
   then a clear stats and no reset of any since-start family in Prometheus's resets().
5. reader="_other" across readers closing (readers_other_run): consecutive pages never show
   a counter that went back, and the closed readers' counts stay in _other, exactly.
Prometheus, promtool and the OpenMetrics parser missing: 77 (skip).
"""

import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import mcfantest as t

N_GROUPS = 10
GROUPS = "239.9.9.1-10:3999"
SYS_PY = "/usr/bin/python3"   # Debian's python, where python3-prometheus-client lives
OM_ACCEPT = "application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5"
OM_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"
TEXT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
CONN_TIMEOUT_S = 5            # server.c's CONN_TIMEOUT_S
REQUEST_DEADLINE_S = 7        # server.c's REQUEST_DEADLINE_S
CONN_PER_IP_LIMIT = 8         # server.c's CONN_PER_IP_LIMIT
OM_CHECK = r"""
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
fams = list(parse(sys.stdin.read()))
print(len(fams))
"""


SAMPLE_KEYS = r"""
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om_parse
from prometheus_client.parser import text_string_to_metric_families as text_parse
kind, data = sys.argv[1], sys.stdin.read()
fams = list((om_parse if kind == "om" else text_parse)(data))
keys = sorted({json.dumps([s.name, sorted(s.labels.items())]) for f in fams for s in f.samples})
types = {f.name: f.type for f in fams}
print(json.dumps({"keys": keys, "types": types}))
"""


def parse_keys(kind, body):
    """Sample names and label sets of a page as python3-prometheus-client parses it (kind
    "om": its strict OpenMetrics parser; "text": its 0.0.4 parser)."""
    p = subprocess.run([SYS_PY, "-c", SAMPLE_KEYS, kind], input=body, capture_output=True,
                       timeout=60)
    if p.returncode != 0:
        return None, p.stderr.decode()[-400:]
    return json.loads(p.stdout), ""


# MCFAN_TEST_PORTS=LO-HI: take the TCP ports of the runs (mcfan's /metrics, Prometheus) from
# that range only, in turn, a free one each time (unset: any free port the kernel gives)
PORTS = [int(x) for x in os.environ.get("MCFAN_TEST_PORTS", "").split("-") if x]
PORTS_NEXT = [0]


def free_port():
    if PORTS:
        span = PORTS[-1] - PORTS[0] + 1
        for _ in range(span):
            port = PORTS[0] + PORTS_NEXT[0] % span
            PORTS_NEXT[0] += 1
            s = socket.socket()
            # as mcfan and Prometheus bind: a port whose old connections wait in TIME_WAIT
            # is free to listen on
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            finally:
                s.close()
            return port
        raise SystemExit(f"MCFAN_TEST_PORTS: no free port in {PORTS}")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http_get(port, path="/metrics", accept=None, method="GET", data=None, timeout=5,
             host="127.0.0.1"):
    """(status, headers dict, body bytes, seconds)."""
    req = urllib.request.Request(f"http://{host}:{port}{path}", method=method, data=data)
    if accept:
        req.add_header("Accept", accept)
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read(), time.monotonic() - t0
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read(), time.monotonic() - t0


def samples(text):
    """{(name, frozenset(labels)): value} of a text page."""
    out = {}
    for ln in text.splitlines():
        if not ln or ln.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$', ln)
        if m is None:
            continue
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def by_label(smp, name, key):
    return {dict(lb)[key]: v for (n, lb), v in smp.items() if n == name}


LAT = "mcfan_rx_to_worker_latency_seconds"


def check_latency_histogram(smp, exact=False):
    """The RX-to-worker latency is a proper histogram per worker lcore: cumulative _bucket
    series ending in +Inf, a _count equal to the +Inf bucket, a _sum. exact (counters that do
    not move): the sum lies within the bucket bounds (bucket b: 2^b .. 2^(b+1) - 1 ns)."""
    lcores = {dict(lb)["lcore"] for (n, lb) in smp if n == LAT + "_bucket"}
    t.check(len(lcores) >= 1, f"latency histogram: buckets of lcores {sorted(lcores)}")
    for lc in sorted(lcores):
        bk = sorted(((float(dict(lb)["le"]), v) for (n, lb), v in smp.items()
                     if n == LAT + "_bucket" and dict(lb)["lcore"] == lc))
        cum = [v for _, v in bk]
        t.check(bk[-1][0] == float("inf") and cum == sorted(cum),
                f"lcore {lc}: {len(bk)} cumulative buckets up to +Inf")
        cnt = smp.get((LAT + "_count", frozenset({("lcore", lc)})))
        sm = smp.get((LAT + "_sum", frozenset({("lcore", lc)})))
        t.check(cnt is not None and cnt == bk[-1][1],
                f"lcore {lc}: _count {cnt} = +Inf bucket {bk[-1][1]}")
        t.check(sm is not None and (sm > 0) == (bk[-1][1] > 0),
                f"lcore {lc}: _sum {sm} (> 0 once copies were measured)")
        if exact and sm is not None:
            lo = hi = 0.0
            prev = 0.0
            for b, (_, c) in enumerate(bk):
                n = c - prev
                prev = c
                lo += n * (0 if b == 0 else 2 ** b) / 1e9
                if n > 0:
                    hi += n * ((2 ** (b + 1) - 1) if b + 1 < len(bk) else float("inf")) / 1e9
            t.check(lo <= sm * (1 + 1e-9) and sm <= hi * (1 + 1e-9),
                    f"lcore {lc}: _sum {sm:.9f} s within the buckets' bounds "
                    f"[{lo:.9f}, {hi:.9f}]")
    return lcores


def bad_options(mcfan):
    cases = [
        (["--metrics-listen", "localhost:9100"], "'localhost'"),
        (["--metrics-listen", "127.0.0.1:0"], "port '0'"),
        (["--metrics-listen", "70000"], "port '70000'"),
        (["--metrics-listen", "[::1]9100"], "[ADDR6]:PORT"),
        (["--metrics-listen", "::1:9100"], "brackets"),
        (["--metrics-max-groups", "1025"], "'1025'"),
        (["--metrics-max-groups", "-1"], "'-1'"),
    ]
    for args, token in cases:
        p = subprocess.run([mcfan, "--no-pci", "--", *args], capture_output=True, text=True,
                           timeout=30)
        t.check_eq(p.returncode, 2, f"{args}: exit status")
        t.check(token in p.stderr and args[0] in p.stderr,
                f"{args}: the message names {args[0]} and {token}: {p.stderr.strip()!r}")
        t.check(not t.eal_lines(p.stderr), f"{args}: refused before EAL")
    # --metrics-max-groups without --metrics-listen caps nothing: refused, not ignored
    # (before: accepted without a word); from a config file too
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
        f.write("[mcfan]\nmetrics-max-groups = 8\n")
    for args, token in ((["--metrics-max-groups", "5"], "--metrics-max-groups 5: no "
                         "--metrics-listen, so there is no /metrics whose groups it caps"),
                        (["--config", f.name], "--metrics-max-groups 8: no --metrics-listen")):
        p = subprocess.run([mcfan, "--no-pci", "--", *args], capture_output=True, text=True,
                           timeout=30)
        t.check(p.returncode == 2 and token in p.stderr and "give --metrics-listen ADDR:PORT "
                "too, or leave --metrics-max-groups out" in p.stderr and
                not t.eal_lines(p.stderr),
                f"{args} without --metrics-listen: exit 2 before EAL, said: {p.returncode} "
                f"{p.stderr.strip()!r}")
    os.unlink(f.name)
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
        f.write("[mcfan]\nmetrics-listen = 10.1.2:80\n")
    p = subprocess.run([mcfan, "--", "--config", f.name], capture_output=True, text=True,
                       timeout=30)
    os.unlink(f.name)
    t.check_eq(p.returncode, 2, "config file metrics-listen = 10.1.2:80: exit status")
    t.check("line 2" in p.stderr and "'10.1.2'" in p.stderr,
            f"config file: line and token named: {p.stderr.strip()!r}")


def bad_listen_addresses(mcfan):
    """Addresses inet_pton() takes but no one can listen on, and dotted quads it refuses:
    refused before EAL (exit 2), the message naming the address and why."""
    cases = [
        ("224.0.0.1:9100", "'224.0.0.1' is a multicast address"),
        ("255.255.255.255:9100", "'255.255.255.255' is a broadcast address"),
        ("[ff02::1]:9100", "'ff02::1' is a multicast address"),
        ("[fe80::1]:9100", "'fe80::1' is a link-local address"),
        ("127.0.0.01:9100", "'127.0.0.01' is not a numeric IPv4 address: four decimal"),
    ]
    for addr, want in cases:
        p = subprocess.run([mcfan, "--no-pci", "--", "--metrics-listen", addr],
                           capture_output=True, text=True, timeout=30)
        t.check_eq(p.returncode, 2, f"--metrics-listen {addr}: exit status")
        t.check(want in p.stderr and "--metrics-listen" in p.stderr and
                "host names" not in p.stderr,
                f"--metrics-listen {addr}: {want!r} in {p.stderr.strip()!r}")
        t.check(not t.eal_lines(p.stderr), f"--metrics-listen {addr}: refused before EAL")


def check_accept(port):
    """The OpenMetrics page only for the exact media type application/openmetrics-text
    (RFC 9110 12.5.1: case-insensitive, parameters allowed) with a weight above 0."""
    cases = [
        ("application/openmetrics-textx", TEXT_TYPE),
        ("xapplication/openmetrics-text", TEXT_TYPE),
        ("application/openmetrics-text-foo; version=1.0.0", TEXT_TYPE),
        ("application/openmetrics-text;q=0", TEXT_TYPE),
        ("application/openmetrics-text; version=1.0.0; q=0.000", TEXT_TYPE),
        ("application/openmetrics-text;q=1.5", TEXT_TYPE),
        ("text/plain, application/openmetrics*", TEXT_TYPE),
        ("Application/OpenMetrics-Text", OM_TYPE),
        ("text/plain;q=0.5, application/openmetrics-text ; version=1.0.0 ; q=0.001", OM_TYPE),
        ("application/openmetrics-text;q=0, application/openmetrics-text;version=1.0.0",
         OM_TYPE),
        ('text/plain;x="a,b", application/openmetrics-text', OM_TYPE),
    ]
    for accept, want in cases:
        st, hd, body, _ = http_get(port, accept=accept)
        t.check(st == 200 and hd.get("Content-Type") == want,
                f"Accept: {accept!r}: {st} {hd.get('Content-Type')!r}, expected {want!r}")
        t.check(body.endswith(b"# EOF\n") == (want == OM_TYPE),
                f"Accept: {accept!r}: the body is in the format of its type")


def torn_run(pcap, tmp):
    """Feed counters read while the worker writes them at full rate: the loop capture
    replayed forever, an iperf2 extractor on 239.9.9.1 (every frame of it counted), and up
    to 400 pages in 8 s: every mcfan_feed_*_total of a page no lower than on the page
    before and no higher than the next page's mcfan_rx_frames_total. Before, a read whose
    seqcount tries all met the writer busy returned the reader's uninitialised stack
    (values of 10^13 and more, then back), about one page in 40."""
    mport = free_port()
    eal = t.eal_args("metrics-torn", "0-1",
                     extra=["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"])
    proc = t.McfanProcess(eal, ["--groups", GROUPS, "--metrics-listen", str(mport),
                                "--seq", "239.9.9.1:3999=iperf2", "--duration", "30"])
    try:
        if not t.check(wait_metrics(mport, proc), "torn run serves /metrics"):
            return
        pages, end = [], time.monotonic() + 8
        while time.monotonic() < end and len(pages) < 400:
            pages.append(samples(http_get(mport)[2].decode()))
        bad = []
        for a, b in zip(pages, pages[1:]):
            rx = b.get(("mcfan_rx_frames_total", frozenset()), 0)
            for k, v in b.items():
                if k[0].startswith("mcfan_feed_") and k[0].endswith("_total"):
                    if v < a.get(k, 0) or v > rx:
                        bad.append((k[0], a.get(k), v, rx))
        dups = [v for p in pages for k, v in p.items() if k[0] == "mcfan_feed_duplicates_total"]
        t.check(len(pages) >= 50 and dups and dups[-1] > 0,
                f"torn run: {len(pages)} pages, the feed counting ({dups[-1:]})")
        t.check_eq(bad[:5], [], f"torn run: feed counters never back, never above the frames "
                   f"({len(bad)} bad samples in {len(pages)} pages)")
    finally:
        stop_mcfan(proc)
        t.remove_runtime_dir(eal)


def privileged_port(mcfan):
    """--metrics-listen on a port below 1024 without the privilege (root, with
    CAP_NET_BIND_SERVICE taken out of its capability bounding set by setpriv: the binary's
    path need not be open to another user, as a build under a private temporary directory
    is not): one line naming the port and what to do, exit 2, no report. Skipped without
    root or setpriv, or where unprivileged ports start at 0 (any user may bind)."""
    try:
        start = int(open("/proc/sys/net/ipv4/ip_unprivileged_port_start").read())
    except (OSError, ValueError):
        start = 1024
    if os.geteuid() != 0 or shutil.which("setpriv") is None or start <= 80:
        print("metrics: privileged_port skipped (needs root, setpriv and port 80 privileged)",
              flush=True)
        return
    eal = t.eal_args("metrics-priv", "0-1", extra=["--vdev", "net_null0"])
    p = subprocess.run(["setpriv", "--bounding-set", "-net_bind_service", "--inh-caps",
                        "-net_bind_service", mcfan, *eal, "--", "--groups", GROUPS,
                        "--duration", "5", "--metrics-listen", "127.0.0.1:80"],
                       capture_output=True, text=True, timeout=90)
    t.remove_runtime_dir(eal)
    t.check_eq(p.returncode, 2, "privileged port: exit status")
    t.check("--metrics-listen 127.0.0.1:80: port 80 is privileged (below "
            "net.ipv4.ip_unprivileged_port_start, 1024 by default): run mcfan as root or "
            "with CAP_NET_BIND_SERVICE, or give a port from 1024" in p.stderr,
            f"privileged port: the message names the port and the remedy: "
            f"{p.stderr.strip()[-300:]!r}")
    t.check("==== mcfan report" not in p.stdout, "privileged port: no report")


def port_in_use(pcap):
    hold = socket.socket()
    hold.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    hold.bind(("127.0.0.1", free_port() if PORTS else 0))
    hold.listen(1)
    port = hold.getsockname()[1]
    eal = t.eal_args("metrics-busy", "0-1", extra=["--vdev", f"net_pcap0,rx_pcap={pcap}"])
    try:
        rc, out, err, rep = t.run_mcfan(eal, ["--groups", GROUPS, "--duration", "5",
                                              "--metrics-listen", f"127.0.0.1:{port}"],
                                        timeout=90)
    finally:
        hold.close()
        t.remove_runtime_dir(eal)
    t.check_eq(rc, 2, "port in use: exit status")
    t.check(f"--metrics-listen 127.0.0.1:{port}: port {port} is in use" in err,
            f"port in use: the message names the port: {err.strip()[-300:]!r}")
    t.check(rep is None and "==== mcfan report" not in out, "port in use: no report")


def wait_metrics(port, proc, timeout=60, host="127.0.0.1"):
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.p.poll() is None:
        try:
            st, _, body, _ = http_get(port, timeout=2, host=host)
            if st == 200 and b"mcfan_rx_frames_total" in body:
                return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def check_pages(port):
    st, hd, body, _ = http_get(port)
    t.check_eq(st, 200, "GET /metrics")
    t.check_eq(hd.get("Content-Type"), TEXT_TYPE, "text format content type")
    p = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True,
                       timeout=60)
    t.check(p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(),
            f"promtool check metrics: no complaint (rc {p.returncode}: "
            f"{(p.stdout + p.stderr)[:400]!r})")
    text = body.decode()
    t.check("# TYPE mcfan_rx_frames_total counter" in text, "0.0.4: counter TYPE with _total")
    st, hd, om, _ = http_get(port, accept=OM_ACCEPT)
    t.check_eq(st, 200, "GET /metrics (OpenMetrics)")
    t.check_eq(hd.get("Content-Type"), OM_TYPE, "OpenMetrics content type")
    omt = om.decode()
    t.check(omt.endswith("\n# EOF\n"), "OpenMetrics page ends with # EOF")
    t.check("# TYPE mcfan_rx_frames counter" in omt and "\nmcfan_rx_frames_total " in omt,
            "OpenMetrics: counter family without _total, its sample with _total")
    t.check("# UNIT mcfan_lcore_state_seconds seconds" in omt and
            "# UNIT mcfan_rx_bytes bytes" in omt, "OpenMetrics: UNIT lines")
    t.check('le="+Inf"' in omt, "OpenMetrics: the latency histogram has a +Inf bucket")
    p = subprocess.run([SYS_PY, "-c", OM_CHECK], input=om, capture_output=True, timeout=60)
    t.check(p.returncode == 0, f"strict OpenMetrics parser accepts the page: "
            f"{p.stderr.decode()[-400:]!r}")
    p = subprocess.run(["promtool", "check", "metrics"], input=om, capture_output=True,
                       timeout=60)
    print(f"note: promtool 2.42 (0.0.4 parser only) on the OpenMetrics page: rc "
          f"{p.returncode}, {len((p.stdout + p.stderr).splitlines())} lines")
    # a second parser beside promtool for each format: python3-prometheus-client's 0.0.4
    # parser on the text page, its OpenMetrics parser on the other; both pages carry the
    # same samples (names and label sets) and the same family types
    tk, err = parse_keys("text", body)
    ok, err2 = parse_keys("om", om)
    if t.check(tk is not None and ok is not None, f"both parsers take the pages: {err}{err2}"):
        mine = sorted({json.dumps([n, sorted(lb)]) for (n, lb) in samples(text)})
        t.check_eq(len(tk["keys"]), len(mine), "text parser: as many samples as the page has")
        def stable(keys):
            # a group's IGMP state (joining -> idle) may change between the two pages
            out = set()
            for k in keys:
                n, lb = json.loads(k)
                if n == "mcfan_igmp_membership":
                    lb = [x for x in lb if x[0] != "state"]
                out.add(json.dumps([n, lb]))
            return out
        t.check(stable(tk["keys"]) == stable(ok["keys"]), "the OpenMetrics page has the text "
                f"page's samples: {sorted(stable(tk['keys']) ^ stable(ok['keys']))[:6]}")
        t.check(ok["types"].get("mcfan_rx_to_worker_latency_seconds") == "histogram" and
                ok["types"].get("mcfan") == "info" and
                ok["types"].get("mcfan_rx_frames") == "counter",
                f"OpenMetrics parser: histogram, info and counter families "
                f"({ {k: ok['types'].get(k) for k in ('mcfan', 'mcfan_rx_frames')} })")
    smp = samples(text)
    for name in ("mcfan_info", "mcfan_lcore_state_seconds_total",
                 "mcfan_rx_to_worker_latency_seconds_bucket", "mcfan_ring_occupancy_copies",
                 "mcfan_worker_ring_high_water_copies", "mcfan_lcore_sleep_cap_seconds",
                 "mcfan_dropped_frames_total", "mcfan_port_rx_frames_total"):
        t.check(any(n == name for n, _ in smp), f"page has {name}")
    states = {dict(lb)["state"] for (n, lb) in smp if n == "mcfan_lcore_state_seconds_total"}
    t.check("wait_cpu" in states and "poll_empty" in states, f"states include wait_cpu: {states}")
    check_latency_histogram(smp)
    info = [dict(lb) for (n, lb) in smp if n == "mcfan_info"]
    t.check(len(info) == 1 and info[0].get("dpdk_version", "").startswith("DPDK 22.11"),
            f"mcfan_info labels: {info}")
    st, hd, body, _ = http_get(port, method="HEAD")
    t.check(st == 200 and body == b"", f"HEAD: 200 and no body ({st}, {len(body)} bytes)")


def raw_exchange(port, data, timeout=5):
    """Send bytes, return what came back until the server closed (or timeout)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    got = b""
    try:
        s.sendall(data)
        while True:
            b = s.recv(4096)
            if not b:
                break
            got += b
    except (socket.timeout, ConnectionResetError):
        pass
    finally:
        s.close()
    return got


def check_keepalive(port):
    """HTTP/1.1 keep-alive: a page, a HEAD, a GET with a body and a page again on one
    connection, none with Connection: close (before: every page closed the connection,
    libmicrohttpd's answer to a response queued with the headers, so a scraper reconnected
    every scrape); a 404 still closes it."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    f = s.makefile("rb")

    def exchange(req):
        s.sendall(req)
        status = f.readline()
        hd = {}
        while True:
            line = f.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.decode().partition(":")
            hd[k.strip().lower()] = v.strip()
        body = b""
        if not req.startswith(b"HEAD") and "content-length" in hd:
            body = f.read(int(hd["content-length"]))
        return status, hd, body

    try:
        for i, req in enumerate((b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
                                 b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
                                 b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                                 b"\r\nabc",
                                 b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")):
            status, hd, body = exchange(req)
            what = f"keep-alive exchange {i} ({req.split(b' ')[0].decode()})"
            t.check(status.startswith(b"HTTP/1.1 200 "), f"{what}: 200 ({status!r})")
            t.check(hd.get("connection", "").lower() != "close",
                    f"{what}: the connection stays open (Connection: {hd.get('connection')})")
            if req.startswith(b"GET"):
                t.check(body.startswith(b"# HELP"), f"{what}: the page")
        status, hd, _ = exchange(b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
        t.check(status.startswith(b"HTTP/1.1 404 "), f"keep-alive: 404 on the connection ({status!r})")
    except (OSError, ValueError) as e:
        t.check(False, f"keep-alive exchanges on one connection: {e!r}")
    finally:
        f.close()
        s.close()


def check_bad_requests(port):
    st, hd, _, _ = http_get(port, method="POST", data=b"x=1")
    t.check_eq(st, 405, "POST /metrics")
    t.check_eq(hd.get("Allow"), "GET, HEAD", "405 names the allowed methods")
    st, _, _, _ = http_get(port, path="/")
    t.check_eq(st, 404, "GET /")
    # the absolute form of the target (RFC 9112 3.2.2: a server must accept it; before: 404)
    got = raw_exchange(port, f"GET http://127.0.0.1:{port}/metrics HTTP/1.1\r\nHost: "
                       f"127.0.0.1:{port}\r\n\r\n".encode())
    t.check(got.startswith(b"HTTP/1.1 200 ") and b"mcfan_rx_frames_total" in got,
            f"GET http://127.0.0.1:{port}/metrics: 200 and the page ({got[:40]!r})")
    got = raw_exchange(port, f"GET http://127.0.0.1:{port}/other HTTP/1.1\r\nHost: "
                       f"127.0.0.1:{port}\r\n\r\n".encode())
    t.check(got.startswith(b"HTTP/1.1 404 "), f"GET http://.../other: 404 ({got[:40]!r})")
    st, _, _, _ = http_get(port, path="/metrics/../etc")
    t.check(400 <= st < 500, f"GET /metrics/../etc: 4xx ({st})")
    for junk in (b"\x00\x01\x02garbage\r\n\r\n", b"GET /metrics HTTP/9.9\r\n\r\n",
                 b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"X-A: " + b"a" * 40000 +
                 b"\r\n\r\n"):
        got = raw_exchange(port, junk)
        m = re.match(rb"HTTP/1\.[01] (\d{3})", got)
        t.check(m is None or 400 <= int(m.group(1)) < 600 and int(m.group(1)) != 200,
                f"{junk[:24]!r}...: 4xx or cut ({got[:40]!r})")
    # a one-word request line: libmicrohttpd closes with no answer (docs/metrics.md "HTTP");
    # a later libmicrohttpd may answer 4xx, never anything else
    got = raw_exchange(port, b"garbage\r\n\r\n")
    t.check(got == b"" or re.match(rb"HTTP/1\.[01] 4\d\d ", got) is not None,
            f"'garbage' request line: closed with no answer, or a 4xx ({got[:40]!r})")
    # a request that starts with a NUL byte: libmicrohttpd reads the line as a C string, an
    # empty one, skips it as it may before a request line (RFC 9112 2.2), and waits for one:
    # no answer, the connection closed by the server at its idle timeout (docs/metrics.md)
    nul = socket.create_connection(("127.0.0.1", port), timeout=CONN_TIMEOUT_S + 20)
    try:
        nul.sendall(b"\x00GET /metrics HTTP/1.0\r\n\r\n")
        got, closed = b"", False
        while not closed:
            b = nul.recv(4096)
            got += b
            closed = b == b""
    except (socket.timeout, ConnectionResetError) as e:
        got, closed = repr(e).encode(), False
    finally:
        nul.close()
    t.check(closed and (got == b"" or re.match(rb"HTTP/1\.[01] 4\d\d ", got) is not None),
            f"a leading NUL byte: closed by mcfan with no answer, or a 4xx ({got[:40]!r})")
    got = raw_exchange(port, b"garbage x\r\n\r\n")
    t.check(got.startswith(b"HTTP/1.1 400 "), f"'garbage x' request line: 400 ({got[:40]!r})")
    # RFC 9112 3.2: an HTTP/1.1 request without Host MUST get a 400 (before: 200 and the
    # page); HTTP/1.0 has no Host to require
    got = raw_exchange(port, b"GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n")
    t.check(got.startswith(b"HTTP/1.1 400 "), f"HTTP/1.1 without Host: 400 ({got[:40]!r})")
    got = raw_exchange(port, b"GET /metrics HTTP/1.0\r\n\r\n")
    t.check(re.match(rb"HTTP/1\.[01] 200 ", got) is not None and b"mcfan_rx_frames_total" in got,
            f"HTTP/1.0 without Host: 200 and the page ({got[:40]!r})")
    # slowloris: half a request, then nothing; meanwhile scrapes are answered at once
    slow = socket.create_connection(("127.0.0.1", port), timeout=CONN_TIMEOUT_S + 5)
    slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    drip = socket.create_connection(("127.0.0.1", port), timeout=CONN_TIMEOUT_S + 5)
    drip.sendall(b"GET /metrics HTTP/1.1\r\n")
    t0 = time.monotonic()
    worst = 0.0
    for i in range(4):
        st, _, body, dt = http_get(port, timeout=5)
        worst = max(worst, dt)
        t.check(st == 200 and body.startswith(b"# HELP"), f"scrape {i} while clients stall")
        drip.sendall(b"X: y\r\n")   # a header every second: never idle
        time.sleep(1)
    t.check(worst < 2.0, f"scrapes beside stalled clients took at most {worst:.2f} s (< 2 s)")
    try:
        got = slow.recv(4096)
    except (socket.timeout, ConnectionResetError):
        got = None
    cut = time.monotonic() - t0
    t.check(got is not None and not got.startswith(b"HTTP/1.1 200"),
            f"the silent half request was cut ({got!r:.60})")
    t.check(cut < CONN_TIMEOUT_S + 4, f"... within {CONN_TIMEOUT_S} s + slack ({cut:.1f} s)")
    slow.close()
    drip.close()
    st, _, body, _ = http_get(port)
    t.check_eq(st, 200, "still serving after the bad clients")
    refused = samples(body.decode()).get(("mcfan_metrics_refused_requests_total", frozenset()))
    t.check(refused is not None and refused >= 3, f"404/405 answers counted: {refused}")


def check_slowloris(port):
    """Dripping clients (a header line every 0.5 s, never the end of the request) from
    127.0.0.2: the first CONN_PER_IP_LIMIT are let in and cut at the exchange deadline, the
    others are refused at once; scrapes from 127.0.0.1 meanwhile are answered within 1 s."""
    import select
    n = CONN_PER_IP_LIMIT + 4
    before = samples(http_get(port)[2].decode()).get(
        ("mcfan_metrics_cut_connections_total", frozenset()))
    t.check(before is not None, f"page has mcfan_metrics_cut_connections_total ({before})")
    drips = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.settimeout(2)
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        s.setblocking(False)
        drips.append([s, time.monotonic(), None])
    t0 = time.monotonic()
    worst, scrapes, bad = 0.0, 0, []
    while time.monotonic() - t0 < REQUEST_DEADLINE_S + 4 and any(d[2] is None for d in drips):
        for d in drips:
            if d[2] is not None:
                continue
            r, _, _ = select.select([d[0]], [], [], 0)
            try:
                if r and d[0].recv(4096) == b"":
                    d[2] = time.monotonic()
                    continue
                d[0].send(b"X-Drip: y\r\n")
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                d[2] = time.monotonic()
        st, _, body, dt = http_get(port, timeout=5)
        scrapes += 1
        worst = max(worst, dt)
        if st != 200 or not body.startswith(b"# HELP"):
            bad.append(st)
        time.sleep(0.5)
    held = sorted(round(d[2] - d[1], 1) for d in drips if d[2] is not None)
    print(f"slowloris: {n} dripping clients closed after {held} s; {scrapes} scrapes, "
          f"worst {worst:.2f} s")
    t.check(not bad and worst < 1.0, f"{scrapes} scrapes beside {n} dripping clients: all "
            f"answered, worst {worst:.2f} s (< 1 s; failures {bad})")
    t.check(all(d[2] is not None for d in drips), "every dripping connection was closed")
    late = [x for x in held if x >= REQUEST_DEADLINE_S - 1]
    t.check_eq(len(late), CONN_PER_IP_LIMIT,
               f"dripping connections let in (per-IP limit) and held until the deadline")
    t.check(all(x <= REQUEST_DEADLINE_S + 2.5 for x in late),
            f"... each cut within {REQUEST_DEADLINE_S} s + 2.5 s of its start: {late}")
    t.check_eq(len(held) - len(late), n - CONN_PER_IP_LIMIT,
               "the ones past the per-IP limit refused at once")
    for d in drips:
        d[0].close()
    after = samples(http_get(port)[2].decode()).get(
        ("mcfan_metrics_cut_connections_total", frozenset()))
    t.check(before is not None and after == before + CONN_PER_IP_LIMIT,
            f"mcfan_metrics_cut_connections_total {before} -> {after} "
            f"(+{CONN_PER_IP_LIMIT})")
    req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    c = socket.socket()
    c.bind(("127.0.0.2", 0))
    c.settimeout(5)
    c.connect(("127.0.0.1", port))
    c.sendall(req)
    got = c.recv(64)
    c.close()
    t.check(got.startswith(b"HTTP/1.1 200"), f"127.0.0.2 is served again after the cuts "
            f"({got[:20]!r})")


def prom_query(pport, q, at=None):
    args = {"query": q}
    if at is not None:
        args["time"] = f"{at:.3f}"
    url = f"http://127.0.0.1:{pport}/api/v1/query?" + urllib.parse.urlencode(args)
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.load(r)
    if d.get("status") != "success":
        raise RuntimeError(f"query {q}: {d}")
    return d["data"]["result"]


def start_prometheus(tmp, mport):
    pport = free_port()
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                "  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: mcfan\n"
                f"    static_configs:\n      - targets: ['127.0.0.1:{mport}']\n")
    log = open(os.path.join(tmp, "prometheus.log"), "w")
    p = subprocess.Popen(["prometheus", f"--config.file={cfg}",
                          f"--storage.tsdb.path={os.path.join(tmp, 'data')}",
                          f"--web.listen-address=127.0.0.1:{pport}", "--log.level=warn"],
                         stdout=log, stderr=log, cwd=tmp)
    return p, pport, log


def stop_prometheus(prom, log):
    """Stop a Prometheus of start_prometheus() (SIGTERM; SIGKILL after 15 s) and close its
    log."""
    prom.terminate()
    t.wait_or_kill(prom, 15)
    log.close()


def wait_scrapes(pport, n, timeout=60):
    """Wait until Prometheus has n scrapes of mcfan with the target up; the target."""
    end = time.monotonic() + timeout
    tgt = None
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{pport}/api/v1/targets",
                                        timeout=5) as r:
                act = json.load(r)["data"]["activeTargets"]
            tgt = act[0] if act else None
            res = prom_query(pport, "count_over_time(mcfan_rx_frames_total[1m])")
            if res and int(float(res[0]["value"][1])) >= n and tgt["health"] == "up":
                return tgt
        except (OSError, ValueError, KeyError, IndexError, RuntimeError):
            pass
        time.sleep(0.5)
    return tgt


def tel_counters(tel):
    v, _ = tel.query("/mcfan/counters")
    return time.time(), v["rx_frames"]


def check_prometheus(pport, tel, rx_lcore):
    tgt = wait_scrapes(pport, 7)
    if not t.check(tgt is not None and tgt.get("health") == "up",
                   f"Prometheus scrapes mcfan: {tgt}"):
        return
    t.check_eq(tgt.get("lastError"), "", "Prometheus's last scrape had no error")
    # rate over 5 s: Prometheus against the telemetry counters over the same 5 s
    ta, ra = tel_counters(tel)
    time.sleep(5.0)
    tb, rb = tel_counters(tel)
    tel_rate = (rb - ra) / (tb - ta)
    res = prom_query(pport, "rate(mcfan_rx_frames_total[5s])", at=tb)
    if t.check(len(res) == 1, f"rate(mcfan_rx_frames_total[5s]): one series ({res})"):
        prate = float(res[0]["value"][1])
        print(f"rate(mcfan_rx_frames_total[5s]) {prate:.0f}/s, telemetry {tel_rate:.0f}/s")
        t.check(tel_rate > 0 and abs(prate - tel_rate) <= 0.25 * tel_rate,
                f"rate(mcfan_rx_frames_total[5s]) {prate:.0f}/s vs telemetry "
                f"{tel_rate:.0f}/s (within 25 %)")
    # Prometheus negotiated OpenMetrics: in those 5 s (no other client) mcfan served only
    # OpenMetrics pages, one a scrape
    inc = {r["metric"]["format"]: float(r["value"][1]) for r in
           prom_query(pport, "increase(mcfan_metrics_pages_total[4s])", at=tb)}
    print(f"pages served in 4 s by format: {inc}")
    t.check(inc.get("openmetrics", 0) >= 2 and inc.get("text", -1) == 0,
            f"Prometheus's scrapes got OpenMetrics pages, no text page: {inc}")
    # the last scraped value lags mcfan's own count by at most one scrape
    tn, rn = tel_counters(tel)
    res = prom_query(pport, "mcfan_rx_frames_total")
    if t.check(len(res) == 1, "mcfan_rx_frames_total: one series"):
        ts, pv = float(res[0]["value"][0]), float(res[0]["value"][1])
        lag = rn - pv
        print(f"mcfan_rx_frames_total {pv:.0f}, telemetry {rn}, lag {lag:.0f} frames")
        t.check(0 <= lag <= tel_rate * 2.5 + 1000,
                f"mcfan_rx_frames_total {pv:.0f} vs telemetry {rn}: lag {lag:.0f} frames, "
                f"at most 2.5 s of traffic ({tel_rate * 2.5:.0f})")
    # lcore state shares of the RX lcore: Prometheus vs /mcfan/msacc,LCORE (bp)
    q = (f'mcfan_lcore_state_seconds_total{{lcore="{rx_lcore}"}} / ignoring(state) '
         f'group_left sum without(state) (mcfan_lcore_state_seconds_total{{lcore="{rx_lcore}"}})')
    res = prom_query(pport, q)
    one, _ = tel.query(f"/mcfan/msacc,{rx_lcore}")
    shares = {r["metric"]["state"]: float(r["value"][1]) for r in res}
    t.check(len(shares) >= 10 and "wait_cpu" in shares, f"state shares: {sorted(shares)}")
    t.check(abs(sum(shares.values()) - 1.0) < 1e-6, f"shares add up to 1 ({sum(shares.values())})")
    for st_name, share in shares.items():
        bp = one.get(f"{st_name}_bp")
        if t.check(bp is not None, f"telemetry has {st_name}_bp"):
            t.check(abs(share * 100 - bp / 100) <= 3.0,
                    f"lcore {rx_lcore} {st_name}: Prometheus {share * 100:.2f} % vs "
                    f"telemetry {bp / 100:.2f} % (within 3 points)")
    print("lcore state shares (Prometheus % / telemetry %): " + ", ".join(
        f"{k} {v * 100:.1f}/{one.get(k + '_bp', 0) / 100:.1f}" for k, v in sorted(shares.items())))
    busy = sum(v for k, v in shares.items() if k not in ("poll_empty", "sleep"))
    t.check(busy > 0.5, f"the RX lcore of an endless pcap is busy ({busy * 100:.1f} %)")
    # the latency histogram as Prometheus sees it: a finite median and mean
    for q in (f"histogram_quantile(0.5, rate({LAT}_bucket[5s]))",
              f"histogram_quantile(0.99, sum by (le) (rate({LAT}_bucket[5s])))",
              f"rate({LAT}_sum[5s]) / rate({LAT}_count[5s])"):
        res = prom_query(pport, q)
        vals = [float(r["value"][1]) for r in res]
        print(f"{q}: {vals}")
        t.check(len(vals) >= 1 and all(v == v and 0 < v < float("inf") for v in vals),
                f"{q}: a finite value > 0 ({vals})")
    # per-group frames: Prometheus vs /mcfan/groups, within one scrape of traffic
    g, _ = tel.query("/mcfan/groups")
    tg = {f"{a}:{p}": fr for a, p, fr in zip(g["group"], g["udp_port"], g["frames"])}
    res = prom_query(pport, "mcfan_group_frames_total")
    pg = {r["metric"]["group"]: float(r["value"][1]) for r in res}
    t.check_eq(sorted(pg), sorted(tg), "Prometheus has every group's frames")
    per_group_rate = tel_rate / (N_GROUPS + 1)
    for name, fr in tg.items():
        if name in pg:
            lag = fr - pg[name]
            t.check(0 <= lag <= per_group_rate * 2.5 + 1000,
                    f"group {name}: Prometheus {pg[name]:.0f} vs telemetry {fr}: lag "
                    f"{lag:.0f} (at most {per_group_rate * 2.5:.0f})")


DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")


def doc_families():
    """The metric tables of docs/metrics.md: {family as on the page (counters with _total):
    the label names of its row}."""
    doc = {}
    for line in open(os.path.join(DOCS, "metrics.md")).read().splitlines():
        m = re.match(r"\| (`(?:mcfan|process)_[^|]*) \|\s*([a-z ()0-9]+?)\s*\|\s*([^|]*?)\s*\|",
                     line)
        if m is None:
            continue
        # the label names, not the values some rows give in parentheses
        labels = set(re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", m.group(3))))
        full = None
        for n in re.findall(r"`([a-z_0-9]+)`", m.group(1)):
            if n.startswith("_") and full is not None:
                # `_p99_seconds` after `..._p50_seconds`: the same number of last parts
                n = "_".join(full.split("_")[:-(n.count("_"))]) + n
            else:
                full = n
            doc[n] = labels
    return doc


def check_dashboard_names(port):
    """Every metric of docs/grafana-mcfan.json's expressions is in docs/metrics.md's tables,
    and every label it selects, groups by or matches on is one of that row's labels (or
    instance, job, le, or made by label_replace()); and every family on this run's page
    that the tables document carries exactly the labels its row names."""
    doc = doc_families()
    t.check(len(doc) > 100, f"docs/metrics.md tables: {len(doc)} metrics")

    def exprs(o):
        if isinstance(o, dict):
            for k, v in o.items():
                yield from ([v] if k == "expr" else exprs(v))
        elif isinstance(o, list):
            for x in o:
                yield from exprs(x)

    def base(n):
        return n if n in doc else re.sub(r"_(bucket|count|sum|info)$", "", n)
    bad = []
    dash = json.load(open(os.path.join(DOCS, "grafana-mcfan.json")))
    for e in exprs(dash):
        labs = set(re.findall(r'label_replace\([^"]*"([a-z_]+)"', e))
        known = {"instance", "job", "le"} | labs
        for grp in re.findall(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*"
                              r"\(([^)]*)\)", e):
            labs |= {x.strip() for x in grp.split(",") if x.strip()}
        for sel in re.findall(r"\{([^}]*)\}", e):
            labs |= set(re.findall(r"([a-z_]+)\s*(?:=~|!~|!=|=)", sel))
        for n in set(re.findall(r"\b((?:mcfan|process)_[a-z0-9_]+)", e)):
            if base(n) not in doc:
                bad.append(("metric not in docs/metrics.md", n))
            else:
                known |= doc[base(n)]
        bad += [("label of none of its metrics", lb, e[:60]) for lb in labs - known]
    t.check_eq(bad, [], "dashboard: every metric and label is documented")
    check_page_documented(http_get(port)[2].decode(), "main page")


def check_page_documented(text, what):
    """Every family of a 0.0.4 page is in docs/metrics.md's tables with exactly the labels
    its row names (le aside)."""
    doc = doc_families()

    def base(n):
        return n if n in doc else re.sub(r"_(bucket|count|sum|info)$", "", n)
    page = {}
    for line in text.splitlines():
        m = re.match(r"([a-z_][a-z0-9_]*)(?:\{(.*)\})? ", line)
        if m and not line.startswith("#"):
            page.setdefault(m.group(1), set()).update(re.findall(r'([a-z_]+)="', m.group(2) or ""))
    drift = {n: (sorted(labs - {"le"}), sorted(doc[base(n)] - {"le"})) for n, labs in page.items()
             if base(n) in doc and labs - {"le"} != doc[base(n)] - {"le"}}
    undocumented = sorted(n for n in page if base(n) not in doc)
    t.check_eq((drift, undocumented), ({}, []),
               f"{what} vs docs/metrics.md: (families whose labels differ, undocumented "
               f"families)")


def check_docs(pport, tmp):
    """docs/metrics.md's recording rules pass `promtool check rules`; every expression of
    docs/grafana-mcfan.json is valid PromQL on the real Prometheus, and the panels' metric
    names are on the page (each panel has data)."""
    md = open(os.path.join(DOCS, "metrics.md")).read()
    m = re.search(r"Recording rules.*?```yaml\n(.*?)```", md, re.S)
    if t.check(m is not None, "docs/metrics.md has recording rules"):
        rules = os.path.join(tmp, "rules.yml")
        with open(rules, "w") as f:
            f.write(m.group(1))
        p = subprocess.run(["promtool", "check", "rules", rules], capture_output=True,
                           text=True, timeout=60)
        t.check(p.returncode == 0 and "SUCCESS: 9 rules found" in p.stdout,
                f"promtool check rules: {(p.stdout + p.stderr).strip()[-300:]!r}")
    dash = json.load(open(os.path.join(DOCS, "grafana-mcfan.json")))
    n = 0
    for panel in dash["panels"]:
        for tg in panel["targets"]:
            q = tg["expr"].replace("$instance", ".*")
            try:
                res = prom_query(pport, q)
                ok = True
            except (OSError, RuntimeError) as e:
                res, ok = [], e
            t.check(ok is True, f"dashboard {panel['title']!r}: {q[:60]}...: {ok}")
            n += len(res) > 0
    t.check(n >= 20, f"dashboard expressions with data: {n} of 25")


def stop_mcfan(proc, tel=None):
    """Close the telemetry session, if any, and stop mcfan with SIGINT if it still runs."""
    if tel is not None:
        tel.close()
    if proc.p.poll() is None:
        proc.signal(signal.SIGINT)
        proc.wait(30)


def main_run(pcap, tmp):
    mport = free_port()
    prom, pport, log = start_prometheus(tmp, mport)
    eal = t.eal_args("metrics", "0-1",
                     extra=["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"])
    rep_path = os.path.join(tmp, "report.json")
    proc = t.McfanProcess(eal, ["--groups", GROUPS, "--metrics-listen", str(mport),
                                "--report-json", rep_path, "--duration", "60"])
    tel = None
    try:
        if not t.check(wait_metrics(mport, proc), "mcfan serves /metrics on loopback"):
            return
        t.check(f"metrics on http://127.0.0.1:{mport}/metrics" in proc.stderr(),
                "start line names the address")
        tel = t.Telemetry(t.telemetry_socket(eal), proc=proc)
        tel.wait_ready()
        check_pages(mport)
        check_accept(mport)
        check_keepalive(mport)
        check_bad_requests(mport)
        check_slowloris(mport)
        check_prometheus(pport, tel, 1)
        check_docs(pport, tmp)
        check_dashboard_names(mport)
        # last scrape vs the final report: the report is later, by at most a scrape or so
        tel.close()
        tel = None
        proc.signal(signal.SIGINT)
        rc = proc.wait(60)
        t.check_eq(rc, 0, "mcfan exit status after SIGINT")
        rep = json.load(open(rep_path))
        res = prom_query(pport, "max_over_time(mcfan_rx_frames_total[1m])")
        if t.check(len(res) == 1, "last scraped rx frames"):
            pv = float(res[0]["value"][1])
            t.check(0 <= rep["rx_frames"] - pv <= rep["rx_frames"] / max(rep["duration_s"], 1)
                    * 3 + 1000, f"final report rx_frames {rep['rx_frames']} vs last scrape "
                    f"{pv:.0f}")
    finally:
        stop_mcfan(proc, tel)
        stop_prometheus(prom, log)
        t.remove_runtime_dir(eal)


class McfanWithConsole(t.McfanProcess):
    """McfanProcess with a pipe on standard input, for `-i` console commands."""

    def __init__(self, eal, app):
        import threading
        self.cmd = [t.mcfan_path(), *eal, "--", *app]
        self.t0 = time.monotonic()
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.pid = self.p.pid
        self.out = []
        self.err = []
        self._cond = threading.Condition()
        self._threads = [threading.Thread(target=self._read, args=(st, lst), daemon=True)
                         for st, lst in ((self.p.stdout, self.out), (self.p.stderr, self.err))]
        for th in self._threads:
            th.start()

    def command(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()


def max_groups_run(tmp):
    # a capture read once: counters stop at known values
    per_group = [20 + 3 * i for i in range(N_GROUPS)]
    frames = []
    # group 1 carries a 4-byte big-endian sequence number: 1..20 with 5 last (its 20 frames;
    # with --seq-window 4, 5 is lost when 9 comes and late at the end)
    seqs = [s for s in range(1, 21) if s != 5] + [5]
    per_group[0] += 1   # and first a datagram of 2 bytes: malformed for 0:4:be
    for i, n in enumerate(per_group):
        if i == 0:
            frames += [t.udp4_frame("239.9.9.1", 3999, b"xy")]
            frames += [t.udp4_frame("239.9.9.1", 3999, struct.pack(">I", s) + b"x" * 14)
                       for s in seqs]
        else:
            frames += [t.udp4_frame(f"239.9.9.{i + 1}", 3999)] * n
    pcap = os.path.join(tmp, "once.pcap")
    t.write_pcap(pcap, frames)
    # on IPv6 loopback where the host has it: [::1]:PORT
    host, listen = "127.0.0.1", None
    try:
        s6 = socket.socket(socket.AF_INET6)
        s6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s6.bind(("::1", free_port() if PORTS else 0))
        mport = s6.getsockname()[1]
        s6.close()
        host, listen = "[::1]", f"[::1]:{mport}"
    except OSError:
        mport = free_port()
        listen = f"127.0.0.1:{mport}"
    eal = t.eal_args("metrics-cap", "0-1", extra=["--vdev", f"net_pcap0,rx_pcap={pcap}"])
    proc = McfanWithConsole(eal, ["--groups", GROUPS, "--metrics-listen", listen,
                                  "--metrics-max-groups", "2", "--duration", "30",
                                  "--seq", "239.9.9.1:3999=0:4:be", "--seq-window", "4",
                                  "-i"])
    try:
        if not t.check(wait_metrics(mport, proc, host=host), f"{listen} serves /metrics"):
            return
        t.check(f"metrics on http://{listen}/metrics" in proc.stderr(), "start line")
        end = time.monotonic() + 20
        while time.monotonic() < end:
            smp = samples(http_get(mport, host=host)[2].decode())
            got = sum(by_label(smp, "mcfan_group_frames_total", "group").values())
            if got == sum(per_group):
                break
            time.sleep(0.2)
        g = by_label(smp, "mcfan_group_frames_total", "group")
        t.check_eq(sorted(g), sorted(["239.9.9.1:3999", "239.9.9.2:3999", "_other"]),
                   "--metrics-max-groups 2: two groups and _other")
        t.check_eq(g.get("239.9.9.1:3999"), float(per_group[0]), "group 1 frames")
        t.check_eq(g.get("239.9.9.2:3999"), float(per_group[1]), "group 2 frames")
        t.check_eq(g.get("_other"), float(sum(per_group[2:])), "_other = sum of groups 3..10")
        c = by_label(smp, "mcfan_group_copies_total", "group")
        t.check_eq(c.get("_other"), float(sum(per_group[2:])), "_other copies")
        t.check_eq(smp.get(("mcfan_groups", frozenset())), float(N_GROUPS), "mcfan_groups")
        t.check_eq(smp.get(("mcfan_groups_shown", frozenset())), 2.0, "mcfan_groups_shown")
        t.check_eq(smp.get(("mcfan_rx_frames_total", frozenset())), float(len(frames)),
                   "rx frames of the capture")
        # feed quality of group 1 (--seq): the number 5 lost once 4 later numbers came, then
        # late; expected = received - late + lost + pending (20 = 20 - 1 + 1 + 0)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            fbody = http_get(mport, host=host)[2]
            fsmp = samples(fbody.decode())
            if by_label(fsmp, "mcfan_feed_late_total", "group").get("239.9.9.1:3999") == 1.0:
                break
            time.sleep(0.2)
        for name, want in (("mcfan_feed_expected_total", 20.0),
                           ("mcfan_feed_received_total", 20.0), ("mcfan_feed_lost_total", 1.0),
                           ("mcfan_feed_duplicates_total", 0.0),
                           ("mcfan_feed_reordered_total", 0.0), ("mcfan_feed_late_total", 1.0),
                           ("mcfan_feed_pending", 0.0),
                           # (before: no series; show feed and /mcfan/feed had it)
                           ("mcfan_feed_malformed_total", 1.0)):
            t.check_eq(by_label(fsmp, name, "group"), {"239.9.9.1:3999": want},
                       f"feed: {name} of the one group with --seq")
        p = subprocess.run(["promtool", "check", "metrics"], input=fbody, capture_output=True,
                           timeout=60)
        t.check(p.returncode == 0 and not (p.stdout + p.stderr).strip(),
                f"promtool check metrics on the page with feed series: "
                f"{(p.stdout + p.stderr)[:400]!r}")
        om = http_get(mport, host=host, accept=OM_ACCEPT)[2]
        p = subprocess.run([SYS_PY, "-c", OM_CHECK], input=om, capture_output=True, timeout=60)
        t.check(p.returncode == 0, f"strict OpenMetrics parser, page with feed series: "
                f"{p.stderr.decode()[-400:]!r}")
        ovr = {(dict(lb).get("lcore"), dict(lb).get("part")): v for (n, lb), v in fsmp.items()
               if n == "mcfan_lcore_sleep_overrun_drops_total"}
        t.check_eq(ovr, {("1", "ring"): 0.0, ("1", "port"): 0.0},
                   "sleep overrun per lcore and part (a capture read once: none)")
        lcs = check_latency_histogram(fsmp, exact=True)
        t.check_eq(sum(fsmp.get((LAT + "_count", frozenset({("lcore", lc)})), 0) for lc in lcs),
                   float(len(frames)), "latency _count: every copy of the capture, once")
        rings = by_label(smp, "mcfan_ring_enqueued_copies_total", "worker_lcore")
        t.check_eq(rings, {"1": float(len(frames))}, "ring 1->1 enqueued every copy")
        # clear stats (console): the console's counters start from zero, the page's frame,
        # drop, copy, port, worker, ring and latency counters do not (Prometheus counters
        # never go back: docs/metrics.md "clear stats"); the group and feed ones still do
        before = {k: v for k, v in samples(http_get(mport, host=host)[2].decode()).items()
                  if k[0] in SINCE_START_FAMS or k[0].startswith(LAT)}
        t.check(len(before) > 20, f"page before the clear: {len(before)} since-start samples")
        proc.command("clear stats")
        t.check(proc.wait_line("statistics cleared", 10, stream="out") is not None,
                "console: statistics cleared")
        proc.command("show counters")
        t.check(proc.wait_line("frames: rx 0 = delivered 0 + drops 0", 10, stream="out")
                is not None, "console: show counters from zero after the clear")
        smp = samples(http_get(mport, host=host)[2].decode())
        t.check_eq({k: smp.get(k) for k in before}, before,
                   "after clear stats: every frame, drop, copy, port, worker, ring, group, feed and "
                   "latency series of the page as before it")
        t.check_eq(smp.get(("mcfan_rx_frames_total", frozenset())), float(len(frames)),
                   "after clear stats: mcfan_rx_frames_total still the capture's frames")
        t.check_eq(by_label(smp, "mcfan_group_frames_total", "group").get("_other"),
                   float(sum(per_group[2:])), "after clear stats: _other still groups 3..10")
        t.check_eq(by_label(smp, "mcfan_feed_lost_total", "group"), {"239.9.9.1:3999": 1.0},
                   "after clear stats: the feed's lost number still counted")
        # a fresh state in the same place (set seq to another kind): the group's series go
        # on from what the old state counted (before: back to 0, a counter reset)
        feed0 = {k: v for k, v in smp.items()
                 if k[0].startswith("mcfan_feed_") and k[0].endswith("_total")}
        proc.command("set seq 239.9.9.1:3999 0:4:le")
        t.check(proc.wait_line("239.9.9.1:3999", 10, stream="out") is not None,
                "console: set seq 239.9.9.1:3999 0:4:le")
        smp = samples(http_get(mport, host=host)[2].decode())
        t.check_eq({k: smp.get(k) for k in feed0}, feed0,
                   "after set seq (a fresh state, same place): every feed counter as before")
        proc.signal(signal.SIGINT)
        t.check_eq(proc.wait(30), 0, "max-groups run: exit status after SIGINT")
    finally:
        if proc.p.poll() is None:
            proc.signal(signal.SIGINT)
            proc.wait(30)
        t.remove_runtime_dir(eal)


# families of the page counted since the start: `clear stats` does not move them
SINCE_START_FAMS = (
    "mcfan_rx_frames_total", "mcfan_rx_bytes_total", "mcfan_delivered_frames_total",
    "mcfan_copies_offered_total", "mcfan_delivered_copies_total",
    "mcfan_dropped_frames_total", "mcfan_mac_mismatch_frames_total",
    "mcfan_rx_lcore_rx_frames_total", "mcfan_rx_lcore_rx_bytes_total",
    "mcfan_rx_lcore_delivered_frames_total", "mcfan_rx_lcore_dropped_frames_total",
    "mcfan_port_dropped_frames_total", "mcfan_port_rx_frames_total",
    "mcfan_port_rx_bytes_total", "mcfan_port_rx_missed_frames_total",
    "mcfan_port_rx_error_frames_total", "mcfan_port_rx_nombuf_total",
    "mcfan_port_kernel_frames_total", "mcfan_port_kernel_dropped_frames_total",
    "mcfan_worker_copies_total", "mcfan_worker_bytes_total",
    "mcfan_worker_enqueued_copies_total", "mcfan_worker_ring_full_copies_total",
    "mcfan_ring_enqueued_copies_total", "mcfan_ring_full_copies_total",
    "mcfan_group_frames_total", "mcfan_group_copies_total", "mcfan_group_copy_drops_total",
    "mcfan_group_bytes_total", "mcfan_feed_expected_total", "mcfan_feed_received_total",
    "mcfan_feed_lost_total", "mcfan_feed_duplicates_total")

OTHER_FAMS = ("mcfan_group_frames_total", "mcfan_group_copies_total",
              "mcfan_group_copy_drops_total", "mcfan_group_bytes_total",
              "mcfan_feed_expected_total", "mcfan_feed_received_total",
              "mcfan_feed_lost_total", "mcfan_feed_duplicates_total")
FRAME_BYTES = len(t.udp4_frame("239.9.9.1", 3999, t.iperf2_payload(1)))   # other_run's frames


def start_veth_run(tmp, name, tag):
    """The start of a run with a Prometheus and a veth of its own (a TSDB of its own: only
    this run's series): (ifa, ifb, metrics port, prometheus, its port, its log), or None,
    said, when the veth pair cannot be made (not root)."""
    # MCFAN_TEST_VETH: the start of the veth names ("mcf" unless set; at most 6 characters)
    pre = os.environ.get("MCFAN_TEST_VETH", "mcf")[:6]
    ifa, ifb = f"{pre}{tag}{os.getpid() % 10000}a", f"{pre}{tag}{os.getpid() % 10000}b"
    why = t.veth_pair(ifa, ifb, up=True)
    if why is not None:
        print(f"metrics: {name} run skipped ({why})", flush=True)
        return None
    mport = free_port()
    pdir = os.path.join(tmp, name)
    os.mkdir(pdir)
    prom, pport, log = start_prometheus(pdir, mport)
    return ifa, ifb, mport, prom, pport, log


def stop_veth_run(proc, prom, log, eal, ifa):
    """The end of a run with a Prometheus and a veth of its own: SIGINT to mcfan, Prometheus
    stopped, mcfan's runtime directory and the veth pair removed; mcfan's exit status."""
    proc.signal(signal.SIGINT)
    rc = proc.wait(30)
    stop_prometheus(prom, log)
    t.remove_runtime_dir(eal)
    subprocess.run(["ip", "link", "del", ifa], capture_output=True)
    return rc


def other_run(tmp):
    """group="_other" never goes back (docs/metrics.md "Cardinality"): a veth, net_af_packet
    on one end, iperf2-sequenced frames sent into the other (AF_PACKET), --groups
    239.9.9.1-5:3999 --metrics-max-groups 2 with --seq on every group, a real Prometheus
    scraping every second, and the console (-i, a pipe): 3001 frames a group, leave
    239.9.9.5 (an _other group), leave 239.9.9.1 (a shown one), join 239.9.9.6 (takes the
    free place, from 0) and 239.9.9.7 (_other), 1000 frames to 239.9.9.2, .3, .6 and .7,
    then 239.9.9.1 and .5 joined again into their reused counter slots. After each step the page's every group and feed series is exact (the left groups' counts
    stay in _other; 239.9.9.3 is not promoted), and Prometheus's resets() of every _other
    counter series over the run is 0. Then clear stats: the since-start families
    (SINCE_START_FAMS, the group and feed ones included) go on: none lower than before the
    clear, _other 10 higher after 10 more frames, and Prometheus's resets() of each 0 over
    the run. Needs root (a veth pair);
    skipped without."""
    run = start_veth_run(tmp, "other", "mo")
    if run is None:
        return
    ifa, ifb, mport, prom, pport, log = run
    eal = t.eal_args("metrics-other", "0-1", extra=["--vdev", f"net_af_packet0,iface={ifa}"])
    proc = McfanWithConsole(eal, ["--groups", "239.9.9.1-5:3999", "--metrics-listen",
                                  str(mport), "--metrics-max-groups", "2",
                                  "--seq", "239.9.9.1-7:3999=iperf2", "--duration", "120",
                                  "-i"])
    nxt = {}   # group's last index -> next sequence number

    def send(counts):
        """counts: {group index: frames}; each group's numbers go on from its last."""
        frames = []
        for g, n in counts.items():
            first = nxt.get(g, 1)
            frames += [t.udp4_frame(f"239.9.9.{g}", 3999, t.iperf2_payload(s))
                       for s in range(first, first + n)]
            nxt[g] = first + n
        t.packet_burst(ifb, frames)

    def want_page(frames, feed, what):
        """Wait until the page's group frames and feed received are {group: value} as
        given (feed expected too; copies, bytes/frames and lost besides), then check them
        and return the page."""
        end, smp = time.monotonic() + 10, {}
        while time.monotonic() < end:
            smp = samples(http_get(mport)[2].decode())
            if (by_label(smp, "mcfan_group_frames_total", "group") == frames and
                    by_label(smp, "mcfan_feed_received_total", "group") == feed):
                break
            time.sleep(0.2)
        t.check_eq(by_label(smp, "mcfan_group_frames_total", "group"), frames,
                   f"{what}: mcfan_group_frames_total")
        t.check_eq(by_label(smp, "mcfan_group_copies_total", "group"), frames,
                   f"{what}: mcfan_group_copies_total")
        t.check_eq(by_label(smp, "mcfan_group_bytes_total", "group"),
                   {g: v * FRAME_BYTES for g, v in frames.items()},
                   f"{what}: mcfan_group_bytes_total")
        t.check_eq(by_label(smp, "mcfan_feed_received_total", "group"), feed,
                   f"{what}: mcfan_feed_received_total")
        t.check_eq(by_label(smp, "mcfan_feed_expected_total", "group"), feed,
                   f"{what}: mcfan_feed_expected_total")
        t.check_eq(set(by_label(smp, "mcfan_feed_lost_total", "group").values()), {0.0},
                   f"{what}: mcfan_feed_lost_total")
        return smp

    def console(line, reply):
        proc.command(line)
        t.check(proc.wait_line(reply, 10, stream="out") is not None,
                f"console: {line}: {reply!r}")

    def scraped(groups, shown):
        """Wait until Prometheus has scraped a page with these mcfan_groups and
        mcfan_groups_shown (the state after the last console line)."""
        end = time.monotonic() + 20
        while time.monotonic() < end:
            try:
                a = prom_query(pport, "mcfan_groups")
                b = prom_query(pport, "mcfan_groups_shown")
                if (a and b and float(a[0]["value"][1]) == groups and
                        float(b[0]["value"][1]) == shown):
                    return True
            except (OSError, ValueError, RuntimeError):
                pass
            time.sleep(0.3)
        return t.check(False, f"Prometheus scraped mcfan_groups {groups}, shown {shown}")

    g = {i: f"239.9.9.{i}:3999" for i in range(1, 8)}
    try:
        if not t.check(wait_metrics(mport, proc), "_other run serves /metrics"):
            return
        n = 3001
        send({i: n for i in range(1, 6)})
        want_page({g[1]: n, g[2]: n, "_other": 3.0 * n}, {g[1]: n, g[2]: n, "_other": 3.0 * n},
                  "3001 frames a group")
        scraped(5, 2)
        console("leave 239.9.9.5:3999", "left 239.9.9.5:3999")
        time.sleep(0.5)   # the feed binding goes at the next control tick
        smp = want_page({g[1]: n, g[2]: n, "_other": 3.0 * n},
                        {g[1]: n, g[2]: n, "_other": 3.0 * n}, "leave 239.9.9.5 (_other)")
        t.check_eq(smp.get(("mcfan_groups_shown", frozenset())), 2.0, "shown after leave .5")
        scraped(4, 2)
        console("leave 239.9.9.1:3999", "left 239.9.9.1:3999")
        time.sleep(0.5)
        smp = want_page({g[2]: n, "_other": 3.0 * n}, {g[2]: n, "_other": 3.0 * n},
                        "leave 239.9.9.1 (shown): 239.9.9.3 not promoted")
        t.check_eq(smp.get(("mcfan_groups_shown", frozenset())), 1.0, "shown after leave .1")
        scraped(3, 1)
        console("join 239.9.9.6:3999", "joined 239.9.9.6:3999")
        console("join 239.9.9.7:3999", "joined 239.9.9.7:3999")
        time.sleep(0.5)
        smp = want_page({g[2]: n, g[6]: 0, "_other": 3.0 * n}, {g[2]: n, g[6]: 0,
                        "_other": 3.0 * n}, "join .6 (the free place, from 0), .7 (_other)")
        t.check_eq(smp.get(("mcfan_groups_shown", frozenset())), 2.0, "shown after the joins")
        scraped(5, 2)
        send({2: 1000, 3: 1000, 6: 1000, 7: 1000})
        want_page({g[2]: n + 1000, g[6]: 1000, "_other": 3.0 * n + 2000},
                  {g[2]: n + 1000, g[6]: 1000, "_other": 3.0 * n + 2000},
                  "1000 more to .2, .3, .6, .7")
        scraped(5, 2)
        # counter slots reused: 1017 groups take the last free ones, leave, and once drained
        # 239.9.9.1 and .5 join again into their old slots (0 and 4), which freezes their
        # left rows (.1's shown, .5's in _other): each stays where it was counted, and the
        # new memberships (no place free) count in _other from 0
        many = "239.10.0.0-239.10.3.248:3999"
        console(f"join {many}", "(1017 groups)")
        console(f"leave {many}", "left 239.10.0.0:3999 .. 239.10.3.248:3999")
        time.sleep(1.0)   # the slots drain on the control tick
        console("join 239.9.9.1:3999", "joined 239.9.9.1:3999: counter slot 0,")
        console("join 239.9.9.5:3999", "joined 239.9.9.5:3999: counter slot 4,")
        time.sleep(0.5)
        smp = want_page({g[2]: n + 1000, g[6]: 1000, "_other": 3.0 * n + 2000},
                        {g[2]: n + 1000, g[6]: 1000, "_other": 3.0 * n + 2000},
                        "slots 0 and 4 reused by .1 and .5 again")
        t.check_eq(smp.get(("mcfan_groups", frozenset())), 7.0, "joined after the reuse")
        scraped(7, 2)
        got = {}
        for name in OTHER_FAMS:
            res = prom_query(pport, f'resets({name}{{group="_other"}}[10m])')
            got[name] = float(res[0]["value"][1]) if len(res) == 1 else res
        t.check_eq(got, {name: 0.0 for name in OTHER_FAMS},
                   "Prometheus: resets() of every _other counter over the run")
        cnt = prom_query(pport, 'count_over_time(mcfan_group_frames_total{group="_other"}[10m])')
        t.check(cnt and float(cnt[0]["value"][1]) >= 5,
                f"Prometheus holds the _other series over the steps: {cnt}")
        # clear stats: the documented reset, every group and feed series from zero (the left
        # groups' part of _other too), then counting again
        pre = samples(http_get(mport)[2].decode())
        console("clear stats", "statistics cleared")
        smp = samples(http_get(mport)[2].decode())
        # the frame, drop, copy, port, worker and ring counters go on (since the start)
        low = {k: (v, smp.get(k)) for k, v in pre.items()
               if k[0] in SINCE_START_FAMS and not smp.get(k, -1) >= v}
        t.check_eq(low, {}, "after clear stats: no since-start series below the page before")
        for name in OTHER_FAMS:
            t.check_eq(by_label(smp, name, "group"), by_label(pre, name, "group"),
                       f"after clear stats: {name} as before it (since the join)")
        send({3: 10})
        want = {g[2]: n + 1000, g[6]: 1000, "_other": 3.0 * n + 2010}
        smp = want_page(want, want, "10 frames to .3 after the clear")
        rx0 = pre[("mcfan_rx_frames_total", frozenset())]
        t.check(smp[("mcfan_rx_frames_total", frozenset())] >= rx0 + 10,
                f"mcfan_rx_frames_total goes on across the clear: {rx0} then "
                f"{smp[('mcfan_rx_frames_total', frozenset())]}")
        # Prometheus sees no reset of them over the run, the clear included
        end = time.monotonic() + 20
        while time.monotonic() < end:
            res = prom_query(pport, "mcfan_rx_frames_total")
            if res and float(res[0]["value"][1]) >= rx0 + 10:
                break
            time.sleep(0.3)
        got = {}
        for name in SINCE_START_FAMS:
            res = prom_query(pport, f"sum(resets({name}[10m]))")
            got[name] = float(res[0]["value"][1]) if len(res) == 1 else res
        t.check_eq(got, {name: 0.0 for name in SINCE_START_FAMS},
                   "Prometheus: resets() of the since-start counters over the run")
    finally:
        rc = stop_veth_run(proc, prom, log, eal, ifa)
    t.check_eq(rc, 0, "_other run: exit status after SIGINT")


def states_run(tmp):
    """mcfan_lcore_state_seconds_total never goes back while an lcore sleeps (a trial
    finding: with --idle-rx backoff:none, a snapshot guessed the sleep in progress as the
    poll_empty before it and took it back at the wake-up, so poll_empty fell at every other
    scrape and Prometheus counted each fall as a reset). net_af_packet on a veth that carries
    no frames, so the one data lcore sleeps all the time; 60 pages read 0.1 s apart, each
    state of each lcore never below the page before; a real Prometheus scraping every second
    meanwhile: resets() of every state series 0. Needs root (a veth pair); skipped without."""
    run = start_veth_run(tmp, "states", "ms")
    if run is None:
        return
    ifa, _, mport, prom, pport, log = run
    eal = t.eal_args("metrics-states", "0-1", extra=["--vdev", f"net_af_packet0,iface={ifa}"])
    proc = t.McfanProcess(eal, ["--groups", "239.9.9.1:3999", "--metrics-listen", str(mport),
                                "--idle-rx", "backoff:none", "--duration", "60"])
    try:
        if not t.check(wait_metrics(mport, proc), "states run serves /metrics"):
            return
        wait_scrapes(pport, 3)
        fam = "mcfan_lcore_state_seconds_total"
        prev, falls, pages, sleep_grew = {}, [], 0, False
        for _ in range(60):
            smp = samples(http_get(mport)[2].decode())
            cur = {k: v for k, v in smp.items() if k[0] == fam}
            for k, v in cur.items():
                if k in prev and v < prev[k]:
                    falls.append((dict(k[1]), prev[k], v))
                if k in prev and dict(k[1]).get("state") == "sleep" and v > prev[k]:
                    sleep_grew = True
            prev = cur
            pages += 1
            time.sleep(0.1)
        t.check(pages == 60 and len(prev) >= 2 * 9, f"states run: {pages} pages, "
                f"{len(prev)} state series")
        t.check(sleep_grew, "states run: the data lcore sleeps (its sleep series grows)")
        t.check_eq(falls[:5], [], f"states run: no {fam} sample below the page before "
                   f"({len(falls)} falls in {pages} pages)")
        wait_scrapes(pport, 10)
        res = prom_query(pport, f"max(resets({fam}[5m]))")
        t.check(len(res) == 1 and float(res[0]["value"][1]) == 0.0,
                f"Prometheus: resets() of every lcore state series is 0: {res}")
    finally:
        rc = stop_veth_run(proc, prom, log, eal, ifa)
    t.check_eq(rc, 0, "states run: exit status after SIGINT")


def windows_run(pcap, tmp):
    """The msacc series of /metrics are counters since the lcore's accounting started: the
    console's msacc windows do not touch them (a trial finding: after `msacc start 200` every
    mcfan_lcore_* msacc series froze at the timed window's end, rate() read 0 for a busy
    lcore until the next msacc reset, and msacc reset and start took them back to 0).
    A capture replayed forever, -i on a pipe: pages before, during and after a timed
    window and after a reset; no sample below the page before, the RX lcore's polls and
    time grow after the timed window ended."""
    mport = free_port()
    eal = t.eal_args("metrics-windows", "0-1",
                     extra=["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"])
    proc = McfanWithConsole(eal, ["-i", "--groups", "239.9.9.1-10:3999", "--metrics-listen",
                                  str(mport), "--duration", "30"])
    fams = ("mcfan_lcore_state_seconds_total", "mcfan_lcore_polls_total",
            "mcfan_lcore_empty_polls_total", "mcfan_lcore_sleeps_total",
            "mcfan_lcore_wakeups_total")

    def page():
        smp = samples(http_get(mport)[2].decode())
        return {k: v for k, v in smp.items() if k[0] in fams}

    def rx_sum(pg, fam):
        return sum(v for (n, lb), v in pg.items() if n == fam and dict(lb)["lcore"] == "1")

    try:
        if not t.check(wait_metrics(mport, proc), "windows run serves /metrics"):
            return
        time.sleep(0.5)
        pages = [page()]
        proc.command("msacc start 200")
        t.check(proc.wait_line("msacc window of 200 ms started", 10, stream="out") is not None,
                "console: msacc start 200")
        pages.append(page())
        time.sleep(1.0)
        pages.append(page())
        time.sleep(1.0)
        pages.append(page())
        proc.command("msacc reset")
        t.check(proc.wait_line("msacc window reset", 10, stream="out") is not None,
                "console: msacc reset")
        pages.append(page())
        falls = [(k, a[k], b[k]) for a, b in zip(pages, pages[1:]) for k in b
                 if k in a and b[k] < a[k]]
        t.check_eq(falls[:4], [], f"windows run: no msacc sample below the page before "
                   f"({len(falls)} falls over {len(pages)} pages)")
        for fam in ("mcfan_lcore_polls_total", "mcfan_lcore_state_seconds_total"):
            a, b = rx_sum(pages[2], fam), rx_sum(pages[3], fam)
            t.check(b > a, f"windows run: the RX lcore's {fam} grows after the timed window "
                    f"ended ({a} -> {b})")
        a, b = rx_sum(pages[2], fams[0]), rx_sum(pages[3], fams[0])
        t.check(b - a > 0.5, f"windows run: about 1 s of RX lcore time between pages 1 s "
                f"apart: {b - a:.3f} s")
    finally:
        stop_mcfan(proc)
        t.remove_runtime_dir(eal)


def igmp_frame(dst, msg, ttl=1, fix=True):
    """An IGMP message in IPv4 with the Router Alert option (as test_igmp.py builds it)."""
    if fix:
        msg = msg[:2] + struct.pack("!H", t._csum(msg[:2] + b"\0\0" + msg[4:])) + msg[4:]
    return t.eth(t.mac_for_group(dst), 0x0800,
                 t.ipv4("198.18.0.254", dst, 2, msg, ihl=6, options=b"\x94\x04\0\0", ttl=ttl))


def labels_frames():
    """Two captures (port 0, port 1): group frames, frames of every RX-side drop reason,
    IGMP/MLD frames, and an A/B pair (line A on port 0, line B on port 1)."""
    uni = t.eth(b"\x02\x00\x00\x00\x00\x09", 0x0800,
                t.ipv4("198.18.0.1", "198.18.0.9", 17, t.udp(40000, 3999, b"x" * 18)))
    tcp = t.eth(t.mac_for_group("239.9.9.1"), 0x0800,
                t.ipv4("198.18.0.1", "239.9.9.1", 6, b"x" * 20))
    frag = t.eth(t.mac_for_group("239.9.9.1"), 0x0800,
                 t.ipv4("198.18.0.1", "239.9.9.1", 17, t.udp(40000, 3999, b"x" * 18),
                        frag=0x2000))
    trunc = t.eth(t.mac_for_group("239.9.9.1"), 0x0800,
                  t.ipv4("198.18.0.1", "239.9.9.1", 17, t.udp(40000, 3999, b"x" * 18),
                         total_len=400))
    bad_ihl = bytearray(t.udp4_frame("239.9.9.2", 3999))
    bad_ihl[14] = 0x44                                   # IHL 4 < 5: malformed
    q2 = bytes([0x11, 10, 0, 0, 0, 0, 0, 0])             # v2 general query, 1 s to answer
    bad_q = igmp_frame("224.0.0.1", q2)
    bad_q = bad_q[:-1] + bytes([bad_q[-1] ^ 0xff])       # bad checksum
    line_a = [t.udp4_frame("239.9.9.5", 3999, struct.pack(">I", n) + b"a" * 14)
              for n in range(1, 21) if n != 5]
    line_b = [t.udp4_frame("239.9.9.6", 3999, struct.pack(">I", n) + b"b" * 14)
              for n in range(1, 21) if n != 7]
    p0 = ([t.udp4_frame(f"239.9.9.{g}", 3999) for g in (1, 2, 3, 4) for _ in range(5)] +
          [t.udp4_frame("239.9.8.1", 3999)] * 3 + [uni] * 2 + [tcp] * 2 +
          [igmp_frame("224.0.0.1", q2)] + line_a)
    p1 = ([t.udp4_frame(f"239.9.9.{g}", 3999) for g in (7, 8, 9, 10) for _ in range(4)] +
          [frag] * 2 + [bytes(bad_ihl)] + [trunc] + [bad_q] + line_b)
    want = [{"unknown_group": 3, "not_multicast": 2, "not_udp": 2, "control": 1},
            {"fragment": 2, "malformed": 1, "truncated": 1, "control": 1}]
    return p0, p1, want


def two_port_run(tmp, name, tx, app, console=False):
    """labels_frames() written as two captures tmp/NAME0.pcap, tmp/NAME1.pcap, and mcfan
    started on them: net_pcap0 and net_pcap1 (tx_pcap tmp/TX0.pcap, TX1.pcap), lcores
    0@0,1@1,2@1, --groups GROUPS, app (roles and more), /metrics on a free port, 30 s,
    report tmp/NAME-report.json. Returns (p0, p1, want, eal, port, report path, the
    McfanProcess; with console a McfanWithConsole, -i)."""
    p0, p1, want = labels_frames()
    pc = []
    for i, fr in enumerate((p0, p1)):
        pc.append(os.path.join(tmp, f"{name}{i}.pcap"))
        t.write_pcap(pc[-1], fr)
    mport = free_port()
    rep_path = os.path.join(tmp, f"{name}-report.json")
    eal = t.eal_args(f"metrics-{name}")[2:] + [
        "--lcores", "0@0,1@1,2@1",
        "--vdev", f"net_pcap0,rx_pcap={pc[0]},tx_pcap={os.path.join(tmp, tx + '0.pcap')}",
        "--vdev", f"net_pcap1,rx_pcap={pc[1]},tx_pcap={os.path.join(tmp, tx + '1.pcap')}"]
    args = ["--groups", GROUPS, *app, "--metrics-listen", str(mport), "--duration", "30",
            "--report-json", rep_path]
    proc = McfanWithConsole(eal, args + ["-i"]) if console else t.McfanProcess(eal, args)
    return p0, p1, want, eal, mport, rep_path, proc


# families of the page that clear stats still resets (docs/metrics.md "clear stats"): none
CLEARED_FAMS = ()


def clear_run(tmp):
    """clear stats moves no counter of the page (docs/metrics.md "clear stats"): labels_run's two captures (every RX-side drop reason, IGMP/MLD queries and
    their answers, an A/B pair), read once; once the page has settled, a console clear
    stats, and every counter sample (_total, histogram _bucket, _count, _sum) of the page
    after it is at least its value before (the RX side's exactly: nothing arrives), while
    show counters starts from zero."""
    p0, p1, want, eal, mport, rep_path, proc = two_port_run(
        tmp, "clear", "tx", ["--rx-lcores", "1-2", "--worker-lcores", "2",
                             "--metrics-max-groups", "4",
                             "--seq", "239.9.9.5-6:3999=0:4:be",
                             "--seq-pair", "239.9.9.5:3999,239.9.9.6:3999"], console=True)
    total = len(p0) + len(p1)

    def counters(smp):
        return {k: v for k, v in smp.items()
                if k[0].endswith(("_total", "_bucket", "_count", "_sum"))
                and not k[0].startswith(CLEARED_FAMS)}
    try:
        if not t.check(wait_metrics(mport, proc), "clear run serves /metrics"):
            return
        end, last, stable = time.monotonic() + 20, None, 0
        while time.monotonic() < end and stable < 3:
            smp = samples(http_get(mport)[2].decode())
            keys = {k: v for k, v in counters(smp).items()
                    if not k[0].startswith(("mcfan_lcore", "mcfan_metrics"))}
            settled = smp.get(("mcfan_rx_frames_total", frozenset())) == total
            stable = stable + 1 if settled and keys == last else 0
            last = keys
            time.sleep(0.5)
        t.check(stable >= 3, "clear run: the counters settled")
        before = counters(smp)
        t.check(any(k[0].startswith("mcfan_igmp_") and v > 0 for k, v in before.items()),
                "clear run: IGMP/MLD counters counted something before the clear")
        proc.command("clear stats")
        t.check(proc.wait_line("statistics cleared", 10, stream="out") is not None,
                "clear run: console: statistics cleared")
        proc.command("show counters")
        t.check(proc.wait_line("frames: rx 0 = delivered 0 + drops 0", 10, stream="out")
                is not None, "clear run: show counters from zero after the clear")
        after = counters(samples(http_get(mport)[2].decode()))
        low = {k: (v, after.get(k)) for k, v in before.items() if not after.get(k, -1) >= v}
        t.check_eq(low, {}, "clear run: no counter of the page below its value before the "
                   "clear")
        t.check_eq(after.get(("mcfan_rx_frames_total", frozenset())), float(total),
                   "clear run: mcfan_rx_frames_total still every frame of the captures")
        proc.signal(signal.SIGINT)
        t.check_eq(proc.wait(30), 0, "clear run: exit status after SIGINT")
    finally:
        if proc.p.poll() is None:
            proc.signal(signal.SIGINT)
            proc.wait(30)
        t.remove_runtime_dir(eal)


def labels_run(tmp):
    """Drops where they arise, IGMP/MLD and A/B series, against the report: two ports, each
    polled by its own RX lcore (lcores 1 and 2), one worker; captures read once, so the
    last page and the report show the same frozen counters."""
    p0, p1, want, eal, mport, rep_path, proc = two_port_run(
        tmp, "labels", "tx", ["--rx-lcores", "1-2", "--worker-lcores", "2",
                              "--metrics-max-groups", "4",
                              "--seq", "239.9.9.5-6:3999=0:4:be",
                              "--seq-pair", "239.9.9.5:3999,239.9.9.6:3999"])
    total = len(p0) + len(p1)
    try:
        if not t.check(wait_metrics(mport, proc), "labels run serves /metrics"):
            return
        # every frame counted, the IGMP answers (1 s) sent, the pair's windows settled
        end = time.monotonic() + 20
        last, stable = None, 0
        while time.monotonic() < end:
            body = http_get(mport)[2].decode()
            smp = samples(body)
            keys = {k: v for k, v in smp.items() if not k[0].startswith(
                ("mcfan_uptime", "mcfan_lcore", "mcfan_metrics", "mcfan_igmp_querier_age",
                 "mcfan_mbufs_in_use", "mcfan_idle", "mcfan_worker_ring_waiting",
                 "mcfan_ring_occupancy"))}
            if smp.get(("mcfan_rx_frames_total", frozenset())) == total and keys == last:
                stable += 1
                if stable >= 3:
                    break
            else:
                stable = 0
            last = keys
            time.sleep(0.5)
        t.check(stable >= 3, "labels run: the counters settled")
        p = subprocess.run(["promtool", "check", "metrics"], input=body.encode(),
                           capture_output=True, timeout=60)
        t.check(p.returncode == 0 and not (p.stdout + p.stderr).strip(),
                f"promtool check metrics, page with per-lcore, IGMP and A/B series: "
                f"{(p.stdout + p.stderr)[:400]!r}")
        check_page_documented(body, "labels page")
        om = http_get(mport, accept=OM_ACCEPT)[2]
        p = subprocess.run([SYS_PY, "-c", OM_CHECK], input=om, capture_output=True, timeout=60)
        t.check(p.returncode == 0, f"strict OpenMetrics parser, labels page: "
                f"{p.stderr.decode()[-400:]!r}")
        proc.signal(signal.SIGINT)
        t.check_eq(proc.wait(30), 0, "labels run: exit status after SIGINT")
        rep = json.load(open(rep_path))
        check_drop_labels(smp, rep, want, total)
        check_igmp_series(smp, rep)
        check_pair_series(smp, rep)
    finally:
        if proc.p.poll() is None:
            proc.signal(signal.SIGINT)
            proc.wait(30)
        t.remove_runtime_dir(eal)


def series(smp, name):
    return {lb: v for (n, lb), v in smp.items() if n == name}


def check_drop_labels(smp, rep, want, total):
    reasons = sorted(rep["drops"])
    tot = {dict(lb)["reason"]: v for lb, v in series(smp, "mcfan_dropped_frames_total").items()}
    t.check_eq(tot, {r: float(rep["drops"][r]) for r in reasons},
               "mcfan_dropped_frames_total by reason = the report's drops")
    pairs = {(dict(lb)["lcore"], dict(lb)["port"]) for lb in series(smp, "mcfan_rx_pair_info")}
    t.check_eq(pairs, {("1", "0"), ("2", "1")}, "mcfan_rx_pair_info: lcore 1 polls port 0, "
               "lcore 2 port 1")
    lc = {}
    for lb, v in series(smp, "mcfan_rx_lcore_dropped_frames_total").items():
        d = dict(lb)
        lc.setdefault(d["lcore"], {})[d["reason"]] = v
    pt = {}
    for lb, v in series(smp, "mcfan_port_dropped_frames_total").items():
        d = dict(lb)
        pt.setdefault(d["port"], {})[d["reason"]] = v
    t.check_eq(sorted(lc), ["1", "2"], "per-RX-lcore drops: both RX lcores")
    t.check_eq(sorted(pt), ["0", "1"], "per-port drops: both ports (one RX lcore each)")
    for r in reasons:
        t.check_eq(sum(x.get(r, 0) for x in lc.values()), float(rep["drops"][r]),
                   f"{r}: the RX lcores' drops add up to the report's")
        t.check_eq(sum(x.get(r, 0) for x in pt.values()), float(rep["drops"][r]),
                   f"{r}: the ports' drops add up to the report's")
    for port, lcore, w in (("0", "1", want[0]), ("1", "2", want[1])):
        got = {r: v for r, v in pt.get(port, {}).items() if v}
        t.check_eq(got, {r: float(n) for r, n in w.items()},
                   f"port {port}: the drops of its capture, each under its reason")
        t.check_eq(lc.get(lcore), pt.get(port), f"lcore {lcore} = port {port}")
    rx = {dict(lb)["lcore"]: v for lb, v in series(smp, "mcfan_rx_lcore_rx_frames_total").items()}
    dl = {dict(lb)["lcore"]: v for lb, v in
          series(smp, "mcfan_rx_lcore_delivered_frames_total").items()}
    t.check_eq(sum(rx.values()), float(rep["rx_frames"]), "RX lcores' frames = report rx_frames")
    t.check_eq(float(rep["rx_frames"]), float(total), "report rx_frames = the captures")
    t.check_eq(sum(dl.values()), float(rep["delivered_frames"]),
               "RX lcores' delivered frames = report delivered_frames")
    for k in rx:
        t.check_eq(rx[k], dl.get(k, 0) + sum(lc[k].values()),
                   f"lcore {k}: rx = delivered + drops")
    # per ring and per worker: ring_full copies (none here, but the sums must hold)
    ring = sum(series(smp, "mcfan_ring_full_copies_total").values())
    wrk = sum(series(smp, "mcfan_worker_ring_full_copies_total").values())
    t.check_eq(ring, float(sum(w["ring_drops"] for w in rep["workers"])),
               "rings' full copies = the report's workers' ring_drops")
    t.check_eq(wrk, ring, "workers' full copies = rings' full copies")


def check_igmp_series(smp, rep):
    """The IGMP/MLD series = the report's igmp section, port by port; the capture's query
    and invalid frames where they were sent."""
    ig = rep.get("igmp") or {}
    ports = ig.get("ports", [])
    t.check_eq(sorted(str(p["port"]) for p in ports), ["0", "1"], "report: IGMP on both ports")
    t.check_eq(smp.get(("mcfan_igmp_dequeued_frames_total", frozenset())),
               float(ig.get("dequeued", -1)), "mcfan_igmp_dequeued_frames_total = report")

    def one(name, **lb):
        return smp.get((name, frozenset((k, str(v)) for k, v in lb.items())))

    for p in ports:
        port = p["port"]
        # reports go out on timers (IGMPv2: up to 10 s apart), also after the last page:
        # what was sent by then is at most what the report counts at exit
        got = one("mcfan_igmp_tx_frames_total", port=port)
        t.check(got is not None and 1 <= got <= p["tx_frames"],
                f"port {port}: tx frames {got}, at most the report's {p['tx_frames']}")
        for proto, vmax in (("igmp", 3), ("mld", 2)):
            r = p[proto]
            t.check_eq(one("mcfan_igmp_version", port=port, proto=proto), float(r["version"]),
                       f"port {port} {proto}: version = report")
            t.check_eq(one("mcfan_igmp_querier_version", port=port, proto=proto),
                       float(r["querier_version"] or 0), f"port {port} {proto}: querier "
                       f"version = report ({r['querier_version']})")
            t.check_eq(one("mcfan_igmp_queries_taken_total", port=port, proto=proto),
                       float(r["taken"]), f"port {port} {proto}: queries taken = report")
            for kind in ("general", "group", "source"):
                for v in range(1, vmax + 1):
                    t.check_eq(one("mcfan_igmp_queries_total", port=port, proto=proto,
                                   kind=kind, version=v),
                               float(r[f"queries_{kind}"][f"v{v}"]),
                               f"port {port} {proto}: {kind} queries v{v} = report")
            for fam, key in (("mcfan_igmp_reports_sent_total", "reports_sent"),
                             ("mcfan_igmp_leaves_sent_total", "leaves_sent")):
                for v in range(1, vmax + 1):
                    got = one(fam, port=port, proto=proto, version=v)
                    t.check(got is not None and got <= r[key][f"v{v}"],
                            f"port {port} {proto}: {key} v{v} {got}, at most the report's "
                            f"{r[key][f'v{v}']}")
            for reason, n in r["invalid"].items():
                t.check_eq(one("mcfan_igmp_invalid_frames_total", port=port, proto=proto,
                               reason=reason), float(n),
                           f"port {port} {proto}: invalid {reason} = report ({n})")
            mem = {(dict(lb)["group"], dict(lb)["state"]): v for lb, v in
                   series(smp, "mcfan_igmp_membership").items()
                   if dict(lb)["port"] == str(port) and dict(lb)["proto"] == proto}
            # --metrics-max-groups 4: the first 4 groups by name, the rest counted per
            # state under group="_other"
            named = sorted(g for g, _ in mem if g != "_other")
            t.check_eq(named, sorted(g["group"] for g in r["groups"][:4]),
                       f"port {port} {proto}: membership series of the first 4 groups")
            t.check_eq(sum(mem.values()), float(len(r["groups"])),
                       f"port {port} {proto}: membership adds up to the groups")
            t.check(all(v == 1.0 for (g, _), v in mem.items() if g != "_other") and
                    {st for _, st in mem} <= {"joining", "idle", "delaying", "leaving"},
                    f"port {port} {proto}: one series a group, with its state: {mem}")
            t.check_eq(one("mcfan_igmp_groups", port=port, proto=proto),
                       float(len(r["groups"])), f"port {port} {proto}: groups")
    # what the captures held: a v2 general query on port 0, a bad checksum on port 1
    t.check_eq(one("mcfan_igmp_queries_total", port=0, proto="igmp", kind="general",
                   version=2), 1.0, "port 0: the capture's IGMPv2 general query")
    t.check_eq(one("mcfan_igmp_querier_version", port=0, proto="igmp"), 2.0,
               "port 0: querier version 2")
    t.check_eq(one("mcfan_igmp_querier_version", port=1, proto="igmp"), 0.0,
               "port 1: no querier")
    t.check_eq(one("mcfan_igmp_invalid_frames_total", port=1, proto="igmp",
                   reason="bad_checksum"), 1.0, "port 1: the capture's bad checksum")
    t.check((one("mcfan_igmp_reports_sent_total", port=0, proto="igmp", version=2) or 0) >= 1,
            "port 0: the general query answered with IGMPv2 reports")


def check_pair_series(smp, rep):
    """The A/B series = the report's feed_pairs (line A on port 0 lacks 5, line B on port 1
    lacks 7: the merged stream has all 20; how many each line is counted as missing depends
    on which RX lcore read its capture first, so only the equality is asserted)."""
    pairs = rep.get("feed_pairs") or []
    if not t.check(len(pairs) == 1, f"report: one A/B pair ({len(pairs)})"):
        return
    pr = pairs[0]
    name = "239.9.9.5:3999,239.9.9.6:3999"
    info = [dict(lb) for lb in series(smp, "mcfan_feed_pair_info")]
    t.check_eq(info, [{"pair": name, "lcore": str(pr["lcore"])}], "mcfan_feed_pair_info")
    for fam, key in (("mcfan_feed_pair_expected_total", "expected"),
                     ("mcfan_feed_pair_received_total", "received"),
                     ("mcfan_feed_pair_merged_lost_total", "lost")):
        t.check_eq(smp.get((fam, frozenset({("pair", name)}))), float(pr["merged"][key]),
                   f"{fam} = report merged {key} ({pr['merged'][key]})")
    t.check_eq(pr["merged"]["received"], 20, "merged: every number 1..20 from one line or "
               "the other")
    for ln in pr["lines"]:
        lb = frozenset({("pair", name), ("line", ln["line"]), ("group", ln["group"])})
        for fam, key in (("mcfan_feed_pair_first_arrivals_total", "first_arrivals"),
                         ("mcfan_feed_pair_lost_total", "lost"),
                         ("mcfan_feed_pair_arb_duplicates_total", "arb_duplicates")):
            t.check_eq(smp.get((fam, lb)), float(ln[key]),
                       f"line {ln['line']}: {fam} = report {key} ({ln[key]})")
        for fam, key in (("mcfan_feed_pair_skew_p50_seconds", "skew_p50_ns"),
                         ("mcfan_feed_pair_skew_p99_seconds", "skew_p99_ns"),
                         ("mcfan_feed_pair_skew_max_seconds", "skew_max_ns")):
            got = smp.get((fam, lb))
            t.check(got is not None and abs(got - ln[key] / 1e9) <= 1e-9 * max(1, ln[key]),
                    f"line {ln['line']}: {fam} {got} = report {key} {ln[key]} ns")


def settle(mport, done, timeout=20):
    """Poll the page until done(smp) holds and the counter samples stop moving (3 equal pages
    in a row); (smp, body) of the last page, or (None, body)."""
    end = time.monotonic() + timeout
    last, stable, smp, body = None, 0, None, ""
    skip = ("mcfan_uptime", "mcfan_lcore", "mcfan_metrics", "mcfan_igmp_querier_age",
            "mcfan_mbufs_in_use", "mcfan_idle", "mcfan_worker_ring_waiting",
            "mcfan_ring_occupancy")
    while time.monotonic() < end:
        body = http_get(mport)[2].decode()
        smp = samples(body)
        keys = {k: v for k, v in smp.items() if not k[0].startswith(skip)}
        if done(smp) and keys == last:
            stable += 1
            if stable >= 3:
                return smp, body
        else:
            stable = 0
        last = keys
        time.sleep(0.4)
    return None, body


def promtool_ok(body, what):
    p = subprocess.run(["promtool", "check", "metrics"], input=body.encode(),
                       capture_output=True, timeout=60)
    t.check(p.returncode == 0 and not (p.stdout + p.stderr).strip(),
            f"promtool check metrics, {what}: {(p.stdout + p.stderr)[:400]!r}")
    check_page_documented(body, what)


ENGINE_FAMS = {0: ("mcfan_engine_delivered_copies_total", "counter"),
               1: ("mcfan_engine_dropped_copies_total", "reason"),
               2: ("mcfan_engine_value", "counter")}


def engine_series(smp):
    """{lcore: {counter name: value}} over the three engine families, and the engine label
    of each lcore, and {lcore: {name: family}}."""
    vals, engines, fam = {}, {}, {}
    for name, key in ENGINE_FAMS.values():
        for lb, v in series(smp, name).items():
            d = dict(lb)
            vals.setdefault(d["lcore"], {})[d[key]] = v
            engines[d["lcore"]] = d["engine"]
            fam.setdefault(d["lcore"], {})[d[key]] = name
    return vals, engines, fam


def engines_run(tmp):
    """The pcap worker engine: its counters on /metrics (mcfan_engine_*) are the report's
    engine_counters, each in its family by kind; conservation over the engine's copies."""
    frames = [t.udp4_frame(f"239.9.9.{1 + i % 3}", 3999) for i in range(150)]
    pcap = os.path.join(tmp, "eng.pcap")
    t.write_pcap(pcap, frames)
    d = os.path.join(tmp, "eng-out")
    os.makedirs(d)
    mport = free_port()
    rep_path = os.path.join(tmp, "eng-report.json")
    eal = t.eal_args("metrics-eng")[2:] + ["--lcores", "0@0,1@1,2@1",
                                          "--vdev", f"net_pcap0,rx_pcap={pcap}"]
    proc = t.McfanProcess(eal, ["--groups", "239.9.9.1-3:3999", "--rx-lcores", "1",
                                "--worker-lcores", "2", "--worker-engine", f"pcap:{d}",
                                "--metrics-listen", str(mport), "--duration", "30",
                                "--report-json", rep_path])
    try:
        if not t.check(wait_metrics(mport, proc), "engines run serves /metrics"):
            return
        smp, body = settle(mport, lambda s: engine_series(s)[0].get("2", {}).get(
            "pcap_written") == len(frames))
        if not t.check(smp is not None, "engines run: every copy written, counters settled"):
            return
        promtool_ok(body, "page with engine series")
        proc.signal(signal.SIGINT)
        t.check_eq(proc.wait(30), 0, "engines run: exit status after SIGINT")
        rep = json.load(open(rep_path))
        vals, engines, fam = engine_series(smp)
        want = {str(lc["lcore"]): lc["engine_counters"] for lc in rep["lcores"]
                if lc.get("engine_counters")}
        t.check_eq(sorted(vals), sorted(want), "engine series: the lcores with counters")
        t.check_eq(engines, {"2": "pcap"}, "engine label: pcap on worker lcore 2")
        for lc, c in want.items():
            # pcap_pending may fall to 0 when the files are closed at the stop
            got = {k: v for k, v in vals.get(lc, {}).items() if k != "pcap_pending"}
            t.check_eq(got, {k: float(v) for k, v in c.items() if k != "pcap_pending"},
                       f"lcore {lc}: engine series = the report's engine_counters")
        f2 = fam.get("2", {})
        t.check_eq((f2.get("pcap_written"), f2.get("pcap_full"), f2.get("pcap_write_failed"),
                    f2.get("pcap_files"), f2.get("pcap_bytes")),
                   ("mcfan_engine_delivered_copies_total", "mcfan_engine_dropped_copies_total",
                    "mcfan_engine_dropped_copies_total", "mcfan_engine_value",
                    "mcfan_engine_value"), "engine counters: each in the family of its kind")
        v2 = vals.get("2", {})
        copies = sum(v for (n, lb), v in smp.items() if n == "mcfan_worker_copies_total")
        t.check_eq(v2.get("pcap_written", 0) + v2.get("pcap_full", 0) +
                   v2.get("pcap_write_failed", 0), copies,
                   "engine copies in (delivered + dropped) = the worker's copies")
        t.check_eq(v2.get("pcap_files"), 3.0, "pcap_files: one file a group")
    finally:
        if proc.p.poll() is None:
            proc.signal(signal.SIGINT)
            proc.wait(30)
        t.remove_runtime_dir(eal)


def outputs_run(tmp):
    """Three tx outputs on one worker lcore (--worker-engine tx and two --group-engine tx,
    all on one net_tap): every output's engine series on /metrics (label output) equal
    /mcfan/engine_outputs (telemetry) and the report's engine_outputs[].counters, per
    output; mcfan_info's file_prefix, process_start_time_seconds within this run's window,
    mcfan_rx_running 1, then 0 after the console's stop."""
    per_group = {"239.9.9.1": 61, "239.9.9.2": 37, "239.9.9.3": 23}  # outputs 1, 2, 0
    frames = [t.udp4_frame(g, 3999) for g, n in per_group.items() for _ in range(n)]
    pcap = os.path.join(tmp, "outputs.pcap")
    t.write_pcap(pcap, frames)
    tap = f"mmo{os.getpid() % 100000}"
    mport = free_port()
    rep_path = os.path.join(tmp, "outputs-report.json")
    eal = t.eal_args("metrics-out")[2:] + ["--lcores", "0@0,1@1,2@1",
                                          "--vdev", f"net_pcap0,rx_pcap={pcap}",
                                          "--vdev", f"net_tap0,iface={tap}"]
    prefix = eal[eal.index("--file-prefix") + 1]
    t_start = time.time()
    proc = McfanWithConsole(eal, [
        "--groups", "239.9.9.1-3:3999", "--rx-lcores", "1", "--worker-lcores", "2",
        "--worker-engine", "tx:net_tap0",
        "--group-engine", "239.9.9.1:3999=tx:net_tap0,dst-ip=239.1.1.1,dst-port=5001",
        "--group-engine", "239.9.9.2:3999=tx:net_tap0,dst-mac=02:11:22:33:44:55",
        "--metrics-listen", str(mport), "--duration", "30", "--report-json", rep_path, "-i"])
    tel = None
    # outputs 0..2 the tx ones; mcfan adds output 3, count (docs/delivery.md)
    want_in = {"0": 23.0, "1": 61.0, "2": 37.0}

    def outputs(smp):
        """{(output, name): value} of worker lcore 2 over the three engine families."""
        out = {}
        for name, key in ENGINE_FAMS.values():
            for lb, v in series(smp, name).items():
                d = dict(lb)
                if d.get("lcore") == "2":
                    out[(d.get("output"), d[key])] = v
        return out

    try:
        if not t.check(wait_metrics(mport, proc), "outputs run serves /metrics"):
            return
        smp, body = settle(mport, lambda s: sum(v for (o, n), v in outputs(s).items()
                                                if n in ("tx_sent", "tx_full", "tx_nohdr",
                                                         "tx_unrewritable")) == len(frames))
        if not t.check(smp is not None, "outputs run: every copy sent or dropped, settled"):
            return
        promtool_ok(body, "page with three engine outputs")
        tel = t.Telemetry(t.telemetry_socket(eal), proc=proc)
        tel.wait_ready()
        eo = tel.query("/mcfan/engine_outputs")[0]
        got = outputs(smp)
        t.check_eq(sorted({o for o, _ in got}), ["0", "1", "2"],
                   "engine series: one set per output of lcore 2")
        for i, out in enumerate(eo["output"]):
            if eo["lcore"][i] != 2:
                continue
            o = str(out)
            c = {n: v for (oo, n), v in got.items() if oo == o}
            if eo["engine"][i] == "count":
                t.check_eq(c, {}, f"output {o} (count): no engine counter series")
                continue
            t.check_eq(float(eo["frames"][i]), want_in[o], f"output {o}: copies handed to it")
            t.check_eq(c.get("tx_sent", 0) + c.get("tx_full", 0) + c.get("tx_nohdr", 0) +
                       c.get("tx_unrewritable", 0), want_in[o],
                       f"output {o}: delivered + dropped series = its copies in")
            t.check_eq((c.get("tx_sent"), c.get("tx_full", 0) + c.get("tx_nohdr", 0) +
                        c.get("tx_unrewritable", 0)),
                       (float(eo["delivered"][i]), float(eo["dropped"][i])),
                       f"output {o}: tx_sent and the drops = /mcfan/engine_outputs'")
            oc = {dict(lb)["state"]: v for lb, v in
                  series(smp, "mcfan_engine_output_copies_total").items()
                  if dict(lb)["lcore"] == "2" and dict(lb)["output"] == o}
            t.check_eq(oc, {"in": float(eo["frames"][i]), "delivered": float(eo["delivered"][i]),
                            "dropped": float(eo["dropped"][i])},
                       f"output {o}: mcfan_engine_output_copies_total = telemetry")
        t.check_eq(got.get(("1", "tx_sent")), 61.0, "output 1 (239.9.9.1) sent its 61 copies")
        # mcfan_info, process start, rx running
        info = [dict(lb) for (n, lb) in smp if n == "mcfan_info"]
        t.check(len(info) == 1 and info[0].get("file_prefix") == prefix,
                f"mcfan_info file_prefix = the EAL --file-prefix {prefix}: {info}")
        st = smp.get(("process_start_time_seconds", frozenset()))
        t_now = time.time()
        t.check(st is not None and t_start <= st <= t_now,
                f"process_start_time_seconds {st} within {t_start:.3f}..{t_now:.3f}")
        t.check_eq(smp.get(("mcfan_rx_running", frozenset())), 1.0, "mcfan_rx_running 1")
        proc.command("stop")
        end = time.monotonic() + 10
        rr = None
        while time.monotonic() < end:
            rr = samples(http_get(mport)[2].decode()).get(("mcfan_rx_running", frozenset()))
            if rr == 0.0:
                break
            time.sleep(0.2)
        t.check_eq(rr, 0.0, "mcfan_rx_running 0 after the console's stop")
        tel.close()
        tel = None
        proc.signal(signal.SIGINT)
        t.check_eq(proc.wait(30), 0, "outputs run: exit status after SIGINT")
        rep = json.load(open(rep_path))
        lc2 = [lc for lc in rep["lcores"] if lc["lcore"] == 2]
        if t.check(len(lc2) == 1 and len(lc2[0].get("engine_outputs", [])) == len(eo["output"]),
                   "report: the engine outputs of lcore 2"):
            for eo_r in lc2[0]["engine_outputs"]:
                o = str(eo_r["output"])
                if eo_r["engine"] == "count":
                    continue
                # the report is later than the page: values other than copies may move
                # (none here: every copy was handled before the page)
                t.check_eq({n: v for (oo, n), v in got.items() if oo == o},
                           {n: float(v) for n, v in eo_r["counters"].items()},
                           f"output {o}: engine series = the report's engine_outputs counters")
    finally:
        stop_mcfan(proc, tel)
        t.remove_runtime_dir(eal)


def readers_run(tmp):
    """The readers engine, --metrics-max-groups 1: ring 239.9.9.1 with series of its own, the
    other two rings summed under group _other; one reader of ring 1 (series of its own) and
    one of ring 2 (under _other), alive until the end (a reader that closes leaves the
    table); every series equals the report's readers object."""
    per = {1: 40, 2: 30, 3: 20}
    frames = []
    for g, n in per.items():
        frames += [t.udp4_frame(f"239.9.9.{g}", 3999, data=b"r" * (20 + g))] * n
    frames += [t.udp4_frame("239.9.9.1", 3999, data=b"b" * 2100)] * 2   # reader_too_big
    pcap = os.path.join(tmp, "rd.pcap")
    t.write_pcap(pcap, frames)
    mport = free_port()
    rep_path = os.path.join(tmp, "rd-report.json")
    eal = t.eal_args("metrics-rd")[2:] + ["--lcores", "0@0,1@1,2@1,3@0",
                                         "--vdev", f"net_pcap0,rx_pcap={pcap}"]
    prefix = eal[eal.index("--file-prefix") + 1]
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(t.mcfan_path()))))
    rd_bin = os.path.join(build, "app", "mcfan-read", "mcfan-read")
    proc = t.McfanProcess(eal, ["--groups", "239.9.9.1-3:3999", "--rx-lcores", "1",
                                "--worker-lcores", "2-3", "--fanout", "replicate",
                                "--worker-engine", "readers", "--metrics-max-groups", "1",
                                "--metrics-listen", str(mport), "--duration", "30",
                                "--report-json", rep_path])
    rds = []
    try:
        if not t.check(wait_metrics(mport, proc), "readers run serves /metrics"):
            return
        for g in (1, 2):
            rds.append(subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group",
                                         f"239.9.9.{g}:3999", "--oldest", "--quiet",
                                         "--no-seq", "--seconds", "40"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        written = "mcfan_reader_ring_written_frames_total"
        smp, body = settle(mport, lambda s: sum(series(s, written).values()) == sum(
            per.values()) and sum(series(s, "mcfan_reader_frames_total").values()) ==
            per[1] + per[2])
        if not t.check(smp is not None, "readers run: rings written, readers done, settled:\n" +
                       "\n".join(ln for ln in body.splitlines() if ln.startswith("mcfan_read"))):
            return
        promtool_ok(body, "page with reader series")
        om = http_get(mport, accept=OM_ACCEPT)[2]
        p = subprocess.run([SYS_PY, "-c", OM_CHECK], input=om, capture_output=True, timeout=60)
        t.check(p.returncode == 0, f"strict OpenMetrics parser, readers page: "
                f"{p.stderr.decode()[-400:]!r}")
        proc.signal(signal.SIGINT)
        t.check_eq(proc.wait(30), 0, "readers run: exit status after SIGINT")
        rr = json.load(open(rep_path)).get("readers") or {}
        rings = rr.get("rings", [])
        t.check_eq([r["group"] for r in rings], [f"239.9.9.{g}:3999" for g in per],
                   "report: three rings")
        for fam, key in ((written, "written"), ("mcfan_reader_ring_bytes_total", "bytes"),
                         ("mcfan_reader_ring_too_big_frames_total", "reader_too_big"),
                         ("mcfan_reader_ring_wakes_total", "wakes"),
                         ("mcfan_reader_ring_readers", None)):
            val = (lambda r: len(r["readers"])) if key is None else (lambda r: r[key])
            got = {dict(lb)["group"]: v for lb, v in series(smp, fam).items()}
            t.check_eq(got, {rings[0]["group"]: float(val(rings[0])),
                             "_other": float(sum(val(r) for r in rings[1:]))},
                       f"{fam}: ring 1 of its own, rings 2-3 summed under _other")
        t.check_eq(rings[0]["written"], per[1], "ring 1 written: its frames that fit")
        t.check_eq(rings[0]["reader_too_big"], 2, "ring 1: 2 frames too big")
        lcs = {dict(lb).get("lcore") for lb in series(smp, written)}
        t.check_eq(lcs, {str(rings[0]["lcore"]), None}, "ring 1's lcore label is its writer")
        no = sum(series(smp, "mcfan_readers_not_owner_copies_total").values())
        t.check_eq(no, float(rr.get("not_owner")), "not_owner copies = the report's")
        t.check_eq(sum(series(smp, "mcfan_readers_no_ring_copies_total").values()),
                   float(rr.get("no_ring")), "no_ring copies = the report's")
        # the readers engine's own counters: every copy delivered or dropped, by name
        eng = {}
        for fam in ("mcfan_engine_delivered_copies_total", "mcfan_engine_dropped_copies_total"):
            for lb, v in series(smp, fam).items():
                d = dict(lb)
                if d.get("engine") == "readers":   # summed over the two worker lcores
                    k = d.get("counter", d.get("reason"))
                    eng[k] = eng.get(k, 0.0) + v
        t.check_eq(eng, {"reader_written": float(sum(per.values())), "not_owner": float(no),
                         "reader_too_big": 2.0, "no_ring": 0.0},
                   "readers engine series: written, not_owner, too big, no ring")
        r1 = rings[0]["readers"]
        r2 = rings[1]["readers"]
        if not t.check(len(r1) == 1 and len(r2) == 1, f"one reader each on rings 1, 2: "
                       f"{r1} {r2}"):
            return
        for fam, key in (("mcfan_reader_frames_total", "frames"),
                         ("mcfan_reader_lost_frames_total", "lost"),
                         ("mcfan_reader_lapped_total", "lapped"),
                         ("mcfan_reader_lag_frames", "lag")):
            got = {(dict(lb)["group"], dict(lb)["reader"], dict(lb).get("pid")): v
                   for lb, v in series(smp, fam).items()}
            t.check_eq(got, {(rings[0]["group"], "0", str(r1[0]["pid"])): float(r1[0][key]),
                             ("_other", "_other", None): float(r2[0][key])},
                       f"{fam}: the reader of ring 1 of its own, the other under _other")
        t.check_eq((r1[0]["frames"], r2[0]["frames"]), (per[1], per[2]),
                   "the readers read every frame of their rings")
    finally:
        readers_cleanup(rds, proc, eal, prefix)


def readers_cleanup(rds, proc, eal, prefix):
    """Kill the reader processes still running, stop mcfan, remove its runtime directory and
    its reader rings in /dev/shm."""
    for r in rds:
        if r.poll() is None:
            r.kill()
            r.wait()
    if proc.p.poll() is None:
        proc.signal(signal.SIGINT)
        proc.wait(30)
    t.remove_runtime_dir(eal)
    for f in os.listdir("/dev/shm"):
        if f.startswith(f"mcfan.{prefix}."):
            os.unlink(os.path.join("/dev/shm", f))


def readers_other_run(tmp):
    """reader="_other" never goes back when readers close (docs/metrics.md "Cardinality"):
    --metrics-max-groups 1, two rings (239.9.9.1 of its own, 239.9.9.2 under group _other).
    Readers A and B on ring 1 (A first: the one place of its own; B under reader _other of
    ring 1) and C on ring 2 (under group _other, reader _other) read every frame; then all
    three close and D opens on ring 1 (A's place is free again: D takes it; B's counts are
    not replaced by D's). Every page from before the closes to the end: no counter sample
    lower than on the page before, and reader _other holds B's and C's counts exactly.
    Before: the closed readers left the reader table and their counts the _other sums, and
    a reader of _other was promoted to a place freed."""
    per = {1: 40, 2: 30}
    frames = []
    for g, n in per.items():
        frames += [t.udp4_frame(f"239.9.9.{g}", 3999, data=b"o" * (20 + g))] * n
    pcap = os.path.join(tmp, "rdo.pcap")
    t.write_pcap(pcap, frames)
    mport = free_port()
    eal = t.eal_args("metrics-rdo")[2:] + ["--lcores", "0@0,1@1,2@1",
                                          "--vdev", f"net_pcap0,rx_pcap={pcap}"]
    prefix = eal[eal.index("--file-prefix") + 1]
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(t.mcfan_path()))))
    rd_bin = os.path.join(build, "app", "mcfan-read", "mcfan-read")
    proc = t.McfanProcess(eal, ["--groups", "239.9.9.1-2:3999", "--rx-lcores", "1",
                                "--worker-lcores", "2", "--worker-engine", "readers",
                                "--metrics-max-groups", "1", "--metrics-listen", str(mport),
                                "--duration", "30"])
    rds, pages = {}, []
    fams = ("mcfan_reader_frames_total", "mcfan_reader_lost_frames_total",
            "mcfan_reader_lapped_total")

    def reader(name, g):
        rds[name] = subprocess.Popen([rd_bin, "--file-prefix", prefix, "--group",
                                      f"239.9.9.{g}:3999", "--oldest", "--quiet", "--no-seq",
                                      "--seconds", "40"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def page():
        smp = samples(http_get(mport)[2].decode())
        pages.append(smp)
        return smp

    def others(smp):
        return {(dict(lb)["group"], dict(lb)["reader"]): v for lb, v in
                series(smp, "mcfan_reader_frames_total").items() if dict(lb)["reader"] == "_other"}

    try:
        if not t.check(wait_metrics(mport, proc), "readers _other run serves /metrics"):
            return
        reader("A", 1)
        time.sleep(1.0)          # A is seen first: the place of its own
        page()
        reader("B", 1)
        reader("C", 2)
        smp, body = settle(mport, lambda s: sum(series(s, "mcfan_reader_frames_total")
                                                .values()) == 2 * per[1] + per[2])
        if not t.check(smp is not None, "readers _other run: A, B, C read every frame:\n" +
                       "\n".join(ln for ln in body.splitlines()
                                 if ln.startswith("mcfan_reader_"))):
            return
        pages.append(smp)
        want = {("239.9.9.1:3999", "_other"): float(per[1]), ("_other", "_other"): float(per[2])}
        t.check_eq(others(smp), want, "before the closes: B under ring 1's _other, C under "
                   "group _other")
        for name in ("B", "C", "A"):
            rds[name].send_signal(signal.SIGINT)
            t.check_eq(rds[name].wait(10), 0, f"reader {name} closes")
            page()
        reader("D", 1)
        smp, body = settle(mport, lambda s: any(dict(lb).get("reader") not in ("_other", None)
                                                for lb in series(s, "mcfan_reader_frames_total")))
        t.check(smp is not None, "readers _other run: D seen")
        if smp is not None:
            pages.append(smp)
            t.check_eq(others(smp), want, "after the closes: B's and C's counts still in "
                       "_other, exactly")
            own = {dict(lb)["reader"]: v for lb, v in series(smp, "mcfan_reader_frames_total")
                   .items() if dict(lb)["reader"] != "_other"}
            t.check_eq(list(own.values()), [float(per[1])], f"D has the freed place of its "
                       f"own and read ring 1: {own}")
        went_back = []
        for a, b in zip(pages, pages[1:]):
            for fam in fams:
                sa, sb = series(a, fam), series(b, fam)
                went_back += [(fam, dict(lb), sa[lb], sb.get(lb)) for lb in sa
                              if dict(lb)["reader"] == "_other" and sb.get(lb, 0.0) < sa[lb]]
        t.check_eq(went_back, [], f"no reader _other counter went back over {len(pages)} pages")
    finally:
        readers_cleanup(list(rds.values()), proc, eal, prefix)


def shared_rx_run(tmp):
    """Drops per port when ONE RX lcore polls both ports (lcore 1; worker lcore 2): the
    lcore counts each (port, queue) pair apart, so each port's drop series is exactly its
    capture's, and the ports add up to the lcore's and to the report's."""
    p0, p1, want, eal, mport, rep_path, proc = two_port_run(
        tmp, "shared", "stx", ["--rx-lcores", "1", "--worker-lcores", "2"])
    total = len(p0) + len(p1)
    try:
        if not t.check(wait_metrics(mport, proc), "shared RX lcore run serves /metrics"):
            return
        smp, body = settle(mport, lambda s: s.get(("mcfan_rx_frames_total", frozenset())) ==
                           total)
        if not t.check(smp is not None, "shared RX lcore run: every frame counted, settled"):
            return
        promtool_ok(body, "page with per-port drops of a shared RX lcore")
        proc.signal(signal.SIGINT)
        t.check_eq(proc.wait(30), 0, "shared RX lcore run: exit status after SIGINT")
        rep = json.load(open(rep_path))
        pairs = {(dict(lb)["lcore"], dict(lb)["port"]) for lb in series(smp, "mcfan_rx_pair_info")}
        t.check_eq(pairs, {("1", "0"), ("1", "1")}, "mcfan_rx_pair_info: lcore 1 polls both "
                   "ports")
        pt = {}
        for lb, v in series(smp, "mcfan_port_dropped_frames_total").items():
            d = dict(lb)
            pt.setdefault(d["port"], {})[d["reason"]] = v
        t.check_eq(sorted(pt), ["0", "1"], "per-port drops: both ports, one RX lcore")
        for port, w in (("0", want[0]), ("1", want[1])):
            got = {r: v for r, v in pt.get(port, {}).items() if v}
            t.check_eq(got, {r: float(n) for r, n in w.items()},
                       f"port {port}: exactly the drops of its capture, each under its reason")
        lc = {dict(lb)["reason"]: v for lb, v in
              series(smp, "mcfan_rx_lcore_dropped_frames_total").items()}
        for r in sorted(rep["drops"]):
            t.check_eq(sum(x.get(r, 0) for x in pt.values()), float(rep["drops"][r]),
                       f"{r}: the ports' drops add up to the report's")
            t.check_eq(lc.get(r), float(rep["drops"][r]), f"{r}: lcore 1's = the report's")
    finally:
        if proc.p.poll() is None:
            proc.signal(signal.SIGINT)
            proc.wait(30)
        t.remove_runtime_dir(eal)


def main():
    mcfan = t.mcfan_path()
    for tool in ("prometheus", "promtool"):
        if shutil.which(tool) is None:
            print(f"SKIP: {tool} not installed (Debian package prometheus)")
            sys.exit(77)
    if subprocess.run([SYS_PY, "-c", "import prometheus_client.openmetrics.parser"],
                      capture_output=True).returncode != 0:
        print("SKIP: python3-prometheus-client not installed")
        sys.exit(77)
    t0 = time.monotonic()
    bad_options(mcfan)
    bad_listen_addresses(mcfan)
    with tempfile.TemporaryDirectory(prefix="mcfan-metrics-") as tmp:
        frames = [t.udp4_frame(f"239.9.9.{1 + i % N_GROUPS}", 3999) for i in range(200)]
        frames.append(t.udp4_frame("239.9.8.1", 3999))   # unknown_group
        pcap = os.path.join(tmp, "loop.pcap")
        t.write_pcap(pcap, frames)
        # MCFAN_METRICS_ONLY=name,name: only those runs (development; CI runs all)
        only = [x for x in os.environ.get("MCFAN_METRICS_ONLY", "").split(",") if x]
        runs = (("port_in_use", lambda: port_in_use(pcap)),
                ("privileged_port", lambda: privileged_port(mcfan)),
                ("torn", lambda: torn_run(pcap, tmp)),
                ("main", lambda: main_run(pcap, tmp)), ("max_groups", lambda: max_groups_run(tmp)),
                ("other", lambda: other_run(tmp)), ("states", lambda: states_run(tmp)),
                ("windows", lambda: windows_run(pcap, tmp)),
                ("labels", lambda: labels_run(tmp)), ("clear", lambda: clear_run(tmp)),
                ("engines", lambda: engines_run(tmp)),
                ("outputs", lambda: outputs_run(tmp)),
                ("readers", lambda: readers_run(tmp)),
                ("readers_other", lambda: readers_other_run(tmp)),
                ("shared_rx", lambda: shared_rx_run(tmp)))
        for name, run in runs:
            if not only or name in only:
                t1 = time.monotonic()
                run()
                print(f"metrics: run {name}: {time.monotonic() - t1:.1f} s", flush=True)
    print(f"metrics: {time.monotonic() - t0:.1f} s")
    t.finish("metrics")


if __name__ == "__main__":
    main()
