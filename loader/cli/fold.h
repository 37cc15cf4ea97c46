/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fold.h - which per-CPU rows a text table prints on a big machine: the
 * busiest few, in CPU order, and one row for the rest (stats, status).
 * JSON and Prometheus print every CPU and never ask. Pure.
 */
#ifndef XDP_STEER_FOLD_H
#define XDP_STEER_FOLD_H

#include <stdbool.h>
#include <stddef.h>

/* Rows a table prints unless told otherwise (--top N, --all): a screen's
 * worth, so a sample of 512 CPUs stays readable. */
#define FOLD_TOP_DEFAULT	16

/* Of n rows with a load each, marks in keep[] those to print: the 'top'
 * with the most load (on a tie, the earlier row), or every row when top
 * is 0 or n <= top. Returns how many it kept. Short of memory it keeps
 * every row: a longer table, never a wrong one. */
size_t fold_top(const double *load, size_t n, size_t top, bool *keep);

#endif /* XDP_STEER_FOLD_H */
