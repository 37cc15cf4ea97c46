/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * unit_job.h - whether a systemd unit is stopping for a restart, by the
 * type of the job systemd runs on it (`systemctl show`).
 */
#ifndef XDP_STEER_UNIT_JOB_H
#define XDP_STEER_UNIT_JOB_H

/* 1 when systemd's job on 'unit' is a restart (systemctl restart,
 * try-restart, reload-or-restart of a unit that cannot reload, a restart
 * propagated to it), 0 when it is another job (stop, a stop for a
 * conflict or a bound device gone) or there is none, negative errno when
 * systemd could not be asked or did not answer (no systemctl, not booted
 * with systemd). */
int unit_job_is_restart(const char *unit);

#endif
