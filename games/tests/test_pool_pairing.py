"""Quick pairing's decision (games.pool_pairing): pure, no database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.pool_pairing import (
    ANYONE_AFTER_MS,
    BASE_RANGE,
    Seeker,
    acceptable,
    pair_seekers,
    rating_range,
)

NOW = 1_000_000


def seeker(player: int, rating: int, waited_s: float = 0) -> Seeker:
    return Seeker(player, rating, NOW - int(waited_s * 1000))


@pytest.mark.parametrize(
    ("waited_ms", "expected"),
    [
        (0, BASE_RANGE),
        (1_000, BASE_RANGE + 10),
        (30_000, BASE_RANGE + 300),
        (ANYONE_AFTER_MS, None),
    ],
)
def test_the_range_widens_with_the_wait(waited_ms, expected):
    assert rating_range(waited_ms) == expected


def test_close_ratings_pair_at_once_far_ones_only_after_waiting():
    assert acceptable(seeker(1, 1500), seeker(2, 1590), NOW)
    assert not acceptable(seeker(1, 1500), seeker(2, 1800), NOW)
    # The one who waited 25 s accepts 350 points: the newcomer 300 points away is taken.
    assert acceptable(seeker(1, 1500, waited_s=25), seeker(2, 1800), NOW)
    assert acceptable(seeker(1, 1000, waited_s=61), seeker(2, 2400), NOW)


def test_closest_rating_first_then_the_longest_wait():
    waiting = [seeker(1, 1500, 10), seeker(2, 1580, 5), seeker(3, 1510, 1), seeker(4, 1515, 1)]
    pairs = {(a.player, b.player) for a, b in pair_seekers(waiting, NOW)}
    # 1 waited longest and takes 3 (10 points away); 2 then takes 4.
    assert pairs == {(1, 3), (2, 4)}


def test_nobody_acceptable_waits_on():
    assert pair_seekers([seeker(1, 1200), seeker(2, 1900)], NOW) == []
    assert pair_seekers([seeker(1, 1500)], NOW) == []


@given(
    st.lists(st.tuples(st.integers(800, 2600), st.integers(0, 120_000)), min_size=0, max_size=30)
)
def test_every_pair_is_acceptable_and_nobody_plays_twice(rows):
    waiting = [Seeker(i, rating, NOW - waited) for i, (rating, waited) in enumerate(rows)]
    pairs = pair_seekers(waiting, NOW)
    players = [s.player for pair in pairs for s in pair]
    assert len(players) == len(set(players))
    assert all(acceptable(a, b, NOW) for a, b in pairs)
    # Greedy but never wasteful: of those left waiting, no two could have played.
    left = [s for s in waiting if s.player not in set(players)]
    assert not any(acceptable(a, b, NOW) for i, a in enumerate(left) for b in left[i + 1 :])
