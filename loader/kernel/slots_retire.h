/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * slots_retire.h - the steps of an apply (slots.h) that keep the cpumap
 * small and the old slot's readers gone: the flip word written, the
 * warm-up of the drain window, retiring the entries the slot in force
 * no longer needs, and finishing what an earlier apply left pending.
 * Used by slots.c's phases only; each says more where it is defined.
 */
#ifndef XDP_STEER_SLOTS_RETIRE_H
#define XDP_STEER_SLOTS_RETIRE_H

#include <stdbool.h>
#include <linux/types.h>

#include "xdp_steer/slot.h"
#include "model/slots_result.h"
#include "kernel/maps.h"
#include "util/why.h"

/* steer_ctl written whole: the flip, or retire_pending cleared. */
int slots_write_ctl(const struct steer_maps *m, const struct steer_ctl *ctl);

/* The drain window opened under a new generation (*gen), seen open by
 * every CPU, every ring's earlier frames handed on; on failure shut
 * again, with the reason in 'why'. */
int slots_warm_up(const struct steer_maps *m, __u32 gro_units, __u32 *gen,
		  struct why *why);

/* Removes the cpumap entries the active slot does not need and no live
 * bucket record names; with 'wait', waits up to the drain timeout for
 * those, then refreshes once to free entries only settled records keep.
 * Clears retire_pending. Idempotent. */
int slots_retire(const struct steer_maps *m, const struct steer_ctl *ctl,
		 bool wait, struct slots_result *res, struct why *why);

/* An earlier apply's pending retire (retire_pending set) finished: its
 * readers waited for, then slots_retire(). Refuses, changing nothing,
 * when the wait fails. */
int slots_finish_pending(const struct steer_maps *m, struct steer_ctl *ctl,
			 struct slots_result *res, struct why *why);

#endif /* XDP_STEER_SLOTS_RETIRE_H */
