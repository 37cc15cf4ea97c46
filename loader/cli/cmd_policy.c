// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* check, attach, apply: the commands that read a policy. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/log.h"
#include "cli/print_plan.h"
#include "model/numa.h"

/* --policy FILE (-p FILE), the same in every command that reads one. */
#define POLICY_LONGOPT	{ "policy", required_argument, NULL, 'p' }

static int policy_handle(int opt, const char *arg, void *ctx)
{
	if (opt != 'p')
		return -1;
	*(const char **)ctx = arg;
	return 0;
}

/* The policy file: the value of --policy; else, the old spelling, the
 * argument after the 'nargs' ones the command takes first, with a note
 * that it is deprecated and how to write it ('spelled'). Checks the number
 * of arguments either way. NULL after saying what is wrong, with the
 * usage line. */
static const char *policy_file(int argc, char **argv, int nargs,
			       const char *policy, const char *spelled,
			       const char *usage)
{
	if (cmd_args(argc, argv, nargs, policy ? nargs : nargs + 1, usage))
		return NULL;
	if (policy)
		return policy;
	if (argc - optind == nargs) {
		pr_err("--policy FILE is missing\n");
		cmd_usage_error(usage);
		return NULL;
	}
	pr_note("a policy file given without --policy is deprecated: write '%s'\n",
		spelled);
	return argv[optind + nargs];
}

/* What an apply did, one line each: the policy (in force again, or new),
 * then what it mended or changed besides. Shared with `repair`. */
static void say_applied(const char *ifname, const struct steer_policy *p,
		 const struct steer_apply_result *r)
{
	const struct slots_result *s = &r->slots;
	char cpus[CPUSET_STR_MAX];
	int nrenewed = cpuset_count(&s->renewed);

	cpuset_format(&s->renewed, cpus, sizeof(cpus));
	if (s->unchanged && s->sched_changed)
		pr_info("%s: worker_sched set on %d cpumap kthread%s; the rest of the policy is unchanged (generation %u)%s\n",
			ifname, s->sched_changed,
			s->sched_changed == 1 ? "" : "s", s->generation,
			s->cpus_added ? ", missing cpumap entries restored" : "");
	else if (s->unchanged)
		pr_info("%s: policy unchanged (generation %u)%s\n", ifname,
			s->generation,
			s->cpus_added ? ", missing cpumap entries restored" : "");
	else if (s->same_policy)
		pr_info("%s: policy unchanged, cpumap kthreads repaired (generation %u, slot %u): cpumap +%d -%d\n",
			ifname, s->generation, s->slot, s->cpus_added,
			s->cpus_removed);
	else if (p)
		pr_info("%s: policy applied (generation %u, slot %u): %d worker CPU%s, %u bucket%s (%d moved), %d rule%s; cpumap +%d -%d\n",
			ifname, s->generation, s->slot, r->ncpus,
			r->ncpus == 1 ? "" : "s", p->table_size,
			p->table_size == 1 ? "" : "s",
			s->moved_buckets, p->nrules, p->nrules == 1 ? "" : "s",
			s->cpus_added, s->cpus_removed);
	else
		pr_info("%s: policy in force applied again (generation %u, slot %u): cpumap +%d -%d\n",
			ifname, s->generation, s->slot, s->cpus_added,
			s->cpus_removed);
	if (nrenewed)
		pr_info("%s: the cpumap kthread%s of worker CPU%s %s could run on other CPUs (%s CPU went offline and came back): replaced by new entries bound to %s CPU%s; their flows drained from the old ones in order\n",
			ifname, nrenewed == 1 ? "" : "s",
			nrenewed == 1 ? "" : "s", cpus,
			nrenewed == 1 ? "its" : "their",
			nrenewed == 1 ? "its" : "their",
			nrenewed == 1 ? "" : "s");
	if (!s->unchanged && s->sched_changed)
		pr_info("%s: worker_sched set on %d cpumap kthread%s\n", ifname,
			s->sched_changed, s->sched_changed == 1 ? "" : "s");
	if (s->finished_pending)
		pr_info("%s: finished what an earlier, interrupted apply left: its old slot's readers are gone and unneeded cpumap entries removed\n",
			ifname);
}

