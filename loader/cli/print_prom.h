/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* print_prom.h - `xdp-steer stats --prometheus`: one sample in the
 * Prometheus text exposition format (version 0.0.4), for node_exporter's
 * textfile collector. Pure: writes to the stream it is given. */
#ifndef XDP_STEER_PRINT_PROM_H
#define XDP_STEER_PRINT_PROM_H

#include <stdio.h>

#include "lib/steer.h"

/* Every counter of 's' as xdp_steer_* metrics labelled interface="ifname"
 * and cpu="N" (receiving CPUs: the online ones and any that counted) or
 * worker="N" (worker CPUs: those s->workers names and any that counted),
 * at 0 until they count. */
void print_prom(FILE *out, const char *ifname, const struct steer_sample *s);

#endif /* XDP_STEER_PRINT_PROM_H */
