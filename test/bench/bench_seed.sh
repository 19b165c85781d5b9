#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# The seed workload against kernel sockets (issue 10, goal P5; docs/performance.md "Seed
# workload"). On the lab (test/lab/lab.sh): 10 iperf2 senders, one per group
# 239.9.9.1-10:3999, 64-byte UDP payload, RATE datagrams/s each, SECONDS of traffic, over
# the lab's veth. Three runs per rate, back to back on the same namespaces:
#
#   base    the senders alone (nothing listens): the cost of sending and of the wire;
#   kernel  test/bench/seed_reader (built here with cc): 100 UDP sockets, 10 per group,
#           joined on the receiver's veth, drained with recvmmsg() from one epoll loop;
#   mcfan   mcfan with its DEFAULT idle options on net_af_packet: --lcores
#           '0@0,1@1,(2-11)@1' -- --rx-lcores 1 --worker-lcores 2-11 --fanout replicate
#           (10 workers sharing CPU 1 with the RX lcore; 10 copies a datagram).
#
# With -M "base kprocs readers" the seed as real processes (docs/readers.md):
#   kprocs  100 processes of one UDP socket each (seed_reader -n 1 -s 1), 10 per group;
#   readers mcfan with --worker-engine readers (one run-to-completion lcore on CPU 1:
#           --lcores '0@0,1@1' -- --rx-lcores 1 --worker-lcores 1) and 100 mcfan-read
#           processes, 10 per group, on libmcfan-reader;
# the receiver's CPU is then the sum over mcfan and the 100 reader processes (or the 100
# socket processes), copies what the 100 readers (sockets) counted, and the ratio printed
# is kprocs / readers.
#
# Receive-side CPU = the busy time the run adds to the base run's over the traffic (the
# senders' start to their end + 1 s). A run's base is the mean of the nearest base run
# before it and the nearest after it at the same rate (one of them where there is only
# one): when RUNS has base, one closing base run per rate follows the last round, so that
# every round's receivers sit between two base runs and a slow drift of the host's cost
# (or one disturbed base run) weighs half. The machine is shared and the senders (iperf2's
# above all) alone can keep both CPUs busy, so machine-wide busy time saturates and is
# printed for reference only ("machine"); the figure used ("rx CPU-s") is the same difference taken
# over the lab's own CPU time: the receiver process (utime + stime, every thread), the
# senders' CPU time (what they leave to the shell that waits for them: the veth's delivery
# to the sockets or to af_packet runs as softirq in their context), the ksoftirqd threads,
# and, only on a kernel that accounts interrupt time apart (CONFIG_IRQ_TIME_ACCOUNTING),
# the machine's irq + softirq time from /proc/stat.
# - A task's utime + stime together is its scheduler runtime, exact; the split between
#   the two is sampled at the tick (250 Hz here), so cstime alone carries sampling noise.
# - With tick accounting (CONFIG_TICK_CPU_ACCOUNTING, Debian's and this host's kernel)
#   a tick in softirq is charged both to /proc/stat's softirq and to the task it
#   interrupted (account_system_time()), the sender above all: adding /proc/stat counted
#   the senders' softirq work twice, and with it af_packet's
#   and the sockets' receive work (docs/performance.md "The seed's CPU accounting").
# - The senders' user time counts for the paced senders (they sleep between ticks, so it
#   is their sending); with -S iperf2 it is left out: iperf2 paces by spinning, so it
#   grows with how long a run takes, not with the receiver's work.
# Delivered copies: what the 100 sockets counted, or what the 10 workers counted
# (groups[].copies); lost = 100 x datagrams on the wire - delivered. Printed per run: CPU-s
# of the receiver, us of CPU per delivered copy, copies, lost (%), the receiver process's
# own CPU-s, and for mcfan the cycles a frame of its RX lcore and a copy of its workers
# (its own accounting, the report's lcores[].cycles_per_frame). Last, per rate: the ratio
# kernel / mcfan of CPU per delivered copy (goal: >= 10 at 3,300/s per group; zero loss for
# mcfan at 16,500/s per group).
#
# The senders: by default test/bench/seed_sender (lab_send_paced, built with cc), one
# process per group, that sleeps between ticks of TICK_US (default 1000) and sends the datagrams due by
# each tick, so a run carries the rate asked: RATE x SECONDS datagrams a group in SECONDS.
# Debian 12's iperf 2.1.8 (-S iperf2, the lab's lab_send) does not send the rate asked on
# this host: ten of them paced by spinning sent 1,500-2,500 datagrams/s a group when asked
# for 3,300 and, with -n, did not pace at all when asked for 16,500 (49,000/s a group);
# docs/performance.md "The senders' rate". Every run prints the rate its senders reached.
#
# Usage: test/bench/bench_seed.sh [-d SECONDS] [-r ROUNDS] [-R "RATE ..."] [-b BUILD_DIR]
#                                 [-F FRAMECNT] [-V VDEV] [-M "RUN ..."] [-S SENDER] [-T TICK_US] [-k]
#                                 [-- MCFAN_OPTIONS...]
#   -d  seconds of traffic per run (default 10)
#   -r  rounds: each round runs base, kernel, mcfan at every rate (default 1); then one
#       closing base run per rate
#   -R  datagrams/s per group, space separated (default "3300 16500")
#   -b  meson build directory holding app/mcfan/mcfan (default: build); or set MCFAN=path
#   -F  framecnt of net_af_packet (default 4096, as bench_idle.sh)
#   -V  mcfan's receive vdev: af_packet (default, net_af_packet: the issues' setup) or af_xdp
#       (net_af_xdp on the same veth, libxdp's default XDP program; docs/guide.md "net_af_xdp")
#   -P  CPUS: pin the senders to these CPUs (taskset list, e.g. 0; default: not pinned)
#   -M  the runs of a round, in order (default "base kernel mcfan"; also kprocs, readers)
#   -S  the senders: paced (default, lab_send_paced) or iperf2 (lab_send)
#   -T  the paced senders' tick, microseconds (default 1000)
#   -k  keep the work directory (reports, logs) and print its path
#   MCFAN_OPTIONS after -- are added to the mcfan run (e.g. --idle-worker poll to compare)
# Runs as root; no hugepages needed. A benchmark, never a timed test.

