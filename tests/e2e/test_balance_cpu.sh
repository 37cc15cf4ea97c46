#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The balancer by CPU time at saturation, with the shipped policy as it
# is (about 31 s). configs/default.yaml: every online CPU works, weight 1,
# balancing by CPU time on. The receiving CPU ($TRAFFIC_RX_CPU, threaded
# NAPI pinned there) collects for every worker and works too, and the
# generator beside it sends as fast as that CPU lets it (1000 UDP flows,
# 60-byte frames): the receiving CPU is the busiest, though its buckets
# carry only their share of the frames. The observer counts where and in
# what order each frame reached the stack, trusting nothing of xdp-steer,
# and samples each CPU's count every second.
#
#  1. Before: BALANCE_CPU_BEFORE (4) seconds with no balancer: the median
#     rate delivered to the stack over 1-second windows, and each CPU's
#     share of the frames.
#  2. `xdp-steer balance` (the policy's settings: a round a second,
#     250 ms while it settles after the attach, tolerance 5 %) runs
#     BALANCE_CPU_RUN (18) seconds under the same traffic: the 250-ms
#     settling rounds call the workers even within about 5 s on the
#     2-vCPU development VMs, and the climb's first step and its verdict
#     follow within 3 s (it begins 4 rounds after the last move while
#     settling, 8 once settled; each round's line gives its time); its rounds
#     weigh CPU time (`by: cpu`, each worker's busy share) and move
#     buckets; SIGTERM stops it. A second later (its last
#     moves drained), BALANCE_CPU_AFTER (4) seconds measured as before.
#  3. Collecting counts: `status` gives the receiving CPU fewer buckets
#     than it started with, and the
#     observer saw its share of the frames fall. Over the whole run no
#     frame arrived after a later one of its flow, and every frame sent
#     was received or counted as dropped (at saturation a worker's ring
#     overflows).
#     The climb: once the rounds call the workers even, the receiving
#     CPU wholly busy, and 8 rounds were counted since the last move
#     (the mean a step is judged against), such a round tries a step (8 %
#     of the frames); the rounds after judge it, moving nothing else,
#     until one keeps it or moves it back, saying by how much and what it
#     needed.
#  4. The median delivered rate after against the one before is shown,
#     not asserted: on the shared 2-vCPU development VM it went from 0.5
#     to 1.3 times, the 1-second windows of one phase apart by up to a
#     half (tests/README.md). BALANCE_CPU_MIN=0.9 asserts after >= 0.9 x
#     before.
# Other work on the CPUs decides where CPU time is: that is what the
# balancer weighs (loader/README.md, "Balancing load"). A worker other
# than the receiving CPU that ran more than BALANCE_CPU_OTHER (20) % of
# user time while the balancer ran (the frames' own work, softirq, NAPI,
# cpumap kthreads and the generator's test runs, is kernel time) rightly
# sheds buckets; they go to the least loaded worker, which is the
# receiving CPU (wholly busy) only if every other worker is as busy. So
# the checks of step 3 on the direction are skipped, saying why, when
# every worker other than the receiving CPU ran that much (on 2 CPUs:
# the one other worker did); one worker with room is enough for them,
# however many CPUs work. The rate's check, when asserted, is skipped if
# any CPU ran that much in the windows before or after. Prints the
# rounds, the rates and shares, and each CPU's user time.
#
# The CPUs: the receiving CPU is $TRAFFIC_RX_CPU (0) and the generator
# runs beside it ($TRAFFIC_CPU, the same CPU), whatever the count; every
# other online CPU is a worker only, with its equal part of the table, so
# the receiving CPU starts with 1/N of the frames. Nothing here assumes
# 2 CPUs: tests/vm/check-kernel.sh runs it on 4 vCPUs (Debian's 6.12,
# under TCG), where it takes about 65 s, hence BALANCE_CPU_LIMIT (60 s,
# the bound on the test's own run time) set higher there.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

BEFORE=${BALANCE_CPU_BEFORE:-4}
RUN=${BALANCE_CPU_RUN:-18}
AFTER=${BALANCE_CPU_AFTER:-4}
MIN=${BALANCE_CPU_MIN:-}
OTHER=${BALANCE_CPU_OTHER:-20}
LIMIT=${BALANCE_CPU_LIMIT:-60}
POLICY=$E2E_ROOT/configs/default.yaml

if ! command -v python3 >/dev/null; then
	skip "all" "python3 missing, needed to read xdp-steer's JSON"
	exit 0
