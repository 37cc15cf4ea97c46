#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: `xdp-steer apply` killed with SIGKILL at moments spread over
# its whole run, tens of times, under real traffic, never leaves the
# interface without a complete policy, and the next apply always finishes
# what it left.
#
# Three policies that differ in everything an apply writes (on 2 CPUs):
#   A  cpus [C0, C1]        table 512   queue 2048  an exact-field rule, a
#                                                    source prefix rule
#   B  cpus [C0 w1, C1 w3]  table 256   queue 512   two exact-field shapes,
#                                                    source and destination
#                                                    prefixes, a CPU set
#   C  cpus [C1]            table 1024  queue 1024  an exact-field rule, a
#                                                    destination prefix; C0
#                                                    leaves the cpumap
# Their table sizes differ, so every apply builds its table afresh and a
# policy's slot is the same whatever came before: its state (table, table
# digest, rule counts, queue: tests/e2e/maps_state.py, read with bpftool)
# is recorded once from normal applies.
#
# A normal apply's duration D is measured first (launch to exit, median of
# 9). Then, while traffic_gen sends marked frames of 1800 flows at a paced
# rate and the observer counts them at tc ingress of $IF_B, each round
# starts `xdp-steer apply` of a policy other than the one in force and
# sends it SIGKILL after a delay in [0, 1.2 D], the delays spread evenly
# over that span (each a step of the golden ratio's fraction of it from
# the last). After each kill, with no xdp-steer running, the maps must
# hold one whole policy: the old one (same generation and slot) or the new
# one (generation + 1, the other slot), exactly as recorded, with a cpumap entry (and the cpumap program)
# for every CPU its table and rules name. Kills must land on both sides of
# the flip. Every KILL_CHECK_EVERY kills a normal apply (of any policy, the
# one in force included) must succeed and leave exactly the recorded slot
# and cpumap, retire_pending 0 (bpftool map dump of steer_ctl), and a
# `status --json` that reports it. At the end: received + counted drops ==
# sent, every flow arrived, no frame met an empty slot (passed_no_policy)
# or a CPU without its cpumap entry (passed_no_target), a last paced run
# steers every flow in order on one CPU, and detach leaves no pins.
# Late frames are printed, not asserted: the policies change rules, and a
# flow a rule moves goes at once (only table buckets drain; bpf/README.md,
# "Moving flows"). Drops are not asserted either: while bpftool and
# Python read the maps, the cpumap worker on C1 can fall behind and B's
# 512-frame queue overflow (0.05 to 2 % of the frames in our runs); the
# observer counts those drops and the account includes them.
#
# KILLS (default 75: the delays spread evenly, every sixth of [0, 1.2 D]
# gets 12 or 13 kills, none fewer; 300 took 80 s of make test's 10
# minutes), KILL_CHECK_EVERY (3), KILL_RATE (frames/s, default 25000: the
# generator shares CPU 0 with the receiving NAPI thread, and the
# applies, bpftool and Python need the rest of a 2-CPU machine), KILL_SEED
# ($RANDOM's seed, printed: replays the policies, not the timing).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

KILLS=${KILLS:-75}
CHECK_EVERY=${KILL_CHECK_EVERY:-3}
RATE=${KILL_RATE:-25000}
SEED=${KILL_SEED:-$((($$ * 7919 + SECONDS) % 32768))}
RANDOM=$SEED

e2e_setup
traffic_init
T=$E2E_TMP

mapfile -t CPU_IDS < <(traffic_online_cpus)
C0=${CPU_IDS[0]}
C1=${CPU_IDS[1]:-}
if [ -z "$C1" ]; then
	skip "all" "needs at least 2 CPUs to steer between"
	exit 0
fi

APPLY_PID=
STATE_PID=
# Also after set -u has stopped the script: nothing here may stop it again.
kill_cleanup() {
	if [ -n "${APPLY_PID:-}" ]; then
		kill -KILL "$APPLY_PID" 2>/dev/null
		wait "$APPLY_PID" 2>/dev/null
	fi
	if [ -n "${STATE_PID:-}" ]; then
		kill "$STATE_PID" 2>/dev/null
		wait "$STATE_PID" 2>/dev/null
	fi
	traffic_cleanup
}
trap kill_cleanup EXIT

