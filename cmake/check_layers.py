#!/usr/bin/env python3
"""Check the layers of native/src against the table of native/src/README.md.

    check_layers.py NATIVE_SRC_DIR [LIBSNAPCOMMIT_A]

The layers and what each may include come from the table in NATIVE_SRC_DIR/README.md
(columns "#", "folder" and "may include"); a table that cannot be read fails the check.
Fails (exit 1, one line per finding) when
  - a file of native/src is not inside one of the layer folders;
  - a file includes a header of a layer its own layer's "may include" cell does not name
    (public headers, "snapcommit/...", are allowed everywhere), or a header that does not
    exist under native/src;
  - modules include each other in a circle. A module is a folder's x.c with x.h and
    x_internal.h, so "a.c includes b.h while b.c includes a.h" is a circle even though
    no header includes itself;
and, given the static library, on what the compiled files really use:
  - a file calls or reads a symbol defined in a layer its own may not include;
  - files use each other's symbols in a circle (a.c -> b.c -> a.c).
Calls through function pointers (the store backends' and strategies' tables) are not
symbol references, which is what lets a lower layer be driven from above.
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# Filled by read_layers(): the layer folders lowest first, and for each the layers it may use
# besides itself.
LAYERS = []
ALLOWED = {}


class TableError(Exception):
    pass


def read_layers(readme):
    """The layer table of native/src/README.md: (folders lowest first, {folder: set it may include}).

    A row reads | n | `folder/` | what it holds | may include |, numbered 1, 2, ... in order;
    "may include" is "public headers only", "everything below", or folders of lower rows
    separated by commas. Anything else raises TableError naming the line."""
    try:
        with open(readme, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TableError(f"{readme}: cannot be read ({e.strerror})")

    def cells(line):
        return [c.strip() for c in line.strip().strip("|").split("|")]

    header = None
    for i, line in enumerate(lines):
        if line.lstrip().startswith("|"):
            c = cells(line)
            if c and c[0] == "#" and len(c) >= 3 and c[1] == "folder" and c[-1] == "may include":
                header = i
                break
    if header is None:
        raise TableError(f'{readme}: no layer table (a row "| # | folder | ... | may include |")')
    if header + 1 >= len(lines) or not re.fullmatch(r"\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*", lines[header + 1].strip()):
        raise TableError(f"{readme}:{header + 2}: the layer table has no separator row under its header")
    order, allowed = [], {}
    width = len(cells(lines[header]))
    for i in range(header + 2, len(lines)):
        line = lines[i]
        if not line.lstrip().startswith("|"):
            break
        where = f"{readme}:{i + 1}"
        c = cells(line)
        if len(c) < width:
            raise TableError(f"{where}: {len(c)} cells, the header has {width}")
        number, folder, may = c[0], c[1], c[-1]
        if number != str(len(order) + 1):
            raise TableError(f'{where}: row number "{number}", expected {len(order) + 1}')
        m = re.fullmatch(r"`([a-z0-9_]+)/`", folder)
        if not m:
            raise TableError(f'{where}: folder "{folder}" is not a `name/` cell')
        name = m.group(1)
        if name in allowed:
            raise TableError(f"{where}: layer {name} listed twice")
        if may == "public headers only":
            uses = set()
        elif may == "everything below":
            uses = set(order)
        else:
            uses = set()
            for item in may.split(","):
                item = item.strip().strip("`").rstrip("/")
                if item not in allowed:
                    raise TableError(f'{where}: "may include" names "{item}", which is not the folder of an '
                                     f'earlier row (a layer may include only lower ones)')
                uses.add(item)
        order.append(name)
        allowed[name] = uses
    if not order:
        raise TableError(f"{readme}:{header + 1}: the layer table has no rows")
    return order, allowed


def may_use(la, lb):
    """Whether layer index la may include or call into layer index lb."""
    return la == lb or LAYERS[lb] in ALLOWED[LAYERS[la]]


def allowed_text(la):
    uses = [l for l in LAYERS if l in ALLOWED[LAYERS[la]]]
    return ", ".join(uses) if uses else "public headers only"


def module_of(rel):
    folder, name = os.path.split(rel)
    stem = os.path.splitext(name)[0]
    if stem.endswith("_internal"):
        stem = stem[: -len("_internal")]
    return folder + "/" + stem


def layer_of(rel):
    first = rel.split("/", 1)[0]
    return LAYERS.index(first) if first in LAYERS and "/" in rel else None


def strongly_connected(graph):
    """Tarjan's algorithm; returns the components of more than one node."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_includes(src, files, problems):
    graph, why = {}, {}
    for rel in files:
        if layer_of(rel) is None:
            problems.append(f"{rel}: not in a layer folder ({', '.join(LAYERS)}): move it into one")
            continue
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            text = f.read()
        for target in INCLUDE.findall(text):
            if target.startswith("snapcommit/"):
                continue
            if target not in files:
                problems.append(f'{rel}: includes "{target}", which is not a file under native/src '
                                f'(includes name the layer folder: "base/buf.h")')
                continue
            la, lt = layer_of(rel), layer_of(target)
            if lt is not None and not may_use(la, lt):
                problems.append(f'{rel}: includes "{target}": layer {LAYERS[la]} may not include '
                                f'{LAYERS[lt]} (it may include: {allowed_text(la)})')
            a, b = module_of(rel), module_of(target)
            if a != b:
                graph.setdefault(a, set()).add(b)
                why.setdefault((a, b), f"{rel} includes {target}")
    for comp in strongly_connected(graph):
        links = [why[(a, b)] for a in comp for b in comp if (a, b) in why]
        problems.append(f"include circle between {', '.join(comp)}: " + "; ".join(links))


