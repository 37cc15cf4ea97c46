/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * salt.h - another build of the same source: `make BPF_SALT=N` gives each
 * program one harmless store more, so its tag differs from this build's
 * and xdp-steer takes it for another version. tests/dist/
 * test_upgrade_version.sh upgrades in place from such a build, which
 * every program of an upgrade (XDP, cpumap, tracepoints) then replaces.
 * In every other build STEER_SALT() is nothing.
 */
#ifndef XDP_STEER_SALT_H
#define XDP_STEER_SALT_H

#ifdef STEER_BUILD_SALT
#define STEER_SALT()							\
	do {								\
		volatile __u32 salt_ = STEER_BUILD_SALT;		\
		(void)salt_;						\
	} while (0)
#else
#define STEER_SALT()	do { } while (0)
#endif

#endif /* XDP_STEER_SALT_H */
