/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * progtag.h - whether a running program is this binary's: by its tag.
 */
#ifndef XDP_STEER_PROGTAG_H
#define XDP_STEER_PROGTAG_H

#include <linux/bpf.h>
#include <linux/types.h>

/* The tag of a loaded program, by 'fd', or by 'id' when fd is -1: the
 * kernel's hash of its instructions with map fds left out, so two loads
 * of the same code have the same tag. */
int prog_tag(__u32 id, int fd, __u8 tag[BPF_TAG_SIZE]);

#endif /* XDP_STEER_PROGTAG_H */
