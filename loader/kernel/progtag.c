// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Whether a running program is this binary's, by its tag: see progtag.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "kernel/progtag.h"

int prog_tag(__u32 id, int fd, __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int own = -1, err = 0;

	if (fd < 0) {
		fd = own = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			return -errno;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		err = -errno;
	else
		memcpy(tag, info.tag, BPF_TAG_SIZE);
	if (own >= 0)
		close(own);
	return err;
}
