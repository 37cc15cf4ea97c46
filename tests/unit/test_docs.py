#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Unit tier (no root): the man pages, made from README.md and
loader/README.md as the build makes them (loader/dist/readme2man.py),
against what the loader knows; and the pointers into the READMEs.

- Both pages format without a warning (`man --warnings`, and groff with
  every warning on) and fit 80 columns.
- Both pages are whole: no pointer into a README but at an installed
  one's path (/usr/share/doc/xdp-steer/...), no quoted name of a README
  section, no path or file of the source tree.
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
- xdp-steer(8) names every counter of the X-macros in include/xdp_steer/
  (STEER_STATS_FIELDS with an encap_<name> per STEER_ENCAPS,
  STEER_RING_FIELDS, STEER_KTHREAD_FIELDS as kthread_<name>) and every
  metric `stats --prometheus` prints (tests/unit/prom_sample, the printer
  on a sample with every family).
- Every pointer into a README, in the source (C, shell, Python, YAML,
  make, units) and in the READMEs themselves, names a README that exists
  and a heading it has: a README path or the word README (the README.md
  nearest above the file), then a heading in quotes (or, unquoted, up to a
  closing parenthesis); in the READMEs, a quoted name followed by "in" and
  a README path, which may also name a paragraph's bold lead; and every
  relative Markdown link names a file that exists and, after '#', one of
  its headings.
