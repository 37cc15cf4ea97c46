#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Unit tier (no root): tests/bench/wake_rtt, whose line every benchmark's
# header prints (tests/bench/lib.sh, bench_wake): it times a round trip
# across two CPUs and on one, and a run that cannot do what it says fails
# with its reason instead of printing a number.
set -u
SUITE=wake_rtt
. "$(dirname "$0")/../e2e/lib.sh"
W=$E2E_ROOT/tests/bench/wake_rtt
# A peer that cannot run where it is told must not leave the run waiting.
T="timeout 10"

[ -x "$W" ] || { fail "tests/bench/wake_rtt is built (make)"; e2e_done; }

# CPU ids this process may run on: the first two, and one it may not.
read -r A B NOT <<<"$(python3 -c '
import os
c = sorted(os.sched_getaffinity(0))
print(*c[:2], max(c) + 1)')"

# round_trip_line OUT: "... X us across CPUs A and B, Y us on CPU A" with
# both times positive.
round_trip_line() {
	awk -v a="$A" -v b="$B" '
		$0 ~ "^wake_rtt: round trip [0-9.]+ us across CPUs " a " and " b ", [0-9.]+ us on CPU " a "$" &&
		$4 > 0 && $11 > 0 { ok = 1 }
		END { exit !ok }' <<<"$1" || { echo "got: $1"; return 1; }
}

if [ -z "$B" ]; then
	skip "a round trip across two CPUs" "this process may run on one CPU only"
else
	out=$($T "$W" "$A" "$B" 200 2>&1)
	check "a round trip across CPUs $A and $B and one on CPU $A, each in us" round_trip_line "$out"
fi
check "a CPU it cannot run on ($NOT) is an error with the reason (exit 1), no time" \
	bash -c "out=\$($T '$W' '$A' '$NOT' 2>&1); rc=\$?; [ \$rc -eq 1 ] &&
		grep -q 'cannot run on CPU' <<<\"\$out\" && ! grep -q 'round trip' <<<\"\$out\" ||
		{ echo \"exit \$rc: \$out\"; false; }"
check "the same CPU twice is a usage error (exit 2)" \
	bash -c "$T '$W' '$A' '$A' >/dev/null 2>&1; [ \$? -eq 2 ]"
check "a third word after the CPUs must be a round count of at least 1 (exit 2)" \
	bash -c "$T '$W' '$A' '$NOT' 0 >/dev/null 2>&1; [ \$? -eq 2 ]"
e2e_done
