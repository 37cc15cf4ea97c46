/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* print_status.h - `xdp-steer status` as text or JSON. */
#ifndef XDP_STEER_PRINT_STATUS_H
#define XDP_STEER_PRINT_STATUS_H

#include <stddef.h>

#include "lib/steer.h"

/* The workers line shows up to 'top' workers, those with the most
 * buckets, and sums the others (0: every worker; cli/fold.h). */
void print_status_text(const struct steer_status *st, size_t top);
/* One JSON object, without a newline: the caller ends the document (or
 * puts it in a list). */
void print_status_json(const struct steer_status *st);
/* A scheduling class as worker_sched names it ("other", "fifo", "rr"),
 * or "batch", "idle", "unknown". */
const char *sched_name(int policy);
/* Pin directories of namespaces that are gone (status without IFACE). */
void print_status_gone(const struct steer_list *l);

#endif /* XDP_STEER_PRINT_STATUS_H */
