// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * craft.c - rds-conform craft: options (argp), payload files, the socket
 * to the peer, the capture and the printing around the pure builder in
 * craft_msg.c.
 *
 * What the peer sends back is untrusted: it is framed by wire_deframer in
 * prefix mode (memory bounded whatever a header claims) and described by
 * libwire only.
 */
#define _GNU_SOURCE
#include "craft.h"

#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "optdecl.h"
#include "pcapw.h"
#include "rio.h"
#include "rio_opt.h"
#include "src_opt.h"

#define PAYLOAD_MAX (64u << 20)  /* a payload option's limit: well past 1 MiB */
#define COUNT_MAX 1000000
#define CONNECT_MS 5000

enum {
	OPT_SEQ = 0x100,
	OPT_ACK,
	OPT_LEN,
	OPT_SPORT,
	OPT_DPORT,
	OPT_FLAGS,
	OPT_CREDIT,
	OPT_PAD,
	OPT_CSUM,
	OPT_EXT,
	OPT_EXT_RAW,
	OPT_KIND,
	OPT_CONG_PORTS,
	OPT_KERNEL,
	OPT_KVER,
	OPT_PAYLOAD,
	OPT_PAYLOAD_TEXT,
	OPT_PAYLOAD_SIZE,
	OPT_PAYLOAD_FILE,
	OPT_TRUNCATE,
	OPT_SEQ_STEP,
	OPT_TO,
	OPT_FROM,
	OPT_PREFACE,
	OPT_WAIT,
	OPT_NO_SEND,
	OPT_IB,
	OPT_TRANSPORT,
};

struct cli {
	struct craft_msg m;
	uint8_t *payload;       /* owned */
	unsigned payload_opts;
	bool cong_ports;
	uint64_t count;
	const char *pcap;
	bool ib;
	bool hex;
	bool has_to, has_from, no_send;
	struct rdsu_addr to, from;
	uint16_t to_port, from_port;
	bool to_port_given, ib_live; /* --transport ib: sent over an RC QP */
	enum rio_trans trans;         /* --transport (default tcp) */
	long wait_ms;
};

#define C(f) OPTD_FIELD(struct cli, f)
/* a header field: given, it is marked in m.set */
#define HDR(f, bit) OPTD_FIELD(struct cli, m.f), OPTD_SEEN_BIT(struct cli, m.set, bit)

