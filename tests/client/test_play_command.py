"""``catan-p2p play`` and ``catan-p2p replay`` from the command line (headless)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest

from catan_p2p.cli import build_parser, main
from catan_p2p.commands import play
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.repo import init_repo


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("CATAN_P2P_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.mark.slow
@pytest.mark.skipif(
    bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")),
    reason="this machine has a display",
)
def test_play_without_a_display_says_so_and_suggests_headless(home):
    env = {k: v for k, v in os.environ.items() if k != "SDL_VIDEODRIVER"}
    proc = subprocess.run(
        [sys.executable, "-m", "catan_p2p.cli", "play"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "no display" in proc.stderr and "catan-p2p play --headless" in proc.stderr
    assert not (home / "games").exists(), "no game is created when no window can open"


def test_play_refuses_more_than_six_seats(capsys):
    # (five and six seats are the 5-6 player extension; seven are no game)
    assert main(["play", "--humans", "3", "--bots", "4"]) == 1
    err = capsys.readouterr().err
    assert "2 to 6 seats" in err and "--humans 3 --bots 4" in err


@pytest.mark.slow
def test_headless_play_records_a_whole_game_and_draws_the_final_board(home, capsys):
    assert main(["play", "--headless", "--humans", "0", "--bots", "2", "--seed", "cli"]) == 0
    out = capsys.readouterr().out
    assert " won after " in out and "Final board:" in out
    (repo,) = (home / "games").iterdir()
    png = repo / "final.png"
    assert pygame.image.load(str(png)).get_size() == (1280, 800)
    session = GitSession.open(repo)
    assert session.state.is_over and len(session.history()) > 50
    # The count said is the one replay steps through ("action N of N").
    assert f"({len(session.history())} actions, " in out


@pytest.mark.slow
def test_resume_keeps_which_seats_are_bots(home):
    args = build_parser().parse_args(["play", "--humans", "1", "--bots", "1", "--seed", "r"])
    game = play.new_game(args)
    assert game.seats.humans == ("red",) and set(game.seats.bots) == {"blue"}
    again = play.resume_game(build_parser().parse_args(["play", "--resume", str(game.repo)]))
    assert again.seats.humans == ("red",) and set(again.seats.bots) == {"blue"}
    assert again.session.game_id == game.session.game_id


@pytest.mark.slow
def test_replay_export_writes_one_frame_per_commit(home, tmp_path, capsys):
    args = build_parser().parse_args(["play", "--humans", "0", "--bots", "2", "--seed", "x"])
    game = play.new_game(args)
    for _ in range(4):  # the first set-up placements
        state = game.session.state
        player = state.players[state.current]
        game.session.submit(game.session.legal_actions(player)[0])
    out = tmp_path / "frames"
    assert main(["replay", str(game.repo), "--export", str(out), "--frames"]) == 0
    # The start, the two seat claims and the four placements.
    assert len(list(out.glob("frame_*.png"))) == 7
    said = capsys.readouterr().out
    assert "(7 of 7 frames) and 7 PNG frames" in said, said


def test_replay_of_a_missing_game_is_one_clear_sentence(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nowhere")]) == 1
    assert "there is no game at" in capsys.readouterr().err


@pytest.mark.slow
def test_resume_of_a_networked_game_acts_only_for_this_machines_seat(home, tmp_path):
    host = tmp_path / "host"
    create_game(host, ["red", "blue"], STANDARD_BOARD, seed="n", game_id="n1")
    args = build_parser().parse_args(
        ["play", "--remote", str(host), "--game", "n1", "--as", "blue"]
    )
    game = play.start(args)
    assert game.networked and game.seats.humans == ("blue",)
    assert game.repo == home / "games" / "n1-blue"
    again = play.resume_game(build_parser().parse_args(["play", "--resume", str(game.repo)]))
    assert again.networked and again.session.local_players == ("blue",)


@pytest.mark.slow
def test_resume_a_game_made_by_new_remote_plays_the_seat_kept_here(home, tmp_path, capsys):
    remote, host = tmp_path / "remote.git", tmp_path / "host"
    init_repo(remote, bare=True)
    new = ["new", "--players", "red,blue", "--repo", str(host), "--game", "h1"]
    assert main([*new, "--remote", str(remote), "--as", "red"]) == 0
    game = play.resume_game(build_parser().parse_args(["play", "--resume", str(host)]))
    assert game.networked and game.seats.humans == ("red",) and not game.seats.bots
    assert game.session.local_players == ("red",)
