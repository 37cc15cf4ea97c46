// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The policy's rules: matches, addresses, shapes, and which rules an
 * earlier rule hides. A rule's keys are built in rule_key.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/keymap.h"
#include "policy/policy_int.h"

static const struct {
	const char *name;
	__u8 proto;
} protos[] = {
	{ "tcp", 6 }, { "udp", 17 }, { "udplite", 136 }, { "sctp", 132 },
	{ "icmp", 1 }, { "icmpv6", 58 },
};

const char *policy_proto_name(__u8 proto)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(protos); i++)
		if (protos[i].proto == proto)
			return protos[i].name;
	return NULL;
}

int policy_proto_number(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(protos); i++)
		if (!strcmp(protos[i].name, name))
			return protos[i].proto;
	return -1;
}

/* Protocols whose ports the datapath parses; others have ports zero. */
bool policy_proto_has_ports(__u8 proto)
{
	return proto == 6 || proto == 17 || proto == 136 || proto == 132;
}

/* ---- addresses ---------------------------------------------------------- */

/* Whether 'addr' lies in the prefix pfx/len. */
static bool addr_in_prefix(const __u32 *addr, const __u32 *pfx, int bytes,
			   int len)
{
	__u32 a[4];

	memcpy(a, addr, sizeof(a));
	policy_addr_mask(a, bytes, len);
	return !memcmp(a, pfx, bytes);
}

/* ADDR or ADDR/LEN into addr[] (network order), *len and *family. */
static int get_prefix(struct pctx *c, const yaml_node_t *n, const char *name,
		      __u32 *addr, __u8 *len, __u8 *family)
{
	char buf[INET6_ADDRSTRLEN + 8], what[64], out[INET6_ADDRSTRLEN];
	const char *s, *slash;
	__u32 masked[4];
	int bits, af, l;
	char *end;
	long pl;

	snprintf(what, sizeof(what), "an address for %s", name);
	if (yget_str(c->d, n, what, &s))
		return -EINVAL;
	slash = strchr(s, '/');
	l = slash ? slash - s : (int)strlen(s);
	if (l >= (int)sizeof(buf))
		goto bad;
	memcpy(buf, s, l);
	buf[l] = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1) {
		af = AF_INET;
		bits = 32;
		*family = STEER_AF_INET;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		af = AF_INET6;
		bits = 128;
		*family = STEER_AF_INET6;
	} else {
		goto bad;
	}
	pl = bits;
	if (slash) {
		errno = 0;
		pl = strtol(slash + 1, &end, 10);
		if (!slash[1] || *end || slash[1] < '0' || slash[1] > '9' ||
		    errno)
			goto bad;
		if (pl > bits) {
			ERR(c, n, "prefix length %ld is out of range 0-%d for %s",
			    pl, bits, af == AF_INET ? "IPv4" : "IPv6");
			return -EINVAL;
		}
	}
	memcpy(masked, addr, sizeof(masked));
	policy_addr_mask(masked, bits / 8, pl);
	if (memcmp(masked, addr, bits / 8)) {
		inet_ntop(af, masked, out, sizeof(out));
		ERR(c, n, "%s has host bits set; did you mean %s/%ld?", s, out,
		    pl);
		return -EINVAL;
	}
	*len = pl;
	return 0;
bad:
	ERR(c, n, "bad address '%s' for %s (expected an IPv4 or IPv6 address, optionally /LEN)",
	    s, name);
	return -EINVAL;
}

/* ---- rules -------------------------------------------------------------- */

enum { M_PROTO, M_SRC, M_DST, M_SPORT, M_DPORT, M_N };
static const char *const match_keys[M_N] = {
	"proto", "src", "dst", "src_port", "dst_port",
};

static int get_proto(struct pctx *c, const yaml_node_t *n, __u8 *proto)
{
	const char *names[ARRAY_LEN(protos)], *s = yscalar(n), *hint;
	long long v;
	size_t i;

	if (yis_int(n)) {
		if (pol_get_ranged(c, n, "proto", 0, 255, &v))
			return -EINVAL;
		*proto = v;
		return 0;
	}
	for (i = 0; i < ARRAY_LEN(protos); i++) {
		names[i] = protos[i].name;
		if (yis_word(n, names[i])) {
			*proto = protos[i].proto;
			return 0;
		}
	}
	if (!s || yis_null(n)) {
		ERR(c, n, "expected a protocol for proto, got %s", ynode_kind(n));
		return -EINVAL;
	}
	hint = ysuggest(s, names, ARRAY_LEN(names));
	if (hint)
		ERR(c, n, "unknown protocol '%s' (did you mean '%s'?)", s, hint);
	else
		ERR(c, n, "unknown protocol '%s' (use tcp, udp, udplite, sctp, icmp, icmpv6 or a number 0-255)",
		    s);
	return -EINVAL;
}

