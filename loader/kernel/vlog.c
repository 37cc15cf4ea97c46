// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The verifier's reason, from libbpf's message (vlog.h). */
#include <stdio.h>
#include <string.h>

#include "kernel/vlog.h"

#define LOG_BEGIN	"-- BEGIN PROG LOAD LOG --\n"
#define LOG_END		"-- END PROG LOAD LOG --"

/* The verifier's closing statistics, not its reason. */
static int statistics(const char *line, size_t n)
{
	static const char *const words[] = {
		"processed ", "verification time", "stack depth",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (n >= strlen(words[i]) &&
		    !strncmp(line, words[i], strlen(words[i])))
			return 1;
	return 0;
}

int vlog_reason(const char *text, char *buf, size_t len)
{
	const char *log = strstr(text, LOG_BEGIN), *end, *line, *next;
	const char *reason = NULL;
	size_t n = 0;

	if (!log || !(end = strstr(log, LOG_END)))
		return 0;
	for (line = log + strlen(LOG_BEGIN); line < end; line = next + 1) {
		next = memchr(line, '\n', (size_t)(end - line));
		if (!next)
			break;
		if (next == line || statistics(line, (size_t)(next - line)))
			continue;
		reason = line;
		n = (size_t)(next - line);
	}
	if (!reason)
		return 0;
	snprintf(buf, len, "%.*s", (int)n, reason);
	return 1;
}