def check_symbols(src, files, lib, problems):
    by_base = {}
    for rel in files:
        if rel.endswith(".c"):
            by_base.setdefault(os.path.basename(rel), []).append(rel)
    for base, rels in by_base.items():
        if len(rels) > 1:
            problems.append(f"{' and '.join(rels)}: two sources named {base} (the archive cannot tell them apart)")
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
    defined, used = {}, {}
    for line in out.splitlines():
        # "lib.a:member.c.o:0000000000000000 T sc_name" or "lib.a:member.c.o:                 U sc_name"
        head, _, rest = line.rpartition(".o:")
        member = os.path.basename(head.split(":")[-1])  # "store.c"
        parts = rest.split()
        if len(parts) < 2 or member not in by_base or len(by_base[member]) != 1:
            continue
        rel = by_base[member][0]
        kind, sym = parts[-2], parts[-1]
        if kind == "U":
            used.setdefault(rel, set()).add(sym)
        elif kind in "TDRBCG" and kind.isupper():
            defined[sym] = rel
    if not defined:
        problems.append(f"{lib}: no symbols read (nm failed or the archive is empty)")
        return
    graph, why = {}, {}
    for rel, syms in sorted(used.items()):
        for sym in sorted(syms):
            owner = defined.get(sym)
            if owner is None or owner == rel:
                continue
            la, lb = layer_of(rel), layer_of(owner)
            if la is not None and lb is not None and not may_use(la, lb):
                problems.append(f"{rel}: uses {sym} from {owner}: layer {LAYERS[la]} may not "
                                f"depend on {LAYERS[lb]} (it may include: {allowed_text(la)})")
            graph.setdefault(rel, set()).add(owner)
            why.setdefault((rel, owner), f"{rel} uses {sym} ({owner})")
    for comp in strongly_connected(graph):
        links = [why[(a, b)] for a in comp for b in comp if (a, b) in why]
        problems.append(f"call circle between {', '.join(comp)}: " + "; ".join(links))


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    src = argv[1]
    readme = os.path.join(src, "README.md")
    try:
        order, allowed = read_layers(readme)
    except TableError as e:
        print(f"layers: the layer table cannot be read, so nothing was checked: {e}")
        return 1
    LAYERS[:] = order
    ALLOWED.clear()
    ALLOWED.update(allowed)
    files = set()
    for root, _, names in os.walk(src):
        for name in names:
            if name.endswith((".c", ".h")):
                files.add(os.path.relpath(os.path.join(root, name), src).replace(os.sep, "/"))
    problems = []
    check_includes(src, files, problems)
    if len(argv) == 3:
        check_symbols(src, files, argv[2], problems)
    for p in problems:
        print("layers: " + p)
    what = "includes and symbols" if len(argv) == 3 else "includes"
    if problems:
        print(f"layers: {len(problems)} problem(s) in {len(files)} files (table of {readme})")
        return 1
    print(f"layers: {len(files)} files, {what} follow the table of {readme} "
          f"({'; '.join(l + ': ' + allowed_text(i) for i, l in enumerate(LAYERS))}), no circles: 1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
