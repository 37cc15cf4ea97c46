// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * insns.c - runs tests/bench/insn_count.py on a loaded program (insns.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "insns.h"
#include "kernel/clock.h"

#define FRAME_MAX	2048

int insns_count(const char *tool, int prog_fd, const void *frame, size_t len,
		__u32 cpu, __u64 now, const char *show, int *insns,
		int *verdict)
{
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	const unsigned char *b = frame;
	char cmd[PATH_MAX + 256 + 2 * FRAME_MAX], line[512];
	int n, err, ok = 0;
	size_t i;
	FILE *f;

	if (len > FRAME_MAX)
		return -E2BIG;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &info_len))
		return -errno;
	n = snprintf(cmd, sizeof(cmd),
		     "python3 %s --prog %u --jiffies %llu --cpu %u %s --frame ",
		     tool, info.id, (unsigned long long)now, cpu, show ? show : "");
	if (n < 0 || (size_t)n + 2 * len >= sizeof(cmd))
		return -ENAMETOOLONG;
	for (i = 0; i < len; i++)
		n += snprintf(cmd + n, sizeof(cmd) - n, "%02x", b[i]);
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!ok && sscanf(line, "insns %d verdict %d", insns, verdict) == 2)
			ok = 1;
		else if (show)
			fputs(line, stdout);
	}
	err = pclose(f);
	return err || !ok ? -EIO : 0;
}

int insns_count_checked(const char *who, const char *row, const char *tool,
			int prog_fd, const void *frame, size_t len, __u32 cpu,
			__u64 now, const char *show, int kernel_verdict,
			int want, int *insns)
{
	int model, err;

	err = insns_count(tool, prog_fd, frame, len, cpu, now, show, insns,
			  &model);
	if (err) {
		fprintf(stderr, "%s: '%s': %s could not count: %s (its message above)\n",
			who, row, tool, strerror(-err));
		return err;
	}
	if (model != kernel_verdict || kernel_verdict != want) {
		fprintf(stderr, "%s: '%s': the model's verdict %d, the kernel's %d, the row's %d: the count is of another path\n",
			who, row, model, kernel_verdict, want);
		return -EPROTO;
	}
	return 0;
}

#define ONE_TICK_TRIES	20

int insns_runs_in_one_tick(int (*runs)(void *arg), void *arg, __u64 *now)
{
	__u64 before;
	int err = 0, tries;

	for (tries = 0; !err && tries < ONE_TICK_TRIES; tries++) {
		err = clock_jiffies64(&before);
		if (!err)
			err = runs(arg);
		if (!err)
			err = clock_jiffies64(now);
		if (!err && *now == before)
			break;
	}
	return err;
}

int insns_tool_path(const char *who, char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n < 0 || !(buf[n] = '\0', slash = strrchr(buf, '/')) ||
	    (size_t)snprintf(slash + 1, size - (slash + 1 - buf), "%s",
			     "insn_count.py") >= size - (slash + 1 - buf)) {
		fprintf(stderr, "%s: cannot find insn_count.py beside this binary (run 'make')\n",
			who);
		return -ENOENT;
	}
	return 0;
}
