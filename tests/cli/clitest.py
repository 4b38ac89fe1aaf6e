# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What the tests/cli Python tests share, imported from beside them (a
script's own folder is first on sys.path): failures collected and said as
they happen, a program run with its output captured, a free TCP port, an
rds-conform agent started and stopped, and the script run again in a
network namespace of its own."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

FAILS = []
SKIP = 77


def in_netns(var):
    """Run this script again inside a new network namespace (unshare -n;
    -r too when not root) and exit with its code, unless |var| says it is
    already there. A namespace we may not make is a skip (77), not a
    failure."""
    if os.environ.get(var) == "1":
        return
    if not shutil.which("unshare"):
        sys.exit(SKIP)
    env = dict(os.environ, **{var: "1"})
    pre = ["unshare", "-n"] if os.getuid() == 0 else ["unshare", "-r", "-n"]
    if subprocess.run(pre + ["true"], stderr=subprocess.DEVNULL).returncode != 0:
        print("cannot make a network namespace")
        sys.exit(SKIP)
    try:
        r = subprocess.run(pre + [sys.executable] + sys.argv, env=env)
    except OSError:
        sys.exit(SKIP)
    # unshare itself failing (no permission) exits 1 before our script runs
    sys.exit(r.returncode)


def check(cond, what):
    """Count |what| as a failure unless |cond| holds, saying it at once on
    stderr (a test that then hangs or dies has still said why). Returns
    |cond|, so a check can guard what depends on it."""
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def fail(what):
    """check(False, what): a failure, said at once."""
    check(False, what)


class Started(list):
    """The programs a test started (a list of Popen), each with its stdout
    and stderr in DIR/NAME.out and the environment |env|, for the test to
    stop and judge at its end."""

    def __init__(self, d, env):
        super().__init__()
        self.d, self.env = d, env

    def start(self, argv, name):
        out = open(os.path.join(self.d, name + ".out"), "w")
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=self.env)
        self.append(p)
        return p

    def stop(self, hard=()):
        """SIGTERM to each that runs (SIGKILL to those whose program is in
        |hard|: they do not stop for SIGTERM), then each waited for, 10 s
        at most before SIGKILL."""
        for p in self:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL if p.args[0] in hard else signal.SIGTERM)
        for p in self:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def wait_for(pred, what, limit=60, every=0.05):
    """Poll |pred| every |every| s until it returns something true, and
    return that; after |limit| s (which only ends a hung test) a failure,
    "never: WHAT", and None."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(every)
    fail("never: " + what)
    return None


def done(passed=None):
    """Exit 1 if any check failed; else print |passed| (if given) and exit 0."""
    if not FAILS and passed:
        print(passed)
    sys.exit(1 if FAILS else 0)


def run(argv, timeout=60):
    """|argv| run to its end within |timeout| seconds: (exit code, stdout,
    stderr) as text."""
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on just now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def stop(p, wait=10):
    """SIGTERM to |p|, then SIGKILL if it has not exited within |wait| s."""
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(wait)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def start_agent(tool, peer, ctl, log, *extra, faults=()):
    """`rds-conform agent` bound to |peer| with its side channel on |ctl|,
    output to the open file |log|, |extra| arguments after and a --fault
    for each of |faults|; returned once
    it has said "ready" (its side channel then answers). Exits the test if
    the agent dies or is not ready within 10 s."""
    argv = [tool, "agent", "--bind", peer, "--ctl", ctl] + list(extra)
    for f in faults:
        argv += ["--fault", f]
    p = subprocess.Popen(argv, stdout=log, stderr=log)
    for _ in range(200):
        time.sleep(0.05)
        if p.poll() is not None:
            raise SystemExit("agent exited at start (rc %s)" % p.returncode)
        log.flush()
        with open(log.name) as f:
            if "ready" in f.read():
                return p
    stop(p)
    raise SystemExit("agent not ready")