/* "proto, src prefix, dst_port": the fields of a shape, for messages. */
static const char *fields_str(__u32 shape, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < M_N && off < len; i++)
		if (shape & (1u << i))
			off += snprintf(buf + off, len - off, "%s%s%s",
					off ? ", " : "", match_keys[i],
					(i == M_SRC && (shape & STEER_M_PREFIX_SRC)) ||
					(i == M_DST && (shape & STEER_M_PREFIX_DST)) ?
					" prefix" : "");
	return buf;
}

/* The match of a rule: fields, values, prefix or exact kind. */
static int get_match(struct pctx *c, const yaml_node_t *n,
		     struct policy_rule *r)
{
	yaml_node_t *v[M_N];
	long long port;
	int err, i;

	err = ymap_walk(c->d, c->doc, n, "a match of flow fields", match_keys,
			M_N, v, NULL);
	if (n->type != YAML_MAPPING_NODE)
		return err;
	for (i = 0; i < M_N; i++)
		if (v[i])
			r->fields |= 1u << i;
	/* STEER_M_* follow match_keys[] order; keep it that way. */
	_Static_assert(STEER_M_PROTO == 1 << M_PROTO && STEER_M_SRC == 1 << M_SRC &&
		       STEER_M_DST == 1 << M_DST && STEER_M_SPORT == 1 << M_SPORT &&
		       STEER_M_DPORT == 1 << M_DPORT, "match_keys order");
	if (!r->fields) {
		if (!err)
			ERR(c, n, "empty match would catch every flow; drop the rule and list its CPUs in 'cpus'");
		return -EINVAL;
	}
	if (v[M_PROTO] && get_proto(c, v[M_PROTO], &r->flow.proto))
		err = -EINVAL;
	if (v[M_SRC] && get_prefix(c, v[M_SRC], "src", r->flow.src, &r->src_len,
				   &r->flow.family))
		err = -EINVAL;
	if (v[M_DST]) {
		__u8 fam = 0;

		if (get_prefix(c, v[M_DST], "dst", r->flow.dst, &r->dst_len,
			       &fam)) {
			err = -EINVAL;
		} else if (r->flow.family && fam != r->flow.family) {
			ERR(c, v[M_DST], "src is IPv%d but dst is IPv%d; a flow has one family",
			    r->flow.family, fam);
			err = -EINVAL;
		}
		r->flow.family = fam;
	}
	for (i = M_SPORT; i <= M_DPORT; i++) {
		if (!v[i])
			continue;
		if (pol_get_ranged(c, v[i], match_keys[i], 1, 65535, &port)) {
			err = -EINVAL;
			continue;
		}
		if (i == M_SPORT)
			r->flow.sport = htons(port);
		else
			r->flow.dport = htons(port);
		if (v[M_PROTO] && !err && !policy_proto_has_ports(r->flow.proto)) {
			ERR(c, v[i], "proto %s has no ports, so a rule with %s never matches",
			    yscalar(v[M_PROTO]), match_keys[i]);
			err = -EINVAL;
		}
	}
	if (err)
		return err;

	r->shape = r->fields;
	for (i = M_SRC; i <= M_DST; i++) {
		int full = r->flow.family == STEER_AF_INET ? 32 : 128;
		int len = i == M_SRC ? r->src_len : r->dst_len;

		if (!v[i] || len == full)
			continue;
		if (r->shape & STEER_M_PREFIX) {
			ERR(c, v[i], "src %s and dst %s are both prefixes; a rule matches at most one address by prefix, the other must be a full address",
			    yscalar(v[M_SRC]), yscalar(v[M_DST]));
			return -EINVAL;
		}
		r->shape |= i == M_SRC ? STEER_M_PREFIX_SRC : STEER_M_PREFIX_DST;
	}
	return 0;
}

/* Adds a rule's shape (and, in symmetric mode, its mirror's) to the
 * policy's shapes. */
