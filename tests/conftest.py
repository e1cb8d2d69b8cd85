"""Shared pytest set-up: makes ``tests/builders.py`` importable as ``builders``.

Pytest puts this file's folder on ``sys.path`` (rootdir-relative, no packages), which
is all the scenario tests need to ``from builders import ...``. Also: the seat keys of
the tests and the time of their games' genesis (every test game the same on every run),
the order of the tests under pytest-xdist, and ``fake_clock``, the one way a test moves
the process's time.
"""

import os
import tempfile
import time

import pytest
from gitgames import REPOSITORIES, hotseat_game

# Every test runs as on a machine with no Git identity and no Git configuration of its
# own (CI's fresh machine, a new user's HOME): the developer's ~/.gitconfig and the
# system's are never read, by this process or the git and catan-p2p processes it
# starts. A test that needs an identity (one that makes a plain commit with `git
# commit`) passes one itself (``builders.GIT_IDENTITY``).
_NO_CONFIG = os.path.join(tempfile.gettempdir(), "catan-p2p-tests-empty-gitconfig")
if not os.path.isfile(_NO_CONFIG) or os.path.getsize(_NO_CONFIG):
    open(_NO_CONFIG, "w").close()  # noqa: SIM115 - an empty file is all it takes
os.environ["GIT_CONFIG_GLOBAL"] = _NO_CONFIG
os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
for _name in ("AUTHOR_NAME", "AUTHOR_EMAIL", "COMMITTER_NAME", "COMMITTER_EMAIL"):
    os.environ.pop(f"GIT_{_name}", None)


