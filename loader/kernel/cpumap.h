/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cpumap.h - the workers' cpumap entries, in both banks (STEER_BANKS): the
 * targets a slot needs, the targets buckets still drain from, adding the
 * entries of a new slot, and retiring the others. A target is
 * bank * STEER_CPU_IDS + cpu; arrays of STEER_CPU_TARGETS flags are indexed
 * by it.
 */
#ifndef XDP_STEER_CPUMAP_H
#define XDP_STEER_CPUMAP_H

#include <stddef.h>
#include <linux/bpf.h>

#include "kernel/maps.h"
#include "util/why.h"

/* Every target slot 'id' (as the maps hold it) can send frames to. */
int cpumap_slot_needs(const struct steer_maps *m, __u32 id,
		      const struct steer_slot *s, unsigned char *need);

/* Targets whose cpumap entry must stay: in_use[t] = 1 when t's ring is
 * not empty (its kthread still has frames to hand on), or a live bucket
 * record (steer_bucket_live() under slot 's', the one in force) names t:
 * its bucket's next frame may still go there, held by its drain. A frame
 * sent to an entry that is gone would be passed on its receiving CPU,
 * perhaps ahead of what the ring held; and an entry made anew in its
 * place would count in the same steer_wdone as the old one's kthread.
 * 'undecided' (may be NULL) gets a 1 for each such t whose ring is not
 * empty or that a live record names with its last frame there not proven
 * up the stack (kernel/evidence.h): where every record naming t is
 * proven, a warm-up that makes them old frees t (slots_retire.c, refresh()).
 * *draining (may be NULL) gets the records, over all receiving CPUs, of
 * buckets whose drain began and is not done, fast path included;
 * *stalled (may be NULL) those whose old target has taken nothing off its
 * waiting ring for the drain timeout; 'records' (NULL, or STEER_TABLE_MAX
 * entries) for each drain bucket still draining on some receiving CPU,
 * the CPU its frames still go to, plus 1 (its record's target's, or the
 * receiving CPU's for one passed there; STEER_CPU_IDS + 1 for a target
 * the maps do not hold), else 0. */
int cpumap_in_use(const struct steer_maps *m, const struct steer_slot *s,
		  unsigned char *in_use, unsigned char *undecided,
		  int *draining, int *stalled, __u16 *records);

/* Creates the entries of 'need' that lack one (cpumap program
 * worker_fds[bank], ring 'qsize'), and makes anew those of 'renew' (NULL:
 * none; the caller makes sure no frame is on its way to them). An entry
 * with another ring size is never replaced (a second kthread would deliver
 * that CPU's frames): -EBUSY. added[target] = 1 for each created or made
 * anew. */
int cpumap_add(const struct steer_maps *m, const unsigned char *need,
	       const unsigned char *renew, __u32 qsize, const int *worker_fds,
	       unsigned char *added, struct why *why);
/* Removes the entries cpumap_add() created. */
void cpumap_undo(const struct steer_maps *m, const unsigned char *added);

/* Removes every entry neither in 'need' nor in 'in_use'; counts the ones
 * removed and those kept only because buckets still use them. */
int cpumap_retire(const struct steer_maps *m, const unsigned char *need,
		  const unsigned char *in_use, int *removed, int *kept,
		  struct why *why);

/* 1 when every cpumap entry of 'm' runs the worker program of 'fds'
 * (one per bank, this binary's, loaded: prog_worker_load()), by its tag;
 * 0 when one runs another version's, named in 'why'; a negative errno
 * when that cannot be told. */
int cpumap_workers_current(const struct steer_maps *m,
			   const int fds[STEER_BANKS], struct why *why);

/* The entries of both banks: present[target], val[target]. */
void cpumap_read(const struct steer_maps *m, struct bpf_cpumap_val *val,
		 unsigned char *present);

/* How many entries bank 'bank' holds. */
int cpumap_bank_entries(const struct steer_maps *m, __u32 bank);

#endif /* XDP_STEER_CPUMAP_H */
