"""Colours, fonts and sizes of the client, in one place so the panels agree.

Fonts are loaded once per size and kept: creating a ``pygame.font.Font`` on every
frame costs more than drawing the whole board.
"""

from __future__ import annotations

from functools import cache

import pygame

from catan_p2p.rules.cards import Resource

Colour = tuple[int, int, int]

WINDOW_SIZE = (1280, 800)
MIN_WINDOW_SIZE = (1040, 660)


def window_size(display: tuple[int, int] | None) -> tuple[int, int]:
    """The window size for a display: the usual 1280x800, smaller on small screens."""
    if display is None or display[0] <= 0 or display[1] <= 0:
        return WINDOW_SIZE
    w = max(MIN_WINDOW_SIZE[0], min(WINDOW_SIZE[0], display[0] - 40))
    h = max(MIN_WINDOW_SIZE[1], min(WINDOW_SIZE[1], display[1] - 80))
    return (w, h)


PANEL_WIDTH = 440  # the side panel on the right
BAR_HEIGHT = 96  # the action bar under the board

BACKGROUND: Colour = (24, 58, 94)  # the sea around the board
PANEL: Colour = (30, 33, 40)
PANEL_LINE: Colour = (62, 66, 78)
CARD: Colour = (44, 48, 58)
TEXT: Colour = (232, 232, 226)
MUTED: Colour = (150, 154, 164)
GOOD: Colour = (120, 210, 120)
BAD: Colour = (240, 110, 100)
WARN: Colour = (240, 200, 90)
HIGHLIGHT: Colour = (255, 230, 90)

BUTTON: Colour = (66, 92, 130)
BUTTON_HOVER: Colour = (86, 120, 168)
BUTTON_OFF: Colour = (52, 55, 64)
BUTTON_TEXT_OFF: Colour = (118, 122, 132)

#: Card colours of the five resources (the panel's hand, dialogs).
RESOURCE_COLOURS: dict[Resource, Colour] = {
    Resource.LUMBER: (44, 120, 56),
    Resource.BRICK: (178, 84, 52),
    Resource.WOOL: (140, 196, 90),
    Resource.GRAIN: (226, 186, 60),
    Resource.ORE: (130, 136, 150),
}

#: Short labels that fit on a card.
RESOURCE_SHORT: dict[Resource, str] = {
    Resource.LUMBER: "Lumber",
    Resource.BRICK: "Brick",
    Resource.WOOL: "Wool",
    Resource.GRAIN: "Grain",
    Resource.ORE: "Ore",
}

#: Fallback colours of the usual seat names (the board renderer has its own too).
PLAYER_COLOURS: dict[str, Colour] = {
    "red": (214, 58, 52),
    "blue": (52, 110, 220),
    "white": (236, 236, 236),
    "orange": (240, 146, 40),
    "green": (60, 170, 80),
    "brown": (140, 90, 50),
}


def player_colour(name: str) -> Colour:
    """Colour of a seat: its own colour when the name is one, else a stable grey-blue."""
    if name in PLAYER_COLOURS:
        return PLAYER_COLOURS[name]
    h = sum(map(ord, name))
    return (90 + h * 37 % 140, 90 + h * 53 % 140, 90 + h * 71 % 140)


def ink_on(colour: Colour) -> Colour:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b = colour
    return (20, 20, 20) if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (250, 250, 250)


@cache
def font(size: int, bold: bool = False) -> pygame.font.Font:
    """A sans-serif font of ``size`` pixels (DejaVu Sans when installed, else pygame's)."""
    if not pygame.font.get_init():
        pygame.font.init()
    path = pygame.font.match_font("dejavusans,freesans,arial,helvetica", bold=bold)
    f = pygame.font.Font(path, size)
    if path is None:
        f.set_bold(bold)
    return f
