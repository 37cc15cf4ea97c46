// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * scan.c - the loader's batched read of per-CPU arrays (maps_percpu_scan),
 * on a real map: every key once, in order, each CPU's value in its place,
 * across batch boundaries and a map end that is not one.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "prog_env.h"
#include "kernel/maps.h"

#define NKEYS	600	/* two batches of 256 and a part */

struct val {
	__u64 key;
	__u64 cpu;
};

struct seen {
	__u32 next;	/* the key expected next */
	int bad;
};

static int check_one(__u32 key, const void *values, int ncpus, void *arg)
{
	const struct val *v = values;
	struct seen *s = arg;
	int c;

	if (key != s->next++)
		s->bad++;
	for (c = 0; c < ncpus; c++)
		if (v[c].key != key || v[c].cpu != (__u64)c)
			s->bad++;
	return 0;
}

static int stop_at_7(__u32 key, const void *values, int ncpus, void *arg)
{
	(void)values;
	(void)ncpus;
	*(__u32 *)arg = key;
	return key == 7 ? -ECANCELED : 0;
}

static void test_percpu_scan(void)
{
	int ncpus = libbpf_num_possible_cpus(), fd, c, err = 0;
	struct seen s = {};
	struct val *v;
	__u32 key, last = 0;

	if (!ready())
		return;
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "scan_test",
			    sizeof(__u32), sizeof(struct val), NKEYS, NULL);
	v = calloc(ncpus, sizeof(*v));
	if (!EXPECT(fd >= 0 && v, "a per-CPU array was made"))
		goto out;
	for (key = 0; key < NKEYS && !err; key++) {
		for (c = 0; c < ncpus; c++)
			v[c] = (struct val){ key, c };
		err = bpf_map_update_elem(fd, &key, v, BPF_ANY);
	}
	if (!EXPECT_EQ(err, 0, "its values were written"))
		goto out;
	EXPECT_EQ(maps_percpu_scan(fd, NKEYS, sizeof(struct val), check_one,
				   &s), 0, "the scan ran");
	EXPECT_EQ(s.next, NKEYS, "every key was seen once");
	EXPECT_EQ(s.bad, 0, "in order, each CPU's value in its place");
	s = (struct seen){};
	EXPECT_EQ(maps_percpu_scan(fd, 300, sizeof(struct val), check_one,
				   &s), 0, "a scan of the first 300 keys ran");
	EXPECT_EQ(s.next, 300, "and saw those only");
	EXPECT_EQ(maps_percpu_scan(fd, NKEYS, sizeof(struct val), stop_at_7,
				   &last), -ECANCELED,
		  "the callback's error ends the scan");
	EXPECT_EQ(last, 7, "at the key that returned it");
out:
	if (fd >= 0)
		close(fd);
	free(v);
}

const struct test_case scan_tests[] = {
	TEST_ENTRY(test_percpu_scan,
		   "the loader's batched per-CPU array scan reads every key once, in place"),
};
const size_t n_scan_tests = ARRAY_SIZE(scan_tests);
