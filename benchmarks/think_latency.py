"""``python -m benchmarks.think_latency``: how soon a move shows when players think first.

Bots move at once, so a benchmark of bots alone measures peers that never rest; people
think for seconds to a minute, and a peer that polled less and less while waiting
showed a move up to a poll's wait late. Here two ``catan-p2p bot`` processes play at a
person's pace (``--pause 5-60``: each waits 5 to 60 s before every move, and publishes
every move at once, as a window does), and a move's time is from the mover's log
holding it to the other peer's log holding it (its verified copy), watched on the ref
files as ``benchmarks.wan`` does.

Rows: a shared remote and one publication point per seat, over ``git daemon``, behind
``benchmarks.wan_link`` at 0 ms (a direct link) and 100 ms round trip; and ``serve``:
each seat served from its own repository (``--publish serve:PORT``) with nudges, on a
direct link (the nudge is a UDP datagram, which the TCP link cannot delay). Rows run at
once, each in processes of its own (the bots sleep most of the time).

Writes ``benchmarks/results/think_latency.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from benchmarks.wan import (
    CLI,
    GAME,
    Watcher,
    _analyse,
    _cli,
    _first_parent_line,
    _hear_ctrl_c,
    _load,
    _setup,
    _stop,
)
from benchmarks.wan_link import WanLink
from catan_p2p.net import serve as served
from catan_p2p.store import gitcmd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the servers are the tests' fixtures

from remotes import serve  # noqa: E402

SEATS = ("red", "blue")
ROWS = ("shared/direct", "points/direct", "serve/direct", "shared/wan", "points/wan")
OUT = ROOT / "benchmarks" / "results"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _bots(work: Path, env: dict[str, str], pause: str) -> list[subprocess.Popen]:
    return [
        subprocess.Popen(
            [*CLI, "bot", "--as", p, "--repo", str(work / p), "--pause", pause],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=(work / f"{p}.log").open("w"),
            preexec_fn=_hear_ctrl_c,
        )
        for p in SEATS
    ]


def _played(work: Path, watcher: Watcher, skip: int) -> int:
    red = watcher.seen["red"]
    if not red:
        return 0
    return len(_first_parent_line(work / "red" / ".git", red[-1][1])) - skip


def measure(row: str, moves: int, pause: str, work: Path) -> dict:
    """Two bots at ``pause`` play until ``moves`` moves are on the game's line."""
    layout, link_kind = row.split("/")
    rtt = 100.0 if link_kind == "wan" else 0.0
    work.mkdir(parents=True)
    env = {**os.environ, "CATAN_P2P_HOME": str(work / "home")}
    procs: list[subprocess.Popen] = []
    with ExitStack() as stack:
        if layout == "serve":
            ports = {p: _free_port() for p in SEATS}
            common = ["--players", ",".join(SEATS), "--seed", "wan", "--game", GAME]
            red = work / "red"
            _cli("new", *common, "--publish", f"serve:{ports['red']}", "--repo", str(red), env=env)
            host = subprocess.Popen([*CLI, "serve", "--repo", str(red)], env=env)
            red_url = served.served(red / ".git")
            assert red_url is not None
            deadline = time.monotonic() + 30
            while not served.listening(ports["red"]):
                if time.monotonic() > deadline:
                    raise RuntimeError("catan-p2p serve did not start")
                time.sleep(0.05)
            _cli(
                "join", red_url, "--game", GAME, "--as", "blue", "--publish",
                f"serve:{ports['blue']}", "--repo", str(work / "blue"), env=env,
            )  # fmt: skip
            host.terminate()
            host.wait(10)
        else:
            remotes = work / "remotes"
            remotes.mkdir()
            names = ["shared"] if layout == "shared" else list(SEATS)
            for n in names:
                gitcmd.run(None, "init", "-q", "--bare", str(remotes / f"{n}.git"), check=True)
            served_at = stack.enter_context(
                serve("daemon", remotes / f"{names[0]}.git", work / "s")
            )
            port = int(served_at.url.split(":")[2].split("/")[0])
            link = stack.enter_context(WanLink(port, 0.0))
            base = served_at.url.replace(f":{port}/", f":{link.port}/").rsplit("/", 1)[0]
            _setup(layout, {n: f"{base}/{n}.git" for n in names}, work, env, SEATS)
            link.rtt_ms = rtt
        places = {p: (work / p / ".git", f"refs/heads/catan/{GAME}/{p}") for p in SEATS}
        watcher = Watcher(places).start()
        skip = len(_first_parent_line(work / "red" / ".git", f"refs/heads/catan/{GAME}/red"))
        load0, t0 = _load(), time.monotonic()
        try:
            procs = _bots(work, env, pause)
            limit = t0 + 60 + moves * 90
            while _played(work, watcher, skip) < moves + 1 and time.monotonic() < limit:
                if all(p.poll() is not None for p in procs):
                    break
                time.sleep(0.5)
        finally:
            _stop(procs)
            watcher.stop()
        result = _analyse(watcher, work, {p: p for p in SEATS}, skip, SEATS)
    shown = result["to_each_peer"]
    result.update({"row": row, "rtt_ms": rtt, "pause_s": pause, "load_before": load0})
    result["wall_s"] = round(time.monotonic() - t0, 1)
    result["summary"] = {k: shown.get(k) for k in ("n", "median_ms", "p90_ms", "p95_ms")}
    return result


def run(rows: list[str], moves: int, pause: str) -> dict:
    def one(row: str) -> dict:
        with tempfile.TemporaryDirectory(prefix="catan-think-") as tmp:
            try:
                return measure(row, moves, pause, Path(tmp) / "w")
            except (RuntimeError, subprocess.SubprocessError, OSError) as exc:
                return {"row": row, "skipped": f"the run failed: {exc}"}

    with ThreadPoolExecutor(len(rows)) as pool:
        results = list(pool.map(one, rows))
    return {r["row"]: r for r in results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.think_latency")
    parser.add_argument("--moves", type=int, default=24, help="moves timed per row")
    parser.add_argument("--pause", default="5-60", help="the bots' think time, MIN-MAX seconds")
    parser.add_argument("--rows", default=",".join(ROWS), help="which rows, comma-separated")
    parser.add_argument("--out", type=Path, default=OUT, help="where the JSON goes")
    args = parser.parse_args(argv)
    rows = [r for r in args.rows.split(",") if r]
    figures = run(rows, args.moves, args.pause)
    out = {"machine_cores": os.cpu_count(), "rows": figures}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "think_latency.json").write_text(json.dumps(out, indent=2) + "\n")
    for row, fig in figures.items():
        if "skipped" in fig:
            print(f"{row:15} skipped: {fig['skipped']}")
            continue
        each = fig["to_each_peer"]
        print(
            f"{row:15} {each.get('n', 0):3} moves  median {each.get('median_ms')} ms  "
            f"p95 {each.get('p95_ms')} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
