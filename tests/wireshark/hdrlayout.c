// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* hdrlayout.c - libwire's header layout table (wire_hdr_fields), a field
 * a line: "name offset size", for hdrlayout.py. */
#include <stdio.h>

#include <wire/wire.h>

int main(void)
{
	for (unsigned id = 0; id < WIRE_HF_COUNT; id++)
		printf("%s %u %u\n", wire_hdr_fields[id].name, wire_hdr_fields[id].off,
		       wire_hdr_fields[id].len);
	return 0;
}