xs() { in_b "$XDP_STEER" "$@"; }
expect_eq() {
	[ "$1" = "$2" ] && return 0
	echo "got '$1', expected '$2'"
	return 1
}
# shown STATUS FILE: STATUS, with FILE printed when it is not 0.
shown() { [ "$1" -eq 0 ] || { cat "$2"; return 1; }; }
# json_val KEY JSON: the value of a key that occurs once in xdp-steer's
# one-line JSON.
json_val() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" <<<"$2"; }
now_us() { local t=$EPOCHREALTIME; echo "${t//[!0-9]/}"; }
ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# ---- the policies ------------------------------------------------------------

POLICIES=(A B C)
declare -A IDX=([A]=0 [B]=1 [C]=2)
cat >"$T/A.yaml" <<EOF
version: 1
cpus: [$C0, $C1]
table_size: 512
queue_size: 2048
rules:
  - {match: {proto: udp, dst_port: 7777}, cpu: $C0}
  - {match: {src: 10.77.0.0/16}, cpu: $C1}
EOF
cat >"$T/B.yaml" <<EOF
version: 1
cpus: [{cpu: $C0, weight: 1}, {cpu: $C1, weight: 3}]
table_size: 256
queue_size: 512
rules:
  - {match: {proto: tcp, dst_port: 80}, cpu: $C1}
  - {match: {proto: udp, src: 10.77.0.1}, cpu: $C0}
  - {match: {src: "fd00:77::/32"}, cpu: $C0}
  - {match: {dst: 198.18.0.0/15}, cpus: [$C0, $C1]}
EOF
cat >"$T/C.yaml" <<EOF
version: 1
cpus: [$C1]
table_size: 1024
queue_size: 1024
rules:
  - {match: {proto: udp, dst_port: 7777}, cpu: $C1}
  - {match: {dst: "fd00:99::/48"}, cpu: $C1}
EOF
# CPUs each policy's rules send to (its table's CPUs come from the maps).
declare -A RULE_CPUS=([A]="$C0 $C1" [B]="$C0 $C1" [C]="$C1")
# Flows 0-999 UDP/IPv4, 1000-1199 TCP/IPv4, 1200-1399 UDP/IPv6, then
# groups of 100 that rules of one policy or another match: 1400 UDP to port
# 7777, 1500 UDP from 10.77.0.1 on, 1600 TCP/IPv6 from fd00:77::1 on, 1700
# TCP to port 80.
FLOWS=(--group udp4:1000 --group tcp4:200 --group udp6:200
       --group udp4:100,dport=7777 --group udp4:100,src=10.77.0.1
       --group tcp6:100,src=fd00:77::1 --group tcp4:100,dport=80)
NFLOWS=1800

# ---- reading the maps -----------------------------------------------------------

# maps_state.py serving one state line per request: a reading costs
# bpftool's dumps, not Python's start. (Its file descriptors do not reach
# subshells: read_state runs in this shell, never in $(...) or check.)
coproc MAPS { exec python3 "$E2E_ROOT/tests/e2e/maps_state.py" --serve "$PIN_B"; }
STATE_PID=$MAPS_PID
# The fields of a state line that make up a policy's slot: not which slot,
# nor its generation, nor the cpumap.
SLOT_FIELDS="table_size table table_digest flow src dst queue"
# read_state: S = the state line of the maps now, ST[field] = its values,
# SLOT = its slot fields.
declare -A ST
read_state() {
	local kv f
	S= SLOT=
	ST=()
	echo >&"${MAPS[1]}" && read -r -t 30 S <&"${MAPS[0]}" || return 1
	for kv in $S; do
		ST[${kv%%=*}]=${kv#*=}
	done
	[ -n "${ST[gen]:-}" ] || return 1
	# The cpumap entries of the active slot's bank, without the bank
	# marker: a policy's queue size puts it in one bank or the other
	# depending on the policy before it, and the other bank keeps
	# entries while buckets still drain from them.
	local e act= entries
	IFS=, read -ra entries <<<"${ST[cpumap]}"
	for e in "${entries[@]}"; do
		case $e in
		*:b1) [ "${ST[bank]}" = 1 ] && act+="${e%:b1}," ;;
		*) [ "${ST[bank]}" = 0 ] && act+="$e," ;;
		esac
	done
	ST[cpumap]=${act%,}
	for f in $SLOT_FIELDS; do
		SLOT+="$f=${ST[$f]} "
	done
	SLOT=${SLOT% }
}
# which_policy: P = the policy whose recorded slot the maps hold, if any.
which_policy() {
	for P in "${POLICIES[@]}"; do
		[ "$SLOT" = "${EXPECT[$P]}" ] && return 0
	done
	P=
	return 1
}
# missing_cpus POLICY: MISSING = the CPUs POLICY's table (as the maps hold
# it) and rules send to that have no cpumap entry with the cpumap program.
missing_cpus() {
	local c e cpus entries have=" "
	IFS=, read -ra entries <<<"${ST[cpumap]}"
	for e in "${entries[@]}"; do
		[ "${e##*:}" = prog ] && have+="${e%%:*} "
	done
	IFS=, read -ra cpus <<<"${ST[table]}"
	MISSING=
	for c in "${cpus[@]%%x*}" ${RULE_CPUS[$1]}; do
		case "$have$MISSING " in
		*" $c "*) ;;
		*) MISSING+=" $c" ;;
		esac
	done
	MISSING=${MISSING# }
}
# retire_pending: steer_ctl's retire_pending, from bpftool.
retire_pending() {
	bpftool map dump pinned "$PIN_B/steer_ctl" |
		sed -n 's/.*"retire_pending": \([0-9]*\).*/\1/p'
}

