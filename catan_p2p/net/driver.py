"""The bot turn loop, written once: ask the seat, decide, submit, wait for answers.

Every place bots play through a ``Session`` uses this module: ``simulate --git`` and
the benchmarks (``play_session_game``), ``catan-p2p play --headless``, the window's
bot seats, ``catan-p2p bot`` (one seat of a networked game) and the tests. The rules
of the loop live here and nowhere else:

- who acts: the bots among ``actors(state)``; answers (discards, trade answers) come
  before the active player, and a bot that offered a trade waits for the answers;
- how long an offer waits: until every other seat answered (``trade_wait=None``:
  every seat is local or a person in the same window), or at most ``trade_wait``
  seconds (networked: a remote peer may never answer);
- what a step is: ask the session for the seat's legal actions, let its bot decide,
  submit it, optionally check the invariants of the state the session returns.

The driver never syncs: a caller that talks to peers (``catan-p2p bot``, the
round-robin below) syncs between steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from catan_p2p.bots.base import Bot
from catan_p2p.net.game import Session
from catan_p2p.rules.actions import Action
from catan_p2p.rules.invariants import check_invariants as _check_invariants
from catan_p2p.rules.menu import with_counters
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.rules.waiting import actors

_TRADE = Phase.TRADE


def waiting_bots(
    state: GameState, bots: Mapping[str, object], offer_may_close: bool = False
) -> list[str]:
    """The seats of ``bots`` the game waits on now, in the order they should act.

    The active player's offer waits for every other seat's answer unless
    ``offer_may_close`` (its time for answers is up).
    """
    waiting = actors(state)
    mine = [p for p in waiting if p in bots]
    if state.phase is _TRADE and len(waiting) > 1 and not offer_may_close:
        offerer = state.players[state.current]
        if offerer in mine:
            mine.remove(offerer)
    return mine


@dataclass
class Driver:
    """Plays the seats in ``bots`` on ``session`` (any ``Session``: in memory, Git, remote).

    Args:
        session: the game.
        bots: the bot of each seat this driver plays.
        trade_wait: seconds an own trade offer stays open for answers from seats this
            driver does not play (None: until all have answered).
        check_invariants: run ``check_invariants`` on every state after a submit.
        clock: the time source of ``trade_wait`` (tests pass a fake one).
    """

    session: Session
    bots: Mapping[str, Bot]
    trade_wait: float | None = None
    check_invariants: bool = False
    clock: Callable[[], float] = time.monotonic
    actions: int = 0  # actions this driver submitted
    state: GameState | None = None  # the state after the last submit
    _offer_opened: float | None = field(default=None, repr=False)

    def to_act(self, state: GameState) -> list[str]:
        """The driver's seats that may act in ``state`` now, in order."""
        may_close = False
        if state.phase is _TRADE and self.trade_wait is not None:
            if state.players[state.current] in self.bots:
                now = self.clock()
                if self._offer_opened is None:
                    self._offer_opened = now
                may_close = now - self._offer_opened >= self.trade_wait
        else:
            self._offer_opened = None
        return waiting_bots(state, self.bots, may_close)

    def next_move(self, state: GameState | None = None) -> Action | None:
        """The action a bot of this driver takes now, or None while it waits on others."""
        state = self.session.state if state is None else state
        for player in self.to_act(state):
            actions = self.session.legal_actions(player)
            if actions:
                view = self.session.view(player)
                return self.bots[player].decide(view, with_counters(view, player, actions))
        return None

    def step(self) -> Action | None:
        """Decide and submit one bot action; the action, or None when no bot may act.

        Raises whatever ``session.submit`` raises (``IllegalAction``, ...); nothing
        is recorded then.
        """
        action = self.next_move()
        if action is not None:
            self.submit(action)
        return action

    def submit(self, action: Action) -> GameState:
        """Submit a bot's action (from ``next_move``) and return the new state."""
        self.state = self.session.submit(action)
        self.actions += 1
        self._offer_opened = None  # an offer made now opens when next seen
        if self.check_invariants:
            _check_invariants(self.state)
        return self.state

    def play(
        self,
        max_actions: int | None = None,
        deadline: float | None = None,
        on_action: Callable[[Action, GameState], None] | None = None,
    ) -> int:
        """Step until the game ends, no bot may act, ``max_actions`` or the ``deadline``.

        Args:
            max_actions: stop after this many actions (None: no limit).
            deadline: a ``clock()`` time after which no new action is started.
            on_action: called with each action and the state it led to.

        Returns:
            The number of actions submitted.
        """
        done = 0
        while max_actions is None or done < max_actions:
            if deadline is not None and self.clock() > deadline:
                break
            if self.state is not None and self.state.phase is Phase.GAME_OVER:
                break
            action = self.step()
            if action is None:
                break
            done += 1
            if on_action is not None:
                assert self.state is not None
                on_action(action, self.state)
        return done


def play_round_robin(
    sessions: Mapping[str, Session],
    bots: Mapping[str, Bot],
    max_actions: int,
    before_act: Callable[[Session], None] | None = None,
) -> GameState:
    """Separate sessions (one seat each, e.g. clones of one remote) play in one process.

    The seat the game waits on syncs (``before_act``, default ``session.sync()``),
    then acts; the next seat is read from the acting seat's state, as its own process
    would see it. Returns the last state seen.
    """
    drivers = {p: Driver(s, {p: bots[p]}) for p, s in sessions.items()}
    sync = before_act or (lambda s: s.sync())
    state = next(iter(sessions.values())).state
    done = stalls = 0
    while state.phase is not Phase.GAME_OVER and done < max_actions:
        who = waiting_bots(state, bots)
        if not who:
            raise RuntimeError(f"no seat can act in phase {state.phase.name}")
        player = who[0]
        session = sessions[player]
        sync(session)
        state = session.state
        driver = drivers[player]
        if driver.step() is None:
            stalls += 1  # an answer this seat cannot see yet: the sync just fetched it
            if stalls > 4 * len(sessions):
                raise RuntimeError(f"{player} was named to act but cannot ({state.phase.name})")
            continue
        stalls = 0
        assert driver.state is not None
        state = driver.state
        done += 1
    return state
