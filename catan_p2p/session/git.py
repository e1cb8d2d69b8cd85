"""A running game recorded in Git: hot-seat (every seat here) or networked (one seat).

``GitSession`` orchestrates: ``replica.seats.Seats`` is the local seats (what they see, where
an action goes, merges, the moves nobody chooses, adopting what peers offer), and
``net.exchange.Exchange`` the traffic with the remotes; the rules they apply are ``protocol/``'s.
One thread uses a session: the peer runtime (``net.runtime``) behind every front end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path

from catan_p2p import clock
from catan_p2p.errors import UsageError
from catan_p2p.net import nudge
from catan_p2p.net.chat import ChatLog
from catan_p2p.net.exchange import Exchange
from catan_p2p.net.game import LogEntry, SyncStatus
from catan_p2p.protocol import refpolicy
from catan_p2p.protocol.publish import Source
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.replica import checkpoint, seen, tracking
from catan_p2p.replica.seats import Seats, game_start
from catan_p2p.rules.actions import Action
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import GameState
from catan_p2p.session.history import History
from catan_p2p.session.keys import check_claimed, seat_keys, signing_keys
from catan_p2p.session.wording import spoken
from catan_p2p.store.refnames import REMOTE, player_ref, tracking_ref
from catan_p2p.store.repo import GameRepo, Repository


class GitSession:
    """The session of the seats ``local_players`` of game ``game_id`` in ``repo``.

    Args:
        eager_push: push after every own commit (for people watching); when False, own
            commits are pushed once another peer may act (bots, benchmarks).
        keys: the local seats' signing keys (default: ``session.keys.seat_key``).
        read_only: only read the game (show, log, replay): a seat without a key here
            gets a throw-away one and reads no hidden card; nothing is recorded.

    Every commit is verified from the derived genesis, the local branches included.
    """

    def __init__(
        self,
        repo: Path | Repository,
        game_id: str | None = None,
        local_players: tuple[str, ...] | list[str] | None = None,
        eager_push: bool = True,
        keys: dict[str, SeatKey] | None = None,
        read_only: bool = False,
    ) -> None:
        self.eager_push, self.read_only = eager_push, read_only
        self.repo = repo if isinstance(repo, Repository) else GameRepo(Path(repo))
        self.game_id = game = self.repo.only_game(game_id)
        self.exchange = Exchange(self.repo, game, ())
        if self.networked and not read_only:
            tracking.drop_junk(self.repo, game)  # fetched before this version
        start = game_start(self.repo, game, local_players or ())
        self.genesis, self.info = start[0], start[2]
        self.players = start[1].players
        self.local_players = self.exchange.local = tuple(local_players or self.players)
        self.keys, throwaway = seat_keys(self.local_players, keys, self.repo.git_dir, read_only)
        seat = checkpoint.seat_of(self.players, self.local_players, throwaway)
        self.checkpoint = checkpoint.Keeper(self.repo.git_dir, game, self.genesis, seat, self.keys)
        resume = partial(self.checkpoint.resume, self.repo)
        self.seats = Seats.open(
            self.repo, start, self.keys, resume, self._committed, self._answered, not read_only
        )
        self.peers = self.seats.peers
        self._status = SyncStatus(peers=self.players)
        self._history = History(self.repo)
        self._wait = seen.Wait(self.repo, game)  # counted from this peer's first sight
        self.checkpoint.note(self.seats.lead().head, now=True)  # bisect, log, show never close
        if not read_only:
            check_claimed(self.state, self.keys, game)

    @classmethod
    def open(cls, repo: Path, game_id=None, local_players=None, eager_push=True) -> GitSession:  # type: ignore[no-untyped-def]
        """Open a saved game (the same as calling the class; reads well at call sites)."""
        return cls(repo, game_id, local_players, eager_push)

    @property
    def remote(self) -> str | None:
        return self.exchange.remote

    @remote.setter
    def remote(self, url: str | None) -> None:
        self.exchange.remote = url

    @property
    def networked(self) -> bool:
        return self.exchange.networked

    @property
    def git_dir(self) -> Path:
        return self.repo.git_dir

    def remotes(self) -> tuple[str, ...]:
        """Every remote this session fetches from: the shared one and the seats' points."""
        return tuple(s.url for s in self._sources())

    # --- reading -------------------------------------------------------------------------

    @property
    def head(self) -> str:
        return self.seats.head

    @property
    def committed_state(self) -> GameState:
        """The state at the newest local head, without answers that are not merged yet."""
        return self.seats.lead().state

    @property
    def state(self) -> GameState:
        """The state players see: the head plus verified answers of an open concurrent step."""
        return self.seats.state

    def legal_actions(self, player: str | None = None) -> list[Action]:
        """The legal actions of ``player`` as it sees the game (its hidden cards included)."""
        return legal_actions(self.view(player) if player in self.peers else self.state, player)  # type: ignore[arg-type]

    def refusal(self, action: Action) -> str | None:
        return self.seats.refusal(action)

    def view(self, player: str) -> GameState:
        """The state as ``player`` sees it: a local seat reads its own hidden cards."""
        return self.seats.view(player)

    def history(self) -> list[LogEntry]:
        """Every recorded action from the genesis to the head, answers before their merge."""
        return self._history.upto(self.head, self.seats.open_answers())

    def waiting_since(self) -> int:
        """When the wait for the next move began, as this peer counts it (``seen.Wait``)."""
        return self._wait.since(self.head)

    def take_rejected(self) -> dict[str, str]:
        """Rejections not reported yet (commit id -> reason), each handed out once."""
        return self.seats.rejections.take()

    @property
    def rejected(self) -> dict[str, str]:
        """Commits this session refused, with the reason (for the CLI and the client)."""
        return dict(self.seats.rejections.reasons)

    # --- acting --------------------------------------------------------------------------

    def submit(self, action: Action) -> GameState:
        """Record ``action`` for a local seat; ``IllegalAction`` (nothing recorded) if illegal."""
        if self.read_only:
            raise UsageError("this session only reads the game; open it to play to record moves")
        self.seats.record(action)
        self.seats.follow_up()
        state = self.seats.state
        self._send()
        return state

    def _committed(self, ref: str) -> None:
        """An own commit: push it now (``eager_push``) or once another peer may act."""
        if self.eager_push or not self.seats.only_local_can_act():
            self._push([ref])

    def _answered(self, ref: str, merged: bool) -> None:
        self._status = replace(self._status, ahead=self._status.ahead + 1)
        if not merged:
            self._push([ref])

    def _push(self, refs: Iterable[str]) -> None:
        """Push own refs (and ``refs``) at the next send; never from a read-only session
        (its branches are only its verified copies, and it may have no right to write)."""
        if self.networked and not self.read_only:
            self.exchange.want_push(refs)

    def flush(self) -> None:
        """Push whatever own commits are not on the remote yet."""
        self._push(self.seats.branches.openings)
        self._send()

    # --- syncing -------------------------------------------------------------------------

    def sync(self) -> SyncStatus:
        """Fetch (when networked), verify and fast-forward, merge, push."""
        fetched, error, down = False, None, ()
        if self.networked:
            sources = self._sources()
            errors = self.exchange.fetch(self.seats, sources)
            error = Exchange.first_error(errors, len(sources))
            down = tuple(said for name, said in errors.items() if name != REMOTE)
            fetched = error is None
        self._status = replace(self._status, points_down=down)
        self._sync_local(fetched, error)
        self._send()
        return self._status

    def _sync_local(self, fetched: bool, error: str | None) -> None:
        if fetched:
            self._status = replace(self._status, last_fetch=clock.now(), error=None)
        elif error is not None:  # keep the fetch error; pushing now would fail the same way
            self._status = replace(self._status, error=error)
        found = self.seats.adopt(may_close=not self.read_only)
        if not self.read_only:
            self.seats.claim_open_seats(self.exchange.publish_url)
            self.seats.merge_due()
            self.seats.follow_up()
        self.seats.finish_answers()
        if self.networked and error is None:
            self._push(self.seats.branches.openings)
        self._status = replace(
            self._status, forks=found.forks, behind=found.behind, waiting=found.waiting
        )
        self.checkpoint.note(self.seats.lead().head)
        self._wait.saw(self.head)

    def _readopt(self) -> None:  # after a stale lease was fetched again
        self._sync_local(True, None)
        self._push(())

    def _send(self) -> None:
        self.exchange.delete(self.seats.deleted)
        self.seats.deleted = []
        sent = self.exchange.send(self.seats, self._sources, self._readopt)
        if sent.error is not None:
            self._status = replace(self._status, error=sent.error)
        elif sent.clean:
            self._status = replace(self._status, ahead=0, error=None)

    def _sources(self) -> tuple[Source, ...]:
        return self.exchange.sources(self.points())

    def points(self) -> dict[str, str]:
        """Each seat's publication point: from the signed claims, else this machine's hints."""
        return self.exchange.points(self.head, self.seats.claims)

    def add_point(self, player: str, url: str) -> None:
        """Note where ``player`` publishes until its signed claim says so itself."""
        self.exchange.add_point(player, url, self.players)

    # --- nudges (``net.nudge``) ---------------------------------------------------------

    @property
    def served(self) -> str | None:
        """The ``git://`` URL this repository is served at (``net.serve``), or None."""
        return self.exchange.served

    def nudges(self) -> list[tuple[bytes, tuple[str, int]]]:
        """A signed nudge of each local seat's head for every other seat's ``git://``
        point (datagram, address); none from a read-only session."""
        if self.read_only:
            return []
        heads = {p: self.repo.refs.get(player_ref(self.game_id, p)) for p in self.local_players}
        own = (self.exchange.publish_url, self.served)
        return nudge.outgoing(
            self.game_id, heads, self.keys, self.points(), self.exchange.hints, own
        )

    def hear(self, datagram: bytes) -> bool:
        """True when ``datagram`` is a nudge worth a fetch now (``nudge.worth_fetching``);
        a joiner's hello for an open seat is noted as that seat's point."""
        got = nudge.decode(datagram)
        if got is None or got.game != self.game_id or got.sender not in self.players:
            return False
        ref = player_ref(self.game_id, got.sender)
        known = {self.repo.refs.get(tracking_ref(ref, s.name)) for s in self._sources()}
        known.add(self.repo.refs.get(ref))
        verdict = nudge.worth_fetching(
            got, self.local_players, self.claimed_keys(), known, self.points()
        )
        if verdict == nudge.HELLO and self.state.lobby_open:
            self.add_point(got.sender, got.point)
        return verdict is not None

    def said(self, entries: Iterable[LogEntry]) -> dict[str, str]:
        """``commit -> words`` where the log says more than the subject (``wording``)."""
        return spoken(self.repo, entries)

    def claimed_keys(self) -> dict[str, str]:
        """Each seat's public key as its claim in the verified state names it ('' while open)."""
        return dict(zip(self.players, self.state.seats or (), strict=False))

    def chat(self) -> ChatLog:
        """The table talk beside this game, read with the seat keys of the verified state."""
        return ChatLog(self.repo.path, self.game_id, signing_keys(self.git_dir), self.claimed_keys)

    def peer_heads(self) -> dict[str, tuple[str, int]]:
        """Each seat's log head on the shared remote, with its commit time (for when a
        peer was last heard of)."""
        return refpolicy.tracked_logs(self.repo, self.game_id, self.players)

    def close(self) -> None:
        self.exchange.close()
        self.checkpoint.note(self.seats.lead().head, now=True)
        self.repo.close()
