#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Marked traffic through the veth pair of lib.sh, and the observer's
# account of it; shared by the end-to-end tests, `make demo` and the
# throughput benchmark. Source after lib.sh, call after e2e_setup:
#
#   . tests/e2e/lib.sh; . tests/e2e/traffic_lib.sh
#   e2e_setup; traffic_init
#   observer_start --drop                  # tc ingress on $IF_B, in $NS_B
#   gen_run --group udp4:1000 --rate 150000 --count 300000
#   observer_stop                          # report in $OBS_REPORT
#   traffic_flows_one_cpu "$OBS_REPORT" 0 999
#
# The generator (traffic_gen) and the observer (observer) are described in
# their sources; the report format is at the top of tests/e2e/observer.c.
# gen_run leaves the generator's "sent=N seconds=S fps=R sender=K" in
# GEN_SENT, GEN_SECONDS, GEN_FPS, GEN_SENDER and the per-flow counts in
# $GEN_FLOWS.
# traffic_* checks print what is wrong and return 1, for lib.sh's check.
#
# The generator sends live test-run frames where the kernel allows them,
# else through its fanout (a socket's frames copied into the veth by a
# devmap: $IF_B still gets xdp_frames); TRAFFIC_GEN_SENDER=socket in the
# environment puts a whole run on the socket itself, $IF_B getting skbs
# (traffic_gen.c).
#
# For the demo and the benchmark: traffic_cpu_table prints where the flows
# went; the generator takes --size (up to 1514 on a 1500 MTU veth), --rate 0
# (as fast as it can) and --duration 0 (until gen_stop); the observer
# without --drop lets frames on to the stack (a UDP sink on the group's
# dport). Without an XDP program on $IF_B the veth takes no XDP frames
# until its NAPI exists: `ethtool -K $IF_B gro on` for a no-XDP or RPS
# baseline.

TRAFFIC_GEN=${TRAFFIC_GEN:-$E2E_ROOT/tests/e2e/traffic_gen}
OBSERVER=${OBSERVER:-$E2E_ROOT/tests/e2e/observer}
# The receiving CPU: the CPU $IF_B's NAPI (and so xdp-steer) runs on, as a
# NIC queue's interrupt CPU would be. veth runs the peer's NAPI on whichever
# CPU sent last, so any stray packet from namespace A (an IPv6 router
# solicitation, say) can move it for a while; traffic_rx_pin makes the NAPI
# threaded and pins its thread here instead. Call it after every attach
# (the NAPI and its thread are made anew with each XDP program).
TRAFFIC_RX_CPU=${TRAFFIC_RX_CPU:-0}
# CPU the generator runs on. By default the receiving CPU: each batch of
# 64 frames wakes the (real-time) NAPI thread, which takes them off the
# veth ring (256 frames) before the generator writes more, so nothing
# overflows at any rate the receiver keeps up with. On another CPU, bursts
# overflow the ring whenever the thread wakes late.
TRAFFIC_CPU=${TRAFFIC_CPU:-$TRAFFIC_RX_CPU}

OBS_PID=
GEN_PID=
BAL_PID=
TRAFFIC_RUN=0

traffic_cleanup() {
	[ -n "$BAL_PID" ] && kill -TERM "$BAL_PID" 2>/dev/null && wait "$BAL_PID" 2>/dev/null
	# CONT first: a test that pauses the generator (SIGSTOP) may die
	# before it resumes it, and a stopped process never takes the INT.
	[ -n "$GEN_PID" ] && kill -CONT "$GEN_PID" 2>/dev/null
	[ -n "$GEN_PID" ] && kill -INT "$GEN_PID" 2>/dev/null && wait "$GEN_PID" 2>/dev/null
	[ -n "$OBS_PID" ] && kill -INT "$OBS_PID" 2>/dev/null && wait "$OBS_PID" 2>/dev/null
	GEN_PID= OBS_PID=
	e2e_cleanup
}

