// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_autotune.c - SNDBUF and RCVBUF of a socket the application left
 * alone grow with use (rdsu_ep_cfg.buf_max): the send window while the
 * sender is held back by it and more window still brings more rate, the
 * receive budget while the application keeps emptying its queue; a value
 * the application set is kept as the kernel keeps it, and so is every
 * buffer of an endpoint with buf_max 0. Only sizes and counts are
 * asserted, on the simulator's virtual clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

#define MSG (64u * 1024)
#define STEP (20 * 1000)   /* ns */

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

struct flow {
	struct world *w;
	struct rdsu_sock *tx, *rx;
	uint32_t idx;
	uint64_t sent, got, enobufs;
};

static struct world *world_buf_max(uint64_t seed, uint32_t buf_max)
{
	struct rdsu_ep_cfg c[2];

	world_cfgs(c, WIRE_KVER_7, WIRE_KVER_7, RDSU_PATH_BY_PAIR);
	c[0].buf_max = c[1].buf_max = buf_max;
	return world_new_nodes(seed, NULL, c, false);
}

/* A flow from a:4000 to b:5000 in a world_buf_max(|seed|, |buf_max|). */
static void flow_init(struct flow *f, uint64_t seed, uint32_t buf_max)
{
	memset(f, 0, sizeof(*f));
	f->w = world_buf_max(seed, buf_max);
	f->tx = sock_bound(f->w, f->w->a, 4000);
	f->rx = sock_bound(f->w, f->w->b, 5000);
}

/* Submit until the socket refuses (a sender that always has more). */
static void fill(struct flow *f)
{
	for (;;) {
		int r = send_msg(f->tx, f->w->b, 5000, f->idx, MSG, rdsu_sim_now(f->w->sim));

		if (r == -ENOBUFS)
			f->enobufs++;
		if (r < 0) {
			assert_true(r == -EAGAIN || r == -ENOBUFS);
			return;
		}
		f->idx++;
		f->sent++;
	}
}

/* Read up to |max| messages. */
static void drain(struct flow *f, unsigned max)
{
	struct rdsu_rxinfo info;
	ssize_t n;

	while (max-- && (n = read_msg(f->rx, rbuf, sizeof(rbuf), &info, 0)) != -EAGAIN) {
		if (info.cong)
			continue;
		assert_int_equal(n, MSG);
		f->got++;
	}
}

/* A sender that always has more, a receiver that reads all it has every
 * |read_every| steps, for |steps| steps of STEP. */
static void stream(struct flow *f, unsigned steps, unsigned read_every, unsigned read_max)
{
	for (unsigned i = 0; i < steps; i++) {
		fill(f);
		rdsu_sim_run_for(f->w->sim, STEP);
		if (i % read_every == 0)
			drain(f, read_max);
	}
}

/* A stream whose buffers are the kernel's: they stay at the default
 * through it, the receiver's port turns congested (ENOBUFS), and a message
 * above SNDBUF is EMSGSIZE. */
static void stream_kernel_buffers(struct flow *f)
{
	stream(f, 2000, 10, UINT32_MAX);
	assert_true(f->got > 100);
	assert_int_equal(rdsu_sock_get_sndbuf(f->tx), RDSU_DEFAULT_BUF);
	assert_int_equal(rdsu_sock_get_rcvbuf(f->rx), RDSU_DEFAULT_BUF);
	assert_true(f->enobufs > 0);
	assert_int_equal(send_msg(f->tx, f->w->b, 5000, 0, RDSU_DEFAULT_BUF + 1,
				  rdsu_sim_now(f->w->sim)), -EMSGSIZE);
}

/* The sim's TCP keeps at most its window (256 KiB) unacknowledged, and
 * acknowledges a latency (50 us) after the receiver took the bytes: a
 * window of about 256 KiB fills that path and more brings no more rate.
 * SNDBUF grows from 106496 while it is what holds the sender back and
 * stops once it is not; nothing of it is timed. */
static void test_sndbuf_grows_to_the_path(void **state)
{
	struct flow f;

	(void)state;
	flow_init(&f, 301, RDSU_AUTO_BUF_MAX);
	assert_int_equal(rdsu_sock_get_sndbuf(f.tx), RDSU_DEFAULT_BUF);
	/* a send may be as large as the buffer may grow, up to RDS's 1 MiB */
	assert_int_equal(rdsu_sock_max_msg(f.tx), 1u << 20);
	stream(&f, 2000, 1, UINT32_MAX);
	assert_true(rdsu_sock_get_sndbuf(f.tx) > RDSU_DEFAULT_BUF);
	assert_true(rdsu_sock_get_sndbuf(f.tx) <= 4 * 256 * 1024);
	assert_true(f.got > 100);
	/* and it stays there: more of the same stream does not grow it */
	{
		uint32_t at = rdsu_sock_get_sndbuf(f.tx);

		stream(&f, 2000, 1, UINT32_MAX);
		assert_int_equal(rdsu_sock_get_sndbuf(f.tx), at);
	}
	world_free(f.w);
}

