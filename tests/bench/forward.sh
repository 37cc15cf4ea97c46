#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Forwarding benchmark: namespaces A -> B -> C, B routing between its two
# veths, and what B forwards with no steering, with RPS and with xdp-steer
# on its ingress veth. Prints tables; asserts nothing.
#
#   tests/bench/forward.sh           (as root, after make; about 11 minutes)
#   BENCH_SIZES="60 1514" BENCH_FLOWS="1 1000"   frame sizes without FCS,
#                                    flow counts
#   BENCH_SECONDS=2 BENCH_ROUNDS=3   seconds per run, rounds
#   BENCH_RATES=0                    offered frames/s of the rounds, each
#                                    a table: 0 is saturation
#   BENCH_SEARCH=1 BENCH_LOSS=0.1    loss-free rate search on/off, loss
#                                    allowed (%)
#   BENCH_CONFIGS="noxdp rps rps-all steer default"   configurations
#                                    (below), in this order
#   BENCH_SETTLE=20                  seconds of saturation traffic after
#                                    each attach of "default", before its
#                                    measured run (0: none)
#   BENCH_REMATCH=3                  rounds of the rematch (0: none):
#                                    at saturation, with "default" and
#                                    splitN rows, the best split's row is
#                                    the best of noisy medians, so it reads
#                                    high (the winner's curse); that split
#                                    and "default" run again, alternately,
#                                    this many rounds each, and "default
#                                    reaches X" is taken from those
#   BENCH_DEFAULT_POLICY=FILE        the policy of "default" (the shipped
#                                    configs/default.yaml)
#   BENCH_BALANCE_LOG=FILE           append the balancer's output there
#   BENCH_BALANCE_ARGS=--json        options for the balancer (--json:
#                                    every round, with the climb's notes)
#   BENCH_RAW=FILE                   also write every run's numbers there
#                                    (tests/bench/project reads them)
#   BENCH_PROFILE=1                  profile every run (perf cpu-clock) and
#                                    print where the time goes, by stage of
#                                    the path (tests/bench/stages)
#   BENCH_DELIVER=local              B delivers the datagrams to a UDP sink
#                                    on the workers (throughput.sh's path)
#                                    instead of forwarding them to C
#
# Setup. Namespace A's traffic_gen sends UDP/IPv4 frames of N flows to
# 10.202.0.2 (C) through B's MAC. B ($IF_B, 10.200.0.2) forwards them
# (net.ipv4.ip_forward) out of $IF_BO (10.202.0.1) to C's $IF_C, where
# an XDP program drops them and the veth counts them: C's receive costs
# one XDP_DROP, paid by the CPU that forwarded the frame (veth runs the
# peer's NAPI in the sender's softirq), as a NIC's transmit and its
# completion would be (tests/bench/lib.sh, fwd_setup); that pair has a
# queue per CPU and each CPU transmits on its own (XPS), as on a NIC, so
# CPUs that forward side by side do not contend for one queue. C's
# program reads nothing of a frame, so this path cannot count reordered
# (late) frames;
# with BENCH_DELIVER=local the UDP sink counts them, as in throughput.sh.
# As in throughput.sh, $IF_B's NAPI is threaded and
# pinned to the collector (CPU 0) at real-time priority and the generator
# shares that CPU, so the offered load follows what the collector can
# take; every other online CPU is a worker. No application runs: the
# workers only forward.
#
# Configurations of $IF_B, each with GRO on:
#   noxdp       the collector forwards every frame itself
#   rps         "RPS, workers": rps_cpus = the workers: the collector
#               builds the skb (and runs GRO, which checks the UDP
#               checksum) and queues it to a worker's backlog; the worker
#               routes and transmits
#   rps-all     "RPS, every CPU": rps_cpus = every online CPU, the
#               collector's included, which forwards the flows it queues
#               to its own backlog itself (in its NAPI thread: in its time)
#   steer       xdp-steer, cpus = the workers: the collector runs XDP and
#               queues the frame to a worker's cpumap, where the skb is
#               built (GRO runs there) and forwarded
#   default     xdp-steer with configs/default.yaml as shipped, and the
#               adaptive balancer beside it as its systemd unit runs it
#               (`xdp-steer balance $IF_B` in B, started right after the
#               attach, stopped with SIGTERM before the next
#               configuration; its log in $E2E_TMP/balance.log). No cpus
#               key: a veth takes no RX interrupts, so every online CPU
#               works, the collector's included (its flows pass on the
#               fast path, in its NAPI thread). The balancer starts cold:
#               each attach is followed by BENCH_SETTLE seconds of
#               saturation traffic of the table's frame size and flow
#               count, then the measured run (rounds interleave the
#               configurations and each attaches anew, so every round
#               settles; so does the loss-free search, once). With the
#               policy's "balance: off" the balancer waits, moving nothing
#   default-nice0  "default" with the workers' kthreads at nice 0
#               (worker_sched: other), as the kernel makes them: the
#               shipped default before 2026-12-04 (nice 10 since; the
#               README's "Forwarding: xdp-steer against RPS" says why)
#   splitN      the ceiling of any balancer: xdp-steer with every CPU
#               working, N % of the table on the collector (1-99) and the
#               rest even over the workers, fixed (balance: off). A row
#               per N (BENCH_CONFIGS="... split30 split40 split50 ..."):
#               the best of them is the most a placement of whole buckets
#               forwards with the datapath as it is, whatever balances it;
#               splitN-noprog, splitN-notrace and splitN-nogro: the same
#               without the workers' program, the tracepoint programs, or
#               GRO (as steer-nogro below)
# and, for the worker-cost study (tests/bench/run worker), with one piece
# taken out or changed each:
#   rps-nogro   RPS with GRO off (an XDP_PASS program keeps the veth's NAPI)
#   steer-nogro xdp-steer with GRO off (the cpumap kthread skips GRO too)
#   steer-pass  xdp-steer, its worker program replaced by XDP_PASS alone
#   steer-clock ... by XDP_PASS after one bpf_ktime_get_ns()
#   steer-noprog ... by no program at all (the kernel skips the step)
#   steer-q256  xdp-steer with queue_size 256 (the default is 2048)
#   steer-notrace xdp-steer without its cpumap tracepoint programs (their
#               links unpinned: ring-full drops go uncounted)
#   steer-fifo  xdp-steer, its cpumap kthreads real-time (SCHED_FIFO 1):
#               they take the CPU from other tasks as RPS's softirq does
#   xdp-pass    no steering, an XDP_PASS program on $IF_B: what any XDP
#               program costs a veth (it turns the peer's skb into an
#               xdp_buff and back; a NIC's driver runs XDP before it
#               builds the skb), the floor of a flow on the fast path
#
# Measured per run (saturation: as fast as the collector lets the
# generator; a paced rate: frames offered at that rate; loss-free: the
# highest paced rate with at most BENCH_LOSS % lost, by bisection in
# 1-second runs). Rounds run every configuration in turn, so a burst of
# other work on the machine moves them alike; tables show medians, and
# differences to xdp-steer are medians of the differences within a round:
#   forwarded     frames C received per second of sending
#   collector ns  CPU time of $IF_B's NAPI thread (schedstat) per frame it
#                 took off the veth ring
#   workers ns    CPU time of receive processing on the worker CPUs per
#                 frame forwarded, exact (tests/bench/net_time): with
#                 xdp-steer the time of $IF_B's cpumap kthreads (C's
#                 receive runs in them too; under "default" the
#                 collector's CPU's kthread too, which is not its NAPI
#                 thread), without it the NET_RX softirqs' (RPS's backlog
#                 and C's receive; other tenants' softirqs on those CPUs
#                 count too; under "rps-all" the collector's own backlog
#                 runs in its NAPI thread, in the collector's time); under
#                 no XDP the workers have nothing to do and the
#                 collector's time is the whole cost
#   sink ns       with BENCH_DELIVER=local: CPU time of the sink's threads
#                 (schedstat) per datagram it read, less the softirqs that
#                 interrupted it (counted among the workers'); "forwarded"
#                 is then what it read, and "socket" drops the sockets' own
#   batch         frames per cpumap kthread batch (at most 8), and how many
#                 batches in 100 began with the kthread waking up
#   drops         frames sent and not forwarded, in % of sent, and where
#                 most went: ring (A's veth into B's ring), backlog (RPS's
#                 queue), egress ($IF_BO into C), or cpumap (the rest:
#                 xdp-steer's full rings)
#   late          with BENCH_DELIVER=local: datagrams the sink read after
#                 a later one of their flow (reordered)
# After each table, where "default" ran, per frame size and flow count
# (tests/bench/lib.sh, default_summary): "default over the best other:
# 1.23x (best other: RPS, workers)", the best other being the highest
# median forwarded rate of noxdp, rps and rps-all; "total CPU per frame
# forwarded" of default and of each RPS configuration: the collector's ns
# per frame it took plus the workers' ns per frame forwarded (the
# collector's time on frames dropped after it counts for no frame); and
# what the balancer moved while settling and while measured, with the
# late frames (with BENCH_DELIVER=local; not seen when forwarding); at
# saturation, with splitN rows, the rematch's line (BENCH_REMATCH).
# tests/bench/project projects these costs to N collectors and M workers
# (README, Benchmarks).
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/traffic_lib.sh"
. "$(dirname "$0")/lib.sh"

