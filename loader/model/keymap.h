/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * keymap.h - a hash map from fixed-size byte keys to the smallest
 * non-negative int stored under each: "the earliest rule with this key".
 * Open addressing, sized once for the most keys it will hold, so inserting
 * never fails and the policy compiler and checker stay O(n) in the rules.
 */
#ifndef XDP_STEER_KEYMAP_H
#define XDP_STEER_KEYMAP_H

#include <stddef.h>

struct keymap {
	size_t key_size;
	size_t mask;		/* slots - 1, a power of two */
	unsigned char *keys;
	int *vals;		/* -1: slot free */
};

/* Room for 'max_keys' keys of 'key_size' bytes. 0 or -ENOMEM. */
int keymap_init(struct keymap *m, size_t key_size, size_t max_keys);
void keymap_free(struct keymap *m);

/* The value stored under 'key', or -1. */
int keymap_get(const struct keymap *m, const void *key);

/* Stores 'v' (>= 0) under 'key' unless a smaller value is there; returns
 * the value stored now. At most 'max_keys' distinct keys. */
int keymap_put_min(struct keymap *m, const void *key, int v);

#endif /* XDP_STEER_KEYMAP_H */
