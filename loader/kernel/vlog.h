/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * vlog.h - the verifier's reason for refusing a program, read from the log
 * libbpf prints when a load fails, so that attach can say it in one line
 * (the whole log stays for -v).
 */
#ifndef XDP_STEER_VLOG_H
#define XDP_STEER_VLOG_H

#include <stddef.h>

/* When 'text' (one message of libbpf's) holds a verifier log ("-- BEGIN
 * PROG LOAD LOG --" ... "-- END PROG LOAD LOG --"), its reason: the last
 * line before the statistics the verifier ends with ("processed N insns",
 * "verification time", "stack depth"), copied into 'buf'. 1 when found,
 * 0 (buf untouched) when not: no log, an empty one, or one libbpf cut
 * before its end. */
int vlog_reason(const char *text, char *buf, size_t len);

#endif /* XDP_STEER_VLOG_H */