- The documents against the code (the READMEs, configs/*.yaml, the units'
  sources, the completion, the loader's messages): every default they
  state for a policy key ("`key`, default X", "`key: X` (the default)",
  "nice N by default", a config's "# default X") is what `check` fills
  in; every config passes `check --cpus 0-63` without a message, and one
  that says every key is set sets them; no document names the loader by
  an absolute path but the FILES list, which names both prefixes, a
  paragraph naming an installed path under /usr names /usr/local's or
  PREFIX too, and every unit runs @SBINDIR@/xdp-steer, which the build
  replaces; every `xdp-steer` command line has only options its
  command's --help has and no more arguments than its usage (no policy
  without --policy), every short option of a --help is in xdp-steer(8),
  README.md's table has each command's options; README.md's exit
  statuses are cmd.h's, each returned by a command, and the units name
  no other; no document says to enable the balancer's unit when
  xdp-steer@.service wants it; and every `xdp-steer check` output of
  loader/README.md, marked '<!-- example output -->', is what the loader
  prints for the '<!-- example file: NAME -->' it names.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
XDP_STEER = os.environ.get("XDP_STEER", os.path.join(ROOT, "loader", "xdp-steer"))
PROM_SAMPLE = os.path.join(ROOT, "tests", "unit", "prom_sample")
DOCDIR = "/usr/share/doc/xdp-steer/"  # the pages' FILES: PREFIX=/usr
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


def shown(roff):
    """What a reader of the page sees, a line per roff line: comments
    left out, requests' arguments kept."""
    lines = [l for l in roff.split("\n") if not l.startswith('.\\"')]
    return plain("\n".join(re.sub(r"^\.[A-Z]+ ?", "", l) for l in lines))


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


def counters():
    """The counters' names, as stats --json and the map dumps give them,
    from the X-macros of the headers in include/xdp_steer/."""
    inc = os.path.join(ROOT, "include", "xdp_steer")
    src = "".join(open(os.path.join(inc, f)).read()
                  for f in sorted(os.listdir(inc)) if f.endswith(".h"))

    def body(macro):
        m = re.search(r"^#define %s\(.*?\)((?:.*\\\n)*.*)$" % macro, src, re.M)
        return m.group(1) if m else ""

    names = re.findall(r"\bX\((\w+),", body("STEER_STATS_FIELDS"))
    names += ["encap_" + n for n in
              re.findall(r"\bX\(A, \w+, (\w+),", body("STEER_ENCAPS"))]
    names += re.findall(r"\bX\((\w+),", body("STEER_RING_FIELDS"))
    names += ["kthread_" + n for n in
              re.findall(r"\bX\((\w+),", body("STEER_KTHREAD_FIELDS"))]
    return names


def metrics():
    """The families `stats --prometheus` prints, on a sample with all."""
    rc, out, err = run(PROM_SAMPLE)
    if rc:
        raise RuntimeError(err)
    return re.findall(r"^# TYPE (\S+) ", out, re.M)


# ---- the READMEs and the pointers into them ----------------------------------

def readmes():
    """Every README.md of the tree, relative to ROOT."""
    out = []
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        if "README.md" in files:
            out.append(os.path.relpath(os.path.join(d, "README.md"), ROOT))
    return sorted(out)


def headings(rel, leads=False):
    """The headings of a README (outside code), and with 'leads' the bold
    leads of its paragraphs and list items too ("**Tunnels.**")."""
    text = re.sub(r"^```.*?^```", "", open(os.path.join(ROOT, rel)).read(),
                  flags=re.S | re.M)
    out = {" ".join(h.split()) for h in re.findall(r"^#+ (.*)$", text, re.M)}
    if leads:
        out |= {" ".join(b.split()) for b in
                re.findall(r"^\s*(?:- )?\*\*([^*]+?)\.?\*\*", text, re.M)}
    return out


def slug(heading):
    """The anchor a Markdown viewer (GitHub's) gives a heading."""
    s = re.sub(r"[^\w\- ]", "", heading.lower().replace("`", ""))
    return s.replace(" ", "-")


def sources():
    """The files whose comments may point into a README: the tree's C,
    shell, Python, YAML, make and unit files, and scripts by their #!."""
    exts = (".c", ".h", ".sh", ".py", ".yaml", ".yml", ".mk", ".in",
            ".rules", ".service", ".timer")
    skip = ("tests/fuzz/corpus", "tests/fuzz/artifacts")
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if x == ".ci" or not x.startswith(".")]
        rel = os.path.relpath(d, ROOT)
        if rel.startswith(skip):
            continue
        for f in files:
            path = os.path.join(d, f)
            if f.endswith(".skel.h"):
                continue
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except (UnicodeDecodeError, OSError):
                continue
            if f.endswith(exts) or f == "Makefile" or text.startswith("#!"):
                yield os.path.relpath(path, ROOT), text


def joined(text):
    """Comment text as one line: each line's comment leader (/*, *, #, //)
    dropped, so a pointer broken over lines reads whole."""
    lines = (re.sub(r"^\s*(?:/\*+|\*+/?|#+|//+)?\s*", "", l)
             for l in text.split("\n"))
    return " ".join(l for l in lines if l)


# README.md, tests/README.md or README, maybe "'s", then "Heading" (or,
# unquoted, the rest up to a closing parenthesis).
SRC_POINTER = re.compile(
    r"((?:[\w.-]+/)*README(?:\.md)?)(?:'s)?,?\s+(?:section\s+)?"
    r"(?:\"([^\"]+)\"|([A-Z][^\"()]*?)\))")
MD_POINTER = re.compile(r'"([^"`]+)"\s+in\s+`((?:[\w.-]+/)*README\.md)`')
MD_LINK = re.compile(r"\]\(([^)\s:]+\.md)(?:#([^)\s]+))?\)")


def nearest_readme(rel):
    d = os.path.dirname(rel)
    while True:
        cand = os.path.join(d, "README.md")
        if os.path.exists(os.path.join(ROOT, cand)):
            return os.path.normpath(cand)
        if not d:
            return None
        d = os.path.dirname(d)


def check_pointers():
    bad, seen = [], 0
    for rel, text in sources():
        for m in SRC_POINTER.finditer(joined(text)):
            name, heading = m.group(1), (m.group(2) or m.group(3)).strip()
            heading = " ".join(heading.split())
            doc = nearest_readme(rel) if name == "README" else name
            if doc is None or not os.path.exists(os.path.join(ROOT, doc)):
                bad.append(f"{rel}: {m.group(0)!r}: no file {doc or name}")
            elif heading not in headings(doc):
                bad.append(f"{rel}: {m.group(0)!r}: {doc} has no heading "
                           f"'{heading}'")
            seen += 1
    result(seen >= 15 and not bad,
           f"every pointer into a README in the source ({seen}) names a file "
           "and one of its headings", "\n".join(bad))

    bad, seen = [], 0
    for rel in readmes():
        text = open(os.path.join(ROOT, rel)).read()
        text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        for m in MD_POINTER.finditer(text):
            name, doc = " ".join(m.group(1).split()), m.group(2)
            seen += 1
            if not os.path.exists(os.path.join(ROOT, doc)):
                bad.append(f"{rel}: {m.group(0)!r}: no file {doc}")
            elif name not in headings(doc, leads=True):
                bad.append(f"{rel}: {m.group(0)!r}: {doc} has no heading "
                           f"or bold lead '{name}'")
        for m in MD_LINK.finditer(text):
            doc = os.path.normpath(os.path.join(os.path.dirname(rel), m.group(1)))
            seen += 1
            if not os.path.exists(os.path.join(ROOT, doc)):
                bad.append(f"{rel}: link to {m.group(1)}: no such file")
            elif m.group(2) and m.group(2) not in {slug(h) for h in headings(doc)}:
                bad.append(f"{rel}: link to {m.group(1)}#{m.group(2)}: no "
                           "such heading")
    result(seen >= 5 and not bad,
           f"every pointer and link between the READMEs ({seen}) names a "
           "file and one of its headings", "\n".join(bad))


# ---- the checks ------------------------------------------------------------

def check_whole(roff, name):
    """No pointer into a README but an installed path, no source path."""
    text = shown(roff)
    outside = re.sub(re.escape(DOCDIR) + r"\S*", "", text)
    lines = [l for l in outside.split("\n") if "README" in l]
    result(not lines, f"{name}: names no README but at its installed path",
           "\n".join(lines))
    sections = set()
    for rel in readmes():
        sections |= headings(rel, leads=True)
    quoted = {" ".join(q.split()) for q in re.findall(r'"([^"]+)"(?! in /)', text)}
    named = sorted(quoted & sections)
    result(not named, f"{name}: names no README section in quotes", named)
    paths = re.findall(r"(?<![\w/.~-])(?:bpf|loader|tests|configs|include"
                       r"|LICENSES|\.ci)/[\w./-]*"
                       r"|(?<![\w/.-])[\w-]+\.(?:c|h|sh|py|mk)\b", text)
    result(not paths, f"{name}: names no path or file of the source tree",
           sorted(set(paths)))


def check_counters(roff):
    text = shown(roff)
    try:
        fams = metrics()
    except (RuntimeError, OSError) as e:
        result(False, "the Prometheus sample printer runs (make builds "
               "tests/unit/prom_sample)", e)
        return
    names = counters()
    result(len(names) >= 30, "the counters' X-macros are found", names)
    missing = [n for n in names if not re.search(r"\b%s\b" % n, text)]
    result(not missing, "xdp-steer.8: every counter of include/xdp_steer/ "
           "is named", f"missing: {missing}")
    result(len(fams) >= 30, "stats --prometheus prints its families", fams)
    missing = [f for f in fams if not re.search(r"\b%s\b" % f, text)]
    result(not missing, "xdp-steer.8: every metric of stats --prometheus is "
           "named", f"missing: {missing}")


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
        shorts = {o for o in help_of(cmd)[2] if not o.startswith("--")}
        shorts -= {"-v", "-q", "-h"}
        missing = sorted(o for o in shorts
                         if not re.search(r"(?<![\w-])%s(?![\w-])" % o, text))
        result(not missing, f"xdp-steer.8: every short option of '{cmd}' (its "
               "--help) is in its entry", f"missing: {missing}")
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


# ---- the documents against the code: defaults, paths, options, exit codes ---

DOC_MD = ("README.md", "loader/README.md", "bpf/README.md", "tests/README.md",
          "tests/bench/README.md")


def doc_files():
    """(relative path, text) of every file an operator reads: the READMEs,
    the example policies, the units' and the udev rule's sources, the
    completion, and the loader's C sources (its messages name commands)."""
    rels = list(DOC_MD)
    for d, exts in (("configs", (".yaml",)),
                    ("loader/dist", (".in", ".timer", ".rules", ".bash")),
                    ("loader/cli", (".c", ".h")), ("loader/lib", (".c",))):
        rels += sorted(os.path.join(d, f) for f in os.listdir(os.path.join(ROOT, d))
                       if f.endswith(exts))
    return [(r, open(os.path.join(ROOT, r)).read()) for r in rels]


def flat(text):
    return " ".join(text.split())


def region(rel, page, section):
    """The text of a README between '<!-- man: PAGE SECTION -->' and its end."""
    text = open(os.path.join(ROOT, rel)).read()
    m = re.search(r"^<!-- man: %s %s -->\n(.*?)^<!-- man: end -->" %
                  (re.escape(page), re.escape(section)), text, re.S | re.M)
    return m.group(1) if m else ""


_norm_cache = {}


def normalized(policy):
    """`xdp-steer check` of a policy text: its stdout, or None when it is
    refused."""
    if policy not in _norm_cache:
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(policy)
        try:
            rc, out, _ = run(XDP_STEER, "check", "--cpus", "0-63", "--policy", f.name)
        finally:
            os.unlink(f.name)
        _norm_cache[policy] = out if rc == 0 else None
    return _norm_cache[policy]


def is_default(key, value):
    """Whether 'key' (a dotted path: hash.key) set to 'value' is what a bare
    policy gets."""
    parts = key.split(".")
    yaml = value
    for p in reversed(parts[1:]):
        yaml = "{%s: %s}" % (p, yaml)
    got = normalized("version: 1\n%s: %s\n" % (parts[0], yaml))
    return got is not None and got == normalized("version: 1\n")


# The keys whose default a document may state: check's own keys; cpus
# (the machine's) and rules (none) are left out.
def default_keys(defaults):
    keys = set(defaults)
    keys |= {k.split(".")[0] for k in defaults}
    return sorted(keys, key=len, reverse=True)


def stated_ok(key, stated, defaults):
    """A default stated in prose is right when its first word is a value
    that check takes as the default, or it names the default's value (each
    word of a scalar, any leaf of a compound: `nice 10`)."""
    words = re.findall(r"[\w.-]+", stated)
    if words and is_default(key, words[0]):
        return True
    leaves = [v for k, v in defaults.items() if k == key or k.startswith(key + ".")]
    return any(re.search(r"(?<![\w.-])%s(?![\w.-])" % re.escape(v), stated)
               for v in leaves)


def check_stated_defaults():
    defaults = check_defaults()
    keys = default_keys(defaults)
    alt = "|".join(re.escape(k) for k in keys)
    bad, seen = [], 0
    # `key`, default VALUE / `key`'s default (...) / `key: value` (the default)
    pat = re.compile(r"`(%s)(?::\s*([^`]*))?`(?:'s)?\**,?\s*\(?(?:the |its )?"
                     r"default\b(?! (?:with|under|before))(?:s to| is|:)?\s*([^;.)]*)" % alt)
    nice = re.compile(r"nice (\d+),? (?:by default|the default\b|\(the default)"
                      r"|\bdefault,? nice (\d+)")
    for rel in DOC_MD:
        text = flat(open(os.path.join(ROOT, rel)).read())
        for m in pat.finditer(text):
            if re.search(r"(?:under|with|Under|With)\s*$", text[:m.start()]):
                continue  # a default under another setting's value
            key, value, stated = m.group(1), m.group(2), m.group(3)[:60]
            seen += 1
            ok = is_default(key, value) if value else stated_ok(key, stated, defaults)
            if not ok:
                bad.append(f"{rel}: {m.group(0)[:100]!r}: check's default of "
                           f"{key} is not that")
        for m in nice.finditer(text):
            seen += 1
            n = m.group(1) or m.group(2)
            if n != defaults.get("worker_sched.nice"):
                bad.append(f"{rel}: {m.group(0)!r}: check's default is nice "
                           f"{defaults.get('worker_sched.nice')}")
    # The example policies: each setting's 'default ...' on its line or in
    # the comment block right above it.
    for rel in sorted(glob.glob(os.path.join(ROOT, "configs", "*.yaml"))):
        name = os.path.relpath(rel, ROOT)
        block, parent = [], None
        for line in open(rel).read().split("\n"):
            s = line.strip()
            if s.startswith("#"):
                block.append(s)
                continue
            m = re.match(r"^( *)(\w+):\s*([^#]*?)\s*(#.*)?$", line)
            if not m or (m.group(1) and parent is None):
                block = []
                continue
            if not m.group(1):
                parent = m.group(2) if not m.group(3) else None
                key = m.group(2)
            else:
                key = f"{parent}.{m.group(2)}"
            value, comment = m.group(3), m.group(4) or ""
            said = comment if "default" in comment else " ".join(block)
            block = []
            if key in ("version", "cpus", "rules") or not value:
                continue
            d = re.search(r"\bdefault\b:?\s*([^\s,;:()]*)", said)
            if not d:
                continue
            seen += 1
            # "default X": X is the default; "the default" (or a word no
            # value is): the value set here is.
            if not is_default(key, d.group(1)) and not is_default(key, value):
                bad.append(f"{name}: {key}: {value}: '{d.group(0)}' is not "
                           "check's default")
    result(seen >= 20 and not bad,
           f"every default the documents state for a policy key ({seen}) is "
           "what check fills in", "\n".join(bad))


def check_configs():
    bad = []
    for rel in sorted(glob.glob(os.path.join(ROOT, "configs", "*.yaml"))):
        rc, out, err = run(XDP_STEER, "check", "--cpus", "0-63", "--policy", rel)
        if rc or err.strip():
            bad.append(f"{os.path.relpath(rel, ROOT)}: exit {rc}: {err.strip()}")
    result(not bad, "every configs/*.yaml passes check --policy on CPUs 0-63 "
           "without a message (a warning, a deprecation)", "\n".join(bad))
    bare = normalized("version: 1\n")
    keys = {l.split(":")[0].lstrip("# ") for l in bare.split("\n") if ":" in l}
    bad = []
    for rel in sorted(glob.glob(os.path.join(ROOT, "configs", "*.yaml"))):
        text = open(rel).read()
        m = re.search(r"Every key (?:but ([\w, ]+?) )?is set", flat(text))
        if not m:
            continue
        but = set(re.findall(r"\w+", m.group(1) or "")) - {"and"}
        have = set(re.findall(r"^(\w+):", text, re.M))
        missing = sorted(keys - have - but)
        if missing:
            bad.append(f"{os.path.relpath(rel, ROOT)}: says every key "
                       f"{'but ' + m.group(1) + ' ' if but else ''}is set; "
                       f"not set: {missing}")
    result(not bad, "a config that says every key is set sets every key check "
           "prints", "\n".join(bad))


BINARY = re.compile(r"(?<![\w@)$/.-])((?:/[\w.-]+)*/s?bin/xdp-steer)(?![\w-])")
INSTALLED = re.compile(r"(?<![\w.-])/usr/(?!local/)(?:sbin|lib/bpf|lib/systemd|"
                       r"share/man|share/doc/xdp-steer|share/xdp-steer|"
                       r"share/bash-completion)\S*")


