// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Walking a libyaml document with every mistake reported at its node's
 * file:line:col: see yaml_util.h. */
#define _GNU_SOURCE /* vasprintf */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "policy/yaml_util.h"

/* ---- diagnostics -------------------------------------------------------- */

int diags_init(struct diags *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	d->name = strdup(name ? name : "<policy>");
	return d->name ? 0 : -ENOMEM;
}

void diags_free(struct diags *d)
{
	int i;

	for (i = 0; i < d->n; i++)
		free(d->v[i].msg);
	free(d->v);
	free(d->name);
	memset(d, 0, sizeof(*d));
}

static void diag_vadd(struct diags *d, enum diag_level level, int line,
		      int col, const char *fmt, va_list ap)
{
	struct diag *v;
	char *msg;

	/* Out of memory loses the text, never the count: an error must not
	 * turn into a silently accepted policy. */
	if (level == DIAG_ERROR)
		d->nerrors++;
	else
		d->nwarnings++;
	if (diags_full(d)) {
		d->ndropped++;
		return;
	}
	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	if (d->n == d->cap) {
		v = realloc(d->v, (d->cap ? d->cap * 2 : 8) * sizeof(*v));
		if (!v) {
			free(msg);
			return;
		}
		d->v = v;
		d->cap = d->cap ? d->cap * 2 : 8;
	}
	d->v[d->n++] = (struct diag){ level, line, col, msg };
}

bool diags_full(const struct diags *d)
{
	return d->n >= DIAGS_MAX;
}

void diag_add(struct diags *d, enum diag_level level, int line, int col,
	      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(d, level, line, col, fmt, ap);
	va_end(ap);
}

void diag_node(struct diags *d, enum diag_level level, const yaml_node_t *node,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(d, level, node->start_mark.line + 1,
		  node->start_mark.column + 1, fmt, ap);
	va_end(ap);
}

char *diag_format(const struct diags *d, int i, char *buf, size_t len)
{
	const struct diag *g = &d->v[i];
	const char *lvl = g->level == DIAG_WARNING ? "warning: " : "";

	if (g->line)
		snprintf(buf, len, "%s:%d:%d: %s%s", d->name, g->line, g->col,
			 lvl, g->msg);
	else
		snprintf(buf, len, "%s: %s%s", d->name, lvl, g->msg);
	return buf;
}

void diags_print(FILE *f, const struct diags *d)
{
	char buf[1024];
	int i;

	for (i = 0; i < d->n; i++)
		fprintf(f, "%s\n", diag_format(d, i, buf, sizeof(buf)));
	if (d->ndropped)
		fprintf(f, "%s: %d more message%s not shown (%d error%s in all)\n",
			d->name, d->ndropped, d->ndropped == 1 ? "" : "s",
			d->nerrors, d->nerrors == 1 ? "" : "s");
}

static bool diag_before(const struct diag *a, const struct diag *b)
{
	return a->line < b->line || (a->line == b->line && a->col < b->col);
}

int diags_sort(struct diags *d)
{
	struct diag *tmp, *src = d->v, *dst;
	int width, lo, mid, hi, i, j, k;

	if (d->n < 2)
		return 0;
	tmp = malloc(d->n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	/* Bottom-up merge sort: stable, n log n, no recursion. */
	for (width = 1; width < d->n; width *= 2) {
		for (lo = 0; lo < d->n; lo += 2 * width) {
			mid = lo + width < d->n ? lo + width : d->n;
			hi = lo + 2 * width < d->n ? lo + 2 * width : d->n;
			for (i = lo, j = mid, k = lo; k < hi; k++) {
				if (i < mid && (j >= hi || !diag_before(&src[j], &src[i])))
					dst[k] = src[i++];
				else
					dst[k] = src[j++];
			}
		}
		dst = src;
		src = src == d->v ? tmp : d->v;
	}
	if (src != d->v)
		memcpy(d->v, src, d->n * sizeof(*d->v));
	free(tmp);
	return 0;
}

int ycheck_stream(struct diags *d, const char *text, size_t len,
		  int max_depth)
{
	yaml_parser_t yp;
	yaml_event_t ev;
	int depth = 0, err = 0;
	bool done = false;

	if (!yaml_parser_initialize(&yp))
		return -ENOMEM;
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	while (!done && !err) {
		/* A syntax error: the document loader finds it again and
		 * reports it with its context. */
		if (!yaml_parser_parse(&yp, &ev))
			break;
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > max_depth) {
				diag_add(d, DIAG_ERROR, ev.start_mark.line + 1,
					 ev.start_mark.column + 1,
					 "nested more than %d levels deep; a policy needs far fewer",
					 max_depth);
				err = -EINVAL;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_ALIAS_EVENT:
			diag_add(d, DIAG_ERROR, ev.start_mark.line + 1,
				 ev.start_mark.column + 1,
				 "alias *%s: aliases are not allowed in a policy; write the value out",
				 (const char *)ev.data.alias.anchor);
			err = -EINVAL;
			break;
		case YAML_SCALAR_EVENT:
			/* "\0" in a quoted scalar: C strings would end
			 * there and quietly drop the rest. */
			if (strlen((const char *)ev.data.scalar.value) !=
			    ev.data.scalar.length) {
				diag_add(d, DIAG_ERROR, ev.start_mark.line + 1,
					 ev.start_mark.column + 1,
					 "a NUL character (\\0) in a string is not allowed; remove it");
				err = -EINVAL;
			}
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&yp);
	return err;
}

/* ---- nodes -------------------------------------------------------------- */

yaml_node_t *ynode(yaml_document_t *doc, int index)
{
	return yaml_document_get_node(doc, index);
}

const char *yscalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
		(const char *)n->data.scalar.value : NULL;
}

