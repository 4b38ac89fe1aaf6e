#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Kernel peer lab: real Linux RDS peers for the test suite.

The build machines have no RDS in their kernel. The lab boots Debian's own
6.1 (bookworm) or 7.2 (sid) kernel in qemu under TCG, loads rds_tcp,
rds_rdma and rdma_rxe (Soft-RoCE) in the guest, and puts the guests on a
bridge inside a network namespace that the lab creates and removes. Each
guest mounts the host's root read-only over 9p and chroots into it, so a
role script can use the host's python3 (which has AF_RDS), rdma, tcpdump
and this project's build tree. A per-run directory is shared read-write; a
role sees it as $LAB_DIR (/run/lab) for scripts, results and captures.
The guest has its own /tmp and /run; what a run needs of the host's there
(a checkout or build tree under /tmp, the cache) is bound back in
(host_paths), so the checkout may live anywhere.

    lab.py fetch 6.1|7.2          download and cache the kernel, build the initramfs
    lab.py run --kernel 7.2 --guests 2 [--rxe] --role 1=a.sh --role 2=b.sh \
               [--capture out.pcap] [--timeout 120] [--keep DIR]

Everything the lab starts (qemu, tcpdump) is ended by pid, and the
namespace (with its bridge and taps) is deleted, also on failure or
Ctrl-C. The cache lives in $RDS_LAB_CACHE (default ~/.cache/rds-lab).
"""
import argparse
import contextlib
import fcntl
import glob
import gzip
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

KERNELS = {
    # name: (suite, meta package). The meta package's dependency names the
    # exact image; 7.x splits the image into linux-binary-* and
    # linux-modules-* packages.
    "6.1": ("bookworm", "linux-image-amd64"),
    "7.2": ("sid", "linux-image-amd64"),
}
HOST_ADDR = "10.199.0.1"
SUBNET = "10.199.0"
# Modules loaded in every guest, in this order (dependencies are resolved
# by modprobe --show-depends against the guest kernel's own tree).
BASE_MODULES = ["virtio_pci", "virtio_net", "9pnet_virtio", "9p",
                "rds", "rds_tcp",
                # `ss -K` (socket destroy) for killing one TCP connection
                "inet_diag", "tcp_diag"]
# May be built in, and then the shipped index does not always say so.
MAYBE_BUILTIN = {"virtio_pci"}
# ib_uverbs and rdma_ucm: userspace verbs and rdma_cm (librds on IB, ibpeer).
RDMA_MODULES = ["crc32_generic", "crc32-cryptoapi", "rds_rdma", "rdma_rxe", "ib_uverbs", "rdma_ucm"]


def log(msg):
    print("lab: " + msg, file=sys.stderr, flush=True)


def end(p):
    """Ends the process |p| (a Popen) if it still runs: SIGTERM, then
    SIGKILL after 5 s. Also for tests/diff/difftest.py's rdsd."""
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def root_or_skip():
    """A lab test needs root: None when it has it, else its exit code
    (1 in CI, which must run the lab; 77, skipped, elsewhere)."""
    if os.geteuid() == 0:
        return None
    if os.environ.get("CI"):
        print("lab: CI must run the lab as root", file=sys.stderr)
        return 1
    print("lab: skipped, needs root", file=sys.stderr)
    return 77


def role_fails(rcs, output=None, tail=800, guests=(1, 2)):
    """A failure for each of |guests| whose role did not exit 0 (|rcs|,
    from Lab.wait), with the last |tail| characters of its output when
    |output| (Lab.output) is given."""
    fails = []
    for g in guests:
        if rcs.get(g) != 0:
            more = ": " + output(g)[-tail:] if output else ""
            fails.append("guest %d role exit %s%s" % (g, rcs.get(g), more))
    return fails


def steps_fails(rcs, text, steps, kern, ksteps, prefix=""):
    """What a two-guest run of named steps failed: a guest whose role did
    not exit 0 (|rcs|, from Lab.wait), a step of |steps| with no "PREFIX
    STEP ok" line in |text|, a line of |ksteps| missing from |kern| (the
    kernel side's output)."""
    fails = role_fails(rcs)
    for st in steps:
        if not re.search(r"^%s%s ok" % (re.escape(prefix), re.escape(st)), text, re.M):
            fails.append("step %s did not hold" % st)
    for st in ksteps:
        if st not in kern:
            fails.append("%s: missing" % st)
    return fails


def verdict(fails, log, what):
    """Logs each failure and the verdict on |what| (the kernel, and any
    variant); returns the test's exit code."""
    for f in fails:
        log("FAIL: " + f)
    log("%s on %s" % ("FAIL" if fails else "PASS", what))
    return 1 if fails else 0


def run_share(out, name, progs):
    """A fresh run directory |out|/|name| and its share/ (the guest's
    /run/lab: the guest sees the host's root read-only but with its own
    /tmp and /run, host_paths() aside), with |progs| copied in. Returns
    (run_dir, share)."""
    run_dir = os.path.join(out, name)
    subprocess.run(["rm", "-rf", run_dir])
    share = os.path.join(run_dir, "share")
    os.makedirs(share)
    for prog in progs:
        if prog:
            shutil.copy2(prog, share)
    return run_dir, share


