"""Liveness: the others may end a game a player keeps waiting longer than all agreed.

The players agree on the time at ``new --timeout``. An ``abandon`` is refused before
that time has passed since the commit the game waits after, in a game without a
timeout, by or about the wrong player, dated in the future, or signed by another key.
Nobody wins an abandoned game; the others still reveal their deck secrets and every
peer verifies it. End to end: two repositories, a bare remote, the CLI.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from gitgames import git, new_repo, two_players

from catan_p2p.cli import main
from catan_p2p.errors import IllegalAction, VerificationError
from catan_p2p.protocol.genesis import genesis_of
from catan_p2p.protocol.message import action_message
from catan_p2p.rules.actions import Abandon, EndTurn
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import NOBODY, Phase
from catan_p2p.rules.waiting import owed_reveal
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import new_key
from catan_p2p.session.start import create_game
from catan_p2p.store.repo import GameRepo
from catan_p2p.trust.engine import step

HOUR = 3600


def _session(tmp_path: Path, kind: str, timeout: int = HOUR) -> GitSession:
    repo = new_repo(kind, tmp_path)
    create_game(repo, ["red", "blue", "white"], seed="live", game_id="g", timeout=timeout)
    session = GitSession(repo, "g")
    first = legal_actions(session.state, "red")[0]
    session.submit(first)  # red's first settlement: the game now waits on red's road
    return session


def _abandon_commit(session: GitSession, player: str, absent: str, when: int, key=None) -> str:
    """An abandon written on the head as ``player``'s peer would, at time ``when``."""
    head = session.head
    state = session.committed_state
    action = Abandon(player, absent)
    new = step(state, action)[0]
    repo = session.repo
    tree = repo.writer(session.info).write(new)
    return repo.write_commit(
        tree,
        [head],
        player,
        action_message(action, "g"),
        key or session.peers[player].key,
        when=when,
    )


def _verify(session: GitSession, oid: str, now: float | None = None, fake_clock=None):
    if now is not None:
        fake_clock.set(now)
    verifier = session.peers["blue"].verifier
    return verifier.verify(oid)


# --- the rules ---------------------------------------------------------------------------------


def test_only_another_seat_may_abandon_a_player_the_game_waits_on(tmp_path, repo_kind):
    session = _session(tmp_path, repo_kind)
    state = session.committed_state
    assert state.players[state.current] == "red" and state.phase is Phase.SETUP_ROAD
    with pytest.raises(IllegalAction, match="waiting on itself"):
        step(state, Abandon("red", "red"))
    with pytest.raises(IllegalAction, match="does not wait on Blue"):
        step(state, Abandon("white", "blue"))
    with pytest.raises(IllegalAction, match="no player"):
        step(state, Abandon("white", "green"))
    over = step(state, Abandon("blue", "red"))[0]
    assert over.phase is Phase.GAME_OVER and over.abandoned == 0 and over.winner == NOBODY
    with pytest.raises(IllegalAction, match="ended without Red"):
        step(over, EndTurn("red"))
    with pytest.raises(IllegalAction, match="ended without Red"):
        step(over, Abandon("white", "blue"))
    # The others reveal their deck secrets; the absent player's is never awaited.
    assert owed_reveal(over) == "blue"
    for p in ("blue", "white"):
        over = step(over, session.peers[p].reveal_deck())[0]
    assert owed_reveal(over) is None and over.settled
    from catan_p2p.commands.verify import pending

    bought = over._replace(
        deck=over.deck._replace(holders=(1,), bought=(0,), opened=("",), shared=(2,), shown=(-1,))
    )
    assert "ended without Red" in pending(session.repo, session.head, bought)[0]
    session.close()


# --- commit times ------------------------------------------------------------------------------


def test_an_abandon_before_the_agreed_time_is_refused(tmp_path, repo_kind, fake_clock):
    session = _session(tmp_path, repo_kind)
    since = session.repo.commit(session.head).when
    early = _abandon_commit(session, "blue", "red", since + HOUR - 1)
    with pytest.raises(VerificationError, match="before the 3600 s the players agreed"):
        _verify(session, early, since + 2 * HOUR, fake_clock)
    on_time = _abandon_commit(session, "blue", "red", since + HOUR)
    # Dated in the future of this clock: refused for now ...
    with pytest.raises(VerificationError, match="dated in the future"):
        _verify(session, on_time, since + 10, fake_clock)
    # ... and taken once the time has come.
    state = _verify(session, on_time, since + HOUR + 1, fake_clock)
    assert state.is_over and state.players[state.abandoned] == "red"
    session.close()


