"""Protocol 3 identity: a commit counts as a player's only when that player's seat key signed it.

The tamper corpus: each attack is written the way a dishonest peer could (any bytes, any
author, another key, a push into any ref of a shared remote), and each must be refused by
peer sync, by ``catan-p2p verify`` and by the hook of a guarded remote, naming the commit,
with the honest branch where it was and no traceback.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

import pytest
from gitgames import REPOSITORIES, cli, copy_game, git, new_repo, play_some, sign_commit

from catan_p2p.cli import main
from catan_p2p.protocol.message import action_message
from catan_p2p.rules.actions import EndTurn, RollDice
from catan_p2p.rules.chance import derive_chance
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import new_key
from catan_p2p.session.start import create_game
from catan_p2p.store.codec import StateWriter
from catan_p2p.store.formats import commit_data, player_email
from catan_p2p.store.refnames import player_ref
from catan_p2p.store.repo import Repository
from catan_p2p.trust.engine import step


@pytest.fixture(scope="module", params=REPOSITORIES)
def past_set_up(request, tmp_path_factory) -> Path | Repository:
    """The game each test starts from, played once (in memory, and slow on disk): each
    test gets a copy of it."""
    path = new_repo(request.param, tmp_path_factory.mktemp("identity"))
    create_game(path, ["red", "blue", "white"], seed="t", game_id="g")
    everyone = GitSession(path, "g")
    play_some(everyone, 12)
    assert everyone.state.phase.name == "ROLL" and everyone.state.current == 0
    everyone.close()
    return path


@pytest.fixture()
def game(past_set_up: Path | Repository, tmp_path: Path):
    """Three seats in one repository, set-up done, red to roll: (path, everyone, blue)."""
    path = copy_game(past_set_up, tmp_path / "game")
    everyone = GitSession(path, "g")
    assert everyone.state.phase.name == "ROLL" and everyone.state.current == 0
    blue = GitSession(path, "g", ("blue",))
    blue.sync()
    return path, everyone, blue


def _roll(everyone: GitSession) -> tuple[str, RollDice]:
    """Tree and resolved action of red's honest roll on the current head."""
    roll = everyone.peers["red"].with_reveal(RollDice("red"), everyone.committed_state)
    new, resolved = step(everyone.committed_state, roll, derive_chance("t", everyone.head))
    return StateWriter(everyone.repo.store, everyone.info).write(new), resolved


def _plant(everyone: GitSession, oid: str) -> None:
    """Move red's branch to ``oid`` the way anyone with write access to the repo could."""
    everyone.repo.refs.set(player_ref("g", "red"), oid, everyone.head)


def _refused_everywhere(path: Path, blue: GitSession, bad: str, *words: str) -> None:
    before = blue.head
    blue.sync()
    assert blue.head == before, "the honest branch moved onto a forged commit"
    reason = blue.rejected.get(bad)
    assert reason is not None and bad[:10] in reason, blue.rejected
    for word in words:
        assert word in reason, reason
    if isinstance(path, Repository):
        return  # in memory: the CLI reads a repository on disk (the slow run below)
    # ``catan-p2p verify`` run in this process (its own main: a traceback would fail the
    # test here), without a Python start per attack; ``keys`` below is a real process.
    said = io.StringIO()
    with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
        code = main(["verify", "--repo", str(path)])
    assert code == 1 and bad[:10] in said.getvalue(), said.getvalue()
    assert "Traceback" not in said.getvalue()


def test_a_move_signed_with_another_players_key_is_refused(game):
    path, everyone, blue = game
    tree, action = _roll(everyone)
    bad = sign_commit(everyone.repo, everyone.head, "red", action, tree, everyone.keys["blue"])
    _plant(everyone, bad)
    _refused_everywhere(path, blue, bad, "Red's seat key")


def test_a_move_signed_with_a_stranger_key_is_refused(game):
    path, everyone, blue = game
    tree, action = _roll(everyone)
    bad = sign_commit(everyone.repo, everyone.head, "red", action, tree, new_key())
    _plant(everyone, bad)
    _refused_everywhere(path, blue, bad, "Red's seat key")


