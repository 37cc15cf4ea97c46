// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An interface's pinned maps, opened by path and checked against this
 * build's layout: see maps.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/names.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "xdp_steer/stats.h"
#include "xdp_steer/balance.h"
#include "xdp_steer/drain.h"
#include "xdp_steer/rx_slots.h"
#include "xdp_steer/maps.h"
#include "kernel/maps.h"
#include "kernel/possible.h"

static const struct {
	const char *name;
	size_t off;
	__u32 type, key_size, value_size, max_entries;
} map_list[] = {
#define MAPS_ENTRY_(name, type, key, value, max, flags)			\
	{ #name, offsetof(struct steer_maps, name), type, sizeof(key),	\
	  sizeof(value), max },
	STEER_MAPS(MAPS_ENTRY_)
#undef MAPS_ENTRY_
};
#define NMAPS (sizeof(map_list) / sizeof(map_list[0]))

static int *fd_of(struct steer_maps *m, size_t i)
{
	return (int *)((char *)m + map_list[i].off);
}

/* The map's size is this version's: the object's, or for a cpumap the
 * kernel's possible CPUs as the loader sized it (prog.c), the same for
 * both banks. */
static bool entries_ok(struct steer_maps *m, size_t i, __u32 entries)
{
	/* The per-slot maps: R rows as the loader sized them, the same R
	 * for both. */
	if (map_list[i].off == offsetof(struct steer_maps, steer_buckets) ||
	    map_list[i].off == offsetof(struct steer_maps, steer_load)) {
		if (!entries || entries % STEER_TABLE_MAX ||
		    entries > map_list[i].max_entries ||
		    (m->rx_rows && entries / STEER_TABLE_MAX != m->rx_rows))
			return false;
		m->rx_rows = entries / STEER_TABLE_MAX;
		return true;
	}
	/* The slot-keyed maps of one entry a slot: rows as sized at load
	 * (R, or 256 of an older version kept), the same for both. The
	 * others keyed by slot (steer_seq, steer_deq, steer_queued) have
	 * rows of the span's size: checked once all are open (span_ok()). */
	if (map_list[i].off == offsetof(struct steer_maps, steer_rx_cpu) ||
	    map_list[i].off == offsetof(struct steer_maps, steer_rx_lease)) {
		if (!entries || entries > map_list[i].max_entries ||
		    (m->slot_rows && entries != m->slot_rows))
			return false;
		m->slot_rows = entries;
		return true;
	}
	/* Sized by the span: checked against it once all are open
	 * (span_ok()). */
	if (map_list[i].off == offsetof(struct steer_maps, steer_wdone) ||
	    map_list[i].off == offsetof(struct steer_maps, steer_wenq)) {
		if (!entries || entries % 2 || entries > STEER_CPU_TARGETS ||
		    (m->span && entries / 2 != m->span))
			return false;
		m->span = entries / 2;
		return true;
	}
	if (map_list[i].off == offsetof(struct steer_maps, steer_seq) ||
	    map_list[i].off == offsetof(struct steer_maps, steer_deq) ||
	    map_list[i].off == offsetof(struct steer_maps, steer_queued) ||
	    map_list[i].off == offsetof(struct steer_maps, steer_weights))
		return entries != 0;
	if (map_list[i].type != BPF_MAP_TYPE_CPUMAP)
		return entries == map_list[i].max_entries;
	if (!entries || entries > STEER_CPU_IDS ||
	    (m->cpumap_entries && entries != m->cpumap_entries))
		return false;
	m->cpumap_entries = entries;
	return true;
}

static __u32 entries_of(int fd)
{
	struct bpf_map_info info;

	return maps_info(fd, &info) ? 0 : info.max_entries;
}

/* The maps sized by the span S have its sizes: steer_seq a row of 2S
 * targets per receiver slot, steer_deq 2S rows of a slot each,
 * steer_queued a row of S per slot and one more (the CPUs without a
 * slot), steer_weights S entries per policy slot, the cpumaps at most S. */
