"""The local seats' replica and the moves nobody chooses, on in-memory repositories
(``replica.seats``, ``replica.followup``, ``replica.adopt``)."""

from __future__ import annotations

from peernet import GAME, Node, open_table

from catan_p2p.bots import make_bot
from catan_p2p.net.driver import Driver
from catan_p2p.replica.adopt import Fork
from catan_p2p.replica.followup import owed_move
from catan_p2p.replica.peer import Peer
from catan_p2p.rules.actions import GiveCard
from catan_p2p.rules.state import Phase
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.refnames import player_ref, tracking_ref

PLAYERS = ("red", "blue", "white")


def _hotseat(seed: str) -> GitSession:
    repo = MemoryRepo()
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
    other = Node("red", MemoryRepo(), table.clock)  # Red's second device
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


def test_an_own_answer_dated_ahead_of_a_clock_that_went_back_still_counts(fake_clock):
    """A seat answered an offer, then this machine's clock went back further than the
    allowance for dates ahead: its own answer still counts (it is not asked to answer
    again, which would fail on its own branch), and nobody else's is taken early."""
    from catan_p2p.rules.actions import AnswerTrade, OfferTrade

    repo = MemoryRepo()
    create_game(repo, ["red", "blue", "white"], seed="ahead", game_id=GAME)
    session = GitSession(repo, GAME)
    bots = {p: make_bot("random", f"ahead/{p}") for p in session.players}
    driver = Driver(session, bots)
    offer = None
    for _ in range(3000):
        state = session.state
        if state.phase is Phase.MAIN:
            hand = state.hands[state.current].resources
            give = next((r for r in range(5) if hand[r]), None)
            if give is not None:
                get = (give + 1) % 5
                counts = [tuple(int(i == r) for i in range(5)) for r in (give, get)]
                offer = OfferTrade(state.players[state.current], *counts)
                break
        driver.play(1)
    assert offer is not None, "the bots' game never reached a main phase with a card"
    session.submit(offer)
    answerer = next(p for p in session.players if p != offer.player)
    fake_clock.advance(1000)  # the clock Blue answered with
    session.submit(AnswerTrade(answerer, False))
    fake_clock.run_free()  # ... and the clock now, 1000 s back
    session.close()
    again = GitSession(repo, GAME)  # a restart: nothing remembered but the refs
    try:
        assert not any(isinstance(a, AnswerTrade) for a in again.legal_actions(answerer))
        seat = again.players.index(answerer)
        assert again.state.trade is not None and again.state.trade.answers[seat].name == "DECLINE"
    finally:
        again.close()


class _Stopped(BaseException):
    """The process stopping between two ref moves (a kill: nothing after it runs)."""


def test_seats_left_behind_by_a_stop_between_two_ref_moves_are_lined_up_when_reopened(
    monkeypatch,
):
    """A process stopped after a seat moved its branch and before the other local seats
    followed leaves them behind: reopened, every seat is at the new head, and play goes on
    on one line (no seat records on the old head, which would fork its branch)."""
    repo = MemoryRepo()
    create_game(repo, PLAYERS, seed="stopped", game_id="g")
    session = GitSession(repo, "g")
    bots = {p: make_bot("random", f"stopped/{p}") for p in PLAYERS}
    Driver(session, bots).play(40)
    before = session.head

    def stop(self, target: str) -> None:
        raise _Stopped

    with monkeypatch.context() as m:
        m.setattr(Peer, "fast_forward", stop)
        try:
            Driver(session, bots).step()
        except _Stopped:
            pass
    heads = {p: repo.refs.get(player_ref("g", p)) for p in PLAYERS}
    assert len(set(heads.values())) == 2 and before in heads.values()  # one moved, two did not
    again = GitSession(repo, "g")
    new = again.head
    assert new != before and all(p.head == new for p in again.peers.values())
    driver = Driver(again, bots)
    for _ in range(40):
        if driver.step() is None:
            break
        assert len({repo.refs.get(player_ref("g", p)) for p in PLAYERS}) == 1
    assert again.head != new
