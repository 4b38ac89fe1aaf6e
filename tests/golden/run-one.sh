#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# run-one.sh RDSDUMP INPUT EXPECTED [ARGS...] - one golden test, the tcpdump
# way: rdsdump reads INPUT with ARGS and its output (stdout, then the exit
# status) must equal EXPECTED byte for byte (golden.sh).
set -u
bin=$1 input=$2 expected=$3
shift 3
. "$(dirname "$0")/golden.sh"
golden "$expected" "$bin" -n -r "$input" "$@"
