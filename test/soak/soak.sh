#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# The soak: mcfan on the lab (test/lab/lab.sh) for a long time (30 minutes by default) while
# its console changes something EVERY SECOND, randomly but reproducibly (seeded): joins and
# leaves, fan-out, idle policies, burst, stop/start, clear stats, msacc windows. Every second
# it checks conservation and the kernel-side line from telemetry and samples RSS and the
# mbufs outside their pool; at the end it checks that both stayed flat and that the final
# report is exact against what the senders sent. Not part of CI (docs/testing.md, "Soak").
#
#   sudo test/soak/soak.sh [--duration SEC] [--seed N] [--mcfan BINARY] [driver options]
#
# Every option is passed to the driver, test/soak/soak.py (`soak.py --help` lists them).
# Default binary: build/app/mcfan/mcfan of this tree. The lab (two namespaces, a veth pair,
# 198.18.0.0/15 addresses, iperf2 senders bounded in count and time) is removed on every
# exit, also on failure, Ctrl-C or SIGTERM. Exit status: 0 when every check held, 1 when one
# failed, 2 on bad usage, 77 when the lab cannot be made here (not root, no `ip netns`).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

for a in "$@"; do
	if [ "$a" = --help ] || [ "$a" = -h ]; then
		exec python3 "$HERE/soak.py" --help
	fi
done

# A short LAB_ID (interface names hold 15 characters): "sk" and the PID.
export LAB_ID=${LAB_ID:-sk$$}
# shellcheck source=test/lab/lab.sh
. "$ROOT/test/lab/lab.sh"
export LAB_DIR LAB_SND LAB_RCV LAB_VSND LAB_VRCV LAB_PORT LAB_GROUP_BASE

DRIVER_PID=

# shellcheck disable=SC2317  # called from the traps
cleanup() {
	trap - EXIT INT TERM
	if [ -n "$DRIVER_PID" ] && kill -0 "$DRIVER_PID" 2>/dev/null; then
		kill -TERM "$DRIVER_PID" 2>/dev/null
		wait "$DRIVER_PID" 2>/dev/null
	fi
	lab_down
}
trap cleanup EXIT
trap 'echo "soak: interrupted" >&2; exit 130' INT
trap 'echo "soak: terminated" >&2; exit 143' TERM

lab_check || exit 77
lab_up || { echo "soak: cannot create the lab" >&2; exit 77; }

# The driver runs in the background so that the traps above run at once on a signal; its
# own handlers stop mcfan and the senders (lab_down then kills whatever is left in the lab).
python3 "$HERE/soak.py" --root "$ROOT" "$@" &
DRIVER_PID=$!
wait "$DRIVER_PID"
rc=$?
DRIVER_PID=
exit $rc
