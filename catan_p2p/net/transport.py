"""Moving refs between repositories through any Git URL (a path, ssh, https, git://).

Fetch brings every ref of one game in a single ``git fetch``; push sends only the
caller's own refs and never forces, so the remote itself refuses a rewritten branch.
A failure becomes a ``RemoteError`` with one sentence and what to do.
"""

from __future__ import annotations

import os
import re
import selectors
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from catan_p2p import clock
from catan_p2p.errors import RemoteError, RemoteStopped
from catan_p2p.printable import one_line
from catan_p2p.store import disk, gitcmd
from catan_p2p.store.refnames import (
    CHAT_PREFIX,
    PREFIX,
    REMOTE,
    check_name,
    game_prefix,
    tracking_prefix,
    tracking_ref,
    well_formed,
)

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
#: Bytes a fetch or push of the game's own refs may write on either stream: it
#: writes a line per ref at most (``push --porcelain``), a few hundred of them.
MAX_TOLD = 1 << 20
#: How long a tracking ref's ``.lock`` may stand unchanged before it is taken as left by a
#: Git that died (a live fetch or push holds one for milliseconds).
STALE_LOCK_SECONDS = 2.0


# --- chat (issue 13) -------------------------------------------------------------------
# Each player's chat is an append-only ref beside the game, outside its refs/heads/catan
# namespace so no game code mistakes it for a player's log or an answer. The game's one
# fetch carries it; net/chat.py writes, pushes and reads it.


def chat_prefix(game: str) -> str:
    """``refs/catan-chat/<game>``: where the players' chat refs of ``game`` live."""
    return f"{CHAT_PREFIX}/{game_prefix(game).rsplit('/', 1)[1]}"


def chat_tracking_prefix(game: str, source: str = REMOTE) -> str:
    """Where chat refs of ``game`` fetched from ``source`` land:
    ``refs/remotes/<source>/catan-chat/<game>``."""
    return chat_prefix(game).replace("refs/", f"refs/remotes/{source}/", 1)


# ----------------------------------------------------------------------------------------


