"""Nudges (``net.nudge``): a served peer hears of a move at once; nobody else can make
it fetch, and a replayed nudge costs nothing.

The pure checks run on in-memory values; the served game is two real repositories on
this machine, each served by its own ``git daemon`` on 127.0.0.1, with the peer runtime
listening for nudges on the port's number.
"""

from __future__ import annotations

import json
import socket
import time

import pytest

from catan_p2p.net import nudge
from catan_p2p.protocol.signing import SeatKey

RED, BLUE = SeatKey.from_seed(b"r" * 32), SeatKey.from_seed(b"b" * 32)
HEAD = "a" * 40
POINT = "git://127.0.0.1:9419/blue"


def _signed(key: SeatKey, head: str = HEAD, point: str = POINT, game: str = "g") -> nudge.Nudge:
    sig = key.sign(nudge.payload(game, "blue", head, point))
    return nudge.Nudge(game, "blue", head, point, sig)


def test_a_nudge_round_trips_and_junk_is_dropped():
    n = _signed(BLUE)
    assert nudge.decode(nudge.encode(n)) == n
    data = json.loads(nudge.encode(n))
    for bad in (
        b"x" * (nudge.MAX_BYTES + 1),
        b"\xff\xfe",
        b"[]",
        json.dumps({**data, "v": 2}).encode(),
        json.dumps({**data, "game": "../etc"}).encode(),
        json.dumps({**data, "from": "Blue\x1b]0;pwned\x07"}).encode(),
        json.dumps({**data, "head": "HEAD"}).encode(),
        json.dumps({**data, "point": "ext::sh -c touch% /tmp/x"}).encode(),
        json.dumps({**data, "point": "git://h/../../etc"}).encode(),
        json.dumps({**data, "sig": 7}).encode(),
    ):
        assert nudge.decode(bad) is None, bad[:80]


def test_only_the_seats_own_key_makes_a_peer_fetch_and_only_for_a_new_head():
    keys = {"red": "", "blue": BLUE.public}
    known: set[str | None] = {None}
    assert nudge.worth_fetching(_signed(BLUE), ("red",), keys, known, {}) == nudge.MOVED
    forged = _signed(RED)  # anyone else's key, offline variants included
    assert nudge.worth_fetching(forged, ("red",), keys, known, {}) is None
    tampered = nudge.Nudge("g", "blue", "b" * 40, POINT, _signed(BLUE).sig)
    assert nudge.worth_fetching(tampered, ("red",), keys, known, {}) is None
    # a nudge replayed once its move is here starts no fetch (checked before any crypto)
    assert nudge.worth_fetching(_signed(BLUE), ("red",), keys, {HEAD}, {}) is None
    # one's own seat is never nudged by itself
    assert nudge.worth_fetching(_signed(BLUE), ("blue",), keys, known, {}) is None


def test_an_open_seats_hello_names_its_point_once_and_a_claimed_seat_needs_its_key():
    open_seat = {"red": RED.public, "blue": ""}
    hello = _signed(RED)  # no key of Blue yet: any signature, the point is all it says
    assert nudge.worth_fetching(hello, ("red",), open_seat, {HEAD}, {}) == nudge.HELLO
    assert nudge.worth_fetching(hello, ("red",), open_seat, set(), {"blue": POINT}) is None
    bare = nudge.Nudge("g", "blue", HEAD, "", "")
    assert nudge.worth_fetching(bare, ("red",), open_seat, set(), {}) is None


def test_nudges_go_to_the_other_seats_git_points_signed_by_each_local_seat():
    points = {"red": "git://10.0.0.1:9418/red", "blue": POINT, "white": "ssh://h/white.git"}
    out = nudge.outgoing("g", {"red": HEAD}, {"red": RED}, points, {}, [points["red"]])
    assert [to for _, to in out] == [("127.0.0.1", 9419)]
    sent = nudge.decode(out[0][0])
    assert sent is not None and sent.sender == "red" and sent.point == points["red"]
    keys = {"red": RED.public, "blue": BLUE.public}
    assert nudge.worth_fetching(sent, ("blue",), keys, set(), points) == nudge.MOVED


@pytest.mark.network
def test_a_served_peer_shows_a_move_at_once_after_its_nudge(tmp_path):
    """Red and Blue each serve their own repository on 127.0.0.1 (no forge, no shared
    disk between them but the one this test runs on); Blue's runtime would poll only
    every five minutes, so a move that shows within a minute came by its nudge."""
    from catan_p2p.net import pacing as rt
    from catan_p2p.net import serve
    from catan_p2p.net.runtime import Runtime
    from catan_p2p.session.git import GitSession
    from catan_p2p.session.start import create_game, join_game

    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    red_repo, blue_repo = tmp_path / "red", tmp_path / "blue"
    red_url = serve.served_url(f"serve:{ports[0]}", red_repo, "127.0.0.1")
    blue_url = serve.served_url(f"serve:{ports[1]}", blue_repo, "127.0.0.1")
    create_game(
        red_repo, ["red", "blue"], seed="n", game_id="g", local=("red",), publish_url=red_url
    )
    serve.remember(red_repo / ".git", red_url)
    red = Runtime(GitSession(red_repo, "g", ("red",)), slowest=300.0, watch=False)
    blue = None
    old = rt.WAITING_SLOWEST
    rt.WAITING_SLOWEST = 300.0
    try:
        red.start()
        joined = join_game(red_url, blue_repo, "g", "blue", None, blue_url, None, served=True)
        joined.close()
        blue = Runtime(GitSession(blue_repo, "g", ("blue",)), slowest=300.0, watch=False).start()
        deadline = time.monotonic() + 120  # Blue's hello tells Red where Blue publishes
        while red.snapshot.state.lobby_open or "red" not in _actors(red):
            assert time.monotonic() < deadline, "Red never took Blue's claim from its hello"
            red.poke()
            time.sleep(0.05)
        action = red.view.legal_actions("red")[0]
        red.submit(action)
        assert red.wait_sent(30)
        moved = red.snapshot.history[-1].commit
        seen = time.monotonic()
        while moved not in {e.commit for e in blue.snapshot.history}:
            assert time.monotonic() - seen < 60, "Blue never heard of Red's move"
            time.sleep(0.01)
    finally:
        rt.WAITING_SLOWEST = old
        for r in (red, blue):
            if r is not None:
                r.stop()
                r.session.close()
    assert red.daemon is None and red.listener is None  # stopped with the runtime


def _actors(runtime) -> list[str]:  # type: ignore[no-untyped-def]
    from catan_p2p.rules.waiting import actors

    return actors(runtime.snapshot.state)
