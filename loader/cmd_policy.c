// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* check, attach, apply, detach: the commands that read a policy or change
 * what runs on an interface. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "cmd.h"
#include "compile.h"
#include "log.h"
#include "maps.h"
#include "netdev.h"
#include "policy.h"
#include "prog.h"

#define LOCK_DIR "/run/xdp-steer"

/* Parses and validates; prints every diagnostic. 0 or EXIT_FAIL. */
static int load_policy(const char *path, struct steer_policy *p)
{
	struct diags d;
	int err;

	err = policy_parse_file(path, NULL, p, &d);
	diags_print(stderr, &d);
	diags_free(&d);
	if (err) {
		policy_free(p);
		return EXIT_FAIL;
	}
	return 0;
}

/* Serializes changes to one interface: two applies must not interleave
 * their slot writes. Returns an fd to close, or a negative errno. */
static int lock_iface(const char *ifname)
{
	char path[256];
	int fd;

	if (mkdir(LOCK_DIR, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s.lock", LOCK_DIR, ifname);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		pr_info("%s: waiting for another xdp-steer changing this interface\n",
			ifname);
		if (flock(fd, LOCK_EX)) {
			int err = -errno;

			close(fd);
			return err;
		}
	}
	return fd;
}

/* A default CPU list leaves the CPUs that take the interface's RX
 * interrupts to collecting, unless nothing else would be left. */
static int default_workers(const char *ifname, const struct steer_policy *p,
			   struct policy_cpus *out, struct table_cpu *buf)
{
	struct cpu_set irq;
	int i, n = 0;

	*out = p->cpus;
	if (!p->cpus_default || netdev_irq_cpus(ifname, NULL, &irq))
		return 0;
	for (i = 0; i < p->cpus.n; i++)
		if (!cpuset_has(&irq, p->cpus.v[i].cpu))
			buf[n++] = p->cpus.v[i];
	if (n) {
		out->v = buf;
		out->n = n;
	}
	return 0;
}

/* Applies a parsed policy to an attached interface. Exit status. */
static int apply_policy(const char *ifname, const struct steer_policy *p)
{
	struct xdp_steer_bpf *worker = NULL;
	struct table_cpu buf[STEER_MAX_CPUS];
	struct policy_cpus workers;
	struct steer_build b = {};
	struct apply_result res;
	struct steer_maps m;
	struct attached at;
	char why[512];
	int lock, err, ifindex, ret = EXIT_FAIL;

	ifindex = cmd_ifindex(ifname);
	if (!ifindex)
		return EXIT_FAIL;
	lock = lock_iface(ifname);
	if (lock < 0) {
		pr_err("cannot lock %s/%s.lock: %s\n", LOCK_DIR, ifname,
		       strerror(-lock));
		return EXIT_FAIL;
	}
	err = maps_open(ifname, &m);
	if (err) {
		pr_err("%s: no xdp-steer maps under %s/%s (%s); run 'xdp-steer attach %s --policy FILE' or 'xdp-loader load -p %s/%s %s xdp_steer.bpf.o' first\n",
		       ifname, STEER_PIN_ROOT, ifname, strerror(-err), ifname,
		       STEER_PIN_ROOT, ifname, ifname);
		goto out_unlock;
	}
	if (!prog_find(ifname, ifindex, &at) && (!at.prog_id || !at.uses_pins))
		pr_warn("%s: no attached xdp_steer program uses the maps in %s; the policy is stored, but nothing steers until one is attached\n",
			ifname, m.dir);

	default_workers(ifname, p, &workers, buf);
	err = policy_compile(p, &workers, &b, why, sizeof(why));
	if (err) {
		pr_err("%s: %s\n", ifname, why[0] ? why : strerror(-err));
		goto out_maps;
	}
	err = prog_worker_load(ifname, &worker);
	if (err) {
		pr_err("%s: cannot load the cpumap program on the pinned maps: %s; were they pinned by another version of xdp-steer? 'xdp-steer detach %s' and attach again\n",
		       ifname, strerror(-err), ifname);
		goto out_build;
	}
	err = apply_build(&m, &b, prog_worker_fd(worker), &res);
	if (err) {
		pr_err("%s: applying the policy failed: %s; the previous policy is still in force\n",
		       ifname, strerror(-err));
		goto out_worker;
	}
	if (res.unchanged)
		pr_info("%s: policy unchanged (generation %u)%s\n", ifname,
			res.generation,
			res.cpus_added ? ", missing cpumap entries restored" : "");
	else
		pr_info("%s: policy applied (generation %u, slot %u): %d worker CPU%s, %u buckets (%d moved), %d rule%s; cpumap +%d -%d\n",
			ifname, res.generation, res.slot, b.ncpus,
			b.ncpus == 1 ? "" : "s", b.slot.table_size,
			res.moved_buckets, p->nrules, p->nrules == 1 ? "" : "s",
			res.cpus_added, res.cpus_removed);
	ret = 0;
out_worker:
	prog_worker_close(worker);
out_build:
	build_free(&b);
out_maps:
	maps_close(&m);
out_unlock:
	close(lock);
	return ret;
}

static int no_handle(int opt, const char *arg, void *ctx)
{
	(void)opt;
	(void)arg;
	(void)ctx;
	return -1;
}

