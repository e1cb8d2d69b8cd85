"""catanatron as an outside referee of our rules (needs the optional catanatron package).

The fast tests check the bridge (geometry, actions both ways, a translated position)
and that the referee catches the three rule mutants of issue 21 on the positions where
they show: players discarding at 7 cards and a discard rounded up (whole outcomes after
a seven replayed through catanatron), and a road through an opponent's building taken
by ``apply`` only (``step`` judged on every placement). The slow ones replay random and
greedy games through catanatron's engine, comparing choices and outcomes at every step:
only the differences in ``referee.ALLOWED`` (catanatron's known deviations, each naming
the rule) may appear, and each mutant shows within three whole games.
"""

from __future__ import annotations

import pytest

pytest.importorskip("catanatron")

import inspect  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402

from builders import (  # noqa: E402
    at_turn,
    award,
    fresh,
    give,
    path,
    place_roads,
    place_settlement,
    quick_setup,
    set_hand,
    top_zigzag,
)

from catan_p2p.bridges.catanatron import (  # noqa: E402
    action_from_catanatron,
    action_key,
    action_to_catanatron,
    geometry,
    to_catanatron,
)
from catan_p2p.bridges.referee import (  # noqa: E402
    ALLOWED,
    Difference,
    Replay,
    Report,
    classify,
    compare_position,
    main,
    referee_game,
)
from catan_p2p.errors import UsageError  # noqa: E402
from catan_p2p.rules import engine, menu, trade  # noqa: E402
from catan_p2p.rules.actions import (  # noqa: E402
    AnswerTrade,
    BuildRoad,
    BuildSettlement,
    ConfirmTrade,
    OfferTrade,
    RollDice,
)
from catan_p2p.rules.board import STANDARD_BOARD  # noqa: E402
from catan_p2p.rules.cards import ROAD_COST, SETTLEMENT_COST  # noqa: E402
from catan_p2p.rules.menu import legal_actions  # noqa: E402
from catan_p2p.rules.state import (
    NOBODY,  # noqa: E402
    Phase,  # noqa: E402
)


def test_every_vertex_and_edge_has_one_catanatron_twin() -> None:
    from catanatron.models.board import STATIC_GRAPH

    geo = geometry(STANDARD_BOARD)
    assert len(set(geo.node_of_vertex)) == 54
    assert len(set(geo.edge_of_edge)) == 72
    assert all(STATIC_GRAPH.has_edge(*e) for e in geo.edge_of_edge)
    graph = STANDARD_BOARD.graph
    for v, node in enumerate(geo.node_of_vertex):
        theirs = {t.id for t in geo.catan_map.adjacent_tiles[node]}
        ours = {
            geo.catan_map.land_tiles[geo.coordinate_of_tile[t]].id for t in graph.vertex_tiles[v]
        }
        assert theirs == ours


def test_ports_and_production_agree() -> None:
    geo = geometry(STANDARD_BOARD)
    graph = STANDARD_BOARD.graph
    ported = {n for nodes in geo.catan_map.port_nodes.values() for n in nodes}
    assert ported == {geo.node_of_vertex[v] for v, p in enumerate(graph.vertex_port) if p >= 0}
    for t, coordinate in enumerate(geo.coordinate_of_tile):
        tile = geo.catan_map.land_tiles[coordinate]
        assert (tile.number or 0) == graph.tile_number[t]


def test_actions_survive_the_round_trip() -> None:
    state = quick_setup(fresh(4))
    state = give(state, "red", (4, 4, 4, 4, 4))
    for action in legal_actions(state):
        theirs = action_to_catanatron(state, action)
        if theirs is None:
            continue
        assert action_from_catanatron(state, theirs) == action


def test_translated_position_offers_the_same_main_phase_actions() -> None:
    state = quick_setup(fresh(3))
    state = give(state, "red", (2, 2, 2, 2, 3))
    assert state.phase in (Phase.ROLL, Phase.MAIN)
    game = to_catanatron(state)
    ours = {
        action_key(action_to_catanatron(state, a))
        for a in legal_actions(state)
        if action_to_catanatron(state, a) is not None
    }
    assert {action_key(a) for a in game.state.playable_actions} == ours
    assert compare_position(state) == []


#: catanatron 3.2.1's deviations from the official rules that the referee allows, each with
#: the rule concerned. catanatron 3.2.1 has no player trade: the replay moves a confirmed
#: trade's cards itself and compares the hands after it.
KNOWN_DEVIATIONS = {
    "bought-this-turn": "a development card may not be played on the turn it was bought",
    "card-before-roll": "any development card may be played before the roll",
    "road-building-cost": "road building's two roads are free",
    "one-card-plenty": "year of plenty takes two cards",
    "lone-shortage": "bank shortage: a lone player owed a short resource gets what is left",
    "longest-road-tie": "a tie for longest road keeps its holder",
    "longest-road-cut": "longest road after a cut: 5 or more, ties set aside or kept",
    "road-into-building": "longest road counts a road up to an opponent's building",
    "win-off-turn": "a player wins only on their own turn",
}


