// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * trace.c - the cpumap tracepoint programs, loaded and pinned once per
 * interface (see trace.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/names.h"
#include "xdp_steer/trace.h"
#include "xdp_steer/maps.h"
#include "kernel/cpumap.h"
#include "kernel/failpoint.h"
#include "kernel/maps.h"
#include "kernel/progtag.h"
#include "kernel/trace.h"
#include "cpumap_trace.skel.h"
#include "ring_carry.skel.h"

/* Every pin of the tracepoint programs: the maps, then the links, in the
 * order they are pinned. The links come last, so a set with its links
 * pinned is complete. */
static const char *const map_pins[] = {
#define TRACE_NAME_(name, ...) STEER_STR(name),
	STEER_TRACE_MAPS(TRACE_NAME_)
};
static const char *const link_pins[] = {
	STEER_TRACE_PROGS(TRACE_NAME_)
#undef TRACE_NAME_
};
#define NMAPS	(sizeof(map_pins) / sizeof(map_pins[0]))
#define NLINKS	(sizeof(link_pins) / sizeof(link_pins[0]))

/* The incoming set of an upgrade (trace.h, "Handing over") is pinned
 * under the same names with this suffix until it takes over. */
#define NEXT	"_next"

static int open_pins(const char *dir, struct trace_maps *t);

/* cpumap_ids' bit for each bank a set counts. */
#define BANKS_ALL	((1u << STEER_BANKS) - 1)

static void pin_path(const char *dir, const char *name, bool next, char *buf,
		     size_t len)
{
	snprintf(buf, len, "%s/%s%s", dir, name, next ? NEXT : "");
}

static bool pinned(const char *dir, const char *name, bool next)
{
	char path[PATH_MAX + 64];
	int fd;

	pin_path(dir, name, next, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* How many of the set's links are pinned in 'dir'. */
static size_t links_pinned(const char *dir, bool next)
{
	size_t i, n = 0;

	for (i = 0; i < NLINKS; i++)
		n += pinned(dir, link_pins[i], next);
	return n;
}

/* Removes whatever pins of the set are in 'dir' (what a run that died
 * between pinning the maps and the links left). */
static void unpin_all(const char *dir, bool next)
{
	char path[PATH_MAX + 64];
	size_t i;

	for (i = 0; i < NLINKS; i++) {
		pin_path(dir, link_pins[i], next, path, sizeof(path));
		unlink(path);
	}
	for (i = 0; i < NMAPS; i++) {
		pin_path(dir, map_pins[i], next, path, sizeof(path));
		unlink(path);
	}
}

/* Writes into a set's cpumap_ids the ids of m's cpumaps of the banks in
 * 'banks' (a bit each), 0 for the others: the set counts those only. */
static int write_ids(const struct steer_maps *m, int ids_fd, unsigned banks,
		     struct why *why)
{
	struct steer_cpumap_ids ids = {};
	__u32 zero = 0;
	int err;

	err = maps_id(m->cpu_map, &ids.id[0]);
	if (!err)
		err = maps_id(m->cpu_map_b, &ids.id[1]);
	if (err) {
		why_set(why, "cannot read the cpumaps' ids: %s",
			strerror(-err));
		return err;
	}
	if (!(banks & 1))
		ids.id[0] = 0;
	if (!(banks & 2))
		ids.id[1] = 0;
	if (bpf_map_update_elem(ids_fd, &zero, &ids, 0)) {
		err = -errno;
		why_set(why, "cannot write cpumap_ids: %s", strerror(-err));
	}
	return err;
}

/* The banks a pinned set's cpumap_ids names (a bit each), or a negative
 * errno. */
static int read_banks(const char *dir, bool next)
{
	struct steer_cpumap_ids ids;
	char path[PATH_MAX + 64];
	__u32 zero = 0;
	int fd, err = 0;

	pin_path(dir, STEER_STR(cpumap_ids), next, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(fd, &zero, &ids))
		err = -errno;
	close(fd);
	return err ? err : (ids.id[0] ? 1 : 0) | (ids.id[1] ? 2 : 0);
}

int trace_banks(const char *dir, bool next)
{
	return read_banks(dir, next);
}

/* Writes the banks of the set pinned in 'dir' ('next': the incoming one). */
static int write_pinned_ids(const struct steer_maps *m, bool next,
			    unsigned banks, struct why *why)
{
	char path[PATH_MAX + 64];
	int fd, err;

	pin_path(m->dir, STEER_STR(cpumap_ids), next, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err = -errno;
		why_set(why, "cannot open %s: %s", path, strerror(-err));
		return err;
	}
	err = write_ids(m, fd, banks, why);
	close(fd);
	return err;
}

/* ring_stats' type in this version (STEER_TRACE_MAPS). */
#define RING_TYPE	BPF_MAP_TYPE_ARRAY

/* Whether the map behind 'fd' has type 'type' and values of 'size'. */
static bool map_current(int fd, __u32 type, __u32 size)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	       info.type == type && info.value_size == size;
}

/* Whether 'map' of a set being made reuses the map of 'reuse' (the same
 * kernel map), which stays pinned where it is. */
static bool map_reused(struct cpumap_trace_bpf *skel, struct bpf_map *map,
		       const struct trace_maps *reuse)
{
	struct bpf_map_info a = {}, b = {};
	__u32 la = sizeof(a), lb = sizeof(b);
	int fd = map == skel->maps.ring_stats ? reuse->ring_stats :
		 map == skel->maps.kthread_stats ? reuse->kthread_stats : -1;

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &a, &la) &&
	       !bpf_obj_get_info_by_fd(bpf_map__fd(map), &b, &lb) &&
	       a.id == b.id;
}

/* What an older set of another layout counted, for the set made in its
 * place (its maps cannot be reused): ring_stats summed over the
 * receiving CPUs (per CPU before it was one entry per worker), and
 * kthread_stats per CPU as it was, where its layout is this version's. */
struct carry {
	bool ring, kthread;
	struct steer_ring_stats ring_sum[STEER_MAX_CPUS];
	void *kthread_v;		/* the per-CPU value, as read */
};

static int sum_ring(__u32 key, const void *values, int ncpus, void *arg)
{
	struct steer_ring_stats *sum = arg;
	const struct steer_ring_stats *v = values;
	int c;

	for (c = 0; c < ncpus && key < STEER_MAX_CPUS; c++) {
		sum[key].enqueued += v[c].enqueued;
		sum[key].ring_full_drops += v[c].ring_full_drops;
		sum[key].off_cpu += v[c].off_cpu;
	}
	return 0;
}

/* Reads the set pinned under the plain names into 'c', what of it has a
 * layout to carry; nothing is an error (a set older still starts at 0). */
static void read_carry(const char *dir, struct carry *c)
{
	struct bpf_map_info info;
	char path[PATH_MAX + 64];
	__u32 len, zero = 0;
	int fd, n;

	memset(c, 0, sizeof(*c));
	pin_path(dir, STEER_STR(ring_stats), false, path, sizeof(path));
	fd = bpf_obj_get(path);
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    info.type == BPF_MAP_TYPE_PERCPU_ARRAY &&
	    info.value_size == sizeof(struct steer_ring_stats))
		c->ring = !maps_percpu_scan(fd, info.max_entries < STEER_MAX_CPUS ?
					    info.max_entries : STEER_MAX_CPUS,
					    sizeof(struct steer_ring_stats),
					    sum_ring, c->ring_sum);
	if (fd >= 0)
		close(fd);
	pin_path(dir, STEER_STR(kthread_stats), false, path, sizeof(path));
	fd = bpf_obj_get(path);
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	n = libbpf_num_possible_cpus();
	if (fd >= 0 && n > 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    info.type == BPF_MAP_TYPE_PERCPU_ARRAY &&
	    info.value_size == sizeof(struct steer_kthread_stats)) {
		c->kthread_v = calloc((size_t)n, sizeof(struct steer_kthread_stats));
		c->kthread = c->kthread_v &&
			     !bpf_map_lookup_elem(fd, &zero, c->kthread_v);
	}
	if (fd >= 0)
		close(fd);
}

