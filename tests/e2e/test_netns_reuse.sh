#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: a network namespace's state is its own, also after the kernel
# gives its inode to the next namespace (issue 30).
#   - A namespace deleted without detach leaves pins; a new namespace that
#     gets its inode, with an interface of the same name, sees none of
#     them: status shows nothing attached, apply fails and says so, and
#     detach --stale run from the initial namespace removes them and their
#     lock file.
#   - Pins an earlier xdp-steer left by inode alone (netns-<inode>/IFACE)
#     are moved to the namespace whose program uses them, and are left
#     alone (not moved, not removed while used) when it is not that
#     namespace's program using them; detach --stale removes them once no
#     program does, and lock files of the earlier names of inodes no
#     namespace has.
#   - detach removes the interface's lock file; the next command makes it
#     again; a command that waited on a removed lock file takes the new
#     one, and waits for its holder.
set -u
. "$(dirname "$0")/lib.sh"

e2e_setup
T=$E2E_TMP
# X: the namespace that dies; R: the one made after it with its inode.
NS_X=xst-$E2E_ID-x
NS_R=xst-$E2E_ID-r
IF_X=xsx$E2E_ID
IF_Y=xsy$E2E_ID
# Tries at making a namespace that gets X's inode. The kernel hands a
# freed inode to the next namespace made, but other tests on the machine
# make namespaces too, and X is freed by a worker some time after 'ip
# netns del'.
REUSE_TRIES=${REUSE_TRIES:-100}
in_x() { nsenter --net=/run/netns/"$NS_X" "$@"; }
in_r() { nsenter --net=/run/netns/"$NS_R" "$@"; }
xr() { in_r "$XDP_STEER" "$@"; }
xs() { in_b "$XDP_STEER" "$@"; }
cleanup_reuse() {
	[ -e /run/netns/"$NS_R" ] && in_r "$XDP_STEER" -q detach "$IF_X" >/dev/null 2>&1
	ip netns del "$NS_X" 2>/dev/null
	ip netns del "$NS_R" 2>/dev/null
	# Only this run's directories: X's, R's and the inode layout's we made.
	local d
	for d in ${X_DIR:-} ${R_DIR:-} ${OLD_DIR:-}; do
		rm -rf "$d"
	done
	rm -f ${X_LOCK:-} ${OLD_LOCK:-}
	e2e_cleanup
}
trap cleanup_reuse EXIT

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
prog_on() {	# prog_on NS IFACE: the XDP program id on it per ip link, or 0
	ip -n "$1" -j -d link show dev "$2" | python3 -c 'import json, sys
print(json.load(sys.stdin)[0].get("xdp", {}).get("prog", {}).get("id", 0))'
}
# veth_in NS: a veth pair $IF_X, $IF_Y inside NS, both up.
veth_in() {
	ip -n "$1" link add "$IF_X" type veth peer name "$IF_Y" &&
	ip -n "$1" link set "$IF_X" up && ip -n "$1" link set "$IF_Y" up
}

printf 'version: 1\ncpus: [0]\nhash: {seed: 0}\n' >"$T/p0.yaml"
printf 'version: 1\ncpus: [0]\nhash: {seed: 1}\n' >"$T/p1.yaml"

# ---- a namespace deleted without detach ---------------------------------------

ip netns add "$NS_X" && veth_in "$NS_X" ||
	{ fail "making namespace X with a veth pair"; exit 1; }
X_ID=$(e2e_netns_id "$NS_X")
X_INO=${X_ID%-*}
X_DIR=/sys/fs/bpf/xdp-steer/netns-$X_ID
X_LOCK=/run/xdp-steer/$X_ID:$IF_X.lock
check "attach in namespace X succeeds" \
	run_rc 0 in_x "$XDP_STEER" attach "$IF_X" --policy "$T/p0.yaml"
check "X's pins are in netns-<inode>-<cookie>/IFACE" test -e "$X_DIR/$IF_X/steer_ctl"
check "X's lock file is <inode>-<cookie>:IFACE.lock" test -e "$X_LOCK"
PROG_X=$(prog_on "$NS_X" "$IF_X")
ip netns del "$NS_X"
# The namespace, its veth and the program go away asynchronously.
for i in $(seq 50); do bpftool prog show id "$PROG_X" >/dev/null 2>&1 || break; sleep 0.1; done
check "deleting X without detach leaves its pins" test -e "$X_DIR/$IF_X/steer_ctl"

