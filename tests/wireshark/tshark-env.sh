# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced by the tests here: ws_setup TMPDIR, then ws_tshark ARGS... runs
# tshark with the plugin of the build tree ($plugdir holds 4.0/epan/rds.so),
# an empty home (no personal preferences), UTC and the C locale. Exits 77
# (skipped) without tshark. Wireshark ignores the personal and
# WIRESHARK_PLUGIN_DIR plugin folders when run as root, so as root tshark
# runs as nobody (setpriv).
ws_setup() {
	command -v tshark >/dev/null 2>&1 || { echo "no tshark: skipped"; exit 77; }
	ws_home=$1/home
	mkdir "$ws_home"
	chmod 755 "$1"
	ws_as=""
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null 2>&1 ||
			{ echo "root without setpriv: skipped"; exit 77; }
		chown 65534:65534 "$ws_home"
		ws_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	fi
}

ws_tshark() {
	HOME="$ws_home" XDG_CONFIG_HOME="$ws_home" TZ=UTC LC_ALL=C \
		WIRESHARK_PLUGIN_DIR="$plugdir" $ws_as tshark "$@"
}
