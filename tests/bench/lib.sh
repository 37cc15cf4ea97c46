# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared by the end-to-end benchmarks (throughput.sh, forward.sh,
# settle.sh): where a table was measured, the counters they read around a
# run, forwarding's B -> C leg, the shipped policy with its balancer (the
# configuration "default": start, settle phase, stop) and the lines that
# set it against the other configurations. Source after tests/e2e/lib.sh
# and traffic_lib.sh; set WORKERS (comma-separated CPU ids) before calling
# workers_ns.

# bench_machine: the lines that say where a table was measured. Per-frame
# costs differ between machines of one kind by the mitigations in force
# (retpolines, SRSO's Safe RET) as much as by the CPU.
bench_machine() {
	local model fam mod
	model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	fam=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	mod=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	echo "CPU: ${model:-unknown} (family ${fam:-?} model ${mod:-?}), $(nproc) online;" \
		"kernel $(uname -r), CONFIG_HZ $(zcat /proc/config.gz 2>/dev/null |
			sed -n 's/^CONFIG_HZ=//p')"
	echo "mitigations: $(bench_mitigations)"
	bench_wake
	bench_sender
}

# bench_wake: what waking a thread asleep on another, idle CPU costs here
# (tests/bench/wake_rtt), which steering and RPS pay whenever a worker ran
# dry, and which differs between machines by tens of microseconds.
bench_wake() {
	local w=$E2E_ROOT/tests/bench/wake_rtt
	[ -x "$w" ] && [ "$(nproc)" -ge 2 ] || return 0
	"$w" 0 1 | sed 's/^wake_rtt: /wake-up: /'
}

# bench_sender: which of traffic_gen's senders runs here (live, fanout or
# socket: what the tables can show depends on it, tests/bench/README.md,
# "The traffic source"): TRAFFIC_GEN_SENDER's, else live where one live
# frame goes out A -> B, else fanout (auto's choice).
bench_sender() {
	local s=${TRAFFIC_GEN_SENDER:-auto}
	[ -n "${NS_A:-}" ] && [ -e /run/netns/"$NS_A" ] || return 0
	if [ "$s" = auto ]; then
		s=fanout
		in_a "$TRAFFIC_GEN" --ifname "$IF_A" --dst-mac "$MAC_B" --sender live \
			--count 1 --group arp:1 >/dev/null 2>&1 && s=live
	fi
	echo "traffic: traffic_gen's $s sender"
}

# bench_mitigations: the kernel's mitigations= parameter and each
# vulnerability the kernel mitigates, with the first clause of how.
bench_mitigations() {
	local f v out=
	v=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^mitigations=//p')
	out="mitigations=${v:-auto}"
	for f in /sys/devices/system/cpu/vulnerabilities/*; do
		[ -r "$f" ] || continue
		v=$(cat "$f")
		case $v in
		Mitigation:*) out+="; $(basename "$f"): $(sed 's/^Mitigation: //; s/;.*//' <<<"$v")" ;;
		Vulnerable*) out+="; $(basename "$f"): vulnerable" ;;
		esac
	done
	echo "$out"
}

