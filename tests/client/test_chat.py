"""Table talk: each player's chat on its own append-only ref, synced with the game.

Real repositories throughout: a bare remote on disk, one clone per player, the
window's background syncer, and the `chat` / `log --chat` commands.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from driving import Driver, screens_dir

from catan_p2p import clock
from catan_p2p.cli import main
from catan_p2p.client.app import App
from catan_p2p.client.seats import Seats
from catan_p2p.errors import UsageError
from catan_p2p.net.chat import ChatLog
from catan_p2p.net.runtime import Runtime
from catan_p2p.protocol.audit import audit
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import new_key, signing_keys
from catan_p2p.session.start import create_game, join_game
from catan_p2p.store.repo import GameRepo

pytestmark = pytest.mark.slow  # starts processes (git, the CLI): see tests/conftest.py


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def networked(tmp_path: Path) -> tuple[Path, GitSession, GitSession]:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    host = tmp_path / "host"
    game = create_game(host, ["red", "blue"], STANDARD_BOARD, seed="chat", game_id="c")
    git("-C", str(host), "push", "-q", str(remote), "refs/heads/catan/*:refs/heads/catan/*")
    red = join_game(str(remote), tmp_path / "red", game, "red")
    blue = join_game(str(remote), tmp_path / "blue", game, "blue")
    return remote, red, blue


def test_chat_travels_with_the_games_fetch_and_stays_out_of_the_game(tmp_path):
    remote, red, blue = networked(tmp_path)
    red_chat = ChatLog(red.repo.path, "c", signing_keys(red.repo.git_dir))
    red_chat.send("red", "good luck!")
    red_chat.send("red", "  second\tline \n ")
    red_chat.push()
    blue.sync()  # the game's own fetch brings the chat along
    blue_chat = ChatLog(blue.repo.path, "c", signing_keys(blue.repo.git_dir))
    assert blue_chat.update() == 1
    assert [(m.player, m.text) for m in blue_chat.messages()] == [
        ("red", "good luck!"),
        ("red", "second line"),
    ]
    assert GameRepo(blue.repo.path).games() == ["c"]
    assert audit(GameRepo(remote), "c", clock.now).ok, (
        "the chat refs are no part of the game's history"
    )


def test_a_rewritten_chat_ref_does_not_take_back_what_was_seen(tmp_path):
    remote, red, blue = networked(tmp_path)
    red_chat = ChatLog(red.repo.path, "c", signing_keys(red.repo.git_dir))
    red_chat.send("red", "I offer 2 ore")
    red_chat.push()
    blue.sync()
    blue_chat = ChatLog(blue.repo.path, "c", signing_keys(blue.repo.git_dir))
    blue_chat.update()
    # red rewrites its chat on the remote (a forced push of a new chain)
    red.repo.refs.delete("refs/catan-chat/c/red")
    red_chat = ChatLog(red.repo.path, "c", signing_keys(red.repo.git_dir))
    red_chat.send("red", "I never offered anything")
    git("--git-dir", str(red.repo.git_dir), "push", "-q", "-f", "origin", "refs/catan-chat/c/red")
    blue.sync()
    assert blue_chat.update() == 0
    assert [m.text for m in blue_chat.messages()] == ["I offer 2 ore"]


def test_the_windows_syncer_sends_and_receives_chat(tmp_path):
    _, red, blue = networked(tmp_path)
    red_sync = Runtime(
        red, slowest=0.05, chat=ChatLog(red.repo.path, "c", signing_keys(red.repo.git_dir))
    ).start()
    blue_sync = Runtime(
        blue, slowest=0.05, chat=ChatLog(blue.repo.path, "c", signing_keys(blue.repo.git_dir))
    ).start()
    try:
        red_sync.say("red", "hello blue")
        deadline = time.monotonic() + 10
        while not blue_sync.chat_messages and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [(m.player, m.text) for m in blue_sync.chat_messages] == [("red", "hello blue")]
    finally:
        red_sync.stop()
        blue_sync.stop()


def test_an_empty_message_is_refused(tmp_path):
    create_game(tmp_path / "g", ["red", "blue"], STANDARD_BOARD, seed="x", game_id="g")
    with pytest.raises(UsageError, match="empty"):
        ChatLog(tmp_path / "g", "g", signing_keys(tmp_path / "g")).send("red", " \n\t ")


# --- the window -----------------------------------------------------------------------


@pytest.fixture
def drive(tmp_path, request):
    def start(app) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name)

    yield start
    pygame.display.quit()


def type_text(d: Driver, text: str) -> None:
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text=text))
    d.app.tick()


def test_hot_seat_players_talk_from_the_window_as_the_player_shown(tmp_path, drive):
    repo = tmp_path / "g"
    create_game(repo, ["red", "blue"], STANDARD_BOARD, seed="talk", game_id="t")
    session = GitSession.open(repo, "t")
    chat = ChatLog(repo, "t", signing_keys(GameRepo(repo).git_dir))
    app = App(
        session,
        Seats(("red", "blue")),
        screen=pygame.display.set_mode((1280, 800)),
        bot_delay=0,
        chat=chat,
    )
    d = drive(app)  # red took the screen at the pass screen
    d.key(pygame.K_RETURN)
    assert app.typing == ""
    type_text(d, "nobody builds on my 8")
    d.key(pygame.K_BACKSPACE)
    type_text(d, "8!")
    d.shot("typing")
    d.key(pygame.K_RETURN)
    assert app.typing is None
    assert [(m.player, m.text) for m in app.chat_messages()] == [("red", "nobody builds on my 8!")]
    d.key(pygame.K_1)  # keys are commands again once the line is sent
    d.shot("chat")
    assert [
        (m.player, m.text)
        for m in ChatLog(repo, "t", signing_keys(GameRepo(repo).git_dir)).messages()
    ] == [("red", "nobody builds on my 8!")]


# --- the commands ---------------------------------------------------------------------


def test_chat_and_log_chat_from_the_terminal(tmp_path, capsys):
    repo = tmp_path / "g"
    create_game(repo, ["red", "blue"], STANDARD_BOARD, seed="cli", game_id="g")
    assert main(["chat", "--repo", str(repo), "hi"]) == 1
    assert "--as COLOUR" in capsys.readouterr().err
    assert main(["chat", "--repo", str(repo), "--as", "blue", "hi all"]) == 0
    assert main(["chat", "--repo", str(repo), "--as", "green", "hi"]) == 1
    capsys.readouterr()
    assert main(["log", "--chat", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "blue" in out and "hi all" in out


def test_a_message_written_on_another_players_chat_ref_is_not_shown_as_theirs(tmp_path):
    """Anyone who can push may append to Blue's chat ref; only Blue's key makes it Blue's."""
    from catan_p2p.net.chat import ChatLog
    from catan_p2p.session.start import create_game
    from catan_p2p.store.formats import commit_data, player_email

    path = tmp_path / "g"
    create_game(path, ["red", "blue"], seed="chat", game_id="c")
    chat = ChatLog(path, "c", signing_keys(GameRepo(path).git_dir))
    chat.send("blue", "hello from blue")
    parent = chat.repo.refs.get(chat.ref("blue"))
    empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    chat.repo.store.write(b"tree", b"")
    for key in (None, new_key()):  # unsigned, and signed by a stranger's key
        fields = (empty, [parent], "blue", player_email("blue"), 1_800_000_000, "I resign\n")
        data = commit_data(*fields, key.sign(commit_data(*fields)) if key else None)
        forged = chat.repo.store.write(b"commit", data)
        chat.repo.refs.set(chat.ref("blue"), forged, parent)
        parent = forged
    texts = [
        (m.player, m.text)
        for m in ChatLog(path, "c", signing_keys(GameRepo(path).git_dir)).messages()
    ]
    assert texts == [("blue", "hello from blue")]
