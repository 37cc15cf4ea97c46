#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Throughput benchmark: what steering costs the collecting CPU, and what it
# delivers to an application, against four baselines in the same run on
# the same veth pair and the same traffic. Prints tables; asserts nothing.
#
#   tests/bench/throughput.sh        (as root, after make; about 20 minutes)
#   BENCH_SIZES="60 1514" BENCH_FLOWS="1 16 1000 1000+tun"   frame sizes
#                                    without FCS, flow counts ("N+tun": N
#                                    flows inside one tunnel)
#   BENCH_TUNNEL=gre                 the tunnel of "+tun" rows: gre, or
#                                    vxlan (also where the kernel has no
#                                    GRE device)
#   BENCH_SECONDS=2 BENCH_ROUNDS=3   saturation: seconds per run, rounds
#   BENCH_SEARCH=1 BENCH_LOSS=0.1    loss-free rate search on/off, loss
#                                    allowed (%)
#   BENCH_CONFIGS="noxdp pass rps rps-all steer default"   configurations
#                                    (below), in this order
#   BENCH_SETTLE=20                  seconds of saturation traffic after
#                                    each attach of "default", before its
#                                    measured run (0: none)
#   BENCH_DEFAULT_POLICY=FILE        the policy of "default" (the shipped
#                                    configs/default.yaml)
#
# Setup. Namespace A's traffic_gen sends UDP/IPv4 frames of N flows (live
# test-run frames, tests/e2e/traffic_gen.c) into the veth; $IF_B in
# namespace B receives them. $IF_B's NAPI is threaded and pinned to the
# collector CPU (CPU 0) at real-time priority, as a NIC queue's interrupt
# would be pinned, and the generator runs on that CPU too: it only gets
# the CPU when the collector is idle, so the offered load follows what the
# collector can take. Every other online CPU is a worker; udp_sink reads
# the datagrams there, one thread and socket per worker CPU, in every
# configuration (also where the collector's CPU runs the stack for some
# flows: the application stays where it is).
#
# "N+tun" rows send the N flows inside one tunnel between A's and B's veth
# addresses (GRE, or VXLAN where the kernel has no GRE device): every frame
# has the same outer addresses (and ports), so only the inner flow tells
# them apart. B's own tunnel device decapsulates them for the sink.
#
# Configurations, each with GRO on (a veth has no NAPI without it or XDP):
#   noxdp       the collector runs the whole stack, up to the socket
#   pass        XDP_PASS: the same behind the cheapest XDP program
#   rps         "RPS, workers": rps_cpus = the workers: the collector
#               builds the skb and queues it to a worker's backlog
#   rps-all     "RPS, every CPU": rps_cpus = every online CPU, the
#               collector's included, which runs the stack itself for the
#               flows it queues to its own backlog (in its NAPI thread)
#   steer       xdp-steer, cpus = the workers: the collector runs XDP and
#               queues the frame to a worker's cpumap, where the skb is
#               built
#   default     xdp-steer with configs/default.yaml as shipped (no cpus
#               key: a veth takes no RX interrupts, so every online CPU
#               works, the collector's included) and its adaptive balancer
#               as the systemd unit runs it (`xdp-steer balance $IF_B`,
#               from right after the attach until the next configuration;
#               tests/bench/lib.sh). Each attach is followed by
#               BENCH_SETTLE seconds of saturation traffic of the table's
#               frame size and flow count (the sink reading), then the
#               measured run: the rounds interleave the configurations and
#               each attaches anew, so every round settles, and the
#               loss-free search once
#   default-nice0  "default" with the workers' kthreads at nice 0
#               (worker_sched: other), as the kernel makes them
#   splitN      xdp-steer with every CPU working, N % of the table on the
#               collector (1-99) and the rest even over the workers, fixed
#               (balance: off); a row per N, the best of them the most a
#               placement of whole buckets delivers (forward.sh says more)
#
# Two regimes:
#   saturation  the generator sends as fast as the collector lets it;
#               BENCH_ROUNDS runs per configuration, rounds interleaved so
#               a burst of other work moves every configuration alike; the
#               median is shown
#   loss-free   the highest paced rate at which at most BENCH_LOSS % of the
#               frames are lost and none is reordered (RFC 2544's
#               throughput), by bisection in 1-second runs
#
# Measured per run:
#   collector ns  CPU time of $IF_B's NAPI thread (schedstat) per frame it
#                 took off the veth ring: all the receive work the
#                 collector CPU does
#   workers ns    busy time of the worker CPUs (/proc/stat) per frame the
#                 sink read: skb, stack and the sink itself; under
#                 "default" (default-nice0, splitN) also the time of the
#                 collector's CPU's cpumap kthread (schedstat: frames
#                 queued to that CPU itself, while their bucket moves),
#                 which is not the collector's
#   delivered     datagrams the sink read per second of sending
#   drops         frames sent and never read, in % of sent, and where most
#                 of them went: ring (the veth's, before the collector),
#                 backlog (RPS's queue), socket (the sink's buffer), or
#                 cpumap (the rest: with xdp-steer, its full rings)
#   late          datagrams the sink read after a later one of their flow
#
# After each table, where "default" ran, per frame size and flow count
# (tests/bench/lib.sh, default_summary): "default over the best other:
# 1.23x (best other: RPS, workers)", the best other being the highest
# median delivered rate of noxdp, rps and rps-all; "total CPU per frame
# delivered" of default and of each RPS configuration: the collector's ns
# per frame it took plus the workers' ns per frame delivered (the
# collector's time on frames dropped after it counts for no frame); what
# the balancer moved while settling and while measured; and the late
# frames of "default", summed over the table's rounds. Then xdp-steer
# (steer) against each baseline.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/traffic_lib.sh"
. "$(dirname "$0")/lib.sh"