def check_paths():
    files_region = region("loader/README.md", "xdp-steer.8", "FILES")
    intro = files_region.strip().split("\n\n")[0]
    result("PREFIX=/usr" in intro and "/usr/local" in intro,
           "the FILES list says whose paths it gives (PREFIX=/usr) and where "
           "make install's default puts them (/usr/local)", intro)
    bad = []
    for rel, text in doc_files():
        outside = text.replace(files_region, "") if rel == "loader/README.md" else text
        for m in BINARY.finditer(outside):
            bad.append(f"{rel}: {m.group(1)}")
    result(not bad, "no document names the loader by an absolute path but the "
           "FILES list (units: @SBINDIR@; elsewhere the name, found on PATH)",
           "\n".join(bad))

    bad = []
    for rel in DOC_MD:
        text = open(os.path.join(ROOT, rel)).read()
        if rel == "loader/README.md":
            text = text.replace(files_region, "")
        for para in re.split(r"\n\s*\n", text):
            paths = INSTALLED.findall(para)
            if paths and "/usr/local" not in para and "PREFIX" not in para:
                bad.append(f"{rel}: {paths[0]} without its /usr/local twin "
                           "or PREFIX")
    result(not bad, "a paragraph that names an installed path under /usr also "
           "names /usr/local's or PREFIX (make install's default is "
           "/usr/local)", "\n".join(bad))

    # The units run the loader where make install put it: SBINDIR, put in
    # by the build (dist.mk, monitoring.mk) in place of @SBINDIR@.
    bad = []
    for src in sorted(glob.glob(os.path.join(ROOT, "loader/dist/*.in"))):
        rel = os.path.relpath(src, ROOT)
        for line in open(src).read().split("\n"):
            if re.match(r"^Exec\w*=", line) and "xdp-steer " in line:
                if not re.search(r"@SBINDIR@/xdp-steer ", line):
                    bad.append(f"{rel}: {line}")
        made = src[:-3]
        if not os.path.exists(made):
            bad.append(f"{rel}: {os.path.relpath(made, ROOT)} not made (run make)")
        elif re.search(r"@[A-Z]+@", open(made).read()):
            bad.append(f"{os.path.relpath(made, ROOT)}: a @NAME@ is left")
    mk = open(os.path.join(ROOT, "loader/dist/dist.mk")).read()
    if not re.search(r"^SBINDIR\s*\?=\s*\$\(PREFIX\)/sbin$", mk, re.M):
        bad.append("dist.mk: SBINDIR is not $(PREFIX)/sbin")
    result(not bad, "every unit runs @SBINDIR@/xdp-steer, replaced by the build",
           "\n".join(bad))


