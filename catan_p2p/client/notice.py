"""Your turn, noticed: when a networked game starts to wait on this window's players.

The moment the game turns to a local player (its move, a discard, an answer to an
offer), ``TurnNotice`` plays the turn sound (muted with the rest), flashes the window's
title (which is also its taskbar entry) until the player is back at the window, and
asks the desktop for a notification when one is offered (``notify-send``; nothing
happens without it). While the game waits it draws a think clock and, when the players
agreed a ``--timeout``, how long before the others may end the game without them.
Nothing here waits: a notification is a process started and left alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p import clock  # noqa: E402
from catan_p2p.client import theme  # noqa: E402
from catan_p2p.client.sound import Sounds  # noqa: E402
from catan_p2p.client.widgets import draw_text  # noqa: E402

FLASH_SECONDS = 0.7  # the title changes this often while the player is away
FLASHES = 12  # then it stays on "your move" (the taskbar keeps the entry's name)
MARK = "▶ Your move"

Notifier = Callable[[str, str], None]


def desktop_notify(title: str, body: str) -> None:
    """Ask the desktop to show a notification, if it offers ``notify-send``; never fails."""
    program = shutil.which("notify-send")
    if program is None:
        return
    try:
        subprocess.Popen(
            [program, "--app-name=catan-p2p", title, body],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        pass  # a broken notifier is no reason to stop the game


def clock_text(seconds: float) -> str:
    """``0:42``, ``12:05``, ``1:02:09``: a think clock."""
    s = max(0, int(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class TurnNotice:
    """Sound, title, notification and think clock for one window's players.

    Args:
        title: the window's own caption (restored when the game no longer waits).
        sounds: the window's sounds (``S`` mutes them all).
        notify: how to ask the desktop for a notification (tests pass a list's append).
        caption: how to set the window's title (``pygame.display.set_caption``).
    """

    def __init__(
        self,
        title: str,
        sounds: Sounds,
        notify: Notifier = desktop_notify,
        caption: Callable[[str], None] = pygame.display.set_caption,
    ) -> None:
        self.title = title
        self.sounds = sounds
        self.notify = notify
        self.caption = caption
        self.waiting_on: tuple[str, ...] = ()  # the local players the game waits on
        self.since: float | None = None  # clock.now() when it began to wait on them
        self.seen = True  # the player has been at the window since
        self._flashes = 0
        self._flashed_at = 0.0
        self._shown = title
        self._opened = False  # the first ``follow`` is the window opening
        self.timed_from: float | None = None  # the commit the game waits after (clock.now())

    def follow(self, waiting_on: Sequence[str], what: str, since: float | None = None) -> None:
        """The game now waits on ``waiting_on`` (local players) for ``what``; ``since``:
        when it began to (the commit it waits after), else now."""
        waiting = tuple(waiting_on)
        # the agreed timeout counts from the newest move, the think clock from the first
        self.timed_from = since if since is not None else (self.timed_from or clock.now())
        if self._opened and waiting == self.waiting_on:
            return
        # waiting when the window opens: the player is there, it just opened it
        began = self._opened and not self.waiting_on and waiting
        if not self._opened:
            self._opened = True
            if waiting:
                self.since = since if since is not None else clock.now()
                self._set(f"{MARK} — {self.title}")
        self.waiting_on = waiting
        if not waiting:
            self.since = None
            self.seen = True
            self._set(self.title)
            return
        if began:
            self.since = since if since is not None else clock.now()
            self.seen = False
            self._flashes = 0
            self._flashed_at = 0.0
            self.sounds.play("turn")
            if not self._focused():
                names = " and ".join(p.capitalize() for p in waiting)
                self.notify(f"catan-p2p: {names}, the game waits on you", what)

    def back(self) -> None:
        """The player is at the window (a key, a click, the window focused)."""
        if not self.seen:
            self.seen = True
            self._set(f"{MARK} — {self.title}" if self.waiting_on else self.title)

    def tick(self, now: float | None = None) -> None:
        """Flash the title while the game waits on a player who is away."""
        if not self.waiting_on or self.seen:
            return
        now = time.monotonic() if now is None else now
        if now - self._flashed_at < FLASH_SECONDS:
            return
        self._flashed_at = now
        self._flashes += 1
        on = self._flashes % 2 == 1 or self._flashes >= FLASHES
        self._set(f"{MARK} — {self.title}" if on else self.title)

    def thinking(self, now: float | None = None) -> float | None:
        """Seconds the game has waited on this window's players (None: it does not)."""
        if self.since is None:
            return None
        return (clock.now() if now is None else now) - self.since

    def draw(self, surface: pygame.Surface, board: pygame.Rect, timeout: int = 0) -> None:
        """The think clock over the board's top edge; with an agreed ``timeout``, the
        time before the others may end the game without the player."""
        thought = self.thinking()
        if thought is None:
            return
        text = f"Your move · thinking {clock_text(thought)}"
        colour = theme.TEXT
        if timeout:
            left = timeout - (clock.now() - (self.timed_from or clock.now()))
            if left > 0:
                text += f" · {clock_text(left)} left of the agreed {clock_text(timeout)}"
                colour = theme.WARN if left < 60 else theme.TEXT
            else:
                text += " · past the agreed time: the others may end the game without you"
                colour = theme.BAD
        label = theme.font(15, True).render(text, True, colour)
        pill = label.get_rect(midtop=(board.centerx, board.top + 8)).inflate(24, 10)
        pygame.draw.rect(surface, theme.PANEL, pill, border_radius=14)
        pygame.draw.rect(surface, theme.HIGHLIGHT, pill, width=2, border_radius=14)
        draw_text(surface, text, pill.center, 15, colour, True, "center")

    def _set(self, caption: str) -> None:
        if caption != self._shown:
            self._shown = caption
            self.caption(caption)

    @staticmethod
    def _focused() -> bool:
        try:
            return bool(pygame.display.get_init() and pygame.key.get_focused())
        except pygame.error:
            return False
