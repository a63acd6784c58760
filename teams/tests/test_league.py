"""RULES 16.8 as pure functions: a league's system, its round-robin calendar on the FSI Berger
tables, its standings and board prizes. No database. Every expected figure is worked out by
hand in the comments (board points in the site's units: 2 a win, 1 a draw, per game)."""

from __future__ import annotations

import itertools

import pytest

from events.pairing import lim
from events.pairing.berger import BergerRound, berger_schedule
from events.pairing.model import RoundSpec
from teams import league
from teams.league import BoardGame, ByeScore, MatchResult, StandingRow


@pytest.mark.parametrize(
    ("teams", "system"),
    [(3, league.ROUND_ROBIN), (10, league.ROUND_ROBIN), (11, league.SWISS), (16, league.SWISS)],
)
def test_league_system_by_the_count_of_teams(teams, system):
    assert league.league_system(teams) == system


@pytest.mark.parametrize("teams", [0, 2, 17])
def test_league_system_refuses_a_count_outside_3_to_16(teams):
    with pytest.raises(ValueError, match="3 to 16"):
        league.league_system(teams)


def test_swiss_rounds():
    # ⌈log₂ 11⌉ + 2 = 4 + 2 = 6; ⌈log₂ 16⌉ + 2 = 4 + 2 = 6.
    assert league.swiss_rounds(11) == 6
    assert league.swiss_rounds(16) == 6
    with pytest.raises(ValueError, match="round robin"):
        league.swiss_rounds(10)


# --- The round robin -------------------------------------------------------------------------


def _pairs(calendar):
    return [[(f.first, f.second) for f in r.fixtures] for r in calendar]


def test_round_robin_of_four_double_follows_tabella_1_then_swaps():
    calendar = league.round_robin(berger_schedule(4), teams=4, double=True)
    # FSI Tabella 1, giocatori 3 e 4: 1-4 2-3 / 4-3 1-2 / 2-4 3-1; the second cycle the same
    # pairs, the second number first-named.
    assert _pairs(calendar) == [
        [(1, 4), (2, 3)],
        [(4, 3), (1, 2)],
        [(2, 4), (3, 1)],
        [(4, 1), (3, 2)],
        [(3, 4), (2, 1)],
        [(4, 2), (1, 3)],
    ]
    assert [r.number for r in calendar] == [1, 2, 3, 4, 5, 6]
    assert [r.cycle for r in calendar] == [1, 1, 1, 2, 2, 2]
    assert all(r.bye is None for r in calendar)


def test_round_robin_of_three_the_team_meeting_the_missing_number_rests():
    calendar = league.round_robin(berger_schedule(3), teams=3, double=True)
    # Tabella 1 with 4 missing: 1-4 2-3 / 4-3 1-2 / 2-4 3-1, so 1, then 3, then 2 rest, and
    # again in the second cycle.
    assert _pairs(calendar) == [[(2, 3)], [(1, 2)], [(3, 1)], [(3, 2)], [(2, 1)], [(1, 3)]]
    assert [r.bye for r in calendar] == [1, 3, 2, 1, 3, 2]


def test_round_robin_single_is_the_first_cycle():
    single = league.round_robin(berger_schedule(6), teams=6, double=False)
    double = league.round_robin(berger_schedule(6), teams=6, double=True)
    assert single == double[:5]
    # Tabella 2, giocatori 5 e 6, round 2: 6-4 5-3 1-2.
    assert _pairs(single)[1] == [(6, 4), (5, 3), (1, 2)]