static int add_shape(struct pctx *c, const yaml_node_t *n, int idx,
		     __u32 shape)
{
	struct steer_policy *p = c->p;
	__u32 want[2] = { shape, policy_shape_mirror(shape) };
	int i, j, nwant = p->symmetric && want[1] != shape ? 2 : 1;
	char fs[64];

	for (j = 0; j < nwant; j++) {
		for (i = 0; i < p->nshapes; i++)
			if (p->shapes[i] == want[j])
				break;
		if (i < p->nshapes)
			continue;
		if (p->nshapes == STEER_MAX_SHAPES) {
			ERR(c, n, "rule %d brings a %dth set of match fields (%s%s); at most %d sets are allowed, as each costs a lookup per packet",
			    idx + 1, STEER_MAX_SHAPES + 1,
			    fields_str(want[j], fs, sizeof(fs)),
			    j ? ", the mirror symmetric hashing adds" : "",
			    STEER_MAX_SHAPES);
			return -EINVAL;
		}
		p->shapes[p->nshapes++] = want[j];
	}
	return 0;
}

/*
 * Rule 'idx' (from 0) at node 'n' into *r: its 'match' (get_match()), its
 * target, exactly one of 'cpu: N' and 'cpus: [...]', and its shape added
 * to the policy's (add_shape(), only for a rule without a mistake). A
 * missing 'match' or target is reported only when nothing read before it
 * has a mistake: after a misspelt key it is no news. A CPU set's
 * weights count toward c->rule_cpus, the entries all rules' sets take in
 * the datapath, refused past STEER_RULE_CPUS_MAX. Returns 0, -EINVAL
 * (reported) or -ENOMEM; r->cpus is the caller's to free either way.
 */
static int get_rule(struct pctx *c, const yaml_node_t *n, int idx,
		    struct policy_rule *r)
{
	static const char *const keys[] = { "match", "cpu", "cpus" };
	yaml_node_t *v[3], *k[3];
	int err, i;

	r->line = n->start_mark.line + 1;
	r->col = n->start_mark.column + 1;
	err = ymap_walk(c->d, c->doc, n, "a rule ({match: ..., cpu: N})", keys,
			3, v, k);
	if (n->type != YAML_MAPPING_NODE)
		return err;
	/* After an unknown key (a misspelt 'match' or 'cpu'?) a missing key
	 * is no news: say nothing more about it. */
	if (!v[0]) {
		if (!err)
			ERR(c, n, "rule %d has no 'match'", idx + 1);
		err = -EINVAL;
	} else if (get_match(c, v[0], r)) {
		err = -EINVAL;
	}
	if (v[1] && v[2]) {
		ERR(c, k[2], "a rule takes 'cpu' or 'cpus', not both");
		return -EINVAL;
	}
	if (!v[1] && !v[2]) {
		if (err)
			return err;
		ERR(c, n, "rule %d has no target; give it 'cpu: N' or 'cpus: [...]'",
		    idx + 1);
		return -EINVAL;
	}
	if (v[1]) {
		r->cpus.v = calloc(1, sizeof(*r->cpus.v));
		if (!r->cpus.v)
			return -ENOMEM;
		if (pol_get_cpu(c, v[1], &r->cpus.v[0].cpu))
			return -EINVAL;
		r->cpus.v[0].weight = 1;
		r->cpus.n = 1;
	} else {
		int e = pol_get_cpu_list(c, v[2], &r->cpus);

		if (e)
			return e;
		/* The datapath spreads a set by repeating each CPU 'weight'
		 * times in rule_cpus; a set of one is that CPU, no entry. */
		long long before = c->rule_cpus;

		for (i = 0; r->cpus.n > 1 && i < r->cpus.n; i++)
			c->rule_cpus += r->cpus.v[i].weight;
		/* Said once, at the rule that overflows: every later one
		 * with a set is refused too, but says nothing new. */
		if (c->rule_cpus > STEER_RULE_CPUS_MAX) {
			if (before <= STEER_RULE_CPUS_MAX)
				ERR(c, v[2], "rule CPU sets need %lld entries counting weights, more than the %d the datapath holds; use fewer CPUs or smaller weights in rule sets",
				    c->rule_cpus, STEER_RULE_CPUS_MAX);
			return -EINVAL;
		}
	}
	if (!err)
		err = add_shape(c, v[0], idx, r->shape);
	return err;
}

