// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer.h"
#include "xdp_steer.skel.h"
#include "kernel/prog.h"

const char *prog_mode_name(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE:
		return "native";
	case XDP_MODE_SKB:
		return "skb";
	case XDP_MODE_HW:
		return "hw";
	default:
		return "none";
	}
}

static struct xdp_steer_bpf *open_skel(const char *pin_dir)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = pin_dir);
	return xdp_steer_bpf__open_opts(&opts);
}

int prog_attach(const char *pin_dir, int ifindex, enum xdp_attach_mode mode,
		struct attached *out)
{
	struct xdp_steer_bpf *skel;
	struct xdp_program *prog;
	int err;

	skel = open_skel(pin_dir);
	if (!skel)
		return -errno;
	/* The cpumap programs are loaded by apply, into each cpumap entry. */
	bpf_program__set_autoload(skel->progs.STEER_PROG_WORKER, false);
	bpf_program__set_autoload(skel->progs.STEER_PROG_WORKER_B, false);
	prog = xdp_program__from_bpf_obj(skel->obj, "xdp");
	err = libxdp_get_error(prog);
	if (err) {
		prog = NULL;
		goto out;
	}
	err = xdp_program__attach(prog, ifindex, mode, 0);
	if (err)
		goto out;
	err = prog_find(pin_dir, ifindex, out);
	if (!err && !out->prog_id)
		err = -ENOENT;
	if (err)
		prog_detach(ifindex);
out:
	/* The program came from our object: closing it leaves the object,
	 * which the skeleton owns, to the skeleton. */
	xdp_program__close(prog);
	xdp_steer_bpf__destroy(skel);
	return err;
}

/* 1 when the program uses the steer_ctl map pinned in 'dir'. */
static int uses_pinned_maps(const char *dir, int prog_fd)
{
	struct bpf_prog_info info = {};
	struct bpf_map_info minfo = {};
	__u32 len = sizeof(info), mlen = sizeof(minfo), ids[32], i;
	char path[PATH_MAX + 32];
	int fd, found = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, STEER_STR(steer_ctl));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &minfo, &mlen))
		goto out;
	info.nr_map_ids = 32;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		goto out;
	for (i = 0; i < info.nr_map_ids && i < 32; i++)
		found |= ids[i] == minfo.id;
out:
	close(fd);
	return found;
}

/*
 * libxdp 1.3.1 (Debian's) leaks a program fd in every
 * xdp_multiprog__get_from_ifindex(), which xdp_program__detach() calls
 * too: it gets the attached program by id, duplicates that fd into the
 * object it builds and never closes the original (fixed upstream after
 * 1.3.1, in 48ad94b). The leak keeps a detached program alive until we
 * exit, so it would still look in use. The leaked fd is the lowest free fd
 * when the call starts: leak_mark() notes it, leak_close() closes it if it
 * now holds program 'prog_id' and is not 'keep'.
 */
static int leak_mark(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

static void leak_close(int mark, __u32 prog_id, int keep)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (mark >= 0 && mark != keep && prog_id &&
	    !bpf_obj_get_info_by_fd(mark, &info, &len) && info.id == prog_id)
		close(mark);
}

static struct xdp_multiprog *get_multiprog(int ifindex)
{
	struct xdp_program *main_prog;
	struct xdp_multiprog *mp;
	int mark = leak_mark();

	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (libxdp_get_error(mp))
		return mp;
	main_prog = xdp_multiprog__main_prog(mp);
	if (main_prog)
		leak_close(mark, xdp_program__id(main_prog),
			   xdp_program__fd(main_prog));
	return mp;
}

int prog_find(const char *pin_dir, int ifindex, struct attached *out)
{
	struct xdp_program *p = NULL;
	struct xdp_multiprog *mp;
	int err;

	memset(out, 0, sizeof(*out));
	mp = get_multiprog(ifindex);
	err = libxdp_get_error(mp);
	if (err)
		return err == -ENOENT ? 0 : err;
	out->mode = xdp_multiprog__attach_mode(mp);
	out->dispatcher = !xdp_multiprog__is_legacy(mp);
	out->nprogs = xdp_multiprog__program_count(mp);
	if (out->dispatcher) {
		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp))
			if (!strcmp(xdp_program__name(p),
				    STEER_STR(STEER_PROG_MAIN)))
				break;
	} else {
		p = xdp_multiprog__main_prog(mp);
		out->nprogs = p ? 1 : 0;
		if (p && strcmp(xdp_program__name(p),
				STEER_STR(STEER_PROG_MAIN)))
			p = NULL;
	}
	if (p) {
		out->prog_id = xdp_program__id(p);
		out->uses_pins = uses_pinned_maps(pin_dir, xdp_program__fd(p));
	}
	xdp_multiprog__close(mp);
	return 0;
}

int prog_detach(int ifindex)
{
	struct xdp_program *p = NULL;
	struct xdp_multiprog *mp;
	enum xdp_attach_mode mode;
	int err, mark;
	__u32 main_id;

	mp = get_multiprog(ifindex);
	err = libxdp_get_error(mp);
	if (err)
		return err;
	mode = xdp_multiprog__attach_mode(mp);
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp))
			if (!strcmp(xdp_program__name(p),
				    STEER_STR(STEER_PROG_MAIN)))
				break;
	}
	if (!p || strcmp(xdp_program__name(p), STEER_STR(STEER_PROG_MAIN))) {
		err = -ENOENT;
	} else {
		main_id = xdp_program__id(xdp_multiprog__main_prog(mp));
		mark = leak_mark();
		err = xdp_program__detach(p, ifindex, mode, 0);
		leak_close(mark, main_id, -1);
	}
	xdp_multiprog__close(mp);
	return err;
}

int prog_worker_load(const char *pin_dir, struct xdp_steer_bpf **skelp)
{
	struct xdp_steer_bpf *skel;
	int err;

	/* Opening with the pin directory makes libbpf reuse the pinned maps
	 * (it refuses ones that do not match), so the worker counts into the
	 * same worker_stats the XDP program's owner reads. */
	skel = open_skel(pin_dir);
	if (!skel)
		return -errno;
	bpf_program__set_autoload(skel->progs.STEER_PROG_MAIN, false);
	err = xdp_steer_bpf__load(skel);
	if (err) {
		xdp_steer_bpf__destroy(skel);
		return err;
	}
	*skelp = skel;
	return 0;
}

void prog_worker_fds(const struct xdp_steer_bpf *skel, int fds[STEER_BANKS])
{
	fds[0] = bpf_program__fd(skel->progs.STEER_PROG_WORKER);
	fds[1] = bpf_program__fd(skel->progs.STEER_PROG_WORKER_B);
}

void prog_worker_close(struct xdp_steer_bpf *skel)
{
	xdp_steer_bpf__destroy(skel);
}
