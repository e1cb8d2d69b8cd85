"""How fast ``catan-p2p games URL --json`` lists a remote holding many games.

Builds a bare remote holding ``--games`` games (default 1,000: most just started, some
waiting for seats, some played for a few dozen moves by bots) plus junk anyone could push
to a plain remote (refs of no protocol shape, logs naming a blob, a commit that holds
no game), then times the command as a user runs it, as a separate process: the first
listing on this machine (an empty lobby cache: one ``ls-remote``, one shallow fetch of
every game's newest commit) and the next one (only ``ls-remote``, nothing new fetched),
for the remote given as a path (read in place) and as a ``file://`` URL (fetched, as
any network remote is).

    python -m benchmarks.lobby [--games 1000] [--work DIR] [--runs 3]

Results in ``benchmarks/results/lobby.json``. The remote is kept in ``--work`` and reused.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from catan_p2p.boards import make_board
from catan_p2p.bots import make_bot
from catan_p2p.net.driver import Driver
from catan_p2p.net.transport import share_all
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store import gitcmd

PLAYERS = ("red", "blue", "white", "orange")
RESULTS = Path(__file__).parent / "results" / "lobby.json"


def build_remote(work: Path, games: int) -> Path:
    """A bare remote with ``games`` games and junk refs (kept in ``work`` and reused)."""
    remote = work / "remote.git"
    done = work / f"built-{games}"
    if done.exists():
        return remote
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    gitcmd.run(None, "init", "-q", "--bare", str(remote), check=True)
    src = work / "src"
    started = time.perf_counter()
    for i in range(games):
        n = 2 + i % 3
        players = list(PLAYERS[:n])
        game = f"g{i:05d}"
        board = make_board("random", str(i))
        waiting_for_seats = i % 10 == 3
        local = (players[0],) if waiting_for_seats else None
        create_game(src, players, board, seed=str(i), game_id=game, local=local)
        if i % 50 == 7:  # a game under way
            session = GitSession(src, game)
            bots = {p: make_bot("random", f"{game}/{p}") for p in players}
            Driver(session, bots).play(40 + i % 200)
            session.close()
        if i % 100 == 99:
            print(f"{i + 1} games ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    share_all(src, str(remote))
    plant_junk(remote)
    done.touch()
    return remote


def plant_junk(remote: Path) -> None:
    """Refs anyone with write access can push beside the games of a plain remote."""
    blob = gitcmd.run(remote, "hash-object", "-w", "--stdin", input="junk\n", check=True)
    tree = gitcmd.run(remote, "mktree", input="", check=True).stdout.strip()
    commit = gitcmd.run(remote, "commit-tree", tree, "-m", "no game here", check=True)
    blob, commit = blob.stdout.strip(), commit.stdout.strip()
    heads = remote / "refs" / "heads" / "catan"
    for i in range(200):
        for rel, oid in (
            (f"junk{i:03d}/Upper", commit),  # an upper-case name
            (f"junk{i:03d}/a/b/c/d", commit),  # a deeper path
            (f"g{i:05d}/mallory", blob),  # a log naming a blob
            (f"empty{i:03d}/red", commit),  # a commit holding no game
        ):
            path = heads / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(oid + "\n")


def time_listing(remote: str, home: Path) -> tuple[float, dict]:
    """Seconds ``catan-p2p games URL --json`` takes as a process, and what it printed."""
    env = dict(os.environ, CATAN_P2P_HOME=str(home))
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "catan_p2p.cli", "games", remote, "--json"],
        capture_output=True,
        env=env,
        check=True,
    )
    return time.perf_counter() - started, json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--work", default=None, help="where to keep the remote (reused)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    work = Path(args.work) if args.work else Path(tempfile.gettempdir()) / "catan-lobby-bench"
    remote = build_remote(work, args.games)
    timings: dict[str, dict[str, list[float]]] = {}
    listed: dict = {}
    for how, url in (("path", str(remote)), ("file_url", f"file://{remote}")):
        cold, warm = [], []
        for run in range(args.runs):
            with tempfile.TemporaryDirectory() as home:
                seconds, listed = time_listing(url, Path(home))
                cold.append(seconds)
                seconds, _ = time_listing(url, Path(home))
                warm.append(seconds)
            print(
                f"{how} run {run + 1}: first {cold[-1]:.2f} s, again {warm[-1]:.2f} s",
                file=sys.stderr,
            )
        timings[how] = {"first": cold, "again": warm}
    games = listed["games"]

    def figures(runs: list[float]) -> dict:
        return {
            "median": round(statistics.median(runs), 3),
            "max": round(max(runs), 3),
            "runs": [round(r, 3) for r in runs],
        }

    result = {
        "games": len(games),
        "readable": sum(1 for g in games if g["problem"] is None),
        "junk_refs": listed["junk_refs"],
        "refs": int(gitcmd.run(None, "ls-remote", str(remote), check=True).stdout.count("\n")),
        "path_first_listing_s": figures(timings["path"]["first"]),
        "path_next_listing_s": figures(timings["path"]["again"]),
        "fetched_first_listing_s": figures(timings["file_url"]["first"]),
        "fetched_next_listing_s": figures(timings["file_url"]["again"]),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cores": os.cpu_count(),
        "command": "catan-p2p games URL --json, a new process each time, a bare remote on "
        "this disk given as a path (read in place) and as a file:// URL (ls-remote, then "
        "a shallow fetch of every log's newest commit into the lobby cache; 'next' runs "
        "with that cache filled)",
    }
    Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