traffic_init() {
	local b
	for b in "$TRAFFIC_GEN" "$OBSERVER"; do
		if [ ! -x "$b" ]; then
			fail "$(basename "$b") is built (run make)"
			exit 1
		fi
	done
	trap traffic_cleanup EXIT
	MAC_A=$(ip -n "$NS_A" link show "$IF_A" | awk '/link\/ether/ {print $2}')
	MAC_B=$(ip -n "$NS_B" link show "$IF_B" | awk '/link\/ether/ {print $2}')
	# The receiver answers nothing we send (no sockets, or the observer
	# drops it), but keep it from sending ICMP errors at flood rates.
	in_b sysctl -qw net.ipv4.icmp_ratelimit=1000 net.ipv4.icmp_msgs_per_sec=10 \
		>/dev/null 2>&1
	return 0
}

# traffic_napi_pids: pids of $IF_B's NAPI threads (threaded NAPI only). A
# thread's CPU time (/proc/PID/stat) is then exactly the receiving side's
# work: what a benchmark of the collecting CPU wants.
traffic_napi_pids() {
	local p comm name
	# Thread names are "napi/<ifname>-<id>", cut to 15 characters.
	name=$(printf '%.15s' "napi/$IF_B-")
	for p in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$p/comm" || continue
		case $comm in "$name"*) echo "${p#/proc/}" ;; esac
	done
}

# traffic_rx_pin: $IF_B's NAPI threaded, its threads on $TRAFFIC_RX_CPU.
traffic_rx_pin() {
	local f=/sys/class/net/$IF_B/threaded pid found=
	ip netns exec "$NS_B" sh -c "echo 1 > $f" 2>/dev/null || {
		echo "threaded NAPI refused on $IF_B"; return 1; }
	for pid in $(traffic_napi_pids); do
		# Real-time, as softirq work preempts threads: else a cpumap
		# worker sharing the CPU delays the poll for a time slice and
		# the veth ring (256 frames) overflows.
		taskset -p -c "$TRAFFIC_RX_CPU" "$pid" >/dev/null &&
			chrt -f -p 50 "$pid" && found=1
	done
	[ -n "$found" ] || { echo "no NAPI thread of $IF_B found"; return 1; }
}

# traffic_online_cpus: the online CPU ids, one per line.
traffic_online_cpus() {
	tr ',' '\n' </sys/devices/system/cpu/online |
		awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }'
}

# traffic_cpus: CPU_IDS (the online CPUs), C0 and C1 (the first two; C1
# empty on one CPU), and for traffic_share "CPU:WEIGHT ..." lists EVEN
# (every CPU 1) and WEIGHTED (the first CPU 1, the others 3).
traffic_cpus() {
	mapfile -t CPU_IDS < <(traffic_online_cpus)
	C0=${CPU_IDS[0]}
	C1=${CPU_IDS[1]:-}
	EVEN=$(printf '%s:1 ' "${CPU_IDS[@]}")
	EVEN=${EVEN% }
	WEIGHTED="$C0:1 $(printf '%s:3 ' "${CPU_IDS[@]:1}")"
	WEIGHTED=${WEIGHTED% }
}

# traffic_ping NS ADDR [COUNT]: ICMP(v6) echo from a namespace.
traffic_ping() {
	nsenter --net=/run/netns/"$1" python3 "$E2E_ROOT/tests/e2e/ping.py" "$2" "${3:-3}"
}

# traffic_neigh_resolved NS IF ADDR MAC: the neighbour entry of ADDR holds
# MAC and is usable (not INCOMPLETE or FAILED).
traffic_neigh_resolved() {
	local e
	e=$(ip -n "$1" neigh show "$3" dev "$2")
	echo "$e"
	case $e in
	*"lladdr $4 "*) ;;
	*) return 1 ;;
	esac
	case $e in
	*INCOMPLETE* | *FAILED*) return 1 ;;
	esac
}

# observer_start [observer options]: counts at tc ingress of $IF_B until
# observer_stop. nsenter execs the observer, so $! is its pid.
observer_start() {
	TRAFFIC_RUN=$((TRAFFIC_RUN + 1))
	OBS_REPORT=$E2E_TMP/observer.$TRAFFIC_RUN
	local ready=$E2E_TMP/observer.$TRAFFIC_RUN.ready i
	rm -f "$ready"
	nsenter --net=/run/netns/"$NS_B" "$OBSERVER" --ifname "$IF_B" \
		--out "$OBS_REPORT" --ready "$ready" --cpumap "$PIN_B/cpu_map" \
		--cpumap "$PIN_B/cpu_map_b" "$@" &
	OBS_PID=$!
	for i in $(seq 100); do
		[ -e "$ready" ] && return 0
		kill -0 "$OBS_PID" 2>/dev/null || break
		sleep 0.05
	done
	OBS_PID=
	return 1
}

