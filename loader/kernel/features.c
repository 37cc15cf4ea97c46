// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * features.c - probes of what this kernel and this libxdp offer (see
 * features.h).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/prog_dispatcher.h>

#include "dispatcher_probe.skel.h"
#include "kernel/features.h"
#include "kernel/kthreads.h"
#include "kernel/leak.h"
#include "kernel/prog.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE	71
#endif

/* The slot of libxdp's dispatcher the probe takes, as xdp_steer would. */
#define PROBE_SLOT	"prog0"

/* The probe's load, for prog_spotting_refusal(): the verifier's reason
 * reaches us only in the log libbpf prints while loading, as in attach. */
static int load_probe(void *skel)
{
	return dispatcher_probe_bpf__load(skel);
}

/* Loads the extension program into slot PROBE_SLOT of the loaded
 * dispatcher 'disp_fd' and links it there. */
static int probe_extension(int disp_fd, struct why *why)
{
	struct dispatcher_probe_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link *link;
	bool pkt_data_refused;
	int err;

	skel = dispatcher_probe_bpf__open();
	if (!skel) {
		err = -errno;
		why_set(why, "opening the probe program failed: %s",
			strerror(-err));
		return err;
	}
	prog = skel->progs.steer_dispatcher_probe;
	err = bpf_program__set_attach_target(prog, disp_fd, PROBE_SLOT);
	if (err) {
		why_set(why, "libxdp's dispatcher has no slot '%s': %s",
			PROBE_SLOT, strerror(-err));
		err = 0;
		goto out;
	}
	err = prog_spotting_refusal(load_probe, skel, &pkt_data_refused);
	if (err) {
		if (pkt_data_refused) {
			why_set(why, "the kernel refuses xdp_steer, which changes packet data, in the dispatcher of this libxdp, whose slots do not (libxdp before 1.5.5)");
			err = 0;
		} else if (err == -EPERM || err == -EINVAL ||
			   err == -EOPNOTSUPP || err == -524 /* ENOTSUPP */) {
			why_set(why, "the kernel refuses extension (freplace) programs: %s",
				strerror(err == -524 ? EOPNOTSUPP : -err));
			err = 0;
		} else {
			why_set(why, "loading the probe program failed: %s",
				strerror(-err));
		}
		goto out;
	}
	link = bpf_program__attach_freplace(prog, disp_fd, PROBE_SLOT);
	if (!link) {
		why_set(why, "the kernel refuses to link an extension program into the dispatcher: %s",
			strerror(errno));
		err = 0;
		goto out;
	}
	bpf_link__destroy(link);
	why_clear(why);
	err = 1;
out:
	dispatcher_probe_bpf__destroy(skel);
	return err;
}

/* The probe features.h describes, in steps: the environment that
 * bypasses the dispatcher, root, libxdp's own dispatcher object,
 * configured as libxdp configures it for one program (else the verifier
 * drops its slots), loaded, then probe_extension() into its first slot.
 * A refusal by the kernel answers the question (0, with 'why'); only a
 * failure that leaves it open is a negative errno. libxdp is called
 * between the leak guard's two ends only, and nothing keeps an fd. */
int features_dispatcher(struct why *why)
{
	struct xdp_dispatcher_config conf = {
		.magic = XDP_DISPATCHER_MAGIC,
		.dispatcher_version = XDP_DISPATCHER_VERSION,
		.num_progs_enabled = 1,
		.chain_call_actions[0] = 1U << XDP_PASS |
					 1U << XDP_DISPATCHER_RETVAL,
	};
	struct xdp_program *disp;
	struct bpf_program *main_prog;
	struct bpf_object *obj;
	struct leak_guard g;
	struct bpf_map *map;
	int err;

	if (getenv("LIBXDP_SKIP_DISPATCHER")) {
		why_set(why, "LIBXDP_SKIP_DISPATCHER is set, so libxdp loads every program alone");
		return 0;
	}
	if (geteuid()) {
		why_set(why, "needs root");
		return -EPERM;
	}
	leak_guard_begin(&g);
	/* libxdp's own object, found where libxdp finds it
	 * (LIBXDP_OBJECT_PATH, else its BPF directory). */
	disp = xdp_program__find_file("xdp-dispatcher.o", "xdp", NULL);
	err = libxdp_get_error(disp);
	if (err) {
		why_set(why, "libxdp's dispatcher (xdp-dispatcher.o) is not found: %s",
			strerror(-err));
		err = 0;
		goto out;
	}
	obj = xdp_program__bpf_obj(disp);
	/* Configured as libxdp configures it for one program: with no slot
	 * in use the verifier drops the slots as dead code (6.12 does), and
	 * there is nothing to link into. */
	map = bpf_object__next_map(obj, NULL);
	err = map ? bpf_map__set_initial_value(map, &conf, sizeof(conf)) :
		    -ENOENT;
	if (err) {
		why_set(why, "libxdp's dispatcher object is not the one its header describes: %s",
			strerror(-err));
		goto out_close;
	}
	err = bpf_object__load(obj);
	main_prog = err ? NULL :
		    bpf_object__find_program_by_name(obj, "xdp_dispatcher");
	if (err || !main_prog) {
		why_set(why, "the kernel refuses libxdp's dispatcher: %s",
			strerror(err ? -err : ENOENT));
		err = err == -EPERM || err == -EINVAL || !main_prog ? 0 : err;
		goto out_close;
	}
	err = probe_extension(bpf_program__fd(main_prog), why);
out_close:
	xdp_program__close(disp);
out:
	leak_guard_end(&g);
	return err;
}