# ---- attach, traffic, the recorded policies ----------------------------------------

if ! xs -q attach "$IF_B" --policy "$T/A.yaml"; then
	fail "xdp-steer attach $IF_B with policy A"
	e2e_done
fi
check "the receiving CPU is pinned to CPU $TRAFFIC_RX_CPU (threaded NAPI)" traffic_rx_pin
xs stats "$IF_B" --json >"$T/stats0.json"
if ! observer_start --drop; then
	fail "the observer attaches to $IF_B"
	e2e_done
fi
gen_start "${FLOWS[@]}" --rate "$RATE" --duration 0

declare -A EXPECT CPUMAP
# record POLICY: applies it normally; EXPECT and CPUMAP say what it left.
record() {
	timeout 30 nsenter --net=/run/netns/"$NS_B" "$XDP_STEER" -q apply "$IF_B" --policy "$T/$1.yaml" ||
		{ echo "apply of $1 failed"; return 1; }
	read_state || { echo "reading the maps failed: $S"; return 1; }
	EXPECT[$1]=$SLOT
	CPUMAP[$1]=${ST[cpumap]}
}
# A is in force from the attach; B and C are applied, then all three
# again, which must give the same slots.
read_state && EXPECT[A]=$SLOT && CPUMAP[A]=${ST[cpumap]}
record B >"$T/record.out" 2>&1 && record C >>"$T/record.out" 2>&1
check "policies B and C apply normally under traffic" shown $? "$T/record.out"
for p in "${POLICIES[@]}"; do
	[ -n "${EXPECT[$p]:-}" ] || { fail "policy $p's slot was recorded"; e2e_done; }
done
again=
for p in A B C; do
	first="${EXPECT[$p]} cpumap=${CPUMAP[$p]}"
	record "$p" >>"$T/record.out" 2>&1 || again+=" $p failed;"
	[ "${EXPECT[$p]} cpumap=${CPUMAP[$p]}" = "$first" ] ||
		again+=" $p gave '${EXPECT[$p]} cpumap=${CPUMAP[$p]}', first '$first';"
done
check "each policy applied again leaves the same slot and cpumap (table digest, rules, queue)" \
	expect_eq "$again" ""
for p in "${POLICIES[@]}"; do
	echo "  policy $p: ${EXPECT[$p]} cpumap=${CPUMAP[$p]}"
done
check "the three policies' slots differ from each other" \
	test "${EXPECT[A]}" != "${EXPECT[B]}" -a "${EXPECT[B]}" != "${EXPECT[C]}" \
	-a "${EXPECT[A]}" != "${EXPECT[C]}"

# ---- a normal apply's duration ----------------------------------------------------

# Launched as the killed ones are (nsenter execs xdp-steer): B C A B C A...
durations=()
for i in $(seq 9); do
	p=${POLICIES[$((i % 3))]}
	t0=$(now_us)
	nsenter --net=/run/netns/"$NS_B" "$XDP_STEER" -q apply "$IF_B" --policy "$T/$p.yaml" &
	APPLY_PID=$!
	wait "$APPLY_PID" || fail "timed apply of policy $p"
	APPLY_PID=
	durations+=($(($(now_us) - t0)))
