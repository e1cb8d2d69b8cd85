"""Single writers enforced by a real access-controlled Git server, not by a hook of ours.

Gitolite (Debian's ``gitolite3``) serves ssh on 127.0.0.1 with one key per player, as a
forge's permissions would: either every seat owns a repository of its own that the
others may read (its publication point), or one repository where each key may write
only its own refs. The peers play through it, and a player's attempt to write another's
place is refused by the server itself. Skipped where gitolite or sshd is not installed.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from gitgames import git, settle
from remotes import Gitolite, ServerUnavailable, gitolite

from catan_p2p.bots import make_bot
from catan_p2p.net import transport
from catan_p2p.net.driver import play_round_robin
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game, join_game
from catan_p2p.store.repo import init_repo

pytestmark = [pytest.mark.network, pytest.mark.slow]

PLAYERS = ("red", "blue")
#: Actions the peers play through the server: the set-up (8), a roll and one move. Each
#: sync is ssh and a gitolite process per repository it reaches, so a longer game pays
#: for more of the same (20 actions: 33 s of CPU for the module, 10: 23 s).
ACTIONS = 10

OWN_REPOSITORIES = "".join(f"repo catan-{p}\n    RW+ = {p}\n    R = @all\n" for p in PLAYERS)
OWN_REFS = (
    "repo catan-table\n"
    + "".join(
        f"    RW+ refs/heads/catan/[a-z0-9_-]+/{p}$ = {p}\n"
        f"    RW+ refs/heads/catan/[a-z0-9_-]+/[a-z]+/[0-9a-f]+/{p}$ = {p}\n"
        f"    RW+ refs/catan-chat/[a-z0-9_-]+/{p}$ = {p}\n"
        for p in PLAYERS
    )
    + "    R = @all\n"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Gitolite]:
    """One gitolite for the module with both rule sets (each test its own repositories),
    or the tests skipped where it cannot run here: its keys, set-up and sshd cost more
    than a game through it."""
    workdir = tmp_path_factory.mktemp("gitolite")
    with ExitStack() as stack:
        try:
            served = stack.enter_context(
                gitolite(workdir, PLAYERS, OWN_REPOSITORIES + OWN_REFS, shared_connection=True)
            )
        except ServerUnavailable as exc:  # pragma: no cover - depends on the machine
            pytest.skip(str(exc))
        yield served


def _clone(tmp_path: Path, player: str, server) -> Path:  # type: ignore[no-untyped-def]
    """A player's own repository, whose Git speaks ssh with that player's key only."""
    path = tmp_path / player
    init_repo(path)
    git("config", "core.sshCommand", server.ssh_command(player), cwd=path)
    return path


def _device(path: Path, server) -> Path:  # type: ignore[no-untyped-def]
    """Another device of Red's (Red's key)."""
    init_repo(path)
    git("config", "core.sshCommand", server.ssh_command("red"), cwd=path)
    return path


def _play(sessions: dict[str, GitSession], actions: int) -> None:
    bots = {p: make_bot("random", f"gl/{p}") for p in sessions}
    play_round_robin(sessions, bots, actions)
    settle(sessions)


def _push_as(server, player: str, clone: Path, spec: str, url: str):  # type: ignore[no-untyped-def]
    return subprocess.run(
        ["git", "-c", f"core.sshCommand={server.ssh_command(player)}", "push", url, spec],
        cwd=clone, capture_output=True, text=True,
    )  # fmt: skip


def test_each_seat_publishes_to_a_repository_only_it_can_write(tmp_path: Path, server):
    urls = {p: server.url(f"catan-{p}") for p in PLAYERS}
    red_path = _clone(tmp_path, "red", server)
    create_game(red_path, list(PLAYERS), seed="gl", game_id="g", local=("red",),
                publish_url=urls["red"])  # fmt: skip
    red = GitSession(red_path, "g", ("red",))
    red.add_point("blue", urls["blue"])
    red.sync()
    blue_path = _clone(tmp_path, "blue", server)
    blue = join_game(urls["red"], blue_path, "g", "blue", publish_url=urls["blue"])
    sessions = {"red": red, "blue": blue}
    settle(sessions)
    assert not red.state.lobby_open
    _play(sessions, ACTIONS)
    assert red.head == blue.head
    # Each point holds its owner's refs only; Blue cannot write Red's point at all.
    for p in PLAYERS:
        names = git("for-each-ref", "--format=%(refname)", cwd=server.path(f"catan-{p}"))
        assert names.split() and all(n.endswith(f"/{p}") for n in names.split())
    before = git("rev-parse", "refs/heads/catan/g/red", cwd=server.path("catan-red"))
    pushed = _push_as(server, "blue", blue_path, f"+{blue.genesis}:refs/heads/catan/g/red",
                      urls["red"])  # fmt: skip
    assert pushed.returncode != 0 and "DENIED" in pushed.stderr, pushed.stderr
    assert git("rev-parse", "refs/heads/catan/g/red", cwd=server.path("catan-red")) == before


def test_one_repository_where_each_key_writes_only_its_own_refs(tmp_path: Path, server):
    url = server.url("catan-table")
    red_path = _clone(tmp_path, "red", server)
    create_game(red_path, list(PLAYERS), seed="gl1", game_id="g", local=("red",))
    transport.set_remote(red_path / ".git", url)
    red = GitSession(red_path, "g", ("red",))
    red.sync()
    blue = join_game(url, _clone(tmp_path, "blue", server), "g", "blue")
    sessions = {"red": red, "blue": blue}
    _play(sessions, ACTIONS)
    assert red.head == blue.head
    bare = server.path("catan-table")
    before = git("rev-parse", "refs/heads/catan/g/red", cwd=bare)
    # Blue's key may not move Red's log, nor put junk under Red's name or the game's.
    for spec in (f"+{blue.genesis}:refs/heads/catan/g/red",
                 f"{blue.head}:refs/heads/catan/g/junk",
                 f"{blue.head}:refs/heads/catan/g/steal/{'0' * 40}/red"):  # fmt: skip
        pushed = _push_as(server, "blue", tmp_path / "blue", spec, url)
        assert pushed.returncode != 0 and "DENIED" in pushed.stderr, (spec, pushed.stderr)
    assert git("rev-parse", "refs/heads/catan/g/red", cwd=bare) == before
    assert red.sync().error is None and blue.sync().error is None


def test_a_seat_that_puts_a_second_game_on_its_own_log_cannot_pass_it_for_the_game(
    tmp_path: Path, server
):
    """Where each key writes only its own refs, Blue replaces its own log with a second
    game of the same id that names Blue as its creator. No device can tell from the
    remote which of the two is the game (each is led to by its creator's own log), and
    README said such a server made `--start` unnecessary. A join by the id alone now
    refuses in one sentence naming each start and whose log leads to it, never takes
    Blue's game, and README says exactly when `--start` is needed; with it, the join
    takes the real game."""
    from catan_p2p.errors import VerificationError

    url = server.url("catan-table")
    red_path = _clone(tmp_path, "red", server)
    create_game(red_path, list(PLAYERS), seed="gl2", game_id="g", local=("red",))
    transport.set_remote(red_path / ".git", url)
    red = GitSession(red_path, "g", ("red",))
    red.sync()
    blue = join_game(url, _clone(tmp_path, "blue", server), "g", "blue")
    settle({"red": red, "blue": blue})
    real = red.genesis
    evil = tmp_path / "evil"
    create_game(evil, ["blue", "red"], seed="evil", game_id="g")
    pushed = _push_as(server, "blue", evil, "+refs/heads/catan/g/blue:refs/heads/catan/g/blue", url)
    assert pushed.returncode == 0, pushed.stderr
    laptop, phone = _device(tmp_path / "laptop", server), _device(tmp_path / "phone", server)
    with pytest.raises(VerificationError) as refused:
        join_game(url, laptop, "g", "red")
    said = str(refused.value)
    assert f"{real[:10]} (the log of Red)" in said and "(the log of Blue)" in said, said
    assert "--start" in said and len(said) <= 300 and "\n" not in said
    spare = join_game(url, phone, "g", "red", start=real)
    assert spare.genesis == real
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "makes even that\nunnecessary" not in readme
    assert "`--start` is needed exactly when" in readme
