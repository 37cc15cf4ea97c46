#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dist tier (beside test_upgrade_release.sh, outside make test's budget):
# an upgrade in place from a version whose steer_stats has a
# counter this one lacks, before fields that then move (as when a version
# adds a counter): tests/e2e/test_upgrade.sh with UPGRADE_STATS_EXTRA=1.
# steer_stats is rebuilt by copy, field by field of the same name
# (loader/kernel/migrate_ways.c), beside the receiver slots' pool, kept; under
# paced traffic nothing is lost or late, the counters on either side of
# the added one never go back, and every later command works. A copy by
# offset fails it (passed_local_bytes goes back).
SUITE=dist/$(basename "$0" .sh) UPGRADE_STATS_EXTRA=1 E2E_ID=ups$$ \
	exec "$(dirname "$0")/../e2e/test_upgrade.sh"
