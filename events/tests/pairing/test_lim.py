"""Lim system: one test per rule of docs/lim.md, and the handbook examples of docs/lim/examples.md.

Scores are in platform units (win 2, draw 1): the examples' "2 points" (1/0.5/0) become 4.
"""

from dataclasses import replace

import pytest

from events.pairing import lim
from events.pairing.checks import hard_rule_violations, legal_pairing_exists, quality
from events.pairing.lim import (
    DOWN,
    ROUND_READING,
    UP,
    NoLegalPairing,
    PairingNotes,
    assign_colours,
    compatible,
    pair_round,
    score_group_order,
)
from events.pairing.model import (
    BLACK,
    BYE_HALF,
    BYE_ZERO,
    WHITE,
    Bye,
    Entrant,
    Game,
    GameResult,
    RoundSpec,
    Tournament,
)

from .helpers import pairs, player, symmetric, unordered

ROUND_2 = RoundSpec(number=2, total_rounds=9)  # median score 2
ROUND_3 = RoundSpec(number=3, total_rounds=9)  # median score 4


def pair(players, spec, notes=None):
    players = symmetric(players)
    result = pair_round(players, spec, notes=notes)
    assert hard_rule_violations(players, spec, result) == []
    return result


def partners_outside(result, group: set[int]) -> set[int]:
    """Members of `group` paired with somebody outside it: the group's floaters."""
    out = set()
    for g in result.games:
        if (g.white in group) != (g.black in group):
            out.add(g.white if g.white in group else g.black)
    return out


# -- Rule 1: the bye ------------------------------------------------------------------------------


def test_rule_1_bye_goes_to_lowest_ranked_of_lowest_group_without_a_bye():
    players = [player(1, 4), player(2, 2), player(3, 0), player(4, 0, bye=True), player(5, 2)]
    result = pair(players, ROUND_3)
    assert result.bye == 3  # #4 ranks lower but already rested


def test_rule_1_bye_skips_a_player_who_cannot_be_left_out():
    # Lowest group {3, 4, 5}: #5, the lowest-ranked, can rest (1-2 and 3-4 still pair).
    players = [
        player(1, 2, "W", met=(4,)),
        player(2, 2, "B", met=(4,)),
        player(3, 0),
        player(4, 0, met=(1, 2), bye=True),
        player(5, 0, met=()),
    ]
    result = pair(players, ROUND_2)
    assert result.bye == 5
    players_blocking = [
        player(1, 2, met=(2, 3)),
        player(2, 2, met=(1, 3)),
        player(3, 0, met=(1, 2)),
        player(4, 0, met=(5,)),
        player(5, 0, met=(4,)),
    ]
    # #5 cannot rest (4 would be left with 1-2-3, and 1, 2, 3 have all met): #4 cannot either.
    result = pair(players_blocking, ROUND_3)
    assert result.bye == 3


def test_rule_1_no_bye_for_a_player_who_won_by_forfeit():
    # LIM 1 (FIDE C.04.1): #5, lowest-ranked of the lowest group, won a game
    # because the opponent did not show up: like one who already rested, #4 gets the bye.
    players = [player(1, 4), player(2, 4), player(3, 2), player(4, 2), player(5, 2)]
    assert pair(players, ROUND_3).bye == 5
    players[4] = player(5, 2, forfeit_win=True)
    assert pair(players, ROUND_3).bye == 4


