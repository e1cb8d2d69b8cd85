"""Shared pytest set-up: makes ``tests/builders.py`` importable as ``builders``.

Pytest puts this file's folder on ``sys.path`` (rootdir-relative, no packages), which
is all the scenario tests need to ``from builders import ...``. Also: the seat keys of
the tests and the time of their games' genesis (every test game the same on every run),
and the order of the tests under pytest-xdist.
"""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _keys_home(tmp_path_factory):
    """Seat keys used by the tests live in a temporary CATAN_P2P_HOME, never in ~."""
    import hashlib
    import os

    from catan_p2p.sync.signing import SeatKey

    home = tmp_path_factory.mktemp("catan_home")
    # Fixed keys for the usual colours: the dice come from chains derived from the seat
    # keys, so fixed keys make every test game the same from run to run.
    for name in ("red", "blue", "white", "orange", "green", "black"):
        seed = hashlib.sha256(f"catan-p2p test key {name}".encode()).digest()
        SeatKey.from_seed(seed).save(home / "keys" / name)
    old = os.environ.get("CATAN_P2P_HOME")
    os.environ["CATAN_P2P_HOME"] = str(home)
    yield home
    if old is None:
        os.environ.pop("CATAN_P2P_HOME", None)
    else:
        os.environ["CATAN_P2P_HOME"] = old


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, tests marked slow go first (their own order kept).

    Each worker takes the next test when it is free (test.sh passes ``--maxschedchunk``),
    so the long tests start early and the many short ones fill the gaps: otherwise a
    long test near the end keeps one worker busy while the other has nothing left to do.
    A run without workers keeps the files' order.
    """
    if hasattr(config, "workerinput"):  # this process is an xdist worker
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


#: The genesis time of every game a test creates in this process (games that CLI child
#: processes create keep the clock's). The deck secrets, and with them the dice chains
#: and the shuffle, hash the genesis id, so with the fixed keys above every test game is
#: the same game on every run: no test passes, fails or skips by the luck of the clock.
GENESIS_TIME = 1_700_000_000


@pytest.fixture(autouse=True, scope="session")
def _fixed_genesis_time():
    from catan_p2p.session import start as session_start

    real = session_start.write_genesis

    def write_genesis(repo, declared, board, when=None):
        return real(repo, declared, board, GENESIS_TIME if when is None else when)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(session_start, "write_genesis", write_genesis)
        yield