@pytest.mark.parametrize("teams", range(3, 11))
def test_round_robin_every_team_meets_every_other_once_first_named_once(teams):
    calendar = league.round_robin(berger_schedule(teams), teams=teams, double=True)
    rounds = teams - 1 if teams % 2 == 0 else teams
    assert len(calendar) == 2 * rounds
    for r in calendar:
        seated = [n for f in r.fixtures for n in (f.first, f.second)]
        seated += [r.bye] if r.bye is not None else []
        assert sorted(seated) == list(range(1, teams + 1))
    ordered = [(f.first, f.second) for r in calendar for f in r.fixtures]
    # Each ordered pair once: every two teams meet twice, each first-named (at home) once.
    assert sorted(ordered) == sorted(itertools.permutations(range(1, teams + 1), 2))
    for first, second in zip(calendar[:rounds], calendar[rounds:], strict=True):
        assert second.bye == first.bye
        assert [(f.second, f.first) for f in second.fixtures] == [
            (f.first, f.second) for f in first.fixtures
        ]
    if teams % 2:
        byes = [r.bye for r in calendar[:rounds]]
        assert sorted(byes) == list(range(1, teams + 1))  # each rests once a cycle


def test_round_robin_refuses_a_swiss_field_and_a_table_that_does_not_fit():
    with pytest.raises(ValueError, match="Swiss"):
        league.round_robin(berger_schedule(12), teams=12, double=False)
    with pytest.raises(ValueError, match="5 teams need 5"):
        league.round_robin(berger_schedule(4), teams=5, double=False)
    twice = (  # team 1 in two matches of round 1, team 4 in none
        BergerRound(1, ((1, 2), (1, 3))),
        BergerRound(2, ((4, 3), (1, 2))),
        BergerRound(3, ((2, 4), (3, 1))),
    )
    with pytest.raises(ValueError, match="round 1"):
        league.round_robin(twice, teams=4, double=False)
    rematch = (  # every round seats everyone, but 1-2 is played twice and 1-3 never
        BergerRound(1, ((1, 2), (3, 4))),
        BergerRound(2, ((2, 1), (4, 3))),
        BergerRound(3, ((1, 4), (2, 3))),
    )
    with pytest.raises(ValueError, match="twice"):
        league.round_robin(rematch, teams=4, double=False)


# --- Standings -------------------------------------------------------------------------------


def _row(place, team, played, won, drawn, lost, mp, bp, de, bh, sb) -> StandingRow:
    return StandingRow(place, team, played, won, drawn, lost, mp, bp, de, bh, sb)


def test_standings_match_points_then_board_points():
    # Three teams, 4 boards (8 board points a match), one cycle.
    results = [
        MatchResult(2, 3, 4, 4),  # a drawn match: 1 match point each
        MatchResult(1, 2, 3, 5),  # 2 wins: 2 + 1 = 3 MP, 4 + 5 = 9 BP
        MatchResult(3, 1, 5, 3),  # 3 wins: 1 + 2 = 3 MP, 4 + 5 = 9 BP
    ]
    # 2 and 3 are level on 3 MP and 9 BP and drew each other: direct encounter 1 - 1.
    # Buchholz: 2 met 3 (3) and 1 (0) = 3; 3 met 2 (3) and 1 (0) = 3.
    # Sonneborn-Berger: 2 = 4×3 (vs 3) + 5×0 (vs 1) = 12; 3 = 4×3 + 5×0 = 12. The number: 2.
    # 1: 0 MP, 3 + 3 = 6 BP; Buchholz 3 + 3 = 6; SB 3×3 + 3×3 = 18.
    assert league.standings(results, teams=[1, 2, 3]) == [
        _row(1, 2, 2, 1, 1, 0, 3, 9, 1, 3, 12),
        _row(2, 3, 2, 1, 1, 0, 3, 9, 1, 3, 12),
        _row(3, 1, 2, 0, 0, 2, 0, 6, None, 6, 18),
    ]
    # Team 3 scoring one board point more in its win (6 - 2): board points now split 2 and 3.
    results[2] = MatchResult(3, 1, 6, 2)
    assert [row.team for row in league.standings(results, teams=[1, 2, 3])] == [3, 2, 1]


