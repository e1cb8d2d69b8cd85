"""Git is started from one module and ``cat-file`` from one (issue 34); the layers below
net/ talk to no other machine.

A second place that starts ``git`` (its own ``subprocess.Popen``, the lobby's old
runner that killed Git outright) or its own ``cat-file --batch`` reader forks the rules
every call needs: no password prompt, a deadline, a gentle stop, bounded output. The
checks read the source (every call and import, at the top or inside a function), so a
new one fails here before it ships.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "catan_p2p"

#: The one module that starts ``git``.
GIT_HOME = "catan_p2p/store/gitcmd.py"
#: The one module that starts ``git cat-file``.
CAT_FILE_HOME = "catan_p2p/store/catfile.py"
#: Modules that start a Git that runs on (through ``gitcmd.start``), and why.
LONG_RUNNING = {
    CAT_FILE_HOME: "the one object reader",
    "catan_p2p/store/repo.py": "a repack in the background",
    "catan_p2p/net/transport.py": "transfers, stopped gently (run_git)",
    "catan_p2p/net/serve.py": "git daemon serving a seat",
}
#: Modules that talk to a remote through Git: the one transport and the lobby's listing
#: on top of it (the deadline, the gentle stop and the bounds are ``run_git``'s).
TRANSFERS = {"catan_p2p/net/transport.py", "catan_p2p/net/listing.py"}
#: Git's commands that talk to another machine.
TRANSFER_VERBS = {"fetch", "push", "ls-remote", "clone", "fetch-pack", "send-pack", "archive"}
#: Modules that start a program that is not Git, and what it is.
OTHER_PROGRAMS = {
    "catan_p2p/client/clipboard.py": "the desktop's clipboard tools",
    "catan_p2p/client/notice.py": "the desktop's notification tool",
    "catan_p2p/commands/bench.py": "python -m benchmarks",
}
#: Calls that start a process, by module.
STARTS = {
    "subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput"},
    "os": {"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "pty": {"spawn", "fork"},
}
#: What only net/ (and the layers above it) may import: processes, sockets, the Git
#: program itself.
TALKS = ("subprocess", "socket", "socketserver", "ssl", "http", "urllib", "asyncio", "pty")
TALKS_HERE = ("catan_p2p.store.gitcmd", "catan_p2p.store.catfile", "catan_p2p.net")


@cache  # parsed once for every test here
def _sources() -> dict[str, ast.Module]:
    return {
        p.relative_to(ROOT).as_posix(): ast.parse(p.read_text(), str(p))
        for p in sorted(PACKAGE.glob("**/*.py"))
    }


def _starts(tree: ast.Module) -> list[str]:
    """Every call in ``tree`` that starts a process (``subprocess.Popen(...)``,
    ``os.execv(...)``, a name imported from such a module), as ``module.name``."""
    imported = {}  # a name bound by ``from subprocess import Popen`` -> "subprocess.Popen"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in STARTS:
            for a in node.names:
                imported[a.asname or a.name] = f"{node.module}.{a.name}"
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            name = f"{f.value.id}.{f.attr}"
        elif isinstance(f, ast.Name) and f.id in imported:
            name = imported[f.id]
        else:
            continue
        module, _, attr = name.partition(".")
        if attr in STARTS.get(module, ()) or (
            module == "os" and attr.startswith(("exec", "spawn"))
        ):
            found.append(name)
    return found


def _strings(tree: ast.Module) -> list[str]:
    """The string constants of ``tree`` that are no docstring."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def _imports(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def test_processes_are_started_only_by_the_git_module_and_named_programs():
    starting = {path for path, tree in _sources().items() if _starts(tree)}
    assert starting == {GIT_HOME, *OTHER_PROGRAMS}, (
        "start git through store/gitcmd.py (net.transport.run_git for a remote)"
    )


def test_a_git_that_runs_on_is_started_by_a_known_module():
    starting = set()
    for path, tree in _sources().items():
        for node in ast.walk(tree):
            f = node.func if isinstance(node, ast.Call) else None
            if isinstance(f, ast.Attribute) and f.attr == "start" and _is_gitcmd(f.value):
                starting.add(path)
    assert starting == set(LONG_RUNNING)


def _is_gitcmd(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "gitcmd"


def test_git_talks_to_another_machine_only_through_the_one_transport():
    talking = {path for path, tree in _sources().items() if TRANSFER_VERBS & set(_strings(tree))}
    assert talking == TRANSFERS, "fetch, push and list through net.transport.run_git"


def test_the_programs_that_are_not_git_are_not_git():
    sources = _sources()
    for path in OTHER_PROGRAMS:
        assert "git" not in _strings(sources[path]), path


def test_cat_file_is_started_only_by_the_one_reader():
    naming = {
        path for path, tree in _sources().items() if any("cat-file" in s for s in _strings(tree))
    }
    assert naming == {CAT_FILE_HOME}, "read objects through store.catfile.CatFile"


def test_the_scan_sees_a_second_runner_and_a_second_reader():
    """The checks above would catch what issue 34 removed: the lobby's own runner."""
    second = ast.parse(
        "import subprocess\nfrom subprocess import Popen as P\n"
        "def run(d):\n    '''cat-file in a docstring is only words.'''\n"
        "    subprocess.Popen(['git', '--git-dir', d, 'cat-file', '--batch'])\n"
        "    P(['git', 'ls-remote'])\n    os.execvp('git', ['git'])\n"
    )
    assert sorted(_starts(second)) == ["os.execvp", "subprocess.Popen", "subprocess.Popen"]
    assert "cat-file" in _strings(second)
    assert "cat-file in a docstring is only words." not in _strings(second)


def test_protocol_and_replica_start_no_process_and_open_no_socket():
    """protocol/ is pure and replica/ keeps to its own disk (through store/, which starts
    Git for it): every conversation with another machine is net/'s."""
    talking = {}
    for path, tree in _sources().items():
        if not path.startswith(("catan_p2p/protocol/", "catan_p2p/replica/")):
            continue
        imports = _imports(tree)
        bad = [i for i in imports if i.split(".")[0] in TALKS or i.startswith(TALKS_HERE)]
        if bad or _starts(tree):
            talking[path] = sorted(bad) + _starts(tree)
    assert talking == {}
