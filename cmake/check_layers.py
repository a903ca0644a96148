#!/usr/bin/env python3
"""Check the layers of native/src (native/src/README.md).

    check_layers.py NATIVE_SRC_DIR [LIBSNAPCOMMIT_A]

Fails (exit 1, one line per finding) when
  - a file of native/src is not inside one of the layer folders;
  - a file includes a header of a higher layer (public headers, "snapcommit/...", are
    allowed everywhere), or a header that does not exist under native/src;
  - modules include each other in a circle. A module is a folder's x.c with x.h and
    x_internal.h, so "a.c includes b.h while b.c includes a.h" is a circle even though
    no header includes itself;
and, given the static library, on what the compiled files really use:
  - a file calls or reads a symbol defined in a file of a higher layer;
  - files use each other's symbols in a circle (a.c -> b.c -> a.c).
Calls through function pointers (the store backends' and strategies' tables) are not
symbol references, which is what lets a lower layer be driven from above.
"""
import os
import re
import subprocess
import sys

# Lowest first. A file may include (and use) only its own layer and the ones before it.
LAYERS = ["base", "format", "s3", "store", "strategy", "engine"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


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
            lt = layer_of(target)
            if lt is not None and lt > layer_of(rel):
                problems.append(f'{rel}: includes "{target}": layer {LAYERS[layer_of(rel)]} may not '
                                f'include the higher layer {LAYERS[lt]}')
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
            if la is not None and lb is not None and lb > la:
                problems.append(f"{rel}: uses {sym} from {owner}: layer {LAYERS[la]} may not "
                                f"depend on the higher layer {LAYERS[lb]}")
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
        print(f"layers: {len(problems)} problem(s) in {len(files)} files ({' < '.join(LAYERS)})")
        return 1
    print(f"layers: {len(files)} files, {what} follow {' < '.join(LAYERS)}, no circles: 1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
