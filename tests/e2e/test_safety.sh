#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: the control plane cannot be turned against its state.
#   - Two namespaces run xdp-steer on interfaces of one name independently.
#   - Pin directories someone else made, or links planted in their place,
#     are refused and nothing they point at is touched; bpffs mounted by
#     xdp-steer is root's alone.
#   - attach and detach take the lock: of concurrent attaches one attaches,
#     the other then upgrades it in place.
#   - Pins of a deleted interface or namespace are seen and removed.
#   - Bad names, unprivileged runs, option values and interface names that
#     need JSON escaping get clear answers.
#   - A failure (or a kill) at each step of attach and apply leaves the
#     policy in force complete, and the next apply finishes what was left
#     (failpoints: loader/kernel/failpoint.h).
set -u
. "$(dirname "$0")/lib.sh"

e2e_setup
T=$E2E_TMP
# A second pair of namespaces whose receiving interface has $IF_B's name.
NS_C=xst-$E2E_ID-c
NS_D=xst-$E2E_ID-d
IF_D=xsd$E2E_ID
in_c() { nsenter --net=/run/netns/"$NS_C" "$@"; }
trap 'in_c "$XDP_STEER" -q detach "$IF_B" >/dev/null 2>&1; ip netns del "$NS_C" 2>/dev/null;
      ip netns del "$NS_D" 2>/dev/null; rm -rf "${PIN_C%/*}" /tmp/xst-victim-$E2E_ID
      e2e_cleanup' EXIT

make_c() {
	ip netns add "$NS_C" && ip netns add "$NS_D" &&
	ip link add "$IF_B" netns "$NS_C" type veth peer name "$IF_D" netns "$NS_D" &&
	ip -n "$NS_C" link set "$IF_B" up && ip -n "$NS_D" link set "$IF_D" up &&
	PIN_C=/sys/fs/bpf/xdp-steer/netns-$(e2e_netns_id "$NS_C")/$IF_B
}
make_c || { fail "making a second namespace with an interface named $IF_B"; exit 1; }

xs() { in_b "$XDP_STEER" "$@"; }
xc() { in_c "$XDP_STEER" "$@"; }
run_rc() {	# run_rc WANT CMD...: exit status WANT; output in $T/out
	local want=$1 rc
	shift
	"$@" >"$T/out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] && return 0
	echo "exit status $rc, expected $want"; cat "$T/out"
	return 1
}
out_has() { grep -qF -- "$1" "$T/out" || { echo "no '$1' in:"; cat "$T/out"; return 1; }; }
out_lacks() { ! grep -qF -- "$1" "$T/out" || { echo "'$1' in:"; cat "$T/out"; return 1; }; }
state() { python3 "$E2E_ROOT/tests/e2e/maps_state.py" "$1"; }
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
prog_on() {	# prog_on NS IFACE: the XDP program id on it per ip link, or 0
	ip -n "$1" -j -d link show dev "$2" | python3 -c 'import json, sys
print(json.load(sys.stdin)[0].get("xdp", {}).get("prog", {}).get("id", 0))'
}
json_ok() {	# json_ok CMD...: the command prints one JSON document
	"$@" | python3 -c 'import json, sys; json.load(sys.stdin)'
}

printf 'version: 1\ncpus: [0]\nhash: {seed: 0}\n' >"$T/p0.yaml"
printf 'version: 1\ncpus: [0-1]\nhash: {seed: 1}\n' >"$T/p1.yaml"
printf 'version: 1\ncpus: [1]\nhash: {seed: 2}\nrules:\n  - {match: {src: 10.9.0.0/16}, cpu: 1}\n' >"$T/p2.yaml"

# ---- two namespaces, one interface name -------------------------------------

check "attach in namespace B succeeds" run_rc 0 xs attach "$IF_B" --policy "$T/p1.yaml"
check "attach to an interface of the same name in namespace C succeeds" \
	run_rc 0 xc attach "$IF_B" --policy "$T/p1.yaml"
