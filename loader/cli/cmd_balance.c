// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* balance: the adaptive balancer, a round every balance.interval of the
 * policy in force, a line (or JSON object) per round, until SIGTERM. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/log.h"
#include "cli/print_balance.h"
#include "util/mono.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct balance_cli {
	struct steer_balance_opts o;
	int json;
	const char *ifname;
	int last_state;		/* of the line said last */
	double last_said;	/* when (monotonic seconds: a wall clock
				 * set back would silence it) */
};

/* A round that repeats the state of the line said last without moving
 * (no traffic, balanced, a bucket too big to help, drains going on) is
 * said again only after this long: one line per round filled the journal
 * of a balancer left running (86400 lines a day at 1 s) with nothing
 * new. Status has the last round at any time; --json says every round. */
#define QUIET_S		600

static bool repeats(const struct steer_balance_round *r)
{
	return r->state == STEER_BAL_IDLE || r->state == STEER_BAL_BALANCED ||
	       r->state == STEER_BAL_BEST || r->state == STEER_BAL_WAITING ||
	       r->state == STEER_BAL_HELD;
}

static int balance_handle(int opt, const char *arg, void *ctx)
{
	struct balance_cli *c = ctx;

	(void)arg;
	switch (opt) {
	case '1':
		c->o.once = true;
		return 0;
	case 'n':
		c->o.dry_run = true;
		return 0;
	case 'j':
		c->json = 1;
		return 0;
	}
	return -1;
}

static void on_round(void *arg, const struct steer_balance_round *r)
{
	struct balance_cli *c = arg;
	double now = mono_s();

	/* A policy without balance: is said once, not every second. */
	if (r->state == STEER_BAL_OFF && c->last_state == STEER_BAL_OFF &&
	    !c->o.once)
		return;
	if (!c->json && !c->o.once && !r->applied && !r->news && repeats(r) &&
	    r->state == c->last_state && now - c->last_said < QUIET_S)
		return;
	c->last_state = r->state;
	c->last_said = now;
	if (c->json)
		print_balance_json(c->ifname, r);
	else
		print_balance_text(c->ifname, r);
}

int cmd_balance(int argc, char **argv)
{
	const char *usage = "xdp-steer balance IFACE [--once] [--dry-run] [--json]\n"
		"  The adaptive balancer: every balance.interval of the policy in force,\n"
		"  moves table buckets (through drain) from a worker whose load exceeds\n"
		"  its share by weight to the least loaded, and prints one line per round\n"
		"  (a round that repeats the state before without moving, once in 10\n"
		"  minutes), until SIGTERM or Ctrl-C. --once: one round; --dry-run: say\n"
		"  the moves, make none; --json: every round as one JSON object.\n"
		"  Short options: -n (--dry-run), -j.";
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, '1' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct balance_cli c = { .last_state = -1 };
	struct sigaction sa;
	struct steer_ctx ctx;
	int ret;

	ret = cmd_getopt(argc, argv, "nj", longopts, usage, balance_handle, &c);
	if (ret >= 0)
		return ret;
	if (cmd_args(argc, argv, 1, 1, usage) ||
	    cmd_ifname(argv[optind], usage))
		return EXIT_USAGE;
	c.ifname = argv[optind];
	/* No SA_RESTART: a signal ends the sleep between rounds at once. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cli_ctx_init(&ctx);
	ret = steer_balance(&ctx, c.ifname, &c.o, on_round, &c, &stop);
	if (ret == -ENODEV || ret == -ENOENT) {
		cli_fail(&ctx);
		return EXIT_NOTHING;
	}
	if (ret)
		return cli_fail(&ctx);
	return 0;
}