def test_rule_1_forfeit_win_read_from_the_history_with_absences():
    # Nine players. Round 1: #8 was busy and did not show up, so #9 won by forfeit (RULES
    # 4.7); #7 rested. Round 2: #8 rested, #9 lost to #7, the others drew. Round 3: the lowest
    # group is everybody on 2 points; its lowest-ranked are #9 (the forfeit winner) and #8
    # (who rested), so #6 gets the bye. Without the forfeit rule #9 would have had it.
    t = Tournament(
        tuple(Entrant(n, f"p{n}", 2000 - n) for n in range(1, 10)),
        5,
        games=(
            GameResult(1, 1, 2, 1, 1),
            GameResult(1, 3, 4, 1, 1),
            GameResult(1, 5, 6, 1, 1),
            GameResult(1, 9, 8, 2, 0, played=False),
            GameResult(2, 7, 9, 2, 0),
            GameResult(2, 1, 3, 1, 1),
            GameResult(2, 2, 4, 1, 1),
            GameResult(2, 6, 5, 1, 1),
        ),
        byes=(Bye(1, 7), Bye(2, 8)),
    )
    states = t.player_states()
    by_number = {p.number: p for p in states}
    assert by_number[9].won_by_forfeit and not by_number[8].won_by_forfeit
    assert {p.score for p in states if p.number != 7} == {2}
    spec = t.next_round_spec()
    result = pair_round(states, spec)
    assert result.bye == 6
    assert hard_rule_violations(states, spec, result) == []
    without_the_rule = [replace(p, won_by_forfeit=False) for p in states]
    assert pair_round(without_the_rule, spec).bye == 9
    bye_to_9 = pair_round(without_the_rule, spec)
    assert "bye for 9, who already won by forfeit" in hard_rule_violations(states, spec, bye_to_9)
    # If everybody else has rested already, nobody may rest: the round cannot be paired.
    only_9 = [replace(p, had_bye=p.number != 9) for p in states]
    assert not legal_pairing_exists(only_9, spec)
    with pytest.raises(NoLegalPairing):
        pair_round(only_9, spec)


def test_rule_1_round_one_bye_to_lowest_rated_fixture_f10():
    players = [player(n, rating=2600 - n) for n in range(1, 40)]
    players[10] = player(11, rating=1000)
    result = pair(players, RoundSpec(1, 9))
    assert result.bye == 11


def test_rule_1_round_one_unrated_counts_lowest_fixture_f11():
    players = [player(n, rating=2600 - n) for n in range(1, 6)]
    players[1] = player(2, rating=None)
    assert pair(players, RoundSpec(1, 9)).bye == 2


# -- Rule 2: compatibility ------------------------------------------------------------------------


def test_rule_2_no_rematch_ever():
    a, b = player(1, 4, "WB", met=(2,)), player(2, 4, "BW", met=(1,))
    assert not compatible(a, b, RoundSpec(3, 3))  # not even in the last round


def test_rule_2_colour_limits_and_last_round_relaxation_fixture_f9():
    a, b = player(1, 4, "BWW"), player(2, 4, "WBWW")
    assert not compatible(a, b, RoundSpec(5, 9))
    assert compatible(a, b, RoundSpec(9, 9))
    # Unequal scores keep the limits even in the last round.
    assert not compatible(player(1, 6, "BWW"), b, RoundSpec(9, 9))


def test_rule_2_three_more_of_one_colour_is_forbidden():
    # a has three Whites and one Black: White again would make it four against one.
    a, b = player(1, 4, "WBWW"), player(2, 4, "BWWB")
    assert not compatible(player(1, 4, "WWBW"), player(2, 4, "WBWW"), ROUND_3)
    assert compatible(a, b, ROUND_3)  # b can take White


def test_rule_2_double_games_lift_colour_limits():
    spec = RoundSpec(3, 9, double_games=True)
    assert compatible(player(1, 4, "WW"), player(2, 4, "WW"), spec)


# -- Rule 3: order of groups ---------------------------------------------------------------------


def test_rule_3_group_order_handbook_8_3_case_a():
    # One round played: median 2 (0.5 in 1/0.5/0 points).
    assert score_group_order([4, 2, 0], 2) == [(4, DOWN), (0, UP), (2, DOWN)]


def test_rule_3_group_order_case_b_and_virtual_median():
    scores = range(0, 17)
    assert score_group_order(scores, 8) == (
        [(s, DOWN) for s in (16, 15, 14, 13, 12, 11, 10, 9)]
        + [(s, UP) for s in (0, 1, 2, 3, 4, 5, 6, 7)]
        + [(8, DOWN)]
    )
    assert score_group_order([4, 0], 2)[-1] == (2, DOWN)  # nobody on the median: virtual