def help_of(cmd):
    """(usage line, whole help, {option: takes a value}) of a command."""
    _, out, err = run(XDP_STEER, cmd, "--help")
    usage = out or err
    first = usage.split("\n")[0]
    opts = {}
    for m in re.finditer(r"(--[a-z][a-z-]*)( [A-Z][A-Z|a-z]*| native\|skb)?", first):
        opts[m.group(1)] = bool(m.group(2))
    sm = re.search(r"Short options?: (.*?)\.?$", usage, re.M)
    for m in re.finditer(r"(?<![\w-])(-[a-zA-Z])( [A-Z]+)?", sm.group(1) if sm else ""):
        opts[m.group(1)] = bool(m.group(2))
    for g in ("-v", "--verbose", "-q", "--quiet", "-h", "--help"):
        opts[g] = False
    return first, usage, opts


def positional(first, cmd):
    """(min, max) arguments of a usage line, its options and their values
    left out; a '|' between forms lets the arguments go (detach --stale)."""
    if " " + cmd not in first:
        return 0, 1  # help: the overview
    rest = first.split(" " + cmd, 1)[1]
    rest = re.sub(r"--[a-z-]+(?: [A-Z]+| native\|skb)?", " ", rest)
    while True:
        less = re.sub(r"\[[^\[\]A-Z]*\]", " ", rest)  # groups of options only
        if less == rest:
            break
        rest = less
    toks = rest.split()
    req = len([t for t in toks if t[0].isupper()])
    opt = len([t for t in toks if re.match(r"^\[[A-Z]+\]$", t)])
    return (0 if "|" in toks else req), req + opt