struct check_opts {
	const char *policy;
	struct cpu_set cpus;
	char cpus_name[CPUSET_STR_MAX + 16];	/* "--cpus 0-63"; "" without */
	struct numa_layout *nodes;		/* --nodes; NULL without */
	int nic_node;				/* --nic-node; -1 without */
};

static int nodes_handle(struct check_opts *o, int opt, const char *arg)
{
	char why[128], *end;
	long id;

	if (opt == 'D') {
		errno = 0;
		id = strtol(arg, &end, 10);
		if (!*arg || *end || errno || id < 0 || id > NUMA_MAX_NODE_ID ||
		    arg[strspn(arg, "0123456789")]) {
			pr_err("--nic-node takes a node id, 0-%d, not '%s'\n",
			       NUMA_MAX_NODE_ID, arg);
			return -1;
		}
		o->nic_node = id;
		return 0;
	}
	if (!o->nodes)
		o->nodes = malloc(sizeof(*o->nodes));
	if (!o->nodes) {
		pr_err("--nodes: out of memory\n");
		return -1;
	}
	if (numa_layout_parse(o->nodes, arg, &WHY(why))) {
		pr_err("--nodes: %s (NODE:CPUS, each node's CPUs in the kernel's list syntax, as in /sys/devices/system/node/nodeN/cpulist)\n",
		       why);
		return -1;
	}
	return 0;
}

static int check_handle(int opt, const char *arg, void *ctx)
{
	struct check_opts *o = ctx;

	if (opt == 'N' || opt == 'D')
		return nodes_handle(o, opt, arg);
	if (opt != 'C')
		return policy_handle(opt, arg, &o->policy);
	/* The kernel's list syntax, strictly: no spaces, signs or hex. */
	if (!*arg || arg[strspn(arg, "0123456789-,")] ||
	    cpuset_parse(&o->cpus, arg)) {
		pr_err("--cpus takes a CPU list like 0-63 or 0-15,32-47, not '%s'\n",
		       arg);
		return -1;
	}
	if (cpuset_count(&o->cpus) == cpuset_count_from(&o->cpus, STEER_CPU_IDS)) {
		pr_err("--cpus %s names no CPU below %d, the most a policy can use\n",
		       arg, STEER_CPU_IDS);
		return -1;
	}
	/* As typed (checked above): its CPUs past the workers' limit are
	 * refused by a policy that names them, and left out of the default
	 * with a warning, as on a machine that has them. */
	snprintf(o->cpus_name, sizeof(o->cpus_name), "--cpus %s", arg);
	return 0;
}

/* What --nodes (and --nic-node) tell of the policy's workers, after it
 * checked: the default's workers on the NIC's node, an explicit 'cpus'
 * off it or across nodes, said as warnings (never mistakes: a policy may
 * have its reasons). */
