"""The lobby screen: start, open, join or watch a game without the command line.

It shows the games on this machine (which wait for you first) and, for a remote URL typed
in, the games that remote holds with their open seats. A click chooses what to do next;
``LobbyScreen.run`` returns that ``Choice`` and the caller (``catan-p2p lobby``) opens
the game's window, then the lobby again. Listing goes through ``session.lobby`` (the same
lists as ``catan-p2p games``); the screen itself only draws and reads clicks and keys, so
tests post real events and call ``tick``.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p import clock  # noqa: E402
from catan_p2p.client import clipboard, theme  # noqa: E402
from catan_p2p.client.panels import panel_box  # noqa: E402
from catan_p2p.client.widgets import Button, draw_text  # noqa: E402
from catan_p2p.errors import CatanError  # noqa: E402
from catan_p2p.session.lobby import GameSummary, RemoteGames  # noqa: E402

ROW = 34
#: Games shown per list (the rest are counted); ``catan-p2p games`` lists them all.
SHOWN = 12
#: Frames a second while nothing happens: input is read this often, and nothing is drawn
#: unless something changed (an idle lobby stays near 0 % of a core; it was 30 %).
IDLE_FPS = 20
#: Seconds between looks at whether the games on this machine changed (a few ``stat``s).
REFRESH_SECONDS = 2.0
#: Seconds between redraws when nothing happens (the "3 min ago" texts age).
REDRAW_SECONDS = 30.0
#: Seconds between listings of the remote (or invitation) shown, read on a thread of
#: their own so the window never waits for the network.
REMOTE_SECONDS = 30.0


@dataclass(frozen=True)
class Choice:
    """What the player picked: ``new`` (against bots), ``open`` a game here, ``join`` a
    remote game's open ``seat``, or ``watch`` a remote game."""

    kind: str
    game: str = ""
    path: str = ""
    url: str = ""
    seat: str = ""


def _names(players: tuple[str, ...]) -> str:
    return ", ".join(p.capitalize() for p in players) or "-"


def _ago(when: int) -> str:
    if when <= 0:
        return ""
    seconds = max(0, int(clock.now()) - when)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return "just now"


