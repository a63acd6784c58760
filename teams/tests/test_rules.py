"""RULES §16 as pure functions: the line-up's order, the seating at the start, the colours,
the points. No database."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teams import rules


@pytest.mark.parametrize(
    ("ratings", "misplaced"),
    [
        ([1800, 1700, 1600, 1500], None),  # rating order
        ([1700, 1800, 1600, 1500], None),  # one swap of neighbours
        ([1700, 1800, 1500, 1600], None),  # two swaps sharing nobody
        ([1600, 1800, 1700], 0),  # the third-best on board 1: two boards up
        ([1700, 1600, 1800], 2),  # a rotation of three: the best two boards down
        ([1800, 1600, 1700, 1500], None),
        ([1800, 1500, 1700, 1600], 1),  # the fourth-best on board 2
        ([1500, 1500, 1500, 1800], 3),  # the best on board 4, behind three equals
        ([1500, 1800, 1500, 1500], None),  # the best one board down
        ([1500, 1500, 1800, 1500], 2),  # the best two boards down
        # Equal ratings are interchangeable: the 1600s may stand on 2..4, one more either way.
        ([1800, 1600, 1600, 1600, 1700], 4),
        ([1600, 1800, 1600, 1600, 1500], None),
        ([1500], None),
        ([], None),
    ],
)
def test_out_of_order_names_the_first_misplaced(ratings, misplaced):
    found = rules.out_of_order(ratings)
    assert (None if found is None else found.index) == misplaced


def test_out_of_order_says_which_places_were_allowed():
    found = rules.out_of_order([1600, 1800, 1700])
    assert (found.index, found.lowest, found.highest) == (0, 3, 3)


def _adjacent_swaps_only(order: tuple[int, ...]) -> bool:
    """A permutation of ranks 0..n-1 made of disjoint swaps of neighbours."""
    i = 0
    while i < len(order):
        if order[i] == i:
            i += 1
        elif i + 1 < len(order) and order[i] == i + 1 and order[i + 1] == i:
            i += 2
        else:
            return False
    return True


@pytest.mark.parametrize("n", range(1, 7))
def test_distinct_ratings_allow_exactly_disjoint_neighbour_swaps(n):
    """RULES 16.2's reading: every permutation of n distinct ratings is in order exactly when it
    is a product of swaps of neighbours sharing nobody."""
    ratings = [2000 - 10 * rank for rank in range(n)]
    for order in itertools.permutations(range(n)):
        in_order = rules.out_of_order([ratings[rank] for rank in order]) is None
        assert in_order == _adjacent_swaps_only(order), order


@given(st.lists(st.integers(1000, 1100), max_size=8))
def test_rating_order_is_always_in_order(ratings):
    assert rules.out_of_order(rules.rating_order(ratings, lambda r: r)) is None


@given(st.lists(st.integers(1000, 1010), max_size=8), st.data())
def test_leaving_players_out_keeps_a_line_up_in_order(ratings, data):
    """RULES 16.2/16.4: players moving up past one left out never break the order."""
    lineup = rules.rating_order(ratings, lambda r: r)
    # One swap of neighbours somewhere, then some players left out.
    if len(lineup) >= 2:
        i = data.draw(st.integers(0, len(lineup) - 2))
        lineup[i], lineup[i + 1] = lineup[i + 1], lineup[i]
    kept = [r for r in lineup if data.draw(st.booleans())]
    assert rules.out_of_order(kept) is None


def test_rating_order_keeps_the_given_order_among_equals():
    players = [("a", 1500), ("b", 1700), ("c", 1500), ("d", 1700)]
    assert [p for p, _ in rules.rating_order(players, lambda p: p[1])] == ["b", "d", "a", "c"]


def test_seat_moves_players_up_and_leaves_the_last_boards_empty():
    lineup = ["ann", "bob", "cat", "dan", "eve"]  # four boards and a reserve
    away = {"bob"}
    assert rules.seat(lineup, boards=4, can_play=lambda p: p not in away) == [
        "ann",
        "cat",
        "dan",
        "eve",
    ]
    away = {"bob", "dan"}
    assert rules.seat(lineup, boards=4, can_play=lambda p: p not in away) == [
        "ann",
        "cat",
        "eve",
        None,
    ]
    assert rules.seat([], boards=2, can_play=lambda p: True) == [None, None]


@pytest.mark.parametrize(
    ("board", "game", "white"),
    [(1, 1, True), (2, 1, False), (3, 1, True), (12, 1, False), (1, 2, False), (2, 2, True)],
)
def test_first_club_white_on_odd_boards_reversed_in_the_second_game(board, game, white):
    assert rules.first_club_white(board, game) is white


@pytest.mark.parametrize(
    ("first", "second", "points"),
    [(9, 7, (2, 0)), (8, 8, (1, 1)), (0, 16, (0, 2)), (0, 0, (1, 1))],
)
def test_match_points(first, second, points):
    assert rules.match_points(first, second) == points


@pytest.mark.parametrize(
    ("first", "second", "points"),
    [(True, False, (2, 0)), (False, True, (0, 2)), (False, False, (0, 0))],
)
def test_an_empty_board_is_the_opponents(first, second, points):
    assert rules.forfeit_points(first, second) == points


@pytest.mark.parametrize(
    ("points", "shown"), [(None, ""), (0, "0"), (1, "½"), (2, "1"), (7, "3½"), (24, "12")]
)
def test_board_points_are_shown_one_a_win_and_a_half_a_draw(points, shown):
    """RULES 16.5: 2 a win inside, 1 a win on every page."""
    assert rules.board_points_label(points) == shown
