/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * omit.h - parts of the XDP program the per-frame benchmark can leave out.
 *
 * tests/bench/bench_prog times the program against copies of itself built
 * with one part left out (STEER_OMIT, Makefile: tests/bench/omit/), in the
 * same run, so a cost that grows points at its part. The real object
 * leaves nothing out: every omitted() below is a constant 0 there and
 * compiles away.
 *
 * X(NAME, what the copy leaves out)
 */
#ifndef XDP_STEER_OMIT_H
#define XDP_STEER_OMIT_H

#define STEER_OMIT_PARTS(X)						\
	X(PARSE, "parsing: a fixed flow instead of the frame's")	\
	X(HASH, "hashing: a fixed hash")				\
	X(COUNTERS, "the per-frame counters of steer_stats")		\
	X(CPU_STATS, "the per-target counters (steer_queued)")

enum {
#define STEER_OMIT_BIT_(name, what) STEER_OMIT_BIT_##name,
	STEER_OMIT_PARTS(STEER_OMIT_BIT_)
#undef STEER_OMIT_BIT_
	STEER_OMIT_NPARTS
};
/* A copy without any of them (tests/bench/omit/ALL.bpf.o): what is left is
 * the program's frame, the settings and table lookups and the drain check. */
#define STEER_OMIT_EVERY	((1 << STEER_OMIT_NPARTS) - 1)

#ifndef STEER_OMIT
#define STEER_OMIT 0
#endif
#define omitted(part)	(STEER_OMIT & (1 << STEER_OMIT_BIT_##part))

#endif /* XDP_STEER_OMIT_H */
