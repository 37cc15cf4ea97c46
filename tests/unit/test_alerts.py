#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Unit tier (no root): the Prometheus alerting rules
(loader/dist/xdp-steer.rules.yml) against what `xdp-steer stats
--prometheus` really prints, and against their tests.

- Every rule is an alert with a `for:`, a comment above it that says why
  its threshold and its duration, a severity label (critical, warning or
  info), a summary, and a description that names the command to run
  next.
- Every metric name in every expression is one the exporter prints, as
  tests/unit/prom_sample runs the printer (loader/cli/print_prom.c) on a
  sample with every family, no copy of the list; or one of the few that
  node_exporter and Prometheus make (node_textfile_mtime_seconds, up).
  Every label an expression selects on, sums without or matches on is one
  its metrics carry. The series of the rules' tests are named and
  labelled as the exporter's too, so the tests cannot drift from it.
- `promtool check rules` accepts the file, and `promtool test rules`
  passes tests/unit/xdp-steer.rules.test.yml: series that fire each
  alert, and series that must not (normal traffic, a burst, a blip
  shorter than its `for:`).
- loader/README.md (the man page's MONITORING) names every alert.
- The tests can fail: each alert has a case where it fires and one where
  it must not; with its expression broken (it never fires) the tests
  fail, and with its `for:` taken away they fail too.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RULES = os.path.join(ROOT, "loader", "dist", "xdp-steer.rules.yml")
TESTS = os.path.join(HERE, "xdp-steer.rules.test.yml")
SAMPLE = os.path.join(HERE, "prom_sample")
# Metrics of others the rules may use: node_exporter's textfile collector
# (the file's age) and Prometheus's own (whether the node is scraped).
FOREIGN = {"node_textfile_mtime_seconds": {"file"}, "up": set()}
SEVERITIES = {"critical", "warning", "info"}
failed = False

sys.path.insert(0, HERE)
import test_dashboard as dash  # noqa: E402  (exported(), names_in(), bad_labels())

try:
    import yaml
except ImportError:
    yaml = None


def result(ok, name, detail=""):
    global failed
    print(("PASS" if ok else "FAIL") + " alerts: " + name)
    if not ok:
        failed = True
        for line in str(detail).splitlines()[:20]:
            print("  " + line)


def alerts_of(rules):
    return [r for g in rules.get("groups", []) for r in g.get("rules", [])]


def comment_above(text, name):
    """The comment lines right above '- alert: name' in the file."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^\s*- alert: %s\s*$" % re.escape(name), line):
            j = i
            while j > 0 and lines[j - 1].strip().startswith("#"):
                j -= 1
            return " ".join(l.strip().lstrip("#").strip() for l in lines[j:i])
    return ""


def bad_shapes(rules, text):
    bad = []
    names = set()
    for r in alerts_of(rules):
        a = r.get("alert")
        if not a:
            bad.append("a rule that is no alert: %s" % r)
            continue
        if a in names:
            bad.append("%s: two alerts of that name" % a)
        names.add(a)
        if not r.get("for"):
            bad.append("%s: no for:" % a)
        if r.get("labels", {}).get("severity") not in SEVERITIES:
            bad.append("%s: severity %r is none of %s" % (a, r.get("labels", {}).get("severity"), sorted(SEVERITIES)))
        ann = r.get("annotations", {})
        if not ann.get("summary"):
            bad.append("%s: no summary" % a)
        if not re.search(r"`(xdp-steer|systemctl|journalctl) [^`]+`", ann.get("description", "")):
            bad.append("%s: its description names no command to run (`xdp-steer ...`, `systemctl ...`)" % a)
        if len(comment_above(text, a)) < 80:
            bad.append("%s: no comment above it saying why its threshold and its for:" % a)
    return bad


def bad_metrics(rules, fams):
    """Names and labels of every expression, against the exporter's."""
    known = dict(fams)
    known.update(FOREIGN)
    bad = []
    qs = [("alert %s" % r.get("alert"), r.get("expr", "")) for r in alerts_of(rules)]
    for where, q in qs:
        if not dash.names_in(q) and not any(re.search(r"\b%s\b" % n, q) for n in FOREIGN):
            bad.append("%s names no metric of xdp-steer or of its textfile: %s" % (where, q))
        bad += ["%s: %s is not a metric the exporter prints" % (where, n)
                for n in sorted(dash.names_in(q) - set(fams))]
        # Selectors on the foreign metrics: labels they have.
        for name, body in re.findall(r"\b(node_[a-zA-Z0-9_]+|up)\{([^}]*)\}", q):
            for label in re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"', body):
                if label not in known.get(name, set()) | dash.ADDED:
                    bad.append("%s: %s has no label %s" % (where, name, label))
    bad += dash.bad_labels(qs, fams)
    return bad


def bad_series(tests, fams):
    """Every series of the rules' tests named and labelled as the
    exporter (or node_exporter, Prometheus) names and labels it."""
    bad = []
    known = dict(fams)
    known.update(FOREIGN)
    for t in tests.get("tests", []):
        for s in t.get("input_series", []):
            m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\}$", s["series"].strip())
            if not m or m.group(1) not in known:
                bad.append("test '%s': %s is not a metric the exporter prints" % (t.get("name"), s["series"]))
                continue
            labels = set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"', m.group(2)))
            extra = labels - known[m.group(1)] - dash.ADDED
            if extra:
                bad.append("test '%s': %s has labels the exporter does not give it: %s"
                           % (t.get("name"), s["series"], sorted(extra)))
    return bad


