"""Modal dialogs: hand-over, discards, the end, robber victim, cards, help (the trade
dialogs are ``client.trade_dialogs``, built on the ``Dialog`` here).

A dialog turns a few clicks into one action and hands it to ``submit`` (the app's,
which shows the engine's refusal in the status line when the action is illegal). Some
dialogs open themselves because the game waits on them (discards, trade answers, the
end of the game); the app keeps those in step with the state through ``update``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pygame

from catan_p2p.client import theme
from catan_p2p.client.widgets import Button, Stepper, draw_text, shade, wrap_text
from catan_p2p.rules.actions import (
    Action,
    Discard,
    MoveRobber,
    PlayMonopoly,
    PlayYearOfPlenty,
)
from catan_p2p.rules.cards import RESOURCES, Counts
from catan_p2p.rules.state import Answer, GameState, Phase

Submit = Callable[[Action], bool]

ANSWER_TEXT = {
    Answer.PENDING: "thinking…",
    Answer.ACCEPT: "accepts",
    Answer.DECLINE: "declines",
    Answer.COUNTER: "counters",
}


class Dialog:
    """A box over the board that takes every click while open."""

    title = ""
    closable = True  # Escape or the Close button dismisses it

    def __init__(self, width: int, height: int) -> None:
        self.rect = pygame.Rect(0, 0, width, height)
        self.widgets: list[Button | Stepper] = []
        self.closed = False

    def place(self, area: pygame.Rect) -> None:
        """Centre the dialog in ``area`` and lay its widgets out."""
        self.rect.center = area.center
        self.lay_out()

    def lay_out(self) -> None:
        """Create the widgets where ``self.rect`` is now (and the Close button)."""
        self.widgets = []
        self.build()
        if self.closable:
            self.widgets.append(
                Button(
                    "Close",
                    pygame.Rect(self.rect.right - 96, self.rect.bottom - 44, 84, 32),
                    self.close,
                    key="Esc",
                )
            )

    def build(self) -> None:
        """Create the widgets, relative to ``self.rect``."""

    def update(self, state: GameState) -> None:
        """Follow a new state (rebuild the widgets that depend on it)."""

    def fits(self, state: GameState) -> bool:
        """False when the state moved on and the dialog no longer makes sense."""
        return True

    def close(self) -> None:
        self.closed = True

    def buttons(self) -> list[Button]:
        """Every button, the steppers' included (tests click them by label)."""
        out: list[Button] = []
        for w in self.widgets:
            out.extend(w.buttons if isinstance(w, Stepper) else [w])
        return out

    def draw(self, surface: pygame.Surface, mouse: tuple[int, int] | None) -> None:
        shadow = self.rect.move(6, 8)
        pygame.draw.rect(surface, (0, 0, 0), shadow, border_radius=12)
        pygame.draw.rect(surface, theme.PANEL, self.rect, border_radius=12)
        pygame.draw.rect(surface, theme.PANEL_LINE, self.rect, width=2, border_radius=12)
        draw_text(surface, self.title, (self.rect.left + 18, self.rect.top + 14), 20, bold=True)
        self.draw_body(surface)
        for w in self.widgets:
            w.draw(surface, mouse)

    def draw_body(self, surface: pygame.Surface) -> None:
        """Text and pictures under the title."""

    def click(self, pos: tuple[int, int]) -> bool:
        """Give the click to a widget; a modal dialog swallows clicks outside it too."""
        for w in list(self.widgets):
            if w.click(pos):
                return True
        return True

    def key(self, key: int) -> bool:
        if key == pygame.K_ESCAPE and self.closable:
            self.close()
            return True
        return False

    def text(self, surface: pygame.Surface, line: str, y: int, **kw: object) -> pygame.Rect:
        return draw_text(surface, line, (self.rect.left + 18, y), **kw)  # type: ignore[arg-type]


def resource_button(
    r: int, rect: pygame.Rect, label: str, on_click: Callable[[], None], enabled: bool = True
) -> Button:
    """A button in the colour of resource ``r``."""
    return Button(label, rect, on_click, enabled, colour=theme.RESOURCE_COLOURS[RESOURCES[r]])


def player_name(player: str) -> str:
    """A player's name as the dialogs write it."""
    return player.capitalize()