bool yis_plain(const yaml_node_t *n)
{
	return yscalar(n) && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

bool yis_word(const yaml_node_t *n, const char *word)
{
	return yscalar(n) && !strcmp(yscalar(n), word);
}

bool yis_null(const yaml_node_t *n)
{
	const char *s = yscalar(n);

	return yis_plain(n) && (!*s || !strcmp(s, "~") || !strcmp(s, "null") ||
				!strcmp(s, "Null") || !strcmp(s, "NULL"));
}

static bool is_bool_text(const char *s, bool *v)
{
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) {
		*v = true;
		return true;
	}
	if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) {
		*v = false;
		return true;
	}
	return false;
}

/* The base of a YAML 1.2 core schema integer ([-+]?[0-9]+, 0o[0-7]+ or
 * 0x[0-9a-fA-F]+), and in *digits where the digits after a 0o or 0x
 * begin (strtoull() reads no 0o). */
static int int_base(const char *s, const char **digits)
{
	*digits = s;
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'o'))
		return 10;
	*digits = s + 2;
	return s[1] == 'x' ? 16 : 8;
}

static bool is_int_text(const char *s)
{
	const char *d;
	int base = int_base(s, &d);

	if (base != 10) {
		if (!*d)
			return false;
		for (; *d; d++)
			if (base == 16 ? !isxdigit((unsigned char)*d) :
			    (*d < '0' || *d > '7'))
				return false;
		return true;
	}
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool yis_int(const yaml_node_t *n)
{
	return yis_plain(n) && is_int_text(yscalar(n));
}

const char *ynode_kind(const yaml_node_t *n)
{
	bool b;

	if (!n)
		return "nothing";
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_SCALAR_NODE:
		if (yis_null(n))
			return "nothing";
		if (yis_int(n))
			return "an integer";
		if (yis_plain(n) && is_bool_text(yscalar(n), &b))
			return "a boolean";
		return "a string";
	default:
		return "nothing";
	}
}

static int expected(struct diags *d, const yaml_node_t *n, const char *what)
{
	diag_node(d, DIAG_ERROR, n, "expected %s, got %s", what, ynode_kind(n));
	return -EINVAL;
}

int yget_int(struct diags *d, const yaml_node_t *n, const char *what,
	     long long *v)
{
	const char *s = yscalar(n), *digits;
	char *end;
	int base;

	if (!yis_int(n))
		return expected(d, n, what);
	base = int_base(s, &digits);
	errno = 0;
	*v = strtoll(digits, &end, base);
	if (errno || *end) {
		diag_node(d, DIAG_ERROR, n, "integer %s is too large", s);
		return -EINVAL;
	}
	return 0;
}

int yget_u64(struct diags *d, const yaml_node_t *n, const char *what,
	     unsigned long long *v)
{
	const char *s = yscalar(n), *digits;
	char *end;
	int base;

	if (!yis_int(n))
		return expected(d, n, what);
	base = int_base(s, &digits);
	if (s[0] == '-') {
		diag_node(d, DIAG_ERROR, n, "expected %s, got negative %s",
			  what, s);
		return -EINVAL;
	}
	errno = 0;
	*v = strtoull(digits, &end, base);
	if (errno || *end) {
		diag_node(d, DIAG_ERROR, n, "integer %s does not fit in 64 bits",
			  s);
		return -EINVAL;
	}
	return 0;
}

