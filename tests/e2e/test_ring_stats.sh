#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The cpumap's own account in `xdp-steer stats`: frames a full worker ring
# drops after bpf_redirect_map() succeeded, and what each worker's kthread
# took, from the tracepoint programs that attach pins next to the maps
# (include/xdp_steer/trace.h, loader/kernel/trace.h).
#
# A flood from namespace A into a 16-frame cpumap queue, the receiving CPU
# pinned to one CPU and the only worker another: stats must show ring-full
# drops, and per worker sent == delivered + ring-full drops exactly once
# the traffic has stopped (with enqueued == what the kthread took ==
# delivered); the observer's own tracepoint count of the same drops must
# agree. A second interface, steered alike in the same namespace and sent
# nothing, has its own tracepoint programs attached all along: they must
# count none of the first one's frames. A queue_size change moves the
# workers to the second cpumap bank, whose frames must count too. The
# JSON is valid, `stats --prometheus` passes `promtool check metrics`;
# its first scrape of a freshly attached interface, sent nothing, already
# has every counter of every online CPU and of the policy's worker, at 0,
# and the series traffic brings later are those same ones.
# Without the tracepoint programs (as an older xdp-steer leaves an
# interface) every form says the ring counters are unknown, and the next
# apply starts them. Detach and `detach --stale` take them away.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

e2e_setup
traffic_init

mapfile -t CPU_IDS < <(traffic_online_cpus)
RX=$TRAFFIC_RX_CPU
W=
for c in "${CPU_IDS[@]}"; do
	[ "$c" != "$RX" ] && { W=$c; break; }
done
if [ -z "$W" ]; then
	skip "all" "needs a worker CPU besides the receiving CPU $RX"
	exit 0
fi

# The second interface: a veth pair of its own, $IF_D steered in B. No
# IPv6 on it, so nothing at all crosses it unless a test sends it.
IF_C=xsc$E2E_ID
IF_D=xsd$E2E_ID
PIN_D=$(dirname "$PIN_B")/$IF_D
ring_cleanup() {
	[ -e /run/netns/"$NS_B" ] && in_b "$XDP_STEER" -q detach "$IF_D" >/dev/null 2>&1
	traffic_cleanup
}
trap ring_cleanup EXIT

add_second_pair() {
	ip link add "$IF_C" netns "$NS_A" type veth peer name "$IF_D" netns "$NS_B" &&
	in_a sysctl -qw net.ipv6.conf."$IF_C".disable_ipv6=1 &&
	in_b sysctl -qw net.ipv6.conf."$IF_D".disable_ipv6=1 &&
	ip -n "$NS_A" link set "$IF_C" up && ip -n "$NS_B" link set "$IF_D" up
}

cat >"$E2E_TMP/small.yaml" <<EOF
version: 1
cpus: [$W]
queue_size: 16
EOF
# Another ring size: the kernel cannot resize a live ring, so the workers
# move to the other cpumap bank (cpu_map_b).
cat >"$E2E_TMP/small-b.yaml" <<EOF
version: 1
cpus: [$W]
queue_size: 32
EOF

xs() { in_b "$XDP_STEER" "$@"; }

# json EXPR FILE: a Python expression over d (the stats document) is true;
# prints the document's workers when not.
json() {
	python3 - "$2" "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
w = d["workers"]
if not eval(sys.argv[2]):
    print(json.dumps(w, indent=1))
    sys.exit(1)
EOF
}

# link_ids PIN...: the ids of the pinned links.
link_ids() {
	local p
	for p in "$@"; do
		bpftool link show pinned "$p" 2>/dev/null | awk -F: 'NR == 1 {print $1}'
	done
}

# links_gone ID...: none of these links exists any more (a link is freed
# shortly after its last pin goes).
links_gone() {
	local i id left
	for i in $(seq 50); do
		left=
		for id in "$@"; do
			bpftool link show id "$id" >/dev/null 2>&1 && left="$left $id"
		done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "links still there:$left"
	return 1
}

# link_is PIN TP: PIN is a raw tracepoint link on tracepoint TP.
link_is() {
	bpftool link show pinned "$1" -j |
		python3 -c 'import json, sys; l = json.load(sys.stdin); sys.exit(not (l["type"] == "raw_tracepoint" and l["tp_name"] == sys.argv[1]))' "$2"
}

# The account every worker must show, once no frame is in flight.
ACCOUNT="all(x['sent_packets'] == x['dequeued_packets'] + x['ring_full_drops'] and
	 x['enqueued'] == x['kthread_processed'] == x['dequeued_packets'] and
	 x['in_flight'] == 0 for x in w)"

