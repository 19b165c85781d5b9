# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# mcfan's network-namespace lab: a library of bash functions, to be sourced.
#
#   . test/lab/lab.sh
#   trap lab_down EXIT INT TERM
#   lab_up                          # two namespaces, a veth pair between them
#   lab_capture_start               # tcpdump on the receiver's veth
#   lab_rcv_bg OUT mcfan ... --vdev net_af_packet0,iface=$LAB_VRCV ...   # PID in LAB_BG_PID
#   lab_send 10 200 100 500         # 10 groups x 200 datagrams of 100 bytes at 500 pps each
#   lab_capture_stop
#   lab_wire_counts                 # "239.9.9.1 3999 201 28542" (frames, bytes) per group
#   lab_wait_readers PREFIX 100     # until that mcfan's reader rings have 100 readers
#   lab_down
#
# Everything is named after LAB_ID (default: the PID of the shell that sources this file),
# so concurrent labs never collide and a caller in another process (the Python test) can
# reach the same lab by exporting the same LAB_ID. State (pid files, iperf reports, the
# capture) lives in LAB_DIR, which lab_down removes unless LAB_KEEP=1.
#
# Network rule: traffic stays inside the two namespaces made here; addresses come from
# 198.18.0.0/15 only (RFC 2544 benchmarking), groups are 239.9.9.x, TTL 1, and every sender
# sends a bounded number of datagrams under a bounded `timeout`.

LAB_ID=${LAB_ID:-$$}
LAB_SND=mcfan-snd-$LAB_ID            # sender namespace
LAB_RCV=mcfan-rcv-$LAB_ID            # receiver namespace (mcfan runs here)
LAB_VSND=mcs$LAB_ID                  # veth end in the sender namespace (<= 15 characters)
LAB_VRCV=mcr$LAB_ID                  # veth end in the receiver namespace
LAB_SND_IP=198.18.0.1
LAB_RCV_IP=198.18.0.2
LAB_PREFIX=24
LAB_GROUP_BASE=239.9.9               # groups are $LAB_GROUP_BASE.1 .. .N
LAB_PORT=${LAB_PORT:-3999}
LAB_DIR=${LAB_DIR:-/tmp/mcfan-lab-$LAB_ID}
LAB_CAPTURE=$LAB_DIR/capture.pcap
LAB_SEND_SLACK=${LAB_SEND_SLACK:-20}  # seconds a sender may run beyond its nominal time
LAB_MTU=${LAB_MTU:-}                 # MTU of both veth ends (68..65535); empty: the kernel's 1500
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)  # the source tree

lab_log() {
	echo "lab[$LAB_ID]: $*" >&2
}

# Run a command in the sender or the receiver namespace.
lab_snd() {
	ip netns exec "$LAB_SND" "$@"
}

lab_rcv() {
	ip netns exec "$LAB_RCV" "$@"
}

# lab_rcv_bg OUT COMMAND...: start COMMAND in the receiver namespace in the background, its
# stdout and stderr to OUT; LAB_BG_PID is then the command's own PID (not a subshell's), so
# a signal sent to it reaches the command. Call it plainly, not with '&'.
lab_rcv_bg() {
	local out=$1
	shift
	ip netns exec "$LAB_RCV" "$@" >"$out" 2>&1 &
	# shellcheck disable=SC2034  # read by the caller
	LAB_BG_PID=$!
}

