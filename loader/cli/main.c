// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdp-steer: software receive steering in XDP. The table of subcommands,
 * and the option handling and error printing they share.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <bpf/libbpf.h>

#include "cli/cmd.h"
#include "cli/log.h"
#include "util/array.h"

/* The Makefile passes it (git describe, or its fallback constant). */
#ifndef XDP_STEER_VERSION
#error "XDP_STEER_VERSION is not defined: build with the Makefile"
#endif

static int help(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "check", cmd_check, "check --policy POLICY [--cpus LIST]: validate a policy, print it normalized" },
	{ "attach", cmd_attach, "attach IFACE --policy POLICY [--mode native|skb]: load, pin, apply" },
	{ "apply", cmd_apply, "apply IFACE --policy POLICY [--dry-run [--json]]: swap in a policy atomically, or say what that would change" },
	{ "repair", cmd_repair, "repair [IFACE]: apply the policy in force again, kthreads back on their CPUs" },
	{ "detach", cmd_detach, "detach IFACE | --stale: unload and remove the pins" },
	{ "status", cmd_status, "status [IFACE] [--json]: what runs where, with health warnings" },
	{ "stats", cmd_stats, "stats IFACE [[--interval S] [--count N] [--json] | --totals | --prometheus]: counters and rates" },
	{ "which", cmd_which, "which IFACE PROTO SRC[:PORT] DST[:PORT] [--json]: the CPU a flow goes to now, and why" },
	{ "balance", cmd_balance, "balance IFACE [--once] [--dry-run] [--json]: move buckets so load follows the weights" },
	{ "pin-dir", cmd_pin_dir, "pin-dir IFACE [--create]: where IFACE's maps are pinned here (for xdp-loader -p)" },
	{ "help", help, "help [COMMAND]: this overview, or a command's usage and options" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: xdp-steer [-v|-q] COMMAND [ARGS]\n"
		"       xdp-steer help [COMMAND]\n"
		"       xdp-steer --version\n\ncommands:\n");
	for (i = 0; i < ARRAY_LEN(commands); i++)
		fprintf(out, "  %s\n", commands[i].summary);
	fprintf(out, "\noptions (before the command):\n"
		"  -v, --verbose  libbpf/libxdp warnings (-vv: their debug output)\n"
		"  -q, --quiet    only warnings and errors ('check': only its errors)\n"
		"  -h, --help     this help ('xdp-steer help COMMAND' for a command's options)\n"
		"  -V, --version  the versions of xdp-steer, libbpf and libxdp, and what the kernel offers\n");
}

#ifndef LIBBPF_BUILD_VERSION
#define LIBBPF_BUILD_VERSION ""
#endif
#ifndef LIBXDP_BUILD_VERSION
#define LIBXDP_BUILD_VERSION ""
#endif

/* "yes", "no", or why it is not known. */
static const char *feature_word(int r)
{
	if (r > 0)
		return "yes";
	if (!r)
		return "no";
	return r == -EPERM ? "unknown (needs root)" : "unknown";
}

/* The version, the libraries it runs with and what the kernel offers:
 * the kernel's answers decide how attach goes (dispatcher or alone). */
static int version(void)
{
	struct steer_features f;
	struct steer_ctx ctx;
	struct utsname u;
	int i;

	printf("xdp-steer %s\n", XDP_STEER_VERSION);
	printf("using libbpf %s%s%s%s\n", libbpf_version_string(),
	       *LIBBPF_BUILD_VERSION ? " (built against " : "",
	       LIBBPF_BUILD_VERSION, *LIBBPF_BUILD_VERSION ? ")" : "");
	cli_ctx_init(&ctx);
	steer_features(&ctx, &f);
	/* libxdp tells no version: the file it runs from (its name has the
	 * ABI version) and the release built against. */
	printf("using libxdp %s", *f.libxdp_file ? f.libxdp_file : "");
	if (*LIBXDP_BUILD_VERSION)
		printf("%s(built against %s)", *f.libxdp_file ? " " : "",
		       LIBXDP_BUILD_VERSION);
	printf("\n");
	printf("kernel %s\n", uname(&u) ? "unknown" : u.release);
	printf("  libxdp's dispatcher (xdp-steer beside other XDP programs): %s%s%s\n",
	       feature_word(f.dispatcher),
	       f.dispatcher_why[0] && f.dispatcher != -EPERM ? ": " : "",
	       f.dispatcher != -EPERM ? f.dispatcher_why : "");
	for (i = 0; i < STEER_KF_COUNT; i++)
		printf("  %s (Linux %s%s): %s%s\n", steer_kernel_features[i].what,
		       steer_kernel_features[i].since,
		       steer_kernel_features[i].needed ? "" : ", optional",
		       feature_word(f.kernel[i]),
		       i == STEER_KF_kthread_names && f.kthread_by_release ?
		       " (by the kernel's release: the probe's kthread name was too short to be cut)" : "");
	if (f.lacking)
		printf("  attach: refused: this kernel lacks %d of the features above; xdp-steer needs Linux %s or later\n",
		       f.lacking, f.kernel_min);
	return 0;
}

