"""Bot games recorded in Git, timed and measured the way the thesis measured its own.

A ``Stopwatch`` wraps the protocol's entry points (``Peer.record*`` is compute: the
engine applying the action plus writing the commit and moving the ref; ``Peer.advance``
and ``Peer.fast_forward``, answer verification and the transport are sync) and counts
only the outermost call, so a verification inside a fast-forward is not counted twice.
Packing the repository at the end of a game is timed apart (``finish``).

Storage is read with Git itself: ``du -sk`` of ``.git`` as the game leaves it, the
objects' own sizes (``git cat-file --batch-all-objects``), a copy after
``git gc --aggressive``, and ``git log -p`` for the diff of every commit against its
first parent (what ``git diff parent child | wc -c`` counts).
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import folders
from catan_p2p.bots import make_bot
from catan_p2p.net import transport
from catan_p2p.net.driver import play_round_robin
from catan_p2p.protocol.verify import Verifier
from catan_p2p.replica.peer import Peer
from catan_p2p.rules.state import Phase
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game, join_game
from catan_p2p.sim import next_actor, play_session_game
from catan_p2p.store import gitcmd
from catan_p2p.store.refnames import game_prefix
from catan_p2p.store.repo import GameRepo
from catan_p2p.store.schema import FILES

COLOURS = ("red", "blue", "white", "orange", "green", "brown")
BOT = "random"  # catan_p2p.bots.RandomBot: random legal actions, weighted per kind
BUCKETS = ("compute", "sync", "finish")


class Stopwatch:
    """Seconds spent in compute, sync and finish, outermost calls only."""

    def __init__(self) -> None:
        self.total = dict.fromkeys(BUCKETS, 0.0)
        self.commits = 0
        self._stack: list[list] = []  # [bucket, start, excluded]
        self._saved: list[tuple[object, str, object]] = []

    def _wrap(self, owner: object, name: str, bucket: str, counts: bool = False) -> None:
        original = getattr(owner, name)
        watch = self

        @functools.wraps(original)
        def timed(*args, **kwargs):
            if watch._stack and bucket != "finish":
                return original(*args, **kwargs)  # nested: the outer call counts it
            frame = [bucket, time.perf_counter(), 0.0]
            watch._stack.append(frame)
            try:
                return original(*args, **kwargs)
            finally:
                watch._stack.pop()
                elapsed = time.perf_counter() - frame[1]
                watch.total[bucket] += elapsed - frame[2]
                if watch._stack and bucket == "finish":
                    watch._stack[-1][2] += elapsed
                if counts:
                    watch.commits += 1

        self._saved.append((owner, name, original))
        setattr(owner, name, timed)

    def __enter__(self) -> Stopwatch:
        for name in ("record", "record_answer", "record_merge"):
            self._wrap(Peer, name, "compute", counts=True)
        self._wrap(Peer, "advance", "sync")
        self._wrap(Peer, "fast_forward", "sync")
        self._wrap(Verifier, "verify_answer", "sync")
        self._wrap(transport, "fetch", "sync")
        self._wrap(transport, "push", "sync")
        self._wrap(GameRepo, "finish", "finish")
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()

    def snapshot(self) -> tuple[float, float, float, int]:
        t = self.total
        return t["compute"], t["sync"], t["finish"], self.commits


@dataclass
class Latency:
    """Per-commit compute and sync samples of one game (milliseconds)."""

    compute_ms: list[float] = field(default_factory=list)
    sync_ms: list[float] = field(default_factory=list)
    rounds_ms: list[float] = field(default_factory=list)  # networked: one sync() each
    finish_ms: float = 0.0


class _TimedSession:
    """A session whose ``submit`` records compute and sync per commit into ``latency``."""

    def __init__(self, session: GitSession, watch: Stopwatch, latency: Latency) -> None:
        self._session = session
        self._watch = watch
        self._latency = latency

    def __getattr__(self, name: str):  # state, legal_actions, ... pass through
        return getattr(self._session, name)

    def submit(self, action):
        c0, s0, _, n0 = self._watch.snapshot()
        state = self._session.submit(action)
        c1, s1, _, n1 = self._watch.snapshot()
        commits = n1 - n0
        if commits:
            self._latency.compute_ms.extend([(c1 - c0) / commits * 1e3] * commits)
            self._latency.sync_ms.extend([(s1 - s0) / commits * 1e3] * commits)
        return state


@dataclass
class GameRun:
    """One game's figures."""

    players: int
    seed: str
    winner: str | None
    actions: int
    seconds: float
    latency: Latency
    git_dir: Path


