/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * yaml_util.h - diagnostics with source locations, and the helpers that walk
 * a libyaml document tree (typed scalars, mappings with known keys) so that
 * every mistake is reported as "file:line:col: message" at the node that
 * holds it.
 *
 * libyaml's document loader tags every scalar as a string, so typing is
 * ours, after YAML 1.2's core schema: a plain (unquoted) scalar may be an
 * integer, a boolean or null; a quoted one is always a string.
 */
#ifndef XDP_STEER_YAML_UTIL_H
#define XDP_STEER_YAML_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <yaml.h>

enum diag_level {
	DIAG_ERROR,
	DIAG_WARNING,
};

/* One message. line and col are 1-based; line 0: about the whole file. */
struct diag {
	enum diag_level level;
	int line;
	int col;
	char *msg;
};

/* At most this many messages are kept; the rest are only counted. A file
 * with thousands of mistakes is better fixed from its first ones. */
#define DIAGS_MAX	100

/* Every message about one input (the first DIAGS_MAX kept). */
struct diags {
	char *name;		/* file name, or the display name of a string */
	struct diag *v;
	int n;
	int cap;
	int nerrors;		/* all errors, kept or not */
	int nwarnings;		/* all warnings, kept or not */
	int ndropped;		/* messages beyond DIAGS_MAX */
};

int diags_init(struct diags *d, const char *name);
/* DIAGS_MAX messages kept: further ones are only counted. */
bool diags_full(const struct diags *d);
void diags_free(struct diags *d);
void diag_add(struct diags *d, enum diag_level level, int line, int col,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* At the start of 'node'. */
void diag_node(struct diags *d, enum diag_level level, const yaml_node_t *node,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Puts the kept messages in document order (line, then column), stably:
 * messages about one place stay in the order they were found. O(n log n). */
int diags_sort(struct diags *d);
/* "name:line:col: message", warnings with "warning: " before the message. */
char *diag_format(const struct diags *d, int i, char *buf, size_t len);
/* Every kept message, then "name: N more messages not shown" if any. */
void diags_print(FILE *f, const struct diags *d);

/*
 * Reads the YAML stream text[0..len) as events, before any document is
 * built, and refuses what would make building it costly: nesting deeper
 * than 'max_depth', and aliases (a few lines of anchors and aliases stand
 * for a tree of billions of nodes); and a scalar with a NUL in it, which C
 * strings would cut short. Syntax errors are left to the loader,
 * which reports them the same way. Returns 0, or -EINVAL with the reason
 * in 'd', or -ENOMEM.
 */
int ycheck_stream(struct diags *d, const char *text, size_t len,
		  int max_depth);

/* ---- nodes -------------------------------------------------------------- */

yaml_node_t *ynode(yaml_document_t *doc, int index);

/* What a node is, for "expected X, got Y": "a mapping", "a list",
 * "an integer", "a boolean", "nothing" (null) or "a string". */
const char *ynode_kind(const yaml_node_t *n);

/* The text of a scalar node, or NULL for mappings and lists. */
const char *yscalar(const yaml_node_t *n);
bool yis_plain(const yaml_node_t *n);
/* A scalar spelling 'word', quoted or not: a word is a string either way,
 * and JSON (which is YAML) quotes every one. */
bool yis_word(const yaml_node_t *n, const char *word);
bool yis_null(const yaml_node_t *n);
bool yis_int(const yaml_node_t *n);

/* Typed scalars. On a mismatch they report "expected WHAT, got KIND" at
 * the node and return -EINVAL. 'what' names the expectation ("an integer
 * for queue_size"). */
int yget_int(struct diags *d, const yaml_node_t *n, const char *what,
	     long long *v);
int yget_u64(struct diags *d, const yaml_node_t *n, const char *what,
	     unsigned long long *v);
int yget_bool(struct diags *d, const yaml_node_t *n, const char *what,
	      bool *v);
/* The text of a scalar that is not null; a list or mapping is an error. */
int yget_str(struct diags *d, const yaml_node_t *n, const char *what,
	     const char **v);

/*
 * Walks mapping 'map' whose valid keys are keys[0..nkeys): vals[i] (and
 * keynodes[i], when not NULL) get the value (key) node of keys[i], or NULL
 * when absent. Reports a node that is not a mapping ("expected WHAT, got
 * KIND"), keys that are not names (quoted ones are: JSON is YAML), unknown keys (with the nearest
 * valid one suggested) and duplicate keys. Returns 0, or -EINVAL after
 * reporting; the known keys are filled either way, so the caller can go on
 * and find more mistakes.
 */
int ymap_walk(struct diags *d, yaml_document_t *doc, const yaml_node_t *map,
	      const char *what, const char *const *keys, int nkeys,
	      yaml_node_t **vals, yaml_node_t **keynodes);

/* Edit distance (insertions, deletions, substitutions, transpositions of
 * neighbours), for "did you mean". */
int edit_distance(const char *a, const char *b);

/* The key among keys[0..n) nearest to 'word', or NULL if none is close
 * enough to be a likely typo. Words longer than YSUGGEST_MAX_LEN get none:
 * no key is that long, and the edit distance costs len(word) * len(key). */
#define YSUGGEST_MAX_LEN	64
const char *ysuggest(const char *word, const char *const *keys, int n);

#endif /* XDP_STEER_YAML_UTIL_H */
