// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * prog_util.c - load bpf/xdp_steer.bpf.o unpinned and drive its maps and
 * bpf_prog_test_run_opts (see prog_util.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "prog_util.h"
#include "kernel/clock.h"
#include "kernel/maps.h"

/* libbpf's warnings explain a failed load; its info lines are noise in a
 * test log unless asked for. */
static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level != LIBBPF_WARN && !getenv("XDP_STEER_VERBOSE"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int steer_prog_find_obj(char *buf, size_t size)
{
	const char *env = getenv("XDP_STEER_OBJ");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		if ((size_t)snprintf(buf, size, "%s", env) >= size)
			return -ENAMETOOLONG;
		return 0;
	}
	if (!access(STEER_PROG_OBJ_PATH, R_OK)) {
		if ((size_t)snprintf(buf, size, "%s", STEER_PROG_OBJ_PATH) >= size)
			return -ENAMETOOLONG;
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	/* <root>/tests/<tier>/<binary> */
	if ((size_t)snprintf(buf, size, "%s/../../%s", dirname(exe),
			     STEER_PROG_OBJ_PATH) >= size)
		return -ENAMETOOLONG;
	return access(buf, R_OK) ? -ENOENT : 0;
}

static const struct {
	const char *name;
	size_t off;
} map_fds[] = {
#define MAP_FD_(name, ...) { #name, offsetof(struct steer_prog, name) },
	STEER_MAPS(MAP_FD_)
#undef MAP_FD_
};

int steer_prog_open(struct steer_prog *p, const char *path)
{
	struct bpf_program *prog;
	char found[PATH_MAX];
	struct bpf_map *map;
	size_t i;
	int err, fd;

	memset(p, 0, sizeof(*p));
	p->prog_fd = p->worker_fd = -1;
	libbpf_set_print(print_libbpf);

	p->ncpus = libbpf_num_possible_cpus();
	if (p->ncpus < 0)
		return p->ncpus;
	if (!path) {
		err = steer_prog_find_obj(found, sizeof(found));
		if (err)
			return err;
		path = found;
	}

	p->obj = bpf_object__open_file(path, NULL);
	if (!p->obj) {
		err = -errno;
		return err ? err : -EINVAL;
	}
	/* Tests must neither reuse the maps of an attached instance nor
	 * leave pins behind. */
	bpf_object__for_each_map(map, p->obj) {
		err = bpf_map__set_pin_path(map, NULL);
		if (err)
			goto err_close;
	}
	/* A row of the per-slot maps per possible CPU, as the loader sizes
	 * them on a machine of few CPUs (kernel/prog.c). */
	p->rx_rows = p->ncpus < STEER_RX_SLOTS ? p->ncpus : STEER_RX_SLOTS;
	map = bpf_object__find_map_by_name(p->obj, STEER_STR(steer_buckets));
	err = map ? bpf_map__set_max_entries(map, p->rx_rows * STEER_TABLE_MAX) :
		    -ENOENT;
	map = bpf_object__find_map_by_name(p->obj, STEER_STR(steer_load));
	if (!err)
		err = map ? bpf_map__set_max_entries(map, p->rx_rows *
						     STEER_TABLE_MAX) : -ENOENT;
	/* The slot-keyed maps too: their stride is the pool's rows. */
	map = bpf_object__find_map_by_name(p->obj, STEER_STR(steer_seq));
	if (!err)
		err = map ? bpf_map__set_max_entries(map, p->rx_rows *
						     STEER_TARGETS) : -ENOENT;
	map = bpf_object__find_map_by_name(p->obj, STEER_STR(steer_deq));
	if (!err)
		err = map ? bpf_map__set_max_entries(map, p->rx_rows *
						     STEER_TARGETS) : -ENOENT;
	map = bpf_object__find_map_by_name(p->obj, STEER_STR(steer_rx_cpu));
	if (!err)
		err = map ? bpf_map__set_max_entries(map, p->rx_rows) : -ENOENT;
	map = bpf_object__find_map_by_name(p->obj, STEER_STR(steer_rx_lease));
	if (!err)
		err = map ? bpf_map__set_max_entries(map, p->rx_rows) : -ENOENT;
	map = bpf_object__find_map_by_name(p->obj, STEER_STR(steer_queued));
	if (!err)
		err = map ? bpf_map__set_max_entries(map, (p->rx_rows + 1) *
						     STEER_MAX_CPUS) : -ENOENT;
	if (err)
		goto err_close;
	err = bpf_object__load(p->obj);
	if (err)
		goto err_close;

	err = -ENOENT;
	prog = bpf_object__find_program_by_name(p->obj,
						STEER_STR(STEER_PROG_MAIN));
	if (!prog)
		goto err_close;
	p->prog_fd = bpf_program__fd(prog);
	prog = bpf_object__find_program_by_name(p->obj,
						STEER_STR(STEER_PROG_WORKER));
	if (!prog)
		goto err_close;
	p->worker_fd = p->worker_fds[0] = bpf_program__fd(prog);
	prog = bpf_object__find_program_by_name(p->obj,
						STEER_STR(STEER_PROG_WORKER_B));
	if (!prog)
		goto err_close;
	p->worker_fds[1] = bpf_program__fd(prog);

	for (i = 0; i < sizeof(map_fds) / sizeof(map_fds[0]); i++) {
		fd = bpf_object__find_map_fd_by_name(p->obj, map_fds[i].name);
		if (fd < 0) {
			err = -ENOENT;
			goto err_close;
		}
		*(int *)((char *)p + map_fds[i].off) = fd;
	}
	/* The loader's first apply sets a random key; a fixed one here,
	 * so a test can write a stamp the worker takes. */
	err = steer_prog_set_stamp_key(p, STEER_TEST_STAMP_KEY);
	/* The pool's rows, as the loader's first apply writes them. */
	if (!err)
		err = steer_prog_rx_slots(p, 0);
	if (err)
		goto err_close;
	return 0;

err_close:
	bpf_object__close(p->obj);
	p->obj = NULL;
	return err;
}

void steer_prog_close(struct steer_prog *p)
{
	bpf_object__close(p->obj);
	p->obj = NULL;
}

int steer_prog_set_stamp_key(const struct steer_prog *p, __u64 key)
{
	__u32 zero = 0;

	return bpf_map_update_elem(p->steer_stamp_key, &zero, &key,
				   BPF_ANY) ? -errno : 0;
}

struct bpf_object *steer_prog_open_worker_xdp(const struct steer_prog *p,
					      __u32 bank, int *prog_fd)
{
	const char *want = bank ? STEER_STR(STEER_PROG_WORKER_B) :
				  STEER_STR(STEER_PROG_WORKER);
	struct bpf_program *prog, *worker = NULL;
	char path[PATH_MAX];
	struct bpf_object *obj;
	struct bpf_map *map;
	int err, fd;

	err = steer_prog_find_obj(path, sizeof(path));
	if (err) {
		errno = -err;
		return NULL;
	}
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return NULL;
	bpf_object__for_each_program(prog, obj) {
		if (strcmp(bpf_program__name(prog), want)) {
			bpf_program__set_autoload(prog, false);
			continue;
		}
		worker = prog;
	}
	err = worker ? bpf_program__set_expected_attach_type(worker, BPF_XDP) :
		       -ENOENT;
	bpf_object__for_each_map(map, obj) {
		if (err)
			break;
		err = bpf_map__set_pin_path(map, NULL);
		fd = steer_prog_map_fd(p, bpf_map__name(map));
		if (!err && fd >= 0)
			err = bpf_map__reuse_fd(map, fd);
	}
	if (!err)
		err = bpf_object__load(obj);
	if (err) {
		bpf_object__close(obj);
		errno = err < 0 ? -err : EINVAL;
		return NULL;
	}
	*prog_fd = bpf_program__fd(worker);
	return obj;
}

struct bpf_object *steer_prog_open_trace(const struct steer_prog *p,
					 int fds[STEER_TRACE_NPROGS])
{
	static const char *const names[] = {
#define TRACE_PROG_NAME_(name) STEER_STR(name),
		STEER_TRACE_PROGS(TRACE_PROG_NAME_)
#undef TRACE_PROG_NAME_
	};
	char path[PATH_MAX], *slash;
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;
	size_t i;
	int err, fd;

	/* Beside the XDP object. */
	err = steer_prog_find_obj(path, sizeof(path));
	slash = err ? NULL : strrchr(path, '/');
	if (!err && (!slash || (size_t)(slash - path) + 24 >= sizeof(path)))
		err = -ENAMETOOLONG;
	if (err) {
		errno = -err;
		return NULL;
	}
	strcpy(slash + 1, "cpumap_trace.bpf.o");
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return NULL;
	/* The XDP program's maps where they share them; their own else. */
	bpf_object__for_each_map(map, obj) {
		fd = steer_prog_map_fd(p, bpf_map__name(map));
		if (fd >= 0 && (err = bpf_map__reuse_fd(map, fd)))
			break;
	}
	if (!err)
		err = bpf_object__load(obj);
	for (i = 0; !err && i < STEER_TRACE_NPROGS; i++) {
		prog = bpf_object__find_program_by_name(obj, names[i]);
		if (!prog)
			err = -ENOENT;
		else
			fds[i] = bpf_program__fd(prog);
	}
	if (err) {
		bpf_object__close(obj);
		errno = err < 0 ? -err : EINVAL;
		return NULL;
	}
	return obj;
}

int steer_prog_map_fd(const struct steer_prog *p, const char *name)
{
	int fd = bpf_object__find_map_fd_by_name(p->obj, name);

	return fd < 0 ? -ENOENT : fd;
}

int steer_pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		if (sched_getaffinity(0, sizeof(set), &set))
			return -errno;
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (CPU_ISSET(cpu, &set))
				break;
		}
		if (cpu == CPU_SETSIZE)
			return -ENODEV;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return cpu;
}

