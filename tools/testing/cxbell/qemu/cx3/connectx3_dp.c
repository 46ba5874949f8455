/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU model of a dual-port Mellanox ConnectX-3: CQs, QPs, steering,
 * the send and receive engines and the cable between the two ports.
 *
 * Not built yet: every datapath command fails with BAD_OP and every
 * UAR write outside the EQ doorbells is a violation, so a driver that
 * gets this far sees a device that refuses, never one that pretends.
 */
#include "qemu/osdep.h"
#include "connectx3.h"

void cx3_dp_init(CX3State *s)
{
}

void cx3_dp_reset(CX3State *s)
{
}

int cx3_dp_cmd(CX3State *s, CX3Cmd *c)
{
	return CX3_STAT_BAD_OP;
}

void cx3_dp_uar_write(CX3State *s, hwaddr addr, uint64_t val,
		      unsigned int size)
{
	cx3_violation(s, "UAR write at 0x%" HWADDR_PRIx ": no datapath", addr);
}
