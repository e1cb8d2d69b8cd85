"""``python -m benchmarks.transports``: the networked round over every transport.

A round is what a move costs a two-player table: one peer records an action and pushes
it (``submit``, a signed commit and ``git push``), then the other peer fetches,
verifies and fast-forwards to it (``sync``), and holds it: the same head, or a move of
its own that the move lets it make at once on top (the robber's merge of the card the
robbed seat just gave), which that sync records and pushes as well. That sync also
pushes the other peer's own log, which moved with the fast-forward (a guarded remote
runs its hook on that push too), so it is part of the round. Each transport
serves one bare repository on 127.0.0.1 (``tests/remotes.py``: a path, ``git
daemon``, ``sshd``, ``git http-backend``), once plain and once guarded by the hook of
``catan-p2p host init``, which checks every push. Both peers live in this process,
each with its own clone; bots choose the moves, and rounds in which the acting seat
only answered a concurrent step (no new head) are not counted.

Writes ``benchmarks/results/transports.json`` (or ``--out``); ``--json`` prints it too.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from catan_p2p.bots import make_bot
from catan_p2p.commands.host import install_hook
from catan_p2p.net import transport
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game, join_game
from catan_p2p.sim import next_actor
from catan_p2p.store import gitcmd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the servers are the tests' fixtures

from remotes import KINDS, ServerUnavailable, serve  # noqa: E402

ROUNDS = 30
WARM_UP = 2  # rounds played first and not counted (first connections, caches)
OUT = ROOT / "benchmarks" / "results" / "transports.json"


@contextmanager
def _environ(extra: dict[str, str]):
    """Set ``extra`` in this process's environment (Git children inherit it) until exit."""
    old = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _bare(path: Path, hook: bool) -> Path:
    gitcmd.run(None, "init", "-q", "--bare", str(path), check=True)
    if hook:
        install_hook(path)
    return path


def _table(work: Path, url: str) -> dict[str, GitSession]:
    """Red creates the game on ``url``, Blue joins, and the seat lobby closes."""
    create_game(work / "red", ["red", "blue"], seed="transports", game_id="t", local=("red",))
    red = GitSession(work / "red", "t", ("red",))
    transport.set_remote(red.repo.git_dir, url)
    red.close()
    red = GitSession(work / "red", "t", ("red",))
    red.flush()
    seats = {"red": red, "blue": join_game(url, work / "blue", "t", "blue")}
    for _ in range(2):
        for s in seats.values():
            status = s.sync()
            if status.error:
                raise RuntimeError(status.error)
    if red.state.lobby_open or red.head != seats["blue"].head:
        raise RuntimeError("the seat lobby did not close")
    return seats


def _rounds(seats: dict[str, GitSession], rounds: int) -> dict[str, list[float]]:
    bots = {p: make_bot("greedy", f"transports/{p}") for p in seats}
    push_ms: list[float] = []
    fetch_ms: list[float] = []
    round_ms: list[float] = []
    tries = 0
    while len(round_ms) < rounds + WARM_UP:
        tries += 1
        if tries > 10 * (rounds + WARM_UP):
            raise RuntimeError("too many rounds without a new head")
        for s in seats.values():
            s.sync()  # both up to date before the timed round (not timed)
        player = next_actor(seats["red"].state)
        actor = seats[player]
        other = seats["blue" if player == "red" else "red"]
        before = actor.head
        action = bots[player].decide(actor.state, actor.legal_actions(player))
        t0 = time.perf_counter()
        actor.submit(action)  # commit, sign, push
        t1 = time.perf_counter()
        status = other.sync()  # fetch, verify, fast-forward
        t2 = time.perf_counter()
        if status.error:
            raise RuntimeError(status.error)
        if actor.head == before:
            continue  # an answer on a temporary branch: no new head to hold yet
        if not other.repo.is_ancestor(actor.head, other.head):  # its own follow-up may be on it
            raise RuntimeError(f"{player} pushed {actor.head[:10]}, the other holds {other.head}")
        push_ms.append((t1 - t0) * 1e3)
        fetch_ms.append((t2 - t1) * 1e3)
        round_ms.append((t2 - t0) * 1e3)
    return {
        k: v[WARM_UP:] for k, v in (("push", push_ms), ("fetch", fetch_ms), ("round", round_ms))
    }


