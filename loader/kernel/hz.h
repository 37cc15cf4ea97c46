/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* hz.h - the running kernel's tick rate, which decides how long GRO may
 * hold a frame (see STEER_GRO_UNITS in include/xdp_steer.h). */
#ifndef XDP_STEER_HZ_H
#define XDP_STEER_HZ_H

/* CONFIG_HZ from /proc/config.gz or /boot/config-<release>, or 0 when
 * neither says. */
int kernel_hz(void);

#endif /* XDP_STEER_HZ_H */
