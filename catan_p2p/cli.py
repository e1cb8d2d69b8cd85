"""``catan-p2p``: the one entry point. It parses arguments and hands over to commands/.

Each sub-command lives in ``catan_p2p/commands/<name>.py`` as ``add_arguments(parser)``
(its options, each with help text) and ``run(args) -> int``.
Errors from the game become one sentence on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence

from catan_p2p import printable
from catan_p2p.errors import CatanError
from catan_p2p.store import disk

#: Every sub-command and its one-line help, in the order ``--help`` lists them. The
#: command's options live beside its ``run`` in ``catan_p2p/commands/<name>.py``.
COMMANDS: dict[str, str] = {
    "play": "play in a window (you against bots by default)",
    "new": "create a game in a repository of its own",
    "join": "fetch a game from a remote and take a seat",
    "bot": "run a bot as a networked peer until the game ends",
    "games": "the lobby: games a remote holds, or the games on this machine",
    "lobby": "a window to start, open, join or watch games (./play.sh without arguments)",
    "watch": "follow a networked game in a window, read-only, without a seat",
    "sync": "fetch, verify and fast-forward, then push own refs",
    "serve": "publish your seat from this machine over git:// (no forge, no shared disk)",
    "abandon": "end a game a player has kept waiting longer than agreed",
    "chat": "say something to the other players of a game",
    "log": "the game as a table of actions",
    "show": "the state at a commit",
    "verify": "re-check every commit of a game",
    "replay": "step through a game's history in a window",
    "stats": "a game's statistics: the dice against the odds, every player's cards, points",
    "bisect": "first commit where a condition holds",
    "board": "generate, score and draw a board",
    "simulate": "bots play games; invariants checked after every action",
    "keys": "seat keys: Git's allowed-signers file of a game, or your own public key",
    "host": "create a bare remote whose hook guards every game pushed to it",
    "bench": "storage, diff and latency benchmarks",
}


#: Commands that record moves: a Ctrl-C there keeps every move made so far (each one is a
#: commit). The others say only that they stopped, or what they leave (``INTERRUPTED``).
SAVES = frozenset({"play", "new", "join", "bot", "sync", "abandon", "chat"})


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a service manager, a test's time limit): the command stops as
    after a Ctrl-C, so it saves what it played, closes its shared ssh connections and
    removes its temporary folders on the way out."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()


def command_module(name: str):  # type: ignore[no-untyped-def]
    """The module of sub-command ``name``, or None when this build lacks it."""
    try:
        return importlib.import_module(f"catan_p2p.commands.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"catan_p2p.commands.{name}":
            raise
        return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``catan-p2p`` parser; with ``only``, just that command's options are loaded.

    Loading one command's module is enough to parse its arguments, so running a
    command does not import every other one (``play`` and ``replay`` import pygame).
    """
    parser = argparse.ArgumentParser(
        prog="catan-p2p",
        description="Peer-to-peer Catan whose only infrastructure is Git.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, help_text in COMMANDS.items():
        module = command_module(name) if only in (None, name) else None
        doc = (module.__doc__ or "").strip().replace("``", "`") if module is not None else ""
        p = sub.add_parser(
            name,
            help=help_text,
            description=doc or help_text,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        add_arguments = getattr(module, "add_arguments", None)
        if add_arguments is not None:
            add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(first if first in COMMANDS else None)
    args = parser.parse_args(argv)
    name = args.command
    module = command_module(name)
    if module is None:
        print(f"catan-p2p: the {name} command is not built yet in this version.", file=sys.stderr)
        return 2
    in_main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, _terminate) if in_main else None
    streams = sys.stdout, sys.stderr
    # Whatever a remote or a peer said reaches the terminal only as printable text.
    sys.stdout, sys.stderr = printable.Guard(sys.stdout), printable.Guard(sys.stderr)  # type: ignore[assignment]
    try:
        return int(module.run(args) or 0)
    except CatanError as exc:  # a refusal: one line, whatever a peer put in its sentence
        print(printable.one_line(f"catan-p2p {name}: {exc}"), file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # the disk: read-only, full, permissions
        if os.environ.get("CATAN_P2P_TRACEBACK"):
            raise
        repo = getattr(args, "repo", None)
        said = disk.describe(exc, os.path.abspath(repo) if repo else exc.filename or "the game")
        if said is None:
            where = f" ({exc.filename})" if exc.filename else ""
            said = (
                f"cannot write or read a file{where}: {exc.strerror or exc}; "
                "check that the disk is writable and has room"
            )
        print(f"catan-p2p {name}: {said}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        return _interrupted(name, module, exc)
    except Exception as exc:
        # A signal that lands while a module is still being imported can come out wrapped
        # (a class body's ``__set_name__`` turns it into a RuntimeError): still a stop.
        stop = _interrupt_behind(exc)
        if stop is None:
            raise
        return _interrupted(name, module, stop)
    finally:
        sys.stdout, sys.stderr = streams
        if in_main and before is not None:
            signal.signal(signal.SIGTERM, before)


def _interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM that caused ``exc``, if one did (its chain of causes)."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def _interrupted(name: str, module: object, exc: KeyboardInterrupt) -> int:
    """One sentence for a stopped command, and its exit status (130, or 143 for SIGTERM)."""
    said = getattr(module, "INTERRUPTED", None)
    if said is None:
        said = "interrupted; everything played so far is saved" if name in SAVES else "interrupted"
    if isinstance(exc, Terminated):
        said = said.replace("interrupted", "terminated", 1)
    print(f"catan-p2p {name}: {said}.", file=sys.stderr)
    return 128 + signal.SIGTERM if isinstance(exc, Terminated) else 130


if __name__ == "__main__":
    sys.exit(main())