def _summary(times: dict[str, list[float]]) -> dict:
    r = times["round"]
    return {
        "rounds": len(r),
        "round_median_ms": round(statistics.median(r), 1),
        "round_p90_ms": round(statistics.quantiles(r, n=10)[-1], 1),
        "round_min_ms": round(min(r), 1),
        "submit_median_ms": round(statistics.median(times["push"]), 1),
        "sync_median_ms": round(statistics.median(times["fetch"]), 1),
    }


def measure(kind: str, hook: bool, rounds: int, work: Path) -> dict:
    """Median networked round over ``kind``, plain or guarded by the hook."""
    work.mkdir(parents=True)
    bare = _bare(work / "remote.git", hook)
    try:
        with serve(kind, bare, work / "server") as served, _environ(served.env):
            seats = _table(work, served.url)
            try:
                return _summary(_rounds(seats, rounds))
            finally:
                for s in seats.values():
                    s.close()
    except ServerUnavailable as exc:
        return {"skipped": str(exc)}


def _git_version() -> str:
    return gitcmd.run(None, "--version").stdout.strip()


def run(rounds: int, kinds: tuple[str, ...]) -> dict:
    results: dict = {
        "what": "one peer's submit (commit, sign, push), then the other peer's sync (fetch, "
        "verify, fast-forward, push of its own log) holding it; 2 players, bots, one process, "
        "each peer its own clone; servers on 127.0.0.1",
        "rounds_per_transport": rounds,
        "machine": {
            "python": platform.python_version(),
            "git": _git_version(),
            "cpus": os.cpu_count(),
            "load_average_before": [round(x, 2) for x in os.getloadavg()],
        },
        "transports": {},
    }
    with tempfile.TemporaryDirectory(prefix="catan-transports-") as tmp:
        with _environ({"CATAN_P2P_HOME": str(Path(tmp) / "home")}):
            for kind in kinds:
                for hook in (False, True):
                    label = "hook" if hook else "plain"
                    print(f"transports: {kind} ({label}) ...", file=sys.stderr, flush=True)
                    result = measure(kind, hook, rounds, Path(tmp) / f"{kind}-{label}")
                    results["transports"].setdefault(kind, {})[label] = result
    results["machine"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return results


def _table_text(results: dict) -> str:
    lines = [f"{'transport':<10} {'remote':<6} {'median':>9} {'p90':>9} {'submit':>9} {'sync':>9}"]
    for kind, by_hook in results["transports"].items():
        for label, r in by_hook.items():
            if "skipped" in r:
                lines.append(f"{kind:<10} {label:<6} skipped: {r['skipped']}")
                continue
            lines.append(
                f"{kind:<10} {label:<6} {r['round_median_ms']:>7.1f}ms {r['round_p90_ms']:>7.1f}ms "
                f"{r['submit_median_ms']:>7.1f}ms {r['sync_median_ms']:>7.1f}ms"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.transports", description=__doc__)
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="timed rounds per transport")
    parser.add_argument("--transports", default=",".join(KINDS), help="comma-separated kinds")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the JSON")
    parser.add_argument("--json", action="store_true", help="print the JSON on stdout")
    args = parser.parse_args(argv)
    kinds = tuple(k for k in args.transports.split(",") if k)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or args.rounds < 2:
        parser.error(f"--transports takes {', '.join(KINDS)}; --rounds at least 2")
    results = run(args.rounds, kinds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(json.dumps(results, indent=1, sort_keys=True) if args.json else _table_text(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
