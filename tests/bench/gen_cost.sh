#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What the traffic generator costs the receiving CPU, per sender: the
# end-to-end benchmarks run it on the collector's CPU, so it decides what
# they can show (tests/bench/README.md, "The traffic source"). Prints a
# table; asserts nothing.
#
#   tests/bench/gen_cost.sh       (as root, after make; about 30 s)
#   BENCH_SECONDS=2 BENCH_ROUNDS=3   seconds per run, rounds (median)
#   BENCH_SENDERS="live fanout socket"   those the kernel refuses are said
#
# 1000 UDP/IPv4 flows of 60-byte frames, unpaced, from namespace A into
# $IF_B, whose NAPI thread shares CPU 0 with the generator, the two
# together saturating it. $IF_B's program either drops each frame there
# (XDP_DROP) or hands it to CPU 1 through a cpumap whose program drops it
# (fwd.bpf.c's bench_to_cpu1 and bench_worker_drop): the frame's page is
# then freed on CPU 1. A NIC's driver recycles its pages wherever they are
# freed (page_pool), and so do live test-run frames; the fanout's copies
# are pages of the page allocator, which CPU 0 refills from the buddy
# lists when CPU 1 frees what it took. CPU 0's ns per frame is 1e9 over
# the rate.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/traffic_lib.sh"
. "$(dirname "$0")/lib.sh"

SUITE=bench/gen_cost
SECONDS_RUN=${BENCH_SECONDS:-2}
ROUNDS=${BENCH_ROUNDS:-3}
read -r -a SENDERS <<<"${BENCH_SENDERS:-live fanout socket}"
CPUMAP_SET=$E2E_ROOT/tests/bench/cpumap_set

for b in "$FWD_OBJ" "$CPUMAP_SET" "$TRAFFIC_GEN"; do
	[ -e "$b" ] || { echo "gen_cost: $b is missing; run make first" >&2; exit 1; }
done
if [ "$(nproc)" -lt 2 ]; then
	echo "gen_cost: needs 2 CPUs (the receiving CPU 0 and CPU 1)" >&2
	exit 1
fi
command -v xdp-loader >/dev/null || { echo "gen_cost: xdp-loader missing (make deps-test)" >&2; exit 1; }

e2e_setup
traffic_init
PIN=/sys/fs/bpf/xst-gen-cost-$$
gen_cost_cleanup() {
	in_b xdp-loader unload -a "$IF_B" >/dev/null 2>&1
	rm -rf "$PIN"
	traffic_cleanup
}
trap gen_cost_cleanup EXIT
# The socket's frames carry finished checksums; nothing is left to the
# veth's offload.
in_a ethtool -K "$IF_A" tx off >/dev/null 2>&1

# attach drop|cpu1: $IF_B's program, its NAPI threaded on CPU 0.
attach() {
	in_b xdp-loader unload -a "$IF_B" >/dev/null 2>&1
	rm -rf "$PIN"
	mkdir -p "$PIN"
	if [ "$1" = drop ]; then
		in_b xdp-loader load -m native -n bench_drop "$IF_B" "$FWD_OBJ" || return 1
	else
		in_b xdp-loader load -m native -n bench_to_cpu1 "$IF_B" "$FWD_OBJ" ||
			return 1
		# Its cpumap, found from the program attached, pinned for
		# cpumap_set.
		local prog map
		prog=$(in_b bpftool net show dev "$IF_B" -j | python3 -c '
import json, sys
for d in json.load(sys.stdin)[0]["xdp"]:
    print(d.get("id", "")); break')
		map=$(bpftool prog show id "$prog" -j | python3 -c '
import json, sys
print(json.load(sys.stdin)["map_ids"][0])')
		bpftool map pin id "$map" "$PIN/bench_cpumap" &&
			"$CPUMAP_SET" "$PIN/bench_cpumap" 1 2048 "$FWD_OBJ" \
				bench_worker_drop || return 1
	fi
	traffic_rx_pin >/dev/null
}

# rate SENDER: RATE, the median frames/s of the rounds; 1 and the
# generator's refusal in RATE when it cannot send.
rate() {
	local r out=()
	for ((r = 0; r < ROUNDS; r++)); do
		TRAFFIC_GEN_SENDER=$1 gen_run --group udp4:1000 \
			--duration "$SECONDS_RUN" 2>"$E2E_TMP/gen.err" || {
			RATE="refused: $(head -1 "$E2E_TMP/gen.err")"
			RATE=${RATE/traffic_gen: /}
			return 1; }
		out+=("$GEN_FPS")
	done
	RATE=$(printf '%s\n' "${out[@]}" | median)
}

echo "What the generator costs the receiving CPU: 60-byte UDP/IPv4 frames of 1000 flows, unpaced, $SECONDS_RUN s runs, median of $ROUNDS"
bench_machine
echo "B's NAPI thread on CPU 0 with the generator; B's program:"
echo "  drop  XDP_DROP on CPU 0"
echo "  cpu1  to CPU 1 through a cpumap, whose program drops it there"
printf '%-8s %-6s %10s %12s\n' sender B kframes/s "CPU 0 ns/fr"
declare -A FPS
for how in drop cpu1; do
	attach "$how" || { echo "gen_cost: attaching $how failed" >&2; exit 1; }
	for s in "${SENDERS[@]}"; do
		rate "$s" || { printf '%-8s %-6s %s\n' "$s" "$how" "$RATE"; continue; }
		v=$RATE
		FPS[$s.$how]=$v
		printf '%-8s %-6s %10.0f %12.0f\n' "$s" "$how" \
			"$(awk -v v="$v" 'BEGIN { print v / 1000 }')" \
			"$(awk -v v="$v" 'BEGIN { print 1e9 / v }')"
	done
done
for s in "${SENDERS[@]}"; do
	[ -n "${FPS[$s.drop]:-}" ] && [ -n "${FPS[$s.cpu1]:-}" ] || continue
	printf '%s: a frame freed on CPU 1 costs CPU 0 %.0f ns more than one dropped there (the redirect; and a page the allocator refills, where the frame is not from a page pool)\n' \
		"$s" "$(awk -v a="${FPS[$s.cpu1]}" -v b="${FPS[$s.drop]}" \
			'BEGIN { print 1e9 / a - 1e9 / b }')"
done
e2e_done
