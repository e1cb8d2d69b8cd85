"""The side panel: status and dice, every player's public state, the hand, the log, sync.

Each function draws one section into a rectangle from the state it is given, and
keeps no state of its own, so the live window and the replay viewer share them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pygame

from catan_p2p import clock
from catan_p2p.client import theme
from catan_p2p.client.layout import LOG_LINE, player_row
from catan_p2p.client.widgets import (
    draw_card,
    draw_text,
    fit_text,
    panel_box,
    shade,
    wrap_text,
)
from catan_p2p.net.chat import ChatMessage
from catan_p2p.net.game import LogEntry, SyncStatus
from catan_p2p.rules.board import Board
from catan_p2p.rules.cards import (
    CITY_COST,
    DEV_CARD_COST,
    RESOURCES,
    ROAD_COST,
    SETTLEMENT_COST,
    DevCard,
)
from catan_p2p.rules.places import in_words
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.rules.waiting import expecting
from catan_p2p.trust.views import hidden_count

PIP_SPOTS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}

DEV_SHORT = {
    DevCard.KNIGHT: "Knight",
    DevCard.VICTORY_POINT: "Victory point",
    DevCard.ROAD_BUILDING: "Road building",
    DevCard.YEAR_OF_PLENTY: "Year of plenty",
    DevCard.MONOPOLY: "Monopoly",
}


def plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def draw_die(surface: pygame.Surface, rect: pygame.Rect, value: int, dim: bool = False) -> None:
    """One die face with its pips."""
    face = (120, 120, 120) if dim else (246, 244, 236)
    pygame.draw.rect(surface, face, rect, border_radius=8)
    pygame.draw.rect(surface, (60, 60, 60), rect, width=2, border_radius=8)
    step = rect.width // 4
    for dx, dy in PIP_SPOTS.get(value, []):
        pygame.draw.circle(
            surface, (30, 30, 30), (rect.centerx + dx * step, rect.centery + dy * step), 4
        )


@dataclass
class StatusDrawn:
    """What ``draw_status`` drew: who acts (as shown, and where), where the dice and their
    sum went, and each line below them (what the game expects, then the message)."""

    label: str
    label_rect: pygame.Rect
    dice: pygame.Rect
    lines: list[pygame.Rect] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


def draw_status(
    surface: pygame.Surface,
    rect: pygame.Rect,
    state: GameState,
    acting: str | None,
    message: str | None,
    message_is_error: bool = True,
) -> StatusDrawn:
    """Turn, who acts, what the game expects, the dice and the last message; returns
    where who acts went, where the dice went and each line below them as drawn."""
    panel_box(surface, rect)
    current = state.players[state.current]
    x, y = rect.left + 12, rect.top + 8
    if state.is_setup:
        headline = "Set-up"
    elif state.is_over:
        headline = f"Game over after {state.turn} turns"
    else:
        headline = f"Turn {state.turn}"
    draw_text(surface, headline, (x, y), 14, theme.MUTED, True)
    who = acting or current
    if state.is_over:
        who = state.players[state.winner if state.winner >= 0 else state.abandoned]
    pygame.draw.circle(surface, theme.player_colour(who), (x + 8, y + 32), 8)
    pygame.draw.circle(surface, (0, 0, 0), (x + 8, y + 32), 8, width=1)
    if state.is_over and state.winner < 0:
        label = f"Ended without {who.capitalize()}"
    elif state.is_over:
        label = f"{who.capitalize()} wins with {state.points(state.winner)} points"
    elif acting and acting != current and state.phase is Phase.TRADE:
        label = f"{who.capitalize()} to answer {current.capitalize()}'s offer"
    elif acting and acting != current and state.phase is Phase.DISCARD:
        label = f"{who.capitalize()} to discard"
    elif acting and state.phase is Phase.SPECIAL_BUILD:
        label = f"{who.capitalize()} builds"
    elif acting:
        label = f"{who.capitalize()} to play"
    else:
        label = f"waiting for {who.capitalize()}"
    die = 36
    right = rect.right - 12
    first = pygame.Rect(right - 2 * die - 6, y + 4, die, die)
    second = pygame.Rect(right - die, y + 4, die, die)
    dice_left = first.left - 8 - theme.font(18, True).size("12 =")[0]
    if state.dice is not None:
        a, b = state.dice
        draw_die(surface, first, a)
        draw_die(surface, second, b)
        draw_text(
            surface, f"{a + b} =", (first.left - 8, first.centery), 18, theme.TEXT, True, "midright"
        )
    else:
        draw_die(surface, first, 0, dim=True)
        draw_die(surface, second, 0, dim=True)
    # Who acts: left of the dice and their sum, in a smaller type before it is ever cut.
    room = dice_left - 8 - (x + 22)
    size = next((n for n in (18, 16, 14) if theme.font(n, True).size(label)[0] <= room), 14)
    label_rect = draw_text(
        surface, label, (x + 22, y + 32), size, theme.TEXT, True, "midleft", room
    )
    dice = pygame.Rect(dice_left, first.top, second.right - dice_left, die)
    drawn = StatusDrawn(fit_text(label, theme.font(size, True), room), label_rect, dice)
    _below_dice(surface, rect, state, message, message_is_error, drawn)
    return drawn


def _below_dice(
    surface: pygame.Surface,
    rect: pygame.Rect,
    state: GameState,
    message: str | None,
    message_is_error: bool,
    drawn: StatusDrawn,
) -> None:
    """The status box's lines under the dice, the whole width: what the game expects,
    then the message, each wrapped; a message gets every line left (one type smaller if
    that makes it fit) and is cut only where no type size fits it."""
    x = rect.left + 12
    width = rect.width - 24
    top, bottom = rect.top + 58, rect.bottom - 4
    expected = wrap_text(expecting(state), theme.font(14), width)[:2]
    for line in expected:
        drawn.lines.append(draw_text(surface, line, (x, top), 14, theme.TEXT, max_width=width))
        drawn.texts.append(fit_text(line, theme.font(14), width))
        top += 17
    if not message:
        return
    ink = theme.BAD if message_is_error else theme.GOOD
    for size, step in ((13, 15), (12, 14)):
        lines = wrap_text(message, theme.font(size), width)
        if top + step * len(lines) <= bottom:
            break
    fits = max(1, (bottom - top) // step)
    if len(lines) > fits:
        lines = [*lines[: fits - 1], " ".join(lines[fits - 1 :])]
    for line in lines:
        drawn.lines.append(draw_text(surface, line, (x, top), size, ink, max_width=width))
        drawn.texts.append(fit_text(line, theme.font(size), width))
        top += step


def _badge(surface: pygame.Surface, text: str, pos: tuple[int, int], colour: theme.Colour) -> int:
    f = theme.font(11, True)
    w = f.size(text)[0] + 10
    r = pygame.Rect(pos[0], pos[1], w, 17)
    pygame.draw.rect(surface, colour, r, border_radius=8)
    draw_text(surface, text, r.center, 11, theme.ink_on(colour), True, "center")
    return w


def draw_players(
    surface: pygame.Surface,
    rect: pygame.Rect,
    state: GameState,
    viewer: str | None,
    mine: GameState | None = None,
) -> None:
    """Each seat: points, cards, development cards, awards and pieces left.

    ``mine`` is the viewer's own view (``Session.view``): its hidden cards count there.
    """
    mine = state if mine is None else mine
    top = panel_box(surface, rect, "Players")
    row_h = min(
        player_row(len(state.players)), (rect.bottom - top - 4) // max(1, len(state.players))
    )
    for seat, player in enumerate(state.players):
        hand = state.hands[seat]
        y = top + seat * row_h
        row = pygame.Rect(rect.left + 6, y, rect.width - 12, row_h - 4)
        if seat == state.current and not state.is_over:
            pygame.draw.rect(surface, shade(theme.CARD, 1.25), row, border_radius=6)
        colour = theme.player_colour(player)
        pygame.draw.rect(
            surface,
            colour,
            pygame.Rect(row.left + 4, row.top + 6, 8, row.height - 12),
            border_radius=3,
        )
        own = player == viewer
        shown = mine.points(seat) if (own or state.is_over) else state.public_points(seat)
        hidden = mine.hands[seat].victory_cards if own and not state.is_over else 0
        pts = f"{shown} VP" + (f" ({hidden} hidden)" if hidden else "")
        dev = hidden_count(state, seat)
        facts = (
            f"{plural(hand.card_count, 'card')} · {dev} dev · "
            f"{plural(hand.knights, 'knight')} · road {hand.road_length}"
        )
        if row_h < COMPACT_BELOW:  # one line: the log keeps its room (six seats, small window)
            _compact_row(surface, row, state, seat, player, pts, facts)
            continue
        draw_text(surface, player.capitalize(), (row.left + 20, row.top + 4), 16, theme.TEXT, True)
        draw_text(surface, pts, (row.right - 8, row.top + 4), 16, theme.TEXT, True, "topright")
        bx = row.left + 110
        if state.longest_road == seat:
            bx += _badge(surface, "Longest road", (bx, row.top + 6), (200, 160, 60)) + 4
        if state.largest_army == seat:
            _badge(surface, "Largest army", (bx, row.top + 6), (170, 90, 170))
        draw_text(surface, facts, (row.left + 20, row.top + 24), 13, theme.TEXT)
        left = (
            f"left: {hand.roads_left} roads, {hand.settlements_left} settlements, "
            f"{hand.cities_left} cities"
        )
        if row_h >= 60:
            draw_text(surface, left, (row.left + 20, row.top + 41), 12, theme.MUTED)
        elif row_h >= 54:  # five or six seats: the same line, closer
            draw_text(surface, left, (row.left + 20, row.top + 38), 11, theme.MUTED)
        if seat < len(state.discards) and state.phase is Phase.DISCARD and state.discards[seat]:
            draw_text(
                surface,
                f"discards {state.discards[seat]}",
                (row.right - 8, row.top + 24),
                13,
                theme.WARN,
                anchor="topright",
            )


#: A seat's row lower than this is drawn on one line (``_compact_row``).
COMPACT_BELOW = 40


def _compact_row(
    surface: pygame.Surface,
    row: pygame.Rect,
    state: GameState,
    seat: int,
    player: str,
    points: str,
    facts: str,
) -> None:
    """A seat on one line: name, cards and the rest, awards as short badges, points."""
    mid = row.centery
    name = draw_text(
        surface, player.capitalize(), (row.left + 20, mid), 14, theme.TEXT, True, "midleft"
    )
    right = draw_text(surface, points, (row.right - 8, mid), 14, theme.TEXT, True, "midright").left
    marks = []
    if state.longest_road == seat:
        marks.append(("Road", (200, 160, 60)))
    if state.largest_army == seat:
        marks.append(("Army", (170, 90, 170)))
    if seat < len(state.discards) and state.phase is Phase.DISCARD and state.discards[seat]:
        marks.append((f"discards {state.discards[seat]}", theme.WARN))
    for text, colour in reversed(marks):
        width = theme.font(11, True).size(text)[0] + 10
        right -= width + 4
        _badge(surface, text, (right, mid - 8), colour)
    left = max(row.left + 84, name.right + 10)
    draw_text(
        surface, facts, (left, mid), 12, theme.TEXT, anchor="midleft", max_width=right - left - 6
    )


def draw_hand(
    surface: pygame.Surface,
    rect: pygame.Rect,
    state: GameState,
    viewer: str | None,
    hidden_for: str | None = None,
    unread: int = 0,
) -> None:
    """The viewer's resource cards and development cards (new ones marked).

    With no ``viewer`` the panel stays face down; ``hidden_for`` names whose hand waits
    behind a hot-seat "pass to" screen; ``unread`` counts the viewer's face-down cards
    it cannot read yet (just bought: the other seats open them with their next rolls).
    """
    if viewer is None or viewer not in state.players:
        top = panel_box(surface, rect, "Hand")
        if hidden_for is not None:
            w = (rect.width - 20 - 4 * 6) // 5
            for r in RESOURCES:
                card = pygame.Rect(rect.left + 10 + r * (w + 6), top, w, 52)
                draw_card(surface, card, (70, 64, 84), "", "?", dim=True)
            draw_text(
                surface,
                f"hidden until {hidden_for.capitalize()} takes the screen",
                (rect.left + 10, top + 62),
                13,
                theme.MUTED,
            )
        return
    hand = state.hands[state.seat(viewer)]
    top = panel_box(
        surface, rect, f"{viewer.capitalize()}'s hand ({plural(hand.card_count, 'card')})"
    )
    w = (rect.width - 20 - 4 * 6) // 5
    for r in RESOURCES:
        card = pygame.Rect(rect.left + 10 + r * (w + 6), top, w, 52)
        draw_card(
            surface,
            card,
            theme.RESOURCE_COLOURS[r],
            theme.RESOURCE_SHORT[r],
            hand.resources[r],
            dim=hand.resources[r] == 0,
        )
    y = top + 60
    x = rect.left + 10
    chips = []
    for card in DevCard:
        held, new = hand.dev_cards[card], hand.new_dev_cards[card]
        if held:
            chips.append((f"{DEV_SHORT[card]} ×{held}", (92, 70, 130)))
        if new:
            chips.append((f"{DEV_SHORT[card]} ×{new} (new)", (70, 64, 84)))
    if unread:
        chips.append(
            (f"{unread} just bought: shown and playable from your next turn", (70, 64, 84))
        )
    if not chips:
        draw_text(surface, "no development cards", (x, y + 2), 13, theme.MUTED)
    f = theme.font(12, True)
    for text, colour in chips:
        cw = f.size(text)[0] + 14
        if x + cw > rect.right - 8:
            x = rect.left + 10
            y += 24
        chip = pygame.Rect(x, y, cw, 20)
        pygame.draw.rect(surface, colour, chip, border_radius=10)
        draw_text(surface, text, chip.center, 12, theme.TEXT, True, "center")
        x += cw + 6


def draw_spectator_hand(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """A spectator's hand panel: what it may see of the hands is in the players' rows."""
    top = panel_box(surface, rect, "Watching")
    for i, line in enumerate(
        (
            "A spectator holds no seat: resource cards show in each",
            "player's row above, development cards only as a count,",
            "face down, until they are played.",
        )
    ):
        draw_text(surface, line, (rect.left + 10, top + 4 + 18 * i), 13, theme.MUTED)


def draw_log(
    surface: pygame.Surface,
    rect: pygame.Rect,
    entries: Sequence[LogEntry],
    highlight: int | None = None,
    title: str = "Log",
    board: Board | None = None,
    said: Mapping[str, str] | None = None,
) -> list[tuple[pygame.Rect, int]]:
    """The last actions (or those around ``highlight``); returns each line's rect and index.

    With ``board``, places are named in words ("road between ore 8 and grain 6");
    ``said`` gives the words of entries their subject cannot say in full (commit ->
    text, ``session.wording.spoken``).
    """
    top = panel_box(surface, rect, f"{title} ({plural(len(entries), 'action')})")
    line_h = LOG_LINE
    rows = max(1, (rect.bottom - top - 6) // line_h)
    if highlight is None:
        first = max(0, len(entries) - rows)
    else:
        first = max(0, min(highlight - rows // 2, len(entries) - rows))
    out = []
    for i, entry in enumerate(entries[first : first + rows]):
        index = first + i
        y = top + i * line_h
        line = pygame.Rect(rect.left + 6, y, rect.width - 12, line_h)
        if index == highlight:
            pygame.draw.rect(surface, shade(theme.HIGHLIGHT, 0.45), line, border_radius=4)
        pygame.draw.circle(surface, theme.player_colour(entry.author), (line.left + 8, y + 9), 5)
        commit = entry.commit[:7] if len(entry.commit) > 6 else f"#{entry.commit}"
        draw_text(surface, commit, (line.left + 18, y + 2), 12, theme.MUTED)
        summary = (said or {}).get(entry.commit, entry.summary)
        draw_text(
            surface,
            in_words(board, summary) if board is not None else summary,
            (line.left + 74, y + 1),
            13,
            theme.TEXT,
            max_width=line.width - 80,
        )
        out.append((line, index))
    return out


def draw_sync(
    surface: pygame.Surface,
    rect: pygame.Rect,
    status: SyncStatus | None,
    networked: bool,
    sending: bool = False,
    local_text: str = "hot-seat: every seat plays in this window",
    waiting_on: tuple[str, float | None] | None = None,
) -> None:
    """The sync indicator: peers, ahead/behind, time since the last fetch, errors.

    ``waiting_on`` is the remote player the game waits for and when that player's
    branch last moved; after ``SILENT_AFTER`` seconds the line says they may be offline.
    """
    pygame.draw.rect(surface, theme.CARD, rect, border_radius=6)
    x, cy = rect.left + 10, rect.centery
    if not networked:
        pygame.draw.circle(surface, theme.GOOD, (x + 5, cy), 5)
        text = local_text
        if status is not None and status.error:
            text = status.error
        draw_text(
            surface,
            text,
            (x + 16, cy),
            13,
            theme.MUTED,
            anchor="midleft",
            max_width=rect.width - 30,
        )
        return
    if status is None:
        pygame.draw.circle(surface, theme.WARN, (x + 5, cy), 5)
        draw_text(surface, "connecting…", (x + 16, cy), 13, theme.WARN, anchor="midleft")
        return
    if status.error:
        colour, ink = theme.BAD, theme.BAD
    elif status.forks:
        colour, ink = theme.WARN, theme.WARN
    else:
        colour, ink = theme.GOOD, theme.TEXT
    pygame.draw.circle(surface, colour, (x + 5, cy), 5)
    if status.last_fetch is None:
        fetched = "never fetched"
    else:
        fetched = f"fetched {max(0, int(clock.now() - status.last_fetch))} s ago"
    text = f"{len(status.peers)} peers · ahead {status.ahead} · behind {status.behind} · {fetched}"
    if waiting_on is not None and not status.error:
        player, heard = waiting_on
        if heard is None:
            text = f"{player.capitalize()}: no move seen yet · {fetched}"
        else:
            quiet = max(0.0, clock.now() - heard)
            text = f"{player.capitalize()} last moved {ago(quiet)} ago · {fetched}"
            if quiet > SILENT_AFTER:
                colour, ink = theme.WARN, theme.WARN
                text = f"{player.capitalize()} silent for {ago(quiet)}: offline? · {fetched}"
        pygame.draw.circle(surface, colour, (x + 5, cy), 5)
    if status.forks:
        text += f" · FORK: {status.forks[0]}"
    elif status.waiting:
        text += f" · {status.waiting[0]}"
    elif status.points_down:
        text += f" · {status.points_down[0]}"
    if status.error:
        text = f"retrying · {status.error}"
    elif sending:
        text = "sending your action… · " + text
    draw_text(surface, text, (x + 16, cy), 13, ink, anchor="midleft", max_width=rect.width - 30)


#: After this many seconds without a move from the player the game waits on, say so.
SILENT_AFTER = 120.0


def ago(seconds: float) -> str:
    """``12 s``, ``3 min``, ``2 h``: a rough age for the sync line."""
    if seconds < 90:
        return f"{int(seconds)} s"
    if seconds < 5400:
        return f"{int(seconds // 60)} min"
    return f"{int(seconds // 3600)} h"


#: What the building-costs card lists: the piece, what it is worth, what it costs.
COSTS = (
    ("Road", "5+ for longest road", ROAD_COST),
    ("Settlement", "1 point", SETTLEMENT_COST),
    ("City", "2 points, double yield", CITY_COST),
    ("Dev card", "knight, progress or 1 point", DEV_CARD_COST),
)


def costs_rect(board: pygame.Rect) -> pygame.Rect:
    """Where the building-costs card sits: the board's top-left corner."""
    return pygame.Rect(board.left + 8, board.top + 8, 270, 38 + 46 * len(COSTS))


