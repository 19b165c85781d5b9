#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# README's first command: mcfan on real multicast, end to end, on a fresh Debian 12 host.
#
#   sudo test/lab/run-lab.sh [SECONDS]
#
# Installs the Debian packages (test/install-deps.sh), builds (meson + ninja, in ./build or
# $MCFAN_BUILD), reserves 256 2 MB hugepages (or falls back to --no-huge and says so),
# creates a two-namespace veth lab (198.18.0.0/15 addresses only), starts mcfan with
# net_af_packet on the receiver's veth and the seed workload (config/seed-workload.ini:
# 239.9.9.1-10:3999), sends SECONDS seconds (default 10) of multicast from 10 iperf2 clients,
# one per group, stops mcfan with SIGINT, prints its report (with each group's feed quality
# from iperf2's sequence numbers: the config's seq key) and compares its per-group frame
# counts with a capture of the veth. Removes the lab (and gives back the hugepages it
# reserved) on every exit, also on failure or Ctrl-C. Exit status 0 when every group's count
# equals the wire's.
#
# The seed's workload as the seed ran it: mcfan runs the readers engine (docs/readers.md) and
# 10 reader processes a group (100 mcfan-read, on libmcfan-reader) read every group's frames
# from shared memory; each reader's count is printed beside mcfan's and checked against the
# wire too (every reader must have every frame, none lost). LAB_READERS=N readers a group
# (0: mcfan's count engine and no readers, as before).
#
# Environment: LAB_READERS (reader processes a group, default 10), MCFAN_BUILD (build
# directory, default build), MCFAN_BIN (run this mcfan
# binary instead of the one just built), LAB_PPS (datagrams per second
# per group, 1..100000, default 1000), LAB_LEN (UDP payload bytes, 16..8972, default 1000;
# above 1472 the lab raises the veth MTU to carry each datagram in one packet, above 1940
# it gives net_af_packet a larger framesz and mcfan --mbuf-size; with readers at most 1974,
# what a reader ring slot holds; out of range: exit 2 before anything), MCFAN_NO_HUGE=1 (do
# not touch hugepages: --no-huge), MCFAN_KEEP_HUGEPAGES=1 (keep the hugepage reservation).
set -uo pipefail

usage() {
	echo "usage: sudo $0 [SECONDS]   (SECONDS of sending, 1..3600, default 10)" >&2
	exit 2
}

