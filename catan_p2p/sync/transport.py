"""Moving refs between repositories through any Git URL (a path, ssh, https, git://).

Fetch brings every ref of one game in a single ``git fetch``; push sends only the
caller's own refs and never forces, so the remote itself refuses a rewritten branch.
A failure becomes a ``RemoteError`` with one sentence and what to do.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from catan_p2p.errors import RemoteError
from catan_p2p.store.refs import REMOTE, game_prefix, tracking_prefix, tracking_ref

__all__ = [
    "REMOTE",
    "TIMEOUT",
    "fetch",
    "push",
    "remote_url",
    "set_remote",
    "tracking_prefix",
    "tracking_ref",
]

TIMEOUT = 30
#: How long a tracking ref's ``.lock`` may stand unchanged before it is taken as left by a
#: Git that died (a live fetch or push holds one for milliseconds).
STALE_LOCK_SECONDS = 2.0


# --- chat (issue 13) -------------------------------------------------------------------
# Each player's chat is an append-only ref beside the game, outside its refs/heads/catan
# namespace so no game code mistakes it for a player's log or an answer. The game's one
# fetch carries it; session/chat.py writes, pushes and reads it.

CHAT_PREFIX = "refs/catan-chat"


def chat_prefix(game: str) -> str:
    """``refs/catan-chat/<game>``: where the players' chat refs of ``game`` live."""
    return f"{CHAT_PREFIX}/{game_prefix(game).rsplit('/', 1)[1]}"


def chat_tracking_prefix(game: str) -> str:
    """Where fetched chat refs of ``game`` land: ``refs/remotes/origin/catan-chat/<game>``."""
    return chat_prefix(game).replace("refs/", f"refs/remotes/{REMOTE}/", 1)


# ----------------------------------------------------------------------------------------


def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """Run one Git command; stopped, Git is let to remove its ``.lock`` files first.

    ``subprocess.run`` SIGKILLs its child on a timeout or a Ctrl-C, and a fetch killed
    while updating a tracking ref leaves ``<ref>.lock`` behind: every later fetch then
    fails on it. Git removes its locks on SIGINT (a Ctrl-C reaches the whole process
    group) and on SIGTERM, so it gets the time to.
    """
    cmd = ["git", "--git-dir", str(git_dir), *args]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            _stop_gently(proc, signal_first=True)
            raise RemoteError(
                f"git {args[0]} timed out after {TIMEOUT} s; check the remote and retry"
            ) from None
        except KeyboardInterrupt:
            _stop_gently(proc, signal_first=False)  # Git had the SIGINT too
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _stop_gently(proc: subprocess.Popen, signal_first: bool, grace: float = 5.0) -> None:
    """End ``proc`` the way Git cleans up after (SIGTERM), SIGKILL only past ``grace``."""
    if signal_first:
        proc.terminate()
    try:
        proc.communicate(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


def _reason(proc: subprocess.CompletedProcess) -> str:
    lines = [ln.strip() for ln in (proc.stderr or "").splitlines() if ln.strip()]
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:", "!"))]
    return (fatal or lines or ["no details"])[0]


def set_remote(git_dir: Path, url: str) -> None:
    """Point ``origin`` at ``url`` (adding it when missing)."""
    have = _git(git_dir, "remote", "get-url", REMOTE)
    if have.returncode == 0:
        if have.stdout.strip() != url:
            _git(git_dir, "remote", "set-url", REMOTE, url)
    else:
        _git(git_dir, "remote", "add", REMOTE, url)


def remote_url(git_dir: Path) -> str | None:
    have = _git(git_dir, "remote", "get-url", REMOTE)
    return have.stdout.strip() if have.returncode == 0 else None


def fetch(git_dir: Path, game: str) -> None:
    """One fetch of every ref of ``game``; stale tracking refs (deleted branches) are pruned."""
    spec = f"+{game_prefix(game)}/*:{tracking_prefix(game)}/*"
    chat = f"+{chat_prefix(game)}/*:{chat_tracking_prefix(game)}/*"  # chat travels along
    # No FETCH_HEAD rewrite, no automatic gc/maintenance child, no forced-update scan:
    # a third less time per fetch, and the game packs its repository itself.
    args = (
        "fetch",
        "--quiet",
        "--prune",
        "--no-tags",
        "--no-write-fetch-head",
        "--no-auto-gc",
        "--no-auto-maintenance",
        "--no-show-forced-updates",
        REMOTE,
        spec,
        chat,
    )
    proc = _git(git_dir, *args)
    if proc.returncode != 0 and _clear_stale_lock(git_dir, proc.stderr or ""):
        proc = _git(git_dir, *args)
    if proc.returncode != 0:
        raise RemoteError(f"cannot fetch from the remote ({_reason(proc)}); {_advice(proc)}")


_LOCKED = re.compile(r"Unable to create '([^']+\.lock)': File exists")


def _clear_stale_lock(git_dir: Path, stderr: str) -> bool:
    """Remove a tracking ref's ``.lock`` that no Git process is using; True: fetch again.

    A Git killed while it updated a tracking ref (a fetch, or a push noting what it sent)
    leaves ``<ref>.lock``, and every later fetch fails on it. Tracking refs are only this
    repository's copy of the remote's, rewritten by the next fetch and verified before
    anything is adopted, so a lock under ``refs/remotes/origin/`` that stands unchanged for
    ``STALE_LOCK_SECONDS`` is removed. No other lock is touched: the player's own refs
    have their own rule for a lock left behind (store/reflock.py).
    """
    found = _LOCKED.search(stderr)
    if found is None:
        return False
    lock = Path(found.group(1))
    tracking = git_dir / "refs" / "remotes" / REMOTE  # Git names it as it was given
    try:
        if not lock.resolve().is_relative_to(tracking.resolve()):
            return False
        seen = lock.stat()
        time.sleep(max(0.0, STALE_LOCK_SECONDS - (time.time() - seen.st_mtime)))
        now = lock.stat()
        if (now.st_ino, now.st_mtime_ns, now.st_size) == (
            seen.st_ino,
            seen.st_mtime_ns,
            seen.st_size,
        ):
            lock.unlink()
    except FileNotFoundError:
        pass  # released meanwhile: the Git holding it was alive
    return True


#: What git prints when this machine's own repository cannot be written.
_LOCAL_DISK = ("No space left", "Read-only file system", "Permission denied", "Disk quota")


def _advice(proc: subprocess.CompletedProcess) -> str:
    """What to do about a failed fetch: a local disk problem is not a network one."""
    if any(word in (proc.stderr or "") for word in _LOCAL_DISK):
        return "the game's own repository cannot be written; free space or fix its permissions"
    return "check that it is reachable, sync will retry"


def push(git_dir: Path, updates: list[str], deletes: list[str] = ()) -> None:  # type: ignore[assignment]
    """Push own refs (``ref:ref``, never forced) and delete finished temporary branches."""
    specs = [f"{r}:{r}" for r in updates] + [f":{r}" for r in deletes]
    if not specs:
        return
    proc = _git(git_dir, "push", "--quiet", "--porcelain", REMOTE, *specs)
    if proc.returncode != 0:
        detail = _reason(proc)
        out = proc.stdout or ""
        if "non-fast-forward" in out or "fetch first" in out or "rejected" in out:
            detail = "the remote holds a different history for one of your branches"
        raise RemoteError(f"cannot push to the remote ({detail}); run `catan-p2p sync` to retry")
