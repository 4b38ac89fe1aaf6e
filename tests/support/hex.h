/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* hex.h - test helpers: hex text to bytes. */
#ifndef TEST_HEX_H
#define TEST_HEX_H

#include <stddef.h>
#include <stdint.h>

/*
 * hex_decode() - parse hex digit pairs from |hex|, ignoring spaces, newlines
 * and anything after a '#' up to the end of the line.
 * Return: bytes written; aborts the test program on odd digits or overflow.
 */
size_t hex_decode(const char *hex, uint8_t *out, size_t cap);

#endif
