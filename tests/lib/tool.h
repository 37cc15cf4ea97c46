/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tool.h - what the test tools that run until told to stop (traffic_gen,
 * observer, udp_sink) share: the stop signals, the file that tells a
 * script "ready", and libbpf's messages by -v level.
 */
#ifndef XDP_STEER_TOOL_H
#define XDP_STEER_TOOL_H

#include <signal.h>

/* Set once SIGINT or SIGTERM arrived (after tool_stop_on_signals()). */
extern volatile sig_atomic_t tool_stop;

/* SIGINT and SIGTERM set tool_stop. Scripts start tools in the
 * background, where SIGINT is ignored on entry: installing a handler is
 * what makes Ctrl-C and kill -INT reach them. */
void tool_stop_on_signals(void);

/* Creates 'path' (if not NULL), empty: the caller is ready. Returns 0 or
 * a negative errno. */
int tool_ready(const char *path);

/* libbpf's warnings always go to stderr, its info lines from -v, its
 * debug lines from -vv. */
void tool_libbpf_verbosity(int verbose);

#endif /* XDP_STEER_TOOL_H */
