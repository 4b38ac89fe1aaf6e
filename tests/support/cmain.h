/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The main() of a cmocka test file whose tests need no group setup:
 *
 *	CMOCKA_MAIN(
 *		cmocka_unit_test(test_a),
 *		cmocka_unit_test(test_b))
 *
 * runs them as one group named after the file and returns cmocka's count
 * of failures. Include after <cmocka.h>. A file with a group setup or its
 * own arguments writes its main() out.
 *
 * CMOCKA_CASE(test_a, x, &x_value) runs test_a with *state = &x_value,
 * named test_a_x: one test body for several values, each reported alone.
 */
#ifndef TESTS_CMAIN_H
#define TESTS_CMAIN_H

#define CMOCKA_MAIN(...)                                                   \
	int main(void)                                                     \
	{                                                                  \
		const struct CMUnitTest tests_[] = { __VA_ARGS__ };        \
		return cmocka_run_group_tests_name(__FILE__, tests_, NULL, \
						   NULL);                  \
	}

#define CMOCKA_CASE(f, name, st) { #f "_" #name, f, NULL, NULL, st }

#endif