def test_standings_direct_encounter_before_buchholz_sonneborn_berger_and_number():
    # A round robin of 4 teams, 4 boards (8 board points a match), on Tabella 1.
    results = [
        MatchResult(1, 4, 8, 0),  # round 1
        MatchResult(2, 3, 8, 0),
        MatchResult(4, 3, 4, 4),  # round 2
        MatchResult(1, 2, 3, 5),
        MatchResult(2, 4, 3, 5),  # round 3
        MatchResult(3, 1, 3, 5),
    ]
    # 1: W 8, L 3, W 5 -> 4 MP, 16 BP.   2: W 8, W 5, L 3 -> 4 MP, 16 BP.
    # 3: L 0, D 4, L 3 -> 1 MP, 7 BP.    4: L 0, D 4, W 5 -> 3 MP, 9 BP.  (48 BP = 6 × 8.)
    # 1 and 2 level; 2 beat 1: direct encounter 2 - 0, so 2 first although
    # Buchholz 1 = 3 + 4 + 1 = 8 = 2's 1 + 4 + 3, and Sonneborn-Berger favours 1:
    #   SB 1 = 8×3 (vs 4) + 3×4 (vs 2) + 5×1 (vs 3) = 24 + 12 + 5 = 41
    #   SB 2 = 8×1 (vs 3) + 5×4 (vs 1) + 3×3 (vs 4) = 8 + 20 + 9 = 37
    # and the number too. 4: BH 4 + 1 + 4 = 9, SB 0×4 + 4×1 + 5×4 = 24.
    # 3: BH 4 + 3 + 4 = 11, SB 0×4 + 4×3 + 3×4 = 24.
    assert league.standings(results, teams=[1, 2, 3, 4]) == [
        _row(1, 2, 3, 2, 0, 1, 4, 16, 2, 8, 37),
        _row(2, 1, 3, 2, 0, 1, 4, 16, 0, 8, 41),
        _row(3, 4, 3, 1, 1, 1, 3, 9, None, 9, 24),
        _row(4, 3, 3, 0, 1, 2, 1, 7, None, 11, 24),
    ]


def test_standings_buchholz_when_the_level_teams_have_not_all_met():
    # Two rounds of a Swiss of 6 teams, 2 boards (4 board points a match).
    results = [
        MatchResult(1, 4, 3, 1),  # round 1
        MatchResult(2, 5, 3, 1),
        MatchResult(3, 6, 3, 1),
        MatchResult(1, 2, 2, 2),  # round 2
        MatchResult(5, 3, 3, 1),
        MatchResult(4, 6, 3, 1),
    ]
    # MP / BP: 1: 2+1 / 3+2 = 3 / 5; 2: 3 / 5; 3: 2+0 / 3+1 = 2 / 4; 4: 0+2 / 1+3 = 2 / 4;
    # 5: 0+2 / 1+3 = 2 / 4; 6: 0 / 1+1 = 0 / 2.  (24 BP = 6 × 4; 12 MP = 6 × 2.)
    # 1 and 2 drew each other: direct encounter 1 - 1; BH 1 = 2 (4) + 3 (2) = 5,
    # BH 2 = 3 (5) + 2 (1) = 5; SB 1 = 3×2 + 2×3 = 12, SB 2 = 3×2 + 2×3 = 12: the number.
    # 3, 4 and 5 level on 2 / 4: 3 met 5 but 4 met neither, so no direct encounter; Buchholz:
    # 5 = 2 (2) + 3 (3) = 5 before 4 = 1 (3) + 6 (0) = 3 before 3 = 6 (0) + 5 (2) = 2,
    # the reverse of their numbers.
    # SB 5 = 1×3 + 3×2 = 9, 4 = 1×3 + 3×0 = 3, 3 = 3×0 + 1×2 = 2.
    # 6: BH 3 (2) + 4 (2) = 4, SB 1×2 + 1×2 = 4.
    assert league.standings(results, teams=range(1, 7)) == [
        _row(1, 1, 2, 1, 1, 0, 3, 5, 1, 5, 12),
        _row(2, 2, 2, 1, 1, 0, 3, 5, 1, 5, 12),
        _row(3, 5, 2, 1, 0, 1, 2, 4, None, 5, 9),
        _row(4, 4, 2, 1, 0, 1, 2, 4, None, 3, 3),
        _row(5, 3, 2, 1, 0, 1, 2, 4, None, 2, 2),
        _row(6, 6, 2, 0, 0, 2, 0, 2, None, 4, 4),
    ]


