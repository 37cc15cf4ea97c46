// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The policy parser's entry points: a file or a string read into one
 * document (its syntax errors said where they are), the defaults, then
 * the top-level keys checked into a struct steer_policy
 * (pol_get_policy(), policy_keys.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "policy/policy_int.h"

static void policy_defaults(struct steer_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->version = POLICY_VERSION;
	p->cpus_default = true;
	p->queue_size = POLICY_QUEUE_DEFAULT;
	p->table_size = STEER_TABLE_DEFAULT;
	p->hash_key = POLICY_HASH_L4;
	p->seed_random = true;
	p->local_fastpath = true;
	p->rebalance = POLICY_REBALANCE_DRAIN;
	p->drain_timeout_ms = POLICY_DRAIN_TIMEOUT_DEFAULT;
	p->balance = true;
	p->balance_interval_ms = POLICY_BALANCE_INTERVAL_DEFAULT;
	p->balance_tolerance = POLICY_BALANCE_TOLERANCE_CPU;
	p->balance_max_moves = POLICY_BALANCE_MOVES_DEFAULT;
	p->nonip_cpu = STEER_CPU_LOCAL;
	p->worker_sched = POLICY_SCHED_OTHER;
	p->worker_nice = POLICY_SCHED_NICE_DEFAULT;
	policy_decap_default(&p->decap);
}

static void syntax_error(struct diags *d, yaml_parser_t *yp, const char *text,
			 size_t len)
{
	const yaml_mark_t *m = &yp->problem_mark;
	const char *problem = yp->problem ? yp->problem : "cannot parse";
	char ctx[128] = "";

	if (yp->error == YAML_READER_ERROR) {
		/* libyaml's reader gives only a byte offset: find its line,
		 * and its column in characters as the scanner counts. */
		size_t i, line = 1, col = 1, at = yp->problem_offset;

		for (i = 0; i < at && i < len; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
				col++;
			}
		}
		diag_add(d, DIAG_ERROR, line, col, "invalid YAML: %s (byte %zu)",
			 problem, at);
		return;
	}
	if (yp->context)
		snprintf(ctx, sizeof(ctx), " (%s at %zu:%zu)", yp->context,
			 yp->context_mark.line + 1, yp->context_mark.column + 1);
	/* libyaml refuses a plain scalar starting with ':' in flow style,
	 * which is how "{src: ::1}" fails: say what to do about it. */
	if (m->index > 0 && m->index + 1 < len && text[m->index] == ':' &&
	    strchr(" ,[{", text[m->index - 1]) && text[m->index + 1] != ' ')
		snprintf(ctx + strlen(ctx), sizeof(ctx) - strlen(ctx),
			 "; quote IPv6 addresses like \"::1\"");
	diag_add(d, DIAG_ERROR, m->line + 1, m->column + 1, "invalid YAML: %s%s",
		 problem, ctx);
}

int policy_parse_string(const char *text, size_t len, const char *name,
			const struct cpu_set *online, struct steer_policy *p,
			struct diags *d)
{
	return policy_parse_string_on(text, len, name, online, NULL, p, d);
}

/* Bounds the stream (ycheck_stream()) before libyaml builds a document,
 * checks the one document's keys (pol_get_policy()), then refuses a second
 * document. Contract in policy.h. */
int policy_parse_string_on(const char *text, size_t len, const char *name,
			   const struct cpu_set *online,
			   const char *online_name, struct steer_policy *p,
			   struct diags *d)
{
	struct cpu_set sys_online, sys_possible;
	const struct cpu_set *possible = NULL;
	yaml_document_t doc, extra;
	yaml_node_t *root, *next;
	yaml_parser_t yp;
	struct pctx c;
	int err;

