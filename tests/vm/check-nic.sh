#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# xdp-steer on a real NIC driver, run inside the VM on two NICs that QEMU
# joins back to back (tests/vm/run --nics): A sends, B steers.
#
#   tests/vm/run --cpus 4 --nics igb -- tests/vm/check-nic.sh igb
#   tests/vm/run --cpus 4 --nics virtio -- tests/vm/check-nic.sh virtio
#
# The e2e pieces do the work (tests/e2e/lib.sh with E2E_NICS, traffic_gen,
# the observer, the audits of traffic_lib.sh). On igb (Intel 82576, the
# driver of ixgbe's design: NAPI per RX queue, RSS, native XDP):
#   traffic   1000 flows spread by RSS over B's RX queues, so several
#             collectors steer at once into the same cpumap entries: every
#             flow on one CPU, in order, received + counted drops == sent
#   health    status against the driver's real RX interrupt names and
#             affinities, moved by hand
#   moves     ethtool -L (4 -> 2 -> 4 queues) and RX IRQ affinity moved
#             under traffic, drain on: every flow on one CPU, 0 late frames
#   dispatcher  attach and detach under libxdp's dispatcher next to
#             another XDP program (skipped where the kernel refuses
#             xdp_steer in the dispatcher: tests/vm/check-kernel.sh)
#   mtu       igb's native XDP frame size limits (1510 with XDP on, 3046
#             to attach) and what attach and status say about them
# On virtio (multi-queue virtio-net on taps): the traffic, the dispatcher
# and the moves without ethtool -L, which virtio_net refuses while XDP runs;
# it names its interrupts after the device, so status has none to check.
# Under TCG rates mean nothing: the runs are paced low and the checks are
# per-flow invariants. Ends with "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."

DRIVER=${1:-igb}
SUITE=vm/nic-$DRIVER E2E_ID=vm
. tests/e2e/lib.sh
. tests/e2e/traffic_lib.sh

passed=0 failed=0 skipped=0
pass() { echo "PASS $SUITE: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $SUITE: $1"; E2E_FAILED=1; failed=$((failed + 1)); }
skip() { echo "SKIP $SUITE: $1 ($2)"; skipped=$((skipped + 1)); }
finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ]
	exit
}

OTHER_OBJ=/usr/lib/x86_64-linux-gnu/bpf/xdpfilt_alw_all.o
OTHER_NAME=xdpfilt_alw_all
# Paced low: TCG emulates every instruction, and QEMU's NIC model drops
# what its guest does not take in time without telling it.
RATE=${NIC_RATE:-5000}
FLOWS=1000
GROUP=udp4:$FLOWS,per-addr=1

steer() { in_b "$XDP_STEER" "$@"; }
not() { ! "$@"; }
# err_has TEXT CMD...: CMD fails and says TEXT.
err_has() {
	local text=$1 out
	shift
	out=$("$@" 2>&1) && { echo "it succeeded: $out"; return 1; }
	grep -qF -- "$text" <<<"$out" || { echo "$out"; return 1; }
}

# ---- the NICs ------------------------------------------------------------------

case $DRIVER in
igb) modprobe igb ;;
virtio) DRIVER=virtio_net; modprobe virtio_net ;;
*) echo "check-nic.sh: unknown driver '$DRIVER' (igb, virtio)" >&2; exit 2 ;;
esac
modprobe -q sch_ingress; modprobe -q cls_bpf
nics_of() {
	local d
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = "$1" ] &&
			basename "$d"
	done | sort
}
for i in $(seq 50); do
	[ "$(nics_of "$DRIVER" | wc -l)" -ge 2 ] && break
	sleep 0.2
