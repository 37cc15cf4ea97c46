// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdp-steer: software receive steering in XDP. The table of subcommands,
 * and the option handling and error printing they share.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/log.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "check", cmd_check, "check POLICY: validate a policy, print it normalized" },
	{ "attach", cmd_attach, "attach IFACE --policy POLICY [--mode native|skb]: load, pin, apply" },
	{ "apply", cmd_apply, "apply IFACE POLICY: swap in a policy atomically" },
	{ "detach", cmd_detach, "detach IFACE | --stale: unload and remove the pins" },
	{ "status", cmd_status, "status [IFACE] [--json]: what runs where, with health warnings" },
	{ "stats", cmd_stats, "stats IFACE [--interval S] [--count N | --totals | --json | --prometheus]: counters and rates" },
	{ "pin-dir", cmd_pin_dir, "pin-dir IFACE [--create]: where IFACE's maps are pinned here (for xdp-loader -p)" },
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
			return cmd_usage_error(usage_text);
		default:
			if (handle(opt, optarg, ctx))
				return cmd_usage_error(usage_text);
		}
	}
	return -1;
}

int cmd_usage_error(const char *usage_text)
{
	fprintf(stderr, "usage: %s\n", usage_text);
	return EXIT_USAGE;
}

static void notify(void *arg, enum steer_level level, const char *msg)
{
	(void)arg;
	/* Progress goes with the output, on stdout; a wait is a diagnostic,
	 * on stderr, so `stats --json` stays one JSON document. */
	if (level == STEER_WAIT) {
		if (log_threshold >= LOG_INFO)
			fprintf(stderr, "%s\n", msg);
		return;
	}
	log_msg(level == STEER_WARN ? LOG_WARN : LOG_INFO, "%s\n", msg);
}

void cli_ctx_init(struct steer_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->notify = notify;
}

int cli_fail(const struct steer_ctx *ctx)
{
	pr_err("%s\n", ctx->err[0] ? ctx->err : "failed, for no reason given");
	return EXIT_FAIL;
}

int cli_load_policy(const char *path, struct steer_policy *p)
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
