// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * trace.c - the cpumap tracepoint programs, loaded and pinned once per
 * interface (see trace.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

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

static void pin_path(const char *dir, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* 1 when every link is pinned in 'dir'. */
static int links_pinned(const char *dir)
{
	char path[PATH_MAX + 64];
	size_t i;
	int fd;

	for (i = 0; i < NLINKS; i++) {
		pin_path(dir, link_pins[i], path, sizeof(path));
		fd = bpf_obj_get(path);
		if (fd < 0)
			return 0;
		close(fd);
	}
	return 1;
}

/* Removes whatever trace pins are in 'dir' (what a run that died between
 * pinning the maps and the links left). */
static void unpin_all(const char *dir)
{
	char path[PATH_MAX + 64];
	size_t i;

	for (i = 0; i < NLINKS; i++) {
		pin_path(dir, link_pins[i], path, sizeof(path));
		unlink(path);
	}
	for (i = 0; i < NMAPS; i++) {
		pin_path(dir, map_pins[i], path, sizeof(path));
		unlink(path);
	}
}

static int write_ids(const struct steer_maps *m, int ids_fd, char *why,
		     size_t len)
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
	if (bpf_map_update_elem(ids_fd, &zero, &ids, 0)) {
		err = -errno;
		snprintf(why, len, "cannot write cpumap_ids: %s", strerror(-err));
	}
	return err;
}

/* Loads, attaches and pins a new set. */
static int trace_create(const struct steer_maps *m, char *why, size_t len)
{
	char path[PATH_MAX + 64];
	struct cpumap_trace_bpf *skel;
	struct bpf_map *maps[NMAPS];
	struct bpf_link *links[NLINKS];
	size_t i, n = 0;
	int err;

	unpin_all(m->dir);
	skel = cpumap_trace_bpf__open();
	if (!skel) {
		err = -errno;
		snprintf(why, len, "opening the cpumap tracepoint programs failed: %s",
			 strerror(-err));
		return err;
	}
	/* The XDP program's own maps, where the drain's evidence goes. */
	err = 0;
#define TRACE_REUSE_(name, ...)						\
	if (!err)							\
		err = bpf_map__reuse_fd(skel->maps.name, m->name);
	STEER_TRACE_SHARED_MAPS(TRACE_REUSE_)
#undef TRACE_REUSE_
	if (!err)
		err = cpumap_trace_bpf__load(skel);
	if (err) {
		snprintf(why, len, "loading the cpumap tracepoint programs failed: %s (-v shows the kernel's message)",
			 strerror(-err));
		goto out;
	}
	err = write_ids(m, bpf_map__fd(skel->maps.cpumap_ids), why, len);
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
		pin_path(m->dir, map_pins[i], path, sizeof(path));
		err = bpf_map__pin(maps[i], path);
	}
	for (i = 0; i < NLINKS && !err; i++) {
		pin_path(m->dir, link_pins[i], path, sizeof(path));
		err = bpf_link__pin(links[i], path);
	}
	if (err) {
		snprintf(why, len, "pinning the cpumap tracepoint programs in %s failed: %s",
			 m->dir, strerror(-err));
		unpin_all(m->dir);
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

int trace_ensure(const struct steer_maps *m, char *why, size_t len)
{
	struct trace_maps t;
	int err;

	why[0] = 0;
	if (!links_pinned(m->dir))
		return trace_create(m, why, len);
	/* Already counting: the cpumaps' ids only change if someone pinned
	 * new cpumaps here, but writing them costs nothing. */
	err = trace_open(m->dir, &t);
	/* An older version's: their counts start again from 0. */
	if (err == -ESTALE)
		return trace_create(m, why, len);
	if (err) {
		snprintf(why, len, "cannot open the cpumap tracepoint maps in %s: %s",
			 m->dir, strerror(-err));
		return err;
	}
	err = write_ids(m, t.cpumap_ids, why, len);
	trace_close(&t);
	return err;
}

/* The tag of the program behind the link pinned as 'name' in 'dir'. */
static int tag_of_link(const char *dir, const char *name,
		       __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	char path[PATH_MAX + 64];
	int fd, err;

	pin_path(dir, name, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	close(fd);
	return err ? err : prog_tag(info.prog_id, -1, tag);
}

int trace_is_current(const struct steer_maps *m, char *why, size_t len)
{
	struct cpumap_trace_bpf *skel;
	__u8 mine[BPF_TAG_SIZE], theirs[BPF_TAG_SIZE];
	int err = 0, same = 1;

	why[0] = 0;
	if (!links_pinned(m->dir))
		return 1;	/* none run: the next apply attaches ours */
	skel = cpumap_trace_bpf__open();
	if (!skel)
		return -errno;
#define TRACE_REUSE_(name, ...)							if (!err)									err = bpf_map__reuse_fd(skel->maps.name, m->name);
	STEER_TRACE_SHARED_MAPS(TRACE_REUSE_)
#undef TRACE_REUSE_
	/* Loaded to be hashed, never attached. */
	if (!err)
		err = cpumap_trace_bpf__load(skel);
#define TRACE_SAME_(name)						\
	if (!err && same) {						\
		err = prog_tag(0, bpf_program__fd(skel->progs.name), mine); \
		if (!err)						\
			err = tag_of_link(m->dir, STEER_STR(name), theirs); \
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
	if (!links_pinned(dir))
		return -ENOENT;
#define TRACE_FD_(name, ...)						\
	if (!err) {							\
		pin_path(dir, STEER_STR(name), path, sizeof(path));	\
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
