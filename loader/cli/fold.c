// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The busiest rows of a table, the rest folded: see fold.h. */
#include <stdlib.h>

#include "cli/fold.h"

struct ranked {
	double load;
	size_t row;
};

/* Most load first; on a tie the earlier row, so the choice is stable. */
static int by_load(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->load != y->load)
		return x->load > y->load ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

size_t fold_top(const double *load, size_t n, size_t top, bool *keep)
{
	struct ranked *r;
	size_t i;

	for (i = 0; i < n; i++)
		keep[i] = true;
	if (!top || n <= top)
		return n;
	r = malloc(n * sizeof(*r));
	if (!r)
		return n;
	for (i = 0; i < n; i++) {
		r[i].load = load[i];
		r[i].row = i;
	}
	qsort(r, n, sizeof(*r), by_load);
	for (i = top; i < n; i++)
		keep[r[i].row] = false;
	free(r);
	return top;
}