def command_lines(text):
    """xdp-steer command lines of a document: in code blocks (a line each,
    joined at a trailing backslash), in code spans and in quotes."""
    out = []
    spans = []
    fence = r"^ *```[^\n]*\n(.*?)^ *```"
    for block in re.findall(fence, text, re.S | re.M):
        spans += [(l, "") for l in block.replace("\\\n", " ").split("\n")]
    rest = re.sub(fence, "", text, flags=re.S | re.M)
    # With each span, the line it is on and the next (what it says of it).
    for rx in (r"`([^`]+)`", r"'(xdp-steer [^'\n]+)'"):
        for m in re.finditer(rx, rest):
            spans.append((flat(m.group(1)),
                          rest[rest.rfind("\n", 0, m.start()):
                               rest.find("\n", rest.find("\n", m.end()) + 1)]))
    spans += [(l, "") for l in rest.split("\n")
              if re.match(r"^\s*#\s+xdp-steer ", l)]
    for s, around in spans:
        s = re.sub(r"^\s*(?:#\s+|\$ )", "", s)
        for m in re.finditer(r"(?<![\w/@.-])xdp-steer((?:\s+-[\w-]+)*)\s+"
                             r"(check|attach|apply|repair|detach|status|stats|"
                             r"which|balance|pin-dir|help)(?![\w-])([^;|&#)>`<\n]*)", s):
            out.append((m.group(1).split(), m.group(2), m.group(3).split(),
                        around))
    return out


