/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * prog_util.h - the real bpf/xdp_steer.bpf.o, loaded with libbpf for tests
 * and benchmarks that run it with bpf_prog_test_run_opts (no interface, no
 * traffic). Pinning is turned off for every map, so nothing here touches
 * /sys/fs/bpf or an attached instance.
 *
 * Functions return 0 or a negative errno (libbpf style).
 */
#ifndef XDP_STEER_PROG_UTIL_H
#define XDP_STEER_PROG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "xdp_steer.h"

/* Repo-relative path of the object; XDP_STEER_OBJ overrides it. */
#define STEER_PROG_OBJ_PATH	"bpf/xdp_steer.bpf.o"

struct bpf_object;

struct steer_prog {
	struct bpf_object *obj;
	int prog_fd;		/* STEER_PROG_MAIN */
	int worker_fd;		/* STEER_PROG_WORKER (bank 0) */
	int worker_fds[STEER_BANKS];	/* each bank's cpumap program */
	__u32 rx_rows;		/* receiver slots: rows of steer_buckets, steer_load,
				 * steer_seq, steer_deq, steer_rx_cpu */
	int ncpus;		/* possible CPUs: per-CPU values per entry */
	/* An fd per map of STEER_MAPS, named like the map. */
#define STEER_PROG_FD_(name, ...) int name;
	STEER_MAPS(STEER_PROG_FD_)
#undef STEER_PROG_FD_
};

/* Where the object is: $XDP_STEER_OBJ, else STEER_PROG_OBJ_PATH from the
 * current directory, else from the repo root above the running binary
 * (tests/<tier>/<binary>). */
int steer_prog_find_obj(char *buf, size_t size);

/* Opens and loads the object at 'path' (NULL: steer_prog_find_obj()) with
 * every map unpinned. -EPERM without CAP_BPF/CAP_SYS_ADMIN. */
int steer_prog_open(struct steer_prog *p, const char *path);
void steer_prog_close(struct steer_prog *p);

/* The drain stamps' key (steer_stamp_key) steer_prog_open() sets, where
 * the loader's first apply sets a random one. */
#define STEER_TEST_STAMP_KEY	0x5354414d50b1e55dull
int steer_prog_set_stamp_key(const struct steer_prog *p, __u64 key);

/* The kernel test-runs no cpumap program: a second copy of bank 'bank''s
 * worker program, loaded as a plain XDP program on p's maps, that a test
 * runs with a stamp in front of the frame (the test run's metadata, which
 * lies where the headroom's stamp does). Its fd in *prog_fd; NULL and
 * errno on failure; bpf_object__close() it. */
struct bpf_object *steer_prog_open_worker_xdp(const struct steer_prog *p,
					      __u32 bank, int *prog_fd);

/* The tracepoint programs (bpf/cpumap_trace.bpf.c, beside the object)
 * loaded on p's maps where they share them (STEER_TRACE_SHARED_MAPS) and
 * not attached: a test runs them with bpf_prog_test_run_opts() and the
 * arguments their tracepoints pass. fds[] in the order of
 * STEER_TRACE_PROGS. NULL and errno on failure; bpf_object__close() it. */
#define STEER_TRACE_NPROGS	3
struct bpf_object *steer_prog_open_trace(const struct steer_prog *p,
					 int fds[STEER_TRACE_NPROGS]);

/* fd of the map named 'name' (STEER_STR(STEER_MAP_x)), or -ENOENT. */
int steer_prog_map_fd(const struct steer_prog *p, const char *name);

/* Pins the calling thread to 'cpu' (< 0: the first CPU it may run on), so
 * bpf_get_smp_processor_id() in a test run is known. Returns the CPU. */
int steer_pin_cpu(int cpu);

/* ---- policy ------------------------------------------------------------ */

int steer_prog_write_slot(const struct steer_prog *p, __u32 slot,
			  const struct steer_slot *s);
int steer_prog_read_slot(const struct steer_prog *p, __u32 slot,
			 struct steer_slot *s);
