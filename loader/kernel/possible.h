/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * possible.h - the kernel's possible CPUs, as per-CPU maps lay out their
 * values: one per possible CPU, in id order. Where the possible mask has
 * holes ("0-3,8-11"), a value's position is not its CPU's id, and the
 * count of CPUs is not a bound on their ids: every reader of per-CPU
 * values, and every array indexed by CPU id, goes through here.
 *
 * Functions return 0 or a negative errno.
 */
#ifndef XDP_STEER_POSSIBLE_H
#define XDP_STEER_POSSIBLE_H

#include <stddef.h>
#include <linux/types.h>

/* The kernel's own bound (CONFIG_NR_CPUS at most 8192). */
#define POSSIBLE_MAX	8192

struct possible_cpus {
	int count;		/* values a per-CPU lookup returns */
	int span;		/* highest id + 1: nr_cpu_ids */
	__u32 id[POSSIBLE_MAX];	/* id[position] */
};

/* Parses a possible mask in the kernel's list form from 'path'. */
int possible_read(struct possible_cpus *p, const char *path);

/* This machine's (/sys/devices/system/cpu/possible), read once; NULL with
 * errno set when it cannot be read. */
const struct possible_cpus *possible_cpus(void);

/* The span of this machine's, or a negative errno. */
int possible_span(void);

/* Spreads p->count values of 'value_size' bytes, in position order, over
 * by_id[0..p->span), each at its CPU's id; the holes get zeros. */
void possible_scatter(const struct possible_cpus *p, const void *packed,
		      size_t value_size, void *by_id);

#endif /* XDP_STEER_POSSIBLE_H */