# -- Rules 4 and 5: transfers and the choice of floaters -----------------------------------------


def test_rule_4a_and_8_5_handbook_4_4_2_even_group_two_without_opponent():
    players = [
        player(1, 4, met=(2, 3, 4, 5)),
        player(2, 4, met=(1, 3, 4, 5)),
        player(3, 4),
        player(4, 4),
        player(5, 4),
        player(6, 4),
        player(7, 2),
        player(8, 2),
    ]
    result = pair(players, ROUND_2)
    assert pairs("1-6", "3-4") <= unordered(result)
    assert partners_outside(result, {1, 2, 3, 4, 5, 6}) == {2, 5}


def test_rule_4a_handbook_4_4_1_odd_group_unpairable_replaces_even_maker():
    players = [player(1, 4, met=(2, 3, 4, 5)), player(2, 4, met=(1, 3, 4, 5, 6, 7))]
    players += [player(n, 4) for n in range(3, 8)]
    players += [player(8, 2), player(9, 2), player(10, 0)]
    result = pair(players, ROUND_2)
    assert partners_outside(result, set(range(1, 8))) == {2}
    assert pairs("1-6", "3-5", "4-7") <= unordered(result)


def test_rule_4b_two_more_of_one_colour_with_no_partner_allowing_the_other_floats():
    # 1 and 2 have three Whites and one Black: both must have Black, so they cannot meet and
    # float down; 3 and 4 (three Blacks) must have White and float up. Rule 6 in the median:
    # 1 (downfloater, due Black) takes the highest-ranked due White, #3.
    players = [
        player(1, 6, "WWBW"),
        player(2, 6, "WWBW"),
        player(3, 2, "BBWB"),
        player(4, 2, "BBWB"),
    ]
    result = pair(players, RoundSpec(5, 9))
    assert set(result.games) == {Game(3, 1), Game(4, 2)}


def test_rule_4c_same_colour_twice_with_no_partner_allowing_the_other_floats():
    # #1, #2, #3 had Black twice: only White allowed for each; #4 had White twice. In the top
    # group {1, 2, 3} only... nobody can give them Black-White, so two of them must float.
    players = [
        player(1, 8, "WBB"),
        player(2, 8, "WBB"),
        player(3, 8, "WBB"),
        player(4, 6, "BWW"),
        player(5, 6, "BWW"),
        player(6, 6, "BWW"),
    ]
    result = pair(players, RoundSpec(4, 9))
    assert all(frozenset(p) not in unordered(result) for p in ((1, 2), (1, 3), (2, 3)))
    assert all(g.white in (1, 2, 3) for g in result.games)


def test_rule_5_3_type_d_preferred_over_c_fixture_f4():
    players = [player(1, 4), player(2, 4), player(3, 4, met=(6, 7)), player(6, 2), player(7, 2)]
    players.append(player(8, 0))
    result = pair(players, ROUND_2)
    assert partners_outside(result, {1, 2, 3}) == {2}


def test_rule_5_4_avoid_who_floated_last_round_fixture_f5():
    players = [player(n, 4) for n in range(1, 5)] + [player(5, 4, floated=True)]
    players += [player(6, 2), player(7, 2), player(8, 0)]
    result = pair(players, ROUND_3)
    assert partners_outside(result, {1, 2, 3, 4, 5}) == {4}


def test_rule_5_5_floater_balances_due_colours_downwards_fixture_f2():
    colours = {1: "B", 2: "W", 3: "B", 4: "B", 5: "W"}
    players = [player(n, 4, c) for n, c in colours.items()]
    players += [player(6, 2, "W"), player(7, 2, "B"), player(8, 0, "B")]
    result = pair(players, ROUND_2)
    assert partners_outside(result, {1, 2, 3, 4, 5}) == {4}


