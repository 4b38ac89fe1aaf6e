#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The librds soak under real netem, in the lab (issue 21).

    soak_netem.py --kernel 6.1|7.2 --loop LOOP_PY --rdsdrive PATH --rdsloop PATH
                  --duration S [--out DIR]

The build machines' kernel has no sch_netem, so loop-soak there stands in
a dropping token bucket for it. Here the same driver (tests/loop/loop.py
soak --veth) runs in one guest of Debian's kernel with sch_netem and veth
loaded and no RDS module at all: two rdsloop endpoints in two network
namespaces joined by a veth pair, netem on both of its ends (delay 2 ms
+- 1 ms, loss 0.5 %, duplication 0.5 %, reordering 2 %, corruption 0.5 %:
both directions), TCP connections killed every second with ss -K. The
driver's checks all hold here too: every message exactly once, in order
and intact on each of the 4 streams each way, nothing left unacknowledged,
resident memory at the end at most a quarter (+ 8 MiB) above that at a
quarter of the run; and, under --veth, netem dropped packets on both
ends and TCP refused corrupted segments by their checksum. The guest's
output (netem's `tc -s qdisc` and TCP's counters included) is kept in the
run directory (build/lab/soak_netem-<kernel>-<S>/share/guest1.out).
Exit: 0 pass, 1 fail, 77 skipped (not root outside CI).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402

ROLE = r'''
python3 %(loop)s --rdsdrive %(rdsdrive)s --rdsloop %(rdsloop)s --path-rule pair \
	--duration %(duration)d --veth soak
'''


def main():
    ap = lab.arg_parser()
    ap.add_argument("--loop", required=True)
    ap.add_argument("--rdsdrive", required=True)
    ap.add_argument("--rdsloop", required=True)
    ap.add_argument("--duration", type=int, required=True, help="seconds of traffic")
    a, out, log = lab.parse(ap, 6)
    run_dir, share = lab.run_share(out, "soak_netem-%s-%d" % (a.kernel, a.duration), ())
    fails = []
    role = ROLE % {"loop": os.path.abspath(a.loop), "rdsdrive": os.path.abspath(a.rdsdrive),
                   "rdsloop": os.path.abspath(a.rdsloop), "duration": a.duration}

    def judge(rc, text):
        if rc != 0:
            fails.append("guest role exit %s" % rc)
        if not re.search(r"^soak: PASS", text, re.M):
            fails.append("the soak did not pass")
        if "netem on both ends" not in text:
            fails.append("netem was not applied to the veth pair")

    # The driver's own bounds: traffic, then up to 150 s to drain and exit
    # per endpoint; boot and set-up on top.
    lab.netem_guest(a.kernel, share, fails, role, "loop.py", a.duration + 450, log, judge)
    return lab.verdict(fails, log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
