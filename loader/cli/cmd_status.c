// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status: what is attached where, the policy in force, health warnings;
 * pin-dir: where an interface's maps are pinned in this namespace. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "cli/log.h"
#include "cli/print_status.h"

static int status_one(const char *ifname, int json)
{
	struct steer_status *st = calloc(1, sizeof(*st));
	struct steer_ctx ctx;
	int ret = 0;

	if (!st) {
		pr_err("out of memory\n");
		return EXIT_FAIL;
	}
	cli_ctx_init(&ctx);
	if (steer_status(&ctx, ifname, st))
		ret = cli_fail(&ctx);
	else if (json)
		print_status_json(st);
	else
		print_status_text(st);
	free(st);
	return ret;
}

static int flag_handle(int opt, const char *arg, void *ctx)
{
	(void)arg;
	if (opt != 'j' && opt != 'c')
		return -1;
	*(int *)ctx = 1;
	return 0;
}

int cmd_status(int argc, char **argv)
{
	const char *usage = "xdp-steer status [IFACE] [--json]\n"
		"  What is attached, in which mode, the policy in force and health\n"
		"  warnings; every interface with pins in this network namespace when\n"
		"  IFACE is not given, and pins of namespaces that are gone.\n"
		"  Short option: -j.";
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct steer_list l;
	struct steer_ctx ctx;
	int json = 0, ret, i;

	ret = cmd_getopt(argc, argv, "j", longopts, usage, flag_handle, &json);
	if (ret >= 0)
		return ret;
	if (cmd_args(argc, argv, 0, 1, usage))
		return EXIT_USAGE;
	if (argc - optind == 1)
		return cmd_ifname(argv[optind], usage) ? EXIT_USAGE :
		       status_one(argv[optind], json);
	cli_ctx_init(&ctx);
	if (steer_list(&ctx, &l))
		return cli_fail(&ctx);
	ret = 0;
	for (i = 0; i < l.n; i++)
		ret |= status_one(l.ifnames[i], json);
	if (!json)
		print_status_gone(&l);
	if (!l.n && !l.ngone && !json)
		printf("xdp-steer is not attached to any interface in this network namespace\n");
	steer_list_free(&l);
	return ret ? EXIT_FAIL : 0;
}

int cmd_pin_dir(int argc, char **argv)
{
	const char *usage = "xdp-steer pin-dir IFACE [--create]\n"
		"  Prints the directory where IFACE's maps are pinned in this network\n"
		"  namespace, as 'xdp-loader load -p' wants it; --create makes it\n"
		"  (root's, 0700) when it is missing.";
	static const struct option longopts[] = {
		{ "create", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct steer_ctx ctx;
	char dir[PATH_MAX];
	int create = 0, ret;

	ret = cmd_getopt(argc, argv, "", longopts, usage, flag_handle, &create);
	if (ret >= 0)
		return ret;
	if (cmd_args(argc, argv, 1, 1, usage) ||
	    cmd_ifname(argv[optind], usage))
		return EXIT_USAGE;
	cli_ctx_init(&ctx);
	if (steer_pin_dir(&ctx, argv[optind], create, dir, sizeof(dir)))
		return cli_fail(&ctx);
	printf("%s\n", dir);
	return 0;
}
