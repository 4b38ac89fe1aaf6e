#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# First README command: install dependencies, build, and run the main job.
# Until the tools exist the main job decodes the shipped samples with libwire.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake --preset release >/dev/null
cmake --build build/release -j"$(nproc)" --target wire_decode >/dev/null
for f in pcaps/samples/*.hex; do
	build/release/examples/wire_decode "$f" || echo "(exit $?: the sample ends in bytes a receiver must refuse)"
	echo
done