def bots_for(players: tuple[str, ...], seed: str) -> dict:
    return {p: make_bot(BOT, f"{seed}/{p}") for p in players}


def play_hotseat(
    workdir: Path, n_players: int, seed: str, max_actions: int, path: Path | None = None
) -> GameRun:
    """A whole bot game, hot-seat: every seat a peer of one repository, made at ``path``
    (by default a new folder of ``workdir``)."""
    players = COLOURS[:n_players]
    if path is None:
        path = folders.fresh(workdir, f"hotseat-{n_players}p-{seed.replace('/', '-')}")
    game = create_game(path, players, seed=seed)  # a fresh id, as `catan-p2p new` gives
    latency = Latency()
    with Stopwatch() as watch:
        session = GitSession(path, game)
        timed = _TimedSession(session, watch, latency)
        start = time.perf_counter()
        result = play_session_game(
            timed, bots_for(players, seed), check_invariants=False, max_actions=max_actions
        )
        if result.winner is None:
            session.repo.pack()  # a cut-short game is packed like a finished one
        session.close()
        seconds = time.perf_counter() - start
        latency.finish_ms = watch.total["finish"] * 1e3
    return GameRun(
        n_players, seed, result.winner, result.actions, seconds, latency, session.repo.git_dir
    )


def play_networked(
    workdir: Path, n_players: int, seed: str, url: str, remote_dir: Path, max_actions: int
) -> GameRun:
    """A bot game between separate clones through a shared remote, driven in one process.

    Each seat is its own clone with its own caches. Before acting, a seat makes one
    sync round (fetch, verify, fast-forward, merge, push); after acting it pushes. The
    next actor is read from the acting seat's state, as a bot process would see it.
    """
    players = COLOURS[:n_players]
    tag = f"{n_players}p-{seed.replace('/', '-')}"
    origin = workdir / f"net-{tag}-origin"
    game = create_game(origin, players, seed=seed)
    gitcmd.run(origin / ".git", "push", "-q", url, f"{game_prefix(game)}/*", check=True)
    sessions = {p: join_game(url, workdir / f"net-{tag}-{p}", game, p) for p in players}
    bots = bots_for(players, seed)
    latency = Latency()
    start = time.perf_counter()
    with Stopwatch() as watch:

        def timed_sync(seat: _RoundTimed) -> None:
            t0 = time.perf_counter()
            seat.sync()
            latency.rounds_ms.append((time.perf_counter() - t0) * 1e3)

        timed = {p: _RoundTimed(s, watch, latency) for p, s in sessions.items()}
        state = play_round_robin(timed, bots, max_actions, before_act=timed_sync)
        n = sum(t.actions for t in timed.values())
        for session in sessions.values():
            session.sync()
            session.close()
    seconds = time.perf_counter() - start
    winner = None if state.phase is not Phase.GAME_OVER else state.players[state.winner]
    git_dir = sessions[players[0]].repo.git_dir
    return GameRun(n_players, seed, winner, n, seconds, latency, git_dir)


class _RoundTimed:
    """A networked seat's session whose ``submit`` records compute, and sync with its round."""

    def __init__(self, session: GitSession, watch: Stopwatch, latency: Latency) -> None:
        self._session = session
        self._watch = watch
        self._latency = latency
        self.actions = 0

    def __getattr__(self, name: str):  # state, legal_actions, ... pass through
        return getattr(self._session, name)

    def submit(self, action):
        c0, s0, _, k0 = self._watch.snapshot()
        state = self._session.submit(action)
        c1, s1, _, k1 = self._watch.snapshot()
        self.actions += 1
        if k1 > k0:
            self._latency.compute_ms.extend([(c1 - c0) / (k1 - k0) * 1e3] * (k1 - k0))
            self._latency.sync_ms.append((s1 - s0) * 1e3 + self._latency.rounds_ms[-1])
        return state