def test_the_allowed_differences_are_catanatrons_known_deviations() -> None:
    assert {name for name, _, _ in ALLOWED} == set(KNOWN_DEVIATIONS)


def test_an_unexplained_difference_is_a_finding() -> None:
    state = quick_setup(fresh(2))
    made_up = Difference("theirs", ("RED", "BUILD_CITY", 7), state)
    assert classify(made_up) is None
    assert all(rule for _, rule, _ in ALLOWED)


@pytest.mark.parametrize("players", [0, 1, 5, 6])
def test_a_player_count_catanatron_cannot_check_is_refused(players: int, capsys) -> None:
    """catanatron has four colours and no 5-6 player extension: a count it cannot check
    is one sentence and a non-zero exit, never a smaller game reported clean."""
    with pytest.raises(UsageError, match=f"2 to 4 players, not {players}"):
        referee_game("refused", players, max_actions=1)
    assert main(["--players", str(players), "--games", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("referee: ")
    assert f"not {players}" in err


def _split_into_a_tie():  # type: ignore[no-untyped-def]
    """Red and Blue each with a road of 5, Blue holding longest road (a tie keeps the
    holder); White about to settle on a corner between two of Orange's roads, splitting
    them without shortening Orange's longest (its road of 3 lies elsewhere)."""
    state = fresh(4)
    state = place_roads(state, "red", path(*top_zigzag([(-2, 0), (-1, 0), (0, 0)])[:6]))
    state = place_roads(state, "blue", path(*top_zigzag([(-2, 2), (-1, 2), (0, 2)])[:6]))
    state = place_roads(state, "orange", path(*top_zigzag([(0, -2), (1, -2)])[:4]))
    graph = state.board.graph

    def untouched(v: int) -> bool:
        near = [v, *graph.vertex_neighbours[v]]
        return all(state.edge_owner[e] == NOBODY for n in near for e in graph.vertex_edges[n])

    corner = next(
        v for v, edges in enumerate(graph.vertex_edges) if len(edges) == 3 and untouched(v)
    )
    first, second, third = graph.vertex_edges[corner]
    state = place_roads(state, "orange", [graph.edges[first], graph.edges[second]])
    state = place_roads(state, "white", [graph.edges[third]])
    state = give(at_turn(award(state, longest_road="blue"), "white"), "white", SETTLEMENT_COST)
    return state, BuildSettlement("white", graph.vertices[corner])


def test_a_road_split_into_a_tie_is_catanatrons_known_deviation_not_a_finding() -> None:
    """catanatron recounts every road after a settlement splits one and hands longest road
    to the first colour of its list among the tied (Red); the rules keep the holder."""
    state, settle = _split_into_a_tie()
    lengths = [h.road_length for h in state.hands]
    replay = Replay(state)
    after, resolved = engine.step(state, settle)
    assert [h.road_length for h in after.hands] == lengths == [5, 5, 1, 3]
    assert after.longest_road == state.seat("blue")
    found = replay.step(state, resolved, after)
    assert ("RED.longest_road",) in {d.key for d in found}
    assert {classify(d) for d in found} == {"longest-road-tie"}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("players", "strategy", "games"), [(2, "random", 2), (3, "greedy", 3), (4, "random", 3)]
)
def test_catanatron_agrees_with_our_rules_but_for_its_known_deviations(
    players: int, strategy: str, games: int
) -> None:
    report = Report()
    for g in range(games):
        referee_game(f"referee/{players}/{strategy}/{g}", players, strategy, report)
    assert report.positions > 200 * games
    findings = [f"[{g}] {d.describe()}" for g, d in report.findings]
    assert not findings, "\n".join(findings[:10])


# --- rule mutants the referee must catch ----------------------------------------------------


def _mutant(func, old: str, new: str):  # type: ignore[no-untyped-def]
    """A copy of the rule function ``func`` with ``old`` in its source replaced by ``new``
    (compiled among the names of its own module)."""
    source = textwrap.dedent(inspect.getsource(func))
    assert old in source, f"{old!r} is not in {func.__name__}"
    names = dict(vars(sys.modules[func.__module__]))
    exec(compile(source.replace(old, new), f"<mutant of {func.__name__}>", "exec"), names)
    return names[func.__name__]


#: The three mutants of issue 21: name -> (rule function, text, its replacement).
MUTANTS = {
    "discard at 7 cards": (
        engine._rolled,
        "h.card_count > DISCARD_LIMIT",
        "h.card_count >= DISCARD_LIMIT",
    ),
    "discard rounded up": (
        engine._rolled,
        "h.card_count // 2 if",
        "(h.card_count + 1) // 2 if",
    ),
    "road through a building in apply only": (
        engine._road_connects,
        "continue  # an opponent's building: no connection through it",
        "pass",
    ),
}


def _apply_mutant(monkeypatch, name: str) -> None:  # type: ignore[no-untyped-def]
    func, old, new = MUTANTS[name]
    monkeypatch.setattr(engine, func.__name__, _mutant(func, old, new))


def _seven_with(cards: int):  # type: ignore[no-untyped-def]
    """Red about to roll a seven while Blue holds ``cards`` cards."""
    state = at_turn(quick_setup(fresh(3)), "red", Phase.ROLL)
    state = set_hand(state, "blue", (cards - cards // 2, cards // 2, 0, 0, 0))
    return set_hand(state, "red", (1, 0, 0, 0, 0))


def _replayed_seven(cards: int) -> list[Difference]:
    state = _seven_with(cards)
    replay = Replay(state)
    after, resolved = engine.step(state, RollDice("red", (3, 4)))
    return replay.step(state, resolved, after)


def _road_past_a_building():  # type: ignore[no-untyped-def]
    """Red to build, with a road that ends at Blue's settlement and a free edge beyond it
    (Red's set-up road is made one road longer to reach a corner Blue may hold)."""
    state = quick_setup(fresh(3))
    graph = state.board.graph
    owner = state.vertex_owner

    def other_end(e: int, v: int) -> int:
        a, b = graph.edge_vertices[e]
        return b if a == v else a

    for e in sorted(state.hands[state.seat("red")].roads):
        for end in graph.edge_vertices[e]:
            if owner[end] != NOBODY:
                continue
            for e2 in graph.vertex_edges[end]:
                corner = other_end(e2, end)
                if state.edge_owner[e2] != NOBODY or owner[corner] != NOBODY:
                    continue
                if any(owner[n] != NOBODY for n in graph.vertex_neighbours[corner]):
                    continue
                beyond = [
                    x
                    for x in graph.vertex_edges[corner]
                    if x != e2 and state.edge_owner[x] == NOBODY
                ]
                if beyond:
                    state = place_roads(state, "red", [graph.edges[e2]])
                    state = place_settlement(state, "blue", graph.vertices[corner])
                    state = give(at_turn(state, "red"), "red", ROAD_COST)
                    return state, BuildRoad("red", graph.edges[beyond[0]])
    raise AssertionError("no road of Red leads to a free corner")


def test_the_referee_agrees_with_the_rules_on_the_mutants_positions() -> None:
    for cards in (7, 9):
        assert [d for d in _replayed_seven(cards) if classify(d) is None] == []
    state, _ = _road_past_a_building()
    assert compare_position(state) == []


def test_the_referee_catches_players_discarding_at_seven_cards(monkeypatch) -> None:
    _apply_mutant(monkeypatch, "discard at 7 cards")
    found = {d.key[0] for d in _replayed_seven(7) if classify(d) is None}
    assert {"BLUE.discards", "phase"} <= found


def test_the_referee_catches_a_discard_rounded_up(monkeypatch) -> None:
    _apply_mutant(monkeypatch, "discard rounded up")
    found = [d for d in _replayed_seven(9) if classify(d) is None]
    assert [d.detail for d in found] == ["BLUE.discards: ours 5, catanatron 4"]


def test_the_referee_catches_a_road_through_a_building_taken_by_apply_only(monkeypatch) -> None:
    state, road = _road_past_a_building()
    assert road not in menu.legal_actions(state, "red")
    _apply_mutant(monkeypatch, "road through a building in apply only")
    assert road not in menu.legal_actions(state, "red")  # the lists still agree
    found = [d for d in compare_position(state) if classify(d) is None]
    assert [d.side for d in found] == ["apply"]
    assert found[0].action == road and "step takes" in found[0].detail


def _replayed_trade() -> list[Difference]:
    """Red offers a lumber for Blue's ore, Blue accepts, Red trades: replayed."""
    state = at_turn(quick_setup(fresh(3)), "red")
    state = set_hand(set_hand(state, "red", (1, 0, 0, 0, 0)), "blue", (0, 0, 0, 0, 1))
    replay, found = Replay(state), []
    for action in (
        OfferTrade("red", (1, 0, 0, 0, 0), (0, 0, 0, 0, 1)),
        AnswerTrade("blue", True),
        ConfirmTrade("red", "blue"),
    ):
        after, resolved = engine.step(state, action)
        found += replay.step(state, resolved, after)
        state = after
    assert state.hands[state.seat("red")].resources == (0, 0, 0, 0, 1)
    return found


def test_the_referee_compares_a_player_trade_though_catanatron_has_none(monkeypatch) -> None:
    assert _replayed_trade() == []
    mutant = _mutant(
        trade.confirm_trade,
        "theirs._replace(resources=add(sub(theirs.resources, get), give))",
        "theirs._replace(resources=sub(theirs.resources, get))",
    )
    monkeypatch.setitem(engine.HANDLERS, ConfirmTrade, mutant)
    assert [d.key for d in _replayed_trade()] == [("BLUE.resources",)]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_replayed_whole_games_catch_each_mutant(monkeypatch, name: str) -> None:
    """Each mutant shows in whole bot games replayed through catanatron (at most three)."""
    _apply_mutant(monkeypatch, name)
    report = Report()
    for g in range(3):
        referee_game(f"mutant/{g}", 4, "random", report)
        if report.findings:
            break
    assert report.findings, f"three games never showed the mutant {name!r}"
