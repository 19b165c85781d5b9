#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# A bounded libFuzzer run of one target: run-fuzz.sh TARGET SEED_CORPUS [DICT]
# Fuzzes for MCFAN_FUZZ_SECONDS (default 5) seconds, or MCFAN_FUZZ_RUNS executions if set,
# starting from the seed corpus (read only: new inputs go to a scratch directory). Exit 0
# with no finding; on a finding exit 1 (libFuzzer's own status, 77 by default, would read
# as "skipped" to meson), and the crashing input is kept in the scratch directory it names
# (reproduce: TARGET FILE).
set -uo pipefail
target=$1 corpus=$2 dict=${3:-}
secs=${MCFAN_FUZZ_SECONDS:-5}
work=$(mktemp -d /tmp/mcfan-fuzz-XXXXXX)
args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
	-error_exitcode=1 -timeout_exitcode=1 -artifact_prefix="$work/")
[ -n "${MCFAN_FUZZ_RUNS:-}" ] && args+=(-runs="$MCFAN_FUZZ_RUNS" -max_total_time=0)
[ -n "$dict" ] && [ -f "$dict" ] && args+=(-dict="$dict")
mkdir "$work/new"
"$target" "${args[@]}" "$work/new" "$corpus"
rc=$?
if [ "$rc" -eq 0 ]; then
	rm -rf "$work"
else
	echo "run-fuzz: $(basename "$target") found a problem (status $rc); inputs kept in $work" >&2
	rc=1
fi
exit "$rc"
