"""Drive the real client loop with posted pygame events, as a player's mouse and keys would.

Every helper posts events to pygame's queue and calls ``app.tick()`` once, so the app
reads them exactly as in a window. Screenshots go to ``$CATAN_P2P_SCREENS`` (to look
at them) or to the test's tmp folder.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path  # noqa: E402

import pygame  # noqa: E402

from catan_p2p.client.app import App  # noqa: E402
from catan_p2p.client.dialogs import PassDialog  # noqa: E402
from catan_p2p.rules.hexgrid import EdgeId, Tile, VertexId  # noqa: E402


def screens_dir(tmp_path: Path) -> Path:
    base = os.environ.get("CATAN_P2P_SCREENS")
    path = Path(base) if base else tmp_path / "screens"
    path.mkdir(parents=True, exist_ok=True)
    return path


class Driver:
    """A player at the window: clicks, keys and screenshots, each followed by one tick.

    With ``auto_pass`` the players of a hot-seat window hand the screen over
    cooperatively: a "pass to" screen is confirmed after every tick, and whom it asked
    for is recorded in ``passes``.
    """

    def __init__(self, app: App, shots: Path, prefix: str, auto_pass: bool = True) -> None:
        self.app = app
        self.shots = shots
        self.prefix = prefix
        self.auto_pass = auto_pass
        self.passes: list[str] = []
        self.tick()

    def tick(self) -> None:
        self.app.tick()
        while self.auto_pass and isinstance(self.app.dialog, PassDialog):
            dialog = self.app.dialog
            self.passes.append(dialog.player)
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0))
            self.app.tick()
            if self.app.dialog is dialog:
                raise AssertionError(f"the pass screen for {dialog.player} did not close")

    def click(self, pos: tuple[int, int], button: int = 1) -> None:
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=button))
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=button))
        self.tick()

    def key(self, key: int, mod: int = 0) -> None:
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=""))
        self.tick()

    def press(self, label: str) -> None:
        """Click the visible button with ``label`` (dialog or action bar)."""
        self.click(self.app.button(label).rect.center)

    def vertex(self, vertex: VertexId) -> None:
        self.click(self.app.vertex_point(vertex))

    def edge(self, edge: EdgeId) -> None:
        self.click(self.app.edge_point(edge))

    def tile(self, tile: Tile) -> None:
        self.click(self.app.tile_point(tile))

    def settle(self, ticks: int = 200) -> None:
        """Tick until no bot of the window can act (bots play with no delay in tests)."""
        for _ in range(ticks):
            before = len(self.app.session.history())
            self.tick()
            if len(self.app.session.history()) == before:
                return

    def shot(self, name: str) -> Path:
        self.app.draw()
        return self.app.screenshot(self.shots / f"{self.prefix}_{name}.png")

    @property
    def kinds(self) -> list[str]:
        """``author:kind`` of every action in the session's history."""
        return [f"{e.author}:{e.action.kind}" for e in self.app.session.history()]
