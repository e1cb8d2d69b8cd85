"""Helpers shared by the commands: opening a game's repository and printing."""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catan_p2p.errors import CatanError, RemoteError, UsageError
from catan_p2p.rules.state import GameState
from catan_p2p.session.keys import existing_key
from catan_p2p.store import gitcmd
from catan_p2p.store.refnames import game_prefix, parse_ref, well_formed
from catan_p2p.store.repo import GameRepo, Repository

if TYPE_CHECKING:  # imported where a session opens: verify, show and keys need none
    from catan_p2p.session.git import GitSession


def open_repo(path: str | None) -> Repository:
    return GameRepo(Path(path or "."))


def local_seats(repo: Repository, game: str) -> tuple[str, ...]:
    """Seats whose branch lives in this repository (all of them in hot-seat)."""
    seats = []
    for ref in repo.refs.list(game_prefix(game)):
        if not well_formed(ref, game):
            continue
        owner, kind, _ = parse_ref(ref, game)
        if kind is None:
            seats.append(owner)
    return tuple(sorted(seats))


def open_session(
    path: str | None, game: str | None, seats: tuple[str, ...] | None = None, **options: bool
) -> GitSession:
    from catan_p2p.session.git import GitSession

    repo = open_repo(path)
    game_id = repo.only_game(game)
    return GitSession(repo.path, game_id, seats or local_seats(repo, game_id), **options)


def seen_by(
    path: str | None, game: str | None, viewer: str | None, key: str | None = None
) -> Callable[[GameState], GameState]:
    """The view of ``viewer`` (its own hidden cards read with its key), or the public view.

    Raises ``UsageError`` (one sentence) when this machine holds no key of that seat.
    """
    if viewer is None:
        return lambda state: state
    return viewer_session(path, game, viewer, key).peers[viewer].view


def viewer_session(path: str | None, game: str | None, viewer: str, key: str | None) -> GitSession:
    """A session of ``viewer``'s seat alone, with ``key`` (a path) or this machine's key."""
    repo = open_repo(path)
    game_id = repo.only_game(game)
    found = existing_key(viewer, Path(key) if key else None, repo.git_dir)
    if found is None:
        raise UsageError(
            f"this machine holds no key for {viewer.capitalize()}, so it cannot read that "
            "player's cards; pass --key with the key that claimed the seat, or leave out --as "
            "for the public view"
        )
    from catan_p2p.session.git import GitSession

    session = GitSession(repo.path, game_id, (viewer,), keys={viewer: found}, read_only=True)
    state = session.state
    if state.seats and state.seats[state.players.index(viewer)] != found.public:
        raise UsageError(
            f"{viewer.capitalize()}'s seat in game {game_id} was claimed with another key than "
            f"{key or 'this machine’s'}; pass --key with the key that claimed it"
        )
    return session


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


def git_toplevel(path: Path) -> Path | None:
    """The work tree of the Git repository ``path`` lies in (None if it lies in none)."""
    proc = gitcmd.run(None, "-C", str(path), "rev-parse", "--show-toplevel")
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    return Path(proc.stdout.strip())


def games_in(path: Path) -> list[str]:
    """Ids of the games in the repository at ``path`` (none if it is no repository)."""
    try:
        return GameRepo(path).games()
    except UsageError:
        return []


def default_game_repo(repo: str | None, command: str) -> Path:
    """Where ``new`` or ``join`` writes when ``--repo`` is not given: the current directory,
    but only when it is empty or already a game repository, never a project's own clone.

    Raises:
        UsageError: the current directory belongs to something else.
    """
    if repo is not None:
        return Path(repo).expanduser()
    cwd = Path.cwd()
    if games_in(cwd):
        return cwd
    top = git_toplevel(cwd)
    if top is not None:
        raise UsageError(
            f"the current directory is inside the Git repository {top}, which holds no game; "
            f"a game needs a repository of its own: pass --repo PATH to `catan-p2p {command}`"
        )
    if any(cwd.iterdir()):
        raise UsageError(
            f"the current directory {cwd} is not empty and holds no game; pass --repo PATH "
            f"to `catan-p2p {command}` (a new folder is created for the game)"
        )
    return cwd


def refuse_foreign_folder(path: Path, command: str) -> None:
    """Refuse to turn a folder that holds other files, and no repository, into a game.

    Raises:
        UsageError: ``path`` is a non-empty folder that is no Git repository.
    """
    path = Path(path)
    if not path.is_dir() or not any(path.iterdir()):
        return
    if (path / ".git").exists() or ((path / "objects").is_dir() and (path / "refs").is_dir()):
        return
    raise UsageError(
        f"{path} is not empty and is not a Git repository; `catan-p2p {command}` keeps a game "
        "in a repository of its own: pass --repo with a new or empty folder"
    )


@contextmanager
def removed_on_failure(path: Path) -> Iterator[None]:
    """Undo what a failing command created at ``path``: the folder, or the ``.git`` in it.

    A repository that existed before is never touched, so a failure cannot cost a game.
    """
    path = Path(path)
    existed = path.exists()
    had_git = existed and ((path / ".git").exists() or (path / "objects").is_dir())
    try:
        yield
    except BaseException:
        if not existed:
            shutil.rmtree(path, ignore_errors=True)
        elif not had_git and (path / ".git").is_dir():
            shutil.rmtree(path / ".git", ignore_errors=True)
        raise


#: Advice the transport appends to its errors, meant for a window that keeps syncing.
_RETRY_ADVICE = re.compile(
    r"(; check that it is reachable)?(, sync will retry|; run `catan-p2p sync` to retry)$"
)


def without_retry_advice(exc: CatanError, advice: str) -> RemoteError:
    """``exc``'s sentence with the transport's advice ("check that it is reachable,
    sync will retry") replaced by ``advice``.

    The transport words its errors for a background sync that does retry; a command
    that gives up and exits 1 must say what to do instead, once.
    """
    text = _RETRY_ADVICE.sub("", str(exc)).rstrip(". ")
    return RemoteError(f"{text}; {advice}")