/* Every flow 'b' matches, 'a' matches too. */
static bool rule_covers(const struct policy_rule *a, const struct policy_rule *b)
{
	const struct steer_flow *x = &a->flow, *y = &b->flow;
	int bytes = x->family == STEER_AF_INET ? 4 : 16;

	if (a->fields & ~b->fields)
		return false;
	if ((a->fields & STEER_M_PROTO) && x->proto != y->proto)
		return false;
	if ((a->fields & STEER_M_SPORT) && x->sport != y->sport)
		return false;
	if ((a->fields & STEER_M_DPORT) && x->dport != y->dport)
		return false;
	if ((a->fields & (STEER_M_SRC | STEER_M_DST)) && x->family != y->family)
		return false;
	if ((a->fields & STEER_M_SRC) &&
	    (a->src_len > b->src_len ||
	     !addr_in_prefix(y->src, x->src, bytes, a->src_len)))
		return false;
	if ((a->fields & STEER_M_DST) &&
	    (a->dst_len > b->dst_len ||
	     !addr_in_prefix(y->dst, x->dst, bytes, a->dst_len)))
		return false;
	return true;
}

/*
 * Finding the first earlier rule that covers each rule without comparing
 * every pair (16384 rules would take seconds): an earlier rule A covers B
 * only if B cut to A's shape and prefix length (policy_rule_key) equals
 * A's own key. So each rule is entered under its key, and each rule looks
 * up its own cuts to the shapes and (per shape and family) prefix lengths
 * seen so far.
 */
struct shadow {
	struct keymap keys;
	__u32 shapes[STEER_MAX_SHAPES];	/* shapes entered so far */
	bool lens[STEER_MAX_SHAPES][2][129]; /* [shape][IPv6][len] entered */
	int nshapes;
};

static int shape_index(struct shadow *m, __u32 shape)
{
	int i;

	for (i = 0; i < m->nshapes; i++)
		if (m->shapes[i] == shape)
			return i;
	return -1;
}

/* Could a rule of shape 's' cover 'b' at all: s's fields are b's, and an
 * address s matches in full is a full address in b. */
static bool shape_fits(__u32 s, const struct policy_rule *b)
{
	int full = b->flow.family == STEER_AF_INET ? 32 : 128;

	if ((s & STEER_M_ALL) & ~b->fields)
		return false;
	if ((s & STEER_M_SRC) && !(s & STEER_M_PREFIX_SRC) && b->src_len != full)
		return false;
	if ((s & STEER_M_DST) && !(s & STEER_M_PREFIX_DST) && b->dst_len != full)
		return false;
	return true;
}

/* The earliest rule before 'b' that covers it, or -1; as entered by
 * shadow_add() (see check_shadowed()). */
static int shadow_find(const struct shadow *m, const struct policy_rule *b)
{
	bool v6 = b->flow.family == STEER_AF_INET6;
	struct steer_prefix_key k;
	int i, len, maxlen, r, first = -1;
	__u32 s;

	for (i = 0; i < m->nshapes; i++) {
		s = m->shapes[i];
		if (!shape_fits(s, b))
			continue;
		if (!(s & STEER_M_PREFIX)) {
			policy_rule_key(b, s, 0, &k);
			r = keymap_get(&m->keys, &k);
			if (r >= 0 && (first < 0 || r < first))
				first = r;
			continue;
		}
		maxlen = (s & STEER_M_PREFIX_SRC) ? b->src_len : b->dst_len;
		for (len = 0; len <= maxlen; len++) {
			if (!m->lens[i][v6][len])
				continue;
			policy_rule_key(b, s, len, &k);
			r = keymap_get(&m->keys, &k);
			if (r >= 0 && (first < 0 || r < first))
				first = r;
		}
	}
	return first;
}

static void shadow_add(struct shadow *m, const struct policy_rule *r, int idx)
{
	int len = (r->shape & STEER_M_PREFIX_SRC) ? r->src_len : r->dst_len;
	struct steer_prefix_key k;
	int i = shape_index(m, r->shape);

	if (i < 0) {
		if (m->nshapes == STEER_MAX_SHAPES)
			return;	/* reported by the parser as too many */
		i = m->nshapes;
		m->shapes[m->nshapes++] = r->shape;
	}
	if (r->shape & STEER_M_PREFIX)
		m->lens[i][r->flow.family == STEER_AF_INET6][len] = true;
	policy_rule_key(r, r->shape, len, &k);
	keymap_put_min(&m->keys, &k, idx);
}

/*
 * Warns about rules that an earlier rule hides entirely. Under
 * hash.symmetric the datapath holds each rule's mirror too, under the
 * rule's own number, so an earlier rule's mirror hides a later rule as
 * well (and hides its mirror with it: coverage survives mirroring both).
 * Entered as 2 x rule, + 1 for a mirror: the earliest rule first, the
 * rule before its mirror.
 */
