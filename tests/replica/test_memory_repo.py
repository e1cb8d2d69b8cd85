"""The protocol on the in-memory repository: peers, verification and sessions without disk.

``MemoryRepo()`` keeps objects and refs in dicts with the same ids and the
same compare-and-swap as a repository on disk, so these tests need no ``git``
process and no files; the disk twins of these checks live in test_hotseat.py,
test_tamper.py and test_faults.py. A game played in memory and copied onto disk
is a sound Git repository that ``git fsck`` accepts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitgames import FOUR, forge_commit, git, play_some

from catan_p2p import clock
from catan_p2p.bots import make_bot
from catan_p2p.errors import ForkError, VerificationError
from catan_p2p.protocol.audit import audit
from catan_p2p.protocol.genesis import open_genesis
from catan_p2p.protocol.message import MERGE, action_message, trailer
from catan_p2p.protocol.verify import Verifier
from catan_p2p.replica.peer import Peer
from catan_p2p.rules.actions import EndTurn, RollDice
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.invariants import check_invariants
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import seat_key
from catan_p2p.session.start import create_game
from catan_p2p.sim import play_session_game
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.objects import GitObjectStore
from catan_p2p.store.refnames import game_prefix, player_ref
from catan_p2p.store.refs import Refs
from catan_p2p.store.repo import GameRepo, Repository, init_repo
from catan_p2p.trust.engine import step


@pytest.fixture(scope="module")
def memory_game():
    """A whole 4-player hot-seat game recorded in memory, with merges of both kinds."""
    for attempt in range(6):
        repo = MemoryRepo()
        create_game(repo, FOUR, seed=f"mem{attempt}", game_id="g")
        session = GitSession(repo, "g")
        bots = {p: make_bot("random", f"mem{attempt}/{p}") for p in FOUR}
        result = play_session_game(session, bots)
        kinds = {
            json.loads(trailer(c, MERGE))["kind"]
            for c in map(repo.commit, repo.first_parents(session.head))
            if len(c.parents) > 1
        }
        if kinds >= {"discard", "trade"}:  # and the seat merge that starts the game
            return repo, session, result
    pytest.fail("six games in memory never had both a discard merge and a trade merge")


def test_a_game_in_memory_ends_with_every_branch_at_the_winning_commit(memory_game):
    repo, session, result = memory_game
    assert repo.git_dir is None and result.winner in FOUR
    heads = {repo.refs.get(player_ref("g", p)) for p in FOUR}
    assert heads == {session.head}
    check_invariants(session.state)
    # Temporary answer branches were deleted once merged.
    assert set(repo.refs.list(game_prefix("g"))) == {player_ref("g", p) for p in FOUR}


def test_an_independent_audit_verifies_every_commit_in_memory(memory_game):
    repo, session, result = memory_game
    report = audit(repo, "g", clock.now)
    assert report.ok, report.problem
    assert report.commits >= result.actions
    assert report.state == session.state


@pytest.mark.slow
def test_a_game_played_in_memory_is_a_sound_git_repository_on_disk(memory_game, tmp_path: Path):
    repo, session, _ = memory_game
    git_dir = init_repo(tmp_path / "copy")
    store, refs = GitObjectStore(git_dir), Refs(git_dir)
    for oid, (kind, data) in repo.store.objects.items():
        assert store.write(kind, data) == oid
    for name, oid in repo.refs.list(game_prefix("g")).items():
        refs.set(name, oid, None)
    store.close()
    git("fsck", "--strict", cwd=tmp_path / "copy")
    disk = GameRepo(tmp_path / "copy")
    assert audit(disk, "g", clock.now).state == session.state


def _peers(repo: Repository, *players: str) -> dict[str, Peer]:
    session = GitSession(repo, "g")  # only to read the genesis and keys the way a session does
    state, info = open_genesis(repo, session.genesis)
    return {
        p: Peer(
            repo,
            info,
            p,
            session.genesis,
            seat_key(p),
            Verifier(repo, info, session.genesis, state, clock=clock.now),
        )
        for p in players
    }


def _past_setup() -> tuple[Repository, GitSession]:
    repo = MemoryRepo()
    create_game(repo, ("red", "blue", "white"), seed="p", game_id="g")
    session = GitSession(repo, "g")
    play_some(session, 12)
    assert session.state.phase.name == "ROLL"
    return repo, session


def test_a_peer_fast_forwards_only_onto_verified_commits():
    repo, everyone = _past_setup()
    blue = _peers(repo, "blue")["blue"]
    red = everyone.peers["red"]
    red.advance(everyone.head)
    good, _, _ = red.record(RollDice("red"))
    assert blue.advance(good) > 0 and blue.head == good
    # Blue ending the turn while it is red's: an illegal action, refused with its commit id.
    state = blue.state
    tree = repo.writer(everyone.info).write(state)
    bad = forge_commit(repo, good, "blue", EndTurn("blue"), tree)
    with pytest.raises(VerificationError, match=bad[:10]):
        blue.advance(bad)
    assert blue.head == good and repo.refs.get(blue.ref) == good


def _another_roll(repo: Repository, everyone: GitSession, seat: Peer, parent: str, first: str):
    """``seat``'s roll on ``parent`` signed again a second after ``first``, its first version:
    a valid commit apart from it (one that does not verify is a rejection, not a fork).
    Returns its id and state."""
    state = seat.verifier.verify(parent)
    action = seat.with_secrets(RollDice(seat.player), state)
    new, resolved = step(state, action, derive_chance(everyone.info.seed, parent))
    oid = repo.write_commit(
        repo.writer(everyone.info).write(new),
        [parent],
        seat.player,
        action_message(resolved, "g"),
        seat.key,
        when=repo.commit(first).when + 1,
    )
    return oid, new


def test_two_commits_on_one_parent_are_a_fork_and_neither_is_adopted():
    repo, everyone = _past_setup()
    red = everyone.peers["red"]
    blue = _peers(repo, "blue")["blue"]
    parent = everyone.head
    red.advance(parent)
    blue.advance(parent)
    first, _, _ = red.record(RollDice("red"))
    blue.advance(first)
    other, _ = _another_roll(repo, everyone, red, parent, first)  # Red rewrote its branch
    with pytest.raises(ForkError, match="fork"):
        blue.advance(other)
    assert blue.head == first


def test_a_local_seat_fast_forwards_only_to_what_the_shared_verifier_holds():
    """``Seats._committed`` moves the other local seats without verifying again: the
    commit's state is in the verifier they share. A commit it does not hold (written into
    the repository by anyone) moves nobody, and neither does a trusted one off the line."""
    repo, everyone = _past_setup()
    red, blue = everyone.peers["red"], everyone.peers["blue"]
    parent = everyone.head
    first, _, _ = red.record(RollDice("red"))
    blue.fast_forward(first)
    assert blue.head == first and repo.refs.get(blue.ref) == first
    tree = repo.writer(everyone.info).write(blue.state)
    bad = forge_commit(repo, first, "blue", EndTurn("blue"), tree)
    with pytest.raises(LookupError, match=bad[:10]):
        blue.fast_forward(bad)
    sibling, new = _another_roll(repo, everyone, red, parent, first)
    red.verifier.trust(sibling, new)  # as if a local seat had written it
    with pytest.raises(ForkError, match="fork"):
        blue.fast_forward(sibling)
    assert blue.head == first and repo.refs.get(blue.ref) == first


def test_a_local_seat_apart_from_the_others_records_nothing():
    """A seat whose branch left the line the other local seats hold (another version of a
    move written elsewhere) is not moved onto it when the game is opened, and whatever it
    submits is refused as a fork before anything is written."""
    repo, everyone = _past_setup()
    mover = everyone.state.players[everyone.state.current]
    seat = everyone.peers[mover]
    parent = everyone.head
    everyone.seats.record(RollDice(mover))
    first = everyone.head
    sibling, _ = _another_roll(repo, everyone, seat, parent, first)
    players = everyone.players  # the seat apart comes after one on the line (equal depths)
    other = players[-1] if mover != players[-1] else players[1]
    repo.refs.set(player_ref("g", other), sibling, first)
    everyone.close()
    again = GitSession(repo, "g")
    assert again.peers[other].head == sibling and again.head == first
    refs = repo.refs.list("refs/")
    with pytest.raises(ForkError, match="fork"):
        again.submit(EndTurn(other))
    assert repo.refs.list("refs/") == refs


def test_a_ref_moved_by_another_writer_stops_the_peer_from_recording():
    repo, everyone = _past_setup()
    red = everyone.peers["red"]
    red.advance(everyone.head)
    head = red.head
    repo.refs.set(red.ref, repo.commit(head).parents[0], head)  # someone else moved it
    with pytest.raises(ForkError, match="moved"):
        red.record(RollDice("red"))
    assert red.head == head
