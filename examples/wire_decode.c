// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * wire_decode.c - decode a sample with libwire and explain it: the README's
 * demo until rdsdump exists, and the smallest complete use of the codec.
 *
 *   wire_decode [-c CHUNK] FILE.hex
 *
 * FILE.hex is hex text; '#' starts a comment. A line "# wire: KIND [ARG]"
 * says what the bytes are:
 *   tcp-stream        one direction of an RDS/TCP connection
 *   ib-pd 4|6         RDS CM private data (IPv4 or IPv6 variant)
 *   netlink           a datagram of RDMA netlink local-service messages
 * -c feeds a TCP stream to the deframer CHUNK bytes at a time (default: all).
 * Exit: 0 decoded (rule findings included), 1 the bytes could not be
 * decoded, 2 usage or file error.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

#define MAX_SAMPLE (4u << 20)

struct sample {
	char kind[32];
	int arg;
	uint8_t *bytes;
	size_t len;
};

static int load(const char *path, struct sample *s)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int hi = -1;

	if (!f) {
		perror(path);
		return -1;
	}
	memset(s, 0, sizeof(*s));
	s->bytes = malloc(MAX_SAMPLE);
	if (!s->bytes) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');

		if (hash) {
			sscanf(hash, "# wire: %31s %d", s->kind, &s->arg);
			*hash = '\0';
		}
		for (char *p = line; *p; p++) {
			int v = wire_hex_value((unsigned char)*p);

			if (v < 0) {
				if (!isspace((unsigned char)*p)) {
					fprintf(stderr, "%s: not hex: '%c'\n", path, *p);
					goto bad;
				}
				continue;
			}
			if (hi < 0) {
				hi = v;
				continue;
			}
			if (s->len == MAX_SAMPLE) {
				fprintf(stderr, "%s: larger than %u bytes\n", path, MAX_SAMPLE);
				goto bad;
			}
			s->bytes[s->len++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	fclose(f);
	if (hi >= 0) {
		fprintf(stderr, "%s: odd number of hex digits\n", path);
		free(s->bytes);
		return -1;
	}
	if (!s->kind[0]) {
		fprintf(stderr, "%s: no '# wire: KIND' line\n", path);
		free(s->bytes);
		return -1;
	}
	return 0;
bad:
	fclose(f);
	free(s->bytes);
	return -1;
}

static void print_rules(const struct wire_rules *r)
{
	static const char *const sev[] = { "info", "warn", "error" };
	unsigned pos = 0;
	enum wire_rule id;

	while (wire_rules_next(r, &pos, &id)) {
		const struct wire_rule_info *ri = wire_rule_info(id);

		printf("          ! %s (%s): %s\n", ri->name, sev[ri->sev], ri->text);
	}
}

static void print_exts(const struct wire_hdr *h)
{
	struct wire_exts x;

	wire_exts_decode(&x, h->ext, WIRE_KVER_7);
	for (unsigned i = 0; i < x.count; i++) {
		const struct wire_ext *e = &x.e[i];
		const char *n = wire_ext_name(e->type);

		switch (e->type) {
		case WIRE_EXT_NPATHS:
			printf(" NPATHS=%u", e->u.npaths);
			break;
		case WIRE_EXT_GEN_NUM:
			printf(" GEN_NUM=0x%08" PRIx32, e->u.gen_num);
			break;
		case WIRE_EXT_RDMA:
			printf(" RDMA rkey=0x%08" PRIx32, e->u.rdma_rkey);
			break;
		case WIRE_EXT_RDMA_DEST:
			printf(" RDMA_DEST rkey=0x%08" PRIx32 " offset=%" PRIu32,
			       e->u.rdma_dest.rkey, e->u.rdma_dest.offset);
			break;
		default:
			printf(" %s", n ? n : "?");
			if (!n)
				printf("(%u)", e->type);
			break;
		}
	}
}

struct tcp_state {
	struct wire_cong_map map;   /* the sender's last map, to show changes */
	bool have_map;
	unsigned kinds[WIRE_KIND__COUNT];
	unsigned findings;
};

static void show_frame(struct tcp_state *st, const struct wire_frame *f)
{
	enum wire_kind k = wire_classify(&f->hdr, WIRE_XPORT_TCP);
	struct wire_rules r;
	char flags[128];

	wire_rules_clear(&r);
	wire_hdr_check(&f->hdr, WIRE_XPORT_TCP, NULL, &r);
	wire_msg_check(&f->hdr, WIRE_XPORT_TCP, WIRE_KVER_7, &r);
	wire_flags_str(f->hdr.flags, flags, sizeof(flags));
	st->kinds[k]++;
	printf("%8" PRIu64 "  %-10s seq %-4" PRIu64 " %5u -> %-5u len %-7u [%s]",
	       f->offset, wire_kind_name(k), f->hdr.seq, f->hdr.sport, f->hdr.dport,
	       f->len, flags);
	print_exts(&f->hdr);
	if (k == WIRE_KIND_CONG && f->len == WIRE_CONG_MAP_BYTES) {
		struct wire_cong_map m;
		struct wire_port_range pr;
		uint32_t pos = 0;
		int n = 0;

		wire_cong_decode(&m, f->payload, f->len);
		if (!st->have_map)
			wire_cong_clear_all(&st->map);
		while (wire_cong_diff_next(&st->map, &m, &pos, &pr) == 1) {
			if (pr.first == pr.last)
				printf("%s port %u %s", n++ ? "," : " :", pr.first,
				       pr.congested ? "congested" : "free");
			else
				printf("%s ports %u-%u %s", n++ ? "," : " :", pr.first, pr.last,
				       pr.congested ? "congested" : "free");
		}
		if (!n)
			printf(" : %zu ports congested, no change", wire_cong_count(&m));
		st->map = m;
		st->have_map = true;
	}
	printf("\n");
	st->findings += (unsigned)wire_rules_count(&r);
	print_rules(&r);
}

static int decode_tcp(const struct sample *s, size_t chunk)
{
	static uint8_t gather[WIRE_MAX_MSG_LEN];
	struct tcp_state st = { 0 };
	struct wire_deframer d;
	size_t pos = 0;

	wire_deframer_init(&d, 0, gather, sizeof(gather));
	printf("  offset  kind       seq  sport -> dport len     [flags] extensions\n");
	while (pos < s->len) {
		size_t n = chunk && chunk < s->len - pos ? chunk : s->len - pos;
		size_t done = 0;

		while (done < n) {
			struct wire_frame f;
			bool ready;
			ssize_t used = wire_deframer_input(&d, s->bytes + pos + done, n - done,
							   &f, &ready);

			if (used < 0) {
				const struct wire_hdr *h = wire_deframer_hdr(&d);

				printf("%8" PRIu64 "  stream refused: %s (h_len %" PRIu32 ")\n",
				       d.msg_offset, wire_strerror((int)used), h->len);
				if (used == WIRE_ERR_TOOBIG) {
					struct wire_rules r;

					wire_rules_clear(&r);
					wire_rules_add(&r, WIRE_RULE_HDR_LEN_MAX);
					print_rules(&r);
				}
				return 1;
			}
			done += (size_t)used;
			if (ready)
				show_frame(&st, &f);
		}
		pos += n;
	}
	if (wire_deframer_pending(&d))
		printf("%8" PRIu64 "  truncated: the stream ends inside a message\n",
		       d.msg_offset);
	printf("  %zu bytes:", s->len);
	for (int k = 0; k < WIRE_KIND__COUNT; k++)
		if (st.kinds[k])
			printf(" %s %u", wire_kind_name((enum wire_kind)k), st.kinds[k]);
	printf("; %u rule findings\n", st.findings);
	return 0;
}

static void print_addr(int family, const uint8_t *a)
{
	if (family == 4) {
		printf("%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
		return;
	}
	for (int i = 0; i < 16; i += 2)
		printf("%s%x", i ? ":" : "", a[i] << 8 | a[i + 1]);
}

static int decode_ibpd(const struct sample *s)
{
	struct wire_ibpd pd;
	ssize_t rc = wire_ibpd_decode(&pd, s->arg, s->bytes, s->len);
	uint16_t v;

	if (rc < 0) {
		printf("  private data: %s\n", wire_strerror((int)rc));
		return 1;
	}
	printf("  IPv%d private data, %zd bytes: ", pd.family, rc);
	print_addr(pd.family, pd.saddr);
	printf(" -> ");
	print_addr(pd.family, pd.daddr);
	printf("\n  proposes %u.%u, minor mask 0x%04x, tos %u, ack_seq %" PRIu64
	       ", credit %" PRIu32 "\n", pd.major, pd.minor, pd.minor_mask, pd.tos,
	       pd.ack_seq, pd.credit);
	v = wire_ib_negotiate(s->bytes, s->len, s->arg);
	if (v)
		printf("  a kernel on the passive side settles on %u.%u\n", v >> 8, v & 0xff);
	else
		printf("  a kernel on the passive side rejects it (RDS_RDMA_REJ_INCOMPAT)\n");
	print_rules(&pd.rules);
	return 0;
}

static int decode_netlink(const struct sample *s)
{
	size_t pos = 0;

	while (pos < s->len) {
		struct wire_nl_ls m;
		ssize_t rc = wire_nl_decode(&m, s->bytes + pos, s->len - pos);
		const char *op;

		if (rc < 0) {
			printf("  at %zu: %s\n", pos, wire_strerror((int)rc));
			return 1;
		}
		op = wire_nl_op_name(m.op);
		printf("  %s %s seq %" PRIu32 "%s", op ? op : "?",
		       m.is_request ? "request" : "response", m.nl_seq,
		       m.is_err ? " ERROR" : "");
		if (m.has_resolve_hdr)
			printf(" dev %s port %u", m.device_name, m.port_num);
		for (unsigned a = 1; a < WIRE_NL_LS_ATTR_MAX; a++)
			if (m.present[a])
				printf(" %s%s", wire_nl_attr_name(a), m.mandatory[a] ? "!" : "");
		if (m.npaths)
			printf(" (%u path records)", m.npaths);
		printf("\n");
		print_rules(&m.rules);
		if (rc == 0)
			break;
		pos += (size_t)rc;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sample s;
	size_t chunk = 0;
	int argi = 1, rc;

	if (argc == 4 && !strcmp(argv[1], "-c")) {
		chunk = strtoul(argv[2], NULL, 0);
		argi = 3;
	}
	if (argi != argc - 1 || !strcmp(argv[argi], "-h") || !strcmp(argv[argi], "--help")) {
		fprintf(stderr, "usage: wire_decode [-c CHUNK] FILE.hex\n");
		return 2;
	}
	if (load(argv[argi], &s) != 0)
		return 2;
	printf("== %s: %s, %zu bytes%s\n", argv[argi], s.kind, s.len,
	       chunk ? " (fed in small chunks)" : "");
	if (!strcmp(s.kind, "tcp-stream"))
		rc = decode_tcp(&s, chunk);
	else if (!strcmp(s.kind, "ib-pd"))
		rc = decode_ibpd(&s);
	else if (!strcmp(s.kind, "netlink"))
		rc = decode_netlink(&s);
	else {
		fprintf(stderr, "%s: unknown kind '%s'\n", argv[argi], s.kind);
		rc = 2;
	}
	free(s.bytes);
	return rc;
}
