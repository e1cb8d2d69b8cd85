"""``python -m benchmarks.wan``: four bot peers playing through a 100 ms round-trip link.

The remotes (``tests/remotes.py``: ``git daemon``, an sshd of our own, smart HTTP
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
link) and bytes per action; wall time of the stretch played. Where the time goes: when
the mover's push landed on its remote, when each other peer's fetch brought it (its
tracking ref), when that peer's log held it (verified and adopted), and what one idle
fetch costs through the link (the price of every poll).

Each row (transport/layout) is run ``--repeats`` times; the summary gives the median of
the runs' medians and their spread. ``--game`` plays whole games instead (the wall time
from the bots' start until every bot has ended the game). ``--merge`` keeps the rows
of an earlier ``wan.json`` that this run did not measure (rows can be measured, and a
row measured under load measured again, one at a time). ``--peers 2`` plays two seats
instead of four (the smoke test's size; ``--merge`` keeps runs of one size only).

Writes ``benchmarks/results/wan.json`` and ``wan.md`` (or under ``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks.wan_link import WanLink, check
from catan_p2p.store import gitcmd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the servers are the tests' fixtures

from remotes import ServerUnavailable, serve  # noqa: E402

PLAYERS = ("red", "blue", "white", "orange")  # ``--peers N``: the first N of these
GAME = "wan"
KINDS = ("daemon", "ssh", "http")
LAYOUTS = ("shared", "points")
ROWS = tuple(f"{k}/{lay}" for k in KINDS for lay in LAYOUTS)
OUT = ROOT / "benchmarks" / "results"
ACTIONS = 120  # actions timed per setting (``--quick``: 15, unless --actions says)
REPEATS = 3  # runs per row
CLI = [str(Path(sys.executable).parent / "catan-p2p")]
GAME_LIMIT_S = 3600.0  # a whole game that has not ended by then is reported unfinished
IDLE_PROBES = 5  # idle fetches timed per run


def _bot_command(idle_max: float | None) -> list[str]:
    """``catan-p2p bot``, or (an A/B variant) the same with another idle-poll ceiling."""
    if idle_max is None:
        return [*CLI, "bot"]
    code = (
        "import sys; import catan_p2p.commands.bot as b; "
        f"b.IDLE_MAX = {float(idle_max)!r}; from catan_p2p.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    return [sys.executable, "-c", code, "bot"]


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _cpu_times() -> list[int]:
    """The machine's CPU jiffies (user, nice, system, idle, ...) from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            return [int(x) for x in f.readline().split()[1:8]]
    except OSError:
        return []


def _cpu_share(before: list[int], after: list[int]) -> dict:
    """Of the machine's CPU time between two readings: the share at normal priority
    (this run and any other measurer) and the share of niced work (others' suites)."""
    if not before or not after:
        return {}
    d = [b - a for a, b in zip(before, after, strict=True)]
    total = sum(d) or 1
    user, nice, system, _idle, iowait, irq, softirq = d
    return {
        "normal_pct": round(100 * (user + system + irq + softirq) / total, 1),
        "niced_pct": round(100 * nice / total, 1),
        "iowait_pct": round(100 * iowait / total, 1),
    }


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


def _setup(
    layout: str, urls: dict[str, str], work: Path, env: dict[str, str], seats: tuple[str, ...]
) -> None:
    """Red creates the game, the others join, with the CLI (over the link at 0 ms)."""
    common = ["--players", ",".join(seats), "--seed", "wan", "--game", GAME]
    if layout == "shared":
        _cli("new", *common, "--remote", urls["shared"], "--repo", str(work / "red"), env=env)
        for p in seats[1:]:
            _cli(
                "join", urls["shared"], "--game", GAME, "--as", p, "--repo", str(work / p), env=env
            )
    else:
        peers = [a for p in seats[1:] for a in ("--peer", f"{p}={urls[p]}")]
        _cli("new", *common, "--publish", urls["red"], *peers, "--repo", str(work / "red"), env=env)
        for p in seats[1:]:
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
        "p95_ms": round(_quantile(xs, 0.95), 1),
        "min_ms": round(min(xs), 1),
    }