static int find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(commands); i++)
		if (!strcmp(name, commands[i].name))
			return i;
	pr_err("unknown command '%s'\n", name);
	usage(stderr);
	return -1;
}

/* help [COMMAND]: the overview, or the command's own --help, so there is
 * one usage text per command. */
static int help(int argc, char **argv)
{
	char help_opt[] = "--help", *cmd_argv[3];
	int i;

	if (argc == 1) {
		usage(stdout);
		return 0;
	}
	if (argc > 2 || argv[1][0] == '-') {
		/* "help --help" asks for this line; anything else is a misuse. */
		bool asked = argc == 2 && (!strcmp(argv[1], "--help") ||
					   !strcmp(argv[1], "-h"));

		fprintf(asked ? stdout : stderr,
			"usage: xdp-steer help [COMMAND]\n");
		return asked ? 0 : EXIT_USAGE;
	}
	i = find_command(argv[1]);
	if (i < 0)
		return EXIT_USAGE;
	cmd_argv[0] = argv[1];
	cmd_argv[1] = help_opt;
	cmd_argv[2] = NULL;
	return commands[i].fn(2, cmd_argv);
}

/* The options every command takes, after its own. */
static const struct option common_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
};

/* Says what getopt refused, with our one prefix: getopt's own messages
 * (opterr, cleared in main) would start with argv[0], the command's name
 * or the binary's path. 'opt' is getopt's return, ':' for a missing value
 * (the option strings start with ':'), '?' otherwise; 'before' is optind
 * before the call. A long option is read whole, so optind moved past it;
 * a short one may leave optind on its group ("-jx"), and then optopt
 * alone says which it is. */
static void opt_error(int opt, char **argv, int before)
{
	const char *word = optind > before && optind >= 1 ? argv[optind - 1] : "";
	int len = (int)strcspn(word, "=");

	if (strncmp(word, "--", 2) || !word[2])
		pr_err(opt == ':' ? "option '-%c' needs a value\n" :
		       "unknown option '-%c'\n", optopt);
	else if (opt == ':')
		pr_err("option '%.*s' needs a value\n", len, word);
	else if (optopt)
		pr_err("option '%.*s' takes no value\n", len, word);
	else
		pr_err("unknown option '%.*s'\n", len, word);
}