SUITE=bench/throughput
SECONDS_PER_RUN=${BENCH_SECONDS:-2}
ROUNDS=${BENCH_ROUNDS:-3}
SIZES=${BENCH_SIZES:-60 1514}
FLOWS=${BENCH_FLOWS:-1 16 1000 1000+tun}
TUNNEL=${BENCH_TUNNEL:-gre}
SEARCH=${BENCH_SEARCH:-1}
LOSS=${BENCH_LOSS:-0.1}
# Bisection bounds and steps: 2 M frames/s is above what any configuration
# delivers here; 7 halvings resolve 16k frames/s.
SEARCH_HI=${BENCH_SEARCH_HI:-2000000}
SEARCH_STEPS=${BENCH_SEARCH_STEPS:-7}
read -r -a CONFIGS <<<"${BENCH_CONFIGS:-noxdp pass rps rps-all steer default}"
declare -A LABEL=([noxdp]="no XDP" [pass]="XDP_PASS" [rps]="RPS, workers"
	[rps-all]="RPS, every CPU" [steer]="xdp-steer" [default]="xdp-steer, default"
	[default-nice0]="default, kthreads nice 0")
split_labels
FLOWS_WIDTH=8	# the tables' flows column, for default_summary
for c in "${CONFIGS[@]}"; do
	[ -n "${LABEL[$c]:-}" ] || { echo "throughput: unknown configuration '$c' (${!LABEL[*]})" >&2; exit 2; }
done
BASELINE_OBJ=$E2E_ROOT/tests/bench/baseline.bpf.o

for b in "$UDP_SINK" "$BASELINE_OBJ" "$XDP_STEER" "$TRAFFIC_GEN" "$DEFAULT_POLICY"; do
	[ -e "$b" ] || { echo "throughput: $b is missing; run make first" >&2; exit 1; }
done
if [ "$(nproc)" -lt 2 ]; then
	echo "throughput: needs at least 2 online CPUs (a collector and a worker)" >&2
	exit 1
fi

e2e_setup
traffic_init
bench_cleanup() {
	sink_kill
	balancer_kill
	traffic_cleanup
}
trap bench_cleanup EXIT

WORKERS=$(traffic_online_cpus | awk -v rx="$TRAFFIC_RX_CPU" '$1 != rx' |
	  paste -sd, -)
RPS_MASK=$(rps_mask "$WORKERS")
RPS_ALL_MASK=$(rps_mask "$(traffic_online_cpus | paste -sd, -)")
# Under "default": the collector's CPU's cpumap kthreads, whose time is
# the workers' (configure).
COLLECTOR_KTHREADS=()
cat >"$E2E_TMP/steer.yaml" <<EOF
version: 1
cpus: [$WORKERS]
EOF

