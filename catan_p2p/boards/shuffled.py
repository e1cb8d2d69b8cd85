"""The rulebook's variable set-up: shuffled terrain, tokens with 6s and 8s apart, shuffled harbours.

Works on a ``Layout`` (terrain and number per tile index of a ``Geometry``) so the
balanced search can start from it; ``to_board`` turns a layout into a ``Board``.
Every draw comes from the ``random.Random`` the caller owns, never the global one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from catan_p2p.boards.layout import (
    Geometry,
    Island,
    check_radius,
    geometry,
    number_counts,
    port_edges,
    port_kinds,
    terrain_counts,
)
from catan_p2p.errors import BoardError
from catan_p2p.rules.board import PIPS, Board, HexTile, Port
from catan_p2p.rules.cards import Resource, Terrain

DESERT = int(Terrain.DESERT)
RED_NUMBERS = (6, 8)


@dataclass
class Layout:
    """A board being built: terrain code and number (0: desert) per tile index."""

    geo: Geometry
    terrain: list[int]
    numbers: list[int]
    ports: list[Resource | None]  # kind of the harbour at each of ``port_edges``

    @property
    def pips(self) -> list[int]:
        return [PIPS[n] if n else 0 for n in self.numbers]

    def to_board(self, name: str) -> Board:
        tiles = tuple(
            HexTile(tile, Terrain(self.terrain[i]), self.numbers[i] or None)
            for i, tile in enumerate(self.geo.tiles)
        )
        edges = port_edges(self.geo.island)
        ports = tuple(sorted(Port(e, k) for e, k in zip(edges, self.ports, strict=True)))
        return Board(self.geo.radius, tiles, ports, name=name)


def _terrain_bag(radius: Island) -> list[int]:
    return [int(t) for t, n in sorted(terrain_counts(radius).items()) for _ in range(n)]


def _number_bag(radius: Island) -> list[int]:
    return [num for num, n in sorted(number_counts(radius).items()) for _ in range(n)]


def place_numbers(geo: Geometry, terrain: list[int], rng: random.Random) -> list[int]:
    """Tokens on the producing hexes with no two 6/8 adjacent (redrawn until they fit)."""
    radius = geo.island
    bag = _number_bag(radius)
    reds = [n for n in bag if n in RED_NUMBERS]
    others = [n for n in bag if n not in RED_NUMBERS]
    producing = [i for i, t in enumerate(terrain) if t != DESERT]
    for _attempt in range(1000):
        rng.shuffle(producing)
        chosen: list[int] = []
        blocked: set[int] = set()
        for i in producing:
            if i not in blocked:
                chosen.append(i)
                blocked.add(i)
                blocked.update(geo.neighbours[i])
                if len(chosen) == len(reds):
                    break
        if len(chosen) == len(reds):
            break
    else:  # pragma: no cover - the islands we generate always have room
        raise BoardError(f"could not keep the {len(reds)} red tokens apart on radius {radius}")
    numbers = [0] * len(terrain)
    rng.shuffle(reds)
    for i, n in zip(chosen, reds, strict=True):
        numbers[i] = n
    rest = [i for i in sorted(producing) if not numbers[i]]
    rng.shuffle(others)
    for i, n in zip(rest, others, strict=True):
        numbers[i] = n
    return numbers


def random_layout(radius: Island, rng: random.Random) -> Layout:
    """A layout by the rulebook's variable set-up on an island of ``radius``."""
    check_radius(radius)
    geo = geometry(radius)
    terrain = _terrain_bag(radius)
    rng.shuffle(terrain)
    numbers = place_numbers(geo, terrain, rng)
    ports = list(port_kinds(radius))
    rng.shuffle(ports)
    return Layout(geo, terrain, numbers, ports)


def random_board(seed: object, radius: Island = 2) -> Board:
    """The rulebook's variable set-up, the same board for the same ``seed``."""
    return random_layout(radius, random.Random(f"random/{radius}/{seed}")).to_board("random")
