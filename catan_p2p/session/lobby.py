"""The lobby: which games a remote holds, and which games this machine plays.

A remote is read the cheap way (``net.listing``: its refs, and the newest commit of each
log this machine has not seen yet, into a cache repository under
``$CATAN_P2P_HOME/lobby``), and the one object reader (``store.catfile``) reads three
small files of each (``game.json``, ``turn.json``, ``seats.json``). Nothing is verified:
a listing says what the remote holds, and joining or watching a game verifies it from
its genesis as always.

A remote may hold anything anyone pushed. Refs of no protocol shape are counted and
skipped, every Git call has a deadline and a bound (``net.listing``), every file read is
bounded, at most ``MAX_GAMES`` games are read, and a game whose files do not parse is
listed with the reason instead of stopping the listing.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from catan_p2p.errors import RemoteError, StateFileError, UsageError
from catan_p2p.net.listing import bring_tips, ls_remote
from catan_p2p.rules.state import Phase
from catan_p2p.rules.steps import SEAT
from catan_p2p.session.home import catan_home
from catan_p2p.store.catfile import CatFile, Found
from catan_p2p.store.refnames import (
    PREFIX,
    check_name,
    game_of,
    game_prefix,
    parse_ref,
    tracking_prefix,
    well_formed,
)
from catan_p2p.store.repo import Repository
from catan_p2p.store.schema import GameFile, SeatsFile, TurnFile

if TYPE_CHECKING:
    pass

# Listing a remote imports no more than it needs (a listing is a process of its own and
# must answer fast); what reads whole states (store.repo, rules.engine) is imported by
# the functions for this machine's games.

#: Games read from one remote at most; the rest are counted (``RemoteGames.more``).
MAX_GAMES = 5000
#: Seconds a whole listing may take on the network (``ls-remote`` plus the fetch).
DEADLINE = 20.0
_OID = re.compile(r"^[0-9a-f]{40}$")
#: The files of a commit's tree a summary reads.
FILES = ("game.json", "turn.json", "seats.json")
#: Largest file read (the board of a radius-5 island is about 20 KB), as store.codec's.
MAX_FILE = 256 * 1024
_WHEN = re.compile(rb"^committer [^\n<]*<[^\n>]*> (\d{1,12}) [+-]\d{4}$", re.M)


def _name(phase: Phase) -> str:
    """A phase as ``turn.json`` writes it."""
    return phase.name.lower()


@dataclass(frozen=True)
class GameSummary:
    """One game as a lobby lists it.

    ``waiting_for`` are the players the game waits on (open seats while seats are still
    being claimed); ``last_move`` the Unix time of its newest commit; ``problem`` says
    why a game could not be read (then the other fields are empty).
    """

    game: str
    players: tuple[str, ...] = ()
    open_seats: tuple[str, ...] = ()
    turn: int = 0
    phase: str = ""
    waiting_for: tuple[str, ...] = ()
    last_move: int = 0
    winner: str | None = None
    abandoned: str | None = None
    problem: str | None = None
    #: local games only: where the game is kept and the seats played there
    path: str | None = None
    yours: tuple[str, ...] = ()
    mine_waiting: tuple[str, ...] = field(default=())

    @property
    def is_over(self) -> bool:
        return self.phase == _name(Phase.GAME_OVER)

    def to_json(self) -> dict:
        """The summary as one JSON object (``games --json``)."""
        out = {
            "game": self.game,
            "players": list(self.players),
            "open_seats": list(self.open_seats),
            "turn": self.turn,
            "phase": self.phase,
            "waiting_for": list(self.waiting_for),
            "last_move": self.last_move,
            "winner": self.winner,
            "abandoned": self.abandoned,
            "problem": self.problem,
        }
        if self.path is not None:
            out.update(
                path=self.path, yours=list(self.yours), waits_for_you=list(self.mine_waiting)
            )
        return out


@dataclass(frozen=True)
class RemoteGames:
    """What ``list_remote`` found: the games, the refs skipped as junk, the games not read."""

    url: str
    games: tuple[GameSummary, ...]
    junk_refs: int = 0
    more: int = 0
    seconds: float = 0.0


# --- the remote ------------------------------------------------------------------------


def cache_dir(url: str, home: Path | None = None) -> Path:
    """The bare repository that keeps what listings of ``url`` fetched."""
    name = hashlib.sha256(url.encode()).hexdigest()[:16]
    return (home or catan_home()) / "lobby" / f"{name}.git"


def list_remote(url: str, home: Path | None = None, deadline: float = DEADLINE) -> RemoteGames:
    """The games ``url`` holds, newest state of each, as the remote says (unverified).

    Raises:
        RemoteError: the remote cannot be read (one sentence and what to do).
    """
    started = time.monotonic()
    end = started + deadline
    refs = ls_remote(url, end)
    logs, answers, junk = group_refs(refs)
    games = sorted(logs)
    more = max(0, len(games) - MAX_GAMES)
    games = games[:MAX_GAMES]
    tips: dict[str, str] = {}  # oid -> one ref naming it
    for g in games:
        for player, oid in logs[g].items():
            tips.setdefault(oid, f"{PREFIX}/{g}/{player}")
    git_dir = bring_tips(url, cache_dir(url, home), tips, end)
    names = [f"{oid}{path}" for oid in tips for path in ("", *(f":{f}" for f in FILES))]
    with CatFile(git_dir) as reader:
        read = reader.read_all(names, limit=MAX_FILE).get  # one stream, not a round trip each
    summaries = tuple(_best(g, logs[g], answers.get(g, set()), read) for g in games)
    return RemoteGames(url, summaries, junk, more, time.monotonic() - started)


def list_invite(text: str, home: Path | None = None, deadline: float = DEADLINE) -> RemoteGames:
    """The game an invitation (``catan-p2p:1:...``) names, read at every place it names:
    the shared remote and each seat's point. A seat is open only if no place shows it
    claimed (a seat's claim lives at its own point until the creator merges it).

    Raises:
        InviteError: ``text`` is no invitation (one sentence; nothing is read).
        RemoteError: the invitation's first place cannot be read.
    """
    from catan_p2p.protocol.invite import parse_invite

    invite = parse_invite(text)
    started = time.monotonic()
    places = [invite.source, *sorted(set(invite.points.values()) - {invite.source})]
    found: list[GameSummary] = []
    for i, place in enumerate(places):
        try:
            listed = list_remote(place, home, max(1.0, deadline - (time.monotonic() - started)))
        except RemoteError:
            if i == 0:
                raise
            continue  # a point nobody published at yet
        found += [g for g in listed.games if g.game == invite.game and g.problem is None]
    games: tuple[GameSummary, ...] = ()
    if found:
        best = max(found, key=lambda g: (g.turn, g.last_move))
        claimed = {p for g in found for p in g.players if p not in g.open_seats}
        open_seats = tuple(p for p in best.open_seats if p not in claimed)
        elsewhere = set(best.open_seats) - set(open_seats)  # claimed at another place
        waiting = tuple(p for p in best.waiting_for if p not in elsewhere) or best.players[:1]
        games = (replace(best, open_seats=open_seats, waiting_for=waiting),)
    return RemoteGames(text.strip(), games, seconds=time.monotonic() - started)


#: What a summary reads objects with: ``name -> (kind, bytes)``, None when missing (or too
#: large); a name is an oid or ``<oid>:<path>``.
Read = Callable[[str], Found | None]

#: An answer on its temporary branch: (kind, opening commit, player).
Answered = tuple[str, str, str]


def group_refs(
    refs: dict[str, str],
) -> tuple[dict[str, dict[str, str]], dict[str, set[Answered]], int]:
    """Split ``refs`` into player logs (game -> player -> oid) and answers on their
    branches (game -> answers), counting the refs of no protocol shape (junk anyone
    can push)."""
    logs: dict[str, dict[str, str]] = {}
    answers: dict[str, set[Answered]] = {}
    junk = 0
    for ref, oid in refs.items():
        try:
            game = check_name("game id", game_of(ref))
        except UsageError:
            junk += 1
            continue
        if not _OID.match(oid) or not well_formed(ref, game):
            junk += 1
            continue
        player, kind, opening = parse_ref(ref, game)
        if kind is None:
            logs.setdefault(game, {})[player] = oid
        else:
            answers.setdefault(game, set()).add((kind, opening or "", player))
    return logs, answers, junk


def _best(game: str, heads: dict[str, str], answers: set[Answered], read: Read) -> GameSummary:
    """The summary of ``game`` from the furthest of its players' heads."""
    found = [summarise(game, oid, answers, read) for oid in sorted(set(heads.values()))]
    good = [s for s in found if s.problem is None]
    if not good:
        return found[0]
    return max(good, key=lambda s: (s.turn, s.last_move))


def summarise(game: str, oid: str, answers: set[Answered], read: Read) -> GameSummary:
    """The summary of the commit ``oid`` of ``game`` (``problem`` set when unreadable);
    ``answers`` are the answers on their branches (a seat claimed, a discard made)."""
    obj = read(oid)
    if obj is None or obj[0] != b"commit":
        return GameSummary(game, problem="its newest commit could not be fetched")
    when = _WHEN.search(obj[1].partition(b"\n\n")[0])
    files = {}
    for name in FILES:
        got = read(f"{oid}:{name}")
        if got is None or got[0] != b"blob":
            return GameSummary(game, problem=f"its newest commit has no {name}")
        files[name] = got[1]
    try:
        info = GameFile.model_validate_json(files["game.json"])
        turn = TurnFile.model_validate_json(files["turn.json"])
        seats = SeatsFile.model_validate_json(files["seats.json"]).root
    except ValidationError:
        return GameSummary(game, problem="its newest commit holds no readable game state")
    players = tuple(info.players)
    if info.game != game or turn.current not in players:
        return GameSummary(game, problem="its newest commit belongs to another game")
    claimed = {p for kind, _, p in answers if kind == SEAT.name}
    answered = {p for _, opening, p in answers if opening == oid}
    open_seats = tuple(p for p in players if not seats.get(p) and p not in claimed)
    return GameSummary(
        game,
        players=players,
        open_seats=open_seats,
        turn=turn.turn,
        phase=turn.phase,
        waiting_for=waiting_in_files(players, turn, seats, claimed, answered),
        last_move=int(when.group(1)) if when else 0,
        winner=turn.winner,
        abandoned=turn.abandoned,
    )


def waiting_in_files(
    players: tuple[str, ...],
    turn: TurnFile,
    seats: dict[str, str],
    claimed: set[str] = frozenset(),  # type: ignore[assignment]
    answered: set[str] = frozenset(),  # type: ignore[assignment]
) -> tuple[str, ...]:
    """Whom a game waits on, read from its files: ``rules.waiting.waits_for`` on the few
    fields a lobby fetches (tests hold the two equal on every commit of real games).

    ``claimed`` seats and ``answered`` players (an answer to the step the commit opened
    waits on its branch) wait no more; once every answer is in, the game waits on the
    player who merges them (the first player for seat claims, else the current one).
    """
    if any(not seats.get(p) for p in players):
        unclaimed = tuple(p for p in players if not seats.get(p) and p not in claimed)
        return unclaimed or (players[0],)
    phase = turn.phase
    if phase == _name(Phase.GAME_OVER):
        return ()
    if phase == _name(Phase.DISCARD):
        owing = tuple(p for p in players if turn.discards.get(p) and p not in answered)
        return owing or (turn.current,)
    if phase == _name(Phase.TRADE) and turn.trade is not None:
        pending = [
            p
            for p in players
            if p != turn.current and turn.trade.answers.get(p) == "pending" and p not in answered
        ]
        return (turn.current, *pending)
    if phase == _name(Phase.STEAL) and turn.victim:
        return (turn.current,) if turn.victim in answered else (turn.victim,)
    if phase == _name(Phase.MONOPOLY):
        owing = tuple(s.victim for s in turn.steals if s.victim not in answered)
        return owing or (turn.current,)
    return (turn.current,)


# --- this machine ----------------------------------------------------------------------


def games_folder(home: Path | None = None) -> Path:
    """Where ``play``, ``join`` from the window and ``watch`` keep games by default."""
    return (home or catan_home()) / "games"


def list_local(
    folders: Iterable[Path], bots: dict[Path, set[str]] | None = None
) -> list[GameSummary]:
    """Every game in the repositories ``folders``, from the newest head of its seats
    played there (own branches move only to verified commits), with the seats that
    wait on this machine (``mine_waiting``; bots named in ``bots`` excluded)."""
    from catan_p2p.store.repo import GameRepo

    out = []
    for folder in folders:
        try:
            repo = GameRepo(folder)
        except (UsageError, OSError):
            continue
        try:
            for game in repo.games():
                out.append(_local(repo, folder, game, (bots or {}).get(folder, set())))
        finally:
            repo.close()
    return out


def _local(repo: Repository, folder: Path, game: str, bots: set[str]) -> GameSummary:
    from catan_p2p.rules.waiting import waits_for
    from catan_p2p.session.watch import is_spectator_repo

    heads = {}
    answers: set[Answered] = set()
    for prefix in (game_prefix(game), tracking_prefix(game)):
        for ref, oid in repo.refs.list(prefix).items():
            if not well_formed(ref, game):
                continue
            player, kind, opening = parse_ref(ref, game)
            if kind is not None:
                answers.add((kind, opening or "", player))
            elif prefix == game_prefix(game):
                heads[player] = oid
    best = None
    tip = ""
    for oid in set(heads.values()):
        try:
            state, _ = repo.state_of(oid)
        except (StateFileError, ValueError, KeyError, OSError):
            continue
        when = repo.commit(oid).when
        if best is None or (state.turn, when) > (best[0].turn, best[1]):
            best, tip = (state, when), oid
    if best is None:
        return GameSummary(game, problem="no readable state", path=str(folder))
    state, when = best
    players = state.players
    claimed = {p for kind, _, p in answers if kind == SEAT.name}
    answered = {p for _, opening, p in answers if opening == tip}
    open_seats = tuple(
        p for p, k in zip(players, state.seats, strict=False) if not k and p not in claimed
    )
    waiting = tuple(p for p in waits_for(state) if p not in answered | claimed)
    if not waiting and not state.is_over:  # every answer is in: the merge is owed
        waiting = (players[0] if state.lobby_open else players[state.current],)
    # a spectator's branches are its copies of the players' logs, no seat of its own
    yours = () if is_spectator_repo(repo.git_dir) else tuple(p for p in players if p in heads)
    return GameSummary(
        game,
        players=tuple(players),
        open_seats=open_seats,
        turn=state.turn,
        phase=_name(state.phase),
        waiting_for=waiting,
        last_move=when,
        winner=players[state.winner] if state.winner >= 0 else None,
        abandoned=players[state.abandoned] if state.abandoned >= 0 else None,
        path=str(folder),
        yours=yours,
        mine_waiting=tuple(p for p in waiting if p in yours and p not in bots),
    )