# tunnel_setup: B's end of the "+tun" rows' tunnel (tun7, 10.77.0.2/24,
# the MAC traffic_gen puts in inner Ethernet headers), GRE or, where the
# kernel makes none, VXLAN; sets TUNNEL to the one made.
tunnel_setup() {
	if [ "$TUNNEL" = gre ] &&
	   ! ip -n "$NS_B" link add tun7 type gre local "$IP_B" remote "$IP_A" 2>/dev/null; then
		echo "throughput: this kernel makes no GRE device; the tunnel rows use VXLAN" >&2
		TUNNEL=vxlan
	fi
	if [ "$TUNNEL" = vxlan ]; then
		ip -n "$NS_B" link add tun7 type vxlan id 42 local "$IP_B" remote "$IP_A" \
			dstport 4789 dev "$IF_B" &&
		ip -n "$NS_B" link set tun7 address 02:00:00:00:00:02
	fi &&
	ip -n "$NS_B" addr add 10.77.0.2/24 dev tun7 &&
	ip -n "$NS_B" link set tun7 up ||
		{ echo "throughput: cannot make B's $TUNNEL device" >&2; exit 1; }
}
case " $FLOWS " in *+tun*) tunnel_setup ;; esac

# Leaves $IF_B as a fresh veth in configuration $1, NAPI pinned; stops
# the balancer of the configuration before.
configure() {
	balancer_stop || { echo "throughput: the balancer of '${LABEL[default]}' failed" >&2; exit 1; }
	COLLECTOR_KTHREADS=()
	in_b "$XDP_STEER" -q detach "$IF_B" >/dev/null 2>&1
	in_b xdp-loader unload -a "$IF_B" >/dev/null 2>&1
	set_rps 0
	ip netns exec "$NS_B" ethtool -K "$IF_B" gro on >/dev/null
	case $1 in
	pass)
		in_b xdp-loader load -m native -n bench_pass "$IF_B" "$BASELINE_OBJ" ;;
	rps)
		set_rps "$RPS_MASK" ;;
	rps-all)
		set_rps "$RPS_ALL_MASK" ;;
	steer)
		in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/steer.yaml" ;;
	default)
		default_attach &&
			mapfile -t COLLECTOR_KTHREADS < <(cpumap_kthreads "$TRAFFIC_RX_CPU") ;;
	default-nice0)
		default_attach_nice0 &&
			mapfile -t COLLECTOR_KTHREADS < <(cpumap_kthreads "$TRAFFIC_RX_CPU") ;;
	split*)
		split_policy "${1#split}" "$TRAFFIC_RX_CPU" "$WORKERS" >"$E2E_TMP/split.yaml" &&
			in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/split.yaml" &&
			mapfile -t COLLECTOR_KTHREADS < <(cpumap_kthreads "$TRAFFIC_RX_CPU") ;;
	esac || { echo "throughput: cannot set up '${LABEL[$1]}' on $IF_B" >&2; exit 1; }
	traffic_rx_pin >/dev/null || { echo "throughput: cannot pin $IF_B's NAPI" >&2; exit 1; }
}

# The workers' busy time (workers_ns), and under "default" the
# collector's CPU's cpumap kthreads'.
run_workers_ns() {
	echo $(( $(workers_ns) + $(pids_ns "${COLLECTOR_KTHREADS[@]}") ))
}

