#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: the loader on a veth in a namespace. Both load paths
# (`xdp-steer attach`, and `xdp-loader load -p` then `xdp-steer apply`),
# apply and re-apply, broken policies (the old one stays in force, checked
# in the maps themselves, not only through `status`), usage errors, the
# apply lock, cpumap entries of CPUs that leave, status/stats output, the
# small-queue warning coming and going, and detach. Holds on a 2-CPU
# machine: the policies use CPUs 0 and 1 only.
set -u
. "$(dirname "$0")/lib.sh"

e2e_setup
# apply's lock file outlives the interface: remove it with the rest.
PIN=$PIN_B
T=$E2E_TMP
# Only the frames the test sends reach the program (no IPv6 neighbour
# discovery or MLD), so the stats checks can count exactly.
in_a sysctl -qw net.ipv6.conf."$IF_A".disable_ipv6=1
in_b sysctl -qw net.ipv6.conf."$IF_B".disable_ipv6=1
MAPS="cpu_map steer_ctl steer_slots steer_table flow_rules prefix_rules
      rule_cpus rule_filter steer_stats worker_stats"

xs() { in_b "$XDP_STEER" "$@"; }

# ---- policies -------------------------------------------------------------

# P_A: both CPUs, no rules. P_B: weighted, small table, one rule of each
# kind. P_C: CPU 1 only, so CPU 0 leaves the cpumap.
cat >"$T/p_a.yaml" <<'EOF'
version: 1
cpus: [0-1]
hash: {seed: 1}
EOF
cat >"$T/p_b.yaml" <<'EOF'
version: 1
cpus: [{cpu: 0, weight: 3}, 1]
table_size: 64
queue_size: 512
hash: {seed: 2}
rules:
  - {match: {proto: udp, dst_port: 5353}, cpu: 1}
  - {match: {src: 10.9.0.0/16}, cpus: [0-1]}
EOF
cat >"$T/p_c.yaml" <<'EOF'
version: 1
cpus: [1]
hash: {seed: 3}
EOF
printf 'version: 1\ncpus: [0, 1\nqueue_size: 4\n' >"$T/broken_syntax.yaml"
printf 'version: 1\ncpus: [0, 99]\n' >"$T/broken_cpu.yaml"

# ---- reading the maps directly ---------------------------------------------

# What the maps hold for the active slot (tests/e2e/maps_state.py).
state() { python3 "$E2E_ROOT/tests/e2e/maps_state.py" "$PIN"; }
# field NAME [STATE]: one value of a state line.
field() {
	local s=${2:-$(state)}
	tr ' ' '\n' <<<"$s" | sed -n "s/^$1=//p"
}
# status_json PYTHON-EXPR: evaluates the expression on `status --json` as d;
# fails (exit 1) unless it is true. Prints the document when it fails.
# Every cpumap entry runs the copy of the cpumap program that knows its
# bank (steer_worker, steer_worker_b): the worker counts frames by target.
bank_programs_match() {
	xs status "$IF_B" --json | python3 -c '
import json, subprocess, sys
d = json.load(sys.stdin)
for c in d["policy"]["cpumap"]:
    out = subprocess.check_output(["bpftool", "-j", "prog", "show", "id", str(c["prog_id"])])
    name = json.loads(out)["name"]
    want = "steer_worker_b" if c["bank"] else "steer_worker"
    if name != want:
        sys.exit("cpu %d, bank %d runs %s, not %s" % (c["cpu"], c["bank"], name, want))
'
}
status_json_bank() {
	xs status "$IF_B" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["policy"]["bank"])'
}

