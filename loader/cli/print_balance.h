/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* print_balance.h - a balancer round as one line of text or of JSON, and
 * the balancer's part of `status`. */
#ifndef XDP_STEER_PRINT_BALANCE_H
#define XDP_STEER_PRINT_BALANCE_H

#include "lib/steer.h"

void print_balance_text(const char *ifname, const struct steer_balance_round *r);
void print_balance_json(const char *ifname, const struct steer_balance_round *r);

/* status: "  balance: ..." lines, and the "balance" member of its JSON
 * (after a comma). */
void print_balance_status_text(const struct steer_status *st);
void print_balance_status_json(const struct steer_status *st);

#endif /* XDP_STEER_PRINT_BALANCE_H */
