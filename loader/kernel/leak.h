/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * leak.h - closing the program fds that libxdp 1.3.1 leaks.
 *
 * Debian bookworm's libxdp (1.3.1) leaks one fd in each
 * xdp_program__from_id() and xdp_program__from_pin(): they duplicate the fd
 * they got into the program object and never close the original (fixed
 * upstream after 1.3.1, in 48ad94b). xdp_multiprog__get_from_ifindex(),
 * which attach and detach call too, uses them for the program on the
 * interface and, under the dispatcher, for every program in it. A leaked fd
 * keeps its program alive until the process exits: after a detach under
 * the dispatcher xdp_steer still held the pinned maps, so detach kept the
 * pins (seen on 6.1 in the VM: the program went when xdp-steer exited).
 *
 * Each use of libxdp on an interface is therefore bracketed:
 *
 *	struct leak_guard g;
 *
 *	leak_guard_begin(&g);	notes the fds open now
 *	... libxdp calls; every libxdp object closed again ...
 *	leak_guard_end(&g);	closes each fd opened since that still holds
 *				a BPF program: nobody owns it any more
 *
 * Nothing between the two may keep a program fd of its own, and no other
 * thread may open one meanwhile (the library is not for several threads).
 * Without /proc the guard does nothing.
 */
#ifndef XDP_STEER_LEAK_H
#define XDP_STEER_LEAK_H

#include <stddef.h>

struct leak_guard {
	int *fds;	/* open at leak_guard_begin(), ascending */
	size_t n;
	int ok;		/* /proc/self/fd could be read */
};

void leak_guard_begin(struct leak_guard *g);
/* Returns how many leaked fds it closed. */
int leak_guard_end(struct leak_guard *g);

#endif /* XDP_STEER_LEAK_H */
