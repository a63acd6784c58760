"""Fischer clocks in integer milliseconds (games.rules.clock)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rules import Color
from games.rules.clock import (
    ClockError,
    after_move,
    boost,
    flag_instant,
    flagged,
    remaining_ms,
    start,
    stop,
)

T0 = 1_700_000_000_000  # an epoch instant in milliseconds


def test_side_to_move_clock_runs_from_the_opening() -> None:
    clock = start(base_ms=180_000, increment_ms=2_000, to_move=Color.WHITE, now_ms=T0)
    assert remaining_ms(clock, Color.WHITE, T0 + 10_000) == 170_000  # RULES §3: runs at once
    assert remaining_ms(clock, Color.BLACK, T0 + 10_000) == 180_000
    english = start(base_ms=60_000, increment_ms=0, to_move=Color.BLACK, now_ms=T0)
    assert remaining_ms(english, Color.BLACK, T0 + 1) == 59_999


def test_move_adds_increment_and_switches() -> None:
    clock = start(base_ms=180_000, increment_ms=2_000, to_move=Color.WHITE, now_ms=T0)
    clock = after_move(clock, T0 + 5_000)
    assert clock.running is Color.BLACK
    assert remaining_ms(clock, Color.WHITE, T0 + 9_000) == 177_000  # 180 - 5 + 2, frozen
    assert remaining_ms(clock, Color.BLACK, T0 + 9_000) == 176_000
    clock = after_move(clock, T0 + 9_000)
    assert remaining_ms(clock, Color.BLACK, T0 + 9_000) == 178_000


def test_flag_instant_and_late_move() -> None:
    clock = start(base_ms=3_000, increment_ms=1_000, to_move=Color.WHITE, now_ms=T0)
    assert flag_instant(clock) == T0 + 3_000
    assert flagged(clock, T0 + 2_999) is None
    assert flagged(clock, T0 + 3_000) is Color.WHITE
    assert remaining_ms(clock, Color.WHITE, T0 + 10_000) == 0  # never negative
    with pytest.raises(ClockError):
        after_move(clock, T0 + 3_000)
    moved = after_move(clock, T0 + 2_999)
    assert remaining_ms(moved, Color.WHITE, T0 + 2_999) == 1_001


def test_stop_freezes_both_clocks() -> None:
    clock = start(base_ms=60_000, increment_ms=0, to_move=Color.WHITE, now_ms=T0)
    stopped = stop(clock, T0 + 1_500)
    assert stopped.running is None and flag_instant(stopped) is None
    assert remaining_ms(stopped, Color.WHITE, T0 + 99_000) == 58_500
    with pytest.raises(ClockError):
        after_move(stopped, T0 + 2_000)


def test_boost_drops_increment_and_halves_base() -> None:
    # RULES §8: base >= 60 s -> time left at most half the base; increment gone.
    clock = start(base_ms=180_000, increment_ms=2_000, to_move=Color.WHITE, now_ms=T0)
    boosted = boost(clock, Color.BLACK, T0 + 1_000)
    assert remaining_ms(boosted, Color.BLACK, T0 + 1_000) == 90_000
    assert boosted.black_increment_ms == 0 and boosted.white_increment_ms == 2_000
    # White boosts after using 100 s of 180: 80 s left stays 80 s (time used stays used).
    late = boost(clock, Color.WHITE, T0 + 100_000)
    assert remaining_ms(late, Color.WHITE, T0 + 100_000) == 80_000
    # White boosts after 20 s: 160 s left is capped at 90 s, and keeps running.
    early = boost(clock, Color.WHITE, T0 + 20_000)
    assert remaining_ms(early, Color.WHITE, T0 + 21_000) == 89_000
    moved = after_move(early, T0 + 21_000)
    assert remaining_ms(moved, Color.WHITE, T0 + 21_000) == 89_000  # no increment any more


def test_boost_with_short_or_no_base() -> None:
    clock = start(base_ms=30_000, increment_ms=1_000, to_move=Color.WHITE, now_ms=T0)
    boosted = boost(clock, Color.BLACK, T0)
    assert remaining_ms(boosted, Color.BLACK, T0) == 30_000  # under 60 s: only increment goes
    assert boosted.black_increment_ms == 0
    no_base = start(base_ms=0, increment_ms=5_000, to_move=Color.WHITE, now_ms=T0)
    with pytest.raises(ClockError):
        boost(no_base, Color.WHITE, T0)


def test_invalid_clock() -> None:
    with pytest.raises(ClockError):
        start(base_ms=0, increment_ms=0, to_move=Color.WHITE, now_ms=T0)
    with pytest.raises(ClockError):
        start(base_ms=-1, increment_ms=0, to_move=Color.WHITE, now_ms=T0)


@given(
    base=st.integers(1_000, 10_800_000),
    increment=st.integers(0, 60_000),
    thinks=st.lists(st.integers(0, 120_000), min_size=1, max_size=60),
)
def test_time_is_conserved(base: int, increment: int, thinks: list[int]) -> None:
    """Exact integer bookkeeping: time left = base + increments earned - time thought, for each
    side, as long as no flag falls; a too-late move is always refused."""
    clock = start(base_ms=base, increment_ms=increment, to_move=Color.WHITE, now_ms=T0)
    now = T0
    used = {Color.WHITE: 0, Color.BLACK: 0}
    moves = {Color.WHITE: 0, Color.BLACK: 0}
    for think in thinks:
        mover = clock.running
        assert mover is not None
        now += think
        expected_left = base + moves[mover] * increment - used[mover] - think
        if expected_left <= 0:
            assert flagged(clock, now) is mover
            with pytest.raises(ClockError):
                after_move(clock, now)
            return
        clock = after_move(clock, now)
        used[mover] += think
        moves[mover] += 1
        assert remaining_ms(clock, mover, now) == expected_left + increment
