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
  exec, execlp      exec this program again with the socket kept (not
                    close-on-exec), by os.execv (C's execv) or C's
                    execlp: the new image goes on with it and answers
                    "ready"
  name              getsockname: "name ADDR PORT"
  two A1 A2 PORT    two more sockets, on A1:PORT and A2:PORT, a message
                    each way: "two: x0 from A1, x1 from A2"
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
  7. A holder waiting in epoll_wait is moved by a second process's bind
     and gets the message sent to it after.
  8. One process binding a second address (docs/shim.md, "One address
     per process"): it moves to rdsd, and its sockets on the two
     addresses exchange messages.
  9. exec again, by C's execlp.
"""
import ctypes
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
            elif w[0] == 'two':
                # two sockets of this process on two addresses, each
                # sending to the other
                t = [socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
                     for _ in range(2)]
                got = []
                for i in (0, 1):
                    t[i].bind((w[1 + i], int(w[3])))
                for i in (0, 1):
                    t[i].sendto(b'x%d' % i, (w[2 - i], int(w[3])))
                    data, frm = t[1 - i].recvfrom(100)
                    got.append(f'{data.decode()} from {frm[0]}')
                out = 'two: ' + ', '.join(got)
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
            elif w[0] in ('exec', 'execlp'):
                s.set_inheritable(True)
                sys.stdout.flush()
                args = [sys.executable, __file__, '--peer', str(s.fileno())]
                if w[0] == 'exec':
                    os.execv(sys.executable, args)
                # C's variadic execlp, found as the program's own call
                # would find it (the shim's, in front of libc's)
                b = [ctypes.c_char_p(a.encode()) for a in args]
                ctypes.CDLL(None, use_errno=True).execlp(b[0], *b, None)
                out = 'execlp failed'
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

    def start(pname, penv, addr=None, port=None):
        """A peer with its socket, bound to addr:port if given."""
        nonlocal ok
        p = Peer(run, pname, penv)
        peers.append(p)
        ok &= p.do('socket', 'ok')
        if addr:
            ok &= p.do(f'bind {addr} {port}', 'ok')
        return p

    def msg(addr, src, sport, dst, dport, text, wait='recv'):
        """src (bound to addr:sport) sends text to dport; dst reads it
        with wait ('recv', 'ewait'), or has been waiting (None)."""
        nonlocal ok
        ok &= src.do(f'send {addr} {dport} {text}', 'ok')
        want = f'got {text} from {sport}'
        if wait:
            ok &= dst.do(wait, want)
        else:
            got = dst.answer()
            check(got == want, f'{dst.name} (waiting since before its move): {got}')

    try:
        lo = '127.0.0.1'
        p1 = start('P1', env, lo, A)
        check(not listening(name), 'P1 is per process (no rdsd listens)')
        p3 = start('P3', env)
        # P1 waits in recv while P2 binds: the bind moves P1
        p1.ask('recv')
        p2 = start('P2', env, lo, B)
        check(listening(name), 'rdsd runs after the second bind')
        msg(lo, p2, B, p1, A, 'from-B', None)
        msg(lo, p1, A, p2, B, 'from-A')
        # a third, whose socket was made per process before rdsd ran
        ok &= p3.do(f'bind {lo} {C}', 'ok')
        for (x, xp), (y, yp) in (((p3, C), (p1, A)), ((p3, C), (p2, B))):
            msg(lo, x, xp, y, yp, f'{x.name}-to-{y.name}')
            msg(lo, y, yp, x, xp, f'{y.name}-to-{x.name}')
        ok &= p1.do('name', f'name {lo} {A}')

        # exec, per process until then
        name4 = name + '-exec'
        env4 = dict(env, RDSD_NAME=name4)
        p4 = start('P4', env4, '127.0.0.2', E)
        p5 = start('P5', env4, '127.0.0.3', A)
        ok &= p5.do('epoll', 'ok')
        p5.ask('pwait')
        msg('127.0.0.2', p4, E, p4, E, 'before-exec')
        check(not listening(name4), 'P4 is per process before its exec')
        ok &= p4.do('exec', 'ready')
        ok &= p4.do('name', f'name 127.0.0.2 {E}')
        msg('127.0.0.2', p4, E, p4, E, 'after-exec')
        # rdsd runs now (P4's exec started it); P5 still holds 127.0.0.3
        # per process: P6's socket is rdsd's, and rdsd's bind of that
        # address asks P5 to move
        check(listening(name4), 'rdsd runs after the exec')
        p6 = start('P6', env4, '127.0.0.3', B)
        msg('127.0.0.3', p6, B, p5, A, 'F-to-E', None)   # P5 in poll
        msg('127.0.0.3', p5, A, p6, B, 'E-to-F')
        msg('127.0.0.3', p6, B, p5, A, 'F-to-E2', 'ewait')
        # a holder waiting in epoll_wait when a second process (per
        # process too, rdsd of another name) moves it
        env8 = dict(env, RDSD_NAME=name + '-epoll')
        p8 = start('P8', env8, '127.0.0.5', A)
        ok &= p8.do('epoll', 'ok')
        p8.ask('ewait')
        p9 = start('P9', env8, '127.0.0.5', B)
        msg('127.0.0.5', p9, B, p8, A, 'to-epoll', None)
        msg('127.0.0.5', p8, A, p9, B, 'from-epoll')
        # one process, two addresses: its endpoint serves one
        env10 = dict(env, RDSD_NAME=name + '-two')
        p10 = start('P10', env10, '127.0.0.6', C)
        check(not listening(name + '-two'), 'P10 is per process')
        ok &= p10.do(f'two 127.0.0.6 127.0.0.7 {E}',
                     'two: x0 from 127.0.0.6, x1 from 127.0.0.7')
        check(listening(name + '-two'), 'rdsd runs after the bind to a second address')
        # exec by C's execlp, per process until then
        env7 = dict(env, RDSD_NAME=name + '-execlp')
        p7 = start('P7', env7, '127.0.0.4', E)
        ok &= p7.do('execlp', 'ready')
        ok &= p7.do('name', f'name 127.0.0.4 {E}')
        msg('127.0.0.4', p7, E, p7, E, 'after-execlp')
    finally:
        for p in peers:
            p.stop()
    print('all passed' if ok else 'FAILED', flush=True)
    return 0 if ok else 1


if __name__ == '__main__':
    if len(sys.argv) >= 2 and sys.argv[1] == '--peer':
        sys.exit(peer(int(sys.argv[2]) if len(sys.argv) > 2 else None) or 0)
    sys.exit(driver(sys.argv[1]))