SUITE=bench/forward
SECONDS_PER_RUN=${BENCH_SECONDS:-2}
ROUNDS=${BENCH_ROUNDS:-3}
RATES=${BENCH_RATES:-0}
SIZES=${BENCH_SIZES:-60 1514}
FLOWS=${BENCH_FLOWS:-1 1000}
SEARCH=${BENCH_SEARCH:-1}
LOSS=${BENCH_LOSS:-0.1}
# 2 M frames/s is above what any configuration forwards here; 7 halvings
# resolve 16k frames/s.
SEARCH_HI=${BENCH_SEARCH_HI:-2000000}
SEARCH_STEPS=${BENCH_SEARCH_STEPS:-7}
REMATCH=${BENCH_REMATCH:-3}
read -r -a CONFIGS <<<"${BENCH_CONFIGS:-noxdp rps rps-all steer default}"
declare -A LABEL=([noxdp]="no XDP" [rps]="RPS, workers" [rps-all]="RPS, every CPU"
	[steer]="xdp-steer" [default]="xdp-steer, default"
	[rps-nogro]="RPS, GRO off" [steer-nogro]="steer, GRO off"
	[steer-pass]="steer, XDP_PASS worker" [steer-clock]="steer, XDP_PASS+clock"
	[steer-noprog]="steer, no worker prog" [steer-q256]="steer, queue 256"
	[steer-notrace]="steer, no tracepoints" [steer-fifo]="steer, kthread FIFO"
	[xdp-pass]="XDP_PASS alone" [default-nice0]="default, kthreads nice 0")