fi
mapfile -t CPUS < <(traffic_online_cpus)
if [ "${#CPUS[@]}" -lt 2 ]; then
	skip "all" "needs at least 2 CPUs to steer between"
	exit 0
fi

e2e_setup
traffic_init
T=$E2E_TMP
xs() { in_b "$XDP_STEER" "$@"; }
now() { date +%s.%N; }
rx_buckets() {
	jget "$(xs status "$IF_B" --json)" \
		"[w['buckets'] for w in d['policy']['workers'] if w['cpu'] == $TRAFFIC_RX_CPU][0]"
}

check "attach with the shipped configs/default.yaml" \
	xs attach "$IF_B" --policy "$POLICY"
traffic_rx_pin >/dev/null || { fail "pinning the receiving CPU"; e2e_done; }
check "the shipped policy: every online CPU works with an equal part of the table (weight 1), balanced by CPU time" \
	json_holds "$(xs status "$IF_B" --json)" \
	"sorted(w['cpu'] for w in d['policy']['workers']) == [${CPUS[*]/%/,}]
	 and max(w['buckets'] for w in d['policy']['workers']) - min(w['buckets'] for w in d['policy']['workers']) <= 1
	 and d['policy']['balance']['enabled'] and d['policy']['balance']['by'] == 'cpu'"
RX_START=$(rx_buckets)

# /proc/stat at: the before windows' start (the traffic's first second,
# its buckets cold, left out), the balancer's start, the after windows'
# start (a second after the balancer stopped), the end.
observer_start --drop --samples "$T/samples" --sample-ms 1000 ||
	{ fail "observer starts"; e2e_done; }
OBS_T0=$(now)
gen_start --group udp4:1000 --rate 0 --duration 0
sleep 1
cp /proc/stat "$T/stat.0"
sleep "$BEFORE"
cp /proc/stat "$T/stat.1"
BAL_T0=$(now)
balancer_start --json
sleep "$RUN"
balancer_stop
RX_END=$(rx_buckets)
sleep 1		# the last round's moves drained
cp /proc/stat "$T/stat.2"
sleep "$AFTER"
cp /proc/stat "$T/stat.3"
BAL_T1=$(now)
gen_stop
observer_stop

# ---- the account -------------------------------------------------------------

python3 - "$T" "$OBS_T0" "$BAL_T0" "$BAL_T1" "$BEFORE" "$AFTER" "$TRAFFIC_RX_CPU" \
	"$BAL_OUT" >"$T/verdict" <<'PY'
import json, statistics, sys
tmp, obs_t0, bal_t0, bal_t1, before_s, after_s, rx, rounds = sys.argv[1:]
start = float(bal_t0) - float(obs_t0)      # observer seconds
end = float(bal_t1) - float(obs_t0)
before_s, after_s, rx = int(before_s), int(after_s), int(rx)
win, prev = [], None
for line in open(tmp + "/samples"):
    f = line.split()
    t, c = float(f[1]), {int(k): int(v) for k, v in (p.split(":") for p in f[2:])}
    if prev:
        d = {k: c.get(k, 0) - prev[1].get(k, 0) for k in set(c) | set(prev[1])}
        win.append((prev[0], t, sum(d.values()) / (t - prev[0]), d))
    prev = (t, c)
parts = {"before": [w for w in win if w[0] >= start - before_s - 0.2 and w[1] <= start],
         "after": [w for w in win if w[0] >= end - after_s - 0.2 and w[1] <= end]}
for name, ws in parts.items():
    frames = {}
    for w in ws:
        for k, n in w[3].items():
            frames[k] = frames.get(k, 0) + n
    tot = sum(frames.values()) or 1
    print("%s_windows %d" % (name, len(ws)))
    print("%s_rate %.0f" % (name, statistics.median(w[2] for w in ws) if ws else 0))
    print("%s_rates %s" % (name, " ".join("%.0f" % w[2] for w in ws)))
    print("%s_rx_share %.1f" % (name, 100.0 * frames.get(rx, 0) / tot))
    print("%s_shares %s" % (name, ", ".join("cpu %d %.1f %%" % (k, 100.0 * frames[k] / tot)
                                            for k in sorted(frames))))

# Other work: user and nice time per CPU between two /proc/stat copies.
def stat(i):
    return {int(f[0][3:]): [int(x) for x in f[1:9]] for f in
            (l.split() for l in open("%s/stat.%d" % (tmp, i))) if f[0][:3] == "cpu" and f[0][3:]}
