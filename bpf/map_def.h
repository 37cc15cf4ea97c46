/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * map_def.h - a BPF map definition from one row of an X-macro list of
 * include/xdp_steer/maps.h (name, type, key, value, max_entries, map_flags),
 * shared by the BPF objects. 'pin': LIBBPF_PIN_BY_NAME where libbpf pins
 * the map itself, LIBBPF_PIN_NONE where the loader does.
 */
#ifndef XDP_STEER_MAP_DEF_H
#define XDP_STEER_MAP_DEF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define STEER_MAP_DEF(pin, name, type_, key_t, value_t, max, flags)	\
	struct {							\
		__uint(type, type_);					\
		__type(key, key_t);					\
		__type(value, value_t);					\
		__uint(max_entries, max);				\
		__uint(map_flags, flags);				\
		__uint(pinning, pin);					\
	} name SEC(".maps");

#endif /* XDP_STEER_MAP_DEF_H */