# observer_stop: lets frames in flight land, then has the observer write
# its report to $OBS_REPORT.
observer_stop() {
	local rc
	[ -z "$OBS_PID" ] && return 1
	sleep "${TRAFFIC_DRAIN:-0.3}"
	kill -INT "$OBS_PID"
	wait "$OBS_PID"
	rc=$?
	OBS_PID=
	return $rc
}

# Sets GEN_CMD; nsenter and taskset exec the generator, so $! is its pid.
_gen_cmd() {
	GEN_FLOWS=$E2E_TMP/flows.$TRAFFIC_RUN
	GEN_OUT=$E2E_TMP/gen.$TRAFFIC_RUN
	GEN_CMD=(nsenter --net=/run/netns/"$NS_A" taskset -c "$TRAFFIC_CPU"
		"$TRAFFIC_GEN" --ifname "$IF_A" --dst-mac "$MAC_B"
		--flows-out "$GEN_FLOWS")
}

_gen_read() {
	local kv
	GEN_SENT= GEN_SECONDS= GEN_FPS= GEN_SENDER=
	for kv in $(cat "$GEN_OUT" 2>/dev/null); do
		case $kv in
		sent=*) GEN_SENT=${kv#sent=} ;;
		seconds=*) GEN_SECONDS=${kv#seconds=} ;;
		fps=*) GEN_FPS=${kv#fps=} ;;
		sender=*) GEN_SENDER=${kv#sender=} ;;
		esac
	done
	[ -n "$GEN_SENT" ]
}

# gen_run [traffic_gen options]: sends and waits; counters snapshotted
# around it for traffic_accounted.
gen_run() {
	local rc
	_gen_cmd
	_link_counters_before
	"${GEN_CMD[@]}" "$@" >"$GEN_OUT"
	rc=$?
	_gen_read || return 1
	return $rc
}

# gen_start [traffic_gen options]: sends in the background (add
# --duration 0 to send until gen_stop).
gen_start() {
	_gen_cmd
	_link_counters_before
	"${GEN_CMD[@]}" "$@" >"$GEN_OUT" &
	GEN_PID=$!
}

gen_stop() {
	local rc
	[ -z "$GEN_PID" ] && return 1
	kill -INT "$GEN_PID" 2>/dev/null
	wait "$GEN_PID"
	rc=$?
	GEN_PID=
	_gen_read || return 1
	return $rc
}

# balancer_start [xdp-steer balance options]: `xdp-steer balance $IF_B` in
# $NS_B, in the background until balancer_stop (or traffic_cleanup); its
# rounds in $BAL_OUT, its messages in $BAL_OUT.err.
balancer_start() {
	BAL_OUT=$E2E_TMP/balance.$TRAFFIC_RUN
	nsenter --net=/run/netns/"$NS_B" "$XDP_STEER" balance "$IF_B" "$@" \
		>"$BAL_OUT" 2>"$BAL_OUT.err" &
	BAL_PID=$!
}

# balancer_stop: SIGTERM to the balancer; its exit status in BAL_RC.
balancer_stop() {
	BAL_RC=
	[ -z "$BAL_PID" ] && return 1
	kill -TERM "$BAL_PID"
	wait "$BAL_PID"
	BAL_RC=$?
	BAL_PID=
}

# Sum of the ethtool counters of a veth whose names match a regex.
_ethtool_sum() {
	nsenter --net=/run/netns/"$1" ethtool -S "$2" 2>/dev/null |
		awk -v re="$3" '$1 ~ re {s += $2} END {print s + 0}'
}

