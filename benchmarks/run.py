"""``catan-p2p bench`` / ``python -m benchmarks``: the thesis evaluation, on our implementation.

Plays bot games recorded in Git at 2, 4 and 6 players (hot-seat: every seat a peer of one
repository), measures storage, diffs and latency; plays networked games between
separate clones through a bare remote on disk and through ``git daemon`` on 127.0.0.1;
times a fetch with and without news; times the engine without Git (benchmarks/engine.py).
Writes ``results.json``, ``report.md`` and PNG plots to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks import engine, folders, gitgames
from benchmarks.reference import check_targets
from catan_p2p.store import gitcmd

#: Player counts played: the base game's two and four, and six (the 5-6 player extension).
PLAYER_COUNTS = (2, 4, 6)
#: Quick mode (CI smoke): a few games, under a minute.
#: What ``--quick`` costs, as measured: ``benchmarks/results`` holds a quick run of 51 s
#: on a quiet machine; on 2 cores shared with other work one took 4 minutes.
QUICK_HELP = (
    "one game per player count, a smoke run: about a minute on a quiet machine, several under load"
)
QUICK = {"games": 1, "net_games": 1, "net_actions": 20, "round_trips": 3, "engine_games": 4}
#: Full mode per ``--games N``: networked games are slower (a fetch and a push per action).
FULL_NET_GAMES = 1
MAX_ACTIONS = 20_000


class Progress:
    """One line on stderr: what runs now, how far, and the time spent."""

    def __init__(self, total: int, stream=sys.stderr) -> None:  # type: ignore[no-untyped-def]
        self.total = max(1, total)
        self.done = 0
        self.stream = stream
        self.start = time.perf_counter()

    def step(self, label: str, n: int = 1) -> None:
        self.done += n
        filled = 30 * min(self.done, self.total) // self.total
        bar = "#" * filled + "-" * (30 - filled)
        elapsed = time.perf_counter() - self.start
        line = f"bench [{bar}] {self.done}/{self.total} {elapsed:6.0f} s  {label:<40}"
        if getattr(self.stream, "isatty", lambda: False)():
            self.stream.write("\r" + line)
        elif self.done >= self.total:
            self.stream.write(line.rstrip())
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else 0.0


def _mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def _stdev(xs: list[float]) -> float:
    return statistics.stdev(xs) if len(xs) > 1 else 0.0


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _summary(xs: list[float]) -> dict:
    return {
        "n": len(xs),
        "median": round(_median(xs), 4),
        "mean": round(_mean(xs), 4),
        "stdev": round(_stdev(xs), 4),
        "p90": round(_pct(xs, 0.9), 4),
        "max": round(max(xs), 4) if xs else 0.0,
    }


@contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """A ``git daemon`` serving ``base`` on 127.0.0.1 (push enabled); yields its URL prefix."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = gitcmd.start(
        None,
        "daemon",
        "--export-all",
        f"--base-path={base}",
        f"--port={port}",
        "--listen=127.0.0.1",
        "--enable=receive-pack",
        "--reuseaddr",
        str(base),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"git://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def bare_remote(path: Path) -> Path:
    gitcmd.run(None, "init", "-q", "--bare", str(path), check=True)
    return path


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    fs = ""
    try:
        out = subprocess.run(
            ["findmnt", "-n", "-o", "FSTYPE,OPTIONS", "--target", tempfile.gettempdir()],
            capture_output=True,
            text=True,
        ).stdout.strip()
        fs = out
    except OSError:
        pass
    git = gitcmd.run(None, "--version").stdout.strip()
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory": mem,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "git": git,
        "tmp_filesystem": fs,
        "load_average_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def _special_build(proto: list[dict]) -> dict:
    """How often the special building phase (5-6 players) took commits, and how many."""
    turns = sum(p["turns"] for p in proto)
    steps = sum(p["special_build_turns"] for p in proto)
    commits = sum(p["special_build_commits"] for p in proto)
    return {
        "turns": turns,
        "turns_with_a_step_share": round(steps / max(1, turns), 3),
        "commits_per_turn": round(commits / max(1, turns), 3),
        "commits_per_turn_with_a_step": round(commits / max(1, steps), 3),
    }