static bool span_ok(const struct steer_maps *m, const char **missing)
{
	__u32 t = 2 * m->span;

	*missing = STEER_STR(steer_seq);
	if (entries_of(m->steer_seq) != t * m->slot_rows)
		return false;
	*missing = STEER_STR(steer_deq);
	if (entries_of(m->steer_deq) != t * m->slot_rows)
		return false;
	*missing = STEER_STR(steer_queued);
	if (entries_of(m->steer_queued) != (m->slot_rows + 1) * m->span)
		return false;
	*missing = STEER_STR(steer_weights);
	if (entries_of(m->steer_weights) != STEER_SLOTS * m->span)
		return false;
	*missing = STEER_STR(cpu_map);
	return m->cpumap_entries <= m->span;
}

int maps_open(const char *dir, struct steer_maps *m, const char **missing)
{
	return maps_open_prefer(dir, m, missing, NULL);
}

int maps_open_prefer(const char *dir, struct steer_maps *m,
		     const char **missing, const char *suffix)
{
	char path[PATH_MAX + 64];
	size_t i;
	int err;

	for (i = 0; i < NMAPS; i++)
		*fd_of(m, i) = -1;
	m->cpumap_entries = 0;
	m->span = 0;
	m->rx_rows = 0;
	m->slot_rows = 0;
	if (snprintf(m->dir, sizeof(m->dir), "%s", dir) >= (int)sizeof(m->dir))
		return -ENAMETOOLONG;
	for (i = 0; i < NMAPS; i++) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);

		*fd_of(m, i) = -1;
		if (suffix) {
			snprintf(path, sizeof(path), "%s/%s%s", dir,
				 map_list[i].name, suffix);
			*fd_of(m, i) = bpf_obj_get(path);
		}
		if (*fd_of(m, i) < 0) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 map_list[i].name);
			*fd_of(m, i) = bpf_obj_get(path);
		}
		err = *fd_of(m, i) < 0 ? -errno :
		      bpf_obj_get_info_by_fd(*fd_of(m, i), &info, &len) ? -errno :
		      /* Another version's map: its values are not ours to
		       * read (a counter added moves the fields after it; a
		       * per-CPU map became per receiver slot). */
		      info.type != map_list[i].type ||
		      info.key_size != map_list[i].key_size ||
		      info.value_size != map_list[i].value_size ||
		      !entries_ok(m, i, info.max_entries) ? -EPROTO : 0;
		if (err) {
			if (missing)
				*missing = map_list[i].name;
			maps_close(m);
			return err;
		}
	}
	if (!span_ok(m, missing ? missing : &(const char *){ NULL })) {
		maps_close(m);
		return -EPROTO;
	}
	return 0;
}

void maps_close(struct steer_maps *m)
{
	size_t i;

	for (i = 0; i < NMAPS; i++) {
		if (*fd_of(m, i) >= 0)
			close(*fd_of(m, i));
		*fd_of(m, i) = -1;
	}
}

int maps_percpu_read(int fd, __u32 key, size_t value_size, void *by_id)
{
	const struct possible_cpus *p = possible_cpus();
	void *vals;
	int err = 0;

	if (!p)
		return -errno;
	/* The kernel fills one value per possible CPU, in id order; each
	 * rounded up to 8 bytes, which ours are. */
	vals = calloc(p->count, value_size);
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, vals))
		err = -errno;
	else
		possible_scatter(p, vals, value_size, by_id);
	free(vals);
	return err;
}

int maps_percpu_sum(int fd, __u32 key, size_t value_size, void *sum,
		    void *per_cpu)
{
	int span = possible_span(), err;
	size_t nfields = value_size / sizeof(__u64), c, f;
	__u64 *vals, *out = sum;

	if (span < 0)
		return span;
	vals = calloc(span, value_size);
	if (!vals)
		return -ENOMEM;
	err = maps_percpu_read(fd, key, value_size, vals);
	if (err) {
		free(vals);
		return err;
	}
	memset(sum, 0, value_size);
	for (c = 0; c < (size_t)span; c++)
		for (f = 0; f < nfields; f++)
			out[f] += vals[c * nfields + f];
	if (per_cpu)
		memcpy(per_cpu, vals, span * value_size);
	free(vals);
	return 0;
}