# Frames lost between the generator and the receiver's XDP program (the
# peer's ring full) and inside the receiving veth (frames it could not turn
# into skbs, XDP drops); on a NIC (E2E_NICS) its RX queues' drops, the
# frames it missed for want of a buffer (igb) and the redirected frames
# the sender's full TX queue dropped (virtio_net). Counters only grow:
# differences around a run.
_link_drops() {
	echo $(( $(_ethtool_sum "$NS_A" "$IF_A" '^tx_queue_[0-9]+_xdp_(xmit_errors|tx_drops):') +
		 $(_ethtool_sum "$NS_B" "$IF_B" '^rx_queue_[0-9]+_(drops|xdp_drops):|^rx_missed_errors:') ))
}

# IP packets namespace A's own stack sent (not the generator's frames):
# neighbour probes, MLD reports. They cross $IF_B like test frames, and
# when one is dropped in a full cpumap queue it is counted among the drops
# without being a test frame. An upper bound (an ICMPv6 message may count
# twice) is all traffic_accounted needs.
_stray_out() {
	traffic_snmp_get "$(traffic_snmp "$NS_A")" Ip:OutRequests Ip6OutRequests Icmp6OutMsgs
}

_link_counters_before() {
	LINK_DROPS_BEFORE=$(_link_drops)
	STRAY_BEFORE=$(_stray_out)
}

# report_get REPORT KEY: a header value of the observer's report.
report_get() {
	awk -v k="$2" '$1 == k {print $2; exit}' "$1"
}

# traffic_drops REPORT: every drop counted for the last run: the cpumap's
# (observer tracepoints) and the veth pair's.
traffic_drops() {
	local r=$1
	echo $(( $(report_get "$r" drops_cpumap_enqueue) +
		 $(report_get "$r" drops_cpumap_kthread) +
		 $(report_get "$r" drops_redirect_err) +
		 $(_link_drops) - LINK_DROPS_BEFORE ))
}

# traffic_snmp NS: the namespace's protocol counters as "Proto:Field value"
# lines (/proc/net/snmp's and /proc/net/netstat's header/value line pairs,
# /proc/net/snmp6 as is). The Tcp and TcpExt counters cover IPv4 and IPv6.
traffic_snmp() {
	nsenter --net=/run/netns/"$1" cat /proc/net/snmp /proc/net/netstat /proc/net/snmp6 |
		awk 'NF == 2 { print $1, $2; next }
		     { p = $1; if (p == last) { for (i = 2; i <= NF; i++) print p h[i], $i }
		       else { for (i = 2; i <= NF; i++) h[i] = $i; last = p } }'
}

# traffic_snmp_get SNAPSHOT KEY...: the sum of these counters in a
# traffic_snmp snapshot.
traffic_snmp_get() {
	local snap=$1
	shift
	awk -v keys=" $* " 'index(keys, " " $1 " ") { n += $2 } END { print n + 0 }' <<<"$snap"
}

# traffic_snmp_delta BEFORE AFTER KEY: how much a counter grew.
traffic_snmp_delta() {
	awk -v k="$3" 'NR == FNR { if ($1 == k) b = $2; next }
		$1 == k { print $2 - b; exit }' <(echo "$1") <(echo "$2")
}

# gen_sent_of KIND: frames the last run sent in flows of KIND.
gen_sent_of() {
	awk -v k="$1" '$5 == k {s += $7} END {print s + 0}' "$GEN_FLOWS"
}

# iperf_server ADDR PORT: an iperf3 server in B, its pid added to
# IPERF_PIDS (nsenter execs iperf3, so $! is the server's).
iperf_server() {
	nsenter --net=/run/netns/"$NS_B" iperf3 -s -B "$1" -p "$2" >/dev/null 2>&1 &
	IPERF_PIDS="${IPERF_PIDS:-} $!"
}

# iperf_listening PORT...: B listens on every PORT (waits up to 5 s).
iperf_listening() {
	local i p
	for p in "$@"; do
		for i in $(seq 50); do
			[ -n "$(in_b ss -Hltn "sport = :$p")" ] && continue 2
			sleep 0.1
		done
		echo "nothing listens on port $p in $NS_B"
		return 1
	done
}

# ---- checks: print what is wrong, return 1 ---------------------------------