done
mapfile -t durations < <(printf '%s\n' "${durations[@]}" | sort -n)
D_US=${durations[4]}
[ "$D_US" -ge 1000 ] || D_US=1000
MAX_DELAY_US=$((D_US * 12 / 10))
echo "  a normal apply takes D = $(ms "$D_US") ms (median of 9 under traffic:" \
	"$(for d in "${durations[@]}"; do printf '%s ' "$(ms "$d")"; done)ms);" \
	"kill delays drawn from 0 to $(ms "$MAX_DELAY_US") ms; KILL_SEED=$SEED"
read_state && which_policy
CUR=$P CUR_GEN=${ST[gen]:-} CUR_SLOT=${ST[slot]:-}
check "after the timed applies policy A is in force" expect_eq "$CUR" A
[ -n "$CUR" ] || e2e_done

# ---- the kills ------------------------------------------------------------------

# read -t on a FIFO nobody writes: a sleep of microseconds without a fork.
mkfifo "$T/sleep"
exec {SLEEP_FD}<>"$T/sleep"

killed_before=0 killed_after=0 left_pending=0 finished_first=0
bad_state=0 bad_cover=0 bad_exit=0
completed=0 completed_failed=0 completed_bad=0 finished_pending=0 same_policy=0
# Outcomes per delay band (fifths of D; the last band is 1.0-1.2 D):
# killed before the flip, killed after it, finished before the signal.
BAND_BEFORE=(0 0 0 0 0 0) BAND_AFTER=(0 0 0 0 0 0) BAND_DONE=(0 0 0 0 0 0)

# note KIND MESSAGE: prints the first three problems of a kind.
declare -A NOTES
note() {
	NOTES[$1]=$((${NOTES[$1]:-0} + 1))
	[ "${NOTES[$1]}" -le 3 ] &&
		echo "  round $i ($CUR -> $target, kill after $delay_us us): $2"
	return 0
}

# One kill: apply $target, SIGKILL after $delay_us, check the maps.
kill_one() {
	local rc pend band=$((delay_us * 5 / D_US))
	[ "$band" -gt 5 ] && band=5
	nsenter --net=/run/netns/"$NS_B" "$XDP_STEER" apply "$IF_B" --policy "$T/$target.yaml" \
		>"$T/apply.out" 2>&1 &
	APPLY_PID=$!
	[ "$delay_us" -gt 0 ] &&
		read -t "$((delay_us / 1000000)).$(printf '%06d' $((delay_us % 1000000)))" -u "$SLEEP_FD"
	kill -KILL "$APPLY_PID" 2>/dev/null
	wait "$APPLY_PID" 2>/dev/null	# no "Killed" line from bash
	rc=$?
	APPLY_PID=
	if [ "$rc" -ne 137 ] && [ "$rc" -ne 0 ]; then
		bad_exit=$((bad_exit + 1))
		note exit "apply exited $rc: $(head -3 "$T/apply.out")"
	fi
	if ! read_state; then
		bad_state=$((bad_state + 1))
		note state "reading the maps failed: $S"
		return
	fi
	pend=$(retire_pending)
	if ! which_policy; then
		bad_state=$((bad_state + 1))
		note state "the active slot is no policy: $S"
		return
	fi
	if [ "$P/${ST[gen]}/${ST[slot]}" = "$CUR/$CUR_GEN/$CUR_SLOT" ] && [ "$rc" -eq 137 ]; then
		killed_before=$((killed_before + 1))
		BAND_BEFORE[band]=$((BAND_BEFORE[band] + 1))
	elif [ "$P/${ST[gen]}/${ST[slot]}" = "$target/$((CUR_GEN + 1))/$((1 - CUR_SLOT))" ]; then
		if [ "$rc" -eq 137 ]; then
			killed_after=$((killed_after + 1))
			BAND_AFTER[band]=$((BAND_AFTER[band] + 1))
			[ "$pend" = 1 ] && left_pending=$((left_pending + 1))
		else
			finished_first=$((finished_first + 1))
			BAND_DONE[band]=$((BAND_DONE[band] + 1))
			# A finished apply retired what it had to.
			if [ "$pend/${ST[cpumap]}" != "0/${CPUMAP[$P]}" ]; then
				bad_cover=$((bad_cover + 1))
				note cover "a finished apply left retire_pending $pend, cpumap ${ST[cpumap]}"
			fi
		fi
	else
		bad_state=$((bad_state + 1))
		note state "apply exit $rc, policy $P at generation ${ST[gen]} in slot ${ST[slot]}, after $CUR at $CUR_GEN in slot $CUR_SLOT: $S"
	fi
	missing_cpus "$P"
	if [ -n "$MISSING" ]; then
		bad_cover=$((bad_cover + 1))
		note cover "policy $P in force, CPUs without a cpumap entry: $MISSING ($S)"
	fi
	CUR=$P CUR_GEN=${ST[gen]} CUR_SLOT=${ST[slot]}
}

