/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * insns.h - how many instructions a loaded XDP program runs for one frame,
 * counted by tests/bench/insn_count.py (a model of the program's verified
 * instructions, reading the program's own maps); bench_prog --insns.
 */
#ifndef XDP_STEER_BENCH_INSNS_H
#define XDP_STEER_BENCH_INSNS_H

#include <stddef.h>
#include <linux/types.h>

/* Runs 'tool' (insn_count.py) on program 'prog_fd' for the frame, as on
 * CPU 'cpu' at jiffies 'now' (clock_jiffies64()); *insns and *verdict get
 * its count and the verdict the model reached. 'show': NULL, "--profile"
 * (the instructions of each source line printed too) or "--trace" (every
 * instruction run). 0 or a negative errno (the tool's own message on
 * stderr). */
int insns_count(const char *tool, int prog_fd, const void *frame, size_t len,
		__u32 cpu, __u64 now, const char *show, int *insns,
		int *verdict);

/* insns_count() of a frame the kernel has just run to 'kernel_verdict',
 * which the model must reach too, and which must be 'want': else the
 * model took another path than the one timed, and its count means
 * nothing. Says what failed on stderr, after 'who' and 'row'. 0 or a
 * negative errno (-EPROTO: the verdicts differ). */
int insns_count_checked(const char *who, const char *row, const char *tool,
			int prog_fd, const void *frame, size_t len, __u32 cpu,
			__u64 now, const char *show, int kernel_verdict,
			int want, int *insns);

/* Calls 'runs' (the kernel's runs of the frames about to be counted: 0 or
 * a negative errno) and reads the clock the model is then to run at
 * (clock_jiffies64()) into *now, both in one tick: what the datapath
 * writes once a tick (steer_stats.queued_tick) is then as the next frame
 * of that tick finds it, not as the first frame of a tick does. Tried again when a tick passes, a few times (a tick is
 * milliseconds, the runs microseconds). 0 or a negative errno. */
int insns_runs_in_one_tick(int (*runs)(void *arg), void *arg, __u64 *now);

/* The path of insn_count.py, which make keeps beside the bench binaries:
 * 0, or -ENOENT when it cannot be formed (said on stderr, after 'who'). */
int insns_tool_path(const char *who, char *buf, size_t size);

#endif
