"""Where each part of the window goes, computed once from the window size."""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from catan_p2p.client import theme


def player_row(n_players: int) -> int:
    """Height of one seat's row in the players' panel: tighter for five or six seats."""
    return 64 if n_players <= 4 else 56


#: A seat's row on one line (name, cards, points): where two would leave the log no room.
COMPACT_ROW = 26
#: Height of the status box: the headline, who acts, what the game expects and three
#: lines of a message (a refusal names the rule and the values).
STATUS_HEIGHT = 124
#: Height of the hand: the five resource cards and two lines of development cards.
HAND_HEIGHT = 136
#: The log keeps its title and at least this many lines, however many seats there are.
LOG_LINES = 4
LOG_LINE = 19


@dataclass(frozen=True)
class Layout:
    """Rectangles of the board, the action bar and the side panel's sections."""

    size: tuple[int, int]
    board: pygame.Rect
    bar: pygame.Rect
    panel: pygame.Rect
    status: pygame.Rect
    players: pygame.Rect
    hand: pygame.Rect
    log: pygame.Rect
    sync: pygame.Rect

    @classmethod
    def for_size(cls, size: tuple[int, int] = theme.WINDOW_SIZE, n_players: int = 4) -> Layout:
        """The window's parts; the players' rows give up height (down to one line each)
        before the log gives up its last ``LOG_LINES`` lines."""
        w, h = size
        pw = theme.PANEL_WIDTH
        board = pygame.Rect(0, 0, w - pw, h - theme.BAR_HEIGHT)
        bar = pygame.Rect(0, h - theme.BAR_HEIGHT, w - pw, theme.BAR_HEIGHT)
        panel = pygame.Rect(w - pw, 0, pw, h)
        x, width = panel.left + 8, pw - 16
        status = pygame.Rect(x, 8, width, STATUS_HEIGHT)
        sync = pygame.Rect(x, h - 34, width, 26)
        log_least = 32 + LOG_LINES * LOG_LINE  # its title (26) and margin (6)
        room = sync.top - 8 - log_least - 8 - HAND_HEIGHT - 8 - (status.bottom + 8) - 30
        row = max(COMPACT_ROW, min(player_row(n_players), room // max(1, n_players)))
        players = pygame.Rect(x, status.bottom + 8, width, 30 + row * n_players)
        hand = pygame.Rect(x, players.bottom + 8, width, HAND_HEIGHT)
        log = pygame.Rect(x, hand.bottom + 8, width, sync.top - hand.bottom - 16)
        return cls(size, board, bar, panel, status, players, hand, log, sync)


def resized_screen(size: tuple[int, int]) -> pygame.Surface:
    """The window's surface after a resize, grown back to the minimum size if smaller."""
    w = max(theme.MIN_WINDOW_SIZE[0], size[0])
    h = max(theme.MIN_WINDOW_SIZE[1], size[1])
    surface = pygame.display.get_surface()
    if surface is None or surface.get_size() != (w, h):
        surface = pygame.display.set_mode((w, h), pygame.RESIZABLE)
    return surface