reuse_inode() {
	local i ino
	for i in $(seq "$REUSE_TRIES"); do
		ip netns add "$NS_R" || return 1
		ino=$(stat -L -c %i /run/netns/"$NS_R")
		[ "$ino" = "$X_INO" ] && return 0
		ip netns del "$NS_R"
		sleep 0.05
	done
	return 1
}
if reuse_inode; then
	R_ID=$(e2e_netns_id "$NS_R")
	R_DIR=/sys/fs/bpf/xdp-steer/netns-$R_ID
	veth_in "$NS_R" || fail "making a veth pair in R"
	pass "a new namespace R got X's inode $X_INO (cookie ${R_ID#*-}, X's was ${X_ID#*-})"
	check "status IFACE in R says nothing is attached, exit 1" run_rc 1 xr status "$IF_X"
	check "  saying xdp-steer is not attached there" out_has "$IF_X: xdp-steer is not attached here"
	check "status in R does not list X's interface as R's" run_rc 0 xr status
	check "  (no '$IF_X:' line)" bash -c "! grep -q '^$IF_X:' $T/out"
	check "  but lists X's pins as a gone namespace's" \
		out_has "$X_DIR: pins of a network namespace that is gone; 'xdp-steer detach --stale' removes them"
	check "apply in R fails, exit 1" run_rc 1 xr apply "$IF_X" "$T/p1.yaml"
	check "  saying nothing is attached and how to attach" \
		out_has "$IF_X: no xdp-steer maps in $R_DIR/$IF_X (cpu_map missing); run 'xdp-steer attach $IF_X --policy FILE'"
	check "X's maps still hold X's policy, untouched by R's apply" \
		bash -c "python3 $E2E_ROOT/tests/e2e/maps_state.py $X_DIR/$IF_X | grep -q 'gen=1 '"
	check "R has no pins of its own" test ! -e "$R_DIR"
	check "R's failed commands left no lock file of R's" \
		test ! -e "/run/xdp-steer/$R_ID:$IF_X.lock"
	# A directory R made (pin-dir --create, as for xdp-loader), at the
	# same inode as X's, and no program using either: only the cookie
	# tells the living one from the dead one.
	check "pin-dir --create in R makes R's own directory" \
		run_rc 0 xr pin-dir --create "$IF_X"
	check "detach --stale from the initial namespace succeeds" run_rc 0 "$XDP_STEER" detach --stale
	check "  naming X's pins as removed" out_has "$X_DIR/$IF_X: removed (its interface or namespace is gone)"
	check "X's pin directory is gone" test ! -e "$X_DIR"
	check "X's lock file is gone" test ! -e "$X_LOCK"
	check "R's directory at the same inode stays: R lives" test -d "$R_DIR/$IF_X"
	check "attach in R now succeeds, at generation 1 of its own" \
		run_rc 0 xr attach "$IF_X" --policy "$T/p1.yaml"
	check "  in R's own directory" test -e "$R_DIR/$IF_X/steer_ctl"
else
	skip "a new namespace reusing a deleted one's inode" \
		"no namespace got inode $X_INO in $REUSE_TRIES tries"
	rm -rf "$X_DIR"
	rm -f "$X_LOCK"
	ip netns add "$NS_R" && veth_in "$NS_R" || { fail "making namespace R"; exit 1; }
	R_ID=$(e2e_netns_id "$NS_R")
	R_DIR=/sys/fs/bpf/xdp-steer/netns-$R_ID
	xr -q attach "$IF_X" --policy "$T/p1.yaml" || fail "attach in R"
fi
R_INO=${R_ID%-*}
R_LOCK=/run/xdp-steer/$R_ID:$IF_X.lock

# ---- the lock file --------------------------------------------------------------

check "R's interface has its lock file while attached" test -e "$R_LOCK"
check "detach in R succeeds" run_rc 0 xr detach "$IF_X"
check "detach removed the lock file with the pins" test ! -e "$R_LOCK" -a ! -e "$R_DIR/$IF_X"
check "attach again makes them again" run_rc 0 xr attach "$IF_X" --policy "$T/p1.yaml"
check "  (the lock file)" test -e "$R_LOCK"