FLOWS_WIDTH=6	# the tables' flows column, for default_summary
split_labels noprog notrace nogro
for c in "${CONFIGS[@]}"; do
	[ -n "${LABEL[$c]:-}" ] || { echo "forward: unknown configuration '$c' (${!LABEL[*]})" >&2; exit 2; }
done
BASELINE_OBJ=$E2E_ROOT/tests/bench/baseline.bpf.o
CPUMAP_SET=$E2E_ROOT/tests/bench/cpumap_set
STAGES=$E2E_ROOT/tests/bench/stages
PROFILE=${BENCH_PROFILE:-0}
DELIVER=${BENCH_DELIVER:-forward}
case $DELIVER in
forward | local) ;;
*) echo "forward: BENCH_DELIVER is forward or local, not '$DELIVER'" >&2; exit 2 ;;
esac
# What reaches the end, and the run field of late frames: C's program
# cannot tell them ("-"), the sink can.
GOT=forwarded LATE_FIELD=-
[ "$DELIVER" = local ] && GOT=delivered LATE_FIELD=13
# A 2 kHz clock: 4000 samples a CPU in a 2-second run, and some 10 % of
# the time per frame added (perf in a VM); the stages are shares of each
# run, scaled to its own time per frame.
PROFILE_PERIOD_NS=500000
PERF_PID=
PROJECT=$E2E_ROOT/tests/bench/project

for b in "$FWD_OBJ" "$BASELINE_OBJ" "$CPUMAP_SET" "$XDP_STEER" "$TRAFFIC_GEN" \
	"$DEFAULT_POLICY"; do
	[ -e "$b" ] || { echo "forward: $b is missing; run make first" >&2; exit 1; }
done
if [ "$PROFILE" = 1 ] && ! perf record -q -e cpu-clock -o /dev/null true 2>/dev/null; then
	echo "forward: BENCH_PROFILE=1 needs perf and its cpu-clock event" >&2
	exit 1
fi
if [ "$(nproc)" -lt 2 ]; then
	echo "forward: needs at least 2 online CPUs (a collector and a worker)" >&2
	exit 1
fi

e2e_setup
traffic_init
fwd_cleanup() {
	[ -n "$PERF_PID" ] && kill -INT "$PERF_PID" 2>/dev/null && wait "$PERF_PID" 2>/dev/null
	sink_kill
	balancer_kill
	net_time_stop
	traffic_cleanup
	fwd_cleanup_c
}
trap fwd_cleanup EXIT

fwd_setup || { echo "forward: cannot set up B -> C" >&2; exit 1; }
net_time_start || exit 1

ALL_CPUS=$(traffic_online_cpus | paste -sd, -)
WORKERS=$(traffic_online_cpus | awk -v rx="$TRAFFIC_RX_CPU" '$1 != rx' |
	  paste -sd, -)
RPS_MASK=$(rps_mask "$WORKERS")
RPS_ALL_MASK=$(rps_mask "$ALL_CPUS")
cat >"$E2E_TMP/steer.yaml" <<EOF
version: 1
cpus: [$WORKERS]
EOF
cat >"$E2E_TMP/steer-q256.yaml" <<EOF
version: 1
cpus: [$WORKERS]
queue_size: 256
EOF

# worker_prog [PROGRAM]: every worker's cpumap entry runs PROGRAM of
# fwd.bpf.o instead of xdp-steer's, or no program.
worker_prog() {
	local cpu
	for cpu in ${WORKERS//,/ }; do
		"$CPUMAP_SET" "$PIN_B/cpu_map" "$cpu" 2048 ${1:+"$FWD_OBJ" "$1"} || return 1
	done
}

# kthreads_fifo: the kthreads of $IF_B's cpumaps on the workers
# SCHED_FIFO 1.
kthreads_fifo() {
	local p found=
	for p in $(cpumap_kthreads "$WORKERS"); do
		chrt -f -p 1 "$p" && found=1
	done
	[ -n "$found" ]
}

# steered CONFIG: xdp-steer is on $IF_B in CONFIG.
steered() { case $1 in steer* | default* | split*) return 0 ;; esac; return 1; }

