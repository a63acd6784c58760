"""A club battle as pure rules (RULES 12.7): the N best scorers' sum, the tie-break, and
teammates never paired."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine.battle import Scorer, club_standings
from arena.engine.pairing import Waiting, pair_waiting

NOW = 10_000 * 60_000


def test_a_clubs_score_is_the_sum_of_its_n_best():
    scorers = [
        Scorer(club=1, player=11, points=9, order=1),
        Scorer(club=1, player=12, points=7, order=2),
        Scorer(club=1, player=13, points=4, order=3),
        Scorer(club=1, player=14, points=30, order=4),
        Scorer(club=2, player=21, points=8, order=5),
        Scorer(club=2, player=22, points=8, order=6),
        Scorer(club=2, player=23, points=8, order=7),
    ]
    standings = club_standings([1, 2, 3], scorers, top_n=3)
    assert [(s.rank, s.club, s.score) for s in standings] == [(1, 1, 46), (2, 2, 24), (3, 3, 0)]
    assert [s.player for s in standings[0].counted] == [14, 11, 12]  # 30 + 9 + 7
    assert [s.player for s in standings[0].others] == [13]  # the fourth does not count
    assert standings[2].players == 0  # an invited club with nobody in is still listed


def test_a_tie_goes_to_the_deeper_bench_then_is_shared():
    scorers = [
        *(Scorer(club=1, player=10 + i, points=5) for i in range(3)),
        Scorer(club=1, player=19, points=4),  # club 1's bench
        *(Scorer(club=2, player=20 + i, points=5) for i in range(3)),
        Scorer(club=2, player=29, points=2),
        *(Scorer(club=3, player=30 + i, points=5) for i in range(3)),
        Scorer(club=3, player=39, points=2),
    ]
    standings = club_standings([3, 2, 1], scorers, top_n=3)
    assert [(s.rank, s.club, s.score) for s in standings] == [(1, 1, 15), (2, 2, 15), (2, 3, 15)]


@pytest.mark.parametrize("top_n", [2, 11])
def test_n_is_from_three_to_ten(top_n):
    with pytest.raises(ValueError):
        club_standings([1, 2], [], top_n=top_n)


def test_a_scorer_of_a_club_not_invited_is_an_error():
    with pytest.raises(ValueError):
        club_standings([1, 2], [Scorer(club=3, player=1, points=2)], top_n=3)


def test_teammates_are_never_paired_even_when_nobody_else_waits():
    waiting = [Waiting(player=i, rank=i, rating=1500, team=1 + (i > 2)) for i in range(1, 5)]
    # Players 1, 2 of club 1 and 3, 4 of club 2: only cross-club pairs.
    result = pair_waiting(waiting, {}, NOW, seed=1)
    assert len(result.pairs) == 2
    for pair in result.pairs:
        assert (pair.white <= 2) != (pair.black <= 2)
    alone = [Waiting(player=i, rank=i, rating=1500, team=7) for i in range(1, 4)]
    assert pair_waiting(alone, {}, NOW, seed=1).pairs == ()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=4), min_size=2, max_size=40), st.integers())
def test_no_pair_of_teammates_and_as_many_pairs_as_allowed(teams, seed):
    waiting = [Waiting(player=i, rank=i, rating=1500, team=t) for i, t in enumerate(teams, 1)]
    result = pair_waiting(waiting, {}, NOW, seed=seed)
    team_of = {w.player: w.team for w in waiting}
    assert all(team_of[p.white] != team_of[p.black] for p in result.pairs)
    # Most pairs possible: everyone but the biggest club's surplus (Tutte-Berge, one club
    # against the rest): min(n // 2, n - biggest).
    n, biggest = len(teams), max(teams.count(t) for t in set(teams))
    assert len(result.pairs) == min(n // 2, n - biggest)
