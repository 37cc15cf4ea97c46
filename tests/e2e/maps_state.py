#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# maps_state.py PIN_DIR: one line "key=value ..." describing what the pinned
# maps of an interface hold for the active slot, read with bpftool (BTF
# formatted), independent of `xdp-steer status`, for the root-tier tests:
#   slot gen table_size table (CPUxBUCKETS,...) table_digest (of every
#   bucket in order) flow (exact-field rules of the active slot) src dst
#   (its prefix rules on the source, the destination) queue bank
#   cpumap (CPU:QSIZE:prog|noprog[:b1],... both banks; ":b1" for bank 1)
# maps_state.py --serve PIN_DIR: the same line, read afresh, for every line
# read on stdin, until EOF: for a test that reads the maps hundreds of
# times without paying Python's start (0.15 s on the development VM) each
# time. A reading that fails prints "error=..." instead.
import hashlib, json, subprocess, sys

TABLE_MAX = 4096
PREFIX_SRC, PREFIX_DST = 1 << 5, 1 << 6     # STEER_M_PREFIX_* in xdp_steer/keys.h

def state(pin):
    dumps = {}
    def dump(name):
        if name not in dumps:
            out = subprocess.check_output(["bpftool", "-j", "map", "dump",
                                           "pinned", pin + "/" + name])
            dumps[name] = json.loads(out)
        return dumps[name]
    active = dump("steer_ctl")[0]["formatted"]["value"]["active"] & 1
    slot = [e["formatted"]["value"] for e in dump("steer_slots")
            if e["formatted"]["key"] == active][0]
    table = {e["formatted"]["key"]: e["formatted"]["value"] for e in dump("steer_table")}
    buckets = [table[active * TABLE_MAX + i] for i in range(slot["table_size"])]
    count = {}
    for c in buckets:
        count[c] = count.get(c, 0) + 1
    def in_slot(name, shape_bit=0):
        return sum(1 for e in dump(name) if e["formatted"]["key"]["slot"] == active
                   and (not shape_bit or e["formatted"]["key"]["shape"] & shape_bit))
    # Both cpumap banks: a new queue size goes into the bank not in use.
    cpumap = []
    for bank, name in enumerate(("cpu_map", "cpu_map_b")):
        for e in dump(name):
            v = e["value"]
            if isinstance(v, dict):
                continue                    # "error": no entry
            b = bytes(int(x, 16) for x in v)
            cpu = int.from_bytes(bytes(int(x, 16) for x in e["key"]), "little")
            qsize = int.from_bytes(b[0:4], "little")
            prog = int.from_bytes(b[4:8], "little")
            cpumap.append("%d:%d:%s%s" % (cpu, qsize, "prog" if prog else "noprog",
                                         ":b1" if bank else ""))
    return "slot=%d gen=%d table_size=%d table=%s table_digest=%s flow=%d src=%d dst=%d queue=%d bank=%d cpumap=%s" % (
        active, slot["generation"], slot["table_size"],
        ",".join("%dx%d" % (c, n) for c, n in sorted(count.items())) or "-",
        hashlib.sha1(json.dumps(buckets).encode()).hexdigest()[:12],
        in_slot("flow_rules"), in_slot("prefix_rules", PREFIX_SRC),
        in_slot("prefix_rules", PREFIX_DST),
        slot["queue_size"], slot["bank"], ",".join(cpumap) or "-")

if sys.argv[1] == "--serve":
    for _ in sys.stdin:
        try:
            line = state(sys.argv[2])
        except Exception as e:          # say so, keep serving
            line = "error=" + repr(e).replace(" ", "_")
        print(line, flush=True)
else:
    print(state(sys.argv[1]))
