/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kernel_features.h - the Linux features xdp-steer relies on, as a table:
 * kernel/features.c probes each, `xdp-steer --version` lists them with
 * what the library found (steer_features).
 */
#ifndef XDP_STEER_KERNEL_FEATURES_H
#define XDP_STEER_KERNEL_FEATURES_H

#include <stdbool.h>

/*
 * The kernel's features xdp-steer relies on, in the order --version lists
 * them: (id, what, the Linux release that brought it, whether attach needs
 * it). Each is found by a probe, never by the kernel's release alone
 * (distributions backport), but for one case of kthread_names
 * (features_kernel(), kernel/features.h). Kernels before 5.19 lack
 * bpf_map_lookup_percpu_elem(), which the drain reads other CPUs' state
 * with: without it the verifier refuses xdp_steer, and attach refuses
 * first, naming what is missing. Not probed apart:
 * the raw tracepoints' arguments read (xdp_cpumap_kthread's stats came
 * with cpumap programs in 5.9; napi_poll's are older), and live test-run
 * frames (5.18), which only the tests use.
 */
#define STEER_KERNEL_FEATURES(X)					\
	X(cpumap_prog, "cpumap entries that run a program", "5.9", true)	\
	X(jiffies64, "bpf_jiffies64() in XDP programs", "5.5", true)	\
	X(syscall_prog, "BPF syscall programs, the loader's clock", "5.14", true) \
	X(netns_cookie, "SO_NETNS_COOKIE, a network namespace's cookie",	\
	  "5.14", true)							\
	X(kthread_names, "cpumap kthreads named whole in /proc, cpumap/<cpu>/map:<id>", \
	  "5.17", true)							\
	X(percpu_lookup, "bpf_map_lookup_percpu_elem() in XDP programs, the drain's", \
	  "5.19", true)							\
	X(loop, "bpf_loop() in XDP programs, a receiver slot's takeover", \
	  "5.17", true)							\
	X(xdp_frags, "XDP frags, multi-buffer programs", "5.18", false)

#define STEER_KF_ENUM(id, what, since, needed)	STEER_KF_##id,
enum steer_kernel_feature {
	STEER_KERNEL_FEATURES(STEER_KF_ENUM)
	STEER_KF_COUNT
};
#undef STEER_KF_ENUM

/* A row of STEER_KERNEL_FEATURES. */
struct steer_kernel_feature_info {
	const char *what;
	const char *since;	/* "5.19" */
	bool needed;		/* by attach; else only said */
};
extern const struct steer_kernel_feature_info
	steer_kernel_features[STEER_KF_COUNT];

#endif /* XDP_STEER_KERNEL_FEATURES_H */
