#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: `xdp-steer attach` where xdp-steer already runs upgrades it in
# place, traffic flowing (lib/upgrade.c; issue 47).
#   - Another version runs first: this source built with BPF_SALT=1
#     (bpf/salt.h), whose every program has another tag. Under paced UDP
#     traffic of 1000 flows, the shipped policy attached by it, three
#     attaches of this binary, the second with a policy that moves a
#     quarter of the buckets, each replace the XDP program (a new id on
#     the interface, the maps kept). The first also replaces the cpumap
#     and tracepoint programs (kernel/trace.h, "Handing over"); the later
#     two keep this version's links. The observer behind xdp-steer counts
#     not one frame lost, late or on two CPUs.
#   - A handing over killed at each of its steps (failpoints) is settled
#     by the next command: the incoming programs pinned and the upgrade
#     killed before the XDP program was swapped, then attached again; the
#     take-over killed halfway, then any apply.
#   - Refused before anything changes, the program and its policy kept:
#     another attach mode.
# UPGRADE_FROM=REV: the other version is commit REV of this repository
# instead (tests/dist/test_upgrade_release.sh), salted with UPGRADE_SALT=1.
# UPGRADE_OLD=PATH: the other version's binary, built already
# (tests/vm/matrix builds it on the host: a VM under TCG compiles slowly).
# UPGRADE_BESIDE=OBJ: under libxdp's dispatcher (Debian's 6.1 in the VM,
# tests/vm/check-kernel.sh upgrade), another XDP program (OBJ's first,
# loaded by xdp-loader) runs twice beside xdp_steer, once before it (run
# priority 5) and once after it (20): the upgrades under the dispatcher
# keep every program in its order, xdp_steer at its priority; an upgrade
# killed between its two swaps of the dispatcher leaves two xdp_steer,
# which the next attach settles.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

# Paced well below what the box sustains: each upgrade loads and verifies
# programs, a burst of CPU on the workers' CPUs, whose kthreads (nice 10)
# then fall behind; at 100k frames/s their 2048-frame rings overflowed
# (ring-full drops, counted) on this 2-vCPU machine. That load was not
# told apart from the swap itself; at 30k frames/s with 16384-frame rings
# nothing is lost.
RATE=${UPGRADE_RATE:-30000}

e2e_setup
traffic_init
T=$E2E_TMP
xs() { in_b "$XDP_STEER" "$@"; }
# The other version, built apart (seconds): this source salted, or with
# UPGRADE_FROM=REV the commit REV of this repository (tests/dist/
# test_upgrade_release.sh: a real older version, whose pins this version
# takes over in place where their layout is this version's, and refuses
# to, changing nothing, where not).
mkdir -p "$T/old"
if [ -n "${UPGRADE_OLD:-}" ]; then
	:
elif [ -n "${UPGRADE_FROM:-}" ]; then
	git -C "$E2E_ROOT" archive "$UPGRADE_FROM" | tar -C "$T/old" -xf -
	salt=
	# UPGRADE_SALT=1: REV salted too, for a REV whose programs are this
	# version's (a change of map layout only: the swap still happens).
	[ -n "${UPGRADE_SALT:-}" ] && salt=BPF_SALT=1