set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECS=10
ROUNDS=1
RATES="3300 16500"
BUILD=build
FRAMECNT=4096
VDEV_KIND=af_packet
KEEP=0
PIN=
RUNS="base kernel mcfan"
SENDER=paced
TICK_US=1000
while getopts "d:r:R:b:F:V:P:M:S:T:kh" o; do
	case $o in
	d) SECS=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	R) RATES=$OPTARG ;;
	b) BUILD=$OPTARG ;;
	F) FRAMECNT=$OPTARG ;;
	V) VDEV_KIND=$OPTARG ;;
	P) PIN=$OPTARG ;;
	M) RUNS=$OPTARG ;;
	S) SENDER=$OPTARG ;;
	T) TICK_US=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
EXTRA=("$@")
case $SECS in ''|*[!0-9]*|0) echo "bench: -d wants whole seconds >= 1" >&2; exit 2 ;; esac
case $ROUNDS in ''|*[!0-9]*|0) echo "bench: -r wants a count >= 1" >&2; exit 2 ;; esac
case $VDEV_KIND in af_packet|af_xdp) ;; *) echo "bench: -V wants af_packet or af_xdp" >&2; exit 2 ;; esac
case $SENDER in paced|iperf2) ;; *) echo "bench: -S wants paced or iperf2" >&2; exit 2 ;; esac
case $TICK_US in ''|*[!0-9]*|0) echo "bench: -T wants microseconds >= 10" >&2; exit 2 ;; esac
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
MCFAN=${MCFAN:-$BUILD/app/mcfan/mcfan}
[ -x "$MCFAN" ] ||
	{ echo "bench: no mcfan binary at $MCFAN (meson setup/ninja, or -b)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces)" >&2; exit 2; }
command -v cc >/dev/null || { echo "bench: needs cc for the kernel reader" >&2; exit 2; }
for r in $RUNS; do
	case $r in
	base|kernel|mcfan|kprocs|readers) ;;
	*) echo "bench: -M: '$r' is not a run: base kernel mcfan kprocs readers" >&2; exit 2 ;;
	esac
