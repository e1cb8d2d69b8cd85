"""The statistics screen: the dice against the odds, where the cards went, points by turn.

``draw_stats`` draws a ``rules.stats.GameStats`` into any rectangle, so the window's end
screen, the replay viewer and ``catan-p2p stats --png`` show the same picture.
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p.client import theme  # noqa: E402
from catan_p2p.client.dialogs import Dialog  # noqa: E402
from catan_p2p.client.widgets import draw_text  # noqa: E402
from catan_p2p.net.game import Session  # noqa: E402
from catan_p2p.rules.cards import RESOURCES, Counts  # noqa: E402
from catan_p2p.rules.stats import SUMS, GameStats, PlayerStats, tally  # noqa: E402
from catan_p2p.session.review import replay_states  # noqa: E402

#: The table's columns: heading, and the resource counts or number of a player's figures.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("produced", "produced"),
    ("bank in", "bank_got"),
    ("bank out", "bank_gave"),
    ("trade in", "trade_got"),
    ("trade out", "trade_gave"),
    ("discard", "discarded"),
    ("robbed", "robbed"),
    ("stole", "stole"),
    ("bought", "dev_bought"),
    ("played", "dev_played"),
)


def headline(stats: GameStats) -> str:
    """``Blue won in 86 turns · 86 rolls``, or the game so far."""
    rolls = f"{stats.rolls} roll{'s' * (stats.rolls != 1)}"
    if stats.over and stats.winner:
        return f"{stats.winner.capitalize()} won in {stats.turns} turns · {rolls}"
    if stats.over:
        return f"The game ended after {stats.turns} turns without a winner · {rolls}"
    return f"The game so far: turn {stats.turns} · {rolls} (hidden cards stay hidden)"


def draw_stats(surface: pygame.Surface, rect: pygame.Rect, stats: GameStats) -> None:
    """The whole screen in ``rect``: the dice and points charts above, the table below."""
    draw_text(surface, headline(stats), (rect.left, rect.top), 16, theme.TEXT, True)
    top = rect.top + 28
    chart_h = max(120, int(rect.height * 0.42))
    half = (rect.width - 16) // 2
    draw_dice(surface, pygame.Rect(rect.left, top, half, chart_h), stats)
    draw_points(surface, pygame.Rect(rect.left + half + 16, top, half, chart_h), stats)
    draw_table(
        surface,
        pygame.Rect(rect.left, top + chart_h + 14, rect.width, rect.bottom - top - chart_h - 14),
        stats,
    )


def draw_dice(surface: pygame.Surface, rect: pygame.Rect, stats: GameStats) -> None:
    """One bar per sum as rolled; a white tick where the odds expected it."""
    draw_text(surface, "The dice as they fell (ticks: the odds)", rect.topleft, 14, theme.MUTED)
    plot = pygame.Rect(rect.left, rect.top + 22, rect.width, rect.height - 42)
    pygame.draw.rect(surface, theme.CARD, plot, border_radius=6)
    peak = max([1.0, *stats.dice.values(), *(stats.expected(s) for s in SUMS)])
    w = plot.width / len(SUMS)
    for i, total in enumerate(SUMS):
        x = plot.left + int(i * w) + 4
        bw = max(2, int(w) - 8)
        rolled = stats.dice[total]
        h = int((plot.height - 20) * rolled / peak)
        colour = theme.BAD if total == 7 else theme.BUTTON_HOVER
        pygame.draw.rect(surface, colour, pygame.Rect(x, plot.bottom - h, bw, h))
        e = int((plot.height - 20) * stats.expected(total) / peak)
        pygame.draw.line(
            surface, theme.TEXT, (x - 2, plot.bottom - e), (x + bw + 1, plot.bottom - e), 3
        )
        draw_text(
            surface,
            str(rolled),
            (x + bw // 2, plot.bottom - h - 2),
            12,
            theme.TEXT,
            anchor="midbottom",
        )
        draw_text(
            surface, str(total), (x + bw // 2, plot.bottom + 3), 13, theme.MUTED, True, "midtop"
        )


def draw_points(surface: pygame.Surface, rect: pygame.Rect, stats: GameStats) -> None:
    """Each player's points at the end of every turn (the table's points: hidden victory
    point cards count only once the game's end shows them)."""
    draw_text(surface, "Points by turn", rect.topleft, 14, theme.MUTED)
    plot = pygame.Rect(rect.left, rect.top + 22, rect.width, rect.height - 42)
    pygame.draw.rect(surface, theme.CARD, plot, border_radius=6)
    rows = stats.points
    if not rows:
        return
    goal = max(10, *(max(r) for r in rows))
    span_x = max(1, len(rows) - 1)
    for p in range(0, goal + 1, 2):
        y = plot.bottom - 8 - int((plot.height - 16) * p / goal)
        pygame.draw.line(surface, theme.PANEL_LINE, (plot.left + 22, y), (plot.right - 6, y))
        draw_text(surface, str(p), (plot.left + 4, y - 7), 11, theme.MUTED)
    for seat, player in enumerate(stats.players):
        points = [
            (
                plot.left + 24 + int((plot.width - 32) * t / span_x),
                plot.bottom - 8 - int((plot.height - 16) * row[seat] / goal) - seat,
            )
            for t, row in enumerate(rows)
        ]
        if len(points) > 1:
            pygame.draw.lines(surface, theme.player_colour(player), False, points, 3)
    draw_text(
        surface,
        f"turn {len(rows) - 1}",
        (plot.right, plot.bottom + 3),
        12,
        theme.MUTED,
        anchor="topright",
    )