	policy_defaults(p);
	err = diags_init(d, name);
	if (err)
		return err;
	if (!online) {
		err = cpuset_read_online(&sys_online, NULL);
		if (err) {
			diag_add(d, DIAG_ERROR, 0, 0,
				 "cannot read the online CPUs: %s",
				 strerror(-err));
			return err;
		}
		online = &sys_online;
		if (!cpuset_read_online(&sys_possible,
					"/sys/devices/system/cpu/possible"))
			possible = &sys_possible;
	}
	err = ycheck_stream(d, text, len, POLICY_DEPTH_MAX);
	if (err)
		return err;
	if (!yaml_parser_initialize(&yp))
		return -ENOMEM;
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	if (!yaml_parser_load(&yp, &doc)) {
		syntax_error(d, &yp, text, len);
		yaml_parser_delete(&yp);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		diag_add(d, DIAG_ERROR, 1, 1, "empty policy; it needs at least 'version: %d'",
			 POLICY_VERSION);
		err = -EINVAL;
		goto out_doc;
	}
	c = (struct pctx){ .doc = &doc, .d = d, .online = online,
			   .online_name = online ? online_name : NULL,
			   .possible = possible, .p = p };
	err = pol_get_policy(&c, root);

	if (!yaml_parser_load(&yp, &extra)) {
		syntax_error(d, &yp, text, len);
		err = -EINVAL;
	} else {
		next = yaml_document_get_root_node(&extra);
		if (next) {
			ERR(&c, next, "a second YAML document; a policy is one document");
			err = -EINVAL;
		}
		yaml_document_delete(&extra);
	}
	/* Messages in document order, whatever order the keys were checked
	 * in. */
	if (diags_sort(d) && !err)
		err = -ENOMEM;
	if (!err && d->nerrors)
		err = -EINVAL;
out_doc:
	yaml_document_delete(&doc);
	yaml_parser_delete(&yp);
	return err;
}

/* Fails the parse before it starts: defaults in *p, the reason in *d. */
static int file_error(const char *path, struct steer_policy *p,
		      struct diags *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int file_error(const char *path, struct steer_policy *p,
		      struct diags *d, int err, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	policy_defaults(p);
	if (diags_init(d, path))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_add(d, DIAG_ERROR, 0, 0, "%s", msg);
	return err;
}

int policy_parse_file(const char *path, const struct cpu_set *online,
		      struct steer_policy *p, struct diags *d)
{
	return policy_parse_file_on(path, online, NULL, p, d);
}

/* Reads the whole file, refusing what is not a regular file of at most
 * POLICY_FILE_MAX bytes, then parses its text as policy_parse_string_on()
 * does. Contract in policy.h. */
int policy_parse_file_on(const char *path, const struct cpu_set *online,
			 const char *online_name, struct steer_policy *p,
			 struct diags *d)
{
	struct stat st;
	char *text;
	ssize_t n = 0;
	size_t len = 0;
	int fd, err;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer before
	 * fstat() can refuse it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		return file_error(path, p, d, err, "cannot open: %s",
				  strerror(-err));
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return file_error(path, p, d, err, "cannot read: %s",
				  strerror(-err));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return file_error(path, p, d, -EISDIR,
				  "is a directory; give the path of a policy file");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return file_error(path, p, d, -EINVAL,
				  "is not a regular file (a device, pipe or socket); give the path of a policy file");
	}
	if (st.st_size > POLICY_FILE_MAX) {
		close(fd);
		return file_error(path, p, d, -EFBIG,
				  "is %lld bytes; a policy may be at most %d (1 MiB)",
				  (long long)st.st_size, POLICY_FILE_MAX);
	}
	/* One byte more than allowed, to notice a file that grew. */
	text = malloc(POLICY_FILE_MAX + 1);
	if (!text) {
		close(fd);
		return file_error(path, p, d, -ENOMEM, "out of memory");
	}
	while (len <= POLICY_FILE_MAX) {
		n = read(fd, text + len, POLICY_FILE_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err) {
		free(text);
		return file_error(path, p, d, err, "cannot read: %s",
				  strerror(-err));
	}
	if (len > POLICY_FILE_MAX) {
		free(text);
		return file_error(path, p, d, -EFBIG,
				  "is more than %d bytes (1 MiB), the most a policy may be",
				  POLICY_FILE_MAX);
	}
	err = policy_parse_string_on(text, len, path, online, online_name, p,
				     d);
	free(text);
	return err;
}

void policy_free(struct steer_policy *p)
{
	int i;

	for (i = 0; i < p->nrules; i++)
		free(p->rules[i].cpus.v);
	free(p->rules);
	free(p->cpus.v);
	memset(p, 0, sizeof(*p));
}