def run_git(
    git_dir: Path | None,
    *args: str,
    stdin: str | None = None,
    timeout: float = TIMEOUT,
    on_start: Callable[[subprocess.Popen], None] | None = None,
    limit: int = MAX_TOLD,
) -> subprocess.CompletedProcess:
    """Run one Git command that may talk to a remote, within a deadline and a bound on
    what it may write; stopped, Git is let to remove its ``.lock`` files first.

    ``subprocess.run`` SIGKILLs its child on a timeout or a Ctrl-C, and a fetch killed
    while updating a tracking ref leaves ``<ref>.lock`` behind: every later fetch then
    fails on it. Git removes its locks on SIGINT (a Ctrl-C reaches the whole process
    group) and on SIGTERM, so it gets the time to. ``stdin``: what Git reads (a name's
    bytes that are no UTF-8 pass as ``surrogateescape`` made them, as in arguments).
    ``timeout``: seconds Git may take; ``on_start`` is handed the process (a caller that
    stops waiting for it may stop it later, ``stop``). ``limit``: bytes Git may
    write on either stream, past which it is stopped as a late one is. What a remote
    says reaches us through Git (its hooks' and its server's ``remote:`` lines, its
    listing of refs), so every transfer is bounded: an honest fetch or push of the game
    writes a few lines (``MAX_TOLD``), a listing as much as whoever pushed junk made it
    (``MAX_LISTING``).

    Raises:
        RemoteStopped: Git took longer than ``timeout``, or wrote more than ``limit``.
    """
    # A URL from a seat claim (protocol 6) never runs a command through ext::.
    cmd = ["-c", "protocol.ext.allow=never", *args]
    with gitcmd.start(
        git_dir,
        *cmd,
        stdin=None if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        if on_start is not None:
            on_start(proc)
        data = None if stdin is None else stdin.encode("utf-8", "surrogateescape")
        out, err = _bounded(proc, args[0], data, timeout, limit)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


#: Bytes of Git's complaints kept (the rest, up to the bound, is read and dropped:
#: a remote's ``remote:`` lines are the remote's to write).
MAX_SAID = 64 * 1024
#: Bytes read from a pipe at a time.
_CHUNK = 64 * 1024
#: Seconds a pipe may stay open once Git has ended: a helper it started (an ssh
#: connection kept for the next transfer) may hold it.
_AFTER_EXIT = 1.0


def _bounded(
    proc: subprocess.Popen, command: str, stdin: bytes | None, timeout: float, limit: int
) -> tuple[str, str]:
    """``proc.communicate`` keeping at most ``limit`` bytes of output and
    ``MAX_SAID`` of complaints, in this thread: one ``select`` loop reads both pipes and
    feeds ``stdin``, so a remote that says too much is stopped as soon as it has, one
    that says nothing when its time is up, and a transfer starts no thread.

    Raises:
        RemoteStopped: past ``timeout``, or past ``limit`` on either stream (Git stopped
            with SIGTERM, so it removes its locks; SIGKILL only after a grace).
    """
    kept: dict[int, list[bytes]] = {}
    caps: dict[int, int] = {}
    sizes: dict[int, int] = {}
    for pipe, cap in ((proc.stdout, limit), (proc.stderr, MAX_SAID)):
        fd = pipe.fileno()  # type: ignore[union-attr]
        kept[fd], caps[fd], sizes[fd] = [], cap, 0
    selector = selectors.DefaultSelector()
    for fd in kept:
        selector.register(fd, selectors.EVENT_READ)
    todo = memoryview(stdin or b"")
    if stdin is not None:
        os.set_blocking(proc.stdin.fileno(), False)  # type: ignore[union-attr]
        if todo:
            selector.register(proc.stdin.fileno(), selectors.EVENT_WRITE)  # type: ignore[union-attr]
        else:
            proc.stdin.close()  # type: ignore[union-attr]
    deadline = time.monotonic() + timeout
    ended_at: float | None = None
    over = False
    try:
        while selector.get_map() and not over:
            now = time.monotonic()
            if ended_at is None and proc.poll() is not None:
                ended_at = now
            if now >= deadline or (ended_at is not None and now - ended_at > _AFTER_EXIT):
                break
            wait = min(deadline - now, 0.05 if ended_at is None else _AFTER_EXIT)
            for key, _ in selector.select(wait):
                fd = key.fd
                if fd not in kept:  # Git's stdin has room
                    try:
                        todo = todo[os.write(fd, todo[:_CHUNK]) :]
                    except BlockingIOError:
                        continue
                    except OSError:  # Git stopped reading: its exit says why
                        todo = todo[:0]
                    if not todo:
                        selector.unregister(fd)
                        proc.stdin.close()  # type: ignore[union-attr]
                    continue
                chunk = os.read(fd, _CHUNK)
                if not chunk:
                    selector.unregister(fd)
                    continue
                sizes[fd] += len(chunk)
                if sizes[fd] > limit:
                    over = True
                    break
                if sizes[fd] - len(chunk) < caps[fd]:
                    kept[fd].append(chunk)
        late = ended_at is None and not over and not _ended(proc, deadline)
        if over or late:
            stop(proc)
            _wait_or_kill(proc)
            if over:
                size = f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit:,} bytes"
                raise RemoteStopped(command, f"wrote more than {size}")
            raise RemoteStopped(command, f"timed out after {timeout:g} s")
    except KeyboardInterrupt:
        _wait_or_kill(proc)  # Git had the SIGINT too
        raise
    finally:
        selector.close()
    out, err = (b"".join(kept[fd])[: caps[fd]] for fd in kept)
    return out.decode("utf-8", "surrogateescape"), err.decode("utf-8", "surrogateescape")


def _ended(proc: subprocess.Popen, deadline: float) -> bool:
    """Wait for Git to end by ``deadline``; False if it is still running then."""
    try:
        proc.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


def _wait_or_kill(proc: subprocess.Popen, grace: float = 5.0) -> None:
    """Wait for a Git asked to end; SIGKILL only past ``grace``."""
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def share_all(src: Path, url: str) -> None:
    """Push every game log of the repository at ``src`` to ``url`` as it is: a set-up step
    for benchmarks and screenshots (a seat publishes with ``push``)."""
    gitcmd.run(None, "-C", str(src), "push", "-q", url, f"{PREFIX}/*:{PREFIX}/*", check=True)


