#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tshark-rds.sh PLUGINDIR TMPDIR ARGS... - tshark with the RDS plugin of the
# build tree, as the tests here run it (tshark-env.sh), for scripts.
# Exits 77 without tshark.
set -u
here=$(dirname "$0")
. "$here/tshark-env.sh"
plugdir=$1
ws_setup "$2"
shift 2
ws_tshark "$@"
