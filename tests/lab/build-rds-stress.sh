#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Builds Oracle's rds-stress (rds-tools, third-party) from a source cache
# outside this repository, for lab-rdsstress-<k> (tests/README.md, "Oracle's
# rds-stress"):
#
#     tests/lab/build-rds-stress.sh DIR
#
# DIR holds rds-stress.c, pfhack.h and include/rds.h as retrieved; nothing
# of it is edited. The stored include/rds.h predates that rds-stress.c by the
# receive-queue option, so two names it uses are given on the command line:
# SO_RDS_INQ and RDS_CMSG_INQ, as 12 (a value the mainline kernel answers
# ENOPROTOOPT to as a socket option and never sends as a cmsg; rds-stress
# only warns when the option is refused). Writes DIR/rds-stress, linked
# dynamically against json-c (libjson-c-dev): the lab's guests run the
# host's own root, libraries included.
set -eu
dir=${1:?usage: build-rds-stress.sh DIR}
for f in rds-stress.c pfhack.h include/rds.h; do
	[ -f "$dir/$f" ] || { echo "build-rds-stress: $dir/$f is missing" >&2; exit 1; }
done
${CC:-cc} -O2 -g -DRDS_VERSION='"2.3"' -DSO_RDS_INQ=12 -DRDS_CMSG_INQ=12 \
	-I"$dir" -I"$dir/include" -o "$dir/rds-stress" "$dir/rds-stress.c" -ljson-c
echo "build-rds-stress: $dir/rds-stress"
