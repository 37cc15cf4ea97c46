#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The policy's worker_sched on the workers' cpumap kthreads, read from
# outside: the kthreads are found in /proc by the name the kernel gives
# them, "cpumap/<cpu>/map:<id>", with the map ids from bpftool, and only
# kernel threads (parent kthreadd) count; their class and priority come
# from chrt, their nice from /proc/PID/stat. Every online CPU works.
#  0. attach with the key left out: every worker's kthread is SCHED_OTHER
#     at nice 10, the default;
#  1. attach with {policy: fifo, priority: 7}: every worker's kthread is
#     SCHED_FIFO 7, and a process that names itself like one of them is
#     left as it was;
#  2. a queue_size change (new entries in the other cpumap bank, new
#     kthreads): those are SCHED_FIFO 7 too;
#  3. rr: SCHED_RR 1; keep: they stay so; {policy: other, nice: 15}:
#     SCHED_OTHER at nice 15; other: SCHED_OTHER at nice 0;
#  4. an apply that changes only worker_sched says how many kthreads it
#     changed, not "policy unchanged"; status --json shows it; keep with a
#     new queue size: the new bank's kthreads keep the class of those they
#     replace;
#  5. a priority out of range is refused with its place in the file, and
#     nothing changes.
. "$(dirname "$0")/lib.sh"

mapfile -t CPUS < <(tr ',' '\n' </sys/devices/system/cpu/online |
	awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }')
LIST=$(IFS=,; echo "${CPUS[*]}")
if ! command -v chrt >/dev/null; then
	skip "all" "chrt (util-linux) missing"
	exit 0
fi

e2e_setup
DECOY=
sched_cleanup() {
	[ -n "$DECOY" ] && kill "$DECOY" 2>/dev/null
	in_b "$XDP_STEER" -q detach "$IF_B" >/dev/null 2>&1
	e2e_cleanup
}
trap sched_cleanup EXIT

policy() {	# policy FILE QUEUE_SIZE [worker_sched line]
	printf 'version: 1\ncpus: [%s]\nqueue_size: %s\n%s\n' "$LIST" "$2" "${3:-}" >"$1"
}

map_id() {
	bpftool map show pinned "$PIN_B/$1" | awk -F: 'NR == 1 { print $1 }'
}

# kthread_of CPU MAP: the pid of the kernel thread of that cpumap entry.
kthread_of() {
	local want="cpumap/$1/map:$2" p
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = "$want" ] || continue
		[ "$(awk '{ print $4 }' "$p/stat" 2>/dev/null)" = 2 ] || continue
		echo "${p#/proc/}"
		return 0
	done
	return 1
}

# sched_of PID: "SCHED_FIFO 7", as chrt says; "SCHED_OTHER nice 10" for
# SCHED_OTHER, its nice (field 19 of /proc/PID/stat) instead of chrt's
# priority, always 0 there.
sched_of() {
	local got
	got=$(chrt -p "$1" | awk -F': ' '/policy/ { p = $2 } /priority/ { print p, $2 }' |
		sed 's/ *$//')
	case $got in
	"SCHED_OTHER "*)
		echo "SCHED_OTHER nice $(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $17 }')" ;;
	*) echo "$got" ;;
	esac
}

# all_are MAP WANT: every CPU's kthread of MAP has WANT.
all_are() {
	local id cpu pid got ok=0
	id=$(map_id "$1") || return 1
	for cpu in "${CPUS[@]}"; do
		if ! pid=$(kthread_of "$cpu" "$id"); then
			echo "CPU $cpu: no kthread cpumap/$cpu/map:$id"
			ok=1
			continue
		fi
		got=$(sched_of "$pid")
		[ "$got" = "$2" ] || { echo "CPU $cpu: pid $pid is '$got', not '$2'"; ok=1; }
	done
	return $ok
}

P=$E2E_TMP/p.yaml
policy "$P" 2048 ""
if ! in_b "$XDP_STEER" -q attach "$IF_B" --policy "$P"; then
	fail "xdp-steer attach without worker_sched"
	e2e_done