# worker_cpus CONFIG: the CPUs whose receive processing is the workers'
# (net_time): under "default" the collector's too, whose cpumap kthread
# (frames queued to its own CPU while their bucket moves) is not its NAPI
# thread.
worker_cpus() { case $1 in default* | split*) echo "$ALL_CPUS" ;; *) echo "$WORKERS" ;; esac; }

# Leaves $IF_B in configuration $1, NAPI pinned; stops the balancer of
# the configuration before.
configure() {
	balancer_stop || { echo "forward: the balancer of '${LABEL[default]}' failed" >&2; exit 1; }
	in_b "$XDP_STEER" -q detach "$IF_B" >/dev/null 2>&1
	in_b xdp-loader unload -a "$IF_B" >/dev/null 2>&1
	set_rps 0
	in_b ethtool -K "$IF_B" gro on >/dev/null
	case $1 in
	rps) set_rps "$RPS_MASK" ;;
	rps-all) set_rps "$RPS_ALL_MASK" ;;
	rps-nogro)
		in_b xdp-loader load -m native -n bench_pass "$IF_B" "$BASELINE_OBJ" &&
			set_rps "$RPS_MASK" ;;
	xdp-pass)
		in_b xdp-loader load -m native -n bench_pass "$IF_B" "$BASELINE_OBJ" ;;
	steer | steer-nogro)
		in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/steer.yaml" ;;
	steer-notrace)
		in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/steer.yaml" &&
			rm "$PIN_B/tp_cpumap_enqueue" "$PIN_B/tp_cpumap_kthread" ;;
	steer-fifo)
		in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/steer.yaml" &&
			kthreads_fifo ;;
	steer-q256)
		in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/steer-q256.yaml" ;;
	default) default_attach ;;
	default-nice0) default_attach_nice0 ;;
	split*)
		local n=${1#split}
		split_policy "${n%%-*}" "$TRAFFIC_RX_CPU" "$WORKERS" >"$E2E_TMP/split.yaml" &&
			in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/split.yaml" &&
			case $1 in
			*-noprog) worker_prog ;;
			*-notrace) rm "$PIN_B/tp_cpumap_enqueue" "$PIN_B/tp_cpumap_kthread" ;;
			esac ;;
	steer-pass | steer-clock | steer-noprog)
		in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/steer.yaml" &&
			worker_prog "$(case $1 in
				steer-pass) echo bench_worker_pass ;;
				steer-clock) echo bench_worker_ktime ;;
				esac)" ;;
	esac || { echo "forward: cannot set up '${LABEL[$1]}' on $IF_B" >&2; exit 1; }
	case $1 in
	*-nogro) in_b ethtool -K "$IF_B" gro off >/dev/null ;;
	esac
	if steered "$1"; then net_time_maps "$PIN_B"; else net_time_maps; fi
	traffic_rx_pin >/dev/null || { echo "forward: cannot pin $IF_B's NAPI" >&2; exit 1; }
}

# Frames lost after the stack took them: $IF_BO could not hand them to C
# (C's ring full), or, delivering locally, the sockets had no room.
out_drops() {
	if [ "$DELIVER" = local ]; then
		socket_drops
	else
		ip netns exec "$NS_B" cat "/sys/class/net/$IF_BO/statistics/tx_dropped"
	fi
}

