"""One peer's traffic with its remotes (protocol 6): fetch every source, note what each
holds of the own refs, push the own refs over the value seen, retry a stale lease.

``publish`` decides what goes where, ``refpolicy`` which fetched refs are kept and
``transport`` moves the bytes; this module runs the exchange and remembers, per source,
what it held of the own refs at the last look (the leases of the next push). It asks
the session it serves (a ``Local``) what to fetch, which refs are its own and whether a
value is good; it never verifies or records anything itself.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from catan_p2p.errors import RemoteError, UsageError
from catan_p2p.net import ondisk, transport
from catan_p2p.printable import one_line, shown
from catan_p2p.protocol import publish
from catan_p2p.protocol.publish import Source
from catan_p2p.replica import tracking
from catan_p2p.rules.actions import ClaimSeat
from catan_p2p.store.refnames import REMOTE, tracking_ref
from catan_p2p.store.repo import Repository
from catan_p2p.trust.seats import point_refusal

#: How often a push whose lease went stale is fetched, decided and sent again.
LEASE_TRIES = 3
#: Seconds a sync waits for a seat's publication point (at least: as long as the shared
#: remote takes); one that has not answered by then is read at a later sync.
POINT_SECONDS = 2.0
#: Seconds a point's Git may run at all (the shared remote's: ``transport.TIMEOUT``).
POINT_TIMEOUT = 20.0
#: Seconds ``close`` waits for a stopped fetch to end.
STOP_SECONDS = 5.0


@dataclass
class _Job:
    """One source's fetch on a thread of its own, and how it went."""

    src: Source
    logs: list[str]
    steps: list[str]
    thread: threading.Thread | None = None
    missing: frozenset[str] | None = None  # the logs it lacks, once it ended well
    error: str | None = None
    procs: list[subprocess.Popen] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    @property
    def alive(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def join(self, seconds: float | None) -> None:
        if self.thread is not None:
            self.thread.join(None if seconds is None else max(0.0, seconds))

    @property
    def where(self) -> str:
        owner = self.src.owner
        return "the shared remote" if owner is None else f"{owner.capitalize()}'s point"

    def said(self, error: str) -> str:
        """``error`` with the source named, when it is a seat's point."""
        if self.src.owner is None:
            return error
        return one_line(f"{self.where} {self.src.url}: {error}")

    def late(self) -> str:
        """The one sentence naming a source that has not answered yet."""
        waited = time.monotonic() - self.started
        return one_line(
            f"{self.where} {self.src.url} has not answered for {waited:.0f} s; the other "
            "sources carry its moves meanwhile, and sync reads it once it answers"
        )


class Local(Protocol):
    """What the exchange asks of the session it serves."""

    def wanted(self, source: Source) -> tuple[list[str], list[str]]:
        """The logs and open-step prefixes to fetch from ``source``."""
        ...

    def own_refs(self) -> set[str]:
        """The refs this peer publishes: its seats' logs and open answer branches."""
        ...

    def refused(self, oid: str) -> bool:
        """Whether a value is known bad (no commit, or refused by verification)."""
        ...

    def extends(self, old: str, new: str) -> bool:
        """Whether a branch at ``old`` may move to ``new``."""
        ...


@dataclass(frozen=True)
class Sent:
    """How a push went: ``error`` (one sentence) or None; ``clean``: nothing is left."""

    error: str | None = None
    clean: bool = False


def _forked(ref: str) -> str:
    return (
        f"cannot push to the remote (it holds a different history for {ref}, signed by "
        "that seat: another device plays it); stop one of them"
    )


class Exchange:
    """The remotes of ``local`` seats of ``game`` in ``repo``, and what each holds.

    ``fetch`` and ``push`` default to ``net.transport``'s (looked up at call time); an
    in-memory test passes its own, which move refs between ``GameRepo`` values.
    """

    def __init__(
        self,
        repo: Repository,
        game: str,
        local: Sequence[str],
        fetch: Callable[..., frozenset[str]] | None = None,
        push: Callable[..., frozenset[str]] | None = None,
    ) -> None:
        self.repo = repo
        self.game = game
        self.local = tuple(local)
        git_dir = repo.git_dir
        self.remote = None if git_dir is None else transport.remote_url(git_dir)
        #: Where this machine publishes its seats' refs besides the shared remote, and
        #: where it was told other seats publish (hints until their claims say so).
        self.publish_url = None if git_dir is None else transport.config(git_dir, "catan.publish")
        self.served = None if git_dir is None else transport.config(git_dir, "catan.serve")
        self.hints = {} if git_dir is None else transport.config_map(git_dir, "catan.point")
        self.seen: dict[str, dict[str, str | None]] = {}  # source -> own ref -> value there
        self._fetch = fetch
        self._push = push
        self._points: tuple[str, dict[str, str]] | None = None
        self._due = False
        self._extra: set[str] = set()
        self._running: dict[str, _Job] = {}  # source name -> a fetch past its deadline
        self._slow: set[str] = set()  # points not waited for: late until one fetch ends
        self.deletes: list[str] = []  # finished answer branches the remotes should lose

    @property
    def networked(self) -> bool:
        """Whether there is any remote (shared, or publication points) to exchange with."""
        return (self.repo.git_dir is not None or self._fetch is not None) and (
            self.remote is not None or self.publish_url is not None or bool(self.hints)
        )

    # --- where ---------------------------------------------------------------------------

    def points(self, key: str, claims: Callable[[], Iterable[ClaimSeat]]) -> dict[str, str]:
        """Each seat's publication point: from the signed ``claims``, else the hints;
        remembered per ``key`` (the head they were read at)."""
        if self._points is None or self._points[0] != key:
            points = {**self.hints, **publish.claimed_points(claims())}
            if self.publish_url is not None:
                for p in self.local:
                    points.setdefault(p, self.publish_url)
            # only the allowed URL forms are ever fetched from or pushed to (a claim
            # verified by an older version, a hint edited into the config)
            points = {p: url for p, url in points.items() if point_refusal(url) is None}
            self._points = (key, points)
        return self._points[1]

    def add_point(self, player: str, url: str, players: Sequence[str]) -> None:
        """Note where ``player``, another of ``players``, publishes (a hint kept in the
        repository's config until its signed claim says so itself)."""
        if player not in players or player in self.local:
            raise UsageError(
                f"--peer {player}=...: {player!r} is no other seat of game {self.game} "
                f"({', '.join(players)})"
            )
        why = point_refusal(url)
        if why is not None:
            raise UsageError(f"--peer {player}={shown(url, 80)}: {why}")
        if self.repo.git_dir is not None:
            transport.set_config(self.repo.git_dir, f"catan.point.{player}", url)
        self.hints[player] = url
        self._points = None

    def sources(self, points: dict[str, str]) -> tuple[Source, ...]:
        if not self.networked:
            return ()
        return publish.sources(self.remote, points, self.local, self.served)

    # --- what to push --------------------------------------------------------------------

    def want_push(self, refs: Iterable[str] = ()) -> None:
        """Push the own refs (and ``refs``) at the next ``send``."""
        self._due = True
        self._extra.update(refs)

    def delete(self, refs: Iterable[str]) -> None:
        """Delete these finished answer branches from the remotes at the next push, and
        then here (at once without remotes): the remotes' copies go first, so a process
        killed in between still holds the local ref and deletes both at its next start."""
        refs = list(refs)
        if not self.networked:
            for ref in refs:
                tracking.forget(self.repo, ref)
            return
        self.deletes.extend(r for r in refs if r not in self.deletes)
        self._due = self._due or bool(refs)

    # --- fetching ------------------------------------------------------------------------

    def fetch(self, local: Local, sources: Sequence[Source]) -> dict[str, str]:
        """Fetch every source at once (a thread each) and note what each holds; the error
        of each source that failed or has not answered yet (source name -> sentence).

        Each source has its own deadline: the shared remote is waited for (its Git has
        ``transport.TIMEOUT``), a seat's point until ``POINT_SECONDS`` after the start or
        as long as the shared remote took, whichever is later. A point that has not
        answered by then is named and left to finish on its thread (its Git has
        ``POINT_TIMEOUT``), never started twice at once; what it brought is noted at the
        first sync after it ends. Until one of its fetches ends well it is waited for no
        longer than the shared remote takes. So a point that accepts connections and
        never answers costs one sync ``POINT_SECONDS``, and no sync after that."""
        own = local.own_refs()
        errors: dict[str, str] = {}
        started = time.monotonic()
        jobs: list[_Job] = []
        for src in sources:
            running = self._running.pop(src.name, None)
            if running is not None and running.alive:
                self._running[src.name] = running
                errors[src.name] = running.late()
                continue
            if running is not None and running.error is None:  # it ended after its sync
                self._take(running, own)
                self._slow.discard(src.name)
            jobs.append(self._start(src, *local.wanted(src), own))
        for job in jobs:
            if job.src.owner is None:
                job.join(None)
        others = time.monotonic()
        end = max(started + POINT_SECONDS, others)
        for job in jobs:
            job.join((others if job.src.name in self._slow else end) - time.monotonic())
            if job.alive:
                self._running[job.src.name] = job
                self._slow.add(job.src.name)
                errors[job.src.name] = job.late()
            elif job.error is not None:
                errors[job.src.name] = job.said(job.error)
            else:
                self._take(job, own)
        return errors

    def _take(self, job: _Job, own: Iterable[str]) -> None:
        held = [r for r in job.logs if r not in (job.missing or ())]
        self.note_fetched(job.src, held, job.steps, own)

    def _start(self, src: Source, logs: list[str], steps: list[str], own: Iterable[str]) -> _Job:
        """A fetch of ``src`` on a thread of its own; what touches this repository's refs
        in-process (the idle poll's look, the own answers' copies) is done here first."""
        job = _Job(src, logs, steps)
        if self._idle(src, logs, steps):
            job.missing = frozenset()
            return job
        self._forget_own(src, steps, own)
        timeout = transport.TIMEOUT if src.owner is None else POINT_TIMEOUT

        def run() -> None:
            try:
                job.missing = self._transfer(src, logs, steps, timeout, job.procs.append)
            except RemoteError as exc:
                job.error = str(exc)

        job.thread = threading.Thread(target=run, name=f"fetch {src.name}", daemon=True)
        job.thread.start()
        return job

    def close(self) -> None:
        """Stop the fetches still running (a point that never answered): their Git ends
        with its locks removed, and nothing is left behind."""
        for job in self._running.values():
            for proc in job.procs:
                transport.stop(proc)
        for job in self._running.values():
            job.join(STOP_SECONDS)
        self._running.clear()

    @staticmethod
    def first_error(errors: dict[str, str], tried: int) -> str | None:
        """The error a sync reports: the shared remote's, or any when every source failed
        (a seat's point down is not this peer's error: others relay)."""
        if tried and len(errors) == tried:
            return next(iter(errors.values()))
        return errors.get(REMOTE)

    def _fetch_from(
        self, src: Source, logs: list[str], steps: list[str], own: Iterable[str] = ()
    ) -> frozenset[str]:
        """Fetch ``src`` (the logs it lacks come back); an idle poll of a remote on this
        machine's disk whose refs all equal the tracking refs already starts no Git.

        The copies of the ``own`` answers under ``steps`` (a seat claim, say) go first:
        a fetch writes the answers the source holds and deletes none it lost, so a claim
        someone deleted there would stay "seen" here and never be pushed again."""
        if self._idle(src, logs, steps):
            return frozenset()
        self._forget_own(src, steps, own)
        timeout = transport.TIMEOUT if src.owner is None else POINT_TIMEOUT
        return self._transfer(src, logs, steps, timeout)

    def _idle(self, src: Source, logs: list[str], steps: list[str]) -> bool:
        """An idle poll of a remote on this machine's disk (``ondisk.unchanged``)."""
        return self._fetch is None and ondisk.unchanged(
            self.repo.refs, src.url, self.game, logs, steps, src.name
        )

    def _forget_own(self, src: Source, steps: list[str], own: Iterable[str]) -> None:
        bases = tuple(s + "/" for s in steps)
        for ref in own:
            if ref.startswith(bases):
                tracking.forget(self.repo, tracking_ref(ref, src.name))

    def _transfer(
        self,
        src: Source,
        logs: list[str],
        steps: list[str],
        timeout: float,
        on_start: Callable[[subprocess.Popen], None] | None = None,
    ) -> frozenset[str]:
        """The fetch itself: Git (or the test's in-memory fetch) and nothing in-process."""
        url = None if src.name == REMOTE else src.url
        if self._fetch is not None:
            return self._fetch(self.repo.git_dir, self.game, logs, steps, src.name, url)
        return transport.fetch(
            self.repo.git_dir,
            self.game,
            logs,
            steps,
            src.name,
            url,
            timeout=timeout,
            on_start=on_start,
        )

    def note_fetched(
        self, src: Source, logs: list[str], steps: list[str], own: Iterable[str]
    ) -> None:
        """Remember what ``src`` holds of the ``own`` refs, then drop fetched refs the game
        does not need (``tracking.keep_fetched``)."""
        there = tracking.keep_fetched(self.repo, self.game, src.name, logs, steps)
        self.seen[src.name] = {r: there.get(tracking_ref(r, src.name)) for r in own}

    # --- pushing -------------------------------------------------------------------------

    def send(
        self,
        local: Local,
        sources: Callable[[], Sequence[Source]],
        readopt: Callable[[], None],
    ) -> Sent:
        """Push what ``want_push`` asked for to every own destination. A lease the remote
        refused (it moved since it was seen) is fetched again, ``readopt`` verifies and
        adopts what came, and the push is decided anew, ``LEASE_TRIES`` times at most."""
        sent = Sent()
        if not self.networked:
            return sent
        for _ in range(LEASE_TRIES):
            sent, stale = self._send_once(local, sources)
            if not stale:
                return sent
            for src in stale:
                logs, steps = local.wanted(src)
                try:
                    gone = self._fetch_from(src, logs, steps, local.own_refs())
                except RemoteError as exc:
                    return Sent(str(exc))
                held = [r for r in logs if r not in gone]
                self.note_fetched(src, held, steps, local.own_refs())
            readopt()
            self._due = True
        return sent

    def _plans(
        self, local: Local, sources: Sequence[Source]
    ) -> tuple[dict[str, str], list[str], list[tuple[Source, publish.Push]]]:
        """The own refs' values, the deletes, and the push to each own destination."""
        wanted, self._extra = self._extra | local.own_refs(), set()
        own = {ref: oid for ref in wanted if (oid := self.repo.refs.get(ref))}
        plans = []
        for src in sources:
            if src.mine:
                seen = self.seen.get(src.name)
                if seen is None:  # not fetched yet: a plain push, which never overwrites
                    plans.append((src, publish.Push(tuple(sorted(own)), {})))
                else:
                    plans.append((src, publish.plan_push(own, seen, local.extends, local.refused)))
        return own, list(self.deletes), plans

    def _send_once(
        self, local: Local, sources: Callable[[], Sequence[Source]]
    ) -> tuple[Sent, list[Source]]:
        if not self._due:
            return Sent(), []
        self._due = False
        own, deletes, plans = self._plans(local, sources())
        stale: list[Source] = []
        kept: set[str] = set()  # deletes a remote refused for now: tried again
        errors = [_forked(ref) for _, plan in plans for ref in plan.forked]
        for src, plan in plans:
            if not (plan.updates or deletes):
                continue
            target = REMOTE if src.name == REMOTE else src.url
            try:
                if self._push is not None:
                    moved = self._push(
                        self.repo.git_dir, plan.updates, deletes, plan.leases, target
                    )
                else:  # an own point that hangs holds the push up to POINT_TIMEOUT only
                    timeout = transport.TIMEOUT if src.owner is None else POINT_TIMEOUT
                    moved = transport.push(
                        self.repo.git_dir, plan.updates, deletes, plan.leases, target, timeout
                    )
            except RemoteError as exc:
                errors.append(str(exc))
                continue
            seen = self.seen.setdefault(src.name, {})
            seen.update({ref: own[ref] for ref in plan.updates if ref not in moved})
            for ref in deletes:
                seen.pop(ref, None)
            kept |= moved & set(deletes)
            if moved:
                stale.append(src)
        if errors:
            self._due = True  # tried again at the next sync
            return Sent(errors[0]), []
        done = [d for d in deletes if d not in kept]
        self.deletes = [d for d in self.deletes if d not in done]
        for ref in done:
            tracking.forget(self.repo, ref)
        return Sent(None, clean=not stale), stale
