/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * maps.h - the pinned maps of one interface, opened by path, so the loader
 * works the same whether it or `xdp-loader load -p` loaded the program.
 */
#ifndef XDP_STEER_MAPS_H
#define XDP_STEER_MAPS_H

#include <limits.h>
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/types.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/stats.h"
#include "xdp_steer/maps.h"

/* An fd per map of STEER_MAPS, named like the map. */
struct steer_maps {
	char dir[PATH_MAX];
#define MAPS_FD_(name, ...) int name;
	STEER_MAPS(MAPS_FD_)
#undef MAPS_FD_
	/* Entries of cpu_map (and cpu_map_b): the kernel's possible CPUs
	 * when the loader made them, at most the span (prog.c). */
	__u32 cpumap_entries;
	/* The span S (bpf/span.h): steer_wdone's entries / 2; a queue
	 * target in the maps is bank * S + cpu. STEER_MAX_CPUS in pins of
	 * xdp-loader load -p and of versions before it. */
	__u32 span;
	/* Receiver slots R: rows of steer_buckets and steer_load, each of
	 * STEER_TABLE_MAX entries, as sized at load (prog.c). */
	__u32 rx_rows;
	/* Rows of steer_seq, steer_deq and steer_rx_cpu: R as sized at
	 * load, or 256 where an upgrade kept an older version's (prog.c);
	 * the receiver slots there can be are the fewer of the two. */
	__u32 slot_rows;
};

/* The loader's arrays by target are indexed bank * STEER_CPU_IDS + cpu,
 * whatever the span: a target as the maps hold it (bank * span + cpu)
 * becomes one of those, STEER_CPU_TARGETS when it is none. */
static inline __u32 maps_target_in(const struct steer_maps *m, __u32 t)
{
	if (t >= 2 * m->span)
		return STEER_CPU_TARGETS;
	return t >= m->span ? STEER_CPU_IDS + t - m->span : t;
}

/* ... and back (t below STEER_CPU_TARGETS, its CPU below the span). */
static inline __u32 maps_target_out(const struct steer_maps *m, __u32 t)
{
	return t >= STEER_CPU_IDS ? m->span + t - STEER_CPU_IDS : t;
}

/* Opens every map pinned in 'dir'; -ENOENT when one is missing (nothing
 * attached there), -EPROTO when one's key, value or size is not this
 * version's (pinned by another xdp-steer), with its name in 'missing'
 * when not NULL. The two cpumaps may have any size up to the span, the
 * same; the maps by target and by CPU have the span's sizes. */
int maps_open(const char *dir, struct steer_maps *m, const char **missing);
/* The same, a map pinned as NAME 'suffix' (an upgrade's staged one,
 * kernel/migrate.h) taking the place of NAME. */
int maps_open_prefer(const char *dir, struct steer_maps *m,
		     const char **missing, const char *suffix);
void maps_close(struct steer_maps *m);

/* Reads a per-CPU array entry of 'value_size' bytes into by_id (one value
 * per CPU id below possible_span(), kernel/possible.h; zeros where the
 * possible mask has holes). */
int maps_percpu_read(int fd, __u32 key, size_t value_size, void *by_id);

/* Sums a per-CPU array entry of 'value_size' bytes made of __u64 fields
 * into 'sum'; 'per_cpu' (optional, possible_span() * value_size) gets the
 * values, by CPU id. */
int maps_percpu_sum(int fd, __u32 key, size_t value_size, void *sum,
		    void *per_cpu);

/* Calls fn(key, values, ncpus, arg) for keys 0..nkeys-1 of a per-CPU array
 * whose values are 'value_size' bytes (a multiple of 8), 'values' holding
 * one per CPU id below ncpus (possible_span(); zeros in the possible
 * mask's holes); stops at fn's first error. Reads many keys
 * per system call where the kernel batches lookups. */
int maps_percpu_scan(int fd, __u32 nkeys, size_t value_size,
		     int (*fn)(__u32 key, const void *values, int ncpus,
			       void *arg), void *arg);

/* maps_percpu_scan() of a per-slot map (steer_buckets, steer_load: [rx
 * slot * STEER_TABLE_MAX + bucket]): fn gets each bucket's values by the
 * CPU id that holds each slot (steer_rx_cpu), zeros for the other CPUs,
 * and ncpus one past the highest CPU that holds a slot (not
 * possible_span()); rows of a slot whose CPU is not written yet are zeros
 * (that CPU writes its steer_rx_cpu entry before its rows). */
int maps_rx_scan(const struct steer_maps *m, int fd, size_t value_size,
		 int (*fn)(__u32 key, const void *values, int ncpus,
			   void *arg), void *arg);

/* What every receiving CPU queued to each worker CPU (steer_queued, its
 * rows of the span summed, the row of CPUs without a slot too) into
 * by_cpu[STEER_CPU_IDS]. */
int maps_queued_sum(const struct steer_maps *m, struct steer_cpu_stats *by_cpu);

/* Sums a per-slot map's rows, of __u64 fields, bucket by bucket into
 * sum[STEER_TABLE_MAX], over the slots held (as maps_rx_scan() reads
 * them), never touching a value per possible CPU. */
int maps_rx_sum(const struct steer_maps *m, int fd, size_t value_size,
		void *sum);

/* maps_percpu_read() of bucket 'key' of a per-slot map, by CPU id. */
int maps_rx_read(const struct steer_maps *m, int fd, __u32 key,
		 size_t value_size, void *by_id);

/* Reads entries first..first+n-1 of an array map into 'out' ('value_size'
 * bytes each, a plain array's value), many per system call where the
 * kernel batches lookups, one by one where it refuses. */
int maps_read_array(int fd, __u32 first, __u32 n, size_t value_size,
		    void *out);

/* Whether reads batch (on, until a kernel refuses): a test or benchmark
 * turns it off to compare with the lookups one by one. */
void maps_batch_use(bool on);

/* Writes entries first..first+n-1 of an array map from 'values' ('value_size'
 * bytes each), many per system call where the kernel batches updates. */
int maps_write_array(int fd, __u32 first, const void *values,
		     size_t value_size, __u32 n);
/* The kernel's id of the map behind 'fd'. */
int maps_id(int fd, __u32 *id);
/* What the kernel says of the map behind 'fd' (max_entries, map_flags,
 * id...), in *info. */
int maps_info(int fd, struct bpf_map_info *info);
/* The same of the map pinned at 'path'; -ENOENT when nothing is pinned
 * there. */
int maps_pinned_info(const char *path, struct bpf_map_info *info);

/* 1 when the maps pinned in m->dir are still those of 'm', 0 when others
 * are pinned there now (attached anew), -ENOENT when none are. */
int maps_pinned_same(const struct steer_maps *m);

/* Calls fn on each key of 'slot' in flow_rules (prefix_rules), keys
 * collected first so fn may delete them; stops at fn's first error. */
int maps_for_flow_rules(const struct steer_maps *m, __u32 slot,
			int (*fn)(int fd, const void *key, void *arg), void *arg);
int maps_for_prefix_rules(const struct steer_maps *m, __u32 slot,
			  int (*fn)(int fd, const void *key, void *arg),
			  void *arg);

#endif /* XDP_STEER_MAPS_H */