/* Writes what 'c' carries into a set's new maps, before it is attached:
 * nothing else writes them yet. */
static int write_carry(struct cpumap_trace_bpf *skel, const struct carry *c)
{
	__u32 zero = 0, n = bpf_map__max_entries(skel->maps.ring_stats);
	int err = 0;

	if (c && c->ring)
		err = maps_write_array(bpf_map__fd(skel->maps.ring_stats), 0,
				       c->ring_sum, sizeof(c->ring_sum[0]),
				       n < STEER_MAX_CPUS ? n : STEER_MAX_CPUS);
	if (!err && c && c->kthread &&
	    bpf_map_update_elem(bpf_map__fd(skel->maps.kthread_stats), &zero,
				c->kthread_v, BPF_ANY))
		err = -errno;
	return err;
}

/*
 * Loads, attaches and pins a set counting the banks in 'banks': under the
 * plain names ('next' false, the first apply), or as the incoming set of
 * an upgrade. Its own counters are the pinned set's when 'reuse' (an fd
 * per map, this version's layout) is given: they count on without a gap;
 * else new ones, pinned with the set, starting from what 'carry' (NULL:
 * nothing) carries of an older set.
 */
static int set_create(const struct steer_maps *m, bool next, unsigned banks,
		      const struct trace_maps *reuse,
		      const struct carry *carry, struct why *why)
{
	char path[PATH_MAX + 64];
	struct cpumap_trace_bpf *skel;
	struct bpf_map *maps[NMAPS];
	struct bpf_link *links[NLINKS];
	size_t i, n = 0;
	int err;

	unpin_all(m->dir, next);
	skel = cpumap_trace_bpf__open();
	if (!skel) {
		err = -errno;
		why_set(why, "opening the cpumap tracepoint programs failed: %s",
			strerror(-err));
		return err;
	}
	/* The XDP program's own maps, where the drain's evidence goes, and
	 * their span (bpf/span.h). */
	skel->rodata->steer_span = m->span;
	/* A ring_stats entry per worker CPU id below the span (one reused
	 * keeps its own size). */
	err = bpf_map__set_max_entries(skel->maps.ring_stats, m->span);
#define TRACE_REUSE_(name, ...)						\
	if (!err)							\
		err = bpf_map__reuse_fd(skel->maps.name, m->name);
	STEER_TRACE_SHARED_MAPS(TRACE_REUSE_)
#undef TRACE_REUSE_
	/* Each counter map of 'reuse' whose layout is this version's. */
	if (reuse && !err && map_current(reuse->ring_stats, RING_TYPE,
					 sizeof(struct steer_ring_stats)))
		err = bpf_map__reuse_fd(skel->maps.ring_stats,
					reuse->ring_stats);
	if (reuse && !err && map_current(reuse->kthread_stats,
					 BPF_MAP_TYPE_PERCPU_ARRAY,
					 sizeof(struct steer_kthread_stats)))
		err = bpf_map__reuse_fd(skel->maps.kthread_stats,
					reuse->kthread_stats);
	if (!err)
		err = cpumap_trace_bpf__load(skel);
	if (err) {
		why_set(why, "loading the cpumap tracepoint programs failed: %s (-v shows the kernel's message)",
			strerror(-err));
		goto out;
	}
	err = write_ids(m, bpf_map__fd(skel->maps.cpumap_ids), banks, why);
	if (err)
		goto out;
	if (!reuse) {
		err = write_carry(skel, carry);
		if (err) {
			why_set(why, "carrying the older tracepoint programs' counters over failed: %s",
				strerror(-err));
			goto out;
		}
	}
	err = cpumap_trace_bpf__attach(skel);
	if (err) {
		why_set(why, "attaching to the xdp_cpumap_enqueue, xdp_cpumap_kthread and napi_poll tracepoints failed: %s",
			strerror(-err));
		goto out;
	}
	n = 0;
#define TRACE_MAP_(name, ...) maps[n++] = skel->maps.name;
	STEER_TRACE_MAPS(TRACE_MAP_)
#undef TRACE_MAP_
	n = 0;
#define TRACE_LINK_(name) links[n++] = skel->links.name;
	STEER_TRACE_PROGS(TRACE_LINK_)
#undef TRACE_LINK_
	for (i = 0; i < NMAPS && !err; i++) {
		/* Reused counters stay pinned where they are. */
		if (reuse && maps[i] != skel->maps.cpumap_ids &&
		    map_reused(skel, maps[i], reuse))
			continue;
		pin_path(m->dir, map_pins[i], next, path, sizeof(path));
		err = bpf_map__pin(maps[i], path);
	}
	for (i = 0; i < NLINKS && !err; i++) {
		pin_path(m->dir, link_pins[i], next, path, sizeof(path));
		err = bpf_link__pin(links[i], path);
	}
	if (err) {
		why_set(why, "pinning the cpumap tracepoint programs in %s failed: %s",
			m->dir, strerror(-err));
		unpin_all(m->dir, next);
	}
out:
	/* Closes our fds; the pinned links keep the programs attached. */
	cpumap_trace_bpf__destroy(skel);
	return err;
}