static void check_nodes(const struct check_opts *o,
			const struct steer_policy *p)
{
	char list[CPUSET_STR_MAX], ids[CPUSET_STR_MAX];
	struct cpu_set online, workers, off;
	const struct cpu_set *node;
	enum numa_default how;
	int i;

	cpuset_zero(&workers);
	for (i = 0; i < p->cpus.n; i++)
		cpuset_set(&workers, p->cpus.v[i].cpu);
	node = numa_node_cpus(o->nodes, o->nic_node);
	if (o->nic_node >= 0 && !node) {
		pr_warn("%s: --nodes has no node %d, the one of --nic-node\n",
			o->policy, o->nic_node);
		return;
	}
	if (p->cpus_default && o->nic_node < 0) {
		pr_note("%s: 'cpus' is not set: the workers are the CPUs of the NIC's NUMA node but those taking its RX interrupts; --nic-node N says which node the NIC is on\n",
			o->policy);
		return;
	}
	if (p->cpus_default) {
		/* The default's list is the online CPUs (those of --cpus). */
		online = workers;
		how = numa_default_workers(&online, o->nodes, o->nic_node,
					   NULL, &workers);
		cpuset_format(&workers, list, sizeof(list));
		if (how == NUMA_DEFAULT_NODE)
			pr_note("%s: 'cpus' is not set: the workers are node %d's CPUs %s but those taking the NIC's RX interrupts\n",
				o->policy, o->nic_node, list);
		else if (how == NUMA_DEFAULT_NODE_EMPTY)
			pr_warn("%s: 'cpus' is not set, and node %d, the NIC's, has none of the online CPUs: the workers are all of them but those taking its RX interrupts, across nodes (%s); set 'cpus'\n",
				o->policy, o->nic_node, list);
		else
			pr_note("%s: 'cpus' is not set: the workers are the online CPUs %s but those taking the NIC's RX interrupts (node %d has them all)\n",
				o->policy, list, o->nic_node);
		return;
	}
	if (node) {
		cpuset_zero(&off);
		for (i = 0; i < p->cpus.n; i++)
			if (!cpuset_has(node, p->cpus.v[i].cpu))
				cpuset_set(&off, p->cpus.v[i].cpu);
		if (cpuset_count(&off))
			pr_warn("%s: worker CPUs %s are not on NUMA node %d, the NIC's: every frame steered to them crosses nodes; set 'cpus' to CPUs of node %d (%s), or leave it unset to default to them\n",
				o->policy, cpuset_format(&off, list, sizeof(list)),
				o->nic_node, o->nic_node,
				cpuset_format(node, ids, sizeof(ids)));
		return;
	}
	if (numa_nodes_of(o->nodes, &workers, ids, sizeof(ids)) > 1)
		pr_warn("%s: the worker CPUs span NUMA nodes %s: frames steered off the NIC's node cross nodes; keep 'cpus' to the NIC's node (--nic-node N checks it)\n",
			o->policy, ids);
}

/* check: the options (--nic-node only with --nodes), the policy file,
 * the policy parsed against the online CPUs or those of --cpus, this
 * kernel's features only without --cpus (another machine's kernel is
 * not this one), the NUMA notes of --nodes, then the policy printed
 * with every default filled in; with -q, only the mistakes are said. */