else
	(cd "$E2E_ROOT" && git ls-files -z --cached --others --exclude-standard |
		tar --null -T - -cf -) | tar -C "$T/old" -xf -
	# With this build's objects and their dependency files, the
	# programs gone: make compiles only them, salted, and what includes
	# their skeletons, not the whole loader again.
	(cd "$E2E_ROOT" && find bpf include loader \( -name '*.o' -o \
		-name '*.d' -o -name '*.skel.h' \) -print0 |
		tar --null -T - -cf -) | tar -C "$T/old" -xf -
	rm -f "$T/old"/bpf/*.bpf.o
	salt=BPF_SALT=1
fi
# UPGRADE_STATS_EXTRA=1: the other version's steer_stats has a counter
# this one lacks, before passed_local_bytes (every field after it moves):
# as when a version adds a counter, the upgrade rebuilds steer_stats by
# copy beside the receiver slots' pool it keeps (loader/kernel/migrate_ways.c).
if [ -n "${UPGRADE_STATS_EXTRA:-}" ] && [ -z "${UPGRADE_OLD:-}" ]; then
	sed -i 's|^\t\(X(passed_local_bytes, COUNT\)|\tX(other_only, COUNT, "a counter only the other version has") \\\n\t\1|' \
		"$T/old/include/xdp_steer/stats.h"
	grep -q 'X(other_only' "$T/old/include/xdp_steer/stats.h" ||
		{ fail "adding a counter to the other version's steer_stats"; e2e_done; }
fi
# shellcheck disable=SC2086 # $salt: no word, or one
[ -n "${UPGRADE_OLD:-}" ] ||
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$T/old" -s -j2 $salt \
	loader/xdp-steer >"$T/old.log" 2>&1 ||
	{ fail "building the other version (${UPGRADE_FROM:-salted})"; sed 's/^/  /' "$T/old.log"; e2e_done; }
OLD=${UPGRADE_OLD:-$T/old/loader/xdp-steer}
old() { in_b "$OLD" "$@"; }
# link_ids: the ids of the tracepoint links pinned for $IF_B (only the
# plain names: tp_*_next are an incoming set's); link_tags: their
# programs' tags.
link_ids() {
	local f
	for f in "$PIN_B"/tp_cpumap_enqueue "$PIN_B"/tp_cpumap_kthread \
		 "$PIN_B"/tp_napi_poll; do
		# A pin that is not there (a version that pins no such
		# link) gives bpftool's {"error": ...}: no id.
		bpftool -j link show pinned "$f" 2>/dev/null |
			python3 -c 'import json, sys
d = json.load(sys.stdin)
if "id" in d: print(d["id"])'
	done | tr '\n' ' '
}
link_tags() {
	local id
	for id in $(link_ids); do
		bpftool -j link show id "$id" | python3 -c 'import json, sys
print(json.load(sys.stdin)["prog_id"])' | xargs -I{} bpftool -j prog show id {} |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["tag"])'
	done | tr '\n' ' '
}
# steer_on: xdp_steer's program id, alone or in libxdp's dispatcher
# (where ip link shows the dispatcher's); steer_tag_on: its tag.
# Before an upgrade from an older commit, only that version reads its
# maps.
st_json() { local d
	if d=$(xs status "$IF_B" --json 2>/dev/null); then echo "$d"
	else old status "$IF_B" --json; fi; }
steer_on() { jget "$(st_json)" 'd["prog_id"]'; }
steer_tag_on() { bpftool -j prog show id "$(steer_on)" | python3 -c 'import json, sys
print(json.load(sys.stdin)["tag"])'; }
# in_order: the programs in the dispatcher, in their order, as
# xdp-loader lists them: "priority name chain-actions" each (not ids and
# tags, which an upgrade changes).
in_order() { in_b xdp-loader status "$IF_B" |
	awk '$1 == "=>" { $1 = $4 = $5 = ""; print }' | tr -s ' ' | paste -sd';'; }
# Pins of an incoming set left (a handing over under way), one per line.
next_pins() { ls "$PIN_B" | grep '_next$'; }
mapped() { bpftool -j map show pinned "$PIN_B/steer_ctl" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'; }

# The shipped policy, with rings that absorb the kthreads' lag while an
# upgrade verifies programs on their CPUs (see RATE); and a variant that
# moves a quarter of the buckets.
{ cat "$E2E_ROOT/configs/default.yaml"; echo "queue_size: 16384"; } >"$T/p.yaml"
{ cat "$T/p.yaml"; echo "cpus: [{cpu: 0, weight: 1}, {cpu: 1, weight: 3}]"
} >"$T/weighted.yaml"
stats_json() { local d
	if d=$(xs stats "$IF_B" --json 2>/dev/null); then echo "$d"
	else old stats "$IF_B" --json; fi; }
counter() { jget "$(stats_json)" "d['totals']['$1']"; }
# Counters at each end of steer_stats (rx_packets first, then
# passed_local_bytes and the per-worker queued_packets, whose fields move
# when a counter is added before them), and the tracepoints' enqueued
# (ring_stats, per receiving CPU before f1c909d's successors, carried
# over when the incoming set takes over) and kthread_processed,
# comma-separated.
carried() { jget "$(stats_json)" "'%d,%d,%d,%d,%d' % (d['totals']['rx_packets'],
	d['totals']['passed_local_bytes'],
	sum(w['queued_packets'] for w in d['workers']),
	sum(w['enqueued'] or 0 for w in d['workers']),
	sum(w['kthread_processed'] or 0 for w in d['workers']))"; }

check "the other version attaches configs/default.yaml as shipped (queue_size 16384)" \
	old attach "$IF_B" --policy "$T/p.yaml"
if [ -n "${UPGRADE_BESIDE:-}" ]; then
	check "it runs under libxdp's dispatcher" \
		json_holds "$(st_json)" 'd["dispatcher"]'
	check "xdp-loader loads $(basename "$UPGRADE_BESIDE") beside it, before it (priority 5)" \
		in_b xdp-loader load -m native -P 5 "$IF_B" "$UPGRADE_BESIDE"
	check "... and after it (priority 20)" \
		in_b xdp-loader load -m native -P 20 "$IF_B" "$UPGRADE_BESIDE"
	order0=$(in_order)
	beside_ids=$(in_b xdp-loader status "$IF_B" | awk '$1 == "=>" && $3 != "xdp_steer" { print $4 }' | paste -sd,)
	echo "  in the dispatcher: $order0"
fi
traffic_rx_pin >/dev/null || { fail "pinning the receiving CPU"; e2e_done; }
ctl0=$(mapped)
links0=$(link_ids)
tags0=$(link_tags)
xdptag0=$(steer_tag_on)
check "its tracepoint programs are pinned" test -n "$links0"

observer_start --drop || { fail "the observer starts"; e2e_done; }
gen_start --group udp4:1000 --rate "$RATE" --duration 0
sleep 1
ids=("$(steer_on)")
n=0
nopol0=$(counter passed_no_policy) notgt0=$(counter passed_no_target)
# The counters as the other version reads them (its maps' layout), then
# as this one does after each upgrade: they never go back.
rx=("$(carried)")
for pol in p weighted p; do
	f=$T/$pol.yaml
	if xs attach "$IF_B" --policy "$f" >"$T/up.$n" 2>&1 &&
	   grep -q 'upgraded in place' "$T/up.$n"; then
		ids+=("$(steer_on)")
		rx+=("$(carried)")
		links[n]=$(link_ids) tags[n]=$(link_tags)
	else
		echo "  upgrade $n ($pol):"; sed 's/^/    /' "$T/up.$n"
		ids+=(failed)
	fi
	n=$((n + 1))
	sleep 1
done
gen_stop >/dev/null
observer_stop
echo "  xdp_steer on $IF_B: ${ids[*]}"
sed -n 1,2p "$T/up.1" | sed 's/^/  /'
traffic_summary "$OBS_REPORT" 2>/dev/null | sed 's/^/  /'

if [ -n "${UPGRADE_FROM:-}" ] && ! grep -q 'upgraded in place' "$T/up.0"; then
	# A layout this version cannot take over: refused, nothing changed.
	check "the upgrade from $UPGRADE_FROM is refused, naming the map it cannot carry over and why" \
		grep -q "cannot upgrade in place: .*map [a-z_]*.*nothing was changed" "$T/up.0"
	case $UPGRADE_FROM in
	7237213)
		check "... steer_wdone: that version's drain waits out a timeout, another design" \
			grep -q "no map steer_wdone.*waits out a timeout" "$T/up.0" ;;
	esac
	check "... no staged map is left pinned" test -z "$(ls "$PIN_B" | grep '_staged$')"
	check "... and the old program stays, with its maps" \
		test "${ids[1]}" = failed -a "$(steer_tag_on)" = "$xdptag0" -a "$(mapped)" = "$ctl0"
	check "no frame came after a later one of its flow" traffic_not_late "$OBS_REPORT"
	check "not one frame was lost" traffic_no_drops "$OBS_REPORT"
	e2e_done
fi
check "each of three attaches upgraded in place, each with a new program" \
	python3 -c 'import sys; v = sys.argv[1:]
sys.exit(0 if "failed" not in v and len(set(v)) == 4 and "0" not in v else 1)' "${ids[@]}"
if [ -n "${UPGRADE_BESIDE:-}" ]; then
	check "xdp_steer still runs under libxdp's dispatcher" \
		json_holds "$(xs status "$IF_B" --json)" 'd["dispatcher"]'
	check "every program of the dispatcher kept its place, xdp_steer its priority: $(in_order)" \
		test "$(in_order)" = "$order0"
	check "... the other programs' ids kept (neither reloaded)" test \
		"$(in_b xdp-loader status "$IF_B" | awk '$1 == "=>" && $3 != "xdp_steer" { print $4 }' | paste -sd,)" = "$beside_ids"
fi
check "the maps stayed: the same steer_ctl" test "$(mapped)" = "$ctl0"
check "the counters never went back (rx_packets, passed_local_bytes, queued_packets, enqueued, kthread_processed: ${rx[*]})" \
	python3 -c 'import sys
v = [[int(x) for x in a.split(",")] for a in sys.argv[1:]]
sys.exit(0 if len(v) == 4 and all(len(r) == 5 for r in v) and
	 all(sorted(c) == list(c) for c in zip(*v)) else 1)' "${rx[@]}"
check "no staged map is left pinned (*_staged)" \
	test -z "$(ls "$PIN_B" | grep '_staged$')"
check "the XDP program became this version's (another tag)" \
	test "$(steer_tag_on)" != "$xdptag0"
# The maps 9cbff08 has of another layout or lacks: the three receiver
# slot maps and their leases (steer_rx_lease), steer_stats, flow_rules
# (preallocated there), steer_buckets and steer_load (per CPU there), and
# steer_queued (steer_stats' queued[] there).
CARRIED=9
if [ "${UPGRADE_FROM:-}" = 9cbff08 ]; then
	# Its cpumap program is this version's, tag for tag: the workers stay.
	check "the first upgrade carried the maps of another layout over (receiver slots, steer_stats, flow_rules, steer_queued)" \
		grep -q "$CARRIED maps of another layout were created or rebuilt" "$T/up.0"
else
if [ -n "${UPGRADE_STATS_EXTRA:-}" ]; then
	check "the first upgrade rebuilt steer_stats, its counters carried over" \
		grep -q "1 maps of another layout were created or rebuilt" "$T/up.0"
fi
check "the first upgrade gave every worker an entry with this version's program" \
	grep -q "the apply gives every worker a new entry with this version's" "$T/up.0"
fi
if [ -n "${UPGRADE_FROM:-}" ] && [ "${tags[0]:-}" = "$tags0" ]; then
	check "tracepoint programs of the same code as this version's stay: the same links" \
		test "${links[0]:-}" = "$links0"
else
check "the first upgrade handed the tracepoint programs over" \
	grep -q 'tracepoint programs were handed over' "$T/up.0"
# From an older commit, a tracepoint program of the same code keeps its
# tag (its new link shows it was loaded anew, on the maps carried over).
check "... to new links of programs with other tags" python3 -c 'import sys
a, b, c, d = (x.split() for x in sys.argv[1:5])
ok = len(a) == len(b) == 3 and not set(a) & set(b) and len(c) == len(d) == 3
ok = ok and (any if sys.argv[5] else all)(x != y for x, y in zip(c, d))
sys.exit(0 if ok else "links %s -> %s, tags %s -> %s" % (a, b, c, d))' \
	"$links0" "${links[0]:-}" "$tags0" "${tags[0]:-}" "${UPGRADE_FROM:-}"
fi
check "no incoming set is left pinned (tp_*_next, cpumap_ids_next)" \
	test -z "$(next_pins)"
check "the same version's upgrades kept its links" \
	test "${links[0]:-x}" = "${links[1]:-y}" -a "${links[1]:-y}" = "$(link_ids)"
doc=$(xs status "$IF_B" --json)
check "the last policy is in force (generation 4: the workers' move, two changes)" \
	json_holds "$doc" 'd["policy"]["generation"] == 4'
check "no frame met the new program without a policy (passed_no_policy)" \
	test "$(counter passed_no_policy)" = "$nopol0"
check "nor without its CPU's cpumap entry (passed_no_target)" \
	test "$(counter passed_no_target)" = "$notgt0"
check "no frame came after a later one of its flow" traffic_not_late "$OBS_REPORT"
check "no flow was on two CPUs at once" traffic_not_split "$OBS_REPORT"
check "not one frame was lost through the upgrades" traffic_no_drops "$OBS_REPORT"
check "every frame was seen or counted dropped" traffic_accounted "$OBS_REPORT"

# An older commit knows no handing over: the kills below need the other
# version to be this one's code, maps and all. Every command works on the
# maps carried over.
if [ -n "${UPGRADE_FROM:-}" ] || [ -n "${UPGRADE_STATS_EXTRA:-}" ]; then
	no_detach_advice() { ! xs status "$IF_B" 2>&1 | grep -q detach; }
	detached_clean() { xs detach "$IF_B" && ! test -e "$PIN_B"; }
	check "status reads the carried-over maps, with no advice to detach" \
		no_detach_advice
	check "apply works on them" xs apply "$IF_B" --policy "$T/weighted.yaml"
	check "balance --once works on them" xs balance "$IF_B" --once
	check "detach works, and removes every pin" detached_clean
	[ "${UPGRADE_FROM:-}" = 9cbff08 ] || e2e_done
	# ---- an upgrade over maps carried over, killed at each step ----
	staged() { ls "$PIN_B" | grep -c '_staged$'; }
	halfway() { ! xs status "$IF_B" >"$T/st" 2>&1 &&
		grep -q "upgrade in place was left halfway" "$T/st" &&
		! grep -q "detach" "$T/st" || { cat "$T/st"; return 1; }; }
	check "the other version attaches again" old attach "$IF_B" --policy "$T/p.yaml"
	xdptag1=$(steer_tag_on)
	XDP_STEER_FAILPOINT=migrate-staged:exit xs attach "$IF_B" --policy "$T/p.yaml" \
		>"$T/out" 2>&1
	check "an upgrade killed with its new maps staged, just before the swap (exit 137)" \
		test $? -eq 137
	check "... leaves $CARRIED maps staged (*_staged) and the other version's program on its own" \
		test "$(staged)" -eq $CARRIED -a "$(steer_tag_on)" = "$xdptag1"
	check "status names the upgrade left halfway, and advises no detach" halfway
	check "the next attach undoes the staging and upgrades" \
		xs attach "$IF_B" --policy "$T/p.yaml"
	check "... no map left staged, no incoming tracepoint set" \
		test "$(staged)" -eq 0 -a -z "$(next_pins)"
	reattach_old() { xs detach "$IF_B" && old attach "$IF_B" --policy "$T/p.yaml"; }
	check "detach, and the other version attaches again" reattach_old
	XDP_STEER_FAILPOINT=migrate-swapped:exit xs attach "$IF_B" --policy "$T/p.yaml" \
		>"$T/out" 2>&1
	check "an upgrade killed right after the swap, its new maps still staged (exit 137)" \
		test $? -eq 137
	check "... this version's program runs, on $CARRIED staged maps" \
		test "$(staged)" -eq $CARRIED -a "$(steer_tag_on)" != "$xdptag1"
	check "status names the upgrade left halfway, and advises no detach" halfway
	check "the next apply finishes it: the staged maps take their pins" \
		xs apply "$IF_B" --policy "$T/weighted.yaml"
	check "... none left staged, and status reads them" \
		test "$(staged)" -eq 0 -a -n "$(xs status "$IF_B" --json)"
	check "attach again finishes the tracepoint programs' handing over" \
		xs attach "$IF_B" --policy "$T/p.yaml"
	check "... nothing _next left" test -z "$(next_pins)"
	check "detach works, and removes every pin" detached_clean
	e2e_done
fi

# ---- a handing over killed at each step ---------------------------------------

tags1=$(link_tags)
check "the other version attaches again (an upgrade, handing over to it)" \
	old attach "$IF_B" --policy "$T/p.yaml"
check "... its programs now" test "$(link_tags)" = "$tags0"
XDP_STEER_FAILPOINT=handover-begun:exit xs attach "$IF_B" --policy "$T/p.yaml" \
	>"$T/out" 2>&1
check "an upgrade killed once this version's tracepoint programs are pinned (exit 137)" \
	test $? -eq 137
check "... leaves them pinned beside the running ones (*_next)" \
	test "$(next_pins | wc -l)" -eq 4
check "... and the other version's XDP program in place" \
	test "$(steer_tag_on)" = "$xdptag0"
check "an apply meanwhile works" xs apply "$IF_B" --policy "$T/weighted.yaml"
check "attach again finishes the upgrade" xs attach "$IF_B" --policy "$T/p.yaml"
check "... the tracepoint programs handed over, nothing _next left" \
	test "$(link_tags)" = "$tags1" -a -z "$(next_pins)"
XDP_STEER_FAILPOINT=take-over:exit old attach "$IF_B" --policy "$T/p.yaml" \
	>"$T/out" 2>&1
check "an upgrade killed halfway through the take-over (exit 137)" \
	test $? -eq 137
check "... leaves the incoming links pinned as _next, its cpumap_ids taken over" \
	test "$(next_pins | tr '\n' ' ')" = "tp_cpumap_enqueue_next tp_cpumap_kthread_next tp_napi_poll_next "
check "the next apply finishes the take-over" xs apply "$IF_B" --policy "$T/p.yaml"
check "... the other version's tracepoint programs in place, nothing _next left" \
	test "$(link_tags)" = "$tags0" -a -z "$(next_pins)"
check "and this version upgrades over it again" xs attach "$IF_B" --policy "$T/p.yaml"
check "... to its own tracepoint programs" test "$(link_tags)" = "$tags1"
if [ -n "${UPGRADE_BESIDE:-}" ]; then
	steers() { in_b xdp-loader status "$IF_B" | awk '$1 == "=>" && $3 == "xdp_steer"' | wc -l; }
	XDP_STEER_FAILPOINT=dispatcher-joined:exit xs attach "$IF_B" --policy "$T/p.yaml" \
		>"$T/out" 2>&1
	check "an upgrade killed between its two swaps of the dispatcher (exit 137)" \
		test $? -eq 137
	check "... leaves two xdp_steer in it, steering as one" \
		test "$(steers)" -eq 2
	two_said() { xs status "$IF_B" >"$T/st" 2>&1
		grep -q "2 xdp_steer programs run in libxdp's dispatcher: an upgrade in place was killed between its two swaps.*the next 'xdp-steer attach $IF_B --policy POLICY' finishes the upgrade" "$T/st" ||
			{ cat "$T/st"; return 1; }; }
	check "status says so, and that the next attach finishes the upgrade" two_said
	# As a unit with a drop-in of LIBXDP_SKIP_DISPATCHER=1 would: the
	# dispatcher is there, and the upgrade keeps it.
	check "the next attach settles it (LIBXDP_SKIP_DISPATCHER=1 set, which cannot apply)" \
		in_b env LIBXDP_SKIP_DISPATCHER=1 "$XDP_STEER" attach "$IF_B" --policy "$T/p.yaml"
	check "... one xdp_steer left, every program in its place" \
		test "$(steers)" -eq 1 -a "$(in_order)" = "$order0"
	check "... still under libxdp's dispatcher" \
		json_holds "$(xs status "$IF_B" --json)" 'd["dispatcher"]'
fi

# ---- refused, and nothing changed ---------------------------------------------

before=$(steer_on)
xs attach "$IF_B" --policy "$T/p.yaml" --mode skb >"$T/out" 2>&1
check "an attach in another mode is refused" test $? -ne 0
check "and says to detach first" grep -q "detach $IF_B' first" "$T/out"
check "and left the program in place" test "$(steer_on)" = "$before"

e2e_done
