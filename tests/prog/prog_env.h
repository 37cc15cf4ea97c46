/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * prog_env.h - what every file of the program tier shares: the loaded
 * program, the CPUs a case can name, and expect_run(), which runs one frame
 * and checks every counter against what the case says.
 */
#ifndef XDP_STEER_PROG_ENV_H
#define XDP_STEER_PROG_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

#include "frame.h"
#include "prog_util.h"
#include "test.h"

/* A CPU id that never gets a cpumap entry (cpumap keys must be possible
 * CPUs; this one only needs to be a valid index of steer_queued's rows). */
#define CPU_MISSING	(STEER_MAX_CPUS - 1)
/* CPUs of a case, resolved when the test runs. */
#define CPU_NONE	(-1)	/* no steer_queued entry moves */
#define AT_LOCAL	(-2)	/* the CPU the test runs on */
#define AT_REMOTE	(-3)	/* another present CPU */

#define QSIZE		256
#define TABLE_SIZE	STEER_TABLE_DEFAULT

extern struct steer_prog prog;
extern int local_cpu, remote_cpu;
extern const __u64 test_key[STEER_HASH_KEY_WORDS];

/* Before any test: loads the program and picks local_cpu and remote_cpu.
 * Tests pass those as arguments, evaluated before their ready(): with a
 * name filter, any test may run first. */
void prog_env_load(void);
/* Every test starts here: loads the program on first use and empties its
 * maps; false (and the test skipped or failed) when it cannot be used. */
bool ready(void);
int resolve_cpu(int cpu);

#define OFF(field)	offsetof(struct steer_stats, field)
#define ALSO_FRAG	(1u << 0)
#define ALSO_FLOW_HIT	(1u << 1)
#define ALSO_PREFIX_HIT	(1u << 2)
#define ALSO_MALFORMED	(1u << 3)	/* encap_malformed */
#define ALSO_PARTIAL	(1u << 4)	/* parsed_partial */

/* What one frame must do. */
struct expect {
	int verdict;
	int cpu;		/* whose steer_queued entry counts the
				 * frame, or CPU_NONE */
	size_t outcome;		/* the one redirected/passed_* counter */
	unsigned int also;	/* ALSO_*: other counters that move */
	__u32 encap;		/* STEER_ENCAP_* whose counter moves, or 0 */
};

#define REDIRECT(cpu, also)	{ XDP_REDIRECT, cpu, OFF(redirected), also, 0 }
#define PASS_LOCAL(also)	{ XDP_PASS, AT_LOCAL, OFF(passed_local), also, 0 }
#define PASS(counter, also)	{ XDP_PASS, CPU_NONE, OFF(counter), also, 0 }
/* The same for a frame of encapsulation 'encap' (STEER_ENCAP_'encap'). */
#define TUNNEL(encap, cpu, also)					\
	{ XDP_REDIRECT, cpu, OFF(redirected), also, STEER_ENCAP_##encap }
#define TUNNEL_PASS(encap, counter, also)				\
	{ XDP_PASS, CPU_NONE, OFF(counter), also, STEER_ENCAP_##encap }
/* A malformed one without an IP header read (PPPoE, MPLS): passed as a
 * parse error, counted as malformed. */
#define MALFORMED(encap)						\
	TUNNEL_PASS(encap, passed_parse_error, ALSO_MALFORMED)
/* A malformed one behind an IP header: steered by what was read (bpf/
 * parse_result.h, PARSE_PARTIAL) to 'cpu', counted as malformed and partial. */
#define MALFORMED_STEERED(encap, cpu)					\
	TUNNEL(encap, cpu, ALSO_MALFORMED | ALSO_PARTIAL)
/* A frame whose headers after its IP header were cut short or malformed,
 * steered by what was read. */
#define PARTIAL(cpu)		REDIRECT(cpu, ALSO_PARTIAL)

struct counter_name {
	const char *name;
	size_t off;
	unsigned int bit;	/* ALSO_* for the extras */
};

/* The redirected/passed_* counters (exactly one moves per frame) and the
 * ones that move beside them; the encapsulations' (encaps[i].bit is the
 * STEER_ENCAP_* id). */
extern const struct counter_name outcomes[];
extern const size_t n_outcomes;
extern const struct counter_name extras[];
extern const size_t n_extras;
extern const struct counter_name encaps[];
extern const size_t n_encaps;

__u64 counter(const struct steer_stats *st, size_t off);

/* Runs one frame on zeroed counters and checks them all against 'e';
 * prints the frame when anything is off. */
bool expect_run(const struct frame *f, const struct expect *e,
		const char *label);

/* Runs 'f' once on CPU 'me' (the process pinned there, and left there)
 * on zeroed frame counters: the CPU that takes it (the one it was queued
 * to, 'me' for one the policy passes there), -1 for one passed where it
 * arrived for lack of a place, -2 when it could not run; '*st' gets the
 * counters it moved. */
int run_on_cpu(const struct frame *f, int me, struct steer_stats *st);

/* A row of a case table: a frame, the policy written for it, and what
 * it must do. */
struct prog_case {
	const char *name;
	void (*build)(struct frame *f);
	int (*policy)(const struct frame *f);
	struct expect expect;
};

/* Runs each row as a test of its own (one PASS/FAIL line each); returns 1
 * if any failed. */
int run_case_table(const struct prog_case *cases, size_t n, int argc,
		   char **argv);

/* A slot under test_key with a TABLE_SIZE table. */
void base_slot(struct steer_slot *s, __u32 flags);
/* The same, looking through every encapsulation on its standard port. */
void decap_slot(struct steer_slot *s, __u32 flags);
/* Writes 's' to slot 0 and makes slot 0 active. */
int commit(const struct steer_slot *s);
/* The hash the program should compute for the frame under 's': of its
 * inner flow where 's' looks through its encapsulation (frame_flow()),
 * else of its outer one (frame_flow_plain()). */
__u32 frame_hash(const struct frame *f, const struct steer_slot *s);

/* Builds a frame with 'fn' and finishes it; false (a failed test) if the
 * builder could not. */
bool build_frame(struct frame *f, void (*fn)(struct frame *f));

/* Tests of the other files, for main(). */
extern const struct test_case loop_tests[];
extern const size_t n_loop_tests;
extern const struct test_case random_tests[];
extern const size_t n_random_tests;
extern const struct test_case drain_tests[];
extern const size_t n_drain_tests;
extern const struct test_case scan_tests[];
extern const size_t n_scan_tests;
extern const struct test_case filter_tests[];
extern const size_t n_filter_tests;
extern const struct test_case encap_tests[];
extern const size_t n_encap_tests;
extern const struct test_case balance_tests[];
extern const size_t n_balance_tests;
extern const struct test_case numa_tests[];
extern const size_t n_numa_tests;
extern const struct test_case key_tests[];
extern const size_t n_key_tests;
/* compiled.c: one test per policy case; returns 1 if any failed. */
int run_compiled_tests(int argc, char **argv);
/* encap.c: one test per encapsulated frame; returns 1 if any failed. */
int run_encap_cases(int argc, char **argv);

#endif /* XDP_STEER_PROG_ENV_H */
