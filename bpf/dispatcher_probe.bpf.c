// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dispatcher_probe.bpf.c - what `xdp-steer --version` loads to learn whether
 * libxdp's dispatcher can hold xdp_steer here (loader/kernel/features.h):
 * an extension (freplace) program for the dispatcher's first slot that,
 * like xdp_steer stamping frames for drain, changes packet data. Kernels
 * since 6.13 (and 6.12's stable updates) refuse that in place of a slot
 * that does not, the dispatcher of libxdp before 1.5.5; some kernels
 * refuse extension programs at all. A program apart from xdp_steer.bpf.o,
 * never attached to an interface.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("freplace/prog0")
int steer_dispatcher_probe(struct xdp_md *ctx)
{
	/* Moves nothing: the call is what the verifier weighs. The helper
	 * xdp_steer calls: some kernels refuse bpf_xdp_adjust_meta(). */
	if (bpf_xdp_adjust_head(ctx, 0))
		return XDP_PASS;
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual BSD/GPL";