int cmd_check(int argc, char **argv)
{
	const char *usage = "xdp-steer check --policy POLICY [--cpus LIST] [--nodes LAYOUT [--nic-node N]]\n"
		"  Validates POLICY against this machine's online CPUs and kernel, or the\n"
		"  CPUs of LIST (another machine's, like 0-63 or 0-15,32-47), and prints it\n"
		"  normalized, every default filled in. Exit 1 if it has errors; with\n"
		"  -q (--quiet) it prints only those. Short option: -p POLICY.\n"
		"  --nodes LAYOUT: that machine's NUMA nodes, like 0:0-15,1:16-31, and\n"
		"  --nic-node N the NIC's: warns of workers off the NIC's node (or across\n"
		"  nodes), and says which CPUs a default 'cpus' takes there.\n"
		"  'xdp-steer check POLICY', the old spelling, still works (deprecated).";
	static const struct option longopts[] = {
		POLICY_LONGOPT,
		/* No letter: -c is stats' --count. */
		{ "cpus", required_argument, NULL, 'C' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "nic-node", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_opts o = { .nic_node = -1 };
	struct steer_policy p;
	struct steer_ctx ctx;
	bool quiet;
	int ret;

	ret = cmd_getopt(argc, argv, "p:", longopts, usage, check_handle, &o);
	if (ret >= 0) {
		free(o.nodes);
		return ret;
	}
	if (o.nic_node >= 0 && !o.nodes) {
		free(o.nodes);
		pr_err("--nic-node needs --nodes, the layout it is a node of\n");
		return cmd_usage_error(usage);
	}
	/* -q before the command or after it */
	quiet = log_threshold < LOG_NOTE;
	o.policy = policy_file(argc, argv, 0, o.policy,
			       "xdp-steer check --policy POLICY", usage);
	if (!o.policy) {
		free(o.nodes);
		return EXIT_USAGE;
	}
	/* Without --cpus the messages call the CPUs "online", which a name
	 * of "" would blank out. */
	if (cli_load_policy(o.policy, o.cpus_name[0] ? &o.cpus : NULL,
			    o.cpus_name[0] ? o.cpus_name : NULL, quiet, &p)) {
		free(o.nodes);
		return EXIT_FAIL;
	}
	/* For this machine, its kernel too: a policy it cannot run is no
	 * policy for it. */
	cli_ctx_init(&ctx);
	if (!o.cpus_name[0] && steer_kernel_check(&ctx, NULL)) {
		policy_free(&p);
		free(o.nodes);
		return cli_fail(&ctx);
	}
	if (o.nodes && !quiet)
		check_nodes(&o, &p);
	if (!quiet)
		policy_print(stdout, &p);
	policy_free(&p);
	free(o.nodes);
	return 0;
}

struct attach_opts {
	const char *policy;
	enum xdp_attach_mode mode;
	__u32 rx_slots;		/* 0: the default R */
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
	case 'r': {
		unsigned long n;
		char *end;

		errno = 0;
		n = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || !isdigit((unsigned char)*arg) ||
		    !n || n > STEER_RX_SLOTS) {
			pr_err("--rx-slots '%s': a number of receiver slots from 1 to %d (the most the design allows)\n",
			       arg, STEER_RX_SLOTS);
			return -1;
		}
		o->rx_slots = (__u32)n;
		return 0;
	}
	}
	return -1;
}

/* attach: the options and the interface, the policy parsed before the
 * kernel is touched (a bad policy leaves no program behind), then
 * steer_attach(), all or nothing (steer.h). What it did is said from
 * its result: an upgrade in place, with the maps it migrated and the
 * tracepoint programs' handover, or a new attach, with how the program
 * sits beside others (the dispatcher, or alone and why). */
