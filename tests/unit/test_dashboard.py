#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Unit tier (no root): the Grafana dashboard (loader/dist/grafana-xdp-steer.json)
against what `xdp-steer stats --prometheus` really prints.

- The file is valid JSON, a dashboard Grafana can import: a title and
  uid, panels with unique ids inside the 24-column grid, each query on the
  dashboard's data source variable.
- Every metric name in every query (panel targets and the template
  variables' queries) is one the exporter prints, as tests/unit/prom_sample
  runs the printer (loader/cli/print_prom.c) on a sample with every family:
  no copy of the list. Every label a query selects on, groups by or
  matches on is one those metrics carry (or Prometheus adds: instance,
  job; or the query makes with label_replace).
- Every encapsulation the exporter counts has its line in the
  per-encapsulation panel.
- Every query parses as PromQL (`promtool check rules`, the dashboard's
  variables replaced by values), when promtool is there; and the queries
  that join or combine metrics give the right numbers on series shaped
  as the exporter's (`promtool test rules`, one row per query: the
  worker load share, which adds a CPU's local passes to what was sent to
  it, and the frames in flight).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DASHBOARD = os.path.join(ROOT, "loader", "dist", "grafana-xdp-steer.json")
SAMPLE = os.path.join(ROOT, "tests", "unit", "prom_sample")
ADDED = {"instance", "job"}  # labels Prometheus adds to every series scraped
failed = False


def result(ok, name, detail=""):
    global failed
    print(("PASS" if ok else "FAIL") + " dashboard: " + name)
    if not ok:
        failed = True
        for line in str(detail).splitlines()[:20]:
            print("  " + line)


def exported():
    """{metric: set of labels} as the printer prints them."""
    out = subprocess.run([SAMPLE], capture_output=True, text=True, check=True).stdout
    fams = {}
    for line in out.splitlines():
        m = re.match(r"^# TYPE (\S+) (\S+)$", line)
        if m:
            fams[m.group(1)] = set()
            continue
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} \S+$", line)
        if m:
            fams.setdefault(m.group(1), set()).update(
                re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(2)))
    return fams


def walk_panels(panels):
    for p in panels:
        yield p
        yield from walk_panels(p.get("panels", []))


def queries(dash):
    """[(where, PromQL)]: every panel target's expr and every template
    variable's query."""
    out = []
    for p in walk_panels(dash.get("panels", [])):
        for t in p.get("targets", []):
            out.append(("panel '%s' target %s" % (p.get("title"), t.get("refId")), t.get("expr", "")))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v.get("query")
        q = q.get("query", "") if isinstance(q, dict) else q or ""
        out.append(("variable $%s" % v["name"], q))
    return out


NAME = re.compile(r"\bxdp_steer_[a-zA-Z0-9_]+")


def strip_strings(q):
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', q)


def names_in(q):
    return set(NAME.findall(strip_strings(q)))


def bad_names(qs, fams):
    bad = []
    for where, q in qs:
        names = names_in(q)
        if not names:
            bad.append("%s names no xdp_steer metric: %s" % (where, q))
        bad += ["%s: %s is not a metric the exporter prints" % (where, n)
                for n in sorted(names - set(fams))]
    return bad


def bad_labels(qs, fams):
    bad = []
    for where, q in qs:
        made = set(re.findall(r'label_replace\([^"]*"([a-zA-Z_][a-zA-Z0-9_]*)"', q))
        known = set(ADDED) | made
        for n in names_in(q):
            known |= fams.get(n, set())
        # Selectors: name{label=~"...", ...}
        for name, body in re.findall(r"\b(xdp_steer_[a-zA-Z0-9_]+)\{([^}]*)\}", q):
            for label in re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"', body):
                if label not in fams.get(name, set()) | ADDED:
                    bad.append("%s: %s has no label %s" % (where, name, label))
        # Grouping and matching: by (...), without (...), on (...), ignoring (...)
        for clause in re.findall(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)",
                                 strip_strings(q)):
            for label in re.findall(r"[a-zA-Z_][a-zA-Z0-9_]*", clause):
                if label not in known:
                    bad.append("%s: groups or matches on %s, which none of its metrics has" % (where, label))
    return bad


def promql(q):
    """A dashboard query with its variables given values."""
    return (q.replace("$__rate_interval", "5m")
             .replace("$instance", ".*").replace("$interface", ".*"))


# Queries that join or combine metrics, run on series labelled as the
# exporter labels them (and as Prometheus adds instance and job), one
# sample a minute: (panel title, description, {series: values},
# expected {labels: value} at 6 minutes).
L = 'instance="h", job="node", interface="eth1"'
EVAL_CASES = [
    ("Worker load share",
     "the worker load share adds a CPU's local passes to what was sent to it; a worker without a passed_local series keeps its sent",
     {'xdp_steer_worker_sent_total{%s, worker="0"}' % L: "0+0x10",
      'xdp_steer_worker_sent_total{%s, worker="1"}' % L: "0+60x10",
      'xdp_steer_worker_sent_total{%s, worker="2"}' % L: "0+30x10",
      'xdp_steer_passed_local_total{%s, cpu="0"}' % L: "0+120x10",
      'xdp_steer_passed_local_total{%s, cpu="1"}' % L: "0+0x10",
      'xdp_steer_passed_local_total{%s, cpu="3"}' % L: "0+600x10"},
     {'{instance="h", interface="eth1", worker="0"}': 2,
      '{instance="h", interface="eth1", worker="1"}': 1,
      '{instance="h", interface="eth1", worker="2"}': 0.5}),
    ("Frames in flight per worker",
     "the frames in flight are sent - delivered - ring-full drops, per worker",
     {'xdp_steer_worker_sent_total{%s, worker="1"}' % L: "100x10",
      'xdp_steer_worker_delivered_total{%s, worker="1"}' % L: "70x10",
      'xdp_steer_worker_ring_full_drops_total{%s, worker="1"}' % L: "20x10"},
     {'{instance="h", interface="eth1", worker="1"}': 10}),
]