def _analyse(
    watcher: Watcher, work: Path, remote_of: dict[str, str], skip: int, seats: tuple[str, ...]
) -> dict:
    """Per move: from the mover recording it to each other peer's log holding it, with
    when the push landed and when each other peer's fetch brought it."""
    heads = {p: watcher.seen[p][-1][1] for p in seats if watcher.seen[p]}
    # A peer stopped at the end may not hold the last head another one reached.
    lines = [_first_parent_line(work / p / ".git", h) for p, h in heads.items()]
    line = max(lines, key=len)
    pos = {oid: i for i, oid in enumerate(line)}

    def first_at(name: str, i: int) -> float | None:
        for t, oid in watcher.seen.get(name, ()):
            if pos.get(oid, -1) >= i:
                return t
        return None

    def fetched_at(peer: str, i: int) -> float | None:
        """When any of ``peer``'s tracking refs first held move ``i`` (or later)."""
        times = [first_at(f"track:{peer}:{p}", i) for p in seats]
        return min((t for t in times if t is not None), default=None)

    pairs: list[float] = []
    every: list[float] = []
    landed: list[float] = []
    fetched: list[float] = []  # landed on the remote -> in the other peer's tracking ref
    adopted: list[float] = []  # in the tracking ref -> in the peer's log (verify, adopt)
    moves = 0
    for i in range(skip, len(line)):
        oid = line[i]
        movers = [p for p in seats if any(o == oid for _, o in watcher.seen[p])]
        times = {p: first_at(p, i) for p in seats}
        if not movers or any(t is None for t in times.values()):
            continue  # never seen exactly (a merge made inside a batch), or not yet everywhere
        mover = min(movers, key=lambda p: times[p])  # type: ignore[arg-type, return-value]
        t0 = times[mover]
        assert t0 is not None
        others = [times[p] - t0 for p in seats if p != mover]  # type: ignore[operator]
        if min(others) < 0:
            continue  # another peer held it first: not the mover's own record
        moves += 1
        pairs += [x * 1e3 for x in others]
        every.append(max(others) * 1e3)
        at_remote = first_at(f"remote:{remote_of[mover]}", i)
        if at_remote is not None:
            landed.append((at_remote - t0) * 1e3)
        for p in seats:
            got, shown = fetched_at(p, i), times[p]
            if p == mover or got is None or shown is None or got > shown:
                continue
            if at_remote is not None and got >= at_remote:
                fetched.append((got - at_remote) * 1e3)
            adopted.append((shown - got) * 1e3)
    return {
        "moves": moves,
        "actions": len(line) - skip,
        "to_each_peer": _stats(pairs),
        "to_every_peer": _stats(every),
        "to_remote": _stats(landed),
        "remote_to_fetched": _stats(fetched),
        "fetched_to_shown": _stats(adopted),
    }


def _idle_fetch_ms(peer: Path, url: str, env: dict[str, str]) -> dict:
    """What one poll that finds nothing new costs through the link: ``git fetch`` of a
    seat's log into a scratch ref that already holds it, as ``sync`` fetches."""
    ref = f"refs/heads/catan/{GAME}/red"
    args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", url]
    args += [f"+{ref}:refs/wan-probe/red"]
    times = []
    for _ in range(IDLE_PROBES + 1):
        t0 = time.monotonic()
        gitcmd.run(peer / ".git", *args, env=env, check=True)
        times.append((time.monotonic() - t0) * 1e3)
    return _stats(times[1:])  # the first one fetched the objects


