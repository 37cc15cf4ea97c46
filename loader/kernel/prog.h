/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * prog.h - the BPF programs: attaching the XDP program through libxdp
 * (dispatcher where the kernel allows it, a single program otherwise),
 * finding it again, and loading the cpumap program on the pinned maps.
 */
#ifndef XDP_STEER_PROG_H
#define XDP_STEER_PROG_H

#include <stdbool.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "xdp_steer/sizes.h"
#include "model/attached.h"
#include "util/why.h"

struct xdp_steer_bpf;

/* Loads xdp_steer with its maps pinned in 'pin_dir' (a checked directory,
 * pins.h) and attaches it to 'ifindex' through libxdp. All or nothing: a
 * failure after the program is on the interface takes it off again. When
 * the kernel refuses xdp_steer in libxdp's dispatcher it tries once more
 * without the dispatcher, which fails (-EEXIST or -EBUSY) if another XDP
 * program is on the interface; out->ext_refused says so either way. */
int prog_attach(const char *pin_dir, int ifindex, enum xdp_attach_mode mode,
		struct attached *out);

/* Fills 'out' (prog_id 0 when xdp_steer is not attached); uses_pins tells
 * whether the program uses the maps pinned in 'pin_dir'. */
int prog_find(const char *pin_dir, int ifindex, struct attached *out);

/* Upgrade in place: this binary's xdp_steer, loaded on the maps pinned in
 * 'pin_dir', takes the place of the running one ('at'). Alone on the
 * interface, in one step (XDP_FLAGS_REPLACE); in libxdp's dispatcher, in
 * two (it joins at the running one's place, then the running one leaves:
 * prog.c says why that is sound), so every frame meets one of them or
 * both. Nothing changes when a pinned map's layout is not this version's:
 * the load fails first. Maps an upgrade staged (migrate.h) take the
 * place of the pinned ones; 'hook' (may be NULL) runs just before the
 * swap. The new program's id in *new_id (also on a
 * failure that left both in the dispatcher); 'why' on failure. */
struct prog_swap_hook {
	/* Runs once the new program is ready, right before the swap; its
	 * error (with 'why') stops the upgrade, nothing swapped. */
	int (*fn)(void *arg, struct why *why);
	void *arg;
};
int prog_replace(const char *pin_dir, int ifindex, const struct attached *at,
		 __u32 *new_id, const struct prog_swap_hook *hook,
		 struct why *why);

/* Takes xdp_steer off 'ifindex'; -ENOENT when it is not there. */
int prog_detach(int ifindex);

/* Loads the cpumap programs on the maps pinned in 'pin_dir'; their fds
 * stay valid until prog_worker_close(). */
int prog_worker_load(const char *pin_dir, struct xdp_steer_bpf **skel);
/* fds[bank]: the cpumap program of each bank (STEER_PROG_WORKER*). */
void prog_worker_fds(const struct xdp_steer_bpf *skel, int fds[STEER_BANKS]);
void prog_worker_close(struct xdp_steer_bpf *skel);

/* Runs fn(arg) with libbpf's output passing on its way to the printer set
 * before through a check for the kernel's refusal of an extension that
 * changes packet data in place of a function that does not (the reason
 * reaches us only in the verifier log); *refused says whether it was
 * seen. It also keeps the reason of any refused load for prog_attach()'s
 * verifier_said. fn's result. */
int prog_spotting_refusal(int (*fn)(void *arg), void *arg, bool *refused);

#endif /* XDP_STEER_PROG_H */