def _figure(s: PlayerStats, attr: str) -> int | Counts:
    return getattr(s, attr)  # type: ignore[no-any-return]


def draw_table(surface: pygame.Surface, rect: pygame.Rect, stats: GameStats) -> None:
    """One row per player: each figure's total, and a strip of its cards by resource."""
    name_w = 96
    col_w = (rect.width - name_w - 56) // len(COLUMNS)
    for c, (heading, _) in enumerate(COLUMNS):
        x = rect.left + name_w + c * col_w
        draw_text(surface, heading, (x, rect.top), 12, theme.MUTED, True, max_width=col_w - 4)
    draw_text(surface, "points", (rect.right - 52, rect.top), 12, theme.MUTED, True)
    row_h = min(40, max(24, (rect.height - 20) // max(1, len(stats.players))))
    for r, player in enumerate(stats.players):
        s = stats.per_player[player]
        y = rect.top + 20 + r * row_h
        pygame.draw.circle(surface, theme.player_colour(player), (rect.left + 8, y + 9), 7)
        draw_text(surface, player.capitalize(), (rect.left + 20, y), 15, theme.TEXT, True)
        for c, (_, attr) in enumerate(COLUMNS):
            x = rect.left + name_w + c * col_w
            value = _figure(s, attr)
            if isinstance(value, tuple):
                draw_text(surface, str(sum(value)), (x, y), 15)
                if attr != "dev_played":
                    _strip(surface, pygame.Rect(x, y + 19, col_w - 12, 5), value)
            else:
                draw_text(surface, str(value), (x, y), 15)
        extra = f" ({s.victory_cards} VP)" if s.victory_cards else ""
        draw_text(surface, f"{s.points}{extra}", (rect.right - 52, y), 15, theme.TEXT, True)
    notes = (
        "produced: from the dice · bank, trade: cards in and out · discard: after a seven",
        "robbed, stole: cards, never their kind · VP: victory point cards the end showed",
        "bought: development cards, face down until played or the game's end",
    )
    y = rect.top + 28 + len(stats.players) * row_h
    for line in notes:
        if y + 16 <= rect.bottom:
            draw_text(surface, line, (rect.left, y), 12, theme.MUTED, max_width=rect.width)
        y += 18


def _strip(surface: pygame.Surface, rect: pygame.Rect, counts: Counts) -> None:
    """A thin bar split by resource colour, in proportion to ``counts``."""
    total = sum(counts)
    if not total:
        return
    x = rect.left
    for r, n in zip(RESOURCES, counts, strict=True):
        w = round(rect.width * n / total)
        if w:
            pygame.draw.rect(
                surface, theme.RESOURCE_COLOURS[r], pygame.Rect(x, rect.top, w, rect.height)
            )
        x += w


class StatsDialog(Dialog):
    """The statistics screen over the board (the window at a game's end, the replay)."""

    title = "Statistics"

    def __init__(self, stats: GameStats, at: int | None = None) -> None:
        self.stats = stats
        self.at = at  # the replay's index these figures reach (None: the whole game)
        super().__init__(800, 560)

    def place(self, area: pygame.Rect) -> None:
        self.rect.size = (max(600, area.width - 24), max(420, area.height - 24))
        super().place(area)

    def draw_body(self, surface: pygame.Surface) -> None:
        body = pygame.Rect(
            self.rect.left + 18, self.rect.top + 46, self.rect.width - 36, self.rect.height - 100
        )
        draw_stats(surface, body, self.stats)


def stats_dialog(session: Session) -> StatsDialog:
    """The statistics of ``session``'s game: its history (verified commits only: a
    session adopts nothing unverified) replayed through the rules, then counted."""
    states, entries = replay_states(session)
    return StatsDialog(tally(states, [e.action for e in entries]))


def save_png(stats: GameStats, path: Path, size: tuple[int, int] = (1100, 680)) -> Path:
    """Draw the statistics on a surface of ``size`` and save it as a PNG (no window)."""
    pygame.font.init()
    surface = pygame.Surface(size)
    surface.fill(theme.PANEL)
    draw_stats(surface, pygame.Rect(20, 16, size[0] - 40, size[1] - 32), stats)
    path.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(surface, str(path))
    return path
