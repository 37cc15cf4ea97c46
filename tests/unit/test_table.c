// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tier: filling the indirection table by weights (loader/table.c). */
#include <errno.h>
#include <math.h>

#include "xdp_steer/sizes.h"
#include "model/table.h"
#include "test.h"

static __u32 count_of(const __u32 *t, __u32 size, __u32 cpu)
{
	__u32 b, n = 0;

	for (b = 0; b < size; b++)
		n += t[b] == cpu;
	return n;
}

/* Every CPU owns its weighted share of the table, to one bucket. */
static int shares_exact(const __u32 *t, __u32 size, const struct table_cpu *c,
			int n)
{
	double total = 0;
	__u32 owned = 0;
	int i;

	for (i = 0; i < n; i++)
		total += c[i].weight;
	for (i = 0; i < n; i++) {
		double want = size * c[i].weight / total;
		__u32 got = count_of(t, size, c[i].cpu);

		owned += got;
		if (fabs(got - want) >= 1.0) {
			printf("  cpu %u weight %u owns %u buckets of %u, wants %.2f\n",
			       c[i].cpu, c[i].weight, got, size, want);
			return 0;
		}
	}
	return owned == size;
}

/* The fewest moves any table with these quotas could need: a CPU keeps at
 * most its quota of what it had; everything else must change hands. */
static int min_moves(const __u32 *old, __u32 size, const struct table_cpu *c,
		     int n)
{
	__u32 quota[64];
	int i, keep = 0;

	table_quotas(size, c, n, quota);
	for (i = 0; i < n; i++) {
		__u32 had = count_of(old, size, c[i].cpu);

		keep += had < quota[i] ? had : quota[i];
	}
	return size - keep;
}

static void test_weights_give_exact_proportions(void)
{
	static const struct table_cpu sets[][6] = {
		{ { 0, 1 } },
		{ { 0, 1 }, { 1, 1 } },
		{ { 2, 1 }, { 3, 1 }, { 4, 1 } },
		{ { 2, 1 }, { 3, 1 }, { 4, 1 }, { 5, 1 }, { 6, 1 }, { 8, 2 } },
		{ { 1, 7 }, { 9, 3 }, { 200, 1 } },
		{ { 0, 1000 }, { 1, 1 } },
	};
	static const int lens[] = { 1, 2, 3, 6, 3, 2 };
	__u32 sizes[] = { 1, 8, 512, 4096 }, t[STEER_TABLE_MAX];
	unsigned int s, i;

	for (s = 0; s < ARRAY_SIZE(sizes); s++)
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			if ((int)sizes[s] < lens[i])
				continue;
			EXPECT_EQ(table_build(t, sizes[s], sets[i], lens[i], NULL),
				  sizes[s], "a fresh table fills every bucket");
			if (!EXPECT(shares_exact(t, sizes[s], sets[i], lens[i]),
				    "each CPU owns its weighted share to one bucket"))
				printf("  table size %u, cpu set %u\n", sizes[s], i);
		}
}

static void test_fresh_table_interleaves_cpus(void)
{
	struct table_cpu c[] = { { 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 } };
	__u32 t[16], b;

	table_build(t, 16, c, 4, NULL);
	for (b = 0; b < 16; b += 4)
		EXPECT(count_of(t + b, 4, 0) == 1 && count_of(t + b, 4, 3) == 1,
		       "every run of 4 buckets holds each of 4 equal CPUs once");
}

static void test_adding_a_cpu_moves_only_its_share(void)
{
	struct table_cpu c[] = { { 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 1 } };
	__u32 old[512], t[512];
	int moved, b, stolen_from_each[4] = { 0 };

	table_build(old, 512, c, 4, NULL);
	moved = table_build(t, 512, c, 5, old);
	EXPECT_EQ(moved, min_moves(old, 512, c, 5), "adding a CPU moves the fewest buckets possible");
	EXPECT_EQ(count_of(t, 512, 4), moved, "every moved bucket went to the new CPU");
	EXPECT(shares_exact(t, 512, c, 5), "after the change each CPU owns its share");
	for (b = 0; b < 512; b++)
		if (t[b] != old[b])
			stolen_from_each[old[b]]++;
	/* 102 buckets for the newcomer: 25 or 26 from each of the four. */
	for (b = 0; b < 4; b++)
		EXPECT(stolen_from_each[b] >= 25 && stolen_from_each[b] <= 26,
		       "the new CPU took its buckets evenly from the others");
}

static void test_removing_a_cpu_moves_only_its_buckets(void)
{
	struct table_cpu c[] = { { 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 } };
	struct table_cpu without_2[] = { { 0, 1 }, { 1, 1 }, { 3, 1 } };
	__u32 old[512], t[512];
	int moved, b;

	table_build(old, 512, c, 4, NULL);
	moved = table_build(t, 512, without_2, 3, old);
	EXPECT_EQ(moved, 128, "removing one of 4 CPUs moves exactly its 128 buckets");
	for (b = 0; b < 512; b++)
		if (old[b] != 2 && !EXPECT_EQ(t[b], old[b], "buckets of the remaining CPUs stay"))
			break;
	EXPECT(shares_exact(t, 512, without_2, 3), "the remaining CPUs own their shares");
}

