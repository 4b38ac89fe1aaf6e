/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * packet-rds.h - the RDS dissector's two registration routines, for
 * plugin.c.
 */
#ifndef RDSWS_PACKET_RDS_H
#define RDSWS_PACKET_RDS_H

void rdsws_register(void);
void rdsws_handoff(void);

#endif /* RDSWS_PACKET_RDS_H */
