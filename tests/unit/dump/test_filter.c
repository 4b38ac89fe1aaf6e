// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_filter.c - rdsdump's RDS-field filters: parsing and what they show. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include "filter.h"

static struct dump_filter *new_filter(void)
{
	struct dump_filter *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	return f;
}

static void rec_msg(struct dump_rec *r, uint16_t sport, uint16_t dport, uint8_t flags)
{
	memset(r, 0, sizeof(*r));
	r->type = DUMP_REC_MSG;
	r->xp = DUMP_XP_TCP;
	wire_build_data(&r->u.msg.hdr, 5, sport, dport, 10);
	r->u.msg.hdr.flags = flags;
	r->u.msg.kind = wire_classify(&r->u.msg.hdr, WIRE_XPORT_TCP);
}

/* Whether |f| shows a message from port |sport| to |dport| with |flags|. */
static bool msg_matches(const struct dump_filter *f, uint16_t sport, uint16_t dport,
			uint8_t flags)
{
	struct dump_rec r;

	rec_msg(&r, sport, dport, flags);
	return dump_filter_match(f, &r);
}

static void rec_other(struct dump_rec *r, enum dump_rec_type t)
{
	memset(r, 0, sizeof(*r));
	r->type = t;
	r->u.note.what = DUMP_NOTE_GAP;
}

static void test_filter_inactive_shows_all(void **state)
{
	struct dump_filter *f = new_filter();
	struct dump_rec r;

	(void)state;
	assert_false(dump_filter_active(f));
	assert_true(msg_matches(f, 1000, 2000, 0));
	for (int t = DUMP_REC_NOTE; t <= DUMP_REC_BAD; t++) {
		rec_other(&r, (enum dump_rec_type)t);
		assert_true(dump_filter_match(f, &r));
	}
	free(f);
}

