/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cpuset.h - a set of CPU ids below CPUSET_MAX (the online CPUs, a
 * policy's workers), with the kernel's list syntax ("0-1,4,8-11") both ways.
 * Pure apart from cpuset_read_online(), so tests can say "online: 0-15".
 */
#ifndef XDP_STEER_CPUSET_H
#define XDP_STEER_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "xdp_steer/sizes.h"

/* CPU ids a set holds: Debian's NR_CPUS, the most any Linux has
 * (MAXSMP), so the online CPUs of any machine are all here. */
#define CPUSET_MAX	STEER_RX_CPU_IDS

/* A bitmap. 'beyond' counts the CPUs a parsed list named past
 * CPUSET_MAX, so none is dropped unsaid. */
struct cpu_set {
	__u64 bits[CPUSET_MAX / 64];
	__u32 beyond;
};

/* Longest cpuset_format() output, NUL included: every other CPU listed
 * (ids of up to 4 digits and a comma). */
#define CPUSET_STR_MAX	(CPUSET_MAX / 2 * 5 + 1)

void cpuset_zero(struct cpu_set *s);
void cpuset_set(struct cpu_set *s, __u32 cpu);
void cpuset_clear(struct cpu_set *s, __u32 cpu);
bool cpuset_has(const struct cpu_set *s, __u32 cpu);
int cpuset_count(const struct cpu_set *s);
bool cpuset_equal(const struct cpu_set *a, const struct cpu_set *b);
/* The CPUs of 's' with ids of 'first' or more, those past CPUSET_MAX
 * ('beyond') included. */
int cpuset_count_from(const struct cpu_set *s, __u32 first);

/* Parses the kernel's list syntax ("0-3,8,10-11", spaces and a trailing
 * newline allowed; "" is the empty set). CPUs >= CPUSET_MAX are not
 * refused, the sysfs list of a big machine names them: they are counted
 * in s->beyond, for the caller to say. Returns 0 or -EINVAL. */
int cpuset_parse(struct cpu_set *s, const char *list);

/* Reads the online CPUs from 'path' (NULL: /sys/devices/system/cpu/online).
 * Returns 0 or a negative errno. */
int cpuset_read_online(struct cpu_set *s, const char *path);

/* Writes the set compactly ("0-1,4,8-11"; "" when empty) into buf and
 * returns buf, truncated to len. */
char *cpuset_format(const struct cpu_set *s, char *buf, size_t len);

#endif /* XDP_STEER_CPUSET_H */
