#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# Ask a live erl about the +sct map table again and compare its answers with the data compiled
# into test_sct (sct_oracle.h), so that the test data stays Erlang's word. test_sct checks
# mcfan_sct against the same data; together mcfan agrees with this erl.
#
# Usage: sct_oracle_check.sh [sct_oracle.h]
# Exit status: 0 same answers, 1 different, 77 (skipped) without erl.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
header=${1:-$here/sct_oracle.h}

if ! command -v erl >/dev/null 2>&1; then
	echo "sct_oracle_check.sh: erl not found, skipped"
	exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$here/gen_sct_oracle.sh" "$tmp/sct_oracle.h"

# The generating erl's release is a comment; only the answers must agree.
grep -v '^/\* erl OTP ' "$header" > "$tmp/compiled"
grep -v '^/\* erl OTP ' "$tmp/sct_oracle.h" > "$tmp/live"
if ! diff -u "$tmp/compiled" "$tmp/live"; then
	echo "sct_oracle_check.sh: erl $(sed -n 's/^\/\* erl \(OTP [0-9]*\) \*\/$/\1/p' \
		"$tmp/sct_oracle.h") answers differ from $header (lines - compiled, + live)"
	exit 1
fi
echo "sct_oracle_check.sh: erl agrees with $header on $(grep -c '\.map = ' "$header") maps"
