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

# librds_ib, when this build has the IB transport: librds with it, linked
# instead of librds. No RDMA device is needed: the program only asks
# whether loopback is on one (it never is).
pcib=$(find "$tmp/prefix" -name librds-ib.pc -printf '%h\n' | head -1)
[ -n "$pcib" ] || exit 0
test -f "$tmp/prefix/include/rds/rdsu_ib.h" || { echo "not installed: include/rds/rdsu_ib.h"; exit 1; }
cat > "$tmp/use_ib.c" <<'C'
#include <rds/rdsu_ib.h>
#include <errno.h>
#include <stdio.h>
int main(void)
{
	struct rdsu_ib_cfg ib;
	struct rdsu_addr a = rdsu_addr_v4(0x7f000001);
	int r = rdsu_ib_laddr_check(&a);

	rdsu_ib_cfg_default(&ib);
	if (ib.send_ring != RDSU_IB_SEND_RING_DEFAULT || (r != 0 && r != -ENODEV)) {
		fprintf(stderr, "rdsu_ib: rings %u, loopback on RDMA: %d\n", ib.send_ring, r);
		return 1;
	}
	printf("librds_ib: loopback on no RDMA device (%s)\n", r ? rdsu_strerror(r) : "checked");
	return 0;
}
C
cc $cflags "$tmp/use_ib.c" -o "$tmp/use_ib-pc" \
	$(PKG_CONFIG_PATH=$pcib pkg-config --cflags --libs librds-ib libwire)
LD_LIBRARY_PATH=$(dirname "$pcib") "$tmp/use_ib-pc"
mkdir "$tmp/projib"
cat > "$tmp/projib/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(use_ib C)
find_package(rds REQUIRED COMPONENTS rds_ib)
add_executable(use_ib ../use_ib.c)
target_link_libraries(use_ib PRIVATE rds::rds_ib)
add_executable(use_ib_static ../use_ib.c)
target_link_libraries(use_ib_static PRIVATE rds::rds_ib_static)
CM
cmake -S "$tmp/projib" -B "$tmp/projib/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
	-DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >/dev/null
cmake --build "$tmp/projib/b" >/dev/null
"$tmp/projib/b/use_ib"
"$tmp/projib/b/use_ib_static"