if ! add_second_pair; then
	fail "a second veth pair $IF_C/$IF_D"
	e2e_done
fi
if ! xs -q attach "$IF_B" --policy "$E2E_TMP/small.yaml" ||
   ! xs -q attach "$IF_D" --policy "$E2E_TMP/small.yaml"; then
	fail "xdp-steer attach $IF_B and $IF_D with a 16-frame queue on CPU $W"
	e2e_done
fi
check "the receiving CPU is pinned to CPU $RX (threaded NAPI)" traffic_rx_pin

for pin in "$PIN_B" "$PIN_D"; do
	check "attach pinned $(basename "$pin")'s link on xdp_cpumap_enqueue" \
		link_is "$pin/tp_cpumap_enqueue" xdp_cpumap_enqueue
	check "attach pinned $(basename "$pin")'s link on xdp_cpumap_kthread" \
		link_is "$pin/tp_cpumap_kthread" xdp_cpumap_kthread
done
LINKS_B=$(link_ids "$PIN_B/tp_cpumap_enqueue" "$PIN_B/tp_cpumap_kthread")
LINKS_D=$(link_ids "$PIN_D/tp_cpumap_enqueue" "$PIN_D/tp_cpumap_kthread")

# prom_first FILE: in a scrape of an interface sent nothing, every counter
# family has a series at 0 for each online CPU (label cpu) or for the
# policy's worker $W alone (label worker), the ring ones included.
prom_first() {
	python3 - "$1" "${CPU_IDS[*]}" "$W" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
online, worker = set(sys.argv[2].split()), {sys.argv[3]}
fams = re.findall(r"^# TYPE (\S+) counter$", text, re.M)
bad = []
for f in fams:
    rows = re.findall(r"^%s\{interface=\"[^\"]*\",(cpu|worker)=\"(\d+)\"\} (\d+)$" % f, text, re.M)
    key = "worker" if f.startswith("xdp_steer_worker_") else "cpu"
    want = worker if key == "worker" else online
    got = {c for k, c, v in rows if k == key}
    if got != want or any(v != "0" for k, c, v in rows) or len(rows) != len(want):
        bad.append("%s: %s=%s, values %s (want %s)" % (f, key, sorted(got), sorted({v for *_, v in rows}), sorted(want)))
if len(fams) < 30 or "xdp_steer_worker_ring_full_drops_total" not in fams:
    bad.append("only %d counter families" % len(fams))
print("\n".join(bad))
sys.exit(bool(bad))
EOF
}
# prom_series FILE: the series of a scrape, without their values.
prom_series() { grep -v '^#' "$1" | sed 's/ [0-9.]*$//' | sort; }

xs stats "$IF_D" --prometheus >"$E2E_TMP/first.d.prom"
xs stats "$IF_B" --prometheus >"$E2E_TMP/first.b.prom"
check "the first scrape of $IF_D, attached and sent nothing, has every counter of online CPUs ${CPU_IDS[*]} and of worker $W at 0" \
	prom_first "$E2E_TMP/first.d.prom"
if command -v promtool >/dev/null; then
	check "that first scrape passes promtool check metrics" \
		promtool check metrics <"$E2E_TMP/first.d.prom"
fi

# flood NAME: 300000 frames of 100 flows as fast as the generator goes,
# counted by the observer; stats --json of both interfaces afterwards in
# $E2E_TMP/NAME.b.json and NAME.d.json.
flood() {
	if ! observer_start --drop; then
		fail "$1: the observer attaches to $IF_B"
		return 1
	fi
	gen_run --group udp4:100 --count 300000 ||
		fail "$1: the generator sends its frames"
	observer_stop || fail "$1: the observer reports"
	echo "  $1: $(traffic_summary "$OBS_REPORT"); drops: $(traffic_drops_detail "$OBS_REPORT")"
	xs stats "$IF_B" --json >"$E2E_TMP/$1.b.json"
	xs stats "$IF_D" --json >"$E2E_TMP/$1.d.json"
}

