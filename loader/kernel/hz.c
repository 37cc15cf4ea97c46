// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "kernel/hz.h"

/* CONFIG_HZ=N in a kernel config read line by line through zlib (which
 * reads plain files as they are, so one reader serves both). */
static int hz_from(const char *path)
{
	char line[256];
	gzFile f = gzopen(path, "r");
	int hz = 0;

	if (!f)
		return 0;
	while (gzgets(f, line, sizeof(line)))
		if (!strncmp(line, "CONFIG_HZ=", 10)) {
			hz = atoi(line + 10);
			break;
		}
	gzclose(f);
	return hz;
}

int kernel_hz(void)
{
	char path[sizeof(((struct utsname *)0)->release) + 16];
	struct utsname u;
	int hz = hz_from("/proc/config.gz");

	if (!hz && !uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		hz = hz_from(path);
	}
	return hz;
}