# rps_mask CPUS: the rps_cpus mask of a comma-separated CPU list (hex,
# comma-separated in 32-bit words, high first).
rps_mask() {
	local -a w=()
	local c i hi=0 out=
	for c in ${1//,/ }; do
		w[c / 32]=$(( ${w[c / 32]:-0} | 1 << (c % 32) ))
		[ $((c / 32)) -gt $hi ] && hi=$((c / 32))
	done
	for ((i = hi; i >= 0; i--)); do
		out+=$(printf '%s%x' "${out:+,}" "${w[i]:-0}")
	done
	echo "$out"
}

# set_rps MASK: rps_cpus of every receive queue of $IF_B (the namespace's
# own /sys).
set_rps() {
	ip netns exec "$NS_B" sh -c \
		"for q in /sys/class/net/$IF_B/queues/rx-*/rps_cpus; do echo $1 > \$q || exit 1; done"
}

# napi_ns: nanoseconds the NAPI threads of $IF_B have run (schedstat).
napi_ns() {
	local p s=0 t
	for p in $(traffic_napi_pids); do
		read -r t _ <"/proc/$p/schedstat" && s=$((s + t))
	done
	echo "$s"
}

# workers_ns: nanoseconds the CPUs in $WORKERS were busy (/proc/stat: user,
# nice, system, irq, softirq; in USER_HZ ticks).
workers_ns() {
	awk -v cpus=",$WORKERS," -v hz="$(getconf CLK_TCK)" '
		$1 ~ /^cpu[0-9]+$/ && index(cpus, "," substr($1, 4) ",") {
			t += $2 + $3 + $4 + $7 + $8 }
		END { printf "%.0f\n", t * 1e9 / hz }' /proc/stat
}

# ring_drops: frames A's veth could not put on B's ring: they never
# reached the collector.
ring_drops() {
	_ethtool_sum "$NS_A" "$IF_A" '^tx_queue_[0-9]+_xdp_xmit_errors:'
}

# backlog_drops: frames the backlogs of all CPUs dropped (softnet_stat's
# second column).
backlog_drops() {
	local d s=0
	for d in $(awk '{ print $2 }' /proc/net/softnet_stat); do
		s=$((s + 16#$d))
	done
	echo "$s"
}

# socket_drops: datagrams B's UDP sockets had no room for.
socket_drops() {
	traffic_snmp_get "$(traffic_snmp "$NS_B")" Udp:RcvbufErrors
}

# bench_search SIZE FLOWS CONFIG ACCEPT FALLBACK: the highest rate
# (frames/s) whose 1-second run (the script's run SIZE FLOWS CONFIG RATE 1)
# meets the awk condition ACCEPT over run's line (l: $LOSS, the loss
# allowed), by bisection in $SEARCH_STEPS steps below $SEARCH_HI; prints
# that run's line, or FALLBACK when none did. Not in a subshell: run may
# need this shell.
bench_search() {
	local lo=0 hi=$SEARCH_HI mid i best= line
	for i in $(seq "$SEARCH_STEPS"); do
		mid=$(( (lo + hi) / 2 ))
		run "$1" "$2" "$3" "$mid" 1 >"$E2E_TMP/probe"
		line=$(cat "$E2E_TMP/probe")
		if awk -v l="$LOSS" "{ exit !($4) }" <<<"$line"; then
			lo=$mid best=$line
		else
			hi=$mid
		fi
	done
	echo "${best:-$5}"
}

# median: of the numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Receive processing time per CPU, exact (tests/bench/net_time.c): a
# coprocess from net_time_start until the script exits.
NET_TIME=${NET_TIME:-$E2E_ROOT/tests/bench/net_time}
net_time_start() {
	[ -x "$NET_TIME" ] || { echo "$NET_TIME is missing; run make first" >&2; return 1; }
	coproc NET_TIME_CO { exec "$NET_TIME"; }
	net_time_snap >/dev/null
}

net_time_stop() {
	[ -n "${NET_TIME_CO_PID:-}" ] || return 0
	kill "$NET_TIME_CO_PID" 2>/dev/null
	wait "$NET_TIME_CO_PID" 2>/dev/null
	NET_TIME_CO_PID=
}

# net_time_maps [IFACE_PIN_DIR]: count the kthreads of that interface's
# cpumaps (none without an argument).
net_time_maps() {
	local ids= m
	for m in "${1:+$1/cpu_map}" "${1:+$1/cpu_map_b}"; do
		[ -n "$m" ] && ids+=" $(bpftool map show pinned "$m" 2>/dev/null |
			sed -n '1s/^\([0-9]*\):.*/\1/p')"
	done
	echo "maps$ids" >&"${NET_TIME_CO[1]}"
}

# net_time_app [TGID]: tell apart the softirq time run in that process's
# threads (none without an argument).
net_time_app() {
	echo "app ${1:-0}" >&"${NET_TIME_CO[1]}"
}

# net_time_snap: one line, "CPU:KTHREAD_NS:SOFTIRQ_NS:SOFTIRQS:BATCHES:
# FRAMES:WOKEN:APP_SOFTIRQ_NS:KTHREAD_PID" per CPU (totals).
net_time_snap() {
	local line
	echo snap >&"${NET_TIME_CO[1]}"
	read -r -u "${NET_TIME_CO[0]}" line || { echo "net_time died" >&2; return 1; }
	echo "$line"
}

# net_time_delta BEFORE AFTER CPUS: over the CPUs of the comma-separated
# list, "KTHREAD_NS SOFTIRQ_NS BATCHES FRAMES WOKEN APP_SOFTIRQ_NS PIDS"
# between two snaps: the chosen kthreads' time, the NET_RX softirqs'
# outside them (anyone's: other tenants' traffic too), the kthreads'
# batches, the softirq time run in the application's threads, and the
# kthreads' pids (comma-separated).
net_time_delta() {
	awk -v a="$1" -v b="$2" -v cpus=",$3," 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) {
			split(x[i], p, ":"); split(y[i], q, ":")
			if (!index(cpus, "," p[1] ",")) continue
			kt += q[2] - p[2]; si += q[3] - p[3]
			bt += q[5] - p[5]; fr += q[6] - p[6]; wk += q[7] - p[7]
			app += q[8] - p[8]
			if (q[9]) pids = pids (pids == "" ? "" : ",") q[9]
		}
		printf "%.0f %.0f %.0f %.0f %.0f %.0f %s\n", kt, si, bt, fr, wk, app,
			pids == "" ? "-" : pids
	}'
}

