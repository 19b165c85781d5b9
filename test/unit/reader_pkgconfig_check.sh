#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The mcfan authors
#
# docs/readers.md's 10-line reader, compiled exactly as written there with
# `pkg-config --cflags --libs mcfan-reader` from the build tree (build/meson-uninstalled)
# and run: the documented include line, the .pc's Cflags and the header's place must agree,
# and the program must find libmcfan-reader.so.1 at run time (rpath, as documented).
# Usage: reader_pkgconfig_check.sh BUILD_DIR docs/readers.md
set -u
BUILD=$(cd "$1" && pwd) DOC=$2
d=$(mktemp -d /tmp/mcfan-reader-pc.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
awk '/<!-- reader-pkgconfig example -->/{f=1;next} f&&/^```c$/{g=1;next} g&&/^```$/{exit} g' \
	"$DOC" >"$d/myreader.c"
[ -s "$d/myreader.c" ] || { echo "FAIL: no example in $DOC"; exit 1; }
# a sanitizer build's library needs its runtime first: build the example the same way
san=
needed=$(readelf -d "$BUILD/lib/libmcfan-reader.so" 2>/dev/null)
case $needed in *libasan*) san="$san -fsanitize=address" ;; esac
case $needed in *libubsan*) san="$san -fsanitize=undefined" ;; esac
flags=$(PKG_CONFIG_PATH="$BUILD/meson-uninstalled" pkg-config --cflags --libs mcfan-reader) ||
	{ echo "FAIL: pkg-config mcfan-reader from $BUILD/meson-uninstalled"; exit 1; }
# shellcheck disable=SC2086
cc -Wall -Werror $san -o "$d/myreader" "$d/myreader.c" $flags -Wl,-rpath,"$BUILD/lib" ||
	{ echo "FAIL: the documented reader does not compile with: $flags"; exit 1; }
out=$("$d/myreader" "mcfan-pc-check-$$") ||
	{ echo "FAIL: the documented reader exits $?: $out"; exit 1; }
[ "$out" = "open: -2" ] || { echo "FAIL: expected 'open: -2' (-ENOENT), got '$out'"; exit 1; }
grep -qF '#include <mcfan_reader.h>' "$DOC" || { echo "FAIL: the doc's include line"; exit 1; }
echo "reader-pkgconfig: compiled with '$flags', ran: $out"
# mcfan_reader_ring.h in strict ISO C (-std=c11): it needs POSIX's kill(2), so without
# _POSIX_C_SOURCE one #error says how to compile it (before: an implicit declaration of
# kill, an error from GCC 14 on); with -D_POSIX_C_SOURCE=200809L, -std=c11 and -std=gnu11
# it compiles clean with -Werror
printf '#include <mcfan_reader.h>\n#include <mcfan_reader_ring.h>\nint main(void) { return 0; }\n' \
	>"$d/ring.c"
# shellcheck disable=SC2086
err=$(cc -std=c11 -Wall -Werror -fsyntax-only "$d/ring.c" $flags 2>&1)
n=$(printf '%s\n' "$err" | grep -c 'error:')
if [ "$n" != 1 ] || ! printf '%s\n' "$err" | grep -q 'needs POSIX'; then
	echo "FAIL: mcfan_reader_ring.h with -std=c11: want one error 'needs POSIX', got $n:"
	printf '%s\n' "$err" | head -5
	exit 1
fi
for std in "-std=c11 -D_POSIX_C_SOURCE=200809L" -std=gnu11; do
	# shellcheck disable=SC2086
	cc $std -Wall -Wextra -Werror -fsyntax-only "$d/ring.c" $flags ||
		{ echo "FAIL: mcfan_reader_ring.h does not compile with $std"; exit 1; }
done
echo "reader-pkgconfig: mcfan_reader_ring.h: -std=c11 refused with its own #error (POSIX);" \
	"-std=c11 -D_POSIX_C_SOURCE=200809L and -std=gnu11 compile"
# the installed headers in C++ (a market-data reader is often C++): both compile and link as
# C++11 and C++17 without a warning, the ring's format header included
cat >"$d/cxxreader.cpp" <<'CXX'
#include <mcfan_reader.h>
#include <mcfan_reader_ring.h>
#include <cstdio>

static struct mcfan_rd_hdr hdr; /* zeroed: no MCFAN_RD_FLAG_SERVE */

