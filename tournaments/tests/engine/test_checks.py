"""The independent checker must catch what it is there to catch."""

from tournaments.engine.checks import hard_rule_violations, legal_pairing_exists, quality
from tournaments.engine.model import Game, Pairing, RoundSpec

from .helpers import player, symmetric

SPEC = RoundSpec(3, 9)


def players():
    return symmetric(
        [
            player(1, 4, "WB", met=(2,)),
            player(2, 4, "BW"),
            player(3, 2, "WW"),
            player(4, 2, "BB"),
            player(5, 0, "WB", bye=True),
        ]
    )


def test_a_legal_pairing_passes():
    # 5 rested before, so 4 (lowest-ranked of the next group) rests; 3 (WW) takes Black.
    assert hard_rule_violations(players(), SPEC, Pairing((Game(1, 3), Game(2, 5)), 4)) == []
    assert "second bye for 5" in hard_rule_violations(
        players(), SPEC, Pairing((Game(4, 1), Game(2, 3)), 5)
    )


def test_each_hard_rule_is_caught():
    ps = players()
    assert "rematch 1-2" in hard_rule_violations(ps, SPEC, Pairing((Game(1, 2), Game(4, 3)), 5))
    assert "3 cannot have White" in hard_rule_violations(
        ps, SPEC, Pairing((Game(3, 1), Game(4, 2)), 5)
    )
    assert "4 cannot have Black" in hard_rule_violations(
        ps, SPEC, Pairing((Game(3, 4), Game(1, 5)), 2)
    )
    assert "not every player appears exactly once" in hard_rule_violations(
        ps, SPEC, Pairing((Game(4, 1),), 5)
    )
    # The bye above the lowest group while 5 (no bye yet in this variant) could rest.
    fresh = [p if p.number != 5 else player(5, 0, "WB") for p in ps]
    problems = hard_rule_violations(fresh, SPEC, Pairing((Game(4, 1), Game(2, 5)), 3))
    assert "bye to 3 while 5 scores less" in problems


def test_last_round_relaxes_colours_for_equal_scores_only():
    pairing = Pairing((Game(3, 4), Game(1, 5)), 2)
    assert "3 cannot have White" in hard_rule_violations(players(), SPEC, pairing)
    assert "3 cannot have White" not in hard_rule_violations(players(), RoundSpec(9, 9), pairing)
    unequal = Pairing((Game(3, 2), Game(1, 5)), 4)  # 3 (2 points) v 2 (4 points)
    assert "3 cannot have White" in hard_rule_violations(players(), RoundSpec(9, 9), unequal)


def test_legal_pairing_exists_and_quality_figures():
    ps = players()
    assert legal_pairing_exists([p for p in ps if p.number != 5] + [player(6, 0)], SPEC)
    q = quality(ps, Pairing((Game(4, 1), Game(2, 3)), 5))
    # 4 (2) v 1 (4) and 2 (4) v 3 (2): two floaters, differences 2 + 2.
    assert (q.floaters, q.score_difference_sum, q.score_difference_max) == (2, 4, 2)
    # 1 due White gets Black; 4 due White gets White; 2 due Black gets White; 3 due B gets B.
    assert q.due_colours_not_granted == 2
