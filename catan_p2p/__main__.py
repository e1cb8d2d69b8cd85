"""The ``catan-p2p`` program (and ``python -m catan_p2p``): ``cli.main`` with a Ctrl-C
caught from the first instant.

The launcher Python writes for ``catan-p2p`` imports the module it names before
calling it, outside any handler of ours: a Ctrl-C while ``catan_p2p.cli`` and a
command's modules load (pygame, cryptography: the first 0.2 s or more) printed a
``KeyboardInterrupt`` traceback. This module imports nothing of the package at its
top, so the import happens inside ``main``, where an interrupt ends the program quietly
with 130, as a shell expects of a program stopped by Ctrl-C.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Run ``catan-p2p`` with ``sys.argv``; 130, and nothing printed, on a Ctrl-C that
    comes before the command's own handler (``cli.main``'s) is in place."""
    try:
        from catan_p2p.cli import main as run

        return run()
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