status_json() {
	local doc
	doc=$(xs status "$IF_B" --json) || return 1
	json_holds "$doc" "$1"
}
expect_eq() {	# expect_eq GOT WANT
	[ "$1" = "$2" ] && return 0
	echo "got '$1', expected '$2'"
	return 1
}
# run_rc WANT CMD...: the command exits with WANT; its output in $T/out.
run_rc() {
	local want=$1 rc
	shift
	"$@" >"$T/out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] && return 0
	echo "exit status $rc, expected $want"; cat "$T/out"
	return 1
}
out_has() { grep -qE -- "$1" "$T/out" || { echo "no /$1/ in:"; cat "$T/out"; return 1; }; }
xdp_prog_id() {	# the XDP program on IF_B per ip link, or 0
	in_b ip -j -d link show dev "$IF_B" | python3 -c 'import json, sys
d = json.load(sys.stdin)[0]
print(d.get("xdp", {}).get("prog", {}).get("id", 0))'
}
pins_all_exist() {
	local m
	for m in $MAPS; do
		[ -e "$PIN/$m" ] || { echo "missing $PIN/$m"; return 1; }
	done
}

# ---- attach -----------------------------------------------------------------

check "xdp-steer attach in native mode succeeds" \
	run_rc 0 xs attach "$IF_B" --policy "$T/p_a.yaml" --mode native
check "attach says it applied generation 1" out_has "policy applied \(generation 1,"
check "attach pins every map under $PIN" pins_all_exist
PROG=$(xdp_prog_id)
check "ip link shows an XDP program on the interface" test "$PROG" -gt 0
check "xdp-loader status lists xdp_steer in native mode" \
	bash -c "nsenter --net=/run/netns/$NS_B xdp-loader status $IF_B | grep -E 'xdp_steer +native +$PROG '"
check "status names the program, native mode and generation 1" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B | tr '\n' ' ' |
		 grep -E 'xdp_steer program $PROG, native mode.*policy: generation 1 .*workers: cpu 0 \(256 buckets\), cpu 1 \(256 buckets\)'"
check "status --json reports the attached program, its mode and the pinned maps in use" \
	status_json "d['attached'] and d['prog_id'] == $PROG and d['mode'] == 'native' and d['uses_pins'] and d['ifname'] == '$IF_B'"
check "status --json reports the policy: generation 1, both CPUs with 256 buckets" \
	status_json "d['policy']['applied'] and d['policy']['generation'] == 1 and d['policy']['table_size'] == 512 and
		     d['policy']['workers'] == [{'cpu': 0, 'buckets': 256}, {'cpu': 1, 'buckets': 256}]"
check "status --json lists a cpumap entry with the cpumap program for each worker" \
	status_json "[(c['cpu'], c['qsize'], c['prog_id'] != 0) for c in d['policy']['cpumap']] == [(0, 2048, True), (1, 2048, True)]"
S_A=$(state)
check "the maps hold policy A: 512 buckets split 256/256, both CPUs in the cpumap with a program" \
	expect_eq "$(field table)/$(field cpumap "$S_A")/$(field gen "$S_A")" "0x256,1x256/0:2048:prog,1:2048:prog/1"
check "attaching again upgrades it in place (exit 0)" \
	run_rc 0 xs attach "$IF_B" --policy "$T/p_a.yaml"
check "and says so, the policy unchanged" \
	out_has "upgraded in place: program $PROG replaced"
PROG=$(xdp_prog_id)
check "the new program keeps policy A and its maps" \
	expect_eq "$(state)" "$S_A"

# ---- apply, re-apply ----------------------------------------------------------

check "applying policy B succeeds" run_rc 0 xs apply "$IF_B" --policy "$T/p_b.yaml"
check "apply says generation 2" out_has "policy applied \(generation 2,"
S_B=$(state)
check "the generation went up by one and the other slot became active" \
	expect_eq "$(field gen "$S_B") $(field slot "$S_B")" "2 $((1 - $(field slot "$S_A")))"
check "the active table holds policy B: 64 buckets, 48 to CPU 0 (weight 3) and 16 to CPU 1" \
	expect_eq "$(field table_size "$S_B") $(field table "$S_B")" "64 0x48,1x16"
check "policy B's rules are in the active slot: one exact-field rule, one source prefix" \
	expect_eq "$(field flow "$S_B") $(field src "$S_B") $(field dst "$S_B")" "1 1 0"
