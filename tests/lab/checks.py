# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Assertions shared by the lab scenarios, over rdscap.analyse() output.
Each states a kernel fact from docs/kernel-behaviour.md; a failure
means the kernel did something else, which docs/kernel-behaviour.md must
then record."""

# The two guests' addresses: the smaller one connects (the larger only
# kicks a connection when it speaks first).
SMALL, LARGE = "10.199.0.2", "10.199.0.3"


def directions(c):
    """(sender address, messages) for both directions of a connection."""
    return ((c["client"], c["c2s"]), (c["server"], c["s2c"]))


def check_tcp_fields(c):
    """On TCP, h_ack, h_credit, h_csum and padding are 0 and only
    CONG_BITMAP or RETRANSMITTED are ever set."""
    for sender, msgs in directions(c):
        for m in msgs:
            assert m["ack"] == 0 and m["credit"] == 0 and m["csum"] == 0, \
                "TCP header from %s with ack/credit/csum set: %r" % (sender, m)
            assert m["pad"] == "00000000", "non-zero padding from %s" % sender
            assert m["flags"] & ~0x05 == 0, "flags 0x%02x on TCP" % m["flags"]


def check_seq_per_path(c, strict=True):
    """Sequence numbers of sequenced messages rise by one per message on
    each path (connection), starting where the path left off; maps carry 0.
    strict=False allows gaps and repeats (reconnects, retransmissions)."""
    for sender, msgs in directions(c):
        prev = None
        for m in msgs:
            if m["kind"] == "cong":
                assert m["seq"] == 0, "map with seq %d" % m["seq"]
                continue
            assert m["seq"] > 0, "sequenced message with seq 0 from %s" % sender
            if prev is not None and strict:
                assert m["seq"] == prev + 1, \
                    "seq %d after %d from %s" % (m["seq"], prev, sender)
            prev = m["seq"]


def probes(conns):
    return [m for c in conns for _, msgs in directions(c) for m in msgs
            if m["kind"] in ("probe-ping", "probe-pong")]


def check_probe(conns, kernel):
    """6.1 probes carry only NPATHS=8 (GEN_NUM is lost to the one-extension
    rule); 7.2 probes carry NPATHS=8, a non-zero GEN_NUM and SPORT_IDX."""
    ps = probes(conns)
    assert ps, "no probe ping or pong in the capture"
    for p in ps:
        types = [e["type"] for e in p["ext"]]
        assert p["len"] == 0, "probe with payload"
        if kernel == "6.1":
            assert types == [5] and p["ext"][0]["npaths"] == 8, \
                "6.1 probe exthdr %s" % p["exthdr"]
        else:
            assert types == [5, 6, 8], "7.2 probe exthdr %s" % p["exthdr"]
            assert p["ext"][0]["npaths"] == 8 and p["ext"][1]["gen_num"] != 0, p["exthdr"]


def main_path(conns, client):
    """The first connection from |client| that carried RDS messages."""
    for c in conns:
        if c["client"] == client and (c["c2s"] or c["s2c"]):
            return c
    raise AssertionError("no connection from %s carried messages" % client)


def msgs_of(conns, sender, kind):
    """All messages of |kind| sent by |sender|, in capture order per path."""
    out = []
    for c in conns:
        for s, msgs in directions(c):
            if s == sender:
                out += [m for m in msgs if m["kind"] == kind]
    out.sort(key=lambda m: (m["time"] or 0))
    return out


# --------------------------------------------------------------------------
# RDS over IB (RoCEv2), over rdscap's ib_frames. Added for ib_basic.
# --------------------------------------------------------------------------

ROCE_SEND_FIRST, ROCE_SEND_MIDDLE, ROCE_SEND_LAST, ROCE_SEND_ONLY = 0, 1, 2, 4


def ib_group_messages(frames):
    """Join IB frames into messages per direction by their repeated header
    (seq, ack, len, ports, flags), not by byte count, so a message that lost
    packets in the capture does not swallow the next one. ACK-only frames
    are messages of their own. Each message: dict(first frame's header,
    frames=[...], src, dst)."""
    msgs, cur = [], {}
    for f in frames:
        if "runt" in f:
            raise AssertionError("runt IB frame (%d bytes) from %s" % (f["runt"], f["src"]))
        d = (f["src"], f["dst"])
        if f["kind"] == "ack":
            msgs.append(dict(f, frames=[f]))
            continue
        key = (f["seq"], f["ack"], f["len"], f["sport"], f["dport"], f["flags"])
        c = cur.get(d)
        if c is not None and (c["key"] != key or c["got"] >= c["len"]):
            del cur[d]
            c = None
        if c is None:
            c = cur[d] = dict(f, frames=[], got=0, key=key)
            msgs.append(c)
        c["frames"].append(f)
        c["got"] += f["frag_len"]
    for m in msgs:
        if m["kind"] == "cong":
            m["congested"] = [p + i * 4096 * 8 for i, f in enumerate(m["frames"])
                              for p in f["cong_bits"]]
    return msgs


def ib_frame_packets_ok(f, final, mtu=1024):
    """The RoCE packets of one IB frame (48-byte header + fragment) as an RC
    SEND: ONLY when it fits the path MTU, else FIRST, MIDDLE..., LAST with
    every packet but the last full; solicited event only on the last packet
    of a message's final frame (final None: not known). Returns an error
    string or None."""
    total = 48 + f["frag_len"]
    n = max(1, -(-total // mtu))
    want = [ROCE_SEND_ONLY] if n == 1 else \
        [ROCE_SEND_FIRST] + [ROCE_SEND_MIDDLE] * (n - 2) + [ROCE_SEND_LAST]
    if f["opcodes"] != want:
        return "opcodes %s for %d bytes, want %s" % (f["opcodes"], total, want)
    if f["pkt_lens"] != [mtu] * (n - 1) + [total - mtu * (n - 1)]:
        return "packet sizes %s for %d bytes" % (f["pkt_lens"], total)
    if final is None:           # unknown (the capture lost the rest)
        final = f["se"][-1] == 1
    if f["se"] != [0] * (n - 1) + [1 if final else 0]:
        return "solicited-event bits %s (final fragment: %s)" % (f["se"], final)
    return None


def split_rejected(conns, kernel):
    """6.1's acceptor maps a new connection to the first DOWN path slot and
    refuses it when none is free yet (rds_tcp_accept_one_path): the client
    sees an established connection closed by the server (FIN, often RST)
    with no RDS byte either way, and connects again. Returns (kept,
    rejected); asserts that rejections have exactly that shape and occur
    only on 6.1 (7.2 stashes such a connection instead of refusing it)."""
    rejected = [c for c in conns if c["established"] and not c["c2s"] and not c["s2c"]
                and (c["s2c_rst"] or c["s2c_fin"]) and c["c2s_tail"] == 0
                and c["s2c_tail"] == 0]
    if kernel != "6.1":
        assert not rejected, "7.2 refused a path: %r" % [c["client_port"] for c in rejected]
    return [c for c in conns if c not in rejected], rejected
