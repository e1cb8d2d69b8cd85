"""A/B of the cost of bounding every transfer: the game's fetch and push through the one
bounded reader (this checkout's ``net/transport.py``) against another revision's.

Three ways, in one process, taking turns round by round (pairs alternate their order):

* ``this``: this checkout's transport (every Git run read within its bound);
* ``base``: the transport at ``--base`` (git revision, default ``5f1291f``, the last main before every transfer was bounded), whose fetch
  and push read Git whole with ``Popen.communicate``;
* ``base_threads``: the same revision's transport with every run given a ``limit=``,
  so its fetch and push go through its thread-per-pipe reader (the cost that kept
  them unbounded).

Each round, per way, ``--ops`` of each of: a fetch of an unchanged bare remote (the
idle sync round), a fetch of a remote one new commit ahead (another seat moved), a push
of one new commit of our own. Setting up each change is not timed. Reported per
operation: the median over rounds of each round's mean wall ms, and of the process's
own CPU ms (Python's side of the transfer: Git's own CPU is the same for every way),
and the median paired ratios ``this / base`` and ``base_threads / base`` of each.
The machine of the results (2 shared cores) was busy: quote ratios, not milliseconds. Run::

    python -m benchmarks.ab_bound [--base REV] [--rounds 9] [--ops 20] [--out PATH]
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from catan_p2p import clock
from catan_p2p.net import transport
from catan_p2p.store import gitcmd
from catan_p2p.store.refnames import PREFIX

GAME = "ab"
MINE, THEIRS = f"{PREFIX}/{GAME}/red", f"{PREFIX}/{GAME}/blue"
OPS = ("fetch_unchanged", "fetch_changed", "push")
_WHO = {f"GIT_{k}_{v}": "ab" for k in ("AUTHOR", "COMMITTER") for v in ("NAME", "EMAIL")}


def _base_transport(rev: str, tmp: Path, threads: bool):
    """``net/transport.py`` as it was at ``rev``, loaded as a module of its own."""
    root = Path(__file__).resolve().parent.parent
    text = gitcmd.run(None, "-C", str(root), "show", f"{rev}:catan_p2p/net/transport.py").stdout
    name = "base_transport_threads" if threads else "base_transport"
    path = tmp / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if threads:
        module.run_git = functools.partial(module.run_git, limit=1 << 20)
    return module


def _commit_on(git_dir: Path, ref: str) -> None:
    """One new commit on ``ref`` (its parent the old tip, if any): a move of a seat."""
    tree = gitcmd.run(git_dir, "mktree", input="", check=True).stdout.strip()
    old = gitcmd.run(git_dir, "rev-parse", "--verify", "--quiet", ref).stdout.strip()
    parent = ["-p", old] if old else []
    msg = f"move {time.monotonic_ns()}"
    commit = gitcmd.run(git_dir, "commit-tree", tree, *parent, "-m", msg, env=_WHO, check=True)
    gitcmd.run(git_dir, "update-ref", ref, commit.stdout.strip(), check=True)


def _bare(path: Path) -> Path:
    gitcmd.run(None, "init", "-q", "--bare", str(path), check=True)
    return path


def _round(way, work: Path, ops: int) -> dict[str, tuple[float, float]]:
    """Mean (wall ms, own CPU ms) of each operation, ``ops`` times each, with ``way``."""
    remote, mine, theirs = _bare(work / "remote.git"), _bare(work / "mine.git"), None
    theirs = _bare(work / "theirs.git")
    url = str(remote)
    _commit_on(theirs, THEIRS)
    gitcmd.run(theirs, "push", "-q", url, f"{THEIRS}:{THEIRS}", check=True)
    _commit_on(mine, MINE)
    way.push(mine, [MINE], remote=url)
    logs = [MINE, THEIRS]
    way.fetch(mine, GAME, logs=logs, url=url)
    out = {}
    for op in OPS:
        wall = cpu = 0.0
        for _ in range(ops):
            if op == "fetch_changed":
                _commit_on(theirs, THEIRS)
                gitcmd.run(theirs, "push", "-q", url, f"{THEIRS}:{THEIRS}", check=True)
            elif op == "push":
                _commit_on(mine, MINE)
            t0, c0 = time.perf_counter(), time.process_time()
            if op == "push":
                way.push(mine, [MINE], remote=url)
            else:
                way.fetch(mine, GAME, logs=logs, url=url)
            wall += time.perf_counter() - t0
            cpu += time.process_time() - c0
        out[op] = (wall * 1e3 / ops, cpu * 1e3 / ops)
    return out


def run(base: str, rounds: int, ops: int) -> dict:
    load = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory(prefix="ab-bound-") as tmp:
        ways = {
            "this": transport,
            "base": _base_transport(base, Path(tmp), threads=False),
            "base_threads": _base_transport(base, Path(tmp), threads=True),
        }
        got: dict[str, list[dict]] = {k: [] for k in ways}
        for r in range(rounds):
            order = list(ways) if r % 2 == 0 else list(ways)[::-1]
            for name in order:
                work = Path(tmp) / f"{name}{r}"
                work.mkdir()
                got[name].append(_round(ways[name], work, ops))

    def med(name: str, op: str, i: int) -> float:
        return round(statistics.median(g[op][i] for g in got[name]), 3)

    def ratio(a: str, b: str, op: str, i: int = 0) -> float:
        pairs = zip(got[a], got[b], strict=True)
        return round(statistics.median(x[op][i] / y[op][i] for x, y in pairs), 3)

    return {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(clock.now())),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "load_before_after": [load, round(os.getloadavg()[0], 2)],
        "python": sys.version.split()[0],
        "base": base,
        "rounds": rounds,
        "ops_per_round": ops,
        "wall_ms_median": {n: {op: med(n, op, 0) for op in OPS} for n in ways},
        "own_cpu_ms_median": {n: {op: med(n, op, 1) for op in OPS} for n in ways},
        "ratio_wall_this_over_base": {op: ratio("this", "base", op) for op in OPS},
        "ratio_wall_base_threads_over_base": {op: ratio("base_threads", "base", op) for op in OPS},
        "ratio_own_cpu_this_over_base": {op: ratio("this", "base", op, 1) for op in OPS},
        "ratio_own_cpu_base_threads_over_base": {
            op: ratio("base_threads", "base", op, 1) for op in OPS
        },
        "rounds_wall_ms": {
            n: {op: [round(g[op][0], 2) for g in got[n]] for op in OPS} for n in ways
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="5f1291f", help="git revision to compare against")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--ops", type=int, default=20)
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args()
    result = run(args.base, args.rounds, args.ops)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
