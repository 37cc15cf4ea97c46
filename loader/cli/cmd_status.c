// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status: what is attached where, the policy in force, health warnings;
 * pin-dir: where an interface's maps are pinned in this namespace. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "cli/fold.h"
#include "cli/json.h"
#include "cli/log.h"
#include "cli/print_status.h"

/* What the command was asked: --json, the rows of its text (--top). */
struct status_opts {
	int json;
	size_t top;
};

/* Prints IFACE's status; in a JSON list of several, 'sep' goes before
 * it. Returns 0, or EXIT_FAIL after saying why (then nothing is printed,
 * and the list stays valid JSON). */
static int status_one(const char *ifname, const struct status_opts *o,
		      const char *sep)
{
	struct steer_status *st = calloc(1, sizeof(*st));
	struct steer_ctx ctx;
	int ret = 0;

	if (!st) {
		pr_err("out of memory\n");
		return EXIT_FAIL;
	}
	cli_ctx_init(&ctx);
	if (steer_status(&ctx, ifname, st)) {
		ret = cli_fail(&ctx);
	} else if (o->json) {
		fputs(sep, stdout);
		print_status_json(st);
	} else {
		print_status_text(st, o->top);
	}
	health_free(&st->health);
	free(st);
	return ret;
}

static int status_handle(int opt, const char *arg, void *ctx)
{
	struct status_opts *o = ctx;

	switch (opt) {
	case 'j':
		o->json = 1;
		return 0;
	case 'T':
		return cli_parse_top(arg, &o->top);
	case 'A':
		o->top = 0;
		return 0;
	}
	return -1;
}

static int create_handle(int opt, const char *arg, void *ctx)
{
	(void)arg;
	if (opt != 'c')
		return -1;
	*(int *)ctx = 1;
	return 0;
}

/* status: the options; with IFACE, its status alone; without, every
 * interface with pins in this namespace (steer_list()), then the pins
 * of namespaces that are gone and of the earlier layout. With --json
 * all of it is one document on one line, valid even when an interface
 * fails: that one is left out, said on stderr, and the exit status is
 * EXIT_FAIL. */
int cmd_status(int argc, char **argv)
{
	const char *usage = "xdp-steer status [IFACE] [--json] [--top N | --all]\n"
		"  What is attached, in which mode, the policy in force and health\n"
		"  warnings; every interface with pins in this network namespace when\n"
		"  IFACE is not given, and pins of namespaces that are gone. --json:\n"
		"  one JSON document, IFACE's, or {\"interfaces\": [...],\n"
		"  \"gone_netns_pins\": [...]} without IFACE. --top N: past N workers\n"
		"  (default 16), the N with the most buckets and the others summed;\n"
		"  --all or --top 0: every worker. JSON always has every worker.\n"
		"  Short option: -j.";
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 'T' },
		{ "all", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	struct status_opts o = { .top = FOLD_TOP_DEFAULT };
	struct steer_list l;
	struct steer_ctx ctx;
	int ret, i, printed;

	ret = cmd_getopt(argc, argv, "j", longopts, usage, status_handle, &o);
	if (ret >= 0)
		return ret;
	if (cmd_args(argc, argv, 0, 1, usage))
		return EXIT_USAGE;
	if (argc - optind == 1) {
		if (cmd_ifname(argv[optind], usage))
			return EXIT_USAGE;
		ret = status_one(argv[optind], &o, "");
		if (o.json && !ret)
			printf("\n");
		return ret;
	}
	cli_ctx_init(&ctx);
	if (steer_list(&ctx, &l))
		return cli_fail(&ctx);
	ret = 0;
	/* Every interface in one document, as one line. */
	if (o.json)
		printf("{\"interfaces\": [");
	for (i = 0, printed = 0; i < l.n; i++) {
		if (status_one(l.ifnames[i], &o, printed ? ", " : ""))
			ret = EXIT_FAIL;
		else
			printed++;
	}
	if (o.json) {
		printf("], \"gone_netns_pins\": [");
		for (i = 0; i < l.ngone; i++) {
			printf("%s", i ? ", " : "");
			json_str(stdout, l.gone[i]);
		}
		printf("], \"earlier_layout_pins\": [");
		for (i = 0; i < l.nearlier; i++) {
			printf("%s", i ? ", " : "");
			json_str(stdout, l.earlier[i]);
		}
		printf("]}\n");
	} else {
		print_status_gone(&l);
	}
	if (!l.n && !l.ngone && !l.nearlier && !o.json)
		printf("xdp-steer is not attached to any interface in this network namespace\n");
	steer_list_free(&l);
	return ret;
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

	ret = cmd_getopt(argc, argv, "", longopts, usage, create_handle, &create);
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