done
mapfile -t NICS < <(nics_of "$DRIVER")
echo "kernel $(uname -r), $(nproc) CPUs, $DRIVER NICs: ${NICS[*]}"
if [ ${#NICS[@]} -lt 2 ]; then
	fail "two $DRIVER NICs are there (tests/vm/run --nics)"
	finish
fi
E2E_NICS="${NICS[0]} ${NICS[1]}"
e2e_setup
traffic_init
# The largest rings: the generator's paced bursts must fit A's TX ring,
# whose overflow drops frames no counter of the audit sees (only the
# xdp_devmap_xmit tracepoint), and TCG is slow to drain it.
ip netns exec "$NS_A" ethtool -G "$IF_A" tx 4096 >/dev/null 2>&1
ip netns exec "$NS_B" ethtool -G "$IF_B" rx 4096 >/dev/null 2>&1
check "the link between $IF_A and $IF_B comes up" e2e_link_up
# RSS over the UDP ports too, where the driver can.
ip netns exec "$NS_B" ethtool -N "$IF_B" rx-flow-hash udp4 sdfn >/dev/null 2>&1

policy() { # NAME CPUS [more YAML lines]
	local f=$E2E_TMP/$1.yaml
	printf 'version: 1\ncpus: [%s]\n' "$2" >"$f"
	shift 2
	[ $# -gt 0 ] && printf '%s\n' "$@" >>"$f"
	echo "$f"
}
P_ALL=$(policy all 0-3)

# ---- what the system says about B's RX interrupts --------------------------------

# The RX interrupts of $IF_B by their names in /proc/interrupts: igb calls
# them IF-rx-N (with separate TX vectors) or IF-TxRx-N (queue pairs).
rx_irqs() {
	awk -v re="^$IF_B-(rx|TxRx)-[0-9]+\$" '$NF ~ re { sub(":", "", $1); print $1 }' /proc/interrupts
}
# "0-1,3": the CPUs in the lists given, as xdp-steer prints a CPU set.
cpu_ranges() {
	tr ',' '\n' | awk -F- 'NF { for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' |
		sort -un | awk '
		{ if (n && $1 == last + 1) { last = $1; next }
		  if (n) out = out (out == "" ? "" : ",") (first == last ? first : first "-" last)
		  first = last = $1; n = 1 }
		END { if (n) out = out (out == "" ? "" : ",") (first == last ? first : first "-" last); print out }'
}
rx_irq_cpus() {
	local i
	for i in $(rx_irqs); do cat /proc/irq/"$i"/effective_affinity_list; done | paste -sd, | cpu_ranges
}
# rx_irqs_to CPU...: the RX interrupts in turn to these CPUs.
rx_irqs_to() {
	local i n=0 cpus=("$@")
	for i in $(rx_irqs); do
		echo "${cpus[n % ${#cpus[@]}]}" >/proc/irq/"$i"/smp_affinity_list || return 1
		n=$((n + 1))
	done
}
# irqs_moved: a moved interrupt takes effect at its next interrupt
# (effective_affinity_list says so only then): send frames until every RX
# interrupt is where smp_affinity_list asks.
irqs_moved() {
	local i try
	for try in 1 2 3 4 5; do
		gen_run --native --rate "$RATE" --group "$GROUP" --count 1000 >/dev/null
		for i in $(rx_irqs); do
			[ "$(cat /proc/irq/"$i"/effective_affinity_list)" = \
			  "$(cat /proc/irq/"$i"/smp_affinity_list)" ] || continue 2
		done
		return 0
	done
	grep -H . /proc/irq/$(rx_irqs | head -1)/*affinity_list
	return 1
}
status_warns() { steer status "$IF_B" | grep -F "warning: $1" || { steer status "$IF_B"; return 1; }; }
status_quiet_on_irqs() { ! steer status "$IF_B" | grep -F "RX interrupts"; }
status_says() { steer status "$IF_B" | grep -qF -- "$1"; }
status_json_has() { steer status "$IF_B" --json | grep -qF -- "$1"; }
loader_has() { in_b xdp-loader status "$IF_B" | grep -q "$1"; }

# Frames per RX queue of B (ethtool -S rx_queue_N_packets).
queue_packets() {
	ip netns exec "$NS_B" ethtool -S "$IF_B" |
		awk '$1 ~ /^rx_queue_[0-9]+_packets:$/ { print $1, $2 }'
}
# queues_used BEFORE AFTER: how many queues took frames in between.
queues_used() {
	awk 'NR == FNR { b[$1] = $2; next } $2 > b[$1] { n++ } END { print n + 0 }' \
		<(echo "$1") <(echo "$2")
}

# audited NAME [traffic_gen options]: one paced run of $FLOWS flows, and
# the audit: one CPU per flow, in order, all accounted for.
audited() {
	local name=$1 q0 q1
	shift
	q0=$(queue_packets)
	nic_stats >"$E2E_TMP/nic0"
	if ! observer_start --drop; then
		fail "$name: the observer attaches to $IF_B"
		return 1
	fi
	gen_run --native --rate "$RATE" --group "$GROUP" "$@" ||
		fail "$name: the generator sends its frames"
	observer_stop || fail "$name: the observer reports"
	q1=$(queue_packets)
	echo "  $name: $(traffic_summary "$OBS_REPORT")"
	echo "  $name: frames per RX queue:" $(awk 'NR == FNR { b[$1] = $2; next } { printf "%s ", $2 - b[$1] }' \
		<(echo "$q0") <(echo "$q1"))
	QUEUES_USED=$(queues_used "$q0" "$q1")
	check "$name: every one of $FLOWS flows reached the stack on exactly one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" 0 $((FLOWS - 1))
	# In order: no frame after a later one of its flow; a frame missing
	# must be a counted drop (the account below).
	check "$name: no frame arrived after a later one of its flow" \
		traffic_not_late "$OBS_REPORT"
	check "$name: frames received + counted drops == frames sent ($GEN_SENT)" \
		accounted_or_show "$OBS_REPORT"
}

accounted_or_show() {
	traffic_accounted "$1" && return 0
	nic_stats_moved
	return 1
}

# The NICs' ethtool counters, and those that moved since nic_stats: what a
# failed account shows to say where frames went.
nic_stats() {
	ip netns exec "$NS_A" ethtool -S "$IF_A" | sed 's/^ */A /'
	ip netns exec "$NS_B" ethtool -S "$IF_B" | sed 's/^ */B /'
}
nic_stats_moved() {
	echo "  counters that moved (A: sender, B: receiver):"
	awk 'NR == FNR { b[$1 $2] = $3; next } $3 != b[$1 $2] && $2 !~ /bytes/ {
		printf "    %s %s %d\n", $1, $2, $3 - b[$1 $2] }' "$E2E_TMP/nic0" <(nic_stats)
	dmesg | grep -E "igb|$IF_A|$IF_B" | tail -8 | sed 's/^/    /'
}

# ---- traffic over several RX queues -------------------------------------------

if ! steer -q attach "$IF_B" --policy "$P_ALL"; then
	fail "xdp-steer attaches to $IF_B ($DRIVER) in native mode"
	finish
fi
pass "xdp-steer attaches to $IF_B ($DRIVER) in native mode"
NQ=$(ip netns exec "$NS_B" ethtool -l "$IF_B" | awk '/^Combined:/ { n = $2 } END { print n }')
echo "  $IF_B: $NQ combined queues; RX interrupts: $(rx_irqs | paste -sd ' ')"
audited "traffic, $NQ RX queues" --count $((FLOWS * 20))
check "traffic: frames came in on at least 3 of $NQ RX queues (several collectors at once)" \
	test "$QUEUES_USED" -ge 3
check "traffic: the 4 workers took flows" \
	test "$(awk '$1 == "cpu" && $6 > 0' "$OBS_REPORT" | wc -l)" -eq 4

# ---- status against the driver's real interrupts --------------------------------

# virtio_net names its interrupts after the device (virtio0-input.0), not
# the interface: status cannot tell them, and says nothing.
health() {
	if [ "$DRIVER" != igb ]; then
		skip "status against the RX interrupts" "$DRIVER names them after the device, not the interface"
		return
	fi

	check "$IF_B has RX interrupts named $IF_B-rx-N or $IF_B-TxRx-N ($NQ)" \
		test "$(rx_irqs | wc -l)" -eq "$NQ"
	IRQ_CPUS=$(rx_irq_cpus)
	check "status warns that workers $IRQ_CPUS take the RX interrupts (their affinity in /proc)" \
		status_warns "worker CPUs $IRQ_CPUS also take $IF_B's RX interrupts"
	rx_irqs_to 0
	check "every RX interrupt moved to CPU 0 (effective_affinity_list)" irqs_moved
	check "after moving every RX interrupt to CPU 0, status warns of CPU 0 alone" \
		status_warns "worker CPUs 0 also take $IF_B's RX interrupts"
	steer -q apply "$IF_B" --policy "$(policy workers 1-3)" || fail "apply cpus [1-3]"
	check "with workers 1-3 off the interrupt CPU, status has no interrupt warning" \
		status_quiet_on_irqs
	check "status has no MTU warning at MTU 1500" not status_says "MTU"
	audited "traffic, RX on CPU 0, workers 1-3" --count $((FLOWS * 10))
	check "traffic, RX on CPU 0, workers 1-3: no flow on CPU 0" \
		test "$(awk '$1 == "flow" && $4 ~ /(^|,)0(,|$)/' "$OBS_REPORT" | wc -l)" -eq 0
}
health
steer -q apply "$IF_B" --policy "$P_ALL" || fail "apply cpus [0-3]"

# ---- queues and interrupts moved under traffic, drain on ----------------------------

moves_under_traffic() {
	if ! observer_start --drop; then
		fail "moves: the observer attaches to $IF_B"
		return
	fi
	gen_start --native --rate "$RATE" --duration 0 --group "$GROUP"
	sleep 2
	if [ "$DRIVER" = igb ]; then
		check "moves: ethtool -L $IF_B combined 2 under traffic" \
			ip netns exec "$NS_B" ethtool -L "$IF_B" combined 2
	else
		check "moves: $DRIVER refuses ethtool -L while XDP runs" \
			not ip netns exec "$NS_B" ethtool -L "$IF_B" combined 2
	fi
	sleep 2
	[ "$DRIVER" = igb ] &&
		check "moves: RX interrupts moved to CPUs 3 and 2 under traffic" rx_irqs_to 3 2
	sleep 2
	[ "$DRIVER" = igb ] &&
		check "moves: ethtool -L $IF_B combined $NQ under traffic" \
			ip netns exec "$NS_B" ethtool -L "$IF_B" combined "$NQ"
	sleep 2
	[ "$DRIVER" = igb ] && rx_irqs_to 1 0 3 2
	sleep 2
	gen_stop || fail "moves: the generator sends its frames"
	observer_stop || fail "moves: the observer reports"
	echo "  moves: $(traffic_summary "$OBS_REPORT")"
	echo "  moves: drops: $(traffic_drops_detail "$OBS_REPORT") (frames a queue reset loses are not counted)"
	check "moves: every one of $FLOWS flows stayed on exactly one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" 0 $((FLOWS - 1))
	check "moves: no frame arrived after a later one of its flow (0 late frames)" \
		traffic_not_late "$OBS_REPORT"
	check "moves: xdp-steer is still attached" status_json_has '"attached": true'

}
moves_under_traffic
e2e_link_up >/dev/null
audited "traffic after the moves" --count $((FLOWS * 10))

# ---- next to another XDP program, under libxdp's dispatcher --------------------------

dispatcher() {
	local id other
	if status_says "single program"; then
		skip "dispatcher" "xdp_steer runs as the only XDP program on this kernel (tests/vm/check-kernel.sh says why)"
		return
	fi
	check "status says xdp-steer runs under libxdp's dispatcher" \
		status_says "under libxdp's dispatcher"
	check "xdp-loader loads $OTHER_NAME beside xdp-steer on $IF_B" \
		in_b xdp-loader load -m native "$IF_B" "$OTHER_OBJ"
	check "xdp-loader status lists both" loader_has xdp_steer
	check "... and $OTHER_NAME" loader_has "$OTHER_NAME"
	audited "beside $OTHER_NAME" --count $((FLOWS * 10))
	id=$(steer status "$IF_B" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["prog_id"])')
	check "xdp-steer detaches from beside $OTHER_NAME" steer detach "$IF_B"
	check "program $id (xdp_steer) is freed when detach returns" \
		not bpftool prog show id "$id"
	check "$OTHER_NAME is still on $IF_B" loader_has "$OTHER_NAME"
	check "xdp_steer is not" not loader_has xdp_steer
	check "the pins are gone" test ! -e "$PIN_B"
	check "xdp-steer attaches again next to $OTHER_NAME" \
		steer -q attach "$IF_B" --policy "$P_ALL"
	audited "attached after $OTHER_NAME" --count $((FLOWS * 10))
	other=$(bpftool prog show name "$OTHER_NAME" | awk -F: 'NR == 1 { print $1 }')
	check "xdp-loader unloads $OTHER_NAME (program $other), xdp-steer stays" \
		in_b xdp-loader unload -i "$other" "$IF_B"
	check "xdp-steer is still attached with its policy" \
		status_json_has '"applied": true'
	audited "after $OTHER_NAME left" --count $((FLOWS * 5))
}
dispatcher

# ---- igb's native XDP frame size limits ---------------------------------------------

mtu_limits() {
	if [ "$DRIVER" != igb ]; then
		return
	fi
	steer status "$IF_B" >/dev/null 2>&1 || steer -q attach "$IF_B" --policy "$P_ALL"
	check "mtu: with XDP on at MTU 1500, igb takes MTU 1510" \
		in_b ip link set "$IF_B" mtu 1510
	check "mtu: and refuses 1511 (its 1536-byte buffers hold MTU + 26)" \
		not in_b ip link set "$IF_B" mtu 1511
	steer -q detach "$IF_B" || fail "mtu: detach"
	in_a ip link set "$IF_A" mtu 3046 && in_b ip link set "$IF_B" mtu 3046 &&
		e2e_link_up >/dev/null || fail "mtu: MTU 3046 on both NICs"
	check "mtu: xdp-steer attaches at MTU 3046 (3072-byte buffers)" \
		steer -q attach "$IF_B" --policy "$P_ALL"
	e2e_link_up >/dev/null
	audited "mtu 3046, 2048-byte frames" --size 2048 --count $((FLOWS * 5))
	steer -q detach "$IF_B" || fail "mtu: detach"
	in_b ip link set "$IF_B" mtu 3047 && e2e_link_up >/dev/null || fail "mtu: MTU 3047 on $IF_B"
	check "mtu: at MTU 3047 attach fails and names igb's limit" \
		err_has "igb refuses native XDP with MTU 3047" \
		steer attach "$IF_B" --policy "$P_ALL"
	check "mtu: the failed attach left nothing behind" test ! -e "$PIN_B"
	check "mtu: in skb mode it attaches" steer -q attach "$IF_B" --policy "$P_ALL" --mode skb
	check "mtu: and status warns of igb's native XDP limit" \
		status_warns "MTU 3047: igb refuses native XDP above 3046"
	steer -q detach "$IF_B" || fail "mtu: detach"
	in_a ip link set "$IF_A" mtu 1500
	in_b ip link set "$IF_B" mtu 1500
}
mtu_limits

finish