@pytest.fixture(autouse=True, scope="session")
def _keys_home(tmp_path_factory):
    """Seat keys used by the tests live in a temporary CATAN_P2P_HOME, never in ~."""
    import hashlib
    import os

    from catan_p2p.protocol.signing import SeatKey
    from catan_p2p.rules.state import SEAT_COLOURS
    from catan_p2p.session.keys import save_key

    home = tmp_path_factory.mktemp("catan_home")
    # Fixed keys for every seat colour: the dice come from chains derived from the seat
    # keys, so fixed keys make every test game the same from run to run. (The list was
    # once hand-kept and missed brown: the six-seat network game's dice changed each run.)
    for name in SEAT_COLOURS:
        seed = hashlib.sha256(f"catan-p2p test key {name}".encode()).digest()
        save_key(SeatKey.from_seed(seed), home / "keys" / name)
    old = os.environ.get("CATAN_P2P_HOME")
    os.environ["CATAN_P2P_HOME"] = str(home)
    yield home
    if old is None:
        os.environ.pop("CATAN_P2P_HOME", None)
    else:
        os.environ["CATAN_P2P_HOME"] = old


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, tests marked slow or network go first (their own order kept).

    Each worker takes the next test when it is free (test.sh passes ``--maxschedchunk``),
    so the long tests start early and the many short ones fill the gaps: otherwise a
    long test near the end keeps one worker busy while the other has nothing left to do.
    (Sorting by ``slow`` alone left the tests marked only ``network`` for the end: a full
    run's workers finished 29 s apart.) A run without workers keeps the files' order.
    """
    if hasattr(config, "workerinput"):  # this process is an xdist worker
        items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in _PROCESS_MARKS))


#: The genesis time of every game a test creates, in this process and in the
#: ``catan-p2p`` processes it starts (``$CATAN_P2P_GENESIS_TIME``). The deck secrets, and
#: with them the dice chains and the shuffle, hash the genesis id, so with the fixed keys
#: above every test game is the same game on every run: no test passes, fails or skips by
#: the luck of the clock.
GENESIS_TIME = 1_700_000_000


@pytest.fixture(autouse=True, scope="session")
def _fixed_genesis_time():
    from catan_p2p.session.start import GENESIS_TIME_ENV

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(GENESIS_TIME_ENV, str(GENESIS_TIME))
        yield


# --- processes and CPU time --------------------------------------------------------------
#
# `./test.sh --quick` skips the tests marked slow or network and must stay quick on a
# busy machine: a test that starts a process (git, a CLI run, a bot, a server) pays for
# the fork and the program's start-up, several times over at a high load. So every
# test that starts one says so with a mark, and this check keeps that true.

_PROCESS_MARKS = ("slow", "network")

#: What the running test started (argv heads), or None outside a test's setup and call.
_started: list[str] | None = None
#: Whether the running test may start processes (it is marked slow or network).
_may_start = True


def _unmarked_start(started: list[str]) -> str:
    return (
        f"this test started {len(started)} process(es) (first: `{started[0]}`) but is not "
        "marked slow or network, so `./test.sh --quick` would run it: mark it "
        "(@pytest.mark.slow, or network for a remote) or use MemoryRepo()."
    )


def _note_start(what: object) -> None:
    """Note a process the running test starts; fail an unmarked test right there."""
    if _started is None:
        return
    words = what if isinstance(what, (list, tuple)) else [what]
    if words and words[0] == "fc-list":
        return  # pygame's system fonts, looked up once per process: not the test's cost
    _started.append(" ".join(str(a) for a in words[:3]))
    if not _may_start:
        pytest.fail(_unmarked_start(_started), pytrace=True)


def _install_process_spy() -> None:
    """Note every process started in this pytest process (the test still starts it)."""
    import os
    import subprocess

    real_init = subprocess.Popen.__init__

    def init(self, args, *rest, **kwargs):  # type: ignore[no-untyped-def]
        self._child_created = False  # a start refused below leaves a quiet object
        _note_start(args)
        return real_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = init  # type: ignore[method-assign]
    for name in ("system", "posix_spawn", "posix_spawnp", "fork"):
        real = getattr(os, name, None)
        if real is None:
            continue

        def spy(*args, _real=real, _name=name, **kwargs):  # type: ignore[no-untyped-def]
            _note_start([f"os.{_name}", *args[:2]])
            return _real(*args, **kwargs)

        setattr(os, name, spy)


def pytest_addoption(parser):
    parser.addoption(
        "--cpu-report",
        metavar="PATH",
        help="append one JSON line per test to PATH: its wall time, the CPU time of this "
        "process and of the children it waited for, and the processes it started (to "
        "compare tests on a shared machine, where wall time measures the neighbours)",
    )


def pytest_configure(config):
    _install_process_spy()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Track what each test starts, and its CPU time for ``--cpu-report``."""
    import json
    import os
    import resource
    import time

    global _started, _may_start
    _started = []
    _may_start = any(item.get_closest_marker(m) for m in _PROCESS_MARKS)
    began, wall, cpu = time.time(), time.perf_counter(), time.process_time()
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        return (yield)
    finally:
        started, _started, _may_start = _started, None, True
        path = item.config.getoption("--cpu-report")
        if path:
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            line = {
                "test": item.nodeid,
                "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
                "start": round(began, 3),
                "marks": [m for m in _PROCESS_MARKS if item.get_closest_marker(m)],
                "wall": round(time.perf_counter() - wall, 3),
                "cpu": round(time.process_time() - cpu, 3),
                "children": round(
                    after.ru_utime + after.ru_stime - kids.ru_utime - kids.ru_stime, 3
                ),
                "processes": len(started),
                "first": started[:1],
            }
            with open(path, "a") as out:
                out.write(json.dumps(line) + "\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A test not marked slow or network fails if it (or its set-up) started a process.

    The start itself fails it already, in the test's own thread; this catches one a
    thread of the test started (whose failure only ended that thread).
    """
    result = yield
    if _started and not _may_start:
        pytest.fail(_unmarked_start(_started), pytrace=False)
    return result


# --- hypothesis ----------------------------------------------------------------------------
#
# On a shared machine a property test's time says nothing about the code: no deadlines.
# The examples are derived from each test's name (the same ones on every run, whatever ran
# before in the worker: a red CI run is a real counterexample, not a roll of the dice, and
# it prints how to replay it);
# HYPOTHESIS_PROFILE=explore draws new ones, for a session spent looking for bugs.


def _hypothesis_profiles() -> None:
    import os

    from hypothesis import HealthCheck, settings

    common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
    settings.register_profile("ci", derandomize=True, database=None, **common)
    settings.register_profile("explore", **common)
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    settings.load_profile(profile)
    if profile == "ci":
        _no_constants_from_imported_modules()


def _no_constants_from_imported_modules() -> None:
    """Keep the examples a function of the test alone.

    Hypothesis draws about one number in twenty from the constants written in the
    source of every local module imported so far (catan_p2p's; tests are skipped). A
    pytest worker imports whatever the tests it ran before needed, so a derandomized
    test drew different examples from run to run: the protocol model's 40 games made
    4,437 to 5,526 steps in full runs against 5,420 alone, and its 5,000-step promise
    failed by chance. The pool is empty here (Hypothesis' own constants stay), and the
    cache of allowed constants is a fresh one, so nothing drawn before leaks in.
    """
    from hypothesis.internal.cache import LRUCache
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.constants_ast import Constants

    if hasattr(providers, "_get_local_constants"):  # a Hypothesis that has the pool
        providers._get_local_constants = Constants
        providers.CONSTANTS_CACHE = LRUCache(1024)


_hypothesis_profiles()


class FakeClock:
    """The process clock (``catan_p2p.clock``) as a test moves it: the real time until the
    test sets one, then that time, moved only by ``set`` and ``advance``. Never
    ``time.time`` patched: the protocol is told the time by whoever asks it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch
        self.now: float | None = None  # None: the real time

    def __call__(self) -> float:
        return time.time() if self.now is None else self.now

    def set(self, now: float) -> None:
        """From here on the process reads ``now`` (until set again)."""
        from catan_p2p import clock  # late: this file loads before the package's set-up

        self.now = float(now)
        self._monkeypatch.setattr(clock, "source", self)

    def advance(self, seconds: float) -> None:
        self.set(self() + seconds)

    def run_free(self) -> None:
        """Back to the real time."""
        self.now = None


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return FakeClock(monkeypatch)


# --- a finished game, and the kinds of repository a protocol test runs on ---------------


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
