"""``catan-p2p watch URL --game ID``: follow a networked game in a window, read-only.

A spectator is a peer with no key and no seat: it fetches the game, verifies every
commit, and shows what anyone may know (resource cards, counts of face-down development
cards, the board, the log), live, with the sync line of a player's window. ``P`` steps
through the game so far and ``Esc`` comes back to the live game. Nothing is ever
written to the remote. The copy is kept under ~/.catan_p2p/watch (or --repo).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from catan_p2p.commands._options import add_start
from catan_p2p.store import gitcmd

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p watch``."""
    parser.add_argument(
        "url",
        metavar="INVITE|URL",
        help="an invitation (catan-p2p:1:...), or the Git remote the game is shared on (a "
        "path, ssh or https URL)",
    )
    parser.add_argument(
        "--game",
        default=None,
        metavar="ID",
        help="the game's id (see `catan-p2p games URL`); an invitation names it",
    )
    parser.add_argument(
        "--repo",
        default=None,
        metavar="PATH",
        help="where to keep the spectator's copy (default: a folder under ~/.catan_p2p/watch)",
    )
    add_start(parser)
    parser.add_argument("--mute", action="store_true", help="start with the sound off")


def run(args: argparse.Namespace) -> int:
    from catan_p2p.commands.play import NO_DISPLAY, open_window
    from catan_p2p.errors import UsageError
    from catan_p2p.protocol.invite import is_invite, parse_invite
    from catan_p2p.session.start import check_start

    if args.start:
        check_start(args.start)  # a bad one is refused before a window opens
    if is_invite(args.url):
        parse_invite(args.url)  # a bad one is refused before a window opens
    elif args.game is None:
        raise UsageError("watch URL needs --game ID (see `catan-p2p games URL`)")
    screen = open_window()
    if screen is None:
        print(
            NO_DISPLAY.replace("catan-p2p play", "catan-p2p watch", 1).split(";")[0]
            + "; follow the game in a terminal with `catan-p2p sync` and `catan-p2p log`.",
            file=sys.stderr,
        )
        return 1
    import pygame

    try:
        spectator = start_watching(args.url, args.game, args.repo, args.start)
    except BaseException:
        pygame.display.quit()
        raise
    try:
        with gitcmd.ssh_reuse(spectator.repo.git_dir):  # it polls: one ssh connection per host
            watch(spectator, screen, muted=args.mute)
    finally:
        spectator.close()
        pygame.display.quit()
    return 0


def start_watching(url: str, game: str, repo: str | None, start: str | None = None):  # type: ignore[no-untyped-def]
    """Open the spectator's copy of ``game`` (fetched from ``url``)."""
    from catan_p2p.commands._common import without_retry_advice
    from catan_p2p.errors import RemoteError
    from catan_p2p.protocol.invite import is_invite, parse_invite
    from catan_p2p.session.home import remember_repo
    from catan_p2p.session.watch import default_watch_repo, open_watch

    if is_invite(url):  # the game, its start and where to read it, from one line
        invite = parse_invite(url)
        url, game, start = invite.source, invite.game, invite.start
    path = Path(repo).expanduser() if repo else default_watch_repo(url, game)
    try:
        spectator = open_watch(url, game, path, start)
    except RemoteError as exc:
        raise without_retry_advice(exc, "check the URL, then run `catan-p2p watch` again") from None
    remember_repo(path)
    return spectator


def watch(spectator, screen, muted: bool = False, app_options: dict | None = None) -> None:  # type: ignore[no-untyped-def]
    """Run the spectator's window until it is closed; ``P`` replays the game so far."""
    from catan_p2p.client.app import App
    from catan_p2p.client.replay import ReplayViewer, replay_states
    from catan_p2p.client.seats import Seats
    from catan_p2p.client.sound import Sounds
    from catan_p2p.net.runtime import Runtime

    runtime = Runtime(spectator).start()
    try:
        app = App(
            spectator,
            Seats(()),
            screen=screen,
            runtime=runtime,
            sounds=Sounds(muted=muted),
            spectator=True,
            title="catan-p2p watch",
            **(app_options or {}),
        )
        while True:
            app.run()
            if not app.replay_requested:
                return
            app.replay_requested = False
            ReplayViewer(*replay_states(app.session), screen=app.screen).run()
            app.running = True
            app._dirty = True
    finally:
        runtime.stop()
