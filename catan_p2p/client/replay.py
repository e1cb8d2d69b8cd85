"""Replay: step, jump per turn or scrub through a game's history; export it as frames.

The states come from the session's history: each log entry holds its action with the
chance outcomes resolved, so re-applying them from the starting position rebuilds
every state without any randomness (the same way a peer verifies a commit).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p.client import panels, theme  # noqa: E402
from catan_p2p.client.layout import Layout, resized_screen  # noqa: E402
from catan_p2p.client.marks import mark_place  # noqa: E402
from catan_p2p.client.render import BoardView  # noqa: E402
from catan_p2p.client.stats_screen import StatsDialog  # noqa: E402
from catan_p2p.client.widgets import Button, draw_text, shade  # noqa: E402
from catan_p2p.errors import CatanError  # noqa: E402
from catan_p2p.net.game import LogEntry  # noqa: E402
from catan_p2p.rules.places import in_words  # noqa: E402
from catan_p2p.rules.state import GameState  # noqa: E402
from catan_p2p.rules.stats import tally  # noqa: E402
from catan_p2p.session.review import replay_states as replay_states  # noqa: E402
from catan_p2p.session.review import replayed as replayed  # noqa: E402  (their one home)

AUTOPLAY_SECONDS = 0.25


def turn_starts(states: Sequence[GameState]) -> list[int]:
    """Indices where a new turn (or the set-up) begins, for jumping per turn."""
    starts = [0]
    for i in range(1, len(states)):
        if states[i].turn != states[i - 1].turn:
            starts.append(i)
    return starts


class ReplayViewer:
    """A window (or an off-screen surface) showing ``states[index]`` with controls."""

    def __init__(
        self,
        states: Sequence[GameState],
        entries: Sequence[LogEntry],
        *,
        screen: pygame.Surface | None = None,
        size: tuple[int, int] = theme.WINDOW_SIZE,
        title: str = "catan-p2p replay",
        viewer: str | None = None,
    ) -> None:
        """``viewer``: whose hand the panel shows (the states are that player's views);
        None shows each action's author's public hand."""
        if not states:
            raise CatanError("there is nothing to replay: the history is empty")
        pygame.font.init()
        if screen is None:
            pygame.display.init()
            screen = pygame.display.set_mode(size)
            pygame.display.set_caption(title)
        self.screen = screen
        self.states = list(states)
        self.entries = list(entries)
        self.viewer = viewer
        self.index = len(self.states) - 1
        self.turns = turn_starts(self.states)
        self.playing = False
        self.running = True
        self.banner = "REPLAY"  # the corner label ("FINAL" on a headless game's picture)
        self.caption: str | None = None  # shown instead of the controls (still pictures)
        self.buttons: list[Button] = []
        self._log_lines: list[tuple[pygame.Rect, int]] = []
        self._dragging = False
        self._last_step = 0.0
        self.stats: StatsDialog | None = None  # the statistics of the game up to ``index``
        self.clock = pygame.time.Clock()
        self._lay_out()

    def _lay_out(self) -> None:
        self.layout = Layout.for_size(self.screen.get_size(), len(self.states[0].players))
        board = self.layout.board
        self.view = BoardView(self.states[0].board, board.size, board.topleft)
        bar = self.layout.bar
        self.slider = pygame.Rect(bar.left + 20, bar.bottom - 30, bar.width - 40, 14)
        self._build_buttons()

    def resize(self, size: tuple[int, int]) -> None:
        self.screen = resized_screen(size)
        self._lay_out()
        if self.stats is not None:
            self.stats.place(self.layout.board)

    # --- moving through history ---------------------------------------------------------

    @property
    def last(self) -> int:
        return len(self.states) - 1

    def goto(self, index: int) -> None:
        self.index = max(0, min(self.last, index))

    def step(self, n: int) -> None:
        self.goto(self.index + n)

    def jump_turn(self, direction: int) -> None:
        """To the start of the next turn, or of this/previous one going back."""
        if direction > 0:
            later = [t for t in self.turns if t > self.index]
            self.goto(later[0] if later else self.last)
        else:
            earlier = [t for t in self.turns if t < self.index]
            self.goto(earlier[-1] if earlier else 0)

    def toggle_stats(self) -> None:
        """Show (or hide) the statistics of the game up to the action shown."""
        if self.stats is not None:
            self.stats = None
            return
        actions = [e.action for e in self.entries[: self.index]]
        self.stats = StatsDialog(tally(self.states[: self.index + 1], actions), at=self.index)
        self.stats.place(self.layout.board)

    def toggle_play(self) -> None:
        if self.index >= self.last:
            self.index = 0
        self.playing = not self.playing
        self._last_step = time.monotonic()

    # --- loop ---------------------------------------------------------------------------

    def tick(self) -> bool:
        for event in pygame.event.get():
            self.handle(event)
        if self.playing and time.monotonic() - self._last_step >= AUTOPLAY_SECONDS:
            self._last_step = time.monotonic()
            self.step(1)
            if self.index >= self.last:
                self.playing = False
        self.draw(pygame.mouse.get_pos() if pygame.mouse.get_focused() else None)
        pygame.display.flip()
        return self.running

    def run(self, fps: int = 30) -> int:
        while self.tick():
            self.clock.tick(fps)
        return 0

    def handle(self, event: pygame.event.Event) -> None:
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.VIDEORESIZE:
            self.resize(event.size)
        elif event.type == pygame.KEYDOWN:
            self.key(event.key, getattr(event, "mod", 0))
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            if self.slider.inflate(0, 16).collidepoint(event.pos):
                self._dragging = True
                self._scrub(event.pos[0])
        elif event.type == pygame.MOUSEMOTION and self._dragging:
            self._scrub(event.pos[0])
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            if self._dragging:
                self._dragging = False
                return
            self.click(event.pos)
        elif event.type == pygame.MOUSEWHEEL:
            self.step(-event.y)

    def key(self, key: int, mod: int = 0) -> None:
        big = bool(mod & pygame.KMOD_SHIFT)
        actions: dict[int, Callable[[], None]] = {
            pygame.K_RIGHT: lambda: self.jump_turn(1) if big else self.step(1),
            pygame.K_LEFT: lambda: self.jump_turn(-1) if big else self.step(-1),
            pygame.K_UP: lambda: self.jump_turn(-1),
            pygame.K_DOWN: lambda: self.jump_turn(1),
            pygame.K_PAGEUP: lambda: self.jump_turn(-1),
            pygame.K_PAGEDOWN: lambda: self.jump_turn(1),
            pygame.K_HOME: lambda: self.goto(0),
            pygame.K_END: lambda: self.goto(self.last),
            pygame.K_SPACE: self.toggle_play,
        }
        if self.stats is not None and key in (pygame.K_ESCAPE, pygame.K_t):
            self.stats = None
        elif key == pygame.K_t:
            self.toggle_stats()
        elif key in (pygame.K_ESCAPE, pygame.K_q):
            self.running = False
        elif key in actions:
            self.playing = False if key != pygame.K_SPACE else self.playing
            actions[key]()

    def click(self, pos: tuple[int, int]) -> None:
        if self.stats is not None:
            self.stats.click(pos)
            if self.stats.closed:
                self.stats = None
            return
        for b in self.buttons:
            if b.click(pos):
                return
        for rect, index in self._log_lines:
            if rect.collidepoint(pos):
                self.goto(index + 1)  # the state that commit produced
                return

    def _scrub(self, x: int) -> None:
        frac = (x - self.slider.left) / max(1, self.slider.width)
        self.goto(round(max(0.0, min(1.0, frac)) * self.last))

    # --- drawing ------------------------------------------------------------------------

    def _build_buttons(self) -> None:
        bar = self.layout.bar
        specs: list[tuple[str, Callable[[], None], str]] = [
            ("« Start", lambda: self.goto(0), "Home"),
            ("‹ Turn", lambda: self.jump_turn(-1), "↑"),
            ("‹ Step", lambda: self.step(-1), "←"),
            ("Play", self.toggle_play, "Space"),
            ("Step ›", lambda: self.step(1), "→"),
            ("Turn ›", lambda: self.jump_turn(1), "↓"),
            ("End »", lambda: self.goto(self.last), "End"),
            ("Stats", self.toggle_stats, "T"),
        ]
        gap = 8
        w = (bar.width - gap * (len(specs) + 1)) // len(specs)
        self.buttons = [
            Button(
                label, pygame.Rect(bar.left + gap + i * (w + gap), bar.top + 8, w, 36), fn, key=k
            )
            for i, (label, fn, k) in enumerate(specs)
        ]

    def draw(self, mouse: tuple[int, int] | None = None) -> None:
        screen = self.screen
        lay = self.layout
        state = self.states[self.index]
        screen.fill(theme.PANEL)
        self.view.draw(screen, state)
        entry = self.entries[self.index - 1] if self.index > 0 else None
        mark_place(screen, self.view, entry.action if entry is not None else None)
        if self.caption is None:
            self._draw_bar(screen, mouse)
        else:
            bar = self.layout.bar
            draw_text(
                screen,
                self.caption,
                bar.center,
                18,
                theme.TEXT,
                True,
                "center",
                max_width=bar.width - 20,
            )
        where = f"action {self.index} of {self.last}"
        if entry is not None:
            where += f" · {in_words(state.board, entry.summary)}"
        current = state.players[state.current]
        panels.draw_status(screen, lay.status, state, current, where, message_is_error=False)
        viewer = self.viewer or (
            entry.author if entry is not None else state.players[state.current]
        )
        panels.draw_players(screen, lay.players, state, viewer)
        panels.draw_hand(screen, lay.hand, state, viewer)
        log = lay.log.union(lay.sync)
        highlight = self.index - 1 if self.index > 0 else None
        self._log_lines = panels.draw_log(
            screen, log, self.entries, highlight, "Replay", board=self.states[0].board
        )
        draw_text(
            screen,
            self.banner,
            (lay.board.left + 14, lay.board.top + 10),
            18,
            theme.HIGHLIGHT,
            True,
        )
        if self.stats is not None:
            if self.stats.at != self.index:  # moved on with the statistics open
                self.stats = None
                self.toggle_stats()
            assert self.stats is not None
            self.stats.draw(screen, mouse)

    def _draw_bar(self, screen: pygame.Surface, mouse: tuple[int, int] | None) -> None:
        bar = self.layout.bar
        pygame.draw.rect(screen, theme.PANEL, bar)
        self.buttons[3].label = "Pause" if self.playing else "Play"
        for b in self.buttons:
            b.enabled = True
            b.draw(screen, mouse)
        s = self.slider
        pygame.draw.rect(screen, theme.CARD, s, border_radius=7)
        frac = self.index / max(1, self.last)
        filled = pygame.Rect(s.left, s.top, round(s.width * frac), s.height)
        pygame.draw.rect(screen, shade(theme.BUTTON, 1.2), filled, border_radius=7)
        for t in self.turns:  # a tick per turn
            x = s.left + round(s.width * t / max(1, self.last))
            pygame.draw.line(screen, theme.PANEL_LINE, (x, s.bottom + 1), (x, s.bottom + 4))
        knob = (s.left + round(s.width * frac), s.centery)
        pygame.draw.circle(screen, theme.HIGHLIGHT, knob, 10)
        pygame.draw.circle(screen, (40, 40, 40), knob, 10, width=2)

    def slider_point(self, index: int) -> tuple[int, int]:
        """Window position on the slider of ``index`` (tests drag to it)."""
        s = self.slider
        return (s.left + round(s.width * index / max(1, self.last)), s.centery)

    def button(self, label: str) -> Button:
        for b in self.buttons:
            if b.label == label:
                return b
        raise KeyError(f"no replay button {label!r}")


def export_frames(
    states: Sequence[GameState],
    entries: Sequence[LogEntry],
    out: Path,
    size: tuple[int, int] = theme.WINDOW_SIZE,
    gif: bool = True,
    progress: Callable[[int, int], None] | None = None,
    viewer: str | None = None,
    pngs: bool = False,
) -> dict[str, object]:
    """Write ``replay.gif`` (with Pillow) and, with ``pngs``, ``frame_00000.png``...
    (one per state).

    No window is opened: frames are drawn on an off-screen surface. The GIF is written
    as the frames are drawn (``GifWriter``): no frame is kept but the one before, and no
    PNG is written unless asked for (a 663-state game wrote 121 MB of PNGs to make a
    3.7 MB GIF).

    Returns:
        ``{"frames": n, "dir": str, "gif": path or None, "gif_frames": k, "pngs": m}``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    viewer = ReplayViewer(states, entries, screen=pygame.Surface(size), viewer=viewer)
    n = len(states)
    width = len(str(n)) if n > 99999 else 5
    gif_every = max(1, math.ceil(n / 200))
    gif_size = (size[0] * 2 // 5, size[1] * 2 // 5)
    image_mod = _pillow() if gif else None
    writer = None
    if image_mod is not None:  # one palette for every frame: fast, and steady colours
        viewer.goto(n - 1)
        viewer.draw()
        palette = _gif_frame(image_mod, viewer.screen, gif_size).quantize(colors=96)
        writer = GifWriter(out / "replay.gif", palette)
    written = 0
    try:
        for i in range(n):
            viewer.goto(i)
            viewer.draw()
            if pngs:
                pygame.image.save(viewer.screen, str(out / f"frame_{i:0{width}d}.png"))
                written += 1
            if writer is not None and (i % gif_every == 0 or i == n - 1):
                frame = _gif_frame(image_mod, viewer.screen, gif_size)
                writer.add(frame.quantize(palette=palette, dither=image_mod.Dither.NONE))
            if progress is not None:
                progress(i + 1, n)
    except BaseException:
        if writer is not None:
            writer.abandon()  # no half GIF left behind
        raise
    if writer is not None:
        writer.close()
    return {
        "frames": n,
        "dir": str(out),
        "gif": None if writer is None else str(writer.path),
        "gif_frames": 0 if writer is None else writer.frames,
        "pngs": written,
    }


class GifWriter:
    """An animated GIF written frame by frame (Pillow's ``getheader``/``getdata``): each
    frame is stored as the rectangle that changed since the one before, and only that one
    frame is held; every frame shows ``FRAME_MS``, the last ``LAST_MS``.

    Frames are palette images quantized to the one palette the writer was given.
    """

    FRAME_MS = 160
    LAST_MS = 3000

    def __init__(self, path: Path, palette) -> None:  # type: ignore[no-untyped-def]
        self.path = Path(path)
        self._palette = palette
        self._tmp = self.path.with_name(f".{self.path.name}.part")
        self._file = self._tmp.open("wb")
        self._shown = None  # the whole picture the frames so far leave on screen
        self._pending = None  # the newest frame: its time is known only at the next one
        self.frames = 0

    def add(self, frame) -> None:  # type: ignore[no-untyped-def]
        """Append ``frame`` (a "P" image of the writer's palette and size)."""
        if self._pending is not None:
            self._write(self._pending, self.FRAME_MS)
        self._pending = frame
        self.frames += 1

    def close(self) -> None:
        """Write the last frame and the trailer, and put the GIF in place."""
        if self._pending is not None:
            self._write(self._pending, self.LAST_MS)
        self._file.write(b";")
        self._file.close()
        self._tmp.replace(self.path)

    def abandon(self) -> None:
        self._file.close()
        self._tmp.unlink(missing_ok=True)

    def _write(self, frame, duration: int) -> None:  # type: ignore[no-untyped-def]
        from PIL import GifImagePlugin, ImageChops

        params: dict[str, int] = {"duration": duration}
        if self._shown is None:
            header, _ = GifImagePlugin.getheader(
                frame.copy(), info={"loop": 0, "duration": duration, "optimize": False}
            )
            self._file.write(b"".join(header))
            box = (0, 0, *frame.size)
            part = frame
        else:
            changed = ImageChops.difference(self._shown, frame)  # palette indices: 0 = same
            box = changed.getbbox() or (0, 0, 1, 1)
            part = frame.crop(box)
            free = len(self._palette.getpalette() or ()) // 3  # the first unused index
            if free < 128:  # the pixels that stay show through: they compress to little
                same = changed.crop(box).point(lambda v: 255 if v == 0 else 0, "L")
                part.paste(free, mask=same)
                params["transparency"] = free
        self._file.write(b"".join(GifImagePlugin.getdata(part, offset=box[:2], **params)))
        self._shown = frame


def _gif_frame(image_mod, surface: pygame.Surface, size: tuple[int, int]):  # type: ignore[no-untyped-def]
    small = pygame.transform.smoothscale(surface, size)
    return image_mod.frombytes("RGB", size, pygame.image.tobytes(small, "RGB"))


def _pillow():  # type: ignore[no-untyped-def]
    """Pillow's Image module when installed (GIF export is optional)."""
    try:
        from PIL import Image
    except ImportError:
        print("replay: Pillow is not installed, so no GIF (PNG frames only).", file=sys.stderr)
        return None
    return Image