# run SIZE FLOWS CONFIG RATE SECONDS: one measured run in the current
# configuration (RATE 0: as fast as the collector lets the generator);
# prints "SIZE FLOWS CONFIG collector_ns forwarded_fps drops_pct
# workers_ns where offered_fps frames_per_batch woken_per_100_batches
# sink_ns late" (late: 0 when forwarding, where nothing counts it).
# Not in a subshell: net_time's coprocess belongs to this shell. With
# BENCH_PROFILE=1 also leaves the run's stages in $E2E_TMP/stages.run.
run() {
	local size=$1 flows=$2 config=$3 rate=$4 secs=$5
	local ns0 ns1 rd0 rd1 nt0 nt1 bl0 bl1 od0 od1 c0 c1 sn0=0 sn1=0 taken wk fwd late=0
	if [ "$DELIVER" = local ]; then
		sink_start || exit 1
		net_time_app "$SINK_PID"
		sn0=$(sink_ns)
	fi
	c0=$(c_frames) rd0=$(ring_drops) bl0=$(backlog_drops) od0=$(out_drops)
	ns0=$(napi_ns) nt0=$(net_time_snap)
	[ "$PROFILE" = 1 ] && profile_start
	gen_run --group "udp4:$flows${GEN_DST:+,dst=$GEN_DST}" --size "$size" \
		--rate "$rate" --duration "$secs" ||
		{ echo "forward: the generator failed" >&2; exit 1; }
	ns1=$(napi_ns)
	sleep 0.1	# let queued frames arrive (the kthread then sleeps)
	[ "$PROFILE" = 1 ] && profile_stop
	nt1=$(net_time_snap)
	c1=$(c_frames) rd1=$(ring_drops) bl1=$(backlog_drops) od1=$(out_drops)
	fwd=$((c1 - c0))
	if [ "$DELIVER" = local ]; then
		sn1=$(sink_ns)
		sink_stop
		fwd=$SINK_RECEIVED late=$SINK_LATE
	fi
	taken=$((GEN_SENT - (rd1 - rd0)))
	wk=$(net_time_delta "$nt0" "$nt1" "$(worker_cpus "$config")")
	# The softirqs that interrupted the sink are in its schedstat time,
	# not the sink's work.
	sn1=$((sn1 - $(awk '{ print $6 }' <<<"$wk")))
	# "WORK_NS BATCHES FRAMES WOKEN KTHREAD_PIDS": with xdp-steer the
	# kthreads' time alone (what softirqs run beside them is not ours).
	wk=$(awk -v k="$(steered "$config" && echo 1)" '{ print (k ? $1 : $1 + $2), $3, $4, $5, $7 }' \
		<<<"$wk")
	[ "$PROFILE" = 1 ] && profile_stages "$config" "$((ns1 - ns0))" "$taken" "$wk" \
		"$fwd" "$((sn1 - sn0))"
	awk -v ns=$((ns1 - ns0)) -v wk="$wk" -v taken="$taken" -v sink=$((sn1 - sn0)) \
	    -v fwd="$fwd" -v sent="$GEN_SENT" -v s="$GEN_SECONDS" -v late="$late" \
	    -v ring=$((rd1 - rd0)) -v backlog=$((bl1 - bl0)) -v out=$((od1 - od0)) \
	    -v outname="$([ "$DELIVER" = local ] && echo socket || echo egress)" \
	    -v pre="$size $flows $config" 'BEGIN {
		lost = sent - fwd; rest = lost - ring - backlog - out
		where = "-"; most = 0
		if (ring > most) { most = ring; where = "ring" }
		if (backlog > most) { most = backlog; where = "backlog" }
		if (out > most) { most = out; where = outname }
		if (rest > most) { most = rest; where = "cpumap" }
		split(wk, w, " ")
		printf "%s %.1f %.0f %.3f %.1f %s %.0f %.2f %.1f %.1f %d\n", pre,
			taken ? ns / taken : 0, fwd / s, sent ? 100 * lost / sent : 0,
			fwd ? w[1] / fwd : 0, where, sent / s,
			w[2] ? w[3] / w[2] : 0, w[2] ? 100 * w[4] / w[2] : 0,
			fwd ? sink / fwd : 0, late }'
}

# The collector's and the workers' CPUs, sampled during a run.
profile_start() {
	perf record -q -e cpu-clock -c "$PROFILE_PERIOD_NS" -g \
		-C "$TRAFFIC_RX_CPU,$WORKERS" -o "$E2E_TMP/perf.data" >/dev/null 2>&1 &
	PERF_PID=$!
	sleep 0.2	# perf is recording
}

profile_stop() {
	kill -INT "$PERF_PID"
	wait "$PERF_PID"
	PERF_PID=
}

# profile_stages CONFIG COLLECTOR_NS TAKEN WORKER_DELTA FORWARDED SINK_NS:
# the run's time per frame of each role, by stage (stages split).
profile_stages() {
	local w pids
	read -r w _ _ _ pids <<<"$4"
	{
		[ "$DELIVER" = local ] &&
			"$STAGES" split "$E2E_TMP/perf.data" --cpus "$WORKERS" --comm udp_sink --no-softirq \
				--ns "$(awk -v a="$6" -v b="$5" 'BEGIN { print b ? a / b : 0 }')" |
				sed "s/^/sink $1 /"
		"$STAGES" split "$E2E_TMP/perf.data" --cpus "$TRAFFIC_RX_CPU" \
			--comm "$(printf '%.15s' "napi/$IF_B-")" \
			--ns "$(awk -v a="$2" -v b="$3" 'BEGIN { print b ? a / b : 0 }')" |
			sed "s/^/collector $1 /"
		# xdp-steer's worker: its kthreads; else the NET_RX softirqs.
		[ "$1" = noxdp ] ||
			"$STAGES" split "$E2E_TMP/perf.data" --cpus "$(worker_cpus "$1")" \
				$(if steered "$1"; then echo --tids "$pids"; else echo --worker; fi) \
				--ns "$(awk -v a="$w" -v b="$5" 'BEGIN { print b ? a / b : 0 }')" |
				sed "s/^/worker $1 /"
	} >"$E2E_TMP/stages.run"
}

