"""Shared pytest set-up: makes ``tests/builders.py`` importable as ``builders``.

Pytest puts this file's folder on ``sys.path`` (rootdir-relative, no packages), which
is all the scenario tests need to ``from builders import ...``.
"""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _keys_home(tmp_path_factory):
    """Seat keys made by the tests live in a temporary CATAN_P2P_HOME, never in ~."""
    import os

    home = tmp_path_factory.mktemp("catan_home")
    old = os.environ.get("CATAN_P2P_HOME")
    os.environ["CATAN_P2P_HOME"] = str(home)
    yield home
    if old is None:
        os.environ.pop("CATAN_P2P_HOME", None)
    else:
        os.environ["CATAN_P2P_HOME"] = old
