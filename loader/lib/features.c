// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* steer_features(): what this machine offers xdp-steer, for --version. */
#include <string.h>

#include "kernel/features.h"
#include "lib/lib_int.h"

int steer_features(struct steer_ctx *ctx, struct steer_features *f)
{
	(void)ctx;
	memset(f, 0, sizeof(*f));
	f->dispatcher = features_dispatcher(f->dispatcher_why,
					    sizeof(f->dispatcher_why));
	f->xdp_frags = features_xdp_frags();
	f->netns_cookie = features_netns_cookie(&f->cookie);
	if (features_libxdp_file(f->libxdp_file, sizeof(f->libxdp_file)))
		f->libxdp_file[0] = '\0';
	return 0;
}
