"""``python -m benchmarks.wan``: four bot peers playing through a 100 ms round-trip link.

The remotes (``tests/sync/remotes.py``: ``git daemon``, an sshd of our own, smart HTTP
by ``git http-backend``) sit behind ``benchmarks.wan_link``, a proxy on 127.0.0.1 that
holds every chunk for half the round trip each way (the kernel here has no ``netem``);
its added round trip is checked by a TCP ping-pong and saved beside the figures. Two
layouts: one shared remote every seat writes, and one publication point per seat (a
bare repository each, ``new --publish`` / ``join --publish``, no shared remote).

The peers are ``catan-p2p bot`` processes (greedy, default ``--poll``), each in a clone
of its own, set up with the CLI as a user would. This process watches the ref files:
each peer's own log (what its session holds as head: a peer fast-forwards its own
branch to every verified move) and each remote's refs (when a push landed). A move is
a commit of the game's first-parent line; its time is when the mover's log first held
it (the mover recorded it; bots push a turn when another seat may act), and it shows
at a peer when that peer's log first holds it or a descendant. Figures per move and
peer, and per move until every other peer shows it; fetches (connections through the
link) and bytes per action; wall time of the stretch played.

Writes ``benchmarks/results/wan.json`` and ``wan.md`` (or under ``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

from benchmarks.wan_link import WanLink, check
from catan_p2p.store import gitcmd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "sync"))  # the servers are the tests' fixtures

from remotes import ServerUnavailable, serve  # noqa: E402

PLAYERS = ("red", "blue", "white", "orange")
GAME = "wan"
KINDS = ("daemon", "ssh", "http")
LAYOUTS = ("shared", "points")
OUT = ROOT / "benchmarks" / "results"
ACTIONS = 120  # actions timed per setting (``--quick``: 15, unless --actions says)
CLI = [str(Path(sys.executable).parent / "catan-p2p")]


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _git(*args: str) -> str:
    return gitcmd.run(None, *args, check=True).stdout.strip()


def _ref(git_dir: Path, ref: str) -> str | None:
    """The value of ``ref`` read from the files (loose, then packed-refs); cheap to poll."""
    try:
        return (git_dir / ref).read_text().strip() or None
    except OSError:
        pass
    try:
        for line in (git_dir / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref):
                return line.split()[0]
    except OSError:
        pass
    return None


class Watcher:
    """Polls ref files every few milliseconds and records each change with its time."""

    def __init__(self, places: dict[str, tuple[Path, str]], every: float = 0.003):
        self.places = places  # name -> (git dir, ref)
        self.every = every
        self.seen: dict[str, list[tuple[float, str]]] = {n: [] for n in places}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Watcher:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        last: dict[str, str | None] = {}
        while not self._stop.is_set():
            now = time.monotonic()
            for name, (git_dir, ref) in self.places.items():
                value = _ref(git_dir, ref)
                if value and value != last.get(name):
                    last[name] = value
                    self.seen[name].append((now, value))
            time.sleep(self.every)


def _cli(*args: str, env: dict[str, str]) -> None:
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, env=env)
    if done.returncode:
        raise RuntimeError(f"catan-p2p {args[0]} failed: {done.stderr.strip()[-500:]}")


def _setup(layout: str, urls: dict[str, str], work: Path, env: dict[str, str]) -> None:
    """Red creates the game, the others join, with the CLI (over the link at 0 ms)."""
    players = ",".join(PLAYERS)
    common = ["--players", players, "--seed", "wan", "--game", GAME]
    if layout == "shared":
        _cli("new", *common, "--remote", urls["shared"], "--repo", str(work / "red"), env=env)
        for p in PLAYERS[1:]:
            _cli(
                "join", urls["shared"], "--game", GAME, "--as", p, "--repo", str(work / p), env=env
            )
    else:
        peers = [a for p in PLAYERS[1:] for a in ("--peer", f"{p}={urls[p]}")]
        _cli("new", *common, "--publish", urls["red"], *peers, "--repo", str(work / "red"), env=env)
        for p in PLAYERS[1:]:
            _cli(
                "join", urls["red"], "--game", GAME, "--as", p, "--publish", urls[p],
                "--repo", str(work / p), env=env,
            )  # fmt: skip


def _first_parent_line(git_dir: Path, head: str) -> list[str]:
    return _git("--git-dir", str(git_dir), "rev-list", "--first-parent", "--reverse", head).split()


def _quantile(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def _stats(xs: list[float]) -> dict:
    if not xs:
        return {"n": 0}
    return {
        "n": len(xs),
        "median_ms": round(statistics.median(xs), 1),
        "p90_ms": round(_quantile(xs, 0.9), 1),
        "min_ms": round(min(xs), 1),
    }


def _analyse(watcher: Watcher, work: Path, remote_of: dict[str, str], skip: int) -> dict:
    """Per move: from the mover recording it to each other peer's log holding it."""
    heads = {p: watcher.seen[p][-1][1] for p in PLAYERS if watcher.seen[p]}
    # A peer stopped at the end may not hold the last head another one reached.
    lines = [_first_parent_line(work / p / ".git", h) for p, h in heads.items()]
    line = max(lines, key=len)
    pos = {oid: i for i, oid in enumerate(line)}

    def first_at(name: str, i: int) -> float | None:
        for t, oid in watcher.seen[name]:
            if pos.get(oid, -1) >= i:
                return t
        return None

    pairs: list[float] = []
    every: list[float] = []
    landed: list[float] = []
    moves = 0
    for i in range(skip, len(line)):
        oid = line[i]
        movers = [p for p in PLAYERS if any(o == oid for _, o in watcher.seen[p])]
        times = {p: first_at(p, i) for p in PLAYERS}
        if not movers or any(t is None for t in times.values()):
            continue  # never seen exactly (a merge made inside a batch), or not yet everywhere
        mover = min(movers, key=lambda p: times[p])  # type: ignore[arg-type, return-value]
        t0 = times[mover]
        assert t0 is not None
        others = [times[p] - t0 for p in PLAYERS if p != mover]  # type: ignore[operator]
        if min(others) < 0:
            continue  # another peer held it first: not the mover's own record
        moves += 1
        pairs += [x * 1e3 for x in others]
        every.append(max(others) * 1e3)
        at_remote = first_at(f"remote:{remote_of[mover]}", i)
        if at_remote is not None:
            landed.append((at_remote - t0) * 1e3)
    return {
        "moves": moves,
        "actions": len(line) - skip,
        "to_each_peer": _stats(pairs),
        "to_every_peer": _stats(every),
        "to_remote": _stats(landed),
    }