for name, a, b, cpus in (("before", 0, 1, None), ("balancing", 1, 2, "others"), ("after", 2, 3, None)):
    s0, s1 = stat(a), stat(b)
    u = {c: 100.0 * (s1[c][0] + s1[c][1] - s0[c][0] - s0[c][1]) / max(1, sum(s1[c]) - sum(s0[c]))
         for c in s1 if c in s0}
    print("%s_user %s" % (name, ", ".join("cpu %d %.0f %%" % (c, u[c]) for c in sorted(u))))
    mine = [(u[c], c) for c in sorted(u) if cpus is None or c != rx]
    print("%s_user_max %.0f" % (name, max(mine or [(0, 0)])[0]))
    # The least other work of these CPUs, and which CPU ran it.
    print("%s_user_min %.0f %d" % (name, *min(mine or [(0, 0)])))

rs = [json.loads(l) for l in open(rounds)]
planned = [r for r in rs if r["workers"]]
moved = [r for r in rs if r["applied"] and r["moves"]]
print("by_cpu %d" % (bool(rs) and all(r["by"] == "cpu" for r in rs)))
print("busy_given %d" % (bool(planned) and all("busy" in w for r in planned for w in r["workers"])))
# Each worker's frames a second (sent_per_s): summed, what the table's
# buckets counted (frames_per_s), every frame here being of a bucket.
sums = sorted(sum(w["sent_per_s"] for w in r["workers"]) / r["frames_per_s"]
              for r in planned if r["frames_per_s"] >= 10000
              and all("sent_per_s" in w for w in r["workers"]))
