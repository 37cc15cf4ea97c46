#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dist tier: an upgrade in place from real older versions of xdp-steer,
# built from this repository's history, under paced traffic
# (tests/e2e/test_upgrade.sh with UPGRADE_FROM), one after the other:
#   - 9cbff08, the last commit before receiver slots: its steer_stats has
#     another layout and it has no slot maps. This version carries them
#     over (loader/kernel/migrate_ways.c): slot = CPU id, steer_stats rebuilt
#     by copy, renamed over the pins after the swap; no frame lost or
#     late, the counters never go back, every later command works, and
#     the upgrade killed before and after the swap is settled.
#   - 7237213, the commit before the drain by the kernel's evidence
#     (117e363), whose drain waited out a timeout: this version refuses,
#     saying why (no steer_wdone: another design), and changes nothing:
#     the old program and its policy steer on, no frame lost or late.
# Every commit from 387dfb4 (receiver slots) on has this version's maps,
# so the in-place upgrade of other code is proven with a salted build of
# this source (test_upgrade.sh itself). UPGRADE_FROM=REV runs one commit
# only. Needs the repository's history (a clone, as CI's; skipped in an
# export).
set -u
cd "$(dirname "$0")/../.."
rc=0
for FROM in ${UPGRADE_FROM:-9cbff08 7237213}; do
	SUITE=dist/$(basename "$0" .sh)
	if ! git rev-parse -q --verify "$FROM^{commit}" >/dev/null 2>&1; then
		echo "SKIP $SUITE: commit $FROM is not in this checkout's history"
		continue
	fi
	SUITE="$SUITE($FROM)" UPGRADE_FROM=$FROM E2E_ID=rel$$ \
		tests/e2e/test_upgrade.sh || rc=1
done
exit $rc
