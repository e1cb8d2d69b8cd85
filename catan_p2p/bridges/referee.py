"""catanatron as an outside referee: the same position, two engines, compared.

At every step of a game played in our engine, ``compare_position`` lists our legal
actions and catanatron's for the same position (translated by the bridge), and
``compare_step`` applies the action actually taken in both engines and compares the
hands, bank, points, awards and winner. Differences that come from catanatron's
known deviations from the official rules are classified by ``ALLOWED`` (each names
the rule); anything else is a finding.

``python -m catan_p2p.bridges.referee --games 20`` prints a report.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from catan_p2p.bots import make_bot
from catan_p2p.bridges.catanatron import (
    action_key,
    action_to_catanatron,
    colors_of,
    our_summary,
    summary,
    to_catanatron,
)
from catan_p2p.rules.actions import Action, MoveRobber, RollDice
from catan_p2p.rules.cards import DevCard
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.engine import actors, legal_actions, step
from catan_p2p.rules.state import NOBODY, GameState, Phase, new_game
from catan_p2p.sim import next_actor

#: Each allowed difference: (name, the rule concerned, predicate on a difference).
#: A difference is (side, key, state) with side "ours" (only we allow it) or "theirs".


@dataclass(frozen=True)
class Difference:
    """One action only one engine allows, or one figure the engines disagree on."""

    side: str  # "ours": only our engine allows it; "theirs": only catanatron; "state": figures
    key: tuple
    state: GameState
    action: Action | None = None  # the action taken (for state differences)
    detail: str = ""

    def describe(self) -> str:
        where = f"turn {self.state.turn}, {self.state.phase.label}"
        if self.side == "state":
            return f"after {self.action} ({where}): {self.detail}"
        who = "only our engine allows" if self.side == "ours" else "only catanatron allows"
        return f"{who} {self.key} ({where})"


def _seat_of_key(state: GameState, key: tuple) -> int:
    colors = [c.value for c in colors_of(state)]
    return colors.index(key[0])


def _dev(state: GameState, key: tuple, card: DevCard) -> bool:
    kinds = {
        DevCard.KNIGHT: "PLAY_KNIGHT_CARD",
        DevCard.ROAD_BUILDING: "PLAY_ROAD_BUILDING",
        DevCard.YEAR_OF_PLENTY: "PLAY_YEAR_OF_PLENTY",
        DevCard.MONOPOLY: "PLAY_MONOPOLY",
    }
    return key[1] == kinds[card]


def _bought_this_turn(d: Difference) -> bool:
    """catanatron 3.2.1 lets a card be played on the turn it was bought."""
    if d.side != "theirs" or not d.key[1].startswith("PLAY_"):
        return False
    hand = d.state.hands[_seat_of_key(d.state, d.key)]
    return any(
        _dev(d.state, d.key, c) and hand.new_dev_cards[c] and not hand.dev_cards[c]
        for c in (DevCard.KNIGHT, DevCard.ROAD_BUILDING, DevCard.YEAR_OF_PLENTY, DevCard.MONOPOLY)
    )


def _before_roll(d: Difference) -> bool:
    """catanatron allows only the knight before the roll; the rules allow any card."""
    return (
        d.side == "ours"
        and d.state.phase is Phase.ROLL
        and d.key[1] in ("PLAY_ROAD_BUILDING", "PLAY_YEAR_OF_PLENTY", "PLAY_MONOPOLY")
    )


def _road_building_needs_cost(d: Difference) -> bool:
    """catanatron offers road building (and its free roads) only to a player who could
    pay for a road."""
    if d.side != "ours":
        return False
    hand = d.state.hands[_seat_of_key(d.state, d.key)].resources
    broke = hand[0] < 1 or hand[1] < 1
    if d.key[1] == "PLAY_ROAD_BUILDING":
        return broke
    return d.key[1] == "BUILD_ROAD" and d.state.phase is Phase.ROAD_BUILDING and broke


def _one_card_plenty(d: Difference) -> bool:
    """catanatron offers a one-card year of plenty when the bank lacks the second card."""
    return d.side == "theirs" and d.key[1] == "PLAY_YEAR_OF_PLENTY" and len(d.key[2]) == 1


def _road_building_no_edge(d: Difference) -> bool:
    """With road building and roads but no free edge catanatron still waits for a road."""
    return False


def _lone_shortage(d: Difference) -> bool:
    """Bank shortage: when one player alone is owed a short resource, the rules give
    what is left; catanatron gives nothing."""
    return d.side == "state" and "shortage" in d.detail


def _longest_road_cut(d: Difference) -> bool:
    """After a settlement cuts a road, catanatron hands longest road to the longest
    remaining road even under 5 or tied; the rules set it aside (or keep the holder)."""
    return d.side == "state" and "road-cut" in d.detail


def _road_into_building(d: Difference) -> bool:
    """catanatron's longest road leaves out a road that ends at an opponent's building;
    the rules count it (a building breaks a road only where the road passes through)."""
    return d.side == "state" and "road-into-building" in d.detail


def _win_off_turn(d: Difference) -> bool:
    """catanatron declares a winner whenever anyone reaches 10 points; the rules only
    on that player's own turn."""
    return d.side == "state" and "off-turn" in d.detail


