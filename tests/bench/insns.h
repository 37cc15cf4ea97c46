/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * insns.h - how many instructions a loaded XDP program runs for each frame
 * of a row, counted by tests/bench/insn_count.py (a model of the program's
 * verified instructions, reading the program's own maps); bench_prog
 * --insns, bench_encap --insns.
 */
#ifndef XDP_STEER_BENCH_INSNS_H
#define XDP_STEER_BENCH_INSNS_H

#include <stddef.h>
#include <linux/types.h>

/* A frame of a row to count: what the kernel did with it, in; what the
 * model did, out (insns_count()). */
struct insns_frame {
	const void *buf;
	size_t len;
	const char *name;	/* the row and frame, in messages */
	const char *title;	/* printed before its --profile or --trace
				 * output; NULL: nothing */
	int kernel_verdict;	/* the kernel's verdict on it, just run */
	int insns;		/* out: the instructions the model ran */
	int verdict;		/* out: the verdict the model reached */
};

/* Runs 'tool' (insn_count.py) once on program 'prog_fd' for the 'n'
 * frames, as on CPU 'cpu' at jiffies 'now' (clock_jiffies64()): one
 * dump of the program and one read of each map value for them all, each
 * frame's model on its own copy of the maps as the kernel left them.
 * Fills each frame's insns and verdict. 'show': NULL, "--profile" (the
 * instructions of each source line printed too) or "--trace" (every
 * instruction run), each frame's after its title. 0 or a negative errno
 * (the tool's own message on stderr); the frames the tool did not count
 * keep insns -1. */
int insns_count(const char *tool, int prog_fd, struct insns_frame *frames,
		int n, __u32 cpu, __u64 now, const char *show);

/* insns_count() of frames the kernel has just run, each to its
 * kernel_verdict, which the model must reach too, and which must be
 * 'want': else the model took another path than the one timed, and its
 * count means nothing. Says what failed on stderr, after 'who' and the
 * frame's name. 0 or a negative errno (-EPROTO: the verdicts differ). */
int insns_count_checked(const char *who, const char *tool, int prog_fd,
			struct insns_frame *frames, int n, __u32 cpu,
			__u64 now, const char *show, int want);

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
