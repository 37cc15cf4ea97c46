// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* detach: take xdp_steer off an interface and remove its pins, or sweep
 * the pins of interfaces and namespaces that are gone. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/log.h"
#include "cli/unit_job.h"

struct detach_opts {
	int stale;
	const char *unless_restarting;
};

static int detach_handle(int opt, const char *arg, void *ctx)
{
	struct detach_opts *o = ctx;

	if (opt == 's')
		o->stale = 1;
	else if (opt == 'r')
		o->unless_restarting = arg;
	else
		return -1;
	return 0;
}

static int detach_stale(void)
{
	struct steer_stale_result res;
	struct steer_ctx ctx;
	int i, ret = 0;

	cli_ctx_init(&ctx);
	if (steer_detach_stale(&ctx, &res))
		ret = cli_fail(&ctx);
	for (i = 0; i < res.n; i++) {
		if (res.v[i].removed) {
			pr_info("%s: removed (its interface or namespace is gone)\n",
				res.v[i].dir);
		} else {
			pr_warn("%s: kept: program %u still uses its maps ('bpftool prog show id %u')\n",
				res.v[i].dir, res.v[i].prog_id, res.v[i].prog_id);
			ret = EXIT_FAIL;
		}
	}
	if (res.locks_removed)
		pr_info("%s: removed %d lock file%s nothing needed any more\n",
			res.lock_dir, res.locks_removed,
			res.locks_removed == 1 ? "" : "s");
	if (!res.n && !ret)
		pr_info("no stale pins\n");
	steer_stale_free(&res);
	return ret;
}

/* ExecStop's question: whether systemd stops 'unit' for a restart and
 * xdp_steer runs on 'ifname' (alone or in libxdp's dispatcher), so that
 * the start's attach replaces the programs in place, no frame lost, where
 * a detach would leave the interface unsteered (and reset a NIC's rings)
 * until it. Without an answer from systemd, a stop: a stop must never
 * leave a program attached that its unit no longer accounts for. */
static bool keep_for_restart(const char *ifname, const char *unit)
{
	struct steer_status *st;
	struct steer_ctx ctx;
	bool keep = false;
	int ret;

	ret = unit_job_is_restart(unit);
	if (ret < 0)
		pr_info("%s: systemd did not say whether %s is restarting (%s): detaching\n",
			ifname, unit,
			ret == -ENOTCONN ? "systemctl show failed" : strerror(-ret));
	if (ret <= 0)
		return false;
	st = calloc(1, sizeof(*st));
	if (!st)
		return false;
	cli_ctx_init(&ctx);
	if (steer_status(&ctx, ifname, st) || !st->at.prog_id) {
		/* Nothing running to upgrade: detach tidies what is left. */
	} else {
		pr_info("%s: %s is restarting: xdp_steer stays attached, and its start upgrades it in place\n",
			ifname, unit);
		keep = true;
	}
	free(st);
	return keep;
}

int cmd_detach(int argc, char **argv)
{
	const char *usage = "xdp-steer detach IFACE [--unless-restarting UNIT] | --stale\n"
		"  Unloads xdp_steer from IFACE and removes its pins (also when IFACE\n"
		"  is gone). --unless-restarting UNIT: not while systemd restarts UNIT\n"
		"  and xdp_steer runs on IFACE (the unit's ExecStop: the start that\n"
		"  follows upgrades in place); when systemd cannot say, it detaches. --stale removes the pins of every interface and network\n"
		"  namespace that is gone, unless a program still uses them, and lock\n"
		"  files nothing needs.";
	static const struct option longopts[] = {
		{ "stale", no_argument, NULL, 's' },
		{ "unless-restarting", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct detach_opts o = { 0 };
	struct steer_detach_result res;
	struct steer_ctx ctx;
	const char *ifname;
	int ret;

	ret = cmd_getopt(argc, argv, "", longopts, usage, detach_handle, &o);
	if (ret >= 0)
		return ret;
	if (o.stale)
		return cmd_args(argc, argv, 0, 0, usage) || o.unless_restarting ?
		       cmd_usage_error(usage) : detach_stale();
	if (cmd_args(argc, argv, 1, 1, usage) ||
	    cmd_ifname(argv[optind], usage))
		return EXIT_USAGE;
	ifname = argv[optind];
	if (o.unless_restarting && keep_for_restart(ifname, o.unless_restarting))
		return 0;
	cli_ctx_init(&ctx);
	if (steer_detach(&ctx, ifname, &res))
		return cli_fail(&ctx);
	if (res.was_attached)
		pr_info("%s: detached xdp_steer\n", ifname);
	else if (res.iface_gone)
		pr_info("%s: the interface is gone; its pins were removed\n",
			ifname);
	else
		pr_info("%s: xdp_steer was not attached%s\n", ifname,
			res.pins_removed ? "; its pins were removed" : "");
	return 0;
}
