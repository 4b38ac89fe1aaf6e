// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_rio_opt.c - the shared stack options' --transport: each spelling
 * lands in the configuration, a bad one leaves it alone, IB asked of a
 * build without it is refused at parse time (unless --kernel), librds
 * takes TCP for an address on no RDMA device, and each failure rio_open()
 * can meet is told in words that name what is missing. */
#define _GNU_SOURCE

#include <argp.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include "rio.h"
#include "rio_opt.h"

static struct rio_opt ro;
static struct rio_cfg cfg;

static error_t parent(int key, char *arg, struct argp_state *st)
{
	(void)arg;
	if (key == ARGP_KEY_INIT) {
		st->child_inputs[0] = &ro;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/* Parse |args| (NULL-terminated) with the transport and kernel options.
 * ARGP_NO_EXIT: argp_error() complains on stderr and parsing goes on. */
static void parse_args(const char *const *args)
{
	char *argv[8] = { "test" };
	int argc = 1;
	struct argp_child children[] = { { &ro.argp, 0, NULL, 0 }, { 0 } };
	struct argp ap = { NULL, parent, NULL, NULL, children, NULL, NULL };

	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	rio_cfg_default(&cfg);
	rio_opt_init(&ro, RIO_OPT_KERNEL | RIO_OPT_TRANSPORT, &cfg);
	(void)argp_parse(&ap, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, NULL);
}

static void test_transport_spellings(void **state)
{
	(void)state;
	parse_args((const char *[]){ NULL });
	assert_int_equal(cfg.transport, RIO_TRANS_AUTO);
	parse_args((const char *[]){ "--transport", "tcp", NULL });
	assert_int_equal(cfg.transport, RIO_TRANS_TCP);
	parse_args((const char *[]){ "--kernel", "--transport=ib", NULL });
	assert_int_equal(cfg.transport, RIO_TRANS_IB);
	assert_true(cfg.kernel);
	parse_args((const char *[]){ "--transport", "tcp", "--transport", "auto", NULL });
	assert_int_equal(cfg.transport, RIO_TRANS_AUTO);
}

static void test_transport_bad(void **state)
{
	enum rio_trans t = RIO_TRANS_TCP;

	(void)state;
	parse_args((const char *[]){ "--transport", "tcp", "--transport", "rdma", NULL });
	assert_int_equal(cfg.transport, RIO_TRANS_TCP);
	parse_args((const char *[]){ "--transport", "IB", NULL });
	assert_int_equal(cfg.transport, RIO_TRANS_AUTO);
	assert_int_equal(rio_trans_parse("", &t), -1);
	assert_int_equal(rio_trans_parse("ib ", &t), -1);
	assert_int_equal(t, RIO_TRANS_TCP);
	assert_int_equal(rio_trans_parse("ib", &t), 0);
	assert_int_equal(t, RIO_TRANS_IB);
}

/* Which names the transport numbers get: RDS_TRANS_* as the kernel's. */
static void test_trans_names(void **state)
{
	(void)state;
	assert_string_equal(rio_trans_name(RDSU_TRANS_IB), "IB");
	assert_string_equal(rio_trans_name(RDSU_TRANS_TCP), "TCP");
	assert_string_equal(rio_trans_name(3), "loopback");
	assert_string_equal(rio_trans_name(RDSU_TRANS_NONE), "none");
}

/* Without IB in the build, librds on IB cannot even start: refused at
 * parse time and, for a caller of rio_open(), with the packages named. */
static void test_ib_not_built(void **state)
{
	struct rio *r = NULL;

	(void)state;
	if (rio_have_ib)
		skip();
	parse_args((const char *[]){ "--transport", "ib", NULL });
	rio_cfg_default(&cfg);
	cfg.transport = RIO_TRANS_IB;
	assert_int_equal(rio_open(&r, &cfg), -EPROTONOSUPPORT);
	assert_null(r);
	assert_non_null(strstr(rio_open_strerror(&cfg, -EPROTONOSUPPORT), "libibverbs-dev"));
	assert_non_null(strstr(rio_open_strerror(&cfg, -EPROTONOSUPPORT), "librdmacm-dev"));
}

static void test_open_strerror(void **state)
{
	(void)state;
	rio_cfg_default(&cfg);
	cfg.kernel = true;
	cfg.transport = RIO_TRANS_IB;
	assert_non_null(strstr(rio_open_strerror(&cfg, -ENOPROTOOPT), "rds_rdma"));
	assert_non_null(strstr(rio_open_strerror(&cfg, -EAFNOSUPPORT), "rds_rdma"));
	cfg.transport = RIO_TRANS_TCP;
	assert_non_null(strstr(rio_open_strerror(&cfg, -ENOPROTOOPT), "rds_tcp"));
	cfg.transport = RIO_TRANS_AUTO;
	assert_non_null(strstr(rio_open_strerror(&cfg, -EAFNOSUPPORT), "rds_tcp"));
	cfg.kernel = false;
	cfg.transport = RIO_TRANS_IB;
	assert_non_null(strstr(rio_open_strerror(&cfg, -ENODEV), "RDMA device"));
	assert_non_null(strstr(rio_open_strerror(&cfg, -EADDRNOTAVAIL), "RoCE"));
	assert_non_null(strstr(rio_open_strerror(&cfg, -EADDRINUSE), "18634"));
	/* TCP's port in use names the port (rdsu_io_strerror), whoever
	 * holds it; other TCP failures keep librds's own words */
	cfg.transport = RIO_TRANS_TCP;
	assert_non_null(strstr(rio_open_strerror(&cfg, -EADDRINUSE), "16385"));
	assert_string_equal(rio_open_strerror(&cfg, -ENOMEM), rdsu_strerror(-ENOMEM));
}

/* No loopback address is on an RDMA device: the stack runs TCP there,
 * with IB in the build or not, and a socket bound to 127.0.0.1 takes the
 * loopback transport (rds_trans_get_preferred: SO_RDS_TRANSPORT reads
 * RDS_TRANS_LOOP, 3), as on the kernel. */
static void test_auto_loopback_is_tcp(void **state)
{
	struct rdsu_addr a = rdsu_addr_v4(0x7f000001);
	struct rio *r = NULL;
	struct rio_sock *s = NULL;

	(void)state;
	rio_cfg_default(&cfg);
	cfg.tcp.no_listen = true;
	assert_int_equal(rio_cfg_add_addr(&cfg, &a), 0);
	assert_int_equal(rio_open(&r, &cfg), 0);
	assert_int_equal(rio_transport(r), RDSU_TRANS_TCP);
	assert_int_equal(rio_socket(r, &a, 0, &s), 0);
	assert_int_equal(rio_sock_transport(s), RDSU_TRANS_LOOP);
	rio_sock_close(s);
	rio_close(r);
	/* forced TCP says so on the socket, as SO_RDS_TRANSPORT */
	cfg.transport = RIO_TRANS_TCP;
	assert_int_equal(rio_open(&r, &cfg), 0);
	assert_int_equal(rio_socket(r, &a, 0, &s), 0);
	assert_int_equal(rio_sock_transport(s), RDSU_TRANS_TCP);
	rio_sock_close(s);
	rio_close(r);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_transport_spellings),
	cmocka_unit_test(test_transport_bad),
	cmocka_unit_test(test_trans_names),
	cmocka_unit_test(test_ib_not_built),
	cmocka_unit_test(test_open_strerror),
	cmocka_unit_test(test_auto_loopback_is_tcp))