/* The flip: steer_ctl.active = slot. */
int steer_prog_set_active(const struct steer_prog *p, __u32 slot);
int steer_prog_get_active(const struct steer_prog *p, __u32 *slot);

/* Indirection table of 'slot': buckets 0..n-1 from 'cpus'. */
int steer_prog_write_table(const struct steer_prog *p, __u32 slot,
			   const __u32 *cpus, __u32 n);
/* Every one of the first n buckets to 'cpu'. */
int steer_prog_fill_table(const struct steer_prog *p, __u32 slot, __u32 cpu,
			  __u32 n);
int steer_prog_set_bucket(const struct steer_prog *p, __u32 slot,
			  __u32 bucket, __u32 cpu);

/* Exact-field rule: 'f' with the fields outside 'shape' ignored. The slot
 * must list 'shape' among its exact shapes for the program to look. */
int steer_prog_add_flow_rule(const struct steer_prog *p, __u32 slot,
			     __u32 shape, const struct steer_flow *f,
			     const struct steer_target *t);

/* Prefix rule of 'shape' (with one STEER_M_PREFIX_* bit): the prefix side's
 * address of 'f' cut to 'bits', its other fields in 'shape' exact. The slot
 * must list 'shape' among its prefix shapes. */
int steer_prog_add_prefix(const struct steer_prog *p, __u32 slot,
			  __u32 shape, const struct steer_flow *f, __u32 bits,
			  const struct steer_target *t);

/* Appends 'shape' to the slot's exact shapes (no prefix bit) or prefix
 * shapes, unless present; -E2BIG when STEER_MAX_SHAPES are used. */
int steer_slot_add_shape(struct steer_slot *s, __u32 shape);

/* Every encapsulation looked through, each of UDP on its standard port:
 * the policy's default 'decap'. */
void steer_slot_decap_all(struct steer_slot *s);

/* CPU set entries slot * STEER_RULE_CPUS_MAX + index + 0..n-1. */
int steer_prog_write_rule_cpus(const struct steer_prog *p, __u32 slot,
			       __u32 index, const __u32 *cpus, __u32 n);

/* Empties both slots, the flip word, tables, rules and CPU sets. The
 * cpumap is left alone: its entries are worker threads, slow to recreate. */
int steer_prog_reset_policy(const struct steer_prog *p);

/* Empties the drain state (drain.h): every bucket's history, the stamps'
 * counts and marks, the workers' reports and ring counts, the look gate,
 * every CPU's tick of its last queued frame and count of ended polls; the
 * window shut (generation kept, at least 1). */
int steer_prog_reset_drain(const struct steer_prog *p);

/* Opens (1) or shuts (0) the warm-up window (struct steer_window), its
 * generation as it is (at least 1): while it is open the datapath stamps
 * and records every queued frame under drain. */
int steer_prog_window(const struct steer_prog *p, int open);

/* Says CPU 'cpu' (every CPU: -1) has seen 'polls' NAPI polls end, the last
 * at jiffies 'tick' (steer_stats.napi_polls, napi_poll_tick: what the
 * napi_poll tracepoint program keeps). */
int steer_prog_polls(const struct steer_prog *p, int cpu, __u64 polls,
		     __u64 tick);

/* No receiver slot handed out, 'limit' of them (0: STEER_RX_SLOTS), and
 * every CPU's cache of its own forgotten (struct steer_rx_pool). */
int steer_prog_rx_slots(const struct steer_prog *p, __u32 limit);

/* The receiver slot CPU 'cpu' holds (steer_rx_slot), -1 for none; with
 * 'claim', one is claimed for it by hand as the datapath would, when it
 * holds none: -ENOSPC when every slot is taken. */
int steer_prog_rx_slot_of(const struct steer_prog *p, int cpu, bool claim);

/* Drain bucket 'record' of a per-slot map (steer_buckets, steer_load) for
 * each CPU, from the row of the slot it holds; zeros for a CPU without. */
