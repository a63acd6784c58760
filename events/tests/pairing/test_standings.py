"""Tiebreaks (RULES 4.6, 4.10) on hand-computed tournaments, and invariants on random ones."""

from hypothesis import given, settings
from hypothesis import strategies as st

from events.pairing.lim import NoLegalPairing
from events.pairing.model import (
    BYE_PAIRING_ALLOCATED,
    Bye,
    Entrant,
    GameResult,
    Tournament,
)
from events.pairing.standings import round_robin_standings, swiss_standings

from .helpers import play


def entrants(n):
    return tuple(Entrant(i, f"p{i}") for i in range(1, n + 1))


def swiss_example() -> Tournament:
    # R1: 1 beats 2, 3-4 drawn, 5 bye. R2: 1 wins by forfeit against 5, 2 beats 3, 4 bye.
    # R3: 5 beats 3, 4-1 drawn, 2 bye.
    games = (
        GameResult(1, 1, 2, 2, 0),
        GameResult(1, 3, 4, 1, 1),
        GameResult(2, 5, 1, 0, 2, played=False),
        GameResult(2, 2, 3, 2, 0),
        GameResult(3, 3, 5, 0, 2),
        GameResult(3, 4, 1, 1, 1),
    )
    byes = (Bye(1, 5), Bye(2, 4), Bye(3, 2))
    return Tournament(entrants(5), 3, games, byes)


def test_swiss_points_buchholz_cut1_sonneborn_berger_and_wins_by_hand():
    table = {s.player: s for s in swiss_standings(swiss_example())}
    # Points: byes worth a win, the forfeit win scores.
    assert {n: s.points for n, s in table.items()} == {1: 5, 2: 4, 3: 1, 4: 4, 5: 4}
    # BH cut 1: the bye is no opponent; the forfeit opponent is one.
    # 1: 2(4) + 5(4) + 4(4) - 4 = 8; 2: 1(5) + 3(1) - 1 = 5; 3: 4 + 4 + 4 - 4 = 8;
    # 4: 3(1) + 1(5) - 1 = 5; 5: 1(5) + 3(1) - 1 = 5.
    assert {n: s.buchholz_cut1 for n, s in table.items()} == {1: 8, 2: 5, 3: 8, 4: 5, 5: 5}
    # SB: 1 beat 2 (4), beat 5 by forfeit (nothing, RULES 4.10), drew 4 (4/2): 6. 4 drew 3
    # (0.5) and 1 (2.5).
    assert {n: s.sonneborn_berger for n, s in table.items()} == {
        1: 6,
        2: 1,
        3: 2,
        4: 3,
        5: 1,
    }
    # Wins: the forfeit win and the byes are not games won.
    assert {n: s.wins for n, s in table.items()} == {1: 1, 2: 1, 3: 0, 4: 0, 5: 1}


def test_swiss_rank_order_and_shared_places():
    table = swiss_standings(swiss_example())
    assert [(s.rank, s.player) for s in table] == [(1, 1), (2, 4), (3, 2), (3, 5), (5, 3)]


def test_round_robin_order_uses_wins_then_head_to_head_then_berger_number():
    # Berger 4: R1 1-4, 2-3; R2 4-3, 1-2; R3 2-4, 3-1.
    games = (
        GameResult(1, 1, 4, 2, 0),
        GameResult(1, 2, 3, 0, 2),
        GameResult(2, 4, 3, 2, 0),
        GameResult(2, 1, 2, 0, 2),
        GameResult(3, 2, 4, 2, 0),
        GameResult(3, 3, 1, 2, 0),
    )
    table = round_robin_standings(Tournament(entrants(4), 3, games))
    # 2 and 3 both 4 points, 2 wins: 3 beat 2. 1 and 4 both 2 points, 1 win: 1 beat 4.
    assert [s.player for s in table] == [3, 2, 1, 4]
    assert [s.rank for s in table] == [1, 2, 3, 4]
    assert {s.player: s.head_to_head for s in table} == {3: 2, 2: 0, 1: 2, 4: 0}


def test_round_robin_head_to_head_is_applied_again_among_those_still_tied():
    """RULES 4.10 Decision: six players, A C B D E F by Berger number; A, B, C, D tied on 5
    points (2/1/0) and 2 wins. Among the four: A 5, B 3, C 3, D 1. B and C still level: among those
    two alone B beat C, so B is second though C has the lower Berger number."""
    a, c, b, d, e, f = 1, 2, 3, 4, 5, 6
    won = {  # the first player's points against the second (2 win, 1 draw)
        (a, b): 2, (a, c): 1, (a, d): 2, (b, c): 2, (b, d): 1, (c, d): 2,
        (a, e): 0, (a, f): 0, (b, e): 2, (b, f): 0, (c, e): 2, (c, f): 0,
        (d, e): 2, (d, f): 2, (e, f): 1,
    }  # fmt: skip
    games = tuple(
        GameResult(round_number, white, black, points, 2 - points)
        for round_number, ((white, black), points) in enumerate(won.items(), start=1)
    )
    table = round_robin_standings(Tournament(entrants(6), 15, games))
    tied = [s for s in table if s.player in (a, b, c, d)]
    assert {(s.points, s.wins) for s in tied} == {(5, 2)}
    assert [s.player for s in tied] == [a, b, c, d]
    assert [s.rank for s in tied] == [2, 3, 4, 5]  # F, who beat all four, is first
    assert {s.player: s.head_to_head for s in tied} == {a: 5, b: 3, c: 3, d: 1}


