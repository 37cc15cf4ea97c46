#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Writes a man page from the READMEs, so the page cannot drift from them.

    readme2man.py README.md loader/README.md PAGE --version V [--date YYYY-MM-DD] > PAGE

Each Markdown file given is read in turn; a section's regions are joined
in that order (README.md holds the description, loader/README.md the
operator's reference).

PAGE is xdp-steer.8 or xdp-steer.yaml.5. The README marks what goes into
each page with HTML comments, which a Markdown viewer does not show:

    <!-- man: xdp-steer.8 COMMANDS -->
    ...Markdown...
    <!-- man: end -->

A region runs to the next marker; the last one must end. Regions of one section are joined, and
the page's sections come out in the order PAGES gives (a section the README
has and PAGES does not name, or the other way round, is an error, so
nothing is dropped in silence). Only the Markdown the README uses is
understood: paragraphs, `code`, **bold**, *italic*, [links](url), fenced
code, tables and lists. A list item "- `TERM`: text" is a definition (a
tagged paragraph, its nested items indented under it), as is a table row:
its first cell the term, the middle cells "(header: cell)" after it, the
last cell the text. In a term, upper-case words of code are placeholders
(italic), the rest literal (bold).

A page holds its text, not pointers into the READMEs: a quoted name of a
README section the pages hold ("Balancing load", or "Moving flows" in
`bpf/README.md`) becomes that section's name on the page ("BALANCING", and
"BALANCING in xdp-steer(8)" from the other page: XREFS); a section of an
installed README the pages do not hold is named at its installed path
(DOCDIR); any other pointer, to a README that is not installed or a
section of the pages' own READMEs that they do not hold, is an error.
Paths under `configs/` become the examples' installed paths.
"""
import argparse
import datetime
import os
import re
import shlex
import sys

PAGES = {
    "xdp-steer.8": {
        "title": "XDP-STEER",
        "section": "8",
        "manual": "System Administration",
        "name": "xdp-steer \\- software receive steering (software RSS) in XDP",
        "sections": ["SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS",
                     "EXIT STATUS", "ENVIRONMENT", "COUNTERS",
                     "HEALTH WARNINGS", "PINNED MAPS",
                     "LOCKING", "BALANCING", "CPU HOTPLUG", "UPGRADE IN PLACE",
                     "RUNNING AT BOOT",
                     "MONITORING", "FILES",
                     "EXAMPLES"],
        "see_also": ["xdp-steer.yaml(5)", "xdp-loader(8)", "bpftool(8)",
                     "systemctl(1)", "journalctl(1)"],
    },
    "xdp-steer.yaml.5": {
        "title": "XDP-STEER.YAML",
        "section": "5",
        "manual": "File Formats",
        "name": "xdp-steer.yaml \\- xdp-steer policy file (version 1)",
        "sections": ["DESCRIPTION", "KEYS", "CPU LISTS", "RULES",
                     "FRAGMENTS", "TUNNELS", "DIAGNOSTICS", "LIMITS"],
        "see_also": ["xdp-steer(8)"],
    },
}

MARKER = re.compile(r"^<!-- man: (.*?) -->\s*$")

# README sections (headings, or a paragraph's bold lead) the pages hold,
# by the name the READMEs point at them with: (page, section).
XREFS = {
    "A worker CPU offline and back": ("xdp-steer.8", "CPU HOTPLUG"),
    "Balancing load": ("xdp-steer.8", "BALANCING"),
    "Upgrade in place: maps of another layout": ("xdp-steer.8",
                                                 "UPGRADE IN PLACE"),
    "Every frame accounted for": ("xdp-steer.8", "COUNTERS"),
    "Prometheus": ("xdp-steer.8", "MONITORING"),
    "Where the maps are pinned": ("xdp-steer.8", "PINNED MAPS"),
    "Tunnels": ("xdp-steer.yaml.5", "TUNNELS"),
}

# Where `make install` with PREFIX=/usr (as FILES says) puts the READMEs
# and the example policies (loader/dist/dist.mk, INSTALL_LIST).
DOCDIR = "/usr/share/doc/xdp-steer"
INSTALLED_DOCS = ("README.md", "loader/README.md", "bpf/README.md")


class DocError(Exception):
    pass


# ---- reading the regions ---------------------------------------------------

def regions(lines, page, out=None, fname="README.md"):
    """{section: [lines]} of PAGE, in README order within a section; adds
    to 'out' when given (the regions of an earlier file)."""
    out = {} if out is None else out
    cur = None
    fence = False
    for no, line in enumerate(lines, 1):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else MARKER.match(line)
        if not m:
            if cur is not None:
                cur.append(line)
            continue
        words = shlex.split(m.group(1))
        if words == ["end"]:
            cur = None
            continue
        if len(words) != 2 or words[0] not in PAGES:
            raise DocError(f"{fname}:{no}: bad marker (want "
                           f"'<!-- man: PAGE \"SECTION\" -->' with PAGE one "
                           f"of {', '.join(PAGES)}, or '<!-- man: end -->')")
        if words[0] != page:
            cur = None
            continue
        if words[1] not in PAGES[page]["sections"]:
            raise DocError(f"{fname}:{no}: {page} has no section "
                           f"'{words[1]}' (readme2man.py, PAGES)")
        cur = out.setdefault(words[1], [])
        if cur:
            cur.append("")
    if fence:
        raise DocError(f"{fname}: a code fence is not closed")
    if cur is not None:
        raise DocError(f"{fname}: the last {page} region has no "
                       "'<!-- man: end -->'")
    return out


# ---- pointers --------------------------------------------------------------

_SP = r"(?:[ \t]+|[ \t]*\n[ \t]*)"  # a space, or a line's end
POINTER = re.compile(r'"([^"`]{1,80})"(?:' + _SP + r"in" + _SP +
                     r"`([\w./-]*README\.md)`)?")
CONFIGS = re.compile(r"`configs/([\w.-]*)`")
ASIDE = re.compile(r",?\s*\((?:see\s+)?\0\)")


def names(text):
    """The section names of a README: its headings and bold leads."""
    heads = re.findall(r"^#+ (.*?)\s*$", text, re.M)
    leads = re.findall(r"^(?:- )?\*\*([^*]+?)\.?\*\*", text, re.M)
    return {" ".join(n.split()) for n in heads + leads}


def section_ref(page, name):
    where, section = XREFS[name]
    if where == page:
        return section
    ref = re.match(r"(.*)\.(\d)$", where).groups()
    return f"{section} in {ref[0]}({ref[1]})"


def rewrite(lines, page, own):
    """A region's lines with its pointers rewritten (module docstring);
    'own' are the section names of the READMEs the pages are made from."""
    def one(m):
        name = " ".join(m.group(1).split())
        doc = m.group(2)
        if name in XREFS:
            return section_ref(page, name)
        if doc in INSTALLED_DOCS:
            return "\0"
        if doc:
            raise DocError(f'a pointer to "{name}" in {doc}, which is not '
                           "installed: say it here, or point elsewhere")
        if name in own:
            raise DocError(f'a pointer to "{name}", which the pages do not '
                           "hold: add it to XREFS, or say it here")
        return m.group(0)

    out, chunk = [], []

    def flush():
        if chunk:
            text = CONFIGS.sub(lambda m: f"`{DOCDIR}/examples/{m.group(1)}`",
                               POINTER.sub(one, "\n".join(chunk)))
            # A page holds its text: an aside that only points into an
            # installed README (the datapath's depth) is left out.
            text = ASIDE.sub("", text)
            if "\0" in text:
                raise DocError("a pointer into an installed README outside "
                               "an aside of its own: say it here")
            out.extend(text.split("\n"))
            chunk.clear()

    fence = False
    for line in lines:
        if line.startswith("```"):
            flush()
            fence = not fence
            out.append(line)
        elif fence:
            out.append(line)
        else:
            chunk.append(line)
    flush()
    return out


# ---- inline text -----------------------------------------------------------

def esc(text):
    """Plain text for roff: backslashes escaped."""
    return text.replace("\\", "\\e")


def esc_code(text):
    """Literal text (code): also the characters groff would typeset as
    something else, so it can be copied as it stands."""
    text = esc(text)
    for ch, name in (("-", "\\-"), ("'", "\\(aq"), ("`", "\\(ga"),
                     ("^", "\\(ha"), ("~", "\\(ti")):
        text = text.replace(ch, name)
    return text


INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])"
                    r"|\[([^\]]+)\]\([^)]+\)")


def inline(text):
    out = []
    pos = 0
    for m in INLINE.finditer(text):
        out.append(esc(text[pos:m.start()]))
        code, bold, ital, link = m.groups()
        if code is not None:
            out.append("\\fB" + esc_code(code) + "\\fR")
        elif bold is not None:
            out.append("\\fB" + inline(bold).replace("\\fR", "\\fB") + "\\fR")
        elif ital is not None:
            out.append("\\fI" + esc(ital) + "\\fR")
        else:
            out.append(inline(link))
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


def term(text):
    """A definition's term: code spans with placeholders in italic."""
    runs = []  # [font, roff text]; neighbours of one font merged
    pos = 0

    def add(font, txt):
        if runs and runs[-1][0] == font:
            runs[-1][1] += txt
        else:
            runs.append([font, txt])

    for m in re.finditer(r"`([^`]+)`", text):
        if m.start() > pos:
            add("R", inline(text[pos:m.start()]))
        for tok in re.findall(r"[A-Za-z0-9_]+|[^A-Za-z0-9_]+", m.group(1)):
            placeholder = re.fullmatch(r"[A-Z][A-Z0-9_]*", tok)
            add("I" if placeholder else "B", esc_code(tok))
        pos = m.end()
    if pos < len(text):
        add("R", inline(text[pos:]))
    return "".join(t if f == "R" else f"\\f{f}{t}\\fR" for f, t in runs)