int steer_prog_rx_read(const struct steer_prog *p, int fd, __u32 record,
		       void *by_cpu, size_t value_size);

/* Says CPU 'cpu' (every CPU: -1) last queued a frame at jiffies 'tick'
 * (steer_stats.queued_tick; 0: never): whether a bucket cold on another
 * CPU's fast path needs a marker (drain.h, queued_lately()). */
int steer_prog_queued_tick(const struct steer_prog *p, int cpu, __u64 tick);
/* Receiving CPU 'cpu's record of drain bucket 'record' says its last
 * frame went to 'target' (a STEER_TARGET_* word) at jiffies 'last' (0:
 * none yet), unstamped, no drain under way, written under the window's
 * generation (live under a slot whose drain_gen is at most that). */
int steer_prog_bucket_at(const struct steer_prog *p, __u32 cpu,
			 __u32 record, __u16 target, __u32 last);
/* The same just now: the bucket is warm there, as after traffic that has
 * settled. */
int steer_prog_warm_bucket(const struct steer_prog *p, __u32 cpu,
			   __u32 record, __u16 target);
/* Receive queue 'q' was last seen on 'cpu' (steer_rxq). */
int steer_prog_rxq_on(const struct steer_prog *p, __u32 q, __u32 cpu);
int steer_prog_read_window(const struct steer_prog *p, struct steer_window *w);

/* ---- cpumap ------------------------------------------------------------ */

/* cpumap entry for 'cpu' with a ring of 'qsize' frames and, when prog_fd
 * > 0, that cpumap program (p->worker_fd for ours). Only possible CPUs can
 * have one. */
int steer_prog_add_cpu(const struct steer_prog *p, __u32 cpu, __u32 qsize,
		       int prog_fd);
int steer_prog_del_cpu(const struct steer_prog *p, __u32 cpu);

/* ---- counters ---------------------------------------------------------- */

/* Per-CPU counters summed over the possible CPUs; reset_stats zeroes
 * them, steer_load included. */
int steer_prog_read_stats(const struct steer_prog *p, struct steer_stats *s);
/* steer_queued, its rows summed: one target CPU's, or every one's at once
 * (STEER_MAX_CPUS entries). */
int steer_prog_read_cpu_stats(const struct steer_prog *p, __u32 cpu,
			      struct steer_cpu_stats *s);
int steer_prog_read_all_cpu_stats(const struct steer_prog *p,
				  struct steer_cpu_stats *all);
/* What the CPUs of steer_queued's row 'row' (a receiver slot, or rx_rows:
 * the CPUs without one) queued to 'cpu'. */
int steer_prog_read_row_stats(const struct steer_prog *p, __u32 row,
			      __u32 cpu, struct steer_cpu_stats *s);
int steer_prog_read_worker_stats(const struct steer_prog *p,
				 struct steer_worker_stats *s);
int steer_prog_reset_stats(const struct steer_prog *p);
/* Only steer_stats, what a frame's verdict is checked
 * against (all but each CPU's tick of its last queued frame): zeroing steer_load's 4096 records takes a millisecond, and a
 * test that resets before each of thousands of frames pays it each time. */
int steer_prog_reset_frame_counters(const struct steer_prog *p);
/* The balancer's count of drain bucket 'record' (steer_load), summed. */
int steer_prog_read_load(const struct steer_prog *p, __u32 record,
			 struct steer_load *s);

/* ---- running ----------------------------------------------------------- */

/* Runs the program once on a copy of the frame; *verdict gets XDP_*. */
int steer_prog_run(const struct steer_prog *p, const void *data, size_t len,
		   int *verdict);
/* Runs it 'repeat' times in the kernel; *ns gets the mean time per run. */
int steer_prog_run_repeat(const struct steer_prog *p, const void *data,
			  size_t len, __u32 repeat, int *verdict, __u32 *ns);

#endif /* XDP_STEER_PROG_UTIL_H */