print("sent_sums %.3f %d" % (sums[len(sums) // 2] if sums else 0, len(sums)))
print("moves %d" % sum(len(r["moves"]) for r in moved))
# The climb (model/balance.h): a round whose plan moves nothing, with a
# worker 95 % busy and BALANCE_CLIMB_BEFORE (8) rounds counted since the
# last move (BALANCE_SETTLE_BEFORE, 4, while it settles: 8 holds for
# both), this one included, begins a step unless the climb rests,
# which only follows its settling (1000 flows always make a step); the
# rounds that plan after it judge it until one keeps it or moves it back.
CLIMB_BEFORE = 8
def climb(r, word):
    return r["note"].startswith("climb:") and word in r["note"]
tried = [i for i, r in enumerate(rs) if climb(r, "tried")]
# Rounds that planned since the last one that moved (waiting ones plan
# nothing and count nothing).
since, n = [], 0
for r in rs:
    if r["state"] != "waiting":
        n += 1
    since.append(n)
    if r["applied"]:
        n = 0
# A round where a worker holds (it cannot drain, so it may shed or gain
# nothing: the loader's hold, issue 45) begins no step, by design.
quiet = [i for i, r in enumerate(rs) if r["state"] == "balanced" and not r["note"]
         and since[i] >= CLIMB_BEFORE
         and any(w.get("busy", 0) >= 0.95 for w in r["workers"])
         and not any(w.get("sheds_none") or w.get("gains_none") for w in r["workers"])]
print("climb_tried %d" % len(tried))
print("climb_kept %d" % sum(climb(r, " kept:") for r in rs))
print("climb_back %d" % sum(climb(r, " moved back:") for r in rs))
print("climb_settled %d" % bool(tried or quiet))
print("climb_late_start %d" % bool(quiet and (not tried or quiet[0] < tried[0])))
unjudged = 0
for k, i in enumerate(tried):
    until = tried[k + 1] if k + 1 < len(tried) else len(rs)
    later = [r for r in rs[i + 1:until] if r["state"] != "waiting"]
    if not later:
        continue
    # Judging rounds move nothing; the verdict follows them.
    while len(later) > 1 and climb(later[0], "judging") and not later[0]["applied"]:
        later = later[1:]
    j, step = later[0], {m["bucket"] for m in rs[i]["moves"]}
    if climb(j, "judging") and not j["applied"]:
        continue
    if not ((climb(j, " kept:") and not j["moves"] and "needed" in j["note"]) or
            (climb(j, " moved back:") and "needed" in j["note"] and
             {m["bucket"] for m in j["moves"]} == step)):
        unjudged += 1
print("climb_unjudged %d" % unjudged)
print("log")
for r in rs:
    print("  round %d at %.1f s %s: %d moves; cpu time %s; %.0f frames/s" %
          (r["round"], r["time"] - rs[0]["time"] + rs[0]["seconds"], r["state"],
           len(r["moves"]) if r["applied"] else 0,
           ", ".join("%d %.0f%%" % (w["cpu"], 100 * w.get("busy", 0)) for w in r["workers"]) or "-",
           r["frames_per_s"]))
PY
v() { awk -v k="$1" '$1 == k {sub(/^[^ ]+ /, ""); print; exit}' "$T/verdict"; }
sed -n '/^log/,$p' "$T/verdict" | sed 1d
for w in before after; do
	echo "  $w: median $(v ${w}_rate) frames/s delivered (1-s windows: $(v ${w}_rates));" \
		"frames $(v ${w}_shares); user time $(v ${w}_user)"
done
echo "  user time while balancing: $(v balancing_user)"

check "the balancer's rounds weigh CPU time (by: cpu, each worker's busy share)" \
	bash -c "[ $(v by_cpu) = 1 ] && [ $(v busy_given) = 1 ] || { cat $BAL_OUT.err; false; }"
check "each worker's frames a second in the rounds sum to the frames counted (median $(v sent_sums | cut -d' ' -f1) of them, over $(v sent_sums | cut -d' ' -f2) rounds)" \
	awk -v s="$(v sent_sums)" 'BEGIN { split(s, x, " "); exit !(x[2] > 0 && x[1] > 0.95 && x[1] < 1.05) }'
check "the balancer moved buckets ($(v moves))" test "$(v moves)" -ge 1
check "SIGTERM stops the balancer with exit 0" test "$BAL_RC" = 0
if [ "$(v climb_settled)" = 0 ]; then
	skip "the climb" "no round left the workers even with one 95 % busy and none holding (moving buckets until the balancer stopped, or a worker that could not drain)"
else
	check "the climb: the first round that left the workers even with one 95 % busy, 8 rounds after the last move, began a step ($(v climb_tried) tried, $(v climb_kept) kept, $(v climb_back) moved back)" \
		test "$(v climb_late_start)" = 0
	check "the climb: the rounds after each step judged it, moving nothing else, until one kept it or moved it back, saying the gain it needed" \
		test "$(v climb_unjudged)" = 0
fi
read -r ROOM ROOM_CPU <<<"$(v balancing_user_min)"
if [ "$ROOM" -gt "$OTHER" ]; then
	skip "collecting counts: the receiving cpu sheds buckets" \
		"every worker but the receiving cpu ran over $OTHER % of other work while the balancer ran (the least, cpu $ROOM_CPU, $ROOM %): they shed buckets themselves"
else
	check "collecting counts: the receiving cpu $TRAFFIC_RX_CPU holds fewer buckets than it started with ($RX_START -> $RX_END)" \
		test "$RX_END" -lt "$RX_START"
	check "collecting counts: the observer saw the receiving cpu's share of the frames fall ($(v before_rx_share) % -> $(v after_rx_share) %)" \
		python3 -c "import sys; sys.exit(0 if $(v after_rx_share) < $(v before_rx_share) else 1)"
fi
RATES="medians $(v before_rate) -> $(v after_rate) frames/s"
if [ -z "$MIN" ]; then
	echo "  delivered rate, $RATES (shown, not asserted; BALANCE_CPU_MIN=0.9 asserts it)"
elif [ "$(v before_user_max)" -gt "$OTHER" ] || [ "$(v after_user_max)" -gt "$OTHER" ]; then
	skip "the delivered rate after the balancer against before" \
		"a CPU ran over $OTHER % of other work in the windows compared"
else
	check "the delivered rate after is at least $MIN x the rate before ($RATES)" \
		python3 -c "import sys; sys.exit(0 if $(v before_windows) >= $((BEFORE - 1)) and $(v after_windows) >= $((AFTER - 1)) and $(v after_rate) >= $MIN * $(v before_rate) else 1)"
fi
check "no frame arrived after a later one of its flow" traffic_not_late "$OBS_REPORT"
check "every frame sent was received or counted as dropped" traffic_accounted "$OBS_REPORT"
echo "  $(traffic_summary "$OBS_REPORT")"
echo "  drops: $(traffic_drops_detail "$OBS_REPORT")"
check "the test ran in under $LIMIT s ($SECONDS s)" test "$SECONDS" -lt "$LIMIT"
e2e_done