def coverage(rules, tests):
    """Alerts without a case where they fire, or one where they must not."""
    fires, quiet = set(), set()
    for t in tests.get("tests", []):
        for c in t.get("alert_rule_test", []):
            (fires if c.get("exp_alerts") else quiet).add(c.get("alertname"))
    names = [r["alert"] for r in alerts_of(rules) if "alert" in r]
    return ([n for n in names if n not in fires], [n for n in names if n not in quiet])


def promtool_test(promtool, rules, tests, tmp, only=None):
    """`promtool test rules` of 'tests' against the rules 'rules' (dicts),
    written to tmp; with 'only', the tests of that alert alone (a
    fourteenth of the time). (ok, output)."""
    rpath = os.path.join(tmp, "rules.yml")
    tpath = os.path.join(tmp, "tests.yml")
    with open(rpath, "w") as f:
        yaml.safe_dump(rules, f, sort_keys=False)
    t = dict(tests)
    t["rule_files"] = [rpath]
    if only:
        t["tests"] = [g for g in tests["tests"]
                      if any(c.get("alertname") == only for c in g.get("alert_rule_test", []))]
    with open(tpath, "w") as f:
        yaml.safe_dump(t, f, sort_keys=False)
    p = subprocess.run([promtool, "test", "rules", tpath], capture_output=True, text=True)
    return p.returncode == 0, p.stdout + p.stderr


def mutated(rules, name, **change):
    """A copy of 'rules' with alert 'name' changed."""
    out = {"groups": []}
    for g in rules["groups"]:
        rs = []
        for r in g["rules"]:
            r = dict(r)
            if r.get("alert") == name:
                r.update(change)
            rs.append(r)
        out["groups"].append(dict(g, rules=rs))
    return out


def main():
    if yaml is None:
        result(False, "PyYAML is there to read the rules", "python3 has no yaml module: Debian package python3-yaml (make test installs it)")
        return 1
    try:
        with open(RULES) as f:
            text = f.read()
        rules = yaml.safe_load(text)
        with open(TESTS) as f:
            tests = yaml.safe_load(f)
        result(True, "xdp-steer.rules.yml and its tests are valid YAML")
    except (OSError, yaml.YAMLError) as e:
        result(False, "xdp-steer.rules.yml and its tests are valid YAML", e)
        return 1
    if not os.access(SAMPLE, os.X_OK):
        result(False, "the exporter's sample printer is built", "%s missing: run make" % SAMPLE)
        return 1
    fams = dash.exported()
    result("xdp_steer_balancer_running" in fams and "xdp_steer_worker_ring_full_drops_total" in fams,
           "the exporter's sample printer prints every family (%d)" % len(fams), sorted(fams))

    names = [r.get("alert") for r in alerts_of(rules)]
    result(len(names) >= 10, "the rules have their alerts (%d)" % len(names), names)
    bad = bad_shapes(rules, text)
    result(not bad, "every alert has a for:, a severity, a summary, a next command and a comment saying why", "\n".join(bad))

    bad = bad_metrics(rules, fams)
    result(not bad, "every metric and label every alert uses is one the exporter prints", "\n".join(bad))
    renamed = mutated(rules, names[0], expr="rate(xdp_steer_worker_ring_full_drop_total[5m]) > 0")
    result(bad_metrics(renamed, fams), "  (and a renamed metric is caught)")
    wrong = mutated(rules, names[0], expr="sum without (worker) (rate(xdp_steer_drain_stalled_total[5m])) > 0")
    result(bad_metrics(wrong, fams), "  (and a worker's label on a receiving CPU's metric is caught)")
    bad = bad_series(tests, fams)
    result(not bad, "every series of the rules' tests is named and labelled as the exporter's", "\n".join(bad))

    with open(os.path.join(ROOT, "loader", "README.md")) as f:
        readme = f.read()
    missing = [n for n in names if "`%s`" % n not in readme]
    result(not missing, "loader/README.md names every alert", "missing: %s" % missing)

    never, always = coverage(rules, tests)
    result(not never, "every alert has a test where it fires", "none for: %s" % never)
    result(not always, "every alert has a test where it must not fire", "none for: %s" % always)

    promtool = shutil.which("promtool")
    if not promtool:
        print("SKIP alerts: promtool check rules, promtool test rules, and the broken rules they catch "
              "(promtool missing: Debian package prometheus; make test installs it)")
        return 1 if failed else 0
    p = subprocess.run([promtool, "check", "rules", RULES], capture_output=True, text=True)
    result(p.returncode == 0, "promtool check rules accepts xdp-steer.rules.yml", p.stdout + p.stderr)
    p = subprocess.run([promtool, "test", "rules", TESTS], capture_output=True, text=True)
    result(p.returncode == 0, "promtool test rules: each alert fires where it must and only there", p.stdout + p.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        ok, out = promtool_test(promtool, rules, tests, tmp)
        result(ok, "  (and the rules pass as rewritten for the checks below)", out)
        missed_expr, missed_for = [], []
        for n in names:
            ok, _ = promtool_test(promtool, mutated(rules, n, expr="vector(0) > 1"), tests, tmp, n)
            if ok:
                missed_expr.append(n)
            ok, _ = promtool_test(promtool, mutated(rules, n, **{"for": "0s"}), tests, tmp, n)
            if ok:
                missed_for.append(n)
        result(not missed_expr, "an alert whose expression is broken (never fires) fails the tests, each alert",
               "not caught: %s" % missed_expr)
        result(not missed_for, "an alert without its for: (fires at once) fails the tests, each alert",
               "not caught: %s" % missed_for)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