int main(int argc, char **argv)
{
	struct mcfan_reader *r = nullptr;
	char engine[MCFAN_RD_ENGINE_MAX];
	uint32_t lcore = 7;
	int ret = mcfan_reader_open(argc > 1 ? argv[1] : "rte", "239.9.9.1:3999", 0, &r);
	uint32_t serve = mcfan_rd_serve_read(&hdr, &lcore, engine, sizeof(engine));

	std::printf("open: %d serve: %u lcore: %u head: %llu\n", ret, serve, lcore,
		    (unsigned long long)MCFAN_RD_LOAD(&hdr.head, memory_order_acquire));
	return 0;
}
CXX
for std in c++11 c++17; do
	# shellcheck disable=SC2086
	c++ -std=$std -Wall -Wextra -pedantic -Werror $san -o "$d/cxxreader" "$d/cxxreader.cpp" \
		$flags -Wl,-rpath,"$BUILD/lib" ||
		{ echo "FAIL: the headers do not compile as $std with: $flags"; exit 1; }
	out=$("$d/cxxreader" "mcfan-pc-check-$$") || { echo "FAIL: the C++ reader exits $?"; exit 1; }
	[ "$out" = "open: -2 serve: 0 lcore: 0 head: 0" ] ||
		{ echo "FAIL: $std: expected 'open: -2 serve: 0 lcore: 0 head: 0', got '$out'"; exit 1; }
	echo "reader-pkgconfig: $std: compiled, ran: $out"
done
# and after `meson install` (into a scratch DESTDIR): the installed .pc and headers
root="$d/root"
meson install -C "$BUILD" --destdir "$root" --quiet >"$d/install.log" 2>&1 ||
	{ echo "FAIL: meson install --destdir"; cat "$d/install.log"; exit 1; }
pcdir=$(dirname "$(find "$root" -name mcfan-reader.pc | head -1)")
flags=$(PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$root" \
	pkg-config --cflags --libs mcfan-reader) ||
	{ echo "FAIL: pkg-config mcfan-reader from $pcdir"; exit 1; }
libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir mcfan-reader)
# shellcheck disable=SC2086
cc -Wall -Werror $san -o "$d/myreader2" "$d/myreader.c" $flags -Wl,-rpath,"$root$libdir" ||
	{ echo "FAIL: the documented reader does not compile installed with: $flags"; exit 1; }
out=$("$d/myreader2" "mcfan-pc-check-$$") ||
	{ echo "FAIL: the installed reader exits $?: $out"; exit 1; }
[ "$out" = "open: -2" ] || { echo "FAIL: installed: expected 'open: -2', got '$out'"; exit 1; }
echo "reader-pkgconfig: installed: compiled with '$flags', ran: $out"
# the installed mcfan-read and Python binding find the installed library by themselves, from
# any prefix, without ldconfig or LD_LIBRARY_PATH (before: mcfan-read "error while loading
# shared libraries: libmcfan-reader.so.1", and the binding "libmcfan-reader not found",
# for every prefix outside the loader's path, /usr/local too until ldconfig ran)
want=$(readlink -f "$(find "$root" -name 'libmcfan-reader.so.1' | head -1)")
read_bin=$(find "$root" -name mcfan-read -type f | head -1)
got=$(env -u LD_LIBRARY_PATH ldd "$read_bin" | awk '/libmcfan-reader/ {print ($3 == "not" ? "not found" : $3)}')
[ -n "$got" ] && [ "$(readlink -f "$got")" = "$want" ] ||
	{ echo "FAIL: installed mcfan-read loads libmcfan-reader from '$got', not $want"; exit 1; }
out=$(env -u LD_LIBRARY_PATH "$read_bin" --file-prefix "mcfan-pc-check-$$" \
	--group 239.9.9.1:3999 2>&1)
rc=$?
[ "$rc" = 1 ] && printf '%s\n' "$out" | grep -q 'no such reader ring' ||
	{ echo "FAIL: installed mcfan-read: want exit 1 'no such reader ring', got $rc: $out"; exit 1; }
# a sanitizer build's library cannot be loaded into python3 (its runtime must come first
# in the process): the binding is checked by the main pass's build
if [ -n "$san" ]; then
	echo "reader-pkgconfig: installed: mcfan-read loads $want by itself (the Python" \
		"binding's check is left to the build without$san)"
	exit 0
fi
py=$(find "$root" -name mcfan_reader.py | head -1)
got=$(cd / && env -u MCFAN_READER_LIB PYTHONPATH="$(dirname "$py")" python3 -c \
	'import os, mcfan_reader; print(os.path.realpath(mcfan_reader.lib()._name))' 2>&1)
[ "$got" = "$want" ] ||
	{ echo "FAIL: installed mcfan_reader.py loads '$got', not the installed $want"; exit 1; }
echo "reader-pkgconfig: installed: mcfan-read and mcfan_reader.py load $want by themselves"
