// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * scan.c - the loader's batched reads, on real maps: of per-CPU arrays
 * (maps_percpu_scan): every key once, in order, each CPU's value in its
 * place, across batch boundaries and a map end that is not one; of plain
 * arrays (maps_read_array) and of the per-slot rows (maps_rx_sum,
 * maps_rx_scan): the same values as lookups one by one, from any first
 * key, to the map's end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

/* Entry k of the arrays below: its own index in both fields, and a
 * mark of the map, so a value read from a neighbour shows. */
static struct steer_load value_at(__u32 k, __u32 mark)
{
	return (struct steer_load){ .packets = k, .bytes = (__u64)mark << 32 | k };
}

static int array_of(const char *name, __u32 n, __u32 mark)
{
	struct steer_load *v = calloc(n, sizeof(*v));
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32),
				sizeof(*v), n, NULL);
	__u32 k;

	if (fd < 0 || !v) {
		free(v);
		return fd < 0 ? fd : -ENOMEM;
	}
	for (k = 0; k < n; k++)
		v[k] = value_at(k, mark);
	if (maps_write_array(fd, 0, v, sizeof(*v), n)) {
		close(fd);
		fd = -EIO;
	}
	free(v);
	return fd;
}

/* maps_read_array of n entries from 'first', batched then one by one:
 * both what the lookups give, entry for entry. */
static bool read_same(int fd, __u32 first, __u32 n, __u32 mark)
{
	struct steer_load *b = calloc(n, sizeof(*b)), *o = calloc(n, sizeof(*o));
	int eb, eo, bad = 0;
	__u32 i;

	if (!EXPECT(b && o, "memory for the values")) {
		free(b);
		free(o);
		return false;
	}
	eb = maps_read_array(fd, first, n, sizeof(*b), b);
	maps_batch_use(false);
	eo = maps_read_array(fd, first, n, sizeof(*o), o);
	maps_batch_use(true);
	for (i = 0; i < n; i++) {
		struct steer_load want = value_at(first + i, mark);

		bad += memcmp(&b[i], &want, sizeof(want)) != 0;
		bad += memcmp(&o[i], &want, sizeof(want)) != 0;
	}
	free(b);
	free(o);
	return EXPECT_EQ(eb, 0, "the batched read ran") &
	       EXPECT_EQ(eo, 0, "the read one by one ran") &
	       EXPECT_EQ(bad, 0, "both read each entry at its own key");
}

/* These two need maps only, not the program: they run on kernels that
 * cannot load it (5.10, whose batched reads are the ones to prove). */
static void test_read_array(void)
{
	int fd;

	fd = array_of("read_test", 4100, 7);
	if (!EXPECT(fd >= 0, "an array of 4100 entries was made"))
		return;
	read_same(fd, 0, 4096, 7);
	read_same(fd, 1, 255, 7);
	read_same(fd, 37, 600, 7);	/* batches not on 256 */
	read_same(fd, 4096 - 300, 304, 7);	/* to the map's end */
	read_same(fd, 4099, 1, 7);
	close(fd);
}

struct rows_seen {
	int last;		/* the CPU holding slot 0 */
	__u32 keys;
	int ncpus, bad;
};

/* Bucket k: slot 0's row at CPU 'last', slot 2's at CPU 0 (when they
 * differ: with one CPU, the last slot's). */
static int row_at_cpu(__u32 key, const void *values, int ncpus, void *arg)
{
	const struct steer_load *v = values;
	struct rows_seen *a = arg;
	struct steer_load s0 = value_at(key, 9),
			  s2 = value_at(2 * STEER_TABLE_MAX + key, 9);

	a->keys += key == a->keys;
	a->ncpus = ncpus;
	if (ncpus != a->last + 1)
		return a->bad++, 0;
	a->bad += memcmp(&v[0], &s2, sizeof(s2)) != 0;
	if (a->last)
		a->bad += memcmp(&v[a->last], &s0, sizeof(s0)) != 0;
	return 0;
}

/* maps_rx_sum and maps_rx_scan over receiver slots of which some are
 * held (steer_rx_cpu written) and one is not: the held rows, bucket for
 * bucket, each at the CPU that holds it; the free one nowhere. */
static void test_rx_rows(void)
{
	int ncpus = libbpf_num_possible_cpus(), bad = 0, i;
	struct steer_load *sum = NULL, want;
	struct rows_seen at = { 0 };
	struct steer_maps m;
	__u32 s, k, cpu, rows = 3;

	memset(&m, 0, sizeof(m));
	m.rx_rows = rows;
	m.steer_rx_cpu = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rx_cpu_test",
					sizeof(__u32), sizeof(__u32), rows,
					NULL);
	m.steer_load = array_of("rx_rows_test", rows * STEER_TABLE_MAX, 9);
	sum = calloc(STEER_TABLE_MAX, sizeof(*sum));
	if (!EXPECT(m.steer_rx_cpu >= 0 && m.steer_load >= 0 && sum,
		    "the per-slot maps were made"))
		goto out;
	/* Slot 0 held by the last possible CPU, slot 1 free, slot 2 by
	 * CPU 0 (the same CPU when there is one). */
	for (s = 0; s < rows; s++) {
		cpu = s == 0 ? (__u32)ncpus : s == 2 ? 1 : 0;
		bpf_map_update_elem(m.steer_rx_cpu, &s, &cpu, BPF_ANY);
	}
	for (i = 0; i < 2; i++) {
		maps_batch_use(i == 0);
		bad = 0;
		EXPECT_EQ(maps_rx_sum(&m, m.steer_load, sizeof(*sum), sum), 0,
			  "the rows were summed");
		for (k = 0; k < STEER_TABLE_MAX; k++) {
			want = value_at(k, 9);
			want.packets += (__u64)2 * STEER_TABLE_MAX + k;
			want.bytes += (9ull << 32) + 2 * STEER_TABLE_MAX + k;
			bad += memcmp(&sum[k], &want, sizeof(want)) != 0;
		}
		EXPECT_EQ(bad, 0, i == 0 ?
			  "batched: each bucket is the sum of the held slots' rows, the free slot's left out" :
			  "one by one: the same sums");
	}
	maps_batch_use(true);
	at.last = ncpus - 1;
	EXPECT_EQ(maps_rx_scan(&m, m.steer_load, sizeof(*sum), row_at_cpu,
			       &at), 0, "the rows were scanned");
	EXPECT_EQ(at.keys, STEER_TABLE_MAX, "every bucket once");
	EXPECT_EQ(at.ncpus, ncpus, "up to the highest CPU holding a slot");
	EXPECT_EQ(at.bad, 0, "each slot's value at the CPU holding it");
out:
	free(sum);
	if (m.steer_rx_cpu >= 0)
		close(m.steer_rx_cpu);
	if (m.steer_load >= 0)
		close(m.steer_load);
}

const struct test_case scan_tests[] = {
	TEST_ENTRY(test_percpu_scan,
		   "the loader's batched per-CPU array scan reads every key once, in place"),
	TEST_ENTRY(test_read_array,
		   "a batched array read gives what lookups one by one give, from any first key to the map's end"),
	TEST_ENTRY(test_rx_rows,
		   "the per-slot sum adds the held slots' rows bucket for bucket, batched or not, and leaves a free slot out"),
};
const size_t n_scan_tests = ARRAY_SIZE(scan_tests);