def check_command_lines():
    cmds = loader_commands()
    helps = {c: help_of(c) for c in cmds}
    glob_opts = loader_global_options()
    bad, seen = [], 0
    for rel, text in doc_files():
        for pre, cmd, args, around in command_lines(text):
            seen += 1
            if re.search(r"old spelling|deprecated|earlier versions", around):
                continue  # the old spelling, named as such
            first, _, opts = helps.get(cmd, ("", "", {}))
            where = f"{rel}: xdp-steer {' '.join(pre + [cmd] + args)}"
            for o in pre:
                if o not in glob_opts:
                    bad.append(f"{where}: {o} is no global option")
            if any(c in " ".join(args) for c in "[]") or "..." in args or "COMMAND" in args:
                continue  # a synopsis, not a command
            pos, i = 0, 0
            while i < len(args):
                a = args[i]
                name = a.split("=")[0]
                if re.match(r"^--?[a-zA-Z]", a):
                    if name not in opts:
                        bad.append(f"{where}: {name}: not an option of "
                                   f"'{cmd}' (xdp-steer {cmd} --help)")
                    elif opts[name] and "=" not in a:
                        i += 1
                else:
                    pos += 1
                i += 1
            lo, hi = positional(first, cmd)
            if "--stale" in args:
                lo = hi = 0
            # No argument at all: the command named, not run ("`xdp-steer
            # balance` works in rounds").
            if pos > hi or 0 < pos < lo:
                bad.append(f"{where}: {pos} argument(s), its usage takes "
                           f"{lo}-{hi}: '{first}'")
    result(seen >= 40 and not bad,
           f"every xdp-steer command line in the documents ({seen}) has only "
           "options its command takes and as many arguments as its usage "
           "(no policy given without --policy)", "\n".join(bad))

    # README.md's table: a row per command, with the options of its usage.
    text = open(os.path.join(ROOT, "README.md")).read()
    rows = {}
    for m in re.finditer(r"^\| `([a-z-]+)([^`]*)` \|", text, re.M):
        rows[m.group(1)] = set(re.findall(r"--[a-z][a-z-]*", m.group(2)))
    bad = []
    for cmd, opts in sorted(cmds.items()):
        if cmd == "help":
            continue
        if cmd not in rows:
            bad.append(f"{cmd}: no row")
        elif rows[cmd] != opts:
            bad.append(f"{cmd}: row {sorted(rows[cmd])}, usage {sorted(opts)}")
    bad += [f"{c}: no such command" for c in rows if c not in cmds]
    result(len(rows) >= 7 and not bad, "README.md's commands at a glance: a row "
           "per command, with the options of its usage", "\n".join(bad))


