#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Drain benchmark: how long a policy change takes to move every flow, with
# drain on, under load. Prints a table; asserts nothing.
#
#   tests/bench/moves.sh          (as root, after make; about a minute)
#   BENCH_RATES="150000 600000"   frames/s of the background traffic
#   BENCH_SWAPS=30                policy changes per rate
#
# The steered veth of the e2e tests ($IF_B in namespace B, its NAPI thread
# pinned to CPU 0) receives 1000 UDP flows from traffic_gen at each rate;
# the policy swaps between every online CPU at equal weights and CPU 0
# once, the last three times (a quarter of the buckets move each time).
# For each swap tests/bench/moves watches the pinned maps: from the flip
# it sees until every bucket that is warm sits where the new table puts
# it (a bucket moves once its old CPU has delivered its frames; a cold one
# moves on its next frame). Also timed: `xdp-steer apply` itself, which
# returns after the flip and, when CPUs leave, after their buckets drained.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/traffic_lib.sh"

SUITE=bench/moves
RATES=${BENCH_RATES:-150000 600000}
SWAPS=${BENCH_SWAPS:-30}
MOVES=$E2E_ROOT/tests/bench/moves

for b in "$MOVES" "$XDP_STEER" "$TRAFFIC_GEN"; do
	[ -x "$b" ] || { echo "moves: $b is missing; run make first" >&2; exit 1; }
done
if [ "$(nproc)" -lt 2 ]; then
	echo "moves: needs at least 2 online CPUs" >&2
	exit 1
fi

e2e_setup
traffic_init || exit 1

mapfile -t CPUS < <(traffic_online_cpus)
list=$(IFS=,; echo "${CPUS[*]}")
cat >"$E2E_TMP/even.yaml" <<EOF
version: 1
cpus: [$list]
hash: {seed: 11}
EOF
cat >"$E2E_TMP/weighted.yaml" <<EOF
version: 1
cpus: [{cpu: ${CPUS[0]}, weight: 3}$(printf ', %s' "${CPUS[@]:1}")]
hash: {seed: 11}
EOF

in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/even.yaml" || exit 1
traffic_rx_pin || exit 1
PIN=$(in_b "$XDP_STEER" pin-dir "$IF_B")

# median and max of a column of numbers
stats() {
	sort -n | awk '{ v[NR] = $1 } END { if (!NR) { print "- -"; exit }
		printf "%.1f %.1f\n", v[int((NR + 1) / 2)], v[NR] }'
}

echo "Drain: from the flip to every bucket moved, $SWAPS policy changes per rate, 1000 UDP flows"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); kernel $(uname -r); $(nproc) CPUs; CONFIG_HZ $(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p')"
echo
printf '%-12s %14s %14s %14s %14s %10s\n' "frames/s" "moved ms med" "moved ms max" "apply ms med" "apply ms max" "buckets"
for rate in $RATES; do
	: >"$E2E_TMP/moved" ; : >"$E2E_TMP/apply"; : >"$E2E_TMP/count"
	gen_start --group udp4:1000 --rate "$rate" --duration 0
	sleep 0.5
	for i in $(seq "$SWAPS"); do
		pol=$E2E_TMP/even.yaml
		[ $((i % 2)) -eq 1 ] && pol=$E2E_TMP/weighted.yaml
		"$MOVES" "$PIN" 10000 >"$E2E_TMP/watch" &
		watch=$!
		until grep -q ready "$E2E_TMP/watch" 2>/dev/null; do sleep 0.01; done
		t0=$(date +%s%N)
		in_b "$XDP_STEER" -q apply "$IF_B" --policy "$pol" || echo "apply failed" >&2
		t1=$(date +%s%N)
		wait "$watch"
		line=$(tail -n 1 "$E2E_TMP/watch")
		case $line in
		moved_us=*)
			set -- ${line//=/ }
			echo "$2" | awk '{ print $1 / 1000 }' >>"$E2E_TMP/moved"
			echo "$4" >>"$E2E_TMP/count"
			;;
		*) echo "moves: $line" >&2 ;;
		esac
		echo $(( (t1 - t0) / 1000 )) | awk '{ print $1 / 1000 }' >>"$E2E_TMP/apply"
		sleep 0.1
	done
	gen_stop
	read -r mmed mmax < <(stats <"$E2E_TMP/moved")
	read -r amed amax < <(stats <"$E2E_TMP/apply")
	read -r cmed _ < <(stats <"$E2E_TMP/count")
	printf '%-12s %14s %14s %14s %14s %10s\n' "$rate" "$mmed" "$mmax" "$amed" "$amax" "${cmed%.*}"
done
echo
in_b "$XDP_STEER" stats "$IF_B" --json | python3 -c '
import json, sys
t = json.load(sys.stdin)["totals"]
print("counters: " + ", ".join("%s %d" % (k, t[k]) for k in
      ("moves_done", "moves_idle", "moves_timeout", "drain_held", "unstamped")))'
