/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * log.h - one logging layer for xdp-steer's own messages and for what
 * libbpf and libxdp print (demoted one level: their warnings show with -v,
 * their debug output with -vv).
 */
#ifndef XDP_STEER_LOG_H
#define XDP_STEER_LOG_H

enum log_level {
	LOG_ERROR,	/* always shown, "xdp-steer: ..." on stderr */
	LOG_WARN,	/* always shown, "xdp-steer: warning: ..." on stderr */
	LOG_NOTE,	/* shown unless -q, "xdp-steer: note: ..." on stderr:
			 * about how the command was given (a deprecated
			 * spelling), never its output */
	LOG_INFO,	/* shown unless -q, on stdout */
	LOG_DEBUG,	/* -v, on stderr */
	LOG_TRACE,	/* -vv, on stderr */
};

/* Messages up to this level are printed. */
extern enum log_level log_threshold;

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Routes libbpf's and libxdp's printing through log_msg. */
void log_setup_libs(void);

#define pr_err(...)	log_msg(LOG_ERROR, __VA_ARGS__)
#define pr_warn(...)	log_msg(LOG_WARN, __VA_ARGS__)
#define pr_note(...)	log_msg(LOG_NOTE, __VA_ARGS__)
#define pr_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define pr_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

#endif /* XDP_STEER_LOG_H */
