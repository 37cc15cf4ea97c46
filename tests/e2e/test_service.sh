#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: the systemd unit's commands, as systemd would run them, on a
# veth in a namespace. `make install DESTDIR PREFIX=/usr` stages the unit;
# its ExecStart, ExecReload and ExecStop are read from the installed file,
# the instance (%i, %I) set to the interface, and each command run with
# systemd's empty environment, no stdin and / as its directory, through
# nsenter into the namespace. The staging root stands for /: the unit's
# absolute paths (/usr/sbin/xdp-steer, /etc/xdp-steer/IFACE.yaml) are
# taken inside it. Start attaches with the policy; reload with a good
# policy puts it in force (status --json); reload with a broken one fails
# with file:line:col on stderr (the journal) and the old policy stays;
# stop detaches and removes the pins. The balancer's unit,
# xdp-steer-balance@IFACE, runs its ExecStart the same way beside it: it
# waits while the policy says balance: off, starts its rounds when a
# reload brings one, shows in status, and SIGTERM stops it with exit 0.
set -u
. "$(dirname "$0")/lib.sh"

e2e_setup
T=$E2E_TMP
D=$T/stage

stage() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$E2E_ROOT" \
		--no-print-directory install DESTDIR="$D" PREFIX=/usr \
		>"$T/make.log" 2>&1 || { tail -20 "$T/make.log"; return 1; }
}
check "make install DESTDIR=... PREFIX=/usr stages the unit" stage
UNIT=$D/usr/lib/systemd/system/xdp-steer@.service
[ -f "$UNIT" ] || { fail "the unit is staged at $UNIT"; e2e_done; }