def test_rule_5_5_floater_balances_due_colours_upwards_fixture_f2():
    colours = {1: "B", 2: "W", 3: "B", 4: "B", 5: "W"}
    players = [player(n, 0, c) for n, c in colours.items()]
    players += [player(6, 2, "W"), player(7, 2, "B"), player(8, 4, "W")]
    result = pair(players, ROUND_2)
    assert partners_outside(result, {1, 2, 3, 4, 5}) == {1}


def test_rule_5_6_default_floater_is_lowest_ranked_down_highest_up():
    down = [player(n, 4) for n in (1, 2, 3)] + [player(4, 2), player(5, 2), player(6, 2)]
    assert partners_outside(pair(down, ROUND_2), {1, 2, 3}) == {3}
    up = [player(n, 0) for n in (4, 5, 6)] + [player(1, 2), player(2, 2), player(3, 2)]
    assert partners_outside(pair(up, ROUND_2), {4, 5, 6}) == {4}


# -- Rules 6 and 9: incoming floaters first, a blocked median --------------------------------------


def test_rules_6_and_9_fixture_f1_blocked_median_cracks_the_group_below():
    # F1: #3 floats down into the median {4}; they met, so the median is blocked. More
    # floaters came from above (1) than from below (0): rule 9 undoes the group just below
    # (5-6), and in the median #3 (due White) takes #6 (due Black, rule 6), then 4-5.
    players = [
        player(1, 4, "WB", met=(4,)),
        player(2, 4, "BW", met=(4,)),
        player(3, 4, "WB", met=(4,)),
        player(4, 2, "BW", met=(1, 2, 3)),
        player(5, 0, "WB"),
        player(6, 0, "BW"),
    ]
    notes = PairingNotes()
    result = pair(players, RoundSpec(3, 5), notes)
    assert unordered(result) == pairs("1-2", "3-6", "4-5")
    assert set(result.games) == {Game(1, 2), Game(3, 6), Game(5, 4)}
    assert notes.cracked_groups == 1


# The median group blocked: 8 players, 3 rounds played (median 3): {1, 2} on 4, {3} on 3,
# {4, 5, 6} on 2, {7, 8} on 0; #6 has met 3, 4 and 5. With these colours the round-wide reading
# of rule 8.3 gives 2-1, 4-3, 5-8, 6-7 (White first): 3 floaters where LIM.md's reading has 2.
MEDIAN_BLOCKED = {
    1: (4, "WBW"),
    2: (4, "BWB"),
    3: (3, "WBW"),
    4: (2, "BWB"),
    5: (2, "BWB"),
    6: (2, "BWB"),
    7: (0, "WBW"),
    8: (0, "WBW"),
}


def median_blocked_players():
    return symmetric(
        [
            player(n, score, colours, met=(3, 4, 5) if n == 6 else ())
            for n, (score, colours) in MEDIAN_BLOCKED.items()
        ]
    )


def test_rule_9_cracks_the_group_above_a_blocked_median():
    # {1, 2} pairs 1-2; {7, 8} pairs 7-8; in {4, 5, 6} #6 has met the others and floats up,
    # 4-5. The median {3} + #6 is blocked (they met); more came up than down, so rule 9 undoes
    # the group just above: 1 and 2 join. #1 (due Black) takes the highest-ranked due White
    # with which the rest still pairs: not #2 (3-6 met), so #6; then 2-3.
    players = median_blocked_players()
    spec = RoundSpec(4, 9)
    notes = PairingNotes()
    result = pair_round(players, spec, notes=notes)
    assert unordered(result) == pairs("1-6", "2-3", "4-5", "7-8")
    assert notes.cracked_groups == 1 and notes.guard_fallbacks == 0
    assert hard_rule_violations(players, spec, result) == []
    q = quality(players, result)
    assert (q.floaters, q.score_difference_sum) == (2, 3)


def test_rule_8_3_read_over_the_round_floats_three():
    players = median_blocked_players()
    result = pair_round(players, RoundSpec(4, 9), reading=ROUND_READING)
    assert set(result.games) == {Game(2, 1), Game(4, 3), Game(5, 8), Game(6, 7)}
    q = quality(players, result)
    assert (q.floaters, q.score_difference_sum) == (3, 5)


