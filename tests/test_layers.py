"""The layers import one way (docs/ARCHITECTURE.md): no import runs from a lower layer to
a higher one, and no modules import each other in a circle.

Every ``import`` and ``from ... import`` of the package counts, at the top of a module
or inside a function alike, since a late import is a dependency all the same.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The layers, lowest first; a module may import its own layer and the ones before it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("catan_p2p.errors", "catan_p2p.printable", "catan_p2p.clock"),
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


#: What ``protocol/`` may not import: the standard library's ways to touch a disk, a
#: process, a socket, the clock or the system's randomness, and the package's modules
#: that do.
IMPURE = (
    "os",
    "random",
    "secrets",
    "uuid",
    "io",
    "sys",
    "time",
    "datetime",
    "pathlib",
    "shutil",
    "tempfile",
    "subprocess",
    "socket",
    "select",
    "threading",
    "fcntl",
    "signal",
    "urllib",
    "http",
    "asyncio",
    "concurrent.futures",
    "multiprocessing",
    "importlib",
    "builtins",
    "ctypes",
    "mmap",
    "glob",
    "logging",
    "catan_p2p.clock",
    "catan_p2p.store.repo",
    "catan_p2p.store.memory",
    "catan_p2p.store.gitcmd",
    "catan_p2p.store.catfile",
    "catan_p2p.store.reflock",
    "catan_p2p.store.spares",
    "catan_p2p.store.foreign",
    "catan_p2p.store.disk",
    "catan_p2p.store.objects",
    "catan_p2p.store.refs",
    "catan_p2p.replica",
    "catan_p2p.net",
    "catan_p2p.session",
    "catan_p2p.client",
    "catan_p2p.commands",
)

#: The impure imports a module the protocol reaches may keep, and why: they compute, they
#: touch no disk, process, socket or clock. The deck's proofs spread their rounds over a
#: thread pool as wide as the cores ``os`` counts; the result is the loop's, sooner.
COMPUTE_ONLY: dict[str, tuple[str, ...]] = {
    "catan_p2p.trust.poker": ("os", "concurrent.futures"),
}

#: Calls that read the clock or a file whatever was imported.
IMPURE_CALLS = ("open", "input", "print", "exec", "eval", "__import__")
#: Methods that draw the system's randomness whatever was imported (a new key: the
#: protocol checks keys, ``session/keys.py`` makes them).
RANDOM_METHODS = ("generate", "urandom", "token_bytes", "getrandom", "randbytes")


def _impurities(path: Path, module: str | None = None) -> list[str]:
    """What in ``path`` (the file of ``module``) touches a disk, a process, a socket or the
    clock, one line each, naming the file, the line and the import or call."""
    found = []
    package = (module or _module(path)).rpartition(".")[0]  # relative imports start here
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package it sits in
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            names = [base, *(f"{base}.{a.name}" for a in node.names)]
        for name in names:
            if any(name == bad or name.startswith(bad + ".") for bad in IMPURE):
                found.append(f"{path.name}:{node.lineno} imports {name}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in IMPURE_CALLS
        ):
            found.append(f"{path.name}:{node.lineno} calls {node.func.id}()")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in RANDOM_METHODS
        ):
            found.append(f"{path.name}:{node.lineno} draws randomness: .{node.func.attr}()")
        if isinstance(node, ast.Name) and node.id in ("GameRepo", "MemoryRepo", "Repository"):
            found.append(f"{path.name}:{node.lineno} names {node.id}, not a CommitGraph")
    return sorted(set(found))


def _file(module: str) -> Path:
    base = ROOT / module.replace(".", "/")
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def _reached(graph: dict[str, set[str]], roots: list[str]) -> dict[str, list[str]]:
    """Every module ``roots`` import, directly or through others: module -> the chain of
    imports that reaches it (shortest first, so a failure names the way in)."""
    chains = {r: [r] for r in roots}
    queue = list(roots)
    while queue:
        m = queue.pop(0)
        for i in sorted(graph.get(m, ())):
            if i not in chains:
                chains[i] = [*chains[m], i]
                queue.append(i)
    return chains


def test_the_protocol_is_pure():
    """``protocol/`` decides from history and the time it is told: no disk, process,
    socket or clock of its own, and no repository but the read-only ``CommitGraph``."""
    impure = [i for p in sorted((ROOT / "catan_p2p/protocol").glob("*.py")) for i in _impurities(p)]
    assert impure == []


def test_the_purity_check_sees_what_it_must_refuse(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import time\nfrom pathlib import Path\nfrom catan_p2p.store.repo import GameRepo\n"
        "def f(repo: GameRepo):\n    return open(Path('x')).read(), time.time()\n"
        "def g():\n    return Ed25519PrivateKey.generate()\nimport secrets\n"
    )
    found = _impurities(bad, "catan_p2p.protocol.bad")
    assert any("imports time" in f for f in found)
    assert any("imports pathlib" in f for f in found)
    assert any("catan_p2p.store.repo" in f for f in found)
    assert any("calls open()" in f for f in found)
    assert any("names GameRepo" in f for f in found)
    assert any("draws randomness: .generate()" in f for f in found)
    assert any("imports secrets" in f for f in found)


def test_what_the_protocol_imports_is_pure_too():
    """A pure ``protocol/`` may lean only on pure modules below it: the store's formats
    (``store.formats``), ref names (``store.refnames``), codec, reading and schema, the
    rules and the trust layer. A module it reaches that does I/O is named with the chain
    of imports that reaches it."""
    graph = _graph()
    roots = sorted(m for m in graph if m.startswith("catan_p2p.protocol"))
    impure = [
        f"{' -> '.join(chain)}: {i}"
        for m, chain in sorted(_reached(graph, roots).items())
        if not m.startswith("catan_p2p.protocol")
        for i in _impurities(_file(m))
        if not any(f" imports {ok}" in i for ok in COMPUTE_ONLY.get(m, ()))
    ]
    assert impure == []


def test_the_reach_check_names_the_way_in():
    """The store's disk modules are impure, so a protocol module importing one fails the
    test above with the chain that reaches it."""
    assert _impurities(_file("catan_p2p.store.refs"))
    assert _impurities(_file("catan_p2p.store.objects"))
    graph = {"p.a": {"s.names"}, "s.names": {"s.disk"}, "s.disk": set()}
    assert _reached(graph, ["p.a"])["s.disk"] == ["p.a", "s.names", "s.disk"]


def test_the_purity_check_resolves_relative_imports(tmp_path):
    bad = tmp_path / "probe.py"
    bad.write_text("from ..store import repo\nfrom .. import clock\n")
    found = _impurities(bad, "catan_p2p.protocol.probe")
    assert any("catan_p2p.store.repo" in f for f in found)
    assert any("catan_p2p.clock" in f for f in found)


#: Ways a test could set the system's clock under the code instead of telling it the time.
CLOCK_PATCHES = (
    re.compile(r"setattr\(\s*[\w.]+,\s*[\"']time[\"']"),  # setattr(time, "time", ...)
    re.compile(r"setattr\(\s*[\"'][\w.]*\btime\.time[\"']"),  # setattr("time.time", ...)
    re.compile(r"patch(\.object)?\(\s*[\"']?[\w.]*\btime[\"']?(,\s*[\"']time[\"'])?"),
    re.compile(r"\btime\.time\s*="),
    re.compile(r"^\s*(import|from)\s+(freezegun|time_machine)\b"),
)
#: Ways a test could set the process clock by hand rather than through ``fake_clock``.
SOURCE_SET = re.compile(
    r"setattr\(\s*(clock|timekeeping),\s*[\"']source[\"']|\b(clock|timekeeping)\.source\s*=(?!=)"
)
#: Where the process clock is set: the fixture, and the model's virtual clock (skewed per
#: peer, inside a ``with``).
SETS_THE_SOURCE = ("tests/conftest.py", "tests/peernet.py")


def _test_lines(patterns, allowed=()) -> list[str]:
    return [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in sorted((ROOT / "tests").glob("**/*.py"))
        if p.name != "test_layers.py" and str(p.relative_to(ROOT)) not in allowed
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if any(pat.search(line) for pat in patterns)
    ]


def test_no_test_sets_the_system_clock():
    """A test moves time through the ``fake_clock`` fixture, never by patching
    ``time.time``: the protocol takes the time it is given."""
    assert _test_lines(CLOCK_PATCHES) == []


def test_time_moves_only_through_the_fake_clock():
    """``catan_p2p.clock.source`` is set by the fixture (and the model's virtual clock)
    alone, so a test says what time it is in one way, which the fixture undoes."""
    assert _test_lines([SOURCE_SET], SETS_THE_SOURCE) == []


def test_the_clock_guards_see_what_they_must_refuse():
    caught = [
        'monkeypatch.setattr(time, "time", lambda: 5)',
        'monkeypatch.setattr(repo_mod.time, "time", lambda: 5)',
        'monkeypatch.setattr("time.time", lambda: 5)',
        'with mock.patch("time.time", return_value=5):',
        'with mock.patch.object(time, "time", return_value=5):',
        "time.time = lambda: 5",
        "from freezegun import freeze_time",
    ]
    assert [c for c in caught if not any(p.search(c) for p in CLOCK_PATCHES)] == []
    assert SOURCE_SET.search('monkeypatch.setattr(clock, "source", lambda: 5)')
    assert SOURCE_SET.search("clock.source = lambda: 5")
    fine = [
        "fake_clock.set(now + 60)",
        "started = time.time()",
        'monkeypatch.setattr(objects, "write_pack", _full)',
    ]
    assert [f for f in fine if any(p.search(f) for p in (*CLOCK_PATCHES, SOURCE_SET))] == []


#: Ways the package could read the time of day beside ``catan_p2p.clock``.
CLOCK_READS = re.compile(
    r"\btime\.(time|time_ns)\(|\bdatetime\.(now|utcnow|today)\(|\bdate\.today\(|"
    r"^\s*from\s+time\s+import\s+[^#]*\btime\b"
)


def _clock_reads(source: str) -> list[int]:
    return [n for n, line in enumerate(source.splitlines(), 1) if CLOCK_READS.search(line)]


def test_the_package_reads_the_time_only_through_the_clock():
    """Every "now" of the package (a commit's date, "fetched 5 s ago", a lock's age, a
    waiting time) comes from ``clock.now()``, so a test's clock (``fake_clock``, the
    model's virtual time) is the time of every module, the window's included. Durations
    read ``time.monotonic`` or ``perf_counter``, which this allows."""
    package = ROOT / "catan_p2p"
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted(package.glob("**/*.py"))
        if p != package / "clock.py"
        for n in _clock_reads(p.read_text())
    ]
    assert found == []


def test_the_clock_read_guard_sees_what_it_must_refuse():
    caught = [
        "since = time.time()",
        "stamp = time.time_ns()",
        "when = datetime.now(timezone.utc)",
        "day = date.today()",
        "from time import monotonic, time",
    ]
    assert [c for c in caught if not _clock_reads(c)] == []
    fine = ["t0 = time.monotonic()", "clock.now()", "time.strftime('%H:%M', time.gmtime(w))"]
    assert [f for f in fine if _clock_reads(f)] == []