# unit_command KEY: the one KEY= command line of the unit, its specifiers
# replaced for the instance $IF_B (whose escaped and plain forms are the
# same), in $T/cmd, one word a line, absolute paths inside the staging
# root. What systemd would do beyond this (quotes, prefixes such as '-',
# other specifiers) the unit does not use: refused here, so a unit that
# starts using them fails this test rather than passing untried.
unit_command() {
	local key=$1 lines line word
	lines=$(grep -c "^$key=" "$UNIT")
	[ "$lines" -eq 1 ] || { echo "$key: $lines lines, expected 1"; return 1; }
	line=$(sed -n "s/^$key=//p" "$UNIT")
	case $line in
	[-@:+!]*) echo "$key: prefix '${line:0:1}' not handled here"; return 1 ;;
	*[\"\'\\\$]*) echo "$key: quotes, escapes or variables not handled here: $line"; return 1 ;;
	esac
	line=${line//%i/$IF_B}
	line=${line//%I/$IF_B}
	line=${line//%n/xdp-steer@$IF_B.service}
	case $line in
	*%*) echo "$key: a specifier not handled here: $line"; return 1 ;;
	esac
	: >"$T/cmd"
	for word in $line; do
		[ "${word:0:1}" = / ] && word=$D$word
		echo "$word" >>"$T/cmd"
	done
}

# run_unit KEY: runs the unit's KEY command as systemd would, in $NS_B;
# stdout in $T/out, stderr in $T/err, exit status in $RC.
run_unit() {
	local -a argv
	RC=99
	unit_command "$1" >"$T/err" || return 1
	mapfile -t argv <"$T/cmd"
	(cd / && in_b env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "${argv[@]}" \
		</dev/null >"$T/out" 2>"$T/err")
	RC=$?
}
rc_is() {
	[ "$RC" -eq "$1" ] && return 0
	echo "exit $RC, expected $1"
	cat "$T/err" "$T/out"
	return 1
}
rc_failed() {
	[ "$RC" -ne 0 ] && [ "$RC" -ne 99 ] && return 0
	echo "exit $RC, expected a failure"
	return 1
}
# err_has PATTERN: the command's stderr has a line that matches.
err_has() {
	grep -q -- "$1" "$T/err" && return 0
	echo "stderr:"; cat "$T/err"
	return 1
}

# status_json PYTHON-EXPR: the expression over `status --json` (d) holds.
status_json() {
	local doc
	doc=$(in_b "$XDP_STEER" status "$IF_B" --json) || return 1
	json_holds "$doc" "$1"
}
buckets='{w["cpu"]: w["buckets"] for w in d["policy"]["workers"]}'

POLICY=$D/etc/xdp-steer/$IF_B.yaml
mkdir -p "$(dirname "$POLICY")"
cat >"$POLICY" <<'EOF'
version: 1
cpus: [0-1]
hash: {seed: 1}
EOF

# ---- start ----------------------------------------------------------------

run_unit ExecStart
check "start (ExecStart: attach IFACE --policy /etc/xdp-steer/IFACE.yaml) exits 0" rc_is 0
check "start attached xdp-steer in native mode with the policy: generation 1, both CPUs with 256 buckets" \
	status_json "d['attached'] and d['mode'] == 'native' and d['policy']['generation'] == 1 and $buckets == {0: 256, 1: 256} and d['policy']['queue_size'] == 2048"

# ---- reload with a good policy ----------------------------------------------

cat >"$POLICY" <<'EOF'
version: 1
cpus: [0, {cpu: 1, weight: 3}]
queue_size: 512
hash: {seed: 1}
balance: off
EOF
run_unit ExecReload
check "reload (ExecReload: attach IFACE --policy /etc/xdp-steer/IFACE.yaml, an upgrade in place) with an edited policy exits 0" rc_is 0
check "  and says nothing on stderr (the unit spells --policy, so no note of a deprecated spelling)" \
	test ! -s "$T/err"
check "reload put the edited policy in force: generation 2, buckets 128/384, queue 512" \
	status_json "d['policy']['generation'] == 2 and $buckets == {0: 128, 1: 384} and d['policy']['queue_size'] == 512"

# ---- reload with a broken policy ----------------------------------------------

cp "$POLICY" "$T/good.yaml"
cat >"$POLICY" <<'EOF'
version: 1
cpus: [0, {cpu: 1, weight: 3}]
queue_size: 99999
hash: {seed: 1}
EOF
run_unit ExecReload
check "reload with a broken policy fails (non-zero exit, so systemctl reload fails)" rc_failed
check "  with 'file:line:col: message' for the policy on stderr (the journal)" \
	err_has "^$POLICY:3:[0-9][0-9]*: .*queue_size"
check "  and the running policy stays in force: generation 2, buckets 128/384, queue 512" \
	status_json "d['policy']['generation'] == 2 and $buckets == {0: 128, 1: 384} and d['policy']['queue_size'] == 512"
cp "$T/good.yaml" "$POLICY"
run_unit ExecReload
check "reload after the fix exits 0 and changes nothing (the same policy)" rc_is 0
check "  generation 2 still" status_json "d['policy']['generation'] == 2"

# ---- the balancer's unit --------------------------------------------------------

BUNIT=$D/usr/lib/systemd/system/xdp-steer-balance@.service
BAL_PID=
start_balancer_unit() {
	local -a argv
	UNIT=$BUNIT unit_command ExecStart || return 1
	mapfile -t argv <"$T/cmd"
	(cd / && exec nsenter --net=/run/netns/"$NS_B" \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "${argv[@]}" \
		</dev/null >"$T/bal.out" 2>"$T/bal.err") &
	BAL_PID=$!
}
check "the balancer's unit is staged at $BUNIT" test -f "$BUNIT"
start_balancer_unit
sleep 1.5
check "its ExecStart (balance IFACE) runs, and says the policy has balance: off" \
	grep -q "round 1: off: the policy in force says balance: off" "$T/bal.out"
cat >"$POLICY" <<'EOF'
version: 1
cpus: [0, {cpu: 1, weight: 3}]
queue_size: 512
hash: {seed: 1}
balance: {interval: 200}
EOF
run_unit ExecReload
check "reload with balance: on again exits 0" rc_is 0
sleep 1
check "  and the balancer starts its rounds (idle: no traffic)" \
	grep -q "round [0-9]*: idle" "$T/bal.out"
# Rounds every 200 ms, all idle: the journal gets one line, not one a
# round (it says the same again only after 10 minutes).
check "  saying idle once, not every round" \
	test "$(grep -c "round [0-9]*: idle" "$T/bal.out")" -eq 1
check "  while its rounds go on (status counts more than 2)" \
	status_json "d['policy']['balance']['rounds'] > 2"
check "  and status shows it running" \
	status_json "d['policy']['balance']['enabled'] and d['policy']['balance']['running']"
kill -TERM "$BAL_PID"
wait "$BAL_PID"
bal_rc=$?
check "SIGTERM stops the balancer with exit 0" test "$bal_rc" -eq 0
# A wait for the interface's lock is a diagnostic on stderr, not an
# error: the reload above (an upgrade in place, which loads and verifies
# the program under the lock) may hold it when a round begins.
check "  and it wrote nothing on stderr but a wait for the interface's lock$(grep -v "waiting for another xdp-steer" "$T/bal.err" | head -c 300 | sed 's/^/: /')" \
	bash -c '! grep -qv "waiting for another xdp-steer working on this interface" "$1"' _ "$T/bal.err"
# Detached under it (by hand, the unit still active): exit 3, which the
# unit does not restart, where Restart=on-failure would every 5 s for ever.
check "the balancer's unit does not restart it for exit 3 (nothing to balance)" \
	grep -qx "RestartPreventExitStatus=3" "$BUNIT"
start_balancer_unit
sleep 1
in_b "$XDP_STEER" -q detach "$IF_B"
wait "$BAL_PID"
bal_rc=$?
check "a balancer whose interface is detached under it exits 3" test "$bal_rc" -eq 3
check "  saying why" grep -q "xdp-steer was detached; the balancer stops" "$T/bal.err"
start_balancer_unit
wait "$BAL_PID"
bal_rc=$?
check "started with nothing attached, it exits 3 at once" test "$bal_rc" -eq 3
run_unit ExecStart
check "start again after that detach exits 0" rc_is 0

# Nothing steering with the pins any more, which outlive both: the
# interface deleted, or the program taken off by another tool. The
# balancer says so and exits 3 at its next round (it went on with idle
# rounds for ever); detach IFACE then removes the pins.
G=xsgone0
G_PIN=$(dirname "$PIN_B")/$G
cat >"$T/gone.yaml" <<'EOF'
version: 1
cpus: [0, 1]
balance: {interval: 200}
EOF
# gone_balancer HOW: attaches $G, runs its balancer, takes the program
# away by HOW (a command run in $NS_B), and waits up to 10 s for the
# balancer's exit; its status in $GONE_RC, stderr in $T/gone.err.
gone_balancer() {
	local pid i
	GONE_RC=99
	in_b ip link add "$G" type veth peer name "${G}p" &&
	in_b ip link set "$G" up && in_b ip link set "${G}p" up &&
	in_b "$XDP_STEER" -q attach "$G" --policy "$T/gone.yaml" || return 1
	in_b "$XDP_STEER" balance "$G" >/dev/null 2>"$T/gone.err" &
	pid=$!
	sleep 0.6
	in_b "$@"
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	wait "$pid"
	GONE_RC=$?
}
gone_balancer ip link del "$G"
check "a balancer whose interface is deleted exits 3" test "$GONE_RC" -eq 3
check "  saying the interface is gone and how to remove its pins" \
	grep -q "$G: the interface is gone; the balancer stops ('xdp-steer detach $G' removes its pins)" "$T/gone.err"
gone_detached() { in_b "$XDP_STEER" -q detach "$G" && test ! -e "$G_PIN"; }
check "detach of the gone interface removes its pins" gone_detached
gone_balancer xdp-loader unload -a "$G"
check "a balancer whose program another tool took off exits 3" test "$GONE_RC" -eq 3
check "  saying so" grep -q "$G: xdp_steer is no longer attached to it" "$T/gone.err"
in_b "$XDP_STEER" -q detach "$G"
check "detach removed the gone interface's lock file too" test ! -e "${LOCK_B%:*}:$G.lock"
in_b ip link del "$G" 2>/dev/null

# ---- stop -------------------------------------------------------------------

run_unit ExecStop
check "stop (ExecStop: detach IFACE --unless-restarting UNIT; no restart here) exits 0" rc_is 0
check "stop removed the pins ($PIN_B)" test ! -e "$PIN_B"
no_xdp() { ! in_b ip link show "$IF_B" | grep -q 'xdp'; }
check "stop left no XDP program on the interface" no_xdp
run_unit ExecStop
check "stop again (the interface already detached) exits 0" rc_is 0

# ---- start without a policy file ----------------------------------------------

rm -f "$POLICY"
run_unit ExecStart
check "start without /etc/xdp-steer/IFACE.yaml fails" rc_failed
check "  naming the missing file on stderr" err_has "$POLICY"
check "  and attaches nothing" no_xdp

e2e_done
