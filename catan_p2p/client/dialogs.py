"""Modal dialogs: discards, trade answers, bank and player trades, robber victim, cards.

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
    AnswerTrade,
    CancelTrade,
    ConfirmTrade,
    Discard,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayMonopoly,
    PlayYearOfPlenty,
)
from catan_p2p.rules.cards import RESOURCES, Counts, covers, format_counts
from catan_p2p.rules.state import Answer, GameState, Phase

Submit = Callable[[Action], bool]

ANSWER_TEXT = {Answer.PENDING: "thinking…", Answer.ACCEPT: "accepts", Answer.DECLINE: "declines"}


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


def _resource_button(
    r: int, rect: pygame.Rect, label: str, on_click: Callable[[], None], enabled: bool = True
) -> Button:
    return Button(label, rect, on_click, enabled, colour=theme.RESOURCE_COLOURS[RESOURCES[r]])


def _name(player: str) -> str:
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
        self.title = f"Pass to {_name(player)}"
        super().__init__(520, 230)

    def build(self) -> None:
        self.widgets.append(
            Button(
                f"I am {_name(self.player)}: show my hand",
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
        name = _name(self.player)
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
                    f"Discard ({_name(player)})",
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
                f"{_name(player)}: choose {owed} cards to discard with the + buttons "
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
                f"{_name(player)} holds {hand.card_count}: choose {owed} to discard "
                f"({chosen} chosen)",
                (self.rect.left + 40, y),
                15,
                ink,
            )


# --- player trade: answers and closing ----------------------------------------------------


class TradeDialog(Dialog):
    """The open offer: the other hot-seat humans answer it, the offerer closes it."""

    title = "Trade offer"
    closable = False

    def __init__(self, state: GameState, humans: Sequence[str], submit: Submit) -> None:
        self.state = state
        self.humans = tuple(humans)
        self.submit = submit
        #: how long the offer stays open for the answers, set by the window each frame
        self.time_left: str | None = None
        super().__init__(560, 144 + 46 * len(state.players))

    @property
    def offerer(self) -> str:
        return self.state.players[self.state.current]

    def build(self) -> None:
        state, offer = self.state, self.state.trade
        if offer is None:
            return
        y = self.rect.top + 96
        for seat, player in enumerate(state.players):
            if seat == state.current:
                continue
            answer = offer.answers[seat]
            if player in self.humans and answer is Answer.PENDING:
                can = covers(state.hands[seat].resources, offer.get)
                self.widgets.append(
                    Button(
                        "Accept",
                        pygame.Rect(self.rect.left + 300, y, 110, 32),
                        lambda p=player: self.submit(AnswerTrade(p, True)),
                        can,
                        colour=(70, 140, 80),
                        on_refused=lambda p=player: self.submit(AnswerTrade(p, True)),
                        tag=player,
                    )
                )
                self.widgets.append(
                    Button(
                        "Decline",
                        pygame.Rect(self.rect.left + 420, y, 110, 32),
                        lambda p=player: self.submit(AnswerTrade(p, False)),
                        colour=(150, 70, 70),
                        tag=player,
                    )
                )
            elif self.offerer in self.humans and answer is Answer.ACCEPT:
                b = Button(
                    f"Trade with {_name(player)}",
                    pygame.Rect(self.rect.left + 300, y, 230, 32),
                    lambda p=player: self.submit(ConfirmTrade(self.offerer, p)),
                    colour=theme.player_colour(player),
                )
                self.widgets.append(b)
            y += 46
        if self.offerer in self.humans:
            self.widgets.append(
                Button(
                    "Withdraw offer",
                    pygame.Rect(self.rect.right - 170, self.rect.bottom - 44, 156, 32),
                    lambda: self.submit(CancelTrade(self.offerer)),
                    key="Esc",
                )
            )

    def answer_button(self, player: str, accept: bool) -> Button:
        """The Accept or Decline button of ``player`` (tests click it)."""
        label = "Accept" if accept else "Decline"
        for w in self.widgets:
            if isinstance(w, Button) and w.label == label and w.tag == player:
                return w
        raise KeyError(f"no {label} button for {player}")

    def update(self, state: GameState) -> None:
        if state is not self.state:
            self.state = state
            self.widgets = []
            self.build()

    def fits(self, state: GameState) -> bool:
        return state.phase is Phase.TRADE and state.trade is not None

    def key(self, key: int) -> bool:
        if key == pygame.K_ESCAPE and self.offerer in self.humans:
            self.submit(CancelTrade(self.offerer))
            return True
        return False

    def draw_body(self, surface: pygame.Surface) -> None:
        offer = self.state.trade
        if offer is None:
            return
        self.text(
            surface,
            f"{_name(self.offerer)} gives  {format_counts(offer.give)}",
            self.rect.top + 46,
            size=15,
            colour=theme.player_colour(self.offerer),
        )
        self.text(surface, f"and wants  {format_counts(offer.get)}", self.rect.top + 68, size=15)
        y = self.rect.top + 96
        for seat, player in enumerate(self.state.players):
            if seat == self.state.current:
                continue
            pygame.draw.circle(
                surface, theme.player_colour(player), (self.rect.left + 26, y + 16), 8
            )
            answer = offer.answers[seat]
            ink = {Answer.ACCEPT: theme.GOOD, Answer.DECLINE: theme.BAD}.get(answer, theme.MUTED)
            said = ANSWER_TEXT[answer]
            if answer is Answer.PENDING and player in self.humans:
                said, ink = "your answer", theme.TEXT  # a person here, not someone thinking
            draw_text(surface, _name(player), (self.rect.left + 42, y + 7), 15, bold=True)
            draw_text(surface, said, (self.rect.left + 140, y + 8), 14, ink)
            y += 46
        if self.time_left:
            draw_text(
                surface,
                self.time_left,
                (self.rect.left + 20, self.rect.bottom - 34),
                13,
                theme.MUTED,
                max_width=self.rect.width - (200 if self.offerer in self.humans else 40),
            )


# --- the end of the game ------------------------------------------------------------------


class GameOverDialog(Dialog):
    """The winner, everyone's final score (victory point cards shown) and a replay offer."""

    title = "Game over"

    def __init__(self, state: GameState, on_replay: Callable[[], None] | None) -> None:
        self.state = state
        self.on_replay = on_replay
        super().__init__(460, 150 + 34 * len(state.players))

    def build(self) -> None:
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
        return super().key(key)

    def draw_body(self, surface: pygame.Surface) -> None:
        state = self.state
        if state.winner < 0:  # abandoned: the others ended the game without a player
            who = state.players[state.abandoned]
            headline = f"The game ended without {_name(who)}: nobody wins"
        else:
            who = state.players[state.winner]
            headline = f"{_name(who)} wins with {state.points(state.winner)} points!"
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
            draw_text(surface, f"{_name(player)}", (self.rect.left + 42, y), 15, bold=True)
            draw_text(surface, f"{state.points(s)} points", (self.rect.left + 130, y), 15)
            draw_text(surface, ", ".join(extras), (self.rect.left + 230, y + 2), 12, theme.MUTED)
            y += 34