check "policy B's queue size went into cpumap bank 1, bank 0's entries retired" \
	expect_eq "$(field bank "$S_B") $(field cpumap "$S_B")" "1 0:512:prog:b1,1:512:prog:b1"
check "status --json agrees with the maps about policy B" \
	status_json "d['policy']['generation'] == 2 and d['policy']['exact_rules'] == 1 and
		     d['policy']['prefix_rules'] == 1 and d['policy']['queue_size'] == 512 and
		     d['policy']['workers'] == [{'cpu': 0, 'buckets': 48}, {'cpu': 1, 'buckets': 16}]"
check "re-applying the same policy succeeds" run_rc 0 xs apply "$IF_B" --policy "$T/p_b.yaml"
check "re-applying says the policy is unchanged" out_has "policy unchanged \(generation 2\)"
check "re-applying changes nothing in the maps (slot, generation, table, rules, cpumap)" \
	expect_eq "$(state)" "$S_B"

# ---- broken policies -------------------------------------------------------------

check "a policy with a YAML syntax error is refused with exit 1" \
	run_rc 1 xs apply "$IF_B" --policy "$T/broken_syntax.yaml"
check "the syntax error is reported as file:line:col" \
	out_has "broken_syntax\.yaml:3:[0-9]+: invalid YAML"
check "a policy naming a CPU this machine lacks (99) is refused with exit 1" \
	run_rc 1 xs apply "$IF_B" --policy "$T/broken_cpu.yaml"
check "the CPU is reported at its place: past the possible CPUs, or not online" \
	out_has "broken_cpu\.yaml:2:11: cpu 99 is (past this kernel's possible CPUs|not online)"
check "a missing policy file is refused with exit 1" \
	run_rc 1 xs apply "$IF_B" --policy "$T/no-such-policy.yaml"
check "after the broken policies policy B is still in force, bucket for bucket (maps)" \
	expect_eq "$(state)" "$S_B"

# ---- usage errors ----------------------------------------------------------------

check "apply without arguments is a usage error (exit 2)" run_rc 2 xs apply
check "apply without a policy is a usage error (exit 2)" run_rc 2 xs apply "$IF_B"
check "attach without --policy is a usage error (exit 2)" run_rc 2 xs attach "$IF_B"
check "attach with an unknown mode is a usage error (exit 2)" \
	run_rc 2 xs attach "$IF_B" --policy "$T/p_a.yaml" --mode turbo
check "an unknown option is a usage error (exit 2)" run_rc 2 xs status --bogus
check "stats without an interface is a usage error (exit 2)" run_rc 2 xs stats
check "stats with a bad interval is a usage error (exit 2)" run_rc 2 xs stats "$IF_B" --interval 0
check "an unknown command is a usage error (exit 2)" run_rc 2 xs frobnicate
check "the usage errors left policy B in force" expect_eq "$(state)" "$S_B"

# ---- stats ---------------------------------------------------------------------------

# One datagram to resolve ARP, then 100 UDP datagrams to port 5353 (policy
# B's exact rule: CPU 1) and 100 to other ports (the table), from A.
in_a python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b"arp", ("'"$IP_B"'", 9)); time.sleep(0.3)
for i in range(100):
    s.sendto(b"m" * 64, ("'"$IP_B"'", 5353))
    s.sendto(b"t" * 64, ("'"$IP_B"'", 10000 + i))' || fail "sending UDP from $NS_A"
sleep 0.3
xs stats "$IF_B" --json >"$T/stats.json" 2>&1
stats_json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
outcomes = ["redirected", "passed_local", "passed_nonip", "passed_parse_error",
            "passed_no_target", "passed_no_policy"]
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    print(json.dumps(d, indent=1)[:2000])
sys.exit(0 if ok else 1)' "$T/stats.json" "$1"
}
check "stats --json is one valid JSON document for the interface" \
	stats_json "d['ifname'] == '$IF_B' and set(d) >= {'totals', 'rx_cpus', 'workers'}"