# The application end of local delivery (tests/bench/udp_sink): one thread
# and socket per CPU in $WORKERS, in $NS_B. sink_start runs it until
# sink_stop, which leaves SINK_RECEIVED and SINK_LATE. Not in a subshell:
# the cleanup needs $SINK_PID.
UDP_SINK=${UDP_SINK:-$E2E_ROOT/tests/bench/udp_sink}
SINK_PID=
sink_start() {
	local ready=$E2E_TMP/sink.ready
	rm -f "$ready"
	# nsenter execs the sink, so $! is its pid (a subshell would ignore
	# the signal that stops it: background jobs of scripts ignore SIGINT).
	nsenter --net=/run/netns/"$NS_B" "$UDP_SINK" --cpus "$WORKERS" --port 9000 \
		--ready "$ready" >"$E2E_TMP/sink.out" &
	SINK_PID=$!
	while [ ! -e "$ready" ]; do
		kill -0 "$SINK_PID" 2>/dev/null || { echo "udp_sink died" >&2; return 1; }
		sleep 0.02
	done
}

sink_stop() {
	local out=$E2E_TMP/sink.out
	kill -TERM "$SINK_PID"
	wait "$SINK_PID"
	SINK_PID=
	SINK_RECEIVED=$(sed -n 's/.*received=\([0-9]*\).*/\1/p' "$out")
	SINK_LATE=$(sed -n 's/.*late=\([0-9]*\).*/\1/p' "$out")
}

