"""Random legal play for 2, 3 and 4 players: invariants hold after every action, games end.

Hypothesis draws the seeds; a weighted random player (``builders.pick_action``) that
prefers building chooses every action, so games end in a few hundred to a few
thousand actions. Each action is also replayed from its resolved form (what a log
records) and through its JSON text, as a peer verifying a commit would.
"""

import random

import pytest
from builders import fresh, pick_action
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catan_p2p.rules.actions import Action
from catan_p2p.rules.board import PIPS, STANDARD_BOARD, Board, HexTile, Port, land_tiles
from catan_p2p.rules.cards import Resource, Terrain
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.hexgrid import distance, edge_ends, edge_id, neighbours, ring
from catan_p2p.rules.invariants import check_invariants
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import NOBODY, Phase
from catan_p2p.rules.waiting import actors
from catan_p2p.trust.engine import step

MAX_ACTIONS = 6000  # the longest of hundreds of sampled games took about 2000


def _check_phase_shape(state):
    """The turn fields agree with the phase (what ``check_invariants`` leaves out)."""
    phase = state.phase
    assert (phase is Phase.TRADE) == (state.trade is not None), phase
    assert (phase is Phase.DISCARD) == any(state.discards), (phase, state.discards)
    assert (phase is Phase.ROAD_BUILDING) == (state.free_roads > 0), (phase, state.free_roads)
    assert (phase is Phase.GAME_OVER) == (state.winner != NOBODY), phase
    assert state.is_setup == (state.setup_step < len(state.setup_order)), phase
    assert state.is_setup == (state.turn == 0)
    if phase is Phase.ROLL:
        assert state.dice is None
    if phase in (Phase.MAIN, Phase.DISCARD, Phase.TRADE):
        assert state.dice is not None
    if state.is_setup:
        assert state.current == state.setup_order[state.setup_step]
    assert 0 <= state.robber < len(state.board.graph.tiles)


def _wide_board() -> Board:
    """A radius-3 island (37 tiles, two deserts, a port every few coastal edges).

    Built from plain data here so the rules are tested on a board other than the
    standard one without depending on the board generators of ``boards/``.
    """
    terrains = [t for t in Terrain if t is not Terrain.DESERT]
    numbers = [n for n in PIPS]
    tiles = []
    for i, tile in enumerate(land_tiles(3)):
        if tile in ((0, 0), (2, -1)):
            tiles.append(HexTile(tile, Terrain.DESERT, None))
        else:
            tiles.append(HexTile(tile, terrains[i % 5], numbers[(i * 3) % len(numbers)]))
    coast = [
        (tile, side) for tile in ring(3) for side in neighbours(tile) if distance(side, (0, 0)) == 4
    ]
    kinds = [None, *Resource]
    ports: list[Port] = []
    harboured: set = set()
    for k in range(0, len(coast), 3):
        edge = edge_id(*coast[k])
        if not harboured & set(edge_ends(edge)):  # one port per vertex
            ports.append(Port(edge, kinds[len(ports) % 6]))
            harboured |= set(edge_ends(edge))
    return Board(3, tuple(tiles), tuple(ports), name="wide")


def _play_checked(n_players: int, seed: int, board: Board = STANDARD_BOARD):
    rng = random.Random(seed)
    state = fresh(n_players, board)
    check_invariants(state)
    for i in range(MAX_ACTIONS):
        if state.is_over:
            return state, i
        listed = legal_actions(state)
        assert listed, f"no legal action in phase {state.phase.label}"
        assert {a.player for a in listed} <= set(actors(state))
        action = pick_action(rng, listed)
        after, resolved = step(state, action, derive_chance(str(seed), str(i)))
        check_invariants(after)
        _check_phase_shape(after)
        # A peer re-applies the recorded action, read back from its JSON, without chance.
        replayed = Action.loads(resolved.dumps())
        assert replayed == resolved
        assert step(state, replayed)[0] == after
        state = after
    pytest.fail(f"game of seed {seed} did not end within {MAX_ACTIONS} actions")


@pytest.mark.parametrize("n_players", [2, 3, 4])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_legal_play_keeps_invariants_and_ends_with_a_winner(n_players, seed):
    state, length = _play_checked(n_players, seed)
    assert state.phase is Phase.GAME_OVER
    assert state.winner != NOBODY
    assert state.points(state.winner) >= state.victory_points
    assert state.current == state.winner  # won on their own turn
    assert 0 < length < MAX_ACTIONS


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), n_players=st.integers(2, 4))
def test_random_legal_play_on_a_wider_board_keeps_invariants(seed, n_players):
    state, _ = _play_checked(n_players, seed, WIDE_BOARD)
    assert state.winner != NOBODY


WIDE_BOARD = _wide_board()
