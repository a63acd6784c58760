"""RULES 6 and 7.3 as pure rules (no database)."""

from __future__ import annotations

import pytest

from events.options import mode_allowed, needs_double_games, rated_outcome
from games.rules import openings


def first_with_degree(degree: int) -> int:
    return next(o.number for o in openings.table() if o.degree == degree)


@pytest.mark.parametrize(
    ("mode", "variant", "allowed"),
    [
        ("free", "chess", True),
        ("random3", "international", True),
        ("table1", "italian", True),
        ("table_all", "english", True),
        ("thematic", "english", True),
        ("table2", "chess", False),
        ("thematic", "international", False),
    ],
)
def test_table_modes_only_on_italian_and_english(mode, variant, allowed):
    assert mode_allowed(mode, variant) is allowed


@pytest.mark.parametrize(
    ("mode", "degree", "needs"),
    [
        ("free", None, False),
        ("random3", None, False),
        ("table1", None, False),
        ("table2", None, False),
        ("table3", None, True),
        ("table_all", None, True),
        ("thematic", 0, False),
        ("thematic", 2, False),
        ("thematic", 3, True),
        ("thematic", 4, True),
    ],
)
def test_which_openings_need_double_games(mode, degree, needs):
    number = first_with_degree(degree) if degree is not None else None
    assert needs_double_games(mode, number) is needs


def test_rated_switched_off_without_double_games_and_floor_dropped():
    outcome = rated_outcome(
        rated=True, floor=1500, double_games=False, mode="table3", thematic_number=None
    )
    assert (outcome.rated, outcome.floor, outcome.switched_off) == (False, None, True)


def test_double_games_keep_it_rated():
    outcome = rated_outcome(
        rated=True, floor=1500, double_games=True, mode="table_all", thematic_number=None
    )
    assert (outcome.rated, outcome.floor, outcome.switched_off) == (True, 1500, False)


def test_casual_by_choice_is_not_a_switch_off():
    outcome = rated_outcome(
        rated=False, floor=None, double_games=False, mode="table3", thematic_number=None
    )
    assert (outcome.rated, outcome.switched_off) == (False, False)
