"""catanatron as an outside referee of our rules (needs the optional catanatron package).

The fast tests check the bridge (geometry, actions both ways, a translated position);
the slow one plays random and greedy games in our engine and, at every step, compares
our legal actions and the effect of the action taken with catanatron's. Only the
differences in ``referee.ALLOWED`` (catanatron's known deviations, each naming the
rule) may appear.
"""

from __future__ import annotations

import pytest

pytest.importorskip("catanatron")

from builders import fresh, give, quick_setup  # noqa: E402

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
    Report,
    classify,
    compare_position,
    referee_game,
)
from catan_p2p.rules.board import STANDARD_BOARD  # noqa: E402
from catan_p2p.rules.engine import legal_actions  # noqa: E402
from catan_p2p.rules.state import Phase  # noqa: E402


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
#: the rule concerned. Player trade is not compared at all: catanatron 3.2.1 has none.
KNOWN_DEVIATIONS = {
    "bought-this-turn": "a development card may not be played on the turn it was bought",
    "card-before-roll": "any development card may be played before the roll",
    "road-building-cost": "road building's two roads are free",
    "one-card-plenty": "year of plenty takes two cards",
    "lone-shortage": "bank shortage: a lone player owed a short resource gets what is left",
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
