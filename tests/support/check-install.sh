#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installs the build into a scratch prefix and builds a small program
# against it twice: through pkg-config and through find_package(rds).
# usage: check-install.sh BUILD_DIR SOURCE_DIR [CFLAGS]
# CFLAGS are the build's own (a sanitizer build's library needs a consumer
# built with the same sanitizers).
set -eu
build=$1
src=$2
cflags=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/wire/wire.h"
cat > "$tmp/use.c" <<'C'
#include <wire/wire.h>
#include <stdio.h>
int main(void)
{
	struct wire_hdr h;
	uint8_t b[WIRE_HDR_LEN];

	wire_build_ack(&h, 5, 0);
	wire_hdr_encode(&h, b, sizeof(b));
	printf("%s %04x\n", wire_version(), h.csum);
	return h.csum == 0xfffa ? 0 : 1;
}
C
lib=$(find "$tmp/prefix" -name libwire.pc -printf '%h\n' | head -1)
PKG_CONFIG_PATH=$lib cc $cflags "$tmp/use.c" -o "$tmp/use-pc" \
	$(PKG_CONFIG_PATH=$lib pkg-config --cflags --libs libwire)
LD_LIBRARY_PATH=$(dirname "$lib") "$tmp/use-pc"
mkdir "$tmp/proj"
cat > "$tmp/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(use C)
find_package(rds REQUIRED)
add_executable(use ../use.c)
target_link_libraries(use PRIVATE rds::wire_static)
CM
cmake -S "$tmp/proj" -B "$tmp/proj/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
	-DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >/dev/null
cmake --build "$tmp/proj/b" >/dev/null
"$tmp/proj/b/use"
