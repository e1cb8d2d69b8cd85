"""The window of a game waiting for seats shows its invitation with a copy button."""

from __future__ import annotations

import shutil
import subprocess

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from driving import screens_dir

from catan_p2p.client.app import App
from catan_p2p.client.seats import Seats
from catan_p2p.commands.play import Game, invitation
from catan_p2p.net import transport
from catan_p2p.protocol.invite import parse_invite
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game

pytestmark = pytest.mark.network


def test_the_window_shows_the_invitation_and_copies_it(tmp_path, request, monkeypatch, capsys):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo = tmp_path / "red"
    create_game(repo, ["red", "blue", "white"], seed="inv", game_id="friday", local=("red",))
    transport.set_remote(repo / ".git", str(remote))
    session = GitSession(repo, "friday", ("red",))
    session.sync()
    line = invitation(Game(session, Seats(("red",)), repo, networked=True))
    assert line is not None and parse_invite(line).remote == str(remote)
    programs = tmp_path / "bin"  # no clipboard program: the copy must not crash
    programs.mkdir()
    (programs / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", str(programs))
    app = App(session, Seats(("red",)))
    app.invite = line
    app.draw()
    pygame.image.save(app.screen, str(screens_dir(tmp_path) / f"{request.node.name}.png"))
    button = next(b for b in app.bar_buttons if b.label == "Copy invite")
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        pygame.event.post(pygame.event.Event(kind, pos=button.rect.center, button=1))
    app.tick()
    assert "no clipboard here" in (app.message or "")
    assert line in capsys.readouterr().out
    app.runtime.stop()
    session.close()
    pygame.display.quit()