def stop(proc: subprocess.Popen) -> None:
    """Ask a Git started with ``on_start`` to end (SIGTERM: it removes its locks), without
    waiting; the thread that waits on it sees it end."""
    if proc.poll() is None:
        try:
            proc.terminate()
        except OSError:
            pass  # ended meanwhile


def _reason(proc: subprocess.CompletedProcess) -> str:
    lines = [ln.strip() for ln in (proc.stderr or "").splitlines() if ln.strip()]
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:", "!"))]
    return one_line((fatal or lines or ["no details"])[0], 200)  # Git quotes the remote


def set_remote(git_dir: Path, url: str) -> None:
    """Point ``origin`` at ``url`` (adding it when missing)."""
    have = run_git(git_dir, "remote", "get-url", REMOTE)
    if have.returncode == 0:
        if have.stdout.strip() != url:
            run_git(git_dir, "remote", "set-url", REMOTE, url)
    else:
        run_git(git_dir, "remote", "add", REMOTE, url)


def config(git_dir: Path, name: str) -> str | None:
    """One value of the repository's Git config (``catan.publish``), or None."""
    have = run_git(git_dir, "config", "--get", name)
    return have.stdout.strip() or None if have.returncode == 0 else None


def config_map(git_dir: Path, section: str) -> dict[str, str]:
    """``<section>.<key> = value`` entries of the Git config, by key (``catan.point.blue``)."""
    have = run_git(git_dir, "config", "--get-regexp", "^" + re.escape(section) + r"\.")
    out = {}
    for line in have.stdout.splitlines() if have.returncode == 0 else ():
        name, _, value = line.partition(" ")
        out[name[len(section) + 1 :]] = value.strip()
    return out


def set_config(git_dir: Path, name: str, value: str) -> None:
    done = run_git(git_dir, "config", name, value)
    if done.returncode != 0:
        raise RemoteError(f"cannot write {name} to the repository's config ({_reason(done)})")


def unset_config(git_dir: Path, name: str) -> None:
    """Forget ``name`` in the repository's config (nothing when it is not set)."""
    run_git(git_dir, "config", "--unset-all", name)


def remove_remote(git_dir: Path) -> None:
    """Forget ``origin`` (a game read only from the seats' publication points)."""
    run_git(git_dir, "remote", "remove", REMOTE)


def remote_url(git_dir: Path) -> str | None:
    have = run_git(git_dir, "remote", "get-url", REMOTE)
    return have.stdout.strip() if have.returncode == 0 else None


def fetch(
    git_dir: Path,
    game: str,
    logs: Sequence[str] | None = None,
    steps: Sequence[str] = (),
    source: str = REMOTE,
    url: str | None = None,
    players: Sequence[str] | None = None,
    timeout: float = TIMEOUT,
    on_start: Callable[[subprocess.Popen], None] | None = None,
) -> frozenset[str]:
    """Fetch what a peer of ``game`` needs from one remote, into ``refs/remotes/<source>/``.

    Args:
        logs: the players' log refs to fetch, each by its exact name, so no other ref of
            the remote is even listed (protocol v2 asks only for these names) and junk
            of any shape or count beside the game costs nothing. None: every ref under
            the game's prefix (``join`` discovering a game; ``--prune`` then drops
            tracking refs the remote no longer has).
        steps: answer prefixes of the open concurrent steps (``.../<kind>/<opening>``):
            the answer of each of ``players`` under each, if there is one yet.
        players: whose answers and chat refs to fetch (None: the players of ``logs``).
            A name under these prefixes that is no such player is never even written
            here (``seat_specs``): a hundred thousand junk chat refs beside a game made
            a peer's first sync time out, and every later one cost a second.
        source: the tracking namespace (``origin``: the shared remote; ``seat-<p>``: a
            seat's publication point); ``url`` (default: the configured ``source``).
        timeout, on_start: as ``run_git``'s, for each Git started.

    Returns:
        The ``logs`` the remote does not hold (a seat not joined yet, or a ref someone
        deleted): each is left out and the fetch tried again without it.
    """
    where = _checked_url(url or source)
    if logs is None:
        spec = f"+{game_prefix(game)}/*:{tracking_prefix(game, source)}/*"
        chat = f"+{chat_prefix(game)}/*:{chat_tracking_prefix(game, source)}/*"
        _fetch(git_dir, where, [spec, chat], ("--prune",), timeout, on_start)
        return frozenset()
    names = log_players(logs) if players is None else list(players)
    wanted = [f"+{ref}:{tracking_ref(ref, source)}" for ref in logs]
    seats = seat_specs(chat_prefix(game), chat_tracking_prefix(game, source), names)
    for p in steps:
        seats += seat_specs(p, tracking_ref(p, source), names)
    missing: set[str] = set()
    while True:
        try:
            _fetch(git_dir, where, [*wanted, *seats], (), timeout, on_start)
            return frozenset(missing)
        except _MissingRef as gone:
            spec = f"+{gone.ref}:{tracking_ref(gone.ref, source)}"
            if spec not in wanted:
                raise RemoteError(
                    f"cannot fetch from the remote (it has no {gone.ref}); {_ADVICE}"
                ) from None
            wanted.remove(spec)
            missing.add(gone.ref)