def test_an_abandon_in_a_game_without_timeout_or_with_another_key_is_refused(
    tmp_path, repo_kind, fake_clock
):
    session = _session(tmp_path / "none", repo_kind, timeout=0)
    since = session.repo.commit(session.head).when
    oid = _abandon_commit(session, "blue", "red", since + 10 * HOUR)
    with pytest.raises(VerificationError, match="no timeout"):
        _verify(session, oid, since + 11 * HOUR, fake_clock)
    session.close()
    session = _session(tmp_path / "timed", repo_kind)
    since = session.repo.commit(session.head).when
    forged = _abandon_commit(session, "blue", "red", since + HOUR, key=new_key())
    with pytest.raises(VerificationError, match="not signed by Blue's seat key"):
        _verify(session, forged, since + 2 * HOUR, fake_clock)
    session.close()


@pytest.mark.slow  # repositories on disk, the CLI, a remote
def test_a_timeout_is_declared_in_the_genesis_and_checked_there(tmp_path):
    from catan_p2p.errors import UsageError

    with pytest.raises(UsageError, match="timeout"):
        create_game(tmp_path / "x", ["red", "blue"], game_id="x", timeout=5)
    create_game(tmp_path / "y", ["red", "blue"], game_id="y", timeout=2 * HOUR)
    repo = GameRepo(tmp_path / "y")
    genesis = repo.commit(genesis_of(repo, repo.refs.get("refs/heads/catan/y/red")))
    assert '"timeout":7200' in genesis.message
    assert GitSession(tmp_path / "y", "y").info.timeout == 2 * HOUR


# --- end to end --------------------------------------------------------------------------------


@pytest.mark.slow  # repositories on disk, the CLI, a remote
def test_blue_ends_a_game_red_left_and_both_repositories_verify(tmp_path, fake_clock, capsys):
    remote, red, blue = two_players(tmp_path, "2h")
    capsys.readouterr()
    # Red must place its first settlement, and is gone. Too early for Blue:
    assert main(["abandon", "--repo", str(blue)]) == 1
    said = capsys.readouterr().err
    assert "waited" in said and "2.0 hours" in said and "Traceback" not in said
    # Two hours later Blue may end it; nobody wins.
    later = time.time() + 2 * HOUR + 60
    fake_clock.set(later)
    assert main(["abandon", "--repo", str(blue)]) == 0
    assert "ended without Red" in capsys.readouterr().out
    # Red comes back: its sync takes the abandon, the game is over for it too.
    assert main(["sync", "--repo", str(red)]) == 0
    for repo in (red, blue):
        assert main(["verify", "--repo", str(repo)]) == 0
        session = GitSession.open(repo, "g", (repo.name,))
        assert session.state.is_over and session.state.abandoned == 0
        assert session.state.winner == NOBODY
        session.close()


@pytest.mark.slow  # repositories on disk, the CLI, a remote
def test_abandon_explains_a_game_without_timeout(tmp_path, capsys):
    remote, red, blue = two_players(tmp_path, None)
    capsys.readouterr()
    assert main(["abandon", "--repo", str(blue)]) == 1
    assert "no timeout" in capsys.readouterr().err
    assert (
        main(["new", "--players", "red,blue", "--timeout", "soon", "--repo", str(tmp_path / "z")])
        == 1
    )
    assert "30m, 48h or 7d" in capsys.readouterr().err
    assert not (tmp_path / "z").exists()


@pytest.mark.slow  # repositories on disk, the CLI, a remote
def test_a_late_move_after_an_abandon_is_joined_by_a_closing_merge(tmp_path, fake_clock, capsys):
    """Red comes back after Blue ended the game and moves before it sees the abandon: two
    lines. The abandon wins; Blue, who wrote it, joins both with a closing merge at its
    next sync (Red's sync meanwhile says it waits for it), every branch fast-forwards
    to it, and both repositories verify."""
    remote, red, blue = two_players(tmp_path, "1h")
    later = time.time() + HOUR + 60
    fake_clock.set(later)
    assert main(["abandon", "--repo", str(blue)]) == 0
    # Red, offline until now, places its settlement and pushes it without fetching.
    session = GitSession.open(red, "g", ("red",))
    move = legal_actions(session.state, "red")[0]
    session.submit(move)
    late = session.head
    session.flush()
    session.close()
    assert git("rev-parse", "refs/heads/catan/g/red", cwd=remote).strip() == late
    capsys.readouterr()
    # Not a fork: Red's sync says what it waits for and succeeds.
    assert main(["sync", "--repo", str(red)]) == 0
    said = capsys.readouterr()
    assert "wait for Blue's closing merge" in said.out and "wait for" not in said.err
    assert main(["sync", "--repo", str(blue)]) == 0, capsys.readouterr().err
    assert main(["sync", "--repo", str(red)]) == 0, capsys.readouterr().err
    heads = {
        git("rev-parse", f"refs/heads/catan/g/{p}", cwd=remote).strip() for p in ("red", "blue")
    }
    assert len(heads) == 1, "the two branches did not come back onto one line"
    closing = GameRepo(remote).commit(heads.pop())
    assert len(closing.parents) == 2 and closing.parents[1] == late
    assert '"kind":"abandon"' in closing.message
    for repo in (red, blue):
        assert main(["verify", "--repo", str(repo)]) == 0
        s = GitSession.open(repo, "g", (repo.name,))
        assert s.state.is_over and s.state.abandoned == 0
        s.close()


