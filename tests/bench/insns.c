// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * insns.c - runs tests/bench/insn_count.py on a loaded program, once for
 * a row's frames (insns.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "insns.h"
#include "kernel/clock.h"

#define FRAME_MAX	2048

/* The command line: the tool and its options, then " --frame " and the
 * frame in hex for each frame. Allocated: 'n' frames of up to FRAME_MAX
 * bytes. */
static char *count_cmd(const char *tool, __u32 prog_id,
		       const struct insns_frame *frames, int n, __u32 cpu,
		       __u64 now, const char *show)
{
	size_t size = strlen(tool) + 256, at;
	const unsigned char *b;
	char *cmd;
	size_t j;
	int i, k;

	for (i = 0; i < n; i++) {
		if (frames[i].len > FRAME_MAX) {
			errno = E2BIG;
			return NULL;
		}
		size += sizeof(" --frame ") + 2 * frames[i].len;
	}
	cmd = malloc(size);
	if (!cmd)
		return NULL;
	k = snprintf(cmd, size,
		     "python3 %s --prog %u --jiffies %llu --cpu %u %s",
		     tool, prog_id, (unsigned long long)now, cpu,
		     show ? show : "");
	if (k < 0 || (size_t)k >= size) {
		free(cmd);
		errno = ENAMETOOLONG;
		return NULL;
	}
	at = k;
	for (i = 0; i < n; i++) {
		at += snprintf(cmd + at, size - at, " --frame ");
		for (b = frames[i].buf, j = 0; j < frames[i].len; j++)
			at += snprintf(cmd + at, size - at, "%02x", b[j]);
	}
	return cmd;
}

int insns_count(const char *tool, int prog_fd, struct insns_frame *frames,
		int n, __u32 cpu, __u64 now, const char *show)
{
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	int i, got = 0, err, insns, verdict;
	char line[512], *cmd;
	FILE *f;

	if (n < 1)
		return -EINVAL;
	for (i = 0; i < n; i++)
		frames[i].insns = -1;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &info_len))
		return -errno;
	cmd = count_cmd(tool, info.id, frames, n, cpu, now, show);
	if (!cmd)
		return -errno;
	f = popen(cmd, "r");
	err = f ? 0 : -errno;
	free(cmd);
	if (err)
		return err;
	/* A line per frame, in order, each followed by what 'show' asks. */
	while (fgets(line, sizeof(line), f)) {
		if (got < n && sscanf(line, "insns %d verdict %d", &insns,
				      &verdict) == 2) {
			frames[got].insns = insns;
			frames[got].verdict = verdict;
			if (show && frames[got].title)
				printf("%s\n", frames[got].title);
			got++;
		} else if (show) {
			fputs(line, stdout);
		}
	}
	err = pclose(f);
	return err || got < n ? -EIO : 0;
}

int insns_count_checked(const char *who, const char *tool, int prog_fd,
			struct insns_frame *frames, int n, __u32 cpu,
			__u64 now, const char *show, int want)
{
	int i, err;

	if (n < 1)
		return -EINVAL;
	err = insns_count(tool, prog_fd, frames, n, cpu, now, show);
	if (err) {
		/* the first frame without a count, whose run failed */
		for (i = 0; i < n - 1 && frames[i].insns >= 0; i++)
			;
		fprintf(stderr, "%s: '%s': %s could not count: %s (its message above)\n",
			who, frames[i].name, tool, strerror(-err));
		return err;
	}
	for (i = 0; i < n; i++) {
		if (frames[i].verdict == frames[i].kernel_verdict &&
		    frames[i].kernel_verdict == want)
			continue;
		fprintf(stderr, "%s: '%s': the model's verdict %d, the kernel's %d, the row's %d: the count is of another path\n",
			who, frames[i].name, frames[i].verdict,
			frames[i].kernel_verdict, want);
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
