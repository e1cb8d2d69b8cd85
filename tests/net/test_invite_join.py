"""From `new`'s invitation alone a friend joins; a claimed seat is never listed as open
nor joined, in every layout; a hostile invitation is refused before anything is fetched.

Each player is a `catan-p2p` process of its own with a fresh HOME and CATAN_P2P_HOME (as
on two machines), over bare repositories on disk: a shared remote, a publication point
per seat, or both.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gitgames import CLI, git, settle

from catan_p2p.bots import make_bot
from catan_p2p.net.driver import play_round_robin
from catan_p2p.protocol.invite import Invite, format_invite, parse_invite
from catan_p2p.session.git import GitSession

pytestmark = [pytest.mark.network, pytest.mark.slow]

LAYOUTS = ("shared", "points", "both")


def run(home: Path, *args: str, cwd: Path | None = None, stdin: str | None = None):  # type: ignore[no-untyped-def]
    """``catan-p2p ARGS`` as the person whose HOME is ``home`` (nothing of the tests')."""
    import subprocess

    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "CATAN_P2P_HOME": str(home / ".catan_p2p")}
    return subprocess.run(
        [*CLI, *args], cwd=cwd or home, capture_output=True, text=True, timeout=120, env=env,
        input=stdin if stdin is not None else "",
    )  # fmt: skip


def _bare(path: Path) -> str:
    git("init", "-q", "--bare", str(path))
    return str(path)


def _new(tmp_path: Path, layout: str, players: str = "red,blue,white") -> tuple[str, Path]:
    """Red makes a game in ``layout`` with ``new`` (its repository made with --repo, as
    README's recipes do); the invitation it printed and Red's repository."""
    where = []
    if layout in ("shared", "both"):
        where += ["--remote", _bare(tmp_path / "shared.git")]
    if layout in ("points", "both"):
        where += ["--publish", _bare(tmp_path / "red.git")]
        where += ["--peer", f"blue={_bare(tmp_path / 'blue.git')}"]
    made = run(tmp_path / "red", "new", "--players", players, "--repo", "game", *where, "--json")
    assert made.returncode == 0, made.stderr
    invite = json.loads(made.stdout)["invite"]
    assert invite and invite.startswith("catan-p2p:1:")
    return invite, tmp_path / "red" / "game"


def _session(home: Path, repo: Path, seat: str) -> GitSession:
    """``seat``'s session in ``repo``, with the key its person's home holds."""
    old = os.environ["CATAN_P2P_HOME"]
    os.environ["CATAN_P2P_HOME"] = str(home / ".catan_p2p")
    try:
        return GitSession(repo, None, (seat,))
    finally:
        os.environ["CATAN_P2P_HOME"] = old


def test_from_news_invitation_alone_a_second_home_joins_and_plays(tmp_path: Path):
    invite, red_repo = _new(tmp_path, "points", "red,blue")
    told = parse_invite(invite)
    assert told.points == {"red": str(tmp_path / "red.git"), "blue": str(tmp_path / "blue.git")}
    assert told.seat == "blue" and told.remote is None
    friend = tmp_path / "friend"
    (friend / "play").mkdir(parents=True)
    joined = run(friend, "join", invite, cwd=friend / "play")  # nothing else: no flag at all
    assert joined.returncode == 0, joined.stderr
    assert "Joined game" in joined.stdout and "as blue" in joined.stdout
    sessions = {
        "red": _session(tmp_path / "red", red_repo, "red"),
        "blue": _session(friend, friend / "play", "blue"),
    }
    settle(sessions)
    assert not sessions["red"].state.lobby_open  # Red merged Blue's claim, read at its point
    bots = {p: make_bot("random", f"invite/{p}") for p in sessions}
    play_round_robin(sessions, bots, 12)  # the whole set-up, each reading the other's point
    settle(sessions)
    assert sessions["red"].head == sessions["blue"].head
    assert sessions["red"].state.turn >= 1
    for s in sessions.values():
        s.close()
    # both homes know the game wherever it lives (the lobby and `games` list it)
    for home, repo in ((tmp_path / "red", red_repo), (friend, friend / "play")):
        listed = run(home, "games", "--json")
        assert [g["path"] for g in json.loads(listed.stdout)["games"]] == [str(repo.resolve())]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_claimed_seat_is_neither_listed_open_nor_joined(tmp_path: Path, layout: str):
    invite, red_repo = _new(tmp_path, layout)
    blue = run(tmp_path / "blue", "join", invite, "--as", "blue", "--repo", "game")
    assert blue.returncode == 0, blue.stderr
    listed = run(tmp_path / "x", "games", invite, "--json")
    assert json.loads(listed.stdout)["games"][0]["open_seats"] == ["white"]
    if layout != "points":  # the shared remote holds every claim
        shared = run(tmp_path / "x", "games", str(tmp_path / "shared.git"), "--json")
        assert json.loads(shared.stdout)["games"][0]["open_seats"] == ["white"]
    extra = ["--publish", _bare(tmp_path / "x.git")] if layout == "points" else []
    again = run(tmp_path / "x", "join", invite, "--as", "blue", "--repo", "game", *extra)
    assert again.returncode == 1
    assert again.stderr.strip().splitlines() == [
        f"catan-p2p join: Blue's seat in game {parse_invite(invite).game} is claimed already "
        "(open seats: White); take an open one with --as COLOUR"
    ]
    assert not (tmp_path / "x" / "game").exists()  # nothing left behind
    # White's seat is still open, and is taken
    white = run(tmp_path / "white", "join", invite, "--as", "white", "--repo", "game", *(
        ["--publish", _bare(tmp_path / "white.git")] if layout == "points" else []))  # fmt: skip
    assert white.returncode == 0, white.stderr


