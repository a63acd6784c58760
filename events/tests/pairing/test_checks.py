"""The independent checker must catch what it is there to catch."""

import random
from dataclasses import replace

from events.pairing.checker import check_round
from events.pairing.checks import (
    _witness,
    can_all_be_paired,
    hard_rule_violations,
    legal_pairing_exists,
    quality,
)
from events.pairing.model import Bye, Game, GameResult, Pairing, RoundSpec
from events.pairing.simulate import simulate

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


def test_a_witness_pairing_is_only_claimed_when_one_exists():
    # The quick proof of Lim 1's "could have rested" (alternating paths from a nearby pairing)
    # never says yes where the matrix says no, and finds most pairings that exist.
    rng = random.Random(5)
    found = exists = 0
    for _ in range(1500):
        n = rng.choice([4, 6, 8, 10])
        met = [(a, b) for a in range(1, n + 1) for b in range(a + 1, n + 1) if rng.random() < 0.5]
        states = symmetric(
            [
                player(
                    i, 0, rng.choice(["", "WW", "BB", "WB"]), met=tuple(b for a, b in met if a == i)
                )
                for i in range(1, n + 1)
            ]
        )
        order = rng.sample(range(1, n + 1), n)
        near = Pairing(tuple(Game(order[i], order[i + 1]) for i in range(0, n, 2)))
        witness, exact = _witness(states, SPEC, near), can_all_be_paired(states, SPEC)
        assert exact or not witness
        found, exists = found + witness, exists + exact
    assert found > 0.8 * exists


def test_a_bye_given_above_a_big_field_is_caught():
    # 999 players: the bye moved from the lowest group to a player of the top board.
    t = simulate(999, 5, 3).tournament
    bye = next(b for b in t.byes if b.round == 5)
    top = next(g for g in t.games if g.round == 5)
    moved = replace(
        t,
        games=tuple(g for g in t.games if g != top) + (GameResult(5, bye.player, top.black, 0, 2),),
        byes=tuple(b for b in t.byes if b != bye) + (Bye(5, top.white),),
    )
    [finding] = [check_round(moved, 5)]
    assert any(item.startswith(f"Lim 1: bye to {top.white} while") for item in finding.broken)