SEND_S=${1:-10}
[ $# -le 1 ] || usage
if ! [[ "$SEND_S" =~ ^[0-9]+$ ]] || [ "$((10#$SEND_S))" -lt 1 ] || [ "$((10#$SEND_S))" -gt 3600 ]; then
	echo "run-lab: '$SEND_S' is not a number of seconds 1..3600" >&2
	usage
fi
SEND_S=$((10#$SEND_S))
PPS=${LAB_PPS:-1000}
LEN=${LAB_LEN:-1000}
NGROUPS=10
READERS=${LAB_READERS:-10}
if ! [[ "$READERS" =~ ^[0-9]{1,3}$ ]] || [ "$((10#$READERS))" -gt 100 ]; then
	echo "run-lab: LAB_READERS '$READERS' is not a number of readers 0..100" >&2
	exit 2
fi
READERS=$((10#$READERS))
# LAB_PPS: iperf2's -b Npps a group; the lab's senders and mcfan share the host's CPUs
PPS_MAX=100000
if ! [[ "$PPS" =~ ^[0-9]{1,7}$ ]] || [ "$((10#$PPS))" -lt 1 ] || [ "$((10#$PPS))" -gt $PPS_MAX ]; then
	echo "run-lab: LAB_PPS '$PPS' is not a rate of datagrams a second a group, 1..$PPS_MAX" \
		"(a decimal number; the default is 1000)" >&2
	exit 2
fi
PPS=$((10#$PPS))
COUNT=$((SEND_S * PPS))
# LAB_LEN: UDP payload bytes, at least iperf2's 16-byte header, at most what a 9000-byte MTU
# carries in one IPv4 packet (9000 - 20 - 8): the lab never sends IP fragments (mcfan does not
# reassemble; on net_af_packet the kernel does, docs/guide.md "IPv4 fragments on
# net_af_packet", and the wire capture would count fragments, not datagrams)
LEN_MAX=8972
if ! [[ "$LEN" =~ ^[0-9]{1,5}$ ]] || [ "$((10#$LEN))" -lt 16 ] || [ "$((10#$LEN))" -gt $LEN_MAX ]; then
	echo "run-lab: LAB_LEN '$LEN' is not a UDP payload of 16..$LEN_MAX bytes (16: iperf2's" \
		"header; $LEN_MAX: one IPv4 packet on a 9000-byte MTU; a decimal number, default 1000)" >&2
	exit 2
fi
LEN=$((10#$LEN))
# a reader ring slot holds frames of up to 2,016 bytes (docs/readers.md): longer ones count
# as reader_too_big and no reader would have them
READER_FRAME_MAX=2016
if [ "$READERS" -gt 0 ] && [ $((LEN + 42)) -gt $READER_FRAME_MAX ]; then
	echo "run-lab: LAB_LEN $LEN gives frames of $((LEN + 42)) bytes, more than a reader ring" \
		"slot holds ($READER_FRAME_MAX bytes: LAB_LEN $((READER_FRAME_MAX - 42)) at most); the" \
		"readers would get none of them (reader_too_big): give LAB_READERS=0 (mcfan's count" \
		"engine) or a smaller LAB_LEN" >&2
	exit 2
fi
# Datagrams longer than the veth's 1500-byte MTU carries in one packet: the lab raises the
# MTU to fit them whole, and frames longer than net_af_packet's default ring frame holds
# (1,982 bytes) need a larger framesz, a blocksz of whole frames and pages and an mbuf that
# holds a ring frame's data (--mbuf-size): docs/guide.md "Raise framesz".
AFP_RING=
MBUF_SIZE=()
if [ $((LEN + 28)) -gt 1500 ]; then
	export LAB_MTU=$((LEN + 28))
fi
if [ $((LEN + 42)) -gt 1982 ]; then
	FRAMESZ=$(( (LEN + 42 + 4 + 66 + 1023) / 1024 * 1024 ))
	BLOCKSZ=$FRAMESZ
	while [ $((BLOCKSZ % 4096)) -ne 0 ]; do
		BLOCKSZ=$((BLOCKSZ + FRAMESZ))
	done
	AFP_RING=",framesz=$FRAMESZ,blocksz=$BLOCKSZ"
	MBUF_SIZE=(--mbuf-size $((FRAMESZ - 32)))
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "run-lab: needs root (packages, hugepages, network namespaces): sudo $0 $*" >&2
	exit 1
fi

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
BUILD=${MCFAN_BUILD:-build}
CONFIG=$ROOT/config/seed-workload.ini

say() {
	echo "run-lab: $*"
}

# ---- packages and build ----
say "installing the Debian packages mcfan needs (test/install-deps.sh)"
test/install-deps.sh || { say "installing packages failed"; exit 1; }
if [ ! -f "$BUILD/build.ninja" ]; then
	say "meson setup $BUILD"
	meson setup "$BUILD" >/dev/null || { say "meson setup failed"; exit 1; }
fi
say "ninja -C $BUILD"
ninja -C "$BUILD" >/dev/null || { ninja -C "$BUILD"; say "build failed"; exit 1; }
MCFAN=${MCFAN_BIN:-$ROOT/$BUILD/app/mcfan/mcfan}
[ -x "$MCFAN" ] || { say "no mcfan binary at $MCFAN"; exit 1; }
READ_BIN=$ROOT/$BUILD/app/mcfan-read/mcfan-read
ENGINE=()
if [ "$READERS" -gt 0 ]; then
	[ -x "$READ_BIN" ] || { say "no mcfan-read at $READ_BIN"; exit 1; }
	ENGINE=(--worker-engine readers)
fi

# ---- the lab, and cleanup on every exit ----
# shellcheck source=test/lab/lab.sh
. "$ROOT/test/lab/lab.sh"
RUN_DIR=$(mktemp -d /tmp/mcfan-run-lab.XXXXXX) || exit 1
MCFAN_PID=
READER_PIDS=()
HP_SYS=/sys/kernel/mm/hugepages/hugepages-2048kB
HP_SAVED=
HP_MOUNTED=

stop_mcfan() {
	local i
	[ -n "$MCFAN_PID" ] || return 0
	kill -INT "$MCFAN_PID" 2>/dev/null
	for i in $(seq 150); do
		kill -0 "$MCFAN_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$MCFAN_PID" 2>/dev/null; then
		say "mcfan did not stop 15 s after SIGINT; killing it"
		kill -KILL "$MCFAN_PID" 2>/dev/null
	fi
	wait "$MCFAN_PID" 2>/dev/null
	MCFAN_RC=$?
	MCFAN_PID=
}

# The reader processes end by themselves once mcfan closes their rings; wait up to 30 s,
# then kill what is left (our own PIDs only).
stop_readers() {
	local pid i
	[ ${#READER_PIDS[@]} -gt 0 ] || return 0
	for i in $(seq 300); do
		for pid in "${READER_PIDS[@]}"; do
			kill -0 "$pid" 2>/dev/null && break
			pid=
		done
		[ -z "$pid" ] && break
		sleep 0.1
	done
	for pid in "${READER_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	READER_PIDS=()
}

# Start READERS mcfan-read processes a group (outside the namespaces: ordinary processes that
# only need /dev/shm) and wait until each has opened its ring: mcfan counts them all on its
# rings (lab_wait_readers; --quiet readers print nothing until their JSON line at exit).
start_readers() {
	local g i n
	[ "$READERS" -gt 0 ] || return 0
	for g in $(lab_groups "$NGROUPS"); do
		for i in $(seq "$READERS"); do
			"$READ_BIN" --file-prefix "mcfan-lab-$LAB_ID" --group "$g:$LAB_PORT" --quiet \
				>"$RUN_DIR/reader-$g-$i.json" 2>"$RUN_DIR/reader-$g-$i.err" &
			READER_PIDS+=($!)
		done
	done
	n=$(lab_wait_readers "mcfan-lab-$LAB_ID" $((READERS * NGROUPS)) 30) && return 0
	say "only $n of $((READERS * NGROUPS)) readers opened their ring in 30 s:"
	cat "$RUN_DIR"/reader-*.err | sort | uniq -c | head -5
	return 1
}

# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
	trap - EXIT INT TERM
	stop_mcfan
	stop_readers
	lab_down
	if [ -n "$HP_SAVED" ] && [ "${MCFAN_KEEP_HUGEPAGES:-0}" != 1 ]; then
		echo "$HP_SAVED" >"$HP_SYS/nr_hugepages" 2>/dev/null
	fi
	if [ -n "$HP_MOUNTED" ] && [ "${MCFAN_KEEP_HUGEPAGES:-0}" != 1 ]; then
		umount "$HP_MOUNTED" 2>/dev/null && rmdir "$HP_MOUNTED" 2>/dev/null
	fi
	rm -rf -- "$RUN_DIR"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

# ---- hugepages: 256 x 2 MB, or --no-huge ----
# Reserve what is missing for 256 free 2 MB pages and mount hugetlbfs if nothing is mounted;
# on any failure fall back to anonymous memory.
reserve_hugepages() {
	local want=256 free total
	[ -w "$HP_SYS/nr_hugepages" ] || return 1
	free=$(cat "$HP_SYS/free_hugepages") total=$(cat "$HP_SYS/nr_hugepages")
	if [ "$free" -lt "$want" ]; then
		HP_SAVED=$total
		echo $((total + want - free)) >"$HP_SYS/nr_hugepages" 2>/dev/null || return 1
		free=$(cat "$HP_SYS/free_hugepages")
		[ "$free" -ge "$want" ] || return 1
	fi
	if ! awk '$3 == "hugetlbfs" { found = 1 } END { exit !found }' /proc/mounts; then
		mkdir -p /dev/hugepages || return 1
		mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages || return 1
		HP_MOUNTED=/dev/hugepages
	fi
	return 0
}

EAL_MEM=(--in-memory)
MEM_MODE="hugepages (256 x 2 MB reserved, --in-memory)"
if [ "${MCFAN_NO_HUGE:-0}" = 1 ]; then
	EAL_MEM=(--no-huge -m 512 --in-memory)
	MEM_MODE="no hugepages (MCFAN_NO_HUGE=1): --no-huge -m 512"
elif ! reserve_hugepages; then
	EAL_MEM=(--no-huge -m 512 --in-memory)
	MEM_MODE="no hugepages: reserving 2 MB pages failed, falling back to --no-huge -m 512"
fi

# ---- lcores: 2 CPUs -> main + one run-to-completion lcore (RX and worker) ----
if [ "$(nproc)" -ge 3 ]; then
	LCORES=(-l 0-2)
	LCORE_MODE="-l 0-2: lcore 0 control, lcore 1 RX, lcore 2 worker"
else
	LCORES=(-l 0-1)
	LCORE_MODE="-l 0-1: lcore 0 control, lcore 1 RX and worker (run-to-completion, 2-CPU host)"
fi

lab_up || { say "cannot create the lab"; exit 1; }
if [ -n "${LAB_MTU:-}" ]; then
	say "datagrams of $LEN bytes: veth MTU $LAB_MTU (one IPv4 packet each, no fragments)"
fi
if [ -n "$AFP_RING" ]; then
	say "frames of $((LEN + 42)) bytes: net_af_packet ${AFP_RING#,}, mcfan ${MBUF_SIZE[*]}"
fi
lab_capture_start "$LAB_CAPTURE" || { say "cannot start the capture"; exit 1; }

# Start mcfan in the receiver namespace; wait until it runs. Returns 1 if it exited first
# (its status in MCFAN_RC).
start_mcfan() {
	local _
	say "mcfan command (in namespace $LAB_RCV): $MCFAN ${LCORES[*]} ${EAL_MEM[*]} --no-pci" \
		"--file-prefix mcfan-lab-$LAB_ID --vdev net_af_packet0,iface=$LAB_VRCV,qpairs=1,framecnt=4096$AFP_RING" \
		"-- --config $CONFIG ${ENGINE[*]} ${MBUF_SIZE[*]} --report-json $RUN_DIR/report.json"
	lab_rcv_bg "$RUN_DIR/mcfan.log" "$MCFAN" "${LCORES[@]}" "${EAL_MEM[@]}" --no-pci \
		--file-prefix "mcfan-lab-$LAB_ID" \
		--vdev "net_af_packet0,iface=$LAB_VRCV,qpairs=1,framecnt=4096$AFP_RING" \
		-- --config "$CONFIG" "${ENGINE[@]}" "${MBUF_SIZE[@]}" --report-json "$RUN_DIR/report.json"
	MCFAN_PID=$LAB_BG_PID
	for _ in $(seq 600); do
		grep -q 'running:' "$RUN_DIR/mcfan.log" 2>/dev/null && return 0
		if ! kill -0 "$MCFAN_PID" 2>/dev/null; then
			wait "$MCFAN_PID" 2>/dev/null
			MCFAN_RC=$?
			MCFAN_PID=
			return 1
		fi
		sleep 0.1
	done
	say "mcfan did not start within 60 s"
	return 1
}

start_failed() {
	sed 's/^/  | /' "$RUN_DIR/mcfan.log"
	say "mcfan did not start (exit status ${MCFAN_RC:-none})"
	exit 1
}

say "memory: $MEM_MODE"
say "lcores: $LCORE_MODE"
say "starting mcfan in $LAB_RCV on $LAB_VRCV (net_af_packet), config $CONFIG"
MCFAN_RC=
if ! start_mcfan; then
	# Only an EAL or memory failure is worth a second try without hugepages.
	if [ "${EAL_MEM[0]}" != --no-huge ] &&
	   grep -qE 'EAL initialisation failed|cannot create a pool' "$RUN_DIR/mcfan.log"; then
		sed 's/^/  | /' "$RUN_DIR/mcfan.log"
		EAL_MEM=(--no-huge -m 512 --in-memory)
		MEM_MODE="no hugepages: mcfan could not start on hugepages, falling back to --no-huge -m 512"
		say "memory: $MEM_MODE"
		start_mcfan || start_failed
	else
		start_failed
	fi
fi

if [ "$READERS" -gt 0 ]; then
	say "starting $((READERS * NGROUPS)) reader processes: $READERS mcfan-read a group" \
		"(libmcfan-reader, docs/readers.md)"
	start_readers || exit 1
fi
say "sending: $NGROUPS iperf2 clients, 239.9.9.1..$NGROUPS port $LAB_PORT, $COUNT datagrams" \
	"of $LEN bytes each at $PPS/s (about $SEND_S s)"
lab_send "$NGROUPS" "$COUNT" "$LEN" "$PPS" || say "a sender failed (see above); carrying on"
sleep 2   # let mcfan drain what is still in the af_packet ring
say "stopping mcfan (SIGINT)"
MCFAN_RC=0
stop_mcfan
stop_readers
CAPTURE_OK=1
lab_capture_stop 2>"$RUN_DIR/capture.err" || CAPTURE_OK=0
sed 's/^/run-lab: capture: /' "$RUN_DIR/capture.err"

echo
cat "$RUN_DIR/mcfan.log"
echo
[ "$MCFAN_RC" -eq 0 ] || say "mcfan exited with status $MCFAN_RC"

# ---- compare: iperf2's reports, the wire, mcfan ----
for g in $(lab_groups "$NGROUPS"); do
	echo "$g $(lab_iperf_report "$g")"
done >"$RUN_DIR/iperf.txt"
lab_wire_counts "$LAB_CAPTURE" >"$RUN_DIR/wire.txt"
python3 - "$RUN_DIR/report.json" "$RUN_DIR/wire.txt" "$RUN_DIR/iperf.txt" "$COUNT" \
	"$LAB_PORT" "$CAPTURE_OK" "$RUN_DIR" "$READERS" <<'PY'
import glob, json, os, re, sys
rep_path, wire_path, iperf_path, count, port, capture_ok, run_dir, n_readers = sys.argv[1:9]
count = int(count)
n_readers = int(n_readers)
capture_ok = capture_ok == "1"
try:
    rep = json.load(open(rep_path))
except (OSError, ValueError) as e:
    print(f"run-lab: no JSON report from mcfan ({e})")
    sys.exit(1)
wire, other = {}, 0
for line in open(wire_path):
    f = line.split()
    if f[0] == "other":
        other = int(f[1])
    else:
        wire[(f[0], int(f[1]))] = int(f[2])
writes = {}
for line in open(iperf_path):
    g, w, e, s = line.split()
    writes[g] = int(w)
mc = {(g["group"], g["udp_port"]): g["frames"] for g in rep["groups"]}
ref_name = "wire"
if not capture_ok:
    # the capture lost frames in the kernel, so it is no reference: iperf2's own count of
    # the datagrams it wrote (plus its one end-of-test datagram) is
    ref_name = "iperf2"
    # tcpdump's own count of what it lost ("N packets dropped by kernel", capture.err)
    lost_k = None
    try:
        for line in open(os.path.join(run_dir, "capture.err")):
            m = re.search(r"(\d+) packets dropped by kernel", line)
            if m:
                lost_k = int(m.group(1))
    except OSError:
        pass
    lost_txt = f"{lost_k} frames" if lost_k is not None else "frames"
    wire = {(g, int(port)): w + 1 for g, w in writes.items()}
    print(f"run-lab: the capture lost {lost_txt} (tcpdump, on a loaded host): comparing mcfan "
          "with iperf2's own counts instead")
    with open(os.path.join(run_dir, "reference.txt"), "w") as f:
        f.write(f"reference: iperf2 sender counts, the capture lost {lost_txt}: every datagram "
                "iperf2 wrote")
cells, equal = [], 0
for (g, p), n in sorted(mc.items(), key=lambda kv: tuple(map(int, kv[0][0].split(".")))):
    w = wire.get((g, p), 0)
    equal += (w == n)
    cells.append(f"{g.rsplit('.', 1)[1]}:{w}{'=' if w == n else '!='}{n}")
drops = sum(rep["drops"].values())
cons = rep["rx_frames"] == rep["delivered_frames"] + drops
sent_ok = all(v == count for v in writes.values())
print(f"run-lab: iperf2 wrote {count} datagrams per group{'' if sent_ok else ' (NOT all: ' + str(writes) + ')'}"
      f" + 1 end-of-test datagram each; {ref_name} vs mcfan frames per group "
      f"(239.9.9.x:{port}): "
      + " ".join(cells))
print(f"run-lab: {equal}/{len(mc)} groups equal; other frames on the wire {other}; mcfan drops "
      f"{drops} {dict((k, v) for k, v in rep['drops'].items() if v)}; conservation "
      f"{'ok' if cons else 'BROKEN'}; mbufs outside pool {rep['mbufs_outside_pool']}")
feed = []
for g in sorted(rep["groups"], key=lambda g: tuple(map(int, g["group"].split(".")))):
    f = g.get("feed")
    if f is not None:
        feed.append(f"{g['group'].rsplit('.', 1)[1]}:{f['received']}/{f['expected']}"
                    f" lost {f['lost']} reord {f['reordered']} dup {f['duplicates']}"
                    f" jitter {f['jitter_ns'] / 1000:.0f}us")
if feed:
    print("run-lab: feed quality (iperf2 sequence numbers, docs/feed.md), received/expected "
          "per group: " + "; ".join(feed))
ok = equal == len(mc) == len(wire) and cons and rep["mbufs_outside_pool"] == 0
if n_readers:
    # each reader's JSON line (mcfan-read at exit), beside mcfan's count and the wire's
    readers_ok = 0
    total = 0
    for (g, p), n in sorted(mc.items(), key=lambda kv: tuple(map(int, kv[0][0].split(".")))):
        w = wire.get((g, p), 0)
        cells = []
        for path in sorted(glob.glob(os.path.join(run_dir, f"reader-{g}-*.json")),
                           key=lambda s: int(s.rsplit("-", 1)[1].split(".")[0])):
            total += 1
            try:
                r = json.loads([ln for ln in open(path) if ln.startswith("{")][-1])
            except (IndexError, ValueError):
                cells.append("none")
                continue
            good = r["frames"] == w and r["lost"] == 0
            readers_ok += good
            cells.append(f"{r['frames']}" + ("" if good else f"(lost {r['lost']})!"))
        print(f"run-lab: {g}:{p} {ref_name} {w} mcfan {n} readers {' '.join(cells)}")
    print(f"run-lab: {readers_ok}/{total} reader processes read every frame of their group "
          f"{'from the wire' if capture_ok else 'that iperf2 wrote'}, none lost "
          f"(libmcfan-reader, docs/readers.md)")
    ok = ok and readers_ok == total == n_readers * len(mc)
sys.exit(0 if ok else 1)
PY
status=$?
say "memory was: $MEM_MODE"
# the reference the counts were held against: the capture, or (it lost frames) iperf2's
REFERENCE="every frame on the wire"
[ -s "$RUN_DIR/reference.txt" ] && REFERENCE=$(cat "$RUN_DIR/reference.txt")
if [ $status -eq 0 ]; then
	say "PASS: $REFERENCE is in mcfan's per-group counts$([ "$READERS" -gt 0 ] &&
		echo " and in each of the $((READERS * NGROUPS)) readers'")"
else
	say "FAIL: mcfan's counts differ from the reference (see above)"
fi
exit $status