int cmd_attach(int argc, char **argv)
{
	const char *usage = "xdp-steer attach IFACE --policy POLICY [--mode native|skb] [--rx-slots N]\n"
		"  Loads the XDP program on IFACE (through libxdp's dispatcher when the\n"
		"  kernel allows it), pins its maps ('xdp-steer pin-dir IFACE' says where)\n"
		"  and applies POLICY. Mode defaults to native. All or nothing. Where\n"
		"  xdp-steer already runs, upgrades it in place: this version's programs\n"
		"  take the running ones' place, in their mode, on the same maps, traffic\n"
		"  flowing; then POLICY is applied as by apply. --rx-slots N: the receiver\n"
		"  slots of the maps it makes (1 to 256; default: min(possible CPUs,\n"
		"  max(16, 2 x receive channels))); the maps keep theirs until detach.\n"
		"  Short options: -p POLICY, -m MODE.";
	static const struct option longopts[] = {
		POLICY_LONGOPT,
		{ "mode", required_argument, NULL, 'm' },
		{ "rx-slots", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	/* Unspecified: native for a new attach, the running mode for an
	 * upgrade in place (steer.h). */
	struct attach_opts o = { .mode = XDP_MODE_UNSPEC };
	struct steer_attach_result res;
	struct steer_policy p;
	struct steer_ctx ctx;
	const char *ifname;
	int ret;

	ret = cmd_getopt(argc, argv, "p:m:", longopts, usage, attach_handle, &o);
	if (ret >= 0)
		return ret;
	if (cmd_args(argc, argv, 1, 1, usage) ||
	    cmd_ifname(argv[optind], usage))
		return EXIT_USAGE;
	if (!o.policy) {
		pr_err("--policy FILE is missing: attach applies a policy at once\n");
		return cmd_usage_error(usage);
	}
	ifname = argv[optind];
	/* A bad policy must not leave a program behind. */
	if (cli_load_policy(o.policy, NULL, NULL, false, &p))
		return EXIT_FAIL;
	cli_ctx_init(&ctx);
	if (steer_attach(&ctx, ifname, &p, o.mode, o.rx_slots, &res)) {
		ret = cli_fail(&ctx);
	} else if (res.upgraded_from) {
		pr_info("%s: upgraded in place: program %u replaced by this version's (program %u) in %s mode, traffic flowing; the maps, the policy and the drains under way carried on\n",
			ifname, res.upgraded_from, res.at.prog_id,
			attach_mode_name(res.at.mode));
		if (res.migrated)
			pr_info("%s: %d maps of another layout were created or rebuilt from the old ones, and renamed over their pins (loader/README.md, \"Upgrade in place: maps of another layout\")\n",
				ifname, res.migrated);
		if (res.trace_handover == 1)
			pr_info("%s: the tracepoint programs were handed over to this version's\n",
				ifname);
		else if (res.trace_handover == 2)
			pr_info("%s: the tracepoint programs hand over to this version's once the old cpumap bank's buckets have drained (an apply or balancer round finishes it)\n",
				ifname);
		say_applied(ifname, &p, &res.apply);
		ret = 0;
	} else {
		pr_info("%s: attached xdp_steer (program %u) in %s mode, %s\n",
			ifname, res.at.prog_id, attach_mode_name(res.at.mode),
			res.at.dispatcher ? "under libxdp's dispatcher" :
			res.at.ext_refused ?
			"as the only XDP program (the kernel refused it in libxdp's dispatcher)" :
			"as the only XDP program (the kernel refused libxdp's dispatcher)");
		say_applied(ifname, &p, &res.apply);
		ret = 0;
	}
	policy_free(&p);
	return ret;
}

struct apply_opts {
	const char *policy;
	bool dry_run;
	bool json;
};

static int apply_handle(int opt, const char *arg, void *ctx)
{
	struct apply_opts *o = ctx;

	switch (opt) {
	case 'n':
		o->dry_run = true;
		return 0;
	case 'j':
		o->json = true;
		return 0;
	}
	return policy_handle(opt, arg, &o->policy);
}

/* apply --dry-run: what would change, printed; EXIT_CHANGES when
 * anything would, 0 when nothing would. */
static int dry_run(const char *ifname, const char *policy,
		   const struct steer_policy *p, bool json)
{
	struct steer_dry_run res;
	struct steer_ctx ctx;
	bool changes;

	cli_ctx_init(&ctx);
	if (steer_apply_dry_run(&ctx, ifname, p, &res))
		return cli_fail(&ctx);
	/* -q: the exit status alone says it, for a script. */
	if (json)
		print_plan_json(ifname, policy, &res);
	else if (log_threshold >= LOG_NOTE)
		print_plan_text(ifname, policy, &res);
	changes = res.plan.changes;
	plan_free(&res.plan);
	return changes ? EXIT_CHANGES : 0;
}

int cmd_apply(int argc, char **argv)
{
	const char *usage = "xdp-steer apply IFACE --policy POLICY [--dry-run [--json]]\n"
		"  Applies POLICY to IFACE, attached by 'xdp-steer attach' or by\n"
		"  'xdp-loader load -p $(xdp-steer pin-dir IFACE --create)'. Atomic: a\n"
		"  policy that fails leaves the previous one in force.\n"
		"  --dry-run (-n): say what the apply would change (workers, buckets\n"
		"  moved per CPU pair, rules, cpumap entries, worker_sched, settings)\n"
		"  and change nothing; exit 0 when nothing would change, 4 when\n"
		"  something would (with -q it prints nothing else). --json (-j):\n"
		"  that as one JSON document.\n"
		"  Short option: -p POLICY. 'xdp-steer apply IFACE POLICY', the old\n"
		"  spelling, still works (deprecated).";
	static const struct option longopts[] = {
		POLICY_LONGOPT,
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct steer_apply_result res;
	struct apply_opts o = {};
	struct steer_policy p;
	struct steer_ctx ctx;
	int ret;

	ret = cmd_getopt(argc, argv, "p:nj", longopts, usage, apply_handle, &o);
	if (ret >= 0)
		return ret;
	o.policy = policy_file(argc, argv, 1, o.policy,
			       "xdp-steer apply IFACE --policy POLICY", usage);
	if (!o.policy || cmd_ifname(argv[optind], usage))
		return EXIT_USAGE;
	if (o.json && !o.dry_run) {
		pr_err("--json goes with --dry-run: an apply reports in text\n");
		return cmd_usage_error(usage);
	}
	if (cli_load_policy(o.policy, NULL, NULL, false, &p))
		return EXIT_FAIL;
	if (o.dry_run) {
		ret = dry_run(argv[optind], o.policy, &p, o.json);
		policy_free(&p);
		return ret;
	}
	cli_ctx_init(&ctx);
	if (steer_apply(&ctx, argv[optind], &p, &res)) {
		ret = cli_fail(&ctx);
	} else {
		say_applied(argv[optind], &p, &res);
		ret = 0;
	}
	policy_free(&p);
	return ret;
}

/* One interface; 'quiet_absent': say nothing when it is gone or has no
 * policy (the sweep over every interface with pins). */
static int repair_one(const char *ifname, bool quiet_absent)
{
	struct steer_apply_result res;
	struct steer_ctx ctx;
	int err;

	cli_ctx_init(&ctx);
	err = steer_repair(&ctx, ifname, &res);
	if (err && quiet_absent && (err == -ENODEV || err == -ENOENT))
		return 0;
	if (err)
		return cli_fail(&ctx);
	if (res.slots.unchanged && !res.slots.cpus_added &&
	    !res.slots.finished_pending)
		pr_info("%s: nothing to repair: every worker's cpumap kthread runs on its CPU only, every entry is there\n",
			ifname);
	else
		say_applied(ifname, NULL, &res);
	return 0;
}

/* repair takes no options of its own. */
static int repair_handle(int opt, const char *arg, void *ctx)
{
	(void)opt;
	(void)arg;
	(void)ctx;
	return -1;
}

int cmd_repair(int argc, char **argv)
{
	const char *usage = "xdp-steer repair [IFACE]\n"
		"  Applies the policy in force on IFACE again, read from its maps (no\n"
		"  policy file): cpumap kthreads that may run off their CPU (after the\n"
		"  CPU went offline and came back) get new entries bound to it, missing\n"
		"  entries are made again. Without IFACE, every interface with pins in\n"
		"  this network namespace. Flows keep their CPUs and their order.";
	static const struct option longopts[] = { { NULL, 0, NULL, 0 } };
	struct steer_list l;
	struct steer_ctx ctx;
	int ret, i;

	ret = cmd_getopt(argc, argv, "", longopts, usage, repair_handle, NULL);
	if (ret >= 0)
		return ret;
	if (cmd_args(argc, argv, 0, 1, usage))
		return EXIT_USAGE;
	if (argc - optind == 1)
		return cmd_ifname(argv[optind], usage) ? EXIT_USAGE :
		       repair_one(argv[optind], false);
	cli_ctx_init(&ctx);
	if (steer_list(&ctx, &l))
		return cli_fail(&ctx);
	ret = 0;
	for (i = 0; i < l.n; i++)
		ret |= repair_one(l.ifnames[i], true);
	steer_list_free(&l);
	return ret ? EXIT_FAIL : 0;
}
