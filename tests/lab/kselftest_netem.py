#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The kernel's RDS selftest under netem, on librds through the shim, in
the lab (issue 23).

    kselftest_netem.py --kernel 6.1|7.2 --rdsrun PATH --script KSELFTEST_SH
                       [--timeout S] [--out DIR]

The build machines' kernel has no sch_netem, so tests/shim/kselftest-rds.sh
with 10 % loss, corruption and duplication (shim-kselftest-rds-netem) skips
there. Here it runs in one guest of Debian's kernel booted with sch_netem,
veth and overlay loaded and with no RDS module at all (rds, rds_tcp and
rds_rdma are dropped from the guest's initramfs for this test only): the
role first checks that socket(AF_RDS) fails with EAFNOSUPPORT and that no
rds module got loaded, then runs the script, which takes its sockets from
rdsrun and rdsd. Asserted: the script's exit 0, test.py's "done 50000
50000" and "Success", and netem's qdisc on both veths having dropped
packets. The guest's output is kept in the run directory
(build/lab/kselftest_netem-<kernel>/share/guest1.out).
Exit: 0 pass, 1 fail, 77 skipped (not root outside CI, or the script
skipped, e.g. the selftest could not be fetched).
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402


ROLE = r'''
python3 - <<'PY' || exit 3
import errno, socket
try:
    socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
except OSError as e:
    if e.errno != errno.EAFNOSUPPORT:
        raise
    print("kernel AF_RDS: EAFNOSUPPORT")
else:
    raise SystemExit("kernel AF_RDS: the guest's kernel made a socket")
PY
RDS_LAB_CACHE=%(cache)s KST_TIMEOUT=%(timeout)d %(env)s \
	/bin/sh %(script)s %(rdsrun)s 10 10 10
'''


def main():
    ap = lab.arg_parser()
    ap.add_argument("--rdsrun", required=True)
    ap.add_argument("--script", required=True)
    ap.add_argument("--timeout", type=int, default=400,
                    help="test.py's alarm in the guest (run.sh's 400 s)")
    a, out, log = lab.parse(ap, 6)
    # The guest sees the host's cache read-only: fetch the selftest here.
    p = subprocess.run(["/bin/sh", a.script, a.rdsrun],
                       env=dict(os.environ, KST_FETCH_ONLY="1", RDS_LAB_CACHE=lab.cache_root()))
    if p.returncode != 0:
        log("the selftest could not be fetched (exit %d)" % p.returncode)
        return 1 if os.environ.get("CI") or p.returncode != 77 else 77
    run_dir, share = lab.run_share(out, "kselftest_netem-%s" % a.kernel, ())
    env = ""
    if os.environ.get("SHIM_PRELOAD_FIRST"):
        env = "SHIM_PRELOAD_FIRST=" + os.environ["SHIM_PRELOAD_FIRST"]
    fails = []
    role = ROLE % {"cache": lab.cache_root(), "timeout": a.timeout, "env": env,
                   "script": os.path.abspath(a.script), "rdsrun": os.path.abspath(a.rdsrun)}

    def judge(rc, text):
        if rc == 77 and not os.environ.get("CI"):
            return 77
        if rc != 0:
            fails.append("guest role exit %s" % rc)
        if "kernel AF_RDS: EAFNOSUPPORT" not in text:
            fails.append("AF_RDS was not shown absent in the guest's kernel")
        if not re.search(r"^done 50000 50000$", text, re.M):
            fails.append("test.py did not send and receive 50000 messages")
        if not re.search(r"^Success$", text, re.M):
            fails.append("test.py did not report Success")
        for ns in ("net0", "net1"):
            m = re.search(r"^%s: qdisc netem .*?dropped (\d+)" % ns, text, re.M)
            if not m:
                fails.append("%s: no netem qdisc reported" % ns)
            elif int(m.group(1)) == 0:
                fails.append("%s: netem dropped nothing" % ns)
        return None

    if lab.netem_guest(a.kernel, share, fails, role, "kselftest-rds.sh", a.timeout + 400, log,
                       judge, add=["overlay"]) == 77:
        return 77
    return lab.verdict(fails, log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
