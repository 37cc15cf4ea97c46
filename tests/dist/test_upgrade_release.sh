#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dist tier: an upgrade in place from a real older version of xdp-steer,
# built from this repository's history, under paced traffic
# (tests/e2e/test_upgrade.sh with UPGRADE_FROM). Every commit from 117e363
# (the drain by the kernel's evidence) on has this version's programs, tag
# for tag, so the in-place upgrade of other code is proven with a salted
# build of this source (test_upgrade.sh itself). 7237213, the commit
# before, pinned maps of another layout (steer_stats): this version
# refuses to take them over, says which and what to do, and changes
# nothing: the old program and its policy steer on, no frame lost or
# late. Needs the repository's history (a clone, as CI's; skipped in an
# export).
set -u
cd "$(dirname "$0")/../.."
FROM=${UPGRADE_FROM:-7237213}
SUITE=dist/$(basename "$0" .sh)
if ! git rev-parse -q --verify "$FROM^{commit}" >/dev/null 2>&1; then
	echo "SKIP $SUITE: commit $FROM is not in this checkout's history"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
SUITE=$SUITE UPGRADE_FROM=$FROM E2E_ID=rel$$ exec tests/e2e/test_upgrade.sh
