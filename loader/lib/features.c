// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* steer_features(): what this machine offers xdp-steer, for --version;
 * steer_kernel_check(): whether this kernel has what attach needs. */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>

#include "kernel/features.h"
#include "lib/lib_int.h"

int steer_features(struct steer_ctx *ctx, struct steer_features *f)
{
	(void)ctx;
	memset(f, 0, sizeof(*f));
	f->dispatcher = features_dispatcher(&WHY(f->dispatcher_why));
	features_kernel(f->kernel, &f->kthread_by_release);
	f->lacking = features_lacking(f->kernel, NULL, 0);
	f->kernel_min = features_kernel_min();
	if (features_libxdp_file(f->libxdp_file, sizeof(f->libxdp_file)))
		f->libxdp_file[0] = '\0';
	return 0;
}

int steer_kernel_check(struct steer_ctx *ctx, const char *ifname)
{
	int r[STEER_KF_COUNT];
	char lacks[768];
	struct utsname u;

	features_kernel(r, NULL);
	if (!features_lacking(r, lacks, sizeof(lacks)))
		return 0;
	return lib_fail(ctx, -EOPNOTSUPP, "%s%sthis kernel (Linux %s) lacks what xdp-steer needs: %s; xdp-steer needs Linux %s or later ('xdp-steer --version' lists what it found)",
			ifname ? ifname : "", ifname ? ": " : "",
			uname(&u) ? "unknown" : u.release, lacks,
			features_kernel_min());
}
