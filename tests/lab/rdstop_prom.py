#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdstop's exporter on two kernel guests, one Prometheus scraping both
(issue 33), in the lab.

    rdstop_prom.py --kernel 6.1|7.2 --rdstop PATH --rules FILE [--out DIR]

Each guest runs `rdstop --kernel-info --prometheus ITS_IP:9481 -d 0.5`; guest 1
(10.199.0.2) also runs Debian's prometheus (the host's, seen read-only),
scraping both exporters every second. Guest 2 sends guest 1 messages from
port 5000 to port 4000; guest 1 then drops every RDS/TCP path four times
(the rds_tcp_sndbuf sysctl, as rdstop_kernel.py does), guest 2 sending
more after each drop. Through Prometheus's HTTP API (guest 1):
afrds_recv_delivered_total of guest 1 rose by exactly the messages sent
and afrds_send_queued_total of guest 2 by at least as many; afrds_conn_reset_total of guest 1 (the
host whose paths the test dropped) rose by at least 4 x 8; the connection
is up again in both guests' series. Then on the host, the alert
AfrdsConnResetStorm of the rules file (its expression and `for` as they
are) is replayed with `promtool test rules` on guest 1's conn_reset
series as Prometheus recorded it, padded with its last value for the
`for`: it must fire for guest 1's instance. The right host: a third guest
(10.199.0.4), scraped by the same Prometheus, talks to guest 2 only; its
conn_reset series must stay flat while guest 2's (the dropped connection's
other end) rises.
Exit: 0 pass, 1 fail, 77 skipped (not root, outside CI, no prometheus).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402

G1, G2, G3 = "10.199.0.2", "10.199.0.3", "10.199.0.4"
MSGS = 5
DROPS = 4

COMMON = r'''
import json, os, signal, socket, subprocess, sys, time, urllib.parse, urllib.request
D = os.environ["LAB_DIR"]
''' + lab.GUEST_RDS_TCP + lab.guest_flags(180, 0.05) + r'''
def exporter():
    err = open(os.path.join(D, "exporter%s.err" % os.environ["LAB_ID"]), "w")
    return subprocess.Popen(["/run/lab/rdstop", "--kernel-info", "-d", "0.5", "--prometheus",
                             os.environ["LAB_IP"] + ":9481"], stdout=err, stderr=err)

def stop(p, name):
    p.send_signal(signal.SIGTERM)
    rc = p.wait(30)
    open(os.path.join(D, name + ".rc"), "w").write("%d\n" % rc)
'''