# --- hot-seat hand-over ------------------------------------------------------------------


class PassDialog(Dialog):
    """ "Pass to Blue": the screen a hot-seat window shows before it shows another hand.

    Nothing private of ``player`` is drawn until ``player`` presses the button (or
    Enter / Space); the app then shows that hand and opens what ``player`` must answer.
    """

    closable = False

    def __init__(self, player: str, reason: str, on_confirm: Callable[[], None]) -> None:
        self.player = player
        self.reason = reason
        self.on_confirm = on_confirm
        self.title = f"Pass to {player_name(player)}"
        super().__init__(520, 230)

    def build(self) -> None:
        self.widgets.append(
            Button(
                f"I am {player_name(self.player)}: show my hand",
                pygame.Rect(self.rect.left + 18, self.rect.bottom - 56, self.rect.width - 36, 40),
                self._confirm,
                colour=theme.player_colour(self.player),
                key="Enter",
            )
        )

    def _confirm(self) -> None:
        self.close()
        self.on_confirm()

    def key(self, key: int) -> bool:
        if key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
            self._confirm()
            return True
        return False

    def draw(self, surface: pygame.Surface, mouse: tuple[int, int] | None) -> None:
        pygame.draw.rect(
            surface, theme.player_colour(self.player), self.rect.inflate(12, 12), 6, 16
        )
        super().draw(surface, mouse)

    def draw_body(self, surface: pygame.Surface) -> None:
        name = player_name(self.player)
        lines = (
            f"{name}, {self.reason}.",
            "Everyone else, please look away:",
            f"the next screen shows {name}'s cards.",
        )
        for i, line in enumerate(lines):
            self.text(surface, line, self.rect.top + 56 + 26 * i, size=16)


# --- discards after a seven ---------------------------------------------------------------


class DiscardDialog(Dialog):
    """Every discarding human of this window at once, one row of card steppers each."""

    title = "Seven rolled: discard half"
    closable = False
    ROW = 100

    def __init__(self, state: GameState, players: Sequence[str], submit: Submit) -> None:
        self.state = state
        self.players = list(players)
        self.submit = submit
        self.values: dict[str, list[int]] = {p: [0] * 5 for p in players}
        self.complaint: str | None = None
        super().__init__(700, 100 + self.ROW * max(1, len(players)))

    def owed(self, player: str) -> int:
        return self.state.discards[self.state.seat(player)]

    def build(self) -> None:
        for i, player in enumerate(self.players):
            y = self.rect.top + 98 + i * self.ROW
            hand = self.state.hands[self.state.seat(player)].resources
            for r in RESOURCES:
                rect = pygame.Rect(self.rect.left + 18 + r * 106, y, 100, Stepper.HEIGHT)
                stepper = Stepper(
                    theme.RESOURCE_SHORT[r],
                    rect,
                    high=min(hand[r], self.owed(player)),
                    value=min(self.values[player][r], hand[r]),
                    colour=theme.RESOURCE_COLOURS[r],
                    on_change=self._keep,
                    tag=(player, r),
                )
                self.widgets.append(stepper)
            self.widgets.append(
                Button(
                    f"Discard ({player_name(player)})",
                    pygame.Rect(self.rect.right - 140, y + 12, 122, 38),
                    lambda p=player: self._discard(p),
                    colour=theme.player_colour(player),
                    size=13,
                )
            )

    def _keep(self) -> None:
        for w in self.widgets:
            if isinstance(w, Stepper):
                player, r = w.tag  # type: ignore[misc]
                self.values[player][r] = w.value

    def _discard(self, player: str) -> None:
        cards: Counts = tuple(self.values[player])  # type: ignore[assignment]
        chosen, owed = sum(cards), self.owed(player)
        if chosen != owed:
            self.complaint = (
                f"{player_name(player)}: choose {owed} cards to discard with the + buttons "
                f"({chosen} chosen so far)."
            )
            return
        self.complaint = None
        self.submit(Discard(player, cards))

    def stepper(self, player: str, resource: int) -> Stepper:
        """The stepper of one player's resource (tests press its plus button)."""
        for w in self.widgets:
            if isinstance(w, Stepper) and w.tag == (player, resource):
                return w
        raise KeyError(f"no discard stepper for {player} {resource}")

    def update(self, state: GameState) -> None:
        self.state = state
        owing = [p for p in self.players if state.discards[state.seat(p)]]
        if owing != self.players:
            self.players = owing
            center = self.rect.center
            self.rect.height = 100 + self.ROW * max(1, len(owing))
            self.rect.center = center
            self.widgets = []
            self.build()

    def fits(self, state: GameState) -> bool:
        return state.phase is Phase.DISCARD and bool(self.players)

    def draw_body(self, surface: pygame.Surface) -> None:
        self.text(
            surface,
            "Every hand of more than 7 cards gives half back.",
            self.rect.top + 44,
            size=13,
            colour=theme.MUTED,
        )
        if self.complaint:
            self.text(surface, self.complaint, self.rect.bottom - 26, size=13, colour=theme.BAD)
        for i, player in enumerate(self.players):
            y = self.rect.top + 74 + i * self.ROW
            chosen = sum(self.values[player])
            owed = self.owed(player)
            hand = self.state.hands[self.state.seat(player)]
            ink = theme.GOOD if chosen == owed else theme.TEXT
            pygame.draw.circle(
                surface, theme.player_colour(player), (self.rect.left + 26, y + 9), 7
            )
            draw_text(
                surface,
                f"{player_name(player)} holds {hand.card_count}: choose {owed} to discard "
                f"({chosen} chosen)",
                (self.rect.left + 40, y),
                15,
                ink,
            )


