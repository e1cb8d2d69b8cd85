"""Nobody can stop another player (protocol 6): restoring one's branch, junk that costs
nothing, a push that lands late, and games published at each seat's own point.

Real Git repositories and remotes (bare on disk) with in-process sessions: each session
is one peer with its own clone, as separate machines would be.
"""

from __future__ import annotations

import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from gitgames import git, settle, sign_commit
from remotes import KINDS, ServerUnavailable, serve

from catan_p2p.bots import make_bot
from catan_p2p.errors import UsageError, VerificationError
from catan_p2p.net import transport
from catan_p2p.net.driver import play_round_robin
from catan_p2p.protocol import publish
from catan_p2p.protocol.genesis import genesis_of
from catan_p2p.rules.actions import EndTurn
from catan_p2p.rules.waiting import actors
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game, join_game
from catan_p2p.session.watch import open_watch
from catan_p2p.store.refnames import player_ref

pytestmark = pytest.mark.network


def _shared(
    tmp_path: Path, players=("red", "blue", "white"), url: str | None = None
) -> dict[str, GitSession]:
    """A game on one plain remote (a forge: everyone may write every ref); a bare
    repository at ``tmp_path / "remote.git"``, reached at ``url`` (default: its path)."""
    remote = tmp_path / "remote.git"
    if not remote.exists():
        git("init", "-q", "--bare", str(remote))
    url = url or str(remote)
    first = tmp_path / players[0]
    create_game(first, list(players), seed="pub", game_id="g", local=(players[0],))
    transport.set_remote(first / ".git", url)
    sessions = {players[0]: GitSession(first, "g", (players[0],))}
    sessions[players[0]].sync()
    for p in players[1:]:
        sessions[p] = join_game(url, tmp_path / p, "g", p)
    settle(sessions)
    return sessions


def _play(sessions: dict[str, GitSession], actions: int) -> None:
    bots = {p: make_bot("random", f"pub/{p}") for p in sessions}
    play_round_robin(sessions, bots, actions)


def _remote_ref(remote: Path, player: str) -> str:
    return git("rev-parse", f"refs/heads/catan/g/{player}", cwd=remote).strip()


# --- a push that lands late (the CI failure of test_transports[daemon-hook]) ------------


def test_an_own_push_that_lands_after_the_next_fetch_does_not_fail_the_sync(
    tmp_path: Path, monkeypatch
):
    """A push whose process was stopped may still land: the remote runs it to the end
    (its hook included) after the client is gone. The next sync, in a new process, saw
    the old value at its fetch, so its own push of the same commit met a moved ref and
    failed with "the remote holds a different history" (a red CI run). Now the lease on
    the value seen fails, the peer fetches again, sees its own commit and is done."""
    sessions = _shared(tmp_path, ("red", "blue"))
    remote = tmp_path / "remote.git"
    red = sessions["red"]
    _play(sessions, 12)
    settle(sessions)
    while "red" not in actors(red.state):
        _play(sessions, 1)
        settle(sessions)
    red.close()
    # Red moves in a process that is stopped before its push is answered ...
    quiet = GitSession(tmp_path / "red", "g", ("red",), eager_push=False)
    quiet.remote = None  # as if the push never left
    quiet.submit(make_bot("random", "late").decide(quiet.view("red"), quiet.legal_actions("red")))
    late = quiet.head
    quiet.close()
    assert _remote_ref(remote, "red") != late
    # ... and the next process's fetch sees the old value, then the late push lands.
    real_fetch = transport.fetch

    def fetch_then_the_late_push_lands(*args, **kwargs):
        got = real_fetch(*args, **kwargs)
        git("push", "-q", str(remote), f"{late}:refs/heads/catan/g/red", cwd=tmp_path / "red")
        return got

    monkeypatch.setattr(transport, "fetch", fetch_then_the_late_push_lands)
    again = GitSession(tmp_path / "red", "g", ("red",))
    status = again.sync()
    monkeypatch.setattr(transport, "fetch", real_fetch)
    assert status.error is None, status.error
    assert _remote_ref(remote, "red") == late
    sessions["red"] = again
    settle(sessions)
    assert sessions["blue"].head == late or sessions["blue"].repo.is_ancestor(
        late, sessions["blue"].head
    )