class LobbyScreen:
    """The games here and on a remote, each with what can be done with it.

    Args:
        local: lists the games on this machine (``session.lobby.list_local`` bound to
            the games and watch folders and the registry of games made, joined or
            watched here).
        remote: lists a remote's games (``session.lobby.list_remote``), or an
            invitation's game (``session.lobby.list_invite``).
        url: a remote or an invitation to list at once.
        changed: a cheap value that differs once the games on this machine changed
            (looked at every ``REFRESH_SECONDS``; None: never refreshed by itself).
        remote_every: seconds between listings of the remote shown.
    """

    def __init__(
        self,
        local: Callable[[], list[GameSummary]],
        remote: Callable[[str], RemoteGames],
        url: str = "",
        screen: pygame.Surface | None = None,
        size: tuple[int, int] = theme.WINDOW_SIZE,
        changed: Callable[[], object] | None = None,
        remote_every: float = REMOTE_SECONDS,
    ) -> None:
        pygame.display.init()
        pygame.font.init()
        self.screen = screen if screen is not None else pygame.display.set_mode(size)
        pygame.display.set_caption("catan-p2p — games")
        self.list_local = local
        self.list_remote = remote
        self.url = url
        self.typing = False
        self.choice: Choice | None = None
        self.running = True
        self.message = ""
        self.mine: list[GameSummary] = []
        self.found: RemoteGames | None = None
        self.buttons: list[Button] = []
        self.clock = pygame.time.Clock()
        self.changed = changed
        self._seen = changed() if changed is not None else None
        self._looked_at = self._drawn_at = time.monotonic()
        self._dirty = True
        self.frames = 0  # frames drawn (an idle lobby draws next to none)
        self.remote_every = remote_every
        self._listed_at = time.monotonic()
        self._fresh: list[RemoteGames] = []  # a listing read on its thread, to show
        self._listing: threading.Thread | None = None
        self.refresh()
        if url:
            self.list_url()
        # the field takes typing and Ctrl+V at once: it is the lobby's only text
        self.typing = True
        pygame.key.start_text_input()

    # --- what the buttons do -----------------------------------------------------------

    def refresh(self) -> None:
        """Read the games on this machine again (those waiting for you first)."""
        games = self.list_local()
        self.mine = sorted(games, key=lambda g: (not g.mine_waiting, g.is_over, -g.last_move))
        self._dirty = True

    def list_url(self) -> None:
        """List the games of the URL typed in (one sentence when it cannot be read)."""
        url = self.url.strip()
        self._dirty = True
        if not url:
            self.message = "type or paste (Ctrl+V) a remote's URL or an invitation, then Enter"
            return
        self._listed_at = time.monotonic()
        try:
            self.found = self.list_remote(url)
        except CatanError as exc:
            self.found = None
            self.message = str(exc)
            return
        n = len(self.found.games)
        if url.startswith("catan-p2p:"):
            self.message = (
                f"the invitation's game {self.found.games[0].game}, as every place it names says"
                if n
                else "the invitation's game is at none of the places it names yet"
            )
            return
        self.message = f"{url} holds {n} game{'s' * (n != 1)}"

    def pick(self, choice: Choice) -> None:
        self.choice = choice
        self.running = False

    # --- the loop ----------------------------------------------------------------------

    def run(self, fps: int = IDLE_FPS) -> Choice | None:
        """Show the lobby until a choice is made (None: the window was closed)."""
        while self.tick():
            self.clock.tick(fps)
        return self.choice

    def tick(self) -> bool:
        """Handle pending input, notice changed games, and draw a frame only when
        something changed (input, a new listing, or the clock of the "ago" texts)."""
        events = pygame.event.get()
        for event in events:
            self.handle(event)
        now = time.monotonic()
        if self.changed is not None and now - self._looked_at >= REFRESH_SECONDS:
            self._looked_at = now
            seen = self.changed()
            if seen != self._seen:
                self._seen = seen
                self.refresh()
        self._follow_remote(now)
        if events or self._dirty or now - self._drawn_at >= REDRAW_SECONDS:
            self.draw()
            pygame.display.flip()
            self.frames += 1
            self._dirty = False
            self._drawn_at = now
        return self.running

    def _follow_remote(self, now: float) -> None:
        """List the remote shown again every ``REMOTE_SECONDS``, on a thread; show what
        it found once it is back (an error keeps the last listing)."""
        if self._fresh:
            found = self._fresh.pop()
            if self.found is not None and found.url == self.found.url:
                self.found = found
                self._dirty = True
        if self.found is None or now - self._listed_at < self.remote_every:
            return
        if self._listing is not None and self._listing.is_alive():
            return
        self._listed_at = now
        url = self.found.url

        def read() -> None:
            try:
                self._fresh.append(self.list_remote(url))
            except CatanError:
                pass  # unreachable for now: the last listing stays

        self._listing = threading.Thread(target=read, name="lobby-listing", daemon=True)
        self._listing.start()

    def handle(self, event: pygame.event.Event) -> None:
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.TEXTINPUT and self.typing:
            self.url += event.text
        elif event.type == pygame.KEYDOWN:
            self.key(event.key, getattr(event, "mod", 0))
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            self.click(event.pos)

    def key(self, key: int, mod: int = 0) -> None:
        if key == pygame.K_q and mod & pygame.KMOD_CTRL:
            self.running = False
        elif key == pygame.K_ESCAPE:
            self.typing = False
            pygame.key.stop_text_input()
        elif self.typing and key == pygame.K_BACKSPACE:
            self.url = self.url[:-1]
        elif key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.typing = False
            pygame.key.stop_text_input()
            self.list_url()
        elif key == pygame.K_v and mod & (pygame.KMOD_CTRL | pygame.KMOD_META) and self.typing:
            pasted = clipboard.paste()
            if pasted:
                self.url += pasted
            else:
                self.message = "nothing to paste: the clipboard is empty or cannot be read here"
        elif self.typing and key == pygame.K_u and mod & pygame.KMOD_CTRL:
            self.url = ""  # clear the field, as a terminal does

    def click(self, pos: tuple[int, int]) -> None:
        if self.url_box().collidepoint(pos):
            self.typing = True
            pygame.key.start_text_input()
            return
        for b in self.buttons:
            if b.click(pos):
                return

    # --- drawing -----------------------------------------------------------------------

    def _halves(self) -> tuple[pygame.Rect, pygame.Rect]:
        """The panels of the games here (left) and on a remote (right)."""
        w, h = self.screen.get_size()
        return (
            pygame.Rect(16, 90, w // 2 - 24, h - 140),
            pygame.Rect(w // 2 + 8, 90, w // 2 - 24, h - 140),
        )

    def url_box(self) -> pygame.Rect:
        """The URL field, where it is drawn (a click anywhere on it starts typing: the
        box once took clicks 22 pixels above where it was drawn)."""
        right = self._halves()[1]
        return pygame.Rect(right.left + 8, right.top + 28, right.width - 154, 34)

    def draw(self) -> None:
        screen = self.screen
        w, h = screen.get_size()
        screen.fill(theme.PANEL)
        self.buttons = []
        draw_text(screen, "catan-p2p", (24, 18), 28, theme.TEXT, True)
        draw_text(
            screen,
            "start a game, continue one, take an open seat or watch: no command line needed",
            (24, 56),
            15,
            theme.MUTED,
        )
        self.buttons.append(
            Button(
                "New game against bots",
                pygame.Rect(w - 300, 18, 276, 40),
                lambda: self.pick(Choice("new")),
                colour=(70, 140, 80),
            )  # fmt: skip
        )
        left, right = self._halves()
        self._draw_mine(screen, left)
        self._draw_remote(screen, right)
        if self.message:
            draw_text(screen, self.message, (24, h - 36), 14, theme.TEXT, max_width=w - 48)
        mouse = pygame.mouse.get_pos() if pygame.mouse.get_focused() else None
        for b in self.buttons:
            b.draw(screen, mouse)

    def _draw_mine(self, screen: pygame.Surface, rect: pygame.Rect) -> None:
        top = panel_box(screen, rect, "On this machine")
        waiting = sum(1 for g in self.mine if g.mine_waiting)
        note = f"{waiting} wait{'s' * (waiting == 1)} for you" if waiting else "none waits for you"
        draw_text(screen, note, (rect.right - 12, rect.top + 8), 13, theme.MUTED, anchor="topright")
        if not self.mine:
            draw_text(screen, "no games yet: start one, or join one on a remote",
                      (rect.left + 12, top + 6), 14, theme.MUTED)  # fmt: skip
            return
        y = top + 4
        for g in self.mine[:SHOWN]:
            self._row(screen, rect, y, g, local=True)
            y += ROW + 14
        if len(self.mine) > SHOWN:
            draw_text(screen, f"and {len(self.mine) - SHOWN} more (catan-p2p games)",
                      (rect.left + 12, y), 13, theme.MUTED)  # fmt: skip

    def _draw_remote(self, screen: pygame.Surface, rect: pygame.Rect) -> None:
        panel_box(screen, rect, "On a remote, or an invitation")
        box = self.url_box()
        pygame.draw.rect(screen, theme.CARD, box, border_radius=6)
        edge = theme.HIGHLIGHT if self.typing else theme.MUTED
        pygame.draw.rect(screen, edge, box, width=2, border_radius=6)
        tail = self.url  # the end of a long line shows: what was typed last
        f = theme.font(14, False)
        while len(tail) > 1 and f.size(tail + "|")[0] > box.width - 16:
            tail = "…" + tail[max(2, len(tail) // 8) :]
        shown = (tail + "|" if self.typing else tail) if self.url else ""
        draw_text(screen, shown or "type or paste (Ctrl+V) a URL or an invitation, Enter",
                  (box.left + 8, box.centery), 14, theme.TEXT if self.url else theme.MUTED,
                  anchor="midleft", max_width=box.width - 16)  # fmt: skip
        self.buttons.append(
            Button(
                "List games",
                pygame.Rect(box.right + 8, box.top, rect.right - box.right - 20, box.height),
                self.list_url,
            )  # fmt: skip
        )
        y = box.bottom + 12
        if self.found is None:
            return
        readable = sorted(self.found.games, key=lambda g: g.problem is not None)  # junk last
        for g in readable[:SHOWN]:
            self._row(screen, rect, y, g, local=False)
            y += ROW + 14
        if len(self.found.games) > SHOWN:
            draw_text(screen, f"and {len(self.found.games) - SHOWN} more "
                      f"(catan-p2p games {self.found.url})", (rect.left + 12, y), 13,
                      theme.MUTED)  # fmt: skip

    def _row(self, screen: pygame.Surface, rect: pygame.Rect, y: int, g: GameSummary,
             local: bool) -> None:  # fmt: skip
        """One game: its id and players, where it stands, and its buttons."""
        x = rect.left + 12
        if g.problem:
            draw_text(screen, f"{g.game}: unreadable ({g.problem})", (x, y + 8), 13, theme.MUTED,
                      max_width=rect.width - 24)  # fmt: skip
            return
        for i, p in enumerate(g.players):
            pygame.draw.circle(screen, theme.player_colour(p), (x + 6 + 14 * i, y + 9), 6)
        draw_text(screen, g.game, (x + 14 * len(g.players) + 6, y), 15, theme.TEXT, True)
        if g.winner:
            where = f"{g.winner.capitalize()} won after turn {g.turn}"
        elif g.abandoned:
            where = f"ended without {g.abandoned.capitalize()}"
        elif g.open_seats:
            where = f"open seats: {_names(g.open_seats)}"
        else:
            where = f"turn {g.turn}, waiting for {_names(g.waiting_for)} {_ago(g.last_move)}"
        ink = theme.HIGHLIGHT if local and g.mine_waiting else theme.MUTED
        if local and g.mine_waiting:
            where = "your move · " + where
        bx = rect.right - 12
        buttons: list[tuple[str, Choice, theme.Colour | None]] = []
        if local:
            label = "Watch" if not g.yours else "Open"
            buttons.append((label, Choice("open", g.game, path=g.path or ""), None))
        else:
            url = self.found.url if self.found else ""
            for seat in g.open_seats[:3]:
                buttons.append((f"Join as {seat.capitalize()}",
                                Choice("join", g.game, url=url, seat=seat),
                                theme.player_colour(seat)))  # fmt: skip
            buttons.append(("Watch", Choice("watch", g.game, url=url), None))
        for label, choice, colour in reversed(buttons):
            width = 74 if len(label) < 8 else 118
            bx -= width
            self.buttons.append(
                Button(
                    label,
                    pygame.Rect(bx, y + 2, width, ROW - 2),
                    lambda c=choice: self.pick(c),
                    colour=colour,
                    size=13,
                    tag=choice,
                )  # fmt: skip
            )
            bx -= 6
        draw_text(screen, where, (x, y + 19), 13, ink, max_width=bx - x - 4)

    def button(self, label: str, game: str | None = None) -> Button:
        """The visible button ``label`` (of ``game``'s row), for tests."""
        self.draw()
        for b in self.buttons:
            if b.label == label and (game is None or getattr(b.tag, "game", None) == game):
                return b
        raise KeyError(f"no button {label!r}; there are {[b.label for b in self.buttons]}")
