#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# Install what the tests need, build, run every test (unit and integration) and end with
# the line "N passed, N failed, N skipped". Exit status 0 only if nothing failed.
# Usage: sudo test/run-tests.sh [meson test arguments, e.g. --suite unit]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${MCFAN_TEST_BUILD:-build-test}

test/install-deps.sh || exit 1
# Warnings are errors (-Dwerror=true); a build directory set up without it is set up afresh.
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" -Dwerror=true >/dev/null || exit 1
elif ! meson introspect --buildoptions "$BUILD" | python3 -c '
import json, sys
sys.exit(0 if any(o["name"] == "werror" and o["value"] for o in json.load(sys.stdin)) else 1)'
then
	meson setup --wipe "$BUILD" -Dwerror=true >/dev/null || exit 1
fi
ninja -C "$BUILD" >/dev/null || { ninja -C "$BUILD"; exit 1; }

meson test -C "$BUILD" --print-errorlogs --num-processes 2 "$@"
status=$?

python3 - "$BUILD/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
try:
    lines = open(sys.argv[1]).read().splitlines()
except OSError:
    lines = []
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
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