# --- a jammed branch is restored ---------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_forged_descendant_on_a_players_branch_does_not_block_that_player(
    tmp_path: Path, kind: str, monkeypatch
):
    """Blue force-pushes a commit signed by Blue, authored Red, onto Red's branch on the
    shared remote. Before, Red's pushes failed for ever ("the remote holds a different
    history") and nobody saw Red's moves. Now Red's next sync restores its branch with a
    lease on the forged value, and Red's next move shows at every peer after one sync.
    Over every transport: a path, git daemon, ssh and smart HTTP on 127.0.0.1."""
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    with ExitStack() as stack:
        try:
            served = stack.enter_context(
                serve(kind, remote, tmp_path / "server", shared_connection=True)
            )
        except ServerUnavailable as exc:
            pytest.skip(f"no {kind}:// remote on this machine: {exc}")
        for name, value in served.env.items():
            monkeypatch.setenv(name, value)
        _jammed_and_restored(tmp_path, remote, served.url)


def _jammed_and_restored(tmp_path: Path, remote: Path, url: str) -> None:
    sessions = _shared(tmp_path, url=url)
    _play(sessions, 12)  # the set-up: Red's branch holds every seat's moves
    settle(sessions)
    red, blue = sessions["red"], sessions["blue"]
    head = red.head
    tree = blue.repo.commit(head).tree
    forged = sign_commit(blue.repo, head, "red", EndTurn("red"), tree, blue.keys["blue"])
    git("push", "-q", "-f", url, f"{forged}:refs/heads/catan/g/red", cwd=tmp_path / "blue")
    assert _remote_ref(remote, "red") == forged
    status = red.sync()  # fetches the forgery, refuses it, restores its branch
    assert status.error is None, status.error
    assert forged in red.rejected
    assert _remote_ref(remote, "red") == red.head
    for other in (blue, sessions["white"]):  # one more sync: Red's line is everyone's
        assert other.sync().error is None
        assert other.repo.is_ancestor(red.head, other.head)
    _play(sessions, 6)
    settle(sessions)
    assert len({s.head for s in sessions.values()}) == 1
    assert git("fsck", "--no-dangling", cwd=tmp_path / "red") is not None


def test_a_rewound_or_deleted_branch_is_put_back(tmp_path: Path):
    """Someone rewinds Red's branch to the genesis, or deletes it: Red puts it back."""
    sessions = _shared(tmp_path, ("red", "blue"))
    remote = tmp_path / "remote.git"
    _play(sessions, 10)
    settle(sessions)
    red = sessions["red"]
    genesis = red.genesis
    git("update-ref", "refs/heads/catan/g/red", genesis, cwd=remote)
    red.sync()
    assert _remote_ref(remote, "red") == red.head != genesis
    git("update-ref", "-d", "refs/heads/catan/g/red", cwd=remote)
    assert red.sync().error is None
    assert _remote_ref(remote, "red") == red.head


# --- junk of any count --------------------------------------------------------------------


@pytest.mark.slow
def test_a_hundred_thousand_junk_refs_beside_the_game_cost_nothing(tmp_path: Path):
    """200,000 junk answer refs under a game's prefix made every sync time out and join
    fail. A peer now asks the remote only for the seats' logs and the open step, so the
    remote does not even list the junk."""
    sessions = _shared(tmp_path, ("red", "blue"))
    remote = tmp_path / "remote.git"
    head = _remote_ref(remote, "red")
    lines = [f"{head} refs/heads/catan/g/discard/{i:040x}/blue" for i in range(100_000)]
    lines += [f"{head} refs/heads/catan/g/junk{i:06d}" for i in range(20_000)]
    git("pack-refs", "--all", cwd=remote)
    packed = remote / "packed-refs"
    kept = packed.read_text().splitlines()
    body = sorted(
        [ln for ln in kept if ln and not ln.startswith("#")] + lines,
        key=lambda ln: ln.split(" ", 1)[1],
    )
    packed.write_text("# pack-refs with: peeled fully-peeled sorted \n" + "\n".join(body) + "\n")
    started = time.monotonic()
    for s in sessions.values():
        assert s.sync().error is None
    took = time.monotonic() - started
    left = git("for-each-ref", "--format=%(refname)", "refs/remotes", cwd=tmp_path / "red")
    assert "junk" not in left and "discard" not in left
    assert took < 60, took  # a bound for a busy machine; quiet it is about 0.1 s
    spare = join_game(str(remote), tmp_path / "blue-laptop", "g", "blue")
    assert spare.head == sessions["blue"].head