static void test_filter_port_parse(void **state)
{
	static const char *const good[] = { "0", "65535", "0x10" };
	static const char *const bad[] = { "65536", "-1", "", "abc", "12x", " 5", "+5",
					   "99999999999999999999999" };
	struct dump_filter *f = new_filter();
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(dump_filter_add_port(f, good[i], err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(dump_filter_add_port(f, bad[i], err, sizeof(err)), -1);
		assert_non_null(strstr(err, "invalid RDS port"));
	}
	assert_string_equal(err, "invalid RDS port \"99999999999999999999999\" (0 to 65535)");
	/* err may be NULL; a tiny buffer is cut, not overrun */
	assert_int_equal(dump_filter_add_port(f, "x", NULL, 0), -1);
	memset(err, 'Z', sizeof(err));
	assert_int_equal(dump_filter_add_port(f, "x", err, 5), -1);
	assert_string_equal(err, "inva");
	assert_int_equal(err[5], 'Z');
	assert_true(f->port_set);
	free(f);
}

static void test_filter_port_match(void **state)
{
	struct dump_filter *f = new_filter();
	struct dump_rec r;

	(void)state;
	assert_int_equal(dump_filter_add_port(f, "4000", NULL, 0), 0);
	assert_int_equal(dump_filter_add_port(f, "65535", NULL, 0), 0);
	assert_true(dump_filter_active(f));
	assert_true(msg_matches(f, 4000, 5000, 0));
	assert_true(msg_matches(f, 5000, 4000, 0));
	assert_true(msg_matches(f, 5000, 65535, 0));
	assert_false(msg_matches(f, 4001, 3999, 0));
	/* message filters hide every other record type, rules or not */
	for (int t = DUMP_REC_NOTE; t <= DUMP_REC_BAD; t++) {
		rec_other(&r, (enum dump_rec_type)t);
		wire_rules_add(&r.rules, WIRE_RULE_NL_LEN);
		assert_false(dump_filter_match(f, &r));
	}
	free(f);
}

static void test_filter_kinds(void **state)
{
	struct dump_filter *f = new_filter();
	struct dump_rec r;
	struct wire_hdr h;
	char err[200];

	(void)state;
	assert_int_equal(dump_filter_add_kinds(f, "PING,probe", err, sizeof(err)), 0);
	assert_int_equal(f->kinds, 1u << WIRE_KIND_PING | 1u << WIRE_KIND_PROBE_PING |
					   1u << WIRE_KIND_PROBE_PONG);
	memset(&r, 0, sizeof(r));
	r.type = DUMP_REC_MSG;
	for (unsigned k = 0; k < WIRE_KIND__COUNT; k++) {
		r.u.msg.kind = (enum wire_kind)k;
		assert_int_equal(dump_filter_match(f, &r),
				 k == WIRE_KIND_PING || k == WIRE_KIND_PROBE_PING ||
					 k == WIRE_KIND_PROBE_PONG);
	}
	free(f);

	/* every name wire_kind_name() gives is accepted, one at a time */
	for (unsigned k = 0; k < WIRE_KIND__COUNT; k++) {
		f = new_filter();
		assert_int_equal(dump_filter_add_kinds(f, wire_kind_name((enum wire_kind)k), err,
						       sizeof(err)),
				 0);
		assert_int_equal(f->kinds, 1u << k);
		free(f);
	}

	f = new_filter();
	assert_int_equal(dump_filter_add_kinds(f, "data,pongs", err, sizeof(err)), -1);
	assert_string_equal(err, "unknown kind \"pongs\" (data, ping, pong, probe, probe-ping, "
				 "probe-pong, cong, ack)");
	assert_false(f->kind_set); /* unchanged on error */
	assert_int_equal(f->kinds, 0);
	assert_int_equal(dump_filter_add_kinds(f, "data,,ack", err, sizeof(err)), -1);
	assert_string_equal(err, "empty word in kind list \"data,,ack\"");
	assert_int_equal(dump_filter_add_kinds(f, "data,", err, sizeof(err)), -1);
	assert_int_equal(dump_filter_add_kinds(f, "", err, sizeof(err)), -1);
	assert_string_equal(err, "empty kind list");

	/* repeated options add up */
	assert_int_equal(dump_filter_add_kinds(f, "cong", err, sizeof(err)), 0);
	assert_int_equal(dump_filter_add_kinds(f, "ack", err, sizeof(err)), 0);
	wire_build_cong(&h);
	memset(&r, 0, sizeof(r));
	r.type = DUMP_REC_MSG;
	r.u.msg.hdr = h;
	r.u.msg.kind = WIRE_KIND_CONG;
	assert_true(dump_filter_match(f, &r));
	r.u.msg.kind = WIRE_KIND_ACK;
	assert_true(dump_filter_match(f, &r));
	r.u.msg.kind = WIRE_KIND_DATA;
	assert_false(dump_filter_match(f, &r));
	free(f);
}

static void test_filter_flags(void **state)
{
	struct dump_filter *f = new_filter();
	char err[200];

	(void)state;
	assert_int_equal(dump_filter_add_flags(f, "retransmitted,0x08", err, sizeof(err)), 0);
	assert_int_equal(f->flags, WIRE_FLAG_RETRANSMITTED | WIRE_FLAG_HB_PING);
	assert_true(msg_matches(f, 1, 2, WIRE_FLAG_RETRANSMITTED | WIRE_FLAG_ACK_REQUIRED));
	assert_true(msg_matches(f, 1, 2, WIRE_FLAG_HB_PING));
	assert_false(msg_matches(f, 1, 2, WIRE_FLAG_ACK_REQUIRED));
	assert_false(msg_matches(f, 1, 2, 0));
	free(f);

	/* every name wire_flag_name() gives, in any case; multi-bit numbers */
	for (unsigned i = 0; i < 8; i++) {
		const char *name = wire_flag_name((uint8_t)(1u << i));
		char lower[32];

		if (!name)
			continue;
		for (size_t k = 0; k <= strlen(name); k++)
			lower[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] + 32 : name[k]);
		f = new_filter();
		assert_int_equal(dump_filter_add_flags(f, name, err, sizeof(err)), 0);
		assert_int_equal(dump_filter_add_flags(f, lower, err, sizeof(err)), 0);
		assert_int_equal(f->flags, 1u << i);
		free(f);
	}
	f = new_filter();
	assert_int_equal(dump_filter_add_flags(f, "0xc0,3", err, sizeof(err)), 0);
	assert_int_equal(f->flags, 0xc3);
	static const char *const bad[] = { "0", "0x100", "RETRANSMIT", "CONG_BITMAP|ACK_REQUIRED",
					   ",", "256" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(dump_filter_add_flags(f, bad[i], err, sizeof(err)), -1);
	assert_int_equal(dump_filter_add_flags(f, "x\ny", err, sizeof(err)), -1);
	/* what a user typed comes back printable */
	assert_string_equal(err, "unknown flag \"x?y\" (a name such as RETRANSMITTED, or a "
				 "number 0x01 to 0xff)");
	assert_int_equal(f->flags, 0xc3);
	free(f);
}

static void test_filter_rules(void **state)
{
	struct dump_filter *f = new_filter();
	struct dump_rec r;

	(void)state;
	dump_filter_set_rules(f);
	assert_true(dump_filter_active(f));
	rec_msg(&r, 1, 2, 0);
	assert_false(dump_filter_match(f, &r));
	wire_rules_add(&r.rules, WIRE_RULE_SEQ_ZERO);
	assert_true(dump_filter_match(f, &r));
	/* --rules alone: any record type with a rule */
	for (int t = DUMP_REC_NOTE; t <= DUMP_REC_BAD; t++) {
		rec_other(&r, (enum dump_rec_type)t);
		assert_false(dump_filter_match(f, &r));
		wire_rules_add(&r.rules, WIRE_RULE_FRAG_SHORT);
		assert_true(dump_filter_match(f, &r));
	}
	/* with a message filter: messages only, and both must hold */
	assert_int_equal(dump_filter_add_port(f, "7", NULL, 0), 0);
	assert_false(dump_filter_match(f, &r));
	rec_msg(&r, 7, 2, 0);
	assert_false(dump_filter_match(f, &r));
	wire_rules_add(&r.rules, WIRE_RULE_SEQ_ZERO);
	assert_true(dump_filter_match(f, &r));
	rec_msg(&r, 8, 2, 0);
	wire_rules_add(&r.rules, WIRE_RULE_SEQ_ZERO);
	assert_false(dump_filter_match(f, &r));
	free(f);
}

static void test_filter_combined(void **state)
{
	struct dump_filter *f = new_filter();

	(void)state;
	assert_int_equal(dump_filter_add_port(f, "4000", NULL, 0), 0);
	assert_int_equal(dump_filter_add_kinds(f, "data", NULL, 0), 0);
	assert_int_equal(dump_filter_add_flags(f, "RETRANSMITTED", NULL, 0), 0);
	assert_true(msg_matches(f, 4000, 1, WIRE_FLAG_RETRANSMITTED));
	assert_false(msg_matches(f, 4000, 1, 0));
	assert_false(msg_matches(f, 4000, 0, WIRE_FLAG_RETRANSMITTED)); /* a ping */
	assert_false(msg_matches(f, 4001, 1, WIRE_FLAG_RETRANSMITTED));
	free(f);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_filter_inactive_shows_all),
	cmocka_unit_test(test_filter_port_parse),
	cmocka_unit_test(test_filter_port_match),
	cmocka_unit_test(test_filter_kinds),
	cmocka_unit_test(test_filter_flags),
	cmocka_unit_test(test_filter_rules),
	cmocka_unit_test(test_filter_combined))