def test_an_unsigned_move_is_refused(game):
    path, everyone, blue = game
    tree, action = _roll(everyone)
    bad = sign_commit(everyone.repo, everyone.head, "red", action, tree, None)
    _plant(everyone, bad)
    _refused_everywhere(path, blue, bad, "not signed")


def test_a_forged_author_on_a_validly_signed_commit_is_refused(game):
    path, everyone, blue = game
    tree, action = _roll(everyone)
    # Blue signs with its own key but writes red's name as the author of red's roll.
    bad = sign_commit(everyone.repo, everyone.head, "red", action, tree, everyone.keys["blue"])
    _plant(everyone, bad)
    _refused_everywhere(path, blue, bad)


@pytest.mark.parametrize(
    "variant",
    [
        lambda m: m.replace("\n\n", " \n\n", 1),  # a trailing space on the summary line
        lambda m: m.replace('{"dice"', '{ "dice"'),  # spacing inside the trailer JSON
        lambda m: m.replace("Red: roll", "Red:  roll"),  # another summary
        lambda m: m + "Catan-Note: hi\n",  # an extra trailer
        lambda m: m.replace("\n", "\r\n"),  # other line ends
        lambda m: m.rstrip("\n"),  # no final newline
    ],
    ids=["trailing-space", "json-spacing", "summary", "extra-trailer", "crlf", "no-newline"],
)
def test_a_message_that_is_not_byte_canonical_is_refused(game, variant):
    path, everyone, blue = game
    tree, action = _roll(everyone)
    message = variant(action_message(action, "g"))
    bad = sign_commit(
        everyone.repo, everyone.head, "red", action, tree, everyone.keys["red"], message
    )
    _plant(everyone, bad)
    _refused_everywhere(path, blue, bad, "canonical")


def test_a_header_that_is_not_canonical_is_refused(game):
    path, everyone, blue = game
    tree, action = _roll(everyone)
    message = action_message(action, "g")
    data = commit_data(tree, [everyone.head], "red", player_email("red"), 1, message)
    data = data.replace(b"+0000", b"+0200")
    signed = data.replace(
        b"\n\n",
        b"\ngpgsig " + everyone.keys["red"].sign(data).replace("\n", "\n ").encode() + b"\n\n",
        1,
    )
    bad = everyone.repo.store.write(b"commit", signed)
    _plant(everyone, bad)
    _refused_everywhere(path, blue, bad, "canonical")


@pytest.mark.slow  # Git itself verifies the commits of a repository on disk
@pytest.mark.parametrize("past_set_up", ["disk"], indirect=True)
def test_git_verify_commit_accepts_every_honest_commit(game, tmp_path):
    path, everyone, blue = game
    signers = tmp_path / "signers"
    made = cli("keys", "--repo", str(path), "--allowed-signers", str(signers))
    assert made.returncode == 0, made.stderr
    commits = git("rev-list", "--all", cwd=path).split()
    genesis = git("rev-list", "--max-parents=0", "--all", cwd=path).split()
    assert len(commits) > 15 and len(genesis) == 1
    for oid in commits:
        done = subprocess.run(
            ["git", "-c", f"gpg.ssh.allowedSignersFile={signers}", "verify-commit", oid],
            cwd=path,
            capture_output=True,
            text=True,
        )
        assert (done.returncode == 0) == (oid not in genesis), (oid, done.stderr)


@pytest.mark.slow  # a repository on disk
def test_an_action_before_every_seat_is_claimed_is_refused(tmp_path):
    path = tmp_path / "lobby"
    create_game(path, ["red", "blue"], seed="l", game_id="g", local=("red",))
    red = GitSession(path, "g", ("red",))
    assert red.legal_actions("red") == []
    with pytest.raises(Exception, match="every seat is claimed"):
        red.submit(EndTurn("red"))
