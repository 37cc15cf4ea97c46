// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * clock.bpf.c - the datapath's clock, read from userspace. The drain
 * bookkeeping stamps buckets with jiffies (bpf_jiffies64(): one load, where
 * bpf_ktime_get_coarse_ns() measured 20-30 ns a frame), and no system call
 * returns jiffies; the loader runs this with BPF_PROG_TEST_RUN to compare
 * its clock with the stamps. A program apart from xdp_steer.bpf.o, so
 * xdp-loader never sees it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct steer_clock_ctx {
	__u64 jiffies;
};

SEC("syscall")
int steer_clock(struct steer_clock_ctx *c)
{
	c->jiffies = bpf_jiffies64();
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
