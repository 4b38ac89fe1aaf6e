#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdstop-one.sh RDSTOP INPUT EXPECTED [ARGS...] - one rdstop golden test:
# rdstop -r INPUT -b ARGS replays the capture on its own clock, so its
# output (stdout, then the exit status) must equal EXPECTED byte for byte
# (golden.sh).
set -u
bin=$1 input=$2 expected=$3
shift 3
. "$(dirname "$0")/golden.sh"
golden "$expected" "$bin" -r "$input" -b "$@"