int cmd_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *usage_text,
	       int (*handle)(int opt, const char *arg, void *ctx), void *ctx)
{
	struct option opts_all[24];
	size_t n = 0, i;
	char opts[64];
	int opt, before;

	while (longopts[n].name && n < ARRAY_LEN(opts_all) - ARRAY_LEN(common_longopts) - 1) {
		opts_all[n] = longopts[n];
		n++;
	}
	for (i = 0; i < ARRAY_LEN(common_longopts); i++)
		opts_all[n++] = common_longopts[i];
	memset(&opts_all[n], 0, sizeof(opts_all[n]));
	snprintf(opts, sizeof(opts), ":hvq%s", shortopts);
	/* 0, not 1: glibc then forgets the "+" of the global parse. */
	optind = 0;
	for (;;) {
		before = optind;
		opt = getopt_long(argc, argv, opts, opts_all, NULL);
		if (opt == -1)
			break;
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
		case ':':
			opt_error(opt, argv, before);
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

/* The name the usage line gives the (k+1)th positional argument: the
 * (k+1)th word past the command, outside brackets and not an option's
 * value, that starts with a capital ("IFACE", "SRC[:PORT]"). Into buf;
 * "an argument" if there is none. */
static const char *arg_name(const char *usage_text, int k, char *buf,
			    size_t size)
{
	size_t n = strcspn(usage_text, "\n"), i = 0, len;
	int word = 0, depth = 0, after_opt = 0;
	const char *w;

	while (i < n) {
		i += strspn(usage_text + i, " ");
		w = usage_text + i;
		len = strcspn(w, " \n");
		if (!len)
			break;
		/* words 0 and 1: "xdp-steer" and the command */
		if (word++ >= 2 && !depth && !after_opt && *w >= 'A' &&
		    *w <= 'Z' && k-- == 0) {
			snprintf(buf, size, "%.*s", (int)len, w);
			return buf;
		}
		after_opt = !depth && len > 2 && w[0] == '-' && w[1] == '-';
		for (size_t j = 0; j < len; j++)
			depth += (w[j] == '[') - (w[j] == ']');
		i += len;
	}
	snprintf(buf, size, "an argument");
	return buf;
}

int cmd_args(int argc, char **argv, int min, int max, const char *usage_text)
{
	int n = argc - optind;
	char name[64];

	if (n >= min && n <= max)
		return 0;
	if (n < min)
		pr_err("%s is missing\n", arg_name(usage_text, n, name, sizeof(name)));
	else
		pr_err("unexpected argument '%s'\n", argv[optind + max]);
	return cmd_usage_error(usage_text);
}

int cmd_ifname(const char *ifname, const char *usage_text)
{
	struct steer_ctx ctx = { 0 };

	if (!steer_ifname_check(&ctx, ifname))
		return 0;
	pr_err("%s\n", ctx.err);
	return cmd_usage_error(usage_text);
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

int cli_parse_top(const char *arg, size_t *top)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	/* strtoul() alone takes white space and a sign before the digits. */
	if (arg[0] < '0' || arg[0] > '9' || *end || errno == ERANGE ||
	    v > 1000000) {
		pr_err("--top takes a number of CPUs from 0 (every CPU) to 1000000 in decimal (like 16), not '%s'\n",
		       arg);
		return -1;
	}
	*top = v;
	return 0;
}

int cli_load_policy(const char *path, const struct cpu_set *cpus,
		    const char *cpus_name, bool errors_only,
		    struct steer_policy *p)
{
	char buf[1024];
	struct diags d;
	int err, i;

	err = policy_parse_file_on(path, cpus, cpus_name, p, &d);
	if (!errors_only) {
		diags_print(stderr, &d);
	} else {
		for (i = 0; i < d.n; i++)
			if (d.v[i].level == DIAG_ERROR)
				fprintf(stderr, "%s\n",
					diag_format(&d, i, buf, sizeof(buf)));
		if (d.ndropped && d.nerrors)
			fprintf(stderr, "%s: %d error%s in all\n", d.name,
				d.nerrors, d.nerrors == 1 ? "" : "s");
	}
	diags_free(&d);
	if (err) {
		policy_free(p);
		return EXIT_FAIL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, i, before;

	/* Every message about an option is ours (opt_error()). */
	opterr = 0;
	/* Global options before the command; "+" stops at the command, whose
	 * own options cmd_getopt() parses. */
	for (;;) {
		before = optind;
		opt = getopt_long(argc, argv, "+:vqhV", longopts, NULL);
		if (opt == -1)
			break;
		if (opt == 'v' && log_threshold < LOG_TRACE)
			log_threshold++;
		else if (opt == 'q')
			log_threshold = LOG_WARN;
		else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (opt == 'V') {
			log_setup_libs();
			return version();
		} else if (opt != 'v') {
			opt_error(opt, argv, before);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		pr_err("a command is missing\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	i = find_command(argv[optind]);
	if (i < 0)
		return EXIT_USAGE;
	log_setup_libs();
	return commands[i].fn(argc - optind, argv + optind);
}
