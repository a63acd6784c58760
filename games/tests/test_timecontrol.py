"""RULES 2: estimated duration and cadence of a time control (pure, no database)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rules.timecontrol import Cadence, TimeControl, cadence_for


def test_estimate_is_base_plus_sixty_increments() -> None:
    assert TimeControl(180, 2).estimated_seconds == 180 + 120
    assert TimeControl(0, 1).estimated_seconds == 60


@pytest.mark.parametrize(
    ("estimated_seconds", "cadence"),
    [
        (1, Cadence.BULLET),
        (179, Cadence.BULLET),  # bullet < 3 min
        (180, Cadence.BLITZ),  # blitz from 3 min inclusive ...
        (600, Cadence.BLITZ),  # ... to 10 min inclusive
        (601, Cadence.RAPID),  # rapid over 10 min ...
        (3599, Cadence.RAPID),  # ... and under 60
        (3600, Cadence.CLASSICAL),  # classical 60 min or more
        (10_800, Cadence.CLASSICAL),
    ],
)
def test_cadence_boundaries(estimated_seconds: int, cadence: Cadence) -> None:
    assert cadence_for(estimated_seconds) is cadence


@pytest.mark.parametrize(
    ("base", "increment", "cadence"),
    [
        (60, 0, Cadence.BULLET),  # 1+0
        (120, 1, Cadence.BLITZ),  # 2+1: 120 + 60 = 3 min exactly
        (119, 1, Cadence.BULLET),  # one second less
        (180, 2, Cadence.BLITZ),  # 3+2
        (300, 5, Cadence.BLITZ),  # 5+5 = 10 min exactly
        (300, 6, Cadence.RAPID),  # 5+6 = 11 min
        (600, 0, Cadence.BLITZ),  # 10+0
        (900, 10, Cadence.RAPID),  # 15+10
        (1800, 30, Cadence.CLASSICAL),  # 30+30 = 60 min exactly
        (5400, 30, Cadence.CLASSICAL),  # 90+30
        (0, 3, Cadence.BLITZ),  # increment only: 0+3 = 3 min
    ],
)
def test_cadence_of_common_time_controls(base: int, increment: int, cadence: Cadence) -> None:
    assert TimeControl(base, increment).cadence is cadence


@pytest.mark.parametrize(("base", "increment"), [(-1, 0), (60, -1), (0, 0)])
def test_impossible_time_controls_are_refused(base: int, increment: int) -> None:
    with pytest.raises(ValueError):
        TimeControl(base, increment)


def test_time_control_is_frozen_and_hashable() -> None:
    tc = TimeControl(180, 2)
    assert tc == TimeControl(180, 2)
    assert len({tc, TimeControl(180, 2)}) == 1
    with pytest.raises(AttributeError):
        tc.base_seconds = 60  # type: ignore[misc]


@pytest.mark.parametrize(
    ("base", "increment", "text"), [(180, 2, "3+2"), (30, 0, "0.5+0"), (5400, 30, "90+30")]
)
def test_notation(base: int, increment: int, text: str) -> None:
    assert str(TimeControl(base, increment)) == text


@given(st.integers(min_value=0, max_value=3 * 3600), st.integers(min_value=0, max_value=180))
def test_longer_never_means_a_faster_cadence(base: int, increment: int) -> None:
    if base == 0 and increment == 0:
        return
    order = list(Cadence)
    slower = TimeControl(base + 1, increment)
    assert order.index(slower.cadence) >= order.index(TimeControl(base, increment).cadence)