def _wait_bots(
    procs: list[subprocess.Popen], watcher: Watcher, work: Path, until: int | None
) -> bool:
    """Until red's log holds ``until`` commits (None: until every bot ended the game);
    True when every bot has ended."""
    deadline = time.monotonic() + (GAME_LIMIT_S if until is None else 60 + until * 5.0)
    while time.monotonic() < deadline:
        red = watcher.seen["red"]
        if (
            until is not None
            and red
            and len(_first_parent_line(work / "red" / ".git", red[-1][1])) >= until
        ):
            return False
        if all(proc.poll() is not None for proc in procs):
            return True
        time.sleep(0.5)
    return False


def _hear_ctrl_c() -> None:
    """A bot started from a background shell inherits SIGINT ignored; it must hear ``_stop``."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stop(procs: list[subprocess.Popen]) -> None:
    """Stop the bots as Ctrl-C would (each closes its shared ssh connections), then
    harder if one does not end."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    for proc in procs:
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass(frozen=True)
class Variant:
    """What an A/B run changes: the bots' idle-poll ceiling, ssh connection reuse."""

    idle_max: float | None = None  # seconds; None: the bot's own IDLE_MAX
    ssh_per_transfer: bool = False  # True: no ssh connection reuse (ControlMaster=no)

    def label(self) -> str:
        parts = []
        if self.idle_max is not None:
            parts.append(f"idle poll {self.idle_max} s")
        if self.ssh_per_transfer:
            parts.append("a new ssh connection per transfer")
        return ", ".join(parts) or "as shipped"


@contextmanager
def _probe_env(env: dict[str, str], kind: str, variant: Variant) -> Iterator[dict[str, str]]:
    """The environment the idle-fetch probe runs with: over ssh, sharing one connection
    as the bots do (``gitcmd.ssh_reuse``), unless the variant turned that off."""
    if kind != "ssh" or variant.ssh_per_transfer:
        yield env
        return
    where = Path(tempfile.mkdtemp(prefix="catan-", dir="/tmp"))
    command = gitcmd.shared_ssh_command(env["GIT_SSH_COMMAND"], str(where / gitcmd.SOCKET_NAME))
    assert command is not None
    try:
        yield {**env, "GIT_SSH_COMMAND": command}
    finally:
        for sock in where.iterdir():
            ssh = ["ssh", "-o", f"ControlPath={sock}", "-O", "exit", "x"]
            subprocess.run(ssh, capture_output=True, check=False)
        shutil.rmtree(where, ignore_errors=True)


