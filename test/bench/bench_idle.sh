#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# Idle-policy benchmark (issue 6, docs/idle.md): what sleeping saves and what it costs, at a
# low offered load over the lab's veth (test/lab/lab.sh).
#
#   Load: 10 senders, one per group 239.9.9.1-10:3999, 1000 datagrams/s each of 100 bytes
#   (10 kpps in all), for SECONDS + 3 s; mcfan on net_af_packet in the receiver namespace.
#   The senders are test/bench/seed_sender (lab_send_paced, a 100 us tick: each datagram
#   leaves at its own time), which keep the rate; ten iperf 2.1.8 (-S iperf2, lab_send)
#   reached about 890/s each on this host (docs/performance.md "The senders' rate").
#   A. poll, backoff, wake: RX lcore 1 (RX only) and worker lcore 2 on CPU 1, main lcore 0 on
#      CPU 0; --fanout partition. --idle-rx/--idle-worker: poll/poll, backoff/backoff,
#      backoff/wake (an RX lcore on af_packet cannot use interrupt).
#   B. oversubscribed: RX lcore 1 and 10 worker lcores 2-11 all on CPU 1 (EAL --lcores
#      '0@0,1@1,(2-11)@1'), --fanout replicate (every worker gets every frame: 100k copies/s),
#      with wake (RX backoff), and with poll for comparison.
#   default, over-default: the same shapes without any idle option (issue 10: the placement
#      default, backoff:none / wake:none with a 5 ms max sleep on a shared CPU; -s and -t
#      do not apply to them unless -s is given).
#
# Measured per run: CPU time of the mcfan process (utime + stime from /proc/PID/stat, all
# its threads) per second of wall time over a SECONDS window that starts 1 s into the
# traffic; frames lost (datagrams on the wire that no worker counted, plus ring_full, port
# imissed and rx_nombuf); RX-to-worker latency p50/p99 (the report's per-worker histograms:
# the worst worker); sleeps and wake-ups of the data lcores (msacc). Goals (issue 6): wake
# uses <= 5 % of the CPU poll uses, with zero drops and p99 <= 100 us; oversubscribed wake
# loses nothing.
#
# Usage: test/bench/bench_idle.sh [-d SECONDS] [-b BUILD_DIR] [-s MAX_SLEEP_US] [-t THRESHOLD]
#                                 [-o] [-S SENDER] [-k]
#   -d  seconds of the CPU window per run (default 10)
#   -b  meson build directory holding app/mcfan/mcfan (default: build); or set MCFAN=path
#   -s  --idle-max-sleep-us for every run (default: mcfan's, 100)
#   -t  busy-wait threshold of the backoff and wake policies, e.g. none (default: theirs)
#   -o  only the oversubscribed runs (B)
#   -S  the senders: paced (default, lab_send_paced) or iperf2 (lab_send)
#   -k  keep the work directory (reports, logs) and print its path
# Runs as root (namespaces, EAL); no hugepages needed. A benchmark, never a timed test.

set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECS=10
BUILD=build
KEEP=0
ONLY_OVER=0
MAX_SLEEP=
THR=
SENDER=paced
while getopts "d:b:s:t:oS:kh" o; do
	case $o in
	d) SECS=$OPTARG ;;
	b) BUILD=$OPTARG ;;
	s) MAX_SLEEP=$OPTARG ;;
	t) THR=:$OPTARG ;;
	o) ONLY_OVER=1 ;;
	S) SENDER=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
case $SECS in ''|*[!0-9]*|0) echo "bench: -d wants whole seconds >= 1" >&2; exit 2 ;; esac
case $SENDER in paced|iperf2) ;; *) echo "bench: -S wants paced or iperf2" >&2; exit 2 ;; esac
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
MCFAN=${MCFAN:-$BUILD/app/mcfan/mcfan}
[ -x "$MCFAN" ] || { echo "bench: no mcfan binary at $MCFAN (meson setup/ninja, or -b)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces)" >&2; exit 2; }

NGROUPS=10
PPS=1000                          # per group
LEN=100
COUNT=$(( PPS * (SECS + 3) ))     # datagrams per group: the window plus 1 s before, 2 s after
HZ=$(getconf CLK_TCK)