# Is the lab usable here? (root, iproute2 with netns, veth.)
lab_check() {
	if [ "$(id -u)" -ne 0 ]; then
		lab_log "needs root (network namespaces)"
		return 1
	fi
	if [ ${#LAB_ID} -gt 12 ]; then
		lab_log "LAB_ID '$LAB_ID' is longer than 12 characters (interface names max 15)"
		return 1
	fi
	if ! ip netns list >/dev/null 2>&1; then
		lab_log "'ip netns' is not available"
		return 1
	fi
	return 0
}

# Create the lab: two namespaces with IPv6 off (no MLD, ND or router solicitations on the
# wire, so the capture holds only what the senders send), a veth pair between them (MTU
# $LAB_MTU when set), 198.18.0.1/24 (sender) and 198.18.0.2/24 (receiver), 224.0.0.0/4 routed
# out of the sender's veth, everything up. Fails (and undoes itself) if any step fails.
lab_up() {
	lab_check || return 1
	mkdir -p "$LAB_DIR" || return 1
	if ! lab_make; then
		lab_log "lab_up failed; removing what was made"
		lab_down
		return 1
	fi
	lab_wait_carrier || { lab_down; return 1; }
	lab_log "up: $LAB_SND/$LAB_VSND $LAB_SND_IP <-> $LAB_RCV/$LAB_VRCV $LAB_RCV_IP"
	return 0
}

lab_make() {
	local ns
	ip netns add "$LAB_SND" || return 1
	ip netns add "$LAB_RCV" || return 1
	for ns in "$LAB_SND" "$LAB_RCV"; do
		# before the veth exists, so that it is created with IPv6 off (nothing to do on a
		# kernel booted without IPv6)
		ip netns exec "$ns" sh -c '[ ! -d /proc/sys/net/ipv6 ] ||
			sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1' ||
			return 1
	done
	ip link add "$LAB_VSND" netns "$LAB_SND" type veth \
		peer name "$LAB_VRCV" netns "$LAB_RCV" || return 1
	ip -n "$LAB_SND" addr add "$LAB_SND_IP/$LAB_PREFIX" dev "$LAB_VSND" || return 1
	ip -n "$LAB_RCV" addr add "$LAB_RCV_IP/$LAB_PREFIX" dev "$LAB_VRCV" || return 1
	if [ -n "$LAB_MTU" ]; then
		ip -n "$LAB_SND" link set "$LAB_VSND" mtu "$LAB_MTU" || return 1
		ip -n "$LAB_RCV" link set "$LAB_VRCV" mtu "$LAB_MTU" || return 1
	fi
	ip -n "$LAB_SND" link set lo up || return 1
	ip -n "$LAB_RCV" link set lo up || return 1
	ip -n "$LAB_SND" link set "$LAB_VSND" up || return 1
	ip -n "$LAB_RCV" link set "$LAB_VRCV" up || return 1
	ip -n "$LAB_SND" route add 224.0.0.0/4 dev "$LAB_VSND" || return 1
	return 0
}

# Wait (at most 5 s) until both veth ends report carrier.
lab_wait_carrier() {
	local i
	for i in $(seq 50); do
		if [ "$(lab_snd cat "/sys/class/net/$LAB_VSND/carrier" 2>/dev/null)" = 1 ] &&
		   [ "$(lab_rcv cat "/sys/class/net/$LAB_VRCV/carrier" 2>/dev/null)" = 1 ]; then
			return 0
		fi
		sleep 0.1
	done
	lab_log "veth pair has no carrier after 5 s"
	return 1
}

# Kill every process still inside the lab's namespaces (only ours live there), then delete
# the namespaces (which destroys the veth pair) and the state directory. Idempotent; safe to
# call from a trap at any point.
lab_down() {
	local ns pids i
	for ns in "$LAB_SND" "$LAB_RCV"; do
		ip netns list 2>/dev/null | awk '{ print $1 }' | grep -qxF -- "$ns" || continue
		pids=$(ip netns pids "$ns" 2>/dev/null)
		if [ -n "$pids" ]; then
			# shellcheck disable=SC2086
			kill -TERM $pids 2>/dev/null
			for i in $(seq 30); do
				pids=$(ip netns pids "$ns" 2>/dev/null)
				[ -z "$pids" ] && break
				sleep 0.1
			done
			# shellcheck disable=SC2086
			[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
		fi
		ip netns del "$ns" 2>/dev/null
	done
	# a veth end left in the root namespace would mean a half-made lab_up
	ip link del "$LAB_VSND" 2>/dev/null
	ip link del "$LAB_VRCV" 2>/dev/null
	if [ "${LAB_KEEP:-0}" != 1 ]; then
		rm -rf -- "$LAB_DIR"
	fi
	return 0
}

# Print the groups 1..N, one a line.
lab_groups() {
	local n=$1 i
	for i in $(seq "$n"); do
		echo "$LAB_GROUP_BASE.$i"
	done
}

# lab_send NGROUPS COUNT [LEN] [PPS] [FIRST]
# One iperf2 UDP client per group $LAB_GROUP_BASE.FIRST .. .FIRST+NGROUPS-1 (FIRST = 1),
# port $LAB_PORT, TTL 1, all at once, each sending exactly COUNT datagrams of LEN bytes
# (default 100; at least 16, iperf2's own header) at PPS datagrams per second (default 500):
# -n COUNT*LEN bytes with -l LEN is exactly COUNT writes. iperf2 then sends one more
# datagram to the group, its end-of-test marker (a negative sequence number), so the wire
# carries COUNT + 1 per group. Each client's report goes to $LAB_DIR/iperf-GROUP.txt.
# Returns non-zero if any client failed or timed out.
lab_send() {
	local n=$1 count=$2 len=${3:-100} pps=${4:-500} first=${5:-1}
	local limit g i pids=() rc=0
	if [ "$len" -lt 16 ]; then
		lab_log "lab_send: datagram length $len is below iperf2's 16-byte header"
		return 2
	fi
	limit=$(( count / pps + LAB_SEND_SLACK ))
	mkdir -p "$LAB_DIR"
	for i in $(seq "$first" $((first + n - 1))); do
		g=$LAB_GROUP_BASE.$i
		ip netns exec "$LAB_SND" timeout -s INT -k 2 "$limit" \
			iperf -c "$g" -u -p "$LAB_PORT" -T 1 -l "$len" -n $((count * len)) \
			-b "${pps}pps" -e >"$LAB_DIR/iperf-$g.txt" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	[ $rc -eq 0 ] || lab_log "lab_send: a sender failed or timed out (see $LAB_DIR/iperf-*.txt)"
	return $rc
}

# lab_sender_build: build test/bench/seed_sender into $LAB_DIR once (a benchmark calls it
# before it measures, so the compile is not charged to a run).
lab_sender_build() {
	[ -x "$LAB_DIR/seed_sender" ] && return 0
	mkdir -p "$LAB_DIR"
	cc -O2 -Wall -Wextra -o "$LAB_DIR/seed_sender" "$LAB_ROOT/test/bench/seed_sender.c" ||
		{ lab_log "lab_sender_build: cannot build test/bench/seed_sender.c"; return 2; }
}

# lab_send_paced NGROUPS COUNT [LEN] [PPS] [TICK_US]
# As lab_send, with test/bench/seed_sender instead of iperf2 (built with cc into $LAB_DIR on
# first use): COUNT datagrams of LEN bytes a group at PPS datagrams a second, then iperf2's
# end-of-test datagram (the wire carries COUNT + 1 a group, iperf2's header in each), from
# a sender that sleeps between ticks of TICK_US (default 1000) and keeps the rate asked
# (iperf 2.1.8 does not on this host: docs/performance.md "The senders' rate"). Each
# sender's one-line summary goes to $LAB_DIR/sender-GROUP.txt. Non-zero if any failed.
lab_send_paced() {
	local n=$1 count=$2 len=${3:-100} pps=${4:-500} tick=${5:-1000}
	local bin=$LAB_DIR/seed_sender limit g i pids=() rc=0
	lab_sender_build || return 2
	limit=$(( count / pps + LAB_SEND_SLACK ))
	for i in $(seq "$n"); do
		g=$LAB_GROUP_BASE.$i
		ip netns exec "$LAB_SND" timeout -s INT -k 2 "$(( limit + 5 ))" "$bin" -g "$g" \
			-p "$LAB_PORT" -l "$len" -r "$pps" -n "$count" -T "$tick" -w "$limit" \
			>"$LAB_DIR/sender-$g.txt" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	[ $rc -eq 0 ] || lab_log "lab_send_paced: a sender failed (see $LAB_DIR/sender-*.txt)"
	return $rc
}

# What iperf2 reported for one group: "WRITES ERRORS SENT" (Write/Err columns of the -e
# report, and its "Sent N datagrams" line).
lab_iperf_report() {
	local f=$LAB_DIR/iperf-$1.txt
	awk '
		/Write\/Err/ { hdr = 1; next }
		hdr && /sec/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, a, "/"); w = a[1]; e = a[2] } }
		/Sent [0-9]+ datagrams/ { for (i = 1; i <= NF; i++) if ($i == "Sent") s = $(i + 1) }
		END { print (w == "" ? -1 : w), (e == "" ? -1 : e), (s == "" ? -1 : s) }
	' "$f"
}

