"""Peers of one game, each in its own in-memory repository, around one plain remote.

The model of tests/protocol/test_model.py drives these. A ``Node`` is one machine: its
repository (``MemoryRepo()``, its "disk": it survives a crash), a ``GitSession``
of its one seat, whether it can reach the remote, and how far its clock is off. The
``Remote`` is a forge without hooks: anyone may force any ref, as on GitHub.

Fetch and push do what ``transport.fetch``/``push`` ask Git to do: a fetch mirrors the
remote's game refs into ``refs/remotes/origin/...`` (forced, pruned) and drops junk
(``replica.tracking.drop_junk``); a push moves the seat's own refs on the remote, never
forced (a ref the remote holds at another history is left, the push of it fails), and
deletes the seat's finished answer branches. Objects are content-addressed and never
change, so all repositories share one object dict; what a peer knows still comes only
from its refs.

Time is virtual: ``Clock.now`` moves when the model says so, and while a node acts,
the process clock (``catan_p2p.clock``) reads the table's clock plus that node's skew.

A node's disk also holds its checkpoint (``replica.checkpoint``: the head its session last
verified, under a MAC of its seat key), as a real machine's git directory does; a node
restarted after a crash trusts it and verifies what came after, as ``catan-p2p`` does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from unittest import mock

from catan_p2p import clock as timekeeping
from catan_p2p.protocol.genesis import genesis_of
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.replica import checkpoint
from catan_p2p.replica.tracking import drop_junk
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.refnames import (
    game_prefix,
    parse_ref,
    player_ref,
    tracking_prefix,
    well_formed,
)
from catan_p2p.store.repo import Repository

GAME = "g"
START = 1_700_000_000  # the genesis time: every model game is the same from run to run
TIMEOUT = 3600  # seconds a player may keep the game waiting before an abandon


def key_of(player: str) -> SeatKey:
    """The model's fixed seat key of ``player``."""
    return SeatKey.from_seed(hashlib.sha256(f"catan-p2p model key {player}".encode()).digest())


class Clock:
    """Virtual time; ``skewed(s)`` makes the process clock (``catan_p2p.clock``) read it
    ``s`` seconds off."""

    def __init__(self, now: int = START + 60) -> None:
        self.now = now

    @contextmanager
    def skewed(self, skew: int) -> Iterator[None]:
        real = timekeeping.source
        timekeeping.source = lambda: float(self.now + skew)
        try:
            yield
        finally:
            timekeeping.source = real


def reaches(repo: Repository, descendant: str, ancestor: str) -> bool:
    """Whether ``ancestor`` is reachable from ``descendant`` through any parents (what
    Git calls a fast-forward; ``GameRepo.is_ancestor`` follows first parents only)."""
    seen, todo = set(), [descendant]
    while todo:
        oid = todo.pop()
        if oid == ancestor:
            return True
        if oid not in seen:
            seen.add(oid)
            todo.extend(repo.commit(oid).parents)
    return False


def new_repo(objects: dict) -> MemoryRepo:
    """An in-memory repository whose objects are ``objects`` (shared, content-addressed)."""
    repo = MemoryRepo()
    repo.store.objects = objects
    return repo


class DiskCheckpoint(checkpoint.Keeper):
    """``checkpoint.Keeper`` whose file is a string on the node's disk (``Node.disk``).

    The file's text and its MAC are the real ones; it is noted after every sync, not at
    most every five seconds of real time, so a run does not depend on the machine's speed.
    """

    def __init__(self, disk: dict[str, str], _git_dir, game, genesis, seat, keys) -> None:  # type: ignore[no-untyped-def]
        super().__init__(Path(), game, genesis, seat, keys)
        self.disk = disk

    def note(self, head: str | None, now: bool = False) -> None:
        super().note(head, now=True)

    def _load(self) -> str | None:
        text = self.disk.get(self.game + "." + str(self.seat))
        return None if text is None else checkpoint.parse(text, self.key, self.genesis, self.game)  # type: ignore[arg-type]

    def _save(self, head: str) -> None:
        line = checkpoint.line(self.key, self.genesis, self.game, head)  # type: ignore[arg-type]
        self.disk[self.game + "." + str(self.seat)] = line


@dataclass
class Remote:
    """A plain Git remote: refs anyone may set, objects shared with everyone."""

    refs: dict[str, str] = field(default_factory=dict)

    def game_refs(self) -> dict[str, str]:
        start = game_prefix(GAME) + "/"
        return {r: o for r, o in self.refs.items() if r.startswith(start)}