# Long on purpose (about 100 lines): the remotes, the link, the bot processes and their
# clean-up share one ExitStack, which a split would have to hand around.
def measure(
    kind: str,
    layout: str,
    actions: int | None,
    rtt_ms: float,
    work: Path,
    variant: Variant = Variant(),
    seats: tuple[str, ...] = PLAYERS,
) -> dict:
    """A bot per seat (four by default) plays ``actions`` actions (None: the whole game)
    through ``kind`` behind the link; the figures."""
    work.mkdir(parents=True)
    remotes = work / "remotes"
    remotes.mkdir()
    names = ["shared"] if layout == "shared" else list(seats)
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
        _setup(layout, urls, work, env, seats)
        remote_of = {p: ("shared" if layout == "shared" else p) for p in seats}
        places = {p: (work / p / ".git", f"refs/heads/catan/{GAME}/{p}") for p in seats}
        for p in seats:  # where a mover's push lands: its log on its remote
            places[f"remote:{p}"] = (
                remotes / f"{remote_of[p]}.git",
                f"refs/heads/catan/{GAME}/{p}",
            )
            for q in seats:  # what p's fetches brought of q's log
                source = "origin" if layout == "shared" else f"seat-{q}"
                places[f"track:{p}:{q}"] = (
                    work / p / ".git",
                    f"refs/remotes/{source}/catan/{GAME}/{q}",
                )
        remote_of = {p: p for p in seats}
        watcher = Watcher(places).start()
        skip = len(_first_parent_line(work / "red" / ".git", f"refs/heads/catan/{GAME}/red"))
        link.rtt_ms = rtt_ms
        before = (link.stats.connections, link.stats.bytes_up + link.stats.bytes_down)
        load0, cpu0 = _load(), _cpu_times()
        t0 = time.monotonic()
        bot = _bot_command(variant.idle_max)
        if variant.ssh_per_transfer and kind == "ssh":
            env["GIT_SSH_COMMAND"] += " -o ControlMaster=no"  # gitcmd.ssh_reuse stands back
        try:
            for p in seats:
                procs.append(
                    subprocess.Popen(
                        [*bot, "--as", p, "--repo", str(work / p)],
                        env=env,
                        stdout=subprocess.DEVNULL,
                        stderr=(work / f"{p}.log").open("w"),
                        preexec_fn=_hear_ctrl_c,
                    )
                )
            over = _wait_bots(procs, watcher, work, None if actions is None else skip + actions)
            wall = time.monotonic() - t0
            after = (link.stats.connections, link.stats.bytes_up + link.stats.bytes_down)
            load1, cpu = _load(), _cpu_share(cpu0, _cpu_times())
        finally:
            _stop(procs)
            watcher.stop()
        with _probe_env(env, kind, variant) as probe:
            idle = _idle_fetch_ms(work / "red", urls[names[0]], probe)
        result = _analyse(watcher, work, remote_of, skip, seats)
    acts = max(1, result["actions"])
    result.update(
        {
            "variant": variant.label(),
            "game_over": over,
            "wall_s": round(wall, 1),
            "wall_s_per_action": round(wall / acts, 3),
            "connections_per_action": round((after[0] - before[0]) / acts, 2),
            "bytes_per_action": round((after[1] - before[1]) / acts),
            "idle_fetch": idle,
            "load_before": load0,
            "load_after": load1,
            "cpu_during": cpu,
        }
    )
    return result


def _median(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 1) if xs else None


def summarise(runs: list[dict]) -> dict:
    """A row's runs in one line: the median of the runs' medians and their spread."""
    done = [r for r in runs if "skipped" not in r and r["to_every_peer"].get("n")]
    if not done:
        return {"runs": 0}

    def of(key: str, field: str = "median_ms") -> list[float]:
        return [r[key][field] for r in done if r[key].get(field) is not None]

    every = of("to_every_peer")
    return {
        "runs": len(done),
        "moves": sum(r["moves"] for r in done),
        "to_every_peer_median_ms": _median(every),
        "to_every_peer_spread_ms": [min(every), max(every)],
        "to_every_peer_p90_ms": _median(of("to_every_peer", "p90_ms")),
        "to_each_peer_median_ms": _median(of("to_each_peer")),
        "to_each_peer_p90_ms": _median(of("to_each_peer", "p90_ms")),
        "to_remote_median_ms": _median(of("to_remote")),
        "remote_to_fetched_median_ms": _median(of("remote_to_fetched")),
        "fetched_to_shown_median_ms": _median(of("fetched_to_shown")),
        "idle_fetch_median_ms": _median(of("idle_fetch")),
        "connections_per_action": _median([r["connections_per_action"] for r in done]),
        "bytes_per_action": _median([r["bytes_per_action"] for r in done]),
        "wall_s_per_action": round(statistics.median(r["wall_s_per_action"] for r in done), 3),
        "loads": [r["load_before"] for r in done],
        "niced_cpu_pct": [r.get("cpu_during", {}).get("niced_pct") for r in done],
    }


