/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * util/array.h - the length of an array whose size the compiler knows.
 * Header-only: every layer may include it.
 */
#ifndef XDP_STEER_UTIL_ARRAY_H
#define XDP_STEER_UTIL_ARRAY_H

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* XDP_STEER_UTIL_ARRAY_H */
