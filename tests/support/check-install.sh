#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installs the build into a scratch prefix and builds a small program on
# librds and libwire against it: through pkg-config (shared libraries) and
# through find_package(rds) (shared and static). The program runs an
# endpoint over TCP without listening, so it needs no free port.
# usage: check-install.sh BUILD_DIR [CFLAGS]
# CFLAGS are the build's own (a sanitizer build's library needs a consumer
# built with the same sanitizers).
set -eu
build=$1
cflags=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for h in wire/wire.h rds/rdsu.h rds/rdsu_tcp.h; do
	test -f "$tmp/prefix/include/$h" || { echo "not installed: include/$h"; exit 1; }
done
cat > "$tmp/use.c" <<'C'
#include <rds/rdsu_tcp.h>
#include <wire/wire.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct wire_hdr h;
	uint8_t b[WIRE_HDR_LEN];
	struct rdsu_ep_cfg ec;
	struct rdsu_tcp_cfg tc;
	struct rdsu_tcp *t;
	struct rdsu_sock *s;
	struct rdsu_addr a = rdsu_addr_v4(0x7f000001);
	int err;

	wire_build_ack(&h, 5, 0);
	wire_hdr_encode(&h, b, sizeof(b));
	if (h.csum != 0xfffa)
		return 1;
	rdsu_ep_cfg_default(&ec);
	ec.laddrs[0] = a;
	ec.n_laddrs = 1;
	rdsu_tcp_cfg_default(&tc);
	tc.no_listen = true;
	err = rdsu_tcp_new(&t, &ec, &tc);
	if (err) {
		fprintf(stderr, "rdsu_tcp_new: %s\n", rdsu_strerror(err));
		return 1;
	}
	err = rdsu_sock_new(rdsu_tcp_ep(t), &s);
	if (!err)
		err = rdsu_sock_bind(s, &a, 4000);
	if (!err)
		err = rdsu_tcp_run(t, 0);
	rdsu_tcp_free(t);
	if (err < 0) {
		fprintf(stderr, "endpoint: %s\n", rdsu_strerror(err));
		return 1;
	}
	printf("libwire %s, librds endpoint up and down\n", wire_version());
	return 0;
}
C
pc=$(find "$tmp/prefix" -name librds.pc -printf '%h\n' | head -1)
test -f "$pc/libwire.pc" || { echo "libwire.pc not beside librds.pc"; exit 1; }
# Compiling needs nothing of libnl or liburing: their .pc files are out of
# reach here, and only a static link may ask for them.
for p in libwire librds; do
	PKG_CONFIG_LIBDIR=$pc pkg-config --cflags --libs $p >/dev/null ||
		{ echo "pkg-config $p needs more than the installed .pc files"; exit 1; }
done
cc $cflags "$tmp/use.c" -o "$tmp/use-pc" \
	$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs librds libwire)
LD_LIBRARY_PATH=$(dirname "$pc") "$tmp/use-pc"
# A shared link resolves nothing from the build tree or the system.
LD_LIBRARY_PATH=$(dirname "$pc") ldd "$tmp/use-pc" | grep -E 'lib(rds|wire)\.so' |
	grep -v "$tmp/prefix" && { echo "linked a copy outside the prefix"; exit 1; }
mkdir "$tmp/proj"
cat > "$tmp/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(use C)
find_package(rds REQUIRED COMPONENTS wire rds)
add_executable(use ../use.c)
target_link_libraries(use PRIVATE rds::rds rds::wire)
add_executable(use_static ../use.c)
target_link_libraries(use_static PRIVATE rds::rds_static rds::wire_static)
CM
cmake -S "$tmp/proj" -B "$tmp/proj/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
	-DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >/dev/null
cmake --build "$tmp/proj/b" >/dev/null
"$tmp/proj/b/use"
"$tmp/proj/b/use_static"
