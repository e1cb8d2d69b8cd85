"""The background sync thread: own actions go through it, failures come back as sentences."""

from __future__ import annotations

import time

from builders import fresh

from catan_p2p.client.syncer import Syncer
from catan_p2p.errors import RemoteError
from catan_p2p.rules.actions import EndTurn
from catan_p2p.session.base import MemorySession, SyncStatus


def test_queued_actions_are_recorded_and_refusals_reported():
    session = MemorySession(fresh(2), "sync")
    first = session.legal_actions("red")[0]
    syncer = Syncer(session, interval=0.01).start()
    syncer.submit(first)
    syncer.submit(EndTurn("red"))  # illegal during set-up
    assert syncer.wait_sent(5.0)
    syncer.stop()
    assert [e.action for e in session.history()] == [first]
    action, reason = syncer.failures.get_nowait()
    assert action == EndTurn("red") and "cannot end the turn now" in reason
    assert syncer.status is not None and syncer.rounds >= 1


def test_actions_queued_when_the_window_closes_are_still_recorded():
    session = MemorySession(fresh(2), "close")
    syncer = Syncer(session)  # never started: stop() must record what is queued
    syncer.submit(session.legal_actions("red")[0])
    syncer.stop()
    assert len(session.history()) == 1


class _LostRemote(MemorySession):
    def sync(self) -> SyncStatus:
        raise RemoteError("cannot fetch from the remote (host unreachable); retrying")


def test_a_failing_sync_becomes_the_status_error_and_the_thread_keeps_going():
    syncer = Syncer(_LostRemote(fresh(2), "lost"), interval=0.01).start()
    try:
        deadline = time.monotonic() + 5.0
        while syncer.rounds < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert syncer.rounds >= 2
        assert syncer.status is not None and "unreachable" in (syncer.status.error or "")
    finally:
        syncer.stop()
