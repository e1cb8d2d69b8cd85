"""The layers import one way (docs/ARCHITECTURE.md): no import runs from a lower layer to
a higher one, and no modules import each other in a circle.

Every ``import`` and ``from ... import`` of the package counts, at the top of a module
or inside a function alike, since a late import is a dependency all the same.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The layers, lowest first; a module may import its own layer and the ones before it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("catan_p2p.errors", "catan_p2p.printable"),
    ("catan_p2p.rules",),
    ("catan_p2p.trust",),
    ("catan_p2p.boards",),
    ("catan_p2p.bots",),
    ("catan_p2p.store",),
    ("catan_p2p.protocol",),
    ("catan_p2p.replica",),
    ("catan_p2p.net",),
    ("catan_p2p.session",),
    ("catan_p2p.client", "catan_p2p.sim"),
    ("catan_p2p.bridges",),
    ("catan_p2p.commands", "catan_p2p.cli", "catan_p2p.__main__"),
    ("benchmarks", "tools"),
)


def _layer(module: str) -> int | None:
    for rank, names in enumerate(LAYERS):
        if any(module == n or module.startswith(n + ".") for n in names):
            return rank
    return None


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package it sits in
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return found


@cache  # parsed once for the three tests
def _graph() -> dict[str, set[str]]:
    files = [
        p
        for top in ("catan_p2p", "benchmarks", "tools")
        for p in (ROOT / top).glob("**/*.py")
        if ".venv" not in p.parts
    ]
    modules = {_module(p): p for p in files}
    del modules["catan_p2p"]  # the package's face: it defines nothing and imports nothing
    return {m: {i for i in _imports(p) if i in modules and i != m} for m, p in modules.items()}


def test_every_module_sits_in_a_layer():
    assert [m for m in _graph() if _layer(m) is None] == []


def test_no_import_runs_up_a_layer():
    up = [
        f"{m} -> {i}"
        for m, imported in sorted(_graph().items())
        for i in sorted(imported)
        if _layer(i) > _layer(m)  # type: ignore[operator]
    ]
    assert up == []


def test_no_modules_import_each_other_in_a_circle():
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    circles = []

    def walk(m: str, path: list[str]) -> None:
        state[m] = 1
        for i in sorted(graph[m]):
            if state.get(i) == 1:
                circles.append(" -> ".join([*path[path.index(i) :], i]))
            elif i not in state:
                walk(i, [*path, i])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            walk(m, [m])
    assert circles == []