# run SIZE FLOWS CONFIG RATE SECONDS: one measured run in the current
# configuration (RATE 0: as fast as the collector lets the generator);
# prints "SIZE FLOWS CONFIG collector_ns delivered_fps drops_pct late
# workers_ns where offered_fps". Not in a subshell, so bench_cleanup sees
# $SINK_PID.
run() {
	local size=$1 flows=$2 config=$3 rate=$4 secs=$5
	local ns0 ns1 rd0 rd1 wk0 wk1 bl0 bl1 sk0 sk1 taken received late
	sink_start || exit 1
	rd0=$(ring_drops) bl0=$(backlog_drops) sk0=$(socket_drops)
	ns0=$(napi_ns) wk0=$(run_workers_ns)
	local group="udp4:${flows%+tun}"
	# Inside the tunnel: to B's address on it, from a subnet of its own.
	[ "${flows%+tun}" != "$flows" ] &&
		group+=",encap=$TUNNEL,src=10.77.1.1,dst=10.77.0.2"
	gen_run --group "$group" --size "$size" --rate "$rate" --duration "$secs" ||
		{ echo "throughput: the generator failed" >&2; exit 1; }
	ns1=$(napi_ns) wk1=$(run_workers_ns)
	sleep 0.2	# let queued frames reach the sink
	sink_stop
	rd1=$(ring_drops) bl1=$(backlog_drops) sk1=$(socket_drops)
	received=$SINK_RECEIVED late=$SINK_LATE
	taken=$((GEN_SENT - (rd1 - rd0)))
	awk -v ns=$((ns1 - ns0)) -v wk=$((wk1 - wk0)) -v taken="$taken" -v rcv="$received" \
	    -v sent="$GEN_SENT" -v s="$GEN_SECONDS" -v late="$late" \
	    -v ring=$((rd1 - rd0)) -v backlog=$((bl1 - bl0)) -v sock=$((sk1 - sk0)) \
	    -v pre="$size $flows $config" 'BEGIN {
		lost = sent - rcv; rest = lost - ring - backlog - sock
		where = "-"; most = 0
		if (ring > most) { most = ring; where = "ring" }
		if (backlog > most) { most = backlog; where = "backlog" }
		if (sock > most) { most = sock; where = "socket" }
		if (rest > most) { most = rest; where = "cpumap" }
		printf "%s %.1f %.0f %.3f %d %.1f %s %.0f\n", pre, taken ? ns / taken : 0,
			rcv / s, sent ? 100 * lost / sent : 0, late, rcv ? wk / rcv : 0,
			where, sent / s }'
}

# search SIZE FLOWS CONFIG: the highest rate (frames/s) with at most LOSS %
# lost and nothing late, by bisection; prints it with that run's fields.
search() {
	bench_search "$1" "$2" "$3" '$6 <= l && $7 == 0' "$1 $2 $3 0 0 100 0 0 - 0"
}

echo "Throughput on veth, UDP/IPv4: collector CPU $TRAFFIC_RX_CPU (threaded NAPI, with the generator), workers $WORKERS"
bench_machine
default_header
case " $FLOWS " in *+tun*) echo "N+tun: N flows inside one $TUNNEL tunnel (one outer pair), decapsulated by B's $TUNNEL device" ;; esac

SAT=$E2E_TMP/saturation
FREE=$E2E_TMP/lossfree
: >"$SAT"
: >"$FREE"
for size in $SIZES; do
	for flows in $FLOWS; do
		for r in $(seq "$ROUNDS"); do
			for c in "${CONFIGS[@]}"; do
				configure "$c"
				bench_settle "$SAT" "$size" "$flows" "$c" || exit 1
				run "$size" "$flows" "$c" 0 "$SECONDS_PER_RUN" >>"$SAT"
			done
		done
		if [ "$SEARCH" = 1 ]; then
			for c in "${CONFIGS[@]}"; do
				configure "$c"
				bench_settle "$FREE" "$size" "$flows" "$c" || exit 1
				# Not $(search): run must stay in this shell.
				search "$size" "$flows" "$c" >"$E2E_TMP/found"
				cat "$E2E_TMP/found" >>"$FREE"
			done
		fi
		echo "  measured $((size + 4))-byte frames, $flows flows" >&2
	done
done
balancer_stop || { echo "throughput: the balancer of '${LABEL[default]}' failed" >&2; exit 1; }

# rows FILE SIZE FLOWS CONFIG FIELD: a field in each round (4: collector
# ns, 5: delivered fps, 6: drops %, 7: late, 8: workers ns, 9: where, 10:
# offered fps); value: its median over the rounds.
rows() {
	awk -v s="$2" -v f="$3" -v c="$4" -v k="$5" \
		'$1 == s && $2 == f && $3 == c { print $k }' "$1"
}
value() { rows "$@" | median; }
# where FILE SIZE FLOWS CONFIG: the drop point most rounds name.
where() {
	awk -v s="$2" -v f="$3" -v c="$4" '$1 == s && $2 == f && $3 == c { print $9 }' "$1" |
		sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }'
}