def per_players(runs: list[gitgames.GameRun], stores: list[dict]) -> dict:
    """Figures of the hot-seat games of one player count."""
    commits = [s["commits"] for s in stores]
    disk = [s["disk_bytes"] for s in stores]
    diffs = [d for s in stores for d in s["diff_bytes"]]
    compute = [x for r in runs for x in r.latency.compute_ms]
    sync = [x for r in runs for x in r.latency.sync_ms]
    per_commit_pack = [s["gc_pack_bytes"] / s["commits"] for s in stores]
    kinds = ("commit", "tree", "blob")
    by_kind = {
        k: _summary([s["gc_pack_bytes_by_kind"].get(k, 0) / s["commits"] for s in stores])
        for k in kinds
    }
    proto = [s["protocol"] for s in stores]
    draws = sum(p["draws"] for p in proto)
    steals = sum(p["steals"] for p in proto)
    return {
        "games": len(runs),
        "unfinished": sum(r.winner is None for r in runs),
        "actions_per_game": _summary([r.actions for r in runs]),
        "commits": _summary(commits),
        "disk_bytes": _summary(disk),
        "disk_bytes_per_commit": _summary([d / c for d, c in zip(disk, commits, strict=True)]),
        "apparent_bytes": _summary([s["apparent_bytes"] for s in stores]),
        "objects": _summary([s["objects"] for s in stores]),
        "object_bytes_raw": _summary([s["object_bytes_raw"] for s in stores]),
        "loose_equivalent_bytes": _summary([s["loose_equivalent_bytes"] for s in stores]),
        "pack_bytes_as_left": _summary([s["pack_bytes"] for s in stores]),
        "packs_as_left": _summary([s["packs"] for s in stores]),
        "loose_objects_as_left": _summary([s["loose_objects"] for s in stores]),
        "gc_disk_bytes": _summary([s["gc_disk_bytes"] for s in stores]),
        "gc_pack_bytes": _summary([s["gc_pack_bytes"] for s in stores]),
        "gc_pack_bytes_per_commit": _summary(per_commit_pack),
        "gc_pack_bytes_per_commit_by_kind": by_kind,
        "special_build": _special_build(proto),
        "protocol": {
            "draws": draws,
            "steals": steals,
            "extra_commits_per_draw": 0.0,
            "extra_round_trips_per_draw": 0.0,
            "extra_commits_per_steal": round(
                sum(p["extra_commits_for_steals"] for p in proto) / max(1, steals), 2
            ),
            "extra_round_trips_per_steal": round(
                sum(p["round_trips_for_steals"] for p in proto) / max(1, steals), 2
            ),
            "commits_after_the_game": round(
                sum(p["deck_secret_commits"] for p in proto) / max(1, len(proto)), 2
            ),
        },
        "diff_bytes": _summary(diffs),
        "diff_bytes_per_action_by_file": _per_action_by_file(stores, len(diffs)),
        "empty_diff_share": round(sum(1 for d in diffs if d == 0) / max(1, len(diffs)), 4),
        "compute_ms": _summary(compute),
        "sync_ms_hotseat": _summary(sync),
        "game_seconds": _summary([r.seconds for r in runs]),
        "finish_ms": _summary([r.latency.finish_ms for r in runs]),
        "wall_ms_per_commit": _summary(
            [r.seconds * 1e3 / c for r, c in zip(runs, commits, strict=True)]
        ),
    }


def _per_action_by_file(stores: list[dict], actions: int) -> dict[str, float]:
    """Mean bytes per action that each state file adds to ``git diff parent child``."""
    total: dict[str, int] = {}
    for s in stores:
        for name, size in s["diff_bytes_by_file"].items():
            total[name] = total.get(name, 0) + size
    ranked = sorted(total.items(), key=lambda kv: -kv[1])
    return {name: round(size / max(1, actions), 1) for name, size in ranked}


def networked(runs: list[gitgames.GameRun]) -> dict:
    rounds = [x for r in runs for x in r.latency.rounds_ms]
    return {
        "games": len(runs),
        "finished": sum(r.winner is not None for r in runs),
        "actions": sum(r.actions for r in runs),
        "round_ms": _summary(rounds),
        "compute_ms": _summary([x for r in runs for x in r.latency.compute_ms]),
        "sync_ms_per_action": _summary([x for r in runs for x in r.latency.sync_ms]),
        "game_seconds": _summary([r.seconds for r in runs]),
    }