check "stats --json names every counter of steer_stats" \
	stats_json "set(t) == set(['rx_packets', 'rx_bytes', 'fragments', 'rule_flow_hits', 'rule_prefix_hits',
			       'drain_held', 'drain_stalled', 'moves_done', 'moves_idle', 'moves_timeout', 'unstamped',
			       'rxq_moves', 'encap_pppoe', 'encap_mpls', 'encap_gre', 'encap_ipip',
			       'encap_vxlan', 'encap_geneve', 'encap_gtpu', 'encap_esp',
			       'encap_malformed', 'passed_local_bytes', 'parsed_partial', 'key_id_fallback',
			       'no_rx_slot', 'rx_slot_takeovers'] + outcomes)"
check "stats --json counted exactly the 201 datagrams sent, ARP aside" \
	stats_json "t['rx_packets'] - t['passed_nonip'] == 201"
check "every frame was counted in exactly one outcome" \
	stats_json "sum(t[k] for k in outcomes) == t['rx_packets']"
check "the 100 datagrams to port 5353 hit policy B's exact-field rule" \
	stats_json "t['rule_flow_hits'] == 100 and t['rule_prefix_hits'] == 0"
check "the per-CPU rows add up to the totals" \
	stats_json "all(sum(c[k] for c in d['rx_cpus']) == t[k] for k in t)"
check "all 201 datagrams went to a worker CPU: queued to the cpumap or kept on their own" \
	stats_json "t['redirected'] + t['passed_local'] == 201 and t['passed_no_target'] == 0"
check "the workers dequeued what was queued to them" \
	stats_json "sum(w['dequeued_packets'] for w in d['workers']) == t['redirected'] and
		    sum(w['queued_packets'] for w in d['workers']) == t['redirected'] + t['passed_local']"
check "steer_stats dumps with its field names (BTF), as bpftool shows it" \
	bash -c "bpftool map dump pinned $PIN/steer_stats | grep -q '\"passed_no_target\": 0'"

# JSON: one document on one line, or a stream of them, one a line (JSON
# Lines), for --interval or --count.
# json_lines FILE N PYTHON-EXPR: FILE is N lines, each a JSON document,
# and the expression holds over them (ds, the list; d, the first).
json_lines() {
	python3 -c 'import json, sys
lines = open(sys.argv[1]).read().split("\n")
if lines[-1] != "" or len(lines) - 1 != int(sys.argv[2]):
    sys.exit("%d lines, expected %s:\n%s" % (len(lines) - 1, sys.argv[2], "\n".join(lines)[:1500]))
ds = [json.loads(l) for l in lines[:-1]]
d = ds[0]
ok = eval("(" + sys.argv[3] + ")")
if not ok:
    print("\n".join(lines)[:1500])
sys.exit(0 if ok else 1)' "$@"
}
check "stats --json is one document on one line" \
	json_lines "$T/stats.json" 1 "d['ifname'] == '$IF_B' and d['time'] > 1.7e9"
xs stats "$IF_B" --json --interval 0.2 --count 3 >"$T/stream.json" 2>"$T/stream.err"
check "stats --json --interval 0.2 --count 3 is 3 lines, each a document of the counters" \
	json_lines "$T/stream.json" 3 "all(x['ifname'] == '$IF_B' and x['totals']['rx_packets'] >= 202 for x in ds)"
check "  0.2 s apart, the first at once" \
	json_lines "$T/stream.json" 3 "all(0.15 < b['time'] - a['time'] < 1.5 for a, b in zip(ds, ds[1:]))"
check "  and nothing on stderr" test ! -s "$T/stream.err"
xs stats "$IF_B" -j -c 2 -i 0.1 >"$T/stream.json"
check "stats -j -c 2 -i 0.1 (the letters) is 2 lines" \
	json_lines "$T/stream.json" 2 "ds[1]['time'] > ds[0]['time']"
xs status --json >"$T/all.json"
xs status "$IF_B" --json >"$T/one.json"
check "status --json without IFACE is one document on one line, every interface in it" \
	json_lines "$T/all.json" 1 "[i['ifname'] for i in d['interfaces']] == ['$IF_B'] and isinstance(d['gone_netns_pins'], list)"
