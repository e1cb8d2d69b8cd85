"""``catan-p2p lobby [URL]``: a window to start, open, join or watch games.

It lists the games on this machine (~/.catan_p2p/games, every game made, joined or
watched here wherever it lives, those waiting for you first), refreshed while it is open,
and, for a remote URL or an invitation typed or pasted in, the games it holds with their
open seats (as `catan-p2p games` does). Pick one: its window opens, and closing it comes back
to the lobby. ``./play.sh`` without arguments opens it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p lobby``."""
    parser.add_argument("url", nargs="?", default="", help="a remote to list at once")
    parser.add_argument(
        "--opponents",
        default="greedy",
        choices=("easy", "greedy", "strong"),
        help="the bots of a new game started from the lobby (default greedy)",
    )
    parser.add_argument("--mute", action="store_true", help="start with the sound off")


def run(args: argparse.Namespace) -> int:
    import pygame

    from catan_p2p.client.lobby import LobbyScreen
    from catan_p2p.commands.play import NO_DISPLAY, open_window

    screen = open_window()
    if screen is None:
        print(NO_DISPLAY.replace("play:", "lobby:", 1).split(";")[0]
              + "; list games in a terminal with `catan-p2p games [URL]`.", file=sys.stderr)  # fmt: skip
        return 1
    url = args.url
    try:
        while True:
            lobby = LobbyScreen(
                local_games, remote_games, url=url, screen=screen, changed=local_changes
            )
            choice = lobby.run()
            url = lobby.url
            if choice is None:
                return 0
            try:
                screen = open_choice(choice, args, screen)
            except Exception as exc:  # noqa: BLE001 - one sentence, back to the lobby
                from catan_p2p.errors import CatanError

                if not isinstance(exc, CatanError):
                    raise
                print(f"catan-p2p lobby: {exc}", file=sys.stderr)
    finally:
        pygame.display.quit()


def local_games() -> list:
    """The games kept on this machine (played and watched), as ``games`` lists them."""
    from catan_p2p.commands._seats import bot_seats
    from catan_p2p.commands.games import repositories
    from catan_p2p.session.lobby import list_local

    folders = repositories(None)
    bots = {}
    for f in folders:
        git_dir = f / ".git" if (f / ".git").is_dir() else f
        bots[f] = set().union(*bot_seats(git_dir).values()) if bot_seats(git_dir) else set()
    return list_local(folders, bots)


def local_changes() -> tuple:
    """A value that changes when a game on this machine moves or one is added: the
    modification times of the registry, the folders of games and of each game
    repository's refs (a ref update renames a file into its folder), a few ``stat``s."""
    from catan_p2p.commands.games import repositories
    from catan_p2p.session.home import KNOWN, catan_home
    from catan_p2p.session.lobby import games_folder
    from catan_p2p.session.watch import watch_folder

    home = catan_home()
    seen = []
    places = [home / KNOWN, games_folder(home), watch_folder()]
    for repo in repositories(None):
        git_dir = repo / ".git" if (repo / ".git").is_dir() else repo
        places += [git_dir / "packed-refs", git_dir / "refs" / "heads" / "catan"]
        catan = git_dir / "refs" / "heads" / "catan"
        try:
            places += [d for d in catan.iterdir() if d.is_dir()]
        except OSError:
            pass
    for place in places:
        try:
            seen.append((str(place), place.stat().st_mtime_ns))
        except OSError:
            seen.append((str(place), 0))
    return tuple(seen)


def remote_games(url: str):  # type: ignore[no-untyped-def]
    """A remote's games, or an invitation's game read at every place it names."""
    from catan_p2p.protocol.invite import is_invite
    from catan_p2p.session.lobby import list_invite, list_remote

    return list_invite(url) if is_invite(url) else list_remote(url)


def open_choice(choice, args: argparse.Namespace, screen):  # type: ignore[no-untyped-def]
    """Open the window of what was picked; returns the screen to draw the lobby on."""
    from catan_p2p.commands import play, watch
    from catan_p2p.net import transport
    from catan_p2p.session.watch import is_spectator_repo
    from catan_p2p.store.repo import find_git_dir

    options = play.build_options(opponents=args.opponents, mute=args.mute)
    if choice.kind == "new":
        return play.play_in_window(play.new_game(options), options, screen)
    if choice.kind == "join":
        options.remote, options.game, options.as_player = choice.url, choice.game, choice.seat
        return play.play_in_window(play.join_remote(options), options, screen)
    if choice.kind == "open":
        git_dir = find_git_dir(Path(choice.path))
        if is_spectator_repo(git_dir):
            url = transport.remote_url(git_dir) or ""
            spectator = watch.start_watching(url, choice.game, choice.path)
        else:
            options.resume, options.game = choice.path, choice.game
            return play.play_in_window(play.resume_game(options), options, screen)
    else:
        spectator = watch.start_watching(choice.url, choice.game, None)
    try:
        watch.watch(spectator, screen, muted=args.mute)
    finally:
        spectator.close()
    return screen