int maps_write_array(int fd, __u32 first, const void *values,
		     size_t value_size, __u32 n)
{
	__u32 *keys, count = n, i;
	int err;

	if (!n)
		return 0;
	keys = calloc(n, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		keys[i] = first + i;
	err = bpf_map_update_batch(fd, keys, values, &count, NULL);
	if (err == -EINVAL || err == -EOPNOTSUPP) {
		/* An old kernel: one by one. */
		for (i = 0, err = 0; i < n && !err; i++)
			if (bpf_map_update_elem(fd, &keys[i], (const char *)values +
						i * value_size, BPF_ANY))
				err = -errno;
	}
	free(keys);
	return err;
}

/* Keys per batch: with 256 CPUs and 16-byte values, 1 MiB of values. */
#define SCAN_CHUNK	256

/* Whether lookups batch: until a kernel refuses (BPF_MAP_LOOKUP_BATCH
 * came in 5.6), or a test or benchmark turns it off to compare. One
 * refusal is enough: every later read would be refused the same. */
static bool batch_on = true;

void maps_batch_use(bool on)
{
	batch_on = on;
}

/* A batch refused as an old kernel refuses it. */
static bool batch_refused(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP;
}

int maps_percpu_scan(int fd, __u32 nkeys, size_t value_size,
		     int (*fn)(__u32 key, const void *values, int ncpus,
			       void *arg), void *arg)
{
	const struct possible_cpus *p = possible_cpus();
	__u32 keys[SCAN_CHUNK], first, n, i, prev, out;
	int err = 0;
	char *vals, *by_id;
	size_t row;

	if (!p)
		return -errno;
	row = (size_t)p->count * value_size;
	vals = calloc(SCAN_CHUNK, row);
	by_id = calloc(p->span, value_size);
	if (!vals || !by_id) {
		free(vals);
		free(by_id);
		return -ENOMEM;
	}
	for (first = 0; first < nkeys && !err; first += n) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);

		n = nkeys - first < SCAN_CHUNK ? nkeys - first : SCAN_CHUNK;
		if (batch_on) {
			/* The batch starts after the key given (at 0 for
			 * none). */
			prev = first - 1;
			err = bpf_map_lookup_batch(fd, first ? &prev : NULL,
						   &out, keys, vals, &n, &opts);
			if (err == -ENOENT)	/* the map's end: n is set */
				err = 0;
			if (batch_refused(err)) {
				batch_on = false;	/* an old kernel: one by one */
				err = 0;
				n = 0;
				continue;
			}
			if (!err && (!n || keys[0] != first))
				err = -EIO;
		} else {
			for (i = 0; i < n && !err; i++) {
				keys[i] = first + i;
				if (bpf_map_lookup_elem(fd, &keys[i],
							vals + i * row))
					err = -errno;
			}
		}
		for (i = 0; i < n && !err; i++) {
			possible_scatter(p, vals + i * row, value_size, by_id);
			err = fn(keys[i], by_id, p->span, arg);
		}
	}
	free(vals);
	free(by_id);
	return err;
}

/* Calls fn on each key (and its value) of a rule map whose keys carry the
 * slot at byte offset 'slot_off' and belong to 'slot'. Keys are collected
 * first: deleting while walking a hash restarts the walk. */
static int for_slot_keys(int fd, size_t key_size, size_t slot_off, __u32 slot,
			 int (*fn)(int fd, const void *key, void *arg),
			 void *arg)
{
	char *keys = NULL, *tmp, cur[64], next[64];
	size_t n = 0, cap = 0, i;
	void *prev = NULL;
	int err = 0;
	__u32 s;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(&s, next + slot_off, sizeof(s));
		if (s == slot) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				tmp = realloc(keys, cap * key_size);
				if (!tmp) {
					err = -ENOMEM;
					goto out;
				}
				keys = tmp;
			}
			memcpy(keys + n++ * key_size, next, key_size);
		}
		memcpy(cur, next, key_size);
		prev = cur;
	}
	for (i = 0; !err && i < n; i++)
		err = fn(fd, keys + i * key_size, arg);
out:
	free(keys);
	return err;
}

int maps_for_flow_rules(const struct steer_maps *m, __u32 slot,
			int (*fn)(int fd, const void *key, void *arg), void *arg)
{
	return for_slot_keys(m->flow_rules, sizeof(struct steer_rule_key),
			     offsetof(struct steer_rule_key, slot), slot, fn,
			     arg);
}

int maps_for_prefix_rules(const struct steer_maps *m, __u32 slot,
			  int (*fn)(int fd, const void *key, void *arg),
			  void *arg)
{
	return for_slot_keys(m->prefix_rules, sizeof(struct steer_prefix_key),
			     offsetof(struct steer_prefix_key, slot), slot, fn,
			     arg);
}