def round_trip(workdir: Path, url: str, repeats: int) -> dict:
    """Fetch latency as the thesis measured its pull: nothing changed, then something did."""
    players = COLOURS[:2]
    origin = workdir / "rt-origin"
    create_game(origin, players, seed="round-trip", game_id="rt")
    gitcmd.run(origin / ".git", "push", "-q", url, f"{game_prefix('rt')}/*", check=True)
    red = join_game(url, workdir / "rt-red", "rt", "red")
    blue = join_game(url, workdir / "rt-blue", "rt", "blue")
    bots = bots_for(players, "round-trip")
    same, changed = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        transport.fetch(blue.repo.git_dir, "rt")
        same.append((time.perf_counter() - t0) * 1e3)
        red.sync()
        state = red.state
        player = next_actor(state)
        actor = red if player == "red" else blue
        if actor is blue:
            blue.sync()
        actor.submit(bots[player].decide(actor.state, actor.legal_actions(player)))
        other = blue if actor is red else red
        t0 = time.perf_counter()
        transport.fetch(other.repo.git_dir, "rt")
        changed.append((time.perf_counter() - t0) * 1e3)
        other.sync()
    return {"fetch_unchanged_ms": same, "fetch_changed_ms": changed}


# --- storage ---------------------------------------------------------------------------


def _git(git_dir: Path, *args: str) -> str:
    return gitcmd.run(git_dir, *args, check=True).stdout


def du_bytes(path: Path) -> int:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, check=True, text=True)
    return int(out.stdout.split()[0]) * 1024


def storage(git_dir: Path) -> dict:
    """Sizes of one finished game's repository, and the diff of every commit."""
    commits = int(_git(git_dir, "rev-list", "--all", "--count"))
    sizes, by_file = diffs(git_dir)
    files = [p for p in git_dir.rglob("*") if p.is_file()]
    objects = _git(
        git_dir,
        "cat-file",
        "--batch-all-objects",
        "--batch-check=%(objecttype) %(objectsize) %(objectsize:disk)",
    ).split("\n")
    kinds: dict[str, int] = {}
    raw = on_disk = count = 0
    for line in objects:
        if line:
            kind, size, disk = line.split()
            kinds[kind] = kinds.get(kind, 0) + 1
            raw += int(size)
            on_disk += int(disk)
            count += 1
    packs = list((git_dir / "objects" / "pack").glob("*.pack"))
    loose = sum(1 for p in (git_dir / "objects").glob("??/*"))
    with tempfile.TemporaryDirectory(prefix="gc-", dir=git_dir.parent) as tmp:
        copy = Path(tmp) / "copy.git"
        shutil.copytree(git_dir, copy)
        gitcmd.run(copy, "gc", "--aggressive", "--prune=now", "-q", check=True)
        gc_du = du_bytes(copy)
        gc_pack = sum(p.stat().st_size for p in (copy / "objects" / "pack").glob("*.pack"))
        gc_by_kind = packed_by_kind(copy)
    return {
        "commits": commits,
        "disk_bytes": du_bytes(git_dir),
        "apparent_bytes": sum(p.stat().st_size for p in files),
        "objects": count,
        "objects_by_kind": kinds,
        "object_bytes_raw": raw,
        "object_bytes_in_store": on_disk,
        "loose_equivalent_bytes": count * 4096,  # each object a loose file in a 4 KiB block
        "packs": len(packs),
        "loose_objects": loose,
        "pack_bytes": sum(p.stat().st_size for p in packs),
        "gc_disk_bytes": gc_du,
        "gc_pack_bytes": gc_pack,
        "gc_pack_bytes_by_kind": gc_by_kind,
        "diff_bytes": sizes,
        "diff_bytes_by_file": by_file,
        "protocol": protocol_costs(git_dir),
    }


def packed_by_kind(git_dir: Path) -> dict[str, int]:
    """Bytes each kind of object takes in the packs (``git verify-pack``: size in pack)."""
    out: dict[str, int] = {}
    for idx in (git_dir / "objects" / "pack").glob("*.idx"):
        for line in _git(git_dir, "verify-pack", "-v", str(idx)).splitlines():
            parts = line.split()
            if len(parts) >= 5 and parts[1] in ("commit", "tree", "blob"):
                out[parts[1]] = out.get(parts[1], 0) + int(parts[3])
    return out