ALLOWED: tuple[tuple[str, str, Callable[[Difference], bool]], ...] = (
    (
        "bought-this-turn",
        "a development card may not be played on the turn it was bought "
        "(victory point cards excepted)",
        _bought_this_turn,
    ),
    (
        "card-before-roll",
        "any one development card may be played before the roll, not only the knight",
        _before_roll,
    ),
    (
        "road-building-cost",
        "road building gives two free roads: it needs no lumber and brick in hand",
        _road_building_needs_cost,
    ),
    ("one-card-plenty", "year of plenty takes two cards from the bank", _one_card_plenty),
    (
        "lone-shortage",
        "bank shortage: a lone player owed a short resource gets what is left",
        _lone_shortage,
    ),
    (
        "longest-road-cut",
        "longest road after a cut: at least 5 roads, ties set aside or kept by the holder",
        _longest_road_cut,
    ),
    (
        "road-into-building",
        "longest road counts a road up to an opponent's building",
        _road_into_building,
    ),
    ("win-off-turn", "a player wins only on their own turn", _win_off_turn),
)


def classify(d: Difference) -> str | None:
    """The name of the allowed difference that explains ``d``, or None (a finding)."""
    for name, _, test in ALLOWED:
        if test(d):
            return name
    return None


def compare_position(state: GameState) -> list[Difference]:
    """Legal actions of both engines at ``state`` (for each player who may act)."""
    if state.phase in (Phase.TRADE, Phase.GAME_OVER):
        return []
    out: list[Difference] = []
    who = actors(state)
    for player in who:
        game = to_catanatron(state, actor=player if state.phase is Phase.DISCARD else None)
        theirs = {action_key(a) for a in game.state.playable_actions}
        ours = set()
        for a in legal_actions(state, player):
            c = action_to_catanatron(state, a)
            if c is not None:
                ours.add(action_key(c))
        out += [Difference("ours", k, state) for k in sorted(ours - theirs, key=repr)]
        out += [Difference("theirs", k, state) for k in sorted(theirs - ours, key=repr)]
    return out


def compare_step(state: GameState, resolved: Action, after: GameState) -> list[Difference]:
    """Apply ``resolved`` (chance outcomes filled in) in catanatron too and compare."""
    if state.phase in (Phase.TRADE, Phase.GAME_OVER) or after.phase is Phase.TRADE:
        return []
    c = action_to_catanatron(state, resolved)
    if c is None:
        return []
    game = to_catanatron(state, actor=resolved.player if state.phase is Phase.DISCARD else None)
    game.execute(c, validate_action=False)
    theirs, ours = summary(game), our_summary(after)
    out: list[Difference] = []
    colors = colors_of(after)
    into = any(
        game.state.board.road_lengths.get(colors[seat], 0) != hand.road_length
        and _road_into_building(after, seat)
        for seat, hand in enumerate(after.hands)
    )
    for key in ours:
        if ours[key] != theirs[key]:
            detail = _explain(state, resolved, after, key, ours[key], theirs[key])
            if into and isinstance(ours[key], dict):
                if ours[key]["longest_road"] != theirs[key]["longest_road"]:
                    detail = "road-into-building " + detail
            out.append(Difference("state", (key,), state, resolved, detail))
    cat_winner = game.winning_color()
    our_winner = None if after.winner == NOBODY else colors_of(after)[after.winner]
    if cat_winner != our_winner and not (our_winner is None and cat_winner is not None):
        out.append(
            Difference(
                "state",
                ("winner",),
                state,
                resolved,
                f"winner: ours {our_winner}, catanatron {cat_winner}",
            )
        )
    elif cat_winner is not None and our_winner is None:
        seat = [c.value for c in colors_of(after)].index(cat_winner.value)
        tag = "off-turn" if seat != after.current else "on-turn"
        if _cut(state, after):
            tag = "road-cut, " + tag  # the points differ because the award does
        out.append(
            Difference(
                "state",
                ("winner",),
                state,
                resolved,
                f"winner ({tag}): catanatron says {cat_winner.value}, ours none",
            )
        )
    return out


