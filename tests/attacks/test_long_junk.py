"""A long line of junk on a seat's log is read back once, not at every sync.

Red team: 30,000 unsigned commits on top of a seat's log on a shared remote were read
back one by one by every peer at every sync (0.6 s of CPU each time, ten times that for
300,000) until that seat came back to restore its branch. The verifier now remembers
what it refused, so the walk stops at a refused commit: a head seen before, one moved
on by another junk commit, or a sibling of one.
"""

from __future__ import annotations

import pytest
from gitgames import play_some, sign_commit

from catan_p2p import clock
from catan_p2p.errors import VerificationError
from catan_p2p.protocol.genesis import open_genesis
from catan_p2p.protocol.verify import Verifier
from catan_p2p.rules.actions import EndTurn
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.repo import Repository

LONG = 3000


def _counting(repo: Repository, reads: list[str]) -> None:
    real = repo.commit

    def commit(oid: str):  # type: ignore[no-untyped-def]
        reads.append(oid)
        return real(oid)

    repo.commit = commit  # type: ignore[method-assign]


def test_a_refused_line_is_not_read_back_again():
    repo = MemoryRepo()
    create_game(repo, ["red", "blue"], seed="long", game_id="g")
    session = GitSession(repo, "g")
    play_some(session, 4)
    head = session.head
    tree = repo.commit(head).tree
    line = [head]
    for _ in range(LONG):  # unsigned, so the first is refused
        line.append(sign_commit(repo, line[-1], "blue", EndTurn("blue"), tree, None))
    genesis, state = session.genesis, open_genesis(repo, session.genesis)[0]
    verifier = Verifier(repo, session.info, genesis, state, clock=clock.now)
    verifier.verify(head)
    reads: list[str] = []
    _counting(repo, reads)
    with pytest.raises(VerificationError, match="sign"):
        verifier.verify(line[-1])
    assert len(reads) >= LONG  # read once
    moved_on = sign_commit(repo, line[-1], "blue", EndTurn("blue"), tree, None)
    sibling = sign_commit(repo, line[-2], "red", EndTurn("red"), tree, None)
    for again in (line[-1], moved_on, sibling, line[LONG // 2]):
        reads.clear()
        with pytest.raises(VerificationError, match="sign"):
            verifier.verify(again)
        assert len(reads) <= 8, (again, len(reads))