table() {
	local file=$1 size flows c
	printf '%-6s %8s  %-24s %9s %9s %9s %9s %9s %-8s %6s\n' frame flows config \
		"offered" "delivered" "collector" "workers" drops "" late
	printf '%-6s %8s  %-24s %9s %9s %9s %9s %9s %-8s %6s\n' "" "" "" \
		kfps kfps "ns/frame" "ns/frame" "%" "at" ""
	for size in $SIZES; do
		for flows in $FLOWS; do
			for c in "${CONFIGS[@]}"; do
				printf '%-6s %8s  %-24s %9.0f %9.0f %9.1f %9.1f %9.3f %-8s %6d\n' \
					"$((size + 4))B" "$flows" "${LABEL[$c]}" \
					"$(value "$file" "$size" "$flows" "$c" 10 | awk '{print $1 / 1000}')" \
					"$(value "$file" "$size" "$flows" "$c" 5 | awk '{print $1 / 1000}')" \
					"$(value "$file" "$size" "$flows" "$c" 4)" \
					"$(value "$file" "$size" "$flows" "$c" 8)" \
					"$(value "$file" "$size" "$flows" "$c" 6)" \
					"$(where "$file" "$size" "$flows" "$c")" \
					"$(value "$file" "$size" "$flows" "$c" 7)"
			done
		done
	done
}

# summary BASELINE: xdp-steer against one baseline, a line per frame size
# and flow count, as a patch's cover letter would put it.
summary() {
	local b=$1 size flows name
	name=${LABEL[$b]%%,*}	# "RPS, workers": "RPS" in the narrow columns
	echo "-- xdp-steer against ${LABEL[$b]}: change in %; drops in % of sent; late = reordered"
	printf '%-6s %8s | %-24s | %-31s | %-22s | %s\n' "" "" \
		"collector ns/frame" "saturation kfps (drops %)" "loss-free kfps" "late"
	printf '%-6s %8s | %8s %9s %5s | %11s %11s %7s | %7s %8s %5s | %s\n' frame flows \
		"$name" xdp-steer "" "$name" xdp-steer "" "$name" xdp-steer "" "base/steer"
	for size in $SIZES; do
		for flows in $FLOWS; do
			awk -v fr="$((size + 4))B" -v fl="$flows" \
			    -v bc="$(value "$SAT" "$size" "$flows" "$b" 4)" \
			    -v sc="$(value "$SAT" "$size" "$flows" steer 4)" \
			    -v bd="$(value "$SAT" "$size" "$flows" "$b" 5)" \
			    -v sd="$(value "$SAT" "$size" "$flows" steer 5)" \
			    -v bp="$(value "$SAT" "$size" "$flows" "$b" 6)" \
			    -v sp="$(value "$SAT" "$size" "$flows" steer 6)" \
			    -v bf="$(value "$FREE" "$size" "$flows" "$b" 5)" \
			    -v sf="$(value "$FREE" "$size" "$flows" steer 5)" \
			    -v bl="$(cat "$SAT" "$FREE" | awk -v s="$size" -v f="$flows" -v c="$b" '$1 == s && $2 == f && $3 == c { n += $7 } END { print n + 0 }')" \
			    -v sl="$(cat "$SAT" "$FREE" | awk -v s="$size" -v f="$flows" '$1 == s && $2 == f && $3 == "steer" { n += $7 } END { print n + 0 }')" \
			    -v search="$SEARCH" '
			function pct(b, s) { return b ? sprintf("%+.0f%%", 100 * (s - b) / b) : "-" }
			BEGIN {
				printf "%-6s %8s | %8.0f %9.0f %5s | %4.0f (%4.1f) %4.0f (%4.1f) %7s | ", fr, fl,
					bc, sc, pct(bc, sc), bd / 1000, bp, sd / 1000, sp, pct(bd, sd)
				if (search == 1)
					printf "%7.0f %8.0f %5s | ", bf / 1000, sf / 1000, pct(bf, sf)
				else
					printf "%7s %8s %5s | ", "-", "-", "-"
				printf "%d/%d\n", bl, sl
			}'
		done
	done
}

echo
echo "== Saturation: as fast as the collector lets the generator send; ${SECONDS_PER_RUN} s runs, median of $ROUNDS"
table "$SAT"
default_summary "$SAT" delivered 5 4 8 7
if [ "$SEARCH" = 1 ]; then
	echo
	echo "== Loss-free: the highest rate with at most $LOSS % lost and nothing reordered (bisection, 1 s runs)"
	table "$FREE"
	default_summary "$FREE" delivered 5 4 8 7
fi
for c in rps noxdp pass; do
	if ! bench_has steer || ! bench_has "$c"; then continue; fi
	echo
	summary "$c"
done