#: Every byte a ref name may end with (Git refuses the others there): a seat's pattern
#: ``<base>/<p>*`` followed by each is every longer name, none of them ``<p>`` itself.
_LAST_BYTES = tuple(
    chr(b) if b < 0x80 else bytes([b]).decode("utf-8", "surrogateescape")
    for b in range(0x21, 0x100)
    if chr(b) not in "~^:?*[\\/.\x7f"
)


def log_players(logs: Sequence[str]) -> list[str]:
    """The players whose logs ``logs`` are (``refs/heads/catan/<game>/<player>``)."""
    return [ref.rsplit("/", 1)[1] for ref in logs]


def answers_and_chat(
    game: str, steps: Sequence[str], players: Sequence[str], source: str = REMOTE
) -> dict[str, str]:
    """Each ref a fetch of ``steps`` brings for ``players`` (their answers, their chat
    refs), by exact name, with the tracking ref it lands on."""
    out = seat_refs(chat_prefix(game), chat_tracking_prefix(game, source), players)
    for step in steps:
        out.update(seat_refs(step, tracking_ref(step, source), players))
    return out


def seat_refs(base: str, dst: str, players: Sequence[str]) -> dict[str, str]:
    """``<base>/<player>`` -> ``<dst>/<player>`` for each player: the refs under ``base``
    a fetch brings (a chat ref, an answer), by exact name."""
    return {f"{base}/{check_name('player', p)}": f"{dst}/{p}" for p in players}


def seat_specs(base: str, dst: str, players: Sequence[str]) -> list[str]:
    """Refspecs that fetch exactly ``<base>/<p>`` of each of ``players`` into ``dst``,
    and nothing else under ``base``, without failing when one is missing.

    An exact refspec fails the whole fetch when the remote lacks the ref (a seat that
    never chatted, an answer not given yet), and a pattern ``<base>/*`` writes every
    junk name someone put there. So each player gets the pattern ``<base>/<p>*`` (the
    server lists only names starting so) and negative patterns take back every longer
    name: ``<base>/<p>*<x>`` matches names of at least ``len(p) + len(x)`` characters
    after ``base/`` ending in ``x`` (Git's rule), so ``<p>`` itself is never taken back.
    A longer name that is another player's (``red`` and ``red2``) is spared by taking
    back longer endings instead (Git 2.29 or later: negative refspecs).
    """
    specs: list[str] = []
    names = sorted(set(players))
    for p in names:
        specs.append(f"+{base}/{p}*:{dst}/{p}*")
        kept = [n[len(p) :] for n in names if n.startswith(p) and n != p]
        specs += [f"^{base}/{p}*{t}" for t in _endings(kept, "")]
        specs += [f"^{base}/{p}{t}" for t in _exact_junk(kept)]
    return specs


def _endings(kept: Sequence[str], tail: str) -> list[str]:
    """Endings ``t`` such that no name ``p + s`` with ``s`` in ``kept`` has ``s`` ending
    in ``t`` with ``len(s) >= len(t)``, covering every nonempty ``s`` not in ``kept``
    (together with ``_exact_junk``)."""
    out = []
    for x in _LAST_BYTES:
        t = x + tail
        if any(s.endswith(t) for s in kept):
            out += _endings(kept, t)
        else:
            out.append(t)
    return out