def check_exit_codes():
    cmd_h = open(os.path.join(ROOT, "loader/cli/cmd.h")).read()
    names = dict(re.findall(r"#define (EXIT_\w+)\s+(\d+)", cmd_h))
    cli = "".join(open(f).read() for f in glob.glob(os.path.join(ROOT, "loader/cli/*.c")))
    unused = [n for n in names if not re.search(r"\breturn\b[^;]*\b%s\b" % n, cli)]
    result(not unused, "every exit code of loader/cli/cmd.h is returned by a command",
           unused)
    codes = {"0"} | set(names.values())
    text = flat(open(os.path.join(ROOT, "README.md")).read())
    m = re.search(r"Exit status (.*?)\.(?: |$)", text)
    said = set(re.findall(r"(?<![\w-])(\d)(?![\w-])", m.group(1))) if m else set()
    result(said == codes, "README.md's exit statuses are the codes of "
           "loader/cli/cmd.h", f"cmd.h: {sorted(codes)}, README.md: {sorted(said)}")
    bad = []
    for src in glob.glob(os.path.join(ROOT, "loader/dist/*.in")):
        for v in re.findall(r"^(?:RestartPreventExitStatus|SuccessExitStatus)=(.*)$",
                            open(src).read(), re.M):
            bad += [f"{os.path.relpath(src, ROOT)}: {c}" for c in v.split()
                    if c not in codes]
    result(not bad, "the units name only exit codes the loader has", bad)


