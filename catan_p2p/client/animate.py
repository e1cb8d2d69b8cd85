"""The short animations after a roll: tumbling dice, then the producing tiles glow.

Pure drawing functions of ``progress`` (0 at the roll, 1 at the end), so a test or a
tool can draw any moment of an animation without waiting for it.
"""

from __future__ import annotations

import math

import pygame

from catan_p2p.client import panels, theme
from catan_p2p.client.render import BoardView
from catan_p2p.rules.cards import Resource
from catan_p2p.rules.state import GameState

#: The first part of the animation the dice tumble; the rest they show the roll.
TUMBLE = 0.45


def dice_rects(status: pygame.Rect) -> tuple[pygame.Rect, pygame.Rect]:
    """Where ``panels.draw_status`` draws the two dice."""
    die = 36
    right = status.right - 12
    y = status.top + 8
    return (
        pygame.Rect(right - 2 * die - 6, y + 4, die, die),
        pygame.Rect(right - die, y + 4, die, die),
    )


def tumbling_dice(
    surface: pygame.Surface, status: pygame.Rect, dice: tuple[int, int], progress: float
) -> None:
    """While ``progress < TUMBLE`` the dice show changing faces, tilted, then settle."""
    if progress >= TUMBLE:
        return
    step = int(progress * 40)
    for k, rect in enumerate(dice_rects(status)):
        face = (dice[k] + 2 * step + 3 * k) % 6 + 1
        wobble = int(4 * math.sin(progress * 40 + k))
        pygame.draw.rect(surface, theme.CARD, rect.inflate(10, 10))
        panels.draw_die(surface, rect.move(wobble, -abs(wobble)), face)


def production(
    surface: pygame.Surface, view: BoardView, state: GameState, total: int, progress: float
) -> None:
    """After the tumble, tiles with the rolled number glow and their produce rises."""
    if progress < TUMBLE or total == 7:
        return
    t = (progress - TUMBLE) / (1 - TUMBLE)
    graph = state.board.graph
    glow = pygame.Surface(view.size, pygame.SRCALPHA)  # the board's, not the window's
    ox, oy = view.origin
    for i, tile in enumerate(graph.tiles):
        if graph.tile_number[i] != total or graph.tile_resource[i] < 0:
            continue
        x, y = view.tile_center(tile)
        x, y = x - ox, y - oy
        blocked = tile == state.board.graph.tiles[state.robber]
        colour = (90, 90, 90) if blocked else theme.HIGHLIGHT
        radius = int(view.hex_size * (0.55 + 0.35 * t))
        pygame.draw.circle(glow, (*colour, int(230 * (1 - t))), (int(x), int(y)), radius, 8)
        if not blocked:
            resource = Resource(graph.tile_resource[i])
            fade = int(255 * min(1.0, 2 * (1 - t)))
            centre = (int(x), int(y - view.hex_size * (0.35 + 0.45 * t)))
            label = theme.font(15, True).render(f"+{resource.label}", True, (255, 255, 255))
            pill = label.get_rect(center=centre).inflate(14, 6)
            pygame.draw.rect(
                glow, (*theme.RESOURCE_COLOURS[resource], fade), pill, border_radius=10
            )
            pygame.draw.rect(glow, (20, 20, 20, fade), pill, width=2, border_radius=10)
            label.set_alpha(fade)
            glow.blit(label, label.get_rect(center=centre))
    surface.blit(glow, view.origin)