def _exact_junk(kept: Sequence[str]) -> list[str]:
    """The proper endings of ``kept`` names that are no kept name themselves: the
    patterns of ``_endings`` need longer names, these are taken back one by one."""
    return sorted({s[i:] for s in kept for i in range(1, len(s))} - set(kept))


#: At most this many logs are read when a game is discovered (``join``): a remote may
#: hold any number of junk names; the seats' own names are asked for first.
DISCOVER_LOGS = 64
#: Bytes of a remote's listing of refs read at most (``ls-remote``): the listing is
#: as long as whoever pushed names there made it, and Git is stopped past this (about
#: 400,000 refs).
MAX_LISTING = 48 << 20


def discover_logs(git_dir: Path, game: str, first: Sequence[str] = (), url: str | None = None):
    """The log-shaped refs (``refs/heads/catan/<game>/<name>``) a remote holds, listed with
    ``git ls-remote`` (names only: nothing is fetched), ``first`` before the others."""
    where = _checked_url(url or REMOTE)
    prefix = game_prefix(game) + "/"
    proc = run_git(git_dir, "ls-remote", "--", where, prefix + "*", limit=MAX_LISTING)
    if proc.returncode != 0:
        raise _fetch_error(git_dir, proc)
    names = []
    for line in proc.stdout.splitlines():
        ref = line.partition("\t")[2]
        name = ref[len(prefix) :] if ref.startswith(prefix) else ""
        if "/" not in name and well_formed(prefix + name, game):  # a log, not an answer
            names.append(name)
    order = {n: i for i, n in enumerate(first)}
    names.sort(key=lambda n: (order.get(n, len(order)), n))
    return [prefix + n for n in names[:DISCOVER_LOGS]]


class _MissingRef(Exception):
    def __init__(self, ref: str) -> None:
        super().__init__(ref)
        self.ref = ref


_NO_REF = re.compile(r"couldn't find remote ref (\S+)")
_ADVICE = "check that it is reachable, sync will retry"


def _checked_url(where: str) -> str:
    """``where`` as a Git URL or remote name; one starting with '-' would be an option."""
    if where.startswith("-"):
        raise RemoteError(f"{where!r} is not a Git URL; a URL cannot start with '-'")
    return where


def _fetch(
    git_dir: Path,
    where: str,
    specs: list[str],
    options: tuple[str, ...] = (),
    timeout: float = TIMEOUT,
    on_start: Callable[[subprocess.Popen], None] | None = None,
) -> None:
    # No FETCH_HEAD rewrite, no automatic gc/maintenance child, no forced-update scan:
    # a third less time per fetch, and the game packs its repository itself.
    args = (
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        "--no-auto-gc",
        "--no-auto-maintenance",
        "--no-show-forced-updates",
        *options,
        "--stdin",  # the refspecs: a seat's names take a few hundred (``seat_specs``),
        "--",  # more than a Windows command line holds
        where,
    )
    lines = "".join(f"{spec}\n" for spec in specs)
    proc = run_git(git_dir, *args, stdin=lines, timeout=timeout, on_start=on_start)
    if proc.returncode != 0 and _clear_stale_lock(git_dir, proc.stderr or ""):
        proc = run_git(git_dir, *args, stdin=lines, timeout=timeout, on_start=on_start)
    if proc.returncode != 0:
        gone = _NO_REF.search(proc.stderr or "")
        if gone is not None:
            raise _MissingRef(gone.group(1))
        raise _fetch_error(git_dir, proc)


_LOCKED = re.compile(r"Unable to create '([^']+\.lock)': File exists")


def _clear_stale_lock(
    git_dir: Path, stderr: str, sleep: Callable[[float], None] = time.sleep
) -> bool:
    """Remove a tracking ref's ``.lock`` that no Git process is using; True: fetch again.

    A Git killed while it updated a tracking ref (a fetch, or a push noting what it sent)
    leaves ``<ref>.lock``, and every later fetch fails on it. Tracking refs are only this
    repository's copy of the remote's, rewritten by the next fetch and verified before
    anything is adopted, so a lock under ``refs/remotes/`` (the shared remote's copies and
    each publication point's) that stands unchanged for
    ``STALE_LOCK_SECONDS`` is removed. No other lock is touched: the player's own refs
    have their own rule for a lock left behind (store/reflock.py).
    """
    found = _LOCKED.search(stderr)
    if found is None:
        return False
    lock = Path(found.group(1))
    tracking = git_dir / "refs" / "remotes"  # Git names it as it was given
    try:
        if not lock.resolve().is_relative_to(tracking.resolve()):
            return False
        seen = lock.stat()
        sleep(max(0.0, STALE_LOCK_SECONDS - (clock.now() - seen.st_mtime)))
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