def _explain(state, resolved, after, key, ours, theirs) -> str:  # type: ignore[no-untyped-def]
    text = f"{key}: ours {ours}, catanatron {theirs}"
    if isinstance(resolved, RollDice) and resolved.dice and sum(resolved.dice) != 7:
        if _lone_short(state, sum(resolved.dice)):
            return "shortage " + text
    if _cut(state, after) and isinstance(ours, dict):
        if ours.get("longest_road") != theirs.get("longest_road"):
            return "road-cut " + text
    return text


def _road_into_building(state: GameState, seat: int) -> bool:
    """True when one of the seat's roads ends at an opponent's building."""
    graph = state.board.graph
    owner = state.vertex_owner
    return any(
        owner[v] not in (NOBODY, seat)
        for e in state.hands[seat].roads
        for v in graph.edge_vertices[e]
    )


def _cut(state: GameState, after: GameState) -> bool:
    """True when the step (a settlement) shortened an opponent's longest road."""
    return any(b.road_length < a.road_length for a, b in zip(state.hands, after.hands, strict=True))


def _lone_short(state: GameState, number: int) -> bool:
    """True when a roll of ``number`` owes one lone player more of a resource than the bank has."""
    graph = state.board.graph
    owed: dict[int, Counter[int]] = {}
    for t in graph.number_tiles[number]:
        if t == state.robber:
            continue
        r = graph.tile_resource[t]
        for v in graph.tile_vertices[t]:
            o = state.vertex_owner[v]
            if o != NOBODY:
                owed.setdefault(r, Counter())[o] += 2 if v in state.hands[o].cities else 1
    return any(
        sum(row.values()) > state.bank[r] and len(row) == 1 and state.bank[r] > 0
        for r, row in owed.items()
    )


@dataclass
class Report:
    """Differences found over some games, allowed ones counted by name."""

    games: int = 0
    positions: int = 0
    steps: int = 0
    allowed: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)  # first case of each allowed kind
    findings: list[tuple[str, Difference]] = field(default_factory=list)

    def note(self, game: str, d: Difference) -> None:
        """Count an allowed difference, or keep it as a finding."""
        name = classify(d)
        if name is None:
            self.findings.append((game, d))
            return
        self.allowed[name] += 1
        self.examples.setdefault(name, f"[{game}] {d.describe()}")

    def to_json(self) -> dict:
        return {
            "games": self.games,
            "positions": self.positions,
            "steps": self.steps,
            "allowed": dict(self.allowed),
            "examples": dict(self.examples),
            "findings": [
                {"game": g, "side": d.side, "what": d.describe()} for g, d in self.findings
            ],
        }


def referee_game(
    seed: str,
    players: int = 4,
    strategy: str = "random",
    report: Report | None = None,
    max_actions: int = 3000,
) -> Report:
    """Play one game in our engine and compare with catanatron at every step."""
    report = report or Report()
    names = ("red", "blue", "white", "orange")[:players]
    bots = {p: make_bot(strategy, f"{seed}/{p}") for p in names}
    state = new_game(names)
    n = 0
    while state.phase is not Phase.GAME_OVER and n < max_actions:
        for d in compare_position(state):
            report.note(seed, d)
        report.positions += 1
        player = next_actor(state)
        action = bots[player].decide(state, legal_actions(state, player))
        after, resolved = step(state, action, derive_chance(seed, str(n)))
        for d in compare_step(state, resolved, after):
            report.note(seed, d)
        report.steps += 1
        state = after
        n += 1
    report.games += 1
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--strategy", default="random")
    parser.add_argument("--seed", default="referee")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = Report()
    for g in range(args.games):
        referee_game(f"{args.seed}/{g}", args.players, args.strategy, report)
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(f"{report.games} games, {report.positions} positions, {report.steps} steps")
        for name, n in sorted(report.allowed.items()):
            print(f"  allowed {name}: {n}, e.g. {report.examples[name]}")
        seen: Counter[str] = Counter()
        for g, d in report.findings:
            kind = d.describe().split("(")[0]
            seen[kind] += 1
            if seen[kind] <= 3:
                print(f"  FINDING [{g}] {d.describe()}")
        print(f"{len(report.findings)} finding(s)")
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "ALLOWED",
    "Difference",
    "Report",
    "classify",
    "compare_position",
    "compare_step",
    "referee_game",
    "MoveRobber",
]