/* 1 when every map in 't' has this version's type and value size: an
 * older xdp-steer's (ring_stats before off_cpu, or per CPU) is made anew,
 * carrying what it counted (read_carry()). */
static int trace_current(const struct trace_maps *t)
{
	struct bpf_map_info info;
	__u32 len;

#define TRACE_SIZE_(name, type_, key, value, ...)			\
	memset(&info, 0, sizeof(info));					\
	len = sizeof(info);						\
	if (bpf_obj_get_info_by_fd(t->name, &info, &len) ||		\
	    info.type != (type_) || info.value_size != sizeof(value))	\
		return 0;
	STEER_TRACE_MAPS(TRACE_SIZE_)
#undef TRACE_SIZE_
	return 1;
}

/* Where the handing over stands (trace.h): what finish() found. */
enum handover {
	HANDOVER_NONE,		/* one set, under the plain names */
	HANDOVER_PENDING,	/* two sets, each counting its own bank */
};

/* ring_stats pinned in 'dir' gets the sums over the receiving CPUs of
 * 'old_fd' (an outgoing set's, per CPU), by bpf/ring_carry.bpf.c's
 * atomic adds beside the running programs' own. The outgoing set counts
 * nothing by now (its banks hold no entry), so its sums are final; a run
 * killed between the rename and this loses them (counts then start
 * lower, once). */
