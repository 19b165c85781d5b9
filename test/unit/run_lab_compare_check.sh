#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# run-lab.sh's comparison step (its embedded Python) on made-up files, in a second: with a
# good capture the reference is called "wire"; when the capture lost frames (tcpdump's
# "N packets dropped by kernel") the reference is iperf2's sender counts and every line says
# so ("iperf2 N", "the capture lost N frames"), never "wire N".
# Usage: run_lab_compare_check.sh test/lab/run-lab.sh
set -u
RUN_LAB=$1
d=$(mktemp -d /tmp/mcfan-runlab-cmp.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
fail=0
awk "/<<'PY'\$/{f=1;next} /^PY\$/{f=0} f" "$RUN_LAB" >"$d/cmp.py"
cat >"$d/report.json" <<'J'
{"groups": [{"group": "239.9.9.1", "udp_port": 3999, "frames": 11},
 {"group": "239.9.9.2", "udp_port": 3999, "frames": 11}], "drops": {"x": 0},
 "rx_frames": 22, "delivered_frames": 22, "mbufs_outside_pool": 0}
J
printf '239.9.9.1 10 1 0\n239.9.9.2 10 1 0\n' >"$d/iperf.txt"
echo '{"frames": 11, "lost": 0}' >"$d/reader-239.9.9.1-1.json"
echo '{"frames": 11, "lost": 0}' >"$d/reader-239.9.9.2-1.json"
expect() { # what, pattern, text
	if ! grep -qF -- "$2" <<<"$3"; then
		echo "FAIL: $1: no '$2' in:"; echo "$3"; fail=1
	fi
}
refuse() {
	if grep -qF -- "$2" <<<"$3"; then
		echo "FAIL: $1: '$2' in:"; echo "$3"; fail=1
	fi
}
# a good capture: the wire is the reference
printf '239.9.9.1 3999 11\n239.9.9.2 3999 11\nother 0\n' >"$d/wire.txt"
: >"$d/capture.err"
out=$(python3 "$d/cmp.py" "$d/report.json" "$d/wire.txt" "$d/iperf.txt" 10 3999 1 "$d" 1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: good capture: exit $rc"; fail=1; }
expect "good capture" "239.9.9.1:3999 wire 11 mcfan 11 readers 11" "$out"
expect "good capture" "of their group from the wire" "$out"
[ -s "$d/reference.txt" ] && { echo "FAIL: good capture: reference.txt written"; fail=1; }
# a capture that lost 4 frames: iperf2's counts are the reference, and are called so
printf '239.9.9.1 3999 9\n239.9.9.2 3999 8\nother 0\n' >"$d/wire.txt"
printf 'run-lab: capture: 4 packets dropped by kernel\n' >"$d/capture.err"
out=$(python3 "$d/cmp.py" "$d/report.json" "$d/wire.txt" "$d/iperf.txt" 10 3999 0 "$d" 1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: lossy capture: exit $rc"; fail=1; }
expect "lossy capture" "the capture lost 4 frames" "$out"
expect "lossy capture" "239.9.9.1:3999 iperf2 11 mcfan 11 readers 11" "$out"
refuse "lossy capture" " wire 1" "$out"
refuse "lossy capture" "from the wire" "$out"
expect "lossy capture" "reference: iperf2 sender counts, the capture lost 4 frames" \
	"$(cat "$d/reference.txt" 2>/dev/null)"
# the PASS line takes that sentence (not "every frame on the wire")
expect "PASS line" 'REFERENCE=$(cat "$RUN_DIR/reference.txt")' "$(cat "$RUN_LAB")"
expect "PASS line" 'say "PASS: $REFERENCE is in' "$(cat "$RUN_LAB")"
[ $fail -eq 0 ] && echo "run-lab compare: 10 checks, 0 failed"
exit $fail
