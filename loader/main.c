// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdp-steer: software receive steering in XDP. The table of subcommands,
 * and the option handling they share.
 */
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "log.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "check", cmd_check, "check POLICY: validate a policy, print it normalized" },
	{ "attach", cmd_attach, "attach IFACE --policy POLICY [--mode native|skb]: load, pin, apply" },
	{ "apply", cmd_apply, "apply IFACE POLICY: swap in a policy atomically" },
	{ "detach", cmd_detach, "detach IFACE: unload and remove the pins" },
	{ "status", cmd_status, "status [IFACE] [--json]: what runs where, with health warnings" },
	{ "stats", cmd_stats, "stats IFACE [--interval S] [--json]: counters and rates" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: xdp-steer [-v|-q] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %s\n", commands[i].summary);
	fprintf(out, "\n'xdp-steer COMMAND --help' for a command's options; -v shows libbpf/libxdp detail (-vv more).\n");
}

int cmd_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *usage_text,
	       int (*handle)(int opt, const char *arg, void *ctx), void *ctx)
{
	char opts[64];
	int opt;

	snprintf(opts, sizeof(opts), "hvq%s", shortopts);
	/* 0, not 1: glibc then forgets the "+" of the global parse. */
	optind = 0;
	while ((opt = getopt_long(argc, argv, opts, longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			printf("usage: %s\n", usage_text);
			return 0;
		case 'v':
			if (log_threshold < LOG_TRACE)
				log_threshold++;
			break;
		case 'q':
			log_threshold = LOG_WARN;
			break;
		case '?':
			fprintf(stderr, "usage: %s\n", usage_text);
			return EXIT_USAGE;
		default:
			if (handle(opt, optarg, ctx)) {
				fprintf(stderr, "usage: %s\n", usage_text);
				return EXIT_USAGE;
			}
		}
	}
	return -1;
}

int cmd_ifindex(const char *ifname)
{
	int ifindex = if_nametoindex(ifname);

	if (!ifindex)
		pr_err("no interface '%s' in this network namespace; 'ip link' lists them\n",
		       ifname);
	return ifindex;
}

int main(int argc, char **argv)
{
	size_t i;
	int opt;

	/* Global -v/-q before the command. */
	while ((opt = getopt(argc, argv, "+vqh")) != -1) {
		if (opt == 'v' && log_threshold < LOG_TRACE)
			log_threshold++;
		else if (opt == 'q')
			log_threshold = LOG_WARN;
		else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help") || !strcmp(argv[optind], "--help")) {
		usage(stdout);
		return 0;
	}
	log_setup_libs();
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[optind], commands[i].name))
			return commands[i].fn(argc - optind, argv + optind);
	fprintf(stderr, "xdp-steer: unknown command '%s'\n", argv[optind]);
	usage(stderr);
	return EXIT_USAGE;
}