def test_a_log_of_no_seat_pointing_at_another_game_does_not_stop_join_or_sync(tmp_path: Path):
    """A ref named after no seat, pointing at the genesis of another game with the same
    id, made every sync report a fork, verify fail and a second device's join refuse."""
    sessions = _shared(tmp_path, ("red", "blue"))
    remote = tmp_path / "remote.git"
    other = tmp_path / "other"
    create_game(other, ["red", "blue"], seed="evil", game_id="g")
    oid = git("rev-parse", "refs/heads/catan/g/red", cwd=other).strip()
    git("push", "-q", str(remote), f"{oid}:refs/heads/catan/g/mallory", cwd=other)
    for s in sessions.values():
        status = s.sync()
        assert status.error is None and not status.forks, status
    spare = join_game(str(remote), tmp_path / "blue-laptop", "g", "blue")
    assert spare.genesis == sessions["red"].genesis


def test_watch_reads_the_start_the_seats_logs_lead_to(tmp_path: Path):
    """A spectator took the start of whichever log its repository listed first: a log of
    no seat (``aaa``) leading to another game of the same id, or to a commit of no game,
    could show a forged game or stop ``watch`` with a traceback, by the order of a
    directory listing. It now reads the start as ``join`` does; a second game whose
    creator's own log is there is refused in one sentence."""
    sessions = _shared(tmp_path, ("red", "blue"))
    remote = tmp_path / "remote.git"
    real = sessions["red"].genesis
    other = tmp_path / "other"
    create_game(other, ["red", "blue"], seed="evil", game_id="g")
    git("init", "-q", str(tmp_path / "x"))
    git("commit", "-q", "--allow-empty", "-m", "x", cwd=tmp_path / "x")
    fake = git("rev-parse", "refs/heads/catan/g/red", cwd=other).strip()
    git("push", "-q", str(remote), f"{fake}:refs/heads/catan/g/aaa", cwd=other)
    git("push", "-q", str(remote), "HEAD:refs/heads/catan/g/aab", cwd=tmp_path / "x")
    spectator = open_watch(str(remote), "g", tmp_path / "watch")
    for p in ("red", "blue"):
        assert genesis_of(spectator.repo, spectator.repo.refs.get(player_ref("g", p))) == real
    assert spectator.state.players == sessions["red"].state.players
    creator = tmp_path / "creator"
    create_game(creator, ["aaa", "blue"], seed="evil", game_id="g")
    forged = git("rev-parse", "refs/heads/catan/g/aaa", cwd=creator).strip()
    git("push", "-q", "-f", str(remote), f"{forged}:refs/heads/catan/g/aaa", cwd=creator)
    with pytest.raises(VerificationError, match="2 different starts of game g"):
        open_watch(str(remote), "g", tmp_path / "watch-2")


