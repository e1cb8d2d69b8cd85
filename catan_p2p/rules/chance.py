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


# --- dice by commit-reveal (games with seat keys) ------------------------------------------

#: Elements in a player's dice chain: two are revealed per own turn (roll, end of turn).
CHAIN_LENGTH = 4096


def chain_step(element: str) -> str:
    """The element before ``element`` in a dice chain: SHA-256 of its bytes (hex)."""
    return hashlib.sha256(bytes.fromhex(element)).hexdigest()


def follows(reveal: str, previous: str) -> bool:
    """True when ``reveal`` is the chain element revealed right after ``previous``."""
    if len(reveal) != 64 or reveal != reveal.lower():
        return False
    try:
        return chain_step(reveal) == previous
    except ValueError:
        return False


def chain(secret: bytes, length: int = CHAIN_LENGTH) -> list[str]:
    """A dice chain from its secret: ``[e0, e1, ..., anchor]`` with ``e(i+1) = H(e(i))``.

    The anchor (last element) is published when the seat is claimed; the elements are
    then revealed from the end backwards, each one proving itself against the last.
    """
    out = [hashlib.sha256(b"catan-p2p/dice-chain\0" + secret).hexdigest()]
    for _ in range(length):
        out.append(chain_step(out[-1]))
    return out


def stolen_index(turn: int, shared: str, cards: int) -> int:
    """Which of the victim's ``cards`` (laid out in resource order) the robber takes.

    ``shared`` is the steal's value ``x_r·V = x_v·T`` (hex): the robber's token ``T``
    and the victim's answer ``V`` are each unique to their seat's key (so neither can
    bias the pick) and secret until given (so the robber could not foresee the card
    when choosing whom to rob, nor the victim lay out its hand to lose the card it
    minds least); their combination is known only to the two seats, so nobody else
    learns the card until one of them shows it.
    """
    return Chance("", f"steal/v4\0{turn}\0{shared}").randrange(cards)


def roll_of(turn: int, reveal: str, beacon: str) -> tuple[int, int]:
    """The dice of turn ``turn``: the roller's ``reveal`` and the previous player's last
    revealed element (``beacon``, revealed when it ended its turn; nothing else reveals
    one, so it is the element the turn began with).

    Both were fixed by the chain anchors before the game started, so nobody can bias a
    roll; only the roller can compute it, and only once its turn has begun. The chains
    are secret to each game (their secrets are derived with the genesis id), so no seed
    is needed: the stream is ``Chance("", "dice/v2", turn, reveal, beacon)``.
    """
    return Chance("", f"dice/v2\0{turn}\0{reveal}\0{beacon}").roll()
