// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* detach: take xdp_steer off an interface and remove its pins, or sweep
 * the pins of interfaces and namespaces that are gone. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cmd.h"
#include "cli/log.h"
#include "kernel/lock.h"

static int stale_handle(int opt, const char *arg, void *ctx)
{
	(void)arg;
	if (opt != 's')
		return -1;
	*(int *)ctx = 1;
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
			LOCK_DIR, res.locks_removed,
			res.locks_removed == 1 ? "" : "s");
	if (!res.n && !ret)
		pr_info("no stale pins\n");
	steer_stale_free(&res);
	return ret;
}

int cmd_detach(int argc, char **argv)
{
	const char *usage = "xdp-steer detach IFACE | --stale\n"
		"  Unloads xdp_steer from IFACE and removes its pins (also when IFACE\n"
		"  is gone). --stale removes the pins of every interface and network\n"
		"  namespace that is gone, unless a program still uses them, and lock\n"
		"  files nothing needs.";
	static const struct option longopts[] = {
		{ "stale", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct steer_detach_result res;
	struct steer_ctx ctx;
	const char *ifname;
	int ret, stale = 0;

	ret = cmd_getopt(argc, argv, "", longopts, usage, stale_handle, &stale);
	if (ret >= 0)
		return ret;
	if (stale)
		return cmd_args(argc, argv, 0, 0, usage) ? EXIT_USAGE :
		       detach_stale();
	if (cmd_args(argc, argv, 1, 1, usage) ||
	    cmd_ifname(argv[optind], usage))
		return EXIT_USAGE;
	ifname = argv[optind];
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