# search SIZE FLOWS CONFIG: the highest rate (frames/s) with at most LOSS %
# lost, by bisection; prints it with that run's fields.
search() {
	local PROFILE=0	# the probes are not profiled
	bench_search "$1" "$2" "$3" '$6 <= l' "$1 $2 $3 0 0 100 0 - 0 0 0 0 0"
}

# rows REGIME SIZE FLOWS CONFIG FIELD: a run field in each round (4:
# collector ns, 5: forwarded fps, 6: drops %, 7: workers ns, 8: where, 9:
# offered fps, 10: frames per batch, 11: woken per 100, 12: sink ns, 13:
# late); value: its median over the rounds.
rows() {
	awk -v g="$1" -v s="$2" -v f="$3" -v c="$4" -v k="$(($5 + 2))" \
		'$1 == g && $3 == s && $4 == f && $5 == c { print $k }' "$RUNS"
}
value() { rows "$@" | median; }
# best_split SIZE FLOWS: the splitN configuration with the highest median
# rate at saturation; nothing when none ran.
best_split() {
	local c v best= top=
	for c in "${CONFIGS[@]}"; do
		[[ $c =~ ^split[0-9]+$ ]] || continue
		v=$(value saturation "$1" "$2" "$c" 5)
		[ -n "$v" ] || continue
		if [ -z "$best" ] || awk -v a="$v" -v b="$top" 'BEGIN { exit !(a > b) }'; then
			best=$c top=$v
		fi
	done
	echo "$best"
}

# rematch SIZE FLOWS: the best split and "default" again, alternately,
# REMATCH rounds each at saturation (table "rematch"): the best split was
# picked as the highest of several noisy medians, which reads above its
# own rate; measured again beside the default, in the same stretch of
# the machine's time, it does not. Each round attaches anew (the
# default settles as in its rounds).
rematch() {
	local best r c
	[ "$REMATCH" -gt 0 ] && bench_has default && [[ " $RATES " == *" 0 "* ]] || return 0
	best=$(best_split "$1" "$2")
	[ -n "$best" ] || return 0
	for r in $(seq "$REMATCH"); do
		for c in "$best" default; do
			configure "$c"
			bench_settle rematch "$1" "$2" "$c" || exit 1
			run "$1" "$2" "$c" 0 "$SECONDS_PER_RUN" >"$E2E_TMP/line"
			echo "rematch $r $(cat "$E2E_TMP/line")" >>"$RUNS"
		done
	done
}

