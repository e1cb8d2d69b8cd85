"""Starting a game: writing its genesis and claiming the seats played here (``create``),
or finding a game on a remote and claiming a seat in it (``join``).

Both end in a ``GitSession`` sync that claims the local seats; everything fetched is
verified before it is adopted, the genesis is derived from what it declares.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from catan_p2p.errors import InviteError, StateFileError, UsageError, VerificationError
from catan_p2p.net import serve, transport
from catan_p2p.printable import shown
from catan_p2p.protocol.genesis import check_declared, genesis_of, initial_state, open_genesis
from catan_p2p.protocol.invite import Invite
from catan_p2p.protocol.message import GenesisInfo, genesis_message
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.replica import tracking
from catan_p2p.rules.board import Board, standard_board
from catan_p2p.rules.steps import SEAT
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import new_key, remember, seat_key
from catan_p2p.store.codec import BANK
from catan_p2p.store.refnames import (
    answers_prefix,
    check_name,
    fetched,
    local_ref,
    parse_ref,
    player_ref,
    well_formed,
)
from catan_p2p.store.repo import GameRepo, Repository, init_repo
from catan_p2p.trust.seats import point_refusal

#: The environment variable that fixes the time of a game's genesis (seconds since the
#: epoch), as ``GIT_COMMITTER_DATE`` fixes Git's: the deck secrets and the dice chains hash
#: the genesis id, so the same keys, seed and time deal the same game again (tests and
#: benchmarks that start ``catan-p2p`` processes). It grants nothing: whoever writes the
#: genesis chooses its time anyway, and a time ahead of a peer's clock is refused.
GENESIS_TIME_ENV = "CATAN_P2P_GENESIS_TIME"


def genesis_time() -> int | None:
    """The time ``$CATAN_P2P_GENESIS_TIME`` fixes, or None (now)."""
    text = os.environ.get(GENESIS_TIME_ENV, "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise UsageError(
            f"${GENESIS_TIME_ENV} is {text!r}, not seconds since 1970 (like 1700000000); "
            "set a number or unset it"
        )
    return int(text)


def new_game_id() -> str:
    return "g" + os.urandom(4).hex()


def write_genesis(
    repo: Repository, declared: GenesisInfo, board: Board, when: int | None = None
) -> str:
    """Write the genesis commit ``declared`` describes on ``board``; returns its id."""
    state, info = initial_state(declared, board)
    tree = repo.writer(info).write(state)
    return repo.write_commit(tree, [], declared.players[0], genesis_message(declared), when=when)


def create_game(
    repo: Path | Repository,
    players: list[str] | tuple[str, ...],
    board: Board | None = None,
    seed: str | None = None,
    game_id: str | None = None,
    victory_points: int = 10,
    local: tuple[str, ...] | None = None,
    keys: dict[str, SeatKey] | None = None,
    timeout: int = 0,
    when: int | None = None,
    publish_url: str | None = None,
) -> str:
    """Write a game's genesis, claim the seats played here, and return the game id.

    Args:
        local: the seats this repository plays (default: all, hot-seat). Each claims
            its seat with its key; when every seat is local the first player merges the
            claims at once and set-up can start, else the others claim theirs with
            ``join`` and the first player's next sync merges them.
        keys: signing keys by player (default: ``session.keys.seat_key``).
        timeout: seconds a player may keep the game waiting before the others may end
            it (``abandon``); 0 for no limit.
        when: the genesis commit's time (default ``$CATAN_P2P_GENESIS_TIME``, else now).
            The deck secrets hash the genesis id, so a fixed time (with fixed keys)
            replays the same game.
        publish_url: where the local seats publish (protocol 6), named in their claims.
    """
    players = tuple(check_name("player", p) for p in players)
    check_point(publish_url)
    if BANK in players:
        raise UsageError(
            f"{BANK!r} cannot be a player's name, turn.json lists the bank's cards "
            "under it; choose another name"
        )
    game = check_name("game id", game_id or new_game_id())
    seed = seed if seed is not None else os.urandom(8).hex()
    declared = GenesisInfo(game, players, seed, victory_points, timeout)
    try:
        check_declared(declared)
    except ValueError as exc:
        raise UsageError(f"{exc}; choose other --players") from None
    if isinstance(repo, Repository):  # e.g. MemoryRepo()
        game_repo, path = repo, repo.path
    else:
        path = Path(repo)
        try:
            game_repo = GameRepo(path)
        except UsageError:
            init_repo(path)
            game_repo = GameRepo(path)
    if game_repo.has_game(game):
        raise UsageError(f"{path} already holds a game {game!r}; choose another --game id")
    board = board if board is not None else standard_board(len(players))  # (5-6: extension)
    oid = write_genesis(game_repo, declared, board, genesis_time() if when is None else when)
    seats = players if local is None else local
    for p in seats:
        game_repo.refs.set(player_ref(game, p), oid, None)
    if publish_url is not None and game_repo.git_dir is not None:
        transport.set_config(game_repo.git_dir, "catan.publish", publish_url)
    session = GitSession(game_repo, game, seats, keys=keys)
    try:
        session.sync()  # claims the local seats, and merges the claims when all are in
    finally:
        session.close()
    return game


def join_game(
    url: str,
    repo: Path,
    game_id: str,
    player: str | None,
    key_path: Path | None = None,
    publish_url: str | None = None,
    start: str | None = None,
    served: bool = False,
    points: Mapping[str, str] | None = None,
    choose: Callable[[tuple[str, ...]], str] | None = None,
) -> GitSession:
    """Fetch ``game_id`` from ``url`` into ``repo`` and claim the seat ``player``.

    Nothing fetched is adopted unverified: the genesis is derived from what it declares,
    and the own branch starts there and moves only through verified commits (the
    remote's copy of it included). A seat claimed at any place the game is read from is
    refused before anything of the joiner's is written (``_take_seat``).

    Args:
        player: the seat to take; None: ``choose`` picks one of the open seats.
        publish_url: this seat's publication point (protocol 6), named in its claim.
            ``url`` is then read as another seat's point (the creator's, say) when a
            claim names it, else as the game's shared remote.
        start: the game's first commit id as its creator named it (``joined_genesis``).
        served: ``publish_url`` is ``repo`` itself, served from this machine
            (``net.serve``): nothing is pushed there.
        points: an invitation's points (hints; the joined seat's own: where it publishes).
        choose: given the open seats (at least one), the seat to take.
    """
    start = None if start is None else check_start(start)
    check_point(publish_url)  # refused before anything is made
    path = Path(repo)
    try:
        game_repo = GameRepo(path)
    except UsageError:
        init_repo(path)
        game_repo = GameRepo(path)
    transport.set_remote(game_repo.git_dir, url)
    fetch(game_repo, game_id, first=(*((player,) if player else ()), *_COLOURS))
    tracked = {
        r: oid for r, oid in fetched(game_repo.refs, game_id).items() if well_formed(r, game_id)
    }
    genesis = joined_genesis(game_repo, game_id, tracked, url, start)
    logs = [r for r in tracked if parse_ref(r, game_id)[1] is None]
    state, _ = open_genesis(game_repo, genesis)
    # the seat claims made so far (they name the seats' publication points)
    transport.fetch(
        game_repo.git_dir,
        game_id,
        [local_ref(r, game_id) for r in logs],
        [answers_prefix(game_id, SEAT.name, genesis)],
        players=state.players,
    )
    if player is not None and player not in state.players:
        raise UsageError(f"{player!r} is not a seat of game {game_id} ({', '.join(state.players)})")
    points = {p: u for p, u in (points or {}).items() if p in state.players}
    for colour, where in points.items():  # hints, read by the claim check below
        transport.set_config(game_repo.git_dir, f"catan.point.{colour}", where)
    player, key = _take_seat(game_repo, game_id, genesis, state.players, player, key_path, choose)
    if player in points:  # where the invitation asks this seat to publish: no hint
        transport.unset_config(game_repo.git_dir, f"catan.point.{player}")
        publish_url = publish_url or points[player]
    check_point(publish_url)
    mine = player_ref(game_id, player)
    if game_repo.refs.get(mine) is None:
        game_repo.refs.set(mine, genesis, None)
    if key_path is not None:
        remember(game_repo.git_dir, player, key_path)
    if publish_url is not None:
        transport.set_config(game_repo.git_dir, "catan.publish", publish_url)
        if served:
            serve.remember(game_repo.git_dir, publish_url)
        owner = _point_owner(game_repo, game_id, genesis, tracked, url)
        if owner is not None:  # not a shared remote: read it as that seat's point
            transport.set_config(game_repo.git_dir, f"catan.point.{owner}", url)
            transport.remove_remote(game_repo.git_dir)
    session = GitSession(path, game_id, (player,), keys={player: key})
    session.sync()
    return session


def check_point(url: str | None) -> None:
    """``UsageError`` unless ``url`` (``--publish``) is None or a publication point of
    an allowed form (``trust.seats.point_refusal``): the claim naming it would be refused."""
    why = None if url is None else point_refusal(url)
    if why is not None:
        raise UsageError(f"--publish {shown(url, 80)}: {why}")


#: Hex digits of a game's first commit that ``--start`` needs at least: with fewer,
#: whoever can write a shared remote could grind a forged start that matches (16: 64 bits).
START_DIGITS = 16


def check_start(start: str) -> str:
    """``start`` (a game's first commit id, or at least ``START_DIGITS`` of its first hex
    digits) in lower case; ``UsageError`` naming the form otherwise."""
    text = start.strip().lower()
    if not START_DIGITS <= len(text) <= 40 or any(c not in "0123456789abcdef" for c in text):
        raise UsageError(
            f"--start {start!r} is not a game's start: give its first commit id (at least "
            f"{START_DIGITS} hex digits), as `catan-p2p new` printed it"
        )
    return text


def joined_genesis(
    repo: Repository, game: str, tracked: dict[str, str], url: str, start: str | None = None
) -> str:
    """The start of the game a remote holds, counting only the logs that are seats of
    the genesis they lead to, and that genesis's creator's log among them: a log of a
    name with no seat, pointing at another game of the same id, is junk.

    ``start`` (``check_start``): the one the creator named. Whoever can write a shared
    remote can put a second game of the same id there, its creator's log included, or
    delete the real creator's log until its seat puts it back; only the start the
    creator named tells the real game from such a one.
    """
    if not tracked:
        raise UsageError(f"the remote {url} has no game {game!r}; check the id with its creator")
    support: dict[str, set[str]] = {}
    refused: Exception | None = None
    for ref, oid in tracked.items():
        player, kind, _ = parse_ref(ref, game)
        if kind is not None:
            continue
        try:
            root = genesis_of(repo, oid)
            seats = open_genesis(repo, root)[0].players
        except (StateFileError, VerificationError, ValueError, KeyError) as exc:
            refused = refused or exc
            continue
        if player in seats:
            support.setdefault(root, set()).add(player)
    if start is not None:
        named = [r for r in support if r.startswith(start)]
        if len(named) == 1:
            return named[0]
        held = ", ".join(sorted(r[:10] for r in support)) or "none readable"
        raise UsageError(
            f"the remote {url} holds no game {game} that starts at {start[:10]} (its starts: "
            f"{held}); check --start with the game's creator"
        )
    roots = sorted(
        r for r, who in support.items() if open_genesis(repo, r)[0].players[0] in who
    ) or sorted(support)
    if not roots:
        if isinstance(refused, (StateFileError, VerificationError)):
            raise refused
        raise UsageError(f"the remote {url} has no readable game {game!r}; check the URL and id")
    if len(roots) != 1:
        led = "; ".join(
            f"{r[:10]} (the log of {', '.join(p.capitalize() for p in sorted(support[r]))})"
            for r in roots
        )
        raise VerificationError(
            f"the remote {shown(url, 80)} holds {len(roots)} different starts of game {game}: "
            f"{led}; someone put a second game of this id there: ask the game's creator for "
            "its start (`catan-p2p new` printed it) and pass it with --start"
        )
    return roots[0]


def _take_seat(
    repo: Repository,
    game: str,
    genesis: str,
    players: tuple[str, ...],
    player: str | None,
    key_path: Path | None,
    choose: Callable[[tuple[str, ...]], str] | None,
) -> tuple[str, SeatKey]:
    """The seat to claim (``player``, else ``choose``'s pick of the open ones) and its
    key; ``UsageError`` in one sentence for a seat claimed with another key."""
    claimed = claimed_seats(repo, game, genesis, players)
    free = tuple(p for p in players if p not in claimed)
    if player is None:
        if not free:
            raise UsageError(f"game {game} has no open seat; watch it with `catan-p2p watch`")
        player = choose(free) if choose is not None else free[0]
    key = seat_key(player, key_path, repo.git_dir)
    if claimed.get(player, key.public) != key.public:  # the same key: a second device
        taken = f"{player.capitalize()}'s seat in game {game} is claimed already"
        if not free:
            raise UsageError(f"{taken} and no seat is open; watch the game with `catan-p2p watch`")
        names = ", ".join(p.capitalize() for p in free)
        raise UsageError(f"{taken} (open seats: {names}); take an open one with --as COLOUR")
    return player, key


def claimed_seats(
    repo: Repository, game: str, genesis: str, players: tuple[str, ...]
) -> dict[str, str]:
    """The seats of ``game`` claimed so far, with the key each was claimed with, as far
    as every place it is read from says: the newest verified log and the verified claims
    on the shared remote and on every seat's point (those the claims name, and the hints
    of this repository).

    A read-only session reads them (it verifies before it believes); a place that cannot
    be read is left out (the claim then fails later, with the remote's own words).
    """
    tracking.drop_junk(repo, game)  # what the claims' fetch brought of no protocol shape
    made = [player_ref(game, p) for p in players if repo.refs.get(player_ref(game, p)) is None]
    for ref in made:  # a reader's copies, from the genesis on, as a spectator's
        repo.refs.set(ref, genesis, None)
    keys = {p: new_key() for p in players}  # throw-away: it only reads
    seats: tuple[str, ...] = ()
    try:
        session = GitSession(repo, game, players, keys=keys, read_only=True)
        try:
            session.sync()
            seats = session.state.seats or ()
        finally:
            session.close()
    except (StateFileError, VerificationError):
        seats = ()  # nothing readable says a seat is taken: the claim itself decides
    finally:
        for ref in made:
            repo.refs.delete(ref)
    return {p: k for p, k in zip(players, seats, strict=False) if k}


def _point_owner(
    repo: Repository, game: str, genesis: str, tracked: dict[str, str], url: str
) -> str | None:
    """The seat whose claim names ``url`` as its publication point, if one does."""
    session = GitSession(repo, game, read_only=True)
    try:
        for player, where in session.points().items():
            if where == url:
                return player
    finally:
        session.close()
    return None


#: Seat names asked for first when a game is discovered (``transport.discover_logs``).
_COLOURS = ("red", "blue", "white", "orange", "green", "brown")


def fetch(repo: Repository, game: str, first: tuple[str, ...] = _COLOURS) -> None:
    """Fetch every ref of ``game`` (to discover it) and drop the fetched refs of no
    protocol shape.

    Anyone who may push to a plain remote can put junk beside a game (an unknown kind, a
    nested answer, an upper-case name); left in place, one such ref would stop every
    reader. Tracking refs are only this repository's copy, so the junk is let go here,
    once, and the remote's copy is the hook's business (it refuses such pushes). A
    running session fetches only the refs the game needs (``GitSession.sync``).
    """
    logs = transport.discover_logs(repo.git_dir, game, first)
    transport.fetch(repo.git_dir, game, logs)
    tracking.drop_junk(repo, game)


def invite_of(session: GitSession, seat: str | None = None) -> Invite | None:
    """The invitation to ``session``'s game from its one local seat (None: a hot-seat
    game, one with several seats here, or one whose places an invitation cannot carry).

    It names the shared remote and every point this seat knows (the claims', its own, the
    hints), with local paths made absolute; ``seat``: the seat offered (default: the one
    open seat, if only one is).
    """
    if not session.networked or len(session.local_players) != 1:
        return None
    me = session.local_players[0]
    remote = session.remote
    points = dict(session.points())
    state = session.state
    if seat is None and state.seats:
        free = [p for p, k in zip(state.players, state.seats, strict=False) if not k and p != me]
        seat = free[0] if len(free) == 1 else None
    try:
        return Invite(
            session.game_id,
            session.genesis,
            me,
            remote=None if remote is None else absolute_place(remote),
            points={p: absolute_place(u) for p, u in sorted(points.items())},
            seat=seat,
        )
    except InviteError:
        return None


def absolute_place(url: str) -> str:
    """``url``, or the absolute path of a place given relative to this folder (an
    invitation is read on another machine, or in another folder)."""
    if "://" in url or ":" in url.split("/", 1)[0] or url.startswith("/"):
        return url
    return str(Path(url).expanduser().resolve())


def join_invite(
    invite: Invite,
    repo: Path,
    player: str | None = None,
    key_path: Path | None = None,
    publish_url: str | None = None,
    choose: Callable[[tuple[str, ...]], str] | None = None,
    served: bool = False,
) -> GitSession:
    """Join the game ``invite`` describes: its game and start, fetched from its shared
    remote or its inviter's point, with the points it names as hints; the seat is
    ``player``, else the one it offers, else ``choose``'s pick of the open seats.

    A game read only from points needs a point of the joiner's own: ``publish_url``,
    else the one the invitation names for the seat; without either it is refused.
    """

    def needs_point(seat: str) -> str:
        if invite.remote is None and publish_url is None and invite.point_of(seat) is None:
            raise UsageError(
                f"game {invite.game} has no shared remote, so {seat.capitalize()} needs a "
                "place of its own to publish: pass --publish serve (this machine serves it) "
                "or --publish URL (a Git repository only you can write)"
            )
        return seat

    player = player or invite.seat
    if player is not None:
        needs_point(player)
    pick = (
        (lambda free: needs_point(choose(free) if choose else free[0])) if player is None else None
    )
    return join_game(
        invite.source,
        repo,
        invite.game,
        player,
        key_path,
        publish_url,
        invite.start,
        served=served,
        points={p: u for p, u in invite.points.items() if u != invite.source or p == invite.by},
        choose=pick,
    )