# lab_capture_start [FILE]: tcpdump -w on the receiver's veth, both directions, every frame.
# Returns once tcpdump is listening (at most 10 s). A 32 MiB capture buffer (-B, as
# test_kernel's sender capture has): with -s 0 and immediate mode the default 2 MiB is a
# few large blocks, and a tcpdump that waited for a CPU dropped frames (CI: test_feed's and
# test_lab's ground truth missed datagrams that mcfan had counted).
lab_capture_start() {
	local file=${1:-$LAB_CAPTURE} i
	mkdir -p "$LAB_DIR"
	rm -f "$LAB_DIR/tcpdump.err"
	ip netns exec "$LAB_RCV" timeout -s INT 3600 tcpdump -i "$LAB_VRCV" -n -U --immediate-mode \
		-B 32768 -s 0 -w "$file" >/dev/null 2>"$LAB_DIR/tcpdump.err" &
	echo $! >"$LAB_DIR/tcpdump.pid"
	for i in $(seq 100); do
		grep -q 'listening on' "$LAB_DIR/tcpdump.err" 2>/dev/null && return 0
		kill -0 "$(cat "$LAB_DIR/tcpdump.pid")" 2>/dev/null || break
		sleep 0.1
	done
	lab_log "tcpdump did not start: $(cat "$LAB_DIR/tcpdump.err" 2>/dev/null)"
	return 1
}