/* libbpf's low-level calls return -errno already (libbpf 1.0 mode). */
static int update(int fd, const void *key, const void *value)
{
	return bpf_map_update_elem(fd, key, value, BPF_ANY);
}

int steer_prog_write_slot(const struct steer_prog *p, __u32 slot,
			  const struct steer_slot *s)
{
	if (slot >= STEER_SLOTS)
		return -EINVAL;
	return update(p->steer_slots, &slot, s);
}

int steer_prog_read_slot(const struct steer_prog *p, __u32 slot,
			 struct steer_slot *s)
{
	return bpf_map_lookup_elem(p->steer_slots, &slot, s);
}

int steer_prog_set_active(const struct steer_prog *p, __u32 slot)
{
	struct steer_ctl ctl = { .active = slot };
	__u32 zero = 0;

	if (slot >= STEER_SLOTS)
		return -EINVAL;
	return update(p->steer_ctl, &zero, &ctl);
}

int steer_prog_get_active(const struct steer_prog *p, __u32 *slot)
{
	struct steer_ctl ctl;
	__u32 zero = 0;
	int err;

	err = bpf_map_lookup_elem(p->steer_ctl, &zero, &ctl);
	if (!err)
		*slot = ctl.active;
	return err;
}

int steer_slot_add_shape(struct steer_slot *s, __u32 shape)
{
	__u32 i;

	for (i = 0; i < s->nshapes; i++) {
		if (s->shapes[i] == shape)
			return 0;
	}
	if (s->nshapes >= STEER_MAX_SHAPES)
		return -E2BIG;
	if (shape & STEER_M_PREFIX) {
		s->shapes[s->nshapes++] = shape;
	} else {
		/* Exact shapes come first: the program looks up
		 * shapes[0..nexact) in flow_rules. */
		for (i = s->nshapes; i > s->nexact; i--)
			s->shapes[i] = s->shapes[i - 1];
		s->shapes[s->nexact++] = shape;
		s->nshapes++;
	}
	steer_slot_fill_filter_masks(s);
	return 0;
}