def test_a_forged_closing_merge_is_refused(tmp_path, repo_kind, fake_clock):
    """A closing merge whose second parent does not give way to its first is refused:
    another player's line that is no late move of Red's and no abandon a later seat
    wrote on the same commit, or one the writer's abandon loses to; and only the author
    of the abandon that wins may write one."""
    from catan_p2p.protocol.message import merge_message

    session = _session(tmp_path, repo_kind)
    since = session.repo.commit(session.head).when
    blue = _abandon_commit(session, "blue", "red", since + HOUR)
    white = _abandon_commit(session, "white", "red", since + HOUR + 5)
    state = _verify(session, blue, since + 2 * HOUR, fake_clock)
    tree = session.repo.writer(session.info).write(state)

    def merge(by: str, over: str, late: str) -> str:
        message = merge_message(by, "abandon", ["red"], "g")
        key = session.peers[by].key
        return session.repo.write_commit(tree, [over, late], by, message, key, since + HOUR + 9)

    verifier = session.peers["red"].verifier
    # White's abandon loses to Blue's (earlier in seat order): only Blue may join them.
    assert verifier.verify(merge("blue", blue, white)).abandoned == 0
    with pytest.raises(VerificationError, match="only Blue, whose abandon"):
        verifier.verify(merge("white", blue, white))
    # Blue's abandon does not lose to White's: no merge may put White's line first.
    with pytest.raises(VerificationError, match="later in seat order"):
        verifier.verify(merge("white", white, blue))
    # A second abandon of Blue's own on that commit is no line that gives way to it.
    again = _abandon_commit(session, "blue", "red", since + HOUR + 7)
    with pytest.raises(VerificationError, match="neither Red's own moves"):
        verifier.verify(merge("blue", blue, again))
    session.close()


@pytest.mark.slow  # repositories on disk, the CLI, a remote
def test_a_guarded_remote_refuses_an_abandon_before_the_agreed_time(tmp_path, capsys):
    from gitgames import cli

    remote = tmp_path / "remote.git"
    made = cli("host", "init", str(remote))
    assert made.returncode == 0, made.stderr
    remote, red, blue = two_players(tmp_path, "1h", remote)
    session = GitSession.open(blue, "g", ("blue",))
    since = session.repo.commit(session.head).when
    early = _abandon_commit(session, "blue", "red", since + 60)
    session.repo.refs.set("refs/heads/catan/g/blue", early, session.head)
    session.close()
    refused = subprocess.run(
        ["git", "push", str(remote), "refs/heads/catan/g/blue"],
        cwd=blue,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and "before the 3600 s the players agreed" in refused.stderr
    on_remote = git("rev-parse", "refs/heads/catan/g/blue", cwd=remote).strip()
    assert on_remote != early, "the guarded remote took an abandon an hour early"


@pytest.mark.slow  # repositories on disk, the CLI, a remote
def test_a_move_from_a_fast_clock_waits_for_its_time_and_is_then_taken(tmp_path, fake_clock):
    """Red's clock runs 20 minutes fast: Blue's running session refuses Red's move for now
    (a move dated ahead could otherwise put off an abandon for ever), says so once, tries
    it again at every sync, and takes it when Blue's clock reaches its date."""
    remote, red, blue = two_players(tmp_path, "1h")
    now = time.time()
    watching = GitSession.open(blue, "g", ("blue",))
    fake_clock.set(now + 1200)
    mover = GitSession.open(red, "g", ("red",))
    mover.submit(legal_actions(mover.state, "red")[0])
    moved = mover.head
    mover.flush()
    mover.close()
    fake_clock.set(now)
    watching.sync()
    assert "dated in the future" in watching.take_rejected()[moved]
    assert moved not in watching.repo.first_parents(watching.head)  # not taken
    watching.sync()
    assert watching.take_rejected() == {}, "a refusal for now is reported once"
    fake_clock.set(now + 1200)
    watching.sync()
    assert moved in watching.repo.first_parents(watching.head)
    assert watching.rejected == {}
    watching.close()