# Stop the capture (SIGINT, so tcpdump flushes) and print its own counts; fails if the
# kernel dropped any frame before tcpdump saw it.
lab_capture_stop() {
	local pid i
	[ -f "$LAB_DIR/tcpdump.pid" ] || return 1
	pid=$(cat "$LAB_DIR/tcpdump.pid")
	kill -INT "$pid" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$LAB_DIR/tcpdump.pid"
	grep -E 'packets (captured|received|dropped)' "$LAB_DIR/tcpdump.err" >&2
	if grep -qE '^[1-9][0-9]* packets dropped by kernel' "$LAB_DIR/tcpdump.err"; then
		lab_log "the capture lost frames: it cannot be the reference"
		return 1
	fi
	return 0
}

# lab_wire_counts [FILE]: frames per destination "GROUP PORT FRAMES BYTES" for every UDP
# frame to 239.9.9.x, counted with tshark in the capture (any VLAN tags included), and one
# line "other FRAMES" for everything else the wire carried.
lab_wire_counts() {
	local file=${1:-$LAB_CAPTURE}
	tshark -r "$file" -n -T fields -E separator=' ' -e ip.dst -e udp.dstport -e frame.len \
		2>/dev/null | awk -v base="$LAB_GROUP_BASE." '
		index($1, base) == 1 && $2 != "" { n[$1 " " $2]++; b[$1 " " $2] += $3; next }
		{ other++ }
		END {
			for (k in n) print k, n[k], b[k]
			print "other", other + 0
		}' | sort -V
}

# lab_wait_readers PREFIX N [SECONDS]: wait until the mcfan of EAL --file-prefix PREFIX counts
# N readers on its reader rings (telemetry /mcfan/readers, "readers": a reader takes its row
# at the end of mcfan_reader_open(), once its place in the ring is set, so every frame
# written after this returns reaches it), at most SECONDS (default 30). The telemetry socket
# is /var/run/dpdk/PREFIX/dpdk_telemetry.v2, reachable from any namespace. Returns 0, or 1
# after printing the last count seen ("none" when mcfan never answered).
lab_wait_readers() {
	python3 - "$1" "$2" "${3:-30}" <<'PY'
import json
import socket
import sys
import time

path = f"/var/run/dpdk/{sys.argv[1]}/dpdk_telemetry.v2"
want, end, seen = int(sys.argv[2]), time.monotonic() + float(sys.argv[3]), "none"
while time.monotonic() < end:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
            s.settimeout(5)
            s.connect(path)
            s.recv(16384)                      # the server's greeting
            s.send(b"/mcfan/readers")
            seen = (json.loads(s.recv(1 << 16)).get("/mcfan/readers") or {}).get("readers",
                                                                                 "none")
    except (OSError, ValueError):
        pass
    if seen == want:
        sys.exit(0)
    time.sleep(0.1)
print(seen)
sys.exit(1)
PY
}
