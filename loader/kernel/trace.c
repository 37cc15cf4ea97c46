// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * trace.c - the cpumap tracepoint programs, loaded and pinned once per
 * interface (see trace.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/cpumap.h"
#include "kernel/failpoint.h"
#include "kernel/progtag.h"
#include "kernel/trace.h"
#include "cpumap_trace.skel.h"

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
		     char *why, size_t len)
{
	struct steer_cpumap_ids ids = {};
	__u32 zero = 0;
	int err;

	err = maps_id(m->cpu_map, &ids.id[0]);
	if (!err)
		err = maps_id(m->cpu_map_b, &ids.id[1]);
	if (err) {
		snprintf(why, len, "cannot read the cpumaps' ids: %s",
			 strerror(-err));
		return err;
	}
	if (!(banks & 1))
		ids.id[0] = 0;
	if (!(banks & 2))
		ids.id[1] = 0;
	if (bpf_map_update_elem(ids_fd, &zero, &ids, 0)) {
		err = -errno;
		snprintf(why, len, "cannot write cpumap_ids: %s", strerror(-err));
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
			    unsigned banks, char *why, size_t len)
{
	char path[PATH_MAX + 64];
	int fd, err;

	pin_path(m->dir, STEER_STR(cpumap_ids), next, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "cannot open %s: %s", path, strerror(-err));
		return err;
	}
	err = write_ids(m, fd, banks, why, len);
	close(fd);
	return err;
}

/*
 * Loads, attaches and pins a set counting the banks in 'banks': under the
 * plain names ('next' false, the first apply), or as the incoming set of
 * an upgrade. Its own counters are the pinned set's when 'reuse' (an fd
 * per map, this version's layout) is given: they count on without a gap;
 * else new ones, pinned with the set.
 */
static int set_create(const struct steer_maps *m, bool next, unsigned banks,
		      const struct trace_maps *reuse, char *why, size_t len)
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
		snprintf(why, len, "opening the cpumap tracepoint programs failed: %s",
			 strerror(-err));
		return err;
	}
	/* The XDP program's own maps, where the drain's evidence goes, and
	 * their span (bpf/span.h). */
	skel->rodata->steer_span = m->span;
	err = 0;
#define TRACE_REUSE_(name, ...)						\
	if (!err)							\
		err = bpf_map__reuse_fd(skel->maps.name, m->name);
	STEER_TRACE_SHARED_MAPS(TRACE_REUSE_)
#undef TRACE_REUSE_
	if (reuse) {
		if (!err)
			err = bpf_map__reuse_fd(skel->maps.ring_stats,
						reuse->ring_stats);
		if (!err)
			err = bpf_map__reuse_fd(skel->maps.kthread_stats,
						reuse->kthread_stats);
	}
	if (!err)
		err = cpumap_trace_bpf__load(skel);
	if (err) {
		snprintf(why, len, "loading the cpumap tracepoint programs failed: %s (-v shows the kernel's message)",
			 strerror(-err));
		goto out;
	}
	err = write_ids(m, bpf_map__fd(skel->maps.cpumap_ids), banks, why,
			len);
	if (err)
		goto out;
	err = cpumap_trace_bpf__attach(skel);
	if (err) {
		snprintf(why, len, "attaching to the xdp_cpumap_enqueue, xdp_cpumap_kthread and napi_poll tracepoints failed: %s",
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
		if (reuse && maps[i] != skel->maps.cpumap_ids)
			continue;
		pin_path(m->dir, map_pins[i], next, path, sizeof(path));
		err = bpf_map__pin(maps[i], path);
	}
	for (i = 0; i < NLINKS && !err; i++) {
		pin_path(m->dir, link_pins[i], next, path, sizeof(path));
		err = bpf_link__pin(links[i], path);
	}
	if (err) {
		snprintf(why, len, "pinning the cpumap tracepoint programs in %s failed: %s",
			 m->dir, strerror(-err));
		unpin_all(m->dir, next);
	}
out:
	/* Closes our fds; the pinned links keep the programs attached. */
	cpumap_trace_bpf__destroy(skel);
	return err;
}

/* 1 when every map in 't' has this version's value size: an older
 * xdp-steer's (ring_stats before off_cpu) is made anew. */
