// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "tool.h"

volatile sig_atomic_t tool_stop;

static void on_signal(int sig)
{
	(void)sig;
	tool_stop = 1;
}

void tool_stop_on_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

int tool_ready(const char *path)
{
	int fd;

	if (!path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int verbosity;

static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	if (level == LIBBPF_INFO && verbosity < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void tool_libbpf_verbosity(int verbose)
{
	verbosity = verbose;
	libbpf_set_print(print_libbpf);
}