def draw_costs(
    surface: pygame.Surface, board: pygame.Rect, hand: Sequence[int] | None = None
) -> pygame.Rect:
    """The building-costs card; with ``hand``, what the hand can pay is ticked."""
    rect = costs_rect(board)
    shadow = rect.move(4, 6)
    pygame.draw.rect(surface, (0, 0, 0), shadow, border_radius=10)
    pygame.draw.rect(surface, (236, 226, 196), rect, border_radius=10)
    pygame.draw.rect(surface, (120, 96, 60), rect, width=2, border_radius=10)
    ink = (40, 32, 24)
    draw_text(surface, "Building costs", (rect.left + 12, rect.top + 8), 15, ink, True)
    draw_text(
        surface, "C hides", (rect.right - 10, rect.top + 10), 12, (110, 96, 80), False, "topright"
    )
    y = rect.top + 34
    for name, worth, cost in COSTS:
        affordable = hand is not None and all(h >= c for h, c in zip(hand, cost, strict=True))
        draw_text(surface, name + (" ✓" if affordable else ""), (rect.left + 12, y), 14, ink, True)
        draw_text(surface, worth, (rect.left + 12, y + 18), 11, (110, 96, 80))
        x = rect.right - 10
        for r in reversed(RESOURCES):
            for _ in range(cost[r]):
                chip = pygame.Rect(x - 20, y + 2, 19, 28)
                pygame.draw.rect(surface, theme.RESOURCE_COLOURS[r], chip, border_radius=4)
                pygame.draw.rect(surface, shade(theme.RESOURCE_COLOURS[r], 0.6), chip, 1, 4)
                label = theme.RESOURCE_SHORT[r][:2]
                draw_text(
                    surface,
                    label,
                    chip.center,
                    10,
                    theme.ink_on(theme.RESOURCE_COLOURS[r]),
                    True,
                    "center",
                )
                x -= 21
        y += 46
    return rect


