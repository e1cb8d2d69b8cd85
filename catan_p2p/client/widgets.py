"""Small drawing and input pieces shared by the panels and dialogs: text, buttons, steppers.

Widgets are plain objects with a rectangle, ``draw(surface)`` and ``click(pos)``; the
app routes a mouse release to the first widget under it. They know nothing of the
rules: a button just calls what it was given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pygame

from catan_p2p.client import theme
from catan_p2p.client.theme import Colour
from catan_p2p.printable import shown


def draw_text(
    surface: pygame.Surface,
    text: str,
    pos: tuple[int, int],
    size: int = 15,
    colour: Colour = theme.TEXT,
    bold: bool = False,
    anchor: str = "topleft",
    max_width: int | None = None,
) -> pygame.Rect:
    """Draw one line of text anchored at ``pos``; cut with an ellipsis past ``max_width``.
    Every text passes ``printable.shown``: a name from a remote may hold anything (a NUL
    byte made pygame raise)."""
    f = theme.font(size, bold)
    text = shown(text)
    if max_width is not None:
        text = fit_text(text, f, max_width)
    image = f.render(text, True, colour)
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)
    return rect


def fit_text(text: str, f: pygame.font.Font, width: int) -> str:
    """``text`` shortened with an ellipsis so it renders within ``width`` pixels."""
    if f.size(text)[0] <= width:
        return text
    while text and f.size(text + "…")[0] > width:
        text = text[:-1]
    return text + "…"


def wrap_text(text: str, f: pygame.font.Font, width: int) -> list[str]:
    """Split ``text`` into lines that fit ``width`` pixels, breaking at spaces."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if f.size(candidate)[0] <= width or not line:
            line = candidate
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def shade(colour: Colour, factor: float) -> Colour:
    """``colour`` darkened (factor < 1) or lightened (factor > 1)."""
    if factor <= 1:
        return tuple(int(c * factor) for c in colour)  # type: ignore[return-value]
    return tuple(int(c + (255 - c) * (factor - 1)) for c in colour)  # type: ignore[return-value]


@dataclass(eq=False)
class Button:
    """A labelled rectangle that runs ``on_click`` when released over, if enabled.

    A disabled button still answers clicks through ``on_refused`` so the client can
    say why the action is not possible now.
    """

    label: str
    rect: pygame.Rect
    on_click: Callable[[], None]
    enabled: bool = True
    key: str | None = None  # keyboard shortcut shown in the corner
    colour: Colour | None = None
    selected: bool = False
    on_refused: Callable[[], None] | None = None
    size: int = 15
    tag: object = None  # what the button is about (e.g. the player it answers for)

    def draw(self, surface: pygame.Surface, mouse: tuple[int, int] | None = None) -> None:
        hover = self.enabled and mouse is not None and self.rect.collidepoint(mouse)
        if not self.enabled:
            fill, ink = theme.BUTTON_OFF, theme.BUTTON_TEXT_OFF
        else:
            fill = self.colour or theme.BUTTON
            if hover:
                fill = shade(fill, 1.25)
            ink = theme.ink_on(fill)
        pygame.draw.rect(surface, fill, self.rect, border_radius=6)
        if self.selected:
            pygame.draw.rect(surface, theme.HIGHLIGHT, self.rect, width=3, border_radius=6)
        else:
            pygame.draw.rect(surface, shade(fill, 0.7), self.rect, width=1, border_radius=6)
        draw_text(
            surface,
            self.label,
            self.rect.center,
            self.size,
            ink,
            anchor="center",
            max_width=self.rect.width - 8,
        )
        if self.key:
            draw_text(
                surface,
                self.key,
                (self.rect.right - 4, self.rect.top + 2),
                11,
                shade(ink, 0.75) if ink[0] > 128 else shade(ink, 1.6),
                anchor="topright",
            )

    def click(self, pos: tuple[int, int]) -> bool:
        """Run the button if ``pos`` is on it; True when the click was taken."""
        if not self.rect.collidepoint(pos):
            return False
        if self.enabled:
            self.on_click()
        elif self.on_refused is not None:
            self.on_refused()
        return True


@dataclass(eq=False)
class Stepper:
    """A count between ``low`` and ``high``: a card showing it, minus and plus under it."""

    label: str
    rect: pygame.Rect
    high: int
    low: int = 0
    value: int = 0
    colour: Colour = theme.CARD
    on_change: Callable[[], None] | None = None
    tag: object = None  # what the count is about (e.g. a player and a resource)
    buttons: list[Button] = field(default_factory=list)

    HEIGHT = 64  # card and buttons; callers give rects of this height

    def __post_init__(self) -> None:
        r = self.rect
        half = (r.width - 4) // 2
        row = pygame.Rect(r.left, r.bottom - 24, half, 24)
        self.buttons = [
            Button("−", row, lambda: self.set(self.value - 1), size=18),
            Button("+", row.move(half + 4, 0), lambda: self.set(self.value + 1), size=18),
        ]

    @property
    def minus(self) -> Button:
        return self.buttons[0]

    @property
    def plus(self) -> Button:
        return self.buttons[1]

    def set(self, value: int) -> None:
        self.value = max(self.low, min(self.high, value))
        if self.on_change is not None:
            self.on_change()

    def draw(self, surface: pygame.Surface, mouse: tuple[int, int] | None = None) -> None:
        self.minus.enabled = self.value > self.low
        self.plus.enabled = self.value < self.high
        r = self.rect
        card = pygame.Rect(r.left, r.top, r.width, r.height - 28)
        draw_card(surface, card, self.colour, self.label, self.value, dim=self.high <= self.low)
        for b in self.buttons:
            b.draw(surface, mouse)

    def click(self, pos: tuple[int, int]) -> bool:
        return any(b.click(pos) for b in self.buttons)


def draw_card(
    surface: pygame.Surface,
    rect: pygame.Rect,
    colour: Colour,
    label: str,
    count: int | str,
    dim: bool = False,
) -> None:
    """A card face: coloured rectangle with a label on top and a big count."""
    fill = shade(colour, 0.45) if dim else colour
    pygame.draw.rect(surface, fill, rect, border_radius=6)
    pygame.draw.rect(surface, shade(fill, 0.6), rect, width=1, border_radius=6)
    ink = theme.ink_on(fill)
    draw_text(surface, label, (rect.centerx, rect.top + 4), 11, ink, anchor="midtop")
    big = 22 if rect.height >= 48 else 17
    draw_text(surface, str(count), (rect.centerx, rect.bottom - 2), big, ink, True, "midbottom")


def panel_box(surface: pygame.Surface, rect: pygame.Rect, title: str | None = None) -> int:
    """A framed section of the side panel; returns the y where its content starts."""
    pygame.draw.rect(surface, theme.CARD, rect, border_radius=8)
    if title:
        draw_text(surface, title, (rect.left + 10, rect.top + 6), 13, theme.MUTED, True)
        return rect.top + 26
    return rect.top + 8
