"""What a new player tripped over at the command line (issue 24), each fixed and held here.

Every test drives ``catan_p2p.cli.main`` over real Git repositories, as a user types.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from catan_p2p.cli import build_parser, main
from catan_p2p.commands import bot as bot_command
from catan_p2p.net.driver import Driver
from catan_p2p.rules.state import Phase
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_sentence(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def shared(capsys, tmp_path: Path, players: str = "red,blue,white") -> Path:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    code, _, err = run(
        capsys, "new", "--players", players, "--repo", str(tmp_path / "red"),
        "--remote", str(remote), "--game", "friday",
    )  # fmt: skip
    assert code == 0, err
    return remote


def test_play_with_too_many_humans_says_how_many_seats_a_game_has(capsys):
    code, _, err = run(capsys, "play", "--humans", "7")
    sentence = one_sentence(err)
    assert code == 1 and "2 to 6 seats" in sentence and "negative" not in sentence


@pytest.mark.slow
def test_new_with_an_unreachable_remote_creates_nothing(capsys, tmp_path):
    repo = tmp_path / "game"
    code, out, err = run(
        capsys, "new", "--players", "red,blue", "--repo", str(repo), "--remote", "notaurl://x/y"
    )
    assert code == 1 and "Created game" not in out
    assert "nothing was created" in one_sentence(err)
    assert not repo.exists()


def test_keys_mine_refuses_a_colour_no_game_has(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CATAN_P2P_HOME", str(tmp_path / "home"))
    code, out, err = run(capsys, "keys", "--mine", "purple", "--repo", str(tmp_path))
    assert code == 1 and "no seat colour" in one_sentence(err)
    assert not (tmp_path / "home" / "keys" / "purple").exists()
    code, out, err = run(capsys, "keys", "--mine", "red", "--repo", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["key"].startswith("ssh-ed25519 ")


@pytest.mark.slow
@pytest.mark.parametrize("command", ["join", "new"])
def test_a_folder_of_other_files_never_becomes_a_game(capsys, tmp_path, command):
    remote = shared(capsys, tmp_path)
    folder = tmp_path / "thesis"
    folder.mkdir()
    (folder / "chapter1.tex").write_text("\\section{Intro}\n")
    if command == "join":
        argv = ["join", str(remote), "--game", "friday", "--as", "blue", "--repo", str(folder)]
    else:
        argv = ["new", "--players", "red,blue", "--repo", str(folder)]
    code, _, err = run(capsys, *argv)
    assert code == 1 and "not a Git repository" in one_sentence(err)
    assert sorted(p.name for p in folder.iterdir()) == ["chapter1.tex"]


def test_board_takes_board_as_play_does(capsys):
    args = build_parser().parse_args(["board", "--board", "balanced"])
    assert args.kind == "balanced"
    args = build_parser().parse_args(["board", "--kind", "random"])
    assert args.kind == "random"


@pytest.mark.slow
def test_join_says_who_still_has_to_join_in_words(capsys, tmp_path):
    remote = shared(capsys, tmp_path, "red,blue,white,orange")
    code, out, err = run(
        capsys, "join", str(remote), "--game", "friday", "--as", "blue",
        "--repo", str(tmp_path / "blue"),
    )  # fmt: skip
    assert code == 0, err
    assert "once White and Orange join" in out
    code, out, err = run(
        capsys, "join", str(remote), "--game", "friday", "--as", "white",
        "--repo", str(tmp_path / "white"), "--json",
    )  # fmt: skip
    joined = json.loads(out)
    assert joined["player"] == "white" and joined["open_seats"] == ["orange"]


@pytest.mark.slow
def test_join_without_a_game_id_takes_the_one_game_with_the_seat_open(capsys, tmp_path):
    remote = shared(capsys, tmp_path)
    code, out, err = run(
        capsys, "join", str(remote), "--as", "blue", "--repo", str(tmp_path / "blue"), "--json"
    )
    assert code == 0, err
    assert json.loads(out)["game"] == "friday"
    # Blue's seat is taken now: nothing to guess, and nothing is left behind.
    code, _, err = run(capsys, "join", str(remote), "--as", "blue", "--repo", str(tmp_path / "b2"))
    assert code == 1 and "no game with Blue's seat open" in one_sentence(err)
    assert not (tmp_path / "b2").exists()
    # Two games with White's seat open: the join names them and asks which.
    code, _, err = run(
        capsys, "new", "--players", "red,white", "--repo", str(tmp_path / "red2"),
        "--remote", str(remote), "--game", "saturday",
    )  # fmt: skip
    assert code == 0, err
    code, _, err = run(capsys, "join", str(remote), "--as", "white", "--repo", str(tmp_path / "w"))
    sentence = one_sentence(err)
    assert code == 1 and "friday, saturday" in sentence and "--game ID" in sentence


@pytest.mark.slow
def test_a_failed_join_gives_its_advice_once(capsys, tmp_path):
    code, _, err = run(
        capsys, "join", str(tmp_path / "gone.git"), "--game", "g", "--as", "blue",
        "--repo", str(tmp_path / "blue"),
    )  # fmt: skip
    sentence = one_sentence(err)
    assert code == 1 and sentence.count("reachable") == 1


@pytest.mark.slow
def test_verify_counts_one_merge_in_the_singular(capsys, tmp_path):
    repo = tmp_path / "g"
    code, _, err = run(capsys, "new", "--players", "red,blue", "--repo", str(repo))
    assert code == 0, err
    code, out, _ = run(capsys, "verify", "--repo", str(repo))
    assert code == 0 and "1 merge that collects" in out and "1 merges" not in out


@pytest.mark.slow
def test_new_join_host_and_abandon_speak_json(capsys, tmp_path):
    code, out, _ = run(capsys, "host", "init", str(tmp_path / "guarded.git"), "--json")
    assert code == 0 and json.loads(out)["remote"].endswith("guarded.git")
    code, out, _ = run(
        capsys, "new", "--players", "red,blue", "--repo", str(tmp_path / "g"),
        "--game", "solo", "--json",
    )  # fmt: skip
    made = json.loads(out)
    assert code == 0 and made["game"] == "solo" and made["players"] == ["red", "blue"]
    code, out, err = run(capsys, "abandon", "--repo", str(tmp_path / "g"), "--json")
    assert code == 1 and "no timeout" in one_sentence(err)
    for command in ("new", "join", "bot", "abandon", "replay", "host", "games"):
        options = build_parser(command).parse_args(_minimal(command) + ["--json"])
        assert options.json, command


def _minimal(command: str) -> list[str]:
    return {
        "new": ["new", "--players", "red,blue"],
        "join": ["join", "URL", "--game", "g", "--as", "blue"],
        "bot": ["bot", "--as", "red"],
        "abandon": ["abandon"],
        "replay": ["replay", "PATH"],
        "host": ["host", "init", "PATH"],
        "games": ["games"],
    }[command]


@pytest.mark.slow
def test_new_names_the_games_start_and_join_takes_it(capsys, tmp_path):
    """``new`` prints the game's first commit in the join it tells the others to run (and
    ``--json`` gives it): a second game of the same id on the remote cannot pass for it."""
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    code, out, err = run(
        capsys, "new", "--players", "red,blue", "--repo", str(tmp_path / "red"),
        "--remote", str(remote), "--game", "friday",
    )  # fmt: skip
    assert code == 0, err
    start = git("-C", str(tmp_path / "red"), "rev-list", "--max-parents=0",
                "refs/heads/catan/friday/red").strip()  # fmt: skip
    assert f"catan-p2p join {remote} --game friday --start {start} --as <colour>" in out
    code, out, err = run(
        capsys, "join", str(remote), "--game", "friday", "--start", start.upper(),
        "--as", "blue", "--repo", str(tmp_path / "blue"),
    )  # fmt: skip
    assert code == 0, err
    code, out, err = run(
        capsys, "new", "--players", "red,blue", "--repo", str(tmp_path / "solo"), "--json"
    )
    assert code == 0 and len(json.loads(out)["start"]) == 40


@pytest.mark.parametrize("start", ["abc", "z" * 16, "0123456789abcdef0"[:15], "a" * 41])
def test_join_and_watch_with_a_start_that_is_no_commit_id_are_refused_first(
    capsys, tmp_path, start
):
    for command in (["join", "--as", "blue"], ["watch"]):
        code, out, err = run(
            capsys, command[0], str(tmp_path / "remote.git"), "--game", "g", "--start", start,
            *command[1:], "--repo", str(tmp_path / "mine"),
        )  # fmt: skip
        assert code == 1, command
        assert "--start" in one_sentence(err) and "16 hex digits" in err
        assert not (tmp_path / "mine").exists()


@pytest.mark.slow
def test_a_bot_refuses_a_seat_held_in_another_repository(capsys, tmp_path):
    remote = shared(capsys, tmp_path)
    code, _, err = run(
        capsys, "join", str(remote), "--game", "friday", "--as", "blue",
        "--repo", str(tmp_path / "blue"),
    )  # fmt: skip
    assert code == 0, err
    code, _, err = run(capsys, "bot", "--as", "red", "--repo", str(tmp_path / "blue"))
    sentence = one_sentence(err)
    assert code == 1 and "holds Blue of game friday, not Red" in sentence
    assert git("-C", str(tmp_path / "blue"), "for-each-ref", "--format=%(refname)",
               "refs/heads/catan/friday/red") == ""  # fmt: skip


@pytest.mark.slow
def test_a_networked_bots_offer_stays_open_as_long_as_the_game_waits(tmp_path):
    """A bot's offer is not closed after a few seconds: it waits like any move does."""
    for timeout, wait in ((0, None), (3600, 3600.0)):
        repo = tmp_path / f"t{timeout}"
        create_game(repo, ["red", "blue"], seed="offer", game_id="o", timeout=timeout)
        session = GitSession(repo, "o", ("red",))
        assert bot_command.answer_wait(session) == wait
        now = [0.0]
        driver = Driver(session, {"red": object()}, trade_wait=wait, clock=lambda now=now: now[0])
        state = _with_open_offer(session.state)
        assert driver.to_act(state) == []  # the offer just opened: answers first
        now[0] = 600.0  # ten minutes without an answer from Blue, a person
        assert driver.to_act(state) == [], "the offer must still wait for Blue"
        if wait is not None:
            now[0] = wait + 1
            assert driver.to_act(state) == ["red"]
        session.close()