WORK=$(mktemp -d /tmp/mcfan-bench-idle.XXXXXX)
export LAB_ID=bi$$ LAB_DIR=$WORK/lab
# shellcheck source=../lab/lab.sh
. "$ROOT/test/lab/lab.sh"
cleanup() {
	[ -n "${MPID:-}" ] && kill -KILL "$MPID" 2>/dev/null
	lab_down
	rm -rf "/var/run/dpdk/mcfan-bidle-$$-"*
	if [ "$KEEP" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# utime + stime of a process, clock ticks
cpu_ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# run NAME LCORES COPIES MCFAN_OPTIONS...: one measured run; appends a row to $WORK/rows
run() {
	local name=$1 lcores=$2 copies=$3
	shift 3
	local out=$WORK/$name.out rep=$WORK/$name.json t0 t1 c0 c1 i spid
	local eal=(--lcores "$lcores" --no-huge -m 512 --in-memory --file-prefix "mcfan-bidle-$$-$name"
		--no-pci --log-level lib.eal:warning
		--vdev "net_af_packet0,iface=$LAB_VRCV,qpairs=1,framecnt=4096")
	local app=(--groups "239.9.9.1-$NGROUPS:3999" --report-json "$rep" "$@")
	[ -n "$MAX_SLEEP" ] && app+=(--idle-max-sleep-us "$MAX_SLEEP")
	lab_rcv_bg "$out" "$MCFAN" "${eal[@]}" -- "${app[@]}"
	MPID=$LAB_BG_PID
	for i in $(seq 600); do
		grep -q "running:" "$out" 2>/dev/null && break
		kill -0 "$MPID" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q "running:" "$out"; then
		echo "bench: $name: mcfan did not start:" >&2
		tail -20 "$out" >&2
		return 1
	fi
	sleep 1    # settle: the lcores reach their idle state
	if [ "$SENDER" = paced ]; then
		lab_send_paced "$NGROUPS" "$COUNT" "$LEN" "$PPS" 100 &
	else
		lab_send "$NGROUPS" "$COUNT" "$LEN" "$PPS" &
	fi
	spid=$!
	sleep 1
	c0=$(cpu_ticks "$MPID"); t0=$(date +%s.%N)
	sleep "$SECS"
	c1=$(cpu_ticks "$MPID"); t1=$(date +%s.%N)
	wait "$spid" || echo "bench: $name: a sender failed (see $LAB_DIR/*.txt)" >&2
	sleep 2    # the last copies reach the workers
	kill -INT "$MPID"
	for i in $(seq 300); do
		kill -0 "$MPID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$MPID" 2>/dev/null
	wait "$MPID" 2>/dev/null
	MPID=
	[ -f "$rep" ] || { echo "bench: $name: no report" >&2; tail -20 "$out" >&2; return 1; }
	python3 - "$name" "$rep" "$c0" "$c1" "$t0" "$t1" "$HZ" "$(( NGROUPS * (COUNT + 1) ))" \
		"$copies" >>"$WORK/rows" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
c0, c1, t0, t1, hz = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7])
want, copies = int(sys.argv[8]), int(sys.argv[9])
rep = json.load(open(path))
cpu = (c1 - c0) / hz / (t1 - t0)
# copies the workers counted: groups[].copies (groups[].frames counted copies before it
# meant frames received, issue 11)
got = sum(g.get("copies", g["frames"]) for g in rep["groups"])
port = rep["ports"][0]
lost = (want * copies - got) + rep["drops"]["ring_full"] + port["imissed"] + port["rx_nombuf"]
lat = [w["latency"] for w in rep["workers"] if w["latency"]["copies"]]
p50 = max((l["p50_ns"] for l in lat), default=0) / 1e3
p99 = max((l["p99_ns"] for l in lat), default=0) / 1e3
data = [l for l in rep["lcores"] if l["role"] != "control"]
sleeps = sum(l["sleeps"] for l in data)
wakeups = sum(l["wakeups"] for l in data)
pol = ",".join(sorted({l["idle"]["policy"] for l in data}))
print(f"{name} {cpu:.4f} {got} {lost} {p50:.1f} {p99:.1f} {sleeps} {wakeups} {pol}")
PY
}

THR_TEXT=${THR#:}
THR_TEXT=${THR_TEXT:-default}
echo "bench_idle: $NGROUPS groups x $PPS datagrams/s of $LEN bytes, CPU window ${SECS} s," \
	"max sleep ${MAX_SLEEP:-100 (default)} us, threshold ${THR_TEXT}; mcfan $MCFAN"
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $(python3 -c '
import os, time
n, t0, c0 = 5000, time.monotonic(), os.times()
for _ in range(n):
    time.sleep(50e-6)
c1 = os.times()
print("one 50 us sleep costs %.1f us of CPU, lasts %.1f us" % ((c1.user + c1.system - c0.user -
      c0.system) / n * 1e6, (time.monotonic() - t0) / n * 1e6))')"
lab_up || exit 1
lab_sender_build || exit 1
: >"$WORK/rows"
BACKOFF=backoff$THR
WAKE=wake$THR
if [ "$ONLY_OVER" = 0 ]; then
	run poll "0@0,1@1,2@1" 1 --rx-lcores 1 --worker-lcores 2 --idle-rx poll --idle-worker poll
	run backoff "0@0,1@1,2@1" 1 --rx-lcores 1 --worker-lcores 2 --idle-rx "$BACKOFF" \
		--idle-worker "$BACKOFF"
	run wake "0@0,1@1,2@1" 1 --rx-lcores 1 --worker-lcores 2 --idle-rx "$BACKOFF" \
		--idle-worker "$WAKE"
	# no idle option: the placement default (lcores 1 and 2 share CPU 1, issue 10)
	run default "0@0,1@1,2@1" 1 --rx-lcores 1 --worker-lcores 2
fi
run over-wake "0@0,1@1,(2-11)@1" 10 --rx-lcores 1 --worker-lcores 2-11 --fanout replicate \
	--idle-rx "$BACKOFF" --idle-worker "$WAKE"
run over-poll "0@0,1@1,(2-11)@1" 10 --rx-lcores 1 --worker-lcores 2-11 --fanout replicate \
	--idle-rx poll --idle-worker poll
run over-default "0@0,1@1,(2-11)@1" 10 --rx-lcores 1 --worker-lcores 2-11 --fanout replicate

echo
python3 - "$WORK/rows" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
base = {k: next((float(r[1]) for r in rows if r[0] == k), None) for k in ("poll", "over-poll")}
print("% of poll: of the poll run of the same shape (over-*: of over-poll)")
print(f"{'run':<10} {'cpu s/s':>8} {'% of poll':>9} {'counted':>9} {'lost':>6} {'p50 us':>8} "
      f"{'p99 us':>8} {'sleeps':>9} {'wake-ups':>9}  policies")
for r in rows:
    poll = base["over-poll" if r[0].startswith("over") else "poll"]
    rel = f"{100 * float(r[1]) / poll:.1f}" if poll else "-"
    print(f"{r[0]:<10} {float(r[1]):>8.3f} {rel:>9} {r[2]:>9} {r[3]:>6} {r[4]:>8} {r[5]:>8} "
          f"{r[6]:>9} {r[7]:>9}  {r[8]}")
PY
