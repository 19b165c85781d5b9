#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# Ask Erlang's runtime (erl, the oracle) about every +sct map of the table below and write its
# answers as C data for test_sct.c: for a refused map the reason erl prints, for an accepted
# one the topology term erlang:system_info({cpu_topology, defined}) returns and the CPU order
# of every bind type from erts_debug's fake_scheduler_bindings.
#
# Usage: gen_sct_oracle.sh [OUTPUT]      (default: sct_oracle.h next to this script)
#        gen_sct_oracle.sh --answer MAP  (print erl's answer for one map, for experiments)
#
# sct_oracle_check.sh runs this into a temporary file and compares it with the committed
# sct_oracle.h. Needs erl (Debian: erlang-base).

set -eu

here=$(cd "$(dirname "$0")" && pwd)

# Bind types in the order of the generated arrays (Erlang's long names).
BINDS="default_bind spread processor_spread thread_spread thread_no_node_processor_spread
no_node_processor_spread no_node_thread_spread no_spread"

# The table: one map a line, '#' starts a comment line, <empty> is the empty map text.
# Maps must not contain a backslash, a double quote or white space other than a trailing ' '
# written as <space>.
maps() {
	cat <<'EOF'
# The 24-CPU, 2-node map of CONTEXT.md section 2, one entry per CPU: 2 processors, each its
# own NUMA node, 6 cores each, 2 threads a core, sibling threads on consecutive CPUs.
L0T0C0P0N0:L1T1C0P0N0:L2T0C1P0N0:L3T1C1P0N0:L4T0C2P0N0:L5T1C2P0N0:L6T0C3P0N0:L7T1C3P0N0:L8T0C4P0N0:L9T1C4P0N0:L10T0C5P0N0:L11T1C5P0N0:L12T0C0P1N1:L13T1C0P1N1:L14T0C1P1N1:L15T1C1P1N1:L16T0C2P1N1:L17T1C2P1N1:L18T0C3P1N1:L19T1C3P1N1:L20T0C4P1N1:L21T1C4P1N1:L22T0C5P1N1:L23T1C5P1N1
# The same machine written with lists.
L0-11T0,1,0,1,0,1,0,1,0,1,0,1C0,0,1,1,2,2,3,3,4,4,5,5P0N0:L12-23T0,1,0,1,0,1,0,1,0,1,0,1C0,0,1,1,2,2,3,3,4,4,5,5P1N1
# The same shape numbered like Linux on x86: thread siblings are n and n+12.
L0-5T0C0-5P0N0:L6-11T0C0-5P1N1:L12-17T1C0-5P0N0:L18-23T1C0-5P1N1
# Small and single-level maps.
L0
L0-1T0-1
L0-3C0-3
L0-3T0,1,0,1C0,0,1,1
L0-7T0-1,0-1,0-1,0-1C0,0,1,1,2,2,3,3
L0-1T0C0,1P0-1
L0:L1P1
L0T0:L1T1:
L65535
L00
L1-1
L0-1T5,9
L0-1C0-1N5
L0-3t0,1,0,1c0,0,1,1p0n0
L0-3t0,1,0,1c0,0,1,1n0p0
# Descending ranges and gaps in ids.
L3-0C0-3
L0,2,4C0-2
L7-0T1,1,1,1,0,0,0,0C3-0,3-0
L0,4,8,12,16,20,24,28T0,1,0,1,0,1,0,1C10,10,20,20,30,30,40,40P5,5,5,5,9,9,9,9N3,3,3,3,7,7,7,7
L0-7T0C0-3,0-3P1,1,1,1,0,0,0,0N1,1,1,1,0,0,0,0
L0-3C0-1,0-1P0,0,1,1N1,1,0,0
L5C1P1N1:L4C0P1N1:L1C1P0N0:L0C0P0N0
L15-0T1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0C7,7,6,6,5,5,4,4,3,3,2,2,1,1,0,0P1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0N0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1
# Several nodes around processors.
L0-3C0-3P0,0,1,1N0,0,1,1
L0-1C0,1P0,1N1,0
L0-2C0-2P0N0:L3-4C0-1P1N1:L5C0P2N2
L0-7C0,1,0,1,0,1,0,1P0,0,1,1,2,2,3,3N0,0,1,1,0,0,1,1
L0-15C0-15P0N0:L16-31C0-15P1N1:L32-47C0-15P2N2:L48-63C0-15P3N3
L0-15T0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1C0,0,1,1,2,2,3,3,0,0,1,1,2,2,3,3P0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1N0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
# Several processors in one node (and no nodes at all): here ts and tnnps, nnps and nnts differ.
L0-7T0,1,0,1,0,1,0,1C0,0,1,1,0,0,1,1P0,0,0,0,1,1,1,1N0
L0-7T0,1,0,1,0,1,0,1C0,0,1,1,0,0,1,1P0,0,0,0,1,1,1,1
L0-15T0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1C0,0,1,1,0,0,1,1,0,0,1,1,0,0,1,1P0,0,0,0,1,1,1,1,2,2,2,2,3,3,3,3N0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1
# Nodes inside processors.
L0-3C0,1,0,1N0,0,1,1P0
L0-1N0,1P0:L2-3N2,3P1
L0-1N0,1P0:L2-3N0,1P1
L0-1C0-1N0P0
L0-3T0,1,0,1C0,0,1,1N0P0:L4-7T0,1,0,1C2,2,3,3N1P0:L8-11T0,1,0,1C0,0,1,1N0P1:L12-15T0,1,0,1C2,2,3,3N1P1
L0-7T0,1,0,1,0,1,0,1C0,0,1,1,2,2,3,3N0,0,1,1,2,2,3,3P0
L0-5C0-5N1,1,1,0,0,0P0:L6-11C0-5N1,1,1,0,0,0P1
# Erlang's leniency: nodes inside one processor and around another, and a first CPU (in
# processor order) with a node both around and inside its processor.
L0P0N0:L1N0P1
L0N0P0N1
L0N0P0N1:L1P1N0
# Refused: invalid identifier.
Lx
L70000
L-1
L0,
L0,,1
L0C
L0T0C0P0N
L99999999999999999999
L0,-1
# Refused: invalid identifier range.
L0-
L0-70000
L0--1
L0-1T0-2
L0-23T0-1C0-5P0-1N0-1
L0,1T0,1,2
L0T0,1
L0-3C0-3N0-1P0-1
# Refused: invalid hierarchy.
L0C0T0
L0T0T1
L0N0N1
L0P0P1
L0P0N0P1
L0N0C0
T0L0
L0L1
# Refused: invalid identifier type.
L0X1
l0
L0x
L0-1-2
L0+1
L0<space>
L0T0C0P0N0X
# Refused: invalid nodes declaration.
L0-1C0-1N0,1
L0-3N0-3
L0:L1N0
L0P0N0:L1P0N1
L0P0N0:L1N0P0
L0-1C0-1N0,1P0:L2N2
L0P0N0:L1N0P1N3
L0-3C0-3P0,0,1,1N0,1,0,1
# Refused: missing logical identifier.
:
L0::L1
:L0
T0
C0P0
# Refused: logical identifiers not unique.
L0T0:L0T1
L0-3C0-3:L3C4
L0-65535T0-65535:L0-65535T0-65535
# Refused: entities not unique.
L0,1T0
L0:L1
L0N0:L1N0
L0-1
L0:L1:
L0N0P0N1:L1N0P0N1
# Refused: empty topology.
<empty>
# Precedence: syntax before logical ids, logical ids before entities, entities before nodes.
L0:L0:L5x
L0-65535T0-65535:L0-65535T0-65535:Lx
L0:L0T1:L1
L0N0:L1:L1N1
EOF
}