def check_balancer_unit():
    unit = open(os.path.join(ROOT, "loader/dist/xdp-steer@.service.in")).read()
    wants = re.search(r"^Wants=.*xdp-steer-balance@", unit, re.M) is not None
    bad = []
    for rel, text in doc_files():
        t = flat(text)
        if wants:
            bad += [f"{rel}: {m}" for m in
                    re.findall(r"systemctl enable[^#;`]*xdp-steer-balance@[\w%$.-]*", t)]
        else:
            bad += [f"{rel}: {m}" for m in
                    re.findall(r"xdp-steer@\w+`?,? (?:starts|wants)[^.]{0,40}|"
                               r"starts `?xdp-steer-balance@\w*", t)]
    result(not bad, "the documents say what xdp-steer@.service does with the "
           f"balancer's unit ({'it wants it: nothing to enable' if wants else 'nothing'})",
           "\n".join(bad))


def check_examples():
    """loader/README.md's outputs after '<!-- example output -->': each
    `$ xdp-steer check` in them prints what the loader prints, for the
    file of an '<!-- example file: NAME -->' block."""
    text = open(os.path.join(ROOT, "loader/README.md")).read()
    files = dict(re.findall(r"^<!-- example file: (\S+) -->\n```\w*\n(.*?)^```",
                            text, re.S | re.M))
    blocks = re.findall(r"^<!-- example output -->\n```\w*\n(.*?)^```", text, re.S | re.M)
    every = re.findall(r"^\$ xdp-steer check .*$", text, re.M)
    bad, seen = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in files.items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(body)
        for block in blocks:
            for m in re.finditer(r"^\$ (xdp-steer check [^\n]*)\n(.*?)(?=^\$ |\Z)",
                                 block, re.S | re.M):
                seen += 1
                argv = m.group(1).split()
                p = subprocess.run([XDP_STEER] + argv[1:], capture_output=True,
                                   text=True, cwd=tmp)
                if p.stdout != m.group(2):
                    bad.append(f"$ {m.group(1)}: the README shows\n{m.group(2)}"
                               f"the loader prints (exit {p.returncode})\n"
                               f"{p.stdout}{p.stderr}")
    result(seen >= 1 and seen == len(every) and not bad,
           f"every `xdp-steer check` example of loader/README.md ({seen} of "
           f"{len(every)} marked) prints what the loader prints", "\n".join(bad))


def main():
    if not os.access(XDP_STEER, os.X_OK):
        result(False, f"the loader is built ({XDP_STEER} is missing: run make)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for name, check in (("xdp-steer.8", check_page8),
                            ("xdp-steer.yaml.5", check_page5)):
            path, roff = make_page(name, tmp)
            result(path is not None,
                   f"{name}: made from README.md and loader/README.md", roff)
            if path is None:
                continue
            check_format(path, name)
            check_whole(roff, name)
            check(roff)
            if name == "xdp-steer.8":
                check_counters(roff)
    check_pointers()
    try:
        check_stated_defaults()
    except RuntimeError as e:
        result(False, "xdp-steer check of a bare policy succeeds", e)
    check_configs()
    check_paths()
    check_command_lines()
    check_exit_codes()
    check_balancer_unit()
    check_examples()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
