// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The cpumap entries' kthreads (kthreads.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "kernel/kthreads.h"
#include "util/mono.h"

/* include/linux/sched.h: a kernel thread. */
#define PF_KTHREAD	0x00200000u

static int map_id(int fd, __u32 *id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*id = info.id;
	return 0;
}

/* /proc/PID/<file> into buf, without its trailing newline. */
static int read_proc(const char *pid, const char *file, char *buf,
		     size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

/* The task's flags, field 9 of /proc/PID/stat (after the comm, which may
 * hold spaces and parentheses: from the last ')'). */
static bool is_kthread(const char *pid)
{
	char stat[512], *s;
	unsigned long flags;
	int field;

	if (read_proc(pid, "stat", stat, sizeof(stat)))
		return false;
	s = strrchr(stat, ')');
	for (field = 2; s && field < 9; field++)
		s = strchr(s + 1, ' ');
	if (!s || sscanf(s + 1, "%lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

/* Walks the kernel threads named for an entry of this interface's
 * cpumaps: calls fn(pid, target) for each; stops at fn's error. The
 * kernel names the kthread "cpumap/<cpu>/map:<id>" and keeps the whole
 * name for kernel threads (/proc/PID/comm of a task is cut to 15 bytes,
 * a kthread's is not: since 5.17). */
static int walk(const struct steer_maps *m,
		int (*fn)(pid_t pid, unsigned int target, void *arg), void *arg)
{
	__u32 ids[2];
	unsigned int cpu, id, bank;
	char comm[64];
	struct dirent *de;
	DIR *proc;
	int err;

	err = map_id(m->cpu_map, &ids[0]);
	if (!err)
		err = map_id(m->cpu_map_b, &ids[1]);
	if (err)
		return err;
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (!err && (de = readdir(proc))) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    read_proc(de->d_name, "comm", comm, sizeof(comm)) ||
		    sscanf(comm, "cpumap/%u/map:%u", &cpu, &id) != 2 ||
		    cpu >= STEER_CPU_IDS)
			continue;
		for (bank = 0; bank < 2; bank++)
			if (id == ids[bank] && is_kthread(de->d_name))
				err = fn(atoi(de->d_name),
					 bank * STEER_CPU_IDS + cpu, arg);
	}
	closedir(proc);
	return err;
}

/* A task's comm as the kernel kept it before 5.17: 15 bytes at most. */
#define COMM_CUT	15

int kthreads_named(const char *whole)
{
	char comm[64];
	struct dirent *de;
	int ret = -ENOENT;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc)
		return -errno;
	/* A whole name found wins over a cut one: the cut name may be the
	 * whole name of another map's kthread ("cpumap/0/map:12"). */
	while (ret != 1 && (de = readdir(proc))) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    read_proc(de->d_name, "comm", comm, sizeof(comm)) ||
		    !is_kthread(de->d_name))
			continue;
		if (!strcmp(comm, whole))
			ret = 1;
		else if (strlen(whole) > COMM_CUT &&
			 strlen(comm) == COMM_CUT &&
			 !strncmp(comm, whole, COMM_CUT))
			ret = 0;
	}
	closedir(proc);
	return ret;
}

struct sched_walk {
	const unsigned char *need;
	unsigned char done[STEER_CPU_TARGETS];
	/* One class for all, or one per target (NULL: the former). */
	int policy, priority, nice;
	const struct kthread_info *each;
	int changed;
	struct why *why;
};

/* A task's nice (getpriority(), whose -1 may be a nice); 0 when it
 * cannot be read. */
static int nice_of(pid_t pid)
{
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, pid);
	return errno ? 0 : nice;
}

