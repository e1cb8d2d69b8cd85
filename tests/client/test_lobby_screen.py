"""The lobby window: the games here and on a remote, each a click away from its window."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from driving import screens_dir

from catan_p2p.client.lobby import Choice, LobbyScreen
from catan_p2p.commands import lobby as lobby_command
from catan_p2p.session.lobby import list_remote
from catan_p2p.session.start import create_game
from catan_p2p.session.watch import open_watch

pytestmark = pytest.mark.network


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A home with one game of its own, and a remote holding a game with open seats."""
    home = tmp_path / "home"
    monkeypatch.setenv("CATAN_P2P_HOME", str(home))
    create_game(home / "games" / "mine", ["red", "blue"], seed="m", game_id="mine")
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    create_game(tmp_path / "host", ["red", "blue", "white"], seed="f", game_id="friday",
                local=("red",))  # fmt: skip
    git("-C", str(tmp_path / "host"), "push", "-q", str(remote),
        "refs/heads/catan/*:refs/heads/catan/*")  # fmt: skip
    yield home, remote
    pygame.display.quit()


def _click(screen: LobbyScreen, label: str, game: str | None = None) -> Choice | None:
    button = screen.button(label, game)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=button.rect.center, button=1))
    screen.tick()
    return screen.choice


def test_the_lobby_offers_to_open_join_and_watch(world, tmp_path, request):
    home, remote = world
    screen = LobbyScreen(lobby_command.local_games, list_remote, url=str(remote))
    screen.draw()
    pygame.image.save(screen.screen, str(screens_dir(tmp_path) / f"{request.node.name}.png"))
    assert [g.game for g in screen.mine] == ["mine"] and screen.mine[0].mine_waiting
    assert [g.game for g in screen.found.games] == ["friday"]
    assert _click(screen, "Join as White", "friday") == Choice(
        "join", "friday", url=str(remote), seat="white"
    )
    screen.running, screen.choice = True, None
    assert _click(screen, "Watch", "friday") == Choice("watch", "friday", url=str(remote))
    screen.running, screen.choice = True, None
    assert _click(screen, "Open", "mine") == Choice(
        "open", "mine", path=str(home / "games" / "mine")
    )
    screen.running, screen.choice = True, None
    assert _click(screen, "New game against bots") == Choice("new")


def test_typing_a_url_lists_its_games_and_a_bad_one_is_one_sentence(world):
    _, remote = world
    screen = LobbyScreen(lobby_command.local_games, list_remote)
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=screen.url_box().center, button=1)
    )
    screen.tick()
    assert screen.typing
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="/nowhere.git"))
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0))
    screen.tick()
    assert screen.found is None and "cannot list the games" in screen.message
    screen.url = str(remote)
    screen.list_url()
    assert screen.found is not None and "holds 1 game" in screen.message


def test_games_watched_here_are_listed_to_watch_again(world, tmp_path):
    _, remote = world
    from catan_p2p.session.watch import default_watch_repo

    open_watch(str(remote), "friday", default_watch_repo(str(remote), "friday")).close()
    games = {g.game: g for g in lobby_command.local_games()}
    assert games["friday"].yours == () and games["friday"].mine_waiting == ()
    screen = LobbyScreen(lobby_command.local_games, list_remote)
    assert screen.button("Watch", "friday").tag.kind == "open"


def test_games_on_this_machine_include_those_watched(world, capsys):
    import json

    from catan_p2p.cli import main
    from catan_p2p.session.watch import default_watch_repo

    _, remote = world
    open_watch(str(remote), "friday", default_watch_repo(str(remote), "friday")).close()
    assert main(["games", "--json"]) == 0
    listed = {g["game"]: g for g in json.loads(capsys.readouterr().out)["games"]}
    assert set(listed) == {"mine", "friday"}
    assert listed["friday"]["yours"] == [] and listed["mine"]["waits_for_you"] == ["red"]


# --- typing, pasting, refreshing, idling, invitations (issue 32) ----------------------------


def _key(screen: LobbyScreen, key: int, mod: int = 0) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod))
    screen.tick()


def test_the_url_field_takes_typing_where_it_is_drawn(world):
    """The field took clicks 22 pixels above where it was drawn, so a click on its lower
    part started nothing and nothing could be typed; now it takes typing at once, and a
    click anywhere on it (after Esc) takes it again."""
    _, remote = world
    screen = LobbyScreen(lobby_command.local_games, list_remote)
    for letter in str(remote):
        pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text=letter))
    screen.tick()
    assert screen.url == str(remote)
    _key(screen, pygame.K_ESCAPE)
    assert not screen.typing
    box = screen.url_box()
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(box.centerx, box.bottom - 3), button=1)
    )
    screen.tick()
    assert screen.typing
    _key(screen, pygame.K_RETURN)
    assert [g.game for g in screen.found.games] == ["friday"]