# --- trades on one's own turn -------------------------------------------------------------


class BankTradeDialog(Dialog):
    """Maritime trade: pick what to give (at one's rate) and what to take."""

    title = "Trade with the bank"

    def __init__(self, state: GameState, player: str, submit: Submit) -> None:
        self.state = state
        self.player = player
        self.submit = submit
        self.give: int | None = None
        self.get: int | None = None
        super().__init__(600, 250)

    def build(self) -> None:
        seat = self.state.seat(self.player)
        hand = self.state.hands[seat].resources
        for r in RESOURCES:
            rate = self.state.rate(seat, r)
            b = _resource_button(
                r,
                pygame.Rect(self.rect.left + 18 + r * 114, self.rect.top + 72, 106, 40),
                f"{theme.RESOURCE_SHORT[r]} {rate}:1",
                lambda r=r: self._pick("give", r),
                hand[r] >= rate,
            )
            b.selected = self.give == r
            self.widgets.append(b)
        for r in RESOURCES:
            b = _resource_button(
                r,
                pygame.Rect(self.rect.left + 18 + r * 114, self.rect.top + 146, 106, 40),
                theme.RESOURCE_SHORT[r],
                lambda r=r: self._pick("get", r),
                self.state.bank[r] > 0 and r != self.give,
            )
            b.selected = self.get == r
            self.widgets.append(b)
        ok = self.give is not None and self.get is not None and self.give != self.get
        self.widgets.append(
            Button(
                "Trade",
                pygame.Rect(self.rect.left + 18, self.rect.bottom - 44, 120, 32),
                self._trade,
                ok,
                key="↵",
            )
        )

    def _pick(self, side: str, r: int) -> None:
        setattr(self, side, r)
        if self.give == self.get:
            self.get = None
        self.widgets = []
        self.place(self.rect)

    def _trade(self) -> None:
        if self.give is not None and self.get is not None:
            if self.submit(MaritimeTrade(self.player, RESOURCES[self.give], RESOURCES[self.get])):
                self.close()

    def key(self, key: int) -> bool:
        if key == pygame.K_RETURN:
            self._trade()
            return True
        return super().key(key)

    def fits(self, state: GameState) -> bool:
        return state.phase is Phase.MAIN and state.players[state.current] == self.player

    def draw_body(self, surface: pygame.Surface) -> None:
        self.text(
            surface,
            "Give (your rate shown; ports make it cheaper):",
            self.rect.top + 48,
            size=14,
            colour=theme.MUTED,
        )
        self.text(surface, "Take one:", self.rect.top + 122, size=14, colour=theme.MUTED)


