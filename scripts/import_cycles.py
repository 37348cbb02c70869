"""Import cycles between the modules (files) of a crate's `src/`: exit 1 and each cycle listed.

Usage: python3 scripts/import_cycles.py SRC_DIR...   (e.g. shared/src worker/src app/src)

A module is a file (`x/mod.rs`, `lib.rs` and `main.rs` stand for their folder). Module A imports B
when A's code (comments and `#[cfg(test)] mod tests` left out) names a path `crate::…` or
`super::…` that resolves to B, or to an item inside B; a module naming its own ancestor (its
`mod.rs`, which declares it) does not count. A cycle is a strongly connected set of two or more
modules. Run by tests/architecture.rs.
"""

from __future__ import annotations

import os
import re
import sys

PATH = re.compile(r"\b(crate|super)((?:::\w+)+)")
TESTS = re.compile(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", re.S)


def modules(src: str) -> dict[tuple[str, ...], str]:
    found = {}
    for folder, _, files in os.walk(src):
        for name in files:
            if name.endswith(".rs"):
                path = os.path.join(folder, name)
                module = os.path.relpath(path, src)[: -len(".rs")].split(os.sep)
                if module[-1] in ("mod", "lib", "main"):
                    module = module[:-1]
                found[tuple(module)] = path
    return found


def graph(src: str) -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    mods = modules(src)

    def resolve(path: list[str]) -> tuple[str, ...] | None:
        for k in range(len(path), 0, -1):
            if tuple(path[:k]) in mods:
                return tuple(path[:k])
        return None

    edges: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in mods}
    for module, path in mods.items():
        with open(path, encoding="utf-8") as handle:
            code = "\n".join(
                line for line in handle.read().splitlines() if not line.strip().startswith("//")
            )
        code = TESTS.sub("", code)
        for found in PATH.finditer(code):
            parts = found.group(2).strip(":").split("::")
            base = [] if found.group(1) == "crate" else list(module[:-1])
            target = resolve(base + parts)
            if target and target != module and module[: len(target)] != target:
                edges[module].add(target)
    return edges


def cycles(edges: dict[tuple[str, ...], set[tuple[str, ...]]]) -> list[list[tuple[str, ...]]]:
    """Tarjan's strongly connected components of two or more modules."""
    index: dict[tuple[str, ...], int] = {}
    low: dict[tuple[str, ...], int] = {}
    stack: list[tuple[str, ...]] = []
    on_stack: set[tuple[str, ...]] = set()
    found: list[list[tuple[str, ...]]] = []

    def visit(v: tuple[str, ...]) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    failed = False
    for src in sys.argv[1:]:
        edges = graph(src)
        found = cycles(edges)
        print(f"{src}: {len(edges)} modules, {len(found)} import cycles")
        for component in found:
            failed = True
            members = set(component)
            for v in component:
                inside = sorted("/".join(w) for w in edges[v] if w in members)
                print(f"  {'/'.join(v) or '(root)'} -> {', '.join(inside)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
