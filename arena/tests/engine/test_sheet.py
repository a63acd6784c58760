"""The arena score sheet and ranking (RULES 8) as pure rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.engine.sheet import Outcome, Result, ranks, sheet

W, D, L, Z = Outcome.WIN, Outcome.DRAW, Outcome.LOSS, Outcome.NIL


def points_of(*outcomes, boosted=()):
    return [m.points for m in sheet(Result(o, i in boosted) for i, o in enumerate(outcomes)).marks]


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ((W, W), [2, 2]),
        ((W, W, W, W), [2, 2, 3, 3]),  # from the third consecutive win on, 3
        ((W, W, D, W, W, W), [2, 2, 1, 2, 2, 3]),  # a draw ends the streak
        ((W, W, W, L, W), [2, 2, 3, 0, 2]),  # so does a loss
        ((W, W, W, Z, W, W, W), [2, 2, 3, 0, 2, 2, 3]),  # and a game nobody played
        ((D, D, L), [1, 1, 0]),
    ],
)
def test_streaks(outcomes, expected):
    assert points_of(*outcomes) == expected


def test_boost_doubles_a_win_only():
    assert points_of(W, W, W, boosted={0, 2}) == [4, 2, 6]
    assert points_of(D, L, boosted={0, 1}) == [1, 0]


def test_the_sheet_totals():
    s = sheet([Result(W), Result(W), Result(W, True), Result(D)])
    assert (s.points, s.wins, s.games, s.on_streak) == (2 + 2 + 6 + 1, 3, 4, False)
    assert [m.streak for m in s.marks] == [False, False, True, False]
    assert sheet([Result(W), Result(W)]).on_streak  # the next win is worth 3


@given(st.lists(st.tuples(st.sampled_from([W, D, L, Z]), st.booleans()), max_size=30))
def test_the_sheet_is_a_function_of_the_results(results):
    rows = [Result(o, b) for o, b in results]
    s = sheet(rows)
    assert s == sheet(list(rows))  # a replay gives the same sheet
    assert s.points == sum(m.points for m in s.marks)
    assert s.wins == sum(o is W for o, _ in results)


def test_ranks_points_then_wins_ties_shared():
    assert ranks([(10, 4), (12, 5), (10, 4), (10, 3), (0, 0)]) == [2, 1, 2, 4, 5]
    assert ranks([]) == []
    assert ranks([(0, 0), (0, 0)]) == [1, 1]