# rematch_summary: per frame size and flow count, the rematch's ratio:
# the default's median over the best split's (value), and the ratio
# within each round (min..max).
rematch_summary() {
	local size flows best sp d
	for size in $SIZES; do
		for flows in $FLOWS; do
			best=$(awk -v s="$size" -v f="$flows" '$1 == "rematch" && $3 == s &&
				$4 == f && $5 ~ /^split/ { print $5; exit }' "$RUNS")
			[ -n "$best" ] || continue
			sp=$(value rematch "$size" "$flows" "$best" 5)
			d=$(value rematch "$size" "$flows" default 5)
			awk -v s="$size" -v f="$flows" -v b="$best" -v lab="${LABEL[$best]}" \
			    -v fw="$FLOWS_WIDTH" -v what="$GOT" -v msp="$sp" -v md="$d" '
				$1 == "rematch" && $3 == s && $4 == f && $5 == b { sp[$2] = $7 }
				$1 == "rematch" && $3 == s && $4 == f && $5 == "default" { d[$2] = $7 }
				END {
					for (r in d) if (r in sp && sp[r] > 0) {
						x = d[r] / sp[r]
						if (!n || x < lo) lo = x
						if (!n || x > hi) hi = x
						n++
					}
					if (!n || msp <= 0) exit
					printf "%-6s %" fw "s  rematch, %d rounds each, alternately: %s %.0f, default %.0f kframes/s %s: default reaches %.2f of the best fixed split (each round %.2f..%.2f)\n",
						s + 4 "B", f, n, lab, msp / 1000, md / 1000, what,
						md / msp, lo, hi
				}' "$RUNS"
		done
	done
}

if [ "$DELIVER" = local ]; then
	GEN_DST=
	echo "Local delivery on veth, A -> B, UDP/IPv4 to a sink on the workers: B's collector CPU $TRAFFIC_RX_CPU (threaded NAPI, with the generator), workers $WORKERS"
else
	GEN_DST=$IP_C
	echo "Forwarding on veth, A -> B -> C, UDP/IPv4: B's collector CPU $TRAFFIC_RX_CPU (threaded NAPI, with the generator), workers $WORKERS"
fi
bench_machine
default_header

# Every run, a line: "REGIME ROUND " and run's fields; REGIME is
# saturation, rate<N> or lossfree.
RUNS=$E2E_TMP/runs
STAGE_RUNS=$E2E_TMP/stages
: >"$RUNS"
: >"$STAGE_RUNS"
regime() { [ "$1" = 0 ] && echo saturation || echo "rate$1"; }
for size in $SIZES; do
	for flows in $FLOWS; do
		for rate in $RATES; do
			for r in $(seq "$ROUNDS"); do
				for c in "${CONFIGS[@]}"; do
					configure "$c"
					bench_settle "$(regime "$rate")" "$size" "$flows" "$c" || exit 1
					run "$size" "$flows" "$c" "$rate" "$SECONDS_PER_RUN" \
						>"$E2E_TMP/line"
					echo "$(regime "$rate") $r $(cat "$E2E_TMP/line")" >>"$RUNS"
					[ "$PROFILE" = 1 ] &&
						sed "s/^/$(regime "$rate") $r $size $flows /" \
							"$E2E_TMP/stages.run" >>"$STAGE_RUNS"
				done
			done
		done
		rematch "$size" "$flows"
		if [ "$SEARCH" = 1 ]; then
			for c in "${CONFIGS[@]}"; do
				configure "$c"
				bench_settle lossfree "$size" "$flows" "$c" || exit 1
				# Not $(search): run must stay in this shell.
				search "$size" "$flows" "$c" >"$E2E_TMP/line"
				echo "lossfree 1 $(cat "$E2E_TMP/line")" >>"$RUNS"
			done
		fi
		echo "  measured $((size + 4))-byte frames, $flows flows" >&2
	done
done
balancer_stop || { echo "forward: the balancer of '${LABEL[default]}' failed" >&2; exit 1; }
# project reads "REGIME SIZE FLOWS CONFIG ...": the round dropped.
[ -n "${BENCH_RAW:-}" ] && cut -d' ' -f1,3- "$RUNS" >"$BENCH_RAW"

# where REGIME SIZE FLOWS CONFIG: the drop point most rounds name.
where() {
	awk -v g="$1" -v s="$2" -v f="$3" -v c="$4" \
		'$1 == g && $3 == s && $4 == f && $5 == c { print $10 }' "$RUNS" |
		sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }'
}
# versus REGIME SIZE FLOWS CONFIG FIELD: CONFIG's field minus xdp-steer's
# in the same round, "median (min..max)" over the rounds.
versus() {
	awk -v g="$1" -v s="$2" -v f="$3" -v c="$4" -v k="$(($5 + 2))" '
		$1 == g && $3 == s && $4 == f && $5 == c { x[$2] = $k }
		$1 == g && $3 == s && $4 == f && $5 == "steer" { b[$2] = $k }
		END { for (r in x) if (r in b) print x[r] - b[r] }' "$RUNS" |
		sort -g | awk '{ v[NR] = $1 } END {
			if (NR) printf "%+.0f (%+.0f..%+.0f)", v[int((NR + 1) / 2)], v[1], v[NR]
			else printf "-" }'
}

table() {
	local g=$1 size flows c sk=
	# With local delivery, the sink's column after the workers'.
	[ "$DELIVER" = local ] && sk=1
	printf '%-6s %6s  %-22s %9s %9s %9s %9s%s %9s %-8s %11s\n' frame flows config \
		offered "$GOT" collector workers "${sk:+$(printf ' %9s' sink)}" drops "" batch
	printf '%-6s %6s  %-22s %9s %9s %9s %9s%s %9s %-8s %11s\n' "" "" "" \
		kfps kfps "ns/frame" "ns/frame" "${sk:+$(printf ' %9s' ns/frame)}" "%" "at" \
		"frames woke"
	for size in $SIZES; do
		for flows in $FLOWS; do
			for c in "${CONFIGS[@]}"; do
				printf '%-6s %6s  %-22s %9.0f %9.0f %9.1f %9.1f%s %9.3f %-8s %11s\n' \
					"$((size + 4))B" "$flows" "${LABEL[$c]}" \
					"$(value "$g" "$size" "$flows" "$c" 9 | awk '{ print $1 / 1000 }')" \
					"$(value "$g" "$size" "$flows" "$c" 5 | awk '{ print $1 / 1000 }')" \
					"$(value "$g" "$size" "$flows" "$c" 4)" \
					"$(value "$g" "$size" "$flows" "$c" 7)" \
					"${sk:+$(printf ' %9.1f' "$(value "$g" "$size" "$flows" "$c" 12)")}" \
					"$(value "$g" "$size" "$flows" "$c" 6)" \
					"$(where "$g" "$size" "$flows" "$c")" \
					"$(if steered "$c"; then printf '%.1f %4.0f%%' \
						"$(value "$g" "$size" "$flows" "$c" 10)" \
						"$(value "$g" "$size" "$flows" "$c" 11)"
					   else echo -; fi)"
			done
		done
	done
}