static int check_shadowed(struct pctx *c, const bool *ok)
{
	const struct steer_policy *p = c->p;
	struct policy_rule mirror;
	struct shadow *m;
	int i, j;

	m = calloc(1, sizeof(*m));
	if (!m || keymap_init(&m->keys, sizeof(struct steer_prefix_key),
			      2 * (size_t)p->nrules)) {
		free(m);
		return -ENOMEM;
	}
	for (j = 0; j < p->nrules; j++) {
		const struct policy_rule *a, *b = &p->rules[j];
		const char *of;

		if (!ok[j])
			continue;
		i = shadow_find(m, b);
		shadow_add(m, b, 2 * j);
		if (p->symmetric) {
			policy_rule_mirror(b, &mirror);
			shadow_add(m, &mirror, 2 * j + 1);
		}
		if (i < 0)
			continue;
		a = &p->rules[i / 2];
		of = "";
		if (i & 1) {
			policy_rule_mirror(a, &mirror);
			a = &mirror;
			of = "the mirror (hash.symmetric) of ";
		}
		if (rule_covers(b, a))
			diag_add(c->d, DIAG_WARNING, b->line, b->col,
				 "rule %d duplicates %srule %d (line %d); it never matches",
				 j + 1, of, i / 2 + 1, a->line);
		else
			diag_add(c->d, DIAG_WARNING, b->line, b->col,
				 "rule %d is shadowed by %srule %d (line %d), which matches all its flows; it never matches",
				 j + 1, of, i / 2 + 1, a->line);
	}
	keymap_free(&m->keys);
	free(m);
	return 0;
}

/* Counts the map entries rule 'idx' takes: one in flow_rules or in
 * prefix_rules by its kind, and under hash.symmetric one more there for
 * its mirror (a bound: a mirror the same as a rule is stored once). Each
 * map holds STEER_MAX_RULES entries a slot, and an apply fills one slot
 * while the other is in force; the first rule past a kind's room is an
 * error, said once. */
static int count_entries(struct pctx *c, const yaml_node_t *n, int idx,
			 const struct policy_rule *r, int used[2])
{
	int prefix = policy_rule_is_prefix(r), each = c->p->symmetric ? 2 : 1;

	used[prefix] += each;
	if (used[prefix] <= STEER_MAX_RULES)
		return 0;
	if (used[prefix] - each <= STEER_MAX_RULES)
		ERR(c, n, "rule %d is one %s rule too many: at most %d fit%s; use fewer, or %s rules for some",
		    idx + 1, prefix ? "prefix" : "exact-field",
		    STEER_MAX_RULES / each,
		    each > 1 ? " under hash.symmetric, which stores each rule twice (itself and its mirror)" : "",
		    prefix ? "exact-field" : "prefix");
	return -EINVAL;
}

int pol_get_rules(struct pctx *c, const yaml_node_t *n)
{
	struct steer_policy *p = c->p;
	yaml_node_item_t *it;
	int err = 0, e, i, used[2] = { 0, 0 };
	bool *ok;

	if (n->type != YAML_SEQUENCE_NODE && !yis_null(n)) {
		ERR(c, n, "expected a list of rules, got %s", ynode_kind(n));
		return -EINVAL;
	}
	if (yis_null(n) ||
	    n->data.sequence.items.start == n->data.sequence.items.top) {
		ERR(c, n, "empty rules; list at least one rule or remove 'rules'");
		return -EINVAL;
	}
	p->nrules = n->data.sequence.items.top - n->data.sequence.items.start;
	p->rules = calloc(p->nrules, sizeof(*p->rules));
	ok = calloc(p->nrules, sizeof(*ok));
	if (!p->rules || !ok) {
		free(ok);
		return -ENOMEM;
	}
	for (i = 0, it = n->data.sequence.items.start; i < p->nrules; i++, it++) {
		const yaml_node_t *r = ynode(c->doc, *it);

		if (i == 2 * STEER_MAX_RULES) {
			ERR(c, r, "rule %d is one too many; at most %d rules are allowed (%d of each kind, exact-field and prefix)",
			    i + 1, 2 * STEER_MAX_RULES, STEER_MAX_RULES);
			err = -EINVAL;
			break;
		}
		e = get_rule(c, r, i, &p->rules[i]);
		if (e == -ENOMEM) {
			free(ok);
			return e;
		}
		if (!e)
			e = count_entries(c, r, i, &p->rules[i], used);
		ok[i] = !e;
		if (e)
			err = e;
	}
	e = check_shadowed(c, ok);
	free(ok);
	return e ? e : err;
}

