"""The trade dialogs: answering an offer, trading with the bank, making an offer.

Each turns a few clicks into one action for ``submit`` (``client.dialogs``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pygame

from catan_p2p.client import theme
from catan_p2p.client.controls import refusal
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
from catan_p2p.rules.state import NOBODY, Answer, GameState, Phase

# --- player trade: answers and closing ----------------------------------------------------


class TradeDialog(Dialog):
    """The open offer: the hot-seat humans it is made to answer it (accept, decline, or
    counter with other counts), the offerer chooses which answer to trade with."""

    title = "Trade offer"
    closable = False
    ROW = 46

    def __init__(self, state: GameState, humans: Sequence[str], submit: Submit) -> None:
        self.state = state
        self.humans = tuple(humans)
        self.submit = submit
        #: how long the offer stays open for the answers, set by the window each frame
        self.time_left: str | None = None
        #: the human writing a counter-offer, and its counts (kept across rebuilds)
        self.countering: str | None = None
        self.counter_give: list[int] = [0] * 5
        self.counter_get: list[int] = [0] * 5
        rows = 144 + self.ROW * len(state.players)
        super().__init__(640, max(rows, 344))

    @property
    def offerer(self) -> str:
        return self.state.players[self.state.current]

    def build(self) -> None:
        state, offer = self.state, self.state.trade
        if offer is None:
            return
        if self.countering is not None:
            seat = state.seat(self.countering)
            if offer.answers[seat] is Answer.PENDING and offer.may_answer(seat):
                self._build_counter(self.countering)
                return
            self.countering = None
        right = self.rect.right - 18
        y = self.rect.top + 96
        for seat, player in enumerate(state.players):
            if seat == state.current:
                continue
            answer = offer.answers[seat]
            if not offer.may_answer(seat):
                pass  # the offer is made to another player
            elif player in self.humans and answer is Answer.PENDING:
                can = covers(state.hands[seat].resources, offer.get)
                self.widgets.append(
                    Button(
                        "Accept",
                        pygame.Rect(right - 316, y, 96, 32),
                        lambda p=player: self.submit(AnswerTrade(p, True)),
                        can,
                        colour=(70, 140, 80),
                        on_refused=lambda p=player: self.submit(AnswerTrade(p, True)),
                        tag=player,
                    )
                )
                self.widgets.append(
                    Button(
                        "Counter…",
                        pygame.Rect(right - 212, y, 104, 32),
                        lambda p=player: self.start_counter(p),
                        colour=(190, 150, 60),
                        tag=player,
                    )
                )
                self.widgets.append(
                    Button(
                        "Decline",
                        pygame.Rect(right - 100, y, 100, 32),
                        lambda p=player: self.submit(AnswerTrade(p, False)),
                        colour=(150, 70, 70),
                        tag=player,
                    )
                )
            elif self.offerer in self.humans and answer in (Answer.ACCEPT, Answer.COUNTER):
                label = f"Trade with {player_name(player)}"
                if answer is Answer.COUNTER:
                    label = f"Take {player_name(player)}'s counter"
                confirm = ConfirmTrade(self.offerer, player)
                b = Button(
                    label,
                    pygame.Rect(right - 230, y, 230, 32),
                    lambda a=confirm: self.submit(a),
                    refusal(state, confirm) is None,
                    colour=theme.player_colour(player),
                    on_refused=lambda a=confirm: self.submit(a),
                    tag=player,
                )
                self.widgets.append(b)
            y += self.ROW
        if self.offerer in self.humans:
            self.widgets.append(
                Button(
                    "Withdraw offer",
                    pygame.Rect(self.rect.right - 170, self.rect.bottom - 44, 156, 32),
                    lambda: self.submit(CancelTrade(self.offerer)),
                    key="Esc",
                )
            )

    # --- a counter-offer -------------------------------------------------------------------

    def start_counter(self, player: str) -> None:
        """Open the counter-offer editor for ``player``, starting from the offer's counts
        seen from its side (it would give what is asked and get what is offered)."""
        offer = self.state.trade
        assert offer is not None
        self.countering = player
        self.counter_give, self.counter_get = list(offer.get), list(offer.give)
        self.widgets = []
        self.build()

    def _build_counter(self, player: str) -> None:
        hand = self.state.hands[self.state.seat(player)].resources
        left, top = self.rect.left + 18, self.rect.top + 134
        steppers = []
        for side, values, y, high in (
            ("give", self.counter_give, top, hand),
            ("get", self.counter_get, top + 90, (9,) * 5),
        ):
            for r in RESOURCES:
                stepper = Stepper(
                    theme.RESOURCE_SHORT[r],
                    pygame.Rect(left + r * 120, y, 110, Stepper.HEIGHT),
                    high=high[r],
                    value=min(values[r], high[r]),
                    colour=theme.RESOURCE_COLOURS[r],
                    tag=(side, r),
                )
                values[r] = stepper.value
                stepper.on_change = lambda st=stepper, v=values, i=r: v.__setitem__(i, st.value)
                steppers.append(stepper)
        self.widgets.extend(steppers)
        self.widgets.append(
            Button(
                "Send counter-offer",
                pygame.Rect(left, self.rect.bottom - 44, 190, 32),
                self.send_counter,
                colour=(190, 150, 60),
                key="↵",
            )
        )
        self.widgets.append(
            Button(
                "Back",
                pygame.Rect(self.rect.right - 110, self.rect.bottom - 44, 92, 32),
                self.stop_counter,
                key="Esc",
            )
        )

    def counter_action(self) -> AnswerTrade | None:
        """The counter-offer the editor holds now (None when none is being written)."""
        if self.countering is None:
            return None
        give, get = tuple(self.counter_give), tuple(self.counter_get)
        return AnswerTrade(self.countering, False, give, get)  # type: ignore[arg-type]

    def send_counter(self) -> None:
        action = self.counter_action()
        if action is not None and self.submit(action):
            self.stop_counter()

    def stop_counter(self) -> None:
        self.countering = None
        self.widgets = []
        self.build()

    def counter_stepper(self, side: str, resource: int) -> Stepper:
        """The editor's stepper of ``resource`` on ``side`` ("give" or "get"; tests click it)."""
        for w in self.widgets:
            if isinstance(w, Stepper) and w.tag == (side, resource):
                return w
        raise KeyError(f"no {side} stepper for resource {resource}")

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
        if self.countering is not None:
            if key == pygame.K_ESCAPE:
                self.stop_counter()
                return True
            if key == pygame.K_RETURN:
                self.send_counter()
                return True
            return False
        if key == pygame.K_ESCAPE and self.offerer in self.humans:
            self.submit(CancelTrade(self.offerer))
            return True
        return False

    def draw_body(self, surface: pygame.Surface) -> None:
        offer = self.state.trade
        if offer is None:
            return
        to = (
            "" if offer.to == NOBODY else f"  (to {player_name(self.state.players[offer.to])} only)"
        )
        self.text(
            surface,
            f"{player_name(self.offerer)} gives  {format_counts(offer.give)}{to}",
            self.rect.top + 46,
            size=15,
            colour=theme.player_colour(self.offerer),
        )
        self.text(surface, f"and wants  {format_counts(offer.get)}", self.rect.top + 68, size=15)
        if self.countering is not None:
            self._draw_counter(surface)
            return
        y = self.rect.top + 96
        for seat, player in enumerate(self.state.players):
            if seat == self.state.current:
                continue
            pygame.draw.circle(
                surface, theme.player_colour(player), (self.rect.left + 26, y + 16), 8
            )
            answer = offer.answers[seat]
            ink = {
                Answer.ACCEPT: theme.GOOD,
                Answer.DECLINE: theme.BAD,
                Answer.COUNTER: theme.TEXT,
            }.get(answer, theme.MUTED)
            said = ANSWER_TEXT[answer]
            if not offer.may_answer(seat):
                said, ink = "not asked", theme.MUTED
            elif answer is Answer.PENDING and player in self.humans:
                said, ink = "your answer", theme.TEXT  # a person here, not someone thinking
            draw_text(surface, player_name(player), (self.rect.left + 42, y + 7), 15, bold=True)
            if answer is Answer.COUNTER:
                give, get = offer.terms_with(seat)  # as the offerer would trade
                said = f"counters: gives {format_counts(get)} for {format_counts(give)}"
                width = self.rect.width - 130 - (250 if self.offerer in self.humans else 0)
                draw_text(surface, said, (self.rect.left + 110, y + 8), 14, ink, max_width=width)
            else:
                draw_text(surface, said, (self.rect.left + 140, y + 8), 14, ink)
            y += self.ROW
        if self.time_left:
            draw_text(
                surface,
                self.time_left,
                (self.rect.left + 20, self.rect.bottom - 34),
                13,
                theme.MUTED,
                max_width=self.rect.width - (200 if self.offerer in self.humans else 40),
            )

    def _draw_counter(self, surface: pygame.Surface) -> None:
        who = player_name(self.countering or "")
        top = self.rect.top
        self.text(
            surface,
            f"{who}'s counter-offer: other counts, a trade {who} can pay",
            top + 92,
            size=13,
            colour=theme.MUTED,
        )
        self.text(surface, "You give:", top + 114, size=14, colour=theme.MUTED)
        self.text(surface, "You want:", top + 204, size=14, colour=theme.MUTED)
        action = self.counter_action()
        if action is None:
            return
        reason = refusal(self.state, action)
        line, ink = (
            (
                f"you give {format_counts(action.give or ())} for "
                f"{format_counts(action.get or ())}",
                theme.TEXT,
            )
            if reason is None
            else (reason.removeprefix("player trade: "), theme.BAD)
        )
        draw_text(
            surface,
            line,
            (self.rect.left + 222, self.rect.bottom - 36),
            13,
            ink,
            max_width=self.rect.width - 350,
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
    """A player trade offer: cards to give and cards wanted, to everyone or to one player."""

    title = "Offer a trade"

    def __init__(self, state: GameState, player: str, submit: Submit) -> None:
        self.state = state
        self.player = player
        self.submit = submit
        self.to: str | None = None  # None: every other player
        self.give_counts = [0] * 5
        self.get_counts = [0] * 5
        super().__init__(640, 360)

    def build(self) -> None:
        hand = self.state.hands[self.state.seat(self.player)].resources
        self.give, self.get = [], []
        for steppers, values, y, high in (
            (self.give, self.give_counts, self.rect.top + 70, hand),
            (self.get, self.get_counts, self.rect.top + 170, (9,) * 5),
        ):
            for r in RESOURCES:
                stepper = Stepper(
                    theme.RESOURCE_SHORT[r],
                    pygame.Rect(self.rect.left + 18 + r * 120, y, 110, Stepper.HEIGHT),
                    high=high[r],
                    value=min(values[r], high[r]),
                    colour=theme.RESOURCE_COLOURS[r],
                )
                stepper.on_change = lambda st=stepper, v=values, i=r: v.__setitem__(i, st.value)
                steppers.append(stepper)
        self.widgets.extend(self.give)
        self.widgets.extend(self.get)
        x = self.rect.left + 60
        for to in (None, *(p for p in self.state.players if p != self.player)):
            label = "Everyone" if to is None else player_name(to)
            b = Button(
                label,
                pygame.Rect(x, self.rect.top + 252, 100, 30),
                lambda t=to: self.choose(t),
                colour=None if to is None else theme.player_colour(to),
                tag=to,
            )
            b.selected = self.to == to
            self.widgets.append(b)
            x += 108
        self.widgets.append(
            Button(
                "Offer",
                pygame.Rect(self.rect.left + 18, self.rect.bottom - 44, 120, 32),
                self._offer,
                key="↵",
            )
        )

    def choose(self, to: str | None) -> None:
        """Make the offer to ``to`` alone (None: to every other player)."""
        self.to = to
        self.widgets = []
        self.place(self.rect)

    def offer_action(self) -> OfferTrade:
        """The offer the dialog holds now."""
        give, get = tuple(self.give_counts), tuple(self.get_counts)
        return OfferTrade(self.player, give, get, self.to)  # type: ignore[arg-type]

    def _offer(self) -> None:
        if self.submit(self.offer_action()):
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
        self.text(surface, "To:", self.rect.top + 258, size=14, colour=theme.MUTED)
