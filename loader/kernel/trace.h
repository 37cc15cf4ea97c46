/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * trace.h - the cpumap tracepoint programs of one interface
 * (bpf/cpumap_trace.bpf.c): loaded once on the interface's pinned XDP
 * maps (they keep the drain's evidence there), their links and own maps
 * pinned in the interface's pin directory, so they count from the first
 * apply until detach removes the pins (include/xdp_steer/trace.h says why that
 * span).
 *
 * Functions return 0 or a negative errno, with a sentence in 'why'.
 */
#ifndef XDP_STEER_TRACE_H
#define XDP_STEER_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/maps.h"
#include "util/why.h"

/* An fd per map of STEER_TRACE_MAPS, named like the map. */
struct trace_maps {
#define TRACE_FD_(name, ...) int name;
	STEER_TRACE_MAPS(TRACE_FD_)
#undef TRACE_FD_
};

/* Makes the tracepoint programs count for the cpumaps of 'm' (the maps
 * pinned in m->dir): when their links are not pinned there yet, loads
 * and attaches them and pins their maps and then their links; in any case
 * writes the ids of m's two cpumaps into cpumap_ids. First settles (or
 * leaves under way) an upgrade's handing over (below). On failure nothing
 * new is left pinned. */
int trace_ensure(const struct steer_maps *m, struct why *why);

/*
 * Handing over, for an upgrade in place whose tracepoint programs are not
 * this version's. The drain's evidence is exact counts: at every moment
 * each cpumap ring must be counted by exactly one set of programs, so the
 * two sets split the banks (STEER_BANKS) between them:
 *   begin    the running (outgoing) set counts bank 'keep' alone, and
 *            this version's (incoming) set, pinned under the same names
 *            with "_next", counts the other bank, which must hold no
 *            entry yet (-EBUSY, said in 'why', when it does);
 *   then     the apply moves every worker to new entries in the other
 *            bank (the slot's bank switch), and its buckets drain there
 *            from bank 'keep' as for a new queue size;
 *   finish   once bank 'keep' holds no entry (retired), the incoming set
 *            counts both banks and takes the plain names, which detaches
 *            the outgoing one.
 * Both sets count NAPI polls meanwhile, which only ever need to change.
 * The pins say where a handing over stands, so a run killed at any step
 * leaves a state the next apply (trace_ensure()) settles.
 */
int trace_handover_begin(const struct steer_maps *m, __u32 keep,
			 struct why *why);
/* 0 when no handing over is under way (finished now, or none was), 1
 * while the outgoing set's bank still holds entries, or a negative errno. */
int trace_handover_finish(const struct steer_maps *m, struct why *why);
/* Undoes a begin whose apply failed, while the incoming set's bank holds
 * no entry: 0 when undone or none was under way, 1 when it stays (to
 * finish later), or a negative errno. */
int trace_handover_abort(const struct steer_maps *m, struct why *why);

/* The banks (a bit each) the set pinned in 'dir' counts ('next': the
 * incoming one), or a negative errno (-ENOENT: no such set). */
int trace_banks(const char *dir, bool next);

/* 1 when the tracepoint programs running for 'm' (their links pinned in
 * m->dir; with 'next', the incoming set of a handing over) have this
 * version's code, or none run; 0 when one differs, named in 'why'; a
 * negative errno when that cannot be told. */
int trace_is_current(const struct steer_maps *m, bool next, struct why *why);

/* Opens the trace maps pinned in 'dir' if both links are pinned there
 * too; -ENOENT when they are not (an interface attached by an older
 * xdp-steer, or loaded by xdp-loader and not applied since), -ESTALE when
 * a map has another value size than this version's (an older xdp-steer
 * pinned them; the next apply makes them anew). */
int trace_open(const char *dir, struct trace_maps *t);
void trace_close(struct trace_maps *t);

#endif /* XDP_STEER_TRACE_H */
