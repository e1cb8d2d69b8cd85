"""The one place randomness enters the game.

Dice, stolen cards and development-card draws are not chosen by the caller's RNG:
they are derived from public data (the game seed and, in a replicated game, the
parent commit id), so every peer recomputes and verifies them. Swapping this module
for a commit-reveal scheme later changes nothing else.
"""

from __future__ import annotations

import hashlib


class Chance:
    """A deterministic stream of die rolls and picks, derived from a seed and a context.

    The stream is SHA-256 in counter mode over ``seed`` and ``context``; each draw
    uses rejection sampling so every outcome of ``randrange(n)`` is equally likely.
    """

    __slots__ = ("_seed", "_context", "_key", "_counter", "_pool")

    def __init__(self, seed: str, context: str) -> None:
        self._seed = seed
        self._context = context
        self._key = b""  # derived on the first draw: most actions never draw
        self._counter = 0
        self._pool = 0

    def _word(self) -> int:
        if not self._key:
            self._key = hashlib.sha256(
                f"catan-p2p/v1\0{self._seed}\0{self._context}".encode()
            ).digest()
        block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
        self._counter += 1
        return int.from_bytes(block[:8], "big")

    def randrange(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1``."""
        if n <= 0:
            raise ValueError(f"cannot pick from {n} outcomes")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            w = self._word()
            if w < limit:
                return w % n

    def roll(self) -> tuple[int, int]:
        """Two six-sided dice."""
        return (self.randrange(6) + 1, self.randrange(6) + 1)


def derive_chance(seed: str, parent: str) -> Chance:
    """The chance source of the action recorded on top of ``parent`` in game ``seed``.

    Args:
        seed: the game seed from the genesis commit.
        parent: the id of the commit the action is applied to (in a simulation without
            Git, any string that is unique per action, e.g. its index).
    """
    return Chance(seed, parent)
