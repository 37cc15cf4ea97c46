// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `xdp-steer stats` as rate and total tables, and as JSON: see
 * print_stats.h. */
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/fold.h"
#include "cli/json.h"
#include "cli/print_stats.h"
#include "model/cpulist.h"

/* Names and offsets of struct steer_stats, from its one list. */
static const struct {
	const char *name;
	size_t off;
} fields[] = {
#define FIELD_(name, kind, help) { #name, offsetof(struct steer_stats, name) },
	STEER_STATS_FIELDS(FIELD_)
#undef FIELD_
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static __u64 field(const struct steer_stats *s, size_t i)
{
	return *(const __u64 *)((const char *)s + fields[i].off);
}

/* The tracepoint counters of a worker as JSON members, or null when they
 * are not counted. */
static void json_traced(const struct steer_worker_view *v, bool traced)
{
#define RING_(name, help)						\
	if (traced)							\
		printf(", \"%s\": %llu", #name,				\
		       (unsigned long long)v->ring.name);		\
	else								\
		printf(", \"%s\": null", #name);
	STEER_RING_FIELDS(RING_)
#undef RING_
#define KTHREAD_(name, help)						\
	if (traced)							\
		printf(", \"kthread_%s\": %llu", #name,			\
		       (unsigned long long)v->kthread.name);		\
	else								\
		printf(", \"kthread_%s\": null", #name);
	STEER_KTHREAD_FIELDS(KTHREAD_)
#undef KTHREAD_
	if (traced)
		printf(", \"in_flight\": %lld", (long long)v->in_flight);
	else
		printf(", \"in_flight\": null");
}

/* Every worker's load (steer_worker_view), summed: shares are of it. */
static double total_load(const struct steer_sample *s)
{
	struct steer_worker_view v;
	double sum = 0;
	int c;

	for (c = 0; c < STEER_CPU_IDS; c++)
		if (steer_worker_view(s, c, &v))
			sum += v.load;
	return sum;
}

void print_stats_json(const char *ifname, const struct steer_sample *s)
{
	struct steer_worker_view v;
	double all = total_load(s);
	struct timespec now;
	size_t i;
	int c, first;

	clock_gettime(CLOCK_REALTIME, &now);
	printf("{\"ifname\": ");
	json_str(stdout, ifname);
	printf(", \"time\": %.3f, \"totals\": {",
	       now.tv_sec + now.tv_nsec / 1e9);
	for (i = 0; i < NFIELDS; i++)
		printf("%s\"%s\": %llu", i ? ", " : "", fields[i].name,
		       (unsigned long long)field(&s->total, i));
	printf("}, \"steering\": %s, \"cpumap_trace\": %s, \"rx_cpus\": [",
	       s->steering ? "true" : "false", s->traced ? "true" : "false");
	for (c = 0, first = 1; c < s->ncpus; c++) {
		if (!s->rx[c].rx_packets)
			continue;
		printf("%s{\"cpu\": %d", first ? "" : ", ", c);
		for (i = 0; i < NFIELDS; i++)
			printf(", \"%s\": %llu", fields[i].name,
			       (unsigned long long)field(&s->rx[c], i));
		printf("}");
		first = 0;
	}
	printf("], \"workers\": [");
	for (c = 0, first = 1; c < STEER_CPU_IDS; c++) {
		if (!steer_worker_view(s, c, &v))
			continue;
		/* The first four as before the tracepoint counters, in this
		 * order (tests/vm/check-kernel.sh reads them so); queued_*
		 * are what went toward the CPU, passed there included, as
		 * they always were. */
		printf("%s{\"cpu\": %d, \"queued_packets\": %llu, \"queued_bytes\": %llu, \"dequeued_packets\": %llu, \"dequeued_bytes\": %llu, \"sent_packets\": %llu",
		       first ? "" : ", ", c,
		       (unsigned long long)v.toward,
		       (unsigned long long)v.toward_bytes,
		       (unsigned long long)v.delivered,
		       (unsigned long long)v.delivered_bytes,
		       (unsigned long long)v.sent);
		json_traced(&v, s->traced);
		printf(", \"load\": %.0f, \"load_share\": %.4f", v.load,
		       all > 0 ? v.load / all : 0);
		printf("}");
		first = 0;
	}
	printf("]}\n");
}

/* Per second over dt, or with dt 0 the count itself (totals). */
static double per(__u64 now, __u64 before, double dt)
{
	if (now < before)
		return 0;
	return dt > 0 ? (now - before) / dt : (double)(now - before);
}

/* A row of a per-CPU table: its CPU, what ranks it (its frames, its
 * load), its columns as rates or counts. The receiving CPUs' table has
 * RX_COLS of them; a worker's are named (those of the cpumap tracepoints
 * only when traced). */
#define RX_COLS 6

struct row {
	__u32 cpu;
	double load;
	union {
		double rx[RX_COLS];
		struct {
			double sent, ring, delivered, mbit, share, off,
			       enqueued, kthread, in_flight;
		} w;
		double col[9];
	};
};

#define ROW_COLS (sizeof(((struct row *)0)->col) / sizeof(double))

typedef void (*row_print)(const char *pad, const char *label,
			  const struct row *r, bool traced);

/* The rows, in CPU order: the 'top' with the most load (0: all), the
 * others summed in one row that says how many, and after its last column
 * which CPUs, as ranges. */
static void print_rows(const char *pad, const struct row *rows, size_t n,
		       size_t top, bool traced, row_print print)
{
	struct row rest = {};
	size_t nfolded = 0, i, j;
	__u32 *folded = NULL;
	double *load = NULL;
	bool *keep = NULL;
	char label[32], list[80];

	if (top && n > top) {
		load = calloc(n, sizeof(*load));
		keep = calloc(n, sizeof(*keep));
		folded = calloc(n, sizeof(*folded));
	}
	/* Short of memory, every row: longer, never wrong. */
	if (!load || !keep || !folded) {
		free(keep);
		keep = NULL;
	} else {
		for (i = 0; i < n; i++)
			load[i] = rows[i].load;
		fold_top(load, n, top, keep);
	}
	for (i = 0; i < n; i++) {
		if (keep && !keep[i]) {
			folded[nfolded++] = rows[i].cpu;
			for (j = 0; j < ROW_COLS; j++)
				rest.col[j] += rows[i].col[j];
			continue;
		}
		snprintf(label, sizeof(label), "%u", rows[i].cpu);
		print(pad, label, &rows[i], traced);
		printf("\n");
	}
	if (nfolded) {
		snprintf(label, sizeof(label), "%zu more", nfolded);
		print(pad, label, &rest, traced);
		cpulist_format(folded, nfolded, list, sizeof(list));
		printf("  CPUs %s\n", list);
	}
	free(load);
	free(keep);
	free(folded);
}

/* The receiving CPUs' columns between x and y, per second over dt (or
 * counts, dt 0). */
static void rx_cols(const struct steer_stats *x, const struct steer_stats *y,
		    double dt, struct row *r)
{
	r->rx[0] = per(y->rx_packets, x->rx_packets, dt);
	r->rx[1] = per(y->redirected, x->redirected, dt);
	r->rx[2] = per(y->passed_local, x->passed_local, dt);
	r->rx[3] = per(y->passed_nonip, x->passed_nonip, dt);
	r->rx[4] = per(y->passed_parse_error, x->passed_parse_error, dt);
	r->rx[5] = per(y->passed_no_target + y->passed_no_policy,
		       x->passed_no_target + x->passed_no_policy, dt);
	r->load = r->rx[0];
}

static void rx_row(const char *pad, const char *label, const struct row *r,
		   bool traced)
{
	(void)traced;
	printf("%s  %-10s %12.0f %12.0f %12.0f %10.0f %10.0f %10.0f", pad,
	       label, r->rx[0], r->rx[1], r->rx[2], r->rx[3], r->rx[4],
	       r->rx[5]);
}

/* The receiving CPUs' table: rates between a and b, or with a NULL the
 * counts of b since the attach; the 'top' busiest CPUs (0: all), the
 * others summed in one row. */
static void rx_table(const char *ifname, const char *pad,
		     const struct steer_sample *a, const struct steer_sample *b,
		     size_t top)
{
	static const struct steer_stats zero;
	double dt = a ? b->t - a->t : 0;
	struct row *rows = calloc((size_t)b->ncpus, sizeof(*rows)), one;
	size_t n = 0;
	int c;

	if (a)
		printf("%s  %-10s %12s %12s %12s %10s %10s %10s\n", ifname,
		       "rx CPU", "rx pps", "redirect/s", "local/s",
		       "non-IP/s", "errors/s", "fallback/s");
	else
		printf("%s  %-10s %12s %12s %12s %10s %10s %10s\n", ifname,
		       "rx CPU", "rx", "redirected", "local", "non-IP",
		       "errors", "fallback");
	for (c = 0; c < b->ncpus; c++) {
		if (b->rx[c].rx_packets == (a ? a->rx[c].rx_packets : 0))
			continue;
		one = (struct row){ .cpu = c };
		rx_cols(a ? &a->rx[c] : &zero, &b->rx[c], dt, &one);
		if (rows)
			rows[n++] = one;
		else	/* short of memory: every row, as it comes */
			print_rows(pad, &one, 1, 0, false, rx_row);
	}
	print_rows(pad, rows, n, top, false, rx_row);
	free(rows);
	one = (struct row){};
	rx_cols(a ? &a->total : &zero, &b->total, dt, &one);
	rx_row(pad, "total", &one, false);
	printf("\n");
}

/* Frames of each encapsulation looked through and malformed ones, between
 * a and b (per second) or, a NULL, since the attach: one line, or none
 * when there were none. */
static void encap_line(const char *pad, const struct steer_sample *a,
		       const struct steer_sample *b)
{
	static const struct steer_stats zero;
	const struct steer_stats *x = a ? &a->total : &zero, *y = &b->total;
	double dt = a ? b->t - a->t : 0;
	char line[512];
	size_t off = 0;

#define ENCAP_(A, ID, name, port, help)					\
	if (y->encap_##name != x->encap_##name && off < sizeof(line))	\
		off += snprintf(line + off, sizeof(line) - off, "%s%s %.0f", \
				off ? ", " : "", #name,			\
				per(y->encap_##name, x->encap_##name, dt));
	STEER_ENCAPS(ENCAP_, )
	ENCAP_(, MALFORMED, malformed, 0, "")
#undef ENCAP_
	if (off)
		printf("%s  %-10s %s %s\n", pad, "tunnels", line,
		       a ? "frames/s" : "frames");
}

/* Frames with an IP header whose later headers were cut short or
 * malformed, steered by what was read (a tunnel look-alike, a short
 * transport header): one line, or none when there were none. */
static void partial_line(const char *pad, const struct steer_sample *a,
			 const struct steer_sample *b)
{
	__u64 before = a ? a->total.parsed_partial : 0;
	double dt = a ? b->t - a->t : 0;

	if (b->total.parsed_partial != before)
		printf("%s  %-10s %.0f %s steered by what was read of them (headers cut short or malformed)\n",
		       pad, "partial", per(b->total.parsed_partial, before, dt),
		       a ? "frames/s" : "frames");
	before = a ? a->total.key_id_fallback : 0;
	if (b->total.key_id_fallback != before)
		printf("%s  %-10s %.0f %s the policy's id hash.key did not apply to (no VLAN tag, tunnel id or ports), hashed as l4\n",
		       pad, "key", per(b->total.key_id_fallback, before, dt),
		       a ? "frames/s" : "frames");
}

static void rate_row(const char *pad, const char *label, const struct row *r,
		     bool traced)
{
	char ring[32], off[32];

	snprintf(ring, sizeof(ring), traced ? "%.0f" : "-", r->w.ring);
	snprintf(off, sizeof(off), traced ? "%.0f" : "-", r->w.off);
	printf("%s  %-10s %12.0f %12s %13.0f %12.1f %7.1f %11s", pad, label,
	       r->w.sent, ring, r->w.delivered, r->w.mbit, r->w.share, off);
}

void print_stats_rates(const char *ifname, const struct steer_sample *a,
		       const struct steer_sample *b, size_t top)
{
	struct steer_worker_view va, vb;
	double dt = b->t - a->t, load = total_load(b) - total_load(a);
	struct row *rows = calloc(STEER_CPU_IDS, sizeof(*rows)), one;
	size_t n = 0;
	char pad[64];

	snprintf(pad, sizeof(pad), "%*s", (int)strlen(ifname), "");
	rx_table(ifname, pad, a, b, top);
	encap_line(pad, a, b);
	partial_line(pad, a, b);
	printf("%s  %-10s %12s %12s %13s %12s %7s %11s\n", pad, "worker CPU",
	       "sent pps", "ring full/s", "delivered pps", "Mbit/s", "load %",
	       "off CPU/s");
	for (int c = 0; c < STEER_CPU_IDS; c++) {
		steer_worker_view(a, c, &va);
		steer_worker_view(b, c, &vb);
		if (vb.sent == va.sent && vb.delivered == va.delivered &&
		    vb.ring.ring_full_drops == va.ring.ring_full_drops &&
		    vb.ring.off_cpu == va.ring.off_cpu && vb.load == va.load)
			continue;
		one = (struct row){ .cpu = c, .load = vb.load - va.load };
		one.w.sent = per(vb.sent, va.sent, dt);
		one.w.ring = per(vb.ring.ring_full_drops,
				 va.ring.ring_full_drops, dt);
		one.w.delivered = per(vb.delivered, va.delivered, dt);
		one.w.mbit = per(vb.delivered_bytes, va.delivered_bytes, dt) *
			     8 / 1e6;
		one.w.share = load > 0 ? 100 * (vb.load - va.load) / load : 0;
		one.w.off = per(vb.ring.off_cpu, va.ring.off_cpu, dt);
		if (rows)
			rows[n++] = one;
		else	/* short of memory: every row, as it comes */
			print_rows(pad, &one, 1, 0, b->traced, rate_row);
	}
	print_rows(pad, rows, n, top, b->traced, rate_row);
	free(rows);
	printf("\n");
	fflush(stdout);
}

static void total_row(const char *pad, const char *label,
		      const struct row *r, bool traced)
{
	if (traced)
		printf("%s  %-10s %12.0f %12.0f %12.0f %12.0f %12.0f %12.0f %12.0f",
		       pad, label, r->w.sent, r->w.enqueued, r->w.ring,
		       r->w.kthread, r->w.delivered, r->w.in_flight, r->w.off);
	else
		printf("%s  %-10s %12.0f %12s %12s %12s %12.0f %12s %12s",
		       pad, label, r->w.sent, "-", "-", "-", r->w.delivered,
		       "-", "-");
}

void print_stats_totals(const char *ifname, const struct steer_sample *s,
			size_t top)
{
	struct row *rows = calloc(STEER_CPU_IDS, sizeof(*rows)), one;
	struct steer_worker_view v;
	size_t n = 0;
	char pad[64];
	int c;

	snprintf(pad, sizeof(pad), "%*s", (int)strlen(ifname), "");
	rx_table(ifname, pad, NULL, s, top);
	encap_line(pad, NULL, s);
	partial_line(pad, NULL, s);
	printf("%s  %-10s %12s %12s %12s %12s %12s %12s %12s\n", pad,
	       "worker CPU", "sent", "enqueued", "ring full", "kthread",
	       "delivered", "in flight", "off CPU");
	for (c = 0; c < STEER_CPU_IDS; c++) {
		if (!steer_worker_view(s, c, &v))
			continue;
		one = (struct row){ .cpu = c, .load = v.load };
		one.w.sent = v.sent;
		one.w.enqueued = v.ring.enqueued;
		one.w.ring = v.ring.ring_full_drops;
		one.w.kthread = v.kthread.processed;
		one.w.delivered = v.delivered;
		one.w.in_flight = v.in_flight;
		one.w.off = v.ring.off_cpu;
		if (rows)
			rows[n++] = one;
		else	/* short of memory: every row, as it comes */
			print_rows(pad, &one, 1, 0, s->traced, total_row);
	}
	print_rows(pad, rows, n, top, s->traced, total_row);
	free(rows);
	if (s->traced)
		printf("%s  sent = delivered + ring full + in flight; kthread: taken off the ring by the worker's cpumap kthread; off CPU: of those, by its kthread running on another CPU\n",
		       pad);
	else
		printf("%s  ring counters unknown: the cpumap tracepoint programs are not pinned (an 'xdp-steer apply' pins them)\n",
		       pad);
}
