// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The table of the kernel features xdp-steer relies on: see
 * kernel_features.h. */
#include "model/kernel_features.h"

#define STEER_KF_ROW(id, what_, since_, needed_)			\
	[STEER_KF_##id] = { .what = what_, .since = since_, .needed = needed_ },
const struct steer_kernel_feature_info steer_kernel_features[STEER_KF_COUNT] = {
	STEER_KERNEL_FEATURES(STEER_KF_ROW)
};
#undef STEER_KF_ROW