def test_round_robin_berger_number_breaks_a_complete_tie():
    games = (GameResult(1, 1, 2, 1, 1), GameResult(1, 3, 4, 1, 1))
    table = round_robin_standings(Tournament(entrants(4), 3, games))
    assert [s.player for s in table] == [1, 2, 3, 4]


def test_double_games_count_per_game_and_the_opponent_once():
    # Round 1, double games: 1 beats 4 then draws; 2 beats 3 twice. Round 2: 5 rests (4 pts).
    games = (
        GameResult(1, 1, 4, 2, 0, leg=1),
        GameResult(1, 4, 1, 1, 1, leg=2),
        GameResult(1, 2, 3, 2, 0, leg=1),
        GameResult(1, 3, 2, 0, 2, leg=2),
    )
    byes = (Bye(1, 5, BYE_PAIRING_ALLOCATED, 4),)
    t = Tournament(entrants(5), 3, games, byes, double_games=True)
    table = {s.player: s for s in swiss_standings(t)}
    assert {n: s.points for n, s in table.items()} == {1: 3, 2: 4, 3: 0, 4: 1, 5: 4}
    assert table[1].buchholz_cut1 == 0  # one opponent, met twice in one round, counted once
    assert table[1].sonneborn_berger == 1.5  # beat 4 (1) and drew with 4 (0.5)
    assert table[2].wins == 2
    assert table[5].wins == 0 and table[5].buchholz_cut1 == 0


def test_both_absent_scores_nothing_and_is_no_opponent_for_buchholz():
    # RULES 4.10 Decision: a 0-0 double absence is no game; that opponent is not counted.
    games = (
        GameResult(1, 1, 2, 0, 0, played=False),
        GameResult(1, 3, 4, 2, 0),
        GameResult(2, 1, 3, 1, 1),
        GameResult(2, 2, 4, 2, 0),
    )
    table = {s.player: s for s in swiss_standings(Tournament(entrants(4), 3, games))}
    assert table[1].points == 1 and table[2].points == 2
    assert table[1].wins == 0 and table[1].sonneborn_berger == 1.5
    assert table[3].points == 3 and table[3].wins == 1
    # 1 met only 3: 3 - 3 = 0 (with 2 counted: 2 + 3 - 2 = 3). 2 met only 4: 0 (with 1
    # counted: 1 + 0 - 0 = 1).
    assert table[1].buchholz_cut1 == 0 and table[2].buchholz_cut1 == 0


def test_round_robin_with_an_odd_field_counts_the_rest_as_a_win_but_not_in_tiebreaks():
    # Berger for 3 (table for 4): R1 2-3, 1 rests; R2 1-2, 3 rests; R3 3-1, 2 rests.
    games = (GameResult(1, 2, 3, 1, 1), GameResult(2, 1, 2, 2, 0), GameResult(3, 3, 1, 2, 0))
    byes = (Bye(1, 1), Bye(2, 3), Bye(3, 2))
    table = round_robin_standings(Tournament(entrants(3), 3, games, byes))
    assert [(s.player, s.points, s.wins) for s in table] == [(3, 5, 1), (1, 4, 1), (2, 3, 0)]
    # SB: 3 drew 2 (3 / 2) and beat 1 (4); 1 beat 2 (3); 2 drew 3 (5 / 2). No bye inside.
    assert [s.sonneborn_berger for s in table] == [5.5, 3, 2.5]


@settings(max_examples=30, deadline=None)
@given(players=st.integers(3, 30), seed=st.integers(0, 10**6))
def test_standings_invariants_on_random_tournaments(players, seed):
    try:
        t = play(players, min(5, players - 1), seed)
    except NoLegalPairing:  # a tiny field cannot always bear five Swiss rounds
        return
    table = swiss_standings(t)
    assert [s.rank for s in table][0] == 1
    assert all(a.rank <= b.rank for a, b in zip(table, table[1:], strict=False))
    assert sorted(s.player for s in table) == list(range(1, players + 1))
    total = sum(g.white_points + g.black_points for g in t.games) + sum(b.points for b in t.byes)
    assert sum(s.points for s in table) == total
    points = {s.player: s.points for s in table}
    for s in table:
        opponents = [g.black if g.white == s.player else g.white for g in t.games]
        opponents = [
            o for g, o in zip(t.games, opponents, strict=True) if s.player in (g.white, g.black)
        ]
        assert s.buchholz_cut1 <= sum(points[o] for o in opponents)
        assert s.sonneborn_berger <= sum(points[o] for o in opponents)
        assert s.wins <= len(opponents)
    rr = round_robin_standings(t)
    assert [s.rank for s in rr] == list(range(1, players + 1))  # never a tie: Berger number