check "  each as status IFACE --json has it" \
	json_lines "$T/all.json" 1 "{k: v for k, v in d['interfaces'][0].items() if k != 'policy'} ==
		{k: v for k, v in json.load(open('$T/one.json')).items() if k != 'policy'}"
check "status IFACE --json is one document on one line" \
	json_lines "$T/one.json" 1 "d['ifname'] == '$IF_B'"

# Every redirect calls the cpumap's own redirect: a call site that sees
# two maps (clang merging the two banks' calls) makes the verifier fall
# back to the generic helper, an indirect call (25-30 ns a frame more
# under retpolines). A structure check, not a timing.
redirects() {	# "direct generic" call counts in the verified program
	bpftool prog dump xlated id "$(xdp_prog_id)" |
		awk '/call cpu_map_redirect/ { d++ } /call bpf_xdp_redirect_map/ { g++ }
		     END { print d + 0, g + 0 }'
}
read -r direct generic < <(redirects)
check "every redirect in the verified program calls cpu_map_redirect directly ($direct direct, $generic generic)" \
	test "$direct" -gt 0 -a "$generic" -eq 0
check "stats --interval 0.5 --count 1 prints one table and exits 0" \
	run_rc 0 timeout 10 nsenter --net=/run/netns/"$NS_B" "$XDP_STEER" stats "$IF_B" --interval 0.5 --count 1
check "the stats table has per-CPU, total and worker rows" \
	bash -c "grep -q 'rx CPU' $T/out && grep -qE '^ +total ' $T/out && grep -q 'worker CPU' $T/out"
# Both CPUs work (CPU 0 passes its share on the spot): with --top 1 the
# workers' table shows one and sums the other in a row that names it;
# --all and the JSON show both.
check "stats --totals --top 1 folds the second worker into a '1 more' row naming its CPU" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER stats $IF_B --totals --top 1 > $T/top &&
		 sed -n '/worker CPU/,\$p' $T/top | grep -qE '^ +1 more .* CPUs [01]\$' || { cat $T/top; exit 1; }"
check "stats --totals --all folds nothing" \
	bash -c "! nsenter --net=/run/netns/$NS_B $XDP_STEER stats $IF_B --totals --all | grep -q ' more '"
check "status --top 1 shows the worker with the most buckets and folds the other, naming it" \
	bash -c "xs() { nsenter --net=/run/netns/$NS_B $XDP_STEER \"\$@\"; }; xs status $IF_B --top 1 > $T/top &&
		 grep -q '^  workers: 2 CPUs 0-1; the 1 with the most buckets:' $T/top &&
		 grep -qE '^    1 more CPU: [0-9]+ buckets? in all \(CPU [01]\)\$' $T/top || { cat $T/top; exit 1; }"
