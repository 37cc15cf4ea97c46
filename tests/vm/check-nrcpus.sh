#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Inside a VM of 4 vCPUs booted with nr_cpus=2 (tests/vm/matrix), a kernel
# with fewer possible CPUs than its machine has, as a router kernel built
# with a small NR_CPUS: the cpumaps have 2 entries, and a policy naming
# CPU 3 is refused with its location (tests/e2e/test_keys.sh, part 1).
#
#   tests/vm/run --cpus 4 --append nr_cpus=2 -- tests/vm/check-nrcpus.sh
set -uo pipefail
cd "$(dirname "$0")/../.."

possible=$(cat /sys/devices/system/cpu/possible)
if [ "$possible" = 0-1 ]; then
	echo "PASS vm/check-nrcpus: the kernel has 2 possible CPUs (nr_cpus=2)"
else
	echo "FAIL vm/check-nrcpus: the kernel has 2 possible CPUs (nr_cpus=2): $possible"
fi
E2E_ID=vm KEYS_SIZE_ONLY=1 KEYS_PAST_CPU=3 tests/e2e/test_keys.sh