def _with_open_offer(state):  # type: ignore[no-untyped-def]
    from catan_p2p.rules.state import Answer, TradeOffer

    answers = tuple(Answer.PENDING for _ in state.players)
    trade = TradeOffer((1, 0, 0, 0, 0), (0, 1, 0, 0, 0), answers)
    return state._replace(phase=Phase.TRADE, current=0, trade=trade, seats=("k", "k"))


def test_ctrl_c_says_only_what_the_command_keeps(capsys, monkeypatch):
    from catan_p2p.commands import replay

    def interrupted(args):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(replay, "run", interrupted)
    code, _, err = run(capsys, "replay", "x", "--export", "frames")
    assert code == 130 and "saved" not in err and "no GIF was made" in err


_RAW_PLACE = r"\(-?\d+,-?\d+(\|-?\d+,-?\d+)*\)"


@pytest.mark.slow
def test_show_and_bisect_name_places_as_players_do(capsys, tmp_path):
    import re

    from catan_p2p.bots import make_bot

    create_game(tmp_path / "g", ["red", "blue"], seed="words", game_id="w")
    session = GitSession(tmp_path / "g", "w")
    Driver(session, {p: make_bot("random", p) for p in ("red", "blue")}).play(12)
    session.close()
    code, out, _ = run(capsys, "show", "--repo", str(tmp_path / "g"))
    assert code == 0 and "Robber: on the desert" in out
    assert not re.search(_RAW_PLACE, out), out
    code, out, _ = run(capsys, "bisect", "--when", "roads(red) >= 2", "--repo", str(tmp_path / "g"))
    assert code == 0 and "build road" in out and not re.search(_RAW_PLACE, out), out


