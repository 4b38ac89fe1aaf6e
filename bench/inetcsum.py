# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The Internet checksum (RFC 1071) the capture generators beside this
file put in their IP and TCP headers."""
import struct


def csum(b):
    """One's complement of the one's-complement sum of |b|'s big-endian
    16-bit words, an odd last byte padded with zero."""
    if len(b) & 1:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF
