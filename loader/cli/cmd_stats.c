// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stats: counters of the receiving CPUs and of the workers, as rates every
 * --interval seconds (like xdp-bench), or once: as tables of the counts
 * since the attach, as JSON, or in the Prometheus text format; or as JSON
 * every --interval seconds, one document a line. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cmd.h"
#include "cli/fold.h"
#include "cli/log.h"
#include "cli/print_prom.h"
#include "cli/print_stats.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* What one report is: rates every interval, or the counts once. */
enum stats_form { FORM_RATES, FORM_TOTALS, FORM_JSON, FORM_PROMETHEUS };

struct stats_opts {
	double interval;
	long count;
	enum stats_form form;
	const char *form_opt;	/* the option that chose a form, or NULL */
	const char *rate_opt;	/* --interval or --count, if given */
	size_t top;		/* rows per table (0: all), text only */
};

/* One form per run: a second is refused by name. */
static int set_form(struct stats_opts *o, enum stats_form f, const char *opt)
{
	if (o->form_opt && o->form != f) {
		pr_err("%s and %s print different forms; give one\n",
		       o->form_opt, opt);
		return -1;
	}
	o->form = f;
	o->form_opt = opt;
	return 0;
}

/* 's' is a plain decimal number: digits, with a fraction after a '.' if
 * 'fraction'. strtod() and strtol() alone also take white space and a
 * sign before it, and strtod() hex ("0x10" is 16), exponents, "inf" and
 * "nan". */
static bool plain_decimal(const char *s, bool fraction)
{
	size_t whole = strspn(s, "0123456789"), part = 0;

	if (fraction && s[whole] == '.')
		part = 1 + strspn(s + whole + 1, "0123456789");
	return (whole || part > 1) && !s[whole + part];
}

static int stats_handle(int opt, const char *arg, void *ctx)
{
	struct stats_opts *o = ctx;

	switch (opt) {
	case 'i':
		o->interval = plain_decimal(arg, true) ? strtod(arg, NULL) : NAN;
		/* NaN fails it: every comparison with NaN is false. */
		if (!(o->interval >= 0.1 && o->interval <= 3600)) {
			pr_err("--interval takes seconds from 0.1 to 3600 in decimal (like 2 or 0.5), not '%s'\n",
			       arg);
			return -1;
		}
		o->rate_opt = "--interval";
		return 0;
	case 'c':
		errno = 0;
		o->count = plain_decimal(arg, false) ? strtol(arg, NULL, 10) : 0;
		if (o->count < 1 || errno == ERANGE) {
			pr_err("--count takes a whole number from 1 in decimal (like 10), not '%s'\n",
			       arg);
			return -1;
		}
		o->rate_opt = "--count";
		return 0;
	case 'T':
		return cli_parse_top(arg, &o->top);
	case 'A':
		o->top = 0;
		return 0;
	case 'j':
		return set_form(o, FORM_JSON, "--json");
	case 'P':
		return set_form(o, FORM_PROMETHEUS, "--prometheus");
	case 't':
		return set_form(o, FORM_TOTALS, "--totals");
	}
	return -1;
}

/* Sleeps 'seconds' unless a signal stops us first. */
static void pause_for(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - floor(seconds)) * 1e9),
	};

	while (!stop && nanosleep(&ts, &ts))
		;
}

/* stats: the options (--interval and --count only with the rates or
 * --json), the counters opened and read once; then either a form
 * printed from that sample (once; with --json again every interval,
 * one document a line), or the rates, each the difference of two
 * samples whose buffers swap, until a signal or --count ends them. */
int cmd_stats(int argc, char **argv)
{
	const char *usage = "xdp-steer stats IFACE [[--interval S] [--count N] [--json] | --totals | --prometheus] [--top N | --all]\n"
		"  Per-CPU rates every S seconds (default 1) until Ctrl-C or N reports;\n"
		"  or the counters since the attach once: --totals as tables, --json as one\n"
		"  JSON document, --prometheus in the Prometheus text format. --json with\n"
		"  --interval or --count: a document of the counters every S seconds, the\n"
		"  first at once, one a line (JSON Lines).\n"
		"  --top N: the tables show the N busiest CPUs (default 16) and sum the\n"
		"  others in one row; --all or --top 0: every CPU. JSON and Prometheus\n"
		"  always have every CPU.\n"
		"  Short options: -i S, -c N, -t, -j.";
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		/* No letter: -p is --policy wherever it is taken. */
		{ "prometheus", no_argument, NULL, 'P' },
		{ "totals", no_argument, NULL, 't' },
		{ "top", required_argument, NULL, 'T' },
		{ "all", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	struct stats_opts o = { .interval = 1, .top = FOLD_TOP_DEFAULT };
	struct steer_sample a = {}, b = {}, tmp;
	struct steer_stats_src *src = NULL;
	struct steer_ctx ctx;
	const char *ifname;
	int ret;

	ret = cmd_getopt(argc, argv, "i:c:jt", longopts, usage, stats_handle, &o);
	if (ret >= 0)
		return ret;
	if (cmd_args(argc, argv, 1, 1, usage) ||
	    cmd_ifname(argv[optind], usage))
		return EXIT_USAGE;
	if (o.rate_opt && o.form != FORM_RATES && o.form != FORM_JSON) {
		pr_err("%s goes with the rates or --json, not with %s (which prints once)\n",
		       o.rate_opt, o.form_opt);
		return cmd_usage_error(usage);
	}
	ifname = argv[optind];
	cli_ctx_init(&ctx);
	if (steer_stats_open(&ctx, ifname, &src))
		return cli_fail(&ctx);
	ret = EXIT_FAIL;
	if (steer_sample_alloc(&a) || steer_sample_alloc(&b)) {
		pr_err("out of memory\n");
		goto out;
	}
	if (steer_stats_read(src, &a)) {
		pr_err("%s: reading the counters failed\n", ifname);
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	switch (o.form) {
	case FORM_JSON:
		/* One document, or with --interval or --count a stream of
		 * them, one a line (JSON Lines), the first at once. */
		for (;;) {
			print_stats_json(ifname, &a);
			fflush(stdout);
			if (!o.rate_opt || (o.count && !--o.count))
				break;
			pause_for(o.interval);
			if (stop)
				break;
			if (steer_stats_read(src, &a)) {
				pr_err("%s: reading the counters failed\n",
				       ifname);
				goto out;
			}
		}
		ret = 0;
		goto out;
	case FORM_PROMETHEUS:
		print_prom(stdout, ifname, &a);
		ret = 0;
		goto out;
	case FORM_TOTALS:
		print_stats_totals(ifname, &a, o.top);
		ret = 0;
		goto out;
	case FORM_RATES:
		break;
	}
	while (!stop) {
		pause_for(o.interval);
		if (stop || steer_stats_read(src, &b))
			break;
		print_stats_rates(ifname, &a, &b, o.top);
		tmp = a;
		a = b;
		b = tmp;
		if (o.count && !--o.count)
			break;
	}
	ret = 0;
out:
	steer_sample_free(&a);
	steer_sample_free(&b);
	steer_stats_close(src);
	return ret;
}