static int carry_ring(const char *dir, int old_fd)
{
	struct steer_ring_stats sum[STEER_MAX_CPUS] = { 0 };
	struct steer_ring_carry_args a;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &a,
		    .ctx_size_in = sizeof(a));
	char path[PATH_MAX + 64];
	struct ring_carry_bpf *skel;
	__u32 cpu;
	int fd, err;

	err = maps_percpu_scan(old_fd, STEER_MAX_CPUS, sizeof(sum[0]),
			       sum_ring, sum);
	if (err)
		return err;
	pin_path(dir, STEER_STR(ring_stats), false, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	skel = ring_carry_bpf__open();
	err = skel ? bpf_map__reuse_fd(skel->maps.ring_stats, fd) : -errno;
	if (!err)
		err = ring_carry_bpf__load(skel);
	for (cpu = 0; !err && cpu < STEER_MAX_CPUS; cpu++) {
		if (!(sum[cpu].enqueued | sum[cpu].ring_full_drops |
		      sum[cpu].off_cpu))
			continue;
		a = (struct steer_ring_carry_args){ .cpu = cpu, .add = sum[cpu] };
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.steer_ring_carry),
					     &opts);
		if (!err && opts.retval)
			err = -ENOENT;
	}
	ring_carry_bpf__destroy(skel);
	close(fd);
	return err;
}

