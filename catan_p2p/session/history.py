"""The log of a game as its users read it: every recorded action, answers before their
merge, read incrementally (a window asks after every new state)."""

from __future__ import annotations

from collections.abc import Iterable

from catan_p2p.net.game import LogEntry
from catan_p2p.protocol.concurrent import Answer
from catan_p2p.protocol.message import parse_action
from catan_p2p.store.repo import Repository


class History:
    """The entries of ``repo``'s game up to the last head asked for, kept."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._at: tuple[str, list[LogEntry]] | None = None  # (head, entries to it)

    def upto(self, head: str, answers: Iterable[Answer] = ()) -> list[LogEntry]:
        """Every action from the genesis to ``head``, then the open step's ``answers``
        (only the commits since the last head asked for are read, when it is an
        ancestor)."""
        if self._at is not None and self.repo.is_ancestor(self._at[0], head):
            known, entries = self._at
            new = self.repo.first_parents(head, stop=known)
        else:
            entries, new = [], self.repo.first_parents(head)[:-1]  # the genesis is no action
        if new:
            entries = entries + self._entries(reversed(new))
            self._at = (head, entries)
        elif self._at is None:
            self._at = (head, entries)
        return entries + [
            LogEntry(a.commit, a.player, a.action, str(a.action), opening=head) for a in answers
        ]

    def _entries(self, commits: Iterable[str]) -> list[LogEntry]:
        entries = []
        for oid in commits:
            c = self.repo.commit(oid)
            for answer in c.parents[1:]:
                ac = self.repo.commit(answer)
                entries.append(
                    LogEntry(answer, ac.author, parse_action(ac), ac.summary, ac.parents[0])
                )
            if len(c.parents) == 1:
                entries.append(LogEntry(oid, c.author, parse_action(c), c.summary))
        return entries
