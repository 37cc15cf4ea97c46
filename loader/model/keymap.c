// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The earliest rule of each key, by open addressing: see keymap.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/keymap.h"

int keymap_init(struct keymap *m, size_t key_size, size_t max_keys)
{
	size_t slots = 16;

	/* At most half full: probes stay short. */
	while (slots < 2 * max_keys)
		slots <<= 1;
	m->key_size = key_size;
	m->mask = slots - 1;
	m->keys = calloc(slots, key_size);
	m->vals = malloc(slots * sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		keymap_free(m);
		return -ENOMEM;
	}
	memset(m->vals, 0xff, slots * sizeof(*m->vals));
	return 0;
}

void keymap_free(struct keymap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
}

/* FNV-1a: keys are small and their bytes vary in every position. */
static size_t key_hash(const struct keymap *m, const void *key)
{
	const unsigned char *b = key;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < m->key_size; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 32));
}

/* Where 'key' is, or the free slot where it would go. */
static size_t slot_of(const struct keymap *m, const void *key)
{
	size_t i = key_hash(m, key) & m->mask;

	while (m->vals[i] >= 0 &&
	       memcmp(m->keys + i * m->key_size, key, m->key_size))
		i = (i + 1) & m->mask;
	return i;
}

int keymap_get(const struct keymap *m, const void *key)
{
	return m->vals[slot_of(m, key)];
}

int keymap_put_min(struct keymap *m, const void *key, int v)
{
	size_t i = slot_of(m, key);

	if (m->vals[i] < 0) {
		memcpy(m->keys + i * m->key_size, key, m->key_size);
		m->vals[i] = v;
	} else if (v < m->vals[i]) {
		m->vals[i] = v;
	}
	return m->vals[i];
}