# The classic race of removing lock files: a command waiting on a file
# that its holder removes must not go on holding a lock nobody else can
# see, while a newcomer holds the new file. Here the holder (flock) removes
# the file, a newcomer (flock) makes and holds a new one for 3 s, then the
# holder lets go: the waiting status must wait for the newcomer too.
removed_under_waiter() {
	local start ms
	# -o: the lock stays with flock itself, not with what it runs.
	flock -o "$R_LOCK" sh -c "sleep 1; rm -f '$R_LOCK'
		flock -o '$R_LOCK' sleep 3 & sleep 0.3" &
	local holder=$!
	sleep 0.3
	start=$(date +%s%N)
	xr status "$IF_X" >"$T/out" 2>&1 || { echo "status failed:"; cat "$T/out"; return 1; }
	ms=$((($(date +%s%N) - start) / 1000000))
	wait "$holder"
	# Without the check it would go on at about 1 s.
	[ "$ms" -ge 2500 ] || { echo "status went on after $ms ms, holding the removed file's lock"; return 1; }
	grep -q "waiting for another xdp-steer" "$T/out" || { echo "it did not say it waited:"; cat "$T/out"; return 1; }
}
check "a command waiting on a lock file its holder removed waits for whoever holds the new one" \
	removed_under_waiter
sleep 0.5	# the newcomer's flock, in the background, lets go

# ---- an earlier xdp-steer's layout: by inode alone ---------------------------------

OLD_DIR=/sys/fs/bpf/xdp-steer/netns-$R_INO
# An earlier xdp-steer's lock file, at an inode no namespace has (one
# at a living inode may be held by an earlier xdp-steer still running).
OLD_LOCK=/run/xdp-steer/1-$IF_X.lock
# What an earlier xdp-steer left: the same pins, under the inode alone.
mkdir -p "$OLD_DIR" && mv "$R_DIR/$IF_X" "$OLD_DIR/$IF_X" ||
	fail "moving R's pins to the inode layout"
rmdir "$R_DIR"
upgraded_status() {	# status --json: the document on stdout, notes on stderr
	in_r "$XDP_STEER" status "$IF_X" --json >"$T/json" 2>"$T/out" &&
	json_holds "$(cat "$T/json")" \
		'd["attached"] and d["uses_pins"] and d["policy"]["generation"] == 1'
}
check "status in R after an upgrade finds R's program on its pins, at generation 1" \
	upgraded_status
check "  saying it moved the pins from the inode's directory" \
	out_has "$IF_X: moved its pins from $OLD_DIR/$IF_X, where an earlier xdp-steer put them by the namespace's inode alone, to $R_DIR/$IF_X"
check "the pins are in R's directory now" test -e "$R_DIR/$IF_X/steer_ctl"
check "and the inode's directory is gone" test ! -e "$OLD_DIR"
check "apply in R works on the moved pins" run_rc 0 xr apply "$IF_X" "$T/p0.yaml"
check "  (generation 2)" out_has "policy applied (generation 2,"

# Another namespace's pins under R's inode: B's program uses them, R's
# does not. They are not R's to take, nor stale while B's program runs.
xs -q attach "$IF_B" --policy "$T/p0.yaml" || fail "attach in B"
mkdir -p "$OLD_DIR" && mv "$PIN_B" "$OLD_DIR/$IF_X" || fail "moving B's pins under R's inode"
check "a command in R with an interface of that name succeeds" run_rc 0 xr status "$IF_X"
check "  and does not take pins R's program does not use" test -e "$OLD_DIR/$IF_X/steer_ctl"
check "status in R lists them as an earlier xdp-steer's" run_rc 0 xr status
check "  (the line)" out_has "$OLD_DIR: pins an earlier xdp-steer named by a namespace's inode alone"
check "detach --stale keeps them while B's program uses them" run_rc 0 "$XDP_STEER" detach --stale
check "  (still there)" test -e "$OLD_DIR/$IF_X/steer_ctl"
check "  and says nothing of them" out_lacks "$OLD_DIR"
xs -q detach "$IF_B"
touch "$OLD_LOCK"
check "once no program uses them, detach --stale removes them" run_rc 0 "$XDP_STEER" detach --stale
check "  naming them" out_has "$OLD_DIR/$IF_X: removed (its interface or namespace is gone)"
check "  (gone)" test ! -e "$OLD_DIR"
check "  and an earlier xdp-steer's lock file of an inode no namespace has" test ! -e "$OLD_LOCK"
check "R's own pins are untouched" test -e "$R_DIR/$IF_X/steer_ctl"
check "R's own lock file too" test -e "$R_LOCK"

e2e_done
