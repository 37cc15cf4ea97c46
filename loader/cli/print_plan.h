/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* print_plan.h - `xdp-steer apply --dry-run`: what an apply would change,
 * as text or JSON. */
#ifndef XDP_STEER_PRINT_PLAN_H
#define XDP_STEER_PRINT_PLAN_H

#include "lib/steer.h"

void print_plan_text(const char *ifname, const char *policy,
		     const struct steer_dry_run *r);
/* One JSON document on one line. */
void print_plan_json(const char *ifname, const char *policy,
		     const struct steer_dry_run *r);

#endif /* XDP_STEER_PRINT_PLAN_H */
