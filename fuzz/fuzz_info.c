// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_info.c - RDS_INFO item lists. The first byte picks the option
 * number (including ones with no layout), the rest is what getsockopt
 * returned. A list of whole items must walk item by item, each item must
 * re-encode to exactly its bytes, and every shorter prefix of an item is
 * TRUNC; a length that is no multiple of the item size is MALFORMED. The
 * getsockopt answer is checked against its contract on fuzz-chosen sizes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_answer(const uint8_t *data, size_t size)
{
	size_t count = 0, item = 0, buflen = 0, optlen = 0;
	int r;

	if (size < 6)
		return;
	count = (size_t)data[0] << 8 | data[1];
	item = data[2];
	buflen = (size_t)data[3] << 16 | (size_t)data[4] << 8 | data[5];
	r = wire_info_answer(count, item, buflen, &optlen);
	if (!item) {
		if (r != -ENOPROTOOPT)
			abort();
		return;
	}
	if (optlen != count * item)
		abort();
	if (optlen > buflen ? r != -ENOSPC : r != (int)item)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t out[WIRE_INFO_ITEM_MAX];
	struct wire_info_item it;
	struct wire_info_iter iter;
	unsigned opt;
	size_t isize, n = 0;
	ssize_t count;
	int r;

	if (size < 1)
		return 0;
	check_answer(data + 1, size - 1);
	opt = WIRE_INFO_FIRST + data[0] % 20;
	data++;
	size--;
	isize = wire_info_item_size(opt);

	count = wire_info_iter_init(&iter, opt, data, size);
	if (!isize) {
		if (count != WIRE_ERR_UNSUPP ||
		    wire_info_decode(&it, opt, data, size) != WIRE_ERR_UNSUPP)
			abort();
		return 0;
	}
	if (isize > sizeof(out))
		abort();
	if (size % isize) {
		if (count != WIRE_ERR_MALFORMED)
			abort();
	} else if (count != (ssize_t)(size / isize)) {
		abort();
	}

	if (count >= 0) {
		while ((r = wire_info_next(&iter, &it)) == 1) {
			const uint8_t *item = data + n * isize;

			if (it.opt != opt || it.kind != wire_info_opt_kind(opt) ||
			    it.family != wire_info_opt_family(opt))
				abort();
			if (wire_info_encode(&it, out, sizeof(out)) != (ssize_t)isize ||
			    memcmp(out, item, isize) != 0)
				abort();
			if (wire_info_encode(&it, out, isize - 1) != WIRE_ERR_NOSPACE)
				abort();
			n++;
		}
		if (r != 0 || n != (size_t)count)
			abort();
	}

	/* one item from the front, whatever the length */
	r = (int)wire_info_decode(&it, opt, data, size);
	if (size < isize) {
		if (r != WIRE_ERR_TRUNC)
			abort();
	} else if (r != (int)isize ||
		   wire_info_encode(&it, out, sizeof(out)) != (ssize_t)isize ||
		   memcmp(out, data, isize) != 0) {
		abort();
	}
	return 0;
}
