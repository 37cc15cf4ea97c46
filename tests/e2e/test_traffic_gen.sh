#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The traffic generator's three senders (tests/e2e/traffic_gen.c), without
# xdp-steer: nothing on $IF_B but the observer, or a capture.
#
# - The writers agree: the first frames of each group of a mix (UDP/IPv4,
#   TCP/IPv6 under an S-tag and a C-tag, UDP/IPv4 in VXLAN, TCP/IPv4 in
#   GRE over IPv6, ESP/IPv6, ARP, bad=l4-short) as traffic_gen.bpf.c
#   writes them in plain test runs (no live frames: this also shows the
#   object loads) and as userspace writes them, byte for byte, and the
#   sequence numbers after (traffic_gen --check-writer).
# - The sender chosen: --sender auto takes live frames where the kernel
#   has them, else says once (with -v only) that it falls back to fanout;
#   TRAFFIC_GEN_SENDER picks one, the option overrides it; bad values are
#   usage errors.
# - For each sender that works here (the socket and fanout always; live
#   frames where the kernel allows them, else a SKIP with the kernel's
#   answer): the mix
#   at a paced rate, every flow whole and in order at the observer (tc
#   ingress of $IF_B), every ARP frame there; B's stack finds no checksum
#   error; an unpaced flood, the socket sender's lossless (a frame the
#   veth drops is sent again), the live sender's drops counted; a small
#   mix of groups with frames=N captured on $IF_B in the order the
#   generator promises (groups take turns of N frames, round-robin over
#   their flows). The senders' captures are the same frames in the same
#   order, byte for byte; fanout's with each socket frame made into 7
#   (--fanout 7), so that counts end in single frames and the copies'
#   order within a socket frame shows.
# - fanout leaves nothing behind: its veth pair goes when it ends. Its
#   XDP program (plain test runs) makes copies only of a frame tagged with
#   its sender's key: not of one tagged with another, nor of a frame of
#   the pair's own stack whose random source MAC starts with the tag's
#   magic (traffic_gen --check-fanout; such a frame once wrote 96 stray
#   frames as flow 0 of test_encap's run). Into a peer that takes no
#   xdp_frames (no XDP program, GRO or threaded NAPI on $IF_B) it ends:
#   where the kernel's devmap passes over such an interface (6.3+: its
#   xdp_features) no copy is made, and it stops with exit 1 and says why,
#   where it used to spin; an older kernel makes the copies and the veth
#   drops them (exit 0), as the live sender's. For a moment only (GRO off
#   for 0.3 s, as a peer between XDP programs) it carries on.
#
# $IF_B has GRO on, so that the veth takes live frames without an XDP
# program (traffic_lib.sh), and both senders' frames enter B's stack
# through the veth's NAPI. TRAFFIC_RATE (frames/s, default 100000) is the
# paced rate.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

# This test picks the sender of each run itself.
unset TRAFFIC_GEN_SENDER
e2e_setup
traffic_init

RATE=${TRAFFIC_RATE:-100000}
FRAMES_PER_FLOW=40
# Flows 0-199 UDP/IPv4, 200-299 TCP/IPv6 QinQ, 300-399 UDP/IPv4 in VXLAN,
# 400-449 TCP/IPv4 in GRE over IPv6, 450-499 ESP/IPv6, 500-503 ARP,
# 504-553 UDP/IPv4 with 2 bytes of UDP header in its IP length.
MIX=(--group udp4:200 --group tcp6:100,vlan=100.200
     --group udp4:100,encap=vxlan --group tcp4:50,encap=gre,outer=6
     --group esp6:50 --group arp:4 --group udp4:50,bad=l4-short)
MIX_LAST=553
# Groups of a few flows each, taking turns of their own frames=N; as
# "FIRST:FLOWS:N" for the order they must arrive in.
SMALL=(--group udp4:3,frames=5 --group tcp6:2,vlan=100.200,frames=3
       --group udp4:2,encap=vxlan,frames=2 --group arp:1,frames=1
       --group udp4:2,bad=l4-short,frames=3 --group esp6:2,frames=4)
SMALL_TURNS="0:3:5 3:2:3 5:2:2 7:1:1 8:2:3 10:2:4"
SMALL_COUNT=300
CAPTURE_RATE=5000

