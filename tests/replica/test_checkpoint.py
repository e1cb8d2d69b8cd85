"""A later command trusts what an earlier one verified here, and nothing anyone else wrote.

Each ``catan-p2p`` command used to verify the whole game again (half a second per shuffle
proof, milliseconds per commit). A session now notes its verified head in the git
directory, under a MAC keyed by a seat key this machine holds (``replica.checkpoint``); the
next session that holds the key verifies only what came after. The attacks: a
repository handed over with its owner's checkpoint naming a rigged commit, a checkpoint
moved onto another commit, garbage, a commit that is gone.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest
from gitgames import play_some, sign_commit

from catan_p2p import clock
from catan_p2p.errors import VerificationError
from catan_p2p.protocol.genesis import open_genesis
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.protocol.verify import Verifier
from catan_p2p.replica import checkpoint
from catan_p2p.rules.actions import EndTurn
from catan_p2p.rules.cards import Resource
from catan_p2p.rules.menu import legal_actions
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game

pytestmark = pytest.mark.slow  # starts processes (git, the CLI): see tests/conftest.py

TWO = ("red", "blue")


def _counting(monkeypatch) -> list[str]:
    """Every commit a Verifier checks from now on."""
    checked: list[str] = []
    real = Verifier._verify_one

    def verify_one(self, c, parent_state):
        checked.append(c.oid)
        return real(self, c, parent_state)

    monkeypatch.setattr(Verifier, "_verify_one", verify_one)
    return checked


@pytest.fixture
def played(tmp_path: Path) -> Path:
    path = tmp_path / "g"
    create_game(path, TWO, seed="checkpoint", game_id="g")
    session = GitSession(path, "g")
    play_some(session, 40)
    session.close()  # notes its head
    return path


def _file(path: Path) -> Path:
    return path / ".git" / checkpoint.FOLDER / "g.red"


def test_a_later_session_verifies_only_what_came_after_the_checkpoint(played, monkeypatch):
    assert _file(played).exists()
    checked = _counting(monkeypatch)
    again = GitSession(played, "g")
    assert checked == []
    head, state = again.head, again.committed_state
    play_some(again, 6, seed="later")
    moved = again.head
    again.close()
    checked.clear()
    third = GitSession(played, "g")
    assert checked == [] and third.head == moved
    # ... and it is the same game a verification from the genesis gives.
    assert Verifier(third.repo, third.info, *_genesis(third), clock=clock.now).verify(head) == state
    third.close()


def _genesis(session: GitSession):
    return session.genesis, open_genesis(session.repo, session.genesis)[0]


def _rig(path: Path) -> str:
    """Red's next commit with 9 ore more than the rules give, signed by Red's own key
    (as a repository's previous owner could write it), made Red's head."""
    session = GitSession(path, "g")
    state = session.committed_state
    hands = list(state.hands)
    red = hands[0]
    hands[0] = red._replace(resources=red.resources[:4] + (red.resources[4] + 9,))
    assert Resource.ORE == 4
    me = state.players[state.current]
    action = next(a for a in legal_actions(state, me) if isinstance(a, EndTurn))
    action = session.peers[me].with_reveal(action, state)
    from catan_p2p.trust.engine import step

    after = step(state, action)[0]._replace(hands=tuple(hands))
    tree = session.repo.writer(session.info).write(after)
    rigged = sign_commit(session.repo, session.head, me, action, tree, session.keys[me])
    session.close()
    for p in TWO:
        ref = f"refs/heads/catan/g/{p}"
        session.repo.refs.set(ref, rigged, session.repo.refs.get(ref))
    return rigged


def test_a_checkpoint_made_with_another_key_is_ignored(played):
    """A repository handed over with its owner's checkpoint: the file names a rigged
    commit under a MAC of the owner's key, not this machine's; the game is verified
    from the genesis and the rigged commit refused."""
    genesis = GitSession(played, "g", read_only=True).genesis
    rigged = _rig(played)
    stranger = SeatKey.from_seed(b"s" * 32)
    checkpoint.save(played / ".git", "g", genesis, "red", stranger, rigged)
    with pytest.raises(VerificationError, match=rigged[:10]):
        GitSession(played, "g")


@contextmanager
def _named(variant: str):
    try:
        yield
    except BaseException as exc:
        exc.add_note(f"checkpoint variant: {variant}")
        raise


def test_a_checkpoint_moved_onto_another_commit_or_spoiled_is_ignored(played, monkeypatch):
    good = _file(played).read_text()
    oid, mac = good.split()
    rigged = _rig(played)
    spoiled = {
        "moved": f"{rigged} {mac}\n",
        "garbage": "not a checkpoint\n",
        "empty": "",
        "binary": b"\xff\xfe\x00".decode("latin-1"),
        "half": good[:30],
    }
    for name, text in spoiled.items():
        _file(played).write_text(text, encoding="latin-1")
        with pytest.raises(VerificationError, match=rigged[:10]), _named(name):
            GitSession(played, "g")


def test_a_checkpoint_of_a_commit_that_is_gone_costs_time_only(played, monkeypatch):
    session = GitSession(played, "g", read_only=True)
    key = session.keys["red"]
    checkpoint.save(played / ".git", "g", session.genesis, "red", key, "1" * 40)
    checked = _counting(monkeypatch)
    again = GitSession(played, "g")
    assert checked, "nothing was verified"
    assert again.head == session.head
    again.close()
    assert _file(played).read_text().split()[0] == session.head  # a good one again


def test_a_read_only_command_keeps_what_it_verified(played, monkeypatch):
    """``log``, ``show`` and ``bisect`` open a read-only session and end without closing
    it: the head they verified is noted at once, so the next command verifies nothing."""
    session = GitSession(played, "g")
    play_some(session, 6, seed="unnoted")
    moved = session.head
    session.repo.close()  # ended without close: the checkpoint lags behind the head
    assert _file(played).read_text().split()[0] != moved
    checked = _counting(monkeypatch)
    reader = GitSession(played, "g", read_only=True)
    assert checked and reader.head == moved
    assert _file(played).read_text().split()[0] == moved
    checked.clear()
    assert GitSession(played, "g", read_only=True).head == moved and checked == []


def test_seats_named_in_another_order_share_the_checkpoint(played, monkeypatch):
    """The CLI names a hot-seat game's seats sorted (blue before red), a game played here
    in the game's order: both keep the checkpoint with the first seat in the game's order."""
    checked = _counting(monkeypatch)
    sorted_seats = GitSession(played, "g", ("blue", "red"), read_only=True)
    assert checked == [] and sorted_seats.checkpoint.seat == "red"
