"""Bot strength: a round robin among our bots and catanatron's, in our engine.

Run ``python -m benchmarks.bots [--quick] [--games N] [--think S] [--jobs J] [--json]``
(``pip install -e '.[bench]'`` for catanatron's players). It writes
``benchmarks/results/bots.json``, ``bots.md`` (the table) and ``bots.png`` (the plot)
unless ``--out`` says elsewhere (``--out -``: write nothing).

How it is played:

- **Matches.** Two players: every pair of {random, greedy, strong, catanatron's
  weighted random, value function and AlphaBeta}, seats swapped every game (so each
  side opens half the games): ``--games`` games per pair, ``--focus`` games for the
  strong bot against AlphaBeta and against greedy. Four players: the strong bot against
  three AlphaBeta players and against three greedy ones (``--games-4p`` each), its seat
  rotated through all four.
- **Fairness.** Every bot sees only what its player may know: the strong and the
  catanatron bots determinise the opponents' development cards. catanatron's players
  cannot trade with players (catanatron has no such action); they decline offers.
- **Figures.** Win share of the first-named bot with a 95 % Wilson interval; games
  stopped at the action limit count as no win for either. Decision times are the
  strong bot's own wall times for decisions with a choice (single-option turns take
  no time), measured at the round robin's ``--think``; ``--timing-games`` more games
  at the default budget (1 s) give ``decision_ms_median``/``_p99`` for that budget.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from catan_p2p.bots.strong import DEFAULT_THINK
from catan_p2p.bridges.strategies import make_bot
from catan_p2p.sim import play_game

COLOURS = ("red", "blue", "white", "orange")
DEFAULT_OUT = Path(__file__).parent / "results"
BOTS = (
    "random",
    "greedy",
    "strong",
    "catanatron:weighted",
    "catanatron:value",
    "catanatron:alphabeta",
)
FOCUS = {("strong", "catanatron:alphabeta"), ("strong", "greedy")}
MAX_ACTIONS = 20_000


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a win share."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Job:
    """One game: the strategy of each seat, in seat order, and the seat under study."""

    match: str
    seats: tuple[str, ...]
    hero: int  # seat whose win share the match reports
    seed: str
    think: float


@dataclass
class Outcome:
    match: str
    hero_won: bool
    winner: str | None
    turns: int
    seconds: float
    strong_ms: list[float] = field(default_factory=list)


def play(job: Job) -> Outcome:
    """Play one game of ``job`` (in a worker process)."""
    names = COLOURS[: len(job.seats)]
    bots = [make_bot(s, f"{job.seed}/{i}", job.think) for i, s in enumerate(job.seats)]
    start = time.perf_counter()
    result = play_game(names, bots, job.seed, check_invariants=False, max_actions=MAX_ACTIONS)
    seconds = time.perf_counter() - start
    winner = None if result.winner is None else job.seats[names.index(result.winner)]
    ms: list[float] = []
    for s, b in zip(job.seats, bots, strict=True):
        if s == "strong":
            ms.extend(getattr(b, "decision_ms", []))
    return Outcome(
        job.match,
        result.winner == names[job.hero],
        winner,
        result.turns,
        seconds,
        ms,
    )


def jobs(
    games: int,
    focus: int,
    games_4p: int,
    think: float,
    bots: tuple[str, ...],
    seed: str = "",
    only: tuple[str, ...] = (),
) -> list[Job]:
    """Every game of the round robin, interleaved so a cut-short run is still balanced.

    ``seed`` prefixes every game's seed (runs with different prefixes play different
    games and can be combined); ``only`` keeps the matches named.
    """
    per_match: list[list[Job]] = []
    for a, b in combinations(bots, 2):
        if b == "strong":
            a, b = b, a  # report every pairing of the strong bot from its side
        n = focus if (a, b) in FOCUS else games
        name = f"{a} vs {b} (2p)"
        per_match.append(
            [
                Job(name, (a, b) if g % 2 == 0 else (b, a), g % 2, f"{seed}{name}/{g}", think)
                for g in range(n)
            ]
        )
    for opponent in ("catanatron:alphabeta", "greedy"):
        if opponent not in bots or "strong" not in bots:
            continue
        name = f"strong vs 3 {opponent} (4p)"
        match = []
        for g in range(games_4p):
            seats = [opponent] * 4
            seats[g % 4] = "strong"
            match.append(Job(name, tuple(seats), g % 4, f"{seed}{name}/{g}", think))
        per_match.append(match)
    if only:
        per_match = [m for m in per_match if m and m[0].match in only]
    if not per_match:
        return []
    out: list[Job] = []
    longest = max(len(m) for m in per_match)
    for i in range(longest):
        out.extend(m[i] for m in per_match if i < len(m))
    return out


def timing_jobs(games: int) -> list[Job]:
    """Games of the strong bot against greedy at the default budget, for its timings."""
    return [
        Job(
            "timing",
            ("strong", "greedy") if g % 2 == 0 else ("greedy", "strong"),
            g % 2,
            f"timing/{g}",
            DEFAULT_THINK,
        )
        for g in range(games)
    ]


def summarise(outcomes: list[Outcome], timing: list[Outcome], think: float, seconds: float) -> dict:
    """The results as one JSON-ready object."""
    matches: dict[str, dict] = {}
    for o in outcomes:
        m = matches.setdefault(o.match, {"games": 0, "wins": 0, "unfinished": 0, "turns": 0})
        m["games"] += 1
        m["wins"] += o.hero_won
        m["unfinished"] += o.winner is None
        m["turns"] += o.turns
    for m in matches.values():
        lo, hi = wilson(m["wins"], m["games"])
        m["share"] = round(m["wins"] / m["games"], 4)
        m["ci95"] = [round(lo, 4), round(hi, 4)]
        m["mean_turns"] = round(m.pop("turns") / m["games"], 1)

    def share(name: str) -> float | None:
        m = matches.get(name)
        return None if m is None else m["share"]

    rr_ms = [x for o in outcomes for x in o.strong_ms]
    t_ms = [x for o in timing for x in o.strong_ms]
    ms = t_ms or rr_ms

    def pct(xs: list[float], q: float) -> float | None:
        if not xs:
            return None
        xs = sorted(xs)
        return round(xs[min(len(xs) - 1, int(q * len(xs)))], 2)

    try:
        from catan_p2p.bridges.catanatron_players import implementation

        impl = {k: implementation(k) for k in ("weighted", "value", "alphabeta")}
    except ImportError:
        impl = {}
    return {
        "games": len(outcomes),
        "strong_vs_alphabeta_2p": share("strong vs catanatron:alphabeta (2p)"),
        "strong_vs_alphabeta_4p": share("strong vs 3 catanatron:alphabeta (4p)"),
        "strong_vs_greedy_2p": share("strong vs greedy (2p)"),
        "decision_ms_median": round(statistics.median(ms), 2) if ms else None,
        "decision_ms_p99": pct(ms, 0.99),
        "decision_budget_s": DEFAULT_THINK if t_ms else think,
        "decisions_timed": len(ms),
        "round_robin_think_s": think,
        "round_robin_decision_ms_median": round(statistics.median(rr_ms), 2) if rr_ms else None,
        "round_robin_decision_ms_p99": pct(rr_ms, 0.99),
        "timing_games": len(timing),
        "matches": dict(sorted(matches.items())),
        "catanatron_players": impl,
        "seconds": round(seconds, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} cpu, Python {platform.python_version()}",
    }


def combine(results: list[dict]) -> dict:
    """Several runs of the same code with different seeds as one result.

    Match counts add up; decision times are those of the first run that has them.
    """
    out = json.loads(json.dumps(results[0]))
    for other in results[1:]:
        for name, m in other["matches"].items():
            mine = out["matches"].get(name)
            if mine is None:
                out["matches"][name] = json.loads(json.dumps(m))
                continue
            turns = mine["mean_turns"] * mine["games"] + m["mean_turns"] * m["games"]
            for k in ("games", "wins", "unfinished"):
                mine[k] += m[k]
            mine["mean_turns"] = round(turns / mine["games"], 1)
        out["seconds"] = round(out["seconds"] + other["seconds"], 1)
        out["runs"] = out.get("runs", 1) + 1
    for m in out["matches"].values():
        lo, hi = wilson(m["wins"], m["games"])
        m["share"] = round(m["wins"] / m["games"], 4)
        m["ci95"] = [round(lo, 4), round(hi, 4)]
    out["matches"] = dict(sorted(out["matches"].items()))
    out["games"] = sum(m["games"] for m in out["matches"].values())
    for key, name in (
        ("strong_vs_alphabeta_2p", "strong vs catanatron:alphabeta (2p)"),
        ("strong_vs_alphabeta_4p", "strong vs 3 catanatron:alphabeta (4p)"),
        ("strong_vs_greedy_2p", "strong vs greedy (2p)"),
    ):
        m = out["matches"].get(name)
        out[key] = None if m is None else m["share"]
    return out


def write(result: dict, out: Path) -> None:
    """bots.json, bots.md and bots.png in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "bots.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    (out / "bots.md").write_text(report_markdown(result))
    try:
        plot(result, out / "bots.png")
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)


