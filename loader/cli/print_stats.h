/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* print_stats.h - `xdp-steer stats`: rates between two samples as a table,
 * one sample's counts since the attach as a table (--totals), or one
 * sample as JSON. The Prometheus form is print_prom.h's. */
#ifndef XDP_STEER_PRINT_STATS_H
#define XDP_STEER_PRINT_STATS_H

#include <stddef.h>

#include "lib/steer.h"

/* One line: a JSON document with the time it was printed (Unix seconds). */
void print_stats_json(const char *ifname, const struct steer_sample *s);
/* The tables print the 'top' busiest receiving CPUs and workers, in CPU
 * order, and fold the others into one row each (their count, their sums,
 * their CPUs as ranges); top 0 prints every CPU (cli/fold.h). */
void print_stats_rates(const char *ifname, const struct steer_sample *a,
		       const struct steer_sample *b, size_t top);
void print_stats_totals(const char *ifname, const struct steer_sample *s,
			size_t top);

#endif /* XDP_STEER_PRINT_STATS_H */
