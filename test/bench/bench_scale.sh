#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# How mcfan's cost grows with work (issue 10, "Scale"; docs/performance.md "Scale"): copies
# per CPU-second at G groups x W workers, G in 1 10 100 1000, W in 1 4 10 32, in replicate
# and in partition mode.
#
#   Input: net_pcap infinite_rx=1 replaying max(1000, G) 60-byte frames (64 on the wire)
#   round robin over G groups 239.10.0.1 .. (+G-1), port 3999: the RX lcore is saturated.
#   mcfan: --lcores '0@0,1@1,(2-W+1)@0': the RX lcore alone on CPU 1 (its placement default:
#   poll), the W workers on CPU 0 with the sleeping main lcore (with W > 1 they share it:
#   their default is wake:none); default idle options otherwise.
#
# Per run: delivered copies per CPU-second of the whole process (utime + stime from
# /proc/PID/stat, last reading before it exits, start-up included), and per CPU-second of
# the data lcores' own work (msacc: wall - poll_empty - sleep - wait_cpu, from the report);
# cycles a frame of the RX lcore and a copy of the workers (own work); loss (ring_full). One
# line a run; last, per mode, the table of copies per work CPU-second and the ratio of the
# largest to the smallest cycles per frame of the RX lcore across G at each W (1.0 = no
# growth with the group count).
#
# Usage: test/bench/bench_scale.sh [-d SECONDS] [-b BUILD_DIR] [-g "G ..."] [-w "W ..."]
#                                  [-m "replicate partition"] [-k]
# A benchmark, never a timed test; run it on a quiet host. No root needed.

set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECS=5
BUILD=build
GROUPS_LIST="1 10 100 1000"
WORKERS_LIST="1 4 10 32"
MODES="replicate partition"
KEEP=0
while getopts "d:b:g:w:m:kh" o; do
	case $o in
	d) SECS=$OPTARG ;;
	b) BUILD=$OPTARG ;;
	g) GROUPS_LIST=$OPTARG ;;
	w) WORKERS_LIST=$OPTARG ;;
	m) MODES=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
