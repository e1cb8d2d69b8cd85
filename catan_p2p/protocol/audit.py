"""Re-checking a whole game: every commit of every branch, from the genesis.

Used by ``catan-p2p verify`` and ``bisect``. A fresh ``Verifier`` trusts nothing but
the genesis, so a tampered, illegal or misattributed commit anywhere is found and
named, and two player branches that diverge are reported as a fork.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from catan_p2p.errors import StateFileError, VerificationError
from catan_p2p.protocol import liveness, refpolicy
from catan_p2p.protocol.genesis import genesis_of, open_genesis
from catan_p2p.protocol.graph import Clock, CommitGraph
from catan_p2p.protocol.verify import Verifier
from catan_p2p.rules.state import GameState
from catan_p2p.store.codec import GameInfo
from catan_p2p.store.refnames import ZERO, game_prefix, parse_ref, tracking_prefix


@dataclass
class AuditReport:
    """What ``audit`` found: commits checked, the first problem, forks, the final state."""

    game: str
    commits: int = 0
    branches: dict[str, str] = field(default_factory=dict)
    bad_commit: str | None = None
    problem: str | None = None
    forks: list[str] = field(default_factory=list)
    junk: dict[str, str] = field(default_factory=dict)  # ref -> why the ref policy refuses it
    head: str | None = None
    state: GameState | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.forks


def game_refs(
    repo: CommitGraph,
    game: str,
    seats: Collection[str] | None = None,
    junk: dict[str, str] | None = None,
) -> dict[str, str]:
    """Every ref of ``game`` the ref policy takes (``refpolicy.check_update``: of a
    protocol shape, naming a commit, of ``seats`` when given): local branches and the ones
    fetched from a remote. The others, with the policy's reason, go to ``junk``."""
    refs = repo.refs.list(game_prefix(game))
    refs.update(repo.refs.list(tracking_prefix(game)))
    out = {}
    for ref, oid in refs.items():
        reason = refpolicy.check_update(repo, ref, ZERO, oid, game, lambda: seats)
        if reason is None:
            out[ref] = oid
        elif junk is not None:
            junk[ref] = reason
    return out


def open_game(repo: CommitGraph, game: str) -> tuple[str, GameState, GameInfo]:
    """The genesis commit, state and info of ``game`` in ``repo``."""
    refs = game_refs(repo, game)
    if not refs:
        raise StateFileError(f"game {game} has no branches in this repository")
    local = sorted(r for r in refs if r.startswith("refs/heads/"))
    genesis = genesis_of(repo, refs[local[0]] if local else next(iter(refs.values())))
    state, info = open_genesis(repo, genesis)
    return genesis, state, info


def audit(repo: CommitGraph, game: str, clock: Clock, local_only: bool = False) -> AuditReport:
    """Verify every branch of ``game``; stop at the first bad commit.

    Refs the ref policy refuses (no protocol shape, no commit, named after no seat of the
    game) are junk and not read; ``AuditReport.junk`` names them. ``local_only``: only
    the repository's own branches when it has any (not what was fetched from remotes).
    """
    report = AuditReport(game)
    genesis, genesis_state, info = open_game(repo, game)
    verifier = Verifier(repo, info, genesis, genesis_state, clock=clock)
    refs = game_refs(repo, game, genesis_state.players, report.junk)
    own = {r: o for r, o in refs.items() if r.startswith("refs/heads/")}
    if local_only and own:
        refs = own
    report.branches = dict(sorted(refs.items()))
    players = {r: o for r, o in refs.items() if parse_ref(r, game)[1] is None}
    answers = {r: o for r, o in refs.items() if parse_ref(r, game)[1] is not None}
    checked: set[str] = set()
    # Longest branch first: it holds everything the others agree on.
    for ref, oid in sorted(players.items(), key=lambda kv: -repo.depth(kv[1])):
        chain = [c for c in reversed(repo.first_parents(oid)) if c not in checked]
        for c in chain:
            try:
                verifier.verify(c)
            except (VerificationError, StateFileError) as exc:
                report.bad_commit, report.problem = c, f"{ref}: {exc}"
                return report
            checked.add(c)
            checked.update(repo.commit(c).parents[1:])
    for ref, oid in answers.items():
        _, kind, opening = parse_ref(ref, game)
        try:
            verifier.verify_answer(oid, opening or "", kind or "")
        except (VerificationError, StateFileError) as exc:
            report.bad_commit, report.problem = oid, f"{ref}: {exc}"
            return report
        checked.add(oid)
    report.commits = len(checked)
    heads = sorted(players.items(), key=lambda kv: -repo.depth(kv[1]))
    lead_ref, lead = heads[0]
    for ref, oid in heads[1:]:
        if not liveness.extends(repo, oid, lead):
            report.forks.append(
                f"fork: {ref} at {oid[:10]} does not lie on {lead_ref} at {lead[:10]}"
            )
    report.head = lead
    report.state = verifier.verify(lead)
    return report


def seat_keys(repo: CommitGraph, game: str, clock: Clock) -> dict[str, str]:
    """Player -> seat key ("" while unclaimed) in the verified newest state of ``game``
    (of the repository's own branches: a forgery someone put on a remote is not read)."""
    report = audit(repo, game, clock, local_only=True)
    if not report.ok or report.state is None:
        raise VerificationError(
            f"game {game} does not verify ({report.problem or '; '.join(report.forks)}); "
            "run `catan-p2p verify` for details"
        )
    state = report.state
    seats = state.seats or ("",) * len(state.players)
    return dict(zip(state.players, seats, strict=True))