check "stats --json --top 1 still lists both workers" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER stats $IF_B --json --top 1 |
		 python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(sorted(w[\"cpu\"] for w in d[\"workers\"]) != [0, 1])'"

# ---- CPUs that leave, the lock, concurrent applies ---------------------------------

check "applying policy C (CPU 1 only) succeeds" run_rc 0 xs apply "$IF_B" --policy "$T/p_c.yaml"
# Policy B's queue size put it in cpumap bank 1; C's default size goes
# back to bank 0: CPU 1 added there, both of B's entries retired.
check "apply reports CPU 1 added in the other bank and B's two entries removed" \
	out_has "cpumap \+1 -2$"
S_C=$(state)
check "CPU 0 left the policy and lost its cpumap entry" \
	expect_eq "$(field table "$S_C") $(field cpumap "$S_C")" "1x512 1:2048:prog"
check "status --json lists only CPU 1 in the cpumap" \
	status_json "[c['cpu'] for c in d['policy']['cpumap']] == [1]"

# The lock: while another process holds it, apply waits and says so.
flock "$LOCK_B" sleep 1.5 &
locker=$!
sleep 0.3
start=$(date +%s%N)
check "apply waits for the interface lock held by another process" \
	run_rc 0 xs apply "$IF_B" --policy "$T/p_a.yaml"
waited=$((($(date +%s%N) - start) / 1000000))
wait $locker
check "apply said it was waiting for another xdp-steer" out_has "waiting for another xdp-steer"
check "apply went on only after the lock was released (waited ${waited} ms)" test "$waited" -ge 900
# A wait is said on stderr: stats --json during an apply stays one JSON
# document (the test scripts read it while applies run).
flock "$LOCK_B" sleep 1 &
locker=$!
sleep 0.3
xs stats "$IF_B" --json >"$T/stats.json" 2>"$T/stats.err"
wait $locker
check "stats --json waiting for the lock says so on stderr" \
	grep -q "waiting for another xdp-steer" "$T/stats.err"
check "and prints one JSON document on stdout" \
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/stats.json"
S_A2=$(state)

# Two applies at once, on different policies: both succeed, each flips
# once, and the maps end up holding one of the two policies, whole.
concurrent_round() {
	local gen0 g s t c
	gen0=$(field gen)
	xs apply "$IF_B" --policy "$T/p_a.yaml" >"$T/c1" 2>&1 &
	local p1=$!
	xs apply "$IF_B" --policy "$T/p_c.yaml" >"$T/c2" 2>&1 &
	local p2=$!
	wait $p1 || { echo "apply of policy A failed:"; cat "$T/c1"; return 1; }
	wait $p2 || { echo "apply of policy C failed:"; cat "$T/c2"; return 1; }
	s=$(state)
	g=$(field gen "$s"); t=$(field table "$s"); c=$(field cpumap "$s")
	# Whichever ran second flipped from the other's policy: +2 in all
	# (the first may also find its policy already in force: +1).
	[ "$g" -eq $((gen0 + 2)) ] || [ "$g" -eq $((gen0 + 1)) ] ||
		{ echo "generation $gen0 -> $g"; return 1; }
	case "$t $c" in
	"0x256,1x256 0:2048:prog,1:2048:prog" | "1x512 1:2048:prog") ;;
	*) echo "a mixed state: $s"; cat "$T/c1" "$T/c2"; return 1 ;;
	esac
}
concurrent() {
	local i
	for i in 1 2 3 4 5; do
		concurrent_round || return 1
	done
}
check "two concurrent applies of different policies both succeed and leave one whole policy, 5 times" \
	concurrent
# The same with both started while the lock is held, so they surely
# overlap: each must wait, then run one after the other. The holder lets
# go once both say they wait (at most 10 s: a slow machine must not turn
# into a false failure, and one that never waits fails below).
locked_round() {
	rm -f "$T/c1" "$T/c2"
	flock "$LOCK_B" sh -c "for i in \$(seq 200); do
		grep -qs waiting $T/c1 && grep -qs waiting $T/c2 && exit 0; sleep 0.05; done" &
	local locker=$!
	sleep 0.2
	concurrent_round || { wait $locker; return 1; }
	wait $locker
	grep -q "waiting for another xdp-steer" "$T/c1" &&
		grep -q "waiting for another xdp-steer" "$T/c2" ||
		{ echo "an apply did not wait for the lock:"; cat "$T/c1" "$T/c2"; return 1; }
}
check "two applies started while the lock is held both wait, then both apply whole" \
	locked_round

# ---- the small-queue warning ---------------------------------------------------------

# The concurrent applies left policy A or C in force: note which, and
# restore it after, so detach below finds the state it always found.
cat >"$T/p_small_queue.yaml" <<'EOF'
version: 1
cpus: [0-1]
queue_size: 16
hash: {seed: 1}
EOF
S_NOW=$(state)
case $(field table "$S_NOW") in
1x512) P_NOW=p_c ;;
*) P_NOW=p_a ;;
esac
check "status --json gives no warning under the policy in force" status_json "d['warnings'] == []"
check "applying a policy with queue_size 16 succeeds" \
	run_rc 0 xs apply "$IF_B" --policy "$T/p_small_queue.yaml"
