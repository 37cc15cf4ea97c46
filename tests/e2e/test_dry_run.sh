#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: `xdp-steer apply IFACE --policy FILE --dry-run` on a veth
# attached by `xdp-steer attach`, no traffic. Holds on a 2-CPU machine
# (CPUs 0 and 1).
#  1. the policy in force, dry run: "would change nothing", exit 0, and
#     the same as JSON ("changes": false);
#  2. a changed policy (CPU 1's weight 3, queue_size, a rule's CPU, a rule
#     added, worker_sched, local_fastpath): exit 4, and the JSON lists
#     exactly those changes: 128 buckets from CPU 0 to CPU 1, both cpumap
#     entries resized, both kthreads to fifo 7, two settings;
#  3. nothing was touched: every pinned map dumped by bpftool before and
#     after the dry runs is byte for byte the same (the datapath's own
#     counters aside, which nothing here moves anyway), and so are the
#     active slot, generation, retire_pending, the drain window and every
#     cpumap entry's kthread (pid, class) in `status --json`;
#  4. the apply of that policy then does what the dry run said (CPU 1 owns
#     384 buckets, queue 2048, fifo 7), and a dry run of it says nothing
#     would change (seed: random kept);
#  5. a policy with a mistake: the same `file:line:col` message and exit
#     status as apply; an interface with nothing attached, and one that
#     does not exist, fail (exit 1) saying so.
set -u
. "$(dirname "$0")/lib.sh"

e2e_setup
T=$E2E_TMP
PIN=$PIN_B
xs() { in_b "$XDP_STEER" "$@"; }

cat >"$T/p1.yaml" <<'EOF'
version: 1
cpus: [0-1]
queue_size: 1024
rules:
  - {match: {proto: tcp, dst_port: 443}, cpu: 0}
EOF
cat >"$T/p2.yaml" <<'EOF'
version: 1
cpus: [0, {cpu: 1, weight: 3}]
queue_size: 2048
local_fastpath: false
worker_sched: {policy: fifo, priority: 7}
rules:
  - {match: {proto: tcp, dst_port: 443}, cpu: 1}
  - {match: {proto: udp, dst_port: 53}, cpu: 0}
EOF
printf 'version: 1\ncpus: [0-1]\nqueue_sise: 1024\n' >"$T/bad.yaml"

# snapshot DIR: every pinned map of IF_B as bpftool dumps it, each pinned
# link (the tracepoint programs) as bpftool shows it, and what status
# --json says of the slot, the window and the kthreads. The datapath's
# counters and the tracepoints' are left out: they count frames and
# polls (of any device's NAPI, here too), not what an apply writes; so
# are the receiver slots, which a CPU claims with its first frame queued
# under drain (a stray IPv6 packet on the veth is enough).
COUNTERS='steer_stats|steer_queued|worker_stats|steer_buckets|steer_seq|steer_deq|steer_wdone|steer_wenq|steer_load|steer_rxq|steer_rxmove|steer_look|steer_rx_pool|steer_rx_slot|steer_rx_cpu|steer_rx_lease|ring_stats|kthread_stats'
snapshot() {
	local f name
	mkdir -p "$1"
	for f in "$PIN"/*; do
		name=${f##*/}
		[[ $name =~ ^($COUNTERS)$ ]] && continue
		if bpftool map show pinned "$f" >/dev/null 2>&1; then
			bpftool map dump pinned "$f" >"$1/$name" || return 1
		else
			bpftool link show pinned "$f" >"$1/$name" || return 1
		fi
	done
	xs status "$IF_B" --json | python3 -c 'import json, sys
p = json.load(sys.stdin)["policy"]
print(json.dumps({k: p[k] for k in ("generation", "slot", "retire_pending",
    "drain_window_open", "queue_size", "bank", "cpumap", "worker_sched")},
    sort_keys=True))' >"$1/status.json"
}

check "attach with a policy" xs attach "$IF_B" --policy "$T/p1.yaml"
snapshot "$T/before" || fail "dumping the maps before the dry runs"
check "the snapshot holds the policy maps (steer_slots, steer_table, cpu_map, flow_rules)" \
	test -s "$T/before/steer_slots" -a -s "$T/before/steer_table" -a \
	-s "$T/before/cpu_map" -a -s "$T/before/flow_rules"

# ---- 1. the policy in force ---------------------------------------------------
xs apply "$IF_B" --policy "$T/p1.yaml" --dry-run >"$T/same.txt" 2>"$T/same.err"
rc=$?
check "a dry run of the policy in force exits 0" test "$rc" = 0
check "  and says an apply would change nothing" \
	grep -q 'an apply would change nothing' "$T/same.txt"
J=$(xs apply "$IF_B" -p "$T/p1.yaml" -n -j)
rc=$?
check "  as JSON too (exit 0, changes false, nothing listed)" \
	json_holds "$J" "$rc == 0 and not d['changes'] and d['policy_in_force'] and
		not d['workers'] and not d['rules'] and not d['cpumap'] and
		not d['worker_sched'] and not d['settings'] and
		d['table']['moved'] == 0 and not d['rehash']"

