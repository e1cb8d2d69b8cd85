"""Placement rules a generated board may be asked to keep (seed 004, and the rulebook).

Each rule counts its violations on a layout (terrain code and pips per tile index of
a ``Geometry``), so a search can treat them as penalties and a test can check them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from catan_p2p.boards.layout import Geometry
from catan_p2p.rules.board import PIPS

RED_PIPS = PIPS[6]  # 6 and 8: five ways to roll each


@dataclass(frozen=True)
class Constraints:
    """Which placement rules hold.

    Attributes:
        red_apart: 6s and 8s never on adjacent hexes (the rulebook's variable set-up).
        terrain_apart: no two adjacent hexes of the same terrain (seed 004).
        red_spread: the 6s and 8s spread over the resources, no resource holding more
            than its share (on the 19-tile island: each on a different resource).
    """

    red_apart: bool = True
    terrain_apart: bool = False
    red_spread: bool = False

    def violations(self, geo: Geometry, terrain: Sequence[int], pips: Sequence[int]) -> int:
        """How many times the layout breaks the rules that are on (0: it keeps them all)."""
        bad = 0
        if self.red_apart or self.terrain_apart:
            for a, b in geo.pairs:
                if self.red_apart and pips[a] == RED_PIPS and pips[b] == RED_PIPS:
                    bad += 1
                if self.terrain_apart and terrain[a] == terrain[b]:
                    bad += 1
        if self.red_spread:
            per = [0] * 6
            for t, p in enumerate(pips):
                if p == RED_PIPS:
                    per[terrain[t]] += 1
            share = math.ceil(sum(per) / 5)
            bad += sum(max(0, n - share) for n in per)
        return bad

    def describe(self) -> str:
        on = [
            name
            for name, flag in (
                ("6/8 apart", self.red_apart),
                ("equal terrain apart", self.terrain_apart),
                ("6/8 on different resources", self.red_spread),
            )
            if flag
        ]
        return ", ".join(on) if on else "none"


#: The rulebook's only placement rule: 6s and 8s never touch.
RULEBOOK = Constraints()