def textline(s):
    """A text line roff will not take for a request."""
    s = s.strip()
    return "\\&" + s if s[:1] in (".", "'") else s


# ---- blocks ----------------------------------------------------------------

DEFINITION = re.compile(r"^((?:`[^`]+`(?:, )?)+):(?: (.*))?$")
BULLET = re.compile(r"^( *)[-*] (.*)$")


def split_cells(row):
    row = row.strip().strip("|")
    cells, cur, code = [], "", False
    i = 0
    while i < len(row):
        ch = row[i]
        if ch == "\\" and row[i + 1:i + 2] == "|":
            cur += "|"
            i += 2
            continue
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    cells.append(cur.strip())
    return cells


def render_table(rows, out):
    header = split_cells(rows[0])
    if len(rows) < 2 or not re.fullmatch(r"[|\-: ]+", rows[1]):
        raise DocError(f"a table without a header separator: {rows[0]}")
    for row in rows[2:]:
        cells = split_cells(row)
        if len(cells) != len(header):
            raise DocError(f"a table row with {len(cells)} cells, not "
                           f"{len(header)}: {row}")
        head = term(cells[0])
        for h, c in zip(header[1:-1], cells[1:-1]):
            if c:
                head += f" ({esc(h)}: {inline(c)})"
        out += [".TP", textline(head), textline(inline(cells[-1]))]