check "status --json carries the small-queue warning, and only it" \
	status_json "d['policy']['queue_size'] == 16 and len(d['warnings']) == 1 and
		     'queue_size 16 is small' in d['warnings'][0] and '2048 is the default' in d['warnings'][0]"
check "the cpumap entries took the queue size 16" \
	status_json "[c['qsize'] for c in d['policy']['cpumap']] == [16, 16]"
check "each cpumap entry runs its own bank's cpumap program (bank $(status_json_bank))" \
	bank_programs_match
check "status prints the small-queue warning" run_rc 0 xs status "$IF_B"
check "the text warning names the queue size" out_has "^  warning: queue_size 16 is small"
check "re-applying the policy in force before succeeds" run_rc 0 xs apply "$IF_B" --policy "$T/$P_NOW.yaml"
check "status --json has no warning left once the queue is back to 2048" \
	status_json "d['policy']['queue_size'] == 2048 and d['warnings'] == []"
check "back in the other bank, each entry runs that bank's cpumap program (bank $(status_json_bank))" \
	bank_programs_match
check "the maps hold that policy again: its table and cpumap" \
	expect_eq "$(field table) $(field cpumap)" "$(field table "$S_NOW") $(field cpumap "$S_NOW")"

# ---- detach ---------------------------------------------------------------------------

check "detach succeeds" run_rc 0 xs detach "$IF_B"
check "detach removed the pin directory" test ! -e "$PIN"
check "no XDP program is left on the interface" test "$(xdp_prog_id)" = 0
check "status of a detached interface fails with exit 1" run_rc 1 xs status "$IF_B"
check "apply to a detached interface fails with exit 1 and says how to attach" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER apply $IF_B --policy $T/p_a.yaml >$T/out 2>&1; test \$? -eq 1 && grep -q 'xdp-steer attach' $T/out"

# ---- the xdp-loader path ----------------------------------------------------------------

check "pin-dir names the pin directory of this namespace, netns-<inode>-<cookie>/IFACE" \
	expect_eq "$(xs pin-dir "$IF_B")" "$PIN"
check "pin-dir --create makes it, root's and mode 0700" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER pin-dir --create $IF_B >/dev/null &&
		 test \"\$(stat -c %U:%a $PIN)\" = root:700"
check "xdp-loader load -m native -p \$(xdp-steer pin-dir IFACE) loads the object" \
	run_rc 0 in_b xdp-loader load -m native -p "$(xs pin-dir "$IF_B")" "$IF_B" "$BPF_OBJ"
check "xdp-loader pinned every map where xdp-steer looks" pins_all_exist
PROG=$(xdp_prog_id)
check "status before any apply warns that no policy is applied" \
	status_json "d['attached'] and d['prog_id'] == $PROG and d['uses_pins'] and not d['policy']['applied'] and
		     any('no policy applied' in w for w in d['warnings'])"
check "xdp-steer apply works on the program xdp-loader loaded" \
	run_rc 0 xs apply "$IF_B" --policy "$T/p_b.yaml"
check "apply on xdp-loader's maps starts at generation 1" out_has "policy applied \(generation 1,"
check "status shows xdp-loader's program running policy B, without warnings" \
	status_json "d['prog_id'] == $PROG and d['mode'] == 'native' and d['policy']['generation'] == 1 and
		     d['policy']['table_size'] == 64 and d['warnings'] == []"
check "the cpumap entries carry the cpumap program apply loaded (prog_id != 0)" \
	status_json "len(d['policy']['cpumap']) == 2 and all(c['prog_id'] != 0 for c in d['policy']['cpumap'])"
check "the maps hold policy B" \
	expect_eq "$(field table) $(field flow) $(field src)" "0x48,1x16 1 1"
check "bpftool shows steer_stats with its field names" \
	bash -c "bpftool map dump pinned $PIN/steer_stats | grep -q '\"rx_packets\"'"
check "xdp-steer detach unloads xdp-loader's program and removes the pins" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER detach $IF_B >/dev/null && test ! -e $PIN"
check "no XDP program is left after detach" test "$(xdp_prog_id)" = 0

e2e_done