# Long on purpose (about 145 lines): every measurement in the order the report lists
# it, each a call and the figures it adds to one result.
def run(
    games: int,
    out: Path,
    quick: bool,
    workdir: Path | None = None,
    progress: bool = True,
    max_actions: int = MAX_ACTIONS,
    net_actions: int | None = None,
    visible_moves: int | None = None,
    players: tuple[int, ...] = PLAYER_COUNTS,
    visible_poll_moves: int | None = None,
) -> dict:
    """Run every measurement and write results.json, report.md and the plots to ``out``.

    ``players`` (the player counts measured) and the sizes after ``workdir`` are for
    smoke tests; ``catan-p2p bench`` always measures every count at its own sizes.
    """
    if visible_moves is None:
        visible_moves = 10 if quick else 60
    net_games = QUICK["net_games"] if quick else FULL_NET_GAMES
    if net_actions is None:
        net_actions = min(max_actions, QUICK["net_actions"] if quick else MAX_ACTIONS)
    round_trips = QUICK["round_trips"] if quick else 20
    engine_games = QUICK["engine_games"] if quick else 100
    k = len(players)
    steps = k * games + 2 * k * net_games + 2 + 1 + 1
    bar = Progress(steps, stream=sys.stderr if progress else open(os.devnull, "w"))  # noqa: SIM115
    started = time.time()
    result: dict = {
        "command": "catan-p2p bench " + ("--quick" if quick else f"--games {games}"),
        "mode": "quick" if quick else "full",
        "bot": "RandomBot (catan_p2p.bots.random_bot): a random legal action, weighted per kind "
        "(builds 10, dev card 3, road 1, maritime trade 0.25, player trade offer 0.01, others 1);"
        " the thesis's simulator also chose random actions",
        "machine": machine(),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
    }
    raw: dict = {}
    with tempfile.TemporaryDirectory(prefix="catan-bench-", dir=workdir) as tmp:
        work = Path(tmp)
        # Each game in a block group of its own: the last one's clean-up would slow it.
        result["machine"]["games_spread"] = folders.spread(work)
        result["machine"]["file_create_us"] = folders.file_create_us(work)
        # Hot-seat games, 2p and 4p interleaved so machine load hits both alike.
        runs: dict[int, list] = {n: [] for n in players}
        stores: dict[int, list] = {n: [] for n in players}
        for g in range(games):
            for n in players:
                bar.step(f"hot-seat {n}p game {g + 1}/{games}", 0)
                r = gitgames.play_hotseat(work, n, f"bench/{n}p/{g}", max_actions)
                s = gitgames.storage(r.git_dir)
                runs[n].append(r)
                stores[n].append(s)
                raw.setdefault(f"games_{n}p", []).append(
                    {
                        "seed": r.seed,
                        "winner": r.winner,
                        "actions": r.actions,
                        "seconds": round(r.seconds, 4),
                        "commits": s["commits"],
                        "disk_bytes": s["disk_bytes"],
                        "apparent_bytes": s["apparent_bytes"],
                        "objects": s["objects"],
                        "object_bytes_raw": s["object_bytes_raw"],
                        "pack_bytes": s["pack_bytes"],
                        "gc_disk_bytes": s["gc_disk_bytes"],
                        "gc_pack_bytes": s["gc_pack_bytes"],
                        "finish_ms": round(r.latency.finish_ms, 3),
                    }
                )
                if g == 0:
                    raw[f"latency_game0_{n}p"] = {
                        "compute_ms": [round(x, 4) for x in r.latency.compute_ms],
                        "sync_ms": [round(x, 4) for x in r.latency.sync_ms],
                    }
                    raw[f"diff_bytes_game0_{n}p"] = s["diff_bytes"]
                _cleanup(r.git_dir.parent)
                bar.step(f"hot-seat {n}p game {g + 1}/{games}")
        for n in players:
            result[f"hotseat_{n}p"] = per_players(runs[n], stores[n])
            raw[f"diff_bytes_{n}p"] = [d for s in stores[n] for d in s["diff_bytes"]]

        # Networked: one clone per seat through a bare remote, then through git daemon.
        for transport_name in ("bare", "daemon"):
            for n in players:
                net_runs = []
                for g in range(net_games):
                    bar.step(f"networked {transport_name} {n}p game {g + 1}", 0)
                    net = work / f"net-{transport_name}-{n}p-{g}"
                    net.mkdir()
                    remote = bare_remote(net / "remote.git")
                    if transport_name == "bare":
                        r = gitgames.play_networked(
                            net, n, f"bench/net/{n}p/{g}", str(remote), remote, net_actions
                        )
                    else:
                        with git_daemon(net) as base:
                            r = gitgames.play_networked(
                                net,
                                n,
                                f"bench/net/{n}p/{g}",
                                f"{base}/remote.git",
                                remote,
                                net_actions,
                            )
                    net_runs.append(r)
                    _cleanup(net)
                    bar.step(f"networked {transport_name} {n}p game {g + 1}")
                result[f"networked_{transport_name}_{n}p"] = networked(net_runs)
                if transport_name == "bare":
                    raw[f"rounds_ms_bare_{n}p"] = [
                        round(x, 3) for r in net_runs for x in r.latency.rounds_ms
                    ]

        # Round trip as the thesis measured its pull: nothing new, then one new commit.
        for transport_name in ("bare", "daemon"):
            bar.step(f"round trip ({transport_name})", 0)
            rt = work / f"rt-{transport_name}"
            rt.mkdir()
            remote = bare_remote(rt / "remote.git")
            if transport_name == "bare":
                trip = gitgames.round_trip(rt, str(remote), round_trips)
            else:
                with git_daemon(rt) as base:
                    trip = gitgames.round_trip(rt, f"{base}/remote.git", round_trips)
            result[f"round_trip_{transport_name}"] = {k: _summary(v) for k, v in trip.items()}
            bar.step(f"round trip ({transport_name})")

    # How soon a remote move shows in the other player's window (issue 13).
    bar.step("remote move visible", 0)
    from benchmarks import remote_visible

    visible = remote_visible.run(visible_moves, visible_poll_moves)
    result["remote_move_visible"] = visible
    result["remote_move_visible_ms"] = visible["remote_move_visible_ms"]
    bar.step("remote move visible")

    # The engine alone, beside catanatron when it is installed.
    bar.step("engine without Git", 0)
    result["engine"] = engine.run(
        engine_games, min(10, engine_games), with_catanatron=True, progress=False
    )
    bar.step("engine without Git")
    result["seconds"] = round(time.time() - started, 1)
    headline(result, players)
    result["targets"] = check_targets(result)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    (out / "raw.json").write_text(json.dumps(raw, sort_keys=True) + "\n")
    from benchmarks.report import write_plots, write_report

    plots = write_plots(result, raw, out)
    write_report(result, out / "report.md", plots)
    return result


