#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# Install the Debian 12 packages mcfan needs to build, run its lab and run its tests.
# Idempotent: does nothing when everything is already installed.
set -euo pipefail

PKGS=(
	build-essential pkg-config meson ninja-build
	dpdk dpdk-dev libdpdk-dev libnuma-dev libjansson-dev libpcap-dev libmicrohttpd-dev
	# drivers EAL loads at run time; Debian only recommends them, and this script installs
	# without recommends: the ring mempool handler and the virtual PMDs mcfan uses
	librte-mempool-ring23 librte-bus-vdev23 librte-net-pcap23 librte-net-af-packet23
	librte-net-tap23 librte-net-null23 librte-net-ring23 librte-net-memif23
	python3 iproute2 iperf tcpdump tshark erlang-base tmux procps strace
	# the metrics test: promtool and a real Prometheus, and an OpenMetrics parser
	prometheus python3-prometheus-client
)

# Optional: clang and its libFuzzer runtime for the fuzz pass of run-tests.sh, which says
# SKIP without them. A failure to install them is a warning, not an error.
FUZZ_PKGS=(clang libclang-rt-14-dev)

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

fuzz_missing=()
for p in "${FUZZ_PKGS[@]}"; do
	installed "$p" || fuzz_missing+=("$p")
done
if [ ${#fuzz_missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -eq 0 ] && { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${fuzz_missing[@]}" >/dev/null 2>&1 ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${fuzz_missing[@]}" >/dev/null 2>&1; }; }; then
		echo "install-deps: installed ${fuzz_missing[*]} (fuzz pass)"
	else
		echo "install-deps: warning: could not install ${fuzz_missing[*]}; the fuzz pass" \
			"will be skipped" >&2
	fi
fi

missing=()
for p in "${PKGS[@]}"; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}; run as root (sudo) to install them" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a prompt
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
