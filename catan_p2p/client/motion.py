"""Produced cards fly from their tiles to their players' rows after a roll.

Like ``animate``, pure drawing of a ``progress`` (0 at the roll, 1 at the end): the
window draws whichever moment its clock says and never waits for one. What flew is
read from the two states (the cards each hand gained), never worked out again from the
rules; a card starts at a tile of its resource and the rolled number next to one of the
player's buildings, or at the board's centre when the table cannot say which.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from catan_p2p.client import theme
from catan_p2p.client.animate import TUMBLE
from catan_p2p.client.layout import player_row
from catan_p2p.client.render import BoardView
from catan_p2p.rules.cards import Resource, sub
from catan_p2p.rules.state import GameState

Point = tuple[float, float]
CARD = (18, 26)  # a flying card's size
STAGGER = 0.06  # of the flight's time between one card's start and the next one's


@dataclass(frozen=True)
class Flight:
    """One card on its way: what, from where, to where, and when it sets off (0..1 of
    the flight's time)."""

    resource: Resource
    start: Point
    end: Point
    delay: float = 0.0


def player_point(players: pygame.Rect, n_players: int, seat: int) -> Point:
    """Where a seat's row of the players' panel starts (``panels.draw_players``)."""
    top = players.top + 26
    row_h = min(player_row(n_players), (players.bottom - top - 4) // max(1, n_players))
    return (players.left + 40, top + seat * row_h + row_h / 2)


def _origin(state: GameState, view: BoardView, seat: int, resource: int, total: int) -> Point:
    graph = state.board.graph
    hand = state.hands[seat]
    mine = hand.settlements | hand.cities
    for t in graph.number_tiles.get(total, ()):
        if graph.tile_resource[t] == resource and mine.intersection(graph.tile_vertices[t]):
            return view.tile_center(graph.tiles[t])
    return (view.origin[0] + view.size[0] / 2, view.origin[1] + view.size[1] / 2)


def flights(
    before: GameState, after: GameState, view: BoardView, players: pygame.Rect, total: int
) -> list[Flight]:
    """The cards each player gained from ``before`` to ``after``, as flights."""
    out: list[Flight] = []
    for seat in range(len(after.players)):
        got = sub(after.hands[seat].resources, before.hands[seat].resources)
        end = player_point(players, len(after.players), seat)
        for r, n in enumerate(got):
            for _ in range(max(0, n)):
                start = _origin(after, view, seat, r, total)
                out.append(Flight(Resource(r), start, end, min(0.5, STAGGER * len(out))))
    return out


def _ease(t: float) -> float:
    return 1 - (1 - t) ** 3


def draw_flights(surface: pygame.Surface, cards: list[Flight], progress: float) -> None:
    """The cards at ``progress`` of the roll's animation (they fly after the tumble)."""
    if progress < TUMBLE:
        return
    t = (progress - TUMBLE) / (1 - TUMBLE)
    for f in cards:
        u = (t - f.delay) / (1 - f.delay) if f.delay < 1 else 1.0
        if u <= 0 or u >= 1:
            continue
        e = _ease(u)
        x = f.start[0] + (f.end[0] - f.start[0]) * e
        y = f.start[1] + (f.end[1] - f.start[1]) * e - 60 * (1 - (2 * e - 1) ** 2)  # an arc
        rect = pygame.Rect(0, 0, *CARD)
        rect.center = (int(x), int(y))
        pygame.draw.rect(surface, theme.RESOURCE_COLOURS[f.resource], rect, border_radius=3)
        pygame.draw.rect(surface, (20, 20, 20), rect, width=2, border_radius=3)
