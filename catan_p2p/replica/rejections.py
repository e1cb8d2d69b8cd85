"""The commits a peer refused, and why: kept so they are not verified again, each
reported once, and one dated ahead of this clock refused for now only."""

from __future__ import annotations

from catan_p2p.printable import one_line


class Rejections:
    """Refused commits (commit id -> reason) of one session."""

    def __init__(self) -> None:
        self.reasons: dict[str, str] = {}
        self._reported: set[str] = set()
        self._early: set[str] = set()  # refused for now only: dated ahead of this clock

    def note(self, oid: str, reason: str, early: bool = False) -> None:
        """Refuse ``oid``; an ``early`` one is tried again at every sync until its time."""
        # one line: a hostile commit may make a rule's sentence as long as it likes
        # (300 parents), and hold any character in the names it quotes
        self.reasons[oid] = one_line(reason, 280)
        if early:
            self._early.add(oid)

    def refused(self, oid: str) -> bool:
        """Whether ``oid`` is known bad for good (not merely early)."""
        return oid in self.reasons and oid not in self._early

    def accepted(self, oid: str) -> None:
        """An early commit whose time has come is no longer a rejection."""
        if oid in self._early:
            self._early.discard(oid)
            self.reasons.pop(oid, None)
            self._reported.discard(oid)

    def take(self) -> dict[str, str]:
        """Rejections not reported yet, each handed out once (they stay known as bad)."""
        fresh = {oid: r for oid, r in self.reasons.items() if oid not in self._reported}
        self._reported.update(fresh)
        return fresh
