"""How soon a remote move shows in the other player's window: ``remote_move_visible_ms``.

Two clones of one game share a bare remote on local disk. Red plays in this thread
(each ``submit`` records the move and pushes it); Blue's session is synced by the
window's peer runtime (``net.runtime``), exactly as ``catan-p2p play --remote`` runs it.
For each of Red's moves the clock runs from the end of Red's push to the moment
Blue's session holds Red's new head. Between moves Red "thinks" for a random while,
so Blue's syncer has backed off as it would at a real table.

Measured twice: with the watch on the remote's ref files (a remote that is a path,
the default) and with polling alone (how a hosted remote is synced).

    python -m benchmarks.remote_visible [--moves N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from catan_p2p.bots import make_bot
from catan_p2p.net.runtime import Runtime
from catan_p2p.net.transport import share_all
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.rules.waiting import actors
from catan_p2p.session.start import create_game, join_game
from catan_p2p.store import gitcmd


def _bare(path: Path) -> Path:
    gitcmd.run(None, "init", "-q", "--bare", str(path), check=True)
    return path


def measure(work: Path, moves: int = 30, watch: bool = True, seed: str = "visible") -> list[float]:
    """Milliseconds from Red's push to Blue's session holding it, one per Red move."""
    remote = _bare(work / "remote.git")
    host = work / "host"
    game = create_game(host, ["red", "blue"], STANDARD_BOARD, seed=seed, game_id="v")
    share_all(host, str(remote))
    red = join_game(str(remote), work / "red", game, "red")
    blue = join_game(str(remote), work / "blue", game, "blue")
    bots = {p: make_bot("random", f"{seed}/{p}") for p in ("red", "blue")}
    think = random.Random(seed)
    syncer = Runtime(blue, watch=watch).start()
    out: list[float] = []
    try:
        # Only moves count against the bound: the waits between them depend on the load
        # of the machine, so counting them would measure fewer moves on a busy one.
        steps = 0
        stuck = time.perf_counter() + 60.0
        while len(out) < moves and not red.state.is_over and steps < 20 * moves:
            if time.perf_counter() > stuck:
                raise RuntimeError("the game made no move for 60 s")
            state = red.state
            waiting = actors(state)
            if "red" in waiting:
                steps += 1
                time.sleep(think.uniform(0.2, 1.0))
                action = bots["red"].decide(state, red.legal_actions("red"))
                red.submit(action)  # recorded and pushed when this returns
                pushed = time.perf_counter()
                head = red.head
                deadline = pushed + 30.0
                while blue.head != head:
                    if time.perf_counter() > deadline:
                        raise RuntimeError("blue never saw red's move")
                    time.sleep(0.001)
                out.append((time.perf_counter() - pushed) * 1000)
                stuck = time.perf_counter() + 60.0
            elif "blue" in waiting:
                bstate = blue.state
                choices = blue.legal_actions("blue")
                if "blue" not in actors(bstate) or not choices:
                    # Blue's syncer records what the game needs of it without a choice (a
                    # robbed seat's answer is written by a sync): Red must fetch it.
                    red.sync()
                    time.sleep(0.01)
                    continue
                steps += 1
                stuck = time.perf_counter() + 60.0
                syncer.submit(bots["blue"].decide(bstate, choices))
                syncer.wait_sent(30.0)
                deadline = time.perf_counter() + 30.0
                while red.head != blue.head and time.perf_counter() < deadline:
                    red.sync()
            else:
                red.sync()
    finally:
        syncer.stop()
        red.close()
        blue.close()
    return out


def summary(xs: list[float]) -> dict:
    return {
        "median": round(statistics.median(xs), 1),
        "mean": round(statistics.fmean(xs), 1),
        "p90": round(sorted(xs)[int(0.9 * (len(xs) - 1))], 1),
        "max": round(max(xs), 1),
        "n": len(xs),
    }


def run(moves: int = 30, poll_moves: int | None = None) -> dict:
    """Both figures, as ``catan-p2p bench`` records them (``poll_moves``, default
    ``moves``: fewer for polling alone, for a smoke test)."""
    result = {}
    for name, watch in (("watch", True), ("poll", False)):
        n = moves if watch or poll_moves is None else poll_moves
        with tempfile.TemporaryDirectory(prefix="catan-visible-") as tmp:
            result[name] = summary(measure(Path(tmp), n, watch))
    result["remote_move_visible_ms"] = result["watch"]["median"]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.remote_visible")
    parser.add_argument("--moves", type=int, default=30, help="red moves timed per mode")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.moves), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
