// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* which: the CPU a flow is steered to now, and why. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cmd.h"
#include "cli/log.h"
#include "cli/print_which.h"

static int json_handle(int opt, const char *arg, void *ctx)
{
	(void)arg;
	if (opt != 'j')
		return -1;
	*(int *)ctx = 1;
	return 0;
}

int cmd_which(int argc, char **argv)
{
	const char *usage = "xdp-steer which IFACE PROTO SRC[:PORT] DST[:PORT] [--json]\n"
		"  The CPU the flow's frames go to now on IFACE, and why: the rule that\n"
		"  places it, or its bucket of the table and whether that bucket is still\n"
		"  draining from an old CPU. PROTO is tcp, udp, udplite, sctp, icmp,\n"
		"  icmpv6 or 0-255; an IPv6 end with a port is written [ADDR]:PORT.\n"
		"  Short option: -j.";
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct steer_flow f;
	struct steer_which w;
	struct steer_ctx ctx;
	char why[256];
	int json = 0, ret;

	ret = cmd_getopt(argc, argv, "j", longopts, usage, json_handle, &json);
	if (ret >= 0)
		return ret;
	if (cmd_args(argc, argv, 4, 4, usage) ||
	    cmd_ifname(argv[optind], usage))
		return EXIT_USAGE;
	if (policy_flow_parse(argv[optind + 1], argv[optind + 2],
			      argv[optind + 3], &f, &WHY(why))) {
		pr_err("%s\n", why);
		return cmd_usage_error(usage);
	}
	cli_ctx_init(&ctx);
	if (steer_which_flow(&ctx, argv[optind], &f, &w))
		return cli_fail(&ctx);
	if (json)
		print_which_json(argv[optind], &w);
	else
		print_which_text(argv[optind], &w);
	return 0;
}
