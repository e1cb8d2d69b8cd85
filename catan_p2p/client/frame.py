"""Drawing one frame of the play window: the board, the panels, the action bar, the
footer and the dialogs, from what the window last read of its session (``App``)."""

from __future__ import annotations

import os
import time

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p.client import animate, controls, invite_strip, motion, panels, theme  # noqa: E402
from catan_p2p.client.controls import Mode  # noqa: E402
from catan_p2p.client.dialogs import backdrop  # noqa: E402
from catan_p2p.client.marks import mark_place  # noqa: E402
from catan_p2p.client.render import Highlights  # noqa: E402
from catan_p2p.client.trade_dialogs import TradeDialog  # noqa: E402
from catan_p2p.client.widgets import Button, draw_text  # noqa: E402
from catan_p2p.clock import now
from catan_p2p.rules.state import GameState, Phase  # noqa: E402
from catan_p2p.trust.views import pending_cards  # noqa: E402

MESSAGE_SECONDS = 8.0
ROLL_SECONDS = 0.9  # the dice tumble, then the producing tiles glow
REDRAW_SECONDS = 0.5
HINTS = {
    Mode.ROAD: "click a highlighted edge to build a road (Esc cancels)",
    Mode.SETTLEMENT: "click a highlighted corner to build a settlement (Esc cancels)",
    Mode.CITY: "click one of your highlighted settlements to make it a city (Esc cancels)",
    Mode.ROBBER: "click a highlighted tile to move the robber there",
    Mode.NONE: "keys: R roll, 1/2/3 build, E end turn, C costs, H all keys",
}

#: Between turns with five or six players only building and buying are allowed.
SPECIAL_BUILD_HINT = "keys: 1/2/3 build, D buy a card, E done building, C costs"


def span(seconds: int) -> str:
    """``2 h 05 min``, ``4 min 10 s``, ``12 s``: a time left, as a clock shows it."""
    h, rest = divmod(max(0, seconds), 3600)
    m, s = divmod(rest, 60)
    if h:
        return f"{h} h {m:02d} min"
    return f"{m} min {s:02d} s" if m else f"{s} s"


