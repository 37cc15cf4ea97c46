/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * attached.h - what runs on an interface, and the name of its XDP mode.
 * Plain data: kernel/prog.c fills it (prog_attach(), prog_find()), the
 * library hands it out (steer_attach_result, steer_status), the CLI says
 * it.
 */
#ifndef XDP_STEER_ATTACHED_H
#define XDP_STEER_ATTACHED_H

#include <stdbool.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

/* What runs on an interface. */
struct attached {
	__u32 prog_id;			/* xdp_steer, 0 if absent */
	enum xdp_attach_mode mode;	/* native, skb, hw */
	bool dispatcher;		/* under libxdp's dispatcher */
	int nprogs;			/* XDP programs on the interface */
	int nsteer;			/* xdp_steer programs among them: 2
					 * after an upgrade killed between
					 * its two swaps of the dispatcher */
	bool uses_pins;			/* its steer_ctl is the pinned one */
	bool ext_refused;		/* prog_attach: the kernel refused it
					 * in libxdp's dispatcher
					 * (kernel/prog.c), so it was
					 * attached alone or not at all */
	char verifier_said[160];	/* prog_attach: the verifier's last
					 * word on a program it refused, or "" */
};

/* "native", "skb", "hw", or "none". */
static inline const char *attach_mode_name(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE:
		return "native";
	case XDP_MODE_SKB:
		return "skb";
	case XDP_MODE_HW:
		return "hw";
	default:
		return "none";
	}
}

#endif /* XDP_STEER_ATTACHED_H */
