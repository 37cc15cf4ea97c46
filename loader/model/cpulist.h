/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cpulist.h - CPU ids as the kernel writes lists of them ("0-15,32-47"),
 * for what a person reads: status lines, warnings, the folded rows of
 * stats. Ids are plain numbers, as many as there are, of any size: unlike
 * struct cpu_set (cpuset.h) nothing here has a bound on a CPU's id. Pure.
 */
#ifndef XDP_STEER_CPULIST_H
#define XDP_STEER_CPULIST_H

#include <stddef.h>
#include <linux/types.h>

#include "model/cpuset.h"

/* Writes ids[0..n), ascending (a repeated id counts once), as ranges into
 * buf. When they do not all fit in len bytes (NUL included), it writes the
 * whole ranges that fit with room for " and N more" after them, N the CPUs
 * left out, and that: never a range cut in the middle. Returns the number
 * of CPUs left out (0: all written). len from CPULIST_MIN_LEN up. */
size_t cpulist_format(const __u32 *ids, size_t n, char *buf, size_t len);

/* Room for " and N more" with any N a size_t holds, and a first range. */
#define CPULIST_MIN_LEN	64

/* The members of 's' into ids (room for cpuset_count(s)), ascending;
 * returns how many. */
size_t cpulist_from_set(const struct cpu_set *s, __u32 *ids);

/* cpulist_format() of a struct cpu_set. */
size_t cpulist_format_set(const struct cpu_set *s, char *buf, size_t len);

#endif /* XDP_STEER_CPULIST_H */