# erl's answer for one map: "error REASON", or "term TERM" then "order BIND CPU,CPU,...".
# One scheduler of each kind starts faster; fake_scheduler_bindings orders every CPU of the
# map whatever the number of schedulers.
answer() {
	out=$(erl +sct "$1" +S 1:1 +SDcpu 1:1 -noshell -eval '
		erts_debug:set_internal_state(available_internal_state, true),
		io:format("SCT term ~w~n", [erlang:system_info({cpu_topology, defined})]),
		lists:foreach(fun(B) ->
			O = erts_debug:get_internal_state({fake_scheduler_bindings, B}),
			io:format("SCT order ~s ~s~n",
				[B, lists:join(",", [integer_to_list(X) || X <- tuple_to_list(O)])])
		end, ['"$(echo $BINDS | sed 's/ /, /g')"']),
		halt().' 2>&1 | tr -d '\r' || true)
	bad=$(printf '%s\n' "$out" | sed -n "s/^bad cpu topology '.*': //p" | head -n 1)
	if [ -n "$bad" ]; then
		echo "error $bad"
	else
		printf '%s\n' "$out" | sed -n 's/^SCT //p'
	fi
}

if [ "${1:-}" = "--answer" ]; then
	answer "$2"
	exit 0
fi

out=${1:-$here/sct_oracle.h}
command -v erl >/dev/null 2>&1 || { echo "gen_sct_oracle.sh: erl not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Ask erl about every map, a few at a time; answers land in numbered files.
maps | grep -v '^#' | sed -e 's/^<empty>$//' -e 's/<space>/ /g' > "$tmp/maps"
i=0
while IFS= read -r map; do
	i=$((i + 1))
	printf '%s\n' "$map" > "$tmp/map.$i"
done < "$tmp/maps"
n=$i
jobs=$(nproc 2>/dev/null || echo 2)
seq 1 "$n" | xargs -P "$jobs" -I{} sh -c '"$0" --answer "$(cat "$1/map.$2")" > "$1/answer.$2"' \
	"$here/gen_sct_oracle.sh" "$tmp" {}

otp=$(erl -noshell -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().')

c_string() {
	printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"
}

{
	echo "/* SPDX-License-Identifier: BSD-3-Clause"
	echo " * Copyright(c) 2026 The mcfan authors"
	echo " */"
	echo ""
	echo "/*"
	echo " * Erlang's answers for the +sct maps of gen_sct_oracle.sh; generated by that script,"
	echo " * do not edit. Checked against a live erl by sct_oracle_check.sh."
	echo " */"
	echo "/* erl OTP $otp */"
	echo ""
	echo "#ifndef MCFAN_TEST_SCT_ORACLE_H"
	echo "#define MCFAN_TEST_SCT_ORACLE_H"
	echo ""
	echo "/* Number of bind types with an order (every one but unbound). */"
	echo "#define SCT_ORACLE_BINDS $(echo $BINDS | wc -w)"
	echo ""
	echo "/* Erlang's names of the bind types, in the order of sct_oracle_case.order. */"
	echo "static const char *const sct_oracle_binds[SCT_ORACLE_BINDS] = {"
	for b in $BINDS; do
		echo "	\"$b\","
	done
	echo "};"
	echo ""
	echo "struct sct_oracle_case {"
	echo "	const char *map;		/* +sct text given to erl */"
	echo "	const char *error;		/* erl's reason for refusing it, or NULL */"
	echo "	const char *term;		/* erlang:system_info({cpu_topology, defined}), ~w */"
	echo "	const char *order[SCT_ORACLE_BINDS];	/* fake_scheduler_bindings, CPU ids */"
	echo "};"
	echo ""
	echo "static const struct sct_oracle_case sct_oracle[] = {"
	i=0
	while IFS= read -r map; do
		i=$((i + 1))
		a="$tmp/answer.$i"
		echo "	{"
		echo "		.map = $(c_string "$map"),"
		if grep -q '^error ' "$a"; then
			echo "		.error = $(c_string "$(sed -n 's/^error //p' "$a")"),"
		elif grep -q '^term ' "$a"; then
			echo "		.term = $(c_string "$(sed -n 's/^term //p' "$a")"),"
			echo "		.order = {"
			for b in $BINDS; do
				echo "			$(c_string "$(sed -n "s/^order $b //p" "$a")"),"
			done
			echo "		},"
		else
			echo "gen_sct_oracle.sh: no answer from erl for map '$map'" >&2
			exit 1
		fi
		echo "	},"
	done < "$tmp/maps"
	echo "};"
	echo ""
	echo "#endif /* MCFAN_TEST_SCT_ORACLE_H */"
} > "$tmp/out.h"
mv "$tmp/out.h" "$out"