def _fetch_error(git_dir: Path, proc: subprocess.CompletedProcess) -> RemoteError:
    """A failed fetch: a local disk problem is named as such (``store.disk``), in one
    sentence, since no remote can fix it; anything else is the remote's."""
    said, where = proc.stderr or "", disk.repository(Path(git_dir).resolve())
    local = disk.describe(said, where)
    if local is None and where in said:  # Git could not write this repository: why?
        kind = disk.look(where) or (disk.DENIED if "Permission denied" in said else None)
        local = disk.sentence(kind, where) if kind else None  # (ssh too says "denied")
    if local is not None:
        return RemoteError(local)
    return RemoteError(f"cannot fetch from the remote ({_reason(proc)}); {_ADVICE}")


def push(
    git_dir: Path,
    updates: Sequence[str],
    deletes: Sequence[str] = (),
    leases: Mapping[str, str | None] | None = None,
    remote: str = REMOTE,
    timeout: float = TIMEOUT,
) -> frozenset[str]:
    """Push own refs (``ref:ref``) and delete finished temporary branches.

    Args:
        leases: for a ref listed here, the value the remote held when this peer last
            looked (None: absent). Such a ref is pushed over whatever is there, but only
            if the remote still holds exactly that value (``--force-with-lease``): how a
            seat restores its own branch over junk someone else pushed, without ever
            overwriting a push it has not seen. Refs not listed are never forced.
        remote: a configured remote's name or a URL (a seat's publication point).
        timeout: seconds Git may take.

    Returns:
        The leased refs, and the deletes, the remote refused because they moved since they
        were seen or were being updated by another push (the caller fetches and decides
        again; one of its own earlier pushes may have landed late, for instance one whose
        process was stopped while the remote still ran it).

    Raises:
        RemoteError: any other refusal, with one sentence and what to do.
    """
    leases = leases or {}
    # No '+' on a leased ref: Git takes '+' as --force for that ref, lease or not.
    specs = [f"{r}:{r}" for r in updates]
    specs += [f":{r}" for r in deletes]
    if not specs:
        return frozenset()
    remote = _checked_url(remote)
    lease_args = [f"--force-with-lease={r}:{leases[r] or ''}" for r in updates if r in leases]
    proc = run_git(
        git_dir,
        *("push", "--quiet", "--porcelain", "--no-verify"),
        *lease_args,
        "--",
        remote,
        *specs,
        timeout=timeout,
    )
    if proc.returncode == 0:
        return frozenset()
    stale, other = set(), []
    for line in (proc.stdout or "").splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or parts[0] != "!":
            continue
        ref = parts[1].rpartition(":")[2]
        if (ref in leases or ref in deletes) and any(w in parts[2] for w in _MOVED):
            stale.add(ref)
        else:
            other.append(parts[2])
    if other or not stale:
        detail = _reason(proc)
        if any(w in text for text in other for w in ("non-fast-forward", "fetch first")):
            detail = "the remote holds a different history for one of your branches"
        elif other and "rejected" in other[0]:
            detail = f"the remote refused it: {one_line(other[0], 80)}; {_first_hook_line(proc)}"
        raise RemoteError(f"cannot push to the remote ({detail}); run `catan-p2p sync` to retry")
    return frozenset(stale)


#: What ``git push --porcelain`` says of a ref that moved on the remote since it was seen.
_MOVED = ("stale info", "failed to update ref", "cannot lock ref", "failed to lock")


def _first_hook_line(proc: subprocess.CompletedProcess) -> str:
    lines = [ln.strip() for ln in (proc.stderr or "").splitlines() if "catan-p2p:" in ln]
    return one_line(lines[0].removeprefix("remote:"), 200) if lines else "see `catan-p2p sync`"