def test_rule_6_downfloater_takes_highest_ranked_due_the_other_colour():
    players = [
        player(1, 6, "WB"),  # due White, floats down alone
        player(4, 4, "WB"),
        player(5, 4, "BW"),
        player(6, 4, "BW"),
        player(7, 4, "WB"),
        player(8, 4, "BW"),
    ]
    result = pair(players, RoundSpec(3, 9))
    assert Game(1, 5) in result.games


# -- Rules 7 and 8: proposed pairing and exchanges (handbook 4.2 and 4.3) -------------------------

TABLE_4_2 = [
    ((), ("1-4", "2-5", "3-6")),
    ((4,), ("1-5", "2-4", "3-6")),
    ((4, 5), ("1-6", "2-4", "3-5")),
    ((4, 5, 6), ("1-3", "2-5", "4-6")),
    ((4, 5, 6, 3), ("1-2", "3-5", "4-6")),
]


@pytest.mark.parametrize(("met_by_1", "expected"), TABLE_4_2)
def test_rules_7_8_handbook_table_4_2(met_by_1, expected):
    players = [player(1, 2, met=met_by_1)] + [player(n, 2) for n in range(2, 7)]
    assert unordered(pair(players, ROUND_2)) == pairs(*expected)


TABLE_4_3 = [
    ((), ("1-6", "2-4", "3-5")),
    ((4,), ("1-6", "2-5", "3-4")),
    ((4, 5), ("1-6", "2-3", "4-5")),
    ((4, 5, 3), ("1-3", "2-6", "4-5")),
    ((4, 5, 3, 6), ("1-2", "3-5", "4-6")),
]


@pytest.mark.parametrize(("met_by_2", "expected"), TABLE_4_3)
def test_rules_7_8_handbook_table_4_3(met_by_2, expected):
    players = [player(1, 2, met=(4, 5)), player(2, 2, met=met_by_2)]
    players += [player(n, 2) for n in range(3, 7)]
    assert unordered(pair(players, ROUND_2)) == pairs(*expected)


def test_rule_9_median_blocked_by_upfloaters_cracks_the_group_above():
    # Top group {1, 2, 3}: #3 floats to make it even, 1-2. Bottom {4, 5}: they met, both
    # float up. The median {6} + 3 (down), 4, 5 (up) cannot pair (3 met 4 and 5, 4 met 5).
    # More came up (2) than down (1): rule 9 undoes 1-2. In the median the downfloaters go
    # first: #1 cannot take #2 (the rest would not pair), takes #3; #2 takes #4; then 5-6.
    players = [
        player(1, 4),
        player(2, 4),
        player(3, 4, met=(4, 5)),
        player(6, 2),
        player(4, 0, met=(5,)),
        player(5, 0),
    ]
    notes = PairingNotes()
    result = pair(players, ROUND_2, notes)
    assert unordered(result) == pairs("1-3", "2-4", "5-6")
    assert notes.cracked_groups == 1


def test_rule_8_5_player_without_opponent_replaces_the_even_maker():
    # The same state under the round-wide reading (rule 8.3 over the whole round): 1-2
    # would leave the round unpairable, so #1 finds no opponent and floats instead of #3, who
    # comes back and plays #2 (8.5). The guard's round-wide choice still works this way.
    players = [
        player(1, 4),
        player(2, 4),
        player(3, 4, met=(4, 5)),
        player(6, 2),
        player(4, 0, met=(5,)),
        player(5, 0),
    ]
    result = pair_round(symmetric(players), ROUND_2, reading=ROUND_READING)
    assert pairs("2-3") <= unordered(result)
    assert partners_outside(result, {1, 2, 3}) == {1}