def test_standings_buchholz_before_sonneborn_berger():
    # Three rounds of a Swiss (six teams, for brevity), 2 boards (4 board points a match).
    results = [
        MatchResult(4, 1, 4, 0),  # round 1
        MatchResult(3, 5, 2, 2),
        MatchResult(6, 2, 0, 4),
        MatchResult(5, 2, 2, 2),  # round 2
        MatchResult(6, 4, 2, 2),
        MatchResult(3, 1, 0, 4),
        MatchResult(3, 6, 2, 2),  # round 3
        MatchResult(1, 2, 1, 3),
        MatchResult(4, 5, 1, 3),
    ]
    # 1: L 0, W 4, L 1 -> 2 MP, 5 BP.   2: W 4, D 2, W 3 -> 5 MP, 9 BP.
    # 3: D 2, L 0, D 2 -> 2 MP, 4 BP.   4: W 4, D 2, L 1 -> 3 MP, 7 BP.
    # 5: D 2, D 2, W 3 -> 4 MP, 7 BP.   6: L 0, D 2, D 2 -> 2 MP, 4 BP.  (36 BP = 9 × 4.)
    # 3 and 6 level on 2 / 4 and drew each other (direct encounter 1 - 1); Buchholz
    #   6 = 2 (5) + 4 (3) + 3 (2) = 10,   3 = 5 (4) + 1 (2) + 6 (2) = 8, so 6 before 3,
    # although Sonneborn-Berger favours 3 and so does the number:
    #   SB 6 = 0×5 + 2×3 + 2×2 = 10,     SB 3 = 2×4 + 0×2 + 2×2 = 12.
    # 2: BH 2 + 4 + 2 = 8,  SB 4×2 + 2×4 + 3×2 = 22.
    # 5: BH 2 + 5 + 3 = 10, SB 2×2 + 2×5 + 3×3 = 23.
    # 4: BH 2 + 2 + 4 = 8,  SB 4×2 + 2×2 + 1×4 = 16.
    # 1: BH 3 + 2 + 5 = 10, SB 0×3 + 4×2 + 1×5 = 13.
    assert league.standings(results, teams=range(1, 7)) == [
        _row(1, 2, 3, 2, 1, 0, 5, 9, None, 8, 22),
        _row(2, 5, 3, 1, 2, 0, 4, 7, None, 10, 23),
        _row(3, 4, 3, 1, 1, 1, 3, 7, None, 8, 16),
        _row(4, 1, 3, 1, 0, 2, 2, 5, None, 10, 13),
        _row(5, 6, 3, 0, 2, 1, 2, 4, 1, 10, 10),
        _row(6, 3, 3, 0, 2, 1, 2, 4, 1, 8, 12),
    ]


def test_standings_sonneborn_berger_when_buchholz_is_level():
    # A round robin of 4 teams, 2 boards (4 board points a match), on Tabella 1.
    results = [
        MatchResult(1, 4, 4, 0),  # round 1
        MatchResult(2, 3, 2, 2),
        MatchResult(4, 3, 2, 2),  # round 2
        MatchResult(1, 2, 2, 2),
        MatchResult(2, 4, 2, 2),  # round 3
        MatchResult(3, 1, 4, 0),
    ]
    # 1: W 4, D 2, L 0 -> 3 MP, 6 BP.   2: D, D, D -> 3 MP, 6 BP.
    # 3: D 2, D 2, W 4 -> 4 MP, 8 BP.   4: L 0, D 2, D 2 -> 2 MP, 4 BP.  (24 BP = 6 × 4.)
    # 1 and 2 drew each other (direct encounter 1 - 1) and met the same teams (BH 4 + 2 + 3 =
    # 9 both), but 1 scored its points against the weaker:
    #   SB 1 = 4×2 (vs 4) + 2×3 (vs 2) + 0×4 (vs 3) = 8 + 6 + 0 = 14
    #   SB 2 = 2×4 (vs 3) + 2×3 (vs 1) + 2×2 (vs 4) = 8 + 6 + 4 = 18, so 2 before 1.
    # 3: BH 3 + 2 + 3 = 8,  SB 2×3 + 2×2 + 4×3 = 22.
    # 4: BH 3 + 4 + 3 = 10, SB 0×3 + 2×4 + 2×3 = 14.
    assert league.standings(results, teams=[1, 2, 3, 4]) == [
        _row(1, 3, 3, 1, 2, 0, 4, 8, None, 8, 22),
        _row(2, 2, 3, 0, 3, 0, 3, 6, 1, 9, 18),
        _row(3, 1, 3, 1, 1, 1, 3, 6, 1, 9, 14),
        _row(4, 4, 3, 0, 2, 1, 2, 4, None, 10, 14),
    ]