/* Every crafter option, once: --help and the parser both come from it. */
static const struct optdecl options[] = {
	{ 0, NULL, NULL, "Message:", 0, 1, .kind = OPTD_HEADER },
	{ OPT_KIND, "kind", "KIND",
	  "fill the header as a kernel does: data (default), ping, pong, probe-ping, probe-pong, "
	  "cong", 0, 1, .kind = OPTD_CUSTOM },
	{ OPT_SEQ, "seq", "N", "h_sequence (default 1; 2 with --preface; cong 0)", 0, 1, OPTD_UINT,
	  HDR(seq, CRAFT_SET_SEQ), .max = UINT64_MAX, .what = "--seq" },
	{ OPT_ACK, "ack", "N", "h_ack (default 0)", 0, 1, OPTD_UINT, HDR(ack, CRAFT_SET_ACK),
	  .max = UINT64_MAX, .what = "--ack" },
	{ OPT_LEN, "len", "N|auto", "h_len (default auto: the payload's length)", 0, 1,
	  .kind = OPTD_CUSTOM },
	{ OPT_SPORT, "sport", "PORT", "h_sport (RDS source port)", 0, 1, OPTD_UINT,
	  HDR(sport, CRAFT_SET_SPORT), .max = 65535, .what = "--sport" },
	{ OPT_DPORT, "dport", "PORT", "h_dport (RDS destination port)", 0, 1, OPTD_UINT,
	  HDR(dport, CRAFT_SET_DPORT), .max = 65535, .what = "--dport" },
	{ OPT_FLAGS, "flags", "LIST",
	  "h_flags: cong, ackreq, retrans, hbping, hbpong, ext or numbers, joined by ','", 0, 1,
	  .kind = OPTD_CUSTOM },
	{ OPT_CREDIT, "credit", "N", "h_credit (0..255)", 0, 1, OPTD_UINT,
	  HDR(credit, CRAFT_SET_CREDIT), .max = 255, .what = "--credit" },
	{ OPT_PAD, "pad", "HEX", "h_padding, 4 bytes", 0, 1, .kind = OPTD_CUSTOM },
	{ OPT_CSUM, "csum", "MODE",
	  "h_csum: zero (default, as TCP senders), auto (valid), bad (valid + 1), or N", 0, 1,
	  .kind = OPTD_CUSTOM },
	{ OPT_EXT, "ext", "TYPE=VALUE",
	  "add an extension header, as a 7.x sender does (repeatable): npaths=N, gen=N, "
	  "sport-idx[=N], version=N, rdma=KEY, rdma-dest=KEY:OFF, rdma-bytes=N[:wr|rd], "
	  "cap-bits=N, or TYPE[=HEX] for a raw type number", 0, 1, .kind = OPTD_CUSTOM },
	{ OPT_EXT_RAW, "ext-raw", "HEX", "the 16 extension bytes verbatim (zero-filled)", 0, 1,
	  .kind = OPTD_CUSTOM },
	{ OPT_CONG_PORTS, "cong-ports", "LIST",
	  "--kind cong: ports congested in the map, e.g. 4000,5000-5010", 0, 1,
	  .kind = OPTD_CUSTOM },
	{ OPT_KVER, "kver", "6|7", "--kind probe-*: the generation whose probe to send (default 7)",
	  0, 1, OPTD_ENUM, C(m.kv), .names = optdecl_kver_toks, .what = "kver" },
	{ OPT_KERNEL, "kernel", "6|7", NULL, OPTION_HIDDEN, 1, .kind = OPTD_CUSTOM },
	{ 0, NULL, NULL, "Payload (one of):", 0, 2, .kind = OPTD_HEADER },
	{ OPT_PAYLOAD, "payload", "HEX", "these bytes", 0, 2, .kind = OPTD_CUSTOM },
	{ OPT_PAYLOAD_TEXT, "payload-text", "STR", "the bytes of STR", 0, 2, .kind = OPTD_CUSTOM },
	{ OPT_PAYLOAD_SIZE, "payload-size", "N", "N bytes of the pattern 00 01 02 .. ff 00 ..", 0, 2,
	  .kind = OPTD_CUSTOM },
	{ OPT_PAYLOAD_FILE, "payload-file", "FILE", "the contents of FILE", 0, 2,
	  .kind = OPTD_CUSTOM },
	{ 0, NULL, NULL, "Repetition:", 0, 3, .kind = OPTD_HEADER },
	{ 'c', "count", "N", "send N messages (default 1)", 0, 3, OPTD_UINT, C(count), .min = 1,
	  .max = COUNT_MAX, .what = "count" },
	{ OPT_SEQ_STEP, "seq-step", "N", "add N to seq for each next message (default 1; cong 0)", 0,
	  3, OPTD_UINT, HDR(seq_step, CRAFT_SET_STEP), .max = UINT64_MAX, .what = "--seq-step" },
	{ OPT_TRUNCATE, "truncate", "N", "send only the first N bytes of each message", 0, 3,
	  OPTD_UINT, C(m.truncate), .max = SIZE_MAX, .what = "--truncate",
	  OPTD_SEEN(struct cli, m.has_truncate) },
	{ 0, NULL, NULL, "Where it goes:", 0, 4, .kind = OPTD_HEADER },
	{ 'X', "hex", NULL, "hex dump of each message (the default without --to or -w)", 0, 4,
	  OPTD_FLAG, C(hex) },
	{ 'w', "pcap", "FILE",
	  "write the message(s) as a TCP connection from --from to --to into a capture; with "
	  "--to, the real exchange", 0, 4, OPTD_STR, C(pcap) },
	{ OPT_IB, "ib", NULL,
	  "with -w: write the message(s) as RDS over RoCEv2 instead, from --from to --to: RC "
	  "SENDs on QP 0x11 (one per 4096-byte IB fragment, each with the header) at path MTU "
	  "1024, with valid ICRCs", 0, 4, OPTD_FLAG, C(ib) },
	{ OPT_TO, "to", "ADDR[:PORT]", "connect over TCP to ADDR, PORT (default 16385), and send", 0,
	  4, .kind = OPTD_CUSTOM },
	{ OPT_FROM, "from", "ADDR[:PORT]", "bind to ADDR (and PORT) before connecting", 0, 4,
	  .kind = OPTD_CUSTOM },
	{ OPT_PREFACE, "preface", NULL,
	  "send first what a kernel sends on a new connection: its congestion map and a probe "
	  "ping", 0, 4, OPTD_FLAG, C(m.preface) },
	{ OPT_WAIT, "wait", "MS", "then print what the peer sends for MS milliseconds, and whether "
	  "it closed", 0, 4, OPTD_UINT, C(wait_ms), .max = 3600 * 1000, .what = "--wait",
	  .unit = " ms" },
	{ OPT_NO_SEND, "no-send", NULL, "with --to: do not connect (for -w and -X)", 0, 4, OPTD_FLAG,
	  C(no_send) },
	{ OPT_TRANSPORT, "transport", "tcp|ib|auto",
	  "with --to: TCP (default), or IB: an RC connection to rdma_cm port 18634 (IPv6 16385) "
	  "and each message as RC SENDs of the header and up to 4096 payload bytes; auto: IB when "
	  "the address we send from is on an RDMA device", 0, 4, OPTD_ENUM, C(trans),
	  .names = rio_trans_toks, .what = "transport" },
	{ 'h', NULL, NULL, "give this help list (as -?)", 0, -1, .kind = OPTD_CUSTOM },
};