done
READ_BIN=$BUILD/app/mcfan-read/mcfan-read
case " $RUNS " in
*" readers "*) [ -x "$READ_BIN" ] ||
	{ echo "bench: no mcfan-read at $READ_BIN (ninja -C build)" >&2; exit 2; } ;;
esac

NGROUPS=10
PER_GROUP=10                      # kernel sockets per group = mcfan workers
LEN=64
HZ=$(getconf CLK_TCK)

WORK=$(mktemp -d /tmp/mcfan-bench-seed.XXXXXX)
export LAB_ID=bs$$ LAB_DIR=$WORK/lab
# shellcheck source=../lab/lab.sh
. "$ROOT/test/lab/lab.sh"
RPID=
PROCS=()                          # the kprocs / readers processes of the current run
cleanup() {
	[ -n "$RPID" ] && kill -KILL "$RPID" 2>/dev/null
	for p in "${PROCS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	lab_down
	rm -rf "/var/run/dpdk/mcfan-bseed-$$-"*
	if [ "$KEEP" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

READER=$WORK/seed_reader
cc -O2 -Wall -Wextra -o "$READER" "$ROOT/test/bench/seed_reader.c" ||
	{ echo "bench: cannot build the kernel reader" >&2; exit 1; }

# busy ticks of the whole machine (all CPUs): user nice system irq softirq
busy_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# utime + stime of a process, clock ticks
cpu_ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# utime + stime of every ksoftirqd thread, clock ticks
ksoftirqd_ticks() {
	local p t=0 c
	for p in $(pgrep -x 'ksoftirqd/[0-9]*'); do
		c=$(cpu_ticks "$p")
		t=$(( t + c ))
	done
	echo "$t"
}

# irq + softirq ticks of the whole machine, where the kernel accounts them apart from the
# tasks they interrupt (CONFIG_IRQ_TIME_ACCOUNTING); else 0: with tick accounting they are
# already in the interrupted task's time (see the top)
IRQ_APART=0
grep -qs '^CONFIG_IRQ_TIME_ACCOUNTING=y' "/boot/config-$(uname -r)" && IRQ_APART=1
irq_ticks() {
	[ "$IRQ_APART" = 1 ] || { echo 0; return; }
	awk '/^cpu / { print $7 + $8; exit }' /proc/stat
}

# send COUNT RATE OUTFILE: the senders (lab_send_paced or lab_send), then their CPU time
# (of this subshell's children it waited for) in clock ticks to OUTFILE: cutime + cstime
# for the paced senders, cstime for iperf2 (see the top)
send() {
	(
		[ -z "$PIN" ] || taskset -pc "$PIN" "$BASHPID" >/dev/null
		if [ "$SENDER" = paced ]; then
			lab_send_paced "$NGROUPS" "$1" "$LEN" "$2" "$TICK_US" ||
				echo "bench: a sender failed (see $LAB_DIR/sender-*.txt)" >&2
		else
			lab_send "$NGROUPS" "$1" "$LEN" "$2" ||
				echo "bench: a sender failed (see $LAB_DIR/iperf-*.txt)" >&2
		fi
		awk -v u="$([ "$SENDER" = paced ] && echo 1 || echo 0)" \
			'{ sub(/^.*\) /, ""); print $15 + u * $14 }' "/proc/$BASHPID/stat" >"$3"
	)
}

# wait_for FILE PATTERN PID: until FILE holds PATTERN (60 s), or PID is gone
wait_for() {
	local i
	for i in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# stop_rcv: SIGINT the receiver, wait at most 30 s, then kill
stop_rcv() {
	local i
	[ -n "$RPID" ] || return 0
	kill -INT "$RPID" 2>/dev/null
	for i in $(seq 300); do
		kill -0 "$RPID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$RPID" 2>/dev/null
	wait "$RPID" 2>/dev/null
	RPID=
}

# utime + stime of the run's reader or socket processes (PROCS), clock ticks
procs_ticks() {
	local p t=0 c
	for p in "${PROCS[@]}"; do
		c=$(cpu_ticks "$p")
		t=$(( t + c ))
	done
	echo "$t"
}

# wait_all PATTERN FILE...: until every FILE holds PATTERN (60 s)
wait_all() {
	local pat=$1 i f n
	shift
	for i in $(seq 600); do
		n=0
		for f in "$@"; do grep -q "$pat" "$f" 2>/dev/null && n=$((n + 1)); done
		[ "$n" -eq $# ] && return 0
		sleep 0.1
	done
	return 1
}

# stop_procs SIG: signal the PROCS (the readers end by themselves once mcfan closed their
# rings), wait at most 30 s, then kill
stop_procs() {
	local p i alive
	[ -z "$1" ] || for p in "${PROCS[@]}"; do kill "-$1" "$p" 2>/dev/null; done
	for i in $(seq 300); do
		alive=0
		for p in "${PROCS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1 && break; done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	for p in "${PROCS[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	PROCS=()
}

# rcv_vdev: mcfan's --vdev argument on the receiver's veth (-V)
rcv_vdev() {
	if [ "$VDEV_KIND" = af_xdp ]; then
		echo "net_af_xdp0,iface=$LAB_VRCV,start_queue=0,queue_count=1"
	else
		echo "net_af_packet0,iface=$LAB_VRCV,qpairs=1,framecnt=$FRAMECNT"
	fi
}

# run ROUND RATE NAME: one run; appends "round rate name busy_s rcv_s copies want dur
# rx_cpf wk_cpf extra" to $WORK/rows
run() {
	local round=$1 rate=$2 name=$3 tag="$1-$2-$3" count want out rep b0 b1 t0 t1 c0 c1
	count=$(( rate * SECS ))
	want=$(( NGROUPS * PER_GROUP * (count + 1) ))
	out=$WORK/$tag.out
	rep=$WORK/$tag.json
	case $name in
	kernel)
		lab_rcv_bg "$out" "$READER" -g 239.9.9.1 -n "$NGROUPS" -s "$PER_GROUP" -p 3999 \
			-i "$LAB_RCV_IP" -t $(( SECS * 10 + 120 ))
		RPID=$LAB_BG_PID
		wait_for "$out" "^ready" "$RPID" ||
			{ echo "bench: $tag: the reader did not start:" >&2; tail -5 "$out" >&2; return 1; }
		;;
	mcfan)
		lab_rcv_bg "$out" "$MCFAN" --lcores '0@0,1@1,(2-11)@1' --no-huge -m 512 --in-memory \
			--file-prefix "mcfan-bseed-$$-$tag" --no-pci --log-level lib.eal:warning \
			--vdev "$(rcv_vdev)" -- \
			--rx-lcores 1 --worker-lcores 2-11 --fanout replicate \
			--groups "239.9.9.1-$NGROUPS:3999" --report-json "$rep" "${EXTRA[@]}"
		RPID=$LAB_BG_PID
		wait_for "$out" "running:" "$RPID" ||
			{ echo "bench: $tag: mcfan did not start:" >&2; tail -20 "$out" >&2; return 1; }
		;;
	kprocs)
		local g i files=()
		for g in $(seq "$NGROUPS"); do
			for i in $(seq "$PER_GROUP"); do
				lab_rcv_bg "$WORK/$tag-$g-$i.out" "$READER" -g "239.9.9.$g" -n 1 -s 1 \
					-p 3999 -i "$LAB_RCV_IP" -t $(( SECS * 10 + 120 ))
				PROCS+=("$LAB_BG_PID")
				files+=("$WORK/$tag-$g-$i.out")
			done
		done
		wait_all "^ready" "${files[@]}" ||
			{ echo "bench: $tag: the socket processes did not start" >&2; return 1; }
		;;
	readers)
		local g i
		lab_rcv_bg "$out" "$MCFAN" --lcores '0@0,1@1' --no-huge -m 512 --in-memory \
			--file-prefix "mcfan-bseed-$$-$tag" --no-pci --log-level lib.eal:warning \
			--vdev "$(rcv_vdev)" -- \
			--rx-lcores 1 --worker-lcores 1 --worker-engine readers \
			--groups "239.9.9.1-$NGROUPS:3999" --report-json "$rep" "${EXTRA[@]}"
		RPID=$LAB_BG_PID
		wait_for "$out" "running:" "$RPID" ||
			{ echo "bench: $tag: mcfan did not start:" >&2; tail -20 "$out" >&2; return 1; }
		for g in $(seq "$NGROUPS"); do
			for i in $(seq "$PER_GROUP"); do
				"$READ_BIN" --file-prefix "mcfan-bseed-$$-$tag" --group "239.9.9.$g:3999" \
					--quiet --no-seq >"$WORK/$tag-$g-$i.json" 2>"$WORK/$tag-$g-$i.err" &
				PROCS+=("$!")
			done
		done
		# every reader attached (mcfan counts its row) before the traffic; --quiet
		# readers print nothing until their JSON line
		lab_wait_readers "mcfan-bseed-$$-$tag" $((NGROUPS * PER_GROUP)) 60 >/dev/null ||
			{ echo "bench: $tag: the readers did not open their rings:" >&2
			  sort "$WORK/$tag"-*.err | uniq -c | head -5 >&2; return 1; }
		;;
	esac
	sleep 1    # settle: the receiver reaches its idle state
	c0=$(procs_ticks)
	m0=0
	[ -n "$RPID" ] && m0=$(cpu_ticks "$RPID") && c0=$(( c0 + m0 ))
	k0=$(( $(ksoftirqd_ticks) + $(irq_ticks) ))
	v0=$(lab_rcv cat "/sys/class/net/$LAB_VRCV/statistics/rx_packets")
	b0=$(busy_ticks); t0=$(date +%s.%N)
	send "$count" "$rate" "$WORK/$tag.snd"
	sleep 1    # the last datagrams reach the receiver
	b1=$(busy_ticks); t1=$(date +%s.%N)
	k1=$(( $(ksoftirqd_ticks) + $(irq_ticks) ))
	v1=$(lab_rcv cat "/sys/class/net/$LAB_VRCV/statistics/rx_packets")
	c1=$(procs_ticks)
	m1=0
	[ -n "$RPID" ] && m1=$(cpu_ticks "$RPID") && c1=$(( c1 + m1 ))
	stop_rcv
	case $name in
	kprocs) stop_procs INT ;;
	readers) stop_procs "" ;;
	esac
	python3 - "$round" "$rate" "$name" "$b0" "$b1" "$c0" "$c1" "$t0" "$t1" "$HZ" "$want" \
		"$out" "$rep" "$(cat "$WORK/$tag.snd" 2>/dev/null || echo 0)" "$(( k1 - k0 ))" \
		"$(( v1 - v0 ))" "$(( m1 - m0 ))" >>"$WORK/rows" <<'PY'
import json, os, sys
round_, rate, name = sys.argv[1], sys.argv[2], sys.argv[3]
b0, b1, c0, c1 = (int(x) for x in sys.argv[4:8])
t0, t1, hz, want = float(sys.argv[8]), float(sys.argv[9]), int(sys.argv[10]), int(sys.argv[11])
out, rep = sys.argv[12], sys.argv[13]
snd, kirq, veth = int(sys.argv[14]), int(sys.argv[15]), int(sys.argv[16])
rcv_ticks = int(sys.argv[17])  # the receiver process's own (mcfan's) CPU ticks
copies, rx_cpf, wk_cpf, extra = 0, 0.0, 0.0, "-"
import glob
tag = os.path.basename(out)[:-len(".out")]
if name == "kernel":
    for line in open(out):
        if line.startswith("total "):
            copies = int(line.split()[1])
elif name == "kprocs":
    for path in glob.glob(os.path.join(os.path.dirname(out), tag + "-*.out")):
        for line in open(path):
            if line.startswith("total "):
                copies += int(line.split()[1])
elif name == "readers":
    lost = n = 0
    for path in glob.glob(os.path.join(os.path.dirname(out), tag + "-*.json")):
        lines = [ln for ln in open(path) if ln.startswith("{")]
        if lines:
            j = json.loads(lines[-1])
            copies += j["frames"]
            lost += j["lost"]
            n += 1
    extra = f"readers={n},lapped_lost={lost}"
    if os.path.exists(rep):
        r = json.load(open(rep))
        port = r["ports"][0]
        rings = r.get("readers", {}).get("rings", [])
        wakes = sum(x.get("wakes", 0) for x in rings)
        written = sum(x.get("written", 0) for x in rings)
        rx = [l for l in r["lcores"] if l["role"] != "control"]
        wcpu = "/".join(f"{l['state_pct'].get('wait_cpu', 0):.0f}" for l in rx)
        # kernel_drops: frames af_packet's kernel ring dropped before mcfan (PACKET_STATISTICS;
        # DPDK 22.11's net_af_packet does not count them in imissed)
        extra += (f",ring_full={r['drops']['ring_full']},imissed={port['imissed']},"
                  f"kernel_drops={port.get('kernel_drops', 0)},written={written},"
                  f"wakes={wakes},frames_per_wake={written / wakes if wakes else 0:.1f},"
                  f"mcfan_cpu_s={rcv_ticks / hz:.2f},"
                  f"readers_cpu_s={(c1 - c0 - rcv_ticks) / hz:.2f},lcore_wait_cpu_pct={wcpu}")
elif name == "mcfan":
    if os.path.exists(rep):
        r = json.load(open(rep))
        copies = sum(g.get("copies", 0) for g in r["groups"])
        lc = {l["lcore"]: l for l in r["lcores"]}
        def own(l):
            # cycles of the lcore's own work: wall minus poll_empty, sleep and wait_cpu (the
            # time it was runnable but another thread had its CPU)
            sp = l.get("state_pct", {})
            pct = 100.0 - sp.get("poll_empty", 0) - sp.get("sleep", 0) - sp.get("wait_cpu", 0)
            return max(pct, 0.0) / 100.0 * l.get("wall_cycles", 0)
        rx = lc.get(1, {})
        rx_cpf = own(rx) / rx["frames"] if rx.get("frames") else 0.0
        wk = [lc[w["lcore"]] for w in r["workers"] if w["lcore"] in lc]
        fr = sum(l.get("frames", 0) for l in wk)
        wk_cpf = sum(own(l) for l in wk) / fr if fr else 0.0
        pol = sorted({l["idle"]["policy"] for l in r["lcores"] if l["role"] != "control"})
        port = r["ports"][0]
        # where copies were lost: full worker rings (whole frames, and single copies of a
        # frame other workers took), or af_packet's kernel ring before mcfan
        extra = (f"ring_full={r['drops']['ring_full']},"
                 f"copy_drops={sum(g.get('copy_drops', 0) for g in r['groups'])},"
                 f"imissed={port['imissed']},kernel_drops={port.get('kernel_drops', 0)},"
                 f"ring_size={r.get('ring_size', 0)},policies={'/'.join(pol)}")
    else:
        extra = "no-report"
lab = (c1 - c0 + snd + kirq) / hz
print(round_, rate, name, (b1 - b0) / hz, (c1 - c0) / hz, copies, want, t1 - t0,
      rx_cpf, wk_cpf, extra, lab, veth)
PY
}

