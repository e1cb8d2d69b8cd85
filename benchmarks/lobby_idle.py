"""How much CPU the lobby window uses while nobody touches it.

Starts ``catan-p2p lobby`` as a user does (a process of its own, SDL's dummy video
driver: no screen needed) in a fresh home that knows a few games (two kept where
`--repo` put them, one in the home's games folder), waits ``--warmup`` seconds for it to
settle, then reads the process's CPU time (user + system, from ``/proc``) over
``--seconds`` seconds of idling, ``--runs`` times. The figure is the share of one core.

    python -m benchmarks.lobby_idle [--seconds 10] [--runs 3] [--python PATH] [--label L]

``--python`` runs another checkout's interpreter (e.g. main's ``.venv/bin/python``, for
the figure before a change). Results are added to ``benchmarks/results/lobby_idle.json``
under ``--label``. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "lobby_idle.json"
#: What the lobby should stay under while idle (issue 32): 2 % of one core.
TARGET = 0.02


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def make_home(home: Path, python: str) -> None:
    """A home that knows three games: two made with ``new --repo`` elsewhere, one in its
    games folder (made the same way)."""
    env = {**os.environ, "CATAN_P2P_HOME": str(home), "HOME": str(home)}
    places = [home.parent / "elsewhere-a", home.parent / "elsewhere-b", home / "games" / "here"]
    for i, repo in enumerate(places):
        subprocess.run(
            [python, "-m", "catan_p2p.cli", "new", "--players", "red,blue", "--seed", str(i),
             "--repo", str(repo)],
            env=env, check=True, capture_output=True,
        )  # fmt: skip


def measure(python: str, seconds: float, warmup: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="lobby-idle-") as tmp:
        home = Path(tmp) / "home"
        make_home(home, python)
        env = {
            **os.environ,
            "CATAN_P2P_HOME": str(home),
            "HOME": str(home),
            "SDL_VIDEODRIVER": "dummy",
            "SDL_AUDIODRIVER": "dummy",
        }
        proc = subprocess.Popen(
            [python, "-m", "catan_p2p.cli", "lobby", "--mute"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            time.sleep(warmup)  # a benchmark: it measures time, so it takes time
            if proc.poll() is not None:
                raise SystemExit(f"the lobby ended at once: {proc.stderr.read().decode()[-300:]}")
            before, t0 = cpu_seconds(proc.pid), time.monotonic()
            time.sleep(seconds)
            used, wall = cpu_seconds(proc.pid) - before, time.monotonic() - t0
        finally:
            proc.terminate()
            proc.wait(10)
    return {"cpu_s": round(used, 3), "wall_s": round(wall, 2), "share": round(used / wall, 4)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=4.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--label", default="this checkout")
    args = parser.parse_args(argv)
    runs = [measure(args.python, args.seconds, args.warmup) for _ in range(args.runs)]
    share = statistics.median(r["share"] for r in runs)
    result = {
        "label": args.label,
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "idle_seconds": args.seconds,
        "runs": runs,
        "median_share_of_a_core": share,
        "target": TARGET,
        "met": share < TARGET,
        "load_average": os.getloadavg()[0],
    }
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    old[args.label] = result
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(old, indent=2, sort_keys=True) + "\n")
    print(
        f"{args.label}: idle lobby {share:.1%} of a core (median of {args.runs} x "
        f"{args.seconds:.0f} s; target under {TARGET:.0%})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
