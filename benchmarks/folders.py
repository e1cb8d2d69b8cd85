"""Where a benchmark's games are written, so that one game's clean-up does not slow the next.

On ext4 without a journal (this project's test machines: ``/proc/fs/jbd2`` is empty),
making a file skips every inode of its block group freed in the last 60 seconds, or 360
while the inode's table block is still dirty, and it looks at each in turn (the kernel's
``recently_deleted``). A game's repack frees about two files per commit, and removing a
finished game's folder frees the rest, so a second game made beside the first, in the
same group, paid 100-500 µs for every new file instead of 10-20 µs, for minutes. That
cost reached the figures through the spare-file pool (two new files per commit), making
compute per commit about a third dearer (benchmarks/ab_commit.py: 0.84-1.03 ms with the
games beside each other in ``/tmp``, 0.64-0.73 ms each in a group of its own).

``spread`` sets ext4's "top directory" flag (``chattr +T``) on a benchmark's work folder:
the folders made in it are then placed as top-level ones are (Orlov), in a group with few
folders, searched from a start the hash of the new folder's *name* gives. A game's folder
therefore gets a name of its own each run (``fresh``): under one name every run landed in
the group the last run had just emptied. Elsewhere neither does anything.
``file_create_us`` measures what making a file costs in a folder, for the record.
"""

from __future__ import annotations

import array
import os
import statistics
import sys
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None

_GETFLAGS = 0x80086601  # FS_IOC_GETFLAGS
_SETFLAGS = 0x40086602  # FS_IOC_SETFLAGS
_TOPDIR = 0x00020000  # FS_TOPDIR_FL


def spread(folder: Path) -> bool:
    """Mark ``folder`` so that each folder made in it gets a block group of its own;
    False where the filesystem (or platform) has no such flag."""
    if fcntl is None or not sys.platform.startswith("linux"):  # the ioctl is Linux's
        return False
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        flags = array.array("i", [0])
        fcntl.ioctl(fd, _GETFLAGS, flags, True)
        flags[0] |= _TOPDIR
        fcntl.ioctl(fd, _SETFLAGS, flags)
    except OSError:  # tmpfs, btrfs, a filesystem without the flag
        return False
    finally:
        os.close(fd)
    return True


def file_create_us(folder: Path, files: int = 100) -> float:
    """Median µs to make an empty file in a new folder inside ``folder``; the files stay
    (removing them would slow the next files made in their group, the thing measured)."""
    probe = folder / f"create-probe-{time.monotonic_ns()}"
    probe.mkdir()
    times = []
    for i in range(files):
        start = time.perf_counter()
        os.close(os.open(probe / str(i), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1e6, 1)


def fresh(folder: Path, name: str) -> Path:
    """``folder/name-XXXXXXXX``, a path not used before (not made here): under a spread
    folder its group is searched for from a start of its own."""
    return folder / f"{name}-{os.urandom(4).hex()}"
