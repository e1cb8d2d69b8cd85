"""What a new player tripped over with ``play`` (issue 24): keys left in the home folder."""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pytest

from catan_p2p.cli import main
from catan_p2p.session.git import GitSession

pytestmark = pytest.mark.slow  # starts processes (git, the CLI): see tests/conftest.py


def test_a_game_against_bots_leaves_no_keys_in_the_home_folder(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    monkeypatch.setenv("CATAN_P2P_HOME", str(home))
    assert main(["play", "--headless", "--humans", "0", "--bots", "2", "--seed", "k"]) == 0
    capsys.readouterr()
    assert not (home / "keys").exists(), "the keys of a local game stay with the game"
    (repo,) = (home / "games").iterdir()
    session = GitSession.open(repo)  # and the game opens again with them
    assert session.state.is_over
    session.close()