int maps_id(int fd, __u32 *id)
{
	struct bpf_map_info info;
	int err = maps_info(fd, &info);

	if (!err)
		*id = info.id;
	return err;
}

int maps_info(int fd, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(fd, info, &len) ? -errno : 0;
}

int maps_pinned_info(const char *path, struct bpf_map_info *info)
{
	int fd = bpf_obj_get(path), err;

	if (fd < 0)
		return -errno;
	err = maps_info(fd, info);
	close(fd);
	return err;
}

int maps_pinned_same(const struct steer_maps *m)
{
	char path[PATH_MAX + 64];
	__u32 pinned = 0, ours = 0;
	int fd, err;

	snprintf(path, sizeof(path), "%s/steer_ctl", m->dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	err = maps_id(fd, &pinned);
	close(fd);
	if (!err)
		err = maps_id(m->steer_ctl, &ours);
	return err ? err : pinned == ours;
}

int maps_read_array(int fd, __u32 first, __u32 n, size_t value_size,
		    void *out)
{
	__u32 keys[SCAN_CHUNK], got, i, prev, next, done;
	int err = 0;

	for (done = 0; done < n && !err; done += got) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);

		got = n - done < SCAN_CHUNK ? n - done : SCAN_CHUNK;
		if (batch_on) {
			/* The batch starts after the key given (at 0 for
			 * none). */
			prev = first + done - 1;
			err = bpf_map_lookup_batch(fd, first + done ? &prev : NULL,
						   &next, keys,
						   (char *)out + (size_t)done * value_size,
						   &got, &opts);
			if (err == -ENOENT)	/* the map's end: got is set */
				err = 0;
			if (!err && (!got || keys[0] != first + done))
				err = -EIO;
			if (!batch_refused(err))
				continue;
			batch_on = false;	/* an old kernel: one by one */
			got = n - done < SCAN_CHUNK ? n - done : SCAN_CHUNK;
		}
		for (i = 0, err = 0; i < got && !err; i++) {
			keys[i] = first + done + i;
			if (bpf_map_lookup_elem(fd, &keys[i], (char *)out +
						(size_t)(done + i) * value_size))
				err = -errno;
		}
	}
	return err;
}

/* cpu_of[slot]: the CPU id holding each of the R slots, or -1; *nslots
 * one past the last slot held, *ncpus one past the highest CPU holding
 * one. Read in one batch: R lookups a round cost the balancer. */
static int *slot_cpus(const struct steer_maps *m, int span, __u32 *nslots,
		      int *ncpus)
{
	__u32 n = m->rx_rows ? m->rx_rows : 1, s, *v;
	int *cpu_of = calloc(n, sizeof(*cpu_of)), err;

	v = calloc(n, sizeof(*v));
	err = !cpu_of || !v ? -ENOMEM :
	      m->rx_rows ? maps_read_array(m->steer_rx_cpu, 0, m->rx_rows,
					   sizeof(*v), v) : 0;
	if (err) {
		free(cpu_of);
		free(v);
		errno = -err;
		return NULL;
	}
	*nslots = 0;
	*ncpus = 0;
	for (s = 0; s < m->rx_rows; s++) {
		cpu_of[s] = -1;
		if (!v[s] || (int)v[s] - 1 >= span)
			continue;
		cpu_of[s] = (int)v[s] - 1;
		*nslots = s + 1;
		if (cpu_of[s] >= *ncpus)
			*ncpus = cpu_of[s] + 1;
	}
	free(v);
	return cpu_of;
}

/* The rows of the slots held (steer_rx_cpu written), into a buffer of
 * nslots rows of STEER_TABLE_MAX values; NULL with errno. */
static char *slot_rows(int fd, const int *cpu_of, __u32 nslots,
		       size_t value_size)
{
	char *rows = calloc((size_t)(nslots ? nslots : 1) * STEER_TABLE_MAX,
			    value_size);
	__u32 s;
	int err = 0;

	if (!rows) {
		errno = ENOMEM;
		return NULL;
	}
	for (s = 0; s < nslots && !err; s++)
		if (cpu_of[s] >= 0)
			err = maps_read_array(fd, s * STEER_TABLE_MAX,
					      STEER_TABLE_MAX, value_size,
					      rows + (size_t)s *
						     STEER_TABLE_MAX *
						     value_size);
	if (err) {
		free(rows);
		errno = -err;
		return NULL;
	}
	return rows;
}

