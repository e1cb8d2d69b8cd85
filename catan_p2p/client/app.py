"""The play window: one loop step (``tick``) reads input, lets bots act, and draws once.

The app plays only through a ``Session``: it reads ``session.state``, lists
``session.legal_actions(player)`` for buttons and highlights, and hands every click
that means an action to ``session.submit`` (showing the engine's refusal when it is
illegal). ``tick`` is steppable, so tests post real pygame events and call it,
without threads; ``run`` just calls it at a steady frame rate.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p.client import controls, motion, theme  # noqa: E402
from catan_p2p.client.controls import Mode  # noqa: E402
from catan_p2p.client.dialogs import (  # noqa: E402
    Dialog,
    DiscardDialog,
    GameOverDialog,
    HelpDialog,
    MessageDialog,
    MonopolyDialog,
    PassDialog,
    VictimDialog,
    YearOfPlentyDialog,
)
from catan_p2p.client.frame import (  # noqa: E402
    REDRAW_SECONDS,
    ROLL_SECONDS,
    Frame,
)
from catan_p2p.client.layout import Layout, resized_screen  # noqa: E402
from catan_p2p.client.messages import production_text, same_hands  # noqa: E402
from catan_p2p.client.notice import Notifier, TurnNotice, desktop_notify  # noqa: E402
from catan_p2p.client.render import BoardView  # noqa: E402
from catan_p2p.client.seats import Seats  # noqa: E402
from catan_p2p.client.sound import Sounds  # noqa: E402
from catan_p2p.client.stats_screen import stats_dialog  # noqa: E402
from catan_p2p.client.trade_dialogs import BankTradeDialog, OfferDialog, TradeDialog  # noqa: E402
from catan_p2p.client.widgets import Button  # noqa: E402
from catan_p2p.clock import now
from catan_p2p.net.chat import MAX_CHARS, ChatLog, ChatMessage  # noqa: E402
from catan_p2p.net.game import LogEntry, Session, SyncStatus  # noqa: E402
from catan_p2p.net.runtime import (  # noqa: E402
    BOT,
    CHAT,
    ELSEWHERE,
    REFUSED,
    REJECTED,
    RELOADED,
    Runtime,
)
from catan_p2p.rules.actions import (  # noqa: E402
    Abandon,
    Action,
    BuildRoad,
    BuyDevCard,
    MoveRobber,
    PlayKnight,
    PlayRoadBuilding,
    RevealDice,
    RollDice,
)
from catan_p2p.rules.hexgrid import EdgeId, Tile, VertexId  # noqa: E402
from catan_p2p.rules.places import in_words  # noqa: E402
from catan_p2p.rules.state import NOBODY, Answer, GameState, Phase  # noqa: E402
from catan_p2p.rules.waiting import expecting  # noqa: E402

#: Events that say the player is at the window (the title stops flashing).
BACK_AT_THE_WINDOW = frozenset({pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN, pygame.WINDOWFOCUSGAINED})


class App(Frame):
    """One window playing one session: hot-seat humans, bots, and remote seats it waits on.

    Args:
        session: the game (``MemorySession`` or ``GitSession``).
        seats: which seats click and which are bots; every other seat is remote.
        screen: the surface to draw on (default: opens a window of ``size``).
        bot_delay: seconds between two bot actions, so people can follow them; 0 in tests.
        runtime: the peer runtime that owns ``session`` (``net.runtime``): it records,
            syncs and plays the bot seats, and the window reads its snapshots. None: an
            inline runtime of ``session`` and the bots of ``seats`` is made here.
        offer_replay: show "Replay the game" at the end; it stops the loop with
            ``replay_requested`` set, and the caller opens the replay viewer.
        spectator: a read-only window (``catan-p2p watch``): no seat, no hand, no
            action bar; ``P`` stops the loop with ``replay_requested`` set to step
            through the game so far.
    """

    #: The invitation to this game, shown while seats are open (set by whoever opens it).
    invite: str | None = None

    def __init__(
        self,
        session: Session,
        seats: Seats,
        *,
        screen: pygame.Surface | None = None,
        size: tuple[int, int] = theme.WINDOW_SIZE,
        bot_delay: float = 0.35,
        runtime: Runtime | None = None,
        offer_replay: bool = True,
        title: str = "catan-p2p",
        chat: ChatLog | None = None,
        sounds: Sounds | None = None,
        spectator: bool = False,
        notify: Notifier = desktop_notify,
        still: bool = False,
    ) -> None:
        pygame.display.init()
        pygame.font.init()
        if screen is None:
            screen = pygame.display.set_mode(size)
        pygame.display.set_caption(f"{title} — {session.game_id}")
        self.screen = screen
        # The peer runtime owns the session: the window reads its snapshots and sends it
        # commands (``runtime.view``), and it plays the window's bot seats.
        if runtime is None:
            runtime = Runtime(session, seats.bots, bot_delay=bot_delay, chat=chat, lock=False)
        elif seats.bots:
            runtime.drive(seats.bots, bot_delay)
        self.runtime = runtime
        self.session: Session = runtime.view
        session = self.session
        self.seats = seats
        self.bot_delay = bot_delay
        self.offer_replay = offer_replay
        self.spectator = spectator
        self.replay_requested = False
        state = session.state
        self.layout = Layout.for_size(screen.get_size(), len(state.players))
        self.view = BoardView(state.board, self.layout.board.size, self.layout.board.topleft)
        self.mode = Mode.NONE
        self.dialog: Dialog | None = None
        self.message: str | None = None
        self.message_is_error = True
        self.message_at = 0.0
        # the state the message speaks of, and what keeps it true in a later one (``say``)
        self._message_about: GameState | None = None
        self._message_holds: Callable[[GameState], bool] | None = None
        self.viewer: str | None = None
        # hot-seat privacy: with several humans at one screen, a hand is shown only
        # after its owner confirmed at a "pass to" screen; ``revealed`` is that owner.
        self.private = len(seats.humans) > 1
        self.revealed: str | None = None
        self.show_costs = False  # the building-costs card (key C)
        # table talk: the chat log (None: this session keeps none) and the line being typed
        self.chat = runtime.chat
        self.typing: str | None = None
        self.sounds = sounds if sounds is not None else Sounds()
        # networked: sound, title and desktop notice when the game turns to this window
        self.notice = TurnNotice(f"{title} — {session.game_id}", self.sounds, notify)
        self.roll_anim: tuple[float, tuple[int, int]] | None = None  # (started, dice)
        self.flights: list[motion.Flight] = []  # the roll's produced cards on their way
        self.still = still  # no motion: dice and cards appear at once (``--still``, A)
        # a roll that arrived in the last tick: its animation starts in the next one, so
        # the frame that shows the move costs what a still window's does
        self._roll_due: tuple[GameState, GameState, tuple[int, int]] | None = None
        self._heard_chat = 0
        self.running = True
        self.bar_buttons: list[Button] = []
        self.clock = pygame.time.Clock()
        self._pressed: tuple[int, int] | None = None
        self._state: GameState | None = None
        self._legal: dict[str, list] = {}
        self._log: list[LogEntry] = []
        self._said: dict[str, str] = {}  # commit -> the log's words (bank trades' rates)
        self._dirty = True
        self._drawn_at = 0.0
        self._game_over_shown = False
        self.bot_errors: list[str] = []
        self._follow(state)

    # --- the loop ----------------------------------------------------------------------

    def tick(self) -> bool:
        """Handle pending events, let bots act, draw a frame; False once the window closes.

        A frame is drawn after input or a new state, and at least twice a second (the
        sync indicator's clock), so an idle window costs next to no CPU.
        """
        events = pygame.event.get()
        for event in events:
            if event.type in BACK_AT_THE_WINDOW:
                self.notice.back()
                self.roll_anim, self.flights = None, []  # skipped: the input goes on
                self._roll_due = None
            self.handle(event)
        self._start_roll_animation()
        self.runtime.pump()  # a window with no remote: its runtime's round, here
        self._collect_notices()
        self._follow(self.session.state)
        self._notice_turn()
        self._listen_to_chat()
        now = time.monotonic()
        if self.roll_anim is not None:
            self._dirty = True  # animate: a frame every tick
            if now - self.roll_anim[0] > ROLL_SECONDS:
                self.roll_anim, self.flights = None, []
        if events or self._dirty or now - self._drawn_at >= REDRAW_SECONDS:
            self.draw()
            pygame.display.flip()
            self._dirty = False
            self._drawn_at = now
        return self.running

    def run(self, fps: int = 30) -> int:
        """Tick until the window is closed."""
        while self.tick():
            self.clock.tick(fps)
        return 0

    @property
    def state(self) -> GameState:
        assert self._state is not None
        return self._state

    def _notice_turn(self) -> None:
        """Tell ``notice`` whom of this window's players a networked game waits on."""
        if not self.session.networked or self.spectator:
            return
        state = self.state
        waiting = [] if state.is_over else self.seats.humans_acting(state)
        since = self.session.waiting_since()  # 0: a session that keeps no times
        self.notice.follow(waiting, expecting(state), float(since) if since else None)
        self.notice.tick()

    # --- following the game ------------------------------------------------------------

    def _follow(self, state: GameState) -> None:
        """React to a new state: refresh caches, the viewer, the mode and the dialogs."""
        if state is self._state or state == self._state:
            return  # (a Git session may rebuild an equal state on every read)
        previous = self.viewer
        before = self._state
        self._dirty = True
        self._state = state
        self._legal = {}
        self._drop_stale_message(state)
        seen = len(self._log)
        self._log = self.session.history()
        self._said.update(self.session.said(self._log[seen:]))
        if before is not None and self._log and isinstance(self._log[-1].action, RollDice):
            # true while the hands are the ones the roll gave, in the same turn
            self.say(
                production_text(before, state, self._log[-1].action),
                error=False,
                holds=partial(same_hands, state),
            )
        if before is not None:
            self._react(before, state, self._log[seen:])
        self.viewer = self.seats.viewer(state, previous)
        if (
            previous is not None
            and self.viewer != previous
            and len(self.seats.humans) > 1
            and not self.message
        ):
            self.say(f"{self.viewer.capitalize()}, it is your move.", error=False)
        if self.mode is not Mode.NONE and not self._mode_targets(self.mode):
            self.mode = Mode.NONE
        if self.dialog is not None:
            if self.dialog.closed or not self.dialog.fits(state):
                self.dialog = None
            else:
                self.dialog.update(state)
        if self._must_pass(state):
            self._ask_to_pass(state)
        else:
            self._open_forced_dialog(state)

    def _react(self, before: GameState, state: GameState, new: list[LogEntry]) -> None:
        """Sounds and the roll animation for the actions that just arrived."""
        for entry in new[-3:]:
            action = entry.action
            if isinstance(action, (RollDice, RevealDice)) and action.dice:
                if not self.still:
                    last = self._log[-1].action if self._log else None
                    # more arrived at once: the cards of the roll are not told apart
                    after = state if isinstance(last, (RollDice, RevealDice)) else before
                    self._roll_due = (before, after, action.dice)
                self.sounds.play("roll")
                if sum(action.dice) == 7:
                    self.sounds.play("robber")
            elif action.kind in ("build_road", "build_settlement", "build_city"):
                self.sounds.play("build")
            elif action.kind in ("move_robber", "play_knight"):
                self.sounds.play("robber")
        mover = state.players[state.current]
        if (
            not state.is_over
            and not self.session.networked  # networked, ``notice`` plays it when it waits
            and before.players[before.current] != mover
            and mover in self.seats.humans
        ):
            self.sounds.play("turn")

    def _start_roll_animation(self) -> None:
        """Start the animation of the roll the last tick showed: the dice tumble, then
        the produced cards fly."""
        if self._roll_due is None or self.still:
            self._roll_due = None
            return
        before, after, dice = self._roll_due
        self._roll_due = None
        self.roll_anim = (time.monotonic(), dice)
        self.flights = motion.flights(before, after, self.view, self.layout.players, sum(dice))

    def toggle_motion(self) -> bool:
        """Motion on or off (key A); returns True when the window keeps still."""
        self.still = not self.still
        if self.still:
            self.roll_anim, self.flights, self._roll_due = None, [], None
        return self.still

    # --- hot-seat privacy ----------------------------------------------------------------

    def _must_pass(self, state: GameState) -> bool:
        """True while the window must hide the hand it is about to show (hot-seat)."""
        return (
            self.private
            and not state.is_over
            and self.viewer is not None
            and self.viewer != self.revealed
        )

    @property
    def shown_player(self) -> str | None:
        """Whose private cards the window may draw now (None behind a "pass to" screen,
        and always for a spectator)."""
        if self.spectator:
            return None
        if self.private and not self.state.is_over and self.viewer != self.revealed:
            return None
        return self.viewer

    def _ask_to_pass(self, state: GameState) -> None:
        """Cover the hand with a "pass to <viewer>" screen until the viewer confirms."""
        player = self.viewer
        assert player is not None
        if isinstance(self.dialog, PassDialog) and self.dialog.player == player:
            return
        self._open(PassDialog(player, self._pass_reason(state, player), self._reveal))

    def _pass_reason(self, state: GameState, player: str) -> str:
        current = state.players[state.current]
        if state.phase is Phase.DISCARD and player in self.seats.humans_acting(state):
            return "a seven was rolled: it is your turn to discard"
        if state.phase is Phase.TRADE and player != current:
            alone = state.trade is not None and state.trade.to != NOBODY
            return f"{current.capitalize()} offers you a trade" + (", you alone" if alone else "")
        if state.phase is Phase.TRADE:
            countered = state.trade is not None and Answer.COUNTER in state.trade.answers
            return "the answers to your trade offer are in" + (
                ", a counter-offer among them" if countered else ""
            )
        if state.phase is Phase.SPECIAL_BUILD and player == current:
            after = state.players[(state.turn - 1) % len(state.players)].capitalize()
            return f"special building after {after}'s turn: you may build or buy"
        if player == current and not state.is_over:
            return "it is your move"
        return "the window is yours"

    def _reveal(self) -> None:
        self.revealed = self.viewer
        self.dialog = None
        self._dirty = True
        self._open_forced_dialog(self.state)

    def _open_forced_dialog(self, state: GameState) -> None:
        """Open the dialog the game waits on: discards, trade answers, the final score.

        In hot-seat only the revealed player's part is shown: each discarding human
        and each human answering a trade gets a turn of their own behind a pass screen.
        """
        humans = self.seats.humans_acting(state)
        if self.private:
            humans = [p for p in humans if p == self.revealed]
        if state.phase is Phase.DISCARD and humans:
            if not isinstance(self.dialog, DiscardDialog) or self.dialog.players != humans:
                self._open(DiscardDialog(state, humans, self.submit))
        elif state.phase is Phase.TRADE and humans:
            answerers = tuple(humans) if self.private else self.seats.humans
            if not isinstance(self.dialog, TradeDialog) or self.dialog.humans != answerers:
                self._open(TradeDialog(state, answerers, self.submit))
        elif isinstance(self.dialog, (DiscardDialog, TradeDialog)):
            self.dialog = None
        if state.is_over and not self._game_over_shown:
            self._game_over_shown = True
            replay = self._replay if self.offer_replay else None
            self._open(GameOverDialog(state, replay, self.show_stats))

    def show_stats(self) -> None:
        """The statistics screen, its figures recounted from the verified history."""
        self._open(stats_dialog(self.session))

    def _replay(self) -> None:
        self.replay_requested = True
        self.running = False

    def _open(self, dialog: Dialog) -> None:
        dialog.place(self.layout.board)
        self.dialog = dialog

    def legal(self, player: str) -> list[Action]:
        """The session's legal actions of ``player`` now (cached per state)."""
        if player not in self._legal:
            self._legal[player] = self.session.legal_actions(player)
        return self._legal[player]

    def actor(self) -> str | None:
        """The human who may use the board and the action bar now (the player to move)."""
        state = self.state
        current = state.players[state.current]
        if self.private and current != self.revealed:
            return None
        if current in self.seats.humans_acting(state) and state.phase is not Phase.TRADE:
            return current
        return None

    # --- acting ------------------------------------------------------------------------

    def submit(self, action: Action) -> bool:
        """Hand ``action`` to the runtime; on refusal show the rule's reason. True if taken.

        The action is checked against the rules here and recorded (and pushed) by the
        runtime, so a slow remote never stalls the window.
        """
        if not self.runtime.wait_sent(0.3):  # one action at a time, judged on a fresh state
            self.say("still sending your last action to the others; try again in a moment")
            return False
        self._follow(self.session.state)
        refusal = self.session.refusal(action)
        if refusal is not None:
            self.say(refusal)
            return False
        self.message = None
        self.runtime.submit(action)
        self._collect_notices()
        self._follow(self.session.state)
        return True

    def _collect_notices(self) -> None:
        notices = self.runtime.take_notices()
        newest = self.session.state if notices else None  # what the notices speak of
        for notice in notices:
            if notice.kind == REFUSED:
                self.say(f"{notice.action} was not recorded: {notice.text}", about=newest)
            elif notice.kind == BOT:
                self.bot_errors.append(notice.text)
                self.say(f"a bot failed: {notice.text}", about=newest)
            elif notice.kind in (ELSEWHERE, RELOADED):
                title = "Another device plays this seat" if notice.kind == ELSEWHERE else None
                self._open(MessageDialog(title or "The game was reloaded", notice.text))
            elif notice.kind in (CHAT, REJECTED):
                self.say(notice.text, about=newest)
            # SYNC: the status line shows the round's error itself

    def say(
        self,
        text: str,
        error: bool = True,
        about: GameState | None = None,
        holds: Callable[[GameState], bool] | None = None,
    ) -> None:
        """Show one line in the status box (an illegal click's reason, a hand-over).

        Places in ``text`` are named in words, as players name them. The line speaks of
        ``about`` (default: the state shown now) and goes once the game moves on from
        it, unless ``holds`` says it is still true of the new state.
        """
        if self._state is not None:
            text = in_words(self._state.board, text)
        self.message = text
        self.message_is_error = error
        self.message_at = time.monotonic()
        self._message_about = about if about is not None else self._state
        self._message_holds = holds

    def _drop_stale_message(self, state: GameState) -> None:
        """Forget a message about an earlier state that is no longer true of ``state``."""
        about = self._message_about
        if self.message is None or about is None or state is about or state == about:
            return
        if self._message_holds is None or not self._message_holds(state):
            self.message = None

    @property
    def sync_status(self) -> SyncStatus | None:
        return self.runtime.status

    # --- input -------------------------------------------------------------------------

    def handle(self, event: pygame.event.Event) -> None:
        """Route one pygame event."""
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.VIDEORESIZE:
            self.resize(event.size)
        elif event.type == pygame.TEXTINPUT and self.typing is not None:
            self.typing = (self.typing + event.text)[:MAX_CHARS]
        elif event.type == pygame.KEYDOWN:
            self.key(event.key, getattr(event, "mod", 0))
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self._pressed = event.pos
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            if self._pressed is not None:
                self._pressed = None
                self.click(event.pos)
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 3:
            self.mode = Mode.NONE  # right click cancels a building mode

    def resize(self, size: tuple[int, int]) -> None:
        """Lay the window out again for a new size (the window is resizable)."""
        self.screen = resized_screen(size)
        self.layout = Layout.for_size(self.screen.get_size(), len(self.state.players))
        board = self.layout.board
        self.view = BoardView(self.state.board, board.size, board.topleft)
        if self.dialog is not None:
            self.dialog.widgets = []
            if isinstance(self.dialog, VictimDialog):  # the tile moved with the board
                self.dialog.keep_clear = self._clearance(self.dialog.choices[0].tile)
            self.dialog.place(board)

    def key(self, key: int, mod: int = 0) -> None:
        if key == pygame.K_q and mod & pygame.KMOD_CTRL:
            self.running = False
            return
        if self.typing is not None:
            self._chat_key(key)
            return
        if self.dialog is not None:
            self.dialog.key(key)
            self._drop_closed_dialog()
            return
        if key == pygame.K_ESCAPE:
            self.mode = Mode.NONE
            return
        if key in (pygame.K_h, pygame.K_QUESTION, pygame.K_F1):
            self._open(HelpDialog())
            return
        if key == pygame.K_c:
            self.show_costs = not self.show_costs
            return
        if key == pygame.K_x and (pair := self.may_abandon(self.session.state)) is not None:
            self.submit(Abandon(*pair))
            return
        if self.spectator and key == pygame.K_p:
            self._replay()  # the caller steps through the game so far, then comes back
            return
        if key == pygame.K_a:
            still = self.toggle_motion()
            self.say("motion off (A turns it on)" if still else "motion on", error=False)
            return
        if key == pygame.K_s:
            muted = self.sounds.toggle()
            self.say("sound off (S turns it on)" if muted else "sound on", error=False)
            return
        if key in (pygame.K_RETURN, pygame.K_KP_ENTER) and self.chat is not None:
            self.typing = ""
            pygame.key.start_text_input()
            return
        name = controls.KEYS.get(pygame.key.name(key))
        if name is not None:
            self.command(name)

    def click(self, pos: tuple[int, int]) -> None:
        if self.dialog is not None:
            self.dialog.click(pos)
            self._drop_closed_dialog()
            return
        for b in self.bar_buttons:
            if b.click(pos):
                return
        if self.layout.board.collidepoint(pos):
            self.board_click(pos)

    def _drop_closed_dialog(self) -> None:
        if self.dialog is not None and self.dialog.closed:
            self.dialog = None

    def command(self, name: str) -> None:
        """Run an action-bar command (button or key) for the player to move."""
        player = self.actor()
        state = self.state
        if player is None:
            self.say(f"not your move: {self._waiting_text(state)}")
            return
        actions = self.legal(player)
        if name not in controls.enabled_commands(actions):
            self.say(controls.why_not(state, player, name))
            return
        simple: dict[str, Action] = {
            "roll": RollDice(player),
            "buy": BuyDevCard(player),
            "knight": PlayKnight(player),
            "road_building": PlayRoadBuilding(player),
        }
        if name in simple:
            self.submit(simple[name])
        elif name == "end":
            self.submit(controls.end_action(state, player))
        elif name in ("road", "settlement", "city"):
            mode = Mode(name)
            self.mode = Mode.NONE if self.mode is mode else mode
        elif name == "bank":
            self._open(BankTradeDialog(state, player, self.submit))
        elif name == "offer":
            self._open(OfferDialog(state, player, self.submit))
        elif name == "year_of_plenty":
            self._open(YearOfPlentyDialog(state, player, self.submit))
        elif name == "monopoly":
            self._open(MonopolyDialog(state, player, self.submit))

    def current_mode(self) -> Mode:
        return controls.forced_mode(self.state) or self.mode

    def _mode_targets(self, mode: Mode) -> bool:
        player = self.actor()
        if player is None:
            return False
        v, e, t = controls.targets(self.legal(player)).for_mode(mode)
        return bool(v or e or t)

    def board_click(self, pos: tuple[int, int]) -> None:
        """A click on the board: build or move the robber there, or say why not."""
        player = self.actor()
        state = self.state
        if player is None:
            self.say(f"not your move: {self._waiting_text(state)}")
            return
        mode = self.current_mode()
        action: Action | None = None
        if mode is Mode.ROBBER:
            tile = self.view.tile_at(pos)
            if tile is None:
                self.say("robber: click a land tile to move the robber there")
                return
            self.robber_click(player, tile)
            return
        if mode is Mode.ROAD:
            edge = self.view.edge_at(pos, reach=0.45)
            if edge is not None:
                action = BuildRoad(player, edge)
        elif mode in (Mode.SETTLEMENT, Mode.CITY):
            vertex = self.view.vertex_at(pos, reach=0.4)
            if vertex is not None:
                action = controls.vertex_action(state, player, mode, vertex)
        else:
            vertex = self.view.vertex_at(pos)
            edge = self.view.edge_at(pos)
            if vertex is not None:
                action = controls.vertex_action(state, player, mode, vertex)
            elif edge is not None:
                action = BuildRoad(player, edge)
        if action is None:
            if mode is Mode.NONE:
                self.say("choose Road (1), Settlement (2) or City (3), then click the board")
            else:
                self.say(f"click one of the highlighted places to build a {mode.value}")
            return
        if self.submit(action) and self.mode is not Mode.NONE:
            if not self._mode_targets(self.mode):
                self.mode = Mode.NONE

    def _clearance(self, tile: Tile) -> pygame.Rect:
        """Where ``tile`` and the pieces on its corners are on screen (a dialog about
        it stays clear of it)."""
        corners = self.view.hex_corners(tile)
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        hexagon = pygame.Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
        return hexagon.inflate(24, 24)

    def robber_click(self, player: str, tile: Tile) -> None:
        choices = controls.robber_choices(self.legal(player), tile)
        if len(choices) > 1:
            clear = self._clearance(tile)
            self._open(VictimDialog(self.state, choices, self.submit, keep_clear=clear))
        elif choices:
            self.submit(choices[0])
        else:
            self.submit(MoveRobber(player, tile))  # refused: the engine says why

    def _waiting_text(self, state: GameState) -> str:
        remote = self.seats.remote_acting(state)
        if remote:
            names = ", ".join(p.capitalize() for p in remote)
            pair = self.may_abandon(state)
            if pair is not None:
                return (
                    f"{names} kept the game waiting longer than agreed: X ends it without "
                    f"{pair[1].capitalize()} (nobody wins)"
                )
            return f"waiting for {names}" + ("" if self.spectator else " (playing elsewhere)")
        return expecting(state)

    def may_abandon(self, state: GameState) -> tuple[str, str] | None:
        """``(me, absent)`` when a remote player has kept the game waiting longer than
        the players agreed at ``new --timeout`` (PROTOCOL.md "Liveness")."""
        info = self.session.info
        if not self.session.networked or info is None or not info.timeout or state.is_over:
            return None
        remote = self.seats.remote_acting(state)
        me = next((p for p in self.seats.humans if p not in remote), None)
        if not remote or me is None:
            return None
        since = self.session.waiting_since()
        if now() - since < info.timeout:
            return None
        return me, remote[0]

    # --- chat --------------------------------------------------------------------------

    def chat_messages(self) -> list[ChatMessage]:
        """The conversation so far, as the runtime last read it."""
        return self.runtime.chat_messages

    def _chat_key(self, key: int) -> None:
        if key == pygame.K_ESCAPE:
            self._stop_typing()
        elif key == pygame.K_BACKSPACE:
            self.typing = (self.typing or "")[:-1]
        elif key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            text = self.typing or ""
            self._stop_typing()
            if text.strip():
                self.say_in_chat(text)

    def _stop_typing(self) -> None:
        self.typing = None
        pygame.key.stop_text_input()

    def say_in_chat(self, text: str) -> bool:
        """Send ``text`` as the player the window serves now; False (and why) if none."""
        speaker = self.chat_speaker()
        if self.chat is None or speaker is None:
            self.say("chat: take the screen first (the pass screen), then talk")
            return False
        self.runtime.say(speaker, text)
        return True

    def _listen_to_chat(self) -> None:
        messages = self.chat_messages()
        if len(messages) > self._heard_chat:
            if self._heard_chat and messages[-1].player != self.chat_speaker():
                self.sounds.play("chat")
            self._heard_chat = len(messages)
            self._dirty = True

    def chat_speaker(self) -> str | None:
        """Who talks from this window now: the human whose hand is shown."""
        shown = self.shown_player
        return shown if shown in self.seats.humans else None

    # --- helpers for tests and tools ---------------------------------------------------

    def vertex_point(self, vertex: VertexId) -> tuple[int, int]:
        """Window position of a vertex (where a click lands on it)."""
        x, y = self.view.vertex_pos(vertex)
        return (round(x), round(y))

    def edge_point(self, edge: EdgeId) -> tuple[int, int]:
        x, y = self.view.edge_pos(edge)
        return (round(x), round(y))

    def tile_point(self, tile: Tile) -> tuple[int, int]:
        x, y = self.view.tile_center(tile)
        return (round(x), round(y))

    def button(self, label: str) -> Button:
        """The visible button with ``label`` (dialog first, then the action bar)."""
        buttons = self.dialog.buttons() if self.dialog is not None else []
        for b in buttons + self.bar_buttons:
            if b.label == label:
                return b
        known = ", ".join(b.label for b in buttons + self.bar_buttons)
        raise KeyError(f"no button {label!r} on screen; there are: {known}")

    def screenshot(self, path: str | os.PathLike) -> Path:
        """Save the last drawn frame as a PNG."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(self.screen, str(out))
        return out