audit() {
	local name=$1 b=$E2E_TMP/$1.b.json d=$E2E_TMP/$1.d.json
	check "$name: stats --json of $IF_B is valid JSON with the ring counters on" \
		json "d['cpumap_trace'] is True" "$b"
	check "$name: the 16-frame ring of worker $W dropped frames, and stats shows them" \
		json "any(x['cpu'] == $W and x['ring_full_drops'] > 0 for x in w)" "$b"
	check "$name: per worker, sent == delivered + ring-full drops; enqueued == taken by the kthread == delivered; nothing in flight" \
		json "$ACCOUNT" "$b"
	check "$name: every frame redirected was sent to a worker (sum of sent == redirected)" \
		json "sum(x['sent_packets'] for x in w) == d['totals']['redirected']" "$b"
	check "$name: the ring-full drops equal the observer's own tracepoint count ($(report_get "$OBS_REPORT" drops_cpumap_enqueue) this run)" \
		json "sum(x['ring_full_drops'] for x in w) == $(( $(report_get "$OBS_REPORT" drops_cpumap_enqueue) + ${RING_BEFORE:-0} ))" "$b"
	check "$name: stats --json of $IF_D is valid JSON with the ring counters on" \
		json "d['cpumap_trace'] is True" "$d"
	check "$name: $IF_D's tracepoint programs counted none of $IF_B's frames (its account is its own, and $IF_D was sent nothing)" \
		json "$ACCOUNT and sum(x['enqueued'] + x['ring_full_drops'] + x['kthread_processed'] for x in w) == 0" "$d"
}

ring_total() {
	python3 -c 'import json, sys; print(sum(x["ring_full_drops"] for x in json.load(open(sys.argv[1]))["workers"]))' "$1"
}

flood bank0 && audit bank0
xs stats "$IF_B" --prometheus >"$E2E_TMP/bank0.b.prom"
check "after the flood, $IF_B's scrape has the same series as its first one, labels and all (none new, none gone)" \
	diff <(prom_series "$E2E_TMP/first.b.prom") <(prom_series "$E2E_TMP/bank0.b.prom")

# The same through the second bank.
RING_BEFORE=$(ring_total "$E2E_TMP/bank0.b.json")
if xs -q apply "$IF_B" --policy "$E2E_TMP/small-b.yaml" &&
   xs status "$IF_B" --json | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["policy"]["bank"] != 1)'; then
	flood bank1 && audit bank1
	check "bank1: the second bank's ring dropped frames too" \
		test "$(ring_total "$E2E_TMP/bank1.b.json")" -gt "$RING_BEFORE"
else
	fail "a queue_size change moves $IF_B's workers to cpumap bank 1"
fi

# Prometheus: the same counters, in a form promtool accepts.
xs stats "$IF_B" --prometheus >"$E2E_TMP/b.prom"
if command -v promtool >/dev/null; then
	check "stats --prometheus passes promtool check metrics" \
		promtool check metrics <"$E2E_TMP/b.prom"
else
	skip "stats --prometheus passes promtool check metrics" "promtool missing (Debian package prometheus; make test installs it)"
fi
check "stats --prometheus has worker $W's ring-full drops as in stats --json" \
	grep -qx "xdp_steer_worker_ring_full_drops_total{interface=\"$IF_B\",worker=\"$W\"} $(ring_total "$E2E_TMP/bank1.b.json")" "$E2E_TMP/b.prom"
check "stats --prometheus declares every metric a counter or gauge once" \
	awk '/^# TYPE/ { if (seen[$3]++) { print "twice: " $3; bad = 1 } ; if ($4 != "counter" && $4 != "gauge") bad = 1 }
	     /^# TYPE/ && $4 == "counter" && $3 !~ /_total$/ { print "counter without _total: " $3; bad = 1 }
	     END { exit bad }' "$E2E_TMP/b.prom"

# Bad input: one form at a time, and no interval for a one-shot form.
usage_error() {
	local out rc
	out=$(xs stats "$IF_B" "$@" 2>&1)
	rc=$?
	echo "$out"
	[ $rc -eq 2 ] && grep -q -- "$1" <<<"$out"
}
check "stats --prometheus --json is a usage error that names both" \
	usage_error --prometheus --json
check "stats --totals --interval 1 is a usage error that says why" \
	usage_error --totals --interval 1
check "stats --totals prints the workers' account with the ring counters" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER stats $IF_B --totals | grep -q 'sent = delivered + ring full + in flight'"

# An interface without the tracepoint programs, as an older xdp-steer (or
# xdp-loader without an apply) leaves it: the ring counters are unknown,
# said as such, and the next apply starts them.
for pin in tp_cpumap_enqueue tp_cpumap_kthread cpumap_ids ring_stats kthread_stats; do
	rm -f "$PIN_B/$pin"
done
xs stats "$IF_B" --json >"$E2E_TMP/untraced.json"
check "without the tracepoint programs, stats --json says cpumap_trace false and the ring counters null" \
	json "d['cpumap_trace'] is False and all(x['ring_full_drops'] is None and x['in_flight'] is None for x in w) and w" \
	"$E2E_TMP/untraced.json"