case $SECS in ''|*[!0-9]*|0) echo "bench: -d wants whole seconds >= 1" >&2; exit 2 ;; esac
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
MCFAN=${MCFAN:-$BUILD/app/mcfan/mcfan}
[ -x "$MCFAN" ] ||
	{ echo "bench: no mcfan binary at $MCFAN (meson setup/ninja, or -b)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/mcfan-bench-scale.XXXXXX)
MPID=
cleanup() {
	[ -n "$MPID" ] && kill -KILL "$MPID" 2>/dev/null
	rm -rf "/var/run/dpdk/mcfan-bscale-$$-"*
	if [ "$KEEP" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
HZ=$(getconf CLK_TCK)

# capture G: max(1000, G) frames round robin over G groups; prints the --groups value
capture() {
	PYTHONPATH=$ROOT/test/integration python3 - "$WORK/g$1.pcap" "$1" <<'PY'
import ipaddress, sys
import mcfantest as t
path, g = sys.argv[1], int(sys.argv[2])
base = ipaddress.IPv4Address("239.10.0.1")
groups = [str(base + i) for i in range(g)]
frames = [t.udp4_frame(groups[i % g], 3999, data=b"x" * 18) for i in range(max(1000, g))]
t.write_pcap(path, frames)
print(f"{groups[0]}-{groups[-1]}:3999" if g > 1 else f"{groups[0]}:3999")
PY
}

# run MODE G W GROUPS_ARG: one run; appends a row to $WORK/rows
run() {
	local mode=$1 g=$2 w=$3 garg=$4 tag="$1-$2-$3" rep out cpu=0 c
	rep=$WORK/$tag.json
	out=$WORK/$tag.out
	"$MCFAN" --lcores "0@0,1@1,(2-$((w + 1)))@0" --no-huge -m 1024 --no-shconf --no-pci \
		--file-prefix "mcfan-bscale-$$-$tag" --log-level lib.eal:warning \
		--vdev "net_pcap0,rx_pcap=$WORK/g$g.pcap,infinite_rx=1" -- --rx-lcores 1 \
		--worker-lcores "2-$((w + 1))" --fanout "$mode" --groups "$garg" \
		--duration "$SECS" --report-json "$rep" >"$out" 2>&1 </dev/null &
	MPID=$!
	while kill -0 "$MPID" 2>/dev/null; do
		c=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$MPID/stat" 2>/dev/null) &&
			cpu=$c
		sleep 0.2
	done
	wait "$MPID"
	MPID=
	python3 - "$mode" "$g" "$w" "$rep" "$cpu" "$HZ" >>"$WORK/rows" <<'PY'
import json, os, sys
mode, g, w, rep, cpu, hz = sys.argv[1:7]
cpu_s = int(cpu) / int(hz)
if not os.path.exists(rep):
    print(mode, g, w, "nan nan nan nan nan nan")
    sys.exit()
r = json.load(open(rep))
hzt = r["tsc_hz"]
def own(l):
    sp = l["state_pct"]
    pct = 100.0 - sp.get("poll_empty", 0) - sp.get("sleep", 0) - sp.get("wait_cpu", 0)
    return max(pct, 0.0) / 100.0 * l["wall_cycles"]
data = [l for l in r["lcores"] if l["role"] != "control"]
rx = [l for l in data if "rx" in l["role"]][0]
wk = [l for l in data if l["role"] == "worker"]
work_s = sum(own(l) for l in data) / hzt
copies = r["delivered_copies"]
rx_cpf = own(rx) / rx["frames"] if rx["frames"] else 0.0
wf = sum(l["frames"] for l in wk)
wk_cpc = sum(own(l) for l in wk) / wf if wf else 0.0
print(mode, g, w, copies / cpu_s if cpu_s else 0.0, copies / work_s if work_s else 0.0,
      f"{rx_cpf:.1f}", f"{wk_cpc:.1f}", r["drops"]["ring_full"], copies)
PY
	tail -n 1 "$WORK/rows" | while read -r m gg ww pc wc rc kc rf _; do
		printf '%-9s %5s groups %3s workers: %12.0f copies/CPU-s (process), %12.0f ' \
			"$m" "$gg" "$ww" "$pc" "$wc"
		printf 'copies/work CPU-s, RX %7s cyc/frame, worker %7s cyc/copy, ring_full %s\n' \
			"$rc" "$kc" "$rf"
	done
}

echo "bench_scale: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load" \
	"$(cut -d' ' -f1-3 /proc/loadavg); ${SECS} s a run; groups ($GROUPS_LIST) x workers" \
	"($WORKERS_LIST), modes ($MODES); mcfan $MCFAN"
: >"$WORK/rows"
declare -A GARG
for g in $GROUPS_LIST; do
	GARG[$g]=$(capture "$g") || exit 1
done
for mode in $MODES; do
	for w in $WORKERS_LIST; do
		for g in $GROUPS_LIST; do
			run "$mode" "$g" "$w" "${GARG[$g]}"
		done
	done
done
echo
python3 - "$WORK/rows" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
for mode in dict.fromkeys(r[0] for r in rows):
    rs = [r for r in rows if r[0] == mode]
    gs = list(dict.fromkeys(r[1] for r in rs))
    ws = list(dict.fromkeys(r[2] for r in rs))
    cell = {(r[1], r[2]): r for r in rs}
    print(f"{mode}: copies per work CPU-second (M), groups down, workers across")
    print(f"{'groups':>7} " + " ".join(f"{w + ' wk':>9}" for w in ws))
    for g in gs:
        print(f"{g:>7} " + " ".join(f"{float(cell[(g, w)][4]) / 1e6:>9.2f}"
                                     if (g, w) in cell else f"{'-':>9}" for w in ws))
    for w in ws:
        cpf = [float(cell[(g, w)][5]) for g in gs if (g, w) in cell]
        cpf = [c for c in cpf if c > 0]
        if cpf:
            print(f"{mode} {w} workers: RX cycles/frame {min(cpf):.0f} - {max(cpf):.0f} over "
                  f"groups {gs[0]}-{gs[-1]}, ratio max/min {max(cpf) / min(cpf):.2f}")
    print()
PY
