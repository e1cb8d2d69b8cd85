"""The local seats' replica and the moves nobody chooses, on in-memory repositories
(``sync.seats``, ``sync.followup``, ``sync.adopt``)."""

from __future__ import annotations

from peernet import GAME, Node, open_table

from catan_p2p.bots import make_bot
from catan_p2p.rules.actions import GiveCard
from catan_p2p.rules.state import Phase
from catan_p2p.session.driver import Driver
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.refs import player_ref, tracking_ref
from catan_p2p.sync.adopt import Fork
from catan_p2p.sync.followup import owed_move
from catan_p2p.sync.repo import GameRepo

PLAYERS = ("red", "blue", "white")


def _hotseat(seed: str) -> GitSession:
    repo = GameRepo.in_memory()
    create_game(repo, PLAYERS, seed=seed, game_id="g")
    return GitSession(repo, "g")


def test_a_robbed_local_seat_owes_its_card_and_a_remote_one_is_waited_for():
    session = _hotseat("owed")
    state = session.state._replace(phase=Phase.STEAL, victim=1)
    assert not state.lobby_open
    assert owed_move(state, {"blue": session.peers["blue"]}, list) == GiveCard("blue")
    assert owed_move(state, {"red": session.peers["red"]}, list) is None


def test_a_hotseat_game_never_stops_on_a_move_nobody_chooses():
    session = _hotseat("never")
    driver = Driver(session, {p: make_bot("random", p) for p in PLAYERS})
    for _ in range(300):
        if driver.step() is None:
            break
        assert owed_move(session.state, session.peers, session.seats.open_answers) is None


def test_a_seat_played_on_two_devices_is_reported_as_a_fork_with_its_seat_and_source():
    table = open_table(("red", "blue"), seed="twice")
    red = table.nodes["red"]
    other = Node("red", GameRepo.in_memory(), table.clock)  # Red's second device
    other.repo.store.objects = table.objects
    other.repo.refs.refs.update(red.repo.refs.refs)
    other.start()
    for node, seed in ((red, "one"), (other, "two")):
        bots = {"red": make_bot("random", seed)}
        while node.session.seats.only_local_can_act() or "red" not in node.session.local_players:
            if Driver(node.session, bots).step() is None:
                break
    assert red.session.head != other.session.head
    red.push(table.remote)
    other.fetch(table.remote)
    status = other.session.sync()
    mine = tracking_ref(player_ref(GAME, "red"))
    assert [f for f in status.forks if f.ref == mine], status.forks
    fork = next(f for f in status.forks if f.ref == mine)
    assert isinstance(fork, Fork) and fork.seat == "red" and fork.source == "origin"
    assert str(fork).startswith(mine + ": fork:")
