#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# fields.sh PLUGINDIR GOLDEN... - every key of rdsdump's JSON records is a
# field of the plugin (fields.py).
set -u
plugdir=$1
shift
here=$(dirname "$0")
. "$here/tshark-env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws_setup "$tmp"
ws_tshark -G fields >"$tmp/fields" 2>/dev/null || { echo "tshark -G fields failed"; exit 1; }
python3 "$here/fields.py" "$tmp/fields" "$@"
