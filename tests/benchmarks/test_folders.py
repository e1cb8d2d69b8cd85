"""A benchmark's games each get a block group of their own where the filesystem allows it."""

from __future__ import annotations

import array
import os

import pytest

from benchmarks import folders


def _flags(path) -> int:
    fcntl = pytest.importorskip("fcntl")
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        flags = array.array("i", [0])
        fcntl.ioctl(fd, folders._GETFLAGS, flags, True)
        return flags[0]
    except OSError:
        pytest.skip("this filesystem keeps no inode flags")
    finally:
        os.close(fd)


def test_a_spread_folder_carries_the_top_directory_flag_and_a_probe_leaves_its_files(tmp_path):
    before = _flags(tmp_path)
    assert not before & folders._TOPDIR
    if not folders.spread(tmp_path):
        pytest.skip("this filesystem has no top-directory flag (not ext2/3/4)")
    assert _flags(tmp_path) & folders._TOPDIR
    cost = folders.file_create_us(tmp_path, files=5)
    assert cost > 0
    (probe,) = tmp_path.glob("create-probe-*")
    assert len(list(probe.iterdir())) == 5
