/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* json.h - the one place strings become JSON: quoted and escaped. */
#ifndef XDP_STEER_JSON_H
#define XDP_STEER_JSON_H

#include <stdio.h>

/* Writes 's' as a JSON string: quotes, backslashes and control
 * characters escaped, other bytes as they are. */
void json_str(FILE *f, const char *s);

#endif /* XDP_STEER_JSON_H */