# --- the end of the game ------------------------------------------------------------------


class GameOverDialog(Dialog):
    """The winner, everyone's final score (victory point cards shown) and a replay offer."""

    title = "Game over"

    def __init__(
        self,
        state: GameState,
        on_replay: Callable[[], None] | None,
        on_stats: Callable[[], None] | None = None,
    ) -> None:
        self.state = state
        self.on_replay = on_replay
        self.on_stats = on_stats  # opens the statistics screen (``client.stats_screen``)
        super().__init__(460, 150 + 34 * len(state.players))

    def build(self) -> None:
        if self.on_stats is not None:
            self.widgets.append(
                Button(
                    "Statistics",
                    pygame.Rect(self.rect.left + 196, self.rect.bottom - 44, 140, 32),
                    self.on_stats,
                    key="T",
                )
            )
        if self.on_replay is not None:
            self.widgets.append(
                Button(
                    "Replay the game",
                    pygame.Rect(self.rect.left + 18, self.rect.bottom - 44, 170, 32),
                    self.on_replay,
                    key="P",
                )
            )

    def key(self, key: int) -> bool:
        if key == pygame.K_p and self.on_replay is not None:
            self.on_replay()
            return True
        if key == pygame.K_t and self.on_stats is not None:
            self.on_stats()
            return True
        return super().key(key)

    def draw_body(self, surface: pygame.Surface) -> None:
        state = self.state
        if state.winner < 0:  # abandoned: the others ended the game without a player
            who = state.players[state.abandoned]
            headline = f"The game ended without {player_name(who)}: nobody wins"
        else:
            who = state.players[state.winner]
            headline = f"{player_name(who)} wins with {state.points(state.winner)} points!"
        self.text(
            surface,
            headline,
            self.rect.top + 48,
            size=18,
            colour=theme.player_colour(who),
            bold=True,
        )
        y = self.rect.top + 84
        ranking = sorted(range(len(state.players)), key=lambda s: -state.points(s))
        for s in ranking:
            player, hand = state.players[s], state.hands[s]
            pygame.draw.circle(
                surface, theme.player_colour(player), (self.rect.left + 26, y + 9), 8
            )
            extras = []
            if hand.victory_cards:
                extras.append(f"{hand.victory_cards} VP card(s)")
            if state.longest_road == s:
                extras.append("longest road")
            if state.largest_army == s:
                extras.append("largest army")
            draw_text(surface, f"{player_name(player)}", (self.rect.left + 42, y), 15, bold=True)
            draw_text(surface, f"{state.points(s)} points", (self.rect.left + 130, y), 15)
            draw_text(surface, ", ".join(extras), (self.rect.left + 230, y + 2), 12, theme.MUTED)
            y += 34


# --- development cards and the robber ---------------------------------------------------------


