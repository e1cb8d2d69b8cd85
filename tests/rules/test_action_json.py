"""Actions serialise to one JSON object and back, for every action type."""

import json

import pytest
from builders import cards, corner, path

from catan_p2p.errors import InvalidAction
from catan_p2p.rules.actions import (
    ACTION_TYPES,
    Abandon,
    Action,
    AnswerTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ClaimSeat,
    ClaimVictory,
    ConfirmTrade,
    Discard,
    EndRoadBuilding,
    EndSpecialBuild,
    EndTurn,
    GiveCard,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RevealDeck,
    RevealDice,
    RollDice,
    ShowSteal,
)
from catan_p2p.rules.cards import DevCard, Resource

V = corner((0, 0), 0)
E = path(corner((0, 0), 0), corner((0, 0), 1))[0]

EXAMPLES: list[Action] = [
    BuildSettlement("red", V),
    BuildRoad("red", E),
    BuildCity("red", V),
    RollDice("red"),
    RollDice("red", (3, 4)),
    Discard("blue", cards(lumber=2, ore=2)),
    MoveRobber("red", (1, -1)),
    MoveRobber("red", (1, -1), "blue"),
    MoveRobber("red", (1, -1), "blue", Resource.WOOL),
    EndTurn("red"),
    EndSpecialBuild("red"),
    BuyDevCard("red"),
    BuyDevCard("red", DevCard.VICTORY_POINT),
    PlayKnight("red"),
    PlayRoadBuilding("red"),
    EndRoadBuilding("red"),
    PlayYearOfPlenty("red", Resource.ORE, Resource.GRAIN),
    PlayMonopoly("red", Resource.BRICK),
    MaritimeTrade("red", Resource.WOOL, Resource.ORE),
    OfferTrade("red", cards(lumber=1, wool=2), cards(ore=1)),
    AnswerTrade("blue", True),
    AnswerTrade("white", False),
    ConfirmTrade("red", "blue"),
    CancelTrade("red"),
    ClaimSeat(
        "red",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGwBX7iCCPz9adMoUNyWIl8fkxX+W1ODpyWW8K+8JTNU",
        "0" * 64,
        "1" * 64,
        "2" * 128,
    ),
    ClaimVictory("red", ("3:" + "4" * 192,)),
    RevealDeck("red", "5" * 64),
    RollDice("red", None, "6" * 64, ("0:" + "7" * 192,)),
    RevealDice("blue", "5" * 64),
    RevealDice("blue", "5" * 64, (6, 1)),
    PlayKnight("red", "1:" + "8" * 192),
    GiveCard("blue", "9" * 192),
    ShowSteal("blue", "9" * 192),
    Abandon("red", "blue"),
    GiveCard("blue", "9" * 192, steals=("8" * 192, "7" * 192)),
    BuildRoad("red", ((0, 0), (1, 0)), steals=("8" * 192,)),
]


def test_examples_cover_every_action_type():
    assert {type(a).kind for a in EXAMPLES} == set(ACTION_TYPES)


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: a.dumps())
def test_action_json_round_trip(action):
    data = action.to_json()
    assert data["type"] == action.kind
    assert json.loads(json.dumps(data)) == data  # plain JSON values only
    assert Action.from_json(data) == action
    assert Action.loads(action.dumps()) == action


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: a.dumps())
def test_action_dumps_is_canonical(action):
    text = action.dumps()
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    assert "\n" not in text


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: a.dumps())
def test_action_summary_names_the_player(action):
    assert str(action).startswith(action.player.capitalize() + ": ")


def test_unresolved_clears_chance_outcomes():
    assert RollDice("red", (3, 4)).unresolved() == RollDice("red")
    assert BuyDevCard("red", DevCard.KNIGHT).unresolved() == BuyDevCard("red")
    assert MoveRobber("red", (1, -1), "blue", Resource.ORE).unresolved() == MoveRobber(
        "red", (1, -1), "blue"
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "fly", "player": "red"}', "unknown action type"),
        ('{"type": "build_road", "player": "red"}', "missing"),
        ('{"type": "end_turn", "player": "red", "extra": 1}', "unknown fields"),
        ('{"type": "build_road", "player": "red", "edge": "(0,0)"}', "bad 'edge'"),
        ('{"type": "maritime_trade", "player": "red", "give": "gold", "get": "ore"}', "bad"),
        ('{"type": "discard", "player": "red", "cards": {"ore": -1}}', "bad 'cards'"),
        ('{"type": "end_turn", "player": 3}', "bad 'player'"),
        ('{"type": "answer_trade", "player": "blue", "accept": "no"}', "bad 'accept'"),
        ('{"type": "discard", "player": "red", "cards": {"ore": true}}', "bad 'cards'"),
        ('{"type": "build_city", "player": "red", "vertex": null}', "bad 'vertex'"),
    ],
)
def test_malformed_action_json_is_refused_with_a_reason(text, words):
    with pytest.raises(InvalidAction, match=words):
        Action.loads(text)


def test_a_move_that_shows_steals_is_one_type_and_keeps_its_order():
    """``steals`` is declared once (``ShowsSteals``), keyword-only, so each move's own
    fields keep their places; every move that has it is a ``ShowsSteals``."""
    from dataclasses import fields

    from catan_p2p.rules.actions import ACTION_TYPES, ShowsSteals

    showing = {k for k, cls in ACTION_TYPES.items() if issubclass(cls, ShowsSteals)}
    having = {k for k, cls in ACTION_TYPES.items() if "steals" in {f.name for f in fields(cls)}}
    assert showing == having and len(showing) == 11  # confirm_trade since counter-offers
    road = BuildRoad("red", ((0, 0), (1, 0)), steals=("8" * 192,))
    assert road.edge == ((0, 0), (1, 0)) and Action.from_json(road.to_json()) == road
    with pytest.raises(TypeError):
        BuildRoad("red", ((0, 0), (1, 0)), ("8" * 192,))  # type: ignore[misc]