def test_ctrl_v_pastes_from_the_clipboard_and_says_so_when_there_is_none(
    world, tmp_path, monkeypatch
):
    import shutil

    _, remote = world
    programs = tmp_path / "bin"  # Git, and no clipboard program at all
    programs.mkdir()
    (programs / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", str(programs))
    screen = LobbyScreen(lobby_command.local_games, list_remote)
    _key(screen, pygame.K_v, pygame.KMOD_CTRL)
    assert screen.url == "" and "nothing to paste" in screen.message
    xclip = programs / "xclip"  # the desktop's clipboard, as xclip answers it
    xclip.write_text(f"#!/bin/sh\nprintf '%s\\n' '{remote}'\n")
    xclip.chmod(0o755)
    _key(screen, pygame.K_v, pygame.KMOD_CTRL)
    assert screen.url == str(remote)
    _key(screen, pygame.K_RETURN)
    assert [g.game for g in screen.found.games] == ["friday"]


def test_games_made_with_repo_are_listed_and_the_list_follows_them(world, tmp_path):
    """Games made with `new --repo` (every README recipe) were missing from the lobby;
    now the home's registry lists them, and an open lobby sees a new one by itself."""
    home, _ = world
    env = {**os.environ, "CATAN_P2P_HOME": str(home)}
    made = subprocess.run(
        [sys.executable, "-m", "catan_p2p.cli", "new", "--players", "red,blue", "--repo",
         str(tmp_path / "elsewhere")], env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    screen = LobbyScreen(
        lobby_command.local_games, list_remote, changed=lobby_command.local_changes
    )
    assert {g.path for g in screen.mine} == {
        str(home / "games" / "mine"),
        str((tmp_path / "elsewhere").resolve()),
    }
    subprocess.run(
        [sys.executable, "-m", "catan_p2p.cli", "new", "--players", "red,blue", "--repo",
         str(tmp_path / "later")], env=env, check=True, capture_output=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while len(screen.mine) < 3 and time.monotonic() < deadline:
        screen.tick()
        screen.clock.tick(20)
    assert str((tmp_path / "later").resolve()) in {g.path for g in screen.mine}


def test_an_idle_lobby_draws_nothing(world):
    screen = LobbyScreen(lobby_command.local_games, list_remote)
    screen.tick()
    drawn = screen.frames
    for _ in range(50):
        screen.tick()
    assert screen.frames == drawn
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="x"))
    screen.tick()
    assert screen.frames == drawn + 1


def test_an_invitation_pasted_lists_its_game_and_join_goes_through_it(world, tmp_path, request):
    home, _ = world
    shared = tmp_path / "shared.git"
    git("init", "-q", "--bare", str(shared))
    made = subprocess.run(
        [sys.executable, "-m", "catan_p2p.cli", "new", "--players", "red,blue,white", "--repo",
         str(tmp_path / "host2"), "--remote", str(shared), "--game", "sunday", "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    invite = json.loads(made.stdout)["invite"]
    screen = LobbyScreen(lobby_command.local_games, lobby_command.remote_games, url=invite)
    screen.draw()
    pygame.image.save(screen.screen, str(screens_dir(tmp_path) / f"{request.node.name}.png"))
    assert [g.game for g in screen.found.games] == ["sunday"]
    assert screen.found.games[0].open_seats == ("blue", "white")
    assert _click(screen, "Join as White", "sunday") == Choice(
        "join", "sunday", url=invite, seat="white"
    )
    screen.running, screen.choice = True, None
    screen.url = invite[:-3]  # cut short: one sentence, no crash
    screen.list_url()
    assert screen.found is None and "invitation" in screen.message


def test_the_remote_shown_is_listed_again_while_the_lobby_is_open(world, tmp_path):
    _, remote = world
    screen = LobbyScreen(lobby_command.local_games, list_remote, url=str(remote), remote_every=0.2)
    assert [g.game for g in screen.found.games] == ["friday"]
    create_game(tmp_path / "host3", ["red", "blue"], seed="s", game_id="saturday",
                local=("red",))  # fmt: skip
    git("-C", str(tmp_path / "host3"), "push", "-q", str(remote),
        "refs/heads/catan/*:refs/heads/catan/*")  # fmt: skip
    deadline = time.monotonic() + 30
    while len(screen.found.games) < 2 and time.monotonic() < deadline:
        screen.tick()
        screen.clock.tick(20)
    assert {g.game for g in screen.found.games} == {"friday", "saturday"}