def run(
    actions: int | None,
    rtt_ms: float,
    rows: list[str],
    repeats: int = REPEATS,
    variants: tuple[Variant, ...] = (Variant(),),
    saved: Callable[[dict], None] = lambda out: None,
    seats: tuple[str, ...] = PLAYERS,
) -> dict:
    """Each row ``repeats`` times, rows and variants interleaved (so a busy spell hits
    every one alike); ``saved`` is called with the figures after every run."""
    out: dict = {"runs": {}, "games": {}}
    for _ in range(repeats):
        for name in rows:
            kind, layout = name.split("/")
            for variant in variants:
                with tempfile.TemporaryDirectory(prefix="catan-wan-") as tmp:
                    try:
                        fig = measure(
                            kind, layout, actions, rtt_ms, Path(tmp) / "w", variant, seats
                        )
                    except ServerUnavailable as exc:
                        fig = {"skipped": str(exc)}
                    except (RuntimeError, subprocess.SubprocessError, OSError) as exc:
                        fig = {"skipped": f"the run failed: {exc}"}  # the other runs go on
                key = name if variant == Variant() else f"{name} ({variant.label()})"
                out["games" if actions is None else "runs"].setdefault(key, []).append(fig)
                print(key, json.dumps(fig), file=sys.stderr, flush=True)
                saved(out)
    return out


def _row_order(key: str) -> tuple[int, str]:
    return ROWS.index(key.split(" ")[0]), key


def _linked(*, load: str, **figures: object) -> str:
    return f"{figures['added_median_ms']} ms (load {load})"


def _cell(x: object) -> str:
    return "-" if x is None else str(x)


