"""Boards on a balance dial: a local search for a layout whose score is near a target.

Seed 004's play-test found a "perfectly fair" board made a slow, dull game, so the
target is a dial: 0 asks for the fairest board the search can find, 1 for the
wildest, and anything between for a board that scores about that much.

The search is simulated annealing over three moves (swap two hexes with their tokens,
swap two tokens, swap two terrains), minimising ``|score - target|`` plus a penalty
per broken constraint. It stops once within ``TOLERANCE`` of the target or after a
fixed number of steps, so the same seed always gives the same board.
"""

from __future__ import annotations

import math
import random

from catan_p2p.boards.constraints import RULEBOOK, Constraints
from catan_p2p.boards.layout import EXTENSION, Island, check_radius
from catan_p2p.boards.score import FACTORS, measure, scale_for, scaled
from catan_p2p.boards.shuffled import DESERT, Layout, random_layout
from catan_p2p.errors import BoardError, UsageError
from catan_p2p.rules.board import PIPS, Board

TOLERANCE = 0.005  # close enough to the requested score
PENALTY = 1.0  # per broken constraint: worse than any score difference
#: Search steps per radius (a step costs more on larger islands).
STEPS: dict[int | str, int] = {2: 5000, 3: 5000, 4: 5000, 5: 5000, EXTENSION: 5000}
START_TEMPERATURE = 0.02
END_TEMPERATURE = 0.0005


def check_balance(balance: float) -> None:
    """Raise ``UsageError`` unless ``balance`` is on the 0..1 dial."""
    if not (isinstance(balance, int | float) and 0.0 <= balance <= 1.0):
        raise UsageError(f"balance must be between 0 (fairest) and 1 (wildest), got {balance}")


def balanced_layout(
    radius: Island,
    balance: float,
    rng: random.Random,
    constraints: Constraints = RULEBOOK,
    steps: int | None = None,
) -> tuple[Layout, float]:
    """A layout whose score is as near ``balance`` as the search gets, and that score.

    Raises:
        UsageError: ``balance`` is outside 0..1 or ``radius`` is unsupported.
        BoardError: no layout keeping ``constraints`` was found.
    """
    check_balance(balance)
    check_radius(radius)
    layout = random_layout(radius, rng)
    geo = layout.geo
    terrain = layout.terrain
    numbers = layout.numbers
    pips = layout.pips
    scale = scale_for(radius, terrain, pips)  # moves keep the multisets, so the scale too
    n_factors = len(FACTORS)
    producing = [i for i, t in enumerate(terrain) if t != DESERT]
    n_tiles = len(terrain)

    def cost() -> tuple[float, float]:
        score = sum(scaled(measure(geo, terrain, pips, scale), scale)) / n_factors
        bad = constraints.violations(geo, terrain, pips)
        return abs(score - balance) + PENALTY * bad, score

    current, score = cost()
    best = (current, score, terrain[:], numbers[:])
    total = steps if steps is not None else STEPS[radius]
    decay = (END_TEMPERATURE / START_TEMPERATURE) ** (1.0 / max(1, total))
    temperature = START_TEMPERATURE
    for _ in range(total):
        if best[0] <= TOLERANCE:
            break
        move = rng.random()
        if move < 0.2:  # a hex moves with its token (this is how deserts move)
            a, b = rng.randrange(n_tiles), rng.randrange(n_tiles)
            swap_terrain = swap_number = True
        elif move < 0.6:
            a, b = rng.choice(producing), rng.choice(producing)
            swap_terrain, swap_number = False, True
        else:
            a, b = rng.choice(producing), rng.choice(producing)
            swap_terrain, swap_number = True, False
        if a == b:
            continue
        if swap_terrain:
            terrain[a], terrain[b] = terrain[b], terrain[a]
        if swap_number:
            numbers[a], numbers[b] = numbers[b], numbers[a]
            pips[a], pips[b] = pips[b], pips[a]
        candidate, cand_score = cost()
        worse = candidate - current
        if worse <= 0 or rng.random() < math.exp(-worse / temperature):
            current, score = candidate, cand_score
            if current < best[0]:
                best = (current, score, terrain[:], numbers[:])
        else:  # undo
            if swap_terrain:
                terrain[a], terrain[b] = terrain[b], terrain[a]
            if swap_number:
                numbers[a], numbers[b] = numbers[b], numbers[a]
                pips[a], pips[b] = pips[b], pips[a]
        if swap_terrain and swap_number and DESERT in (terrain[a], terrain[b]):
            producing = [i for i, t in enumerate(terrain) if t != DESERT]
        temperature *= decay
    best_cost, best_score, best_terrain, best_numbers = best
    layout.terrain[:] = best_terrain
    layout.numbers[:] = best_numbers
    if constraints.violations(geo, layout.terrain, [PIPS.get(n, 0) for n in layout.numbers]):
        raise BoardError(
            f"no board of radius {radius} keeping {constraints.describe()} was found; "
            "try another seed or fewer constraints"
        )
    return layout, best_score


def balanced_board(
    seed: object,
    balance: float,
    radius: Island = 2,
    constraints: Constraints = RULEBOOK,
) -> Board:
    """A board scoring about ``balance`` (0 fairest .. 1 wildest), the same for the same seed."""
    rng = random.Random(f"balanced/{radius}/{balance!r}/{seed}")
    layout, _ = balanced_layout(radius, balance, rng, constraints)
    return layout.to_board("balanced")