def test_a_second_game_of_the_same_id_cannot_pass_for_the_one_its_start_names(tmp_path: Path):
    """Whoever can write a shared remote can put a second game of the same id there, its
    creator's log included, and delete the real creator's log until that seat puts it
    back. A new device cannot tell the games apart by what the remote holds: its join
    refuses, or takes the only start whose creator's log is left. With the start the
    real creator printed (``--start``) it joins the real game either way."""
    sessions = _shared(tmp_path, ("red", "blue"))
    remote = tmp_path / "remote.git"
    real = sessions["red"].genesis
    evil = tmp_path / "evil"
    create_game(evil, ["white", "blue"], seed="evil", game_id="g")
    white = git("rev-parse", "refs/heads/catan/g/white", cwd=evil).strip()
    git("push", "-q", str(remote), f"{white}:refs/heads/catan/g/white", cwd=evil)
    with pytest.raises(VerificationError, match="pass it with --start"):
        join_game(str(remote), tmp_path / "b1", "g", "blue")
    spare = join_game(str(remote), tmp_path / "b2", "g", "blue", start=real[:16])
    assert spare.genesis == real and spare.head == sessions["blue"].head
    git("update-ref", "-d", "refs/heads/catan/g/red", cwd=remote)  # until Red puts it back
    spare = join_game(str(remote), tmp_path / "b3", "g", "blue", start=real)
    assert spare.genesis == real
    with pytest.raises(UsageError, match="holds no game g that starts at 0000000000"):
        join_game(str(remote), tmp_path / "b4", "g", "blue", start="0" * 40)
    watched = open_watch(str(remote), "g", tmp_path / "watch", start=real)
    assert genesis_of(watched.repo, watched.repo.refs.get(player_ref("g", "blue"))) == real
    # What --start is for: without it the new device joins the forged game, and its
    # sync even puts its own line in place of Blue's real one on the remote (until
    # Blue's other devices put it back).
    fooled = join_game(str(remote), tmp_path / "b5", "g", "blue")
    assert fooled.genesis != real


# --- publication points --------------------------------------------------------------------


def test_a_game_published_only_at_each_seats_own_point(tmp_path: Path):
    """No shared remote: each seat writes only its own repository and reads the others'.
    The creator is told where the others publish (a hint), every claim names its point,
    and the game is played and verified through the points alone."""
    points = {p: tmp_path / f"{p}.git" for p in ("red", "blue", "white")}
    for bare in points.values():
        git("init", "-q", "--bare", str(bare))
    red_repo = tmp_path / "red"
    create_game(
        red_repo,
        ["red", "blue", "white"],
        seed="pts",
        game_id="g",
        local=("red",),
        publish_url=str(points["red"]),
    )
    for p in ("blue", "white"):
        transport.set_config(red_repo / ".git", f"catan.point.{p}", str(points[p]))
    sessions = {"red": GitSession(red_repo, "g", ("red",))}
    sessions["red"].sync()
    for p in ("blue", "white"):
        sessions[p] = join_game(
            str(points["red"]), tmp_path / p, "g", p, publish_url=str(points[p])
        )
        assert transport.remote_url(tmp_path / p / ".git") is None  # read as Red's point
    settle(sessions)
    state = sessions["red"].state
    assert not state.lobby_open
    claimed = sessions["blue"].points()
    assert claimed == {p: str(u) for p, u in points.items()}
    _play(sessions, 20)  # the set-up (12) and some turns, each seat reading the others' points
    settle(sessions)
    assert len({s.head for s in sessions.values()}) == 1
    # Every point holds only its owner's refs.
    for p, bare in points.items():
        names = git("for-each-ref", "--format=%(refname)", cwd=bare).split()
        assert names and all(n.endswith(f"/{p}") for n in names), (p, names)
    assert publish.logs_to_read("g", publish.Source("seat-red", "u", "red"), ["red", "blue"]) == [
        player_ref("g", "red")
    ]


def test_keys_verify_and_refusals_are_not_stopped_by_what_others_push(tmp_path: Path, capsys):
    """While a forgery sat in Red's tracking ref, `keys --allowed-signers` failed; an
    answer branch under a name of no seat made `verify` exit 1; a 300-parent merge was
    refused with a 15,000-character line. Now the first two are ignored and every
    refusal is one line of at most 300 characters naming the commit."""
    from catan_p2p.cli import main
    from catan_p2p.protocol.message import merge_message

    sessions = _shared(tmp_path)
    remote = tmp_path / "remote.git"
    _play(sessions, 12)
    settle(sessions)
    red, blue, white = sessions["red"], sessions["blue"], sessions["white"]
    head = red.head
    tree = blue.repo.commit(head).tree
    forged = sign_commit(blue.repo, head, "red", EndTurn("red"), tree, blue.keys["blue"])
    parents = [head] + [
        sign_commit(blue.repo, head, "blue", EndTurn("blue"), tree, blue.keys["blue"], str(i))
        for i in range(299)
    ]
    wide = blue.repo.write_commit(
        tree, parents, "blue", merge_message("blue", "trade", ["red"] * 299, "g"), blue.keys["blue"]
    )
    answer = f"refs/heads/catan/g/trade/{head}/mallory"
    git("push", "-q", "-f", str(remote), f"{forged}:refs/heads/catan/g/red",
        f"{wide}:refs/heads/catan/g/blue", f"{head}:{answer}", cwd=tmp_path / "blue")  # fmt: skip
    status = white.sync()
    assert status.error is None
    assert forged in white.rejected and wide in white.rejected
    assert all(len(reason) <= 300 for reason in white.rejected.values()), white.rejected
    white.close()
    signers = tmp_path / "signers"
    capsys.readouterr()
    assert main(["keys", "--repo", str(tmp_path / "white"), "--allowed-signers", str(signers)]) == 0
    assert signers.read_text().count("ssh-ed25519") == 3
    assert main(["verify", "--repo", str(tmp_path / "red")]) == 0, capsys.readouterr()


