#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# Install what the tests need, build, run every test (unit, fuzz corpora and integration),
# then the sanitizer pass and the fuzz pass (docs/testing.md), and end with the lines
# "N skipped" and, last, "N passed, N failed" over all of them. Exit status 0 only if
# nothing failed.
# Usage: sudo test/run-tests.sh [meson test arguments, e.g. --suite unit]
#   With arguments, the main tree runs exactly those and the sanitizer pass runs the same
#   selection (the fuzz pass runs only with no arguments).
# Environment: MCFAN_TEST_BUILD (build-test), MCFAN_TEST_ASAN_BUILD (build-asan),
#   MCFAN_TEST_FUZZ_BUILD (build-fuzz); MCFAN_TEST_SANITIZE=0 skips the sanitizer pass,
#   MCFAN_TEST_FUZZ=0 the fuzz pass; MCFAN_FUZZ_SECONDS (5) is the bounded run per target.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${MCFAN_TEST_BUILD:-build-test}
ASAN_BUILD=${MCFAN_TEST_ASAN_BUILD:-build-asan}
FUZZ_BUILD=${MCFAN_TEST_FUZZ_BUILD:-build-fuzz}
# Integration tests of the sanitizer pass: the ones that reach the most code in the least
# time and do not measure timing (docs/testing.md): every option and config file (options),
# every frame kind and the report (pcap), the telemetry commands under load (telemetry), the
# console (console), signals and --duration (signals), ring overflow accounting
# (accounting), the adversary's inputs (hardening), the feed trackers on captures and the lab
# (feed), the metrics endpoint and its HTTP server (metrics), failed starts (failstart).
# pcap_churn (the pcap writer closing left groups' files while it lags) runs in the main
# pass only: its lag is made by stopping the writer thread (ptrace), not by the sanitizers'
# slowness, and the CI's 20 minutes have no room for its 25 s again.
# The ones that may run two at a time (test/meson.build, integration_parallel) come first:
# meson runs named tests in the order given.
ASAN_INTEGRATION=(options telemetry pcap accounting console hardening failstart signals feed
	metrics)
# test_metrics' runs under the sanitizers: the HTTP server with bad and slow clients, the real
# Prometheus, every engine's and the readers' series, torn reads (the runs left out, clear,
# other, states, windows, labels, readers_other and shared_rx, check the page's arithmetic
# over time, which the main pass checks; they add about a minute here)
ASAN_METRICS_RUNS=port_in_use,privileged_port,torn,main,max_groups,engines,outputs,readers
# test_options' parts under the sanitizers: every refusal before and after EAL, the config
# file, the engines and paths (the parts left out, corelists, groups, ring_burst_mbufs,
# times, eal_log_level, report_stdout and eal_cpus, are mostly runs of good values whose
# set-up and data paths the other tests here run too, and the group parser is fuzzed;
# they add about 50 s here)
ASAN_OPTIONS_PARTS=help,argv_errors,doc_limits,fanout,paths_flags,eal_memory,post_eal
ASAN_OPTIONS_PARTS+=,no_hugetlbfs,no_free_hugepages,config,review_findings,engines
# Any finding fails the test: report, print the stack and abort (a crash, not a warning).
# LeakSanitizer is on; test/sanitizer/lsan.supp names the only leaks suppressed (DPDK's).
SAN_ENV=(
	"ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:detect_leaks=1:detect_stack_use_after_return=0"
	"UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1"
	"LSAN_OPTIONS=suppressions=$PWD/test/sanitizer/lsan.supp:print_suppressions=0"
)
logs=()
status=0
extra_skipped=0

test/install-deps.sh || exit 1

# setup DIR OPTION... : set DIR up with exactly these options (afresh if they differ).
setup() {
	local dir=$1
	shift
	if [ -f "$dir/build.ninja" ] && python3 - "$dir" "$@" <<'PY'
import json, subprocess, sys
opts = {o["name"]: o["value"] for o in json.loads(subprocess.check_output(
    ["meson", "introspect", "--buildoptions", sys.argv[1]]))}
for a in sys.argv[2:]:
    k, v = a[2:].split("=", 1)
    have = opts.get(k)
    have = ",".join(have) if isinstance(have, list) else str(have).lower()
    if have != v.lower():
        sys.exit(1)
PY
	then
		return 0
	fi
	if [ -d "$dir" ]; then
		meson setup --wipe "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
}

# Main tree: warnings are errors (-Dwerror=true).
setup "$BUILD" -Dwerror=true || exit 1
ninja -C "$BUILD" >/dev/null || { ninja -C "$BUILD"; exit 1; }
meson test -C "$BUILD" --print-errorlogs --num-processes 2 "$@" || status=1
logs+=("$BUILD/meson-logs/testlog.json")