/* Takes the incoming set's pins over the plain names, maps first (its
 * cpumap_ids last, as it tells the steps apart), then links: each rename
 * replaces the outgoing set's pin in one step, and the outgoing program
 * detaches as its link's last pin goes, with the incoming one already
 * counting the same. Idempotent: a run killed halfway is finished by the
 * next. */
static int take_over(const struct steer_maps *m, struct why *why)
{
	char from[PATH_MAX + 64], to[PATH_MAX + 64];
	int old_ring = -1, fd;
	size_t i;
	int err;

	/* An outgoing ring_stats per receiving CPU: held, to be carried
	 * into the incoming one once that has its name. */
	pin_path(m->dir, STEER_STR(ring_stats), true, from, sizeof(from));
	fd = bpf_obj_get(from);
	if (fd >= 0 && map_current(fd, RING_TYPE,
				   sizeof(struct steer_ring_stats))) {
		pin_path(m->dir, STEER_STR(ring_stats), false, to, sizeof(to));
		old_ring = bpf_obj_get(to);
		if (old_ring >= 0 &&
		    !map_current(old_ring, BPF_MAP_TYPE_PERCPU_ARRAY,
				 sizeof(struct steer_ring_stats))) {
			close(old_ring);
			old_ring = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	for (i = NMAPS; i-- > 0;) {	/* cpumap_ids, the first, last */
		pin_path(m->dir, map_pins[i], true, from, sizeof(from));
		pin_path(m->dir, map_pins[i], false, to, sizeof(to));
		if (rename(from, to) && errno != ENOENT)
			goto fail;
	}
	if (old_ring >= 0) {
		err = carry_ring(m->dir, old_ring);
		close(old_ring);
		old_ring = -1;
		if (err) {
			why_set(why, "adding the outgoing tracepoint programs' ring counts to the incoming ones' failed: %s",
				strerror(-err));
			return err;
		}
	}
	if (failpoint("take-over")) {
		why_set(why, "failpoint take-over");
		return -EIO;
	}
	for (i = 0; i < NLINKS; i++) {
		pin_path(m->dir, link_pins[i], true, from, sizeof(from));
		pin_path(m->dir, link_pins[i], false, to, sizeof(to));
		if (rename(from, to) && errno != ENOENT)
			goto fail;
	}
	return 0;
fail:
	err = -errno;
	why_set(why, "renaming %s to %s failed: %s", from, to,
		strerror(-err));
	if (old_ring >= 0)
		close(old_ring);
	return err;
}

/* 1 when none of the banks in 'banks' holds a cpumap entry. */
static int banks_empty(const struct steer_maps *m, unsigned banks)
{
	__u32 bank;
	int n;

	for (bank = 0; bank < STEER_BANKS; bank++) {
		if (!(banks & (1u << bank)))
			continue;
		n = cpumap_bank_entries(m, bank);
		if (n)
			return n < 0 ? n : 0;
	}
	return 1;
}

/*
 * Settles the pins into one of the states of enum handover, finishing
 * what can be finished:
 *   - no incoming set: none;
 *   - its cpumap_ids pinned and not all its links: a begin that died;
 *     its pins go, the outgoing set counts both banks again (the
 *     incoming one's bank had no entry yet);
 *   - complete: the outgoing set's banks still hold entries: pending;
 *     else the incoming set counts every bank and takes over;
 *   - its cpumap_ids gone, links left: a take-over that died, finished.
 */
static int settle(const struct steer_maps *m, struct why *why)
{
	int out_banks, in_banks, err;

	if (!pinned(m->dir, STEER_STR(cpumap_ids), true))
		return links_pinned(m->dir, true) ?
		       take_over(m, why) : HANDOVER_NONE;
	if (links_pinned(m->dir, true) < NLINKS) {
		unpin_all(m->dir, true);
		err = write_pinned_ids(m, false, BANKS_ALL, why);
		return err ? err : HANDOVER_NONE;
	}
	out_banks = read_banks(m->dir, false);
	in_banks = read_banks(m->dir, true);
	if (out_banks < 0 || in_banks < 0) {
		err = out_banks < 0 ? out_banks : in_banks;
		why_set(why, "cannot read the cpumap_ids pinned in %s: %s",
			m->dir, strerror(-err));
		return err;
	}
	err = banks_empty(m, (unsigned)(out_banks & ~in_banks));
	if (err <= 0) {
		if (err < 0)
			why_set(why, "cannot read the cpumaps: %s",
				strerror(-err));
		return err < 0 ? err : HANDOVER_PENDING;
	}
	/* The outgoing set's banks are empty: the incoming one may count
	 * them too (no frame enters or leaves a ring there), then alone. */
	err = write_pinned_ids(m, true, BANKS_ALL, why);
	if (!err)
		err = take_over(m, why);
	return err ? err : HANDOVER_NONE;
}

int trace_ensure(const struct steer_maps *m, struct why *why)
{
	struct trace_maps t;
	int err;

	why_clear(why);
	err = settle(m, why);
	if (err)
		return err < 0 ? err : 0;	/* pending: each set counts its own */
	if (links_pinned(m->dir, false) < NLINKS)
		return set_create(m, false, BANKS_ALL, NULL, NULL, why);
	/* Already counting: the cpumaps' ids only change if someone pinned
	 * new cpumaps here, but writing them costs nothing. */
	err = trace_open(m->dir, &t);
	/* An older version's: what can be carried over is (read_carry()),
	 * the rest starts again from 0. */
	if (err == -ESTALE) {
		struct carry c;

		read_carry(m->dir, &c);
		err = set_create(m, false, BANKS_ALL, NULL, &c, why);
		free(c.kthread_v);
		return err;
	}
	if (err) {
		why_set(why, "cannot open the cpumap tracepoint maps in %s: %s",
			m->dir, strerror(-err));
		return err;
	}
	err = write_ids(m, t.cpumap_ids, BANKS_ALL, why);
	trace_close(&t);
	return err;
}

int trace_handover_begin(const struct steer_maps *m, __u32 keep,
			 struct why *why)
{
	unsigned in_bank = 1u << !keep;
	struct trace_maps t;
	struct why rest;
	int err, n;

	why_clear(why);
	err = settle(m, why);
	if (err == HANDOVER_PENDING) {
		why_set(why, "the tracepoint programs of an earlier upgrade still hand over (bank %u's cpumap entries still drain)",
			!keep);
		return -EBUSY;
	}
	if (err < 0)
		return err;
	n = cpumap_bank_entries(m, !keep);
	if (n) {
		if (n > 0)
			why_set(why, "bank %u still holds %d cpumap entries that buckets drain from",
				!keep, n);
		return n > 0 ? -EBUSY : n;
	}
	/* From here the outgoing set counts bank 'keep' alone, the incoming
	 * one the other, empty until the apply's bank switch fills it:
	 * every ring is counted by one set at every moment. */
	err = write_pinned_ids(m, false, BANKS_ALL & ~in_bank, why);
	if (err)
		return err;
	/* An older set's maps too (-ESTALE): set_create() reuses those of
	 * this version's layout; a ring_stats per CPU is carried over when
	 * the set takes over (take_over()). */
	err = open_pins(m->dir, &t);
	if (err) {
		why_set(why, "cannot open the cpumap tracepoint maps in %s: %s",
			m->dir, strerror(-err));
		goto undo;
	}
	err = set_create(m, true, in_bank, &t, NULL, why);
	trace_close(&t);
	if (!err && failpoint("handover-begun")) {
		why_set(why, "failpoint handover-begun");
		unpin_all(m->dir, true);
		err = -EIO;
	}
	if (!err)
		return 0;
undo:
	rest = why_rest(why);
	write_pinned_ids(m, false, BANKS_ALL, &rest);
	return err;
}

int trace_handover_finish(const struct steer_maps *m, struct why *why)
{
	why_clear(why);
	return settle(m, why);
}

int trace_handover_abort(const struct steer_maps *m, struct why *why)
{
	int in_banks, err;

	why_clear(why);
	err = settle(m, why);
	if (err != HANDOVER_PENDING)
		return err;
	in_banks = read_banks(m->dir, true);
	err = in_banks < 0 ? in_banks : banks_empty(m, (unsigned)in_banks);
	if (err <= 0)
		return err < 0 ? err : HANDOVER_PENDING;
	/* The incoming set's bank never got an entry: the outgoing set
	 * counts it again, then the incoming one goes. */
	err = write_pinned_ids(m, false, BANKS_ALL, why);
	if (!err)
		unpin_all(m->dir, true);
	return err;
}

/* The tag of the program behind the link pinned as 'name' in 'dir'. */
static int tag_of_link(const char *dir, const char *name, bool next,
		       __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	char path[PATH_MAX + 64];
	int fd, err;

	pin_path(dir, name, next, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	close(fd);
	return err ? err : prog_tag(info.prog_id, -1, tag);
}

int trace_is_current(const struct steer_maps *m, bool next, struct why *why)
{
	struct cpumap_trace_bpf *skel;
	__u8 mine[BPF_TAG_SIZE], theirs[BPF_TAG_SIZE];
	int err = 0, same = 1;

	why_clear(why);
	if (links_pinned(m->dir, next) < NLINKS)
		return 1;	/* none run: the next apply attaches ours */
	skel = cpumap_trace_bpf__open();
	if (!skel)
		return -errno;
	skel->rodata->steer_span = m->span;
#define TRACE_REUSE_(name, ...)						\
	if (!err)							\
		err = bpf_map__reuse_fd(skel->maps.name, m->name);
	STEER_TRACE_SHARED_MAPS(TRACE_REUSE_)
#undef TRACE_REUSE_
	/* Loaded to be hashed, never attached. */
	if (!err)
		err = cpumap_trace_bpf__load(skel);
#define TRACE_SAME_(name)						\
	if (!err && same) {						\
		err = prog_tag(0, bpf_program__fd(skel->progs.name), mine); \
		if (!err)						\
			err = tag_of_link(m->dir, STEER_STR(name), next, \
					  theirs);			\
		if (!err && memcmp(mine, theirs, BPF_TAG_SIZE)) {	\
			same = 0;					\
			why_set(why, "the tracepoint program %s running is not this version's", \
				STEER_STR(name));			\
		}							\
	}
	STEER_TRACE_PROGS(TRACE_SAME_)
#undef TRACE_SAME_
	cpumap_trace_bpf__destroy(skel);
	return err ? err : same;
}

int trace_open(const char *dir, struct trace_maps *t)
{
	int err = open_pins(dir, t);

	if (!err && !trace_current(t))
		err = -ESTALE;
	if (err)
		trace_close(t);
	return err;
}

/* trace_open() of any set's pins, this version's layout or not. */
static int open_pins(const char *dir, struct trace_maps *t)
{
	char path[PATH_MAX + 64];
	int err = 0;

#define TRACE_FD_(name, ...) t->name = -1;
	STEER_TRACE_MAPS(TRACE_FD_)
#undef TRACE_FD_
	if (links_pinned(dir, false) < NLINKS)
		return -ENOENT;
#define TRACE_FD_(name, ...)						\
	if (!err) {							\
		pin_path(dir, STEER_STR(name), false, path, sizeof(path)); \
		t->name = bpf_obj_get(path);				\
		if (t->name < 0)					\
			err = -errno;					\
	}
	STEER_TRACE_MAPS(TRACE_FD_)
#undef TRACE_FD_
	if (err)
		trace_close(t);
	return err;
}

void trace_close(struct trace_maps *t)
{
#define TRACE_FD_(name, ...)						\
	if (t->name >= 0)						\
		close(t->name);						\
	t->name = -1;
	STEER_TRACE_MAPS(TRACE_FD_)
#undef TRACE_FD_
}
