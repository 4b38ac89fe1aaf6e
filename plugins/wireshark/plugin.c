/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * plugin.c - what Wireshark 4.0's plugin loader looks for in an epan
 * plugin: the version symbols it checks against its own ABI, and
 * plugin_register(), which hands over the protocol's two registration
 * routines (fields first, then the dissector tables).
 */
#include <wireshark.h>
#include <epan/packet.h>
#include <epan/proto.h>

#include "packet-rds.h"

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = RDSTK_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void)
{
	static proto_plugin plug;

	plug.register_protoinfo = rdsws_register;
	plug.register_handoff = rdsws_handoff;
	proto_register_plugin(&plug);
}