def test_rule_8_3_guard_takes_the_next_choice_of_floaters():
    # Top group {1, 2, 3} (8 points, not beside the median): rule 5 would float #3 and pair
    # 1-2, but #9 has met everybody but #1 and #2, so the rest of the round could not be
    # paired. The guard takes the next choice of rule 5, #2 floats, 1-3; #2 later meets #9.
    players = [player(1, 8), player(2, 8), player(3, 8), player(4, 6), player(5, 6)]
    players += [player(6, 4), player(7, 4), player(8, 2), player(10, 2)]
    players += [player(9, 2, met=(3, 4, 5, 6, 7, 8, 10))]
    spec = RoundSpec(3, 9)
    notes = PairingNotes()
    result = pair(players, spec, notes)
    assert pairs("1-3", "2-9") <= unordered(result)
    assert notes.guard_fallbacks == 0


def test_rule_11_guard_falls_back_when_its_choices_run_out(monkeypatch):
    # The state above, but the guard may try one choice of floaters only: the round-wide
    # choice must pair the group, never the refused first choice.
    monkeypatch.setattr(lim, "FLOATER_CHOICES", 1)
    players = [player(1, 8), player(2, 8), player(3, 8), player(4, 6), player(5, 6)]
    players += [player(6, 4), player(7, 4), player(8, 2), player(10, 2)]
    players += [player(9, 2, met=(3, 4, 5, 6, 7, 8, 10))]
    notes = PairingNotes()
    result = pair(players, RoundSpec(3, 9), notes)
    assert notes.guard_fallbacks >= 1
    assert any(frozenset((9, top)) in unordered(result) for top in (1, 2))


def test_rule_11_guard_falls_back_to_the_round_wide_choice():
    # {1, 2} on 8 points can only pair 1-2, but #8 can only play #1 or #2: no choice of the
    # group keeps the round pairable, so the round-wide choice pairs it (both float on).
    players = [player(1, 8), player(2, 8), player(3, 6), player(4, 6), player(5, 4)]
    players += [player(6, 4), player(7, 2), player(8, 2, met=(3, 4, 5, 6, 7))]
    notes = PairingNotes()
    result = pair(players, RoundSpec(3, 9), notes)
    assert notes.guard_fallbacks >= 1
    assert any(frozenset((8, top)) in unordered(result) for top in (1, 2))


def test_rule_8_4_colour_exchange_fixture_f6():
    players = [player(1, 2, "B"), player(2, 2, "B"), player(3, 2, "B"), player(4, 2, "W")]
    assert unordered(pair(players, ROUND_2)) == pairs("1-4", "2-3")


def test_rule_8_upward_scrutiny_starts_from_the_bottom():
    # Below the median, [4, 5, 6, 7] are paired upwards: #7 is scrutinised first, its proposed
    # partner #5 was met, so it tries #4 next; then 5-6.
    players = [player(n, 4) for n in (1, 2)] + [player(n, 0) for n in (4, 5, 6)]
    players += [player(7, 0, met=(5,))]
    result = pair(players, ROUND_3)
    assert pairs("4-7", "5-6") <= unordered(result)


# -- Rule 10: colours -----------------------------------------------------------------------------


def test_rule_10_4_identical_histories_fixture_f8():
    a, b = player(3, 2, "WB"), player(7, 2, "WB")
    assert assign_colours(a, b, ROUND_3, at_or_above_median=True) == Game(3, 7)
    assert assign_colours(a, b, ROUND_3, at_or_above_median=False) == Game(7, 3)


def test_rule_10_4_latest_difference_decides():
    # Both due White (balanced, last Black): latest difference is round 2 (a W, b B).
    a, b = player(1, 4, "BWWB"), player(2, 4, "WBWB")
    assert assign_colours(a, b, RoundSpec(5, 9), True) == Game(2, 1)
    assert assign_colours(player(4, 2, "BWB"), player(8, 2, "WBB"), ROUND_3, True) == Game(8, 4)