class Node:
    """One machine playing one seat: its repository, its session, its link and clock."""

    def __init__(self, player: str, repo: MemoryRepo, clock: Clock, honest: bool = True):
        self.player = player
        self.repo = repo
        self.clock = clock
        self.key = key_of(player)
        self.honest = honest
        self.online = True
        self.skew = 0
        self.session: GitSession | None = None
        self.pushes_refused = 0
        self.disk: dict[str, str] = {}  # its checkpoint file (``DiskCheckpoint``)

    @property
    def ref(self) -> str:
        return player_ref(GAME, self.player)

    @contextmanager
    def acting(self) -> Iterator[None]:
        """While this node runs: its clock."""
        with self.clock.skewed(self.skew):
            yield

    def start(self) -> GitSession:
        """(Re)open the session from the repository: a restart after a crash."""
        keeper = partial(DiskCheckpoint, self.disk)
        with self.acting(), mock.patch.object(checkpoint, "Keeper", keeper):
            self.session = GitSession(self.repo, GAME, (self.player,), keys={self.player: self.key})
        return self.session

    def own_refs(self) -> dict[str, str]:
        """This seat's refs here: its log and its answer branches."""
        out = {}
        for ref, oid in self.repo.refs.list(game_prefix(GAME)).items():
            if well_formed(ref, GAME) and parse_ref(ref, GAME)[0] == self.player:
                out[ref] = oid
        return out

    def fetch(self, remote: Remote) -> None:
        """``git fetch --prune +refs/heads/catan/g/*:refs/remotes/origin/catan/g/*``."""
        theirs = remote.game_refs()
        tracked = self.repo.refs.refs
        prefix = tracking_prefix(GAME) + "/"
        for ref in [r for r in tracked if r.startswith(prefix)]:
            del tracked[ref]
        for ref, oid in theirs.items():
            tracked[prefix + ref[len(game_prefix(GAME)) + 1 :]] = oid
        drop_junk(self.repo, GAME)

    def push(self, remote: Remote) -> None:
        """Push own refs (fast-forward only; forced by the dishonest node, which may) and
        delete own answer branches gone here."""
        mine = self.own_refs()
        for ref, oid in mine.items():
            there = remote.refs.get(ref)
            if there == oid:
                continue
            if (
                there is None
                or not self.honest
                or self.repo.is_ancestor(there, oid)
                or reaches(self.repo, oid, there)
            ):
                remote.refs[ref] = oid
            else:
                self.pushes_refused += 1  # the remote holds another history of it
        for ref in list(remote.game_refs()):
            if ref in mine or not well_formed(ref, GAME):
                continue
            owner, kind, _ = parse_ref(ref, GAME)
            if owner == self.player and kind is not None:
                del remote.refs[ref]

    def sync(self, remote: Remote):  # type: ignore[no-untyped-def]
        """One sync as ``catan-p2p sync`` does it: fetch, verify and merge, push."""
        assert self.session is not None
        with self.acting():
            if self.online:
                self.fetch(remote)
            status = self.session.sync()
            if self.online:
                self.push(remote)
        return status


@dataclass
class Table:
    """The remote and the nodes of one model game."""

    remote: Remote
    nodes: dict[str, Node]
    clock: Clock
    objects: dict


def open_table(players: tuple[str, ...], seed: str, dishonest: str | None = None) -> Table:
    """A game created by the first player, every other seat joined, seats merged."""
    objects: dict = {}
    clock = Clock()
    remote = Remote()
    creator = players[0]
    nodes = {p: Node(p, new_repo(objects), clock, honest=p != dishonest) for p in players}
    with nodes[creator].acting():
        create_game(
            nodes[creator].repo,
            list(players),
            seed=seed,
            game_id=GAME,
            local=(creator,),
            keys={creator: nodes[creator].key},
            timeout=TIMEOUT,
            when=START,
        )
    nodes[creator].start()
    nodes[creator].push(remote)
    genesis = genesis_of(nodes[creator].repo, remote.refs[nodes[creator].ref])
    for p in players[1:]:
        node = nodes[p]
        node.repo.refs.set(node.ref, genesis, None)  # as join_game does
        node.start()
        node.sync(remote)
    nodes[creator].sync(remote)
    return Table(remote, nodes, clock, objects)


def snapshot(table: Table) -> dict:
    """The refs of every repository and of the remote (objects are shared anyway), and
    each node's checkpoint."""
    return {
        "remote": dict(table.remote.refs),
        "nodes": {p: dict(n.repo.refs.refs) for p, n in table.nodes.items()},
        "disks": {p: dict(n.disk) for p, n in table.nodes.items()},
        "now": table.clock.now,
    }


def restore(base: Table, snap: dict, dishonest: str | None) -> Table:
    """A new table at ``snap`` of ``base``: fresh repositories and sessions, which start
    from the checkpoints the nodes had (verifying what came after them), as machines
    that played the game so far and start again."""
    clock = Clock(snap["now"])
    nodes = {}
    for p, refs in snap["nodes"].items():
        node = Node(p, new_repo(base.objects), clock, honest=p != dishonest)
        node.repo.refs.refs.update(refs)
        node.disk.update(snap["disks"][p])
        nodes[p] = node
    table = Table(Remote(dict(snap["remote"])), nodes, clock, base.objects)
    for node in nodes.values():
        node.start()
    return table
