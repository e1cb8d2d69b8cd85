"""``catan-p2p replay [PATH]``: step through a game's history in a window, or export frames.

``PATH`` (or ``--repo``) is a game's Git repository; ``--export DIR`` writes
``replay.gif`` (with Pillow) without opening a window, and with ``--frames`` one PNG
per action too.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p.client.replay import ReplayViewer, export_frames, replay_states  # noqa: E402
from catan_p2p.commands._common import print_json, seen_by  # noqa: E402
from catan_p2p.commands._options import add_json, add_repo, add_viewer  # noqa: E402
from catan_p2p.commands._progress import ProgressBar  # noqa: E402
from catan_p2p.errors import UsageError  # noqa: E402

NO_DISPLAY = (
    "catan-p2p replay: no display is available to open a window here; "
    "use `catan-p2p replay PATH --export DIR` to write the frames as PNG files instead."
)


def _frames_progress(bars: list[ProgressBar], done: int, total: int) -> None:
    if not bars:
        bars.append(ProgressBar(total, "frames"))
    bars[0].update(done)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p replay``."""
    parser.add_argument(
        "path", nargs="?", default=None, help="the game's repository (default: --repo)"
    )
    parser.add_argument(
        "--export",
        default=None,
        metavar="DIR",
        help="write the game as replay.gif (with Pillow) to DIR instead of a window",
    )
    parser.add_argument(
        "--frames",
        action="store_true",
        help="with --export: also one PNG per action (about 180 KB each)",
    )
    add_repo(parser)
    add_viewer(parser)
    add_json(parser)


#: What Ctrl-C leaves behind (``cli.main`` prints it): nothing is saved by a replay.
INTERRUPTED = "interrupted; no GIF was made (PNG frames written so far stay in the export folder)"


def run(args: argparse.Namespace) -> int:
    try:
        from catan_p2p.session.git import GitSession
    except ImportError as exc:  # pragma: no cover - only in a build without session/git.py
        raise UsageError("replay needs Git sessions, which this build lacks") from exc
    path = Path(args.path or args.repo).expanduser()
    if not path.exists():
        raise UsageError(f"there is no game at {path}; pass the game's folder, e.g. replay PATH")
    session = GitSession(path, args.game, read_only=True)
    states, entries = replay_states(session)
    if args.viewer:
        read = seen_by(str(path), args.game, args.viewer, args.key)
        states = [read(s) if s.deck is not None else s for s in states]
    if args.frames and not args.export:
        raise UsageError("--frames goes with --export DIR (the folder the PNGs go to)")
    if args.export:
        pygame.font.init()
        bars: list[ProgressBar] = []
        result = export_frames(
            states,
            entries,
            Path(args.export),
            progress=lambda d, t: _frames_progress(bars, d, t),
            viewer=args.viewer,
            pngs=args.frames,
        )
        if args.json:
            print_json({k: str(v) if isinstance(v, Path) else v for k, v in result.items()})
            return 0
        said = []
        if result["gif"]:
            said.append(f"{result['gif']} ({result['gif_frames']} of {result['frames']} frames)")
        if result["pngs"]:
            said.append(f"{result['pngs']} PNG frames to {result['dir']}")
        if not said:
            raise UsageError(
                "no GIF without Pillow (pip install pillow); add --frames for PNG frames"
            )
        print(f"Wrote {' and '.join(said)}.")
        return 0
    from catan_p2p.commands.play import open_window

    if args.json:
        raise UsageError("--json goes with --export DIR (a window prints nothing)")
    screen = open_window()
    if screen is None:
        print(NO_DISPLAY, file=sys.stderr)
        return 1
    pygame.display.set_caption(f"catan-p2p replay — {session.game_id}")
    try:
        ReplayViewer(states, entries, screen=screen, viewer=args.viewer).run()
    finally:
        pygame.display.quit()
    return 0
