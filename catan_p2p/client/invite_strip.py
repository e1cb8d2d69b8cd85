"""The invitation of a game still waiting for seats, drawn over the top of the board with
a button that copies it (``client.clipboard``): the one line a friend pastes into
``catan-p2p join`` or the lobby's field.
"""

from __future__ import annotations

import pygame

from catan_p2p.client import clipboard, theme
from catan_p2p.client.widgets import Button, draw_text

HEIGHT = 62


def draw(
    surface: pygame.Surface, board: pygame.Rect, invite: str, open_seats: list[str], say
) -> Button:  # type: ignore[no-untyped-def]
    """Draw the strip at the top of ``board``; returns its copy button (``say(text,
    error)`` reports how the copy went)."""
    rect = pygame.Rect(board.left + 8, board.top + 8, board.width - 16, HEIGHT)
    pygame.draw.rect(surface, theme.CARD, rect, border_radius=8)
    pygame.draw.rect(surface, theme.HIGHLIGHT, rect, width=2, border_radius=8)
    seats = ", ".join(p.capitalize() for p in open_seats) or "-"
    draw_text(
        surface,
        f"Waiting for {seats}: invite a friend with this line (`catan-p2p join LINE`, or "
        "the lobby)",
        (rect.left + 10, rect.top + 8),
        14,
        theme.TEXT,
        True,
        max_width=rect.width - 150,
    )
    draw_text(surface, invite, (rect.left + 10, rect.top + 34), 13, theme.MUTED,
              max_width=rect.width - 150)  # fmt: skip

    def copied() -> None:
        if clipboard.copy(invite):
            say("invitation copied: paste it to your friend", False)
        else:
            print(f"Invitation: {invite}")
            say("no clipboard here: the invitation is printed in the terminal", True)

    return Button(
        "Copy invite",
        pygame.Rect(rect.right - 132, rect.top + 14, 120, 34),
        copied,
        colour=(70, 140, 80),
        size=14,
    )