# ---- 2. a changed policy ------------------------------------------------------
xs apply "$IF_B" --policy "$T/p2.yaml" --dry-run >"$T/diff.txt" 2>"$T/diff.err"
rc=$?
check "a dry run of a changed policy exits 4 (would change)" test "$rc" = 4
check "  and says what would change, per CPU pair" \
	grep -q 'table: 128 of 512 buckets would move: cpu 0 -> cpu 1: 128' "$T/diff.txt"
Q=$(xs -q apply "$IF_B" --policy "$T/p2.yaml" --dry-run)
rc=$?
check "  with -q: exit 4 and nothing printed" test "$rc:$Q" = "4:"
J=$(xs apply "$IF_B" --policy "$T/p2.yaml" --dry-run --json)
rc=$?
check "  as JSON: exit 4, CPU 1's weight 1 -> 3, 128 buckets from CPU 0 to 1" \
	json_holds "$J" "$rc == 4 and d['changes'] and
		d['workers'] == [{'cpu': 1, 'old_weight': 1, 'new_weight': 3}] and
		d['table']['moved'] == 128 and
		d['table']['moves'] == [{'from': 0, 'to': 1, 'buckets': 128}] and
		not d['rehash']"
check "  the rule for tcp 443 changed (CPU 0 -> 1), one for udp 53 added, no other" \
	json_holds "$J" "sorted((r['change'], r['match'], r['old'] and r['old']['cpus'],
		r['new']['cpus']) for r in d['rules']) == [
		('added', 'proto: udp, dst_port: 53', None, [0]),
		('changed', 'proto: tcp, dst_port: 443', [0], [1])]"
check "  both cpumap entries resized 1024 -> 2048, no other entry" \
	json_holds "$J" "sorted((c['cpu'], c['change'], c['old_qsize'], c['new_qsize'])
		for c in d['cpumap']) == [(0, 'resized', 1024, 2048), (1, 'resized', 1024, 2048)]"
check "  both workers' kthreads other nice 10 -> fifo 7" \
	json_holds "$J" "sorted((s['cpu'], s['from']['policy'], s['from']['nice'],
		s['to']['policy'], s['to']['priority']) for s in d['worker_sched']) ==
		[(0, 'other', 10, 'fifo', 7), (1, 'other', 10, 'fifo', 7)]"
check "  the settings queue_size and local_fastpath, no other" \
	json_holds "$J" "sorted((s['name'], s['from'], s['to']) for s in d['settings']) ==
		[('local_fastpath', 'true', 'false'), ('queue_size', '1024', '2048')]"

# ---- 3. nothing was touched ---------------------------------------------------
snapshot "$T/after" || fail "dumping the maps after the dry runs"
check "every policy map is byte for byte as before the dry runs" \
	diff -r "$T/before" "$T/after"
check "  the active slot, generation, drain window and kthreads too" \
	cmp "$T/before/status.json" "$T/after/status.json"

# ---- 4. the apply does what the dry run said ----------------------------------
check "the apply of the changed policy succeeds" \
	xs apply "$IF_B" --policy "$T/p2.yaml"
S=$(xs status "$IF_B" --json)
check "  CPU 1 owns 384 buckets, CPU 0 128; queue 2048; fifo 7" \
	json_holds "$S" "sorted((w['cpu'], w['buckets']) for w in d['policy']['workers'])
		== [(0, 128), (1, 384)] and d['policy']['queue_size'] == 2048 and
		d['policy']['worker_sched'] == {'policy': 'fifo', 'priority': 7, 'nice': 0}"
J=$(xs apply "$IF_B" --policy "$T/p2.yaml" --dry-run --json)
rc=$?
check "  a dry run of it now says nothing would change (the random seed is kept)" \
	json_holds "$J" "$rc == 0 and not d['changes']"

# ---- 5. errors ------------------------------------------------------------------
xs apply "$IF_B" --policy "$T/bad.yaml" >"$T/apply.out" 2>"$T/apply.err"
rc_apply=$?
xs apply "$IF_B" --policy "$T/bad.yaml" --dry-run >"$T/dry.out" 2>"$T/dry.err"
rc_dry=$?
check "a policy with a mistake: dry run exits as apply does (1)" \
	test "$rc_dry" = "$rc_apply" -a "$rc_dry" = 1
check "  with the same messages, file:line:col first" \
	bash -c "cmp '$T/apply.err' '$T/dry.err' && grep -q '^$T/bad.yaml:3:1: ' '$T/dry.err'"
in_a "$XDP_STEER" apply "$IF_A" --policy "$T/p1.yaml" --dry-run >/dev/null 2>"$T/none.err"
rc=$?
check "an interface with nothing attached fails (exit 1)" test "$rc" = 1
check "  saying no xdp-steer maps are there, and to attach" \
	grep -q "no xdp-steer maps in .*; run 'xdp-steer attach $IF_A" "$T/none.err"
xs apply xsnone$E2E_ID --policy "$T/p1.yaml" --dry-run >/dev/null 2>"$T/gone.err"
rc=$?
check "an interface that does not exist fails (exit 1), saying so" \
	bash -c "test $rc = 1 && grep -q 'no such interface' '$T/gone.err'"

e2e_done