def protocol_costs(git_dir: Path) -> dict[str, int]:
    """What chance and privacy add to a game: commits and round trips per draw and steal.

    A draw adds no commit: the other seats' shares ride on their next rolls. A steal adds
    the robbed player's ``give_card`` answer and the merge that takes it (one round trip
    between the two). The deck secrets add one commit per player after the game.
    """
    subjects = _git(git_dir, "log", "--all", "--format=%s").splitlines()
    draws = sum(1 for s in subjects if s.endswith(": buy development card"))
    steals = sum(1 for s in subjects if "give the robber" in s)
    steal_merges = sum(1 for s in subjects if "merge the card given" in s)
    return {
        "draws": draws,
        "steals": steals,
        "extra_commits_for_draws": 0,
        "extra_commits_for_steals": steals + steal_merges,
        "round_trips_for_steals": steals,
        "deck_secret_commits": sum(1 for s in subjects if s.endswith("reveal the deck secret")),
        "victory_claims": sum(1 for s in subjects if "victory point card" in s),
        **special_build_costs(git_dir),
    }


#: What a seat may do in the special building phase (5-6 players), by commit summary.
_SPECIAL = re.compile(
    r": (build road|build settlement|build city|buy development card|done building)"
)


def special_build_costs(git_dir: Path) -> dict[str, int]:
    """Turns, turns followed by a special building step, and the commits those steps took.

    Read from one log in game order: every commit between an ``end turn`` and the next
    turn's first move (a roll or a card, never a build) belongs to the phase. Games of
    2-4 players have none.
    """
    refs = _git(git_dir, "for-each-ref", "--format=%(refname)", "refs/heads/catan/").split()
    logs = [r for r in refs if r.count("/") == 4]  # refs/heads/catan/<game>/<player>
    if not logs:
        return {"turns": 0, "special_build_turns": 0, "special_build_commits": 0}
    subjects = _git(git_dir, "log", "--first-parent", "--reverse", "--format=%s", logs[0])
    turns = steps = commits = 0
    in_phase = False
    counted = False
    for line in subjects.splitlines():
        if line.endswith(": end turn"):
            turns += 1
            in_phase, counted = True, False
            continue
        if in_phase and _SPECIAL.search(line):
            commits += 1
            if not counted:
                steps, counted = steps + 1, True
            continue
        in_phase = False
    return {"turns": turns, "special_build_turns": steps, "special_build_commits": commits}


def diff_sizes(git_dir: Path) -> list[int]:
    """Bytes of ``git diff parent child`` for every commit but the genesis (merges: first parent)."""
    return diffs(git_dir)[0]


def diffs(git_dir: Path) -> tuple[list[int], dict[str, int]]:
    """``diff_sizes``, and the bytes of those diffs that each state file's sections take
    (per-seat files under one name, ``players/<player>.json``): where a diff's bytes go."""
    out = gitcmd.run(
        git_dir,
        "log",
        "--all",
        "-p",
        "--diff-merges=first-parent",
        "--no-color",
        "--no-ext-diff",
        "--format=%x00%P",
        text=False,
        check=True,
    ).stdout
    sizes = []
    by_file: dict[str, int] = {}
    for chunk in out.split(b"\0")[1:]:
        parents, _, rest = chunk.partition(b"\n")
        if not parents.strip():
            continue  # the genesis has no parent to differ from
        body = rest.lstrip(b"\n")
        sizes.append(len(body))
        for section in re.split(rb"(?=^diff --git )", body, flags=re.M):
            named = re.match(rb"diff --git a/(\S+)", section)
            if named:
                name = _file_kind(named.group(1).decode())
                by_file[name] = by_file.get(name, 0) + len(section)
    return sizes, by_file


def _file_kind(path: str) -> str:
    """``players/red.json`` -> ``players/<player>.json``: the name schema.FILES gives it."""
    folder, _, name = path.rpartition("/")
    generic = f"{folder}/<player>.json"
    return generic if folder and name.endswith(".json") and generic in FILES else path