static int set_one(pid_t pid, unsigned int target, void *arg)
{
	struct sched_walk *w = arg;
	struct sched_param param;
	int err, policy, priority, nice;

	if (!w->need[target])
		return 0;
	policy = w->each ? w->each[target].policy : w->policy;
	priority = w->each ? w->each[target].priority : w->priority;
	nice = w->each ? w->each[target].nice : w->nice;
	/* Counted for the caller's message: an apply that changes only
	 * worker_sched must say it changed something. A real-time class
	 * has no nice: it is neither compared nor set. */
	if (sched_getscheduler(pid) != policy || sched_getparam(pid, &param) ||
	    param.sched_priority != priority ||
	    (policy == SCHED_OTHER && nice_of(pid) != nice))
		w->changed++;
	param.sched_priority = priority;
	err = sched_setscheduler(pid, policy, &param) ? -errno : 0;
	if (!err && policy == SCHED_OTHER &&
	    setpriority(PRIO_PROCESS, pid, nice))
		err = -errno;
	/* Gone since the walk read its name: the kthread of an entry
	 * removed or replaced before, which the kernel stops once its
	 * ring is empty, with the name of the entry now there (seen: an
	 * apply failed "No such process" in the 6.12 VM). The entry's own
	 * kthread is found beside it; if none is, sched_walk() says so. */
	if (err == -ESRCH)
		return 0;
	if (err) {
		why_set(w->why, "setting the scheduling of CPU %u's cpumap kthread (pid %d) failed: %s",
			target % STEER_CPU_IDS, (int)pid, strerror(-err));
		return err;
	}
	w->done[target] = 1;
	return 0;
}

static int sched_walk(const struct steer_maps *m, struct sched_walk *w,
		      int *changed)
{
	const unsigned char *need = w->need;
	struct why *why = w->why;
	unsigned int target;
	int err;

	err = walk(m, set_one, w);
	if (changed)
		*changed = w->changed;
	if (err) {
		why_first(why, "listing the cpumap kthreads failed: %s",
			  strerror(-err));
		return err;
	}
	for (target = 0; target < STEER_CPU_TARGETS; target++) {
		if (need[target] && !w->done[target]) {
			why_set(why, "CPU %u's cpumap entry (bank %u) has no kthread 'cpumap/%u/map:<id>' in /proc (a kernel before 5.17 cuts its name)",
				target % STEER_CPU_IDS, target / STEER_CPU_IDS,
				target % STEER_CPU_IDS);
			return -ESRCH;
		}
	}
	return 0;
}

int kthreads_sched(const struct steer_maps *m, const unsigned char *need,
		   int policy, int priority, int nice, int *changed,
		   struct why *why)
{
	struct sched_walk w = {
		.need = need, .policy = policy, .priority = priority,
		.nice = nice, .why = why,
	};

	return sched_walk(m, &w, changed);
}

int kthreads_sched_each(const struct steer_maps *m, const unsigned char *need,
			const struct kthread_info *want, struct why *why)
{
	struct sched_walk w = {
		.need = need, .each = want, .why = why,
	};

	return sched_walk(m, &w, NULL);
}

/* Cpus_allowed_list of /proc/PID/status: the CPUs the scheduler may run
 * the task on. */
static int read_allowed(const char *pid, char *allowed, size_t len)
{
	static const char key[] = "\nCpus_allowed_list:";
	/* Cpus_allowed before it is a mask of every possible CPU: 2.3 KB
	 * of it at 8192. */
	char status[16384], *s, *end;
	int err;

	err = read_proc(pid, "status", status, sizeof(status));
	if (err)
		return err;
	s = strstr(status, key);
	if (!s)
		return -ENOENT;
	s += sizeof(key) - 1;
	end = strchr(s, '\n');
	if (end)
		*end = 0;
	s += strspn(s, " \t");
	if (!*s)
		return -EINVAL;
	snprintf(allowed, len, "%s", s);
	return 0;
}

/* When the task started, in clock ticks after boot (field 22 of
 * /proc/PID/stat); 0 when unreadable. */
static unsigned long long started(const char *pid)
{
	unsigned long long t;
	char stat[512], *s;
	int field;

	if (read_proc(pid, "stat", stat, sizeof(stat)))
		return 0;
	s = strrchr(stat, ')');
	for (field = 2; s && field < 22; field++)
		s = strchr(s + 1, ' ');
	return s && sscanf(s + 1, "%llu", &t) == 1 ? t : 0;
}

