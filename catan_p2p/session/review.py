"""Looking back on a game: its history replayed through the rules, state by state.

``replayed`` re-applies the log's actions (chance resolved in each) from a starting
position, as a verifying peer does; ``verified_game`` first verifies every commit
(``protocol.audit``), then replays the verified main line from the verified genesis and
holds the end of the replay to the verified head's state. ``stats`` and the windows'
statistics read a game this way, so no figure is taken from a file on trust.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from catan_p2p import clock
from catan_p2p.errors import CatanError, IllegalAction, VerificationError
from catan_p2p.net.game import LogEntry, Session
from catan_p2p.protocol.audit import audit, open_game
from catan_p2p.protocol.concurrent import as_merged
from catan_p2p.rules.state import GameState, new_game
from catan_p2p.rules.stats import GameStats, tally
from catan_p2p.session.history import History
from catan_p2p.store.repo import Repository
from catan_p2p.trust.engine import apply


def replay_states(session: Session) -> tuple[list[GameState], list[LogEntry]]:
    """Every state of ``session``'s game, from the start to now, and the log entries
    between them (what its peers verified: a session adopts nothing unverified).

    ``states[i]`` is the state after ``entries[:i]``; ``states[0]`` is the starting
    position rebuilt from the current state's board, players and rules options.
    """
    entries = session.history()
    now = session.state
    start = new_game(now.players, now.board, now.victory_points, seated=bool(now.seats))
    return [start, *replayed(start, entries)], entries


def replayed(start: GameState, entries: Sequence[LogEntry]) -> Iterator[GameState]:
    """The state after each of ``entries``, from ``start``.

    The answers of one concurrent step (entries sharing an ``opening``) count as their
    merge applies them (``concurrent.as_merged``): robber and robbed may both show one
    steal in answers to the same offer, and it is shown once.

    Raises:
        CatanError: an action the rules refuse, named by its place in the history.
    """
    state, opening = start, None  # opening: the open step's commit and state
    for i, entry in enumerate(entries):
        if entry.opening is None:
            opening = None
        elif opening is None or opening[0] != entry.opening:
            opening = (entry.opening, state)
        action = entry.action if opening is None else as_merged(opening[1], state, entry.action)
        try:
            state = apply(state, action)
        except IllegalAction as exc:
            raise CatanError(
                f"the history does not replay: action {i + 1} ({entry.summary}, commit "
                f"{entry.commit[:10]}) is refused: {exc}"
            ) from None
        yield state


@dataclass(frozen=True)
class Review:
    """A verified game replayed: ``states[i]`` is the state after ``entries[:i]``."""

    game: str
    head: str
    states: tuple[GameState, ...]
    entries: tuple[LogEntry, ...]

    def stats(self, upto: int | None = None) -> GameStats:
        """The figures of the game, or of its first ``upto`` actions."""
        n = len(self.entries) if upto is None else upto
        return tally(self.states[: n + 1], [e.action for e in self.entries[:n]])


def verified_game(repo: Repository, game: str) -> Review:
    """Verify every commit of ``game``, then replay its main line from the genesis.

    Raises:
        VerificationError: a commit does not verify, the branches fork, or the replay
            does not end in the verified head's state.
    """
    report = audit(repo, game, clock.now)
    if not report.ok or report.head is None or report.state is None:
        raise VerificationError(
            f"game {game} does not verify ({report.problem or '; '.join(report.forks)}); "
            "run `catan-p2p verify` for details"
        )
    _, start, _ = open_game(repo, game)
    entries = History(repo).upto(report.head)
    states = (start, *replayed(start, entries))
    if states[-1] != report.state:
        raise VerificationError(
            f"game {game}: replaying its {len(entries)} actions does not end in the state "
            f"of the verified head {report.head[:10]}"
        )
    return Review(game, report.head, states, tuple(entries))