# sink_kill: for a cleanup.
sink_kill() {
	[ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null && wait "$SINK_PID" 2>/dev/null
	SINK_PID=
}

# sink_ns: nanoseconds the sink's threads have run (schedstat).
sink_ns() {
	local t s=0 v
	for t in /proc/"$SINK_PID"/task/*/schedstat; do
		read -r v _ <"$t" 2>/dev/null && s=$((s + v))
	done
	echo "$s"
}

# bench_has CONFIG: CONFIG is one of the run's configurations ($CONFIGS).
bench_has() { [[ " ${CONFIGS[*]} " == *" $1 "* ]]; }

# cpumap_kthreads CPUS: pids of the kthreads of $IF_B's cpumaps on the
# CPUs of the comma-separated list. A kthread's comm is its whole name,
# "cpumap/<cpu>/map:<map id>".
cpumap_kthreads() {
	local m id cpu p comm
	for m in cpu_map cpu_map_b; do
		id=$(bpftool map show pinned "$PIN_B/$m" 2>/dev/null |
			sed -n '1s/^\([0-9]*\):.*/\1/p')
		[ -n "$id" ] || continue
		for cpu in ${1//,/ }; do
			for p in /proc/[0-9]*; do
				read -r comm 2>/dev/null <"$p/comm" || continue
				[ "$comm" = "cpumap/$cpu/map:$id" ] && echo "${p#/proc/}"
			done
		done
	done
}

# pids_ns PID...: nanoseconds these threads have run (schedstat).
pids_ns() {
	local p s=0 t
	for p in "$@"; do
		read -r t _ 2>/dev/null <"/proc/$p/schedstat" && s=$((s + t))
	done
	echo "$s"
}

# ---- forwarding: B -> C ----------------------------------------------------
# Namespace C behind a second veth pair: B ($IF_BO, 10.202.0.1) routes
# the generator's frames (to 10.202.0.2) out to C's $IF_C, where an XDP
# program (tests/bench/fwd.bpf.c) drops them and the veth counts them
# (c_frames). C's receive costs one XDP_DROP, paid by the CPU that
# forwarded the frame (veth runs the peer's NAPI in the sender's
# softirq), as a NIC's transmit and its completion would be. The program
# reads nothing of a frame: C cannot tell a reordered frame (the UDP sink
# of throughput.sh, or forward.sh's BENCH_DELIVER=local, counts those).
# fwd_setup after e2e_setup; fwd_cleanup_c in the cleanup ($IF_BO and
# $IF_C go with the namespaces).
NS_C=xst-$E2E_ID-c
IF_BO=xso$E2E_ID
IF_C=xsc$E2E_ID
IP_BO=10.202.0.1
IP_C=10.202.0.2
FWD_OBJ=$E2E_ROOT/tests/bench/fwd.bpf.o

in_c() { nsenter --net=/run/netns/"$NS_C" "$@"; }

# B's egress, as a NIC's: a transmit queue per CPU, each CPU sending on
# its own (XPS), C's receive (and its XDP program) per queue. One queue
# shared would make every CPU that forwards contend on it (its ring's
# producer lock, C's NAPI), which a router's NIC does not: then each
# configuration in which two CPUs forward (RPS over every CPU, xdp-steer
# with the collector working) paid for the bench's veth, not for its own
# work (tests/bench/README.md, "Forwarding: xdp-steer against RPS").
FWD_QUEUES=$(nproc)

# fwd_xps: each online CPU transmits on its own queue of $IF_BO.
fwd_xps() {
	local i=0 cpu
	for cpu in $(traffic_online_cpus); do
		[ "$i" -lt "$FWD_QUEUES" ] || break
		ip netns exec "$NS_B" sh -c "echo $(rps_mask "$cpu") > /sys/class/net/$IF_BO/queues/tx-$i/xps_cpus" ||
			return 1
		i=$((i + 1))
	done
}

# IPv6 off on the pair, so nothing but the generator's frames crosses it.
fwd_setup() {
	local mac_c
	ip netns add "$NS_C" &&
	ip link add "$IF_BO" netns "$NS_B" numtxqueues "$FWD_QUEUES" numrxqueues "$FWD_QUEUES" \
		type veth peer name "$IF_C" netns "$NS_C" \
		numtxqueues "$FWD_QUEUES" numrxqueues "$FWD_QUEUES" &&
	fwd_xps &&
	in_b sysctl -qw "net.ipv6.conf.$IF_BO.disable_ipv6=1" &&
	in_c sysctl -qw "net.ipv6.conf.$IF_C.disable_ipv6=1" &&
	ip -n "$NS_B" addr add "$IP_BO/24" dev "$IF_BO" &&
	ip -n "$NS_C" addr add "$IP_C/24" dev "$IF_C" &&
	ip -n "$NS_C" link set lo up &&
	ip -n "$NS_B" link set "$IF_BO" up && ip -n "$NS_C" link set "$IF_C" up &&
	# The generator's sources (10.201.0.x) have no route back: no
	# reverse-path filter.
	in_b sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
		"net.ipv4.conf.$IF_B.rp_filter=0" &&
	mac_c=$(ip -n "$NS_C" link show "$IF_C" | awk '/link\/ether/ { print $2 }') &&
	ip -n "$NS_B" neigh replace "$IP_C" lladdr "$mac_c" dev "$IF_BO" nud permanent &&
	# B is a sender now: a checksum left to offload would be unfinished.
	in_b ethtool -K "$IF_BO" tx off >/dev/null &&
	in_c xdp-loader load -m native -n bench_drop "$IF_C" "$FWD_OBJ"
}

fwd_cleanup_c() {
	ip netns del "$NS_C" 2>/dev/null
	return 0
}

# Frames C's XDP program took (and dropped).
c_frames() {
	_ethtool_sum "$NS_C" "$IF_C" '^rx_queue_[0-9]+_xdp_drops:'
}

# ---- the configuration "default": the shipped policy, and its balancer ----
# configs/default.yaml as shipped (BENCH_DEFAULT_POLICY=FILE: another
# policy). It has no cpus key: every online CPU that takes none of the
# interface's RX interrupts works, and a veth takes none, so every online
# CPU works, the collector's included. Beside it the adaptive balancer as
# its unit (xdp-steer-balance@IFACE) runs it, `xdp-steer balance $IF_B`
# in B's namespace, from right after the attach until the next
# configuration (balancer_stop), or the cleanup (balancer_kill); its
# output is in $E2E_TMP/balance.log (this attach's alone), whose last
# lines are shown when it fails, and, with BENCH_BALANCE_LOG=FILE,
# appended to FILE when it stops;
# BENCH_BALANCE_ARGS adds options to it (--json: every round, with the
# climb's note, for reading what it tried).
# It follows the policy's balance key: with "off" it waits and
# moves nothing. It starts cold (the table as the attach built it), so
# the scripts give it BENCH_SETTLE seconds of traffic after each attach
# (bench_settle) before measuring.
DEFAULT_POLICY=${BENCH_DEFAULT_POLICY:-$E2E_ROOT/configs/default.yaml}
SETTLE=${BENCH_SETTLE:-20}
BAL_LOG=
BAL_PID=
BAL_TABLE=
BAL_SETTLED=0

# ---- the configurations "splitN": fixed shares of the table ----
# split_labels [SUFFIX...]: a LABEL for each splitN of $CONFIGS (N 1-99,
# else none: the script's check then refuses it by name), and for each
# splitN-SUFFIX the script offers (forward.sh: noprog, notrace, nogro).
split_labels() {
	local c n sfx
	declare -A what=([noprog]="-worker prog" [notrace]="-tracepoints" [nogro]="GRO off")
	for c in "${CONFIGS[@]}"; do
		[[ $c =~ ^split([0-9]{1,2})(-([a-z]+))?$ ]] || continue
		n=$((10#${BASH_REMATCH[1]})) sfx=${BASH_REMATCH[3]}
		[ "$n" -ge 1 ] || continue
		if [ -z "$sfx" ]; then
			LABEL[$c]="fixed, collector $n %"
		elif [[ " $* " == *" $sfx "* ]]; then
			LABEL[$c]="fixed $n %, ${what[$sfx]:-$sfx}"
		fi
	done
	return 0
}

# split_policy N COLLECTOR WORKERS: a policy that gives the collector N %
# of the table and each of the workers (a comma-separated list) an even
# part of the rest, fixed: weights N * workers and 100 - N each.
split_policy() {
	local n=$1 rx=$2 w nw
	nw=$(tr ',' '\n' <<<"$3" | grep -c .)
	printf 'version: 1\nbalance: off\ncpus: [{cpu: %s, weight: %s}' "$rx" $((n * nw))
	for w in ${3//,/ }; do
		printf ', {cpu: %s, weight: %s}' "$w" $((100 - n))
	done
	printf ']\n'
}

# default_header: with "default" among the configurations, the line that
# says what it runs (the policy's balance key as `xdp-steer check` reads
# it) and how long it settles.
default_header() {
	bench_has default || return 0
	echo "default: xdp-steer with $(policy_said), \`xdp-steer balance\` beside it;" \
		"after each attach $SETTLE s of saturation traffic to settle, then the measured run"
}

# policy_balance: $DEFAULT_POLICY's balance key as `xdp-steer check`
# reads it; policy_said: its path (from the top of the tree) with it.
policy_balance() {
	local bal
	bal=$("$XDP_STEER" check --policy "$DEFAULT_POLICY" 2>/dev/null | sed -n 's/^balance: //p')
	echo "${bal:-?}"
}
policy_said() { echo "${DEFAULT_POLICY#"$E2E_ROOT"/} (balance: $(policy_balance))"; }

# default_attach: $IF_B steered by $DEFAULT_POLICY, the balancer started.
default_attach() {
	in_b "$XDP_STEER" -q attach "$IF_B" --policy "$DEFAULT_POLICY" && balancer_start
}

# default_attach_nice0: the same with worker_sched: other added to the
# policy (the kthreads at nice 0, as the kernel makes them).
default_attach_nice0() {
	{ cat "$DEFAULT_POLICY"; echo "worker_sched: other"; } >"$E2E_TMP/default-nice0.yaml" &&
		in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/default-nice0.yaml" &&
		balancer_start
}

# Not in a subshell: balancer_stop and the cleanup need $BAL_PID.
balancer_start() {
	BAL_LOG=$E2E_TMP/balance.log
	echo "== $(date +%T.%N): attached $DEFAULT_POLICY" >"$BAL_LOG"
	# nsenter execs xdp-steer, so $! is the balancer's pid.
	# shellcheck disable=SC2086 # BENCH_BALANCE_ARGS: words, as given
	nsenter --net=/run/netns/"$NS_B" "$XDP_STEER" balance "$IF_B" ${BENCH_BALANCE_ARGS:-} >>"$BAL_LOG" 2>&1 &
	BAL_PID=$!
	BAL_TABLE='' BAL_SETTLED=0
	sleep 0.1
	balancer_alive
}

# balancer_alive: the balancer still runs; else says how it ended.
balancer_alive() {
	local rc
	kill -0 "$BAL_PID" 2>/dev/null && return 0
	wait "$BAL_PID"
	rc=$?
	BAL_PID=
	balancer_said "ended before it was stopped (status $rc)"
	return 1
}

balancer_said() {
	echo "the balancer (xdp-steer balance $IF_B) $1; the last lines of its log:" >&2
	tail -n 5 "$BAL_LOG" | sed 's/^/  /' >&2
}

# balancer_moves: the buckets the balancer has moved since it started
# (xdp-steer status --json: balance.moves); nothing when status fails.
balancer_moves() {
	in_b "$XDP_STEER" status "$IF_B" --json 2>/dev/null |
		sed -n 's/.*"balance": {[^}]*"moves": \([0-9]*\).*/\1/p'
}

# balancer_stop: SIGTERM, and waits for it to end. First adds its moves to
# $E2E_TMP/balance.moves, "TABLE SIZE FLOWS SETTLING MEASURING", where it
# settled for a table (bench_settle). Fails if it had ended before or ends
# with an error.
balancer_stop() {
	local m rc
	[ -n "$BAL_PID" ] || return 0
	balancer_alive || return 1
	if [ -n "$BAL_TABLE" ]; then
		m=$(balancer_moves)
		echo "$BAL_TABLE $BAL_SETTLED $(( ${m:-$BAL_SETTLED} - BAL_SETTLED ))" \
			>>"$E2E_TMP/balance.moves"
	fi
	kill -TERM "$BAL_PID"
	wait "$BAL_PID"
	rc=$?
	BAL_PID=
	[ -n "${BENCH_BALANCE_LOG:-}" ] && cat "$BAL_LOG" >>"$BENCH_BALANCE_LOG"
	[ "$rc" = 0 ] && return 0
	balancer_said "ended with status $rc on SIGTERM"
	return 1
}

# balancer_kill: for a cleanup.
balancer_kill() {
	[ -n "$BAL_PID" ] && kill -TERM "$BAL_PID" 2>/dev/null && wait "$BAL_PID" 2>/dev/null
	BAL_PID=
	return 0
}

# bench_settle TABLE SIZE FLOWS CONFIG: for "default", right after its
# attach and before its measured runs: $SETTLE seconds of saturation
# traffic of that frame size and flow count (the script's run, its line
# dropped), so that what is measured is the balancer's table, not the
# attach's. Moves from here to balancer_stop count as the measured runs'.
# Not in a subshell: run may need this shell.
bench_settle() {
	# shellcheck disable=SC2034 # run reads it: the settle phase is not profiled
	local PROFILE=0
	case $4 in default | default-*) ;; *) return 0 ;; esac
	# The summary's moves are the shipped policy's.
	[ "$4" = default ] && BAL_TABLE="$1 $2 $3"
	[ "$SETTLE" = 0 ] || run "$2" "$3" "$4" 0 "$SETTLE" >/dev/null
	balancer_alive || return 1
	BAL_SETTLED=$(balancer_moves)
	BAL_SETTLED=${BAL_SETTLED:-0}
}

# default_summary TABLE WHAT RATE COLLECTOR WORKERS LATE: after a table, a
# line per frame size and flow count: "default" against the best of the
# others that do not steer (no XDP and the RPS configurations that ran: the
# highest median rate; WHAT is "forwarded" or "delivered"), and the total
# CPU time per frame of "default" and of each RPS configuration; then what
# its balancer moved and, with LATE a field (not "-"), its late
# (reordered) frames summed over the rounds. TABLE and the field numbers
# are the script's own, for its functions value and rows (TABLE SIZE FLOWS
# CONFIG FIELD: the field's median over the rounds; its value in each),
# and so is FLOWS_WIDTH, the width of its tables' flows column.
#
# Total CPU per frame: the collector's ns per frame it took off the ring
# plus the workers' ns per frame forwarded (delivered), medians: what a
# frame that gets through costs on its way. The collector's time spent on
# frames dropped after it (a full backlog or cpumap ring) is charged to
# no frame, so at saturation the sum is less than the CPU time spent per
# frame that got through.
default_summary() {
	local t=$1 what=$2 fr=$3 fc=$4 fw=$5 fl=$6 size flows c late in
	bench_has default || return 0
	echo "-- default (xdp-steer, $(basename "$DEFAULT_POLICY"), its balancer) against the best of no XDP and RPS (medians)"
	for size in $SIZES; do
		for flows in $FLOWS; do
			in=
			for c in noxdp rps rps-all default $(printf '%s\n' "${CONFIGS[@]}" | grep '^split'); do
				bench_has "$c" || continue
				in+="$c|${LABEL[$c]}|$(value "$t" "$size" "$flows" "$c" "$fr")"
				in+="|$(value "$t" "$size" "$flows" "$c" "$fc")"
				in+="|$(value "$t" "$size" "$flows" "$c" "$fw")"$'\n'
			done
			late="not counted on this path (C reads no frame)"
			[ "$fl" = - ] ||
				late=$(rows "$t" "$size" "$flows" default "$fl" |
					awk '{ n += $1 } END { print n + 0 }')
			awk -F'|' -v fr="$((size + 4))B" -v fl="$flows" -v what="$what" -v fw="$FLOWS_WIDTH" '
				NF == 5 { cfg[$1] = 1; lab[$1] = $2; r[$1] = $3; c[$1] = $4; w[$1] = $5 }
				END {
					for (k in cfg) {
						if (k ~ /^split/) {
							if (r[k] != "" && (sp == "" || r[k] > r[sp]))
								sp = k
						} else if (k ~ /^(noxdp|rps|rps-all)$/ && r[k] != "" &&
							   (best == "" || r[k] > r[best]))
							best = k
					}
					if (best != "" && r["default"] != "" && r[best] > 0)
						printf "%-6s %" fw "s  default over the best other: %.2fx (best other: %s)\n",
							fr, fl, r["default"] / r[best], lab[best]
					# The ceiling of any balancer: the best fixed share.
					if (sp != "" && best != "" && r[best] > 0) {
						reach = ""
						if (r["default"] != "" && r[sp] > 0)
							reach = sprintf("; default reaches %.2f of it", r["default"] / r[sp])
						printf "%-6s %" fw "s  best fixed split over the best other: %.2fx (%s)%s\n",
							fr, fl, r[sp] / r[best], lab[sp], reach
					}
					n = split("default rps rps-all", order, " ")
					for (i = 1; i <= n; i++) {
						k = order[i]
						# No frame got through (a search that found no rate).
						if (!(k in cfg) || c[k] == "" || w[k] == "" || r[k] + 0 == 0) continue
						cpu = cpu sprintf("%s%s %.0f ns", cpu == "" ? "" : " / ",
							k == "default" ? "default" : lab[k], c[k] + w[k])
					}
					if (cpu != "")
						printf "%-6s %" fw "s  total CPU per frame %s: %s\n", fr, fl, what, cpu
				}' <<<"$in"
			touch "$E2E_TMP/balance.moves"
			awk -v t="$t" -v s="$size" -v f="$flows" -v secs="$SETTLE" -v late="$late" \
			    -v fw="$FLOWS_WIDTH" '
				$1 == t && $2 == s && $3 == f { n++; settled += $4; measured += $5 }
				END {
					printf "%-6s %" fw "s  default: %d attach%s, each followed by %s s of traffic to settle; its balancer moved %d buckets while settling, %d while measured; late frames: %s\n",
						s + 4 "B", f, n, n == 1 ? "" : "es", secs, settled, measured, late
				}' "$E2E_TMP/balance.moves"
		done
	done
}
