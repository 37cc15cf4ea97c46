// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The failpoints a test names in XDP_STEER_FAILPOINT: see failpoint.h. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/failpoint.h"

int failpoint(const char *name)
{
	const char *want = getenv("XDP_STEER_FAILPOINT");
	size_t n = strlen(name);

	if (!want || strncmp(want, name, n))
		return 0;
	if (!want[n])
		return -EIO;
	if (!strcmp(want + n, ":exit"))
		_exit(137);
	if (!strcmp(want + n, ":stop"))
		raise(SIGSTOP);
	return 0;
}