def test_standings_a_round_robin_bye_scores_nothing():
    # Three teams, 2 boards: 1 rests in round 1, 3 in round 2, 2 in round 3 (Tabella 1).
    results = [MatchResult(2, 3, 3, 1), MatchResult(1, 2, 2, 2), MatchResult(3, 1, 1, 3)]
    # No ByeScore: 1: D 2, W 3 -> 3 MP, 5 BP; 2: W 3, D 2 -> 3 MP, 5 BP; 3: 0 MP, 1 + 1 = 2 BP.
    # 1 and 2 drew (1 - 1); BH 1 = 3 + 0 = 3 = BH 2; SB 1 = 2×3 + 3×0 = 6 = SB 2: the number.
    # 3: BH 3 + 3 = 6, SB 1×3 + 1×3 = 6. Played: 2 each, the bye not counted.
    assert league.standings(results, teams=[1, 2, 3]) == [
        _row(1, 1, 2, 1, 1, 0, 3, 5, 1, 3, 6),
        _row(2, 2, 2, 1, 1, 0, 3, 5, 1, 3, 6),
        _row(3, 3, 2, 0, 0, 2, 0, 2, None, 6, 6),
    ]


def test_standings_a_swiss_bye_is_a_won_match_with_a_drawn_match_board_points():
    assert league.swiss_bye(3, boards=2, double_games=False) == ByeScore(3, 2, 2)
    assert league.swiss_bye(3, boards=4, double_games=True) == ByeScore(3, 2, 8)  # 4 × 2 games
    results = [MatchResult(2, 3, 3, 1), MatchResult(1, 2, 2, 2), MatchResult(3, 1, 1, 3)]
    byes = [league.swiss_bye(3, boards=2, double_games=False)]
    # 3: 0 + 2 (bye) = 2 MP, 2 + 2 = 4 BP, played still 2; its opponents' Buchholz count its
    # final 2 MP: BH 1 = 3 (2) + 2 (3) = 5 = BH 2; BH 3 = 3 + 3 = 6, the bye no opponent.
    # SB 1 = 2×3 + 3×2 = 12 = SB 2; SB 3 = 1×3 + 1×3 = 6.
    assert league.standings(results, teams=[1, 2, 3], byes=byes) == [
        _row(1, 1, 2, 1, 1, 0, 3, 5, 1, 5, 12),
        _row(2, 2, 2, 1, 1, 0, 3, 5, 1, 5, 12),
        _row(3, 3, 2, 0, 0, 2, 2, 4, None, 6, 6),
    ]


def test_standings_a_team_yet_to_play_and_a_double_round_robin():
    # Teams 1 and 2 met twice (one cycle each way), team 3 has not played yet.
    results = [MatchResult(1, 2, 5, 3), MatchResult(2, 1, 4, 4)]
    # 1: W + D = 3 MP, 5 + 4 = 9 BP; BH counts 2 once per match: 1 + 1 = 2; SB 5×1 + 4×1 = 9.
    # 2: L + D = 1 MP, 3 + 4 = 7 BP; BH 3 + 3 = 6; SB 3×3 + 4×3 = 21.
    assert league.standings(results, teams=[1, 2, 3]) == [
        _row(1, 1, 2, 1, 1, 0, 3, 9, None, 2, 9),
        _row(2, 2, 2, 0, 1, 1, 1, 7, None, 6, 21),
        _row(3, 3, 0, 0, 0, 0, 0, 0, None, 0, 0),
    ]