# pieces REGIME: each configuration's worker and collector time per frame
# (and the sink's, delivering locally) against xdp-steer's, within rounds.
pieces() {
	local g=$1 size flows c
	local f='%-6s %6s  %-22s %9s %-24s %9s %-24s%s\n'
	printf "$f" frame flows config workers "vs xdp-steer, median" \
		collector "vs xdp-steer, median" \
		"$([ "$DELIVER" = local ] && printf ' %9s %s' sink "vs xdp-steer")"
	printf "$f" "" "" "" "ns/frame" "(min..max) ns/frame" "ns/frame" \
		"(min..max) ns/frame" "$([ "$DELIVER" = local ] && printf ' %9s' ns/frame)"
	for size in $SIZES; do
		for flows in $FLOWS; do
			for c in "${CONFIGS[@]}"; do
				printf "$f" "$((size + 4))B" "$flows" "${LABEL[$c]}" \
					"$(value "$g" "$size" "$flows" "$c" 7 | awk '{ printf "%.0f", $1 }')" \
					"$(versus "$g" "$size" "$flows" "$c" 7)" \
					"$(value "$g" "$size" "$flows" "$c" 4 | awk '{ printf "%.0f", $1 }')" \
					"$(versus "$g" "$size" "$flows" "$c" 4)" \
					"$([ "$DELIVER" = local ] && printf ' %9.0f %s' \
						"$(value "$g" "$size" "$flows" "$c" 12)" \
						"$(versus "$g" "$size" "$flows" "$c" 12)")"
			done
		done
	done
}

# summary: forwarded frames and the collector's cost of xdp-steer against
# no XDP and RPS, as ratios of medians of this run, per table.
summary() {
	local g=$1 size flows
	printf '%-6s %5s | %-29s | %-29s\n' "" "" "forwarded kfps" "collector ns/frame"
	printf '%-6s %5s | %7s %7s %7s %5s | %7s %7s %7s %5s\n' frame flows \
		"no XDP" RPS steer "/RPS" "no XDP" RPS steer "/RPS"
	for size in $SIZES; do
		for flows in $FLOWS; do
			awk -v fr="$((size + 4))B" -v fl="$flows" \
			    -v nf="$(value "$g" "$size" "$flows" noxdp 5)" \
			    -v rf="$(value "$g" "$size" "$flows" rps 5)" \
			    -v sf="$(value "$g" "$size" "$flows" steer 5)" \
			    -v nc="$(value "$g" "$size" "$flows" noxdp 4)" \
			    -v rc="$(value "$g" "$size" "$flows" rps 4)" \
			    -v sc="$(value "$g" "$size" "$flows" steer 4)" '
			function r(b, s) { return b ? sprintf("%.2f", s / b) : "-" }
			BEGIN {
				printf "%-6s %5s | %7.0f %7.0f %7.0f %5s | %7.0f %7.0f %7.0f %5s\n",
					fr, fl, nf / 1000, rf / 1000, sf / 1000, r(rf, sf),
					nc, rc, sc, r(rc, sc)
			}'
		done
	done
}

for rate in $RATES; do
	g=$(regime "$rate")
	echo
	if [ "$rate" = 0 ]; then
		echo "== Saturation: as fast as the collector lets the generator send; ${SECONDS_PER_RUN} s runs, median of $ROUNDS"
	else
		echo "== $((rate / 1000)) kframes/s offered; ${SECONDS_PER_RUN} s runs, median of $ROUNDS"
	fi
	table "$g"
	default_summary "$g" "$GOT" 5 4 7 "$LATE_FIELD"
	[ "$rate" = 0 ] && rematch_summary
	if bench_has noxdp && bench_has rps && bench_has steer; then
		echo "-- xdp-steer against no XDP and RPS (medians)"
		summary "$g"
	fi
	if bench_has steer && [ "${#CONFIGS[@]}" -gt 1 ]; then
		echo "-- time per frame against xdp-steer's in the same round"
		pieces "$g"
	fi
	if [ "$PROFILE" = 1 ]; then
		for size in $SIZES; do
			for flows in $FLOWS; do
				echo "-- where the time goes, $((size + 4))-byte frames, $flows flows (perf profile of each run, tests/bench/stages)"
				awk -v g="$g" -v s="$size" -v f="$flows" '$1 == g && $3 == s && $4 == f' \
					"$STAGE_RUNS" >"$E2E_TMP/stages.one"
				"$STAGES" table "$E2E_TMP/stages.one"
			done
		done
	fi
done
if [ "$SEARCH" = 1 ]; then
	echo
	echo "== Loss-free: the highest rate with at most $LOSS % lost (bisection, 1 s runs)"
	table lossfree
	default_summary lossfree "$GOT" 5 4 7 "$LATE_FIELD"
fi
if [ "$DELIVER" = forward ] && bench_has rps && bench_has steer && [[ " $RATES " == *" 0 "* ]]; then
	for size in $SIZES; do
		echo
		echo "== Projection from the saturation costs above, $((size + 4))-byte frames (tests/bench/project; README, Benchmarks)"
		cut -d' ' -f1,3- "$RUNS" |
			"$PROJECT" --raw - --size "$size" --flows "$(echo $FLOWS | awk '{ print $NF }')"
	done
fi
