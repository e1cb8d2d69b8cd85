"""A finished 4-player hot-seat game, played once and shared by the read-only tests; the
kinds of repository a protocol test runs on."""

from __future__ import annotations

import pytest
from gitgames import REPOSITORIES, hotseat_game


@pytest.fixture(scope="session")
def finished_game(tmp_path_factory):
    """(path, session, result) of a whole game with discard and trade merges in it."""
    for attempt in range(6):
        path = tmp_path_factory.mktemp(f"hotseat{attempt}") / "game"
        session, result = hotseat_game(path, seed=f"fixture{attempt}")
        merges = [session.repo.commit(c) for c in session.repo.first_parents(session.head)]
        merges = [c for c in merges if len(c.parents) > 1]
        discards = [c for c in merges if "discards" in c.summary and len(c.parents) > 2]
        trades = [c for c in merges if "trade answers" in c.summary]
        if discards and trades:
            # As a closed session would: the CLI tests over this game then verify from here.
            session.checkpoint.note(session.seats.lead().head, now=True)
            return path, session, result
    pytest.fail("six bot games never produced both a multi-player discard merge and a trade merge")


@pytest.fixture(params=REPOSITORIES)
def repo_kind(request) -> str:
    """``memory`` (the quick loop) or ``disk`` (a real Git repository: slow)."""
    return request.param