xs stats "$IF_B" --prometheus >"$E2E_TMP/untraced.prom"
check "without them, stats --prometheus has the cpumap_trace gauge at 0 and no ring series" \
	bash -c "grep -qx 'xdp_steer_cpumap_trace{interface=\"$IF_B\"} 0' $E2E_TMP/untraced.prom &&
		 ! grep -q ring_full $E2E_TMP/untraced.prom"
if command -v promtool >/dev/null; then
	check "without them, stats --prometheus still passes promtool check metrics" \
		promtool check metrics <"$E2E_TMP/untraced.prom"
fi
check "without them, stats --totals says the ring counters are unknown" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER stats $IF_B --totals | grep -q 'ring counters unknown'"
xs -q apply "$IF_B" --policy "$E2E_TMP/small.yaml" || fail "xdp-steer apply $IF_B again"
check "the next apply pinned the tracepoint links again" \
	link_is "$PIN_B/tp_cpumap_enqueue" xdp_cpumap_enqueue
xs stats "$IF_B" --json >"$E2E_TMP/retraced.json"
check "after it, stats --json says cpumap_trace true" \
	json "d['cpumap_trace'] is True" "$E2E_TMP/retraced.json"
LINKS_B=$(link_ids "$PIN_B/tp_cpumap_enqueue" "$PIN_B/tp_cpumap_kthread")

# Detach takes the tracepoint programs away with the pins.
xs -q detach "$IF_D" || fail "xdp-steer detach $IF_D"
check "detach $IF_D removed its tracepoint links ($(echo $LINKS_D))" links_gone $LINKS_D
check "$IF_B's tracepoint links are still there" \
	bash -c "for id in $(echo $LINKS_B); do bpftool link show id \$id >/dev/null || exit 1; done"

# ... and so does the sweep of an interface that is gone.
if xs -q attach "$IF_D" --policy "$E2E_TMP/small.yaml"; then
	LINKS_D=$(link_ids "$PIN_D/tp_cpumap_enqueue" "$PIN_D/tp_cpumap_kthread")
	ip -n "$NS_A" link del "$IF_C"
	xs -q detach --stale >/dev/null ||
		fail "xdp-steer detach --stale after $IF_D was deleted"
	check "detach --stale removed the gone $IF_D's pins" test ! -e "$PIN_D"
	check "detach --stale removed its tracepoint links ($(echo $LINKS_D))" links_gone $LINKS_D
else
	fail "xdp-steer attach $IF_D again"
fi

# Counters a scrape reads must never go back: Prometheus takes a smaller
# value for a reset and counts the whole counter again. A worker's sent was
# once cpu_stats less passed_local, two counters read apart: with the
# receiving CPU a worker too (its fast path passing half the flows), it
# went back in 8 of 150 scrapes under traffic. Now it is one counter.
cat >"$E2E_TMP/both.yaml" <<EOF
version: 1
cpus: [$RX, $W]
EOF
# sent_series N: N scrapes of stats --json, one line each: every worker's
# sent_packets and the receiving CPUs' passed_local, as "name=value".
sent_series() {
	local i
	for i in $(seq "$1"); do
		xs stats "$IF_B" --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(" ".join(["w%d=%d" % (x["cpu"], x["sent_packets"]) for x in d["workers"]] +
               ["local=%d" % d["totals"]["passed_local"]]))'
	done
}
# never_back FILE: no name's value is ever smaller than before, and the
# scrapes saw both kinds of frame.
never_back() {
	python3 -c 'import sys
last, bad, n = {}, 0, 0
for line in open(sys.argv[1]):
    n += 1
    for kv in line.split():
        k, v = kv.split("=")
        if int(v) < last.get(k, 0):
            print("scrape %d: %s went back from %d to %s" % (n, k, last[k], v))
            bad = 1
        last[k] = int(v)
if n < 50 or last.get("local", 0) == 0 or len(last) < 3:
    print("too little seen: %d scrapes, %s" % (n, last))
    bad = 1
sys.exit(bad)' "$1"
}
if xs -q apply "$IF_B" --policy "$E2E_TMP/both.yaml"; then
	gen_start --group udp4:1000 --rate 100000 --duration 0
	sleep 0.5
	sent_series 60 >"$E2E_TMP/sent.series"
	gen_stop >/dev/null
	check "a worker that also receives: its sent_packets never goes back between scrapes under traffic (60 scrapes), nor passed_local" \
		never_back "$E2E_TMP/sent.series"
else
	fail "xdp-steer apply $IF_B with the receiving CPU a worker"
fi

xs -q detach "$IF_B" || fail "xdp-steer detach $IF_B"
check "detach $IF_B removed its tracepoint links ($(echo $LINKS_B))" links_gone $LINKS_B

e2e_done