int maps_rx_scan(const struct steer_maps *m, int fd, size_t value_size,
		 int (*fn)(__u32 key, const void *values, int ncpus,
			   void *arg), void *arg)
{
	const struct possible_cpus *p = possible_cpus();
	int *cpu_of = NULL, err = 0, ncpus = 0;
	char *rows = NULL, *by_id = NULL;
	__u32 s, k, nslots = 0;

	if (!p)
		return -errno;
	cpu_of = slot_cpus(m, p->span, &nslots, &ncpus);
	if (!cpu_of)
		return -errno;
	rows = slot_rows(fd, cpu_of, nslots, value_size);
	if (!rows) {
		err = -errno;
		goto out;
	}
	/* Up to the highest CPU holding a slot, not every possible one: on
	 * a machine of 4096 the scan would touch 4096 values a bucket. The
	 * CPUs without a slot stay zero: the same ones at every bucket. */
	by_id = calloc(ncpus ? ncpus : 1, value_size);
	if (!by_id) {
		err = -ENOMEM;
		goto out;
	}
	for (k = 0; k < STEER_TABLE_MAX && !err; k++) {
		for (s = 0; s < nslots; s++)
			if (cpu_of[s] >= 0)
				memcpy(by_id + (size_t)cpu_of[s] * value_size,
				       rows + ((size_t)s * STEER_TABLE_MAX + k) *
					      value_size, value_size);
		err = fn(k, by_id, ncpus, arg);
	}
out:
	free(cpu_of);
	free(rows);
	free(by_id);
	return err;
}

int maps_rx_sum(const struct steer_maps *m, int fd, size_t value_size,
		void *sum)
{
	const struct possible_cpus *p = possible_cpus();
	size_t nfields = value_size / sizeof(__u64);
	__u64 *out = sum;
	const __u64 *row;
	int *cpu_of, ncpus;
	__u32 s, k, nslots;
	char *rows;

	if (!p)
		return -errno;
	memset(sum, 0, STEER_TABLE_MAX * value_size);
	cpu_of = slot_cpus(m, p->span, &nslots, &ncpus);
	if (!cpu_of)
		return -errno;
	rows = slot_rows(fd, cpu_of, nslots, value_size);
	if (!rows) {
		free(cpu_of);
		return -errno;
	}
	for (s = 0; s < nslots; s++) {
		if (cpu_of[s] < 0)
			continue;
		row = (const __u64 *)(rows + (size_t)s * STEER_TABLE_MAX *
					     value_size);
		for (k = 0; k < STEER_TABLE_MAX * nfields; k++)
			out[k] += row[k];
	}
	free(rows);
	free(cpu_of);
	return 0;
}

int maps_rx_read(const struct steer_maps *m, int fd, __u32 key,
		 size_t value_size, void *by_id)
{
	const struct possible_cpus *p = possible_cpus();
	int *cpu_of, err = 0, ncpus;
	__u32 s, k, nslots;

	if (!p)
		return -errno;
	cpu_of = slot_cpus(m, p->span, &nslots, &ncpus);
	if (!cpu_of)
		return -errno;
	memset(by_id, 0, (size_t)p->span * value_size);
	for (s = 0; s < m->rx_rows && !err; s++) {
		k = s * STEER_TABLE_MAX + key;
		if (cpu_of[s] >= 0 &&
		    bpf_map_lookup_elem(fd, &k, (char *)by_id +
					(size_t)cpu_of[s] * value_size))
			err = -errno;
	}
	free(cpu_of);
	return err;
}

int maps_queued_sum(const struct steer_maps *m, struct steer_cpu_stats *by_cpu)
{
	__u32 n = (m->slot_rows + 1) * m->span, i;
	struct steer_cpu_stats *rows;
	int err;

	memset(by_cpu, 0, STEER_CPU_IDS * sizeof(*by_cpu));
	if (!m->span || m->span > STEER_CPU_IDS)
		return -EINVAL;
	rows = calloc(n, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	err = maps_read_array(m->steer_queued, 0, n, sizeof(*rows), rows);
	for (i = 0; !err && i < n; i++) {
		by_cpu[i % m->span].packets += rows[i].packets;
		by_cpu[i % m->span].bytes += rows[i].bytes;
	}
	free(rows);
	return err;
}