static void test_reweighting_moves_the_fewest_buckets(void)
{
	struct table_cpu before[] = { { 0, 1 }, { 1, 1 }, { 2, 1 } };
	struct table_cpu after[] = { { 0, 1 }, { 1, 1 }, { 2, 2 } };
	__u32 old[4096], t[4096];

	table_build(old, 4096, before, 3, NULL);
	EXPECT_EQ(table_build(t, 4096, after, 3, old), min_moves(old, 4096, after, 3),
		  "doubling one CPU's weight moves the fewest buckets possible");
	EXPECT(shares_exact(t, 4096, after, 3), "the new weights hold");
}

static void test_same_set_moves_nothing(void)
{
	struct table_cpu c[] = { { 5, 3 }, { 1, 1 }, { 7, 2 } };
	__u32 old[512], t[512];

	table_build(old, 512, c, 3, NULL);
	EXPECT_EQ(table_build(t, 512, c, 3, old), 0, "re-applying the same CPU set moves no bucket");
	EXPECT(!memcmp(t, old, sizeof(t)), "the table is unchanged");
}

/* 1024 workers, CPU ids 0-1023 (STEER_CPU_IDS), in the largest table:
 * each holds its share, 4 buckets; then CPU 1023 leaves and only its
 * buckets move. */
static void test_1024_workers_each_hold_buckets(void)
{
	static struct table_cpu c[STEER_CPU_IDS];
	static __u32 t[STEER_TABLE_MAX], old[STEER_TABLE_MAX];
	static __u32 count[STEER_CPU_IDS];
	int i, moved = 0, fair = 1;

	for (i = 0; i < STEER_CPU_IDS; i++)
		c[i] = (struct table_cpu){ (__u32)i, 1 };
	if (!EXPECT(table_build(t, STEER_TABLE_MAX, c, STEER_CPU_IDS, NULL) >= 0,
		    "a table of 1024 workers is built"))
		return;
	for (i = 0; i < STEER_TABLE_MAX; i++)
		if (t[i] < STEER_CPU_IDS)
			count[t[i]]++;
	for (i = 0; i < STEER_CPU_IDS; i++)
		fair &= count[i] == STEER_TABLE_MAX / STEER_CPU_IDS;
	EXPECT(fair, "every worker, CPU 1023 included, holds 4 of the 4096 buckets");
	memcpy(old, t, sizeof(t));
	EXPECT_EQ(table_build(t, STEER_TABLE_MAX, c, STEER_CPU_IDS - 1, old), 4,
		  "the table without CPU 1023 is built on it, 4 buckets moved");
	for (i = 0; i < STEER_TABLE_MAX; i++) {
		moved += t[i] != old[i];
		EXPECT(t[i] != STEER_CPU_IDS - 1, "no bucket stays on CPU 1023");
	}
	EXPECT_EQ(moved, 4, "only CPU 1023's 4 buckets move");
}

static void test_bad_input_is_refused(void)
{
	struct table_cpu c[] = { { 0, 1 }, { 1, 1 } };
	struct table_cpu zero[] = { { 0, 0 } };
	struct table_cpu dup[] = { { 3, 1 }, { 3, 1 } };
	struct table_cpu big[] = { { STEER_CPU_IDS, 1 } };
	__u32 t[512];

	EXPECT_EQ(table_build(t, 500, c, 2, NULL), -EINVAL, "a size that is not a power of two is refused");
	EXPECT_EQ(table_build(t, 512, c, 0, NULL), -EINVAL, "an empty CPU set is refused");
	EXPECT_EQ(table_build(t, 512, zero, 1, NULL), -EINVAL, "a zero weight is refused");
	EXPECT_EQ(table_build(t, 512, dup, 2, NULL), -EINVAL, "a CPU listed twice is refused");
	EXPECT_EQ(table_build(t, 512, big, 1, NULL), -EINVAL, "a CPU beyond the cpumap is refused");
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_weights_give_exact_proportions, "weights give proportions exact to one bucket"),
	TEST_ENTRY(test_fresh_table_interleaves_cpus, "a fresh table interleaves CPUs"),
	TEST_ENTRY(test_adding_a_cpu_moves_only_its_share, "adding a CPU moves only its share"),
	TEST_ENTRY(test_removing_a_cpu_moves_only_its_buckets, "removing a CPU moves only its buckets"),
	TEST_ENTRY(test_reweighting_moves_the_fewest_buckets, "re-weighting moves the fewest buckets"),
	TEST_ENTRY(test_same_set_moves_nothing, "the same CPU set moves nothing"),
	TEST_ENTRY(test_1024_workers_each_hold_buckets, "1024 workers (CPU ids to 1023) each hold buckets, and one leaving moves only its own"),
	TEST_ENTRY(test_bad_input_is_refused, "bad input is refused"),
};

TEST_MAIN("unit/table")
