#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Unit tier (no root): the man pages, made from README.md as the build
makes them (loader/dist/readme2man.py), against what the loader knows.

- Both pages format without a warning (`man --warnings`, and groff with
  every warning on) and fit 80 columns.
- xdp-steer(8): every command of `xdp-steer help` has an entry under
  COMMANDS, every option its usage names is in that entry, and every option
  the entry names is one the command takes; the global options of the
  overview are the OPTIONS; the exit codes of loader/cli/cmd.h are under
  EXIT STATUS.
- xdp-steer.yaml(5): every key the policy parser accepts (its *keys tables
  in loader/policy/) is a term of the page, every term names only keys the
  parser accepts, every word a key may take (hash kinds, rebalance modes,
  protocol names) is in the page, and each default the page states is what
  `xdp-steer check` fills in for a bare `version: 1`.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
XDP_STEER = os.environ.get("XDP_STEER", os.path.join(ROOT, "loader", "xdp-steer"))
failed = False


def result(ok, name, detail=""):
    global failed
    print(("PASS" if ok else "FAIL") + " docs: " + name)
    if not ok:
        failed = True
        for line in str(detail).splitlines()[:20]:
            print("  " + line)


def run(*cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


# ---- reading a page --------------------------------------------------------

def plain(roff):
    """Roff text as a reader sees it, for comparing words."""
    s = re.sub(r"\\f[BIRP]", "", roff)
    for a, b in (("\\-", "-"), ("\\&", ""), ("\\(aq", "'"), ("\\(ga", "`"),
                 ("\\(ha", "^"), ("\\(ti", "~"), ("\\e", "\\")):
        s = s.replace(a, b)
    return s


def sections(roff):
    """{SECTION: [lines]} of a page."""
    out, cur = {}, None
    for line in roff.split("\n"):
        m = re.match(r'^\.SH "?([^"]*)"?$', line)
        if m:
            cur = out.setdefault(m.group(1), [])
        elif cur is not None:
            cur.append(line)
    return out


def entries(lines):
    """[(term, [term of each nested entry], text)] of a section's top-level
    tagged paragraphs (.TP), nesting by .RS/.RE."""
    out, depth, i = [], 0, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(".RS"):
            depth += 1
        elif line.startswith(".RE"):
            depth -= 1
        elif line == ".TP" and i + 1 < len(lines):
            t = plain(lines[i + 1])
            if depth == 0:
                out.append([t, [], ""])
            elif out:
                out[-1][1].append(t)
            i += 1
        elif out and not line.startswith("."):
            out[-1][2] += plain(line) + "\n"
        i += 1
    return out


def make_page(name, tmp):
    path = os.path.join(tmp, name)
    rc, out, err = run(sys.executable, os.path.join(ROOT, "loader/dist/readme2man.py"),
                       os.path.join(ROOT, "README.md"),
                       os.path.join(ROOT, "loader/README.md"), name, "--version", "test")
    if rc:
        return None, err
    with open(path, "w") as f:
        f.write(out)
    return path, out


# ---- what the loader knows -------------------------------------------------

def loader_commands():
    """{command: set of its long options} from the overview and usages."""
    rc, out, _ = run(XDP_STEER, "help")
    block = out.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
    cmds = {}
    for line in block.split("\n"):
        name = line.split()[0]
        _, usage, _ = run(XDP_STEER, name, "--help")
        cmds[name] = set(re.findall(r"--[a-z][a-z-]*", usage.split("\n")[0]))
    return cmds


def loader_global_options():
    _, out, _ = run(XDP_STEER, "--help")
    block = out.split("\noptions", 1)[1].split("\n", 1)[1]
    # "  -v, --verbose  what it does": the options, before the two spaces.
    heads = re.findall(r"^  (-\S.*?)(?:  |$)", block, re.M)
    return set(re.findall(r"(?<![\w-])--?[A-Za-z][a-z-]*", " ".join(heads)))


def policy_tables():
    """(keys, words): the strings of the parser's *keys tables, and of its
    other tables (the words a key may take)."""
    keys, words = set(), set()
    pdir = os.path.join(ROOT, "loader", "policy")
    for fn in sorted(os.listdir(pdir)):
        if not fn.endswith(".c"):
            continue
        src = open(os.path.join(pdir, fn)).read()
        for name, body in re.findall(
                r"static const (?:char \*const|struct \{[^}]*\})\s+(\w+)\[\w*\]\s*=\s*\{(.*?)\};",
                src, re.S):
            strings = set(re.findall(r'"([^"]*)"', body))
            (keys if name.endswith("keys") else words).update(strings)
    return keys, words


def check_defaults():
    """{key path: value} that `check` fills in for a bare policy."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("version: 1\n")
    try:
        rc, out, err = run(XDP_STEER, "check", f.name)
    finally:
        os.unlink(f.name)
    if rc:
        raise RuntimeError(err)
    got = {}
    for line in out.split("\n"):
        m = re.match(r"^(\w+): (.*)$", line)
        if not m or m.group(1) == "version":
            continue
        k, v = m.groups()
        if v.startswith("{"):
            for kv in v.strip("{}").split(","):
                sk, sv = kv.split(":")
                got[f"{k}.{sk.strip()}"] = sv.strip()
        else:
            got[k] = v
    return got


# ---- the checks ------------------------------------------------------------

def check_format(path, name):
    env = dict(os.environ, MANWIDTH="80")
    env.pop("MAN_KEEP_FORMATTING", None)  # any value keeps overstrikes
    rc, out, err = run("man", "--warnings", "-l", path, env=env)
    result(rc == 0 and not err.strip(),
           f"{name}: man --warnings -l prints no warning", err)
    rc, _, err = run("groff", "-ww", "-z", "-man", path)
    result(rc == 0 and not err.strip(),
           f"{name}: groff -ww (every warning) prints none", err)
    wide = [l for l in out.split("\n") if len(l) > 80]
    result(not wide, f"{name}: fits 80 columns", "\n".join(wide))


def check_page8(roff):
    secs = sections(roff)
    cmd_entries = entries(secs.get("COMMANDS", []))
    cmds = loader_commands()
    result(len(cmds) >= 7, "the loader's overview lists its commands",
           sorted(cmds))
    for cmd, opts in sorted(cmds.items()):
        mine = [e for e in cmd_entries if e[0].split()[0] == cmd]
        result(bool(mine), f"xdp-steer.8: command '{cmd}' has an entry under COMMANDS",
               [e[0] for e in cmd_entries])
        text = "".join(e[0] + "\n" + "\n".join(e[1]) + "\n" + e[2] for e in mine)
        missing = sorted(o for o in opts if o not in re.findall(r"--[a-z][a-z-]*", text))
        result(not missing, f"xdp-steer.8: every option of '{cmd}' (its usage) is in its entry",
               f"missing: {missing}")
        named = set()
        for e in mine:
            for t in [e[0]] + e[1]:
                named.update(re.findall(r"--[a-z][a-z-]*", t))
        extra = sorted(named - opts - {"--help", "--verbose"})
        result(not extra, f"xdp-steer.8: '{cmd}' documents no option it does not take",
               f"not taken: {extra}")
    unknown = sorted({e[0].split()[0] for e in cmd_entries} - set(cmds))
    result(not unknown, "xdp-steer.8: COMMANDS has no command the loader lacks",
           unknown)

    opt_terms = set()
    for e in entries(secs.get("OPTIONS", [])):
        opt_terms.update(re.findall(r"(?<![\w-])--?[A-Za-z][a-z-]*", e[0]))
    glob = loader_global_options()
    result(bool(glob) and glob == opt_terms,
           "xdp-steer.8: OPTIONS are the overview's global options",
           f"loader: {sorted(glob)}\npage: {sorted(opt_terms)}")

    codes = {"0"} | set(re.findall(r"#define EXIT_\w+\s+(\d+)",
                                   open(os.path.join(ROOT, "loader/cli/cmd.h")).read()))
    got = {e[0].strip() for e in entries(secs.get("EXIT STATUS", []))}
    result(codes == got, "xdp-steer.8: EXIT STATUS lists the exit codes of loader/cli/cmd.h",
           f"cmd.h: {sorted(codes)}, page: {sorted(got)}")


def check_page5(roff):
    secs = sections(roff)
    terms = []
    for s in ("KEYS", "RULES", "CPU LISTS"):
        terms += [e[0] for e in entries(secs.get(s, []))]
    # "match.src, match.dst (default: any)": the key paths before "(".
    words = set()
    for t in terms:
        words.update(re.findall(r"[a-z_]+", t.split(" (")[0]))
    keys, values = policy_tables()
    result(len(keys) >= 15, "the parser's key tables are found",
           sorted(keys))
    missing = sorted(keys - words)
    result(not missing, "xdp-steer.yaml.5: every key the parser accepts is documented",
           f"missing: {missing}")
    extra = sorted(words - keys)
    result(not extra, "xdp-steer.yaml.5: every documented key is one the parser accepts",
           f"unknown: {extra}")
    text = plain(roff)
    missing = sorted(v for v in values if not re.search(r"\b%s\b" % re.escape(v), text))
    result(bool(values) and not missing,
           "xdp-steer.yaml.5: every word a key takes (hash kinds, modes, protocols) is named",
           f"missing: {missing}")

    stated = {}
    for t in terms:
        m = re.match(r"^(.*?) \(default: (.*)\)$", t)
        if m:
            for k in m.group(1).split(", "):
                stated[k] = m.group(2)
    try:
        defaults = check_defaults()
    except RuntimeError as e:
        result(False, "xdp-steer check of a bare policy succeeds", e)
        return
    wrong = [f"{k}: check says {v}, the page '{stated.get(k)}'"
             for k, v in sorted(defaults.items())
             if not re.search(r"\b%s\b" % re.escape(v), stated.get(k, ""))]
    result(len(defaults) >= 8 and not wrong,
           "xdp-steer.yaml.5: each default is what check fills in",
           "\n".join(wrong) or defaults)


def main():
    if not os.access(XDP_STEER, os.X_OK):
        result(False, f"the loader is built ({XDP_STEER} is missing: run make)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for name, check in (("xdp-steer.8", check_page8),
                            ("xdp-steer.yaml.5", check_page5)):
            path, roff = make_page(name, tmp)
            result(path is not None, f"{name}: made from README.md", roff)
            if path is None:
                continue
            check_format(path, name)
            check(roff)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