CHAT_HEIGHT = 150


def split_for_chat(rect: pygame.Rect) -> tuple[pygame.Rect, pygame.Rect]:
    """The log's rectangle cut in two: the action log above, the chat below."""
    chat_h = min(CHAT_HEIGHT, max(96, rect.height * 2 // 5))
    log = pygame.Rect(rect.left, rect.top, rect.width, rect.height - chat_h - 6)
    chat = pygame.Rect(rect.left, log.bottom + 6, rect.width, chat_h)
    return log, chat


def draw_chat(
    surface: pygame.Surface,
    rect: pygame.Rect,
    messages: Sequence[ChatMessage],
    typing: str | None,
    speaker: str | None,
) -> None:
    """The last chat lines, and the line being typed (Enter opens it)."""
    hint = "Enter sends, Esc cancels" if typing is not None else "Enter to talk"
    top = panel_box(surface, rect, f"Chat · {hint}")
    line_h = 17
    input_h = 24 if typing is not None else 0
    rows = max(1, (rect.bottom - top - input_h - 8) // line_h)
    y = top
    for m in list(messages)[-rows:]:
        name = m.player.capitalize()
        r = draw_text(
            surface, name + ":", (rect.left + 10, y), 13, theme.player_colour(m.player), True
        )
        draw_text(
            surface, m.text, (r.right + 6, y), 13, theme.TEXT, max_width=rect.right - r.right - 16
        )
        y += line_h
    if not messages and typing is None:
        draw_text(surface, "no messages yet", (rect.left + 10, y), 13, theme.MUTED)
    box = pygame.Rect(rect.left + 6, rect.bottom - input_h - 6, rect.width - 12, input_h)
    if typing is not None:
        pygame.draw.rect(surface, shade(theme.CARD, 0.6), box, border_radius=5)
        pygame.draw.rect(surface, theme.HIGHLIGHT, box, width=1, border_radius=5)
        who = (speaker or "?").capitalize()
        text = f"{who}: {typing}▏"
        f = theme.font(13)
        while f.size(text)[0] > box.width - 12 and len(text) > 4:
            text = text[: len(who) + 2] + "…" + text[len(who) + 4 :]
        draw_text(surface, text, (box.left + 6, box.centery), 13, theme.TEXT, anchor="midleft")