static const struct option help_only[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "verbose", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

int cmd_check(int argc, char **argv)
{
	const char *usage = "xdp-steer check POLICY\n"
		"  Validates POLICY against this machine's online CPUs and prints it\n"
		"  normalized, every default filled in. Exit 1 if it has errors.";
	struct steer_policy p;
	int ret;

	ret = cmd_getopt(argc, argv, "", help_only, usage, no_handle, NULL);
	if (ret >= 0)
		return ret;
	if (argc - optind != 1) {
		fprintf(stderr, "usage: %s\n", usage);
		return EXIT_USAGE;
	}
	if (load_policy(argv[optind], &p))
		return EXIT_FAIL;
	policy_print(stdout, &p);
	policy_free(&p);
	return 0;
}

struct attach_opts {
	const char *policy;
	enum xdp_attach_mode mode;
};

static int attach_handle(int opt, const char *arg, void *ctx)
{
	struct attach_opts *o = ctx;

	switch (opt) {
	case 'p':
		o->policy = arg;
		return 0;
	case 'm':
		if (!strcmp(arg, "native"))
			o->mode = XDP_MODE_NATIVE;
		else if (!strcmp(arg, "skb"))
			o->mode = XDP_MODE_SKB;
		else {
			pr_err("unknown mode '%s' (native or skb)\n", arg);
			return -1;
		}
		return 0;
	}
	return -1;
}

int cmd_attach(int argc, char **argv)
{
	const char *usage = "xdp-steer attach IFACE --policy POLICY [--mode native|skb]\n"
		"  Loads the XDP program on IFACE (through libxdp's dispatcher when the\n"
		"  kernel allows it), pins its maps under " STEER_PIN_ROOT "/IFACE and\n"
		"  applies POLICY. Mode defaults to native.";
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct attach_opts o = { .mode = XDP_MODE_NATIVE };
	struct steer_policy p;
	struct attached at;
	const char *ifname;
	int ret, err, ifindex;

	ret = cmd_getopt(argc, argv, "p:m:", longopts, usage, attach_handle, &o);
	if (ret >= 0)
		return ret;
	if (argc - optind != 1 || !o.policy) {
		fprintf(stderr, "usage: %s\n", usage);
		return EXIT_USAGE;
	}
	ifname = argv[optind];
	/* A bad policy must not leave a program behind. */
	if (load_policy(o.policy, &p))
		return EXIT_FAIL;
	ifindex = cmd_ifindex(ifname);
	if (!ifindex) {
		ret = EXIT_FAIL;
		goto out;
	}
	err = prog_find(ifname, ifindex, &at);
	if (!err && at.prog_id) {
		pr_err("%s: xdp-steer is already attached (program %u); change its policy with 'xdp-steer apply %s %s'\n",
		       ifname, at.prog_id, ifname, o.policy);
		ret = EXIT_FAIL;
		goto out;
	}
	/* Pins without a program are left from a run that died: start
	 * clean rather than inherit its maps. */
	maps_unpin_all(ifname);
	err = prog_attach(ifname, ifindex, o.mode, &at);
	if (err) {
		pr_err("%s: attaching in %s mode failed: %s%s\n", ifname,
		       prog_mode_name(o.mode), strerror(-err),
		       o.mode == XDP_MODE_NATIVE ?
		       "; the driver may lack native XDP: try --mode skb" : "");
		maps_unpin_all(ifname);
		ret = EXIT_FAIL;
		goto out;
	}
	pr_info("%s: attached xdp_steer (program %u) in %s mode, %s\n", ifname,
		at.prog_id, prog_mode_name(at.mode),
		at.dispatcher ? "under libxdp's dispatcher" :
		"as the only XDP program (the kernel refused libxdp's dispatcher)");
	ret = apply_policy(ifname, &p);
	if (ret) {
		/* All or nothing: no program runs without its policy. */
		prog_detach(ifindex);
		maps_unpin_all(ifname);
		pr_err("%s: detached again, since the policy could not be applied\n",
		       ifname);
	}
out:
	policy_free(&p);
	return ret;
}

int cmd_apply(int argc, char **argv)
{
	const char *usage = "xdp-steer apply IFACE POLICY\n"
		"  Applies POLICY to IFACE, attached by 'xdp-steer attach' or by\n"
		"  'xdp-loader load -p " STEER_PIN_ROOT "/IFACE'. Atomic: a policy\n"
		"  that fails leaves the previous one in force.";
	struct steer_policy p;
	int ret;

	ret = cmd_getopt(argc, argv, "", help_only, usage, no_handle, NULL);
	if (ret >= 0)
		return ret;
	if (argc - optind != 2) {
		fprintf(stderr, "usage: %s\n", usage);
		return EXIT_USAGE;
	}
	if (load_policy(argv[optind + 1], &p))
		return EXIT_FAIL;
	ret = apply_policy(argv[optind], &p);
	policy_free(&p);
	return ret;
}

int cmd_detach(int argc, char **argv)
{
	const char *usage = "xdp-steer detach IFACE\n"
		"  Unloads xdp_steer from IFACE and removes its pins.";
	const char *ifname;
	int ret, err, ifindex;

	ret = cmd_getopt(argc, argv, "", help_only, usage, no_handle, NULL);
	if (ret >= 0)
		return ret;
	if (argc - optind != 1) {
		fprintf(stderr, "usage: %s\n", usage);
		return EXIT_USAGE;
	}
	ifname = argv[optind];
	ifindex = cmd_ifindex(ifname);
	if (!ifindex)
		return EXIT_FAIL;
	err = prog_detach(ifindex);
	if (err && err != -ENOENT) {
		pr_err("%s: detaching failed: %s\n", ifname, strerror(-err));
		return EXIT_FAIL;
	}
	if (err == -ENOENT)
		pr_info("%s: xdp_steer was not attached\n", ifname);
	else
		pr_info("%s: detached xdp_steer\n", ifname);
	err = maps_unpin_all(ifname);
	if (err) {
		pr_err("%s: removing the pins in %s/%s failed: %s\n", ifname,
		       STEER_PIN_ROOT, ifname, strerror(-err));
		return EXIT_FAIL;
	}
	return 0;
}