# Sanitizer pass: AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer on
# the unit tests, the fuzz corpora and the chosen integration tests. Warnings are not errors
# here: GCC's -Wformat-truncation guesses differently under -fsanitize (the main tree checks
# warnings). DPDK runs under ASan without hugepages; every test passes --no-huge.
if [ "${MCFAN_TEST_SANITIZE:-1}" != 0 ]; then
	echo "== sanitizer pass ($ASAN_BUILD: -Db_sanitize=address,undefined)"
	if setup "$ASAN_BUILD" -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=false &&
		ninja -C "$ASAN_BUILD" >/dev/null; then
		if [ $# -gt 0 ]; then
			env "${SAN_ENV[@]}" meson test -C "$ASAN_BUILD" --print-errorlogs \
				--num-processes 2 --logbase asan "$@" || status=1
			logs+=("$ASAN_BUILD/meson-logs/asan.json")
		else
			env "${SAN_ENV[@]}" meson test -C "$ASAN_BUILD" --print-errorlogs \
				--num-processes 2 --suite unit --suite fuzz --logbase asan-unit ||
				status=1
			env "${SAN_ENV[@]}" MCFAN_METRICS_ONLY="$ASAN_METRICS_RUNS" \
				MCFAN_OPTIONS_ONLY="$ASAN_OPTIONS_PARTS" \
				meson test -C "$ASAN_BUILD" --print-errorlogs --num-processes 2 \
				--logbase asan-integration "${ASAN_INTEGRATION[@]}" ||
				status=1
			logs+=("$ASAN_BUILD/meson-logs/asan-unit.json"
			       "$ASAN_BUILD/meson-logs/asan-integration.json")
		fi
	else
		echo "sanitizer pass: build of $ASAN_BUILD failed" >&2
		ninja -C "$ASAN_BUILD" | tail -20
		status=1
	fi
fi

# Fuzz pass: libFuzzer builds with clang (-Dfuzz=true, plus ASan and UBSan); each target
# runs its corpus (-runs=0) and fuzzes for MCFAN_FUZZ_SECONDS. Skipped with a SKIP line when
# clang cannot link -fsanitize=fuzzer (install-deps.sh tries to install clang and
# libclang-rt-14-dev).
fuzz_ok() {
	local d
	d=$(mktemp -d) || return 1
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$d/t.c"
	clang -fsanitize=fuzzer,address,undefined "$d/t.c" -o "$d/t" >/dev/null 2>&1
	local rc=$?
	rm -rf "$d"
	return $rc
}
if [ $# -eq 0 ] && [ "${MCFAN_TEST_FUZZ:-1}" != 0 ]; then
	echo "== fuzz pass ($FUZZ_BUILD: clang, -Dfuzz=true)"
	if ! command -v clang >/dev/null || ! fuzz_ok; then
		echo "SKIP: fuzz pass: clang with libFuzzer (clang, libclang-rt-14-dev) is not available"
		extra_skipped=6
	elif (export CC=clang; setup "$FUZZ_BUILD" -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dwerror=false) &&
		# only the fuzz targets (test/fuzz_*): this pass runs nothing else, and the rest of
		# the tree (the program, the unit tests, the tools) is built twice already
		ninja -C "$FUZZ_BUILD" $(grep '^fuzz_targets = ' test/meson.build |
			grep -o "'[a-z_]*'" | tr -d "'" | sed 's|^|test/fuzz_|') >/dev/null; then
		# two at a time on two CPUs: each target still fuzzes MCFAN_FUZZ_SECONDS on a CPU
		# of its own (one at a time took 7 x 21 s of the CI's 20 minutes)
		env "${SAN_ENV[@]}" meson test -C "$FUZZ_BUILD" --print-errorlogs --num-processes 2 \
			--no-rebuild --suite fuzz --suite fuzz-run --logbase fuzz || status=1
		logs+=("$FUZZ_BUILD/meson-logs/fuzz.json")
	else
		echo "fuzz pass: build of $FUZZ_BUILD failed" >&2
		status=1
	fi
fi

python3 - "$extra_skipped" "${logs[@]}" <<'PY'
import json, sys
passed = failed = 0
skipped = int(sys.argv[1])
for path in sys.argv[2:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        print(f"run-tests: no test log {path}", file=sys.stderr)
        failed += 1
        continue
    for line in lines:
        if not line.strip():
            continue
        r = json.loads(line)["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
# the last line is CI's: "N passed, N failed" (a skipped test is neither; counted above it)
print(f"{skipped} skipped")
print(f"{passed} passed, {failed} failed")
PY
exit $status