echo "bench_seed: $NGROUPS groups x rates ($RATES) datagrams/s of $LEN bytes, ${SECS} s a run," \
	"$ROUNDS round(s), kernel: $(( NGROUPS * PER_GROUP )) sockets, mcfan: 10 workers on one" \
	"CPU on $VDEV_KIND, default idle options${EXTRA[*]:+ plus ${EXTRA[*]}}, senders: $SENDER" \
	"$([ "$SENDER" = paced ] && echo "(tick $TICK_US us)") on CPUs ${PIN:-any};" \
	"mcfan $MCFAN"
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
lab_up || exit 1
lab_sender_build || exit 1
: >"$WORK/rows"
for round in $(seq "$ROUNDS"); do
	for rate in $RATES; do
		for name in $RUNS; do
			run "$round" "$rate" "$name"
			tail -n 1 "$WORK/rows" | awk -v n="$name" '$3 == n { printf "  raw: %s\n", $0 }'
		done
	done
done
# the closing base run of each rate (see "A run's base" at the top)
case " $RUNS " in
*" base "*)
	for rate in $RATES; do
		run end "$rate" base
		tail -n 1 "$WORK/rows" | awk '$3 == "base" { printf "  raw: %s\n", $0 }'
	done ;;
esac
echo
python3 - "$WORK/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
NGROUPS, PER_GROUP = 10, 10