def arg_parser():
    """The command line every lab test takes: --kernel, and --out for the
    directory of its runs; the test adds its own."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True, choices=sorted(KERNELS))
    ap.add_argument("--out", default=None)
    return ap


def parse(ap, width=5):
    """The arguments of |ap|, the runs' directory (--out, else the build
    tree's lab/) and a log that stamps each line with the seconds since
    this call, |width| wide. A test that cannot run here exits with
    root_or_skip()'s code."""
    a = ap.parse_args()
    rc = root_or_skip()
    if rc is not None:
        raise SystemExit(rc)
    t0 = time.time()

    def stamped(msg):
        print("[%*.1f s] %s" % (width, time.time() - t0, msg), flush=True)

    here = os.path.dirname(os.path.abspath(__file__))
    return a, a.out or os.path.join(here, "..", "..", "build", "lab"), stamped


def prog_test(name, flag, copy=True):
    """The start of a lab test whose one program of its own is given as
    --|flag| (besides --kernel and --out): its arguments, that program's
    path, its run directory |name|-KERNEL and that directory's share/
    (run_share(); the program copied in when |copy|), and parse()'s log."""
    ap = arg_parser()
    ap.add_argument("--" + flag, required=True)
    a, out, log = parse(ap)
    prog = getattr(a, flag)
    run_dir, share = run_share(out, "%s-%s" % (name, a.kernel), (prog,) if copy else ())
    return a, prog, run_dir, share, log


NETEM_ADD = ["sch_netem", "veth"]
NO_RDS = ["rds_rdma", "rds_tcp", "rds"]


# What a netem guest runs around its role: no RDS module may be loaded
# (none is in its initramfs), and the role's exit is said with its time.
NETEM_ROLE = r'''
if grep -E '^rds' /proc/modules; then echo "an RDS module is loaded"; exit 3; fi
start=$(date +%%s)
%(role)s
rc=$?
echo "%(what)s exit $rc after $(( $(date +%%s) - start )) s"
exit $rc
'''


def netem_guest(kernel, share, fails, role, what, timeout, log, judge, add=()):
    """Runs |role| (shell whose last command, |what|, gives the exit
    code) in one guest of |kernel| booted with sch_netem and veth (and
    |add|) loaded and no RDS module in its initramfs, 1.5 GiB of memory,
    for at most |timeout| s; logs its exit and output and returns what
    judge(exit code, output) returns, judge adding to |fails| inside
    Lab.judging(), so that its failures show the console too. None when
    the run itself failed (then an entry in |fails|)."""
    with Lab(kernel, 1, False, None, keep=share, memory=1536,
             add_modules=NETEM_ADD + list(add), drop_modules=NO_RDS) as l, \
            l.judging(fails, tail=3000):
        l.role(1, NETEM_ROLE % {"role": role.strip("\n"), "what": what})
        l.start()
        rcs = l.wait(timeout)
        text = l.output(1)
        log("guest (%s): exit %s\n%s" % (l.kver, rcs.get(1), text))
        return judge(rcs.get(1), text)
    return None


# Python for the guests' roles, pasted in after the role's own imports
# (os, subprocess and time). It holds no "%", so a role template that is
# %-formatted afterwards takes it as it is.

def guest_flags(timeout, poll=0.1):
    """flag(name) leaves a file in the run directory for the other guest;
    wait_flag(name) waits for one, |timeout| s and looking every |poll| s
    unless told otherwise."""
    return r"""
def flag(name):
    open(os.path.join(os.environ["LAB_DIR"], name), "w").close()

def wait_flag(name, timeout=%r, poll=%r):
    t = time.time() + timeout
    while not os.path.exists(os.path.join(os.environ["LAB_DIR"], name)):
        assert time.time() < t, "never got " + name
        time.sleep(poll)
""" % (timeout, poll)


# wait_rxe(): Soft-RoCE's rxe0 ACTIVE (the guest's init adds it).
GUEST_RXE = r"""
def wait_rxe():
    for _ in range(120):
        out = subprocess.run(["rdma", "link"], capture_output=True, text=True).stdout
        if "ACTIVE" in out:
            print("rdma:", out.strip(), flush=True)
            return
        time.sleep(0.5)
    raise SystemExit("rxe0 never became ACTIVE")
"""

# wait_rxe(me): rxe0 ACTIVE and the GID of the guest's address |me| in its
# table, which may lag behind the link state (needs subprocess too).
GUEST_RXE_GID = r"""
def wait_rxe(me):
    want = "0000:0000:0000:0000:0000:ffff:{:02x}{:02x}:{:02x}{:02x}".format(
        *map(int, me.split(".")))
    gids = "/sys/class/infiniband/rxe0/ports/1/gids"
    for _ in range(240):
        out = subprocess.run(["rdma", "link"], capture_output=True, text=True).stdout
        have = []
        if os.path.isdir(gids):
            for g in os.listdir(gids):
                try:
                    have.append(open(os.path.join(gids, g)).read().strip())
                except OSError:
                    pass
        if "ACTIVE" in out and want in have:
            print("rdma:", out.strip(), flush=True)
            return
        time.sleep(0.25)
    raise SystemExit("rxe0 never became ACTIVE with " + me)
"""