int yget_bool(struct diags *d, const yaml_node_t *n, const char *what,
	      bool *v)
{
	bool quoted;

	if (!yis_plain(n) || !is_bool_text(yscalar(n), v)) {
		/* "yes"/"on" are booleans in YAML 1.1 only: name the value so
		 * the reader sees why it was refused. A quoted "true" is a
		 * string, which reads the same: say so. */
		if (yscalar(n) && !yis_plain(n) &&
		    is_bool_text(yscalar(n), &quoted))
			diag_node(d, DIAG_ERROR, n, "expected %s, got the quoted string '%s'; write it without quotes",
				  what, yscalar(n));
		else if (yscalar(n) && !yis_null(n))
			diag_node(d, DIAG_ERROR, n, "expected %s, got '%s'",
				  what, yscalar(n));
		else
			expected(d, n, what);
		return -EINVAL;
	}
	return 0;
}

int yget_str(struct diags *d, const yaml_node_t *n, const char *what,
	     const char **v)
{
	if (!yscalar(n) || yis_null(n))
		return expected(d, n, what);
	*v = yscalar(n);
	return 0;
}

/* ---- mappings ----------------------------------------------------------- */

static const char *key_list(const char *const *keys, int n, char *buf,
			    size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				keys[i]);
	return buf;
}

/* The walk yaml_util.h describes: the outputs cleared first, so a node
 * that is not a mapping leaves them all NULL; then per pair, a key that
 * is no name, unknown or a repeat is reported and passed over (a repeat
 * names the first's line, whose value is kept); the key nodes are held
 * in kn[], which finds the repeats, and copied out at the end when the
 * caller wants them. */
int ymap_walk(struct diags *d, yaml_document_t *doc, const yaml_node_t *map,
	      const char *what, const char *const *keys, int nkeys,
	      yaml_node_t **vals, yaml_node_t **keynodes)
{
	yaml_node_t *kn[nkeys > 0 ? nkeys : 1];
	yaml_node_pair_t *p;
	const char *name, *hint;
	int i, err = 0;
	char list[256];

	for (i = 0; i < nkeys; i++) {
		vals[i] = NULL;
		kn[i] = NULL;
	}
	if (!map || map->type != YAML_MAPPING_NODE) {
		if (map)
			expected(d, map, what);
		err = -EINVAL;
		goto out;
	}
	for (p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ynode(doc, p->key);

		name = yscalar(k);
		if (!name || yis_null(k)) {
			expected(d, k, "a key name");
			err = -EINVAL;
			continue;
		}
		for (i = 0; i < nkeys; i++)
			if (!strcmp(name, keys[i]))
				break;
		if (i == nkeys) {
			/* A long key is quoted by its start: the message is
			 * for a person, and the file may be hostile. */
			int shown = strlen(name) > 48 ? 40 : 48;
			const char *more = strlen(name) > 48 ? "..." : "";

			/* Past the cap the message is only counted: spare
			 * the suggestion's cost. */
			hint = diags_full(d) ? NULL : ysuggest(name, keys, nkeys);
			if (hint)
				diag_node(d, DIAG_ERROR, k,
					  "unknown key '%.*s%s' (did you mean '%s'?)",
					  shown, name, more, hint);
			else
				diag_node(d, DIAG_ERROR, k,
					  "unknown key '%.*s%s' (valid keys: %s)",
					  shown, name, more,
					  key_list(keys, nkeys, list, sizeof(list)));
			err = -EINVAL;
			continue;
		}
		if (kn[i]) {
			diag_node(d, DIAG_ERROR, k,
				  "duplicate key '%s' (first at line %zu)",
				  name, kn[i]->start_mark.line + 1);
			err = -EINVAL;
			continue;
		}
		kn[i] = k;
		vals[i] = ynode(doc, p->value);
	}
out:
	if (keynodes)
		for (i = 0; i < nkeys; i++)
			keynodes[i] = kn[i];
	return err;
}

int edit_distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), i, j, c, v;
	int *d = calloc((la + 1) * (lb + 1), sizeof(*d));

	if (!d)
		return la > lb ? la : lb;
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (i = 0; i <= la; i++)
		D(i, 0) = i;
	for (j = 0; j <= lb; j++)
		D(0, j) = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			c = a[i - 1] != b[j - 1];
			v = D(i - 1, j - 1) + c;
			if (D(i - 1, j) + 1 < v)
				v = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	}
	v = D(la, lb);
#undef D
	free(d);
	return v;
}

const char *ysuggest(const char *word, const char *const *keys, int n)
{
	const char *best = NULL;
	int i, dist, best_dist = 0, limit;

	if (strlen(word) > YSUGGEST_MAX_LEN)
		return NULL;
	/* A third of the word, at least 1 and at most 3 edits: further away,
	 * a suggestion is a guess that misleads more than it helps. */
	limit = strlen(word) / 3;
	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	for (i = 0; i < n; i++) {
		dist = edit_distance(word, keys[i]);
		if (dist <= limit && (!best || dist < best_dist)) {
			best = keys[i];
			best_dist = dist;
		}
	}
	return best;
}