@pytest.mark.slow
def test_the_log_says_how_many_cards_a_bank_trade_gave(capsys, tmp_path):
    """The subject (protocol) says 'trade brick for 1 lumber'; people read the count."""
    from catan_p2p.bots import make_bot
    from catan_p2p.rules.actions import MaritimeTrade
    from catan_p2p.rules.cards import Resource

    create_game(tmp_path / "g", ["red", "blue"], seed="bank", game_id="k")
    session = GitSession(tmp_path / "g", "k")
    driver = Driver(session, {p: make_bot("greedy", f"bank/{p}") for p in ("red", "blue")})
    while not any(isinstance(e.action, MaritimeTrade) for e in session.history()):
        assert driver.step() is not None and not session.state.is_over
    trade = next(e for e in session.history() if isinstance(e.action, MaritimeTrade))
    after = session.repo.state_of(trade.commit)[0]
    before = session.repo.state_of(session.repo.commit(trade.commit).parents[0])[0]
    seat = before.players.index(trade.author)
    gave = (
        before.hands[seat].resources[trade.action.give]
        - after.hands[seat].resources[trade.action.give]
    )
    session.close()
    code, out, _ = run(capsys, "log", "--repo", str(tmp_path / "g"))
    words = f"trade {gave} {Resource(trade.action.give).label} for 1"
    assert code == 0 and words in out, out
    assert f"trade {Resource(trade.action.give).label} for 1" in trade.summary  # unchanged