def _row_table(runs_by_row: dict) -> list[str]:
    lines = [
        "| transport/layout | runs (moves) | to every peer median [spread] / p90 ms "
        "| to each peer median / p90 ms | push landed ms | landed to fetched ms "
        "| fetched to shown ms | idle fetch ms | connections / action | bytes / action "
        "| s / action | load (1/5/15 min) per run | niced CPU % per run |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, runs in runs_by_row.items():
        skipped = [r["skipped"] for r in runs if "skipped" in r]
        s = summarise(runs)
        if not s["runs"]:
            lines.append(f"| {name} | skipped: {'; '.join(skipped) or 'no move measured'} |")
            continue
        lo, hi = s["to_every_peer_spread_ms"]
        lines.append(
            f"| {name} | {s['runs']} ({s['moves']}) | {s['to_every_peer_median_ms']} "
            f"[{lo}-{hi}] / {s['to_every_peer_p90_ms']} | {s['to_each_peer_median_ms']} / "
            f"{s['to_each_peer_p90_ms']} | {_cell(s['to_remote_median_ms'])} | "
            f"{_cell(s['remote_to_fetched_median_ms'])} | {_cell(s['fetched_to_shown_median_ms'])}"
            f" | {_cell(s['idle_fetch_median_ms'])} | {s['connections_per_action']} | "
            f"{s['bytes_per_action']} | {s['wall_s_per_action']} | {'; '.join(s['loads'])} | "
            f"{'; '.join(_cell(x) for x in s['niced_cpu_pct'])} |"
        )
    return lines


def report(result: dict) -> str:
    checks = "; ".join(_linked(**c) for c in result["link_checks"])
    c = result["link_checks"][-1]
    lines = [
        f"# WAN benchmark: {result['peers']} bot peers, {result['rtt_ms']:.0f} ms round trip",
        "",
        f"Link check (TCP ping-pong, {c['pings']} pings, one check per invocation): added "
        f"{checks} median for a {c['rtt_setting_ms']:.0f} ms setting.",
        f"Target: a move at every other peer within {result['target_ms']:.0f} ms (median); "
        f"floor about {result['floor_ms']:.0f} ms. Bots: {result['bots']}.",
        "",
        "## A move to every other peer (median of the runs' medians)",
        "",
        *_row_table(result["runs"]),
    ]
    for name, ab in result.get("ab", {}).items():
        lines += ["", f"## A/B: {name}", "", *_row_table(ab["runs"])]
    if result.get("games"):
        lines += [
            "",
            "## Whole games (from the bots' start until every bot ended the game)",
            "",
            "| transport/layout | wall time | actions | s / action | ended | to every peer "
            "median / p90 ms | connections / action | bytes / action | load before; after |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for name, games in result["games"].items():
            for g in games:
                if "skipped" in g:
                    lines.append(f"| {name} | skipped: {g['skipped']} |")
                    continue
                e = g["to_every_peer"]
                lines.append(
                    f"| {name} | {g['wall_s'] / 60:.1f} min ({g['wall_s']} s) | {g['actions']} "
                    f"| {g['wall_s_per_action']} | {'yes' if g['game_over'] else 'no'} | "
                    f"{e.get('median_ms')} / {e.get('p90_ms')} | {g['connections_per_action']} "
                    f"| {g['bytes_per_action']} | {g['load_before']}; {g['load_after']} |"
                )
    if result.get("notes"):
        lines += ["", "## Where the time goes", "", *result["notes"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.wan")
    parser.add_argument("--actions", type=int, default=ACTIONS, help="actions timed per run")
    parser.add_argument("--rtt", type=float, default=100.0, help="round trip of the link, ms")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="runs per row")
    seats = range(2, len(PLAYERS) + 1)
    parser.add_argument("--peers", type=int, default=len(PLAYERS), choices=seats, help="bot peers")
    parser.add_argument(
        "--rows",
        default=",".join(ROWS),
        help=f"transport/layout rows, comma-separated (default: all six: {','.join(ROWS)})",
    )
    parser.add_argument("--game", action="store_true", help="whole games instead of actions")
    parser.add_argument("--quick", action="store_true", help="git daemon only, 15 actions, 1 run")
    parser.add_argument(
        "--merge", action="store_true", help="keep the other rows of the --out wan.json"
    )
    parser.add_argument("--idle-max", type=float, default=None, help="A/B: bots' idle poll, s")
    parser.add_argument(
        "--ssh-per-transfer", action="store_true", help="A/B: no ssh connection reuse"
    )
    parser.add_argument(
        "--ab", action="store_true", help="run the shipped bots beside the variant, interleaved"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--render", action="store_true", help="only write wan.md again from --out's wan.json"
    )
    args = parser.parse_args(argv)
    if args.render:
        (args.out / "wan.md").write_text(report(json.loads((args.out / "wan.json").read_text())))
        return 0
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        parser.error(f"unknown row {unknown[0]!r}; rows are {', '.join(ROWS)}")
    actions: int | None = args.actions
    repeats = args.repeats
    if args.quick:
        rows = [r for r in rows if r.startswith("daemon/")]
        actions, repeats = (args.actions if args.actions != ACTIONS else 15), 1
    if args.game:
        actions = None
    path = args.out / "wan.json"
    old = json.loads(path.read_text()) if args.merge and path.exists() else {}
    if old.get("peers", args.peers) != args.peers:
        parser.error(f"{path} holds runs of {old['peers']} peers; give --peers {old['peers']}")
    variant = Variant(args.idle_max, args.ssh_per_transfer)
    variants = (Variant(), variant) if args.ab else (variant,)
    result: dict = {
        "rtt_ms": args.rtt,
        "peers": args.peers,
        "bots": "catan-p2p bot processes (greedy, --poll 0.05), one clone each",
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "link_checks": [{**check(args.rtt), "load": _load()}],
        "target_ms": 4 * args.rtt + 250,
        "floor_ms": 3.5 * args.rtt,
        "runs": {},
        "games": {},
    }
    result["link_checks"] = old.get("link_checks", []) + result["link_checks"]
    for kept in ("ab", "notes"):
        if kept in old:
            result[kept] = old[kept]
    args.out.mkdir(parents=True, exist_ok=True)

    def save(new: dict) -> None:
        for part in ("runs", "games"):
            merged = {**old.get(part, {}), **new[part]}
            result[part] = {k: merged[k] for k in sorted(merged, key=_row_order)}
        result["summary"] = {r: summarise(v) for r, v in result["runs"].items()}
        path.write_text(json.dumps(result, indent=2) + "\n")
        (args.out / "wan.md").write_text(report(result))

    save(run(actions, args.rtt, rows, repeats, variants, save, PLAYERS[: args.peers]))
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