in_b ethtool -K "$IF_B" gro on >/dev/null ||
	{ fail "GRO on $IF_B (ethtool -K)"; e2e_done; }

gen() {
	in_a "$TRAFFIC_GEN" --ifname "$IF_A" --dst-mac "$MAC_B" "$@"
}

# ---- the writers --------------------------------------------------------------

check "the program (plain test runs, no live frames) and userspace write the same first 200 frames of each of the mix's 7 groups, and leave the same sequence numbers" \
	gen --check-writer 200 "${MIX[@]}"
check "fanout: only a frame tagged with its sender's key is made into copies, no other frame on its veth pair" \
	gen --check-fanout

# ---- the sender chosen --------------------------------------------------------

LIVE= LIVE_WHY=
if LIVE_WHY=$(gen --sender live --count 1 --group arp:1 2>&1 >/dev/null); then
	LIVE=1
fi
LIVE_WHY=${LIVE_WHY#traffic_gen: }
LIVE_WHY=${LIVE_WHY%% (*}

# said_sender ENV WANT [traffic_gen options]: a short run with -v under
# ENV (NAME=VALUE, or empty) names WANT last as its sender.
said_sender() {
	local envv=$1 want=$2 err
	shift 2
	err=$(env ${envv:+"$envv"} nsenter --net=/run/netns/"$NS_A" "$TRAFFIC_GEN" \
		--ifname "$IF_A" --dst-mac "$MAC_B" --count 100 --group udp4:10 \
		-v "$@" 2>&1 >/dev/null) || { echo "$err"; return 1; }
	echo "$err"
	[ "$(grep -o 'sender: [a-z]*' <<<"$err" | tail -1)" = "sender: $want" ]
}

# auto_says N [-v]: a short run under --sender auto says "refuses live
# frames" N times on stderr.
auto_says() {
	local err
	err=$(gen --count 100 --group udp4:10 "${@:2}" 2>&1 >/dev/null) || {
		echo "$err"; return 1; }
	echo "$err"
	[ "$(grep -c 'refuses live frames' <<<"$err")" -eq "$1" ]
}

if [ -n "$LIVE" ]; then
	check "auto: the kernel has live frames, and auto takes them" \
		said_sender "" live
	check "auto: with live frames, -v says nothing of a fallback" auto_says 0 -v
else
	check "auto: the kernel refuses live frames, so auto sends through fanout" \
		said_sender "" fanout
	check "auto: -v says once that it falls back" auto_says 1 -v
	check "auto: without -v it falls back without a word" auto_says 0
fi
check "TRAFFIC_GEN_SENDER=socket puts a run on the socket sender" \
	said_sender TRAFFIC_GEN_SENDER=socket socket
check "--sender socket overrides TRAFFIC_GEN_SENDER=live" \
	said_sender TRAFFIC_GEN_SENDER=live socket --sender socket
usage_error() {
	"$@" >/dev/null 2>&1
	[ $? -eq 2 ]
}
check "a bad TRAFFIC_GEN_SENDER is a usage error (exit 2)" \
	usage_error env TRAFFIC_GEN_SENDER=fast nsenter --net=/run/netns/"$NS_A" \
	"$TRAFFIC_GEN" --ifname "$IF_A" --dst-mac "$MAC_B" --count 1
check "a bad --sender is a usage error (exit 2)" \
	usage_error gen --sender fast --count 1

# ---- each sender ----------------------------------------------------------------

# turns_order TURNS COUNT: "FLOW SEQ" of the first COUNT frames when groups
# "FIRST:FLOWS:N ..." take turns of N frames, each round-robin over its
# flows from where its last turn stopped.
turns_order() {
	awk -v turns="$1" -v count="$2" 'BEGIN {
		ng = split(turns, t, " ")
		for (g = 1; g <= ng; g++) { split(t[g], p, ":"); first[g] = p[1]; n[g] = p[2]; q[g] = p[3]; cur[g] = 0 }
		for (g = 1; sent < count; g = g % ng + 1)
			for (k = 0; k < q[g] && sent < count; k++) {
				f = first[g] + cur[g]; cur[g] = (cur[g] + 1) % n[g]
				print f, ++seq[f]; sent++
			}
	}'
}

# captured_in_order FILE: the capture holds the small mix's frames in the
# order turns_order says.
captured_in_order() {
	diff <(turns_order "$SMALL_TURNS" "$SMALL_COUNT") <(cut -d' ' -f1,2 "$1") | head -10
	[ "${PIPESTATUS[0]}" -eq 0 ]
}

# capture_run OUT [traffic_gen options]: the frames of one run as capture.py
# writes them.
capture_run() {
	local out=$1 ready=$E2E_TMP/capture.ready pid i
	shift
	rm -f "$ready"
	nsenter --net=/run/netns/"$NS_B" python3 "$E2E_ROOT/tests/e2e/capture.py" \
		"$IF_B" "$out" "$ready" 2>/dev/null &
	pid=$!
	for i in $(seq 100); do
		[ -e "$ready" ] && break
		sleep 0.05
	done
	gen_run "$@"
	local rc=$?
	sleep 0.3
	kill -INT "$pid"
	wait "$pid"
	return $rc
}

sender_runs() {
	local s=$1 count=$(( (MIX_LAST + 1) * FRAMES_PER_FLOW ))

	export TRAFFIC_GEN_SENDER=$s
	if observer_start --drop 2>/dev/null; then
		gen_run --rate "$RATE" "${MIX[@]}" --count "$count"
		check "$s: the generator sent the mix's $count frames at $RATE frames/s" \
			test "${GEN_SENT:-0}" -eq "$count"
		check "$s: the generator says the $s sender sent them (sender=$GEN_SENDER)" \
			test "$GEN_SENDER" = "$s"
		observer_stop
		echo "  $s, paced: $(traffic_summary "$OBS_REPORT")"
		check "$s: every one of the mix's $((MIX_LAST + 1)) flows arrived whole and in order" \
			traffic_complete "$OBS_REPORT"
		check "$s: every ARP frame sent arrived" \
			test "$(report_get "$OBS_REPORT" marked_arp)" -eq "$(gen_sent_of arp)"
		check "$s: no frame was dropped anywhere at $RATE frames/s" \
			traffic_no_drops "$OBS_REPORT"
	else
		fail "$s: the observer attaches to $IF_B"
	fi

	# Let through to B's stack, which has no sockets for them.
	local snmp0 snmp1
	snmp0=$(traffic_snmp "$NS_B")
	gen_run --rate "$RATE" --group udp4:100 --group udp6:100 --group tcp4:100 \
		--group tcp6:100 --count 4000 ||
		fail "$s, checksums: the generator sends its frames"
	sleep 0.3
	snmp1=$(traffic_snmp "$NS_B")
	delta() { traffic_snmp_delta "$snmp0" "$snmp1" "$1"; }
	check "$s, checksums: B's stack took all $(gen_sent_of udp4) UDP/IPv4 and $(gen_sent_of udp6) UDP/IPv6 frames as datagrams (NoPorts)" \
		test "$(delta Udp:NoPorts)" -eq "$(gen_sent_of udp4)" -a \
		"$(delta Udp6NoPorts)" -eq "$(gen_sent_of udp6)"
	check "$s, checksums: B's stack took all $(( $(gen_sent_of tcp4) + $(gen_sent_of tcp6) )) TCP-shaped frames as segments (Tcp:InSegs)" \
		test "$(delta Tcp:InSegs)" -ge "$(( $(gen_sent_of tcp4) + $(gen_sent_of tcp6) ))"
	check "$s, checksums: B's stack counted no UDP, UDP6 or TCP checksum error" \
		test "$(( $(delta Udp:InCsumErrors) + $(delta Udp6InCsumErrors) + $(delta Tcp:InCsumErrors) + $(delta Tcp:InErrs) ))" -eq 0

	if observer_start --drop 2>/dev/null; then
		gen_run --group udp4:1000 --count 500000 ||
			fail "$s, unpaced: the generator sends its frames"
		observer_stop
		echo "  $s, unpaced: $(traffic_summary "$OBS_REPORT"); $GEN_FPS frames/s"
		if [ "$s" = socket ]; then
			check "$s, unpaced: nothing lost, every one of 1000 flows whole and in order" \
				traffic_complete "$OBS_REPORT"
		else
			check "$s, unpaced: frames received + counted drops == frames sent ($GEN_SENT)" \
				traffic_accounted "$OBS_REPORT"
			check "$s, unpaced: no frame arrived after a later one of its flow" \
				traffic_not_late "$OBS_REPORT"
		fi
	else
		fail "$s, unpaced: the observer attaches to $IF_B"
	fi

	capture_run "$E2E_TMP/capture.$s" --rate "$CAPTURE_RATE" "${SMALL[@]}" \
		--count "$SMALL_COUNT" || fail "$s, capture: the generator sends its frames"
	check "$s, capture: the $SMALL_COUNT frames of 6 groups with frames=N arrived in turns of N, round-robin over each group's flows" \
		captured_in_order "$E2E_TMP/capture.$s"
	unset TRAFFIC_GEN_SENDER
}

sender_runs socket
TRAFFIC_GEN_FANOUT=7 sender_runs fanout
check "the fanout and the socket sender sent the same $SMALL_COUNT frames, byte for byte, in the same order" \
	cmp "$E2E_TMP/capture.fanout" "$E2E_TMP/capture.socket"
# fanout_refused: GRO off on $IF_B (no NAPI, so no xdp_frames taken), a
# short fanout run ends within 10 s, failing with the reason or (a kernel
# without xdp_features) sending into the veth's drop; GRO back on.
fanout_refused() {
	local err rc
	in_b ethtool -K "$IF_B" gro off >/dev/null || return 1
	err=$(timeout 10 nsenter --net=/run/netns/"$NS_A" "$TRAFFIC_GEN" --ifname "$IF_A" \
		--dst-mac "$MAC_B" --sender fanout --count 5 --group arp:1 2>&1 >/dev/null)
	rc=$?
	in_b ethtool -K "$IF_B" gro on >/dev/null
	echo "  exit $rc: $err"
	[ "$rc" -eq 1 ] && grep -q "takes no XDP frames" <<<"$err" && return 0
	# Before 6.3 the devmap has no xdp_features to go by.
	local major minor
	IFS=. read -r major minor _ < <(uname -r)
	[ "$rc" -eq 0 ] && [ $((major * 100 + minor)) -lt 603 ]
}
check "fanout: into a peer that takes no xdp_frames it ends, with exit 1 and the reason where the kernel makes no copy" \
	fanout_refused
# fanout_pause: GRO off on $IF_B for 0.3 s while fanout sends for 2 s at
# 100000 frames/s: it carries on, ends well, and frames arrive after the
# pause (some 100000 in its last second).
fanout_pause() {
	local rc after
	TRAFFIC_GEN_SENDER=fanout gen_start --rate 100000 --duration 2 --group udp4:100
	sleep 0.7
	in_b ethtool -K "$IF_B" gro off >/dev/null
	sleep 0.3
	in_b ethtool -K "$IF_B" gro on >/dev/null
	after=$(_ethtool_sum "$NS_B" "$IF_B" '^rx_queue_[0-9]+_xdp_packets:')
	sleep 1.3	# past its 2 s: it ends by itself
	gen_stop
	rc=$?
	after=$(( $(_ethtool_sum "$NS_B" "$IF_B" '^rx_queue_[0-9]+_xdp_packets:') - after ))
	echo "  exit $rc, sent ${GEN_SENT:-?}, $after frames taken after the pause"
	[ "$rc" -eq 0 ] && [ "$after" -gt 10000 ]
}
check "fanout: a peer that takes no xdp_frames for 0.3 s (GRO off and on) does not stop it" \
	fanout_pause
check "fanout took its veth pair away when it ended" \
	eval "! ip -n $NS_A -o link show | grep -q ': tgf[0-9]'"
if [ -n "$LIVE" ]; then
	sender_runs live
	check "the live and the socket sender sent the same $SMALL_COUNT frames, byte for byte, in the same order" \
		cmp "$E2E_TMP/capture.live" "$E2E_TMP/capture.socket"
else
	skip "live: the runs above with live frames" "the kernel refuses them: $LIVE_WHY"
	skip "the live and the socket sender sent the same frames" "no live frames here"
fi

e2e_done