def base_of(i):
    """The base of row i: the mean (lab, machine CPU-s) of the nearest base run before it
    and the nearest after it at the same rate, or of the one there is; None without one."""
    rate = rows[i][1]
    near = []
    for rng in (range(i - 1, -1, -1), range(i + 1, len(rows))):
        for j in rng:
            if rows[j][1] == rate and rows[j][2] == "base":
                near.append(rows[j])
                break
    if not near:
        return None
    return (statistics.mean(float(b[11]) for b in near),
            statistics.mean(float(b[3]) for b in near),
            "+".join(b[0] for b in near))

res = {}
print("rx CPU-s: the lab's CPU time over the traffic minus the run's base (the mean of the "
      "base runs before and after it, named in the last column; see the top of the script); machine: the same from machine-wide busy time (saturated when the "
      "machine is); sent/s: datagrams a second a group the senders reached over the run")
print(f"{'round':>5} {'rate/grp':>8} {'run':<7} {'rx CPU-s':>9} {'us/copy':>8} {'copies':>10} "
      f"{'lost':>9} {'lost %':>7} {'proc CPU-s':>10} {'machine':>8} {'rx cyc/fr':>9} "
      f"{'wk cyc/cp':>9} {'veth rx':>9} {'sent/s':>7}  extra")
