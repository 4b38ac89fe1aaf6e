#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Builds the release preset and runs the deframer benchmarks whose results
# docs/performance.md records. Usage: bench/run.sh
set -eu
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build build/release -j"$(nproc)" --target bench_deframe >/dev/null
b=build/release/bench/bench_deframe
echo "# $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# 4 KiB messages, stream in 64 KiB chunks, payload handed out in place"
taskset -c 0 "$b" --size 4096 --stream 1024 --chunk 65536 --passes 5
echo "# 4 KiB messages, stream in 64 KiB chunks, consumer reads every payload byte"
taskset -c 0 "$b" --size 4096 --stream 1024 --chunk 65536 --passes 5 --touch 1
echo "# zero-length messages (7 data : 1 pong), stream in 64 KiB chunks"
taskset -c 0 "$b" --size 0 --stream 1024 --chunk 65536 --passes 5
echo "# zero-length messages, whole stream in one call"
taskset -c 0 "$b" --size 0 --stream 1024 --chunk 1073741824 --passes 5