ROLE1 = r"""
python3 - <<'PY'
@COMMON@
exp = exporter()
cfg = "/tmp/prometheus.yml"
open(cfg, "w").write('''global:
  scrape_interval: 1s
scrape_configs:
  - job_name: rds
    static_configs: [{targets: ['@G1@:9481', '@G2@:9481', '@G3@:9481']}]
''')
prom = subprocess.Popen(["prometheus", "--config.file=" + cfg, "--storage.tsdb.path=/tmp/tsdb",
                         "--web.listen-address=127.0.0.1:9090", "--log.level=warn"],
                        stdout=open(os.path.join(D, "prometheus.log"), "w"),
                        stderr=subprocess.STDOUT)

def api(path, **q):
    url = "http://127.0.0.1:9090/api/v1/" + path + "?" + urllib.parse.urlencode(q)
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            res = json.load(r)
    except OSError:
        return None
    return res["data"]["result"] if res.get("status") == "success" else None

def value(expr):
    r = api("query", query=expr)
    return float(r[0]["value"][1]) if r and len(r) == 1 else None

def until(pred, what, limit=90):
    t = time.time() + limit
    while time.time() < t:
        v = pred()
        if v:
            return v
        time.sleep(0.25)
    raise SystemExit("never: " + what)

def at_least(expr, least, what):
    # wait until expr has one value >= least; return it
    v = until(lambda: (lambda x: (x,) if x is not None and x >= least else None)(value(expr)),
              what)
    return v[0]

INST1, INST2, INST3 = "@G1@:9481", "@G2@:9481", "@G3@:9481"
C = {"recv_delivered": INST1, "send_queued": INST2, "conn_reset": INST1}
def ctr(name):
    return 'afrds_%s_total{instance="%s"}' % (name, C[name])

t0 = time.time()
s = rds_socket(4000)
until(lambda: value('sum(up{job="rds"})') == 3, "Prometheus scrapes the three exporters")
base = {n: at_least(ctr(n), 0, n + " known") for n in C}
# guest 3 talks to guest 2 only: the drops on guest 1 are not its own
until(lambda: value('afrds_connection_up{instance="%s",peer="@G2@"}' % INST3) == 1,
      "guest 3's connection to guest 2 up")
reset3 = 'afrds_conn_reset_total{instance="%s"}' % INST3
base["reset3"] = at_least(reset3, 0, "guest 3's conn_reset known")
flag("ready1")
for i in range(@MSGS@):
    s.recvfrom(4096)
print("received", flush=True)
for d in range(@DROPS@):
    # rds_tcp_sysctl_reset() -> rds_conn_path_drop() on every path
    with open("/proc/sys/net/rds/tcp/rds_tcp_sndbuf", "w") as f:
        f.write("%d\n" % (2097152 + d * 4096))
    flag("dropped%d" % d)
    for i in range(@MSGS@):
        s.recvfrom(4096)
    print("received after drop", d, flush=True)
sent = (@DROPS@ + 1) * @MSGS@
got = {"recv_delivered": at_least(ctr("recv_delivered"), base["recv_delivered"] + sent,
                                  "guest 1's deliveries in Prometheus"),
       "send_queued": at_least(ctr("send_queued"), base["send_queued"] + sent,
                               "guest 2's sends in Prometheus"),
       "conn_reset": at_least(ctr("conn_reset"), base["conn_reset"] + @DROPS@ * 8,
                              "guest 1's path resets in Prometheus")}
for inst, peer in ((INST1, "@G2@"), (INST2, "@G1@"), (INST2, "@G3@"), (INST3, "@G2@")):
    until(lambda: value('afrds_connection_up{instance="%s",peer="%s"}' % (inst, peer)) == 1,
          "%s's connection to %s up again" % (inst, peer))
t1 = time.time() + 2
time.sleep(3)
got["reset3"] = value(reset3)
rng = dict(start="%.3f" % t0, end="%.3f" % t1, step="1")
json.dump({"base": base, "got": got, "sent": sent,
           "series1": api("query_range", query=ctr("conn_reset"), **rng),
           "series2": api("query_range", query='afrds_conn_reset_total{instance="%s"}' % INST2,
                          **rng),
           "series3": api("query_range", query=reset3, **rng)},
          open(os.path.join(D, "prom.json"), "w"))
print("results", base, got, flush=True)
flag("done1")
wait_flag("done2")
wait_flag("done3")
stop(exp, "exporter1")
prom.terminate()
prom.wait(30)
PY
""".replace("@COMMON@", COMMON).replace("@G1@", G1).replace("@G2@", G2) \
   .replace("@G3@", G3).replace("@MSGS@", str(MSGS)).replace("@DROPS@", str(DROPS))

ROLE2 = r"""
python3 - <<'PY'
@COMMON@
exp = exporter()
s = rds_socket(5000)
s7 = rds_socket(7000)
flag("bound2")
wait_flag("ready1")
for i in range(@MSGS@):
    s.sendto(b"x" * 1000, ("@G1@", 4000))
for d in range(@DROPS@):
    wait_flag("dropped%d" % d)
    time.sleep(0.5)
    for i in range(@MSGS@):
        s.sendto(b"y" * 1000, ("@G1@", 4000))
print("sent", flush=True)
for i in range(@MSGS@):
    s7.recvfrom(4096)
print("received from guest 3", flush=True)
wait_flag("done1")
stop(exp, "exporter2")
flag("done2")
PY
""".replace("@COMMON@", COMMON).replace("@G1@", G1).replace("@MSGS@", str(MSGS)) \
   .replace("@DROPS@", str(DROPS))


# Guest 3: a connection of its own, to guest 2, that the test leaves alone;
# its exporter's reset series must stay flat while guest 1's paths drop.
ROLE3 = r"""
python3 - <<'PY'
@COMMON@
exp = exporter()
s = rds_socket(6000)
wait_flag("bound2")
for i in range(@MSGS@):
    s.sendto(b"z" * 1000, ("@G2@", 7000))
print("sent to guest 2", flush=True)
wait_flag("done1")
stop(exp, "exporter3")
flag("done3")
PY
""".replace("@COMMON@", COMMON).replace("@G2@", G2).replace("@MSGS@", str(MSGS))

