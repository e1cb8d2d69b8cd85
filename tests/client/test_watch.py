"""Spectators: ``catan-p2p watch`` is a read-only peer with no key and no seat.

A game is played by bots in one repository and shared on a real bare remote; a
spectator fetches it into a repository of its own. What it reads must be the public
state (no face-down development card, no pending steal's card), what its window draws
must name no hidden card, it must follow the game live, never write to the remote,
and its replay must step through the history so far.
"""

from __future__ import annotations

import subprocess

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest

from catan_p2p.bots import make_bot
from catan_p2p.client import panels, theme
from catan_p2p.client.app import App
from catan_p2p.client.replay import replay_states
from catan_p2p.client.seats import Seats
from catan_p2p.errors import UsageError
from catan_p2p.net.driver import Driver
from catan_p2p.rules.cards import DevCard
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.session.watch import is_spectator_repo, open_watch
from catan_p2p.store.refnames import player_ref
from catan_p2p.trust.views import hidden_count

pytestmark = pytest.mark.network

PLAYERS = ("red", "blue")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def _push(src, remote) -> None:
    git("-C", str(src), "push", "-q", str(remote), "refs/heads/catan/*:refs/heads/catan/*")


def _remote_refs(remote) -> str:
    return git("--git-dir", str(remote), "for-each-ref", "--format=%(refname) %(objectname)")


def _play_until_hidden_cards(session: GitSession, limit: int = 3000) -> None:
    """Greedy bots play until some seat holds a face-down development card."""
    bots = {p: make_bot("greedy", f"watch/{p}") for p in PLAYERS}
    driver = Driver(session, bots)
    for _ in range(limit):
        state = session.state
        if any(hidden_count(state, s) for s in range(len(PLAYERS))) and state.turn > 3:
            return
        if driver.play(1) == 0:
            break
    raise AssertionError("the bots bought no development card")


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A game under way, with face-down cards in hands, on a bare remote."""
    base = tmp_path_factory.mktemp("watch")
    src, remote = base / "src", base / "remote.git"
    git("init", "-q", "--bare", str(remote))
    create_game(src, list(PLAYERS), seed="watch", game_id="w")
    session = GitSession(src, "w")
    _play_until_hidden_cards(session)
    _push(src, remote)
    yield src, remote, session
    session.close()


class RecordingFont(pygame.font.Font):
    """A font that notes every text it renders (what the window wrote on screen)."""

    drawn: list[str] = []

    def render(self, text, *args, **kwargs):  # type: ignore[no-untyped-def]
        RecordingFont.drawn.append(str(text))
        return super().render(text, *args, **kwargs)


def test_spectator_reads_only_the_public_state(shared, tmp_path):
    src, remote, session = shared
    before = _remote_refs(remote)
    spectator = open_watch(str(remote), "w", tmp_path / "watching")
    try:
        spectator.sync()
        state = spectator.state
        assert state == session.state, "the spectator follows the verified public state"
        held = [hidden_count(state, s) for s in range(len(PLAYERS))]
        assert any(held), "the scenario needs face-down cards in some hand"
        for seat in range(len(PLAYERS)):
            hand = state.hands[seat]
            unplayed = sum(hand.dev_cards) + sum(hand.new_dev_cards)
            assert unplayed <= hand.victory_cards, "no face-down card is known to a spectator"
            assert spectator.view(PLAYERS[seat]) == state
        for player in PLAYERS:  # a player's own view reads cards the spectator cannot
            private = session.view(player)
            seat = PLAYERS.index(player)
            if held[seat]:
                assert private != state
        assert spectator.local_players == ()
        assert spectator.legal_actions(state.players[state.current]) == []
        with pytest.raises(UsageError, match="watching"):
            spectator.submit(session.legal_actions()[0])
        assert _remote_refs(remote) == before, "a spectator never writes to the remote"
        # not even to put back a player's branch someone deleted there
        git("--git-dir", str(remote), "update-ref", "-d", player_ref("w", "blue"))
        spectator.sync()
        assert player_ref("w", "blue") not in _remote_refs(remote)
        _push(src, remote)
        assert is_spectator_repo(spectator.repo.git_dir)
    finally:
        spectator.close()


def test_watch_window_draws_no_hidden_card_and_follows_live(shared, tmp_path, monkeypatch):
    src, remote, session = shared
    spectator = open_watch(str(remote), "w", tmp_path / "watching")
    monkeypatch.setattr(theme, "font", lambda size, bold=False: RecordingFont(None, size))
    try:
        app = App(spectator, Seats(()), spectator=True)
        RecordingFont.drawn.clear()
        app.draw()
        text = " | ".join(RecordingFont.drawn)
        assert "Watching" in text
        for card in DevCard:
            assert f"{panels.DEV_SHORT[card]} ×" not in text, f"a hidden {card.name} is drawn"
        assert "no development cards" not in text
        assert app.shown_player is None and app.actor() is None
        # live: the players move on, the spectator's next sync shows it
        turn = session.state.turn
        bots = {p: make_bot("greedy", f"live/{p}") for p in PLAYERS}
        Driver(session, bots).play(30)
        _push(src, remote)
        head = session.head
        app.session.sync()
        app.tick()
        assert spectator.repo.refs.get(player_ref("w", "red")) == head
        assert app.state == session.state and app.state.turn >= turn
        # replay: P steps through the history so far
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_p, mod=0))
        app.tick()
        assert app.replay_requested and not app.running
        states, entries = replay_states(spectator)
        assert len(states) == len(entries) + 1 and states[-1].turn == app.state.turn
    finally:
        spectator.close()
        pygame.display.quit()


def test_watch_refuses_a_players_repository_and_a_foreign_folder(shared, tmp_path):
    src, remote, _ = shared
    with pytest.raises(UsageError, match="player's repository"):
        open_watch(str(remote), "w", src)
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "todo.txt").write_text("milk\n")
    with pytest.raises(UsageError, match="not empty"):
        open_watch(str(remote), "w", foreign)
    with pytest.raises(UsageError, match="no game 'nope'"):
        open_watch(str(remote), "nope", tmp_path / "other")
