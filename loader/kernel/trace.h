/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * trace.h - the cpumap tracepoint programs of one interface
 * (bpf/cpumap_trace.bpf.c): loaded once on the interface's pinned XDP
 * maps (they keep the drain's evidence there), their links and own maps
 * pinned in the interface's pin directory, so they count from the first
 * apply until detach removes the pins (include/xdp_steer.h says why that
 * span).
 *
 * Functions return 0 or a negative errno, with a sentence in 'why'.
 */
#ifndef XDP_STEER_TRACE_H
#define XDP_STEER_TRACE_H

#include <stddef.h>

#include "kernel/maps.h"

/* An fd per map of STEER_TRACE_MAPS, named like the map. */
struct trace_maps {
#define TRACE_FD_(name, ...) int name;
	STEER_TRACE_MAPS(TRACE_FD_)
#undef TRACE_FD_
};

/* Makes the tracepoint programs count for the cpumaps of 'm' (the maps
 * pinned in m->dir): when their links are not pinned there yet, loads
 * and attaches them and pins their maps and then their links; in any case
 * writes the ids of m's two cpumaps into cpumap_ids. On failure nothing
 * new is left pinned. */
int trace_ensure(const struct steer_maps *m, char *why, size_t len);

/* 1 when the tracepoint programs running for 'm' (their links pinned in
 * m->dir) have this version's code, or none run; 0 when one differs,
 * named in 'why'; a negative errno when that cannot be told. Used before
 * an upgrade in place: they cannot be swapped without a moment when both
 * or neither count, and the drain's evidence is exact counts. */
int trace_is_current(const struct steer_maps *m, char *why, size_t len);

/* Opens the trace maps pinned in 'dir' if both links are pinned there
 * too; -ENOENT when they are not (an interface attached by an older
 * xdp-steer, or loaded by xdp-loader and not applied since), -ESTALE when
 * a map has another value size than this version's (an older xdp-steer
 * pinned them; the next apply makes them anew). */
int trace_open(const char *dir, struct trace_maps *t);
void trace_close(struct trace_maps *t);

#endif /* XDP_STEER_TRACE_H */
