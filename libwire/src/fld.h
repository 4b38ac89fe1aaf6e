/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * fld.h - a fixed record layout said once, as a table of the host struct's
 * members in wire order, and read or written by one loop. Internal.
 *
 * Without it a decoder and its encoder spell the same layout twice, once as
 * reads and once as writes; the table is the layout (Wireshark's field
 * table, ethtool's one args[] for parsing and help). Bytes still go
 * through rd.h and wr.h only, so every bounds rule holds unchanged.
 */
#ifndef WIRE_FLD_H
#define WIRE_FLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rd.h"
#include "wr.h"

enum wire_fld_kind {
	WIRE_FLD_BE,    /* unsigned integer, big-endian, as wide as the member (<= 8) */
	WIRE_FLD_HE,    /* unsigned integer in host order (RDS_INFO) */
	WIRE_FLD_BYTES, /* opaque, as many as the member holds */
	WIRE_FLD_TEXT,  /* char[n + 1]: n bytes, the NUL added on decode */
	WIRE_FLD_NAME,  /* char[n + 1]: a length byte, then n bytes zero padded */
	/* 16-byte address members; in the IPv4 layout 4 bytes on the wire, */
	WIRE_FLD_MAPPED, /* ... kept as ::ffff:a.b.c.d (RDS_INFO) */
	WIRE_FLD_PREFIX, /* ... kept in the member's first 4 bytes (IB private data) */
};

struct wire_fld {
	uint16_t tag;   /* which record of a table's several the field is in */
	uint8_t kind;
	bool v4_only;   /* absent from the IPv6 layout */
	uint16_t off;
	uint16_t size;  /* of the member */
	uint8_t bytes;  /* BE: on the wire, when fewer than the member's (0: as many) */
};

#define WIRE_FLD_OF(tag, type, member, kind, v4_only) \
	{ (tag), (kind), (v4_only), offsetof(type, member), sizeof(((type *)0)->member), 0 }
/* A big-endian integer of |bytes| on the wire in a wider member (24 bits in 32). */
#define WIRE_FLD_BE_IN(tag, type, member, bytes) \
	{ (tag), WIRE_FLD_BE, false, offsetof(type, member), sizeof(((type *)0)->member), (bytes) }

#define WIRE_FLD_N(table) (sizeof(table) / sizeof((table)[0]))

/*
 * Reads the rows of |f| (|n| of them) tagged |tag| from |rd| into |obj|,
 * in the IPv6 layout if |v6|. Past a short read the fields are zero and
 * |rd| is short, as with the single reads. Return: false, at once, on a
 * NAME longer than its room or with a NUL inside; true otherwise.
 */
bool wire_fld_read(struct wire_rd *rd, const struct wire_fld *f, size_t n, unsigned tag,
		   void *obj, bool v6);

/*
 * Writes the rows of |f| tagged |tag| from |obj| to |wr|. Return: false,
 * having written nothing, if a member holds what its field cannot say (a
 * NAME without a NUL, an address other than IPv4-mapped or zero in a
 * MAPPED field of the IPv4 layout); true otherwise (|wr| tells whether it
 * all fitted).
 */
bool wire_fld_write(struct wire_wr *wr, const struct wire_fld *f, size_t n, unsigned tag,
		    const void *obj, bool v6);

#endif /* WIRE_FLD_H */
