#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdsdump-cli.sh RDSDUMP SRCDIR - exit statuses and messages of rdsdump's
# command line: help and version 0; wrong options, unknown kinds, missing
# files and bad filters 2 with one line on stderr; a capture cut short 1,
# after printing everything before the cut; -c, -w, -q -z do what they say.
set -u
bin=$1 src=$2
cap=$src/pcaps/captured/7.2/tcp_basic.pcap
. "$(dirname "$0")/clitest.sh"

expect 0 "--help" "$bin" --help
grep -q -- "--tcp-port" "$tmp/out" || { echo "FAIL: --help lacks --tcp-port"; fail=1; }
expect 0 "-h" "$bin" -h
expect 0 "--version" "$bin" --version
expect 2 "unknown option" "$bin" --no-such-option -r "$cap"
expect 2 "bad kind" "$bin" --kind pongs -r "$cap"
grep -q "pongs" "$tmp/err" || { echo "FAIL: bad kind not named"; fail=1; }
expect 2 "bad count" "$bin" -c zero -r "$cap"
expect 2 "-i with -r" "$bin" -i lo -r "$cap"
expect 2 "missing file" "$bin" -r "$tmp/nonexistent.pcap"
expect 2 "not a capture" "$bin" -r "$src/README.md"
expect 2 "bad filter" "$bin" -r "$cap" "tcp port port"

# a capture cut in the middle of a record: what came before is printed
head -c 300000 "$cap" >"$tmp/cut.pcap"
expect 1 "truncated capture" "$bin" -n -r "$tmp/cut.pcap"
grep -q "truncated" "$tmp/err" || { echo "FAIL: truncation not reported"; cat "$tmp/err"; fail=1; }
[ "$(wc -l <"$tmp/out")" -gt 20 ] || { echo "FAIL: nothing printed before the cut"; fail=1; }

# --kver is the generation; --kernel, its older name, still works but warns
expect 0 "--kver 6" "$bin" -n -c 5 --kver 6 -r "$cap"
[ ! -s "$tmp/err" ] || { echo "FAIL: --kver 6 warned"; cat "$tmp/err"; fail=1; }
cp "$tmp/out" "$tmp/kver6"
expect 0 "--kernel 6" "$bin" -n -c 5 --kernel 6 -r "$cap"
grep -q "deprecated: use --kver" "$tmp/err" || { echo "FAIL: --kernel 6 did not warn"; fail=1; }
cmp -s "$tmp/out" "$tmp/kver6" || { echo "FAIL: --kernel 6 differs from --kver 6"; fail=1; }
expect 2 "--kver 5" "$bin" -n --kver 5 -r "$cap"

expect 0 "-c 5" "$bin" -n -c 5 -r "$cap"
[ "$(wc -l <"$tmp/out")" -eq 5 ] || { echo "FAIL: -c 5 printed $(wc -l <"$tmp/out") lines"; fail=1; }
expect 0 "--kind data" "$bin" -n --kind data -r "$cap"
[ "$(wc -l <"$tmp/out")" -eq 8 ] || { echo "FAIL: --kind data: $(wc -l <"$tmp/out") lines"; fail=1; }
grep -v ": data " "$tmp/out" && { echo "FAIL: --kind data shows other kinds"; fail=1; }
expect 0 "-q -z" "$bin" -n -q -z -r "$cap"
grep -q "^conn 0 TCP" "$tmp/out" || { echo "FAIL: -z has no connection"; fail=1; }
grep -q ": data " "$tmp/out" && { echo "FAIL: -q printed records"; fail=1; }

# -w keeps the RDS packets; reading the copy gives the same records
expect 0 "-w" "$bin" -n -r "$cap" -w "$tmp/kept.pcap"
[ ! -s "$tmp/out" ] || { echo "FAIL: -w printed records"; fail=1; }
"$bin" -n -r "$cap" >"$tmp/a" 2>/dev/null
"$bin" -n -r "$tmp/kept.pcap" >"$tmp/b" 2>/dev/null
cmp -s "$tmp/a" "$tmp/b" || { echo "FAIL: -w copy decodes differently"; fail=1; }

# pcapng and stdin
# (the pcapng file holds the packets of tcp_basic-no1m.pcap)
expect 0 "pcapng" "$bin" -n -r "$src/pcaps/crafted/tcp_basic.pcapng"
"$bin" -n -r "$src/pcaps/crafted/tcp_basic-no1m.pcap" >"$tmp/d" 2>/dev/null
grep -q ": data 5000 > 4000 seq 8 len 65536" "$tmp/out" && cmp -s "$tmp/out" "$tmp/d" ||
	{ echo "FAIL: pcapng"; fail=1; }
"$bin" -n -r - <"$cap" >"$tmp/c" 2>/dev/null
cmp -s "$tmp/a" "$tmp/c" || { echo "FAIL: -r - differs"; fail=1; }

# many connections holding bytes behind holes, in a budget too small for
# them: the least recently active are closed early, stderr says how many
# and what they held, --json has it as a record, and the exit status is 3
gen=$src/bench/gen-manyflows.py
python3 "$gen" "$tmp/many.pcap" --flows 300 --hold 65536 2>/dev/null ||
	{ echo "FAIL: gen-manyflows.py"; fail=1; }
expect 3 "--max-mem 16M, 300 flows holding 64 KiB" "$bin" -n -r "$tmp/many.pcap" --max-mem 16M
grep -q "^rdsdump: warning: output incomplete: [1-9][0-9]* flows closed early (0 at --max-flows 4096, [1-9][0-9]* at --max-mem 16M), [1-9][0-9]* bytes waiting" "$tmp/err" ||
	{ echo "FAIL: no eviction warning"; cat "$tmp/err"; fail=1; }
[ "$(grep -c ": gap 1 bytes" "$tmp/out")" = 300 ] || { echo "FAIL: a hole went unreported"; fail=1; }
expect 3 "--max-mem --json" "$bin" -n -r "$tmp/many.pcap" --max-mem 16M --json
tail -n 1 "$tmp/out" | grep -q '^{"type":"incomplete","flows_evicted_max_flows":0,"flows_evicted_max_mem":[1-9]' ||
	{ echo "FAIL: no incomplete record in --json"; tail -n 1 "$tmp/out"; fail=1; }
expect 0 "the same within the default budget" "$bin" -n -r "$tmp/many.pcap"
[ ! -s "$tmp/err" ] || { echo "FAIL: default budget printed"; cat "$tmp/err"; fail=1; }
expect 2 "--max-mem below 16M" "$bin" -r "$cap" --max-mem 15M
expect 2 "--max-mem junk" "$bin" -r "$cap" --max-mem 1T

# IP reassembly: 65 datagrams in progress, one more than rdsdump holds,
# then an overlap: the oldest is dropped for room (status 3, a warning and
# the ipfrag record), the overlap drops its datagram and is shown
python3 - "$tmp/frags.pcap" <<'PY'
import struct, sys
def ip4(i, off, more, data):
    fo = (0x2000 if more else 0) | (off // 8)
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(data), i, fo, 64, 6, 0,
                       bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + data
pk = [ip4(i, 0, True, bytes(16)) for i in range(65)]
pk += [ip4(64, 8, True, bytes(16))]
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
    for n, p in enumerate(pk):
        f.write(struct.pack("<IIII", 1, n, len(p), len(p)) + p)
PY
expect 3 "IP datagrams dropped for room" "$bin" -n -r "$tmp/frags.pcap" --json
grep -q "^rdsdump: warning: output incomplete: IP reassembly: 0 datagrams put back together; 1 dropped for overlapping or inconsistent fragments, 0 not complete within 30s, 63 incomplete at the end, 0 fragments cut by the capture; 1 dropped for room (64 at once, --max-mem) holding 16 bytes$" "$tmp/err" ||
	{ echo "FAIL: no IP reassembly warning"; cat "$tmp/err"; fail=1; }
tail -n 1 "$tmp/out" | grep -q '^{"type":"ipfrag","fragments":66,"datagrams":0,"duplicates":0,"bad":1,"timed_out":0,"unfinished":63,"cut_by_capture":0,"evicted":1,"evicted_bytes":16,"max_datagrams":64,"timeout_s":30}$' ||
	{ echo "FAIL: no ipfrag record in --json"; tail -n 1 "$tmp/out"; fail=1; }
grep -q '"frame":66,.*"layer":"ip"' "$tmp/out" ||
	{ echo "FAIL: the overlapping fragment is not shown"; grep -v '"type":"ipfrag"' "$tmp/out"; fail=1; }

[ $fail = 0 ] && echo "rdsdump cli: all passed"
exit $fail