def headline(result: dict, players: tuple[int, ...] = PLAYER_COUNTS) -> None:
    """The flat keys issue 5 asks for, each for 2 and 4 players (and each count measured)."""
    for n in players:
        h = result[f"hotseat_{n}p"]
        net = result[f"networked_bare_{n}p"]
        commits = h["commits"]["mean"]
        result[f"commits_per_game_{n}p"] = commits
        result[f"disk_bytes_per_game_{n}p"] = h["disk_bytes"]["mean"]
        result[f"disk_bytes_per_commit_{n}p"] = h["disk_bytes_per_commit"]["mean"]
        result[f"apparent_bytes_per_game_{n}p"] = h["apparent_bytes"]["mean"]
        result[f"loose_equivalent_bytes_per_game_{n}p"] = h["loose_equivalent_bytes"]["mean"]
        result[f"packed_bytes_per_game_{n}p"] = h["gc_disk_bytes"]["mean"]
        result[f"pack_bytes_per_game_{n}p"] = h["gc_pack_bytes"]["mean"]
        result[f"packed_bytes_per_commit_{n}p"] = h["gc_pack_bytes_per_commit"]["mean"]
        result[f"mean_diff_bytes_{n}p"] = h["diff_bytes"]["mean"]
        for kind, figures in h["gc_pack_bytes_per_commit_by_kind"].items():
            result[f"packed_{kind}_bytes_per_commit_{n}p"] = figures["mean"]
        for key, value in h["special_build"].items():
            result[f"special_build_{key}_{n}p"] = value
        for key, value in h["protocol"].items():
            result[f"{key}_{n}p"] = value
        result[f"empty_diff_share_{n}p"] = h["empty_diff_share"]
        result[f"compute_ms_per_commit_{n}p"] = h["compute_ms"]["median"]
        result[f"compute_ms_per_commit_mean_{n}p"] = h["compute_ms"]["mean"]
        result[f"sync_ms_per_commit_hotseat_{n}p"] = h["sync_ms_hotseat"]["median"]
        result[f"sync_ms_per_commit_hotseat_mean_{n}p"] = h["sync_ms_hotseat"]["mean"]
        result[f"sync_ms_per_commit_remote_{n}p"] = net["sync_ms_per_action"]["median"]
        result[f"sync_ms_per_round_remote_{n}p"] = net["round_ms"]["median"]
        result[f"sync_ms_per_round_daemon_{n}p"] = result[f"networked_daemon_{n}p"]["round_ms"][
            "median"
        ]
        result[f"game_seconds_{n}p"] = h["game_seconds"]["mean"]
        result[f"wall_ms_per_commit_{n}p"] = h["wall_ms_per_commit"]["mean"]
    for t in ("bare", "daemon"):
        trip = result[f"round_trip_{t}"]
        result[f"fetch_unchanged_ms_{t}"] = trip["fetch_unchanged_ms"]["median"]
        result[f"fetch_changed_ms_{t}"] = trip["fetch_changed_ms"]["median"]