fi
check "worker_sched left out: every worker's kthread is SCHED_OTHER at nice 10" \
	all_are cpu_map "SCHED_OTHER nice 10"
check "status --json has worker_sched other at nice 10" \
	json_holds "$(in_b "$XDP_STEER" status "$IF_B" --json)" \
	"d['policy']['worker_sched'] == {'policy': 'other', 'priority': 0, 'nice': 10}"
policy "$P" 2048 "worker_sched: {policy: fifo, priority: 7}"
# A process named like the kthread of the first CPU's entry.
python3 -c 'import ctypes, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
time.sleep(600)' "cpumap/${CPUS[0]}/map:$(map_id cpu_map)" &
DECOY=$!
sleep 0.2
in_b "$XDP_STEER" -q apply "$IF_B" --policy "$P" || fail "apply again"
check "attach: every worker's kthread is SCHED_FIFO 7" all_are cpu_map "SCHED_FIFO 7"
check "a process named like a cpumap kthread is left alone" \
	test "$(sched_of "$DECOY")" = "SCHED_OTHER nice 0"

# step NAME QUEUE_SIZE LINE WANT: apply that policy; every worker's
# kthread (of the bank that queue size lives in) then has WANT.
step() {
	policy "$P" "$2" "$3"
	in_b "$XDP_STEER" -q apply "$IF_B" --policy "$P" || fail "apply: $1"
	check "$1" all_are cpu_map_b "$4"
}
step "a queue_size change: the other bank's new kthreads are SCHED_FIFO 7" \
	1024 "worker_sched: {policy: fifo, priority: 7}" "SCHED_FIFO 7"
step "rr: SCHED_RR 1" 1024 "worker_sched: rr" "SCHED_RR 1"
step "keep: the kthreads stay as they are" 1024 "worker_sched: keep" "SCHED_RR 1"
step "{policy: other, nice: 15}: SCHED_OTHER at nice 15" 1024 \
	"worker_sched: {policy: other, nice: 15}" "SCHED_OTHER nice 15"
step "other: SCHED_OTHER at nice 0" 1024 "worker_sched: other" "SCHED_OTHER nice 0"

# An apply that changes only worker_sched says what it changed.
policy "$P" 1024 "worker_sched: {policy: fifo, priority: 3}"
out=$(in_b "$XDP_STEER" apply "$IF_B" --policy "$P" 2>&1)
check "an apply changing only worker_sched says so, not 'policy unchanged' ($out)" \
	bash -c "grep -q 'worker_sched set on ${#CPUS[@]} cpumap kthread' <<<'$out' && ! grep -q 'policy unchanged' <<<'$out'"
check "status --json has worker_sched fifo 3" \
	json_holds "$(in_b "$XDP_STEER" status "$IF_B" --json)" \
	"d['policy']['worker_sched'] == {'policy': 'fifo', 'priority': 3, 'nice': 0}"
out=$(in_b "$XDP_STEER" apply "$IF_B" --policy "$P" 2>&1)
check "the same again is 'policy unchanged' ($out)" \
	bash -c "grep -q 'policy unchanged' <<<'$out'"
# keep, and a new queue size: new kthreads in the other bank take the
# class of those they replace.
policy "$P" 2048 "worker_sched: keep"
in_b "$XDP_STEER" -q apply "$IF_B" --policy "$P" || fail "apply: worker_sched keep, queue_size 2048"
check "keep, a queue_size change: the other bank's new kthreads keep SCHED_FIFO 3" \
	all_are cpu_map "SCHED_FIFO 3"
policy "$P" 1024 "worker_sched: other"
in_b "$XDP_STEER" -q apply "$IF_B" --policy "$P" || fail "apply: back to other"

policy "$P" 1024 "worker_sched: {policy: fifo, priority: 100}"
out=$(in_b "$XDP_STEER" apply "$IF_B" --policy "$P" 2>&1)
rc=$?
check "priority 100 is refused where it stands ($out)" \
	bash -c "[ $rc -ne 0 ] && grep -q 'p.yaml:4:40: worker_sched priority 100 is out of range 1-99' <<<'$out'"
check "and nothing changed" all_are cpu_map_b "SCHED_OTHER nice 0"
e2e_done