class Frame:
    """The drawing half of ``App`` (its state lives there)."""

    def highlights(self) -> Highlights:
        player = self.actor()
        if player is None or self.dialog is not None:
            return Highlights()
        v, e, t = controls.targets(self.legal(player)).for_mode(self.current_mode())
        return Highlights(v, e, t)

    def draw(self) -> None:
        screen = self.screen
        state = self.state
        lay = self.layout
        screen.fill(theme.PANEL)
        self.view.draw(screen, state, self.highlights())
        mark_place(screen, self.view, self._log[-1].action if self._log else None)
        if self.roll_anim is not None:
            progress = min(1.0, (time.monotonic() - self.roll_anim[0]) / ROLL_SECONDS)
            animate.production(screen, self.view, state, sum(self.roll_anim[1]), progress)
        self._draw_bar(screen, state)
        if self.session.networked:
            info = self.session.info
            self.notice.draw(screen, lay.board, info.timeout if info is not None else 0)
        if self.message and time.monotonic() - self.message_at > MESSAGE_SECONDS:
            self.message = None
        humans_acting = self.seats.humans_acting(state)
        # the human whose hand is shown, when acting (a trade answer), else the first one
        acting = self.actor() or (
            self.viewer if self.viewer in humans_acting else (humans_acting or [None])[0]
        )
        message, is_error = self.message, self.message_is_error
        if message is None and self.actor() is not None:
            message, is_error = HINTS.get(self.current_mode()), False
            if state.phase is Phase.SPECIAL_BUILD and self.current_mode() is Mode.NONE:
                message = SPECIAL_BUILD_HINT
        panels.draw_status(screen, lay.status, state, acting, message, is_error)
        if self.roll_anim is not None:
            progress = min(1.0, (time.monotonic() - self.roll_anim[0]) / ROLL_SECONDS)
            animate.tumbling_dice(screen, lay.status, self.roll_anim[1], progress)
        shown = self.shown_player
        mine = self.session.view(shown) if shown in self.session.local_players else state
        panels.draw_players(screen, lay.players, state, shown, mine)
        if self.roll_anim is not None and self.flights:
            progress = min(1.0, (time.monotonic() - self.roll_anim[0]) / ROLL_SECONDS)
            motion.draw_flights(screen, self.flights, progress)
        if self.spectator:
            panels.draw_spectator_hand(screen, lay.hand)
        else:
            unread = pending_cards(state, state.seat(shown)) if shown in state.players else 0
            panels.draw_hand(screen, lay.hand, mine, shown, hidden_for=self.viewer, unread=unread)
        log_rect, chat_rect = lay.log, None
        if self.chat is not None:
            log_rect, chat_rect = panels.split_for_chat(lay.log)
        panels.draw_log(screen, log_rect, self._log, board=state.board, said=self._said)
        if chat_rect is not None:
            panels.draw_chat(
                screen, chat_rect, self.chat_messages(), self.typing, self.chat_speaker()
            )
        panels.draw_sync(
            screen,
            lay.sync,
            self.sync_status,
            self.session.networked,
            self.runtime.sending,
            local_text=self.local_text(),
            waiting_on=self._waiting_on(state),
        )
        if self.invite and state.lobby_open and not self.spectator:
            waiting = [p for p, k in zip(state.players, state.seats, strict=False) if not k]
            copy = invite_strip.draw(screen, lay.board, self.invite, waiting, self.say)
            copy.draw(screen, pygame.mouse.get_pos() if pygame.mouse.get_focused() else None)
            self.bar_buttons.append(copy)
        if self.show_costs:
            hand = state.hands[state.seat(shown)].resources if shown in state.players else None
            panels.draw_costs(screen, lay.board, hand)
        if isinstance(self.dialog, TradeDialog):
            self.dialog.time_left = self.offer_time_left(state)
        if self.dialog is not None:
            backdrop(screen, lay.board)
            self.dialog.draw(screen, pygame.mouse.get_pos() if pygame.mouse.get_focused() else None)

    def _draw_bar(self, screen: pygame.Surface, state: GameState) -> None:
        bar = self.layout.bar
        pygame.draw.rect(screen, theme.PANEL, bar)
        if self.spectator:
            self.bar_buttons = []
            lines = (
                f"Watching game {self.session.game_id}: no seat, no hidden card, nothing to play",
                "P steps through the game so far (Esc comes back live) · Ctrl+Q quits",
            )
            for i, line in enumerate(lines):
                draw_text(
                    screen,
                    line,
                    (bar.centerx, bar.top + 18 + 24 * i),
                    15 - i,
                    theme.TEXT,
                    i == 0,
                    "center",
                    max_width=bar.width - 16,
                )
            if not state.is_over:
                text = self._waiting_text(state)
                draw_text(screen, text, (bar.centerx, bar.top - 14), 14, theme.TEXT, True, "center")
            return
        player = self.actor()
        actions = self.legal(player) if player else []
        enabled = controls.enabled_commands(actions)
        mode = self.current_mode()
        cols = 6
        gap = 8
        w = (bar.width - gap * (cols + 1)) // cols
        h = (bar.height - 3 * gap) // 2
        self.bar_buttons = []
        for i, cmd in enumerate(controls.COMMANDS):
            x = bar.left + gap + (i % cols) * (w + gap)
            y = bar.top + gap + (i // cols) * (h + gap)
            label = controls.end_label(actions) if cmd.name == "end" else cmd.label
            b = Button(
                label,
                pygame.Rect(x, y, w, h),
                lambda n=cmd.name: self.command(n),
                enabled=cmd.name in enabled,
                key=cmd.key,
                on_refused=lambda n=cmd.name: self.command(n),
                size=15 if w >= 125 else 13,
            )
            b.selected = mode.value == cmd.name
            self.bar_buttons.append(b)
        mouse = pygame.mouse.get_pos() if pygame.mouse.get_focused() else None
        for b in self.bar_buttons:
            b.draw(screen, mouse)
        if player is None and not state.is_over:
            text = self._waiting_text(state)
            draw_text(screen, text, (bar.centerx, bar.top - 14), 14, theme.TEXT, True, "center")

    def offer_time_left(self, state: GameState) -> str | None:
        """How long an offer made elsewhere (a remote player, a bot) stays open for the
        answers of this window's humans: a networked game's agreed wait, counted from
        the offer, or until everyone answered (the rule of the bot driver)."""
        offerer = state.players[state.current]
        if state.phase is not Phase.TRADE or offerer in self.seats.humans:
            return None
        if not self.seats.humans_acting(state):
            return None
        info = self.session.info
        timeout = info.timeout if info is not None else 0
        if not self.session.networked or not timeout:
            return f"{offerer.capitalize()}'s offer stays open until everyone has answered"
        left = int(self.session.waiting_since() + timeout - now())
        if left <= 0:
            return f"{offerer.capitalize()} may close the offer now: answer soon"
        return f"{offerer.capitalize()}'s offer stays open {span(left)} more for your answer"

    def _waiting_on(self, state: GameState) -> tuple[str, float | None] | None:
        """The remote player the game waits on, with when their branch last moved."""
        if not self.session.networked:
            return None
        remote = self.seats.remote_acting(state)
        if not remote:
            return None
        return remote[0], self.runtime.heard.get(remote[0])

    def local_text(self) -> str:
        """The footer of a window that plays every seat itself (no network)."""
        humans, bots = len(self.seats.humans), len(self.seats.bots)
        if humans > 1:
            extra = f" and {bots} bot{'s' * (bots != 1)}" if bots else ""
            return f"hot-seat: {humans} players{extra} share this window"
        if humans == 1:
            return f"{self.seats.humans[0].capitalize()} against {bots} bot{'s' * (bots != 1)}"
        return "bots only: every seat is played by a bot"