@pytest.mark.slow
def test_the_hooks_refusal_of_a_300_parent_merge_is_one_short_line(tmp_path: Path):
    """`sync` refused a 300-parent merge in one line, but a guarded remote's hook named
    every parent: one line of 15,378 characters. Every refusal is now one line of at
    most 300 characters, the hook's included."""
    from catan_p2p.protocol.message import merge_message

    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    hook = remote / "hooks" / "pre-receive"
    tool = Path(__file__).resolve().parents[2] / "tools" / "pre_receive.py"
    hook.write_text(f"#!/bin/sh\nexec {sys.executable} {tool}\n")
    hook.chmod(0o755)
    sessions = _shared(tmp_path, ("red", "blue"))
    blue = sessions["blue"]
    _play(sessions, 12)
    while "blue" not in actors(blue.state):  # Blue's turn: Blue may merge
        _play(sessions, 1)
        settle(sessions)
    head = blue.head
    tree = blue.repo.commit(head).tree
    parents = [head] + [
        sign_commit(blue.repo, head, "blue", EndTurn("blue"), tree, blue.keys["blue"], str(i))
        for i in range(299)
    ]
    wide = blue.repo.write_commit(
        tree, parents, "blue", merge_message("blue", "trade", ["red"] * 299, "g"), blue.keys["blue"]
    )
    pushed = subprocess.run(
        ["git", "push", str(remote), f"{wide}:refs/heads/catan/g/blue"],
        cwd=tmp_path / "blue",
        capture_output=True,
        text=True,
    )
    assert pushed.returncode != 0
    said = [ln for ln in pushed.stderr.splitlines() if "catan-p2p:" in ln]
    assert said and all(len(ln.removeprefix("remote: ").rstrip()) <= 300 for ln in said), said


def test_a_claim_deleted_before_the_creator_fetched_it_is_put_back_by_its_owner(tmp_path: Path):
    """Someone deletes Blue's seat claim from a plain remote before Red, the creator,
    fetched it. Blue's sync still believed the remote held it (its copy of what the
    remote held was never let go), so it never pushed it again: after five rounds of
    every seat's sync the lobby was still open. A seat now re-publishes its claim
    wherever it is missing."""
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    players = ("red", "blue", "white")
    create_game(tmp_path / "red", list(players), seed="pub", game_id="g", local=("red",))
    transport.set_remote(tmp_path / "red" / ".git", str(remote))
    sessions = {"red": GitSession(tmp_path / "red", "g", ("red",))}
    sessions["red"].sync()
    sessions["blue"] = join_game(str(remote), tmp_path / "blue", "g", "blue")
    claim = f"refs/heads/catan/g/seat/{sessions['red'].genesis}/blue"
    assert git("for-each-ref", "--format=%(refname)", claim, cwd=remote).strip() == claim
    git("update-ref", "-d", claim, cwd=remote)
    sessions["white"] = join_game(str(remote), tmp_path / "white", "g", "white")
    for _ in range(5):
        for s in sessions.values():
            assert s.sync().error is None
        if not sessions["red"].state.lobby_open:
            break
    assert not sessions["red"].state.lobby_open