#undef HDR
#undef C

static const char doc[] =
	"rds-conform craft -- build any RDS/TCP message, right or wrong on purpose, and send "
	"it to a peer, dump it in hex or write it into a capture."
	"\vEvery header field can be set; what is not set comes from --kind. A wrong length, "
	"checksum or extension is the point: nothing is refused that fits in the field. "
	"Exit status: 0 done; 1 the connection failed or broke while sending; 2 bad options.";


static uint64_t num(struct argp_state *st, const char *opt, const char *arg, uint64_t max)
{
	char err[160];
	uint64_t v;

	if (craft_parse_num(arg, max, &v, err, sizeof(err)))
		argp_error(st, "%s: %s", opt, err);
	return v;
}

static void set_payload(struct argp_state *st, struct cli *c, uint8_t *buf, size_t len)
{
	free(c->payload);
	c->payload = buf;
	c->payload_opts++;
	c->m.has_payload = true;
	c->m.payload = buf;
	c->m.payload_len = len;
}

static uint8_t *read_file(struct argp_state *st, const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		argp_failure(st, 2, errno, "--payload-file %s", path);
	for (;;) {
		size_t r;

		if (n == cap) {
			uint8_t *nb;

			if (cap >= PAYLOAD_MAX) {
				fclose(f);
				argp_failure(st, 2, 0, "--payload-file %s: larger than %u bytes",
					     path, PAYLOAD_MAX);
			}
			cap = cap ? 2 * cap : 65536;
			nb = realloc(buf, cap);
			if (!nb)
				argp_failure(st, 2, ENOMEM, "--payload-file %s", path);
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f))
		argp_failure(st, 2, errno, "--payload-file %s", path);
	fclose(f);
	*len = n;
	return buf;
}

/* The message's header as only the crafter's own parsers read it: the
 * length or auto, flags, padding, checksum, extensions, kind, congested
 * ports (the plain numbers are in options[]). */
