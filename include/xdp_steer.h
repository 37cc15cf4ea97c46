/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer.h - everything the XDP program (clang -target bpf) and
 * userspace (gcc) share, in one include: the headers of include/xdp_steer/,
 * one per concern. Include this one for all of it (the BPF programs,
 * xdp-loader users); a file that needs one concern includes its header.
 *
 * What every header of xdp_steer/ keeps to: self-contained (it compiles
 * alone, both ways: tests/unit/test_headers.sh), fixed-width types from
 * <linux/types.h> only. Byte order is stated on every field that carries
 * one. Every struct has explicit padding and none implicit, so a value
 * copied, compared or hashed byte for byte holds nothing undefined.
 */
#ifndef XDP_STEER_H
#define XDP_STEER_H

#include "xdp_steer/sizes.h"	/* every map's fixed size */
#include "xdp_steer/names.h"	/* programs, the pin root */
#include "xdp_steer/encap.h"	/* encapsulations looked through */
#include "xdp_steer/slot.h"	/* a policy as the datapath reads it */
#include "xdp_steer/keys.h"	/* the parsed flow, rule keys and values */
#include "xdp_steer/stats.h"	/* the receiving CPUs' counters */
#include "xdp_steer/balance.h"	/* the balancer's load counters, record */
#include "xdp_steer/trace.h"	/* the tracepoint programs' counters */
#include "xdp_steer/drain.h"	/* the drain's evidence and verdict */
#include "xdp_steer/stamp.h"	/* stamps, the warm-up window */
#include "xdp_steer/rx_slots.h"	/* receiver slots, receive queue moves */
#include "xdp_steer/hash.h"	/* the flow hash, the CPU from a hash */
#include "xdp_steer/key_fill.h"	/* a flow's rule lookup keys */
#include "xdp_steer/filter.h"	/* the rule filter */
#include "xdp_steer/maps.h"	/* every map, once */

#endif /* XDP_STEER_H */