# Long on purpose (about 95 lines): the remotes, the link, the bot processes and their
# clean-up share one ExitStack, which a split would have to hand around.
def measure(kind: str, layout: str, actions: int, rtt_ms: float, work: Path) -> dict:
    """Four bots play ``actions`` actions through ``kind`` behind the link; the figures."""
    work.mkdir(parents=True)
    remotes = work / "remotes"
    remotes.mkdir()
    names = ["shared"] if layout == "shared" else list(PLAYERS)
    for n in names:
        _git("init", "-q", "--bare", str(remotes / f"{n}.git"))
    env = {**os.environ, "CATAN_P2P_HOME": str(work / "home")}
    procs: list[subprocess.Popen] = []
    with ExitStack() as stack:
        served = stack.enter_context(serve(kind, remotes / f"{names[0]}.git", work / "server"))
        if kind == "ssh":
            port = int(served.env["GIT_SSH_COMMAND"].rsplit("-p ", 1)[1])
        else:
            port = int(served.url.split(":")[2].split("/")[0])
        link = stack.enter_context(WanLink(port, 0.0))
        if kind == "ssh":
            env["GIT_SSH_COMMAND"] = served.env["GIT_SSH_COMMAND"].replace(
                f"-p {port}", f"-p {link.port}"
            )
            base = served.url.rsplit("/", 1)[0]
        else:
            base = served.url.replace(f":{port}/", f":{link.port}/").rsplit("/", 1)[0]
        urls = {n: f"{base}/{n}.git" for n in names}
        _setup(layout, urls, work, env)
        remote_of = {p: ("shared" if layout == "shared" else p) for p in PLAYERS}
        places = {p: (work / p / ".git", f"refs/heads/catan/{GAME}/{p}") for p in PLAYERS}
        for p in PLAYERS:
            places[f"remote:{remote_of[p]}"] = (
                remotes / f"{remote_of[p]}.git",
                f"refs/heads/catan/{GAME}/{p}",
            )
        # In the shared layout a mover's landing is its own log on the shared remote.
        if layout == "shared":
            places = {k: v for k, v in places.items() if not k.startswith("remote:")}
            for p in PLAYERS:
                places[f"remote:{p}"] = (remotes / "shared.git", f"refs/heads/catan/{GAME}/{p}")
            remote_of = {p: p for p in PLAYERS}
        watcher = Watcher(places).start()
        skip = len(_first_parent_line(work / "red" / ".git", f"refs/heads/catan/{GAME}/red"))
        link.rtt_ms = rtt_ms
        before = (link.stats.connections, link.stats.bytes_up + link.stats.bytes_down)
        load0 = _load()
        t0 = time.monotonic()
        try:
            for p in PLAYERS:
                procs.append(
                    subprocess.Popen(
                        [*CLI, "bot", "--as", p, "--repo", str(work / p)],
                        env=env,
                        stdout=subprocess.DEVNULL,
                        stderr=(work / f"{p}.log").open("w"),
                    )
                )
            deadline = time.monotonic() + 60 + actions * 5.0
            over = False
            while time.monotonic() < deadline:
                red = watcher.seen["red"]
                if (
                    red
                    and len(_first_parent_line(work / "red" / ".git", red[-1][1])) >= skip + actions
                ):
                    break
                if all(proc.poll() is not None for proc in procs):
                    over = True
                    break
                time.sleep(0.5)
            wall = time.monotonic() - t0
            after = (link.stats.connections, link.stats.bytes_up + link.stats.bytes_down)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.terminate()
            for proc in procs:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            watcher.stop()
        result = _analyse(watcher, work, remote_of, skip)
    acts = max(1, result["actions"])
    result.update(
        {
            "game_over": over,
            "wall_s": round(wall, 1),
            "wall_s_per_action": round(wall / acts, 3),
            "connections_per_action": round((after[0] - before[0]) / acts, 2),
            "bytes_per_action": round((after[1] - before[1]) / acts),
            "load_before": load0,
            "load_after": _load(),
        }
    )
    return result