static int trace_current(const struct trace_maps *t)
{
	struct bpf_map_info info;
	__u32 len;

#define TRACE_SIZE_(name, type, key, value, ...)			\
	memset(&info, 0, sizeof(info));					\
	len = sizeof(info);						\
	if (bpf_obj_get_info_by_fd(t->name, &info, &len) ||		\
	    info.value_size != sizeof(value))				\
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

/* Takes the incoming set's pins over the plain names, maps first (its
 * cpumap_ids last, as it tells the steps apart), then links: each rename
 * replaces the outgoing set's pin in one step, and the outgoing program
 * detaches as its link's last pin goes, with the incoming one already
 * counting the same. Idempotent: a run killed halfway is finished by the
 * next. */
static int take_over(const struct steer_maps *m, char *why, size_t len)
{
	char from[PATH_MAX + 64], to[PATH_MAX + 64];
	size_t i;
	int err;

	for (i = NMAPS; i-- > 0;) {	/* cpumap_ids, the first, last */
		pin_path(m->dir, map_pins[i], true, from, sizeof(from));
		pin_path(m->dir, map_pins[i], false, to, sizeof(to));
		if (rename(from, to) && errno != ENOENT)
			goto fail;
	}
	if (failpoint("take-over")) {
		snprintf(why, len, "failpoint take-over");
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
	snprintf(why, len, "renaming %s to %s failed: %s", from, to,
		 strerror(-err));
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
static int settle(const struct steer_maps *m, char *why, size_t len)
{
	int out_banks, in_banks, err;

	if (!pinned(m->dir, STEER_STR(cpumap_ids), true))
		return links_pinned(m->dir, true) ?
		       take_over(m, why, len) : HANDOVER_NONE;
	if (links_pinned(m->dir, true) < NLINKS) {
		unpin_all(m->dir, true);
		err = write_pinned_ids(m, false, BANKS_ALL, why, len);
		return err ? err : HANDOVER_NONE;
	}
	out_banks = read_banks(m->dir, false);
	in_banks = read_banks(m->dir, true);
	if (out_banks < 0 || in_banks < 0) {
		err = out_banks < 0 ? out_banks : in_banks;
		snprintf(why, len, "cannot read the cpumap_ids pinned in %s: %s",
			 m->dir, strerror(-err));
		return err;
	}
	err = banks_empty(m, (unsigned)(out_banks & ~in_banks));
	if (err <= 0) {
		if (err < 0)
			snprintf(why, len, "cannot read the cpumaps: %s",
				 strerror(-err));
		return err < 0 ? err : HANDOVER_PENDING;
	}
	/* The outgoing set's banks are empty: the incoming one may count
	 * them too (no frame enters or leaves a ring there), then alone. */
	err = write_pinned_ids(m, true, BANKS_ALL, why, len);
	if (!err)
		err = take_over(m, why, len);
	return err ? err : HANDOVER_NONE;
}

int trace_ensure(const struct steer_maps *m, char *why, size_t len)
{
	struct trace_maps t;
	int err;

	why[0] = 0;
	err = settle(m, why, len);
	if (err)
		return err < 0 ? err : 0;	/* pending: each set counts its own */
	if (links_pinned(m->dir, false) < NLINKS)
		return set_create(m, false, BANKS_ALL, NULL, why, len);
	/* Already counting: the cpumaps' ids only change if someone pinned
	 * new cpumaps here, but writing them costs nothing. */
	err = trace_open(m->dir, &t);
	/* An older version's: their counts start again from 0. */
	if (err == -ESTALE)
		return set_create(m, false, BANKS_ALL, NULL, why, len);
	if (err) {
		snprintf(why, len, "cannot open the cpumap tracepoint maps in %s: %s",
			 m->dir, strerror(-err));
		return err;
	}
	err = write_ids(m, t.cpumap_ids, BANKS_ALL, why, len);
	trace_close(&t);
	return err;
}

int trace_handover_begin(const struct steer_maps *m, __u32 keep, char *why,
			 size_t len)
{
	unsigned in_bank = 1u << !keep;
	struct trace_maps t;
	int err, n;

	why[0] = 0;
	err = settle(m, why, len);
	if (err == HANDOVER_PENDING) {
		snprintf(why, len, "the tracepoint programs of an earlier upgrade still hand over (bank %u's cpumap entries still drain)",
			 !keep);
		return -EBUSY;
	}
	if (err < 0)
		return err;
	n = cpumap_bank_entries(m, !keep);
	if (n) {
		if (n > 0)
			snprintf(why, len, "bank %u still holds %d cpumap entries that buckets drain from",
				 !keep, n);
		return n > 0 ? -EBUSY : n;
	}
	/* From here the outgoing set counts bank 'keep' alone, the incoming
	 * one the other, empty until the apply's bank switch fills it:
	 * every ring is counted by one set at every moment. */
	err = write_pinned_ids(m, false, BANKS_ALL & ~in_bank, why, len);
	if (err)
		return err;
	err = trace_open(m->dir, &t);
	if (err && err != -ESTALE) {
		snprintf(why, len, "cannot open the cpumap tracepoint maps in %s: %s",
			 m->dir, strerror(-err));
		goto undo;
	}
	err = set_create(m, true, in_bank, err ? NULL : &t, why, len);
	trace_close(&t);
	if (!err && failpoint("handover-begun")) {
		snprintf(why, len, "failpoint handover-begun");
		unpin_all(m->dir, true);
		err = -EIO;
	}
	if (!err)
		return 0;
undo:
	write_pinned_ids(m, false, BANKS_ALL, why + strlen(why),
			 len - strlen(why));
	return err;
}

int trace_handover_finish(const struct steer_maps *m, char *why, size_t len)
{
	why[0] = 0;
	return settle(m, why, len);
}

int trace_handover_abort(const struct steer_maps *m, char *why, size_t len)
{
	int in_banks, err;

	why[0] = 0;
	err = settle(m, why, len);
	if (err != HANDOVER_PENDING)
		return err;
	in_banks = read_banks(m->dir, true);
	err = in_banks < 0 ? in_banks : banks_empty(m, (unsigned)in_banks);
	if (err <= 0)
		return err < 0 ? err : HANDOVER_PENDING;
	/* The incoming set's bank never got an entry: the outgoing set
	 * counts it again, then the incoming one goes. */
	err = write_pinned_ids(m, false, BANKS_ALL, why, len);
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

int trace_is_current(const struct steer_maps *m, bool next, char *why,
		     size_t len)
{
	struct cpumap_trace_bpf *skel;
	__u8 mine[BPF_TAG_SIZE], theirs[BPF_TAG_SIZE];
	int err = 0, same = 1;

	why[0] = 0;
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
			snprintf(why, len, "the tracepoint program %s running is not this version's", \
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
	if (!err && !trace_current(t))
		err = -ESTALE;
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