int steer_prog_set_bucket(const struct steer_prog *p, __u32 slot,
			  __u32 bucket, __u32 cpu)
{
	__u32 key = slot * STEER_TABLE_MAX + bucket;

	if (slot >= STEER_SLOTS || bucket >= STEER_TABLE_MAX)
		return -EINVAL;
	return update(p->steer_table, &key, &cpu);
}

int steer_prog_write_table(const struct steer_prog *p, __u32 slot,
			   const __u32 *cpus, __u32 n)
{
	if (slot >= STEER_SLOTS || n > STEER_TABLE_MAX)
		return -EINVAL;
	return maps_write_array(p->steer_table, slot * STEER_TABLE_MAX, cpus,
			   sizeof(*cpus), n);
}

int steer_prog_fill_table(const struct steer_prog *p, __u32 slot, __u32 cpu,
			  __u32 n)
{
	__u32 cpus[STEER_TABLE_MAX], i;

	if (n > STEER_TABLE_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		cpus[i] = cpu;
	return steer_prog_write_table(p, slot, cpus, n);
}

/* The rule filter of 'slot' with what one more rule needs, as the
 * loader writes it for its rules (include/xdp_steer/filter.h): the bits
 * the rule sets in an empty image, or-ed into the map's words. */
static int filter_add(const struct steer_prog *p, __u32 slot,
		      const struct steer_rule_key *exact,
		      const struct steer_prefix_key *prefix)
{
	__u64 *w = calloc(STEER_FILTER_SLOT_WORDS, sizeof(*w)), old;
	__u32 i, key;
	int err = 0;

	if (!w)
		return -ENOMEM;
	if (exact)
		steer_filter_add_exact(w, exact);
	if (prefix)
		steer_filter_add_prefix(w, prefix);
	for (i = 0; i < STEER_FILTER_SLOT_WORDS && !err; i++) {
		if (!w[i])
			continue;
		key = slot * STEER_FILTER_SLOT_WORDS + i;
		if (bpf_map_lookup_elem(p->rule_filter, &key, &old))
			err = -errno;
		old |= w[i];
		if (!err)
			err = update(p->rule_filter, &key, &old);
	}
	free(w);
	return err;
}

int steer_prog_add_flow_rule(const struct steer_prog *p, __u32 slot,
			     __u32 shape, const struct steer_flow *f,
			     const struct steer_target *t)
{
	struct steer_rule_key key;
	int err;

	memset(&key, 0, sizeof(key));
	steer_rule_key_fill(&key, slot, shape, f);
	err = update(p->flow_rules, &key, t);
	return err ? err : filter_add(p, slot, &key, NULL);
}

int steer_prog_add_prefix(const struct steer_prog *p, __u32 slot,
			  __u32 shape, const struct steer_flow *f, __u32 bits,
			  const struct steer_target *t)
{
	struct steer_prefix_key key;
	__u32 full = f->family == STEER_AF_INET ? 32 : 128;
	__u8 *a = (__u8 *)key.addr;
	__u32 i;
	int err;

	if (!(shape & STEER_M_PREFIX) || bits > full)
		return -EINVAL;
	memset(&key, 0, sizeof(key));
	steer_prefix_key_fill(&key, slot, shape, f);
	key.prefixlen = STEER_PREFIX_FIXED_BITS + bits;
	/* Host bits zero, as the loader stores prefixes. */
	for (i = 0; i < 16; i++) {
		if (bits >= 8 * (i + 1))
			continue;
		a[i] &= bits > 8 * i ? (__u8)(0xff00 >> (bits - 8 * i)) : 0;
	}
	err = update(p->prefix_rules, &key, t);
	return err ? err : filter_add(p, slot, NULL, &key);
}

void steer_slot_decap_all(struct steer_slot *s)
{
#define DECAP_ALL_(A, ID, name, port, help)				\
	s->decap |= STEER_DECAP(STEER_ENCAP_##ID);			\
	if (port)							\
		steer_decap_add_port(s, htons(port), STEER_ENCAP_##ID);
	STEER_ENCAPS(DECAP_ALL_, )
#undef DECAP_ALL_
}

int steer_prog_write_rule_cpus(const struct steer_prog *p, __u32 slot,
			       __u32 index, const __u32 *cpus, __u32 n)
{
	if (slot >= STEER_SLOTS || index + n > STEER_RULE_CPUS_MAX)
		return -EINVAL;
	return maps_write_array(p->rule_cpus, slot * STEER_RULE_CPUS_MAX + index,
			   cpus, sizeof(*cpus), n);
}

/* Deletes every key of a hash or LPM map. */
static int empty_map(int fd)
{
	/* Big enough for the largest key of ours (struct steer_rule_key). */
	__u8 key[64];
	int err;

	while (!(err = bpf_map_get_next_key(fd, NULL, key))) {
		err = bpf_map_delete_elem(fd, key);
		if (err)
			return err;
	}
	return err == -ENOENT ? 0 : err;
}

static int zero_array(int fd, __u32 n, size_t value_size)
{
	void *zeros = calloc(n, value_size);
	int err;

	if (!zeros)
		return -ENOMEM;
	err = maps_write_array(fd, 0, zeros, value_size, n);
	free(zeros);
	return err;
}

int steer_prog_reset_policy(const struct steer_prog *p)
{
	int err;

	err = steer_prog_set_active(p, 0);
	if (!err)
		err = zero_array(p->steer_slots, STEER_SLOTS,
				 sizeof(struct steer_slot));
	if (!err)
		err = zero_array(p->steer_table, STEER_SLOTS * STEER_TABLE_MAX,
				 sizeof(__u32));
	if (!err)
		err = zero_array(p->rule_cpus,
				 STEER_SLOTS * STEER_RULE_CPUS_MAX,
				 sizeof(__u32));
	if (!err)
		err = zero_array(p->rule_filter,
				 STEER_SLOTS * STEER_FILTER_SLOT_WORDS,
				 sizeof(__u64));
	if (!err)
		err = empty_map(p->flow_rules);
	if (!err)
		err = empty_map(p->prefix_rules);
	return err;
}

static int zero_percpu(const struct steer_prog *p, int fd, __u32 n,
		       size_t size)
{
	size_t stride = (size + 7) & ~(size_t)7;

	return zero_array(fd, n, stride * p->ncpus);
}

/* Every CPU's steer_stats line read, passed to 'edit' with its CPU, and
 * written back whole: only while no frame runs, as in a test run. For the
 * datapath's own memory in that line (rxq_mine, queued_tick, napi_polls). */
static int stats_lines_edit(const struct steer_prog *p,
			    void (*edit)(struct steer_stats *v, int cpu,
					 const void *arg),
			    const void *arg)
{
	__u32 zero = 0;
	struct steer_stats *v;
	int c, err;

	v = calloc(p->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = bpf_map_lookup_elem(p->steer_stats, &zero, v) ? -errno : 0;
	for (c = 0; !err && c < p->ncpus; c++)
		edit(&v[c], c, arg);
	if (!err)
		err = update(p->steer_stats, &zero, v);
	free(v);
	return err;
}

/* The queue and the CPU that found it its own (-1: none). */
struct rxq_on {
	__u32 q;
	int cpu;
};

static void rxq_mine_edit(struct steer_stats *v, int c, const void *arg)
{
	const struct rxq_on *on = arg;

	if (on->cpu < 0)
		v->rxq_mine = 0;
	else if (c == on->cpu)
		v->rxq_mine = (__u64)on->q + 1;
	else if ((__u32)v->rxq_mine == on->q + 1)
		v->rxq_mine = 0;
}

/* Every CPU's cache of steer_rxq (steer_stats.rxq_mine) made true to
 * queue 'q' on 'cpu' (-1: to no queue at all): 'cpu' found it its own,
 * the others not. */
static int rxq_mine_set(const struct steer_prog *p, __u32 q, int cpu)
{
	struct rxq_on on = { q, cpu };

	return stats_lines_edit(p, rxq_mine_edit, &on);
}

int steer_prog_reset_drain(const struct steer_prog *p)
{
	int err;

	err = zero_array(p->steer_buckets, p->rx_rows * STEER_TABLE_MAX,
			 sizeof(struct steer_bucket));
	if (!err)
		err = zero_array(p->steer_seq, p->rx_rows * STEER_TARGETS,
				 sizeof(__u32));
	if (!err)
		err = zero_array(p->steer_deq, STEER_TARGETS * p->rx_rows,
				 sizeof(struct steer_deq));
	if (!err)
		err = steer_prog_rx_slots(p, 0);
	if (!err)
		err = zero_array(p->steer_wdone, STEER_TARGETS,
				 sizeof(struct steer_wdone));
	if (!err)
		err = zero_array(p->steer_wenq, STEER_TARGETS,
				 sizeof(struct steer_wenq));
	if (!err)
		err = zero_array(p->steer_look, 1, sizeof(struct steer_look));
	if (!err)
		err = zero_array(p->steer_rxq, STEER_MAX_RXQ, sizeof(__u32));
	if (!err)
		err = rxq_mine_set(p, 0, -1);
	if (!err)
		err = zero_percpu(p, p->steer_rxmove, 1,
				  sizeof(struct steer_rxmove));
	if (!err)
		err = steer_prog_queued_tick(p, -1, 0);
	if (!err)
		err = steer_prog_polls(p, -1, 0, 0);
	if (!err)
		err = steer_prog_window(p, 0);
	return err;
}

int steer_prog_bucket_at(const struct steer_prog *p, __u32 cpu,
			 __u32 record, __u16 target, __u32 last)
{
	struct steer_window w = {};
	struct steer_bucket v = {};
	int err, slot;

	if (cpu >= (__u32)p->ncpus)
		return -EINVAL;
	/* The record is in the CPU's receiver slot's row: claimed by hand
	 * as its first table frame would. */
	slot = steer_prog_rx_slot_of(p, cpu, true);
	if (slot < 0)
		return slot;
	record += (__u32)slot * STEER_TABLE_MAX;
	err = steer_prog_read_window(p, &w);
	if (!err) {
		v.target = target;
		v.last = last;
		v.gen = w.gen;
		err = update(p->steer_buckets, &record, &v);
	}
	return err;
}

int steer_prog_warm_bucket(const struct steer_prog *p, __u32 cpu,
			   __u32 record, __u16 target)
{
	__u32 now;
	int err;

	err = clock_jiffies(&now);
	return err ? err : steer_prog_bucket_at(p, cpu, record, target,
						now ? now : 1);
}

int steer_prog_rxq_on(const struct steer_prog *p, __u32 q, __u32 cpu)
{
	__u32 owner = cpu + 1;
	int err;

	if (cpu >= (__u32)p->ncpus)
		return -EINVAL;
	err = update(p->steer_rxq, &q, &owner);
	return err ? err : rxq_mine_set(p, q, cpu);
}

/* One CPU's tick of its last queued frame (steer_stats.queued_tick); 'arg'
 * points to the CPU and the value. */
struct queued_tick_set {
	int cpu;
	__u64 tick;
};

static void queued_tick_edit(struct steer_stats *v, int c, const void *arg)
{
	const struct queued_tick_set *set = arg;

	if (set->cpu < 0 || set->cpu == c)
		v->queued_tick = set->tick;
}

static void rx_slot_edit(struct steer_stats *v, int c, const void *arg)
{
	(void)c;
	(void)arg;
	v->rx_slot = 0;
}

int steer_prog_rx_slots(const struct steer_prog *p, __u32 limit)
{
	struct steer_rx_pool pool = { .limit = limit, .rows = p->rx_rows };
	__u32 zero = 0;
	int err;

	err = zero_array(p->steer_rx_slot, STEER_RX_CPU_IDS, sizeof(__u32));
	if (!err)
		err = zero_array(p->steer_rx_cpu, p->rx_rows, sizeof(__u32));
	if (!err)
		err = zero_array(p->steer_rx_lease, p->rx_rows,
				 sizeof(struct steer_rx_lease));
	if (!err)
		err = update(p->steer_rx_pool, &zero, &pool);
	if (!err)
		err = stats_lines_edit(p, rx_slot_edit, NULL);
	return err;
}

int steer_prog_rx_slot_of(const struct steer_prog *p, int cpu, bool claim)
{
	struct steer_rx_pool pool = {};
	__u32 key = cpu, slot = 0, zero = 0, one;

	if (bpf_map_lookup_elem(p->steer_rx_slot, &key, &slot))
		return -errno;
	if (slot || !claim)
		return (int)slot - 1;
	/* As the datapath claims (bpf/drain.h, rx_slot_tick()). */
	if (bpf_map_lookup_elem(p->steer_rx_pool, &zero, &pool))
		return -errno;
	slot = pool.claimed++;
	if (slot >= steer_rx_pool_used(&pool))
		return -ENOSPC;
	one = cpu + 1;
	if (update(p->steer_rx_pool, &zero, &pool) ||
	    update(p->steer_rx_cpu, &slot, &one))
		return -errno;
	one = slot + 1;
	return update(p->steer_rx_slot, &key, &one) ? -errno : (int)slot;
}

int steer_prog_queued_tick(const struct steer_prog *p, int cpu, __u64 tick)
{
	struct queued_tick_set set = { cpu, tick };
	int c, err = 0;

	/* A CPU that queued holds a receiver slot (drain.h, note_queued()):
	 * queued_lately() finds it by its slot. */
	for (c = 0; tick && !err && c < p->ncpus; c++)
		if (cpu < 0 || cpu == c)
			err = steer_prog_rx_slot_of(p, c, true) < 0 ? -ENOSPC : 0;
	return err ? err : stats_lines_edit(p, queued_tick_edit, &set);
}

/* One CPU's (every CPU's: cpu -1) count of ended NAPI polls and the tick
 * of the last (steer_stats.napi_polls, napi_poll_tick). */
struct polls_set {
	int cpu;
	__u64 polls, tick;
};

static void polls_edit(struct steer_stats *v, int c, const void *arg)
{
	const struct polls_set *set = arg;

	if (set->cpu < 0 || set->cpu == c) {
		v->napi_polls = set->polls;
		v->napi_poll_tick = set->tick;
	}
}

int steer_prog_polls(const struct steer_prog *p, int cpu, __u64 polls,
		     __u64 tick)
{
	struct polls_set set = { cpu, polls, tick };

	return stats_lines_edit(p, polls_edit, &set);
}

int steer_prog_window(const struct steer_prog *p, int open)
{
	struct steer_window w = {};
	__u32 zero = 0;
	int err;

	err = steer_prog_read_window(p, &w);
	if (err)
		return err;
	/* Generation 1 at least: a zeroed record (0) is older than any. */
	if (!w.gen)
		w.gen = 1;
	w.open = !!open;
	return bpf_map_update_elem(p->steer_window, &zero, &w, BPF_ANY) ?
	       -errno : 0;
}

int steer_prog_read_window(const struct steer_prog *p, struct steer_window *w)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(p->steer_window, &zero, w) ? -errno : 0;
}

int steer_prog_add_cpu(const struct steer_prog *p, __u32 cpu, __u32 qsize,
		       int prog_fd)
{
	struct bpf_cpumap_val val;

	memset(&val, 0, sizeof(val));
	val.qsize = qsize;
	if (prog_fd > 0)
		val.bpf_prog.fd = prog_fd;
	return update(p->cpu_map, &cpu, &val);
}

int steer_prog_del_cpu(const struct steer_prog *p, __u32 cpu)
{
	return bpf_map_delete_elem(p->cpu_map, &cpu);
}

/* Sums a per-CPU entry made of __u64 fields. */
static int percpu_sum(const struct steer_prog *p, int fd, __u32 key,
		      void *sum, size_t size)
{
	size_t stride = (size + 7) & ~(size_t)7, words = size / 8, i;
	__u64 *values, *out = sum;
	int cpu, err;

	values = calloc(p->ncpus, stride);
	if (!values)
		return -ENOMEM;
	err = bpf_map_lookup_elem(fd, &key, values);
	if (!err) {
		memset(sum, 0, size);
		for (cpu = 0; cpu < p->ncpus; cpu++) {
			for (i = 0; i < words; i++)
				out[i] += values[cpu * stride / 8 + i];
		}
	}
	free(values);
	return err;
}

int steer_prog_read_stats(const struct steer_prog *p, struct steer_stats *s)
{
	return percpu_sum(p, p->steer_stats, 0, s, sizeof(*s));
}

int steer_prog_read_cpu_stats(const struct steer_prog *p, __u32 cpu,
			      struct steer_cpu_stats *s)
{
	struct steer_cpu_stats all[STEER_MAX_CPUS];
	int err;

	if (cpu >= STEER_MAX_CPUS)
		return -EINVAL;
	err = steer_prog_read_all_cpu_stats(p, all);
	if (!err)
		*s = all[cpu];
	return err;
}

int steer_prog_read_all_cpu_stats(const struct steer_prog *p,
				  struct steer_cpu_stats *all)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 k, n = (p->rx_rows + 1) * STEER_MAX_CPUS, count = n, out = 0;
	struct steer_cpu_stats *v = calloc(n, sizeof(*v));
	__u32 *keys = calloc(n, sizeof(*keys));
	int err = v && keys ? 0 : -ENOMEM;

	/* One call: tests read it after each of thousands of frames. */
	if (!err && bpf_map_lookup_batch(p->steer_queued, NULL, &out, keys, v,
					 &count, &opts) && errno != ENOENT)
		err = -errno;
	if (!err && count != n)
		err = -EIO;
	memset(all, 0, STEER_MAX_CPUS * sizeof(*all));
	for (k = 0; !err && k < n; k++) {
		all[keys[k] % STEER_MAX_CPUS].packets += v[k].packets;
		all[keys[k] % STEER_MAX_CPUS].bytes += v[k].bytes;
	}
	free(v);
	free(keys);
	return err;
}

int steer_prog_read_row_stats(const struct steer_prog *p, __u32 row,
			      __u32 cpu, struct steer_cpu_stats *s)
{
	__u32 k = row * STEER_MAX_CPUS + cpu;

	return bpf_map_lookup_elem(p->steer_queued, &k, s) ? -errno : 0;
}

int steer_prog_read_worker_stats(const struct steer_prog *p,
				 struct steer_worker_stats *s)
{
	return percpu_sum(p, p->worker_stats, 0, s, sizeof(*s));
}

/* A stats line zeroed but for the tick of the CPU's last queued frame:
 * no counter, nor a cache the program refills, but what other CPUs read
 * (queued_lately()): a frame run on one CPU after another ran there sees
 * it, as on a live box. */
static void frame_counters_zero(struct steer_stats *v, int c, const void *arg)
{
	__u64 tick = v->queued_tick;

	(void)c;
	(void)arg;
	memset(v, 0, sizeof(*v));
	v->queued_tick = tick;
}

int steer_prog_reset_frame_counters(const struct steer_prog *p)
{
	int err = stats_lines_edit(p, frame_counters_zero, NULL);

	if (!err)
		err = zero_array(p->steer_queued, (p->rx_rows + 1) *
				 STEER_MAX_CPUS, sizeof(struct steer_cpu_stats));
	return err;
}

int steer_prog_reset_stats(const struct steer_prog *p)
{
	int err;

	err = steer_prog_reset_frame_counters(p);
	if (!err)
		err = zero_percpu(p, p->worker_stats, 1,
				  sizeof(struct steer_worker_stats));
	if (!err)
		err = zero_array(p->steer_load, p->rx_rows * STEER_TABLE_MAX,
				 sizeof(struct steer_load));
	return err;
}

int steer_prog_read_load(const struct steer_prog *p, __u32 record,
			 struct steer_load *s)
{
	struct steer_load *v = calloc(p->ncpus, sizeof(*v));
	int c, err;

	if (!v)
		return -ENOMEM;
	err = steer_prog_rx_read(p, p->steer_load, record, v, sizeof(*v));
	memset(s, 0, sizeof(*s));
	for (c = 0; !err && c < p->ncpus; c++) {
		s->packets += v[c].packets;
		s->bytes += v[c].bytes;
	}
	free(v);
	return err;
}

int steer_prog_rx_read(const struct steer_prog *p, int fd, __u32 record,
		       void *by_cpu, size_t value_size)
{
	__u32 key, slot;
	int c;

	memset(by_cpu, 0, (size_t)p->ncpus * value_size);
	for (c = 0; c < p->ncpus; c++) {
		key = c;
		if (bpf_map_lookup_elem(p->steer_rx_slot, &key, &slot))
			return -errno;
		if (!slot || slot > p->rx_rows)
			continue;
		key = (slot - 1) * STEER_TABLE_MAX + record;
		if (bpf_map_lookup_elem(fd, &key, (char *)by_cpu +
					(size_t)c * value_size))
			return -errno;
	}
	return 0;
}

int steer_prog_run_repeat(const struct steer_prog *p, const void *data,
			  size_t len, __u32 repeat, int *verdict, __u32 *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = data,
		.data_size_in = (__u32)len,
		.repeat = repeat,
	);
	int err;

	err = bpf_prog_test_run_opts(p->prog_fd, &opts);
	if (err)
		return err;
	*verdict = (int)opts.retval;
	if (ns)
		*ns = opts.duration;
	return 0;
}

int steer_prog_run(const struct steer_prog *p, const void *data, size_t len,
		   int *verdict)
{
	return steer_prog_run_repeat(p, data, len, 1, verdict, NULL);
}