class OfferDialog(Dialog):
    """A player trade offer: cards to give and cards wanted, sent to everyone."""

    title = "Offer a trade to the other players"

    def __init__(self, state: GameState, player: str, submit: Submit) -> None:
        self.state = state
        self.player = player
        self.submit = submit
        super().__init__(600, 300)

    def build(self) -> None:
        hand = self.state.hands[self.state.seat(self.player)].resources
        self.give = [
            Stepper(
                theme.RESOURCE_SHORT[r],
                pygame.Rect(self.rect.left + 18 + r * 114, self.rect.top + 70, 106, Stepper.HEIGHT),
                high=hand[r],
                colour=theme.RESOURCE_COLOURS[r],
            )
            for r in RESOURCES
        ]
        self.get = [
            Stepper(
                theme.RESOURCE_SHORT[r],
                pygame.Rect(
                    self.rect.left + 18 + r * 114, self.rect.top + 170, 106, Stepper.HEIGHT
                ),
                high=9,
                colour=theme.RESOURCE_COLOURS[r],
            )
            for r in RESOURCES
        ]
        self.widgets.extend(self.give)
        self.widgets.extend(self.get)
        self.widgets.append(
            Button(
                "Offer",
                pygame.Rect(self.rect.left + 18, self.rect.bottom - 44, 120, 32),
                self._offer,
                key="↵",
            )
        )

    def _offer(self) -> None:
        give = tuple(s.value for s in self.give)
        get = tuple(s.value for s in self.get)
        if self.submit(OfferTrade(self.player, give, get)):  # type: ignore[arg-type]
            self.close()

    def key(self, key: int) -> bool:
        if key == pygame.K_RETURN:
            self._offer()
            return True
        return super().key(key)

    def fits(self, state: GameState) -> bool:
        return state.phase is Phase.MAIN and state.players[state.current] == self.player

    def draw_body(self, surface: pygame.Surface) -> None:
        self.text(surface, "You give:", self.rect.top + 48, size=14, colour=theme.MUTED)
        self.text(surface, "You want:", self.rect.top + 146, size=14, colour=theme.MUTED)


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
            b = _resource_button(
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
                _resource_button(
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

    def __init__(self, state: GameState, choices: Sequence[MoveRobber], submit: Submit) -> None:
        self.state = state
        self.choices = list(choices)
        self.submit = submit
        super().__init__(420, 110 + 48 * len(self.choices))

    def build(self) -> None:
        for i, choice in enumerate(self.choices):
            victim = choice.victim or ""
            cards = self.state.hands[self.state.seat(victim)].card_count
            self.widgets.append(
                Button(
                    f"Rob {_name(victim)} ({cards} cards)",
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
