"""Conditions on a state, written as small expressions (for ``bisect`` and tools).

``points(red) >= 8``, ``turn > 20 and knights(blue) >= 3``, ``winner == red``,
``phase == discard``. Only the names and functions below are allowed; the
expression is parsed with ``ast`` and never passed to ``eval``.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from catan_p2p.errors import InvariantViolation, UsageError
from catan_p2p.rules.cards import Resource
from catan_p2p.rules.invariants import check_invariants
from catan_p2p.rules.state import NOBODY, GameState

INVARIANT_BROKEN = "invariant-broken"

_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}

FUNCTIONS: dict[str, str] = {
    "points": "victory points, hidden cards included",
    "public_points": "victory points others can see",
    "cards": "resource cards in hand",
    "knights": "knights played",
    "road": "length of the longest road",
    "settlements": "settlements on the board",
    "cities": "cities on the board",
    "roads": "roads on the board",
    "dev_cards": "development cards held",
}
NAMES = ("turn", "phase", "winner", "dice", "robber") + tuple(r.label for r in Resource)


def _player_value(state: GameState, func: str, player: str) -> int:
    seat = state.seat(player)
    hand = state.hands[seat]
    return {
        "points": lambda: state.points(seat),
        "public_points": lambda: state.public_points(seat),
        "cards": lambda: hand.card_count,
        "knights": lambda: hand.knights,
        "road": lambda: hand.road_length,
        "settlements": lambda: len(hand.settlements),
        "cities": lambda: len(hand.cities),
        "roads": lambda: len(hand.roads),
        "dev_cards": lambda: sum(hand.dev_cards) + sum(hand.new_dev_cards),
    }[func]()


def evaluate(expr: str, state: GameState) -> bool:
    """True when ``expr`` holds in ``state``; ``UsageError`` explains a bad expression."""
    if expr.strip() == INVARIANT_BROKEN:
        try:
            check_invariants(state)
        except InvariantViolation:
            return True
        return False
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise UsageError(f"cannot parse condition {expr!r}; try e.g. 'points(red) >= 8'") from None
    return bool(_eval(tree.body, state, expr))


def _eval(node: ast.AST, state: GameState, expr: str) -> Any:
    if isinstance(node, ast.BoolOp):
        values = [_eval(v, state, expr) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _eval(node.operand, state, expr)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, state, expr)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _eval(right_node, state, expr)
            fn = _COMPARE.get(type(op))
            if fn is None or not fn(left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name not in FUNCTIONS or len(node.args) != 1 or not isinstance(node.args[0], ast.Name):
            known = ", ".join(f"{f}(player)" for f in FUNCTIONS)
            raise UsageError(f"unknown function in {expr!r}; known: {known}")
        player = node.args[0].id
        if player not in state.players:
            raise UsageError(f"{player!r} in {expr!r} is not a player ({', '.join(state.players)})")
        return _player_value(state, name, player)
    if isinstance(node, ast.Name):
        name = node.id
        if name == "turn":
            return state.turn
        if name == "phase":
            return state.phase.name.lower()
        if name == "winner":
            return None if state.winner == NOBODY else state.players[state.winner]
        if name == "dice":
            return sum(state.dice) if state.dice else 0
        if name in state.players or name in [p.name.lower() for p in type(state.phase)]:
            return name  # a bare player or phase name compares as text
        if name in [r.label for r in Resource]:
            return state.bank[Resource.parse(name)]
        raise UsageError(f"unknown name {name!r} in {expr!r}; known: {', '.join(NAMES)}")
    raise UsageError(f"{expr!r} uses syntax conditions do not support")