# traffic_flows_one_cpu REPORT FIRST LAST: flows FIRST..LAST each arrived,
# on exactly one CPU.
traffic_flows_one_cpu() {
	awk -v lo="$2" -v hi="$3" '
		$1 == "flow" && $2 >= lo && $2 <= hi {
			seen[$2] = 1
			if ($4 ~ /,/) { bad++; if (bad <= 5) print "flow " $2 " on CPUs " $4 }
		}
		END {
			for (f = lo; f <= hi; f++) if (!(f in seen)) {
				miss++; if (miss <= 5) print "flow " f " never arrived"
			}
			if (bad || miss) { print bad + 0 " flows on several CPUs, " miss + 0 " flows missing"; exit 1 }
		}' "$1"
}

# traffic_in_order REPORT: no flow had a frame out of sequence (a gap or a
# late frame).
traffic_in_order() {
	awk '
		$1 == "flow" { n++ }
		$1 == "flow" && ($8 || $12) {
			bad++; if (bad <= 5) print $0
		}
		END {
			if (!n) { print "no flow arrived"; exit 1 }
			if (bad) { print bad " flows out of sequence"; exit 1 }
		}' "$1"
}

# traffic_complete REPORT: every flow of the generator's last run arrived
# whole and in order: received == its last sequence number == frames
# sent, no gap, no late frame.
traffic_complete() {
	awk 'NR == FNR { sent[$2] = $7; next }
		$1 == "flow" { got[$2] = $6; gaps[$2] = $8; late[$2] = $12; last[$2] = $14 }
		END {
			for (f in sent) if (got[f] + 0 != sent[f] || last[f] + 0 != sent[f] || gaps[f] + late[f]) {
				bad++
				if (bad <= 5) printf "flow %s: sent %d, received %d, last %d, %d gaps, %d late\n", \
					f, sent[f], got[f], last[f], gaps[f], late[f]
			}
			if (bad) { print bad " flows incomplete or out of order"; exit 1 }
		}' "$GEN_FLOWS" "$1"
}

# traffic_not_late REPORT: no frame came after a higher sequence number
# (gaps from counted drops allowed).
traffic_not_late() {
	awk '
		$1 == "flow" { n++ }
		$1 == "flow" && $12 { bad++; if (bad <= 5) print $0 }
		END {
			if (!n) { print "no flow arrived"; exit 1 }
			if (bad) { print bad " flows with late frames"; exit 1 }
		}' "$1"
}

# traffic_not_split REPORT: no flow came back to a CPU it had just left
# (observer.c, "splits"): never on two CPUs at once.
traffic_not_split() {
	awk '
		$1 == "flow" { n++ }
		$1 == "flow" && $18 { bad++; if (bad <= 5) print $0 }
		END {
			if (!n) { print "no flow arrived"; exit 1 }
			if (bad) { print bad " flows on two CPUs at once"; exit 1 }
		}' "$1"
}

# traffic_accounted REPORT: frames the observer saw + counted drops ==
# frames sent, in all and, with no drops, per flow. The drop counters see
# every frame, so they may also hold frames A's own stack sent during the
# run (_stray_out): counted drops may exceed the test frames missing by
# that many, never fall short of them.
traffic_accounted() {
	local r=$1 marked drops stray over
	[ -n "$GEN_SENT" ] || { echo "the generator reported nothing"; return 1; }
	marked=$(report_get "$r" marked)
	drops=$(traffic_drops "$r")
	stray=$(( $(_stray_out) - STRAY_BEFORE ))
	over=$((marked + drops - GEN_SENT))
	if [ "$marked" -gt "$GEN_SENT" ] || [ "$over" -lt 0 ] || [ "$over" -gt "$stray" ]; then
		echo "sent $GEN_SENT, observed $marked, counted drops $drops:" \
			"$((-over)) unaccounted (at most $stray frames from A's own stack)"
		return 1
	fi
	[ "$drops" -ne 0 ] && return 0
	awk 'NR == FNR { sent[$2] = $7; next }
		$1 == "flow" { got[$2] = $6 }
		END {
			for (f in sent) if (got[f] + 0 != sent[f]) {
				bad++; if (bad <= 5) print "flow " f ": sent " sent[f] ", received " got[f] + 0
			}
			if (bad) { print bad " flows with frames unaccounted"; exit 1 }
		}' "$GEN_FLOWS" "$r"
}

