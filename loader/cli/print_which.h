/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* print_which.h - `xdp-steer which` as one line of text or JSON. */
#ifndef XDP_STEER_PRINT_WHICH_H
#define XDP_STEER_PRINT_WHICH_H

#include "lib/steer.h"

void print_which_text(const char *ifname, const struct steer_which *w);
void print_which_json(const char *ifname, const struct steer_which *w);

#endif /* XDP_STEER_PRINT_WHICH_H */