# A normal apply of $target after kills: it must succeed and leave exactly
# the recorded slot and cpumap, retire_pending 0, and a status that says
# so. $target may be the policy in force: then nothing flips (same
# generation and slot), but the cpumap is repaired all the same.
complete_one() {
	local st got want f next=$((CUR_GEN + 1))/$((1 - CUR_SLOT))
	if [ "$target" = "$CUR" ]; then
		next=$CUR_GEN/$CUR_SLOT
		same_policy=$((same_policy + 1))
	fi
	completed=$((completed + 1))
	if ! timeout 30 nsenter --net=/run/netns/"$NS_B" "$XDP_STEER" apply "$IF_B" --policy \
		"$T/$target.yaml" >"$T/apply.out" 2>&1; then
		completed_failed=$((completed_failed + 1))
		note complete "the apply after the kills failed: $(head -3 "$T/apply.out")"
		return
	fi
	grep -q "finished what an earlier, interrupted apply left" "$T/apply.out" &&
		finished_pending=$((finished_pending + 1))
	if ! read_state; then
		completed_bad=$((completed_bad + 1))
		note complete "reading the maps failed: $S"
		return
	fi
	got="$SLOT cpumap=${ST[cpumap]} gen/slot=${ST[gen]}/${ST[slot]} retire_pending=$(retire_pending)"
	want="${EXPECT[$target]} cpumap=${CPUMAP[$target]} gen/slot=$next retire_pending=0"
	if [ "$got" != "$want" ]; then
		completed_bad=$((completed_bad + 1))
		note complete "apply of $target left '$got', expected '$want'"
	fi
	st=$(xs status "$IF_B" --json 2>&1)
	got=
	for f in applied generation slot retire_pending table_size exact_rules prefix_rules queue_size; do
		got+="$f=$(json_val "$f" "$st") "
	done
	want="applied=true generation=${ST[gen]} slot=${ST[slot]} retire_pending=false table_size=${ST[table_size]} exact_rules=${ST[flow]} prefix_rules=$((ST[src] + ST[dst])) queue_size=${ST[queue]} "
	if [ "$got" != "$want" ]; then
		completed_bad=$((completed_bad + 1))
		note complete "status --json says '$got', the maps '$want': $st"
	fi
	CUR=$target CUR_GEN=${ST[gen]} CUR_SLOT=${ST[slot]}
}

t0=$SECONDS
for i in $(seq "$KILLS"); do
	# A policy other than the one in force, so every apply would flip.
	target=${POLICIES[$(((IDX[$CUR] + 1 + RANDOM % 2) % 3))]}
	# The delays step through [0, 1.2 D] by the golden ratio's fraction
	# (40503 / 65536): any run of kills, the first ones too, spreads
	# evenly over every phase of an apply, where random delays leave
	# some phases short of kills.
	delay_us=$((MAX_DELAY_US * ((i * 40503) % 65536) / 65535))
	kill_one
	if [ $((i % CHECK_EVERY)) -eq 0 ] || [ "$i" -eq "$KILLS" ]; then
		target=${POLICIES[$((RANDOM % 3))]}
		delay_us=-
		complete_one
	fi
done
kill_seconds=$((SECONDS - t0))
exec {SLEEP_FD}>&-

echo "  kills: $KILLS applies killed in $kill_seconds s: $killed_before before the flip" \
	"(old policy in force), $killed_after after it (new policy in force; $left_pending of them" \
	"before the retire: retire_pending left 1), $finished_first finished before the signal"
bands=
for b in 0 1 2 3 4 5; do
	lo=$((b * 2)) hi=$((b * 2 + 2))
	bands+=" $((lo / 10)).$((lo % 10))-$((hi / 10)).$((hi % 10)) D: ${BAND_BEFORE[b]}/${BAND_AFTER[b]}/${BAND_DONE[b]},"
