// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* unit_job: asks systemd, through systemctl, what job it runs on a unit.
 * During the stop half of `systemctl restart`, the unit's job is of type
 * "restart" (it becomes "start" only once the stop is done), so a
 * unit's ExecStop can tell a restart from a stop. systemctl talks to
 * PID 1 on its private socket: no D-Bus daemon is needed. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/log.h"
#include "cli/unit_job.h"

extern char **environ;

/* `systemctl show -P PROP WHAT`'s first line, in out. */
static int systemctl_show(const char *prop, const char *what, char *out,
			  size_t size)
{
	char *argv[] = { "systemctl", "show", "-P", (char *)prop,
			 (char *)what, NULL };
	posix_spawn_file_actions_t fa;
	int pipefd[2], status, ret;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe(pipefd))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_addclose(&fa, pipefd[1]);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	/* "not booted with systemd" and the like: the caller says what it
	 * does without an answer. */
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					 O_WRONLY, 0);
	ret = -posix_spawnp(&pid, "systemctl", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (ret) {
		close(pipefd[0]);
		return ret;
	}
	while ((size_t)len < size - 1 &&
	       (n = read(pipefd[0], out + len, size - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += n;
	}
	close(pipefd[0]);
	out[len] = '\0';
	out[strcspn(out, "\n")] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -ENOTCONN;
	return 0;
}

int unit_job_is_restart(const char *unit)
{
	char job[32], type[32];
	int ret;

	ret = systemctl_show("Job", unit, job, sizeof(job));
	if (ret) {
		pr_debug("systemctl show -P Job %s: %s\n", unit, strerror(-ret));
		return ret;
	}
	if (!job[0] || !strcmp(job, "0"))
		return 0;
	ret = systemctl_show("JobType", job, type, sizeof(type));
	if (ret) {
		pr_debug("systemctl show -P JobType %s: %s\n", job,
			 strerror(-ret));
		return ret;
	}
	pr_debug("%s: job %s, of type %s\n", unit, job, type);
	return !strcmp(type, "restart");
}