def report_markdown(result: dict) -> str:
    lines = [
        "# Bot round robin",
        "",
        f"{result['games']} games in our engine; strong bot at {result['round_robin_think_s']} s "
        f"per decision in the round robin. Win share of the first-named bot, 95 % Wilson "
        f"interval; seats swapped (2p) or rotated (4p).",
        "",
        "| match | games | win share | 95 % CI | mean turns |",
        "|---|---:|---:|---|---:|",
    ]
    for name, m in result["matches"].items():
        lo, hi = m["ci95"]
        lines.append(
            f"| {name} | {m['games']} | {100 * m['share']:.1f} % | "
            f"{100 * lo:.1f}–{100 * hi:.1f} % | {m['mean_turns']} |"
        )
    lines += [
        "",
        f"Strong bot decision time at {result['decision_budget_s']} s budget: median "
        f"{result['decision_ms_median']} ms, p99 {result['decision_ms_p99']} ms "
        f"({result['decisions_timed']} decisions; {result['timing_games']} timing games).",
        f"In the round robin ({result['round_robin_think_s']} s): median "
        f"{result['round_robin_decision_ms_median']} ms, p99 {result['round_robin_decision_ms_p99']} ms.",
        "",
        "catanatron players: "
        + ", ".join(f"{k}: {v}" for k, v in result.get("catanatron_players", {}).items()),
        "",
        f"Machine: {result['machine']}; {result['seconds']} s of play"
        + (
            f" over {result['runs']} runs with different seeds, combined (they ran side by side)."
            if result.get("runs", 1) > 1
            else " (wall)."
        ),
    ]
    return "\n".join(lines) + "\n"


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result["matches"])
    shares = [result["matches"][n]["share"] for n in names]
    lo = [s - result["matches"][n]["ci95"][0] for n, s in zip(names, shares, strict=True)]
    hi = [result["matches"][n]["ci95"][1] - s for n, s in zip(names, shares, strict=True)]
    fig, ax = plt.subplots(figsize=(9, 0.35 * len(names) + 1.5))
    y = range(len(names))
    ax.barh(list(y), shares, xerr=[lo, hi], color="#4a7ab5", capsize=3)
    ax.axvline(0.5, color="grey", lw=0.8, ls="--")
    ax.axvline(0.25, color="grey", lw=0.8, ls=":")
    ax.set_yticks(list(y))
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("win share of the first-named bot (95 % CI)")
    ax.set_title(f"Bot round robin ({result['games']} games)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# Long on purpose (about 90 lines): mostly the options of the round robin, one a line.
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="round robin of bots in our engine")
    parser.add_argument("--quick", action="store_true", help="a smoke run (CI)")
    parser.add_argument("--games", type=int, default=20, help="2p games per pair")
    parser.add_argument(
        "--focus", type=int, default=200, help="2p games of strong vs alphabeta and vs greedy"
    )
    parser.add_argument("--games-4p", type=int, default=40, help="4p games per 4p match")
    parser.add_argument("--think", type=float, default=DEFAULT_THINK, help="strong bot budget")
    parser.add_argument("--timing-games", type=int, default=2, help="games at the default budget")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--minutes", type=float, default=None, help="stop starting games after")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="directory, or - for none")
    parser.add_argument("--seed", default="", help="prefix of every game's seed")
    parser.add_argument("--only", action="append", default=[], help="play only this match")
    parser.add_argument(
        "--combine", nargs="+", default=None, metavar="JSON", help="merge earlier runs, play none"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.combine:
        result = combine([json.loads(Path(f).read_text()) for f in args.combine])
        if args.out != "-":
            write(result, Path(args.out))
        print(json.dumps(result, sort_keys=True) if args.json else report_markdown(result))
        return 0
    bots = BOTS
    if args.quick:
        args.games, args.focus, args.games_4p, args.think, args.timing_games = 1, 2, 1, 0.02, 0
        args.out = "-" if args.out == str(DEFAULT_OUT) else args.out
        bots = ("random", "greedy", "strong", "catanatron:alphabeta")
    try:
        import catanatron  # noqa: F401
    except ImportError:
        bots = tuple(b for b in bots if not b.startswith("catanatron:"))
        print("catanatron is not installed: its players are left out", file=sys.stderr)
    todo = jobs(
        args.games, args.focus, args.games_4p, args.think, bots, args.seed, tuple(args.only)
    )
    todo_timing = timing_jobs(args.timing_games)
    start = time.perf_counter()
    stop_at = None if args.minutes is None else start + 60 * args.minutes
    outcomes: list[Outcome] = []
    timing: list[Outcome] = []
    every = todo_timing + todo
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        pending = {}
        it = iter(every)

        def submit() -> bool:
            if stop_at is not None and time.perf_counter() > stop_at:
                return False
            job = next(it, None)
            if job is None:
                return False
            pending[pool.submit(play, job)] = job
            return True

        for _ in range(max(1, args.jobs) * 2):
            submit()
        from concurrent.futures import FIRST_COMPLETED, wait

        while pending:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for f in done:
                job = pending.pop(f)
                o = f.result()
                (timing if job.match == "timing" else outcomes).append(o)
                n = len(outcomes) + len(timing)
                print(
                    f"\r{n}/{len(every)} games, {time.perf_counter() - start:.0f} s",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
                submit()
    print(file=sys.stderr)
    result = summarise(outcomes, timing, args.think, time.perf_counter() - start)
    result["quick"] = args.quick
    if args.out != "-":
        write(result, Path(args.out))
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(report_markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