def parse_items(lines):
    """[(indent, text)] of a list, continuation lines joined."""
    items = []
    for line in lines:
        m = BULLET.match(line)
        if m:
            items.append([len(m.group(1)), m.group(2)])
        elif items:
            items[-1][1] += " " + line.strip()
        else:
            raise DocError(f"a list that does not start with an item: {line}")
    return items


def render_items(items, out):
    i = 0
    while i < len(items):
        indent, text = items[i]
        j = i + 1
        while j < len(items) and items[j][0] > indent:
            j += 1
        m = DEFINITION.match(text)
        if m:
            out += [".TP", textline(term(m.group(1)))]
            if m.group(2):
                out.append(textline(inline(m.group(2))))
        else:
            out += [".IP \\(bu 2", textline(inline(text))]
        if j > i + 1:
            out.append(".RS")
            render_items(items[i + 1:j], out)
            out.append(".RE")
        i = j


def render(lines):
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("```"):
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            out += [".PP", ".RS 2", ".nf"]
            out += ["\\&" + esc_code(l) for l in lines[i + 1:j]]
            out += [".fi", ".RE"]
            i = j + 1
            continue
        m = re.match(r"^#+ (.*)$", line)
        if m:
            out += [".SS " + inline(m.group(1)).replace('"', "")]
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].strip() and \
                not lines[j].startswith("```"):
            j += 1
        block = lines[i:j]
        if line.startswith("|"):
            render_table(block, out)
        elif BULLET.match(line):
            render_items(parse_items(block), out)
        else:
            out += [".PP", textline(inline(" ".join(l.strip() for l in block)))]
        i = j
    return out


# ---- the page --------------------------------------------------------------

def page(readmes, name, version, date):
    meta = PAGES[name]
    got = {}
    own = set()
    for readme in readmes:
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        regions(text.split("\n"), name, got, readme)
        own |= names(text)
    missing = [s for s in meta["sections"] if s not in got]
    if missing:
        raise DocError(f"the READMEs have no '<!-- man: {name} ... -->' region "
                       f"for {', '.join(missing)}")
    out = [f'.\\" {name}: made from the READMEs by loader/dist/readme2man.py;'
           " edit them, not this file.",
           f'.TH {meta["title"]} {meta["section"]} "{date}" '
           f'"xdp-steer {version}" "{meta["manual"]}"',
           # Left-aligned, unhyphenated: options and paths stay whole.
           ".ad l", ".nh",
           ".SH NAME", meta["name"]]
    for section in meta["sections"]:
        out.append(f'.SH "{section}"')
        try:
            out += render(rewrite(got[section], name, own))
        except DocError as e:
            raise DocError(f"{name}, {section}: {e}") from None
    out.append('.SH "SEE ALSO"')
    refs = [re.match(r"(.*)\((\d)\)$", r).groups() for r in meta["see_also"]]
    for k, (ref, sec) in enumerate(refs):
        out.append(f".BR {esc_code(ref)} ({sec})" +
                   ("," if k + 1 < len(refs) else ""))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("readmes", nargs="+")
    ap.add_argument("page", choices=sorted(PAGES))
    ap.add_argument("--version", required=True)
    ap.add_argument("--date", default="",
                    help="YYYY-MM-DD (default: the README's modification)")
    args = ap.parse_args()
    date = args.date or datetime.date.fromtimestamp(
        max(os.stat(r).st_mtime for r in args.readmes)).isoformat()
    try:
        sys.stdout.write(page(args.readmes, args.page, args.version, date))
    except DocError as e:
        print(f"readme2man.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