int features_xdp_frags(void)
{
	/* r0 = XDP_PASS; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .prog_flags = BPF_F_XDP_HAS_FRAGS);
	int fd;

	if (geteuid())
		return -EPERM;
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "steer_frags", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	/* A kernel without frags refuses the flag it does not know. */
	return errno == EINVAL ? 0 : -errno;
}

int features_netns_cookie(__u64 *cookie)
{
	socklen_t len = sizeof(*cookie);
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		ret = 1;
	else
		ret = errno == ENOPROTOOPT ? 0 : -errno;
	close(fd);
	return ret;
}

int features_libxdp_file(char *buf, size_t len)
{
	char path[PATH_MAX];
	Dl_info info;

	if (!dladdr((void *)libxdp_get_error, &info) || !info.dli_fname)
		return -ENOENT;
	if (!realpath(info.dli_fname, path))
		return -errno;
	snprintf(buf, len, "%s", path);
	return 0;
}

/* "5.19" as 5 * 1000 + 19, for comparing releases; 0 when unreadable. */
static unsigned int release_num(const char *r)
{
	unsigned int major, minor;

	return sscanf(r, "%u.%u", &major, &minor) == 2 ?
	       major * 1000 + minor : 0;
}

const char *features_kernel_min(void)
{
	const char *min = "0.0";
	int i;

	for (i = 0; i < STEER_KF_COUNT; i++)
		if (steer_kernel_features[i].needed &&
		    release_num(steer_kernel_features[i].since) > release_num(min))
			min = steer_kernel_features[i].since;
	return min;
}

/* A helper in XDP programs, by libbpf's probe: it loads a program that
 * calls it and reads the verifier's answer ("invalid func unknown#195":
 * no). */
static int probe_xdp_helper(enum bpf_func_id id)
{
	if (geteuid())
		return -EPERM;
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_XDP, id, NULL);
}

static int probe_syscall_prog(void)
{
	if (geteuid())
		return -EPERM;
	return libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SYSCALL, NULL);
}

/* struct bpf_cpumap_val: the entry's program came with it (5.9). */
struct probe_cpumap_val {
	__u32 qsize;
	int prog_fd;
};

/*
 * The cpumap probe: a cpumap whose values have room for a program (older
 * kernels take the queue size alone), and an entry on this CPU, whose
 * kthread the kernel names "cpumap/<cpu>/map:<id>" as it makes it: read
 * back whole or cut. Freed on return (the kernel stops the kthread).
 */
static void probe_cpumap(int r[STEER_KF_COUNT], bool *by_release)
{
	struct probe_cpumap_val val = { .qsize = 8 };
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key;
	char name[64];
	struct utsname u;
	int fd, cpu;

	if (geteuid()) {
		r[STEER_KF_cpumap_prog] = r[STEER_KF_kthread_names] = -EPERM;
		return;
	}
	cpu = sched_getcpu();
	key = cpu < 0 ? 0 : (__u32)cpu;
	fd = bpf_map_create(BPF_MAP_TYPE_CPUMAP, "steer_probe", sizeof(key),
			    sizeof(val), key + 1, NULL);
	r[STEER_KF_cpumap_prog] = fd >= 0 ? 1 : errno == EINVAL ? 0 : -errno;
	if (fd < 0)
		fd = bpf_map_create(BPF_MAP_TYPE_CPUMAP, "steer_probe",
				    sizeof(key), sizeof(val.qsize), key + 1,
				    NULL);
	if (fd < 0) {
		r[STEER_KF_kthread_names] = -errno;
		return;
	}
	if (bpf_map_update_elem(fd, &key, &val, 0) ||
	    bpf_obj_get_info_by_fd(fd, &info, &len)) {
		r[STEER_KF_kthread_names] = -errno;
		goto out;
	}
	snprintf(name, sizeof(name), "cpumap/%u/map:%u", key, info.id);
	r[STEER_KF_kthread_names] = kthreads_named(name);
	/* A name that fits in 15 bytes tells nothing: then the release
	 * does (5.17 keeps kthreads' whole names). */
	if (strlen(name) < 16 && r[STEER_KF_kthread_names] == 1) {
		r[STEER_KF_kthread_names] = !uname(&u) &&
			release_num(u.release) >= release_num("5.17");
		if (by_release)
			*by_release = true;
	}
out:
	close(fd);
}

void features_kernel(int r[STEER_KF_COUNT], bool *kthread_by_release)
{
	__u64 cookie;

	if (kthread_by_release)
		*kthread_by_release = false;
	probe_cpumap(r, kthread_by_release);
	r[STEER_KF_jiffies64] = probe_xdp_helper(BPF_FUNC_jiffies64);
	r[STEER_KF_syscall_prog] = probe_syscall_prog();
	r[STEER_KF_netns_cookie] = features_netns_cookie(&cookie);
	r[STEER_KF_percpu_lookup] =
		probe_xdp_helper(BPF_FUNC_map_lookup_percpu_elem);
	r[STEER_KF_loop] = probe_xdp_helper(BPF_FUNC_loop);
	r[STEER_KF_xdp_frags] = features_xdp_frags();
}

int features_lacking(const int r[STEER_KF_COUNT], char *buf, size_t len)
{
	size_t used = 0;
	int i, n = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < STEER_KF_COUNT; i++) {
		if (!steer_kernel_features[i].needed || r[i])
			continue;
		if (used < len)
			used += snprintf(buf + used, len - used, "%s%s (Linux %s)",
					 n ? ", " : "",
					 steer_kernel_features[i].what,
					 steer_kernel_features[i].since);
		n++;
	}
	return n;
}