def test_standings_refuse_a_team_outside_the_league_and_a_team_against_itself():
    with pytest.raises(ValueError, match="between 1 and 4"):
        league.standings([MatchResult(1, 4, 2, 2)], teams=[1, 2, 3])
    with pytest.raises(ValueError, match="between 2 and 2"):
        league.standings([MatchResult(2, 2, 2, 2)], teams=[1, 2, 3])
    with pytest.raises(ValueError, match="bye for 9"):
        league.standings([], teams=[1, 2, 3], byes=[ByeScore(9, 2, 2)])


# --- The Swiss of teams ---------------------------------------------------------------------


# Pairing numbers 1..11 are these league numbers (the seeding comes from the caller).
SEEDING = [4, 9, 1, 7, 11, 2, 5, 10, 3, 8, 6]
SWISS_TWO_ROUNDS = [
    league.SwissRound(
        matches=(
            MatchResult(4, 2, 3, 1),  # #1 v #6: 4 wins
            MatchResult(5, 9, 1, 3),  # #7 v #2: 9 wins
            MatchResult(1, 10, 2, 2),  # #3 v #8: drawn
            MatchResult(3, 7, 0, 4),  # #9 v #4: 7 wins
            MatchResult(11, 8, 3, 1),  # #5 v #10: 11 wins
        ),
        bye=6,  # #11
    ),
    # Scores after round 1: 4, 9, 7, 11 and 6 (the bye) 2; 1 and 10 1; 2, 5, 3, 8 0.
    league.SwissRound(
        matches=(
            MatchResult(9, 4, 2, 2),  # 2 v 2: drawn
            MatchResult(7, 11, 3, 1),  # 2 v 2: 7 wins
            MatchResult(6, 1, 1, 3),  # 2 v 1: 1 wins, both floated
            MatchResult(10, 2, 4, 0, played=False),  # 2 never showed: 10's win, no meeting
            MatchResult(8, 5, 2, 2),  # 0 v 0: drawn
        ),
        bye=3,  # #9
    ),
]


def test_swiss_teams_state_before_round_three():
    states = {s.team: s for s in league.swiss_teams(SWISS_TWO_ROUNDS, seeding=SEEDING)}
    # 6 (#11): bye 2 + lost to 1 (#3) 0 = 2; first-named in round 2 only; floated (2 v 1).
    assert states[6] == league.SwissTeam(
        number=11,
        team=6,
        score=2,
        colours="W",
        opponents=frozenset({3}),
        had_bye=True,
        floated_last_round=True,
        colour_rounds=(2,),
        won_by_forfeit=False,
    )
    # 1 (#3): drew 10 (#8) first-named, then won at 6 (#11) second-named: 1 + 2 = 3;
    # floated (1 v 2).
    assert states[1] == league.SwissTeam(
        3, 1, 3, "WB", frozenset({8, 11}), False, True, (1, 2), False
    )
    # 10 (#8): drew 1 (#3) second-named, then won a match nobody played: 1 + 2 = 3, one colour,
    # one opponent, no float (no meeting), and Lim 1's forfeit win.
    assert states[10] == league.SwissTeam(8, 10, 3, "B", frozenset({3}), False, False, (1,), True)
    # 2 (#6): lost to 4 (#1) second-named, then lost the match it never played: 0.
    assert states[2] == league.SwissTeam(6, 2, 0, "B", frozenset({1}), False, False, (1,), False)
    # 7 (#4): won at 3 (#9) second-named, then beat 11 (#5) first-named, 2 v 2: 4, no float.
    assert states[7] == league.SwissTeam(
        4, 7, 4, "BW", frozenset({9, 5}), False, False, (1, 2), False
    )
    # 3 (#9): lost to 7 first-named, then the bye: 0 + 2 = 2, one colour.
    assert (states[3].score, states[3].had_bye, states[3].colours) == (2, True, "W")


