"""The concurrent step: seat claims, discards after a seven, trade answers, steals, and
the stolen cards shown before a monopoly.

One home for the protocol of state_schema/PROTOCOL.md "Merge commits": who owes an
answer, where an action goes (an answer branch, a merge then the action, or a plain
commit), what the merge commit holds, and how answers and merges are checked. What
differs from one kind of step to another is read from the table ``rules.steps.STEPS``;
nothing here names a kind.

Everything here is a pure function of its arguments: it reads no repository and moves
no ref. The session asks for a ``Plan`` or a ``Merge`` and acts on it; the peer writes
the commits ``merge_commit`` describes; the verifier runs the checks below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from catan_p2p.errors import IllegalAction, VerificationError
from catan_p2p.protocol.message import MergeInfo, merge_message, who
from catan_p2p.rules.actions import Action, ShowsSteals
from catan_p2p.rules.state import GameState
from catan_p2p.rules.steps import ANSWERS, BY_NAME, STEPS, open_step
from catan_p2p.rules.steps import owed_discards as owed_discards
from catan_p2p.store.formats import Commit
from catan_p2p.store.refnames import REMOTE, answer_ref, answers_prefix, tracking_ref
from catan_p2p.trust.engine import step

ANSWER_KINDS: dict[str, type[Action]] = {s.name: s.answer for s in STEPS}
"""Each kind of concurrent step and the answer action it takes (from ``rules.steps``)."""


@dataclass(frozen=True)
class Answer:
    """A verified concurrent answer waiting to be merged."""

    player: str
    commit: str
    action: Action


def open_kind(state: GameState) -> str | None:
    """The name of the concurrent step open in ``state`` (``rules.steps.open_step``), or None."""
    step = open_step(state)
    return None if step is None else step.name


def is_answer(action: Action) -> bool:
    """True for an action that only ever goes on an answer branch (claim, discard, answer)."""
    return isinstance(action, ANSWERS)


def owed_answers(state: GameState) -> frozenset[str]:
    """The players a merge must hear from in ``state``: unclaimed seats, or discards owed."""
    step = open_step(state)
    return owed_discards(state) if step is None else step.owed(state)


def with_answers(state: GameState, answers: Iterable[Answer]) -> GameState:
    """The opening state with ``answers`` applied in order (what the merge's tree holds)."""
    opening = state
    for a in answers:
        state = merged_step(opening, state, a.action)
    return state


def merged_step(opening: GameState, state: GameState, action: Action) -> GameState:
    """``state`` after one answer (or the move that closes the step) as the merge applies
    it (``as_merged``), on top of the answers before it."""
    return step(state, as_merged(opening, state, action))[0]


def as_merged(opening: GameState, state: GameState, action: Action) -> Action:
    """An answer as the merge applies it on ``state``, after the answers before it.

    Each answer was made on the opening, so it shows (``steals``) every steal its
    player took part in then, oldest first; a steal an earlier answer of the same merge
    showed already is no longer pending, and its proof is dropped here (robber and
    robbed may both answer one step).
    """
    if not isinstance(action, ShowsSteals) or not action.steals or state is opening:
        return action
    proofs = action.steals
    seat = opening.players.index(action.player)
    mine = [s for s in opening.steals if seat in (s.mover, s.victim)]
    if len(mine) != len(proofs):
        return action  # not as the rules take it: let them refuse it
    kept = tuple(p for s, p in zip(mine, proofs, strict=True) if s in state.steals)
    return action if len(kept) == len(proofs) else replace(action, steals=kept or None)


# --- where an action goes ------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerOnBranch:
    """Commit the action on the answer branch ``ref`` off the opening (the own head)."""

    kind: str
    ref: str


@dataclass(frozen=True)
class MergeThenRecord:
    """Write the ``kind`` merge of ``answers`` on the opening, then commit the action on it.

    ``state`` is the merge's tree, the answers applied (``with_answers``): the plan
    computed it to judge the action, so the merge is not computed twice; it follows from
    the opening and ``answers``, so it takes no part in comparing plans.
    """

    kind: str
    answers: tuple[Answer, ...]
    state: GameState | None = field(default=None, compare=False)


@dataclass(frozen=True)
class SettleThenRecord:
    """Write the discard merge if it is due (``discard_merge_due``), then commit the action."""

    kind: str


@dataclass(frozen=True)
class Record:
    """Commit the action on the player's log: no concurrent step is involved."""


Plan = AnswerOnBranch | MergeThenRecord | SettleThenRecord | Record
"""Where a local seat's action goes (from ``plan_action``)."""


def plan_action(
    game: str,
    opening: str,
    state: GameState,
    action: Action,
    answers: Callable[[], Sequence[Answer]],
) -> Plan:
    """Decide where ``action`` goes, given the committed state at ``opening``.

    Args:
        state: the state at ``opening``, the acting seat's head (answers not merged).
        answers: gives the verified answers already given to the step open at
            ``opening``; only called when a step is open.

    Raises:
        IllegalAction: an answer or a trade confirmation that is not legal on top of
            ``state`` and the answers (checked before anything is written).
    """
    kind = open_step(state)
    if kind is None:
        return Record()
    answering = is_answer(action)
    if not answering and not isinstance(action, kind.closed_by):
        return SettleThenRecord(kind.name) if kind.settled_first else Record()
    # Every answer, the active player's own discard included, goes on its own branch; an
    # answer or a confirmation must be legal on top of the answers given before anything
    # is written.
    given = tuple(answers())
    merged = with_answers(state, given)
    merged_step(state, merged, action)
    if answering:
        return AnswerOnBranch(kind.name, answer_ref(game, kind.name, opening, action.player))
    return MergeThenRecord(kind.name, given, merged) if given else Record()


@dataclass(frozen=True)
class Merge:
    """A merge that is due: ``merger`` closes the ``kind`` step taking ``answers``."""

    kind: str
    merger: str
    answers: tuple[Answer, ...]


def merge_due(
    state: GameState, local: Iterable[str], answers: Callable[[], Sequence[Answer]]
) -> Merge | None:
    """The merge to write now: the active seat is local and every claim or discard is in.

    Args:
        state: the committed state (the opening, when a discard step is open).
        local: the seats this process plays.
        answers: gives the verified answers to the open step; only called when a local
            active seat could merge (collecting them verifies commits).
    """
    kind = open_step(state)
    if kind is None or not kind.merged_when_owed_in:
        return None
    active = state.players[state.current]
    if active not in local:
        return None
    given = answers()
    if {a.player for a in given} != owed_answers(state):
        return None
    return Merge(kind.name, active, tuple(given))


# --- finding answers -----------------------------------------------------------------------


def answer_prefixes(
    game: str, kind: str, opening: str, sources: Iterable[str] = (REMOTE,)
) -> tuple[str, ...]:
    """Where answers to ``opening`` are found: own branches first, then those fetched
    from each of ``sources`` (the shared remote, the seats' publication points)."""
    local = answers_prefix(game, kind, opening)
    return (local, *(tracking_ref(local, source) for source in sources))


def answer_owner(ref: str) -> str:
    """The player who owns an answer branch (its last ref part)."""
    return ref.rsplit("/", 1)[1]


def in_seat_order(answers: Iterable[Answer], players: Sequence[str]) -> list[Answer]:
    """Answers sorted by their players' seats (the order of the merge's parents)."""
    order = {p: i for i, p in enumerate(players)}
    return sorted(answers, key=lambda a: order[a.player])


# --- the merge commit ----------------------------------------------------------------------


@dataclass(frozen=True)
class MergeCommit:
    """The content of a merge commit: its parents, message and resulting state."""

    parents: tuple[str, ...]
    message: str
    state: GameState


def merge_commit(
    game: str,
    merger: str,
    kind: str,
    opening: str,
    opening_state: GameState,
    answers: Sequence[Answer],
    merged: GameState | None = None,
) -> MergeCommit:
    """The custom merge: parents are the opening then every answer; its tree applies them.

    ``merged``: the answers applied on ``opening_state`` already (``MergeThenRecord.state``).
    """
    state = with_answers(opening_state, answers) if merged is None else merged
    message = merge_message(merger, kind, [a.player for a in answers], game)
    return MergeCommit((opening, *(a.commit for a in answers)), message, state)


# --- verification --------------------------------------------------------------------------


def check_not_answer(c: Commit, action: Action) -> None:
    """Refuse a discard or trade answer recorded on a player's log instead of its branch."""
    if is_answer(action):
        raise VerificationError(
            f"{who(c)} is rejected: a {action.kind} is a concurrent answer; it belongs "
            "on its temporary branch and in the active player's merge"
        )


def check_answer_place(c: Commit, opening: str) -> None:
    """An answer commit's only parent is the opening commit."""
    if c.parents != [opening]:
        raise VerificationError(
            f"{who(c)} is rejected: an answer must sit directly on the opening commit"
        )


def check_answer_kind(c: Commit, kind: str, action: Action) -> None:
    """The answer's action is the one its branch's kind of step takes."""
    if not isinstance(action, ANSWER_KINDS[kind]):
        raise VerificationError(
            f"{who(c)} is rejected: a {kind} branch holds a {action.kind} action"
        )


def check_step_open(c: Commit, opening: str, kind: str, state: GameState) -> None:
    """A ``kind`` step is open in ``state``, the state at the answer's opening."""
    if open_kind(state) != kind:
        raise VerificationError(f"{who(c)} is rejected: no {kind} step is open at {opening[:10]}")


def check_merger(c: Commit, info: MergeInfo, opening_state: GameState) -> None:
    """A merge names a known kind of step and is written by the opening's active player."""
    if info.kind not in ANSWER_KINDS:
        raise VerificationError(f"{who(c)} is rejected: unknown concurrent step {info.kind!r}")
    active = opening_state.players[opening_state.current]
    if c.author != active:
        raise VerificationError(
            f"{who(c)} is rejected: only {active.capitalize()} may merge answers"
        )


def check_merge_parents(
    c: Commit, info: MergeInfo, authors: list[str], players: Sequence[str]
) -> None:
    """The merge's trailer names its answer parents' authors, in parent and seat order."""
    if list(info.answers) != authors:
        raise VerificationError(
            f"{who(c)} is rejected: its trailer names {info.answers}, its parents {authors}"
        )
    seats = [players.index(a) if a in players else -1 for a in authors]
    if seats != sorted(set(seats)) or -1 in seats or not seats:
        raise VerificationError(
            f"{who(c)} is rejected: a merge takes at least one answer, at most one per "
            "player, in seat order"
        )


def combine(
    c: Commit, opening: GameState, state: GameState, answer: str, action: Action
) -> GameState:
    """Apply one merged answer; ``VerificationError`` when it does not combine."""
    try:
        return merged_step(opening, state, action)
    except IllegalAction as exc:
        raise VerificationError(
            f"{who(c)} is rejected: answer {answer[:10]} does not combine ({exc})"
        ) from None


def check_merged(c: Commit, kind: str, state: GameState) -> None:
    """A merge of a step that waits for every owed answer (all but a trade) closes it."""
    step_kind = BY_NAME[kind]
    if step_kind.merged_when_owed_in and step_kind.is_open(state):
        raise VerificationError(f"{who(c)} is rejected: {step_kind.incomplete}")
