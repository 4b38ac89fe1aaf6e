// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fld.c - the one loop that reads and writes a record described by a
 * struct wire_fld table (fld.h).
 */
#include <string.h>

#include "fld.h"

/* ::ffff:0:0/96, the prefix of an IPv4 address in the 16-byte form. */
static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

/* The wire's bytes of an address in the IPv4 layout. */
#define V4_LEN 4

/*
 * The member byte that holds bits 8i..8i+7 of an |n|-byte host integer.
 * A BE member is at most 8 bytes (fld.h); wider ones go no further.
 */
static size_t host_byte(size_t i, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	(void)n;
	return i;
#else
	return n - 1 - i;
#endif
}

static uint64_t host_load(const uint8_t *m, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && i < sizeof(v); i++)
		v |= (uint64_t)m[host_byte(i, n)] << 8 * i;
	return v;
}

static void host_store(uint8_t *m, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n && i < sizeof(v); i++)
		m[host_byte(i, n)] = (uint8_t)(v >> 8 * i);
}

static bool rd_name(struct wire_rd *rd, char *out, size_t size)
{
	uint8_t n = wire_rd_u8(rd);
	const uint8_t *p = wire_rd_take(rd, size - 1);

	memset(out, 0, size);
	if (!p || n > size - 1 || memchr(p, 0, n))
		return false;
	memcpy(out, p, n);
	return true;
}

/* Whether row |f| is a field of record |tag| in the layout |v6| picks. */
static bool fld_in(const struct wire_fld *f, unsigned tag, bool v6)
{
	return f->tag == tag && !(v6 && f->v4_only);
}

/* Where in the member the field's wire bytes go (*at) and how many (return). */
static size_t fld_span(const struct wire_fld *f, bool v6, size_t *at)
{
	*at = 0;
	switch ((enum wire_fld_kind)f->kind) {
	case WIRE_FLD_TEXT:
	case WIRE_FLD_NAME:
		return f->size - 1u;
	case WIRE_FLD_MAPPED:
		if (!v6)
			*at = sizeof(v4_mapped);
		return v6 ? f->size : V4_LEN;
	case WIRE_FLD_PREFIX:
		return v6 ? f->size : V4_LEN;
	case WIRE_FLD_BE:
		return f->bytes ? f->bytes : f->size;
	default:
		return f->size;
	}
}

/* |room| bytes after the length byte; the caller has checked for the NUL. */
static void wr_name(struct wire_wr *wr, const char *name, size_t room)
{
	size_t len = strlen(name);

	wire_wr_u8(wr, (uint8_t)len);
	wire_wr_bytes(wr, name, len);
	wire_wr_zero(wr, room - len);
}

bool wire_fld_read(struct wire_rd *rd, const struct wire_fld *f, size_t n, unsigned tag,
		   void *obj, bool v6)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t *m = (uint8_t *)obj + f[i].off;
		size_t at, len;

		if (!fld_in(&f[i], tag, v6))
			continue;
		if (f[i].kind == WIRE_FLD_NAME) {
			if (!rd_name(rd, (char *)m, f[i].size))
				return false;
			continue;
		}
		len = fld_span(&f[i], v6, &at);
		if (f[i].kind == WIRE_FLD_BE) {
			host_store(m, f[i].size, wire_rd_be(rd, len));
			continue;
		}
		if (f[i].kind == WIRE_FLD_MAPPED && !v6)
			memcpy(m, v4_mapped, sizeof(v4_mapped));
		wire_rd_copy(rd, m + at, len);
		if (f[i].kind == WIRE_FLD_TEXT)
			m[len] = '\0';
	}
	return true;
}

/*
 * Whether |m| can be written as field |f|. An unconnected socket has no
 * peer: the IPv6 lists say ::, the IPv4 ones 0.0.0.0, so both zero forms
 * fit the IPv4 layout.
 */
static bool fld_fits(const struct wire_fld *f, const uint8_t *m, bool v6)
{
	static const uint8_t zero[sizeof(v4_mapped)];

	switch ((enum wire_fld_kind)f->kind) {
	case WIRE_FLD_NAME:
		return memchr(m, 0, f->size) != NULL;
	case WIRE_FLD_MAPPED:
		return v6 || !memcmp(m, v4_mapped, sizeof(v4_mapped)) ||
		       !memcmp(m, zero, sizeof(zero));
	default:
		return true;
	}
}

bool wire_fld_write(struct wire_wr *wr, const struct wire_fld *f, size_t n, unsigned tag,
		    const void *obj, bool v6)
{
	const uint8_t *base = obj;

	for (size_t i = 0; i < n; i++)
		if (fld_in(&f[i], tag, v6) && !fld_fits(&f[i], base + f[i].off, v6))
			return false;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *m = base + f[i].off;
		size_t at, len;

		if (!fld_in(&f[i], tag, v6))
			continue;
		len = fld_span(&f[i], v6, &at);
		if (f[i].kind == WIRE_FLD_NAME) {
			wr_name(wr, (const char *)m, len);
			continue;
		}
		if (f[i].kind == WIRE_FLD_BE)
			wire_wr_be(wr, host_load(m, f[i].size), len);
		else
			wire_wr_bytes(wr, m + at, len);
	}
	return true;
}
