# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Assertions shared by the lab scenarios, over rdscap.analyse() output.
Each states a kernel fact from shared/docs/kernel-rds-facts.md; a failure
means the kernel did something else, which docs/kernel-behaviour.md must
then record."""


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