# run(name, args): a tool run to its end (|timeout| s at most, then -1),
# its output, errors and exit status left in the run directory as
# NAME.out, NAME.err and NAME.rc; serve(me, stack): an rdsperf server on
# address |me| with the stack options |stack|, once it listens (its errors
# in server-ME.err). Both need ENV (the tools' environment), subprocess
# and socket.
GUEST_RDSPERF = r"""
def run(name, args, timeout=300):
    d = os.environ["LAB_DIR"]
    with open(os.path.join(d, name + ".out"), "w") as out, \
            open(os.path.join(d, name + ".err"), "w") as err:
        try:
            rc = subprocess.call(args, stdout=out, stderr=err, env=ENV, timeout=timeout)
        except subprocess.TimeoutExpired:
            rc = -1
    open(os.path.join(d, name + ".rc"), "w").write("{}\n".format(rc))
    print(name, "exit", rc, flush=True)
    return rc

def serve(me, stack):
    err = os.path.join(os.environ["LAB_DIR"], "server-{}.err".format(me))
    p = subprocess.Popen(["/run/lab/rdsperf", "-s", "-B", me, "--transport", "ib"] + stack,
                         stdout=subprocess.DEVNULL, stderr=open(err, "a"), env=ENV)
    for _ in range(300):
        try:
            socket.create_connection((me, 18515), timeout=1).close()
            return p
        except OSError:
            time.sleep(0.1)
    raise SystemExit("rdsperf -s on {} never listened".format(me))
"""


def guest_python(body):
    """A role's shell script that runs the Python program |body|."""
    return "python3 - <<'PY'\n" + body.strip("\n") + "\nPY\n"


# rds_socket(port): AF_RDS pinned to TCP and bound to the guest's address
# (needs socket too). |rcvbuf|: its SO_RCVBUF; |force|: room for bursts
# beyond the sysctl limits; |timeout| None: truly blocking, as a timeout
# makes sendto non-blocking.
GUEST_RDS_TCP = r"""
SOL_RDS = 276
SO_RDS_TRANSPORT = 8
RDS_TRANS_TCP = 2
SO_SNDBUFFORCE = 32
SO_RCVBUFFORCE = 33

def rds_socket(port, rcvbuf=None, timeout=60, force=False):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP)
    if force:
        s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 4 << 20)
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((os.environ["LAB_IP"], port))
    s.settimeout(timeout)
    return s
"""

# rds_socket(port): AF_RDS pinned to IB and bound to the guest's address
# once its GID table has it (the table may lag behind the link state),
# with room to send 1 MiB messages (the default is about 100 KiB) and
# |rcvbuf| to receive (needs errno and socket too); run_librds(argv,
# out_path, env): a librds program on IB run until its set-up succeeds
# (needs subprocess and time too).
GUEST_RDS_IB = r"""
SOL_RDS = 276
SO_RDS_TRANSPORT = 8
RDS_TRANS_IB = 0
SO_SNDBUFFORCE = 32
SO_RCVBUFFORCE = 33

def rds_socket(port, rcvbuf=8 << 20, timeout=120):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
    assert s.getsockopt(SOL_RDS, SO_RDS_TRANSPORT) == RDS_TRANS_IB
    s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 8 << 20)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
    for i in range(60):
        try:
            s.bind((os.environ["LAB_IP"], port))
            break
        except OSError as e:
            if e.errno != errno.EADDRNOTAVAIL or i == 59:
                raise
            time.sleep(0.5)
    s.settimeout(timeout)
    return s

def run_librds(argv, out_path, env):
    # A librds program on IB, its output in out_path: run again (up to 20
    # times) while its set-up (rdsu_io_new) fails, as it does while the
    # GID table lags behind the link state. Returns its exit code.
    name = os.path.basename(argv[0])
    rc = None
    for attempt in range(20):
        with open(out_path, "w") as out:
            rc = subprocess.call(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
        text = open(out_path).read()
        if rc == 0 or "rdsu_io_new" not in text:
            break
        print(name, "set-up failed, again:", text.strip(), flush=True)
        time.sleep(1)
    return rc
"""


def cache_root():
    return os.environ.get("RDS_LAB_CACHE",
                          os.path.join(os.path.expanduser("~"), ".cache", "rds-lab"))


def run(cmd, **kw):
    kw.setdefault("check", True)
    return subprocess.run(cmd, **kw)


# --------------------------------------------------------------------------
# Kernel download and initramfs
# --------------------------------------------------------------------------

