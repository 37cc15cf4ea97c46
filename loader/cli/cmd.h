/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cmd.h - the subcommands. Each takes argc/argv after its name and returns
 * the process exit status: 0 success, 1 failure or a bad policy, 2 a usage
 * error, 3 (balance only) nothing to balance, 4 (apply --dry-run only)
 * something would change. They parse options, call one library entry
 * point (lib/steer.h) and print its result with a printer (print_*.h);
 * nothing else.
 */
#ifndef XDP_STEER_CMD_H
#define XDP_STEER_CMD_H

#include "lib/steer.h"

#define EXIT_FAIL	1
#define EXIT_USAGE	2
/* balance: nothing to balance, xdp-steer not attached (or, while it ran,
 * detached, its interface deleted or its program taken off); its unit
 * does not restart it for that (RestartPreventExitStatus). */
#define EXIT_NOTHING	3
/* apply --dry-run: the policy would change something (0: nothing). */
#define EXIT_CHANGES	4

int cmd_check(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_repair(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_pin_dir(int argc, char **argv);
int cmd_which(int argc, char **argv);
int cmd_balance(int argc, char **argv);

/* Parses the options common to all commands (-v, -q, -h) and the
 * command's own; prints 'usage' on -h or a bad option. Returns -1 to go
 * on, or the exit status to return now. */
struct option;
int cmd_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *usage,
	       int (*handle)(int opt, const char *arg, void *ctx), void *ctx);

/* The usage line on stderr; returns EXIT_USAGE. */
int cmd_usage_error(const char *usage);

/* The arguments left after the options (argv[optind..argc-1]) number
 * from 'min' to 'max': 0. Else says which is missing or the first one
 * too many, with the usage line, and returns EXIT_USAGE. */
int cmd_args(int argc, char **argv, int min, int max, const char *usage);

/* 'ifname', an interface argument, can name an interface (empty, too long,
 * "..", a '/': steer_ifname_check()): 0, else says why, with the usage
 * line, and returns EXIT_USAGE, as for any argument that cannot be read. */
int cmd_ifname(const char *ifname, const char *usage);

/* A library context whose notifications are printed (log.h). */
void cli_ctx_init(struct steer_ctx *ctx);

/* Prints the library's reason for a failure; returns EXIT_FAIL. */
int cli_fail(const struct steer_ctx *ctx);

/* --top N of stats and status: the rows a table shows (0: all) into
 * *top. 0, or -1 after saying what it takes. */
int cli_parse_top(const char *arg, size_t *top);

/* Parses and validates a policy file against this machine's online CPUs,
 * or 'cpus' (named 'cpus_name' in messages) when not NULL, printing every
 * diagnostic, or with 'errors_only' its mistakes alone. 0 or EXIT_FAIL
 * (then *p is freed). */
int cli_load_policy(const char *path, const struct cpu_set *cpus,
		    const char *cpus_name, bool errors_only,
		    struct steer_policy *p);

#endif /* XDP_STEER_CMD_H */