check "each namespace has its own pin directory, netns-<inode>-<cookie>/$IF_B" \
	test -e "$PIN_B/steer_ctl" -a -e "$PIN_C/steer_ctl" -a "$PIN_B" != "$PIN_C"
check "nothing is pinned under the initial namespace's path for $IF_B" \
	test ! -e /sys/fs/bpf/xdp-steer/"$IF_B"
check "applying in B changes B's maps" run_rc 0 xs apply "$IF_B" --policy "$T/p2.yaml"
check "B is at generation 2 and C still at 1" \
	test "$(field gen "$(state "$PIN_B")") $(field gen "$(state "$PIN_C")")" = "2 1"
S_B=$(state "$PIN_B")
check "detaching in C succeeds" run_rc 0 xc detach "$IF_B"
check "C's pins are gone" test ! -e "$PIN_C"
check "B's program is still attached and uses its pins" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B --json | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not (d[\"attached\"] and d[\"uses_pins\"]))'"
check "B's maps are as they were" test "$(state "$PIN_B")" = "$S_B"

# ---- pin directories someone else made ---------------------------------------

NSDIR_C=${PIN_C%/*}
mkdir -p "$NSDIR_C" && chown 65534 "$NSDIR_C" && chmod 0755 "$NSDIR_C"
check "attach refuses a namespace pin directory owned by another user" \
	run_rc 1 xc attach "$IF_B" --policy "$T/p1.yaml"
check "the refusal names the owner and says what to do" \
	out_has "belongs to uid 65534, not root: someone else made it, and could plant links in it; check and remove it"
check "no program was left on the interface" test "$(prog_on "$NS_C" "$IF_B")" = 0
rmdir "$NSDIR_C"

VICTIM=/tmp/xst-victim-$E2E_ID
mkdir -p "$VICTIM" "$NSDIR_C" && chmod 0700 "$NSDIR_C" && echo keep >"$VICTIM/precious" &&
	ln -s "$VICTIM" "$PIN_C"
check "detach refuses an interface pin directory that is a symbolic link" \
	run_rc 1 xc detach "$IF_B"
check "the refusal says it is a planted link" out_has "is a symbolic link, not the directory xdp-steer made"
check "the link's target is untouched" test -e "$VICTIM/precious"
check "attach refuses it too, and leaves the target alone" \
	bash -c "! nsenter --net=/run/netns/$NS_C $XDP_STEER -q attach $IF_B --policy $T/p1.yaml 2>/dev/null &&
		 test -e $VICTIM/precious && test \$(ls $VICTIM | wc -l) = 1"
rm -f "$PIN_C"; rmdir "$NSDIR_C"

check "the pin root made by another user is refused (in a private bpffs)" \
	unshare -m --propagation private sh -c "
		umount -l /sys/fs/bpf 2>/dev/null; mount -t bpf bpf /sys/fs/bpf &&
		mkdir /sys/fs/bpf/xdp-steer && chown 65534 /sys/fs/bpf/xdp-steer &&
		! nsenter --net=/run/netns/$NS_C $XDP_STEER pin-dir --create $IF_B 2>$T/err &&
		grep -q '/sys/fs/bpf/xdp-steer belongs to uid 65534' $T/err"
# A private mount namespace with nothing above it (its own pid namespace,
# sh its first process): where xdp-steer came from has no other bpffs for
# it to take (kernel/bpffs.c), so it mounts one.
check "bpffs mounted by xdp-steer itself is root's alone, mode 1700 (bpffs keeps the sticky bit; in a private mount namespace)" \
	unshare -m --propagation private --pid --fork --mount-proc sh -c "
		umount -l /sys/fs/bpf 2>/dev/null;
		nsenter --net=/run/netns/$NS_C $XDP_STEER pin-dir --create $IF_B >/dev/null &&
		test \"\$(stat -f -c %T /sys/fs/bpf) \$(stat -c %a /sys/fs/bpf)\" = 'bpf_fs 1700'"

# ---- the lock ---------------------------------------------------------------

xs -q detach "$IF_B"
( xs attach "$IF_B" --policy "$T/p1.yaml" >"$T/a1" 2>&1; echo $? >"$T/a1.rc" ) &
( xs attach "$IF_B" --policy "$T/p2.yaml" >"$T/a2" 2>&1; echo $? >"$T/a2.rc" ) &
wait
check "of two concurrent attaches both succeed, one after the other (the lock)" \
	test "$(sort "$T/a1.rc" "$T/a2.rc" | tr -d '\n')" = "00"
check "the second upgraded the first's in place" \
	bash -c "cat $T/a1 $T/a2 | grep -q 'upgraded in place'"
check "the program in the end uses the pinned maps, which are all there, the second's policy applied over the first's" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B --json | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not (d[\"uses_pins\"] and d[\"policy\"][\"generation\"] == 2))'"
flock "$LOCK_B" sleep 1 &
sleep 0.2
check "detach waits while another holder has the lock, then detaches" \
	run_rc 0 xs detach "$IF_B"
check "it said it was waiting" out_has "waiting for another xdp-steer working on this interface"
wait
# A holder that never lets go (a stopped apply) must not hang every
# reader behind it (a cron'd stats --prometheus would pile up).
flock "$LOCK_B" sleep 4 &
HOLDER=$!
sleep 0.2
check "a reader gives up behind a holder after XDP_STEER_LOCK_TIMEOUT, exit 1" \
	run_rc 1 env XDP_STEER_LOCK_TIMEOUT=1 nsenter --net=/run/netns/"$NS_B" "$XDP_STEER" status "$IF_B"
check "naming the holder's pid and command, and what to do" \
	out_has "pid $HOLDER (flock) has held $LOCK_B for 1 s and more; a stopped or hung xdp-steer? ('kill -CONT $HOLDER' resumes a stopped one), then retry"
check "a writer gives up too" \
	run_rc 1 env XDP_STEER_LOCK_TIMEOUT=1 nsenter --net=/run/netns/"$NS_B" "$XDP_STEER" detach "$IF_B"
wait

# ---- interfaces and namespaces that are gone ------------------------------------

xc -q attach "$IF_B" --policy "$T/p1.yaml" || fail "attach in C"
check "stats --prometheus of a steered interface says steering 1" \
	run_rc 0 xc stats "$IF_B" --prometheus
check "(the gauge)" out_has "xdp_steer_steering{interface=\"$IF_B\"} 1"
ip -n "$NS_C" link del "$IF_B"
check "stats --prometheus of a deleted interface still reads its pins" \
	run_rc 0 xc stats "$IF_B" --prometheus
check "and says steering 0: its counters stand still, the link is not idle" \
	out_has "xdp_steer_steering{interface=\"$IF_B\"} 0"
check "stats --json says so too" run_rc 0 xc stats "$IF_B" --json
check "(steering false)" out_has '"steering": false'
check "status of a deleted interface still reads its pins" run_rc 0 xc status "$IF_B"
check "and warns that the interface is gone, with the cure" \
	out_has "no interface $IF_B in this network namespace (it was deleted): nothing steers; 'xdp-steer detach $IF_B' removes the pins"
check "detach of the deleted interface removes its pins" run_rc 0 xc detach "$IF_B"
check "it says so" out_has "$IF_B: the interface is gone; its pins were removed"
check "the pins are gone" test ! -e "$PIN_C"

ip link add "$IF_B" netns "$NS_C" type veth peer name "$IF_D" netns "$NS_D" &&
	ip -n "$NS_C" link set "$IF_B" up && ip -n "$NS_D" link set "$IF_D" up
xc -q attach "$IF_B" --policy "$T/p1.yaml" || fail "attach in C again"
PROG_C=$(prog_on "$NS_C" "$IF_B")
ip netns del "$NS_C"; ip netns del "$NS_D"
# The namespace and its veth go away asynchronously; so does the program.
for i in $(seq 50); do bpftool prog show id "$PROG_C" >/dev/null 2>&1 || break; sleep 0.1; done
check "status lists the pins of the namespace that is gone" run_rc 0 xs status
check "with the cure" out_has "${PIN_C%/*}: pins of a network namespace that is gone; 'xdp-steer detach --stale' removes them"
check "detach --stale removes them" run_rc 0 xs detach --stale
check "it names what it removed" out_has "$PIN_C: removed (its interface or namespace is gone)"
check "the namespace's pin directory is gone" test ! -e "${PIN_C%/*}"
make_c || fail "making namespace C again"

# ---- names, privileges, values ----------------------------------------------------

check "an interface argument '..' is refused as a usage error, exit 2" run_rc 2 xs status ..
check "as not an interface name" out_has "'..' is not an interface name"
check "an interface argument with a slash is refused, exit 2" run_rc 2 xs detach ../../xdp
check "naming the slash" out_has "is not an interface name (it has a '/')"
check "status of an interface that is not there, nor its pins, exits 1" \
	run_rc 1 xs status "xsnone$E2E_ID"
check "saying there is no such interface, not that nothing is attached" \
	out_has "xsnone$E2E_ID: no such interface in this network namespace, and no pins of one by that name"
check "stats says the same" run_rc 1 xs stats "xsnone$E2E_ID" --totals
check "(stats)" out_has "no such interface in this network namespace, and no pins"
check "stats --interval nan is a usage error, not a busy loop" run_rc 2 xs stats "$IF_B" --interval nan
check "saying the range" out_has "--interval takes seconds from 0.1 to 3600 in decimal (like 2 or 0.5), not 'nan'"
check "stats --count past what a long holds is a usage error, not a silent cap" \
	run_rc 2 xs stats "$IF_B" --count 99999999999999999999
check "naming the value" out_has "--count takes a whole number from 1 in decimal (like 10), not '99999999999999999999'"
xs -q attach "$IF_B" --policy "$T/p1.yaml" || fail "attach in B"
check "status run unprivileged fails, exit 1" \
	run_rc 1 in_b setpriv --reuid=65534 --regid=65534 --clear-groups "$XDP_STEER" status "$IF_B"
check "and says it needs root, not that nothing is attached" \
	bash -c "grep -q 'needs root' $T/out && ! grep -q 'not attached' $T/out"
check "stats run unprivileged says it needs root too" \
	bash -c "nsenter --net=/run/netns/$NS_B setpriv --reuid=65534 --regid=65534 --clear-groups $XDP_STEER stats $IF_B --json 2>&1 | grep -q 'needs root'"

QNAME='q"b\x'
if ip -n "$NS_B" link add "$QNAME" type veth peer name qpeer$E2E_ID 2>/dev/null; then
	ip -n "$NS_B" link set "$QNAME" up
	check "attach to an interface named with a quote and a backslash" \
		run_rc 0 xs attach "$QNAME" --policy "$T/p1.yaml"
	check "status --json escapes its name: valid JSON, the name intact" \
		bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status '$QNAME' --json |
			 python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)[\"ifname\"] != sys.argv[1])' '$QNAME'"
	check "stats --json too" json_ok xs stats "$QNAME" --json
	xs -q detach "$QNAME"
	ip -n "$NS_B" link del "$QNAME"
else
	skip "an interface name that needs JSON escaping" "ip link refused the name"
fi
if ip -n "$NS_B" link add br$E2E_ID type bridge 2>/dev/null; then
	check "native mode on a bridge (no native XDP) fails, exit 1" \
		run_rc 1 xs attach br$E2E_ID --policy "$T/p1.yaml"
	check "and suggests skb mode, the one cure for that" out_has "has no native XDP: try --mode skb"
	ip -n "$NS_B" link del br$E2E_ID
else
	skip "native mode on a device without it" "no bridge device here"
fi

xs -q detach "$IF_B"
if in_b ip link set dev "$IF_B" xdpgeneric obj "$E2E_ROOT/tests/bench/baseline.bpf.o" sec xdp 2>/dev/null; then
	check "attach over another tool's generic-mode program fails, exit 1" \
		run_rc 1 xs attach "$IF_B" --policy "$T/p1.yaml"
	check "naming the other program as the cause" out_has "another XDP program is on $IF_B"
	check "not suggesting skb mode" out_lacks "--mode skb"
	in_b ip link set dev "$IF_B" xdpgeneric off
else
	skip "attach over a generic-mode program" "ip link could not load tests/bench/baseline.bpf.o"
fi

# ---- failures and kills at each step ----------------------------------------------

fp() { XDP_STEER_FAILPOINT=$1 in_b "$XDP_STEER" "${@:2}"; }
check "attach failing after the program is on the interface exits 1" \
	run_rc 1 fp attach-apply attach "$IF_B" --policy "$T/p1.yaml"
check "and says it detached again" out_has "detached again"
check "no program is left on the interface" test "$(prog_on "$NS_B" "$IF_B")" = 0
check "and no pins" test ! -e "$PIN_B"
check "attach failing while it writes the policy exits 1" \
	run_rc 1 fp write attach "$IF_B" --policy "$T/p1.yaml"
check "says it detached again, and not that a previous policy is in force" \
	bash -c "grep -q 'detached again' $T/out && ! grep -q 'previous policy' $T/out"
check "nothing is left on the interface" test "$(prog_on "$NS_B" "$IF_B")" = 0

# From policy 0 (CPU 0) to policy 2 (CPU 1): the apply adds CPU 1's cpumap
# entry and retires CPU 0's.
xs -q attach "$IF_B" --policy "$T/p0.yaml" || fail "attach"
S0=$(state "$PIN_B")
for step in write add-cpumap warm-up flip; do
	check "apply failing at '$step' exits 1" run_rc 1 fp "$step" apply "$IF_B" --policy "$T/p2.yaml"
	check "apply failing at '$step' says the previous policy is in force" \
		out_has "the previous policy is still in force"
	check "after a failure at '$step' the maps hold the previous policy, cpumap included" \
		test "$(state "$PIN_B")" = "$S0"
	check "after a failure at '$step' the drain window is shut (no frame stamped for nothing)" \
		bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B --json | grep -q '\"drain_window_open\": false'"
done
check "apply with a failed wait for readers succeeds: the policy is in force" \
	run_rc 0 fp wait apply "$IF_B" --policy "$T/p2.yaml"
check "and warns that retiring waits for the next apply" \
	out_has "CPUs that left keep their cpumap entries until the next apply"
S2=$(state "$PIN_B")
check "policy 2 is active, and CPU 0 still has its cpumap entry" \
	test "$(field table "$S2") $(field cpumap "$S2")" = "1x512 0:2048:prog,1:2048:prog"
check "status --json shows retire_pending" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B --json | grep -q '\"retire_pending\": true'"
check "the next apply refuses while waiting still fails, and changes nothing" \
	bash -c "XDP_STEER_FAILPOINT=wait nsenter --net=/run/netns/$NS_B $XDP_STEER apply $IF_B --policy $T/p0.yaml 2>&1 |
		 grep -q 'waiting for its readers failed' && test \"\$(python3 $E2E_ROOT/tests/e2e/maps_state.py $PIN_B)\" = '$S2'"
check "the next apply finishes what the earlier one left" run_rc 0 xs apply "$IF_B" --policy "$T/p2.yaml"
check "it says so" out_has "finished what an earlier, interrupted apply left"
check "CPU 0's cpumap entry is retired and retire_pending cleared" \
	bash -c "test \"\$(python3 $E2E_ROOT/tests/e2e/maps_state.py $PIN_B | tr ' ' '\n' | sed -n 's/^cpumap=//p')\" = 1:2048:prog &&
		 nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B --json | grep -q '\"retire_pending\": false'"
check "apply killed right after its flip (before the wait) exits like a kill" \
	run_rc 137 fp wait:exit apply "$IF_B" --policy "$T/p0.yaml"
S=$(state "$PIN_B")
check "the killed apply's policy is in force, complete; CPU 1's entry not yet retired" \
	test "$(field table "$S") $(field cpumap "$S")" = "0x512 0:2048:prog,1:2048:prog"
check "status names the kill's leftover entry, which nothing drains from" \
	run_rc 0 xs status "$IF_B"
check "in the drain line, and as a warning with the cure" \
	bash -c "grep -qF 'which no bucket drains from, left until the next apply: cpu 1 (bank 0)' $T/out &&
		 grep -qF '1 cpumap entry that the policy in force does not need and no bucket drains from' $T/out &&
		 grep -qF 'apply the policy again to remove them' $T/out"
check "a repeated apply of it finishes the kill's leftovers" run_rc 0 xs apply "$IF_B" --policy "$T/p0.yaml"
check "saying so, with the policy unchanged" \
	bash -c "grep -q 'policy unchanged' $T/out && grep -q 'finished what an earlier' $T/out"
check "only CPU 0 is left in the cpumap" test "$(field cpumap "$(state "$PIN_B")")" = "0:2048:prog"
check "and status no longer warns of it" run_rc 0 xs status "$IF_B"
check "(no left-over entry)" out_lacks "cpumap entr"

# ---- rules at the limit: one slot full while the other is written ----------
# A symmetric policy stores each rule and its mirror. One of 16384 exact
# rules once filled flow_rules' room for both slots, attached, and then
# made every apply of another such policy fail halfway (E2BIG).
rules_policy() {	# rules_policy FILE NEXACT NPREFIX SEED: symmetric
	python3 - "$@" <<'EOF_PY'
import sys
out, nexact, nprefix, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(out, "w") as f:
    f.write("version: 1\ncpus: [0-1]\nhash: {symmetric: true, seed: %d}\nrules:\n" % seed)
    for i in range(nexact):
        f.write(" - {match: {proto: 6, src: 10.%d.%d.1, dst_port: %d}, cpu: %d}\n"
                % (i // 256, i % 256, 1 + seed, (i + seed) % 2))
    for i in range(nprefix):
        f.write(" - {match: {src: 172.%d.%d.0/24}, cpu: %d}\n"
                % (16 + i // 256, i % 256, (i + seed) % 2))
EOF_PY
}
rules_policy "$T/full1.yaml" 8192 8192 1
rules_policy "$T/full2.yaml" 8192 8192 2
rules_policy "$T/over.yaml" 8193 0 3
S=$(state "$PIN_B")
check "check refuses a symmetric policy one exact-field rule over the limit" \
	run_rc 1 xs check --policy "$T/over.yaml"
check "naming the rule's line and column, the limit and why" \
	out_has "over.yaml:8197:4: rule 8193 is one exact-field rule too many: at most 8192 fit under hash.symmetric"
check "apply refuses it too" run_rc 1 xs apply "$IF_B" --policy "$T/over.yaml"
check "and changes nothing" test "$(state "$PIN_B")" = "$S"
check "a symmetric policy filling both rule maps' share of a slot applies" \
	run_rc 0 xs apply "$IF_B" --policy "$T/full1.yaml"
check "another such policy applies over it (both slots full at once)" \
	run_rc 0 xs apply "$IF_B" --policy "$T/full2.yaml"
check "which of a reply flow names the rule its mirror matched" \
	run_rc 0 xs which "$IF_B" tcp 192.0.2.1:3 10.0.0.1:999
check "(the mirror's fields, and that they may be the mirror's)" \
	out_has "by exact-field rule 1 (proto, dst, src_port; the rule's fields or, under hash.symmetric, its mirror's)"
check "status counts 16384 entries of each kind" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B | grep -q 'rules: 16384 exact-field, 16384 prefix'"
check "a small policy replaces it, the full slot emptied" run_rc 0 xs apply "$IF_B" --policy "$T/p0.yaml"

# ---- a program attached whose pins are gone ---------------------------------
# Each command once sent to the next: status "not attached", attach
# "detach, then attach" (not an upgrade), apply "no maps, attach first".
PROG=$(prog_on "$NS_B" "$IF_B")
rm "$PIN_B/steer_wdone"
LOST="xdp_steer program $PROG is attached, but its maps are not all pinned in $PIN_B (no steer_wdone)"
CURE="'xdp-steer detach $IF_B', then attach it again"
for cmd in status stats apply which; do
	case $cmd in
	apply) args=("$T/p1.yaml") ;;
	which) args=(udp 10.0.0.1:1 10.0.0.2:2) ;;
	stats) args=(--totals) ;;
	*) args=() ;;
	esac
	check "with a pin removed, $cmd exits 1" run_rc 1 xs "$cmd" "$IF_B" "${args[@]}"
	check "$cmd says the program is attached but its maps are not all pinned, and the way out" \
		bash -c "grep -qF \"$LOST\" $T/out && grep -qF \"$CURE\" $T/out"
done
check "attach refuses" run_rc 1 xs attach "$IF_B" --policy "$T/p1.yaml"
check "saying the same, not 'use apply'" \
	bash -c "grep -qF \"$LOST\" $T/out && grep -qF \"$CURE\" $T/out"
check "the program is still attached" test "$(prog_on "$NS_B" "$IF_B")" = "$PROG"
check "detach takes it off" run_rc 0 xs detach "$IF_B"
check "and attach works again" run_rc 0 xs attach "$IF_B" --policy "$T/p0.yaml"

# A map pinned by another version (a counter added moves every field
# after it): its values are not read as this version's, and an upgrade in
# place refuses it, no way to carry it over being registered
# (loader/kernel/migrate_ways.c), before it changes anything.
rm "$PIN_B/steer_window"
bpftool map create "$PIN_B/steer_window" type array key 4 value 8 entries 1 name steer_window
OTHER="the map steer_window pinned in $PIN_B is not this version's (its key, value or size differs): pinned by another version of xdp-steer; 'xdp-steer attach $IF_B --policy POLICY' upgrades it in place where its maps can be carried over, else says why; or 'xdp-steer detach $IF_B', then attach it again"
for cmd in status stats apply; do
	case $cmd in
	apply) args=("$T/p1.yaml") ;;
	stats) args=(--totals) ;;
	*) args=() ;;
	esac
	check "with another version's map pinned, $cmd exits 1" run_rc 1 xs "$cmd" "$IF_B" "${args[@]}"
	check "$cmd names the map and the way out" out_has "$OTHER"
done
PROG=$(prog_on "$NS_B" "$IF_B")
pins0=$(ls "$PIN_B")
check "with another version's map pinned, attach (an upgrade in place) exits 1" \
	run_rc 1 xs attach "$IF_B" --policy "$T/p1.yaml"
check "... naming the map and both layouts" \
	out_has "cannot upgrade in place: map steer_window's layout changed (pinned: array, key 4 B, value 8 B, 1 entries, flags 0; this version's: array, key 4 B, value "
check "... why it cannot carry it over, and the way out" \
	out_has "no way to carry it over is registered (loader/kernel/migrate_ways.c); nothing was changed; 'xdp-steer detach', then attach again, to upgrade"
check "... the program left in place" test "$(prog_on "$NS_B" "$IF_B")" = "$PROG"
check "... and every pin as it was, none staged" test "$(ls "$PIN_B")" = "$pins0"
check "detach takes it all off" run_rc 0 xs detach "$IF_B"
check "and attach works again" run_rc 0 xs attach "$IF_B" --policy "$T/p0.yaml"
check "detach works after all this" run_rc 0 xs detach "$IF_B"

e2e_done
