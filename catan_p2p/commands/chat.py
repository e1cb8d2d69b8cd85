"""`catan-p2p chat`: say something to the other players, or read what they said.

Each player's messages are commits on their own append-only ref beside the game
(`refs/catan-chat/<game>/<player>`); `catan-p2p sync` brings the others' news,
and `catan-p2p log --chat` lists the whole conversation.
"""

from __future__ import annotations

import argparse
import time

from catan_p2p.commands._common import local_seats, open_repo, print_json
from catan_p2p.commands._options import add_json, add_repo
from catan_p2p.errors import CatanError, UsageError
from catan_p2p.net.chat import ChatLog, ChatMessage
from catan_p2p.session.keys import signing_keys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p chat``."""
    parser.add_argument("text", nargs="?", default=None, help="what to say (omit to read the chat)")
    parser.add_argument(
        "--as",
        dest="as_player",
        default=None,
        metavar="COLOUR",
        help="who speaks (default: the only seat in this repository; needed in hot-seat)",
    )
    add_repo(parser)
    add_json(parser)


def format_message(m: ChatMessage) -> str:
    when = time.strftime("%H:%M", time.localtime(m.time))
    return f"{when}  {m.player:8}  {m.text}"


def run(args: argparse.Namespace) -> int:
    repo = open_repo(args.repo)
    game = repo.only_game(args.game)
    chat = ChatLog(repo.path, game, signing_keys(repo.git_dir))
    chat.update()
    if args.text is None:
        messages = chat.messages()
        if args.json:
            print_json([m.to_json() for m in messages])
        else:
            for m in messages:
                print(format_message(m))
            if not messages:
                print(f'No chat in game {game} yet; say something with: catan-p2p chat "hello"')
        return 0
    seats = local_seats(repo, game)
    player = (args.as_player or "").lower() or (seats[0] if len(seats) == 1 else None)
    if player is None:
        raise UsageError(
            f"several seats play from this repository ({', '.join(seats)}); say who speaks "
            "with --as COLOUR"
        )
    if player not in seats:
        raise UsageError(
            f"{player} has no seat in this repository (seats here: {', '.join(seats) or 'none'})"
        )
    message = chat.send(player, args.text)
    shared = "hot-seat: no remote to share it on"
    if _has_remote(chat):
        try:
            chat.push()
            shared = "shared on the remote"
        except CatanError as exc:
            shared = f"kept here, not shared yet ({exc}); it goes out with your next message"
    if args.json:
        print_json({**message.to_json(), "shared": shared})
    else:
        print(f"{player}: {message.text}  ({shared})")
    return 0


def _has_remote(chat: ChatLog) -> bool:
    from catan_p2p.net import transport

    return transport.remote_url(chat.repo.git_dir) is not None