done
echo "  kills by delay (before the flip/after it/finished):${bands%,}"
echo "  normal applies after the kills: $completed ($same_policy of the policy in force);" \
	"$finished_pending first finished an interrupted apply's retire"
check "after each of $KILLS kills the active slot held one whole policy, old or new, at its generation and slot" \
	expect_eq "$bad_state" 0
check "after each kill every CPU the policy in force names had its cpumap entry" \
	expect_eq "$bad_cover" 0
check "every apply sent SIGKILL died of it or had finished (exit 0)" expect_eq "$bad_exit" 0
check "kills landed before the flip ($killed_before) and after it ($killed_after)" \
	test "$killed_before" -gt 0 -a "$killed_after" -gt 0
check "all $completed normal applies after kills succeeded" expect_eq "$completed_failed" 0
check "each left exactly its policy's slot and cpumap, retire_pending 0, and status --json said so" \
	expect_eq "$completed_bad" 0

# ---- the traffic's account ----------------------------------------------------------

sleep 0.2
gen_stop || fail "the generator sent frames throughout"
observer_stop || fail "the observer reports"
echo "  traffic: $(traffic_summary "$OBS_REPORT")"
echo "  traffic: drops: $(traffic_drops_detail "$OBS_REPORT")"
echo "  traffic (not asserted): $(awk '$1 == "flow" && $12 { n++; l += $12 }
	END { print n + 0 " flows saw " l + 0 }' "$OBS_REPORT") late (reordered) frames"
check "frames received + counted drops == frames sent ($GEN_SENT) across the kills" \
	traffic_accounted "$OBS_REPORT"
check "every one of $NFLOWS flows reached the stack" \
	awk -v n="$NFLOWS" '$1 == "flow" { seen[$2] = 1 }
		END { for (f = 0; f < n; f++) if (!(f in seen)) m++
		      if (m) { print m " flows never arrived"; exit 1 } }' "$OBS_REPORT"
xs stats "$IF_B" --json >"$T/stats1.json"
# stat_delta FIELD: a counter's growth since the attach (its first
# occurrence in stats --json is in "totals").
stat_delta() {
	local a b
	a=$(grep -o "\"$1\": [0-9]*" "$T/stats0.json" | head -1)
	b=$(grep -o "\"$1\": [0-9]*" "$T/stats1.json" | head -1)
	echo $((${b##* } - ${a##* }))
}
check "no frame met an empty slot (passed_no_policy +0)" \
	expect_eq "$(stat_delta passed_no_policy)" 0
check "no frame was sent to a CPU without its cpumap entry (passed_no_target +0)" \
	expect_eq "$(stat_delta passed_no_target)" 0

# ---- still working ---------------------------------------------------------------

if xs -q apply "$IF_B" --policy "$T/A.yaml" && observer_start --drop; then
	gen_run "${FLOWS[@]}" --rate "$RATE" --count $((NFLOWS * 20)) ||
		fail "last run: the generator sends its frames"
	observer_stop || fail "last run: the observer reports"
	echo "  last run: $(traffic_summary "$OBS_REPORT")"
	check "last run, policy A: every one of $NFLOWS flows reached the stack on exactly one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" 0 $((NFLOWS - 1))
	check "last run: no flow had a frame out of sequence" traffic_in_order "$OBS_REPORT"
	check "last run: frames received + counted drops == frames sent ($GEN_SENT)" \
		traffic_accounted "$OBS_REPORT"
	check "last run: A's exact-field rule put the 100 UDP flows to port 7777 on CPU $C0" \
		traffic_on_cpu "$OBS_REPORT" 1400 1499 "$C0"
	check "last run: A's prefix rule put the 100 flows from 10.77.0.1 on CPU $C1" \
		traffic_on_cpu "$OBS_REPORT" 1500 1599 "$C1"
else
	fail "last run: policy A applied and the observer attached"
fi

kill "$STATE_PID" 2>/dev/null
wait "$STATE_PID" 2>/dev/null
STATE_PID=
no_xdp() {
	ip -n "$NS_B" link show "$IF_B"
	! ip -n "$NS_B" link show "$IF_B" | grep -q xdp
}
check "xdp-steer detach $IF_B succeeds" xs -q detach "$IF_B"
check "detach left no pins ($PIN_B and its namespace's directory are gone)" \
	test ! -e "$PIN_B" -a ! -e "$(dirname "$PIN_B")"
check "detach left no XDP program on $IF_B" no_xdp

e2e_done
