#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tshark-plain.sh TMPDIR ARGS... - tshark as the tests here run it
# (tshark-env.sh), but with no plugin: Wireshark's own dissectors only, for
# scripts that want an independent reader. Exits 77 without tshark.
set -u
here=$(dirname "$0")
. "$here/tshark-env.sh"
ws_setup "$1"
shift
plugdir=$ws_home/no-plugins
ws_tshark "$@"
