/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* print_stats.h - `xdp-steer stats`: rates between two samples as a table,
 * one sample's counts since the attach as a table (--totals), or one
 * sample as JSON. The Prometheus form is print_prom.h's. */
#ifndef XDP_STEER_PRINT_STATS_H
#define XDP_STEER_PRINT_STATS_H

#include "lib/steer.h"

/* One line: a JSON document with the time it was printed (Unix seconds). */
void print_stats_json(const char *ifname, const struct steer_sample *s);
void print_stats_rates(const char *ifname, const struct steer_sample *a,
		       const struct steer_sample *b);
void print_stats_totals(const char *ifname, const struct steer_sample *s);

#endif /* XDP_STEER_PRINT_STATS_H */