static int read_one(pid_t pid, unsigned int target, void *arg)
{
	struct kthread_info *k = (struct kthread_info *)arg + target;
	struct sched_param param;
	unsigned long long t;
	char name[16];

	/* An entry made anew leaves its old kthread running until it has
	 * emptied the old ring, under the same name: the younger is the
	 * entry's. */
	snprintf(name, sizeof(name), "%d", (int)pid);
	t = started(name);
	if (k->pid && t <= k->started)
		return 0;
	k->started = t;
	k->pid = pid;
	k->policy = sched_getscheduler(pid);
	k->priority = sched_getparam(pid, &param) ? 0 : param.sched_priority;
	k->nice = nice_of(pid);
	k->allowed_known = !read_allowed(name, k->allowed,
					 sizeof(k->allowed));
	return 0;
}

int kthreads_read(const struct steer_maps *m, struct kthread_info *k)
{
	memset(k, 0, STEER_CPU_TARGETS * sizeof(*k));
	return walk(m, read_one, k);
}

/* A full walk of /proc at least this often (seconds), whatever the
 * kthreads remembered say: a pid the kernel gave again, to a task bound
 * to the same CPU, would otherwise hide its kthread for good. */
#define REWALK_S	60

/* The kthreads the last walk found, by target, for the cpumaps of
 * 'ids': kthreads_misplaced() looks at these alone while each is alive
 * and bound to its CPU. On a machine of 1024 CPUs /proc lists thousands
 * of tasks, and a walk reads a file of each: tens of ms a round. */
static struct {
	__u32 ids[2];
	pid_t pid[STEER_CPU_TARGETS];
	time_t walked;			/* CLOCK_MONOTONIC seconds; 0: never */
} known;

/* Monotonic seconds, never 0: 0 is "never walked". */
static time_t walk_clock(void)
{
	return (time_t)(mono_ns() / 1000000000ull) + 1;
}

/* Whether the kthread remembered for 'target' is alive and may run on
 * its own CPU only; false sends the caller to /proc. */
static bool bound_known(pid_t pid, unsigned int cpu)
{
	size_t size = CPU_ALLOC_SIZE(STEER_RX_CPU_IDS);
	cpu_set_t *mask;
	bool ok;

	if (!pid)
		return false;
	mask = CPU_ALLOC(STEER_RX_CPU_IDS);
	if (!mask)
		return false;
	/* The kernel answers the task's CPUs that are active: its own
	 * alone while bound, the online ones once widened (kthreads.h). */
	ok = !sched_getaffinity(pid, size, mask) &&
	     CPU_COUNT_S(size, mask) == 1 && CPU_ISSET_S(cpu, size, mask);
	CPU_FREE(mask);
	return ok;
}

int kthreads_misplaced(const struct steer_maps *m, const unsigned char *need,
		       const struct cpu_set *online, struct cpu_set *out)
{
	struct kthread_info *k;
	unsigned int target, cpu;
	bool walk_again;
	__u32 ids[2];
	int err;

	cpuset_zero(out);
	err = map_id(m->cpu_map, &ids[0]);
	if (!err)
		err = map_id(m->cpu_map_b, &ids[1]);
	if (err)
		return err;
	walk_again = !known.walked || walk_clock() - known.walked >= REWALK_S ||
		     memcmp(ids, known.ids, sizeof(ids));
	for (target = 0; !walk_again && target < STEER_CPU_TARGETS; target++) {
		cpu = target % STEER_CPU_IDS;
		/* Gone, never found, or no longer bound: /proc decides, as
		 * kthreads_read() reads it (the younger of two that share
		 * a name). */
		if (need[target] && cpuset_has(online, cpu) &&
		    !bound_known(known.pid[target], cpu))
			walk_again = true;
	}
	if (!walk_again)
		return 0;
	k = calloc(STEER_CPU_TARGETS, sizeof(*k));
	if (!k)
		return -ENOMEM;
	err = kthreads_read(m, k);
	known.walked = err ? 0 : walk_clock();
	memcpy(known.ids, ids, sizeof(ids));
	for (target = 0; target < STEER_CPU_TARGETS; target++) {
		known.pid[target] = err ? 0 : k[target].pid;
		cpu = target % STEER_CPU_IDS;
		if (!err && need[target] && cpuset_has(online, cpu) &&
		    kthread_misplaced(&k[target], cpu))
			cpuset_set(out, cpu);
	}
	free(k);
	return err;
}
