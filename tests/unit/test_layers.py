#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Unit tier (no root): the loader's layers, as its own includes draw them.

loader/ holds one folder per layer, each using only those below it, as the
Makefile lists them: cli/, lib/, kernel/, policy/, model/; util/ beside
them all, for any of them, using none.

- A file of a layer includes, of loader/'s folders, only its own, those
  below it and util/.
- cli/ includes nothing of kernel/, and of lib/ only lib/steer.h, the
  library's public face (lib/lib_int.h is the library's own).
- lib/steer.h and every file of cli/ reach no header of kernel/ through
  any chain of includes: quoted includes resolved as the compiler resolves
  them (the including file's folder, then the Makefile's -I paths), under
  every #if branch.
- The check finds each kind of fault in a tree made for it in a temporary
  directory, so a rule that no longer matches anything fails here.
"""
import os
import re
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The Makefile's CFLAGS, in their order.
INCLUDE_DIRS = ("include", "bpf", "loader", "tests/lib")
# Lowest first: a layer may include its own and those before it.
LAYERS = ("model", "policy", "kernel", "lib", "cli")
PUBLIC_LIB = "loader/lib/steer.h"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
failed = False


def result(ok, name, detail=()):
    global failed
    print(("PASS" if ok else "FAIL") + " layers: " + name)
    if not ok:
        failed = True
        for line in list(detail)[:20]:
            print("  " + line)


def includes(root, path):
    """[(line number, included file relative to root)] of the quoted
    includes of root/path that name a file of the tree."""
    out = []
    with open(os.path.join(root, path), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            for d in (os.path.dirname(path),) + INCLUDE_DIRS:
                cand = os.path.normpath(os.path.join(d, m.group(1)))
                if os.path.isfile(os.path.join(root, cand)):
                    out.append((n, cand))
                    break
    return out


def layer_of(path):
    """The loader folder 'path' is in ("kernel", "util"), or None."""
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[0] == "loader" else None


def sources(root, layer):
    d = os.path.join(root, "loader", layer)
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join("loader", layer, f) for f in os.listdir(d)
                  if f.endswith((".c", ".h")))


def direct_faults(root):
    """Includes that point up, or sideways into what a layer may not use."""
    faults = []
    for layer in LAYERS + ("util",):
        for path in sources(root, layer):
            for n, inc in includes(root, path):
                to = layer_of(inc)
                if to is None or to == layer or to == "util":
                    continue
                if layer == "util" or to not in LAYERS or \
                   LAYERS.index(to) > LAYERS.index(layer):
                    faults.append(f"{path}:{n}: {layer}/ includes {inc}, "
                                  f"a layer above it")
                elif layer == "cli" and to == "kernel":
                    faults.append(f"{path}:{n}: cli/ includes {inc}: the "
                                  f"CLI reaches the kernel layer through "
                                  f"the library")
                elif layer == "cli" and to == "lib" and inc != PUBLIC_LIB:
                    faults.append(f"{path}:{n}: cli/ includes {inc}: of "
                                  f"the library, only {PUBLIC_LIB}")
    return faults


def reached_kernel(root, start):
    """The chain of includes from 'start' to the first header of kernel/
    it reaches, or None."""
    seen, todo = {start}, [(start, [start])]
    while todo:
        path, chain = todo.pop(0)
        for _, inc in includes(root, path):
            if layer_of(inc) == "kernel":
                return chain + [inc]
            if inc not in seen:
                seen.add(inc)
                todo.append((inc, chain + [inc]))
    return None


def reach_faults(root):
    faults = []
    starts = [PUBLIC_LIB] if os.path.isfile(os.path.join(root, PUBLIC_LIB)) \
        else []
    for path in starts + sources(root, "cli"):
        chain = reached_kernel(root, path)
        if chain:
            faults.append(f"{path} reaches {chain[-1]}: " +
                          " -> ".join(chain))
    return faults


def write(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def check_self():
    """Each kind of fault, planted in a tree of its own, is found."""
    cases = (
        ("a cli/ file that includes a kernel/ header",
         {"loader/cli/a.c": '#include "kernel/k.h"\n'},
         "cli/ includes loader/kernel/k.h", direct_faults),
        ("a cli/ file that includes lib/lib_int.h",
         {"loader/cli/a.c": '#include "lib/lib_int.h"\n'},
         "only loader/lib/steer.h", direct_faults),
        ("a model/ file that includes a policy/ header",
         {"loader/model/m.c": '#if 0\n# include "policy/p.h"\n#endif\n'},
         "model/ includes loader/policy/p.h, a layer above", direct_faults),
        ("a util/ header that includes a model/ header",
         {"loader/util/u.h": '#include "model/m.h"\n'},
         "util/ includes loader/model/m.h", direct_faults),
        ("lib/steer.h reaching kernel/ through a header of its own folder",
         {PUBLIC_LIB: '#include "inner.h"\n',
          "loader/lib/inner.h": '#include "kernel/k.h"\n'},
         "loader/lib/steer.h reaches loader/kernel/k.h: loader/lib/steer.h"
         " -> loader/lib/inner.h -> loader/kernel/k.h", reach_faults),
        ("a cli/ file reaching kernel/ through lib/steer.h",
         {"loader/cli/a.c": '#include "cli/a.h"\n',
          "loader/cli/a.h": '#include "lib/steer.h"\n',
          PUBLIC_LIB: '#include "kernel/k.h"\n'},
         "loader/cli/a.c reaches loader/kernel/k.h", reach_faults),
    )
    for name, files, expect, check in cases:
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, {"loader/kernel/k.h": "", "loader/lib/lib_int.h": "",
                        "loader/policy/p.h": "", "loader/model/m.h": "",
                        **files})
            faults = check(tmp)
        result(any(expect in f for f in faults),
               f"the check finds {name}",
               [f"expected a fault naming: {expect}", "found:"] + faults)
    with tempfile.TemporaryDirectory() as tmp:
        write(tmp, {"loader/kernel/k.h": '#include "model/m.h"\n',
                    "loader/lib/l.c": '#include "kernel/k.h"\n'
                                      '#include "lib/lib_int.h"\n',
                    "loader/lib/lib_int.h": '#include "lib/steer.h"\n',
                    PUBLIC_LIB: '#include "model/m.h"\n',
                    "loader/model/m.h": '#include "util/u.h"\n',
                    "loader/util/u.h": "",
                    "loader/cli/a.c": '#include "lib/steer.h"\n'
                                      '#include "model/m.h"\n'})
        faults = direct_faults(tmp) + reach_faults(tmp)
    result(not faults, "the check finds nothing in a tree whose includes "
           "all point down", faults)


def main():
    check_self()
    if not sources(ROOT, "cli") or not os.path.isfile(
            os.path.join(ROOT, PUBLIC_LIB)):
        result(False, "loader/cli/ and loader/lib/steer.h are where this "
               "test looks for them", [ROOT])
        return 1
    result(not direct_faults(ROOT), "every loader/ file includes only its "
           "own layer, those below it and util/; cli/ nothing of kernel/ "
           "and of lib/ only lib/steer.h", direct_faults(ROOT))
    result(not reach_faults(ROOT), "lib/steer.h and every cli/ file reach "
           "no kernel/ header through any chain of includes",
           reach_faults(ROOT))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