def _cleanup(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    parser.add_argument("--games", type=int, default=None, help="hot-seat games per player count")
    parser.add_argument("--out", default="benchmarks/results", help="folder for the results")
    return run_args(parser.parse_args(argv))


def run_args(args: argparse.Namespace) -> int:
    """Shared by ``python -m benchmarks`` and ``catan-p2p bench``."""
    if args.quick and args.games is not None:
        print("bench: give either --quick or --games N, not both.", file=sys.stderr)
        return 2
    games = QUICK["games"] if args.quick else (args.games if args.games is not None else 100)
    if games < 1:
        print(f"bench: --games must be at least 1, not {games}.", file=sys.stderr)
        return 2
    out = Path(args.out)
    result = run(games, out, quick=args.quick)
    print(summary_text(result, out))
    return 0


def summary_text(r: dict, out: Path) -> str:
    lines = [f"bench ({r['mode']}, {r['hotseat_4p']['games']} games per player count):"]
    for n in PLAYER_COUNTS:
        lines.append(
            f"  {n}p: {r[f'commits_per_game_{n}p']:.0f} commits, "
            f"{r[f'disk_bytes_per_game_{n}p'] / 1024:.0f} KiB .git as left, "
            f"{r[f'packed_bytes_per_commit_{n}p']:.0f} B/commit packed, "
            f"diff {r[f'mean_diff_bytes_{n}p']:.0f} B, "
            f"compute {r[f'compute_ms_per_commit_{n}p']:.2f} ms, "
            f"hot-seat sync {r[f'sync_ms_per_commit_hotseat_{n}p']:.2f} ms, "
            f"remote round {r[f'sync_ms_per_round_remote_{n}p']:.1f} ms"
        )
    if "special_build_turns_6p" in r:
        lines.append(
            f"  6p special building: a step after "
            f"{100 * r['special_build_turns_with_a_step_share_6p']:.0f} % of turns, "
            f"{r['special_build_commits_per_turn_6p']:.2f} commits per turn"
        )
    if "remote_move_visible_ms" in r:
        poll = r["remote_move_visible"]["poll"]["median"]
        lines.append(
            f"  remote move visible: {r['remote_move_visible_ms']:.0f} ms median "
            f"(watching a local remote), {poll:.0f} ms polling alone"
        )
    if "file_create_us" in r.get("machine", {}):
        spread = ", each game in a block group of its own" if r["machine"]["games_spread"] else ""
        lines.append(
            f"  a new file in the work folder: {r['machine']['file_create_us']:.0f} µs{spread}"
        )
    lines.append(targets_text(r.get("targets") or check_targets(r), r.get("mode") == "quick"))
    lines.append(f"  wrote {out / 'results.json'}, {out / 'report.md'} and plots")
    return "\n".join(lines)


def targets_text(targets: dict[str, dict], quick: bool = False) -> str:
    """What the run measured against the targets, as a report: the figures above their
    limit with the limit beside them, and, when a time target is among them, how far a
    time on this machine can be judged (its load now; one game in a quick run)."""
    over = [
        f"{key} {_shown(t['ours'], t['unit'])} (limit {_shown(t['limit'], t['unit'])})"
        for key, t in targets.items()
        if not t["met"]
    ]
    if not over:
        return f"  targets (4 players): all {len(targets)} met"
    line = (
        f"  targets (4 players), for the record: {len(targets) - len(over)} of "
        f"{len(targets)} within their limit; above it: " + "; ".join(over)
    )
    if any(not t["met"] and t["unit"] == "ms" for t in targets.values()):
        line += "\n  " + _timing_note(quick)
    return line


def _timing_note(quick: bool) -> str:
    """Why a time above its limit may say more of the machine than of the code."""
    try:
        load = f"a load of {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except OSError:  # no load average on this system
        load = "its load"
    games = "one game per player count (--quick)" if quick else "this run's games"
    return (
        f"(times are this machine's with {load} now, over {games}; the limits hold "
        "on a quiet machine: compare runs there)"
    )


def _shown(value: float | None, unit: str) -> str:
    if value is None:
        return "none"
    return f"{value:.2f} ms" if unit == "ms" else f"{value:.0f} B"
