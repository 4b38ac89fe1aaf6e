// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_pkt.c - every link type over arbitrary bytes and snap lengths: the
 * pointers handed back stay inside the input, a shorter capture of the same
 * frame never yields more, and RDS-carrying payloads go on to the codecs.
 * A fragment's data (wire_ipfrag_decode) lies inside the input, starts on
 * an 8-byte boundary, ends within 65535 bytes and, with more to come, is a
 * non-empty multiple of 8. */
#include <stdlib.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int links[] = {
	WIRE_LINK_ETHERNET, WIRE_LINK_RAW, WIRE_LINK_LINUX_SLL, WIRE_LINK_IPV4,
	WIRE_LINK_IPV6, WIRE_LINK_NETLINK, WIRE_LINK_LINUX_SLL2, WIRE_LINK_INFINIBAND,
};

static void inside(const uint8_t *p, size_t n, const uint8_t *data, size_t size)
{
	if (p && (p < data || p + n > data + size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_pkt p, q;
	size_t cut;
	int lt, rc;

	if (size < 2)
		return 0;
	lt = links[data[0] % (sizeof(links) / sizeof(links[0]))];
	cut = data[1];
	data += 2;
	size -= 2;
	rc = wire_pkt_decode(&p, lt, data, size, size);
	if (p.ip_fragment) {
		struct wire_ipfrag f;

		if (wire_ipfrag_decode(&f, &p) == 0) {
			inside(f.hdr, f.hdr_len, data, size);
			inside(f.data, f.data_len, data, size);
			if ((f.offset & 7) || f.offset + f.data_len > 65535 ||
			    (f.more && (!f.data_len || (f.data_len & 7))) ||
			    (f.data_len && !f.data))
				abort();
		}
	}
	if (rc < 0)
		return 0;
	inside(p.payload, p.payload_caplen, data, size);
	inside(p.l3_hdr, p.l3_caplen, data, size);
	if (p.payload_caplen > p.payload_len)
		abort();
	/* The same frame cut shorter: truncated headers or less payload. */
	if (cut < size) {
		int rc2 = wire_pkt_decode(&q, lt, data, size - cut, size);

		if (rc2 == 0 && (q.l4 != p.l4 || q.payload_caplen > p.payload_caplen ||
				 q.payload_len != p.payload_len))
			abort();
		if (rc2 < 0 && rc2 != WIRE_ERR_TRUNC)
			abort();
	}
	if (p.l4 == WIRE_L4_UDP && p.dport == WIRE_ROCE_UDP_PORT && p.l3_hdr) {
		struct wire_roce r;

		wire_roce_decode(&r, p.l3_hdr, p.l3_caplen, p.l3_len);
	}
	if (p.l3 == WIRE_L3_IB) {
		struct wire_roce r;

		wire_ib_decode(&r, p.l3_hdr, p.l3_caplen, p.l3_len);
	}
	if (p.l3 == WIRE_L3_NETLINK) {
		struct wire_nl_ls m;

		wire_nl_decode(&m, p.payload, p.payload_caplen);
	}
	return 0;
}