class YearOfPlentyDialog(Dialog):
    """Pick the two resources year of plenty takes from the bank."""

    title = "Year of plenty: take two resources"

    def __init__(self, state: GameState, player: str, submit: Submit) -> None:
        self.state = state
        self.player = player
        self.submit = submit
        self.picks: list[int] = []
        super().__init__(600, 200)

    def build(self) -> None:
        for r in RESOURCES:
            count = self.picks.count(r)
            label = theme.RESOURCE_SHORT[r] + (f" ×{count}" if count else "")
            b = resource_button(
                r,
                pygame.Rect(self.rect.left + 18 + r * 114, self.rect.top + 80, 106, 44),
                label,
                lambda r=r: self._pick(r),
                self.state.bank[r] > self.picks.count(r),
            )
            b.selected = count > 0
            self.widgets.append(b)
        self.widgets.append(
            Button(
                "Take",
                pygame.Rect(self.rect.left + 18, self.rect.bottom - 44, 120, 32),
                self._take,
                len(self.picks) == 2,
                key="↵",
            )
        )
        self.widgets.append(
            Button(
                "Clear",
                pygame.Rect(self.rect.left + 150, self.rect.bottom - 44, 90, 32),
                self._clear,
                bool(self.picks),
            )
        )

    def _pick(self, r: int) -> None:
        self.picks = (self.picks + [r])[-2:]
        self.widgets = []
        self.place(self.rect)

    def _clear(self) -> None:
        self.picks = []
        self.widgets = []
        self.place(self.rect)

    def _take(self) -> None:
        if len(self.picks) == 2:
            first, second = sorted(self.picks)
            if self.submit(PlayYearOfPlenty(self.player, RESOURCES[first], RESOURCES[second])):
                self.close()

    def key(self, key: int) -> bool:
        if key == pygame.K_RETURN:
            self._take()
            return True
        return super().key(key)

    def fits(self, state: GameState) -> bool:
        return (
            state.phase in (Phase.ROLL, Phase.MAIN) and state.players[state.current] == self.player
        )

    def draw_body(self, surface: pygame.Surface) -> None:
        picked = " and ".join(theme.RESOURCE_SHORT[RESOURCES[r]] for r in self.picks) or "nothing"
        self.text(
            surface,
            f"Click two cards (the same one twice is fine). Chosen: {picked}",
            self.rect.top + 50,
            size=14,
            colour=theme.MUTED,
        )


class MonopolyDialog(Dialog):
    """Name the resource every other player must hand over."""

    title = "Monopoly: name a resource"

    def __init__(self, state: GameState, player: str, submit: Submit) -> None:
        self.state = state
        self.player = player
        self.submit = submit
        super().__init__(600, 200)

    def build(self) -> None:
        for r in RESOURCES:
            self.widgets.append(
                resource_button(
                    r,
                    pygame.Rect(self.rect.left + 18 + r * 114, self.rect.top + 80, 106, 44),
                    theme.RESOURCE_SHORT[r],
                    lambda r=r: self._take(r),
                )
            )

    def _take(self, r: int) -> None:
        if self.submit(PlayMonopoly(self.player, RESOURCES[r])):
            self.close()

    def fits(self, state: GameState) -> bool:
        return (
            state.phase in (Phase.ROLL, Phase.MAIN) and state.players[state.current] == self.player
        )

    def draw_body(self, surface: pygame.Surface) -> None:
        self.text(
            surface,
            "Every other player gives you all their cards of it.",
            self.rect.top + 50,
            size=14,
            colour=theme.MUTED,
        )