# traffic_drops_detail REPORT: where the last run's drops happened.
traffic_drops_detail() {
	echo "cpumap enqueue $(report_get "$1" drops_cpumap_enqueue)," \
		"cpumap kthread $(report_get "$1" drops_cpumap_kthread)," \
		"redirect errors $(report_get "$1" drops_redirect_err)," \
		"veth $(( $(_link_drops) - LINK_DROPS_BEFORE ));" \
		"frames from A's own stack at most $(( $(_stray_out) - STRAY_BEFORE ))"
}

# traffic_no_drops REPORT: the last run lost nothing anywhere.
traffic_no_drops() {
	local d
	d=$(traffic_drops "$1")
	[ "$d" -eq 0 ] && return 0
	echo "$d frames dropped: $(traffic_drops_detail "$1")"
	return 1
}

# traffic_on_cpu REPORT FIRST LAST CPU: flows FIRST..LAST all on CPU only.
traffic_on_cpu() {
	awk -v lo="$2" -v hi="$3" -v cpu="$4" '
		$1 == "flow" && $2 >= lo && $2 <= hi {
			n++
			if ($4 != cpu) { bad++; if (bad <= 5) print "flow " $2 " on CPUs " $4 }
		}
		END {
			if (n != hi - lo + 1) { print "only " n + 0 " of " hi - lo + 1 " flows arrived"; exit 1 }
			if (bad) { print bad " flows not on CPU " cpu; exit 1 }
		}' "$1"
}

# traffic_share REPORT FIRST LAST "CPU:WEIGHT ..." [SIGMAS]: the flows
# FIRST..LAST per CPU match the weights within SIGMAS (default 5) binomial
# standard deviations: each flow lands on CPU c with probability w_c/sum(w).
traffic_share() {
	awk -v lo="$2" -v hi="$3" -v weights="$4" -v k="${5:-5}" '
		BEGIN {
			n = split(weights, ws, " ")
			for (i = 1; i <= n; i++) { split(ws[i], cw, ":"); w[cw[1]] = cw[2]; tot += cw[2] }
		}
		$1 == "flow" && $2 >= lo && $2 <= hi && $4 !~ /,/ { on[$4]++; flows++ }
		END {
			if (!flows) { print "no flow arrived on one CPU"; exit 1 }
			for (c in on) if (!(c in w)) { print on[c] " flows on CPU " c ", which has no weight"; bad = 1 }
			for (c in w) {
				p = w[c] / tot; want = flows * p; sd = sqrt(flows * p * (1 - p))
				d = on[c] - want; if (d < 0) d = -d
				printf "CPU %s: %d of %d flows, expected %.0f +- %.0f (%.1f sigma)\n", \
					c, on[c], flows, want, k * sd, sd ? d / sd : 0
				if (d > k * sd) bad = 1
			}
			exit bad
		}' "$1"
}

# traffic_cpu_table REPORT: flows and frames per CPU, with a bar each.
traffic_cpu_table() {
	awk '
		$1 == "cpu" { cpu[++n] = $2; fr[n] = $4; fl[n] = $6; tf += $4; tl += $6 }
		END {
			printf "%5s %10s %7s %10s %7s  %s\n", "CPU", "flows", "share", "frames", "share", ""
			for (i = 1; i <= n; i++) {
				s = tl ? fl[i] / tl : 0; bar = ""
				for (j = 0; j < int(s * 40 + 0.5); j++) bar = bar "#"
				printf "%5s %10d %6.1f%% %10d %6.1f%%  %s\n", cpu[i], fl[i], 100 * s, \
					fr[i], tf ? 100 * fr[i] / tf : 0, bar
			}
		}' "$1"
}

# traffic_summary REPORT: one line for logs.
traffic_summary() {
	awk -v sent="${GEN_SENT:-?}" '
		$1 == "flow" { flows++; if ($4 ~ /,/) multi++; late += $12; gaps += $8; missing += $10; twice += $18 > 0 }
		$1 == "marked" { marked = $2 }
		END { printf "sent %s, observed %d in %d flows; %d flows on several CPUs, %d on two at once, %d late frames, %d gaps (%d missing)\n", \
			sent, marked, flows, multi, twice, late, gaps, missing }' "$1"
}