def run(actions: int, rtt_ms: float, kinds=KINDS, layouts=LAYOUTS, repeats: int = 1) -> dict:
    out: dict = {
        "rtt_ms": rtt_ms,
        "peers": len(PLAYERS),
        "bots": "catan-p2p bot processes (greedy, --poll 0.05), one clone each",
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "link_check": {**check(rtt_ms), "load": _load()},
        "target_ms": 4 * rtt_ms + 250,
        "floor_ms": 3.5 * rtt_ms,
        "runs": {},
    }
    for _ in range(repeats):
        for kind in kinds:
            for layout in layouts:
                name = f"{kind}/{layout}"
                with tempfile.TemporaryDirectory(prefix="catan-wan-") as tmp:
                    try:
                        fig = measure(kind, layout, actions, rtt_ms, Path(tmp) / "w")
                    except ServerUnavailable as exc:
                        fig = {"skipped": str(exc)}
                out["runs"].setdefault(name, []).append(fig)
                print(name, json.dumps(fig), file=sys.stderr, flush=True)
    return out


def report(result: dict) -> str:
    c = result["link_check"]
    lines = [
        f"# WAN benchmark: {result['peers']} bot peers, {result['rtt_ms']:.0f} ms round trip",
        "",
        f"Link check (TCP ping-pong, load {c['load']}): added {c['added_median_ms']} ms median "
        f"for a {c['rtt_setting_ms']:.0f} ms setting.",
        f"Target: a move at every other peer within {result['target_ms']:.0f} ms (median); "
        f"floor about {result['floor_ms']:.0f} ms.",
        "",
        "| transport/layout | to every peer median / p90 ms | to each peer median / p90 ms "
        "| push landed median ms | connections / action | bytes / action | s / action | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, runs in result["runs"].items():
        for f in runs:
            if "skipped" in f:
                lines.append(f"| {name} | skipped: {f['skipped']} |")
                continue
            e, a, r = f["to_every_peer"], f["to_each_peer"], f["to_remote"]
            lines.append(
                f"| {name} | {e.get('median_ms')} / {e.get('p90_ms')} | {a.get('median_ms')} / "
                f"{a.get('p90_ms')} | {r.get('median_ms')} | {f['connections_per_action']} | "
                f"{f['bytes_per_action']} | {f['wall_s_per_action']} | {f['load_before']} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.wan")
    parser.add_argument("--actions", type=int, default=ACTIONS, help="actions timed per setting")
    parser.add_argument("--rtt", type=float, default=100.0, help="round trip of the link, ms")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="git daemon only, 15 actions")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.quick:
        actions = args.actions if args.actions != ACTIONS else 15
        result = run(actions, args.rtt, ("daemon",), LAYOUTS, 1)
    else:
        result = run(args.actions, args.rtt, KINDS, LAYOUTS, args.repeats)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "wan.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "wan.md").write_text(report(result))
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