class VictimDialog(Dialog):
    """Whom to rob on the robber's new tile, when more than one player can be robbed."""

    title = "Rob whom?"

    def __init__(
        self,
        state: GameState,
        choices: Sequence[MoveRobber],
        submit: Submit,
        keep_clear: pygame.Rect | None = None,
    ) -> None:
        self.state = state
        self.choices = list(choices)
        self.submit = submit
        self.keep_clear = keep_clear  # the robber's tile and its corners, on screen
        super().__init__(420, 110 + 48 * len(self.choices))

    def place(self, area: pygame.Rect) -> None:
        """In ``area``, clear of the tile the robber goes to (whose corners hold the
        players one may rob): centred when that is clear, else above, below, left or
        right of the tile, whichever first fits."""
        self.rect.center = area.center
        clear = self.keep_clear
        if clear is not None and self.rect.colliderect(clear):
            gap = 12
            spots = (
                self.rect.copy(),
                self.rect.move(0, clear.top - gap - self.rect.bottom),
                self.rect.move(0, clear.bottom + gap - self.rect.top),
                self.rect.move(clear.left - gap - self.rect.right, 0),
                self.rect.move(clear.right + gap - self.rect.left, 0),
            )
            fitting = [r.clamp(area) for r in spots[1:]]
            self.rect = next((r for r in fitting if not r.colliderect(clear)), spots[0])
        self.lay_out()

    def build(self) -> None:
        for i, choice in enumerate(self.choices):
            victim = choice.victim or ""
            cards = self.state.hands[self.state.seat(victim)].card_count
            self.widgets.append(
                Button(
                    f"Rob {player_name(victim)} ({cards} card{'s' * (cards != 1)})",
                    pygame.Rect(self.rect.left + 18, self.rect.top + 56 + 48 * i, 280, 38),
                    lambda c=choice: self._rob(c),
                    colour=theme.player_colour(victim),
                )
            )

    def _rob(self, choice: MoveRobber) -> None:
        if self.submit(choice):
            self.close()

    def fits(self, state: GameState) -> bool:
        return state.phase is Phase.MOVE_ROBBER


class HelpDialog(Dialog):
    """The keyboard shortcuts."""

    title = "Keys"
    KEYS = (
        ("R", "roll the dice"),
        ("E", "end the turn"),
        ("1", "road (then click an edge)"),
        ("2", "settlement (then a corner)"),
        ("3", "city (or click your settlement)"),
        ("D", "buy a development card"),
        ("K", "play a knight"),
        ("B", "play road building"),
        ("Y", "play year of plenty"),
        ("M", "play monopoly"),
        ("T", "trade with the bank"),
        ("O", "offer a trade"),
        ("C", "building costs card"),
        ("X", "end a game someone left (after the agreed wait)"),
        ("Enter", "chat (Enter sends)"),
        ("S", "sound on / off"),
        ("A", "motion on / off"),
        ("Esc", "cancel / close"),
        ("H", "this help"),
        ("Ctrl+Q", "quit (the game is saved)"),
    )

    #: pixels from a key to its meaning, and between the two columns
    KEY_WIDTH, GAP, MARGIN = 66, 24, 18

    def __init__(self) -> None:
        rows = (len(self.KEYS) + 1) // 2
        f = theme.font(15)
        self.columns = [
            self.KEY_WIDTH
            + max(f.size(what)[0] for _, what in self.KEYS[c * rows : (c + 1) * rows])
            for c in range(2)
        ]
        width = 2 * self.MARGIN + sum(self.columns) + self.GAP
        super().__init__(max(620, width), 110 + 26 * rows)

    def draw_body(self, surface: pygame.Surface) -> None:
        rows = (len(self.KEYS) + 1) // 2
        for i, (key, what) in enumerate(self.KEYS):
            column = i // rows
            x = self.rect.left + self.MARGIN + column * (self.columns[0] + self.GAP)
            y = self.rect.top + 54 + 26 * (i % rows)
            draw_text(surface, key, (x, y), 15, theme.HIGHLIGHT, True)
            draw_text(surface, what, (x + self.KEY_WIDTH, y), 15)


class MessageDialog(Dialog):
    """A longer notice (e.g. a fork or a lost remote) that the status line cannot hold."""

    def __init__(self, title: str, message: str) -> None:
        self.title = title
        self.message = message
        lines = wrap_text(message, theme.font(15), 480)
        self.lines = lines
        super().__init__(520, 110 + 22 * len(lines))

    def draw_body(self, surface: pygame.Surface) -> None:
        for i, line in enumerate(self.lines):
            self.text(surface, line, self.rect.top + 52 + 22 * i, size=15)


def backdrop(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """Dim ``rect`` so an open dialog stands out."""
    veil = pygame.Surface(rect.size, pygame.SRCALPHA)
    veil.fill((*shade(theme.PANEL, 0.3), 120))
    surface.blit(veil, rect.topleft)