def replay(rules_file, series, instance, work):
    """promtool test rules: AfrdsConnResetStorm as the rules file has it,
    over |series| (query_range values at 1 s), padded for its `for`.
    Returns promtool's output, or None when it fired as expected."""
    import yaml
    rules = yaml.safe_load(open(rules_file))
    rule = [r for g in rules["groups"] for r in g["rules"]
            if r.get("alert") == "AfrdsConnResetStorm"]
    if len(rule) != 1:
        return "the rules file has no AfrdsConnResetStorm"
    rule = dict(rule[0])
    rule.pop("annotations", None)
    values = [v for _, v in series]
    pad = 200
    values += [values[-1]] * pad
    fp = os.path.join(work, "replay.rules.yml")
    yaml.safe_dump({"groups": [{"name": "replay", "rules": [rule]}]}, open(fp, "w"))
    test = {
        "rule_files": ["replay.rules.yml"],
        "evaluation_interval": "1s",
        "tests": [{
            "interval": "1s",
            "input_series": [{
                "series": 'afrds_conn_reset_total{instance="%s",job="rds"}' % instance,
                "values": " ".join(values)}],
            "alert_rule_test": [{
                "eval_time": "%ds" % (len(values) - 1),
                "alertname": "AfrdsConnResetStorm",
                "exp_alerts": [{"exp_labels": dict(rule.get("labels", {}),
                                                   instance=instance, job="rds")}],
            }],
        }],
    }
    tp = os.path.join(work, "replay.test.yml")
    yaml.safe_dump(test, open(tp, "w"))
    r = subprocess.run(["promtool", "test", "rules", "replay.test.yml"], cwd=work,
                       capture_output=True, text=True)
    return None if r.returncode == 0 else r.stdout + r.stderr


def main():
    ap = lab.arg_parser()
    ap.add_argument("--rdstop", required=True)
    ap.add_argument("--rules", required=True)
    a, out, log = lab.parse(ap)
    for tool in ("prometheus", "promtool"):
        if not shutil.which(tool):
            log("skipped: no %s (Debian: prometheus)" % tool)
            return 77
    run_dir, share = lab.run_share(out, "rdstop_prom-%s" % a.kernel, (a.rdstop,))
    fails = []
    with lab.Lab(a.kernel, 3, False, os.path.join(run_dir, "capture.pcap"), keep=share) as l, \
            l.judging(fails, tail=1500):
        rcs = l.run_roles((ROLE1, ROLE2, ROLE3), 240)
        log("guests: %s" % rcs)
        fails += lab.role_fails(rcs, l.output)
        for g in (1, 2, 3):
            rcp = os.path.join(share, "exporter%d.rc" % g)
            if not os.path.exists(rcp) or open(rcp).read().strip() != "0":
                ep = os.path.join(share, "exporter%d.err" % g)
                fails.append("guest %d: the exporter did not end cleanly: %s" % (
                    g, open(ep).read()[-500:] if os.path.exists(ep) else "no output"))
        pj = os.path.join(share, "prom.json")
        if not os.path.exists(pj):
            fails.append("no results from Prometheus")
        else:
            res = json.load(open(pj))
            log("before %s, after %s" % (res["base"], res["got"]))
            # every message guest 2 sent was delivered once (the kernel
            # also counts congestion map updates and pongs in send_queued)
            d = res["got"]["recv_delivered"] - res["base"]["recv_delivered"]
            if d != res["sent"]:
                fails.append("guest 1's recv_delivered rose by %s, want %d" % (d, res["sent"]))
            d = res["got"]["send_queued"] - res["base"]["send_queued"]
            if d < res["sent"]:
                fails.append("guest 2's send_queued rose by %s, want %d or more" % (d, res["sent"]))
            # the right host: guest 3, in no dropped connection, saw no
            # reset; guest 2, the dropped connection's other end, did
            if res["got"]["reset3"] != res["base"]["reset3"]:
                fails.append("guest 3's conn_reset moved (%s -> %s) though none of its "
                             "connections was dropped" % (res["base"]["reset3"],
                                                          res["got"]["reset3"]))
            s3 = res.get("series3") or []
            if len(s3) != 1 or len({v for _, v in s3[0]["values"]}) != 1:
                fails.append("guest 3's conn_reset series is not one flat series: %r" % s3)
            s2 = res.get("series2") or []
            if len(s2) != 1 or float(s2[-1]["values"][-1][1]) <= float(s2[0]["values"][0][1]):
                fails.append("guest 2's conn_reset (the other end) did not rise: %r" % s2)
            s1 = res["series1"]
            if not s1 or len(s1) != 1:
                fails.append("guest 1's conn_reset series: %r" % s1)
            else:
                inst = s1[0]["metric"]["instance"]
                if inst != G1 + ":9481":
                    fails.append("conn_reset of the wrong host: %r" % inst)
                work = tempfile.mkdtemp(prefix="replay.", dir=run_dir)
                why = replay(a.rules, s1[0]["values"], inst, work)
                if why:
                    fails.append("AfrdsConnResetStorm did not fire in the replay: %s" % why)
                else:
                    log("AfrdsConnResetStorm fires for %s in the replay" % inst)
    return lab.verdict(fails, log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