def eval_cases(promtool, dash, tmp):
    exprs = {p.get("title"): [t["expr"] for t in p.get("targets", [])]
             for p in walk_panels(dash.get("panels", []))}
    for title, desc, series, want in EVAL_CASES:
        if len(exprs.get(title, [])) != 1:
            result(False, desc, "no panel '%s' with one query" % title)
            continue
        test = {"evaluation_interval": "1m", "tests": [{
            "interval": "1m",
            "input_series": [{"series": k, "values": v} for k, v in series.items()],
            "promql_expr_test": [{"expr": promql(exprs[title][0]), "eval_time": "6m",
                                  "exp_samples": [{"labels": k, "value": v}
                                                  for k, v in want.items()]}]}]}
        path = os.path.join(tmp, "eval.yml")
        with open(path, "w") as f:
            json.dump(test, f)
        p = subprocess.run([promtool, "test", "rules", path], capture_output=True, text=True)
        result(p.returncode == 0, desc + " (promtool test rules)", p.stdout + p.stderr)


def main():
    try:
        with open(DASHBOARD) as f:
            dash = json.load(f)
        result(True, "grafana-xdp-steer.json is valid JSON")
    except (OSError, ValueError) as e:
        result(False, "grafana-xdp-steer.json is valid JSON", e)
        return 1
    if not os.access(SAMPLE, os.X_OK):
        result(False, "the exporter's sample printer is built", "%s missing: run make" % SAMPLE)
        return 1
    fams = exported()
    result(len(fams) > 30 and "xdp_steer_worker_ring_full_drops_total" in fams,
           "the exporter's sample printer prints every family (%d)" % len(fams), sorted(fams))

    panels = list(walk_panels(dash.get("panels", [])))
    ids = [p.get("id") for p in panels]
    result(bool(dash.get("title")) and bool(dash.get("uid")) and panels
           and len(ids) == len(set(ids)) and None not in ids,
           "it is a dashboard: title, uid, panels with unique ids", ids)
    out_of_grid = ["%s: %s" % (p.get("title"), p.get("gridPos")) for p in panels
                   if p.get("gridPos", {}).get("x", 0) + p.get("gridPos", {}).get("w", 0) > 24
                   or p.get("gridPos", {}).get("w", 0) <= 0]
    result(not out_of_grid, "every panel lies inside Grafana's 24-column grid", "\n".join(out_of_grid))
    var_names = {v.get("name") for v in dash.get("templating", {}).get("list", [])}
    wrong_ds = ["%s" % p.get("title") for p in panels if p.get("type") != "row" and
                (p.get("datasource", {}).get("uid") != "${datasource}" or
                 any(t.get("datasource", {}).get("uid") != "${datasource}" for t in p.get("targets", [])))]
    result("datasource" in var_names and not wrong_ds,
           "every panel and query reads the data source the $datasource variable picks", "\n".join(wrong_ds))

    qs = queries(dash)
    result(len(qs) > 20, "the dashboard has its queries (%d)" % len(qs))
    bad = bad_names(qs, fams)
    result(not bad, "every metric every query names is one stats --prometheus prints", "\n".join(bad))
    result(bad_names([("a made-up query", "rate(xdp_steer_no_such_total[5m])")], fams),
           "  (and a name it does not print is caught)")
    bad = bad_labels(qs, fams)
    result(not bad, "every label a query selects, groups or matches on is one its metrics carry", "\n".join(bad))
    result(bad_labels([("a made-up query", 'sum by (cpu) (rate(xdp_steer_worker_sent_total{interface="x"}[5m]))')], fams),
           "  (and a receiving CPU's label on a worker metric is caught)")

    used = set().union(*(names_in(q) for _, q in qs))
    encaps = {n for n in fams if re.match(r"^xdp_steer_encap_.*_total$", n)}
    result(encaps and encaps <= used,
           "every encapsulation the exporter counts is on the dashboard (%d)" % len(encaps),
           "missing: %s" % sorted(encaps - used))

    promtool = shutil.which("promtool")
    if not promtool:
        print("SKIP dashboard: every query parses as PromQL, and the joined ones compute "
              "(promtool missing: Debian package prometheus; make test installs it)")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            rules = {"groups": [{"name": "dashboard", "rules": []}]}
            for i, (where, q) in enumerate(qs):
                if where.startswith("variable"):
                    m = re.match(r"^label_values\((.*),\s*[a-zA-Z_]+\)$", q)
                    q = m.group(1) if m else q
                q = promql(q)
                rules["groups"][0]["rules"].append({"record": "dashboard:q%d" % i, "expr": q})
            path = os.path.join(tmp, "rules.yml")
            with open(path, "w") as f:
                json.dump(rules, f)  # YAML is a superset of JSON
            p = subprocess.run([promtool, "check", "rules", path], capture_output=True, text=True)
            result(p.returncode == 0, "every query parses as PromQL (promtool check rules)",
                   p.stdout + p.stderr)
            eval_cases(promtool, dash, tmp)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