def test_rule_10_4_compares_rounds_not_games():
    # Pairing round 4; both are due White. #1 played White in round 1, had a
    # half-point bye in round 2, Black in round 3 ("WB"); #2 played B, W, B. Round by round
    # the latest round both played with different colours is round 1 (#1 W, #2 B), so #1 gets
    # Black. Aligned on games instead, "WB" against "BWB" shows no difference and the
    # higher-ranked #1 would get White.
    a = player(1, 3, "WB", rounds=(1, 3))
    b = player(2, 3, "BWB", rounds=(1, 2, 3))
    spec = RoundSpec(4, 9)
    assert assign_colours(a, b, spec, at_or_above_median=True) == Game(2, 1)
    # A round in which only one of them played is skipped for both: #2's round 2 is ignored.
    c = player(2, 3, "BBW", rounds=(1, 2, 3))  # due White too; round 3: B against W
    assert assign_colours(a, c, spec, at_or_above_median=True) == Game(1, 2)


def test_rule_10_4_rounds_come_from_the_tournament_history():
    t = Tournament(
        tuple(Entrant(n, f"p{n}", 2000 - n) for n in range(1, 5)),
        5,
        games=(
            GameResult(1, 1, 3, 2, 0),
            GameResult(1, 4, 2, 0, 2),
            GameResult(2, 2, 3, 1, 1),
            GameResult(3, 4, 1, 1, 1),
            GameResult(3, 3, 2, 1, 1),
        ),
        byes=(Bye(2, 1, BYE_HALF, 1), Bye(2, 4, BYE_ZERO, 0)),
    )
    states = {p.number: p for p in t.player_states()}
    assert (states[1].colours, states[1].colour_rounds) == ("WB", (1, 3))
    assert (states[2].colours, states[2].colour_rounds) == ("BWB", (1, 2, 3))
    assert assign_colours(states[1], states[2], t.next_round_spec(), True) == Game(2, 1)


def test_rule_10_1_absolute_limit_beats_preference():
    a, b = player(1, 4, "BWW"), player(2, 4, "WBW")  # a must have Black
    assert assign_colours(a, b, RoundSpec(4, 9), True) == Game(2, 1)


def test_rule_10_2_due_colours_granted_when_different():
    assert assign_colours(player(1, 2, "W"), player(2, 2, "B"), ROUND_2, True) == Game(2, 1)


@pytest.mark.parametrize("lot", [WHITE, BLACK])
def test_rule_10_5_handbook_7_2_round_one_forty_players(lot):
    players = [player(n, rating=2600 - n) for n in range(1, 41)]
    result = pair(players, RoundSpec(1, 9, first_colour=lot))
    expected = []
    for k in range(1, 21):
        top_white = (k % 2 == 1) == (lot == WHITE)
        expected.append(Game(k, k + 20) if top_white else Game(k + 20, k))
    assert list(result.games) == expected


def test_round_one_small_field_fixture_f12():
    players = [player(n, rating=2600 - n) for n in range(1, 6)]
    result = pair(players, RoundSpec(1, 5))
    assert result.bye == 5
    assert set(result.games) == {Game(1, 3), Game(4, 2)}


# -- Rule 11: never stuck, and honest when stuck ----------------------------------------------------


def test_rule_11_no_legal_pairing_is_reported():
    everyone_met = [player(n, 4, met=tuple(m for m in range(1, 5) if m != n)) for n in range(1, 5)]
    assert not legal_pairing_exists(symmetric(everyone_met), RoundSpec(4, 5))
    with pytest.raises(NoLegalPairing):
        pair_round(symmetric(everyone_met), RoundSpec(4, 5))


def test_rule_11_finds_the_single_legal_pairing():
    # Six players; almost everything has been played: only 1-6, 2-5, 3-4 remain legal, and the
    # score groups would suggest 1-2 first.
    allowed = {frozenset(p) for p in ((1, 6), (2, 5), (3, 4))}
    players = []
    for n in range(1, 7):
        met = tuple(m for m in range(1, 7) if m != n and frozenset((n, m)) not in allowed)
        players.append(player(n, 10 - n, met=met))
    assert unordered(pair(players, RoundSpec(6, 9))) == allowed


def test_deterministic():
    players = [player(n, (n * 7) % 5, "WB"[n % 2]) for n in range(1, 30)]
    first = pair_round(players, ROUND_2)
    assert all(pair_round(players, ROUND_2) == first for _ in range(3))
