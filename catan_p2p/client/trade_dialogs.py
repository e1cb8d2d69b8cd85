"""The trade dialogs: answering an offer, trading with the bank, making an offer.

Each turns a few clicks into one action for ``submit`` (``client.dialogs``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from catan_p2p.client import theme
from catan_p2p.client.dialogs import ANSWER_TEXT, Dialog, Submit, player_name, resource_button
from catan_p2p.client.widgets import Button, Stepper, draw_text
from catan_p2p.rules.actions import (
    AnswerTrade,
    CancelTrade,
    ConfirmTrade,
    MaritimeTrade,
    OfferTrade,
)
from catan_p2p.rules.cards import RESOURCES, covers, format_counts
from catan_p2p.rules.state import Answer, GameState, Phase

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
                    f"Trade with {player_name(player)}",
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
            f"{player_name(self.offerer)} gives  {format_counts(offer.give)}",
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
            draw_text(surface, player_name(player), (self.rect.left + 42, y + 7), 15, bold=True)
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
            b = resource_button(
                r,
                pygame.Rect(self.rect.left + 18 + r * 114, self.rect.top + 72, 106, 40),
                f"{theme.RESOURCE_SHORT[r]} {rate}:1",
                lambda r=r: self._pick("give", r),
                hand[r] >= rate,
            )
            b.selected = self.give == r
            self.widgets.append(b)
        for r in RESOURCES:
            b = resource_button(
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
