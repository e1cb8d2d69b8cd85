"""A ring on the board around the place of the last action, so moves by others are easy to see."""

from __future__ import annotations

import pygame

from catan_p2p.client import theme
from catan_p2p.client.render import BoardView
from catan_p2p.rules.actions import Action, BuildCity, BuildRoad, BuildSettlement, MoveRobber


def mark_place(surface: pygame.Surface, view: BoardView, action: Action | None) -> None:
    """Circle the vertex, edge or robber tile ``action`` was played on (nothing otherwise)."""
    if isinstance(action, BuildSettlement | BuildCity):
        at = view.vertex_pos(action.vertex)
        radius = 0.36
    elif isinstance(action, BuildRoad):
        at = view.edge_pos(action.edge)
        radius = 0.42
    elif isinstance(action, MoveRobber):
        at = view.robber_pos(action.tile)
        radius = 0.34
    else:
        return
    r = max(6, round(view.hex_size * radius))
    centre = (round(at[0]), round(at[1]))
    colour = theme.player_colour(action.player)
    pygame.draw.circle(surface, (20, 20, 20), centre, r + 2, width=5)
    pygame.draw.circle(surface, colour, centre, r, width=3)