def apt_opts(suite, root):
    """apt options for a private package list; the machine's own apt
    configuration is never changed. The archive address is the one the
    machine already uses."""
    if suite == "bookworm":
        return ["-o", "APT::Sandbox::User=root"]
    uri = None
    for src in glob.glob("/etc/apt/sources.list.d/*.sources"):
        with open(src) as f:
            m = re.search(r"^URIs:\s*(\S+)", f.read(), re.M)
        if m and "security" not in m.group(1):
            uri = m.group(1)
            break
    if not uri and os.path.exists("/etc/apt/sources.list"):
        with open("/etc/apt/sources.list") as f:
            m = re.search(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+\S+", f.read(), re.M)
            uri = m.group(1) if m else None
    if not uri:
        raise SystemExit("lab: cannot find the machine's Debian archive address")
    apt = os.path.join(root, "apt")
    for d in ("lists/partial", "cache/archives/partial"):
        os.makedirs(os.path.join(apt, d), exist_ok=True)
    srcfile = os.path.join(apt, "sources.sources")
    with open(srcfile, "w") as f:
        f.write("Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n"
                "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n" % (uri, suite))
    return ["-o", "Dir::Etc::SourceList=" + srcfile,
            "-o", "Dir::Etc::SourceParts=/dev/null",
            "-o", "Dir::State::Lists=" + os.path.join(apt, "lists"),
            "-o", "Dir::Cache=" + os.path.join(apt, "cache"),
            "-o", "APT::Architectures=amd64",
            "-o", "APT::Sandbox::User=root"]


def depends(opts, pkg, pattern):
    out = run(["apt-cache"] + opts + ["depends", pkg], capture_output=True,
              text=True).stdout
    return [m for m in re.findall(r"Depends:\s*(\S+)", out) if re.match(pattern, m)]


@contextlib.contextmanager
def cache_lock(name):
    """Held while the cache of kernel |name| is fetched, built or added to:
    runs that share the cache (two build trees, a fetch beside a test) do
    it one at a time, and each looks again under the lock."""
    os.makedirs(cache_root(), exist_ok=True)
    with open(os.path.join(cache_root(), name + ".lock"), "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def fetch(name):
    """Download the kernel for |name|, unpack it and build the initramfs.
    Returns the cache directory holding vmlinuz, initramfs.gz, version."""
    with cache_lock(name):
        return fetch_locked(name)


def fetch_locked(name):
    suite, meta = KERNELS[name]
    root = os.path.join(cache_root(), name)
    os.makedirs(root, exist_ok=True)
    opts = apt_opts(suite, root)
    if suite != "bookworm":
        log("refreshing the %s package list" % suite)
        run(["apt-get"] + opts + ["-qq", "update"])
    image = depends(opts, meta, r"linux-image-\d")
    if not image:
        raise SystemExit("lab: no kernel image behind %s in %s" % (meta, suite))
    image = image[0]
    kver = image[len("linux-image-"):]
    work = os.path.join(root, kver)
    if up_to_date(work):
        return work
    debs = os.path.join(work, "debs")
    if not glob.glob(os.path.join(debs, "*.deb")):
        pkgs = [image] + depends(opts, image, r"linux-(binary|modules)-\d")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(debs)
        log("downloading %s" % " ".join(pkgs))
        run(["apt-get"] + opts + ["-qq", "download"] + pkgs, cwd=debs)
    build(work, kver)
    return work


def module_list():
    return "\n".join(BASE_MODULES + RDMA_MODULES) + "\n"


def up_to_date(work):
    """Built, and with the modules this harness asks for (the packages are
    kept, so a changed list only rebuilds the initramfs)."""
    try:
        with open(os.path.join(work, "modules.txt")) as f:
            return f.read() == module_list() and \
                os.path.exists(os.path.join(work, "initramfs.gz"))
    except OSError:
        return False


def build(work, kver):
    debs = os.path.join(work, "debs")
    tree = os.path.join(work, "tree")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.rmtree(os.path.join(work, "modview"), ignore_errors=True)
    for deb in glob.glob(os.path.join(debs, "*.deb")):
        run(["dpkg-deb", "-x", deb, tree])
    vmlinuz = (glob.glob(os.path.join(tree, "boot", "vmlinuz-*")) +
               glob.glob(os.path.join(tree, "usr/lib/modules/*/vmlinuz")))
    if not vmlinuz:
        raise SystemExit("lab: no vmlinuz in %s" % debs)
    shutil.copy(vmlinuz[0], os.path.join(work, "vmlinuz"))
    build_initramfs(work, tree, kver)
    for d in (tree, os.path.join(work, "modview")):
        shutil.rmtree(d)
    with open(os.path.join(work, "version"), "w") as f:
        f.write(kver + "\n")
    with open(os.path.join(work, "modules.txt"), "w") as f:
        f.write(module_list())


def cached(name):
    """The newest kernel already downloaded for |name|, rebuilt if the
    module list changed, without asking the network; None if there is none.
    `lab.py fetch` looks for a newer kernel."""
    with cache_lock(name):
        return cached_locked(name)


def cached_locked(name):
    done = sorted(glob.glob(os.path.join(cache_root(), name, "*", "version")),
                  key=os.path.getmtime)
    if not done:
        return None
    work = os.path.dirname(done[-1])
    if not up_to_date(work):
        if not glob.glob(os.path.join(work, "debs", "*.deb")):
            return None
        with open(done[-1]) as f:
            build(work, f.read().strip())
    return work


def module_root(tree):
    for base in ("lib/modules", "usr/lib/modules"):
        d = os.path.join(tree, base)
        if os.path.isdir(d):
            return os.path.join(tree, base.split("/modules")[0]), base
    raise SystemExit("lab: no modules in the kernel package")


def module_view(work, tree, kver):
    """A directory that modprobe -d takes for the kernel's modules in |tree|.
    Returns (view, link, moddir): paths modprobe prints start with link."""
    _, base = module_root(tree)
    moddir = os.path.join(tree, base, kver)
    # modprobe -d wants <dir>/lib/modules/<kver>; make that view if needed.
    view = os.path.join(work, "modview")
    os.makedirs(os.path.join(view, "lib", "modules"), exist_ok=True)
    link = os.path.join(view, "lib", "modules", kver)
    if not os.path.exists(link):
        os.symlink(moddir, link)
    # 7.x packages ship their module indexes (with the list of built-in
    # modules, which depmod cannot rebuild from the package); 6.1 leaves
    # them to postinst.
    if not os.path.exists(os.path.join(moddir, "modules.dep")):
        run(["depmod", "-b", view, kver])
    return view, link, moddir


def load_order(view, kver, groups):
    """The module files to insmod for |groups| [(modules, optional)], with
    their dependencies first."""
    order = []
    for group, optional in groups:
        for mod in group:
            p = subprocess.run(["modprobe", "-d", view, "-S", kver, "--show-depends", mod],
                               capture_output=True, text=True)
            if p.returncode != 0:
                # Built in (virtio_pci on 7.2) or absent on this kernel
                # (crc32_generic vs crc32-cryptoapi): only RDMA extras may be.
                if "builtin" in p.stdout + p.stderr or optional or mod in MAYBE_BUILTIN:
                    continue
                raise SystemExit("lab: module %s: %s" % (mod, p.stderr.strip()))
            for line in p.stdout.splitlines():
                m = re.match(r"insmod (\S+)", line)
                if m and m.group(1) not in order:
                    order.append(m.group(1))
    return order


def copy_modules(order, link, moddir, dst_dir, prefix):
    """Uncompressed copies of the |order| files in |dst_dir|, named
    <prefix><index>-<module>.ko; returns the names in order."""
    names = []
    for i, path in enumerate(order):
        real = path.replace(link, moddir) if path.startswith(link) else path
        name = "%s%02d-%s" % (prefix, i, os.path.basename(real))
        dst = os.path.join(dst_dir, name)
        if real.endswith(".xz"):
            run(["xz", "-dc", real], stdout=open(dst[:-3], "wb"))
            name = name[:-3]
        elif real.endswith(".zst"):
            run(["zstd", "-dcq", real], stdout=open(dst[:-4], "wb"))
            name = name[:-4]
        else:
            shutil.copy(real, dst)
        names.append(name)
    return names


def write_cpio_gz(root, out):
    cpio = subprocess.run("cd %s && find . | cpio -o -H newc --quiet" % root, shell=True,
                          check=True, capture_output=True).stdout
    with gzip.open(out, "wb", compresslevel=1) as f:
        f.write(cpio)


def build_initramfs(work, tree, kver):
    """busybox + the modules the guest needs, in load order + /init."""
    view, link, moddir = module_view(work, tree, kver)
    order = load_order(view, kver, ((BASE_MODULES, False), (RDMA_MODULES, True)))
    root = os.path.join(work, "initramfs")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "sbin", "proc", "sys", "dev", "host", "mod", "tmp"):
        os.makedirs(os.path.join(root, d))
    shutil.copy("/bin/busybox", os.path.join(root, "bin", "busybox"))
    names = copy_modules(order, link, moddir, os.path.join(root, "mod"), "")
    with open(os.path.join(root, "mod", "order"), "w") as f:
        f.write("\n".join(names) + "\n")
    init = os.path.join(root, "init")
    with open(init, "w") as f:
        f.write(GUEST_INIT)
    os.chmod(init, 0o755)
    write_cpio_gz(root, os.path.join(work, "initramfs.gz"))
    shutil.rmtree(root)
    log("initramfs for %s: %d modules" % (kver, len(names)))


def module_variant(work, add, drop):
    """The initramfs of |work| with the modules |add| (and what they need)
    loaded too and those named in |drop| not loaded, for one test's guests.

    The shared initramfs.gz and its key (module_list()) stay as every other
    test has them: the variant is that archive followed by a small second
    one holding the added modules and a new /mod/order (the kernel unpacks
    concatenated archives in turn, a later file replacing an earlier one).
    It is cached beside the shared one, keyed by both lists and by the
    shared archive it was made from. Returns its path."""
    base = os.path.join(work, "initramfs.gz")
    with open(os.path.join(work, "version")) as f:
        kver = f.read().strip()
    key = "add %s\ndrop %s\nbase %d %s" % (
        " ".join(add), " ".join(drop), os.stat(base).st_mtime_ns, module_list())
    tag = "-".join(add) + ("-no-" + "-".join(drop) if drop else "")
    out = os.path.join(work, "initramfs-%s.gz" % tag)
    keyfile = out + ".key"
    try:
        with open(keyfile) as f:
            if f.read() == key and os.path.exists(out):
                return out
    except OSError:
        pass
    p = subprocess.run("gzip -dc %s | cpio -i --quiet --to-stdout '*mod/order'" % base,
                       shell=True, check=True, capture_output=True, text=True)
    base_names = p.stdout.split()
    if not base_names:
        raise SystemExit("lab: no /mod/order in %s" % base)
    loaded = {re.sub(r"^\d+-", "", n) for n in base_names}
    kept = [n for n in base_names if re.sub(r"^\d+-(.*)\.ko$", r"\1", n) not in drop]
    tmp = tempfile.mkdtemp(prefix="variant-", dir=work)
    try:
        tree = os.path.join(tmp, "tree")
        for deb in glob.glob(os.path.join(work, "debs", "*.deb")):
            run(["dpkg-deb", "-x", deb, tree])
        view, link, moddir = module_view(tmp, tree, kver)
        order = [m for m in load_order(view, kver, ((add, False),))
                 if re.sub(r"\.(xz|zst)$", "", os.path.basename(m)) not in loaded]
        root = os.path.join(tmp, "root")
        os.makedirs(os.path.join(root, "mod"))
        names = copy_modules(order, link, moddir, os.path.join(root, "mod"), "x")
        with open(os.path.join(root, "mod", "order"), "w") as f:
            f.write("\n".join(kept + names) + "\n")
        write_cpio_gz(root, os.path.join(tmp, "extra.gz"))
        with open(out + ".tmp", "wb") as f:
            for part in (base, os.path.join(tmp, "extra.gz")):
                with open(part, "rb") as src:
                    shutil.copyfileobj(src, f)
        os.replace(out + ".tmp", out)
        with open(keyfile, "w") as f:
            f.write(key)
    finally:
        shutil.rmtree(tmp)
    log("initramfs variant for %s: +%s -%s" % (kver, " ".join(names), " ".join(drop)))
    return out


# The guest's /init. Parameters come on the kernel command line:
#   lab.ip=ADDR/LEN lab.id=N lab.rxe=0|1
GUEST_INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /mod/order); do insmod /mod/$m 2>/dev/null || echo "init: insmod $m failed"; done
for kv in $(cat /proc/cmdline); do
	case $kv in lab.*=*) k=${kv%%=*}; k=${k#lab.}; eval "LAB_$k=${kv#*=}" ;; esac
done
ip link set lo up
ip link set eth0 up
ip addr add "$LAB_ip" dev eth0
mount -t 9p -o trans=virtio,version=9p2000.L,ro hostroot /host || echo "init: no hostroot"
for d in proc sys dev; do mount --bind /$d /host/$d; done
mount -t tmpfs tmp /host/tmp
mount -t tmpfs run /host/run
# The host root is read-only; the run directory appears at /run/lab.
L=/host/run/lab
mkdir -p $L
mount -t 9p -o trans=virtio,version=9p2000.L labout $L || echo "init: no labout"
if [ "$LAB_rxe" = 1 ]; then
	chroot /host rdma link add rxe0 type rxe netdev eth0 || echo "init: rxe failed"
fi
echo "init: guest $LAB_id up on $(uname -r), $LAB_ip"
rc=99
if [ -f $L/role$LAB_id ]; then
	chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp \
		LAB_ID=$LAB_id LAB_IP=${LAB_ip%/*} LAB_KERNEL=$(uname -r) LAB_DIR=/run/lab \
		/bin/sh /run/lab/role$LAB_id > $L/guest$LAB_id.out 2>&1
	rc=$?
fi
echo $rc > $L/guest$LAB_id.rc
sync
umount $L
echo "init: role exited $rc"
poweroff -f
"""


# --------------------------------------------------------------------------
# Running guests
# --------------------------------------------------------------------------

# What GUEST_INIT covers with the guest's own tmpfs.
COVERED = ("/tmp", "/run")


def host_paths(argv=None):
    """The host's folders a run needs that the guest's own /tmp and /run
    would hide: those holding the checkout, the lab's cache, the working
    directory and each absolute path on the command line (the build
    tree's programs, the scripts a test names), each as the folder right
    below /tmp or /run. A checkout under /tmp is as good as any other."""
    here = os.path.dirname(os.path.abspath(__file__))
    cands = [os.path.join(here, "..", ".."), cache_root(), os.getcwd()]
    for arg in (sys.argv[1:] if argv is None else argv):
        cands += [part for part in arg.split("=") if part.startswith("/")]
    out = set()
    for c in cands:
        for p in {os.path.abspath(c), os.path.realpath(c)}:
            for top in COVERED:
                if p.startswith(top + "/"):
                    first = p[len(top) + 1:].split("/")[0]
                    # /run/lab is the run directory's own mount.
                    if first and (top, first) != ("/run", "lab"):
                        out.add(top + "/" + first)
    return sorted(out)


def role_prologue(paths):
    """Shell put before each role: |paths| (host_paths()) bound back over
    the guest's tmpfs, read-only as the rest of the host's root. The
    host's 9p root is mounted once, at /host of the guest's init (pid 1);
    a bind of it that leaves out what is mounted on it shows what the
    tmpfs covers."""
    if not paths:
        return ""
    return """# lab.py: the host's %(paths)s, which the guest's own /tmp and /run hide
mkdir -p /run/lab-host && mount --bind /proc/1/root/host /run/lab-host ||
	echo "lab: cannot see the host's root under the guest's tmpfs" >&2
for p in %(paths)s; do
	if [ -d "/run/lab-host$p" ]; then mkdir -p "$p"; else touch "$p"; fi &&
		mount --bind "/run/lab-host$p" "$p" || echo "lab: cannot show the host's $p" >&2
done
umount /run/lab-host 2>/dev/null
""" % {"paths": " ".join(shlex.quote(p) for p in paths)}


class Lab:
    """Boots guests on one kernel inside a fresh network namespace.

    with Lab("7.2", guests=2, rxe=True, capture="x.pcap") as lab:
        lab.role(1, "script text")
        lab.role(2, "script text")
        lab.start()
        lab.wait(timeout=120)
    """

    def __init__(self, kernel, guests=2, rxe=False, capture=None, keep=None,
                 capture_filter="tcp port 16385 or udp port 4791", memory=768,
                 capture_if="br0", add_modules=(), drop_modules=()):
        self.kernel = kernel
        self.guests = guests
        self.rxe = rxe
        self.capture = capture
        self.capture_filter = capture_filter
        self.capture_if = capture_if
        self.memory = memory
        self.ns = "rdslab%d" % os.getpid()
        self.procs = []          # (name, Popen) we started and must end
        self.tcpdump = None
        self.capture_drops = None
        self.dir = keep or tempfile.mkdtemp(prefix="rdslab-")
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o777)
        self.kdir = cached(kernel) or fetch(kernel)
        with open(os.path.join(self.kdir, "version")) as f:
            self.kver = f.read().strip()
        self.initrd = os.path.join(self.kdir, "initramfs.gz")
        if add_modules or drop_modules:
            with cache_lock(kernel):
                self.initrd = module_variant(self.kdir, list(add_modules), list(drop_modules))

    # -- set-up ------------------------------------------------------------
    def __enter__(self):
        self._old_handlers = {s: signal.signal(s, self._on_signal)
                              for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            self._netns_up()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        for s, h in self._old_handlers.items():
            signal.signal(s, h)
        return False

    def _on_signal(self, signum, frame):
        self.close()
        raise SystemExit(128 + signum)

    def ns_run(self, cmd, **kw):
        return run(["ip", "netns", "exec", self.ns] + cmd, **kw)

    def _netns_up(self):
        run(["ip", "netns", "add", self.ns])
        self.ns_run(["ip", "link", "set", "lo", "up"])
        self.ns_run(["ip", "link", "add", "br0", "type", "bridge"])
        self.ns_run(["ip", "addr", "add", HOST_ADDR + "/24", "dev", "br0"])
        self.ns_run(["ip", "link", "set", "br0", "up"])
        for i in range(1, self.guests + 1):
            tap = "tap%d" % i
            self.ns_run(["ip", "tuntap", "add", tap, "mode", "tap"])
            self.ns_run(["ip", "link", "set", tap, "master", "br0"])
            self.ns_run(["ip", "link", "set", tap, "up"])

    def guest_addr(self, i):
        return "%s.%d" % (SUBNET, i + 1)

    def role(self, i, text):
        path = os.path.join(self.dir, "role%d" % i)
        with open(path, "w") as f:
            f.write(role_prologue(host_paths()) + text)
        os.chmod(path, 0o755)

    def run_roles(self, roles, timeout=180):
        """Guest i runs roles[i - 1] (role()); the guests are started and
        waited for (wait()); returns their role exit codes."""
        for i, text in enumerate(roles, 1):
            self.role(i, text)
        self.start()
        return self.wait(timeout)

    def write(self, name, text):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def start(self, only=None):
        """Boot the guests, or guest |only| alone once more (after it
        powered off: a reboot, its console log appended to)."""
        if self.capture and not only:
            self.pcap_tmp = os.path.join(self.dir, "capture.pcap")
            self.tcpdump = subprocess.Popen(
                ["ip", "netns", "exec", self.ns, "tcpdump", "-i", self.capture_if, "-s", "0",
                 "--immediate-mode", "-B", "65536", "-U", "-w", self.pcap_tmp] + self.capture_filter.split(),
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            self.procs.append(("tcpdump", self.tcpdump))
            self._wait_tcpdump()
        for i in [only] if only else range(1, self.guests + 1):
            cmdline = ("console=ttyS0 panic=-1 quiet lab.id=%d lab.ip=%s/24 lab.rxe=%d" %
                       (i, self.guest_addr(i), 1 if self.rxe else 0))
            mac = "52:54:00:c7:00:%02x" % i
            cmd = ["ip", "netns", "exec", self.ns, "qemu-system-x86_64",
                   "-accel", "tcg", "-m", str(self.memory), "-smp", "1",
                   "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio",
                   "-kernel", os.path.join(self.kdir, "vmlinuz"),
                   "-initrd", self.initrd,
                   "-append", cmdline,
                   "-netdev", "tap,id=n0,ifname=tap%d,script=no,downscript=no" % i,
                   "-device", "virtio-net-pci,netdev=n0,mac=%s" % mac,
                   "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,"
                              "readonly=on,multidevs=remap",
                   "-virtfs", "local,path=%s,mount_tag=labout,security_model=none,"
                              "multidevs=remap" % self.dir]
            console = open(os.path.join(self.dir, "console%d.log" % i), "ab" if only else "wb")
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=console,
                                 stderr=subprocess.STDOUT)
            self.procs.append(("qemu%d" % i, p))

    def _wait_tcpdump(self):
        # tcpdump says "listening on" once the filter is installed.
        deadline = time.time() + 10
        line = b""
        while time.time() < deadline and b"listening" not in line:
            line = self.tcpdump.stderr.readline()
            if not line and self.tcpdump.poll() is not None:
                raise RuntimeError("lab: tcpdump failed to start")

    def wait(self, timeout=180):
        """Wait for every guest to power off. Returns {guest: role exit code};
        a guest that did not finish in time is killed and reported as None."""
        deadline = time.time() + timeout
        rcs = {}
        for i in range(1, self.guests + 1):
            rcs[i] = self.wait_guest(i, max(1, deadline - time.time()))
        self._stop_capture()
        return rcs

    def wait_guest(self, i, timeout):
        """Wait for guest |i| (its last boot) to power off: its role's exit
        code, None if it did not finish in time (it is killed)."""
        name, p = [x for x in self.procs if x[0] == "qemu%d" % i][-1]
        try:
            p.wait(timeout=max(1, timeout))
        except subprocess.TimeoutExpired:
            log("guest %d did not finish in %ds" % (i, timeout))
            end(p)
        rc = os.path.join(self.dir, "guest%d.rc" % i)
        return int(open(rc).read()) if os.path.exists(rc) else None

    def output(self, i):
        p = os.path.join(self.dir, "guest%d.out" % i)
        return open(p).read() if os.path.exists(p) else ""

    def console(self, i):
        p = os.path.join(self.dir, "console%d.log" % i)
        return open(p, errors="replace").read() if os.path.exists(p) else ""

    @contextlib.contextmanager
    def judging(self, fails, name=None, tail=2000):
        """Around what a test does with the guests: an exception there is
        one more entry in |fails| (after |name|), and once anything failed
        the last |tail| characters of each guest's console are shown."""
        pre = name + ": " if name else ""
        try:
            yield
        except Exception as e:  # noqa: BLE001 - any failure is reported, the lab cleans up
            fails.append("%s%s: %s" % (pre, type(e).__name__, e))
        if fails:
            for g in range(1, self.guests + 1):
                print("--- %sconsole %d:\n%s" % (name + " " if name else "", g,
                                               self.console(g)[-tail:]))

    def _stop_capture(self):
        if self.tcpdump and self.tcpdump.poll() is None:
            # Without immediate mode libpcap holds packets in ring blocks
            # that an interrupt discards; give the last ones a moment too.
            time.sleep(0.5)
            self.tcpdump.send_signal(signal.SIGINT)
            try:
                err = self.tcpdump.communicate(timeout=5)[1].decode(errors="replace")
            except subprocess.TimeoutExpired:
                end(self.tcpdump)
                err = ""
            # A capture with holes would teach the dissector wrong things.
            m = re.search(r"(\d+) packets? dropped by kernel", err)
            self.capture_drops = int(m.group(1)) if m else None
        if self.capture and os.path.exists(getattr(self, "pcap_tmp", "")):
            shutil.copy(self.pcap_tmp, self.capture)

    def close(self):
        """End only what we started, by pid, then remove the namespace."""
        for _, p in self.procs:
            end(p)
        self.procs = []
        if subprocess.run(["ip", "netns", "pids", self.ns], capture_output=True).returncode == 0:
            subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch", help="download and cache a kernel, build its initramfs")
    f.add_argument("kernel", choices=sorted(KERNELS))
    r = sub.add_parser("run", help="boot guests and run role scripts")
    r.add_argument("--kernel", choices=sorted(KERNELS), required=True)
    r.add_argument("--guests", type=int, default=2)
    r.add_argument("--rxe", action="store_true")
    r.add_argument("--role", action="append", default=[], metavar="N=FILE")
    r.add_argument("--capture")
    r.add_argument("--timeout", type=int, default=180)
    r.add_argument("--keep", metavar="DIR")
    a = ap.parse_args(argv)
    if a.cmd == "fetch":
        print(fetch(a.kernel))
        return 0
    with Lab(a.kernel, a.guests, a.rxe, a.capture, a.keep) as lab:
        for spec in a.role:
            n, path = spec.split("=", 1)
            lab.role(int(n), open(path).read())
        lab.start()
        rcs = lab.wait(a.timeout)
        for i in sorted(rcs):
            print("guest %d (%s): exit %s" % (i, lab.kver, rcs[i]))
            sys.stdout.write(lab.output(i))
        return 0 if all(v == 0 for v in rcs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