def test_a_seat_merged_in_the_creators_log_is_refused_at_its_point(tmp_path: Path):
    """The report's case: `join` from the creator's point took a seat already claimed
    (rc 0) and every later sync of that copy failed. Once the creator has merged the
    claims, its log says so, and the join is refused."""
    invite, red_repo = _new(tmp_path, "points", "red,blue")
    assert run(tmp_path / "blue", "join", invite, "--repo", "game").returncode == 0
    assert run(tmp_path / "red", "sync", "--repo", str(red_repo)).returncode == 0
    listed = run(tmp_path / "x", "games", str(tmp_path / "red.git"), "--json")
    assert json.loads(listed.stdout)["games"][0]["open_seats"] == []
    game = parse_invite(invite).game
    again = run(tmp_path / "x", "join", str(tmp_path / "red.git"), "--as", "blue", "--game",
                game, "--repo", "game", "--publish", _bare(tmp_path / "x.git"))  # fmt: skip
    assert again.returncode == 1
    assert again.stderr.strip() == (
        f"catan-p2p join: Blue's seat in game {game} is claimed already and no seat is "
        "open; watch the game with `catan-p2p watch`"
    )
    assert not (tmp_path / "x" / "game").exists()
    unnamed = run(tmp_path / "x", "join", str(tmp_path / "red.git"), "--as", "blue")
    assert unnamed.returncode == 1 and "holds no game with Blue's seat open" in unnamed.stderr


def test_with_several_open_seats_and_nobody_to_ask_join_names_them_and_the_flag(tmp_path: Path):
    invite, _ = _new(tmp_path, "shared", "red,blue,white")
    assert parse_invite(invite).seat is None
    asked = run(tmp_path / "x", "join", invite, "--repo", "game")
    assert asked.returncode == 1
    game = parse_invite(invite).game
    assert asked.stderr.strip() == (
        f"catan-p2p join: game {game} has open seats Blue, White; pick one with --as COLOUR"
    )
    assert not (tmp_path / "x" / "game").exists()


def _forged(tmp_path: Path, fields: dict) -> str:
    """An invitation with ``fields`` replaced (None: left out), as a hostile one would be."""
    import base64

    good = {"game": "g", "start": "0" * 40, "by": "red", "remote": str(tmp_path / "r.git")}
    data = {k: v for k, v in {**good, **fields}.items() if v is not None}
    text = json.dumps(data).replace("{marker}", str(tmp_path / "pwned"))
    return "catan-p2p:1:" + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"remote": "ext::sh -c touch% {marker}"}, "remote ext::sh -c"),
        ({"remote": "ssh://-oProxyCommand=touch%20{marker}/x"}, "is refused: it is no Git URL"),
        ({"remote": "--upload-pack=touch {marker}"}, "is refused: it is no Git URL"),
        ({"remote": None, "points": {"red": "ext::sh -c touch% {marker}"}}, "point of red"),
        ({"game": "../../etc"}, "game id"),
        ({"upload_pack": "touch {marker}"}, "does not know"),
    ],
)
def test_a_hostile_invitation_runs_nothing_and_is_refused_in_one_sentence(
    tmp_path: Path, fields: dict, says: str
):
    text = _forged(tmp_path, fields)
    for command in (["join", text, "--as", "blue", "--repo", "game"], ["games", text]):
        refused = run(tmp_path / "x", *command)
        assert refused.returncode != 0
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0], refused.stderr
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "x" / "game").exists()


def test_an_invitation_names_the_places_new_was_told(tmp_path: Path):
    invite, _ = _new(tmp_path, "both")
    told = parse_invite(invite)
    assert told == Invite(
        told.game, told.start, "red", remote=str(tmp_path / "shared.git"),
        points={"red": str(tmp_path / "red.git"), "blue": str(tmp_path / "blue.git")},
    )  # fmt: skip
    assert format_invite(told) == invite
