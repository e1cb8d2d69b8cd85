"""turn.json's open offer: whom it is made to and the counter-offers, written and read back."""

from __future__ import annotations

import json

import pytest
from builders import BLUE, RED, WHITE, at_turn, cards, fresh, give, play

from catan_p2p.errors import StateFileError
from catan_p2p.rules.actions import AnswerTrade, OfferTrade
from catan_p2p.store.codec import GameInfo, StateWriter, dumps
from catan_p2p.store.formats import MemoryObjectStore
from catan_p2p.store.reading import decode, read_files, read_state

INFO = GameInfo("g", "seed")


def _market():
    state = give(fresh(3), RED, cards(lumber=2, wool=1))
    state = give(state, BLUE, cards(ore=2))
    state = give(state, WHITE, cards(grain=1))
    return at_turn(state, RED)


def _files(state):
    store = MemoryObjectStore()
    return read_files(store, StateWriter(store, INFO).write(state), "test")


def _round_trip(state):
    store = MemoryObjectStore()
    back, _ = read_state(store, StateWriter(store, INFO).write(state), "test")
    return back


def test_counter_offer_is_written_as_the_offerer_would_trade_it():
    state = play(
        _market(),
        OfferTrade(RED, cards(lumber=1), cards(ore=1)),
        AnswerTrade(BLUE, False, cards(ore=1), cards(lumber=2)),
        AnswerTrade(WHITE, False),
    )
    trade = json.loads(_files(state)["turn.json"])["trade"]
    assert trade == {
        "answers": {"blue": "counter", "white": "decline"},
        "counters": {"blue": {"get": {"ore": 1}, "give": {"lumber": 2}}},
        "get": {"ore": 1},
        "give": {"lumber": 1},
    }
    assert _round_trip(state) == state


def test_offer_to_one_player_names_it_and_its_answer_alone():
    state = play(_market(), OfferTrade(RED, cards(lumber=1), cards(ore=1), BLUE))
    trade = json.loads(_files(state)["turn.json"])["trade"]
    assert trade["to"] == "blue" and trade["answers"] == {"blue": "pending"}
    assert "counters" not in trade
    assert _round_trip(state) == state


def test_offer_to_all_writes_what_version_six_wrote():
    state = play(_market(), OfferTrade(RED, cards(lumber=1), cards(ore=1)))
    trade = json.loads(_files(state)["turn.json"])["trade"]
    assert set(trade) == {"answers", "get", "give"}


def _edited(state, edit):
    files = _files(state)
    turn = json.loads(files["turn.json"])
    edit(turn["trade"])
    files["turn.json"] = dumps(turn)
    return files


def test_counter_answer_without_its_counts_is_refused():
    state = play(
        _market(),
        OfferTrade(RED, cards(lumber=1), cards(ore=1)),
        AnswerTrade(BLUE, False, cards(ore=1), cards(lumber=2)),
    )
    files = _edited(state, lambda t: t.pop("counters"))
    with pytest.raises(StateFileError, match="counter"):
        decode(files, "commit x")


def test_counts_beside_an_answer_that_is_no_counter_are_refused():
    state = play(_market(), OfferTrade(RED, cards(lumber=1), cards(ore=1)))
    files = _edited(
        state, lambda t: t.update(counters={"white": {"give": {"lumber": 2}, "get": {"ore": 1}}})
    )
    with pytest.raises(StateFileError, match="counter"):
        decode(files, "commit x")


def test_offer_to_one_player_with_others_answers_is_refused():
    state = play(_market(), OfferTrade(RED, cards(lumber=1), cards(ore=1), BLUE))
    files = _edited(state, lambda t: t["answers"].update(white="pending"))
    with pytest.raises(StateFileError, match="made to blue"):
        decode(files, "commit x")


def test_a_version_six_game_is_refused_by_name():
    files = _files(_market())
    game = json.loads(files["game.json"])
    assert game["schema_version"] == 7
    game["schema_version"] = 6
    files["game.json"] = dumps(game)
    with pytest.raises(StateFileError, match="version 6"):
        decode(files, "commit x")
