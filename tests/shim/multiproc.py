# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Several independent processes on one address under rdsrun, with no rdsd
running when they start (RDSRUN_DAEMON unset): the kernel lets each bind
its own port of 127.0.0.1 and exchange messages with the others. The shim
(docs/shim.md, "One process per address") moves the first process's
sockets to an rdsd it starts when the second binds, and the second's too.

  multiproc.py RDSRUN          the driver (run in a network namespace of
                               its own by multiproc.sh, not shimmed)
  multiproc.py --peer          one process, shimmed, reading commands

The driver starts the peers with rdsrun and gives them commands, one a
line on stdin; each answers one line on stdout:

  socket            make the AF_RDS socket (not bound yet)
  bind ADDR PORT    bind it
  send ADDR PORT T  send T to ADDR:PORT
  recv              one message: "got T from PORT"
  exec              exec this program again with the socket kept (not
                    close-on-exec): the new image goes on with it and
                    answers "ready"
  name              getsockname: "name ADDR PORT"
  epoll             register the socket in an epoll set for EPOLLIN
  ewait, pwait      wait in that epoll set, or in poll(), then one
                    message without waiting: "got T from PORT"

What is checked, in order:
  1. P1 binds 127.0.0.1:A per process (no rdsd listens yet); P3 makes its
     socket then, so it is a per-process socket of its own, unbound.
  2. P1 waits in recv; P2 binds 127.0.0.1:B: that bind asks P1 to move
     (P1's waiting recv goes on through rdsd), rdsd now runs.
  3. P2 -> P1 and P1 -> P2.
  4. P3 binds 127.0.0.1:C (its socket, made per process, moves at the
     bind), then P3 <-> P1 and P3 <-> P2.
  5. exec: P4, alone on 127.0.0.2 with an rdsd name no rdsd has, binds
     per process, sends a message to its own port and reads it, execs
     itself with the socket kept; the new program's socket has the same
     name, and a message it sends to its own port comes back to it.
     (A message received and not read at the exec would be lost, as at
     the first fork: docs/shim.md "exec".)
  6. P5 bound 127.0.0.3 per process before that rdsd ran; P6, started
     after, gets an rdsd socket, and rdsd's bind of 127.0.0.3 finds it
     held: P6's shim asks P5 to move, and the two exchange messages.
     P5 waits in poll() through the move, and its epoll set, made
     before, holds the socket after it.
"""
import os
import select
import socket
import subprocess
import sys

A, B, C, E = 4701, 4702, 4703, 4704
WAIT = 60   # seconds a peer may take to answer before the test gives up


def peer(sock_fd):
    s = None
    if sock_fd is not None:
        s = socket.socket(fileno=sock_fd)
        print('ready', flush=True)
    for line in sys.stdin:
        w = line.split()
        try:
            if w[0] == 'socket':
                s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
                out = 'ok'
            elif w[0] == 'bind':
                s.bind((w[1], int(w[2])))
                out = 'ok'
            elif w[0] == 'send':
                s.sendto(w[3].encode(), (w[1], int(w[2])))
                out = 'ok'
            elif w[0] == 'recv':
                data, frm = s.recvfrom(4096)
                out = f'got {data.decode()} from {frm[1]}'
            elif w[0] == 'epoll':
                ep = select.epoll()
                ep.register(s, select.EPOLLIN)
                out = 'ok'
            elif w[0] in ('ewait', 'pwait'):
                if w[0] == 'pwait':
                    p = select.poll()
                    p.register(s, select.POLLIN)
                    ready = p.poll(WAIT * 1000)
                else:
                    ready = ep.poll(WAIT)
                if ready:
                    data, frm = s.recvfrom(4096, socket.MSG_DONTWAIT)
                    out = f'got {data.decode()} from {frm[1]}'
                else:
                    out = 'nothing ready'
            elif w[0] == 'name':
                a = s.getsockname()
                out = f'name {a[0]} {a[1]}'
            elif w[0] == 'exec':
                s.set_inheritable(True)
                sys.stdout.flush()
                os.execv(sys.executable,
                         [sys.executable, __file__, '--peer', str(s.fileno())])
            else:
                out = 'bad command'
        except OSError as e:
            out = f'error {e.errno} {os.strerror(e.errno)}'
        print(out, flush=True)


class Peer:
    def __init__(self, run, name, env):
        self.name = name
        self.p = subprocess.Popen([run, sys.executable, __file__, '--peer'],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, env=env)

    def ask(self, cmd):
        self.p.stdin.write(cmd + '\n')
        self.p.stdin.flush()

    def answer(self):
        r, _, _ = select.select([self.p.stdout], [], [], WAIT)
        line = self.p.stdout.readline().strip() if r else '(no answer)'
        return line

    def do(self, cmd, want):
        self.ask(cmd)
        got = self.answer()
        ok = got == want
        print(f"{'ok' if ok else 'FAIL'}: {self.name} {cmd}: {got}"
              + ('' if ok else f' (want {want})'), flush=True)
        return ok

    def stop(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def listening(name):
    """Does an abstract Unix socket @name listen in this namespace?"""
    with open('/proc/net/unix') as f:
        return any(line.split()[-1] == '@' + name for line in f
                   if len(line.split()) >= 8)


def driver(run):
    name = f'rds-multiproc-{os.getpid()}'
    env = dict(os.environ, RDSD_NAME=name)
    env.pop('RDSRUN_DAEMON', None)
    ok = True
    peers = []

    def check(cond, what):
        nonlocal ok
        print(f"{'ok' if cond else 'FAIL'}: {what}", flush=True)
        ok = ok and cond

    try:
        p1 = Peer(run, 'P1', env)
        peers.append(p1)
        ok &= p1.do('socket', 'ok') & p1.do('bind 127.0.0.1 %d' % A, 'ok')
        check(not listening(name), 'P1 is per process (no rdsd listens)')
        p3 = Peer(run, 'P3', env)
        peers.append(p3)
        ok &= p3.do('socket', 'ok')
        # P1 waits in recv while P2 binds: the bind moves P1
        p1.ask('recv')
        p2 = Peer(run, 'P2', env)
        peers.append(p2)
        ok &= p2.do('socket', 'ok') & p2.do('bind 127.0.0.1 %d' % B, 'ok')
        check(listening(name), 'rdsd runs after the second bind')
        ok &= p2.do('send 127.0.0.1 %d from-B' % A, 'ok')
        got = p1.answer()
        check(got == 'got from-B from %d' % B, f'P1 recv (waiting since before the move): {got}')
        ok &= p1.do('send 127.0.0.1 %d from-A' % B, 'ok')
        ok &= p2.do('recv', 'got from-A from %d' % A)
        # a third, whose socket was made per process before rdsd ran
        ok &= p3.do('bind 127.0.0.1 %d' % C, 'ok')
        ok &= p3.do('send 127.0.0.1 %d C-to-A' % A, 'ok')
        ok &= p1.do('recv', 'got C-to-A from %d' % C)
        ok &= p1.do('send 127.0.0.1 %d A-to-C' % C, 'ok')
        ok &= p3.do('recv', 'got A-to-C from %d' % A)
        ok &= p3.do('send 127.0.0.1 %d C-to-B' % B, 'ok')
        ok &= p2.do('recv', 'got C-to-B from %d' % C)
        ok &= p2.do('send 127.0.0.1 %d B-to-C' % C, 'ok')
        ok &= p3.do('recv', 'got B-to-C from %d' % B)
        ok &= p1.do('name', 'name 127.0.0.1 %d' % A)

        # exec, per process until then
        name4 = name + '-exec'
        env4 = dict(env, RDSD_NAME=name4)
        p4 = Peer(run, 'P4', env4)
        peers.append(p4)
        ok &= p4.do('socket', 'ok') & p4.do('bind 127.0.0.2 %d' % E, 'ok')
        p5 = Peer(run, 'P5', env4)
        peers.append(p5)
        ok &= p5.do('socket', 'ok') & p5.do('bind 127.0.0.3 %d' % A, 'ok')
        ok &= p5.do('epoll', 'ok')
        p5.ask('pwait')
        ok &= p4.do('send 127.0.0.2 %d before-exec' % E, 'ok')
        ok &= p4.do('recv', 'got before-exec from %d' % E)
        check(not listening(name4), 'P4 is per process before its exec')
        ok &= p4.do('exec', 'ready')
        ok &= p4.do('name', 'name 127.0.0.2 %d' % E)
        ok &= p4.do('send 127.0.0.2 %d after-exec' % E, 'ok')
        ok &= p4.do('recv', 'got after-exec from %d' % E)
        # rdsd runs now (P4's exec started it); P5 still holds 127.0.0.3
        # per process: P6's socket is rdsd's, and rdsd's bind of that
        # address asks P5 to move
        check(listening(name4), 'rdsd runs after the exec')
        p6 = Peer(run, 'P6', env4)
        peers.append(p6)
        ok &= p6.do('socket', 'ok') & p6.do('bind 127.0.0.3 %d' % B, 'ok')
        ok &= p6.do('send 127.0.0.3 %d F-to-E' % A, 'ok')
        got = p5.answer()
        check(got == 'got F-to-E from %d' % B, f'P5 pwait (in poll since before the move): {got}')
        ok &= p5.do('send 127.0.0.3 %d E-to-F' % B, 'ok')
        ok &= p6.do('recv', 'got E-to-F from %d' % A)
        ok &= p6.do('send 127.0.0.3 %d F-to-E2' % A, 'ok')
        ok &= p5.do('ewait', 'got F-to-E2 from %d' % B)
    finally:
        for p in peers:
            p.stop()
    print('all passed' if ok else 'FAILED', flush=True)
    return 0 if ok else 1


if __name__ == '__main__':
    if len(sys.argv) >= 2 and sys.argv[1] == '--peer':
        sys.exit(peer(int(sys.argv[2]) if len(sys.argv) > 2 else None) or 0)
    sys.exit(driver(sys.argv[1]))