/* The bound holds however fast the path: with a large sim window the rate
 * keeps following the window, and SNDBUF stops at buf_max. */
static void test_sndbuf_bounded(void **state)
{
	struct flow f;

	(void)state;
	flow_init(&f, 302, 512 * 1024);
	stream(&f, 4000, 1, UINT32_MAX);
	assert_true(rdsu_sock_get_sndbuf(f.tx) > RDSU_DEFAULT_BUF);
	assert_true(rdsu_sock_get_sndbuf(f.tx) <= 512 * 1024);
	/* EMSGSIZE is about the size it may grow to, and says so */
	assert_int_equal(rdsu_sock_max_msg(f.tx), 512 * 1024);
	assert_int_equal(send_msg(f.tx, f.w->b, 5000, 0, 512 * 1024 + 1, rdsu_sim_now(f.w->sim)),
			 -EMSGSIZE);
	world_free(f.w);
}

/* A sender that never fills its window keeps the default. */
static void test_sndbuf_app_limited(void **state)
{
	struct flow f;

	(void)state;
	flow_init(&f, 303, RDSU_AUTO_BUF_MAX);
	for (unsigned i = 0; i < 500; i++) {
		assert_int_equal(send_msg(f.tx, f.w->b, 5000, i, MSG, rdsu_sim_now(f.w->sim)), MSG);
		rdsu_sim_run_for(f.w->sim, 50 * STEP);
		drain(&f, UINT32_MAX);
	}
	assert_int_equal(f.got, 500);
	assert_int_equal(rdsu_sock_get_sndbuf(f.tx), RDSU_DEFAULT_BUF);
	world_free(f.w);
}

/* SNDBUF and RCVBUF set by the application are the kernel's: kept as
 * given through the same stream, EMSGSIZE above SNDBUF. */
static void test_set_buffers_are_kept(void **state)
{
	struct flow f;

	(void)state;
	flow_init(&f, 304, RDSU_AUTO_BUF_MAX);
	assert_int_equal(rdsu_sock_set_sndbuf(f.tx, RDSU_DEFAULT_BUF, 0), 0);
	assert_int_equal(rdsu_sock_set_rcvbuf(f.rx, RDSU_DEFAULT_BUF, 0), 0);
	stream_kernel_buffers(&f);
	assert_int_equal(rdsu_sock_max_msg(f.tx), RDSU_DEFAULT_BUF);
	world_free(f.w);
}

/* buf_max 0: every socket's buffers are the kernel's. */
static void test_buf_max_zero_is_the_kernel(void **state)
{
	struct flow f;

	(void)state;
	flow_init(&f, 305, 0);
	stream_kernel_buffers(&f);
	world_free(f.w);
}

/* A receiver that empties its queue every 200 us takes the sender's
 * bursts: RCVBUF grows to hold them, and the port stops turning
 * congested. */
static void test_rcvbuf_grows_for_a_reader_that_keeps_up(void **state)
{
	struct flow f;
	uint64_t enobufs;

	(void)state;
	flow_init(&f, 306, RDSU_AUTO_BUF_MAX);
	stream(&f, 2000, 10, UINT32_MAX);
	assert_true(rdsu_sock_get_rcvbuf(f.rx) > RDSU_DEFAULT_BUF);
	assert_true(rdsu_sock_get_rcvbuf(f.rx) <= RDSU_AUTO_BUF_MAX);
	enobufs = f.enobufs;
	stream(&f, 2000, 10, UINT32_MAX);
	assert_int_equal(f.enobufs, enobufs);
	world_free(f.w);
}

/* A receiver slower than its sender (one message every 200 us) empties
 * its queue only while the first messages trickle in: RCVBUF may double
 * once then, never again, and the port turns congested at that size as
 * the kernel's would, the sender getting ENOBUFS. */
static void test_rcvbuf_kept_for_a_slow_reader(void **state)
{
	struct flow f;
	uint32_t at;

	(void)state;
	flow_init(&f, 307, RDSU_AUTO_BUF_MAX);
	stream(&f, 2000, 10, 1);
	assert_true(f.got > 50);
	at = rdsu_sock_get_rcvbuf(f.rx);
	assert_true(at <= 2 * RDSU_DEFAULT_BUF);
	assert_true(f.enobufs > 0);
	assert_true(stat_of(f.w, f.w->b, RDSU_STAT_CONG_UPDATE_QUEUED) > 0);
	stream(&f, 2000, 10, 1);
	assert_int_equal(rdsu_sock_get_rcvbuf(f.rx), at);
	world_free(f.w);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_sndbuf_grows_to_the_path),
	cmocka_unit_test(test_sndbuf_bounded),
	cmocka_unit_test(test_sndbuf_app_limited),
	cmocka_unit_test(test_set_buffers_are_kept),
	cmocka_unit_test(test_buf_max_zero_is_the_kernel),
	cmocka_unit_test(test_rcvbuf_grows_for_a_reader_that_keeps_up),
	cmocka_unit_test(test_rcvbuf_kept_for_a_slow_reader))