static error_t header_opt(int key, char *arg, struct argp_state *st)
{
	struct cli *c = st->input;
	struct craft_msg *m = &c->m;
	char err[256];
	size_t n;

	switch (key) {
	case OPT_LEN:
		if (strcmp(arg, "auto") == 0) {
			m->set &= ~(unsigned)CRAFT_SET_LEN;
		} else {
			m->len = (uint32_t)num(st, "--len", arg, UINT32_MAX);
			m->set |= CRAFT_SET_LEN;
		}
		break;
	case OPT_FLAGS:
		if (craft_parse_flags(arg, &m->flags, err, sizeof(err)))
			argp_error(st, "--flags: %s", err);
		m->set |= CRAFT_SET_FLAGS;
		break;
	case OPT_PAD:
		if (craft_parse_hex(arg, m->pad, sizeof(m->pad), &n, err, sizeof(err)))
			argp_error(st, "--pad: %s", err);
		if (n != sizeof(m->pad))
			argp_error(st, "--pad: %zu bytes, want 4", n);
		m->set |= CRAFT_SET_PAD;
		break;
	case OPT_CSUM:
		if (craft_parse_csum(arg, &m->csum, &m->csum_value, err, sizeof(err)))
			argp_error(st, "--csum: %s", err);
		break;
	case OPT_EXT:
		if (m->n_ext == CRAFT_MAX_EXTS)
			argp_error(st, "--ext: at most %d", CRAFT_MAX_EXTS);
		if (craft_parse_ext(arg, &m->ext[m->n_ext], err, sizeof(err)))
			argp_error(st, "--ext: %s", err);
		m->n_ext++;
		break;
	case OPT_EXT_RAW:
		memset(m->ext_raw, 0, sizeof(m->ext_raw));
		if (craft_parse_hex(arg, m->ext_raw, sizeof(m->ext_raw), &n, err, sizeof(err)))
			argp_error(st, "--ext-raw: %s", err);
		m->has_ext_raw = true;
		break;
	case OPT_KIND:
		if (craft_parse_kind(arg, &m->kind, err, sizeof(err)))
			argp_error(st, "--kind: %s", err);
		break;
	case OPT_CONG_PORTS:
		if (craft_parse_ports(arg, &m->cong, err, sizeof(err)))
			argp_error(st, "--cong-ports: %s", err);
		c->cong_ports = true;
		break;
	case OPT_KERNEL:
		/* --kernel means "use AF_RDS" in the other tools; scripts may
		 * still give the generation so, for a release. */
		m->kv = src_opt_kver_alias(st, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Room for a payload of |len| bytes (one more, so that 0 is not NULL). */
static uint8_t *payload_alloc(struct argp_state *st, size_t len, const char *opt)
{
	uint8_t *b = malloc(len + 1);

	if (!b)
		argp_failure(st, 2, ENOMEM, "%s", opt);
	return b;
}

/* --payload HEX: the bytes the hex digits spell. */
static uint8_t *payload_hex(struct argp_state *st, const char *arg, size_t *len)
{
	size_t cap = strlen(arg) / 2 + 1;
	uint8_t *b = payload_alloc(st, cap, "--payload");
	char err[256];

	if (craft_parse_hex(arg, b, cap, len, err, sizeof(err))) {
		free(b);
		argp_error(st, "--payload: %s", err);
	}
	return b;
}

/* The payload: one of --payload, --payload-text (its bytes, no NUL),
 * --payload-size (N bytes counting 0, 1, 2, ... mod 256), --payload-file
 * (ARGP_KEY_END checks that only one was given). */
static error_t payload_opt(int key, char *arg, struct argp_state *st)
{
	uint8_t *b;
	size_t len;

	switch (key) {
	case OPT_PAYLOAD:
		b = payload_hex(st, arg, &len);
		break;
	case OPT_PAYLOAD_TEXT:
		len = strlen(arg);
		b = memcpy(payload_alloc(st, len, "--payload-text"), arg, len);
		break;
	case OPT_PAYLOAD_SIZE:
		len = (size_t)num(st, "--payload-size", arg, PAYLOAD_MAX);
		b = payload_alloc(st, len, "--payload-size");
		for (size_t i = 0; i < len; i++)
			b[i] = (uint8_t)i;
		break;
	case OPT_PAYLOAD_FILE:
		b = read_file(st, arg, &len);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	set_payload(st, st->input, b, len);
	return 0;
}

/* Where the messages go: a peer (--to, --from); the transport, the
 * capture, the terminal, how many and how long are in options[]. */
static error_t target_opt(int key, char *arg, struct argp_state *st)
{
	struct cli *c = st->input;
	char err[256];

	switch (key) {
	case OPT_TO:
		c->to_port = WIRE_TCP_PORT;
		if (craft_parse_addr(arg, &c->to, &c->to_port, err, sizeof(err)))
			argp_error(st, "--to: %s", err);
		/* ADDR:PORT, or [V6]:PORT; a bare IPv6 address has several ':' */
		c->to_port_given = arg[0] == '[' ? strstr(arg, "]:") != NULL :
			strchr(arg, ':') && strchr(arg, ':') == strrchr(arg, ':');
		c->has_to = true;
		break;
	case OPT_FROM:
		c->from_port = 0;
		if (craft_parse_addr(arg, &c->from, &c->from_port, err, sizeof(err)))
			argp_error(st, "--from: %s", err);
		c->has_from = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Options that only make sense together, checked once all are read. */
static void check_combination(void *input, struct argp_state *st)
{
	struct cli *c = input;

	struct craft_msg *m = &c->m;

	c->ib_live = c->trans == RIO_TRANS_IB;
	/* auto: IB when the address we send from (--from, or the route's
	 * source towards --to) is on an RDMA device */
	if (c->trans == RIO_TRANS_AUTO && c->has_to && !c->no_send) {
		struct rdsu_addr local = c->from;

		if (c->has_from || rio_route_source(&c->to, &local) == 0)
			c->ib_live = rio_trans_pick(RIO_TRANS_AUTO, &local) == RIO_TRANS_IB;
	}
	if (c->payload_opts > 1)
		argp_error(st, "give one of --payload, --payload-text, --payload-size, "
			       "--payload-file");
	if (m->has_ext_raw && m->n_ext)
		argp_error(st, "--ext-raw and --ext cannot be used together");
	if (c->cong_ports && m->kind != CRAFT_CONG)
		argp_error(st, "--cong-ports needs --kind cong");
	if (c->wait_ms && (!c->has_to || c->no_send))
		argp_error(st, "--wait needs --to");
	if (c->has_from && c->has_to &&
	    rdsu_addr_is_v4(&c->from) != rdsu_addr_is_v4(&c->to))
		argp_error(st, "--from and --to are of different address families");
	if (c->has_from && !c->has_to && !c->pcap)
		argp_error(st, "--from needs --to or --pcap");
	/* the TCP exchange cannot be shown as RoCEv2 packets */
	if (c->ib && !c->pcap)
		argp_error(st, "--ib needs --pcap");
	if (c->ib && c->has_to && !c->no_send)
		argp_error(st, "--ib writes a capture only: give --no-send with --to");
	if (c->ib_live && (!c->has_to || c->no_send))
		argp_error(st, "--transport ib needs --to");
	/* the RoCEv2 capture of an IB exchange is not written here */
	if (c->ib_live && c->pcap)
		argp_error(st, "--transport ib does not write -w captures (--ib draws one without sending)");
	if (c->ib_live && !c->to_port_given)
		c->to_port = rdsu_addr_is_v4(&c->to) ? WIRE_IB_PORT_V4 : WIRE_IB_PORT_V6;
}

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	error_t e = header_opt(key, arg, st);

	if (e == ARGP_ERR_UNKNOWN)
		e = payload_opt(key, arg, st);
	if (e == ARGP_ERR_UNKNOWN)
		e = target_opt(key, arg, st);
	if (e != ARGP_ERR_UNKNOWN)
		return e;
	switch (key) {
	case 'h':
		argp_state_help(st, stdout, ARGP_HELP_STD_HELP);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Output
 */

struct run {
	struct cli *c;
	int fd;
	struct craft_ib *ib;        /* --transport ib: instead of fd */
	struct cf_pcap *pc;
	struct cf_pcap_flow flow;
	struct craft_qp qp;     /* --ib */
	char peer[80];
	uint64_t sent;
	int send_errno;
	struct out *o;              /* what it prints: stdout's text */
};

static int ib_packet(void *ctx, const uint8_t *pkt, size_t len)
{
	return cf_pcap_packet(ctx, pkt, len);
}

/*
 * A message into an --ib capture. Whole, it goes as rds_ib_xmit sends
 * one: a SEND per 4096 payload bytes, each behind the header. Cut short
 * by --truncate it goes as one SEND of what is left, which is what a
 * wrong frame on the wire would be.
 */
static int ib_capture(struct run *r, const uint8_t *b, size_t n, size_t full)
{
	static uint8_t frag[WIRE_HDR_LEN + WIRE_FRAG_SIZE];
	size_t pay = n - WIRE_HDR_LEN, off = 0;

	if (n < full || n < WIRE_HDR_LEN || pay <= WIRE_FRAG_SIZE)
		return craft_roce_packets(&r->qp, b, n, ib_packet, r->pc) < 0 ? -EIO : 0;
	memcpy(frag, b, WIRE_HDR_LEN);
	while (off < pay) {
		size_t k = pay - off < WIRE_FRAG_SIZE ? pay - off : WIRE_FRAG_SIZE;

		memcpy(frag + WIRE_HDR_LEN, b + WIRE_HDR_LEN + off, k);
		if (craft_roce_packets(&r->qp, frag, WIRE_HDR_LEN + k, ib_packet, r->pc) < 0)
			return -EIO;
		off += k;
	}
	return 0;
}

/* One chunk of the stream to every output: its description, its bytes. */
/* |h| is the whole header, even when --truncate cut it from the bytes. */
static int emit(struct run *r, const char *what, const struct wire_hdr *h, const uint8_t *b,
		size_t n, size_t full)
{
	if (r->c->hex) {
		char line[512];

		craft_describe(h, line, sizeof(line));
		out_printf(r->o, "%s: %s, %zu bytes", what, line, full);
		if (n < full)
			out_printf(r->o, ", truncated to %zu", n);
		out_putc(r->o, '\n');
		/* runs of equal lines once, so that a congestion map stays readable */
		out_put_hexdump(r->o, b, n, true);
		out_flush(r->o);
	}
	if (r->pc) {
		int rc = r->c->ib ? ib_capture(r, b, n, full) : cf_pcap_data(r->pc, &r->flow, 0, b, n);

		if (rc) {
			fprintf(stderr, "rds-conform craft: %s: %s\n", r->c->pcap, strerror(-rc));
			return 1;
		}
	}
	if (r->ib) {
		if (craft_ib_send(r->ib, b, n))
			return 1;
		r->sent += n;
	}
	if (r->fd >= 0) {
		size_t off = 0;

		while (off < n) {
			ssize_t w = send(r->fd, b + off, n - off, MSG_NOSIGNAL);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				r->send_errno = errno;
				fprintf(stderr, "rds-conform craft: send to %s: %s (after %llu bytes)\n",
					r->peer, strerror(errno),
					(unsigned long long)(r->sent + off));
				return 1;
			}
			off += (size_t)w;
		}
		r->sent += n;
	}
	return 0;
}

/* Connect with a time limit: an unreachable peer should not hold the
 * command for the kernel's two minutes. Return: the socket, or -1 with
 * errno set. */
static int connect_to(struct cli *c)
{
	struct sockaddr_storage ss;
	socklen_t len = rdsu_sockaddr(&c->to, c->to_port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct pollfd p;
	int err = 0, one = 1;
	socklen_t elen = sizeof(err);

	if (fd < 0)
		return -1;
	if (c->has_from) {
		struct sockaddr_storage fs;
		socklen_t flen = rdsu_sockaddr(&c->from, c->from_port, &fs);

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&fs, flen) < 0)
			goto fail;
	}
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		if (errno != EINPROGRESS)
			goto fail;
		p.fd = fd;
		p.events = POLLOUT;
		if (poll(&p, 1, CONNECT_MS) == 0) {
			errno = ETIMEDOUT;
			goto fail;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
			goto fail;
		if (err) {
			errno = err;
			goto fail;
		}
	}
	/* blocking sends from here: the whole message goes, or an error */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Print what the peer sends for wait_ms, framed by libwire. */
static void receive(struct run *r)
{
	static uint8_t keep[WIRE_CONG_MAP_BYTES], in[65536];
	struct wire_deframer d;
	long end = now_ms() + r->c->wait_ms;
	bool failed = false;
	const char *how = NULL;
	uint64_t got = 0;
	char line[512];

	/* prefix mode: memory is |keep| whatever a header claims */
	wire_deframer_init_prefix(&d, 0, keep, sizeof(keep));
	for (;;) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };
		long left = end - now_ms();
		ssize_t n;
		size_t off = 0;

		if (left <= 0)
			break;
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = recv(r->fd, in, sizeof(in), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			how = errno == ECONNRESET ? "peer reset the connection" : NULL;
			if (!how)
				out_printf(r->o, "recv: %s\n", strerror(errno));
			if (r->pc)
				cf_pcap_rst(r->pc, &r->flow, 1);
			if (!how)
				how = "connection failed";
			break;
		}
		if (n == 0) {
			how = "peer closed the connection";
			if (r->pc)
				cf_pcap_fin(r->pc, &r->flow, 1);
			break;
		}
		got += (uint64_t)n;
		if (r->pc)
			cf_pcap_data(r->pc, &r->flow, 1, in, (size_t)n);
		while (!failed && off < (size_t)n) {
			struct wire_frame fr;
			bool ready = false;
			ssize_t k = wire_deframer_input(&d, in + off, (size_t)n - off, &fr, &ready);

			if (k < 0) {
				const struct wire_hdr *h = wire_deframer_hdr(&d);

				craft_describe(h, line, sizeof(line));
				out_printf(r->o, "recv: %s: %s, not followed further\n", line,
					   wire_strerror((int)k));
				failed = true;
				break;
			}
			off += (size_t)k;
			if (ready) {
				craft_describe(&fr.hdr, line, sizeof(line));
				out_printf(r->o, "recv: %s\n", line);
			}
		}
		out_flush(r->o);
		fflush(stdout);
	}
	if (!failed && wire_deframer_pending(&d)) {
		craft_describe(wire_deframer_hdr(&d), line, sizeof(line));
		out_printf(r->o, "recv: %s: cut short\n", line);
	}
	out_printf(r->o, "received %llu bytes; %s\n", (unsigned long long)got,
		   how ? how : "connection still open");
	out_flush(r->o);
}

static uint32_t random_gen(void)
{
	uint32_t g = 0;

	while (!g)
		if (getrandom(&g, sizeof(g), 0) != sizeof(g))
			g = (uint32_t)time(NULL) | 1;
	return g;
}

static int run(struct cli *c)
{
	struct run r = { .c = c, .fd = -1 };
	struct craft_msg *m = &c->m;
	size_t size = craft_size(m), full = craft_full_size(m), cut = 0;
	uint8_t *buf = malloc(size > CRAFT_PREFACE_LEN ? size : CRAFT_PREFACE_LEN);
	struct wire_hdr h;
	int rc = 0;

	r.o = out_new(stdout, OUT_TEXT, 0, 0);
	if (!buf || !r.o) {
		fprintf(stderr, "rds-conform craft: out of memory\n");
		free(buf);
		out_free(r.o);
		return 2;
	}
	cut = craft_hdr(m, 0, &h);
	if (cut)
		fprintf(stderr, "rds-conform craft: warning: %zu extension bytes did not fit into "
				"the 16 and were cut off\n", cut);
	if (c->ib_live) {
		char why[200];

		rio_addr_port_str(&c->to, c->to_port, r.peer, sizeof(r.peer));
		if (craft_ib_open(&c->to, c->to_port, c->has_from ? &c->from : NULL, &r.ib, why,
				  sizeof(why))) {
			fprintf(stderr, "rds-conform craft: IB connection to %s: %s\n", r.peer, why);
			r.ib = NULL;
			rc = 1;
			goto out;
		}
	} else if (c->has_to && !c->no_send) {
		rio_addr_port_str(&c->to, c->to_port, r.peer, sizeof(r.peer));
		r.fd = connect_to(c);
		if (r.fd < 0) {
			fprintf(stderr, "rds-conform craft: connect to %s: %s\n", r.peer,
				strerror(errno));
			rc = 1;
			goto out;
		}
	}
	if (c->pcap) {
		struct rdsu_addr a = c->has_from ? c->from : rdsu_addr_v4(0xc0000201);
		struct rdsu_addr b = c->has_to ? c->to : rdsu_addr_v4(0xc0000202);
		uint16_t aport = c->from_port ? c->from_port : 40000;
		uint16_t bport = c->has_to ? c->to_port : WIRE_TCP_PORT;
		int e;

		if (c->has_to && !c->has_from && !rdsu_addr_is_v4(&b))
			a = (struct rdsu_addr){ { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
		if (r.fd >= 0) {
			/* the real exchange: the addresses the kernel chose */
			struct sockaddr_storage ss;
			socklen_t len = sizeof(ss);

			if (getsockname(r.fd, (struct sockaddr *)&ss, &len) == 0)
				(void)rdsu_sockaddr_get(&ss, &a, &aport);
		}
		e = cf_pcap_open(&r.pc, c->pcap);
		if (e) {
			fprintf(stderr, "rds-conform craft: %s: %s\n", c->pcap, strerror(-e));
			rc = 2;
			goto out;
		}
		cf_pcap_flow_init(&r.flow, &a, aport, &b, bport);
		if (c->ib)
			craft_qp_init(&r.qp, &a, &b, 0x11);
		else
			cf_pcap_syn(r.pc, &r.flow);
	}
	if (!c->has_to && !c->pcap)
		c->hex = true;

	if (m->preface) {
		const size_t map = WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES;
		struct wire_hdr ph[2];

		craft_preface(random_gen(), buf, CRAFT_PREFACE_LEN);
		wire_hdr_decode(&ph[0], buf, WIRE_HDR_LEN);
		wire_hdr_decode(&ph[1], buf + map, WIRE_HDR_LEN);
		if (emit(&r, "preface", &ph[0], buf, map, map) ||
		    emit(&r, "preface", &ph[1], buf + map, WIRE_HDR_LEN, WIRE_HDR_LEN)) {
			rc = 1;
			goto out;
		}
	}
	for (uint64_t i = 0; i < (c->count ? c->count : 1); i++) {
		char what[32];

		snprintf(what, sizeof(what), "message %llu", (unsigned long long)i + 1);
		craft_build(m, i, buf, size);
		craft_hdr(m, i, &h);
		if (emit(&r, what, &h, buf, size, full)) {
			rc = 1;
			goto out;
		}
	}
	if (r.fd >= 0 || r.ib) {
		out_printf(r.o, "sent %llu bytes to %s%s\n", (unsigned long long)r.sent, r.peer,
			   r.ib ? " over IB" : "");
		out_flush(r.o);
		fflush(stdout);
		if (c->wait_ms && r.ib)
			craft_ib_receive(r.ib, r.o, c->wait_ms);
		else if (c->wait_ms)
			receive(&r);
	}
out:
	if (r.pc) {
		if (rc == 0 && !c->ib)
			cf_pcap_fin(r.pc, &r.flow, 0);
		cf_pcap_close(r.pc);
	}
	if (r.fd >= 0)
		close(r.fd);
	craft_ib_close(r.ib);
	free(buf);
	out_free(r.o);
	return rc;
}

int craft_main(int argc, char **argv)
{
	static struct argp_option argp_opts[OPTD_N(options) + 1];
	static const struct argp argp = { NULL, parse_opt, NULL, doc, NULL, NULL, NULL };
	static char name[] = "rds-conform craft";
	static const struct optdecl_cmd cmd = {
		&argp, options, OPTD_N(options), argp_opts, { NULL }, check_combination, name, 0
	};
	struct cli c;
	int rc;

	memset(&c, 0, sizeof(c));
	craft_msg_init(&c.m);
	c.count = 1;
	c.trans = RIO_TRANS_TCP;
	optdecl_parse(&cmd, argc, argv, &c);
	rc = run(&c);
	free(c.payload);
	return rc;
}