def test_swiss_teams_feed_the_lim_pairing():
    # The states, as Lim's pairing takes them (teams.league.player_states), paired by it.
    states = league.swiss_teams(SWISS_TWO_ROUNDS, seeding=SEEDING)
    players = league.player_states(states)
    assert [(p.number, p.score, p.colours) for p in players] == [
        (s.number, s.score, s.colours) for s in states
    ]
    pairing = lim.pair_round(players, RoundSpec(number=3, total_rounds=6))
    by_number = {s.number: s for s in states}
    seated = [n for g in pairing.games for n in (g.white, g.black)] + [pairing.bye]
    assert sorted(seated) == list(range(1, 12))
    for game in pairing.games:
        assert game.black not in by_number[game.white].opponents  # Lim 2: no rematch
        # Lim 2 on the first board's colours: never first-named three times running.
        assert not by_number[game.white].colours.endswith("WW")
        assert not by_number[game.black].colours.endswith("BB")
    # Lim 1: not 6 or 3 (had the bye), not 10 (won by forfeit).
    assert by_number[pairing.bye].team not in {6, 3, 10}


def test_swiss_teams_refuse_a_bad_seeding_or_round():
    with pytest.raises(ValueError, match="seeding"):
        league.swiss_teams([], seeding=[1, 2, 2])
    twice = [league.SwissRound(matches=(MatchResult(1, 2, 2, 2), MatchResult(2, 3, 2, 2)))]
    with pytest.raises(ValueError, match="round 1"):
        league.swiss_teams(twice, seeding=[1, 2, 3, 4])


# --- Board prizes ----------------------------------------------------------------------------


def _games(board, player, *points, played=True):
    return [BoardGame(board, player, p, played) for p in points]


def test_board_prize_minimum_is_half_the_games_rounded_up():
    assert league.board_prize_minimum(matches_per_team=5, games_per_board=1) == 3  # ⌈2.5⌉
    assert league.board_prize_minimum(matches_per_team=5, games_per_board=2) == 5
    assert league.board_prize_minimum(matches_per_team=6, games_per_board=1) == 3


def test_board_prizes():
    games = [
        # Board 1: c 2+2+2+1 = 7 of 8 = 87.5 % beats a 2+2+1 = 5 of 6 = 83.3 %; b's 100 % in
        # 2 games is under the minimum of 3.
        *_games(1, "a", 2, 2, 1),
        *_games(1, "b", 2, 2),
        *_games(1, "c", 2, 2, 2, 1),
        # Board 2: d 2+2+0 = 4 of 6 and e 2+1+1+2+1+1 = 8 of 12 are both 66.7 %: e played more.
        # d's forfeit win is no game (with it d would have 6 of 8 = 75 %).
        *_games(2, "d", 2, 2, 0),
        *_games(2, "d", 2, played=False),
        *_games(2, "e", 2, 1, 1, 2, 1, 1),
        # Board 3: f 2+1+1 and g 1+1+2, both 4 of 6 in 3 games: shared. a's 2 of 2 games on
        # board 3 count apart from its board-1 games: under the minimum.
        *_games(3, "f", 2, 1, 1),
        *_games(3, "g", 1, 1, 2),
        *_games(3, "a", 2, 2),
        # Board 4: nobody reaches 3 games: no prize.
        *_games(4, "h", 2, 2),
    ]
    prizes = league.board_prizes(games, minimum_games=3)
    assert [p.board for p in prizes] == [1, 2, 3]
    assert [[(w.player, w.games, w.points) for w in p.winners] for p in prizes] == [
        [("c", 4, 7)],
        [("e", 6, 8)],
        [("f", 3, 4), ("g", 3, 4)],
    ]
    assert prizes[0].winners[0].share * 100 == 87.5


def test_board_prizes_refuse_a_minimum_below_one():
    with pytest.raises(ValueError, match="at least one game"):
        league.board_prizes([], minimum_games=0)