HOSTILE_POINTS = (
    "ext::sh -c touch% /tmp/pwned",
    "ext::sh",
    "ssh://-oProxyCommand=touch%20/tmp/pwned/x.git",
    "-oProxyCommand=x:y",
    "file:///home/blue/catan-blue",
    "/home/blue/catan-blue",  # another player's clone (not a bare repository's name)
    "/home/blue/catan-blue/.git",
    "/srv/../home/blue/x.git",
    "fd::17",
    "https://host/a%2e%2e/x",
    "relative/path.git",
)
HONEST_POINTS = (
    "https://github.com/blue/catan.git",
    "http://127.0.0.1:8080/blue",
    "ssh://git@example.org:2222/blue/catan.git",
    "git://127.0.0.1:9418/blue.git",
    "git@github.com:blue/catan.git",
    "/srv/catan/blue.git",
)


@pytest.mark.parametrize("url", HOSTILE_POINTS)
def test_a_claim_names_only_a_url_of_the_allowed_forms(tmp_path: Path, url: str):
    """A claim could name any printable URL (``ext::``, an ssh option as a host, the
    ``file://`` of another player's clone); only Git's own defaults stopped them. The
    forms PROTOCOL.md lists are now the only ones a claim may name: refused when
    claiming, when verifying a claim, and never fetched from when hinted."""
    from catan_p2p.errors import IllegalAction
    from catan_p2p.trust.seats import point_refusal

    assert point_refusal(url) is not None
    git("init", "-q", "--bare", str(tmp_path / "remote.git"))
    with pytest.raises(UsageError, match="publication point"):
        create_game(tmp_path / "red", ["red", "blue"], seed="p", game_id="g", publish_url=url)
    sessions = _shared(tmp_path, ("red", "blue"))
    blue = sessions["blue"]
    claim = blue.peers["blue"].claim_seat(url)  # as a dishonest peer would sign it
    with pytest.raises(IllegalAction, match="publication point"):
        from catan_p2p.trust.seats import claim_seat

        claim_seat(blue.state._replace(seats=("", "")), 1, claim)
    with pytest.raises(UsageError, match="publication point"):
        sessions["red"].add_point("blue", url)


def test_a_hello_nudge_names_only_a_point_of_the_allowed_forms():
    """A joiner's hello over UDP names its point, which the creator notes as a hint: a
    ``git://`` URL with a ``..`` part passed the nudge's own shape."""
    from catan_p2p.net import nudge

    assert nudge.is_nudgeable("git://127.0.0.1:9419/blue.git")
    assert not nudge.is_nudgeable("git://127.0.0.1:9419/../../home/red/catan")


@pytest.mark.parametrize("url", HONEST_POINTS)
def test_the_allowed_url_forms_are_taken(url: str):
    from catan_p2p.trust.seats import point_refusal

    assert point_refusal(url) is None


def test_a_point_that_never_answers_costs_no_sync_more_than_its_short_deadline(tmp_path: Path):
    """Blue's point accepts connections and never answers: every sync of every peer took
    about 34 s (Git's 30 s time-out) and exited 0 without naming the point. Each source
    now has its own short deadline: the sync reads the others, names the point in one
    sentence and leaves it to answer meanwhile (its Git stopped when the session ends)."""
    import socket
    import threading

    from catan_p2p.net.exchange import POINT_SECONDS

    sessions = _shared(tmp_path, ("red", "blue"))
    red = sessions["red"]
    started = time.monotonic()
    assert red.sync().error is None
    quiet = time.monotonic() - started
    held: list[socket.socket] = []
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(0.2)
        stop = threading.Event()

        def accept_and_say_nothing() -> None:
            while not stop.is_set():
                try:
                    held.append(server.accept()[0])
                except OSError:
                    continue

        threading.Thread(target=accept_and_say_nothing, daemon=True).start()
        url = f"git://127.0.0.1:{server.getsockname()[1]}/blue.git"
        red.add_point("blue", url)
        try:
            for first in (True, False, False):  # (measured: 2.0 s, then 0.001 s; 34 s before)
                started = time.monotonic()
                status = red.sync()
                took = time.monotonic() - started
                assert status.error is None
                assert took < (POINT_SECONDS if first else 0) + quiet + 3, (took, quiet)
                (said,) = status.points_down
                assert url in said and "Blue" in said and len(said) <= 300, said
        finally:
            red.close()
            stop.set()
            for conn in held:
                conn.close()