for i, r in enumerate(rows):
    if r[2] == "base":
        secs = max(float(r[7]) - 1, 0.1)
        print(f"{r[0]:>5} {r[1]:>8} {'base':<7} {'lab ' + r[11]:>9} {'':>8} {'':>10} {'':>9} "
              f"{'':>7} {'':>10} {float(r[3]):>8.2f} {'':>9} {'':>9} {r[12]:>9} "
              f"{int(r[6]) / PER_GROUP / NGROUPS / secs:>7.0f}  "
              f"{secs:.1f} s of traffic: {int(r[6]) / PER_GROUP / NGROUPS / secs:.0f} "
              f"datagrams/s per group achieved")
        continue
    b = base_of(i)
    rx = float(r[11]) - b[0] if b is not None else float("nan")
    mach = float(r[3]) - b[1] if b is not None else float("nan")
    copies, want = int(r[5]), int(r[6])
    lost = want - copies
    us = rx / copies * 1e6 if copies else float("inf")
    res.setdefault((r[1], r[2]), []).append(us)
    print(f"{r[0]:>5} {r[1]:>8} {r[2]:<7} {rx:>9.3f} {us:>8.3f} {copies:>10} {lost:>9} "
          f"{100 * lost / want:>7.2f} {float(r[4]):>10.3f} {mach:>8.2f} {float(r[8]):>9.0f} "
          f"{float(r[9]):>9.0f} {r[12]:>9} "
          f"{want / PER_GROUP / NGROUPS / max(float(r[7]) - 1, 0.1):>7.0f}  "
          f"base {b[2] if b else 'none'} {r[10]}")
print()
for rate in sorted({r[1] for r in rows}, key=int):
    for kn, mn in (("kernel", "mcfan"), ("kprocs", "readers")):
        k, m = res.get((rate, kn), []), res.get((rate, mn), [])
        if not k or not m:
            continue
        # a receiver that used less than the base run (rx CPU-s <= 0) means the base run
        # was disturbed (another job took the host): that round has no ratio, never inf
        pairs = [a / b if a > 0 and b > 0 else float("nan") for a, b in zip(k, m)]
        good = [p for p in pairs if p == p]
        bad = len(pairs) - len(good)
        print(f"ratio {kn}/{mn} CPU per delivered copy at {rate}/s per group: "
              + (f"{statistics.median(good):.2f}" if good else "nan")
              + f" (median of {len(good)} valid round(s): "
              f"{', '.join(f'{p:.2f}' for p in pairs)}"
              + (f"; {bad} round(s) without a ratio: the receiver used no more than the base "
                 "run, so the base run was disturbed" if bad else "")
              + f"); {kn} {statistics.median(k):.3f} us, {mn} {statistics.median(m):.3f} us")
PY
