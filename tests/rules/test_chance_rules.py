"""Chance: dice, steals and draws come from one deterministic source every peer can recompute."""

from collections import Counter

import pytest

from catan_p2p.rules.chance import derive_chance


def _rolls(seed, parent, n=20):
    chance = derive_chance(seed, parent)
    return [chance.roll() for _ in range(n)]


def test_same_seed_and_parent_give_the_same_outcomes():
    assert _rolls("game-1", "abc123") == _rolls("game-1", "abc123")


def test_another_parent_or_seed_gives_other_outcomes():
    base = _rolls("game-1", "abc123")
    assert _rolls("game-1", "abc124") != base
    assert _rolls("game-2", "abc123") != base


def test_dice_are_two_six_sided_dice():
    counts = Counter()
    for i in range(1200):
        a, b = derive_chance("dice", str(i)).roll()
        assert 1 <= a <= 6 and 1 <= b <= 6
        counts[a] += 1
        counts[b] += 1
    # 2400 faces: each about 400; a fair die stays well within 300..500.
    assert set(counts) == set(range(1, 7))
    assert all(300 < n < 500 for n in counts.values()), counts


def test_randrange_covers_every_outcome_and_no_other():
    chance = derive_chance("pick", "0")
    seen = Counter(chance.randrange(7) for _ in range(700))
    assert set(seen) == set(range(7))
    assert all(60 < n < 140 for n in seen.values()), seen


def test_randrange_of_nothing_is_refused():
    with pytest.raises(ValueError, match="cannot pick"):
        derive_chance("pick", "0").randrange(0)
