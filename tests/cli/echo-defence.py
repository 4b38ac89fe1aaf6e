#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""examples/rdsu_echo against a peer that never reads, and with nobody there.

1. A raw RDS/TCP peer (the smaller address, so the server only accepts)
   sends large messages to the echo server and never reads its socket: the
   echoes pile up unacknowledged in the server's SNDBUF. A well-behaved
   client must still get every echo, during the attack.
2. A client with no server must give up with a message, not wait for ever.

Usage: echo-defence.py RDSU_ECHO
"""
import socket
import struct
import subprocess
import sys
import threading
import time

ECHO = sys.argv[1]
SERVER, HOG, GOOD = "127.0.4.2", "127.0.4.1", "127.0.3.9"
PORT = 7000


def rds_msg(seq, sport, dport, payload):
    # 48-byte RDS header (docs/protocol/header.md); h_csum 0 on TCP.
    hdr = struct.pack(">QQIHHBB4sH16s", seq, 0, len(payload), sport, dport,
                      0, 0, b"\0" * 4, 0, b"\0" * 16)
    return hdr + payload


def hog(stop, sent):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # A tiny receive window: the server's echoes stall at once.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.bind((HOG, 0))
    # the server may still be starting on a loaded machine
    for _ in range(100):
        try:
            s.connect((SERVER, 16385))
            break
        except ConnectionRefusedError:
            time.sleep(0.1)
    else:
        return
    s.settimeout(0.5)
    body = b"h" * (64 * 1024)
    seq = 1
    while not stop.is_set() and seq <= 1024:
        try:
            s.sendall(rds_msg(seq, 5555, PORT, body))
        except socket.timeout:
            continue
        except OSError:
            break
        sent[0] = seq
        seq += 1
    stop.wait(60)
    s.close()


def run(args):
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout.strip(), r.stderr.strip()
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(), "still running after 60 s"


def main():
    failures = []
    srv = subprocess.Popen([ECHO, "server", SERVER, str(PORT)],
                           stdout=subprocess.DEVNULL)
    stop = threading.Event()
    sent = [0]
    try:
        time.sleep(0.5)
        t = threading.Thread(target=hog, args=(stop, sent), daemon=True)
        t.start()
        # Let the hog's echoes fill the server's send budget first.
        deadline = time.monotonic() + 20
        while sent[0] < 128 and time.monotonic() < deadline:
            time.sleep(0.1)
        print(f"hog sent {sent[0]} messages of 64 KiB and reads nothing")
        if sent[0] < 32:
            failures.append("the hog could not send: the server stopped reading")
        rc, out, err = run([ECHO, "client", GOOD, SERVER, str(PORT), "1000"])
        print(f"client: exit {rc}: {out} {err}")
        if rc != 0 or "1000 sent, 1000 echoed" not in out:
            failures.append("a well-behaved client lost its echoes to the hog")
    finally:
        stop.set()
        srv.terminate()
        srv.wait(10)

    t0 = time.monotonic()
    rc, out, err = run([ECHO, "client", "127.0.5.1", "127.0.5.2", str(PORT), "10"])
    took = time.monotonic() - t0
    print(f"no server: exit {rc} after {took:.1f} s: {err}")
    if rc != 1 or "no echo from 127.0.5.2" not in err:
        failures.append("a client with no server did not give up with a message")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
