// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The logging layer, and libbpf's and libxdp's messages routed into it
 * one level down: see log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "cli/log.h"

enum log_level log_threshold = LOG_INFO;

static void log_vmsg(enum log_level level, const char *prefix,
		     const char *fmt, va_list ap)
{
	/* Only progress goes with the output; diagnostics, libbpf's and
	 * libxdp's too (-v), never mix with it (stats --json). */
	FILE *out = level == LOG_INFO ? stdout : stderr;

	if (level > log_threshold)
		return;
	/* One prefix for every message of ours, whatever the command. */
	if (level == LOG_ERROR)
		fputs("xdp-steer: ", out);
	else if (level == LOG_WARN)
		fputs("xdp-steer: warning: ", out);
	else if (level == LOG_NOTE)
		fputs("xdp-steer: note: ", out);
	if (prefix)
		fputs(prefix, out);
	vfprintf(out, fmt, ap);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, NULL, fmt, ap);
	va_end(ap);
}

/* Their lines carry their own "libbpf: "/"libxdp: " prefix. The libraries'
 * warnings are mostly about paths they then fall back from:
 * useful when debugging, noise otherwise. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	enum log_level l = level == LIBBPF_WARN ? LOG_DEBUG : LOG_TRACE;

	log_vmsg(l, NULL, fmt, ap);
	return 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	enum log_level l = level == LIBXDP_WARN ? LOG_DEBUG : LOG_TRACE;

	log_vmsg(l, NULL, fmt, ap);
	return 0;
}

void log_setup_libs(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}
